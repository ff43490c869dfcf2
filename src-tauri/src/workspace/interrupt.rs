//! Long work that gives way: a request log or a SillyTavern log holds the
//! workspace lock while it runs, and whoever needs the lock more urgently
//! (autosave, the exit-signal handler, Save, a newer preview) says so here
//! *before* waiting for the lock. The long loop asks [`Interrupt::wanted`]
//! between requests and, when someone waits, stops at once and answers
//! `cancelled` (the UI asks again); what it computed so far is either kept
//! for resuming (the SillyTavern log's timed states) or thrown away.
//!
//! Building a preview (the guide's rules' index, the SillyTavern or the
//! RisuAI preview of the attached books) gives way only to those who keep
//! the user's work (Save, closing a book, autosave, the exit path: [`Interrupt::want_urgently`]),
//! asked through [`Interrupt::urgently_wanted`]: a newer preview or an edit
//! needs the same build, which would start over if it stopped for them.
//! A build that stopped leaves the preview marked stale, built again by
//! the next view that needs it.
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
    AppError::gave_way()
}

/// Shared by the workspace (which asks) and the app state (whose waiters
/// raise it without holding the lock).
#[derive(Debug, Clone, Default)]
pub struct Interrupt(Arc<Waiters>);

/// How many wait for the workspace: all of them, and those among them who
/// keep the user's work.
#[derive(Debug, Default)]
struct Waiters {
    any: AtomicUsize,
    urgent: AtomicUsize,
}

/// Raised while alive.
#[derive(Debug)]
pub struct Want<'a> {
    waiters: &'a Waiters,
    urgent: bool,
}

impl Interrupt {
    /// Says that the caller is about to wait for the workspace lock and
    /// the request logs should stop; lowered when the guard drops.
    pub fn want(&self) -> Want<'_> {
        self.0.any.fetch_add(1, Ordering::SeqCst);
        Want {
            waiters: &self.0,
            urgent: false,
        }
    }

    /// [`Interrupt::want`] for a caller that keeps the user's work (a save,
    /// closing a book, autosave, the exit path): builds of the preview stop
    /// too.
    pub fn want_urgently(&self) -> Want<'_> {
        self.0.urgent.fetch_add(1, Ordering::SeqCst);
        self.0.any.fetch_add(1, Ordering::SeqCst);
        Want {
            waiters: &self.0,
            urgent: true,
        }
    }

    /// Whether someone waits for the lock.
    pub fn wanted(&self) -> bool {
        self.0.any.load(Ordering::SeqCst) > 0
    }

    /// Whether someone who keeps the user's work waits for the lock.
    pub fn urgently_wanted(&self) -> bool {
        self.0.urgent.load(Ordering::SeqCst) > 0
    }
}

impl Drop for Want<'_> {
    fn drop(&mut self) {
        self.waiters.any.fetch_sub(1, Ordering::SeqCst);
        if self.urgent {
            self.waiters.urgent.fetch_sub(1, Ordering::SeqCst);
        }
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

    #[test]
    fn builds_stop_only_for_those_who_keep_the_work() {
        let i = Interrupt::default();
        let newer = i.want();
        assert!(i.wanted() && !i.urgently_wanted());
        let save = i.want_urgently();
        assert!(i.wanted() && i.urgently_wanted());
        drop(save);
        assert!(i.wanted() && !i.urgently_wanted());
        drop(newer);
        assert!(!i.wanted() && !i.urgently_wanted());
    }
}
