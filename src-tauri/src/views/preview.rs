//! The preview under the guide's rules: attached books, the request's
//! result with its names and source texts, the prompt as a patch, the log,
//! and the preview an edit asks for (`PreviewAsk`, `EntryEdited`).

use super::*;

#[derive(Debug, Clone, Serialize, TS)]
pub struct AttachedBook {
    pub doc: u32,
    pub name: String,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct EntryName {
    pub book: u32,
    pub id: u64,
    pub name: String,
}

/// The text a shown key match points into (a chat message or a source
/// entry's body), for its excerpt.
#[derive(Debug, Clone, Serialize, TS)]
pub struct SourceText {
    pub source: Source,
    pub text: String,
}

/// What reading the chat gave, without the chat's text: the answer to
/// each keystroke in the chat stays small however long the chat is.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ChatStatus {
    pub chat_error: Option<ChatError>,
    pub chat_warnings: Vec<ChatWarning>,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct EntryRef {
    pub book: u32,
    pub id: u64,
}

/// The live preview of one request.
#[derive(Debug, Clone, Serialize, TS)]
pub struct PreviewView {
    /// Attached books; `book` indices in the result point here.
    pub books: Vec<AttachedBook>,
    /// Number of requests (chat length).
    pub requests: u32,
    /// Display names of every entry in the result.
    pub names: Vec<EntryName>,
    /// The texts the injected entries' primary key matches point into,
    /// each once: only these, not the whole chat, so a keystroke's view
    /// stays small on long chats.
    pub sources: Vec<SourceText>,
    /// The request; `dropped` lists at most a hundred entries of each
    /// plentiful kind (`no_match`, `disabled`), the rest are in `omitted`.
    /// Its `messages` are empty: the final prompt is in `prompt`.
    pub result: RequestResult,
    pub prompt: PromptPatch,
    pub omitted: Vec<OmittedDropped>,
}

/// The final prompt of a preview view, as a change to the one the UI
/// already holds: a keystroke changes one or two messages of a long
/// prompt, so only those cross the IPC boundary.
#[derive(Debug, Clone, Serialize, TS)]
pub struct PromptPatch {
    /// This prompt's number, for the UI to send back as the one it has.
    pub rev: u32,
    /// The prompt this changes; `None` when `middle` is the whole prompt.
    pub base: Option<u32>,
    /// How many messages of the base stay at the start and at the end.
    pub keep_head: u32,
    pub keep_tail: u32,
    /// The messages between them.
    pub middle: Vec<PromptMessage>,
}

/// Dropped entries of one kind left out of a preview view.
#[derive(Debug, Clone, Serialize, TS)]
pub struct OmittedDropped {
    pub kind: lorebook_engine::explain::DropReasonKind,
    pub count: u32,
}

/// An entry named in the request log.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LogEntry {
    pub book: u32,
    pub id: u64,
    pub name: String,
}

/// One line of the request log, the same under every rules.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LogRow {
    pub request: u32,
    pub used: u32,
    pub limit: u32,
    pub injected: Vec<LogEntry>,
    /// The entries the budget cut in this request (they activated but did
    /// not fit).
    pub cut: Vec<LogEntry>,
    /// Entries held out by what earlier requests left behind (SillyTavern's
    /// cooldown and delay; `@@dont_activate_after_match`).
    pub held: Vec<LogEntry>,
}

/// One entry of the activation timeline and its state in each request:
/// one letter per request (`i` injected, `c` cut by the budget, `h` held
/// out by an earlier request, `g` kept out by another rule, `.` not
/// matched).
#[derive(Debug, Clone, Serialize, TS)]
pub struct TimelineRow {
    pub book: u32,
    pub id: u64,
    pub name: String,
    // The name of the folder the entry is in (RisuAI's folders), whose
    // entries the timeline lists together.
    pub folder: Option<String>,
    pub cells: String,
}

/// A window of the activation timeline's rows.
#[derive(Debug, Clone, Serialize, TS)]
pub struct TimelineView {
    pub requests: u32,
    /// Rows in all (entries some request matched).
    pub total: u32,
    /// Attached entries no request matched (not listed).
    pub never: u32,
    pub offset: u32,
    pub rows: Vec<TimelineRow>,
}

/// The preview the pane shows, sent with an edit so that its answer
/// carries that preview (one round trip per keystroke).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, TS)]
#[serde(tag = "rules", rename_all = "snake_case")]
pub enum PreviewAsk {
    /// The guide's rules: `request` (`None`: the last) and the revision
    /// of the prompt the UI holds.
    Studio {
        request: Option<u32>,
        have: Option<u32>,
    },
    /// SillyTavern's rules; `prompt` while the final prompt is shown.
    Sillytavern {
        request: Option<u32>,
        prompt: bool,
        have: Option<u32>,
    },
    /// RisuAI's rules; `prompt` while the final prompt is shown.
    Risu {
        request: Option<u32>,
        #[serde(default)]
        prompt: bool,
    },
}

/// A preview under the rules in force.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(tag = "rules", rename_all = "snake_case")]
pub enum PreviewAnswer {
    Studio { view: PreviewView },
    Sillytavern { view: StPreviewView },
    Risu { view: RisuPreviewView },
}

/// The answer to an edit of an entry: the entry as stored (diagnostics,
/// its row), the workspace's state (dirty marks, undo), and the preview
/// asked for; `None` when none was asked, the rules in force are not the
/// ones asked for, or it gave way (the UI then asks for it on its own).
#[derive(Debug, Clone, Serialize, TS)]
pub struct EntryEdited {
    pub detail: EntryDetail,
    pub state: AppStateView,
    pub preview: Option<PreviewAnswer>,
}

/// Which front-end's rules the preview follows: the engine's profile table
/// (`lorebook_engine::profile::PROFILES`), one definition for the engine,
/// the CLI, the shell and the UI.
pub use lorebook_engine::profile::ProfileName as Rules;

/// The preview's rules and SillyTavern settings.
#[derive(Debug, Clone, Serialize, TS)]
pub struct RulesView {
    /// The rules in force.
    pub rules: Rules,
    /// Chosen by the user (else taken from the attached books' origin).
    pub chosen: bool,
    pub st: StSettingsView,
    /// The character, persona and Author's Note texts of the preview.
    pub inputs: StInputsView,
    /// The card of the first attached book that came from a character
    /// card: the texts the inputs follow while not edited.
    pub card: Option<StCardView>,
    /// RisuAI's lorebook settings.
    pub risu: RisuSettingsView,
    /// The chat's own variables under SillyTavern's rules
    /// (`chat_metadata.variables` of the chat, or as edited here).
    pub chat_vars: std::collections::BTreeMap<String, String>,
    /// The chat's variables were edited in the app (else the chat's).
    pub chat_vars_edited: bool,
}
