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
    /// Never cut by the budget where it activates (on the chat and on the
    /// source).
    pub kept_by_budget: bool,
    /// The lint codes it brings (warnings and errors; hints are left out).
    pub problems: Vec<String>,
    /// Every check passed: the app pre-selects it.
    pub passed: bool,
    /// Why it did not pass, in English, one reason per failed check.
    pub failed: Vec<String>,
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
            failed.push("its entry is locked".to_string());
        }
        if s.merge == Merge::Same {
            failed.push("the entry already says this".to_string());
        }
        return Ok(Check {
            fires_on_source: None,
            requests: Vec::new(),
            tokens,
            kept_by_budget: true,
            problems: Vec::new(),
            passed: false,
            failed,
        });
    };
    let mut requests = Vec::new();
    let mut cut = false;
    if let Some(chat) = &setup.chat {
        let (mut profile, messages) =
            scenario::prepare(&candidate, setup.rules, &setup.settings, chat)?;
        profile.log_each(&messages, &mut |o| {
            let fired = o.injected.iter().any(|p| p.book == 0 && p.id == id);
            let was_cut = o.cut.contains(&(0, id));
            if fired || was_cut {
                requests.push(o.request);
            }
            cut |= was_cut;
        });
    }
    let fires_on_source = match &setup.source {
        Some(text) => {
            let chat = serde_json::json!([{"role": "user", "content": text}]).to_string();
            let (mut profile, messages) =
                scenario::prepare(&candidate, setup.rules, &setup.settings, &chat)?;
            let o = profile.request(&messages, messages.len());
            let fired = o.injected.iter().any(|p| p.book == 0 && p.id == id);
            let was_cut = o.cut.contains(&(0, id));
            cut |= was_cut;
            Some(fired || was_cut)
        }
        None => None,
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
        failed.push("it has no name".to_string());
    }
    if s.entry.content.trim().is_empty() {
        failed.push("its content is empty".to_string());
    }
    if fires_on_source == Some(false) {
        failed.push("its keys do not fire on the text it was drafted from".to_string());
    }
    if cut {
        failed.push("the budget cuts it".to_string());
    }
    if let Some(max) = max_tokens {
        if tokens > max {
            failed.push(format!("it is {tokens} tokens, over the {max} asked for"));
        }
    }
    if !problems.is_empty() {
        failed.push(format!("the lint finds {}", problems.join(", ")));
    }
    Ok(Check {
        fires_on_source,
        requests,
        tokens,
        kept_by_budget: !cut,
        passed: failed.is_empty(),
        problems,
        failed,
    })
}

/// What the preview says about a review finding where it can tell: for
/// keys said never to fire or to be too broad, the requests of the chat
/// each named entry activates in.
pub fn verify(book: &Book, f: &mut Finding, setup: &Setup) -> Result<(), String> {
    if !matches!(f.kind.as_str(), "never_fires" | "too_broad") || f.ids.is_empty() {
        if f.ids.is_empty() && !f.entries.is_empty() {
            f.preview = Some("the finding names no entry of the book".into());
        }
        return Ok(());
    }
    let Some(chat) = &setup.chat else {
        return Ok(());
    };
    let (mut profile, messages) = scenario::prepare(book, setup.rules, &setup.settings, chat)?;
    let mut fired: Vec<Vec<usize>> = vec![Vec::new(); f.ids.len()];
    let mut total = 0;
    profile.log_each(&messages, &mut |o| {
        total += 1;
        for (i, id) in f.ids.iter().enumerate() {
            if o.injected.iter().any(|p| p.book == 0 && p.id == *id) || o.cut.contains(&(0, *id)) {
                fired[i].push(o.request);
            }
        }
    });
    let said: Vec<String> = f
        .ids
        .iter()
        .zip(&fired)
        .map(|(id, reqs)| {
            let name = book.entry(*id).map(|e| e.display_name()).unwrap_or("?");
            format!(
                "{name:?} activates in {} of the chat's {total} requests",
                reqs.len()
            )
        })
        .collect();
    f.preview = Some(said.join("; "));
    Ok(())
}
