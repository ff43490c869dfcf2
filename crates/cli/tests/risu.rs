//! `lorebook preview --rules risu`: RisuAI 460ecae's rules through the
//! command line (loadLoreBookV3Prompt and sendChat's placement), with
//! `--risu-settings` read in RisuAI's own names.

mod common;

use common::{fails, lorebook, tmp};
use serde_json::Value;

const BOOK: &str = r#"{"type": "risu", "ver": 1, "data": [
 {"key": "harbor", "secondkey": "", "comment": "Harbor", "content": "@@depth 2\n@@role assistant\nThe harbor smells of tar.",
  "mode": "normal", "insertorder": 100, "alwaysActive": false, "selective": false},
 {"key": "lighthouse", "secondkey": "", "comment": "Lighthouse", "content": "@@exclude_keys storm\nThe light turns.",
  "mode": "normal", "insertorder": 200, "alwaysActive": false, "selective": false},
 {"key": "", "secondkey": "", "comment": "Always", "content": "Salt everywhere.",
  "mode": "normal", "insertorder": 300, "alwaysActive": true, "selective": false}
]}"#;

const CHAT: &str = "User: We reach the harbor.\nNarrator: The lighthouse stands in the storm.\n";

fn files(tag: &str) -> (String, String) {
    let book = tmp(&format!("risu-{tag}.json"));
    std::fs::write(&book, BOOK).unwrap();
    let chat = tmp(&format!("risu-{tag}.txt"));
    std::fs::write(&chat, CHAT).unwrap();
    (book.display().to_string(), chat.display().to_string())
}

fn preview(args: &[&str]) -> Value {
    let out = lorebook(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

// loadLoreBookV3Prompt: always-active first by insertorder, the excluded
// key named, the depth and role of `@@depth` / `@@role`.
#[test]
fn load_lore_book_v3_prompt_through_the_cli() {
    let (book, chat) = files("basic");
    let r = preview(&[
        "preview", &book, "--chat", &chat, "--rules", "risu", "--json",
    ]);
    assert_eq!(r["rules"], "risu");
    assert_eq!(r["request"], 2);
    let injected = r["injected"].as_array().unwrap();
    let names: Vec<&str> = injected
        .iter()
        .map(|i| i["comment"].as_str().unwrap())
        .collect();
    // Final order: ascending insertorder (sorted descending, then
    // reversed), so 100 before 300.
    assert_eq!(names, ["Harbor", "Always"]);
    assert_eq!(injected[1]["position"], "lorebook");
    assert_eq!(injected[1]["depth"], Value::Null);
    assert_eq!(injected[1]["why"]["kind"], "always");
    assert_eq!(injected[0]["position"], "depth");
    assert_eq!(injected[0]["depth"], 2);
    assert_eq!(injected[0]["role"], "assistant");
    assert_eq!(injected[0]["id"], 0, "the index in the RisuAI file's data");
    assert_eq!(injected[0]["why"]["kind"], "key");
    let dropped = r["dropped"].as_array().unwrap();
    assert_eq!(dropped.len(), 1);
    assert_eq!(dropped[0]["comment"], "Lighthouse");
    assert_eq!(dropped[0]["why"]["kind"], "excluded");
    assert!(dropped[0]["reason"]
        .as_str()
        .unwrap()
        .contains("@@exclude_keys"));
    let used = r["budget"]["used"].as_u64().unwrap();
    let sum: u64 = injected.iter().map(|i| i["tokens"].as_u64().unwrap()).sum();
    assert_eq!(used, sum);
}

// loadLoreBookV3Prompt: the budget from `loreSettings.tokenBudget`, and the
// scan depth from `loreSettings.scanDepth` (depth 1 scans only the newest
// message, where 'harbor' is not).
#[test]
fn risu_settings_are_read_in_risu_s_names() {
    let (book, chat) = files("settings");
    let settings = tmp("settings-for-risu.json");
    std::fs::write(
        &settings,
        r#"{"loreBookDepth": 9, "loreBookToken": 9000,
            "loreSettings": {"tokenBudget": 2, "scanDepth": 1, "recursiveScanning": false, "fullWordMatching": false}}"#,
    )
    .unwrap();
    let s = settings.display().to_string();
    let args = [
        "preview",
        &book,
        "--chat",
        &chat,
        "--rules",
        "risu",
        "--json",
        "--risu-settings",
        &s,
    ];
    let r = preview(&args);
    assert_eq!(r["budget"]["limit"], 2);
    assert_eq!(r["injected"].as_array().unwrap().len(), 0);
    let kinds: Vec<&str> = r["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["why"]["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"budget"), "{kinds:?}");
    assert!(!r["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["comment"] == "Harbor"));
    // The text form says which rules ran.
    let out = lorebook(&["preview", &book, "--chat", &chat, "--rules", "risu"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("RisuAI rules"), "{text}");
}

#[test]
fn bad_risu_settings_are_a_clear_error() {
    let (book, chat) = files("bad");
    let settings = tmp("risu-bad-settings.json");
    std::fs::write(&settings, "{\"loreSettings\": ").unwrap();
    let s = settings.display().to_string();
    fails(
        &[
            "preview",
            &book,
            "--chat",
            &chat,
            "--rules",
            "risu",
            "--risu-settings",
            &s,
        ],
        "risu-bad-settings.json",
    );
    // `--log` prints one object per request.
    let out = lorebook(&[
        "preview", &book, "--chat", &chat, "--rules", "risu", "--json", "--log",
    ]);
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["request"], 1);
}

// sendChat without a prompt template: the card's texts from
// --st-sources, the harbor at @@depth 2 counted from the chat block's
// start (after the new-chat line and the greeting), the last message
// split off after the block, then the lorebook block; the log carries no
// prompt.
#[test]
fn send_chat_prompt_through_the_cli() {
    let (book, chat) = files("prompt");
    let card = tmp("risu-prompt-card.json");
    std::fs::write(
        &card,
        r#"{"spec": "chara_card_v2", "data": {"name": "Mira", "description": "A harbor town.",
            "first_mes": "Welcome.", "system_prompt": "Narrate. {{original}}"}}"#,
    )
    .unwrap();
    let card = card.display().to_string();
    let r = preview(&[
        "preview",
        &book,
        "--chat",
        &chat,
        "--rules",
        "risu",
        "--json",
        "--st-sources",
        &card,
    ]);
    let got: Vec<String> = r["prompt"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            format!(
                "{} {}: {}",
                m["role"].as_str().unwrap(),
                m["source"]["kind"].as_str().unwrap(),
                m["content"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            "system main: Narrate.",
            "system description: A harbor town.",
            "system new_chat: [Start a new chat]",
            "assistant greeting: Welcome.",
            "assistant entry: The harbor smells of tar.",
            "user chat: We reach the harbor.",
            "assistant chat: The lighthouse stands in the storm.",
            "system entry: Salt everywhere.",
        ]
    );
    let out = lorebook(&[
        "preview",
        &book,
        "--chat",
        &chat,
        "--rules",
        "risu",
        "--system-prompt",
        "Be brief.",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Prompt (6 messages"), "{text}");
    assert!(text.contains("system    main: Be brief."), "{text}");
    let out = lorebook(&[
        "preview", &book, "--chat", &chat, "--rules", "risu", "--json", "--log",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 2);
    assert!(!text.contains("\"prompt\""), "{text}");
}

// loadLoreBookV3Prompt at the 2026 mainline (PR #1490): the budget counts
// each body as CBS evaluates it, with what `--risu-settings` gives CBS in
// RisuAI's names; `sent` is what RisuAI sends; `--risu-version 460ecae`
// counts the body as written.
#[test]
fn load_lore_book_v3_prompt_counts_cbs_by_version() {
    let book = tmp("risu-cbs.json");
    std::fs::write(
        &book,
        r#"{"type": "risu", "ver": 1, "data": [
 {"key": "", "secondkey": "", "comment": "Gate", "mode": "normal", "insertorder": 100, "alwaysActive": true,
  "selective": false, "content": "{{#if {{getvar::storm}}}}A long storm story over the harbor of many ships.{{/if}}{{char}} waits for {{user}}."}
]}"#,
    )
    .unwrap();
    let chat = tmp("risu-cbs.txt");
    std::fs::write(&chat, CHAT).unwrap();
    let settings = tmp("risu-cbs-settings.json");
    std::fs::write(
        &settings,
        r#"{"username": "Kim", "character": {"name": "Alexandria", "nickname": "Alex"}, "scriptstate": {"$storm": 0}}"#,
    )
    .unwrap();
    let (book, chat, settings) = (
        book.display().to_string(),
        chat.display().to_string(),
        settings.display().to_string(),
    );
    let run = |version: &[&str]| {
        let mut args = vec![
            "preview",
            &book,
            "--chat",
            &chat,
            "--rules",
            "risu",
            "--json",
            "--risu-settings",
            &settings,
        ];
        args.extend_from_slice(version);
        let r = preview(&args);
        r["injected"][0].clone()
    };
    let mainline = run(&[]);
    assert_eq!(mainline["sent"], "Alex waits for Kim.");
    let old = run(&["--risu-version", "460ecae"]);
    assert_eq!(
        old["sent"], "Alex waits for Kim.",
        "RisuAI sends it evaluated at both"
    );
    let (new_tokens, old_tokens) = (
        mainline["tokens"].as_u64().unwrap(),
        old["tokens"].as_u64().unwrap(),
    );
    assert!(
        new_tokens < old_tokens / 2,
        "2026 counts the evaluated text ({new_tokens}), 460ecae the body ({old_tokens})"
    );
    fails(
        &[
            "preview",
            &book,
            "--chat",
            &chat,
            "--rules",
            "risu",
            "--risu-version",
            "2027",
        ],
        "unknown RisuAI version",
    );
    // A body CBS empties sends nothing, and says so.
    let empty = tmp("risu-cbs-empty.json");
    std::fs::write(
        &empty,
        r#"{"type": "risu", "ver": 1, "data": [
 {"key": "", "secondkey": "", "comment": "Gate", "mode": "normal", "insertorder": 100, "alwaysActive": true,
  "selective": false, "content": "{{#if_pure {{getvar::never}}}}Hidden lore.{{/if}}"}
]}"#,
    )
    .unwrap();
    let empty = empty.display().to_string();
    let out = lorebook(&["preview", &empty, "--chat", &chat, "--rules", "risu"]);
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("sends nothing: its text is empty once CBS is evaluated"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // The text output says what RisuAI sends.
    let out = lorebook(&[
        "preview",
        &book,
        "--chat",
        &chat,
        "--rules",
        "risu",
        "--risu-settings",
        &settings,
    ]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("sends: Alex waits for Kim."),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
