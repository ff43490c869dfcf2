//! The `--json` object of one request (documented in docs/cli.md), and
//! which dropped entries a request lists one by one rather than counts.

use lorebook_engine::explain::{
    Activation, BudgetUse, DropReason, Dropped, Injected, RequestResult, Roll, Unlisted,
};
use lorebook_engine::model::Role;
use lorebook_engine::prompt::PromptMessage;
use serde::Serialize;

use crate::{comment, Names};

/// Which dropped entries a request lists one by one.
#[derive(Clone, Copy)]
pub struct Listing {
    /// `no_match` and `disabled` entries too; otherwise they are counted.
    pub unmatched: bool,
}

impl Listing {
    /// Whether `d` is listed; the others are counted in [`Unlisted`]. An
    /// entry whose key the scan gave up on is always listed.
    pub fn lists(self, d: &Dropped) -> bool {
        self.unmatched || !d.reason.is_plain()
    }
}

/// The dropped entries request `r` counts instead of listing: those it
/// counted itself (`Preview::count_plain_drops`) and those it listed that
/// `list` does not.
pub fn unlisted(r: &RequestResult, list: Listing) -> Unlisted {
    let mut n = r.unlisted;
    for d in r.dropped.iter().filter(|d| !list.lists(d)) {
        match d.reason {
            DropReason::Disabled => n.disabled += 1,
            _ => n.no_match += 1,
        }
    }
    n
}

/// The documented JSON object of one request (see docs/cli.md). It borrows
/// from the result and is serialized straight to standard output, so a
/// request of a big book is never copied into a JSON tree first.
#[derive(Serialize)]
pub struct RequestJson<'a> {
    request: usize,
    budget: &'a BudgetUse,
    passes: u8,
    injected: Vec<InjectedJson<'a>>,
    dropped: Vec<DroppedJson<'a>>,
    unlisted: Unlisted,
    messages: &'a [PromptMessage],
}

#[derive(Serialize)]
struct InjectedJson<'a> {
    book: usize,
    id: u64,
    comment: &'a str,
    role: Role,
    tokens: u32,
    order: i64,
    priority: i64,
    constant: bool,
    roll: Option<Roll>,
    reason: &'a Activation,
}

#[derive(Serialize)]
struct DroppedJson<'a> {
    book: usize,
    id: u64,
    comment: &'a str,
    reason: &'a DropReason,
}

impl<'a> RequestJson<'a> {
    pub fn new(r: &'a RequestResult, books: &'a Names, list: Listing) -> RequestJson<'a> {
        let injected = r
            .injected
            .iter()
            .map(|i: &'a Injected| InjectedJson {
                book: i.book,
                id: i.id,
                comment: comment(books, i.book, i.id),
                role: i.role,
                tokens: i.tokens,
                order: i.order,
                priority: i.priority,
                constant: i.constant,
                roll: i.roll,
                reason: &i.reason,
            })
            .collect();
        let dropped = r
            .dropped
            .iter()
            .filter(|d| list.lists(d))
            .map(|d| DroppedJson {
                book: d.book,
                id: d.id,
                comment: comment(books, d.book, d.id),
                reason: &d.reason,
            })
            .collect();
        RequestJson {
            request: r.request,
            budget: &r.budget,
            passes: r.passes,
            injected,
            dropped,
            unlisted: unlisted(r, list),
            messages: &r.messages,
        }
    }
}
