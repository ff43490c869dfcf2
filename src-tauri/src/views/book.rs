//! The open books and their entries: the workspace state, the entry list
//! (filters, sorting, rows, token counts) and one entry in the editor.

use super::*;

#[derive(Debug, Clone, Serialize, TS)]
pub struct DocSummary {
    pub id: u32,
    /// The name to show: the book's name, else its file's stem, else empty
    /// (the UI words "untitled" in its language).
    pub name: String,
    pub path: Option<String>,
    pub dirty: bool,
    /// Attached to the preview.
    pub attached: bool,
    pub entries: u32,
    pub can_undo: bool,
    pub can_redo: bool,
    /// Imported from SillyTavern or a character card (or carrying their
    /// fields): SillyTavern is its target.
    pub sillytavern: bool,
    /// Imported from RisuAI: RisuAI's rules are its default.
    pub risu: bool,
    /// The file it was imported from, when it was.
    pub source: Option<String>,
    /// The format it is written back in over that file (SillyTavern world
    /// info for a SillyTavern book): Save As offers it first.
    pub save_back: Option<ExportFormat>,
    /// The SillyTavern server it was opened from, which Save sends it back
    /// to.
    pub server: Option<ServerBookRef>,
}

/// An open book whose file (or folder) another program changed since it
/// was opened or saved, told once per change (`check_disk_changes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct DiskChange {
    pub doc: u32,
    /// The book has unsaved changes: the user is asked which version to
    /// keep. Otherwise the book is read again.
    pub dirty: bool,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct AppStateView {
    pub docs: Vec<DocSummary>,
    pub chat_error: Option<ChatError>,
    pub chat_warnings: Vec<ChatWarning>,
    pub settings: Settings,
    pub recent: Vec<String>,
    /// The user's tokenizer file counting instead of the model's, if any.
    pub tokenizer_file: Option<String>,
    /// Whether every token count is approximate (shown with "≈").
    pub approximate: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct BookSettings {
    pub name: String,
    pub description: String,
    pub scan_depth: u32,
    pub token_budget: u32,
    pub recursive_scanning: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum EntryFilter {
    All,
    Enabled,
    Disabled,
    Constant,
    Diagnostics,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SortKey {
    Id,
    Name,
    Keys,
    Order,
    Priority,
    Tokens,
    Enabled,
    Constant,
}

#[derive(Debug, Clone, Serialize, Deserialize, TS)]
pub struct ListQuery {
    pub search: String,
    pub filter: EntryFilter,
    pub sort: SortKey,
    pub descending: bool,
}

/// The entry list as a change to the one the UI already holds: a move, an
/// undo or a bulk edit changes a few rows of a 10,000-row list, so only
/// those (and, when it changed, the order) cross the IPC boundary.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ListPatch {
    /// This list's number, for the UI to send back as the one it has.
    pub rev: u64,
    /// The list this changes; `None` when `rows` is the whole list, in
    /// order.
    pub base: Option<u64>,
    /// With a base: the rows that are new or differ from the base's (and
    /// those the UI said it changed on its own), in any order.
    pub rows: Vec<EntryRow>,
    /// With a base: every row's id in list order, when the order or the
    /// rows listed changed; `None` keeps the base's.
    pub order: Option<Vec<u64>>,
}

/// One row of the entry list.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct EntryRow {
    pub id: u64,
    /// Comment, falling back to the first key.
    pub name: String,
    pub keys: String,
    pub enabled: bool,
    pub constant: bool,
    pub order: i64,
    pub priority: i64,
    /// Body tokens under the selected model; `None` while not counted yet
    /// (a big book's list comes before its counts: see
    /// `Workspace::count_list_tokens`).
    pub tokens: Option<u32>,
    /// How many diagnostics, hints included.
    pub diagnostics: u32,
    /// The worst of them, for the row's badge.
    pub severity: Option<Severity>,
    /// A folder (see `lorebook_engine::folders`): a heading for the
    /// entries in it, not an entry that fires.
    pub folder: bool,
    /// The folder this entry is in, when that folder is in the book.
    pub parent: Option<u64>,
    /// How many listed folders hold it (its indent).
    pub depth: u32,
    /// A folder's entries at any depth, filters aside (`None`: no folder).
    pub inside: Option<u32>,
    /// Their body tokens; `None` while one is not counted yet.
    pub inside_tokens: Option<u64>,
}

/// The token count of one entry's body, counted after its list row was
/// sent without it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct RowTokens {
    pub id: u64,
    pub tokens: u32,
}

/// One step of counting a book's bodies for its list: the counts of the
/// entries from the asked position up to `next`, where the next step
/// starts (`None`: the book is done).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct TokenStep {
    pub counts: Vec<RowTokens>,
    pub next: Option<u32>,
}

/// The entry editor's view of one entry.
#[derive(Debug, Clone, Serialize, TS)]
pub struct EntryDetail {
    pub entry: Entry,
    pub decorator_lines: Vec<DecoratorLine>,
    /// 0-based line of `content` where the body starts: the lines before it
    /// are the decorator block. The editor colours by line so a draft one
    /// keystroke ahead of this view stays aligned.
    pub body_line: u32,
    pub diagnostics: Vec<Diagnostic>,
    /// Body tokens under the selected model.
    pub tokens: u32,
    /// Its row in the entry list, so one edit updates one row.
    pub row: EntryRow,
    /// Its SillyTavern fields as a SillyTavern export writes them
    /// (`formats::st_fields`), by SillyTavern's names.
    pub st: lorebook_engine::model::Object,
}

#[derive(Debug, Clone, Serialize, Deserialize, TS)]
pub struct BulkPatch {
    pub enabled: Option<bool>,
    pub order: Option<i64>,
    pub priority: Option<i64>,
    /// SillyTavern fields set on every entry (position, depth, group…).
    #[serde(default)]
    pub st: Vec<StEdit>,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct OpenResult {
    pub doc: u32,
    /// Values repaired on load (clamped settings, new ids).
    pub notes: Vec<Note>,
}

/// What a save did: where the book now lives, and what the author should
/// hear about (a book folder's entry written under another name beside a
/// file that is not the book's, a changed file left in place).
#[derive(Debug, Clone, Serialize, TS)]
pub struct SaveResult {
    pub path: String,
    pub notes: Vec<Note>,
}

/// An entry only one book of a merge has.
#[derive(Debug, Clone, Serialize, TS)]
pub struct MergeAlone {
    pub id: u64,
    pub name: String,
}

/// A field that differs in a merge pair, each side as text.
#[derive(Debug, Clone, Serialize, TS)]
pub struct MergeField {
    pub field: String,
    pub mine: String,
    pub theirs: String,
}

/// An entry in both books of a merge, but different.
#[derive(Debug, Clone, Serialize, TS)]
pub struct MergePair {
    /// The entry here.
    pub mine: u64,
    /// Its match in the other book.
    pub theirs: u64,
    pub name: String,
    /// How they were matched: `id`, `name` or `keys`.
    pub by: String,
    pub fields: Vec<MergeField>,
}

/// The groups of a merge being decided: only in the other book, only
/// here, in both but different, and how many are the same.
#[derive(Debug, Clone, Serialize, TS)]
pub struct MergeView {
    pub doc: u32,
    /// The other book's file name.
    pub file: String,
    pub only_theirs: Vec<MergeAlone>,
    pub only_mine: Vec<MergeAlone>,
    pub different: Vec<MergePair>,
    pub same: u32,
}
