//! The preview follows the tab shown. Each open book keeps its own chat
//! and its own choice of books the preview runs on: showing a book puts
//! the one shown before away (its chat, the books attached to it) and
//! brings the shown book's back. A book opened beside others joins no
//! preview until its tab is shown, or until the author attaches it to the
//! shown book's preview.
//!
//! The chat box's sends name the book they were typed for, so a keystroke
//! still on its way when the tab changes lands in its own book's chat,
//! never in the next one's.

use super::Workspace;
use crate::error::AppError;

impl Workspace {
    /// The book whose tab is shown, if any.
    pub fn shown(&self) -> Option<u32> {
        self.shown
    }

    /// Shows book `doc`: the preview runs on it, with its own chat and the
    /// books attached to it when it was shown last (itself alone the first
    /// time).
    pub fn show(&mut self, doc: u32) -> Result<(), AppError> {
        self.doc(doc)?;
        if self.shown == Some(doc) {
            return Ok(());
        }
        let attached: Vec<u32> = self
            .docs
            .iter()
            .filter(|d| d.attached)
            .map(|d| d.id)
            .collect();
        if let Some(before) = self.shown {
            let chat = std::mem::take(&mut self.chat_text);
            if let Ok(d) = self.doc_mut(before) {
                d.chat = Some(chat);
                d.with = Some(attached);
            }
        }
        let target = self.doc_mut(doc)?;
        let chat = target.chat.take().unwrap_or_default();
        let with = target.with.take().unwrap_or_else(|| vec![doc]);
        for d in &mut self.docs {
            d.attached = with.contains(&d.id);
        }
        self.shown = Some(doc);
        self.set_chat(chat);
        self.books_changed();
        Ok(())
    }

    /// Whether a chat send typed for book `doc` (`None`: for whatever is
    /// shown) is for the shown book's chat.
    pub fn chat_is_shown(&self, doc: Option<u32>) -> bool {
        doc.is_none() || doc == self.shown || self.shown.is_none()
    }

    /// Sets the chat of book `doc` (`None`: the shown one's). A book not
    /// shown keeps the text for its tab; a book closed meanwhile, nothing.
    pub fn set_chat_of(&mut self, doc: Option<u32>, text: String) {
        match doc {
            Some(id) if !self.chat_is_shown(doc) => {
                if let Ok(d) = self.doc_mut(id) {
                    d.chat = Some(text);
                }
            }
            _ => self.set_chat(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lorebook_engine::model::{Book, Entry};

    fn book(name: &str, key: &str) -> Book {
        Book {
            name: name.into(),
            entries: vec![Entry {
                id: 1,
                comment: format!("{name} entry"),
                keys: vec![key.into()],
                content: format!("About {key}."),
                ..Entry::default()
            }],
            ..Book::default()
        }
    }

    fn attached(ws: &Workspace) -> Vec<u32> {
        ws.docs
            .iter()
            .filter(|d| d.attached)
            .map(|d| d.id)
            .collect()
    }

    /// `Workspace::show`: a second book opens detached; showing it runs
    /// the preview on it alone with its own (empty) chat, and showing the
    /// first again brings back the first's chat and books.
    #[test]
    fn show_swaps_the_preview_to_the_shown_book_and_its_own_chat() {
        let mut ws = Workspace::default();
        let a = ws.add_doc(book("Harbor", "harbor"), None);
        ws.set_chat_of(Some(a), "User: the harbor".into());
        let b = ws.add_doc(book("Forest", "forest"), None);
        assert_eq!(attached(&ws), vec![a], "opening a book attaches it nowhere");
        assert_eq!(ws.shown(), Some(a));

        ws.show(b).unwrap();
        assert_eq!(attached(&ws), vec![b]);
        assert_eq!(ws.chat_text, "", "a book's first chat is its own, empty");
        ws.set_chat_of(Some(b), "User: the forest".into());
        ws.set_attached(a, true).unwrap();

        ws.show(a).unwrap();
        assert_eq!(ws.chat_text, "User: the harbor");
        assert_eq!(attached(&ws), vec![a], "b's attachments stay b's");
        ws.show(b).unwrap();
        assert_eq!(ws.chat_text, "User: the forest");
        assert_eq!(
            attached(&ws),
            vec![a, b],
            "what the author attached to b comes back with b"
        );
    }

    /// `Workspace::set_chat_of`: a send typed for a book no longer shown
    /// lands in that book's chat, not in the shown one's.
    #[test]
    fn a_late_chat_send_lands_in_its_own_book() {
        let mut ws = Workspace::default();
        let a = ws.add_doc(book("Harbor", "harbor"), None);
        let b = ws.add_doc(book("Forest", "forest"), None);
        ws.show(b).unwrap();
        ws.set_chat_of(Some(a), "User: late harbor text".into());
        assert_eq!(ws.chat_text, "");
        assert!(!ws.chat_is_shown(Some(a)));
        ws.show(a).unwrap();
        assert_eq!(ws.chat_text, "User: late harbor text");
        assert_eq!(ws.chat.len(), 1, "the chat read again when shown");
    }

    /// `Workspace::close`: closing the shown book shows the first one left,
    /// with its own chat; the closed book's chat goes with it.
    #[test]
    fn closing_the_shown_book_shows_the_next_with_its_chat() {
        let mut ws = Workspace::default();
        let a = ws.add_doc(book("Harbor", "harbor"), None);
        ws.set_chat_of(Some(a), "User: the harbor".into());
        let b = ws.add_doc(book("Forest", "forest"), None);
        ws.show(b).unwrap();
        ws.set_chat_of(Some(b), "User: the forest".into());
        ws.close(b).unwrap();
        assert_eq!(ws.shown(), Some(a));
        assert_eq!(attached(&ws), vec![a]);
        assert_eq!(ws.chat_text, "User: the harbor");
        ws.close(a).unwrap();
        assert_eq!(ws.shown(), None);
        let c = ws.add_doc(book("Sea", "sea"), None);
        assert_eq!(
            (ws.shown(), attached(&ws)),
            (Some(c), vec![c]),
            "a book opened alone is shown"
        );
    }

    /// `Workspace::open_sample` beside a shown book: the sample's chat
    /// waits for its tab, the shown book's chat is untouched.
    #[test]
    fn the_sample_opened_beside_a_book_keeps_its_chat_for_its_tab() {
        let mut ws = Workspace::default();
        let a = ws.add_doc(book("Harbor", "harbor"), None);
        let s = ws.open_sample().unwrap();
        assert_eq!(ws.chat_text, "");
        ws.show(s).unwrap();
        assert_eq!(ws.chat_text, super::super::SAMPLE_CHAT);
        ws.show(a).unwrap();
        assert_eq!(ws.chat_text, "");
    }
}
