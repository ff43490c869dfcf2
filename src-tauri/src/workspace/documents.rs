//! Open books and their files: creating, opening, saving and closing a
//! book, and the recent-files list. A book's path is canonical, so opening
//! the same file twice focuses the open book instead.

use std::path::{Path, PathBuf};

use lorebook_engine::formats::{self, native};
use lorebook_engine::model::Book;

use super::disk::Fingerprint;
use super::history::History;
use super::Workspace;
use crate::error::{AppError, ErrorCode};
use crate::views::{BookSettings, ImportOutcome, OpenResult, SaveResult};

/// How many files the recent list remembers.
pub(super) const RECENT_LIMIT: usize = 10;

/// An open book.
#[derive(Debug)]
pub struct Doc {
    pub id: u32,
    pub path: Option<PathBuf>,
    pub book: Book,
    pub attached: bool,
    pub(super) history: History,
    /// The file as last opened or saved, to notice changes behind our back.
    pub(super) disk: Option<Fingerprint>,
    /// The change on disk last offered for reloading, so it is offered once.
    pub(super) disk_reported: Option<Fingerprint>,
    /// The format it was imported from, when it was.
    pub(super) origin: Option<formats::Format>,
    /// The file it was imported from (canonical), which an export of it
    /// never replaces.
    pub(super) source: Option<PathBuf>,
    /// The book's own chat while another tab is shown (the shown book's
    /// chat is the workspace's); `None`: none yet (see [`super::shown`]).
    pub(super) chat: Option<String>,
    /// The books its preview ran on when it was last shown; `None`: itself.
    pub(super) with: Option<Vec<u32>>,
    /// The SillyTavern server it was opened from: Save sends it back there
    /// (`crate::server`), never to a file.
    pub(super) server: Option<crate::views::ServerBookRef>,
    /// The fingerprint of the server's copy this tab was opened or last
    /// saved from: a save checks the server still has it.
    pub(super) server_seen: Option<String>,
}

impl Doc {
    pub fn dirty(&self) -> bool {
        self.history.dirty()
    }

    pub(super) fn settings(&self) -> BookSettings {
        BookSettings {
            name: self.book.name.clone(),
            description: self.book.description.clone(),
            scan_depth: self.book.scan_depth,
            token_budget: self.book.token_budget,
            recursive_scanning: self.book.recursive_scanning,
        }
    }

    /// The SillyTavern server it was opened from, if any.
    pub fn server(&self) -> Option<&crate::views::ServerBookRef> {
        self.server.as_ref()
    }

    /// The file it was imported from (canonical), if any.
    pub fn source(&self) -> Option<&Path> {
        self.source.as_deref()
    }

    /// The format the book is written back in over the file it was
    /// imported from (see `ExportFormat::of_origin`), if any.
    pub fn save_back(&self) -> Option<formats::ExportFormat> {
        self.source.as_ref()?;
        formats::ExportFormat::of_origin(self.origin?)
    }

    /// Where entry `id` is in the book's list.
    pub(super) fn position(&self, id: u64) -> Result<usize, AppError> {
        self.book
            .entries
            .iter()
            .position(|e| e.id == id)
            .ok_or_else(|| AppError::entry_not_found(id))
    }
}

impl Workspace {
    pub(crate) fn add_doc(&mut self, book: Book, path: Option<PathBuf>) -> u32 {
        let id = self.next_doc;
        self.next_doc += 1;
        // The preview follows the tab shown: a book opened beside another
        // joins no preview until it is shown or the author attaches it.
        let first = self.shown.is_none();
        if first {
            self.shown = Some(id);
        }
        self.docs.push(Doc {
            id,
            path,
            book,
            attached: first,
            chat: None,
            with: None,
            history: History::saved(),
            disk: None,
            disk_reported: None,
            server: None,
            server_seen: None,
            origin: None,
            source: None,
        });
        self.books_changed();
        id
    }

    pub fn doc(&self, id: u32) -> Result<&Doc, AppError> {
        self.docs
            .iter()
            .find(|d| d.id == id)
            .ok_or_else(|| AppError::book_not_open(id))
    }

    pub(super) fn doc_mut(&mut self, id: u32) -> Result<&mut Doc, AppError> {
        self.docs
            .iter_mut()
            .find(|d| d.id == id)
            .ok_or_else(|| AppError::book_not_open(id))
    }

    pub fn new_book(&mut self) -> u32 {
        self.new_book_named("Untitled book")
    }

    /// A new, empty book named `name` (the UI's words for "untitled
    /// book", so a Portuguese UI does not create English names).
    pub fn new_book_named(&mut self, name: &str) -> u32 {
        let name = name.trim();
        let book = Book {
            name: if name.is_empty() {
                "Untitled book"
            } else {
                name
            }
            .into(),
            ..Book::default()
        };
        self.add_doc(book, None)
    }

    /// Opens the bundled sample book as a new book without a file (the
    /// "no book open" state's one-click way in), and its chat when the chat
    /// is empty, so the preview has something to show at once.
    pub fn open_sample(&mut self) -> Result<u32, AppError> {
        let (book, _) = native::load(super::SAMPLE_BOOK.as_bytes())
            .map_err(|e| AppError::not_a_book(Path::new("samples/saltmere.json"), &e))?;
        let doc = self.add_doc(book, None);
        if self.shown != Some(doc) {
            // Its chat waits for its tab: the shown book keeps its own.
            self.doc_mut(doc)?.chat = Some(super::SAMPLE_CHAT.to_string());
        } else if self.chat_text.trim().is_empty() {
            self.set_chat(super::SAMPLE_CHAT.to_string());
        }
        Ok(doc)
    }

    /// Opens a native book file; an already open path is focused instead.
    pub fn open_path(&mut self, path: &Path) -> Result<OpenResult, AppError> {
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if let Some(d) = self
            .docs
            .iter()
            .find(|d| d.path.as_deref() == Some(canonical.as_path()))
        {
            // Said, so that opening it again is never a silent jump.
            return Ok(OpenResult {
                doc: d.id,
                notes: vec![formats::note::Note::AlreadyOpen {
                    file: canonical.display().to_string(),
                }],
            });
        }
        let (book, notes, seen) = super::disk::read_steady(&canonical)?;
        let doc = self.add_doc(book, Some(canonical.clone()));
        self.doc_mut(doc)?.disk = Some(seen);
        self.remember(canonical);
        Ok(OpenResult { doc, notes })
    }

    /// Reopens a file of the recent list (any other path is refused, so
    /// the webview cannot name files), by the same rule as Open: a native
    /// book read losslessly opens bound to its file; one that now needs
    /// repair, or a foreign file, waits as an import that never writes back
    /// over its source.
    pub fn open_recent(&mut self, path: &str) -> Result<ImportOutcome, AppError> {
        let known = self.recent.iter().any(|p| p.display().to_string() == path);
        if !known {
            return Err(AppError::invalid(
                "only files from the recent list can be reopened this way",
                ErrorCode::NotRecent { file: path.into() },
            ));
        }
        self.import_path(Path::new(path))
    }

    /// Adds paths remembered from an earlier run after this run's own.
    pub fn add_recent(&mut self, paths: Vec<PathBuf>) {
        for p in paths {
            if !self.recent.contains(&p) && self.recent.len() < RECENT_LIMIT {
                self.recent.push(p);
            }
        }
    }

    fn remember(&mut self, path: PathBuf) {
        self.recent.retain(|p| *p != path);
        self.recent.insert(0, path);
        self.recent.truncate(RECENT_LIMIT);
    }

    /// Saves to the doc's path, or to `path` for Save As, atomically and
    /// keeping the previous version as `NAME.bak`. Saving over the doc's
    /// own file is refused with [`crate::error::ErrorKind::ChangedOnDisk`] when the file
    /// changed since it was opened or saved, unless `overwrite`.
    pub fn save(
        &mut self,
        doc: u32,
        path: Option<PathBuf>,
        overwrite: bool,
    ) -> Result<SaveResult, AppError> {
        let d = self.doc(doc)?;
        let target = match path.or_else(|| d.path.clone()) {
            Some(p) => p,
            None => return Err(AppError::needs_path()),
        };
        if d.path.as_ref() == Some(&target) {
            self.check_unchanged(doc, overwrite)?;
        }
        // The author's SillyTavern (or RisuAI, NovelAI, ...) file is never
        // replaced by a book its tool cannot open.
        if let (Some(source), Some(origin)) = (&d.source, d.origin) {
            let canonical = target.canonicalize().unwrap_or_else(|_| target.clone());
            if *source == canonical && origin != formats::Format::Native {
                return Err(AppError::save_over_source(&target, origin.name()));
            }
        }
        // Editors ask before replacing a file its owner made read-only;
        // Save refuses and says so (Save As writes elsewhere).
        if std::fs::metadata(&target).is_ok_and(|m| m.is_file() && m.permissions().readonly()) {
            return Err(AppError::read_only(&target));
        }
        let d = self.doc_mut(doc)?;
        // A book kept as a folder of Markdown files is written as one (no
        // backup copy: such a book is meant for git), owning what it read
        // or wrote there (any other folder: what its files say).
        let mut notes = Vec::new();
        let seen = if target.is_dir() {
            let own = d.path.as_ref() == Some(&target);
            let mut known = d
                .disk
                .as_ref()
                .and_then(Fingerprint::manifest)
                .filter(|_| own)
                .cloned();
            // Overwrite, chosen over files changed on disk: the book's own
            // files edited outside are replaced (or removed) by its version.
            if let (true, Some(k)) = (overwrite, known.as_mut()) {
                let ids = d.book.entries.iter().map(|e| e.id).collect();
                k.adopt_changed(&target, &ids);
            }
            let saved =
                formats::markdown::save(&d.book, &target, known.as_ref()).map_err(|detail| {
                    AppError::invalid(
                        detail.clone(),
                        ErrorCode::NotABookFolder {
                            file: target.display().to_string(),
                            detail,
                        },
                    )
                })?;
            notes = saved.notes;
            Fingerprint::of_folder(saved.manifest)
        } else {
            let bytes = native::to_bytes(&d.book);
            formats::write_with_backup(&target, &bytes)
                .map_err(|e| AppError::write(&target, "save", e))?;
            Fingerprint::of(&target, &bytes)
        };
        d.history.mark_saved();
        let canonical = target.canonicalize().unwrap_or(target);
        d.disk = Some(seen);
        d.disk_reported = None;
        d.path = Some(canonical.clone());
        // Saved as a file, a book opened from a SillyTavern server is the
        // file's from now on (Save writes there, not to the server).
        d.server = None;
        d.server_seen = None;
        self.remember(canonical.clone());
        Ok(SaveResult {
            path: canonical.display().to_string(),
            notes,
        })
    }

    pub fn close(&mut self, doc: u32) -> Result<(), AppError> {
        self.doc(doc)?;
        self.docs.retain(|d| d.id != doc);
        self.impact_bases.remove(&doc);
        if self.shown == Some(doc) {
            // The next tab's preview, with its own chat (the closed book's
            // goes with it).
            self.shown = None;
            if let Some(next) = self.docs.first().map(|d| d.id) {
                self.show(next)?;
            }
        }
        self.books_changed();
        Ok(())
    }

    pub fn any_dirty(&self) -> bool {
        self.docs.iter().any(Doc::dirty)
    }
}
