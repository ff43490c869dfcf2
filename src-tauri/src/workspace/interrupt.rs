//! Long work that gives way: a request log or a SillyTavern log holds the
//! workspace lock while it runs, and whoever needs the lock more urgently
//! (autosave, the exit-signal handler, Save, a newer preview) says so here
//! *before* waiting for the lock. The long loop asks [`Interrupt::wanted`]
//! between requests and, when someone waits, stops at once and answers
//! `cancelled` (the UI asks again); what it computed so far is either kept
//! for resuming (the SillyTavern log's timed states) or thrown away.
//!
//! **Invariant:** the flag is a count of waiters, raised and lowered by a
//! guard ([`Interrupt::want`]), so it never stays raised after the waiter
//! got the lock, and two waiters do not clear each other's request.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::error::AppError;

/// What long work answers when it stopped for a waiter: `cancelled`, which
/// the UI does not report and asks again for.
pub fn gave_way() -> AppError {
    AppError::cancelled("the request log gave way to a save or a newer request")
}

/// Shared by the workspace (which asks) and the app state (whose waiters
/// raise it without holding the lock).
#[derive(Debug, Clone, Default)]
pub struct Interrupt(Arc<AtomicUsize>);

/// Raised while alive.
#[derive(Debug)]
pub struct Want<'a>(&'a AtomicUsize);

impl Interrupt {
    /// Says that the caller is about to wait for the workspace lock and
    /// long work should stop; lowered when the guard drops.
    pub fn want(&self) -> Want<'_> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Want(&self.0)
    }

    /// Whether someone waits for the lock.
    pub fn wanted(&self) -> bool {
        self.0.load(Ordering::SeqCst) > 0
    }
}

impl Drop for Want<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_is_raised_while_someone_waits_and_only_then() {
        let i = Interrupt::default();
        let seen_by_the_workspace = i.clone();
        assert!(!seen_by_the_workspace.wanted());
        let a = i.want();
        let b = i.want();
        assert!(seen_by_the_workspace.wanted());
        drop(a);
        assert!(
            seen_by_the_workspace.wanted(),
            "the second waiter still waits"
        );
        drop(b);
        assert!(!seen_by_the_workspace.wanted());
    }
}
