//! The preview under RisuAI's rules as the commands call it
//! (`workspace/risu.rs`): the default rules for a RisuAI import, the view,
//! its settings, and the preview an entry edit carries.

use serde_json::json;

use super::st_tests::scratch;
use super::*;
use crate::error::ErrorKind;
use crate::views::{ImportOutcome, PreviewAnswer, PreviewAsk, Rules};
use lorebook_engine::model::Role;
use lorebook_engine::risu::{Found, RisuDrop, RisuWhy};

/// A RisuAI export: an entry at `@@depth` as the assistant, one excluded
/// by `@@exclude_keys`, and one always active.
fn imported() -> (Workspace, u32) {
    let book = json!({"type": "risu", "ver": 1, "data": [
        {"key": "harbor", "secondkey": "", "comment": "Harbor", "mode": "normal", "insertorder": 100,
         "alwaysActive": false, "selective": false, "content": "@@depth 2\n@@role assistant\nTar and salt."},
        {"key": "lighthouse", "secondkey": "", "comment": "Lighthouse", "mode": "normal", "insertorder": 200,
         "alwaysActive": false, "selective": false, "content": "@@exclude_keys storm\nThe light turns."},
        {"key": "", "secondkey": "", "comment": "Always", "mode": "normal", "insertorder": 300,
         "alwaysActive": true, "selective": false, "content": "Salt everywhere."}
    ]});
    let file = scratch("risu").join("Harbor.json");
    std::fs::write(&file, serde_json::to_vec(&book).unwrap()).unwrap();
    let mut ws = Workspace::default();
    let ImportOutcome::Pending(p) = ws.import_path(&file).unwrap() else {
        panic!("a RisuAI file waits for confirmation");
    };
    let doc = ws.confirm_import(p.id, true).unwrap().unwrap();
    ws.set_chat("User: We reach the harbor.\nNarrator: The lighthouse stands in the storm.".into());
    (ws, doc)
}

// loadLoreBookV3Prompt, as the app shows it.
#[test]
fn a_risu_import_previews_under_risu_s_rules() {
    let (mut ws, doc) = imported();
    assert_eq!(ws.rules(), Rules::Risu, "a RisuAI import's default");
    assert!(ws.state().docs[0].risu);
    let p = ws.risu_preview(None).unwrap();
    assert_eq!((p.request, p.requests, p.budget), (2, 2, 800.0));
    let names: Vec<&str> = p.injected.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["Harbor", "Always"], "ascending insertorder");
    let harbor = &p.injected[0];
    assert_eq!(
        (harbor.position.as_str(), harbor.depth, harbor.role),
        ("depth", Some(2.0), Role::Assistant)
    );
    assert_eq!(
        harbor.why,
        RisuWhy::Key {
            key: "harbor".into(),
            found: Found::Message { n: 1 }
        }
    );
    assert_eq!(p.dropped.len(), 1);
    assert!(matches!(&p.dropped[0].why, RisuDrop::Excluded { key, .. } if key == "storm"));
    // Request 1 does not see the storm yet.
    let first = ws.risu_preview(Some(1)).unwrap();
    assert!(!first.injected.iter().any(|i| i.name == "Lighthouse"));
    assert_eq!(first.request, 1);
    ws.set_attached(doc, false).unwrap();
    assert_eq!(ws.rules(), Rules::Studio, "no attached RisuAI book");
}

#[test]
fn risu_settings_are_checked_and_change_the_preview() {
    let (mut ws, _) = imported();
    let mut v = ws.rules_view().risu;
    assert_eq!(
        (v.scan_depth, v.token_budget, v.recursive),
        (5.0, 800.0, true)
    );
    v.token_budget = 2.0;
    ws.set_risu_settings(v.clone()).unwrap();
    let p = ws.risu_preview(None).unwrap();
    assert!(p.injected.is_empty());
    assert!(p
        .dropped
        .iter()
        .any(|d| matches!(d.why, RisuDrop::Budget { .. })));
    v.scan_depth = -1.0;
    let err = ws.set_risu_settings(v).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Invalid);
    assert_eq!(
        ws.rules_view().risu.token_budget,
        2.0,
        "the bad value is refused"
    );
}

// A keystroke in an entry is one round trip under every profile.
#[test]
fn an_entry_edit_carries_the_risu_preview() {
    let (mut ws, doc) = imported();
    let mut e = ws.entry(doc, 1).unwrap().entry;
    e.content = "The light turns.".into();
    let answer = ws
        .edit_entry(doc, e, Some(PreviewAsk::Risu { request: None }))
        .unwrap();
    let Some(PreviewAnswer::Risu { view }) = answer.preview else {
        panic!("the RisuAI preview rides along");
    };
    assert!(
        view.injected.iter().any(|i| i.name == "Lighthouse"),
        "without @@exclude_keys the storm no longer keeps it out"
    );
}

// What crosses per keystroke does not grow with the book: past the first
// few of a reason, left-out entries are counted.
#[test]
fn many_entries_left_out_for_one_reason_are_counted_not_listed() {
    let (mut ws, doc) = imported();
    for _ in 0..(SHOWN_PER_KIND + 7) {
        let id = ws.add_entry(doc).unwrap();
        let mut e = ws.entry(doc, id).unwrap().entry;
        e.keys = vec!["harbor".into()];
        e.content = "@@dont_activate\nNever.".into();
        ws.update_entry(doc, e).unwrap();
    }
    let p = ws.risu_preview(None).unwrap();
    let off = p
        .dropped
        .iter()
        .filter(|d| d.why == RisuDrop::ForcedOff)
        .count();
    assert_eq!(off, SHOWN_PER_KIND);
    assert_eq!(p.more, 7);
}
