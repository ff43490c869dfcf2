//! What RisuAI keeps per chat between requests (docs/risu-rules.md §3.6).

use std::collections::HashSet;

/// What RisuAI keeps per chat between requests: the after-match state of
/// `@@keep_activate_after_match` / `@@dont_activate_after_match` (its chat
/// variables).
#[derive(Debug, Clone, Default)]
pub struct RisuState {
    /// The variables set (`ka:<key>` and `da:<key>`), hashed with FxHash:
    /// RisuAI's leak (§3.6) has every activated entry write one, so a
    /// request sets thousands.
    pub vars: HashSet<String, rustc_hash::FxBuildHasher>,
    /// The name being looked up, reused so that a variable already set
    /// costs no allocation.
    scratch: String,
}

/// Two states are the same when they hold the same variables.
impl PartialEq for RisuState {
    fn eq(&self, other: &Self) -> bool {
        self.vars == other.vars
    }
}

impl Eq for RisuState {}

impl RisuState {
    /// Whether variable `prefix` + `key` is set.
    pub(crate) fn has(&self, prefix: &str, key: &str) -> bool {
        // Rare (entries with an after-match decorator): a fresh string.
        self.vars.contains(format!("{prefix}{key}").as_str())
    }

    /// Sets variable `prefix` + `key`.
    pub(crate) fn remember(&mut self, prefix: &str, key: &str) {
        self.scratch.clear();
        self.scratch.push_str(prefix);
        self.scratch.push_str(key);
        if !self.vars.contains(self.scratch.as_str()) {
            self.vars.insert(self.scratch.clone());
        }
    }
}
