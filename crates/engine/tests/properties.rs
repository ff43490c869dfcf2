//! Invariants of SPEC §6 and §7, checked on generated books and chats.

use lorebook_engine::formats::native;
use lorebook_engine::model::Role;
use lorebook_engine::placement;
use lorebook_engine::preview::{Preview, Settings};
use proptest::prelude::*;
use serde_json::{json, Value};

mod common;
use common::{arb_book, arb_chat};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn budget_placement_and_determinism(books in prop::collection::vec(arb_book(), 1..3), chat in arb_chat(), seed in 0u64..1000) {
        let settings = Settings { seed, ..Settings::default() };
        let mut p = Preview::new(&books, settings.clone());
        let log = p.log(&chat);
        for (i, r) in log.iter().enumerate() {
            // Every entry is in exactly one list.
            let total: usize = books.iter().map(|b| b.entries.len()).sum();
            prop_assert_eq!(r.injected.len() + r.dropped.len(), total);
            // Kept tokens never exceed the budget unless constants alone do,
            // and then nothing else is kept.
            let used: u32 = r.injected.iter().map(|i| i.tokens).sum();
            prop_assert_eq!(used, r.budget.used);
            if r.budget.over_by_constants {
                prop_assert!(r.injected.iter().all(|i| i.constant));
            } else {
                prop_assert!(used <= r.budget.limit);
            }
            // Placement is a total order: strictly sorted, no ties.
            for w in r.injected.windows(2) {
                let a = (w[0].order, w[0].priority, w[0].book, w[0].id);
                let b = (w[1].order, w[1].priority, w[1].book, w[1].id);
                prop_assert_eq!(placement::compare(a, b), std::cmp::Ordering::Less);
            }
            // Same seed, same result, with or without warm caches.
            let fresh = Preview::new(&books, settings.clone()).request(&chat, i + 1);
            prop_assert_eq!(&fresh, r);
        }
    }

    /// A preview asked to count its plain drops (`count_plain_drops`: no
    /// match without a key given up on, disabled) answers as one that
    /// lists them, with those entries counted instead of listed.
    #[test]
    fn counted_plain_drops_are_the_listed_ones(books in prop::collection::vec(arb_book(), 1..3), chat in arb_chat(), seed in 0u64..1000) {
        use lorebook_engine::explain::DropReason;
        let settings = Settings { seed, ..Settings::default() };
        let listed = Preview::new(&books, settings.clone()).log(&chat);
        let mut p = Preview::new(&books, settings);
        p.count_plain_drops(true);
        let counted = p.log(&chat);
        let last = p.request(&chat, chat.len());
        prop_assert_eq!(counted.last().unwrap_or(&last), &last);
        for (full, short) in listed.iter().zip(&counted) {
            let plain = |d: &&lorebook_engine::explain::Dropped| matches!(d.reason, DropReason::NoMatch { gave_up: None, .. } | DropReason::Disabled);
            let kept: Vec<_> = full.dropped.iter().filter(|d| !plain(d)).cloned().collect();
            prop_assert_eq!(&short.dropped, &kept);
            let disabled = full.dropped.iter().filter(|d| matches!(d.reason, DropReason::Disabled)).count();
            let no_match = full.dropped.iter().filter(plain).count() - disabled;
            prop_assert_eq!(short.unlisted.disabled as usize, disabled);
            prop_assert_eq!(short.unlisted.no_match as usize, no_match);
            prop_assert_eq!(full.unlisted, Default::default());
            prop_assert_eq!(&short.injected, &full.injected);
            prop_assert_eq!(&short.messages, &full.messages);
            prop_assert_eq!(short.budget, full.budget);
        }
    }

    #[test]
    fn save_then_load_is_identity(mut book in arb_book(), name in ".{0,12}", ext in prop::collection::btree_map("[a-z]{1,6}", any::<i32>(), 0..3), whole in any::<bool>(), role in 0u8..3) {
        book.name = name;
        book.extensions = ext.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        book.extra.insert("custom".into(), json!({"nested": [1, "two", null]}));
        for e in &mut book.entries {
            e.whole_words = whole;
            e.role = Role::from_st(role as u64).unwrap();
            e.comment = format!("c{}", e.id);
            e.extensions.insert("depth".into(), json!(4));
            e.extra.insert("position".into(), Value::String("before_char".into()));
        }
        let bytes = native::to_bytes(&book);
        let (back, notes) = native::load(&bytes).unwrap();
        prop_assert!(notes.is_empty());
        prop_assert_eq!(back, book);
    }
}
