//! `lorebook`: the command-line tool over the lorebook engine.
//!
//! - `lorebook preview BOOK... --chat FILE [--request K | --log] [--model NAME | --tokenizer FILE] [--seed N] [--json] [--list-unmatched]`
//!   (`--rules sillytavern` adds `--st-settings`, `--st-sources`, `--max-context`, `--user`, `--char`, `--author-note…`;
//!   `--rules risu` adds `--risu-settings`)
//! - `lorebook convert IN --to FORMAT [-o OUT] [--into-card CARD.png]` (`--to folder -o DIR`: a folder of
//!   Markdown files; any BOOK argument may be such a folder)
//! - `lorebook inspect FILE [--json]`
//! - `lorebook tokens FILE [--model NAME | --tokenizer FILE]`
//! - `lorebook models`
//! - `lorebook lint BOOK... [--chat FILE] [--rules NAME] [--json] [--deny warnings|hints] [--advise ID]`
//!   (exit status 0 clean, 1 problems at or above the threshold, 2 usage or unreadable input)
//! - `lorebook scenario record BOOK --chat FILE --name NAME [--rules NAME] [settings…] [-o OUT]`, `lorebook scenario list BOOK`
//! - `lorebook diff OLD NEW --chat FILE [--rules NAME] [settings…] [--json]` (exit status 0 no change, 1 a change, 2 usage or unreadable input)
//! - `lorebook compare A B [--json]` (exit status 0 the same entries, 1 a difference, 2 usage or unreadable input)
//! - `lorebook replace BOOK --find PAT --with TEXT [--regex] [--in names,keys,secondary,content] [--dry-run] [-o OUT]`
//! - `lorebook test BOOK... [--json]` (exit status 0 every scenario passes, 1 one fails, 2 usage or unreadable input)
//! - `lorebook ai draft|keys|shorten|review BOOK … --endpoint URL --model NAME [--json] [--apply -o OUT]`
//!   (the API key from `LOREBOOK_AI_KEY`; exit status 2 when the endpoint fails), `lorebook ai prompt ACTION`
//! - `lorebook sillytavern books|pull|push URL …` (a running SillyTavern; push exits with 3 when the server's copy
//!   changed since it was last pulled or pushed here)
//!
//! Every BOOK or IN may be any importable format (native, SillyTavern,
//! character cards in JSON or PNG, CHARX, RisuAI, NovelAI, Agnai).
//!
//! Errors go to stderr with exit status 1; usage errors exit with 2.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use lorebook_engine::chat::{self, ChatOptions, Message};
use lorebook_engine::explain::RequestResult;
use lorebook_engine::model::Book;
use lorebook_engine::preview::{Preview, Settings};
use lorebook_engine::profile::{self, Detail, ProfileName};
use lorebook_engine::prompt::Block;
use lorebook_engine::tokenizer::{tokenizer_for_model, DEFAULT_MODEL};
use serde::Serialize;

mod ai;
mod books;
mod compare;
mod diff;
mod files;
mod json;
mod lint;
mod replace;
mod risu;
mod scenario;
mod server;
mod sillytavern;
mod tokens;
mod trace;
mod why;

use tokens::{load_tokenizer, models, tokens};

use json::{unlisted, Listing, RequestJson};
use why::{describe_activation, describe_drop};

// A preview of a big book makes and frees millions of small allocations
// (parsing the book, building its automata); mimalloc does them in about
// three quarters of the system allocator's time (see BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "lorebook",
    version,
    about = "Preview, inspect and count lorebooks"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Shows which entries a chat activates, why, and how the budget is spent.
    Preview(Box<PreviewArgs>),
    /// Converts a book to another format, printing what could not be carried.
    Convert {
        /// The book to read (any importable format, or a book's folder).
        input: PathBuf,
        /// native, sillytavern, ccv2, ccv3, book, risu, novelai or agnai;
        /// folder writes a folder of Markdown files (with -o DIR).
        #[arg(long)]
        to: String,
        /// Where to write; standard output when omitted (not for PNG cards).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Writes the book into this existing card PNG (with --to ccv2 or ccv3).
        #[arg(long)]
        into_card: Option<PathBuf>,
    },
    /// Shows a file's detected format, its counts and the import report,
    /// and the book's figures: entries and tokens, the constant entries
    /// against the budget, the largest entries, each folder's totals and,
    /// with --chat, what the request log injected.
    Inspect {
        file: PathBuf,
        #[arg(long)]
        json: bool,
        /// A chat: the last request's and the whole log's injected entries.
        #[arg(long)]
        chat: Option<PathBuf>,
        /// Whose rules run the chat: studio (the guide's), sillytavern or risu.
        #[arg(long, default_value = "studio")]
        rules: String,
        /// The model whose tokenizer counts (default: the rules' default).
        #[arg(long)]
        model: Option<String>,
        /// How many of the largest entries are listed.
        #[arg(long, default_value_t = 10)]
        largest: usize,
    },
    /// Counts tokens of a text file, or of every entry body of a book.
    Tokens {
        file: PathBuf,
        /// The model (or tokenizer family) whose tokenizer counts.
        #[arg(long, default_value = DEFAULT_MODEL)]
        model: String,
        /// Counts with this tokenizer file instead of the model's.
        #[arg(long, conflicts_with = "model")]
        tokenizer: Option<PathBuf>,
    },
    /// Lists the tokenizer families, their model names and sources.
    Models,
    /// Checks books for keys, flags, decorators and budgets that do not work as written.
    Lint(Box<lint::LintArgs>),
    /// Records and lists a book's scenarios (a chat and what it must inject).
    #[command(subcommand)]
    Scenario(scenario::ScenarioCommand),
    /// Runs every scenario of the books: exit 0 when all pass, 1 when any fails.
    Test(scenario::TestArgs),
    /// What changes from one book to another over a chat's request log.
    Diff(Box<diff::DiffArgs>),
    /// Two books entry by entry: only in A, only in B, in both but different.
    Compare(compare::CompareArgs),
    /// Finds and replaces text in names, keys and content (plain or regex).
    Replace(Box<replace::ReplaceArgs>),
    /// Books, settings and chats of a running SillyTavern: list, pull, push.
    #[command(subcommand)]
    Sillytavern(server::StCommand),
    /// Your own language model drafts entries, keys, shorter entries and
    /// reviews; the preview checks each suggestion.
    #[command(subcommand)]
    Ai(ai::AiCommand),
}

#[derive(clap::Args)]
struct PreviewArgs {
    /// Books to attach, scanned together; their position is their index.
    #[arg(required = true)]
    books: Vec<PathBuf>,
    /// The chat: OpenAI JSON, SillyTavern .jsonl or plain `Name: text` lines.
    #[arg(long)]
    chat: PathBuf,
    /// Which request to show (1…M; 0 is the empty chat). Default: the last.
    #[arg(long, conflicts_with = "log")]
    request: Option<usize>,
    /// Shows every request 1…M of the chat.
    #[arg(long)]
    log: bool,
    /// The model whose tokenizer counts the budget [default: gpt-4o; gpt-4
    /// (cl100k) under --rules risu, as RisuAI's reference counts].
    #[arg(long = "model", value_name = "MODEL")]
    model_given: Option<String>,
    /// The model in force (see `PreviewArgs::model_given`), filled in
    /// after parsing.
    #[arg(skip)]
    model: String,
    /// Counts the budget with this tokenizer file instead of the model's:
    /// a tiktoken rank file or a Tekken JSON.
    #[arg(long, conflicts_with = "model_given")]
    tokenizer: Option<PathBuf>,
    /// Seed of the probability rolls.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Names that are the user in plain-text chats (repeatable).
    #[arg(long = "user-name")]
    user_names: Vec<String>,
    /// Replaces the template's system prompt ("" drops it).
    #[arg(long)]
    system_prompt: Option<String>,
    /// Position of the lorebook slot among the template's blocks (0-based).
    #[arg(long)]
    slot: Option<usize>,
    /// One JSON object per request (one per line with --log).
    #[arg(long)]
    json: bool,
    /// Whose rules: studio (the guide's), sillytavern or risu.
    #[arg(long, default_value = "studio", value_parser = books::parse_profile)]
    rules: ProfileName,
    #[command(flatten)]
    settings: books::RuleSettings,
    /// SillyTavern's macro engine for keys and content: new (1.17+,
    /// "Macros 2.0") or legacy (default: what --st-settings chooses,
    /// else new, as in a new install).
    #[arg(long, value_parser = ["new", "legacy"])]
    macros: Option<String>,
    /// {{user}} for SillyTavern rules (default: the chat file's user_name).
    #[arg(long)]
    user: Option<String>,
    /// {{char}} for SillyTavern rules (default: the chat file's character_name).
    #[arg(long)]
    char: Option<String>,
    /// Fields the entries' match flags scan: a character card JSON, or
    /// {persona_description, character_description, …} (SillyTavern rules;
    /// under RisuAI rules, the card whose texts the final prompt holds).
    #[arg(long)]
    st_sources: Option<PathBuf>,
    /// Lists the `no_match` and `disabled` entries one by one instead of
    /// counting them (on a big book they are most of the output).
    #[arg(long)]
    list_unmatched: bool,
    /// Author's Note text for SillyTavern rules (default: the chat file's note_prompt).
    #[arg(long)]
    author_note: Option<String>,
    /// Author's Note interval: every Nth user message; 1 always, 0 never.
    #[arg(long)]
    author_note_interval: Option<f64>,
    /// Author's Note position: in_chat, after_main or before_main.
    #[arg(long, value_parser = ["in_chat", "after_main", "before_main"])]
    author_note_position: Option<String>,
    /// Author's Note depth (in_chat).
    #[arg(long)]
    author_note_depth: Option<f64>,
    /// Author's Note role: system, user or assistant.
    #[arg(long, value_parser = ["system", "user", "assistant"])]
    author_note_role: Option<String>,
}

fn main() -> ExitCode {
    trace::start();
    // The first and only call, so always accepted.
    lorebook_engine::tokenizer::resources::set_search_path(tokens::search_path())
        .expect("the tokenizer search path is set once, here");
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Preview(args) => preview(*args),
        Command::Convert {
            input,
            to,
            output,
            into_card,
        } => files::convert(&input, &to, output.as_deref(), into_card.as_deref()),
        Command::Inspect {
            file,
            json,
            chat,
            rules,
            model,
            largest,
        } => files::inspect(
            &file,
            &files::InspectArgs {
                json,
                chat,
                rules,
                model,
                largest,
            },
        ),
        Command::Tokens {
            file,
            model,
            tokenizer,
        } => tokens(&file, &model, tokenizer.as_deref()),
        Command::Models => {
            models();
            Ok(())
        }
        Command::Lint(args) => return lint::run(&args),
        Command::Scenario(command) => return scenario::run(&command),
        Command::Test(args) => return scenario::test(&args),
        Command::Diff(args) => return diff::run(&args),
        Command::Compare(args) => return compare::run(&args),
        Command::Replace(args) => return replace::run(&args),
        Command::Sillytavern(command) => return server::run(&command),
        Command::Ai(command) => return ai::run_command(&command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn read_text(path: &Path) -> Result<String, String> {
    lorebook_engine::io::read_text_capped(path, lorebook_engine::io::MAX_CHAT_BYTES)
        .map_err(|e| e.to_string())
}

fn load_chat(path: &Path, user_names: &[String]) -> Result<Vec<Message>, String> {
    let text = read_text(path)?;
    let mut options = ChatOptions::default();
    if !user_names.is_empty() {
        options.user_names = user_names.to_vec();
    }
    let chat = chat::parse(&text, &options).map_err(|e| format!("{}: {e}", path.display()))?;
    for w in &chat.warnings {
        eprintln!("warning: {}: {w}", path.display());
    }
    Ok(chat.messages)
}

fn preview(mut args: PreviewArgs) -> Result<(), String> {
    args.model = match &args.model_given {
        Some(m) => m.clone(),
        None => args.rules.info().default_model.to_string(),
    };
    match args.rules {
        ProfileName::Sillytavern => return sillytavern::preview(&args),
        ProfileName::Risu => return risu::preview(&args),
        ProfileName::Studio => {}
    }
    // Loaded before the books and the chat, so a wrong file fails fast.
    let tokenizer = args.tokenizer.as_deref().map(load_tokenizer).transpose()?;
    let loading = if tokenizer.is_none() {
        // The model name is checked now; loading the tokenizer's tables
        // (a tenth of a second for OpenAI's, up to two seconds for the
        // largest files) overlaps on another core with reading the books
        // and building the index.
        lorebook_engine::tokenizer::registry::family_of(&args.model)?;
        let model = args.model.clone();
        Some(std::thread::spawn(move || {
            tokenizer_for_model(&model).inspect(|t| t.load())
        }))
    } else {
        None
    };
    let mut books = Vec::new();
    for path in &args.books {
        let imported = books::load(path)?;
        trace::phase("book read");
        if !imported.report.is_lossless() {
            eprintln!(
                "note: {}: read as {}; run `lorebook inspect` for what was approximated",
                path.display(),
                imported.format.name()
            );
        }
        books.push(imported.book);
    }
    let chat = load_chat(&args.chat, &args.user_names)?;
    let mut settings = Settings {
        seed: args.seed,
        model: args.model.clone(),
        ..Settings::default()
    };
    if let Some(text) = &args.system_prompt {
        for b in &mut settings.template.blocks {
            if let Block::SystemPrompt { text: t } = b {
                *t = text.clone();
            }
        }
    }
    if let Some(slot) = args.slot {
        settings.template.move_lorebook(slot);
    }
    let counted_with = match &args.tokenizer {
        Some(file) => file.display().to_string(),
        None => tokens::model_label(&args.model),
    };
    trace::phase("chat read");
    // The index is built while the tokenizer's tables still load.
    let mut p = Preview::from_books(books, settings);
    trace::phase("index built");
    let tokenizer = match loading {
        Some(handle) => Some(
            handle
                .join()
                .map_err(|_| "loading the tokenizer failed".to_string())??,
        ),
        None => tokenizer,
    };
    p.set_tokenizer(tokenizer);
    trace::phase("tokenizer loaded");
    // Only counted: the request need not make them (a 100,000-entry book
    // drops nearly every entry of every request).
    p.count_plain_drops(!args.list_unmatched);
    let diagnostics = diagnostics_text(&p);
    let names = &names_of(p.books());
    let list = Listing {
        unmatched: args.list_unmatched,
    };
    let mut p = profile::studio(p);
    books::drive(&mut *p, &chat, &args, &mut |o| {
        let Detail::Studio(r) = &o.detail else {
            return;
        };
        trace::phase("request computed");
        if args.json {
            emit_json(&RequestJson::new(r, names, list));
        } else {
            emit(&render(r, names, &chat, &diagnostics, &counted_with, list));
        }
    })
}

/// Display names by (book, entry id), built once per run.
pub(crate) type Names = std::collections::HashMap<(usize, u64), String>;

fn names_of(books: &[Book]) -> Names {
    books
        .iter()
        .enumerate()
        .flat_map(|(b, book)| {
            book.entries
                .iter()
                .map(move |e| ((b, e.id), e.display_name().to_string()))
        })
        .collect()
}

pub(crate) fn comment(names: &Names, book: usize, id: u64) -> &str {
    names.get(&(book, id)).map_or("", String::as_str)
}

fn render(
    r: &RequestResult,
    books: &Names,
    chat: &[Message],
    diagnostics: &str,
    counted_with: &str,
    list: Listing,
) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Request {} of {} · budget {}/{} tokens ({counted_with}){}{}",
        r.request,
        chat.len(),
        r.budget.used,
        r.budget.limit,
        if r.passes > 0 {
            format!(" · {} recursion pass(es)", r.passes)
        } else {
            String::new()
        },
        if r.budget.over_by_constants {
            " · WARNING: constant entries alone exceed the budget"
        } else {
            ""
        }
    );
    let _ = writeln!(out, "Injected ({}), in placement order:", r.injected.len());
    for (n, i) in r.injected.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {:>2}. [{}:{}] {}  role {}  order {}  priority {}  {} tokens{}",
            n + 1,
            i.book,
            i.id,
            comment(books, i.book, i.id),
            i.role.as_str(),
            i.order,
            i.priority,
            i.tokens,
            if i.constant { "  constant" } else { "" }
        );
        let _ = writeln!(out, "      {}", describe_activation(&i.reason, books, chat));
    }
    let counted = (r.unlisted.no_match + r.unlisted.disabled) as usize;
    let _ = writeln!(out, "Dropped ({}):", r.dropped.len() + counted);
    let first_cut = r.budget.first_cut.as_ref().map(|k| (k.book, k.id));
    for d in r.dropped.iter().filter(|d| list.lists(d)) {
        let after = first_cut.filter(|&c| c != (d.book, d.id));
        let _ = writeln!(
            out,
            "      [{}:{}] {} — {}",
            d.book,
            d.id,
            comment(books, d.book, d.id),
            describe_drop(&d.reason, after, books, chat)
        );
    }
    let unlisted = unlisted(r, list);
    if unlisted.no_match + unlisted.disabled > 0 {
        let _ = writeln!(
            out,
            "      and {} with no match, {} disabled (--list-unmatched lists them)",
            unlisted.no_match, unlisted.disabled
        );
    }
    out.push_str(diagnostics);
    let _ = writeln!(out, "Messages ({}):", r.messages.len());
    for m in &r.messages {
        let _ = writeln!(
            out,
            "  {:>9}: {}",
            m.role,
            m.content.replace('\n', "\n             ")
        );
    }
    out.push('\n');
    out
}

/// Writes to standard output. A closed pipe (`lorebook … | head`) ends the
/// program quietly instead of panicking.
fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        fail_output(&e);
    }
}

/// Ends the program after a failed write to standard output: quietly for a
/// closed pipe, with an error otherwise.
fn fail_output(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: cannot write to standard output: {e}");
    std::process::exit(1);
}

/// Writes one JSON object and a newline to standard output, through a
/// buffer, with [`emit`]'s handling of a closed pipe.
fn emit_json(value: &impl Serialize) {
    use std::io::Write;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = serde_json::to_writer(&mut out, value)
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    if let Err(e) = written {
        fail_output(&e);
    }
}

/// The entries' diagnostics, printed with every request.
fn diagnostics_text(p: &Preview) -> String {
    let mut out = String::new();
    for e in &p.index().entries {
        for diag in &e.diagnostics {
            let line = diag.line.map(|l| format!(" line {l}")).unwrap_or_default();
            out.push_str(&format!(
                "  diagnostic [{}:{}]{line}: {}\n",
                e.book, e.id, diag.message
            ));
        }
    }
    out
}
