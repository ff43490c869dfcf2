//! Source spellings of mapped fields, so a round trip gives the file back.
//!
//! An importer maps a foreign field to the model (`matchWholeWords: null`
//! becomes `whole_words: true`); the exporter writes the model back
//! (`matchWholeWords: true`). Both spellings mean the same, but the file
//! would change. So, at import time, the importer exports the freshly read
//! entry once and records every place where that output differs from the
//! source: the source value (`was`, absent if the source had no such field)
//! and the value the exporter writes (`as`). On export, a recorded place
//! whose current output still equals `as` gets `was` back; a place the
//! author changed since no longer equals `as`, so the change wins.
//!
//! The records live in the `extensions` of the entry (or of the book) under
//! `"lorebook_studio"`, one object per source format:
//!
//! ```json
//! {"lorebook_studio": {"sillytavern": {"/matchWholeWords": {"was": null, "as": true}}}}
//! ```
//!
//! Keys are JSON pointers into the exported object. Nothing is recorded
//! when import and export agree, which is the common case.

use serde_json::Value;

use crate::model::Object;

/// The extensions key holding the records of every source format.
pub const KEY: &str = crate::model::STUDIO_KEY;

/// How deep [`diff`] descends into nested objects.
const MAX_DEPTH: usize = 4;

/// The places where `emitted` differs from `source`.
pub(crate) fn diff(source: &Object, emitted: &Object) -> Object {
    let mut out = Object::new();
    let mut path = String::new();
    diff_into(&mut path, source, emitted, &mut out, 0);
    out
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

fn diff_into(path: &mut String, s: &Object, e: &Object, out: &mut Object, depth: usize) {
    let keys: Vec<&String> = s
        .keys()
        .chain(e.keys().filter(|k| !s.contains_key(*k)))
        .collect();
    for k in keys {
        let (sv, ev) = (s.get(k), e.get(k));
        if sv == ev {
            continue;
        }
        let len = path.len();
        path.push('/');
        path.push_str(&escape(k));
        match (sv, ev) {
            (Some(Value::Object(so)), Some(Value::Object(eo))) if depth < MAX_DEPTH => {
                diff_into(path, so, eo, out, depth + 1)
            }
            _ => {
                let mut rec = Object::new();
                if let Some(v) = sv {
                    rec.insert("was".into(), v.clone());
                }
                if let Some(v) = ev {
                    rec.insert("as".into(), v.clone());
                }
                out.insert(path.clone(), Value::Object(rec));
            }
        }
        path.truncate(len);
    }
}

/// Puts the source spellings back into `out` where the output is unchanged.
pub(crate) fn restore(out: &mut Object, records: &Object) {
    restore_each(out, records, |_, _| {});
}

/// What became of one record on export.
enum Outcome<'a> {
    /// The source's value was written where the model's would have gone.
    Restored { was: &'a Value, shown: &'a Value },
    /// The model's value changed since import: it is written, and the
    /// source's spelling (which it replaced) is dropped.
    Replaced { was: &'a Value },
}

/// [`restore`], calling `seen` with each record's pointer and outcome.
fn restore_each<'a>(
    out: &mut Object,
    records: &'a Object,
    mut seen: impl FnMut(&str, Outcome<'a>),
) {
    for (pointer, rec) in records {
        let Value::Object(rec) = rec else { continue };
        let segments: Vec<String> = pointer.split('/').skip(1).map(unescape).collect();
        let Some((last, parents)) = segments.split_last() else {
            continue;
        };
        let Some(target) = object_at(out, parents) else {
            continue;
        };
        if target.get(last) != rec.get("as") {
            if let Some(was) = rec.get("was") {
                seen(pointer, Outcome::Replaced { was });
            }
            continue;
        }
        match rec.get("was") {
            Some(v) => {
                target.insert(last.clone(), v.clone());
                if let Some(shown) = rec.get("as") {
                    seen(pointer, Outcome::Restored { was: v, shown });
                }
            }
            None => {
                target.remove(last);
            }
        }
    }
}

/// [`restore_from`] for an entry, saying in its export report section
/// where the file gets text other than what the editor shows: each place
/// written as the source spelled it (`approximated`: the editor shows the
/// model's value, the file the source's), and each place where the
/// author's edit replaced the source's spelling (`carried`). A place the
/// source did not have and the export leaves out is not reported: the
/// reader's default is what the editor shows.
pub(crate) fn restore_reported(
    out: &mut Object,
    extensions: &Object,
    source: &str,
    sec: &mut super::report::Section,
) {
    let Some(Value::Object(records)) = extensions
        .get(KEY)
        .and_then(Value::as_object)
        .and_then(|o| o.get(source))
    else {
        return;
    };
    restore_each(out, records, |pointer, outcome| {
        let field: Vec<String> = pointer.split('/').skip(1).map(unescape).collect();
        let field = field.join(".");
        match outcome {
            Outcome::Restored { was, shown } => sec.approx(
                field,
                super::note::Note::SourceSpelling {
                    was: was.to_string(),
                    shown: shown.to_string(),
                },
            ),
            Outcome::Replaced { was } => sec.carry(format!(
                "{field} (your edit replaces the source file's {was})"
            )),
        }
    });
}

fn object_at<'a>(mut target: &'a mut Object, path: &[String]) -> Option<&'a mut Object> {
    for p in path {
        match target.get_mut(p) {
            Some(Value::Object(o)) => target = o,
            _ => return None,
        }
    }
    Some(target)
}

/// Whether the `source` file left the field at `pointer` unset (absent or
/// null) and the model still shows `shown`, the value its importer chose
/// for it: the author has not decided it since.
pub fn left_unset(extensions: &Object, source: &str, pointer: &str, shown: &Value) -> bool {
    extensions
        .get(KEY)
        .and_then(|o| o.get(source))
        .and_then(|o| o.get(pointer))
        .and_then(Value::as_object)
        .is_some_and(|rec| {
            matches!(rec.get("was"), None | Some(Value::Null)) && rec.get("as") == Some(shown)
        })
}

/// Stores the records of `source` in `extensions` (nothing when empty).
pub(crate) fn store(extensions: &mut Object, source: &str, records: Object) {
    if records.is_empty() {
        return;
    }
    let slot = extensions
        .entry(KEY.to_string())
        .or_insert_with(|| Value::Object(Object::new()));
    if !slot.is_object() {
        // Someone else's value under our key: keep it beside the records.
        let old = std::mem::replace(slot, Value::Object(Object::new()));
        if let Value::Object(o) = slot {
            o.insert("previous".into(), old);
        }
    }
    if let Value::Object(o) = slot {
        o.insert(source.to_string(), Value::Object(records));
    }
}

/// Applies the records of `source` kept in `extensions` to `out`, on export:
/// the source's exact spellings come back where the field is unchanged.
/// Reads in place, so exporting never copies an entry's extensions.
pub(crate) fn restore_from(out: &mut Object, extensions: &Object, source: &str) {
    if let Some(Value::Object(records)) = extensions
        .get(KEY)
        .and_then(Value::as_object)
        .and_then(|o| o.get(source))
    {
        restore(out, records);
    }
}

/// Removes and returns the records of `source` from `extensions`; drops the
/// key when nothing else is left under it.
pub(crate) fn take(extensions: &mut Object, source: &str) -> Object {
    let mut records = Object::new();
    if let Some(Value::Object(o)) = extensions.get_mut(KEY) {
        if let Some(Value::Object(r)) = o.remove(source) {
            records = r;
        }
        if o.is_empty() {
            extensions.remove(KEY);
        }
    }
    records
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Object {
        match v {
            Value::Object(o) => o,
            _ => unreachable!(),
        }
    }

    #[test]
    fn unchanged_output_gets_the_source_back() {
        let source = obj(json!({"a": null, "n": {"x": 1, "y/z": 2}, "keep": 1}));
        let emitted = obj(json!({"a": true, "n": {"x": 1, "y/z": 3}, "keep": 1, "new": 0}));
        let records = diff(&source, &emitted);
        assert_eq!(records.len(), 3, "{records:?}");
        let mut out = emitted.clone();
        restore(&mut out, &records);
        assert_eq!(out, source);
    }

    #[test]
    fn edited_output_wins() {
        let source = obj(json!({"a": null}));
        let emitted = obj(json!({"a": true}));
        let records = diff(&source, &emitted);
        let mut out = obj(json!({"a": false}));
        restore(&mut out, &records);
        assert_eq!(out, obj(json!({"a": false})));
    }

    #[test]
    fn the_report_says_where_the_file_differs_from_the_editor() {
        let source = obj(json!({"w": null, "c": "old", "gone": 1}));
        let emitted = obj(json!({"w": true, "c": "old text", "new": 0}));
        let mut ext = Object::new();
        store(&mut ext, "st", diff(&source, &emitted));
        // Unchanged: the source's spelling comes back, and the report says
        // the file differs from the editor there.
        let mut sec = crate::formats::report::Section::default();
        let mut out = emitted.clone();
        restore_reported(&mut out, &ext, "st", &mut sec);
        assert_eq!(out, obj(json!({"w": null, "c": "old", "gone": 1})));
        let notes: Vec<String> = sec
            .approximated
            .iter()
            .map(|n| format!("{}: {}", n.field, n.note))
            .collect();
        assert_eq!(
            notes,
            [
                "w: written as the source file had it, null, where the editor shows true",
                "c: written as the source file had it, \"old\", where the editor shows \"old text\"",
            ]
        );
        // Edited: the edit is written and the report says which spelling
        // it replaced.
        let mut sec = crate::formats::report::Section::default();
        let mut out = obj(json!({"w": false, "c": "edited", "new": 0}));
        restore_reported(&mut out, &ext, "st", &mut sec);
        assert_eq!(out, obj(json!({"w": false, "c": "edited", "gone": 1})));
        assert!(sec.approximated.is_empty());
        assert_eq!(
            sec.carried,
            [
                "w (your edit replaces the source file's null)",
                "c (your edit replaces the source file's \"old\")",
            ]
        );
    }

    #[test]
    fn store_and_take() {
        let mut ext = Object::new();
        store(&mut ext, "risu", Object::new());
        assert!(ext.is_empty());
        store(&mut ext, "risu", obj(json!({"/a": {"as": 1}})));
        store(&mut ext, "card", obj(json!({"/b": {"as": 1}})));
        assert_eq!(take(&mut ext, "risu").len(), 1);
        assert!(ext.contains_key(KEY));
        assert_eq!(take(&mut ext, "card").len(), 1);
        assert!(ext.is_empty());
    }
}
