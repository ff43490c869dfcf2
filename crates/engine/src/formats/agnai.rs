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
    entries_are_a_list, finish_imported, lose_decorators, lose_leftovers, push_imported, put_ns,
    take_ns,
};
use super::error::ImportError;
use super::format::{Detect, Format};
use super::json::{take_bool, take_i64, take_keys, take_string};
use super::report::{Note, Report, Section};
use super::shadow;
use crate::model::{Book, Entry, Object, Role};

pub const NS: &str = "agnai";
const SOURCE: &str = "agnai";

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
    for (i, raw) in entries.into_iter().enumerate() {
        let path = format!("entries[{i}]");
        let Value::Object(raw) = raw else {
            return Err(ImportError::field(path, "must be an object"));
        };
        let mut o = raw.clone();
        let mut e = Entry {
            id: i as u64,
            whole_words: false,
            ..Entry::default()
        };
        e.comment = take_string(&mut o, "name", &path)?.unwrap_or_default();
        e.content = take_string(&mut o, "entry", &path)?.unwrap_or_default();
        e.keys = take_keys(&mut o, "keywords", &path)?;
        e.priority = take_i64(&mut o, "priority", &path)?.unwrap_or(e.priority);
        e.order = take_i64(&mut o, "weight", &path)?.unwrap_or(e.order);
        e.enabled = take_bool(&mut o, "enabled", &path)?.unwrap_or(true);
        let mut sec = Section::default();
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
        let emitted = entry_to_agnai(&e, &mut Section::default());
        push_imported(&mut book, report, SOURCE, &raw, &emitted, e, sec);
    }
    let emitted_top = book_top(&book);
    finish_imported(&mut book, SOURCE, &raw_top, &emitted_top);
    Ok(book)
}

fn entry_to_agnai(e: &Entry, sec: &mut Section) -> Object {
    let mut ext = e.extensions.clone();
    shadow::take(&mut ext, SOURCE);
    let ns = take_ns(&mut ext, NS);
    let mut o = Object::new();
    o.insert("name".into(), json!(e.comment));
    o.insert("entry".into(), json!(e.content));
    o.insert("keywords".into(), json!(e.keys));
    o.insert("priority".into(), json!(e.priority));
    o.insert("weight".into(), json!(e.order));
    o.insert("enabled".into(), json!(e.enabled));
    for (k, v) in ns {
        o.entry(k).or_insert(v);
    }
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
                tool: "Agnai".into(),
            },
        );
    }
    if e.constant {
        sec.lose(
            "constant",
            Note::NoConstant {
                tool: "Agnai".into(),
            },
        );
    }
    if e.case_sensitive {
        sec.lose(
            "case_sensitive",
            Note::CaseInsensitive {
                tool: "Agnai".into(),
            },
        );
    }
    if e.whole_words {
        sec.lose(
            "whole_words",
            Note::InsideWords {
                tool: "Agnai".into(),
            },
        );
    }
    if e.use_regex {
        sec.lose(
            "use_regex",
            Note::NoRegex {
                tool: "Agnai".into(),
            },
        );
    }
    if e.role != Role::System {
        sec.lose(
            "role",
            Note::NoRole {
                tool: "Agnai".into(),
            },
        );
    }
    lose_decorators(sec, &e.content, "Agnai");
    lose_leftovers(sec, &ext, &e.extra, "Agnai");
    o
}

fn book_top(book: &Book) -> Object {
    let mut ext = book.extensions.clone();
    shadow::take(&mut ext, SOURCE);
    let ns = take_ns(&mut ext, NS);
    let mut top = Object::new();
    top.insert("kind".into(), json!("memory"));
    top.insert("name".into(), json!(book.name));
    top.insert("description".into(), json!(book.description));
    for (k, v) in ns {
        top.entry(k).or_insert(v);
    }
    top
}

/// Writes a book as an Agnai memory book.
pub fn export_value(book: &Book, report: &mut Report) -> Value {
    let entries: Vec<Value> = book
        .entries
        .iter()
        .map(|e| {
            let sec = report.entry(e.id, e.display_name());
            let mut o = entry_to_agnai(e, sec);
            shadow::restore_reported(&mut o, &e.extensions, SOURCE, sec);
            Value::Object(o)
        })
        .collect();
    let mut top = book_top(book);
    let mut ext = book.extensions.clone();
    shadow::restore(&mut top, &shadow::take(&mut ext, SOURCE));
    report.book.carry("name");
    report.book.carry("description");
    let d = Book::default();
    for (f, differs) in [
        ("scan_depth", book.scan_depth != d.scan_depth),
        ("token_budget", book.token_budget != d.token_budget),
        (
            "recursive_scanning",
            book.recursive_scanning != d.recursive_scanning,
        ),
    ] {
        if differs {
            report.book.lose(
                f,
                Note::SetPerChat {
                    tool: "Agnai".into(),
                },
            );
        }
    }
    let ext_keys: Vec<String> = ext.keys().filter(|k| *k != NS).cloned().collect();
    if !ext_keys.is_empty() {
        report.book.lose(
            format!("extensions ({})", ext_keys.join(", ")),
            Note::BookFieldNoPlace {
                tool: "Agnai".into(),
            },
        );
    }
    top.insert("entries".into(), Value::Array(entries));
    Value::Object(top)
}
