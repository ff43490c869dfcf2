//! Lorebook Studio, the desktop shell: app state, commands, the native menu,
//! drag and drop, and the unsaved-changes guard. The engine does the work;
//! this crate only routes.

#[macro_use]
mod command_list;
pub mod bindings;
pub mod commands;
pub mod error;
pub mod menu;
pub mod views;
pub mod workspace;

use std::path::PathBuf;

use tauri::{Emitter, Manager, WindowEvent};

use commands::AppState;
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
            Ok(views::ImportOutcome::Opened(r)) => notices.extend(
                r.notes
                    .into_iter()
                    .map(|n| views::Notice::message(format!("{p}: {n}"))),
            ),
            // Named on the command line: the user already chose the file,
            // so it opens at once and the report becomes a notice.
            Ok(views::ImportOutcome::Pending(pending)) => {
                let id = pending.id;
                notices.push(views::Notice::Imported(pending));
                if let Err(e) = ws.confirm_import(id, true) {
                    notices.push(views::Notice::message(e.message));
                }
            }
            Err(e) => notices.push(views::Notice::message(e.message)),
        }
    }
    (ws, notices)
}

pub fn run() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (ws, notices) = initial_workspace(&args);
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .manage(AppState {
            ws: std::sync::Mutex::new(ws),
            notices: std::sync::Mutex::new(notices),
        })
        .setup(|app| {
            let recent = commands::load_recent(app.handle());
            let state = app.state::<AppState>();
            if let Ok(mut ws) = state.ws.lock() {
                ws.add_recent(recent);
            }
            Ok(())
        })
        .menu(menu::build)
        .on_menu_event(|app, event| {
            let _ = app.emit("menu", event.id().0.as_str());
        })
        .on_window_event(|window, event| match event {
            WindowEvent::CloseRequested { api, .. } => {
                let state = window.state::<AppState>();
                let dirty = state.ws.lock().map(|ws| ws.any_dirty()).unwrap_or(false);
                if dirty {
                    // The UI asks the user, then calls `quit`.
                    api.prevent_close();
                    let _ = window.emit("close-requested", ());
                }
            }
            WindowEvent::DragDrop(tauri::DragDropEvent::Drop { paths, .. }) => {
                let state = window.state::<AppState>();
                let mut messages = Vec::new();
                if let Ok(mut ws) = state.ws.lock() {
                    for p in paths {
                        match ws.import_path(p) {
                            Ok(views::ImportOutcome::Opened(r)) => messages.extend(r.notes),
                            // Shown with its report by the UI (pending_imports).
                            Ok(views::ImportOutcome::Pending(_)) => {}
                            Err(e) => messages.push(e.message),
                        }
                    }
                    commands::store_recent(window.app_handle(), &ws);
                }
                if let Ok(mut n) = state.notices.lock() {
                    n.extend(messages.into_iter().map(views::Notice::message));
                }
                let _ = window.emit("docs-changed", ());
            }
            _ => {}
        })
        .invoke_handler(with_command_names!(command_handler))
        .run(tauri::generate_context!())
        .expect("error while running Lorebook Studio");
}
