//! The texts one RisuAI request scans (its messages, the scan-depth
//! windows over them and the recursive texts added as entries activate),
//! and the seeded roll that stands in for RisuAI's `Math.random()`
//! (docs/risu-rules.md, "Activation").

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::detail::Found;
use super::matching::{Hits, KeyTable, QueryKeys};

/// The texts a request scans: its messages (oldest first) and the
/// recursive texts added as entries activate.
pub(crate) struct Texts<'a> {
    pub messages: Vec<&'a str>,
    pub hits: Vec<Arc<Hits>>,
    pub(crate) windows: HashMap<usize, (HashSet<u32>, HashSet<u32>)>,
    pub recursive: Vec<(usize, String)>,
    pub(crate) recursive_hits: Vec<Hits>,
    pub(crate) recursive_partial: HashSet<u32>,
    pub(crate) recursive_full: HashSet<u32>,
}

impl<'a> Texts<'a> {
    pub fn new(messages: Vec<&'a str>, hits: Vec<Arc<Hits>>) -> Self {
        Texts {
            messages,
            hits,
            windows: HashMap::new(),
            recursive: Vec::new(),
            recursive_hits: Vec::new(),
            recursive_partial: HashSet::new(),
            recursive_full: HashSet::new(),
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
        let hits = &self.hits;
        self.windows.entry(start).or_insert_with(|| {
            let mut partial = HashSet::new();
            let mut full = HashSet::new();
            for h in &hits[start..] {
                partial.extend(h.partial.iter().copied());
                full.extend(h.full.iter().copied());
            }
            (partial, full)
        });
    }

    /// The keys found in the messages from `start` on (partial, full);
    /// [`Texts::ensure_window`] first.
    pub(crate) fn window(&self, start: usize) -> (&HashSet<u32>, &HashSet<u32>) {
        let (p, f) = &self.windows[&start];
        (p, f)
    }

    pub fn push_recursive(&mut self, entry: usize, body: String, keys: &KeyTable) {
        let h = keys.hits(&body);
        self.recursive_partial.extend(h.partial.iter().copied());
        self.recursive_full.extend(h.full.iter().copied());
        self.recursive_hits.push(h);
        self.recursive.push((entry, body));
    }

    /// Whether any key of `q` is in the window or (with `recursive`) a
    /// recursive text; where the first one is.
    pub(crate) fn any(
        &mut self,
        q: &QueryKeys,
        full: bool,
        start: usize,
        recursive: bool,
        names: &dyn Fn(usize) -> String,
    ) -> Option<(String, Found)> {
        self.ensure_window(start);
        let (wp, wf) = self.window(start);
        for (raw, id) in q.raw.iter().zip(&q.ids) {
            let (in_window, in_rec) = if full {
                (
                    wf.contains(&id.full),
                    self.recursive_full.contains(&id.full),
                )
            } else {
                (
                    wp.contains(&id.partial),
                    self.recursive_partial.contains(&id.partial),
                )
            };
            if in_window {
                let n = (start..self.messages.len())
                    .find(|&m| self.hits[m].has(*id, full))
                    .unwrap_or(start);
                return Some((raw.clone(), Found::Message { n: n + 1 }));
            }
            if recursive && in_rec {
                let at = self
                    .recursive_hits
                    .iter()
                    .position(|h| h.has(*id, full))
                    .unwrap_or(0);
                let name = names(self.recursive[at].0);
                return Some((raw.clone(), Found::Entry { name }));
            }
        }
        None
    }

    /// RisuAI's "all" mode: every key in every scanned text (true when
    /// there are no texts or no keys).
    pub(crate) fn all(&self, q: &QueryKeys, full: bool, start: usize, recursive: bool) -> bool {
        let texts = self.hits[start..]
            .iter()
            .map(|h| h.as_ref())
            .chain(self.recursive_hits.iter().filter(|_| recursive));
        for h in texts {
            if !q.ids.iter().all(|id| h.has(*id, full)) {
                return false;
            }
        }
        true
    }

    pub(crate) fn raw(&self, start: usize, recursive: bool) -> Vec<&str> {
        let mut v: Vec<&str> = self.messages[start..].to_vec();
        if recursive {
            v.extend(self.recursive.iter().map(|(_, b)| b.as_str()));
        }
        v
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
