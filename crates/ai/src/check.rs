//! What the preview does with a suggestion before the author takes it:
//! the book with that one suggestion in place is run over the chat's
//! request log under the rules in use (which requests it fires in, whether
//! the budget keeps it), over the text it was drafted from (do its keys
//! fire there at all), counted in the rules' tokenizer and linted.

use serde::Serialize;

use lorebook_engine::lint::{self, LintContext};
use lorebook_engine::model::Book;
use lorebook_engine::profile::ProfileName;
use lorebook_engine::scenario::{self, Settings};
use lorebook_engine::tokenizer::{tokenizer_for_model, TokenCounter, Tokenizer};

use crate::action::{apply, Finding, Merge, Suggestion};
pub use crate::suggested::Verdict;

/// The rules a check runs under, and what it runs over.
#[derive(Debug, Clone)]
pub struct Setup {
    pub rules: ProfileName,
    pub settings: Settings,
    /// The chat whose request log is run (any chat format the preview
    /// reads); `None`: no log.
    pub chat: Option<String>,
    /// The text a draft was made from.
    pub source: Option<String>,
}

impl Setup {
    /// The tokenizer the rules count with.
    pub fn tokenizer(&self) -> Result<Tokenizer, String> {
        let model = self
            .settings
            .model
            .clone()
            .unwrap_or_else(|| self.rules.info().default_model.to_string());
        tokenizer_for_model(&model)
    }
}

/// A suggestion's simulated effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// Whether it activates on the text it was drafted from (`None`: not a
    /// draft from a text).
    pub fires_on_source: Option<bool>,
    /// The chat's requests it activates in (1…M).
    pub requests: Vec<usize>,
    /// Its content's tokens in the rules' tokenizer.
    pub tokens: u32,
    /// The budget keeps it in at least one request where it activates
    /// (the chat's, else the source's); false when it is cut wherever it
    /// activates: it would never reach the prompt.
    pub kept_by_budget: bool,
    /// The chat's requests where the budget cut it.
    pub cut_in: Vec<usize>,
    /// The lint codes it brings (warnings and errors; hints are left out).
    pub problems: Vec<String>,
    /// Every check passed: the app pre-selects it.
    pub passed: bool,
    /// Why it did not pass, one reason per failed check.
    pub failed: Vec<Failed>,
}

/// A check a suggestion failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "code")]
pub enum Failed {
    /// Its target is locked by the author.
    Locked,
    /// Its target already says exactly this.
    Same,
    NoName,
    EmptyContent,
    /// Its keys do not activate it on the text it was drafted from.
    NoFireOnSource,
    /// The budget cuts it wherever it activates.
    CutByBudget,
    /// Larger than the size the author asked for.
    OverSize {
        tokens: u32,
        max: u32,
    },
    /// The lint finds these problems in it.
    Lint {
        codes: Vec<String>,
    },
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failed::Locked => f.write_str("its entry is locked"),
            Failed::Same => f.write_str("the entry already says this"),
            Failed::NoName => f.write_str("it has no name"),
            Failed::EmptyContent => f.write_str("its content is empty"),
            Failed::NoFireOnSource => {
                f.write_str("its keys do not fire on the text it was drafted from")
            }
            Failed::CutByBudget => f.write_str("the budget cuts it wherever it fires"),
            Failed::OverSize { tokens, max } => {
                write!(f, "it is {tokens} tokens, over the {max} asked for")
            }
            Failed::Lint { codes } => write!(f, "the lint finds {}", codes.join(", ")),
        }
    }
}

/// Checks `s` against `book`; `max_tokens` is the size the author set (a
/// suggestion over it fails).
pub fn check(
    book: &Book,
    s: &Suggestion,
    setup: &Setup,
    max_tokens: Option<u32>,
) -> Result<Check, String> {
    let mut candidate = book.clone();
    let id = apply(&mut candidate, s);
    let tokens = setup.tokenizer()?.count(&s.entry.content);
    let mut failed = Vec::new();
    let Some(id) = id else {
        // Locked, or nothing to change: nothing to simulate.
        if s.locked {
            failed.push(Failed::Locked);
        }
        if s.merge == Merge::Same {
            failed.push(Failed::Same);
        }
        return Ok(Check {
            fires_on_source: None,
            requests: Vec::new(),
            tokens,
            kept_by_budget: true,
            cut_in: Vec::new(),
            problems: Vec::new(),
            passed: false,
            failed,
        });
    };
    let mut requests = Vec::new();
    let mut cut_in = Vec::new();
    if let Some(chat) = &setup.chat {
        let (mut profile, messages) =
            scenario::prepare(&candidate, setup.rules, &setup.settings, chat)?;
        profile.log_each(&messages, &mut |o| {
            let fired = o.injected.iter().any(|p| p.book == 0 && p.id == id);
            let was_cut = o.cut.contains(&(0, id));
            if fired || was_cut {
                requests.push(o.request);
            }
            if was_cut {
                cut_in.push(o.request);
            }
        });
    }
    let mut source_cut = false;
    let fires_on_source = match &setup.source {
        Some(text) => {
            let chat = serde_json::json!([{"role": "user", "content": text}]).to_string();
            let (mut profile, messages) =
                scenario::prepare(&candidate, setup.rules, &setup.settings, &chat)?;
            let o = profile.request(&messages, messages.len());
            let fired = o.injected.iter().any(|p| p.book == 0 && p.id == id);
            source_cut = o.cut.contains(&(0, id));
            Some(fired || source_cut)
        }
        None => None,
    };
    // Cut wherever it activates: in every request of the chat it fires
    // in, or, firing in none, on its source.
    let cut = if requests.is_empty() {
        source_cut
    } else {
        cut_in.len() == requests.len()
    };
    let rules = scenario::lint_rules(setup.rules, &setup.settings)?;
    let books = [candidate];
    let cx = LintContext::new(&books, rules, &[false]);
    let mut counter = TokenCounter::with_tokenizer(setup.tokenizer()?);
    let mut problems: Vec<String> = lint::lint(&cx, &books, &mut counter, None)
        .into_iter()
        .filter(|p| {
            p.entry.id == id && p.severity >= lorebook_engine::diagnostic::Severity::Warning
        })
        .map(|p| p.code().to_string())
        .collect();
    problems.dedup();
    if s.entry.name.trim().is_empty() {
        failed.push(Failed::NoName);
    }
    if s.entry.content.trim().is_empty() {
        failed.push(Failed::EmptyContent);
    }
    if fires_on_source == Some(false) {
        failed.push(Failed::NoFireOnSource);
    }
    if cut {
        failed.push(Failed::CutByBudget);
    }
    if let Some(max) = max_tokens {
        if tokens > max {
            failed.push(Failed::OverSize { tokens, max });
        }
    }
    if !problems.is_empty() {
        failed.push(Failed::Lint {
            codes: problems.clone(),
        });
    }
    Ok(Check {
        fires_on_source,
        requests,
        tokens,
        kept_by_budget: !cut,
        cut_in,
        passed: failed.is_empty(),
        problems,
        failed,
    })
}

/// What the preview says about a review finding where it can tell: for
/// keys said never to fire or to be too broad, how many requests of the
/// chat each named entry activates in.
pub fn verify(book: &Book, f: &mut Finding, setup: &Setup) -> Result<(), String> {
    if !matches!(f.kind.as_str(), "never_fires" | "too_broad") || f.ids.is_empty() {
        if f.ids.is_empty() && !f.entries.is_empty() {
            f.preview = Some(Verdict::NamesNoEntry);
        }
        return Ok(());
    }
    let Some(chat) = &setup.chat else {
        return Ok(());
    };
    let (mut profile, messages) = scenario::prepare(book, setup.rules, &setup.settings, chat)?;
    let mut fired = vec![0usize; f.ids.len()];
    let mut total = 0;
    profile.log_each(&messages, &mut |o| {
        total += 1;
        for (i, id) in f.ids.iter().enumerate() {
            if o.injected.iter().any(|p| p.book == 0 && p.id == *id) || o.cut.contains(&(0, *id)) {
                fired[i] += 1;
            }
        }
    });
    let each = f
        .ids
        .iter()
        .zip(fired)
        .map(|(id, n)| {
            let name = book.entry(*id).map(|e| e.display_name()).unwrap_or("?");
            (*id, name.to_string(), n)
        })
        .collect();
    f.preview = Some(Verdict::Activations { total, each });
    Ok(())
}
