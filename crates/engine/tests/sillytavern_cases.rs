//! The SillyTavern reference cases (tests/sillytavern/NNN: a world file, a
//! chat, settings and what SillyTavern 1.15's own world-info code injected)
//! run through the engine's SillyTavern profile. Each case must give the
//! same activated set, the same sequence per position, and the same depth
//! and role for at-depth entries. See tests/sillytavern/README.md.

use std::path::Path;

use lorebook_engine::chat;
use lorebook_engine::formats;
use lorebook_engine::sillytavern::macros::{self, MacroEngine, Variables};
use lorebook_engine::sillytavern::{Names, StOptions, StPreview, StSettings, TimedState};
use lorebook_engine::tokenizer::tokenizer_for_model;
use serde_json::Value;

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.join(name).display()))
}

/// (position, ids in order) per position, with at-depth split by depth/role.
fn layout(items: &[(u64, String, String)]) -> Vec<(String, Vec<u64>)> {
    let mut out: Vec<(String, Vec<u64>)> = Vec::new();
    for (id, position, group) in items {
        let key = format!("{position}{group}");
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, ids)) => ids.push(*id),
            None => out.push((key, vec![*id])),
        }
    }
    out.sort();
    out
}

fn run_case(dir: &Path) -> Result<(), String> {
    let case: Value = serde_json::from_str(&read(dir, "case.json")).unwrap();
    let expected: Value = serde_json::from_str(&read(dir, "expected.json")).unwrap();
    let settings: Value = serde_json::from_str(&read(dir, "settings.json")).unwrap();
    let book = formats::import(read(dir, "world.json").as_bytes())
        .unwrap()
        .book;
    let chat_text = read(dir, "chat.jsonl");
    let chat = chat::parse(&chat_text, &Default::default()).unwrap();
    // The macro engine and global variables from settings.json, the chat's
    // variables from the chat's first line, as SillyTavern keeps them.
    let header: Option<Value> = chat_text
        .lines()
        .next()
        .and_then(|l| serde_json::from_str(l).ok());
    let options = StOptions {
        names: Names {
            user: case["user"].as_str().unwrap().into(),
            char: case["char"].as_str().unwrap().into(),
            engine: MacroEngine::of_settings(&settings).unwrap_or_default(),
            vars: std::sync::Arc::new(Variables {
                local: macros::chat_variables(header.as_ref()),
                global: macros::global_variables(&settings),
            }),
            ..Default::default()
        },
        tokenizer: tokenizer_for_model(case["model"].as_str().unwrap_or("gpt-4")).unwrap(),
        ..StOptions::default()
    };
    let settings = StSettings::from_value(&settings)?;
    let mut p = StPreview::new(&[("world".into(), &book)], settings, options)?;
    let max_context = case["max_context"].as_u64().unwrap() as u32;
    let r = p.request(&chat.messages, max_context, &mut TimedState::default());

    let want: Vec<(u64, String, String)> = expected["injected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let position = i["position"].as_str().unwrap().to_string();
            let group = if position == "at_depth" {
                format!("{}/{}", i["depth"], i["role"].as_str().unwrap_or(""))
            } else if position == "outlet" {
                i["outlet"].as_str().unwrap_or("").to_string()
            } else {
                String::new()
            };
            (i["uid"].as_u64().unwrap(), position, group)
        })
        .collect();
    let got: Vec<(u64, String, String)> = r
        .injected
        .iter()
        .map(|i| {
            let group = match (i.depth, i.role, &i.outlet) {
                (Some(d), Some(role), _) => format!("{d}/{}", role.as_str()),
                (_, _, Some(o)) => o.clone(),
                _ => String::new(),
            };
            (i.id, i.position.as_str().to_string(), group)
        })
        .collect();
    let (want, got) = (layout(&want), layout(&got));
    if want != got {
        return Err(format!("positions {got:?}, SillyTavern {want:?}"));
    }
    let budget = expected["budget"].as_u64().unwrap() as u32;
    if r.budget != budget {
        return Err(format!("budget {}, SillyTavern {budget}", r.budget));
    }
    let order: Vec<u64> = expected["activation_order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    if r.activation_order != order {
        return Err(format!(
            "activation order {:?}, SillyTavern {order:?}",
            r.activation_order
        ));
    }
    let loops = expected["scan_loops"].as_u64().unwrap() as u32;
    if r.passes != loops {
        return Err(format!("{} passes, SillyTavern {loops}", r.passes));
    }
    if r.overflowed != expected["budget_overflowed"].as_bool().unwrap() {
        return Err(format!(
            "overflow {}, SillyTavern the opposite",
            r.overflowed
        ));
    }
    Ok(())
}

/// Runs every case folder under `tests/<folder>`, at least `least` of them.
fn run_folder(folder: &str, least: usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(folder);
    let mut names: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("expected.json").is_file())
        .map(|e| e.path())
        .collect();
    names.sort();
    assert!(
        names.len() >= least,
        "reference cases missing in {}",
        root.display()
    );
    let failures: Vec<String> = names
        .iter()
        .filter_map(|d| {
            run_case(d)
                .err()
                .map(|e| format!("{}: {e}", d.file_name().unwrap().to_string_lossy()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} case(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// world-info.js: checkWorldInfo, end to end, against SillyTavern 1.15's output.
#[test]
fn every_reference_case_matches_sillytavern() {
    run_folder("sillytavern", 31);
}

// script.js substituteParams and macros/engine/MacroEngine.js evaluate, as
// world-info.js checkWorldInfo calls them on keys and content: SillyTavern
// 1.19.0's own results, under both macro engines, with the chat's and the
// global variables.
#[test]
fn every_macro_case_matches_sillytavern_1_19() {
    run_folder("sillytavern-1.19", 122);
}
