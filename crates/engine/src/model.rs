//! The book and entry model of SPEC §1–2.
//!
//! The model is what the engine reasons about; file formats (see
//! [`crate::formats`]) translate between it and bytes. Fields a format has
//! that the model does not own are kept in [`Book::extra`] / [`Entry::extra`]
//! (the file's own unknown keys) and in `extensions` (the documented
//! extension bag), so nothing is lost on a round trip.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The extensions key under which this editor keeps what is its own in a
/// book or entry (a lock, the records of the source formats).
pub const STUDIO_KEY: &str = "lorebook_studio";

/// A book setting brought into its range ([`Book::clamp_settings`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clamped {
    pub field: String,
    pub value: u64,
    pub min: u64,
    pub max: u64,
    pub clamped: u64,
}

/// A JSON object whose key order is preserved.
pub type Object = Map<String, Value>;

/// Inclusive range of [`Book::scan_depth`].
pub const SCAN_DEPTH_RANGE: (u32, u32) = (0, 100);
/// Inclusive range of [`Book::token_budget`].
pub const TOKEN_BUDGET_RANGE: (u32, u32) = (100, 32000);
/// Default [`Book::scan_depth`].
pub const DEFAULT_SCAN_DEPTH: u32 = 4;
/// Default [`Book::token_budget`].
pub const DEFAULT_TOKEN_BUDGET: u32 = 800;
/// Default [`Entry::order`] and [`Entry::priority`].
pub const DEFAULT_ORDER: i64 = 100;
/// The largest entry id: 2^53 − 1, the largest integer a JavaScript number
/// (the webview's) holds exactly. Ids cross the IPC boundary as numbers, so
/// importers give an entry whose id is above it (or negative, fractional, a
/// string that is not such a number) a fresh id and keep the source's
/// spelling for export (docs/semantics.md, "Entry ids").
pub const MAX_ID: u64 = (1 << 53) - 1;

/// A lorebook: entries plus scan settings (SPEC §1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default)]
pub struct Book {
    pub name: String,
    pub description: String,
    /// How many of the most recent messages are scanned (0–100).
    pub scan_depth: u32,
    /// Ceiling in tokens for all injected entries together (100–32000).
    pub token_budget: u32,
    /// Whether activated entries' bodies are scanned again (≤ 3 extra passes).
    pub recursive_scanning: bool,
    pub entries: Vec<Entry>,
    /// Kept verbatim on every save, import and export.
    pub extensions: Object,
    /// Fields of the file's book object that the model does not own.
    pub extra: Object,
    /// Fields of the file's outer wrapper (beside `spec` and `data`).
    pub wrapper_extra: Object,
}

impl Default for Book {
    fn default() -> Self {
        Book {
            name: String::new(),
            description: String::new(),
            scan_depth: DEFAULT_SCAN_DEPTH,
            token_budget: DEFAULT_TOKEN_BUDGET,
            recursive_scanning: false,
            entries: Vec::new(),
            extensions: Object::new(),
            extra: Object::new(),
            wrapper_extra: Object::new(),
        }
    }
}

impl Book {
    /// The next free entry id: one more than the largest id in use, or,
    /// when that would pass [`MAX_ID`], the smallest id not in use (ids
    /// never wrap and never collide).
    pub fn next_id(&self) -> u64 {
        self.fresh_ids(1)[0]
    }

    /// `n` distinct ids not in use, chosen as [`Book::next_id`] chooses one.
    pub fn fresh_ids(&self, n: usize) -> Vec<u64> {
        let used: std::collections::HashSet<u64> = self.entries.iter().map(|e| e.id).collect();
        let mut next = self
            .entries
            .iter()
            .map(|e| e.id)
            .filter(|&id| id <= MAX_ID)
            .max()
            .map_or(0, |m| m + 1);
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            if next > MAX_ID {
                next = 0;
            }
            if !used.contains(&next) {
                out.push(next);
            }
            next += 1;
        }
        out
    }

    /// Adds a new entry with editor defaults and a fresh id; returns its id.
    pub fn add_entry(&mut self, mut entry: Entry) -> u64 {
        entry.id = self.next_id();
        let id = entry.id;
        self.entries.push(entry);
        id
    }

    /// Finds an entry by id.
    pub fn entry(&self, id: u64) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// Clamps the scan settings to their SPEC ranges; returns each value
    /// that was changed, for import reports.
    pub fn clamp_settings(&mut self) -> Vec<Clamped> {
        let mut notes = Vec::new();
        for (field, value, (lo, hi)) in [
            ("scan_depth", &mut self.scan_depth, SCAN_DEPTH_RANGE),
            ("token_budget", &mut self.token_budget, TOKEN_BUDGET_RANGE),
        ] {
            if !(lo..=hi).contains(value) {
                let clamped = (*value).clamp(lo, hi);
                notes.push(Clamped {
                    field: field.into(),
                    value: u64::from(*value),
                    min: u64::from(lo),
                    max: u64::from(hi),
                    clamped: u64::from(clamped),
                });
                *value = clamped;
            }
        }
        notes
    }
}

/// How secondary keys combine with the primary match (SPEC §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum SecondaryLogic {
    /// Any secondary key matches (the guide's rule).
    #[default]
    AndAny,
    /// Every secondary key matches.
    AndAll,
    /// No secondary key matches.
    NotAny,
    /// At least one secondary key does not match.
    NotAll,
}

impl SecondaryLogic {
    /// SillyTavern's `selectiveLogic` number.
    pub fn to_st(self) -> u8 {
        match self {
            SecondaryLogic::AndAny => 0,
            SecondaryLogic::NotAll => 1,
            SecondaryLogic::NotAny => 2,
            SecondaryLogic::AndAll => 3,
        }
    }

    /// Reads SillyTavern's `selectiveLogic` number.
    pub fn from_st(n: u64) -> Option<Self> {
        Some(match n {
            0 => SecondaryLogic::AndAny,
            1 => SecondaryLogic::NotAll,
            2 => SecondaryLogic::NotAny,
            3 => SecondaryLogic::AndAll,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SecondaryLogic::AndAny => "and_any",
            SecondaryLogic::AndAll => "and_all",
            SecondaryLogic::NotAny => "not_any",
            SecondaryLogic::NotAll => "not_all",
        }
    }
}

/// The role of the message an entry becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    #[default]
    System,
    User,
    Assistant,
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Role {
    /// SillyTavern's numeric role (0 system, 1 user, 2 assistant).
    pub fn to_st(self) -> u8 {
        match self {
            Role::System => 0,
            Role::User => 1,
            Role::Assistant => 2,
        }
    }

    pub fn from_st(n: u64) -> Option<Self> {
        Some(match n {
            0 => Role::System,
            1 => Role::User,
            2 => Role::Assistant,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "system" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            _ => return None,
        })
    }
}

/// One lorebook entry (SPEC §2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default)]
pub struct Entry {
    /// Unique inside its book, stable across saves.
    pub id: u64,
    /// Display name for the editor; never sent to the model.
    pub comment: String,
    pub keys: Vec<String>,
    pub secondary_keys: Vec<String>,
    pub selective: bool,
    pub secondary_logic: SecondaryLogic,
    pub constant: bool,
    pub enabled: bool,
    pub whole_words: bool,
    pub case_sensitive: bool,
    pub use_regex: bool,
    /// Placement: higher appears earlier in the prompt.
    pub order: i64,
    /// Budget: higher is kept first.
    pub priority: i64,
    pub role: Role,
    /// Decorator lines, then the injected body.
    pub content: String,
    /// Kept verbatim.
    pub extensions: Object,
    /// Fields of the file's entry object that the model does not own.
    pub extra: Object,
    /// A folder: it holds entries and never activates under the guide's or
    /// SillyTavern's rules (see [`crate::folders`]).
    pub folder: bool,
    /// The id of the folder this entry is in; `None` at the top.
    pub parent: Option<u64>,
}

impl Default for Entry {
    /// An entry as the editor creates it (whole words on).
    fn default() -> Self {
        Entry {
            id: 0,
            comment: String::new(),
            keys: Vec::new(),
            secondary_keys: Vec::new(),
            selective: false,
            secondary_logic: SecondaryLogic::AndAny,
            constant: false,
            enabled: true,
            whole_words: true,
            case_sensitive: false,
            use_regex: false,
            order: DEFAULT_ORDER,
            priority: DEFAULT_ORDER,
            role: Role::System,
            content: String::new(),
            extensions: Object::new(),
            extra: Object::new(),
            folder: false,
            parent: None,
        }
    }
}

impl Entry {
    /// Locked by its author: no AI action changes it (`lorebook ai`,
    /// docs/ai.md). Kept in the entry's extensions, under
    /// `lorebook_studio.locked`, so it travels with the book.
    pub fn locked(&self) -> bool {
        self.extensions
            .get(STUDIO_KEY)
            .and_then(|v| v.get("locked"))
            .and_then(Value::as_bool)
            == Some(true)
    }

    /// Locks or unlocks the entry (see [`Entry::locked`]).
    pub fn set_locked(&mut self, on: bool) {
        let ns = self
            .extensions
            .entry(STUDIO_KEY)
            .or_insert_with(|| Value::Object(Map::new()));
        if !ns.is_object() {
            *ns = Value::Object(Map::new());
        }
        let o = ns.as_object_mut().expect("an object");
        if on {
            o.insert("locked".into(), Value::Bool(true));
        } else {
            o.remove("locked");
            if o.is_empty() {
                self.extensions.remove(STUDIO_KEY);
            }
        }
    }

    /// The name shown in lists: the comment, falling back to the first key.
    pub fn display_name(&self) -> &str {
        if !self.comment.trim().is_empty() {
            return &self.comment;
        }
        self.keys
            .iter()
            .map(|k| k.trim())
            .find(|k| !k.is_empty())
            .unwrap_or("")
    }
}

/// Splits the editor's comma-separated key text into keys, keeping commas
/// that sit inside a `/regex/flags` key.
///
/// ```
/// use lorebook_engine::model::split_keys;
/// assert_eq!(split_keys("sun, /a,b/i , moon"), vec!["sun", "/a,b/i", "moon"]);
/// ```
pub fn split_keys(text: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut current = String::new();
    let mut in_regex = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_regex {
            current.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '/' {
                in_regex = false;
            }
            continue;
        }
        match c {
            ',' => {
                let k = current.trim();
                if !k.is_empty() {
                    keys.push(k.to_string());
                }
                current.clear();
            }
            '/' if current.trim().is_empty() => {
                current.push(c);
                in_regex = true;
            }
            _ => current.push(c),
        }
    }
    let k = current.trim();
    if !k.is_empty() {
        keys.push(k.to_string());
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keys_cases() {
        let check = |input: &str, expected: &[&str]| {
            assert_eq!(split_keys(input), expected, "input {input:?}");
        };
        check("", &[]);
        check(" , ,", &[]);
        check("a,b", &["a", "b"]);
        check("/x\\/,y/g, z", &["/x\\/,y/g", "z"]);
        check("a/b, c", &["a/b", "c"]);
        check("/unterminated, z", &["/unterminated, z"]);
    }

    #[test]
    fn display_name_falls_back_to_first_key() {
        let mut e = Entry {
            keys: vec![" ".into(), "sun".into()],
            ..Entry::default()
        };
        assert_eq!(e.display_name(), "sun");
        e.comment = "The Sun".into();
        assert_eq!(e.display_name(), "The Sun");
    }

    #[test]
    fn next_id_is_one_past_the_largest() {
        let mut b = Book::default();
        assert_eq!(b.add_entry(Entry::default()), 0);
        b.entries[0].id = 7;
        assert_eq!(b.add_entry(Entry::default()), 8);
    }

    #[test]
    fn next_id_at_the_largest_id_takes_the_smallest_free_one() {
        let mut b = Book::default();
        for id in [MAX_ID, 0, 1, 3] {
            b.entries.push(Entry {
                id,
                ..Entry::default()
            });
        }
        assert_eq!(b.add_entry(Entry::default()), 2);
        assert_eq!(b.add_entry(Entry::default()), 4);
        assert_eq!(b.fresh_ids(3), vec![5, 6, 7]);
        // An id past the limit (set by hand) does not make it wrap either.
        b.entries[0].id = u64::MAX;
        assert_eq!(b.next_id(), 5);
    }
}
