//! The finish of a request (SPEC §6 steps 7–9): the active entries go
//! through the token budget ([`budget`]), the kept ones are placed
//! ([`placement`]) and assembled into the prompt ([`prompt`]), and every
//! entry of the index ends up either injected or dropped with its reason.

use super::index::Index;
use super::request::{Activated, Status};
use crate::budget::{self, Candidate, Verdict};
use crate::chat::Message;
use crate::explain::{BudgetUse, DropReason, Dropped, EntryKey, Injected, RequestResult, Unlisted};
use crate::placement;
use crate::prompt::{self, LoreMessage, Template};
use crate::tokenizer::TokenCounter;

impl Index {
    /// Steps 7–9: budget, placement and the final messages.
    pub fn finish(
        &self,
        a: Activated,
        tokens: &mut TokenCounter,
        template: &Template,
        chat: &[Message],
    ) -> RequestResult {
        let k = a.request.min(chat.len());
        let texts = prompt::shared_texts(&chat[..k]);
        self.finish_shared(a, tokens, template, chat, &texts, false)
    }

    /// [`Index::finish`] with the chat's texts already shared
    /// ([`prompt::shared_texts`]), as the request log does once for all its
    /// requests. With `count_plain`, the entries with no match and the
    /// disabled ones are counted in [`RequestResult::unlisted`] instead of
    /// listed.
    pub fn finish_shared(
        &self,
        a: Activated,
        tokens: &mut TokenCounter,
        template: &Template,
        chat: &[Message],
        texts: &[std::sync::Arc<str>],
        count_plain: bool,
    ) -> RequestResult {
        let Activated {
            request,
            status,
            passes,
        } = a;
        let mut active = Vec::new();
        let mut candidates = Vec::new();
        for (at, s) in status.iter().enumerate() {
            if s.is_active() {
                let e = &self.entries[at];
                active.push(at);
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
        let mut kept: Vec<usize> = (0..candidates.len())
            .filter(|&i| outcome.verdicts[i] == Verdict::Kept)
            .collect();
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
            let e = &self.entries[active[i]];
            let Status::Active { activation, roll } = &status[active[i]] else {
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

        // Every entry not injected is dropped (listed, or counted when it is
        // plain and the caller asked). The active entries come in the order
        // of `candidates`, so each takes the next verdict.
        let mut unlisted = Unlisted::default();
        let plain = |s: &Status| count_plain && matches!(s, Status::Out(r) if r.is_plain());
        // Listing every other entry, reserved at once: regrowing moves
        // thousands of reasons per request. Counting the plain ones, the
        // list is short and grows.
        let capacity = if count_plain {
            injected.len()
        } else {
            status.len() - injected.len()
        };
        let mut dropped = Vec::with_capacity(capacity);
        let mut verdicts = outcome.verdicts.iter();
        let each = status.into_iter().zip(&self.keys).zip(&self.folders);
        for ((s, &(book, id)), &folder) in each {
            if plain(&s) {
                // A folder holds entries; it is no entry left out.
                if !folder {
                    match s {
                        Status::Out(DropReason::Disabled) => unlisted.disabled += 1,
                        _ => unlisted.no_match += 1,
                    }
                }
                continue;
            }
            let reason = match s {
                // A folder holds entries; it is no entry left out.
                Status::Out(_) if folder => continue,
                Status::Out(reason) => reason,
                Status::Active { activation, .. } => match verdicts.next() {
                    Some(&Verdict::Cut { needed, left }) => DropReason::Budget {
                        needed,
                        left,
                        activation: Box::new(activation),
                    },
                    _ => continue,
                },
            };
            dropped.push(Dropped { book, id, reason });
        }
        if !self.in_id_order {
            // Stable, so entries sharing an id (a malformed file) keep their
            // order in the book.
            dropped.sort_by_key(|d| (d.book, d.id));
        }
        let history = &chat[..request.min(chat.len())];
        RequestResult {
            request,
            budget: BudgetUse {
                limit: self.budget,
                used: outcome.used,
                constants: outcome.constants,
                over_by_constants: outcome.over_by_constants,
                first_cut: outcome.first_cut.map(|i| EntryKey {
                    book: candidates[i].book,
                    id: candidates[i].id,
                }),
            },
            messages: prompt::assemble(template, &lore, history, texts),
            injected,
            dropped,
            unlisted,
            passes,
        }
    }
}
