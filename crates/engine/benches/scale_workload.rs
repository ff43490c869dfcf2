//! The workloads of issue 8's "matcher and log at scale", built in code
//! from the generator of `workload.rs`: many entries sharing the key `e`,
//! many regex keys, and a very long chat through the request log.

use lorebook_engine::chat::{Message, Speaker};
use lorebook_engine::model::{Book, Entry};

// Only the generator of the issue 2 workload is used here, not its book.
#[allow(dead_code)]
#[path = "workload.rs"]
mod workload;

use workload::{text, word, Rng};

/// `n` messages of about `len` bytes of prose that mentions `keys`.
pub fn chat(n: usize, len: usize, keys: &[String]) -> Vec<Message> {
    let mut rng = Rng::new(0xC4A7);
    (0..n)
        .map(|i| Message {
            role: if i % 2 == 0 {
                Speaker::User
            } else {
                Speaker::Assistant
            },
            name: None,
            text: text(&mut rng, len, keys),
        })
        .collect()
}

/// A book of `n` entries made by `entry` (given the entry number and the
/// generator), scanning `depth` messages.
fn book(n: u64, depth: u32, mut entry: impl FnMut(u64, &mut Rng) -> Entry) -> Book {
    let mut rng = Rng::new(0x5CA1E);
    let mut book = Book {
        name: "Scale".into(),
        scan_depth: depth,
        token_budget: 4000,
        ..Book::default()
    };
    // Ids are given here: `Book::add_entry` looks for the next free id in
    // every entry, which is quadratic over 100,000 entries.
    book.entries = (0..n)
        .map(|i| Entry {
            id: i,
            ..entry(i, &mut rng)
        })
        .collect();
    book
}

/// 100,000 entries all keyed `e` with whole words off, scanning the whole
/// 200-message chat: every entry matches every message.
pub fn e_book() -> Book {
    book(100_000, 200, |i, _| Entry {
        comment: format!("Entry {i}"),
        keys: vec!["e".into()],
        whole_words: false,
        content: format!("Entry {i} says e."),
        ..Entry::default()
    })
}

/// 10,000 entries, each keyed by its own regex (a made-up name with an
/// optional plural), scanning the last 8 messages.
pub fn regex_book() -> Book {
    book(10_000, 8, |i, rng| Entry {
        comment: format!("Entry {i}"),
        keys: vec![format!("/{}{i}(s|es)?/i", word(rng))],
        content: text(rng, 300, &[]),
        ..Entry::default()
    })
}

/// 1,000 entries with three plain keys each, scanning the last 8 messages.
pub fn log_book() -> Book {
    book(1_000, 8, |i, rng| Entry {
        comment: format!("Entry {i}"),
        keys: (0..3).map(|_| word(rng)).collect(),
        content: text(rng, 300, &[]),
        ..Entry::default()
    })
}

/// The names `book`'s keys match (a regex key's literal part), for chats
/// that mention them.
pub fn names(book: &Book) -> Vec<String> {
    book.entries
        .iter()
        .flat_map(|e| e.keys.iter())
        .map(|k| {
            k.trim_start_matches('/')
                .split('(')
                .next()
                .unwrap_or(k)
                .to_string()
        })
        .collect()
}
