//! `lorebook convert` and `lorebook inspect`: a book file read in any
//! format, written in another, or described with its import report and its
//! figures (`lorebook_engine::figures`).

use std::path::{Path, PathBuf};

use lorebook_engine::figures::{book_figures, BookFigures, ChatFigures, ChatTally};
use lorebook_engine::formats::{self, ExportFormat, Imported};
use lorebook_engine::profile::ProfileName;
use lorebook_engine::scenario;
use lorebook_engine::tokenizer::TokenCounter;
use serde_json::json;

use crate::{books, emit};

pub fn convert(
    input: &Path,
    to: &str,
    output: Option<&Path>,
    into_card: Option<&Path>,
) -> Result<(), String> {
    if to == "folder" {
        return to_folder(input, output, into_card);
    }
    let to: ExportFormat = to
        .parse()
        .map_err(|e: formats::UnknownExportFormat| e.to_string())?;
    let imported = books::load(input)?;
    eprint!("{}", imported.report);
    let (bytes, report) = match into_card {
        Some(card) => {
            let png = formats::read_limited(card)?;
            formats::export_into_card(&imported.book, &png, to)
                .map_err(|e| format!("{}: {e}", card.display()))?
        }
        None => formats::export(&imported.book, to).map_err(|e| e.to_string())?,
    };
    eprint!("{report}");
    match output {
        Some(out) => formats::write_atomic(out, &bytes)
            .map_err(|e| format!("cannot write {}: {e}", out.display())),
        None if into_card.is_some() => {
            Err("a card is binary: give -o OUT.png (or OUT.charx)".into())
        }
        None if to.binary() => Err("a CHARX archive is binary: give -o OUT.charx".into()),
        None => {
            use std::io::Write;
            std::io::stdout()
                .write_all(&bytes)
                .map_err(|e| format!("cannot write to standard output: {e}"))
        }
    }
}

/// `convert --to folder -o DIR`: the book as a folder of Markdown files.
fn to_folder(input: &Path, output: Option<&Path>, into_card: Option<&Path>) -> Result<(), String> {
    if into_card.is_some() {
        return Err("--into-card needs --to ccv2 or ccv3, not folder".into());
    }
    let Some(out) = output else {
        return Err("--to folder writes a folder: give -o DIR".into());
    };
    let (imported, folder) = books::load_for_writing(input)?;
    eprint!("{}", imported.report);
    books::write_back_folder(&imported.book, out, input, folder.as_ref())?;
    eprintln!(
        "wrote {} entries to {} (one Markdown file each, settings in {})",
        imported.book.entries.len(),
        out.display(),
        formats::markdown::BOOK_FILE
    );
    Ok(())
}

/// `lorebook inspect`'s options besides the file.
pub struct InspectArgs {
    pub json: bool,
    pub chat: Option<PathBuf>,
    pub rules: String,
    pub model: Option<String>,
    pub largest: usize,
}

pub fn inspect(path: &Path, args: &InspectArgs) -> Result<(), String> {
    let imported = books::load(path)?;
    let Imported {
        format,
        book,
        report,
    } = &imported;
    let rules = ProfileName::parse(&args.rules).ok_or_else(|| {
        format!(
            "unknown rules {:?}: expected one of {}",
            args.rules,
            ProfileName::ids()
        )
    })?;
    let model = args
        .model
        .clone()
        .unwrap_or_else(|| rules.info().default_model.to_string());
    let tokenizer = lorebook_engine::tokenizer::tokenizer_for_model(&model)?;
    let mut counter = TokenCounter::with_tokenizer(tokenizer);
    let figures = book_figures(book, &mut |s| counter.count(s), args.largest);
    let chat = match &args.chat {
        None => None,
        Some(file) => {
            let text = crate::read_text(file)?;
            let settings = scenario::Settings {
                model: Some(model.clone()),
                ..scenario::Settings::default()
            };
            let (mut profile, messages) = scenario::prepare(book, rules, &settings, &text)
                .map_err(|e| format!("{}: {e}", file.display()))?;
            let mut tally = ChatTally::default();
            profile.log_each(&messages, &mut |o| tally.add(&o));
            Some(tally.finish())
        }
    };
    let constant = book.entries.iter().filter(|e| e.constant).count();
    let disabled = book.entries.iter().filter(|e| !e.enabled).count();
    if args.json {
        let value = json!({
            "format": format.id(),
            "format_name": format.name(),
            "books": 1,
            "name": book.name,
            "entries": book.entries.len(),
            "constant": constant,
            "disabled": disabled,
            "report": report,
            "model": model,
            "figures": figures,
            "chat": chat,
        });
        emit(&format!("{value}\n"));
        return Ok(());
    }
    emit(&format!("File: {}\n", path.display()));
    emit(&format!("Format: {}\n", format.name()));
    emit(&format!("Books: 1 (\"{}\")\n", book.name));
    emit(&format!(
        "Entries: {} ({constant} constant, {disabled} disabled)\n",
        book.entries.len()
    ));
    emit(&figures_text(&figures, &model, chat.as_ref()));
    emit(&report.to_string());
    Ok(())
}

/// The figures in words.
fn figures_text(f: &BookFigures, model: &str, chat: Option<&ChatFigures>) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Tokens ({model}): {} in all, {} in enabled entries",
        f.tokens, f.enabled_tokens
    );
    let _ = writeln!(
        out,
        "Constant entries: {} tokens of the {}-token budget",
        f.constant_tokens, f.budget
    );
    if !f.largest.is_empty() {
        let _ = writeln!(out, "Largest entries:");
        for e in &f.largest {
            let _ = writeln!(out, "  {:>7}  {} (#{})", e.tokens, e.name, e.id);
        }
    }
    if !f.folders.is_empty() {
        let _ = writeln!(out, "Folders:");
        for d in &f.folders {
            let _ = writeln!(
                out,
                "  {}: {} entries, {} tokens",
                d.name, d.entries, d.tokens
            );
        }
    }
    if let Some(c) = chat {
        let _ = writeln!(
            out,
            "Chat: {} requests; the last injected {} entries ({} tokens); {} entries ({} tokens) were injected in some request",
            c.requests, c.last_entries, c.last_tokens, c.log_entries, c.log_tokens
        );
    }
    out
}
