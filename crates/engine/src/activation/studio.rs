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
        decide(index, cache, history, seed, state, false)
    }
}

/// Steps 1–6 of a request. Only the entries with a match and those that
/// need a look (`needs_a_look`) are decided; every other one has no match.
/// `everyone` decides every entry instead: the tests' reference.
fn decide(
    index: &Index,
    cache: &mut HitCache,
    history: &[Message],
    seed: u64,
    state: &State,
    everyone: bool,
) -> Activated {
    let k = history.len();
    let has_user = history.iter().any(|m| m.role == Speaker::User);
    let mut found = Found::default();
    index.scan_messages(cache, history, &mut found);

    let mut visit: Vec<EntryIx> = if everyone {
        (0..index.entries.len()).map(EntryIx::new).collect()
    } else {
        index.loud.iter().copied().chain(found.entries()).collect()
    };
    visit.sort_unstable_by_key(|at| at.get());
    visit.dedup();
    // Built, not cloned: a clone of the reason per entry took a seventh of
    // a 100,000-entry log.
    let mut status = Vec::with_capacity(index.entries.len());
    status.resize_with(index.entries.len(), || NO_MATCH);
    let mut sources = Vec::new();
    for at in visit {
        let e = index.at(at);
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
        status[at.get()] = s;
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
/// The status of an entry no request needs to look at: enabled, keyed,
/// neither constant nor gated nor kept, and none of its keys found.
const NO_MATCH: Status = Status::Out(DropReason::NoMatch {
    recursion_stopped: false,
    no_keys: false,
    gave_up: None,
});

/// Whether a request must decide entry `e` itself even when none of its
/// keys was found: a disabled, constant or keyless entry, or one with a
/// gate decorator or `@@keep`. For any other entry without a found key
/// every step ends in "no match" (step 1 passes it, `gate` lets it
/// through, it is no constant and keeps nothing, and `evaluate` finds no
/// primary match and no key given up on), so `activate` skips it.
pub(super) fn needs_a_look(e: &CompiledEntry) -> bool {
    let d = &e.decorators;
    !e.enabled
        || e.constant
        || e.primary.is_empty()
        || d.keep
        || d.dont_activate_after_match
        || d.is_greeting
        || d.activate_only_after.is_some()
        || d.activate_only_every.is_some()
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Book, Entry};

    const WORDS: [&str; 6] = ["harbor", "lamp", "fog", "tam", "storm", "gull"];

    /// Entries of every kind `needs_a_look` tells apart, keyed and bodied
    /// from a few words, in books with and without recursion.
    fn books(recursive: bool) -> Vec<Book> {
        (0..2)
            .map(|b| {
                let mut book = Book {
                    recursive_scanning: recursive,
                    scan_depth: 3,
                    ..Book::default()
                };
                for i in 0..96usize {
                    // One decorator at most per entry, so each kind is
                    // seen alone; a third of the entries roll as well.
                    let mut content = [
                        "@@keep\n",
                        "@@dont_activate_after_match\n",
                        "@@activate_only_after 3\n",
                        "@@activate_only_every 2\n",
                        "@@is_greeting 0\n",
                        "",
                        "",
                    ][(i / 2 + b) % 7]
                        .to_string();
                    if i % 3 == 0 {
                        content.push_str("@@probability 50\n");
                    }
                    content.push_str(&format!("About the {}.", WORDS[(i + 2) % 6]));
                    let keys = if i % 13 == 0 {
                        Vec::new()
                    } else if i % 2 == 0 {
                        vec![WORDS[i % 6].to_string()]
                    } else {
                        vec![format!("no-such-{i}"), WORDS[(i / 6) % 6].to_string()]
                    };
                    book.add_entry(Entry {
                        comment: format!("e{i}"),
                        keys,
                        secondary_keys: vec![WORDS[(i + 1) % 6].to_string()],
                        selective: i % 8 == 0,
                        constant: i % 11 == 0,
                        enabled: i % 7 != 0,
                        content,
                        ..Entry::default()
                    });
                }
                book
            })
            .collect()
    }

    fn chat() -> Vec<Message> {
        [
            "The harbor is quiet.",
            "A lamp swings in the fog.",
            "Nothing here.",
            "Tam rows out past the gull rock.",
            "Still nothing.",
            "A storm gathers over the harbor.",
            "The end.",
        ]
        .iter()
        .enumerate()
        .map(|(i, t)| Message {
            role: if i % 2 == 0 {
                Speaker::Assistant
            } else {
                Speaker::User
            },
            name: None,
            text: t.to_string(),
        })
        .collect()
    }

    /// Deciding only the entries with a match and those that need a look
    /// gives every request of a log exactly what deciding every entry
    /// gives: the same status for each entry, the same recursion passes,
    /// the same state carried on.
    #[test]
    fn the_entries_skipped_are_exactly_those_with_no_match() {
        for recursive in [false, true] {
            let books = books(recursive);
            let index = Index::build(&books);
            assert!(index.loud.len() < index.entries.len());
            let chat = chat();
            for seed in [0, 7] {
                let mut state = State::default();
                let (mut sparse_cache, mut dense_cache) =
                    (HitCache::default(), HitCache::default());
                for k in 0..=chat.len() {
                    let history = &chat[..k];
                    let sparse = decide(&index, &mut sparse_cache, history, seed, &state, false);
                    let dense = decide(&index, &mut dense_cache, history, seed, &state, true);
                    assert_eq!(
                        format!("{sparse:?}"),
                        format!("{dense:?}"),
                        "recursive {recursive}, seed {seed}, request {k}"
                    );
                    index.record(&dense, &mut state);
                }
            }
        }
    }
}
