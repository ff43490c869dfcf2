// The one list of the app's commands. This file is included by the build
// script (`include!`), which puts every name in the app manifest so that
// each command is denied unless `capabilities/` grants it, and by the
// library, which builds the invoke handler and `COMMANDS` from it. Tests
// check the capability file and `ui/src/lib/ipc.ts` against `COMMANDS`, and
// `ui/src/lib/bindings.ts` carries the names as the `Command` type.
//
// Adding a command: write it in its module of `commands/`, add its name here, grant it
// in `capabilities/default.json` and wrap it in `ipc.ts` (the tests say
// what is missing).

/// Calls macro `$then` with the name of every command.
macro_rules! with_command_names {
    ($then:ident) => {
        $then! {
            catalog,
            about,
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
            ai_config,
            ai_configure,
            ai_forget_key,
            ai_run,
            ai_cancel,
            ai_accept,
            ai_transcript,
            set_entry_locked,
            st_connect,
            st_disconnect,
            st_last_server,
            st_forget_password,
            st_connection,
            st_books,
            st_open_book,
            st_characters,
            st_use_chat,
            st_use_settings,
            st_use_character,
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
            open_folder_dialog,
            merge_dialog,
            apply_merge,
            cancel_merge,
            save_as_folder,
            add_folder,
            move_to_folder,
            rename_folder,
            folder_entries,
            set_folder_enabled,
            delete_folder,
            undo,
            redo,
            split_keys,
            set_decorator,
            set_chat,
            open_chat_dialog,
            set_attached,
            show_doc,
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
            set_chat_vars,
            load_st_settings_dialog,
            set_risu_settings,
            scenarios,
            record_scenario,
            delete_scenario,
            edit_scenario,
            impact,
            impact_steps,
            set_impact_base,
            impact_base_dialog,
            book_figures,
            find_in_book,
            replace_in_book,
            replace_impact,
            timeline,
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

    /// The webview reaches no server and no file itself: the CSP lets it
    /// load only the app's own code and talk only to the IPC (a server's
    /// address or a model endpoint is reached by Rust), and the capability
    /// grants no plugin's file system, shell, HTTP or dialog permission.
    #[test]
    fn the_webview_reaches_nothing_but_the_ipc() {
        let conf: serde_json::Value = serde_json::from_str(&read("tauri.conf.json")).unwrap();
        let csp = conf["app"]["security"]["csp"].as_str().expect("a CSP");
        let directive = |name: &str| -> Vec<String> {
            csp.split(';')
                .map(str::trim)
                .find_map(|d| d.strip_prefix(name).filter(|r| r.starts_with(' ')))
                .map(|r| r.split_whitespace().map(str::to_string).collect())
                .unwrap_or_default()
        };
        assert_eq!(directive("default-src"), ["'self'"], "{csp}");
        assert_eq!(directive("script-src"), ["'self'"], "{csp}");
        assert_eq!(
            directive("connect-src"),
            ["ipc:", "http://ipc.localhost"],
            "{csp}"
        );
        assert_eq!(directive("object-src"), ["'none'"], "{csp}");
        assert_eq!(directive("form-action"), ["'none'"], "{csp}");
        let file: serde_json::Value =
            serde_json::from_str(&read("src-tauri/capabilities/default.json")).unwrap();
        for p in file["permissions"].as_array().unwrap() {
            let p = p.as_str().unwrap_or("");
            assert!(
                p.starts_with("allow-") || p.starts_with("core:"),
                "a plugin's permission: {p}"
            );
        }
    }

    /// The command names `ipc.ts` passes to `call`: each `call` (with or
    /// without a type argument, however nested) followed by `(` and a
    /// quoted name, comments left out.
    fn called(ts: &str) -> Vec<String> {
        let code = strip_comments(ts);
        let b = code.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while let Some(at) = code[i..].find("call") {
            let mut j = i + at + 4;
            i = j;
            let word_before = i - 4 > 0 && (b[i - 5].is_ascii_alphanumeric() || b[i - 5] == b'_');
            if word_before {
                continue;
            }
            if b.get(j) == Some(&b'<') {
                let mut depth = 0;
                while j < b.len() {
                    match b[j] {
                        b'<' => depth += 1,
                        b'>' => depth -= 1,
                        _ => {}
                    }
                    j += 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
            if b.get(j) != Some(&b'(') {
                continue;
            }
            let rest = code[j + 1..].trim_start();
            let Some(q) = rest.chars().next().filter(|c| *c == '\'' || *c == '"') else {
                continue;
            };
            if let Some(end) = rest[1..].find(q) {
                out.push(rest[1..1 + end].to_string());
            }
        }
        out
    }

    /// `ts` without its `//` and `/* */` comments (strings are not
    /// comments: a `//` inside quotes stays).
    fn strip_comments(ts: &str) -> String {
        let mut out = String::new();
        let mut chars = ts.chars().peekable();
        let mut quote: Option<char> = None;
        while let Some(c) = chars.next() {
            if let Some(q) = quote {
                out.push(c);
                if c == '\\' {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                } else if c == q {
                    quote = None;
                }
                continue;
            }
            match (c, chars.peek()) {
                ('/', Some('/')) => {
                    while chars.next().is_some_and(|n| n != '\n') {}
                    out.push('\n');
                }
                ('/', Some('*')) => {
                    chars.next();
                    let mut last = ' ';
                    for n in chars.by_ref() {
                        if last == '*' && n == '/' {
                            break;
                        }
                        last = n;
                    }
                }
                ('\'' | '"' | '`', _) => {
                    quote = Some(c);
                    out.push(c);
                }
                _ => out.push(c),
            }
        }
        out
    }

    /// What is wrong between the names `ipc.ts` calls and the commands.
    fn wrapping_problems(ts: &str, commands: &[&str]) -> Vec<String> {
        let called = called(ts);
        let mut problems = Vec::new();
        for c in commands {
            match called.iter().filter(|n| n == c).count() {
                1 => {}
                0 => problems.push(format!("{c} is not wrapped")),
                n => problems.push(format!("{c} is wrapped {n} times")),
            }
        }
        for n in &called {
            if !commands.contains(&n.as_str()) {
                problems.push(format!("{n} is not a command"));
            }
        }
        problems
    }

    /// The TypeScript wrapper calls every command by name, once, and no
    /// other name (parsed from its `call` sites, not matched as text).
    #[test]
    fn ipc_ts_wraps_every_command() {
        let problems = wrapping_problems(&read("ui/src/lib/ipc.ts"), COMMANDS);
        assert!(problems.is_empty(), "ipc.ts: {problems:?}");
    }

    /// The check sees a missing, a doubled and an unknown command, and is
    /// not fooled by a commented-out call or a name in another function.
    #[test]
    fn the_ipc_check_sees_what_is_wrong() {
        let ts = "
            async function call<T>(cmd: Command) {}
            export const api = {
              a: () => call<Array<Map<string, number>>>('save'),
              // b: () => call('quit'),
              c: () => recall('quit'),
              d: () => call('save', { x: '//' }),
              e: () => call(\"open_recent\"),
              /* f: () => call('has_unsaved'), */
            };";
        assert_eq!(called(ts), ["save", "save", "open_recent"]);
        assert_eq!(
            wrapping_problems(ts, &["save", "quit", "open_recent"]),
            ["save is wrapped 2 times", "quit is not wrapped"]
        );
        assert_eq!(
            wrapping_problems(ts, &["quit"]),
            [
                "quit is not wrapped",
                "save is not a command",
                "save is not a command",
                "open_recent is not a command"
            ]
        );
    }
}
