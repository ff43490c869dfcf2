//! The app's side of a SillyTavern server, against a real SillyTavern
//! 1.19.0 (`lorebook_test_support::sillytavern`): a server's book opened as
//! a tab, edited and saved back; a change on the server asked about; a
//! wrong password said; nothing saved while the server is down.

use lorebook_test_support::sillytavern::{StAuth, StServer, ST_PASSWORD, ST_USER};
use serde_json::Value;

use crate::commands::{reload_from_server, save_to_server, AppState};
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

/// What `st_open_book` does: fetch, open, record.
fn open(state: &AppState, name: &str) -> u32 {
    let server = state.server.server().unwrap();
    let (value, seen) = lorebook_connect::fetch(&server, name).unwrap();
    let mut ledger = state.server.ledger().unwrap();
    ledger.record(&server, name, &value).unwrap();
    let mut ws = state.ws.lock().unwrap();
    ws.open_server_book(value, crate::server::book_ref(&server, name), seen)
        .unwrap()
        .doc
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
fn settings_character_and_chat_come_from_the_server() {
    let st = StServer::start(StAuth::Open);
    let state = app_state();
    state
        .server
        .connect(&st.url(), None, None, false, false)
        .unwrap();
    let server = state.server.server().unwrap();
    let characters = crate::server::characters(&server).unwrap();
    let sera = characters
        .iter()
        .find(|c| c.name == "Seraphina")
        .expect("the default character");
    let character = server.character(&sera.avatar).unwrap();
    {
        let mut ws = state.ws.lock().unwrap();
        assert!(ws
            .use_st_character(&character.name, &character.value)
            .unwrap());
        assert_eq!(ws.st_settings.char_name, "Seraphina");
        assert!(ws
            .st_inputs
            .description
            .as_deref()
            .is_some_and(|d| d.contains("Seraphina")));
        let settings = serde_json::to_vec(&server.settings().unwrap()).unwrap();
        ws.load_st_settings_bytes(&settings, "settings.json")
            .unwrap();
    }
    let chats = std::path::Path::new(&st.worlds())
        .parent()
        .unwrap()
        .join("chats")
        .join(sera.avatar.trim_end_matches(".png"));
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::write(chats.join("Talk.jsonl"), "{\"user_name\":\"You\",\"character_name\":\"Seraphina\"}\n{\"name\":\"You\",\"is_user\":true,\"mes\":\"Hello there\"}\n").unwrap();
    let listed = crate::server::characters(&server).unwrap();
    assert_eq!(
        listed.iter().find(|c| c.name == "Seraphina").unwrap().chats,
        vec!["Talk".to_string()]
    );
    let text = server.chat(&character, "Talk").unwrap();
    let mut ws = state.ws.lock().unwrap();
    ws.set_chat(text);
    assert!(ws.chat_text.contains("Hello there"));
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
