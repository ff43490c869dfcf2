//! The native menu. Every action has an id the UI receives as a `menu`
//! event, and a native accelerator; the UI shows the same table in tooltips
//! (`ui/src/lib/shortcuts.ts`).

use tauri::menu::{Menu, MenuItem, PredefinedMenuItem, Submenu};
use tauri::{AppHandle, Runtime};

/// `(id, label, accelerator)` of every menu action, by submenu.
pub const FILE: &[(&str, &str, &str)] = &[
    ("new_book", "New Book", "CmdOrCtrl+N"),
    ("open", "Open…", "CmdOrCtrl+O"),
    ("save", "Save", "CmdOrCtrl+S"),
    ("save_as", "Save As…", "CmdOrCtrl+Shift+S"),
    ("import", "Import…", "CmdOrCtrl+I"),
    ("export", "Export As…", "CmdOrCtrl+Shift+E"),
    ("open_chat", "Open Chat…", "CmdOrCtrl+Shift+O"),
    ("close_book", "Close Book", "CmdOrCtrl+W"),
    ("quit", "Quit", "CmdOrCtrl+Q"),
];

pub const EDIT: &[(&str, &str, &str)] = &[
    ("undo", "Undo", "CmdOrCtrl+Z"),
    ("redo", "Redo", "CmdOrCtrl+Shift+Z"),
    ("find", "Find Entries", "CmdOrCtrl+F"),
    ("new_entry", "New Entry", "CmdOrCtrl+E"),
    ("duplicate_entry", "Duplicate Entry", "CmdOrCtrl+D"),
    ("next_entry", "Next Entry", "Alt+Down"),
    ("previous_entry", "Previous Entry", "Alt+Up"),
];

pub const PREVIEW: &[(&str, &str, &str)] = &[
    ("reroll", "Reroll Seed", "CmdOrCtrl+R"),
    ("toggle_theme", "Toggle Theme", "CmdOrCtrl+Shift+L"),
];

pub fn build<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<Menu<R>> {
    let sub = |title: &str, items: &[(&str, &str, &str)]| -> tauri::Result<Submenu<R>> {
        let s = Submenu::new(app, title, true)?;
        for (id, label, accel) in items {
            s.append(&MenuItem::with_id(app, *id, *label, true, Some(*accel))?)?;
        }
        Ok(s)
    };
    let file = sub("File", FILE)?;
    let edit = sub("Edit", EDIT)?;
    edit.append(&PredefinedMenuItem::separator(app)?)?;
    edit.append(&PredefinedMenuItem::cut(app, None)?)?;
    edit.append(&PredefinedMenuItem::copy(app, None)?)?;
    edit.append(&PredefinedMenuItem::paste(app, None)?)?;
    edit.append(&PredefinedMenuItem::select_all(app, None)?)?;
    let preview = sub("Preview", PREVIEW)?;
    Menu::with_items(app, &[&file, &edit, &preview])
}
