//! Where activated entries go and in what order (world-info.js: the end
//! of `checkWorldInfo`).
//!
//! Entries are stably sorted by `order`, highest first, and each is
//! *prepended* to its position's list, so a list ends up ascending with
//! ties in reverse activation order. Outlets are appended instead, so they
//! read highest order first.

use serde::Serialize;

use super::entry::StEntry;
use crate::model::Role;

/// SillyTavern's eight positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Position {
    Before,
    After,
    AnTop,
    AnBottom,
    AtDepth,
    EmTop,
    EmBottom,
    Outlet,
}

impl Position {
    /// The position of SillyTavern's `position` number.
    pub fn from_st(n: i64) -> Option<Self> {
        Some(match n {
            0 => Position::Before,
            1 => Position::After,
            2 => Position::AnTop,
            3 => Position::AnBottom,
            4 => Position::AtDepth,
            5 => Position::EmTop,
            6 => Position::EmBottom,
            7 => Position::Outlet,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Position::Before => "before",
            Position::After => "after",
            Position::AnTop => "an_top",
            Position::AnBottom => "an_bottom",
            Position::AtDepth => "at_depth",
            Position::EmTop => "em_top",
            Position::EmBottom => "em_bottom",
            Position::Outlet => "outlet",
        }
    }
}

/// The role of an at-depth entry's `role` number: 1 user, 2 assistant,
/// any other number system (as SillyTavern's `getExtensionPrompt` falls
/// back to system).
pub fn role_of(role: i64) -> Role {
    match role {
        1 => Role::User,
        2 => Role::Assistant,
        _ => Role::System,
    }
}

/// One placed entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Placed {
    /// Index into the entries.
    pub entry: usize,
    pub position: Position,
    /// Chat depth, for at-depth entries.
    pub depth: Option<f64>,
    /// Role, for at-depth entries.
    pub role: Option<Role>,
    /// Outlet name, for outlets.
    pub outlet: Option<String>,
}

/// Why an activated entry appears nowhere.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotPlaced {
    pub entry: usize,
    pub detail: super::StDetail,
}

/// Places the activated entries (`(entry, content)` in activation order).
/// The result lists positions in the order before, after, AN top, AN
/// bottom, at-depth groups (in creation order), EM top, EM bottom,
/// outlets (in creation order).
pub fn place(entries: &[StEntry], activated: &[(usize, &str)]) -> (Vec<Placed>, Vec<NotPlaced>) {
    let mut sorted: Vec<(usize, &str)> = activated.to_vec();
    sorted.sort_by(|a, b| {
        entries[b.0]
            .order
            .partial_cmp(&entries[a.0].order)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut lists: [Vec<usize>; 6] = Default::default();
    let mut depth_groups: Vec<((f64, i64), Vec<usize>)> = Vec::new();
    let mut outlets: Vec<(String, Vec<usize>)> = Vec::new();
    let mut not_placed = Vec::new();
    for (i, content) in sorted {
        let e = &entries[i];
        if content.is_empty() {
            not_placed.push(NotPlaced {
                entry: i,
                detail: super::StDetail::EmptyContent,
            });
            continue;
        }
        let slot = match e.position.and_then(Position::from_st) {
            Some(Position::Before) => 0,
            Some(Position::After) => 1,
            Some(Position::AnTop) => 2,
            Some(Position::AnBottom) => 3,
            Some(Position::EmTop) => 4,
            Some(Position::EmBottom) => 5,
            Some(Position::AtDepth) => {
                let key = (e.depth, e.role);
                match depth_groups.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, list)) => list.insert(0, i),
                    None => depth_groups.push((key, vec![i])),
                }
                continue;
            }
            Some(Position::Outlet) => {
                if e.outlet.is_empty() {
                    not_placed.push(NotPlaced {
                        entry: i,
                        detail: super::StDetail::OutletWithoutName,
                    });
                } else {
                    match outlets.iter_mut().find(|(n, _)| *n == e.outlet) {
                        Some((_, list)) => list.push(i),
                        None => outlets.push((e.outlet.clone(), vec![i])),
                    }
                }
                continue;
            }
            None => {
                not_placed.push(NotPlaced {
                    entry: i,
                    detail: super::StDetail::UnknownPosition,
                });
                continue;
            }
        };
        lists[slot].insert(0, i);
    }
    let mut placed = Vec::new();
    let simple = |list: &[usize], position: Position, out: &mut Vec<Placed>| {
        out.extend(list.iter().map(|&entry| Placed {
            entry,
            position,
            depth: None,
            role: None,
            outlet: None,
        }));
    };
    simple(&lists[0], Position::Before, &mut placed);
    simple(&lists[1], Position::After, &mut placed);
    simple(&lists[2], Position::AnTop, &mut placed);
    simple(&lists[3], Position::AnBottom, &mut placed);
    for ((depth, role), list) in &depth_groups {
        placed.extend(list.iter().map(|&entry| Placed {
            entry,
            position: Position::AtDepth,
            depth: Some(*depth),
            role: Some(role_of(*role)),
            outlet: None,
        }));
    }
    simple(&lists[4], Position::EmTop, &mut placed);
    simple(&lists[5], Position::EmBottom, &mut placed);
    for (name, list) in &outlets {
        placed.extend(list.iter().map(|&entry| Placed {
            entry,
            position: Position::Outlet,
            depth: None,
            role: None,
            outlet: Some(name.clone()),
        }));
    }
    (placed, not_placed)
}
