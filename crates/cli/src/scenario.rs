//! `lorebook scenario record BOOK --chat FILE --name NAME [--rules NAME] [settings…] [-o OUT]`,
//! `lorebook scenario list BOOK` and `lorebook test BOOK... [--json]`: a
//! book's scenarios (docs/scenarios.md), recorded from what the preview
//! shows now and run as a regression suite. `test` exits with 0 when every
//! scenario passes, 1 when any fails, 2 on usage errors and unreadable
//! input (a scenario that cannot run is unreadable input).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use lorebook_engine::formats::Format;
use lorebook_engine::profile::ProfileName;
use lorebook_engine::scenario::{self, Scenario, Settings, Verdict};
use serde_json::json;

use crate::{books, emit, emit_json, read_text};

#[derive(clap::Subcommand)]
pub enum ScenarioCommand {
    /// Adds a scenario that expects what the preview shows now.
    Record(Box<RecordArgs>),
    /// Lists a book's scenarios.
    List {
        book: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

#[derive(clap::Args)]
pub struct RecordArgs {
    /// The book (written back in place when it is a native book).
    book: PathBuf,
    /// The chat: OpenAI JSON, SillyTavern .jsonl or plain `Name: text` lines.
    #[arg(long)]
    chat: PathBuf,
    /// The scenario's name (one with the same name is replaced).
    #[arg(long)]
    name: String,
    /// Whose rules: studio (the guide's), sillytavern or risu.
    #[arg(long, default_value = "studio", value_parser = books::parse_profile)]
    rules: ProfileName,
    /// The model whose tokenizer counts (default: the rules' default).
    #[arg(long)]
    model: Option<String>,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Scan depth in place of the book's (or RisuAI's settings').
    #[arg(long)]
    scan_depth: Option<u32>,
    /// Token budget in place of the book's (or RisuAI's settings').
    #[arg(long)]
    budget: Option<u32>,
    #[command(flatten)]
    settings: books::RuleSettings,
    /// Where to write the book with the scenario (native format).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct TestArgs {
    /// Books whose scenarios run, each on its own.
    #[arg(required = true)]
    books: Vec<PathBuf>,
    /// One JSON object per book.
    #[arg(long)]
    json: bool,
}

/// Usage errors and unreadable input: exit status 2.
fn usage(message: String) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

pub fn run(command: &ScenarioCommand) -> ExitCode {
    let done = match command {
        ScenarioCommand::Record(args) => record(args),
        ScenarioCommand::List { book, json } => list(book, *json),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => usage(e),
    }
}

fn record(args: &RecordArgs) -> Result<(), String> {
    let (imported, folder) = books::load_for_writing(&args.book)?;
    let mut book = imported.book;
    let out = match (&args.output, imported.format) {
        (Some(out), _) => out.clone(),
        (None, Format::Native) => args.book.clone(),
        (None, other) => {
            return Err(format!(
                "{}: a {} file; write the book with its scenario as a native book with -o OUT",
                args.book.display(),
                other.name()
            ))
        }
    };
    let chat = read_text(&args.chat)?;
    let settings = Settings {
        model: args.model.clone(),
        seed: args.seed,
        scan_depth: args.scan_depth,
        token_budget: args.budget,
        ..args.settings.scenario()?
    };
    let mut list = scenario::of(&book).map_err(|e| format!("{}: {e}", args.book.display()))?;
    let s = scenario::record(&book, &args.name, &chat, args.rules, settings)?;
    let n = s.expect.injected.len();
    scenario::put(&mut list, s);
    scenario::set(&mut book, &list)?;
    books::write_back(&book, &out, &args.book, folder.as_ref())?;
    eprintln!(
        "recorded scenario '{}' in {}: {n} entr{} expected, nothing else",
        args.name,
        out.display(),
        if n == 1 { "y" } else { "ies" }
    );
    Ok(())
}

fn list(path: &Path, json: bool) -> Result<(), String> {
    let book = books::load(path)?.book;
    let list = scenario::of(&book).map_err(|e| format!("{}: {e}", path.display()))?;
    if json {
        emit_json(&list);
        return Ok(());
    }
    let mut out = String::new();
    for s in &list {
        out.push_str(&format!(
            "{} ({} rules): {} expected in, {} expected out\n",
            s.name,
            s.rules,
            s.expect.injected.len(),
            s.expect.not_injected.len()
        ));
    }
    if list.is_empty() {
        out.push_str("no scenarios\n");
    }
    emit(&out);
    Ok(())
}

/// `lorebook test`.
pub fn test(args: &TestArgs) -> ExitCode {
    let mut failed = false;
    for path in &args.books {
        let book = match books::load(path) {
            Ok(i) => i.book,
            Err(e) => return usage(e),
        };
        let list = match scenario::of(&book) {
            Ok(l) => l,
            Err(e) => return usage(format!("{}: {e}", path.display())),
        };
        let mut verdicts: Vec<Verdict> = Vec::new();
        for s in &list {
            match scenario::run(&book, s) {
                Ok(v) => verdicts.push(v),
                Err(e) => return usage(format!("{}: scenario {}: {e}", path.display(), s.name)),
            }
        }
        failed |= verdicts.iter().any(|v| !v.passed);
        if args.json {
            emit_json(&json!({
                "file": path.display().to_string(),
                "passed": verdicts.iter().all(|v| v.passed),
                "scenarios": verdicts,
            }));
        } else {
            emit(&text(path, &list, &verdicts));
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn text(path: &Path, list: &[Scenario], verdicts: &[Verdict]) -> String {
    let file = path.display();
    if list.is_empty() {
        return format!("{file}: no scenarios\n");
    }
    let mut out = String::new();
    for v in verdicts {
        if v.passed {
            out.push_str(&format!("{file}: scenario {}: ok\n", v.name));
        }
        for f in &v.failures {
            out.push_str(&format!("{file}: scenario {}: {f}\n", v.name));
        }
    }
    let passed = verdicts.iter().filter(|v| v.passed).count();
    out.push_str(&format!(
        "{file}: {passed} of {} scenario(s) passed\n",
        verdicts.len()
    ));
    out
}
