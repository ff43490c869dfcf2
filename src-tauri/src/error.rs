//! The one error type at the app boundary: `{kind, message, code}`, where
//! `kind` is an [`ErrorKind`] the UI can act on (a union type in
//! TypeScript), `code` an [`ErrorCode`] with its parameters that the UI
//! words in its language (every error has one: the compiler checks the
//! catalogs cover them, see `ui/src/lib/messages.ts`), and `message` the
//! English sentence for the CLI and the logs.

use std::path::Path;

use lorebook_engine::formats::st_fields::StField;
use lorebook_engine::formats::{ExportError, ExportReason, ImportError, ImportReason};
use lorebook_engine::io::ReadError;
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
    /// Save was asked of a book opened from a SillyTavern server whose copy
    /// there changed since it was opened or saved: the UI asks whether to
    /// overwrite, save as a file or reload.
    ChangedOnServer,
    /// A SillyTavern server could not be reached, refused or misbehaved.
    Server,
    /// The author's model endpoint failed, or its answer could not be used.
    Model,
    /// The user closed a dialog without choosing.
    Cancelled,
    /// The native menu could not be rebuilt.
    Menu,
    /// Anything else; the UI uses it for failures outside a command.
    Internal,
}

/// An error a user can meet, as a code with parameters. `file` is the
/// path as given; the UI shows its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case", tag = "code")]
pub enum ErrorCode {
    /// No file (or folder) at that path.
    FileNotFound { file: String },
    /// The system refused access.
    PermissionDenied { file: String },
    /// No space left on the disk.
    DiskFull { file: String },
    /// More bytes than such files may have.
    TooLarge { file: String, limit: u64 },
    /// A folder, FIFO, socket or device.
    NotAFile { file: String },
    /// Not UTF-8 text.
    NotText { file: String },
    /// Any other failure of the system; `detail` is its own words.
    Unreadable { file: String, detail: String },
    /// Any other failure to write; `detail` is the system's own words.
    Unwritable { file: String, detail: String },
    /// The file is read-only (its permissions allow no writing), so Save
    /// does not replace it.
    ReadOnly { file: String },
    /// An export onto the file of a book open in the app, or onto the file
    /// the book was imported from: refused, so an export never replaces a
    /// book the user is editing or the source they may still need.
    ExportOverBook { file: String },
    /// Save (in the app's own format) onto the file the book was imported
    /// from in another format (`format`, its human name): refused, so the
    /// author's file is never replaced by one its own tool cannot open.
    /// Export in that format writes it back.
    SaveOverSource { file: String, format: String },
    /// A quick fix of the Problems panel that no longer fits its entry
    /// (the key or the text it changes was edited since the check ran).
    FixOutdated,
    /// A SillyTavern setting sent out of the range its panel allows (the
    /// engine's `ST_RANGES`).
    OutOfRange {
        setting: lorebook_engine::sillytavern::StRanged,
        min: u32,
        max: u32,
    },
    /// Read, but not a book the engine understands. `reason` is
    /// [`ImportError::code`]; `detail` the engine's English sentence,
    /// shown for the reasons whose facts it holds (a field's path).
    NotABook {
        file: String,
        reason: ImportReason,
        detail: String,
    },
    /// A book that cannot be written as asked. `reason` is
    /// [`ExportError::code`]; `detail` the engine's English sentence (the
    /// PNG's own damage, which has no code); `file` the card PNG written
    /// into or the file exported to, empty before one was chosen.
    CannotExport {
        file: String,
        reason: ExportReason,
        detail: String,
    },
    /// A command failed inside the app (a bug): `command` names it and
    /// `detail` is the panic's own words. Unsaved changes are kept.
    Internal { command: String, detail: String },
    /// A file dialog closed without a choice (the UI says nothing).
    NothingChosen,
    /// A preview stopped to let a save or a newer request go first (the
    /// UI asks again).
    GaveWay,
    /// No open book has this id (it was closed).
    BookNotOpen { doc: u32 },
    /// The book has no entry with this id (it was deleted).
    EntryNotFound { id: u64 },
    /// No import waits under this id (it was confirmed or dismissed).
    ImportNotPending { id: u32 },
    /// No recovered book has this id (it was restored or discarded).
    RecoveredBookGone { id: String },
    /// Save of a book that has no file yet: the UI asks where.
    NeedsPath,
    /// The book's file changed on disk since it was opened or saved
    /// (`gone`: it was moved or deleted).
    ChangedOnDisk { file: String, gone: bool },
    /// Reload of a book that was never saved.
    NeverSaved,
    /// Only the files of the recent list reopen by path.
    NotRecent { file: String },
    /// A book setting out of the range the engine allows.
    BookSettingOutOfRange {
        setting: BookSetting,
        min: u32,
        max: u32,
    },
    /// A number of the SillyTavern notes that is not a whole number from 0
    /// to `max`.
    NoteNumberOutOfRange { setting: NoteNumber, max: u32 },
    /// A pattern for the copies' names without `{name}`.
    CopyNameWithoutName,
    /// An edit of the chat that does not fit the chat the app holds (the
    /// UI then sends the chat whole); `detail` says how.
    ChatOutOfStep { detail: String },
    /// Preview settings the engine refused; `detail` is its sentence.
    BadPreviewSettings { detail: String },
    /// The tokenizer of `model` cannot be loaded; `detail` says why (its
    /// files are missing, or damaged).
    TokenizerUnavailable { model: String, detail: String },
    /// The chosen tokenizer file cannot be used; `detail` says why.
    BadTokenizerFile { file: String, detail: String },
    /// A SillyTavern field value the field does not take.
    BadStField { field: StField, detail: String },
    /// A file read as SillyTavern settings that holds none.
    NotStSettings { file: String, detail: String },
    /// A RisuAI setting out of the range the preview accepts.
    RisuSettingOutOfRange { setting: String, min: i64, max: i64 },
    /// The SillyTavern preview could not be built; `detail` says why.
    StPreviewFailed { detail: String },
    /// A scenario was given no name.
    ScenarioNameEmpty,
    /// A find pattern does not compile; `detail` is the regex crate's words.
    BadPattern { detail: String },
    /// The impact was asked to compare with an undo step the history does
    /// not hold (`back` steps ago).
    NoSuchUndoStep { back: u32 },
    /// `file` is not a book kept as a folder, or cannot be written as one;
    /// `detail` says why.
    NotABookFolder { file: String, detail: String },
    /// Save As Folder was pointed at `folder`, which already holds another
    /// book: it is replaced only when the author says so.
    FolderHoldsBook { folder: String },
    /// No merge is waiting for book `doc` (it was applied or cancelled).
    NoMergePending { doc: u32 },
    /// Entry `id` was named as a folder and is not one.
    NotAFolder { id: u64 },
    /// Folder `id` cannot go into `into`: that is the folder itself or a
    /// folder inside it.
    FolderIntoItself { id: u64, into: u64 },
    /// The book's stored scenarios do not read; `detail` says where.
    ScenariosUnreadable { detail: String },
    /// Scenario `name` cannot run (its chat, settings or model).
    ScenarioCannotRun { name: String, detail: String },
    /// The SillyTavern preview is not built yet (its build gave way).
    StPreviewNotBuilt,
    /// The native menu could not be rebuilt; `detail` is the system's
    /// words.
    MenuFailed { detail: String },
    /// The interface preferences could not be saved.
    PrefsNotSaved { detail: String },
    /// A SillyTavern server could not be reached, refused or misbehaved
    /// (`crate::server`); `detail` is the client's English words.
    Server {
        problem: crate::views::ServerProblem,
        address: String,
        detail: String,
    },
    /// A book opened from a SillyTavern server changed there since it was
    /// opened or last saved.
    ChangedOnServer {
        book: String,
        how: crate::views::ServerChange,
    },
    /// A server book saved or reloaded while the app is not connected to
    /// its server (or is connected to another).
    NotConnected { address: String },
    /// The model endpoint failed or its answer was unusable (`crate::ai`).
    Model {
        problem: crate::views::AiProblem,
        detail: String,
    },
}

/// A book setting with a range (`ErrorCode::BookSettingOutOfRange`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum BookSetting {
    ScanDepth,
    TokenBudget,
}

/// A number of the SillyTavern notes (`ErrorCode::NoteNumberOutOfRange`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum NoteNumber {
    CharacterNoteDepth,
    AuthorsNoteDepth,
    AuthorsNoteInterval,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct AppError {
    pub kind: ErrorKind,
    /// English, for the CLI and the logs.
    pub message: String,
    pub code: ErrorCode,
}

impl AppError {
    pub fn coded(kind: ErrorKind, message: impl Into<String>, code: ErrorCode) -> Self {
        AppError {
            kind,
            message: message.into(),
            code,
        }
    }

    /// A file that could not be read.
    pub fn read(e: ReadError) -> Self {
        let message = e.to_string();
        let code = match e {
            ReadError::NotAFile { path, .. } => ErrorCode::NotAFile { file: shown(&path) },
            ReadError::TooLarge { path, cap } => ErrorCode::TooLarge {
                file: shown(&path),
                limit: cap,
            },
            ReadError::NotText { path, .. } => ErrorCode::NotText { file: shown(&path) },
            ReadError::Io { path, error } => io_code(&path, &error, false),
        };
        Self::coded(ErrorKind::Io, message, code)
    }

    /// A file that could not be written (`verb`: "save", "write").
    pub fn write(path: &Path, verb: &str, e: std::io::Error) -> Self {
        let message = format!("cannot {verb} {}: {e}", path.display());
        Self::coded(ErrorKind::Io, message, io_code(path, &e, true))
    }

    /// A file read whole that is not a book.
    pub fn not_a_book(path: &Path, e: &ImportError) -> Self {
        let file = shown(path);
        let detail = match e {
            // The position and the parser's own words, which have no code.
            ImportError::Json {
                line,
                column,
                message,
            } => format!("{line}:{column}: {message}"),
            _ => e.to_string(),
        };
        let code = ErrorCode::NotABook {
            file: file.clone(),
            reason: e.code(),
            detail,
        };
        Self::coded(ErrorKind::Format, format!("{file}: {e}"), code)
    }

    /// A book that cannot be exported: `file` is the card PNG the book was
    /// to be written into, or the file exported to.
    pub fn cannot_export(file: Option<&Path>, e: &ExportError) -> Self {
        let file = file.map(shown).unwrap_or_default();
        let detail = match e {
            ExportError::BadPng(m) => m.clone(),
            ExportError::BadCardChunk { chunk, message } => format!("{chunk}: {message}"),
            _ => e.to_string(),
        };
        let message = if file.is_empty() {
            e.to_string()
        } else {
            format!("{file}: {e}")
        };
        let code = ErrorCode::CannotExport {
            file,
            reason: e.code(),
            detail,
        };
        Self::coded(ErrorKind::Format, message, code)
    }

    /// Save refused over the read-only file `path`.
    pub fn read_only(path: &Path) -> Self {
        Self::coded(
            ErrorKind::Io,
            format!(
                "{} is read-only, so it was not replaced; use Save As to save elsewhere, \
                 or make the file writable",
                path.display()
            ),
            ErrorCode::ReadOnly { file: shown(path) },
        )
    }

    /// Save refused onto `path`, the file the book was imported from in
    /// `format`.
    pub fn save_over_source(path: &Path, format: &str) -> Self {
        Self::coded(
            ErrorKind::Invalid,
            format!(
                "{} is the {format} file this book was imported from; saving the book there in \
                 Lorebook Studio's format would leave a file that its tool cannot open. Save in \
                 its own format (Save As offers it first), or save under another name",
                path.display()
            ),
            ErrorCode::SaveOverSource {
                file: shown(path),
                format: format.to_string(),
            },
        )
    }

    /// Export refused onto `path`, an open book's file or this book's
    /// source.
    pub fn export_over_book(path: &Path) -> Self {
        Self::coded(
            ErrorKind::Invalid,
            format!(
                "{} is the file of an open book or the file this book was imported from; \
                 export to another file",
                path.display()
            ),
            ErrorCode::ExportOverBook { file: shown(path) },
        )
    }

    /// A quick fix refused because its entry changed since the check.
    pub fn fix_outdated() -> Self {
        Self::coded(
            ErrorKind::Invalid,
            "the entry changed since its problems were checked, so the fix was not applied; \
             the Problems panel checks it again"
                .to_string(),
            ErrorCode::FixOutdated,
        )
    }

    /// A setting out of its range: `range` says which and what it allows.
    pub fn out_of_range(range: lorebook_engine::sillytavern::StRange) -> Self {
        Self::coded(
            ErrorKind::Invalid,
            format!(
                "{} must be a whole number from {} to {}",
                serde_json::to_value(range.setting)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                range.min,
                range.max
            ),
            ErrorCode::OutOfRange {
                setting: range.setting,
                min: range.min as u32,
                max: range.max as u32,
            },
        )
    }

    /// A panic caught in `command` (see `commands::guarded`).
    pub fn internal(command: &str, why: &str) -> Self {
        let message = format!(
            "internal error in {command} ({why}); your unsaved changes are kept: save them \
             (Save As to a new file is safest) and restart the app"
        );
        let code = ErrorCode::Internal {
            command: command.into(),
            detail: why.into(),
        };
        Self::coded(ErrorKind::Internal, message, code)
    }

    /// A file dialog closed without a choice.
    pub fn nothing_chosen() -> Self {
        Self::coded(
            ErrorKind::Cancelled,
            "no file chosen",
            ErrorCode::NothingChosen,
        )
    }

    /// A preview that stopped for a save or a newer request.
    pub fn gave_way() -> Self {
        Self::coded(
            ErrorKind::Cancelled,
            "the preview gave way to a save or a newer request",
            ErrorCode::GaveWay,
        )
    }

    pub fn book_not_open(doc: u32) -> Self {
        Self::coded(
            ErrorKind::NotFound,
            format!("no open book with id {doc}"),
            ErrorCode::BookNotOpen { doc },
        )
    }

    pub fn no_such_undo_step(back: u32) -> Self {
        Self::invalid(
            format!("the undo history holds no step {back} back"),
            ErrorCode::NoSuchUndoStep { back },
        )
    }

    pub fn not_a_folder(id: u64) -> Self {
        Self::invalid(
            format!("entry {id} is not a folder"),
            ErrorCode::NotAFolder { id },
        )
    }

    pub fn folder_into_itself(id: u64, into: u64) -> Self {
        Self::invalid(
            format!("folder {id} cannot go into {into}, which is itself or inside it"),
            ErrorCode::FolderIntoItself { id, into },
        )
    }

    pub fn entry_not_found(id: u64) -> Self {
        Self::coded(
            ErrorKind::NotFound,
            format!("entry {id} is not in this book"),
            ErrorCode::EntryNotFound { id },
        )
    }

    pub fn import_not_pending(id: u32) -> Self {
        Self::coded(
            ErrorKind::NotFound,
            format!("no pending import {id}"),
            ErrorCode::ImportNotPending { id },
        )
    }

    pub fn recovered_book_gone(id: &str) -> Self {
        Self::coded(
            ErrorKind::NotFound,
            format!("no recovered book \"{id}\""),
            ErrorCode::RecoveredBookGone { id: id.into() },
        )
    }

    /// Save of a book without a file.
    pub fn needs_path() -> Self {
        Self::coded(
            ErrorKind::NeedsPath,
            "this book has no file yet: use Save As",
            ErrorCode::NeedsPath,
        )
    }

    /// Save over `path`, which changed on disk (or is `gone`).
    pub fn changed_on_disk(path: &Path, gone: bool) -> Self {
        let what = if gone {
            "was moved or deleted"
        } else {
            "was changed by another program"
        };
        Self::coded(
            ErrorKind::ChangedOnDisk,
            format!(
                "{} {what} since it was opened or last saved",
                path.display()
            ),
            ErrorCode::ChangedOnDisk {
                file: shown(path),
                gone,
            },
        )
    }

    /// The tokenizer of `model` that cannot be loaded.
    pub fn tokenizer_unavailable(model: &str, detail: String) -> Self {
        Self::coded(
            ErrorKind::Invalid,
            detail.clone(),
            ErrorCode::TokenizerUnavailable {
                model: model.into(),
                detail,
            },
        )
    }

    /// The book's scenarios do not read (or cannot be stored).
    pub fn scenarios_unreadable(detail: &str) -> Self {
        Self::invalid(
            format!("the book's scenarios cannot be read: {detail}"),
            ErrorCode::ScenariosUnreadable {
                detail: detail.into(),
            },
        )
    }

    /// Scenario `name` cannot run.
    pub fn scenario_cannot_run(name: &str, detail: &str) -> Self {
        Self::invalid(
            format!("scenario {name} cannot run: {detail}"),
            ErrorCode::ScenarioCannotRun {
                name: name.into(),
                detail: detail.into(),
            },
        )
    }

    /// A tokenizer file chosen by the user that cannot be used.
    pub fn bad_tokenizer_file(path: &Path, detail: String) -> Self {
        Self::coded(
            ErrorKind::Invalid,
            format!("{}: {detail}", path.display()),
            ErrorCode::BadTokenizerFile {
                file: shown(path),
                detail,
            },
        )
    }

    /// An edit or setting refused, with its code.
    pub fn invalid(message: impl Into<String>, code: ErrorCode) -> Self {
        Self::coded(ErrorKind::Invalid, message, code)
    }
}

impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}: {}", self.kind, self.message)
    }
}

impl std::error::Error for AppError {}

/// Reads a book file as [`lorebook_engine::formats::read_limited`] does,
/// with the error's code kept.
pub fn read_book_file(path: &Path) -> Result<Vec<u8>, AppError> {
    lorebook_engine::io::read_capped(path, lorebook_engine::formats::MAX_FILE_BYTES)
        .map_err(AppError::read)
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

/// The code of a system error on `path`.
fn io_code(path: &Path, e: &std::io::Error, writing: bool) -> ErrorCode {
    let file = shown(path);
    match e.kind() {
        std::io::ErrorKind::NotFound => ErrorCode::FileNotFound { file },
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
            ErrorCode::PermissionDenied { file }
        }
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => {
            ErrorCode::DiskFull { file }
        }
        std::io::ErrorKind::IsADirectory => ErrorCode::NotAFile { file },
        _ if writing => ErrorCode::Unwritable {
            file,
            detail: e.to_string(),
        },
        _ => ErrorCode::Unreadable {
            file,
            detail: e.to_string(),
        },
    }
}

#[cfg(test)]
#[path = "error_tests.rs"]
mod tests;
