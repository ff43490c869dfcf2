//! "Merge a book into this one" (issue 22): the other book read from any
//! importable file, matched entry by entry with the shown book
//! (`lorebook_engine::compare`), shown in three groups, and the author's
//! choices applied as one undo step (`lorebook_engine::merge`).

use std::path::Path;

use lorebook_engine::compare::compare;
use lorebook_engine::merge::{self, MergeChoices, MergeSummary};
use lorebook_engine::model::Book;

use super::history::Change;
use super::Workspace;
use crate::error::{read_book_file, AppError, ErrorCode};
use crate::views::{MergeAlone, MergeField, MergePair, MergeView};

/// The other book of the merge being decided.
#[derive(Debug)]
pub(super) struct PendingMerge {
    doc: u32,
    file: String,
    theirs: Book,
}

/// A field's value as the merge view shows it: a text as it is, anything
/// else as compact JSON.
fn shown(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

impl Workspace {
    /// Reads `path` (any importable file, or a book's folder) as the book
    /// to merge into `doc`, and answers the three groups.
    pub fn merge_from(&mut self, doc: u32, path: &Path) -> Result<MergeView, AppError> {
        self.doc(doc)?;
        let theirs = if path.is_dir() {
            super::disk::read_folder(path)?.0
        } else {
            let bytes = read_book_file(path)?;
            lorebook_engine::formats::import(&bytes)
                .map_err(|e| AppError::not_a_book(path, &e))?
                .book
        };
        let file = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        self.merging = Some(PendingMerge { doc, file, theirs });
        self.merge_view(doc)
    }

    /// The groups of the merge being decided for `doc`.
    pub fn merge_view(&self, doc: u32) -> Result<MergeView, AppError> {
        let m = self.pending_merge(doc)?;
        let mine = &self.doc(doc)?.book;
        let c = compare(mine, &m.theirs);
        let alone = |a: &lorebook_engine::compare::Alone| MergeAlone {
            id: a.id,
            name: a.name.clone(),
        };
        Ok(MergeView {
            doc,
            file: m.file.clone(),
            only_theirs: c.only_b.iter().map(alone).collect(),
            only_mine: c.only_a.iter().map(alone).collect(),
            different: c
                .different
                .iter()
                .map(|p| MergePair {
                    mine: p.a,
                    theirs: p.b,
                    name: p.name.clone(),
                    by: p.by.to_string(),
                    fields: p
                        .fields
                        .iter()
                        .map(|f| MergeField {
                            field: f.field.clone(),
                            mine: shown(&f.a),
                            theirs: shown(&f.b),
                        })
                        .collect(),
                })
                .collect(),
            same: c.same as u32,
        })
    }

    fn pending_merge(&self, doc: u32) -> Result<&PendingMerge, AppError> {
        self.merging
            .as_ref()
            .filter(|m| m.doc == doc)
            .ok_or_else(|| {
                AppError::invalid(
                    "no merge is waiting for this book",
                    ErrorCode::NoMergePending { doc },
                )
            })
    }

    /// Applies the author's choices to `doc` as one undo step, and ends
    /// the merge.
    pub fn apply_merge(
        &mut self,
        doc: u32,
        choices: &MergeChoices,
    ) -> Result<MergeSummary, AppError> {
        let m = self.pending_merge(doc)?;
        let (plan, summary) = merge::plan(&self.doc(doc)?.book, &m.theirs, choices);
        self.merging = None;
        let d = self.doc_mut(doc)?;
        let mut changes = Vec::new();
        for e in plan.replace {
            let index = d.position(e.id)?;
            changes.push(Change::edit(index, &d.book.entries[index], e));
        }
        // Then the removals (the edits moved nothing), then the additions
        // after what is left.
        let gone: Vec<usize> = plan
            .delete
            .iter()
            .map(|&id| d.position(id))
            .collect::<Result<_, _>>()?;
        let removals = Change::removals(&d.book.entries, gone);
        let start = d.book.entries.len() - removals.len();
        changes.extend(removals);
        for (k, e) in plan.add.into_iter().enumerate() {
            changes.push(Change::add(start + k, e));
        }
        let applied = d.commit(changes, None);
        self.sync(doc, &applied);
        Ok(summary)
    }

    /// Drops the merge being decided.
    pub fn cancel_merge(&mut self) {
        self.merging = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lorebook_engine::merge::{PairChoice, Take};
    use lorebook_engine::model::Entry;

    /// The other file's groups, then the choices applied as one undo step.
    #[test]
    fn a_merge_lists_the_groups_and_applies_the_choices_as_one_step() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        let mut theirs = ws.doc(doc).unwrap().book.clone();
        let before = theirs.clone();
        theirs.entries.remove(9);
        theirs.entries[1].content = "A brighter lighthouse.".into();
        theirs.entries.push(Entry {
            id: 50,
            comment: "Smugglers".into(),
            keys: vec!["smugglers".into()],
            content: "They land at night.".into(),
            ..Entry::default()
        });
        let path = std::env::temp_dir().join(format!("lbs-merge-{}.json", std::process::id()));
        std::fs::write(&path, lorebook_engine::formats::native::to_bytes(&theirs)).unwrap();
        let view = ws.merge_from(doc, &path).unwrap();
        assert_eq!(view.only_theirs.len(), 1);
        assert_eq!(view.only_theirs[0].name, "Smugglers");
        assert_eq!(view.only_mine.len(), 1);
        assert_eq!(view.different.len(), 1);
        assert_eq!(view.different[0].fields[0].field, "content");
        assert_eq!(view.different[0].fields[0].theirs, "A brighter lighthouse.");
        assert_eq!(view.same, 8);
        let mine_id = view.different[0].mine;
        let choices = MergeChoices {
            add: vec![view.only_theirs[0].id],
            delete: vec![view.only_mine[0].id],
            pairs: vec![PairChoice {
                mine: mine_id,
                take: Take::Theirs,
            }],
        };
        let summary = ws.apply_merge(doc, &choices).unwrap();
        assert_eq!(
            summary,
            MergeSummary {
                added: 1,
                replaced: 1,
                kept_both: 0,
                deleted: 1
            }
        );
        let book = &ws.doc(doc).unwrap().book;
        assert_eq!(book.entries.len(), 10);
        assert_eq!(
            book.entry(mine_id).unwrap().content,
            "A brighter lighthouse."
        );
        assert!(book.entries.iter().any(|e| e.comment == "Smugglers"));
        // The merge is over, and one undo takes it all back.
        assert!(ws.merge_view(doc).is_err());
        ws.undo(doc).unwrap();
        assert_eq!(ws.doc(doc).unwrap().book, before);
        let _ = std::fs::remove_file(&path);
    }
}
