//! `lorebook diff OLD NEW --chat FILE`: a book against itself changes
//! nothing (exit 0), and against an edited copy it lists exactly what the
//! two books' `preview --log --json` outputs differ in (exit 1), under
//! every rules.

mod common;

use std::collections::BTreeSet;

use common::{lorebook, root, tmp};
use serde_json::Value;

const RULES: [&str; 3] = ["studio", "sillytavern", "risu"];

fn sample() -> (String, String) {
    (
        root().join("samples/saltmere.json").display().to_string(),
        root()
            .join("samples/saltmere-chat.txt")
            .display()
            .to_string(),
    )
}

/// Each request's injected entry ids, from `preview --log --json`.
fn log(book: &str, chat: &str, rules: &str) -> Vec<BTreeSet<u64>> {
    let out = lorebook(&[
        "preview", book, "--chat", chat, "--rules", rules, "--log", "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["injected"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["id"].as_u64().unwrap())
                .collect()
        })
        .collect()
}

/// One changed request: its number, the ids that started and stopped.
type Flips = (usize, BTreeSet<u64>, BTreeSet<u64>);

/// `diff --json`: request → (started, stopped).
fn diff(old: &str, new: &str, chat: &str, rules: &str) -> (Option<i32>, Vec<Flips>) {
    let out = lorebook(&["diff", old, new, "--chat", chat, "--rules", rules, "--json"]);
    let ids = |v: &Value| -> BTreeSet<u64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_u64().unwrap())
            .collect()
    };
    let rows = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            assert!(
                v["budget"]["old"].is_u64() && v["budget"]["new"].is_u64(),
                "{v}"
            );
            for f in v["started"]
                .as_array()
                .unwrap()
                .iter()
                .chain(v["stopped"].as_array().unwrap())
            {
                assert!(f["reason"].as_str().is_some_and(|r| !r.is_empty()), "{v}");
            }
            (
                v["request"].as_u64().unwrap() as usize,
                ids(&v["started"]),
                ids(&v["stopped"]),
            )
        })
        .collect();
    (out.status.code(), rows)
}

#[test]
fn a_book_against_itself_changes_nothing() {
    let (book, chat) = sample();
    for rules in RULES {
        let out = lorebook(&["diff", &book, &book, "--chat", &chat, "--rules", rules]);
        assert_eq!(out.status.code(), Some(0), "{rules}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "no change\n");
    }
}

/// Seeded edits of the sample (keys dropped or swapped, bodies that name
/// other entries, orders, constants): `diff` lists, request by request,
/// exactly the entries the two logs inject differently.
#[test]
fn diff_lists_exactly_what_the_two_logs_differ_in() {
    let (book, chat) = sample();
    let original: Value = serde_json::from_str(&std::fs::read_to_string(&book).unwrap()).unwrap();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut changed = 0;
    for round in 0..8 {
        let mut v = original.clone();
        let entries = v
            .pointer_mut("/data/entries")
            .unwrap()
            .as_array_mut()
            .unwrap();
        let n = entries.len();
        for _ in 0..2 {
            let e = &mut entries[next(n)];
            match next(4) {
                0 => e["keys"] = serde_json::json!(["nothing-like-this"]),
                1 => e["constant"] = Value::Bool(!e["constant"].as_bool().unwrap_or(false)),
                2 => e["insertion_order"] = serde_json::json!(next(1000)),
                _ => {
                    e["content"] = serde_json::json!("The lighthouse keeper Orla rows to the reef.")
                }
            }
        }
        let edited = tmp(&format!("diff-{round}.json"));
        std::fs::write(&edited, serde_json::to_vec(&v).unwrap()).unwrap();
        let edited = edited.display().to_string();
        for rules in RULES {
            let (a, b) = (log(&book, &chat, rules), log(&edited, &chat, rules));
            let (status, rows) = diff(&book, &edited, &chat, rules);
            let expected: Vec<Flips> = a
                .iter()
                .zip(&b)
                .enumerate()
                .map(|(k, (a, b))| (k + 1, b - a, a - b))
                .filter(|(_, s, t)| !s.is_empty() || !t.is_empty())
                .collect();
            let flips: Vec<_> = rows
                .iter()
                .filter(|(_, s, t)| !s.is_empty() || !t.is_empty())
                .cloned()
                .collect();
            assert_eq!(flips, expected, "round {round}, {rules}");
            changed += usize::from(!expected.is_empty());
            if !rows.is_empty() {
                assert_eq!(status, Some(1), "round {round}, {rules}");
            } else {
                assert_eq!(status, Some(0), "round {round}, {rules}");
            }
        }
    }
    assert!(
        changed >= 8,
        "the edits change something under most rules: {changed}"
    );
}

#[test]
fn unreadable_input_exits_with_2() {
    let (book, chat) = sample();
    let out = lorebook(&["diff", &book, "no-such.json", "--chat", &chat]);
    assert_eq!(out.status.code(), Some(2));
    let out = lorebook(&["diff", &book, &book, "--chat", "no-such-chat.txt"]);
    assert_eq!(out.status.code(), Some(2));
}
