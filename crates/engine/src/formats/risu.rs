//! RisuAI lorebook files: `{"type": "risu", "ver": 1, "data": [...]}`.
//!
//! | RisuAI | model | notes |
//! |---|---|---|
//! | position in `data` | `id` | RisuAI entries have no stable id |
//! | `key`, `secondkey` (comma-separated) | `keys`, `secondary_keys` | with `useRegex` the key is one `/pattern/flags` |
//! | `comment` | `comment` | |
//! | `content` | `content` | `@@keep_activate_after_match` ↔ `@@keep`; `@@role R` ↔ `role`; `@@dont_activate` ↔ `enabled: false`; `@@match_full_word` ↔ `whole_words` (only in a block without `@@@` fallbacks) |
//! | `insertorder` | `order` **and** `priority` | a `priority` that differs is written as `@@priority N` |
//! | `alwaysActive` | `constant` | only it: `mode: "constant"` stays a field, the entry plain, as in RisuAI |
//! | `selective` | `selective` (AND ANY) | other secondary logics are written as `@@exclude_keys`, `@@additional_keys`, `@@exclude_keys_all` |
//! | `useRegex` | `use_regex` | |
//! | `extentions.risu_case_sensitive` | `case_sensitive` | (RisuAI's spelling) |
//! | `activationPercent` | `extensions["risu"]` | RisuAI's lorebook code never reads it: kept, not a probability |
//! | — | `whole_words: false` | RisuAI matches keys inside words |
//! | `mode`, `bookVersion`, `folder`, `id`, `loreCache`, other fields | `extensions["risu"]` | `mode: "folder"` records are folders (`folder`, see [`crate::folders`]), and an entry whose `folder` names a folder's key is in it (`parent`); written back as RisuAI folders, a folder without a key given one |
//! | top-level fields besides `type`, `ver`, `data` | book `extensions["risu"]` | |
//!
//! Export goes through [`crate::risu::Lore::of`], the mapping the `risu`
//! rules read too, so an exported book previews the same in both. RisuAI
//! reads every card-v3 decorator, so they stay in the content
//! (`@@probability` included), the guide's `@@order` too (RisuAI drops it
//! unread); a `key` or `secondkey` of separators and blanks only is kept
//! as written (RisuAI reads it as a key list that finds nothing); and
//! SillyTavern's depth and delay become `@@reverse_depth` and
//! `@@activate_only_after`. The export has no book name, description or
//! scan settings: those are reported.

use serde_json::{json, Value};

use super::common::{
    drop_decorator, export_parts, fill_in, import_entries, inside_words_entry,
    lose_book_extensions, lose_book_fields, lose_lacking, put_ns, rename_decorator,
    split_extensions, Mapping,
};
use super::error::ImportError;
use super::format::{Detect, Format};
use super::report::{Note, Report, Section};
use super::risu_lore::Lore;
use crate::decorators;
use crate::model::{Book, Entry, Object};

pub const NS: &str = "risu";
const SOURCE: &str = "risu";
/// RisuAI for the shared steps: its entry mapping and what it has no place
/// for (the v3 decorators it reads).
const MAPPING: Mapping = Mapping {
    tool: "RisuAI",
    lacks: &[],
    lacks_decorators: false,
    source: SOURCE,
    read: entry_from_risu,
    write: entry_to_risu,
    top: book_top,
};

pub use super::risu_lore::{BLANK_KEY, BLANK_SECONDKEY};

fn split(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(str::to_string)
        .collect()
}

fn string_field(o: &mut Object, key: &str, path: &str) -> Result<String, ImportError> {
    match o.remove(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s),
        Some(Value::Number(n)) => Ok(n.to_string()),
        Some(_) => Err(ImportError::field(
            format!("{path}.{key}"),
            "must be a string",
        )),
    }
}

/// A RisuAI export says `type: "risu"` and holds its entries in a `data`
/// array; without `data` it is still the likeliest reader.
pub(crate) fn detect(top: &Object) -> Detect {
    if top.get("type").and_then(Value::as_str) != Some("risu") {
        Detect::No
    } else if top.get("data").is_some_and(Value::is_array) {
        Detect::Sure
    } else {
        Detect::Fallback
    }
}

/// Reads a RisuAI lorebook export.
pub fn import_value(value: Value, report: &mut Report) -> Result<Book, ImportError> {
    let Value::Object(mut top) = value else {
        return Err(ImportError::shape(Format::Risu, "expected a JSON object"));
    };
    let data = match top.remove("data") {
        Some(Value::Array(a)) => a,
        _ => {
            return Err(ImportError::shape(
                Format::Risu,
                "\"data\" must be an array of entries",
            ))
        }
    };
    let raw_top = top.clone();
    top.remove("type");
    top.remove("ver");
    let mut book = Book::default();
    put_ns(&mut book.extensions, NS, top);
    report.book.approx(
        "name, description, scan_depth, token_budget",
        Note::NoBookSettings {
            tool: MAPPING.tool.into(),
        },
    );
    book.recursive_scanning = true;
    report
        .book
        .approx("recursive_scanning", Note::RisuRecursion);
    let path = |i| format!("data[{i}]");
    let mut book = import_entries(book, report, &MAPPING, data, path, &raw_top)?;
    place_in_folders(&mut book);
    Ok(book)
}

/// Each entry whose RisuAI `folder` names a folder's key is put in that
/// folder (and the field is then the model's `parent`); a `folder` naming
/// no folder of the file stays as it was.
fn place_in_folders(book: &mut Book) {
    let keys: std::collections::HashMap<String, u64> = book
        .entries
        .iter()
        .filter(|e| e.folder)
        .filter_map(|e| Some((e.keys.first()?.clone(), e.id)))
        .collect();
    for e in &mut book.entries {
        let Some(Value::Object(ns)) = e.extensions.get_mut(NS) else {
            continue;
        };
        let Some(&parent) = ns
            .get("folder")
            .and_then(Value::as_str)
            .and_then(|k| keys.get(k))
        else {
            continue;
        };
        if parent != e.id {
            ns.remove("folder");
            e.parent = Some(parent);
        }
        if ns.is_empty() {
            e.extensions.remove(NS);
        }
    }
    crate::folders::repair(book);
}

/// The book as RisuAI's records name folders: a folder's `key` (its first
/// key; one made from its id when it has none, as RisuAI's own are
/// private-use text) in its entries' `folder`.
fn with_folder_keys(book: &Book) -> std::borrow::Cow<'_, Book> {
    if !book.entries.iter().any(|e| e.folder) {
        return std::borrow::Cow::Borrowed(book);
    }
    let mut b = book.clone();
    let mut keys = std::collections::HashMap::new();
    for e in b.entries.iter_mut().filter(|e| e.folder) {
        if e.keys.first().is_none_or(|k| k.trim().is_empty()) {
            e.keys = vec![format!("\u{f000}folder:lorebook-studio-{}", e.id)];
        }
        keys.insert(e.id, e.keys[0].clone());
    }
    let tree = crate::folders::Tree::of(&b);
    for e in &mut b.entries {
        let Some(key) = tree.parent(e.id).and_then(|p| keys.get(&p)) else {
            continue;
        };
        let ns = e
            .extensions
            .entry(NS)
            .or_insert_with(|| Value::Object(Object::new()));
        if let Value::Object(ns) = ns {
            ns.insert("folder".into(), json!(key));
        }
    }
    std::borrow::Cow::Owned(b)
}

fn entry_from_risu(mut o: Object, path: &str, sec: &mut Section) -> Result<Entry, ImportError> {
    let mut e = inside_words_entry();
    let use_regex = matches!(o.remove("useRegex"), Some(Value::Bool(true)));
    e.use_regex = use_regex;
    let key = string_field(&mut o, "key", path)?;
    let second = string_field(&mut o, "secondkey", path)?;
    if use_regex {
        e.keys = if key.trim().is_empty() {
            Vec::new()
        } else {
            vec![key]
        };
        e.secondary_keys = if second.trim().is_empty() {
            Vec::new()
        } else {
            vec![second]
        };
    } else {
        e.keys = split(&key);
        e.secondary_keys = split(&second);
        // A field of separators and blanks is no key to the model but is
        // not empty to RisuAI (the entry is not skipped; its query finds
        // nothing): kept as it is, read back by `risu::Lore`.
        if e.keys.is_empty() && !key.is_empty() {
            o.insert(BLANK_KEY.into(), json!(key));
        }
        if e.secondary_keys.is_empty() && !second.is_empty() {
            o.insert(BLANK_SECONDKEY.into(), json!(second));
        }
    }
    e.comment = string_field(&mut o, "comment", path)?;
    e.content = string_field(&mut o, "content", path)?;
    for f in ["key", "secondkey", "comment", "content", "useRegex"] {
        sec.carry(f);
    }
    match o.remove("insertorder") {
        None | Some(Value::Null) => {}
        Some(v) => match v.as_f64() {
            Some(f) if f.is_finite() => {
                e.order = f.round() as i64;
                sec.carry("insertorder (as order and priority)");
            }
            _ => {
                return Err(ImportError::field(
                    format!("{path}.insertorder"),
                    "must be a number",
                ))
            }
        },
    }
    e.priority = e.order;
    if let Some(Value::Bool(b)) = o.remove("alwaysActive") {
        e.constant = b;
        sec.carry("alwaysActive");
    }
    // RisuAI makes an entry constant by `alwaysActive` alone
    // (loadLoreBookV3Prompt never reads `mode` but for "child"): an old
    // `mode: "constant"` stays a field and the entry plain.
    if o.get("mode").and_then(Value::as_str) == Some("constant") && !e.constant {
        sec.approx("mode", Note::RisuConstant);
    }
    if o.get("mode").and_then(Value::as_str) == Some("folder") {
        o.remove("mode");
        e.folder = true;
        e.enabled = false;
        sec.approx("mode", Note::RisuFolder);
    }
    if let Some(Value::Bool(b)) = o.remove("selective") {
        e.selective = b;
        sec.carry("selective");
    }
    if let Some(Value::Object(mut x)) = o.remove("extentions") {
        if let Some(Value::Bool(b)) = x.remove("risu_case_sensitive") {
            e.case_sensitive = b;
            sec.carry("extentions.risu_case_sensitive");
        }
        if !x.is_empty() {
            o.insert("extentions".into(), Value::Object(x));
        }
    }
    // `activationPercent` stays a RisuAI field: RisuAI's lorebook code
    // never reads it (the entry always fires there), so it is not a
    // probability here either.
    // Decorators RisuAI spells its own way, or that are fields here.
    e.content = rename_decorator(&e.content, "keep_activate_after_match", "keep");
    let parsed = decorators::parse(&e.content);
    // Only a block without `@@@` fallbacks: moving a line out of a chain
    // would change which fallback RisuAI runs. `@@dont_activate` stays
    // put beside `@@activate` (the last of the two wins in RisuAI).
    let plain = !parsed.lines.iter().any(|l| l.fallback);
    let role = parsed.decorators.role.filter(|_| plain);
    // `@@match_full_word` is the whole-words switch. `@@match_partial_word`
    // stays a line: without it an entry follows the book's setting.
    let full_word = plain
        && parsed
            .lines
            .iter()
            .rev()
            .find(|l| matches!(l.name.as_str(), "match_full_word" | "match_partial_word"))
            .is_some_and(|l| l.name == "match_full_word");
    let dont = plain
        && !parsed.lines.iter().any(|l| l.name == "activate")
        && parsed
            .lines
            .iter()
            .any(|l| l.name == "dont_activate" && l.arg.is_none());
    if let Some(r) = role {
        e.role = r;
        e.content = drop_decorator(&e.content, "role");
        sec.carry("@@role (as role)");
    }
    if dont {
        e.enabled = false;
        e.content = remove_line(&e.content, "dont_activate");
        sec.carry("@@dont_activate (as enabled: false)");
    }
    if full_word {
        e.whole_words = true;
        e.content = remove_line(&e.content, "match_full_word");
        e.content = remove_line(&e.content, "match_partial_word");
        sec.carry("@@match_full_word (as whole_words)");
    }
    // Values equal to what export writes by default are not stored.
    if o.get("mode") == Some(&json!("normal")) {
        o.remove("mode");
    }
    if o.get("bookVersion") == Some(&json!(2)) {
        o.remove("bookVersion");
    }
    for k in o.keys() {
        sec.carry(format!("{k} (kept in extensions.{NS})"));
    }
    put_ns(&mut e.extensions, NS, o);
    Ok(e)
}

/// Removes every non-fallback line named `name` (unknown decorators too).
fn remove_line(content: &str, name: &str) -> String {
    let parsed = decorators::parse(content);
    let mut out = String::with_capacity(content.len());
    let mut cursor = 0;
    for l in parsed
        .lines
        .iter()
        .filter(|l| l.name == name && !l.fallback)
    {
        if let Some(s) = content.get(cursor..l.start) {
            out.push_str(s);
        }
        let rest = content.get(l.end..).unwrap_or("");
        cursor = l.end
            + if rest.starts_with("\r\n") {
                2
            } else if rest.starts_with('\n') {
                1
            } else {
                0
            };
    }
    out.push_str(content.get(cursor..).unwrap_or(""));
    out
}

fn entry_to_risu(e: &Entry, sec: &mut Section) -> Object {
    let (ext, mut ns) = split_extensions(&e.extensions, SOURCE, NS);
    // The one mapping the `risu` rules read too.
    let (lore, moved) = Lore::of(e);
    if moved.role {
        sec.carry("role (as @@role)");
    }
    if moved.disabled {
        sec.approx("enabled", Note::DisabledAsDecorator);
    }
    if moved.priority {
        sec.carry("priority (as @@priority)");
    }
    if moved.whole_words {
        sec.carry("whole_words (as @@match_full_word)");
    }
    if moved.whole_words_global {
        sec.approx("whole_words", Note::WholeWordsToRisuSetting);
    }
    if moved.secondary_logic {
        sec.carry(format!(
            "secondary_logic {} (as RisuAI's key decorators)",
            e.secondary_logic.as_str()
        ));
    }
    if let Some(p) = moved.st_position {
        sec.carry(format!(
            "SillyTavern position {p} (as a RisuAI position decorator)"
        ));
    }
    if moved.delay {
        sec.carry("SillyTavern delay (as @@activate_only_after)");
    }
    for l in &decorators::parse(&e.content).lines {
        if l.name == "is_greeting" && l.arg.is_none() {
            sec.lose(
                "@@is_greeting",
                Note::DecoratorInContent {
                    tool: MAPPING.tool.into(),
                },
            );
        }
    }
    for k in e.keys.iter().chain(&e.secondary_keys) {
        if k.contains(',') {
            sec.approx("keys", Note::KeyHasComma { key: k.clone() });
        }
    }
    ns.remove(BLANK_KEY);
    ns.remove(BLANK_SECONDKEY);
    let mut o = Object::new();
    o.insert("key".into(), json!(lore.key));
    o.insert("comment".into(), json!(lore.comment));
    o.insert("content".into(), json!(lore.content));
    let mode = ns.remove("mode");
    o.insert(
        "mode".into(),
        match (e.folder, mode) {
            (true, _) => json!("folder"),
            (false, Some(m)) => m,
            (false, None) => json!("normal"),
        },
    );
    o.insert("insertorder".into(), json!(lore.insertorder as i64));
    o.insert("alwaysActive".into(), json!(lore.always_active));
    o.insert("secondkey".into(), json!(lore.secondkey));
    o.insert("selective".into(), json!(lore.selective));
    o.insert("useRegex".into(), json!(lore.use_regex));
    for f in [
        "keys",
        "secondary_keys",
        "comment",
        "content",
        "order",
        "constant",
        "selective",
        "use_regex",
    ] {
        sec.carry(f);
    }
    let mut x = match ns.remove("extentions") {
        Some(Value::Object(x)) => x,
        _ => Object::new(),
    };
    if e.case_sensitive {
        // RisuAI keeps it, and matches ignoring case whatever it says.
        x.insert("risu_case_sensitive".into(), json!(true));
        sec.carry("case_sensitive");
    }
    if !x.is_empty() {
        o.insert("extentions".into(), Value::Object(x));
    }
    // RisuAI's migration rewrites entries without it (`@@end`, `<user>`,
    // `activationPercent`); the probability is an `@@probability` line.
    if !ns.contains_key("bookVersion") {
        o.insert("bookVersion".into(), json!(2));
    }
    fill_in(&mut o, ns);
    lose_lacking(sec, e, &ext, &MAPPING);
    o
}

fn book_top(book: &Book) -> Object {
    let (_, ns) = split_extensions(&book.extensions, SOURCE, NS);
    let mut top = Object::new();
    top.insert("type".into(), json!("risu"));
    top.insert("ver".into(), json!(1));
    fill_in(&mut top, ns);
    top
}

/// Writes a book as a RisuAI lorebook export.
pub fn export_value(book: &Book, report: &mut Report) -> Value {
    let book = &*with_folder_keys(book);
    let (data, mut top, ext) = export_parts(book, report, &MAPPING);
    let no_place = Note::BookFieldNoPlace {
        tool: MAPPING.tool.into(),
    };
    lose_book_fields(report, book, &[], &no_place);
    lose_book_extensions(report, &ext, NS, MAPPING.tool);
    top.insert("data".into(), Value::Array(data));
    Value::Object(top)
}
