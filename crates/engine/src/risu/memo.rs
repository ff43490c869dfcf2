//! The last single request's answer, kept so that asking again after an
//! edit that finds the same keys costs no new passes (typing in the chat
//! box mostly adds letters that complete no key).
//!
//! Under RisuAI's rules a request's answer depends on its messages only
//! through (1) the keys found in each message ([`Hits`]) and (2) the
//! regex searches its regex-key entries ran over the raw texts. The
//! passes, the recursion, the budget and the order follow from those, the
//! entries and the settings, and, for a book whose entries keep
//! after-match state, the state the requests before left ([`RisuState`]).
//! So when a new request has the same number of messages, each message
//! finds the same keys as before, and every regex search that read a
//! changed message finds the same thing again (searched over the same
//! recursive texts, which by the same argument are the same), the answer
//! is the one before. A book that keeps state is never answered from the
//! memo. The property test
//! `a_request_answered_from_the_memo_is_a_fresh_request` in
//! `crates/engine/tests/risu_props.rs` compares the two.

use std::sync::Arc;

use super::matching::{regex_search, Hits};
use super::texts::{QuerySlot, RegexSearch};
use super::{Prepared, RisuResult};

/// What the last request read, and its answer.
pub(crate) struct Memo {
    pub k: usize,
    /// Each message's content hash and keys.
    pub messages: Vec<(u64, Arc<Hits>)>,
    /// The entries whose bodies were the recursive texts, in the order
    /// they were added (the memo is dropped when an entry changes).
    pub recursive: Vec<usize>,
    pub regex_searches: Vec<RegexSearch>,
    pub result: RisuResult,
}

impl Memo {
    /// Whether a request of `k` messages (`texts`, with their content
    /// hashes and keys) answers as the memo's.
    pub fn answers(
        &self,
        k: usize,
        texts: &[&str],
        messages: &[(u64, Arc<Hits>)],
        entries: &[Prepared],
    ) -> bool {
        if self.k != k || self.messages.len() != messages.len() {
            return false;
        }
        // The last message whose text changed (finding the same keys).
        let mut last_changed = None;
        let pairs = self.messages.iter().zip(messages);
        for (i, ((was_hash, was_hits), (hash, hits))) in pairs.enumerate() {
            if was_hash == hash {
                continue;
            }
            if !(Arc::ptr_eq(was_hits, hits) || was_hits == hits) {
                return false;
            }
            last_changed = Some(i);
        }
        let Some(last_changed) = last_changed else {
            return true;
        };
        // A search whose window starts after every changed message read
        // the same texts: only the others run again.
        self.regex_searches
            .iter()
            .filter(|s| s.start <= last_changed)
            .all(|s| {
                let keys = match s.query {
                    QuerySlot::Primary => &entries[s.source].primary.raw,
                    QuerySlot::Secondary => &entries[s.source].secondary.raw,
                    QuerySlot::Line(l) => &entries[s.source].deco_keys[l].raw,
                };
                let rec = self.recursive[..s.recursive.unwrap_or(0)]
                    .iter()
                    .map(|&s| &*entries[s].body);
                regex_search(keys, texts[s.start..].iter().copied().chain(rec)) == s.end
            })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{RisuOptions, RisuPreview, RisuSettings, RisuState};
    use crate::chat::{Message, Speaker};
    use crate::formats;

    fn preview(entries: serde_json::Value) -> RisuPreview {
        let book = formats::import_value(serde_json::json!({"type": "risu", "data": entries}))
            .unwrap()
            .book;
        RisuPreview::new(&[&book], RisuSettings::default(), RisuOptions::default())
    }

    fn chat(texts: &[&str]) -> Vec<Message> {
        let message = |t: &&str| Message {
            role: Speaker::User,
            name: None,
            text: t.to_string(),
        };
        texts.iter().map(message).collect()
    }

    /// Whether the preview's memo answers `texts` as a request of them all.
    fn answered(p: &mut RisuPreview, texts: &[&str]) -> bool {
        let c = chat(texts);
        let (messages, keyed) = p.messages(&c, c.len());
        let memo = p.memo.as_ref().expect("a request was made");
        memo.answers(c.len(), &messages, &keyed, &p.entries)
    }

    fn entry(key: &str, regex: bool) -> serde_json::Value {
        serde_json::json!({"key": key, "content": "Body.", "insertorder": 100,
            "alwaysActive": false, "selective": false, "secondkey": "",
            "comment": key, "mode": "normal", "useRegex": regex})
    }

    /// loadLoreBookV3Prompt reads the messages through the keys they hold:
    /// letters that complete no key leave the answer as it was; a new
    /// key, another message count or a changed regex search do not.
    #[test]
    fn the_memo_answers_only_an_edit_that_finds_the_same_keys() {
        let mut p = preview(serde_json::json!([entry("apple", false)]));
        p.request(&chat(&["hi", "an apple"]), 2, &mut RisuState::default());
        assert!(answered(&mut p, &["hi", "an apple"]));
        assert!(answered(&mut p, &["hi there", "an apple pie"]));
        assert!(!answered(&mut p, &["an apple", "an apple"]));
        assert!(!answered(&mut p, &["hi", "a pear"]));
        assert!(!answered(&mut p, &["hi"]));

        let mut p = preview(serde_json::json!([entry("/pear/i", true)]));
        p.request(&chat(&["a pear"]), 1, &mut RisuState::default());
        // 460ecae's search keeps the slash: "/pear" is what it looks for.
        assert!(answered(&mut p, &["a pear too"]));
        assert!(!answered(&mut p, &["a /pear"]));
    }
}
