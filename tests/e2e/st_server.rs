//! Issue 40: books edited where they live. The real app connects to a real
//! SillyTavern 1.19.0 (user accounts, CSRF on), says a wrong password is
//! wrong, opens a server's book as a tab, saves an edit back, asks before
//! overwriting a copy changed on the server, and previews against a chat
//! pulled from it.

use lorebook_test_support::sillytavern::{StAuth, StServer, ST_PASSWORD, ST_USER};

use super::{assert_accessible, serial, tid, wait_until, Driver, TIMEOUT};

const HARBOR: &str = r#"{"entries":{"0":{"uid":0,"key":["harbor"],"keysecondary":[],"comment":"Harbor","content":"Ships moor here.","order":100,"position":0,"probability":100,"useProbability":true,"somethingNew":[1,2]}}}"#;

#[test]
fn a_server_book_is_opened_edited_saved_back_and_a_change_there_asked_about() {
    let _serial = serial();
    let st = StServer::start(StAuth::Account);
    st.write_book_file("Harbor", HARBOR);
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.click(&tid("server-open"));
    app.wait_for(&tid("server-dialog"));
    app.type_into(&tid("server-address"), &st.url());
    app.type_into(&tid("server-user"), ST_USER);
    app.type_into(&tid("server-password"), "not the password");
    app.click(&tid("server-connect"));
    let error = app.wait_for(&tid("server-error"));
    let said = app.text(&error).unwrap_or_default();
    assert!(said.contains("refused that user and password"), "{said}");
    assert!(!said.contains("not the password"));
    app.type_into(&tid("server-password"), ST_PASSWORD);
    // Asked to remember it where no secret store runs (this test's
    // session): connected, and told the password was not remembered.
    app.click(&tid("server-remember"));
    app.click(&tid("server-connect"));
    app.wait_for(&tid("server-connected"));
    wait_until("the not-remembered notice", TIMEOUT, || {
        let notices: Vec<String> = app
            .find_all(&tid("notices"))?
            .iter()
            .map(|e| app.text(e).unwrap_or_default())
            .collect();
        if notices
            .iter()
            .any(|n| n.contains("the password was not remembered"))
        {
            Ok(())
        } else {
            Err(format!("notices {notices:?}"))
        }
    });
    app.wait_for(&tid("server-book"));
    assert_accessible(&app, "the SillyTavern server dialog");
    app.snapshot("connected");
    app.click(&format!(
        "{}[data-id=\"Harbor\"] {}",
        tid("server-book"),
        tid("server-open-book")
    ));
    app.wait_ready();
    app.select_entry(0, "Harbor");
    app.type_into(&tid("content"), "Ships moor here. Gulls cry.");
    app.click(&tid("save"));
    wait_until("the edit saved on the server", TIMEOUT, || {
        let now = st.book_file("Harbor").unwrap_or_default();
        if now.contains("Gulls cry.") && now.contains("somethingNew") {
            Ok(())
        } else {
            Err(now)
        }
    });
    wait_until("the tab saved", TIMEOUT, || {
        match app.find_all(&tid("dirty"))?.len() {
            0 => Ok(()),
            n => Err(format!("{n} unsaved marks")),
        }
    });

    // Someone edits the book on the server; our next save asks.
    st.write_book_file(
        "Harbor",
        r#"{"entries":{"0":{"uid":0,"key":["harbor"],"content":"Theirs.","comment":"Harbor"}}}"#,
    );
    app.type_into(&tid("content"), "Ours again.");
    app.click(&tid("save"));
    let asked = app.wait_for(&tid("disk-message"));
    let text = app.text(&asked).unwrap_or_default();
    assert!(text.contains("changed on the server"), "{text}");
    assert!(
        st.book_file("Harbor").unwrap().contains("Theirs."),
        "nothing written before the answer"
    );
    app.snapshot("asked");
    // Keep mine: nothing written, the tab still unsaved; asked again on
    // the next Save.
    let keep = app.wait_for(&tid("disk-keep"));
    assert_eq!(app.text(&keep).unwrap_or_default(), "Keep mine");
    app.click(&tid("disk-keep"));
    wait_until("the question gone, the tab unsaved", TIMEOUT, || {
        match (
            app.find_all(&tid("disk-dialog"))?.len(),
            app.find_all(&tid("dirty"))?.len(),
        ) {
            (0, n) if n > 0 => Ok(()),
            other => Err(format!("{other:?}")),
        }
    });
    assert!(st.book_file("Harbor").unwrap().contains("Theirs."));
    app.click(&tid("save"));
    app.wait_for(&tid("disk-message"));
    app.click(&tid("disk-overwrite"));
    wait_until("ours on the server", TIMEOUT, || {
        let now = st.book_file("Harbor").unwrap_or_default();
        if now.contains("Ours again.") {
            Ok(())
        } else {
            Err(now)
        }
    });
    app.assert_no_errors();

    // A chat of the server's character as the preview's chat.
    let chats = st
        .worlds()
        .parent()
        .expect("the user's folder")
        .join("chats/default_Seraphina");
    std::fs::create_dir_all(&chats).expect("chat folder");
    std::fs::write(
        chats.join("Talk.jsonl"),
        "{\"user_name\":\"You\",\"character_name\":\"Seraphina\"}\n{\"name\":\"You\",\"is_user\":true,\"mes\":\"Take me to the harbor\"}\n",
    )
    .expect("chat written");
    app.click(&tid("server-open"));
    app.wait_for(&tid("server-connected"));
    app.wait_for(&tid("server-use-chat"));
    app.click(&tid("server-use-chat"));
    wait_until("the server's chat in the chat box", TIMEOUT, || {
        let now = app.value(&tid("chat")).map_err(|e| e.to_string())?;
        if now.contains("Take me to the harbor") {
            Ok(())
        } else {
            Err(now)
        }
    });
    app.click(&tid("server-close"));
    wait_until("the harbor entry injected", TIMEOUT, || {
        let p = app.preview()?;
        if p.injected.contains(&0) {
            Ok(())
        } else {
            Err(format!("{p:?}"))
        }
    });
    app.assert_no_errors();
}
