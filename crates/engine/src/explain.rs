//! Why each entry is in or out of a request: the result types of a preview.
//!
//! Every entry of every attached book appears in a [`RequestResult`] exactly
//! once: in `injected` (with how it activated) or in `dropped` (with the
//! reason). These types are serialized as-is for the CLI's `--json` and the
//! desktop app. They hold data, never sentences: the CLI words them in
//! English (the `Display` impls here), the app through its message catalog.

use std::fmt;

use serde::Serialize;

use crate::model::Role;
use crate::prompt::PromptMessage;

/// Where a key matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Source {
    /// A chat message, by its 0-based position in the chat.
    Message { index: usize },
    /// The body of an entry activated in an earlier pass.
    Entry { book: usize, id: u64 },
}

/// One key's match: which key, where, and the byte range of the matched text
/// in the message or in the source entry's body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct KeyMatch {
    pub key: String,
    pub source: Source,
    pub start: usize,
    pub end: usize,
    /// 0 for the chat scan, 1–3 for recursion passes.
    pub pass: u8,
}

/// How an entry activated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Activation {
    /// A constant entry: no key check.
    Constant,
    /// Kept by `@@keep` since the request it first matched in.
    Kept { since_request: usize },
    /// A primary key matched (and, if selective, the secondary logic held).
    Key {
        primary: KeyMatch,
        /// The secondary keys that matched, when the entry is selective.
        secondary: Vec<KeyMatch>,
    },
}

impl Activation {
    /// The pass it activated in.
    pub fn pass(&self) -> u8 {
        match self {
            Activation::Key { primary, .. } => primary.pass,
            _ => 0,
        }
    }
}

impl fmt::Display for KeyMatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.source {
            Source::Message { index } => write!(f, "key {:?} in message {}", self.key, index + 1),
            Source::Entry { book, id } => {
                write!(f, "key {:?} in the text of entry {book}:{id}", self.key)
            }
        }
    }
}

/// The activation in English, with messages counted from 1 and entries as
/// `book:id` (the CLI names them).
impl fmt::Display for Activation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Activation::Constant => f.write_str("constant"),
            Activation::Kept { since_request } => {
                write!(f, "kept by @@keep since request {since_request}")
            }
            Activation::Key { primary, secondary } => {
                write!(f, "{primary}")?;
                for m in secondary {
                    write!(f, "; secondary {m}")?;
                }
                Ok(())
            }
        }
    }
}

/// A probability roll: `roll` in 0–99 passes when below `chance`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Roll {
    pub roll: u8,
    pub chance: u8,
}

/// Why an entry is out of a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum DropReason {
    Disabled,
    /// A gate decorator kept it out.
    Gated {
        /// The decorator's name, e.g. `activate_only_after`.
        decorator: String,
        detail: GateDetail,
    },
    /// No primary key matched its window (nor, with recursion, a body).
    NoMatch {
        /// A key appears only in a body activated in the last pass, which
        /// recursion does not scan.
        recursion_stopped: bool,
        /// The entry has no usable primary key at all.
        no_keys: bool,
        /// A primary key the scan gave up on in a text within the entry's
        /// reach (the text's work budget ran out, `matcher::scan_budget`):
        /// it counts as not matching, though it might have matched.
        gave_up: Option<String>,
    },
    /// A primary key matched but the secondary logic failed.
    Secondary {
        logic: String,
        // Boxed, as are the activations below, so the reason every
        // dropped entry carries stays small: a request of a 100,000-entry
        // book lists 100,000 of them (issue 24).
        primary: Box<KeyMatch>,
        /// The secondary keys that did match.
        matched: Vec<KeyMatch>,
    },
    /// It activated but lost its probability roll.
    Probability {
        roll: u8,
        chance: u8,
        activation: Box<Activation>,
    },
    /// It activated but did not fit the token budget.
    Budget {
        needed: u32,
        left: u32,
        activation: Box<Activation>,
    },
}

/// Why a gate decorator kept an entry out of a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "code")]
pub enum GateDetail {
    /// `@@activate_only_after`: the history holds fewer than `needed`
    /// messages.
    TooFewMessages { needed: u64, has: usize },
    /// `@@activate_only_every`: the message count is not a multiple of
    /// `every`.
    NotAMultiple { has: usize, every: u64 },
    /// `@@is_greeting`: the chat already has a user message.
    UserHasSpoken,
    /// `@@dont_activate_after_match`: it matched in an earlier request.
    AlreadyMatched { request: usize },
}

impl GateDetail {
    /// The gate decorator that refuses for this reason.
    pub fn decorator(&self) -> &'static str {
        match self {
            GateDetail::TooFewMessages { .. } => "activate_only_after",
            GateDetail::NotAMultiple { .. } => "activate_only_every",
            GateDetail::UserHasSpoken => "is_greeting",
            GateDetail::AlreadyMatched { .. } => "dont_activate_after_match",
        }
    }
}

impl fmt::Display for GateDetail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GateDetail::TooFewMessages { needed, has } => {
                write!(f, "needs {needed} messages in the history; it has {has}")
            }
            GateDetail::NotAMultiple { has, every } => {
                write!(
                    f,
                    "the history has {has} messages, not a multiple of {every}"
                )
            }
            GateDetail::UserHasSpoken => f.write_str("the chat already has a user message"),
            GateDetail::AlreadyMatched { request } => {
                write!(f, "already matched in request {request}")
            }
        }
    }
}

/// A drop reason in English, for the CLI (the app words the same data
/// through its catalog). A budget cut names its numbers, not how the entry
/// activated: whoever shows it words the activation with its context.
impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DropReason::Disabled => f.write_str("disabled"),
            DropReason::Gated { decorator, detail } => {
                write!(f, "gated by @@{decorator}: {detail}")
            }
            DropReason::NoMatch { no_keys: true, .. } => {
                f.write_str("no match: the entry has no keys")
            }
            DropReason::NoMatch {
                gave_up: Some(key), ..
            } => write!(
                f,
                "no match: the scan gave up on key {key:?} (the text's matching work ran out, \
                 so it counts as not matching)"
            ),
            DropReason::NoMatch {
                recursion_stopped: true,
                ..
            } => f.write_str(
                "no match: its key is only in a body from the last recursion pass \
                 (recursion stopped)",
            ),
            DropReason::NoMatch { .. } => f.write_str("no match"),
            DropReason::Secondary { logic, matched, .. } => write!(
                f,
                "secondary logic {logic} failed ({} secondary key(s) matched)",
                matched.len()
            ),
            DropReason::Probability { roll, chance, .. } => {
                write!(f, "probability: rolled {roll}, needed below {chance}")
            }
            DropReason::Budget { needed, left, .. } => {
                write!(f, "budget: needs {needed} tokens, {left} left")
            }
        }
    }
}

/// The rule that left an entry out: [`DropReason`]'s `kind` tag as a
/// code of its own, for views that count or group dropped entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum DropReasonKind {
    Disabled,
    Gated,
    NoMatch,
    Secondary,
    Probability,
    Budget,
}

impl DropReasonKind {
    /// The code as the JSON output spells it (the `kind` tag of
    /// [`DropReason`]).
    pub fn as_str(self) -> &'static str {
        match self {
            DropReasonKind::Disabled => "disabled",
            DropReasonKind::Gated => "gated",
            DropReasonKind::NoMatch => "no_match",
            DropReasonKind::Secondary => "secondary",
            DropReasonKind::Probability => "probability",
            DropReasonKind::Budget => "budget",
        }
    }
}

impl DropReason {
    /// The rule, as a code.
    pub fn reason_kind(&self) -> DropReasonKind {
        match self {
            DropReason::Disabled => DropReasonKind::Disabled,
            DropReason::Gated { .. } => DropReasonKind::Gated,
            DropReason::NoMatch { .. } => DropReasonKind::NoMatch,
            DropReason::Secondary { .. } => DropReasonKind::Secondary,
            DropReason::Probability { .. } => DropReasonKind::Probability,
            DropReason::Budget { .. } => DropReasonKind::Budget,
        }
    }

    /// The `kind` tag as the JSON output spells it.
    pub fn kind(&self) -> &'static str {
        self.reason_kind().as_str()
    }
}

/// An entry that goes into the prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Injected {
    /// Position of the book among the attached books.
    pub book: usize,
    pub id: u64,
    /// Effective role, order and priority (decorators applied).
    pub role: Role,
    pub order: i64,
    pub priority: i64,
    pub tokens: u32,
    pub constant: bool,
    /// The roll it passed, when it has `@@probability`.
    pub roll: Option<Roll>,
    pub reason: Activation,
}

/// An entry left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Dropped {
    pub book: usize,
    pub id: u64,
    pub reason: DropReason,
}

/// Dropped entries a request counts instead of listing: those whose keys
/// matched nowhere (no key given up on, `NoMatch { gave_up: None, .. }`)
/// and the disabled ones. A request of a 100,000-entry book drops nearly
/// all of them; a caller that only counts them (`lorebook preview` without
/// `--list-unmatched`) has the request skip making them (issue 24).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Unlisted {
    pub no_match: u32,
    pub disabled: u32,
}

impl DropReason {
    /// Whether it is a plain drop, counted in [`Unlisted`] when the caller
    /// asks: no match with no key given up on, or disabled.
    pub fn is_plain(&self) -> bool {
        matches!(
            self,
            DropReason::NoMatch { gave_up: None, .. } | DropReason::Disabled
        )
    }
}

/// The budget of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BudgetUse {
    /// The largest `token_budget` of the attached books.
    pub limit: u32,
    /// Tokens of every kept entry.
    pub used: u32,
    /// Tokens of the kept constant entries.
    pub constants: u32,
    /// Constants alone exceed the limit: nothing else was kept.
    pub over_by_constants: bool,
    /// The first entry the budget dropped (the highest priority that did not
    /// fit): where the cut line falls.
    pub first_cut: Option<EntryKey>,
}

/// An entry of an attached book.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EntryKey {
    pub book: usize,
    pub id: u64,
}

/// Everything about one request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RequestResult {
    /// 1-based: request k sees the first k messages (0 = empty chat).
    pub request: usize,
    pub budget: BudgetUse,
    /// Kept entries, in placement order.
    pub injected: Vec<Injected>,
    /// Every other entry, sorted by book and then id (not by position in
    /// the book, so an incrementally edited preview keeps the same order as
    /// one built from scratch), but those counted in `unlisted`.
    pub dropped: Vec<Dropped>,
    /// The dropped entries counted rather than listed: none unless the
    /// preview was asked to ([`crate::preview::Preview::count_plain_drops`]).
    pub unlisted: Unlisted,
    /// The messages the model receives.
    pub messages: Vec<PromptMessage>,
    /// How many recursion passes ran (0 when recursion is off).
    pub passes: u8,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request lists every entry it drops (100,000 for the biggest
    /// books, per request of a log): the rare large parts of a reason are
    /// boxed so each stays small (BENCHMARKS.md, issue 24).
    #[test]
    fn a_dropped_entry_stays_small() {
        assert!(std::mem::size_of::<Dropped>() <= 72);
    }
    use serde_json::json;

    #[test]
    fn gate_details_are_codes_with_an_english_wording() {
        let cases = [
            (
                GateDetail::TooFewMessages { needed: 4, has: 2 },
                "activate_only_after",
                json!({"code": "too_few_messages", "needed": 4, "has": 2}),
                "needs 4 messages in the history; it has 2",
            ),
            (
                GateDetail::NotAMultiple { has: 5, every: 3 },
                "activate_only_every",
                json!({"code": "not_a_multiple", "has": 5, "every": 3}),
                "the history has 5 messages, not a multiple of 3",
            ),
            (
                GateDetail::UserHasSpoken,
                "is_greeting",
                json!({"code": "user_has_spoken"}),
                "the chat already has a user message",
            ),
            (
                GateDetail::AlreadyMatched { request: 2 },
                "dont_activate_after_match",
                json!({"code": "already_matched", "request": 2}),
                "already matched in request 2",
            ),
        ];
        for (detail, decorator, value, english) in cases {
            assert_eq!(detail.decorator(), decorator);
            assert_eq!(serde_json::to_value(&detail).unwrap(), value);
            assert_eq!(detail.to_string(), english);
        }
    }

    /// `DropReasonKind` is the `kind` tag the whole reason serializes with,
    /// for every reason: one spelling on both sides of the boundary.
    #[test]
    fn drop_reason_kind_is_the_reasons_own_tag() {
        let activation = Activation::Constant;
        let reasons = [
            DropReason::Disabled,
            DropReason::Gated {
                decorator: "activate_only_after".into(),
                detail: GateDetail::TooFewMessages { needed: 2, has: 1 },
            },
            DropReason::NoMatch {
                recursion_stopped: false,
                no_keys: true,
                gave_up: None,
            },
            DropReason::Secondary {
                logic: "and_any".into(),
                primary: Box::new(KeyMatch {
                    key: "moon".into(),
                    source: Source::Message { index: 0 },
                    start: 0,
                    end: 4,
                    pass: 0,
                }),
                matched: vec![],
            },
            DropReason::Probability {
                roll: 50,
                chance: 10,
                activation: Box::new(activation.clone()),
            },
            DropReason::Budget {
                needed: 9,
                left: 1,
                activation: Box::new(activation),
            },
        ];
        for r in reasons {
            let tag = serde_json::to_value(&r).unwrap()["kind"].clone();
            assert_eq!(serde_json::to_value(r.reason_kind()).unwrap(), tag);
            assert_eq!(r.kind(), tag.as_str().unwrap());
        }
    }
}
