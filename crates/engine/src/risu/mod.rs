//! RisuAI's lorebook rules (its 2026 mainline, and 460ecae where they
//! differ: [`RisuVersion`]), as the `risu` rule profile.
//!
//! [`RisuPreview`] answers "what would RisuAI put in the prompt for this
//! chat, where, and why". Each entry is read in its RisuAI form
//! ([`lore::Lore`], the same mapping the RisuAI export writes), its
//! decorators as RisuAI's card library reads them ([`decorators`]), its
//! keys as RisuAI searches ([`matching`]); the passes, the budget and the
//! final order follow `loadLoreBookV3Prompt` ([`activation`], [`finish`]);
//! the 2026 budget counts bodies as CBS evaluates them ([`cbs`]), and what
//! RisuAI sends for each placed entry is [`sent`].
//! The rules, in our own words, are in docs/risu-rules.md; where RisuAI's
//! behaviour looks like a bug it is reproduced and the explanation says so.
//!
//! ```
//! use lorebook_engine::{chat, formats, risu::{RisuPreview, RisuOptions, RisuSettings, RisuState}};
//! let book = formats::import_value(serde_json::json!({"type": "risu", "data": [
//!     {"key": "apple", "content": "Apples are red.", "insertorder": 100,
//!      "alwaysActive": false, "selective": false, "secondkey": "", "comment": "Apple", "mode": "normal"}]})).unwrap().book;
//! let chat = chat::parse("User: I ate an apple.", &Default::default()).unwrap();
//! let mut p = RisuPreview::new(&[&book], RisuSettings::default(), RisuOptions::default());
//! let r = p.request(&chat.messages, 1, &mut RisuState::default());
//! assert_eq!(r.injected[0].comment, "Apple");
//! ```

pub mod activation;
pub mod cbs;
pub mod decorators;
pub mod detail;
pub mod finish;
mod hot;
pub mod known;
mod log;
pub mod matching;
mod memo;
pub mod names;
pub mod prompt;
pub mod sent;
pub mod settings;
mod state;
pub mod texts;
mod watch;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use serde::{Serialize, Serializer};

/// The RisuAI form of an entry (kept with the formats, which the export
/// shares): `risu::lore` as before.
pub use crate::formats::risu_lore as lore;
pub use detail::{Found, RisuDrop, RisuWhy};
pub use known::{
    risu_argument_problem, risu_decorator, risu_diagnostics, RisuArg, RisuDecorator,
    RISU_DECORATORS,
};
pub use lore::Lore;
pub use settings::{RisuSettings, RisuVersion};
pub use state::RisuState;

use crate::chat::Message;
use crate::model::{Book, Role};
use crate::tokenizer::{content_hash, Encoding, Tokenizer};
use decorators::Line;
use matching::{Hits, KeyTable, QueryKeys};
use texts::Texts;

/// Inputs of a preview besides the books and settings.
#[derive(Debug, Clone)]
pub struct RisuOptions {
    /// Counts the budget (RisuAI counts with the model's tokenizer).
    pub tokenizer: Tokenizer,
    /// Seed of the `@@probability` rolls.
    pub seed: u64,
}

impl Default for RisuOptions {
    fn default() -> Self {
        RisuOptions {
            tokenizer: Tokenizer::Bundled(Encoding::Cl100kBase),
            seed: 0,
        }
    }
}

/// Where RisuAI puts an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Position {
    /// The lorebook block of the prompt (the default).
    Lorebook,
    /// `@@depth N` / `@@end`: N items from the *start* of the chat block
    /// (0: after everything).
    Depth,
    /// `@@reverse_depth N`: N items from the end of the chat block.
    ReverseDepth,
    BeforeDesc,
    AfterDesc,
    Personality,
    Scenario,
    /// `@@position pt_<name>`: where the prompt template says
    /// `{{position::<name>}}`.
    Template(String),
    /// `@@inject_at <location>`: into that part of the prompt template.
    InjectAt(String),
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Position::Lorebook => f.write_str("lorebook"),
            Position::Depth => f.write_str("depth"),
            Position::ReverseDepth => f.write_str("reverse_depth"),
            Position::BeforeDesc => f.write_str("before_desc"),
            Position::AfterDesc => f.write_str("after_desc"),
            Position::Personality => f.write_str("personality"),
            Position::Scenario => f.write_str("scenario"),
            Position::Template(name) => write!(f, "pt_{name}"),
            Position::InjectAt(loc) => write!(f, "inject_at {loc}"),
        }
    }
}

impl Serialize for Position {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// An entry read for the rules: its RisuAI form, parsed once.
pub(crate) struct Prepared {
    pub book: usize,
    pub id: u64,
    pub lore: Lore,
    pub lines: Vec<Line>,
    pub body: Arc<str>,
    pub primary: QueryKeys,
    pub secondary: QueryKeys,
    /// The keys of each decorator line (empty for lines without keys).
    pub deco_keys: Vec<QueryKeys>,
    /// Only its keys can turn it on, so it can be passed over when none is
    /// anywhere in the request's texts.
    pub quick: bool,
    /// Its answer can change between passes without a new text holding
    /// one of its keys (`@@probability` rolls again each pass, `@@exclude_keys_all`
    /// can stop holding, regex keys are not interned).
    pub volatile: bool,
    /// RisuAI's name of it: the comment, or `lorebook <index>`.
    pub name: String,
    /// The after-match state's key: RisuAI's id, else a hash of the content.
    pub state_key: String,
    /// Its body can hold something CBS changes ([`cbs::has_macros`]).
    pub macros: bool,
    /// Its body's evaluation is the same in every request of the preview
    /// (no [`cbs::varies`]): its count is kept.
    pub macros_stable: bool,
}

/// One entry in the result, in RisuAI's final order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RisuInjected {
    pub book: usize,
    pub id: u64,
    /// RisuAI's name (comment, or `lorebook <index>`).
    pub comment: String,
    pub position: Position,
    /// For `depth` and `reverse_depth`.
    pub depth: Option<f64>,
    pub role: Role,
    /// `insertorder`.
    pub order: f64,
    /// The budget's rank (`@@priority`, else `insertorder`).
    pub priority: f64,
    pub tokens: u32,
    pub pass: u32,
    #[serde(serialize_with = "crate::sillytavern::display")]
    pub reason: RisuWhy,
    /// The body (decorators left out, `@@inject_lore` texts added).
    pub content: String,
    /// What RisuAI sends for it when that is not the body as written: the
    /// body with `{{position::name}}` filled in (2026 mainline) and its
    /// CBS evaluated ([`sent`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sent: Option<String>,
}

/// An entry that is not in the result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RisuDropped {
    pub book: usize,
    pub id: u64,
    #[serde(serialize_with = "crate::sillytavern::shared_str")]
    pub comment: Arc<str>,
    #[serde(serialize_with = "crate::sillytavern::display")]
    pub reason: RisuDrop,
}

/// RisuAI's prompt build fails on this request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RisuFailure {
    pub book: usize,
    pub id: u64,
    pub comment: String,
}

impl std::fmt::Display for RisuFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "entry '{}' has @@position without an argument: RisuAI's prompt build throws and the request fails",
            self.comment
        )
    }
}

/// The answer for one request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RisuResult {
    /// Number of chat messages this request sees.
    pub request: usize,
    pub budget: f64,
    pub used: u32,
    pub passes: u32,
    pub injected: Vec<RisuInjected>,
    /// Shared: a request can drop thousands of entries, and the preview
    /// keeps the last answer to give it again (`memo.rs`) without copying
    /// them.
    pub dropped: Arc<Vec<RisuDropped>>,
    pub failure: Option<RisuFailure>,
}

/// How many entries a build reads between two questions to `keep_going`.
pub const CHECK_EVERY: usize = 256;

/// How many message texts' key hits are kept between requests.
const HITS_KEPT: usize = 50_000;

/// A RisuAI-rules preview over fixed books and settings.
pub struct RisuPreview {
    entries: Vec<Prepared>,
    keys: KeyTable,
    settings: RisuSettings,
    /// Counts the budget; each body is counted once (`bodies`).
    tokenizer: Tokenizer,
    seed: u64,
    comments: Vec<Arc<str>>,
    hits: HashMap<u64, Arc<Hits>>,
    /// What is kept of each entry's body (its key hits and tokens).
    bodies: texts::BodyCaches,
    /// The entries each key wakes between passes.
    watchers: watch::Watchers,
    /// What a pass reads of each entry, side by side.
    hot: hot::HotTable,
    /// Each entry's decorators run once when they do not depend on the
    /// request (made at the first request after a build or an edit).
    statics: activation::Statics,
    /// Every entry evaluated in every pass (the reference the waking is
    /// tested against).
    every_entry: bool,
    /// Whether any entry carries after-match state.
    stateful: bool,
    /// The last single request, when no entry keeps state.
    memo: Option<memo::Memo>,
    /// Some entry's CBS reads the chat's messages (`{{lastmessage}}`): a
    /// changed message can change its count or text whatever keys it
    /// holds, so the memo is not used.
    reads_chat: bool,
}

const KEY_LINES: [&str; 3] = ["additional_keys", "exclude_keys", "exclude_keys_all"];

/// Whether an entry's CBS can read the chat's messages.
fn reads_chat(p: &Prepared) -> bool {
    p.macros && cbs::reads_chat(&p.body)
}

/// Whether an entry's decorators make it keep state across requests.
fn keeps_state(p: &Prepared) -> bool {
    p.lines.iter().any(|l| {
        matches!(
            l.name.as_str(),
            "keep_activate_after_match" | "dont_activate_after_match"
        )
    })
}

/// Entry `e` of book `b`, at `index` among all, read for the rules; its
/// key lists go through `keys` (which interns them while the table is
/// built, and only finds them afterwards: `None` when one is new).
fn prepare(
    e: &crate::model::Entry,
    b: usize,
    index: usize,
    keys: &mut dyn FnMut(&mut dyn Iterator<Item = &str>) -> Option<QueryKeys>,
) -> Option<Prepared> {
    let (lore, _) = Lore::of(e);
    let parsed = decorators::parse(&lore.content);
    let primary = keys(&mut lore.key.split(','))?;
    let secondary = keys(&mut lore.secondkey.split(','))?;
    let mut deco_keys = Vec::with_capacity(parsed.lines.len());
    for l in &parsed.lines {
        deco_keys.push(if KEY_LINES.contains(&l.name.as_str()) {
            keys(&mut l.args.iter().map(String::as_str))?
        } else {
            QueryKeys::default()
        });
    }
    let dynamic = parsed.lines.iter().any(|l| {
        matches!(
            l.name.as_str(),
            "activate" | "keep_activate_after_match" | "dont_activate_after_match" | "scan_depth"
        ) || (l.name == "position" && l.args.is_empty())
    });
    let quick = !lore.always_active && !lore.key.is_empty() && lore.mode != "child" && !dynamic;
    let volatile = lore.use_regex
        || parsed
            .lines
            .iter()
            .any(|l| matches!(l.name.as_str(), "probability" | "exclude_keys_all"));
    let name = if lore.comment.is_empty() {
        format!("lorebook {index}")
    } else {
        lore.comment.clone()
    };
    let state_key = match &lore.id {
        Some(id) => id.clone(),
        None => format!("#{:016x}", content_hash(&lore.content)),
    };
    let macros = cbs::has_macros(&parsed.body);
    let macros_stable = macros && !cbs::varies(&parsed.body);
    Some(Prepared {
        macros,
        macros_stable,
        book: b,
        id: e.id,
        lines: parsed.lines,
        body: Arc::from(parsed.body),
        primary,
        secondary,
        deco_keys,
        quick,
        volatile,
        name,
        state_key,
        lore,
    })
}

impl Prepared {
    /// Only a new text holding one of its keys can change its answer
    /// between two passes of a request ([`watch::Watchers`]).
    pub(crate) fn skippable(&self) -> bool {
        self.quick && !self.volatile
    }
}

impl RisuPreview {
    /// Puts the edited entry `e` of book `book` in place without building
    /// the preview again, when every key it names is already known (typing
    /// in an entry's body); `false` when it cannot (a new key, an entry
    /// not in the preview), and the preview must be built again. The
    /// answers are then those of a preview built from the edited books.
    pub fn replace_entry(&mut self, book: usize, e: &crate::model::Entry) -> bool {
        let Some(index) = self
            .entries
            .iter()
            .position(|p| p.book == book && p.id == e.id)
        else {
            return false;
        };
        let keys = &self.keys;
        let Some(p) = prepare(e, book, index, &mut |list: &mut dyn Iterator<
            Item = &str,
        >| { keys.lookup(list) }) else {
            return false;
        };
        let was = keeps_state(&self.entries[index]);
        let now = keeps_state(&p);
        let read = reads_chat(&self.entries[index]);
        let reads = reads_chat(&p);
        self.memo = None;
        self.comments[index] = Arc::from(p.name.as_str());
        self.entries[index] = p;
        self.bodies[index] = texts::BodyCache::default();
        // Only this entry's decorators run again.
        let (known, eval, mode) = self.request_for(0, &[]).static_eval(index);
        self.statics.known[index] = known;
        self.statics.evals[index] = eval;
        self.statics.mode[index] = mode;
        self.derive_from_statics();
        if now {
            self.stateful = true;
        } else if was {
            self.stateful = self.entries.iter().any(keeps_state);
        }
        if reads {
            self.reads_chat = true;
        } else if read {
            self.reads_chat = self.entries.iter().any(reads_chat);
        }
        true
    }

    /// The books' entries are concatenated in order, as RisuAI
    /// concatenates the character's, the chat's and the modules' books.
    pub fn new(books: &[&Book], settings: RisuSettings, options: RisuOptions) -> Self {
        Self::new_while(books, settings, options, || true).expect("never asked to stop")
    }

    /// [`RisuPreview::new`] that asks `keep_going` while it reads the
    /// entries (every [`CHECK_EVERY`] entries) and before it builds the key
    /// table's automaton, and stops when it says no: then `None`. The app
    /// builds with it while holding its workspace, so a save or the
    /// exit-signal handler does not wait for a whole build.
    pub fn new_while(
        books: &[&Book],
        settings: RisuSettings,
        options: RisuOptions,
        keep_going: impl Fn() -> bool,
    ) -> Option<Self> {
        let mut keys = KeyTable::default();
        let mut entries = Vec::new();
        for (b, book) in books.iter().enumerate() {
            for e in &book.entries {
                let index = entries.len();
                if index % CHECK_EVERY == 0 && !keep_going() {
                    return None;
                }
                let prepared = prepare(e, b, index, &mut |list: &mut dyn Iterator<Item = &str>| {
                    Some(keys.query(list))
                });
                entries.extend(prepared);
            }
        }
        if !keep_going() {
            return None;
        }
        keys.finish();
        let stateful = entries.iter().any(keeps_state);
        // A character's or persona's text that `{{personality}}` and its
        // kind bring can read the chat too.
        let c = &settings.cbs;
        let reads = entries.iter().any(reads_chat)
            || [
                &c.description,
                &c.personality,
                &c.scenario,
                &c.example_message,
                &c.persona_prompt,
            ]
            .iter()
            .any(|t| cbs::varies(t));
        let mut preview = RisuPreview {
            comments: entries.iter().map(|p| Arc::from(p.name.as_str())).collect(),
            bodies: vec![texts::BodyCache::default(); entries.len()],
            watchers: watch::Watchers::default(),
            hot: hot::HotTable::default(),
            statics: activation::Statics::default(),
            entries,
            keys,
            settings,
            tokenizer: options.tokenizer,
            seed: options.seed,
            hits: HashMap::new(),
            every_entry: false,
            stateful,
            memo: None,
            reads_chat: reads,
        };
        preview.derive();
        Some(preview)
    }

    /// What follows from the entries and the settings: each entry's
    /// decorators run once where they can be, and the watchers, which wake
    /// an entry by its keys in its matching mode.
    fn derive(&mut self) {
        self.statics = self.request_for(0, &[]).static_evals();
        self.derive_from_statics();
    }

    /// The side-by-side table and the watchers, from the entries and what
    /// their decorators leave.
    fn derive_from_statics(&mut self) {
        self.hot = hot::HotTable::new(&self.entries, &self.statics.known);
        let watchers = watch::Watchers::new(&self.entries, &self.statics.mode);
        if !watchers.reads_as(&self.watchers) {
            // The bodies' keys were kept without ids now read.
            for c in &mut self.bodies {
                c.hits = OnceLock::new();
            }
        }
        self.watchers = watchers;
    }

    /// Evaluates every entry in every pass instead of waking entries by
    /// their keys: slower, the same answers (the reference a property
    /// test compares the waking with).
    #[doc(hidden)]
    pub fn evaluate_every_entry(&mut self) {
        self.every_entry = true;
        self.memo = None;
    }

    /// Counts the budget with `tokenizer`.
    pub fn set_tokenizer(&mut self, tokenizer: Tokenizer) {
        self.tokenizer = tokenizer;
        self.memo = None;
        for c in &mut self.bodies {
            c.tokens = OnceLock::new();
        }
    }

    /// The entries as read for the rules.
    #[cfg(test)]
    pub(crate) fn prepared(&self) -> &[Prepared] {
        &self.entries
    }

    pub fn settings(&self) -> &RisuSettings {
        &self.settings
    }

    /// Whether some entry keeps state between requests, so a request's
    /// answer depends on the ones before it.
    pub fn is_stateful(&self) -> bool {
        self.stateful
    }

    fn hits_of(&mut self, text: &str) -> (u64, Arc<Hits>) {
        let h = content_hash(text);
        if let Some(found) = self.hits.get(&h) {
            return (h, found.clone());
        }
        if self.hits.len() >= HITS_KEPT {
            self.hits.clear();
        }
        let hits = Arc::new(self.keys.hits(text));
        self.hits.insert(h, hits.clone());
        (h, hits)
    }

    /// The first `k` messages of `chat`, each with its content hash and
    /// the keys found in it.
    #[allow(clippy::type_complexity)]
    fn messages<'c>(
        &mut self,
        chat: &'c [Message],
        k: usize,
    ) -> (Vec<&'c str>, Vec<(u64, Arc<Hits>)>) {
        let messages: Vec<&str> = chat[..k.min(chat.len())]
            .iter()
            .map(|m| m.text.as_str())
            .collect();
        let keyed = messages.iter().map(|t| self.hits_of(t)).collect();
        (messages, keyed)
    }

    /// The request RisuAI makes after the first `k` messages of `chat`,
    /// with the state the requests before it left (updated in place).
    /// Asked again after an edit that finds the same keys, the answer
    /// before is given again without new passes (`memo.rs`).
    pub fn request(&mut self, chat: &[Message], k: usize, state: &mut RisuState) -> RisuResult {
        let (messages, keyed) = self.messages(chat, k);
        if self.stateful || self.reads_chat {
            self.memo = None;
        } else if let Some(m) = &self.memo {
            if m.answers(k, &messages, &keyed, &self.entries) {
                return m.result.clone();
            }
        }
        let hits = keyed.iter().map(|(_, h)| h.clone()).collect();
        let (result, texts) = self.answer(Texts::new(messages, hits), k, state);
        if !self.stateful && !self.reads_chat {
            self.memo = Some(memo::Memo {
                k,
                messages: keyed,
                recursive: texts.recursive.iter().map(|&(_, s)| s).collect(),
                regex_searches: texts.regex_searches,
                result: result.clone(),
            });
        }
        result
    }

    /// Request `k` as RisuAI would answer it after requests 1…k−1 of the
    /// same chat (replayed only when some entry keeps state).
    pub fn request_after(&mut self, chat: &[Message], k: usize) -> RisuResult {
        let mut state = RisuState::default();
        if self.stateful {
            for j in 1..k {
                self.request(chat, j, &mut state);
            }
        }
        self.request(chat, k, &mut state)
    }
}
