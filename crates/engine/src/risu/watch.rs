//! Which entries a key wakes: for the entries that only their keys can
//! change between two passes of a request, every key id their queries
//! read, inverted (key id → entries). Such an entry's answer depends only
//! on which of its keys the request's texts hold (and where each was
//! first found, which a later text cannot change), so a request evaluates
//! it again only when a key of it is found for the first time, as a
//! partial or as a whole word; the answers are those of evaluating every
//! entry in every pass (`crates/engine/tests/risu_props.rs` compares them
//! on random books).

use super::matching::Hits;
use super::Prepared;

/// Key id → entries, as offsets into one flat list.
#[derive(Debug, Clone, Default)]
struct Inverted {
    start: Vec<u32>,
    entries: Vec<u32>,
}

impl Inverted {
    fn new(mut pairs: Vec<(u32, u32)>) -> Self {
        pairs.sort_unstable();
        pairs.dedup();
        let ids = pairs.last().map_or(0, |p| p.0 as usize + 1);
        let mut start = vec![0u32; ids + 1];
        for &(id, _) in &pairs {
            start[id as usize + 1] += 1;
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        Inverted {
            start,
            entries: pairs.into_iter().map(|p| p.1).collect(),
        }
    }

    fn ids(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    fn of(&self, id: u32) -> &[u32] {
        let i = id as usize;
        match (self.start.get(i), self.start.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.entries[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// The entries each key id wakes, and the key ids some entry reads.
#[derive(Debug, Clone, Default)]
pub(crate) struct Watchers {
    partial: Inverted,
    full: Inverted,
    /// Whether some entry's queries can read each key id (partial-mode
    /// ids, whole-word ids): an id only entries of the other matching
    /// mode have is left out of the recursive texts' keys
    /// ([`Watchers::relevant`]), so a request does not note it.
    read: (Vec<bool>, Vec<bool>),
}

impl Watchers {
    /// `mode`: for the entries whose answer cannot change until a key is
    /// found in their matching mode, whether that is whole words (only
    /// those ids then wake them); `None`: any of their keys found in
    /// either mode.
    pub fn new(entries: &[Prepared], mode: &[Option<bool>]) -> Self {
        let mut partial = Vec::new();
        let mut full = Vec::new();
        let (mut read_partial, mut read_full) = (Vec::new(), Vec::new());
        let mark = |v: &mut Vec<bool>, id: u32| {
            let i = id as usize;
            if i >= v.len() {
                v.resize(i + 1, false);
            }
            v[i] = true;
        };
        for (i, p) in entries.iter().enumerate() {
            let queries = [&p.primary, &p.secondary]
                .into_iter()
                .chain(p.deco_keys.iter());
            for q in queries {
                for id in &q.ids {
                    if mode[i] != Some(true) {
                        mark(&mut read_partial, id.partial);
                        if p.skippable() {
                            partial.push((id.partial, i as u32));
                        }
                    }
                    if mode[i] != Some(false) {
                        mark(&mut read_full, id.full);
                        if p.skippable() {
                            full.push((id.full, i as u32));
                        }
                    }
                }
            }
        }
        Watchers {
            partial: Inverted::new(partial),
            full: Inverted::new(full),
            read: (read_partial, read_full),
        }
    }

    /// Whether the two read the same key ids (else what was kept of the
    /// bodies' keys must be found again).
    pub fn reads_as(&self, other: &Watchers) -> bool {
        self.read == other.read
    }

    /// `hits` without the ids no entry reads: an entry whose answer
    /// cannot change until a key is found in its matching mode
    /// ([`super::activation::Statics::mode`]) answers "no match" without
    /// one either way, so only the other ids are noted for recursion.
    pub fn relevant(&self, mut hits: Hits) -> Hits {
        let read = |v: &Vec<bool>, id: u32| v.get(id as usize).copied().unwrap_or(false);
        hits.partial.retain(|&id| read(&self.read.0, id));
        hits.full.retain(|&id| read(&self.read.1, id));
        hits
    }

    /// Nothing found yet, for one request.
    pub fn seen(&self) -> Seen {
        Seen {
            partial: vec![false; self.partial.ids()],
            full: vec![false; self.full.ids()],
        }
    }

    /// Marks `due` every entry a key of `hits` wakes: those of the keys
    /// found for the first time in this request.
    pub fn wake(&self, hits: &Hits, seen_so_far: &mut Seen, due: &mut Due) {
        for (ids, inverted, seen) in [
            (&hits.partial, &self.partial, &mut seen_so_far.partial),
            (&hits.full, &self.full, &mut seen_so_far.full),
        ] {
            for &id in ids {
                wake_one(inverted, seen, id, due);
            }
        }
    }

    /// [`Watchers::wake`] for one key id (`partial`: a partial-mode id).
    #[inline]
    pub fn wake_id(&self, partial: bool, id: u32, seen_so_far: &mut Seen, due: &mut Due) {
        if partial {
            wake_one(&self.partial, &mut seen_so_far.partial, id, due);
        } else {
            wake_one(&self.full, &mut seen_so_far.full, id, due);
        }
    }
}

/// Marks `due` the entries `id` wakes, when it is found for the first time.
#[inline]
fn wake_one(inverted: &Inverted, seen: &mut [bool], id: u32, due: &mut Due) {
    let Some(seen) = seen.get_mut(id as usize) else {
        return;
    };
    if !std::mem::replace(seen, true) {
        for &e in inverted.of(id) {
            due.mark(e as usize);
        }
    }
}

/// Where a pass is: the next of the entries it evaluates every pass, and
/// the first index the woken ones may have.
#[derive(Default)]
pub(crate) struct PassOrder {
    next_every: usize,
    from: usize,
}

impl PassOrder {
    /// The pass's next entry in the book's order, its wake mark taken: the
    /// next of `every` or of the woken ones, whichever comes first.
    pub fn next(&mut self, every: &[usize], due: &mut Due) -> Option<usize> {
        let w = due.peek_from(self.from);
        let e = every.get(self.next_every).copied();
        let i = match (e, w) {
            (None, None) => return None,
            (Some(e), Some(w)) => e.min(w),
            (Some(e), None) => e,
            (None, Some(w)) => w,
        };
        if e == Some(i) {
            self.next_every += 1;
        }
        self.from = i + 1;
        due.take(i);
        Some(i)
    }
}

/// The entries woken and not yet evaluated, by index: a bit each, and a
/// bit for each word of 64 that holds any, so that a pass finds the next
/// woken entry at once and visits the entries it must evaluate and no
/// others (a pass over every entry made a 100,000-entry chain that
/// recurses one entry a pass cost passes × entries; a heap of the woken
/// ones cost a fifth of a request in its pops).
pub(crate) struct Due {
    bits: Vec<u64>,
    /// Bit `w` set: `bits[w]` is not zero.
    words: Vec<u64>,
}

impl Due {
    pub fn new(n: usize) -> Due {
        let words = n.div_ceil(64);
        Due {
            bits: vec![0; words],
            words: vec![0; words.div_ceil(64)],
        }
    }

    /// Marks entry `i` woken.
    #[inline]
    pub fn mark(&mut self, i: usize) {
        let w = i / 64;
        self.bits[w] |= 1 << (i % 64);
        self.words[w / 64] |= 1 << (w % 64);
    }

    /// Whether entry `i` was woken, clearing the mark.
    #[inline]
    pub fn take(&mut self, i: usize) -> bool {
        let w = i / 64;
        let bit = 1 << (i % 64);
        let was = self.bits[w] & bit != 0;
        self.bits[w] &= !bit;
        if self.bits[w] == 0 {
            self.words[w / 64] &= !(1 << (w % 64));
        }
        was
    }

    /// The smallest woken entry at or after `from` (its mark left). Those
    /// before `from` (woken by a text added after the pass went by them)
    /// keep their marks for the next pass.
    pub fn peek_from(&mut self, from: usize) -> Option<usize> {
        let w = from / 64;
        if w >= self.bits.len() {
            return None;
        }
        let here = self.bits[w] & (!0u64 << (from % 64));
        if here != 0 {
            return Some(w * 64 + here.trailing_zeros() as usize);
        }
        // The next word holding a mark, through the words' own bits.
        let next = w + 1;
        let mut s = next / 64;
        let mut mask = if next % 64 == 0 {
            !0u64
        } else {
            !0u64 << (next % 64)
        };
        while s < self.words.len() {
            let found = self.words[s] & mask;
            if found != 0 {
                let word = s * 64 + found.trailing_zeros() as usize;
                return Some(word * 64 + self.bits[word].trailing_zeros() as usize);
            }
            s += 1;
            mask = !0;
        }
        None
    }
}

/// The key ids a request's texts have held so far (those some entry
/// watches).
pub(crate) struct Seen {
    partial: Vec<bool>,
    full: Vec<bool>,
}

#[cfg(test)]
mod tests {
    use super::{Due, Inverted};

    /// The next woken entry at or after a point, across words and the
    /// words of words, as a sorted list of the marks finds it.
    #[test]
    fn due_finds_the_next_mark_as_a_sorted_list_would() {
        let n = 64 * 64 * 3 + 17;
        let mut due = Due::new(n);
        let mut marks = std::collections::BTreeSet::new();
        let mut x = 12345u64;
        for round in 0..2000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let i = (x >> 33) as usize % n;
            if round % 3 == 2 {
                assert_eq!(due.take(i), marks.remove(&i), "take {i}");
            } else {
                due.mark(i);
                marks.insert(i);
            }
            let from = (x >> 13) as usize % (n + 70);
            assert_eq!(
                due.peek_from(from),
                marks.range(from..).next().copied(),
                "from {from}"
            );
        }
        for i in marks.clone() {
            assert!(due.take(i));
        }
        assert_eq!(due.peek_from(0), None);
    }

    #[test]
    fn an_inverted_list_gives_each_ids_entries_once() {
        let inv = Inverted::new(vec![(3, 1), (0, 2), (3, 0), (3, 1), (5, 7)]);
        assert_eq!(inv.of(3), &[0, 1]);
        assert_eq!(inv.of(0), &[2]);
        assert_eq!(inv.of(5), &[7]);
        for id in [1, 2, 4, 6, 1000] {
            assert!(inv.of(id).is_empty());
        }
    }
}
