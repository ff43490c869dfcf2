//! The texts one RisuAI request scans (its messages, the scan-depth
//! windows over them and the recursive texts added as entries activate),
//! and the seeded roll that stands in for RisuAI's `Math.random()`
//! (docs/risu-rules.md, "Activation").

use std::sync::{Arc, OnceLock};

use super::detail::Found;
use super::matching::{Hits, KeyIds, KeyTable, RegexEnd};
use super::watch::Watchers;
use super::Prepared;

/// The texts a request scans: its messages (oldest first) and the
/// recursive texts added as entries activate.
pub(crate) struct Texts<'a> {
    pub messages: Vec<&'a str>,
    pub hits: Vec<Arc<Hits>>,
    /// The keys of each scan window asked for, by its first message (a
    /// request asks for one or two).
    pub(crate) windows: Vec<(usize, FirstSeen, FirstSeen)>,
    /// The recursive texts: the activated entry, and the entry whose body
    /// it brought (a child brings its folder's). Indexes, not the bodies:
    /// a request adds thousands, and a body's count is far from its text.
    pub recursive: Vec<(usize, usize)>,
    pub(crate) recursive_partial: FirstSeen,
    pub(crate) recursive_full: FirstSeen,
    /// The regex searches run, in order (what a request with other
    /// message texts must run again to answer the same; `memo.rs`).
    pub(crate) regex_searches: Vec<RegexSearch>,
}

/// One regex search a request ran: the key list searched (an entry's
/// query), the texts it read and what it found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RegexSearch {
    /// The entry whose keys were searched.
    pub source: usize,
    pub query: QuerySlot,
    /// The window's first message.
    pub start: usize,
    /// How many recursive texts followed the messages (`None`: none read).
    pub recursive: Option<usize>,
    pub end: RegexEnd,
}

/// Which key list of an entry a query searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QuerySlot {
    Primary,
    Secondary,
    /// The keys of the decorator line of that index.
    Line(usize),
}

impl<'a> Texts<'a> {
    pub fn new(messages: Vec<&'a str>, hits: Vec<Arc<Hits>>) -> Self {
        Texts {
            messages,
            hits,
            windows: Vec::new(),
            recursive: Vec::new(),
            recursive_partial: FirstSeen::default(),
            recursive_full: FirstSeen::default(),
            regex_searches: Vec::new(),
        }
    }

    /// The first message of the window of `depth` (JavaScript's
    /// `slice(length - depth)`: a negative start counts from the end, so a
    /// depth between the length and twice it scans only the last
    /// `2·length − depth` messages; NaN scans them all).
    pub fn window_start(&self, depth: f64) -> usize {
        let len = self.messages.len() as f64;
        if depth.is_nan() {
            return 0;
        }
        let mut start = len - depth.trunc();
        if start < 0.0 {
            start = (len + start).max(0.0);
        }
        start.min(len) as usize
    }

    pub(crate) fn ensure_window(&mut self, start: usize) {
        if self.windows.iter().any(|w| w.0 == start) {
            return;
        }
        let mut partial = FirstSeen::default();
        let mut full = FirstSeen::default();
        for (m, h) in self.hits.iter().enumerate().skip(start) {
            for &id in &h.partial {
                partial.note(id, m);
            }
            for &id in &h.full {
                full.note(id, m);
            }
        }
        self.windows.push((start, partial, full));
    }

    /// The keys found in the messages from `start` on (partial, full);
    /// [`Texts::ensure_window`] first.
    pub(crate) fn window(&self, start: usize) -> (&FirstSeen, &FirstSeen) {
        let (_, p, f) = self
            .windows
            .iter()
            .find(|w| w.0 == start)
            .expect("ensure_window first");
        (p, f)
    }

    /// Adds the body of activated entry `entry` as a recursive text, with
    /// its key hits (`h`, kept by the preview per body); `first` is told
    /// each key id no recursive text held before (`true`: a partial-mode
    /// id), in the same walk over the hits.
    #[inline]
    pub fn push_recursive(
        &mut self,
        entry: usize,
        source: usize,
        h: &Hits,
        mut first: impl FnMut(bool, u32),
    ) {
        let at = self.recursive.len();
        for &id in &h.partial {
            if self.recursive_partial.note(id, at) {
                first(true, id);
            }
        }
        for &id in &h.full {
            if self.recursive_full.note(id, at) {
                first(false, id);
            }
        }
        self.recursive.push((entry, source));
    }

    /// Whether any key of `q` is in the window or (with `recursive`) a
    /// recursive text: the first such key's index in `q` and where it is.
    pub(crate) fn find(
        &mut self,
        q: &[KeyIds],
        full: bool,
        start: usize,
        recursive: bool,
    ) -> Option<(usize, At)> {
        self.ensure_window(start);
        let (wp, wf) = self.window(start);
        for (k, id) in q.iter().enumerate() {
            let (in_window, in_rec) = if full {
                (wf.at(&id.full), self.recursive_full.at(&id.full))
            } else {
                (wp.at(&id.partial), self.recursive_partial.at(&id.partial))
            };
            if let Some(m) = in_window {
                return Some((k, At::Message(m + 1)));
            }
            if let Some(at) = in_rec.filter(|_| recursive) {
                return Some((k, At::Entry(self.recursive[at].0)));
            }
        }
        None
    }

    /// RisuAI's "all" mode: every key in every scanned text (true when
    /// there are no texts or no keys).
    /// The recursive texts' keys are `bodies`' (each was found when its
    /// text was added).
    pub(crate) fn all(
        &self,
        q: &[KeyIds],
        full: bool,
        start: usize,
        recursive: bool,
        bodies: &BodyCaches,
    ) -> bool {
        let kept = |&(_, s): &(usize, usize)| bodies[s].hits.get().expect("found when added");
        let texts = self.hits[start..]
            .iter()
            .map(|h| h.as_ref())
            .chain(self.recursive.iter().map(kept).filter(|_| recursive));
        for h in texts {
            if !q.iter().all(|id| h.has(*id, full)) {
                return false;
            }
        }
        true
    }

    /// The raw texts from message `start` on, then (with `recursive`) the
    /// recursive texts, whose bodies are `entries`'.
    pub(crate) fn raw<'s>(
        &'s self,
        start: usize,
        recursive: bool,
        entries: &'s [Prepared],
    ) -> Vec<&'s str> {
        let mut v: Vec<&str> = self.messages[start..].to_vec();
        if recursive {
            v.extend(self.recursive.iter().map(|&(_, s)| &*entries[s].body));
        }
        v
    }
}

/// Where a key was found: chat message `n` (1-based), or the body of the
/// activated entry of that index (recursion). Named for people by
/// [`At::found`] only when the answer shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum At {
    Message(usize),
    Entry(usize),
}

impl At {
    pub fn found(self, name: impl Fn(usize) -> String) -> Found {
        match self {
            At::Message(n) => Found::Message { n },
            At::Entry(e) => Found::Entry { name: name(e) },
        }
    }
}

/// A seeded roll in [0, 1) for `@@probability`: the same seed, request,
/// entry and pass always give the same roll.
pub(crate) fn roll(seed: u64, request: usize, entry: usize, pass: u32) -> f64 {
    let mut h = splitmix(seed);
    h = splitmix(h ^ request as u64);
    h = splitmix(h ^ entry as u64);
    h = splitmix(h ^ u64::from(pass));
    (h >> 11) as f64 / (1u64 << 53) as f64
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// What the preview keeps of each entry's body between requests: its key
/// hits as a recursive text and its tokens (an activated entry's body is
/// the same text every time). Indexed by entry; emptied when the entry is
/// replaced or the tokenizer changes. Each is set once, by whichever
/// request needs it first, so requests can run on several threads (the
/// log's).
#[derive(Debug, Clone, Default)]
pub(crate) struct BodyCache {
    /// Kept in the list itself, not behind a pointer of its own: a
    /// request reads thousands.
    pub hits: OnceLock<Hits>,
    pub tokens: OnceLock<u32>,
}

pub(crate) type BodyCaches = Vec<BodyCache>;

/// The key hits of entry `source`'s body that some entry reads
/// ([`Watchers::relevant`]), scanned once per preview (the body is read
/// only then).
pub(crate) fn body_hits<'c>(
    cache: &'c BodyCaches,
    keys: &KeyTable,
    watchers: &Watchers,
    source: usize,
    entries: &[Prepared],
) -> &'c Hits {
    cache[source]
        .hits
        .get_or_init(|| watchers.relevant(keys.hits(&entries[source].body)))
}

/// Where each key id was first seen (a text's index), as a dense table:
/// the ids are indexes into the key table, so a lookup is one load
/// instead of a hash or a search through the texts (the passes ask it
/// for every candidate entry's every key). Whether an id was seen at all
/// is also kept as one bit an id: a request notes the keys of thousands
/// of recursive texts, mostly ids seen already, and the bits stay in the
/// processor's nearest cache where the table does not.
#[derive(Debug, Clone, Default)]
pub(crate) struct FirstSeen {
    at: Vec<u32>,
    seen: Vec<u64>,
}

impl FirstSeen {
    /// Notes `id` in text `at`, unless it was seen in an earlier one;
    /// whether it was not.
    #[inline]
    pub fn note(&mut self, id: u32, at: usize) -> bool {
        let i = id as usize;
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        if word >= self.seen.len() {
            self.seen.resize(word + 1, 0);
        }
        if self.seen[word] & bit != 0 {
            return false;
        }
        self.seen[word] |= bit;
        if i >= self.at.len() {
            self.at.resize(i + 1, 0);
        }
        self.at[i] = at as u32;
        true
    }

    /// The first text `id` was seen in.
    #[inline]
    pub fn at(&self, id: &u32) -> Option<usize> {
        let i = *id as usize;
        self.contains(id).then(|| self.at[i] as usize)
    }

    #[inline]
    pub fn contains(&self, id: &u32) -> bool {
        let i = *id as usize;
        self.seen
            .get(i / 64)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::FirstSeen;

    #[test]
    fn the_first_text_a_key_was_seen_in_is_kept() {
        let mut s = FirstSeen::default();
        s.note(64, 3);
        s.note(64, 1);
        s.note(0, 0);
        s.note(1000, 7);
        assert_eq!(
            (s.at(&64), s.at(&0), s.at(&1000)),
            (Some(3), Some(0), Some(7))
        );
        for id in [1, 63, 65, 999, 1001, 100_000] {
            assert!(!s.contains(&id));
        }
    }
}
