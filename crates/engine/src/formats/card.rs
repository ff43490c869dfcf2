//! Character cards v2 / v3 (`data.character_book`), the bare
//! `character_book` object, and the book part of PNG and CHARX cards.
//!
//! The book object has the same shape as the native file's `data`, so the
//! entry mapping is [`super::native`]'s: `keys`, `secondary_keys`,
//! `insertion_order` → `order`, `priority`, `enabled`, `constant`,
//! `selective`, `case_sensitive`, `use_regex`, `comment`, `content`,
//! `extensions` (with SillyTavern's `match_whole_words`, `role` and
//! `selectiveLogic` lifted into the model). On top of that:
//!
//! | card | model | notes |
//! |---|---|---|
//! | `extensions.useProbability: true` + `extensions.probability` < 100 | `@@probability N` | the two extension fields are dropped and rewritten from the decorator on export |
//! | `extensions.scan_depth` (number) | `@@scan_depth N` | same |
//! | `@@keep_activate_after_match` (v3 name) | `@@keep` | written back as `@@keep_activate_after_match` |
//! | `use_regex: true` written by SillyTavern | `use_regex: false` | SillyTavern writes true on every entry and ignores it; an entry is SillyTavern's when its extensions hold `display_index`, `exclude_recursion` and `group_override`, which SillyTavern writes on every entry |
//! | `extensions.match_whole_words: null` (SillyTavern) | `whole_words: true` | SillyTavern's global default |
//! | `position: "before_char" / "after_char"` | kept in `extra` | export writes it from `extensions.position` (0/1) when absent |
//! | the rest of the card (`data.name`, `first_mes`, …) | book `wrapper_extra["character_card"]` | used as the template when exporting a card |
//!
//! A v2 card has no decorators, so a v2 export moves `@@probability` and
//! `@@scan_depth` to the SillyTavern extension fields, `@@order`,
//! `@@priority` and `@@role` to `insertion_order`, `priority` and
//! `extensions.role`, and reports the other decorator lines (left in the
//! content). A v3 export keeps every decorator line.

use serde_json::{json, Value};

use super::common::{
    decorator_to_field, drop_decorator, export_entry, file_imported, finish_imported,
    rename_decorator, set_decorator, BOOK_FIELDS,
};
use super::error::ImportError;
use super::format::{Detect, Format};
use super::json::{bool_of, percent};
use super::native;
use super::report::{Note, Report, Section};
use super::shadow;
use crate::decorators;
use crate::model::{Book, Entry, Object};

pub const SPEC_V2: &str = "chara_card_v2";
pub const SPEC_V3: &str = "chara_card_v3";
/// `wrapper_extra` key holding the card the book came from.
pub const CARD_KEY: &str = "character_card";
/// Shadow source name (shared by every card version and the bare book).
const SOURCE: &str = "card";

/// Which card version a book object is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V2,
    V3,
}

impl Version {
    pub fn spec(self) -> &'static str {
        match self {
            Version::V2 => SPEC_V2,
            Version::V3 => SPEC_V3,
        }
    }

    fn spec_version(self) -> &'static str {
        match self {
            Version::V2 => "2.0",
            Version::V3 => "3.0",
        }
    }

    /// The version a card JSON declares (v3 unless it says v2).
    pub fn of_card(card: &Object) -> Version {
        match card.get("spec").and_then(Value::as_str) {
            Some(SPEC_V2) => Version::V2,
            _ => Version::V3,
        }
    }
}

/// Fields SillyTavern writes in every entry of a card it exports (and this
/// crate's exports do not add by themselves): all present = SillyTavern's.
const ST_MARKERS: &[&str] = &["display_index", "exclude_recursion", "group_override"];

/// A v2 card says so in its `spec`.
pub(crate) fn detect_v2(top: &Object) -> Detect {
    Detect::by_spec(top, SPEC_V2)
}

/// A v3 card says so in its `spec`.
pub(crate) fn detect_v3(top: &Object) -> Detect {
    Detect::by_spec(top, SPEC_V3)
}

/// A bare book is an entry list with no card `spec` around it.
pub(crate) fn detect_bare_book(top: &Object) -> Detect {
    Detect::sure_if(
        top.get("entries").is_some_and(Value::is_array)
            && !top.get("spec").is_some_and(Value::is_string),
    )
}

/// Reads the book of a card JSON (`spec: chara_card_v2 | chara_card_v3`).
pub fn import_card(value: Value, report: &mut Report) -> Result<Book, ImportError> {
    let Value::Object(card) = value else {
        return Err(ImportError::shape(Format::CardV3, "expected a JSON object"));
    };
    book_of_card(card, report)
}

/// The book of a parsed card object; the rest of the card is kept in
/// `wrapper_extra["character_card"]`.
pub(crate) fn book_of_card(mut card: Object, report: &mut Report) -> Result<Book, ImportError> {
    let spec = card
        .get("spec")
        .map(|s| {
            s.as_str()
                .map(str::to_string)
                .unwrap_or_else(|| s.to_string())
        })
        .unwrap_or_else(|| "no spec".into());
    let version = Version::of_card(&card);
    let format = match version {
        Version::V2 => Format::CardV2,
        Version::V3 => Format::CardV3,
    };
    let book_value = match card.get_mut("data") {
        Some(Value::Object(data)) => data.remove("character_book"),
        Some(_) => return Err(ImportError::field("data", "must be an object")),
        None => {
            return Err(ImportError::shape(
                format,
                "the card has no \"data\" object",
            ))
        }
    };
    let book_obj = match book_value {
        None | Some(Value::Null) => return Err(ImportError::CardWithoutBook { spec }),
        Some(Value::Object(b)) => b,
        Some(_) => {
            return Err(ImportError::field(
                "data.character_book",
                "must be an object",
            ))
        }
    };
    let book_obj = entries_as_array(book_obj, report);
    let mut book = import_book(book_obj, "data.character_book", version, report)?;
    report.book.carry(format!(
        "the rest of the card (kept in wrapper_extra.{CARD_KEY})"
    ));
    book.wrapper_extra
        .insert(CARD_KEY.into(), Value::Object(card));
    Ok(book)
}

/// A card's book whose `entries` is an object keyed by position (`{"0":
/// {...}, "1": {...}}`, as some exporters write it) made the spec's array:
/// the entries in JavaScript's key order (whole-number keys ascending,
/// then the others as written), said in the report. A bare book cannot
/// be told from a SillyTavern world this way, so only cards are read so.
fn entries_as_array(mut book: Object, report: &mut Report) -> Object {
    if let Some(Value::Object(map)) = book.get("entries") {
        let index = |k: &str| k.parse::<u32>().ok().filter(|n| n.to_string() == k);
        let mut keyed: Vec<(&String, &Value)> = map.iter().collect();
        keyed.sort_by_key(|(k, _)| index(k).map_or((1, 0), |n| (0, n)));
        let entries: Vec<Value> = keyed.into_iter().map(|(_, v)| v.clone()).collect();
        report.book.approx(
            "entries",
            Note::EntriesObject {
                count: entries.len(),
            },
        );
        book.insert("entries".into(), Value::Array(entries));
    }
    book
}

/// Reads a bare `character_book` object (no card around it).
pub fn import_bare_book(value: Value, report: &mut Report) -> Result<Book, ImportError> {
    let Value::Object(obj) = value else {
        return Err(ImportError::shape(
            Format::CharacterBook,
            "expected a JSON object",
        ));
    };
    import_book(obj, "", Version::V3, report)
}

/// Reads a `character_book` object, with the card rules of the module docs.
pub(crate) fn import_book(
    obj: Object,
    path: &str,
    version: Version,
    report: &mut Report,
) -> Result<Book, ImportError> {
    let raw = obj.clone();
    let (mut book, notes) = native::book_from_object(obj, path)?;
    for n in notes {
        report.book.approx("book", n);
    }
    for f in BOOK_FIELDS {
        if raw.contains_key(f) {
            report.book.carry(f);
        }
    }
    let raw_entries: Vec<Object> = match raw.get("entries") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| v.as_object().cloned().unwrap_or_default())
            .collect(),
        _ => Vec::new(),
    };
    for (e, raw_e) in book.entries.iter_mut().zip(&raw_entries) {
        let mut sec = Section::default();
        adapt_imported(e, raw_e, &mut sec);
        let emitted = entry_object(e, version, &mut Section::default());
        file_imported(report, SOURCE, raw_e, &emitted, e, sec);
    }
    let mut raw_top = raw;
    raw_top.remove("entries");
    let mut emitted = book_object(&book, version, &mut Report::new(report.direction, ""));
    emitted.remove("entries");
    finish_imported(&mut book, SOURCE, &raw_top, &emitted);
    Ok(book)
}

/// Applies the card rules to an entry read by the native reader.
fn adapt_imported(e: &mut Entry, raw: &Object, sec: &mut Section) {
    for f in raw.keys() {
        sec.carry(f.clone());
    }
    let raw_ext = raw.get("extensions").and_then(Value::as_object);
    let st = raw_ext.is_some_and(|x| ST_MARKERS.iter().all(|k| x.contains_key(*k)));
    if st {
        if e.use_regex {
            e.use_regex = false;
            sec.approx("use_regex", Note::StUseRegexIgnored);
        }
        if raw_ext.is_some_and(|x| x.get("match_whole_words") == Some(&Value::Null)) {
            e.whole_words = true;
            sec.approx("extensions.match_whole_words", Note::WholeWordsGlobal);
        }
    }
    // SillyTavern's probability and scan depth become decorators.
    if bool_of(&e.extensions, "useProbability") == Some(true) {
        let raw_probability = e.extensions.get("probability").cloned();
        if let Some((n, changed)) = raw_probability.as_ref().and_then(percent) {
            if n < 100 {
                set_unless_given(e, "probability", &n.to_string(), |d| d.probability);
                e.extensions.remove("probability");
                e.extensions.remove("useProbability");
                sec.carry("extensions.probability (as @@probability)");
            }
            if changed {
                sec.approx(
                    "extensions.probability",
                    Note::ReadAs {
                        value: raw_probability
                            .as_ref()
                            .map_or_else(String::new, |v| v.to_string()),
                        read: n.into(),
                    },
                );
            }
        }
    }
    if let Some(f) = e.extensions.get("scan_depth").and_then(Value::as_f64) {
        if f.is_finite() {
            let n = f.round().clamp(0.0, 100.0) as u32;
            set_unless_given(e, "scan_depth", &n.to_string(), |d| d.scan_depth);
            e.extensions.remove("scan_depth");
            sec.carry("extensions.scan_depth (as @@scan_depth)");
        }
    }
    e.content = rename_decorator(&e.content, "keep_activate_after_match", "keep");
    // A position equal to what export derives is not stored.
    if e.extra.get("position") == Some(&derived_position(e)) {
        e.extra.remove("position");
    }
}

/// Sets decorator `name` to `arg` unless the content already gives the
/// value (`given` reads it from the content's decorators): the author's
/// line wins over the extension field it would come from.
fn set_unless_given<T>(
    e: &mut Entry,
    name: &str,
    arg: &str,
    given: impl Fn(&decorators::Decorators) -> Option<T>,
) {
    if given(&decorators::parse(&e.content).decorators).is_none() {
        e.content = set_decorator(&e.content, name, Some(arg));
    }
}

fn derived_position(e: &Entry) -> Value {
    match e.extensions.get("position").and_then(Value::as_u64) {
        Some(1) => json!("after_char"),
        _ => json!("before_char"),
    }
}

/// The decorators a v2 card has no place for.
const NO_V2_PLACE: &[&str] = &[
    "keep",
    "dont_activate_after_match",
    "activate_only_after",
    "activate_only_every",
    "is_greeting",
];

/// The entry as it goes into the book object (before native serialization).
fn adapt_for_export(e: &Entry, version: Version, sec: &mut Section) -> Entry {
    let mut e = e.clone();
    shadow::take(&mut e.extensions, SOURCE);
    let d = decorators::parse(&e.content).decorators;
    if let Some(p) = d.probability {
        e.extensions.insert("probability".into(), json!(p));
        e.extensions.insert("useProbability".into(), json!(true));
    }
    if let Some(n) = d.scan_depth {
        e.extensions.insert("scan_depth".into(), json!(n));
    }
    match version {
        Version::V3 => {
            e.content = rename_decorator(&e.content, "keep", "keep_activate_after_match");
            for l in &decorators::parse(&e.content).lines {
                if matches!(l.name.as_str(), "order" | "priority" | "probability") {
                    sec.approx(format!("@@{}", l.name), Note::DecoratorUnknownToV3);
                }
            }
        }
        Version::V2 => {
            if d.probability.is_some() {
                e.content = drop_decorator(&e.content, "probability");
                sec.carry("@@probability (as extensions.probability)");
            }
            if d.scan_depth.is_some() {
                e.content = drop_decorator(&e.content, "scan_depth");
                sec.carry("@@scan_depth (as extensions.scan_depth)");
            }
            if let Some(n) = d.order {
                e.order = n;
                decorator_to_field(&mut e.content, sec, "order", "insertion_order", n);
            }
            if let Some(n) = d.priority {
                e.priority = n;
                decorator_to_field(&mut e.content, sec, "priority", "priority", n);
            }
            if let Some(r) = d.role {
                e.role = r;
                decorator_to_field(&mut e.content, sec, "role", "extensions.role", r.to_st());
            }
            for l in &decorators::parse(&e.content).lines {
                let name = decorators::lookup(&l.name).map(|s| s.name).unwrap_or("");
                if NO_V2_PLACE.contains(&name) {
                    sec.lose(format!("@@{}", l.name), Note::NoDecoratorsV2);
                }
            }
        }
    }
    if !e.extra.contains_key("position") {
        e.extra.insert("position".into(), derived_position(&e));
    }
    e
}

fn entry_object(e: &Entry, version: Version, sec: &mut Section) -> Object {
    let adapted = adapt_for_export(e, version, sec);
    let mut book = Book::default();
    book.entries.push(adapted);
    let mut obj = native::book_to_object(&book);
    match obj.remove("entries") {
        Some(Value::Array(mut a)) => match a.pop() {
            Some(Value::Object(o)) => o,
            _ => Object::new(),
        },
        _ => Object::new(),
    }
}

/// The `character_book` object of a book (before book-level shadows).
fn book_object(book: &Book, version: Version, report: &mut Report) -> Object {
    let mut b = book.clone();
    shadow::take(&mut b.extensions, SOURCE);
    b.entries.clear();
    let mut obj = native::book_to_object(&b);
    let write = |e: &Entry, sec: &mut Section| {
        for f in [
            "id",
            "keys",
            "secondary_keys",
            "selective",
            "secondary_logic",
            "constant",
            "enabled",
            "whole_words",
            "case_sensitive",
            "use_regex",
            "order",
            "priority",
            "role",
            "comment",
            "content",
            "extensions",
        ] {
            sec.carry(f);
        }
        entry_object(e, version, sec)
    };
    let entries: Vec<Value> = book
        .entries
        .iter()
        .map(|e| Value::Object(export_entry(report, e, SOURCE, write)))
        .collect();
    obj.insert("entries".into(), Value::Array(entries));
    obj
}

/// Writes the `character_book` object of a book.
pub fn export_book(book: &Book, version: Version, report: &mut Report) -> Object {
    for f in BOOK_FIELDS {
        report.book.carry(f);
    }
    let mut obj = book_object(book, version, report);
    let entries = obj.remove("entries");
    shadow::restore_from(&mut obj, &book.extensions, SOURCE);
    if let Some(entries) = entries {
        obj.insert("entries".into(), entries);
    }
    obj
}

/// A card JSON holding the book: the imported card if there was one (its
/// other fields kept), otherwise a minimal card named after the book.
pub fn export_card(book: &Book, version: Version, report: &mut Report) -> Value {
    let template = match book.wrapper_extra.get(CARD_KEY) {
        Some(Value::Object(card)) => {
            report.notes.push(Note::CardFromImport);
            card.clone()
        }
        _ => {
            report.notes.push(Note::MinimalCard {
                name: book.name.clone(),
            });
            minimal_card(&book.name)
        }
    };
    Value::Object(card_with_book(template, book, version, report))
}

/// [`export_card`] as a v2 card.
pub(crate) fn export_card_v2(book: &Book, report: &mut Report) -> Value {
    export_card(book, Version::V2, report)
}

/// [`export_card`] as a v3 card.
pub(crate) fn export_card_v3(book: &Book, report: &mut Report) -> Value {
    export_card(book, Version::V3, report)
}

/// A bare v3 `character_book` object. It has no `spec`: one among the
/// book's own fields would make the file read as something else.
pub(crate) fn export_bare_book(book: &Book, report: &mut Report) -> Value {
    let mut obj = export_book(book, Version::V3, report);
    if obj.get("spec").is_some_and(Value::is_string) {
        obj.remove("spec");
        report.book.lose("spec", Note::NoSpecInBareBook);
    }
    Value::Object(obj)
}

/// Puts the book into `card`, converting the card to `version`. The card
/// gets `version`'s own `spec` whatever it said before: a card read with
/// an unknown `spec` (a PNG chunk may hold one) and written back with it
/// would not read back as a card (found by fuzzing, docs/fuzzing.md).
pub(crate) fn card_with_book(
    mut card: Object,
    book: &Book,
    version: Version,
    report: &mut Report,
) -> Object {
    let spec = card.get("spec").and_then(Value::as_str);
    if spec != Some(version.spec()) {
        if let Some(old) = card
            .get("spec")
            .filter(|_| ![Some(SPEC_V2), Some(SPEC_V3)].contains(&spec))
        {
            report.book.approx(
                "spec",
                Note::UnknownSpec {
                    old: old.to_string(),
                    new: version.spec().into(),
                },
            );
        }
        card.insert("spec".into(), json!(version.spec()));
        card.insert("spec_version".into(), json!(version.spec_version()));
    }
    let book_obj = export_book(book, version, report);
    let data = card
        .entry("data".to_string())
        .or_insert_with(|| Value::Object(Object::new()));
    if !data.is_object() {
        *data = Value::Object(Object::new());
    }
    if let Value::Object(d) = data {
        d.insert("character_book".into(), Value::Object(book_obj));
    }
    card
}

fn minimal_card(name: &str) -> Object {
    let v = json!({
        "spec": SPEC_V3,
        "spec_version": "3.0",
        "data": {
            "name": name,
            "description": "",
            "personality": "",
            "scenario": "",
            "first_mes": "",
            "mes_example": "",
            "creator_notes": "",
            "system_prompt": "",
            "post_history_instructions": "",
            "alternate_greetings": [],
            "tags": [],
            "creator": "",
            "character_version": "",
            "extensions": {},
        }
    });
    match v {
        Value::Object(o) => o,
        _ => Object::new(),
    }
}
