//! The native file: a character-card-v3 standalone lorebook (SPEC §7).
//!
//! ```json
//! {"spec": "lorebook_v3", "data": {"name": "…", "entries": [{"id": 0, …}]}}
//! ```
//!
//! Fields v3 has no place for live in the entry's `extensions` under the
//! names SillyTavern reads there: `match_whole_words`, `role` (0/1/2) and
//! `selectiveLogic` (0–3). Every field the model does not own is kept in
//! `extra` and written back, so load → save keeps the file's meaning. An
//! entry imported with an id the editor cannot use (a UUID) is written
//! with that id, and with the editor's own id in `extensions` as
//! `lorebook_studio_id`, which reading takes back.

use serde_json::{json, Value};

use super::common::BOOK_FIELDS;
use super::error::ImportError;
use super::format::Detect;
use super::json::{
    parse_json, take_bool, take_i64, take_keys, take_object, take_string, take_u64, to_pretty,
};
use super::report::{Note, Report};
use crate::model::{Book, Entry, Object, Role, SecondaryLogic, MAX_ID};

/// The `spec` value of the native file.
pub const SPEC: &str = "lorebook_v3";

/// Entry-level fields the model owns.
const ENTRY_FIELDS: &[&str] = &[
    "id",
    "keys",
    "secondary_keys",
    "selective",
    "constant",
    "enabled",
    "case_sensitive",
    "use_regex",
    "insertion_order",
    "priority",
    "comment",
    "content",
    "extensions",
];

/// Loads a native file. Returns the book and notes about values that were
/// repaired (clamped settings, missing or duplicate ids).
pub fn load(bytes: &[u8]) -> Result<(Book, Vec<Note>), ImportError> {
    let value = parse_json(bytes)?;
    from_value(value)
}

/// Reads the native JSON value.
pub fn from_value(value: Value) -> Result<(Book, Vec<Note>), ImportError> {
    from_value_with(value, None)
}

/// [`from_value`], with `data.entries` already read into `entries` when
/// given (the streamed reader, `native_stream.rs`, leaves an empty array in
/// their place, so every other field is read and ordered as here).
pub(crate) fn from_value_with(
    value: Value,
    entries: Option<Vec<Entry>>,
) -> Result<(Book, Vec<Note>), ImportError> {
    let Value::Object(mut top) = value else {
        return Err(ImportError::shape_of_file(
            "expected a JSON object with \"spec\": \"lorebook_v3\"",
        ));
    };
    match top.get("spec") {
        Some(Value::String(s)) if s == SPEC => {}
        Some(other) => {
            return Err(ImportError::shape_of_file(format!(
                "this is not a native lorebook: \"spec\" is {other}, expected \"{SPEC}\""
            )))
        }
        None => {
            return Err(ImportError::shape_of_file(format!(
                "this is not a native lorebook: no \"spec\": \"{SPEC}\""
            )))
        }
    }
    top.remove("spec");
    let data = match top.remove("data") {
        Some(Value::Object(d)) => d,
        Some(_) => return Err(ImportError::field("data", "must be an object")),
        None => {
            return Err(ImportError::shape_of_file(
                "the file has no \"data\" object",
            ))
        }
    };
    let (mut book, notes) = book_from_parts(data, "data", entries)?;
    book.wrapper_extra = top;
    Ok((book, notes))
}

/// A native file says so in its `spec`.
pub(crate) fn detect(top: &Object) -> Detect {
    Detect::by_spec(top, SPEC)
}

/// The native codec's import: [`from_value`], with its repair notes and
/// every entry carried whole in the report.
pub(crate) fn import_value(value: Value, report: &mut Report) -> Result<Book, ImportError> {
    import_value_with(value, None, report)
}

/// [`import_value`] with `data.entries` already read (see
/// [`from_value_with`]).
pub(crate) fn import_value_with(
    value: Value,
    entries: Option<Vec<Entry>>,
    report: &mut Report,
) -> Result<Book, ImportError> {
    let (book, notes) = from_value_with(value, entries)?;
    for n in notes {
        report.book.approx("data", n);
    }
    carry_every_field(&book, report);
    Ok(book)
}

/// The native codec's export: [`to_value`], every entry carried whole.
pub(crate) fn export_value(book: &Book, report: &mut Report) -> Value {
    carry_every_field(book, report);
    to_value(book)
}

fn carry_every_field(book: &Book, report: &mut Report) {
    for e in &book.entries {
        report.entry(e.id, e.display_name()).carry("every field");
    }
}

/// Reads a v3 `character_book`-shaped object (also used by card formats).
pub fn book_from_object(data: Object, path: &str) -> Result<(Book, Vec<Note>), ImportError> {
    book_from_parts(data, path, None)
}

/// [`book_from_object`], with the entries already read when given.
fn book_from_parts(
    mut data: Object,
    path: &str,
    read: Option<Vec<Entry>>,
) -> Result<(Book, Vec<Note>), ImportError> {
    let mut notes = Vec::new();
    let mut book = Book {
        name: take_string(&mut data, "name", path)?.unwrap_or_default(),
        description: take_string(&mut data, "description", path)?.unwrap_or_default(),
        ..Book::default()
    };
    if let Some(d) = take_u64(&mut data, "scan_depth", path)? {
        book.scan_depth = d.min(u32::MAX as u64) as u32;
    }
    if let Some(b) = take_u64(&mut data, "token_budget", path)? {
        book.token_budget = b.min(u32::MAX as u64) as u32;
    }
    if let Some(r) = take_bool(&mut data, "recursive_scanning", path)? {
        book.recursive_scanning = r;
    }
    book.extensions = take_object(&mut data, "extensions", path)?.unwrap_or_default();
    let entries = match data.remove("entries") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a,
        Some(_) => {
            return Err(ImportError::field(
                format!("{path}.entries"),
                "must be an array",
            ))
        }
    };
    match read {
        Some(read) => book.entries = read,
        None => {
            for (i, raw) in entries.into_iter().enumerate() {
                book.entries.push(entry_at(raw, path, i)?);
            }
        }
    }
    book.extra = data;
    notes.extend(book.clamp_settings().into_iter().map(Note::from));
    notes.extend(fix_ids(&mut book));
    crate::folders::repair(&mut book);
    Ok((book, notes))
}

/// Entry `i` of `path.entries`, which must be an object.
pub(crate) fn entry_at(raw: Value, path: &str, i: usize) -> Result<Entry, ImportError> {
    let epath = format!("{path}.entries[{i}]");
    let Value::Object(obj) = raw else {
        return Err(ImportError::field(epath, "must be an object"));
    };
    entry_from_object(obj, &epath)
}

/// Placeholder for entries whose id was missing; replaced by [`assign_ids`].
pub(crate) const NO_ID: u64 = u64::MAX;

fn entry_from_object(mut obj: Object, path: &str) -> Result<Entry, ImportError> {
    let mut e = Entry {
        // The v3 default: a file without match_whole_words has it off.
        whole_words: false,
        ..Entry::default()
    };
    e.id = match obj.remove("id") {
        None | Some(Value::Null) => NO_ID,
        Some(v) => match usable_id(&v) {
            Some(id) => id,
            None => {
                // An id the editor cannot hold exactly: kept, and written
                // back as the id on export (see `entry_to_object`).
                obj.insert(ORIGINAL_ID.into(), v);
                NO_ID
            }
        },
    };
    e.keys = take_keys(&mut obj, "keys", path)?;
    e.secondary_keys = take_keys(&mut obj, "secondary_keys", path)?;
    e.selective = take_bool(&mut obj, "selective", path)?.unwrap_or(false);
    e.constant = take_bool(&mut obj, "constant", path)?.unwrap_or(false);
    e.enabled = take_bool(&mut obj, "enabled", path)?.unwrap_or(true);
    e.case_sensitive = take_bool(&mut obj, "case_sensitive", path)?.unwrap_or(false);
    e.use_regex = take_bool(&mut obj, "use_regex", path)?.unwrap_or(false);
    e.order = take_i64(&mut obj, "insertion_order", path)?.unwrap_or(e.order);
    e.priority = take_i64(&mut obj, "priority", path)?.unwrap_or(e.priority);
    e.comment = take_string(&mut obj, "comment", path)?.unwrap_or_default();
    e.content = take_string(&mut obj, "content", path)?.unwrap_or_default();
    let mut ext = take_object(&mut obj, "extensions", path)?.unwrap_or_default();
    let xpath = format!("{path}.extensions");
    if let Some(w) = take_bool(&mut ext, "match_whole_words", &xpath)? {
        e.whole_words = w;
    }
    if let Some(role) = take_st_number(&mut ext, "role", Role::from_st) {
        e.role = role;
    }
    if let Some(logic) = take_st_number(&mut ext, "selectiveLogic", SecondaryLogic::from_st) {
        e.secondary_logic = logic;
    }
    if let Some(f) = take_bool(&mut ext, crate::folders::IS_FOLDER, &xpath)? {
        e.folder = f;
    }
    if let Some(p) = ext.get(crate::folders::PARENT).and_then(usable_id) {
        e.parent = Some(p);
        ext.remove(crate::folders::PARENT);
    }
    // The editor's id of an entry written with its source id.
    if e.id == NO_ID && obj.contains_key(ORIGINAL_ID) {
        if let Some(id) = ext.get(EDITOR_ID).and_then(usable_id) {
            e.id = id;
            ext.remove(EDITOR_ID);
        }
    }
    e.extensions = compact(ext);
    e.extra = compact(obj);
    Ok(e)
}

/// `map` without the room its taken fields left: an entry's object read
/// from a file keeps a table sized for all its fields, which a 100,000-entry
/// book would hold 100,000 times (issue 24).
fn compact(map: Object) -> Object {
    if map.is_empty() {
        Object::new()
    } else {
        map.into_iter().collect()
    }
}

/// Takes `ext[key]`, a number SillyTavern writes there, when `from_st`
/// reads it (or it is null). Any other value is not ours to interpret: it
/// stays in extensions.
fn take_st_number<T>(ext: &mut Object, key: &str, from_st: fn(u64) -> Option<T>) -> Option<T> {
    let v = ext.get(key)?;
    let read = v.as_u64().and_then(from_st);
    if read.is_some() || v.is_null() {
        ext.remove(key);
    }
    read
}

/// The field of [`Entry::extra`] holding a source id the editor could not
/// use as its id (see [`usable_id`]); the native export writes it back as
/// the entry's `id`.
pub const ORIGINAL_ID: &str = "original_id";

/// The extension holding the editor's id of an entry written with its
/// source id ([`ORIGINAL_ID`]): read back, the entry gets the same id
/// again, whatever ids its neighbours have (found by fuzzing: an entry
/// with a text id before one without any was given 0 on import and 2 on
/// reading its native file back).
const EDITOR_ID: &str = "lorebook_studio_id";

/// A source id usable as an entry id as it is: an integer from 0 to
/// [`MAX_ID`], as a JSON number or a string of digits. Anything else
/// (above 2^53 − 1, negative, fractional, other text) is not, and the
/// entry gets a fresh id from [`assign_ids`].
pub(crate) fn usable_id(v: &Value) -> Option<u64> {
    let id = match v {
        Value::Number(n) => n.as_u64()?,
        Value::String(s) => s.trim().parse::<u64>().ok()?,
        _ => return None,
    };
    (id <= MAX_ID).then_some(id)
}

/// An entry whose id was missing or repeated, and the id it was given.
pub(crate) struct IdFix {
    /// Position in the book.
    pub index: usize,
    /// The repeated id, or `None` when the entry had no usable id.
    pub old: Option<u64>,
    pub new: u64,
}

/// Gives entries without an id ([`NO_ID`]), or with a repeated one, the next
/// free id; every format's importer uses it and words its own note. Fresh
/// ids count up from one past the largest id in use; past [`MAX_ID`] they
/// take the smallest free ids instead, so nothing wraps or collides.
pub(crate) fn assign_ids(book: &mut Book) -> Vec<IdFix> {
    let mut fixes = Vec::new();
    let mut seen: std::collections::HashSet<u64> = book
        .entries
        .iter()
        .filter(|e| e.id <= MAX_ID)
        .map(|e| e.id)
        .collect();
    let mut next = seen.iter().max().map_or(0, |m| m + 1);
    let mut kept = std::collections::HashSet::new();
    for (index, e) in book.entries.iter_mut().enumerate() {
        if e.id > MAX_ID || !kept.insert(e.id) {
            let new = loop {
                if next > MAX_ID {
                    next = 0;
                }
                let id = next;
                next += 1;
                if !seen.contains(&id) {
                    break id;
                }
            };
            fixes.push(IdFix {
                index,
                old: (e.id <= MAX_ID).then_some(e.id),
                new,
            });
            e.id = new;
            seen.insert(new);
            kept.insert(new);
        }
    }
    fixes
}

fn fix_ids(book: &mut Book) -> Vec<Note> {
    let fixes = assign_ids(book);
    fixes
        .into_iter()
        .map(|f| match f.old {
            Some(old) => Note::IdUsedTwice {
                index: f.index,
                old,
                new: f.new,
            },
            None => match book.entries[f.index].extra.get(ORIGINAL_ID) {
                Some(v) => Note::IdNotWhole {
                    index: f.index,
                    value: v.to_string(),
                    new: f.new,
                },
                None => Note::NoId {
                    index: f.index,
                    new: f.new,
                },
            },
        })
        .collect()
}

/// Serializes a book as the native file.
pub fn to_value(book: &Book) -> Value {
    let mut top = Object::new();
    top.insert("spec".into(), json!(SPEC));
    top.insert("data".into(), Value::Object(book_to_object(book)));
    for (k, v) in &book.wrapper_extra {
        if k != "spec" && k != "data" {
            top.insert(k.clone(), v.clone());
        }
    }
    Value::Object(top)
}

/// The v3 `character_book` object of a book (also used by card formats).
pub fn book_to_object(book: &Book) -> Object {
    let mut data = Object::new();
    data.insert("name".into(), json!(book.name));
    data.insert("description".into(), json!(book.description));
    data.insert("scan_depth".into(), json!(book.scan_depth));
    data.insert("token_budget".into(), json!(book.token_budget));
    data.insert("recursive_scanning".into(), json!(book.recursive_scanning));
    data.insert("extensions".into(), Value::Object(book.extensions.clone()));
    data.insert(
        "entries".into(),
        Value::Array(
            book.entries
                .iter()
                .zip(written_ids(book))
                .map(|(e, id)| Value::Object(entry_to_object(e, id)))
                .collect(),
        ),
    );
    for (k, v) in &book.extra {
        if k != "entries" && !BOOK_FIELDS.contains(&k.as_str()) {
            data.insert(k.clone(), v.clone());
        }
    }
    data
}

/// The `id` each entry is written with: its own, or the source id it was
/// imported with ([`ORIGINAL_ID`]) when no other entry of the book is
/// written with that id (a duplicated entry keeps its fresh id and the
/// field, so ids in the file stay unique; numbers compare by value).
fn written_ids(book: &Book) -> Vec<Value> {
    let numeric = |v: &Value| v.as_f64().map(f64::to_bits);
    let mut taken_num: std::collections::HashSet<u64> = book
        .entries
        .iter()
        .filter(|e| !e.extra.contains_key(ORIGINAL_ID))
        .map(|e| (e.id as f64).to_bits())
        .collect();
    let mut taken_text = std::collections::HashSet::new();
    book.entries
        .iter()
        .map(|e| match e.extra.get(ORIGINAL_ID) {
            Some(v) if !v.is_null() => {
                let free = match (v, numeric(v)) {
                    (_, Some(bits)) => taken_num.insert(bits),
                    (Value::String(s), None) => taken_text.insert(s.clone()),
                    _ => false,
                };
                if free {
                    v.clone()
                } else {
                    json!(e.id)
                }
            }
            _ => json!(e.id),
        })
        .collect()
}

fn entry_to_object(e: &Entry, id: Value) -> Object {
    let mut o = Object::new();
    let restored = id != json!(e.id);
    o.insert("id".into(), id);
    o.insert("keys".into(), json!(e.keys));
    o.insert("secondary_keys".into(), json!(e.secondary_keys));
    o.insert("selective".into(), json!(e.selective));
    o.insert("constant".into(), json!(e.constant));
    o.insert("enabled".into(), json!(e.enabled));
    o.insert("case_sensitive".into(), json!(e.case_sensitive));
    o.insert("use_regex".into(), json!(e.use_regex));
    o.insert("insertion_order".into(), json!(e.order));
    o.insert("priority".into(), json!(e.priority));
    o.insert("comment".into(), json!(e.comment));
    o.insert("content".into(), json!(e.content));
    let mut ext = e.extensions.clone();
    ext.insert("match_whole_words".into(), json!(e.whole_words));
    if e.folder {
        ext.insert(crate::folders::IS_FOLDER.into(), json!(true));
    }
    if let Some(p) = e.parent {
        ext.insert(crate::folders::PARENT.into(), json!(p));
    }
    if restored {
        ext.insert(EDITOR_ID.into(), json!(e.id));
    }
    // A `role` or `selectiveLogic` the reader could not interpret stayed in
    // the extensions and the entry got the default; it is written back as
    // it was while the entry keeps that default, so a save and load keeps
    // the book (found by fuzzing, docs/fuzzing.md). A role or logic set
    // since then replaces it.
    let defaults = Entry::default();
    let foreign = |key: &str, ours: fn(u64) -> bool| {
        ext.get(key)
            .is_some_and(|v| !v.is_null() && !v.as_u64().is_some_and(ours))
    };
    let keep_role = e.role == defaults.role && foreign("role", |n| Role::from_st(n).is_some());
    let keep_logic = e.secondary_logic == defaults.secondary_logic
        && foreign("selectiveLogic", |n| SecondaryLogic::from_st(n).is_some());
    if !keep_role {
        ext.insert("role".into(), json!(e.role.to_st()));
    }
    if !keep_logic {
        ext.insert("selectiveLogic".into(), json!(e.secondary_logic.to_st()));
    }
    o.insert("extensions".into(), Value::Object(ext));
    for (k, v) in &e.extra {
        let ours = ENTRY_FIELDS.contains(&k.as_str()) || (restored && k == ORIGINAL_ID);
        if !ours {
            o.insert(k.clone(), v.clone());
        }
    }
    o
}

/// Serializes a book as pretty-printed native JSON bytes.
pub fn to_bytes(book: &Book) -> Vec<u8> {
    to_pretty(&to_value(book))
}

/// Saves atomically, keeping the file it replaces as `NAME.bak`
/// ([`crate::io::write_with_backup`]).
pub fn save(book: &Book, path: &std::path::Path) -> std::io::Result<()> {
    super::write_with_backup(path, &to_bytes(book))
}

#[cfg(test)]
#[path = "native_tests.rs"]
mod tests;
