//! The activation loop of one request (world-info.js: `checkWorldInfo`).
//!
//! Each pass filters the entries in master order, orders the candidates
//! (sticky first), applies inclusion groups, then rolls probability and
//! spends the budget; the next pass is a recursion pass, a min-activations
//! widening, or a pass for the next delay-until-recursion level.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde::Serialize;

use super::buffer::{PassKind, ScanBuffer};
use super::entry::StEntry;
use super::groups::{self, GroupContext};
use super::joined::JoinedCount;
use super::keys::{Hays, KeySet, List};
use super::matching::{substitute, KeyMode, Names};
use super::settings::StSettings;
use super::timed::{self, TimedState};
use super::{StDetail, StDropped, StReason};
use crate::tokenizer::TokenCounter;

/// Why an entry did not activate, in the order SillyTavern tests it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum DropKind {
    Disabled,
    Trigger,
    CharacterFilter,
    Delay,
    Cooldown,
    Recursion,
    Decorator,
    NoKeys,
    NoMatch,
    Secondary,
    Group,
    Probability,
    Budget,
    /// Activated, but its text goes nowhere.
    NotPlaced,
}

/// An activated entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Activated {
    pub entry: usize,
    /// The scan pass (1-based) that activated it.
    pub pass: u32,
    /// Content after macros: what is counted and inserted.
    pub content: String,
    pub reason: StReason,
    /// Where the content's macros decided (`{{if}}` branches, variables).
    pub decided: Vec<super::macros::trace::MacroDecision>,
}

/// The outcome of the loop for one request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    pub budget: u32,
    /// Tokens of the activated text, counted as SillyTavern counts it.
    pub used: u32,
    pub overflowed: bool,
    pub passes: u32,
    /// The chat length of timed effects: non-hidden messages.
    pub chat_length: usize,
    pub activated: Vec<Activated>,
    /// Built here in entry order, so the result lists them as they are.
    pub dropped: Vec<StDropped>,
}

/// Everything one request reads besides the entries.
pub struct Context<'a> {
    pub settings: &'a StSettings,
    pub names: &'a Names,
    pub buffer: ScanBuffer<'a>,
    pub max_context: u32,
    pub counter: &'a mut TokenCounter,
    /// The entries' keys, compiled once per book.
    pub keys: &'a mut KeySet,
    pub draw: &'a mut dyn FnMut() -> f64,
    /// The character's file name, for `characterFilter`.
    pub character: &'a str,
    /// Each entry's comment, shared with the dropped list.
    pub comments: &'a [Arc<str>],
}

/// How a candidate got in.
fn key_mode(e: &StEntry, s: &StSettings) -> KeyMode {
    KeyMode {
        case_sensitive: e.case_sensitive.unwrap_or(s.case_sensitive),
        whole_words: e.whole_words.unwrap_or(s.match_whole_words),
    }
}

/// Runs the loop; `state` is read at the start and updated at the end.
pub fn run(entries: &[StEntry], cx: &mut Context<'_>, state: &mut TimedState) -> Outcome {
    let s = cx.settings;
    let budget = s.budget(cx.max_context);
    let length = cx.buffer.len();
    let effects = timed::check(state, entries, length as f64);
    let mut levels: Vec<f64> = entries
        .iter()
        .map(|e| e.delay_level)
        .filter(|l| *l != 0.0 && !l.is_nan())
        .collect();
    levels.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    levels.dedup();
    let mut levels = levels.into_iter();
    let mut current_level = levels.next().unwrap_or(0.0);

    let mut kind = Some(PassKind::Initial);
    let mut passes = 0u32;
    let mut activated: Vec<Activated> = Vec::new();
    // Activated `bookName.uid` keys, by the key set's identities.
    let mut activated_keys = vec![false; entries.len()];
    let mut failed = vec![false; entries.len()];
    let mut overflow = false;
    let mut all_text = String::new();
    let mut skew = 0.0;
    // Why each entry is out so far, by entry index.
    let mut reasons: Vec<Option<(DropKind, Arc<StDetail>)>> = vec![None; entries.len()];
    let mut contents: Vec<Option<String>> = vec![None; entries.len()];
    let delayed = |e: &StEntry| timed::delayed(e, length as f64);
    let mut hays = Hays::default();
    // Most entries miss at the same depth: its reason is formatted once.
    let mut no_match: Vec<(u64, Arc<StDetail>)> = Vec::new();
    // The variables as activated entries' macros left them, once one
    // changed any: later keys and content read them (see `macros`).
    let mut names_now: Option<Names> = None;
    let mut keys_stale = false;
    cx.keys.clear_request_keys();

    while let Some(pass) = kind {
        if keys_stale {
            keys_stale = false;
            if let Some(names) = &names_now {
                cx.keys.expand_again(entries, names);
            }
        }
        if s.max_recursion_steps > 0.0 && passes as f64 >= s.max_recursion_steps {
            break;
        }
        passes += 1;
        let mut candidates = Vec::new();
        let mut why_in: HashMap<usize, StReason> = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            if failed[i] || activated_keys[cx.keys.identity(i)] {
                continue;
            }
            let mut drop = |kind: DropKind, detail: StDetail| {
                reasons[i] = Some((kind, Arc::new(detail)));
            };
            if e.disable {
                drop(DropKind::Disabled, StDetail::Disabled);
                continue;
            }
            if !e.triggers.is_empty() && !e.triggers.iter().any(|t| t == "normal") {
                drop(
                    DropKind::Trigger,
                    StDetail::Triggers {
                        triggers: e.triggers.clone(),
                    },
                );
                continue;
            }
            if let Some(f) = &e.character_filter {
                if !f.names.is_empty() && f.names.iter().any(|n| n == cx.character) == f.exclude {
                    drop(
                        DropKind::CharacterFilter,
                        StDetail::CharacterFilter {
                            character: cx.character.to_string(),
                        },
                    );
                    continue;
                }
            }
            // Most requests have no timed effects: no lookups then.
            let sticky = !effects.sticky.is_empty() && effects.sticky.contains(&i);
            let left = if effects.left.is_empty() {
                0.0
            } else {
                effects.left.get(&i).copied().unwrap_or(0.0)
            };
            if delayed(e) {
                drop(
                    DropKind::Delay,
                    StDetail::Delay {
                        length,
                        delay: e.delay,
                    },
                );
                continue;
            }
            if !effects.cooldown.is_empty() && effects.cooldown.contains(&i) && !sticky {
                drop(DropKind::Cooldown, StDetail::Cooldown { left });
                continue;
            }
            if pass != PassKind::Recursion && e.delay_level != 0.0 && !sticky {
                drop(DropKind::Recursion, StDetail::DelayedUntilRecursion);
                continue;
            }
            if pass == PassKind::Recursion && e.delay_level > current_level && !sticky {
                drop(
                    DropKind::Recursion,
                    StDetail::DelayedUntilLevel {
                        level: e.delay_level,
                    },
                );
                continue;
            }
            if pass == PassKind::Recursion && s.recursive && e.exclude_recursion && !sticky {
                drop(DropKind::Recursion, StDetail::NonRecursable);
                continue;
            }
            if e.activate {
                why_in.insert(i, StReason::Activate);
                candidates.push(i);
                continue;
            }
            if e.dont_activate {
                drop(DropKind::Decorator, StDetail::DontActivate);
                continue;
            }
            if e.constant {
                why_in.insert(i, StReason::Constant);
                candidates.push(i);
                continue;
            }
            if sticky {
                why_in.insert(i, StReason::Sticky { left });
                candidates.push(i);
                continue;
            }
            if e.keys.is_empty() {
                drop(DropKind::NoKeys, StDetail::NoKeys);
                continue;
            }
            if cx.keys.writes(i) {
                let before = names_now.as_ref().unwrap_or(cx.names);
                if let Some(names) = cx.keys.expand_writer(i, e, entries, before) {
                    names_now = Some(names);
                    keys_stale = false;
                }
            }
            let depth = e.scan_depth.unwrap_or(s.depth + skew);
            let hay = hays.get(&cx.buffer, depth, &e.match_sources, pass);
            let mode = key_mode(e, s);
            let keys = &mut *cx.keys;
            let possible = keys.may_match(hay, i);
            let mut test = |list: List, k: usize| keys.matches(hay, i, list, k, mode);
            let found = if possible {
                (0..e.keys.len()).find(|&k| test(List::Primary, k))
            } else {
                None
            };
            let Some(primary) = found else {
                if let Some((k, why)) = keys.given_up(hay, i, List::Primary) {
                    let detail = StDetail::given_up(e.keys[k].clone(), why);
                    reasons[i] = Some((DropKind::NoMatch, Arc::new(detail)));
                    continue;
                }
                let bits = depth.to_bits();
                let detail = match no_match.iter().find(|(b, _)| *b == bits) {
                    Some((_, detail)) => detail.clone(),
                    None => {
                        let detail = Arc::new(StDetail::NoMatch { depth });
                        no_match.push((bits, detail.clone()));
                        detail
                    }
                };
                reasons[i] = Some((DropKind::NoMatch, detail));
                continue;
            };
            let primary = e.keys[primary].clone();
            if e.selective && !e.secondary.is_empty() {
                let hits = (0..e.secondary.len())
                    .filter(|&k| test(List::Secondary, k))
                    .count();
                let n = e.secondary.len();
                let ok = match e.logic {
                    Some(0) => hits > 0,
                    Some(1) => hits < n,
                    Some(2) => hits == 0,
                    Some(3) => hits == n,
                    _ => false,
                };
                if !ok {
                    if let Some((k, why)) = keys.given_up(hay, i, List::Secondary) {
                        drop(
                            DropKind::Secondary,
                            StDetail::given_up(e.secondary[k].clone(), why),
                        );
                        continue;
                    }
                    let logic = ["AND ANY", "NOT ALL", "NOT ANY", "AND ALL"]
                        .get(e.logic.unwrap_or(9) as usize)
                        .map(|l| l.to_string());
                    drop(DropKind::Secondary, StDetail::Secondary { logic, hits, n });
                    continue;
                }
            }
            let widened =
                (pass == PassKind::MinActivations && e.scan_depth.is_none()).then_some(depth);
            let expanded = names_now.as_ref().unwrap_or(cx.names).changed_key(&primary);
            why_in.insert(
                i,
                StReason::Key {
                    key: primary,
                    pass: passes,
                    widened,
                    expanded,
                },
            );
            candidates.push(i);
        }

        // Sticky entries first, then master order.
        let (mut ordered, rest): (Vec<usize>, Vec<usize>) = candidates
            .into_iter()
            .partition(|i| effects.sticky.contains(i));
        ordered.extend(rest);
        let mut candidates = ordered;

        let activated_groups: Vec<String> = activated
            .iter()
            .map(|a| entries[a.entry].group.clone())
            .collect();
        let buffer = &cx.buffer;
        let keys = &mut *cx.keys;
        let hays = &mut hays;
        let entries_ref: &[StEntry] = entries;
        let mut score = |m: usize| -> usize {
            let e = &entries_ref[m];
            if e.keys.is_empty() {
                return 0;
            }
            let depth = e.scan_depth.unwrap_or(s.depth + skew);
            let hay = hays.get(buffer, depth, &e.match_sources, pass);
            let mode = key_mode(e, s);
            let primary = (0..e.keys.len())
                .filter(|&k| keys.matches(hay, m, List::RawPrimary, k, mode))
                .count();
            let secondary = (0..e.secondary.len())
                .filter(|&k| keys.matches(hay, m, List::RawSecondary, k, mode))
                .count();
            primary
                + match e.logic {
                    Some(0) => secondary,
                    Some(3) if secondary == e.secondary.len() => secondary,
                    _ => 0,
                }
        };
        let is_delayed = |m: usize| delayed(&entries_ref[m]);
        let mut group_cx = GroupContext {
            entries: entries_ref,
            sticky: &effects.sticky,
            cooldown: &effects.cooldown,
            delayed: &is_delayed,
            activated_groups: &activated_groups,
            global_scoring: s.use_group_scoring,
            score: &mut score,
            draw: &mut *cx.draw,
        };
        for d in groups::filter(&mut candidates, &mut group_cx) {
            reasons[d.entry] = Some((
                DropKind::Group,
                Arc::new(StDetail::Group {
                    group: d.group,
                    loss: d.loss,
                }),
            ));
        }

        // Probability and budget. A byte-level tokenizer never makes more
        // tokens than bytes, so while the texts' bytes stay under the
        // budget nothing is counted: their tokens are under it too. The
        // pass's text is counted part by part (see `joined`).
        let mut start_tokens: Option<u32> = None;
        let mut ignoring = candidates
            .iter()
            .filter(|&&c| entries[c].ignore_budget)
            .count();
        let mut pass_text = JoinedCount::default();
        let mut failed_now = HashSet::new();
        let skipped = Arc::new(StDetail::BudgetReached { budget });
        for (n, &c) in candidates.iter().enumerate() {
            let e = &entries[c];
            if e.ignore_budget {
                ignoring -= 1;
            }
            if overflow && !e.ignore_budget {
                if ignoring > 0 {
                    reasons[c] = Some((DropKind::Budget, skipped.clone()));
                    continue;
                }
                // The pass stops here: this and every later candidate.
                for &rest in &candidates[n..] {
                    reasons[rest] = Some((DropKind::Budget, skipped.clone()));
                }
                break;
            }
            let sticky = effects.sticky.contains(&c);
            let rolls = e.use_probability && e.probability != Some(100.0) && !sticky;
            if rolls {
                let chance = e.probability.unwrap_or(f64::NAN);
                let roll = (cx.draw)() * 100.0;
                // NaN chances never pass, as in JavaScript.
                let passes_roll = matches!(
                    roll.partial_cmp(&chance),
                    Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
                );
                if !passes_roll {
                    failed[c] = true;
                    failed_now.insert(c);
                    reasons[c] = Some((
                        DropKind::Probability,
                        Arc::new(StDetail::Probability {
                            // One decimal, as it is shown.
                            roll: (roll * 10.0).round() / 10.0,
                            chance,
                        }),
                    ));
                    continue;
                }
            }
            let names = names_now.as_ref().unwrap_or(cx.names);
            let expanded = names.expand(&e.content);
            if let Some(vars) = expanded.vars {
                names_now = Some(Names {
                    vars: Arc::new(vars),
                    ..names.clone()
                });
                keys_stale = true;
            }
            let content = expanded.text;
            let decided = expanded.decided;
            pass_text.push(cx.counter, &format!("{content}\n"));
            contents[c] = Some(content.clone());
            if e.ignore_budget || all_text.len() + pass_text.len() < budget as usize {
                reasons[c] = None;
                activated_keys[cx.keys.identity(c)] = true;
                activated.push(Activated {
                    entry: c,
                    pass: passes,
                    content,
                    reason: why_in.remove(&c).unwrap_or_default(),
                    decided,
                });
                continue;
            }
            let start = *start_tokens.get_or_insert_with(|| cx.counter.count(&all_text));
            let total = start + pass_text.count(cx.counter);
            if total >= budget {
                overflow = true;
                reasons[c] = Some((
                    DropKind::Budget,
                    Arc::new(StDetail::Budget {
                        total,
                        budget,
                        percent: s.budget_percent,
                        context: cx.max_context,
                        cap: s.budget_cap,
                    }),
                ));
                continue;
            }
            reasons[c] = None;
            activated_keys[cx.keys.identity(c)] = true;
            activated.push(Activated {
                entry: c,
                pass: passes,
                content,
                reason: why_in.remove(&c).unwrap_or_default(),
                decided,
            });
        }

        // The next pass.
        let for_recursion: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|c| !failed_now.contains(c) && !entries[*c].prevent_recursion)
            .collect();
        let mut next = None;
        if s.recursive && !overflow && !for_recursion.is_empty() {
            next = Some(PassKind::Recursion);
        }
        if s.recursive && !overflow && pass == PassKind::MinActivations && cx.buffer.has_recursion()
        {
            next = Some(PassKind::Recursion);
        }
        if next.is_none()
            && !overflow
            && s.min_activations > 0.0
            && (activated.len() as f64) < s.min_activations
        {
            let depth = s.depth + skew;
            let over = (s.min_activations_depth_max > 0.0 && depth > s.min_activations_depth_max)
                || depth > length as f64;
            if !over {
                skew += 1.0;
                next = Some(PassKind::MinActivations);
            }
        }
        if next.is_none() {
            if let Some(level) = levels.next() {
                current_level = level;
                next = Some(PassKind::Recursion);
            }
        }
        if next.is_some() {
            let text: Vec<String> = for_recursion
                .iter()
                .map(|&c| {
                    contents[c].clone().unwrap_or_else(|| {
                        substitute(&entries[c].content, names_now.as_ref().unwrap_or(cx.names))
                    })
                })
                .collect();
            let text = text.join("\n");
            if !text.is_empty() {
                cx.buffer.push_recursion(text.clone());
                all_text = format!("{text}\n{all_text}");
            }
        }
        kind = next;
    }

    let used = {
        let mut text = JoinedCount::default();
        for a in &activated {
            text.push(cx.counter, &format!("{}\n", a.content));
        }
        text.count(cx.counter)
    };
    let done: Vec<usize> = activated.iter().map(|a| a.entry).collect();
    timed::record(state, entries, &done, length as f64);
    let mut is_done = vec![false; entries.len()];
    for &i in &done {
        is_done[i] = true;
    }
    cx.keys.clear_request_keys();
    let mut dropped = Vec::with_capacity(entries.len().saturating_sub(done.len()));
    for (i, e) in entries.iter().enumerate() {
        if is_done[i] {
            continue;
        }
        if let Some((kind, detail)) = reasons[i].take() {
            dropped.push(StDropped {
                book: e.book,
                id: e.id,
                comment: cx.comments[i].clone(),
                kind,
                detail,
            });
        }
    }
    Outcome {
        budget,
        used,
        overflowed: overflow,
        passes,
        chat_length: length,
        activated,
        dropped,
    }
}
