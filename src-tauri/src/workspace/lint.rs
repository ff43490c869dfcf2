//! The Problems panel and the budget advice: the engine's lint checks
//! (`lorebook_engine::lint`, docs/lint.md) over the books the preview
//! reads, under the preview's rules, and what the loaded chat's request log
//! says about the budget.
//!
//! Linting a big book takes longer than a keystroke may wait, so it runs
//! off the workspace's lock: [`Workspace::lint_job`] takes a copy of what
//! the checks read (the books, the rules, the chat), and
//! [`LintJob::run`] checks it with the lock free, taking it back only to
//! count tokens through the preview's counter (its cache makes that
//! cheap). Edits made meanwhile are not in the answer; the UI asks again
//! after each edit and says the list is out of date until the answer
//! arrives.

use std::collections::{BTreeMap, HashMap};

use lorebook_engine::chat::Message;
use lorebook_engine::lint::{
    self, CountTokens, EntryRef, Finding, Fix, LintContext, LintRules, Problem,
};
use lorebook_engine::model::Book;

use super::history::Change;
use super::Workspace;
use crate::error::AppError;
use crate::views::{AdviceView, EntryAdviceView, EntryDetail, LintedBook, ProblemsView, Rules};

/// What one lint run reads, copied out of the workspace.
#[derive(Debug)]
pub struct LintJob {
    doc: u32,
    /// The position of `doc` among `books`.
    position: usize,
    books: Vec<Book>,
    /// The document each of `books` is, and its display name.
    docs: Vec<(u32, String)>,
    cx: LintContext,
    rules: Rules,
    chat: Option<Vec<Message>>,
    /// Whether the hints are sent (see [`LintJob::without_hints`]).
    hints: bool,
}

impl CountTokens for Workspace {
    fn count_all(&mut self, texts: &[&str]) -> Vec<u32> {
        self.preview.count_all(texts)
    }
}

impl Workspace {
    /// The rules the checks apply: the preview's.
    fn lint_rules(&self) -> LintRules {
        match self.rules() {
            Rules::Studio => LintRules::Studio,
            Rules::Risu => LintRules::Risu {
                settings: super::risu::engine_settings(&self.risu_settings),
            },
            Rules::Sillytavern => LintRules::SillyTavern {
                settings: super::st_rules::engine_settings(&self.st_settings),
                max_context: self.st_settings.max_context,
                macros: self.st_settings.macro_engine,
            },
        }
    }

    /// Whether the budget the checks judge by is the rules' default
    /// rather than one the author gave: SillyTavern's budget share,
    /// cap and context size, or RisuAI's settings, as they are on a new
    /// install (the guide's budget is the book's own).
    fn budget_assumed(&self) -> bool {
        match self.rules() {
            Rules::Studio => false,
            Rules::Sillytavern => {
                let (now, new) = (&self.st_settings, super::st_rules::default_settings());
                now.budget_percent == new.budget_percent
                    && now.budget_cap == new.budget_cap
                    && now.max_context == new.max_context
            }
            Rules::Risu => self.risu_settings == super::risu::default_settings(),
        }
    }

    /// A copy of what linting book `doc` reads. An attached book is linted
    /// with the other attached books (a key duplicated across them, the
    /// budget they share, recursion between them) and the loaded chat; a
    /// detached one alone, without the chat the preview reads.
    pub fn lint_job(&mut self, doc: u32) -> Result<LintJob, AppError> {
        self.doc(doc)?;
        let chosen: Vec<&super::Doc> = if self.attached_position(doc).is_some() {
            self.docs.iter().filter(|d| d.attached).collect()
        } else {
            self.docs.iter().filter(|d| d.id == doc).collect()
        };
        let position = chosen.iter().position(|d| d.id == doc).unwrap_or(0);
        let attached = chosen.len() > 1 || chosen.first().is_some_and(|d| d.attached);
        let from_st: Vec<bool> = chosen.iter().map(|d| d.targets_sillytavern()).collect();
        let docs = chosen.iter().map(|d| (d.id, d.display_name())).collect();
        let books: Vec<Book> = chosen.iter().map(|d| d.book.clone()).collect();
        let mut cx = LintContext::new(&books, self.lint_rules(), &from_st);
        cx.budget_assumed = self.budget_assumed();
        let chat = (attached && !self.chat.is_empty()).then(|| self.chat.clone());
        Ok(LintJob {
            doc,
            position,
            books,
            docs,
            cx,
            rules: self.rules(),
            chat,
            hints: true,
        })
    }

    /// Applies the quick fix `fix` of a problem of entry `id` as one undo
    /// step. Refused, with nothing changed, when the entry changed since
    /// the problem was found so that the fix no longer fits it.
    pub fn apply_fix(&mut self, doc: u32, id: u64, fix: &Fix) -> Result<EntryDetail, AppError> {
        let d = self.doc_mut(doc)?;
        let index = d.position(id)?;
        let before = d.book.entries[index].clone();
        let mut after = before.clone();
        if !fix.apply(&mut after) {
            return Err(AppError::fix_outdated());
        }
        if after != before {
            let applied = d.commit(
                vec![Change::Entry {
                    index,
                    before: Some(Box::new(before)),
                    after: Some(Box::new(after)),
                }],
                None,
            );
            self.sync(doc, &applied);
        }
        self.entry(doc, id)
    }

    /// The budget advice of the loaded chat's request log under the
    /// guide's rules (`None` under SillyTavern's, whose budget is a share
    /// of the context, or with no book attached), and what entry `id` of
    /// `doc` would need to survive the requests where the budget cut it.
    pub fn budget_advice(
        &mut self,
        entry: Option<(u32, u64)>,
    ) -> Result<Option<AdviceView>, AppError> {
        if !self.refresh() {
            return Err(super::interrupt::gave_way());
        }
        if self.rules() != Rules::Studio || !self.docs.iter().any(|d| d.attached) {
            return Ok(None);
        }
        let (coverage, log) = lint::coverage(&mut self.preview, &self.chat);
        let at = entry.and_then(|(doc, id)| {
            Some(EntryRef {
                book: self.attached_position(doc)?,
                id,
            })
        });
        let entry = at.and_then(|at| {
            let c = coverage
                .entries
                .iter()
                .find(|c| c.book == at.book && c.id == at.id)?;
            Some(EntryAdviceView {
                coverage: c.clone(),
                advice: lint::advise(&log, at),
            })
        });
        Ok(Some(AdviceView {
            requests: coverage.requests as u32,
            budget: log.limit,
            needed: coverage.needed,
            budget_to_keep_all: coverage.budget_to_keep_all,
            cut: coverage
                .entries
                .iter()
                .filter(|c| c.cut_by_budget > 0)
                .count() as u32,
            never_activated: coverage.never_activated.len() as u32,
            entry,
        }))
    }
}

impl LintJob {
    /// The same job, its hints counted per code instead of listed.
    pub fn without_hints(mut self) -> LintJob {
        self.hints = false;
        self
    }

    /// Runs every check and keeps the problems of the job's book; `tokens`
    /// counts the bodies the budget checks weigh.
    pub fn run(self, tokens: &mut dyn CountTokens) -> ProblemsView {
        // One map of every entry, not a search per named entry: a big book
        // has thousands of problems naming thousands of entries.
        let entries: HashMap<EntryRef, &lorebook_engine::model::Entry> = self
            .books
            .iter()
            .enumerate()
            .flat_map(|(book, b)| {
                b.entries
                    .iter()
                    .map(move |e| (EntryRef { book, id: e.id }, e))
            })
            .collect();
        let problems: Vec<Problem> =
            lint::lint(&self.cx, &self.books, tokens, self.chat.as_deref())
                .into_iter()
                .filter(|p| p.entry.book == self.position)
                .collect();
        let mut hidden: BTreeMap<&'static str, u32> = BTreeMap::new();
        let problems: Vec<Problem> = if self.hints {
            problems
        } else {
            problems
                .into_iter()
                .filter(|p| {
                    let hint = p.severity == lorebook_engine::decorators::Severity::Hint;
                    if hint {
                        *hidden.entry(p.code()).or_default() += 1;
                    }
                    !hint
                })
                .collect()
        };
        let mut names: BTreeMap<EntryRef, String> = BTreeMap::new();
        for p in &problems {
            for r in std::iter::once(p.entry).chain(referenced(&p.finding)) {
                names.entry(r).or_insert_with(|| {
                    entries
                        .get(&r)
                        .map(|e| e.display_name().to_string())
                        .unwrap_or_default()
                });
            }
        }
        ProblemsView {
            doc: self.doc,
            rules: self.rules,
            chat: self.chat.is_some(),
            books: self
                .docs
                .into_iter()
                .map(|(doc, name)| LintedBook { doc, name })
                .collect(),
            names: names
                .into_iter()
                .map(|(r, name)| crate::views::LintName { entry: r, name })
                .collect(),
            problems,
            hidden_hints: hidden
                .into_iter()
                .map(|(code, count)| crate::views::HintCount {
                    code: code.into(),
                    count,
                })
                .collect(),
        }
    }
}

/// The other entries a finding names.
fn referenced(f: &Finding) -> Vec<EntryRef> {
    match f {
        Finding::DuplicateKey { others, .. }
        | Finding::ContentDuplicate { others, .. }
        | Finding::NameDuplicate { others, .. } => others.clone(),
        Finding::KeyContainsOther { other, .. } => vec![*other],
        Finding::RecursionLoop { cycle, .. } => cycle.clone(),
        Finding::RecursionTooDeep { chain, .. } => chain.clone(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use lorebook_engine::diagnostic::Severity;
    use lorebook_engine::model::Entry;

    /// The sample with one more entry, `entry`, appended; its id.
    fn with(entry: Entry) -> (Workspace, u32, u64) {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        let id = ws.add_entry(doc).unwrap();
        ws.update_entry(doc, Entry { id, ..entry }).unwrap();
        (ws, doc, id)
    }

    fn problems(ws: &mut Workspace, doc: u32) -> ProblemsView {
        let job = ws.lint_job(doc).unwrap();
        job.run(ws)
    }

    fn codes_of(view: &ProblemsView, id: u64) -> Vec<&'static str> {
        view.problems
            .iter()
            .filter(|p| p.entry.id == id)
            .map(|p| p.code())
            .collect()
    }

    #[test]
    fn lint_job_checks_the_attached_books_with_the_chat_and_names_the_entries() {
        let (mut ws, doc, id) = with(Entry {
            comment: "Second lighthouse".into(),
            keys: vec!["lighthouse".into()],
            content: "Another tower.".into(),
            ..Entry::default()
        });
        let view = problems(&mut ws, doc);
        assert_eq!(view.doc, doc);
        assert_eq!(view.rules, Rules::Studio);
        assert!(view.chat, "the sample chat is loaded");
        let dup = view
            .problems
            .iter()
            .find(|p| p.entry.id == id && p.code() == "duplicate_key")
            .expect("the sample already keys on lighthouse");
        let Finding::DuplicateKey { others, .. } = &dup.finding else {
            unreachable!()
        };
        for r in std::iter::once(&dup.entry).chain(others) {
            let named = view.names.iter().find(|n| n.entry == *r).expect("named");
            assert!(!named.name.is_empty(), "{r}");
        }
        assert!(view.problems.iter().all(|p| p.entry.book == 0));
        assert_eq!(view.books[0].doc, doc);
    }

    /// Without hints, each code's hints are counted instead of listed,
    /// and the other problems are the same.
    #[test]
    fn hints_left_out_are_counted_per_code() {
        let (mut ws, doc, _) = with(Entry {
            comment: "Light".into(),
            // "light" is inside the sample's "lighthouse": a hint.
            keys: vec!["light".into()],
            content: "Any light.".into(),
            ..Entry::default()
        });
        let all = problems(&mut ws, doc);
        let hints = |v: &ProblemsView| {
            v.problems
                .iter()
                .filter(|p| p.severity == Severity::Hint)
                .count()
        };
        assert!(hints(&all) > 0, "the sample with a contained key has hints");
        assert!(all.hidden_hints.is_empty());
        let some = ws.lint_job(doc).unwrap().without_hints().run(&mut ws);
        assert_eq!(hints(&some), 0);
        let counted: u32 = some.hidden_hints.iter().map(|h| h.count).sum();
        assert_eq!(counted as usize, hints(&all));
        assert!(some
            .hidden_hints
            .iter()
            .any(|h| h.code == "key_contains_other"));
        let others: Vec<_> = all
            .problems
            .iter()
            .filter(|p| p.severity != Severity::Hint)
            .collect();
        assert_eq!(some.problems.iter().collect::<Vec<_>>(), others);
    }

    #[test]
    fn apply_fix_is_one_undo_step_and_the_problem_goes() {
        let (mut ws, doc, id) = with(Entry {
            comment: "Tide tables".into(),
            keys: vec!["tide tables".into()],
            secondary_keys: vec!["almanac".into()],
            selective: false,
            content: "High water at dawn.".into(),
            ..Entry::default()
        });
        let view = problems(&mut ws, doc);
        let p = view
            .problems
            .iter()
            .find(|p| p.entry.id == id && p.code() == "secondary_unused")
            .expect("secondary keys on a non-selective entry")
            .clone();
        assert_eq!(p.severity, Severity::Warning);
        let detail = ws.apply_fix(doc, id, p.fix.as_ref().unwrap()).unwrap();
        assert!(detail.entry.secondary_keys.is_empty());
        let view = problems(&mut ws, doc);
        assert!(!codes_of(&view, id).contains(&"secondary_unused"));
        assert!(ws.undo(doc).unwrap());
        let back = ws.entry(doc, id).unwrap().entry;
        assert_eq!(back.secondary_keys, vec!["almanac".to_string()]);
        assert_eq!(back.comment, "Tide tables", "only the fix was undone");
    }

    #[test]
    fn apply_fix_refuses_a_fix_the_entry_outgrew() {
        let (mut ws, doc, id) = with(Entry {
            keys: vec!["a".into()],
            content: "Body.".into(),
            ..Entry::default()
        });
        let stale = Fix::RemoveKey {
            secondary: false,
            index: 3,
        };
        let before = ws.entry(doc, id).unwrap().entry;
        let err = ws.apply_fix(doc, id, &stale).unwrap_err();
        assert_eq!(err.code, ErrorCode::FixOutdated);
        assert_eq!(ws.entry(doc, id).unwrap().entry, before);
    }

    #[test]
    fn under_sillytavern_rules_a_plain_sillytavern_entry_is_not_reported() {
        let (mut ws, doc, id) = with(Entry {
            keys: vec!["harbour master".into()],
            selective: true,
            content: "She keeps the ledger.".into(),
            ..Entry::default()
        });
        let studio = problems(&mut ws, doc);
        assert!(codes_of(&studio, id).contains(&"selective_without_secondary"));
        ws.set_rules(Rules::Sillytavern);
        let st = problems(&mut ws, doc);
        assert_eq!(st.rules, Rules::Sillytavern);
        assert!(!codes_of(&st, id).contains(&"selective_without_secondary"));
        assert_eq!(ws.budget_advice(None).unwrap().map(|a| a.budget), None);
    }

    #[test]
    fn a_detached_book_is_checked_alone_without_the_chat() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        ws.set_attached(doc, false).unwrap();
        let view = problems(&mut ws, doc);
        assert!(!view.chat);
        assert_eq!(view.books.len(), 1);
    }

    #[test]
    fn budget_advice_finds_the_budget_that_keeps_every_entry() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        let mut settings = ws.doc(doc).unwrap().settings();
        settings.token_budget = 100;
        ws.set_book_settings(doc, settings.clone()).unwrap();
        let advice = ws.budget_advice(None).unwrap().expect("guide's rules");
        assert_eq!(advice.budget, 100);
        assert!(advice.cut > 0, "100 tokens cut some of the sample's lore");
        let keep = advice.budget_to_keep_all.expect("within the allowed range");
        assert!(keep > 100);
        // The request log names the same entries as cut.
        let cut: std::collections::BTreeSet<u64> = ws
            .preview_log()
            .unwrap()
            .iter()
            .flat_map(|row| row.cut.iter().map(|e| e.id))
            .collect();
        assert_eq!(cut.len() as u32, advice.cut);
        settings.token_budget = keep;
        ws.set_book_settings(doc, settings).unwrap();
        let after = ws.budget_advice(None).unwrap().unwrap();
        assert_eq!(after.cut, 0, "at that budget nothing is cut");
        assert_eq!(after.budget_to_keep_all, Some(keep));
        assert!(ws
            .preview_log()
            .unwrap()
            .iter()
            .all(|row| row.cut.is_empty()));
    }

    #[test]
    fn budget_advice_for_an_entry_the_budget_cut() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        let mut settings = ws.doc(doc).unwrap().settings();
        settings.token_budget = 100;
        ws.set_book_settings(doc, settings).unwrap();
        let ids: Vec<u64> = ws.docs[0].book.entries.iter().map(|e| e.id).collect();
        let cut = ids
            .iter()
            .find_map(|&id| {
                let a = ws.budget_advice(Some((doc, id))).unwrap()?;
                let e = a.entry?;
                (e.coverage.cut_by_budget > 0).then_some(e)
            })
            .expect("some entry of the sample is cut at 100 tokens");
        let advice = cut.advice.expect("advice for a cut entry");
        assert!(!advice.cut_in.is_empty());
        assert!(advice.priority_change.is_some() || advice.tokens_to_lose.is_some());
    }
}
