//! What crosses the IPC boundary besides engine types. Every type here and
//! every engine type it holds derives `ts_rs::TS`; `ui/src/lib/bindings.ts`
//! is generated from them (see `bindings::tests`).
//!
//! Above the usual 600 lines: every IPC type of the shell in one file; to be
//! split by domain (issue 18).

use lorebook_engine::chat::{ChatError, ChatWarning};
use lorebook_engine::decorators::{DecoratorLine, Diagnostic, Severity};
use lorebook_engine::explain::{RequestResult, Source};
use lorebook_engine::formats::report::Note;
use lorebook_engine::formats::{Format, Report};
use lorebook_engine::model::{Entry, Role};
use lorebook_engine::preview::Settings;
use lorebook_engine::prompt::PromptMessage;
use lorebook_engine::sillytavern::{AbsentReason, Position, PromptBlock, StDetail, StReason};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::AppError;

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

/// One row of the entry list.
#[derive(Debug, Clone, Serialize, TS)]
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

/// Dropped entries of one kind left out of a preview view under
/// SillyTavern's rules.
#[derive(Debug, Clone, Serialize, TS)]
pub struct StOmittedDropped {
    pub kind: lorebook_engine::sillytavern::DropKind,
    pub count: u32,
}

/// One line of the request log.
#[derive(Debug, Clone, Serialize, TS)]
pub struct LogRow {
    pub request: u32,
    pub used: u32,
    pub limit: u32,
    pub injected: Vec<EntryRef>,
    /// The entries the budget cut in this request (they activated but did
    /// not fit), as the preview lists them.
    pub cut: Vec<EntryRef>,
}

/// A decorator for the editor's completion and structured panel.
#[derive(Debug, Clone, Serialize, TS)]
pub struct DecoratorInfo {
    pub name: String,
    pub aliases: Vec<String>,
    /// `none`, `int` or `role`.
    pub arg: String,
    pub min: Option<i64>,
    pub max: Option<i64>,
    pub summary: String,
}

/// Static facts the UI needs once.
#[derive(Debug, Clone, Serialize, TS)]
pub struct Catalog {
    pub decorators: Vec<DecoratorInfo>,
    pub models: Vec<String>,
    pub scan_depth: [u32; 2],
    pub token_budget: [u32; 2],
    pub export_formats: Vec<ExportChoice>,
    /// The model names whose counts are approximate, shown with "≈".
    pub approximate_models: Vec<String>,
    /// The tokenizer families, OpenAI's first, for the model picker.
    pub families: Vec<FamilyView>,
}

/// A tokenizer family as the model picker shows it.
#[derive(Debug, Clone, Serialize, TS)]
pub struct FamilyView {
    /// The family's id (`llama-3`, `claude`).
    pub id: String,
    /// The vendor or model line it is grouped under (`Llama 3.x`).
    pub group: String,
    /// Whether its counts equal the models' own tokenizer.
    pub exact: bool,
    /// The model names the picker offers for it.
    pub models: Vec<String>,
}

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

/// Which front-end's rules the preview follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Rules {
    /// The guide's rules (`docs/semantics.md`).
    Studio,
    /// SillyTavern 1.15's world-info rules (`docs/sillytavern-rules.md`).
    Sillytavern,
}

/// SillyTavern's global world-info settings, plus the context size the
/// budget percentage is taken of and the `{{user}}`/`{{char}}` names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct StSettingsView {
    /// Scan depth (messages), 0–1000.
    pub depth: f64,
    /// Budget, percent of the context, 1–100.
    pub budget_percent: f64,
    /// Budget cap in tokens; 0 is none.
    pub budget_cap: f64,
    /// Context size minus the response length, in tokens.
    pub max_context: u32,
    pub recursive: bool,
    /// Most scan passes; 0 is no limit.
    pub max_recursion_steps: f64,
    pub min_activations: f64,
    /// Deepest scan min activations widens to; 0 is the chat length.
    pub min_activations_depth_max: f64,
    pub include_names: bool,
    pub case_sensitive: bool,
    pub match_whole_words: bool,
    pub use_group_scoring: bool,
    pub user_name: String,
    pub char_name: String,
}

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
}

/// One SillyTavern field set to a value (the editor, bulk edits).
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
pub struct StEdit {
    pub field: lorebook_engine::formats::st_fields::StField,
    pub value: serde_json::Value,
}

/// One entry injected under SillyTavern's rules.
#[derive(Debug, Clone, Serialize, TS)]
pub struct StInjectedView {
    pub book: u32,
    pub id: u64,
    pub name: String,
    pub position: Position,
    pub depth: Option<f64>,
    pub role: Option<Role>,
    pub outlet: Option<String>,
    pub order: f64,
    /// 1-based place within its position (its depth and role, its outlet).
    pub rank: u32,
    pub tokens: u32,
    pub pass: u32,
    /// How it activated, as a code (key, constant, sticky…).
    pub reason: StReason,
}

/// One entry left out under SillyTavern's rules.
#[derive(Debug, Clone, Serialize, TS)]
pub struct StDroppedView {
    pub book: u32,
    pub id: u64,
    pub name: String,
    /// The rule, as the engine's typed code.
    pub kind: lorebook_engine::sillytavern::DropKind,
    /// The rule's particulars, as a code with parameters.
    pub detail: StDetail,
}

/// A request under SillyTavern's rules.
#[derive(Debug, Clone, Serialize, TS)]
pub struct StPreviewView {
    pub books: Vec<AttachedBook>,
    pub requests: u32,
    pub request: u32,
    /// Budget in tokens, what the injected text used, and where it came
    /// from: `percent` of `context`, capped at `cap` when above 0.
    pub budget: u32,
    pub used: u32,
    pub overflowed: bool,
    pub percent: f64,
    pub context: u32,
    pub cap: f64,
    pub passes: u32,
    pub injected: Vec<StInjectedView>,
    pub dropped: Vec<StDroppedView>,
    pub omitted: Vec<StOmittedDropped>,
    /// The final prompt, only when asked for (its panel is open).
    pub prompt: Option<StPromptPatch>,
}

/// The final prompt under SillyTavern's rules, as a change to the one the
/// UI holds (as [`PromptPatch`] is for the guide's rules), with what is
/// said of the whole prompt.
#[derive(Debug, Clone, Serialize, TS)]
pub struct StPromptPatch {
    pub rev: u32,
    pub base: Option<u32>,
    pub keep_head: u32,
    pub keep_tail: u32,
    pub middle: Vec<StPromptMessageView>,
    /// Messages in the whole prompt, and their tokens.
    pub messages: u32,
    pub tokens: u32,
    /// Whether the Author's Note (with its top and bottom entries) is
    /// inserted in this request.
    pub authors_note_due: bool,
    /// Injected entries that appear nowhere in the prompt, with why.
    pub absent: Vec<StAbsentView>,
}

/// One message of SillyTavern's final prompt.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct StPromptMessageView {
    pub role: Role,
    /// `example_user` / `example_assistant` on dialogue examples.
    pub name: Option<String>,
    pub content: String,
    /// SillyTavern's prompt manager block.
    pub block: PromptBlock,
    /// What the content is made of, in order.
    pub sources: Vec<StPromptSourceView>,
    pub tokens: u32,
}

/// One piece of a prompt message.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StPromptSourceView {
    Main,
    Persona,
    Description,
    Personality,
    Scenario,
    /// An injected entry, with its position.
    Entry {
        book: u32,
        id: u64,
        position: Position,
    },
    NewExampleChat,
    Example {
        block: u32,
    },
    NewChat,
    /// Chat message `index` (0-based).
    Chat {
        index: u32,
    },
    AuthorsNote,
    CharacterNote,
}

/// An injected entry absent from the final prompt.
#[derive(Debug, Clone, Serialize, TS)]
pub struct StAbsentView {
    pub book: u32,
    pub id: u64,
    pub position: Position,
    /// Why, as a code.
    pub reason: AbsentReason,
}

/// One line of the request log under SillyTavern's rules.
#[derive(Debug, Clone, Serialize, TS)]
pub struct StLogRow {
    pub request: u32,
    pub used: u32,
    pub limit: u32,
    pub injected: Vec<EntryRef>,
    /// Entries on cooldown or delayed in this request.
    pub timed: Vec<EntryRef>,
}

/// Where the Author's Note goes (its `note_position`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum StNotePosition {
    /// Right after the main prompt (0).
    AfterMain,
    /// In the chat at its depth, as its role (1, the default).
    #[default]
    InChat,
    /// Right before the main prompt (2).
    BeforeMain,
}

/// The character's note: a card's `extensions.depth_prompt`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct StCharacterNoteView {
    pub text: String,
    /// Chat depth, a whole number 0–10000.
    pub depth: f64,
    pub role: Role,
}

impl Default for StCharacterNoteView {
    /// SillyTavern's defaults: depth 4, as system.
    fn default() -> Self {
        StCharacterNoteView {
            text: String::new(),
            depth: 4.0,
            role: Role::System,
        }
    }
}

/// The Author's Note of the previewed chat (the `note_*` metadata).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct StAuthorsNoteView {
    pub text: String,
    /// Insertion frequency: 1 every request, N every Nth user message,
    /// 0 never. A whole number 0–10000.
    pub interval: f64,
    pub position: StNotePosition,
    /// Chat depth when in the chat, a whole number 0–10000.
    pub depth: f64,
    pub role: Role,
}

impl Default for StAuthorsNoteView {
    /// SillyTavern's defaults: every request, in the chat at depth 4, as
    /// system.
    fn default() -> Self {
        StAuthorsNoteView {
            text: String::new(),
            interval: 1.0,
            position: StNotePosition::InChat,
            depth: 4.0,
            role: Role::System,
        }
    }
}

/// What the preview under SillyTavern's rules takes besides the chat and
/// the books: the persona, the character's fields and the Author's Note.
/// They feed the entries' `match…` flags and the final prompt. A card
/// field that is `None` follows the attached card (empty without one);
/// text, even empty, replaces the card's.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct StInputsView {
    /// The persona description (SillyTavern's Persona Management).
    pub persona: String,
    pub description: Option<String>,
    pub personality: Option<String>,
    pub scenario: Option<String>,
    /// Example messages (`mes_example`).
    pub examples: Option<String>,
    pub creator_notes: Option<String>,
    /// The character's note (`extensions.depth_prompt`).
    pub character_note: Option<StCharacterNoteView>,
    pub authors_note: StAuthorsNoteView,
}

/// The texts of a character card an attached book came from.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct StCardView {
    /// The book (document) the card came with, and its name.
    pub doc: u32,
    pub name: String,
    pub description: String,
    pub personality: String,
    pub scenario: String,
    pub examples: String,
    pub creator_notes: String,
    /// `None` when the card has no character's note.
    pub character_note: Option<StCharacterNoteView>,
    /// Whether the card has its own system prompt, which replaces
    /// SillyTavern's main prompt.
    pub system_prompt: bool,
}

/// One of the books a lint run read: the document it is and its name.
#[derive(Debug, Clone, Serialize, TS)]
pub struct LintedBook {
    pub doc: u32,
    pub name: String,
}

/// The name of an entry a problem points at or names.
#[derive(Debug, Clone, Serialize, TS)]
pub struct LintName {
    pub entry: lorebook_engine::lint::EntryRef,
    pub name: String,
}

/// The Problems panel: the problems of one book under the preview's rules
/// (docs/lint.md). `entry.book` in a problem, and in the entries it names,
/// is a position in `books`.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ProblemsView {
    pub doc: u32,
    pub rules: Rules,
    /// Whether the loaded chat was read (the checks that need a chat ran).
    pub chat: bool,
    pub books: Vec<LintedBook>,
    /// Every problem of book `doc`, hints included, in entry order.
    pub problems: Vec<lorebook_engine::lint::Problem>,
    /// The names of the entries the problems point at and name.
    pub names: Vec<LintName>,
}

/// What one entry's requests say and what it would need to survive them.
#[derive(Debug, Clone, Serialize, TS)]
pub struct EntryAdviceView {
    pub coverage: lorebook_engine::lint::EntryCoverage,
    /// `None` when the budget never cut it.
    pub advice: Option<lorebook_engine::lint::Advice>,
}

/// The budget advice of the loaded chat's request log (guide's rules).
#[derive(Debug, Clone, Serialize, TS)]
pub struct AdviceView {
    pub requests: u32,
    /// The budget the requests had.
    pub budget: u32,
    /// The tokens the fullest request needs to keep every entry in it.
    pub needed: u32,
    /// The smallest allowed budget that keeps every entry that activated;
    /// `None` when no budget in the allowed range does.
    pub budget_to_keep_all: Option<u32>,
    /// How many entries the budget cut in at least one request.
    pub cut: u32,
    /// How many enabled entries activated in no request.
    pub never_activated: u32,
    /// The entry asked about, when it is in an attached book.
    pub entry: Option<EntryAdviceView>,
}
