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
use regex_automata::meta::{self, Regex};
use regex_automata::util::syntax;
use serde::Serialize;

pub use crate::diagnostic::PatternLimit;

mod regex_keys;
pub use regex_keys::{
    regex_too_large, split_regex_key, MAX_REGEXES_BYTES, MAX_REGEX_ALTERNATIVES, MAX_REGEX_BYTES,
    MAX_REGEX_GROUPS, MAX_REGEX_NESTING, MAX_REGEX_PATTERN_BYTES,
};
use regex_keys::{compile_regex, has_unicode_word_boundary};

mod words;
pub use words::{fold, is_spaceless_script, is_word_char};
use words::{edges_hold, Folded};

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
mod tests {
    use super::*;

    /// What one regex key of the workload's shape takes compiled, the
    /// figure behind [`MAX_REGEXES_BYTES`]'s comment and docs/your-data.md's
    /// Limits table.
    #[test]
    fn a_workload_regex_key_takes_about_7_kib() {
        let re = compile_regex("name123(s|es)?", "i", MAX_REGEX_BYTES).unwrap();
        let kib = re.memory_usage() as f64 / 1024.0;
        eprintln!("a regex key takes {kib:.1} KiB");
        assert!((5.0..=9.0).contains(&kib), "{kib:.1} KiB");
    }

    /// Builds a matcher over one key and returns the matched slice of
    /// `text`, if any.
    fn find(key: &str, flags: KeyFlags, text: &str) -> Option<String> {
        let mut b = MatcherBuilder::default();
        let owner = KeyOwner {
            entry: 0,
            secondary: false,
            position: 0,
        };
        b.add(key, owner, flags)?;
        let (m, errors) = b.build();
        assert!(errors.is_empty(), "{errors:?}");
        m.scan(text)
            .first()
            .map(|h| text[h.start as usize..h.end as usize].to_string())
    }

    const WHOLE: KeyFlags = KeyFlags {
        case_sensitive: false,
        whole_words: true,
        use_regex: false,
    };
    const PART: KeyFlags = KeyFlags {
        case_sensitive: false,
        whole_words: false,
        use_regex: false,
    };
    const CASE: KeyFlags = KeyFlags {
        case_sensitive: true,
        whole_words: true,
        use_regex: false,
    };
    const REGEX: KeyFlags = KeyFlags {
        case_sensitive: false,
        whole_words: true,
        use_regex: true,
    };

    #[test]
    fn matching_table() {
        // (key, flags, text, expected match)
        let cases: &[(&str, KeyFlags, &str, Option<&str>)] = &[
            // Whole words: the guide's examples.
            ("sol", WHOLE, "o soldado", None),
            ("sol", WHOLE, "o sol nasce", Some("sol")),
            ("fogo", WHOLE, "um fogoso", None),
            ("fogo", PART, "um fogoso", Some("fogo")),
            ("sol", WHOLE, "sol_x", None),
            ("sol", WHOLE, "sol2", None),
            ("sol", WHOLE, "(sol)", Some("sol")),
            // Accents and marks are word characters.
            ("cafe", WHOLE, "cafés", None),
            ("cafe", WHOLE, "cafe\u{301}", None),
            // Edges that are not word characters need no boundary.
            ("#tag", WHOLE, "a#tag here", Some("#tag")),
            ("#tag", WHOLE, "#tags", None),
            ("C++", WHOLE, "I like C++s", Some("C++")),
            ("C++", WHOLE, "ObjC++", None),
            // Spaceless scripts.
            ("東京", WHOLE, "東京タワーに行く", Some("東京")),
            ("タワー", WHOLE, "東京タワーに", Some("タワー")),
            ("Tokyo", WHOLE, "Tokyoに行く", Some("Tokyo")),
            ("กรุงเทพ", WHOLE, "ไปกรุงเทพมหานคร", Some("กรุงเทพ")),
            ("서울", WHOLE, "서울에서", Some("서울")),
            // Case folding, Unicode.
            ("SUN", WHOLE, "the sun rises", Some("sun")),
            ("straße", WHOLE, "STRASSE 5", Some("STRASSE")),
            ("ΣΟΦΙΑ", WHOLE, "σοφια", Some("σοφια")),
            ("émile", WHOLE, "ÉMILE said", Some("ÉMILE")),
            ("s", PART, "ß", None),
            // Case sensitive.
            ("Sun", CASE, "the sun", None),
            ("Sun", CASE, "the Sun", Some("Sun")),
            // Trimmed keys.
            ("  moon ", WHOLE, "a moon", Some("moon")),
            // Regex keys follow their own flags.
            ("/dragons?/i", WHOLE, "DRAGON", Some("DRAGON")),
            ("/dragons?/", WHOLE, "DRAGON", None),
            ("/drag/", WHOLE, "dragon", Some("drag")),
            ("/a.b/s", WHOLE, "a\nb", Some("a\nb")),
            ("/^x$/m", WHOLE, "a\nx\nb", Some("x")),
            ("/a b/x", WHOLE, "ab", Some("ab")),
            ("/sun/gy", WHOLE, "sun", Some("sun")),
            // Other flag letters make it plain text.
            ("/sun/q", WHOLE, "a /sun/q b", Some("/sun/q")),
            ("/usr/bin", WHOLE, "see /usr/bin", Some("/usr/bin")),
            // use_regex: every key is a pattern, case sensitive by default.
            ("dragons?", REGEX, "dragon", Some("dragon")),
            ("dragons?", REGEX, "Dragon", None),
            ("/dragons?/i", REGEX, "Dragon", Some("Dragon")),
            // Overlapping keys are all found.
            ("knight", PART, "a dark knight", Some("knight")),
        ];
        for &(key, flags, text, expected) in cases {
            assert_eq!(
                find(key, flags, text).as_deref(),
                expected,
                "key {key:?} in {text:?} with {flags:?}"
            );
        }
    }

    #[test]
    fn empty_keys_are_ignored() {
        let mut b = MatcherBuilder::default();
        let owner = KeyOwner {
            entry: 0,
            secondary: false,
            position: 0,
        };
        assert_eq!(b.add("   ", owner, WHOLE), None);
        assert_eq!(b.build().0.key_count(), 0);
    }

    #[test]
    fn invalid_regex_is_an_error_and_never_matches() {
        let mut b = MatcherBuilder::default();
        let owner = KeyOwner {
            entry: 3,
            secondary: false,
            position: 1,
        };
        b.add("/(unclosed/", owner, WHOLE);
        b.add("ok", owner, WHOLE);
        let (m, errors) = b.build();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].owner.entry, 3);
        assert!(
            errors[0].message.contains("unclosed"),
            "{}",
            errors[0].message
        );
        let hits = m.scan("(unclosed ok");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].key, 1);
    }

    #[test]
    fn shared_patterns_report_every_key() {
        let mut b = MatcherBuilder::default();
        for entry in 0..3 {
            let owner = KeyOwner {
                entry,
                secondary: false,
                position: 0,
            };
            b.add("Sun", owner, if entry == 2 { PART } else { WHOLE });
        }
        let (m, _) = b.build();
        let hits = m.scan("sunny SUN");
        let entries: Vec<u32> = hits.iter().map(|h| m.owner(h.key).entry).collect();
        assert_eq!(entries, vec![0, 1, 2]);
        assert_eq!(hits[0].start, 6, "the whole-word key skips 'sunny'");
        assert_eq!(hits[2].start, 0, "the partial key takes the first");
    }

    #[test]
    fn add_from_copies_keys_without_compiling_them_again() {
        let mut b = MatcherBuilder::default();
        let keys = [
            ("Sun", CASE),
            ("moon", WHOLE),
            ("/dragons?/i", WHOLE),
            ("/(bad/", WHOLE),
        ];
        for (i, (key, flags)) in keys.iter().enumerate() {
            let owner = KeyOwner {
                entry: i as u32,
                secondary: i % 2 == 1,
                position: 0,
            };
            b.add(key, owner, *flags);
        }
        let (m, errors) = b.build();
        assert_eq!(errors.len(), 1);
        // Copied in reverse order: new ids, same owners and matches.
        let mut b = MatcherBuilder::default();
        for id in (0..m.key_count() as KeyId).rev() {
            b.add_from(&m, id);
        }
        assert_eq!(b.add_from(&m, 99), None);
        let (copy, errors) = b.build();
        assert!(errors.is_empty(), "an invalid key is reported once");
        let text = "the Sun and the moon and DRAGONS (bad";
        let owners = |m: &Matcher| {
            let mut v: Vec<(KeyOwner, u32, u32)> = m
                .scan(text)
                .iter()
                .map(|h| (m.owner(h.key), h.start, h.end))
                .collect();
            v.sort_by_key(|(o, ..)| o.entry);
            v
        };
        assert_eq!(owners(&copy), owners(&m));
        assert_eq!(owners(&m).len(), 3);
    }

    #[test]
    fn a_text_has_at_most_one_hit_per_key_the_first() {
        // Many keys share the pattern `e` with different edges and cases, in
        // a text full of overlapping and repeated occurrences.
        let mut b = MatcherBuilder::default();
        let flags = [PART, WHOLE, CASE, REGEX];
        let keys = ["e", "E", "ee", "/e/", " e "];
        let mut n = 0;
        for _ in 0..50 {
            for key in keys {
                for f in flags {
                    let owner = KeyOwner {
                        entry: n,
                        secondary: false,
                        position: 0,
                    };
                    n += 1;
                    b.add(key, owner, f);
                }
            }
        }
        let (m, _) = b.build();
        let text = "eee E e, ÉE e-e Ee\u{301} e";
        let hits = m.scan(text);
        let mut seen = std::collections::HashSet::new();
        assert!(hits.iter().all(|h| seen.insert(h.key)), "{hits:?}");
        assert!(hits.windows(2).all(|w| w[0].key < w[1].key));
        // Each hit is the key's earliest match: no match of the same key
        // alone starts before it.
        for h in &hits {
            let mut one = MatcherBuilder::default();
            let owner = m.owner(h.key);
            let k = &keys[(owner.entry as usize / flags.len()) % keys.len()];
            one.add(k, owner, flags[owner.entry as usize % flags.len()]);
            let alone = one.build().0.scan(text);
            assert_eq!((alone[0].start, alone[0].end), (h.start, h.end), "{k:?}");
        }
        assert_eq!(
            hits.len(),
            m.key_count() - 50 * flags.len() / 2,
            "all but the whole-word and case-sensitive `ee` keys match"
        );
    }

    #[test]
    fn offsets_map_back_through_folding() {
        let text = "ẞtraße und KELVIN";
        let m = find("kelvin", WHOLE, text);
        assert_eq!(m.as_deref(), Some("KELVIN"));
        assert_eq!(
            find("\u{212A}elvin", WHOLE, "kelvin").as_deref(),
            Some("kelvin")
        );
    }

    /// A matcher over `keys`, each its own entry.
    fn matcher(keys: &[(&str, KeyFlags)]) -> Matcher {
        let mut b = MatcherBuilder::default();
        for (i, (key, flags)) in keys.iter().enumerate() {
            let owner = KeyOwner {
                entry: i as u32,
                secondary: false,
                position: 0,
            };
            b.add(key, owner, *flags);
        }
        let (m, errors) = b.build();
        assert!(errors.is_empty(), "{errors:?}");
        m
    }

    /// (key, start) of each hit, `None` for a key given up on.
    fn decided(hits: &[Hit]) -> Vec<(KeyId, Option<u32>)> {
        hits.iter()
            .map(|h| (h.key, (!h.gave_up()).then_some(h.start)))
            .collect()
    }

    /// Each overlapping match the search reports costs one unit: a scan
    /// with exactly the units it needs decides every key, one unit less
    /// and the key still undecided is given up on (the decided one kept).
    #[test]
    fn the_scan_budget_just_under_and_just_over() {
        let m = matcher(&[("a", PART), ("b", PART)]);
        // Matches reported: a@0, a@1, a@2, b@3; the scan stops there.
        let text = "aaab";
        assert_eq!(
            decided(&m.scan_within(text, 4)),
            [(0, Some(0)), (1, Some(3))]
        );
        assert_eq!(decided(&m.scan_within(text, 3)), [(0, Some(0)), (1, None)]);
        assert_eq!(decided(&m.scan_within(text, 0)), [(0, None), (1, None)]);
        // A key that never matches is not given up on when the search
        // reaches the end within the budget.
        let m = matcher(&[("a", PART), ("z", PART)]);
        assert_eq!(decided(&m.scan_within(text, 3)), [(0, Some(0))]);
        assert!(m
            .scan_within(text, 2)
            .iter()
            .any(|h| h.key == 1 && h.gave_up()));
    }

    /// The issue-17 shape: `a`, `aa`, … `a`×2,000 over two megabytes of
    /// `a`. Partial keys all match early and the search stops there;
    /// whole-word keys never match in one long word, and the scan gives up
    /// on them once its budget is spent instead of reporting 4 × 10^9
    /// overlapping matches.
    #[test]
    fn overlapping_keys_over_a_long_run_are_bounded() {
        let keys: Vec<String> = (1..=2000).map(|n| "a".repeat(n)).collect();
        let text = "a".repeat(2 << 20);
        let part: Vec<(&str, KeyFlags)> = keys.iter().map(|k| (k.as_str(), PART)).collect();
        let hits = matcher(&part).scan(&text);
        assert_eq!(hits.len(), 2000);
        assert!(hits.iter().all(|h| h.start == 0 && !h.gave_up()));
        let mut whole: Vec<(&str, KeyFlags)> = keys.iter().map(|k| (k.as_str(), WHOLE)).collect();
        whole.push(("b", PART));
        let started = std::time::Instant::now();
        let hits = matcher(&whole).scan(&text);
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
        assert_eq!(hits.len(), 2001);
        assert!(hits.iter().all(Hit::gave_up));
        // A whole word at the end is still found when the text is short.
        let hits = matcher(&whole).scan("aaa aa");
        assert_eq!(decided(&hits), [(1, Some(4)), (2, Some(0))]);
    }

    /// A regex key with a Unicode word boundary costs its text's length
    /// times `REGEX_SLOW_UNITS_PER_BYTE` on a text that is not ASCII (the
    /// PikeVM), an eighth of a unit per byte on ASCII (the lazy DFA), as
    /// does a key without one.
    #[test]
    fn unicode_word_boundary_keys_cost_more_past_ascii() {
        let m = matcher(&[("/\\bдракон\\w*/i", PART), ("/дракон/", PART)]);
        let text = "Привет, мир! Драконы летят.";
        let len = text.len() as u64;
        let slow = len * REGEX_SLOW_UNITS_PER_BYTE;
        let fast = len.div_ceil(REGEX_FAST_BYTES_PER_UNIT);
        // The second key is case-sensitive and does not match `Драконы`.
        assert_eq!(decided(&m.scan_within(text, slow + fast)), [(0, Some(22))]);
        assert_eq!(
            decided(&m.scan_within(text, slow + fast - 1)),
            [(0, Some(22)), (1, None)]
        );
        let hits = m.scan_within(text, slow - 1);
        assert!(hits[0].gave_up(), "{hits:?}");
        let ascii = "the dragon flies";
        let hits = matcher(&[("/\\bdragon\\b/", PART)]).scan_within(
            ascii,
            (ascii.len() as u64).div_ceil(REGEX_FAST_BYTES_PER_UNIT),
        );
        assert_eq!(decided(&hits), [(0, Some(4))]);
    }

    const OWNER: KeyOwner = KeyOwner {
        entry: 0,
        secondary: false,
        position: 0,
    };

    /// The first error of a matcher over `keys` built on top of `before`
    /// bytes of earlier regex keys, and the hits of `text`.
    fn build_after(before: usize, keys: &[&str], text: &str) -> (Vec<String>, usize) {
        let mut b = MatcherBuilder {
            regex_bytes: before,
            ..MatcherBuilder::default()
        };
        for k in keys {
            b.add(k, OWNER, PART);
        }
        let (m, errors) = b.build();
        (
            errors.into_iter().map(|e| e.message).collect(),
            m.scan(text).len(),
        )
    }

    /// One regex key's compiled size is capped at `MAX_REGEX_BYTES`: the
    /// largest repetition that fits compiles and matches, one more is
    /// refused as too large and never matches.
    #[test]
    fn a_regex_key_just_under_and_just_over_its_size_cap() {
        // About 32 bytes per repetition: the cap falls near 131,000.
        let pattern = |n: usize| format!("b|a{{{n}}}");
        let fits = |n: usize| compile_regex(&pattern(n), "", MAX_REGEX_BYTES).is_ok();
        let (mut lo, mut hi) = (128_000, 134_000);
        assert!(fits(lo), "{lo} repetitions fit in MAX_REGEX_BYTES");
        assert!(!fits(hi), "{hi} repetitions do not");
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if fits(mid) {
                lo = mid
            } else {
                hi = mid
            }
        }
        let key = |n| format!("/{}/", pattern(n));
        // The text is short: a search costs its length times the states.
        let (errors, hits) = build_after(0, &[&key(lo)], "b");
        assert_eq!((errors.len(), hits), (0, 1), "just under: {errors:?}");
        let (errors, hits) = build_after(0, &[&key(hi)], "b");
        assert_eq!(errors, ["the pattern is too large"], "just over");
        assert_eq!(hits, 0);
    }

    /// All the regex keys of a matcher share `MAX_REGEXES_BYTES`: a key
    /// that fits exactly in what is left compiles, one byte less and it is
    /// refused with a message saying why, and the keys after it still
    /// match.
    #[test]
    fn regex_keys_just_under_and_just_over_their_shared_budget() {
        let size = compile_regex("names?", "i", MAX_REGEX_BYTES)
            .unwrap()
            .memory_usage();
        let keys = ["/names?/i", "plain"];
        let text = "Names and plain words";
        let (errors, hits) = build_after(MAX_REGEXES_BYTES - size, &keys, text);
        assert_eq!((errors.len(), hits), (0, 2), "fits exactly: {errors:?}");
        let (errors, hits) = build_after(MAX_REGEXES_BYTES - size + 1, &keys, text);
        assert_eq!(
            errors,
            ["the regex keys before it take the 256 MiB all regex keys may use"],
            "one byte short"
        );
        assert_eq!(hits, 1, "the plain key still matches");
        // A key too large for what is left is refused by the budget too,
        // before it is compiled past it.
        let (errors, _) = build_after(MAX_REGEXES_BYTES - 100, &["/a{1000}/"], text);
        assert_eq!(
            errors,
            ["the regex keys before it take the 256 MiB all regex keys may use"]
        );
    }

    /// Copying keys into a new matcher counts their size again, so an
    /// overlay rebuilt from the big matcher stays inside the budget too.
    #[test]
    fn copied_regex_keys_count_against_the_budget() {
        let mut b = MatcherBuilder::default();
        b.add("/names?/i", OWNER, PART);
        let size = b.regex_bytes;
        assert!(size > 0);
        let (m, _) = b.build();
        let mut copy = MatcherBuilder::default();
        copy.add_from(&m, 0);
        assert_eq!(copy.regex_bytes, size);
    }
}
