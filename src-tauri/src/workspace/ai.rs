//! What the AI actions need of the workspace (`crate::ai`): the book, the
//! rules in force with their settings and the chat, to check suggestions
//! as the preview would; taking the suggestions the author accepts as one
//! undo step, never changing a locked entry; and locking an entry.

use lorebook_engine::model::Book;
use lorebook_engine::scenario::Settings;

use super::history::Change;
use super::Workspace;
use crate::error::AppError;
use crate::views::Rules;

/// A copy of what an AI action reads, taken under the lock and used
/// outside it.
pub struct AiInputs {
    pub book: Book,
    pub rules: Rules,
    pub settings: Settings,
    pub chat: String,
}

impl Workspace {
    pub fn ai_inputs(&self, doc: u32) -> Result<AiInputs, AppError> {
        let (rules, settings) = self.preview_settings_now();
        Ok(AiInputs {
            book: self.doc(doc)?.book.clone(),
            rules,
            settings,
            chat: self.chat_text.clone(),
        })
    }

    /// Puts `picked` into `doc` as one undo step: each new entry added at
    /// the end, each change applied to its entry as the book holds it now
    /// (its keys, secondary keys and content; the rest kept). A change to
    /// an entry locked or gone since is skipped. Returns the entries added
    /// or changed, in order.
    pub fn ai_accept(
        &mut self,
        doc: u32,
        picked: &[lorebook_ai::Suggestion],
    ) -> Result<Vec<u64>, AppError> {
        let d = self.doc_mut(doc)?;
        let mut after = d.book.clone();
        let mut touched = Vec::new();
        for s in picked {
            if let Some(id) = lorebook_ai::action::apply(&mut after, s) {
                touched.push(id);
            }
        }
        let mut changes = Vec::new();
        let mut added = Vec::new();
        for &id in &touched {
            let new = after.entry(id).expect("an entry just applied").clone();
            match d.position(id) {
                Ok(index) => changes.push(Change::edit(index, &d.book.entries[index], new)),
                Err(_) => added.push(new),
            }
        }
        let start = d.book.entries.len();
        for (k, e) in added.into_iter().enumerate() {
            changes.push(Change::add(start + k, e));
        }
        let applied = d.commit(changes, touched.first().copied());
        self.sync(doc, &applied);
        Ok(touched)
    }

    /// Locks or unlocks entry `id` of `doc` (one undo step): no AI action
    /// changes a locked entry.
    pub fn set_locked(&mut self, doc: u32, id: u64, on: bool) -> Result<(), AppError> {
        let d = self.doc_mut(doc)?;
        let index = d.position(id)?;
        let mut e = d.book.entries[index].clone();
        if e.locked() == on {
            return Ok(());
        }
        e.set_locked(on);
        let applied = d.commit(
            vec![Change::edit(index, &d.book.entries[index], e)],
            Some(id),
        );
        self.sync(doc, &applied);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lorebook_ai::{Draft, Merge, Suggestion};
    use lorebook_engine::model::Entry;

    fn suggestion(name: &str, merge: Merge, target: Option<u64>) -> Suggestion {
        Suggestion {
            entry: Draft {
                name: name.into(),
                keys: vec![name.to_lowercase()],
                secondary_keys: vec![],
                content: format!("About {name}."),
            },
            merge,
            target,
            locked: false,
        }
    }

    #[test]
    fn accepted_suggestions_are_one_undo_step_and_a_locked_entry_is_never_changed() {
        let mut ws = Workspace::default();
        let mut book = Book::default();
        book.add_entry(Entry {
            comment: "Maro".into(),
            keys: vec!["Maro".into()],
            content: "The keeper.".into(),
            ..Entry::default()
        });
        book.add_entry(Entry {
            comment: "Vell".into(),
            keys: vec!["Vell".into()],
            content: "A town.".into(),
            ..Entry::default()
        });
        let doc = ws.add_doc(book, None);
        ws.set_locked(doc, 0, true).unwrap();
        let before = ws.docs[0].book.clone();
        let picked = [
            suggestion("Grey Fleet", Merge::New, None),
            suggestion("Maro", Merge::Changed, Some(0)),
            suggestion("Vell", Merge::Changed, Some(1)),
        ];
        let touched = ws.ai_accept(doc, &picked).unwrap();
        assert_eq!(touched, [2, 1]);
        let b = &ws.docs[0].book;
        assert_eq!(b.entries.len(), 3);
        assert_eq!(
            b.entries[0], before.entries[0],
            "the locked entry is untouched"
        );
        assert_eq!(b.entries[1].content, "About Vell.");
        assert_eq!(b.entries[2].comment, "Grey Fleet");
        ws.undo(doc).unwrap();
        assert_eq!(
            ws.docs[0].book, before,
            "one undo step takes all of it back"
        );
        ws.redo(doc).unwrap();
        assert_eq!(ws.docs[0].book.entries.len(), 3);
        // Unlocking is an edit of its own.
        ws.set_locked(doc, 0, false).unwrap();
        assert!(!ws.docs[0].book.entries[0].locked());
        ws.undo(doc).unwrap();
        assert!(ws.docs[0].book.entries[0].locked());
    }
}
