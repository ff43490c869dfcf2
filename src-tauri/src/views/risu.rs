//! The preview and its settings under RisuAI's rules.

use lorebook_engine::risu::{RisuDrop, RisuWhy};

use super::*;

/// RisuAI's lorebook settings, by the names of RisuAI's own panel (the
/// character's `loreSettings`, else the global depth and budget).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RisuSettingsView {
    /// Messages scanned (RisuAI's default 5).
    pub scan_depth: f64,
    /// Token budget (RisuAI's default 800).
    pub token_budget: f64,
    /// Recursive scanning (on by default).
    pub recursive: bool,
    /// Whole-word matching (off by default: keys match inside words).
    pub full_word: bool,
    /// The greeting in use for `@@is_greeting`: −1 the first message, k
    /// the alternate greeting k (RisuAI's `fmIndex`).
    pub fm_index: i64,
    /// The RisuAI whose rules apply where versions differ: `2026` (the
    /// 2026 mainline: the budget counts CBS-evaluated bodies) or
    /// `460ecae`.
    #[serde(default = "default_version")]
    pub version: String,
    /// What CBS reads, by RisuAI's names: `username`, the character's
    /// `name`, `nickname` and `defaultVariables`, the chat's variables
    /// (`scriptstate`, shown without RisuAI's `$`), the global ones and
    /// `templateDefaultVariables`.
    #[serde(default = "default_user")]
    pub username: String,
    #[serde(default = "default_char")]
    pub char_name: String,
    #[serde(default)]
    pub char_nickname: String,
    #[serde(default)]
    pub default_variables: String,
    #[serde(default)]
    pub template_default_variables: String,
    #[serde(default)]
    pub chat_variables: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    pub global_variables: std::collections::BTreeMap<String, String>,
}

fn default_version() -> String {
    lorebook_engine::risu::RisuVersion::default()
        .as_str()
        .to_string()
}

fn default_user() -> String {
    lorebook_engine::risu::cbs::CbsInputs::default().username
}

fn default_char() -> String {
    lorebook_engine::risu::cbs::CbsInputs::default().char_name
}

/// One entry injected under RisuAI's rules, in RisuAI's final order.
#[derive(Debug, Clone, Serialize, TS)]
pub struct RisuInjectedView {
    pub book: u32,
    pub id: u64,
    pub name: String,
    /// `lorebook`, `depth`, `reverse_depth`, `before_desc`, `after_desc`,
    /// `personality`, `scenario`, `pt_<name>` or `inject_at <location>`.
    pub position: String,
    /// For `depth` and `reverse_depth`.
    pub depth: Option<f64>,
    pub role: Role,
    /// `insertorder`.
    pub order: f64,
    /// The budget's rank (`@@priority`, else `insertorder`).
    pub priority: f64,
    pub tokens: u32,
    /// The pass it activated in (1: the chat).
    pub pass: u32,
    pub why: RisuWhy,
    /// What RisuAI sends for it when that is not its body as written (CBS
    /// evaluated, `{{position::name}}` filled in).
    pub sent: Option<String>,
}

/// One entry left out under RisuAI's rules, with the rule that left it out.
#[derive(Debug, Clone, Serialize, TS)]
pub struct RisuDroppedView {
    pub book: u32,
    pub id: u64,
    pub name: String,
    pub why: RisuDrop,
}

/// The entry whose `@@position` line has no value: RisuAI's prompt build
/// fails on it.
#[derive(Debug, Clone, Serialize, TS)]
pub struct RisuFailureView {
    pub book: u32,
    pub id: u64,
    pub name: String,
}

/// A request under RisuAI's rules.
#[derive(Debug, Clone, Serialize, TS)]
pub struct RisuPreviewView {
    pub books: Vec<AttachedBook>,
    /// The request shown (messages it sees) and how many there are.
    pub request: u32,
    pub requests: u32,
    pub budget: f64,
    pub used: u32,
    pub passes: u32,
    pub injected: Vec<RisuInjectedView>,
    /// Everything left out but the entries whose keys were not found.
    pub dropped: Vec<RisuDroppedView>,
    /// Entries whose keys were not found anywhere (counted, not listed).
    pub unmatched: u32,
    /// Left-out entries past the first `SHOWN_PER_KIND` of a reason
    /// (counted, not listed).
    pub more: u32,
    pub failure: Option<RisuFailureView>,
    /// The final prompt RisuAI sends (without a prompt template), only
    /// when asked for (its panel is open).
    pub prompt: Option<RisuPromptView>,
}

/// RisuAI's final prompt of the request shown: its messages, and the
/// injected entries it has no place for without a prompt template.
#[derive(Debug, Clone, Serialize, TS)]
pub struct RisuPromptView {
    pub messages: Vec<lorebook_engine::risu::prompt::RisuPromptMessage>,
    pub absent: Vec<RisuAbsentView>,
}

/// An injected entry that is nowhere in the prompt, and its position.
#[derive(Debug, Clone, Serialize, TS)]
pub struct RisuAbsentView {
    pub book: u32,
    pub id: u64,
    pub name: String,
    pub position: String,
}
