//! Inclusion groups (world-info.js: `filterByInclusionGroups`,
//! `filterGroupsByTimedEffects`, `filterGroupsByScoring`).

use std::collections::HashSet;

use super::GroupLoss;

/// What group filtering needs to know about the pass.
pub struct GroupContext<'a> {
    pub entries: &'a [super::entry::StEntry],
    pub sticky: &'a HashSet<usize>,
    pub cooldown: &'a HashSet<usize>,
    pub delayed: &'a dyn Fn(usize) -> bool,
    /// Group fields of entries activated in earlier passes.
    pub activated_groups: &'a [String],
    pub global_scoring: bool,
    /// A member's score: its matching keys (raw keys, no macros).
    pub score: &'a mut dyn FnMut(usize) -> usize,
    /// A uniform draw in [0, 1).
    pub draw: &'a mut dyn FnMut() -> f64,
}

/// Why a candidate left in group filtering.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupDrop {
    pub entry: usize,
    pub group: String,
    pub loss: GroupLoss,
}

/// The group names of a `group` field: split on a comma and the
/// whitespace after it, empty names dropped.
pub fn names(field: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, part) in field.split(',').enumerate() {
        let part = if i == 0 {
            part
        } else {
            part.trim_start_matches(super::matching::is_js_ws)
        };
        if !part.is_empty() {
            out.push(part.to_string());
        }
    }
    out
}

/// Removes an entry from the candidates; when it is already gone,
/// SillyTavern's `splice(indexOf(…))` removes the last candidate instead.
fn remove(
    candidates: &mut Vec<usize>,
    entry: usize,
    drops: &mut Vec<GroupDrop>,
    group: &str,
    loss: GroupLoss,
) {
    let gone = match candidates.iter().position(|&c| c == entry) {
        Some(p) => candidates.remove(p),
        None => match candidates.pop() {
            Some(last) => last,
            None => return,
        },
    };
    drops.push(GroupDrop {
        entry: gone,
        group: group.to_string(),
        loss,
    });
}

/// Filters `candidates` (in activation-priority order) by their groups.
pub fn filter(candidates: &mut Vec<usize>, cx: &mut GroupContext<'_>) -> Vec<GroupDrop> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for &c in candidates.iter() {
        for name in names(&cx.entries[c].group) {
            match groups.iter_mut().find(|(n, _)| *n == name) {
                Some((_, members)) => members.push(c),
                None => groups.push((name, vec![c])),
            }
        }
    }
    // JavaScript object-key order: integer-like names first, ascending.
    groups.sort_by_key(|(name, _)| {
        name.parse::<u64>()
            .ok()
            .filter(|n| n.to_string() == *name && *n < u32::MAX as u64)
            .unwrap_or(u64::MAX)
    });
    let mut drops = Vec::new();
    let mut decided = HashSet::new();
    for (name, members) in &groups {
        if members.iter().any(|m| cx.sticky.contains(m)) {
            for &m in members.iter().filter(|m| !cx.sticky.contains(m)) {
                remove(candidates, m, &mut drops, name, GroupLoss::StickyHolds);
            }
            decided.insert(name.clone());
        }
        for &m in members.iter().filter(|m| cx.cooldown.contains(m)) {
            remove(candidates, m, &mut drops, name, GroupLoss::OnCooldown);
        }
        for &m in members.iter().filter(|&&m| (cx.delayed)(m)) {
            remove(candidates, m, &mut drops, name, GroupLoss::Delayed);
        }
    }
    for (name, members) in groups.iter_mut() {
        if decided.contains(name) {
            continue;
        }
        let scoring_on = |m: usize| cx.entries[m].group_scoring.unwrap_or(cx.global_scoring);
        if !(cx.global_scoring
            || members
                .iter()
                .any(|&m| cx.entries[m].group_scoring == Some(true)))
        {
            continue;
        }
        let scores: Vec<usize> = members.iter().map(|&m| (cx.score)(m)).collect();
        let best = scores.iter().copied().max().unwrap_or(0);
        let mut kept = Vec::new();
        for (&m, &s) in members.iter().zip(&scores) {
            if scoring_on(m) && s < best {
                let loss = GroupLoss::Scoring { score: s, best };
                remove(candidates, m, &mut drops, name, loss);
            } else {
                kept.push(m);
            }
        }
        *members = kept;
    }
    for (name, members) in &groups {
        if decided.contains(name) {
            continue;
        }
        if cx.activated_groups.iter().any(|g| g == name) {
            for &m in members {
                remove(candidates, m, &mut drops, name, GroupLoss::AlreadyActivated);
            }
            continue;
        }
        if members.len() <= 1 {
            continue;
        }
        let overrides: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&m| cx.entries[m].group_override)
            .collect();
        let winner = if !overrides.is_empty() {
            let mut w = overrides[0];
            for &m in &overrides[1..] {
                if cx.entries[m].order > cx.entries[w].order {
                    w = m;
                }
            }
            Some((w, None))
        } else {
            let total: f64 = members.iter().map(|&m| cx.entries[m].group_weight).sum();
            let roll = (cx.draw)() * total;
            let mut sum = 0.0;
            let mut found = None;
            for &m in members {
                sum += cx.entries[m].group_weight;
                if sum >= roll {
                    found = Some(m);
                    break;
                }
            }
            found.map(|w| (w, Some((roll, total))))
        };
        if let Some((w, rolled)) = winner {
            let e = &cx.entries[w];
            let (winner, winner_name) = (e.id, e.comment.clone());
            let loss = match rolled {
                None => GroupLoss::Prioritized {
                    winner,
                    winner_name,
                },
                Some((roll, total)) => GroupLoss::LostRoll {
                    // One decimal, as it is shown.
                    roll: (roll * 10.0).round() / 10.0,
                    total,
                    weight: e.group_weight,
                    winner,
                    winner_name,
                },
            };
            for &m in members.iter().filter(|&&m| m != w) {
                remove(candidates, m, &mut drops, name, loss.clone());
            }
        }
    }
    drops
}

#[cfg(test)]
mod tests {
    use super::*;

    // world-info.js: filterByInclusionGroups (names split on comma and the
    // whitespace after it).
    #[test]
    fn group_names() {
        assert_eq!(names("a, b,c"), ["a", "b", "c"]);
        assert_eq!(names(" a ,b"), [" a ", "b"]);
        assert_eq!(names(",,x"), ["x"]);
        assert!(names("").is_empty());
    }
}
