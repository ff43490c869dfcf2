//! Undo history. Every edit of a book is a list of [`Change`]s; undo applies
//! their [`Change::inverse`] in reverse order, so the code that applies a
//! change (to the book here, to the preview in [`Workspace::sync`]) is
//! written once, forwards only.
//!
//! **Invariant:** a change records the whole entry (or settings) on both
//! sides, so applying a change and then its inverse restores the book
//! exactly.

use std::time::Instant;

use lorebook_engine::model::{Book, Entry};
use serde_json::Value;

use super::{Doc, Workspace};
use crate::error::AppError;
use crate::views::BookSettings;

/// Consecutive edits of one entry closer than this are one undo step.
const COALESCE_MS: u128 = 1000;

/// How many undo steps a book keeps. Each step holds whole entries, so an
/// unbounded history of a long session would grow without end; past this
/// many the oldest step is forgotten (the README documents the number).
pub const UNDO_LIMIT: usize = 500;

/// How much text the undo steps of one book may hold, in bytes (as
/// [`Edit::bytes`] counts them). Steps of whole entries can be large — a
/// bulk edit of a 10,000-entry book holds every entry twice — so past this
/// the oldest steps are forgotten too. The newest step is always kept,
/// however large, so the last edit can be undone.
pub const UNDO_BYTES: usize = 64 << 20;

/// One change to a book.
#[derive(Debug, Clone)]
pub(super) enum Change {
    /// `before` → `after` at `index` of the entry list; `None` means the
    /// entry is absent on that side (insert / remove).
    Entry {
        index: usize,
        before: Option<Box<Entry>>,
        after: Option<Box<Entry>>,
    },
    Settings {
        before: BookSettings,
        after: BookSettings,
    },
    /// The book's scenarios: its `extensions.lorebook_studio` object, whole
    /// (`None`: absent).
    Scenarios {
        before: Option<Box<serde_json::Value>>,
        after: Option<Box<serde_json::Value>>,
    },
}

impl Change {
    /// Entry `before`, at `index`, becomes `after`.
    pub(super) fn edit(index: usize, before: &Entry, after: Entry) -> Change {
        Change::Entry {
            index,
            before: Some(Box::new(before.clone())),
            after: Some(Box::new(after)),
        }
    }

    /// `e` inserted at `index`.
    pub(super) fn add(index: usize, e: Entry) -> Change {
        Change::Entry {
            index,
            before: None,
            after: Some(Box::new(e)),
        }
    }

    /// The entries of `entries` at `positions` removed, from the back so
    /// the earlier positions stay valid (undo replays the inverse changes
    /// backwards, inserting from the front). Repeated positions count once.
    pub(super) fn removals(entries: &[Entry], mut positions: Vec<usize>) -> Vec<Change> {
        positions.sort_unstable();
        positions.dedup();
        positions
            .iter()
            .rev()
            .map(|&index| Change::Entry {
                index,
                before: Some(Box::new(entries[index].clone())),
                after: None,
            })
            .collect()
    }

    /// The change that takes the book back: `after` → `before`.
    pub(super) fn inverse(&self) -> Change {
        match self {
            Change::Entry {
                index,
                before,
                after,
            } => Change::Entry {
                index: *index,
                before: after.clone(),
                after: before.clone(),
            },
            Change::Settings { before, after } => Change::Settings {
                before: after.clone(),
                after: before.clone(),
            },
            Change::Scenarios { before, after } => Change::Scenarios {
                before: after.clone(),
                after: before.clone(),
            },
        }
    }
}

impl Change {
    /// About what this change holds in memory: its entries or settings on
    /// both sides, strings by their length.
    fn bytes(&self) -> usize {
        match self {
            Change::Entry { before, after, .. } => {
                let side = |e: &Option<Box<Entry>>| e.as_deref().map_or(0, entry_bytes);
                std::mem::size_of::<Change>() + side(before) + side(after)
            }
            Change::Settings { before, after } => {
                let side = |s: &BookSettings| {
                    std::mem::size_of::<BookSettings>() + s.name.len() + s.description.len()
                };
                std::mem::size_of::<Change>() + side(before) + side(after)
            }
            Change::Scenarios { before, after } => {
                let side = |v: &Option<Box<serde_json::Value>>| {
                    v.as_deref().map_or(0, |v| v.to_string().len())
                };
                std::mem::size_of::<Change>() + side(before) + side(after)
            }
        }
    }
}

/// About what an entry holds: its fixed fields, its texts and keys, and
/// the JSON it keeps for other tools (walked without recursion, so any
/// nesting is fine).
fn entry_bytes(e: &Entry) -> usize {
    let strings = |list: &[String]| -> usize {
        list.iter()
            .map(|k| std::mem::size_of::<String>() + k.len())
            .sum()
    };
    let mut bytes = std::mem::size_of::<Entry>()
        + e.comment.len()
        + e.content.len()
        + strings(&e.keys)
        + strings(&e.secondary_keys);
    let mut stack: Vec<&Value> = e.extensions.values().chain(e.extra.values()).collect();
    bytes += e
        .extensions
        .keys()
        .chain(e.extra.keys())
        .map(String::len)
        .sum::<usize>();
    while let Some(v) = stack.pop() {
        bytes += std::mem::size_of::<Value>();
        match v {
            Value::String(s) => bytes += s.len(),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                bytes += map.keys().map(String::len).sum::<usize>();
                stack.extend(map.values());
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    bytes
}

/// One undo step: the changes of one command.
#[derive(Debug, Clone)]
pub(super) struct Edit {
    changes: Vec<Change>,
    /// What `changes` hold ([`Change::bytes`]), counted against
    /// [`UNDO_BYTES`].
    bytes: usize,
    /// The single entry this edit touched, for coalescing typing.
    entry: Option<u64>,
    at: Instant,
}

/// The undo and redo stacks of one book, and where its saved state is.
#[derive(Debug, Default)]
pub(super) struct History {
    undo: Vec<Edit>,
    redo: Vec<Edit>,
    /// The sum of the undo steps' [`Edit::bytes`]. The redo steps are not
    /// counted: they were undo steps, and a new edit drops them.
    undo_bytes: usize,
    /// Undo depth of the saved state; `None` once no undo/redo reaches it.
    saved_depth: Option<usize>,
    /// The book was never saved to its file in this run (a recovered copy,
    /// an import): there is no saved state, rather than one out of reach.
    never_saved: bool,
    /// Counts every change of the book (edit, undo, redo), so autosave can
    /// tell whether what it last wrote is still current.
    revision: u64,
    /// When the book last changed, for autosave's quiet period.
    changed_at: Option<Instant>,
}

impl History {
    /// A history whose current state is the saved one.
    pub(super) fn saved() -> History {
        History {
            saved_depth: Some(0),
            ..History::default()
        }
    }

    pub(super) fn dirty(&self) -> bool {
        self.saved_depth != Some(self.undo.len())
    }

    pub(super) fn mark_saved(&mut self) {
        self.saved_depth = Some(self.undo.len());
        self.never_saved = false;
    }

    /// Whether the book has no saved state at all (see `never_saved`).
    pub(super) fn never_saved(&self) -> bool {
        self.never_saved
    }

    /// The history of a confirmed import: a new book, never saved.
    pub(super) fn imported() -> History {
        History {
            never_saved: true,
            ..History::default()
        }
    }

    /// A history whose current state was never saved to its file (a book
    /// restored from a recovery copy).
    pub(super) fn unsaved() -> History {
        History {
            changed_at: Some(Instant::now()),
            never_saved: true,
            ..History::default()
        }
    }

    pub(super) fn revision(&self) -> u64 {
        self.revision
    }

    pub(super) fn changed_at(&self) -> Option<Instant> {
        self.changed_at
    }

    fn touch(&mut self, now: Instant) {
        self.revision += 1;
        self.changed_at = Some(now);
    }

    /// Pushes an undo step, forgetting the oldest past [`UNDO_LIMIT`]
    /// steps or [`UNDO_BYTES`].
    fn push_undo(&mut self, edit: Edit) {
        self.undo_bytes += edit.bytes;
        self.undo.push(edit);
        self.forget_past_limits();
    }

    /// Forgets the oldest steps until the history is within its limits,
    /// always keeping the newest.
    fn forget_past_limits(&mut self) {
        let mut forget = 0;
        let mut left = self.undo_bytes;
        while self.undo.len() - forget > 1
            && (self.undo.len() - forget > UNDO_LIMIT || left > UNDO_BYTES)
        {
            left -= self.undo[forget].bytes;
            forget += 1;
        }
        if forget == 0 {
            return;
        }
        self.undo.drain(..forget);
        self.undo_bytes = left;
        // The saved state moved closer to the bottom; when it was among the
        // forgotten steps, no undo reaches it any more.
        self.saved_depth = self.saved_depth.and_then(|s| s.checked_sub(forget));
    }

    /// Takes the newest undo step off the stack.
    fn pop_undo(&mut self) -> Option<Edit> {
        let edit = self.undo.pop()?;
        self.undo_bytes -= edit.bytes;
        Some(edit)
    }

    /// The book as it was at undo depth `depth`, from `current` (the book
    /// now): undo steps taken back, or redo steps applied again; `None`
    /// when neither reaches it.
    pub(super) fn book_at(&self, current: &Book, depth: usize) -> Option<Book> {
        let now = self.undo.len();
        let mut book = current.clone();
        if depth <= now {
            for edit in self.undo[depth..].iter().rev() {
                for c in edit.changes.iter().rev() {
                    apply_to(&mut book, &c.inverse());
                }
            }
        } else {
            let ahead = depth - now;
            if ahead > self.redo.len() {
                return None;
            }
            for edit in self.redo.iter().rev().take(ahead) {
                for c in &edit.changes {
                    apply_to(&mut book, c);
                }
            }
        }
        Some(book)
    }

    /// The book as last saved, from `current`; `None` when the undo
    /// history no longer reaches it (or it was never saved).
    pub(super) fn saved_book(&self, current: &Book) -> Option<Book> {
        self.book_at(current, self.saved_depth?)
    }

    /// The undo steps, newest first: the entry each touched (when one) and
    /// when it was made.
    pub(super) fn steps(&self) -> impl Iterator<Item = (Option<u64>, Instant)> + '_ {
        self.undo.iter().rev().map(|e| (e.entry, e.at))
    }

    /// The book as it was `back` undo steps ago, from `current`; `None`
    /// past the history.
    pub(super) fn book_back(&self, current: &Book, back: usize) -> Option<Book> {
        let depth = self.undo.len().checked_sub(back)?;
        self.book_at(current, depth)
    }

    pub(super) fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub(super) fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }
}

/// Applies one change to `book`.
fn apply_to(book: &mut Book, change: &Change) {
    match change {
        Change::Entry {
            index,
            before,
            after,
        } => match (before, after) {
            (Some(_), Some(e)) => book.entries[*index] = (**e).clone(),
            (None, Some(e)) => book.entries.insert(*index, (**e).clone()),
            (Some(_), None) => {
                book.entries.remove(*index);
            }
            (None, None) => {}
        },
        Change::Settings { after: s, .. } => {
            book.name = s.name.clone();
            book.description = s.description.clone();
            book.scan_depth = s.scan_depth;
            book.token_budget = s.token_budget;
            book.recursive_scanning = s.recursive_scanning;
        }
        Change::Scenarios { after, .. } => {
            let ns = lorebook_engine::scenario::NS.to_string();
            match after {
                Some(v) => {
                    book.extensions.insert(ns, (**v).clone());
                }
                None => {
                    book.extensions.remove(&ns);
                }
            }
        }
    }
}

impl Doc {
    /// Applies one change to the book.
    fn apply(&mut self, change: &Change) {
        apply_to(&mut self.book, change);
    }

    /// Applies and records an edit; returns the changes applied, for the
    /// preview to follow.
    pub(super) fn commit(&mut self, changes: Vec<Change>, entry: Option<u64>) -> Vec<Change> {
        if changes.is_empty() {
            return changes;
        }
        let applied = changes.clone();
        for c in &changes {
            self.apply(c);
        }
        let now = Instant::now();
        let h = &mut self.history;
        let coalesce = entry.is_some()
            && h.redo.is_empty()
            && h.saved_depth != Some(h.undo.len())
            && h.undo.last().is_some_and(|last| {
                last.entry == entry && now.duration_since(last.at).as_millis() < COALESCE_MS
            });
        if coalesce {
            if let Some(last) = h.undo.last_mut() {
                // Merge: keep the first `before`, take the new `after`.
                if let (
                    Some(Change::Entry { after, .. }),
                    Some(Change::Entry {
                        after: new_after, ..
                    }),
                ) = (last.changes.first_mut(), changes.into_iter().next())
                {
                    *after = new_after;
                }
                last.at = now;
                let bytes = last.changes.iter().map(Change::bytes).sum();
                h.undo_bytes = h.undo_bytes - last.bytes + bytes;
                last.bytes = bytes;
            }
            h.forget_past_limits();
        } else {
            if h.saved_depth.is_some_and(|s| s > h.undo.len()) {
                // The saved state was in the redo stack, which is now gone.
                h.saved_depth = None;
            }
            h.push_undo(Edit {
                bytes: changes.iter().map(Change::bytes).sum(),
                changes,
                entry,
                at: now,
            });
        }
        h.redo.clear();
        h.touch(now);
        applied
    }
}

impl Workspace {
    /// Takes back the last edit of `doc`; `false` when there is none.
    pub fn undo(&mut self, doc: u32) -> Result<bool, AppError> {
        let d = self.doc_mut(doc)?;
        let Some(edit) = d.history.pop_undo() else {
            return Ok(false);
        };
        let inverse: Vec<Change> = edit.changes.iter().rev().map(Change::inverse).collect();
        for c in &inverse {
            d.apply(c);
        }
        d.history.redo.push(edit);
        d.history.touch(Instant::now());
        self.sync(doc, &inverse);
        Ok(true)
    }

    /// Applies again the last undone edit of `doc`; `false` when there is
    /// none.
    pub fn redo(&mut self, doc: u32) -> Result<bool, AppError> {
        let d = self.doc_mut(doc)?;
        let Some(mut edit) = d.history.redo.pop() else {
            return Ok(false);
        };
        for c in &edit.changes {
            d.apply(c);
        }
        // A redone edit never coalesces with the next one.
        edit.entry = None;
        let changes = edit.changes.clone();
        d.history.push_undo(edit);
        d.history.touch(Instant::now());
        self.sync(doc, &changes);
        Ok(true)
    }
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
