//! The lint checks of issue 20 (docs/lint.md), one data-driven case per
//! check: a book that triggers it and one that must not.

use lorebook_engine::chat::{self, Message};
use lorebook_engine::diagnostic::Severity;
use lorebook_engine::formats;
use lorebook_engine::lint::{self, EntryRef, Fix, LintContext, LintRules, Problem, Span};
use lorebook_engine::model::{Book, Entry};
use lorebook_engine::preview::{Preview, Settings};
use lorebook_engine::sillytavern::StSettings;
use lorebook_engine::tokenizer::{Encoding, TokenCounter};
use proptest::prelude::*;
use serde_json::json;

fn e(keys: &[&str], content: &str) -> Entry {
    Entry {
        keys: keys.iter().map(|k| k.to_string()).collect(),
        content: content.into(),
        ..Entry::default()
    }
}

fn book(entries: Vec<Entry>) -> Book {
    let mut b = Book::default();
    for x in entries {
        let id = b.next_id();
        b.entries.push(Entry { id, ..x });
    }
    b
}

fn st() -> LintRules {
    LintRules::SillyTavern {
        settings: StSettings::default(),
        max_context: 8192,
        macros: Default::default(),
    }
}

fn run(books: &[Book], rules: LintRules, chat: Option<&[Message]>) -> Vec<Problem> {
    let cx = LintContext::new(books, rules, &[]);
    lint::lint(
        &cx,
        books,
        &mut TokenCounter::new(Encoding::O200kBase),
        chat,
    )
}

fn with(problems: &[Problem], code: &str) -> Vec<Problem> {
    problems
        .iter()
        .filter(|p| p.code() == code)
        .cloned()
        .collect()
}

/// Asserts the problems with `code` are on exactly `ids` (book 0), with
/// `severity`.
fn expect(problems: &[Problem], code: &str, ids: &[u64], severity: Severity) {
    let got = with(problems, code);
    let on: Vec<u64> = got.iter().map(|p| p.entry.id).collect();
    assert_eq!(on, ids, "{code}: {problems:#?}");
    for p in &got {
        assert_eq!(p.severity, severity, "{p:?}");
        assert!(!p.to_string().is_empty());
    }
}

fn none(problems: &[Problem], code: &str) {
    expect(problems, code, &[], Severity::Hint);
}

fn chat_of(text: &str) -> Vec<Message> {
    chat::parse(text, &Default::default()).unwrap().messages
}

#[test]
fn key_never_matches_an_empty_key_and_not_symbol_edges() {
    let p = run(
        &[book(vec![e(&["  ", "moon"], "The moon.")])],
        LintRules::Studio,
        None,
    );
    expect(&p, "key_never_matches", &[0], Severity::Warning);
    let problem = &with(&p, "key_never_matches")[0];
    assert_eq!(
        problem.span,
        Span::Key {
            secondary: false,
            index: 0
        }
    );
    let mut fixed = e(&["  ", "moon"], "The moon.");
    assert!(problem.fix.as_ref().unwrap().apply(&mut fixed));
    assert_eq!(fixed.keys, ["moon"]);
    // Keys with non-word edges and case-sensitive keys do match under
    // both rule sets: nothing to report.
    for rules in [LintRules::Studio, st()] {
        let b = book(vec![
            e(&["#tag", "C++"], "Tags."),
            Entry {
                case_sensitive: true,
                ..e(&["Sun"], "Sun.")
            },
        ]);
        none(&run(&[b], rules, None), "key_never_matches");
    }
}

#[test]
fn regex_invalid_is_an_error_in_studio_and_plain_text_in_sillytavern() {
    let b = book(vec![
        e(&["/(unclosed/"], "Body."),
        e(&["/dragons?/i"], "Dragons."),
    ]);
    let p = run(std::slice::from_ref(&b), LintRules::Studio, None);
    expect(&p, "regex_invalid", &[0], Severity::Error);
    let p = run(&[b], st(), None);
    expect(&p, "regex_invalid", &[0], Severity::Warning);
}

#[test]
fn regex_matches_empty() {
    let b = book(vec![e(&["/a*/"], "Body one."), e(&["/a+/"], "Body two.")]);
    for rules in [LintRules::Studio, st()] {
        expect(
            &run(std::slice::from_ref(&b), rules, None),
            "regex_matches_empty",
            &[0],
            Severity::Warning,
        );
    }
}

#[test]
fn key_too_common_without_a_chat() {
    let part = |keys: &[&str], body: &str| Entry {
        whole_words: false,
        ..e(keys, body)
    };
    let b = book(vec![
        e(&["a"], "One."),
        e(&["the"], "Two."),
        part(&["xy"], "Three."),
        e(&["ox", "lighthouse"], "Four."),
        e(&["que"], "Five."),
    ]);
    let p = run(&[b], LintRules::Studio, None);
    expect(&p, "key_too_common", &[0, 1, 2], Severity::Warning);
    // A Portuguese book: `que` is one of its stop words.
    let pt = book(vec![
        e(
            &["que"],
            "O rei e a rainha não dormem: é o que dizem da torre.",
        ),
        e(
            &["torre"],
            "A torre é de pedra e o rei vive nela com os seus.",
        ),
    ]);
    expect(
        &run(&[pt], LintRules::Studio, None),
        "key_too_common",
        &[0],
        Severity::Warning,
    );
}

#[test]
fn key_too_common_with_a_chat_is_measured_on_it() {
    let b = book(vec![
        e(&["moon"], "The moon."),
        e(&["sun"], "The sun."),
        e(&["a"], "A."),
    ]);
    let chat = chat_of(
        "User: the moon rises\nBot: a pale moon\nUser: moon again\nBot: and the sun\nUser: moonlight, moon",
    );
    let p = run(&[b], LintRules::Studio, Some(&chat));
    // `a` is a single letter, but the chat shows it matches in only one
    // message: measured, not guessed.
    expect(&p, "key_too_common", &[0], Severity::Warning);
}

#[test]
fn a_whitespace_key_matches_everything_in_sillytavern() {
    let b = book(vec![e(&["  ", "moon"], "The moon.")]);
    let p = run(std::slice::from_ref(&b), st(), None);
    expect(&p, "key_too_common", &[0], Severity::Warning);
    none(&p, "key_never_matches");
    expect(
        &run(&[b], LintRules::Studio, None),
        "key_never_matches",
        &[0],
        Severity::Warning,
    );
}

/// Issue 44: several entries sharing a key is how facets of one subject
/// are written (a hint, never badged); it is a warning, with its evidence,
/// when the sharers repeat each other or compete in one inclusion group.
#[test]
fn duplicate_key_is_a_hint_unless_the_sharers_repeat_each_other_or_share_a_group() {
    let effect = |p: &[Problem]| -> Vec<Option<lint::DuplicateEffect>> {
        with(p, "duplicate_key")
            .iter()
            .map(|p| match &p.finding {
                lint::Finding::DuplicateKey { effect, .. } => effect.clone(),
                _ => None,
            })
            .collect()
    };
    let b = book(vec![e(&["Dragon"], "Red."), e(&["dragon"], "Blue.")]);
    let p = run(&[b], LintRules::Studio, None);
    expect(&p, "duplicate_key", &[0, 1], Severity::Hint);
    assert_eq!(effect(&p), [None, None]);
    let grouped = |body: &str| {
        let mut x = e(&["dragon"], body);
        x.extensions.insert("group".into(), json!("beasts"));
        x
    };
    let b = book(vec![grouped("Red."), grouped("Blue.")]);
    let p = run(&[b], LintRules::Studio, None);
    expect(&p, "duplicate_key", &[0, 1], Severity::Warning);
    assert_eq!(
        effect(&p)[0],
        Some(lint::DuplicateEffect::SameGroup {
            group: "beasts".into()
        })
    );
    // One body holding the other whole (a sentence's worth): the key brings
    // the same text in twice.
    let long = "The red dragon sleeps on the gold of the old kings.";
    let b = book(vec![
        e(&["dragon"], long),
        e(&["dragon"], &format!("{long} It wakes at dusk.")),
    ]);
    let p = run(&[b], LintRules::Studio, None);
    expect(&p, "duplicate_key", &[0, 1], Severity::Warning);
    assert_eq!(
        effect(&p)[0],
        Some(lint::DuplicateEffect::SameText {
            other: lint::EntryRef { book: 0, id: 1 }
        })
    );
    // A short phrase inside another body is no repetition.
    let b = book(vec![
        e(&["dragon"], "Red."),
        e(&["dragon"], "Red. Blue. Green."),
    ]);
    expect(
        &run(&[b], LintRules::Studio, None),
        "duplicate_key",
        &[0, 1],
        Severity::Hint,
    );
    // Case-sensitive keys differ by case.
    let cs = |k: &str| Entry {
        case_sensitive: true,
        ..e(&[k], k)
    };
    none(
        &run(
            &[book(vec![cs("Rose"), cs("ROSE")])],
            LintRules::Studio,
            None,
        ),
        "duplicate_key",
    );
}

#[test]
fn key_contains_other_respects_word_boundaries() {
    let b = book(vec![
        e(&["dragon"], "Dragons."),
        e(&["dragon king"], "The king."),
        e(&["dragonfly"], "A fly."),
    ]);
    let p = run(&[b], LintRules::Studio, None);
    expect(&p, "key_contains_other", &[1], Severity::Hint);
    let found = &with(&p, "key_contains_other")[0];
    assert!(matches!(
        &found.finding,
        lint::Finding::KeyContainsOther { other, .. } if *other == EntryRef { book: 0, id: 0 }
    ));
    // With whole words off, `dragon` fires inside `dragonfly` too.
    let b = book(vec![
        Entry {
            whole_words: false,
            ..e(&["dragon"], "Dragons.")
        },
        e(&["dragonfly"], "A fly."),
    ]);
    expect(
        &run(&[b], LintRules::Studio, None),
        "key_contains_other",
        &[1],
        Severity::Hint,
    );
}

#[test]
fn flags_against_keys() {
    let b = book(vec![
        Entry {
            secondary_keys: vec!["night".into()],
            ..e(&["moon"], "One.")
        },
        Entry {
            selective: true,
            secondary_keys: vec!["night".into()],
            ..e(&["sun"], "Two.")
        },
        Entry {
            constant: true,
            ..e(&["star"], "Three.")
        },
        Entry {
            constant: true,
            ..e(&[], "Four.")
        },
        Entry {
            selective: true,
            ..e(&["comet"], "Five.")
        },
        e(&[], "Six."),
    ]);
    let p = run(std::slice::from_ref(&b), LintRules::Studio, None);
    expect(&p, "secondary_unused", &[0], Severity::Warning);
    expect(&p, "constant_with_keys", &[2], Severity::Hint);
    expect(&p, "selective_without_secondary", &[4], Severity::Hint);
    expect(&p, "no_keys", &[5], Severity::Warning);
    let fix = with(&p, "secondary_unused")[0].fix.clone().unwrap();
    assert_eq!(fix, Fix::ClearSecondaryKeys);
    // Under SillyTavern's rules `selective` without secondary keys is
    // how every plain entry is saved: nothing to say.
    none(&run(&[b], st(), None), "selective_without_secondary");
}

/// The false positive of issue 12: plain SillyTavern entries, imported,
/// have nothing to report under either rule set.
#[test]
fn a_plain_sillytavern_book_is_clean() {
    let imported = formats::import_value(json!({"entries": {
        "0": {"uid": 0, "key": ["apple"], "keysecondary": [], "selective": true,
              "content": "Apples are red.", "comment": "Apple", "position": 0, "order": 100},
        "1": {"uid": 1, "key": ["pear"], "keysecondary": [], "selective": true,
              "content": "Pears are green.", "comment": "Pear", "position": 0, "order": 100}
    }}))
    .unwrap();
    let books = [imported.book];
    for rules in [LintRules::Studio, st()] {
        let cx = LintContext::new(&books, rules.clone(), &[true]);
        let p = lint::lint(
            &cx,
            &books,
            &mut TokenCounter::new(Encoding::O200kBase),
            None,
        );
        assert!(p.is_empty(), "{rules:?}: {p:#?}");
        // Detected without being told, too.
        let cx = LintContext::new(&books, rules, &[]);
        let p = lint::lint(
            &cx,
            &books,
            &mut TokenCounter::new(Encoding::O200kBase),
            None,
        );
        assert!(p.is_empty(), "{p:#?}");
    }
}

#[test]
fn decorators_under_the_studio_rules() {
    let b = book(vec![
        e(&["a1"], "@@bogus\nOne."),
        e(&["a2"], "@@probability 500\nTwo."),
        e(&["a3"], "@@keep\n@@dont_activate_after_match\nThree."),
        e(&["a4"], "@@activate\nFour."),
        e(&["a5"], "@@probability 50\n@@keep\nFive."),
    ]);
    let p = run(&[b], LintRules::Studio, None);
    expect(&p, "decorator_unknown", &[0], Severity::Warning);
    expect(&p, "decorator_bad_argument", &[1], Severity::Error);
    expect(&p, "decorator_contradictory", &[2], Severity::Warning);
    expect(&p, "decorator_no_effect", &[3], Severity::Warning);
    // The fix deletes the decorator line with its line break.
    let unknown = &with(&p, "decorator_unknown")[0];
    let mut x = e(&["a1"], "@@bogus\nOne.");
    assert!(unknown.fix.as_ref().unwrap().apply(&mut x));
    assert_eq!(x.content, "One.");
    assert_eq!(unknown.span, Span::Content { start: 0, end: 7 });
}

#[test]
fn gates_no_request_of_the_chat_satisfies() {
    let b = || {
        book(vec![e(
            &["moon"],
            "@@activate_only_after 5\n@@activate_only_every 3\nBody.",
        )])
    };
    // Without a chat some request always satisfies both (6 is a multiple
    // of 3 and at least 5).
    none(
        &run(&[b()], LintRules::Studio, None),
        "decorator_contradictory",
    );
    // Five messages: request 5 passes the first, request 3 the second,
    // none both.
    let five = chat_of("User: a\nBot: b\nUser: c\nBot: d\nUser: e");
    expect(
        &run(&[b()], LintRules::Studio, Some(&five)),
        "decorator_contradictory",
        &[0],
        Severity::Warning,
    );
    let six = chat_of("User: a\nBot: b\nUser: c\nBot: d\nUser: e\nBot: f");
    none(
        &run(&[b()], LintRules::Studio, Some(&six)),
        "decorator_contradictory",
    );
}

#[test]
fn decorators_under_sillytavern_rules() {
    let b = book(vec![
        e(&["a1"], "@@probability 50\nOne."),
        e(&["a2"], "@@activate\nTwo."),
        e(&["a3"], "@@activate now\nThree."),
        e(&["a4"], "@@whatever\nFour."),
        e(&["a5"], "@@activate\n@@dont_activate\nFive."),
    ]);
    let p = run(&[b], st(), None);
    expect(&p, "decorator_bad_argument", &[2], Severity::Warning);
    expect(&p, "decorator_unknown", &[3], Severity::Warning);
    expect(&p, "decorator_contradictory", &[4], Severity::Warning);
    let b = book(vec![
        e(&["a1"], "@@keep\nOne."),
        e(&["a2"], "@@activate\nTwo."),
    ]);
    let p = run(&[b], st(), None);
    // `@@keep` has no SillyTavern field; `@@probability` (entry 0 above)
    // becomes SillyTavern's own on export, so it is not reported.
    expect(&p, "decorator_no_effect", &[0], Severity::Warning);
    let fix = with(&p, "decorator_no_effect")[0].fix.clone().unwrap();
    let mut x = e(&["a1"], "@@keep\nOne.");
    assert!(fix.apply(&mut x));
    assert_eq!(x.content, "One.");
}

fn words(n: usize) -> String {
    (0..n).map(|i| format!("word{i} ")).collect()
}

fn budget_book(budget: u32, entries: Vec<Entry>) -> Book {
    Book {
        token_budget: budget,
        ..book(entries)
    }
}

#[test]
fn budget_checks() {
    let constant = |n: usize, extra: &str| Entry {
        constant: true,
        ..e(&[], &format!("{extra}{}", words(n)))
    };
    // An entry over the budget alone.
    let p = run(
        &[budget_book(
            100,
            vec![e(&["big"], &words(200)), e(&["small"], "Small.")],
        )],
        LintRules::Studio,
        None,
    );
    expect(&p, "entry_over_budget", &[0], Severity::Error);
    // Constants over half the budget, and over all of it.
    let tokens = TokenCounter::new(Encoding::O200kBase).count(&constant(70, "").content);
    let p = run(
        &[budget_book(
            tokens * 3 / 2,
            vec![constant(70, ""), e(&["xx"], "X.")],
        )],
        LintRules::Studio,
        None,
    );
    expect(&p, "constants_over_budget", &[0], Severity::Warning);
    let p = run(
        &[budget_book(100, vec![constant(40, ""), constant(40, "b ")])],
        LintRules::Studio,
        None,
    );
    // Reported on the largest constant.
    expect(&p, "constants_over_budget", &[1], Severity::Error);
    let p = run(
        &[budget_book(400, vec![constant(20, ""), e(&["x"], "X.")])],
        LintRules::Studio,
        None,
    );
    none(&p, "constants_over_budget");
    // never_survives: an always-active constant leaves too little room.
    let mut count = TokenCounter::new(Encoding::O200kBase);
    let fits_alone = count.count(&constant(150, "").content) + count.count(&words(200)) - 10;
    let p = run(
        &[budget_book(
            fits_alone,
            vec![constant(150, ""), e(&["mid"], &words(200)), e(&["x"], "X.")],
        )],
        LintRules::Studio,
        None,
    );
    expect(&p, "never_survives", &[1], Severity::Warning);
    // A constant that rolls is not always there: the entry can survive.
    let p = run(
        &[budget_book(
            fits_alone,
            vec![
                constant(150, "@@probability 50\n"),
                e(&["mid"], &words(200)),
            ],
        )],
        LintRules::Studio,
        None,
    );
    none(&p, "never_survives");
}

/// Under SillyTavern's rules the budget ranks by `order` alone: a constant
/// with a higher order that fills the budget leaves no room for an entry
/// below it, and none for an entry above it.
#[test]
fn never_survives_under_sillytavern_rules_follows_order() {
    let st_book = |lore_order: i64, x_order: i64, lore_extra: serde_json::Value| {
        let mut lore = json!({"uid": 0, "key": [], "keysecondary": [], "constant": true,
            "content": "lore ".repeat(2030), "comment": "Lore", "position": 0, "order": lore_order});
        if let (Some(o), Some(extra)) = (lore.as_object_mut(), lore_extra.as_object()) {
            o.extend(extra.clone());
        }
        let x = json!({"uid": 1, "key": ["dragon"], "keysecondary": [], "content": "dragon ".repeat(60),
            "comment": "Dragon", "position": 0, "order": x_order});
        formats::import_value(json!({"entries": {"0": lore, "1": x}}))
            .unwrap()
            .book
    };
    // The default settings: 25 % of 8,192 = 2,048 tokens.
    let mut count = TokenCounter::new(Encoding::O200kBase);
    let lore = count.count(&"lore ".repeat(2030));
    let x = count.count(&"dragon ".repeat(60));
    assert!(lore < 2048 && lore + x > 2048 + 2, "{lore} + {x}");
    let p = run(&[st_book(200, 100, json!({}))], st(), None);
    expect(&p, "never_survives", &[1], Severity::Warning);
    // Ranked above the constant, it is kept first.
    let p = run(&[st_book(200, 300, json!({}))], st(), None);
    none(&p, "never_survives");
    // A constant that rolls, or sits in an inclusion group, is not always there.
    let rolls = json!({"useProbability": true, "probability": 50});
    none(
        &run(&[st_book(200, 100, rolls)], st(), None),
        "never_survives",
    );
    let grouped = json!({"group": "weather"});
    none(
        &run(&[st_book(200, 100, grouped)], st(), None),
        "never_survives",
    );
}

#[test]
fn recursion_loops_and_chains_only_with_recursion_on() {
    let chain = |n: usize, recursive: bool| {
        let entries = (0..n)
            .map(|i| {
                let next = (i + 1) % n;
                e(&[&format!("name{i}")], &format!("It knows name{next}."))
            })
            .collect();
        Book {
            recursive_scanning: recursive,
            ..book(entries)
        }
    };
    let p = run(&[chain(3, true)], LintRules::Studio, None);
    // Issue 44: entries naming each other change nothing: a hint.
    expect(&p, "recursion_loop", &[0], Severity::Hint);
    let cycle = match &with(&p, "recursion_loop")[0].finding {
        lint::Finding::RecursionLoop { cycle, .. } => cycle.len(),
        _ => 0,
    };
    assert_eq!(cycle, 4, "0 → 1 → 2 → 0");
    none(
        &run(&[chain(3, false)], LintRules::Studio, None),
        "recursion_loop",
    );
    // A chain without a loop: the last entry does not mention the first.
    let open = |n: usize| {
        let mut b = chain(n, true);
        b.entries.last_mut().unwrap().content = "The end.".into();
        b
    };
    let p = run(&[open(5)], LintRules::Studio, None);
    expect(&p, "recursion_too_deep", &[0], Severity::Warning);
    let listed: Vec<u64> = match &with(&p, "recursion_too_deep")[0].finding {
        lint::Finding::RecursionTooDeep { chain, .. } => chain.iter().map(|r| r.id).collect(),
        _ => Vec::new(),
    };
    let ids: Vec<u64> = open(5).entries.iter().map(|e| e.id).collect();
    assert_eq!(
        listed, ids,
        "the chain from its start to the first link past the limit"
    );
    none(&p, "recursion_loop");
    none(
        &run(&[open(4)], LintRules::Studio, None),
        "recursion_too_deep",
    );
    // A shortcut from the start to the last link: it is one pass away.
    let mut short = open(5);
    short.entries[0].content = "It knows name1 and name4.".into();
    none(
        &run(&[short], LintRules::Studio, None),
        "recursion_too_deep",
    );
    // Entries in a loop are as many passes apart as the loop is long, not
    // as many as the loop has members (a loop of 6 where each entry also
    // mentions the one after next reaches every entry within 3 passes).
    let mut skip = chain(6, true);
    for (i, e) in skip.entries.iter_mut().enumerate() {
        e.content = format!("It knows name{} and name{}.", (i + 1) % 6, (i + 2) % 6);
    }
    let p = run(&[skip], LintRules::Studio, None);
    expect(&p, "recursion_loop", &[0], Severity::Hint);
    none(&p, "recursion_too_deep");
}

#[test]
fn content_empty_duplicate_and_names() {
    let named = |name: &str, key: &str, body: &str| Entry {
        comment: name.into(),
        ..e(&[key], body)
    };
    let b = book(vec![
        named("Moon", "k1", "@@probability 50\n"),
        named("Sun", "k2", "The same text."),
        named("Star", "k3", "The same text."),
        named("Moon", "k4", "Different."),
    ]);
    let p = run(&[b], LintRules::Studio, None);
    expect(&p, "content_empty", &[0], Severity::Warning);
    expect(&p, "content_duplicate", &[1, 2], Severity::Warning);
    expect(&p, "name_duplicate", &[0, 3], Severity::Hint);
}

#[test]
fn the_codes_are_listed_and_travel_as_tags() {
    let p = run(
        &[book(vec![e(&["  ", "moon"], "The moon.")])],
        LintRules::Studio,
        None,
    );
    let v = serde_json::to_value(&p[0]).unwrap();
    assert_eq!(v["code"], "key_never_matches");
    assert_eq!(v["severity"], "warning");
    assert_eq!(
        v["span"],
        json!({"kind": "key", "secondary": false, "index": 0})
    );
    assert_eq!(
        v["fix"],
        json!({"kind": "remove_key", "secondary": false, "index": 0})
    );
    let back: Problem = serde_json::from_value(v).unwrap();
    assert_eq!(back, p[0]);
    for code in lint::CODES {
        assert!(code.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
    }
}

#[test]
fn entry_checks_alone_equal_the_full_run_for_that_entry() {
    // What an editor re-runs on each keystroke is what the full run says.
    let b = book(vec![
        e(&["  ", "/(x/"], "@@bogus\nBody."),
        Entry {
            secondary_keys: vec!["n".into()],
            ..e(&["moon"], "")
        },
    ]);
    let books = [b];
    let cx = LintContext::new(&books, LintRules::Studio, &[]);
    let full = run(&books, LintRules::Studio, None);
    for x in &books[0].entries {
        let alone = lint::check_entry(&cx, 0, x);
        let from_full: Vec<Problem> = full
            .iter()
            .filter(|p| p.entry.id == x.id)
            .cloned()
            .collect();
        assert_eq!(alone, from_full);
    }
}

#[test]
fn advice_applied_makes_the_entry_survive() {
    let b = budget_book(
        100,
        vec![
            Entry {
                priority: 200,
                ..e(&["alpha"], &words(45))
            },
            e(&["beta"], &words(45)),
        ],
    );
    let chat = chat_of("User: alpha and beta");
    let mut p = Preview::new(std::slice::from_ref(&b), Settings::default());
    let (cov, log) = lint::coverage(&mut p, &chat);
    assert_eq!(cov.entries[1].cut_by_budget, 1);
    assert_eq!(cov.entries[0].injected, 1);
    let a = lint::advise(&log, EntryRef { book: 0, id: 1 }).unwrap();
    assert_eq!(a.cut_in, [1]);
    let change = a.priority_change.unwrap();
    let lose = a.tokens_to_lose.unwrap();
    assert!(change > 100, "must rank above 200: {a:?}");
    // Applied, each is enough and one less is not.
    let kept = |priority: i64, trim: u32| {
        let mut b = b.clone();
        b.entries[1].priority = priority;
        let mut p = Preview::new(&[b.clone()], Settings::default());
        let mut body = b.entries[1].content.clone();
        while trim > 0 && p.count_tokens(&body) > a.tokens - trim {
            body.pop();
        }
        b.entries[1].content = body;
        let mut p = Preview::new(&[b], Settings::default());
        p.request(&chat, 1).injected.iter().any(|i| i.id == 1)
    };
    assert!(kept(100 + change, 0));
    assert!(!kept(100 + change - 1, 0));
    assert!(kept(100, lose));
    assert!(lint::advise(&log, EntryRef { book: 0, id: 0 }).is_none());
}

const VOCAB: &[&str] = &[
    "moon", "sun", "star", "tide", "wind", "salt", "iron", "rose",
];

fn arb_entry() -> impl Strategy<Value = Entry> {
    (
        0..VOCAB.len(),
        5usize..400,
        -3i64..3,
        prop::bool::weighted(0.15),
        prop::option::weighted(0.2, 10u8..90),
    )
        .prop_map(|(k, n, priority, constant, probability)| {
            let head = probability.map_or(String::new(), |p| format!("@@probability {p}\n"));
            Entry {
                keys: vec![VOCAB[k].into()],
                constant,
                priority,
                content: format!("{head}{}", words(n)),
                ..Entry::default()
            }
        })
}

fn arb_chat() -> impl Strategy<Value = Vec<Message>> {
    prop::collection::vec(prop::collection::vec(0..VOCAB.len(), 1..4), 1..6).prop_map(|ms| {
        let text: String = ms
            .iter()
            .enumerate()
            .map(|(i, ws)| {
                let who = if i % 2 == 0 { "User" } else { "Bot" };
                let said: Vec<&str> = ws.iter().map(|&w| VOCAB[w]).collect();
                format!("{who}: {}\n", said.join(" and "))
            })
            .collect();
        chat_of(&text)
    })
}

/// How many budget cuts the log of `chat` has at budget `budget`.
fn cuts(book: &Book, budget: u32, chat: &[Message]) -> usize {
    let b = Book {
        token_budget: budget,
        ..book.clone()
    };
    let mut p = Preview::new(&[b], Settings::default());
    p.log(chat)
        .iter()
        .flat_map(|r| &r.dropped)
        .filter(|d| {
            matches!(
                d.reason,
                lorebook_engine::explain::DropReason::Budget { .. }
            )
        })
        .count()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `budget_to_keep_all` is the smallest budget that cuts nothing:
    /// previewing the log again at it cuts nothing, one token less cuts
    /// something (inside the allowed range), and no budget in the range
    /// keeps all when it is `None`.
    #[test]
    fn budget_to_keep_all_is_the_smallest_that_cuts_nothing(
        entries in prop::collection::vec(arb_entry(), 1..10),
        chat in arb_chat(),
        budget in 100u32..600,
    ) {
        let b = budget_book(budget, entries);
        let mut p = Preview::new(std::slice::from_ref(&b), Settings::default());
        let (cov, _) = lint::coverage(&mut p, &chat);
        match cov.budget_to_keep_all {
            Some(keep) => {
                prop_assert_eq!(cuts(&b, keep, &chat), 0);
                if keep > 100 {
                    prop_assert!(cuts(&b, keep - 1, &chat) > 0);
                }
            }
            None => prop_assert!(cuts(&b, 32000, &chat) > 0),
        }
    }
}

// script.js substituteParams under each engine (macros/engine/MacroEngine.js,
// macros.js evaluateMacros): what a key or body keeps as written.
#[test]
fn macro_as_text_follows_the_macro_engine() {
    use lorebook_engine::sillytavern::macros::MacroEngine;
    let b = book(vec![
        e(&["storm"], "{{if .weather}}Wet.{{else}}Dry.{{/if}}"),
        e(&["{{usr}} waves"], "A wave."),
        e(&["{{user}} smiles"], "Plain {{char}} and {{getvar::x}}."),
        e(&["dice"], "You roll {{roll::1d20}}."),
    ]);
    let rules = |macros| LintRules::SillyTavern {
        settings: StSettings::default(),
        max_context: 8192,
        macros,
    };
    let new = run(std::slice::from_ref(&b), rules(MacroEngine::New), None);
    expect(
        &with(&new, "macro_as_text")
            .into_iter()
            .filter(|p| p.severity == Severity::Warning)
            .collect::<Vec<_>>(),
        "macro_as_text",
        &[1],
        Severity::Warning,
    );
    let legacy = run(std::slice::from_ref(&b), rules(MacroEngine::Legacy), None);
    let on: Vec<(u64, Severity)> = with(&legacy, "macro_as_text")
        .iter()
        .map(|p| (p.entry.id, p.severity))
        .collect();
    assert_eq!(
        on,
        [
            (0, Severity::Warning),
            (1, Severity::Warning),
            (3, Severity::Hint)
        ],
        "{legacy:#?}"
    );
    assert!(with(&legacy, "macro_as_text")[0]
        .to_string()
        .contains("legacy macro engine"));
    none(
        &run(std::slice::from_ref(&b), LintRules::Studio, None),
        "macro_as_text",
    );
}
