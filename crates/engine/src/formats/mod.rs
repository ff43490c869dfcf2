//! File formats. [`native`] is the project's own file (SPEC §7); the other
//! modules translate foreign formats to and from the model.
//!
//! Where things are:
//!
//! - [`convert`]: [`import`], [`export`] and [`detect`], dispatching over
//!   one table of codecs (format, detection, reader, writer).
//! - One module per format, each a symmetric import/export pair with its
//!   mapping table in its header: [`native`], [`sillytavern`], [`card`]
//!   (v2/v3 cards and the bare character book), [`png`], [`charx`],
//!   [`risu`], [`novelai`], [`agnai`].
//! - Leaf modules every format uses, which use no format: [`error`]
//!   ([`ImportError`], [`ExportError`]), [`format`](mod@format) ([`Format`],
//!   [`ExportFormat`]), [`json`] (parsing and typed field readers),
//!   [`report`], [`shadow`] (the source spellings an export restores) and
//!   `common` (decorator, namespace and report helpers).
//!
//! **Invariant:** no format module imports [`convert`], and no leaf module
//! imports a format module, so the dependencies run one way.

/// The largest book file read (256 MiB): far above any real lorebook, low
/// enough that an absurd file gets a clear refusal instead of exhausting
/// memory.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// Reads a book file through [`crate::io::read_capped`]: only regular
/// files, at most [`MAX_FILE_BYTES`] actually read, with a message that
/// names the file and the cause.
pub fn read_limited(path: &std::path::Path) -> Result<Vec<u8>, String> {
    crate::io::read_capped(path, MAX_FILE_BYTES).map_err(|e| e.to_string())
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder,
/// fsync, then rename over the target, so a crash never leaves half a file.
pub fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "book".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)?;
        // Persist the rename itself.
        if let Ok(d) = std::fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

pub mod agnai;
pub mod card;
pub mod charx;
mod common;
pub mod convert;
pub mod error;
pub mod format;
pub mod json;
pub mod native;
pub mod novelai;
pub mod png;
pub mod report;
pub mod risu;
pub mod shadow;
pub mod sillytavern;

pub use convert::{detect, detect_value, export, export_into_card, import, import_value, Imported};
pub use error::{ExportError, ImportError};
pub use format::{ExportFormat, Format, UnknownExportFormat};
pub use json::parse_json;
pub use report::Report;
