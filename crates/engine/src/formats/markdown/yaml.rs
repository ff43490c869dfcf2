//! The layout's YAML (`book.yaml` and each entry's front matter), read
//! under the same value cap as a JSON book ([`MAX_JSON_VALUES`]).
//!
//! YAML can say much in little: an alias (`*a`) repeats the node its
//! anchor (`&a`) names, so 100 KiB of nested aliases describe billions of
//! values, and every flow bracket (`[]`) is a value of its own. A text is
//! therefore read in three steps, each bounded by the one before:
//!
//! 1. an upper bound on the parser's events, counted over the bytes
//!    without parsing ([`event_bound`]); more than the cap is refused
//!    before the parser keeps a single event;
//! 2. a pass that builds nothing and counts every value and every byte of
//!    text the document expands to, aliases counted as what they repeat,
//!    stopping at the cap ([`Counted`]);
//! 3. only then the values themselves.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::formats::json::MAX_JSON_VALUES;

/// The most text (bytes of keys and scalars) a document may expand to
/// through its aliases: as much as the largest file the layout reads.
pub(crate) const MAX_EXPANDED_BYTES: usize = super::MAX_FILE_BYTES as usize;

/// An upper bound on the YAML events of `text`: every flow or block
/// indicator (`[ ] { } , : - ? * & !`) and every run of other visible
/// characters can start at most one node and one implied empty node.
pub(crate) fn event_bound(text: &str) -> usize {
    let mut count = 0usize;
    let mut in_run = false;
    for &b in text.as_bytes() {
        match b {
            b'[' | b']' | b'{' | b'}' | b',' | b':' | b'-' | b'?' | b'*' | b'&' | b'!' => {
                count += 1;
                in_run = false;
            }
            b' ' | b'\t' | b'\n' | b'\r' => in_run = false,
            _ => {
                if !in_run {
                    count += 1;
                }
                in_run = true;
            }
        }
    }
    count.saturating_mul(2).saturating_add(4)
}

/// The refusal of a document over the cap, in words.
fn too_large() -> String {
    format!(
        "the YAML holds or repeats through its aliases more than {MAX_JSON_VALUES} values \
         or {} MiB of text; such files are refused",
        MAX_EXPANDED_BYTES >> 20
    )
}

/// Parses `text` as one YAML document into JSON values, refusing any
/// document over the cap (see the module header).
pub(crate) fn parse(text: &str) -> Result<Value, String> {
    if event_bound(text) > MAX_JSON_VALUES {
        return Err(too_large());
    }
    let mut budget = Budget {
        values: MAX_JSON_VALUES,
        bytes: MAX_EXPANDED_BYTES,
        over: false,
    };
    let counted = Counted(&mut budget).deserialize(serde_norway::Deserializer::from_str(text));
    // serde_norway stops a document whose aliases repeat more than a
    // hundred times its own events, before the cap may: the same refusal.
    if budget.over
        || counted
            .as_ref()
            .is_err_and(|e| e.to_string().contains("repetition limit"))
    {
        return Err(too_large());
    }
    counted.map_err(|e| format!("the YAML does not read: {e}"))?;
    serde_norway::from_str::<Value>(text).map_err(|e| format!("the YAML does not read: {e}"))
}

/// What is left to spend of the cap.
struct Budget {
    values: usize,
    bytes: usize,
    over: bool,
}

impl Budget {
    fn spend<E: de::Error>(&mut self, bytes: usize) -> Result<(), E> {
        if self.values == 0 || self.bytes < bytes {
            self.over = true;
            return Err(E::custom("over the cap"));
        }
        self.values -= 1;
        self.bytes -= bytes;
        Ok(())
    }
}

/// Visits a whole document, building nothing, spending the budget on
/// every value and every byte of text.
struct Counted<'a>(&'a mut Budget);

impl<'de> DeserializeSeed<'de> for Counted<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Counted<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.0.spend(0)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.0.spend(0)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.0.spend(0)
    }
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        self.0.spend(0)
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        self.0.spend(0)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.0.spend(0)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.spend(v.len())
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<(), E> {
        self.0.spend(v.len())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.spend(0)
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.0.spend(0)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.spend::<A::Error>(0)?;
        while seq.next_element_seed(Counted(&mut *self.0))?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.0.spend::<A::Error>(0)?;
        while map.next_key_seed(Counted(&mut *self.0))?.is_some() {
            map.next_value_seed(Counted(&mut *self.0))?;
        }
        Ok(())
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        // A tagged value (`!tag x`): refused, as the values read below
        // refuse it. (Returning without reading it would leave the parser
        // on the same event, and a map would read it again for ever.)
        Err(de::Error::custom(
            "invalid type: a tagged value (`!tag`), expected any valid JSON value",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_documents_read_as_json_values() {
        let v = parse("id: 1\nkeys:\n- a\n- 'b, c'\nx: {y: [1, 2]}\n").unwrap();
        assert_eq!(
            v,
            serde_json::json!({"id": 1, "keys": ["a", "b, c"], "x": {"y": [1, 2]}})
        );
        assert_eq!(
            parse("a: &x [1, 2]\nb: *x\n").unwrap()["b"],
            serde_json::json!([1, 2])
        );
    }

    /// Found by the `markdown_folder` fuzz target: a tagged value in a map
    /// made the counting pass read the same event for ever.
    #[test]
    fn a_tagged_value_is_refused_at_once() {
        let err = parse("name: !-? outside\n").unwrap_err();
        assert!(err.contains("tagged"), "{err}");
        assert!(parse("a: !!str x\nb: [!t y]\n").is_err());
    }

    #[test]
    fn the_event_bound_is_above_the_events() {
        // Each of these has fewer events than its bound.
        for (text, events) in [("[]", 4), ("a: b", 6), ("- \n- \n", 6), ("{a, b: }", 10)] {
            assert!(event_bound(text) >= events, "{text}");
        }
    }

    #[test]
    fn a_flood_of_brackets_is_refused_before_parsing() {
        let text = format!("x: [{}]", "[],".repeat(MAX_JSON_VALUES / 4));
        let start = std::time::Instant::now();
        let err = parse(&text).unwrap_err();
        assert!(err.contains("more than"), "{err}");
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn aliases_count_as_what_they_repeat() {
        // Nine levels of ten aliases each: a billion values in 600 bytes.
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let start = std::time::Instant::now();
        let err = parse(&text).unwrap_err();
        assert!(err.contains("aliases"), "{err}");
        assert!(start.elapsed() < std::time::Duration::from_secs(10));
        // A long text repeated: the bytes are counted too.
        let long = "y".repeat(1 << 20);
        let mut text = format!("s: &s {long}\nl: [");
        text.push_str(&"*s, ".repeat(100));
        text.push_str("*s]\n");
        assert!(parse(&text).unwrap_err().contains("MiB of text"));
    }
}
