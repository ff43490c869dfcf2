//! RisuAI's final prompt without a prompt template (`risu::prompt`;
//! docs/risu-rules.md, "The final prompt"): each case names the part of
//! RisuAI 460ecae's `sendChat` it pins down.

mod common;

use lorebook_engine::model::{Book, Entry, Role};
use lorebook_engine::risu::prompt::{
    self, build, example_messages, split_roles, RisuPromptInputs, RisuSource,
};
use lorebook_engine::risu::{RisuOptions, RisuPreview, RisuResult, RisuSettings};

fn entry(id: u64, keys: &[&str], order: i64, content: &str) -> Entry {
    Entry {
        order,
        priority: order,
        whole_words: false,
        ..common::entry(id, keys, content)
    }
}

fn request(book: &Book, chat: &str) -> (RisuResult, Vec<lorebook_engine::chat::Message>) {
    let chat = common::chat(chat);
    let mut p = RisuPreview::new(&[book], RisuSettings::default(), RisuOptions::default());
    (p.request_after(&chat, chat.len()), chat)
}

/// (role, source kind, content) of each message.
fn shape(p: &prompt::RisuPrompt) -> Vec<(Role, String, String)> {
    p.messages
        .iter()
        .map(|m| {
            let kind = match &m.source {
                RisuSource::Entry { id, .. } => format!("entry {id}"),
                RisuSource::Chat { index } => format!("chat {index}"),
                other => serde_json::to_value(other).unwrap()["kind"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            };
            (m.role, kind, m.content.clone())
        })
        .collect()
}

fn m(role: Role, kind: &str, content: &str) -> (Role, String, String) {
    (role, kind.to_string(), content.to_string())
}

/// sendChat's default formatting order: main, description, persona, the
/// chat block (the new-chat line, the greeting, the messages), the last
/// message, the lorebook, the global note, the
/// author's note, then what goes after everything; empty slots leave no
/// message, and each lorebook entry is its own message with its role.
#[test]
fn send_chat_orders_the_slots_and_drops_empty_messages() {
    let book = common::book(vec![
        entry(0, &["harbor"], 100, "Tar and salt."),
        entry(1, &["harbor"], 50, "@@role user\nGulls."),
    ]);
    // A 3-message chat at RisuAI's scan depth 5 scans its last 2 messages.
    let (r, chat) = request(&book, "User: land ho\nBot: we sail\nUser: to the harbor");
    let inputs = RisuPromptInputs {
        main: "Be the narrator.".into(),
        description: "A port town.".into(),
        persona: "  ".into(),
        greeting: "Welcome aboard.".into(),
        global_note: "Stay brief.".into(),
        author_note: "Rain today.".into(),
        ..RisuPromptInputs::default()
    };
    let p = build(&r, &chat, &inputs);
    assert_eq!(
        shape(&p),
        [
            m(Role::System, "main", "Be the narrator."),
            m(Role::System, "description", "A port town."),
            m(Role::System, "new_chat", prompt::NEW_CHAT),
            m(Role::Assistant, "greeting", "Welcome aboard."),
            m(Role::User, "chat 0", "land ho"),
            m(Role::Assistant, "chat 1", "we sail"),
            m(Role::User, "chat 2", "to the harbor"),
            // RisuAI's final order: ascending insertorder.
            m(Role::User, "entry 1", "Gulls."),
            m(Role::System, "entry 0", "Tar and salt."),
            m(Role::System, "global_note", "Stay brief."),
            m(Role::System, "author_note", "Rain today."),
        ]
    );
    assert!(p.absent.is_empty());
}

/// sendChat's lorebook positions: `@@depth N` counts from the start of
/// the chat block (examples and the new-chat line included, the last
/// message split off), `@@reverse_depth N` from its end, `@@depth 0` goes
/// after everything (assistant entries last), `before_desc` in front of
/// the description (reversed), `after_desc` after it, `pt_` nowhere
/// without a template.
#[test]
fn send_chat_places_entries_by_their_positions() {
    let book = common::book(vec![
        entry(0, &["x"], 10, "@@depth 1\nDeep one."),
        entry(1, &["x"], 20, "@@reverse_depth 1\nNear the end."),
        entry(2, &["x"], 30, "@@end\n@@role assistant\nPrefill."),
        entry(3, &["x"], 40, "@@depth 0\nLast word."),
        entry(4, &["x"], 50, "@@position before_desc\nBefore A."),
        entry(5, &["x"], 60, "@@position before_desc\nBefore B."),
        entry(6, &["x"], 70, "@@position after_desc\nAfter."),
        entry(7, &["x"], 80, "@@position pt_lore\nTemplate only."),
    ]);
    let (r, chat) = request(&book, "User: x one\nBot: x two\nUser: x three");
    let inputs = RisuPromptInputs {
        description: "Desc.".into(),
        ..RisuPromptInputs::default()
    };
    let p = build(&r, &chat, &inputs);
    assert_eq!(
        shape(&p),
        [
            m(Role::System, "entry 5", "Before B."),
            m(Role::System, "entry 4", "Before A."),
            m(Role::System, "description", "Desc."),
            m(Role::System, "entry 6", "After."),
            m(Role::System, "new_chat", prompt::NEW_CHAT),
            m(Role::System, "entry 0", "Deep one."),
            m(Role::User, "chat 0", "x one"),
            m(Role::System, "entry 1", "Near the end."),
            m(Role::Assistant, "chat 1", "x two"),
            m(Role::User, "chat 2", "x three"),
            m(Role::System, "entry 3", "Last word."),
            m(Role::Assistant, "entry 2", "Prefill."),
        ]
    );
    assert_eq!(p.absent.len(), 1);
    assert_eq!(
        (p.absent[0].id, p.absent[0].position.as_str()),
        (7, "pt_lore")
    );
}

/// sendChat's `formatPrompt`: role markers split the main prompt and the
/// global note; a text that starts with `@@` but no marker gives nothing.
#[test]
fn send_chat_splits_the_main_prompt_at_role_markers() {
    let got: Vec<(Role, String)> = split_roles(
        "Rules first.\n@@user\nHello\n@@@assistant\nHi there",
        RisuSource::Main,
    )
    .into_iter()
    .map(|m| (m.role, m.content))
    .collect();
    assert_eq!(
        got,
        [
            (Role::System, "Rules first.\n".to_string()),
            (Role::User, "Hello\n".to_string()),
            (Role::Assistant, "Hi there".to_string()),
        ]
    );
    assert!(split_roles("@@narrator\nHello", RisuSource::Main).is_empty());
    assert_eq!(split_roles("@@user\nOnly", RisuSource::Main).len(), 1);
}

/// exampleMessage: `<START>` opens an example chat with the new-chat
/// line, speaker lines start messages (up to the line's next colon),
/// other lines continue them, lines before the first speaker are dropped.
#[test]
fn example_message_reads_speakers_and_starts() {
    let got: Vec<(Role, String)> =
        example_messages("stray line\n<START>\n{{user}}: Hi: there\n{{char}}: Hello\nmore text")
            .into_iter()
            .map(|m| (m.role, m.content))
            .collect();
    assert_eq!(
        got,
        [
            (Role::System, prompt::NEW_CHAT.to_string()),
            (Role::User, " Hi".to_string()),
            (Role::Assistant, " Hello\nmore text".to_string()),
        ]
    );
}

/// sendChat sends nothing when the prompt build throws (`@@position`
/// without a value): the profile answers the failure and no prompt.
#[test]
fn send_chat_sends_nothing_when_the_build_throws() {
    use lorebook_engine::profile::{self, Setup};
    let book = common::book(vec![entry(0, &["x"], 10, "@@position\nBroken.")]);
    let chat = common::chat("User: x");
    let mut p = profile::build(
        &[(String::new(), &book)],
        Setup::Risu {
            settings: RisuSettings::default(),
            options: RisuOptions::default(),
            inputs: Box::default(),
        },
    )
    .unwrap();
    p.set_prompts(true);
    let o = p.current(&chat);
    assert!(o.prompt.is_none());
    let ok = common::book(vec![entry(0, &["x"], 10, "Fine.")]);
    let mut p = profile::build(
        &[(String::new(), &ok)],
        Setup::Risu {
            settings: RisuSettings::default(),
            options: RisuOptions::default(),
            inputs: Box::default(),
        },
    )
    .unwrap();
    p.set_prompts(true);
    assert!(p.current(&chat).prompt.is_some());
}
