//! What the CLI test files share: running the `lorebook` binary from the
//! repository root as a user would, and scratch files.

// Each test file uses the part of these helpers it needs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root, where the commands run.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `lorebook args` from the repository root.
pub fn lorebook(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lorebook"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run lorebook")
}

/// Runs `lorebook args`, which must fail with status 1, a message holding
/// `expected` and no panic.
pub fn fails(args: &[&str], expected: &str) {
    let out = lorebook(args);
    assert_eq!(out.status.code(), Some(1), "lorebook {args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(expected),
        "stderr {err:?} should contain {expected:?}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// A scratch file of this test process.
pub fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lorebook-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}
