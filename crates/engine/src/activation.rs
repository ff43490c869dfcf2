//! Activation (SPEC §6): which entries fire in one request, and why.
//!
//! [`Index::build`] compiles the attached books once: decorators parsed,
//! effective settings resolved, every key in one [`Matcher`]. A request then
//! looks up cached per-message hits ([`HitCache`]), walks every entry through
//! the steps of SPEC §6, and [`Index::finish`] applies the budget, placement
//! and prompt assembly.
//!
//! Invariants:
//! - every entry of every attached book ends up in exactly one of
//!   `injected` / `dropped`;
//! - the same seed, chat and books give the same result;
//! - a probability roll depends only on `(seed, request, book, entry id)`.

use std::collections::HashMap;
use std::sync::Arc;

use crate::budget::{self, Candidate, Verdict};
use crate::chat::{Message, Speaker};
use crate::decorators::{self, Decorators, Diagnostic, Severity};
use crate::explain::{
    Activation, BudgetUse, DropReason, Dropped, Injected, KeyMatch, RequestResult, Roll, Source,
};
use crate::matcher::{Hit, KeyFlags, KeyId, KeyOwner, Matcher, MatcherBuilder};
use crate::model::{Book, Role, SecondaryLogic};
use crate::placement;
use crate::prompt::{self, LoreMessage, Template};
use crate::tokenizer::{content_hash, TokenCounter};

/// One entry, compiled for activation.
#[derive(Debug, Clone)]
pub struct CompiledEntry {
    /// Position of its book among the attached books.
    pub book: usize,
    pub id: u64,
    /// Position in its book's `entries`.
    pub position: usize,
    pub comment: Box<str>,
    pub enabled: bool,
    pub constant: bool,
    /// Its book has recursive scanning on.
    pub recursive: bool,
    /// Selective with at least one secondary key.
    pub selective: bool,
    pub logic: SecondaryLogic,
    pub primary: Vec<KeyId>,
    pub secondary: Vec<KeyId>,
    /// Effective scan depth, order, priority and role (decorators applied).
    pub depth: u32,
    pub order: i64,
    pub priority: i64,
    pub role: Role,
    pub decorators: Decorators,
    /// The injected text.
    pub body: Box<str>,
    /// Decorator diagnostics and lints (invalid regex, selective without
    /// secondary keys, no keys).
    pub diagnostics: Vec<Diagnostic>,
}

/// The compiled form of a set of attached books.
#[derive(Debug, Default)]
pub struct Index {
    pub entries: Vec<CompiledEntry>,
    matcher: Matcher,
    /// The largest `token_budget` of the attached books.
    pub budget: u32,
    any_recursive: bool,
    /// Some entry uses `@@keep` or `@@dont_activate_after_match`.
    pub any_stateful: bool,
    max_depth: u32,
    /// Global entry index by `(book, id)`.
    by_id: HashMap<(usize, u64), u32>,
}

/// Which entries matched in earlier requests, and in which request first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct State {
    matched: HashMap<u32, usize>,
}

/// Per-text hit lists, keyed by content hash, so a message (or an entry
/// body) is scanned once for as long as the index lives.
#[derive(Debug, Default)]
pub struct HitCache {
    map: HashMap<u64, Arc<[Hit]>>,
}

impl HitCache {
    /// Cached text count above which the cache starts over.
    const LIMIT: usize = 200_000;

    pub fn get(&mut self, matcher: &Matcher, text: &str) -> Arc<[Hit]> {
        let h = content_hash(text);
        if let Some(hits) = self.map.get(&h) {
            return hits.clone();
        }
        if self.map.len() >= Self::LIMIT {
            self.map.clear();
        }
        let hits: Arc<[Hit]> = matcher.scan(text).into();
        self.map.insert(h, hits.clone());
        hits
    }

    pub fn clear(&mut self) {
        self.map.clear();
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// Where a key matched, before it is turned into a [`KeyMatch`].
#[derive(Debug, Clone, Copy)]
struct Loc {
    key: KeyId,
    source: Source,
    start: u32,
    end: u32,
    pass: u8,
}

/// Matches found so far in one request, per global entry.
#[derive(Debug, Default)]
struct Found {
    primary: HashMap<u32, Loc>,
    secondary: HashMap<u32, Vec<Loc>>,
}

impl Found {
    fn add(&mut self, owner: KeyOwner, loc: Loc) {
        if owner.secondary {
            let list = self.secondary.entry(owner.entry).or_default();
            if !list.iter().any(|l| l.key == loc.key) {
                list.push(loc);
            }
        } else {
            self.primary.entry(owner.entry).or_insert(loc);
        }
    }
}

/// An entry's state within one request.
#[derive(Debug, Clone)]
enum Status {
    Out(DropReason),
    Active {
        activation: Activation,
        roll: Option<Roll>,
    },
}

/// The activation step's result for one request, before the budget.
#[derive(Debug, Clone)]
pub struct Activated {
    request: usize,
    status: Vec<Status>,
    passes: u8,
}

impl Index {
    /// Compiles `books` (in attachment order).
    pub fn build(books: &[Book]) -> Index {
        let mut builder = MatcherBuilder::default();
        let mut entries = Vec::new();
        let mut by_id = HashMap::new();
        let any_recursive = books.iter().any(|b| b.recursive_scanning);
        for (bi, book) in books.iter().enumerate() {
            for (position, e) in book.entries.iter().enumerate() {
                let g = entries.len() as u32;
                let parsed = decorators::parse(&e.content);
                let d = parsed.decorators.clone();
                let flags = KeyFlags {
                    case_sensitive: e.case_sensitive,
                    whole_words: e.whole_words,
                    use_regex: e.use_regex,
                };
                let add = |builder: &mut MatcherBuilder, keys: &[String], secondary: bool| {
                    keys.iter()
                        .enumerate()
                        .filter_map(|(i, k)| {
                            let owner = KeyOwner {
                                entry: g,
                                secondary,
                                position: i as u32,
                            };
                            builder.add(k, owner, flags)
                        })
                        .collect::<Vec<_>>()
                };
                let primary = add(&mut builder, &e.keys, false);
                let secondary = add(&mut builder, &e.secondary_keys, true);
                let mut diagnostics = parsed.diagnostics.clone();
                if e.selective && secondary.is_empty() && !e.constant {
                    diagnostics.push(Diagnostic {
                        line: None,
                        severity: Severity::Warning,
                        message: "selective without secondary keys: behaves as not selective"
                            .into(),
                    });
                }
                if primary.is_empty() && !e.constant && e.enabled {
                    diagnostics.push(Diagnostic {
                        line: None,
                        severity: Severity::Warning,
                        message:
                            "no keys: this entry can never activate (make it constant or add a key)"
                                .into(),
                    });
                }
                by_id.insert((bi, e.id), g);
                entries.push(CompiledEntry {
                    book: bi,
                    id: e.id,
                    position,
                    comment: e.comment.as_str().into(),
                    enabled: e.enabled,
                    constant: e.constant,
                    recursive: book.recursive_scanning,
                    selective: e.selective && !secondary.is_empty(),
                    logic: e.secondary_logic,
                    primary,
                    secondary,
                    depth: d.scan_depth.unwrap_or(book.scan_depth),
                    order: d.order.unwrap_or(e.order),
                    priority: d.priority.unwrap_or(e.priority),
                    role: d.role.unwrap_or(e.role),
                    decorators: d,
                    body: parsed.body.into(),
                    diagnostics,
                });
            }
        }
        let (matcher, errors) = builder.build();
        for err in errors {
            let e = &mut entries[err.owner.entry as usize];
            let which = if err.owner.secondary {
                "secondary key"
            } else {
                "key"
            };
            e.diagnostics.push(Diagnostic {
                line: None,
                severity: Severity::Error,
                message: format!(
                    "{which} \"{}\" is an invalid regex: {}",
                    err.key, err.message
                ),
            });
        }
        let any_stateful = entries
            .iter()
            .any(|e| e.decorators.keep || e.decorators.dont_activate_after_match);
        let max_depth = entries
            .iter()
            .filter(|e| e.enabled)
            .map(|e| e.depth)
            .max()
            .unwrap_or(0);
        Index {
            entries,
            matcher,
            budget: books.iter().map(|b| b.token_budget).max().unwrap_or(0),
            any_recursive,
            any_stateful,
            max_depth,
            by_id,
        }
    }

    pub fn matcher(&self) -> &Matcher {
        &self.matcher
    }

    /// The compiled entry `id` of book `book`.
    pub fn entry(&self, book: usize, id: u64) -> Option<&CompiledEntry> {
        self.by_id
            .get(&(book, id))
            .map(|&g| &self.entries[g as usize])
    }

    /// Decides which entries activate in request `k` (the first `k`
    /// messages of `chat`), given what matched in earlier requests.
    pub fn activate(
        &self,
        cache: &mut HitCache,
        chat: &[Message],
        k: usize,
        seed: u64,
        state: &State,
    ) -> Activated {
        let history = &chat[..k.min(chat.len())];
        let k = history.len();
        let has_user = history.iter().any(|m| m.role == Speaker::User);
        let mut found = Found::default();

        // Pass 0 hits: each message of the widest window, newest first, so
        // the explanation names the most recent match.
        for i in (k.saturating_sub(self.max_depth as usize)..k).rev() {
            let age = (k - 1 - i) as u32;
            for h in cache.get(&self.matcher, &history[i].text).iter() {
                let owner = self.matcher.owner(h.key);
                if age < self.entries[owner.entry as usize].depth {
                    found.add(
                        owner,
                        Loc {
                            key: h.key,
                            source: Source::Message { index: i },
                            start: h.start,
                            end: h.end,
                            pass: 0,
                        },
                    );
                }
            }
        }

        let mut status = Vec::with_capacity(self.entries.len());
        let mut sources = Vec::new();
        for (g, e) in self.entries.iter().enumerate() {
            let g = g as u32;
            let s = if !e.enabled {
                Status::Out(DropReason::Disabled)
            } else if let Some(reason) = gate(e, g, k, has_user, state) {
                Status::Out(reason)
            } else if e.constant {
                self.roll(e, Activation::Constant, seed, k)
            } else if let Some(&since) = state.matched.get(&g).filter(|_| e.decorators.keep) {
                self.roll(
                    e,
                    Activation::Kept {
                        since_request: since,
                    },
                    seed,
                    k,
                )
            } else {
                match self.evaluate(g, &found) {
                    Ok(activation) => self.roll(e, activation, seed, k),
                    Err(reason) => Status::Out(reason),
                }
            };
            if matches!(s, Status::Active { .. }) {
                sources.push(g);
            }
            status.push(s);
        }

        let mut passes = 0;
        if self.any_recursive {
            while passes < 3 && !sources.is_empty() {
                passes += 1;
                let mut touched = Vec::new();
                for &s in &sources {
                    self.scan_body(cache, s, passes, &status, &mut found, &mut touched);
                }
                touched.sort_unstable();
                touched.dedup();
                let mut next = Vec::new();
                for t in touched {
                    let e = &self.entries[t as usize];
                    status[t as usize] = match self.evaluate(t, &found) {
                        Ok(activation) => self.roll(e, activation, seed, k),
                        Err(reason) => Status::Out(reason),
                    };
                    if matches!(status[t as usize], Status::Active { .. }) {
                        next.push(t);
                    }
                }
                sources = next;
            }
            // Recursion stopped with fresh bodies left unscanned: say so on
            // the entries whose keys are in them.
            if passes == 3 && !sources.is_empty() {
                let mut touched = Vec::new();
                let mut later = Found::default();
                for &s in &sources {
                    self.scan_body(cache, s, 4, &status, &mut later, &mut touched);
                }
                for t in touched {
                    if let Status::Out(DropReason::NoMatch {
                        recursion_stopped, ..
                    }) = &mut status[t as usize]
                    {
                        *recursion_stopped = later.primary.contains_key(&t);
                    }
                }
            }
        }
        Activated {
            request: k,
            status,
            passes,
        }
    }

    /// Scans the body of active entry `s` for entries that recursion may
    /// still activate.
    fn scan_body(
        &self,
        cache: &mut HitCache,
        s: u32,
        pass: u8,
        status: &[Status],
        found: &mut Found,
        touched: &mut Vec<u32>,
    ) {
        let src = &self.entries[s as usize];
        let source = Source::Entry {
            book: src.book,
            id: src.id,
        };
        for h in cache.get(&self.matcher, &src.body).iter() {
            let owner = self.matcher.owner(h.key);
            let t = owner.entry;
            let target = &self.entries[t as usize];
            let waiting = matches!(
                status[t as usize],
                Status::Out(
                    DropReason::NoMatch { no_keys: false, .. } | DropReason::Secondary { .. }
                )
            );
            if !target.recursive || !waiting {
                continue;
            }
            found.add(
                owner,
                Loc {
                    key: h.key,
                    source,
                    start: h.start,
                    end: h.end,
                    pass,
                },
            );
            touched.push(t);
        }
    }

    fn key_match(&self, l: &Loc) -> KeyMatch {
        KeyMatch {
            key: self.matcher.key_text(l.key).to_string(),
            source: l.source,
            start: l.start as usize,
            end: l.end as usize,
            pass: l.pass,
        }
    }

    /// Steps 4 and 6 for one entry: its keys against what was found.
    fn evaluate(&self, g: u32, found: &Found) -> Result<Activation, DropReason> {
        let e = &self.entries[g as usize];
        let Some(primary) = found.primary.get(&g) else {
            return Err(DropReason::NoMatch {
                recursion_stopped: false,
                no_keys: e.primary.is_empty(),
            });
        };
        let primary = self.key_match(primary);
        let matched: Vec<KeyMatch> = found
            .secondary
            .get(&g)
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
                    primary,
                    matched,
                });
            }
        }
        Ok(Activation::Key {
            primary,
            secondary: if e.selective { matched } else { Vec::new() },
        })
    }

    /// Step 5: the probability roll, made once when the entry activates.
    fn roll(&self, e: &CompiledEntry, activation: Activation, seed: u64, k: usize) -> Status {
        let Some(chance) = e.decorators.probability else {
            return Status::Active {
                activation,
                roll: None,
            };
        };
        let roll = roll(seed, k, e.book, e.id);
        if roll < chance {
            Status::Active {
                activation,
                roll: Some(Roll { roll, chance }),
            }
        } else {
            Status::Out(DropReason::Probability {
                roll,
                chance,
                activation,
            })
        }
    }

    /// Records the entries that matched in `a` (activated and passed their
    /// roll), for `@@keep` and `@@dont_activate_after_match` later.
    pub fn record(&self, a: &Activated, state: &mut State) {
        for (g, s) in a.status.iter().enumerate() {
            if matches!(s, Status::Active { .. }) {
                state.matched.entry(g as u32).or_insert(a.request);
            }
        }
    }

    /// Steps 7–9: budget, placement and the final messages.
    pub fn finish(
        &self,
        a: Activated,
        tokens: &mut TokenCounter,
        template: &Template,
        chat: &[Message],
    ) -> RequestResult {
        let mut active = Vec::new();
        let mut candidates = Vec::new();
        let mut dropped = Vec::new();
        let mut out_of_budget: HashMap<u32, (u32, u32)> = HashMap::new();
        for (g, s) in a.status.iter().enumerate() {
            if let Status::Active { .. } = s {
                let e = &self.entries[g];
                active.push(g);
                candidates.push(Candidate {
                    book: e.book,
                    id: e.id,
                    priority: e.priority,
                    order: e.order,
                    tokens: tokens.count(&e.body),
                    constant: e.constant,
                });
            }
        }
        let outcome = budget::apply(&candidates, self.budget);
        let mut kept = Vec::new();
        for (i, v) in outcome.verdicts.iter().enumerate() {
            match *v {
                Verdict::Kept => kept.push(i),
                Verdict::Cut { needed, left } => {
                    out_of_budget.insert(active[i] as u32, (needed, left));
                }
            }
        }
        kept.sort_by(|&x, &y| {
            let (a, b) = (&candidates[x], &candidates[y]);
            placement::compare(
                (a.order, a.priority, a.book, a.id),
                (b.order, b.priority, b.book, b.id),
            )
        });
        let mut injected = Vec::with_capacity(kept.len());
        let mut lore = Vec::with_capacity(kept.len());
        for i in kept {
            let g = active[i];
            let e = &self.entries[g];
            let Status::Active { activation, roll } = &a.status[g] else {
                continue;
            };
            injected.push(Injected {
                book: e.book,
                id: e.id,
                role: e.role,
                order: e.order,
                priority: e.priority,
                tokens: candidates[i].tokens,
                constant: e.constant,
                roll: *roll,
                reason: activation.clone(),
            });
            lore.push(LoreMessage {
                book: e.book,
                id: e.id,
                role: e.role,
                body: &e.body,
            });
        }
        for (g, s) in a.status.into_iter().enumerate() {
            let e = &self.entries[g];
            let reason = match s {
                Status::Out(reason) => reason,
                Status::Active { activation, .. } => match out_of_budget.get(&(g as u32)) {
                    Some(&(needed, left)) => DropReason::Budget {
                        needed,
                        left,
                        activation,
                    },
                    None => continue,
                },
            };
            dropped.push(Dropped {
                book: e.book,
                id: e.id,
                reason,
            });
        }
        let history = &chat[..a.request.min(chat.len())];
        RequestResult {
            request: a.request,
            budget: BudgetUse {
                limit: self.budget,
                used: outcome.used,
                constants: outcome.constants,
                over_by_constants: outcome.over_by_constants,
            },
            messages: prompt::assemble(template, &lore, history),
            injected,
            dropped,
            passes: a.passes,
        }
    }
}

/// Step 2: the gate decorators.
fn gate(e: &CompiledEntry, g: u32, k: usize, has_user: bool, state: &State) -> Option<DropReason> {
    let d = &e.decorators;
    let gated = |decorator: &str, detail: String| {
        Some(DropReason::Gated {
            decorator: decorator.into(),
            detail,
        })
    };
    if let Some(n) = d.activate_only_after {
        if (k as u64) < n {
            return gated(
                "activate_only_after",
                format!("needs {n} messages in the history; it has {k}"),
            );
        }
    }
    if let Some(n) = d.activate_only_every {
        if (k as u64) % n != 0 {
            return gated(
                "activate_only_every",
                format!("the history has {k} messages, not a multiple of {n}"),
            );
        }
    }
    if d.is_greeting && has_user {
        return gated("is_greeting", "the chat already has a user message".into());
    }
    if d.dont_activate_after_match {
        if let Some(j) = state.matched.get(&g) {
            return gated(
                "dont_activate_after_match",
                format!("already matched in request {j}"),
            );
        }
    }
    None
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
