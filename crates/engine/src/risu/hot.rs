//! What a pass reads of every entry, kept side by side: one small record
//! an entry and every entry's primary key ids in one list. A request
//! walks the entries in order, five passes on a recursive book; reading
//! these instead of each entry's own fields and key list (each behind
//! its own pointer) keeps the walk in memory the processor fetches ahead.

use super::activation::Known;
use super::matching::KeyIds;
use super::Prepared;

/// An entry as the passes first read it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Hot {
    /// [`Prepared::skippable`].
    pub skippable: bool,
    /// [`Prepared::quick`].
    pub quick: bool,
    pub use_regex: bool,
    pub always_active: bool,
    /// No primary key at all (`key` empty).
    pub key_empty: bool,
    /// `mode: "child"`.
    pub child: bool,
    /// Selective with secondary keys: its secondary query runs.
    pub secondary: bool,
    pub insertorder: f64,
    /// How its decorators are read.
    pub known: Known,
    /// Its primary keys' ids in [`HotTable::primary`].
    primary: (u32, u32),
}

/// Every entry's [`Hot`] record, and their primary key ids.
#[derive(Debug, Clone, Default)]
pub(crate) struct HotTable {
    pub hot: Vec<Hot>,
    primary: Vec<KeyIds>,
}

impl HotTable {
    /// `known`: how each entry's decorators are read.
    pub fn new(entries: &[Prepared], known: &[Known]) -> Self {
        let mut t = HotTable {
            hot: Vec::with_capacity(entries.len()),
            primary: Vec::new(),
        };
        for (p, &known) in entries.iter().zip(known) {
            let start = t.primary.len() as u32;
            t.primary.extend_from_slice(&p.primary.ids);
            t.hot.push(Hot {
                skippable: p.skippable(),
                quick: p.quick,
                use_regex: p.lore.use_regex,
                always_active: p.lore.always_active,
                key_empty: p.lore.key.is_empty(),
                child: p.lore.mode == "child",
                secondary: p.lore.selective && !p.lore.secondkey.is_empty(),
                insertorder: p.lore.insertorder,
                known,
                primary: (start, t.primary.len() as u32),
            });
        }
        t
    }

    /// The primary key ids of entry `i`.
    pub fn primary(&self, i: usize) -> &[KeyIds] {
        let (a, b) = self.hot[i].primary;
        &self.primary[a as usize..b as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::HotTable;
    use crate::model::{Book, Entry};
    use crate::risu::{RisuOptions, RisuPreview, RisuSettings};

    /// Each entry's ids are its own, whatever the lengths of the others'.
    #[test]
    fn each_entry_reads_its_own_primary_ids() {
        let mut book = Book::default();
        for keys in [vec!["a", "b"], vec![], vec!["c"], vec!["a", "d", "e"]] {
            book.add_entry(Entry {
                keys: keys.into_iter().map(String::from).collect(),
                content: "x".into(),
                ..Entry::default()
            });
        }
        let p = RisuPreview::new(&[&book], RisuSettings::default(), RisuOptions::default());
        let known = vec![Default::default(); p.prepared().len()];
        let t = HotTable::new(p.prepared(), &known);
        for (i, e) in p.prepared().iter().enumerate() {
            assert_eq!(t.primary(i), e.primary.ids.as_slice(), "entry {i}");
            assert_eq!(t.hot[i].key_empty, i == 1);
        }
    }
}
