//! The documents the app holds: open books with their undo history, the
//! sample chat, the preview settings. Rust owns all of it; the UI renders
//! views of it and sends edits through commands.
//!
//! This module has no Tauri dependency so the command layer's behaviour is
//! tested as plain Rust.

use std::path::{Path, PathBuf};
use std::time::Instant;

use lorebook_engine::chat::{self, ChatOptions, Message};
use lorebook_engine::decorators;
use lorebook_engine::formats::{self, native, ExportFormat, Format, Imported};
use lorebook_engine::model::{Book, Entry, SCAN_DEPTH_RANGE, TOKEN_BUDGET_RANGE};
use lorebook_engine::preview::{Preview, Settings};
use lorebook_engine::tokenizer::encoding_for_model;

use crate::error::AppError;
use crate::views::*;

/// How many "no match" and "disabled" entries a preview view lists.
pub const SHOWN_PER_KIND: usize = 300;

/// Consecutive edits of one entry closer than this are one undo step.
const COALESCE_MS: u128 = 1000;

/// The sample book and chat bundled into the binary.
pub const SAMPLE_BOOK: &str = include_str!("../../samples/saltmere.json");
pub const SAMPLE_CHAT: &str = include_str!("../../samples/saltmere-chat.txt");

/// One change to a book; undo applies it backwards.
#[derive(Debug, Clone)]
enum Change {
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
}

#[derive(Debug, Clone)]
struct Edit {
    changes: Vec<Change>,
    /// The single entry this edit touched, for coalescing typing.
    entry: Option<u64>,
    at: Instant,
}

/// An open book.
#[derive(Debug)]
pub struct Doc {
    pub id: u32,
    pub path: Option<PathBuf>,
    pub book: Book,
    pub attached: bool,
    undo: Vec<Edit>,
    redo: Vec<Edit>,
    /// Undo depth of the saved state; `None` once no undo/redo reaches it.
    saved_depth: Option<usize>,
}

impl Doc {
    pub fn dirty(&self) -> bool {
        self.saved_depth != Some(self.undo.len())
    }

    fn settings(&self) -> BookSettings {
        BookSettings {
            name: self.book.name.clone(),
            description: self.book.description.clone(),
            scan_depth: self.book.scan_depth,
            token_budget: self.book.token_budget,
            recursive_scanning: self.book.recursive_scanning,
        }
    }

    fn apply(&mut self, change: &Change, forward: bool) {
        match change {
            Change::Entry {
                index,
                before,
                after,
            } => {
                let (from, to) = if forward {
                    (before, after)
                } else {
                    (after, before)
                };
                match (from, to) {
                    (Some(_), Some(e)) => self.book.entries[*index] = (**e).clone(),
                    (None, Some(e)) => self.book.entries.insert(*index, (**e).clone()),
                    (Some(_), None) => {
                        self.book.entries.remove(*index);
                    }
                    (None, None) => {}
                }
            }
            Change::Settings { before, after } => {
                let s = if forward { after } else { before };
                self.book.name = s.name.clone();
                self.book.description = s.description.clone();
                self.book.scan_depth = s.scan_depth;
                self.book.token_budget = s.token_budget;
                self.book.recursive_scanning = s.recursive_scanning;
            }
        }
    }

    /// Applies and records an edit; returns the changes applied, for the
    /// preview to follow.
    fn commit(&mut self, changes: Vec<Change>, entry: Option<u64>) -> Vec<Change> {
        if changes.is_empty() {
            return changes;
        }
        let applied = changes.clone();
        for c in &changes {
            self.apply(c, true);
        }
        let now = Instant::now();
        let coalesce = entry.is_some()
            && self.redo.is_empty()
            && self.saved_depth != Some(self.undo.len())
            && self.undo.last().is_some_and(|last| {
                last.entry == entry && now.duration_since(last.at).as_millis() < COALESCE_MS
            });
        if coalesce {
            if let Some(last) = self.undo.last_mut() {
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
            }
        } else {
            if self.saved_depth.is_some_and(|s| s > self.undo.len()) {
                // The saved state was in the redo stack, which is now gone.
                self.saved_depth = None;
            }
            self.undo.push(Edit {
                changes,
                entry,
                at: now,
            });
        }
        self.redo.clear();
        applied
    }

    fn position(&self, id: u64) -> Result<usize, AppError> {
        self.book
            .entries
            .iter()
            .position(|e| e.id == id)
            .ok_or_else(|| AppError::not_found(format!("entry {id} is not in this book")))
    }
}

/// Everything the app holds.
#[derive(Debug)]
pub struct Workspace {
    pub docs: Vec<Doc>,
    next_doc: u32,
    pub chat_text: String,
    pub chat: Vec<Message>,
    pub chat_warnings: Vec<String>,
    pub chat_error: Option<String>,
    pub chat_options: ChatOptions,
    preview: Preview,
    /// The attached books changed since the preview index was built.
    stale: bool,
    pub recent: Vec<PathBuf>,
    /// Imports read and reported, waiting for the user to confirm.
    pending: Vec<(u32, Imported, Option<PathBuf>)>,
    next_pending: u32,
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace {
            docs: Vec::new(),
            next_doc: 1,
            chat_text: String::new(),
            chat: Vec::new(),
            chat_warnings: Vec::new(),
            chat_error: None,
            chat_options: ChatOptions::default(),
            preview: Preview::new(&[], Settings::default()),
            stale: false,
            recent: Vec::new(),
            pending: Vec::new(),
            next_pending: 1,
        }
    }
}

impl Workspace {
    /// A workspace with the bundled sample book and chat.
    pub fn with_sample() -> Workspace {
        let mut ws = Workspace::default();
        if let Ok((book, _)) = native::load(SAMPLE_BOOK.as_bytes()) {
            ws.add_doc(book, None);
        }
        ws.set_chat(SAMPLE_CHAT.to_string());
        ws
    }

    fn add_doc(&mut self, book: Book, path: Option<PathBuf>) -> u32 {
        let id = self.next_doc;
        self.next_doc += 1;
        self.docs.push(Doc {
            id,
            path,
            book,
            attached: true,
            undo: Vec::new(),
            redo: Vec::new(),
            saved_depth: Some(0),
        });
        self.stale = true;
        id
    }

    pub fn doc(&self, id: u32) -> Result<&Doc, AppError> {
        self.docs
            .iter()
            .find(|d| d.id == id)
            .ok_or_else(|| AppError::not_found(format!("no open book with id {id}")))
    }

    fn doc_mut(&mut self, id: u32) -> Result<&mut Doc, AppError> {
        self.docs
            .iter_mut()
            .find(|d| d.id == id)
            .ok_or_else(|| AppError::not_found(format!("no open book with id {id}")))
    }

    /// Tells the preview about changes applied to `doc` (forwards, or
    /// backwards for undo), one entry at a time, so a keystroke never
    /// rebuilds the whole index.
    fn sync(&mut self, doc: u32, changes: &[Change], forward: bool) {
        let Some(book) = self.attached_position(doc) else {
            return;
        };
        if self.stale {
            // A rebuild is due anyway and will read the current books.
            return;
        }
        let mut apply = |c: &Change| match c {
            Change::Entry { before, after, .. } => {
                let (from, to) = if forward {
                    (before, after)
                } else {
                    (after, before)
                };
                match (from, to) {
                    (_, Some(e)) => self.preview.upsert_entry(book, e),
                    (Some(e), None) => self.preview.remove_entry(book, e.id),
                    (None, None) => {}
                }
            }
            Change::Settings { before, after } => {
                let s = if forward { after } else { before };
                self.preview.set_book_settings(
                    book,
                    s.scan_depth,
                    s.token_budget,
                    s.recursive_scanning,
                );
            }
        };
        if forward {
            changes.iter().for_each(&mut apply);
        } else {
            changes.iter().rev().for_each(&mut apply);
        }
    }

    pub fn state(&self) -> AppStateView {
        AppStateView {
            docs: self
                .docs
                .iter()
                .map(|d| DocSummary {
                    id: d.id,
                    name: d.book.name.clone(),
                    path: d.path.as_ref().map(|p| p.display().to_string()),
                    dirty: d.dirty(),
                    attached: d.attached,
                    entries: d.book.entries.len() as u32,
                    can_undo: !d.undo.is_empty(),
                    can_redo: !d.redo.is_empty(),
                })
                .collect(),
            chat_text: self.chat_text.clone(),
            chat_error: self.chat_error.clone(),
            chat_warnings: self.chat_warnings.clone(),
            settings: self.preview.settings().clone(),
            recent: self
                .recent
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
        }
    }

    // ---- files ----------------------------------------------------------

    pub fn new_book(&mut self) -> u32 {
        let book = Book {
            name: "Untitled book".into(),
            ..Book::default()
        };
        self.add_doc(book, None)
    }

    /// Opens a native book file; an already open path is focused instead.
    pub fn open_path(&mut self, path: &Path) -> Result<OpenResult, AppError> {
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if let Some(d) = self
            .docs
            .iter()
            .find(|d| d.path.as_deref() == Some(canonical.as_path()))
        {
            return Ok(OpenResult {
                doc: d.id,
                notes: vec![],
            });
        }
        let bytes = formats::read_limited(path).map_err(AppError::io)?;
        let (book, notes) = native::load(&bytes)
            .map_err(|e| AppError::format(format!("{}: {e}", path.display())))?;
        let doc = self.add_doc(book, Some(canonical.clone()));
        self.remember(canonical);
        Ok(OpenResult { doc, notes })
    }

    /// Reads any importable file. A native file whose import is lossless
    /// opens at once (and saves back to its path); anything else waits,
    /// with its report, for [`Workspace::confirm_import`].
    pub fn import_path(&mut self, path: &Path) -> Result<ImportOutcome, AppError> {
        let bytes = formats::read_limited(path).map_err(AppError::io)?;
        let imported = formats::import(&bytes)
            .map_err(|e| AppError::new(e.code(), format!("{}: {e}", path.display())))?;
        if imported.format == Format::Native && imported.report.is_lossless() {
            return self.open_path(path).map(ImportOutcome::Opened);
        }
        let id = self.next_pending;
        self.next_pending += 1;
        let view = PendingImport {
            id,
            file: path.display().to_string(),
            format: imported.format,
            name: imported.book.name.clone(),
            entries: imported.book.entries.len() as u32,
            report: imported.report.clone(),
        };
        let native_path = (imported.format == Format::Native).then(|| path.to_path_buf());
        self.pending.push((id, imported, native_path));
        Ok(ImportOutcome::Pending(view))
    }

    /// Imports waiting for confirmation.
    pub fn pending(&self) -> Vec<PendingImport> {
        self.pending
            .iter()
            .map(|(id, i, path)| PendingImport {
                id: *id,
                file: path
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
                format: i.format,
                name: i.book.name.clone(),
                entries: i.book.entries.len() as u32,
                report: i.report.clone(),
            })
            .collect()
    }

    /// Opens (`accept`) or discards a pending import.
    pub fn confirm_import(&mut self, id: u32, accept: bool) -> Result<Option<u32>, AppError> {
        let at = self
            .pending
            .iter()
            .position(|(p, _, _)| *p == id)
            .ok_or_else(|| AppError::not_found(format!("no pending import {id}")))?;
        let (_, imported, native_path) = self.pending.remove(at);
        if !accept {
            return Ok(None);
        }
        // A foreign book becomes a new native book: Save asks where.
        let doc = self.add_doc(imported.book, native_path);
        Ok(Some(doc))
    }

    /// What exporting `doc` to `to` would carry, without writing anything.
    pub fn export_report(
        &self,
        doc: u32,
        to: ExportFormat,
    ) -> Result<lorebook_engine::formats::Report, AppError> {
        let d = self.doc(doc)?;
        formats::export(&d.book, to)
            .map(|(_, report)| report)
            .map_err(|e| AppError::new(e.code(), e.to_string()))
    }

    /// Exports `doc` to `path` (into the card PNG `card` when given).
    pub fn export_to(
        &self,
        doc: u32,
        to: ExportFormat,
        path: &Path,
        card: Option<&Path>,
    ) -> Result<String, AppError> {
        let d = self.doc(doc)?;
        let (bytes, _) = match card {
            Some(card) => {
                let png = formats::read_limited(card).map_err(AppError::io)?;
                formats::export_into_card(&d.book, &png, to)
                    .map_err(|e| AppError::new(e.code(), format!("{}: {e}", card.display())))?
            }
            None => {
                formats::export(&d.book, to).map_err(|e| AppError::new(e.code(), e.to_string()))?
            }
        };
        formats::write_atomic(path, &bytes)
            .map_err(|e| AppError::io(format!("cannot write {}: {e}", path.display())))?;
        Ok(path.display().to_string())
    }

    /// Adds paths remembered from an earlier run after this run's own.
    pub fn add_recent(&mut self, paths: Vec<PathBuf>) {
        for p in paths {
            if !self.recent.contains(&p) && self.recent.len() < 10 {
                self.recent.push(p);
            }
        }
    }

    fn remember(&mut self, path: PathBuf) {
        self.recent.retain(|p| *p != path);
        self.recent.insert(0, path);
        self.recent.truncate(10);
    }

    /// Saves to the doc's path (or `path` for Save As), atomically.
    pub fn save(&mut self, doc: u32, path: Option<PathBuf>) -> Result<String, AppError> {
        let d = self.doc_mut(doc)?;
        let target = match path.or_else(|| d.path.clone()) {
            Some(p) => p,
            None => {
                return Err(AppError::new(
                    "needs_path",
                    "this book has no file yet: use Save As",
                ))
            }
        };
        native::save(&d.book, &target)
            .map_err(|e| AppError::io(format!("cannot save {}: {e}", target.display())))?;
        d.saved_depth = Some(d.undo.len());
        let canonical = target.canonicalize().unwrap_or(target);
        d.path = Some(canonical.clone());
        self.remember(canonical.clone());
        Ok(canonical.display().to_string())
    }

    pub fn close(&mut self, doc: u32) -> Result<(), AppError> {
        self.doc(doc)?;
        self.docs.retain(|d| d.id != doc);
        self.stale = true;
        Ok(())
    }

    pub fn any_dirty(&self) -> bool {
        self.docs.iter().any(Doc::dirty)
    }

    // ---- book and entries -------------------------------------------------

    pub fn book_settings(&self, doc: u32) -> Result<BookSettings, AppError> {
        Ok(self.doc(doc)?.settings())
    }

    pub fn set_book_settings(&mut self, doc: u32, s: BookSettings) -> Result<(), AppError> {
        let (lo, hi) = SCAN_DEPTH_RANGE;
        if !(lo..=hi).contains(&s.scan_depth) {
            return Err(AppError::invalid(format!(
                "scan depth must be between {lo} and {hi}"
            )));
        }
        let (lo, hi) = TOKEN_BUDGET_RANGE;
        if !(lo..=hi).contains(&s.token_budget) {
            return Err(AppError::invalid(format!(
                "token budget must be between {lo} and {hi}"
            )));
        }
        let d = self.doc_mut(doc)?;
        let before = d.settings();
        if before != s {
            let applied = d.commit(vec![Change::Settings { before, after: s }], None);
            self.sync(doc, &applied, true);
        }
        Ok(())
    }

    /// The entry list, filtered and sorted in Rust so the UI never holds
    /// every entry's content.
    pub fn list(&mut self, doc: u32, q: &ListQuery) -> Result<Vec<EntryRow>, AppError> {
        self.refresh();
        let book_pos = self.attached_position(doc);
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
            let compiled = book_pos.and_then(|b| preview.index().entry(b, e.id));
            let diagnostics = match compiled {
                Some(c) => c.diagnostics.len() as u32,
                None => diagnostics_of(e).len() as u32,
            };
            let matches_filter = match q.filter {
                EntryFilter::All => true,
                EntryFilter::Enabled => e.enabled,
                EntryFilter::Disabled => !e.enabled,
                EntryFilter::Constant => e.constant,
                EntryFilter::Diagnostics => diagnostics > 0,
            };
            if !matches_filter {
                continue;
            }
            if !needle.is_empty()
                && !e.comment.to_lowercase().contains(&needle)
                && !e
                    .keys
                    .iter()
                    .chain(&e.secondary_keys)
                    .any(|k| k.to_lowercase().contains(&needle))
                && !e.content.to_lowercase().contains(&needle)
            {
                continue;
            }
            // Same fields as `entry()` gives for one row.
            rows.push(EntryRow {
                id: e.id,
                name: e.display_name().to_string(),
                keys: e.keys.join(", "),
                enabled: e.enabled,
                constant: e.constant,
                order: e.order,
                priority: e.priority,
                tokens: preview.count_tokens(decorators::parse(&e.content).body),
                diagnostics,
            });
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
        let lines = parsed.lines.clone();
        let body_start = parsed.body_start as u32;
        let body = parsed.body.to_string();
        // An attached entry was just compiled by the preview: reuse its
        // diagnostics instead of compiling its keys again.
        let diagnostics = self
            .attached_position(doc)
            .filter(|_| !self.stale)
            .and_then(|b| self.preview.index().entry(b, id))
            .map(|c| c.diagnostics.clone())
            .unwrap_or_else(|| diagnostics_of(&e));
        let tokens = self.preview.count_tokens(&body);
        let row = EntryRow {
            id: e.id,
            name: e.display_name().to_string(),
            keys: e.keys.join(", "),
            enabled: e.enabled,
            constant: e.constant,
            order: e.order,
            priority: e.priority,
            tokens,
            diagnostics: diagnostics.len() as u32,
        };
        Ok(EntryDetail {
            entry: e,
            decorator_lines: lines,
            body_start,
            diagnostics,
            tokens,
            row,
        })
    }

    /// Replaces an entry (the editor sends the whole entry).
    pub fn update_entry(&mut self, doc: u32, entry: Entry) -> Result<EntryDetail, AppError> {
        let id = entry.id;
        let d = self.doc_mut(doc)?;
        let index = d.position(id)?;
        if d.book.entries[index] != entry {
            let before = d.book.entries[index].clone();
            let applied = d.commit(
                vec![Change::Entry {
                    index,
                    before: Some(Box::new(before)),
                    after: Some(Box::new(entry)),
                }],
                Some(id),
            );
            self.sync(doc, &applied, true);
        }
        self.entry(doc, id)
    }

    /// Adds a new entry (editor defaults) after the others.
    pub fn add_entry(&mut self, doc: u32) -> Result<u64, AppError> {
        let d = self.doc_mut(doc)?;
        let entry = Entry {
            id: d.book.next_id(),
            ..Entry::default()
        };
        let id = entry.id;
        let index = d.book.entries.len();
        let applied = d.commit(
            vec![Change::Entry {
                index,
                before: None,
                after: Some(Box::new(entry)),
            }],
            None,
        );
        self.sync(doc, &applied, true);
        Ok(id)
    }

    pub fn duplicate(&mut self, doc: u32, ids: &[u64]) -> Result<Vec<u64>, AppError> {
        let d = self.doc_mut(doc)?;
        let first_id = d.book.next_id();
        let first_index = d.book.entries.len();
        let mut changes = Vec::new();
        let mut new_ids = Vec::new();
        for (n, &id) in ids.iter().enumerate() {
            let next = first_id + n as u64;
            let src = d.book.entries[d.position(id)?].clone();
            let copy = Entry {
                id: next,
                comment: if src.comment.is_empty() {
                    String::new()
                } else {
                    format!("{} (copy)", src.comment)
                },
                ..src
            };
            new_ids.push(next);
            changes.push(Change::Entry {
                index: first_index + n,
                before: None,
                after: Some(Box::new(copy)),
            });
        }
        let applied = d.commit(changes, None);
        self.sync(doc, &applied, true);
        Ok(new_ids)
    }

    pub fn delete(&mut self, doc: u32, ids: &[u64]) -> Result<(), AppError> {
        let d = self.doc_mut(doc)?;
        let mut positions = ids
            .iter()
            .map(|&id| d.position(id))
            .collect::<Result<Vec<_>, _>>()?;
        positions.sort_unstable();
        positions.dedup();
        // Remove from the back so earlier indices stay valid; undo replays
        // the changes backwards, re-inserting from the front.
        let changes = positions
            .iter()
            .rev()
            .map(|&index| Change::Entry {
                index,
                before: Some(Box::new(d.book.entries[index].clone())),
                after: None,
            })
            .collect();
        let applied = d.commit(changes, None);
        self.sync(doc, &applied, true);
        Ok(())
    }

    pub fn bulk(&mut self, doc: u32, ids: &[u64], patch: &BulkPatch) -> Result<(), AppError> {
        let d = self.doc_mut(doc)?;
        let mut changes = Vec::new();
        for &id in ids {
            let index = d.position(id)?;
            let before = d.book.entries[index].clone();
            let mut after = before.clone();
            if let Some(v) = patch.enabled {
                after.enabled = v;
            }
            if let Some(v) = patch.order {
                after.order = v;
            }
            if let Some(v) = patch.priority {
                after.priority = v;
            }
            if after != before {
                changes.push(Change::Entry {
                    index,
                    before: Some(Box::new(before)),
                    after: Some(Box::new(after)),
                });
            }
        }
        let applied = d.commit(changes, None);
        self.sync(doc, &applied, true);
        Ok(())
    }

    pub fn undo(&mut self, doc: u32) -> Result<bool, AppError> {
        let d = self.doc_mut(doc)?;
        let Some(edit) = d.undo.pop() else {
            return Ok(false);
        };
        for c in edit.changes.iter().rev() {
            d.apply(c, false);
        }
        let changes = edit.changes.clone();
        d.redo.push(edit);
        self.sync(doc, &changes, false);
        Ok(true)
    }

    pub fn redo(&mut self, doc: u32) -> Result<bool, AppError> {
        let d = self.doc_mut(doc)?;
        let Some(mut edit) = d.redo.pop() else {
            return Ok(false);
        };
        for c in &edit.changes {
            d.apply(c, true);
        }
        // A redone edit never coalesces with the next one.
        edit.entry = None;
        let changes = edit.changes.clone();
        d.undo.push(edit);
        self.sync(doc, &changes, true);
        Ok(true)
    }

    /// Sets a decorator in content through the engine (the structured panel).
    pub fn set_decorator(content: &str, name: &str, arg: Option<&str>, present: bool) -> String {
        if present {
            decorators::set(content, name, arg)
        } else {
            decorators::remove(content, name)
        }
    }

    // ---- preview ------------------------------------------------------------

    pub fn set_chat(&mut self, text: String) {
        match chat::parse(&text, &self.chat_options) {
            Ok(c) => {
                self.chat = c.messages;
                self.chat_warnings = c.warnings;
                self.chat_error = None;
            }
            Err(e) => {
                // Keep the last good messages so the preview stays useful.
                self.chat_error = Some(e.to_string());
            }
        }
        self.chat_text = text;
    }

    pub fn set_attached(&mut self, doc: u32, attached: bool) -> Result<(), AppError> {
        self.doc_mut(doc)?.attached = attached;
        self.stale = true;
        Ok(())
    }

    pub fn set_settings(&mut self, settings: Settings) -> Result<(), AppError> {
        encoding_for_model(&settings.model).map_err(AppError::invalid)?;
        self.preview
            .set_settings(settings)
            .map_err(AppError::invalid)
    }

    pub fn settings(&self) -> &Settings {
        self.preview.settings()
    }

    fn attached_books(&self) -> Vec<Book> {
        self.docs
            .iter()
            .filter(|d| d.attached)
            .map(|d| d.book.clone())
            .collect()
    }

    /// Position among the attached books of `doc`, if attached.
    fn attached_position(&self, doc: u32) -> Option<usize> {
        self.docs
            .iter()
            .filter(|d| d.attached)
            .position(|d| d.id == doc)
    }

    fn refresh(&mut self) {
        if self.stale {
            let books = self.attached_books();
            self.preview.set_books(&books);
            self.stale = false;
        }
    }

    /// The preview of request `k` (default: the last).
    pub fn preview(&mut self, k: Option<usize>) -> PreviewView {
        self.refresh();
        let attached: Vec<(u32, String)> = self
            .docs
            .iter()
            .filter(|d| d.attached)
            .map(|d| (d.id, d.book.name.clone()))
            .collect();
        let k = k.unwrap_or(self.chat.len()).min(self.chat.len());
        let mut result = self.preview.request(&self.chat, k);
        // On a 10,000-entry book nearly every entry is "no match": the view
        // lists the first few of the plentiful kinds and counts the rest, so
        // a keystroke does not ship megabytes to the webview.
        let mut seen: Vec<(&'static str, u32)> = Vec::new();
        result.dropped.retain(|d| {
            let kind = d.reason.kind();
            if kind != "no_match" && kind != "disabled" {
                return true;
            }
            let n = match seen.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, n)) => n,
                None => {
                    seen.push((kind, 0));
                    &mut seen.last_mut().expect("just pushed").1
                }
            };
            *n += 1;
            *n as usize <= SHOWN_PER_KIND
        });
        let omitted = seen
            .into_iter()
            .filter(|(_, n)| *n as usize > SHOWN_PER_KIND)
            .map(|(kind, n)| OmittedDropped {
                kind: kind.to_string(),
                count: n - SHOWN_PER_KIND as u32,
            })
            .collect();
        let index = self.preview.index();
        let name = |book: usize, id: u64| -> String {
            index
                .entry(book, id)
                .map(|e| e.comment.to_string())
                .filter(|c| !c.trim().is_empty())
                .or_else(|| {
                    let doc = attached.get(book)?.0;
                    let d = self.docs.iter().find(|d| d.id == doc)?;
                    Some(d.book.entry(id)?.display_name().to_string())
                })
                .unwrap_or_default()
        };
        let names = result
            .injected
            .iter()
            .map(|i| (i.book, i.id))
            .chain(result.dropped.iter().map(|d| (d.book, d.id)))
            .map(|(b, id)| EntryName {
                book: b as u32,
                id,
                name: name(b, id),
            })
            .collect();
        let bodies = result
            .injected
            .iter()
            .filter_map(|i| {
                index
                    .entry(i.book, i.id)
                    .map(|e| (i.book as u32, i.id, e.body.to_string()))
            })
            .map(|(book, id, body)| EntryBody { book, id, body })
            .collect();
        PreviewView {
            books: attached
                .iter()
                .map(|(id, name)| AttachedBook {
                    doc: *id,
                    name: name.clone(),
                })
                .collect(),
            requests: self.chat.len() as u32,
            chat: self.chat.clone(),
            names,
            bodies,
            result,
            omitted,
        }
    }

    /// Which entries went into each request 1…M.
    pub fn log(&mut self) -> Vec<LogRow> {
        self.refresh();
        self.preview
            .log(&self.chat)
            .into_iter()
            .map(|r| LogRow {
                request: r.request as u32,
                used: r.budget.used,
                limit: r.budget.limit,
                injected: r
                    .injected
                    .iter()
                    .map(|i| EntryRef {
                        book: i.book as u32,
                        id: i.id,
                    })
                    .collect(),
            })
            .collect()
    }

    /// The doc behind attached book position `book`.
    pub fn doc_of_attached(&self, book: usize) -> Option<u32> {
        self.docs
            .iter()
            .filter(|d| d.attached)
            .nth(book)
            .map(|d| d.id)
    }
}

/// Diagnostics of one entry on its own: decorators and key lints.
pub fn diagnostics_of(e: &Entry) -> Vec<decorators::Diagnostic> {
    let book = Book {
        entries: vec![e.clone()],
        ..Book::default()
    };
    lorebook_engine::activation::Index::build(&[book])
        .entries
        .into_iter()
        .next()
        .map(|c| c.diagnostics)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> (Workspace, u32) {
        let ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        (ws, doc)
    }

    #[test]
    fn the_sample_is_open_and_previews() {
        let (mut ws, _) = ws();
        let p = ws.preview(None);
        assert!(p.result.injected.len() >= 3, "{:?}", p.result.injected);
        assert_eq!(p.requests as usize, ws.chat.len());
        assert!(ws.chat.len() >= 4);
    }

    #[test]
    fn editing_a_key_changes_the_preview_and_undo_restores_it() {
        let (mut ws, doc) = ws();
        let before = ws.preview(None).result.injected.len();
        let mut e = ws.entry(doc, 1).unwrap().entry;
        assert_eq!(e.comment, "The Lighthouse");
        e.keys = vec!["zeppelin".into()];
        ws.update_entry(doc, e).unwrap();
        assert!(ws.doc(doc).unwrap().dirty());
        let after = ws.preview(None).result;
        assert!(after
            .dropped
            .iter()
            .any(|d| d.id == 1 && d.reason.kind() == "no_match"));
        assert_ne!(after.injected.len(), before);
        assert!(ws.undo(doc).unwrap());
        assert_eq!(ws.preview(None).result.injected.len(), before);
        assert!(
            !ws.doc(doc).unwrap().dirty(),
            "undo back to the saved state is clean"
        );
        assert!(ws.redo(doc).unwrap());
        assert!(ws.doc(doc).unwrap().dirty());
    }

    #[test]
    fn typing_coalesces_into_one_undo_step() {
        let (mut ws, doc) = ws();
        let original = ws.entry(doc, 3).unwrap().entry;
        for text in ["a", "ab", "abc"] {
            let mut e = original.clone();
            e.content = text.into();
            ws.update_entry(doc, e).unwrap();
        }
        ws.undo(doc).unwrap();
        assert_eq!(ws.entry(doc, 3).unwrap().entry, original);
    }

    #[test]
    fn add_duplicate_delete_and_bulk_undo() {
        let (mut ws, doc) = ws();
        let n = ws.doc(doc).unwrap().book.entries.len();
        let id = ws.add_entry(doc).unwrap();
        assert!(
            ws.entry(doc, id).unwrap().entry.whole_words,
            "new entries have whole words on"
        );
        let copies = ws.duplicate(doc, &[1, 2]).unwrap();
        assert_eq!(ws.doc(doc).unwrap().book.entries.len(), n + 3);
        assert_eq!(
            ws.entry(doc, copies[0]).unwrap().entry.comment,
            "The Lighthouse (copy)"
        );
        ws.delete(doc, &[0, 2, copies[1]]).unwrap();
        assert_eq!(ws.doc(doc).unwrap().book.entries.len(), n);
        ws.undo(doc).unwrap();
        let ids: Vec<u64> = ws
            .doc(doc)
            .unwrap()
            .book
            .entries
            .iter()
            .map(|e| e.id)
            .collect();
        assert_eq!(&ids[..3], &[0, 1, 2], "deleted entries come back in place");
        ws.bulk(
            doc,
            &[1, 2],
            &BulkPatch {
                enabled: Some(false),
                order: Some(7),
                priority: None,
            },
        )
        .unwrap();
        let e = ws.entry(doc, 2).unwrap().entry;
        assert!(!e.enabled);
        assert_eq!(e.order, 7);
        ws.undo(doc).unwrap();
        assert!(ws.entry(doc, 2).unwrap().entry.enabled);
    }

    #[test]
    fn settings_ranges_are_enforced() {
        let (mut ws, doc) = ws();
        let mut s = ws.book_settings(doc).unwrap();
        s.scan_depth = 101;
        assert_eq!(
            ws.set_book_settings(doc, s.clone()).unwrap_err().kind,
            "invalid"
        );
        s.scan_depth = 10;
        s.token_budget = 99;
        assert!(ws.set_book_settings(doc, s.clone()).is_err());
        s.token_budget = 32000;
        ws.set_book_settings(doc, s).unwrap();
        assert_eq!(ws.doc(doc).unwrap().book.token_budget, 32000);
        assert_eq!(ws.preview(None).result.budget.limit, 32000);
    }

    #[test]
    fn list_filters_sorts_and_searches() {
        let (mut ws, doc) = ws();
        let q = |search: &str, filter, sort, descending| ListQuery {
            search: search.into(),
            filter,
            sort,
            descending,
        };
        let all = ws
            .list(doc, &q("", EntryFilter::All, SortKey::Id, false))
            .unwrap();
        assert_eq!(all.len(), ws.doc(doc).unwrap().book.entries.len());
        assert!(all.iter().all(|r| r.tokens > 0));
        let disabled = ws
            .list(doc, &q("", EntryFilter::Disabled, SortKey::Id, false))
            .unwrap();
        assert!(disabled.iter().all(|r| !r.enabled) && !disabled.is_empty());
        let constant = ws
            .list(doc, &q("", EntryFilter::Constant, SortKey::Id, false))
            .unwrap();
        assert_eq!(constant.len(), 1);
        let found = ws
            .list(
                doc,
                &q("widow's teeth", EntryFilter::All, SortKey::Id, false),
            )
            .unwrap();
        assert_eq!(found.len(), 1, "search looks into content");
        let by_prio = ws
            .list(doc, &q("", EntryFilter::All, SortKey::Priority, true))
            .unwrap();
        assert!(by_prio.windows(2).all(|w| w[0].priority >= w[1].priority));
        let mut e = ws.entry(doc, 3).unwrap().entry;
        e.content = "@@bogus\nx".into();
        ws.update_entry(doc, e).unwrap();
        let diag = ws
            .list(doc, &q("", EntryFilter::Diagnostics, SortKey::Id, false))
            .unwrap();
        assert!(diag.iter().any(|r| r.id == 3));
    }

    #[test]
    fn save_and_reopen() {
        let (mut ws, doc) = ws();
        assert_eq!(ws.save(doc, None).unwrap_err().kind, "needs_path");
        let dir = std::env::temp_dir().join(format!("lbs-ws-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("book.json");
        let mut e = ws.entry(doc, 1).unwrap().entry;
        e.keys.push("beacon".into());
        ws.update_entry(doc, e).unwrap();
        ws.save(doc, Some(path.clone())).unwrap();
        assert!(!ws.doc(doc).unwrap().dirty());
        let mut other = Workspace::default();
        let opened = other.open_path(&path).unwrap();
        assert!(other
            .entry(opened.doc, 1)
            .unwrap()
            .entry
            .keys
            .contains(&"beacon".to_string()));
        assert_eq!(
            other.open_path(&path).unwrap().doc,
            opened.doc,
            "opening twice focuses"
        );
        let bad = dir.join("bad.json");
        std::fs::write(&bad, "{ nope").unwrap();
        let err = other.open_path(&bad).unwrap_err();
        assert_eq!(err.kind, "format");
        assert!(err.message.contains("line 1"), "{}", err.message);
        assert_eq!(other.docs.len(), 1, "a failed open touches nothing");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_bad_chat_keeps_the_last_good_messages() {
        let (mut ws, _) = ws();
        let n = ws.chat.len();
        ws.set_chat("[{\"role\": ".into());
        assert!(ws.chat_error.as_deref().unwrap().contains("line 1"));
        assert_eq!(ws.chat.len(), n);
        ws.set_chat("User: the lighthouse".into());
        assert_eq!(ws.chat.len(), 1);
        assert!(ws.chat_error.is_none());
    }

    #[test]
    fn the_view_counts_what_it_does_not_list() {
        let mut ws = Workspace::default();
        let doc = ws.new_book();
        for _ in 0..(SHOWN_PER_KIND + 5) {
            ws.add_entry(doc).unwrap();
        }
        ws.set_chat("User: hello".into());
        let p = ws.preview(None);
        assert_eq!(p.result.dropped.len(), SHOWN_PER_KIND);
        assert_eq!(p.omitted.len(), 1);
        assert_eq!(
            (p.omitted[0].kind.as_str(), p.omitted[0].count),
            ("no_match", 5)
        );
    }

    #[test]
    fn detaching_a_book_removes_it_from_the_preview() {
        let (mut ws, doc) = ws();
        ws.set_attached(doc, false).unwrap();
        let p = ws.preview(None);
        assert!(p.result.injected.is_empty() && p.result.dropped.is_empty());
        assert!(ws
            .set_settings(Settings {
                model: "nope".into(),
                ..Settings::default()
            })
            .is_err());
    }

    /// The shared corpus: `LOREBOOK_CORPUS`, else `../shared/corpus` beside
    /// the repository. `None` when absent, said once on stderr (past the
    /// harness's capture, so it shows): a plain clone skips those tests.
    fn corpus_root() -> Option<std::path::PathBuf> {
        let root = match std::env::var_os("LOREBOOK_CORPUS") {
            Some(dir) => std::path::PathBuf::from(dir),
            None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
        };
        if root.is_dir() {
            return Some(root);
        }
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "skipped: corpus tests, {} not found (set LOREBOOK_CORPUS)",
                root.display()
            );
        });
        None
    }

    #[test]
    fn foreign_files_wait_for_confirmation_with_a_report() {
        let mut ws = Workspace::default();
        let Some(corpus) = corpus_root() else {
            return;
        };
        let st = corpus.join("sillytavern/Eldoria.json");
        let ImportOutcome::Pending(p) = ws.import_path(&st).unwrap() else {
            panic!("a SillyTavern file is not opened without confirmation")
        };
        assert_eq!(p.entries, 4);
        assert_eq!(p.format, Format::SillyTavern);
        assert!(ws.docs.is_empty(), "nothing opens before confirming");
        assert_eq!(ws.pending().len(), 1);
        let doc = ws.confirm_import(p.id, true).unwrap().unwrap();
        assert!(
            ws.doc(doc).unwrap().path.is_none(),
            "an imported book saves as a new native file"
        );
        assert!(ws.pending().is_empty());
        let ImportOutcome::Pending(p) = ws
            .import_path(&corpus.join("ccv3/default_Seraphina.png"))
            .unwrap()
        else {
            panic!()
        };
        assert_eq!(ws.confirm_import(p.id, false).unwrap(), None);
        assert_eq!(ws.docs.len(), 1);
        let err = ws
            .import_path(&corpus.join("kobold/create_character_20210621.json"))
            .unwrap_err();
        assert!(err.message.contains("KoboldAI"), "{}", err.message);
        assert_eq!(ws.docs.len(), 1, "a failed import touches nothing");
        let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/saltmere.json");
        assert!(matches!(
            ws.import_path(&sample).unwrap(),
            ImportOutcome::Opened(_)
        ));
    }

    #[test]
    fn export_reports_then_writes() {
        let (ws, doc) = ws();
        let report = ws.export_report(doc, ExportFormat::Risu).unwrap();
        assert!(!report.is_lossless(), "RisuAI has no place for whole words");
        let dir = std::env::temp_dir().join(format!("lbs-export-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("book.risu.json");
        ws.export_to(doc, ExportFormat::Risu, &out, None).unwrap();
        let back = formats::import(&std::fs::read(&out).unwrap()).unwrap();
        assert_eq!(back.format, Format::Risu);
        assert_eq!(
            back.book.entries.len(),
            ws.doc(doc).unwrap().book.entries.len()
        );
        let Some(corpus) = corpus_root() else {
            return;
        };
        let card = corpus.join("ccv3/default_Seraphina.png");
        let png = dir.join("card.png");
        ws.export_to(doc, ExportFormat::CardV3, &png, Some(&card))
            .unwrap();
        assert_eq!(
            formats::import(&std::fs::read(&png).unwrap())
                .unwrap()
                .book
                .name,
            "Saltmere"
        );
        let err = ws
            .export_to(doc, ExportFormat::Risu, &png, Some(&card))
            .unwrap_err();
        assert!(!err.message.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The preview after incremental updates equals one built from scratch.
    fn assert_fresh(ws: &mut Workspace) {
        let incremental = ws.preview(None).result;
        let books = ws.attached_books();
        let fresh = Preview::new(&books, ws.settings().clone()).request(&ws.chat, ws.chat.len());
        assert_eq!(incremental, fresh);
    }

    #[test]
    fn every_edit_updates_the_preview_incrementally() {
        let (mut ws, doc) = ws();
        assert_fresh(&mut ws);
        let mut e = ws.entry(doc, 1).unwrap().entry;
        e.keys = vec!["ferry".into()];
        e.content = "@@priority 999\nNew body.".into();
        ws.update_entry(doc, e).unwrap();
        assert_fresh(&mut ws);
        let id = ws.add_entry(doc).unwrap();
        let mut e = ws.entry(doc, id).unwrap().entry;
        e.keys = vec!["tavern".into()];
        e.content = "A new tavern note.".into();
        ws.update_entry(doc, e).unwrap();
        assert_fresh(&mut ws);
        ws.delete(doc, &[2, 3]).unwrap();
        assert_fresh(&mut ws);
        ws.bulk(
            doc,
            &[0, 4],
            &BulkPatch {
                enabled: Some(false),
                order: Some(1),
                priority: None,
            },
        )
        .unwrap();
        assert_fresh(&mut ws);
        let mut s = ws.book_settings(doc).unwrap();
        s.token_budget = 120;
        s.recursive_scanning = false;
        s.scan_depth = 2;
        ws.set_book_settings(doc, s).unwrap();
        assert_fresh(&mut ws);
        for _ in 0..4 {
            ws.undo(doc).unwrap();
            assert_fresh(&mut ws);
        }
        ws.redo(doc).unwrap();
        assert_fresh(&mut ws);
        ws.duplicate(doc, &[1]).unwrap();
        assert_fresh(&mut ws);
    }

    #[test]
    fn decorator_panel_goes_through_the_engine() {
        let c = Workspace::set_decorator("Body", "probability", Some("30"), true);
        assert_eq!(c, "@@probability 30\nBody");
        assert_eq!(
            Workspace::set_decorator(&c, "probability", None, false),
            "Body"
        );
    }
}
