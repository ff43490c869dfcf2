//! Why a file could not be imported or a book exported. A leaf module:
//! every format reader and writer returns these errors, and each case has
//! a stable code for the UI and a message for the user.

use std::fmt;

use super::format::{ExportFormat, Format};

/// Why a file could not be imported. Each case has its own message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportError {
    /// The file looks like JSON text but is not valid JSON (1-based).
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    /// Valid input, but none of the supported formats.
    UnknownFormat { found: String },
    /// A PNG with no `chara` or `ccv3` text chunk.
    PngWithoutCard,
    /// A PNG whose structure is damaged.
    BadPng(String),
    /// A card chunk whose text is not base64 JSON of a card.
    BadCardChunk { chunk: String, message: String },
    /// A character card that carries no lorebook.
    CardWithoutBook { spec: String },
    /// A CHARX zip that cannot be read or has no `card.json`.
    BadCharx(String),
    /// The right format, but the wrong shape. `format` is `None` when the
    /// error comes from [`super::native::load`] or a reader not tied to one
    /// format, whose message says enough by itself.
    Shape {
        format: Option<Format>,
        message: String,
    },
    /// A field with the wrong type or an impossible value.
    Field { path: String, message: String },
}

/// Why a file could not be imported, as a stable code the UI words in its
/// language ([`ImportError::code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ImportReason {
    MalformedJson,
    UnknownFormat,
    PngWithoutCard,
    BadPng,
    BadCardChunk,
    CardWithoutBook,
    BadCharx,
    BadShape,
    BadField,
}

impl ImportError {
    /// A stable code the UI can act on.
    pub fn code(&self) -> ImportReason {
        match self {
            ImportError::Json { .. } => ImportReason::MalformedJson,
            ImportError::UnknownFormat { .. } => ImportReason::UnknownFormat,
            ImportError::PngWithoutCard => ImportReason::PngWithoutCard,
            ImportError::BadPng(_) => ImportReason::BadPng,
            ImportError::BadCardChunk { .. } => ImportReason::BadCardChunk,
            ImportError::CardWithoutBook { .. } => ImportReason::CardWithoutBook,
            ImportError::BadCharx(_) => ImportReason::BadCharx,
            ImportError::Shape { .. } => ImportReason::BadShape,
            ImportError::Field { .. } => ImportReason::BadField,
        }
    }

    /// A wrong shape found by a reader of `format`.
    pub(crate) fn shape(format: Format, message: impl Into<String>) -> Self {
        ImportError::Shape {
            format: Some(format),
            message: message.into(),
        }
    }

    /// A wrong shape found by a reader shared by several formats (the JSON
    /// parser, the native reader); [`ImportError::in_format`] names the
    /// format once the caller knows it.
    pub(crate) fn shape_of_file(message: impl Into<String>) -> Self {
        ImportError::Shape {
            format: None,
            message: message.into(),
        }
    }

    /// A field error. A path starting with `.` (a field of a top-level
    /// object read with an empty path) loses the dot.
    pub(crate) fn field(path: impl Into<String>, message: impl Into<String>) -> Self {
        ImportError::Field {
            path: path.into().trim_start_matches('.').to_string(),
            message: message.into(),
        }
    }

    /// Names the format of a shape error that does not name one yet; every
    /// other error is returned as it is.
    pub(crate) fn in_format(self, format: Format) -> Self {
        match self {
            ImportError::Shape {
                format: None,
                message,
            } => ImportError::shape(format, message),
            other => other,
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Json {
                line,
                column,
                message,
            } => write!(
                f,
                "malformed JSON at line {line}, column {column}: {message}"
            ),
            ImportError::UnknownFormat { found } => write!(
                f,
                "not a lorebook this app can read ({found}); expected SillyTavern world info, \
                 a character card (JSON, PNG or CHARX), a lorebook_v3 file, a RisuAI, \
                 NovelAI or Agnai lorebook"
            ),
            ImportError::PngWithoutCard => f.write_str(
                "this PNG is not a character card: it has no \"chara\" or \"ccv3\" text chunk",
            ),
            ImportError::BadPng(m) => write!(f, "damaged PNG: {m}"),
            ImportError::BadCardChunk { chunk, message } => {
                write!(
                    f,
                    "the PNG's \"{chunk}\" card chunk cannot be read: {message}"
                )
            }
            ImportError::CardWithoutBook { spec } => write!(
                f,
                "this character card ({spec}) has no lorebook (data.character_book is missing)"
            ),
            ImportError::BadCharx(m) => write!(f, "cannot read the archive: {m}"),
            ImportError::Shape {
                format: Some(format),
                message,
            } => write!(f, "{}: {message}", format.name()),
            ImportError::Shape {
                format: None,
                message,
            } => f.write_str(message),
            ImportError::Field { path, message } => write!(f, "{path}: {message}"),
        }
    }
}

impl std::error::Error for ImportError {}

/// Why a book could not be exported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportError {
    /// [`super::export_into_card`] was given a format that is not a card.
    NotACardFormat(ExportFormat),
    /// [`super::export`] found no writer for the format in its codec
    /// table (a test keeps every export format written).
    NoWriter(ExportFormat),
    /// The image given to [`super::export_into_card`] is not a PNG or is damaged.
    BadPng(String),
    /// The image given to [`super::export_into_card`] holds no card to write into.
    PngWithoutCard,
    /// The card chunk of the image cannot be read.
    BadCardChunk { chunk: String, message: String },
}

/// Why a book could not be exported, as a stable code the UI words in its
/// language ([`ExportError::code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ExportReason {
    NotACardFormat,
    NoWriter,
    BadPng,
    PngWithoutCard,
    BadCardChunk,
}

impl ExportError {
    /// A stable code the UI can act on.
    pub fn code(&self) -> ExportReason {
        match self {
            ExportError::NotACardFormat(_) => ExportReason::NotACardFormat,
            ExportError::NoWriter(_) => ExportReason::NoWriter,
            ExportError::BadPng(_) => ExportReason::BadPng,
            ExportError::PngWithoutCard => ExportReason::PngWithoutCard,
            ExportError::BadCardChunk { .. } => ExportReason::BadCardChunk,
        }
    }
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::NotACardFormat(to) => write!(
                f,
                "a book can be written into a card PNG only as ccv2 or ccv3, not {to}"
            ),
            ExportError::NoWriter(to) => write!(f, "no writer is registered for {to}"),
            ExportError::BadPng(m) => write!(f, "damaged PNG: {m}"),
            ExportError::PngWithoutCard => f.write_str(
                "this PNG is not a character card: it has no \"chara\" or \"ccv3\" text chunk to write the book into",
            ),
            ExportError::BadCardChunk { chunk, message } => {
                write!(f, "the PNG's \"{chunk}\" card chunk cannot be read: {message}")
            }
        }
    }
}

impl std::error::Error for ExportError {}
