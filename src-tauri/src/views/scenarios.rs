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
