//! The decorators whose effect does not depend on the request, run once
//! per preview instead of in every pass (docs/risu-rules.md, "Activation",
//! says what each decorator does; this is only when it is read). A child
//! module of `activation`, which owns the state an evaluation builds.

use super::super::decorators::{run, Line, Name};
use super::{Eval, Flags, Force, Request};
use crate::model::Role;
use crate::risu::{Position, RisuState};

/// How an entry's decorators are read in a pass: run, or what running
/// them once left ([`Request::static_evals`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) enum Known {
    /// They depend on the request: run each evaluation.
    #[default]
    Run,
    /// They leave the state before any decorator, but for whole words
    /// and the priority (most entries: none, or `@@match_full_word` and
    /// `@@priority` alone).
    Fresh { full_word: bool, priority: f64 },
    /// They leave the state kept in [`Statics::evals`].
    Stored,
}

/// What [`Request::static_evals`] finds, entry by entry.
#[derive(Debug, Default)]
pub(crate) struct Statics {
    pub known: Vec<Known>,
    /// The state kept for the [`Known::Stored`] entries.
    pub evals: Vec<Option<Eval>>,
    /// The matching mode that alone can wake the entry (see
    /// [`Request::static_evals`]).
    pub mode: Vec<Option<bool>>,
}

impl Eval {
    /// The same state (numbers compared bit for bit, so NaN is itself).
    fn same_as(&self, o: &Eval) -> bool {
        self.gate == o.gate
            && self.position == o.position
            && self.depth.to_bits() == o.depth.to_bits()
            && self.role == o.role
            && self.scan_depth.to_bits() == o.scan_depth.to_bits()
            && self.full_word == o.full_word
            && self.priority.to_bits() == o.priority.to_bits()
            && self.force == o.force
            && self.queries == o.queries
            && self.recursive == o.recursive
            && self.no_recursive_search == o.no_recursive_search
            && self.inject == o.inject
            && self.throws == o.throws
    }
}

impl Request<'_> {
    /// The state before an entry's decorators run.
    pub(super) fn fresh_eval(&self, priority: f64) -> Eval {
        Eval {
            gate: None,
            position: Position::Lorebook,
            depth: 0.0,
            role: Role::System,
            scan_depth: self.settings.scan_depth,
            full_word: self.settings.full_word_matching,
            priority,
            force: Force::None,
            queries: Vec::new(),
            recursive: None,
            no_recursive_search: false,
            inject: None,
            throws: false,
        }
    }

    /// What each entry's decorators leave, run once, for the entries
    /// none of whose decorators depends on the request (the chat's
    /// length, the state kept between requests, a roll): the same every
    /// evaluation, so a pass need not read the lines again. And, for each
    /// entry whose answer without a key found in its matching mode is
    /// always "no match", whether it matches whole words (the watchers
    /// then wake it only by its keys in that mode: no decorator that
    /// depends on the request sets the mode or fails on some requests
    /// only). An entry with a gate, a forced answer or key lines of its own
    /// answers otherwise once any of its keys is anywhere: `None`.
    pub fn static_evals(&self) -> Statics {
        let mut out = Statics::default();
        for i in 0..self.entries.len() {
            let (known, eval, mode) = self.static_eval(i);
            out.known.push(known);
            out.evals.push(eval);
            out.mode.push(mode);
        }
        out
    }

    /// [`Request::static_evals`] of entry `i` alone: how its decorators
    /// are read, the state kept for them, the mode that alone wakes it.
    pub fn static_eval(&self, i: usize) -> (Known, Option<Eval>, Option<bool>) {
        let dynamic = |l: &Line| {
            matches!(
                l.kind,
                Name::ActivateOnlyAfter
                    | Name::ActivateOnlyEvery
                    | Name::KeepActivateAfterMatch
                    | Name::DontActivateAfterMatch
                    | Name::Probability
            )
        };
        let (state, mut flags) = (RisuState::default(), Flags::default());
        let p = &self.entries[i];
        let mut e = self.fresh_eval(p.lore.insertorder);
        run(&p.lines, |l| {
            self.decorator(l, &mut e, &state, &mut flags, &p.state_key, i, 0, 0)
        });
        let fixed = !p.lines.iter().any(dynamic);
        let plain = fixed
            && e.gate.is_none()
            && e.force == Force::None
            && e.queries.is_empty()
            && !e.throws;
        let mode = plain.then_some(e.full_word);
        let fresh = self.fresh_eval(p.lore.insertorder);
        let as_fresh = Eval {
            full_word: e.full_word,
            priority: e.priority,
            ..fresh
        };
        let known = match fixed {
            false => Known::Run,
            true if e.same_as(&as_fresh) => Known::Fresh {
                full_word: e.full_word,
                priority: e.priority,
            },
            true => Known::Stored,
        };
        (known, (known == Known::Stored).then_some(e), mode)
    }
}
