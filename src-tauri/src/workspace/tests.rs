//! Tests of the workspace through its public methods, as the commands call
//! them.

use super::*;
use crate::error::ErrorKind;
use crate::views::{BulkPatch, EntryFilter, ImportOutcome, ListQuery, PromptPatch, SortKey};
use lorebook_engine::formats::{self, ExportFormat, ExportReason, Format};

fn ws() -> (Workspace, u32) {
    let ws = Workspace::with_sample();
    let doc = ws.docs[0].id;
    (ws, doc)
}

#[test]
fn the_sample_is_open_and_previews() {
    let (mut ws, _) = ws();
    let p = ws.preview(None);
    assert!(p.result.injected.len() >= 3, "{:?}", p.result.injected);
    assert_eq!(p.requests as usize, ws.chat.len());
    assert!(ws.chat.len() >= 4);
}

#[test]
fn editing_a_key_changes_the_preview_and_undo_restores_it() {
    let (mut ws, doc) = ws();
    let before = ws.preview(None).result.injected.len();
    let mut e = ws.entry(doc, 1).unwrap().entry;
    assert_eq!(e.comment, "The Lighthouse");
    e.keys = vec!["zeppelin".into()];
    ws.update_entry(doc, e).unwrap();
    assert!(ws.doc(doc).unwrap().dirty());
    let after = ws.preview(None).result;
    assert!(after
        .dropped
        .iter()
        .any(|d| d.id == 1 && d.reason.kind() == "no_match"));
    assert_ne!(after.injected.len(), before);
    assert!(ws.undo(doc).unwrap());
    assert_eq!(ws.preview(None).result.injected.len(), before);
    assert!(
        !ws.doc(doc).unwrap().dirty(),
        "undo back to the saved state is clean"
    );
    assert!(ws.redo(doc).unwrap());
    assert!(ws.doc(doc).unwrap().dirty());
}

/// A keystroke in an entry is one round trip: the edit's answer carries
/// the state and the preview the UI named, the same one the preview
/// command gives; none when the rules in force are not the ones named.
#[test]
fn an_entry_edit_answers_with_the_state_and_the_preview_asked_for() {
    use crate::views::{PreviewAnswer, PreviewAsk, Rules};
    let (mut ws, doc) = ws();
    let mut e = ws.entry(doc, 1).unwrap().entry;
    e.keys = vec!["zeppelin".into()];
    let ask = PreviewAsk::Studio {
        request: None,
        have: None,
    };
    let edited = ws.edit_entry(doc, e.clone(), Some(ask)).unwrap();
    assert_eq!(edited.detail.entry.keys, ["zeppelin"]);
    assert!(edited.state.docs.iter().any(|d| d.id == doc && d.dirty));
    let Some(PreviewAnswer::Studio { view }) = edited.preview else {
        panic!("no preview in the answer")
    };
    assert!(view
        .result
        .dropped
        .iter()
        .any(|d| d.id == 1 && d.reason.kind() == "no_match"));
    assert_eq!(
        serde_json::to_value(&view.result).unwrap(),
        serde_json::to_value(ws.preview(None).result).unwrap()
    );
    // Under SillyTavern's rules, an ask for the guide's preview is not
    // answered, and one for SillyTavern's is.
    ws.set_rules(Rules::Sillytavern);
    e.keys = vec!["lighthouse".into()];
    let edited = ws.edit_entry(doc, e.clone(), Some(ask)).unwrap();
    assert!(edited.preview.is_none());
    let st = PreviewAsk::Sillytavern {
        request: None,
        prompt: false,
        have: None,
    };
    let edited = ws.edit_entry(doc, e, Some(st)).unwrap();
    assert!(matches!(
        edited.preview,
        Some(PreviewAnswer::Sillytavern { .. })
    ));
}

#[test]
fn typing_coalesces_into_one_undo_step() {
    let (mut ws, doc) = ws();
    let original = ws.entry(doc, 3).unwrap().entry;
    for text in ["a", "ab", "abc"] {
        let mut e = original.clone();
        e.content = text.into();
        ws.update_entry(doc, e).unwrap();
    }
    ws.undo(doc).unwrap();
    assert_eq!(ws.entry(doc, 3).unwrap().entry, original);
}

#[test]
fn add_duplicate_delete_and_bulk_undo() {
    let (mut ws, doc) = ws();
    let n = ws.doc(doc).unwrap().book.entries.len();
    let id = ws.add_entry(doc).unwrap();
    assert!(
        ws.entry(doc, id).unwrap().entry.whole_words,
        "new entries have whole words on"
    );
    assert!(
        ws.duplicate(doc, &[1], "copy").is_err(),
        "no {{name}}: refused"
    );
    let copies = ws.duplicate(doc, &[1, 2], "{name} (copy)").unwrap();
    assert_eq!(ws.doc(doc).unwrap().book.entries.len(), n + 3);
    assert_eq!(
        ws.entry(doc, copies[0]).unwrap().entry.comment,
        "The Lighthouse (copy)"
    );
    ws.delete(doc, &[0, 2, copies[1]]).unwrap();
    assert_eq!(ws.doc(doc).unwrap().book.entries.len(), n);
    ws.undo(doc).unwrap();
    let ids: Vec<u64> = ws
        .doc(doc)
        .unwrap()
        .book
        .entries
        .iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(&ids[..3], &[0, 1, 2], "deleted entries come back in place");
    ws.bulk(
        doc,
        &[1, 2],
        &BulkPatch {
            enabled: Some(false),
            order: Some(7),
            priority: None,
            st: Vec::new(),
        },
    )
    .unwrap();
    let e = ws.entry(doc, 2).unwrap().entry;
    assert!(!e.enabled);
    assert_eq!(e.order, 7);
    ws.undo(doc).unwrap();
    assert!(ws.entry(doc, 2).unwrap().entry.enabled);
}

#[test]
fn settings_ranges_are_enforced() {
    let (mut ws, doc) = ws();
    let mut s = ws.book_settings(doc).unwrap();
    s.scan_depth = 101;
    assert_eq!(
        ws.set_book_settings(doc, s.clone()).unwrap_err().kind,
        ErrorKind::Invalid
    );
    s.scan_depth = 10;
    s.token_budget = 99;
    assert!(ws.set_book_settings(doc, s.clone()).is_err());
    s.token_budget = 32000;
    ws.set_book_settings(doc, s).unwrap();
    assert_eq!(ws.doc(doc).unwrap().book.token_budget, 32000);
    assert_eq!(ws.preview(None).result.budget.limit, 32000);
}

#[test]
fn list_filters_sorts_and_searches() {
    let (mut ws, doc) = ws();
    let q = |search: &str, filter, sort, descending| ListQuery {
        search: search.into(),
        filter,
        sort,
        descending,
    };
    let all = ws
        .list(doc, &q("", EntryFilter::All, SortKey::Id, false))
        .unwrap();
    assert_eq!(all.len(), ws.doc(doc).unwrap().book.entries.len());
    assert!(all.iter().all(|r| r.tokens.is_some_and(|t| t > 0)));
    let disabled = ws
        .list(doc, &q("", EntryFilter::Disabled, SortKey::Id, false))
        .unwrap();
    assert!(disabled.iter().all(|r| !r.enabled) && !disabled.is_empty());
    let constant = ws
        .list(doc, &q("", EntryFilter::Constant, SortKey::Id, false))
        .unwrap();
    assert_eq!(constant.len(), 1);
    let found = ws
        .list(
            doc,
            &q("widow's teeth", EntryFilter::All, SortKey::Id, false),
        )
        .unwrap();
    assert_eq!(found.len(), 1, "search looks into content");
    let by_prio = ws
        .list(doc, &q("", EntryFilter::All, SortKey::Priority, true))
        .unwrap();
    assert!(by_prio.windows(2).all(|w| w[0].priority >= w[1].priority));
    let mut e = ws.entry(doc, 3).unwrap().entry;
    e.content = "@@bogus\nx".into();
    ws.update_entry(doc, e).unwrap();
    let diag = ws
        .list(doc, &q("", EntryFilter::Diagnostics, SortKey::Id, false))
        .unwrap();
    assert!(diag.iter().any(|r| r.id == 3));
}

#[test]
fn save_and_reopen() {
    let (mut ws, doc) = ws();
    assert_eq!(
        ws.save(doc, None, false).unwrap_err().kind,
        ErrorKind::NeedsPath
    );
    let dir = std::env::temp_dir().join(format!("lbs-ws-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("book.json");
    let mut e = ws.entry(doc, 1).unwrap().entry;
    e.keys.push("beacon".into());
    ws.update_entry(doc, e).unwrap();
    ws.save(doc, Some(path.clone()), false).unwrap();
    assert!(!ws.doc(doc).unwrap().dirty());
    let mut other = Workspace::default();
    let opened = other.open_path(&path).unwrap();
    assert!(other
        .entry(opened.doc, 1)
        .unwrap()
        .entry
        .keys
        .contains(&"beacon".to_string()));
    assert!(opened.notes.is_empty(), "{:?}", opened.notes);
    let again = other.open_path(&path).unwrap();
    assert_eq!(again.doc, opened.doc, "opening twice focuses");
    // ... and says so (issue 43: a folder book opened again jumped to its
    // tab without a word).
    assert!(
        matches!(
            &again.notes[..],
            [lorebook_engine::formats::note::Note::AlreadyOpen { .. }]
        ),
        "{:?}",
        again.notes
    );
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{ nope").unwrap();
    let err = other.open_path(&bad).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Format);
    assert!(err.message.contains("line 1"), "{}", err.message);
    assert_eq!(other.docs.len(), 1, "a failed open touches nothing");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_chat_keeps_the_last_good_messages() {
    let (mut ws, _) = ws();
    let n = ws.chat.len();
    ws.set_chat("[{\"role\": ".into());
    let error = ws.chat_error.as_ref().unwrap();
    assert_eq!(error.line, Some(1));
    assert!(matches!(
        error.problem,
        lorebook_engine::chat::ChatProblem::MalformedJson { .. }
    ));
    assert_eq!(ws.chat.len(), n);
    ws.set_chat("User: the lighthouse".into());
    assert_eq!(ws.chat.len(), 1);
    assert!(ws.chat_error.is_none());
}

#[test]
fn the_view_counts_what_it_does_not_list() {
    let mut ws = Workspace::default();
    let doc = ws.new_book();
    for _ in 0..(SHOWN_PER_KIND + 5) {
        ws.add_entry(doc).unwrap();
    }
    ws.set_chat("User: hello".into());
    let p = ws.preview(None);
    assert_eq!(p.result.dropped.len(), SHOWN_PER_KIND);
    assert_eq!(p.omitted.len(), 1);
    assert_eq!(
        (p.omitted[0].kind.as_str(), p.omitted[0].count),
        ("no_match", 5)
    );
}

/// A hostile book through the app's preview (issue 17): whole-word keys
/// `a` … `a`×2,000 over a chat of two megabytes of `a`. The preview answers
/// in seconds, and every entry whose key the scan gave up on is listed
/// with the key, past the view's cap on "no match" entries.
#[test]
fn overlapping_keys_preview_in_time_and_name_the_keys_given_up_on() {
    use lorebook_engine::explain::DropReason;
    let dir = std::env::temp_dir().join(format!("lbs-ws-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("overlapping.json");
    let entries: Vec<serde_json::Value> = (1..=2_000)
        .map(|n| {
            serde_json::json!({"id": n, "keys": ["a".repeat(n)], "content": "A.",
                               "extensions": {"match_whole_words": true}})
        })
        .collect();
    let file = serde_json::json!({"spec": "lorebook_v3", "data": {"entries": entries}});
    std::fs::write(&path, file.to_string()).unwrap();
    let mut ws = Workspace::default();
    ws.open_path(&path).unwrap();
    ws.set_chat(format!("User: {}", "a".repeat(2 << 20)));
    let started = std::time::Instant::now();
    let p = ws.preview(None);
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let given_up = p
        .result
        .dropped
        .iter()
        .filter(|d| {
            matches!(
                &d.reason,
                DropReason::NoMatch {
                    gave_up: Some(_),
                    ..
                }
            )
        })
        .count();
    assert_eq!(given_up, 2_000, "listed past SHOWN_PER_KIND");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn detaching_a_book_removes_it_from_the_preview() {
    let (mut ws, doc) = ws();
    ws.set_attached(doc, false).unwrap();
    let p = ws.preview(None);
    assert!(p.result.injected.is_empty() && p.result.dropped.is_empty());
    assert!(ws
        .set_settings(Settings {
            model: "nope".into(),
            ..Settings::default()
        })
        .is_err());
}

#[test]
#[cfg_attr(
    not(corpus),
    ignore = "corpus not found: set LOREBOOK_CORPUS or put it at ../shared/corpus"
)]
fn foreign_files_wait_for_confirmation_with_a_report() {
    let mut ws = Workspace::default();
    let corpus = lorebook_test_support::corpus();
    let st = corpus.join("sillytavern/Eldoria.json");
    let ImportOutcome::Pending(p) = ws.import_path(&st).unwrap() else {
        panic!("a SillyTavern file is not opened without confirmation")
    };
    assert_eq!(p.entries, 4);
    assert_eq!(p.format, Format::SillyTavern);
    assert!(ws.docs.is_empty(), "nothing opens before confirming");
    assert_eq!(ws.pending().len(), 1);
    let doc = ws.confirm_import(p.id, true).unwrap().unwrap();
    assert!(
        ws.doc(doc).unwrap().path.is_none(),
        "an imported book saves as a new native file"
    );
    assert!(ws.pending().is_empty());
    let ImportOutcome::Pending(p) = ws
        .import_path(&corpus.join("ccv3/default_Seraphina.png"))
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(ws.confirm_import(p.id, false).unwrap(), None);
    assert_eq!(ws.docs.len(), 1);
    let err = ws
        .import_path(&corpus.join("kobold/create_character_20210621.json"))
        .unwrap_err();
    assert!(err.message.contains("KoboldAI"), "{}", err.message);
    assert_eq!(ws.docs.len(), 1, "a failed import touches nothing");
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/saltmere.json");
    assert!(matches!(
        ws.import_path(&sample).unwrap(),
        ImportOutcome::Opened(_)
    ));
}

#[test]
fn export_reports_then_writes() {
    let (mut ws, doc) = ws();
    let report = ws.export_report(doc, ExportFormat::Risu).unwrap();
    assert!(!report.is_lossless(), "RisuAI has no place for whole words");
    let dir = std::env::temp_dir().join(format!("lbs-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("book.risu.json");
    ws.export_to(doc, ExportFormat::Risu, &out, None).unwrap();
    let back = formats::import(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(back.format, Format::Risu);
    assert_eq!(
        back.book.entries.len(),
        ws.doc(doc).unwrap().book.entries.len()
    );
    // The rest needs a real card from the shared corpus, when present.
    let Some(corpus) = lorebook_test_support::corpus_root() else {
        return;
    };
    let card = corpus.join("ccv3/default_Seraphina.png");
    let png = dir.join("card.png");
    ws.export_to(doc, ExportFormat::CardV3, &png, Some(&card))
        .unwrap();
    assert_eq!(
        formats::import(&std::fs::read(&png).unwrap())
            .unwrap()
            .book
            .name,
        "Saltmere"
    );
    let err = ws
        .export_to(doc, ExportFormat::Risu, &png, Some(&card))
        .unwrap_err();
    assert!(!err.message.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A PNG of one chunk list (IHDR, IDAT, IEND) with correct CRCs and no
/// card in it.
fn plain_png() -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = 0xffff_ffffu32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xedb8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let chunks: [(&[u8; 4], &[u8]); 3] = [
        (b"IHDR", &[0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]),
        (b"IDAT", &[0x78, 0x9c, 0x63, 0, 0, 0, 1, 0, 1]),
        (b"IEND", &[]),
    ];
    for (kind, data) in chunks {
        out.extend((data.len() as u32).to_be_bytes());
        let mut typed = kind.to_vec();
        typed.extend_from_slice(data);
        out.extend_from_slice(&typed);
        out.extend(crc32(&typed).to_be_bytes());
    }
    out
}

/// Issue 12: every export failure a user can meet has a code the UI words
/// in its language, naming the file involved: a card PNG that holds no
/// card, a damaged PNG, a format that cannot go into a card, a card file
/// that is gone, and a folder that does not exist.
#[test]
fn export_failures_carry_codes() {
    use crate::error::ErrorCode;
    let (mut ws, doc) = ws();
    let dir = std::env::temp_dir().join(format!("lbs-export-codes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plain = dir.join("plain.png");
    std::fs::write(&plain, plain_png()).unwrap();
    let damaged = dir.join("damaged.png");
    std::fs::write(&damaged, b"\x89PNG\r\n\x1a\nnot chunks at all").unwrap();
    let out = dir.join("out.png");
    let mut reason = |to: ExportFormat, card: &std::path::Path| match ws
        .export_to(doc, to, &out, Some(card))
        .unwrap_err()
        .code
    {
        ErrorCode::CannotExport { file, reason, .. } => {
            assert_eq!(file, card.display().to_string());
            reason
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(
        reason(ExportFormat::CardV3, &plain),
        ExportReason::PngWithoutCard
    );
    assert_eq!(reason(ExportFormat::CardV2, &damaged), ExportReason::BadPng);
    assert_eq!(
        reason(ExportFormat::SillyTavern, &plain),
        ExportReason::NotACardFormat
    );
    let gone = dir.join("gone.png");
    let err = ws
        .export_to(doc, ExportFormat::CardV3, &out, Some(&gone))
        .unwrap_err();
    assert!(
        matches!(err.code, ErrorCode::FileNotFound { ref file } if *file == gone.display().to_string()),
        "{err:?}"
    );
    let nowhere = dir.join("no-such-folder/book.json");
    let err = ws
        .export_to(doc, ExportFormat::SillyTavern, &nowhere, None)
        .unwrap_err();
    assert!(
        matches!(err.code, ErrorCode::FileNotFound { .. }),
        "{err:?}"
    );
    assert!(!out.exists(), "a failed export wrote nothing");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The empty state's "Open the sample" opens the bundled book as a new
/// book without a file, and fills an empty chat with the sample's; a new
/// book takes the name the UI gives it.
#[test]
fn the_sample_opens_again_and_new_books_take_the_ui_name() {
    let mut ws = Workspace::default();
    let doc = ws.open_sample().unwrap();
    let d = ws.doc(doc).unwrap();
    assert_eq!(d.book.name, "Saltmere");
    assert!(d.path.is_none());
    assert!(!d.dirty());
    assert_eq!(ws.chat_text, SAMPLE_CHAT);
    // A chat the user typed is kept.
    ws.set_chat("User: my own chat".into());
    ws.open_sample().unwrap();
    assert_eq!(ws.chat_text, "User: my own chat");
    assert_eq!(ws.docs.len(), 2);
    let named = ws.new_book_named("Livro sem título");
    assert_eq!(ws.doc(named).unwrap().book.name, "Livro sem título");
    let blank = ws.new_book_named("  ");
    assert_eq!(ws.doc(blank).unwrap().book.name, "Untitled book");
}

/// The preview after incremental updates equals one built from scratch.
fn assert_fresh(ws: &mut Workspace) {
    // The view carries the prompt apart from the result (whole here).
    let view = ws.preview(None);
    let mut incremental = view.result;
    incremental.messages = view.prompt.middle;
    let books = ws.attached_books();
    let fresh = Preview::new(&books, ws.settings().clone()).request(&ws.chat, ws.chat.len());
    assert_eq!(incremental, fresh);
}

#[test]
fn every_edit_updates_the_preview_incrementally() {
    let (mut ws, doc) = ws();
    assert_fresh(&mut ws);
    let mut e = ws.entry(doc, 1).unwrap().entry;
    e.keys = vec!["ferry".into()];
    e.content = "@@priority 999\nNew body.".into();
    ws.update_entry(doc, e).unwrap();
    assert_fresh(&mut ws);
    let id = ws.add_entry(doc).unwrap();
    let mut e = ws.entry(doc, id).unwrap().entry;
    e.keys = vec!["tavern".into()];
    e.content = "A new tavern note.".into();
    ws.update_entry(doc, e).unwrap();
    assert_fresh(&mut ws);
    ws.delete(doc, &[2, 3]).unwrap();
    assert_fresh(&mut ws);
    ws.bulk(
        doc,
        &[0, 4],
        &BulkPatch {
            enabled: Some(false),
            order: Some(1),
            priority: None,
            st: Vec::new(),
        },
    )
    .unwrap();
    assert_fresh(&mut ws);
    let mut s = ws.book_settings(doc).unwrap();
    s.token_budget = 120;
    s.recursive_scanning = false;
    s.scan_depth = 2;
    ws.set_book_settings(doc, s).unwrap();
    assert_fresh(&mut ws);
    for _ in 0..4 {
        ws.undo(doc).unwrap();
        assert_fresh(&mut ws);
    }
    ws.redo(doc).unwrap();
    assert_fresh(&mut ws);
    ws.duplicate(doc, &[1], "{name} (copy)").unwrap();
    assert_fresh(&mut ws);
}

#[test]
fn decorator_panel_goes_through_the_engine() {
    let c = Workspace::set_decorator("Body", "probability", Some("30"), true);
    assert_eq!(c, "@@probability 30\nBody");
    assert_eq!(
        Workspace::set_decorator(&c, "probability", None, false),
        "Body"
    );
}

/// Regression: the pending-import dialog showed an empty file name for
/// every foreign import, because the list of pending imports rebuilt its
/// view from a path kept only for native files.
#[test]
fn pending_import_lost_its_file_name() {
    let (mut ws, doc) = ws();
    let dir = std::env::temp_dir().join(format!("lbs-pending-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("book.st.json");
    ws.export_to(doc, ExportFormat::SillyTavern, &file, None)
        .unwrap();
    let mut ws = Workspace::default();
    let ImportOutcome::Pending(shown) = ws.import_path(&file).unwrap() else {
        panic!("a SillyTavern file waits for confirmation")
    };
    assert_eq!(shown.file, file.display().to_string());
    let listed = ws.pending();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].file, file.display().to_string());
    assert_eq!(listed[0].name, shown.name);
    assert_eq!(listed[0].report, shown.report);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn undo_and_redo_of_a_deletion_restore_order_and_preview() {
    let (mut ws, doc) = ws();
    let ids = |ws: &Workspace| -> Vec<u64> {
        ws.doc(doc)
            .unwrap()
            .book
            .entries
            .iter()
            .map(|e| e.id)
            .collect()
    };
    let original = ids(&ws);
    ws.delete(doc, &[1, 3]).unwrap();
    let deleted = ids(&ws);
    assert!(!deleted.contains(&1) && !deleted.contains(&3));
    ws.undo(doc).unwrap();
    assert_eq!(ids(&ws), original);
    assert_fresh(&mut ws);
    ws.redo(doc).unwrap();
    assert_eq!(ids(&ws), deleted);
    assert_fresh(&mut ws);
}

/// Regression: a confirmed native import kept its source path, so Ctrl+S
/// overwrote the source with what the import had repaired or dropped.
#[test]
fn a_confirmed_native_import_kept_its_source_path() {
    let dir = std::env::temp_dir().join(format!("lbs-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("colliding.json");
    // Two entries with one id: the import repairs them, so it is not lossless.
    let text = r#"{"spec": "lorebook_v3", "data": {"name": "Src", "entries": [
        {"id": 1, "keys": ["a"], "content": "x"},
        {"id": 1, "keys": ["b"], "content": "y"}]}}"#;
    std::fs::write(&source, text).unwrap();
    let mut ws = Workspace::default();
    let ImportOutcome::Pending(p) = ws.import_path(&source).unwrap() else {
        panic!("a repaired native file waits for confirmation")
    };
    assert_eq!(p.format, Format::Native);
    let doc = ws.confirm_import(p.id, true).unwrap().unwrap();
    let d = ws.doc(doc).unwrap();
    assert!(d.path.is_none(), "an import never takes its source's path");
    assert!(d.dirty(), "an import is a new, unsaved book");
    assert_eq!(
        ws.save(doc, None, false).unwrap_err().kind,
        ErrorKind::NeedsPath
    );
    assert_eq!(std::fs::read_to_string(&source).unwrap(), text);
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "nothing written"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_save_into_a_vanished_folder_fails_clearly_and_stays_dirty() {
    let (mut ws, doc) = ws();
    let dir = std::env::temp_dir().join(format!("lbs-vanish-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("book.json");
    ws.save(doc, Some(path.clone()), false).unwrap();
    let mut e = ws.entry(doc, 1).unwrap().entry;
    e.keys.push("unsaved".into());
    ws.update_entry(doc, e).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    // The file went with its folder: the save asks first, and overwriting
    // then fails with the reason.
    let err = ws.save(doc, None, false).unwrap_err();
    assert_eq!(err.kind, ErrorKind::ChangedOnDisk, "{}", err.message);
    let err = ws.save(doc, None, true).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Io);
    assert!(err.message.contains("does not exist"), "{}", err.message);
    assert!(ws.doc(doc).unwrap().dirty());
}

#[cfg(unix)]
#[test]
fn a_save_into_a_read_only_folder_fails_clearly_and_stays_dirty() {
    use std::os::unix::fs::PermissionsExt;
    let (mut ws, doc) = ws();
    let mut e = ws.entry(doc, 1).unwrap().entry;
    e.keys.push("unsaved".into());
    ws.update_entry(doc, e).unwrap();
    let dir = std::env::temp_dir().join(format!("lbs-ro-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    // Root writes into read-only folders anyway; /sys refuses even root.
    let ro = if std::fs::File::create(dir.join("probe")).is_err() {
        dir.clone()
    } else {
        std::path::PathBuf::from("/sys")
    };
    let err = ws.save(doc, Some(ro.join("book.json")), false).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Io);
    assert!(err.message.contains("not writable"), "{}", err.message);
    assert!(ws.doc(doc).unwrap().dirty());
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What the webview makes of a value: JSON numbers become doubles, and
/// `JSON.stringify` writes integral ones as integers.
fn through_javascript(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Number(n) => {
            let f = n.as_f64().unwrap();
            if f.fract() == 0.0 && (0.0..1.8e19).contains(&f) {
                Value::from(f as u64)
            } else if f.fract() == 0.0 && (-9.2e18..0.0).contains(&f) {
                Value::from(f as i64)
            } else {
                Value::from(f)
            }
        }
        Value::Array(a) => Value::Array(a.into_iter().map(through_javascript).collect()),
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, v)| (k, through_javascript(v)))
                .collect(),
        ),
        other => other,
    }
}

#[test]
fn huge_ids_and_integers_survive_an_edit_in_the_editor() {
    let dir = std::env::temp_dir().join(format!("lbs-huge-ids-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("huge.json");
    std::fs::write(
        &source,
        r#"{"spec": "lorebook_v3", "data": {"name": "Huge", "entries": [
        {"id": 1152921504606846977, "keys": ["a"], "content": "x",
         "unknown": {"nested": {"n": 1152921504606846977}},
         "extensions": {"tool": {"big": -1152921504606846977}}},
        {"id": 3, "keys": ["b"], "content": "y", "insertion_order": 9007199254740993}]}}"#,
    )
    .unwrap();
    let mut ws = Workspace::default();
    let ImportOutcome::Pending(p) = ws.import_path(&source).unwrap() else {
        panic!("a repaired native file waits for confirmation")
    };
    assert!(
        p.report
            .to_string()
            .contains("id 1152921504606846977 is not"),
        "{}",
        p.report
    );
    let doc = ws.confirm_import(p.id, true).unwrap().unwrap();
    // Every id the webview receives is exact in a JavaScript number.
    let all = ListQuery {
        search: String::new(),
        filter: EntryFilter::All,
        sort: SortKey::Id,
        descending: false,
    };
    let rows = ws.list(doc, &all).unwrap();
    assert!(rows.iter().all(|r| r.id <= lorebook_engine::model::MAX_ID));
    for row in rows {
        // The editor's round trip: the entry goes to JavaScript and back
        // with an edit.
        let detail = ws.entry(doc, row.id).unwrap();
        let sent = through_javascript(serde_json::to_value(&detail.entry).unwrap());
        let mut edited: lorebook_engine::model::Entry = serde_json::from_value(sent).unwrap();
        edited.content.push_str(" edited");
        ws.update_entry(doc, edited).unwrap();
    }
    let path = dir.join("saved.json");
    ws.save(doc, Some(path.clone()), false).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    for exact in [
        "\"id\": 1152921504606846977",
        "\"n\": 1152921504606846977",
        "\"big\": -1152921504606846977",
        "\"insertion_order\": 9007199254740993",
        "x edited",
        "y edited",
    ] {
        assert!(text.contains(exact), "{exact} in\n{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A small tmpfs mounted for one test, unmounted when dropped. `None` when
/// this process may not mount (not root, or in a container that forbids it).
#[cfg(target_os = "linux")]
pub(super) struct SmallDisk(pub(super) std::path::PathBuf);

#[cfg(target_os = "linux")]
impl SmallDisk {
    pub(super) fn mount(name: &str, size: &str) -> Option<SmallDisk> {
        Self::mount_with(name, &format!("size={size}"))
    }

    /// A read-only file system (even root cannot write there).
    pub(super) fn read_only(name: &str) -> Option<SmallDisk> {
        Self::mount_with(name, "size=64k,ro")
    }

    fn mount_with(name: &str, options: &str) -> Option<SmallDisk> {
        let dir = std::env::temp_dir().join(format!("lbs-disk-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok()?;
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(&dir)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            let _ = std::fs::remove_dir(&dir);
            return None;
        }
        Some(SmallDisk(dir))
    }
}

#[cfg(target_os = "linux")]
impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_save_onto_a_full_disk_fails_clearly_keeps_the_file_and_stays_dirty() {
    let Some(disk) = SmallDisk::mount("full", "64k") else {
        eprintln!("skipped: the full-disk test needs permission to mount a tmpfs");
        return;
    };
    let (mut ws, doc) = ws();
    let path = disk.0.join("book.json");
    ws.save(doc, Some(path.clone()), false).unwrap();
    let saved = std::fs::read(&path).unwrap();
    // An entry larger than the disk: the save cannot be written.
    let mut e = ws.entry(doc, 1).unwrap().entry;
    e.content = "x".repeat(200 * 1024);
    ws.update_entry(doc, e).unwrap();
    let err = ws.save(doc, None, false).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Io);
    assert!(err.message.contains("is full"), "{}", err.message);
    assert!(
        err.message.contains("the file was not changed"),
        "{}",
        err.message
    );
    assert!(ws.doc(doc).unwrap().dirty());
    assert!(ws.any_dirty(), "the unsaved-changes prompt still asks");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        saved,
        "the old file is intact"
    );
    let names: Vec<String> = std::fs::read_dir(&disk.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.contains(".lbs-tmp-")),
        "no temporary file left: {names:?}"
    );
    // Once there is room (the entry shrinks), the same save goes through.
    let mut e = ws.entry(doc, 1).unwrap().entry;
    e.content = "small again".into();
    ws.update_entry(doc, e).unwrap();
    ws.save(doc, None, false).unwrap();
    assert!(!ws.doc(doc).unwrap().dirty());
}

/// Issue 8: a command that panics is answered with an `internal` error (the
/// UI reports it), later commands still work, and the quit check keeps
/// asking even when every book reads clean.
#[test]
fn a_command_that_panics_is_reported_and_the_quit_check_still_asks() {
    use crate::commands::{guarded, AppState};
    use crate::workspace::recovery::has_unsaved;
    for edit_first in [true, false] {
        let (ws, doc) = ws();
        let state = AppState::new(ws, Vec::new());
        if edit_first {
            guarded(&state, "update_entry", |ws| {
                let mut e = ws.entry(doc, 1)?.entry;
                e.keys.push("unsaved".into());
                ws.update_entry(doc, e)
            })
            .unwrap();
        }
        assert_eq!(has_unsaved(&state.ws), edit_first);
        let err = guarded(&state, "get_entry", |ws| {
            // A bug: an id that is not there, unwrapped.
            Ok(ws.entry(doc, 999_999).unwrap())
        })
        .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Internal);
        assert!(
            err.message.contains("internal error in get_entry"),
            "{}",
            err.message
        );
        assert!(
            err.message.contains("is not in this book"),
            "{}",
            err.message
        );
        assert!(has_unsaved(&state.ws), "the quit check still asks");
        // The app goes on: the next command answers normally.
        let e = guarded(&state, "get_entry", |ws| ws.entry(doc, 1)).unwrap();
        assert_eq!(e.entry.keys.contains(&"unsaved".to_string()), edit_first);
    }
}

/// Issue 8: where an export writes the source's spelling instead of what
/// the editor shows, or an edit replaced that spelling, the export report
/// says so for that entry and field.
#[test]
fn the_export_report_names_source_spellings_and_the_edits_that_replace_them() {
    let dir = std::env::temp_dir().join(format!("lbs-shadow-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("world.json");
    std::fs::write(
        &source,
        r#"{"entries": {
        "0": {"uid": 0, "key": ["a"], "content": "A", "comment": "Kept", "matchWholeWords": null},
        "1": {"uid": 1, "key": ["b"], "content": "B", "comment": "Edited", "matchWholeWords": null}}}"#,
    )
    .unwrap();
    let mut ws = Workspace::default();
    let ImportOutcome::Pending(p) = ws.import_path(&source).unwrap() else {
        panic!("a SillyTavern file waits for confirmation")
    };
    let doc = ws.confirm_import(p.id, true).unwrap().unwrap();
    let mut e = ws.entry(doc, 1).unwrap().entry;
    assert!(e.whole_words, "null reads as SillyTavern's default, on");
    e.whole_words = false;
    ws.update_entry(doc, e).unwrap();
    let report = ws.export_report(doc, ExportFormat::SillyTavern).unwrap();
    let section = |id: u64| &report.entries.iter().find(|s| s.id == id).unwrap().fields;
    assert!(
        section(0)
            .approximated
            .iter()
            .any(|n| n.field == "matchWholeWords"
                && n.note.to_string()
                    == "written as the source file had it, null, where the editor shows true"),
        "{report}"
    );
    assert!(
        section(1)
            .carried
            .iter()
            .any(|c| c == "matchWholeWords (your edit replaces the source file's null)"),
        "{report}"
    );
    assert!(
        !section(1)
            .approximated
            .iter()
            .any(|n| n.field == "matchWholeWords"),
        "{report}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 9: a keystroke's preview view carries the changed prompt messages
/// only, and the UI rebuilds the whole prompt from the patch.
#[test]
fn a_preview_after_typing_sends_only_the_changed_prompt_messages() {
    use lorebook_engine::prompt::PromptMessage;
    fn apply(held: &[PromptMessage], p: &PromptPatch) -> Vec<PromptMessage> {
        let (head, tail) = (p.keep_head as usize, p.keep_tail as usize);
        let mut out = held[..head].to_vec();
        out.extend(p.middle.iter().cloned());
        out.extend(held[held.len() - tail..].iter().cloned());
        out
    }
    let (mut ws, _) = ws();
    let first = ws.preview_since(None, None).unwrap();
    assert_eq!(first.prompt.base, None);
    assert!(
        first.result.messages.is_empty(),
        "the prompt is only in `prompt`"
    );
    let held = first.prompt.middle.clone();
    // Typing at the end of the chat changes its last message only.
    let text = format!("{}zz", ws.chat_text.trim_end());
    ws.set_chat(text);
    let next = ws.preview_since(None, Some(first.prompt.rev)).unwrap();
    assert_eq!(next.prompt.base, Some(first.prompt.rev));
    assert_eq!(
        next.prompt.middle.len(),
        1,
        "{} of {} messages sent again",
        next.prompt.middle.len(),
        held.len()
    );
    let whole = ws.preview(None).prompt.middle;
    assert_eq!(apply(&held, &next.prompt), whole);
    // A UI holding another prompt (an answer it dropped) gets it whole.
    let stale = ws.preview_since(None, Some(first.prompt.rev)).unwrap();
    assert_eq!(stale.prompt.base, None);
    assert_eq!(stale.prompt.middle, whole);
}

/// Issue 9: a chat keystroke sends the change, counted in the webview's
/// UTF-16 units, not the whole chat.
#[test]
fn a_chat_edit_applies_at_utf16_places_and_refuses_a_stale_length() {
    let (mut ws, _) = ws();
    ws.set_chat("User: é😀 moon".into());
    let len = |s: &str| s.encode_utf16().count() as u32;
    // "é" is one unit, "😀" two: "moon" starts at unit 10.
    ws.edit_chat(10, 4, "sun", len("User: é😀 moon")).unwrap();
    assert_eq!(ws.chat_text, "User: é😀 sun");
    assert_eq!(ws.chat.len(), 1);
    assert_eq!(ws.chat[0].text, "é😀 sun");
    ws.edit_chat(len("User: é😀 sun"), 0, "!", len("User: é😀 sun"))
        .unwrap();
    assert_eq!(ws.chat_text, "User: é😀 sun!");
    // The UI's idea of the chat is stale: refused, nothing changed.
    let err = ws.edit_chat(0, 0, "x", 3).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Invalid);
    // Inside the emoji's surrogate pair: refused.
    let err = ws.edit_chat(8, 0, "x", len("User: é😀 sun!")).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Invalid);
    assert_eq!(ws.chat_text, "User: é😀 sun!");
}

/// Issue 17: a misbehaving webview's `at + remove` past u32 was an
/// arithmetic overflow (a panic in debug builds, a wrapped, wrong edit in
/// release ones); now it is a refused edit and the chat is unchanged.
#[test]
fn a_chat_edit_whose_end_overflows_is_refused() {
    let (mut ws, _) = ws();
    ws.set_chat("User: moon".into());
    let len = "User: moon".len() as u32;
    for (at, remove) in [(u32::MAX, 1), (1, u32::MAX), (u32::MAX, u32::MAX), (5, len)] {
        let err = ws.edit_chat(at, remove, "x", len).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Invalid, "{at} {remove}");
    }
    assert_eq!(ws.chat_text, "User: moon");
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("lbs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Issue 17: a book whose file was made read-only (mode 0444) was replaced
/// on Save without a word; now Save refuses with a coded error and the
/// file is untouched.
#[cfg(unix)]
#[test]
fn saving_over_a_read_only_book_is_refused_clearly() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("readonly-book");
    let path = dir.join("book.json");
    let (mut ws, doc) = ws();
    ws.save(doc, Some(path.clone()), false).unwrap();
    let before = std::fs::read(&path).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    ws.add_entry(doc).unwrap();
    let err = ws.save(doc, None, false).unwrap_err();
    assert!(
        matches!(err.code, crate::error::ErrorCode::ReadOnly { .. }),
        "{err:?}"
    );
    assert!(err.message.contains("read-only"), "{}", err.message);
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert!(ws.doc(doc).unwrap().dirty());
    // Save As elsewhere works; so does saving once the file is writable.
    ws.save(doc, Some(dir.join("copy.json")), false).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    ws.add_entry(doc).unwrap();
    ws.save(doc, Some(path.clone()), false).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 17: an export onto the file of an open book, or onto the file the
/// book was imported from in another format, is refused (issue 43: in the
/// source's own format it writes the book back); an export replacing any other file
/// keeps it as `NAME.bak`.
#[test]
fn exports_never_replace_an_open_book_or_their_source_and_keep_a_backup() {
    let dir = scratch("export-over");
    let (mut ws, doc) = ws();
    let own = dir.join("own.json");
    ws.save(doc, Some(own.clone()), false).unwrap();
    let saved = std::fs::read(&own).unwrap();
    let err = ws
        .export_to(doc, ExportFormat::SillyTavern, &own, None)
        .unwrap_err();
    assert!(
        matches!(err.code, crate::error::ErrorCode::ExportOverBook { .. }),
        "{err:?}"
    );
    assert_eq!(std::fs::read(&own).unwrap(), saved);
    // Through a symlink too.
    #[cfg(unix)]
    {
        let link = dir.join("link.json");
        std::os::unix::fs::symlink(&own, &link).unwrap();
        assert!(ws
            .export_to(doc, ExportFormat::SillyTavern, &link, None)
            .is_err());
    }
    // Another open book's file.
    let other_path = dir.join("other.json");
    let other = ws.new_book();
    ws.save(other, Some(other_path.clone()), false).unwrap();
    assert!(ws
        .export_to(doc, ExportFormat::SillyTavern, &other_path, None)
        .is_err());
    // The file an imported book came from.
    let st = dir.join("world.st.json");
    ws.export_to(doc, ExportFormat::SillyTavern, &st, None)
        .unwrap();
    let source = std::fs::read(&st).unwrap();
    let ImportOutcome::Pending(p) = ws.import_path(&st).unwrap() else {
        panic!("a SillyTavern book waits for confirmation");
    };
    let imported = ws.confirm_import(p.id, true).unwrap().unwrap();
    // In another format, refused.
    let err = ws
        .export_to(imported, ExportFormat::CardV2, &st, None)
        .unwrap_err();
    assert!(matches!(
        err.code,
        crate::error::ErrorCode::ExportOverBook { .. }
    ));
    assert_eq!(std::fs::read(&st).unwrap(), source);
    // Issue 43: Save in the app's own format over it, refused too.
    let err = ws.save(imported, Some(st.clone()), false).unwrap_err();
    assert!(
        matches!(err.code, crate::error::ErrorCode::SaveOverSource { .. }),
        "{err:?}"
    );
    assert_eq!(std::fs::read(&st).unwrap(), source);
    assert!(ws.doc(imported).unwrap().dirty());
    // Issue 43: in its own format, written back (a backup kept), and the
    // book is saved.
    ws.export_to(imported, ExportFormat::SillyTavern, &st, None)
        .unwrap();
    assert_eq!(
        std::fs::read(dir.join("world.st.json.bak")).unwrap(),
        source
    );
    assert!(!ws.doc(imported).unwrap().dirty());
    let ImportOutcome::Pending(again) = ws.import_path(&st).unwrap() else {
        panic!("still a SillyTavern book");
    };
    assert_eq!(again.format, lorebook_engine::formats::Format::SillyTavern);
    // Any other file is replaced, and kept as NAME.bak.
    let plain = dir.join("plain.json");
    std::fs::write(&plain, b"an older export").unwrap();
    ws.export_to(imported, ExportFormat::SillyTavern, &plain, None)
        .unwrap();
    assert_eq!(
        std::fs::read(dir.join("plain.json.bak")).unwrap(),
        b"an older export"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 17: a recent file goes through the same rule as Open: one that
/// now needs repair opens as an import, unbound, and is never written.
#[test]
fn a_recent_file_that_now_needs_repair_opens_unbound() {
    let dir = scratch("recent-repair");
    let path = dir.join("book.json");
    let (mut ws, doc) = ws();
    ws.save(doc, Some(path.clone()), false).unwrap();
    ws.close(doc).unwrap();
    // Edited by hand since: two entries with one id, which an open repairs.
    let text = r#"{"spec": "lorebook_v3", "data": {"name": "Src", "entries": [
        {"id": 1, "keys": ["a"], "content": "x"},
        {"id": 1, "keys": ["b"], "content": "y"}]}}"#;
    std::fs::write(&path, text).unwrap();
    let shown = path.canonicalize().unwrap().display().to_string();
    let ImportOutcome::Pending(p) = ws.open_recent(&shown).unwrap() else {
        panic!("a file that needs repair waits for confirmation");
    };
    let reopened = ws.confirm_import(p.id, true).unwrap().unwrap();
    assert!(ws.doc(reopened).unwrap().path.is_none());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    // A file outside the list is refused.
    assert!(ws.open_recent("/etc/passwd").is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The recent files list keeps the ten newest: ten remembered paths all
/// stay, an eleventh pushes the oldest out, and paths from an earlier run
/// only fill the places left.
#[test]
fn recent_files_keep_the_ten_newest() {
    let dir = std::env::temp_dir().join(format!("lbs-recent-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut ws = Workspace::default();
    let sample = Workspace::with_sample().docs[0].book.clone();
    let mut opened = Vec::new();
    for i in 0..=super::documents::RECENT_LIMIT {
        let path = dir.join(format!("book{i}.json"));
        formats::native::save(&sample, &path).unwrap();
        ws.open_path(&path).unwrap();
        opened.push(path.canonicalize().unwrap());
        let expected: Vec<_> = opened
            .iter()
            .rev()
            .take(super::documents::RECENT_LIMIT)
            .cloned()
            .collect();
        assert_eq!(ws.recent, expected, "after {} books", i + 1);
    }
    let earlier: Vec<_> = (0..3).map(|i| dir.join(format!("earlier{i}"))).collect();
    ws.add_recent(earlier);
    assert_eq!(ws.recent.len(), super::documents::RECENT_LIMIT);
    let mut fresh = Workspace::default();
    fresh.add_recent((0..12).map(|i| dir.join(format!("earlier{i}"))).collect());
    assert_eq!(fresh.recent.len(), super::documents::RECENT_LIMIT);
    assert_eq!(fresh.recent[0], dir.join("earlier0"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A big book's first list comes before all its counts (rows past the
/// counting budget have none), and the steps of `count_list_tokens` then
/// give every row's count, the same as a list that counts everything;
/// entries with equal bodies get their count too.
#[test]
fn a_big_books_list_comes_first_and_its_counts_in_steps() {
    use crate::workspace::list::COUNT_STEP_BYTES;
    use lorebook_engine::model::{Book, Entry};
    let mut book = Book::default();
    let n = 3 * COUNT_STEP_BYTES / 1000 + 10;
    for i in 0..n as u64 {
        // About 1,000 bytes each; every tenth body repeats an earlier one.
        let like = if i % 10 == 9 { i - 9 } else { i };
        let body = format!("Entry {like} says {}", "word ".repeat(200));
        book.entries.push(Entry {
            id: i,
            keys: vec![format!("key{i}")],
            content: body,
            ..Entry::default()
        });
    }
    let mut ws = Workspace::default();
    let doc = ws.add_doc(book, None);
    let q = |sort| ListQuery {
        search: String::new(),
        filter: EntryFilter::All,
        sort,
        descending: false,
    };
    let first = ws.list(doc, &q(SortKey::Id)).unwrap();
    assert_eq!(first.len(), n);
    let counted = first.iter().filter(|r| r.tokens.is_some()).count();
    assert!(
        counted > 0 && counted < n,
        "{counted} of {n} counted at once"
    );

    let mut got = std::collections::BTreeMap::new();
    let mut from = 0;
    let mut steps = 0;
    loop {
        let step = ws.count_list_tokens(doc, from).unwrap();
        steps += 1;
        for c in step.counts {
            got.insert(c.id, c.tokens);
        }
        match step.next {
            Some(next) => {
                assert!(next > from, "a step moves on");
                from = next;
            }
            None => break,
        }
    }
    assert!(steps >= 2, "{steps} steps");
    // Sorting by tokens counts everything at once: the reference.
    let all = ws.list(doc, &q(SortKey::Tokens)).unwrap();
    assert!(all.iter().all(|r| r.tokens.is_some()));
    for r in &all {
        assert_eq!(got.get(&r.id).copied(), r.tokens, "entry {}", r.id);
    }
    // Counted once, a list has every count at once.
    assert!(ws
        .list(doc, &q(SortKey::Id))
        .unwrap()
        .iter()
        .all(|r| r.tokens.is_some()));
    assert_eq!(
        ws.count_list_tokens(doc, 0).unwrap().next,
        None,
        "nothing left to count"
    );
}

/// `prepare` builds the index the first list or preview would build, so
/// those find it ready, and gives the same preview.
#[test]
fn prepare_builds_the_index_ahead() {
    let (mut cold, _) = ws();
    let (mut warm, _) = ws();
    assert!(warm.stale, "a workspace with a new book has its index due");
    warm.prepare();
    assert!(!warm.stale);
    assert_eq!(
        serde_json::to_string(&warm.preview(None).result).unwrap(),
        serde_json::to_string(&cold.preview(None).result).unwrap()
    );
}

/// A workspace whose request log takes seconds: many entries, a long chat
/// that names them.
fn slow_log_workspace() -> Workspace {
    let mut ws = Workspace::default();
    let doc = ws.new_book();
    for i in 0..1500u32 {
        let id = ws.add_entry(doc).unwrap();
        let mut e = ws.entry(doc, id).unwrap().entry;
        e.keys = vec![format!("place{i}"), format!("person{i}")];
        e.content = format!("Lore of place{} and person{}.", i + 1, i + 2);
        ws.update_entry(doc, e).unwrap();
    }
    let chat: String = (0..4000)
        .map(|m| {
            format!(
                "User: we met person{} near place{}\n",
                m % 1500,
                (m * 7) % 1500
            )
        })
        .collect();
    ws.set_chat(chat);
    ws
}

/// Issue 17: a long request log held the workspace lock to its end, so a
/// save, an autosave or the exit-signal handler waited for all of it (and
/// the window's close request blocked the main thread). Now whoever waits
/// raises the interrupt, the log stops between two requests and answers
/// `cancelled`, and the waiter gets the workspace within milliseconds.
#[test]
fn a_save_and_an_autosave_during_a_long_log_do_not_wait_for_it() {
    use crate::commands::AppState;
    use crate::workspace::recovery::Recovery;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    let mut ws = slow_log_workspace();
    let started = Instant::now();
    ws.preview_log().unwrap();
    let whole = started.elapsed();
    if whole < Duration::from_millis(1500) {
        eprintln!("note: the log took only {whole:?}; the test still checks the interrupt");
    }
    let dir = scratch("interrupt");
    let book = dir.join("book.json");
    let doc = ws.docs[0].id;
    ws.save(doc, Some(book.clone()), false).unwrap();
    ws.add_entry(doc).unwrap();
    let state = Arc::new(AppState::new(ws, Vec::new()));
    for waiter in ["save", "autosave"] {
        let (tx, rx) = std::sync::mpsc::channel();
        let worker = {
            let state = state.clone();
            std::thread::spawn(move || {
                let mut ws = state.ws.lock().unwrap();
                tx.send(()).unwrap();
                ws.preview_log()
            })
        };
        rx.recv().unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let asked = Instant::now();
        {
            let mut ws = state.lock_soon();
            let waited = asked.elapsed();
            assert!(
                waited < Duration::from_secs(1),
                "{waiter} waited {waited:?} (the whole log takes {whole:?})"
            );
            match waiter {
                "save" => {
                    ws.save(doc, None, false).unwrap();
                    ws.add_entry(doc).unwrap();
                }
                _ => {
                    let mut rec = Recovery::new(&dir);
                    let plan = rec.plan(&ws, Instant::now(), Duration::ZERO);
                    assert!(rec.apply(plan).is_empty());
                    assert!(std::fs::read_dir(dir.join("recovery"))
                        .unwrap()
                        .flatten()
                        .any(|e| e.file_name().to_string_lossy().ends_with(".meta.json")));
                }
            }
        }
        let log = worker.join().unwrap();
        if whole > Duration::from_secs(1) {
            let err = log.unwrap_err();
            assert_eq!(err.kind, ErrorKind::Cancelled, "{err:?}");
        }
    }
    // Nobody waits: the log runs whole.
    let mut ws = state.ws.lock().unwrap();
    assert!(ws.preview_log().is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A workspace whose one attached book has `n` entries and whose preview
/// is still to be built (as after opening it).
fn big_book_workspace(n: u64) -> (Workspace, u32) {
    let mut ws = Workspace::default();
    let book = Book {
        name: "Big".into(),
        entries: (0..n)
            .map(|i| lorebook_engine::model::Entry {
                id: i,
                comment: format!("Entry {i}"),
                keys: vec![format!("place{i}"), format!("person{i} of place{i}")],
                content: format!("Lore of place{} and person{}.", i + 1, i + 2),
                whole_words: i % 2 == 0,
                ..Default::default()
            })
            .collect(),
        ..Book::default()
    };
    let doc = ws.add_doc(book, None);
    ws.set_chat("User: we met person7 near place9\nAssistant: place9 it was".into());
    (ws, doc)
}

/// Issue 17: building the preview of a big book (the guide's index, the
/// SillyTavern preview, the RisuAI preview) held the workspace to its end, so a save or the
/// exit-signal handler waited for the whole build. With a save waiting,
/// the build now stops, the view answers `cancelled`, the preview stays
/// due, and the next view builds it as if nothing had stopped it. A newer
/// preview does not stop a build (it needs the same one).
#[test]
fn a_save_during_a_first_build_of_a_big_book_does_not_wait_for_it() {
    use crate::commands::AppState;
    use std::sync::Arc;
    use std::time::Instant;

    for rules in [Rules::Studio, Rules::Sillytavern, Rules::Risu] {
        let build = move |ws: &mut Workspace| match rules {
            Rules::Studio => ws
                .preview_since(None, None)
                .map(|v| v.result.injected.len()),
            Rules::Sillytavern => ws.st_preview(None).map(|v| v.injected.len()),
            Rules::Risu => ws.risu_preview(None, false).map(|v| v.injected.len()),
        };
        let (mut whole_ws, _) = big_book_workspace(20_000);
        whole_ws.set_rules(rules);
        let started = Instant::now();
        let expected = build(&mut whole_ws).unwrap();
        let whole = started.elapsed();
        eprintln!("{rules:?}: the first build and view take {whole:?}");
        assert!(expected > 0, "the chat activates entries");

        // Asked to give way before it starts, the build stops at once.
        let (mut ws, doc) = big_book_workspace(20_000);
        ws.set_rules(rules);
        let interrupt = ws.interrupt.clone();
        {
            let _save = interrupt.want_urgently();
            let asked = Instant::now();
            let err = build(&mut ws).unwrap_err();
            assert_eq!(err.kind, ErrorKind::Cancelled, "{err:?}");
            assert!(
                asked.elapsed() < whole / 4,
                "stopped after {:?} of a {whole:?} build",
                asked.elapsed()
            );
        }
        // A newer request does not stop it.
        {
            let _newer = interrupt.want();
            assert_eq!(build(&mut ws).unwrap(), expected);
        }
        let all = ListQuery {
            search: String::new(),
            filter: EntryFilter::All,
            sort: SortKey::Id,
            descending: false,
        };
        assert_eq!(ws.list(doc, &all).unwrap().len(), 20_000);

        // The same with the save on another thread, as the app waits.
        let (mut ws, doc) = big_book_workspace(20_000);
        ws.set_rules(rules);
        let mut e = ws.entry(doc, 3).unwrap().entry;
        e.comment = "edited".into();
        ws.update_entry(doc, e).unwrap();
        let state = Arc::new(AppState::new(ws, Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let worker = {
            let state = state.clone();
            std::thread::spawn(move || {
                let mut ws = state.ws.lock().unwrap();
                tx.send(()).unwrap();
                build(&mut ws)
            })
        };
        rx.recv().unwrap();
        std::thread::sleep(whole / 10);
        let asked = Instant::now();
        {
            let mut ws = state.lock_urgently();
            let waited = asked.elapsed();
            eprintln!("{rules:?}: a save during the build waited {waited:?}");
            assert!(
                waited < whole / 2,
                "{rules:?}: the save waited {waited:?} (the build takes {whole:?})"
            );
            let dir = scratch("build-interrupt");
            ws.save(doc, Some(dir.join("big.json")), false).unwrap();
            std::fs::remove_dir_all(&dir).unwrap();
        }
        let err = worker.join().unwrap().unwrap_err();
        assert_eq!(err.kind, ErrorKind::Cancelled, "{err:?}");
        let mut ws = state.ws.lock().unwrap();
        assert_eq!(build(&mut ws).unwrap(), expected);
        if rules == Rules::Sillytavern {
            assert_eq!(ws.st_builds(), 1, "only the build that ended is kept");
        }
        if rules == Rules::Risu {
            assert_eq!(ws.risu_builds(), 1, "only the build that ended is kept");
        }
    }
}

/// An edit whose full rebuild of the index falls due while a save waits
/// is applied on top of the index instead (see `Preview::upsert_entry_while`):
/// the edit is never lost or refused, and the preview shows it.
#[test]
fn an_edit_whose_rebuild_gives_way_to_a_save_is_still_applied() {
    use lorebook_engine::preview::OVERLAY_LIMIT;
    let (mut ws, doc) = big_book_workspace(400);
    ws.preview(None);
    let interrupt = ws.interrupt.clone();
    let edit = |ws: &mut Workspace, id: u64| {
        let mut e = ws.entry(doc, id).unwrap().entry;
        e.keys = vec![format!("edited{id}")];
        ws.update_entry(doc, e).unwrap();
    };
    {
        let _save = interrupt.want_urgently();
        // Past the overlay's limit, each edit's rebuild is due and stops.
        for id in 0..OVERLAY_LIMIT as u64 + 2 {
            edit(&mut ws, id);
        }
        assert_eq!(ws.preview.index().overlay_len(), OVERLAY_LIMIT + 2);
    }
    ws.set_chat("User: edited3 and place300".into());
    let seen = ws.preview(None).result;
    let ids: Vec<u64> = seen.injected.iter().map(|i| i.id).collect();
    assert!(ids.contains(&3) && ids.contains(&300), "{ids:?}");
    // As a preview built from the edited book says.
    let mut fresh = Workspace::default();
    fresh.add_doc(ws.docs[0].book.clone(), None);
    fresh.set_chat(ws.chat_text.clone());
    assert_eq!(fresh.preview(None).result, seen);
    // With nobody waiting, the next edit rebuilds.
    edit(&mut ws, 399);
    assert_eq!(ws.preview.index().overlay_len(), 0);
}
