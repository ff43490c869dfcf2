//! What the checks need to know besides the entry: the rules in use, the
//! book-level facts they depend on (budget, recursion, language, source
//! format), and each key seen the way those rules match it.

use serde::{Deserialize, Serialize};

use super::risu::RisuItem;
use super::words::{self, Language};
use crate::activation::RECURSION_LIMIT;
use crate::matcher::{fold, split_regex_key};
use crate::model::{Book, Entry};
use crate::risu::RisuSettings;
use crate::sillytavern::entry::{read_entry, StEntry};
use crate::sillytavern::matching::{self as st_matching, is_js_ws};
use crate::sillytavern::StSettings;

/// Whose rules the checks apply.
#[derive(Debug, Clone, PartialEq)]
pub enum LintRules {
    /// The guide's rules (docs/semantics.md).
    Studio,
    /// SillyTavern 1.15–1.19's, with its global settings, the context size
    /// the budget is a share of and the macro engine.
    SillyTavern {
        settings: StSettings,
        max_context: u32,
        /// The macro engine keys and content go through.
        macros: crate::sillytavern::macros::MacroEngine,
    },
    /// RisuAI 460ecae's, with the character's lorebook settings
    /// (docs/risu-rules.md).
    Risu { settings: RisuSettings },
}

impl LintRules {
    /// `studio`, `sillytavern` or `risu`.
    pub fn name(&self) -> &'static str {
        match self {
            LintRules::Studio => "studio",
            LintRules::SillyTavern { .. } => "sillytavern",
            LintRules::Risu { .. } => "risu",
        }
    }

    pub fn is_studio(&self) -> bool {
        matches!(self, LintRules::Studio)
    }

    pub fn is_sillytavern(&self) -> bool {
        matches!(self, LintRules::SillyTavern { .. })
    }

    /// RisuAI's settings, under RisuAI's rules.
    pub fn risu(&self) -> Option<&RisuSettings> {
        match self {
            LintRules::Risu { settings } => Some(settings),
            _ => None,
        }
    }
}

/// The books' facts the checks of one entry depend on, computed once for
/// the attached books ([`LintContext::new`]); recompute it when a book's
/// settings change, not on every entry edit.
#[derive(Debug, Clone)]
pub struct LintContext {
    pub rules: LintRules,
    /// The token budget every request has (studio: the largest of the
    /// books'; SillyTavern: its share of the context).
    pub budget: u32,
    /// Whether recursion runs, and how many passes it may take after the
    /// first (`None`: no limit).
    pub recursion: Option<Option<u32>>,
    /// Per book: its language (for stop words) and whether it came from a
    /// SillyTavern file (where `selective` without secondary keys is normal).
    pub books: Vec<BookFacts>,
    /// With a chat loaded, "too common" is measured on it instead of guessed
    /// from stop words ([`super::check_chat`]).
    pub chat_loaded: bool,
    /// The budget is the rules' default, not one the author gave (no
    /// SillyTavern settings or context size, no RisuAI settings): the
    /// budget checks say so and warn at most. The caller sets it.
    pub budget_assumed: bool,
}

/// What the checks know of one book.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BookFacts {
    pub language: Language,
    pub from_sillytavern: bool,
    /// Its own recursion switch (studio rules scan a body only for entries
    /// whose book allows recursion).
    pub recursive: bool,
}

impl LintContext {
    /// The context of `books` linted together under `rules`.
    /// `from_sillytavern[i]` says book i was read from a SillyTavern file
    /// (missing: guessed from what the importer kept, see
    /// [`looks_from_sillytavern`]).
    pub fn new(books: &[Book], rules: LintRules, from_sillytavern: &[bool]) -> LintContext {
        let (budget, recursion) = match &rules {
            LintRules::Studio => (
                books.iter().map(|b| b.token_budget).max().unwrap_or(0),
                books
                    .iter()
                    .any(|b| b.recursive_scanning)
                    .then_some(Some(RECURSION_LIMIT as u32)),
            ),
            LintRules::SillyTavern {
                settings,
                max_context,
                ..
            } => (
                settings.budget(*max_context),
                settings.recursive.then(|| {
                    (settings.max_recursion_steps >= 1.0)
                        // Steps count the first pass too.
                        .then(|| (settings.max_recursion_steps as u32).saturating_sub(1))
                }),
            ),
            // RisuAI runs passes until one activates nothing: no limit.
            // `@@recursive` turns it on per entry even when the setting
            // is off, so the graph is checked either way (super::risu).
            LintRules::Risu { settings } => (
                super::risu::budget_of(settings),
                settings.recursive_scanning.then_some(None),
            ),
        };
        let facts = books
            .iter()
            .enumerate()
            .map(|(i, b)| BookFacts {
                language: words::detect(b),
                from_sillytavern: from_sillytavern
                    .get(i)
                    .copied()
                    .unwrap_or_else(|| looks_from_sillytavern(b)),
                recursive: b.recursive_scanning,
            })
            .collect();
        LintContext {
            rules,
            budget,
            recursion,
            books: facts,
            chat_loaded: false,
            budget_assumed: false,
        }
    }

    pub(crate) fn book(&self, book: usize) -> BookFacts {
        self.books.get(book).cloned().unwrap_or(BookFacts {
            language: Language::English,
            from_sillytavern: false,
            recursive: false,
        })
    }
}

/// Whether a book holds what the SillyTavern importer keeps (its own fields
/// under `extensions.sillytavern`, or the source spellings it records).
pub fn looks_from_sillytavern(book: &Book) -> bool {
    let st = |o: &crate::model::Object| {
        o.contains_key(crate::formats::sillytavern::NS)
            || o.get(crate::formats::shadow::KEY)
                .and_then(|v| v.get("sillytavern"))
                .is_some()
    };
    st(&book.extensions) || book.entries.iter().take(64).any(|e| st(&e.extensions))
}

/// How one key is matched under the rules in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyKind {
    /// Plain text: what is compared (folded unless case-sensitive) and
    /// whether each edge needs a word boundary.
    Plain {
        text: String,
        case_sensitive: bool,
        left: bool,
        right: bool,
    },
    /// A regular expression (`pattern`, `flags`).
    Regex { pattern: String, flags: String },
    /// Nothing left after trimming.
    Empty,
}

/// An entry's flags under the rules in use.
#[derive(Debug, Clone, Copy)]
pub struct Flags {
    pub case_sensitive: bool,
    pub whole_words: bool,
    pub use_regex: bool,
}

/// The entry as SillyTavern reads it (its `null`s resolved later against
/// the global settings).
pub(crate) fn st_entry(book: usize, e: &Entry) -> StEntry {
    let value = serde_json::Value::Object(crate::formats::sillytavern::entry_value(e));
    read_entry(book, "lint", &e.id.to_string(), &value)
}

/// An entry as the rules in use read it: the guide's rules read the model
/// itself; SillyTavern's and RisuAI's read it as their export writes it.
pub(crate) enum Seen {
    Studio,
    St(Box<StEntry>),
    Risu(Box<RisuItem>),
}

impl Seen {
    pub(crate) fn of(cx: &LintContext, book: usize, e: &Entry) -> Seen {
        match &cx.rules {
            LintRules::Studio => Seen::Studio,
            LintRules::SillyTavern { .. } => Seen::St(Box::new(st_entry(book, e))),
            LintRules::Risu { settings } => Seen::Risu(Box::new(RisuItem::of(settings, e))),
        }
    }

    pub(crate) fn st(&self) -> Option<&StEntry> {
        match self {
            Seen::St(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn risu(&self) -> Option<&RisuItem> {
        match self {
            Seen::Risu(r) => Some(r),
            _ => None,
        }
    }
}

/// The flags that decide how `e`'s keys match (`seen`: the entry as the
/// rules in use read it).
pub(crate) fn flags(cx: &LintContext, e: &Entry, seen: &Seen) -> Flags {
    match (&cx.rules, seen) {
        (LintRules::SillyTavern { settings, .. }, Seen::St(st)) => Flags {
            case_sensitive: st.case_sensitive.unwrap_or(settings.case_sensitive),
            whole_words: st.whole_words.unwrap_or(settings.match_whole_words),
            use_regex: false,
        },
        // RisuAI matches without case, whole words by the book's setting
        // and the entry's decorators.
        (_, Seen::Risu(r)) => Flags {
            case_sensitive: false,
            whole_words: r.full_word,
            use_regex: r.use_regex,
        },
        _ => Flags {
            case_sensitive: e.case_sensitive,
            whole_words: e.whole_words,
            use_regex: e.use_regex,
        },
    }
}

/// How `key` matches under `rules` with `flags`.
pub(crate) fn key_kind(rules: &LintRules, key: &str, flags: Flags) -> KeyKind {
    match rules {
        LintRules::Studio => {
            let key = key.trim();
            if key.is_empty() {
                return KeyKind::Empty;
            }
            if let Some((p, f)) = split_regex_key(key) {
                return KeyKind::Regex {
                    pattern: p.into(),
                    flags: f.into(),
                };
            }
            if flags.use_regex {
                return KeyKind::Regex {
                    pattern: key.into(),
                    flags: String::new(),
                };
            }
            let (left, right) = if flags.whole_words {
                let edge = |c: Option<char>| c.is_some_and(crate::matcher::needs_boundary);
                (edge(key.chars().next()), edge(key.chars().next_back()))
            } else {
                (false, false)
            };
            KeyKind::Plain {
                text: if flags.case_sensitive {
                    key.into()
                } else {
                    fold(key)
                },
                case_sensitive: flags.case_sensitive,
                left,
                right,
            }
        }
        LintRules::SillyTavern { .. } => {
            if key.is_empty() {
                return KeyKind::Empty;
            }
            let key = st_matching::js_trim(key);
            if let Some((p, f)) = st_matching::split_regex(key) {
                return KeyKind::Regex {
                    pattern: p.into(),
                    flags: f.into(),
                };
            }
            // Multi-word keys are substring searches; single words need an
            // ASCII boundary on both sides, whatever their edges.
            let single = key.split(is_js_ws).filter(|w| !w.is_empty()).count() == 1;
            let whole = flags.whole_words && single;
            KeyKind::Plain {
                text: if flags.case_sensitive {
                    key.into()
                } else {
                    key.to_lowercase()
                },
                case_sensitive: flags.case_sensitive,
                left: whole,
                right: whole,
            }
        }
        LintRules::Risu { .. } => super::risu::key_kind(key, flags),
    }
}

/// Whether a text character next to a match of a key breaks a whole-word
/// edge under `rules`.
pub(crate) fn is_word(rules: &LintRules, c: char) -> bool {
    match rules {
        LintRules::Studio => crate::matcher::needs_boundary(c),
        LintRules::SillyTavern { .. } => c.is_ascii_alphanumeric() || c == '_',
        // Full-word mode splits the text on spaces alone.
        LintRules::Risu { .. } => c != ' ',
    }
}

/// Whether `e`'s keys are scanned for recursion at all under the context.
pub(crate) fn recursion_on(cx: &LintContext) -> bool {
    // RisuAI's `@@recursive` turns it on for one entry whatever the
    // setting: the graph is built from each entry's own switch.
    cx.recursion.is_some() || cx.rules.risu().is_some()
}

/// The limit of recursion passes after the first, when there is one.
pub(crate) fn recursion_limit(cx: &LintContext) -> Option<u32> {
    cx.recursion.flatten()
}

/// Stop words of `language`, folded.
pub(crate) fn is_stop_word(language: Language, folded: &str) -> bool {
    words::stop_words(language).contains(&folded)
}
