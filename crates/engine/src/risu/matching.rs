//! RisuAI's key search (the `searchMatch` closure of RisuAI 460ecae's
//! `loadLoreBookV3Prompt`), in our own words (docs/risu-rules.md,
//! "Matching"):
//!
//! - a text is lowercased and its `{{// …}}` and `{{comment:…}}` spans
//!   (one line, at least one character inside) are removed;
//! - partial mode (the default): every U+0020 space is removed from the
//!   text and the key; the key matches when it is then a substring;
//! - full-word mode: the text is split on single U+0020 spaces and the
//!   lowercased key must equal one of the pieces;
//! - regex mode (`useRegex`): [`regex_search`], with RisuAI's quirks.
//!
//! The keys of every entry are interned once in a [`KeyTable`]: one
//! Aho-Corasick automaton finds the partial-mode keys of a text, a hash
//! map the full-word ones, so a request looks keys up instead of
//! searching each text once per key.

use std::collections::HashMap;

use aho_corasick::AhoCorasick;

use super::decorators::js_trim;
use crate::sillytavern::matching::RegexKey;

/// Removes the spans that start with `open` and end at the first `}}`
/// after at least one more character, on one line (RisuAI's comment
/// stripping, applied once per kind).
fn strip_spans(text: &str, open: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(open) {
        let inside = &rest[at + open.len()..];
        let mut chars = inside.chars();
        let end = match chars.next() {
            Some(c) if c != '\n' => {
                let after_first = &inside[c.len_utf8()..];
                let line_end = after_first.find('\n').unwrap_or(after_first.len());
                after_first[..line_end]
                    .find("}}")
                    .map(|close| at + open.len() + c.len_utf8() + close + 2)
            }
            _ => None,
        };
        match end {
            Some(end) => {
                out.push_str(&rest[..at]);
                rest = &rest[end..];
            }
            None => {
                // No span starts here; the next one may start one byte on.
                let step = at + rest[at..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&rest[..step]);
                rest = &rest[step..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A text as RisuAI's plain search sees it: lowercased, comments removed.
pub fn prepare(text: &str) -> String {
    let lowered = text.to_lowercase();
    let once = strip_spans(&lowered, "{{//");
    strip_spans(&once, "{{comment:")
}

/// A key's ids in the [`KeyTable`]: as a partial-mode needle and as a
/// full-word piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyIds {
    pub partial: u32,
    pub full: u32,
}

/// The keys of one query: as written (trimmed, empty ones left out) and
/// their ids.
#[derive(Debug, Clone, Default)]
pub struct QueryKeys {
    pub raw: Vec<String>,
    pub ids: Vec<KeyIds>,
}

/// Every key of a preview, interned.
#[derive(Default)]
pub struct KeyTable {
    partial: HashMap<String, u32>,
    full: HashMap<String, u32>,
    needles: Vec<String>,
    automaton: Option<AhoCorasick>,
}

/// The keys found in one text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hits {
    /// Partial-mode key ids, sorted.
    pub partial: Vec<u32>,
    /// Full-word key ids, sorted.
    pub full: Vec<u32>,
}

impl Hits {
    pub fn has(&self, id: KeyIds, full_word: bool) -> bool {
        if full_word {
            self.full.binary_search(&id.full).is_ok()
        } else {
            self.partial.binary_search(&id.partial).is_ok()
        }
    }
}

impl KeyTable {
    /// The keys of a comma-separated list or of decorator arguments.
    pub fn query<'k>(&mut self, keys: impl IntoIterator<Item = &'k str>) -> QueryKeys {
        let mut q = QueryKeys::default();
        for k in keys {
            let k = js_trim(k);
            if k.is_empty() {
                continue;
            }
            let lowered = k.to_lowercase();
            let needle = lowered.replace(' ', "");

            let next = self.needles.len() as u32;
            let partial = *self.partial.entry(needle.clone()).or_insert_with(|| {
                self.needles.push(needle);
                next
            });
            let next = self.full.len() as u32;
            let full = *self.full.entry(lowered).or_insert(next);
            q.raw.push(k.to_string());
            q.ids.push(KeyIds { partial, full });
        }
        q
    }

    /// The keys of a list when every one is already in the table (a
    /// finished table's automaton cannot take more); `None` otherwise.
    pub fn lookup<'k>(&self, keys: impl IntoIterator<Item = &'k str>) -> Option<QueryKeys> {
        let mut q = QueryKeys::default();
        for k in keys {
            let k = js_trim(k);
            if k.is_empty() {
                continue;
            }
            let lowered = k.to_lowercase();
            let partial = *self.partial.get(&lowered.replace(' ', ""))?;
            let full = *self.full.get(&lowered)?;
            q.raw.push(k.to_string());
            q.ids.push(KeyIds { partial, full });
        }
        Some(q)
    }

    /// Builds the automaton once every key is in.
    pub fn finish(&mut self) {
        let needles: Vec<&str> = self
            .needles
            .iter()
            .map(String::as_str)
            .filter(|n| !n.is_empty())
            .collect();
        self.automaton = if needles.len() == self.needles.len() && !needles.is_empty() {
            AhoCorasick::new(&self.needles).ok()
        } else {
            None
        };
    }

    /// The keys found in `text` (a message or a recursive text).
    pub fn hits(&self, text: &str) -> Hits {
        let prepared = prepare(text);
        let squeezed = prepared.replace(' ', "");
        let mut partial: Vec<u32> = match &self.automaton {
            Some(ac) => ac
                .find_overlapping_iter(&squeezed)
                .map(|m| m.pattern().as_u32())
                .collect(),
            None => self
                .needles
                .iter()
                .enumerate()
                .filter(|(_, n)| squeezed.contains(n.as_str()))
                .map(|(i, _)| i as u32)
                .collect(),
        };
        partial.sort_unstable();
        partial.dedup();
        let mut full: Vec<u32> = prepared
            .split(' ')
            .filter_map(|piece| self.full.get(piece).copied())
            .collect();
        full.sort_unstable();
        full.dedup();
        Hits { partial, full }
    }
}

/// How a regex-mode search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RegexEnd {
    Matched {
        text: usize,
    },
    /// No key matched any text.
    NoMatch,
    /// A key did not start with `/`: RisuAI gives up on the whole search.
    NoSlash,
    /// A key's pattern or flags did not compile: RisuAI gives up.
    Invalid,
}

/// How RisuAI 460ecae reads one regex key (docs/risu-rules.md §1.4): the
/// one reading of it, which the search below and the lint
/// (`lint::risu`) both use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RegexRead {
    /// No leading slash: the whole search stops at it.
    NoSlash,
    /// Nothing after the last slash: never tested.
    NoFlags,
    /// The pattern RisuAI compiles (the first "slash and flags" cut out,
    /// the opening slash kept) and its flags.
    Pattern { pattern: String, flags: String },
}

/// Reads `key` as RisuAI's search does, as it is (no trimming).
pub(crate) fn read_regex_key(key: &str) -> RegexRead {
    if !key.starts_with('/') {
        return RegexRead::NoSlash;
    }
    let last = key.rfind('/').unwrap_or(0);
    let flags = &key[last + 1..];
    if flags.is_empty() {
        return RegexRead::NoFlags;
    }
    RegexRead::Pattern {
        pattern: key.replacen(&format!("/{flags}"), "", 1),
        flags: flags.to_string(),
    }
}

/// RisuAI 460ecae's regex-key search, quirks included: for each text in
/// turn, each key in turn is read as it is now; a key without a leading
/// `/` ends the search with no match; a key whose part after its last `/`
/// is empty (no flags) is skipped; otherwise the first occurrence of `/`
/// followed by those flags is cut out of it, the result is stored in the
/// list's *first* slot, compiled with those flags and tested (a compile
/// error ends the search with no match). The opening slash stays in the
/// pattern, and the rewritten first slot is what the next text reads.
pub fn regex_search<'t>(keys: &[String], texts: impl IntoIterator<Item = &'t str>) -> RegexEnd {
    let mut list: Vec<String> = keys.to_vec();
    for (t, text) in texts.into_iter().enumerate() {
        let mut units: Option<Vec<u16>> = None;
        for j in 0..list.len() {
            let (pattern, flags) = match read_regex_key(&list[j]) {
                RegexRead::NoSlash => return RegexEnd::NoSlash,
                RegexRead::NoFlags => continue,
                RegexRead::Pattern { pattern, flags } => (pattern, flags),
            };
            let Some(regex) = RegexKey::from_js(&pattern, &flags) else {
                list[0] = pattern;
                return RegexEnd::Invalid;
            };
            list[0] = pattern;
            let units = units.get_or_insert_with(|| text.encode_utf16().collect());
            // A search that runs out of steps counts as no match.
            if regex.test(units) == Ok(true) {
                return RegexEnd::Matched { text: t };
            }
        }
    }
    RegexEnd::NoMatch
}

#[cfg(test)]
mod tests {
    use super::*;

    /// searchMatch: comments are removed before plain matching.
    #[test]
    fn search_match_strips_comments() {
        assert_eq!(prepare("Hello {{// Secret}} World"), "hello  world");
        assert_eq!(prepare("{{comment:secret}}x"), "x");
        assert_eq!(prepare("{{//}} a"), "{{//}} a");
        assert_eq!(prepare("{{//}}} a"), " a");
        assert_eq!(prepare("{{// a\nb}} c"), "{{// a\nb}} c");
    }

    /// searchMatch: partial mode ignores spaces; full-word splits on spaces.
    #[test]
    fn search_match_partial_and_full() {
        let mut t = KeyTable::default();
        let q = t.query(["Dark Lord", "cat"]);
        t.finish();
        let h = t.hits("the DARKLORD rises in concatenate");
        assert!(h.has(q.ids[0], false) && h.has(q.ids[1], false));
        assert!(!h.has(q.ids[1], true));
        let h = t.hits("a cat, sat\ncat");
        assert!(!h.has(q.ids[1], true));
        assert!(t.hits("a cat sat").has(q.ids[1], true));
    }

    /// searchMatch, regex branch: the opening slash stays in the pattern,
    /// flagless keys are never tested, the first slot is overwritten.
    #[test]
    fn search_match_regex_quirks() {
        let k = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            regex_search(&k(&["/dragon/i"]), ["a dragon"]),
            RegexEnd::NoMatch
        );
        assert_eq!(
            regex_search(&k(&["/dragon/i"]), ["a /Dragon"]),
            RegexEnd::Matched { text: 0 }
        );
        assert_eq!(
            regex_search(&k(&["/ice/i"]), ["ce/I"]),
            RegexEnd::Matched { text: 0 }
        );
        assert_eq!(
            regex_search(&k(&["/dragon/"]), ["/dragon"]),
            RegexEnd::NoMatch
        );
        assert_eq!(regex_search(&k(&["dragon"]), ["dragon"]), RegexEnd::NoSlash);
        assert_eq!(
            regex_search(&k(&["/dragon/i"]), ["x", "/dragon"]),
            RegexEnd::Invalid
        );
        assert_eq!(
            regex_search(&k(&["/ms/i"]), ["x", "y"]),
            RegexEnd::Matched { text: 1 }
        );
        assert_eq!(
            regex_search(&k(&["/dragon/y"]), ["x /dragon"]),
            RegexEnd::NoMatch
        );
        assert_eq!(
            regex_search(&k(&["/dragon/y"]), ["/dragon x"]),
            RegexEnd::Matched { text: 0 }
        );
    }
}
