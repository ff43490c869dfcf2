//! The request log under RisuAI's rules: requests 1…M of a chat, in
//! order. When no entry keeps state between requests, each request's
//! answer depends only on its own messages, so the requests are answered
//! on several threads and handed on in order; otherwise one after the
//! other, the state carried through.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use super::matching::Hits;
use super::texts::Texts;
use super::{RisuPreview, RisuResult, RisuState};
use crate::chat::Message;

/// The most threads a log runs on.
const MAX_THREADS: usize = 8;

/// The texts request `k` scans: the first `k` messages, with their keys.
fn first<'t>(texts: &[&'t str], hits: &[Arc<Hits>], k: usize) -> Texts<'t> {
    Texts::new(texts[..k].to_vec(), hits[..k].to_vec())
}

impl RisuPreview {
    /// Requests 1…M of `chat` in order, one state carried through; each
    /// answer is handed to `each` and dropped.
    pub fn log_each(&mut self, chat: &[Message], each: impl FnMut(RisuResult)) {
        self.log_each_while(chat, || true, each);
    }

    /// [`RisuPreview::log_each`] that asks `keep_going` before each answer
    /// it hands on and stops when it says no; returns whether the log ran
    /// to the end.
    pub fn log_each_while(
        &mut self,
        chat: &[Message],
        keep_going: impl FnMut() -> bool,
        each: impl FnMut(RisuResult),
    ) -> bool {
        // Each message's keys are found once for the whole log.
        let texts: Vec<&str> = chat.iter().map(|m| m.text.as_str()).collect();
        let hits: Vec<Arc<Hits>> = texts.iter().map(|t| self.hits_of(t).1).collect();
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let threads = cores.min(MAX_THREADS).min(chat.len());
        if self.is_stateful() || threads < 2 {
            self.log_in_turn(&texts, &hits, keep_going, each)
        } else {
            self.log_on_threads(&texts, &hits, threads, keep_going, each)
        }
    }

    /// The log one request after the other, the state carried through.
    fn log_in_turn(
        &self,
        texts: &[&str],
        hits: &[Arc<Hits>],
        mut keep_going: impl FnMut() -> bool,
        mut each: impl FnMut(RisuResult),
    ) -> bool {
        let mut state = RisuState::default();
        for k in 1..=texts.len() {
            if !keep_going() {
                return false;
            }
            // Every request once: the memo would not be asked again.
            each(self.answer(first(texts, hits, k), k, &mut state).0);
        }
        true
    }

    /// The log of a book without state: `threads` workers take the next
    /// request as they finish one, and the answers are handed to `each`
    /// in order (those that come early wait; each worker has at most one
    /// answer in flight beyond the channel's few places). When
    /// `keep_going` says no, the workers stop after the request they are
    /// answering.
    fn log_on_threads(
        &self,
        texts: &[&str],
        hits: &[Arc<Hits>],
        threads: usize,
        mut keep_going: impl FnMut() -> bool,
        mut each: impl FnMut(RisuResult),
    ) -> bool {
        let m = texts.len();
        let next = AtomicUsize::new(1);
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, RisuResult)>(threads);
            for _ in 0..threads {
                let tx = tx.clone();
                let (next, stop) = (&next, &stop);
                scope.spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        if k > m {
                            break;
                        }
                        let request = first(texts, hits, k);
                        let answer = self.answer(request, k, &mut RisuState::default()).0;
                        if tx.send((k, answer)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let mut early = BTreeMap::new();
            let mut want = 1;
            for (k, answer) in rx.iter() {
                early.insert(k, answer);
                while let Some(answer) = early.remove(&want) {
                    if !keep_going() {
                        stop.store(true, Ordering::Relaxed);
                        // Dropping the receiver ends the workers' sends.
                        return false;
                    }
                    each(answer);
                    want += 1;
                }
            }
            want > m
        })
    }
}
