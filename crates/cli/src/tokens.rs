//! `lorebook tokens`, `lorebook models` and reading `--tokenizer FILE`.

use std::path::Path;

use lorebook_engine::formats::{self, Imported};
use lorebook_engine::tokenizer::registry::FAMILIES;
use lorebook_engine::tokenizer::{encoding_for_model, FileTokenizer, Tokenizer};

use crate::{books, emit};

/// Reads a user's tokenizer file, telling on stderr how it was read.
pub fn load_tokenizer(path: &Path) -> Result<Tokenizer, String> {
    let file = FileTokenizer::load(path)?;
    eprintln!(
        "note: {}: read as a {}; counting with {}",
        path.display(),
        file.format().name(),
        file.pattern_note()
    );
    Ok(Tokenizer::File(std::sync::Arc::new(file)))
}

pub fn tokens(path: &Path, model: &str, tokenizer: Option<&Path>) -> Result<(), String> {
    let (tokenizer, label) = match tokenizer {
        Some(file) => (load_tokenizer(file)?, file.display().to_string()),
        None => {
            let encoding = encoding_for_model(model)?;
            (
                Tokenizer::Bundled(encoding),
                format!("{model}, {}", encoding.name()),
            )
        }
    };
    let bytes = formats::read_limited(path)?;
    if let Ok(Imported { book, .. }) = books::from_bytes(&bytes) {
        let mut total = 0u64;
        for e in &book.entries {
            let body = lorebook_engine::decorators::parse(&e.content).body;
            let n = tokenizer.count(body);
            total += n as u64;
            emit(&format!("{n:>7}  [{}] {}\n", e.id, e.display_name()));
        }
        emit(&format!(
            "{total:>7}  total ({} entries, {label})\n",
            book.entries.len()
        ));
        return Ok(());
    }
    let text = lorebook_engine::io::text_of(path, bytes).map_err(|e| e.to_string())?;
    emit(&format!("{}\n", tokenizer.count(&text)));
    Ok(())
}

/// Prints every tokenizer family, grouped, with its exactness, whether it
/// ships, the model names it accepts and its source.
pub fn models() {
    use std::fmt::Write;
    let mut out = String::new();
    let mut group = "";
    for f in FAMILIES {
        if f.group != group {
            group = f.group;
            let _ = writeln!(out, "{group}");
        }
        let mark = if f.exact { " " } else { "≈" };
        let _ = writeln!(
            out,
            "  {mark} {:<15} {:<12} {}",
            f.id,
            f.exactness(),
            f.availability()
        );
        let _ = writeln!(
            out,
            "      names: {}",
            f.names().collect::<Vec<_>>().join(", ")
        );
        let _ = writeln!(out, "      source: {}", f.source);
    }
    out.push_str("≈ marks approximate counts. A family not bundled yet counts from its own tokenizer file with --tokenizer FILE, when that file is a tiktoken rank file or a Tekken JSON.\n");
    emit(&out);
}
