//! The budget checks across entries: an entry over the budget alone,
//! constants taking most of it, entries the always-active constants leave
//! no room for (under each rule set's way of filling the budget). Against
//! a budget the author did not give (`LintContext::budget_assumed`) they
//! say so and are one step milder.

use super::book::Item;
use super::context::{LintContext, LintRules};
use super::problem::{Finding, Problem, Span};
use super::CountTokens;
use crate::decorators;
use crate::diagnostic::Severity;
use crate::sillytavern::entry::StEntry;

/// Entries over the budget alone, constants taking most of it, and
/// entries the always-kept constants leave no room for. A token is at
/// least one byte, so only bodies longer in bytes than the room left are
/// counted.
pub(super) fn check(
    cx: &LintContext,
    items: &[Item],
    tokens: &mut dyn CountTokens,
    out: &mut Vec<Problem>,
) {
    let limit = cx.budget;
    let studio = cx.rules.is_studio();
    let ignores_budget = |it: &Item| it.seen.st().is_some_and(|s| s.ignore_budget);
    let can = |it: &Item| it.seen.risu().is_none_or(|r| r.can_activate());
    let live: Vec<&Item> = items
        .iter()
        .filter(|it| it.entry.enabled && !it.body.is_empty() && !ignores_budget(it) && can(it))
        .collect();
    // Under RisuAI's rules, what is active in every request.
    let constant = |it: &Item| it.seen.risu().map_or(it.entry.constant, |r| r.always_on());
    let constants: Vec<&Item> = live.iter().copied().filter(|it| constant(it)).collect();
    let constant_texts: Vec<&str> = constants.iter().map(|it| it.body.as_str()).collect();
    let constant_tokens = tokens.count_all(&constant_texts);
    // Constants always active in the studio rules: no gate, no roll.
    let always = |it: &Item| {
        let d = decorators::parse(&it.entry.content).decorators;
        d.activate_only_after.unwrap_or(0) == 0
            && d.activate_only_every.unwrap_or(1) == 1
            && !d.is_greeting
            && !d.dont_activate_after_match
            && d.probability.unwrap_or(100) >= 100
    };
    let total: u64 = constant_tokens.iter().map(|&t| t as u64).sum();
    let total = total.min(u32::MAX as u64) as u32;
    let always_total: u64 = constants
        .iter()
        .zip(&constant_tokens)
        .filter(|(it, _)| studio && always(it))
        .map(|(_, &t)| t as u64)
        .sum();
    let always_total = always_total.min(u32::MAX as u64) as u32;
    if !constants.is_empty() && (total as u64) * 2 > limit as u64 {
        let (largest, _) = constants
            .iter()
            .zip(&constant_tokens)
            .max_by_key(|(_, &t)| t)
            .expect("constants");
        out.push(Problem {
            entry: largest.at,
            // Against an assumed budget one step lower: over all of it a
            // warning, over half a hint.
            severity: match (total > limit, cx.budget_assumed) {
                (true, false) => Severity::Error,
                (true, true) | (false, false) => Severity::Warning,
                (false, true) => Severity::Hint,
            },
            span: Span::Entry,
            finding: Finding::ConstantsOverBudget {
                tokens: total,
                budget: limit,
                count: constants.len(),
                assumed: cx.budget_assumed,
            },
            fix: None,
        });
    }
    // What the always-kept constants leave for the others.
    let room = if studio && always_total < limit {
        limit - always_total
    } else {
        limit
    };
    let long: Vec<&Item> = live
        .iter()
        .copied()
        .filter(|it| it.body.len() > room as usize)
        .collect();
    let texts: Vec<&str> = long.iter().map(|it| it.body.as_str()).collect();
    let counts = tokens.count_all(&texts);
    for (it, &t) in long.iter().zip(&counts) {
        let (severity, finding) = if t > limit {
            (
                // Against a budget the author did not give, a warning.
                if cx.budget_assumed {
                    Severity::Warning
                } else {
                    Severity::Error
                },
                Finding::EntryOverBudget {
                    tokens: t,
                    budget: limit,
                    assumed: cx.budget_assumed,
                },
            )
        } else if studio && !it.entry.constant && always_total < limit && t > room {
            (
                Severity::Warning,
                Finding::NeverSurvives {
                    tokens: t,
                    constants: always_total,
                    budget: limit,
                    assumed: cx.budget_assumed,
                },
            )
        } else {
            continue;
        };
        out.push(Problem {
            entry: it.at,
            severity,
            span: Span::Entry,
            finding,
            fix: None,
        });
    }
    match cx.rules {
        LintRules::Studio => {}
        LintRules::SillyTavern { .. } => st_never_survives(cx, items, tokens, out),
        LintRules::Risu { .. } => super::risu::never_survives(cx, &live, tokens, out),
    }
}

/// Whether SillyTavern activates `s` in every request: a constant with no
/// roll, group, timed effect, recursion delay, trigger or character filter.
fn st_always(s: &StEntry) -> bool {
    s.constant
        && !s.disable
        && !s.dont_activate
        && (!s.use_probability || s.probability.is_none_or(|p| p >= 100.0))
        && s.group.is_empty()
        && s.delay <= 0.0
        && s.cooldown <= 0.0
        && s.delay_level <= 0.0
        && s.triggers.is_empty()
        && s.character_filter.is_none()
}

/// `never_survives` under SillyTavern's rules, which rank the budget by
/// `order` alone (constants get no priority) and cut an entry once the
/// running total reaches the budget: an entry whose tokens, after those of
/// the always-active constants with a higher order (including those that
/// ignore the budget, which still count), reach it. SillyTavern counts the
/// joined text, each entry followed by a line break, so one token per
/// entry is allowed for how the joins count.
fn st_never_survives(
    cx: &LintContext,
    items: &[Item],
    tokens: &mut dyn CountTokens,
    out: &mut Vec<Problem>,
) {
    let limit = cx.budget as u64;
    let mut ahead: Vec<(f64, &Item)> = items
        .iter()
        .filter(|it| it.entry.enabled && !it.body.is_empty())
        .filter_map(|it| {
            let s = it.seen.st()?;
            st_always(s).then_some((s.order, it))
        })
        .collect();
    if ahead.is_empty() {
        return;
    }
    ahead.sort_by(|a, b| b.0.total_cmp(&a.0));
    let texts: Vec<&str> = ahead.iter().map(|(_, it)| it.body.as_str()).collect();
    let mut prefix = vec![0u64];
    for c in tokens.count_all(&texts) {
        prefix.push(prefix[prefix.len() - 1] + c as u64);
    }
    // The tokens an entry needs to be cut for sure, with `k` entries ahead.
    let needs = |k: usize| (limit + k as u64 + 1).saturating_sub(prefix[k]);
    let long: Vec<(&Item, usize)> = items
        .iter()
        .filter(|it| it.entry.enabled && !it.body.is_empty())
        .filter_map(|it| {
            let s = it.seen.st()?;
            if s.ignore_budget || s.disable {
                return None;
            }
            let k = ahead.partition_point(|(o, _)| *o > s.order);
            (k > 0 && it.body.len() as u64 >= needs(k)).then_some((it, k))
        })
        .collect();
    let texts: Vec<&str> = long.iter().map(|(it, _)| it.body.as_str()).collect();
    let counts = tokens.count_all(&texts);
    for ((it, k), t) in long.into_iter().zip(counts) {
        // Over the budget alone is `entry_over_budget`.
        if t as u64 > limit || (t as u64) < needs(k) {
            continue;
        }
        out.push(never_kept(it, t, prefix[k], cx));
    }
}

/// `never_survives`: `tokens` do not fit in what `ahead` leaves of `budget`.
pub(super) fn never_kept(it: &Item, tokens: u32, ahead: u64, cx: &LintContext) -> Problem {
    Problem {
        entry: it.at,
        severity: Severity::Warning,
        span: Span::Entry,
        finding: Finding::NeverSurvives {
            tokens,
            constants: ahead.min(u32::MAX as u64) as u32,
            budget: cx.budget,
            assumed: cx.budget_assumed,
        },
        fix: None,
    }
}
