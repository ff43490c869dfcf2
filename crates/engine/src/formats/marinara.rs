//! Marinara-Engine lorebooks: the envelope `{"type": "marinara_lorebook",
//! "version": 1, "exportedAt", "data": {"lorebook", "entries", "folders"}}`
//! that Marinara-Engine's native lorebook export writes (read in its
//! `packages/shared` types and schemas and its server's export and import
//! routes, May 2026; in our words).
//!
//! | Marinara | model | notes |
//! |---|---|---|
//! | `data.lorebook.name`, `description` | book `name`, `description` | |
//! | `data.lorebook.scanDepth`, `tokenBudget`, `recursiveScanning` | the book's scan depth, budget, recursion | clamped to the app's ranges (reported) |
//! | other `data.lorebook` fields (`category`, `tags`, ids, …) | book `extensions["marinara"]` | |
//! | `data.folders[]` | folder entries | `name` → name, `enabled` → enabled; `parentFolderId` → the folder it is in (Marinara writes none today; a nested folder is written with it) |
//! | entry `name` | `comment` | |
//! | `content`, `keys`, `secondaryKeys`, `selective`, `constant`, `enabled` | same | |
//! | `selectiveLogic` `and` / `or` / `not` | all / any / none of the secondary keys | "not all" has no Marinara value: written `not`, reported |
//! | `matchWholeWords`, `caseSensitive`, `useRegex` | whole words, case-sensitive, regex keys | |
//! | `order` | `order` | |
//! | `role` | role | |
//! | `probability` (0–100, `null` always) | `@@probability N` | |
//! | `folderId` | the folder it is in | an id no folder has: at the top, reported |
//! | everything else (`locked`, `activationConditions`, `schedule`, `position`, `depth`, timing, groups, `tag`, `description`, ids, …) | `extensions["marinara"]` | kept as they were; they mean nothing to the preview |
//!
//! Marinara has no decorators: export reports decorator lines left in the
//! content (`@@probability` apart, written as `probability`).

use serde_json::{json, Value};

use super::common::{
    file_imported, lose_decorators, lose_leftovers, probability_from, put_ns, split_extensions,
};
use super::error::ImportError;
use super::format::{Detect, Format};
use super::json::{percent, take_bool, take_i64, take_keys, take_string};
use super::report::{Note, Report, Section};
use crate::decorators;
use crate::model::{Book, Entry, Object, Role, SecondaryLogic};

pub const NS: &str = "marinara";
const SOURCE: &str = "marinara";
const TOOL: &str = "Marinara-Engine";
/// The envelope's `type`.
pub const TYPE: &str = "marinara_lorebook";

/// A Marinara lorebook says `type: "marinara_lorebook"` and has `data`.
pub(crate) fn detect(top: &Object) -> Detect {
    Detect::sure_if(
        top.get("type").and_then(Value::as_str) == Some(TYPE)
            && top.get("data").is_some_and(Value::is_object),
    )
}

fn logic_of(s: &str) -> Option<SecondaryLogic> {
    Some(match s {
        "and" => SecondaryLogic::AndAll,
        "or" => SecondaryLogic::AndAny,
        "not" => SecondaryLogic::NotAny,
        _ => return None,
    })
}

fn role_of(s: &str) -> Option<Role> {
    Some(match s {
        "system" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        _ => return None,
    })
}

/// Reads a Marinara lorebook.
pub fn import_value(value: Value, report: &mut Report) -> Result<Book, ImportError> {
    let Value::Object(mut top) = value else {
        return Err(ImportError::shape(
            Format::Marinara,
            "expected a JSON object",
        ));
    };
    let Some(Value::Object(mut data)) = top.remove("data") else {
        return Err(ImportError::field("data", "must be an object"));
    };
    let mut lore = match data.remove("lorebook") {
        Some(Value::Object(o)) => o,
        None | Some(Value::Null) => Object::new(),
        Some(_) => return Err(ImportError::field("data.lorebook", "must be an object")),
    };
    let list = |data: &mut Object, key: &str| -> Result<Vec<Value>, ImportError> {
        match data.remove(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(a)) => Ok(a),
            Some(_) => Err(ImportError::field(
                format!("data.{key}"),
                "must be an array",
            )),
        }
    };
    let entries = list(&mut data, "entries")?;
    let folders = list(&mut data, "folders")?;
    let mut book = Book {
        name: take_string(&mut lore, "name", "data.lorebook")?.unwrap_or_default(),
        description: take_string(&mut lore, "description", "data.lorebook")?.unwrap_or_default(),
        ..Book::default()
    };
    report.book.carry("name");
    report.book.carry("description");
    for (field, set) in [("scanDepth", 0usize), ("tokenBudget", 1)] {
        if let Some(n) = take_i64(&mut lore, field, "data.lorebook")? {
            let (lo, hi) = if set == 0 {
                crate::model::SCAN_DEPTH_RANGE
            } else {
                crate::model::TOKEN_BUDGET_RANGE
            };
            let v = n.clamp(lo as i64, hi as i64) as u32;
            if v as i64 != n {
                report.book.approx(
                    field,
                    Note::Clamped {
                        field: field.into(),
                        value: n.max(0) as u64,
                        min: lo.into(),
                        max: hi.into(),
                        clamped: v.into(),
                    },
                );
            } else {
                report.book.carry(field);
            }
            if set == 0 {
                book.scan_depth = v;
            } else {
                book.token_budget = v;
            }
        }
    }
    if let Some(r) = take_bool(&mut lore, "recursiveScanning", "data.lorebook")? {
        book.recursive_scanning = r;
        report.book.carry("recursiveScanning");
    }
    // What the app has no place for, kept to be written back as it was.
    let mut kept = Object::new();
    kept.insert("lorebook".into(), Value::Object(lore));
    top.remove("type");
    for (k, v) in top {
        kept.insert(format!("envelope.{k}"), v);
    }
    for (k, v) in data {
        kept.insert(format!("data.{k}"), v);
    }
    put_ns(&mut book.extensions, NS, kept);

    // Folders first (their ids after the entries'), then the entries.
    let base = entries.len() as u64;
    let mut folder_ids: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    let mut parents: Vec<(u64, Option<String>)> = Vec::new();
    for (i, raw) in folders.into_iter().enumerate() {
        let path = format!("data.folders[{i}]");
        let Value::Object(mut o) = raw else {
            return Err(ImportError::field(path, "must be an object"));
        };
        let id = base + i as u64;
        if let Some(Value::String(s)) = o.get("id") {
            folder_ids.entry(s.clone()).or_insert(id);
        }
        let parent = match o.remove("parentFolderId") {
            Some(Value::String(s)) => Some(s),
            _ => None,
        };
        parents.push((id, parent));
        let e = Entry {
            id,
            folder: true,
            comment: take_string(&mut o, "name", &path)?.unwrap_or_default(),
            enabled: take_bool(&mut o, "enabled", &path)?.unwrap_or(true),
            ..Entry::default()
        };
        let mut e = e;
        put_ns(&mut e.extensions, NS, o);
        book.entries.push(e);
    }
    let folder_of = |id: &str| folder_ids.get(id).copied();
    for (id, parent) in parents {
        let p = parent.as_deref().and_then(folder_of);
        if let Some(e) = book.entries.iter_mut().find(|e| e.id == id) {
            e.parent = p.filter(|p| *p != id);
        }
    }
    let mut read = Vec::with_capacity(entries.len());
    for (i, raw) in entries.into_iter().enumerate() {
        let path = format!("data.entries[{i}]");
        let Value::Object(raw) = raw else {
            return Err(ImportError::field(path, "must be an object"));
        };
        let mut sec = Section::default();
        let mut e = entry_from(raw.clone(), &path, &mut sec)?;
        e.id = i as u64;
        if let Some(Value::String(f)) = raw.get("folderId") {
            match folder_of(f) {
                Some(p) => e.parent = Some(p),
                None => sec.approx(
                    "folderId",
                    Note::ReadAs {
                        value: f.clone(),
                        read: 0,
                    },
                ),
            }
        }
        read.push((raw, e, sec));
    }
    // An entry's emitted form names its folder: the folders are in first.
    let keys = FolderKeys::of(&book);
    let mut done = Vec::with_capacity(read.len());
    for (raw, mut e, sec) in read {
        let emitted = entry_to(&e, &keys, &mut Section::default());
        file_imported(report, SOURCE, &raw, &emitted, &mut e, sec);
        done.push(e);
    }
    let folders_at_end = std::mem::take(&mut book.entries);
    book.entries = done;
    book.entries.extend(folders_at_end);
    Ok(book)
}

fn entry_from(mut o: Object, path: &str, sec: &mut Section) -> Result<Entry, ImportError> {
    let mut e = Entry::default();
    e.comment = take_string(&mut o, "name", path)?.unwrap_or_default();
    e.content = take_string(&mut o, "content", path)?.unwrap_or_default();
    e.keys = take_keys(&mut o, "keys", path)?;
    e.secondary_keys = take_keys(&mut o, "secondaryKeys", path)?;
    e.selective = take_bool(&mut o, "selective", path)?.unwrap_or(false);
    e.constant = take_bool(&mut o, "constant", path)?.unwrap_or(false);
    e.enabled = take_bool(&mut o, "enabled", path)?.unwrap_or(true);
    e.whole_words = take_bool(&mut o, "matchWholeWords", path)?.unwrap_or(false);
    e.case_sensitive = take_bool(&mut o, "caseSensitive", path)?.unwrap_or(false);
    e.use_regex = take_bool(&mut o, "useRegex", path)?.unwrap_or(false);
    e.order = take_i64(&mut o, "order", path)?.unwrap_or(100);
    e.priority = e.order;
    for f in [
        "name",
        "content",
        "keys",
        "secondaryKeys",
        "selective",
        "constant",
        "enabled",
        "matchWholeWords",
        "caseSensitive",
        "useRegex",
        "order (as order and priority)",
    ] {
        sec.carry(f);
    }
    match o.remove("selectiveLogic") {
        Some(Value::String(s)) if logic_of(&s).is_some() => {
            e.secondary_logic = logic_of(&s).unwrap_or_default();
            sec.carry("selectiveLogic");
        }
        None | Some(Value::Null) => e.secondary_logic = SecondaryLogic::AndAll,
        Some(other) => {
            sec.approx(
                "selectiveLogic",
                Note::LogicUnknown {
                    value: other.to_string(),
                },
            );
            e.secondary_logic = SecondaryLogic::AndAll;
        }
    }
    match o.remove("role") {
        Some(Value::String(s)) if role_of(&s).is_some() => {
            e.role = role_of(&s).unwrap_or_default();
            sec.carry("role");
        }
        None | Some(Value::Null) => {}
        Some(other) => sec.approx(
            "role",
            Note::RoleUnknown {
                value: other.to_string(),
            },
        ),
    }
    match o.remove("probability") {
        None | Some(Value::Null) => {}
        Some(pv) => match percent(&pv) {
            Some(read) => probability_from(&mut e.content, sec, "probability", &pv, read),
            None => sec.approx(
                "probability",
                Note::NotNumberIgnored {
                    value: pv.to_string(),
                },
            ),
        },
    }
    o.remove("folderId");
    for k in o.keys() {
        sec.carry(format!("{k} (kept in extensions.{NS})"));
    }
    put_ns(&mut e.extensions, NS, o);
    Ok(e)
}

/// Each folder entry's Marinara id, by its entry id: found once per book,
/// not once per entry.
struct FolderKeys(std::collections::HashMap<u64, String>);

impl FolderKeys {
    fn of(book: &Book) -> FolderKeys {
        FolderKeys(
            book.entries
                .iter()
                .filter(|e| e.folder)
                .map(|f| (f.id, folder_key(f)))
                .collect(),
        )
    }

    fn of_parent(&self, parent: Option<u64>) -> Value {
        parent
            .and_then(|p| self.0.get(&p))
            .map_or(Value::Null, |k| Value::String(k.clone()))
    }
}

/// The Marinara id a folder entry is written with: the one it was read
/// with, else one made from its id.
fn folder_key(f: &Entry) -> String {
    f.extensions
        .get(NS)
        .and_then(|n| n.get("id"))
        .and_then(Value::as_str)
        .map_or_else(|| format!("folder-{}", f.id), str::to_string)
}

fn entry_to(e: &Entry, keys: &FolderKeys, sec: &mut Section) -> Object {
    let (ext, ns) = split_extensions(&e.extensions, SOURCE, NS);
    let mut content = e.content.clone();
    let parsed = decorators::parse(&content).decorators;
    let probability = match parsed.probability {
        Some(p) => {
            content = decorators::remove(&content, "probability");
            sec.carry("@@probability (as probability)");
            json!(p)
        }
        None => Value::Null,
    };
    let mut o = Object::new();
    o.insert("name".into(), json!(e.comment));
    o.insert("content".into(), json!(content));
    o.insert("keys".into(), json!(e.keys));
    o.insert("secondaryKeys".into(), json!(e.secondary_keys));
    o.insert("selective".into(), json!(e.selective));
    let logic = match e.secondary_logic {
        SecondaryLogic::AndAll => "and",
        SecondaryLogic::AndAny => "or",
        SecondaryLogic::NotAny => "not",
        SecondaryLogic::NotAll => {
            sec.approx(
                "secondary_logic",
                Note::OnlyAndAny {
                    tool: TOOL.into(),
                    logic: "not_all".into(),
                },
            );
            "not"
        }
    };
    o.insert("selectiveLogic".into(), json!(logic));
    o.insert("constant".into(), json!(e.constant));
    o.insert("enabled".into(), json!(e.enabled));
    o.insert("matchWholeWords".into(), json!(e.whole_words));
    o.insert("caseSensitive".into(), json!(e.case_sensitive));
    o.insert("useRegex".into(), json!(e.use_regex));
    o.insert("order".into(), json!(e.order));
    o.insert("role".into(), json!(e.role.as_str()));
    o.insert("probability".into(), probability);
    o.insert("folderId".into(), keys.of_parent(e.parent));
    for k in ns.keys() {
        o.entry(k.clone()).or_insert_with(|| ns[k].clone());
    }
    for f in [
        "comment",
        "content",
        "keys",
        "secondary_keys",
        "selective",
        "constant",
        "enabled",
        "whole_words",
        "case_sensitive",
        "use_regex",
        "order",
        "role",
        "folder",
    ] {
        sec.carry(f);
    }
    if e.priority != e.order {
        sec.lose(
            "priority",
            Note::StPriority {
                priority: e.priority,
                order: e.order,
            },
        );
    }
    lose_decorators(sec, &content, TOOL);
    lose_leftovers(sec, &ext, &e.extra, TOOL);
    o
}

fn folder_to(f: &Entry, keys: &FolderKeys) -> Object {
    let (_, ns) = split_extensions(&f.extensions, SOURCE, NS);
    let mut o = Object::new();
    o.insert("id".into(), json!(folder_key(f)));
    o.insert("name".into(), json!(f.comment));
    o.insert("enabled".into(), json!(f.enabled));
    o.insert("parentFolderId".into(), keys.of_parent(f.parent));
    for (k, v) in ns {
        o.entry(k).or_insert(v);
    }
    o
}

/// Writes a book as a Marinara lorebook.
pub fn export_value(book: &Book, report: &mut Report) -> Value {
    let (_, mut kept) = split_extensions(&book.extensions, SOURCE, NS);
    let mut lore = match kept.remove("lorebook") {
        Some(Value::Object(o)) => o,
        _ => Object::new(),
    };
    lore.insert("name".into(), json!(book.name));
    lore.insert("description".into(), json!(book.description));
    lore.insert("scanDepth".into(), json!(book.scan_depth));
    lore.insert("tokenBudget".into(), json!(book.token_budget));
    lore.insert("recursiveScanning".into(), json!(book.recursive_scanning));
    for f in [
        "name",
        "description",
        "scan_depth",
        "token_budget",
        "recursive_scanning",
    ] {
        report.book.carry(f);
    }
    let keys = FolderKeys::of(book);
    let mut entries = Vec::new();
    let mut folders = Vec::new();
    for e in &book.entries {
        if e.folder {
            folders.push(Value::Object(folder_to(e, &keys)));
            continue;
        }
        let o = super::common::export_entry(report, e, SOURCE, |e, sec| entry_to(e, &keys, sec));
        entries.push(Value::Object(o));
    }
    let mut data = Object::new();
    data.insert("lorebook".into(), Value::Object(lore));
    data.insert("entries".into(), Value::Array(entries));
    data.insert("folders".into(), Value::Array(folders));
    let mut top = Object::new();
    top.insert("type".into(), json!(TYPE));
    top.insert("version".into(), json!(1));
    for (k, v) in kept {
        if let Some(name) = k.strip_prefix("envelope.") {
            top.entry(name.to_string()).or_insert(v);
        } else if let Some(name) = k.strip_prefix("data.") {
            data.entry(name.to_string()).or_insert(v);
        }
    }
    top.insert("data".into(), Value::Object(data));
    Value::Object(top)
}
