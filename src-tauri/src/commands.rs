//! Tauri commands: thin wrappers that lock the workspace, make one call and
//! return a serializable value or an [`AppError`].
//!
//! A command's name is also written once in `command_list.rs`, which the
//! invoke handler and the build script's app manifest are built from.
//!
//! Above the usual 600 lines: every command of the IPC surface, with recent
//! files, the catalog's assembly, the recovery state and the SillyTavern
//! settings file; to be split by domain (issue 18).

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
use crate::workspace::Workspace;

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
}

impl AppState {
    pub fn new(ws: Workspace, notices: Vec<Notice>) -> AppState {
        AppState {
            interrupt: ws.interrupt.clone(),
            edit_mark: AtomicU64::new(ws.edit_mark()),
            shown: Mutex::new(ws.state()),
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
    pub fn remember(&self, ws: &Workspace) {
        self.edit_mark.store(ws.edit_mark(), Ordering::SeqCst);
        *self.shown.lock().unwrap_or_else(|p| p.into_inner()) = ws.state();
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
    "save_as",
    "close_doc",
    "preview",
    "preview_log",
    "st_preview",
    "st_log",
    "set_chat",
    "edit_chat",
    "update_entry",
    "undo",
    "redo",
];

/// Among [`URGENT`], the commands that keep the user's work: a build of
/// the preview gives way to them too (see `workspace::interrupt`).
const KEEPS_WORK: &[&str] = &["save", "save_as", "close_doc"];

type R<T> = Result<T, AppError>;

/// The recent-files list lives in the app's config folder as JSON.
fn recent_file(app: &AppHandle) -> Option<PathBuf> {
    app.path()
        .app_config_dir()
        .ok()
        .map(|d| d.join("recent.json"))
}

/// Reads the recent-files list saved by an earlier run (missing or broken
/// files give an empty list: it is a convenience, not a document).
pub fn load_recent(app: &AppHandle) -> Vec<PathBuf> {
    recent_file(app)
        .and_then(|f| std::fs::read(f).ok())
        .and_then(|b| serde_json::from_slice::<Vec<PathBuf>>(&b).ok())
        .unwrap_or_default()
}

/// Persists the recent-files list after opens and saves.
pub(crate) fn store_recent(app: &AppHandle, ws: &Workspace) {
    let Some(file) = recent_file(app) else { return };
    if let Some(dir) = file.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(bytes) = serde_json::to_vec_pretty(&ws.recent) {
        let _ = lorebook_engine::formats::write_atomic(&file, &bytes);
    }
}

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

#[tauri::command]
pub fn catalog() -> R<Catalog> {
    caught("catalog", || {
        Ok(Catalog {
            decorators: KNOWN
                .iter()
                .map(|d| {
                    let (arg, min, max) = match d.arg {
                        ArgKind::None => ("none", None, None),
                        ArgKind::Int { min, max } => (
                            "int",
                            (min != i64::MIN).then_some(min),
                            (max != i64::MAX).then_some(max),
                        ),
                        ArgKind::Role => ("role", None, None),
                    };
                    DecoratorInfo {
                        name: d.name.into(),
                        aliases: d.aliases.iter().map(|a| a.to_string()).collect(),
                        arg: arg.into(),
                        min,
                        max,
                        summary: d.summary.into(),
                    }
                })
                .collect(),
            models: SUGGESTED_MODELS.iter().map(|m| m.to_string()).collect(),
            scan_depth: [SCAN_DEPTH_RANGE.0, SCAN_DEPTH_RANGE.1],
            token_budget: [TOKEN_BUDGET_RANGE.0, TOKEN_BUDGET_RANGE.1],
            export_formats: ExportFormat::ALL
                .iter()
                .map(|f| ExportChoice {
                    id: serde_json::to_value(f)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    name: f.name().into(),
                    card: matches!(f, ExportFormat::CardV2 | ExportFormat::CardV3),
                })
                .collect(),
            approximate_models: SUGGESTED_MODELS
                .iter()
                .filter(|m| family_of(m).is_ok_and(|f| !f.exact))
                .map(|m| m.to_string())
                .collect(),
            families: FAMILIES
                .iter()
                .map(|f| FamilyView {
                    id: f.id.into(),
                    group: f.group.into(),
                    exact: f.exact,
                    models: suggested_for(f).into_iter().map(str::to_string).collect(),
                })
                .collect(),
        })
    })
}

#[tauri::command(async)]
pub fn app_state(s: State<'_, AppState>) -> R<AppStateView> {
    // While long work (a preview's build or log) holds the workspace, the
    // state as the last command left it: the one holding it changes no
    // book until it ends, and then it is read anew.
    if let Err(std::sync::TryLockError::WouldBlock) = s.ws.try_lock() {
        return caught("app_state", || {
            Ok(s.shown.lock().unwrap_or_else(|p| p.into_inner()).clone())
        });
    }
    guarded(&s, "app_state", |ws| Ok(ws.state()))
}

/// Messages from startup, drag and drop or the menu that the UI shows once.
#[tauri::command]
pub fn take_notices(s: State<'_, AppState>) -> R<Vec<Notice>> {
    caught("take_notices", || {
        Ok(std::mem::take(
            &mut *s.notices.lock().unwrap_or_else(|p| p.into_inner()),
        ))
    })
}

/// A new, empty book; `name` is the UI's word for an untitled book. Off
/// the main thread, as every command that waits for the workspace.
#[tauri::command(async)]
pub fn new_book(s: State<'_, AppState>, name: String) -> R<u32> {
    guarded(&s, "new_book", |ws| Ok(ws.new_book_named(&name)))
}

/// Open… and Import…: a native dialog, then every chosen file is read.
/// Native files open at once; others wait with their report.
#[tauri::command]
pub async fn open_dialog(app: AppHandle, import: bool) -> R<Vec<ImportOutcome>> {
    let dialog = file_dialog(&app, if import { Dialog::Import } else { Dialog::Open });
    let Some(paths) = dialog.blocking_pick_files() else {
        return Err(AppError::nothing_chosen());
    };
    let paths: Vec<PathBuf> = paths
        .into_iter()
        .filter_map(|p| p.into_path().ok())
        .collect();
    let state = app.state::<AppState>();
    guarded(&state, "open_dialog", |ws| {
        let result = paths.iter().map(|p| ws.import_path(p)).collect();
        store_recent(&app, ws);
        result
    })
}

#[tauri::command(async)]
pub fn pending_imports(s: State<'_, AppState>) -> R<Vec<PendingImport>> {
    guarded(&s, "pending_imports", |ws| Ok(ws.pending()))
}

#[tauri::command(async)]
pub fn confirm_import(s: State<'_, AppState>, id: u32, accept: bool) -> R<Option<u32>> {
    guarded(&s, "confirm_import", |ws| ws.confirm_import(id, accept))
}

/// What an export would carry, shown before the user confirms.
#[tauri::command(async)]
pub fn export_report(s: State<'_, AppState>, doc: u32, format: ExportFormat) -> R<Report> {
    guarded(&s, "export_report", |ws| ws.export_report(doc, format))
}

/// Export as…: optionally a card PNG to write into, then where to save.
#[tauri::command]
pub async fn export_dialog(
    app: AppHandle,
    doc: u32,
    format: ExportFormat,
    into_card: bool,
) -> R<String> {
    let card = if into_card {
        let picked = file_dialog(&app, Dialog::ExportCard).blocking_pick_file();
        match picked.and_then(|p| p.into_path().ok()) {
            Some(p) => Some(p),
            None => return Err(AppError::nothing_chosen()),
        }
    } else {
        None
    };
    let name = {
        let state = app.state::<AppState>();
        guarded(&state, "export_dialog", |ws| {
            let d = ws.doc(doc)?;
            let ext = if card.is_some() {
                "png"
            } else {
                format.extension()
            };
            Ok(format!("{}.{ext}", safe_stem(&d.book.name)))
        })?
    };
    let Some(path) = file_dialog(&app, Dialog::Export)
        .set_file_name(&name)
        .blocking_save_file()
        .and_then(|p| p.into_path().ok())
    else {
        return Err(AppError::nothing_chosen());
    };
    let state = app.state::<AppState>();
    guarded(&state, "export_dialog", |ws| {
        ws.export_to(doc, format, &path, card.as_deref())
    })
}

/// A file name made from a book name.
fn safe_stem(name: &str) -> String {
    let stem: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.is_empty() {
        "book".into()
    } else {
        stem
    }
}

/// Reopens a file from the recent list; the webview cannot name any other
/// path.
#[tauri::command(async)]
pub fn open_recent(app: AppHandle, s: State<'_, AppState>, path: String) -> R<ImportOutcome> {
    guarded(&s, "open_recent", |ws| {
        let result = ws.open_recent(&path);
        store_recent(&app, ws);
        result
    })
}

/// Saves to the book's file; `overwrite` saves over a file that changed on
/// disk since it was opened (else that is a `changed_on_disk` error).
#[tauri::command(async)]
pub fn save(app: AppHandle, s: State<'_, AppState>, doc: u32, overwrite: bool) -> R<String> {
    guarded(&s, "save", |ws| {
        let result = ws.save(doc, None, overwrite);
        store_recent(&app, ws);
        result
    })
}

#[tauri::command]
pub async fn save_as(app: AppHandle, doc: u32) -> R<String> {
    let name = {
        let state = app.state::<AppState>();
        guarded(&state, "save_as", |ws| {
            let d = ws.doc(doc)?;
            Ok(format!("{}.json", safe_stem(&d.book.name)))
        })?
    };
    let picked = file_dialog(&app, Dialog::SaveAs)
        .set_file_name(&name)
        .blocking_save_file();
    let Some(path) = picked.and_then(|p| p.into_path().ok()) else {
        return Err(AppError::nothing_chosen());
    };
    let state = app.state::<AppState>();
    guarded(&state, "save_as", |ws| {
        let result = ws.save(doc, Some(path), false);
        store_recent(&app, ws);
        result
    })
}

/// The open, unmodified books whose files changed on disk, each once per
/// change; the UI asks on window focus and offers to reload them.
#[tauri::command(async)]
pub fn check_disk_changes(s: State<'_, AppState>) -> R<Vec<u32>> {
    guarded(&s, "check_disk_changes", |ws| Ok(ws.disk_changes()))
}

/// Reads a book again from its file, dropping its edits.
#[tauri::command(async)]
pub fn reload_doc(s: State<'_, AppState>, doc: u32) -> R<()> {
    guarded(&s, "reload_doc", |ws| ws.reload(doc))
}

#[tauri::command(async)]
pub fn close_doc(s: State<'_, AppState>, doc: u32) -> R<()> {
    guarded(&s, "close_doc", |ws| ws.close(doc))
}

#[tauri::command(async)]
pub fn book_settings(s: State<'_, AppState>, doc: u32) -> R<BookSettings> {
    guarded(&s, "book_settings", |ws| ws.book_settings(doc))
}

#[tauri::command(async)]
pub fn set_book_settings(s: State<'_, AppState>, doc: u32, settings: BookSettings) -> R<()> {
    guarded(&s, "set_book_settings", |ws| {
        ws.set_book_settings(doc, settings)
    })
}

#[tauri::command(async)]
pub fn list_entries(s: State<'_, AppState>, doc: u32, query: ListQuery) -> R<Vec<EntryRow>> {
    guarded(&s, "list_entries", |ws| ws.list(doc, &query))
}

/// The token counts the list of `doc` was sent without, a step at a time
/// from entry position `from` (`Workspace::count_list_tokens`).
#[tauri::command(async)]
pub fn count_list_tokens(s: State<'_, AppState>, doc: u32, from: u32) -> R<TokenStep> {
    guarded(&s, "count_list_tokens", |ws| {
        ws.count_list_tokens(doc, from)
    })
}

#[tauri::command(async)]
pub fn get_entry(s: State<'_, AppState>, doc: u32, id: u64) -> R<EntryDetail> {
    guarded(&s, "get_entry", |ws| ws.entry(doc, id))
}

#[tauri::command(async)]
pub fn update_entry(s: State<'_, AppState>, doc: u32, entry: Entry) -> R<EntryDetail> {
    guarded(&s, "update_entry", |ws| ws.update_entry(doc, entry))
}

/// The problems of book `doc` under the preview's rules (docs/lint.md).
/// The checks run with the workspace's lock free (a big book takes longer
/// than a keystroke may wait), taking it only to count tokens.
#[tauri::command(async)]
pub fn lint_problems(s: State<'_, AppState>, doc: u32) -> R<ProblemsView> {
    let job = guarded(&s, "lint_problems", |ws| ws.lint_job(doc))?;
    caught("lint_problems", || Ok(job.run(&mut Locked(&s))))
}

/// Counts tokens through the workspace's preview, holding its lock only
/// while it counts.
struct Locked<'a>(&'a AppState);

impl lorebook_engine::lint::CountTokens for Locked<'_> {
    fn count_all(&mut self, texts: &[&str]) -> Vec<u32> {
        let mut ws = self.0.ws.lock().unwrap_or_else(|p| p.into_inner());
        lorebook_engine::lint::CountTokens::count_all(&mut *ws, texts)
    }
}

/// Applies a problem's quick fix to entry `id` as one undo step.
#[tauri::command(async)]
pub fn apply_fix(
    s: State<'_, AppState>,
    doc: u32,
    id: u64,
    fix: lorebook_engine::lint::Fix,
) -> R<EntryDetail> {
    guarded(&s, "apply_fix", |ws| ws.apply_fix(doc, id, &fix))
}

/// The budget advice of the loaded chat's request log, and what entry
/// `entry` (`[doc, id]`) would need to survive it.
#[tauri::command(async)]
pub fn budget_advice(s: State<'_, AppState>, entry: Option<(u32, u64)>) -> R<Option<AdviceView>> {
    guarded(&s, "budget_advice", |ws| ws.budget_advice(entry))
}

#[tauri::command(async)]
pub fn add_entry(s: State<'_, AppState>, doc: u32) -> R<u64> {
    guarded(&s, "add_entry", |ws| ws.add_entry(doc))
}

#[tauri::command(async)]
pub fn duplicate_entries(
    s: State<'_, AppState>,
    doc: u32,
    ids: Vec<u64>,
    copy_name: String,
) -> R<Vec<u64>> {
    guarded(&s, "duplicate_entries", |ws| {
        ws.duplicate(doc, &ids, &copy_name)
    })
}

#[tauri::command(async)]
pub fn delete_entries(s: State<'_, AppState>, doc: u32, ids: Vec<u64>) -> R<()> {
    guarded(&s, "delete_entries", |ws| ws.delete(doc, &ids))
}

#[tauri::command(async)]
pub fn bulk_update(s: State<'_, AppState>, doc: u32, ids: Vec<u64>, patch: BulkPatch) -> R<()> {
    guarded(&s, "bulk_update", |ws| ws.bulk(doc, &ids, &patch))
}

#[tauri::command(async)]
pub fn undo(s: State<'_, AppState>, doc: u32) -> R<bool> {
    guarded(&s, "undo", |ws| ws.undo(doc))
}

#[tauri::command(async)]
pub fn redo(s: State<'_, AppState>, doc: u32) -> R<bool> {
    guarded(&s, "redo", |ws| ws.redo(doc))
}

/// Splits the editor's comma-separated keys, keeping commas inside
/// `/regex/` keys (the engine's rule, not re-implemented in the UI).
#[tauri::command]
pub fn split_keys(text: String) -> R<Vec<String>> {
    caught("split_keys", || {
        Ok(lorebook_engine::model::split_keys(&text))
    })
}

#[tauri::command]
pub fn set_decorator(
    content: String,
    name: String,
    arg: Option<String>,
    present: bool,
) -> R<String> {
    caught("set_decorator", || {
        Ok(Workspace::set_decorator(
            &content,
            &name,
            arg.as_deref(),
            present,
        ))
    })
}

#[tauri::command(async)]
pub fn set_chat(s: State<'_, AppState>, text: String) -> R<ChatStatus> {
    guarded(&s, "set_chat", |ws| {
        ws.set_chat(text);
        Ok(ws.chat_status())
    })
}

#[tauri::command]
pub async fn open_chat_dialog(app: AppHandle) -> R<AppStateView> {
    let picked = file_dialog(&app, Dialog::OpenChat).blocking_pick_file();
    let Some(path) = picked.and_then(|p| p.into_path().ok()) else {
        return Err(AppError::nothing_chosen());
    };
    let text = lorebook_engine::io::read_text_capped(&path, lorebook_engine::io::MAX_CHAT_BYTES)
        .map_err(AppError::read)?;
    let state = app.state::<AppState>();
    guarded(&state, "open_chat_dialog", |ws| {
        ws.set_chat(text);
        Ok(ws.state())
    })
}

#[tauri::command(async)]
pub fn set_attached(s: State<'_, AppState>, doc: u32, attached: bool) -> R<()> {
    guarded(&s, "set_attached", |ws| ws.set_attached(doc, attached))
}

#[tauri::command(async)]
pub fn set_preview_settings(app: AppHandle, settings: Settings) -> R<()> {
    // A family read from its file loads here, once per process and off the
    // UI thread, before the workspace is locked (up to two seconds for the
    // largest vocabularies).
    tokenizer_for_model(&settings.model)
        .map_err(|e| AppError::tokenizer_unavailable(&settings.model, e))?;
    let state = app.state::<AppState>();
    guarded(&state, "set_preview_settings", |ws| {
        ws.set_settings(settings)?;
        store_preview_settings(&app, ws);
        Ok(())
    })
}

/// Saves the preview settings for the next run (a failure loses only the
/// convenience, never a book).
fn store_preview_settings(app: &AppHandle, ws: &Workspace) {
    if let Err(e) = crate::preview_settings::store(&crate::data_dir(app), ws) {
        eprintln!("Lorebook Studio: the preview settings were not saved: {e}");
    }
}

#[tauri::command(async)]
pub fn preview(s: State<'_, AppState>, request: Option<u32>, have: Option<u32>) -> R<PreviewView> {
    guarded(&s, "preview", |ws| {
        ws.preview_since(request.map(|r| r as usize), have)
    })
}

#[tauri::command(async)]
pub fn preview_log(s: State<'_, AppState>) -> R<Vec<LogRow>> {
    guarded(&s, "preview_log", |ws| ws.log())
}

/// Relabels the native menu and words the native file dialogs in the UI's
/// language (the message catalog lives in the UI; accelerators stay the
/// same): `labels` holds menu labels by menu id and dialog words by their
/// `dialog.*` catalog key.
#[tauri::command]
pub fn set_menu_labels(
    app: AppHandle,
    native: State<'_, NativeLabels>,
    labels: std::collections::HashMap<String, String>,
) -> R<()> {
    caught("set_menu_labels", || {
        {
            let mut kept = native.0.lock().unwrap_or_else(|p| p.into_inner());
            if *kept == labels {
                // The menu in place was built from these words (at start,
                // from the kept file, or by an earlier call): replacing it
                // with the same would only make GTK warn about the old
                // menu's accelerators.
                return Ok(());
            }
            // Kept for the next start; losing them costs only an English
            // menu until the page loads.
            if let Err(e) = crate::dialogs::store_labels(&crate::data_dir(&app), &labels) {
                eprintln!("Lorebook Studio: the menu's words were not kept: {e}");
            }
            *kept = labels.clone();
        }
        let menu = crate::menu::build_labeled(&app, &labels).map_err(menu_failed)?;
        app.set_menu(menu).map_err(menu_failed)?;
        Ok(())
    })
}

/// The native menu that could not be built or set.
fn menu_failed(e: tauri::Error) -> AppError {
    AppError::coded(
        ErrorKind::Menu,
        format!("the menu could not be rebuilt: {e}"),
        ErrorCode::MenuFailed {
            detail: e.to_string(),
        },
    )
}

/// The recovery folder and this run's copies in it, beside the workspace.
pub struct RecoveryState(pub Mutex<Recovery>);

fn recovery<'a>(s: &'a State<'_, RecoveryState>) -> std::sync::MutexGuard<'a, Recovery> {
    s.0.lock().unwrap_or_else(|p| p.into_inner())
}

/// Books left unsaved by an earlier run that crashed or was killed.
#[tauri::command(async)]
pub fn list_recovered(r: State<'_, RecoveryState>) -> R<Vec<RecoveredBook>> {
    caught("list_recovered", || Ok(recovery(&r).list()))
}

/// Opens a recovered book, dirty and bound to its original file.
#[tauri::command(async)]
pub fn restore_recovered(
    s: State<'_, AppState>,
    r: State<'_, RecoveryState>,
    id: String,
) -> R<u32> {
    // Lock order everywhere: the workspace, then the recovery folder.
    guarded(&s, "restore_recovered", |ws| recovery(&r).restore(ws, &id))
}

/// Why recovery copies cannot be written now, while they cannot (the UI
/// shows a lasting notice); `None` when they work. The autosave thread
/// also sends each change as the `autosave-status` event.
#[tauri::command(async)]
pub fn autosave_status(r: State<'_, RecoveryState>) -> R<Option<AppError>> {
    caught("autosave_status", || Ok(recovery(&r).failure().cloned()))
}

/// Deletes a recovered book the user does not want back.
#[tauri::command(async)]
pub fn discard_recovered(r: State<'_, RecoveryState>, id: String) -> R<()> {
    caught("discard_recovered", || recovery(&r).discard(&id))
}

/// Titles the window after book `doc` (the one the UI shows) and its dirty
/// state; `untitled` is the UI's word for a book without any name. Returns
/// the title, which the page takes as its own too (what WebDriver and
/// assistive tools read).
#[tauri::command(async)]
pub fn set_window_title(
    app: AppHandle,
    s: State<'_, AppState>,
    doc: Option<u32>,
    untitled: String,
) -> R<String> {
    let title = guarded(&s, "set_window_title", |ws| {
        Ok(ws.window_title(doc, &untitled))
    })?;
    if let Some(w) = app.get_webview_window("main") {
        w.set_title(&title)
            .map_err(|e| AppError::internal("set_window_title", &e.to_string()))?;
    }
    Ok(title)
}

/// Whether quitting could lose work, asked by the UI after it read the
/// books' dirty flags: a workspace left poisoned by a panicking command
/// answers yes even when every flag reads clean.
#[tauri::command(async)]
pub fn has_unsaved(s: State<'_, AppState>) -> bool {
    // Blocking, as every command body (see `catch`).
    tokio::task::block_in_place(|| s.has_unsaved_soon())
}

/// Closes the window even with unsaved changes (after the UI asked).
#[tauri::command]
pub fn quit(app: AppHandle) {
    crate::QUIT_CONFIRMED.store(true, std::sync::atomic::Ordering::SeqCst);
    app.exit(0);
}

/// The interface preferences saved by an earlier run (the defaults when
/// there are none).
#[tauri::command]
pub fn load_prefs(app: AppHandle) -> R<crate::prefs::Prefs> {
    caught("load_prefs", || {
        Ok(crate::prefs::load(&crate::data_dir(&app)))
    })
}

/// Saves the interface preferences (theme, language, pane sizes).
#[tauri::command]
pub fn save_prefs(app: AppHandle, prefs: crate::prefs::Prefs) -> R<()> {
    caught("save_prefs", || {
        crate::prefs::store(&crate::data_dir(&app), prefs).map_err(|e| {
            AppError::coded(
                ErrorKind::Io,
                format!("the preferences were not saved: {e}"),
                ErrorCode::PrefsNotSaved { detail: e },
            )
        })
    })
}

/// SillyTavern's settings live in the app's data folder as JSON: they are
/// SillyTavern's global settings, not a book's (workspace/st.rs).
fn st_settings_file(app: &AppHandle) -> Option<PathBuf> {
    Some(crate::data_dir(app).join("sillytavern-settings.json"))
}

/// Reads the SillyTavern settings and the preview's character, persona
/// and Author's Note texts saved by an earlier run; a missing or broken
/// file leaves a fresh install's.
pub fn load_st_settings(app: &AppHandle) {
    let saved = st_settings_file(app).and_then(|f| std::fs::read(f).ok());
    if let Some(bytes) = saved {
        let state = app.state::<AppState>();
        // Out-of-range values from a hand-edited file are refused, keeping
        // the defaults.
        lock(&state).restore_st_file(&bytes);
    }
}

/// Writes the settings and the inputs, keeping the keys of the file this
/// version does not know.
fn store_st_settings(app: &AppHandle, ws: &Workspace) {
    let Some(file) = st_settings_file(app) else {
        return;
    };
    if let Some(dir) = file.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let old = std::fs::read(&file).ok();
    let bytes = ws.st_file(old.as_deref());
    if !bytes.is_empty() {
        let _ = lorebook_engine::formats::write_atomic(&file, &bytes);
    }
}

#[tauri::command(async)]
pub fn rules_view(s: State<'_, AppState>) -> R<RulesView> {
    guarded(&s, "rules_view", |ws| Ok(ws.rules_view()))
}

#[tauri::command(async)]
pub fn set_rules(s: State<'_, AppState>, rules: Rules) -> R<RulesView> {
    guarded(&s, "set_rules", |ws| {
        ws.set_rules(rules);
        Ok(ws.rules_view())
    })
}

#[tauri::command(async)]
pub fn set_st_settings(app: AppHandle, settings: StSettingsView) -> R<RulesView> {
    let state = app.state::<AppState>();
    guarded(&state, "set_st_settings", |ws| {
        ws.set_st_settings(settings)?;
        store_st_settings(&app, ws);
        Ok(ws.rules_view())
    })
}

/// Load from SillyTavern…: a native dialog for its `settings.json` (or a
/// file holding its `world_info_settings` object).
#[tauri::command]
pub async fn load_st_settings_dialog(app: AppHandle) -> R<RulesView> {
    let picked = file_dialog(&app, Dialog::StSettings).blocking_pick_file();
    let Some(path) = picked.and_then(|p| p.into_path().ok()) else {
        return Err(AppError::nothing_chosen());
    };
    let state = app.state::<AppState>();
    guarded(&state, "load_st_settings_dialog", |ws| {
        ws.load_st_settings(&path)?;
        store_st_settings(&app, ws);
        Ok(ws.rules_view())
    })
}

/// The preview's persona, character and Author's Note texts under
/// SillyTavern's rules; kept with SillyTavern's settings.
#[tauri::command(async)]
pub fn set_st_inputs(app: AppHandle, inputs: StInputsView) -> R<RulesView> {
    let state = app.state::<AppState>();
    guarded(&state, "set_st_inputs", |ws| {
        ws.set_st_inputs(inputs)?;
        store_st_settings(&app, ws);
        Ok(ws.rules_view())
    })
}

#[tauri::command(async)]
pub fn st_preview(
    s: State<'_, AppState>,
    request: Option<u32>,
    prompt: bool,
    have: Option<u32>,
) -> R<StPreviewView> {
    // The final prompt only while its panel is open, as a change to the
    // one the UI holds.
    let k = request.map(|r| r as usize);
    guarded(&s, "st_preview", |ws| {
        if prompt {
            ws.st_preview_with_prompt(k, have)
        } else {
            ws.st_preview(k)
        }
    })
}

#[tauri::command(async)]
pub fn st_log(s: State<'_, AppState>) -> R<Vec<StLogRow>> {
    guarded(&s, "st_log", |ws| ws.st_log())
}

#[tauri::command(async)]
pub fn set_st_field(s: State<'_, AppState>, doc: u32, id: u64, edit: StEdit) -> R<EntryDetail> {
    guarded(&s, "set_st_field", |ws| ws.set_st_field(doc, id, edit))
}

/// The chat's text, for the chat box when the chat was set from elsewhere
/// (start-up, a chat file); typing never asks for it back.
#[tauri::command(async)]
pub fn chat_text(s: State<'_, AppState>) -> R<String> {
    guarded(&s, "chat_text", |ws| Ok(ws.chat_text.clone()))
}

/// A typed change to the chat (see `Workspace::edit_chat`): the keystroke's
/// few characters cross, not the whole chat.
#[tauri::command(async)]
pub fn edit_chat(
    s: State<'_, AppState>,
    at: u32,
    remove: u32,
    insert: String,
    len: u32,
) -> R<ChatStatus> {
    guarded(&s, "edit_chat", |ws| {
        ws.edit_chat(at, remove, &insert, len)?;
        Ok(ws.chat_status())
    })
}

/// Custom file… in the model picker: a native dialog for a tokenizer file
/// (Hugging Face `tokenizer.json`, SentencePiece `.model`, tiktoken or
/// Tekken, detected by content), read off the UI thread and once per
/// process; it then counts every entry and the preview until a model is
/// picked again, and is remembered for the next run.
#[tauri::command]
pub async fn pick_tokenizer_file(app: AppHandle) -> R<AppStateView> {
    let picked = file_dialog(&app, Dialog::Tokenizer).blocking_pick_file();
    let Some(path) = picked.and_then(|p| p.into_path().ok()) else {
        return Err(AppError::nothing_chosen());
    };
    let read = path.clone();
    let tokenizer = tauri::async_runtime::spawn_blocking(move || resources::load_file(&read))
        .await
        .map_err(|e| AppError::internal("pick_tokenizer_file", &e.to_string()))?
        .map_err(|e| AppError::bad_tokenizer_file(&path, e))?;
    let state = app.state::<AppState>();
    guarded(&state, "pick_tokenizer_file", |ws| {
        ws.set_tokenizer_file(Some((path, tokenizer)));
        store_preview_settings(&app, ws);
        Ok(ws.state())
    })
}

/// Counts with the model's tokenizer again instead of the user's file.
#[tauri::command(async)]
pub fn clear_tokenizer_file(app: AppHandle) -> R<()> {
    let state = app.state::<AppState>();
    guarded(&state, "clear_tokenizer_file", |ws| {
        ws.set_tokenizer_file(None);
        store_preview_settings(&app, ws);
        Ok(())
    })
}

/// The preview settings of the last run (model, tokenizer file, seed,
/// template), asked for by the UI once as it starts. Their tokenizer loads
/// here, off the UI thread and before the workspace is locked; a value that
/// no longer works is dropped and named in the notices returned. Later
/// calls (a reloaded webview) change nothing.
#[tauri::command(async)]
pub fn restore_preview_settings(app: AppHandle) -> R<Vec<Notice>> {
    static RESTORED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if RESTORED.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return Ok(Vec::new());
    }
    let saved = crate::preview_settings::load(&crate::data_dir(&app));
    let state = app.state::<AppState>();
    let current = guarded(&state, "restore_preview_settings", |ws| {
        Ok(ws.settings().clone())
    })?;
    let prepared = crate::preview_settings::prepare(&saved, &current);
    guarded(&state, "restore_preview_settings", |ws| {
        let problems = crate::preview_settings::apply(ws, prepared);
        Ok(problems)
    })
}

/// The empty state's "Open the sample": the bundled sample book (and its
/// chat, when none is set) as a new book without a file.
#[tauri::command(async)]
pub fn open_sample(s: State<'_, AppState>) -> R<u32> {
    guarded(&s, "open_sample", |ws| ws.open_sample())
}
