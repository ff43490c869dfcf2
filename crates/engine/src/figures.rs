//! Whole-book figures (issue 22, "Whole-book figures"): how many entries
//! and tokens a book holds, what its constant entries take of the budget,
//! its largest entries, each folder's totals, and, with a chat's request
//! log, how many entries and tokens were injected in the last request and
//! across the log. `lorebook inspect` prints them and the app's **Figures**
//! panel shows them.
//!
//! An entry's tokens are those of its body as the preview injects it (the
//! content without its decorator lines), counted by the caller's
//! tokenizer; folders are the book's ([`crate::folders`]), and a folder's
//! totals hold every entry inside it at any depth.

use std::collections::HashMap;

use serde::Serialize;

use crate::decorators;
use crate::model::Book;
use crate::profile::Outcome;

/// An entry and its tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EntryTokens {
    pub id: u64,
    pub name: String,
    pub tokens: u32,
}

/// How many of the folders nearest a folder its name in the figures
/// shows ([`FolderTotals::name`]).
pub const FOLDER_PATH_SHOWN: usize = 8;

/// One folder's totals: the entries inside it at any depth (not the
/// folders themselves).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FolderTotals {
    /// The folder entry's id.
    pub id: u64,
    pub name: String,
    pub entries: u32,
    pub tokens: u64,
}

/// A book's figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BookFigures {
    pub entries: u32,
    pub enabled: u32,
    pub constant: u32,
    /// Every entry's body, enabled or not.
    pub tokens: u64,
    pub enabled_tokens: u64,
    /// The enabled constant entries', which every request injects first.
    pub constant_tokens: u64,
    /// The book's token budget (the guide's rules).
    pub budget: u32,
    /// The largest entries, largest first.
    pub largest: Vec<EntryTokens>,
    /// The book's folders, in the book's order, each named by its path.
    pub folders: Vec<FolderTotals>,
}

/// What a chat's request log injected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChatFigures {
    pub requests: u32,
    /// Entries and tokens injected in the last request.
    pub last_entries: u32,
    pub last_tokens: u32,
    /// Entries injected in at least one request, and their tokens (each
    /// counted once, at the most it took).
    pub log_entries: u32,
    pub log_tokens: u64,
}

/// The figures of `book`; `count` counts a body's tokens; `largest` is how
/// many of the largest entries are listed.
pub fn book_figures(
    book: &Book,
    count: &mut dyn FnMut(&str) -> u32,
    largest: usize,
) -> BookFigures {
    let tree = crate::folders::Tree::of(book);
    let folders: HashMap<u64, usize> = book
        .entries
        .iter()
        .filter(|e| e.folder)
        .enumerate()
        .map(|(i, e)| (e.id, i))
        .collect();
    let mut totals: Vec<FolderTotals> = book
        .entries
        .iter()
        .filter(|e| e.folder)
        .map(|e| {
            // Named by its path, the folders above the eighth nearest
            // said as "…" (a name per folder, not a path of every folder
            // above it: 50,000 nested folders would be 1.25 billion names).
            let (mut path, more) = tree.near_path(e.id, FOLDER_PATH_SHOWN);
            if more {
                path.insert(0, "…".into());
            }
            path.push(e.comment.clone());
            FolderTotals {
                id: e.id,
                name: path.join(" › "),
                entries: 0,
                tokens: 0,
            }
        })
        .collect();
    let mut f = BookFigures {
        entries: (book.entries.len() - folders.len()) as u32,
        enabled: 0,
        constant: 0,
        tokens: 0,
        enabled_tokens: 0,
        constant_tokens: 0,
        budget: book.token_budget,
        largest: Vec::new(),
        folders: Vec::new(),
    };
    let mut sized: Vec<(u32, usize)> = Vec::with_capacity(book.entries.len());
    for (i, e) in book.entries.iter().enumerate() {
        if e.folder {
            continue;
        }
        let tokens = count(decorators::parse(&e.content).body);
        f.tokens += u64::from(tokens);
        if e.enabled {
            f.enabled += 1;
            f.enabled_tokens += u64::from(tokens);
            if e.constant {
                f.constant_tokens += u64::from(tokens);
            }
        }
        f.constant += u32::from(e.constant);
        // Counted in its own folder here; in the folders above, below.
        if let Some(at) = tree.parent(e.id).and_then(|p| folders.get(&p)) {
            totals[*at].entries += 1;
            totals[*at].tokens += u64::from(tokens);
        }
        sized.push((tokens, i));
    }
    // Each folder's totals added to its parent's, the deepest first, so
    // every folder holds what is inside it at any depth.
    let depth = tree.depths(book);
    let mut by_depth: Vec<u64> = totals.iter().map(|t| t.id).collect();
    by_depth.sort_by_key(|id| std::cmp::Reverse(depth.get(id).copied().unwrap_or(0)));
    for id in by_depth {
        let Some(up) = tree.parent(id).and_then(|p| folders.get(&p)).copied() else {
            continue;
        };
        let (entries, tokens) = {
            let t = &totals[folders[&id]];
            (t.entries, t.tokens)
        };
        totals[up].entries += entries;
        totals[up].tokens += tokens;
    }
    // Largest first; equal sizes in the book's order.
    sized.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    f.largest = sized
        .into_iter()
        .take(largest)
        .map(|(tokens, i)| {
            let e = &book.entries[i];
            EntryTokens {
                id: e.id,
                name: e.display_name().to_string(),
                tokens,
            }
        })
        .collect();
    f.folders = totals;
    f
}

/// Folds a request log (each request's common part, in order) into
/// [`ChatFigures`].
#[derive(Debug, Default)]
pub struct ChatTally {
    figures: ChatFigures,
    seen: HashMap<(usize, u64), u32>,
}

impl ChatTally {
    /// One request's injected entries, as seen through the seam.
    pub fn add(&mut self, o: &Outcome) {
        self.add_request(o.injected.iter().map(|p| ((p.book, p.id), p.tokens)));
    }

    /// One request: its injected entries `((book, id), tokens)`.
    pub fn add_request(&mut self, injected: impl IntoIterator<Item = ((usize, u64), u32)>) {
        self.figures.requests += 1;
        self.figures.last_entries = 0;
        self.figures.last_tokens = 0;
        for (e, tokens) in injected {
            self.figures.last_entries += 1;
            self.figures.last_tokens += tokens;
            let t = self.seen.entry(e).or_insert(0);
            *t = (*t).max(tokens);
        }
    }

    pub fn finish(mut self) -> ChatFigures {
        self.figures.log_entries = self.seen.len() as u32;
        self.figures.log_tokens = self.seen.values().map(|&t| u64::from(t)).sum();
        self.figures
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Entry;

    fn entry(id: u64, comment: &str, content: &str, risu: Option<serde_json::Value>) -> Entry {
        let mut e = Entry {
            id,
            comment: comment.into(),
            keys: vec![comment.to_lowercase()],
            content: content.into(),
            ..Entry::default()
        };
        if let Some(v) = risu {
            e.extensions.insert(crate::risu::lore::NS.into(), v);
        }
        e
    }

    /// Totals, constants against the budget, the largest entries (ties in
    /// the book's order, decorator lines not counted) and a folder's
    /// totals (the folder entry itself left out).
    #[test]
    fn a_books_figures_add_up() {
        let mut book = Book {
            token_budget: 100,
            ..Book::default()
        };
        let places = Entry {
            folder: true,
            ..entry(1, "Places", "", None)
        };
        let inside = |e: Entry| Entry {
            parent: Some(1),
            ..e
        };
        book.entries = vec![
            Entry {
                constant: true,
                ..entry(0, "World", "one two three", None)
            },
            places,
            inside(entry(2, "Harbor", "@@depth 2\nfour five", None)),
            inside(entry(3, "Tower", "six", None)),
            Entry {
                enabled: false,
                ..entry(4, "Draft", "seven eight nine", None)
            },
        ];
        let mut words = |s: &str| s.split_whitespace().count() as u32;
        let f = book_figures(&book, &mut words, 3);
        assert_eq!((f.entries, f.enabled, f.constant), (4, 3, 1));
        assert_eq!((f.tokens, f.enabled_tokens, f.constant_tokens), (9, 6, 3));
        assert_eq!(f.budget, 100);
        let largest: Vec<(u64, u32)> = f.largest.iter().map(|e| (e.id, e.tokens)).collect();
        assert_eq!(largest, [(0, 3), (4, 3), (2, 2)]);
        assert_eq!(
            f.folders,
            [FolderTotals {
                id: 1,
                name: "Places".into(),
                entries: 2,
                tokens: 3
            }]
        );
    }

    /// The last request's entries, and each entry once across the log at
    /// the most it took.
    #[test]
    fn a_chats_figures_count_each_entry_once() {
        let mut t = ChatTally::default();
        t.add_request([((0, 1), 10), ((0, 2), 5)]);
        t.add_request([((0, 1), 12)]);
        t.add_request([((1, 1), 7), ((0, 2), 5)]);
        let c = t.finish();
        assert_eq!(
            c,
            ChatFigures {
                requests: 3,
                last_entries: 2,
                last_tokens: 12,
                log_entries: 3,
                log_tokens: 24
            }
        );
    }
}
