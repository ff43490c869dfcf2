//! Prompt assembly (SPEC §6 step 9): a template of blocks where the
//! lorebook slot can move; the result is the message list a model receives.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::chat::Message;
use crate::model::Role;

/// The system prompt of the default template.
pub const DEFAULT_SYSTEM_PROMPT: &str =
    "You are the narrator of an interactive story. Stay in character and use the world notes below.";

/// One block of a prompt template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Block {
    /// A fixed system message; skipped when its text is empty.
    SystemPrompt { text: String },
    /// Where every kept entry goes, one message each.
    Lorebook,
    /// The chat history of the request.
    ChatHistory,
}

/// An ordered list of blocks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Template {
    pub blocks: Vec<Block>,
}

impl Default for Template {
    /// System prompt, lorebook slot, chat history.
    fn default() -> Self {
        Template {
            blocks: vec![
                Block::SystemPrompt {
                    text: DEFAULT_SYSTEM_PROMPT.into(),
                },
                Block::Lorebook,
                Block::ChatHistory,
            ],
        }
    }
}

impl Template {
    /// Moves the lorebook slot to position `to` among the blocks (clamped).
    pub fn move_lorebook(&mut self, to: usize) {
        let Some(from) = self.blocks.iter().position(|b| *b == Block::Lorebook) else {
            return;
        };
        let slot = self.blocks.remove(from);
        let to = to.min(self.blocks.len());
        self.blocks.insert(to, slot);
    }
}

/// What a prompt message was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Origin {
    SystemPrompt,
    Entry { book: usize, id: u64 },
    Chat { index: usize },
}

/// A message as the model receives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PromptMessage {
    pub role: &'static str,
    /// Shared, not copied: a chat message's text is one allocation for
    /// every request of a log (request k holds k messages, so copies would
    /// grow with the square of the chat).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub content: Arc<str>,
    pub origin: Origin,
}

/// A kept entry ready for the slot.
#[derive(Debug, Clone, Copy)]
pub struct LoreMessage<'a> {
    pub book: usize,
    pub id: u64,
    pub role: Role,
    pub body: &'a str,
}

/// The texts of a chat's messages, shared: made once per chat, then every
/// request's prompt refers to them instead of copying them.
pub fn shared_texts(chat: &[Message]) -> Vec<Arc<str>> {
    chat.iter().map(|m| Arc::from(m.text.as_str())).collect()
}

/// Fills the template: the lorebook slot gets `lore` in order, the history
/// block gets `history`, whose texts are `texts` (from [`shared_texts`],
/// at least as many as `history`).
pub fn assemble(
    template: &Template,
    lore: &[LoreMessage<'_>],
    history: &[Message],
    texts: &[Arc<str>],
) -> Vec<PromptMessage> {
    let mut out = Vec::with_capacity(lore.len() + history.len() + 2);
    for block in &template.blocks {
        match block {
            Block::SystemPrompt { text } => {
                if !text.trim().is_empty() {
                    out.push(PromptMessage {
                        role: "system",
                        content: Arc::from(text.as_str()),
                        origin: Origin::SystemPrompt,
                    });
                }
            }
            Block::Lorebook => out.extend(lore.iter().map(|l| PromptMessage {
                role: l.role.as_str(),
                content: Arc::from(l.body),
                origin: Origin::Entry {
                    book: l.book,
                    id: l.id,
                },
            })),
            Block::ChatHistory => out.extend(history.iter().zip(texts).enumerate().map(
                |(index, (m, text))| PromptMessage {
                    role: m.role.as_str(),
                    content: Arc::clone(text),
                    origin: Origin::Chat { index },
                },
            )),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::Speaker;

    #[test]
    fn the_slot_moves() {
        let lore = [LoreMessage {
            book: 0,
            id: 1,
            role: Role::Assistant,
            body: "lore",
        }];
        let history = [Message {
            role: Speaker::User,
            name: None,
            text: "hi".into(),
        }];
        let mut t = Template::default();
        let roles = |m: &[PromptMessage]| {
            m.iter()
                .map(|m| (m.role, m.content.to_string()))
                .collect::<Vec<_>>()
        };
        let out = assemble(&t, &lore, &history, &shared_texts(&history));
        assert_eq!(&*out[1].content, "lore");
        assert_eq!(out[1].role, "assistant");
        t.move_lorebook(99);
        let out = assemble(&t, &lore, &history, &shared_texts(&history));
        assert_eq!(roles(&out)[2], ("assistant", "lore".to_string()));
        t.move_lorebook(0);
        assert_eq!(
            &*assemble(&t, &lore, &history, &shared_texts(&history))[0].content,
            "lore"
        );
        t.blocks[1] = Block::SystemPrompt { text: " ".into() };
        assert_eq!(
            assemble(&t, &lore, &history, &shared_texts(&history)).len(),
            2,
            "empty system prompt skipped"
        );
    }
}
