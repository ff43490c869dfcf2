//! Reading a native file without holding it twice: `data.entries` is read
//! one entry at a time, each turned into an [`Entry`] as soon as it is
//! parsed, so the 10,000 or 100,000 entries of a big book never exist as a
//! tree of JSON values all at once (issue 24: the tree took four times the
//! file's size and most of a cold `lorebook preview`'s time).
//!
//! Everything else of the file is read as JSON values, exactly as
//! [`super::convert::import`] reads it, with an empty array standing in for
//! the entries; detection and [`super::native::from_value_with`] then see
//! the same document. A document with no `data.entries` is the ordinary
//! reading's document itself, so it is imported from here whatever its
//! format (a JSON file is parsed once). The rest answers `None`, and the
//! caller reads the file the ordinary way, which gives the same book or
//! the same error as ever: a file that is not UTF-8 or not well-formed, a
//! duplicate `spec`, an entry that is not an object or has a bad field,
//! or streamed entries in a file that turns out not to be native.

use std::fmt;

use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::convert::{detect_value, import_value, Imported};
use super::error::ImportError;
use super::format::Format;
use super::json::{count_json_values, MAX_JSON_VALUES};
use super::native::{entry_at, import_value_with};
use super::report::{Direction, Report};
use crate::model::{Entry, Object};

/// The book in `bytes` read with a native file's entries streamed, or
/// `None` when the ordinary reading must answer (see the module header).
pub(crate) fn import(bytes: &[u8]) -> Option<Result<Imported, ImportError>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if count_json_values(text, MAX_JSON_VALUES) > MAX_JSON_VALUES {
        return None;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let (top, entries) = Top.deserialize(&mut de).ok()?;
    de.end().ok()?;
    let top = Value::Object(top);
    let Some(entries) = entries else {
        // Nothing was streamed: this is the ordinary reading's document.
        return Some(import_value(top));
    };
    if detect_value(&top).ok()? != Format::Native {
        return None;
    }
    let mut report = Report::new(Direction::Import, Format::Native.name());
    let book = import_value_with(top, Some(entries), &mut report).ok()?;
    Some(Ok(Imported {
        format: Format::Native,
        book,
        report,
    }))
}

/// The top-level object: its fields as values, `data` through [`Data`].
struct Top;

impl<'de> DeserializeSeed<'de> for Top {
    type Value = (Object, Option<Vec<Entry>>);

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Top {
    type Value = (Object, Option<Vec<Entry>>);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut top = Object::new();
        let mut entries = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                // A second `spec` could change what the file is; the
                // ordinary reading decides that.
                "spec" if top.contains_key("spec") => {
                    return Err(A::Error::custom("spec given twice"))
                }
                "data" => {
                    let (data, read) = map.next_value_seed(Data)?;
                    entries = read;
                    top.insert(key, data);
                }
                _ => {
                    let value: Value = map.next_value()?;
                    top.insert(key, value);
                }
            }
        }
        Ok((top, entries))
    }
}

/// The `data` field: an object's fields as values, `entries` read one by
/// one with an empty array left in their place; any other value (RisuAI's
/// `data` is an array) as it is.
struct Data;

impl<'de> DeserializeSeed<'de> for Data {
    type Value = (Value, Option<Vec<Entry>>);

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Data {
    type Value = (Value, Option<Vec<Entry>>);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut data = Object::new();
        let mut entries = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "entries" {
                entries = Some(map.next_value_seed(Entries)?);
                data.insert(key, Value::Array(Vec::new()));
            } else {
                let value: Value = map.next_value()?;
                data.insert(key, value);
            }
        }
        Ok((Value::Object(data), entries))
    }

    // Any other value, as serde_json's own `Value` reads it.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element::<Value>()? {
            items.push(v);
        }
        Ok((Value::Array(items), None))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok((Value::String(v.to_string()), None))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok((Value::Bool(v), None))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok((Value::from(v), None))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok((Value::from(v), None))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok((Value::from(v), None))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok((Value::Null, None))
    }
}

/// The `entries` array, each element read into an [`Entry`] as it comes.
struct Entries;

impl<'de> DeserializeSeed<'de> for Entries {
    type Value = Vec<Entry>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Entries {
    type Value = Vec<Entry>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of entries")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(raw) = seq.next_element::<Value>()? {
            let entry = entry_at(raw, "data", entries.len())
                .map_err(|e| A::Error::custom(e.to_string()))?;
            entries.push(entry);
        }
        Ok(entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The streamed reading answers for a native file (the sample, the
    /// all-fields fixture), with the book and report of the ordinary one.
    #[test]
    fn a_native_file_is_read_streamed_and_alike() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for rel in [
            "../../samples/saltmere.json",
            "tests/fixtures/formats/lorebook_v3_all_fields.json",
        ] {
            let bytes = std::fs::read(root.join(rel)).unwrap();
            let streamed = import(&bytes)
                .unwrap_or_else(|| panic!("{rel} streamed"))
                .unwrap();
            let value = crate::formats::json::parse_json(&bytes).unwrap();
            let ordinary = crate::formats::convert::import_value(value).unwrap();
            assert_eq!(streamed, ordinary, "{rel}");
        }
    }

    /// What it leaves to the ordinary reading, and a file of another
    /// format read from the one parse, alike.
    #[test]
    fn what_is_left_to_the_ordinary_reading_and_other_formats_read_once() {
        for text in [
            r#"{"spec":"lorebook_v3","spec":"lorebook_v3","data":{"entries":[]}}"#,
            r#"{"spec":"lorebook_v3","data":{"entries":[1]}}"#,
            r#"{"spec":"lorebook_v3","data":{"entries":[{"keys":7}]}}"#,
            r#"{"spec":"lorebook_v3","data":{"entries":[]}"#,
            r#"{"spec":"chara_card_v3","data":{"entries":[{"id":1}]}}"#,
            r#"[1, 2]"#,
        ] {
            assert!(import(text.as_bytes()).is_none(), "{text}");
        }
        for text in [
            r#"{"entries":{"0":{"key":["a"],"content":"x"}}}"#,
            r#"{"spec":"chara_card_v3","data":{"name":"c","character_book":{"entries":[]}}}"#,
            r#"{"type":"risu","ver":1,"data":[{"key":"a","content":"x","mode":"normal","insertorder":100,"alwaysActive":false}]}"#,
            r#"{"spec":"lorebook_v3","data":{"name":"no entries","n":1.5,"t":true,"z":null}}"#,
        ] {
            let value = crate::formats::json::parse_json(text.as_bytes()).unwrap();
            let ordinary = crate::formats::convert::import_value(value);
            let streamed = import(text.as_bytes()).unwrap_or_else(|| panic!("{text}"));
            match (streamed, ordinary) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text}"),
                (a, b) => panic!("{text}: {a:?} / {b:?}"),
            }
        }
    }
}
