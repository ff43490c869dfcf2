//! The native menu. Every action has an id the UI receives as a `menu`
//! event, and a native accelerator; the UI shows the same table in tooltips
//! (`ui/src/lib/shortcuts.ts`).

use std::collections::HashMap;

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

/// The menu with its English labels (until the UI sends its locale's).
pub fn build<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<Menu<R>> {
    build_labeled(app, &HashMap::new())
}

/// The menu with labels from the UI's message catalog, by action id (and
/// `menu_file`, `menu_edit`, `menu_preview` for the submenus); missing ones
/// stay English.
pub fn build_labeled<R: Runtime>(
    app: &AppHandle<R>,
    labels: &HashMap<String, String>,
) -> tauri::Result<Menu<R>> {
    let label = |id: &str, english: &str| {
        labels
            .get(id)
            .cloned()
            .unwrap_or_else(|| english.to_string())
    };
    let sub = |id: &str, title: &str, items: &[(&str, &str, &str)]| -> tauri::Result<Submenu<R>> {
        let s = Submenu::new(app, label(id, title), true)?;
        for (id, english, accel) in items {
            s.append(&MenuItem::with_id(
                app,
                *id,
                label(id, english),
                true,
                Some(*accel),
            )?)?;
        }
        Ok(s)
    };
    let file = sub("menu_file", "File", FILE)?;
    let edit = sub("menu_edit", "Edit", EDIT)?;
    edit.append(&PredefinedMenuItem::separator(app)?)?;
    edit.append(&PredefinedMenuItem::cut(app, None)?)?;
    edit.append(&PredefinedMenuItem::copy(app, None)?)?;
    edit.append(&PredefinedMenuItem::paste(app, None)?)?;
    edit.append(&PredefinedMenuItem::select_all(app, None)?)?;
    let preview = sub("menu_preview", "Preview", PREVIEW)?;
    Menu::with_items(app, &[&file, &edit, &preview])
}

#[cfg(test)]
mod tests {
    /// Every menu action has a label in both languages of the UI's catalog,
    /// and a shortcut in the tooltip table.
    #[test]
    fn every_menu_item_is_translated_and_listed() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let catalog = std::fs::read_to_string(root.join("ui/src/lib/i18n.ts")).unwrap();
        let shortcuts = std::fs::read_to_string(root.join("ui/src/lib/shortcuts.ts")).unwrap();
        let ids = super::FILE
            .iter()
            .chain(super::EDIT)
            .chain(super::PREVIEW)
            .map(|(id, _, _)| *id)
            .chain(["menu_file", "menu_edit", "menu_preview"]);
        for id in ids {
            let key = format!("'menu.{id}':");
            assert_eq!(catalog.matches(&key).count(), 2, "{key} in en and pt-BR");
        }
        for (id, _, accel) in super::FILE.iter().chain(super::EDIT).chain(super::PREVIEW) {
            let shown = accel.replace("CmdOrCtrl", "Ctrl");
            assert!(
                shortcuts.contains(&format!("{id}: '{shown}'")),
                "{id} {shown} in shortcuts.ts"
            );
        }
    }
}
