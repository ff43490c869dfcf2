//! The preview under SillyTavern's rules and the SillyTavern fields, as the
//! commands call them (`workspace/st.rs`).

use std::path::PathBuf;

use lorebook_engine::formats::{self, st_fields, st_fields::StField, ExportFormat};
use lorebook_engine::tokenizer::registry::family_of;
use lorebook_engine::tokenizer::{resources, tokenizer_for_model, Encoding};
use serde_json::{json, Value};

use super::*;
use crate::error::ErrorKind;
use crate::views::{BulkPatch, ImportOutcome, Rules, StEdit, StPromptSourceView};
use lorebook_engine::model::Role;
use lorebook_engine::sillytavern::{DropKind, GroupLoss, Position, StDetail, StReason};

/// A folder of this test's own: tests run in parallel, and two writing the
/// same file read each other's half-written world.
pub(super) fn scratch(name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("lbs-st-{name}-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A SillyTavern world: a weather group of two, a cooldown entry, an entry
/// at depth, one that never matches and one at 50 %.
pub(super) fn world() -> Value {
    let entry = |uid: u64, key: &str, extra: Value| {
        let mut e = json!({"uid": uid, "key": [key], "keysecondary": [], "comment": format!("e{uid}"),
            "content": format!("About {key}."), "constant": false, "selective": true,
            "selectiveLogic": 0, "order": 100, "position": 0, "disable": false,
            "probability": 100, "useProbability": true, "depth": 4, "group": "",
            "groupOverride": false, "groupWeight": 100, "scanDepth": null,
            "caseSensitive": null, "matchWholeWords": null, "useGroupScoring": null,
            "automationId": "", "role": null, "sticky": 0, "cooldown": 0, "delay": 0,
            "displayIndex": uid, "excludeRecursion": false, "preventRecursion": false,
            "delayUntilRecursion": false, "vectorized": false, "addMemo": true,
            "ignoreBudget": false, "outletName": ""});
        for (k, v) in extra.as_object().unwrap() {
            e[k] = v.clone();
        }
        e
    };
    json!({"entries": {
        "0": entry(0, "rain", json!({"group": "weather", "order": 200})),
        "1": entry(1, "rain", json!({"group": "weather", "order": 100})),
        "2": entry(2, "lamp", json!({"cooldown": 2})),
        "3": entry(3, "tower", json!({"position": 4, "depth": 1, "role": 2})),
        "4": entry(4, "zeppelin", json!({})),
        "5": entry(5, "tower", json!({"probability": 50})),
    }})
}

/// A workspace with the world imported (and nothing else attached).
fn imported() -> (Workspace, u32, PathBuf) {
    imported_with(world(), "import")
}

/// A workspace with `world` imported, in a scratch folder of its own.
pub(super) fn imported_with(world: Value, name: &str) -> (Workspace, u32, PathBuf) {
    let dir = scratch(name);
    let file = dir.join("Weather.json");
    std::fs::write(&file, serde_json::to_vec_pretty(&world).unwrap()).unwrap();
    let mut ws = Workspace::default();
    let ImportOutcome::Pending(p) = ws.import_path(&file).unwrap() else {
        panic!("a SillyTavern world waits for confirmation");
    };
    let doc = ws.confirm_import(p.id, true).unwrap().unwrap();
    ws.set_chat("User: the rain on the lamp\nCharacter: the tower\nUser: again the lamp".into());
    (ws, doc, dir)
}

#[test]
fn rules_follow_the_books_until_chosen() {
    let (mut ws, doc, _) = imported();
    assert_eq!(
        ws.rules(),
        Rules::Sillytavern,
        "an imported SillyTavern world"
    );
    assert!(ws.state().docs[0].sillytavern);
    let sample = Workspace::with_sample();
    assert_eq!(sample.rules(), Rules::Studio, "a native book");
    assert!(!sample.state().docs[0].sillytavern);
    ws.set_attached(doc, false).unwrap();
    assert_eq!(ws.rules(), Rules::Studio, "no attached SillyTavern book");
    ws.set_attached(doc, true).unwrap();
    ws.set_rules(Rules::Studio);
    assert_eq!(ws.rules(), Rules::Studio);
    assert!(ws.rules_view().chosen);
}

#[test]
fn the_preview_names_positions_ranks_and_sillytavern_reasons() {
    let (mut ws, _, _) = imported();
    let p = ws.st_preview(Some(2)).unwrap();
    assert_eq!((p.budget, p.percent, p.context), (2048, 25.0, 8192));
    let tower = p
        .injected
        .iter()
        .find(|i| i.id == 3)
        .expect("tower at depth");
    assert_eq!(tower.position, Position::AtDepth);
    assert_eq!(
        (tower.depth, tower.role),
        (Some(1.0), Some(Role::Assistant))
    );
    assert_eq!(tower.rank, 1);
    let before: Vec<_> = p
        .injected
        .iter()
        .filter(|i| i.position == Position::Before)
        .collect();
    assert_eq!(
        before.iter().map(|i| i.rank).collect::<Vec<_>>(),
        (1..=before.len() as u32).collect::<Vec<_>>()
    );
    // One of the weather group lost; request 2 has the lamp on cooldown.
    let rain: Vec<_> = p.injected.iter().filter(|i| i.id <= 1).collect();
    assert_eq!(rain.len(), 1, "{:?}", p.injected);
    let group = p
        .dropped
        .iter()
        .find(|d| d.kind == DropKind::Group)
        .expect("group drop");
    let StDetail::Group { group, loss } = &group.detail else {
        panic!("{:?}", group.detail);
    };
    // It lost the roll in the first pass; the recursion pass then found
    // the group taken, and the last reason is the one SillyTavern keeps.
    assert_eq!(group, "weather");
    assert_eq!(*loss, GroupLoss::AlreadyActivated);
    let lamp = p.dropped.iter().find(|d| d.id == 2).expect("lamp dropped");
    assert_eq!(lamp.kind, DropKind::Cooldown);
    assert!(
        matches!(lamp.detail, StDetail::Cooldown { left } if left > 0.0),
        "{:?}",
        lamp.detail
    );
    assert_eq!(
        tower.reason,
        StReason::Key {
            key: "tower".into(),
            pass: 1,
            widened: None,
            expanded: None,
        }
    );
    assert!(p
        .dropped
        .iter()
        .any(|d| d.id == 4 && d.kind == DropKind::NoMatch));
    // Request 1: the lamp is in, nothing is cooling down yet.
    let first = ws.st_preview(Some(1)).unwrap();
    assert!(first.injected.iter().any(|i| i.id == 2));
}

#[test]
fn the_log_carries_timed_effects_and_the_seed() {
    let (mut ws, _, _) = imported();
    let log = ws.preview_log().unwrap();
    assert_eq!(log.len(), 3);
    assert!(log[0].injected.iter().any(|r| r.id == 2));
    assert!(log[1].held.iter().any(|r| r.id == 2), "{:?}", log[1]);
    assert!(
        log[2].injected.iter().any(|r| r.id == 2),
        "the cooldown ended"
    );
    // The 50 % entry: the same seed rolls the same, other seeds differ.
    let rolled = |ws: &mut Workspace| {
        ws.preview_log().unwrap()[1]
            .injected
            .iter()
            .any(|r| r.id == 5)
    };
    let first = rolled(&mut ws);
    assert_eq!(rolled(&mut ws), first, "same seed, same roll");
    let mut seen = vec![first];
    for seed in 1..40 {
        let mut s = ws.settings().clone();
        s.seed = seed;
        ws.set_settings(s).unwrap();
        seen.push(rolled(&mut ws));
    }
    assert!(seen.contains(&true) && seen.contains(&false), "{seen:?}");
}

// Under SillyTavern's rules the counts are the chosen model's, of any
// family (a SentencePiece model here), as under the guide's rules; they
// were OpenAI's encodings only, and a model of another family was refused.
#[test]
fn sillytavern_counts_use_the_chosen_models_tokenizer_of_any_family() {
    let model = "mistral-7b";
    // The folders the app searches from the source tree.
    resources::set_search_path(lorebook_test_support::tokenizer_dirs()).unwrap();
    let family = family_of(model).unwrap();
    if resources::installed(family).is_none() {
        eprintln!(
            "skipped: the {} tokenizer is not installed (scripts/fetch-tokenizers.sh)",
            family.id
        );
        return;
    }
    let text = "Über den Wolken: 雨が降っている, the zeppelin's lamp-light flickers.";
    let mut w = world();
    w["entries"]["3"]["content"] = json!(text);
    let (mut ws, _, _) = imported_with(w, "tokens");
    let tower = |ws: &mut Workspace| {
        let p = ws.st_preview(Some(2)).unwrap();
        let t = p.injected.iter().find(|i| i.id == 3).unwrap().tokens;
        (t, p.used)
    };
    let (openai, openai_used) = tower(&mut ws);
    assert_eq!(openai, Encoding::O200kBase.count(text), "gpt-4o by default");
    let mut s = ws.settings().clone();
    s.model = model.into();
    ws.set_settings(s).unwrap();
    let (mistral, mistral_used) = tower(&mut ws);
    assert_eq!(mistral, tokenizer_for_model(model).unwrap().count(text));
    assert_ne!(mistral, openai, "the text tells the two tokenizers apart");
    assert_ne!(mistral_used, openai_used, "the budget counts with it too");
}

// A user's tokenizer file counts under SillyTavern's rules as it does
// under the guide's: `st_preview_engine` takes the file over the model.
#[test]
fn sillytavern_counts_use_the_users_tokenizer_file() {
    let dir = scratch("st-tokfile");
    let file = dir.join("tokenizer.json");
    std::fs::write(&file, crate::preview_settings::tests::WORD_TOKENIZER).unwrap();
    let text = "ab ab ab, ab-ab; cd";
    let mut w = world();
    w["entries"]["3"]["content"] = json!(text);
    let (mut ws, _, _) = imported_with(w, "tokfile");
    let tokens = |ws: &mut Workspace| {
        let p = ws.st_preview(Some(2)).unwrap();
        p.injected.iter().find(|i| i.id == 3).unwrap().tokens
    };
    assert_eq!(tokens(&mut ws), Encoding::O200kBase.count(text));
    ws.set_tokenizer_file(Some((file.clone(), resources::load_file(&file).unwrap())));
    // One token per word or punctuation run: ab ab ab , ab - ab ; cd
    assert_eq!(tokens(&mut ws), 9);
    ws.set_tokenizer_file(None);
    assert_eq!(tokens(&mut ws), Encoding::O200kBase.count(text));
}

// openai.js: populationInjectionPrompts — the at-depth entry is spliced
// into the chat history at its depth, as its role; the prompt crosses to
// the UI only when asked, then as a change to the one it holds.
#[test]
fn the_final_prompt_has_the_at_depth_entry_inside_the_chat() {
    let (mut ws, _, _) = imported();
    assert!(ws.st_preview(Some(2)).unwrap().prompt.is_none());
    let p = ws.st_preview_with_prompt(Some(2), None).unwrap();
    let prompt = p.prompt.expect("asked for");
    assert_eq!(prompt.base, None, "whole the first time");
    let lines: Vec<String> = prompt
        .middle
        .iter()
        .map(|m| format!("{} {}: {}", m.block.as_str(), m.role.as_str(), m.content))
        .collect();
    let at = |text: &str| lines.iter().position(|l| l.ends_with(text)).unwrap();
    let tower = at(": About tower.");
    assert_eq!(
        lines[tower - 1..=tower + 1],
        [
            "chatHistory user: the rain on the lamp",
            "chatHistory assistant: About tower.",
            "chatHistory assistant: the tower"
        ],
        "{lines:#?}"
    );
    assert!(lines[0].starts_with("main system: Write Character's next reply"));
    assert!(at("About rain.") < at("[Start a new Chat]"), "{lines:#?}");
    assert_eq!(
        prompt.middle[tower].sources,
        [StPromptSourceView::Entry {
            book: 0,
            id: 3,
            position: Position::AtDepth
        }]
    );
    let sum: u32 = prompt.middle.iter().map(|m| m.tokens).sum();
    assert_eq!((prompt.tokens, prompt.messages), (sum, lines.len() as u32));
    // Asked again with that prompt held: nothing changed, nothing sent.
    let again = ws
        .st_preview_with_prompt(Some(2), Some(prompt.rev))
        .unwrap();
    let again = again.prompt.unwrap();
    assert_eq!(again.base, Some(prompt.rev));
    assert!(again.middle.is_empty());
    assert_eq!(again.keep_head as usize, lines.len());
    // The next request adds a message and moves the entry: only the
    // messages from the change on are sent.
    let next = ws.st_preview_with_prompt(Some(3), Some(again.rev)).unwrap();
    let next = next.prompt.unwrap();
    assert!(next.keep_head > 0 && (next.middle.len() as u32) < next.messages);
}

/// A new value for every field, unlike the world's.
fn edits() -> Vec<StEdit> {
    use StField::*;
    [
        (Position, json!(4)),
        (Depth, json!(2)),
        (Role, json!(1)),
        (OutletName, json!("map")),
        (Order, json!(250)),
        (Probability, json!(40)),
        (UseProbability, json!(false)),
        (ScanDepth, json!(6)),
        (CaseSensitive, json!(true)),
        (MatchWholeWords, json!(false)),
        (Group, json!("storm")),
        (GroupOverride, json!(true)),
        (GroupWeight, json!(30)),
        (UseGroupScoring, json!(true)),
        (ExcludeRecursion, json!(true)),
        (PreventRecursion, json!(true)),
        (DelayUntilRecursion, json!(2)),
        (Sticky, json!(3)),
        (Cooldown, json!(1)),
        (Delay, json!(5)),
        (IgnoreBudget, json!(true)),
        (MatchPersonaDescription, json!(true)),
        (MatchCharacterDescription, json!(true)),
        (MatchCharacterPersonality, json!(true)),
        (MatchCharacterDepthPrompt, json!(true)),
        (MatchScenario, json!(true)),
        (MatchCreatorNotes, json!(true)),
        (SelectiveLogic, json!(3)),
    ]
    .into_iter()
    .map(|(field, value)| StEdit { field, value })
    .collect()
}

fn exported(ws: &mut Workspace, doc: u32, to: ExportFormat, dir: &std::path::Path) -> Vec<u8> {
    let out = dir.join(format!("out-{to:?}.json"));
    ws.export_to(doc, to, &out, None).unwrap();
    std::fs::read(out).unwrap()
}

#[test]
fn every_field_edit_round_trips_through_sillytavern_and_cards() {
    let (mut ws, doc, dir) = imported();
    assert_eq!(edits().len(), st_fields::ALL.len());
    let original = world();
    for edit in edits() {
        let detail = ws.set_st_field(doc, 0, edit.clone()).unwrap();
        assert_eq!(detail.st[edit.field.name()], edit.value, "{:?}", edit.field);
    }
    let bytes = exported(&mut ws, doc, ExportFormat::SillyTavern, &dir);
    let out: Value = serde_json::from_slice(&bytes).unwrap();
    let names: Vec<&str> = st_fields::ALL.iter().map(|f| f.name()).collect();
    for (k, v) in original["entries"]["0"].as_object().unwrap() {
        if !names.contains(&k.as_str()) {
            assert_eq!(&out["entries"]["0"][k], v, "untouched {k}");
        }
    }
    for uid in ["1", "2", "3", "4", "5"] {
        assert_eq!(out["entries"][uid], original["entries"][uid], "entry {uid}");
    }
    let again = formats::import(&bytes).unwrap().book;
    let got = st_fields::read(again.entry(0).unwrap());
    for edit in edits() {
        assert_eq!(got[edit.field.name()], edit.value, "{:?}", edit.field);
    }
    for to in [ExportFormat::CardV2, ExportFormat::CardV3] {
        let bytes = exported(&mut ws, doc, to, &dir);
        let again = formats::import(&bytes).unwrap().book;
        let got = st_fields::read(again.entry(0).unwrap());
        for edit in edits() {
            // A card has no `useProbability: false` (st_fields' module doc).
            if matches!(edit.field, StField::UseProbability | StField::Probability) {
                continue;
            }
            assert_eq!(
                got[edit.field.name()],
                edit.value,
                "{to:?} {:?}",
                edit.field
            );
        }
    }
    // Each edit is one undo step; undoing all gives the file back.
    for _ in edits() {
        assert!(ws.undo(doc).unwrap());
    }
    let back: Value =
        serde_json::from_slice(&exported(&mut ws, doc, ExportFormat::SillyTavern, &dir)).unwrap();
    assert_eq!(back["entries"], original["entries"]);
}

#[test]
fn an_st_edit_reaches_the_preview() {
    let (mut ws, doc, _) = imported();
    let edit = StEdit {
        field: StField::Position,
        value: json!(7),
    };
    ws.set_st_field(doc, 3, edit).unwrap();
    let edit = StEdit {
        field: StField::OutletName,
        value: json!("map"),
    };
    ws.set_st_field(doc, 3, edit).unwrap();
    let p = ws.st_preview(None).unwrap();
    let tower = p.injected.iter().find(|i| i.id == 3).unwrap();
    assert_eq!(
        (tower.position.as_str(), tower.outlet.as_deref()),
        ("outlet", Some("map"))
    );
}

#[test]
fn bulk_sets_position_depth_and_group_and_refuses_bad_values_whole() {
    let (mut ws, doc, _) = imported();
    let patch = |st: Vec<StEdit>| BulkPatch {
        enabled: None,
        order: None,
        priority: None,
        st,
    };
    ws.bulk(
        doc,
        &[2, 4],
        &patch(vec![
            StEdit {
                field: StField::Position,
                value: json!(4),
            },
            StEdit {
                field: StField::Depth,
                value: json!(0),
            },
            StEdit {
                field: StField::Group,
                value: json!("misc"),
            },
        ]),
    )
    .unwrap();
    for id in [2, 4] {
        let st = ws.entry(doc, id).unwrap().st;
        assert_eq!(
            (
                st["position"].clone(),
                st["depth"].clone(),
                st["group"].clone()
            ),
            (json!(4), json!(0), json!("misc"))
        );
    }
    let before = ws.doc(doc).unwrap().book.clone();
    let err = ws
        .bulk(
            doc,
            &[0, 1],
            &patch(vec![
                StEdit {
                    field: StField::Group,
                    value: json!("x"),
                },
                StEdit {
                    field: StField::Position,
                    value: json!(9),
                },
            ]),
        )
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Invalid);
    assert!(err.message.contains("position"), "{}", err.message);
    assert_eq!(ws.doc(doc).unwrap().book, before, "nothing changed");
    assert!(ws.undo(doc).unwrap());
    assert_eq!(ws.entry(doc, 2).unwrap().st["group"], json!(""));
}

#[test]
fn settings_load_from_a_settings_json_or_its_object_and_are_checked() {
    let (mut ws, _, dir) = imported();
    let whole = dir.join("settings.json");
    std::fs::write(
        &whole,
        r#"{"username": "Ann", "world_info_settings": {"world_info_depth": 5,
        "world_info_budget": 10, "world_info_budget_cap": 300, "world_info_recursive": false}}"#,
    )
    .unwrap();
    let v = ws.load_st_settings(&whole).unwrap();
    assert_eq!(
        (v.depth, v.budget_percent, v.budget_cap, v.recursive),
        (5.0, 10.0, 300.0, false)
    );
    assert!(
        !v.match_whole_words,
        "absent keys take SillyTavern's code defaults"
    );
    assert_eq!(
        ws.st_preview(None).unwrap().budget,
        300,
        "10% of 8192 capped at 300"
    );
    let object = dir.join("wi.json");
    std::fs::write(
        &object,
        r#"{"world_info_depth": 3, "world_info_budget": 500}"#,
    )
    .unwrap();
    let v = ws.load_st_settings(&object).unwrap();
    assert_eq!(
        (v.depth, v.budget_percent),
        (3.0, 25.0),
        "over 100 % is reset as SillyTavern does"
    );
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "{").unwrap();
    assert_eq!(
        ws.load_st_settings(&broken).unwrap_err().kind,
        ErrorKind::Format
    );
    assert_eq!(ws.st_settings.depth, 3.0, "a broken file changes nothing");
    let mut bad = ws.st_settings.clone();
    bad.budget_percent = 0.0;
    assert_eq!(
        ws.set_st_settings(bad).unwrap_err().kind,
        ErrorKind::Invalid
    );
    let mut good = ws.st_settings.clone();
    good.max_context = 200;
    good.budget_percent = 25.0;
    good.budget_cap = 0.0;
    ws.set_st_settings(good).unwrap();
    assert_eq!(ws.st_preview(None).unwrap().budget, 50);
}

/// The ranges of SillyTavern's settings are the engine's (`ST_RANGES`):
/// each setting just at its bounds is taken, just past them refused with
/// the coded error naming the setting and its range; nothing changes then.
#[test]
fn settings_out_of_the_engine_s_ranges_are_refused_with_their_range() {
    use crate::error::ErrorCode;
    use lorebook_engine::sillytavern::{StRanged, ST_RANGES};
    let mut ws = Workspace::default();
    let set = |v: &mut StSettingsView, s: StRanged, x: f64| match s {
        StRanged::Depth => v.depth = x,
        StRanged::BudgetPercent => v.budget_percent = x,
        StRanged::BudgetCap => v.budget_cap = x,
        StRanged::MaxContext => v.max_context = x as u32,
        StRanged::MaxRecursionSteps => v.max_recursion_steps = x,
        StRanged::MinActivations => v.min_activations = x,
        StRanged::MinActivationsDepthMax => v.min_activations_depth_max = x,
    };
    for r in ST_RANGES {
        for x in [r.min, r.max] {
            let mut v = ws.st_settings.clone();
            set(&mut v, r.setting, x);
            ws.set_st_settings(v).unwrap();
        }
        let before = ws.st_settings.clone();
        for x in [r.min - 1.0, r.max + 1.0] {
            if x < 0.0 {
                continue; // max_context is a u32: 0 is its "just under"
            }
            let mut v = before.clone();
            set(&mut v, r.setting, x);
            let err = ws.set_st_settings(v).unwrap_err();
            assert_eq!(
                err.code,
                ErrorCode::OutOfRange {
                    setting: r.setting,
                    min: r.min as u32,
                    max: r.max as u32
                },
                "{r:?} at {x}"
            );
            assert_eq!(ws.st_settings, before);
        }
    }
}
