//! Agnai memory books: `{"kind": "memory", "name", "description",
//! "entries": [{"name", "entry", "keywords", "priority", "weight", "enabled"}]}`.
//!
//! | Agnai | model | notes |
//! |---|---|---|
//! | position in `entries` | `id` | |
//! | `name` (entry) | `comment` | |
//! | `entry` | `content` | Agnai has no decorators: export reports decorator lines |
//! | `keywords` | `keys` | |
//! | `priority` | `priority` | which entries are kept first when the budget is short |
//! | `weight` | `order` | where the entry is placed |
//! | `enabled` | `enabled` | |
//! | — | `whole_words: false` | Agnai matches keywords inside words |
//! | other entry fields | `extensions["agnai"]` | |
//! | book `name`, `description` | same | |
//! | other book fields (`_id`, `userId`, …) | book `extensions["agnai"]` | |
//!
//! Export has no place for secondary keys, constant, case-sensitive or
//! whole-word matching, regex keys, roles or the scan settings: those are
//! reported.

use serde_json::{json, Value};

use super::common::{
    entries_are_a_list, export_parts, fill_in, import_entries, inside_words_entry,
    lose_book_extensions, lose_book_fields, lose_lacking, put_ns, split_extensions, Mapping,
    Switch,
};
use super::error::ImportError;
use super::format::{Detect, Format};
use super::json::{take_bool, take_i64, take_keys, take_string};
use super::report::{Note, Report, Section};
use crate::model::{Book, Entry, Object};

pub const NS: &str = "agnai";
const SOURCE: &str = "agnai";
/// Agnai for the shared steps: its entry mapping and what it has no place
/// for (secondary keys apart: [`entry_to_agnai`] reports them).
const MAPPING: Mapping = Mapping {
    tool: "Agnai",
    lacks: &[
        Switch::Constant,
        Switch::CaseSensitive,
        Switch::WholeWords,
        Switch::Regex,
        Switch::Role,
    ],
    lacks_decorators: true,
    source: SOURCE,
    read: entry_from_agnai,
    write: entry_to_agnai,
    top: book_top,
};

/// An Agnai memory book says `kind: "memory"` and has an entry list.
pub(crate) fn detect(top: &Object) -> Detect {
    Detect::sure_if(
        top.get("kind").and_then(Value::as_str) == Some("memory") && entries_are_a_list(top),
    )
}

/// Reads an Agnai memory book.
pub fn import_value(value: Value, report: &mut Report) -> Result<Book, ImportError> {
    let Value::Object(mut top) = value else {
        return Err(ImportError::shape(Format::Agnai, "expected a JSON object"));
    };
    let entries = match top.remove("entries") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a,
        Some(_) => return Err(ImportError::field("entries", "must be an array")),
    };
    let raw_top = top.clone();
    let mut book = Book {
        name: take_string(&mut top, "name", "")?.unwrap_or_default(),
        description: take_string(&mut top, "description", "")?.unwrap_or_default(),
        ..Book::default()
    };
    report.book.carry("name");
    report.book.carry("description");
    top.remove("kind");
    put_ns(&mut book.extensions, NS, top);
    let path = |i| format!("entries[{i}]");
    import_entries(book, report, &MAPPING, entries, path, &raw_top)
}

fn entry_from_agnai(mut o: Object, path: &str, sec: &mut Section) -> Result<Entry, ImportError> {
    let mut e = inside_words_entry();
    e.comment = take_string(&mut o, "name", path)?.unwrap_or_default();
    e.content = take_string(&mut o, "entry", path)?.unwrap_or_default();
    e.keys = take_keys(&mut o, "keywords", path)?;
    e.priority = take_i64(&mut o, "priority", path)?.unwrap_or(e.priority);
    e.order = take_i64(&mut o, "weight", path)?.unwrap_or(e.order);
    e.enabled = take_bool(&mut o, "enabled", path)?.unwrap_or(true);
    for f in [
        "name",
        "entry",
        "keywords",
        "priority",
        "weight (as order)",
        "enabled",
    ] {
        sec.carry(f);
    }
    for k in o.keys() {
        sec.carry(format!("{k} (kept in extensions.{NS})"));
    }
    put_ns(&mut e.extensions, NS, o);
    Ok(e)
}

fn entry_to_agnai(e: &Entry, sec: &mut Section) -> Object {
    let (ext, ns) = split_extensions(&e.extensions, SOURCE, NS);
    let mut o = Object::new();
    o.insert("name".into(), json!(e.comment));
    o.insert("entry".into(), json!(e.content));
    o.insert("keywords".into(), json!(e.keys));
    o.insert("priority".into(), json!(e.priority));
    o.insert("weight".into(), json!(e.order));
    o.insert("enabled".into(), json!(e.enabled));
    fill_in(&mut o, ns);
    for f in [
        "comment",
        "content",
        "keys",
        "priority",
        "order (as weight)",
        "enabled",
    ] {
        sec.carry(f);
    }
    if !e.secondary_keys.is_empty() || e.selective {
        sec.lose(
            "secondary_keys",
            Note::NoSecondaryKeys {
                tool: MAPPING.tool.into(),
            },
        );
    }
    lose_lacking(sec, e, &ext, &MAPPING);
    o
}

fn book_top(book: &Book) -> Object {
    let (_, ns) = split_extensions(&book.extensions, SOURCE, NS);
    let mut top = Object::new();
    top.insert("kind".into(), json!("memory"));
    top.insert("name".into(), json!(book.name));
    top.insert("description".into(), json!(book.description));
    fill_in(&mut top, ns);
    top
}

/// Writes a book as an Agnai memory book.
pub fn export_value(book: &Book, report: &mut Report) -> Value {
    let (entries, mut top, ext) = export_parts(book, report, &MAPPING);
    report.book.carry("name");
    report.book.carry("description");
    let per_chat = Note::SetPerChat {
        tool: MAPPING.tool.into(),
    };
    lose_book_fields(report, book, &["name", "description"], &per_chat);
    lose_book_extensions(report, &ext, NS, MAPPING.tool);
    top.insert("entries".into(), Value::Array(entries));
    Value::Object(top)
}
