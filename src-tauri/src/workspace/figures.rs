//! The book's figures in the app (issue 22, the **Figures** panel): the
//! engine's `figures::book_figures`, counted with the preview's tokenizer
//! (and its cache, which the entry list fills too), and, while the book is
//! attached and a chat is loaded, what the chat's request log injected of
//! it under the rules in force.

use std::collections::HashMap;

use lorebook_engine::decorators;
use lorebook_engine::figures::{book_figures, ChatTally};

use super::Workspace;
use crate::error::AppError;
use crate::views::{BookFiguresView, Rules};

/// How many of the largest entries the panel lists.
const LARGEST: usize = 10;

impl Workspace {
    /// The figures of book `doc`.
    pub fn book_figures(&mut self, doc: u32) -> Result<BookFiguresView, AppError> {
        let model = self.settings().model.clone();
        let attached_at = self
            .docs
            .iter()
            .filter(|d| d.attached)
            .position(|d| d.id == doc);
        // The log first (it needs the whole workspace), then the counts.
        let rows = match attached_at {
            Some(_) if !self.chat.is_empty() => Some(self.bare_log()?),
            _ => None,
        };
        // The budget the constants are held against: the one of the rules
        // in force, as the preview shows it (SillyTavern's share of the
        // context, RisuAI's setting), not the book's own under other
        // rules.
        let budget = match self.rules() {
            Rules::Studio => None,
            Rules::Sillytavern => Some(
                super::st_rules::engine_settings(&self.st_settings)
                    .budget(self.st_settings.max_context),
            ),
            Rules::Risu => Some(
                self.risu_settings
                    .token_budget
                    .clamp(0.0, f64::from(u32::MAX)) as u32,
            ),
        };
        let Workspace { docs, preview, .. } = self;
        let d = docs
            .iter()
            .find(|d| d.id == doc)
            .ok_or_else(|| AppError::book_not_open(doc))?;
        let mut figures = book_figures(&d.book, &mut |s| preview.count_tokens(s), LARGEST);
        if let Some(b) = budget {
            figures.budget = b;
        }
        let chat = match (rows, attached_at) {
            (Some(rows), Some(at)) => {
                let tokens: HashMap<u64, u32> = d
                    .book
                    .entries
                    .iter()
                    .map(|e| {
                        (
                            e.id,
                            preview.count_tokens(decorators::parse(&e.content).body),
                        )
                    })
                    .collect();
                let mut tally = ChatTally::default();
                for r in &rows {
                    tally.add_request(
                        r.injected
                            .iter()
                            .filter(|(b, _)| *b == at)
                            .map(|&(b, id)| ((b, id), tokens.get(&id).copied().unwrap_or(0))),
                    );
                }
                Some(tally.finish())
            }
            _ => None,
        };
        Ok(BookFiguresView {
            doc,
            model,
            figures,
            chat,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sample's figures: every entry counted, the largest first, and
    /// what its chat's log injected of it; none once it is detached.
    #[test]
    fn the_samples_figures_and_its_chats() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        let v = ws.book_figures(doc).unwrap();
        assert_eq!(v.figures.entries, 10);
        assert_eq!(v.figures.largest[0].name, "The Lighthouse");
        let sum: u64 = v.figures.largest.iter().map(|e| u64::from(e.tokens)).sum();
        assert_eq!(v.figures.tokens, sum);
        let chat = v.chat.expect("the sample's chat");
        assert_eq!(chat.requests, 6);
        assert!(chat.last_entries > 0 && chat.log_entries >= chat.last_entries);
        assert!(u64::from(chat.last_tokens) <= chat.log_tokens);
        ws.set_attached(doc, false).unwrap();
        assert!(ws.book_figures(doc).unwrap().chat.is_none());
        assert!(ws.book_figures(doc + 100).is_err());
    }

    /// Issue 43: the figures hold the constants against the budget of the
    /// rules in force (SillyTavern's 25% of the context: 2,048 of 8,192),
    /// as the preview does, not the book's own 800.
    #[test]
    fn the_figures_budget_is_the_rules_in_force() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        let own = ws.docs[0].book.token_budget;
        assert_eq!(ws.book_figures(doc).unwrap().figures.budget, own);
        ws.rules = Some(Rules::Sillytavern);
        let st = super::super::st_rules::engine_settings(&ws.st_settings)
            .budget(ws.st_settings.max_context);
        assert_ne!(st, own);
        assert_eq!(ws.book_figures(doc).unwrap().figures.budget, st);
        ws.rules = Some(Rules::Risu);
        assert_eq!(
            ws.book_figures(doc).unwrap().figures.budget,
            ws.risu_settings.token_budget as u32
        );
    }
}
