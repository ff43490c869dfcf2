//! Activation (SPEC §6): which entries fire in one request, and why.
//!
//! [`Index::build`] compiles the attached books once: decorators parsed,
//! effective settings resolved, every key in one [`Matcher`]. A request then
//! looks up cached per-message hits ([`HitCache`]), walks every entry through
//! the steps of SPEC §6, and [`Index::finish`] applies the budget, placement
//! and prompt assembly.
//!
//! Edits are incremental ([`Index::upsert`], [`Index::remove`],
//! [`Index::set_book_settings`]): building the base matcher takes far longer
//! than a frame on a large book, so it is kept, and an edited entry's keys go
//! into overlay matchers instead — a *recent* one, rebuilt on every edit and
//! so kept to [`RECENT_LIMIT`] entries, and an *older* one that the recent
//! one is merged into when full. Key owners in every matcher are *slots*,
//! stable numbers that map to the entry's current position in `entries`; the
//! slot of a replaced or removed entry maps to nothing, which masks its old
//! keys without rebuilding the matcher that holds them.
//!
//! Invariants:
//! - every entry of every attached book ends up in exactly one of
//!   `injected` / `dropped`;
//! - the same seed, chat and books give the same result;
//! - a result depends on each book's entries by id, not on their positions,
//!   so an index edited incrementally gives the same results as one built
//!   from the edited books;
//! - a probability roll depends only on `(seed, request, book, entry id)`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::budget::{self, Candidate, Verdict};
use crate::chat::{Message, Speaker};
use crate::decorators::{self, Decorators, Diagnostic, Severity};
use crate::diagnostic::DiagnosticMessage;
use crate::explain::{
    Activation, BudgetUse, DropReason, Dropped, EntryKey, GateDetail, Injected, KeyMatch,
    RequestResult, Roll, Source,
};
use crate::matcher::{Hit, KeyError, KeyFlags, KeyId, KeyOwner, Matcher, MatcherBuilder};
use crate::model::{Book, Entry, Role, SecondaryLogic};
use crate::placement;
use crate::prompt::{self, LoreMessage, Template};
use crate::tokenizer::{content_hash, TokenCounter};

/// One entry, compiled for activation.
#[derive(Debug, Clone)]
pub struct CompiledEntry {
    /// Position of its book among the attached books.
    pub book: usize,
    pub id: u64,
    /// Position in its book's `entries`.
    pub position: usize,
    pub comment: Box<str>,
    pub enabled: bool,
    pub constant: bool,
    /// Its book has recursive scanning on.
    pub recursive: bool,
    /// Selective with at least one secondary key.
    pub selective: bool,
    pub logic: SecondaryLogic,
    /// Key ids in the index's numbering (see [`Index::key_text`]).
    pub primary: Vec<KeyId>,
    pub secondary: Vec<KeyId>,
    /// Effective scan depth, order, priority and role (decorators applied).
    pub depth: u32,
    pub order: i64,
    pub priority: i64,
    pub role: Role,
    pub decorators: Decorators,
    /// The injected text.
    pub body: Box<str>,
    /// Decorator diagnostics and lints (invalid regex, selective without
    /// secondary keys, no keys).
    pub diagnostics: Vec<Diagnostic>,
}

/// A slot that maps to no entry: its entry was replaced or removed.
const GONE: u32 = u32::MAX;

/// Entries in the recent overlay above which it is merged into the older
/// one. Every edit rebuilds the recent overlay, so it stays small; merging
/// costs about a millisecond with a few hundred edited entries, once every
/// this many distinct entries edited.
pub const RECENT_LIMIT: usize = 8;

/// Keys of some edited entries, owned by slots.
#[derive(Debug, Default)]
struct Layer {
    matcher: Matcher,
    /// Tells a [`HitCache`] that hits it holds for this layer are stale.
    generation: u64,
    /// Slots of the entries whose keys are here (and live).
    slots: Vec<u32>,
}

/// The settings of one attached book that compiled entries depend on.
#[derive(Debug, Clone, Copy)]
struct BookSettings {
    scan_depth: u32,
    token_budget: u32,
    recursive: bool,
}

/// A fresh number for a matcher, so a [`HitCache`] can tell that the
/// overlay it cached hits of has been replaced.
fn next_generation() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The compiled form of a set of attached books.
///
/// Key ids ([`KeyId`]) below the base matcher's key count are its keys; the
/// ones above are the older overlay's, then the recent overlay's, each
/// offset by the key count of the matchers before it.
#[derive(Debug, Default)]
pub struct Index {
    /// Every entry, by book and then position in its book.
    pub entries: Vec<CompiledEntry>,
    /// Keys of the entries as last fully built, owned by slots.
    matcher: Matcher,
    /// Keys of the entries upserted since: the older overlay, then the
    /// recent one.
    layers: [Layer; 2],
    /// Position in `entries` by slot, or [`GONE`].
    slots: Vec<u32>,
    books: Vec<BookSettings>,
    /// The largest `token_budget` of the attached books.
    pub budget: u32,
    any_recursive: bool,
    /// Some entry uses `@@keep` or `@@dont_activate_after_match`.
    pub any_stateful: bool,
    max_depth: u32,
    /// `entries` are in (book, id) order, as when ids grow with positions:
    /// then results need no sorting by id.
    in_id_order: bool,
    /// Slot by `(book, id)`.
    by_id: HashMap<(usize, u64), u32>,
}

/// Which entries matched in earlier requests, and in which request first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct State {
    matched: HashMap<u32, usize>,
}

/// Per-text hit lists, keyed by content hash, so a message (or an entry
/// body) is scanned once for as long as the index lives.
///
/// Hits of the base matcher stay valid across incremental edits (the slots
/// of edited entries mask them); hits of an overlay are kept only until that
/// overlay is rebuilt, which its generation tells.
#[derive(Debug, Default)]
pub struct HitCache {
    map: Hits,
    /// Per overlay: the generation the hits are of, and the hits.
    layers: [(u64, Hits); 2],
}

/// Hit lists by content hash.
type Hits = HashMap<u64, Arc<[Hit]>>;

impl HitCache {
    /// Cached text count above which the cache starts over.
    const LIMIT: usize = 200_000;

    /// The hits of `matcher` (the index's base matcher) in `text`.
    pub fn get(&mut self, matcher: &Matcher, text: &str) -> Arc<[Hit]> {
        Self::lookup(&mut self.map, matcher, text)
    }

    /// The hits of overlay `i`.
    fn get_layer(&mut self, i: usize, layer: &Layer, text: &str) -> Arc<[Hit]> {
        let (generation, map) = &mut self.layers[i];
        if *generation != layer.generation {
            map.clear();
            *generation = layer.generation;
        }
        Self::lookup(map, &layer.matcher, text)
    }

    fn lookup(map: &mut Hits, matcher: &Matcher, text: &str) -> Arc<[Hit]> {
        let h = content_hash(text);
        if let Some(hits) = map.get(&h) {
            return hits.clone();
        }
        if map.len() >= Self::LIMIT {
            map.clear();
        }
        let hits: Arc<[Hit]> = matcher.scan(text).into();
        map.insert(h, hits.clone());
        hits
    }

    pub fn clear(&mut self) {
        self.map.clear();
        self.layers.iter_mut().for_each(|(_, m)| m.clear());
    }

    pub fn len(&self) -> usize {
        self.map.len() + self.layers.iter().map(|(_, m)| m.len()).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where a key matched, before it is turned into a [`KeyMatch`].
#[derive(Debug, Clone, Copy)]
struct Loc {
    key: KeyId,
    source: Source,
    start: u32,
    end: u32,
    pass: u8,
}

/// Matches found so far in one request, per global entry.
#[derive(Debug, Default)]
struct Found {
    primary: HashMap<u32, Loc>,
    secondary: HashMap<u32, Vec<Loc>>,
}

impl Found {
    fn add(&mut self, owner: KeyOwner, loc: Loc) {
        if owner.secondary {
            let list = self.secondary.entry(owner.entry).or_default();
            if !list.iter().any(|l| l.key == loc.key) {
                list.push(loc);
            }
        } else {
            self.primary.entry(owner.entry).or_insert(loc);
        }
    }
}

/// An entry's state within one request.
#[derive(Debug, Clone)]
enum Status {
    Out(DropReason),
    Active {
        activation: Activation,
        roll: Option<Roll>,
    },
}

/// The activation step's result for one request, before the budget.
#[derive(Debug, Clone)]
pub struct Activated {
    request: usize,
    status: Vec<Status>,
    passes: u8,
}

impl Index {
    /// Compiles `books` (in attachment order).
    pub fn build(books: &[Book]) -> Index {
        let settings: Vec<BookSettings> = books
            .iter()
            .map(|b| BookSettings {
                scan_depth: b.scan_depth,
                token_budget: b.token_budget,
                recursive: b.recursive_scanning,
            })
            .collect();
        let mut builder = MatcherBuilder::default();
        let mut entries = Vec::new();
        let mut by_id = HashMap::new();
        for (bi, book) in books.iter().enumerate() {
            for (position, e) in book.entries.iter().enumerate() {
                // At build time an entry's slot is its position in `entries`.
                let slot = entries.len() as u32;
                by_id.insert((bi, e.id), slot);
                entries.push(compile(
                    &mut builder,
                    slot,
                    0,
                    bi,
                    position,
                    e,
                    settings[bi],
                ));
            }
        }
        let (matcher, errors) = builder.build();
        for err in errors {
            if let Some(e) = entries.get_mut(err.owner.entry as usize) {
                e.diagnostics.push(key_error(&err));
            }
        }
        let slots: Vec<u32> = (0..entries.len() as u32).collect();
        let mut index = Index {
            entries,
            matcher,
            layers: Default::default(),
            slots,
            books: settings,
            budget: 0,
            any_recursive: false,
            any_stateful: false,
            max_depth: 0,
            in_id_order: true,
            by_id,
        };
        index.summarize();
        index
    }

    /// Replaces entry `e.id` of attached book `book`, or adds it as the
    /// book's last entry. Only this entry is compiled; its keys go into the
    /// recent overlay. Nothing happens when `book` is not attached.
    pub fn upsert(&mut self, book: usize, e: &Entry) {
        let Some(&settings) = self.books.get(book) else {
            return;
        };
        let existing = self
            .by_id
            .get(&(book, e.id))
            .and_then(|&slot| Some((slot, self.live(slot)?)));
        let (slot, at, position) = match existing {
            Some((slot, g)) => {
                // The recent overlay is about to be rebuilt without this
                // entry's old keys, so its slot can stay; elsewhere the old
                // keys stay in their matcher, masked by the old slot.
                let slot = if let Some(i) = self.layers[1].slots.iter().position(|&s| s == slot) {
                    self.layers[1].slots.swap_remove(i);
                    slot
                } else {
                    self.slots[slot as usize] = GONE;
                    self.layers[0].slots.retain(|&s| s != slot);
                    self.new_slot()
                };
                (slot, g as usize, self.entries[g as usize].position)
            }
            None => {
                let first = self.entries.partition_point(|x| x.book < book);
                let end = self.entries.partition_point(|x| x.book <= book);
                (self.new_slot(), end, end - first)
            }
        };

        let base = self.matcher.key_count() as KeyId;
        if self.layers[1].slots.len() >= RECENT_LIMIT {
            let slots: Vec<u32> = self.layers.iter().flat_map(|l| l.slots.clone()).collect();
            let mut builder = MatcherBuilder::quick();
            self.copy_keys(&mut builder, &slots, base);
            self.layers[0] = Layer {
                matcher: builder.build().0,
                generation: next_generation(),
                slots,
            };
            self.layers[1].slots.clear();
        }
        // The other recent entries' keys are copied (no regex is compiled
        // again), then this entry's keys are compiled.
        let offset = base + self.layers[0].matcher.key_count() as KeyId;
        let mut builder = MatcherBuilder::quick();
        let mut slots = std::mem::take(&mut self.layers[1].slots);
        self.copy_keys(&mut builder, &slots, offset);
        let mut compiled = compile(&mut builder, slot, offset, book, position, e, settings);
        let (matcher, errors) = builder.build();
        // Only this entry's keys were compiled, so every error is its own.
        compiled.diagnostics.extend(errors.iter().map(key_error));
        slots.push(slot);
        self.layers[1] = Layer {
            matcher,
            generation: next_generation(),
            slots,
        };

        if existing.is_some() {
            self.entries[at] = compiled;
        } else {
            for g in self
                .slots
                .iter_mut()
                .filter(|g| **g != GONE && **g >= at as u32)
            {
                *g += 1;
            }
            self.entries.insert(at, compiled);
        }
        self.slots[slot as usize] = at as u32;
        self.by_id.insert((book, e.id), slot);
        self.summarize();
    }

    /// A slot for an entry about to be placed.
    fn new_slot(&mut self) -> u32 {
        self.slots.push(GONE);
        (self.slots.len() - 1) as u32
    }

    /// Adds the keys of the entries in `slots` to `builder`, copied from the
    /// matchers that hold them now, and renumbers the entries' key ids from
    /// `offset`.
    fn copy_keys(&mut self, builder: &mut MatcherBuilder, slots: &[u32], offset: KeyId) {
        for &s in slots {
            let Some(g) = self.live(s) else { continue };
            let c = &mut self.entries[g as usize];
            for ids in [&mut c.primary, &mut c.secondary] {
                for id in ids.iter_mut() {
                    let Some((m, local)) = locate(&self.matcher, &self.layers, *id) else {
                        continue;
                    };
                    if let Some(new) = builder.add_from(m, local) {
                        *id = new + offset;
                    }
                }
            }
        }
    }

    /// Removes entry `id` of attached book `book`; nothing happens when it
    /// is absent. Its keys stay in their matcher, masked by its slot.
    pub fn remove(&mut self, book: usize, id: u64) {
        let Some(slot) = self.by_id.remove(&(book, id)) else {
            return;
        };
        let Some(g) = self.live(slot) else {
            return;
        };
        self.slots[slot as usize] = GONE;
        for l in &mut self.layers {
            l.slots.retain(|&s| s != slot);
        }
        let g = g as usize;
        self.entries.remove(g);
        for s in self
            .slots
            .iter_mut()
            .filter(|s| **s != GONE && **s > g as u32)
        {
            *s -= 1;
        }
        for e in self.entries[g..].iter_mut().take_while(|e| e.book == book) {
            e.position -= 1;
        }
        // A malformed file may give two entries one id: the one left is now
        // the entry by that id, as in a fresh build.
        let first = self.entries.partition_point(|x| x.book < book);
        let end = self.entries.partition_point(|x| x.book <= book);
        let twin = self.entries[first..end].iter().rposition(|e| e.id == id);
        if let Some(t) = twin {
            let t = (first + t) as u32;
            if let Some(s) = self.slots.iter().position(|&x| x == t) {
                self.by_id.insert((book, id), s as u32);
            }
        }
        self.summarize();
    }

    /// Book `book`'s scan depth, budget or recursion changed: only the
    /// effective settings that derive from them are recomputed.
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
        *b = BookSettings {
            scan_depth,
            token_budget,
            recursive: recursive_scanning,
        };
        let first = self.entries.partition_point(|x| x.book < book);
        for e in self.entries[first..]
            .iter_mut()
            .take_while(|e| e.book == book)
        {
            e.depth = e.decorators.scan_depth.unwrap_or(scan_depth);
            e.recursive = recursive_scanning;
        }
        self.summarize();
    }

    /// How many entries are compiled in the overlays (edited since the last
    /// full build).
    pub fn overlay_len(&self) -> usize {
        self.layers.iter().map(|l| l.slots.len()).sum()
    }

    /// How many slots map to no entry: each masks keys that matchers still
    /// find (and then drop), so a full build is worth it once there are many.
    pub fn dead_slots(&self) -> usize {
        self.slots.len() - self.entries.len()
    }

    /// Recomputes the index-wide values that any entry or book can change.
    fn summarize(&mut self) {
        self.budget = self.books.iter().map(|b| b.token_budget).max().unwrap_or(0);
        self.any_recursive = self.books.iter().any(|b| b.recursive);
        self.any_stateful = self
            .entries
            .iter()
            .any(|e| e.decorators.keep || e.decorators.dont_activate_after_match);
        self.max_depth = self
            .entries
            .iter()
            .filter(|e| e.enabled)
            .map(|e| e.depth)
            .max()
            .unwrap_or(0);
        self.in_id_order = self
            .entries
            .windows(2)
            .all(|w| (w[0].book, w[0].id) < (w[1].book, w[1].id));
    }

    /// The position in `entries` of the entry in `slot`, if it has one.
    fn live(&self, slot: u32) -> Option<u32> {
        self.slots
            .get(slot as usize)
            .copied()
            .filter(|&g| g != GONE)
    }

    /// The base matcher (the keys as of the last full build).
    pub fn matcher(&self) -> &Matcher {
        &self.matcher
    }

    /// The text of key `id` (as written, trimmed).
    pub fn key_text(&self, id: KeyId) -> &str {
        match locate(&self.matcher, &self.layers, id) {
            Some((m, local)) => m.key_text(local),
            None => "",
        }
    }

    /// The compiled entry `id` of book `book`.
    pub fn entry(&self, book: usize, id: u64) -> Option<&CompiledEntry> {
        let g = self.live(*self.by_id.get(&(book, id))?)?;
        self.entries.get(g as usize)
    }

    /// Calls `f` with every live key hit in `text`, from the base matcher
    /// and from the overlays (masked by slot); owners are translated from
    /// slots to positions in `entries`.
    fn for_each_hit(
        &self,
        cache: &mut HitCache,
        text: &str,
        mut f: impl FnMut(KeyId, KeyOwner, u32, u32),
    ) {
        for h in cache.get(&self.matcher, text).iter() {
            let mut owner = self.matcher.owner(h.key);
            if let Some(g) = self.live(owner.entry) {
                owner.entry = g;
                f(h.key, owner, h.start, h.end);
            }
        }
        let mut offset = self.matcher.key_count() as KeyId;
        for (i, layer) in self.layers.iter().enumerate() {
            if layer.matcher.key_count() > 0 {
                for h in cache.get_layer(i, layer, text).iter() {
                    let mut owner = layer.matcher.owner(h.key);
                    if let Some(g) = self.live(owner.entry) {
                        owner.entry = g;
                        f(h.key + offset, owner, h.start, h.end);
                    }
                }
            }
            offset += layer.matcher.key_count() as KeyId;
        }
    }
}

/// The matcher that holds key `id` (in an index's numbering), and the key's
/// id there.
fn locate<'m>(base: &'m Matcher, layers: &'m [Layer], id: KeyId) -> Option<(&'m Matcher, KeyId)> {
    let mut local = id;
    for m in std::iter::once(base).chain(layers.iter().map(|l| &l.matcher)) {
        let n = m.key_count() as KeyId;
        if local < n {
            return Some((m, local));
        }
        local -= n;
    }
    None
}

/// Compiles entry `e` at `position` of book `book`, adding its keys to
/// `builder` as owned by `slot`, with key ids offset by `key_offset`.
fn compile(
    builder: &mut MatcherBuilder,
    slot: u32,
    key_offset: KeyId,
    book: usize,
    position: usize,
    e: &Entry,
    settings: BookSettings,
) -> CompiledEntry {
    let parsed = decorators::parse(&e.content);
    let d = parsed.decorators;
    let flags = KeyFlags {
        case_sensitive: e.case_sensitive,
        whole_words: e.whole_words,
        use_regex: e.use_regex,
    };
    let mut add = |keys: &[String], secondary: bool| {
        keys.iter()
            .enumerate()
            .filter_map(|(i, k)| {
                let owner = KeyOwner {
                    entry: slot,
                    secondary,
                    position: i as u32,
                };
                builder.add(k, owner, flags).map(|id| id + key_offset)
            })
            .collect::<Vec<_>>()
    };
    let primary = add(&e.keys, false);
    let secondary = add(&e.secondary_keys, true);
    let mut diagnostics = parsed.diagnostics;
    if e.selective && secondary.is_empty() && !e.constant {
        diagnostics.push(Diagnostic {
            line: None,
            severity: Severity::Warning,
            message: DiagnosticMessage::SelectiveWithoutSecondary,
        });
    }
    if primary.is_empty() && !e.constant && e.enabled {
        diagnostics.push(Diagnostic {
            line: None,
            severity: Severity::Warning,
            message: DiagnosticMessage::NoKeys,
        });
    }
    CompiledEntry {
        book,
        id: e.id,
        position,
        comment: e.comment.as_str().into(),
        enabled: e.enabled,
        constant: e.constant,
        recursive: settings.recursive,
        selective: e.selective && !secondary.is_empty(),
        logic: e.secondary_logic,
        primary,
        secondary,
        depth: d.scan_depth.unwrap_or(settings.scan_depth),
        order: d.order.unwrap_or(e.order),
        priority: d.priority.unwrap_or(e.priority),
        role: d.role.unwrap_or(e.role),
        decorators: d,
        body: parsed.body.into(),
        diagnostics,
    }
}

/// The diagnostic of a key whose pattern did not compile.
fn key_error(err: &KeyError) -> Diagnostic {
    Diagnostic {
        line: None,
        severity: Severity::Error,
        message: DiagnosticMessage::InvalidRegex {
            key: err.key.clone(),
            secondary: err.owner.secondary,
            error: err.message.clone(),
        },
    }
}

impl Index {
    /// Decides which entries activate in request `k` (the first `k`
    /// messages of `chat`), given what matched in earlier requests.
    pub fn activate(
        &self,
        cache: &mut HitCache,
        chat: &[Message],
        k: usize,
        seed: u64,
        state: &State,
    ) -> Activated {
        let history = &chat[..k.min(chat.len())];
        let k = history.len();
        let has_user = history.iter().any(|m| m.role == Speaker::User);
        let mut found = Found::default();

        // Pass 0 hits: each message of the widest window, newest first, so
        // the explanation names the most recent match.
        for i in (k.saturating_sub(self.max_depth as usize)..k).rev() {
            let age = (k - 1 - i) as u32;
            self.for_each_hit(cache, &history[i].text, |key, owner, start, end| {
                if age < self.entries[owner.entry as usize].depth {
                    found.add(
                        owner,
                        Loc {
                            key,
                            source: Source::Message { index: i },
                            start,
                            end,
                            pass: 0,
                        },
                    );
                }
            });
        }

        let mut status = Vec::with_capacity(self.entries.len());
        let mut sources = Vec::new();
        for (g, e) in self.entries.iter().enumerate() {
            let g = g as u32;
            let s = if !e.enabled {
                Status::Out(DropReason::Disabled)
            } else if let Some(reason) = gate(e, g, k, has_user, state) {
                Status::Out(reason)
            } else if e.constant {
                self.roll(e, Activation::Constant, seed, k)
            } else if let Some(&since) = state.matched.get(&g).filter(|_| e.decorators.keep) {
                self.roll(
                    e,
                    Activation::Kept {
                        since_request: since,
                    },
                    seed,
                    k,
                )
            } else {
                match self.evaluate(g, &found) {
                    Ok(activation) => self.roll(e, activation, seed, k),
                    Err(reason) => Status::Out(reason),
                }
            };
            if matches!(s, Status::Active { .. }) {
                sources.push(g);
            }
            status.push(s);
        }

        let mut passes = 0;
        if self.any_recursive {
            while passes < 3 && !sources.is_empty() {
                passes += 1;
                // The first body to mention a key is the one the explanation
                // names; scanning bodies by (book, id) rather than by
                // position keeps that independent of where entries sit in
                // their book, which incremental edits cannot track.
                if !self.in_id_order {
                    sources.sort_unstable_by_key(|&g| {
                        let e = &self.entries[g as usize];
                        (e.book, e.id, g)
                    });
                }
                let mut touched = Vec::new();
                for &s in &sources {
                    self.scan_body(cache, s, passes, &status, &mut found, &mut touched);
                }
                touched.sort_unstable();
                touched.dedup();
                let mut next = Vec::new();
                for t in touched {
                    let e = &self.entries[t as usize];
                    status[t as usize] = match self.evaluate(t, &found) {
                        Ok(activation) => self.roll(e, activation, seed, k),
                        Err(reason) => Status::Out(reason),
                    };
                    if matches!(status[t as usize], Status::Active { .. }) {
                        next.push(t);
                    }
                }
                sources = next;
            }
            // Recursion stopped with fresh bodies left unscanned: say so on
            // the entries whose keys are in them.
            if passes == 3 && !sources.is_empty() {
                let mut touched = Vec::new();
                let mut later = Found::default();
                for &s in &sources {
                    self.scan_body(cache, s, 4, &status, &mut later, &mut touched);
                }
                for t in touched {
                    if let Status::Out(DropReason::NoMatch {
                        recursion_stopped, ..
                    }) = &mut status[t as usize]
                    {
                        *recursion_stopped = later.primary.contains_key(&t);
                    }
                }
            }
        }
        Activated {
            request: k,
            status,
            passes,
        }
    }

    /// Scans the body of active entry `s` for entries that recursion may
    /// still activate.
    fn scan_body(
        &self,
        cache: &mut HitCache,
        s: u32,
        pass: u8,
        status: &[Status],
        found: &mut Found,
        touched: &mut Vec<u32>,
    ) {
        let src = &self.entries[s as usize];
        let source = Source::Entry {
            book: src.book,
            id: src.id,
        };
        self.for_each_hit(cache, &src.body, |key, owner, start, end| {
            let t = owner.entry;
            let target = &self.entries[t as usize];
            let waiting = matches!(
                status[t as usize],
                Status::Out(
                    DropReason::NoMatch { no_keys: false, .. } | DropReason::Secondary { .. }
                )
            );
            if !target.recursive || !waiting {
                return;
            }
            found.add(
                owner,
                Loc {
                    key,
                    source,
                    start,
                    end,
                    pass,
                },
            );
            touched.push(t);
        });
    }

    fn key_match(&self, l: &Loc) -> KeyMatch {
        KeyMatch {
            key: self.key_text(l.key).to_string(),
            source: l.source,
            start: l.start as usize,
            end: l.end as usize,
            pass: l.pass,
        }
    }

    /// Steps 4 and 6 for one entry: its keys against what was found.
    fn evaluate(&self, g: u32, found: &Found) -> Result<Activation, DropReason> {
        let e = &self.entries[g as usize];
        let Some(primary) = found.primary.get(&g) else {
            return Err(DropReason::NoMatch {
                recursion_stopped: false,
                no_keys: e.primary.is_empty(),
            });
        };
        let primary = self.key_match(primary);
        let matched: Vec<KeyMatch> = found
            .secondary
            .get(&g)
            .map(|l| l.iter().map(|l| self.key_match(l)).collect())
            .unwrap_or_default();
        if e.selective {
            let m = matched.len();
            let total = e.secondary.len();
            let ok = match e.logic {
                SecondaryLogic::AndAny => m > 0,
                SecondaryLogic::AndAll => m == total,
                SecondaryLogic::NotAny => m == 0,
                SecondaryLogic::NotAll => m < total,
            };
            if !ok {
                return Err(DropReason::Secondary {
                    logic: e.logic.as_str().to_string(),
                    primary,
                    matched,
                });
            }
        }
        Ok(Activation::Key {
            primary,
            secondary: if e.selective { matched } else { Vec::new() },
        })
    }

    /// Step 5: the probability roll, made once when the entry activates.
    fn roll(&self, e: &CompiledEntry, activation: Activation, seed: u64, k: usize) -> Status {
        let Some(chance) = e.decorators.probability else {
            return Status::Active {
                activation,
                roll: None,
            };
        };
        let roll = roll(seed, k, e.book, e.id);
        if roll < chance {
            Status::Active {
                activation,
                roll: Some(Roll { roll, chance }),
            }
        } else {
            Status::Out(DropReason::Probability {
                roll,
                chance,
                activation,
            })
        }
    }

    /// Records the entries that matched in `a` (activated and passed their
    /// roll), for `@@keep` and `@@dont_activate_after_match` later.
    pub fn record(&self, a: &Activated, state: &mut State) {
        for (g, s) in a.status.iter().enumerate() {
            if matches!(s, Status::Active { .. }) {
                state.matched.entry(g as u32).or_insert(a.request);
            }
        }
    }

    /// Steps 7–9: budget, placement and the final messages.
    pub fn finish(
        &self,
        a: Activated,
        tokens: &mut TokenCounter,
        template: &Template,
        chat: &[Message],
    ) -> RequestResult {
        let mut active = Vec::new();
        let mut candidates = Vec::new();
        let mut dropped = Vec::new();
        let mut out_of_budget: HashMap<u32, (u32, u32)> = HashMap::new();
        for (g, s) in a.status.iter().enumerate() {
            if let Status::Active { .. } = s {
                let e = &self.entries[g];
                active.push(g);
                candidates.push(Candidate {
                    book: e.book,
                    id: e.id,
                    priority: e.priority,
                    order: e.order,
                    tokens: tokens.count(&e.body),
                    constant: e.constant,
                });
            }
        }
        let outcome = budget::apply(&candidates, self.budget);
        let mut kept = Vec::new();
        for (i, v) in outcome.verdicts.iter().enumerate() {
            match *v {
                Verdict::Kept => kept.push(i),
                Verdict::Cut { needed, left } => {
                    out_of_budget.insert(active[i] as u32, (needed, left));
                }
            }
        }
        kept.sort_by(|&x, &y| {
            let (a, b) = (&candidates[x], &candidates[y]);
            placement::compare(
                (a.order, a.priority, a.book, a.id),
                (b.order, b.priority, b.book, b.id),
            )
        });
        let mut injected = Vec::with_capacity(kept.len());
        let mut lore = Vec::with_capacity(kept.len());
        for i in kept {
            let g = active[i];
            let e = &self.entries[g];
            let Status::Active { activation, roll } = &a.status[g] else {
                continue;
            };
            injected.push(Injected {
                book: e.book,
                id: e.id,
                role: e.role,
                order: e.order,
                priority: e.priority,
                tokens: candidates[i].tokens,
                constant: e.constant,
                roll: *roll,
                reason: activation.clone(),
            });
            lore.push(LoreMessage {
                book: e.book,
                id: e.id,
                role: e.role,
                body: &e.body,
            });
        }
        for (g, s) in a.status.into_iter().enumerate() {
            let e = &self.entries[g];
            let reason = match s {
                Status::Out(reason) => reason,
                Status::Active { activation, .. } => match out_of_budget.get(&(g as u32)) {
                    Some(&(needed, left)) => DropReason::Budget {
                        needed,
                        left,
                        activation,
                    },
                    None => continue,
                },
            };
            dropped.push(Dropped {
                book: e.book,
                id: e.id,
                reason,
            });
        }
        if !self.in_id_order {
            // Stable, so entries sharing an id (a malformed file) keep their
            // order in the book.
            dropped.sort_by_key(|d| (d.book, d.id));
        }
        let history = &chat[..a.request.min(chat.len())];
        RequestResult {
            request: a.request,
            budget: BudgetUse {
                limit: self.budget,
                used: outcome.used,
                constants: outcome.constants,
                over_by_constants: outcome.over_by_constants,
                first_cut: outcome.first_cut.map(|i| EntryKey {
                    book: candidates[i].book,
                    id: candidates[i].id,
                }),
            },
            messages: prompt::assemble(template, &lore, history),
            injected,
            dropped,
            passes: a.passes,
        }
    }
}

/// Step 2: the gate decorators.
fn gate(e: &CompiledEntry, g: u32, k: usize, has_user: bool, state: &State) -> Option<DropReason> {
    let d = &e.decorators;
    let gated = |detail: GateDetail| {
        Some(DropReason::Gated {
            decorator: detail.decorator().into(),
            detail,
        })
    };
    if let Some(needed) = d.activate_only_after {
        if (k as u64) < needed {
            return gated(GateDetail::TooFewMessages { needed, has: k });
        }
    }
    if let Some(every) = d.activate_only_every {
        if (k as u64) % every != 0 {
            return gated(GateDetail::NotAMultiple { has: k, every });
        }
    }
    if d.is_greeting && has_user {
        return gated(GateDetail::UserHasSpoken);
    }
    if d.dont_activate_after_match {
        if let Some(&request) = state.matched.get(&g) {
            return gated(GateDetail::AlreadyMatched { request });
        }
    }
    None
}

/// The stable roll of SPEC §4: 0–99 from `(seed, request, book, entry)`.
pub fn roll(seed: u64, request: usize, book: usize, id: u64) -> u8 {
    let mut h = splitmix(seed);
    h = splitmix(h ^ request as u64);
    h = splitmix(h ^ book as u64);
    h = splitmix(h ^ id);
    (h % 100) as u8
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}
