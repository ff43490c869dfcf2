//! RisuAI's final prompt: the messages RisuAI 460ecae's `sendChat` sends
//! for a request, without a prompt template (docs/risu-rules.md, "The final
//! prompt"), built from a request's [`RisuResult`], the chat and the
//! character's texts ([`RisuPromptInputs`]).
//!
//! The slots, in RisuAI's default formatting order: the main prompt, the
//! description (with `before_desc` entries in front and `after_desc`,
//! `personality`, `scenario` entries after), the persona, the chat block
//! (example messages, the new-chat line, the greeting, the messages but
//! the last, with
//! `@@depth` / `@@reverse_depth` entries inserted), the last message, the
//! lorebook block (each entry its own message, in RisuAI's final order),
//! the global note, the author's note, and at the very end the `@@depth 0`
//! / `@@end` entries (user and system ones first, then assistant ones).
//! Empty messages are dropped and every message is trimmed. Entries placed
//! by a prompt template (`pt_<name>`, `@@inject_at`) go nowhere without
//! one, and are listed as absent.

use serde::Serialize;

use super::{Position, RisuResult};
use crate::chat::{Message, Speaker};
use crate::model::Role;

/// The new-chat line RisuAI puts before the chat and between example
/// chats.
pub const NEW_CHAT: &str = "[Start a new chat]";

/// The texts of the prompt besides the chat and the lorebook.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RisuPromptInputs {
    /// The main prompt (RisuAI's own default text is not reproduced: give
    /// the one in use). `@@user`, `@@assistant` and `@@system` lines split
    /// it into messages of those roles.
    pub main: String,
    pub description: String,
    pub personality: String,
    pub scenario: String,
    /// The user's persona.
    pub persona: String,
    /// The card's example messages (`<START>`, `{{char}}:`, `{{user}}:`).
    pub examples: String,
    /// The greeting in use (the card's first message, or the alternate
    /// greeting RisuAI's `fmIndex` picks): after the new-chat line.
    pub greeting: String,
    /// The global note (post-history instructions), split like the main
    /// prompt.
    pub global_note: String,
    /// The chat's author's note.
    pub author_note: String,
}

/// Where a message of the prompt comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RisuSource {
    Main,
    Description,
    Persona,
    Example,
    NewChat,
    Greeting,
    /// Message `index` of the chat (0-based).
    Chat {
        index: usize,
    },
    /// An injected entry.
    Entry {
        book: usize,
        id: u64,
    },
    GlobalNote,
    AuthorNote,
}

/// One message of RisuAI's prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RisuPromptMessage {
    pub role: Role,
    pub content: String,
    pub source: RisuSource,
}

/// An injected entry that is nowhere in the prompt, and where it wanted
/// to go (`pt_<name>` or `inject_at <location>`: a prompt template's).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RisuAbsent {
    pub book: usize,
    pub id: u64,
    pub position: String,
}

/// The prompt of one request.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RisuPrompt {
    pub messages: Vec<RisuPromptMessage>,
    pub absent: Vec<RisuAbsent>,
}

fn message(role: Role, content: impl Into<String>, source: RisuSource) -> RisuPromptMessage {
    RisuPromptMessage {
        role,
        content: content.into(),
        source,
    }
}

/// A main prompt or global note as RisuAI splits it: a line marker
/// `@@user`, `@@assistant` or `@@system` (also with `@@@`) followed by a
/// line break starts a message of that role; text before the first marker
/// is a system message. A text that starts with `@@` but no such marker
/// gives no message at all (RisuAI's quirk).
pub fn split_roles(text: &str, source: RisuSource) -> Vec<RisuPromptMessage> {
    let marker_at = |at: usize| -> Option<(Role, usize)> {
        let rest = text[at..].strip_prefix("@@")?;
        let (rest, extra) = match rest.strip_prefix('@') {
            Some(r) => (r, 3),
            None => (rest, 2),
        };
        [
            ("user", Role::User),
            ("assistant", Role::Assistant),
            ("system", Role::System),
        ]
        .into_iter()
        .find_map(|(name, role)| {
            rest.strip_prefix(name)?
                .starts_with('\n')
                .then_some((role, extra + name.len() + 1))
        })
    };
    if text.starts_with("@@") && marker_at(0).is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut role = Role::System;
    let mut start = 0;
    let mut at = 0;
    while let Some(found) = text[at..].find("@@") {
        let p = at + found;
        match marker_at(p) {
            Some((next, len)) => {
                if p > 0 || start > 0 {
                    out.push(message(role, &text[start..p], source.clone()));
                }
                role = next;
                start = p + len;
                at = start;
            }
            None => at = p + 2,
        }
    }
    out.push(message(role, &text[start..], source));
    out
}

/// The card's example messages as RisuAI reads them: `<START>` (any case)
/// opens an example chat with the new-chat line; a line starting with
/// `{{char}}:` or `<bot>:` starts an assistant message, `{{user}}:` or
/// `<user>:` a user message, keeping the text up to the line's next colon
/// (RisuAI's quirk); other lines continue the message, and lines before
/// the first speaker are dropped.
pub fn example_messages(examples: &str) -> Vec<RisuPromptMessage> {
    let mut out: Vec<RisuPromptMessage> = Vec::new();
    let mut open = false;
    for line in examples.lines() {
        if line.trim().eq_ignore_ascii_case("<start>") {
            out.push(message(Role::System, NEW_CHAT, RisuSource::NewChat));
            open = false;
            continue;
        }
        let lower = line.to_lowercase();
        let speaker = [
            ("{{char}}:", Role::Assistant),
            ("<bot>:", Role::Assistant),
            ("{{user}}:", Role::User),
            ("<user>:", Role::User),
        ]
        .into_iter()
        .find(|(p, _)| lower.starts_with(p));
        match speaker {
            Some((_, role)) => {
                let text = line.split(':').nth(1).unwrap_or_default();
                out.push(message(role, text, RisuSource::Example));
                open = true;
            }
            None if open => {
                if let Some(last) = out.last_mut() {
                    last.content.push('\n');
                    last.content.push_str(line);
                }
            }
            None => {}
        }
    }
    out
}

/// JavaScript's `splice(start, 0, item)` start: negative counts from the
/// end (at least 0), past the end appends.
fn splice_at(len: usize, start: f64) -> usize {
    if start < 0.0 {
        (len as f64 + start).max(0.0) as usize
    } else {
        (start as usize).min(len)
    }
}

/// The prompt RisuAI sends for request `r` over `chat` (the request's
/// messages), without a prompt template.
pub fn build(r: &RisuResult, chat: &[Message], inputs: &RisuPromptInputs) -> RisuPrompt {
    let mut absent = Vec::new();
    let mut description = vec![message(
        Role::System,
        description_text(inputs),
        RisuSource::Description,
    )];
    let mut lorebook = Vec::new();
    let mut end_first = Vec::new();
    let mut end_last = Vec::new();
    let mut deep = Vec::new();
    for e in &r.injected {
        let m = message(
            e.role,
            e.sent.as_ref().unwrap_or(&e.content).clone(),
            RisuSource::Entry {
                book: e.book,
                id: e.id,
            },
        );
        match &e.position {
            Position::Lorebook => lorebook.push(m),
            Position::BeforeDesc => description.insert(0, m),
            Position::AfterDesc | Position::Personality | Position::Scenario => description.push(m),
            Position::Depth if e.depth.unwrap_or(0.0) == 0.0 => {
                if e.role == Role::Assistant {
                    end_last.push(m);
                } else {
                    end_first.push(m);
                }
            }
            Position::Depth | Position::ReverseDepth => deep.push((e, m)),
            Position::Template(_) | Position::InjectAt(_) => absent.push(RisuAbsent {
                book: e.book,
                id: e.id,
                position: e.position.to_string(),
            }),
        }
    }
    let mut chats = example_messages(&inputs.examples);
    chats.push(message(Role::System, NEW_CHAT, RisuSource::NewChat));
    chats.push(message(
        Role::Assistant,
        inputs.greeting.clone(),
        RisuSource::Greeting,
    ));
    for (index, m) in chat.iter().enumerate() {
        let role = if m.role == Speaker::User {
            Role::User
        } else {
            Role::Assistant
        };
        chats.push(message(role, m.text.clone(), RisuSource::Chat { index }));
    }
    // The last item is split off first; the empty ones are then left out
    // before the depth entries go in (they do not count).
    let last = chats.pop();
    chats.retain(|m| !m.content.trim().is_empty());
    for (e, m) in deep {
        let n = e.depth.unwrap_or(0.0);
        let at = if e.position == Position::Depth {
            splice_at(chats.len(), n)
        } else {
            splice_at(chats.len(), chats.len() as f64 - n)
        };
        chats.insert(at, m);
    }
    let mut all = split_roles(&inputs.main, RisuSource::Main);
    all.extend(description);
    all.push(message(
        Role::System,
        inputs.persona.clone(),
        RisuSource::Persona,
    ));
    all.extend(chats);
    all.extend(last);
    all.extend(lorebook);
    all.extend(split_roles(&inputs.global_note, RisuSource::GlobalNote));
    all.push(message(
        Role::System,
        inputs.author_note.clone(),
        RisuSource::AuthorNote,
    ));
    all.extend(end_first);
    all.extend(end_last);
    let messages = all
        .into_iter()
        .filter_map(|mut m| {
            let trimmed = m.content.trim();
            if trimmed.is_empty() {
                return None;
            }
            if trimmed.len() != m.content.len() {
                m.content = trimmed.to_string();
            }
            Some(m)
        })
        .collect();
    RisuPrompt { messages, absent }
}

/// The description message: the description, then the personality and
/// the scenario after a blank line each, under labels (RisuAI's own label
/// wording is not reproduced).
fn description_text(inputs: &RisuPromptInputs) -> String {
    let mut text = inputs.description.clone();
    if !inputs.personality.is_empty() {
        text.push_str("\n\nPersonality: ");
        text.push_str(&inputs.personality);
    }
    if !inputs.scenario.is_empty() {
        text.push_str("\n\nScenario: ");
        text.push_str(&inputs.scenario);
    }
    text
}
