//! NovelAI lorebooks (`.lorebook`: `{"lorebookVersion": N, "entries": [...]}`)
//! and the lorebook inside a NovelAI `.story` container
//! (`{"storyContainerVersion": 1, "content": {"lorebook": {...}}}`).
//!
//! | NovelAI | model | notes |
//! |---|---|---|
//! | position in `entries` | `id` | NovelAI ids are UUID strings: kept in `extensions["novelai"].id` |
//! | `displayName` | `comment` | |
//! | `text` | `content` | NovelAI has no decorators: export reports decorator lines (left in the text) |
//! | `keys` | `keys` | `/pattern/flags` keys are regular expressions in both |
//! | `enabled` | `enabled` | |
//! | `forceActivation` | `constant` | |
//! | `contextConfig.budgetPriority` | `priority` **and** `order` | NovelAI inserts by priority; export writes `priority` |
//! | — | `whole_words: false`, `case_sensitive: false` | NovelAI matches plain keys case-insensitively, inside words |
//! | `contextConfig` (rest), `searchRange`, `category`, `keyRelative`, `nonStoryActivatable`, `loreBiasGroups`, `lastUpdatedAt`, `id`, … | `extensions["novelai"]` | `searchRange` counts characters, not messages: no model equivalent |
//! | `lorebookVersion`, `settings`, `categories`, other top-level fields | book `extensions["novelai"]` | |
//! | the `.story` container (without its lorebook) | book `wrapper_extra["novelai_story"]` | export writes the story back around the book |
//!
//! Export has no place for secondary keys, selective logic, roles,
//! case-sensitive or whole-word matching, the book name, description or
//! scan settings: those are reported. `use_regex` keys become `/key/i`.

use serde_json::{json, Value};

use super::common::{
    as_regex_literal, entries_are_a_list, export_parts, fill_in, import_entries,
    inside_words_entry, lose_book_extensions, lose_book_fields, lose_lacking, put_ns,
    split_extensions, Mapping, Switch,
};
use super::error::ImportError;
use super::format::{Detect, Format};
use super::json::{take_bool, take_keys, take_string};
use super::report::{Note, Report, Section};
use crate::model::{Book, Entry, Object};

pub const NS: &str = "novelai";
/// `wrapper_extra` key for the `.story` container.
pub const STORY_KEY: &str = "novelai_story";
const SOURCE: &str = "novelai";
/// NovelAI for the shared steps: its entry mapping and what it has no place
/// for (secondary keys apart: [`entry_to_nai`] reports them).
const MAPPING: Mapping = Mapping {
    tool: "NovelAI",
    lacks: &[Switch::CaseSensitive, Switch::WholeWords, Switch::Role],
    lacks_decorators: true,
    source: SOURCE,
    read: entry_from_nai,
    write: entry_to_nai,
    top: book_top,
};
/// NovelAI's default `budgetPriority`.
const DEFAULT_PRIORITY: i64 = 400;

/// Whether a JSON object is a `.story` container holding a lorebook.
fn is_story(top: &Object) -> bool {
    top.contains_key("storyContainerVersion")
        && top
            .get("content")
            .and_then(|c| c.get("lorebook"))
            .is_some_and(Value::is_object)
}

/// A NovelAI lorebook has `lorebookVersion` and an entry list; a story
/// holds one in `content.lorebook`.
pub(crate) fn detect(top: &Object) -> Detect {
    Detect::sure_if(
        (top.contains_key("lorebookVersion") && entries_are_a_list(top)) || is_story(top),
    )
}

/// Reads a NovelAI lorebook or story.
pub fn import_value(value: Value, report: &mut Report) -> Result<Book, ImportError> {
    let Value::Object(mut top) = value else {
        return Err(ImportError::shape(
            Format::NovelAi,
            "expected a JSON object",
        ));
    };
    let mut story = None;
    if is_story(&top) {
        let lorebook = top
            .get_mut("content")
            .and_then(Value::as_object_mut)
            .and_then(|c| c.remove("lorebook"));
        let Some(Value::Object(lb)) = lorebook else {
            return Err(ImportError::shape(
                Format::NovelAi,
                "the story has no lorebook",
            ));
        };
        report.notes.push(Note::NovelAiStoryRead);
        story = Some(std::mem::replace(&mut top, lb));
    }
    let path = if story.is_some() {
        "content.lorebook"
    } else {
        ""
    };
    let entries = match top.remove("entries") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a,
        Some(_) => {
            return Err(ImportError::field(
                format!("{path}.entries")
                    .trim_start_matches('.')
                    .to_string(),
                "must be an array",
            ))
        }
    };
    let raw_top = top.clone();
    let mut book = Book::default();
    if let Some(story) = story {
        if let Some(title) = story
            .get("metadata")
            .and_then(|m| m.get("title"))
            .and_then(Value::as_str)
        {
            book.name = title.to_string();
            report.book.carry("metadata.title (as name)");
        }
        book.wrapper_extra
            .insert(STORY_KEY.into(), Value::Object(story));
    }
    put_ns(&mut book.extensions, NS, top);
    let epath = |i| {
        format!("{path}.entries[{i}]")
            .trim_start_matches('.')
            .to_string()
    };
    import_entries(book, report, &MAPPING, entries, epath, &raw_top)
}

fn entry_from_nai(mut o: Object, path: &str, sec: &mut Section) -> Result<Entry, ImportError> {
    let mut e = inside_words_entry();
    e.content = take_string(&mut o, "text", path)?.unwrap_or_default();
    e.comment = take_string(&mut o, "displayName", path)?.unwrap_or_default();
    e.keys = take_keys(&mut o, "keys", path)?;
    e.enabled = take_bool(&mut o, "enabled", path)?.unwrap_or(true);
    e.constant = take_bool(&mut o, "forceActivation", path)?.unwrap_or(false);
    for f in ["text", "displayName", "keys", "enabled", "forceActivation"] {
        sec.carry(f);
    }
    let mut priority = DEFAULT_PRIORITY;
    if let Some(Value::Object(cc)) = o.get_mut("contextConfig") {
        if let Some(v) = cc.get("budgetPriority") {
            match v.as_f64() {
                Some(f) if f.is_finite() => {
                    priority = f.round() as i64;
                    cc.remove("budgetPriority");
                    sec.carry("contextConfig.budgetPriority (as priority and order)");
                }
                _ => sec.approx(
                    "contextConfig.budgetPriority",
                    Note::NotNumberDefault {
                        value: v.to_string(),
                        default: 400,
                    },
                ),
            }
        }
    }
    e.priority = priority;
    e.order = priority;
    // Values equal to what export writes by default are not stored.
    for (k, d) in entry_defaults() {
        if o.get(k) == Some(&d) {
            o.remove(k);
        }
    }
    let mut cc_default = default_context_config();
    cc_default.remove("budgetPriority");
    if o.get("contextConfig") == Some(&Value::Object(cc_default)) {
        o.remove("contextConfig");
    }
    for k in o.keys() {
        sec.carry(format!("{k} (kept in extensions.{NS})"));
    }
    put_ns(&mut e.extensions, NS, o);
    Ok(e)
}

fn entry_defaults() -> [(&'static str, Value); 5] {
    [
        ("searchRange", json!(1000)),
        ("keyRelative", json!(false)),
        ("nonStoryActivatable", json!(false)),
        ("category", json!("")),
        ("loreBiasGroups", json!([])),
    ]
}

fn default_context_config() -> Object {
    match json!({
        "prefix": "",
        "suffix": "\n",
        "tokenBudget": 1,
        "reservedTokens": 0,
        "budgetPriority": DEFAULT_PRIORITY,
        "trimDirection": "trimBottom",
        "insertionType": "newline",
        "maximumTrimType": "sentence",
        "insertionPosition": -1
    }) {
        Value::Object(o) => o,
        _ => Object::new(),
    }
}

fn entry_to_nai(e: &Entry, sec: &mut Section) -> Object {
    let (ext, mut ns) = split_extensions(&e.extensions, SOURCE, NS);
    let mut cc = match ns.remove("contextConfig") {
        Some(Value::Object(cc)) => cc,
        _ => default_context_config(),
    };
    cc.insert("budgetPriority".into(), json!(e.priority));
    let keys: Vec<String> = if e.use_regex {
        sec.approx(
            "use_regex",
            Note::RegexAsLiterals {
                tool: MAPPING.tool.into(),
            },
        );
        e.keys
            .iter()
            .map(|k| as_regex_literal(k, e.case_sensitive))
            .collect()
    } else {
        e.keys.clone()
    };
    let mut o = Object::new();
    o.insert("text".into(), json!(e.content));
    o.insert("contextConfig".into(), Value::Object(cc));
    if let Some(v) = ns.remove("lastUpdatedAt") {
        o.insert("lastUpdatedAt".into(), v);
    }
    o.insert("displayName".into(), json!(e.comment));
    if let Some(v) = ns.remove("id") {
        o.insert("id".into(), v);
    }
    o.insert("keys".into(), json!(keys));
    o.insert(
        "searchRange".into(),
        ns.remove("searchRange").unwrap_or(json!(1000)),
    );
    o.insert("enabled".into(), json!(e.enabled));
    o.insert("forceActivation".into(), json!(e.constant));
    o.insert(
        "keyRelative".into(),
        ns.remove("keyRelative").unwrap_or(json!(false)),
    );
    o.insert(
        "nonStoryActivatable".into(),
        ns.remove("nonStoryActivatable").unwrap_or(json!(false)),
    );
    o.insert(
        "category".into(),
        ns.remove("category").unwrap_or(json!("")),
    );
    o.insert(
        "loreBiasGroups".into(),
        ns.remove("loreBiasGroups").unwrap_or(json!([])),
    );
    fill_in(&mut o, ns);
    for f in [
        "comment", "content", "keys", "enabled", "constant", "priority",
    ] {
        sec.carry(f);
    }
    if e.order != e.priority {
        sec.approx(
            "order",
            Note::NovelAiOrder {
                order: e.order,
                priority: e.priority,
            },
        );
    }
    if !e.secondary_keys.is_empty() {
        sec.lose("secondary_keys", no_secondary());
    }
    if e.selective {
        sec.lose("selective", no_secondary());
    }
    lose_lacking(sec, e, &ext, &MAPPING);
    o
}

fn book_top(book: &Book) -> Object {
    let (_, mut ns) = split_extensions(&book.extensions, SOURCE, NS);
    let mut top = Object::new();
    top.insert(
        "lorebookVersion".into(),
        ns.remove("lorebookVersion").unwrap_or(json!(6)),
    );
    top.insert(
        "settings".into(),
        ns.remove("settings")
            .unwrap_or(json!({"orderByKeyLocations": false})),
    );
    top.insert(
        "categories".into(),
        ns.remove("categories").unwrap_or(json!([])),
    );
    fill_in(&mut top, ns);
    top
}

/// Writes a book as a NovelAI lorebook (inside its story, if it came from one).
pub fn export_value(book: &Book, report: &mut Report) -> Value {
    let (entries, top, ext) = export_parts(book, report, &MAPPING);
    // NovelAI files list entries after the version.
    let mut lorebook = Object::new();
    let mut rest = top.into_iter();
    if let Some((k, v)) = rest.next() {
        lorebook.insert(k, v);
    }
    lorebook.insert("entries".into(), Value::Array(entries));
    lorebook.extend(rest);

    let story = match book.wrapper_extra.get(STORY_KEY) {
        Some(Value::Object(s)) => Some(s.clone()),
        _ => None,
    };
    let d = Book::default();
    let title = story
        .as_ref()
        .and_then(|s| s.get("metadata"))
        .and_then(|m| m.get("title"))
        .and_then(Value::as_str);
    if book.name != d.name && title != Some(book.name.as_str()) {
        report.book.lose(
            "name",
            Note::NoBookName {
                tool: MAPPING.tool.into(),
            },
        );
    }
    let no_place = Note::BookFieldNoPlace {
        tool: MAPPING.tool.into(),
    };
    lose_book_fields(report, book, &["name"], &no_place);
    lose_book_extensions(report, &ext, NS, MAPPING.tool);
    match story {
        Some(mut s) => {
            report.notes.push(Note::NovelAiStoryWritten);
            if let Some(Value::Object(c)) = s.get_mut("content") {
                c.insert("lorebook".into(), Value::Object(lorebook));
            }
            Value::Object(s)
        }
        None => Value::Object(lorebook),
    }
}

/// NovelAI has neither secondary keys nor a switch for them.
fn no_secondary() -> Note {
    Note::NoSecondaryKeys {
        tool: MAPPING.tool.into(),
    }
}
