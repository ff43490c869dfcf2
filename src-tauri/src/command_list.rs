// The one list of the app's commands. This file is included by the build
// script (`include!`), which puts every name in the app manifest so that
// each command is denied unless `capabilities/` grants it, and by the
// library, which builds the invoke handler and `COMMANDS` from it. Tests
// check the capability file and `ui/src/lib/ipc.ts` against `COMMANDS`, and
// `ui/src/lib/bindings.ts` carries the names as the `Command` type.
//
// Adding a command: write it in `commands.rs`, add its name here, grant it
// in `capabilities/default.json` and wrap it in `ipc.ts` (the tests say
// what is missing).

/// Calls macro `$then` with the name of every command.
macro_rules! with_command_names {
    ($then:ident) => {
        $then! {
            catalog,
            app_state,
            take_notices,
            new_book,
            open_dialog,
            open_recent,
            pending_imports,
            confirm_import,
            export_report,
            export_dialog,
            save,
            save_as,
            check_disk_changes,
            reload_doc,
            close_doc,
            book_settings,
            set_book_settings,
            list_entries,
            get_entry,
            update_entry,
            add_entry,
            duplicate_entries,
            delete_entries,
            bulk_update,
            undo,
            redo,
            split_keys,
            set_decorator,
            set_chat,
            open_chat_dialog,
            set_attached,
            set_preview_settings,
            preview,
            preview_log,
            set_menu_labels,
            list_recovered,
            restore_recovered,
            discard_recovered,
            autosave_status,
            set_window_title,
            has_unsaved,
            quit,
            load_prefs,
            save_prefs,
            rules_view,
            set_rules,
            set_st_settings,
            load_st_settings_dialog,
            st_preview,
            st_log,
            set_st_field,
            chat_text,
            edit_chat,
            pick_tokenizer_file,
            clear_tokenizer_file,
            restore_preview_settings,
            count_list_tokens,
            open_sample,
            set_st_inputs,
            lint_problems,
            apply_fix,
            budget_advice,
        }
    };
}

/// The names as strings.
macro_rules! command_names {
    ($($name:ident),* $(,)?) => {
        &[$(stringify!($name)),*]
    };
}

#[cfg(test)]
mod tests {
    use crate::COMMANDS;

    fn read(path: &str) -> String {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(root.join(path)).unwrap()
    }

    /// The capability grants exactly the app's commands (as
    /// `allow-<kebab-name>`, the permission tauri-build generates for each).
    #[test]
    fn the_capability_grants_every_command_and_no_other() {
        let file: serde_json::Value =
            serde_json::from_str(&read("src-tauri/capabilities/default.json")).unwrap();
        let mut granted: Vec<String> = file["permissions"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p.as_str())
            .filter(|p| !p.starts_with("core:"))
            .map(str::to_string)
            .collect();
        let mut expected: Vec<String> = COMMANDS
            .iter()
            .map(|c| format!("allow-{}", c.replace('_', "-")))
            .collect();
        granted.sort();
        expected.sort();
        assert_eq!(granted, expected, "capabilities/default.json");
    }

    /// The TypeScript wrapper calls every command by name (the `Command`
    /// type in bindings.ts rejects names that are not commands).
    #[test]
    fn ipc_ts_wraps_every_command() {
        let ipc = read("ui/src/lib/ipc.ts");
        let missing: Vec<&str> = COMMANDS
            .iter()
            .copied()
            .filter(|c| !ipc.contains(&format!("('{c}'")))
            .collect();
        assert!(missing.is_empty(), "not wrapped in ipc.ts: {missing:?}");
        let calls = ipc.matches("call<").count() - 1;
        assert_eq!(calls, COMMANDS.len(), "one wrapper per command in ipc.ts");
    }
}
