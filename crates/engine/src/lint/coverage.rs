//! Coverage and budget advice from a chat's request log.
//!
//! [`coverage`] runs the log once through [`Preview::log_each`] and keeps,
//! per request, only the entries that competed for the budget (activated
//! and past their roll): enough to say, for every entry, in how many
//! requests it activated, was injected, was cut by the budget or lost its
//! roll; the smallest budget that keeps everything ([`Coverage::budget_to_keep_all`]);
//! and, for one entry, what it would take to survive ([`advise`]).
//!
//! The budget never changes which entries activate or what `@@keep`
//! remembers (a match counts once the roll passed, whatever the budget
//! does afterwards), so the log's activations hold at any budget.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::problem::{DuplicateEffect, EntryRef, Finding, Problem};
use crate::chat::Message;
use crate::diagnostic::Severity;
use crate::explain::{DropReason, RequestResult};
use crate::model::TOKEN_BUDGET_RANGE;
use crate::preview::Preview;
use crate::sillytavern::{DropKind, StResult};

/// One entry's requests in the log.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EntryCoverage {
    pub book: usize,
    pub id: u64,
    /// Requests where it activated (by a key, as a constant, or kept),
    /// whatever happened next.
    pub matched: usize,
    pub injected: usize,
    pub cut_by_budget: usize,
    pub lost_roll: usize,
}

/// An entry that competed for the budget in one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Competitor {
    pub entry: EntryRef,
    pub priority: i64,
    pub order: i64,
    pub tokens: u32,
    pub constant: bool,
    /// The budget cut it.
    pub cut: bool,
}

/// What the log says about every entry and the budget.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Coverage {
    pub requests: usize,
    /// Every entry of every book, in book order.
    pub entries: Vec<EntryCoverage>,
    /// The enabled entries that activated in no request.
    pub never_activated: Vec<EntryRef>,
    /// The tokens the fullest request needs to keep every entry that
    /// competed in it (0 when none needs the budget).
    pub needed: u32,
    /// The smallest budget in [`TOKEN_BUDGET_RANGE`] at which every entry
    /// that activated (and passed its roll) in a request is kept there;
    /// `None` when even the largest budget cuts one. Only the studio rules
    /// have a book budget; under SillyTavern's it is `None`.
    pub budget_to_keep_all: Option<u32>,
}

/// The log's competitors, request by request, with the budget they had
/// (kept for [`advise`]).
#[derive(Debug, Clone, Default)]
pub struct BudgetLog {
    pub limit: u32,
    /// `(request, competitors)` of each request where some entry competed.
    pub requests: Vec<(usize, Vec<Competitor>)>,
}

/// Adds the chat log's evidence to the shared keys: a `duplicate_key`
/// hint on an entry that activated in the log and was cut by the budget
/// every time becomes a warning ([`DuplicateEffect::AlwaysCut`]).
pub fn refine_with_coverage(problems: &mut [Problem], coverage: &Coverage) {
    let by: HashMap<EntryRef, &EntryCoverage> = coverage
        .entries
        .iter()
        .map(|e| {
            (
                EntryRef {
                    book: e.book,
                    id: e.id,
                },
                e,
            )
        })
        .collect();
    for p in problems {
        let Finding::DuplicateKey { effect, .. } = &mut p.finding else {
            continue;
        };
        if effect.is_some() {
            continue;
        }
        if let Some(c) = by.get(&p.entry) {
            if c.matched > 0 && c.cut_by_budget == c.matched {
                *effect = Some(DuplicateEffect::AlwaysCut {
                    requests: c.matched,
                });
                p.severity = Severity::Warning;
            }
        }
    }
}

/// Coverage of `chat`'s request log in `preview` (studio rules).
pub fn coverage(preview: &mut Preview, chat: &[Message]) -> (Coverage, BudgetLog) {
    let mut cov = Tally::of(preview.books());
    let effective: HashMap<EntryRef, (i64, i64)> = preview
        .index()
        .entries
        .iter()
        .map(|e| {
            (
                EntryRef {
                    book: e.book,
                    id: e.id,
                },
                (e.priority, e.order),
            )
        })
        .collect();
    let mut log = BudgetLog::default();
    preview.log_each(chat, |r| {
        log.limit = r.budget.limit;
        let competitors = cov.add_studio(&r, &effective);
        if !competitors.is_empty() {
            log.requests.push((r.request, competitors));
        }
    });
    let mut c = cov.finish();
    c.needed = log
        .requests
        .iter()
        .map(|(_, r)| needed(r))
        .max()
        .unwrap_or(0);
    let (lo, hi) = TOKEN_BUDGET_RANGE;
    c.budget_to_keep_all = (c.needed <= hi).then(|| c.needed.max(lo));
    (c, log)
}

/// Coverage of a SillyTavern request log (`StPreview::log`'s results).
pub fn coverage_st(books: &[crate::model::Book], results: &[StResult]) -> Coverage {
    let mut cov = Tally::of(books);
    for r in results {
        cov.requests += 1;
        for i in &r.injected {
            cov.bump(
                EntryRef {
                    book: i.book,
                    id: i.id,
                },
                |c| {
                    c.matched += 1;
                    c.injected += 1;
                },
            );
        }
        for d in r.not_placed.iter().chain(&r.dropped) {
            let at = EntryRef {
                book: d.book,
                id: d.id,
            };
            match d.kind {
                DropKind::NotPlaced => cov.bump(at, |c| c.matched += 1),
                DropKind::Budget => cov.bump(at, |c| {
                    c.matched += 1;
                    c.cut_by_budget += 1;
                }),
                DropKind::Probability => cov.bump(at, |c| {
                    c.matched += 1;
                    c.lost_roll += 1;
                }),
                _ => {}
            }
        }
    }
    cov.finish()
}

/// Coverage of a RisuAI request log (`RisuPreview::log_each`'s results):
/// an entry counts as matched when RisuAI activated it, whether it was
/// then placed, cut by the budget or given to another entry
/// (`@@inject_lore`); a lost `@@probability` roll counts as a lost roll
/// only, since RisuAI rolls before it searches the keys.
pub fn coverage_risu(
    books: &[crate::model::Book],
    results: &[crate::risu::RisuResult],
) -> Coverage {
    use crate::risu::RisuDrop;
    let mut cov = Tally::of(books);
    for r in results {
        cov.requests += 1;
        for i in &r.injected {
            let at = EntryRef {
                book: i.book,
                id: i.id,
            };
            cov.bump(at, |c| {
                c.matched += 1;
                c.injected += 1;
            });
        }
        for d in r.dropped.iter() {
            let at = EntryRef {
                book: d.book,
                id: d.id,
            };
            match d.reason {
                RisuDrop::Budget { .. } => cov.bump(at, |c| {
                    c.matched += 1;
                    c.cut_by_budget += 1;
                }),
                // RisuAI rolls before it searches the keys.
                RisuDrop::Probability { .. } => cov.bump(at, |c| c.lost_roll += 1),
                RisuDrop::InjectedInto { .. }
                | RisuDrop::InjectLost { .. }
                | RisuDrop::NegativeDepth { .. }
                | RisuDrop::NoInjectPlace => cov.bump(at, |c| c.matched += 1),
                _ => {}
            }
        }
    }
    cov.finish()
}

/// The tokens a request needs for all its competitors: the constants
/// always stay, the others all fit only when everything together does.
fn needed(competitors: &[Competitor]) -> u32 {
    if competitors.iter().all(|c| c.constant) {
        return 0;
    }
    let total: u64 = competitors.iter().map(|c| c.tokens as u64).sum();
    total.min(u32::MAX as u64) as u32
}

struct Tally {
    requests: usize,
    entries: Vec<EntryCoverage>,
    enabled: Vec<bool>,
    at: HashMap<EntryRef, usize>,
}

impl Tally {
    /// Every entry of `books` (folders are no entries).
    fn of(books: &[crate::model::Book]) -> Tally {
        Tally::new(books.iter().enumerate().flat_map(|(b, book)| {
            book.entries
                .iter()
                .filter(|e| !e.folder)
                .map(move |e| (EntryRef { book: b, id: e.id }, e.enabled))
        }))
    }

    fn new(all: impl Iterator<Item = (EntryRef, bool)>) -> Tally {
        let mut t = Tally {
            requests: 0,
            entries: Vec::new(),
            enabled: Vec::new(),
            at: HashMap::new(),
        };
        for (e, enabled) in all {
            t.at.insert(e, t.entries.len());
            t.entries.push(EntryCoverage {
                book: e.book,
                id: e.id,
                ..EntryCoverage::default()
            });
            t.enabled.push(enabled);
        }
        t
    }

    fn bump(&mut self, e: EntryRef, f: impl FnOnce(&mut EntryCoverage)) {
        if let Some(&i) = self.at.get(&e) {
            f(&mut self.entries[i]);
        }
    }

    fn add_studio(
        &mut self,
        r: &RequestResult,
        effective: &HashMap<EntryRef, (i64, i64)>,
    ) -> Vec<Competitor> {
        self.requests += 1;
        let mut competitors = Vec::new();
        for i in &r.injected {
            let entry = EntryRef {
                book: i.book,
                id: i.id,
            };
            self.bump(entry, |c| {
                c.matched += 1;
                c.injected += 1;
            });
            competitors.push(Competitor {
                entry,
                priority: i.priority,
                order: i.order,
                tokens: i.tokens,
                constant: i.constant,
                cut: false,
            });
        }
        for d in &r.dropped {
            let entry = EntryRef {
                book: d.book,
                id: d.id,
            };
            match &d.reason {
                DropReason::Budget { needed, .. } => {
                    self.bump(entry, |c| {
                        c.matched += 1;
                        c.cut_by_budget += 1;
                    });
                    let (priority, order) = effective.get(&entry).copied().unwrap_or_default();
                    competitors.push(Competitor {
                        entry,
                        priority,
                        order,
                        tokens: *needed,
                        // Constants are never cut.
                        constant: false,
                        cut: true,
                    });
                }
                DropReason::Probability { .. } => self.bump(entry, |c| {
                    c.matched += 1;
                    c.lost_roll += 1;
                }),
                _ => {}
            }
        }
        competitors
    }

    fn finish(self) -> Coverage {
        let never_activated = self
            .entries
            .iter()
            .zip(&self.enabled)
            .filter(|(c, &enabled)| enabled && c.matched == 0)
            .map(|(c, _)| EntryRef {
                book: c.book,
                id: c.id,
            })
            .collect();
        Coverage {
            requests: self.requests,
            entries: self.entries,
            never_activated,
            needed: 0,
            budget_to_keep_all: None,
        }
    }
}

/// What one entry needs to survive the requests where the budget cut it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Advice {
    pub book: usize,
    pub id: u64,
    /// The requests where it was cut.
    pub cut_in: Vec<usize>,
    /// Its effective priority (decorators applied).
    pub priority: i64,
    /// The smallest raise of its priority after which it survives all of
    /// them, others unchanged; `None` when no priority is enough (the
    /// constants and its own tokens alone exceed the budget).
    pub priority_change: Option<i64>,
    /// Its tokens.
    pub tokens: u32,
    /// The fewest tokens it must lose, priority unchanged; `None` when
    /// shrinking alone cannot help (an entry ranked before it is cut
    /// too, or the constants fill the budget).
    pub tokens_to_lose: Option<u32>,
}

/// Whether `(priority, order, book, id)` `a` ranks before `b` under the
/// budget (budget.rs).
fn ahead(a: (i64, &Competitor), b: (i64, &Competitor)) -> bool {
    let key = |(p, c): (i64, &Competitor)| {
        (
            std::cmp::Reverse(p),
            std::cmp::Reverse(c.order),
            c.entry.book,
            c.entry.id,
        )
    };
    key(a) < key(b)
}

/// The constants' tokens and the tokens of the others ranked before `me`
/// were it at `priority`.
fn before(r: &[Competitor], me: &Competitor, priority: i64) -> (u64, u64) {
    let constants: u64 = r
        .iter()
        .filter(|c| c.constant)
        .map(|c| c.tokens as u64)
        .sum();
    let ahead_of: u64 = r
        .iter()
        .filter(|c| !c.constant && c.entry != me.entry)
        .filter(|c| ahead((c.priority, c), (priority, me)))
        .map(|c| c.tokens as u64)
        .sum();
    (constants, ahead_of)
}

/// Advice for entry `entry`: `None` when the log never cut it.
pub fn advise(log: &BudgetLog, entry: EntryRef) -> Option<Advice> {
    let limit = log.limit as u64;
    let cut: Vec<(usize, &Vec<Competitor>, Competitor)> = log
        .requests
        .iter()
        .filter_map(|(k, r)| {
            let me = *r.iter().find(|c| c.entry == entry && c.cut)?;
            Some((*k, r, me))
        })
        .collect();
    let (_, _, first) = *cut.first()?;
    let tokens = cut.iter().map(|(_, _, me)| me.tokens).max().unwrap_or(0);
    let mut lose = Some(0u64);
    for (_, r, me) in &cut {
        let (constants, ahead_of) = before(r, me, me.priority);
        lose = match lose {
            Some(l) if constants + ahead_of <= limit => {
                Some(l.max(constants + ahead_of + me.tokens as u64 - limit))
            }
            _ => None,
        };
    }
    let survives_at = |q: i64| {
        cut.iter().all(|(_, r, me)| {
            let (constants, ahead_of) = before(r, me, q);
            constants + ahead_of + me.tokens as u64 <= limit
        })
    };
    let mut candidates: Vec<i64> = cut
        .iter()
        .flat_map(|(_, r, _)| r.iter())
        .flat_map(|c| [c.priority, c.priority.saturating_add(1)])
        .filter(|&q| q > first.priority)
        .collect();
    candidates.sort_unstable();
    candidates.dedup();
    let priority_change = candidates
        .into_iter()
        .find(|&q| survives_at(q))
        .map(|q| q.saturating_sub(first.priority));
    Some(Advice {
        book: entry.book,
        id: entry.id,
        cut_in: cut.iter().map(|(k, ..)| *k).collect(),
        priority: first.priority,
        priority_change,
        tokens,
        tokens_to_lose: lose.map(|l| l.min(u32::MAX as u64) as u32),
    })
}
