//! The entry list and the entry editor's view of one entry. Both build
//! their rows with [`row`], so a row updated after an edit is the row the
//! list would show.
//!
//! Filtering and sorting happen here, in Rust, so the UI never holds every
//! entry's content. Diagnostics come from the preview's index when the
//! entry is compiled there, and from [`lint_entry`] otherwise.

use std::borrow::Cow;

use lorebook_engine::decorators::{self, Diagnostic};
use lorebook_engine::lint::lint_entry;
use lorebook_engine::model::Entry;
use lorebook_engine::preview::Preview;

use super::Workspace;
use crate::error::AppError;
use crate::views::{EntryDetail, EntryFilter, EntryRow, ListQuery, SortKey};

/// One row of the entry list.
fn row(e: &Entry, tokens: u32, diagnostics: u32) -> EntryRow {
    EntryRow {
        id: e.id,
        name: e.display_name().to_string(),
        keys: e.keys.join(", "),
        enabled: e.enabled,
        constant: e.constant,
        order: e.order,
        priority: e.priority,
        tokens,
        diagnostics,
    }
}

/// The diagnostics of `e`: those the preview compiled when the entry is in
/// attached book `book` of an up-to-date index, else linted on their own.
fn diagnostics<'a>(preview: &'a Preview, book: Option<usize>, e: &Entry) -> Cow<'a, [Diagnostic]> {
    match book.and_then(|b| preview.index().entry(b, e.id)) {
        Some(c) => Cow::Borrowed(&c.diagnostics),
        None => Cow::Owned(lint_entry(e)),
    }
}

/// Whether `e` mentions `needle` (lowercase) in its name, keys or content.
fn mentions(e: &Entry, needle: &str) -> bool {
    needle.is_empty()
        || e.comment.to_lowercase().contains(needle)
        || e.keys
            .iter()
            .chain(&e.secondary_keys)
            .any(|k| k.to_lowercase().contains(needle))
        || e.content.to_lowercase().contains(needle)
}

impl Workspace {
    /// The entry list, filtered and sorted.
    pub fn list(&mut self, doc: u32, q: &ListQuery) -> Result<Vec<EntryRow>, AppError> {
        self.refresh();
        let book = self.attached_position(doc);
        // Disjoint borrows: the documents are read while the preview counts.
        let d = self
            .docs
            .iter()
            .find(|d| d.id == doc)
            .ok_or_else(|| AppError::not_found(format!("no open book with id {doc}")))?;
        let preview = &mut self.preview;
        let needle = q.search.trim().to_lowercase();
        let mut rows: Vec<EntryRow> = Vec::with_capacity(d.book.entries.len());
        for e in &d.book.entries {
            let found = diagnostics(preview, book, e).len() as u32;
            let matches_filter = match q.filter {
                EntryFilter::All => true,
                EntryFilter::Enabled => e.enabled,
                EntryFilter::Disabled => !e.enabled,
                EntryFilter::Constant => e.constant,
                EntryFilter::Diagnostics => found > 0,
            };
            if !matches_filter || !mentions(e, &needle) {
                continue;
            }
            let tokens = preview.count_tokens(decorators::parse(&e.content).body);
            rows.push(row(e, tokens, found));
        }
        let key = q.sort;
        rows.sort_by(|a, b| {
            let o = match key {
                SortKey::Id => a.id.cmp(&b.id),
                SortKey::Name => a.name.to_lowercase().cmp(&b.name.to_lowercase()),
                SortKey::Keys => a.keys.to_lowercase().cmp(&b.keys.to_lowercase()),
                SortKey::Order => a.order.cmp(&b.order),
                SortKey::Priority => a.priority.cmp(&b.priority),
                SortKey::Tokens => a.tokens.cmp(&b.tokens),
                SortKey::Enabled => a.enabled.cmp(&b.enabled),
                SortKey::Constant => a.constant.cmp(&b.constant),
            }
            .then(a.id.cmp(&b.id));
            if q.descending {
                o.reverse()
            } else {
                o
            }
        });
        Ok(rows)
    }

    /// One entry with everything the editor shows about it.
    pub fn entry(&mut self, doc: u32, id: u64) -> Result<EntryDetail, AppError> {
        let d = self.doc(doc)?;
        let e = d
            .book
            .entry(id)
            .ok_or_else(|| AppError::not_found(format!("entry {id} is not in this book")))?
            .clone();
        let parsed = decorators::parse(&e.content);
        let decorator_lines = parsed.lines.clone();
        let body_line = parsed.lines.len() as u32;
        // An attached entry was just compiled by the preview: reuse its
        // diagnostics instead of compiling its keys again.
        let book = self.attached_position(doc).filter(|_| !self.stale);
        let tokens = self.preview.count_tokens(parsed.body);
        let diagnostics = diagnostics(&self.preview, book, &e).into_owned();
        let row = row(&e, tokens, diagnostics.len() as u32);
        Ok(EntryDetail {
            entry: e,
            decorator_lines,
            body_line,
            diagnostics,
            tokens,
            row,
        })
    }
}
