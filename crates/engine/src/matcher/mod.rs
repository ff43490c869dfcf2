//! Key matching (SPEC §5).
//!
//! All plain keys of all attached books go into two Aho-Corasick automata —
//! one over case-folded text for case-insensitive keys, one over the raw text
//! for case-sensitive ones — searched with overlapping matches so a key inside
//! another key is still seen. Whole-word rules are checked on the edges of
//! each match. Regex keys run through the `regex` crate's engine, each capped
//! at [`MAX_REGEX_BYTES`] and all together at [`MAX_REGEXES_BYTES`] (a key
//! past either is an invalid key with a message). [`Matcher::scan`]
//! returns every key that matches a text, with the byte range of its first
//! match in the original text, so one scan of a message serves every entry.
//!
//! A scan is bounded ([`scan_budget`]): overlapping keys (`a`, `aa`, …
//! `a`×2,000 over megabytes of `a`) report every key at every position, and
//! a regex key with a Unicode word boundary leaves the lazy DFA for a much
//! slower engine on a text that is not ASCII. Each costs the scan work in
//! units of about one overlapping match; once the text's budget is spent,
//! the keys not decided yet are given up on ([`Hit::gave_up`]) and count as
//! not matching, and the preview says which.
//!
//! The activation index keeps one large matcher over every entry as last
//! built and a small one for entries edited since; [`MatcherBuilder::add_from`]
//! lets the small one be rebuilt without compiling its regexes again.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use regex_automata::meta::Regex;
use serde::Serialize;

pub use crate::diagnostic::PatternLimit;

mod regex_keys;
use regex_keys::{compile_regex, has_unicode_word_boundary};
pub use regex_keys::{
    regex_too_large, split_regex_key, MAX_REGEXES_BYTES, MAX_REGEX_ALTERNATIVES, MAX_REGEX_BYTES,
    MAX_REGEX_GROUPS, MAX_REGEX_NESTING, MAX_REGEX_PATTERN_BYTES,
};

mod words;
pub(crate) use words::needs_boundary;
use words::{edges_hold, Folded};
pub use words::{fold, is_spaceless_script, is_word_char};

/// Index of a key in [`Matcher::keys`].
pub type KeyId = u32;

/// Where a key comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KeyOwner {
    /// The entry, in the numbering of whoever built the matcher (the
    /// activation index uses stable slots that survive edits).
    pub entry: u32,
    pub secondary: bool,
    /// Position in the entry's `keys` or `secondary_keys`.
    pub position: u32,
}

#[derive(Debug, Clone)]
enum KeyKind {
    /// Plain text; `left`/`right` say whether that edge needs a word
    /// boundary, `case_sensitive` which automaton it lives in.
    Plain {
        left: bool,
        right: bool,
        case_sensitive: bool,
    },
    /// A compiled pattern, and whether it has a Unicode word boundary
    /// (`\b`, `\B`): the lazy DFA cannot decide those past ASCII, so on a
    /// text that is not ASCII the search runs on the slower PikeVM.
    Regex(Regex, bool),
    /// An invalid pattern: never matches.
    Invalid,
}

#[derive(Debug, Clone)]
struct Key {
    owner: KeyOwner,
    text: Box<str>,
    kind: KeyKind,
}

/// One key matching a text: the byte range of its first match, or
/// [`GAVE_UP`] for both when the scan's budget ran out before the key was
/// decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Hit {
    pub key: KeyId,
    pub start: u32,
    pub end: u32,
}

/// The `start` and `end` of a hit the scan gave up on.
pub const GAVE_UP: u32 = u32::MAX;

impl Hit {
    /// Whether the scan gave up on this key (it counts as not matching).
    pub fn gave_up(&self) -> bool {
        self.start == GAVE_UP
    }

    fn given_up(key: KeyId) -> Hit {
        Hit {
            key,
            start: GAVE_UP,
            end: GAVE_UP,
        }
    }
}

/// Work units every scan may spend whatever its text's length (one unit is
/// about one overlapping match, some 15 ns).
pub const SCAN_BASE: u64 = 16 << 20;
/// Work units a scan may spend per byte of its text.
pub const SCAN_PER_BYTE: u64 = 16;
/// What a regex key costs per byte of a text when the lazy DFA serves it.
pub const REGEX_FAST_BYTES_PER_UNIT: u64 = 8;
/// What a regex key with a Unicode word boundary costs per byte of a text
/// that is not ASCII (the PikeVM: about 100 ns a byte on a key like
/// `\b\w+ой\b`).
pub const REGEX_SLOW_UNITS_PER_BYTE: u64 = 4;

/// The work a scan of a text of `len` bytes may do: [`SCAN_BASE`] and
/// [`SCAN_PER_BYTE`] per byte. A megabyte takes about a second at most;
/// a chat message, a few milliseconds unless its keys are hostile.
pub fn scan_budget(len: usize) -> u64 {
    SCAN_BASE.saturating_add(SCAN_PER_BYTE.saturating_mul(len as u64))
}

/// What is left of one scan's budget.
#[derive(Debug)]
struct Budget(u64);

impl Budget {
    /// Takes `cost` units; false (and nothing taken) when fewer are left.
    fn take(&mut self, cost: u64) -> bool {
        match self.0.checked_sub(cost) {
            Some(left) => {
                self.0 = left;
                true
            }
            None => false,
        }
    }
}

/// The flags that decide how an entry's keys match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KeyFlags {
    pub case_sensitive: bool,
    pub whole_words: bool,
    pub use_regex: bool,
}

/// A key that could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError {
    pub owner: KeyOwner,
    pub key: String,
    pub message: String,
    /// Set when the pattern is past a cap on its text
    /// ([`regex_too_large`]): which one, and its value.
    pub too_large: Option<(PatternLimit, usize)>,
}

/// Compiled keys of a set of entries.
#[derive(Debug, Default)]
pub struct Matcher {
    keys: Vec<Key>,
    folded: Option<Automaton>,
    raw: Option<Automaton>,
    regexes: Vec<KeyId>,
}

/// The plain keys of one case mode: the automaton over their distinct
/// patterns, the groups of keys that share each pattern, and how many
/// groups there are in all (a scan stops once each has its match).
#[derive(Debug)]
struct Automaton {
    ac: AhoCorasick,
    groups: Vec<Groups>,
    group_count: usize,
}

/// The keys that share one pattern, grouped by the word boundaries their
/// edges need (a whole-word key and a partial one can share a pattern).
/// Every key of a group takes the same first match, so a scan decides once
/// per group, not once per key and occurrence: 100,000 entries keyed `e`
/// cost one hit each per text, not one per `e` in it.
type Groups = Box<[(Edges, Box<[KeyId]>)]>;

/// Whether the left and the right edge of a plain key need a word boundary.
type Edges = (bool, bool);

/// Collects keys, then builds a [`Matcher`].
#[derive(Debug, Default)]
pub struct MatcherBuilder {
    keys: Vec<Key>,
    folded: PatternSet,
    raw: PatternSet,
    regexes: Vec<KeyId>,
    /// What the compiled regexes take ([`Regex::memory_usage`]).
    regex_bytes: usize,
    errors: Vec<KeyError>,
    quick: bool,
}

/// Distinct patterns and the keys that share each one.
#[derive(Debug, Default)]
struct PatternSet {
    patterns: Vec<String>,
    keys: Vec<Vec<KeyId>>,
    index: std::collections::HashMap<String, usize>,
}

impl PatternSet {
    fn add(&mut self, pattern: String, key: KeyId) {
        let i = *self.index.entry(pattern.clone()).or_insert_with(|| {
            self.patterns.push(pattern);
            self.keys.push(Vec::new());
            self.keys.len() - 1
        });
        self.keys[i].push(key);
    }

    /// Builds the automaton; `edges` tells the boundaries a key needs.
    fn build(self, quick: bool, edges: impl Fn(KeyId) -> Edges) -> Option<Automaton> {
        if self.patterns.is_empty() {
            return None;
        }
        // The first stage of the automaton is built in about a third of the
        // time of the default, and searches a little slower.
        let kind = quick.then_some(AhoCorasickKind::NoncontiguousNFA);
        let ac = AhoCorasickBuilder::new()
            .match_kind(MatchKind::Standard)
            .kind(kind)
            .build(&self.patterns)
            .ok()?;
        let groups: Vec<Groups> = self
            .keys
            .into_iter()
            .map(|keys| {
                let mut groups: Vec<(Edges, Vec<KeyId>)> = Vec::new();
                for key in keys {
                    let e = edges(key);
                    match groups.iter_mut().find(|(g, _)| *g == e) {
                        Some((_, list)) => list.push(key),
                        None => groups.push((e, vec![key])),
                    }
                }
                groups
                    .into_iter()
                    .map(|(e, list)| (e, list.into_boxed_slice()))
                    .collect()
            })
            .collect();
        let group_count = groups.iter().map(|g| g.len()).sum();
        Some(Automaton {
            ac,
            groups,
            group_count,
        })
    }
}

impl MatcherBuilder {
    /// A builder for a matcher rebuilt often and used on few texts (the
    /// activation index's overlay): it trades search speed for build time.
    pub fn quick() -> Self {
        MatcherBuilder {
            quick: true,
            ..MatcherBuilder::default()
        }
    }

    /// Compiles a regex key within what is left of [`MAX_REGEXES_BYTES`].
    fn compile(&mut self, pattern: &str, flags: &str) -> Result<Regex, String> {
        let left = MAX_REGEXES_BYTES.saturating_sub(self.regex_bytes);
        let regex = compile_regex(pattern, flags, MAX_REGEX_BYTES.min(left)).map_err(|e| {
            if left < MAX_REGEX_BYTES && e == "the pattern is too large" {
                format!(
                    "the regex keys before it take the {} MiB all regex keys may use",
                    MAX_REGEXES_BYTES >> 20
                )
            } else {
                e
            }
        })?;
        let bytes = regex.memory_usage();
        if bytes > left {
            return Err(format!(
                "the regex keys before it take the {} MiB all regex keys may use",
                MAX_REGEXES_BYTES >> 20
            ));
        }
        self.regex_bytes += bytes;
        Ok(regex)
    }

    /// Adds one key. Empty keys (after trimming) are ignored and return
    /// `None`.
    pub fn add(&mut self, key: &str, owner: KeyOwner, flags: KeyFlags) -> Option<KeyId> {
        let key = key.trim();
        if key.is_empty() {
            return None;
        }
        let id = self.keys.len() as KeyId;
        let regex = match split_regex_key(key) {
            Some((p, f)) => Some((p, f)),
            None if flags.use_regex => Some((key, "")),
            None => None,
        };
        let kind = match regex {
            Some((pattern, f)) => match self.compile(pattern, f) {
                Ok(r) => {
                    self.regexes.push(id);
                    KeyKind::Regex(r, has_unicode_word_boundary(pattern, f))
                }
                Err(message) => {
                    self.errors.push(KeyError {
                        owner,
                        key: key.to_string(),
                        message,
                        too_large: regex_too_large(pattern),
                    });
                    KeyKind::Invalid
                }
            },
            None => {
                let (left, right) = if flags.whole_words {
                    let first = key.chars().next().unwrap_or(' ');
                    let last = key.chars().next_back().unwrap_or(' ');
                    (needs_boundary(first), needs_boundary(last))
                } else {
                    (false, false)
                };
                self.add_pattern(key, flags.case_sensitive, id);
                KeyKind::Plain {
                    left,
                    right,
                    case_sensitive: flags.case_sensitive,
                }
            }
        };
        self.keys.push(Key {
            owner,
            text: key.into(),
            kind,
        });
        Some(id)
    }

    /// Adds key `id` of `from` again, with its owner, without compiling it:
    /// rebuilding a matcher from one that exists costs no regex compilation,
    /// and an invalid key is not reported a second time.
    pub fn add_from(&mut self, from: &Matcher, id: KeyId) -> Option<KeyId> {
        let key = from.keys.get(id as usize)?.clone();
        let new = self.keys.len() as KeyId;
        match key.kind {
            KeyKind::Plain { case_sensitive, .. } => {
                self.add_pattern(&key.text, case_sensitive, new)
            }
            KeyKind::Regex(ref r, _) => {
                self.regex_bytes += r.memory_usage();
                self.regexes.push(new)
            }
            KeyKind::Invalid => {}
        }
        self.keys.push(key);
        Some(new)
    }

    fn add_pattern(&mut self, key: &str, case_sensitive: bool, id: KeyId) {
        if case_sensitive {
            self.raw.add(key.to_string(), id);
        } else {
            self.folded.add(fold(key), id);
        }
    }

    /// Builds the automata. Returns the matcher and the keys whose pattern
    /// was invalid.
    pub fn build(self) -> (Matcher, Vec<KeyError>) {
        let keys = self.keys;
        let edges = |id: KeyId| match keys[id as usize].kind {
            KeyKind::Plain { left, right, .. } => (left, right),
            KeyKind::Regex(..) | KeyKind::Invalid => (false, false),
        };
        let folded = self.folded.build(self.quick, edges);
        let raw = self.raw.build(self.quick, edges);
        let matcher = Matcher {
            keys,
            folded,
            raw,
            regexes: self.regexes,
        };
        (matcher, self.errors)
    }
}

impl Matcher {
    /// Who owns key `id`.
    pub fn owner(&self, id: KeyId) -> KeyOwner {
        self.keys[id as usize].owner
    }

    /// The key as written (trimmed).
    pub fn key_text(&self, id: KeyId) -> &str {
        &self.keys[id as usize].text
    }

    pub fn key_count(&self) -> usize {
        self.keys.len()
    }

    /// The memory the compiled regex keys take, in bytes (what counts
    /// against [`MAX_REGEXES_BYTES`]).
    pub fn regex_bytes(&self) -> usize {
        self.regexes
            .iter()
            .map(|&k| match &self.keys[k as usize].kind {
                KeyKind::Regex(r, _) => r.memory_usage(),
                _ => 0,
            })
            .sum()
    }

    /// Every key matching `text`, once each, with its first match; sorted by
    /// key id. Within [`scan_budget`]: the keys still undecided when it runs
    /// out are listed with [`Hit::gave_up`].
    pub fn scan(&self, text: &str) -> Vec<Hit> {
        self.scan_within(text, scan_budget(text.len()))
    }

    /// [`Matcher::scan`] with a budget of `units`.
    fn scan_within(&self, text: &str, units: u64) -> Vec<Hit> {
        let mut budget = Budget(units);
        let mut hits = Vec::new();
        if let Some(a) = &self.raw {
            first_matches(a, text, text, Some, &mut budget, &mut hits);
        }
        if let Some(a) = &self.folded {
            let folded = Folded::new(text);
            let original = |i| folded.original(i);
            first_matches(a, &folded.text, text, original, &mut budget, &mut hits);
        }
        let ascii = text.is_ascii();
        let len = text.len() as u64;
        for &key in &self.regexes {
            if let KeyKind::Regex(r, unicode_word) = &self.keys[key as usize].kind {
                let cost = if *unicode_word && !ascii {
                    len.saturating_mul(REGEX_SLOW_UNITS_PER_BYTE)
                } else {
                    len.div_ceil(REGEX_FAST_BYTES_PER_UNIT)
                };
                if !budget.take(cost) {
                    hits.push(Hit::given_up(key));
                } else if let Some(m) = r.find(text) {
                    hits.push(Hit {
                        key,
                        start: m.start() as u32,
                        end: m.end() as u32,
                    });
                }
            }
        }
        // Each key lives in one automaton or is one regex, and each group of
        // a pattern takes one match (or is given up on), so every key is
        // here at most once.
        hits.sort_unstable_by_key(|h| h.key);
        hits
    }
}

/// Pushes to `hits` the first match in `text` of every key of automaton `a`
/// whose pattern it finds in `haystack` (`text` itself or its folding;
/// `original` maps a haystack offset back to `text`, `None` inside the
/// folding of one character).
///
/// Overlapping matches come in order of their end, and all matches of one
/// pattern have one length, so the first match of a pattern that satisfies
/// a group's edges is that group's earliest; later ones are skipped without
/// looking at the group's keys, and the search stops once every group has
/// its match. Each match the search reports costs a unit of `budget`; when
/// it runs out, every group still without a match is given up on.
fn first_matches(
    a: &Automaton,
    haystack: &str,
    text: &str,
    original: impl Fn(usize) -> Option<usize>,
    budget: &mut Budget,
    hits: &mut Vec<Hit>,
) {
    // Per pattern: a bit per group that already has its match (a pattern
    // has at most four groups, one per pair of edges).
    let mut done = vec![0u8; a.groups.len()];
    let mut left = a.group_count;
    let mut spent = false;
    for m in a.ac.find_overlapping_iter(haystack) {
        if !budget.take(1) {
            spent = true;
            break;
        }
        let pattern = m.pattern().as_usize();
        let groups = &a.groups[pattern];
        let done = &mut done[pattern];
        if done.count_ones() as usize == groups.len() {
            continue;
        }
        let (Some(start), Some(end)) = (original(m.start()), original(m.end())) else {
            // The match starts or ends inside one character's folding.
            continue;
        };
        for (i, ((left_edge, right_edge), keys)) in groups.iter().enumerate() {
            if *done & (1 << i) != 0 || !edges_hold(text, start, end, *left_edge, *right_edge) {
                continue;
            }
            *done |= 1 << i;
            left -= 1;
            hits.extend(keys.iter().map(|&key| Hit {
                key,
                start: start as u32,
                end: end as u32,
            }));
        }
        if left == 0 {
            return;
        }
    }
    if spent {
        for (groups, &done) in a.groups.iter().zip(&done) {
            for (i, (_, keys)) in groups.iter().enumerate() {
                if done & (1 << i) == 0 {
                    hits.extend(keys.iter().map(|&key| Hit::given_up(key)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
