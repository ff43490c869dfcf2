//! Lints: problems of entries and books, as codes with parameters.
//!
//! Two layers live here:
//!
//! - [`lint_entry`] and [`entry_lints`]: the diagnostics the activation
//!   index reports on an entry (and the editor shows next to it), kept as
//!   they were;
//! - the lint checks of issue 20 (docs/lint.md): [`Problem`]s with a stable
//!   code, a severity, a span and a typed [`Fix`], under the rules in use
//!   ([`LintRules`]). [`check_entry`] runs the checks of one entry on its
//!   own (cheap: re-run on every edit); [`check_books`] those across
//!   entries (duplicates, containment, recursion, budget: linear in the
//!   books); [`check_chat`] those that need a chat; [`lint`] runs all
//!   three. [`coverage`] and [`advise`] read a chat's request log.
//!
//! ```
//! use lorebook_engine::lint::{self, LintContext, LintRules};
//! use lorebook_engine::model::{Book, Entry};
//! use lorebook_engine::tokenizer::{Encoding, TokenCounter};
//! let mut book = Book::default();
//! book.add_entry(Entry { keys: vec!["dragon".into()], content: "A red dragon.".into(), ..Entry::default() });
//! book.add_entry(Entry { keys: vec!["Dragon".into()], content: "Dragons sleep.".into(), ..Entry::default() });
//! let books = [book];
//! let cx = LintContext::new(&books, LintRules::Studio, &[]);
//! let problems = lint::lint(&cx, &books, &mut TokenCounter::new(Encoding::O200kBase), None);
//! assert_eq!(problems[0].code(), "duplicate_key");
//! ```
//!
//! [`lint_entry`] gives the same diagnostics, in the same order, as
//! [`crate::activation::Index`] reports for that entry: the decorator
//! diagnostics of its content, the entry-level lints ([`entry_lints`]), then
//! one error per key whose pattern does not compile ([`key_error`]). It
//! compiles only this entry's keys, so a detached book's editor never builds
//! an index to lint one keystroke.

mod book;
mod budget;
mod chat;
mod context;
mod coverage;
mod entry;
mod problem;
mod recursion;
mod risu;
mod wording;
mod words;

pub use book::{check_books, LISTED};
pub use chat::{check_chat, MIN_MESSAGES};
pub use context::{looks_from_sillytavern, BookFacts, LintContext, LintRules};
pub use coverage::{
    advise, coverage, coverage_risu, coverage_st, refine_with_coverage, Advice, BudgetLog,
    Competitor, Coverage, EntryCoverage,
};
pub use entry::check_entry;
pub use problem::{
    CommonReason, Contradiction, DuplicateEffect, EntryRef, Finding, Fix, NeverReason,
    NoEffectReason, Problem, Span, CODES,
};
pub use words::Language;

use crate::chat::Message;
use crate::decorators::{self, Diagnostic, Severity};
use crate::diagnostic::DiagnosticMessage;
use crate::matcher::{KeyError, KeyFlags, KeyOwner, MatcherBuilder};
use crate::model::Entry;

/// Counts tokens the way the preview does: the budget checks count only
/// the bodies that could break the budget.
pub trait CountTokens {
    /// The token count of each text.
    fn count_all(&mut self, texts: &[&str]) -> Vec<u32>;
}

impl CountTokens for crate::tokenizer::TokenCounter {
    fn count_all(&mut self, texts: &[&str]) -> Vec<u32> {
        self.prime(texts.iter().copied());
        texts.iter().map(|t| self.count(t)).collect()
    }
}

impl CountTokens for crate::preview::Preview {
    fn count_all(&mut self, texts: &[&str]) -> Vec<u32> {
        self.prime_tokens(texts.iter().copied());
        texts.iter().map(|t| self.count_tokens(t)).collect()
    }
}

/// Every problem of `books` linted together: each entry's own
/// ([`check_entry`]), the whole-book ones ([`check_books`]) and, with a
/// chat, those it shows ([`check_chat`]). Sorted by book, then the
/// entry's position in its book, each entry's problems in check order.
pub fn lint(
    cx: &LintContext,
    books: &[crate::model::Book],
    tokens: &mut dyn CountTokens,
    chat: Option<&[Message]>,
) -> Vec<Problem> {
    let mut cx = cx.clone();
    cx.chat_loaded = chat.is_some();
    let mut out = Vec::new();
    // Each entry is read as the rules read it once, for every check.
    let items = book::items(&cx, books);
    for it in &items {
        out.extend(entry::check_entry_seen(&cx, it.at.book, it.entry, &it.seen));
    }
    out.extend(book::check_books_items(&cx, &items, tokens));
    if let Some(chat) = chat {
        out.extend(chat::check_chat_items(&cx, &items, chat));
    }
    let position: std::collections::HashMap<EntryRef, usize> = books
        .iter()
        .enumerate()
        .flat_map(|(b, book)| {
            book.entries
                .iter()
                .enumerate()
                .map(move |(i, e)| (EntryRef { book: b, id: e.id }, i))
        })
        .collect();
    out.sort_by_key(|p| (p.entry.book, position.get(&p.entry).copied()));
    out
}

/// Every diagnostic of entry `e`: decorators, entry lints and invalid keys.
pub fn lint_entry(e: &Entry) -> Vec<Diagnostic> {
    let mut diagnostics = decorators::parse(&e.content).diagnostics;
    let flags = KeyFlags {
        case_sensitive: e.case_sensitive,
        whole_words: e.whole_words,
        use_regex: e.use_regex,
    };
    let mut builder = MatcherBuilder::quick();
    let mut add = |keys: &[String], secondary: bool| {
        keys.iter()
            .enumerate()
            .filter_map(|(i, k)| {
                let owner = KeyOwner {
                    entry: 0,
                    secondary,
                    position: i as u32,
                };
                builder.add(k, owner, flags)
            })
            .count()
    };
    let primary = add(&e.keys, false);
    let secondary = add(&e.secondary_keys, true);
    diagnostics.extend(entry_lints(e, primary, secondary));
    let (_, errors) = builder.build();
    diagnostics.extend(errors.iter().map(key_error));
    diagnostics
}

/// The lints of an entry's flags against its keys, given how many primary
/// and secondary keys it has (blank keys do not count).
pub fn entry_lints(e: &Entry, primary: usize, secondary: usize) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // SillyTavern writes `selective: true` on every entry, with or without
    // secondary keys; without them the entry simply matches on its primary
    // keys, so this only hints that the flag does nothing.
    if e.selective && secondary == 0 && !e.constant {
        out.push(Diagnostic {
            line: None,
            severity: Severity::Hint,
            message: DiagnosticMessage::SelectiveWithoutSecondary,
        });
    }
    if primary == 0 && !e.constant && e.enabled {
        out.push(Diagnostic {
            line: None,
            severity: Severity::Warning,
            message: DiagnosticMessage::NoKeys,
        });
    }
    out
}

/// The diagnostic of a key whose pattern did not compile.
pub fn key_error(err: &KeyError) -> Diagnostic {
    let message = match err.too_large {
        Some((limit, max)) => DiagnosticMessage::RegexTooLarge {
            key: err.key.clone(),
            secondary: err.owner.secondary,
            limit,
            max: max as u32,
        },
        None => DiagnosticMessage::InvalidRegex {
            key: err.key.clone(),
            secondary: err.owner.secondary,
            error: err.message.clone(),
        },
    };
    Diagnostic {
        line: None,
        severity: Severity::Error,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::activation::Index;
    use crate::model::Book;

    /// What the activation index reports for `e`, built alone and then
    /// edited in (both paths the index has).
    fn index_diagnostics(e: &Entry) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
        let book = Book {
            entries: vec![e.clone()],
            ..Book::default()
        };
        let built = Index::build(std::slice::from_ref(&book));
        let built = built.entry(0, e.id).unwrap().diagnostics.clone();
        let mut edited = Index::build(&[Book::default()]);
        edited.upsert(0, e);
        let edited = edited.entry(0, e.id).unwrap().diagnostics.clone();
        (built, edited)
    }

    fn check(e: Entry, expected: usize) {
        let linted = lint_entry(&e);
        let (built, edited) = index_diagnostics(&e);
        assert_eq!(linted, built, "{e:?}");
        assert_eq!(linted, edited, "{e:?}");
        assert_eq!(linted.len(), expected, "{linted:?}");
    }

    fn entry(keys: &[&str], secondary: &[&str], content: &str) -> Entry {
        Entry {
            keys: keys.iter().map(|k| k.to_string()).collect(),
            secondary_keys: secondary.iter().map(|k| k.to_string()).collect(),
            content: content.into(),
            ..Entry::default()
        }
    }

    #[test]
    fn a_clean_entry_has_no_diagnostics() {
        check(entry(&["lighthouse"], &[], "The lamp."), 0);
    }

    #[test]
    fn lint_entry_equals_what_the_index_reports() {
        check(entry(&[], &[], "Body"), 1);
        check(entry(&["  "], &[], "Body"), 1);
        check(
            Entry {
                selective: true,
                ..entry(&["a"], &[" "], "Body")
            },
            1,
        );
        check(
            Entry {
                constant: true,
                selective: true,
                ..entry(&[], &[], "Body")
            },
            0,
        );
        check(
            Entry {
                enabled: false,
                ..entry(&[], &[], "Body")
            },
            0,
        );
        check(entry(&["/[unclosed/"], &["/(x/i"], "Body"), 2);
        check(
            Entry {
                use_regex: true,
                ..entry(&["(open"], &[], "Body")
            },
            1,
        );
        check(entry(&["a"], &[], "@@bogus\n@@depth x\nBody"), 2);
        check(entry(&[], &["/(/"], "@@bogus\nBody"), 3);
    }

    /// Issue 12: SillyTavern saves every plain entry as selective without
    /// secondary keys, so a warning there badged every imported entry.
    #[test]
    fn selective_without_secondary_is_only_a_hint() {
        let e = Entry {
            selective: true,
            ..entry(&["a"], &[], "Body")
        };
        let d = lint_entry(&e);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].message, DiagnosticMessage::SelectiveWithoutSecondary);
        assert_eq!(d[0].severity, Severity::Hint);
    }
}
