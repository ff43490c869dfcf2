//! Undo and redo (`history.rs`): steps, their inverses, coalescing and
//! the memory limits.

use super::*;
use lorebook_engine::model::Book;

fn doc(book: Book) -> Doc {
    Doc {
        id: 1,
        path: None,
        book,
        attached: false,
        history: History::saved(),
        disk: None,
        disk_reported: None,
        server: None,
        server_seen: None,
        source: None,
        origin: None,
        chat: None,
        with: None,
    }
}

/// Applying a change and then its inverse gives back the same book,
/// for every shape of change.
#[test]
fn a_change_then_its_inverse_restores_the_book() {
    let entry = |id: u64, content: &str| {
        Some(Box::new(Entry {
            id,
            content: content.into(),
            ..Entry::default()
        }))
    };
    let book = Book {
        entries: vec![*entry(0, "a").unwrap(), *entry(1, "b").unwrap()],
        ..Book::default()
    };
    let settings = doc(book.clone()).settings();
    let changes = [
        Change::Entry {
            index: 1,
            before: entry(1, "b"),
            after: entry(1, "c"),
        },
        Change::Entry {
            index: 2,
            before: None,
            after: entry(2, "new"),
        },
        Change::Entry {
            index: 0,
            before: entry(0, "a"),
            after: None,
        },
        Change::Settings {
            before: settings.clone(),
            after: BookSettings {
                token_budget: 42,
                ..settings
            },
        },
    ];
    for change in changes {
        let mut d = doc(book.clone());
        d.apply(&change);
        assert_ne!(d.book, book, "{change:?} changes the book");
        d.apply(&change.inverse());
        assert_eq!(d.book, book, "{change:?} is taken back");
    }
}

fn settings_edit(d: &mut Doc, budget: u32) {
    let before = d.settings();
    let after = BookSettings {
        token_budget: budget,
        ..before.clone()
    };
    d.commit(vec![Change::Settings { before, after }], None);
}

/// The history keeps at most `UNDO_LIMIT` steps: one under, at and over
/// the limit, and undo stops at the oldest step kept.
#[test]
fn undo_history_is_bounded() {
    for (edits, kept) in [
        (UNDO_LIMIT - 1, UNDO_LIMIT - 1),
        (UNDO_LIMIT, UNDO_LIMIT),
        (UNDO_LIMIT + 1, UNDO_LIMIT),
        (UNDO_LIMIT * 3, UNDO_LIMIT),
    ] {
        let mut d = doc(Book::default());
        for i in 0..edits {
            settings_edit(&mut d, 1000 + i as u32);
        }
        assert_eq!(d.history.undo.len(), kept, "{edits} edits");
        assert!(d.history.dirty(), "{edits} edits");
        assert_eq!(d.history.revision(), edits as u64);
    }
}

/// Forgetting the step the saved state sits on means no undo reaches
/// the saved state again: the book stays dirty however far it is undone.
#[test]
fn a_forgotten_saved_state_keeps_the_book_dirty() {
    let mut d = doc(Book::default());
    settings_edit(&mut d, 1);
    d.history.mark_saved();
    for i in 0..UNDO_LIMIT {
        settings_edit(&mut d, 2 + i as u32);
    }
    assert_eq!(d.history.saved_depth, Some(0));
    settings_edit(&mut d, 9999);
    assert_eq!(d.history.saved_depth, None);
    while let Some(edit) = d.history.pop_undo() {
        d.history.redo.push(edit);
    }
    assert!(d.history.dirty());
}

fn step(bytes: usize) -> Edit {
    Edit {
        changes: Vec::new(),
        bytes,
        entry: None,
        at: Instant::now(),
    }
}

/// The history holds at most `UNDO_BYTES`: steps that fill it exactly
/// are all kept, one byte more forgets the oldest step (and with it a
/// saved state there), and the newest step is kept however large.
#[test]
fn undo_history_is_bounded_in_bytes() {
    let quarter = UNDO_BYTES / 4;
    let mut h = History::saved();
    for _ in 0..4 {
        h.push_undo(step(quarter));
    }
    assert_eq!((h.undo.len(), h.undo_bytes), (4, UNDO_BYTES), "just at");
    h.push_undo(step(0));
    assert_eq!(h.undo.len(), 5, "an empty step fits");

    let mut h = History::saved();
    for _ in 0..3 {
        h.push_undo(step(quarter));
    }
    h.push_undo(step(quarter + 1));
    assert_eq!(
        (h.undo.len(), h.undo_bytes),
        (3, UNDO_BYTES - quarter + 1),
        "one over"
    );
    assert_eq!(h.saved_depth, None, "the saved state was forgotten");

    h.push_undo(step(UNDO_BYTES * 2));
    assert_eq!(
        (h.undo.len(), h.undo_bytes),
        (1, UNDO_BYTES * 2),
        "the newest stays"
    );
    assert_eq!(h.pop_undo().map(|e| e.bytes), Some(UNDO_BYTES * 2));
    assert_eq!(h.undo_bytes, 0);
}

/// A step counts the texts it holds: content, keys and the JSON kept
/// for other tools, on both sides of the change.
#[test]
fn a_step_counts_the_text_it_holds() {
    let bytes = |e: Entry| {
        Change::Entry {
            index: 0,
            before: Some(Box::new(e.clone())),
            after: Some(Box::new(e)),
        }
        .bytes()
    };
    let base = bytes(Entry::default());
    let text = "x".repeat(1000);
    let grown = [
        Entry {
            content: text.clone(),
            ..Entry::default()
        },
        Entry {
            comment: text.clone(),
            ..Entry::default()
        },
        Entry {
            keys: vec![text.clone()],
            ..Entry::default()
        },
        Entry {
            extensions: serde_json::json!({"deep": [{"x": text.clone()}]})
                .as_object()
                .unwrap()
                .clone(),
            ..Entry::default()
        },
    ];
    for e in grown {
        let b = bytes(e.clone());
        assert!(b >= base + 2 * text.len(), "{e:?}: {b} vs {base}");
        assert!(b < base + 2 * text.len() + 1000, "{e:?}: {b} vs {base}");
    }
}

/// One edit larger than the whole byte bound (an entry's text replaced
/// by more than `UNDO_BYTES`) forgets every older step, stays undoable
/// itself, and the book stays unsaved.
#[test]
fn a_huge_single_edit_is_kept_alone_and_undoes() {
    let entry = |content: String| Entry {
        id: 0,
        content,
        ..Entry::default()
    };
    let mut d = doc(Book {
        entries: vec![entry("small".into())],
        ..Book::default()
    });
    settings_edit(&mut d, 1);
    settings_edit(&mut d, 2);
    let huge = "h".repeat(UNDO_BYTES + 1);
    let change = Change::Entry {
        index: 0,
        before: Some(Box::new(entry("small".into()))),
        after: Some(Box::new(entry(huge))),
    };
    d.commit(vec![change], None);
    assert_eq!(d.history.undo.len(), 1);
    assert!(d.history.undo_bytes > UNDO_BYTES);
    let step = d.history.pop_undo().unwrap();
    for c in step.changes.iter().rev().map(Change::inverse) {
        d.apply(&c);
    }
    assert_eq!(d.book.entries[0].content, "small");
    assert!(d.history.dirty(), "the settings edits are forgotten");
}
