//! The Problems panel and the budget advice.

use super::*;

/// One of the books a lint run read: the document it is and its name.
#[derive(Debug, Clone, Serialize, TS)]
pub struct LintedBook {
    pub doc: u32,
    pub name: String,
}

/// The name of an entry a problem points at or names.
#[derive(Debug, Clone, Serialize, TS)]
pub struct LintName {
    pub entry: lorebook_engine::lint::EntryRef,
    pub name: String,
}

/// The Problems panel: the problems of one book under the preview's rules
/// (docs/lint.md). `entry.book` in a problem, and in the entries it names,
/// is a position in `books`.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ProblemsView {
    pub doc: u32,
    pub rules: Rules,
    /// Whether the loaded chat was read (the checks that need a chat ran).
    pub chat: bool,
    pub books: Vec<LintedBook>,
    /// Every problem of book `doc` in entry order, hints included unless
    /// they were left out (`hidden_hints`).
    pub problems: Vec<lorebook_engine::lint::Problem>,
    /// The names of the entries the problems point at and name.
    pub names: Vec<LintName>,
    /// The hints left out of `problems`, counted per code (empty when
    /// they are in it): the panel asks for them only when it shows them,
    /// since a big book has hundreds of thousands.
    pub hidden_hints: Vec<HintCount>,
}

/// The answer of `lint_problems`: the view, unless it is the one the
/// panel holds. Typing in a chat rarely changes a book's problems, and a
/// big book's view runs to megabytes that the page would parse again for
/// nothing (issue 24).
#[derive(Debug, Clone, Serialize, TS)]
pub struct ProblemsAnswer {
    /// The view's fingerprint (a hash of its JSON), which the panel sends
    /// back as `have` with its next question.
    pub hash: String,
    /// `None` when the view is the one whose fingerprint the panel sent.
    pub view: Option<ProblemsView>,
}

impl ProblemsAnswer {
    /// `view`, left out when its fingerprint is `have`.
    pub fn of(view: ProblemsView, have: Option<&str>) -> ProblemsAnswer {
        let json = serde_json::to_string(&view).unwrap_or_default();
        let hash = format!(
            "{:016x}{:08x}",
            lorebook_engine::tokenizer::content_hash(&json),
            json.len()
        );
        let view = (have != Some(hash.as_str())).then_some(view);
        ProblemsAnswer { hash, view }
    }
}

/// How many hints of one code were left out of a [`ProblemsView`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct HintCount {
    pub code: String,
    pub count: u32,
}

/// What one entry's requests say and what it would need to survive them.
#[derive(Debug, Clone, Serialize, TS)]
pub struct EntryAdviceView {
    pub coverage: lorebook_engine::lint::EntryCoverage,
    /// `None` when the budget never cut it.
    pub advice: Option<lorebook_engine::lint::Advice>,
}

/// The budget advice of the loaded chat's request log (guide's rules).
#[derive(Debug, Clone, Serialize, TS)]
pub struct AdviceView {
    pub requests: u32,
    /// The budget the requests had.
    pub budget: u32,
    /// The tokens the fullest request needs to keep every entry in it.
    pub needed: u32,
    /// The smallest allowed budget that keeps every entry that activated;
    /// `None` when no budget in the allowed range does.
    pub budget_to_keep_all: Option<u32>,
    /// How many entries the budget cut in at least one request.
    pub cut: u32,
    /// How many enabled entries activated in no request.
    pub never_activated: u32,
    /// The entry asked about, when it is in an attached book.
    pub entry: Option<EntryAdviceView>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(doc: u32) -> ProblemsView {
        ProblemsView {
            doc,
            rules: Rules::Studio,
            chat: false,
            books: vec![LintedBook {
                doc,
                name: "Book".into(),
            }],
            problems: Vec::new(),
            names: Vec::new(),
            hidden_hints: vec![HintCount {
                code: "key_contains_other".into(),
                count: 3,
            }],
        }
    }

    /// The panel gets the view only when it differs from the one it holds.
    #[test]
    fn an_unchanged_view_is_not_sent_again() {
        let first = ProblemsAnswer::of(view(1), None);
        assert!(first.view.is_some());
        let again = ProblemsAnswer::of(view(1), Some(&first.hash));
        assert_eq!(again.hash, first.hash);
        assert!(again.view.is_none());
        let other = ProblemsAnswer::of(view(2), Some(&first.hash));
        assert_ne!(other.hash, first.hash);
        assert_eq!(other.view.map(|v| v.doc), Some(2));
    }
}
