//! A preview session: attached books, their compiled [`Index`], and the
//! caches that make a request after a small change cheap.
//!
//! - Message and body hits are cached by content hash ([`HitCache`]): a new
//!   or edited message rescans only itself.
//! - Token counts are cached per tokenizer by content hash.
//! - The `@@keep` / `@@dont_activate_after_match` state after each request
//!   is cached by the hash of the chat prefix, so request k after an edit to
//!   message m replays only requests m…k−1.
//! - An edit to one entry ([`Preview::upsert_entry`],
//!   [`Preview::remove_entry`]) or to a book's settings
//!   ([`Preview::set_book_settings`]) recompiles only what it touches; the
//!   index is rebuilt in full only once [`OVERLAY_LIMIT`] entries have been
//!   edited (or [`DEAD_SLOT_LIMIT`] replaced or removed) since the last
//!   build. The results are exactly those of a preview built from the
//!   edited books.
//!
//! ```
//! use lorebook_engine::{chat, model::{Book, Entry}, preview::{Preview, Settings}};
//! let mut book = Book::default();
//! book.add_entry(Entry { keys: vec!["moon".into()], content: "The moon is red.".into(), ..Entry::default() });
//! let chat = chat::parse("User: look at the moon", &Default::default()).unwrap();
//! let mut p = Preview::new(&[book], Settings::default());
//! let r = p.request(&chat.messages, 1);
//! assert_eq!(r.injected.len(), 1);
//!
//! // The user changes the entry's key: only that entry is recompiled.
//! let mut edited = p.books()[0].entries[0].clone();
//! edited.keys = vec!["sun".into()];
//! p.upsert_entry(0, &edited);
//! assert!(p.request(&chat.messages, 1).injected.is_empty());
//! ```

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

use crate::activation::{HitCache, Index, State};
use crate::chat::Message;
use crate::explain::RequestResult;
use crate::model::{Book, Entry};
use crate::prompt::Template;
use crate::tokenizer::{
    content_hash, tokenizer_for_model, Encoding, TokenCounter, Tokenizer, DEFAULT_MODEL,
};

/// What a preview depends on besides books and chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Settings {
    /// Seed of the probability rolls; "reroll" picks a new one.
    pub seed: u64,
    /// The model whose tokenizer counts the budget.
    pub model: String,
    pub template: Template,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            seed: 0,
            model: DEFAULT_MODEL.into(),
            template: Template::default(),
        }
    }
}

/// Entries edited since the last full build at which the next edit
/// rebuilds the index: past this, merging overlays (a few hundred
/// microseconds now and then) and scanning them start to cost more than a
/// full build every so often.
pub const OVERLAY_LIMIT: usize = 256;

/// Dead slots (masked keys of replaced or removed entries) at which the next
/// edit rebuilds the index, so a long session of edits and removals does not
/// accumulate masked keys without bound.
pub const DEAD_SLOT_LIMIT: usize = 4096;

/// A live preview over a set of attached books.
#[derive(Debug)]
pub struct Preview {
    /// The attached books as edited, for full rebuilds.
    books: Vec<Book>,
    index: Index,
    hits: HitCache,
    /// One counter per tokenizer used (by name), so switching back keeps
    /// its counts.
    counters: HashMap<String, TokenCounter>,
    tokenizer: Tokenizer,
    /// A tokenizer chosen over the model's (a user's file), with its counts.
    custom: Option<TokenCounter>,
    settings: Settings,
    /// State after requests 1…j, keyed by (seed, hash of messages 0…j−1).
    states: HashMap<u64, State>,
    /// Requests count their plain drops instead of listing them
    /// ([`Preview::count_plain_drops`]).
    count_plain: bool,
}

impl Preview {
    /// A preview of `books`. An unknown model falls back to the default
    /// model's tokenizer; use [`Preview::set_settings`] to get the error.
    pub fn new(books: &[Book], settings: Settings) -> Preview {
        Preview::from_books(books.to_vec(), settings)
    }

    /// [`Preview::new`] for books the caller hands over, so a big book is
    /// not copied (the command line reads a book only to preview it).
    pub fn from_books(books: Vec<Book>, settings: Settings) -> Preview {
        let tokenizer =
            tokenizer_for_model(&settings.model).unwrap_or(Tokenizer::Bundled(Encoding::O200kBase));
        Preview {
            index: Index::build(&books),
            books,
            hits: HitCache::default(),
            counters: HashMap::new(),
            tokenizer,
            custom: None,
            settings,
            states: HashMap::new(),
            count_plain: false,
        }
    }

    /// With `on`, each request counts the entries whose keys matched
    /// nowhere and the disabled ones ([`RequestResult::unlisted`]) instead
    /// of listing them in `dropped`: a caller that only counts them (the
    /// command line without `--list-unmatched`) saves making 100,000 of
    /// them per request of a 100,000-entry book.
    pub fn count_plain_drops(&mut self, on: bool) {
        self.count_plain = on;
    }

    /// Replaces the attached books; caches of the old keys are dropped,
    /// token counts are kept.
    pub fn set_books(&mut self, books: &[Book]) {
        self.set_books_while(books, || true);
    }

    /// [`Preview::set_books`] that asks `keep_going` while it compiles the
    /// books (see [`Index::build_while`]) and stops when it says no: then
    /// `false`, and the preview is as it was (the books it had, their
    /// index and caches), so the caller gives it the books again later.
    pub fn set_books_while(&mut self, books: &[Book], keep_going: impl Fn() -> bool) -> bool {
        let Some(index) = Index::build_while(books, keep_going) else {
            return false;
        };
        self.books = books.to_vec();
        self.install(index);
        true
    }

    /// Replaces entry `entry.id` of attached book `book` (position among
    /// the attached books), or adds it as the book's last entry when absent.
    /// Nothing happens when `book` is not attached.
    pub fn upsert_entry(&mut self, book: usize, entry: &Entry) {
        self.upsert_entry_while(book, entry, || true);
    }

    /// [`Preview::upsert_entry`] whose full rebuild, when one is due (see
    /// [`OVERLAY_LIMIT`]), stops when `keep_going` says no: the edit then
    /// goes on top of the index as the edits before it did, and the
    /// rebuild waits for a later edit. The results are the same either way.
    pub fn upsert_entry_while(
        &mut self,
        book: usize,
        entry: &Entry,
        keep_going: impl Fn() -> bool,
    ) {
        let Some(b) = self.books.get_mut(book) else {
            return;
        };
        // The index resolves an id shared by several entries (a malformed
        // file) to the last one, so the copy does too.
        match b.entries.iter().rposition(|e| e.id == entry.id) {
            Some(i) => b.entries[i] = entry.clone(),
            None => b.entries.push(entry.clone()),
        }
        if !(self.worn() && self.rebuild_while(keep_going)) {
            self.states.clear();
            self.index.upsert(book, entry);
        }
    }

    /// Removes entry `id` of attached book `book` (no-op when absent).
    pub fn remove_entry(&mut self, book: usize, id: u64) {
        self.remove_entry_while(book, id, || true);
    }

    /// [`Preview::remove_entry`] whose full rebuild, when one is due,
    /// stops when `keep_going` says no (as [`Preview::upsert_entry_while`]).
    pub fn remove_entry_while(&mut self, book: usize, id: u64, keep_going: impl Fn() -> bool) {
        let Some(b) = self.books.get_mut(book) else {
            return;
        };
        let Some(i) = b.entries.iter().rposition(|e| e.id == id) else {
            return;
        };
        b.entries.remove(i);
        if !(self.worn() && self.rebuild_while(keep_going)) {
            self.states.clear();
            self.index.remove(book, id);
        }
    }

    /// The book-level settings of attached book `book` changed; its entries
    /// did not. Nothing happens when `book` is not attached.
    pub fn set_book_settings(
        &mut self,
        book: usize,
        scan_depth: u32,
        token_budget: u32,
        recursive_scanning: bool,
    ) {
        let Some(b) = self.books.get_mut(book) else {
            return;
        };
        b.scan_depth = scan_depth;
        b.token_budget = token_budget;
        b.recursive_scanning = recursive_scanning;
        self.states.clear();
        self.index
            .set_book_settings(book, scan_depth, token_budget, recursive_scanning);
    }

    /// The attached books, with every edit applied.
    pub fn books(&self) -> &[Book] {
        &self.books
    }

    /// Whether incremental edits have piled up enough for a full build.
    fn worn(&self) -> bool {
        self.index.overlay_len() >= OVERLAY_LIMIT || self.index.dead_slots() >= DEAD_SLOT_LIMIT
    }

    /// Compiles the books from scratch unless `keep_going` stops it (then
    /// `false`, nothing changed).
    fn rebuild_while(&mut self, keep_going: impl Fn() -> bool) -> bool {
        let Some(index) = Index::build_while(&self.books, keep_going) else {
            return false;
        };
        self.install(index);
        true
    }

    /// Puts a freshly built index in place; caches of the old keys are
    /// dropped, token counts are kept.
    fn install(&mut self, index: Index) {
        self.index = index;
        self.hits.clear();
        self.states.clear();
    }

    /// Changes seed, model or template.
    pub fn set_settings(&mut self, settings: Settings) -> Result<(), String> {
        self.tokenizer = tokenizer_for_model(&settings.model)?;
        if settings.seed != self.settings.seed {
            self.states.clear();
        }
        self.settings = settings;
        Ok(())
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn index(&self) -> &Index {
        &self.index
    }

    /// Forgets every cached message scan (for benchmarks).
    pub fn clear_hit_cache(&mut self) {
        self.hits.clear();
        self.states.clear();
    }

    /// Token count of a text under the selected model.
    pub fn count_tokens(&mut self, text: &str) -> u32 {
        self.counter().count(text)
    }

    /// Counts every text of `texts` not counted yet under the selected
    /// model, spread over the machine's cores (see [`TokenCounter::prime`]).
    pub fn prime_tokens<'t>(&mut self, texts: impl IntoIterator<Item = &'t str>) {
        self.counter().prime(texts);
    }

    /// The token count of `text` under the current tokenizer if it was
    /// counted before (a cache hit), else `None`; never counts.
    pub fn counted_tokens(&mut self, text: &str) -> Option<u32> {
        self.counter().lookup(text)
    }

    /// Counts with `tokenizer` instead of the model's until set back to
    /// `None`.
    pub fn set_tokenizer(&mut self, tokenizer: Option<Tokenizer>) {
        self.custom = tokenizer.map(TokenCounter::with_tokenizer);
    }

    /// The tokenizer set by [`Preview::set_tokenizer`], if any.
    pub fn custom_tokenizer(&self) -> Option<&Tokenizer> {
        self.custom.as_ref().map(TokenCounter::tokenizer)
    }

    fn counter(&mut self) -> &mut TokenCounter {
        counter_of(&mut self.counters, &mut self.custom, &self.tokenizer)
    }

    /// Request `k` (1 ≤ k ≤ chat length; 0 for the empty chat; larger values
    /// mean the whole chat).
    pub fn request(&mut self, chat: &[Message], k: usize) -> RequestResult {
        let k = k.min(chat.len());
        let state = self.state_before(chat, k);
        let seed = self.settings.seed;
        let a = self.index.activate(&mut self.hits, chat, k, seed, &state);
        let counter = counter_of(&mut self.counters, &mut self.custom, &self.tokenizer);
        let texts = crate::prompt::shared_texts(&chat[..k]);
        let template = &self.settings.template;
        self.index
            .finish_shared(a, counter, template, chat, &texts, self.count_plain)
    }

    /// The request log: requests 1…M of the chat, in order.
    pub fn log(&mut self, chat: &[Message]) -> Vec<RequestResult> {
        let mut out = Vec::with_capacity(chat.len());
        self.log_each(chat, |r| out.push(r));
        out
    }

    /// The request log, one request at a time, so a caller that prints or
    /// summarizes each request never holds them all.
    pub fn log_each(&mut self, chat: &[Message], each: impl FnMut(RequestResult)) {
        self.log_each_while(chat, || true, each);
    }

    /// [`Preview::log_each`] that asks `keep_going` before each request and
    /// stops when it says no (the app's newer request, or a save or close
    /// that wants its lock); returns whether the log ran to the end.
    pub fn log_each_while(
        &mut self,
        chat: &[Message],
        mut keep_going: impl FnMut() -> bool,
        mut each: impl FnMut(RequestResult),
    ) -> bool {
        let seed = self.settings.seed;
        let mut state = State::default();
        let counter = counter_of(&mut self.counters, &mut self.custom, &self.tokenizer);
        // Shared once: each request's prompt refers to these texts.
        let texts = crate::prompt::shared_texts(chat);
        for k in 1..=chat.len() {
            if !keep_going() {
                return false;
            }
            let a = self.index.activate(&mut self.hits, chat, k, seed, &state);
            if self.index.any_stateful {
                self.index.record(&a, &mut state);
            }
            let template = &self.settings.template;
            let count = self.count_plain;
            each(
                self.index
                    .finish_shared(a, counter, template, chat, &texts, count),
            );
        }
        true
    }

    /// The `@@keep` state after requests 1…k−1, replaying only what is not
    /// cached.
    fn state_before(&mut self, chat: &[Message], k: usize) -> State {
        if !self.index.any_stateful || k <= 1 {
            return State::default();
        }
        let seed = self.settings.seed;
        // prefix[j] identifies (seed, messages 0..j).
        let mut prefix = Vec::with_capacity(k);
        let mut h = seed;
        for m in &chat[..k - 1] {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            (h, content_hash(&m.text), m.role).hash(&mut hasher);
            h = hasher.finish();
            prefix.push(h);
        }
        // Latest cached state at or before request k−1.
        let mut j = k - 1;
        let mut state = State::default();
        while j > 0 {
            if let Some(s) = self.states.get(&prefix[j - 1]) {
                state = s.clone();
                break;
            }
            j -= 1;
        }
        for r in j + 1..k {
            let a = self.index.activate(&mut self.hits, chat, r, seed, &state);
            self.index.record(&a, &mut state);
            self.states.insert(prefix[r - 1], state.clone());
        }
        state
    }
}

/// The counter of the chosen tokenizer: the custom one when set, else the
/// model's (kept per tokenizer so switching back keeps its counts).
fn counter_of<'a>(
    counters: &'a mut HashMap<String, TokenCounter>,
    custom: &'a mut Option<TokenCounter>,
    tokenizer: &Tokenizer,
) -> &'a mut TokenCounter {
    match custom {
        Some(counter) => counter,
        None => counters
            .entry(tokenizer.name().to_string())
            .or_insert_with(|| TokenCounter::with_tokenizer(tokenizer.clone())),
    }
}
