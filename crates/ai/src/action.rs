//! The four actions: what each asks the model (its prompt, filled from the
//! book and the text, and the JSON schema of its answer), and what each
//! answer becomes: suggestions against the open book (new, changed, the
//! same) or review findings. An answer that is not the shape asked for is
//! refused with what is wrong; a plain-text answer is read leniently.

use serde::Serialize;
use serde_json::{json, Value};

use lorebook_engine::model::{Book, Entry};

pub use crate::answer::findings;
use crate::answer::{json_in, read_drafts, strings};
use crate::client::Call;
use crate::error::AiError;
use crate::suggested::named;
pub use crate::suggested::{Draft, Finding, FINDING_KINDS};

/// What a suggestion does to the open book.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Merge {
    /// A new entry.
    New,
    /// Changes the entry `target`.
    Changed,
    /// `target` already says exactly this.
    Same,
}

/// One suggestion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suggestion {
    pub entry: Draft,
    pub merge: Merge,
    /// The entry it updates.
    pub target: Option<u64>,
    /// The target is locked: the suggestion is shown, never applied.
    pub locked: bool,
}

/// What to ask.
#[derive(Debug, Clone)]
pub enum Request {
    /// Entries from a text (a chat or a pasted page), each at most
    /// `tokens` tokens, at most `max_entries`.
    Draft {
        source: String,
        tokens: u32,
        max_entries: usize,
    },
    /// Keys for entry `entry`, from its content and the chat.
    Keys { entry: u64, chat: String },
    /// Entry `entry` shortened to at most `tokens` tokens.
    Shorten { entry: u64, tokens: u32 },
    /// The book (or `entries` of it) reviewed against the chat.
    Review {
        entries: Option<Vec<u64>>,
        chat: String,
        max_findings: usize,
    },
}

/// Characters of a text given to the model, at most: the prompt's token
/// count is checked against the context before sending anyway.
const TEXT_CAP: usize = 400_000;

impl Request {
    /// The prompt file's name.
    pub fn action(&self) -> &'static str {
        match self {
            Request::Draft { .. } => "draft",
            Request::Keys { .. } => "keys",
            Request::Shorten { .. } => "shorten",
            Request::Review { .. } => "review",
        }
    }

    /// The answer's JSON schema.
    pub fn schema(&self) -> (&'static str, Value) {
        let strings = json!({"type": "array", "items": {"type": "string"}});
        match self {
            Request::Draft { max_entries, .. } => (
                "lorebook_entries",
                json!({
                    "type": "object",
                    "properties": {"entries": {"type": "array", "minItems": 1, "maxItems": max_entries, "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "keys": strings,
                            "secondary_keys": strings,
                            "content": {"type": "string"},
                        },
                        "required": ["name", "keys", "secondary_keys", "content"],
                        "additionalProperties": false,
                    }}},
                    "required": ["entries"],
                    "additionalProperties": false,
                }),
            ),
            Request::Keys { .. } => (
                "lorebook_keys",
                json!({
                    "type": "object",
                    "properties": {"keys": strings, "secondary_keys": strings},
                    "required": ["keys", "secondary_keys"],
                    "additionalProperties": false,
                }),
            ),
            Request::Shorten { .. } => (
                "lorebook_content",
                json!({
                    "type": "object",
                    "properties": {"content": {"type": "string"}},
                    "required": ["content"],
                    "additionalProperties": false,
                }),
            ),
            Request::Review { .. } => (
                "lorebook_review",
                json!({
                    "type": "object",
                    "properties": {"findings": {"type": "array", "items": {
                        "type": "object",
                        "properties": {
                            "kind": {"type": "string", "enum": FINDING_KINDS},
                            "entries": strings,
                            "note": {"type": "string"},
                        },
                        "required": ["kind", "entries", "note"],
                        "additionalProperties": false,
                    }}},
                    "required": ["findings"],
                    "additionalProperties": false,
                }),
            ),
        }
    }

    /// The entry the action is about.
    pub fn entry(&self) -> Option<u64> {
        match self {
            Request::Keys { entry, .. } | Request::Shorten { entry, .. } => Some(*entry),
            _ => None,
        }
    }

    /// The call: `prompt` (the action's prompt text) filled from `book`,
    /// `count` counting tokens for `{{current}}`.
    pub fn call(
        &self,
        book: &Book,
        prompt: &str,
        max_tokens: u32,
        count: &dyn Fn(&str) -> u32,
    ) -> Result<Call, AiError> {
        let target = match self.entry() {
            Some(id) => Some(entry_of(book, id)?),
            None => None,
        };
        if let Some(e) = target {
            if e.locked() && !matches!(self, Request::Review { .. }) {
                return Err(AiError::Invalid {
                    detail: format!(
                        "the entry {:?} is locked: no AI action changes it",
                        e.display_name()
                    ),
                });
            }
        }
        let mut values: Vec<(&str, String)> = Vec::new();
        match self {
            Request::Draft {
                source,
                tokens,
                max_entries,
            } => {
                values.push(("book", names_and_keys(book)));
                values.push(("source", capped(source)));
                values.push(("tokens", tokens.to_string()));
                values.push(("max_entries", max_entries.to_string()));
            }
            Request::Keys { chat, .. } => {
                let e = target.expect("an entry");
                values.push(("name", e.display_name().to_string()));
                values.push(("keys", e.keys.join(", ")));
                values.push(("content", capped(&e.content)));
                values.push(("chat", capped(chat)));
            }
            Request::Shorten { tokens, .. } => {
                let e = target.expect("an entry");
                values.push(("name", e.display_name().to_string()));
                values.push(("content", capped(&e.content)));
                values.push(("tokens", tokens.to_string()));
                values.push(("current", count(&e.content).to_string()));
            }
            Request::Review {
                entries,
                chat,
                max_findings,
            } => {
                values.push(("book", whole(book, entries.as_deref())));
                values.push(("chat", capped(chat)));
                values.push(("max_findings", max_findings.to_string()));
            }
        }
        let pairs: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
        Ok(Call {
            messages: crate::prompt::messages(prompt, &pairs)?,
            schema: Some(self.schema()),
            max_tokens,
            temperature: 0.2,
            seed: None,
        })
    }

    /// The suggestions an answer makes (not for [`Request::Review`]).
    pub fn suggestions(&self, book: &Book, text: &str) -> Result<Vec<Suggestion>, AiError> {
        match self {
            Request::Draft { max_entries, .. } => {
                let drafts = read_drafts(text)?;
                Ok(drafts
                    .into_iter()
                    .take(*max_entries)
                    .map(|d| merge_draft(book, d))
                    .collect())
            }
            Request::Keys { entry, .. } => {
                let v = json_in(text)?;
                let keys = strings(&v, "keys")?;
                if keys.is_empty() {
                    return Err(AiError::Malformed {
                        detail: "the answer gives no keys".into(),
                    });
                }
                let e = entry_of(book, *entry)?;
                let d = Draft {
                    name: e.display_name().to_string(),
                    keys,
                    secondary_keys: strings(&v, "secondary_keys").unwrap_or_default(),
                    content: e.content.clone(),
                };
                Ok(vec![against(e, d)])
            }
            Request::Shorten { entry, .. } => {
                let v = json_in(text)?;
                let content = v
                    .get("content")
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .ok_or_else(|| AiError::Malformed {
                        detail: "the answer has no \"content\"".into(),
                    })?;
                let e = entry_of(book, *entry)?;
                let d = Draft {
                    name: e.display_name().to_string(),
                    keys: e.keys.clone(),
                    secondary_keys: e.secondary_keys.clone(),
                    content: content.to_string(),
                };
                Ok(vec![against(e, d)])
            }
            Request::Review { .. } => Ok(Vec::new()),
        }
    }
}

fn entry_of(book: &Book, id: u64) -> Result<&Entry, AiError> {
    book.entry(id)
        .filter(|e| !e.folder)
        .ok_or_else(|| AiError::Invalid {
            detail: format!("the book has no entry {id}"),
        })
}

/// A draft against the book: an update of the entry of its name, else new.
pub fn merge_draft(book: &Book, d: Draft) -> Suggestion {
    match named(book, &d.name) {
        Some(e) => against(e, d),
        None => Suggestion {
            entry: d,
            merge: Merge::New,
            target: None,
            locked: false,
        },
    }
}

fn against(e: &Entry, d: Draft) -> Suggestion {
    let same = e.keys == d.keys
        && e.secondary_keys == d.secondary_keys
        && e.content.trim() == d.content.trim();
    Suggestion {
        merge: if same { Merge::Same } else { Merge::Changed },
        target: Some(e.id),
        locked: e.locked(),
        entry: d,
    }
}

/// Puts a suggestion into `book`: a new entry added, or the target's keys
/// and content changed (its other settings kept). `None`, and nothing
/// changed, for a locked target, one already the same or one gone.
pub fn apply(book: &mut Book, s: &Suggestion) -> Option<u64> {
    match s.merge {
        Merge::Same => None,
        Merge::New => Some(book.add_entry(Entry {
            comment: s.entry.name.clone(),
            keys: s.entry.keys.clone(),
            secondary_keys: s.entry.secondary_keys.clone(),
            selective: !s.entry.secondary_keys.is_empty(),
            content: s.entry.content.clone(),
            ..Entry::default()
        })),
        Merge::Changed => {
            let id = s.target?;
            let e = book.entries.iter_mut().find(|e| e.id == id)?;
            if e.locked() {
                return None;
            }
            e.keys.clone_from(&s.entry.keys);
            e.secondary_keys.clone_from(&s.entry.secondary_keys);
            if !e.secondary_keys.is_empty() {
                e.selective = true;
            }
            e.content.clone_from(&s.entry.content);
            Some(id)
        }
    }
}

fn capped(s: &str) -> String {
    match s.char_indices().nth(TEXT_CAP) {
        Some((at, _)) => format!("{}\n[…]", &s[..at]),
        None => s.to_string(),
    }
}

/// `name: key, key` per entry, for the draft prompt.
fn names_and_keys(book: &Book) -> String {
    let lines: Vec<String> = book
        .entries
        .iter()
        .filter(|e| !e.folder)
        .map(|e| format!("- {}: {}", e.display_name(), e.keys.join(", ")))
        .collect();
    if lines.is_empty() {
        "(empty)".into()
    } else {
        capped(&lines.join("\n"))
    }
}

/// Every entry (or those of `only`) in full, for the review prompt.
fn whole(book: &Book, only: Option<&[u64]>) -> String {
    let parts: Vec<String> = book
        .entries
        .iter()
        .filter(|e| !e.folder && only.is_none_or(|ids| ids.contains(&e.id)))
        .map(|e| {
            format!(
                "## {}\nkeys: {}\n{}",
                e.display_name(),
                e.keys.join(", "),
                e.content.trim()
            )
        })
        .collect();
    capped(&parts.join("\n\n"))
}
