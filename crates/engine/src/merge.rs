//! Merging another book into this one (issue 22): what the author chose
//! for each entry of a [`compare`](crate::compare) of the two books, turned
//! into the entries to replace, add and delete (docs/merge.md).
//!
//! - An entry only in theirs is added when chosen (with a new id).
//! - An entry only here is deleted when chosen.
//! - A pair in both but different keeps this book's entry unless the author
//!   takes theirs (their fields, this entry's id and folder) or keeps both
//!   (theirs added beside it).
//! - An added entry goes into the folder here that matches its folder there
//!   (or into its folder, when that is added too); at the top otherwise.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::compare::match_entries;
use crate::model::{Book, Entry};

/// What to keep of a pair in both books but different.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Take {
    Mine,
    Theirs,
    Both,
}

/// One pair's choice: the entry here (`mine`) and what to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PairChoice {
    pub mine: u64,
    pub take: Take,
}

/// The author's choices; anything not named keeps this book as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default)]
pub struct MergeChoices {
    /// Entries only in their book to add (their ids).
    pub add: Vec<u64>,
    /// Entries only in this book to delete (ids here).
    pub delete: Vec<u64>,
    pub pairs: Vec<PairChoice>,
}

/// What a merge does to this book.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MergePlan {
    /// Entries here replaced (same id, their fields).
    pub replace: Vec<Entry>,
    /// New entries, in their book's order, with fresh ids.
    pub add: Vec<Entry>,
    /// Ids here to delete.
    pub delete: Vec<u64>,
}

/// What a merge did, for the author.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MergeSummary {
    pub added: u32,
    pub replaced: u32,
    pub kept_both: u32,
    pub deleted: u32,
}

impl MergePlan {
    pub fn is_empty(&self) -> bool {
        self.replace.is_empty() && self.add.is_empty() && self.delete.is_empty()
    }
}

/// The plan for merging `theirs` into `mine` as `choices` say, and its
/// summary. Choices naming entries that are not where they say (an id
/// not only in theirs, a pair that is no pair) are ignored.
pub fn plan(mine: &Book, theirs: &Book, choices: &MergeChoices) -> (MergePlan, MergeSummary) {
    let pairs = match_entries(mine, theirs);
    // Their id → my id, for every matched pair.
    let matched: HashMap<u64, u64> = pairs
        .iter()
        .map(|&(i, j, _)| (theirs.entries[j].id, mine.entries[i].id))
        .collect();
    let mine_matched: HashMap<u64, usize> = pairs
        .iter()
        .map(|&(i, j, _)| (mine.entries[i].id, j))
        .collect();
    let theirs_alone: HashSet<u64> = theirs
        .entries
        .iter()
        .map(|e| e.id)
        .filter(|id| !matched.contains_key(id))
        .collect();
    let add: HashSet<u64> = choices
        .add
        .iter()
        .copied()
        .filter(|id| theirs_alone.contains(id))
        .collect();
    let mut plan = MergePlan::default();
    let mut summary = MergeSummary::default();
    let mut both: HashSet<u64> = HashSet::new();
    for c in &choices.pairs {
        let Some(&j) = mine_matched.get(&c.mine) else {
            continue;
        };
        let Some(here) = mine.entry(c.mine) else {
            continue;
        };
        let there = &theirs.entries[j];
        match c.take {
            Take::Mine => {}
            Take::Theirs => {
                // Their fields, this entry's place: its id, its folder and
                // whether it is a folder (a plain entry matched with a
                // folder of theirs by id stays plain, and a folder stays a
                // folder, so what it holds keeps its folder).
                let e = Entry {
                    id: here.id,
                    parent: here.parent,
                    folder: here.folder,
                    ..there.clone()
                };
                if e != *here {
                    plan.replace.push(e);
                    summary.replaced += 1;
                }
            }
            Take::Both => {
                both.insert(there.id);
                summary.kept_both += 1;
            }
        }
    }
    // Added entries: fresh ids, their folders mapped.
    let added: Vec<&Entry> = theirs
        .entries
        .iter()
        .filter(|e| add.contains(&e.id) || both.contains(&e.id))
        .collect();
    let fresh = mine.fresh_ids(added.len());
    let new_id: HashMap<u64, u64> = added.iter().zip(&fresh).map(|(e, &n)| (e.id, n)).collect();
    let tree = crate::folders::Tree::of(theirs);
    let deleted: HashSet<u64> = choices.delete.iter().copied().collect();
    for (e, &id) in added.iter().zip(&fresh) {
        let parent = tree.parent(e.id).and_then(|p| {
            new_id
                .get(&p)
                .copied()
                .or_else(|| matched.get(&p).copied().filter(|m| !deleted.contains(m)))
        });
        plan.add.push(Entry {
            id,
            parent,
            ..(*e).clone()
        });
    }
    summary.added = (plan.add.len() - both.len()) as u32;
    let only_mine: HashSet<u64> = mine
        .entries
        .iter()
        .map(|e| e.id)
        .filter(|id| !mine_matched.contains_key(id))
        .collect();
    plan.delete = mine
        .entries
        .iter()
        .map(|e| e.id)
        .filter(|id| deleted.contains(id) && only_mine.contains(id))
        .collect();
    summary.deleted = plan.delete.len() as u32;
    (plan, summary)
}

/// `mine` with `plan` applied: replaced entries in place, deleted ones
/// gone, added ones at the end; a folder deleted leaves its entries at the
/// top.
pub fn apply(mine: &Book, plan: &MergePlan) -> Book {
    let replace: HashMap<u64, &Entry> = plan.replace.iter().map(|e| (e.id, e)).collect();
    let delete: HashSet<u64> = plan.delete.iter().copied().collect();
    let mut out = Book {
        entries: Vec::with_capacity(mine.entries.len() + plan.add.len()),
        ..mine.clone()
    };
    out.entries.clear();
    for e in &mine.entries {
        if delete.contains(&e.id) {
            continue;
        }
        out.entries.push(
            replace
                .get(&e.id)
                .map_or_else(|| e.clone(), |r| (*r).clone()),
        );
    }
    out.entries.extend(plan.add.iter().cloned());
    crate::folders::repair(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(id: u64, name: &str, content: &str) -> Entry {
        Entry {
            id,
            comment: name.into(),
            keys: vec![name.to_lowercase()],
            content: content.into(),
            ..Entry::default()
        }
    }

    fn books() -> (Book, Book) {
        let mine = Book {
            entries: vec![
                e(0, "Sun", "Hot."),
                e(1, "Moon", "Pale."),
                e(2, "Old", "Gone soon."),
            ],
            ..Book::default()
        };
        let mut places = e(10, "Places", "");
        places.folder = true;
        places.keys.clear();
        let mut harbor = e(11, "Harbor", "Boats.");
        harbor.parent = Some(10);
        let theirs = Book {
            // Matched by name: Sun (same), Moon (different).
            entries: vec![e(5, "Sun", "Hot."), e(6, "Moon", "Silver."), places, harbor],
            ..Book::default()
        };
        (mine, theirs)
    }

    /// Every decision: add theirs (into its added folder), delete mine,
    /// take theirs (keeping this id), keep both; nothing chosen changes
    /// nothing.
    #[test]
    fn merge_decisions_do_what_they_say() {
        let (mine, theirs) = books();
        let (nothing, _) = plan(&mine, &theirs, &MergeChoices::default());
        assert!(nothing.is_empty());
        let choices = MergeChoices {
            add: vec![10, 11, 5],
            delete: vec![2, 0],
            pairs: vec![PairChoice {
                mine: 1,
                take: Take::Theirs,
            }],
        };
        let (p, s) = plan(&mine, &theirs, &choices);
        assert_eq!(
            s,
            MergeSummary {
                added: 2,
                replaced: 1,
                kept_both: 0,
                deleted: 1
            }
        );
        let out = apply(&mine, &p);
        let names: Vec<(&str, &str)> = out
            .entries
            .iter()
            .map(|e| (e.comment.as_str(), e.content.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("Sun", "Hot."),
                ("Moon", "Silver."),
                ("Places", ""),
                ("Harbor", "Boats.")
            ]
        );
        assert_eq!(out.entries[1].id, 1, "a taken entry keeps its id here");
        assert_eq!(
            out.entries[3].parent,
            Some(out.entries[2].id),
            "Harbor in the added Places"
        );
        // Keeping both adds theirs beside mine.
        let both = MergeChoices {
            pairs: vec![PairChoice {
                mine: 1,
                take: Take::Both,
            }],
            ..MergeChoices::default()
        };
        let (p, s) = plan(&mine, &theirs, &both);
        assert_eq!((s.kept_both, s.added), (1, 0));
        let out = apply(&mine, &p);
        assert_eq!(out.entries.len(), 4);
        assert_eq!(out.entries[3].content, "Silver.");
        assert_ne!(out.entries[3].id, 1);
    }

    /// Take theirs on a pair matched by id where one side is a folder and
    /// the other a plain entry: the entry here keeps what it is, and a
    /// folder's entries stay in it (issue 37).
    #[test]
    fn taking_theirs_keeps_whether_the_entry_here_is_a_folder() {
        let mut lore = e(7, "Lore", "");
        lore.folder = true;
        let mut inside = e(8, "Gods", "Many.");
        inside.parent = Some(7);
        let mine = Book {
            entries: vec![lore, inside, e(9, "Sea", "Wet.")],
            ..Book::default()
        };
        let mut sea_folder = e(9, "Sea", "");
        sea_folder.folder = true;
        let theirs = Book {
            entries: vec![e(7, "Lore", "Stories."), sea_folder],
            ..Book::default()
        };
        let take = |id| PairChoice {
            mine: id,
            take: Take::Theirs,
        };
        let choices = MergeChoices {
            pairs: vec![take(7), take(9)],
            ..MergeChoices::default()
        };
        let (p, _) = plan(&mine, &theirs, &choices);
        let out = apply(&mine, &p);
        assert!(out.entry(7).unwrap().folder, "the folder stays a folder");
        assert_eq!(
            out.entry(8).unwrap().parent,
            Some(7),
            "its entry stays in it"
        );
        assert!(!out.entry(9).unwrap().folder, "the plain entry stays plain");
    }
}
