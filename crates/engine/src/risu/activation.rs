//! One request under RisuAI's rules (RisuAI 460ecae's
//! `loadLoreBookV3Prompt`): the passes, each entry's decorators and key
//! queries, then the budget, the final order and `@@inject_lore`
//! (docs/risu-rules.md, "Activation" and "Budget and order").

use super::decorators::{run, Line};
use super::detail::{Found, RisuDrop, RisuWhy};
use super::hot::HotTable;
use super::matching::{regex_search, KeyTable, RegexEnd};
use super::texts::{body_hits, At, BodyCaches, QuerySlot, RegexSearch, Texts};
use super::watch::{Due, PassOrder, Watchers};

#[path = "effects.rs"]
mod effects;
#[path = "statics.rs"]
mod statics;
use super::{Position, Prepared, RisuSettings, RisuState};
use crate::model::Role;
pub(crate) use statics::{Known, Statics};

/// A key query of an entry, in the order RisuAI runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QueryKind {
    /// `@@additional_keys`: one of its keys must be found.
    Additional,
    /// `@@exclude_keys`: none may be found.
    Exclude,
    /// `@@exclude_keys_all`: excluded when every key is in every text.
    ExcludeAll,
    Primary,
    Secondary,
}

/// What `@@inject_*` lines set.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Inject {
    pub location: String,
    /// `@@inject_lore` (into an entry) rather than `@@inject_at`.
    pub lore: bool,
    pub op: InjectOp,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum InjectOp {
    Append,
    Prepend,
    Replace(String),
}

/// Force state: `@@activate`, `@@dont_activate` and the after-match state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Force {
    None,
    On { kept: bool },
    Off { not_again: bool },
}

/// The state one evaluation builds (RisuAI's per-entry variables).
#[derive(Debug, Clone)]
pub(crate) struct Eval {
    gate: Option<RisuDrop>,
    position: Position,
    depth: f64,
    role: Role,
    scan_depth: f64,
    full_word: bool,
    priority: f64,
    force: Force,
    queries: Vec<(QueryKind, usize)>,
    recursive: Option<bool>,
    no_recursive_search: bool,
    inject: Option<Inject>,
    throws: bool,
}

/// An activated entry, before the budget.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub entry: usize,
    /// The entry whose body it brings (a child brings its folder's).
    pub source: usize,
    pub pass: u32,
    pub position: Position,
    pub depth: f64,
    pub role: Role,
    pub order: f64,
    pub priority: f64,
    /// The body when `@@inject_lore` changed it; `None`: the source
    /// entry's own ([`Record::text`]), so a record neither copies nor
    /// counts a reference to it (most are cut by the budget).
    pub body: Option<std::sync::Arc<str>>,
    pub tokens: u32,
    pub why: Why,
    /// Boxed: rare, and a record is made for each of the thousands of
    /// entries a request can activate.
    pub inject: Option<Box<Inject>>,
}

impl Record {
    /// The text it brings: its injected body, else its source's.
    pub fn text<'e>(&'e self, entries: &'e [Prepared]) -> &'e str {
        self.body.as_deref().unwrap_or(&entries[self.source].body)
    }
}

/// Why an entry activated, named for people only when the answer shows
/// it ([`Why::named`]): most activated entries are cut by the budget.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Why {
    /// Boxed, so that a record stays small.
    Named(Box<RisuWhy>),
    /// Key `key` of the entry's primary keys (of the entry whose body it
    /// brings), found at `at`.
    Key { key: usize, at: At },
}

impl Why {
    /// The reason in words; `entries` are the preview's, `source` the
    /// record's.
    pub fn named(self, entries: &[Prepared], source: usize) -> RisuWhy {
        match self {
            Why::Named(why) => *why,
            Why::Key { key, at } => RisuWhy::Key {
                key: entries[source].primary.raw[key].clone(),
                found: at.found(|e| entries[e].name.clone()),
            },
        }
    }
}

/// The request's fixed inputs.
pub(crate) struct Request<'p> {
    pub entries: &'p [Prepared],
    pub keys: &'p KeyTable,
    /// What is kept of each entry's body between requests.
    pub bodies: &'p BodyCaches,
    pub watchers: &'p Watchers,
    /// What a pass reads of each entry, side by side, so a pass reads a
    /// few bytes an entry it passes over.
    pub hot: &'p HotTable,
    /// No entry is passed over for want of a waking key.
    pub every_entry: bool,
    /// Each entry's decorators run once, when none of them depends on the
    /// request ([`Request::static_evals`]); empty while they are made.
    pub statics: &'p [Option<Eval>],
    pub settings: &'p RisuSettings,
    pub seed: u64,
    pub request: usize,
}

/// The outcome of the passes.
pub(crate) struct Passes {
    pub records: Vec<Record>,
    /// Why each entry is out.
    pub dropped: Drops,
    pub passes: u32,
    /// The entry whose `@@position` line has no argument (RisuAI throws).
    pub failure: Option<usize>,
}

/// Why each entry is out, as the passes last found: one number an entry
/// (none, no match, or a place in a list of the other reasons), so a
/// request does not write a reason for each of the thousands of entries
/// it finds no key of.
pub(crate) struct Drops {
    code: Vec<u32>,
    others: Vec<RisuDrop>,
}

impl Drops {
    const NONE: u32 = 0;
    const NO_MATCH: u32 = 1;

    fn new(n: usize) -> Self {
        Drops {
            code: vec![Self::NONE; n],
            others: Vec::new(),
        }
    }

    /// Every entry out for `why`.
    fn all(n: usize, why: RisuDrop) -> Self {
        Drops {
            code: vec![2; n],
            others: vec![why],
        }
    }

    fn no_match(&mut self, i: usize) {
        self.code[i] = Self::NO_MATCH;
    }

    fn clear(&mut self, i: usize) {
        self.code[i] = Self::NONE;
    }

    fn set(&mut self, i: usize, why: RisuDrop) {
        if why == RisuDrop::NoMatch {
            return self.no_match(i);
        }
        // A reason replaced later stays in the list unread.
        self.code[i] = self.others.len() as u32 + 2;
        self.others.push(why);
    }

    /// Each entry that is out, in order, with why.
    pub fn each(self, mut f: impl FnMut(usize, RisuDrop)) {
        for (i, &c) in self.code.iter().enumerate() {
            match c {
                Self::NONE => {}
                Self::NO_MATCH => f(i, RisuDrop::NoMatch),
                c => f(i, self.others[c as usize - 2].clone()),
            }
        }
    }
}

/// Call-wide flags of the after-match decorators: once one is read, every
/// entry activated later in the call records its state (RisuAI's leak).
#[derive(Default)]
struct Flags {
    keep: bool,
    dont: bool,
}

impl Request<'_> {
    /// Runs the passes: each walks the entries not yet active in order; a
    /// new pass runs when an entry with recursion on activated.
    pub fn passes(&self, texts: &mut Texts, state: &mut RisuState) -> Passes {
        let n = self.entries.len();
        let mut active = vec![false; n];
        let mut last_drop = Drops::new(n);
        // Room for every entry: a recursive book can activate thousands.
        let mut records = Vec::with_capacity(n);
        let mut flags = Flags::default();
        let book_start = texts.window_start(self.settings.scan_depth);
        let chat_length = texts.messages.len() + 1;
        // An entry only its keys can change is evaluated when a key of it
        // is found for the first time (`due`): in the window's messages,
        // then in each recursive text as it is added. Until then it is out
        // for want of a key, as the check below would find.
        let mut due = Due::new(n);
        for (i, h) in self.hot.hot.iter().enumerate() {
            if h.skippable {
                last_drop.no_match(i);
            }
        }
        // The entries every pass evaluates: all of them when asked, else
        // those that are not only their keys' (a decorator reads the
        // request, a forced answer, ...); the others only when woken.
        let every: Vec<usize> = (0..n)
            .filter(|&i| self.every_entry || !self.hot.hot[i].skippable)
            .collect();
        let mut seen = self.watchers.seen();
        for h in &texts.hits[book_start..] {
            self.watchers.wake(h, &mut seen, &mut due);
        }
        let mut pass = 0u32;
        loop {
            pass += 1;
            let mut again = false;
            // The entries of this pass in the book's order: the next of
            // `every` or of the woken ones, whichever comes first (an
            // entry woken by a text added in this pass is evaluated in
            // this pass when the pass has not gone by it yet, as a pass
            // over every entry would).
            let mut order = PassOrder::default();
            while let Some(i) = order.next(&every, &mut due) {
                if active[i] {
                    continue;
                }
                let h = &self.hot.hot[i];
                // Entries that only keys can turn on: rejected when none
                // of their primary keys is anywhere (a superset of what
                // their queries would see).
                if h.quick && !h.use_regex && !self.any_key_anywhere(i, texts, book_start) {
                    last_drop.no_match(i);
                    continue;
                }
                match self.evaluate(i, pass, texts, state, &mut flags, &active, chat_length) {
                    Err(drop) => last_drop.set(i, drop),
                    Ok(None) => {
                        return Passes {
                            records: Vec::new(),
                            dropped: Drops::all(n, RisuDrop::Failed),
                            passes: pass,
                            failure: Some(i),
                        }
                    }
                    Ok(Some((record, recursive))) => {
                        active[i] = true;
                        last_drop.clear(i);
                        if flags.keep {
                            state.remember("ka:", &self.entries[i].state_key);
                        }
                        if flags.dont {
                            state.remember("da:", &self.entries[i].state_key);
                        }
                        if recursive {
                            let hits = body_hits(
                                self.bodies,
                                self.keys,
                                self.watchers,
                                record.source,
                                self.entries,
                            );
                            // A key no recursive text held may still be
                            // in the window: the watchers know it then.
                            let (watchers, seen, due) = (self.watchers, &mut seen, &mut due);
                            texts.push_recursive(i, record.source, hits, |partial, id| {
                                watchers.wake_id(partial, id, seen, due)
                            });
                            again = true;
                        }
                        records.push(record);
                    }
                }
            }
            if !again {
                break;
            }
        }
        let dropped = last_drop;
        Passes {
            records,
            dropped,
            passes: pass,
            failure: None,
        }
    }

    /// Whether a primary key of entry `i` (without regex keys, which can
    /// match text plain matching never sees) is anywhere in the texts.
    fn any_key_anywhere(&self, i: usize, texts: &mut Texts, start: usize) -> bool {
        texts.ensure_window(start);
        let (wp, wf) = texts.window(start);
        self.hot.primary(i).iter().any(|id| {
            wp.contains(&id.partial)
                || wf.contains(&id.full)
                || texts.recursive_partial.contains(&id.partial)
                || texts.recursive_full.contains(&id.full)
        })
    }

    /// One entry in one pass. `Err` why it is out, `Ok(None)` when RisuAI
    /// throws, `Ok(Some)` the record and whether it recurses.
    #[allow(clippy::too_many_arguments)]
    fn evaluate(
        &self,
        i: usize,
        pass: u32,
        texts: &mut Texts,
        state: &RisuState,
        flags: &mut Flags,
        active: &[bool],
        chat_length: usize,
    ) -> Result<Option<(Record, bool)>, RisuDrop> {
        let h = &self.hot.hot[i];
        let mut always = h.always_active;
        if !always && h.key_empty {
            return Err(RisuDrop::EmptyKey);
        }
        let p = &self.entries[i];
        // A child stands in for the first earlier entry with its id.
        let mut source = p;
        let mut source_index = i;
        let mut child_failed = false;
        if h.child {
            let parent = p
                .lore
                .id
                .as_ref()
                .and_then(|id| (0..i).find(|&j| self.entries[j].lore.id.as_ref() == Some(id)));
            match parent {
                Some(j) if !active[j] => {
                    source = &self.entries[j];
                    source_index = j;
                    always = true;
                }
                _ => child_failed = true,
            }
        }
        let key = &source.state_key;
        // A child runs its folder's decorators from its own priority.
        let known = if source_index == i {
            h.known
        } else {
            Known::Run
        };
        let mut e = match known {
            Known::Fresh {
                full_word,
                priority,
            } => {
                let mut e = self.fresh_eval(priority);
                e.full_word = full_word;
                e.gate = child_failed.then_some(RisuDrop::Child);
                e
            }
            Known::Stored => {
                let mut e = self.statics[i].clone().expect("a stored eval");
                if child_failed {
                    e.gate = Some(RisuDrop::Child);
                }
                e
            }
            Known::Run => {
                let mut e = self.fresh_eval(h.insertorder);
                e.gate = child_failed.then_some(RisuDrop::Child);
                run(&source.lines, |l| {
                    self.decorator(l, &mut e, state, flags, key, i, pass, chat_length)
                });
                e
            }
        };
        if e.throws {
            return Ok(None);
        }
        let (line_queries, deco_keys) = (&e.queries, &source.deco_keys);
        let mut why = if child_failed {
            None
        } else if h.child {
            Some(Why::Named(Box::new(RisuWhy::Child)))
        } else if always {
            Some(Why::Named(Box::new(RisuWhy::Always)))
        } else {
            None
        };
        if e.gate.is_none() && e.force == Force::None && !always {
            let start = texts.window_start(e.scan_depth);
            let rec = !e.no_recursive_search;
            // In RisuAI's order, without a list made per evaluation.
            let secondary = self.hot.hot[source_index].secondary;
            // The primary keys' ids are read from the side-by-side table.
            let primary_ids = self.hot.primary(source_index);
            let queries = line_queries
                .iter()
                .map(|&(kind, line)| (kind, &deco_keys[line], deco_keys[line].ids.as_slice(), line))
                .chain(std::iter::once((
                    QueryKind::Primary,
                    &source.primary,
                    primary_ids,
                    0,
                )))
                .chain(secondary.then_some((
                    QueryKind::Secondary,
                    &source.secondary,
                    source.secondary.ids.as_slice(),
                    0,
                )));
            let names = |j: usize| self.entries[j].name.clone();
            for (kind, q, ids, line) in queries {
                // Read only for a key line's drop: the lines are not read
                // for the primary and secondary queries.
                let number = || source.lines.get(line).map_or(0, |l| l.number);
                if self.hot.hot[source_index].use_regex {
                    let end = regex_search(&q.raw, texts.raw(start, rec, self.entries));
                    texts.regex_searches.push(RegexSearch {
                        source: source_index,
                        query: match kind {
                            QueryKind::Primary => QuerySlot::Primary,
                            QueryKind::Secondary => QuerySlot::Secondary,
                            _ => QuerySlot::Line(line),
                        },
                        start,
                        recursive: rec.then_some(texts.recursive.len()),
                        end,
                    });
                    let found = matches!(end, RegexEnd::Matched { .. });
                    let fail = match kind {
                        QueryKind::Exclude | QueryKind::ExcludeAll => found,
                        _ => !found,
                    };
                    if kind == QueryKind::Primary && found {
                        let text = match end {
                            RegexEnd::Matched { text } => text,
                            _ => 0,
                        };
                        let found = if start + text < texts.messages.len() {
                            Found::Message {
                                n: start + text + 1,
                            }
                        } else {
                            let r = start + text - texts.messages.len();
                            Found::Entry {
                                name: names(texts.recursive[r].0),
                            }
                        };
                        why = Some(Why::Named(Box::new(RisuWhy::Key {
                            key: q.raw.first().cloned().unwrap_or_default(),
                            found,
                        })));
                    }
                    if fail {
                        e.gate = Some(match kind {
                            QueryKind::Primary => RisuDrop::Regex { end },
                            QueryKind::Secondary => RisuDrop::Secondary,
                            QueryKind::Additional => RisuDrop::Additional { line: number() },
                            QueryKind::Exclude => RisuDrop::Excluded {
                                key: q.raw.join(", "),
                                found: Found::Message { n: start + 1 },
                            },
                            QueryKind::ExcludeAll => RisuDrop::ExcludedAll { line: number() },
                        });
                        break;
                    }
                    continue;
                }
                match kind {
                    QueryKind::ExcludeAll => {
                        if texts.all(ids, e.full_word, start, rec, self.bodies) {
                            e.gate = Some(RisuDrop::ExcludedAll { line: number() });
                            break;
                        }
                    }
                    _ => {
                        let hit = texts.find(ids, e.full_word, start, rec);
                        match (kind, hit) {
                            (QueryKind::Exclude, Some((key, at))) => {
                                e.gate = Some(RisuDrop::Excluded {
                                    key: q.raw[key].clone(),
                                    found: at.found(names),
                                });
                                break;
                            }
                            (QueryKind::Exclude, None) => {}
                            (QueryKind::Primary, Some((key, at))) => {
                                why = Some(Why::Key { key, at });
                            }
                            (_, Some(_)) => {}
                            (QueryKind::Primary, None) => {
                                e.gate = Some(RisuDrop::NoMatch);
                                break;
                            }
                            (QueryKind::Secondary, None) => {
                                e.gate = Some(RisuDrop::Secondary);
                                break;
                            }
                            (_, None) => {
                                e.gate = Some(RisuDrop::Additional { line: number() });
                                break;
                            }
                        }
                    }
                }
            }
        }
        match e.force {
            Force::On { kept } => {
                why = Some(Why::Named(Box::new(if kept {
                    RisuWhy::Kept
                } else {
                    RisuWhy::Forced
                })));
            }
            Force::Off { not_again } => {
                return Err(if not_again {
                    RisuDrop::NotAgain
                } else {
                    RisuDrop::ForcedOff
                })
            }
            Force::None => {
                if let Some(drop) = e.gate {
                    return Err(drop);
                }
            }
        }
        let why = why.unwrap_or(Why::Named(Box::new(RisuWhy::Always)));
        let recursive = e.recursive.unwrap_or(self.settings.recursive_scanning);
        Ok(Some((
            Record {
                entry: i,
                source: source_index,
                pass,
                position: e.position,
                depth: e.depth,
                role: e.role,
                order: h.insertorder,
                priority: e.priority,
                body: None,
                tokens: 0,
                why,
                inject: e.inject.map(Box::new),
            },
            recursive,
        )))
    }
}

/// The index of a key line among the entry's lines (its `deco_keys` slot).
fn line_index(l: &Line, _e: &Eval) -> usize {
    // Lines are numbered from 1 in a content whose decorators come first,
    // so a decorator's slot is its number − 1.
    l.number - 1
}
