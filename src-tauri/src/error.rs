//! The one error type at the app boundary: `{kind, message}`, where `kind`
//! is an [`ErrorKind`] the UI can act on (a union type in TypeScript) and
//! `message` is shown to the user.

use serde::Serialize;
use ts_rs::TS;

/// What went wrong, as a code the UI can act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// A book, entry or pending import that is not (or no longer) open.
    NotFound,
    /// An argument out of range or not allowed.
    Invalid,
    /// A file could not be read or written.
    Io,
    /// A file was read but is not a book (or card) the engine understands,
    /// or a book cannot be written in the chosen format.
    Format,
    /// Save was asked of a book that has no file yet: the UI asks where.
    NeedsPath,
    /// Save was asked over a file that changed on disk since the book was
    /// opened or saved: the UI asks whether to overwrite, save as or reload.
    ChangedOnDisk,
    /// The user closed a dialog without choosing.
    Cancelled,
    /// The native menu could not be rebuilt.
    Menu,
    /// Anything else; the UI uses it for failures outside a command.
    Internal,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct AppError {
    pub kind: ErrorKind,
    pub message: String,
}

impl AppError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        AppError {
            kind,
            message: message.into(),
        }
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Invalid, message)
    }

    pub fn io(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Io, message)
    }

    pub fn format(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Format, message)
    }

    pub fn cancelled(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Cancelled, message)
    }
}

impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}: {}", self.kind, self.message)
    }
}

impl std::error::Error for AppError {}
