//! Edits of a book: its settings and its entries. Each command turns into a
//! list of [`Change`]s that the history records and the preview follows.

use lorebook_engine::decorators;
use lorebook_engine::formats::native;
use lorebook_engine::formats::st_fields;
use lorebook_engine::model::{Entry, SCAN_DEPTH_RANGE, TOKEN_BUDGET_RANGE};

use super::history::Change;
use super::Workspace;
use crate::error::{AppError, BookSetting, ErrorCode};
use crate::views::{BookSettings, BulkPatch, EntryDetail, EntryEdited, PreviewAsk, StEdit};

impl Workspace {
    pub fn book_settings(&self, doc: u32) -> Result<BookSettings, AppError> {
        Ok(self.doc(doc)?.settings())
    }

    pub fn set_book_settings(&mut self, doc: u32, s: BookSettings) -> Result<(), AppError> {
        let (lo, hi) = SCAN_DEPTH_RANGE;
        if !(lo..=hi).contains(&s.scan_depth) {
            return Err(AppError::invalid(
                format!("scan depth must be between {lo} and {hi}"),
                ErrorCode::BookSettingOutOfRange {
                    setting: BookSetting::ScanDepth,
                    min: lo,
                    max: hi,
                },
            ));
        }
        let (lo, hi) = TOKEN_BUDGET_RANGE;
        if !(lo..=hi).contains(&s.token_budget) {
            return Err(AppError::invalid(
                format!("token budget must be between {lo} and {hi}"),
                ErrorCode::BookSettingOutOfRange {
                    setting: BookSetting::TokenBudget,
                    min: lo,
                    max: hi,
                },
            ));
        }
        let d = self.doc_mut(doc)?;
        let before = d.settings();
        if before != s {
            let applied = d.commit(vec![Change::Settings { before, after: s }], None);
            self.sync(doc, &applied);
        }
        Ok(())
    }

    /// Replaces an entry (the editor sends the whole entry).
    /// Replaces an entry with the editor's version of it. What the editor
    /// cannot change or hold exactly is taken from the stored entry, so a
    /// trip through the webview's JavaScript numbers never alters it: the
    /// `extensions` and unknown fields (free-form JSON whose integers may
    /// pass 2^53), and an order or priority beyond ±2^53 that came back
    /// only rounded.
    pub fn update_entry(&mut self, doc: u32, mut entry: Entry) -> Result<EntryDetail, AppError> {
        let id = entry.id;
        let d = self.doc_mut(doc)?;
        let index = d.position(id)?;
        let stored = &d.book.entries[index];
        entry.extensions = stored.extensions.clone();
        entry.extra = stored.extra.clone();
        entry.order = unrounded(stored.order, entry.order);
        entry.priority = unrounded(stored.priority, entry.priority);
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
            self.sync(doc, &applied);
        }
        self.entry(doc, id)
    }

    /// [`Workspace::update_entry`] answered with the workspace's state and
    /// the preview `ask` names, computed under the same lock: a keystroke
    /// in an entry is one round trip. The preview is left out (`None`)
    /// when the rules in force are not the ones asked for or it gave way
    /// or failed; the UI then asks for it with its own command, which
    /// reports any error.
    pub fn edit_entry(
        &mut self,
        doc: u32,
        entry: Entry,
        ask: Option<PreviewAsk>,
    ) -> Result<EntryEdited, AppError> {
        let detail = self.update_entry(doc, entry)?;
        // Only under the rules asked for: a preview of other rules would be
        // shown in the wrong panel.
        let preview = ask
            .filter(|a| a.rules() == self.rules())
            .and_then(|a| self.preview_answer(a).ok());
        Ok(EntryEdited {
            detail,
            state: self.state(),
            preview,
        })
    }

    /// One SillyTavern field of one entry, then the editor's view of it.
    pub fn set_st_field(
        &mut self,
        doc: u32,
        id: u64,
        edit: StEdit,
    ) -> Result<EntryDetail, AppError> {
        let patch = BulkPatch {
            enabled: None,
            order: None,
            priority: None,
            st: vec![edit],
        };
        self.bulk(doc, &[id], &patch)?;
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
        let applied = d.commit(vec![Change::add(d.book.entries.len(), entry)], None);
        self.sync(doc, &applied);
        Ok(id)
    }

    /// Copies entries `ids` to the end of the book as one step. A copy's
    /// name is `copy_name` with `{name}` replaced by the original's (the UI
    /// words it, "{name} (copy)" in English): no English enters the book.
    pub fn duplicate(
        &mut self,
        doc: u32,
        ids: &[u64],
        copy_name: &str,
    ) -> Result<Vec<u64>, AppError> {
        if !copy_name.contains("{name}") {
            return Err(AppError::invalid(
                "a copy's name must contain {name}",
                ErrorCode::CopyNameWithoutName,
            ));
        }
        let d = self.doc_mut(doc)?;
        let fresh = d.book.fresh_ids(ids.len());
        let first_index = d.book.entries.len();
        let mut changes = Vec::new();
        let mut new_ids = Vec::new();
        for (n, &id) in ids.iter().enumerate() {
            let next = fresh[n];
            let mut src = d.book.entries[d.position(id)?].clone();
            // A copy is a new entry: it does not claim the source id its
            // original was imported with.
            src.extra.remove(native::ORIGINAL_ID);
            let copy = Entry {
                id: next,
                comment: if src.comment.is_empty() {
                    String::new()
                } else {
                    copy_name.replace("{name}", &src.comment)
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
        self.sync(doc, &applied);
        Ok(new_ids)
    }

    pub fn delete(&mut self, doc: u32, ids: &[u64]) -> Result<(), AppError> {
        let d = self.doc_mut(doc)?;
        let positions = ids
            .iter()
            .map(|&id| d.position(id))
            .collect::<Result<Vec<_>, _>>()?;
        let changes = Change::removals(&d.book.entries, positions);
        let applied = d.commit(changes, None);
        self.sync(doc, &applied);
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
            for edit in &patch.st {
                st_fields::set(&mut after, edit.field, &edit.value).map_err(|detail| {
                    AppError::invalid(
                        format!("{}: {detail}", edit.field.name()),
                        ErrorCode::BadStField {
                            field: edit.field,
                            detail,
                        },
                    )
                })?;
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
        self.sync(doc, &applied);
        Ok(())
    }

    /// Sets a decorator in content through the engine (the structured panel).
    pub fn set_decorator(content: &str, name: &str, arg: Option<&str>, present: bool) -> String {
        if present {
            decorators::set(content, name, arg)
        } else {
            decorators::remove(content, name)
        }
    }
}

/// The stored integer when `sent` is what a JavaScript number makes of it
/// (the nearest double), else `sent`: the user's own change.
fn unrounded(stored: i64, sent: i64) -> i64 {
    if sent != stored && sent == stored as f64 as i64 {
        stored
    } else {
        sent
    }
}
