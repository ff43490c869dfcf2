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

/// Writing is [`crate::io::write`]'s; re-exported for the callers that
/// save what a format produced.
pub use crate::io::{write_atomic, write_with_backup};

pub mod agnai;
pub mod byaf;
pub mod card;
pub mod charx;
pub(crate) mod common;
pub mod convert;
pub mod error;
pub mod format;
pub mod json;
pub mod marinara;
pub mod markdown;
pub mod native;
mod native_stream;
pub mod note;
pub mod novelai;
pub mod png;
pub mod report;
pub mod risu;
pub mod risu_lore;
pub mod shadow;
pub mod sillytavern;
pub mod st_fields;

pub use convert::{
    detect, detect_value, export, export_into_card, import, import_as, import_value, Imported,
};
pub use error::{ExportError, ExportReason, ImportError, ImportReason};
pub use format::{ExportFormat, Format, UnknownExportFormat};
pub use json::parse_json;
pub use report::Report;
