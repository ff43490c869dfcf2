//! The benchmark workload (issue 2): 10,000 entries with about 30,000 keys
//! (1% regex, half whole-word, 10% case-sensitive), bodies of 200–1,500
//! characters, and a chat of 200 messages of about 500 bytes. Generated
//! deterministically so every run measures the same thing.

use lorebook_engine::chat::{Message, Speaker};
use lorebook_engine::model::{Book, Entry};

/// A small deterministic generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

const SYLLABLES: &[&str] = &[
    "ka", "ri", "mo", "ven", "tal", "sor", "eth", "ul", "bra", "nis", "dor", "ae", "lun", "qui",
    "zar", "fel", "gor", "hal", "ith", "jor", "mar", "nel", "ost", "pra", "rho", "sel", "tur",
    "vel", "wyn", "yl", "zen", "cai",
];

/// A made-up word of `min`–`max` syllables.
pub fn word_of(rng: &mut Rng, min: u64, max: u64) -> String {
    let n = min + rng.below(max - min + 1);
    (0..n)
        .map(|_| SYLLABLES[rng.below(SYLLABLES.len() as u64) as usize])
        .collect()
}

/// A key: a name of 3–4 syllables, like the proper nouns lorebooks key on.
pub fn word(rng: &mut Rng) -> String {
    word_of(rng, 3, 4)
}

/// Prose of about `len` characters: common 1–2 syllable words, with a key
/// from `keys` mentioned now and then (about one per 300 characters).
pub fn text(rng: &mut Rng, len: usize, keys: &[String]) -> String {
    let mut s = String::with_capacity(len + 16);
    while s.len() < len {
        if !s.is_empty() {
            s.push(if rng.below(12) == 0 { '.' } else { ' ' });
            if s.ends_with('.') {
                s.push(' ');
            }
        }
        if !keys.is_empty() && rng.below(50) == 0 {
            s.push_str(&keys[rng.below(keys.len() as u64) as usize]);
        } else {
            s.push_str(&word_of(rng, 1, 2));
        }
    }
    s
}

/// The plain keys of the workload book, for texts that mention them.
pub fn plain_keys(book: &Book) -> Vec<String> {
    book.entries
        .iter()
        .flat_map(|e| e.keys.iter())
        .filter(|k| !k.starts_with('/'))
        .cloned()
        .collect()
}

/// The 10,000-entry book. With `recursive`, recursion is on and each body
/// names keys of other entries.
pub fn book(recursive: bool) -> Book {
    book_of(10_000, recursive)
}

/// The workload book with `entries` entries (the first 10,000 are those of
/// [`book`]; issue 24's large workload has 100,000).
pub fn book_of(entries: u64, recursive: bool) -> Book {
    let mut rng = Rng::new(0x5EED);
    let mut book = Book {
        name: "Benchmark".into(),
        scan_depth: 8,
        token_budget: 4000,
        recursive_scanning: recursive,
        ..Book::default()
    };
    let mut all_keys: Vec<String> = Vec::new();
    for i in 0..entries {
        let mut keys = Vec::new();
        for _ in 0..3 {
            let k = rng.below(100);
            let key = if k == 0 {
                format!("/{}(s|es)?/i", word(&mut rng))
            } else if rng.below(4) == 0 {
                format!("{} {}", word(&mut rng), word(&mut rng))
            } else {
                word(&mut rng)
            };
            keys.push(key);
        }
        all_keys.extend(keys.iter().filter(|k| !k.starts_with('/')).cloned());
        let len = 200 + rng.below(1300) as usize;
        // Bodies mention other entries' keys only when recursion is on.
        let mut content = text(&mut rng, len, &[]);
        if recursive && !all_keys.is_empty() && rng.below(3) == 0 {
            let k = &all_keys[rng.below(all_keys.len() as u64) as usize];
            content.push(' ');
            content.push_str(k);
        }
        book.add_entry(Entry {
            comment: format!("Entry {i}"),
            keys,
            whole_words: rng.below(2) == 0,
            case_sensitive: rng.below(10) == 0,
            order: rng.below(1000) as i64,
            priority: rng.below(1000) as i64,
            content,
            ..Entry::default()
        });
    }
    book
}

/// Puts `book`'s entries into `n` folders: ten at the top ("Region k"), the
/// rest inside them ("Area k"), entry `i` in folder `i % n` (issue 22's
/// folder benchmarks, `--folders` of the workload example).
// Used by the app's workspace bench and the workload example, not by every
// bench that includes this file.
#[allow(dead_code)]
pub fn with_folders(book: &mut Book, n: usize) {
    if n == 0 {
        return;
    }
    let ids = book.fresh_ids(n);
    for (k, &id) in ids.iter().enumerate() {
        book.entries.push(Entry {
            id,
            comment: if k < 10 {
                format!("Region {k}")
            } else {
                format!("Area {k}")
            },
            folder: true,
            parent: (k >= 10).then(|| ids[k % 10]),
            ..Entry::default()
        });
    }
    for (i, e) in book.entries.iter_mut().filter(|e| !e.folder).enumerate() {
        e.parent = Some(ids[i % ids.len()]);
    }
}

/// The 200-message chat, mentioning keys of `book`.
pub fn chat(book: &Book) -> Vec<Message> {
    chat_of(book, 200)
}

/// A chat of `messages` messages of about 500 bytes, mentioning keys of
/// `book` (the first 200 are those of [`chat`]).
pub fn chat_of(book: &Book, messages: usize) -> Vec<Message> {
    let keys = plain_keys(book);
    let mut rng = Rng::new(0xC4A7);
    (0..messages)
        .map(|i| Message {
            role: if i % 2 == 0 {
                Speaker::User
            } else {
                Speaker::Assistant
            },
            name: None,
            text: text(&mut rng, 500, &keys),
        })
        .collect()
}
