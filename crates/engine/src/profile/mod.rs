//! One seam for every rule profile.
//!
//! A rule profile is a front-end's way of answering "what goes into the
//! prompt": the guide's rules (`Studio`, `preview.rs` over `activation/`),
//! SillyTavern 1.15's (`sillytavern/`) and RisuAI 460ecae's (`risu/`).
//! Their insides differ (each matches keys its own way), so each keeps its
//! own engine module; what the programs ask of them is the same, and this
//! module is that question:
//!
//! - [`PROFILES`]: the one table of profiles (name, title, rules document,
//!   default model). A fourth profile is one more row here, one engine
//!   module, one [`Setup`] variant and its [`Profile`] impl.
//! - [`build`]: books and a [`Setup`] → a `Box<dyn Profile>`.
//! - [`Profile`]: a request, the request log, the state "now" (the request
//!   after the whole chat as the front-end would answer it), the final
//!   prompt, and an edited entry put in place.
//! - [`Outcome`]: one result shape. What every profile has (the injected
//!   entries with their place, the budget, the entries the budget cut) is
//!   common; the profile's own explanation is in [`Detail`].
//!
//! Scenarios, change impact and the request log's rows read the common part
//! only, so they work under every profile. The three implementations are in
//! `impls.rs`.

mod impls;
mod reason;

pub use impls::studio;
use impls::{RisuProfile, StProfile, StudioProfile};
pub use reason::Reason;

use serde::{Deserialize, Serialize};

use crate::chat::Message;
use crate::explain::{DropReason, GateDetail, RequestResult};
use crate::model::{Book, Entry, Role};
use crate::preview::{Preview, Settings};
use crate::risu::prompt::{RisuPrompt, RisuPromptInputs};
use crate::risu::{RisuDrop, RisuOptions, RisuPreview, RisuResult, RisuSettings};
use crate::sillytavern::{
    DropKind, StOptions, StPreview, StPrompt, StPromptInputs, StResult, StSettings, TimedState,
};
use crate::tokenizer::{Tokenizer, DEFAULT_MODEL};

/// Which rules a preview follows (the app's `Rules`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "Rules"))]
#[serde(rename_all = "snake_case")]
pub enum ProfileName {
    /// The guide's rules (`docs/semantics.md`).
    Studio,
    /// SillyTavern 1.15's world-info rules (`docs/sillytavern-rules.md`).
    Sillytavern,
    /// RisuAI 460ecae's lorebook rules (`docs/risu-rules.md`).
    Risu,
}

/// One row of the profile table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileInfo {
    pub name: ProfileName,
    /// The name on the command line and in files (`--rules NAME`).
    pub id: &'static str,
    /// The front-end, for people.
    pub title: &'static str,
    /// The document that states the rules, in the repository.
    pub rules_doc: &'static str,
    /// The model whose tokenizer counts the budget when none is named.
    pub default_model: &'static str,
}

/// Every profile, in the order they are offered.
pub const PROFILES: [ProfileInfo; 3] = [
    ProfileInfo {
        name: ProfileName::Studio,
        id: "studio",
        title: "Lorebook Studio (the guide's rules)",
        rules_doc: "docs/semantics.md",
        default_model: DEFAULT_MODEL,
    },
    ProfileInfo {
        name: ProfileName::Sillytavern,
        id: "sillytavern",
        title: "SillyTavern 1.15",
        rules_doc: "docs/sillytavern-rules.md",
        default_model: DEFAULT_MODEL,
    },
    ProfileInfo {
        name: ProfileName::Risu,
        id: "risu",
        title: "RisuAI 2026 (or 460ecae)",
        // RisuAI's reference comparison counts with GPT-4's cl100k.
        rules_doc: "docs/risu-rules.md",
        default_model: "gpt-4",
    },
];

impl ProfileName {
    pub fn info(self) -> &'static ProfileInfo {
        PROFILES
            .iter()
            .find(|p| p.name == self)
            .expect("every profile has a row")
    }

    pub fn id(self) -> &'static str {
        self.info().id
    }

    /// The profile named `id` on the command line or in a file.
    pub fn parse(id: &str) -> Option<Self> {
        PROFILES.iter().find(|p| p.id == id).map(|p| p.name)
    }

    /// The names accepted by [`ProfileName::parse`], for error messages.
    pub fn ids() -> String {
        PROFILES.iter().map(|p| p.id).collect::<Vec<_>>().join(", ")
    }
}

impl std::fmt::Display for ProfileName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// An entry in the prompt, as every profile places it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Placed {
    pub book: usize,
    pub id: u64,
    /// Tokens of its inserted text.
    pub tokens: u32,
    /// Where it goes, in the profile's words: `lorebook` (the guide's one
    /// slot), SillyTavern's `before`, `at_depth`, … or RisuAI's `depth`,
    /// `pt_<name>`, ….
    pub position: String,
    /// Messages from the end (or from the start, RisuAI's `reverse_depth`)
    /// for in-chat positions.
    pub depth: Option<f64>,
    pub role: Option<Role>,
    pub order: f64,
}

/// One request's answer under any profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub profile: ProfileName,
    /// Messages this request sees (request k sees the first k).
    pub request: usize,
    /// The token budget and what the injected entries used of it.
    pub limit: u32,
    pub used: u32,
    /// The injected entries, in the profile's final order.
    pub injected: Vec<Placed>,
    /// Entries that activated but the budget cut, as `(book, id)`.
    pub cut: Vec<(usize, u64)>,
    /// Entries held out by what earlier requests left behind: SillyTavern's
    /// cooldown and delay, `@@dont_activate_after_match` under the guide's
    /// rules and RisuAI's.
    pub held: Vec<(usize, u64)>,
    /// Entries kept out by another of the rules' checks (gate decorators,
    /// probability, secondary keys, groups, placement): neither unmatched
    /// nor cut nor held.
    pub gated: Vec<(usize, u64)>,
    /// The profile's own answer, with every reason.
    pub detail: Detail,
    /// The prompt the request sends, while asked for
    /// ([`Profile::set_prompts`]) and where the profile models it.
    pub prompt: Option<FinalPrompt>,
}

/// A profile's own answer for one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Detail {
    Studio(Box<RequestResult>),
    Sillytavern(Box<StResult>),
    Risu(Box<RisuResult>),
}

impl Outcome {
    /// Why `(book, id)` is in the prompt, in English (the profile's own
    /// reason); `None` when it is not injected.
    pub fn why_in(&self, book: usize, id: u64) -> Option<String> {
        self.reason_in(book, id).map(|r| r.to_string())
    }

    /// Why `(book, id)` is not in the prompt, in English; `None` when it is
    /// injected or the profile lists no such entry.
    pub fn why_out(&self, book: usize, id: u64) -> Option<String> {
        self.reason_out(book, id).map(|r| r.to_string())
    }

    pub fn of_studio(r: RequestResult) -> Self {
        let injected = r
            .injected
            .iter()
            .map(|i| Placed {
                book: i.book,
                id: i.id,
                tokens: i.tokens,
                position: "lorebook".into(),
                depth: None,
                role: Some(i.role),
                order: i.order as f64,
            })
            .collect();
        let cut = r
            .dropped
            .iter()
            .filter(|d| matches!(d.reason, DropReason::Budget { .. }))
            .map(|d| (d.book, d.id))
            .collect();
        let held = r
            .dropped
            .iter()
            .filter(|d| {
                matches!(
                    d.reason,
                    DropReason::Gated {
                        detail: GateDetail::AlreadyMatched { .. },
                        ..
                    }
                )
            })
            .map(|d| (d.book, d.id))
            .collect();
        let gated = r
            .dropped
            .iter()
            .filter(|d| match &d.reason {
                DropReason::Gated { detail, .. } => {
                    !matches!(detail, GateDetail::AlreadyMatched { .. })
                }
                DropReason::Probability { .. } | DropReason::Secondary { .. } => true,
                _ => false,
            })
            .map(|d| (d.book, d.id))
            .collect();
        Outcome {
            profile: ProfileName::Studio,
            held,
            gated,
            request: r.request,
            limit: r.budget.limit,
            used: r.budget.used,
            injected,
            cut,
            detail: Detail::Studio(Box::new(r)),
            prompt: None,
        }
    }

    pub fn of_sillytavern(r: StResult) -> Self {
        let injected = r
            .injected
            .iter()
            .map(|i| Placed {
                book: i.book,
                id: i.id,
                tokens: i.tokens,
                position: i.position.as_str().into(),
                depth: i.depth,
                role: i.role,
                order: i.order,
            })
            .collect();
        let cut = r
            .dropped
            .iter()
            .filter(|d| d.kind == DropKind::Budget)
            .map(|d| (d.book, d.id))
            .collect();
        let held = r
            .dropped
            .iter()
            .filter(|d| matches!(d.kind, DropKind::Cooldown | DropKind::Delay))
            .map(|d| (d.book, d.id))
            .collect();
        let gated = r
            .dropped
            .iter()
            .chain(&r.not_placed)
            .filter(|d| {
                !matches!(
                    d.kind,
                    DropKind::Disabled
                        | DropKind::NoKeys
                        | DropKind::NoMatch
                        | DropKind::Budget
                        | DropKind::Cooldown
                        | DropKind::Delay
                )
            })
            .map(|d| (d.book, d.id))
            .collect();
        Outcome {
            held,
            gated,
            profile: ProfileName::Sillytavern,
            request: r.request,
            limit: r.budget,
            used: r.used,
            injected,
            cut,
            detail: Detail::Sillytavern(Box::new(r)),
            prompt: None,
        }
    }

    pub fn of_risu(r: RisuResult) -> Self {
        let injected = r
            .injected
            .iter()
            .map(|i| Placed {
                book: i.book,
                id: i.id,
                tokens: i.tokens,
                position: i.position.to_string(),
                depth: i.depth,
                role: Some(i.role),
                order: i.order,
            })
            .collect();
        let cut = r
            .dropped
            .iter()
            .filter(|d| matches!(d.reason, RisuDrop::Budget { .. }))
            .map(|d| (d.book, d.id))
            .collect();
        let held = r
            .dropped
            .iter()
            .filter(|d| matches!(d.reason, RisuDrop::NotAgain))
            .map(|d| (d.book, d.id))
            .collect();
        let gated = r
            .dropped
            .iter()
            .filter(|d| {
                !matches!(
                    d.reason,
                    RisuDrop::EmptyKey
                        | RisuDrop::NoMatch
                        | RisuDrop::Regex { .. }
                        | RisuDrop::Budget { .. }
                        | RisuDrop::NotAgain
                )
            })
            .map(|d| (d.book, d.id))
            .collect();
        Outcome {
            held,
            gated,
            profile: ProfileName::Risu,
            request: r.request,
            // RisuAI's budget is a number from its settings; the common
            // figure is whole tokens.
            limit: if r.budget.is_finite() && r.budget > 0.0 {
                r.budget.min(u32::MAX as f64) as u32
            } else {
                0
            },
            used: r.used,
            injected,
            cut,
            detail: Detail::Risu(Box::new(r)),
            prompt: None,
        }
    }
}

/// One message of a final prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FinalMessage {
    pub role: Role,
    pub content: String,
    /// Its tokens, when the profile counts them.
    pub tokens: Option<u32>,
}

/// The prompt a request sends: its messages in one shape, and the
/// profile's own account of it where it has one.
#[derive(Debug, Clone, PartialEq)]
pub struct FinalPrompt {
    pub messages: Vec<FinalMessage>,
    pub detail: Option<PromptDetail>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PromptDetail {
    Sillytavern(StPrompt),
    Risu(RisuPrompt),
}

/// What a profile is built from besides the books (once per build, so the
/// variants' sizes do not matter).
#[allow(clippy::large_enum_variant)]
pub enum Setup {
    Studio {
        settings: Settings,
        /// A tokenizer file's tokenizer; `None`: the settings' model.
        tokenizer: Option<Tokenizer>,
    },
    Sillytavern {
        settings: StSettings,
        options: StOptions,
        /// Context size minus the response length, for the budget.
        max_context: u32,
        /// The final prompt's texts (main prompt, character, persona, …).
        inputs: Box<StPromptInputs>,
        /// The timed effects the chat file holds (SillyTavern's
        /// `chat_metadata.timedWorldInfo`), for the request "now".
        stored: TimedState,
    },
    Risu {
        settings: RisuSettings,
        options: RisuOptions,
        /// The final prompt's texts (main prompt, character, persona, …).
        inputs: Box<RisuPromptInputs>,
    },
}

impl Setup {
    pub fn profile(&self) -> ProfileName {
        match self {
            Setup::Studio { .. } => ProfileName::Studio,
            Setup::Sillytavern { .. } => ProfileName::Sillytavern,
            Setup::Risu { .. } => ProfileName::Risu,
        }
    }
}

/// What the programs ask of any rule profile.
pub trait Profile: Send {
    fn name(&self) -> ProfileName;

    /// Request `k` (it sees the first `k` messages), after requests 1…k−1
    /// of the same chat when the rules keep state between requests.
    fn request(&mut self, chat: &[Message], k: usize) -> Outcome;

    /// The request after the whole chat as the front-end would answer it
    /// now: [`Profile::request`] of the last one, unless the chat file
    /// holds the front-end's own state (SillyTavern's timed effects).
    fn current(&mut self, chat: &[Message]) -> Outcome {
        self.request(chat, chat.len())
    }

    /// Requests 1…M in order, state carried; each answer handed to `each`
    /// and dropped, so memory stays flat however long the chat.
    fn log_each(&mut self, chat: &[Message], each: &mut dyn FnMut(Outcome)) {
        self.log_each_while(chat, &mut || true, each);
    }

    /// [`Profile::log_each`] that asks `keep_going` before each request and
    /// stops when it says no (the app's save or newer request); returns
    /// whether the log ran to the end.
    fn log_each_while(
        &mut self,
        chat: &[Message],
        keep_going: &mut dyn FnMut() -> bool,
        each: &mut dyn FnMut(Outcome),
    ) -> bool;

    /// From now on, each [`Outcome`] carries the prompt its request sends
    /// (`Outcome::prompt`), where the profile models its front-end's
    /// prompt (RisuAI's without a prompt template).
    fn set_prompts(&mut self, on: bool);

    /// Puts an edited entry of attached book `book` in place; `false` when
    /// the profile must be built again for it.
    fn replace_entry(&mut self, book: usize, entry: &Entry) -> bool;
}

/// The profile `setup` names, over `books` (`(name, book)`: the name is the
/// file's stem, SillyTavern's world name).
pub fn build(books: &[(String, &Book)], setup: Setup) -> Result<Box<dyn Profile>, String> {
    build_while(books, setup, || true).map(|p| p.expect("never asked to stop"))
}

/// [`build`] that asks `keep_going` while it builds (SillyTavern's and
/// RisuAI's builds; the guide's index is built whole) and stops when it
/// says no: then `Ok(None)`.
pub fn build_while(
    books: &[(String, &Book)],
    setup: Setup,
    keep_going: impl Fn() -> bool,
) -> Result<Option<Box<dyn Profile>>, String> {
    Ok(Some(match setup {
        Setup::Studio {
            settings,
            tokenizer,
        } => {
            let owned: Vec<Book> = books.iter().map(|(_, b)| (*b).clone()).collect();
            let mut preview = Preview::from_books(owned, settings);
            preview.set_tokenizer(tokenizer);
            Box::new(StudioProfile {
                preview,
                prompts: false,
            })
        }
        Setup::Sillytavern {
            settings,
            options,
            max_context,
            inputs,
            stored,
        } => {
            let Some(preview) = StPreview::new_while(books, settings, options, keep_going)? else {
                return Ok(None);
            };
            Box::new(StProfile {
                preview,
                max_context,
                inputs,
                stored,
                prompts: false,
            })
        }
        Setup::Risu {
            settings,
            options,
            inputs,
        } => {
            let refs: Vec<&Book> = books.iter().map(|(_, b)| *b).collect();
            let Some(preview) = RisuPreview::new_while(&refs, settings, options, keep_going) else {
                return Ok(None);
            };
            Box::new(RisuProfile {
                preview,
                inputs,
                prompts: false,
            })
        }
    }))
}
