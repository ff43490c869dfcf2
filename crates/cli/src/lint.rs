//! `lorebook lint BOOK... [--chat FILE] [--rules studio|sillytavern|risu] [--json] [--deny warnings|hints] [--advise ID]`:
//! the engine's lint checks (docs/lint.md), one line per problem, or one
//! JSON object. Exit status 0 when nothing is at or above the threshold
//! (errors by default), 1 when something is, 2 for usage errors and
//! unreadable input.

use std::path::PathBuf;
use std::process::ExitCode;

use lorebook_engine::diagnostic::Severity;
use lorebook_engine::formats::Format;
use lorebook_engine::lint::{self, Advice, Coverage, EntryRef, LintContext, LintRules, Problem};
use lorebook_engine::model::Book;
use lorebook_engine::preview::{Preview, Settings};
use lorebook_engine::risu::{RisuOptions, RisuPreview};
use lorebook_engine::sillytavern::{StOptions, StPreview, StSettings};
use lorebook_engine::tokenizer::{tokenizer_for_model, DEFAULT_MODEL};
use serde::Serialize;
use serde_json::{json, Value};

use crate::{books, emit, emit_json, load_chat};

#[derive(clap::Args)]
pub struct LintArgs {
    /// Books linted together (as the preview attaches them); their position is their index.
    #[arg(required = true)]
    books: Vec<PathBuf>,
    /// A chat: keys too common in it, coverage of its request log and budget advice.
    #[arg(long)]
    chat: Option<PathBuf>,
    /// Whose rules: studio (the guide's), sillytavern or risu.
    #[arg(long, default_value = "studio", value_parser = ["studio", "sillytavern", "risu"])]
    rules: String,
    /// One JSON object: problems, and with --chat coverage and advice.
    #[arg(long)]
    json: bool,
    /// Exit with 1 on problems of this severity or above (default: errors).
    #[arg(long, value_parser = ["errors", "warnings", "hints"])]
    deny: Option<String>,
    /// With --chat: what entry ID (BOOK:ID, or ID of the first book) needs to survive the budget.
    #[arg(long, requires = "chat")]
    advise: Vec<String>,
    /// The model whose tokenizer counts the budget.
    #[arg(long, default_value = DEFAULT_MODEL)]
    model: String,
    /// Seed of the probability rolls of the request log.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    settings: books::RuleSettings,
}

/// Usage errors and unreadable input: exit status 2.
fn usage(message: String) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

fn entry_ref(text: &str) -> Result<EntryRef, String> {
    let bad = || format!("--advise {text}: expected ID or BOOK:ID");
    let (book, id) = match text.split_once(':') {
        Some((b, i)) => (b.parse().map_err(|_| bad())?, i),
        None => (0, text),
    };
    Ok(EntryRef {
        book,
        id: id.parse().map_err(|_| bad())?,
    })
}

pub fn run(args: &LintArgs) -> ExitCode {
    let threshold = match args.deny.as_deref() {
        Some("hints") => Severity::Hint,
        Some("warnings") => Severity::Warning,
        _ => Severity::Error,
    };
    let advise: Vec<EntryRef> = match args.advise.iter().map(|a| entry_ref(a)).collect() {
        Ok(v) => v,
        Err(e) => return usage(e),
    };
    let tokenizer = match tokenizer_for_model(&args.model) {
        Ok(t) => t,
        Err(e) => return usage(e),
    };
    let mut books: Vec<Book> = Vec::new();
    let mut from_st = Vec::new();
    for path in &args.books {
        match books::load(path) {
            Ok(imported) => {
                from_st.push(imported.format == Format::SillyTavern);
                books.push(imported.book);
            }
            Err(e) => return usage(e),
        }
    }
    let chat = match &args.chat {
        Some(path) => match load_chat(path, &[]) {
            Ok(c) => Some(c),
            Err(e) => return usage(e),
        },
        None => None,
    };
    let rules = if args.rules == "sillytavern" {
        let settings = match &args.settings.st_settings {
            Some(path) => match crate::read_text(path).and_then(|t| {
                let v: Value = serde_json::from_str(t.strip_prefix('\u{feff}').unwrap_or(&t))
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                StSettings::from_value(&v)
                    .map(StSettings::clamped)
                    .map_err(|e| format!("{}: {e}", path.display()))
            }) {
                Ok(s) => s,
                Err(e) => return usage(e),
            },
            None => StSettings::default(),
        };
        LintRules::SillyTavern {
            settings,
            max_context: match crate::sillytavern::max_context_of(args.settings.max_context) {
                Ok(n) => n,
                Err(e) => return usage(e),
            },
            macros: match crate::sillytavern::macro_engine_of(args.settings.st_settings.as_deref())
            {
                Ok(m) => m,
                Err(e) => return usage(e),
            },
        }
    } else if args.rules == "risu" {
        let settings = match args.settings.risu() {
            Ok(s) => s,
            Err(e) => return usage(e),
        };
        LintRules::Risu { settings }
    } else {
        LintRules::Studio
    };
    let mut cx = LintContext::new(&books, rules.clone(), &from_st);
    // A budget the author did not give is the rules' default: the budget
    // checks say so and warn at most.
    cx.budget_assumed = match &rules {
        LintRules::Studio => false,
        LintRules::SillyTavern { .. } => {
            args.settings.st_settings.is_none() && args.settings.max_context.is_none()
        }
        LintRules::Risu { .. } => args.settings.risu_settings.is_none(),
    };
    let settings = Settings {
        seed: args.seed,
        model: args.model.clone(),
        ..Settings::default()
    };
    let names: Vec<String> = args.books.iter().map(|p| p.display().to_string()).collect();
    let mut counter = lorebook_engine::tokenizer::TokenCounter::with_tokenizer(tokenizer.clone());
    // The studio rules' request log runs on a second core while the
    // checks run on this one (its preview owns a copy of the books).
    let (mut problems, studio_log) = std::thread::scope(|s| {
        let log = match (&chat, &rules) {
            (Some(chat), LintRules::Studio) => {
                let (books, tokenizer) = (&books, tokenizer.clone());
                Some(s.spawn(move || {
                    let mut preview = Preview::from_books(books.clone(), settings);
                    preview.set_tokenizer(Some(tokenizer));
                    lint::coverage(&mut preview, chat)
                }))
            }
            _ => None,
        };
        let problems = lint::lint(&cx, &books, &mut counter, chat.as_deref());
        (problems, log.map(|h| h.join()))
    });
    let mut advice = Vec::new();
    let coverage = match (&chat, &rules) {
        (None, _) => None,
        (Some(_), LintRules::Studio) => {
            let Some(Ok((coverage, log))) = studio_log else {
                eprintln!("error: the request log failed");
                return ExitCode::FAILURE;
            };
            advice = advise
                .iter()
                .filter_map(|&e| lint::advise(&log, e))
                .collect();
            Some(coverage)
        }
        (
            Some(chat),
            LintRules::SillyTavern {
                settings,
                max_context,
                ..
            },
        ) => {
            if !advise.is_empty() {
                eprintln!(
                    "note: --advise needs the studio rules' book budget; ignored under --rules sillytavern"
                );
            }
            let named: Vec<(String, &Book)> = args
                .books
                .iter()
                .zip(&books)
                .map(|(p, b)| {
                    let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned());
                    (stem.unwrap_or_default(), b)
                })
                .collect();
            let options = StOptions {
                tokenizer,
                seed: args.seed,
                ..StOptions::default()
            };
            let mut p = match StPreview::new(&named, settings.clone(), options) {
                Ok(p) => p,
                Err(e) => return usage(e),
            };
            let mut results = Vec::new();
            p.log(chat, *max_context, |r| results.push(r));
            Some(lint::coverage_st(&books, &results))
        }
        (Some(chat), LintRules::Risu { settings }) => {
            if !advise.is_empty() {
                eprintln!(
                    "note: --advise needs the studio rules' book budget; ignored under --rules risu"
                );
            }
            let refs: Vec<&Book> = books.iter().collect();
            let options = RisuOptions {
                tokenizer: tokenizer.clone(),
                seed: args.seed,
            };
            let mut p = RisuPreview::new(&refs, settings.clone(), options);
            let mut results = Vec::new();
            p.log_each(chat, |r| results.push(r));
            Some(lint::coverage_risu(&books, &results))
        }
    };
    if let Some(c) = &coverage {
        lint::refine_with_coverage(&mut problems, c);
    }
    let worst = problems.iter().map(|p| p.severity).max();
    if args.json {
        emit_json(&LintJson::new(&problems, coverage.as_ref(), &advice));
    } else {
        emit(&render(&problems, coverage.as_ref(), &advice, &names));
    }
    let (e, w, h) = counts(&problems);
    eprintln!("{e} error(s), {w} warning(s), {h} hint(s)");
    if worst.is_some_and(|w| w >= threshold) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn counts(problems: &[Problem]) -> (usize, usize, usize) {
    let n = |s| problems.iter().filter(|p| p.severity == s).count();
    (n(Severity::Error), n(Severity::Warning), n(Severity::Hint))
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Hint => "hint",
    }
}

/// `FILE:ENTRY: severity code: message`, one line per problem, then the
/// coverage and the advice.
fn render(
    problems: &[Problem],
    coverage: Option<&Coverage>,
    advice: &[Advice],
    names: &[String],
) -> String {
    use std::fmt::Write;
    let file = |b: usize| names.get(b).map_or("?", String::as_str);
    let mut out = String::new();
    for p in problems {
        let _ = writeln!(
            out,
            "{}:{}: {} {}: {}",
            file(p.entry.book),
            p.entry.id,
            severity(p.severity),
            p.code(),
            p
        );
    }
    if let Some(c) = coverage {
        let _ = writeln!(out, "coverage of {} request(s):", c.requests);
        for e in c.entries.iter().filter(|e| e.matched > 0) {
            let _ = writeln!(
                out,
                "  {}:{}: matched {}, injected {}, cut by budget {}, lost roll {}",
                file(e.book),
                e.id,
                e.matched,
                e.injected,
                e.cut_by_budget,
                e.lost_roll
            );
        }
        let _ = writeln!(
            out,
            "  never activated: {} enabled entr{}",
            c.never_activated.len(),
            if c.never_activated.len() == 1 {
                "y"
            } else {
                "ies"
            }
        );
        let _ = match c.budget_to_keep_all {
            Some(b) => writeln!(out, "  budget to keep all: {b} tokens"),
            None if c.needed == 0 => writeln!(out, "  budget to keep all: no book budget (sillytavern rules)"),
            None => writeln!(
                out,
                "  budget to keep all: none; the fullest request needs {} tokens, above the largest budget",
                c.needed
            ),
        };
    }
    for a in advice {
        let _ = writeln!(
            out,
            "advice {}:{}: cut in {} request(s); priority {} → {}; {} tokens, {}",
            file(a.book),
            a.id,
            a.cut_in.len(),
            a.priority,
            a.priority_change
                .map_or("no priority is enough".to_string(), |d| format!(
                    "{} (+{d})",
                    a.priority.saturating_add(d)
                )),
            a.tokens,
            a.tokens_to_lose
                .map_or("shrinking alone does not help".to_string(), |t| format!(
                    "{t} fewer would do"
                )),
        );
    }
    out
}

/// The `--json` object (documented in docs/cli.md).
#[derive(Serialize)]
struct LintJson {
    problems: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    coverage: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    advice: Option<Value>,
}

impl LintJson {
    fn new(problems: &[Problem], coverage: Option<&Coverage>, advice: &[Advice]) -> LintJson {
        let problems = problems
            .iter()
            .map(|p| {
                // The code's parameters, without the tag.
                let mut params = serde_json::to_value(&p.finding).unwrap_or(Value::Null);
                if let Value::Object(o) = &mut params {
                    o.remove("code");
                }
                json!({
                    "book": p.entry.book,
                    "id": p.entry.id,
                    "code": p.code(),
                    "severity": p.severity,
                    "message": p.to_string(),
                    "span": p.span,
                    "fix": p.fix,
                    "params": params,
                })
            })
            .collect();
        let (coverage, advice) = match coverage {
            Some(c) => (
                Some(json!(c
                    .entries
                    .iter()
                    .map(|e| json!({
                        "book": e.book,
                        "id": e.id,
                        "matched": e.matched,
                        "injected": e.injected,
                        "cut_by_budget": e.cut_by_budget,
                        "lost_roll": e.lost_roll,
                    }))
                    .collect::<Vec<_>>())),
                Some(json!({
                    "budget_to_keep_all": c.budget_to_keep_all,
                    "needed": c.needed,
                    "requests": c.requests,
                    "never_activated": c.never_activated,
                    "entries": advice,
                })),
            ),
            None => (None, None),
        };
        LintJson {
            problems,
            coverage,
            advice,
        }
    }
}
