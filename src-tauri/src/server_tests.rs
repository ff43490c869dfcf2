//! The app's side of a SillyTavern server, against a real SillyTavern
//! 1.19.0 (`lorebook_test_support::sillytavern`): a server's book opened as
//! a tab, edited and saved back; a change on the server asked about; a
//! wrong password said; nothing saved while the server is down.

use lorebook_test_support::sillytavern::{StAuth, StServer, ST_PASSWORD, ST_USER};
use serde_json::Value;

use crate::commands::{
    character_from_server, chat_from_server, open_from_server, reload_from_server, save_to_server,
    settings_from_server, AppState,
};
use crate::error::{ErrorCode, ErrorKind};
use crate::views::{ServerChange, ServerProblem};

/// An app whose record of pulled books is its own (not the user's, not
/// another test's) and whose secret store is in memory.
fn app_state() -> AppState {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let ledger = std::env::temp_dir().join(format!(
        "lorebook-app-ledger-{}-{n}.json",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&ledger);
    let mut state = AppState::default();
    state.server =
        crate::server::Link::with(Box::new(crate::secrets::MemoryStore::default()), ledger);
    state
}

/// `st_open_book`'s own path.
fn open(state: &AppState, name: &str) -> u32 {
    crate::commands::open_from_server(state, name).unwrap().doc
}

fn server_value(st: &StServer, name: &str) -> Value {
    serde_json::from_str(&st.book_file(name).expect("the server has the book")).unwrap()
}

#[test]
fn a_server_book_opens_edits_and_saves_back_and_a_change_there_is_asked_about() {
    let st = StServer::start(StAuth::Account);
    let state = app_state();
    // A wrong password is said as such.
    let e = state
        .server
        .connect(
            &st.url(),
            Some(ST_USER.into()),
            Some("nope".into()),
            false,
            false,
        )
        .unwrap_err();
    assert!(
        matches!(
            e.code,
            ErrorCode::Server {
                problem: ServerProblem::WrongPassword,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(!e.message.contains("nope"));
    let view = state
        .server
        .connect(
            &st.url(),
            Some(ST_USER.into()),
            Some(ST_PASSWORD.into()),
            false,
            false,
        )
        .unwrap();
    assert_eq!(view.user.as_deref(), Some(ST_USER));
    st.write_book_file("Harbor", r#"{"entries":{"0":{"uid":0,"key":["harbor"],"content":"Ships moor here.","comment":"Harbor","somethingNew":[1,2]}}}"#);
    let doc = open(&state, "Harbor");
    {
        let ws = state.ws.lock().unwrap();
        assert!(ws
            .state()
            .docs
            .iter()
            .any(|d| d.id == doc && d.server.as_ref().is_some_and(|s| s.file_id == "Harbor")));
    }
    // Edit, save: the server has the edit, and every field it had.
    {
        let mut ws = state.ws.lock().unwrap();
        ws.add_entry(doc).unwrap();
        assert!(ws.doc(doc).unwrap().dirty());
    }
    save_to_server(&state, doc, false).unwrap();
    let v = server_value(&st, "Harbor");
    assert_eq!(v["entries"].as_object().unwrap().len(), 2);
    assert_eq!(v["entries"]["0"]["somethingNew"], serde_json::json!([1, 2]));
    assert!(!state.ws.lock().unwrap().doc(doc).unwrap().dirty());
    // Someone edits it on the server, and this machine pulls it again
    // elsewhere (the CLI, recording it as seen): the open tab still saves
    // against the copy it came from, so it asks.
    st.write_book_file(
        "Harbor",
        r#"{"entries":{"0":{"uid":0,"key":["harbor"],"content":"pulled elsewhere"}}}"#,
    );
    {
        let server = state.server.server().unwrap();
        let mut ledger = state.server.ledger().unwrap();
        lorebook_connect::pull(&server, &mut ledger, "Harbor").unwrap();
    }
    state.ws.lock().unwrap().add_entry(doc).unwrap();
    let e = save_to_server(&state, doc, false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ChangedOnServer, "{e:?}");
    assert!(st.book_file("Harbor").unwrap().contains("pulled elsewhere"));
    save_to_server(&state, doc, true).unwrap();
    // Someone edits it on the server; our next save asks.
    st.write_book_file(
        "Harbor",
        r#"{"entries":{"0":{"uid":0,"key":["harbor"],"content":"theirs"}}}"#,
    );
    state.ws.lock().unwrap().add_entry(doc).unwrap();
    let e = save_to_server(&state, doc, false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ChangedOnServer);
    assert!(matches!(
        e.code,
        ErrorCode::ChangedOnServer {
            how: ServerChange::Edited,
            ..
        }
    ));
    assert!(
        st.book_file("Harbor").unwrap().contains("theirs"),
        "nothing written"
    );
    assert!(
        state.ws.lock().unwrap().doc(doc).unwrap().dirty(),
        "still unsaved"
    );
    // Reload takes theirs; Overwrite would have taken ours.
    assert!(reload_from_server(&state, doc).unwrap());
    {
        let ws = state.ws.lock().unwrap();
        let d = ws.doc(doc).unwrap();
        assert!(!d.dirty());
        assert_eq!(d.book.entries[0].content, "theirs");
    }
    state.ws.lock().unwrap().add_entry(doc).unwrap();
    save_to_server(&state, doc, false).unwrap();
    st.write_book_file("Harbor", r#"{"entries":{}}"#);
    save_to_server(&state, doc, true).unwrap();
    assert_eq!(
        server_value(&st, "Harbor")["entries"]
            .as_object()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn a_failed_save_leaves_the_book_unsaved_and_the_server_as_it_was() {
    let mut st = StServer::start(StAuth::Open);
    let state = app_state();
    state
        .server
        .connect(&st.url(), None, None, false, false)
        .unwrap();
    st.write_book_file(
        "Kept",
        r#"{"entries":{"0":{"uid":0,"key":["k"],"content":"one"}}}"#,
    );
    let doc = open(&state, "Kept");
    state.ws.lock().unwrap().add_entry(doc).unwrap();
    st.stop();
    let e = save_to_server(&state, doc, false).unwrap_err();
    assert!(
        matches!(
            e.code,
            ErrorCode::Server {
                problem: ServerProblem::Unreachable,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(state.ws.lock().unwrap().doc(doc).unwrap().dirty());
    assert_eq!(
        server_value(&st, "Kept")["entries"]
            .as_object()
            .unwrap()
            .len(),
        1
    );
    // Disconnected: said, and the book stays unsaved.
    state.server.disconnect();
    let e = save_to_server(&state, doc, false).unwrap_err();
    assert!(matches!(e.code, ErrorCode::NotConnected { .. }), "{e:?}");
    st.restart();
    state
        .server
        .connect(&st.url(), None, None, false, false)
        .unwrap();
    save_to_server(&state, doc, false).unwrap();
    assert_eq!(
        server_value(&st, "Kept")["entries"]
            .as_object()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn settings_character_linked_books_and_chat_come_from_the_server() {
    let st = StServer::start(StAuth::Open);
    let state = app_state();
    state
        .server
        .connect(&st.url(), None, None, false, false)
        .unwrap();
    let server = state.server.server().unwrap();
    // The author links a book to the character in SillyTavern.
    st.write_book_file(
        "Harbor",
        r#"{"entries":{"0":{"uid":0,"key":["harbor"],"content":"Ships."}}}"#,
    );
    let characters = crate::server::characters(&server).unwrap();
    let sera = characters
        .iter()
        .find(|c| c.name == "Seraphina")
        .expect("the default character")
        .clone();
    let (status, body) = st.call(
        "/api/characters/merge-attributes",
        &serde_json::json!({"avatar": sera.avatar, "data": {"extensions": {"world": "Harbor"}}})
            .to_string(),
    );
    assert_eq!(status, 200, "{body}");
    let listed = crate::server::characters(&server).unwrap();
    let linked = listed.iter().find(|c| c.name == "Seraphina").unwrap();
    assert_eq!(linked.world.as_deref(), Some("Harbor"));

    // The character: its name for {{char}}, its fields for the match flags.
    character_from_server(&state, &sera.avatar).unwrap();
    {
        let ws = state.ws.lock().unwrap();
        assert_eq!(ws.st_settings.char_name, "Seraphina");
        assert!(ws
            .st_inputs
            .description
            .as_deref()
            .is_some_and(|d| d.contains("Seraphina")));
    }

    // The settings: the macro engine and the global variables as the
    // server keeps them reach the preview.
    let settings_file = st.worlds().parent().unwrap().join("settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings_file).unwrap()).unwrap();
    settings["power_user"]["experimental_macro_engine"] = Value::Bool(false);
    settings["extension_settings"]["variables"]["global"] =
        serde_json::json!({"place": "lighthouse"});
    std::fs::write(&settings_file, settings.to_string()).unwrap();
    let rules = settings_from_server(&state).unwrap();
    assert_eq!(
        rules.st.macro_engine,
        lorebook_engine::sillytavern::macros::MacroEngine::Legacy
    );
    assert_eq!(
        rules.st.global_vars.get("place").map(String::as_str),
        Some("lighthouse")
    );
    let doc = open(&state, "Harbor");
    let lamp = {
        let mut ws = state.ws.lock().unwrap();
        let id = ws.add_entry(doc).unwrap();
        let mut entry = ws
            .doc(doc)
            .unwrap()
            .book
            .entries
            .iter()
            .find(|e| e.id == id)
            .unwrap()
            .clone();
        entry.keys = vec!["{{getglobalvar::place}}".into()];
        entry.content = "The lamp.".into();
        ws.update_entry(doc, entry).unwrap();
        id
    };

    // A chat of the character as the preview's chat, refreshed on demand.
    let chats = st
        .worlds()
        .parent()
        .unwrap()
        .join("chats")
        .join(sera.avatar.trim_end_matches(".png"));
    std::fs::create_dir_all(&chats).unwrap();
    let header = "{\"user_name\":\"You\",\"character_name\":\"Seraphina\"}\n";
    std::fs::write(
        chats.join("Talk.jsonl"),
        format!("{header}{{\"name\":\"You\",\"is_user\":true,\"mes\":\"Hello there\"}}\n"),
    )
    .unwrap();
    let listed = crate::server::characters(&server).unwrap();
    assert_eq!(
        listed.iter().find(|c| c.name == "Seraphina").unwrap().chats,
        vec!["Talk".to_string()]
    );
    chat_from_server(&state, &sera.avatar, "Talk").unwrap();
    let mut ws = state.ws.lock().unwrap();
    assert!(ws.chat_text.contains("Hello there"));
    ws.set_rules(crate::views::Rules::Sillytavern);
    assert!(!ws
        .st_preview(None)
        .unwrap()
        .injected
        .iter()
        .any(|i| i.id == lamp));
    drop(ws);
    std::fs::write(
        chats.join("Talk.jsonl"),
        format!("{header}{{\"name\":\"You\",\"is_user\":true,\"mes\":\"To the lighthouse and the harbor\"}}\n"),
    )
    .unwrap();
    chat_from_server(&state, &sera.avatar, "Talk").unwrap();
    let mut ws = state.ws.lock().unwrap();
    assert!(ws.chat_text.contains("To the lighthouse"), "refreshed");
    let injected = ws.st_preview(None).unwrap().injected;
    assert!(
        injected.iter().any(|i| i.id == lamp),
        "the key read through the server's global variable: {injected:?}"
    );
}

#[test]
fn an_open_book_is_shown_not_fetched_and_late_answers_keep_edits() {
    let st = StServer::start(StAuth::Open);
    let state = app_state();
    state
        .server
        .connect(&st.url(), None, None, false, false)
        .unwrap();
    st.write_book_file(
        "Harbor",
        r#"{"entries":{"0":{"uid":0,"key":["harbor"],"content":"Ships."}}}"#,
    );
    let doc = open(&state, "Harbor");
    {
        let server = state.server.server().unwrap();
        let ledger = state.server.ledger().unwrap();
        assert!(
            ledger.seen(&server, "Harbor").is_some(),
            "recorded as pulled"
        );
    }
    st.write_book_file(
        "Harbor",
        r#"{"entries":{"0":{"uid":0,"key":["harbor"],"content":"Theirs."}}}"#,
    );
    let again = open_from_server(&state, "Harbor").unwrap();
    assert_eq!(again.doc, doc);
    assert!(matches!(
        again.notes.as_slice(),
        [lorebook_engine::formats::note::Note::AlreadyOpen { .. }]
    ));
    assert_eq!(
        state.ws.lock().unwrap().doc(doc).unwrap().book.entries[0].content,
        "Ships.",
        "not fetched again"
    );
    // A reload's or a save's answer that arrives after an edit typed
    // meanwhile: the edit stays, and the book stays unsaved.
    let mut ws = state.ws.lock().unwrap();
    let before = ws.revision_of(doc).unwrap();
    ws.add_entry(doc).unwrap();
    let value: Value = serde_json::from_str(&st.book_file("Harbor").unwrap()).unwrap();
    let seen = lorebook_connect::fingerprint(&value);
    assert!(!ws
        .reload_server_book(doc, value, seen.clone(), before)
        .unwrap());
    assert_eq!(ws.doc(doc).unwrap().book.entries.len(), 2, "the edit kept");
    ws.server_saved(doc, before, seen).unwrap();
    assert!(ws.doc(doc).unwrap().dirty(), "not marked saved");
}

#[test]
fn a_password_is_remembered_only_when_asked_and_used_next_time() {
    let st = StServer::start(StAuth::Basic);
    let link = crate::server::Link::with(
        Box::new(crate::secrets::MemoryStore::default()),
        std::env::temp_dir().join(format!(
            "lorebook-app-ledger-keys-{}.json",
            std::process::id()
        )),
    );
    // Not asked: not kept; a connection without it is refused.
    let v = link
        .connect(
            &st.url(),
            Some(ST_USER.into()),
            Some(ST_PASSWORD.into()),
            false,
            false,
        )
        .unwrap();
    assert!(!v.password_saved);
    let e = link
        .connect(&st.url(), Some(ST_USER.into()), None, false, false)
        .unwrap_err();
    assert!(
        matches!(
            e.code,
            ErrorCode::Server {
                problem: ServerProblem::WrongPassword,
                ..
            }
        ),
        "{e:?}"
    );
    // Asked: kept, and used when none is typed.
    let v = link
        .connect(
            &st.url(),
            Some(ST_USER.into()),
            Some(ST_PASSWORD.into()),
            true,
            false,
        )
        .unwrap();
    assert!(v.password_saved && v.not_remembered.is_none());
    let again = link
        .connect(&st.url(), Some(ST_USER.into()), None, false, false)
        .unwrap();
    assert!(again.password_saved, "used from the store");
    // The last server offered next time: address, user and whether the
    // password is remembered, never the password.
    let file = std::env::temp_dir().join(format!("lorebook-last-{}.json", std::process::id()));
    crate::server::write_last(&file, &v);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains(ST_PASSWORD), "{text}");
    let last = link.last(&file).unwrap();
    assert_eq!(
        (last.user.as_deref(), last.password_saved),
        (Some(ST_USER), true)
    );
    let _ = std::fs::remove_file(&file);
    // Forgotten: gone from the store, so a connection without it fails.
    link.forget_password(&st.url(), ST_USER).unwrap();
    assert!(link
        .connect(&st.url(), Some(ST_USER.into()), None, false, false)
        .is_err());
    // A store that does not run: the connection stands, and says why the
    // password was not remembered.
    let broken = crate::secrets::MemoryStore::broken("no secret store answers");
    let link = crate::server::Link::with(
        Box::new(broken),
        std::env::temp_dir().join(format!(
            "lorebook-app-ledger-broken-{}.json",
            std::process::id()
        )),
    );
    let v = link
        .connect(
            &st.url(),
            Some(ST_USER.into()),
            Some(ST_PASSWORD.into()),
            true,
            false,
        )
        .unwrap();
    assert!(!v.password_saved);
    assert_eq!(v.not_remembered.as_deref(), Some("no secret store answers"));
}
