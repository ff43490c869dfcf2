//! Books opened from a SillyTavern server (`crate::server`): the
//! workspace's side of opening one as a tab, saving it back and reading it
//! again. The network is never touched here: the commands fetch and send
//! outside the workspace's lock, and bring or take the book's JSON.

use lorebook_engine::formats::{self, Format};
use lorebook_engine::model::Book;
use serde_json::Value;

use super::history::History;
use super::Workspace;
use crate::error::AppError;
use crate::views::{OpenResult, ServerBookRef};

/// What a save to the server sends, and the book's revision when it was
/// taken (the book is marked saved only if it is still that one).
pub struct ServerSave {
    pub at: ServerBookRef,
    pub data: Value,
    pub revision: u64,
    /// The server's copy the tab was opened or last saved from.
    pub seen: Option<String>,
}

impl Workspace {
    /// The open tab of a server's book, if any.
    pub fn server_doc(&self, at: &ServerBookRef) -> Option<u32> {
        self.docs
            .iter()
            .find(|d| d.server.as_ref() == Some(at))
            .map(|d| d.id)
    }

    /// Opens a book pulled from a server as a new tab whose Save sends it
    /// back there; an already open one is focused instead.
    pub fn open_server_book(
        &mut self,
        value: Value,
        at: ServerBookRef,
        seen: String,
    ) -> Result<OpenResult, AppError> {
        if let Some(doc) = self.server_doc(&at) {
            return Ok(OpenResult {
                doc,
                notes: vec![formats::note::Note::AlreadyOpen {
                    file: format!("{} ({})", at.file_id, at.address),
                }],
            });
        }
        let imported = formats::import_value(value)
            .map_err(|e| AppError::not_a_book(std::path::Path::new(&at.file_id), &e))?;
        let mut book = imported.book;
        if book.name.trim().is_empty() {
            book.name = at.file_id.clone();
        }
        let doc = self.add_doc(book, None);
        let d = self.doc_mut(doc)?;
        d.origin = Some(Format::SillyTavern);
        d.server = Some(at);
        d.server_seen = Some(seen);
        self.books_changed();
        Ok(OpenResult {
            doc,
            notes: imported.report.notes,
        })
    }

    /// The book as SillyTavern keeps it, to send to its server.
    pub fn server_save(&self, doc: u32) -> Result<Option<ServerSave>, AppError> {
        let d = self.doc(doc)?;
        let Some(at) = d.server.clone() else {
            return Ok(None);
        };
        let mut report = formats::Report::new(formats::report::Direction::Export, "SillyTavern");
        let data = formats::sillytavern::export_value(&d.book, &mut report);
        Ok(Some(ServerSave {
            at,
            data,
            revision: d.history.revision(),
            seen: d.server_seen.clone(),
        }))
    }

    /// The server took the book as it was at `revision`: it is saved,
    /// unless it was edited while it was being sent.
    pub fn server_saved(&mut self, doc: u32, revision: u64, seen: String) -> Result<(), AppError> {
        let d = self.doc_mut(doc)?;
        d.server_seen = Some(seen);
        if d.history.revision() == revision {
            d.history.mark_saved();
        }
        Ok(())
    }

    /// The book's revision now (a reload asks for it before fetching).
    pub fn revision_of(&self, doc: u32) -> Result<u64, AppError> {
        Ok(self.doc(doc)?.history.revision())
    }

    /// Replaces a server book with the server's copy, dropping its edits;
    /// `Ok(false)`, nothing replaced, when the book changed since
    /// `revision` (an edit typed while the copy was fetched is kept).
    pub fn reload_server_book(
        &mut self,
        doc: u32,
        value: Value,
        seen: String,
        revision: u64,
    ) -> Result<bool, AppError> {
        if self.doc(doc)?.history.revision() != revision {
            return Ok(false);
        }
        let name = self
            .doc(doc)?
            .server
            .as_ref()
            .map(|s| s.file_id.clone())
            .unwrap_or_default();
        let imported = formats::import_value(value)
            .map_err(|e| AppError::not_a_book(std::path::Path::new(&name), &e))?;
        let mut book: Book = imported.book;
        if book.name.trim().is_empty() {
            book.name = name;
        }
        let d = self.doc_mut(doc)?;
        d.book = book;
        d.history = History::saved();
        d.server_seen = Some(seen);
        self.books_changed();
        Ok(true)
    }
}

impl Workspace {
    /// Takes a server's character as the preview's character under
    /// SillyTavern's rules: its name for `{{char}}`, and its description,
    /// personality, scenario, examples, creator's notes and character's
    /// note as the fields entries can match on. `false` when the character
    /// has no card data to take.
    pub fn use_st_character(&mut self, name: &str, character: &Value) -> Result<bool, AppError> {
        let Some(card) = super::st_inputs::card_view(0, name.to_string(), character) else {
            return Ok(false);
        };
        let mut v = self.st_inputs.clone();
        v.description = Some(card.description);
        v.personality = Some(card.personality);
        v.scenario = Some(card.scenario);
        v.examples = Some(card.examples);
        v.creator_notes = Some(card.creator_notes);
        v.character_note = card.character_note;
        self.set_st_inputs(v)?;
        self.st_settings.char_name = name.to_string();
        Ok(true)
    }
}
