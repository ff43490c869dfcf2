//! Reading books given on the command line: any importable format, detected
//! from the content.

use std::path::Path;

use lorebook_engine::formats::{self, Imported};

/// Imports a book from bytes.
pub fn from_bytes(bytes: &[u8]) -> Result<Imported, String> {
    formats::import(bytes).map_err(|e| e.to_string())
}

/// Reads and imports a book file.
pub fn load(path: &Path) -> Result<Imported, String> {
    let bytes = formats::read_limited(path)?;
    from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}
