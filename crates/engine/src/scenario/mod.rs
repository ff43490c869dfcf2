//! Scenarios (issue 21): a named chat, the rules and preview settings it
//! runs under, and what the author expects of it — entries that must be
//! injected (optionally at a request, a position, a depth), entries that
//! must not be, and limits on the budget. A book's scenarios make its
//! preview a regression suite: `lorebook test` runs them, the app lists
//! them with pass or fail.
//!
//! Stored with the book, in its extensions (`extensions.lorebook_studio
//! .scenarios`), so every format that carries a book's extensions carries
//! them (`docs/scenarios.md` says which do); a book without scenarios is
//! written exactly as before. Unknown fields of a scenario are kept.
//!
//! `run` answers through the profiles' seam (`crate::profile`), reading
//! only the common `Outcome`, so a scenario works under every rules.

mod run;

pub use run::{lint_rules, prepare, record, run, Failure, Verdict};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::Book;
use crate::profile::ProfileName;

/// The extension namespace the scenarios live in.
pub const NS: &str = "lorebook_studio";
/// Their key inside it.
pub const KEY: &str = "scenarios";

/// One scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    pub name: String,
    /// The chat, as its file or the chat box held it (any chat format the
    /// preview reads: plain `Name: text` lines, SillyTavern's `.jsonl`,
    /// OpenAI-style JSON).
    pub chat: String,
    #[serde(default = "studio")]
    pub rules: ProfileName,
    #[serde(default, skip_serializing_if = "Settings::is_empty")]
    pub settings: Settings,
    #[serde(default)]
    pub expect: Expect,
    /// Fields this version does not know, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn studio() -> ProfileName {
    ProfileName::Studio
}

/// The preview settings a scenario runs under; what is unset is the
/// default of its rules (the book's own scan depth and budget under the
/// guide's rules).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The model whose tokenizer counts (default: the rules' default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The seed of the probability rolls.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub seed: u64,
    /// Scan depth and token budget in place of the book's (the guide's
    /// rules) or RisuAI's settings' (RisuAI's rules).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan_depth: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<u32>,
    /// SillyTavern's `world_info_settings`, by SillyTavern's names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sillytavern: Option<Value>,
    /// `{{user}}` and `{{char}}` under SillyTavern's rules (default: the
    /// chat file's names, else `User` and `Character`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub char: Option<String>,
    /// SillyTavern's context size minus the response length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_context: Option<u32>,
    /// RisuAI's settings, by RisuAI's names (`loreBookDepth`,
    /// `loreBookToken`, `loreSettings`, `fmIndex`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risu: Option<Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Settings {
    fn is_empty(&self) -> bool {
        self == &Settings::default()
    }
}

/// What the author expects.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Expect {
    /// Entries that must be injected.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub injected: Vec<Expected>,
    /// Entries that must not be injected.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_injected: Vec<Expected>,
    /// No entry but those in `injected` may be injected at the requests
    /// they name (what recording sets).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exactly: bool,
    /// The budget used at most this many tokens (the last request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_used: Option<u32>,
    /// Nothing was cut by the budget (the last request).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nothing_cut: bool,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An entry and where it is expected.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Expected {
    /// The entry's id in the book.
    pub id: u64,
    /// Its name when the expectation was written, for messages when the
    /// entry is gone.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The request (1-based, request k sees the first k messages); unset:
    /// the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<usize>,
    /// The position in the rules' words (`before`, `at_depth`, `depth`, …);
    /// unset: any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<f64>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Adds `s` to `list`, in place of the scenario with its name if any
/// (names are unique within a book).
pub fn put(list: &mut Vec<Scenario>, s: Scenario) {
    match list.iter_mut().find(|x| x.name == s.name) {
        Some(x) => *x = s,
        None => list.push(s),
    }
}

/// The book's scenarios; an error names the one that cannot be read (the
/// book itself stays readable, and nothing in it is dropped).
pub fn of(book: &Book) -> Result<Vec<Scenario>, String> {
    let Some(list) = book.extensions.get(NS).and_then(|ns| ns.get(KEY)) else {
        return Ok(Vec::new());
    };
    let Value::Array(items) = list else {
        return Err(format!("extensions.{NS}.{KEY} is not a list"));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            Scenario::deserialize(v).map_err(|e| format!("extensions.{NS}.{KEY}[{i}]: {e}"))
        })
        .collect()
}

/// Stores `scenarios` in the book (none: the key is removed, and the
/// namespace too when nothing else is in it). Refused, changing nothing,
/// when the namespace holds something other than an object.
pub fn set(book: &mut Book, scenarios: &[Scenario]) -> Result<(), String> {
    if book.extensions.get(NS).is_some_and(|ns| !ns.is_object()) {
        return Err(format!(
            "extensions.{NS} is not an object; the scenarios were not stored"
        ));
    }
    if scenarios.is_empty() {
        if let Some(Value::Object(map)) = book.extensions.get_mut(NS) {
            map.remove(KEY);
            if map.is_empty() {
                book.extensions.remove(NS);
            }
        }
        return Ok(());
    }
    let list = scenarios
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    if let Value::Object(map) = book
        .extensions
        .entry(NS.to_string())
        .or_insert_with(|| Value::Object(Map::new()))
    {
        map.insert(KEY.to_string(), Value::Array(list));
    }
    Ok(())
}
