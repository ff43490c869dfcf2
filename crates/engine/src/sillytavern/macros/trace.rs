//! Where SillyTavern's macros decided something in an entry's text: which
//! branch an `{{if}}` took on what value, and which variables were read
//! (what the preview shows under "why in").

use std::fmt;

use serde::Serialize;

/// One decision, in the order the evaluation made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum MacroDecision {
    /// An `{{if}}`: its condition as written, what it evaluated to, and the
    /// branch taken.
    If {
        condition: String,
        value: String,
        branch: Branch,
    },
    /// A variable read: `.name` (the chat's) or `$name` (global), and its
    /// value, `None` when it is not set.
    Var {
        name: String,
        global: bool,
        value: Option<String>,
    },
}

/// Which part of an `{{if}}` was inserted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Branch {
    Then,
    Else,
    /// False, and no `{{else}}`: nothing.
    Nothing,
}

/// The most decisions kept for one text.
pub const MAX_DECISIONS: usize = 12;

impl fmt::Display for MacroDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MacroDecision::If {
                condition,
                value,
                branch,
            } => {
                let taken = match branch {
                    Branch::Then => "the first branch",
                    Branch::Else => "the {{else}} branch",
                    Branch::Nothing => "nothing",
                };
                write!(f, "{{{{if {condition}}}}} is \"{value}\": {taken}")
            }
            MacroDecision::Var {
                name,
                global,
                value,
            } => {
                let sigil = if *global { '$' } else { '.' };
                match value {
                    Some(v) => write!(f, "{sigil}{name} is \"{v}\""),
                    None => write!(f, "{sigil}{name} is not set"),
                }
            }
        }
    }
}
