//! The guide's rules for a request (SPEC §6 steps 1–6), in their order:
//! disabled entries (step 1), the gate decorators (step 2), constants and
//! `@@keep` entries, the keys in the scanned messages (steps 3, 4 and 6),
//! the roll (step 5), then recursion over the bodies of the active entries,
//! at most [`RECURSION_LIMIT`] passes.

use super::hits::HitCache;
use super::index::{CompiledEntry, EntryIx, Index};
use super::request::{Activated, Found, Rules, State, Status};
use crate::chat::{Message, Speaker};
use crate::explain::{Activation, DropReason, GateDetail};

/// How many recursion passes a request runs at most (SPEC §6 step 3).
pub const RECURSION_LIMIT: u8 = 3;

/// The rules of the guide (docs/semantics.md), the one [`Rules`] the studio runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Studio;

impl Rules for Studio {
    fn activate(
        &self,
        index: &Index,
        cache: &mut HitCache,
        history: &[Message],
        seed: u64,
        state: &State,
    ) -> Activated {
        let k = history.len();
        let has_user = history.iter().any(|m| m.role == Speaker::User);
        let mut found = Found::default();
        index.scan_messages(cache, history, &mut found);

        let mut status = Vec::with_capacity(index.entries.len());
        let mut sources = Vec::new();
        for (at, e) in index.entries.iter().enumerate() {
            let at = EntryIx::new(at);
            let s = if !e.enabled {
                Status::Out(DropReason::Disabled)
            } else if let Some(reason) = gate(e, at, k, has_user, state) {
                Status::Out(reason)
            } else if e.constant {
                index.roll(at, Activation::Constant, seed, k)
            } else if let Some(since) = state.matched_in(at).filter(|_| e.decorators.keep) {
                index.roll(
                    at,
                    Activation::Kept {
                        since_request: since,
                    },
                    seed,
                    k,
                )
            } else {
                index.match_and_roll(at, &found, seed, k)
            };
            if s.is_active() {
                sources.push(at);
            }
            status.push(s);
        }

        let passes = if index.any_recursive {
            recurse(index, cache, &mut status, sources, &mut found, seed, k)
        } else {
            0
        };
        Activated {
            request: k,
            status,
            passes,
        }
    }
}

/// Step 3's recursion: the bodies of the entries that just activated
/// (`sources`) are scanned for the keys of entries still waiting, pass after
/// pass, until none activates or [`RECURSION_LIMIT`] passes ran. Returns how
/// many passes ran.
fn recurse(
    index: &Index,
    cache: &mut HitCache,
    status: &mut [Status],
    mut sources: Vec<EntryIx>,
    found: &mut Found,
    seed: u64,
    k: usize,
) -> u8 {
    let mut passes = 0;
    while passes < RECURSION_LIMIT && !sources.is_empty() {
        passes += 1;
        // The first body to mention a key is the one the explanation names;
        // scanning bodies by (book, id) rather than by position keeps that
        // independent of where entries sit in their book, which incremental
        // edits cannot track.
        if !index.in_id_order {
            sources.sort_unstable_by_key(|&at| {
                let e = index.at(at);
                (e.book, e.id, at)
            });
        }
        let mut touched = Vec::new();
        let waiting = |t: EntryIx| awaits_recursion(index.at(t), &status[t.get()]);
        for &s in &sources {
            index.scan_body(cache, s, passes, waiting, found, &mut touched);
        }
        touched.sort_unstable();
        touched.dedup();
        let mut next = Vec::new();
        for t in touched {
            status[t.get()] = index.match_and_roll(t, found, seed, k);
            if status[t.get()].is_active() {
                next.push(t);
            }
        }
        sources = next;
    }
    // Recursion stopped with fresh bodies left unscanned: say so on the
    // entries whose keys are in them.
    if passes == RECURSION_LIMIT && !sources.is_empty() {
        let mut touched = Vec::new();
        let mut later = Found::default();
        let waiting = |t: EntryIx| awaits_recursion(index.at(t), &status[t.get()]);
        let pass = RECURSION_LIMIT + 1;
        for &s in &sources {
            index.scan_body(cache, s, pass, waiting, &mut later, &mut touched);
        }
        for t in touched {
            if let Status::Out(DropReason::NoMatch {
                recursion_stopped, ..
            }) = &mut status[t.get()]
            {
                *recursion_stopped = later.has_primary(t);
            }
        }
    }
    passes
}

/// Whether recursion may still activate entry `e`, now in `status`: its
/// book scans recursively and it is out only for want of a key match.
fn awaits_recursion(e: &CompiledEntry, status: &Status) -> bool {
    e.recursive
        && matches!(
            status,
            Status::Out(DropReason::NoMatch { no_keys: false, .. } | DropReason::Secondary { .. })
        )
}

/// Step 2: the gate decorators.
fn gate(
    e: &CompiledEntry,
    at: EntryIx,
    k: usize,
    has_user: bool,
    state: &State,
) -> Option<DropReason> {
    let d = &e.decorators;
    let gated = |detail: GateDetail| {
        Some(DropReason::Gated {
            decorator: detail.decorator().into(),
            detail,
        })
    };
    if let Some(needed) = d.activate_only_after {
        if (k as u64) < needed {
            return gated(GateDetail::TooFewMessages { needed, has: k });
        }
    }
    if let Some(every) = d.activate_only_every {
        if (k as u64) % every != 0 {
            return gated(GateDetail::NotAMultiple { has: k, every });
        }
    }
    if d.is_greeting && has_user {
        return gated(GateDetail::UserHasSpoken);
    }
    if d.dont_activate_after_match {
        if let Some(request) = state.matched_in(at) {
            return gated(GateDetail::AlreadyMatched { request });
        }
    }
    None
}
