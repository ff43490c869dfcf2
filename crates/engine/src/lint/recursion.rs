//! The recursion graph: an edge a → b when a's body holds one of b's plain
//! primary keys. One matcher over all keys scans every body once; Tarjan's
//! strongly connected components give the loops, and a breadth-first walk
//! from each component nothing points at (bounded in total work) the
//! chains whose last link is more passes away than the limit.

use std::collections::HashMap;

use super::book::{keyed, Item};
use super::context::{self, key_kind, KeyKind, LintContext};
use super::problem::{Finding, Problem, Span};
use crate::diagnostic::Severity;
use crate::matcher::{KeyFlags, KeyOwner, MatcherBuilder};

/// How many entries a recursion loop or chain lists.
const CHAIN_LISTED: usize = 12;

/// Entries whose bodies activate each other: loops, and chains longer than
/// the recursion limit. An edge a → b means a's body holds one of b's plain
/// primary keys (regex keys and secondary keys are left out: an edge is
/// what may activate).
pub(super) fn check(cx: &LintContext, items: &[Item], out: &mut Vec<Problem>) {
    let edges = if cx.rules.risu().is_some() {
        super::risu::edges(items)
    } else {
        edges(cx, items)
    };
    let n = items.len();
    let (comp, count) = tarjan(&edges);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (v, &c) in comp.iter().enumerate() {
        members[c].push(v);
    }
    // What points into each component from outside it.
    let mut entered = vec![false; count];
    for (v, to) in edges.iter().enumerate() {
        for &w in to {
            if comp[w as usize] != comp[v] {
                entered[comp[w as usize]] = true;
            }
        }
    }
    for (c, m) in members.iter().enumerate().filter(|(_, m)| m.len() > 1) {
        let cycle = find_cycle(m[0], &edges, &comp);
        // Each entry activates once, so entries naming each other change
        // nothing (a hint), unless every one of them waits for recursion
        // and nothing outside names any: then none ever activates.
        let dead = !entered[c] && m.iter().all(|&v| only_by_recursion(&items[v]));
        out.push(Problem {
            entry: items[m[0]].at,
            severity: if dead {
                Severity::Warning
            } else {
                Severity::Hint
            },
            span: Span::Entry,
            finding: Finding::RecursionLoop {
                cycle: cycle
                    .iter()
                    .take(CHAIN_LISTED)
                    .map(|&v| items[v].at)
                    .collect(),
                dead,
            },
            fix: None,
        });
    }
    let Some(limit) = context::recursion_limit(cx) else {
        return;
    };
    // A component nothing else points at is where a chain starts (the chat
    // activates it). Breadth-first from it, the passes an entry needs are
    // its distance; the first entry past the limit ends a chain whose last
    // link recursion never reaches from there. The work is bounded: past
    // `budget` visits the remaining starts are not walked.
    let has_pred = &entered;
    let mut budget = 64 * (n + edges.iter().map(Vec::len).sum::<usize>()) + 1024;
    let mut seen = vec![usize::MAX; n];
    let mut dist = vec![0u32; n];
    let mut parent = vec![usize::MAX; n];
    let mut queue = std::collections::VecDeque::new();
    for (c, m) in members.iter().enumerate() {
        if has_pred[c] || budget == 0 {
            continue;
        }
        let s = m[0];
        queue.clear();
        queue.push_back(s);
        seen[s] = c;
        dist[s] = 0;
        let mut far = None;
        'walk: while let Some(v) = queue.pop_front() {
            budget = budget.saturating_sub(1 + edges[v].len());
            for &w in &edges[v] {
                let w = w as usize;
                if seen[w] == c {
                    continue;
                }
                seen[w] = c;
                dist[w] = dist[v] + 1;
                parent[w] = v;
                if dist[w] > limit {
                    far = Some(w);
                    break 'walk;
                }
                queue.push_back(w);
            }
            if budget == 0 {
                break;
            }
        }
        let Some(mut w) = far else {
            continue;
        };
        let mut chain = vec![w];
        while w != s {
            w = parent[w];
            chain.push(w);
        }
        chain.reverse();
        chain.truncate(CHAIN_LISTED);
        out.push(Problem {
            entry: items[s].at,
            severity: Severity::Warning,
            span: Span::Entry,
            finding: Finding::RecursionTooDeep {
                chain: chain.iter().map(|&v| items[v].at).collect(),
                limit,
            },
            fix: None,
        });
    }
}

/// Whether `item` activates only in a recursion pass: SillyTavern's
/// delay until recursion (no key of the chat brings it in on the first
/// pass), and not constant.
fn only_by_recursion(item: &Item) -> bool {
    item.seen
        .st()
        .is_some_and(|s| s.delay_level != 0.0 && !s.constant)
}

/// The edges under the guide's and SillyTavern's rules: one studio
/// matcher over the targets' plain keys, each source body scanned once.
fn edges(cx: &LintContext, items: &[Item]) -> Vec<Vec<u32>> {
    let target = |it: &Item| {
        keyed(it)
            && match it.seen.st() {
                None => cx.book(it.at.book).recursive,
                Some(s) => !s.exclude_recursion && !s.disable,
            }
    };
    let source = |it: &Item| it.entry.enabled && it.seen.st().is_none_or(|s| !s.prevent_recursion);
    let mut b = MatcherBuilder::default();
    for (i, item) in items.iter().enumerate().filter(|(_, it)| target(it)) {
        let flags = context::flags(cx, item.entry, &item.seen);
        for (k, key) in item.entry.keys.iter().enumerate() {
            if !matches!(key_kind(&cx.rules, key, flags), KeyKind::Plain { .. }) {
                continue;
            }
            let owner = KeyOwner {
                entry: i as u32,
                secondary: false,
                position: k as u32,
            };
            let flags = KeyFlags {
                case_sensitive: flags.case_sensitive,
                whole_words: flags.whole_words,
                use_regex: false,
            };
            b.add(key, owner, flags);
        }
    }
    let (matcher, _) = b.build();
    let mut edges: Vec<Vec<u32>> = vec![Vec::new(); items.len()];
    for (i, item) in items.iter().enumerate().filter(|(_, it)| source(it)) {
        if item.body.is_empty() {
            continue;
        }
        let mut to: Vec<u32> = matcher
            .scan(&item.body)
            .iter()
            .filter(|h| !h.gave_up())
            .map(|h| matcher.owner(h.key).entry)
            .filter(|&t| t as usize != i)
            .collect();
        to.sort_unstable();
        to.dedup();
        edges[i] = to;
    }
    edges
}

/// Strongly connected components (iterative Tarjan): each vertex's
/// component, numbered in the order they complete (sinks first).
fn tarjan(edges: &[Vec<u32>]) -> (Vec<usize>, usize) {
    let n = edges.len();
    const NONE: usize = usize::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![NONE; n];
    let mut stack = Vec::new();
    let mut next_index = 0;
    let mut count = 0;
    let mut call: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        call.push((root, 0));
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            if *i == 0 && index[v] == NONE {
                index[v] = next_index;
                low[v] = next_index;
                next_index += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = edges[v].get(*i) {
                *i += 1;
                let w = w as usize;
                if index[w] == NONE {
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp[w] = count;
                    if w == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    (comp, count)
}

/// A shortest cycle through `start` inside its component (breadth first).
fn find_cycle(start: usize, edges: &[Vec<u32>], comp: &[usize]) -> Vec<usize> {
    let c = comp[start];
    let mut parent: HashMap<usize, usize> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in &edges[v] {
            let w = w as usize;
            if comp[w] != c {
                continue;
            }
            if w == start {
                let mut path = vec![v];
                let mut at = v;
                while at != start {
                    at = parent[&at];
                    path.push(at);
                }
                path.reverse();
                path.push(start);
                return path;
            }
            if let std::collections::hash_map::Entry::Vacant(slot) = parent.entry(w) {
                slot.insert(v);
                queue.push_back(w);
            }
        }
    }
    vec![start]
}
