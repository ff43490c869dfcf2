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
    let p = ws.risu_preview(None, false).unwrap();
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
    let first = ws.risu_preview(Some(1), false).unwrap();
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
    let p = ws.risu_preview(None, false).unwrap();
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

// loadLoreBookV3Prompt (2026 mainline): the budget counts an entry as CBS
// evaluates it with the names and variables the app's settings give; the
// preview shows what RisuAI sends; 460ecae counts the body as written.
#[test]
fn risu_version_and_cbs_inputs_come_from_the_app_settings() {
    let (mut ws, doc) = imported();
    let mut e = ws.entry(doc, 2).unwrap().entry;
    e.content =
        "{{#if {{getvar::storm}}}}A storm over {{char}}'s harbor, {{user}}.{{/if}}Salt.".into();
    ws.update_entry(doc, e).unwrap();
    let always = |ws: &mut Workspace| {
        let p = ws.risu_preview(None, false).unwrap();
        let i = p.injected.into_iter().find(|i| i.name == "Always").unwrap();
        (i.tokens, i.sent)
    };
    let (quiet, sent) = always(&mut ws);
    assert_eq!(
        sent.as_deref(),
        Some("Salt."),
        "a false {{#if}}: nothing of it sent"
    );
    let mut v = ws.rules_view().risu;
    assert_eq!(v.version, "2026");
    v.chat_variables = [("storm".to_string(), "1".to_string())].into();
    v.username = "Kim".into();
    v.char_name = "Alexandria".into();
    ws.set_risu_settings(v.clone()).unwrap();
    let (stormy, sent) = always(&mut ws);
    assert_eq!(
        sent.as_deref(),
        Some("A storm over Alexandria's harbor, Kim.Salt.")
    );
    assert!(stormy > quiet, "{stormy} > {quiet}");
    v.version = "460ecae".into();
    ws.set_risu_settings(v.clone()).unwrap();
    let (raw, _) = always(&mut ws);
    assert!(raw > stormy, "460ecae counts the macros as written: {raw}");
    v.version = "2027".into();
    let err = ws.set_risu_settings(v).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Invalid);
    assert_eq!(ws.rules_view().risu.version, "460ecae", "refused");
}

// A keystroke in an entry is one round trip under every profile.
#[test]
fn an_entry_edit_carries_the_risu_preview() {
    let (mut ws, doc) = imported();
    let mut e = ws.entry(doc, 1).unwrap().entry;
    e.content = "The light turns.".into();
    let answer = ws
        .edit_entry(
            doc,
            e,
            Some(PreviewAsk::Risu {
                request: None,
                prompt: false,
            }),
        )
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
    let p = ws.risu_preview(None, false).unwrap();
    let off = p
        .dropped
        .iter()
        .filter(|d| d.why == RisuDrop::ForcedOff)
        .count();
    assert_eq!(off, SHOWN_PER_KIND);
    assert_eq!(p.more, 7);
}

/// The decorator panel under RisuAI's rules words each decorator's meaning
/// through the UI's catalog: every one RisuAI reads has its words in both
/// languages.
#[test]
fn every_risu_decorator_has_its_meaning_in_both_languages() {
    let locales = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/lib/locales");
    for file in ["en.ts", "pt-BR.ts"] {
        let text = std::fs::read_to_string(locales.join(file)).unwrap();
        for d in lorebook_engine::risu::RISU_DECORATORS {
            let key = format!("'risuDec.{}':", d.name);
            assert!(text.contains(&key), "{file} lacks {key}");
        }
    }
}

/// Under RisuAI's rules a decorator RisuAI reads is not unknown, in the
/// editor, the list's badge or the Problems panel; one it parses and
/// ignores is a hint that it has no effect.
#[test]
fn risu_decorators_are_not_unknown_under_risu_s_rules() {
    use lorebook_engine::diagnostic::DiagnosticMessage;
    let (mut ws, doc) = imported();
    let mut e = ws.entry(doc, 1).unwrap().entry;
    e.content = "@@exclude_keys storm\n@@is_user_icon x\nThe light turns.".into();
    ws.update_entry(doc, e).unwrap();
    let unknown = |ws: &mut Workspace| -> Vec<DiagnosticMessage> {
        ws.entry(doc, 1)
            .unwrap()
            .diagnostics
            .into_iter()
            .map(|d| d.message)
            .collect()
    };
    assert_eq!(
        unknown(&mut ws),
        [DiagnosticMessage::NoEffectInRisu {
            name: "is_user_icon".into()
        }]
    );
    let problems = ws.lint_job(doc).unwrap().run(&mut ws);
    assert!(!problems
        .problems
        .iter()
        .any(|p| p.entry.id == 1 && format!("{:?}", p.finding).contains("DecoratorUnknown")));
    ws.set_rules(Rules::Studio);
    let studio = unknown(&mut ws);
    assert!(studio.contains(&DiagnosticMessage::UnknownDecorator {
        name: "exclude_keys".into()
    }));
}

/// Under RisuAI's rules a RisuAI decorator whose argument RisuAI cannot
/// use is named, with the same problem, in the editor and in the Problems
/// panel: `@@position` without a position is an error (RisuAI's prompt
/// build throws), `@@depth soon` a warning (the line is skipped).
#[test]
fn risu_decorators_with_bad_arguments_are_named_in_the_editor_and_the_problems() {
    use lorebook_engine::diagnostic::{ArgProblem, DiagnosticMessage, Severity};
    use lorebook_engine::lint::Finding;
    let (mut ws, doc) = imported();
    let mut e = ws.entry(doc, 1).unwrap().entry;
    e.content = "@@depth soon\n@@position\n@@exclude_keys storm\nThe light turns.".into();
    ws.update_entry(doc, e).unwrap();
    let shown: Vec<(Severity, DiagnosticMessage)> = ws
        .entry(doc, 1)
        .unwrap()
        .diagnostics
        .into_iter()
        .map(|d| (d.severity, d.message))
        .collect();
    let depth = ArgProblem::NotWholeNumber { arg: "soon".into() };
    let bad = |decorator: &str, problem: ArgProblem| DiagnosticMessage::BadArgument {
        decorator: decorator.into(),
        problem,
    };
    assert_eq!(
        shown,
        [
            (Severity::Warning, bad("depth", depth.clone())),
            (
                Severity::Error,
                bad("position", ArgProblem::MissingPosition)
            ),
        ]
    );
    let problems = ws.lint_job(doc).unwrap().run(&mut ws);
    let mine: Vec<(Severity, Finding)> = problems
        .problems
        .into_iter()
        .filter(|p| p.entry.id == 1 && p.code().starts_with("decorator"))
        .map(|p| (p.severity, p.finding))
        .collect();
    assert_eq!(
        mine,
        [
            (
                Severity::Warning,
                Finding::DecoratorBadArgument {
                    decorator: "depth".into(),
                    problem: depth,
                }
            ),
            (
                Severity::Error,
                Finding::DecoratorBadArgument {
                    decorator: "position".into(),
                    problem: ArgProblem::MissingPosition,
                }
            ),
        ]
    );
}

/// A RisuAI book imported and confirmed: an entry "Loose" (alpha), the
/// folder "Places" with "Harbor" (harbor) and "Tower" (tower), then `more`.
fn places(more: &[serde_json::Value]) -> (Workspace, u32) {
    let mut data = vec![
        json!({"key": "alpha", "secondkey": "", "comment": "Loose", "mode": "normal", "insertorder": 500,
         "alwaysActive": false, "selective": false, "content": "A."}),
        json!({"key": "folder:places", "secondkey": "", "comment": "Places", "mode": "folder", "insertorder": 100,
         "alwaysActive": false, "selective": false, "content": ""}),
        json!({"key": "harbor", "secondkey": "", "comment": "Harbor", "mode": "normal", "insertorder": 900,
         "alwaysActive": false, "selective": false, "content": "Tar.", "folder": "folder:places"}),
        json!({"key": "tower", "secondkey": "", "comment": "Tower", "mode": "normal", "insertorder": 50,
         "alwaysActive": false, "selective": false, "content": "Stone.", "folder": "folder:places"}),
    ];
    data.extend(more.iter().cloned());
    let book = json!({"type": "risu", "ver": 1, "data": data});
    let file = scratch("risu-places").join("Places.json");
    std::fs::write(&file, serde_json::to_vec(&book).unwrap()).unwrap();
    let mut ws = Workspace::default();
    let ImportOutcome::Pending(p) = ws.import_path(&file).unwrap() else {
        panic!("pending");
    };
    let doc = ws.confirm_import(p.id, true).unwrap().unwrap();
    (ws, doc)
}

/// RisuAI's folders show as folders: the folder row is marked and comes
/// before the entries at its level, its entries follow it, one level
/// deeper (whatever the sort), and a filter keeps the folders of what it
/// lists.
#[test]
fn risu_folders_list_as_folders_with_their_entries() {
    use crate::views::{EntryFilter, ListQuery, SortKey};
    let (mut ws, doc) = places(&[]);
    let query = |filter| ListQuery {
        search: String::new(),
        filter,
        sort: SortKey::Order,
        descending: true,
    };
    let rows = ws.list(doc, &query(EntryFilter::All)).unwrap();
    let shape: Vec<(&str, bool, Option<u64>, u32)> = rows
        .iter()
        .map(|r| (r.name.as_str(), r.folder, r.parent, r.depth))
        .collect();
    assert_eq!(
        shape,
        [
            ("Places", true, None, 0),
            ("Harbor", false, Some(1), 1),
            ("Tower", false, Some(1), 1),
            ("Loose", false, None, 0),
        ],
        "by order, descending, each folder's entries after it"
    );
    assert_eq!(rows[0].inside, Some(2));
    // The folder is disabled in the model (it never fires), but the
    // "enabled" filter keeps it for the entries it lists inside it.
    let rows = ws.list(doc, &query(EntryFilter::Enabled)).unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["Places", "Harbor", "Tower", "Loose"]);
    let rows = ws.list(doc, &query(EntryFilter::Constant)).unwrap();
    assert!(rows.is_empty(), "no entry listed, so no folder either");
    // An edited entry's row keeps its folder.
    assert_eq!(ws.entry(doc, 3).unwrap().row.parent, Some(1));
    // And the export writes the folder back as a RisuAI folder.
    let (bytes, _) = lorebook_engine::formats::export(
        &ws.doc(doc).unwrap().book,
        lorebook_engine::formats::ExportFormat::Risu,
    )
    .unwrap();
    let back: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(back["data"][1]["mode"], "folder");
    assert_eq!(back["data"][1]["key"], "folder:places");
    assert_eq!(back["data"][2]["folder"], "folder:places");
    assert!(!back["data"][1]["content"]
        .as_str()
        .unwrap()
        .contains("@@dont_activate"));
}

/// Typing in an entry's body under RisuAI's rules puts the entry in place
/// (no new build); a key the preview never saw builds it again. Both
/// answer as the edited book does.
#[test]
fn typing_in_an_entry_does_not_build_the_risu_preview_again() {
    let (mut ws, doc) = imported();
    ws.risu_preview(None, false).unwrap();
    assert_eq!(ws.risu_builds(), 1);
    let mut e = ws.entry(doc, 0).unwrap().entry;
    e.content = "@@depth 2\n@@role assistant\nTar, salt and rope.".into();
    let answer = ws
        .edit_entry(
            doc,
            e.clone(),
            Some(PreviewAsk::Risu {
                request: None,
                prompt: false,
            }),
        )
        .unwrap();
    assert_eq!(ws.risu_builds(), 1, "put in place");
    let Some(PreviewAnswer::Risu { view }) = answer.preview else {
        panic!("the RisuAI preview rides along");
    };
    let harbor = view.injected.iter().find(|i| i.name == "Harbor").unwrap();
    assert_eq!(harbor.tokens, 6, "the new body is counted");
    // A new key: built again.
    e.keys = vec!["quay".into()];
    ws.edit_entry(doc, e, None).unwrap();
    let p = ws.risu_preview(None, false).unwrap();
    assert_eq!(ws.risu_builds(), 2);
    assert!(
        !p.injected.iter().any(|i| i.name == "Harbor"),
        "no quay in the chat"
    );
}

/// The one log command answers under RisuAI's rules too, in the row shape
/// of every rules, with the entries named.
#[test]
fn the_request_log_answers_under_risu_s_rules() {
    let (mut ws, _) = imported();
    let log = ws.preview_log().unwrap();
    assert_eq!(log.len(), 2);
    let names = |row: &crate::views::LogRow| -> Vec<String> {
        row.injected.iter().map(|e| e.name.clone()).collect()
    };
    // Request 1 sees no storm: the lighthouse is not in the chat yet.
    assert_eq!(names(&log[0]), ["Harbor", "Always"]);
    assert_eq!(names(&log[1]), ["Harbor", "Always"]);
    assert_eq!((log[1].request, log[1].limit), (2, 800));
    assert!(log[1].used > 0 && log[1].cut.is_empty() && log[1].held.is_empty());
    // A log that someone waits on gives way.
    let wanted = ws.interrupt.clone();
    let _hold = wanted.want();
    assert_eq!(
        ws.preview_log().unwrap_err().kind,
        ErrorKind::Cancelled,
        "gave way"
    );
}

/// One preview command: the answer follows the rules in force whatever
/// rules the ask names (the UI then shows the right panel).
#[test]
fn one_preview_command_answers_under_the_rules_in_force() {
    let (mut ws, _) = imported();
    let studio_ask = PreviewAsk::Studio {
        request: Some(1),
        have: None,
    };
    let PreviewAnswer::Risu { view } = ws.preview_answer(studio_ask).unwrap() else {
        panic!("RisuAI's rules are in force");
    };
    assert_eq!(view.request, 1, "the request asked for is kept");
    ws.set_rules(Rules::Sillytavern);
    let ask = PreviewAsk::Risu {
        request: None,
        prompt: false,
    };
    assert!(matches!(
        ws.preview_answer(ask).unwrap(),
        PreviewAnswer::Sillytavern { .. }
    ));
}

/// Issue 21: the activation timeline lists a folder's entries together,
/// where its most active entry is, each row naming its folder; an entry in
/// no folder keeps its place.
#[test]
fn the_timeline_groups_a_folders_entries() {
    let gull = json!({"key": "gull", "secondkey": "", "comment": "Gull", "mode": "normal",
        "insertorder": 40, "alwaysActive": false, "selective": false, "content": "Wings."});
    let (mut ws, _) = places(&[gull]);
    ws.set_chat(
        "User: the harbor.\nNarrator: harbor, alpha and gull.\nUser: the harbor tower.".into(),
    );
    let t = ws.timeline(0, 100).unwrap();
    let shape: Vec<(&str, Option<&str>, &str)> = t
        .rows
        .iter()
        .map(|r| (r.name.as_str(), r.folder.as_deref(), r.cells.as_str()))
        .collect();
    // By activity alone: Harbor, Loose, Gull, Tower.
    assert_eq!(
        shape,
        [
            ("Harbor", Some("Places"), "iii"),
            ("Tower", Some("Places"), "..i"),
            ("Loose", None, ".ii"),
            ("Gull", None, ".ii"),
        ]
    );
}

// sendChat without a prompt template, as the app shows it: only when
// asked for, the harbor at @@depth 2 in the chat block, the entries named
// where a prompt template would be needed.
#[test]
fn the_final_prompt_under_risu_s_rules_is_sent_only_when_asked() {
    use lorebook_engine::risu::prompt::RisuSource;
    let (mut ws, doc) = imported();
    assert!(ws.risu_preview(None, false).unwrap().prompt.is_none());
    let p = ws.risu_preview(None, true).unwrap();
    let prompt = p.prompt.expect("asked for");
    let shape: Vec<(Role, String)> = prompt
        .messages
        .iter()
        .map(|m| (m.role, m.content.clone()))
        .collect();
    assert_eq!(
        shape,
        [
            (Role::System, "[Start a new chat]".to_string()),
            (Role::User, "We reach the harbor.".to_string()),
            (Role::Assistant, "Tar and salt.".to_string()),
            (
                Role::Assistant,
                "The lighthouse stands in the storm.".to_string()
            ),
            (Role::System, "Salt everywhere.".to_string()),
        ]
    );
    assert_eq!(
        prompt.messages[2].source,
        RisuSource::Entry { book: 0, id: 0 }
    );
    assert!(prompt.absent.is_empty());
    // An entry only a prompt template places is named as absent.
    let mut e = ws.entry(doc, 2).unwrap().entry;
    e.content = "@@position pt_lore\nSalt everywhere.".into();
    ws.update_entry(doc, e).unwrap();
    let prompt = ws.risu_preview(None, true).unwrap().prompt.unwrap();
    assert_eq!(prompt.absent.len(), 1);
    assert_eq!(
        (
            prompt.absent[0].name.as_str(),
            prompt.absent[0].position.as_str()
        ),
        ("Always", "pt_lore")
    );
    // The preview answer carries it when the ask says so.
    let answer = ws
        .preview_answer(PreviewAsk::Risu {
            request: None,
            prompt: true,
        })
        .unwrap();
    let PreviewAnswer::Risu { view } = answer else {
        panic!("a RisuAI answer");
    };
    assert!(view.prompt.is_some());
}
