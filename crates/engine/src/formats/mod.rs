//! File formats. [`native`] is the project's own file (SPEC §7); the other
//! modules translate foreign formats to and from the model.

pub mod native;

use std::fmt;

/// Why a file could not be read. Every variant names the place and the
/// cause, so the user can fix the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormatError {
    /// The bytes are not JSON; line and column are 1-based.
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    /// The JSON is not the expected shape.
    Shape(String),
    /// A field has the wrong type or an impossible value.
    Field {
        /// Where: `entries[3].keys`, `data.scan_depth`, …
        path: String,
        message: String,
    },
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::Json {
                line,
                column,
                message,
            } => write!(
                f,
                "malformed JSON at line {line}, column {column}: {message}"
            ),
            FormatError::Shape(m) => f.write_str(m),
            FormatError::Field { path, message } => write!(f, "{path}: {message}"),
        }
    }
}

impl std::error::Error for FormatError {}

impl FormatError {
    pub fn from_json(e: &serde_json::Error) -> Self {
        let message = e.to_string();
        // serde_json appends " at line L column C"; keep only the cause.
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        FormatError::Json {
            line: e.line(),
            column: e.column(),
            message,
        }
    }

    pub fn field(path: impl Into<String>, message: impl Into<String>) -> Self {
        FormatError::Field {
            path: path.into(),
            message: message.into(),
        }
    }
}

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

/// Parses bytes as JSON with a located error.
pub fn parse_json(bytes: &[u8]) -> Result<serde_json::Value, FormatError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        FormatError::Shape(format!(
            "the file is not UTF-8 text (invalid byte at offset {})",
            e.valid_up_to()
        ))
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    serde_json::from_str(text).map_err(|e| FormatError::from_json(&e))
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
pub mod novelai;
pub mod png;
pub mod report;
pub mod risu;
pub mod shadow;
pub mod sillytavern;

pub use convert::{
    detect, detect_value, export, export_into_card, import, import_value, ExportError,
    ExportFormat, Format, ImportError, Imported, UnknownExportFormat,
};
pub use report::Report;
