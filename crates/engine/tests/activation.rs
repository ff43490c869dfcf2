//! The guide's rules made executable (docs/semantics.md, cited as SPEC §3–§6): one small case per rule.
//!
//! Each test is `check(case, expected)`. The case is JSON: `books` (each a list
//! of entries in the model's fields, ids by position, or a book object),
//! `chat` as plain text, and optionally `at` (the requests shown; the last by
//! default), `edits` (later chats asked of the same preview) and `lorebook_at`.
//! `check` renders each request as text, compared line by line with `expected`:
//! `request k: used/limit tokens`, then `in book/id how` per injected entry in
//! placement order and `out book/id why` per dropped one, values at their
//! default left out; a match reads `"key" msg i start..end` (`body book/id` when
//! found in an activated entry's body). `check_prompt` renders the messages sent
//! instead, `check_seeds` each entry's outcomes over many seeds; all three assert
//! what every request keeps (each entry once, a log equal to its single requests).
//!
//! Over 600 lines: the cases with their expected text are most of it; the
//! helpers that read, run and render them come first.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::ops::Range;

use lorebook_engine::diagnostic::{DiagnosticMessage, Severity};
use lorebook_engine::explain::{Activation, DropReason, KeyMatch, RequestResult, Source};
use lorebook_engine::model::{Book, Role};
use lorebook_engine::preview::{Preview, Settings};
use lorebook_engine::prompt::{Origin, DEFAULT_SYSTEM_PROMPT};
use serde_json::{json, Value};

mod common;
use common::chat;

#[derive(Clone)]
struct Case {
    books: Vec<Book>,
    chats: Vec<String>,
    at: Vec<usize>,
    settings: Settings,
}

/// Reads a case; a field the model does not have fails the test instead of
/// being ignored.
fn read(case: Value) -> Case {
    let mut out = Case {
        books: Vec::new(),
        chats: Vec::new(),
        at: Vec::new(),
        settings: Settings::default(),
    };
    let text = |v: &Value| v.as_str().expect("a text").to_string();
    for (field, value) in case.as_object().unwrap() {
        match field.as_str() {
            "books" => out.books = value.as_array().unwrap().iter().map(read_book).collect(),
            "chat" => out.chats.insert(0, text(value)),
            "edits" => out.chats.extend(value.as_array().unwrap().iter().map(text)),
            "at" => out.at = serde_json::from_value(value.clone()).unwrap(),
            "lorebook_at" => (out.settings.template).move_lorebook(value.as_u64().unwrap() as _),
            _ => panic!("unknown case field {field}"),
        }
    }
    assert!(case.get("chat").is_some() && case.get("books").is_some());
    out
}

fn read_book(given: &Value) -> Book {
    let mut given = match given {
        Value::Array(_) => json!({ "entries": given }),
        _ => given.clone(),
    };
    let entries = given.get_mut("entries").and_then(Value::as_array_mut);
    for (i, e) in entries.into_iter().flatten().enumerate() {
        e.as_object_mut().unwrap().entry("id").or_insert(json!(i));
    }
    let book: Book = serde_json::from_value(given.clone()).unwrap();
    let known = |given: &Value, read: Value| {
        for field in given.as_object().unwrap().keys() {
            assert!(read.get(field).is_some(), "unknown field {field}");
        }
    };
    known(&given, serde_json::to_value(&book).unwrap());
    let entries = given.get("entries").and_then(Value::as_array);
    for (e, entry) in entries.into_iter().flatten().zip(&book.entries) {
        known(e, serde_json::to_value(entry).unwrap());
    }
    book
}

/// Runs the shown requests of each chat and asserts what every request
/// keeps, whatever the case.
fn run(case: &Case) -> Vec<Vec<RequestResult>> {
    let all: BTreeSet<(usize, u64)> = (case.books.iter().enumerate())
        .flat_map(|(b, book)| book.entries.iter().map(move |e| (b, e.id)))
        .collect();
    let mut kept = Preview::new(&case.books, case.settings.clone());
    let mut out = Vec::new();
    for text in &case.chats {
        let c = chat(text);
        let log = kept.log(&c);
        assert_eq!(log.len(), c.len(), "one result per request");
        let at = if case.at.is_empty() {
            vec![c.len()]
        } else {
            case.at.clone()
        };
        let mut results = Vec::new();
        for k in at {
            let r = Preview::new(&case.books, case.settings.clone()).request(&c, k);
            assert_eq!(r.request, k);
            assert_eq!(kept.request(&c, k), r, "request {k} of a kept preview");
            if k > 0 {
                assert_eq!(log[k - 1], r, "request {k} of the log");
            }
            let seen: Vec<_> = (r.injected.iter().map(|i| (i.book, i.id)))
                .chain(r.dropped.iter().map(|d| (d.book, d.id)))
                .collect();
            assert_eq!(seen.len(), all.len(), "every entry once");
            assert_eq!(seen.into_iter().collect::<BTreeSet<_>>(), all);
            for roll in r.injected.iter().filter_map(|i| i.roll) {
                assert!(roll.roll < roll.chance, "{roll:?}");
            }
            for d in &r.dropped {
                match &d.reason {
                    DropReason::Probability { roll, chance, .. } => assert!(roll >= chance),
                    DropReason::Gated { decorator, detail } => {
                        assert_eq!(decorator, detail.decorator())
                    }
                    _ => {}
                }
            }
            results.push(r);
        }
        out.push(results);
    }
    out
}

/// Renders the entries' diagnostics, then each shown request (after an
/// `edit n` line for the n-th edit).
fn check(case: Value, expected: &str) {
    let case = read(case);
    let mut out = String::new();
    let p = Preview::new(&case.books, case.settings.clone());
    for e in &p.index().entries {
        for d in &e.diagnostics {
            let severity = match d.severity {
                Severity::Hint => "hint",
                Severity::Warning => "warning",
                Severity::Error => "error",
            };
            let mut text = d.message.to_string();
            if let DiagnosticMessage::InvalidRegex { error, .. } = &d.message {
                text = text.replace(error.as_str(), "…");
            }
            let line = d.line.map(|n| format!(" line {n}")).unwrap_or_default();
            writeln!(out, "{severity} {}/{}{line}: {text}", e.book, e.id).unwrap();
        }
    }
    for (edit, results) in run(&case).iter().enumerate() {
        if edit > 0 {
            writeln!(out, "edit {edit}").unwrap();
        }
        for r in results {
            render(r, &mut out);
        }
    }
    compare(&out, expected);
}

/// The messages the model receives, per shown request: `role origin: text`.
fn check_prompt(case: Value, expected: &str) {
    let mut out = String::new();
    for r in run(&read(case)).concat() {
        writeln!(out, "request {}", r.request).unwrap();
        for m in &r.messages {
            let origin = match m.origin {
                Origin::SystemPrompt => "prompt".to_string(),
                Origin::Entry { book, id } => format!("entry {book}/{id}"),
                Origin::Chat { index } => format!("msg {index}"),
            };
            let text = match &*m.content {
                DEFAULT_SYSTEM_PROMPT => "(the default system prompt)".to_string(),
                text => format!("{text:?}"),
            };
            writeln!(out, "{} {origin}: {text}", m.role).unwrap();
        }
    }
    compare(&out, expected);
}

/// Every distinct `in`/`out` line over the seeds, sorted.
fn check_seeds(case: Value, seeds: Range<u64>, expected: &str) {
    let case = read(case);
    let mut lines = BTreeSet::new();
    for seed in seeds {
        let mut seeded = case.clone();
        seeded.settings.seed = seed;
        for r in run(&seeded).concat() {
            let mut out = String::new();
            render(&r, &mut out);
            lines.extend(out.lines().skip(1).map(String::from));
        }
    }
    compare(&lines.into_iter().collect::<Vec<_>>().join("\n"), expected);
}

/// One request: its header line, an `in` line per injected entry in
/// placement order, an `out` line per dropped entry by book and id.
fn render(r: &RequestResult, out: &mut String) {
    let b = &r.budget;
    write!(out, "request {}: {}/{} tokens", r.request, b.used, b.limit).unwrap();
    if r.passes > 0 {
        write!(out, ", {} passes", r.passes).unwrap();
    }
    if b.constants > 0 {
        write!(out, ", constants {}", b.constants).unwrap();
    }
    if b.over_by_constants {
        out.push_str(", over by constants");
    }
    if let Some(cut) = b.first_cut {
        write!(out, ", first cut {}/{}", cut.book, cut.id).unwrap();
    }
    out.push('\n');
    for i in &r.injected {
        write!(out, "in {}/{} {}", i.book, i.id, activation(&i.reason)).unwrap();
        if i.order != 100 {
            write!(out, ", order {}", i.order).unwrap();
        }
        if i.priority != 100 {
            write!(out, ", priority {}", i.priority).unwrap();
        }
        if i.role != Role::System {
            write!(out, ", role {}", i.role.as_str()).unwrap();
        }
        if let Some(roll) = i.roll {
            write!(out, ", chance {}%", roll.chance).unwrap();
        }
        out.push('\n');
    }
    for d in &r.dropped {
        let why = match &d.reason {
            DropReason::Disabled => "disabled".to_string(),
            DropReason::Gated { decorator, detail } => format!("gated by @@{decorator}: {detail}"),
            DropReason::NoMatch {
                recursion_stopped,
                no_keys,
                gave_up,
            } => {
                let mut s = "no match".to_string();
                if *no_keys {
                    s += ", no keys";
                }
                if *recursion_stopped {
                    s += ", recursion stopped";
                }
                if let Some(key) = gave_up {
                    s += &format!(", gave up on {key:?}");
                }
                s
            }
            DropReason::Secondary {
                logic,
                primary,
                matched,
            } => {
                let matched: String = matched.iter().map(|m| format!(" & {}", key(m))).collect();
                format!("secondary {logic} failed: {}{matched}", key(primary))
            }
            DropReason::Probability {
                chance,
                activation: a,
                ..
            } => {
                format!("probability {chance}% ({})", activation(a))
            }
            DropReason::Budget {
                needed,
                left,
                activation: a,
            } => format!("budget: needs {needed}, {left} left ({})", activation(a)),
        };
        writeln!(out, "out {}/{} {why}", d.book, d.id).unwrap();
    }
}

fn activation(a: &Activation) -> String {
    match a {
        Activation::Constant => "constant".to_string(),
        Activation::Kept { since_request } => format!("kept since request {since_request}"),
        Activation::Key { primary, secondary } => {
            let secondary: String = secondary.iter().map(|m| format!(" & {}", key(m))).collect();
            format!("{}{secondary}", key(primary))
        }
    }
}

fn key(m: &KeyMatch) -> String {
    let source = match m.source {
        Source::Message { index } => format!("msg {index}"),
        Source::Entry { book, id } => format!("body {book}/{id}"),
    };
    let pass = match m.pass {
        0 => String::new(),
        n => format!(" pass {n}"),
    };
    format!("{:?} {source} {}..{}{pass}", m.key, m.start, m.end)
}

/// Compares line by line, ignoring indentation and blank lines.
fn compare(actual: &str, expected: &str) {
    let lines = |s: &str| -> Vec<String> {
        (s.lines().map(str::trim))
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect()
    };
    let (actual, expected) = (lines(actual), lines(expected));
    assert!(
        actual == expected,
        "\n--- expected\n{}\n--- actual\n{}\n",
        expected.join("\n"),
        actual.join("\n")
    );
}

// §6 step 1.
#[test]
fn disabled_entries_never_fire() {
    check(
        json!({"chat": "User: the moon", "books": [[
            {"keys": ["moon"], "content": "Moon lore.", "enabled": false},
            {"content": "Constant lore.", "constant": true, "enabled": false}
        ]]}),
        r#"
        request 1: 0/800 tokens
        out 0/0 disabled
        out 0/1 disabled
        "#,
    );
}

// §6 step 2 and §3: the gates.
#[test]
fn activate_only_after_counts_history_messages() {
    check(
        json!({"chat": "User: moon\nAria: moon\nUser: moon", "at": [2, 3], "books": [[
            {"keys": ["moon"], "content": "@@activate_only_after 3\nLore."}
        ]]}),
        r#"
        request 2: 0/800 tokens
        out 0/0 gated by @@activate_only_after: needs 3 messages in the history; it has 2
        request 3: 2/800 tokens
        in 0/0 "moon" msg 2 0..4
        "#,
    );
}

#[test]
fn activate_only_every_needs_a_multiple() {
    check(
        json!({"chat": "User: moon\nAria: moon\nUser: moon\nAria: moon", "at": [1, 2, 3, 4],
               "books": [[{"keys": ["moon"], "content": "@@activate_only_every 2\nLore."}]]}),
        r#"
        request 1: 0/800 tokens
        out 0/0 gated by @@activate_only_every: the history has 1 messages, not a multiple of 2
        request 2: 2/800 tokens
        in 0/0 "moon" msg 1 0..4
        request 3: 0/800 tokens
        out 0/0 gated by @@activate_only_every: the history has 3 messages, not a multiple of 2
        request 4: 2/800 tokens
        in 0/0 "moon" msg 3 0..4
        "#,
    );
}

#[test]
fn is_greeting_only_before_the_first_user_message() {
    check(
        json!({"chat": "Aria: the moon rises\nUser: the moon", "at": [1, 2],
               "books": [[{"keys": ["moon"], "content": "@@is_greeting\nLore."}]]}),
        r#"
        request 1: 2/800 tokens
        in 0/0 "moon" msg 0 4..8
        request 2: 0/800 tokens
        out 0/0 gated by @@is_greeting: the chat already has a user message
        "#,
    );
}

// Card v3's `@@is_greeting N`: the argument is accepted (no diagnostic)
// and the gate is the one without it; a bad argument is a diagnostic and
// the line does not apply.
#[test]
fn is_greeting_accepts_a_greeting_number() {
    check(
        json!({"chat": "Aria: the moon rises\nUser: the moon", "at": [1, 2],
               "books": [[{"keys": ["moon"], "content": "@@is_greeting 0\nLore."}]]}),
        r#"
        request 1: 2/800 tokens
        in 0/0 "moon" msg 0 4..8
        request 2: 0/800 tokens
        out 0/0 gated by @@is_greeting: the chat already has a user message
        "#,
    );
    let ok = lorebook_engine::decorators::parse("@@is_greeting 2\nLore.");
    assert!(ok.diagnostics.is_empty() && ok.decorators.is_greeting);
    let bad = lorebook_engine::decorators::parse("@@is_greeting first\nLore.");
    assert!(!bad.decorators.is_greeting);
    assert_eq!(bad.diagnostics.len(), 1);
}

// `check` also asserts that each request equals the log's.
#[test]
fn dont_activate_after_match_carries_across_requests() {
    check(
        json!({"chat": "User: hello\nAria: the moon\nUser: moon again", "at": [1, 2, 3],
               "books": [[{"keys": ["moon"], "content": "@@dont_activate_after_match\nLore."}]]}),
        r#"
        request 1: 0/800 tokens
        out 0/0 no match
        request 2: 2/800 tokens
        in 0/0 "moon" msg 1 4..8
        request 3: 0/800 tokens
        out 0/0 gated by @@dont_activate_after_match: already matched in request 2
        "#,
    );
}

// §6 step 3. Request 0 is the empty chat.
#[test]
fn constants_skip_the_key_check() {
    check(
        json!({"chat": "User: nothing relevant", "at": [0, 1], "books": [[
            {"content": "Always here.", "constant": true},
            {"content": "x"}
        ]]}),
        r#"
        warning 0/1: no keys: this entry can never activate (make it constant or add a key)
        request 0: 3/800 tokens, constants 3
        in 0/0 constant
        out 0/1 no match, no keys
        request 1: 3/800 tokens, constants 3
        in 0/0 constant
        out 0/1 no match, no keys
        "#,
    );
}

// Depth 4: by request 6 the moon message is out of every window.
#[test]
fn keep_stays_active_without_its_keys() {
    check(
        json!({"chat": "User: the moon\nAria: hello\nUser: bye\nAria: ok\nUser: fine\nAria: yes",
               "at": [1, 6], "books": [[
            {"keys": ["moon"], "content": "@@keep\nLore."},
            {"keys": ["moon"], "content": "Plain."},
            {"keys": ["moon"], "content": "@@keep_activate_after_match\nLore."}
        ]]}),
        r#"
        request 1: 6/800 tokens
        in 0/0 "moon" msg 0 4..8
        in 0/1 "moon" msg 0 4..8
        in 0/2 "moon" msg 0 4..8
        request 6: 4/800 tokens
        in 0/0 kept since request 1
        in 0/2 kept since request 1
        out 0/1 no match
        "#,
    );
}

// Entry 1 is cut by the budget in request 1, but it matched, so
// @@dont_activate_after_match gates it in request 2.
#[test]
fn a_budget_cut_does_not_undo_a_match() {
    check(
        json!({"chat": "User: moon\nAria: moon", "at": [1, 2],
               "books": [{"token_budget": 100, "entries": [
            {"keys": ["moon"], "content": format!("@@priority 200\n{}", "word ".repeat(150)),
             "constant": true},
            {"keys": ["moon"], "content": "@@dont_activate_after_match\nSmall."}
        ]}]}),
        r#"
        request 1: 151/100 tokens, constants 151, over by constants, first cut 0/1
        in 0/0 constant, priority 200
        out 0/1 budget: needs 2, 0 left ("moon" msg 0 0..4)
        request 2: 151/100 tokens, constants 151, over by constants
        in 0/0 constant, priority 200
        out 0/1 gated by @@dont_activate_after_match: already matched in request 1
        "#,
    );
}

// §5 and §6 step 4: the chat window. Three books of depth 4, 5 and 0
// (nothing, not even the last message).
#[test]
fn scan_depth_window() {
    let depth =
        |d: u32| json!({"scan_depth": d, "entries": [{"keys": ["moon"], "content": "Lore."}]});
    check(
        json!({"chat": "User: the moon\nAria: a\nUser: b\nAria: c\nUser: d", "at": [1, 5],
               "books": [depth(4), depth(5), depth(0)]}),
        r#"
        request 1: 4/800 tokens
        in 0/0 "moon" msg 0 4..8
        in 1/0 "moon" msg 0 4..8
        out 2/0 no match
        request 5: 2/800 tokens
        in 1/0 "moon" msg 0 4..8
        out 0/0 no match
        out 2/0 no match
        "#,
    );
}

#[test]
fn scan_depth_decorator_overrides_the_book() {
    check(
        json!({"chat": "User: the moon\nAria: a\nUser: b", "books": [{"scan_depth": 1, "entries": [
            {"keys": ["moon"], "content": "@@scan_depth 3\nLore."},
            {"keys": ["moon"], "content": "x"}
        ]}]}),
        r#"
        request 3: 2/800 tokens
        in 0/0 "moon" msg 0 4..8
        out 0/1 no match
        "#,
    );
}

#[test]
fn keys_never_match_across_messages_nor_speaker_names() {
    check(
        json!({"chat": "User: the red\nAria: moon rises", "books": [[
            {"keys": ["red moon"], "content": "x"},
            {"keys": ["Aria"], "content": "y"}
        ]]}),
        r#"
        request 2: 0/800 tokens
        out 0/0 no match
        out 0/1 no match
        "#,
    );
}

#[test]
fn the_explanation_names_the_most_recent_message() {
    check(
        json!({"chat": "User: moon\nAria: a moon",
               "books": [[{"keys": ["moon"], "content": "x"}]]}),
        r#"
        request 2: 1/800 tokens
        in 0/0 "moon" msg 1 2..6
        "#,
    );
}

#[test]
fn whole_words_and_case_from_the_entry() {
    check(
        json!({"chat": "User: o soldado", "books": [[
            {"keys": ["sol"], "content": "x"},
            {"keys": ["sol"], "content": "y", "whole_words": false},
            {"keys": ["Sol"], "content": "z", "case_sensitive": true}
        ]]}),
        r#"
        request 1: 1/800 tokens
        in 0/1 "sol" msg 0 2..5
        out 0/0 no match
        out 0/2 no match
        "#,
    );
}

// Depth 1: request 2 sees only "(bad".
#[test]
fn invalid_regex_is_a_diagnostic_and_other_keys_work() {
    check(
        json!({"chat": "User: (bad moon\nAria: (bad", "at": [1, 2],
               "books": [{"scan_depth": 1, "entries": [
            {"keys": ["/(bad/", "moon"], "content": "x"}
        ]}]}),
        r#"
        error 0/0: key "/(bad/" is an invalid regex: …
        request 1: 1/800 tokens
        in 0/0 "moon" msg 0 5..9
        request 2: 0/800 tokens
        out 0/0 no match
        "#,
    );
}

#[test]
fn entries_without_keys_never_match() {
    check(
        json!({"chat": "User: anything", "books": [[{"keys": ["", "  "], "content": "x"}]]}),
        r#"
        warning 0/0: no keys: this entry can never activate (make it constant or add a key)
        request 1: 0/800 tokens
        out 0/0 no match, no keys
        "#,
    );
}

// §5: secondary logic, one entry per logic with the secondary keys "star"
// and "sun". Depth 1, so request k sees message k alone.
#[test]
fn secondary_logic_table() {
    let logic = |l: &str| {
        json!({"keys": ["moon"], "content": "x", "selective": true,
               "secondary_keys": ["star", "sun"], "secondary_logic": l})
    };
    check(
        json!({"chat": "User: moon and star\nAria: moon alone\nUser: moon star sun\n\
                         Aria: moon and sun",
               "at": [1, 2, 3, 4], "books": [{"scan_depth": 1, "entries":
               [logic("and_any"), logic("and_all"), logic("not_any"), logic("not_all")]}]}),
        r#"
        request 1: 2/800 tokens
        in 0/0 "moon" msg 0 0..4 & "star" msg 0 9..13
        in 0/3 "moon" msg 0 0..4 & "star" msg 0 9..13
        out 0/1 secondary and_all failed: "moon" msg 0 0..4 & "star" msg 0 9..13
        out 0/2 secondary not_any failed: "moon" msg 0 0..4 & "star" msg 0 9..13
        request 2: 2/800 tokens
        in 0/2 "moon" msg 1 0..4
        in 0/3 "moon" msg 1 0..4
        out 0/0 secondary and_any failed: "moon" msg 1 0..4
        out 0/1 secondary and_all failed: "moon" msg 1 0..4
        request 3: 2/800 tokens
        in 0/0 "moon" msg 2 0..4 & "star" msg 2 5..9 & "sun" msg 2 10..13
        in 0/1 "moon" msg 2 0..4 & "star" msg 2 5..9 & "sun" msg 2 10..13
        out 0/2 secondary not_any failed: "moon" msg 2 0..4 & "star" msg 2 5..9 & "sun" msg 2 10..13
        out 0/3 secondary not_all failed: "moon" msg 2 0..4 & "star" msg 2 5..9 & "sun" msg 2 10..13
        request 4: 2/800 tokens
        in 0/0 "moon" msg 3 0..4 & "sun" msg 3 9..12
        in 0/3 "moon" msg 3 0..4 & "sun" msg 3 9..12
        out 0/1 secondary and_all failed: "moon" msg 3 0..4 & "sun" msg 3 9..12
        out 0/2 secondary not_any failed: "moon" msg 3 0..4 & "sun" msg 3 9..12
        "#,
    );
}

#[test]
fn secondary_may_match_in_another_message_of_the_window() {
    check(
        json!({"chat": "User: a star\nAria: the moon", "books": [[
            {"keys": ["moon"], "content": "x", "selective": true, "secondary_keys": ["star"]}
        ]]}),
        r#"
        request 2: 1/800 tokens
        in 0/0 "moon" msg 1 4..8 & "star" msg 0 2..6
        "#,
    );
}

#[test]
fn selective_without_secondary_keys_is_not_selective() {
    check(
        json!({"chat": "User: moon", "books": [[
            {"keys": ["moon"], "content": "x", "selective": true,
               "secondary_keys": [" "], "secondary_logic": "and_all"}]]}),
        r#"
        hint 0/0: selective without secondary keys: behaves as not selective
        request 1: 1/800 tokens
        in 0/0 "moon" msg 0 0..4
        "#,
    );
}

// §6 step 5 and §4: probability. `check_seeds` also asserts that a seed
// gives the same result every time, and each roll against its chance.
#[test]
fn probability_rolls_are_stable_and_bounded() {
    check_seeds(
        json!({"chat": "User: moon", "books": [[
            {"keys": ["moon"], "content": "@@probability 0\nnever"},
            {"keys": ["moon"], "content": "@@probability 100\nalways"},
            {"keys": ["moon"], "content": "@@probability 50\nsometimes"}
        ]]}),
        0..40,
        r#"
        in 0/1 "moon" msg 0 0..4, chance 100%
        in 0/2 "moon" msg 0 0..4, chance 50%
        out 0/0 probability 0% ("moon" msg 0 0..4)
        out 0/2 probability 50% ("moon" msg 0 0..4)
        "#,
    );
}

#[test]
fn a_failed_roll_is_not_scanned_by_recursion() {
    check(
        json!({"chat": "User: moon", "books": [{"recursive_scanning": true, "entries": [
            {"keys": ["moon"], "content": "@@probability 0\nThe star shines."},
            {"keys": ["star"], "content": "Star lore."}
        ]}]}),
        r#"
        request 1: 0/800 tokens
        out 0/0 probability 0% ("moon" msg 0 0..4)
        out 0/1 no match
        "#,
    );
}

// §6 step 6: recursion.
/// A book whose entry i is triggered by "k{i}" and whose body says "k{i+1}".
fn chain(recursive: bool, n: usize) -> Value {
    let entries: Vec<Value> = (0..n)
        .map(|i| json!({"keys": [format!("k{i}")], "content": format!("mentions k{}", i + 1)}))
        .collect();
    json!({"recursive_scanning": recursive, "entries": entries})
}

// 0/4's key is only in a body activated in the last pass.
#[test]
fn recursion_follows_bodies_for_at_most_three_passes() {
    check(
        json!({"chat": "User: k0", "books": [chain(true, 6)]}),
        r#"
        request 1: 12/800 tokens, 3 passes
        in 0/0 "k0" msg 0 0..2
        in 0/1 "k1" body 0/0 9..11 pass 1
        in 0/2 "k2" body 0/1 9..11 pass 2
        in 0/3 "k3" body 0/2 9..11 pass 3
        out 0/4 no match, recursion stopped
        out 0/5 no match
        "#,
    );
}

// Pass 2 activates nothing, so it stops; without a recursive book, no pass.
#[test]
fn recursion_stops_early_and_needs_a_recursive_book() {
    check(
        json!({"chat": "User: k0", "books": [chain(true, 2)]}),
        r#"
        request 1: 6/800 tokens, 2 passes
        in 0/0 "k0" msg 0 0..2
        in 0/1 "k1" body 0/0 9..11 pass 1
        "#,
    );
    check(
        json!({"chat": "User: k0", "books": [chain(false, 3)]}),
        r#"
        request 1: 3/800 tokens
        in 0/0 "k0" msg 0 0..2
        out 0/1 no match
        out 0/2 no match
        "#,
    );
}

// Book 0 recurses; book 1 does not. Book 1's body can feed book 0, but
// book 1's entries never activate from a body.
#[test]
fn recursion_only_for_entries_whose_own_book_recurses() {
    check(
        json!({"chat": "User: alpha zeta", "books": [
            {"recursive_scanning": true, "entries": [
                {"keys": ["alpha"], "content": "mentions beta"},
                {"keys": ["gamma"], "content": "g"}
            ]},
            [{"keys": ["beta"], "content": "mentions gamma"}, {"keys": ["zeta"], "content": "z"}]
        ]}),
        r#"
        request 1: 3/800 tokens, 1 passes
        in 0/0 "alpha" msg 0 0..5
        in 1/1 "zeta" msg 0 6..10
        out 0/1 no match
        out 1/0 no match
        "#,
    );
}

#[test]
fn recursion_matches_secondary_keys_in_bodies() {
    check(
        json!({"chat": "User: the sea and the tower",
               "books": [{"recursive_scanning": true, "entries": [
            {"keys": ["sea"], "content": "A storm gathers."},
            {"keys": ["tower"], "content": "Tower lore.", "selective": true,
             "secondary_keys": ["storm"]}
        ]}]}),
        r#"
        request 1: 7/800 tokens, 2 passes
        in 0/0 "sea" msg 0 4..7
        in 0/1 "tower" msg 0 16..21 & "storm" body 0/0 2..7 pass 1
        "#,
    );
}

// §6 step 7: budget. A body of 121 tokens: over the small book's budget
// alone, within the large one's once both are attached.
#[test]
fn the_largest_budget_wins() {
    let small = json!({"token_budget": 100,
                       "entries": [{"keys": ["moon"], "content": "word ".repeat(120)}]});
    check(
        json!({"chat": "User: moon", "books": [small]}),
        r#"
        request 1: 0/100 tokens, first cut 0/0
        out 0/0 budget: needs 121, 100 left ("moon" msg 0 0..4)
        "#,
    );
    check(
        json!({"chat": "User: moon", "books": [small, {"token_budget": 500}]}),
        r#"
        request 1: 121/500 tokens
        in 0/0 "moon" msg 0 0..4
        "#,
    );
}

// Entry 2 would fit, but the cut is strict.
#[test]
fn budget_cut_reports_needed_and_left() {
    check(
        json!({"chat": "User: moon", "books": [{"token_budget": 100, "entries": [
            {"keys": ["moon"], "content": format!("@@priority 300\n{}", "alpha ".repeat(60))},
            {"keys": ["moon"], "content": format!("@@priority 200\n{}", "beta ".repeat(60))},
            {"keys": ["moon"], "content": format!("@@priority 100\n{}", "gamma ".repeat(10))}
        ]}]}),
        r#"
        request 1: 61/100 tokens, first cut 0/1
        in 0/0 "moon" msg 0 0..4, priority 300
        out 0/1 budget: needs 61, 39 left ("moon" msg 0 0..4)
        out 0/2 budget: needs 11, 39 left ("moon" msg 0 0..4)
        "#,
    );
}

#[test]
fn constants_over_the_budget_are_kept_and_warned() {
    check(
        json!({"chat": "User: moon", "books": [{"token_budget": 100, "entries": [
            {"content": "stone ".repeat(200), "constant": true},
            {"keys": ["moon"], "content": "tiny"}
        ]}]}),
        r#"
        request 1: 201/100 tokens, constants 201, over by constants, first cut 0/1
        in 0/0 constant
        out 0/1 budget: needs 1, 0 left ("moon" msg 0 0..4)
        "#,
    );
}

#[test]
fn decorators_replace_order_and_priority() {
    check(
        json!({"chat": "User: moon", "books": [{"token_budget": 100, "entries": [
            {"keys": ["moon"], "content": format!("@@priority 1\n{}", "a ".repeat(80))},
            {"keys": ["moon"], "content": format!("@@priority 2\n{}", "b ".repeat(80))}
        ]}]}),
        r#"
        request 1: 81/100 tokens, first cut 0/0
        in 0/1 "moon" msg 0 0..4, priority 2
        out 0/0 budget: needs 81, 19 left ("moon" msg 0 0..4)
        "#,
    );
}

// §6 step 8: placement.
#[test]
fn placement_order_priority_book_id() {
    check(
        json!({"chat": "User: moon", "books": [
            [
                {"keys": ["moon"], "content": "a", "order": 10},
                {"keys": ["moon"], "content": "b", "order": 50},
                {"keys": ["moon"], "content": "c", "order": 10, "priority": 500},
                {"keys": ["moon"], "content": "@@order 50\nd"}
            ],
            [{"keys": ["moon"], "content": "@@order 50\ne"}]
        ]}),
        r#"
        request 1: 5/800 tokens
        in 0/1 "moon" msg 0 0..4, order 50
        in 0/3 "moon" msg 0 0..4, order 50
        in 1/0 "moon" msg 0 0..4, order 50
        in 0/2 "moon" msg 0 0..4, order 10, priority 500
        in 0/0 "moon" msg 0 0..4, order 10
        "#,
    );
}

// §6 step 9: injection. The default template: system prompt, lorebook, chat.
fn two_roles() -> Value {
    json!([[
        {"keys": ["moon"], "content": "@@role assistant\nFirst.", "order": 200},
        {"keys": ["moon"], "content": "Second.", "role": "user"}
    ]])
}

#[test]
fn each_entry_is_its_own_message_with_its_role() {
    check_prompt(
        json!({"chat": "User: moon", "books": two_roles()}),
        r#"
        request 1
        system prompt: (the default system prompt)
        assistant entry 0/0: "First."
        user entry 0/1: "Second."
        user msg 0: "moon"
        "#,
    );
}

// Moved past the last block.
#[test]
fn the_lorebook_slot_can_move() {
    check_prompt(
        json!({"chat": "User: moon", "books": two_roles(), "lorebook_at": 3}),
        r#"
        request 1
        system prompt: (the default system prompt)
        user msg 0: "moon"
        assistant entry 0/0: "First."
        user entry 0/1: "Second."
        "#,
    );
}

#[test]
fn comments_are_never_sent() {
    check_prompt(
        json!({"chat": "User: moon", "books": [[
            {"keys": ["moon"], "content": "Body.", "comment": "SECRET NAME"}
        ]]}),
        r#"
        request 1
        system prompt: (the default system prompt)
        system entry 0/0: "Body."
        user msg 0: "moon"
        "#,
    );
}

// §4: requests.
#[test]
fn request_k_sees_the_first_k_messages() {
    check(
        json!({"chat": "User: hi\nAria: moon", "at": [0, 1, 2],
               "books": [[{"keys": ["moon"], "content": "x"}]]}),
        r#"
        request 0: 0/800 tokens
        out 0/0 no match
        request 1: 0/800 tokens
        out 0/0 no match
        request 2: 1/800 tokens
        in 0/0 "moon" msg 1 0..4
        "#,
    );
}

// `check` asserts one result per request, each equal to that request alone.
#[test]
fn the_log_has_one_result_per_request() {
    check(
        json!({"chat": "User: a\nAria: k0\nUser: b", "at": [1, 2, 3], "books": [chain(true, 4)]}),
        r#"
        request 1: 0/800 tokens
        out 0/0 no match
        out 0/1 no match
        out 0/2 no match
        out 0/3 no match
        request 2: 12/800 tokens, 3 passes
        in 0/0 "k0" msg 1 0..2
        in 0/1 "k1" body 0/0 9..11 pass 1
        in 0/2 "k2" body 0/1 9..11 pass 2
        in 0/3 "k3" body 0/2 9..11 pass 3
        request 3: 12/800 tokens, 3 passes
        in 0/0 "k0" msg 1 0..2
        in 0/1 "k1" body 0/0 9..11 pass 1
        in 0/2 "k2" body 0/1 9..11 pass 2
        in 0/3 "k3" body 0/2 9..11 pass 3
        "#,
    );
}

#[test]
fn editing_a_message_changes_only_what_it_should() {
    check(
        json!({"chat": "User: moon\nAria: nothing",
               "edits": ["User: moon\nAria: the sun", "User: no\nAria: the sun"],
               "books": [[{"keys": ["moon"], "content": "x"}, {"keys": ["sun"], "content": "y"}]]}),
        r#"
        request 2: 1/800 tokens
        in 0/0 "moon" msg 0 0..4
        out 0/1 no match
        edit 1
        request 2: 2/800 tokens
        in 0/0 "moon" msg 0 0..4
        in 0/1 "sun" msg 1 4..7
        edit 2
        request 2: 1/800 tokens
        in 0/1 "sun" msg 1 4..7
        out 0/0 no match
        "#,
    );
}
