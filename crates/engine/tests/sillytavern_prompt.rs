//! Data-driven tests of the final prompt under SillyTavern's rules (Chat
//! Completion, default prompt manager order), one rule per test, each
//! naming the SillyTavern function whose behaviour it pins down.

use lorebook_engine::chat::{Message, Speaker};
use lorebook_engine::sillytavern::prompt::{example_blocks, example_messages};
use lorebook_engine::sillytavern::{
    AuthorsNote, Names, NotePosition, PromptBlock, PromptSource, StPreview, StPrompt,
    StPromptInputs, TimedState,
};
use lorebook_engine::tokenizer::{Encoding, Tokenizer};
use serde_json::{json, Value};

mod common;
use common::{st_book, st_preview, tom_and_mira as chat};

/// A preview over one book of SillyTavern entries (uid = index).
fn preview(entries: Value) -> StPreview {
    preview_with(entries, json!({}))
}

/// The same with more settings.
fn preview_with(entries: Value, more: Value) -> StPreview {
    let mut settings = json!({"world_info_depth": 2,
        "world_info_recursive": false, "world_info_match_whole_words": true});
    for (k, v) in more.as_object().unwrap() {
        settings[k] = v.clone();
    }
    st_preview(&st_book(&entries, false), &settings, 0)
}

fn build(p: &mut StPreview, chat: &[Message], inputs: &StPromptInputs) -> StPrompt {
    let r = p.request(chat, 8192, &mut TimedState::default());
    p.prompt(&r, chat, inputs)
}

/// `role: content` lines of the prompt.
fn lines(p: &StPrompt) -> Vec<String> {
    p.messages
        .iter()
        .map(|m| format!("{}: {}", m.role, m.content))
        .collect()
}

fn no_main() -> StPromptInputs {
    StPromptInputs {
        main: String::new(),
        new_chat: String::new(),
        ..StPromptInputs::default()
    }
}

// PromptManager.js: the default prompt order (main, world info before,
// persona, description, personality, scenario, world info after, dialogue
// examples, chat history); openai.js: preparePromptsForChatCompletion
// (world info lists joined by newlines), getChat (empty blocks left out).
#[test]
fn blocks_in_the_default_prompt_manager_order() {
    let mut p = preview(json!([
        {"key": ["apple"], "content": "B20", "order": 20, "position": 0},
        {"key": ["apple"], "content": "B10", "order": 10, "position": 0},
        {"key": ["apple"], "content": "A5", "order": 5, "position": 1},
        {"key": ["pear"], "content": "never", "position": 1},
    ]));
    let inputs = StPromptInputs {
        persona: "Tom is tall.".into(),
        description: "  {{char}} is a baker. ".into(),
        personality: "Kind.".into(),
        scenario: "A bakery.".into(),
        ..StPromptInputs::default()
    };
    let c = chat(&["I want an apple.", "Here."]);
    let prompt = build(&mut p, &c, &inputs);
    assert_eq!(
        lines(&prompt),
        [
            "system: Write Mira's next reply in a fictional chat between Mira and Tom.",
            "system: B10\nB20",
            "system: Tom is tall.",
            "system: Mira is a baker.",
            "system: Kind.",
            "system: A bakery.",
            "system: A5",
            "system: [Start a new Chat]",
            "user: I want an apple.",
            "assistant: Here.",
        ]
    );
    let blocks: Vec<PromptBlock> = prompt.messages.iter().map(|m| m.block).collect();
    assert_eq!(blocks[1], PromptBlock::WorldInfoBefore);
    assert_eq!(blocks[6], PromptBlock::WorldInfoAfter);
    assert_eq!(blocks[8], PromptBlock::ChatHistory);
    assert!(matches!(
        prompt.messages[1].sources[..],
        [
            PromptSource::Entry { id: 1, .. },
            PromptSource::Entry { id: 0, .. }
        ]
    ));
    assert_eq!(
        prompt.messages[8].sources,
        [PromptSource::Chat { index: 0 }]
    );
    // Without the card, nothing but world info and the chat.
    let prompt = build(&mut p, &c, &no_main());
    assert_eq!(
        lines(&prompt),
        [
            "system: B10\nB20",
            "system: A5",
            "user: I want an apple.",
            "assistant: Here."
        ]
    );
    assert!(prompt.messages.iter().all(|m| m.tokens > 0));
    assert_eq!(
        prompt.tokens,
        prompt.messages.iter().map(|m| m.tokens).sum::<u32>()
    );
}

// openai.js: populationInjectionPrompts (depth d puts its messages so that
// d chat messages follow; at one depth assistant, user, system from top to
// bottom; deeper insertions count the earlier ones; past the chat's start
// they go at the top), script.js: Generate (one prompt per depth and role,
// entries joined by newlines).
#[test]
fn at_depth_insertions() {
    let mut p = preview(json!([
        {"key": ["m3"], "content": "S", "position": 4, "depth": 0, "role": 0},
        {"key": ["m3"], "content": "U", "position": 4, "depth": 0, "role": 1},
        {"key": ["m3"], "content": "A", "position": 4, "depth": 2, "role": 2},
        {"key": ["m3"], "content": "S2", "position": 4, "depth": 0, "role": 0, "order": 200},
        {"key": ["m3"], "content": "Deep", "position": 4, "depth": 50, "role": 0},
        {"key": ["m3"], "content": "Half", "position": 4, "depth": 1.5, "role": 0},
    ]));
    let c = chat(&["m1", "m2", "m3"]);
    let prompt = build(&mut p, &c, &no_main());
    assert_eq!(
        lines(&prompt),
        [
            "system: Deep",
            "user: m1",
            "assistant: A",
            "assistant: m2",
            "user: m3",
            "user: U",
            "system: S\nS2",
        ]
    );
    assert_eq!(prompt.absent.len(), 1);
    assert_eq!(prompt.absent[0].id, 5);
}

// script.js: getExtensionPrompt (the prompts of one depth and role sorted
// by key: the Author's Note, then the character's note, then world info,
// each trimmed, joined by newlines into one message).
#[test]
fn note_character_note_and_entries_share_a_depth() {
    let mut p = preview(json!([
        {"key": ["hello"], "content": " Lore. ", "position": 4, "depth": 1, "role": 0},
    ]));
    let inputs = StPromptInputs {
        authors_note: AuthorsNote {
            text: "Note for {{char}}.".into(),
            depth: 1.0,
            ..AuthorsNote::default()
        },
        character_note: Some(lorebook_engine::sillytavern::CharacterNote {
            text: "Char note.".into(),
            depth: 1.0,
            role: 0,
        }),
        ..no_main()
    };
    let c = chat(&["hello", "there"]);
    let prompt = build(&mut p, &c, &inputs);
    assert_eq!(
        lines(&prompt),
        [
            "user: hello",
            "system: Note for Mira.\nChar note.\nLore.",
            "assistant: there",
        ]
    );
    assert_eq!(
        prompt.messages[1].sources,
        [
            PromptSource::AuthorsNote,
            PromptSource::CharacterNote,
            PromptSource::Entry {
                book: 0,
                id: 0,
                position: lorebook_engine::sillytavern::Position::AtDepth
            }
        ]
    );
}

// authors-note.js: setFloatingPrompt (interval 1 always; otherwise due
// when the number of user messages U is a multiple of the interval, or
// the interval minus U is 0; interval 0 or less never).
#[test]
fn authors_note_interval() {
    let cases: &[(f64, &[bool])] = &[
        // U = 0, 1, 2, 3, 4, 5, 6 user messages
        (1.0, &[true, true, true, true, true, true, true]),
        (2.0, &[false, false, true, false, true, false, true]),
        (3.0, &[false, false, false, true, false, false, true]),
        (0.0, &[false; 7]),
        (-1.0, &[false; 7]),
    ];
    for (interval, want) in cases {
        let note = AuthorsNote {
            text: "x".into(),
            interval: *interval,
            ..AuthorsNote::default()
        };
        for (users, want) in want.iter().enumerate() {
            // User messages with assistant replies between them.
            let mut texts = Vec::new();
            for _ in 0..users {
                texts.push("u");
                texts.push("a");
            }
            let c = chat(&texts);
            assert_eq!(
                note.is_due(&c),
                *want,
                "interval {interval}, {users} user message(s)"
            );
        }
    }
}

// world-info.js: checkWorldInfo (AN-top entries, the note, AN-bottom
// entries, one per line, less one leading and one trailing newline; only
// when the note is due) and authors-note.js: setFloatingPrompt.
#[test]
fn authors_note_with_top_and_bottom_entries_across_the_log() {
    let mut p = preview(json!([
        {"key": ["u"], "content": "T1", "position": 2, "order": 1},
        {"key": ["u"], "content": "T2", "position": 2, "order": 2},
        {"key": ["u"], "content": "B1", "position": 3},
    ]));
    let inputs = StPromptInputs {
        authors_note: AuthorsNote {
            text: "Stay in character.".into(),
            interval: 2.0,
            depth: 0.0,
            ..AuthorsNote::default()
        },
        ..no_main()
    };
    let c = chat(&["u", "a", "u", "a"]);
    let mut seen = Vec::new();
    let mut state = TimedState::default();
    for k in 1..=c.len() {
        let r = p.request(&c[..k], 8192, &mut state);
        let prompt = p.prompt(&r, &c[..k], &inputs);
        seen.push((prompt.authors_note_due, lines(&prompt), prompt.absent.len()));
    }
    // Request 1: one user message, not due; the AN entries are nowhere.
    assert_eq!(seen[0], (false, vec!["user: u".to_string()], 3));
    assert!(!seen[1].0);
    // Request 3: two user messages, due: at depth 0 after the last message.
    assert_eq!(
        seen[2],
        (
            true,
            vec![
                "user: u".to_string(),
                "assistant: a".into(),
                "user: u".into(),
                "system: T1\nT2\nStay in character.\nB1".into()
            ],
            0
        )
    );
    assert!(seen[3].0);
    // An empty note still carries its entries, and leaves its empty line.
    let inputs = StPromptInputs {
        authors_note: AuthorsNote {
            depth: 0.0,
            ..AuthorsNote::default()
        },
        ..no_main()
    };
    let prompt = build(&mut p, &c[..1], &inputs);
    assert_eq!(lines(&prompt), ["user: u", "system: T1\nT2\n\nB1"]);
}

// openai.js: populateChatCompletion (injectToMain: a note at position 2
// goes before the main prompt, at 0 after it, in its own message and role).
#[test]
fn authors_note_before_and_after_main() {
    let mut p = preview(json!([]));
    let c = chat(&["hi"]);
    for (position, want) in [
        (NotePosition::BeforeMain, ["user: N", "system: M"]),
        (NotePosition::AfterMain, ["system: M", "user: N"]),
    ] {
        let inputs = StPromptInputs {
            main: "M".into(),
            new_chat: String::new(),
            authors_note: AuthorsNote {
                text: "N".into(),
                position,
                role: 1,
                ..AuthorsNote::default()
            },
            ..StPromptInputs::default()
        };
        let prompt = build(&mut p, &c, &inputs);
        assert_eq!(lines(&prompt)[..2], want);
    }
    let none = StPromptInputs {
        authors_note: AuthorsNote {
            text: "N".into(),
            position: NotePosition::None,
            ..AuthorsNote::default()
        },
        ..no_main()
    };
    assert_eq!(lines(&build(&mut p, &c, &none)), ["user: hi"]);
}

// script.js: parseMesExamples (a missing <START> is added, split on
// <START> in any case, each block trimmed); openai.js:
// parseExampleIntoIndividual (first line skipped, speaker lines start
// messages, the first `Name:` removed, lines before a speaker join the
// first message).
#[test]
fn example_parsing() {
    assert_eq!(
        example_blocks("Tom: hi\nMira: yo"),
        ["<START>\nTom: hi\nMira: yo\n"]
    );
    assert_eq!(
        example_blocks("<START>\nA\n<start> B \n"),
        ["<START>\nA\n", "<START>\nB\n"]
    );
    assert!(example_blocks("<START>").is_empty());
    assert!(example_blocks("").is_empty());
    let names = Names {
        user: "Tom".into(),
        char: "Mira".into(),
        ..Default::default()
    };
    assert_eq!(
        example_messages("<START>\nintro\nTom: hi\nmore\nMira: yo Mira: x\n", &names),
        [
            ("example_user", "intro\n hi\nmore".to_string()),
            ("example_assistant", "yo Mira: x".to_string())
        ]
    );
    assert!(example_messages("<START>\nJust lore.\n", &names).is_empty());
}

// script.js: Generate (EM-top entries' blocks go in front one entry at a
// time, so the highest order comes first; EM-bottom blocks after the
// card's); openai.js: populateDialogueExamples (each example chat opened
// by the example-chat marker, messages as system with example names).
#[test]
fn example_entries_around_the_cards_examples() {
    let mut p = preview(json!([
        {"key": ["go"], "content": "{{user}}: top10", "position": 5, "order": 10},
        {"key": ["go"], "content": "{{user}}: top20", "position": 5, "order": 20},
        {"key": ["go"], "content": "{{char}}: bottom", "position": 6},
        {"key": ["go"], "content": "Plain lore.", "position": 6, "order": 1},
    ]));
    let inputs = StPromptInputs {
        examples: "<START>\n{{user}}: card\n{{char}}: reply".into(),
        ..no_main()
    };
    let prompt = build(&mut p, &chat(&["go"]), &inputs);
    let got: Vec<String> = prompt
        .messages
        .iter()
        .map(|m| format!("{} {:?} {}", m.role, m.name, m.content))
        .collect();
    assert_eq!(
        got,
        [
            "system None [Example Chat]",
            "system Some(\"example_user\") top20",
            "system None [Example Chat]",
            "system Some(\"example_user\") top10",
            "system None [Example Chat]",
            "system Some(\"example_user\") card",
            "system Some(\"example_assistant\") reply",
            "system None [Example Chat]",
            "system None [Example Chat]",
            "system Some(\"example_assistant\") bottom",
            "user None go",
        ]
    );
    assert_eq!(
        prompt.messages[5].sources,
        [PromptSource::Example { block: 0 }]
    );
    assert_eq!(prompt.absent.len(), 1, "the plain-lore example entry");
    assert_eq!(prompt.absent[0].id, 3);
}

// macros.js: {{outlet::Name}} (an outlet's text where a prompt names it;
// otherwise the outlet appears nowhere).
#[test]
fn outlets_only_where_named() {
    let mut p = preview(json!([
        {"key": ["go"], "content": "W1", "position": 7, "outletName": "w", "order": 1},
        {"key": ["go"], "content": "W2", "position": 7, "outletName": "w", "order": 2},
        {"key": ["go"], "content": "V", "position": 7, "outletName": "v"},
    ]));
    let inputs = StPromptInputs {
        scenario: "Notes: {{outlet:: w }}.".into(),
        ..no_main()
    };
    let prompt = build(&mut p, &chat(&["go"]), &inputs);
    assert_eq!(lines(&prompt), ["system: Notes: W2\nW1.", "user: go"]);
    assert_eq!(prompt.absent.len(), 1);
    assert_eq!(prompt.absent[0].id, 2);
}

// script.js: Generate (hidden messages are not sent, and do not count
// for depth); openai.js: setOpenAIMessages (carriage returns removed).
#[test]
fn hidden_messages_are_not_sent() {
    let mut p = preview(json!([
        {"key": ["b"], "content": "L", "position": 4, "depth": 1},
    ]));
    let mut c = chat(&["a\r\nx", "b"]);
    c.insert(
        1,
        Message {
            role: Speaker::System,
            name: None,
            text: "hidden".into(),
        },
    );
    let prompt = build(&mut p, &c, &no_main());
    assert_eq!(lines(&prompt), ["user: a\nx", "system: L", "assistant: b"]);
    assert_eq!(
        prompt.messages[2].sources,
        [PromptSource::Chat { index: 2 }]
    );
}

// authors-note.js: loadSettings (absent keys keep the defaults) and the
// chat metadata's note_* keys.
#[test]
fn note_from_chat_metadata() {
    let note = AuthorsNote::from_metadata(Some(&json!({
        "note_prompt": "P", "note_interval": 3, "note_position": 0, "note_role": 2})));
    assert_eq!(note.text, "P");
    assert_eq!(note.interval, 3.0);
    assert_eq!(note.position, NotePosition::AfterMain);
    assert_eq!(note.depth, 4.0);
    assert_eq!(note.role, 2);
    assert_eq!(AuthorsNote::from_metadata(None), AuthorsNote::default());
}

// world-info.js: checkWorldInfo (the budget is spent in tokens of the
// chosen model's tokenizer): another tokenizer changes what fits.
#[test]
fn tokenizer_changes_the_budget() {
    let text = "    indented code block with many     spaces and 12345678 digits";
    let with_newline = format!("{text}\n");
    let (cl, r50) = (
        Encoding::Cl100kBase.count(&with_newline),
        Encoding::R50kBase.count(&with_newline),
    );
    assert!(cl < r50, "cl100k {cl}, r50k {r50}");
    let entries = json!([{"key": ["x"], "content": text}]);
    let c = chat(&["x"]);
    let mut p = preview(entries.clone());
    let r = p.request(&c, 8192, &mut TimedState::default());
    assert_eq!(r.injected[0].tokens, Encoding::Cl100kBase.count(text));
    p.set_tokenizer(Some(Tokenizer::Bundled(Encoding::R50kBase)));
    assert_eq!(p.tokenizer().name(), "r50k_base");
    let r = p.request(&c, 8192, &mut TimedState::default());
    assert_eq!(r.injected[0].tokens, Encoding::R50kBase.count(text));
    assert_eq!(r.used, r50);
    // A cap between the two counts: it fits in cl100k tokens only.
    let mut capped = preview_with(entries, json!({"world_info_budget_cap": cl + 1}));
    assert_eq!(
        capped
            .request(&c, 8192, &mut TimedState::default())
            .injected
            .len(),
        1
    );
    capped.set_tokenizer(Some(Tokenizer::Bundled(Encoding::R50kBase)));
    let r = capped.request(&c, 8192, &mut TimedState::default());
    assert!(r.injected.is_empty() && r.overflowed);
    capped.set_tokenizer(None);
    assert_eq!(capped.tokenizer().name(), "cl100k_base");
    assert_eq!(
        capped
            .request(&c, 8192, &mut TimedState::default())
            .injected
            .len(),
        1
    );
}

// The budget loop counts nothing while the texts' bytes stay under the
// budget, which holds because a byte-level BPE never makes more tokens
// than bytes: checked here on every bundled encoding.
#[test]
fn tokens_never_exceed_bytes() {
    let texts = [
        "plain words, numbers 1234567890 and punctuation!?",
        "    \n\n\t  spaces\r\n and \u{1} control \u{0} bytes",
        "日本語のテキストと한국어 and émojis 🐉🔥 mixed",
        &"a".repeat(5000),
        &"🐉".repeat(300),
        &" \n".repeat(700),
    ];
    for e in Encoding::ALL {
        for t in texts {
            assert!(e.count(t) as usize <= t.len(), "{} on {t:?}", e.name());
        }
    }
}
