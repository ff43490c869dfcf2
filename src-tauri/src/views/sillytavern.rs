//! The preview, settings, inputs and entry fields under SillyTavern's
//! rules.

use super::*;

/// Dropped entries of one kind left out of a preview view under
/// SillyTavern's rules.
#[derive(Debug, Clone, Serialize, TS)]
pub struct StOmittedDropped {
    pub kind: lorebook_engine::sillytavern::DropKind,
    pub count: u32,
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
    /// SillyTavern's macro engine for keys and content
    /// (`power_user.experimental_macro_engine`).
    #[serde(default)]
    pub macro_engine: lorebook_engine::sillytavern::macros::MacroEngine,
    /// The global variables (`extension_settings.variables.global`), as
    /// text.
    #[serde(default)]
    pub global_vars: std::collections::BTreeMap<String, String>,
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
    /// Where its content's macros decided (`{{if}}` branches, variables).
    pub decided: Vec<lorebook_engine::sillytavern::macros::trace::MacroDecision>,
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
