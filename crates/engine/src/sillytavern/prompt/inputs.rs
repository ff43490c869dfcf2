//! What the final prompt is built from besides the chat and the result:
//! the card's texts, the Author's Note (authors-note.js:
//! `setFloatingPrompt`, `loadSettings`) and the character's note.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::chat::{Message, Speaker};
use crate::sillytavern::settings::js_number;

/// The deepest in-chat injection SillyTavern makes (`MAX_INJECTION_DEPTH`).
pub const MAX_INJECTION_DEPTH: f64 = 10_000.0;

/// SillyTavern's default main prompt (openai.js defaults).
pub const DEFAULT_MAIN_PROMPT: &str =
    "Write {{char}}'s next reply in a fictional chat between {{charIfNotGroup}} and {{user}}.";
/// The system message opening the chat history (`new_chat_prompt`).
pub const DEFAULT_NEW_CHAT: &str = "[Start a new Chat]";
/// The system message opening each example chat (`new_example_chat_prompt`).
pub const DEFAULT_NEW_EXAMPLE_CHAT: &str = "[Example Chat]";

/// Where the Author's Note goes (`note_position`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotePosition {
    /// 0: right after the main prompt.
    AfterMain,
    /// 1 (the default): in the chat, at `depth`, as `role`.
    InChat,
    /// 2: right before the main prompt.
    BeforeMain,
    /// Any other number: nowhere.
    None,
}

impl NotePosition {
    /// The position of SillyTavern's `note_position` number.
    pub fn from_st(n: f64) -> Self {
        match n {
            0.0 => NotePosition::AfterMain,
            1.0 => NotePosition::InChat,
            2.0 => NotePosition::BeforeMain,
            _ => NotePosition::None,
        }
    }
}

/// The Author's Note of a chat (the `note_*` keys of its metadata).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AuthorsNote {
    /// `note_prompt`: the text (macros are expanded).
    pub text: String,
    /// `note_interval`: 1 inserts it in every request, N every Nth user
    /// message, 0 or less never.
    pub interval: f64,
    pub position: NotePosition,
    /// `note_depth`, for [`NotePosition::InChat`].
    pub depth: f64,
    /// `note_role`: 0 system, 1 user, 2 assistant.
    pub role: i64,
}

impl Default for AuthorsNote {
    /// SillyTavern's defaults (authors-note.js: `loadSettings`): no text,
    /// every request, in the chat at depth 4, as system.
    fn default() -> Self {
        AuthorsNote {
            text: String::new(),
            interval: 1.0,
            position: NotePosition::InChat,
            depth: 4.0,
            role: 0,
        }
    }
}

impl AuthorsNote {
    /// Reads the `note_*` keys of a chat's `chat_metadata`; absent keys
    /// keep the defaults.
    pub fn from_metadata(metadata: Option<&Value>) -> Self {
        let mut note = AuthorsNote::default();
        let Some(Value::Object(m)) = metadata else {
            return note;
        };
        if let Some(text) = m.get("note_prompt").and_then(Value::as_str) {
            note.text = text.to_string();
        }
        if let Some(v) = m.get("note_interval") {
            note.interval = js_number(v);
        }
        if let Some(v) = m.get("note_position") {
            note.position = NotePosition::from_st(js_number(v));
        }
        if let Some(v) = m.get("note_depth") {
            note.depth = js_number(v);
        }
        if let Some(v) = m.get("note_role") {
            let r = js_number(v);
            note.role = if r.fract() == 0.0 && r.is_finite() {
                r as i64
            } else {
                -1
            };
        }
        note
    }

    /// Whether the note is inserted in a request with this chat
    /// (authors-note.js: `setFloatingPrompt`): with U the number of user
    /// messages, interval 1 always; interval ≤ 0 or U = 0 never;
    /// otherwise when U is a multiple of the interval (U ≥ interval) or
    /// when the interval minus U is 0.
    pub fn is_due(&self, chat: &[Message]) -> bool {
        let users = chat.iter().filter(|m| m.role == Speaker::User).count() as f64;
        let users = if self.interval == 1.0 { 1.0 } else { users };
        // Written as SillyTavern writes it, so NaN intervals behave alike.
        if users <= 0.0 || self.interval <= 0.0 {
            return false;
        }
        let till = if users >= self.interval {
            users % self.interval
        } else {
            self.interval - users
        };
        till == 0.0
    }
}

/// The character's note (`extensions.depth_prompt` of a card), injected
/// in the chat like the Author's Note.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CharacterNote {
    pub text: String,
    pub depth: f64,
    /// 0 system, 1 user, 2 assistant.
    pub role: i64,
}

/// What the prompt is built from besides the chat and the activated
/// entries. Every text may be empty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StPromptInputs {
    /// The main prompt ([`DEFAULT_MAIN_PROMPT`] unless replaced).
    pub main: String,
    /// The persona description (placed in the prompt, its default place).
    pub persona: String,
    /// The card's `description`, `personality`, `scenario` and
    /// `mes_example`.
    pub description: String,
    pub personality: String,
    pub scenario: String,
    pub examples: String,
    pub character_note: Option<CharacterNote>,
    pub authors_note: AuthorsNote,
    pub new_chat: String,
    pub new_example_chat: String,
}

impl Default for StPromptInputs {
    fn default() -> Self {
        StPromptInputs {
            main: DEFAULT_MAIN_PROMPT.into(),
            persona: String::new(),
            description: String::new(),
            personality: String::new(),
            scenario: String::new(),
            examples: String::new(),
            character_note: None,
            authors_note: AuthorsNote::default(),
            new_chat: DEFAULT_NEW_CHAT.into(),
            new_example_chat: DEFAULT_NEW_EXAMPLE_CHAT.into(),
        }
    }
}
