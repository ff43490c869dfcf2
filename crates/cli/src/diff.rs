//! `lorebook diff OLD NEW --chat FILE [--rules NAME] [settings…] [--json]`:
//! what changes from one book to the other over the chat's whole request
//! log (`lorebook_engine::impact::compare_books`: the two logs side by
//! side, one per core, in step). Exit
//! status 0 when nothing changed, 1 when something did, 2 on usage errors
//! and unreadable input.

use std::path::PathBuf;
use std::process::ExitCode;

use lorebook_engine::impact::{self, Change};
use lorebook_engine::model::Book;
use lorebook_engine::profile::ProfileName;
use lorebook_engine::scenario::Settings;
use serde_json::json;

use crate::{books, emit, read_text};

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The book before (any importable format).
    old: PathBuf,
    /// The book after.
    new: PathBuf,
    /// The chat whose request log is compared.
    #[arg(long)]
    chat: PathBuf,
    /// Whose rules: studio (the guide's), sillytavern or risu.
    #[arg(long, default_value = "studio", value_parser = books::parse_profile)]
    rules: ProfileName,
    /// The model whose tokenizer counts (default: the rules' default).
    #[arg(long)]
    model: Option<String>,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    settings: books::RuleSettings,
    /// One JSON object per request that changed.
    #[arg(long)]
    json: bool,
}

fn usage(message: String) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

pub fn run(args: &DiffArgs) -> ExitCode {
    match changes(args) {
        Ok(changed) if changed => ExitCode::FAILURE,
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => usage(e),
    }
}

/// Entry names for the text form.
fn name(book: &Book, id: u64) -> String {
    book.entry(id)
        .map(|e| e.display_name().to_string())
        .unwrap_or_else(|| format!("#{id}"))
}

fn changes(args: &DiffArgs) -> Result<bool, String> {
    let settings = Settings {
        model: args.model.clone(),
        seed: args.seed,
        ..args.settings.scenario()?
    };
    let chat = read_text(&args.chat)?;
    // Both books read and built side by side.
    let (old, new) = std::thread::scope(|s| {
        let old = s.spawn(|| books::load(&args.old));
        let new = books::load(&args.new);
        (old.join().expect("the reading thread"), new)
    });
    let (old, new) = (old?.book, new?.book);
    let mut changed = false;
    impact::compare_books(&old, &new, args.rules, &settings, &chat, &mut |c| {
        changed = true;
        if args.json {
            emit(&format!("{}\n", json_of(&c)));
        } else {
            emit(&text_of(&c, &old, &new));
        }
    })?;
    if !changed && !args.json {
        emit("no change\n");
    }
    Ok(changed)
}

fn json_of(c: &Change) -> serde_json::Value {
    json!({
        "request": c.request,
        "started": c.started,
        "stopped": c.stopped,
        "moved": c.moved,
        "budget": c.budget,
    })
}

fn text_of(c: &Change, old: &Book, new: &Book) -> String {
    let mut out = format!(
        "request {} (budget used {} → {}):\n",
        c.request, c.budget.old, c.budget.new
    );
    for f in &c.started {
        out.push_str(&format!(
            "  + {}: {} (before: {})\n",
            name(new, f.id),
            f.reason,
            f.before
        ));
    }
    for f in &c.stopped {
        out.push_str(&format!(
            "  - {}: {} (before: {})\n",
            name(old, f.id),
            f.reason,
            f.before
        ));
    }
    for m in &c.moved {
        out.push_str(&format!("  ~ {}: {} → {}\n", name(new, m.id), m.from, m.to));
    }
    out
}
