//! Helpers shared by the engine's test binaries: generators for the
//! property tests (small books whose keys, flags and decorators cover every
//! kind of key and rule, and short chats over the same words), builders
//! for the data-driven cases, SillyTavern-rules previews, a time limit and
//! hand-made PNG cards.

// Each test binary uses only some of these.
#![allow(dead_code)]

use std::time::Duration;

use lorebook_engine::chat::{self, Message, Speaker};
use lorebook_engine::formats;
use lorebook_engine::model::{Book, Entry, Role, SecondaryLogic};
use lorebook_engine::sillytavern::{Names, StOptions, StPreview, StSettings};
use proptest::prelude::*;
use serde_json::{json, Value};

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

// SillyTavern-rules previews.

/// The fields SillyTavern's editor gives a new entry (the scan itself
/// back-fills nothing: an entry without `position` is placed nowhere).
pub fn st_template() -> Value {
    json!({"key": [], "keysecondary": [], "selective": true, "selectiveLogic": 0, "order": 100,
           "position": 0, "probability": 100, "useProbability": true, "depth": 4, "role": 0})
}

/// A SillyTavern world of `entries` (a JSON list), read as a book: each
/// entry is the editor's template with the given fields over it, its `uid`
/// its place in the list unless given; with `numbered`, an entry without
/// `content` reads "Entry {uid}.".
pub fn st_book(entries: &Value, numbered: bool) -> Book {
    let mut map = serde_json::Map::new();
    for (i, given) in entries.as_array().unwrap().iter().enumerate() {
        let mut e = st_template();
        for (k, v) in given.as_object().unwrap() {
            e[k] = v.clone();
        }
        let uid = e.get("uid").and_then(Value::as_u64).unwrap_or(i as u64);
        e["uid"] = json!(uid);
        if numbered && e.get("content").is_none() {
            e["content"] = json!(format!("Entry {uid}."));
        }
        map.insert(uid.to_string(), e);
    }
    formats::import_value(json!({ "entries": map }))
        .unwrap()
        .book
}

/// A SillyTavern-rules preview of `book` alone, for Tom (the user) and
/// Mira (the character), with `settings` (SillyTavern's names) and `seed`
/// for the probability rolls.
pub fn st_preview(book: &Book, settings: &Value, seed: u64) -> StPreview {
    let options = StOptions {
        names: Names {
            user: "Tom".into(),
            char: "Mira".into(),
            ..Default::default()
        },
        seed,
        ..StOptions::default()
    };
    let settings = StSettings::from_value(settings).unwrap();
    StPreview::new(&[("world".into(), book)], settings, options).unwrap()
}

/// Messages alternating Tom (user) and Mira, oldest first.
pub fn tom_and_mira(texts: &[&str]) -> Vec<Message> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| Message {
            role: if i % 2 == 0 {
                Speaker::User
            } else {
                Speaker::Assistant
            },
            name: Some(if i % 2 == 0 { "Tom" } else { "Mira" }.into()),
            text: t.to_string(),
        })
        .collect()
}

/// Runs `f` on a thread of its own (the default 2 MiB stack, as the app's
/// worker threads); the test fails, instead of hanging, when `f` takes
/// longer than `limit`.
pub fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit)
        .unwrap_or_else(|_| panic!("did not finish within {limit:?}"))
}

// PNG cards.

/// A PNG file: the signature, a 1×1 `IHDR`, the chunks `(kind, data)`
/// given, and `IEND`, each with its length and CRC.
pub fn png(chunks: &[(&[u8], Vec<u8>)]) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |kind: &[u8], data: &[u8]| {
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        out.extend((data.len() as u32).to_be_bytes());
        out.extend(&body);
        out.extend(crc32fast::hash(&body).to_be_bytes());
    };
    chunk(b"IHDR", &[0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);
    for (kind, data) in chunks {
        chunk(kind, data);
    }
    chunk(b"IEND", &[]);
    out
}

/// A `tEXt` chunk holding `card` as a card reader finds it: `keyword`, a
/// NUL, then the base64 of the JSON.
pub fn card_chunk(keyword: &str, card: &Value) -> (&'static [u8], Vec<u8>) {
    use base64::Engine;
    let mut data = keyword.as_bytes().to_vec();
    data.push(0);
    data.extend(
        base64::engine::general_purpose::STANDARD
            .encode(card.to_string())
            .bytes(),
    );
    (b"tEXt", data)
}
