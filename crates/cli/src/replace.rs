//! `lorebook replace BOOK --find PAT --with TEXT [--regex] [--in names,keys,secondary,content]
//! [--case-sensitive] [--whole-word] [--dry-run] [-o OUT]`: find and replace
//! across a book (`lorebook_engine::replace`). Every changed text is
//! printed before and after; with `--dry-run` nothing is written. A native
//! book is written back in place, any other to `-o OUT` as a native book.
//! Exit status 0 when something matched, 1 when nothing did, 2 on usage
//! errors (an invalid pattern) and unreadable input.

use std::path::PathBuf;
use std::process::ExitCode;

use lorebook_engine::formats::Format;
use lorebook_engine::replace::{self, Field, Finder, Query};
use serde_json::json;

use crate::{books, emit, emit_json};

#[derive(clap::Args)]
pub struct ReplaceArgs {
    book: PathBuf,
    /// What to find (plain text, or a regex with --regex).
    #[arg(long)]
    find: String,
    /// The replacement; with --regex, `$1` and `${name}` are the captures.
    #[arg(long = "with")]
    with: String,
    #[arg(long)]
    regex: bool,
    /// Where to look: names, keys, secondary, content (default: all).
    #[arg(long = "in", value_delimiter = ',')]
    fields: Vec<String>,
    #[arg(long)]
    case_sensitive: bool,
    #[arg(long)]
    whole_word: bool,
    /// Shows what would change and writes nothing.
    #[arg(long)]
    dry_run: bool,
    /// Where to write the book (native format).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// The changes as one JSON object.
    #[arg(long)]
    json: bool,
}

fn usage(message: String) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

pub fn run(args: &ReplaceArgs) -> ExitCode {
    let mut fields = Vec::new();
    for f in &args.fields {
        match Field::parse(f) {
            Some(f) => fields.push(f),
            None => return usage(format!("--in {f}: one of names, keys, secondary, content")),
        }
    }
    let finder = match Finder::new(&Query {
        pattern: args.find.clone(),
        regex: args.regex,
        case_sensitive: args.case_sensitive,
        whole_word: args.whole_word,
        fields,
    }) {
        Ok(f) => f,
        Err(e) => return usage(e),
    };
    let (imported, folder) = match books::load_for_writing(&args.book) {
        Ok(i) => i,
        Err(e) => return usage(e),
    };
    let out = match (&args.output, imported.format) {
        (Some(o), _) => Some(o.clone()),
        (None, Format::Native) => Some(args.book.clone()),
        (None, _) if args.dry_run => None,
        (None, other) => {
            return usage(format!(
                "{}: a {} file; write the changed book as a native book with -o OUT (or look first with --dry-run)",
                args.book.display(),
                other.name()
            ))
        }
    };
    let mut book = imported.book;
    let matches = finder.find(&book, None);
    let edits = finder.plan(&book, &args.with, None);
    let name = |id: u64| {
        book.entry(id)
            .map(|e| e.display_name().to_string())
            .unwrap_or_else(|| format!("#{id}"))
    };
    if args.json {
        emit_json(
            &json!({"matches": matches.len(), "edits": edits, "written": !args.dry_run && !edits.is_empty()}),
        );
    } else {
        let mut text = String::new();
        for ed in &edits {
            let at = match ed.index {
                Some(i) => format!("{}[{i}]", ed.field.id()),
                None => ed.field.id().to_string(),
            };
            text.push_str(&format!(
                "#{} {} {at}:\n  - {:?}\n  + {:?}\n",
                ed.id,
                name(ed.id),
                ed.before,
                ed.after
            ));
        }
        text.push_str(&format!(
            "{} match(es) in {} text(s){}\n",
            matches.len(),
            edits.len(),
            if args.dry_run {
                " (dry run: nothing written)"
            } else {
                ""
            }
        ));
        emit(&text);
    }
    if edits.is_empty() {
        return ExitCode::FAILURE;
    }
    if !args.dry_run {
        replace::apply(&mut book, &edits);
        let Some(out) = out else {
            return ExitCode::SUCCESS;
        };
        if let Err(e) = books::write_back(&book, &out, &args.book, folder.as_ref()) {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
