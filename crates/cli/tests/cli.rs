//! The `lorebook` binary, run as a user would.

mod common;

use std::process::Command;

use common::{fails, lorebook, root, tmp};

use serde_json::{json, Value};

fn ok(args: &[&str]) -> String {
    let out = lorebook(args);
    assert!(
        out.status.success(),
        "lorebook {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const BOOK: &str = "samples/saltmere.json";
const CHAT: &str = "samples/saltmere-chat.txt";

#[test]
fn preview_json_has_the_documented_shape() {
    let out = ok(&[
        "preview",
        BOOK,
        "--chat",
        CHAT,
        "--json",
        "--list-unmatched",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "one object for one request");
    let v: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(v["request"], 6);
    let limit = v["budget"]["limit"].as_u64().unwrap();
    let used = v["budget"]["used"].as_u64().unwrap();
    assert_eq!(limit, 200);
    assert!(used <= limit);
    let injected = v["injected"].as_array().unwrap();
    let sum: u64 = injected.iter().map(|i| i["tokens"].as_u64().unwrap()).sum();
    assert_eq!(sum, used);
    for i in injected {
        for field in [
            "book", "id", "comment", "role", "tokens", "order", "priority", "reason",
        ] {
            assert!(!i[field].is_null(), "injected entry lacks {field}: {i}");
        }
        assert_eq!(i["book"], 0);
    }
    // Placement order: order descending.
    let orders: Vec<i64> = injected
        .iter()
        .map(|i| i["order"].as_i64().unwrap())
        .collect();
    assert!(orders.windows(2).all(|w| w[0] >= w[1]), "{orders:?}");
    let kinds: Vec<&str> = v["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["reason"]["kind"].as_str().unwrap())
        .collect();
    for k in &kinds {
        assert!(
            [
                "disabled",
                "gated",
                "no_match",
                "secondary",
                "probability",
                "budget"
            ]
            .contains(k),
            "{k}"
        );
    }
    assert!(kinds.contains(&"disabled") && kinds.contains(&"gated") && kinds.contains(&"budget"));
    let messages = v["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    assert!(messages.iter().all(|m| m["content"].is_string()));
    assert_eq!(messages.last().unwrap()["role"], "user");
}

#[test]
fn unmatched_and_disabled_entries_are_counted_unless_listed() {
    let listed: Value = serde_json::from_str(&ok(&[
        "preview",
        BOOK,
        "--chat",
        CHAT,
        "--json",
        "--list-unmatched",
    ]))
    .unwrap();
    let counted: Value =
        serde_json::from_str(&ok(&["preview", BOOK, "--chat", CHAT, "--json"])).unwrap();
    let kinds = |v: &Value| -> Vec<String> {
        v["dropped"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["reason"]["kind"].as_str().unwrap().to_string())
            .collect()
    };
    let all = kinds(&listed);
    let count = |kind: &str| all.iter().filter(|k| *k == kind).count();
    assert!(count("disabled") > 0, "{all:?}");
    assert_eq!(listed["unlisted"], json!({"no_match": 0, "disabled": 0}));
    assert_eq!(
        counted["unlisted"],
        json!({"no_match": count("no_match"), "disabled": count("disabled")})
    );
    let rest: Vec<String> = all
        .iter()
        .filter(|k| *k != "no_match" && *k != "disabled")
        .cloned()
        .collect();
    assert_eq!(kinds(&counted), rest);
    assert_eq!(listed["injected"], counted["injected"]);
    let text = ok(&["preview", BOOK, "--chat", CHAT]);
    assert!(text.contains(&format!(
        "and {} with no match, {} disabled (--list-unmatched lists them)",
        count("no_match"),
        count("disabled")
    )));
}

#[test]
fn log_and_request_select_requests() {
    let log = ok(&["preview", BOOK, "--chat", CHAT, "--log", "--json"]);
    let requests: Vec<u64> = log
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["request"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(requests, vec![1, 2, 3, 4, 5, 6]);
    let one: Value = serde_json::from_str(&ok(&[
        "preview",
        BOOK,
        "--chat",
        CHAT,
        "--request",
        "1",
        "--json",
    ]))
    .unwrap();
    let first: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!(one, first);
    let text = ok(&["preview", BOOK, "--chat", CHAT]);
    assert!(text.contains("Request 6 of 6"));
    assert!(text.contains("gated by @@is_greeting"));
}

#[test]
fn seeds_and_models_change_rolls_and_counts() {
    let tokens = |model: &str| -> u64 {
        let v: Value = serde_json::from_str(&ok(&[
            "preview", BOOK, "--chat", CHAT, "--json", "--model", model,
        ]))
        .unwrap();
        v["injected"][0]["tokens"].as_u64().unwrap()
    };
    assert_ne!(tokens("gpt-4o"), tokens("davinci"));
    let rolls: std::collections::HashSet<String> = (0..12)
        .map(|seed| {
            let v: Value = serde_json::from_str(&ok(&[
                "preview",
                BOOK,
                "--chat",
                CHAT,
                "--json",
                "--seed",
                &seed.to_string(),
            ]))
            .unwrap();
            v["injected"].to_string()
        })
        .collect();
    assert!(
        rolls.len() > 1,
        "the @@probability 60 entry varies with the seed"
    );
}

#[test]
fn errors_are_clear_and_never_panic() {
    fails(&["preview", "nope.json", "--chat", CHAT], "nope.json");
    fails(&["preview", BOOK, "--chat", "nope.txt"], "nope.txt");
    fails(
        &["preview", BOOK, "--chat", CHAT, "--request", "99"],
        "past the end",
    );
    fails(
        &["preview", BOOK, "--chat", CHAT, "--model", "llama"],
        "unknown model",
    );
    let bad = tmp("bad.json");
    std::fs::write(&bad, "{\n  \"entries\": [,]\n}").unwrap();
    fails(
        &["preview", bad.to_str().unwrap(), "--chat", CHAT],
        "line 2",
    );
    let bad_chat = tmp("bad-chat.json");
    std::fs::write(&bad_chat, "[{\"role\":\"user\",\n\"content\": ]").unwrap();
    fails(
        &["preview", BOOK, "--chat", bad_chat.to_str().unwrap()],
        "chat line 2",
    );
    let binary = tmp("noise.bin");
    std::fs::write(&binary, [0u8, 159, 146, 150, 255]).unwrap();
    fails(&["inspect", binary.to_str().unwrap()], "noise.bin");
    fails(&["convert", BOOK, "--to", "docx"], "docx");
    // An absurd size is refused before it is read (a sparse file).
    let huge = tmp("huge.json");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(300 * 1024 * 1024)
        .unwrap();
    fails(&["inspect", huge.to_str().unwrap()], "refused");
    std::fs::remove_file(&huge).unwrap();
}

#[test]
fn convert_round_trips_through_every_format() {
    for format in [
        "native",
        "sillytavern",
        "ccv2",
        "ccv3",
        "risu",
        "novelai",
        "agnai",
    ] {
        let out = tmp(&format!("saltmere.{format}.json"));
        ok(&["convert", BOOK, "--to", format, "-o", out.to_str().unwrap()]);
        let v: Value =
            serde_json::from_str(&ok(&["inspect", out.to_str().unwrap(), "--json"])).unwrap();
        assert_eq!(v["entries"], 10, "{format}");
        // Comments (display names) survive every format that has a place.
        let back = tmp(&format!("back.{format}.json"));
        ok(&[
            "convert",
            out.to_str().unwrap(),
            "--to",
            "native",
            "-o",
            back.to_str().unwrap(),
        ]);
        let text = std::fs::read_to_string(&back).unwrap();
        assert!(text.contains("The Lighthouse"), "{format} lost a comment");
    }
    // Standard output when no -o is given.
    let st: Value = serde_json::from_str(&ok(&["convert", BOOK, "--to", "sillytavern"])).unwrap();
    assert!(st["entries"].is_object());
}

#[test]
#[cfg_attr(
    not(corpus),
    ignore = "corpus not found: set LOREBOOK_CORPUS or put it at ../shared/corpus"
)]
fn convert_into_a_card_png_and_inspect_corpus_files() {
    let corpus_dir = lorebook_test_support::corpus();
    let corpus = |rel: &str| corpus_dir.join(rel);
    let card = corpus("ccv3/default_Seraphina.png");
    let out = tmp("seraphina-saltmere.png");
    ok(&[
        "convert",
        BOOK,
        "--to",
        "ccv3",
        "--into-card",
        card.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let v: Value =
        serde_json::from_str(&ok(&["inspect", out.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(v["format"], "png_card");
    assert_eq!(v["name"], "Saltmere");
    fails(
        &[
            "convert",
            BOOK,
            "--to",
            "ccv3",
            "--into-card",
            card.to_str().unwrap(),
        ],
        "-o",
    );
    for rel in [
        "sillytavern/Eldoria.json",
        "ccv2/nightreign_master_complete.json",
        "risu/rpg_module_cha1_lorebook_export.json",
        "novelai/test_lorebook.lorebook",
    ] {
        let v: Value =
            serde_json::from_str(&ok(&["inspect", corpus(rel).to_str().unwrap(), "--json"]))
                .unwrap();
        assert!(v["entries"].as_u64().unwrap() > 0, "{rel}");
    }
    // preview accepts any importable file directly.
    let p = ok(&[
        "preview",
        corpus("ccv3/default_Seraphina.png").to_str().unwrap(),
        "--chat",
        corpus("chats/st_Seraphina_2023-5-12.jsonl")
            .to_str()
            .unwrap(),
        "--json",
    ]);
    let v: Value = serde_json::from_str(&p).unwrap();
    assert!(!v["injected"].as_array().unwrap().is_empty());
}

#[test]
fn tokens_counts_texts_and_books() {
    let text = tmp("hello.txt");
    std::fs::write(&text, "hello world").unwrap();
    assert_eq!(
        ok(&["tokens", text.to_str().unwrap(), "--model", "gpt-4"]).trim(),
        "2"
    );
    let book = ok(&["tokens", BOOK]);
    assert!(
        book.contains("total (10 entries, gpt-4o, o200k_base)"),
        "{book}"
    );
}

#[test]
fn gates_and_diagnostics_are_codes_in_json_and_english_in_text() {
    let book = tmp("coded.json");
    std::fs::write(
        &book,
        r#"{"spec":"lorebook_v3","data":{"entries":[
            {"id":0,"keys":["moon"],"content":"@@activate_only_after 9\nLore."},
            {"id":1,"keys":["moon"],"content":"@@probability 500\nMore lore."}]}}"#,
    )
    .unwrap();
    let chat = tmp("coded-chat.txt");
    std::fs::write(&chat, "User: the moon\n").unwrap();
    let (book, chat) = (book.to_str().unwrap(), chat.to_str().unwrap());

    let v: Value = serde_json::from_str(&ok(&["preview", book, "--chat", chat, "--json"])).unwrap();
    let gated = &v["dropped"][0]["reason"];
    assert_eq!(gated["kind"], "gated");
    assert_eq!(gated["decorator"], "activate_only_after");
    assert_eq!(
        gated["detail"],
        serde_json::json!({"code": "too_few_messages", "needed": 9, "has": 1})
    );

    let text = ok(&["preview", book, "--chat", chat]);
    assert!(
        text.contains("gated by @@activate_only_after: needs 9 messages in the history; it has 1"),
        "{text}"
    );
    assert!(
        text.contains("diagnostic [0:1] line 1: @@probability: 500 is outside 0–100"),
        "{text}"
    );
}

/// Issue 8: `tokens` on a megabyte of one letter panicked inside the
/// tokenizer library; every unbroken run now gets a count.
#[test]
fn tokens_counts_a_megabyte_of_one_letter() {
    for (name, unit) in [("a.txt", "A"), ("emoji.txt", "😀"), ("digits.txt", "7")] {
        let path = tmp(name);
        std::fs::write(&path, unit.repeat(1024 * 1024 / unit.len())).unwrap();
        let count: u64 = ok(&["tokens", path.to_str().unwrap()])
            .trim()
            .parse()
            .expect("a count");
        assert!(count > 0 && count <= 1024 * 1024, "{name}: {count}");
    }
}

/// Runs `lorebook args`, failing the test if it has not exited within ten
/// seconds (a read that blocks would otherwise hang the suite).
#[cfg(unix)]
fn fails_promptly(args: &[&str], expected: &str) {
    use std::time::{Duration, Instant};
    let mut child = Command::new(env!("CARGO_BIN_EXE_lorebook"))
        .args(args)
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run lorebook");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            panic!("lorebook {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "lorebook {args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(expected),
        "stderr {err:?} should contain {expected:?}"
    );
}

/// Issue 8: a FIFO given as the book (or the chat) hung for ever.
#[cfg(unix)]
#[test]
fn fifos_and_directories_are_refused_not_waited_on() {
    let fifo = tmp("book.fifo");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let fifo = fifo.to_str().unwrap();
    fails_promptly(&["inspect", fifo], "FIFO");
    fails_promptly(&["tokens", fifo], "FIFO");
    fails_promptly(&["preview", fifo, "--chat", CHAT], "FIFO");
    fails_promptly(&["preview", BOOK, "--chat", fifo], "FIFO");
    fails_promptly(
        &[
            "convert",
            BOOK,
            "--to",
            "ccv3",
            "--into-card",
            fifo,
            "-o",
            "x.png",
        ],
        "FIFO",
    );
    let dir = tmp("");
    fails_promptly(&["inspect", dir.to_str().unwrap()], "directory");
    fails_promptly(&["tokens", "/dev/zero"], "device");
}

/// Issue 8: under SillyTavern's rules a catastrophic regex key
/// (`/(a+)+$/` against a long run of `a`) hung the preview; it now gives
/// up within its step budget, and the entry says why.
#[test]
fn a_catastrophic_regex_key_does_not_hang_the_sillytavern_preview() {
    use std::time::{Duration, Instant};
    let book = tmp("slow-regex.json");
    std::fs::write(
        &book,
        json!({"entries": {"0": {"uid": 0, "key": ["/(a+)+$/"], "keysecondary": [],
            "comment": "slow", "content": "Never here.", "position": 0, "order": 100}}})
        .to_string(),
    )
    .unwrap();
    let chat = tmp("slow-regex.txt");
    std::fs::write(&chat, format!("User: {}b\n", "a".repeat(80))).unwrap();
    let args = [
        "preview",
        book.to_str().unwrap(),
        "--chat",
        chat.to_str().unwrap(),
        "--rules",
        "sillytavern",
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_lorebook"))
        .args(args)
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run lorebook");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            panic!("lorebook {args:?} hung on a catastrophic regex key");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(
            "[0:0] slow — regex key /(a+)+$/ took too long on this chat; treated as not matching"
        ),
        "{stdout}"
    );
}

/// `lorebook inspect`'s figures: entries and tokens, the constant entries
/// against the budget, the largest entries, and with --chat what the
/// request log injected (the last request as `preview` shows it).
#[test]
fn inspect_gives_the_books_figures_and_the_chats() {
    let v: Value = serde_json::from_str(&ok(&["inspect", BOOK, "--json", "--chat", CHAT])).unwrap();
    let f = &v["figures"];
    assert_eq!(f["entries"], 10);
    assert_eq!(f["constant"], 1);
    assert_eq!(f["budget"], 200);
    assert_eq!(v["model"], "gpt-4o");
    // The largest first, each entry's body counted once.
    let largest = f["largest"].as_array().unwrap();
    assert_eq!(largest.len(), 10);
    assert_eq!(largest[0]["name"], "The Lighthouse");
    let sum: u64 = largest.iter().map(|e| e["tokens"].as_u64().unwrap()).sum();
    assert_eq!(f["tokens"].as_u64().unwrap(), sum);
    assert!(f["constant_tokens"].as_u64().unwrap() > 0);
    // The last request as `preview` answers it.
    let p: Value = serde_json::from_str(&ok(&["preview", BOOK, "--chat", CHAT, "--json"])).unwrap();
    let c = &v["chat"];
    assert_eq!(c["requests"], 6);
    assert_eq!(c["last_tokens"], p["budget"]["used"]);
    assert_eq!(
        c["last_entries"].as_u64().unwrap() as usize,
        p["injected"].as_array().unwrap().len()
    );
    assert!(c["log_entries"].as_u64().unwrap() >= c["last_entries"].as_u64().unwrap());
    // Without a chat there is nothing to say about one; --largest bounds the list.
    let v: Value =
        serde_json::from_str(&ok(&["inspect", BOOK, "--json", "--largest", "2"])).unwrap();
    assert!(v["chat"].is_null());
    assert_eq!(v["figures"]["largest"].as_array().unwrap().len(), 2);
    let text = ok(&["inspect", BOOK, "--chat", CHAT]);
    assert!(text.contains("Largest entries:"), "{text}");
    assert!(text.contains("Chat: 6 requests"), "{text}");
}

/// Issue 43: an entry cut because the budget stopped at an earlier one
/// names that entry, instead of "needs 5 tokens, 99 left", which reads as
/// if it should have fit.
#[test]
fn a_budget_cut_after_the_first_names_the_entry_the_budget_stopped_at() {
    let book = tmp("i43-budget.json");
    std::fs::write(
        &book,
        serde_json::json!({"spec": "lorebook_v3", "data": {"name": "B", "token_budget": 100,
        "entries": [
            {"id": 1, "keys": ["sea"], "comment": "Big", "priority": 900,
             "content": "The sea is wide and deep and grey. ".repeat(30)},
            {"id": 2, "keys": ["sea"], "comment": "Small", "priority": 100,
             "content": "Salt."}
        ]}})
        .to_string(),
    )
    .unwrap();
    let chat = tmp("i43-budget-chat.txt");
    std::fs::write(&chat, "User: the sea\n").unwrap();
    let out = lorebook(&[
        "preview",
        book.to_str().unwrap(),
        "--chat",
        chat.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let small = text
        .lines()
        .find(|l| l.contains("[0:2] Small"))
        .expect(&text);
    assert!(small.contains("cut after [0:1] Big did not fit"), "{small}");
    let big = text.lines().find(|l| l.contains("[0:1] Big")).expect(&text);
    assert!(big.contains("budget: needs"), "{big}");
}

/// The rules' settings are one option group (`books::RuleSettings`),
/// flattened into every command that runs a preview: each command's help
/// says the same of each option, so a wording written twice would differ.
#[test]
fn the_rules_settings_are_one_group_in_every_command_that_previews() {
    let help = |args: &[&str]| {
        let out = common::lorebook(args);
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let option_text = |help: &str, option: &str| -> String {
        let lines: Vec<&str> = help.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.trim_start().starts_with(option))
            .unwrap_or_else(|| panic!("{option} in {help}"));
        // Clap puts a short description beside the option, a long one
        // below it: both read the same once joined.
        let beside = lines[at].split_once('>').map_or("", |(_, r)| r.trim());
        std::iter::once(beside)
            .chain(
                lines[at + 1..]
                    .iter()
                    .take_while(|l| !l.trim_start().starts_with('-') && !l.trim().is_empty())
                    .map(|l| l.trim()),
            )
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let helps = [
        help(&["preview", "--help"]),
        help(&["lint", "--help"]),
        help(&["diff", "--help"]),
        help(&["scenario", "record", "--help"]),
    ];
    for option in ["--st-settings", "--max-context", "--risu-settings"] {
        let first = option_text(&helps[0], option);
        assert!(!first.is_empty(), "{option} is documented");
        for h in &helps[1..] {
            assert_eq!(option_text(h, option), first, "{option}");
        }
    }
}
