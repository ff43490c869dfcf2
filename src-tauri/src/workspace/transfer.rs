//! Imports and exports. A file that is not a lossless native book waits as
//! a pending import, with its report, until the user confirms; an export
//! first reports what the target format cannot carry.
//!
//! **Invariant:** the view of a pending import is built once, when the file
//! is read, and kept with the book it describes; the dialog and the list of
//! pending imports show that same value.

use std::path::Path;

use lorebook_engine::formats::{self, ExportFormat, Format, Report};
use lorebook_engine::model::Book;

use super::history::History;
use super::Workspace;
use crate::error::{read_book_file, AppError};
use crate::views::{ImportOutcome, PendingImport};

/// A file read and reported, waiting for the user to confirm.
#[derive(Debug)]
pub(super) struct Pending {
    view: PendingImport,
    book: Book,
}

impl Workspace {
    /// Reads any importable file. A native file whose import is lossless
    /// opens at once (and saves back to its path); anything else waits,
    /// with its report, for [`Workspace::confirm_import`]. Nothing is
    /// written to disk.
    pub fn import_path(&mut self, path: &Path) -> Result<ImportOutcome, AppError> {
        // A book kept as a folder of Markdown files is our own layout: it
        // opens bound to its folder.
        if path.is_dir() {
            return self.open_path(path).map(ImportOutcome::Opened);
        }
        let bytes = read_book_file(path)?;
        let mut imported = formats::import(&bytes).map_err(|e| AppError::not_a_book(path, &e))?;
        if imported.format == Format::Native && imported.report.is_lossless() {
            return self.open_path(path).map(ImportOutcome::Opened);
        }
        // An imported book has no file of its own until saved, so one
        // without a name takes its source file's (SillyTavern books carry
        // none): the tab, the dialogs and the saved book all show it.
        if imported.book.name.trim().is_empty() {
            imported.book.name = super::list::name_from_file(path);
        }
        let id = self.next_pending;
        self.next_pending += 1;
        let view = PendingImport {
            id,
            file: path.display().to_string(),
            format: imported.format,
            name: imported.book.name.clone(),
            entries: imported.book.entries.len() as u32,
            report: imported.report,
        };
        self.pending.push(Pending {
            view: view.clone(),
            book: imported.book,
        });
        Ok(ImportOutcome::Pending(view))
    }

    /// Imports waiting for confirmation.
    pub fn pending(&self) -> Vec<PendingImport> {
        self.pending.iter().map(|p| p.view.clone()).collect()
    }

    /// Opens (`accept`) or discards a pending import.
    pub fn confirm_import(&mut self, id: u32, accept: bool) -> Result<Option<u32>, AppError> {
        let at = self
            .pending
            .iter()
            .position(|p| p.view.id == id)
            .ok_or_else(|| AppError::import_not_pending(id))?;
        let pending = self.pending.remove(at);
        if !accept {
            return Ok(None);
        }
        let source = Path::new(&pending.view.file);
        let source = source
            .canonicalize()
            .unwrap_or_else(|_| source.to_path_buf());
        // Whatever its format, a confirmed import is a new, unsaved book
        // with no path: the source was not read losslessly, so saving back
        // over it would lose what the report listed. Save asks where.
        let doc = self.add_doc(pending.book, None);
        let d = self.doc_mut(doc)?;
        d.history = History::imported();
        d.origin = Some(pending.view.format);
        d.source = Some(source);
        Ok(Some(doc))
    }

    /// What exporting `doc` to `to` would carry, without writing anything.
    pub fn export_report(&self, doc: u32, to: ExportFormat) -> Result<Report, AppError> {
        let d = self.doc(doc)?;
        formats::export(&d.book, to)
            .map(|(_, report)| report)
            .map_err(|e| AppError::cannot_export(None, &e))
    }

    /// Exports `doc` to `path` (into the card PNG `card` when given). An
    /// export never replaces the file of an open book, nor the file `doc`
    /// was imported from in another format; a file it does replace is kept
    /// as `NAME.bak`. Written back to its source in the source's own
    /// format, the book is saved: its tab no longer says it has changes.
    pub fn export_to(
        &mut self,
        doc: u32,
        to: ExportFormat,
        path: &Path,
        card: Option<&Path>,
    ) -> Result<String, AppError> {
        let d = self.doc(doc)?;
        // Symlinks resolved: a link to an open book is that book.
        let target = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let open_book = self
            .docs
            .iter()
            .any(|o| o.path.as_deref() == Some(target.as_path()));
        let onto_source = d.source.as_deref() == Some(target.as_path());
        let back = onto_source && card.is_none() && d.save_back() == Some(to);
        if open_book || (onto_source && !back) {
            return Err(AppError::export_over_book(path));
        }
        let (bytes, _) = match card {
            Some(card) => {
                let png = read_book_file(card)?;
                formats::export_into_card(&d.book, &png, to)
                    .map_err(|e| AppError::cannot_export(Some(card), &e))?
            }
            None => {
                formats::export(&d.book, to).map_err(|e| AppError::cannot_export(Some(path), &e))?
            }
        };
        formats::write_with_backup(path, &bytes).map_err(|e| AppError::write(path, "write", e))?;
        if back {
            self.doc_mut(doc)?.history.mark_saved();
        }
        Ok(path.display().to_string())
    }
}
