//! `lorebook lint`: exit statuses, the text line shape and the JSON shape.

mod common;

use common::{lorebook, tmp};
use serde_json::{json, Value};

/// A native book file with `entries` (each `{id, keys, content, …}`).
fn book_file(name: &str, budget: u32, entries: Value) -> String {
    let path = tmp(name);
    let book = json!({"spec": "lorebook_v3", "data": {
        "name": name, "token_budget": budget, "entries": entries,
    }});
    // Tests running at once write the same books: each writes its own
    // copy and renames it into place, so none reads a half-written file.
    let part = tmp(&format!("{name}.{:?}", std::thread::current().id()));
    std::fs::write(&part, book.to_string()).unwrap();
    std::fs::rename(&part, &path).unwrap();
    path.display().to_string()
}

fn entry(id: u64, keys: &[&str], content: &str) -> Value {
    json!({"id": id, "keys": keys, "content": content, "enabled": true,
           "insertion_order": 100, "extensions": {"match_whole_words": true}})
}

fn clean() -> String {
    book_file(
        "clean.json",
        800,
        json!([
            entry(0, &["lighthouse"], "The lighthouse is dark."),
            entry(1, &["harbour"], "The harbour is busy."),
        ]),
    )
}

/// A duplicate key (warning) and a name duplicate (hint), no error.
fn warned() -> String {
    book_file(
        "warned.json",
        800,
        json!([
            // The second body holds the first whole: one key brings in
            // the same text twice (a shared key alone is only a hint).
            entry(
                0,
                &["dragon"],
                "Red dragons sleep on the gold of the old kings."
            ),
            entry(
                1,
                &["Dragon"],
                "Red dragons sleep on the gold of the old kings. Blue ones fly."
            ),
        ]),
    )
}

/// An invalid regex key: an error.
fn broken() -> String {
    book_file(
        "broken.json",
        800,
        json!([entry(0, &["/(unclosed/"], "Body.")]),
    )
}

fn status(args: &[&str]) -> (Option<i32>, String, String) {
    let out = lorebook(args);
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn exit_status_follows_the_threshold() {
    let (clean, warned, broken) = (clean(), warned(), broken());
    assert_eq!(status(&["lint", &clean]).0, Some(0));
    assert_eq!(status(&["lint", &clean, "--deny", "hints"]).0, Some(0));
    // Warnings pass by default, fail with --deny warnings.
    assert_eq!(status(&["lint", &warned]).0, Some(0));
    assert_eq!(status(&["lint", &warned, "--deny", "warnings"]).0, Some(1));
    assert_eq!(status(&["lint", &broken]).0, Some(1));
    assert_eq!(status(&["lint", &clean, &broken]).0, Some(1));
}

#[test]
fn usage_and_unreadable_input_exit_with_2() {
    let clean = clean();
    let missing = tmp("missing.json").display().to_string();
    let (code, _, err) = status(&["lint", &missing]);
    assert_eq!(code, Some(2));
    assert!(err.starts_with("error: "), "{err}");
    assert!(!err.contains("panicked"));
    assert_eq!(status(&["lint"]).0, Some(2));
    assert_eq!(status(&["lint", &clean, "--deny", "everything"]).0, Some(2));
    assert_eq!(status(&["lint", &clean, "--rules", "nope"]).0, Some(2));
    let chat = tmp("missing-chat.txt").display().to_string();
    assert_eq!(status(&["lint", &clean, "--chat", &chat]).0, Some(2));
    assert_eq!(
        status(&["lint", &clean, "--model", "no-such-model"]).0,
        Some(2)
    );
}

#[test]
fn one_line_per_problem_in_the_file_entry_severity_code_shape() {
    let warned = warned();
    let (code, out, err) = status(&["lint", &warned]);
    assert_eq!(code, Some(0), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            format!("{warned}:0: warning duplicate_key: key \"dragon\" is also a key of [0:1], and [0:1] brought in by it says the same"),
            format!("{warned}:1: warning duplicate_key: key \"Dragon\" is also a key of [0:0], and [0:0] brought in by it says the same"),
        ]
    );
    assert!(err.contains("0 error(s), 2 warning(s), 0 hint(s)"), "{err}");
}

#[test]
fn json_has_the_documented_shape() {
    let (warned, broken) = (warned(), broken());
    let (code, out, _) = status(&["lint", &warned, &broken, "--json"]);
    assert_eq!(code, Some(1));
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    let problems = v["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 3);
    for p in problems {
        for field in ["book", "id", "code", "severity", "message", "span"] {
            assert!(!p[field].is_null(), "{field} missing in {p}");
        }
        assert!(p.get("fix").is_some());
    }
    assert_eq!(
        problems[2]["book"], 1,
        "book is the position on the command line"
    );
    assert_eq!(problems[2]["code"], "regex_invalid");
    assert_eq!(problems[2]["severity"], "error");
    assert_eq!(
        problems[2]["span"],
        json!({"kind": "key", "secondary": false, "index": 0})
    );
    assert!(v.get("coverage").is_none() && v.get("advice").is_none());
}

#[test]
fn with_a_chat_json_has_coverage_and_advice() {
    let book = book_file(
        "budget.json",
        100,
        json!([
            {"id": 0, "keys": ["alpha"], "priority": 200, "content": "alpha ".repeat(60)},
            {"id": 1, "keys": ["beta"], "content": "beta ".repeat(60)},
            {"id": 2, "keys": ["gamma"], "content": "Never mentioned."},
        ]),
    );
    let chat = tmp("budget-chat.txt");
    std::fs::write(&chat, "User: alpha and beta\nBot: beta again\n").unwrap();
    let chat = chat.display().to_string();
    let (code, out, err) = status(&["lint", &book, "--chat", &chat, "--json", "--advise", "1"]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    let coverage = v["coverage"].as_array().unwrap();
    assert_eq!(coverage.len(), 3);
    assert_eq!(
        coverage[1],
        json!({"book": 0, "id": 1, "matched": 2, "injected": 0, "cut_by_budget": 2, "lost_roll": 0})
    );
    assert_eq!(coverage[2]["matched"], 0);
    let keep = v["advice"]["budget_to_keep_all"].as_u64().unwrap();
    assert!(keep > 100, "{v}");
    assert_eq!(
        v["advice"]["never_activated"],
        json!([{"book": 0, "id": 2}])
    );
    let advice = &v["advice"]["entries"][0];
    assert_eq!(advice["id"], 1);
    assert_eq!(advice["cut_in"], json!([1, 2]));
    assert!(advice["priority_change"].as_i64().unwrap() > 100);
    // The text form says the same.
    let (_, text, _) = status(&["lint", &book, "--chat", &chat, "--advise", "0:1"]);
    assert!(
        text.contains(&format!(
            "{book}:1: matched 2, injected 0, cut by budget 2, lost roll 0"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("budget to keep all: {keep} tokens")),
        "{text}"
    );
    assert!(
        text.contains(&format!("advice {book}:1: cut in 2 request(s)")),
        "{text}"
    );
}

#[test]
fn sillytavern_rules_do_not_report_what_is_normal_there() {
    let path = tmp("st.json");
    std::fs::write(
        &path,
        json!({"entries": {
            "0": {"uid": 0, "key": ["apple"], "keysecondary": [], "selective": true,
                  "content": "Apples.", "comment": "Apple", "position": 0},
            "1": {"uid": 1, "key": ["pear"], "keysecondary": [], "selective": true,
                  "content": "@@keep\nPears.", "comment": "Pear", "position": 0}
        }})
        .to_string(),
    )
    .unwrap();
    let path = path.display().to_string();
    let (code, out, _) = status(&["lint", &path, "--deny", "hints"]);
    assert_eq!(code, Some(0), "{out}");
    let (code, out, _) = status(&["lint", &path, "--rules", "sillytavern"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        out.trim(),
        format!("{path}:1: warning decorator_no_effect: @@keep is a decorator of the studio rules: ignored under the rules in use")
    );
}

/// `--rules risu` reads a RisuAI export as RisuAI 460ecae does: its own
/// decorators are known, its regex bug is named, `--risu-settings` is
/// read, and `--chat` gives coverage from RisuAI's request log.
#[test]
fn risu_rules_read_a_risu_book_as_risu_does() {
    let path = tmp("risu-lint.json");
    std::fs::write(
        &path,
        json!({"type": "risu", "ver": 1, "data": [
            {"key": "storm", "secondkey": "", "comment": "Storm", "mode": "normal", "insertorder": 100,
             "alwaysActive": false, "selective": false, "content": "@@exclude_keys calm\nRain."},
            {"key": "/drake/i", "secondkey": "", "comment": "Drake", "mode": "normal", "insertorder": 100,
             "alwaysActive": false, "selective": false, "useRegex": true, "content": "Scales."},
            {"key": "dark lord", "secondkey": "", "comment": "Lord", "mode": "normal", "insertorder": 100,
             "alwaysActive": false, "selective": false, "content": "A shadow."}
        ]})
        .to_string(),
    )
    .unwrap();
    let path = path.display().to_string();
    // The guide's rules: @@exclude_keys is unknown to them.
    let (_, out, _) = status(&["lint", &path]);
    assert!(out.contains("decorator_unknown"), "{out}");
    let (code, out, err) = status(&["lint", &path, "--rules", "risu"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out.trim(),
        format!("{path}:1: warning regex_rewritten: regex key \"/drake/i\": RisuAI 460ecae searches for \"/drake\" instead (a known RisuAI bug), and only in the oldest message it scans")
    );
    // Whole words from the settings: a key with a space never matches.
    let settings = tmp("risu-lint-settings.json");
    std::fs::write(&settings, r#"{"loreSettings": {"fullWordMatching": true}}"#).unwrap();
    let settings = settings.display().to_string();
    let (_, out, _) = status(&[
        "lint",
        &path,
        "--rules",
        "risu",
        "--risu-settings",
        &settings,
        "--json",
    ]);
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    let codes: Vec<(u64, &str)> = v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_u64().unwrap(), p["code"].as_str().unwrap()))
        .collect();
    assert_eq!(codes, [(1, "regex_rewritten"), (2, "key_never_matches")]);
    assert_eq!(v["problems"][1]["params"]["reason"], "space_in_full_word");
    let bad = tmp("risu-lint-bad.json");
    std::fs::write(&bad, r#"{"loreSettings": 3}"#).unwrap();
    let (code, _, err) = status(&[
        "lint",
        &path,
        "--rules",
        "risu",
        "--risu-settings",
        &bad.display().to_string(),
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("loreSettings must be an object"), "{err}");
    // Coverage from RisuAI's request log: the storm matched twice, then
    // the calm kept it out.
    let chat = tmp("risu-lint-chat.txt");
    std::fs::write(
        &chat,
        "User: a storm\nBot: the storm grows\nUser: calm now\n",
    )
    .unwrap();
    let chat = chat.display().to_string();
    let (code, out, err) = status(&["lint", &path, "--rules", "risu", "--chat", &chat, "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        v["coverage"][0],
        json!({"book": 0, "id": 0, "matched": 2, "injected": 2, "cut_by_budget": 0, "lost_roll": 0})
    );
}
