//! The timed state before each request of a chat, kept between calls so
//! that after a change at message j only requests j… run again.
//!
//! Request k sees the first k messages and the timed state the requests
//! before it left (sticky, cooldown, delay); its probability and group
//! rolls are seeded by the preview's seed and k alone. So with the same
//! preview and context size, request k's answer depends only on the first
//! k messages: the state after requests 1…j can be reused for any chat
//! whose first j messages are the same, and the requests after it give
//! exactly what a replay from request 1 gives. When no entry has sticky or
//! cooldown, no request leaves a record: every state is none, and request
//! k runs alone.

use super::{StPreview, StResult, TimedState};
use crate::chat::Message;

/// The timed state after each request of the chat it last saw, for one
/// preview and context size (a different one starts it afresh).
#[derive(Debug, Clone, Default)]
pub struct TimedLog {
    /// [`StPreview`]'s identity and the context size of the states.
    preview: u64,
    max_context: u32,
    /// The messages the states were computed from.
    chat: Vec<Message>,
    /// `states[i]`: the state after requests 1…i (which saw `chat[..i]`);
    /// `states[0]` is no timed effects. Empty until first used.
    states: Vec<TimedState>,
}

impl TimedLog {
    pub fn new() -> Self {
        TimedLog::default()
    }

    /// How many requests' states are kept.
    pub fn kept(&self) -> usize {
        self.chat.len()
    }

    /// Forgets what `chat` no longer agrees with; returns how many of its
    /// first requests answer as when the log last saw them. A chat that is
    /// a prefix of the one seen (a request before the last) forgets
    /// nothing.
    fn sync(&mut self, preview: u64, chat: &[Message], max_context: u32) -> usize {
        if self.states.is_empty() || self.preview != preview || self.max_context != max_context {
            self.preview = preview;
            self.max_context = max_context;
            self.chat.clear();
            self.states.clear();
            self.states.push(TimedState::default());
        }
        let same = self
            .chat
            .iter()
            .zip(chat)
            .take_while(|(a, b)| a == b)
            .count();
        if same < self.chat.len() && same < chat.len() {
            self.chat.truncate(same);
            self.states.truncate(same + 1);
        }
        same
    }
}

impl StPreview {
    /// Brings `log` in step with `chat` (see [`TimedLog`]) and returns how
    /// many of the chat's first requests answer as when `log` last saw
    /// them: a caller keeping per-request results keeps that many.
    pub fn resume(&self, chat: &[Message], max_context: u32, log: &mut TimedLog) -> usize {
        log.sync(self.id, chat, max_context)
    }

    /// Request `k` (clamped to the chat's length) after requests 1…k−1, as
    /// [`StPreview::log`] gives it, running only the requests `log` does
    /// not hold the state before.
    pub fn request_after(
        &mut self,
        chat: &[Message],
        k: usize,
        max_context: u32,
        log: &mut TimedLog,
    ) -> StResult {
        let k = k.min(chat.len());
        if k == 0 {
            return self.request(&[], max_context, &mut TimedState::default());
        }
        let mut last = None;
        self.log_from(&chat[..k], k - 1, max_context, log, |r| last = Some(r));
        last.expect("request k ran")
    }

    /// Requests `from`+1…M of the chat in turn, as [`StPreview::log`] gives
    /// them, running only those and the ones before them whose state `log`
    /// does not hold; `log` keeps the states of every request run.
    pub fn log_from(
        &mut self,
        chat: &[Message],
        from: usize,
        max_context: u32,
        log: &mut TimedLog,
        each: impl FnMut(StResult),
    ) {
        self.log_from_while(chat, from, max_context, log, || true, each);
    }

    /// [`StPreview::log_from`] that asks `keep_going` before each request
    /// and stops when it says no (a newer request or a closing window wants
    /// the caller's lock); returns whether it ran to the end. What it ran is
    /// kept in `log`, so the next call resumes there.
    pub fn log_from_while(
        &mut self,
        chat: &[Message],
        from: usize,
        max_context: u32,
        log: &mut TimedLog,
        mut keep_going: impl FnMut() -> bool,
        mut each: impl FnMut(StResult),
    ) -> bool {
        self.resume(chat, max_context, log);
        let from = from.min(chat.len());
        let start = if self.timed {
            from.min(log.kept())
        } else {
            // Every state is none: known without running the requests.
            while log.kept() < from {
                log.chat.push(chat[log.kept()].clone());
                log.states.push(TimedState::default());
            }
            from
        };
        let mut state = log.states[start].clone();
        for i in start + 1..=chat.len() {
            if !keep_going() {
                return false;
            }
            let r = self.request(&chat[..i], max_context, &mut state);
            if i > log.kept() {
                log.chat.push(chat[i - 1].clone());
                log.states.push(state.clone());
            }
            if i > from {
                each(r);
            }
        }
        true
    }
}
