//! `lorebook preview --rules sillytavern --json` on the SillyTavern
//! reference cases (crates/engine/tests/sillytavern/NNN), compared the way
//! the reference harness compares them: the activated set, each position's
//! sequence, and the depth and role of at-depth entries.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/sillytavern");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    dirs.sort();
    dirs
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Sorted (position key, ids in order): at-depth keyed by depth and role,
/// outlets by name.
fn layout(items: &[Value], id_key: &str) -> Vec<(String, Vec<u64>)> {
    let mut out: Vec<(String, Vec<u64>)> = Vec::new();
    for i in items {
        let position = i["position"].as_str().unwrap_or("?");
        let key = match position {
            "at_depth" => format!("at_depth {}/{}", i["depth"], i["role"]),
            "outlet" => format!("outlet {}", i["outlet"]),
            p => p.to_string(),
        };
        let id = i[id_key].as_u64().unwrap();
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, ids)) => ids.push(id),
            None => out.push((key, vec![id])),
        }
    }
    out.sort();
    out
}

// world-info.js: checkWorldInfo, through the command line.
#[test]
fn reference_cases_match_sillytavern_through_the_cli() {
    let dirs = cases();
    assert!(dirs.len() >= 31);
    let mut failures = Vec::new();
    for dir in &dirs {
        let case = json(&dir.join("case.json"));
        let expected = json(&dir.join("expected.json"));
        let out = Command::new(env!("CARGO_BIN_EXE_lorebook"))
            .current_dir(dir)
            .args([
                "preview",
                "world.json",
                "--chat",
                "chat.jsonl",
                "--rules",
                "sillytavern",
                "--st-settings",
                "settings.json",
                "--max-context",
                &case["max_context"].to_string(),
                "--user",
                case["user"].as_str().unwrap(),
                "--char",
                case["char"].as_str().unwrap(),
                "--model",
                case["model"].as_str().unwrap_or("gpt-4"),
                "--json",
            ])
            .output()
            .unwrap();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if !out.status.success() {
            failures.push(format!("{name}: {}", String::from_utf8_lossy(&out.stderr)));
            continue;
        }
        let got: Value = serde_json::from_slice(&out.stdout).unwrap();
        let want = layout(expected["injected"].as_array().unwrap(), "uid");
        let have = layout(got["injected"].as_array().unwrap(), "id");
        if want != have {
            failures.push(format!("{name}: {have:?} != SillyTavern {want:?}"));
        }
        assert_eq!(got["budget"]["limit"], expected["budget"], "{name}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn text_output_explains_budget_and_positions() {
    let dir = &cases()[15];
    let out = Command::new(env!("CARGO_BIN_EXE_lorebook"))
        .current_dir(dir)
        .args([
            "preview",
            "world.json",
            "--chat",
            "chat.jsonl",
            "--rules",
            "sillytavern",
            "--st-settings",
            "settings.json",
            "--max-context",
            "200",
            "--model",
            "gpt-4",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("budget: 25% of 200 = 50 tokens"), "{text}");
    assert!(text.contains("budget:"), "{text}");
}

// world-info.js: WorldInfoBuffer.get (matchCharacterDescription adds the
// card's description to the entry's scanned text).
#[test]
fn match_sources_come_from_a_card() {
    let dir = std::env::temp_dir().join(format!("lorebook-st-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("world.json"),
        r#"{"entries": {"0": {"uid": 0, "key": ["dragon"], "content": "Dragons.", "position": 0,
            "matchCharacterDescription": true},
          "1": {"uid": 1, "key": ["dragon"], "content": "Never.", "position": 0}}}"#,
    )
    .unwrap();
    std::fs::write(dir.join("chat.txt"), "User: hello\n").unwrap();
    std::fs::write(
        dir.join("card.json"),
        r#"{"spec": "chara_card_v2", "data": {"name": "Mira", "description": "A dragon lives here"}}"#,
    )
    .unwrap();
    let run = |extra: &[&str]| -> Value {
        let out = Command::new(env!("CARGO_BIN_EXE_lorebook"))
            .current_dir(&dir)
            .args([
                "preview",
                "world.json",
                "--chat",
                "chat.txt",
                "--rules",
                "sillytavern",
                "--json",
            ])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let with = run(&["--st-sources", "card.json"]);
    let ids: Vec<u64> = with["injected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [0]);
    assert!(run(&[])["injected"].as_array().unwrap().is_empty());
}

/// Runs `lorebook preview world.json --chat chat.jsonl --rules sillytavern
/// --json` and more in `dir`; one JSON value per output line.
fn st_json(dir: &Path, extra: &[&str]) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_lorebook"))
        .current_dir(dir)
        .args([
            "preview",
            "world.json",
            "--chat",
            "chat.jsonl",
            "--rules",
            "sillytavern",
            "--json",
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn prompt_lines(v: &Value) -> Vec<String> {
    v["prompt"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            format!(
                "{}: {}",
                m["role"].as_str().unwrap(),
                m["content"].as_str().unwrap()
            )
        })
        .collect()
}

// openai.js: the default prompt order, populationInjectionPrompts;
// authors-note.js: setFloatingPrompt (the note's interval read from the
// chat's metadata, every second user message here).
#[test]
fn prompt_and_authors_note_across_the_log() {
    let dir = std::env::temp_dir().join(format!("lorebook-st-prompt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("world.json"),
        r#"{"entries": {
          "0": {"uid": 0, "key": ["lamp"], "content": "Lamps glow.", "position": 0},
          "1": {"uid": 1, "key": ["lamp"], "content": "Top of the note.", "position": 2},
          "2": {"uid": 2, "key": ["lamp"], "content": "Deep lore.", "position": 4, "depth": 1, "role": 1}}}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("chat.jsonl"),
        concat!(
            r#"{"user_name": "Tom", "character_name": "Mira", "chat_metadata": {"note_prompt": "Be brief.", "note_interval": 2, "note_depth": 0}}"#, "\n",
            r#"{"name": "Tom", "is_user": true, "mes": "A lamp?"}"#, "\n",
            r#"{"name": "Mira", "is_user": false, "mes": "Yes."}"#, "\n",
            r#"{"name": "Tom", "is_user": true, "mes": "Light the lamp."}"#, "\n",
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("card.json"),
        r#"{"spec": "chara_card_v2", "data": {"name": "Mira", "description": "{{char}} keeps the lamp.",
            "mes_example": "<START>\n{{user}}: Hi\n{{char}}: Hello"}}"#,
    )
    .unwrap();
    let log = st_json(&dir, &["--log", "--st-sources", "card.json"]);
    assert_eq!(log.len(), 3);
    let due: Vec<bool> = log
        .iter()
        .map(|r| r["prompt"]["authors_note_due"].as_bool().unwrap())
        .collect();
    assert_eq!(due, [false, false, true]);
    assert_eq!(log[0]["prompt"]["absent"][0]["id"], 1);
    assert_eq!(
        prompt_lines(&log[2]),
        [
            "system: Write Mira's next reply in a fictional chat between Mira and Tom.",
            "system: Lamps glow.",
            "system: Mira keeps the lamp.",
            "system: [Example Chat]",
            "system: Hi",
            "system: Hello",
            "system: [Start a new Chat]",
            "user: A lamp?",
            "assistant: Yes.",
            "user: Deep lore.",
            "user: Light the lamp.",
            "system: Top of the note.\nBe brief.",
        ]
    );
    let note = &log[2]["prompt"]["messages"][11];
    assert_eq!(note["block"], "chatHistory");
    assert_eq!(note["sources"][0]["kind"], "entry");
    assert_eq!(note["sources"][1]["kind"], "authors_note");
    assert_eq!(log[2]["prompt"]["messages"][4]["name"], "example_user");
    // Options override the chat's note: always, after the main prompt.
    let now = st_json(
        &dir,
        &[
            "--author-note",
            "Short.",
            "--author-note-interval",
            "1",
            "--author-note-position",
            "after_main",
            "--system-prompt",
            "M",
        ],
    );
    assert_eq!(now.len(), 1);
    assert_eq!(
        prompt_lines(&now[0])[..2],
        ["system: M", "system: Top of the note.\nShort."]
    );
}

// Under SillyTavern's rules the counts are the chosen model's, of any
// family, as under the guide's rules (a SentencePiece model here); only
// OpenAI's encodings were accepted before.
#[test]
fn counts_use_the_chosen_models_tokenizer_of_any_family() {
    use lorebook_engine::tokenizer::{tokenizer_for_model, Encoding};
    use serde_json::json;
    let model = "mistral-7b";
    // The folders the `lorebook` binary searches from the source tree.
    lorebook_engine::tokenizer::resources::set_search_path(lorebook_test_support::tokenizer_dirs())
        .unwrap();
    let mistral = match tokenizer_for_model(model) {
        Ok(t) => t,
        Err(e) if e.contains("is not installed") => {
            eprintln!("skipped: {e}");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let text = "Über den Wolken: 雨が降っている, the zeppelin's lamp-light flickers.";
    let dir = std::env::temp_dir().join(format!("lorebook-st-tokens-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let world =
        json!({"entries": {"0": {"uid": 0, "key": ["lamp"], "content": text, "position": 0}}});
    std::fs::write(dir.join("world.json"), world.to_string()).unwrap();
    std::fs::write(
        dir.join("chat.jsonl"),
        r#"{"name": "Tom", "is_user": true, "mes": "A lamp?"}"#,
    )
    .unwrap();
    let tokens =
        |model: &str| st_json(&dir, &["--model", model])[0]["injected"][0]["tokens"].clone();
    assert_eq!(tokens(model), json!(mistral.count(text)));
    assert_eq!(tokens("gpt-4o"), json!(Encoding::O200kBase.count(text)));
    assert_ne!(mistral.count(text), Encoding::O200kBase.count(text));
    let out = Command::new(env!("CARGO_BIN_EXE_lorebook"))
        .current_dir(&dir)
        .args(["preview", "world.json", "--chat", "chat.jsonl"])
        .args(["--rules", "sillytavern", "--model", model])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("(mistral-7b, mistral-v1)"), "{text}");
}

/// The CLI applies the app's ranges of SillyTavern's settings (the engine's
/// `ST_RANGES`): a settings file's out-of-range numbers are clamped as the
/// app clamps them on loading (a budget cap of 100,000 tokens is 65,536), and a
/// `--max-context` past its range is an error.
#[test]
fn settings_take_the_engine_s_ranges_as_in_the_app() {
    let dir = &cases()[15];
    let scratch = std::env::temp_dir().join(format!("lbs-cli-ranges-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let settings = scratch.join("settings.json");
    std::fs::write(&settings, r#"{"world_info_budget_cap": 100000}"#).unwrap();
    let v = st_json(
        dir,
        &[
            "--st-settings",
            settings.to_str().unwrap(),
            "--max-context",
            "200",
        ],
    );
    assert_eq!(v[0]["budget"]["cap"], 65536, "{}", v[0]["budget"]);
    for (n, ok) in [
        ("1", true),
        ("2000000", true),
        ("0", false),
        ("2000001", false),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_lorebook"))
            .current_dir(dir)
            .args(["preview", "world.json", "--chat", "chat.jsonl"])
            .args(["--rules", "sillytavern", "--json", "--max-context", n])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        if ok {
            assert!(out.status.success(), "{n}: {err}");
        } else {
            assert!(!out.status.success(), "{n}: {err}");
            assert!(
                err.contains("--max-context must be from 1 to 2000000"),
                "{err}"
            );
        }
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}
