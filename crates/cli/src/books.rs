//! Reading books given on the command line.

use std::path::Path;

use lorebook_engine::formats::native;
use lorebook_engine::model::Book;

/// Reads a book from bytes; returns it with notes about repaired values.
pub fn from_bytes(bytes: &[u8]) -> Result<(Book, Vec<String>), String> {
    native::load(bytes).map_err(|e| e.to_string())
}

/// Reads a book file.
pub fn load(path: &Path) -> Result<(Book, Vec<String>), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}
