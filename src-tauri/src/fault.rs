//! A test hook for fault injection (issue 8): with
//! `LOREBOOK_FAULT=panic:<command>` in its environment the app makes that
//! command panic inside [`crate::commands::guarded`] as soon as it holds the
//! workspace, before its body runs; with `panic-after:<command>`, after its
//! body ran (its changes made, a book perhaps saved and marked clean), still
//! holding the workspace. Either way the panic poisons the workspace lock, as
//! a bug in that command would. The end-to-end tests set it to check that no
//! panic lets the window close without the unsaved-changes prompt. With
//! `delay:<command>` the command instead sleeps [`DELAY`] before its body,
//! so an end-to-end test can close a tab while an edit is in flight.
//!
//! The variable is read once, when the app starts ([`init`]); unset — as it
//! always is outside those tests — or naming no command of the app, it does
//! nothing, and the check in every command is one load of a value set at
//! start. A value that names no command is reported on stderr at start.

use std::sync::OnceLock;

/// The environment variable the end-to-end tests set.
pub const FAULT_ENV: &str = "LOREBOOK_FAULT";

/// When, in a command's run, the injected panic happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Holding the workspace, before the command's body.
    Before,
    /// After the body ran, still holding the workspace.
    After,
}

/// The injected fault: a panic in one command, or a delay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub command: String,
    pub when: When,
    /// Sleep [`DELAY`] instead of panicking.
    pub delay: bool,
}

/// How long `delay:<command>` holds that command.
pub const DELAY: std::time::Duration = std::time::Duration::from_millis(1500);

static FAULT: OnceLock<Option<Fault>> = OnceLock::new();

/// Reads a value of [`FAULT_ENV`]: `panic:<command>` or
/// `panic-after:<command>`, where `<command>` is one of `commands`.
pub fn parse(value: &str, commands: &[&str]) -> Result<Fault, String> {
    let (when, delay, command) = if let Some(c) = value.strip_prefix("panic-after:") {
        (When::After, false, c)
    } else if let Some(c) = value.strip_prefix("panic:") {
        (When::Before, false, c)
    } else if let Some(c) = value.strip_prefix("delay:") {
        (When::Before, true, c)
    } else {
        return Err(format!(
            "{FAULT_ENV}={value:?} is not panic:<command>, panic-after:<command> \
             or delay:<command>; ignored"
        ));
    };
    if !commands.contains(&command) {
        return Err(format!(
            "{FAULT_ENV}={value:?} names no command of the app; ignored"
        ));
    }
    Ok(Fault {
        command: command.to_string(),
        when,
        delay,
    })
}

/// Reads [`FAULT_ENV`] once, at start. Without this call (the unit tests)
/// no fault is ever injected.
pub fn init() {
    FAULT.get_or_init(|| {
        let value = std::env::var(FAULT_ENV).ok()?;
        match parse(&value, crate::COMMANDS) {
            Ok(fault) => {
                eprintln!(
                    "Lorebook Studio: {FAULT_ENV} is set: {} will {} (a test hook)",
                    fault.command,
                    if fault.delay { "be delayed" } else { "panic" }
                );
                Some(fault)
            }
            Err(why) => {
                eprintln!("Lorebook Studio: {why}");
                None
            }
        }
    });
}

/// Panics (or sleeps) when the fault read at start is `command` at `when`.
pub fn check(command: &str, when: When) {
    if let Some(Some(fault)) = FAULT.get() {
        if fault.command == command && fault.when == when {
            if fault.delay {
                std::thread::sleep(DELAY);
                return;
            }
            panic!("fault injected by {FAULT_ENV} into {command}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_name_a_command_and_a_moment_or_are_refused() {
        let commands = ["save", "preview"];
        assert_eq!(
            parse("panic:save", &commands),
            Ok(Fault {
                command: "save".into(),
                when: When::Before,
                delay: false,
            })
        );
        assert_eq!(
            parse("delay:save", &commands),
            Ok(Fault {
                command: "save".into(),
                when: When::Before,
                delay: true,
            })
        );
        assert_eq!(
            parse("panic-after:preview", &commands),
            Ok(Fault {
                command: "preview".into(),
                when: When::After,
                delay: false,
            })
        );
        for bad in [
            "",
            "save",
            "panic:",
            "panic:sav",
            "panic:save ",
            "crash:save",
            "panic-after:",
            "delay:",
            "delay:nothing",
        ] {
            assert!(parse(bad, &commands).is_err(), "{bad:?}");
        }
    }

    // What the hook does, injected by hand (the only test of this binary
    // that sets it; `init` is never called in unit tests): the named
    // command panics at the named moment, is reported as an internal error
    // and leaves the workspace counting as unsaved; other commands and
    // other moments are untouched; a command outside the workspace is
    // caught the same way.
    #[test]
    fn an_injected_panic_is_caught_and_the_workspace_counts_as_unsaved() {
        use crate::commands::{caught, guarded, AppState};
        use crate::error::ErrorKind;
        use crate::workspace::recovery::has_unsaved;
        FAULT
            .set(Some(Fault {
                command: "probe".into(),
                when: When::After,
                delay: false,
            }))
            .expect("no other test injects a fault");
        let state = AppState::new(crate::workspace::Workspace::with_sample(), Vec::new());
        check("probe", When::Before);
        check("other", When::After);
        assert_eq!(guarded(&state, "other", |_| Ok(1)).unwrap(), 1);
        assert!(!has_unsaved(&state.ws), "the sample starts clean");
        let mut ran = false;
        let err = guarded(&state, "probe", |_| {
            ran = true;
            Ok(())
        })
        .unwrap_err();
        assert!(ran, "panic-after runs the body first");
        assert_eq!(err.kind, ErrorKind::Internal);
        assert!(
            err.message
                .contains("internal error in probe (fault injected by LOREBOOK_FAULT into probe)"),
            "{}",
            err.message
        );
        assert!(
            has_unsaved(&state.ws),
            "a panicked workspace counts as unsaved"
        );
        let err = caught("probe", || Ok(())).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Internal);
        assert_eq!(caught("other", || Ok(2)).unwrap(), 2);
    }
}
