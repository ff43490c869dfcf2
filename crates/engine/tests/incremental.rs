//! Incremental edits of a preview (`Preview::upsert_entry`, `remove_entry`,
//! `set_book_settings`) give exactly the results of a preview built from the
//! edited books.
//!
//! The property test drives random edit sequences against random books and
//! compares every request and the log with a fresh preview after each edit;
//! the unit tests pin one kind of edit each.

use lorebook_engine::chat::Message;
use lorebook_engine::explain::{DropReason, RequestResult};
use lorebook_engine::model::{Book, Entry};
use lorebook_engine::preview::{Preview, Settings, DEAD_SLOT_LIMIT, OVERLAY_LIMIT};
use proptest::prelude::*;

mod common;
use common::*;

/// One edit. `book` is reduced modulo the number of books, and one past
/// it stands for a book that is not attached. Ids 0–15 hit existing
/// entries (generated books have at most 10) as well as absent ones.
#[derive(Debug, Clone)]
enum Op {
    Upsert {
        book: usize,
        id: u64,
        entry: Box<Entry>,
    },
    Remove {
        book: usize,
        id: u64,
    },
    Settings {
        book: usize,
        scan_depth: u32,
        token_budget: u32,
        recursive: bool,
    },
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0usize..4, 0u64..16, arb_entry())
            .prop_map(|(book, id, entry)| Op::Upsert { book, id, entry: Box::new(entry) }),
        2 => (0usize..4, 0u64..16).prop_map(|(book, id)| Op::Remove { book, id }),
        1 => (0usize..4, 0u32..6, 100u32..300, any::<bool>()).prop_map(
            |(book, scan_depth, token_budget, recursive)| Op::Settings {
                book,
                scan_depth,
                token_budget,
                recursive,
            }
        ),
    ]
}

/// Applies `op` to the preview and, independently, to `books`.
fn apply(p: &mut Preview, books: &mut [Book], op: &Op) {
    // One past the last book is a book that is not attached: a no-op.
    let pick = |book: usize| book % (books.len() + 1);
    match op {
        Op::Upsert { book, id, entry } => {
            let b = pick(*book);
            let mut e = (**entry).clone();
            e.id = *id;
            p.upsert_entry(b, &e);
            if let Some(book) = books.get_mut(b) {
                match book.entries.iter().position(|x| x.id == *id) {
                    Some(i) => book.entries[i] = e,
                    None => book.entries.push(e),
                }
            }
        }
        Op::Remove { book, id } => {
            let b = pick(*book);
            p.remove_entry(b, *id);
            if let Some(book) = books.get_mut(b) {
                book.entries.retain(|x| x.id != *id);
            }
        }
        Op::Settings {
            book,
            scan_depth,
            token_budget,
            recursive,
        } => {
            let b = pick(*book);
            p.set_book_settings(b, *scan_depth, *token_budget, *recursive);
            if let Some(book) = books.get_mut(b) {
                book.scan_depth = *scan_depth;
                book.token_budget = *token_budget;
                book.recursive_scanning = *recursive;
            }
        }
    }
}

/// What a compiled entry says about itself, without key ids (which depend
/// on which matcher holds the keys).
fn compiled_view(p: &Preview) -> Vec<String> {
    p.index()
        .entries
        .iter()
        .map(|e| {
            format!(
                "{} {} {} en={} c={} r={} s={} {:?} keys={}/{} d={} o={} p={} {:?} {:?} {:?} {:?}",
                e.book,
                e.id,
                e.position,
                e.enabled,
                e.constant,
                e.recursive,
                e.selective,
                e.logic,
                e.primary.len(),
                e.secondary.len(),
                e.depth,
                e.order,
                e.priority,
                e.role,
                e.decorators,
                e.body,
                e.diagnostics
            )
        })
        .collect()
}

/// Every request, the log and the compiled entries of `p` equal those of a
/// preview built from `books`.
fn assert_same(p: &mut Preview, books: &[Book], chat: &[Message]) -> Result<(), TestCaseError> {
    let settings = p.settings().clone();
    let mut fresh = Preview::new(books, settings);
    prop_assert_eq!(p.books(), books);
    prop_assert_eq!(compiled_view(p), compiled_view(&fresh));
    prop_assert_eq!(p.index().budget, fresh.index().budget);
    prop_assert_eq!(p.index().any_stateful, fresh.index().any_stateful);
    for k in 0..=chat.len() {
        prop_assert_eq!(p.request(chat, k), fresh.request(chat, k), "request {}", k);
    }
    prop_assert_eq!(p.log(chat), fresh.log(chat));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The key guarantee: incremental edits are invisible in the results.
    #[test]
    fn incremental_edits_equal_a_fresh_build(
        mut books in prop::collection::vec(arb_book(), 1..3),
        chat in arb_chat(),
        ops in prop::collection::vec(arb_op(), 1..30),
        seed in 0u64..1000,
    ) {
        let settings = Settings { seed, ..Settings::default() };
        let mut p = Preview::new(&books, settings);
        // Warm every cache first, so stale hits would show.
        p.log(&chat);
        for op in &ops {
            apply(&mut p, &mut books, op);
            // Requests between edits leave hits and states in the caches.
            p.request(&chat, chat.len());
        }
        assert_same(&mut p, &books, &chat)?;
    }

    /// The same, comparing after every edit rather than at the end.
    #[test]
    fn every_intermediate_state_equals_a_fresh_build(
        mut books in prop::collection::vec(arb_book(), 1..3),
        chat in arb_chat(),
        ops in prop::collection::vec(arb_op(), 1..8),
    ) {
        let mut p = Preview::new(&books, Settings::default());
        for op in &ops {
            apply(&mut p, &mut books, op);
            assert_same(&mut p, &books, &chat)?;
        }
    }
}

// Unit tests: one kind of edit each.

fn ids(r: &RequestResult) -> Vec<u64> {
    r.injected.iter().map(|i| i.id).collect()
}

fn reason(r: &RequestResult, id: u64) -> &DropReason {
    &r.dropped
        .iter()
        .find(|d| d.id == id)
        .unwrap_or_else(|| panic!("entry {id} is not dropped: {r:#?}"))
        .reason
}

/// Checks `p` against a preview built from `books`, every request and the
/// log.
fn check_same(p: &mut Preview, books: &[Book], chat: &[Message]) {
    let mut fresh = Preview::new(books, p.settings().clone());
    assert_eq!(p.books(), books);
    assert_eq!(compiled_view(p), compiled_view(&fresh));
    for k in 0..=chat.len() {
        assert_eq!(p.request(chat, k), fresh.request(chat, k), "request {k}");
    }
    assert_eq!(p.log(chat), fresh.log(chat));
}

#[test]
fn editing_a_key_starts_and_stops_matching() {
    let mut books = vec![book(vec![
        entry(0, &["moon"], "Moon lore."),
        entry(1, &["tower"], "Tower lore."),
    ])];
    let c = chat("User: the sun and the moon");
    let mut p = Preview::new(&books, Settings::default());
    assert_eq!(ids(&p.request(&c, 1)), vec![0]);

    // Entry 1 starts matching.
    books[0].entries[1].keys = vec!["sun".into()];
    p.upsert_entry(0, &books[0].entries[1]);
    let mut both = ids(&p.request(&c, 1));
    both.sort();
    assert_eq!(both, vec![0, 1]);
    check_same(&mut p, &books, &c);

    // Entry 0 stops matching: its old key in the base matcher is masked.
    books[0].entries[0].keys = vec!["star".into()];
    p.upsert_entry(0, &books[0].entries[0]);
    assert_eq!(ids(&p.request(&c, 1)), vec![1]);
    assert_eq!(reason(&p.request(&c, 1), 0).kind(), "no_match");
    check_same(&mut p, &books, &c);

    // Editing an entry already in the overlay again.
    books[0].entries[0].keys = vec!["MOON".into()];
    books[0].entries[0].whole_words = true;
    p.upsert_entry(0, &books[0].entries[0]);
    assert_eq!(p.index().overlay_len(), 2);
    check_same(&mut p, &books, &c);
}

#[test]
fn adding_an_entry() {
    let mut books = vec![
        book(vec![entry(0, &["moon"], "Moon lore.")]),
        book(vec![entry(0, &["sun"], "Sun lore.")]),
    ];
    let c = chat("User: the sun and the tower");
    let mut p = Preview::new(&books, Settings::default());
    p.request(&c, 1);
    let added = entry(7, &["tower"], "Tower lore.");
    p.upsert_entry(0, &added);
    books[0].entries.push(added);
    let r = p.request(&c, 1);
    assert_eq!(
        r.injected
            .iter()
            .map(|i| (i.book, i.id))
            .collect::<Vec<_>>(),
        vec![(0, 7), (1, 0)]
    );
    let e = p.index().entry(0, 7).expect("the added entry is compiled");
    assert_eq!((e.book, e.position), (0, 1));
    // The entry of the next book moved up one place.
    assert_eq!(p.index().entries[2].book, 1);
    check_same(&mut p, &books, &c);
}

#[test]
fn removing_an_entry() {
    let mut books = vec![book(vec![
        entry(0, &["moon"], "Moon lore."),
        entry(1, &["moon"], "More moon lore."),
        entry(2, &["sun"], "Sun lore."),
    ])];
    let c = chat("User: the sun and the moon");
    let mut p = Preview::new(&books, Settings::default());
    assert_eq!(p.request(&c, 1).injected.len(), 3);
    p.remove_entry(0, 1);
    books[0].entries.remove(1);
    let r = p.request(&c, 1);
    assert_eq!(r.injected.len() + r.dropped.len(), 2);
    assert!(p.index().entry(0, 1).is_none());
    assert_eq!(p.index().entry(0, 2).map(|e| e.position), Some(1));
    check_same(&mut p, &books, &c);

    // Absent entries and books that are not attached: nothing happens.
    p.remove_entry(0, 1);
    p.remove_entry(3, 0);
    check_same(&mut p, &books, &c);

    // Removing an entry that was edited first (its keys are in the
    // overlay), then adding it back.
    books[0].entries[0].keys = vec!["sun".into()];
    p.upsert_entry(0, &books[0].entries[0]);
    p.remove_entry(0, 0);
    let back = books[0].entries.remove(0);
    check_same(&mut p, &books, &c);
    p.upsert_entry(0, &back);
    books[0].entries.push(back);
    check_same(&mut p, &books, &c);
}

#[test]
fn changing_probability_through_the_content() {
    let mut books = vec![book(vec![entry(0, &["moon"], "Moon lore.")])];
    let c = chat("User: the moon");
    let mut p = Preview::new(&books, Settings::default());
    assert_eq!(ids(&p.request(&c, 1)), vec![0]);
    books[0].entries[0].content = "@@probability 0\nMoon lore.".into();
    p.upsert_entry(0, &books[0].entries[0]);
    assert_eq!(reason(&p.request(&c, 1), 0).kind(), "probability");
    check_same(&mut p, &books, &c);
    // An invalid decorator is a diagnostic of the edited entry.
    books[0].entries[0].content = "@@probability lots\nMoon lore.".into();
    p.upsert_entry(0, &books[0].entries[0]);
    assert!(!p.index().entry(0, 0).unwrap().diagnostics.is_empty());
    assert_eq!(ids(&p.request(&c, 1)), vec![0]);
    check_same(&mut p, &books, &c);
}

#[test]
fn changing_scan_depth_through_the_content() {
    let mut books = vec![book(vec![
        entry(0, &["moon"], "Moon lore."),
        entry(1, &["sun"], "Sun lore."),
    ])];
    books[0].scan_depth = 1;
    let c = chat("User: the moon\nAria: yes\nUser: indeed");
    let mut p = Preview::new(&books, Settings::default());
    assert!(p.request(&c, 3).injected.is_empty());
    // A deeper window than any other entry: the index's widest window
    // grows with it.
    books[0].entries[0].content = "@@scan_depth 3\nMoon lore.".into();
    p.upsert_entry(0, &books[0].entries[0]);
    assert_eq!(ids(&p.request(&c, 3)), vec![0]);
    check_same(&mut p, &books, &c);
    // And shrinks back.
    books[0].entries[0].content = "Moon lore.".into();
    p.upsert_entry(0, &books[0].entries[0]);
    assert!(p.request(&c, 3).injected.is_empty());
    check_same(&mut p, &books, &c);
}

#[test]
fn invalid_regex_keys_are_diagnosed_on_the_edited_entry() {
    let mut books = vec![book(vec![entry(0, &["moon"], "Moon lore.")])];
    let c = chat("User: the moon");
    let mut p = Preview::new(&books, Settings::default());
    books[0].entries[0].keys = vec!["/(moon/".into(), "moon".into()];
    p.upsert_entry(0, &books[0].entries[0]);
    let e = p.index().entry(0, 0).unwrap();
    assert_eq!(e.diagnostics.len(), 1, "{:?}", e.diagnostics);
    assert_eq!(ids(&p.request(&c, 1)), vec![0]);
    // Another edit rebuilds the overlay: the error is not reported twice.
    let other = entry(1, &["/su+n/"], "Sun lore.");
    p.upsert_entry(0, &other);
    books[0].entries.push(other);
    assert_eq!(p.index().entry(0, 0).unwrap().diagnostics.len(), 1);
    check_same(&mut p, &books, &c);
}

#[test]
fn changing_book_budget_and_recursion() {
    let mut books = vec![
        book(vec![
            entry(0, &["moon"], "The moon shines on the tower."),
            entry(
                1,
                &["tower"],
                "The tower is tall and old and full of stories.",
            ),
        ]),
        book(vec![entry(0, &["tower"], "Second book tower.")]),
    ];
    let c = chat("User: the moon");
    let mut p = Preview::new(&books, Settings::default());
    assert_eq!(ids(&p.request(&c, 1)), vec![0]);

    // Recursion on for book 0 only: its tower entry follows the body.
    p.set_book_settings(0, 4, 800, true);
    books[0].recursive_scanning = true;
    let r = p.request(&c, 1);
    assert_eq!(r.passes, 2);
    assert_eq!(
        r.injected
            .iter()
            .map(|i| (i.book, i.id))
            .collect::<Vec<_>>(),
        vec![(0, 0), (0, 1)]
    );
    check_same(&mut p, &books, &c);

    // A tiny budget (below the clamp range, which the engine does not
    // enforce) cuts the non-constant entries; the largest budget wins.
    p.set_book_settings(0, 4, 5, true);
    books[0].token_budget = 5;
    p.set_book_settings(1, 4, 5, false);
    books[1].token_budget = 5;
    let r = p.request(&c, 1);
    assert_eq!(r.budget.limit, 5);
    assert_eq!(reason(&r, 0).kind(), "budget");
    check_same(&mut p, &books, &c);

    // Depth 0 scans no chat text.
    p.set_book_settings(0, 0, 800, false);
    books[0].scan_depth = 0;
    books[0].token_budget = 800;
    books[0].recursive_scanning = false;
    assert!(p.request(&c, 1).injected.is_empty());
    check_same(&mut p, &books, &c);

    // A book that is not attached: nothing happens.
    p.set_book_settings(2, 9, 9, true);
    check_same(&mut p, &books, &c);
}

#[test]
fn keep_state_is_recomputed_after_an_edit() {
    let mut books = vec![book(vec![entry(0, &["moon"], "@@keep\nMoon lore.")])];
    let c = chat("User: the moon\nAria: yes\nUser: indeed");
    let mut p = Preview::new(&books, Settings::default());
    assert_eq!(ids(&p.request(&c, 3)), vec![0], "kept since request 1");
    books[0].entries[0].keys = vec!["sun".into()];
    p.upsert_entry(0, &books[0].entries[0]);
    assert!(p.request(&c, 3).injected.is_empty(), "stale @@keep state");
    check_same(&mut p, &books, &c);
}

#[test]
fn the_overlay_limit_triggers_a_full_rebuild() {
    let n = OVERLAY_LIMIT as u64 + 40;
    let mut books = vec![book(
        (0..n)
            .map(|i| entry(i, &["moon"], &format!("Lore {i}.")))
            .collect(),
    )];
    books[0].token_budget = 32000;
    let c = chat("User: the moon and the sun");
    let mut p = Preview::new(&books, Settings::default());
    p.request(&c, 1);
    for i in 0..OVERLAY_LIMIT as u64 {
        let e = &mut books[0].entries[i as usize];
        e.keys = vec![if i % 2 == 0 { "sun" } else { "star" }.into()];
        p.upsert_entry(0, e);
    }
    assert_eq!(p.index().overlay_len(), OVERLAY_LIMIT);
    check_same(&mut p, &books, &c);
    // One more entry would pass the limit: the index is built again.
    let e = &mut books[0].entries[OVERLAY_LIMIT];
    e.keys = vec!["sun".into()];
    p.upsert_entry(0, e);
    assert_eq!(p.index().overlay_len(), 0);
    check_same(&mut p, &books, &c);
    // And edits go to the overlay again.
    let e = &mut books[0].entries[0];
    e.keys = vec!["moon".into()];
    p.upsert_entry(0, e);
    assert_eq!(p.index().overlay_len(), 1);
    check_same(&mut p, &books, &c);
}

#[test]
fn many_removals_trigger_a_full_rebuild() {
    let n = DEAD_SLOT_LIMIT as u64 + 10;
    let mut books = vec![book(
        (0..n)
            .map(|i| entry(i, &["moon"], &format!("Lore {i}.")))
            .collect(),
    )];
    let c = chat("User: the moon");
    let mut p = Preview::new(&books, Settings::default());
    for id in 0..DEAD_SLOT_LIMIT as u64 {
        p.remove_entry(0, id);
    }
    assert_eq!(p.index().dead_slots(), DEAD_SLOT_LIMIT);
    p.remove_entry(0, DEAD_SLOT_LIMIT as u64);
    assert_eq!(p.index().dead_slots(), 0);
    books[0].entries.drain(..=DEAD_SLOT_LIMIT);
    check_same(&mut p, &books, &c);
}

#[test]
fn entries_sharing_an_id_do_not_break_edits() {
    // A malformed file: two entries with id 0. The id means the last one,
    // in the index and in the preview's copy alike.
    let mut books = vec![book(vec![
        entry(0, &["moon"], "First."),
        entry(0, &["sun"], "Second."),
        entry(1, &["moon"], "Other."),
    ])];
    let c = chat("User: the moon and the sun");
    let mut p = Preview::new(&books, Settings::default());
    let edited = entry(0, &["star"], "Second, edited.");
    p.upsert_entry(0, &edited);
    books[0].entries[1] = edited;
    check_same(&mut p, &books, &c);
    p.remove_entry(0, 0);
    books[0].entries.remove(1);
    check_same(&mut p, &books, &c);
    assert_eq!(p.index().entry(0, 0).map(|e| &*e.body), Some("First."));
    p.remove_entry(0, 0);
    books[0].entries.remove(0);
    check_same(&mut p, &books, &c);
}

#[test]
fn dropped_is_sorted_by_book_then_id() {
    // Ids out of position order, in two books.
    let books = vec![
        book(vec![
            entry(5, &["x"], "a"),
            entry(2, &["x"], "b"),
            entry(9, &["x"], "c"),
        ]),
        book(vec![entry(1, &["x"], "d"), entry(0, &["x"], "e")]),
    ];
    let c = chat("User: nothing here");
    let r = Preview::new(&books, Settings::default()).request(&c, 1);
    let order: Vec<(usize, u64)> = r.dropped.iter().map(|d| (d.book, d.id)).collect();
    assert_eq!(order, vec![(0, 2), (0, 5), (0, 9), (1, 0), (1, 1)]);
}

#[test]
fn results_do_not_depend_on_entry_positions() {
    // The app may put an entry back at its old position (undo), while
    // `upsert_entry` adds at the end: the results must not differ.
    let e0 = entry(0, &["moon"], "The tower at night.");
    let e1 = entry(1, &["moon"], "A tower by day.");
    let e2 = entry(2, &["tower"], "Tower lore.");
    let mut a = book(vec![e0.clone(), e1.clone(), e2.clone()]);
    let mut b = book(vec![e2, e1, e0]);
    a.recursive_scanning = true;
    b.recursive_scanning = true;
    let c = chat("User: the moon");
    let ra = Preview::new(&[a], Settings::default()).request(&c, 1);
    let rb = Preview::new(&[b], Settings::default()).request(&c, 1);
    assert_eq!(ra, rb);
}
