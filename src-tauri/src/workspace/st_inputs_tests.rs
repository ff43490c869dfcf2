//! The preview's persona, character and Author's Note texts under
//! SillyTavern's rules (`workspace/st_inputs.rs`): the entries' `match…`
//! flags scan them, the final prompt places them, a card fills them in,
//! and they are kept with SillyTavern's settings.

use std::path::PathBuf;

use lorebook_engine::model::Role;
use lorebook_engine::sillytavern::PromptBlock;
use serde_json::{json, Value};

use super::*;
use crate::views::{
    ImportOutcome, StAuthorsNoteView, StCharacterNoteView, StInputsView, StNotePosition,
    StPromptMessageView, StPromptSourceView,
};

fn scratch(name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("lbs-stin-{name}-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Imports `file` (confirming its report) and answers the book's id.
fn import(ws: &mut Workspace, file: &std::path::Path) -> u32 {
    match ws.import_path(file).unwrap() {
        ImportOutcome::Pending(p) => ws.confirm_import(p.id, true).unwrap().unwrap(),
        ImportOutcome::Opened(o) => o.doc,
    }
}

/// A SillyTavern world entry keyed `key`, with `extra` fields.
fn st_entry(uid: u64, key: &str, extra: Value) -> Value {
    let mut e = json!({"uid": uid, "key": [key], "keysecondary": [], "comment": format!("e{uid}"),
        "content": format!("Lore {uid}."), "constant": false, "selective": true,
        "selectiveLogic": 0, "order": 100, "position": 0, "disable": false,
        "probability": 100, "useProbability": true, "depth": 4, "group": "",
        "scanDepth": null, "caseSensitive": null, "matchWholeWords": null, "role": null});
    for (k, v) in extra.as_object().unwrap() {
        e[k] = v.clone();
    }
    e
}

/// A world whose entries match only through the persona and card fields:
/// 0 scans the persona description, 1 the character description, 2 the
/// persona too but without the flag, 3 the character's note, 4 the
/// scenario, 5 the creator notes, 6 the personality.
fn matching_world() -> Value {
    json!({"entries": {
        "0": st_entry(0, "lighthouse", json!({"matchPersonaDescription": true})),
        "1": st_entry(1, "dragon", json!({"matchCharacterDescription": true})),
        "2": st_entry(2, "lighthouse", json!({})),
        "3": st_entry(3, "whisper", json!({"matchCharacterDepthPrompt": true})),
        "4": st_entry(4, "harbor", json!({"matchScenario": true})),
        "5": st_entry(5, "canon", json!({"matchCreatorNotes": true})),
        "6": st_entry(6, "gruff", json!({"matchCharacterPersonality": true})),
        "7": st_entry(7, "Mira", json!({"matchPersonaDescription": true, "caseSensitive": true})),
    }})
}

fn with_world(world: Value, name: &str) -> (Workspace, u32) {
    let dir = scratch(name);
    let file = dir.join("World.json");
    std::fs::write(&file, serde_json::to_vec(&world).unwrap()).unwrap();
    let mut ws = Workspace::default();
    let doc = import(&mut ws, &file);
    ws.set_chat("User: hello there\nCharacter: good evening".into());
    (ws, doc)
}

fn injected(ws: &mut Workspace) -> Vec<u64> {
    let mut ids: Vec<u64> = ws
        .st_preview(None)
        .unwrap()
        .injected
        .iter()
        .map(|i| i.id)
        .collect();
    ids.sort_unstable();
    ids
}

#[test]
fn match_flags_activate_from_the_persona_and_character_fields_and_not_without_them() {
    let (mut ws, _) = with_world(matching_world(), "match");
    assert_eq!(injected(&mut ws), Vec::<u64>::new(), "nothing in the chat");
    let inputs = StInputsView {
        persona: "A keeper of the lighthouse.".into(),
        ..StInputsView::default()
    };
    ws.set_st_inputs(inputs.clone()).unwrap();
    // world-info.js WorldInfoBuffer.get: the persona description is added
    // to the text of entries with matchPersonaDescription only.
    assert_eq!(injected(&mut ws), [0], "the flagged entry, not entry 2");
    ws.set_st_inputs(StInputsView {
        description: Some("A dragon.".into()),
        personality: Some("Gruff.".into()),
        scenario: Some("At the harbor.".into()),
        creator_notes: Some("Canon only.".into()),
        character_note: Some(StCharacterNoteView {
            text: "Speak in a whisper.".into(),
            ..StCharacterNoteView::default()
        }),
        ..inputs
    })
    .unwrap();
    assert_eq!(injected(&mut ws), [0, 1, 3, 4, 5, 6]);
    // The request log scans them too.
    let log = ws.preview_log().unwrap();
    assert_eq!(log.last().unwrap().injected.len(), 6);
    ws.set_st_inputs(StInputsView::default()).unwrap();
    assert_eq!(injected(&mut ws), Vec::<u64>::new(), "cleared again");
    // The fields are scanned with their macros expanded (the {{char}}
    // name of the settings).
    let mut settings = ws.st_settings.clone();
    settings.char_name = "Mira".into();
    ws.set_st_settings(settings).unwrap();
    ws.set_st_inputs(StInputsView {
        persona: "I serve {{char}}.".into(),
        ..StInputsView::default()
    })
    .unwrap();
    assert_eq!(injected(&mut ws), [7]);
}

fn prompt_lines(ws: &mut Workspace) -> Vec<StPromptMessageView> {
    ws.st_preview_with_prompt(None, None)
        .unwrap()
        .prompt
        .unwrap()
        .middle
}

#[test]
fn the_final_prompt_places_the_persona_card_fields_and_notes_where_sillytavern_does() {
    let (mut ws, _) = with_world(matching_world(), "prompt");
    ws.set_chat("User: one\nCharacter: two\nUser: three\nCharacter: four\nUser: five".into());
    let before = prompt_lines(&mut ws);
    assert!(
        before
            .iter()
            .all(|m| m.block != PromptBlock::CharDescription),
        "no card text by default"
    );
    ws.set_st_inputs(StInputsView {
        persona: "I am {{user}}.".into(),
        description: Some("{{char}} is tall.".into()),
        personality: Some("Kind.".into()),
        scenario: Some("A quiet town.".into()),
        examples: Some("<START>\n{{user}}: hi\n{{char}}: hello".into()),
        creator_notes: Some("Not in the prompt.".into()),
        character_note: Some(StCharacterNoteView {
            text: "Stay in character.".into(),
            depth: 2.0,
            role: Role::User,
        }),
        authors_note: StAuthorsNoteView {
            text: "Rainy evening.".into(),
            depth: 1.0,
            ..StAuthorsNoteView::default()
        },
    })
    .unwrap();
    let lines = prompt_lines(&mut ws);
    let text: Vec<String> = lines
        .iter()
        .map(|m| format!("{} {}: {}", m.block.as_str(), m.role.as_str(), m.content))
        .collect();
    let at = |s: &str| {
        text.iter()
            .position(|l| l.ends_with(s))
            .unwrap_or_else(|| panic!("{s:?} in {text:#?}"))
    };
    // PromptManager's default order: main, world info before, persona,
    // description, personality, scenario, world info after, examples, chat.
    let order = [
        at("main system: Write Character's next reply in a fictional chat between Character and User."),
        at("personaDescription system: I am User."),
        at("charDescription system: Character is tall."),
        at("charPersonality system: Kind."),
        at("scenario system: A quiet town."),
        at("dialogueExamples system: hi"),
        at("chatHistory system: [Start a new Chat]"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{text:#?}");
    assert!(!text.iter().any(|l| l.contains("Not in the prompt.")));
    // authors-note.js / openai.js populationInjectionPrompts: the note at
    // depth 1 (before the last message, as system), the character's note
    // at depth 2 as user.
    let five = at("chatHistory user: five");
    assert_eq!(text[five - 1], "chatHistory system: Rainy evening.");
    assert_eq!(lines[five - 1].sources, [StPromptSourceView::AuthorsNote]);
    let four = at("chatHistory assistant: four");
    assert_eq!(four, five - 2);
    assert_eq!(text[four - 1], "chatHistory user: Stay in character.");
    assert_eq!(lines[four - 1].sources, [StPromptSourceView::CharacterNote]);
    // Position "before main" puts the note right before the main prompt.
    let mut v = ws.st_inputs.clone();
    v.authors_note.position = StNotePosition::BeforeMain;
    ws.set_st_inputs(v.clone()).unwrap();
    let text: Vec<String> = prompt_lines(&mut ws)
        .iter()
        .map(|m| format!("{} {}: {}", m.block.as_str(), m.role.as_str(), m.content))
        .collect();
    assert!(text[0].ends_with(": Rainy evening."), "{text:#?}");
    assert!(text[1].starts_with("main system: Write"), "{text:#?}");
    // Frequency 2: inserted when the user messages are a multiple of 2
    // (3 here, so not), and the preview says it is not due.
    v.authors_note.interval = 2.0;
    ws.set_st_inputs(v).unwrap();
    let p = ws
        .st_preview_with_prompt(None, None)
        .unwrap()
        .prompt
        .unwrap();
    assert!(!p.authors_note_due);
    assert!(!p
        .middle
        .iter()
        .any(|m| m.content.contains("Rainy evening.")));
}

#[test]
fn the_notes_numbers_are_checked_and_nothing_changes_on_a_bad_one() {
    let mut ws = Workspace::default();
    let good = StInputsView {
        persona: "kept".into(),
        ..StInputsView::default()
    };
    ws.set_st_inputs(good.clone()).unwrap();
    for bad in [
        StInputsView {
            authors_note: StAuthorsNoteView {
                depth: 1.5,
                ..StAuthorsNoteView::default()
            },
            ..StInputsView::default()
        },
        StInputsView {
            authors_note: StAuthorsNoteView {
                interval: -1.0,
                ..StAuthorsNoteView::default()
            },
            ..StInputsView::default()
        },
        StInputsView {
            character_note: Some(StCharacterNoteView {
                depth: 10_001.0,
                ..StCharacterNoteView::default()
            }),
            ..StInputsView::default()
        },
    ] {
        let e = ws.set_st_inputs(bad).unwrap_err();
        assert_eq!(e.kind, crate::error::ErrorKind::Invalid, "{e:?}");
    }
    assert_eq!(ws.st_inputs, good);
}

/// A v2 card whose book has an entry scanning the character description.
fn card() -> Value {
    json!({"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Mira", "description": "{{char}} rides a dragon.", "personality": "Brave.",
        "scenario": "The northern pass.", "first_mes": "Hi.",
        "mes_example": "<START>\n{{user}}: who are you?\n{{char}}: Mira.",
        "creator_notes": "For testing.", "system_prompt": "Card rules. {{original}}",
        "extensions": {"depth_prompt": {"prompt": "Mira is wary.", "depth": 3, "role": "assistant"}},
        "character_book": {"entries": [
            {"id": 0, "keys": ["dragon"], "content": "Dragons breathe frost.", "enabled": true,
             "insertion_order": 100, "extensions": {"match_character_description": true}}
        ]}
    }})
}

/// The PNG signature, a 1×1 image, and `card` in a `chara` tEXt chunk.
fn png_card(card: &Value) -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut c = 0xFFFF_FFFFu32;
        for b in bytes {
            c ^= u32::from(*b);
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }
    fn base64(bytes: &[u8]) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |kind: &[u8], data: &[u8]| {
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        out.extend((data.len() as u32).to_be_bytes());
        out.extend(&body);
        out.extend(crc32(&body).to_be_bytes());
    };
    chunk(b"IHDR", &[0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);
    chunk(b"IDAT", &[0x78, 0x9c, 0x63, 0, 0, 0, 1, 0, 1]);
    let mut text = b"chara\0".to_vec();
    text.extend(base64(card.to_string().as_bytes()).bytes());
    chunk(b"tEXt", &text);
    chunk(b"IEND", &[]);
    out
}

#[test]
fn a_cards_fields_fill_the_inputs_until_edited_from_json_and_png() {
    let dir = scratch("card");
    let json_file = dir.join("Mira.json");
    std::fs::write(&json_file, serde_json::to_vec(&card()).unwrap()).unwrap();
    let png_file = dir.join("Mira.png");
    std::fs::write(&png_file, png_card(&card())).unwrap();
    for file in [json_file, png_file] {
        let mut ws = Workspace::default();
        let doc = import(&mut ws, &file);
        ws.set_chat("User: hello".into());
        let view = ws.rules_view();
        let card = view.card.expect("the card's fields");
        assert_eq!((card.doc, card.name.as_str()), (doc, "Mira"), "{file:?}");
        assert_eq!(card.description, "{{char}} rides a dragon.");
        assert_eq!(card.personality, "Brave.");
        assert_eq!(card.scenario, "The northern pass.");
        assert_eq!(
            card.examples,
            "<START>\n{{user}}: who are you?\n{{char}}: Mira."
        );
        assert_eq!(card.creator_notes, "For testing.");
        assert_eq!(
            card.character_note,
            Some(StCharacterNoteView {
                text: "Mira is wary.".into(),
                depth: 3.0,
                role: Role::Assistant
            })
        );
        assert!(card.system_prompt);
        assert_eq!(view.inputs, StInputsView::default(), "nothing typed");
        // Following the card: its description is scanned and placed, its
        // system prompt replaces the main prompt ({{original}} kept).
        assert_eq!(injected(&mut ws), [0], "{file:?}");
        let text: Vec<String> = prompt_lines(&mut ws)
            .iter()
            .map(|m| format!("{}: {}", m.block.as_str(), m.content))
            .collect();
        assert_eq!(
            text[0],
            "main: Card rules. Write Character's next reply in a fictional chat between Character and User."
        );
        for want in [
            "charDescription: Character rides a dragon.",
            "charPersonality: Brave.",
            "scenario: The northern pass.",
            "dialogueExamples: who are you?",
            "chatHistory: Mira is wary.",
        ] {
            assert!(text.iter().any(|l| l == want), "{want:?} in {text:#?}");
        }
        // Cleared by the user: the card's description is neither scanned
        // nor placed; set back to follow the card, it is again.
        ws.set_st_inputs(StInputsView {
            description: Some(String::new()),
            ..StInputsView::default()
        })
        .unwrap();
        assert_eq!(injected(&mut ws), Vec::<u64>::new());
        assert!(!prompt_lines(&mut ws)
            .iter()
            .any(|m| m.block == PromptBlock::CharDescription));
        assert_eq!(
            ws.rules_view().card.unwrap().description,
            "{{char}} rides a dragon.",
            "the card itself is untouched"
        );
        ws.set_st_inputs(StInputsView::default()).unwrap();
        assert_eq!(injected(&mut ws), [0]);
        // Detached, the card no longer fills anything.
        ws.set_attached(doc, false).unwrap();
        assert!(ws.rules_view().card.is_none());
    }
}

#[test]
fn the_inputs_are_kept_with_the_settings_and_unknown_keys_survive() {
    let mut ws = Workspace::default();
    let mut settings = ws.st_settings.clone();
    settings.depth = 7.0;
    ws.set_st_settings(settings).unwrap();
    let inputs = StInputsView {
        persona: "A sailor.".into(),
        description: Some(String::new()),
        personality: None,
        scenario: Some("At sea.".into()),
        examples: None,
        creator_notes: Some("notes".into()),
        character_note: Some(StCharacterNoteView {
            text: "Salt.".into(),
            depth: 0.0,
            role: Role::Assistant,
        }),
        authors_note: StAuthorsNoteView {
            text: "Storm.".into(),
            interval: 3.0,
            position: StNotePosition::AfterMain,
            depth: 9.0,
            role: Role::User,
        },
    };
    ws.set_st_inputs(inputs.clone()).unwrap();
    // A file written by a newer version, with keys this one does not know.
    let old = json!({"depth": 2, "future_setting": [1, 2], "inputs": {"future_input": "x"}});
    let bytes = ws.st_file(Some(&serde_json::to_vec(&old).unwrap()));
    let written: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(written["future_setting"], json!([1, 2]));
    assert_eq!(written["inputs"]["future_input"], "x");
    assert_eq!(written["depth"], 7.0);
    let mut next = Workspace::default();
    next.restore_st_file(&bytes);
    assert_eq!(next.st_settings, ws.st_settings);
    assert_eq!(next.st_inputs, inputs);
    // A file from before the inputs existed keeps its settings and gives
    // empty inputs; a broken file or bad numbers change nothing.
    let before = serde_json::to_vec(&ws.st_settings).unwrap();
    let mut older = Workspace::default();
    older.restore_st_file(&before);
    assert_eq!(older.st_settings.depth, 7.0);
    assert_eq!(older.st_inputs, StInputsView::default());
    older.restore_st_file(b"{ not json");
    assert_eq!(older.st_settings.depth, 7.0);
    let mut bad = written.clone();
    bad["inputs"]["authors_note"]["depth"] = json!(-3);
    older.restore_st_file(&serde_json::to_vec(&bad).unwrap());
    assert_eq!(older.st_inputs, StInputsView::default(), "refused whole");
    assert_eq!(older.st_settings.depth, 7.0);
    // Written without an old file, it reads back the same.
    let fresh = ws.st_file(None);
    let mut again = Workspace::default();
    again.restore_st_file(&fresh);
    assert_eq!(again.st_inputs, inputs);
}
