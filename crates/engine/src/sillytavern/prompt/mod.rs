//! The final prompt SillyTavern sends in Chat Completion mode, with the
//! prompt manager's default order (openai.js: `prepareOpenAIMessages` →
//! `preparePromptsForChatCompletion`, `populateChatCompletion`,
//! `populationInjectionPrompts`, `populateDialogueExamples`,
//! `populateChatHistory`; PromptManager.js: the default prompt order;
//! authors-note.js: `setFloatingPrompt`; world-info.js: the end of
//! `checkWorldInfo`; script.js: `Generate`, `parseMesExamples`,
//! `getExtensionPrompt`).
//!
//! The blocks come in this order: main prompt (with a relative Author's
//! Note before or after it), world info before, persona description,
//! character description, personality, scenario, world info after,
//! dialogue examples (each example chat opened by its marker message),
//! chat history (opened by the new-chat marker, with the at-depth
//! injections spliced in). Empty messages are left out, as SillyTavern's
//! `getChat` leaves them out. The whole chat is assumed to fit: the
//! preview does not drop old messages to fit the context.
//!
//! The rules are described in docs/sillytavern-rules.md §8.
//!
//! Above the usual 600 lines: the prompt manager's order is followed block by
//! block, as one function does it in SillyTavern.

mod inputs;
mod text;

use serde::Serialize;

pub use inputs::{
    AuthorsNote, CharacterNote, NotePosition, StPromptInputs, DEFAULT_MAIN_PROMPT,
    DEFAULT_NEW_CHAT, DEFAULT_NEW_EXAMPLE_CHAT, MAX_INJECTION_DEPTH,
};
pub use text::{example_blocks, example_messages};
use text::{expand, find_ci, outlet_names};

use super::matching::{js_trim, Names};
use super::placement::{role_of, Position};
use super::{Injected, StResult};
use crate::chat::{Message, Speaker};
use crate::model::Role;

/// The prompt manager block a message belongs to (SillyTavern's
/// identifiers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum PromptBlock {
    Main,
    WorldInfoBefore,
    PersonaDescription,
    CharDescription,
    CharPersonality,
    Scenario,
    WorldInfoAfter,
    DialogueExamples,
    ChatHistory,
}

/// One piece a prompt message is made of.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum PromptSource {
    Main,
    Persona,
    Description,
    Personality,
    Scenario,
    /// An activated world-info entry's text.
    Entry {
        book: usize,
        id: u64,
        position: Position,
    },
    /// The marker opening an example chat.
    NewExampleChat,
    /// Example block `block` (0-based) of the card's examples.
    Example {
        block: usize,
    },
    /// The marker opening the chat history.
    NewChat,
    /// Message `index` (0-based) of the given chat.
    Chat {
        index: usize,
    },
    AuthorsNote,
    CharacterNote,
}

/// One message of the final prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StPromptMessage {
    pub role: Role,
    /// `example_user` / `example_assistant` on dialogue examples.
    pub name: Option<&'static str>,
    pub content: String,
    pub block: PromptBlock,
    /// What the content is made of, in order.
    pub sources: Vec<PromptSource>,
    /// Tokens of the content alone, with the preview's tokenizer.
    pub tokens: u32,
}

impl PromptBlock {
    /// SillyTavern's identifier of the block (`worldInfoBefore`…).
    pub fn as_str(self) -> &'static str {
        match self {
            PromptBlock::Main => "main",
            PromptBlock::WorldInfoBefore => "worldInfoBefore",
            PromptBlock::PersonaDescription => "personaDescription",
            PromptBlock::CharDescription => "charDescription",
            PromptBlock::CharPersonality => "charPersonality",
            PromptBlock::Scenario => "scenario",
            PromptBlock::WorldInfoAfter => "worldInfoAfter",
            PromptBlock::DialogueExamples => "dialogueExamples",
            PromptBlock::ChatHistory => "chatHistory",
        }
    }
}

/// Why an injected entry does not appear in the prompt: a code (the
/// app words it in the UI's language); English only in `Display`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum AbsentReason {
    /// The Author's Note is not inserted in this request (its interval).
    NoteNotDue,
    /// The Author's Note position is none of SillyTavern's.
    NotePosition,
    /// The Author's Note depth or role is out of SillyTavern's range.
    NoteDepthOrRole,
    /// An example entry without lines starting with a speaker's name.
    ExampleWithoutSpeakers,
    /// An at-depth entry whose depth is not a whole number 0…10000.
    Depth,
    /// An outlet no prompt names with `{{outlet::name}}`.
    OutletUnused,
}

impl std::fmt::Display for AbsentReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AbsentReason::NoteNotDue => {
                "the Author's Note is not inserted in this request (its interval)"
            }
            AbsentReason::NotePosition => "the Author's Note position is not one of SillyTavern's",
            AbsentReason::NoteDepthOrRole => {
                "the Author's Note depth or role is out of SillyTavern's range"
            }
            AbsentReason::ExampleWithoutSpeakers => {
                "an example entry needs lines starting with the user's or the character's name"
            }
            AbsentReason::Depth => "its depth is not a whole number from 0 to 10000",
            AbsentReason::OutletUnused => {
                "an outlet appears only where a prompt uses {{outlet::name}}"
            }
        })
    }
}

/// Why an injected entry does not appear in the prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Absent {
    pub book: usize,
    pub id: u64,
    pub position: Position,
    /// The reason as a code.
    pub reason: AbsentReason,
    /// The reason in English (the command line's JSON).
    #[serde(serialize_with = "display")]
    pub detail: AbsentReason,
}

fn display<S: serde::Serializer>(r: &AbsentReason, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(r)
}

/// The final prompt of one request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StPrompt {
    pub messages: Vec<StPromptMessage>,
    /// Whether the Author's Note (with its AN-top and AN-bottom entries)
    /// is inserted in this request.
    pub authors_note_due: bool,
    /// Injected entries that appear nowhere in the messages.
    pub absent: Vec<Absent>,
    /// Sum of the messages' tokens.
    pub tokens: u32,
}

/// An in-chat extension prompt: SillyTavern's key (they are sorted by
/// it), depth, role number, text and where the text came from.
struct InChat {
    key: String,
    depth: f64,
    role: i64,
    text: String,
    sources: Vec<PromptSource>,
}

fn entry_source(i: &Injected) -> PromptSource {
    PromptSource::Entry {
        book: i.book,
        id: i.id,
        position: i.position,
    }
}

/// Expands macros in prompt texts and notes which outlets they used.
struct Expander<'a> {
    names: &'a Names,
    /// Outlet name, joined text, the entries it holds.
    outlets: Vec<(String, String, Vec<PromptSource>)>,
    used: Vec<String>,
}

impl Expander<'_> {
    /// `text` with macros expanded; the entries of the outlets it names
    /// are added to `sources`.
    fn run(&mut self, text: &str, sources: &mut Vec<PromptSource>) -> String {
        if !self.outlets.is_empty() && find_ci(text, "{{outlet::").is_some() {
            let named = outlet_names(text);
            for (name, _, entries) in &self.outlets {
                if named.contains(&name.as_str()) {
                    sources.extend(entries.iter().cloned());
                    self.used.push(name.clone());
                }
            }
        }
        let pairs: Vec<(String, String)> = self
            .outlets
            .iter()
            .map(|(n, t, _)| (n.clone(), t.clone()))
            .collect();
        expand(text, self.names, &pairs)
    }
}

/// Adds a message unless its content is empty (openai.js: `getChat`
/// leaves empty messages out).
fn push(
    messages: &mut Vec<StPromptMessage>,
    role: Role,
    content: String,
    block: PromptBlock,
    sources: Vec<PromptSource>,
) {
    if !content.is_empty() {
        messages.push(StPromptMessage {
            role,
            name: None,
            content,
            block,
            sources,
            tokens: 0,
        });
    }
}

fn absent_all(absent: &mut Vec<Absent>, sources: &[PromptSource], reason: AbsentReason) {
    for s in sources {
        if let PromptSource::Entry { book, id, position } = s {
            absent.push(Absent {
                book: *book,
                id: *id,
                position: *position,
                reason,
                detail: reason,
            });
        }
    }
}

/// A position's entries joined by newlines, with their sources.
fn joined(list: &[&Injected]) -> (String, Vec<PromptSource>) {
    (
        list.iter()
            .map(|i| i.content.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        list.iter().map(|i| entry_source(i)).collect(),
    )
}

/// Whether SillyTavern injects at this depth: its loop visits the whole
/// numbers 0…10000 and compares them exactly.
fn injectable(depth: f64) -> bool {
    depth.fract() == 0.0 && (0.0..=MAX_INJECTION_DEPTH).contains(&depth)
}

/// Builds the final prompt of `result` for `chat` (the same messages the
/// request saw). Token counts are left at 0; [`super::StPreview::prompt`]
/// fills them.
pub fn assemble(
    result: &StResult,
    chat: &[Message],
    inputs: &StPromptInputs,
    names: &Names,
) -> StPrompt {
    let of = |p: Position| -> Vec<&Injected> {
        result.injected.iter().filter(|i| i.position == p).collect()
    };
    let mut absent = Vec::new();

    // Outlets, for `{{outlet::Name}}` (each list is highest order first).
    let mut ex = Expander {
        names,
        outlets: Vec::new(),
        used: Vec::new(),
    };
    for i in of(Position::Outlet) {
        let name = i.outlet.clone().unwrap_or_default();
        match ex.outlets.iter_mut().find(|(n, _, _)| *n == name) {
            Some((_, text, entries)) => {
                text.push('\n');
                text.push_str(&i.content);
                entries.push(entry_source(i));
            }
            None => ex
                .outlets
                .push((name, i.content.clone(), vec![entry_source(i)])),
        }
    }

    // The Author's Note with its AN-top and AN-bottom entries (the end of
    // world-info.js `checkWorldInfo`): top entries, the note, bottom
    // entries, one per line, less one leading and one trailing newline.
    let note = &inputs.authors_note;
    let due = note.is_due(chat);
    let (top, bottom) = (of(Position::AnTop), of(Position::AnBottom));
    let mut note_message: Option<(String, Vec<PromptSource>)> = None;
    if due {
        let (top_text, mut sources) = joined(&top);
        let (bottom_text, bottom_sources) = joined(&bottom);
        let mut text = format!("{top_text}\n{}\n{bottom_text}", note.text);
        if text.starts_with('\n') {
            text.remove(0);
        }
        if text.ends_with('\n') {
            text.pop();
        }
        if !note.text.is_empty() {
            sources.push(PromptSource::AuthorsNote);
        }
        sources.extend(bottom_sources);
        if note.position == NotePosition::None {
            absent_all(&mut absent, &sources, AbsentReason::NotePosition);
        }
        note_message = Some((text, sources));
    } else {
        let sources: Vec<PromptSource> =
            top.iter().chain(&bottom).map(|i| entry_source(i)).collect();
        absent_all(&mut absent, &sources, AbsentReason::NoteNotDue);
    }

    let mut messages: Vec<StPromptMessage> = Vec::new();
    // Main, with a relative note before or after it
    // (populateChatCompletion: injectToMain).
    let relative_note = |messages: &mut Vec<StPromptMessage>, ex: &mut Expander| {
        if let Some((text, sources)) = &note_message {
            let mut sources = sources.clone();
            let content = ex.run(text, &mut sources);
            push(
                messages,
                role_of(note.role),
                content,
                PromptBlock::Main,
                sources,
            );
        }
    };
    if note.position == NotePosition::BeforeMain {
        relative_note(&mut messages, &mut ex);
    }
    let mut sources = vec![PromptSource::Main];
    let content = ex.run(&inputs.main, &mut sources);
    push(
        &mut messages,
        Role::System,
        content,
        PromptBlock::Main,
        sources,
    );
    if note.position == NotePosition::AfterMain {
        relative_note(&mut messages, &mut ex);
    }

    // World info before, the card's fields, world info after
    // (preparePromptsForChatCompletion; the default wi_format leaves the
    // text as it is).
    let (before, before_sources) = joined(&of(Position::Before));
    push(
        &mut messages,
        Role::System,
        before,
        PromptBlock::WorldInfoBefore,
        before_sources,
    );
    for (text, source, block) in [
        (
            &inputs.persona,
            PromptSource::Persona,
            PromptBlock::PersonaDescription,
        ),
        (
            &inputs.description,
            PromptSource::Description,
            PromptBlock::CharDescription,
        ),
        (
            &inputs.personality,
            PromptSource::Personality,
            PromptBlock::CharPersonality,
        ),
        (
            &inputs.scenario,
            PromptSource::Scenario,
            PromptBlock::Scenario,
        ),
    ] {
        let mut sources = vec![source];
        let content = ex.run(js_trim(text), &mut sources);
        push(&mut messages, Role::System, content, block, sources);
    }
    let (after, after_sources) = joined(&of(Position::After));
    push(
        &mut messages,
        Role::System,
        after,
        PromptBlock::WorldInfoAfter,
        after_sources,
    );

    // Dialogue examples: the card's blocks, EM-top entries' blocks in
    // front (each entry's blocks go before all others, so the last one
    // listed comes first), EM-bottom entries' blocks after (script.js:
    // Generate, after getWorldInfoPrompt).
    let mut blocks: Vec<(String, PromptSource)> =
        example_blocks(&expand(&inputs.examples, names, &[]).replace('\r', ""))
            .into_iter()
            .enumerate()
            .map(|(n, b)| (b, PromptSource::Example { block: n }))
            .collect();
    for i in of(Position::EmTop)
        .into_iter()
        .chain(of(Position::EmBottom))
    {
        let found: Vec<(String, PromptSource)> =
            example_blocks(&expand(&i.content, names, &[]).replace('\r', ""))
                .into_iter()
                .map(|b| (b, entry_source(i)))
                .collect();
        if found
            .iter()
            .all(|(b, _)| example_messages(b, names).is_empty())
        {
            absent_all(
                &mut absent,
                &[entry_source(i)],
                AbsentReason::ExampleWithoutSpeakers,
            );
        }
        if i.position == Position::EmTop {
            blocks.splice(0..0, found);
        } else {
            blocks.extend(found);
        }
    }
    for (block, source) in &blocks {
        push(
            &mut messages,
            Role::System,
            expand(&inputs.new_example_chat, names, &[]),
            PromptBlock::DialogueExamples,
            vec![PromptSource::NewExampleChat],
        );
        for (name, content) in example_messages(block, names) {
            if !content.is_empty() {
                messages.push(StPromptMessage {
                    role: Role::System,
                    name: Some(name),
                    content,
                    block: PromptBlock::DialogueExamples,
                    sources: vec![source.clone()],
                    tokens: 0,
                });
            }
        }
    }

    // Chat history, newest first while injecting; hidden messages are not
    // sent (openai.js: setOpenAIMessages, populationInjectionPrompts).
    let mut history: Vec<StPromptMessage> = Vec::new();
    for (index, m) in chat.iter().enumerate().rev() {
        if m.role == Speaker::System {
            continue;
        }
        let mut sources = vec![PromptSource::Chat { index }];
        let content = ex.run(&m.text.replace('\r', ""), &mut sources);
        history.push(StPromptMessage {
            role: if m.role == Speaker::User {
                Role::User
            } else {
                Role::Assistant
            },
            name: None,
            content,
            block: PromptBlock::ChatHistory,
            sources,
            tokens: 0,
        });
    }
    let mut in_chat: Vec<InChat> = Vec::new();
    if note.position == NotePosition::InChat {
        if let Some((text, sources)) = note_message {
            if !injectable(note.depth) || !(0..=2).contains(&note.role) {
                absent_all(&mut absent, &sources, AbsentReason::NoteDepthOrRole);
            }
            in_chat.push(InChat {
                key: "2_floating_prompt".into(),
                depth: note.depth,
                role: note.role,
                text,
                sources,
            });
        }
    }
    if let Some(c) = &inputs.character_note {
        in_chat.push(InChat {
            key: "DEPTH_PROMPT".into(),
            depth: c.depth,
            role: c.role,
            text: js_trim(&c.text).to_string(),
            sources: vec![PromptSource::CharacterNote],
        });
    }
    // One extension prompt per (depth, role) group (script.js: Generate,
    // customDepthWI_<depth>_<role>).
    let mut groups: Vec<InChat> = Vec::new();
    for i in of(Position::AtDepth) {
        let depth = i.depth.unwrap_or(f64::NAN);
        let role = i64::from(i.role.unwrap_or_default().to_st());
        match groups
            .iter_mut()
            .find(|g| g.depth.to_bits() == depth.to_bits() && g.role == role)
        {
            Some(g) => {
                g.text.push('\n');
                g.text.push_str(&i.content);
                g.sources.push(entry_source(i));
            }
            None => groups.push(InChat {
                key: format!("customDepthWI_{depth}_{role}"),
                depth,
                role,
                text: i.content.clone(),
                sources: vec![entry_source(i)],
            }),
        }
    }
    for g in &groups {
        if !injectable(g.depth) {
            absent_all(&mut absent, &g.sources, AbsentReason::Depth);
        }
    }
    in_chat.extend(groups);
    // getExtensionPrompt gathers the prompts of one depth and role sorted
    // by key (code-unit order): the note, the character's note, then
    // world info.
    in_chat.sort_by(|a, b| a.key.cmp(&b.key));
    let mut depths: Vec<f64> = in_chat
        .iter()
        .map(|p| p.depth)
        .filter(|d| injectable(*d))
        .collect();
    depths.sort_by(|a, b| a.total_cmp(b));
    depths.dedup();
    let mut inserted = 0usize;
    for depth in depths {
        let mut at_depth = Vec::new();
        // System first in the newest-first list: closest to the end.
        for role in [Role::System, Role::User, Role::Assistant] {
            let role_n = i64::from(role.to_st());
            let mut sources = Vec::new();
            let mut texts = Vec::new();
            for p in in_chat
                .iter()
                .filter(|p| p.depth == depth && p.role == role_n && !p.text.is_empty())
            {
                texts.push(js_trim(&p.text));
                sources.extend(p.sources.iter().cloned());
            }
            let text = texts.join("\n");
            let content = js_trim(&ex.run(&text, &mut sources)).to_string();
            if !content.is_empty() {
                at_depth.push(StPromptMessage {
                    role,
                    name: None,
                    content,
                    block: PromptBlock::ChatHistory,
                    sources,
                    tokens: 0,
                });
            }
        }
        let n = at_depth.len();
        let at = (depth as usize + inserted).min(history.len());
        history.splice(at..at, at_depth);
        inserted += n;
    }
    history.reverse();
    let content = expand(&inputs.new_chat, names, &[]);
    push(
        &mut messages,
        Role::System,
        content,
        PromptBlock::ChatHistory,
        vec![PromptSource::NewChat],
    );
    messages.extend(history.into_iter().filter(|m| !m.content.is_empty()));

    for i in of(Position::Outlet) {
        let name = i.outlet.as_deref().unwrap_or_default();
        if !ex.used.iter().any(|u| u == name) {
            absent_all(&mut absent, &[entry_source(i)], AbsentReason::OutletUnused);
        }
    }
    StPrompt {
        messages,
        authors_note_due: due,
        absent,
        tokens: 0,
    }
}
