//! The folder the test servers are installed into, once: `$LOREBOOK_TEST_CACHE`,
//! else `$XDG_CACHE_HOME/lorebook-studio-tests`, else
//! `~/.cache/lorebook-studio-tests`. Later runs reuse what is there.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The environment variable naming the cache folder.
pub const TEST_CACHE_ENV_VAR: &str = "LOREBOOK_TEST_CACHE";

pub fn dir() -> PathBuf {
    if let Some(d) = std::env::var_os(TEST_CACHE_ENV_VAR).filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(d).join("lorebook-studio-tests");
    }
    let home = std::env::var_os("HOME").map_or_else(std::env::temp_dir, PathBuf::from);
    home.join(".cache/lorebook-studio-tests")
}

/// Runs `install` into `root` unless an earlier run finished it (the file
/// `installed.ok`). One process installs; the others wait for it (a lock
/// folder, taken over when older than 20 minutes). Panics with the
/// install's message when it fails.
pub fn install_once(root: &Path, what: &str, install: impl FnOnce() -> Result<(), String>) {
    let done = root.join("installed.ok");
    if done.is_file() {
        return;
    }
    std::fs::create_dir_all(root).expect("the test cache folder can be made");
    let lock = root.join("install.lock");
    let start = Instant::now();
    loop {
        if done.is_file() {
            return;
        }
        match std::fs::create_dir(&lock) {
            Ok(()) => break,
            Err(_) => {
                // A lock left by an install that died long ago is taken over.
                let stale = std::fs::metadata(&lock)
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| t.elapsed().unwrap_or_default() > Duration::from_secs(1200));
                if stale {
                    let _ = std::fs::remove_dir(&lock);
                    continue;
                }
                assert!(
                    start.elapsed() < Duration::from_secs(1500),
                    "another test has been installing {what} for 25 minutes; see {}",
                    root.display()
                );
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    }
    let result = install().and_then(|()| std::fs::write(&done, "").map_err(|e| e.to_string()));
    let _ = std::fs::remove_dir(&lock);
    if let Err(e) = result {
        panic!("{e}");
    }
}
