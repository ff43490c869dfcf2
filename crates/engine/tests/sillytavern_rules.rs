//! Data-driven tests of SillyTavern's world-info rules, one rule per test,
//! each naming the SillyTavern function whose behaviour it pins down. The
//! end-to-end comparison with SillyTavern's own output is in
//! sillytavern_cases.rs.

use std::collections::HashSet;

use lorebook_engine::sillytavern::groups::{self, GroupContext};
use lorebook_engine::sillytavern::{entry, DropKind, StPreview, StReason, StResult, TimedState};
use serde_json::{json, Value};

mod common;
use common::{st_book, st_preview, tom_and_mira as chat, within};

/// A preview over one book given as SillyTavern entries (uid = position
/// in the list unless given; absent fields from the editor's template).
fn preview(entries: Value, settings: Value) -> StPreview {
    seeded(entries, settings, 0)
}

fn seeded(entries: Value, settings: Value, seed: u64) -> StPreview {
    st_preview(&st_book(&entries, true), &settings, seed)
}

fn ids(r: &StResult) -> Vec<u64> {
    let mut v: Vec<u64> = r.injected.iter().map(|i| i.id).collect();
    v.sort();
    v
}

fn base() -> Value {
    json!({"world_info_depth": 2, "world_info_budget": 25, "world_info_recursive": true,
           "world_info_match_whole_words": true})
}

// world-info.js: WorldInfoTimedEffects.checkTimedEffects / setTimedEffects
// (sticky keeps an entry without its key while length < start + N).
#[test]
fn sticky_lasts_n_messages_of_chat_length() {
    let mut p = preview(json!([{"key": ["x"], "sticky": 2}]), base());
    let mut state = TimedState::default();
    let steps: [(&[&str], &[u64]); 4] = [
        (&["a", "b", "c", "x"], &[0]),
        (&["a", "b", "c", "x", "y"], &[0]),
        (&["a", "b", "c", "x", "y", "z"], &[]),
        (&["a", "b", "c", "x", "y", "z", "w"], &[]),
    ];
    for (texts, want) in steps {
        let r = p.request(&chat(texts), 8192, &mut state);
        assert_eq!(ids(&r), want, "at length {}", texts.len());
    }
}

// world-info.js: WorldInfoTimedEffects (cooldown blocks while
// length < start + N; a regenerate at the same length drops the record).
#[test]
fn cooldown_blocks_and_swipes_reset() {
    let mut p = preview(json!([{"key": ["x"], "cooldown": 3}]), base());
    let mut state = TimedState::default();
    let r = p.request(&chat(&["a", "b", "c", "x"]), 8192, &mut state);
    assert_eq!(ids(&r), [0]);
    let r = p.request(&chat(&["a", "b", "c", "x", "x"]), 8192, &mut state);
    assert!(ids(&r).is_empty());
    assert_eq!(r.dropped[0].kind, DropKind::Cooldown);
    let r = p.request(&chat(&["a", "b", "c", "x", "x", "x"]), 8192, &mut state);
    assert!(ids(&r).is_empty());
    let r = p.request(
        &chat(&["a", "b", "c", "x", "x", "x", "x"]),
        8192,
        &mut state,
    );
    assert_eq!(ids(&r), [0]);
    // A second request at the same length is a swipe: the unprotected
    // record started at this length is dropped, so the entry is free.
    let r = p.request(
        &chat(&["a", "b", "c", "x", "x", "x", "x"]),
        8192,
        &mut state,
    );
    assert_eq!(ids(&r), [0]);
}

// world-info.js: checkTimedEffects (an expired sticky starts a protected
// cooldown at the request that observes the expiry).
#[test]
fn sticky_then_cooldown() {
    let mut p = preview(json!([{"key": ["x"], "sticky": 3, "cooldown": 2}]), base());
    let mut state = TimedState::default();
    let mut got = Vec::new();
    let texts = ["x", "a", "b", "c", "d", "e"];
    for n in 1..=texts.len() {
        let r = p.request(&chat(&texts[..n]), 8192, &mut state);
        got.push(!r.injected.is_empty());
    }
    // Active at 1, 2, 3 (sticky), cooldown at 4, 5; at 6 no key → off.
    assert_eq!(got, [true, true, true, false, false, false]);
}

// world-info.js: checkWorldInfo (delay: not before the chat has N messages).
#[test]
fn delay_waits_for_the_chat_length() {
    let mut p = preview(json!([{"key": ["ghost"], "delay": 4}]), base());
    let r = p.request(
        &chat(&["a", "b", "ghost"]),
        8192,
        &mut TimedState::default(),
    );
    assert!(r.injected.is_empty());
    assert_eq!(r.dropped[0].kind, DropKind::Delay);
    let r = p.request(
        &chat(&["a", "b", "c", "ghost"]),
        8192,
        &mut TimedState::default(),
    );
    assert_eq!(ids(&r), [0]);
}

// world-info.js: WorldInfoTimedEffects (records read from and written to
// chat_metadata.timedWorldInfo).
#[test]
fn timed_state_round_trips_through_chat_metadata() {
    let stored = json!({"sticky": {"world.0": {"hash": 1, "start": 2, "end": 5, "protected": false}},
                        "cooldown": {"bad": 3}});
    let mut state = TimedState::from_metadata(Some(&stored));
    assert_eq!(state.sticky.len(), 1);
    assert!(state.cooldown.is_empty());
    let mut p = preview(json!([{"key": ["x"], "sticky": 3}]), base());
    let r = p.request(&chat(&["a", "b", "c"]), 8192, &mut state);
    assert_eq!(ids(&r), [0], "sticky from the stored record");
    assert!(matches!(r.injected[0].reason, StReason::Sticky { .. }));
    assert_eq!(state.to_metadata()["sticky"]["world.0"]["end"], json!(5.0));
}

// world-info.js: verifyProbability (a roll only when useProbability and
// probability ≠ 100; probability 0 practically never passes).
#[test]
fn probability_rolls_are_seeded() {
    let entries = json!([
        {"constant": true, "probability": 0, "useProbability": true},
        {"constant": true, "probability": 0, "useProbability": false},
        {"constant": true, "probability": 100, "useProbability": true},
        {"constant": true, "probability": 50, "useProbability": true, "uid": 3}
    ]);
    let run = |seed: u64| p_request(seeded(entries.clone(), base(), seed), &["hi"]);
    let a = run(7);
    assert!(!ids(&a).contains(&0));
    assert!(ids(&a).contains(&1) && ids(&a).contains(&2));
    assert_eq!(
        a.dropped.iter().find(|d| d.id == 0).unwrap().kind,
        DropKind::Probability
    );
    assert_eq!(ids(&a), ids(&run(7)), "same seed, same result");
    let outcomes: HashSet<bool> = (0..32).map(|s| ids(&run(s)).contains(&3)).collect();
    assert_eq!(
        outcomes.len(),
        2,
        "a 50% entry both passes and fails over seeds"
    );
}

// world-info.js: filterByInclusionGroups (override winner by highest order;
// weighted pick: first member whose running weight reaches the roll).
#[test]
fn inclusion_group_selection() {
    let p = preview(
        json!([
            {"key": ["k"], "group": "g", "groupWeight": 100},
            {"key": ["k"], "group": "g", "groupWeight": 300},
            {"key": ["k"], "group": "h", "groupOverride": true, "order": 20},
            {"key": ["k"], "group": "h", "groupOverride": true, "order": 50},
            {"key": ["k"], "group": "h", "order": 90}
        ]),
        base(),
    );
    let entries = p.entries().to_vec();
    let index = |uid: u64| entries.iter().position(|e| e.uid == uid).unwrap();
    let run = |draw_value: f64| -> Vec<u64> {
        let mut candidates: Vec<usize> = (0..5).map(index).collect();
        let none = HashSet::new();
        let mut score = |_: usize| 0;
        let mut draw = || draw_value;
        let mut cx = GroupContext {
            entries: &entries,
            sticky: &none,
            cooldown: &none,
            delayed: &|_| false,
            activated_groups: &[],
            global_scoring: false,
            score: &mut score,
            draw: &mut draw,
        };
        groups::filter(&mut candidates, &mut cx);
        let mut v: Vec<u64> = candidates.iter().map(|&c| entries[c].uid).collect();
        v.sort();
        v
    };
    // Roll 0.3 × 400 = 120: 100 < 120 ≤ 400, the second member wins.
    assert_eq!(run(0.3), [1, 3]);
    assert_eq!(run(0.2), [0, 3]);
}

// world-info.js: filterByInclusionGroups (removing an entry twice removes
// the last candidate instead, SillyTavern's splice(indexOf) quirk).
#[test]
fn multi_group_removal_quirk() {
    let p = preview(
        json!([
            {"key": ["k"], "group": "x, y", "order": 40},
            {"key": ["k"], "group": "x", "groupOverride": true, "order": 30},
            {"key": ["k"], "group": "y", "groupOverride": true, "order": 20},
            {"key": ["k"], "order": 10}
        ]),
        base(),
    );
    let r = p_request(p, &["k"]);
    assert_eq!(ids(&r), [1, 2]);
}

fn p_request(mut p: StPreview, texts: &[&str]) -> StResult {
    p.request(&chat(texts), 8192, &mut TimedState::default())
}

// world-info.js: filterGroupsByScoring (members scoring below the best are
// removed when scoring is on).
#[test]
fn group_scoring() {
    let entries = json!([
        {"key": ["song", "sing", "Black Cat"], "group": "songs"},
        {"key": ["song", "sing", "Ghosts"], "group": "songs"}
    ]);
    let mut settings = base();
    settings["world_info_use_group_scoring"] = json!(true);
    let r = p_request(
        preview(entries.clone(), settings),
        &["sing me a song about Ghosts"],
    );
    assert_eq!(ids(&r), [1]);
    assert_eq!(r.dropped[0].kind, DropKind::Group);
}

// world-info.js: checkWorldInfo (recursion, excludeRecursion,
// preventRecursion, delayUntilRecursion).
#[test]
fn recursion_controls() {
    let entries = json!([
        {"key": ["alpha"], "content": "Alpha mentions beta."},
        {"key": ["beta"], "content": "Beta mentions gamma."},
        {"key": ["gamma"]},
        {"key": ["beta"], "excludeRecursion": true},
        {"key": ["alpha"], "preventRecursion": true, "content": "Delta."},
        {"key": ["delta"]},
        {"key": ["alpha"], "delayUntilRecursion": true}
    ]);
    let r = p_request(preview(entries.clone(), base()), &["Tell me about alpha."]);
    assert_eq!(ids(&r), [0, 1, 2, 4, 6]);
    assert_eq!(r.passes, 4);
    let mut capped = base();
    capped["world_info_max_recursion_steps"] = json!(2);
    let r = p_request(preview(entries, capped), &["Tell me about alpha."]);
    assert_eq!(ids(&r), [0, 1, 4, 6]);
}

// world-info.js: checkWorldInfo (budget: overflow at ≥ budget, then only
// ignoreBudget entries; constants have no priority).
#[test]
fn budget_overflow_and_ignore_budget() {
    let entries = json!([
        {"constant": true, "order": 100, "content": "One two three four five six seven eight nine ten."},
        {"constant": true, "order": 90, "content": "Eleven twelve thirteen fourteen fifteen sixteen."},
        {"constant": true, "order": 80, "content": "Short."},
        {"constant": true, "order": 70, "ignoreBudget": true, "content": "Ignored budget."}
    ]);
    let run = |context: u32| {
        preview(entries.clone(), base()).request(
            &chat(&["hi"]),
            context,
            &mut TimedState::default(),
        )
    };
    assert_eq!(ids(&run(8192)), [0, 1, 2, 3]);
    // 25% of 60 = 15 tokens: entry 0 fits, entry 1 overflows, 2 is skipped
    // although it is small, 3 ignores the budget.
    let r = run(60);
    assert_eq!(r.budget, 15);
    assert!(r.overflowed);
    assert_eq!(ids(&r), [0, 3]);
    let kinds: Vec<DropKind> = r.dropped.iter().map(|d| d.kind).collect();
    assert_eq!(kinds, [DropKind::Budget, DropKind::Budget]);
}

// world-info.js: checkWorldInfo placement (outlets highest order first;
// other positions ascending, ties in reverse activation order).
#[test]
fn placement_orders() {
    let entries = json!([
        {"key": ["bell"], "order": 10, "position": 7, "outletName": "w"},
        {"key": ["bell"], "order": 20, "position": 7, "outletName": "w"},
        {"key": ["bell"], "order": 50, "position": 0},
        {"key": ["bell"], "order": 50, "position": 0},
        {"key": ["bell"], "order": 5, "position": 7},
        {"key": ["bell"], "order": 5, "position": 4, "depth": 2, "role": 1},
        {"key": ["bell"], "order": 5, "position": 9}
    ]);
    let r = p_request(preview(entries, base()), &["A bell rings."]);
    let seq: Vec<(u64, &str)> = r
        .injected
        .iter()
        .map(|i| (i.id, i.position.as_str()))
        .collect();
    assert_eq!(
        seq,
        [
            (3, "before"),
            (2, "before"),
            (5, "at_depth"),
            (1, "outlet"),
            (0, "outlet")
        ]
    );
    assert_eq!(r.injected[2].depth, Some(2.0));
    assert_eq!(r.injected[2].role, Some(lorebook_engine::model::Role::User));
    let not_placed: Vec<u64> = r.not_placed.iter().map(|d| d.id).collect();
    assert_eq!(not_placed, [4, 6]);
}

// macros.js: evaluateMacros ({{char}}/{{user}} in keys and content).
#[test]
fn macros_in_keys_and_content() {
    let entries = json!([{"key": ["{{char}}"], "content": "{{char}} knows {{user}}."}]);
    let r = p_request(preview(entries, base()), &["Hello Mira."]);
    assert_eq!(r.injected[0].content, "Mira knows Tom.");
}

// world-info.js: getSortedEntries (SillyTavern fields read from a native
// book's export: order, disable, position kept in extensions).
#[test]
fn entry_view_of_an_imported_book() {
    let p = preview(
        json!([{"key": ["a"], "order": 5, "position": 4, "depth": 0, "role": 2, "group": "g",
                "disable": true, "scanDepth": 3, "matchWholeWords": null, "sticky": 2}]),
        base(),
    );
    let e = &p.entries()[0];
    assert_eq!(
        (e.order, e.position, e.depth, e.role),
        (5.0, Some(4), 0.0, 2)
    );
    assert!(e.disable);
    assert_eq!(e.group, "g");
    assert_eq!(e.scan_depth, Some(3.0));
    assert_eq!(e.whole_words, None);
    assert_eq!(e.sticky, 2.0);
    let d = entry::parse_decorators("@@dont_activate\nx");
    assert_eq!(d.content, "x");
}

// script.js: Generate (macros run on the first chat message only).
#[test]
fn macros_in_the_greeting_only() {
    let entries = json!([{"key": ["Mira"]}, {"key": ["Tom"], "uid": 1}]);
    let r = p_request(preview(entries.clone(), base()), &["I am {{char}}.", "hi"]);
    assert_eq!(
        ids(&r),
        [0, 1],
        "Tom is a speaker name, Mira comes from the greeting"
    );
    let mut names_off = base();
    names_off["world_info_include_names"] = json!(false);
    let r = p_request(
        preview(entries.clone(), names_off.clone()),
        &["I am {{char}}.", "hi"],
    );
    assert_eq!(ids(&r), [0]);
    let r = p_request(preview(entries, names_off), &["hi", "I am {{user}}."]);
    assert!(
        ids(&r).is_empty(),
        "later messages keep their macros verbatim"
    );
}

// world-info.js: checkWorldInfo placement (a switch on the position
// number: strings and unknown numbers place nothing).
#[test]
fn position_is_compared_strictly() {
    let entries = json!([
        {"key": ["bell"], "position": "0"},
        {"key": ["bell"], "position": 8},
        {"key": ["bell"], "position": 1}
    ]);
    let r = p_request(preview(entries, base()), &["A bell rings."]);
    assert_eq!(ids(&r), [2]);
    let not_placed: Vec<u64> = r.not_placed.iter().map(|d| d.id).collect();
    assert_eq!(not_placed, [0, 1]);
}

// Issue 8: world-info.js matchKeys tests regex keys with JavaScript's
// backtracking RegExp, where `/(a+)+$/` on a long run of `a` ending in
// another letter never finishes. Here such a key runs out of its step
// budget: it counts as not matching, the entry says why, and the other
// keys (regex ones included) still decide as SillyTavern does.
#[test]
fn a_catastrophic_regex_key_gives_up_and_says_so() {
    let result = within(std::time::Duration::from_secs(30), || {
        let mut p = preview(
            json!([
                {"key": ["/(a+)+$/"], "comment": "slow"},
                {"key": ["/(a+)+$/", "/a{10}b/"], "comment": "saved by its other key"},
                {"key": ["lamp"], "keysecondary": ["/(a+)+$/"], "selectiveLogic": 3, "comment": "slow filter"},
                {"key": ["lamp"], "keysecondary": ["/(a+)+$/"], "selectiveLogic": 2, "comment": "not any"},
            ]),
            base(),
        );
        let run = format!("the lamp {}b", "a".repeat(80));
        p.request(&chat(&["hello", &run]), 8192, &mut TimedState::default())
    });
    assert_eq!(ids(&result), vec![1, 3]);
    let detail = |id: u64| {
        let d = result.dropped.iter().find(|d| d.id == id).unwrap();
        (d.kind, d.detail.to_string())
    };
    let slow = "regex key /(a+)+$/ took too long on this chat; treated as not matching";
    assert_eq!(detail(0), (DropKind::NoMatch, slow.to_string()));
    assert_eq!(detail(2), (DropKind::Secondary, slow.to_string()));
    // The same key decides on a chat where it can, and matches (the
    // scanned text ends with the run of `a`).
    let mut p = preview(json!([{"key": ["/(a+)+$/"]}]), base());
    let r = p.request(&chat(&[&"a".repeat(80)]), 8192, &mut TimedState::default());
    assert_eq!(ids(&r), vec![0]);
}
