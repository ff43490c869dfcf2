//! Issue 42: AI drafts that the preview must approve. The real app drafts
//! entries from a selection of its chat through an OpenAI-compatible
//! endpoint (a scripted one, `lorebook_test_support::scripted`, so the
//! suggestions are known), shows each suggestion's simulated effect,
//! accepts two, undoes and redoes them as one step, and never changes the
//! entry the author locked.

use std::sync::{Arc, Mutex};

use lorebook_test_support::scripted::{stream_text, Scripted};

use super::{assert_accessible, serial, tid, wait_until, Driver, TIMEOUT};

// Tam Venn (3) is the sample's entry the author locks; the draft names it.
const DRAFT: &str = r#"{"entries": [
  {"name": "Ferry crossing", "keys": ["ferryman"], "secondary_keys": [], "content": "The ferry crosses to the reef at dawn."},
  {"name": "Corner table", "keys": ["drinking alone"], "secondary_keys": [], "content": "A corner table by the fire."},
  {"name": "Tam Venn (ferryman)", "keys": ["Tam"], "secondary_keys": [], "content": "Tam is secretly the keeper."},
  {"name": "Sea wall", "keys": ["sea wall"], "secondary_keys": [], "content": "The old sea wall."}
]}"#;

const REVIEW: &str = r#"{"findings": [{"kind": "never_fires", "entries": ["The Long Storm"], "note": "Nobody says storm."}]}"#;

const SELECTED: &str = "A ferryman named Tam is drinking alone in the corner.";

#[test]
fn drafts_from_a_chat_selection_are_checked_accepted_as_one_step_and_spare_a_locked_entry() {
    let _serial = serial();
    let bodies = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = bodies.clone();
    let server = Scripted::start(move |_, request, s| {
        seen.lock().unwrap().push(request.to_string());
        if request.contains("lorebook_review") {
            stream_text(s, REVIEW);
        } else {
            stream_text(s, DRAFT);
        }
    });
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    let before = app.row_ids().unwrap();

    // Lock Tam Venn.
    app.select_entry(3, "Tam Venn (ferryman)");
    let tam_before = app.value(&tid("content")).unwrap();
    app.click(&tid("locked"));
    wait_until("the entry locked", TIMEOUT, || {
        match app
            .property(&app.find(&tid("locked"))?, "checked")?
            .as_deref()
        {
            Some("true") => Ok(()),
            other => Err(format!("checked {other:?}")),
        }
    });

    // Select a sentence of the chat, then open the assistant.
    let selected = app.js(
        "const box = document.querySelector('[data-testid=\"chat\"]');\
         const at = box.value.indexOf(arguments[0]);\
         box.focus(); box.setSelectionRange(at, at + arguments[0].length);\
         return at;",
        vec![serde_json::json!(SELECTED)],
    );
    assert!(
        selected.as_i64().is_some_and(|at| at >= 0),
        "the sentence is in the sample chat"
    );
    app.click(&tid("ai-open"));
    app.wait_for(&tid("ai-dialog"));
    app.type_into(&tid("ai-address"), &server.url());
    app.type_into(&tid("ai-model"), "scripted");
    app.type_into(&tid("ai-key"), "sk-e2e-secret");
    app.click(&tid("ai-save"));
    app.wait_for(&tid("ai-endpoint"));
    app.wait_for(&tid("ai-selection"));
    app.click(&tid("ai-run"));
    app.wait_for(&tid("ai-results"));
    let sent = bodies.lock().unwrap().join("\n");
    assert!(
        sent.contains(SELECTED),
        "the selection is what was sent: {sent}"
    );
    assert!(sent.contains("Bearer sk-e2e-secret"));

    let rows = app.find_all(&tid("ai-suggestion")).unwrap();
    assert_eq!(rows.len(), 4);
    let checks: Vec<String> = app
        .find_all(&tid("ai-check"))
        .unwrap()
        .iter()
        .map(|e| app.text(e).unwrap_or_default())
        .collect();
    assert!(checks[0].contains("fires on its source"), "{checks:?}");
    assert!(checks[0].contains("of the chat’s"), "{checks:?}");
    assert!(
        checks[3].contains("does not fire on its source"),
        "{checks:?}"
    );
    let failed: Vec<String> = app
        .find_all(&tid("ai-failed"))
        .unwrap()
        .iter()
        .map(|e| app.text(e).unwrap_or_default())
        .collect();
    assert!(failed.iter().any(|f| f.contains("locked")), "{failed:?}");
    assert!(
        failed.iter().any(|f| f.contains("do not fire")),
        "{failed:?}"
    );
    // What passed is picked; the locked entry's change cannot be.
    let picks = app.find_all(&tid("ai-pick")).unwrap();
    let state: Vec<(Option<String>, Option<String>)> = picks
        .iter()
        .map(|p| {
            (
                app.property(p, "checked").unwrap(),
                app.property(p, "disabled").unwrap(),
            )
        })
        .collect();
    assert_eq!(state[0].0.as_deref(), Some("true"), "{checks:?} {failed:?}");
    assert_eq!(state[1].0.as_deref(), Some("true"), "{checks:?} {failed:?}");
    assert_eq!(state[2], (Some("false".into()), Some("true".into())));
    assert_eq!(state[3].0.as_deref(), Some("false"));
    assert_accessible(&app, "the AI assistant");
    app.snapshot("ai-suggestions");
    app.click(&tid("ai-transcript-show"));
    let transcript = app.text(&app.wait_for(&tid("ai-transcript"))).unwrap();
    assert!(transcript.contains("Ferry crossing") && !transcript.contains("sk-e2e-secret"));

    app.click(&tid("ai-accept"));
    wait_until("two entries added", TIMEOUT, || {
        let now = app.row_ids()?;
        if now.len() == before.len() + 2 {
            Ok(())
        } else {
            Err(format!("{} rows", now.len()))
        }
    });
    app.select_entry(3, "Tam Venn (ferryman)");
    assert_eq!(
        app.value(&tid("content")).unwrap(),
        tam_before,
        "the locked entry is untouched"
    );
    app.click(&tid("undo"));
    wait_until("one undo takes both back", TIMEOUT, || {
        let now = app.row_ids()?;
        if now == before {
            Ok(())
        } else {
            Err(format!("{now:?}"))
        }
    });
    app.click(&tid("redo"));
    wait_until("redo puts both back", TIMEOUT, || {
        let now = app.row_ids()?;
        if now.len() == before.len() + 2 {
            Ok(())
        } else {
            Err(format!("{} rows", now.len()))
        }
    });

    // A review: the model's finding, and what the preview says of it.
    app.click(&tid("ai-open"));
    app.wait_for(&tid("ai-endpoint"));
    app.js(
        "const s = document.querySelector('[data-testid=\"ai-action\"]');\
         s.value = 'review'; s.dispatchEvent(new Event('change', { bubbles: true }));",
        vec![],
    );
    app.click(&tid("ai-run"));
    let verdict = app.text(&app.wait_for(&tid("ai-verdict"))).unwrap();
    assert!(
        verdict.contains("\"The Long Storm\" activates in")
            && verdict.contains("of the chat’s 6 requests"),
        "{verdict}"
    );
    app.snapshot("ai-review");
    app.click(&tid("ai-close"));
    app.assert_no_errors();
}
