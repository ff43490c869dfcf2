//! What a lint check reports: a [`Problem`] on one entry, with a stable
//! code and its parameters ([`Finding`]), a [`Severity`], the [`Span`] it
//! points at and, where one exists, a typed [`Fix`] the app can apply with
//! [`Fix::apply`]. English lives only in the `Display` impls of `wording.rs` (the CLI's
//! wording); the app words the codes through its catalog.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::decorators;
use crate::diagnostic::{ArgProblem, Severity};
use crate::model::Entry;

/// An entry of one of the linted books: its position among them and its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "LintEntryRef"))]
pub struct EntryRef {
    pub book: usize,
    pub id: u64,
}

impl fmt::Display for EntryRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}:{}]", self.book, self.id)
    }
}

/// What a problem points at inside its entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Span {
    /// The entry as a whole (its flags, its settings).
    Entry,
    /// Key `index` of `keys` (or of `secondary_keys`).
    Key { secondary: bool, index: usize },
    /// A byte range of the entry's `content` (a decorator line, the body).
    Content { start: usize, end: usize },
}

/// A change to the entry that removes the problem. Each keeps the rest of
/// the entry as it is; [`Fix::apply`] makes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Fix {
    /// Remove key `index` of `keys` (or of `secondary_keys`).
    RemoveKey {
        secondary: bool,
        index: usize,
    },
    /// Remove every secondary key.
    ClearSecondaryKeys,
    /// Remove every primary key.
    ClearKeys,
    SetSelective {
        value: bool,
    },
    /// Delete bytes `start..end` of the content (a decorator line with its
    /// line break).
    DeleteContent {
        start: usize,
        end: usize,
    },
    /// Replace bytes `start..end` of the content with `text`.
    ReplaceContent {
        start: usize,
        end: usize,
        text: String,
    },
}

impl Fix {
    /// Applies the fix to `e`. `false`, with `e` unchanged, when it no
    /// longer fits the entry (the key or the range is gone).
    pub fn apply(&self, e: &mut Entry) -> bool {
        let in_content = |start: usize, end: usize| {
            start <= end
                && end <= e.content.len()
                && e.content.is_char_boundary(start)
                && e.content.is_char_boundary(end)
        };
        match self {
            Fix::RemoveKey { secondary, index } => {
                let keys = if *secondary {
                    &mut e.secondary_keys
                } else {
                    &mut e.keys
                };
                if *index >= keys.len() {
                    return false;
                }
                keys.remove(*index);
            }
            Fix::ClearSecondaryKeys => e.secondary_keys.clear(),
            Fix::ClearKeys => e.keys.clear(),
            Fix::SetSelective { value } => e.selective = *value,
            Fix::DeleteContent { start, end } => {
                if !in_content(*start, *end) {
                    return false;
                }
                e.content.replace_range(*start..*end, "");
            }
            Fix::ReplaceContent { start, end, text } => {
                if !in_content(*start, *end) {
                    return false;
                }
                e.content.replace_range(*start..*end, text);
            }
        }
        true
    }
}

/// One problem on one entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Problem {
    pub entry: EntryRef,
    pub severity: Severity,
    pub span: Span,
    /// The code (serde tag `code`) and its parameters.
    #[serde(flatten)]
    pub finding: Finding,
    pub fix: Option<Fix>,
}

impl Problem {
    /// The stable code, e.g. `duplicate_key`.
    pub fn code(&self) -> &'static str {
        self.finding.code()
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.finding.fmt(f)
    }
}

/// Why a key can never match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum NeverReason {
    /// Empty (for the studio rules: after trimming): the rules ignore it.
    ///
    /// Neither rule set has a whole-word key that can never pass its
    /// boundary test (both test a boundary only where the text could
    /// break the word: the studio rules only beside a word character of
    /// the key, SillyTavern's beside any edge, which a space or the text's
    /// end always passes), nor a case-sensitive key compared with folded
    /// text, so those never-matching keys do not occur (docs/lint.md).
    Empty,
    /// RisuAI: a whole-word key holding a space, compared with a text
    /// split on spaces.
    SpaceInFullWord,
    /// RisuAI: a regex key without a leading slash ends the entry's whole
    /// regex search there.
    RegexNoSlash,
    /// RisuAI: a regex key with nothing after its last slash is skipped.
    RegexNoFlags,
    /// RisuAI: a key with a comma, which its comma-separated key field splits.
    SplitAtComma,
}

/// Why a key matches (nearly) everywhere.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum CommonReason {
    /// Matched in `matched` of the loaded chat's `messages` messages.
    Chat {
        matched: usize,
        messages: usize,
    },
    SingleLetter,
    /// One of the book language's most common words (`en`, `pt`).
    StopWord {
        language: String,
    },
    /// Under three characters with whole words off: it matches inside words.
    Short,
    /// Only whitespace: SillyTavern trims it to nothing after its emptiness
    /// test, and the empty key then matches every text.
    Whitespace,
}

/// Why two decorators of one entry cannot both work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum Contradiction {
    /// `@@dont_activate_after_match` gates the entry before `@@keep` can
    /// hold it, so `@@keep` never applies.
    KeepGated,
    /// SillyTavern tests `@@activate` first, so `@@dont_activate` never
    /// applies.
    ActivateWins,
    /// No request of the loaded chat (1…`messages`) satisfies the gates.
    NoRequest { messages: usize },
}

/// Why a decorator changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum NoEffectReason {
    /// A decorator of other rules (`studio` or `sillytavern`) that the rules
    /// in use ignore.
    OtherRules { rules: String },
    /// Given again on a later line, which wins.
    Repeated { winner: usize },
    /// Constant entries neither scan nor need holding.
    Constant,
    /// A `@@@` fallback with no decorator line before it to replace.
    LoneFallback,
    /// RisuAI parses it and ignores it.
    RisuIgnores,
    /// RisuAI skips an entry with an empty key before its decorators.
    NoKey,
}

/// What a key shared by several entries does that the author may not
/// mean: the evidence that makes a `duplicate_key` a warning (without it,
/// sharing a key is how facets of one subject are written: a hint).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum DuplicateEffect {
    /// Entry `other`, brought in by the same key, says the same: its body
    /// equals this one's or holds it whole (or this one holds it).
    SameText { other: EntryRef },
    /// They share inclusion group `group`: whenever the key matches, only
    /// one of them is inserted.
    SameGroup { group: String },
    /// In the loaded chat's log the key brought this entry in `requests`
    /// times, and the budget cut it every time.
    AlwaysCut { requests: usize },
}

/// The code of a problem and its parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "code")]
pub enum Finding {
    KeyNeverMatches {
        key: String,
        reason: NeverReason,
    },
    /// The pattern does not compile; `plain` when the rules then match the
    /// key as plain text (SillyTavern) instead of never.
    RegexInvalid {
        key: String,
        error: String,
        plain: bool,
    },
    RegexMatchesEmpty {
        key: String,
    },
    /// RisuAI 460ecae rewrites the regex key before compiling it (a bug):
    /// it searches for `pattern` instead.
    RegexRewritten {
        key: String,
        pattern: String,
    },
    KeyTooCommon {
        key: String,
        #[serde(flatten)]
        reason: CommonReason,
    },
    /// The same key (after the rules' folding) on other entries; `more`
    /// counts the ones past those listed.
    DuplicateKey {
        key: String,
        others: Vec<EntryRef>,
        more: usize,
        /// What sharing it does, when that is a problem (a warning).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        effect: Option<DuplicateEffect>,
    },
    /// The key contains `other_key` of entry `other`, so that entry fires
    /// whenever this key matches.
    KeyContainsOther {
        key: String,
        other: EntryRef,
        other_key: String,
    },
    /// Secondary keys on an entry that is not selective: never tested.
    SecondaryUnused {
        count: usize,
    },
    /// Keys on a constant entry: never tested.
    ConstantWithKeys {
        count: usize,
    },
    SelectiveWithoutSecondary,
    /// An enabled, non-constant entry without a usable key never activates.
    NoKeys,
    DecoratorUnknown {
        name: String,
    },
    DecoratorBadArgument {
        decorator: String,
        problem: ArgProblem,
    },
    DecoratorContradictory {
        first: String,
        second: String,
        #[serde(flatten)]
        reason: Contradiction,
    },
    DecoratorNoEffect {
        decorator: String,
        #[serde(flatten)]
        reason: NoEffectReason,
    },
    /// `assumed`: the budget is the rules' default, not one the author
    /// gave (no SillyTavern settings or context size, no RisuAI
    /// settings): at most a warning.
    EntryOverBudget {
        tokens: u32,
        budget: u32,
        #[serde(default)]
        assumed: bool,
    },
    /// The constant entries (`count` of them) take `tokens` of `budget`.
    ConstantsOverBudget {
        tokens: u32,
        budget: u32,
        count: usize,
        #[serde(default)]
        assumed: bool,
    },
    /// The entries that always outrank it (`constants` tokens) leave less
    /// than its `tokens` of `budget`.
    NeverSurvives {
        tokens: u32,
        constants: u32,
        budget: u32,
        #[serde(default)]
        assumed: bool,
    },
    /// Entries whose bodies name each other. Each activates at most once,
    /// so a loop alone changes nothing (a hint); `dead` when each of them
    /// waits for recursion and only the others name it: none ever
    /// activates (a warning).
    RecursionLoop {
        cycle: Vec<EntryRef>,
        #[serde(default)]
        dead: bool,
    },
    /// A chain of entries activating each other longer than `limit`
    /// passes: the last ones are never reached through it.
    RecursionTooDeep {
        chain: Vec<EntryRef>,
        limit: u32,
    },
    ContentEmpty,
    /// SillyTavern's macro engine (`engine`) leaves `text` in the key or
    /// the content as written.
    MacroAsText {
        text: String,
        reason: crate::sillytavern::macros::check::MacroLeft,
        engine: crate::sillytavern::macros::MacroEngine,
    },
    ContentDuplicate {
        others: Vec<EntryRef>,
        more: usize,
    },
    NameDuplicate {
        name: String,
        others: Vec<EntryRef>,
        more: usize,
    },
}

/// Every code, in the order of docs/lint.md.
pub const CODES: &[&str] = &[
    "key_never_matches",
    "regex_invalid",
    "regex_matches_empty",
    "regex_rewritten",
    "key_too_common",
    "duplicate_key",
    "key_contains_other",
    "secondary_unused",
    "constant_with_keys",
    "selective_without_secondary",
    "no_keys",
    "decorator_unknown",
    "decorator_bad_argument",
    "decorator_contradictory",
    "decorator_no_effect",
    "entry_over_budget",
    "constants_over_budget",
    "never_survives",
    "recursion_loop",
    "recursion_too_deep",
    "content_empty",
    "macro_as_text",
    "content_duplicate",
    "name_duplicate",
];

impl Finding {
    /// The stable code (the serde tag).
    pub fn code(&self) -> &'static str {
        match self {
            Finding::KeyNeverMatches { .. } => "key_never_matches",
            Finding::RegexInvalid { .. } => "regex_invalid",
            Finding::RegexMatchesEmpty { .. } => "regex_matches_empty",
            Finding::RegexRewritten { .. } => "regex_rewritten",
            Finding::KeyTooCommon { .. } => "key_too_common",
            Finding::DuplicateKey { .. } => "duplicate_key",
            Finding::KeyContainsOther { .. } => "key_contains_other",
            Finding::SecondaryUnused { .. } => "secondary_unused",
            Finding::ConstantWithKeys { .. } => "constant_with_keys",
            Finding::SelectiveWithoutSecondary => "selective_without_secondary",
            Finding::NoKeys => "no_keys",
            Finding::DecoratorUnknown { .. } => "decorator_unknown",
            Finding::DecoratorBadArgument { .. } => "decorator_bad_argument",
            Finding::DecoratorContradictory { .. } => "decorator_contradictory",
            Finding::DecoratorNoEffect { .. } => "decorator_no_effect",
            Finding::EntryOverBudget { .. } => "entry_over_budget",
            Finding::ConstantsOverBudget { .. } => "constants_over_budget",
            Finding::NeverSurvives { .. } => "never_survives",
            Finding::RecursionLoop { .. } => "recursion_loop",
            Finding::RecursionTooDeep { .. } => "recursion_too_deep",
            Finding::ContentEmpty => "content_empty",
            Finding::MacroAsText { .. } => "macro_as_text",
            Finding::ContentDuplicate { .. } => "content_duplicate",
            Finding::NameDuplicate { .. } => "name_duplicate",
        }
    }
}

/// The byte range of decorator line `l` with its line break, for deleting.
pub(crate) fn line_with_break(content: &str, l: &decorators::DecoratorLine) -> (usize, usize) {
    let rest = &content[l.end..];
    let end = if rest.starts_with("\r\n") {
        l.end + 2
    } else if rest.starts_with('\n') {
        l.end + 1
    } else {
        l.end
    };
    (l.start, end)
}
