//! Tauri commands: thin wrappers that lock the workspace, make one call and
//! return a serializable value or an [`AppError`], one module per domain.
//! This module holds the shared state and the one way a command runs
//! (`guarded`, `caught`).
//!
//! A command's name is also written once in `command_list.rs`, which the
//! invoke handler and the build script's app manifest are built from.

mod ai;
mod app;
mod books;
mod entries;
mod preview;
mod risu;
mod scenarios;
mod server;
mod sillytavern;

pub use ai::*;
pub use app::*;
pub use books::*;
pub use entries::*;
pub use preview::*;
pub use risu::*;
pub use scenarios::*;
pub use server::*;
pub use sillytavern::*;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use lorebook_engine::decorators::{ArgKind, KNOWN};
use lorebook_engine::formats::{ExportFormat, Report};
use lorebook_engine::model::{Entry, SCAN_DEPTH_RANGE, TOKEN_BUDGET_RANGE};
use lorebook_engine::preview::Settings;
use lorebook_engine::tokenizer::registry::{family_of, FAMILIES};
use lorebook_engine::tokenizer::{resources, suggested_for, tokenizer_for_model, SUGGESTED_MODELS};
use tauri::{AppHandle, Manager, State};

use crate::dialogs::{file_dialog, Dialog, NativeLabels};
use crate::error::{AppError, ErrorCode, ErrorKind};
use crate::views::*;
use crate::workspace::recovery::{RecoveredBook, Recovery};
use crate::workspace::{FolderContents, Workspace};

// Commands that touch the workspace run off the main thread
// (`command(async)`), so a long one — the first list of a 10,000-entry book —
// never freezes the window. The workspace mutex serializes them.

/// The app's state: the workspace and messages waiting for the UI.
pub struct AppState {
    pub ws: Mutex<Workspace>,
    pub notices: Mutex<Vec<Notice>>,
    /// The workspace's interrupt, raised without its lock by whoever is
    /// about to wait for it (see `workspace::interrupt`).
    pub interrupt: crate::workspace::interrupt::Interrupt,
    /// [`Workspace::edit_mark`] as the last command left it, read by
    /// autosave without the lock: while long work holds the workspace,
    /// autosave stops it only when a copy may be due.
    edit_mark: AtomicU64,
    /// [`Workspace::state`] as the last command left it, which `app_state`
    /// answers while long work holds the workspace: the UI reads the state
    /// after every edit, and its Save waits for that read.
    shown: Mutex<AppStateView>,
    /// The open books' files, followed for edits by other programs.
    pub watch: crate::watch::Watch,
    /// The SillyTavern server connected to, if any (`crate::server`).
    pub server: crate::server::Link,
    /// The author's model endpoint and the last AI run (`crate::ai`).
    pub ai: crate::ai::AiLink,
}

impl AppState {
    pub fn new(ws: Workspace, notices: Vec<Notice>) -> AppState {
        AppState {
            interrupt: ws.interrupt.clone(),
            edit_mark: AtomicU64::new(ws.edit_mark()),
            shown: Mutex::new(ws.state()),
            watch: crate::watch::Watch::default(),
            server: crate::server::Link::default(),
            ai: crate::ai::AiLink::default(),
            ws: Mutex::new(ws),
            notices: Mutex::new(notices),
        }
    }

    /// The workspace, after asking long work holding it to give way (the
    /// request logs stop between requests), so a newer preview or an edit
    /// waits milliseconds, not for a whole log. A poisoned lock is taken as
    /// it is: it may hold the only copy of the user's work.
    pub fn lock_soon(&self) -> std::sync::MutexGuard<'_, Workspace> {
        let _want = self.interrupt.want();
        self.ws.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// [`AppState::lock_soon`] for those who keep the user's work (a save,
    /// closing a book, autosave, the exit path): a build of the preview
    /// stops too.
    pub fn lock_urgently(&self) -> std::sync::MutexGuard<'_, Workspace> {
        let _want = self.interrupt.want_urgently();
        self.ws.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// [`crate::workspace::recovery::has_unsaved`] after asking long work
    /// to give way (off the main thread: the quit command, the app's exit).
    pub fn has_unsaved_soon(&self) -> bool {
        let _want = self.interrupt.want_urgently();
        crate::workspace::recovery::has_unsaved(&self.ws)
    }

    /// [`Workspace::edit_mark`] after the last command, without the lock.
    pub fn edit_mark(&self) -> u64 {
        self.edit_mark.load(Ordering::SeqCst)
    }

    /// Keeps what readers that do not wait for the workspace are answered
    /// ([`AppState::edit_mark`], the state `app_state` answers while the
    /// workspace is busy). Every command calls it as it ends, holding the
    /// workspace, and so does whatever changes the workspace outside one.
    /// The books' files followed for outside edits are kept in step here
    /// too, so no command that opens, closes or moves a book can forget.
    pub fn remember(&self, ws: &Workspace) {
        self.edit_mark.store(ws.edit_mark(), Ordering::SeqCst);
        *self.shown.lock().unwrap_or_else(|p| p.into_inner()) = ws.state();
        self.watch.follow(ws.book_paths());
    }
}

impl Default for AppState {
    fn default() -> Self {
        AppState::new(Workspace::default(), Vec::new())
    }
}

/// The commands a long request log gives way to: saving, and the requests
/// that make the log being computed out of date (a newer preview, an edit
/// of the chat or an entry, closing a book). The background steps of the
/// list's token counts are not among them, so they never starve the log.
const URGENT: &[&str] = &[
    "save",
    "save_target",
    "save_as",
    "close_doc",
    "preview",
    "preview_log",
    "st_preview",
    "st_log",
    "set_chat",
    "edit_chat",
    "show_doc",
    "update_entry",
    "undo",
    "redo",
];

/// Among [`URGENT`], the commands that keep the user's work: a build of
/// the preview gives way to them too (see `workspace::interrupt`).
const KEEPS_WORK: &[&str] = &["save", "save_target", "save_as", "close_doc"];

type R<T> = Result<T, AppError>;

fn lock<'a>(s: &'a State<'_, AppState>) -> std::sync::MutexGuard<'a, Workspace> {
    // A panic while holding the lock cannot leave a half-applied edit
    // (edits are applied before they are recorded), so poisoning is ignored.
    s.ws.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs `f` on the workspace, catching a panic inside it: the command
/// returns an `internal` error naming it (the UI reports it like any other
/// error) instead of leaving the UI's call unanswered. The lock is taken
/// inside the caught closure, so a panic poisons it, and the quit check
/// ([`has_unsaved`]) keeps asking whatever the books' flags say. Every
/// command that touches the workspace runs through here; the fault hook
/// (`fault.rs`, a test hook) can make any of them panic before or after
/// its body.
pub fn guarded<T>(state: &AppState, command: &str, f: impl FnOnce(&mut Workspace) -> R<T>) -> R<T> {
    let asked = std::time::Instant::now();
    catch(command, || {
        let mut ws = if KEEPS_WORK.contains(&command) {
            state.lock_urgently()
        } else if URGENT.contains(&command) {
            state.lock_soon()
        } else {
            state.ws.lock().unwrap_or_else(|p| p.into_inner())
        };
        let locked = std::time::Instant::now();
        crate::fault::check(command, crate::fault::When::Before);
        let out = f(&mut ws);
        state.remember(&ws);
        crate::fault::check(command, crate::fault::When::After);
        crate::trace::command(command, asked, locked);
        out
    })
}

/// [`guarded`] for a command that does not touch the workspace: a panic
/// inside `f` becomes an `internal` error naming `command` (a panic left
/// to unwind out of a command run on the main thread would end the
/// process, window and unsaved books with it).
pub fn caught<T>(command: &str, f: impl FnOnce() -> R<T>) -> R<T> {
    catch(command, || {
        crate::fault::check(command, crate::fault::When::Before);
        let out = f();
        crate::fault::check(command, crate::fault::When::After);
        out
    })
}

fn catch<T>(command: &str, f: impl FnOnce() -> R<T>) -> R<T> {
    // A command's body blocks (waiting for the workspace, long work). The
    // app's async commands run on the async runtime's worker threads, one
    // per core: on two cores, a long build and one command waiting for it
    // left no thread for a Save, which then never got to raise the
    // interrupt. Declared blocking, the body leaves the runtime free to run
    // the other commands on another thread (outside the runtime, on the
    // main thread or a thread of the app's own, it simply runs).
    let caught =
        tokio::task::block_in_place(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
    caught.unwrap_or_else(|payload| {
        let why = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".into());
        Err(AppError::internal(command, &why))
    })
}
