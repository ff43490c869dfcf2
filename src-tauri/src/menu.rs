//! The native menu and the one table of user actions behind it.
//!
//! [`ACTIONS`] lists every action once: its id (the `menu` event the UI
//! dispatches on, and the `menu.<id>` key of its label in the UI's message
//! catalog), its submenu, its English label and its accelerator. The native
//! menu is built from it here; `ui/src/lib/bindings.ts` carries it to the UI
//! (as `ACTIONS` and the `ActionId` type), where `ui/src/lib/shortcuts.ts`
//! shows the shortcuts in tooltips and the dispatcher must handle every id.
//! Adding an action is one row here, its labels in the catalog, and its
//! handler (the type checker asks for it).

use std::collections::HashMap;

use serde::Serialize;
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem, Submenu};
use tauri::{AppHandle, Runtime};

/// The submenus, in menu-bar order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    File,
    Edit,
    Preview,
    Help,
}

impl Group {
    pub const ALL: [Group; 4] = [Group::File, Group::Edit, Group::Preview, Group::Help];

    /// The label key of the submenu (`menu.<id>` in the catalog).
    pub fn id(self) -> &'static str {
        match self {
            Group::File => "menu_file",
            Group::Edit => "menu_edit",
            Group::Preview => "menu_preview",
            Group::Help => "menu_help",
        }
    }

    fn english(self) -> &'static str {
        match self {
            Group::File => "File",
            Group::Edit => "Edit",
            Group::Preview => "Preview",
            Group::Help => "Help",
        }
    }
}

/// One user action: a menu item with a shortcut.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Action {
    pub id: &'static str,
    pub group: Group,
    /// Shown until the UI sends its locale's labels.
    pub label: &'static str,
    /// In Tauri's syntax; `CmdOrCtrl` is Cmd on macOS and Ctrl elsewhere.
    /// Empty: no shortcut.
    pub accelerator: &'static str,
}

const fn action(
    id: &'static str,
    group: Group,
    label: &'static str,
    accelerator: &'static str,
) -> Action {
    Action {
        id,
        group,
        label,
        accelerator,
    }
}

/// Every action, in menu order.
pub const ACTIONS: &[Action] = &[
    action("new_book", Group::File, "New Book", "CmdOrCtrl+N"),
    action("open", Group::File, "Open…", "CmdOrCtrl+O"),
    action("save", Group::File, "Save", "CmdOrCtrl+S"),
    action("save_as", Group::File, "Save As…", "CmdOrCtrl+Shift+S"),
    action("open_folder", Group::File, "Open Folder…", ""),
    action("save_as_folder", Group::File, "Save As Folder…", ""),
    action(
        "connect_sillytavern",
        Group::File,
        "SillyTavern Server…",
        "",
    ),
    action("import", Group::File, "Import…", "CmdOrCtrl+I"),
    action("merge", Group::File, "Merge a Book Into This One…", ""),
    action("export", Group::File, "Export As…", "CmdOrCtrl+Shift+E"),
    action("open_chat", Group::File, "Open Chat…", "CmdOrCtrl+Shift+O"),
    action("close_book", Group::File, "Close Book", "CmdOrCtrl+W"),
    action("quit", Group::File, "Quit", "CmdOrCtrl+Q"),
    action("undo", Group::Edit, "Undo", "CmdOrCtrl+Z"),
    action("redo", Group::Edit, "Redo", "CmdOrCtrl+Shift+Z"),
    action("find", Group::Edit, "Find Entries", "CmdOrCtrl+F"),
    action("new_entry", Group::Edit, "New Entry", "CmdOrCtrl+E"),
    action(
        "duplicate_entry",
        Group::Edit,
        "Duplicate Entry",
        "CmdOrCtrl+D",
    ),
    action("next_entry", Group::Edit, "Next Entry", "Alt+Down"),
    action("previous_entry", Group::Edit, "Previous Entry", "Alt+Up"),
    action("reroll", Group::Preview, "Reroll Seed", "CmdOrCtrl+R"),
    action("ai_assistant", Group::Preview, "AI Assistant…", ""),
    action(
        "toggle_theme",
        Group::Preview,
        "Toggle Theme",
        "CmdOrCtrl+Shift+L",
    ),
    action("user_guide", Group::Help, "User Guide", "F1"),
    action("shortcuts", Group::Help, "Keyboard Shortcuts", ""),
    action("about", Group::Help, "About Lorebook Studio", ""),
];

/// The table as TypeScript, for `bindings.ts`: one row per action.
pub fn typescript() -> String {
    let rows: String = ACTIONS
        .iter()
        .map(|a| format!("  {},\n", serde_json::to_string(a).unwrap_or_default()))
        .collect();
    format!(
        "// The action table of src-tauri/src/menu.rs: menu items, shortcuts, tooltips and dispatch.\n\
         export const ACTIONS = [\n{rows}] as const;\n\n\
         export type ActionId = (typeof ACTIONS)[number]['id'];\n"
    )
}

/// The system's editing items at the end of the Edit menu: the menu id of
/// their label (`menu.<id>` in the catalog) and their English label.
pub const EDIT_ITEMS: [(&str, &str); 4] = [
    ("cut", "Cut"),
    ("copy", "Copy"),
    ("paste", "Paste"),
    ("select_all", "Select All"),
];

/// One item of a submenu, with its label in the UI's language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Action {
        id: &'static str,
        label: String,
    },
    Separator,
    /// One of [`EDIT_ITEMS`], by id.
    System {
        id: &'static str,
        label: String,
    },
}

/// The menu bar as labelled submenus, from labels by menu id (the UI's
/// catalog: action ids, `menu_file`, `menu_edit`, `menu_preview`, `menu_help` and the
/// [`EDIT_ITEMS`]); a missing or empty label stays English.
pub fn layout(labels: &HashMap<String, String>) -> Vec<(String, Vec<Item>)> {
    let label = |id: &str, english: &str| {
        labels
            .get(id)
            .filter(|t| !t.trim().is_empty())
            .cloned()
            .unwrap_or_else(|| english.to_string())
    };
    Group::ALL
        .iter()
        .map(|&group| {
            let mut items: Vec<Item> = ACTIONS
                .iter()
                .filter(|a| a.group == group)
                .map(|a| Item::Action {
                    id: a.id,
                    label: label(a.id, a.label),
                })
                .collect();
            if group == Group::Edit {
                items.push(Item::Separator);
                items.extend(EDIT_ITEMS.iter().map(|&(id, english)| Item::System {
                    id,
                    label: label(id, english),
                }));
            }
            (label(group.id(), group.english()), items)
        })
        .collect()
}

/// The menu with labels from the UI's message catalog (see [`layout`]).
pub fn build_labeled<R: Runtime>(
    app: &AppHandle<R>,
    labels: &HashMap<String, String>,
) -> tauri::Result<Menu<R>> {
    let accelerator = |id: &str| {
        ACTIONS
            .iter()
            .find(|a| a.id == id)
            .map(|a| a.accelerator)
            .filter(|a| !a.is_empty())
    };
    let mut submenus = Vec::new();
    for (title, items) in layout(labels) {
        let s = Submenu::new(app, title, true)?;
        for item in items {
            match item {
                Item::Action { id, label } => {
                    s.append(&MenuItem::with_id(app, id, label, true, accelerator(id))?)?
                }
                Item::Separator => s.append(&PredefinedMenuItem::separator(app)?)?,
                Item::System { id, label } => {
                    let text = Some(label.as_str());
                    let item = match id {
                        "cut" => PredefinedMenuItem::cut(app, text)?,
                        "copy" => PredefinedMenuItem::copy(app, text)?,
                        "paste" => PredefinedMenuItem::paste(app, text)?,
                        _ => PredefinedMenuItem::select_all(app, text)?,
                    };
                    s.append(&item)?
                }
            }
        }
        submenus.push(s);
    }
    let items: Vec<&dyn tauri::menu::IsMenuItem<R>> = submenus
        .iter()
        .map(|s| s as &dyn tauri::menu::IsMenuItem<R>)
        .collect();
    Menu::with_items(app, &items)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::{layout, Group, Item, ACTIONS, EDIT_ITEMS};
    use crate::dialogs::catalog;

    /// The catalog's menu labels by menu id, as the UI sends them.
    fn menu_labels(locale: &str) -> HashMap<String, String> {
        catalog(locale)
            .into_iter()
            .filter_map(|(k, v)| k.strip_prefix("menu.").map(|id| (id.to_string(), v)))
            .collect()
    }

    /// Every label of the menu, submenu titles first.
    fn all_labels(labels: &HashMap<String, String>) -> Vec<String> {
        let mut out = Vec::new();
        for (title, items) in layout(labels) {
            out.push(title);
            for item in items {
                match item {
                    Item::Action { label, .. } | Item::System { label, .. } => out.push(label),
                    Item::Separator => {}
                }
            }
        }
        out
    }

    /// In English the menu reads as written here, with the UI's words or
    /// without them.
    #[test]
    fn the_menu_reads_in_english() {
        let plain = all_labels(&HashMap::new());
        assert_eq!(plain, all_labels(&menu_labels("en")));
        assert_eq!(&plain[..3], ["File", "New Book", "Open…"]);
        assert!(plain.contains(&"Select All".to_string()));
    }

    /// In Portuguese every label of the menu, the system's editing items
    /// included, is the catalog's Portuguese one.
    #[test]
    fn the_menu_reads_in_portuguese() {
        let pt = menu_labels("pt-BR");
        let english = all_labels(&HashMap::new());
        let labels = all_labels(&pt);
        assert_eq!(labels.len(), english.len());
        for (p, e) in labels.iter().zip(&english) {
            assert_ne!(p, e, "{e} left in English");
        }
        assert_eq!(&labels[..3], ["Arquivo", "Novo livro", "Abrir…"]);
        assert!(labels.contains(&"Recortar".to_string()));
        assert!(labels.contains(&"Selecionar tudo".to_string()));
    }

    /// Every menu action has a label in both languages of the UI's catalog,
    /// the English one as written here.
    #[test]
    fn every_menu_item_is_translated_and_listed() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let catalog = ["en", "pt-BR"]
            .map(|l| {
                std::fs::read_to_string(root.join(format!("ui/src/lib/locales/{l}.ts"))).unwrap()
            })
            .join("\n");
        let ids = ACTIONS
            .iter()
            .map(|a| a.id)
            .chain(Group::ALL.map(Group::id))
            .chain(EDIT_ITEMS.map(|(id, _)| id));
        for id in ids {
            let key = format!("'menu.{id}':");
            assert_eq!(catalog.matches(&key).count(), 2, "{key} in en and pt-BR");
        }
        for a in ACTIONS {
            let english = format!("'menu.{}': '{}'", a.id, a.label);
            assert!(catalog.contains(&english), "{english} in locales/en.ts");
        }
    }

    /// Ids are unique, and so are shortcuts: one key press, one action
    /// (an action without one has none to share).
    #[test]
    fn ids_and_accelerators_are_unique() {
        for (i, a) in ACTIONS.iter().enumerate() {
            for b in &ACTIONS[i + 1..] {
                assert_ne!(a.id, b.id);
                if a.accelerator.is_empty() {
                    continue;
                }
                assert_ne!(a.accelerator, b.accelerator, "{} and {}", a.id, b.id);
            }
        }
    }
}
