//! The text SillyTavern scans (world-info.js: `WorldInfoBuffer`; the chat
//! is prepared in script.js: `Generate`).
//!
//! Messages are newest first, each trimmed and prefixed with U+0001,
//! joined by newlines, with `Name: ` in front when names are included.
//! Depth 0 gives an empty text: not even the recursion buffer is scanned.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::matching::js_trim;
use crate::chat::{Message, Speaker};

/// The deepest scan SillyTavern allows (`MAX_SCAN_DEPTH`).
pub const MAX_SCAN_DEPTH: usize = 1000;

/// Character and persona fields an entry's `match…` flags add to its text,
/// in the order they are appended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default)]
pub struct MatchSources {
    pub persona_description: String,
    pub character_description: String,
    pub character_personality: String,
    pub character_depth_prompt: String,
    pub scenario: String,
    pub creator_notes: String,
}

impl MatchSources {
    /// The fields in SOURCE_ORDER.
    fn fields(&self) -> [&str; 6] {
        [
            &self.persona_description,
            &self.character_description,
            &self.character_personality,
            &self.character_depth_prompt,
            &self.scenario,
            &self.creator_notes,
        ]
    }
}

/// Names of the six match sources, in the order the buffer appends them.
pub const SOURCE_ORDER: [&str; 6] = [
    "persona description",
    "character description",
    "character personality",
    "character's note",
    "scenario",
    "creator notes",
];

/// What one scan pass looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassKind {
    Initial,
    Recursion,
    MinActivations,
}

/// The chat as SillyTavern scans it, plus what earlier passes added.
#[derive(Debug, Clone, Default)]
pub struct ScanBuffer<'a> {
    /// Newest first, trimmed; empty messages stay as empty strings. They
    /// borrow the chat's texts unless a name is prefixed, so a request
    /// copies none of a long chat.
    messages: Vec<Cow<'a, str>>,
    /// Non-hidden messages in the whole chat, beyond the scan limit too.
    length: usize,
    recursion: Vec<String>,
    sources: MatchSources,
}

impl<'a> ScanBuffer<'a> {
    /// The messages of a request: system (hidden) messages are dropped,
    /// names are prefixed when `include_names`, newest first.
    pub fn new(chat: &'a [Message], include_names: bool, sources: MatchSources) -> Self {
        let length = chat.iter().filter(|m| m.role != Speaker::System).count();
        let messages = chat
            .iter()
            .rev()
            .filter(|m| m.role != Speaker::System)
            .take(MAX_SCAN_DEPTH)
            .map(|m| match (&m.name, include_names) {
                (Some(name), true) => Cow::Owned(format!("{name}: {}", m.text)),
                _ => Cow::Borrowed(m.text.as_str()),
            })
            .collect::<Vec<_>>();
        // Empty messages are holes of SillyTavern's array; holes after the
        // last filled slot are not part of it at all, so they add no
        // separator when joined.
        let filled = messages
            .iter()
            .rposition(|m| !m.is_empty())
            .map_or(0, |i| i + 1);
        let messages = messages
            .into_iter()
            .take(filled)
            .map(|m| match m {
                Cow::Borrowed(m) => Cow::Borrowed(js_trim(m)),
                Cow::Owned(m) => Cow::Owned(js_trim(&m).to_string()),
            })
            .collect();
        ScanBuffer {
            messages,
            length,
            recursion: Vec::new(),
            sources,
        }
    }

    /// The chat length of timed effects and min activations: the
    /// non-hidden messages, including those beyond [`MAX_SCAN_DEPTH`].
    pub fn len(&self) -> usize {
        self.length
    }

    pub fn is_empty(&self) -> bool {
        self.length == 0
    }

    /// Adds one pass's recursion text.
    pub fn push_recursion(&mut self, text: String) {
        self.recursion.push(text);
    }

    pub fn has_recursion(&self) -> bool {
        !self.recursion.is_empty()
    }

    /// What [`ScanBuffer::text`] depends on, so equal views share one
    /// text: the messages taken (0 for no text at all, else one more than
    /// their number), the match sources, and the recursion texts included.
    pub fn view(
        &self,
        depth: f64,
        sources: &[bool; 6],
        kind: PassKind,
    ) -> (usize, [bool; 6], usize) {
        if depth.is_nan() || depth <= 0.0 {
            return (0, [false; 6], 0);
        }
        let taken = (depth.trunc() as usize)
            .min(MAX_SCAN_DEPTH)
            .min(self.messages.len());
        let recursion = if kind == PassKind::MinActivations {
            0
        } else {
            self.recursion.len()
        };
        (taken + 1, *sources, recursion)
    }

    /// The text one entry scans at `depth` (world-info.js:
    /// `WorldInfoBuffer.get`).
    pub fn text(&self, depth: f64, sources: &[bool; 6], kind: PassKind) -> String {
        if depth.is_nan() || depth <= 0.0 {
            return String::new();
        }
        let depth = (depth.trunc() as usize).min(MAX_SCAN_DEPTH);
        let mut out = String::from("\u{1}");
        for (i, m) in self.messages.iter().take(depth).enumerate() {
            if i > 0 {
                out.push_str("\n\u{1}");
            }
            out.push_str(m);
        }
        for (on, field) in sources.iter().zip(self.sources.fields()) {
            if *on && !field.is_empty() {
                out.push_str("\n\u{1}");
                out.push_str(field);
            }
        }
        if kind != PassKind::MinActivations {
            for r in &self.recursion {
                out.push_str("\n\u{1}");
                out.push_str(r);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(name: &str, text: &str, role: Speaker) -> Message {
        Message {
            role,
            name: Some(name.into()),
            text: text.into(),
        }
    }

    // world-info.js: WorldInfoBuffer.get (newest first, U+0001 markers,
    // names, depth 0 empty, match sources, recursion buffer).
    #[test]
    fn text_for_an_entry() {
        let chat = [
            msg("Bot", "Hi there.", Speaker::Assistant),
            msg("User", "I ate an apple today. \n", Speaker::User),
        ];
        let b = ScanBuffer::new(&chat, true, MatchSources::default());
        let none = [false; 6];
        assert_eq!(
            b.text(2.0, &none, PassKind::Initial),
            "\u{1}User: I ate an apple today.\n\u{1}Bot: Hi there."
        );
        assert_eq!(
            b.text(1.0, &none, PassKind::Initial),
            "\u{1}User: I ate an apple today."
        );
        assert_eq!(b.text(0.0, &none, PassKind::Initial), "");
        let b = ScanBuffer::new(&chat, false, MatchSources::default());
        assert_eq!(
            b.text(9.0, &none, PassKind::Initial),
            "\u{1}I ate an apple today.\n\u{1}Hi there."
        );

        let sources = MatchSources {
            character_description: "A dragon lives here".into(),
            ..MatchSources::default()
        };
        let mut b = ScanBuffer::new(&chat, false, sources);
        let mut flags = none;
        flags[1] = true;
        b.push_recursion("Alpha mentions beta.".into());
        assert_eq!(
            b.text(1.0, &flags, PassKind::Recursion),
            "\u{1}I ate an apple today.\n\u{1}A dragon lives here\n\u{1}Alpha mentions beta."
        );
        assert_eq!(
            b.text(1.0, &none, PassKind::MinActivations),
            "\u{1}I ate an apple today."
        );
    }

    // script.js: Generate (hidden messages, is_system, are not scanned and
    // do not count toward the chat length).
    #[test]
    fn hidden_messages_are_dropped() {
        let chat = [
            msg("User", "apple", Speaker::System),
            msg("User", "hello", Speaker::User),
            msg("Bot", "", Speaker::Assistant),
        ];
        let b = ScanBuffer::new(&chat, true, MatchSources::default());
        assert_eq!(b.len(), 2);
        assert_eq!(
            b.text(5.0, &[false; 6], PassKind::Initial),
            "\u{1}Bot:\n\u{1}User: hello"
        );
    }

    // world-info.js: WorldInfoBuffer (at most MAX_SCAN_DEPTH messages are
    // kept, while the chat length counts every message).
    #[test]
    fn scan_limit_and_chat_length() {
        let chat: Vec<Message> = (0..1005)
            .map(|i| msg("User", &format!("m{i}"), Speaker::User))
            .collect();
        let b = ScanBuffer::new(&chat, false, MatchSources::default());
        assert_eq!(b.len(), 1005);
        let text = b.text(5000.0, &[false; 6], PassKind::Initial);
        assert_eq!(text.matches('\u{1}').count(), MAX_SCAN_DEPTH);
        assert!(text.starts_with("\u{1}m1004\n"));
    }

    // world-info.js: WorldInfoBuffer.#initDepthBuffer (an empty oldest
    // message is no slot; an empty message in between is an empty slot).
    #[test]
    fn empty_messages() {
        let chat = [
            msg("A", "", Speaker::User),
            msg("B", "x", Speaker::Assistant),
            msg("C", "", Speaker::User),
            msg("D", "y", Speaker::Assistant),
        ];
        let b = ScanBuffer::new(&chat, false, MatchSources::default());
        assert_eq!(
            b.text(9.0, &[false; 6], PassKind::Initial),
            "\u{1}y\n\u{1}\n\u{1}x"
        );
        assert_eq!(b.len(), 4);
    }
}
