//! SillyTavern's world-info rules, as a second rule profile of the engine.
//!
//! [`StPreview`] answers "what would SillyTavern 1.15 inject for this chat,
//! where, and why": the entries of one or more books are read in their
//! SillyTavern form ([`entry`]), the chat is scanned the way SillyTavern
//! builds its buffer ([`buffer`], [`matching`], with the keys compiled once
//! per book in [`keys`]), the activation loop runs
//! with SillyTavern's global settings ([`settings`], [`activation`],
//! [`groups`], [`timed`]) and the result is placed in its eight positions
//! ([`placement`]). Rolls use our own seeded generator, so the same seed
//! gives the same log.
//!
//! ```
//! use lorebook_engine::{chat, formats, sillytavern::{StPreview, StOptions, StSettings, TimedState}};
//! let book = formats::import_value(serde_json::json!({"entries": {"0":
//!     {"uid": 0, "key": ["apple"], "content": "Apples are red.", "position": 0}}})).unwrap().book;
//! let chat = chat::parse("User: I ate an apple.", &Default::default()).unwrap();
//! let mut p = StPreview::new(&[("world".into(), &book)], StSettings::default(), StOptions::default()).unwrap();
//! let r = p.request(&chat.messages, 8192, &mut TimedState::default());
//! assert_eq!(r.injected[0].id, 0);
//! ```

pub mod activation;
pub mod buffer;
pub mod detail;
pub mod entry;
pub mod groups;
pub mod joined;
pub mod keys;
pub mod macros;
pub mod matching;
pub mod placement;
pub mod prompt;
pub mod resume;
pub mod settings;
pub mod timed;

use std::sync::Arc;

use serde::{Serialize, Serializer};

pub use activation::{DropKind, Outcome};
pub use buffer::MatchSources;
pub use detail::{GroupLoss, StDetail, StReason};
pub use entry::StEntry;
pub use matching::Names;
pub use placement::Position;
pub use prompt::{
    AbsentReason, AuthorsNote, CharacterNote, NotePosition, PromptBlock, PromptSource, StPrompt,
    StPromptInputs, StPromptMessage,
};
pub use resume::TimedLog;
pub use settings::{StRange, StRanged, StSettings, DEFAULT_MAX_CONTEXT, ST_RANGES};
pub use timed::TimedState;

use crate::chat::Message;
use crate::model::{Book, Entry};
use crate::tokenizer::{Encoding, TokenCounter, Tokenizer};

/// Inputs of a preview besides the books and settings.
#[derive(Debug, Clone)]
pub struct StOptions {
    /// `{{user}}` and `{{char}}`.
    pub names: Names,
    /// Fields the entries' `match…` flags add to the scanned text.
    pub sources: MatchSources,
    /// The tokenizer counting the budget and the prompt: the chosen
    /// model's, of any family (`tokenizer::tokenizer_for_model`).
    pub tokenizer: Tokenizer,
    /// Seed of probability and inclusion-group rolls.
    pub seed: u64,
}

impl Default for StOptions {
    fn default() -> Self {
        StOptions {
            names: Names {
                user: "User".into(),
                char: "Character".into(),
                ..Default::default()
            },
            sources: MatchSources::default(),
            tokenizer: Tokenizer::Bundled(Encoding::Cl100kBase),
            seed: 0,
        }
    }
}

/// One injected entry, listed position by position in SillyTavern's order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Injected {
    pub book: usize,
    /// The entry's id in the book (not SillyTavern's `uid`, which may be
    /// shared).
    pub id: u64,
    pub comment: String,
    pub position: Position,
    pub depth: Option<f64>,
    pub role: Option<crate::model::Role>,
    pub outlet: Option<String>,
    pub order: f64,
    /// Tokens of the inserted text alone.
    pub tokens: u32,
    pub pass: u32,
    /// How it activated: constant, sticky, @@activate or the key that hit
    /// (in English in JSON).
    #[serde(serialize_with = "display")]
    pub reason: StReason,
    /// The inserted text (after macros).
    pub content: String,
    /// Where the content's macros decided: `{{if}}` branches taken and
    /// the variables read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub decided: Vec<macros::trace::MacroDecision>,
}

/// An entry that did not make it into the prompt. A request drops most of
/// the book, so the comment and the detail are shared: listing an entry
/// allocates nothing, and the entries that miss at the same depth share
/// one detail.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StDropped {
    pub book: usize,
    pub id: u64,
    #[serde(serialize_with = "shared_str")]
    pub comment: Arc<str>,
    pub kind: DropKind,
    /// The rule's particulars, as a code (in English in JSON).
    #[serde(serialize_with = "display")]
    pub detail: Arc<StDetail>,
}

/// Serializes a value as its English text.
pub(crate) fn display<S: Serializer, T: std::fmt::Display>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// Serializes a shared string as a plain string.
pub(crate) fn shared_str<S: Serializer>(s: &Arc<str>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(s)
}

/// The answer for one request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StResult {
    /// Number of chat messages this request sees (1…M).
    pub request: usize,
    pub budget: u32,
    pub used: u32,
    pub overflowed: bool,
    /// Scan passes run (SillyTavern's loop count).
    pub passes: u32,
    pub chat_length: usize,
    pub injected: Vec<Injected>,
    /// Activated but placed nowhere (empty content, outlet without a name,
    /// unknown position), with why.
    pub not_placed: Vec<StDropped>,
    pub dropped: Vec<StDropped>,
    /// The activated entries' ids in the book, in activation order.
    pub activation_order: Vec<u64>,
}

/// A SillyTavern-rules preview over fixed books and settings.
pub struct StPreview {
    /// This preview's identity (unique in the process, new when the
    /// tokenizer changes), so a [`TimedLog`] notices another preview.
    id: u64,
    entries: Vec<StEntry>,
    settings: StSettings,
    options: StOptions,
    counter: TokenCounter,
    keys: keys::KeySet,
    /// Each entry's comment, shared by the results that list it.
    comments: Vec<Arc<str>>,
    /// Whether any entry has sticky or cooldown: without, no request
    /// leaves a timed record and each one starts from none.
    timed: bool,
    /// Each book's world name, for entries replaced one at a time.
    book_names: Vec<String>,
}

impl StPreview {
    /// Books are `(name, book)`; the name is SillyTavern's world name (the
    /// file stem), used in timed-effect keys. Every book is a global book.
    pub fn new(
        books: &[(String, &Book)],
        settings: StSettings,
        options: StOptions,
    ) -> Result<Self, String> {
        Self::new_while(books, settings, options, || true)?
            .ok_or_else(|| "the SillyTavern preview's build was stopped".to_string())
    }

    /// [`StPreview::new`] that asks `keep_going` while it reads the books
    /// and compiles their keys (every [`keys::CHECK_EVERY`] entries and
    /// between those steps) and stops when it says no: then `Ok(None)`.
    /// The app builds with it while holding its workspace, so a save or
    /// the exit-signal handler does not wait for a whole build.
    pub fn new_while(
        books: &[(String, &Book)],
        settings: StSettings,
        options: StOptions,
        keep_going: impl Fn() -> bool,
    ) -> Result<Option<Self>, String> {
        let Some(entries) = entry::load_while(books, &keep_going)? else {
            return Ok(None);
        };
        let Some(mut keys) = keys::KeySet::new_while(&entries, &options.names, &keep_going) else {
            return Ok(None);
        };
        keys.prefilter(|e| entries[e].case_sensitive.unwrap_or(settings.case_sensitive));
        Ok(Some(StPreview {
            id: next_id(),
            keys,
            comments: entries
                .iter()
                .map(|e| Arc::from(e.comment.as_str()))
                .collect(),
            timed: entries.iter().any(timed::leaves_records),
            book_names: books.iter().map(|(name, _)| name.clone()).collect(),
            entries,
            settings,
            counter: TokenCounter::with_tokenizer(options.tokenizer.clone()),
            options,
        }))
    }

    /// The entries in master order.
    pub fn entries(&self) -> &[StEntry] {
        &self.entries
    }

    /// Puts the edited `entry` of book `book` (found by its id) in place of
    /// the one held, without compiling the books again, when the edit
    /// leaves the master order and the entry's identity as they were: the
    /// answers are then those of a preview built from the edited book. Its
    /// keys, secondary keys or case sensitivity may change (the entry's
    /// keys are then tested one by one, see [`keys::KeySet::replace`], up
    /// to [`keys::LOOSE_MAX`] entries). `false`, with nothing changed, when
    /// it does not; the caller builds a new preview.
    pub fn replace_entry(&mut self, book: usize, entry: &Entry) -> bool {
        let Some(name) = self.book_names.get(book) else {
            return false;
        };
        let value = serde_json::Value::Object(crate::formats::sillytavern::entry_value(entry));
        let new = entry::read_entry(book, name, &entry.id.to_string(), &value);
        let mut found = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.book == book && e.id == new.id);
        let (Some((i, old)), None) = (found.next(), found.next()) else {
            return false;
        };
        // The master order and the timed effects' keys rest on these.
        if old.key != new.key || old.order.to_bits() != new.order.to_bits() {
            return false;
        }
        let keys_changed = old.keys != new.keys
            || old.secondary != new.secondary
            || old.case_sensitive != new.case_sensitive;
        if keys_changed && !self.keys.replace(i, &new, &self.options.names) {
            return false;
        }
        self.comments[i] = Arc::from(new.comment.as_str());
        self.entries[i] = new;
        self.timed = self.entries.iter().any(timed::leaves_records);
        // Answers change: timed states computed before do not hold.
        self.id = next_id();
        true
    }

    /// Counts the budget and the prompt with `tokenizer` (a user's file,
    /// say) instead of the options' tokenizer; `None` goes back to it.
    pub fn set_tokenizer(&mut self, tokenizer: Option<Tokenizer>) {
        // Budgets count differently: timed states computed before differ.
        self.id = next_id();
        self.counter = match tokenizer {
            Some(t) => TokenCounter::with_tokenizer(t),
            None => TokenCounter::with_tokenizer(self.options.tokenizer.clone()),
        };
    }

    /// The tokenizer counting the budget and the prompt.
    pub fn tokenizer(&self) -> &Tokenizer {
        self.counter.tokenizer()
    }

    /// The final prompt SillyTavern would send for `result`, the answer
    /// of [`StPreview::request`] for `chat` (see [`prompt`]), with each
    /// message's tokens counted.
    pub fn prompt(
        &mut self,
        result: &StResult,
        chat: &[Message],
        inputs: &StPromptInputs,
    ) -> StPrompt {
        let mut p = prompt::assemble(result, chat, inputs, &self.options.names);
        let mut total = 0u32;
        for m in &mut p.messages {
            m.tokens = self.counter.count(&m.content);
            total = total.saturating_add(m.tokens);
        }
        p.tokens = total;
        p
    }

    /// One generation with the whole `chat`, reading and updating the
    /// timed-effect `state` as SillyTavern does.
    pub fn request(
        &mut self,
        chat: &[Message],
        max_context: u32,
        state: &mut TimedState,
    ) -> StResult {
        // Generate runs macros on the chat's first message (the greeting)
        // and on no other message before scanning (script.js: Generate).
        let greeting;
        let chat = match chat.split_first() {
            Some((first, rest)) if first.text.contains('{') || first.text.contains('<') => {
                let mut first = first.clone();
                first.text = matching::substitute(&first.text, &self.options.names);
                greeting = [vec![first], rest.to_vec()].concat();
                &greeting[..]
            }
            _ => chat,
        };
        let mut rng = Rng::new(self.options.seed, chat.len() as u64);
        let mut draw = || rng.next_f64();
        let mut cx = activation::Context {
            settings: &self.settings,
            names: &self.options.names,
            buffer: buffer::ScanBuffer::new(
                chat,
                self.settings.include_names,
                self.options.sources.clone(),
            ),
            max_context,
            counter: &mut self.counter,
            keys: &mut self.keys,
            draw: &mut draw,
            character: &self.options.names.char,
            comments: &self.comments,
        };
        let outcome = activation::run(&self.entries, &mut cx, state);
        self.result(chat.len(), outcome)
    }

    /// Requests 1…M of the chat in turn (request k sees the first k
    /// messages), carrying sticky and cooldown from one to the next,
    /// starting from no timed effects.
    pub fn log(&mut self, chat: &[Message], max_context: u32, mut each: impl FnMut(StResult)) {
        let mut state = TimedState::default();
        for k in 1..=chat.len() {
            each(self.request(&chat[..k], max_context, &mut state));
        }
    }

    fn result(&mut self, request: usize, o: Outcome) -> StResult {
        let pairs: Vec<(usize, &str)> = o
            .activated
            .iter()
            .map(|a| (a.entry, a.content.as_str()))
            .collect();
        let (placed, not_placed) = placement::place(&self.entries, &pairs);
        let entries = &self.entries;
        let find = |i: usize| o.activated.iter().find(|a| a.entry == i);
        let injected = placed
            .into_iter()
            .map(|p| {
                let e = &entries[p.entry];
                let a = find(p.entry);
                let content = a.map(|a| a.content.clone()).unwrap_or_default();
                Injected {
                    book: e.book,
                    id: e.id,
                    comment: e.comment.clone(),
                    position: p.position,
                    depth: p.depth,
                    role: p.role,
                    outlet: p.outlet,
                    order: e.order,
                    tokens: self.counter.count(&content),
                    pass: a.map(|a| a.pass).unwrap_or_default(),
                    reason: a.map(|a| a.reason.clone()).unwrap_or_default(),
                    decided: a.map(|a| a.decided.clone()).unwrap_or_default(),
                    content,
                }
            })
            .collect();
        let comments = &self.comments;
        let dropped_of = |i: usize, kind: DropKind, detail: Arc<StDetail>| StDropped {
            book: entries[i].book,
            id: entries[i].id,
            comment: comments[i].clone(),
            kind,
            detail,
        };
        StResult {
            request,
            budget: o.budget,
            used: o.used,
            overflowed: o.overflowed,
            passes: o.passes,
            chat_length: o.chat_length,
            injected,
            not_placed: not_placed
                .into_iter()
                .map(|n| dropped_of(n.entry, DropKind::NotPlaced, Arc::new(n.detail)))
                .collect(),
            dropped: o.dropped,
            activation_order: o.activated.iter().map(|a| entries[a.entry].id).collect(),
        }
    }
}

/// A new preview identity.
fn next_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A small seeded generator (SplitMix64) for probability and group rolls.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, request: u64) -> Self {
        Rng(seed ^ request.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    /// A uniform draw in [0, 1).
    fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}
