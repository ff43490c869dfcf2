//! The SillyTavern preview kept between views (`workspace/st.rs`:
//! `StKey`, `StCache`): built once while the chat is typed in, built again
//! on every change of what it is built from, and always answering as a
//! preview built from scratch would.

use serde_json::{json, Value};

use super::st_tests::{imported_with, scratch, world};
use super::*;
use crate::views::{BookSettings, StSettingsView};
use lorebook_engine::tokenizer::resources;

/// A chat long enough for timed effects to carry over several requests.
const CHAT: &str = "User: the rain on the lamp\nCharacter: the tower\nUser: a zeppelin\n\
    Character: the lamp again\nUser: quiet now\nCharacter: the rain and the tower\n\
    User: the lamp\nCharacter: a zeppelin over the tower";

/// The world with a sticky zeppelin, and the long chat.
fn workspace(name: &str) -> (Workspace, u32) {
    let mut w = world();
    w["entries"]["4"]["sticky"] = json!(3);
    w["entries"]["2"]["cooldown"] = json!(1);
    let (mut ws, doc, _) = imported_with(w, name);
    ws.set_chat(CHAT.into());
    (ws, doc)
}

/// The views a user sees: the last request, an earlier one and the log.
fn views(ws: &mut Workspace) -> Value {
    let last = ws.st_preview(None).unwrap();
    let third = ws.st_preview(Some(3)).unwrap();
    let log = ws.preview_log().unwrap();
    json!([last, third, log])
}

/// The views from the kept preview equal those of one built from scratch
/// (the kept one is put back afterwards).
fn assert_as_cold(ws: &mut Workspace, what: &str) {
    let warm = views(ws);
    let kept = ws.st.take();
    let cold = views(ws);
    ws.st = kept;
    assert_eq!(warm, cold, "{what}: the kept preview answers as a new one");
}

/// `change` is followed in place: the preview is not built again, and the
/// views equal a cold build's.
fn assert_in_place(ws: &mut Workspace, what: &str, change: impl FnOnce(&mut Workspace)) {
    ws.st_preview(None).unwrap();
    let before = ws.st_builds();
    change(ws);
    ws.st_preview(None).unwrap();
    assert_eq!(ws.st_builds(), before, "{what}: not built again");
    assert_as_cold(ws, what);
}

/// `change` makes the preview be built once more, and the views then
/// equal a cold build's.
fn assert_rebuilt(ws: &mut Workspace, what: &str, change: impl FnOnce(&mut Workspace)) {
    ws.st_preview(None).unwrap();
    let before = ws.st_builds();
    change(ws);
    ws.st_preview(None).unwrap();
    assert_eq!(ws.st_builds(), before + 1, "{what}: built again");
    assert_as_cold(ws, what);
    let after = ws.st_builds();
    views(ws);
    assert_eq!(ws.st_builds(), after, "{what}: then kept");
}

#[test]
fn typing_in_the_chat_keeps_the_preview_and_answers_as_a_new_one() {
    let (mut ws, _) = workspace("typing");
    ws.st_preview(None).unwrap();
    assert_eq!(ws.st_builds(), 1);
    // Type a word into the last message, one keystroke at a time, with the
    // final prompt open, as the app asks.
    for (n, c) in " the rain".chars().enumerate() {
        let len = ws.chat_text.chars().map(char::len_utf16).sum::<usize>() as u32;
        ws.edit_chat(len, 0, &c.to_string(), len).unwrap();
        ws.st_preview_with_prompt(None, None).unwrap();
        assert_eq!(ws.st_builds(), 1, "keystroke {n}: not built again");
    }
    assert!(ws.chat.last().unwrap().text.ends_with("tower the rain"));
    assert_as_cold(&mut ws, "typed at the end");
    // Changes at the start, in the middle, a message added and removed,
    // with the log and earlier requests viewed in between.
    let edits = [
        CHAT.replacen("the rain on the lamp", "the sea", 1),
        CHAT.replacen("quiet now", "the rain, the zeppelin", 1),
        format!("{CHAT}\nUser: the lamp and the rain"),
        CHAT.replacen("Character: the tower\n", "", 1),
        CHAT.to_string(),
    ];
    for (n, text) in edits.into_iter().enumerate() {
        ws.set_chat(text);
        ws.st_preview(Some(2)).unwrap();
        assert_as_cold(&mut ws, &format!("chat edit {n}"));
    }
    // One build for all of it, besides the cold ones the checks made.
    let builds = ws.st_builds();
    ws.set_chat(CHAT.replacen("a zeppelin over", "the lamp under", 1));
    views(&mut ws);
    assert_eq!(ws.st_builds(), builds);
}

#[test]
fn a_changed_context_size_forgets_the_timed_states_but_not_the_preview() {
    let (mut ws, _) = workspace("context");
    views(&mut ws);
    let builds = ws.st_builds();
    let mut s = ws.st_settings.clone();
    s.max_context = 300;
    ws.set_st_settings(s).unwrap();
    assert_as_cold(&mut ws, "context size");
    assert_eq!(ws.st_builds(), builds + 1, "only the cold check built one");
}

#[test]
fn every_input_of_the_preview_builds_it_again() {
    let (mut ws, doc) = workspace("inputs");
    // An entry's keys are followed in place (see
    // `typing_in_an_entry_keeps_the_preview_and_answers_as_a_new_one`);
    // undoing an added entry removes it: built again.
    assert_rebuilt(&mut ws, "an entry added", |ws| {
        ws.add_entry(doc).unwrap();
    });
    assert_rebuilt(&mut ws, "undo", |ws| {
        assert!(ws.undo(doc).unwrap());
    });
    assert_rebuilt(&mut ws, "redo", |ws| {
        assert!(ws.redo(doc).unwrap());
    });
    assert_rebuilt(&mut ws, "an entry added", |ws| {
        ws.add_entry(doc).unwrap();
    });
    assert_rebuilt(&mut ws, "an entry's order", |ws| {
        let mut e = ws.doc(doc).unwrap().book.entries[2].clone();
        e.order += 5;
        ws.update_entry(doc, e).unwrap();
    });
    assert_rebuilt(&mut ws, "an entry deleted", |ws| {
        ws.delete(doc, &[5]).unwrap()
    });
    assert_rebuilt(&mut ws, "the book renamed (its world name)", |ws| {
        let s = ws.book_settings(doc).unwrap();
        ws.set_book_settings(
            doc,
            BookSettings {
                name: "Storms".into(),
                ..s
            },
        )
        .unwrap();
    });
    let other = ws.new_book();
    assert_rebuilt(&mut ws, "a book detached", |ws| {
        ws.set_attached(other, false).unwrap();
    });
    assert_rebuilt(&mut ws, "a book attached", |ws| {
        ws.set_attached(other, true).unwrap();
    });
    assert_rebuilt(&mut ws, "a book closed", |ws| ws.close(other).unwrap());
    let set = |f: fn(&mut StSettingsView)| {
        move |ws: &mut Workspace| {
            let mut s = ws.st_settings.clone();
            f(&mut s);
            ws.set_st_settings(s).unwrap();
        }
    };
    assert_rebuilt(&mut ws, "scan depth", set(|s| s.depth = 1.0));
    assert_rebuilt(&mut ws, "whole words", set(|s| s.match_whole_words ^= true));
    assert_rebuilt(
        &mut ws,
        "the user's name",
        set(|s| s.user_name = "Ann".into()),
    );
    assert_rebuilt(
        &mut ws,
        "the character's name",
        set(|s| s.char_name = "Mira".into()),
    );
    assert_rebuilt(&mut ws, "the seed", |ws| {
        let mut s = ws.settings().clone();
        s.seed += 1;
        ws.set_settings(s).unwrap();
    });
    assert_rebuilt(&mut ws, "the model", |ws| {
        let mut s = ws.settings().clone();
        s.model = "gpt-4".into();
        ws.set_settings(s).unwrap();
    });
    let file = scratch("st-cache-tok").join("tokenizer.json");
    std::fs::write(&file, crate::preview_settings::tests::WORD_TOKENIZER).unwrap();
    assert_rebuilt(&mut ws, "a tokenizer file", |ws| {
        ws.set_tokenizer_file(Some((file.clone(), resources::load_file(&file).unwrap())));
    });
    assert_rebuilt(&mut ws, "the same file chosen again", |ws| {
        ws.set_tokenizer_file(Some((file.clone(), resources::load_file(&file).unwrap())));
    });
    assert_rebuilt(&mut ws, "the tokenizer file dropped", |ws| {
        ws.set_tokenizer_file(None);
    });
}

#[test]
fn a_book_reloaded_from_its_changed_file_builds_the_preview_again() {
    // The reloaded book starts a fresh history, at the revision the kept
    // preview was built at: only the reload itself tells them apart.
    let (mut ws, doc) = workspace("reload");
    let path = scratch("st-cache-reload").join("book.json");
    ws.save(doc, Some(path.clone()), false).unwrap();
    let mut changed = ws.doc(doc).unwrap().book.clone();
    changed.entries[0].keys = vec!["quiet".into()];
    std::fs::write(&path, lorebook_engine::formats::native::to_bytes(&changed)).unwrap();
    let revision = ws.doc(doc).unwrap().history.revision();
    assert_rebuilt(&mut ws, "reloaded from its file", |ws| {
        assert!(ws.reload(doc, false).unwrap());
    });
    assert_eq!(ws.doc(doc).unwrap().history.revision(), revision);
    assert_eq!(ws.doc(doc).unwrap().book.entries[0].keys, ["quiet"]);
}

#[test]
fn prepare_builds_the_preview_under_sillytavern_rules_only() {
    let (mut ws, _) = workspace("prepare");
    ws.prepare();
    assert_eq!(ws.st_builds(), 1, "SillyTavern's rules");
    ws.st_preview(None).unwrap();
    assert_eq!(ws.st_builds(), 1, "the first view uses it");
    let mut sample = Workspace::with_sample();
    sample.prepare();
    assert_eq!(sample.st_builds(), 0, "the guide's rules");
    // Choosing the guide's rules lets the compiled books go.
    ws.set_rules(Rules::Studio);
    assert!(ws.st.is_none());
    ws.set_rules(Rules::Sillytavern);
    ws.st_preview(None).unwrap();
    assert_eq!(ws.st_builds(), 2);
}

#[test]
fn typing_in_an_entry_keeps_the_preview_and_answers_as_a_new_one() {
    let (mut ws, doc) = workspace("entry");
    ws.st_preview(None).unwrap();
    assert_eq!(ws.st_builds(), 1);
    let lamp = |ws: &Workspace| {
        let book = &ws.doc(doc).unwrap().book;
        book.entries.iter().find(|e| e.id == 2).unwrap().clone()
    };
    for (n, c) in " Bright.".chars().enumerate() {
        assert_in_place(&mut ws, &format!("body keystroke {n}"), |ws| {
            let mut e = lamp(ws);
            e.content.push(c);
            ws.update_entry(doc, e).unwrap();
        });
    }
    let shown = ws.st_preview(Some(1)).unwrap();
    assert!(shown.injected.iter().any(|i| i.id == 2 && i.tokens > 0));
    assert_in_place(&mut ws, "the enabled flag", |ws| {
        let mut e = lamp(ws);
        e.enabled = false;
        ws.update_entry(doc, e).unwrap();
    });
    assert!(!ws
        .st_preview(Some(1))
        .unwrap()
        .injected
        .iter()
        .any(|i| i.id == 2));
    assert_in_place(&mut ws, "undo", |ws| assert!(ws.undo(doc).unwrap()));
    assert_in_place(&mut ws, "a SillyTavern field (sticky)", |ws| {
        let edit = crate::views::StEdit {
            field: lorebook_engine::formats::st_fields::StField::Sticky,
            value: json!(2),
        };
        ws.set_st_field(doc, 2, edit).unwrap();
    });
    assert_in_place(&mut ws, "the comment", |ws| {
        let mut e = lamp(ws);
        e.comment = "The lamp".into();
        ws.update_entry(doc, e).unwrap();
    });
    // Keys typed, a secondary key and case sensitivity: the entry's keys
    // are tested on their own, nothing is compiled again.
    for (n, c) in "s, the tower".chars().enumerate() {
        assert_in_place(&mut ws, &format!("key keystroke {n}"), |ws| {
            let mut e = lamp(ws);
            e.keys[0].push(c);
            ws.update_entry(doc, e).unwrap();
        });
    }
    assert_in_place(&mut ws, "a regex key", |ws| {
        let mut e = lamp(ws);
        e.keys = vec!["/RAIN|zeppelin/i".into()];
        ws.update_entry(doc, e).unwrap();
    });
    assert_in_place(&mut ws, "a secondary key", |ws| {
        let mut e = lamp(ws);
        e.secondary_keys = vec!["tower".into()];
        ws.update_entry(doc, e).unwrap();
    });
    assert_in_place(&mut ws, "case sensitivity", |ws| {
        let mut e = lamp(ws);
        e.case_sensitive ^= true;
        ws.update_entry(doc, e).unwrap();
    });
    assert_in_place(&mut ws, "undo of a key edit", |ws| {
        assert!(ws.undo(doc).unwrap())
    });
    // The order is what the master order rests on: built again.
    assert_rebuilt(&mut ws, "the order typed", |ws| {
        let mut e = lamp(ws);
        e.order += 1;
        ws.update_entry(doc, e).unwrap();
    });
    // An edit while the preview was out of date leaves it to be built.
    let mut s = ws.st_settings.clone();
    s.depth = 1.0;
    ws.set_st_settings(s).unwrap();
    let before = ws.st_builds();
    let mut e = lamp(&ws);
    e.content.push('!');
    ws.update_entry(doc, e).unwrap();
    ws.st_preview(None).unwrap();
    assert_eq!(ws.st_builds(), before + 1, "built once, with both changes");
    assert_as_cold(&mut ws, "an edit after a settings change");
}
