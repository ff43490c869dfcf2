//! The entries' keys compiled once per book, and the scanned texts of one
//! request with every plain key's hits found in a single pass.
//!
//! Matching stays [`matching::matches`]'s rule exactly: a plain key is a
//! substring of the (folded) text, and a whole-word key needs one of its
//! occurrences, overlaps included, to have a non-word character or an edge
//! on both sides. Aho-Corasick reports every occurrence of every key, so
//! the edges are checked on each hit; keys the automaton cannot hold (the
//! empty key) and regex keys take the one-key path. A regex key whose
//! matches all start with a literal runs only when the automata saw that
//! literal in the text.
//!
//! Above the usual 600 lines: the compiled keys and the single-pass scan
//! share their hit bookkeeping and are tested together.

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use super::buffer::{PassKind, ScanBuffer};
use super::entry::StEntry;
use super::matching::{
    self, is_js_ws, js_trim, substitute, GiveUp, Haystack, KeyMode, Names, RegexCache, RequestSteps,
};

/// One compiled key.
#[derive(Debug, Clone)]
enum Key {
    /// A plain key: its pattern in the case-sensitive and the folded
    /// automaton, and whether it has several words in each form (such keys
    /// are substring searches even with whole words on).
    Plain {
        exact: u32,
        folded: u32,
        multi_exact: bool,
        multi_folded: bool,
    },
    /// A regex key with the pattern of its required literal, if any: in the
    /// folded automaton for case-insensitive regexes, else in the exact one.
    Regex {
        text: String,
        literal: Option<Literal>,
    },
    /// A key the automata do not hold, by its text.
    Other(String),
}

/// Where a regex key's required literal sits among the patterns.
#[derive(Debug, Clone, Copy)]
struct Literal {
    folded: bool,
    id: u32,
    /// A folded literal with an `s` may also be spelled with the long s,
    /// which lowercasing leaves as it is: a text with one runs the regex.
    has_s: bool,
}

/// The literal every match of a regex key starts with, and whether it is
/// compared case-insensitively: the leading ASCII letters, digits and
/// spaces of the pattern, less one when a quantifier follows them. None
/// for Unicode regexes (their case folding maps non-ASCII characters onto
/// ASCII letters) and for patterns with a top-level alternative.
fn required_literal(key: &str) -> Option<(String, bool)> {
    let (pattern, flags) = matching::split_regex(key)?;
    if flags.contains('u') {
        return None;
    }
    // A `|` outside groups and classes lets a match start elsewhere.
    let mut depth = 0usize;
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' => {
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        ']' => break,
                        _ => {}
                    }
                }
            }
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '|' if depth == 0 => return None,
            _ => {}
        }
    }
    let mut literal: String = pattern
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == ' ')
        .collect();
    if matches!(
        pattern[literal.len()..].chars().next(),
        Some('?' | '*' | '+' | '{')
    ) {
        literal.pop();
    }
    let folded = flags.contains('i');
    if folded {
        // The folded text is lowercased, which maps the Kelvin sign onto
        // `k`; the long s is left as it is and handled by the caller.
        literal.make_ascii_lowercase();
    }
    (!literal.is_empty()).then_some((literal, folded))
}

/// An entry's keys in the two forms SillyTavern tests them: after macros
/// and trimming (activation), and as written (group scoring).
#[derive(Debug, Clone, Default)]
struct EntryKeys {
    /// `None` where macros leave the key empty: it never matches.
    primary: Vec<Option<Key>>,
    secondary: Vec<Option<Key>>,
    raw_primary: Vec<Key>,
    raw_secondary: Vec<Key>,
}

/// Which of an entry's key lists to test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum List {
    /// Primary keys after macros.
    Primary,
    /// Secondary keys after macros.
    Secondary,
    /// Primary keys as written.
    RawPrimary,
    /// Secondary keys as written.
    RawSecondary,
}

/// Every entry's keys, compiled for one set of books and names.
pub struct KeySet {
    entries: Vec<EntryKeys>,
    exact: Option<AhoCorasick>,
    folded: Option<AhoCorasick>,
    exact_len: usize,
    folded_len: usize,
    regexes: RegexCache,
    /// Each entry's `bookName.uid` as a small number: entries sharing a
    /// key share it.
    identities: Vec<usize>,
    /// Whether an entry's primary keys are all plain keys (or empty), so
    /// the automata's hits alone decide whether it can match; filled by
    /// [`KeySet::prefilter`].
    plain_only: Vec<bool>,
    /// By pattern id, the plain-only entries with a primary key of that
    /// pattern: case-sensitive entries by the exact pattern, the others
    /// by the folded one.
    postings_exact: Vec<Vec<u32>>,
    postings_folded: Vec<Vec<u32>>,
    /// Entries whose keys were replaced after the automata were built
    /// ([`KeySet::replace`]): tested one key at a time, outside them.
    loose: Vec<bool>,
    loose_count: usize,
    /// Keys expanded again during one request, after a macro in an
    /// activated entry's content changed a variable
    /// ([`KeySet::set_request_keys`]); cleared before each request.
    request_keys: std::collections::HashMap<usize, EntryKeys>,
    /// Whether expanding an entry's keys sets a variable (`{{setvar}}` in
    /// a key): such keys are expanded when tested, in SillyTavern's order.
    writes: Vec<bool>,
}

/// Whether expanding `e`'s keys changes a variable.
fn keys_write(e: &StEntry, names: &Names) -> bool {
    let has_macro = |k: &&String| k.contains("{{") || k.contains('<');
    e.keys
        .iter()
        .chain(&e.secondary)
        .filter(has_macro)
        .any(|k| names.expand(k).wrote)
}

/// The most entries [`KeySet::replace`] takes out of the automata before
/// it asks for a new set: each is tested key by key on every scan.
pub const LOOSE_MAX: usize = 64;

/// Interns pattern strings into automaton ids.
#[derive(Default)]
struct Patterns {
    ids: HashMap<String, u32>,
    list: Vec<String>,
}

impl Patterns {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(id) = self.ids.get(s) {
            return *id;
        }
        let id = self.list.len() as u32;
        self.ids.insert(s.to_string(), id);
        self.list.push(s.to_string());
        id
    }

    fn build(self) -> (Option<AhoCorasick>, usize) {
        let n = self.list.len();
        let automaton = (n > 0).then(|| {
            AhoCorasickBuilder::new()
                .match_kind(MatchKind::Standard)
                .build(&self.list)
                .expect("plain keys always build an automaton")
        });
        (automaton, n)
    }
}

fn words(key: &str) -> usize {
    key.split(is_js_ws).filter(|w| !w.is_empty()).count()
}

/// How many entries [`KeySet::new_while`] (and the entries' reading,
/// `entry::load_while`) take between two questions whether to go on.
pub const CHECK_EVERY: usize = 128;

impl KeySet {
    /// Compiles the keys of `entries` with `names` expanded.
    pub fn new(entries: &[StEntry], names: &Names) -> Self {
        Self::new_while(entries, names, || true).expect("a build that always goes on ends")
    }

    /// [`KeySet::new`] that asks `keep_going` every [`CHECK_EVERY`] entries
    /// and before each automaton is built, and stops when it says no
    /// (`None`).
    pub fn new_while(
        entries: &[StEntry],
        names: &Names,
        keep_going: impl Fn() -> bool,
    ) -> Option<Self> {
        let mut exact = Patterns::default();
        let mut folded = Patterns::default();
        let mut regexes = RegexCache::default();
        let mut compile = |key: &str| -> Key {
            if key.is_empty() || regexes.too_large(key) {
                return Key::Other(key.to_string());
            }
            if regexes.get(key).is_some() {
                let literal = required_literal(key).map(|(literal, in_folded)| {
                    let patterns = if in_folded { &mut folded } else { &mut exact };
                    Literal {
                        folded: in_folded,
                        id: patterns.id(&literal),
                        has_s: in_folded && literal.contains('s'),
                    }
                });
                return Key::Regex {
                    text: key.to_string(),
                    literal,
                };
            }
            let lower = key.to_lowercase();
            Key::Plain {
                exact: exact.id(key),
                folded: folded.id(&lower),
                multi_exact: words(key) > 1,
                multi_folded: words(&lower) > 1,
            }
        };
        let mut prepared = |key: &str| -> Option<Key> {
            let k = substitute(key, names);
            (!k.is_empty()).then(|| compile(js_trim(&k)))
        };
        let mut compiled = Vec::with_capacity(entries.len());
        let mut writes = Vec::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            if i % CHECK_EVERY == 0 && !keep_going() {
                return None;
            }
            writes.push(keys_write(e, names));
            let primary = e.keys.iter().map(|k| prepared(k)).collect();
            let secondary = e.secondary.iter().map(|k| prepared(k)).collect();
            compiled.push(EntryKeys {
                primary,
                secondary,
                raw_primary: Vec::new(),
                raw_secondary: Vec::new(),
            });
        }
        for (i, (e, c)) in entries.iter().zip(&mut compiled).enumerate() {
            if i % CHECK_EVERY == 0 && !keep_going() {
                return None;
            }
            c.raw_primary = e.keys.iter().map(|k| compile(k)).collect();
            c.raw_secondary = e.secondary.iter().map(|k| compile(k)).collect();
        }
        // Each automaton is built in one step that cannot stop half-way.
        if !keep_going() {
            return None;
        }
        let (exact, exact_len) = exact.build();
        if !keep_going() {
            return None;
        }
        let (folded, folded_len) = folded.build();
        let mut seen: HashMap<&str, usize> = HashMap::new();
        let identities = entries
            .iter()
            .map(|e| {
                let next = seen.len();
                *seen.entry(e.key.as_str()).or_insert(next)
            })
            .collect();
        Some(KeySet {
            loose: vec![false; compiled.len()],
            loose_count: 0,
            request_keys: Default::default(),
            writes,
            identities,
            plain_only: Vec::new(),
            postings_exact: Vec::new(),
            postings_folded: Vec::new(),
            entries: compiled,
            exact,
            folded,
            exact_len,
            folded_len,
            regexes,
        })
    }

    /// Lists each entry whose primary keys are all plain under the
    /// patterns of those keys, so a scanned text rules out at once the
    /// entries none of whose patterns it holds (see
    /// [`KeySet::may_match`]). `case_sensitive(e)` is entry `e`'s
    /// resolved case sensitivity.
    pub fn prefilter(&mut self, case_sensitive: impl Fn(usize) -> bool) {
        self.postings_exact = vec![Vec::new(); self.exact_len];
        self.postings_folded = vec![Vec::new(); self.folded_len];
        self.plain_only = self
            .entries
            .iter()
            .map(|k| {
                k.primary
                    .iter()
                    .all(|key| matches!(key, None | Some(Key::Plain { .. })))
            })
            .collect();
        for (e, keys) in self.entries.iter().enumerate() {
            if !self.plain_only[e] {
                continue;
            }
            let cs = case_sensitive(e);
            for key in keys.primary.iter().flatten() {
                if let Key::Plain { exact, folded, .. } = *key {
                    let list = if cs {
                        &mut self.postings_exact[exact as usize]
                    } else {
                        &mut self.postings_folded[folded as usize]
                    };
                    if list.last() != Some(&(e as u32)) {
                        list.push(e as u32);
                    }
                }
            }
        }
    }

    /// False when entry `e` cannot match any primary key in `hay`: its
    /// keys are all plain and none of their patterns occurs. True
    /// otherwise (the keys are then tested one by one).
    pub fn may_match(&self, hay: &mut Hay, e: usize) -> bool {
        if self.plain_only.get(e) != Some(&true) || self.request_keyed(e) {
            return true;
        }
        if hay.maybe.is_none() {
            let mut maybe = vec![false; self.plain_only.len()];
            for (cs, postings) in [(true, &self.postings_exact), (false, &self.postings_folded)] {
                if postings.iter().all(Vec::is_empty) {
                    continue;
                }
                for (id, bits) in hay.hits(self, cs).iter().enumerate() {
                    if *bits != 0 {
                        for &x in &postings[id] {
                            maybe[x as usize] = true;
                        }
                    }
                }
            }
            hay.maybe = Some(maybe);
        }
        hay.maybe.as_ref().is_some_and(|m| m[e])
    }

    /// For the rest of this request, entry `e`'s keys are these (expanded
    /// again with the variables as an activated entry's macros left them),
    /// tested one at a time.
    pub fn set_request_keys(
        &mut self,
        e: usize,
        primary: Vec<Option<String>>,
        secondary: Vec<Option<String>>,
    ) {
        let Some(raw) = self.entries.get(e) else {
            return;
        };
        let other = |k: Option<String>| k.map(Key::Other);
        let keys = EntryKeys {
            primary: primary.into_iter().map(other).collect(),
            secondary: secondary.into_iter().map(other).collect(),
            raw_primary: raw.raw_primary.clone(),
            raw_secondary: raw.raw_secondary.clone(),
        };
        self.request_keys.insert(e, keys);
    }

    /// Whether expanding entry `e`'s keys sets a variable.
    pub fn writes(&self, e: usize) -> bool {
        self.writes.get(e).copied().unwrap_or(false)
    }

    /// Expands again, with `names`' variables, the keys of the entries
    /// whose keys hold macros: SillyTavern expands every key on every pass.
    /// Keys that set variables are left to [`KeySet::expand_writer`].
    pub fn expand_again(&mut self, entries: &[StEntry], names: &Names) {
        let has_macro = |k: &String| k.contains("{{") || k.contains('<');
        let expand = |k: &String| {
            let text = substitute(k, names);
            (!text.is_empty()).then(|| js_trim(&text).to_string())
        };
        for (i, e) in entries.iter().enumerate() {
            if !self.writes(i) && e.keys.iter().chain(&e.secondary).any(has_macro) {
                let primary = e.keys.iter().map(expand).collect();
                let secondary = e.secondary.iter().map(expand).collect();
                self.set_request_keys(i, primary, secondary);
            }
        }
    }

    /// Expands the keys of entry `i` (`e`), which set variables, as they
    /// are tested: what one sets is seen by the keys after it. When they
    /// changed the variables, every other macro key is expanded again and
    /// the names with the new variables are returned.
    pub fn expand_writer(
        &mut self,
        i: usize,
        e: &StEntry,
        entries: &[StEntry],
        before: &Names,
    ) -> Option<Names> {
        let mut names = before.clone();
        let mut expand = |k: &String| {
            let ex = names.expand(k);
            if let Some(vars) = ex.vars {
                names.vars = std::sync::Arc::new(vars);
            }
            (!ex.text.is_empty()).then(|| js_trim(&ex.text).to_string())
        };
        let primary: Vec<_> = e.keys.iter().map(&mut expand).collect();
        let secondary: Vec<_> = e.secondary.iter().map(&mut expand).collect();
        self.set_request_keys(i, primary, secondary);
        if names.vars == before.vars {
            return None;
        }
        self.expand_again(entries, &names);
        Some(names)
    }

    /// Whether entry `e`'s keys were set for this request (no lookup in
    /// the common case of none).
    fn request_keyed(&self, e: usize) -> bool {
        !self.request_keys.is_empty() && self.request_keys.contains_key(&e)
    }

    /// Entry `e`'s keys as this request tests them.
    fn keys_now(&self, e: usize) -> &EntryKeys {
        if self.request_keys.is_empty() {
            return &self.entries[e];
        }
        self.request_keys.get(&e).unwrap_or(&self.entries[e])
    }

    /// Forgets what [`KeySet::set_request_keys`] set.
    pub fn clear_request_keys(&mut self) {
        if !self.request_keys.is_empty() {
            self.request_keys.clear();
        }
    }

    /// Takes entry `e`'s keys anew from `entry` (same `bookName.uid`)
    /// without building the automata again: its keys, macros expanded as
    /// [`KeySet::new`] does, are then tested one at a time with
    /// [`matching::matches`], the reference the automata agree with, so the
    /// answers are those of a set built from the edited entries. False,
    /// with nothing changed, when [`LOOSE_MAX`] entries are already so and
    /// `e` is not one of them: the caller builds a new set.
    pub fn replace(&mut self, e: usize, entry: &StEntry, names: &Names) -> bool {
        if e >= self.entries.len() || (!self.loose[e] && self.loose_count >= LOOSE_MAX) {
            return false;
        }
        let prepared = |key: &String| -> Option<Key> {
            let k = substitute(key, names);
            (!k.is_empty()).then(|| Key::Other(js_trim(&k).to_string()))
        };
        if let Some(w) = self.writes.get_mut(e) {
            *w = keys_write(entry, names);
        }
        self.entries[e] = EntryKeys {
            primary: entry.keys.iter().map(prepared).collect(),
            secondary: entry.secondary.iter().map(prepared).collect(),
            raw_primary: entry.keys.iter().cloned().map(Key::Other).collect(),
            raw_secondary: entry.secondary.iter().cloned().map(Key::Other).collect(),
        };
        // Never ruled out by the automata's hits: its keys are not in them.
        if let Some(p) = self.plain_only.get_mut(e) {
            *p = false;
        }
        if !self.loose[e] {
            self.loose[e] = true;
            self.loose_count += 1;
        }
        true
    }

    /// Entry `e`'s `bookName.uid` as a number below the number of entries.
    pub fn identity(&self, e: usize) -> usize {
        self.identities[e]
    }

    /// The first key of `list` of entry `e` that is a regex key given up
    /// on for `hay` (out of its steps, see [`matching::regex_step_budget`];
    /// the request's steps spent; too large to compile), by its index in
    /// the list, and why.
    pub fn given_up(&self, hay: &Hay, e: usize, list: List) -> Option<(usize, GiveUp)> {
        // Most texts give up on no key: then the entry's keys (a cache miss
        // each, on every entry that did not match) are not read at all.
        if !hay.text.gave_up_any() {
            return None;
        }
        let keys = self.keys_now(e);
        let why = |key: Option<&Key>| match key {
            Some(Key::Regex { text, .. } | Key::Other(text)) => hay.text.given_up(text),
            _ => None,
        };
        let find = |it: &mut dyn Iterator<Item = Option<&Key>>| {
            it.enumerate().find_map(|(i, k)| why(k).map(|w| (i, w)))
        };
        match list {
            List::Primary => find(&mut keys.primary.iter().map(Option::as_ref)),
            List::Secondary => find(&mut keys.secondary.iter().map(Option::as_ref)),
            List::RawPrimary => find(&mut keys.raw_primary.iter().map(Some)),
            List::RawSecondary => find(&mut keys.raw_secondary.iter().map(Some)),
        }
    }

    /// Whether key `k` of `list` of entry `e` occurs in `hay`.
    pub fn matches(
        &mut self,
        hay: &mut Hay,
        e: usize,
        list: List,
        k: usize,
        mode: KeyMode,
    ) -> bool {
        // Field by field: the regex cache is borrowed mutably below.
        let keys = match self.request_keys.is_empty() {
            true => &self.entries[e],
            false => self.request_keys.get(&e).unwrap_or(&self.entries[e]),
        };
        let key = match list {
            List::Primary => keys.primary[k].as_ref(),
            List::Secondary => keys.secondary[k].as_ref(),
            List::RawPrimary => Some(&keys.raw_primary[k]),
            List::RawSecondary => Some(&keys.raw_secondary[k]),
        };
        match key {
            None => false,
            Some(Key::Other(text)) => {
                matching::matches(&mut hay.text, text, mode, &mut self.regexes)
            }
            Some(Key::Regex { text, literal }) => {
                let seen = literal.is_none_or(|l| {
                    hay.hits(self, !l.folded)[l.id as usize] & SUBSTRING != 0
                        || (l.has_s && hay.text.raw.contains('\u{17F}'))
                });
                seen && matching::matches(&mut hay.text, text, mode, &mut self.regexes)
            }
            Some(&Key::Plain {
                exact,
                folded,
                multi_exact,
                multi_folded,
            }) => {
                let (id, multi) = if mode.case_sensitive {
                    (exact, multi_exact)
                } else {
                    (folded, multi_folded)
                };
                let hits = hay.hits(self, mode.case_sensitive);
                let bit = if !mode.whole_words || multi {
                    SUBSTRING
                } else {
                    WHOLE_WORD
                };
                hits[id as usize] & bit != 0
            }
        }
    }
}

const SUBSTRING: u8 = 1;
const WHOLE_WORD: u8 = 2;

/// One scanned text with the plain keys' hits, found when first needed.
pub struct Hay {
    text: Haystack,
    exact: Option<Vec<u8>>,
    folded: Option<Vec<u8>>,
    /// By entry, whether a pattern of its plain keys occurs (see
    /// [`KeySet::may_match`]).
    maybe: Option<Vec<bool>>,
}

impl Hay {
    fn new(raw: String, steps: RequestSteps) -> Self {
        Hay {
            text: Haystack::sharing(raw, steps),
            exact: None,
            folded: None,
            maybe: None,
        }
    }

    fn hits(&mut self, keys: &KeySet, case_sensitive: bool) -> &[u8] {
        let (slot, automaton, len) = if case_sensitive {
            (&mut self.exact, &keys.exact, keys.exact_len)
        } else {
            (&mut self.folded, &keys.folded, keys.folded_len)
        };
        if slot.is_none() {
            let text = if case_sensitive {
                self.text.raw.as_str()
            } else {
                self.text.lower()
            };
            *slot = Some(scan(text, automaton.as_ref(), len));
        }
        slot.as_deref().unwrap_or_default()
    }
}

/// Every pattern's hits in `text`: substring, and whole word when some
/// occurrence has no word character on either side.
fn scan(text: &str, automaton: Option<&AhoCorasick>, len: usize) -> Vec<u8> {
    let mut hits = vec![0u8; len];
    let Some(automaton) = automaton else {
        return hits;
    };
    for m in automaton.find_overlapping_iter(text) {
        let slot = &mut hits[m.pattern().as_usize()];
        *slot |= SUBSTRING;
        if *slot & WHOLE_WORD == 0 {
            let before = text[..m.start()].chars().next_back();
            let after = text[m.end()..].chars().next();
            if !before.is_some_and(matching::is_word) && !after.is_some_and(matching::is_word) {
                *slot |= WHOLE_WORD;
            }
        }
    }
    hits
}

/// A view of the scan buffer (see [`ScanBuffer::view`]).
type View = (usize, [bool; 6], usize);

/// The texts of one request, built once per distinct view of the buffer.
/// A request has a handful of views, so a list searched in order beats
/// hashing the view once per entry.
pub struct Hays {
    views: Vec<(View, Hay)>,
    /// The steps left to the request's regex keys, on all its texts.
    steps: RequestSteps,
}

impl Default for Hays {
    fn default() -> Self {
        Hays {
            views: Vec::new(),
            steps: matching::request_steps(),
        }
    }
}

impl Hays {
    /// The text an entry scans at `depth` (see [`ScanBuffer::text`]).
    pub fn get(
        &mut self,
        buffer: &ScanBuffer<'_>,
        depth: f64,
        sources: &[bool; 6],
        kind: PassKind,
    ) -> &mut Hay {
        let view = buffer.view(depth, sources, kind);
        let at = match self.views.iter().position(|(v, _)| *v == view) {
            Some(at) => at,
            None => {
                let hay = Hay::new(buffer.text(depth, sources, kind), self.steps.clone());
                self.views.push((view, hay));
                self.views.len() - 1
            }
        };
        &mut self.views[at].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sillytavern::entry;

    // Compiled keys answer as world-info.js: WorldInfoBuffer.matchKeys,
    // which matching::matches implements key by key.
    #[test]
    fn compiled_keys_agree_with_matching_one_key_at_a_time() {
        let keys = [
            "apple",
            "Apple",
            "pple",
            "red apple",
            "a",
            "c++",
            "mão",
            "/app(le)?s?/i",
            "/APPLE/",
            "/ap|zz/i",
            "/x*apple/",
            "/kelvin/i",
            "/sun/i",
            "/ſ/i",
            "  ",
            "{{user}}",
            "é",
        ];
        let texts = [
            "\u{1}I ate an apple.",
            "\u{1}Red Apple pie\n\u{1}c++ and a mão",
            "\u{1}apples, KELVIN, Tom",
            "\u{1}pineapple",
            "\u{1}the \u{17F}un, \u{212A}elvin",
            "",
        ];
        let entries: Vec<StEntry> = keys
            .iter()
            .map(|k| {
                let v = serde_json::json!({"uid": 0, "key": [k], "keysecondary": [k]});
                entry::read_entry(0, "w", "0", &v)
            })
            .collect();
        let names = Names {
            user: "Tom".into(),
            char: "Mira".into(),
            ..Default::default()
        };
        let mut set = KeySet::new(&entries, &names);
        let mut ruled_out = 0;
        for text in texts {
            for case_sensitive in [false, true] {
                set.prefilter(|_| case_sensitive);
                for whole_words in [false, true] {
                    let mode = KeyMode {
                        case_sensitive,
                        whole_words,
                    };
                    let mut hay = Hay::new(text.to_string(), matching::request_steps());
                    for (i, key) in keys.iter().enumerate() {
                        let mut one = Haystack::new(text.to_string());
                        let mut regexes = RegexCache::default();
                        let raw = matching::matches(&mut one, key, mode, &mut regexes);
                        let k = substitute(key, &names);
                        let prepared = !k.is_empty()
                            && matching::matches(&mut one, js_trim(&k), mode, &mut regexes);
                        let what = format!("{key:?} in {text:?} {mode:?}");
                        assert_eq!(
                            set.matches(&mut hay, i, List::Primary, 0, mode),
                            prepared,
                            "{what}"
                        );
                        // The prefilter never rules out an entry that matches.
                        if !set.may_match(&mut hay, i) {
                            assert!(!prepared, "ruled out: {what}");
                            ruled_out += 1;
                        }
                        assert_eq!(
                            set.matches(&mut hay, i, List::RawSecondary, 0, mode),
                            raw,
                            "{what}"
                        );
                    }
                }
            }
        }
        assert!(
            ruled_out > 20,
            "the prefilter rules out entries ({ruled_out})"
        );
        assert_eq!(
            required_literal("/app(le)?s?/i"),
            Some(("app".into(), true))
        );
        assert_eq!(required_literal("/apples/i"), Some(("apples".into(), true)));
        assert_eq!(required_literal("/APPLE/"), Some(("APPLE".into(), false)));
        assert_eq!(required_literal("/ap|zz/i"), None);
        assert_eq!(required_literal("/(a|b)c/"), None);
        assert_eq!(required_literal("/ab*/"), Some(("a".into(), false)));
        assert_eq!(required_literal("/a[|]b/"), Some(("a".into(), false)));
        assert_eq!(required_literal("/apple/u"), None);
    }
}
