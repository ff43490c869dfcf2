//! Why an entry is in or out under RisuAI's rules: codes with parameters,
//! each naming the RisuAI rule that applied (English only in `Display`).

use std::fmt;

use serde::Serialize;

use super::matching::RegexEnd;

/// Where a matched key was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Found {
    /// In chat message `n` (1-based).
    Message { n: usize },
    /// In the body of an activated entry (recursion).
    Entry { name: String },
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Message { n } => write!(f, "message {n}"),
            Found::Entry { name } => write!(f, "the text of entry '{name}' (recursion)"),
        }
    }
}

/// Why an entry activated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RisuWhy {
    /// `alwaysActive`: no key search.
    Always,
    /// `@@activate`, which overrides every other check.
    Forced,
    /// `@@keep_activate_after_match`: it activated in an earlier request of
    /// this chat.
    Kept,
    /// A primary key matched (with every other key query satisfied).
    Key { key: String, found: Found },
    /// A `child` entry standing in for its parent.
    Child,
}

impl fmt::Display for RisuWhy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RisuWhy::Always => f.write_str("always active"),
            RisuWhy::Forced => f.write_str("@@activate"),
            RisuWhy::Kept => {
                f.write_str("@@keep_activate_after_match: it activated earlier in this chat")
            }
            RisuWhy::Key { key, found } => write!(f, "key '{key}' in {found}"),
            RisuWhy::Child => f.write_str("child entry standing in for its parent"),
        }
    }
}

/// Why an entry is not in the result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RisuDrop {
    /// No key and not always active: RisuAI skips it before reading its
    /// decorators (so `@@activate` cannot rescue it).
    EmptyKey,
    /// No primary key in the scanned texts.
    NoMatch,
    /// The regex search (useRegex) gave up or found nothing.
    Regex { end: RegexEnd },
    /// `selective` and no secondary key in the scanned texts.
    Secondary,
    /// An `@@additional_keys` line had none of its keys.
    Additional { line: usize },
    /// An `@@exclude_keys` key was found.
    Excluded { key: String, found: Found },
    /// Every `@@exclude_keys_all` key was in every scanned text.
    ExcludedAll { line: usize },
    /// `@@activate_only_after N` and the chat length (messages + 1) is less.
    OnlyAfter { n: f64, length: usize },
    /// `@@activate_only_every N` and the chat length is not a multiple.
    OnlyEvery { n: f64, length: usize },
    /// `@@is_greeting N` and the greeting in use is not N.
    Greeting { n: f64, greeting: i64 },
    /// `@@probability P` and the roll was above P.
    Probability { percent: f64, roll: f64 },
    /// `@@dont_activate`.
    ForcedOff,
    /// `@@dont_activate_after_match`: it activated in an earlier request.
    NotAgain,
    /// A `child` entry whose parent is missing or already active.
    Child,
    /// Cut by the budget, applied after every pass.
    Budget { tokens: u32, left: u32 },
    /// Its text went into another entry (`@@inject_lore`).
    InjectedInto { target: String },
    /// `@@inject_lore` names an entry that is not in the result: its text
    /// is lost.
    InjectLost { target: String },
    /// `@@depth` below 0: RisuAI places it nowhere.
    NegativeDepth { depth: f64 },
    /// An inject decorator without a place (`@@inject_replace` or
    /// `@@inject_prepend` alone): RisuAI places it nowhere.
    NoInjectPlace,
    /// RisuAI's prompt build fails (see the request's failure).
    Failed,
}

fn num(n: f64) -> String {
    if n.is_nan() {
        "NaN".into()
    } else {
        format!("{n}")
    }
}

impl fmt::Display for RisuDrop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RisuDrop::EmptyKey => f.write_str(
                "no key and not always active: RisuAI skips it before reading its decorators",
            ),
            RisuDrop::NoMatch => f.write_str("no key matched the scanned messages"),
            RisuDrop::Regex { end } => match end {
                RegexEnd::NoSlash => f.write_str(
                    "regex keys: a key without a leading '/' makes RisuAI 460ecae give up on the whole search",
                ),
                RegexEnd::Invalid => f.write_str(
                    "regex keys: RisuAI 460ecae rewrites the key as it searches and the result does not compile (a known RisuAI bug)",
                ),
                RegexEnd::NoMatch | RegexEnd::Matched { .. } => f.write_str(
                    "regex keys: no match as RisuAI 460ecae tests them (the leading '/' stays in the pattern, keys without flags are never tested)",
                ),
            },
            RisuDrop::Secondary => f.write_str("selective: no secondary key matched"),
            RisuDrop::Additional { line } => {
                write!(f, "@@additional_keys (line {line}): none of its keys matched")
            }
            RisuDrop::Excluded { key, found } => {
                write!(f, "@@exclude_keys: '{key}' is in {found}")
            }
            RisuDrop::ExcludedAll { line } => write!(
                f,
                "@@exclude_keys_all (line {line}): every key is in every scanned text"
            ),
            RisuDrop::OnlyAfter { n, length } => write!(
                f,
                "@@activate_only_after {}: the chat length is {length} (messages + 1)",
                num(*n)
            ),
            RisuDrop::OnlyEvery { n, length } => write!(
                f,
                "@@activate_only_every {}: the chat length {length} (messages + 1) is not a multiple",
                num(*n)
            ),
            RisuDrop::Greeting { n, greeting } => write!(
                f,
                "@@is_greeting {}: the greeting in use is {greeting}",
                num(*n)
            ),
            RisuDrop::Probability { percent, roll } => write!(
                f,
                "@@probability {}: rolled {roll:.1}",
                num(*percent)
            ),
            RisuDrop::ForcedOff => f.write_str("@@dont_activate"),
            RisuDrop::NotAgain => f.write_str(
                "@@dont_activate_after_match: it activated earlier in this chat",
            ),
            RisuDrop::Child => f.write_str("child entry: its parent is missing or already active"),
            RisuDrop::Budget { tokens, left } => write!(
                f,
                "cut by the budget: {tokens} tokens needed, {left} left"
            ),
            RisuDrop::InjectedInto { target } => {
                write!(f, "@@inject_lore: its text went into '{target}'")
            }
            RisuDrop::InjectLost { target } => write!(
                f,
                "@@inject_lore: '{target}' is not in the result, so its text is lost"
            ),
            RisuDrop::NegativeDepth { depth } => write!(
                f,
                "@@depth {}: below 0, RisuAI places it nowhere",
                num(*depth)
            ),
            RisuDrop::NoInjectPlace => f.write_str(
                "@@inject_replace / @@inject_prepend without @@inject_at or @@inject_lore: RisuAI places it nowhere",
            ),
            RisuDrop::Failed => f.write_str("RisuAI's prompt build fails on this request"),
        }
    }
}
