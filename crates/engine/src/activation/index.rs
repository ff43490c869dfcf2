//! The index (SPEC §6, before step 1): the attached books compiled once for
//! activation, and the overlay that keeps single-entry edits cheap.
//!
//! [`Index::build`] parses every entry's decorators, resolves its effective
//! settings and puts every key in one [`Matcher`]. Building that matcher
//! takes far longer than a frame on a large book, so edits
//! ([`Index::upsert`], [`Index::remove`], [`Index::set_book_settings`]) keep
//! it: an edited entry's keys go into overlay matchers instead — a *recent*
//! one, rebuilt on every edit and so kept to [`RECENT_LIMIT`] entries, and an
//! *older* one that the recent one is merged into when full.
//!
//! Key owners in every matcher are [`Slot`]s, stable numbers that map to the
//! entry's current [`EntryIx`]; the slot of a replaced or removed entry maps
//! to nothing, which masks its old keys without rebuilding the matcher that
//! holds them.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::decorators::{self, Decorators, Diagnostic};
use crate::lint;
use crate::matcher::{KeyFlags, KeyId, KeyOwner, Matcher, MatcherBuilder};
use crate::model::{Book, Entry, Role, SecondaryLogic};

/// Position of an entry in [`Index::entries`] (by book, then position in
/// its book). Adding or removing an entry shifts the ones after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct EntryIx(u32);

impl EntryIx {
    pub(super) fn new(i: usize) -> EntryIx {
        EntryIx(i as u32)
    }

    pub(super) fn get(self) -> usize {
        self.0 as usize
    }
}

/// The stable number that owns an entry's keys in the matchers
/// ([`KeyOwner::entry`]); unlike an [`EntryIx`], edits of other entries do
/// not change it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Slot(u32);

impl Slot {
    /// The slot that owns the keys of `owner`.
    pub(super) fn of(owner: KeyOwner) -> Slot {
        Slot(owner.entry)
    }

    fn get(self) -> usize {
        self.0 as usize
    }
}

/// A key in the index's numbering: the base matcher's keys first, then the
/// older overlay's, then the recent overlay's (see [`Index::key_text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyIx(u32);

impl KeyIx {
    /// Key `local` of a matcher whose keys start at `offset`.
    pub(super) fn new(local: KeyId, offset: u32) -> KeyIx {
        KeyIx(local + offset)
    }
}

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
    /// A folder: never enabled, and left out of the result's lists.
    pub folder: bool,
    pub constant: bool,
    /// Its book has recursive scanning on.
    pub recursive: bool,
    /// Selective with at least one secondary key.
    pub selective: bool,
    pub logic: SecondaryLogic,
    pub primary: Vec<KeyIx>,
    pub secondary: Vec<KeyIx>,
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

/// Entries in the recent overlay above which it is merged into the older
/// one. Every edit rebuilds the recent overlay, so it stays small; merging
/// costs about a millisecond with a few hundred edited entries, once every
/// this many distinct entries edited.
pub const RECENT_LIMIT: usize = 8;

/// How many entries [`Index::build_while`] compiles between two questions
/// whether to go on (the first is asked before the first entry): well
/// under a millisecond of plain keys, a few tens of milliseconds when
/// each entry has a regex key to compile.
pub const BUILD_CHECK_EVERY: usize = 128;

/// Keys of some edited entries, owned by slots.
#[derive(Debug, Default)]
pub(super) struct Layer {
    pub(super) matcher: Matcher,
    /// Tells a hit cache that hits it holds for this layer are stale.
    pub(super) generation: u64,
    /// Slots of the entries whose keys are here (and live).
    slots: Vec<Slot>,
}

/// The settings of one attached book that compiled entries depend on.
#[derive(Debug, Clone, Copy)]
struct BookSettings {
    scan_depth: u32,
    token_budget: u32,
    recursive: bool,
}

/// A fresh number for a matcher, so a hit cache can tell that the overlay
/// it cached hits of has been replaced.
fn next_generation() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The compiled form of a set of attached books.
#[derive(Debug, Default)]
pub struct Index {
    /// Every entry, by book and then position in its book.
    pub entries: Vec<CompiledEntry>,
    /// Keys of the entries as last fully built, owned by slots.
    pub(super) matcher: Matcher,
    /// Keys of the entries upserted since: the older overlay, then the
    /// recent one.
    pub(super) layers: [Layer; 2],
    /// The entry of each slot; `None` once it was replaced or removed.
    slots: Vec<Option<EntryIx>>,
    books: Vec<BookSettings>,
    /// The largest `token_budget` of the attached books.
    pub budget: u32,
    pub(super) any_recursive: bool,
    /// Some entry uses `@@keep` or `@@dont_activate_after_match`.
    pub any_stateful: bool,
    /// The deepest scan depth of an enabled entry.
    pub(super) max_depth: u32,
    /// `entries` are in (book, id) order, as when ids grow with positions:
    /// then results need no sorting by id.
    pub(super) in_id_order: bool,
    /// The entries a request decides even when none of their keys was
    /// found (`studio::needs_a_look`), in position order; every other
    /// entry without a match is "no match" without being looked at, so a
    /// request costs what its matches cost, not what the book holds.
    pub(super) loud: Vec<EntryIx>,
    /// Each entry's (book, id), by position: what every request reads of
    /// every entry it drops, kept apart so that reading does not walk the
    /// whole compiled entries (issue 24).
    pub(super) keys: Vec<(usize, u64)>,
    /// Whether each entry is a folder, by position, kept apart for the
    /// same reason: reading the flag from 100,000 compiled entries per
    /// request was half of what a request's dropped list cost (issue 24).
    pub(super) folders: Vec<bool>,
    by_id: HashMap<(usize, u64), Slot>,
}

impl Index {
    /// Compiles `books` (in attachment order).
    pub fn build(books: &[Book]) -> Index {
        // Never stopped, so never `None`; the empty index is only a type's
        // answer.
        Index::build_while(books, || true).unwrap_or_default()
    }

    /// [`Index::build`] that asks `keep_going` every [`BUILD_CHECK_EVERY`]
    /// entries and between the phases that cost time (compiling the
    /// entries, building the key matcher), and stops when it says no: then
    /// `None`, and nothing was kept. The app builds with it while holding
    /// its workspace, so a save or the exit-signal handler waiting for the
    /// workspace does not wait for a whole build of a big book.
    pub fn build_while(books: &[Book], keep_going: impl Fn() -> bool) -> Option<Index> {
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
                if entries.len() % BUILD_CHECK_EVERY == 0 && !keep_going() {
                    return None;
                }
                // At build time an entry's slot is its position in `entries`.
                let slot = Slot(entries.len() as u32);
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
        // Building the matcher's automata is one step that cannot stop
        // half-way; what follows it is quick, so it is kept once begun.
        if !keep_going() {
            return None;
        }
        let (matcher, errors) = builder.build();
        for err in errors {
            if let Some(e) = entries.get_mut(Slot::of(err.owner).get()) {
                e.diagnostics.push(lint::key_error(&err));
            }
        }
        let slots = (0..entries.len()).map(|i| Some(EntryIx::new(i))).collect();
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
            loud: Vec::new(),
            keys: Vec::new(),
            folders: Vec::new(),
            by_id,
        };
        index.summarize();
        Some(index)
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
            Some((slot, at)) => {
                // The recent overlay is about to be rebuilt without this
                // entry's old keys, so its slot can stay; elsewhere the old
                // keys stay in their matcher, masked by the old slot.
                let slot = if let Some(i) = self.layers[1].slots.iter().position(|&s| s == slot) {
                    self.layers[1].slots.swap_remove(i);
                    slot
                } else {
                    self.slots[slot.get()] = None;
                    self.layers[0].slots.retain(|&s| s != slot);
                    self.new_slot()
                };
                (slot, at.get(), self.entries[at.get()].position)
            }
            None => {
                let range = self.book_range(book);
                (self.new_slot(), range.end, range.len())
            }
        };

        let base = self.matcher.key_count() as u32;
        if self.layers[1].slots.len() >= RECENT_LIMIT {
            let slots: Vec<Slot> = self.layers.iter().flat_map(|l| l.slots.clone()).collect();
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
        let offset = base + self.layers[0].matcher.key_count() as u32;
        let mut builder = MatcherBuilder::quick();
        let mut slots = std::mem::take(&mut self.layers[1].slots);
        self.copy_keys(&mut builder, &slots, offset);
        let mut compiled = compile(&mut builder, slot, offset, book, position, e, settings);
        let (matcher, errors) = builder.build();
        // Only this entry's keys were compiled, so every error is its own.
        compiled
            .diagnostics
            .extend(errors.iter().map(lint::key_error));
        slots.push(slot);
        self.layers[1] = Layer {
            matcher,
            generation: next_generation(),
            slots,
        };

        if existing.is_some() {
            self.entries[at] = compiled;
        } else {
            for ix in self.slots.iter_mut().flatten() {
                if ix.get() >= at {
                    ix.0 += 1;
                }
            }
            self.entries.insert(at, compiled);
        }
        self.slots[slot.get()] = Some(EntryIx::new(at));
        self.by_id.insert((book, e.id), slot);
        self.summarize();
    }

    /// A slot for an entry about to be placed.
    fn new_slot(&mut self) -> Slot {
        self.slots.push(None);
        Slot((self.slots.len() - 1) as u32)
    }

    /// Adds the keys of the entries in `slots` to `builder`, copied from the
    /// matchers that hold them now, and renumbers the entries' keys from
    /// `offset`.
    fn copy_keys(&mut self, builder: &mut MatcherBuilder, slots: &[Slot], offset: u32) {
        for &s in slots {
            let Some(at) = self.live(s) else { continue };
            let c = &mut self.entries[at.get()];
            for keys in [&mut c.primary, &mut c.secondary] {
                for key in keys.iter_mut() {
                    let Some((m, local)) = locate(&self.matcher, &self.layers, *key) else {
                        continue;
                    };
                    if let Some(new) = builder.add_from(m, local) {
                        *key = KeyIx::new(new, offset);
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
        let Some(at) = self.live(slot) else {
            return;
        };
        self.slots[slot.get()] = None;
        for l in &mut self.layers {
            l.slots.retain(|&s| s != slot);
        }
        self.entries.remove(at.get());
        for ix in self.slots.iter_mut().flatten() {
            if *ix > at {
                ix.0 -= 1;
            }
        }
        for e in self.entries[at.get()..]
            .iter_mut()
            .take_while(|e| e.book == book)
        {
            e.position -= 1;
        }
        // A malformed file may give two entries one id: the one left is now
        // the entry by that id, as in a fresh build.
        let range = self.book_range(book);
        let twin = self.entries[range.clone()].iter().rposition(|e| e.id == id);
        if let Some(t) = twin {
            let twin = Some(EntryIx::new(range.start + t));
            if let Some(s) = self.slots.iter().position(|&x| x == twin) {
                self.by_id.insert((book, id), Slot(s as u32));
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
        let range = self.book_range(book);
        for e in &mut self.entries[range] {
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
        self.keys = self.entries.iter().map(|e| (e.book, e.id)).collect();
        self.folders = self.entries.iter().map(|e| e.folder).collect();
        self.loud = (0..self.entries.len())
            .filter(|&i| super::studio::needs_a_look(&self.entries[i]))
            .map(EntryIx::new)
            .collect();
    }

    /// Where the entries of book `book` are in `entries`.
    fn book_range(&self, book: usize) -> Range<usize> {
        let first = self.entries.partition_point(|x| x.book < book);
        let end = self.entries.partition_point(|x| x.book <= book);
        first..end
    }

    /// The entry in `slot`, if it has one.
    pub(super) fn live(&self, slot: Slot) -> Option<EntryIx> {
        self.slots.get(slot.get()).copied().flatten()
    }

    /// The compiled entry at `at`.
    pub(super) fn at(&self, at: EntryIx) -> &CompiledEntry {
        &self.entries[at.get()]
    }

    /// The text of key `key` (as written, trimmed).
    pub fn key_text(&self, key: KeyIx) -> &str {
        match locate(&self.matcher, &self.layers, key) {
            Some((m, local)) => m.key_text(local),
            None => "",
        }
    }

    /// The compiled entry `id` of book `book`.
    pub fn entry(&self, book: usize, id: u64) -> Option<&CompiledEntry> {
        let at = self.live(*self.by_id.get(&(book, id))?)?;
        self.entries.get(at.get())
    }
}

/// The matcher that holds key `key`, and the key's id there.
fn locate<'m>(base: &'m Matcher, layers: &'m [Layer], key: KeyIx) -> Option<(&'m Matcher, KeyId)> {
    let mut local = key.0;
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
/// `builder` as owned by `slot`, numbered in the index from `key_offset`.
fn compile(
    builder: &mut MatcherBuilder,
    slot: Slot,
    key_offset: u32,
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
                    entry: slot.0,
                    secondary,
                    position: i as u32,
                };
                builder
                    .add(k, owner, flags)
                    .map(|id| KeyIx::new(id, key_offset))
            })
            .collect::<Vec<_>>()
    };
    let primary = add(&e.keys, false);
    let secondary = add(&e.secondary_keys, true);
    let mut diagnostics = parsed.diagnostics;
    diagnostics.extend(lint::entry_lints(e, primary.len(), secondary.len()));
    CompiledEntry {
        book,
        id: e.id,
        position,
        comment: e.comment.as_str().into(),
        // A folder holds entries and never fires (crate::folders).
        enabled: e.enabled && !e.folder,
        folder: e.folder,
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
