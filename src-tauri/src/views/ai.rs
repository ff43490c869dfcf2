//! The author's own model as the AI dialog shows it (`crate::ai`): the
//! endpoint (never its key), what to ask, and what came back, each
//! suggestion with its check by the preview.

use super::*;

/// The endpoint in force (kept in the app's data folder; the key never).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AiConfigView {
    pub address: String,
    pub model: String,
    /// The model's context, in tokens.
    pub context: u32,
    /// A key is in the system's secret store for this address.
    #[serde(default)]
    pub key_saved: bool,
    /// A key is held for this session (typed, or read from the store).
    #[serde(default, skip_deserializing)]
    pub key_held: bool,
    /// Why the key could not be remembered, when that was asked.
    #[serde(default, skip_deserializing)]
    pub not_remembered: Option<String>,
    /// The folder whose `<action>.md` files replace the built-in prompts.
    #[serde(default, skip_deserializing)]
    pub prompts_folder: String,
}

/// Which action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum AiAction {
    Draft,
    Keys,
    Shorten,
    Review,
}

/// What to ask.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AiAsk {
    pub action: AiAction,
    /// The entry of keys and shorten.
    pub entry: Option<u64>,
    /// The entries a review reads; empty: the whole book.
    #[serde(default)]
    pub entries: Vec<u64>,
    /// A draft's source text (the chat's selection, or pasted); `None`:
    /// the whole chat.
    pub source: Option<String>,
    /// The size asked for: a draft's entries, shorten's result.
    pub tokens: u32,
    pub max_entries: u32,
    /// The built-in prompts' language (`en`, `pt-BR`).
    pub lang: String,
}

/// What a suggestion does (`lorebook_ai::Merge`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum AiMerge {
    New,
    Changed,
    Same,
}

/// One suggestion and its check.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct AiSuggestionView {
    /// Its place in the run, for accepting it.
    pub index: u32,
    pub name: String,
    pub keys: Vec<String>,
    pub secondary_keys: Vec<String>,
    pub content: String,
    pub merge: AiMerge,
    pub target: Option<u64>,
    pub target_name: Option<String>,
    pub locked: bool,
    pub fires_on_source: Option<bool>,
    /// The requests of the chat it activates in.
    pub requests: Vec<u32>,
    pub tokens: u32,
    pub kept_by_budget: bool,
    /// The requests of the chat where the budget cut it.
    pub cut_in: Vec<u32>,
    pub problems: Vec<String>,
    pub passed: bool,
    pub failed: Vec<AiFailed>,
}

/// A check a suggestion failed (`lorebook_ai::Failed`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case", tag = "code")]
pub enum AiFailed {
    Locked,
    Same,
    NoName,
    EmptyContent,
    NoFireOnSource,
    CutByBudget,
    OverSize { tokens: u32, max: u32 },
    Lint { codes: Vec<String> },
}

/// A review's finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct AiFindingView {
    pub kind: String,
    pub entries: Vec<String>,
    pub ids: Vec<u64>,
    pub note: String,
    /// What the preview says of it.
    pub preview: Option<AiVerdict>,
}

/// What the preview says of a finding (`lorebook_ai::Verdict`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum AiVerdict {
    /// It names entries, none of them in the book.
    NamesNoEntry,
    /// Each named entry and how many of the chat's `total` requests it
    /// activates in.
    Activations {
        total: u32,
        each: Vec<AiActivations>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct AiActivations {
    pub id: u64,
    pub name: String,
    pub requests: u32,
}

/// What an action gave.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct AiRunView {
    pub doc: u32,
    pub action: AiAction,
    pub suggestions: Vec<AiSuggestionView>,
    pub findings: Vec<AiFindingView>,
    pub prompt_tokens: u32,
    /// The chat's requests the checks ran over.
    pub chat_requests: u32,
    /// Requests made to the endpoint (the transcript's length).
    pub exchanges: u32,
}

/// What went wrong with the model's endpoint (`ErrorCode::Model`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum AiProblem {
    BadAddress,
    Unreachable,
    TimedOut,
    Stalled,
    Cancelled,
    WrongKey,
    Refused,
    ModelError,
    Malformed,
    Truncated,
    TooLarge,
    PromptTooLarge,
    Invalid,
    NotConfigured,
    Busy,
    NoRun,
    SecretStore,
}
