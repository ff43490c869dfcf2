//! Folders in a book (see `lorebook_engine::folders`): make, rename, move
//! into, enable or disable what is inside, delete. Each is one undo step.

use lorebook_engine::folders::Tree;
use lorebook_engine::model::Entry;

use super::history::Change;
use super::Workspace;
use crate::error::AppError;

/// What becomes of a deleted folder's contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum FolderContents {
    /// Moved to the folder's own folder (or the top).
    Keep,
    /// Deleted with it, at any depth.
    Delete,
}

impl Workspace {
    /// Makes a folder named `name` inside `parent` (the top when `None`),
    /// after the book's entries; returns its id.
    pub fn add_folder(
        &mut self,
        doc: u32,
        name: &str,
        parent: Option<u64>,
    ) -> Result<u64, AppError> {
        let d = self.doc_mut(doc)?;
        if let Some(p) = parent {
            folder_at(&d.book.entries, p)?;
        }
        let entry = Entry {
            id: d.book.next_id(),
            comment: name.to_string(),
            folder: true,
            parent,
            ..Entry::default()
        };
        let id = entry.id;
        let applied = d.commit(vec![Change::add(d.book.entries.len(), entry)], None);
        self.sync(doc, &applied);
        Ok(id)
    }

    /// Puts entries and folders `ids` into folder `into` (the top when
    /// `None`). A folder cannot go into itself or a folder inside it.
    pub fn move_to_folder(
        &mut self,
        doc: u32,
        ids: &[u64],
        into: Option<u64>,
    ) -> Result<(), AppError> {
        let d = self.doc_mut(doc)?;
        if let Some(f) = into {
            folder_at(&d.book.entries, f)?;
            let tree = Tree::of(&d.book);
            if let Some(&id) = ids.iter().find(|&&id| tree.within(f, id)) {
                return Err(AppError::folder_into_itself(id, f));
            }
        }
        let mut changes = Vec::new();
        for &id in ids {
            let index = d.position(id)?;
            let before = &d.book.entries[index];
            if before.parent != into {
                let after = Entry {
                    parent: into,
                    ..before.clone()
                };
                changes.push(Change::edit(index, before, after));
            }
        }
        let applied = d.commit(changes, None);
        self.sync(doc, &applied);
        Ok(())
    }

    /// Renames folder `id`.
    pub fn rename_folder(&mut self, doc: u32, id: u64, name: &str) -> Result<(), AppError> {
        let d = self.doc_mut(doc)?;
        let index = folder_at(&d.book.entries, id)?;
        let before = &d.book.entries[index];
        if before.comment == name {
            return Ok(());
        }
        let after = Entry {
            comment: name.to_string(),
            ..before.clone()
        };
        let applied = d.commit(vec![Change::edit(index, before, after)], None);
        self.sync(doc, &applied);
        Ok(())
    }

    /// The entries (not folders) inside folder `id`, at any depth, in the
    /// book's order.
    pub fn folder_entries(&self, doc: u32, id: u64) -> Result<Vec<u64>, AppError> {
        let d = self.doc(doc)?;
        folder_at(&d.book.entries, id)?;
        let tree = Tree::of(&d.book);
        Ok(tree
            .inside(&d.book, id)
            .into_iter()
            .filter(|&e| !tree.is_folder(e))
            .collect())
    }

    /// Enables or disables every entry inside folder `id`, at any depth.
    pub fn set_folder_enabled(&mut self, doc: u32, id: u64, enabled: bool) -> Result<(), AppError> {
        let ids = self.folder_entries(doc, id)?;
        let patch = crate::views::BulkPatch {
            enabled: Some(enabled),
            order: None,
            priority: None,
            st: Vec::new(),
        };
        self.bulk(doc, &ids, &patch)
    }

    /// Deletes folder `id`; its contents go to its own folder (`Keep`) or
    /// are deleted with it (`Delete`).
    pub fn delete_folder(
        &mut self,
        doc: u32,
        id: u64,
        contents: FolderContents,
    ) -> Result<(), AppError> {
        let d = self.doc_mut(doc)?;
        let at = folder_at(&d.book.entries, id)?;
        let tree = Tree::of(&d.book);
        let up = tree.parent(id);
        let mut changes = Vec::new();
        let mut gone = vec![at];
        match contents {
            FolderContents::Keep => {
                for (index, e) in d.book.entries.iter().enumerate() {
                    if tree.parent(e.id) == Some(id) {
                        let after = Entry {
                            parent: up,
                            ..e.clone()
                        };
                        changes.push(Change::edit(index, e, after));
                    }
                }
            }
            FolderContents::Delete => {
                for inside in tree.inside(&d.book, id) {
                    gone.push(d.position(inside)?);
                }
            }
        }
        // The edits first: they move nothing, so the removals' positions
        // hold.
        changes.extend(Change::removals(&d.book.entries, gone));
        let applied = d.commit(changes, None);
        self.sync(doc, &applied);
        Ok(())
    }
}

/// The position of folder `id` among `entries`.
fn folder_at(entries: &[Entry], id: u64) -> Result<usize, AppError> {
    match entries.iter().position(|e| e.id == id) {
        Some(i) if entries[i].folder => Ok(i),
        Some(_) => Err(AppError::not_a_folder(id)),
        None => Err(AppError::entry_not_found(id)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::views::{EntryFilter, ListQuery, SortKey};

    fn names(ws: &mut Workspace, doc: u32) -> Vec<(String, u32)> {
        let q = ListQuery {
            search: String::new(),
            filter: EntryFilter::All,
            sort: SortKey::Id,
            descending: false,
        };
        ws.list(doc, &q)
            .unwrap()
            .into_iter()
            .map(|r| (r.name, r.depth))
            .collect()
    }

    /// Make folders, move entries and folders into them (never a folder
    /// into itself), rename, enable and disable what is inside, delete
    /// keeping or deleting the contents; each one undo step.
    #[test]
    fn folders_are_made_filled_moved_and_deleted_one_undo_step_each() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        let ids: Vec<u64> = ws.docs[0].book.entries.iter().map(|e| e.id).collect();
        let entries = ids.len();
        let places = ws.add_folder(doc, "Places", None).unwrap();
        let inner = ws.add_folder(doc, "Inner", Some(places)).unwrap();
        ws.move_to_folder(doc, &ids[..2], Some(places)).unwrap();
        ws.move_to_folder(doc, &ids[2..3], Some(inner)).unwrap();
        let rows = names(&mut ws, doc);
        assert_eq!(rows[0], ("Places".to_string(), 0));
        assert_eq!(rows[1], ("Inner".to_string(), 1));
        assert_eq!(rows[2].1, 2, "the entry in Inner is two deep");
        assert_eq!(ws.folder_entries(doc, places).unwrap().len(), 3);
        // A folder never goes into itself or a folder inside it.
        let err = ws.move_to_folder(doc, &[places], Some(inner)).unwrap_err();
        assert_eq!(
            err.code,
            ErrorCode::FolderIntoItself {
                id: places,
                into: inner
            }
        );
        let err = ws.move_to_folder(doc, &[places], Some(ids[0])).unwrap_err();
        assert_eq!(err.code, ErrorCode::NotAFolder { id: ids[0] });
        ws.rename_folder(doc, inner, "Harbor").unwrap();
        assert_eq!(names(&mut ws, doc)[1].0, "Harbor");
        ws.set_folder_enabled(doc, places, false).unwrap();
        let book = &ws.doc(doc).unwrap().book;
        assert!(ids[..3].iter().all(|&id| !book.entry(id).unwrap().enabled));
        assert!(book.entry(ids[3]).unwrap().enabled);
        ws.undo(doc).unwrap();
        assert!(ws.doc(doc).unwrap().book.entry(ids[0]).unwrap().enabled);
        // Deleting Places and keeping its contents puts them at the top.
        ws.delete_folder(doc, places, FolderContents::Keep).unwrap();
        let book = &ws.doc(doc).unwrap().book;
        assert_eq!(book.entries.len(), entries + 1);
        assert_eq!(book.entry(inner).unwrap().parent, None);
        assert_eq!(book.entry(ids[0]).unwrap().parent, None);
        ws.undo(doc).unwrap();
        // Deleting it with its contents removes the three entries too.
        ws.delete_folder(doc, places, FolderContents::Delete)
            .unwrap();
        assert_eq!(ws.doc(doc).unwrap().book.entries.len(), entries - 3);
        ws.undo(doc).unwrap();
        let book = &ws.doc(doc).unwrap().book;
        assert_eq!(book.entries.len(), entries + 2);
        assert_eq!(book.entry(ids[2]).unwrap().parent, Some(inner));
    }
}
