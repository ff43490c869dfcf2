//! The documents the app holds: open books with their undo history, the
//! sample chat, the preview settings. Rust owns all of it; the UI renders
//! views of it and sends edits through commands.
//!
//! This module has no Tauri dependency so the command layer's behaviour is
//! tested as plain Rust. Its parts, by concern:
//! - [`documents`]: open books and their files (open, save, close, recent);
//! - [`disk`]: noticing that an open book's file changed on disk;
//! - [`history`]: the undo history, one [`history::Change`] type with an
//!   inverse;
//! - [`edits`]: edits of a book's settings and entries;
//! - [`list`]: the entry list and the editor's view of one entry;
//!   [`list_patch`]: the list sent as a change to the one the UI holds;
//! - [`lint`]: the Problems panel's checks, quick fixes and budget advice;
//! - [`recovery`]: autosave copies of unsaved books and their restore;
//! - [`st`]: the preview's rules, SillyTavern's settings and its results;
//! - [`transfer`]: imports waiting for confirmation, and exports;
//! - [`view`]: the chat, the attached books and the preview views.
//!
//! **Invariant:** every edit reaches the preview through [`Workspace::sync`],
//! one entry at a time, so the preview after any sequence of edits equals
//! one built from scratch from the edited books.

pub mod ai;
mod disk;
mod documents;
mod edits;
mod folders;
mod merge;
pub use folders::FolderContents;
mod figures;
mod history;
mod impact;
pub use impact::ImpactInputs;
pub mod interrupt;
mod lint;
mod list;
mod list_patch;
mod log;
pub mod recovery;
mod remote;
mod replace;
mod risu;
mod scenarios;
mod shown;
mod st;
mod st_inputs;
mod st_rules;
mod transfer;
mod view;

use std::path::PathBuf;

use lorebook_engine::chat::{ChatError, ChatOptions, ChatWarning, Message};
use lorebook_engine::formats::native;
use lorebook_engine::model::Book;
use lorebook_engine::preview::{Preview, Settings};
use lorebook_engine::prompt::PromptMessage;

use crate::views::{AppStateView, DocSummary, EntryRow, Rules, StSettingsView};

pub use documents::Doc;
pub use lint::LintJob;
pub use list::COUNT_STEP_BYTES;
pub use remote::ServerSave;
pub use view::SHOWN_PER_KIND;

use history::Change;
use transfer::Pending;

/// The sample book and chat bundled into the binary.
pub const SAMPLE_BOOK: &str = include_str!("../../../samples/saltmere.json");
pub const SAMPLE_CHAT: &str = include_str!("../../../samples/saltmere-chat.txt");

/// Everything the app holds.
#[derive(Debug)]
pub struct Workspace {
    pub docs: Vec<Doc>,
    next_doc: u32,
    pub chat_text: String,
    pub chat: Vec<Message>,
    pub chat_warnings: Vec<ChatWarning>,
    pub chat_error: Option<ChatError>,
    pub chat_options: ChatOptions,
    preview: Preview,
    /// The attached books changed since the preview index was built.
    stale: bool,
    pub recent: Vec<PathBuf>,
    /// The book whose tab is shown: the preview runs on it (and on the
    /// books the author attached to it), with its chat (see [`shown`]).
    shown: Option<u32>,
    /// Imports read and reported, waiting for the user to confirm.
    pending: Vec<Pending>,
    next_pending: u32,
    /// The rules the user chose for the preview; `None` follows the
    /// attached books (see [`st`]).
    rules: Option<Rules>,
    /// SillyTavern's global settings for previews under its rules.
    pub st_settings: StSettingsView,
    /// The chat's variables from its first line (see
    /// [`Workspace::chat_vars`]), and as edited in the app.
    chat_vars_file: std::collections::BTreeMap<String, String>,
    chat_vars_edited: Option<std::collections::BTreeMap<String, String>>,
    /// The chat's first line the variables were last read from.
    chat_header_read: String,
    /// The persona, character and Author's Note texts of previews under
    /// SillyTavern's rules (see [`st_inputs`]).
    pub st_inputs: crate::views::StInputsView,
    /// The last final prompt sent to the UI and its number, which the next
    /// preview view is a change to (see `PromptPatch`).
    sent_prompt: (u32, Vec<PromptMessage>),
    /// The last entry list sent to the UI: its number, its book and its
    /// rows, which the next list is a change to (see `ListPatch`).
    sent_list: (u64, u32, Vec<EntryRow>),
    /// A user's tokenizer file counting instead of the model's.
    tokenizer_file: Option<PathBuf>,
    /// The same for the final prompt under SillyTavern's rules.
    sent_st_prompt: (u32, Vec<crate::views::StPromptMessageView>),
    /// The preview under SillyTavern's rules kept between views, with what
    /// it was built from and the request log's timed states (see [`st`]).
    st: Option<Box<st::StCache>>,
    /// RisuAI's lorebook settings for previews under its rules.
    pub risu_settings: crate::views::RisuSettingsView,
    /// The preview under RisuAI's rules kept between views (see [`risu`]).
    risu: Option<Box<risu::RisuCache>>,
    /// How many times the RisuAI preview was built, for tests.
    risu_builds: u64,
    /// The activation timeline last computed, with what it was computed
    /// from (see `log.rs`).
    timeline: Option<log::TimelineCache>,
    /// What each book's change impact compares with when the author chose
    /// something other than its saved version (see `impact.rs`).
    impact_bases: std::collections::HashMap<u32, impact::ImpactBase>,
    /// The book being merged into an open one, while the author decides.
    merging: Option<merge::PendingMerge>,
    /// Counts changes of the attached books (an edit, a book added,
    /// closed, attached, detached or reloaded): the SillyTavern preview is
    /// built again when it moved.
    books_gen: u64,
    /// Counts changes of the user's tokenizer file, for the same.
    tokenizer_gen: u64,
    /// How many times the SillyTavern preview was built, for tests.
    st_builds: u64,
    /// Raised while someone waits for this workspace's lock: long work
    /// (the request logs) stops for them (see [`interrupt`]).
    pub interrupt: interrupt::Interrupt,
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
            shown: None,
            pending: Vec::new(),
            next_pending: 1,
            rules: None,
            st_settings: st_rules::default_settings(),
            chat_vars_file: Default::default(),
            chat_vars_edited: None,
            chat_header_read: String::new(),
            st_inputs: crate::views::StInputsView::default(),
            sent_prompt: (0, Vec::new()),
            sent_list: (0, 0, Vec::new()),
            tokenizer_file: None,
            sent_st_prompt: (0, Vec::new()),
            st: None,
            risu_settings: risu::default_settings(),
            risu: None,
            risu_builds: 0,
            timeline: None,
            impact_bases: std::collections::HashMap::new(),
            merging: None,
            books_gen: 0,
            tokenizer_gen: 0,
            st_builds: 0,
            interrupt: interrupt::Interrupt::default(),
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

    /// Tells the preview about changes just applied to `doc`, one entry at
    /// a time, so a keystroke never rebuilds the whole index.
    fn sync(&mut self, doc: u32, changes: &[Change]) {
        let Some(book) = self.attached_position(doc) else {
            return;
        };
        let risu_current = self.risu_current();
        self.st_follow(book, changes);
        self.risu_follow(book, changes, risu_current);
        if self.stale {
            // A rebuild is due anyway and will read the current books.
            return;
        }
        // A full rebuild that falls due here waits for a later edit when a
        // save waits (see `interrupt`); the results are the same.
        let interrupt = self.interrupt.clone();
        let keep_going = || !interrupt.urgently_wanted();
        for c in changes {
            match c {
                Change::Entry { before, after, .. } => match (before, after) {
                    (_, Some(e)) => self.preview.upsert_entry_while(book, e, keep_going),
                    (Some(e), None) => self.preview.remove_entry_while(book, e.id, keep_going),
                    (None, None) => {}
                },
                Change::Settings { after: s, .. } => self.preview.set_book_settings(
                    book,
                    s.scan_depth,
                    s.token_budget,
                    s.recursive_scanning,
                ),
                // Scenarios change no preview.
                Change::Scenarios { .. } => {}
            }
        }
    }

    pub fn state(&self) -> AppStateView {
        AppStateView {
            docs: self
                .docs
                .iter()
                .map(|d| DocSummary {
                    id: d.id,
                    name: d.display_name(),
                    path: d.path.as_ref().map(|p| p.display().to_string()),
                    dirty: d.dirty(),
                    attached: d.attached,
                    entries: d.book.entries.len() as u32,
                    can_undo: d.history.can_undo(),
                    can_redo: d.history.can_redo(),
                    sillytavern: d.targets_sillytavern(),
                    risu: d.origin == Some(lorebook_engine::formats::Format::Risu),
                    source: d.source.as_ref().map(|p| p.display().to_string()),
                    save_back: d.save_back(),
                    server: d.server.clone(),
                })
                .collect(),
            chat_error: self.chat_error.clone(),
            chat_warnings: self.chat_warnings.clone(),
            settings: self.preview.settings().clone(),
            recent: self
                .recent
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
            tokenizer_file: self
                .tokenizer_file
                .as_ref()
                .map(|p| p.display().to_string()),
            approximate: self.approximate_counts(),
        }
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

    /// Compiles the attached books for the preview now, if due, instead of
    /// at the first command that needs them. The app calls it on a thread
    /// of its own as soon as the books given at start are read, so the
    /// index of a big book is built while the window and its page load.
    /// Under SillyTavern's rules its preview is built here too.
    pub fn prepare(&mut self) {
        // Stopped for a save, it is built by the first view instead.
        if !self.refresh() {
            return;
        }
        if self.rules() == Rules::Sillytavern {
            // An error (a book SillyTavern's form cannot hold) is reported
            // by the first view that needs the preview.
            let _ = self.st_ready();
        }
    }

    /// The attached books changed as a whole (one added, closed, attached,
    /// detached or reloaded): both previews' indexes are due.
    fn books_changed(&mut self) {
        self.stale = true;
        self.books_gen += 1;
    }

    /// Rebuilds the preview's index when the attached books changed, unless
    /// a save, an autosave or the exit path waits for the workspace (see
    /// [`interrupt`]): then the build stops, the index stays stale for the
    /// next view to build, and the answer is `false`.
    fn refresh(&mut self) -> bool {
        let interrupt = self.interrupt.clone();
        self.refresh_while(|| !interrupt.urgently_wanted())
    }

    /// [`Workspace::refresh`] that asks `keep_going` instead; `false` when
    /// it stopped the build.
    fn refresh_while(&mut self, keep_going: impl Fn() -> bool) -> bool {
        if self.stale {
            let books = self.attached_books();
            if !self.preview.set_books_while(&books, keep_going) {
                return false;
            }
            self.stale = false;
        }
        true
    }
}

#[cfg(test)]
impl Workspace {
    /// A copy of the first book's entry whose comment is `comment` (the
    /// tests edit the sample by name).
    pub(crate) fn entry_named(&self, comment: &str) -> lorebook_engine::model::Entry {
        self.docs[0]
            .book
            .entries
            .iter()
            .find(|e| e.comment == comment)
            .unwrap_or_else(|| panic!("no entry {comment:?}"))
            .clone()
    }
}

#[cfg(test)]
mod risu_tests;
#[cfg(test)]
mod st_cache_tests;
#[cfg(test)]
mod st_inputs_tests;
#[cfg(test)]
mod st_macros_tests;
#[cfg(test)]
mod st_tests;
#[cfg(test)]
mod tests;
