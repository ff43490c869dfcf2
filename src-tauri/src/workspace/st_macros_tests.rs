//! SillyTavern's macro engines and variables in the app: the engine and the
//! global variables from settings.json, the chat's variables from the chat
//! file's first line, both editable, none written anywhere.

use serde_json::json;

use super::st_tests::{imported_with, scratch};
use super::*;
use lorebook_engine::sillytavern::macros::MacroEngine;

/// A world whose entries need the variables and the new engine.
fn world() -> serde_json::Value {
    let entry = |uid: u64, key: &str, content: &str| {
        json!({"uid": uid, "key": [key], "keysecondary": [], "comment": format!("e{uid}"),
            "content": content, "selective": true, "selectiveLogic": 0, "order": 100,
            "position": 0, "probability": 100, "useProbability": true, "displayIndex": uid})
    };
    json!({"entries": {
        "0": entry(0, "{{getvar::target}}", "Target lore."),
        "1": entry(1, "storm", "{{if $vip}}The lighthouse.{{else}}Calm seas.{{/if}}"),
        "2": entry(2, "lighthouse", "Keeper."),
        "3": entry(3, "calm seas", "Sailors."),
    }})
}

fn injected(ws: &mut Workspace) -> Vec<u64> {
    let mut ids: Vec<u64> = ws
        .st_preview(None)
        .unwrap()
        .injected
        .iter()
        .map(|i| i.id)
        .collect();
    ids.sort();
    ids
}

const HEADER: &str = r#"{"user_name":"Ann","character_name":"Bo","chat_metadata":{"variables":{"target":"dragon"}}}"#;

#[test]
fn variables_come_from_the_chat_and_settings_and_can_be_edited() {
    let (mut ws, _, dir) = imported_with(world(), "macros");
    ws.set_chat(format!(
        "{HEADER}\n{}",
        r#"{"name":"Ann","is_user":true,"mes":"A dragon in the storm."}"#
    ));
    assert_eq!(
        ws.chat_vars().get("target").map(String::as_str),
        Some("dragon")
    );
    assert_eq!(
        injected(&mut ws),
        [0, 1, 3],
        "no $vip: the else branch, calm seas by recursion"
    );

    let settings = dir.join("settings.json");
    std::fs::write(
        &settings,
        r#"{"power_user": {"experimental_macro_engine": true},
            "extension_settings": {"variables": {"global": {"vip": "true"}}},
            "world_info_settings": {"world_info_recursive": true}}"#,
    )
    .unwrap();
    let v = ws.load_st_settings(&settings).unwrap();
    assert_eq!(v.macro_engine, MacroEngine::New);
    assert_eq!(v.global_vars.get("vip").map(String::as_str), Some("true"));
    assert_eq!(injected(&mut ws), [0, 1, 2], "$vip: the lighthouse branch");

    // Edited in the app: the preview follows; the chat's text is untouched.
    let chat_before = ws.chat_text.clone();
    ws.set_chat_vars(Some([("target".to_string(), "wyvern".to_string())].into()));
    assert!(ws.rules_view().chat_vars_edited);
    assert_eq!(injected(&mut ws), [1, 2]);
    assert_eq!(ws.chat_text, chat_before, "the chat is never written");
    ws.set_chat_vars(None);
    assert_eq!(injected(&mut ws), [0, 1, 2], "back to the chat's own");

    // The legacy engine leaves {{if}} as written (both branches' words are
    // in the text) and still reads {{getvar}}.
    let mut legacy = ws.st_settings.clone();
    legacy.macro_engine = MacroEngine::Legacy;
    ws.set_st_settings(legacy).unwrap();
    assert_eq!(injected(&mut ws), [0, 1, 2, 3]);
}

#[test]
fn a_bare_world_info_object_keeps_the_engine_and_a_changed_header_drops_edits() {
    let (mut ws, _, _) = imported_with(world(), "macros-keep");
    let dir = scratch("macros-keep-files");
    let mut legacy = ws.st_settings.clone();
    legacy.macro_engine = MacroEngine::Legacy;
    ws.set_st_settings(legacy).unwrap();
    let object = dir.join("wi.json");
    std::fs::write(&object, r#"{"world_info_depth": 3}"#).unwrap();
    let v = ws.load_st_settings(&object).unwrap();
    assert_eq!(
        v.macro_engine,
        MacroEngine::Legacy,
        "the object says nothing of macros"
    );

    ws.set_chat(format!("{HEADER}\nAnn: hi"));
    ws.set_chat_vars(Some(Default::default()));
    assert!(ws.rules_view().chat_vars_edited);
    ws.set_chat(format!("{HEADER}\nAnn: hi again"));
    assert!(
        ws.rules_view().chat_vars_edited,
        "same header: the edits stay"
    );
    ws.set_chat(format!("{}\nAnn: hi", HEADER.replace("dragon", "wyvern")));
    assert!(
        !ws.rules_view().chat_vars_edited,
        "the chat's variables changed: they win"
    );
    assert_eq!(
        ws.chat_vars().get("target").map(String::as_str),
        Some("wyvern")
    );
}
