//! Reading a native file without holding it twice: `data.entries` is read
//! one entry at a time, each turned into an [`Entry`] as soon as it is
//! parsed, so the 10,000 or 100,000 entries of a big book never exist as a
//! tree of JSON values all at once (issue 24: the tree took four times the
//! file's size and most of a cold `lorebook preview`'s time).
//!
//! Everything else of the file is read as JSON values, exactly as
//! the ordinary reading reads it, with an empty array standing in for
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

use super::json::{count_json_values, MAX_JSON_VALUES};
use super::native::entry_at;
use crate::model::{Entry, Object};

/// What a JSON file holds, read once: its top-level object with an empty
/// array standing in for `data.entries`, and those entries read one at a
/// time (`None` when the file has no `data.entries`). `None` altogether
/// when the ordinary reading must answer (see the module header); the
/// caller decides what the document is ([`super::convert::import`]).
pub(crate) fn read(bytes: &[u8]) -> Option<(Value, Option<Vec<Entry>>)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if count_json_values(text, MAX_JSON_VALUES) > MAX_JSON_VALUES {
        return None;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let (top, entries) = Top.deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some((Value::Object(top), entries))
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
