//! The request steps (SPEC §6 steps 1–6) as a seam: [`Rules`] decides, for
//! one request, which entries activate and why; this module holds what any
//! front-end's rules share over the same [`Index`] and [`HitCache`] — the
//! scan passes (step 3), the key and secondary-key test (steps 4 and 6), the
//! stable roll (step 5) and the state carried between requests.
//!
//! The guide's rules are [`Studio`](super::Studio); another front-end's
//! rules are a second implementation of [`Rules`] built from the same
//! pieces.

use std::collections::HashMap;

use super::hits::{HitCache, LiveHit};
use super::index::{EntryIx, Index, KeyIx};
use super::studio::Studio;
use crate::chat::Message;
use crate::explain::{Activation, DropReason, KeyMatch, Roll, Source};
use crate::model::SecondaryLogic;

/// One front-end's rules for steps 1–6 of a request: which entries of
/// `index` activate for `history` (the request's messages, oldest first).
pub trait Rules {
    fn activate(
        &self,
        index: &Index,
        cache: &mut HitCache,
        history: &[Message],
        seed: u64,
        state: &State,
    ) -> Activated;
}

/// Which entries matched in earlier requests, and in which request first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct State {
    matched: HashMap<EntryIx, usize>,
}

impl State {
    /// The request in which entry `at` first matched, if it did.
    pub(super) fn matched_in(&self, at: EntryIx) -> Option<usize> {
        self.matched.get(&at).copied()
    }
}

/// The result of steps 1–6 for one request, before the budget.
#[derive(Debug, Clone)]
pub struct Activated {
    /// The request's number: how many messages its history has.
    pub(super) request: usize,
    /// Per entry of the index, by [`EntryIx`].
    pub(super) status: Vec<Status>,
    /// How many recursion passes ran.
    pub(super) passes: u8,
}

/// An entry's state within one request.
#[derive(Debug, Clone)]
pub(super) enum Status {
    Out(DropReason),
    Active {
        activation: Activation,
        roll: Option<Roll>,
    },
}

impl Status {
    pub(super) fn is_active(&self) -> bool {
        matches!(self, Status::Active { .. })
    }
}

/// Where a key matched, before it is turned into a [`KeyMatch`].
#[derive(Debug, Clone, Copy)]
struct Loc {
    key: KeyIx,
    source: Source,
    start: u32,
    end: u32,
    pass: u8,
}

/// Matches found so far in one request, per entry.
#[derive(Debug, Default)]
pub(super) struct Found {
    primary: HashMap<EntryIx, Loc>,
    secondary: HashMap<EntryIx, Vec<Loc>>,
    /// Per entry, the first primary key a scan gave up on.
    gave_up: HashMap<EntryIx, KeyIx>,
}

impl Found {
    /// The entries with a primary match or a primary key the scan gave up
    /// on (each once or twice, in no order).
    pub(super) fn entries(&self) -> impl Iterator<Item = EntryIx> + '_ {
        self.primary.keys().chain(self.gave_up.keys()).copied()
    }

    /// Records `hit`, found in `source` during scan pass `pass`: an entry's
    /// first primary match is the one kept, and each secondary key once.
    fn add(&mut self, hit: LiveHit, source: Source, pass: u8) {
        if hit.gave_up {
            if !hit.secondary {
                self.gave_up.entry(hit.entry).or_insert(hit.key);
            }
            return;
        }
        let loc = Loc {
            key: hit.key,
            source,
            start: hit.start,
            end: hit.end,
            pass,
        };
        if hit.secondary {
            let list = self.secondary.entry(hit.entry).or_default();
            if !list.iter().any(|l| l.key == loc.key) {
                list.push(loc);
            }
        } else {
            self.primary.entry(hit.entry).or_insert(loc);
        }
    }

    /// Whether a primary key of entry `at` was found.
    pub(super) fn has_primary(&self, at: EntryIx) -> bool {
        self.primary.contains_key(&at)
    }
}

impl Index {
    /// Decides which entries activate in request `k` (the first `k`
    /// messages of `chat`) under the guide's rules, given what matched in
    /// earlier requests.
    pub fn activate(
        &self,
        cache: &mut HitCache,
        chat: &[Message],
        k: usize,
        seed: u64,
        state: &State,
    ) -> Activated {
        Studio.activate(self, cache, &chat[..k.min(chat.len())], seed, state)
    }

    /// Records the entries that matched in `a` (activated and passed their
    /// roll), for `@@keep` and `@@dont_activate_after_match` later.
    pub fn record(&self, a: &Activated, state: &mut State) {
        for (at, s) in a.status.iter().enumerate() {
            if s.is_active() {
                state.matched.entry(EntryIx::new(at)).or_insert(a.request);
            }
        }
    }

    /// Step 3, pass 0: the keys in the messages of `history` that lie
    /// within their entry's scan depth. Messages go newest first, so the
    /// explanation names the most recent match.
    pub(super) fn scan_messages(
        &self,
        cache: &mut HitCache,
        history: &[Message],
        found: &mut Found,
    ) {
        let k = history.len();
        for i in (k.saturating_sub(self.max_depth as usize)..k).rev() {
            let age = (k - 1 - i) as u32;
            self.for_each_hit(cache, &history[i].text, |hit| {
                if age < self.at(hit.entry).depth {
                    found.add(hit, Source::Message { index: i }, 0);
                }
            });
        }
    }

    /// Step 3, recursion pass `pass`: the keys in the body of active entry
    /// `source` of the entries that `waiting` says recursion may still
    /// activate. Each entry with a new match is pushed to `touched`.
    pub(super) fn scan_body(
        &self,
        cache: &mut HitCache,
        source: EntryIx,
        pass: u8,
        waiting: impl Fn(EntryIx) -> bool,
        found: &mut Found,
        touched: &mut Vec<EntryIx>,
    ) {
        let src = self.at(source);
        let from = Source::Entry {
            book: src.book,
            id: src.id,
        };
        self.for_each_hit(cache, &src.body, |hit| {
            if waiting(hit.entry) {
                found.add(hit, from, pass);
                touched.push(hit.entry);
            }
        });
    }

    /// Steps 4 to 6 for entry `at`: its keys against what was found, then
    /// its roll when they match.
    pub(super) fn match_and_roll(
        &self,
        at: EntryIx,
        found: &Found,
        seed: u64,
        request: usize,
    ) -> Status {
        match self.evaluate(at, found) {
            Ok(activation) => self.roll(at, activation, seed, request),
            Err(reason) => Status::Out(reason),
        }
    }

    /// Steps 4 and 6 for entry `at`: its keys against what was found.
    pub(super) fn evaluate(&self, at: EntryIx, found: &Found) -> Result<Activation, DropReason> {
        let e = self.at(at);
        let Some(primary) = found.primary.get(&at) else {
            return Err(DropReason::NoMatch {
                recursion_stopped: false,
                no_keys: e.primary.is_empty(),
                gave_up: found
                    .gave_up
                    .get(&at)
                    .map(|&k| self.key_text(k).to_string()),
            });
        };
        let primary = self.key_match(primary);
        let matched: Vec<KeyMatch> = found
            .secondary
            .get(&at)
            .map(|l| l.iter().map(|l| self.key_match(l)).collect())
            .unwrap_or_default();
        if e.selective {
            let m = matched.len();
            let total = e.secondary.len();
            let ok = match e.logic {
                SecondaryLogic::AndAny => m > 0,
                SecondaryLogic::AndAll => m == total,
                SecondaryLogic::NotAny => m == 0,
                SecondaryLogic::NotAll => m < total,
            };
            if !ok {
                return Err(DropReason::Secondary {
                    logic: e.logic.as_str().to_string(),
                    primary: Box::new(primary),
                    matched,
                });
            }
        }
        Ok(Activation::Key {
            primary,
            secondary: if e.selective { matched } else { Vec::new() },
        })
    }

    fn key_match(&self, l: &Loc) -> KeyMatch {
        KeyMatch {
            key: self.key_text(l.key).to_string(),
            source: l.source,
            start: l.start as usize,
            end: l.end as usize,
            pass: l.pass,
        }
    }

    /// Step 5: the probability roll of entry `at`, made once when it
    /// activates (as `activation`) in request `request`.
    pub(super) fn roll(
        &self,
        at: EntryIx,
        activation: Activation,
        seed: u64,
        request: usize,
    ) -> Status {
        let e = self.at(at);
        let Some(chance) = e.decorators.probability else {
            return Status::Active {
                activation,
                roll: None,
            };
        };
        let roll = roll(seed, request, e.book, e.id);
        if roll < chance {
            Status::Active {
                activation,
                roll: Some(Roll { roll, chance }),
            }
        } else {
            Status::Out(DropReason::Probability {
                roll,
                chance,
                activation: Box::new(activation),
            })
        }
    }
}

/// The stable roll of SPEC §4: 0–99 from `(seed, request, book, entry)`.
pub fn roll(seed: u64, request: usize, book: usize, id: u64) -> u8 {
    let mut h = splitmix(seed);
    h = splitmix(h ^ request as u64);
    h = splitmix(h ^ book as u64);
    h = splitmix(h ^ id);
    (h % 100) as u8
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}
