//! Change impact (issue 21): what an edit changes in one request, read
//! from the common part of two answers of the profiles' seam — entries
//! that start or stop being injected, entries that move (their position,
//! depth or order), and the budget's use — each with the rules' reason on
//! both sides; `compare_books` over a chat's whole request log.
//! `lorebook diff` and the app's impact strip read it.

use serde::Serialize;

use crate::model::Book;
use crate::profile::{Outcome, Placed, ProfileName, Reason};
use crate::scenario::{self, Settings};

/// An entry that started or stopped being injected, with the reason on
/// each side (`reason`: the new answer's, `before`: the old one's).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Flip {
    pub book: usize,
    pub id: u64,
    pub reason: String,
    #[serde(skip)]
    pub before: String,
    /// The same reasons, typed (for the app's words).
    #[serde(skip)]
    pub now: Option<Reason>,
    #[serde(skip)]
    pub was: Option<Reason>,
}

/// An entry injected on both sides at another place.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Move {
    pub book: usize,
    pub id: u64,
    pub from: String,
    pub to: String,
}

/// What changed in one request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub request: usize,
    pub started: Vec<Flip>,
    pub stopped: Vec<Flip>,
    pub moved: Vec<Move>,
    pub budget: Budget,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Budget {
    pub old: u32,
    pub new: u32,
}

/// Where an entry is placed, in the rules' words: the position, the depth
/// for in-chat positions, and its order.
pub fn place(p: &Placed) -> String {
    let order = if p.order.fract() == 0.0 && p.order.abs() < 9e15 {
        format!("{}", p.order as i64)
    } else {
        format!("{}", p.order)
    };
    match p.depth {
        Some(d) => format!("{} {d}, order {order}", p.position),
        None => format!("{}, order {order}", p.position),
    }
}

/// An entry's flip with its reasons; an entry a side does not list is
/// not in that side's book.
fn flip(book: usize, id: u64, now: Option<Reason>, was: Option<Reason>) -> Flip {
    let text = |r: &Option<Reason>| {
        r.as_ref()
            .map_or_else(|| "not in the book".to_string(), ToString::to_string)
    };
    Flip {
        book,
        id,
        reason: text(&now),
        before: text(&was),
        now,
        was,
    }
}

/// What changed from `old` to `new` (the same request of the same chat,
/// before and after an edit); `None` when nothing did. Entries are matched
/// by book position and id.
pub fn compare(old: &Outcome, new: &Outcome) -> Option<Change> {
    let key = |p: &Placed| (p.book, p.id);
    let mut started = Vec::new();
    let mut moved = Vec::new();
    for p in &new.injected {
        match old.injected.iter().find(|q| key(q) == key(p)) {
            None => started.push(flip(
                p.book,
                p.id,
                new.reason_in(p.book, p.id),
                old.reason_out(p.book, p.id),
            )),
            Some(q) => {
                let (from, to) = (place(q), place(p));
                if from != to {
                    moved.push(Move {
                        book: p.book,
                        id: p.id,
                        from,
                        to,
                    });
                }
            }
        }
    }
    let stopped: Vec<Flip> = old
        .injected
        .iter()
        .filter(|q| !new.injected.iter().any(|p| key(p) == key(q)))
        .map(|q| {
            flip(
                q.book,
                q.id,
                new.reason_out(q.book, q.id),
                old.reason_in(q.book, q.id),
            )
        })
        .collect();
    let budget = Budget {
        old: old.used,
        new: new.used,
    };
    let same = started.is_empty() && stopped.is_empty() && moved.is_empty() && old.used == new.used;
    (!same).then_some(Change {
        request: new.request,
        started,
        stopped,
        moved,
        budget,
    })
}

/// The value of a scoped thread, its panic carried on.
fn joined<T>(r: std::thread::Result<T>) -> T {
    r.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// What changes from book `old` to book `new` over the whole request log
/// of `chat` under `rules` and `settings`: each request that changed is
/// handed to `each`. Both books are built and logged side by side (the old
/// one on a thread of its own), in step: each request's two answers are
/// compared and dropped, so memory does not grow with the chat. `Err` when
/// the chat or the settings do not read.
pub fn compare_books(
    old: &Book,
    new: &Book,
    rules: ProfileName,
    settings: &Settings,
    chat: &str,
    each: &mut dyn FnMut(Change),
) -> Result<(), String> {
    let (built_old, built_new) = std::thread::scope(|s| {
        let o = s.spawn(|| scenario::prepare(old, rules, settings, chat));
        let n = scenario::prepare(new, rules, settings, chat);
        (joined(o.join()), n)
    });
    let (mut p_old, messages) = built_old?;
    let (mut p_new, _) = built_new?;
    let (tx, rx) = std::sync::mpsc::sync_channel::<Outcome>(2);
    std::thread::scope(|s| {
        let messages = &messages;
        let logging = s.spawn(move || {
            p_old.log_each(messages, &mut |o| {
                let _ = tx.send(o);
            })
        });
        p_new.log_each(messages, &mut |n| {
            if let Ok(o) = rx.recv() {
                if let Some(c) = compare(&o, &n) {
                    each(c);
                }
            }
        });
        // The old log never waits on a receiver that is gone.
        drop(rx);
        joined(logging.join());
    });
    Ok(())
}
