//! `lorebook ai draft|keys|shorten|review BOOK …` and `lorebook ai prompt
//! ACTION`: the author's own model through an OpenAI-compatible endpoint
//! (`--endpoint URL --model NAME`, or `LOREBOOK_AI_ENDPOINT` and
//! `LOREBOOK_AI_MODEL`; the API key only from `LOREBOOK_AI_KEY`), every
//! suggestion checked by the preview under the rules given (`--rules` and
//! the rules' settings, as `preview` takes them). Nothing is written
//! unless `--apply -o OUT`. Exit status 0 done, 2 usage, unreadable input
//! or an endpoint that failed (the message says how).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use lorebook_ai::run::{run, Checked, Options, Outcome};
use lorebook_ai::{ApiKey, Endpoint, Format, Merge, Request, Setup};
use lorebook_engine::model::Book;
use lorebook_engine::profile::ProfileName;

use crate::{books, emit, read_text};

/// The environment variables the endpoint, model and key come from.
pub const ENDPOINT_ENV: &str = "LOREBOOK_AI_ENDPOINT";
pub const MODEL_ENV: &str = "LOREBOOK_AI_MODEL";
pub const KEY_ENV: &str = "LOREBOOK_AI_KEY";

#[derive(clap::Subcommand)]
pub enum AiCommand {
    /// Drafts entries from a chat or a plain text, against the book.
    Draft {
        #[command(flatten)]
        common: Box<Common>,
        /// The chat (any chat format) or plain text to draft from.
        #[arg(long)]
        from: PathBuf,
        /// Each entry's content at most this many tokens.
        #[arg(long, default_value_t = 200)]
        tokens: u32,
        /// At most this many entries.
        #[arg(long, default_value_t = 8)]
        max_entries: usize,
    },
    /// Suggests keys for an entry from its content and the chat.
    Keys {
        #[command(flatten)]
        common: Box<Common>,
        /// The entry's id (`lorebook inspect` lists them).
        #[arg(long)]
        entry: u64,
    },
    /// Shortens an entry to at most N tokens.
    Shorten {
        #[command(flatten)]
        common: Box<Common>,
        #[arg(long)]
        entry: u64,
        /// The size to reach, in the rules' tokenizer.
        #[arg(long)]
        tokens: u32,
    },
    /// Reviews the book: contradictions, keys too broad or never firing,
    /// facts of the chat no entry holds.
    Review {
        #[command(flatten)]
        common: Box<Common>,
        /// Only these entries (repeatable); default: the whole book.
        #[arg(long = "entry")]
        entries: Vec<u64>,
        /// At most this many findings.
        #[arg(long, default_value_t = 12)]
        max_findings: usize,
    },
    /// Prints an action's built-in prompt (draft, keys, shorten, review), to
    /// read it or to start a folder of your own (--prompts).
    Prompt {
        action: String,
        #[arg(long, default_value = "en")]
        lang: String,
    },
}

/// What every action takes.
#[derive(clap::Args)]
pub struct Common {
    /// The book (any importable format, or a book's folder).
    book: PathBuf,
    /// The chat whose request log checks each suggestion (and that keys
    /// and review read); a draft's --from chat by default.
    #[arg(long)]
    chat: Option<PathBuf>,
    /// The endpoint: http://127.0.0.1:8080, https://api.openai.com/v1, …
    /// (default: $LOREBOOK_AI_ENDPOINT). The key is read from
    /// $LOREBOOK_AI_KEY only.
    #[arg(long)]
    endpoint: Option<String>,
    /// The endpoint's model name (default: $LOREBOOK_AI_MODEL).
    #[arg(long)]
    model: Option<String>,
    /// Whose rules check the suggestions: studio, sillytavern or risu.
    #[arg(long, default_value = "studio", value_parser = books::parse_profile)]
    rules: ProfileName,
    #[command(flatten)]
    settings: books::RuleSettings,
    /// The tokenizer's model for sizes and the budget (default: --model
    /// when it names a known family, else the rules' default).
    #[arg(long)]
    tokenizer_model: Option<String>,
    /// The model's context in tokens: a prompt that does not fit with the
    /// answer is refused before sending.
    #[arg(long, default_value_t = 8192)]
    context: u32,
    /// Room for the answer, in tokens.
    #[arg(long, default_value_t = 2048)]
    answer_tokens: u32,
    /// How the answer's shape is asked: auto, json_schema, json_object or text.
    #[arg(long, default_value = "auto", value_parser = ["auto", "json_schema", "json_object", "text"])]
    format: String,
    /// The built-in prompts' language: en or pt-BR.
    #[arg(long, default_value = "en", value_parser = ["en", "pt-BR"])]
    lang: String,
    /// A folder of your own prompts (<action>.md), in place of the built-in ones.
    #[arg(long)]
    prompts: Option<PathBuf>,
    /// The model's sampling seed, where the endpoint takes one.
    #[arg(long)]
    seed: Option<u64>,
    /// Seconds without a byte of the answer before giving up.
    #[arg(long, default_value_t = 90)]
    timeout: u64,
    /// Writes every request and answer (never the key) to this file, as JSON.
    #[arg(long)]
    transcript: Option<PathBuf>,
    /// One JSON object: {"suggestions": […]} or {"findings": […]}.
    #[arg(long)]
    json: bool,
    /// Applies the suggestions that passed their checks and writes the
    /// book to -o (never a locked entry).
    #[arg(long, requires = "output")]
    apply: bool,
    /// With --apply, those that failed their checks too.
    #[arg(long, requires = "apply")]
    include_failed: bool,
    #[arg(short, long)]
    output: Option<PathBuf>,
}

fn usage(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

pub fn run_command(command: &AiCommand) -> ExitCode {
    let (common, request) = match command {
        AiCommand::Prompt { action, lang } => {
            return match lorebook_ai::prompt::builtin(action, lang) {
                Some(text) => {
                    emit(text);
                    ExitCode::SUCCESS
                }
                None => usage(format!(
                    "no action {action:?} (one of: {})",
                    lorebook_ai::prompt::ACTIONS.join(", ")
                )),
            }
        }
        AiCommand::Draft {
            common,
            from,
            tokens,
            max_entries,
        } => {
            let source = match read_text(from).and_then(|t| source_text(&t)) {
                Ok(s) => s,
                Err(e) => return usage(format!("{}: {e}", from.display())),
            };
            (
                common,
                Request::Draft {
                    source,
                    tokens: *tokens,
                    max_entries: *max_entries,
                },
            )
        }
        AiCommand::Keys { common, entry } => (
            common,
            Request::Keys {
                entry: *entry,
                chat: String::new(),
            },
        ),
        AiCommand::Shorten {
            common,
            entry,
            tokens,
        } => (
            common,
            Request::Shorten {
                entry: *entry,
                tokens: *tokens,
            },
        ),
        AiCommand::Review {
            common,
            entries,
            max_findings,
        } => (
            common,
            Request::Review {
                entries: (!entries.is_empty()).then(|| entries.clone()),
                chat: String::new(),
                max_findings: *max_findings,
            },
        ),
    };
    match go(common, request, command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => usage(e),
    }
}

/// A chat file's messages as `Name: text` lines; any other text as it is.
fn source_text(text: &str) -> Result<String, String> {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with(['[', '{']) {
        let chat =
            lorebook_engine::chat::parse(text, &Default::default()).map_err(|e| e.to_string())?;
        return Ok(chat_lines(&chat.messages));
    }
    Ok(text.to_string())
}

fn chat_lines(messages: &[lorebook_engine::chat::Message]) -> String {
    messages
        .iter()
        .map(|m| match &m.name {
            Some(n) => format!("{n}: {}", m.text),
            None => format!("{:?}: {}", m.role, m.text),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn go(common: &Common, mut request: Request, command: &AiCommand) -> Result<(), String> {
    let endpoint = common
        .endpoint
        .clone()
        .or_else(|| std::env::var(ENDPOINT_ENV).ok())
        .filter(|s| !s.trim().is_empty())
        .ok_or(format!(
            "no endpoint: give --endpoint URL or set {ENDPOINT_ENV}"
        ))?;
    let model = common
        .model
        .clone()
        .or_else(|| std::env::var(MODEL_ENV).ok())
        .filter(|s| !s.trim().is_empty())
        .ok_or(format!("no model: give --model NAME or set {MODEL_ENV}"))?;
    let key = std::env::var(KEY_ENV).ok().and_then(ApiKey::new);
    let endpoint = Endpoint::new(&endpoint, &model, key).map_err(|e| e.to_string())?;
    let (imported, folder) = books::load_for_writing(&common.book)?;
    let book = imported.book;
    // The chat the checks run over: --chat, else a draft's --from chat.
    let chat_path = common.chat.clone().or_else(|| match command {
        AiCommand::Draft { from, .. } => {
            let t = read_text(from).ok()?;
            t.trim_start_matches('\u{feff}')
                .trim_start()
                .starts_with(['[', '{'])
                .then(|| from.clone())
        }
        _ => None,
    });
    let chat = chat_path.as_deref().map(read_text).transpose()?;
    let chat_for_model = match &chat {
        Some(t) => source_text(t)?,
        None => String::new(),
    };
    match &mut request {
        Request::Keys { chat, .. } | Request::Review { chat, .. } => {
            chat.clone_from(&chat_for_model)
        }
        _ => {}
    }
    let tokenizer_model = common.tokenizer_model.clone().or_else(|| {
        lorebook_engine::tokenizer::registry::family_of(&model)
            .is_ok()
            .then(|| model.clone())
    });
    let setup = Setup {
        rules: common.rules,
        settings: lorebook_engine::scenario::Settings {
            model: tokenizer_model,
            ..common.settings.scenario()?
        },
        chat,
        source: match &request {
            Request::Draft { source, .. } => Some(source.clone()),
            _ => None,
        },
    };
    let mut options = Options::new(endpoint);
    options.format = Format::parse(&common.format).expect("a format clap checked");
    options.lang.clone_from(&common.lang);
    options.prompts.clone_from(&common.prompts);
    options.context = common.context;
    options.answer_tokens = common.answer_tokens;
    options.seed = common.seed;
    options.limits.idle = Duration::from_secs(common.timeout.max(1));
    let cancel = AtomicBool::new(false);
    // Progress on a terminal only: a log or a pipe gets the result.
    let live = !common.json && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut shown = 0usize;
    let result = run(&book, &request, &options, &setup, &cancel, &mut |piece| {
        shown += piece.chars().count();
        if live {
            eprint!("\rreceiving the answer: {shown} characters");
        }
    });
    if shown > 0 && live {
        eprintln!();
    }
    let exchanges = match &result {
        Ok(o) => &o.exchanges,
        Err(f) => &f.exchanges,
    };
    if let Some(path) = &common.transcript {
        let text = serde_json::to_string_pretty(exchanges).map_err(|e| e.to_string())?;
        lorebook_engine::formats::write_atomic(path, text.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let outcome = result.map_err(|f| f.error.to_string())?;
    if common.json {
        let v = serde_json::json!({
            "suggestions": outcome.suggestions,
            "findings": outcome.findings,
            "prompt_tokens": outcome.prompt_tokens,
        });
        emit(&format!("{v}\n"));
    } else {
        let requests = setup.chat.as_ref().map(|t| {
            lorebook_engine::chat::parse(t, &Default::default())
                .map(|c| c.messages.len())
                .unwrap_or(0)
        });
        emit(&text_of(&book, &outcome, requests));
    }
    if common.apply {
        let out = common
            .output
            .as_ref()
            .expect("clap requires -o with --apply");
        let mut edited = book.clone();
        let mut applied = 0;
        for c in &outcome.suggestions {
            if (c.check.passed || common.include_failed)
                && lorebook_ai::action::apply(&mut edited, &c.suggestion).is_some()
            {
                applied += 1;
            }
        }
        books::write_back(&edited, out, &common.book, folder.as_ref())?;
        eprintln!(
            "applied {applied} of {} suggestions; wrote {}",
            outcome.suggestions.len(),
            out.display()
        );
    }
    Ok(())
}

fn text_of(book: &Book, o: &Outcome, chat: Option<usize>) -> String {
    let mut out = String::new();
    if o.suggestions.is_empty() && o.findings.is_empty() {
        out.push_str("the model suggested nothing\n");
    }
    for (i, c) in o.suggestions.iter().enumerate() {
        out.push_str(&suggestion_text(book, i + 1, c, chat));
    }
    for f in &o.findings {
        out.push_str(&format!(
            "{}: {} — {}\n",
            f.kind,
            f.entries.join(", "),
            f.note
        ));
        if let Some(p) = &f.preview {
            out.push_str(&format!("    preview: {p}\n"));
        }
    }
    out
}

/// Request numbers, the first ten.
fn list(r: &[usize]) -> String {
    let mut shown: Vec<String> = r.iter().take(10).map(ToString::to_string).collect();
    if r.len() > 10 {
        shown.push("…".into());
    }
    shown.join(", ")
}

fn suggestion_text(book: &Book, n: usize, c: &Checked, chat: Option<usize>) -> String {
    let s = &c.suggestion;
    let what = match (s.merge, s.target.and_then(|id| book.entry(id))) {
        (Merge::New, _) => "new".to_string(),
        (Merge::Changed, Some(e)) => format!("changes #{} {:?}", e.id, e.display_name()),
        (Merge::Same, Some(e)) => format!("same as #{} {:?}", e.id, e.display_name()),
        _ => "changes an entry".to_string(),
    };
    let mut out = format!(
        "[{n}] {:?} ({what}{}) keys: {}\n",
        s.entry.name,
        if s.locked { ", locked" } else { "" },
        s.entry.keys.join(", ")
    );
    let k = &c.check;
    let mut facts = vec![format!("{} tokens", k.tokens)];
    if let Some(f) = k.fires_on_source {
        facts.push(format!(
            "fires on the source: {}",
            if f { "yes" } else { "no" }
        ));
    }
    if let Some(chat) = chat {
        facts.push(match k.requests.as_slice() {
            [] => format!("fires in none of the chat's {chat} requests"),
            r => format!(
                "fires in {} of the chat's {chat} requests ({})",
                r.len(),
                list(r)
            ),
        });
    }
    facts.push(
        if k.kept_by_budget {
            "kept by the budget"
        } else {
            "cut by the budget"
        }
        .into(),
    );
    out.push_str(&format!("    {}\n", facts.join(" · ")));
    if k.passed {
        out.push_str("    passed\n");
    } else {
        let why: Vec<String> = k.failed.iter().map(ToString::to_string).collect();
        out.push_str(&format!("    not passed: {}\n", why.join("; ")));
    }
    out
}
