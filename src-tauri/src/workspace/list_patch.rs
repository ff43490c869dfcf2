//! The entry list sent as a change to the one the UI holds (`ListPatch`):
//! after a move, an undo or a bulk edit of a 10,000-entry book, a few rows
//! and the order cross the IPC boundary instead of every row, and the rows
//! the UI keeps keep their identity, so it paints only what changed.
//!
//! **Invariant:** the UI's list after applying a patch is the list
//! [`Workspace::list`] made. A patch is made only against the list last
//! sent, for the same book, when the UI says that is the one it has; the
//! token counts the UI fills in afterwards (`count_list_tokens`) are
//! written into that list too, and rows the UI changed on its own (an
//! entry edit's row) are sent again whatever they are.

use std::collections::{HashMap, HashSet};

use super::Workspace;
use crate::error::AppError;
use crate::views::{EntryRow, ListPatch, ListQuery, RowTokens};

/// `rows`, the list of book `doc`, as a change to `sent` when `have` names
/// it; `sent` becomes this list. `changed`: the rows the UI changed since.
pub(super) fn patch(
    sent: &mut (u64, u32, Vec<EntryRow>),
    doc: u32,
    rows: Vec<EntryRow>,
    have: Option<u64>,
    changed: &[u64],
) -> ListPatch {
    let (last_rev, last_doc, last) = &*sent;
    let rev = last_rev.wrapping_add(1);
    let out = if have == Some(*last_rev) && *last_doc == doc && *last_rev != 0 {
        let before: HashMap<u64, &EntryRow> = last.iter().map(|r| (r.id, r)).collect();
        let changed: HashSet<u64> = changed.iter().copied().collect();
        let same_order =
            last.len() == rows.len() && last.iter().zip(&rows).all(|(a, b)| a.id == b.id);
        ListPatch {
            rev,
            base: have,
            rows: rows
                .iter()
                .filter(|r| changed.contains(&r.id) || before.get(&r.id) != Some(r))
                .cloned()
                .collect(),
            order: (!same_order).then(|| rows.iter().map(|r| r.id).collect()),
        }
    } else {
        ListPatch {
            rev,
            base: None,
            rows: rows.clone(),
            order: None,
        }
    };
    *sent = (rev, doc, rows);
    out
}

impl Workspace {
    /// Counts the UI fills into the rows of the list last sent
    /// (`count_list_tokens`), so that the list held there is the list
    /// held in the UI: a later list where such a count is missing again
    /// (the model changed, the body changed and is not counted yet) then
    /// differs and is sent.
    pub(super) fn counted_into_sent_list(&mut self, doc: u32, counts: &[RowTokens]) {
        if self.sent_list.1 != doc || counts.is_empty() {
            return;
        }
        let counted: HashMap<u64, u32> = counts.iter().map(|c| (c.id, c.tokens)).collect();
        for r in &mut self.sent_list.2 {
            if r.tokens.is_none() {
                r.tokens = counted.get(&r.id).copied();
            }
        }
    }

    /// The entry list of `doc` ([`Workspace::list`]) as a change to the
    /// list the UI has (`have`, the `rev` of the last patch it applied),
    /// with the rows it changed on its own since (`changed`).
    pub fn list_patch(
        &mut self,
        doc: u32,
        q: &ListQuery,
        have: Option<u64>,
        changed: &[u64],
    ) -> Result<ListPatch, AppError> {
        let rows = self.list(doc, q)?;
        Ok(patch(&mut self.sent_list, doc, rows, have, changed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64, name: &str) -> EntryRow {
        EntryRow {
            id,
            name: name.into(),
            keys: String::new(),
            enabled: true,
            constant: false,
            order: 0,
            priority: 0,
            tokens: None,
            diagnostics: 0,
            severity: None,
            folder: false,
            parent: None,
            depth: 0,
            inside: None,
            inside_tokens: None,
        }
    }

    /// What the UI does with a patch: the rows it has, changed.
    fn apply(have: &[EntryRow], p: &ListPatch) -> Vec<EntryRow> {
        if p.base.is_none() {
            return p.rows.clone();
        }
        let mut by: HashMap<u64, EntryRow> = have.iter().map(|r| (r.id, r.clone())).collect();
        by.extend(p.rows.iter().map(|r| (r.id, r.clone())));
        let order: Vec<u64> = p
            .order
            .clone()
            .unwrap_or_else(|| have.iter().map(|r| r.id).collect());
        order.iter().map(|id| by[id].clone()).collect()
    }

    #[test]
    fn a_patch_sends_what_changed_and_applied_gives_the_new_list() {
        let mut sent = (0, 0, Vec::new());
        let first = vec![row(1, "a"), row(2, "b"), row(3, "c")];
        let p = patch(&mut sent, 7, first.clone(), None, &[]);
        assert_eq!((p.base, p.rows.len()), (None, 3), "no base: the whole list");
        let ui = apply(&[], &p);
        assert_eq!(ui, first);
        // One row edited: only it, the order kept.
        let mut second = first.clone();
        second[1].name = "B".into();
        let p2 = patch(&mut sent, 7, second.clone(), Some(p.rev), &[]);
        assert_eq!(p2.base, Some(p.rev));
        assert_eq!(p2.rows, [second[1].clone()]);
        assert_eq!(p2.order, None);
        let ui = apply(&ui, &p2);
        assert_eq!(ui, second);
        // A row moved and one removed: the order, and no row.
        let third = vec![second[2].clone(), second[0].clone()];
        let p3 = patch(&mut sent, 7, third.clone(), Some(p2.rev), &[]);
        assert!(p3.rows.is_empty());
        assert_eq!(p3.order, Some(vec![3, 1]));
        let ui = apply(&ui, &p3);
        assert_eq!(ui, third);
        // A row the UI changed on its own is sent again, unchanged here.
        let p4 = patch(&mut sent, 7, third.clone(), Some(p3.rev), &[1]);
        assert_eq!(p4.rows, [third[1].clone()]);
        // A list the UI does not have, or another book's: the whole list.
        let p5 = patch(&mut sent, 7, third.clone(), Some(p3.rev), &[]);
        assert_eq!(p5.base, None);
        let p6 = patch(&mut sent, 8, third.clone(), Some(p5.rev), &[]);
        assert_eq!(p6.base, None);
    }

    /// Counts filled in after a list are part of the list held: a later
    /// list where the count is missing again (a new model) sends the row.
    #[test]
    fn counts_filled_in_count_as_held() {
        let mut ws = Workspace::default();
        let p = patch(
            &mut ws.sent_list,
            3,
            vec![row(1, "a"), row(2, "b")],
            None,
            &[],
        );
        ws.counted_into_sent_list(3, &[RowTokens { id: 2, tokens: 40 }]);
        ws.counted_into_sent_list(9, &[RowTokens { id: 1, tokens: 5 }]);
        assert_eq!(ws.sent_list.2[1].tokens, Some(40));
        assert_eq!(ws.sent_list.2[0].tokens, None, "another book's counts");
        let again = patch(
            &mut ws.sent_list,
            3,
            vec![row(1, "a"), row(2, "b")],
            Some(p.rev),
            &[],
        );
        assert_eq!(again.rows, [row(2, "b")], "its count is missing again");
    }
}
