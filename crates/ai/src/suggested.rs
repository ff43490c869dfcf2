//! What an action's answer is made of, shared by the actions, the
//! reading of answers and the checks: the entry as the model proposes
//! it, a review's finding, and what the preview says of a finding.

use serde::{Deserialize, Serialize};

use lorebook_engine::model::{Book, Entry};

/// An entry as the model proposes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Draft {
    pub name: String,
    pub keys: Vec<String>,
    pub secondary_keys: Vec<String>,
    pub content: String,
}

/// The kinds of review finding.
pub const FINDING_KINDS: [&str; 4] = ["contradiction", "too_broad", "never_fires", "missing_fact"];

/// One finding of a review, its entries named and found in the book.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub kind: String,
    /// The names the model gave.
    pub entries: Vec<String>,
    /// The entries of the book those names are.
    pub ids: Vec<u64>,
    pub note: String,
    /// What the preview says about the finding, where it can tell.
    pub preview: Option<Verdict>,
}

/// What the preview says about a review finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Verdict {
    /// The finding names entries, none of them in the book.
    NamesNoEntry,
    /// Each named entry (its id and name) and how many of the chat's
    /// `total` requests it activates in.
    Activations {
        total: usize,
        each: Vec<(u64, String, usize)>,
    },
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::NamesNoEntry => f.write_str("the finding names no entry of the book"),
            Verdict::Activations { total, each } => {
                let said: Vec<String> = each
                    .iter()
                    .map(|(_, name, n)| {
                        format!("{name:?} activates in {n} of the chat's {total} requests")
                    })
                    .collect();
                f.write_str(&said.join("; "))
            }
        }
    }
}

/// The entry of `book` called `name` (ignoring case and blanks around).
pub(crate) fn named<'a>(book: &'a Book, name: &str) -> Option<&'a Entry> {
    let name = name.trim();
    book.entries
        .iter()
        .filter(|e| !e.folder)
        .find(|e| e.display_name().trim().eq_ignore_ascii_case(name))
}
