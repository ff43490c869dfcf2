//! `lorebook tokens`, `lorebook models`, reading `--tokenizer FILE`, and
//! where the installed tokenizer files are looked for.

use std::path::{Path, PathBuf};

use lorebook_engine::formats::{self, Imported};
use lorebook_engine::tokenizer::registry::{family_of, FAMILIES};
use lorebook_engine::tokenizer::{resources, tokenizer_for_model, FileTokenizer, Tokenizer};

use crate::{books, emit};

/// The folders searched for the installed tokenizer files, in the engine's
/// order (`resources::search_path_from`): `$LOREBOOK_TOKENIZERS`, beside
/// the executable, then this source tree's `resources/tokenizers` (a
/// `cargo run` or a test from the source tree). `main` hands them to the
/// engine once, before anything loads a tokenizer.
pub fn search_path() -> Vec<PathBuf> {
    let exe_dir = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf));
    resources::search_path_from(
        std::env::var_os(resources::ENV_VAR)
            .filter(|d| !d.is_empty())
            .map(PathBuf::from),
        None,
        exe_dir.as_deref(),
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../resources/tokenizers"),
    )
}

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

pub fn tokens(path: &Path, model: &str, tokenizer_file: Option<&Path>) -> Result<(), String> {
    let (tokenizer, label) = match tokenizer_file {
        Some(file) => (load_tokenizer(file)?, file.display().to_string()),
        None => (tokenizer_for_model(model)?, model_label(model)),
    };
    // An approximate family's counts are marked "≈" wherever shown.
    let approx = if tokenizer_file.is_none() && family_of(model).is_ok_and(|f| !f.exact) {
        "≈"
    } else {
        ""
    };
    let bytes = formats::read_limited(path)?;
    if let Ok(Imported { book, .. }) = books::from_bytes(&bytes) {
        let mut total = 0u64;
        for e in &book.entries {
            let body = lorebook_engine::decorators::parse(&e.content).body;
            let n = tokenizer.count(body);
            total += n as u64;
            emit(&format!(
                "{approx}{n:>7}  [{}] {}\n",
                e.id,
                e.display_name()
            ));
        }
        emit(&format!(
            "{approx}{total:>7}  total ({} entries, {label})\n",
            book.entries.len()
        ));
        return Ok(());
    }
    let text = lorebook_engine::io::text_of(path, bytes).map_err(|e| e.to_string())?;
    emit(&format!("{approx}{}\n", tokenizer.count(&text)));
    Ok(())
}

/// The tokenizer a preview counts with (the user's file, else the model's,
/// of any family) and how the output names it.
pub fn preview_tokenizer(file: Option<&Path>, model: &str) -> Result<(Tokenizer, String), String> {
    match file {
        Some(file) => Ok((load_tokenizer(file)?, file.display().to_string())),
        None => Ok((
            lorebook_engine::tokenizer::tokenizer_for_model(model)?,
            model_label(model),
        )),
    }
}

/// "MODEL, FAMILY" and "≈" for an approximate family.
pub fn model_label(model: &str) -> String {
    match family_of(model) {
        Ok(f) if f.exact => format!("{model}, {}", f.id),
        Ok(f) => format!("{model}, {}, ≈ approximate", f.id),
        Err(_) => model.to_string(),
    }
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
        // Where an installed family's file was found, so a user (and the
        // package check) sees which install counts.
        let place = resources::installed(f)
            .and_then(|p| {
                p.parent()
                    .map(|d| d.canonicalize().unwrap_or(d.to_path_buf()))
            })
            .map(|d| format!(" in {}", d.display()))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {mark} {:<15} {:<12} {}{place}",
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
    out.push_str("≈ marks approximate counts. OpenAI's encodings are built in; the other families read the files scripts/fetch-tokenizers.sh installs. Any tokenizer file counts with --tokenizer FILE: a Hugging Face tokenizer.json, a SentencePiece BPE .model, a tiktoken rank file or a Tekken JSON.\n");
    emit(&out);
}
