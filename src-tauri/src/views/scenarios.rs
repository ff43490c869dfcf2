//! A book's scenarios as the Scenarios panel shows them.

use lorebook_engine::scenario::Verdict;

use super::*;

/// One scenario and its answer under the book as edited now.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ScenarioItem {
    pub name: String,
    pub rules: Rules,
    /// How many entries it expects in and out of the prompt.
    pub expected_in: u32,
    pub expected_out: u32,
    /// Its expectations, for the editor.
    pub injected: Vec<ExpectedView>,
    pub not_injected: Vec<ExpectedView>,
    pub exactly: bool,
    pub nothing_cut: bool,
    pub max_used: Option<u32>,
    /// Its answer; `None` when it cannot run (`error` says why).
    pub verdict: Option<Verdict>,
    pub error: Option<String>,
}

/// The Scenarios panel of one book.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ScenariosView {
    pub doc: u32,
    pub items: Vec<ScenarioItem>,
    /// The book's scenarios do not read (nothing is shown or changed).
    pub error: Option<String>,
}

/// What the impact compares the edited book with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ImpactAgainst {
    /// The book has no unsaved edits, or was never saved to a file of its
    /// own (new, or imported): nothing to compare.
    Clean,
    /// The saved version, rebuilt from the undo history.
    Saved,
    /// The saved version is past the undo history's reach.
    Unreachable,
    /// The book as it was some undo steps ago (`ImpactView::base_steps`),
    /// as the author chose.
    Step,
    /// Another file the author picked (`ImpactView::base_file`).
    File,
    /// The book as it is now, against an edit not made yet (Find and
    /// replace's preview of the chosen replacements).
    Planned,
}

/// What the author asks the impact to compare with: the saved version
/// (the default), the book as it was `back` undo steps ago, or another
/// file (`path`, picked in a native dialog by `impact_base_dialog`).
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ImpactBaseAsk {
    Saved,
    Step { back: u32 },
}

/// One undo step a book's impact can compare with, newest first.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ImpactStepView {
    /// How many steps back (1: the state before the last edit).
    pub back: u32,
    /// The entry the step edited, when it edited one.
    pub entry: Option<String>,
    /// How long ago it was made.
    pub seconds_ago: u32,
}

/// An entry that started or stopped being injected in a request, with the
/// rules' reason after the edits (`now`) and before them (`was`).
#[derive(Debug, Clone, Serialize, TS)]
pub struct ImpactEntry {
    pub id: u64,
    pub name: String,
    pub now: Option<lorebook_engine::profile::Reason>,
    pub was: Option<lorebook_engine::profile::Reason>,
}

/// An entry injected before and after, at another place.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ImpactMove {
    pub id: u64,
    pub name: String,
    pub from: String,
    pub to: String,
}

/// One request that the edits change.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ImpactRow {
    pub request: u32,
    pub started: Vec<ImpactEntry>,
    pub stopped: Vec<ImpactEntry>,
    pub moved: Vec<ImpactMove>,
    pub budget_before: u32,
    pub budget_after: u32,
}

/// A scenario whose answer the edits change (`None`: it cannot run).
#[derive(Debug, Clone, Serialize, TS)]
pub struct ScenarioFlip {
    pub name: String,
    pub was: Option<bool>,
    pub now: Option<bool>,
}

/// What the unsaved edits of a book change, over the chat's request log
/// under the rules in force and over its scenarios.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ImpactView {
    pub doc: u32,
    pub against: ImpactAgainst,
    // For `against: step`: how many undo steps back.
    pub base_steps: Option<u32>,
    // For `against: file`: the file's name.
    pub base_file: Option<String>,
    pub rules: Rules,
    pub rows: Vec<ImpactRow>,
    pub scenarios: Vec<ScenarioFlip>,
    /// The preview cannot run (a chat or setting it refuses).
    pub error: Option<String>,
}

/// One expectation of a scenario, as its editor lists it.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ExpectedView {
    pub id: u64,
    pub name: String,
    /// `None`: the last request.
    pub request: Option<u32>,
    pub position: Option<String>,
    pub depth: Option<f64>,
}

/// A change to a scenario's expectations (each one undo step).
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(tag = "edit", rename_all = "snake_case")]
pub enum ScenarioEdit {
    /// Drops expectation `index` of the injected list (`out`: of the
    /// not-injected list).
    RemoveExpected {
        out: bool,
        index: u32,
    },
    /// Any position and depth for injected expectation `index`.
    AnyPlace {
        index: u32,
    },
    Exactly {
        on: bool,
    },
    NothingCut {
        on: bool,
    },
    MaxUsed {
        tokens: Option<u32>,
    },
}

/// The Figures panel of one book: the engine's figures, counted with the
/// preview's model, and what the chat's request log injected of it (while
/// it is attached and a chat is loaded).
#[derive(Debug, Clone, Serialize, TS)]
pub struct BookFiguresView {
    pub doc: u32,
    pub model: String,
    pub figures: lorebook_engine::figures::BookFigures,
    pub chat: Option<lorebook_engine::figures::ChatFigures>,
}

/// What Find and replace looks for, and what it writes instead.
#[derive(Debug, Clone, Deserialize, TS)]
pub struct FindAsk {
    pub pattern: String,
    pub with: String,
    pub regex: bool,
    pub case_sensitive: bool,
    pub whole_word: bool,
    // Where to look (all four when empty).
    pub fields: Vec<lorebook_engine::replace::Field>,
    // The entries looked in (the selection); `None`: the whole book.
    pub only: Option<Vec<u64>>,
}

/// One match, as the list shows it: its entry, field (and key), where it
/// starts and its context around it.
#[derive(Debug, Clone, Serialize, TS)]
pub struct FoundMatch {
    pub id: u64,
    pub name: String,
    pub field: lorebook_engine::replace::Field,
    pub index: Option<u32>,
    pub start: u32,
    pub before: String,
    pub matched: String,
    pub after: String,
}

/// A match chosen for replacing.
#[derive(Debug, Clone, Deserialize, Serialize, TS)]
pub struct MatchRef {
    pub id: u64,
    pub field: lorebook_engine::replace::Field,
    pub index: Option<u32>,
    pub start: u32,
}

impl From<&FoundMatch> for MatchRef {
    fn from(m: &FoundMatch) -> Self {
        MatchRef {
            id: m.id,
            field: m.field,
            index: m.index,
            start: m.start,
        }
    }
}

/// One text that changes, before and after.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ReplaceEditView {
    pub id: u64,
    pub name: String,
    pub field: lorebook_engine::replace::Field,
    pub index: Option<u32>,
    pub before: String,
    pub after: String,
}

/// The Find and replace panel's answer.
#[derive(Debug, Clone, Serialize, TS)]
pub struct FindView {
    pub doc: u32,
    // Matches in all (at most the first 2,000 are listed).
    pub total: u32,
    pub matches: Vec<FoundMatch>,
    // Texts that change in all (at most the first 500 are listed).
    pub changes: u32,
    pub edits: Vec<ReplaceEditView>,
    // The pattern does not compile: the regex crate's words.
    pub error: Option<String>,
}
