//! The commands that talk to servers: `lorebook sillytavern books|pull|push`
//! against a real SillyTavern 1.19.0 (installed from npm once, started
//! here on 127.0.0.1, CSRF on), and `lorebook ai` against a scripted
//! endpoint and a real llama.cpp server (`ai` below).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::tmp;
use lorebook_test_support::sillytavern::{StAuth, StServer, ST_PASSWORD, ST_USER};
use serde_json::Value;

/// Runs `lorebook args` with its record of pulled books in `state` and the
/// password (if any) in the environment.
fn st(state: &Path, password: Option<&str>, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_lorebook"));
    c.args(args)
        .current_dir(common::root())
        .env("LOREBOOK_STATE_DIR", state)
        .env_remove("LOREBOOK_ST_PASSWORD");
    if let Some(p) = password {
        c.env("LOREBOOK_ST_PASSWORD", p);
    }
    c.output().expect("run lorebook")
}

fn ok(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}: {err}", out.status.code());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn state_dir(name: &str) -> PathBuf {
    let d = tmp(&format!("state-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    d
}

const FIXTURE: &str = r#"{
  "name": "Harbor book",
  "entries": {
    "0": {"uid": 0, "key": ["harbor", "dock"], "keysecondary": [], "comment": "Harbor ⚓", "content": "Ships \"moor\" here.\nTabs\tand ✓ unicode.", "constant": false, "order": 100, "position": 0, "disable": false, "probability": 100, "useProbability": true, "depth": 4, "scanDepth": null, "caseSensitive": null, "extensions": {"x": 1.5}, "somethingNew": {"kept": [1, 2.25, -0.5, 1e-7]}},
    "7": {"uid": 7, "key": ["/tow(er|n)/i"], "comment": "", "content": "", "constant": true, "order": 50, "group": "g", "groupWeight": 100}
  },
  "extensions": {"from": "a test"}
}"#;

/// Every SillyTavern book the test pushes: the fixture, and the corpus's
/// SillyTavern books when the corpus is there.
fn books() -> Vec<(String, PathBuf)> {
    let fixture = tmp("Harbor.json");
    std::fs::write(&fixture, FIXTURE).unwrap();
    let mut out = vec![("Harbor".to_string(), fixture)];
    if let Some(corpus) = lorebook_test_support::corpus_root() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(corpus.join("sillytavern"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for f in files {
            let stem = f.file_stem().unwrap().to_str().unwrap().to_string();
            out.push((format!("corpus {stem}"), f));
        }
    } else {
        eprintln!("corpus not found: only the fixture book is pushed");
    }
    out
}

#[test]
fn pull_and_push_round_trip_books_byte_for_byte() {
    let server = StServer::start(StAuth::Open);
    let url = server.url();
    let state = state_dir("roundtrip");
    for (name, file) in books() {
        let out = st(
            &state,
            None,
            &[
                "sillytavern",
                "push",
                &url,
                file.to_str().unwrap(),
                "--as",
                &name,
            ],
        );
        ok(&out);
        // The server keeps every field of the file as it was.
        let original: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let stored = server.book_file(&name).expect("the server has the book");
        let stored_value: Value = serde_json::from_str(&stored).unwrap();
        assert!(
            lorebook_connect::same_json(&original, &stored_value),
            "{name}: the server changed a field"
        );
        // Pulled, the file is the server's own file byte for byte.
        let pulled = tmp(&format!("pulled-{name}.json"));
        ok(&st(
            &state,
            None,
            &[
                "sillytavern",
                "pull",
                &url,
                &name,
                "-o",
                pulled.to_str().unwrap(),
            ],
        ));
        assert_eq!(
            std::fs::read_to_string(&pulled).unwrap(),
            stored,
            "{name}: pulled file ≠ server's file"
        );
        // Pushed again unchanged: allowed (the server's copy is the one pulled).
        ok(&st(
            &state,
            None,
            &[
                "sillytavern",
                "push",
                &url,
                pulled.to_str().unwrap(),
                "--as",
                &name,
            ],
        ));
        assert_eq!(
            server.book_file(&name).unwrap(),
            stored,
            "{name}: a second push changed bytes"
        );
    }
    let listed = ok(&st(&state, None, &["sillytavern", "books", &url, "--json"]));
    let listed: Vec<Value> = serde_json::from_str(&listed).unwrap();
    assert!(
        listed.iter().any(|b| b["file_id"] == "Harbor"),
        "{listed:?}"
    );
}

#[test]
fn push_exits_3_when_the_servers_copy_changed_whatever_the_local_format() {
    let server = StServer::start(StAuth::Open);
    let url = server.url();
    let state = state_dir("conflict");
    let fixture = tmp("Conflict.json");
    std::fs::write(&fixture, FIXTURE).unwrap();
    // A book the server has but this machine never pulled.
    server.write_book_file("Conflict", r#"{"entries":{}}"#);
    let out = st(
        &state,
        None,
        &["sillytavern", "push", &url, fixture.to_str().unwrap()],
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("never pulled"));
    assert_eq!(
        server.book_file("Conflict").unwrap(),
        r#"{"entries":{}}"#,
        "nothing written"
    );
    // Pulled as a native book, edited elsewhere on the server, pushed: 3.
    let native = tmp("Conflict.lorebook.json");
    ok(&st(
        &state,
        None,
        &[
            "sillytavern",
            "pull",
            &url,
            "Conflict",
            "--to",
            "native",
            "-o",
            native.to_str().unwrap(),
        ],
    ));
    server.write_book_file(
        "Conflict",
        r#"{"entries":{"0":{"uid":0,"key":["x"],"content":"theirs"}}}"#,
    );
    let out = st(
        &state,
        None,
        &[
            "sillytavern",
            "push",
            &url,
            native.to_str().unwrap(),
            "--as",
            "Conflict",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(server.book_file("Conflict").unwrap().contains("theirs"));
    // --force replaces it; then an unchanged server takes the next push.
    ok(&st(
        &state,
        None,
        &[
            "sillytavern",
            "push",
            &url,
            native.to_str().unwrap(),
            "--as",
            "Conflict",
            "--force",
        ],
    ));
    assert!(!server.book_file("Conflict").unwrap().contains("theirs"));
    ok(&st(
        &state,
        None,
        &[
            "sillytavern",
            "push",
            &url,
            fixture.to_str().unwrap(),
            "--as",
            "Conflict",
        ],
    ));
    assert!(server.book_file("Conflict").unwrap().contains("Harbor"));
    // The name typed in another case is the server's book, replaced under
    // its own spelling: no second book beside it on a case-sensitive disk.
    let out = st(
        &state,
        None,
        &[
            "sillytavern",
            "push",
            &url,
            native.to_str().unwrap(),
            "--as",
            "conflict",
        ],
    );
    ok(&out);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("replaced \"Conflict\""), "{said}");
    assert!(server.book_file("conflict").is_none(), "no second book");
    assert!(!server.book_file("Conflict").unwrap().contains("Harbor"));
    // The app's own file name, NAME.lorebook.json, is the book NAME.
    let out = st(
        &state,
        None,
        &["sillytavern", "push", &url, native.to_str().unwrap()],
    );
    ok(&out);
    assert!(server.book_file("Conflict.lorebook").is_none());
    assert!(String::from_utf8_lossy(&out.stderr).contains("replaced \"Conflict\""));
    // A name SillyTavern would change is refused before anything is sent.
    let out = st(
        &state,
        None,
        &[
            "sillytavern",
            "push",
            &url,
            fixture.to_str().unwrap(),
            "--as",
            "a/b",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be a SillyTavern book name"));
}

#[test]
fn logins_settings_and_chats() {
    for auth in [StAuth::Basic, StAuth::Account] {
        let server = StServer::start(auth);
        let url = server.url();
        let state = state_dir(&format!("login-{auth:?}"));
        // No user: the server's question is said.
        let out = st(&state, None, &["sillytavern", "books", &url]);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("LOREBOOK_ST_PASSWORD"),
            "{auth:?}"
        );
        // A wrong password: said, and never printed.
        let out = st(
            &state,
            Some("not it"),
            &["sillytavern", "books", &url, "--user", ST_USER],
        );
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("wrong user or password"), "{auth:?}: {err}");
        assert!(!err.contains("not it"), "{err}");
        assert!(!err.contains("is not set"), "{err}");
        // The variable unset: tried as no password, and named as unset.
        let out = st(
            &state,
            None,
            &["sillytavern", "books", &url, "--user", ST_USER],
        );
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("wrong user or password")
                && err.contains("LOREBOOK_ST_PASSWORD is not set"),
            "{auth:?}: {err}"
        );
        // The right one: books, settings, a chat.
        ok(&st(
            &state,
            Some(ST_PASSWORD),
            &["sillytavern", "books", &url, "--user", ST_USER],
        ));
        let settings = tmp(&format!("settings-{auth:?}.json"));
        ok(&st(
            &state,
            Some(ST_PASSWORD),
            &[
                "sillytavern",
                "pull",
                &url,
                "--settings",
                "-o",
                settings.to_str().unwrap(),
                "--user",
                ST_USER,
            ],
        ));
        let v: Value = serde_json::from_slice(&std::fs::read(&settings).unwrap()).unwrap();
        assert!(
            v.get("world_info_settings").is_some(),
            "{auth:?}: settings.json has the world-info settings"
        );
        let user_dir = server.worlds().parent().unwrap().to_path_buf();
        let chats = user_dir.join("chats/default_Seraphina");
        std::fs::create_dir_all(&chats).unwrap();
        let chat = "{\"user_name\":\"You\",\"character_name\":\"Seraphina\",\"chat_metadata\":{\"variables\":{\"mood\":\"calm\"}}}\n{\"name\":\"You\",\"is_user\":true,\"mes\":\"Hello, harbor\"}\n";
        std::fs::write(chats.join("Talk.jsonl"), chat).unwrap();
        let pulled = tmp(&format!("chat-{auth:?}.jsonl"));
        ok(&st(
            &state,
            Some(ST_PASSWORD),
            &[
                "sillytavern",
                "pull",
                &url,
                "--chat",
                "default_Seraphina/Talk",
                "-o",
                pulled.to_str().unwrap(),
                "--user",
                ST_USER,
            ],
        ));
        let lines: Vec<Value> = std::fs::read_to_string(&pulled)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let want: Vec<Value> = chat
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines, want, "{auth:?}");
        // The pulled chat previews.
        ok(&common::lorebook(&[
            "preview",
            "samples/saltmere.json",
            "--chat",
            pulled.to_str().unwrap(),
            "--rules",
            "sillytavern",
            "--st-settings",
            settings.to_str().unwrap(),
        ]));
        let out = st(
            &state,
            Some(ST_PASSWORD),
            &[
                "sillytavern",
                "pull",
                &url,
                "--chat",
                "default_Seraphina/Nope",
                "-o",
                pulled.to_str().unwrap(),
                "--user",
                ST_USER,
            ],
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("no chat \"Nope\""),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let fixture = tmp("Logged.json");
        std::fs::write(&fixture, FIXTURE).unwrap();
        ok(&st(
            &state,
            Some(ST_PASSWORD),
            &[
                "sillytavern",
                "push",
                &url,
                fixture.to_str().unwrap(),
                "--user",
                ST_USER,
            ],
        ));
        assert!(
            server.book_file("Logged").is_some(),
            "{auth:?}: pushed into the user's own folder"
        );
        // Nothing on disk holds the password.
        for entry in std::fs::read_dir(&state).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default();
            assert!(!text.contains(ST_PASSWORD));
        }
    }
}

#[test]
fn a_password_is_never_an_option_nor_in_the_address() {
    let state = state_dir("noopt");
    let out = st(
        &state,
        None,
        &[
            "sillytavern",
            "books",
            "http://author:secret@127.0.0.1:9",
            "--user",
            "x",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--user") && err.contains("LOREBOOK_ST_PASSWORD"),
        "{err}"
    );
    let out = st(
        &state,
        None,
        &[
            "sillytavern",
            "books",
            "http://127.0.0.1:9",
            "--password",
            "x",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "no --password option");
}

/// `lorebook ai`: a scripted endpoint for the shapes and faults, the real
/// llama.cpp server (llama-cpp-python from PyPI, SmolLM2-135M) for the path.
mod ai {
    use super::*;
    use lorebook_test_support::model_server::{ModelServer, MODEL_CONTEXT, MODEL_KEY, MODEL_NAME};
    use lorebook_test_support::scripted::{answer, stream_text, Scripted};
    use std::io::Write;

    const BOOK: &str = r#"{"name": "Harbor", "entries": [
      {"id": 0, "comment": "Vell Harbour", "keys": ["Vell Harbour"], "content": "A harbour town."},
      {"id": 1, "comment": "Maro", "keys": ["Maro"], "content": "The keeper.",
       "extensions": {"lorebook_studio": {"locked": true}}}
    ]}"#;
    const SOURCE: &str = "Maro lit the lamp over Vell Harbour while the Grey Fleet sailed in.";
    const ANSWER: &str = r#"{"entries": [
      {"name": "Grey Fleet", "keys": ["Grey Fleet"], "secondary_keys": [], "content": "A fleet of grey ships."},
      {"name": "Lamp", "keys": ["the great lamp"], "secondary_keys": [], "content": "The lighthouse lamp."},
      {"name": "Maro", "keys": ["Maro"], "secondary_keys": [], "content": "Maro keeps the light and hates the sea."}
    ]}"#;

    fn files(name: &str) -> (PathBuf, PathBuf) {
        let dir = tmp(&format!("ai-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let book = dir.join("book.json");
        std::fs::write(&book, BOOK).unwrap();
        let src = dir.join("source.txt");
        std::fs::write(&src, SOURCE).unwrap();
        (book, src)
    }

    fn ai(key: Option<&str>, args: &[&str]) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_lorebook"));
        c.arg("ai").args(args).current_dir(common::root());
        c.env_remove("LOREBOOK_AI_KEY")
            .env_remove("LOREBOOK_AI_ENDPOINT")
            .env_remove("LOREBOOK_AI_MODEL");
        if let Some(k) = key {
            c.env("LOREBOOK_AI_KEY", k);
        }
        c.output().expect("run lorebook")
    }

    #[test]
    fn draft_prints_each_suggestion_with_its_check_and_applies_only_what_passed() {
        let server = Scripted::start(|_, _, s| stream_text(s, ANSWER));
        let (book, src) = files("draft");
        let url = server.url();
        let transcript = book.with_file_name("transcript.json");
        let out = ai(
            Some("sk-cli-secret"),
            &[
                "draft",
                book.to_str().unwrap(),
                "--from",
                src.to_str().unwrap(),
                "--endpoint",
                &url,
                "--model",
                "m",
                "--json",
                "--transcript",
                transcript.to_str().unwrap(),
            ],
        );
        let text = ok(&out);
        let v: Value = serde_json::from_str(&text).unwrap();
        let s = v["suggestions"].as_array().unwrap();
        assert_eq!(s.len(), 3);
        let fleet = &s[0];
        assert_eq!(fleet["entry"]["name"], "Grey Fleet");
        assert_eq!(fleet["entry"]["keys"], serde_json::json!(["Grey Fleet"]));
        let check = &fleet["check"];
        for field in [
            "fires_on_source",
            "requests",
            "tokens",
            "kept_by_budget",
            "problems",
        ] {
            assert!(check.get(field).is_some(), "{field} in {check}");
        }
        assert_eq!(check["fires_on_source"], true);
        assert_eq!(check["passed"], true);
        assert_eq!(s[1]["check"]["fires_on_source"], false);
        assert_eq!(s[2]["merge"], "changed");
        assert_eq!(s[2]["locked"], true);
        // The key went in the header, and nowhere else.
        let seen = server.seen.lock().unwrap().join("\n");
        assert!(seen
            .to_ascii_lowercase()
            .contains("authorization: bearer sk-cli-secret"));
        let t = std::fs::read_to_string(&transcript).unwrap();
        assert!(
            t.contains("Grey Fleet") && !t.contains("sk-cli-secret"),
            "{t}"
        );
        assert!(!text.contains("sk-cli-secret"));

        // Nothing written without --apply; with it, only what passed, never the locked entry.
        let before = std::fs::read(&book).unwrap();
        let applied = book.with_file_name("applied.json");
        let out = ai(
            None,
            &[
                "draft",
                book.to_str().unwrap(),
                "--from",
                src.to_str().unwrap(),
                "--endpoint",
                &url,
                "--model",
                "m",
                "--apply",
                "-o",
                applied.to_str().unwrap(),
            ],
        );
        let text = ok(&out);
        assert!(text.contains("not passed: its keys do not fire"), "{text}");
        assert_eq!(
            std::fs::read(&book).unwrap(),
            before,
            "the book itself is untouched"
        );
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&applied).unwrap()).unwrap();
        let names: Vec<&str> = written["data"]["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["comment"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["Vell Harbour", "Maro", "Grey Fleet"]);
        let maro = &written["data"]["entries"][1];
        assert_eq!(
            maro["content"], "The keeper.",
            "a locked entry is never changed"
        );
    }

    #[test]
    fn an_endpoint_that_fails_exits_2_with_what_went_wrong() {
        let (book, src) = files("faults");
        let server = Scripted::start(|_, _, s| {
            let _ = s.write_all(&answer(
                "401 Unauthorized",
                r#"{"error":{"message":"bad key"}}"#,
            ));
        });
        let url = server.url();
        let args = [
            "draft",
            book.to_str().unwrap(),
            "--from",
            src.to_str().unwrap(),
            "--endpoint",
            &url,
            "--model",
            "m",
        ];
        let out = ai(Some("sk-wrong"), &args);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("refused the API key (HTTP 401): bad key"),
            "{err}"
        );
        assert!(!err.contains("sk-wrong"));
        let server = Scripted::start(|_, _, s| stream_text(s, "no json here"));
        let url = server.url();
        let args = [
            "keys",
            book.to_str().unwrap(),
            "--entry",
            "0",
            "--endpoint",
            &url,
            "--model",
            "m",
        ];
        let out = ai(None, &args);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("not the shape asked for"));
        // No endpoint at all: said, nothing sent.
        let out = ai(None, &["review", book.to_str().unwrap(), "--model", "m"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("LOREBOOK_AI_ENDPOINT"));
        // A locked entry: refused before sending.
        let before = server.count.load(std::sync::atomic::Ordering::SeqCst);
        let out = ai(
            None,
            &[
                "shorten",
                book.to_str().unwrap(),
                "--entry",
                "1",
                "--tokens",
                "5",
                "--endpoint",
                &url,
                "--model",
                "m",
            ],
        );
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("locked"));
        assert_eq!(
            server.count.load(std::sync::atomic::Ordering::SeqCst),
            before
        );
        // The prompts are readable.
        let out = ai(None, &["prompt", "review", "--lang", "pt-BR"]);
        assert!(ok(&out).contains("Responda só com JSON"));
    }

    /// The path against a real model: the draft comes back in the schema's
    /// shape, each suggestion checked; --apply writes a book that reads.
    #[test]
    fn draft_against_a_real_model_server() {
        let server = ModelServer::start();
        let (book, src) = files("real");
        let url = server.url();
        let ctx = MODEL_CONTEXT.to_string();
        let applied = book.with_file_name("applied.json");
        let out = ai(
            Some(MODEL_KEY),
            &[
                "draft",
                book.to_str().unwrap(),
                "--from",
                src.to_str().unwrap(),
                "--endpoint",
                &url,
                "--model",
                MODEL_NAME,
                "--context",
                &ctx,
                "--answer-tokens",
                "700",
                "--max-entries",
                "3",
                "--seed",
                "7",
                "--json",
                "--apply",
                "--include-failed",
                "-o",
                applied.to_str().unwrap(),
            ],
        );
        let text = ok(&out);
        let v: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{e}: {text}\n{}", server.log_tail()));
        let s = v["suggestions"].as_array().unwrap();
        assert!(!s.is_empty() && s.len() <= 3, "{text}");
        for x in s {
            assert!(
                x["entry"]["name"].is_string() && x["check"]["tokens"].is_u64(),
                "{x}"
            );
        }
        let written = std::fs::read_to_string(&applied).unwrap();
        let read: Value = serde_json::from_str(&written).unwrap();
        assert_eq!(
            read["data"]["entries"][1]["content"], "The keeper.",
            "the locked entry is untouched"
        );
    }
}
