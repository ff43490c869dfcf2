//! After the passes: RisuAI's budget, final order, `@@inject_lore`,
//! where each entry goes, and the answer built from them (docs/risu-rules.md, "Budget and order",
//! "Placement").

use std::cmp::Ordering;
use std::sync::Arc;

use super::activation::{Eval, InjectOp, Record, Request};
use super::detail::RisuDrop;
use super::texts::Texts;
use super::{
    Position, Prepared, RisuDropped, RisuFailure, RisuInjected, RisuPreview, RisuResult, RisuState,
};

/// A NaN rank sorts as the lowest (RisuAI's comparator leaves it
/// unspecified).
fn rank(x: f64) -> f64 {
    if x.is_nan() {
        f64::NEG_INFINITY
    } else {
        x
    }
}

/// An integer in the order of [`rank`]`(x)`: equal ranks (0 and −0
/// included) give equal keys, a higher rank a higher key.
fn ascending_key(x: f64) -> u64 {
    let x = rank(x);
    let x = if x == 0.0 { 0.0 } else { x };
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// JavaScript's `String.replace` with a string needle: the first
/// occurrence only, and `$$`, `$&`, `` $` `` and `$'` in the replacement
/// read as patterns.
pub(crate) fn js_replace(text: &str, needle: &str, with: &str) -> String {
    let Some(at) = text.find(needle) else {
        return text.to_string();
    };
    let (before, after) = (&text[..at], &text[at + needle.len()..]);
    let mut replacement = String::new();
    let mut chars = with.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '$' {
            replacement.push(c);
            continue;
        }
        match chars.peek() {
            Some('$') => replacement.push('$'),
            Some('&') => replacement.push_str(needle),
            Some('`') => replacement.push_str(before),
            Some('\'') => replacement.push_str(after),
            _ => {
                replacement.push('$');
                continue;
            }
        }
        chars.next();
    }
    format!("{before}{replacement}{after}")
}

/// The budget and the order. `records` come in activation order, with
/// their tokens counted; `entries` give each entry's body and RisuAI's
/// name of it (for `@@inject_lore`). Returns the kept records in RisuAI's final order and
/// the dropped ones (their entries) with why, and the tokens used.
pub(crate) fn finish(
    mut records: Vec<Record>,
    budget: f64,
    entries: &[Prepared],
) -> (Vec<Record>, Vec<(usize, RisuDrop)>, u32) {
    let name = |i: usize| entries[i].name.as_str();
    // Keys are sorted, not the records (a record is large, and most are
    // cut): the rank as an integer, then the activation order, so equal
    // priorities keep it (a stable sort).
    let mut by_priority: Vec<(u64, usize)> = records
        .iter()
        .enumerate()
        .map(|(at, r)| (!ascending_key(r.priority), at))
        .collect();
    by_priority.sort_unstable();
    let mut used = 0f64;
    let mut kept_at = Vec::new();
    let mut cut_at = Vec::with_capacity(records.len());
    for (_, at) in by_priority {
        let tokens = records[at].tokens;
        if used + f64::from(tokens) <= budget {
            used += f64::from(tokens);
            kept_at.push(at);
        } else {
            let left = (budget - used).max(0.0) as u32;
            cut_at.push((at, RisuDrop::Budget { tokens, left }));
        }
    }
    kept_at.sort_by(|&a, &b| {
        rank(records[b].order)
            .partial_cmp(&rank(records[a].order))
            .unwrap_or(Ordering::Equal)
    });
    // The cut ones are named by their entry; only the kept ones (a few,
    // most are cut) are moved out of the list, the last first so that
    // `swap_remove` leaves the indexes still to take in place.
    let mut dropped: Vec<(usize, RisuDrop)> = cut_at
        .into_iter()
        .map(|(at, d)| (records[at].entry, d))
        .collect();
    let mut taken: Vec<usize> = kept_at.clone();
    taken.sort_unstable_by(|a, b| b.cmp(a));
    let mut taken: Vec<(usize, Option<Record>)> = taken
        .into_iter()
        .map(|at| (at, Some(records.swap_remove(at))))
        .collect();
    taken.reverse();
    let kept: Vec<Record> = kept_at
        .into_iter()
        .map(|at| {
            let i = taken
                .binary_search_by_key(&at, |t| t.0)
                .expect("each kept record was taken");
            taken[i].1.take().expect("each record is placed once")
        })
        .collect();
    // @@inject_lore: out of the list (its tokens stay spent), into the
    // first entry left whose name it gives.
    let (injectors, mut rest): (Vec<Record>, Vec<Record>) = kept
        .into_iter()
        .partition(|r| r.inject.as_ref().is_some_and(|i| i.lore));
    for inj in injectors {
        let spec = *inj.inject.clone().expect("partitioned on inject");
        let target = rest.iter_mut().find(|r| name(r.entry) == spec.location);
        match target {
            Some(t) => {
                let (target, text) = (t.text(entries), inj.text(entries));
                let joined = match &spec.op {
                    InjectOp::Append => format!("{target} {text}"),
                    InjectOp::Prepend => format!("{text} {target}"),
                    InjectOp::Replace(needle) => js_replace(target, needle, text),
                };
                t.body = Some(Arc::from(joined));
                let target = spec.location.clone();
                dropped.push((inj.entry, RisuDrop::InjectedInto { target }));
            }
            None => {
                let target = spec.location.clone();
                dropped.push((inj.entry, RisuDrop::InjectLost { target }));
            }
        }
    }
    rest.reverse();
    // Where each goes; those that go nowhere are dropped.
    let mut placed = Vec::with_capacity(rest.len());
    for mut r in rest {
        match (&r.position, &r.inject) {
            (Position::Depth, _) if r.depth < 0.0 => {
                let depth = r.depth;
                dropped.push((r.entry, RisuDrop::NegativeDepth { depth }));
            }
            (Position::Lorebook, Some(inj)) if !inj.lore && inj.location.is_empty() => {
                dropped.push((r.entry, RisuDrop::NoInjectPlace));
            }
            (Position::Lorebook, Some(inj)) if !inj.lore => {
                r.position = Position::InjectAt(inj.location.clone());
                placed.push(r);
            }
            _ => placed.push(r),
        }
    }
    (placed, dropped, used as u32)
}

impl RisuPreview {
    /// The inputs of request `k`.
    pub(super) fn request_for<'p>(&'p self, k: usize, statics: &'p [Option<Eval>]) -> Request<'p> {
        Request {
            entries: &self.entries,
            keys: &self.keys,
            bodies: &self.bodies,
            watchers: &self.watchers,
            hot: &self.hot,
            every_entry: self.every_entry,
            statics,
            settings: &self.settings,
            seed: self.seed,
            request: k,
        }
    }

    /// Request `k` over `texts`, without the memo; the texts are handed
    /// back as the passes left them.
    pub(super) fn answer<'t>(
        &self,
        mut texts: Texts<'t>,
        k: usize,
        state: &mut RisuState,
    ) -> (RisuResult, Texts<'t>) {
        let request = self.request_for(k, &self.statics.evals);
        let passes = request.passes(&mut texts, state);
        let entries = &self.entries;
        let dropped_of = |i: usize, reason: RisuDrop| RisuDropped {
            book: entries[i].book,
            id: entries[i].id,
            comment: self.comments[i].clone(),
            reason,
        };
        if let Some(i) = passes.failure {
            let p = &self.entries[i];
            let result = RisuResult {
                request: k,
                budget: self.settings.token_budget,
                used: 0,
                passes: passes.passes,
                injected: Vec::new(),
                dropped: Arc::default(),
                failure: Some(RisuFailure {
                    book: p.book,
                    id: p.id,
                    comment: p.name.clone(),
                }),
            };
            return (result, texts);
        }
        let mut records = passes.records;
        // Since RisuAI's 2026 mainline the budget counts a body as CBS
        // evaluates it (the text itself, its keys and recursion stay as
        // written); a body without macros is its own evaluation.
        let mainline = self.settings.version == super::RisuVersion::Mainline2026;
        let cbs = super::cbs::Cbs {
            inputs: &self.settings.cbs,
            messages: &texts.messages,
            seed: self.seed,
            now_ms: None,
        };
        for r in &mut records {
            let text = r.text(entries);
            let evaluated = mainline && may_hold_macros(r, entries);
            // A count that is the same in every request is kept with the
            // body (under the 2026 rules, of its evaluation).
            let kept = !evaluated || (r.body.is_none() && entries[r.source].macros_stable);
            if !kept {
                r.tokens = self.tokenizer.count(&super::cbs::eval(text, &cbs));
                continue;
            }
            let slot = &self.bodies[r.source].tokens;
            r.tokens = *slot.get_or_init(|| {
                if evaluated {
                    self.tokenizer.count(&super::cbs::eval(text, &cbs))
                } else {
                    self.tokenizer.count(text)
                }
            });
        }
        let (placed, cut, used) = finish(records, self.settings.token_budget, entries);
        let mut dropped: Vec<RisuDropped> = Vec::with_capacity(self.entries.len());
        passes.dropped.each(|i, d| dropped.push(dropped_of(i, d)));
        dropped.extend(cut.into_iter().map(|(i, d)| dropped_of(i, d)));
        let macros: Vec<bool> = placed.iter().map(|r| may_hold_macros(r, entries)).collect();
        let injected: Vec<RisuInjected> = placed
            .into_iter()
            .map(|r| {
                let p = &entries[r.entry];
                let content = r.text(entries).to_string();
                RisuInjected {
                    book: p.book,
                    id: p.id,
                    comment: p.name.clone(),
                    depth: matches!(r.position, Position::Depth | Position::ReverseDepth)
                        .then_some(r.depth),
                    position: r.position,
                    role: r.role,
                    order: r.order,
                    priority: r.priority,
                    tokens: r.tokens,
                    pass: r.pass,
                    content,
                    sent: None,
                    reason: r.why.named(entries, r.source),
                }
            })
            .collect();
        let injected = super::sent::fill(injected, &macros, mainline, &cbs);
        let result = RisuResult {
            request: k,
            budget: self.settings.token_budget,
            used,
            passes: passes.passes,
            injected,
            dropped: Arc::new(dropped),
            failure: None,
        };
        (result, texts)
    }
}

/// Whether a record's text can hold anything CBS changes (known of each
/// entry's body when the preview is built).
fn may_hold_macros(r: &Record, entries: &[Prepared]) -> bool {
    match &r.body {
        Some(b) => super::cbs::has_macros(b),
        None => entries[r.source].macros,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The target body after `@@inject_replace` (JavaScript String.replace).
    /// The budget's order compares the keys as the ranks compare.
    #[test]
    fn ascending_keys_order_as_the_ranks() {
        let xs = [
            f64::NAN,
            f64::NEG_INFINITY,
            -1e300,
            -2.0,
            -0.0,
            0.0,
            1e-300,
            3.5,
            1000.0,
            f64::INFINITY,
        ];
        for a in xs {
            for b in xs {
                let by_rank = rank(a).partial_cmp(&rank(b)).unwrap();
                assert_eq!(ascending_key(a).cmp(&ascending_key(b)), by_rank, "{a} {b}");
            }
        }
    }

    #[test]
    fn js_replace_patterns() {
        assert_eq!(js_replace("T and T", "T", "NEW"), "NEW and T");
        assert_eq!(js_replace("cat", "cat", "[$&]"), "[cat]");
        assert_eq!(js_replace("abc", "", "x"), "xabc");
        assert_eq!(js_replace("a-b", "-", "$$1$'$`"), "a$1bab");
    }
}
