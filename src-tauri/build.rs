//! Builds the Tauri context. Every app command is listed in the app
//! manifest, which makes each one deny-by-default: the webview may call only
//! what `capabilities/` grants.

const COMMANDS: &[&str] = &[
    "catalog",
    "app_state",
    "take_notices",
    "new_book",
    "open_dialog",
    "open_recent",
    "pending_imports",
    "confirm_import",
    "export_report",
    "export_dialog",
    "save",
    "save_as",
    "close_doc",
    "book_settings",
    "set_book_settings",
    "list_entries",
    "get_entry",
    "update_entry",
    "add_entry",
    "duplicate_entries",
    "delete_entries",
    "bulk_update",
    "undo",
    "redo",
    "split_keys",
    "set_decorator",
    "set_chat",
    "open_chat_dialog",
    "set_attached",
    "set_preview_settings",
    "preview",
    "preview_log",
    "set_menu_labels",
    "quit",
];

fn main() {
    let attributes = tauri_build::Attributes::new()
        .capabilities_path_pattern("./src-tauri/capabilities/**/*")
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    tauri_build::try_build(attributes).expect("tauri-build failed");
}
