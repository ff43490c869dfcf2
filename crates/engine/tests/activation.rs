//! The guide's rules made executable (docs/semantics.md, cited as SPEC §3–§6): one small case per rule.
//!
//! Each test builds books with [`book`] / [`entry`], a chat in plain text,
//! runs a request and checks who is in, who is out, and why.

use lorebook_engine::explain::{Activation, DropReason, RequestResult, Source};
use lorebook_engine::model::{Book, Role, SecondaryLogic};
use lorebook_engine::preview::{Preview, Settings};
use lorebook_engine::prompt::{Block, Origin};
use lorebook_engine::tokenizer::Encoding;

mod common;
use common::{book, chat, entry};

fn run(books: &[Book], chat_text: &str) -> RequestResult {
    let c = chat(chat_text);
    Preview::new(books, Settings::default()).request(&c, c.len())
}

fn run_k(books: &[Book], chat_text: &str, k: usize) -> RequestResult {
    let c = chat(chat_text);
    Preview::new(books, Settings::default()).request(&c, k)
}

/// `(book, id)` of the injected entries, in placement order.
fn injected(r: &RequestResult) -> Vec<(usize, u64)> {
    r.injected.iter().map(|i| (i.book, i.id)).collect()
}

fn ids(r: &RequestResult) -> Vec<u64> {
    r.injected.iter().map(|i| i.id).collect()
}

fn reason(r: &RequestResult, book: usize, id: u64) -> &DropReason {
    &r.dropped
        .iter()
        .find(|d| d.book == book && d.id == id)
        .unwrap_or_else(|| panic!("entry {book}/{id} is not dropped: {r:#?}"))
        .reason
}

fn kind(r: &RequestResult, id: u64) -> &'static str {
    reason(r, 0, id).kind()
}

fn every_entry_once(books: &[Book], r: &RequestResult) {
    let total: usize = books.iter().map(|b| b.entries.len()).sum();
    assert_eq!(r.injected.len() + r.dropped.len(), total);
}

// §6 step 1.
#[test]
fn disabled_entries_never_fire() {
    let mut e = entry(0, &["moon"], "Moon lore.");
    e.enabled = false;
    let mut c = entry(1, &[], "Constant lore.");
    c.constant = true;
    c.enabled = false;
    let r = run(&[book(vec![e, c])], "User: the moon");
    assert_eq!(kind(&r, 0), "disabled");
    assert_eq!(kind(&r, 1), "disabled");
}

// §6 step 2 and §3: the gates.
#[test]
fn activate_only_after_counts_history_messages() {
    let b = [book(vec![entry(
        0,
        &["moon"],
        "@@activate_only_after 3\nLore.",
    )])];
    let text = "User: moon\nAria: moon\nUser: moon";
    let r = run_k(&b, text, 2);
    match reason(&r, 0, 0) {
        DropReason::Gated { decorator, .. } => assert_eq!(decorator, "activate_only_after"),
        other => panic!("{other:?}"),
    }
    assert_eq!(ids(&run_k(&b, text, 3)), vec![0]);
}

#[test]
fn activate_only_every_needs_a_multiple() {
    let b = [book(vec![entry(
        0,
        &["moon"],
        "@@activate_only_every 2\nLore.",
    )])];
    let text = "User: moon\nAria: moon\nUser: moon\nAria: moon";
    assert_eq!(kind(&run_k(&b, text, 1), 0), "gated");
    assert_eq!(ids(&run_k(&b, text, 2)), vec![0]);
    assert_eq!(kind(&run_k(&b, text, 3), 0), "gated");
    assert_eq!(ids(&run_k(&b, text, 4)), vec![0]);
}

#[test]
fn is_greeting_only_before_the_first_user_message() {
    let b = [book(vec![entry(0, &["moon"], "@@is_greeting\nLore.")])];
    let text = "Aria: the moon rises\nUser: the moon";
    assert_eq!(ids(&run_k(&b, text, 1)), vec![0]);
    assert_eq!(kind(&run_k(&b, text, 2), 0), "gated");
}

#[test]
fn dont_activate_after_match_carries_across_requests() {
    let b = [book(vec![entry(
        0,
        &["moon"],
        "@@dont_activate_after_match\nLore.",
    )])];
    let c = chat("User: hello\nAria: the moon\nUser: moon again");
    let mut p = Preview::new(&b, Settings::default());
    let log = p.log(&c);
    assert_eq!(kind(&log[0], 0), "no_match");
    assert_eq!(ids(&log[1]), vec![0]);
    match reason(&log[2], 0, 0) {
        DropReason::Gated { decorator, detail } => {
            assert_eq!(decorator, "dont_activate_after_match");
            assert!(detail.to_string().contains("request 2"), "{detail}");
        }
        other => panic!("{other:?}"),
    }
    // A single request computes the same state as the log.
    assert_eq!(p.request(&c, 3), log[2]);
    assert_eq!(Preview::new(&b, Settings::default()).request(&c, 3), log[2]);
}

// §6 step 3.
#[test]
fn constants_skip_the_key_check() {
    let mut c = entry(0, &[], "Always here.");
    c.constant = true;
    let r = run(&[book(vec![c])], "User: nothing relevant");
    assert_eq!(r.injected[0].reason, Activation::Constant);
    // Even with an empty chat (request 0).
    assert_eq!(
        ids(&run_k(&[book(vec![entry(0, &[], "x")])], "", 0)),
        Vec::<u64>::new()
    );
}

#[test]
fn keep_stays_active_without_its_keys() {
    let b = [book(vec![
        entry(0, &["moon"], "@@keep\nLore."),
        entry(1, &["moon"], "Plain."),
    ])];
    let c = chat("User: the moon\nAria: hello\nUser: bye\nAria: ok\nUser: fine\nAria: yes");
    let log = Preview::new(&b, Settings::default()).log(&c);
    assert_eq!(ids(&log[0]), vec![0, 1]);
    // Depth 4: by request 6 the moon message is out of every window.
    assert_eq!(kind(&log[5], 1), "no_match");
    assert_eq!(
        log[5].injected[0].reason,
        Activation::Kept { since_request: 1 }
    );
    let alias = [book(vec![entry(
        0,
        &["moon"],
        "@@keep_activate_after_match\nLore.",
    )])];
    let log = Preview::new(&alias, Settings::default()).log(&c);
    assert_eq!(ids(&log[5]), vec![0]);
}

#[test]
fn a_budget_cut_does_not_undo_a_match() {
    // Entry 1 is cut by the budget in request 1, but it matched, so
    // @@dont_activate_after_match gates it in request 2.
    let big = "word ".repeat(150);
    let mut b = book(vec![
        entry(0, &["moon"], &format!("@@priority 200\n{big}")),
        entry(1, &["moon"], "@@dont_activate_after_match\nSmall."),
    ]);
    b.token_budget = 100;
    b.entries[0].constant = true;
    let c = chat("User: moon\nAria: moon");
    let log = Preview::new(&[b], Settings::default()).log(&c);
    assert_eq!(kind(&log[0], 1), "budget");
    assert_eq!(kind(&log[1], 1), "gated");
}

// §5 and §6 step 4: the chat window.
#[test]
fn scan_depth_window() {
    let text = "User: the moon\nAria: a\nUser: b\nAria: c\nUser: d";
    let mut b = book(vec![entry(0, &["moon"], "Lore.")]);
    b.scan_depth = 4;
    assert_eq!(kind(&run(&[b.clone()], text), 0), "no_match");
    b.scan_depth = 5;
    assert_eq!(ids(&run(&[b.clone()], text)), vec![0]);
    b.scan_depth = 0;
    assert_eq!(
        kind(&run(&[b], "User: moon"), 0),
        "no_match",
        "depth 0 scans nothing"
    );
}

#[test]
fn scan_depth_decorator_overrides_the_book() {
    let text = "User: the moon\nAria: a\nUser: b";
    let mut b = book(vec![
        entry(0, &["moon"], "@@scan_depth 3\nLore."),
        entry(1, &["moon"], "x"),
    ]);
    b.scan_depth = 1;
    let r = run(&[b], text);
    assert_eq!(ids(&r), vec![0]);
    let Activation::Key { primary, .. } = &r.injected[0].reason else {
        panic!()
    };
    assert_eq!(primary.source, Source::Message { index: 0 });
    assert_eq!((primary.start, primary.end), (4, 8));
    assert_eq!(primary.pass, 0);
}

#[test]
fn keys_never_match_across_messages_nor_speaker_names() {
    let b = [book(vec![
        entry(0, &["red moon"], "x"),
        entry(1, &["Aria"], "y"),
    ])];
    let r = run(&b, "User: the red\nAria: moon rises");
    assert_eq!(kind(&r, 0), "no_match");
    assert_eq!(kind(&r, 1), "no_match", "speaker names are not scanned");
}

#[test]
fn the_explanation_names_the_most_recent_message() {
    let r = run(
        &[book(vec![entry(0, &["moon"], "x")])],
        "User: moon\nAria: a moon",
    );
    let Activation::Key { primary, .. } = &r.injected[0].reason else {
        panic!()
    };
    assert_eq!(primary.source, Source::Message { index: 1 });
    assert_eq!(primary.key, "moon");
    assert_eq!((primary.start, primary.end), (2, 6));
}

#[test]
fn whole_words_and_case_from_the_entry() {
    let mut partial = entry(1, &["sol"], "y");
    partial.whole_words = false;
    let mut case = entry(2, &["Sol"], "z");
    case.case_sensitive = true;
    let r = run(
        &[book(vec![entry(0, &["sol"], "x"), partial, case])],
        "User: o soldado",
    );
    assert_eq!(ids(&r), vec![1]);
    assert_eq!(kind(&r, 0), "no_match");
    assert_eq!(kind(&r, 2), "no_match");
}

#[test]
fn invalid_regex_is_a_diagnostic_and_other_keys_work() {
    let b = [book(vec![entry(0, &["/(bad/", "moon"], "x")])];
    let p = Preview::new(&b, Settings::default());
    let diag = &p.index().entries[0].diagnostics;
    assert!(
        diag.iter()
            .any(|d| d.message.to_string().contains("invalid regex")),
        "{diag:?}"
    );
    assert_eq!(ids(&run(&b, "User: (bad moon")), vec![0]);
    assert_eq!(kind(&run(&b, "User: (bad"), 0), "no_match");
}

#[test]
fn entries_without_keys_never_match() {
    let r = run(&[book(vec![entry(0, &["", "  "], "x")])], "User: anything");
    assert_eq!(
        reason(&r, 0, 0),
        &DropReason::NoMatch {
            recursion_stopped: false,
            no_keys: true,
            gave_up: None
        }
    );
}

// §5: secondary logic.
#[test]
fn secondary_logic_table() {
    // (logic, chat, activates)
    let cases = [
        (SecondaryLogic::AndAny, "User: moon and star", true),
        (SecondaryLogic::AndAny, "User: moon alone", false),
        (SecondaryLogic::AndAll, "User: moon star sun", true),
        (SecondaryLogic::AndAll, "User: moon and star", false),
        (SecondaryLogic::NotAny, "User: moon alone", true),
        (SecondaryLogic::NotAny, "User: moon and sun", false),
        (SecondaryLogic::NotAll, "User: moon and sun", true),
        (SecondaryLogic::NotAll, "User: moon star sun", false),
        (SecondaryLogic::NotAll, "User: moon alone", true),
    ];
    for (logic, text, activates) in cases {
        let mut e = entry(0, &["moon"], "x");
        e.selective = true;
        e.secondary_keys = vec!["star".into(), "sun".into()];
        e.secondary_logic = logic;
        let r = run(&[book(vec![e])], text);
        assert_eq!(!r.injected.is_empty(), activates, "{logic:?} on {text:?}");
        if !activates {
            assert_eq!(kind(&r, 0), "secondary", "{logic:?} on {text:?}");
        }
    }
}

#[test]
fn secondary_may_match_in_another_message_of_the_window() {
    let mut e = entry(0, &["moon"], "x");
    e.selective = true;
    e.secondary_keys = vec!["star".into()];
    let r = run(&[book(vec![e])], "User: a star\nAria: the moon");
    let Activation::Key { secondary, .. } = &r.injected[0].reason else {
        panic!()
    };
    assert_eq!(secondary[0].source, Source::Message { index: 0 });
}

#[test]
fn selective_without_secondary_keys_is_not_selective() {
    let mut e = entry(0, &["moon"], "x");
    e.selective = true;
    e.secondary_keys = vec![" ".into()];
    e.secondary_logic = SecondaryLogic::AndAll;
    let b = [book(vec![e])];
    assert_eq!(ids(&run(&b, "User: moon")), vec![0]);
    let p = Preview::new(&b, Settings::default());
    assert!(p.index().entries[0].diagnostics.iter().any(|d| d
        .message
        .to_string()
        .contains("selective without secondary keys")));
}

// §6 step 5 and §4: probability.
#[test]
fn probability_rolls_are_stable_and_bounded() {
    let b = [book(vec![
        entry(0, &["moon"], "@@probability 0\nnever"),
        entry(1, &["moon"], "@@probability 100\nalways"),
        entry(2, &["moon"], "@@probability 50\nsometimes"),
    ])];
    let c = chat("User: moon");
    let mut outcomes = std::collections::HashSet::new();
    for seed in 0..40 {
        let settings = Settings {
            seed,
            ..Settings::default()
        };
        let r1 = Preview::new(&b, settings.clone()).request(&c, 1);
        let r2 = Preview::new(&b, settings).request(&c, 1);
        assert_eq!(r1, r2, "same seed, same result");
        assert_eq!(kind(&r1, 0), "probability");
        assert!(ids(&r1).contains(&1));
        match r1.dropped.iter().find(|d| d.id == 2).map(|d| &d.reason) {
            Some(DropReason::Probability { roll, chance, .. }) => {
                assert!(*roll >= *chance);
                outcomes.insert(false);
            }
            None => {
                let i = r1.injected.iter().find(|i| i.id == 2).unwrap();
                assert!(i.roll.unwrap().roll < 50);
                outcomes.insert(true);
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        outcomes.len(),
        2,
        "a 50% entry both passes and fails over 40 seeds"
    );
}

#[test]
fn a_failed_roll_is_not_scanned_by_recursion() {
    let mut b = book(vec![
        entry(0, &["moon"], "@@probability 0\nThe star shines."),
        entry(1, &["star"], "Star lore."),
    ]);
    b.recursive_scanning = true;
    let r = run(&[b], "User: moon");
    assert_eq!(kind(&r, 0), "probability");
    assert_eq!(kind(&r, 1), "no_match");
}

// §6 step 6: recursion.
fn chain(recursive: bool, n: u64) -> Book {
    // Entry i is triggered by "k{i}" and its body says "k{i+1}".
    let entries = (0..n)
        .map(|i| entry(i, &[&format!("k{i}")], &format!("mentions k{}", i + 1)))
        .collect();
    Book {
        recursive_scanning: recursive,
        ..book(entries)
    }
}

#[test]
fn recursion_follows_bodies_for_at_most_three_passes() {
    let r = run(&[chain(true, 6)], "User: k0");
    assert_eq!(ids(&r), vec![0, 1, 2, 3]);
    assert_eq!(r.passes, 3);
    for (id, pass) in [(0, 0), (1, 1), (2, 2), (3, 3)] {
        let i = r.injected.iter().find(|i| i.id == id).unwrap();
        assert_eq!(i.reason.pass(), pass, "entry {id}");
    }
    let Activation::Key { primary, .. } = &r.injected.iter().find(|i| i.id == 2).unwrap().reason
    else {
        panic!()
    };
    assert_eq!(primary.source, Source::Entry { book: 0, id: 1 });
    assert_eq!((primary.start, primary.end), (9, 11));
    assert_eq!(
        reason(&r, 0, 4),
        &DropReason::NoMatch {
            recursion_stopped: true,
            no_keys: false,
            gave_up: None
        },
        "its key is only in a body activated in the last pass"
    );
    assert_eq!(
        reason(&r, 0, 5),
        &DropReason::NoMatch {
            recursion_stopped: false,
            no_keys: false,
            gave_up: None
        }
    );
}

#[test]
fn recursion_stops_early_and_needs_a_recursive_book() {
    let r = run(&[chain(true, 2)], "User: k0");
    assert_eq!(r.passes, 2, "pass 2 activates nothing, so it stops");
    let r = run(&[chain(false, 3)], "User: k0");
    assert_eq!(ids(&r), vec![0]);
    assert_eq!(r.passes, 0);
}

#[test]
fn recursion_only_for_entries_whose_own_book_recurses() {
    // Book 0 recurses; book 1 does not. Book 1's body can feed book 0, but
    // book 1's entries never activate from a body.
    let b0 = Book {
        recursive_scanning: true,
        ..book(vec![
            entry(0, &["alpha"], "mentions beta"),
            entry(1, &["gamma"], "g"),
        ])
    };
    let b1 = book(vec![
        entry(0, &["beta"], "mentions gamma"),
        entry(1, &["zeta"], "z"),
    ]);
    let r = run(&[b0, b1], "User: alpha zeta");
    assert_eq!(injected(&r), vec![(0, 0), (1, 1)]);
    assert_eq!(reason(&r, 1, 0).kind(), "no_match");
}

#[test]
fn recursion_matches_secondary_keys_in_bodies() {
    let mut e = entry(1, &["tower"], "Tower lore.");
    e.selective = true;
    e.secondary_keys = vec!["storm".into()];
    let b = Book {
        recursive_scanning: true,
        ..book(vec![entry(0, &["sea"], "A storm gathers."), e])
    };
    let r = run(&[b], "User: the sea and the tower");
    assert_eq!(ids(&r), vec![0, 1]);
    let Activation::Key { secondary, .. } = &r.injected[1].reason else {
        panic!()
    };
    assert_eq!(secondary[0].source, Source::Entry { book: 0, id: 0 });
    assert_eq!(secondary[0].pass, 1);
}

// §6 step 7: budget.
fn tokens(text: &str) -> u32 {
    Encoding::O200kBase.count(text)
}

#[test]
fn the_largest_budget_wins() {
    let body = "word ".repeat(120);
    let small = Book {
        token_budget: 100,
        ..book(vec![entry(0, &["moon"], &body)])
    };
    let large = Book {
        token_budget: 500,
        ..book(vec![])
    };
    assert_eq!(
        kind(&run(std::slice::from_ref(&small), "User: moon"), 0),
        "budget"
    );
    let r = run(&[small, large], "User: moon");
    assert_eq!(r.budget.limit, 500);
    assert_eq!(injected(&r), vec![(0, 0)]);
    assert_eq!(r.budget.used, tokens(&body));
}

#[test]
fn budget_cut_reports_needed_and_left() {
    let a = "alpha ".repeat(60);
    let b = "beta ".repeat(60);
    let c = "gamma ".repeat(10);
    let mut bk = book(vec![
        entry(0, &["moon"], &format!("@@priority 300\n{a}")),
        entry(1, &["moon"], &format!("@@priority 200\n{b}")),
        entry(2, &["moon"], &format!("@@priority 100\n{c}")),
    ]);
    bk.token_budget = 100;
    let r = run(&[bk], "User: moon");
    assert_eq!(ids(&r), vec![0]);
    let left = 100 - tokens(&a);
    assert_eq!(
        reason(&r, 0, 1),
        &DropReason::Budget {
            needed: tokens(&b),
            left,
            activation: match reason(&r, 0, 1) {
                DropReason::Budget { activation, .. } => activation.clone(),
                _ => unreachable!(),
            }
        }
    );
    // Entry 2 would fit, but the cut is strict.
    assert_eq!(kind(&r, 2), "budget");
}

#[test]
fn constants_over_the_budget_are_kept_and_warned() {
    let mut c = entry(0, &[], &"stone ".repeat(200));
    c.constant = true;
    let b = Book {
        token_budget: 100,
        ..book(vec![c, entry(1, &["moon"], "tiny")])
    };
    let r = run(&[b], "User: moon");
    assert_eq!(ids(&r), vec![0]);
    assert!(r.budget.over_by_constants);
    assert_eq!(kind(&r, 1), "budget");
}

#[test]
fn decorators_replace_order_and_priority() {
    let mut bk = book(vec![
        entry(0, &["moon"], &format!("@@priority 1\n{}", "a ".repeat(80))),
        entry(1, &["moon"], &format!("@@priority 2\n{}", "b ".repeat(80))),
    ]);
    bk.token_budget = 100;
    assert_eq!(ids(&run(&[bk], "User: moon")), vec![1]);
}

// §6 step 8: placement.
#[test]
fn placement_order_priority_book_id() {
    let mut e0 = entry(0, &["moon"], "a");
    e0.order = 10;
    let mut e1 = entry(1, &["moon"], "b");
    e1.order = 50;
    let mut e2 = entry(2, &["moon"], "c");
    e2.order = 10;
    e2.priority = 500;
    let e3 = entry(3, &["moon"], "@@order 50\nd");
    let other = book(vec![entry(0, &["moon"], "@@order 50\ne")]);
    let r = run(&[book(vec![e0, e1, e2, e3]), other], "User: moon");
    assert_eq!(injected(&r), vec![(0, 1), (0, 3), (1, 0), (0, 2), (0, 0)]);
}

// §6 step 9: injection.
#[test]
fn each_entry_is_its_own_message_with_its_role() {
    let mut e0 = entry(0, &["moon"], "@@role assistant\nFirst.");
    e0.order = 200;
    let mut e1 = entry(1, &["moon"], "Second.");
    e1.role = Role::User;
    let b = [book(vec![e0, e1])];
    let r = run(&b, "User: moon");
    let lore: Vec<_> = r
        .messages
        .iter()
        .filter(|m| matches!(m.origin, Origin::Entry { .. }))
        .map(|m| (m.role, &*m.content))
        .collect();
    assert_eq!(lore, vec![("assistant", "First."), ("user", "Second.")]);
    assert_eq!(r.messages[0].origin, Origin::SystemPrompt);
    assert_eq!(&*r.messages.last().unwrap().content, "moon");
    assert!(
        !r.messages.iter().any(|m| m.content.contains("@@")),
        "decorators never reach the model"
    );

    let mut settings = Settings::default();
    settings.template.move_lorebook(3);
    let c = chat("User: moon");
    let r = Preview::new(&b, settings).request(&c, 1);
    assert!(matches!(
        r.messages.last().unwrap().origin,
        Origin::Entry { .. }
    ));
    assert!(matches!(
        Settings::default().template.blocks[1],
        Block::Lorebook
    ));
}

#[test]
fn comments_are_never_sent() {
    let mut e = entry(0, &["moon"], "Body.");
    e.comment = "SECRET NAME".into();
    let r = run(&[book(vec![e])], "User: moon");
    assert!(r.messages.iter().all(|m| !m.content.contains("SECRET")));
}

// §4: requests.
#[test]
fn request_k_sees_the_first_k_messages() {
    let b = [book(vec![entry(0, &["moon"], "x")])];
    let text = "User: hi\nAria: moon";
    assert_eq!(kind(&run_k(&b, text, 1), 0), "no_match");
    assert_eq!(ids(&run_k(&b, text, 2)), vec![0]);
    let r = run_k(&b, text, 0);
    assert_eq!(r.request, 0);
    every_entry_once(&b, &r);
}

#[test]
fn the_log_has_one_result_per_request() {
    let b = [chain(true, 4)];
    let c = chat("User: a\nAria: k0\nUser: b");
    let mut p = Preview::new(&b, Settings::default());
    let log = p.log(&c);
    assert_eq!(log.len(), 3);
    for (i, r) in log.iter().enumerate() {
        assert_eq!(r.request, i + 1);
        every_entry_once(&b, r);
        assert_eq!(r, &p.request(&c, i + 1));
    }
}

#[test]
fn editing_a_message_changes_only_what_it_should() {
    let b = [book(vec![
        entry(0, &["moon"], "x"),
        entry(1, &["sun"], "y"),
    ])];
    let mut p = Preview::new(&b, Settings::default());
    let mut c = chat("User: moon\nAria: nothing");
    assert_eq!(ids(&p.request(&c, 2)), vec![0]);
    c[1].text = "the sun".into();
    assert_eq!(ids(&p.request(&c, 2)), vec![0, 1]);
    c[0].text = "no".into();
    assert_eq!(ids(&p.request(&c, 2)), vec![1]);
}
