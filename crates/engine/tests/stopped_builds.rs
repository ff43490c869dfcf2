//! Builds that stop when asked (issue 17): `Index::build_while`,
//! `Preview::set_books_while`, the rebuild of `Preview::upsert_entry_while`
//! and `StPreview::new_while` ask a `keep_going` callback as they go. The
//! app asks it whether a save or the exit path waits for its workspace.
//!
//! Stopped at any of the moments it asks, a build gives nothing and leaves
//! what it would have replaced as it was; a build that goes on afterwards
//! gives exactly what a build never asked to stop gives.

use std::cell::Cell;

use lorebook_engine::activation::{Index, BUILD_CHECK_EVERY};
use lorebook_engine::chat::Message;
use lorebook_engine::formats;
use lorebook_engine::model::Book;
use lorebook_engine::preview::{Preview, Settings, OVERLAY_LIMIT};
use lorebook_engine::sillytavern::keys::CHECK_EVERY;
use lorebook_engine::sillytavern::{StOptions, StPreview, StSettings, TimedState};
use serde_json::json;

mod common;
use common::*;

/// A book of `n` entries over a few words, a regex key among them, so a
/// build asks several times while it compiles the entries.
fn many(n: u64) -> Book {
    let keys = ["moon", "sun", "/to+wer/i", "sea"];
    let mut b = book(
        (0..n)
            .map(|i| {
                let key = keys[i as usize % keys.len()];
                entry(i, &[key], &format!("Lore {i} of the {key}."))
            })
            .collect(),
    );
    b.token_budget = 32000;
    b
}

/// What a compiled index says of each entry (keys counted, not numbered:
/// their ids depend on the matcher holding them).
fn compiled(index: &Index) -> Vec<String> {
    index
        .entries
        .iter()
        .map(|e| {
            format!(
                "{} {} {} {}/{} {:?} {:?}",
                e.book,
                e.id,
                e.position,
                e.primary.len(),
                e.secondary.len(),
                e.body,
                e.diagnostics
            )
        })
        .collect()
}

/// A `keep_going` that says yes `yes` times, then no, counting in `asked`
/// how often it was asked.
fn yes_then_no(yes: usize, asked: &Cell<usize>) -> impl Fn() -> bool + '_ {
    move || {
        asked.set(asked.get() + 1);
        asked.get() <= yes
    }
}

/// How many times a build of `build` asks when never stopped.
fn asks(build: impl Fn(&dyn Fn() -> bool) -> bool) -> usize {
    let asked = Cell::new(0);
    let whole = build(&|| {
        asked.set(asked.get() + 1);
        true
    });
    assert!(whole, "a build never stopped gives its result");
    asked.get()
}

#[test]
fn an_index_build_stopped_at_any_question_gives_nothing() {
    let n = 3 * BUILD_CHECK_EVERY as u64 + 5;
    let books = vec![many(n), many(7)];
    let asked = asks(|go| Index::build_while(&books, go).is_some());
    // Once per BUILD_CHECK_EVERY entries, and before the matcher is built.
    assert!(
        asked > (n as usize) / BUILD_CHECK_EVERY + 1,
        "asked only {asked} times for {n} entries"
    );
    for yes in 0..asked {
        let count = Cell::new(0);
        assert!(
            Index::build_while(&books, yes_then_no(yes, &count)).is_none(),
            "stopped at question {}",
            yes + 1
        );
        assert_eq!(count.get(), yes + 1, "it stops at the first no");
    }
    let whole = Index::build_while(&books, || true).expect("never stopped");
    assert_eq!(compiled(&whole), compiled(&Index::build(&books)));
}

/// Every request and the log of `p` equal those of a preview built from
/// `books`.
fn assert_same(p: &mut Preview, books: &[Book], chat: &[Message]) {
    let mut fresh = Preview::new(books, p.settings().clone());
    assert_eq!(p.books(), books);
    assert_eq!(compiled(p.index()), compiled(fresh.index()));
    for k in 0..=chat.len() {
        assert_eq!(p.request(chat, k), fresh.request(chat, k), "request {k}");
    }
    assert_eq!(p.log(chat), fresh.log(chat));
}

#[test]
fn a_preview_whose_new_books_stopped_building_is_as_it_was_then_builds_the_same() {
    let before = vec![many(40)];
    let after = vec![many(2 * BUILD_CHECK_EVERY as u64), many(3)];
    let c = chat("User: the moon and the sea\nAssistant: a tower\nUser: the sun");
    let mut p = Preview::new(&before, Settings::default());
    // Caches filled, so a stopped build that dropped or kept the wrong ones
    // would show.
    let log = p.log(&c);
    let asked = asks(|go| Index::build_while(&after, go).is_some());
    for yes in 0..asked {
        assert!(!p.set_books_while(&after, yes_then_no(yes, &Cell::new(0))));
        assert_same(&mut p, &before, &c);
    }
    assert_eq!(p.log(&c), log);
    assert!(p.set_books_while(&after, || true));
    assert_same(&mut p, &after, &c);
}

#[test]
fn an_edit_whose_rebuild_stopped_waits_for_the_next_edit_with_the_same_results() {
    let mut books = vec![many(OVERLAY_LIMIT as u64 + 40)];
    let c = chat("User: the moon and the sun");
    let mut p = Preview::new(&books, Settings::default());
    p.request(&c, 1);
    for i in 0..OVERLAY_LIMIT {
        let e = &mut books[0].entries[i];
        e.keys = vec![if i % 2 == 0 { "sun" } else { "star" }.into()];
        p.upsert_entry(0, e);
    }
    assert_eq!(p.index().overlay_len(), OVERLAY_LIMIT);
    // This edit's rebuild is due; told to stop, the edit goes on top.
    let e = &mut books[0].entries[OVERLAY_LIMIT];
    e.keys = vec!["sun".into()];
    p.upsert_entry_while(0, e, || false);
    assert_eq!(p.index().overlay_len(), OVERLAY_LIMIT + 1);
    assert_same(&mut p, &books, &c);
    // So does a removal's.
    p.remove_entry_while(0, 3, || false);
    books[0].entries.retain(|e| e.id != 3);
    assert_eq!(p.index().overlay_len(), OVERLAY_LIMIT);
    assert_same(&mut p, &books, &c);
    // The next edit allowed to go on rebuilds.
    let e = &mut books[0].entries[OVERLAY_LIMIT + 1];
    e.keys = vec!["moon".into()];
    p.upsert_entry_while(0, e, || true);
    assert_eq!(p.index().overlay_len(), 0);
    assert_same(&mut p, &books, &c);
}

/// A SillyTavern world of `n` entries.
fn st_world(n: usize) -> Book {
    let keys = ["moon", "sun", "/to+wer/i", "sea"];
    let entries: serde_json::Map<String, serde_json::Value> = (0..n)
        .map(|uid| {
            let key = keys[uid % keys.len()];
            let e = json!({"uid": uid, "key": [key], "keysecondary": [], "comment": format!("E{uid}"),
                "content": format!("Lore {uid} of the {key}."), "order": uid % 7, "position": 0});
            (uid.to_string(), e)
        })
        .collect();
    formats::import_value(json!({ "entries": entries }))
        .unwrap()
        .book
}

#[test]
fn a_sillytavern_preview_stopped_at_any_question_gives_nothing_then_builds_the_same() {
    let a = st_world(2 * CHECK_EVERY + 9);
    let b = st_world(20);
    let books = vec![("a".to_string(), &a), ("b".to_string(), &b)];
    let new_while = |go: &dyn Fn() -> bool| {
        StPreview::new_while(&books, StSettings::default(), StOptions::default(), go)
            .expect("the books read")
    };
    let asked = asks(|go| new_while(go).is_some());
    // Per book, per CHECK_EVERY entries read, twice per CHECK_EVERY entries
    // whose keys are compiled, and before each automaton.
    assert!(
        asked > 3 * (a.entries.len() / CHECK_EVERY),
        "asked only {asked} times"
    );
    for yes in 0..asked {
        let count = Cell::new(0);
        assert!(
            new_while(&yes_then_no(yes, &count)).is_none(),
            "stopped at question {}",
            yes + 1
        );
        assert_eq!(count.get(), yes + 1, "it stops at the first no");
    }
    let c = chat("User: the moon and the sea\nAssistant: a tower\nUser: the sun");
    let mut built = new_while(&|| true).expect("never stopped");
    let mut fresh = StPreview::new(&books, StSettings::default(), StOptions::default()).unwrap();
    for k in 1..=c.len() {
        assert_eq!(
            built.request(&c[..k], 8192, &mut TimedState::default()),
            fresh.request(&c[..k], 8192, &mut TimedState::default()),
            "request {k}"
        );
    }
}
