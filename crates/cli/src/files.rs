//! `lorebook convert` and `lorebook inspect`: a book file read in any
//! format, written in another, or described with its import report.

use std::path::Path;

use lorebook_engine::formats::{self, ExportFormat, Imported};
use serde_json::json;

use crate::{books, emit};

pub fn convert(
    input: &Path,
    to: &str,
    output: Option<&Path>,
    into_card: Option<&Path>,
) -> Result<(), String> {
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
        None if into_card.is_some() => Err("a card PNG is binary: give -o OUT.png".into()),
        None => {
            use std::io::Write;
            std::io::stdout()
                .write_all(&bytes)
                .map_err(|e| format!("cannot write to standard output: {e}"))
        }
    }
}

pub fn inspect(path: &Path, json: bool) -> Result<(), String> {
    let imported = books::load(path)?;
    let Imported {
        format,
        book,
        report,
    } = &imported;
    let constant = book.entries.iter().filter(|e| e.constant).count();
    let disabled = book.entries.iter().filter(|e| !e.enabled).count();
    if json {
        let value = json!({
            "format": format.id(),
            "format_name": format.name(),
            "books": 1,
            "name": book.name,
            "entries": book.entries.len(),
            "constant": constant,
            "disabled": disabled,
            "report": report,
        });
        emit(&format!("{value}\n"));
    } else {
        emit(&format!("File: {}\n", path.display()));
        emit(&format!("Format: {}\n", format.name()));
        emit(&format!("Books: 1 (\"{}\")\n", book.name));
        emit(&format!(
            "Entries: {} ({constant} constant, {disabled} disabled)\n",
            book.entries.len()
        ));
        emit(&report.to_string());
    }
    Ok(())
}
