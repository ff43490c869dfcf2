//! Importing and exporting: pending imports with their reports, notices,
//! export choices.

use super::*;

/// An import read and reported, waiting for the user's confirmation.
#[derive(Debug, Clone, Serialize, TS)]
pub struct PendingImport {
    pub id: u32,
    pub file: String,
    pub format: Format,
    pub name: String,
    pub entries: u32,
    pub report: Report,
}

/// Something the UI shows once, in its notice panel.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Notice {
    /// A sentence: a repaired value, a file that could not be read.
    Message { text: String },
    /// A foreign book opened without asking (named on the command line),
    /// with the report of its import, which the panel summarizes.
    Imported(PendingImport),
    /// A value repaired while `file` was read, worded by the UI.
    Repaired { file: String, note: Note },
    /// A file that could not be opened, worded by the UI from its code.
    Failed { error: AppError },
    /// A preview setting saved by the last run that no longer works
    /// (`value`), dropped; `using` is what counts instead. `detail` is the
    /// engine's reason, shown in parentheses.
    SettingDropped {
        setting: SavedSetting,
        value: String,
        detail: String,
        using: String,
    },
}

/// A preview setting kept between runs (see `preview_settings.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SavedSetting {
    Model,
    TokenizerFile,
}

/// What reading a file did.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ImportOutcome {
    /// A native file, opened at once.
    Opened(OpenResult),
    /// Anything else: shown with its report until confirmed.
    Pending(PendingImport),
}

/// An export format the UI offers.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ExportChoice {
    /// The serde name of `ExportFormat`.
    pub id: String,
    pub name: String,
    /// Whether it can be written into a card PNG.
    pub card: bool,
}
