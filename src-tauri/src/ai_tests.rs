//! The app's side of the author's model (`crate::ai`), against a scripted
//! endpoint (`lorebook_test_support::scripted`): the endpoint set and kept
//! without its key, the key remembered only when asked, an action run on
//! the open book and its suggestions checked, accepted as one undo step
//! (never a locked entry), a fault said with its problem, Cancel.

use std::sync::atomic::Ordering;
use std::time::Duration;

use lorebook_engine::model::{Book, Entry};
use lorebook_test_support::scripted::{answer, chunk, sse_head, stream_text, Scripted};

use crate::ai::AiLink;
use crate::error::{ErrorCode, ErrorKind};
use crate::secrets::{MemoryStore, SecretStore};
use crate::views::{AiAction, AiActivations, AiAsk, AiFailed, AiMerge, AiProblem, AiVerdict};
use crate::workspace::Workspace;

const DRAFT: &str = r#"{"entries": [
  {"name": "Grey Fleet", "keys": ["Grey Fleet"], "secondary_keys": [], "content": "A fleet of grey ships."},
  {"name": "Lamp", "keys": ["great lamp"], "secondary_keys": [], "content": "The lighthouse lamp."},
  {"name": "Maro", "keys": ["Maro"], "secondary_keys": [], "content": "Maro hates the sea."}
]}"#;

/// The endpoint's file in a folder of its own (its prompts folder beside it).
fn config_file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("lorebook-ai-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(crate::ai::CONFIG_FILE)
}

fn workspace() -> (Workspace, u32) {
    let mut ws = Workspace::default();
    let mut book = Book::default();
    book.add_entry(Entry {
        comment: "Maro".into(),
        keys: vec!["Maro".into()],
        content: "The keeper.".into(),
        ..Entry::default()
    });
    let doc = ws.add_doc(book, None);
    ws.set_locked(doc, 0, true).unwrap();
    ws.chat_text = "User: Maro saw the Grey Fleet come in.\nNarrator: The fog lifted.".into();
    (ws, doc)
}

fn ask(action: AiAction) -> AiAsk {
    AiAsk {
        action,
        entry: None,
        entries: Vec::new(),
        source: Some("Maro saw the Grey Fleet come in.".into()),
        tokens: 120,
        max_entries: 5,
        lang: "en".into(),
    }
}

#[test]
fn the_endpoint_is_kept_without_its_key_and_the_key_remembered_only_when_asked() {
    let file = config_file("config");
    let link = AiLink::with(Box::new(MemoryStore::default()));
    assert_eq!(link.config(&file), None);
    let v = link
        .configure(
            &file,
            "127.0.0.1:9",
            "m",
            4096,
            Some("sk-app-1".into()),
            false,
        )
        .unwrap();
    assert!(v.key_held && !v.key_saved);
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(
        written.contains("http://127.0.0.1:9") && !written.contains("sk-app-1"),
        "{written}"
    );
    // Another address: the key held for the first is dropped.
    let v = link
        .configure(&file, "127.0.0.1:10", "m", 4096, None, false)
        .unwrap();
    assert!(!v.key_held);
    let store = MemoryStore::default();
    let link = AiLink::with(Box::new(store));
    let v = link
        .configure(
            &file,
            "127.0.0.1:10",
            "m",
            4096,
            Some("sk-app-2".into()),
            true,
        )
        .unwrap();
    assert!(v.key_saved);
    assert!(!std::fs::read_to_string(&file).unwrap().contains("sk-app-2"));
    let v = link.forget_key(&file).unwrap().unwrap();
    assert!(!v.key_saved && !v.key_held);
    // A store that does not run: said, and the key still held for the session.
    let link = AiLink::with(Box::new(MemoryStore::broken("no keyring")));
    let v = link
        .configure(
            &file,
            "127.0.0.1:10",
            "m",
            4096,
            Some("sk-app-3".into()),
            true,
        )
        .unwrap();
    assert!(v.key_held && !v.key_saved);
    assert!(v.not_remembered.unwrap().contains("no keyring"));
    assert!(link
        .configure(&file, "ftp://x", "m", 4096, None, false)
        .is_err());
    assert!(link
        .configure(&file, "127.0.0.1:10", "m", 10, None, false)
        .is_err());
}

#[test]
fn a_draft_is_checked_accepted_as_one_step_and_never_changes_a_locked_entry() {
    let server = Scripted::start(|_, _, s| stream_text(s, DRAFT));
    let file = config_file("draft");
    let store = MemoryStore::default();
    store.set("unrelated", "x").unwrap();
    let link = AiLink::with(Box::new(store));
    link.configure(
        &file,
        &server.url(),
        "m",
        4096,
        Some("sk-app-key".into()),
        false,
    )
    .unwrap();
    // The author's own draft prompt, in the folder beside the endpoint's file.
    let prompts = file.with_file_name(crate::ai::PROMPTS_FOLDER);
    std::fs::create_dir_all(&prompts).unwrap();
    std::fs::write(
        prompts.join("draft.md"),
        "MY OWN PROMPT\n=== user ===\n{{source}}",
    )
    .unwrap();
    let (mut ws, doc) = workspace();
    let mut seen = 0;
    let view = link
        .run(
            &file,
            doc,
            ws.ai_inputs(doc).unwrap(),
            &ask(AiAction::Draft),
            &mut |n| seen = n,
        )
        .unwrap();
    assert!(seen > 0, "progress was reported");
    assert!(server.seen.lock().unwrap()[0].contains("Bearer sk-app-key"));
    assert!(server.seen.lock().unwrap()[0].contains("MY OWN PROMPT"));
    assert_eq!(
        link.config(&file).unwrap().prompts_folder,
        prompts.display().to_string()
    );
    assert!(!link.transcript().contains("sk-app-key"));
    assert!(link.transcript().contains("Grey Fleet"));
    let s = &view.suggestions;
    assert_eq!(s.len(), 3);
    assert_eq!(view.chat_requests, 2);
    assert!(s[0].passed && s[0].fires_on_source == Some(true));
    assert_eq!(s[0].requests, [1, 2], "fires in both requests of the chat");
    assert!(!s[1].passed);
    assert!(s[1].failed.contains(&AiFailed::NoFireOnSource));
    assert_eq!((s[2].merge, s[2].locked), (AiMerge::Changed, true));
    assert!(s[2].failed.contains(&AiFailed::Locked));
    let before = ws.docs[0].book.clone();
    let picked = link.picked(doc, &[0, 1, 2]).unwrap();
    let touched = ws.ai_accept(doc, &picked).unwrap();
    link.accepted();
    assert_eq!(touched.len(), 2, "the locked entry is skipped");
    assert_eq!(ws.docs[0].book.entries[0], before.entries[0]);
    assert!(link.picked(doc, &[0]).is_err(), "taken once");
    ws.undo(doc).unwrap();
    assert_eq!(ws.docs[0].book, before);
}

#[test]
fn faults_and_cancel_are_said_with_their_problem() {
    let file = config_file("faults");
    let link = AiLink::with(Box::new(MemoryStore::default()));
    let (ws, doc) = workspace();
    let e = link
        .run(
            &file,
            doc,
            ws.ai_inputs(doc).unwrap(),
            &ask(AiAction::Draft),
            &mut |_| {},
        )
        .unwrap_err();
    assert!(matches!(
        e.code,
        ErrorCode::Model {
            problem: AiProblem::NotConfigured,
            ..
        }
    ));
    let server = Scripted::start(|_, _, s| {
        let _ = std::io::Write::write_all(s, &answer("401 Unauthorized", r#"{"error":"no"}"#));
    });
    link.configure(&file, &server.url(), "m", 4096, None, false)
        .unwrap();
    let e = link
        .run(
            &file,
            doc,
            ws.ai_inputs(doc).unwrap(),
            &ask(AiAction::Draft),
            &mut |_| {},
        )
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Model);
    assert!(matches!(
        e.code,
        ErrorCode::Model {
            problem: AiProblem::WrongKey,
            ..
        }
    ));
    // Keys for no entry: said before sending.
    let e = link
        .run(
            &file,
            doc,
            ws.ai_inputs(doc).unwrap(),
            &ask(AiAction::Keys),
            &mut |_| {},
        )
        .unwrap_err();
    assert!(matches!(
        e.code,
        ErrorCode::Model {
            problem: AiProblem::Invalid,
            ..
        }
    ));

    // Cancel from another thread while the answer streams.
    let server = Scripted::start(|_, _, s| {
        sse_head(s);
        for _ in 0..200 {
            if std::io::Write::write_all(s, chunk("x", None).as_bytes()).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    link.configure(&file, &server.url(), "m", 4096, None, false)
        .unwrap();
    let link = std::sync::Arc::new(link);
    let l2 = link.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(400));
        l2.cancel();
    });
    let e = link
        .run(
            &file,
            doc,
            ws.ai_inputs(doc).unwrap(),
            &ask(AiAction::Draft),
            &mut |_| {},
        )
        .unwrap_err();
    canceller.join().unwrap();
    assert_eq!(e.kind, ErrorKind::Cancelled);
    assert!(server.count.load(Ordering::SeqCst) >= 1);
}

#[test]
fn a_review_reads_the_selected_entries_only_and_the_preview_weighs_its_findings() {
    let server = Scripted::start(|_, _, s| {
        stream_text(
            s,
            r#"{"findings": [{"kind": "never_fires", "entries": ["Maro"], "note": "rare name"}, {"kind": "contradiction", "entries": ["Nobody"], "note": "?"}]}"#,
        )
    });
    let file = config_file("review");
    let link = AiLink::with(Box::new(MemoryStore::default()));
    link.configure(&file, &server.url(), "m", 4096, None, false)
        .unwrap();
    let (mut ws, doc) = workspace();
    let other = ws.add_entry(doc).unwrap();
    let mut e = ws.entry(doc, other).unwrap().entry;
    e.comment = "Vell".into();
    e.content = "UNSELECTED TEXT".into();
    ws.update_entry(doc, e).unwrap();
    let mut a = ask(AiAction::Review);
    a.entries = vec![0];
    let view = link
        .run(&file, doc, ws.ai_inputs(doc).unwrap(), &a, &mut |_| {})
        .unwrap();
    let sent = server.seen.lock().unwrap().join("\n");
    assert!(
        sent.contains("The keeper.") && !sent.contains("UNSELECTED TEXT"),
        "{sent}"
    );
    assert_eq!(view.findings.len(), 2);
    assert_eq!(view.findings[0].ids, [0]);
    assert_eq!(
        view.findings[0].preview,
        Some(AiVerdict::Activations {
            total: 2,
            each: vec![AiActivations {
                id: 0,
                name: "Maro".into(),
                requests: 2
            }]
        })
    );
    assert_eq!(view.findings[1].preview, Some(AiVerdict::NamesNoEntry));
    assert!(view.suggestions.is_empty());
}
