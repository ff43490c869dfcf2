//! Generators shared by the property tests: small books whose keys,
//! flags and decorators cover every kind of key and rule, and short chats
//! over the same words.

// Each test binary uses only some of these.
#![allow(dead_code)]

use lorebook_engine::chat::{self, Message, Speaker};
use lorebook_engine::model::{Book, Entry, Role, SecondaryLogic};
use proptest::prelude::*;

pub const WORDS: &[&str] = &[
    "moon", "sun", "star", "sea", "tower", "Lyra", "東京", "fire",
];

/// Keys: plain words (some capitalized), regex keys, an invalid regex and
/// a blank key, so every kind of key goes through the overlay.
pub const KEYS: &[&str] = &[
    "moon",
    "sun",
    "star",
    "sea",
    "tower",
    "Lyra",
    "東京",
    "fire",
    "Moon",
    "/to+wer/i",
    "/st(a|o)r/",
    "/(bad/",
    "  ",
    "sea fire",
];

pub fn word() -> impl Strategy<Value = String> {
    prop::sample::select(WORDS).prop_map(str::to_string)
}

pub fn key() -> impl Strategy<Value = String> {
    prop::sample::select(KEYS).prop_map(str::to_string)
}

/// The decorator lines an entry may start with.
pub fn decorators() -> impl Strategy<Value = String> {
    (
        prop::option::of(0u8..=100),
        prop::option::of(0u32..5),
        prop::option::of(0u64..4),
        prop::option::of(0i64..5),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(prob, depth, after, order, keep, dont)| {
            let mut s = String::new();
            if let Some(p) = prob {
                s.push_str(&format!("@@probability {p}\n"));
            }
            if let Some(d) = depth {
                s.push_str(&format!("@@scan_depth {d}\n"));
            }
            if let Some(a) = after {
                s.push_str(&format!("@@activate_only_after {a}\n"));
            }
            if let Some(o) = order {
                s.push_str(&format!("@@order {o}\n"));
            }
            if keep {
                s.push_str("@@keep\n");
            }
            if dont {
                s.push_str("@@dont_activate_after_match\n");
            }
            s
        })
}

pub fn arb_entry() -> impl Strategy<Value = Entry> {
    (
        (
            prop::collection::vec(key(), 0..3),
            prop::collection::vec(key(), 0..2),
            any::<bool>(),
            prop::sample::select(vec![
                SecondaryLogic::AndAny,
                SecondaryLogic::AndAll,
                SecondaryLogic::NotAny,
                SecondaryLogic::NotAll,
            ]),
        ),
        (
            prop::bool::weighted(0.15),
            prop::bool::weighted(0.9),
            any::<bool>(),
            prop::bool::weighted(0.2),
            prop::bool::weighted(0.1),
        ),
        (0i64..5, 0i64..5),
        decorators(),
        prop::collection::vec(word(), 1..40),
    )
        .prop_map(
            |(
                (keys, secondary, selective, logic),
                (constant, enabled, whole_words, case_sensitive, use_regex),
                (order, priority),
                decorators,
                body,
            )| Entry {
                keys,
                secondary_keys: secondary,
                selective,
                secondary_logic: logic,
                constant,
                enabled,
                whole_words,
                case_sensitive,
                use_regex,
                order,
                priority,
                role: if order % 2 == 0 {
                    Role::System
                } else {
                    Role::Assistant
                },
                content: decorators + &body.join(" "),
                ..Entry::default()
            },
        )
}

pub fn arb_book() -> impl Strategy<Value = Book> {
    (
        prop::collection::vec(arb_entry(), 0..10),
        100u32..300,
        0u32..6,
        any::<bool>(),
    )
        .prop_map(|(entries, token_budget, scan_depth, recursive_scanning)| {
            let mut b = Book {
                token_budget,
                scan_depth,
                recursive_scanning,
                ..Book::default()
            };
            for e in entries {
                b.add_entry(e);
            }
            b
        })
}

pub fn arb_chat() -> impl Strategy<Value = Vec<Message>> {
    prop::collection::vec((any::<bool>(), prop::collection::vec(word(), 0..6)), 0..6).prop_map(
        |msgs| {
            msgs.into_iter()
                .map(|(user, words)| Message {
                    role: if user {
                        Speaker::User
                    } else {
                        Speaker::Assistant
                    },
                    name: None,
                    text: words.join(" "),
                })
                .collect()
        },
    )
}

// Builders for the data-driven cases.

pub fn entry(id: u64, keys: &[&str], content: &str) -> Entry {
    Entry {
        id,
        keys: keys.iter().map(|k| k.to_string()).collect(),
        content: content.into(),
        ..Entry::default()
    }
}

pub fn book(entries: Vec<Entry>) -> Book {
    Book {
        entries,
        ..Book::default()
    }
}

pub fn chat(text: &str) -> Vec<Message> {
    chat::parse(text, &Default::default()).unwrap().messages
}
