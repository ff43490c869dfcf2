//! SillyTavern world info: `{"entries": {"<uid>": {…}}}`.
//!
//! This module is above the usual ~600 lines on purpose: it is one mapping
//! table, field by field, with its import, export and tests.
//!
//! | SillyTavern | model | notes |
//! |---|---|---|
//! | map key / `uid` | `id` | `uid` wins; a missing or repeated one gets the next free id |
//! | `key`, `keysecondary` | `keys`, `secondary_keys` | |
//! | `comment` | `comment` | |
//! | `content` | `content` | our decorator lines go at the top |
//! | `constant`, `selective` | same | |
//! | `selectiveLogic` 0/1/2/3 | `secondary_logic` and_any/not_all/not_any/and_all | missing → and_any |
//! | `order` | `order` **and** `priority` | ST's one number drives placement and budget; on export a `priority` that differs is reported |
//! | `disable` | `!enabled` | a non-standard `enabled` field is kept and kept in sync |
//! | `useProbability` + `probability` | `@@probability N` | only when used and below 100; export reads the decorator and removes the line |
//! | `scanDepth` | `@@scan_depth N` | null → none |
//! | `caseSensitive` | `case_sensitive` | null → false (ST's global default) |
//! | `matchWholeWords` | `whole_words` | null → true (ST's global default is whole words on) |
//! | `role` 0/1/2 | `role` | null → system |
//! | `position`, `depth`, `group`, `groupOverride`, `groupWeight`, `sticky`, `cooldown`, `delay`, `excludeRecursion`, `preventRecursion`, `delayUntilRecursion`, `displayIndex`, `vectorized`, `useGroupScoring`, `automationId`, `outletName`, `ignoreBudget`, `triggers`, `match…` | `extensions` under the snake_case names SillyTavern itself uses in a character book (`position`, `exclude_recursion`, `display_index`, …) | so a card export carries them the way SillyTavern reads cards; values equal to SillyTavern's defaults are not stored |
//! | every other entry field (`addMemo`, `characterFilter`, `name`, …) | `extensions["sillytavern"]` | written back verbatim |
//! | an entry's own `extensions` object | merged into `extensions` | |
//! | book `name`, `description`, `scan_depth`, `token_budget`, `recursive_scanning`, `extensions` | same | some files carry them; ST itself uses global settings. Out-of-range values are clamped |
//! | other top-level fields (`originalData`, `is_creation`, …) | book `extensions["sillytavern"]` | |
//!
//! Export writes our decorators the way SillyTavern understands them:
//! `@@probability` → `probability`/`useProbability`, `@@scan_depth` →
//! `scanDepth`, `@@order` → `order`, `@@role` → `role` (the lines are
//! removed). `@@priority`, `@@keep`, `@@dont_activate_after_match`,
//! `@@activate_only_after`, `@@activate_only_every` and `@@is_greeting`
//! have no SillyTavern equivalent: they stay in the content and are
//! reported. `use_regex` becomes `/key/` literals. Source spellings that
//! differ from what export writes (`null`s, missing fields) are restored
//! through [`super::shadow`].
//!
//! The module runs a little over 600 lines because import and export read
//! the same field tables (`ST_EXT` and the lists below it); split, the
//! two halves of one mapping would have to be kept in step across files.

use serde_json::{json, Value};

use super::common::{
    as_regex_literal, decorator_to_field, drop_decorator, export_entry, file_imported, fill_in,
    finish_imported, probability_from, put_ns, set_decorator, split_extensions, BOOK_FIELDS,
};
use super::error::ImportError;
use super::format::{Detect, Format};
use super::json::{percent, take_bool, take_i64, take_keys, take_object, take_string, take_u64};
use super::native::{assign_ids, usable_id, NO_ID};
use super::report::{Note, Report, Section};
use super::shadow;
use crate::decorators;
use crate::model::{Book, Entry, Object, Role, SecondaryLogic, DEFAULT_ORDER};

/// Extensions key for SillyTavern fields the model has no name for.
pub const NS: &str = "sillytavern";
/// Shadow source name.
const SOURCE: &str = "sillytavern";

/// (SillyTavern name, character-book name, default written when absent).
pub(crate) type StField = (&'static str, &'static str, Option<fn() -> Value>);

/// SillyTavern fields kept in `extensions` under SillyTavern's own
/// character-book names, with the value export writes when absent.
pub(crate) const ST_EXT: &[StField] = &[
    ("position", "position", Some(|| json!(0))),
    ("depth", "depth", Some(|| json!(4))),
    (
        "excludeRecursion",
        "exclude_recursion",
        Some(|| json!(false)),
    ),
    (
        "preventRecursion",
        "prevent_recursion",
        Some(|| json!(false)),
    ),
    (
        "delayUntilRecursion",
        "delay_until_recursion",
        Some(|| json!(false)),
    ),
    ("displayIndex", "display_index", None),
    ("outletName", "outlet_name", None),
    ("group", "group", Some(|| json!(""))),
    ("groupOverride", "group_override", Some(|| json!(false))),
    ("groupWeight", "group_weight", Some(|| json!(100))),
    ("useGroupScoring", "use_group_scoring", Some(|| Value::Null)),
    ("automationId", "automation_id", Some(|| json!(""))),
    ("vectorized", "vectorized", Some(|| json!(false))),
    ("sticky", "sticky", Some(|| Value::Null)),
    ("cooldown", "cooldown", Some(|| Value::Null)),
    ("delay", "delay", Some(|| Value::Null)),
    ("ignoreBudget", "ignore_budget", Some(|| json!(false))),
    ("matchPersonaDescription", "match_persona_description", None),
    (
        "matchCharacterDescription",
        "match_character_description",
        None,
    ),
    (
        "matchCharacterPersonality",
        "match_character_personality",
        None,
    ),
    (
        "matchCharacterDepthPrompt",
        "match_character_depth_prompt",
        None,
    ),
    ("matchScenario", "match_scenario", None),
    ("matchCreatorNotes", "match_creator_notes", None),
    ("triggers", "triggers", None),
];

/// Top-level fields that mark other formats.
const MARKERS: &[&str] = &[
    "entries",
    "spec",
    "data",
    "type",
    "kind",
    "lorebookVersion",
    "storyContainerVersion",
];

/// SillyTavern world info keeps its entries in an object keyed by uid.
pub(crate) fn detect(top: &Object) -> Detect {
    Detect::sure_if(top.get("entries").is_some_and(Value::is_object))
}

/// Reads a SillyTavern world info document.
pub fn import_value(value: Value, report: &mut Report) -> Result<Book, ImportError> {
    let Value::Object(mut top) = value else {
        return Err(ImportError::shape(
            Format::SillyTavern,
            "expected a JSON object",
        ));
    };
    let entries = match top.remove("entries") {
        Some(Value::Object(m)) => m,
        _ => {
            return Err(ImportError::shape(
                Format::SillyTavern,
                "\"entries\" must be an object keyed by uid",
            ))
        }
    };
    let raw_top = top.clone();
    let mut book = Book {
        name: take_string(&mut top, "name", "")?.unwrap_or_default(),
        description: take_string(&mut top, "description", "")?.unwrap_or_default(),
        ..Book::default()
    };
    if let Some(d) = take_u64(&mut top, "scan_depth", "")? {
        book.scan_depth = d.min(u32::MAX as u64) as u32;
        report.book.carry("scan_depth");
    }
    if let Some(b) = take_u64(&mut top, "token_budget", "")? {
        book.token_budget = b.min(u32::MAX as u64) as u32;
        report.book.carry("token_budget");
    }
    if let Some(r) = take_bool(&mut top, "recursive_scanning", "")? {
        book.recursive_scanning = r;
        report.book.carry("recursive_scanning");
    }
    book.extensions = take_object(&mut top, "extensions", "")?.unwrap_or_default();
    for c in book.clamp_settings() {
        let field = c.field.clone();
        report.book.approx(field, Note::from(c));
    }
    if !top.is_empty() {
        report.book.carry(format!(
            "{} (kept in extensions.{NS})",
            top.keys().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    put_ns(&mut book.extensions, NS, top);

    let mut raws = Vec::with_capacity(entries.len());
    let mut sections = Vec::with_capacity(entries.len());
    for (map_key, raw) in entries {
        let path = format!("entries.{map_key}");
        let Value::Object(obj) = raw else {
            return Err(ImportError::field(path, "must be an object"));
        };
        let mut section = Section::default();
        let entry = entry_from_st(&map_key, obj.clone(), &path, &mut section)?;
        book.entries.push(entry);
        raws.push(obj);
        sections.push(section);
    }
    let id_notes = fix_ids(&mut book);

    for ((entry, raw), mut section) in book.entries.iter_mut().zip(&raws).zip(sections) {
        if let Some(n) = id_notes.iter().find(|(id, _)| *id == entry.id) {
            section.approx("uid", n.1.clone());
        }
        let emitted = entry_to_st(entry, &mut Section::default());
        file_imported(report, SOURCE, raw, &emitted, entry, section);
    }
    let emitted_top = book_top(&book, &mut Section::default());
    finish_imported(&mut book, SOURCE, &raw_top, &emitted_top);
    Ok(book)
}

fn fix_ids(book: &mut Book) -> Vec<(u64, Note)> {
    assign_ids(book)
        .into_iter()
        .map(|f| {
            let note = match f.old {
                Some(old) => Note::UidUsedTwice { old, new: f.new },
                None => Note::NoUsableUid { new: f.new },
            };
            (f.new, note)
        })
        .collect()
}

fn entry_from_st(
    map_key: &str,
    mut o: Object,
    path: &str,
    sec: &mut Section,
) -> Result<Entry, ImportError> {
    // A uid the editor cannot hold exactly (above 2^53 - 1, negative,
    // fractional, not a number) gets a fresh id; the shadow record of the
    // import gives the source's uid back on export.
    let id = match o.remove("uid") {
        Some(v) if !v.is_null() => match usable_id(&v) {
            Some(id) => id,
            None => {
                sec.approx(
                    "uid",
                    Note::UidNotWhole {
                        value: v.to_string(),
                    },
                );
                NO_ID
            }
        },
        _ => usable_id(&Value::String(map_key.to_string())).unwrap_or(NO_ID),
    };
    let mut e = Entry {
        id,
        ..Entry::default()
    };
    sec.carry("uid");
    e.keys = take_keys(&mut o, "key", path)?;
    e.secondary_keys = take_keys(&mut o, "keysecondary", path)?;
    e.comment = take_string(&mut o, "comment", path)?.unwrap_or_default();
    e.content = take_string(&mut o, "content", path)?.unwrap_or_default();
    e.constant = take_bool(&mut o, "constant", path)?.unwrap_or(false);
    e.selective = take_bool(&mut o, "selective", path)?.unwrap_or(false);
    for f in [
        "key",
        "keysecondary",
        "comment",
        "content",
        "constant",
        "selective",
    ] {
        sec.carry(f);
    }
    let logic = |value| Note::LogicUnknown { value };
    if let Some(l) = take_code(
        &mut o,
        "selectiveLogic",
        SecondaryLogic::from_st,
        logic,
        sec,
    ) {
        e.secondary_logic = l;
    }
    let order = take_i64(&mut o, "order", path)?.unwrap_or(DEFAULT_ORDER);
    e.order = order;
    e.priority = order;
    sec.carry("order (as order and priority)");
    if let Some(d) = take_bool(&mut o, "disable", path)? {
        e.enabled = !d;
        sec.carry("disable");
    }
    let use_p = o.remove("useProbability");
    let p = o.remove("probability");
    if let (Some(Value::Bool(true)), Some(pv)) = (&use_p, &p) {
        match percent(pv) {
            Some(read) => probability_from(&mut e.content, sec, "probability", pv, read),
            None if pv.is_null() => {}
            None => sec.approx(
                "probability",
                Note::NotNumberIgnored {
                    value: pv.to_string(),
                },
            ),
        }
    }
    match o.remove("scanDepth") {
        None | Some(Value::Null) => {}
        Some(v) => match v.as_f64() {
            Some(f) if f.is_finite() => {
                let n = f.round().clamp(0.0, 100.0) as u32;
                e.content = set_decorator(&e.content, "scan_depth", Some(&n.to_string()));
                if n as f64 != f {
                    sec.approx(
                        "scanDepth",
                        Note::ScanDepthClamped {
                            value: v.to_string(),
                            read: n.into(),
                        },
                    );
                } else {
                    sec.carry("scanDepth (as @@scan_depth)");
                }
            }
            _ => sec.approx(
                "scanDepth",
                Note::NotNumberIgnored {
                    value: v.to_string(),
                },
            ),
        },
    }
    match o.remove("caseSensitive") {
        Some(Value::Bool(b)) => {
            e.case_sensitive = b;
            sec.carry("caseSensitive");
        }
        None | Some(Value::Null) => {}
        Some(v) => sec.approx(
            "caseSensitive",
            Note::NotBool {
                value: v.to_string(),
                read: false,
            },
        ),
    }
    match o.remove("matchWholeWords") {
        Some(Value::Bool(b)) => {
            e.whole_words = b;
            sec.carry("matchWholeWords");
        }
        None | Some(Value::Null) => {
            e.whole_words = true;
            sec.approx("matchWholeWords", Note::WholeWordsGlobal);
        }
        Some(v) => sec.approx(
            "matchWholeWords",
            Note::NotBool {
                value: v.to_string(),
                read: true,
            },
        ),
    }
    let role = |value| Note::RoleUnknown { value };
    if let Some(r) = take_code(&mut o, "role", Role::from_st, role, sec) {
        e.role = r;
    }

    let mut ext = Object::new();
    for (st, snake, default) in ST_EXT {
        if let Some(v) = o.remove(*st) {
            sec.carry(format!("{st} (as extensions.{snake})"));
            if default.map(|d| d()) != Some(v.clone()) {
                ext.insert(snake.to_string(), v);
            }
        }
    }
    let mut ns = Object::new();
    if let Some(Value::Object(own)) = o.get("extensions") {
        let own = own.clone();
        o.remove("extensions");
        let mut clashing = Object::new();
        for (k, v) in own {
            if ext.contains_key(&k) || k == NS || k == shadow::KEY {
                clashing.insert(k, v);
            } else {
                ext.insert(k, v);
            }
        }
        if !clashing.is_empty() {
            ns.insert("extensions".into(), Value::Object(clashing));
        }
        sec.carry("extensions");
    }
    for (k, v) in o {
        sec.carry(format!("{k} (kept in extensions.{NS})"));
        ns.insert(k, v);
    }
    put_ns(&mut ext, NS, ns);
    e.extensions = ext;
    Ok(e)
}

/// Removes field `key`, a number SillyTavern gives a meaning (`from_st`
/// reads it): carried when read, reported with `unknown` when not; none
/// when absent or null.
fn take_code<T>(
    o: &mut Object,
    key: &str,
    from_st: fn(u64) -> Option<T>,
    unknown: fn(String) -> Note,
    sec: &mut Section,
) -> Option<T> {
    let v = o.remove(key).filter(|v| !v.is_null())?;
    let read = v.as_u64().and_then(from_st);
    match read {
        Some(_) => sec.carry(key),
        None => sec.approx(key, unknown(v.to_string())),
    }
    read
}

/// The decorator lines SillyTavern has no place for.
const NO_ST_EQUIVALENT: &[&str] = &[
    "priority",
    "keep",
    "dont_activate_after_match",
    "activate_only_after",
    "activate_only_every",
    "is_greeting",
];

/// One entry as SillyTavern writes it (before shadows are restored).
fn entry_to_st(e: &Entry, sec: &mut Section) -> Object {
    let (mut ext, mut ns) = split_extensions(&e.extensions, SOURCE, NS);
    let mut content = e.content.clone();
    let parsed = decorators::parse(&content).decorators;
    let mut order = e.order;
    let mut role = e.role;
    if let Some(n) = parsed.order {
        order = n;
        decorator_to_field(&mut content, sec, "order", "order", n);
    }
    if let Some(r) = parsed.role {
        role = r;
        decorator_to_field(&mut content, sec, "role", "role", r.as_str());
    }
    let probability = parsed.probability.unwrap_or(100);
    if parsed.probability.is_some() {
        content = drop_decorator(&content, "probability");
        sec.carry("@@probability (as probability)");
    }
    let scan_depth = parsed.scan_depth.map(Value::from).unwrap_or(Value::Null);
    if parsed.scan_depth.is_some() {
        content = drop_decorator(&content, "scan_depth");
        sec.carry("@@scan_depth (as scanDepth)");
    }
    let remaining = decorators::parse(&content);
    for l in &remaining.lines {
        let name = decorators::lookup(&l.name).map(|s| s.name).unwrap_or("");
        if NO_ST_EQUIVALENT.contains(&name) {
            sec.lose(
                format!("@@{}", l.name),
                Note::DecoratorInContent {
                    tool: "SillyTavern".into(),
                },
            );
        }
    }
    let keys = |keys: &[String]| -> Value {
        if e.use_regex {
            json!(keys
                .iter()
                .map(|k| as_regex_literal(k, e.case_sensitive))
                .collect::<Vec<_>>())
        } else {
            json!(keys)
        }
    };
    if e.use_regex {
        sec.approx(
            "use_regex",
            Note::RegexAsLiterals {
                tool: "SillyTavern".into(),
            },
        );
    }
    if e.priority != order {
        sec.approx(
            "priority",
            Note::StPriority {
                priority: e.priority,
                order,
            },
        );
    }

    let mut o = Object::new();
    o.insert("uid".into(), json!(e.id));
    o.insert("key".into(), keys(&e.keys));
    o.insert("keysecondary".into(), keys(&e.secondary_keys));
    o.insert("comment".into(), json!(e.comment));
    o.insert("content".into(), json!(content));
    o.insert("constant".into(), json!(e.constant));
    o.insert("selective".into(), json!(e.selective));
    o.insert("selectiveLogic".into(), json!(e.secondary_logic.to_st()));
    o.insert("order".into(), json!(order));
    o.insert("disable".into(), json!(!e.enabled));
    o.insert("probability".into(), json!(probability));
    o.insert("useProbability".into(), json!(true));
    o.insert("scanDepth".into(), scan_depth);
    o.insert("caseSensitive".into(), json!(e.case_sensitive));
    o.insert("matchWholeWords".into(), json!(e.whole_words));
    o.insert("role".into(), json!(role.to_st()));
    for f in [
        "id",
        "keys",
        "secondary_keys",
        "comment",
        "content",
        "constant",
        "selective",
        "secondary_logic",
        "order",
        "enabled",
        "case_sensitive",
        "whole_words",
        "role",
    ] {
        sec.carry(f);
    }
    // A card's `position: "before_char" | "after_char"` is SillyTavern's 0/1.
    if !ext.contains_key("position") {
        match e.extra.get("position").and_then(Value::as_str) {
            Some("after_char") => {
                ext.insert("position".into(), json!(1));
            }
            Some("before_char") | None => {}
            Some(other) => sec.approx(
                "position",
                Note::PositionUnknown {
                    value: other.to_string(),
                },
            ),
        }
    }
    for (st, snake, default) in ST_EXT {
        match ext.remove(*snake) {
            Some(v) => {
                o.insert(st.to_string(), v);
            }
            None => {
                if let Some(d) = default {
                    o.insert(st.to_string(), d());
                }
            }
        }
    }
    if let Some(Value::Bool(_)) = ns.get("enabled") {
        ns.insert("enabled".into(), json!(e.enabled));
    }
    let own = match ns.remove("extensions") {
        Some(Value::Object(own)) => own,
        _ => Object::new(),
    };
    fill_in(&mut o, ns);
    let mut own_ext = own;
    fill_in(&mut own_ext, ext);
    if !own_ext.is_empty() {
        o.insert("extensions".into(), Value::Object(own_ext));
    }
    for (k, _) in e
        .extra
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "position" | "uid"))
    {
        sec.lose(
            k.clone(),
            Note::SourceFieldNoPlace {
                tool: "SillyTavern".into(),
            },
        );
    }
    o
}

/// The top-level fields of the world file, without `entries`.
fn book_top(book: &Book, sec: &mut Section) -> Object {
    let (ext, ns) = split_extensions(&book.extensions, SOURCE, NS);
    let mut top = Object::new();
    top.insert("name".into(), json!(book.name));
    top.insert("description".into(), json!(book.description));
    top.insert("scan_depth".into(), json!(book.scan_depth));
    top.insert("token_budget".into(), json!(book.token_budget));
    top.insert("recursive_scanning".into(), json!(book.recursive_scanning));
    top.insert("extensions".into(), Value::Object(ext));
    for f in BOOK_FIELDS {
        sec.carry(f);
    }
    sec.approx(
        "scan_depth, token_budget, recursive_scanning",
        Note::StBookSettings,
    );
    fill_in(&mut top, ns);
    for (k, v) in &book.extra {
        // Fields that would make the file look like another format.
        if MARKERS.contains(&k.as_str()) {
            sec.lose(
                k.clone(),
                Note::BookFieldNoPlace {
                    tool: "SillyTavern".into(),
                },
            );
        } else {
            top.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    top
}

/// The `entries` of [`export_value`], asking `keep_going` every `every`
/// entries and stopping when it says no (`None`): the SillyTavern preview
/// reads a big book's entries this way, without the document around them
/// or a round trip through its text (`sillytavern::entry::load_while`).
pub(crate) fn entries_while(
    book: &Book,
    every: usize,
    keep_going: impl Fn() -> bool,
) -> Option<Object> {
    let mut report = Report::new(super::report::Direction::Export, "");
    entries_of(book, &mut report, every, keep_going)
}

fn entries_of(
    book: &Book,
    report: &mut Report,
    every: usize,
    keep_going: impl Fn() -> bool,
) -> Option<Object> {
    let mut entries = Object::new();
    for (i, e) in book.entries.iter().enumerate() {
        if (i + 1) % every == 0 && !keep_going() {
            return None;
        }
        // SillyTavern has no folders: an export has flattened them into
        // paths (`crate::folders::flatten`); its rules never see one.
        if e.folder {
            continue;
        }
        let o = export_entry(report, e, SOURCE, entry_to_st);
        let mut key = e.id.to_string();
        if entries.contains_key(&key) {
            key = format!("{}_{}", e.id, entries.len());
        }
        entries.insert(key, Value::Object(o));
    }
    Some(entries)
}

/// One entry as a SillyTavern export writes it, source spellings restored
/// (what [`super::st_fields`] reads).
pub(crate) fn entry_value(e: &Entry) -> Object {
    let mut report = Report::new(super::report::Direction::Export, "");
    let mut o = entry_to_st(e, report.entry(e.id, e.display_name()));
    shadow::restore_from(&mut o, &e.extensions, SOURCE);
    o
}

/// Writes a book as a SillyTavern world info document.
pub fn export_value(book: &Book, report: &mut Report) -> Value {
    let entries = entries_of(book, report, usize::MAX, || true).unwrap_or_default();
    let mut top = Object::new();
    top.insert("entries".into(), Value::Object(entries));
    let mut rest = book_top(book, &mut report.book);
    shadow::restore_from(&mut rest, &book.extensions, SOURCE);
    top.extend(rest);
    Value::Object(top)
}
