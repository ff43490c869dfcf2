//! Lorebook Studio, the desktop shell: app state, commands, the native menu,
//! drag and drop, autosave, and the unsaved-changes guard. The engine does
//! the work; this crate only routes.

#[macro_use]
mod command_list;
pub mod ai;
pub mod bindings;
pub mod commands;
pub mod dialogs;
pub mod error;
pub mod fault;
pub mod menu;
pub mod prefs;
pub mod preview_settings;
pub mod secrets;
pub mod server;
pub mod trace;
pub mod views;
pub mod watch;
pub mod workspace;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tauri::{AppHandle, Emitter, Manager, RunEvent, WindowEvent};

use commands::{AppState, RecoveryState};
use workspace::recovery::{self, Recovery};
use workspace::Workspace;

/// The name of every command, from the one list in `command_list.rs`.
pub const COMMANDS: &[&str] = with_command_names!(command_names);

/// The invoke handler of every command in the list.
macro_rules! command_handler {
    ($($name:ident),* $(,)?) => {
        tauri::generate_handler![$(commands::$name),*]
    };
}

/// The workspace at startup: the files named on the command line, or the
/// bundled sample book and chat when none is given.
pub fn initial_workspace(args: &[String]) -> (Workspace, Vec<views::Notice>) {
    let paths: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    if paths.is_empty() {
        return (Workspace::with_sample(), Vec::new());
    }
    let mut ws = Workspace::default();
    let mut notices = Vec::new();
    for p in paths {
        match ws.import_path(&PathBuf::from(p)) {
            Ok(views::ImportOutcome::Opened(r)) => {
                notices.extend(r.notes.into_iter().map(|note| views::Notice::Repaired {
                    file: p.clone(),
                    note,
                }))
            }
            // Named on the command line: the user already chose the file,
            // so it opens at once and the report becomes a notice.
            Ok(views::ImportOutcome::Pending(pending)) => {
                let id = pending.id;
                notices.push(views::Notice::Imported(pending));
                if let Err(error) = ws.confirm_import(id, true) {
                    notices.push(views::Notice::Failed { error });
                }
            }
            Err(error) => notices.push(views::Notice::Failed { error }),
        }
    }
    (ws, notices)
}

/// When the UI was last asked to close the window.
static CLOSE_ASKED: Mutex<Option<Instant>> = Mutex::new(None);

/// Set by the `quit` command: the user saved or deliberately discarded every
/// change, so the exit that follows may remove this run's recovery copies.
pub(crate) static QUIT_CONFIRMED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// How long the UI has to answer a close request before a repeated request
/// closes a window with nothing unsaved.
const UI_ANSWER_TIME: Duration = Duration::from_secs(3);

/// The app's data folder: `LOREBOOK_DATA_DIR` when set (tests point it at
/// a temporary folder), else the platform's (`app_data_dir`).
pub(crate) fn data_dir(app: &AppHandle) -> PathBuf {
    std::env::var_os(recovery::DATA_DIR_ENV)
        .map(PathBuf::from)
        .or_else(|| app.path().app_data_dir().ok())
        .unwrap_or_else(|| std::env::temp_dir().join("lorebook-studio"))
}

/// One autosave pass: copies the dirty books unchanged for `delay`
/// (`Duration::ZERO`: every dirty book, at once, for the exit paths).
fn autosave_pass(app: &AppHandle, delay: Duration) {
    let state = app.state::<AppState>();
    let Some(rec_state) = app.try_state::<RecoveryState>() else {
        return;
    };
    // A poisoned workspace is still worth copying: it may hold the only
    // copy of the user's work. Long work holding it gives way at once
    // when a copy is due; a pass with nothing due leaves it running (a
    // build stopped every half second would never end).
    let ws = match state.ws.try_lock() {
        Ok(ws) => ws,
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => {
            let due = delay.is_zero()
                || rec_state
                    .0
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .due_while_busy(state.edit_mark(), Instant::now(), delay);
            if !due {
                return;
            }
            state.lock_urgently()
        }
    };
    let mut rec = rec_state.0.lock().unwrap_or_else(|p| p.into_inner());
    let plan = rec.plan(&ws, Instant::now(), delay);
    drop(ws);
    let before = rec.failure().cloned();
    for e in rec.apply(plan) {
        eprintln!("Lorebook Studio: {e}");
    }
    // The UI keeps a notice while copies fail, and clears it when they work.
    let now = rec.failure().cloned();
    if now != before {
        let _ = app.emit("autosave-status", now);
    }
}

/// Copies unsaved books into the recovery folder on a thread of its own,
/// so the copies are written even while the webview hangs.
fn start_autosave(app: AppHandle) {
    std::thread::spawn(move || loop {
        std::thread::sleep(recovery::AUTOSAVE_TICK);
        autosave_pass(&app, recovery::AUTOSAVE_DELAY);
    });
}

/// Files dropped on the window, opened or imported as Open does; what went
/// wrong (a panic too) becomes a notice.
fn drop_files(app: &AppHandle, paths: &[PathBuf]) {
    let state = app.state::<AppState>();
    let result = commands::guarded(&state, "drop_files", |ws| {
        let mut notices = Vec::new();
        for p in paths {
            match ws.import_path(p) {
                Ok(views::ImportOutcome::Opened(r)) => {
                    let file = p.display().to_string();
                    notices.extend(r.notes.into_iter().map(|note| views::Notice::Repaired {
                        file: file.clone(),
                        note,
                    }))
                }
                // Shown with its report by the UI (pending_imports).
                Ok(views::ImportOutcome::Pending(_)) => {}
                Err(error) => notices.push(views::Notice::Failed { error }),
            }
        }
        commands::store_recent(app, ws);
        Ok(notices)
    });
    let notices = result.unwrap_or_else(|error| vec![views::Notice::Failed { error }]);
    if let Ok(mut n) = state.notices.lock() {
        n.extend(notices);
    }
    let _ = app.emit("docs-changed", ());
}

/// SIGTERM (a system shutdown, `kill`), SIGHUP and SIGINT leave no time to
/// ask the user: every dirty book is copied for recovery at once, whatever
/// its quiet period, and the process ends without the clean exit that
/// removes the copies, so the next start offers them.
#[cfg(unix)]
fn watch_exit_signals(app: AppHandle) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            autosave_pass(&app, Duration::ZERO);
            std::process::exit(128 + signal);
        }
    });
}

/// Where `tauri build` puts the installed tokenizer files inside the app's
/// resource folder (`bundle.resources` in `tauri.conf.json`).
pub const TOKENIZER_RESOURCES: &str = "resources/tokenizers";

/// The folders searched for the installed tokenizer files, in the engine's
/// order (`resources::search_path_from`): `$LOREBOOK_TOKENIZERS`, the
/// bundled resources under `resource_dir` (Tauri's resource folder), beside
/// the executable, then this source tree's `resources/tokenizers`
/// (development builds). `run` hands them to the engine once, before the
/// first book is read.
pub fn tokenizer_search_path(resource_dir: Option<&Path>) -> Vec<PathBuf> {
    use lorebook_engine::tokenizer::resources;
    let exe_dir = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf));
    resources::search_path_from(
        std::env::var_os(resources::ENV_VAR)
            .filter(|d| !d.is_empty())
            .map(PathBuf::from),
        resource_dir.map(|d| d.join(TOKENIZER_RESOURCES)),
        exe_dir.as_deref(),
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(TOKENIZER_RESOURCES),
    )
}

/// The value `WEBKIT_DISABLE_COMPOSITING_MODE` gets for the webview when the
/// user has not set it (`current`): `Some("1")`, accelerated compositing
/// off, unless `LOREBOOK_COMPOSITING=1` asks to keep it. The editor uses no
/// 3D transforms, WebGL or video; measured on the 10,000-entry page,
/// WebKitGTK's compositing made every scrolled frame cost 80–120 ms where
/// it runs on a software GL (a machine without a GPU driver, a VM, Xvfb),
/// against 8–14 ms without it (BENCHMARKS.md, Scrolling). A value the user
/// set is left as it is.
pub fn compositing_default(
    current: Option<&std::ffi::OsStr>,
    keep: Option<&std::ffi::OsStr>,
) -> Option<&'static str> {
    if current.is_some() || keep.is_some_and(|v| v == "1") {
        None
    } else {
        Some("1")
    }
}

pub fn run() {
    trace::mark("start");
    #[cfg(target_os = "linux")]
    if let Some(value) = compositing_default(
        std::env::var_os("WEBKIT_DISABLE_COMPOSITING_MODE").as_deref(),
        std::env::var_os("LOREBOOK_COMPOSITING").as_deref(),
    ) {
        // Before any other thread starts: the webview's processes, which
        // read it, inherit the environment.
        std::env::set_var("WEBKIT_DISABLE_COMPOSITING_MODE", value);
    }
    fault::init();
    // The installed tokenizer files' folders, bundled ones included, are
    // given to the engine before anything can load a tokenizer (the books
    // and settings read below). Tauri's resource folder depends only on
    // the executable and the package, so it is known before the app is
    // built. The first and only call, so always accepted.
    let context = tauri::generate_context!();
    let resource_dir =
        tauri::utils::platform::resource_dir(context.package_info(), &tauri::Env::default()).ok();
    lorebook_engine::tokenizer::resources::set_search_path(tokenizer_search_path(
        resource_dir.as_deref(),
    ))
    .expect("the tokenizer search path is set once, here");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (ws, notices) = initial_workspace(&args);
    trace::mark("books read");
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .manage(AppState::new(ws, notices))
        .manage(dialogs::NativeLabels::default())
        .setup(|app| {
            let recent = commands::load_recent(app.handle());
            commands::load_st_settings(app.handle());
            commands::load_risu_settings(app.handle());
            let state = app.state::<AppState>();
            let dir = data_dir(app.handle());
            let mut rec = Recovery::new(&dir);
            // Outside edits of the open books' files: the UI checks them
            // as it does on focus (`check_disk_changes`). The books to
            // follow are given by `remember`, below and after every command.
            let emitter = app.handle().clone();
            let teller = app.handle().clone();
            let followed = state.watch.start(
                move || {
                    let _ = emitter.emit("disk-changed", ());
                },
                move |text| {
                    let state = teller.state::<AppState>();
                    state
                        .notices
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(views::Notice::Message { text });
                    let _ = teller.emit("docs-changed", ());
                },
            );
            if let Err(e) = followed {
                eprintln!("Lorebook Studio: outside edits are checked on focus only: {e}");
            }
            if let Ok(mut ws) = state.ws.lock() {
                ws.add_recent(recent);
                state.remember(&ws);
                // So autosave does not stop the build below for books that
                // need no copy yet.
                rec.look(&ws, Instant::now(), recovery::AUTOSAVE_DELAY);
            }
            app.manage(RecoveryState(Mutex::new(rec)));
            // The attached books' index is built now, while the window
            // and its page load, not when the page first asks for the
            // list (10,000 entries: a second or more).
            let handle = app.handle().clone();
            std::thread::spawn(move || {
                let state = handle.state::<AppState>();
                if let Ok(mut ws) = state.ws.lock() {
                    ws.prepare();
                }
                trace::mark("index built");
            });
            start_autosave(app.handle().clone());
            #[cfg(unix)]
            watch_exit_signals(app.handle().clone());
            trace::mark("setup done");
            Ok(())
        })
        // The menu in the words the UI sent in the last run, so a
        // Portuguese user never sees an English menu while the page loads.
        .menu(|app| {
            let labels = dialogs::load_labels(&data_dir(app));
            if let Some(native) = app.try_state::<dialogs::NativeLabels>() {
                *native.0.lock().unwrap_or_else(|p| p.into_inner()) = labels.clone();
            }
            menu::build_labeled(app, &labels)
        })
        .on_menu_event(|app, event| {
            let _ = app.emit("menu", event.id().0.as_str());
        })
        .on_window_event(|window, event| match event {
            WindowEvent::CloseRequested { api, .. } => {
                // The UI may hold an edit not yet sent (typing is sent
                // shortly after the last keystroke), so it decides: it
                // sends what it holds, asks when a book is dirty, then
                // calls `quit`. A webview that never answers cannot keep a
                // clean window open: a request repeated after
                // `UI_ANSWER_TIME` closes it when Rust holds nothing unsaved.
                let state = window.state::<AppState>();
                let mut asked = CLOSE_ASKED.lock().unwrap_or_else(|p| p.into_inner());
                let unanswered = asked.is_some_and(|t| t.elapsed() >= UI_ANSWER_TIME);
                // Never waits on the main thread: a busy workspace counts
                // as unsaved, and the UI decides.
                if recovery::has_unsaved_now(&state.ws) || !unanswered {
                    api.prevent_close();
                    *asked = Some(Instant::now());
                    let _ = window.emit("close-requested", ());
                }
            }
            WindowEvent::DragDrop(tauri::DragDropEvent::Drop { paths, .. }) => {
                // Read and parsed off the main thread (a big book takes a
                // second), through the same panic guard as Open.
                let app = window.app_handle().clone();
                let paths = paths.clone();
                std::thread::spawn(move || drop_files(&app, &paths));
            }
            _ => {}
        })
        .invoke_handler(with_command_names!(command_handler))
        .build(context)
        .expect("error while building Lorebook Studio")
        .run(|app, event| {
            // Every change was saved or deliberately discarded (the user
            // confirmed `quit`, or nothing is unsaved): this run's recovery
            // copies go. A window destroyed from outside (a window manager,
            // an automation driver) exits without asking; then the unsaved
            // books are copied once more and their copies are kept, like
            // those of a kill or a crash, to be offered next time.
            if let RunEvent::Exit = event {
                let confirmed = QUIT_CONFIRMED.load(std::sync::atomic::Ordering::SeqCst);
                let unsaved = app.state::<AppState>().has_unsaved_soon();
                if confirmed || !unsaved {
                    if let Some(rec) = app.try_state::<RecoveryState>() {
                        rec.0.lock().unwrap_or_else(|p| p.into_inner()).forget_all();
                    }
                } else {
                    autosave_pass(app, Duration::ZERO);
                }
            }
        });
}

#[cfg(test)]
mod tokenizer_bundle_tests {
    /// `tauri build` bundles the installed tokenizer folder where the app
    /// looks for it, and the folder exists in a plain clone (its README is
    /// committed), so the build's copy never fails for want of files.
    #[test]
    fn the_bundle_holds_the_tokenizers_where_the_app_looks() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let conf: serde_json::Value =
            serde_json::from_slice(&std::fs::read(root.join("tauri.conf.json")).unwrap()).unwrap();
        let resources = conf["bundle"]["resources"]
            .as_object()
            .expect("a map of resources");
        let target = resources
            .get(&format!("{}/", super::TOKENIZER_RESOURCES))
            .and_then(|v| v.as_str());
        assert_eq!(
            target,
            Some(format!("{}/", super::TOKENIZER_RESOURCES).as_str())
        );
        assert!(root
            .join(super::TOKENIZER_RESOURCES)
            .join("README.md")
            .is_file());
    }

    /// The app searches its bundled resources before the folders beside
    /// the executable, and the source tree's folder last.
    #[test]
    fn the_app_searches_its_resources_then_beside_itself_then_the_source() {
        let app = std::path::Path::new("/opt/lorebook-studio");
        let dirs = super::tokenizer_search_path(Some(app));
        let bundled = app.join(super::TOKENIZER_RESOURCES);
        let at = dirs.iter().position(|d| *d == bundled).expect("bundled");
        assert!(at <= 1, "after $LOREBOOK_TOKENIZERS only: {dirs:?}");
        let exe = std::env::current_exe().unwrap();
        let beside = exe.parent().unwrap().join("tokenizers");
        assert_eq!(dirs.get(at + 1), Some(&beside), "{dirs:?}");
        assert_eq!(
            dirs.last(),
            Some(
                &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(super::TOKENIZER_RESOURCES)
            )
        );
        assert!(!super::tokenizer_search_path(None).contains(&bundled));
    }
}

#[cfg(test)]
mod compositing_tests {
    use super::compositing_default;
    use std::ffi::OsStr;

    #[test]
    fn compositing_is_off_unless_the_user_chose() {
        assert_eq!(compositing_default(None, None), Some("1"));
        assert_eq!(compositing_default(None, Some(OsStr::new("0"))), Some("1"));
        // LOREBOOK_COMPOSITING=1 keeps WebKit's own default.
        assert_eq!(compositing_default(None, Some(OsStr::new("1"))), None);
        // A value the user set, whatever it is, stays.
        assert_eq!(compositing_default(Some(OsStr::new("0")), None), None);
        assert_eq!(compositing_default(Some(OsStr::new("1")), None), None);
    }
}

#[cfg(test)]
mod ai_tests;
#[cfg(test)]
mod packaging_tests;
#[cfg(test)]
mod server_tests;
