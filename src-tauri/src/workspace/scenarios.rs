//! A book's scenarios in the app (docs/scenarios.md): run under the book as
//! edited now, recorded from the preview shown (its chat, rules and
//! settings), removed. Recording and removing are undo steps
//! (`Change::Scenarios`) that change no preview.

use lorebook_engine::scenario::{self, Scenario};

use super::history::Change;
use super::Workspace;
use crate::error::{AppError, ErrorCode};
use crate::views::{ExpectedView, ScenarioEdit, ScenarioItem, ScenariosView};

impl Workspace {
    /// The scenarios of `doc` with their answers.
    pub fn scenarios(&mut self, doc: u32) -> Result<ScenariosView, AppError> {
        let book = &self.doc(doc)?.book;
        let list = match scenario::of(book) {
            Ok(list) => list,
            Err(e) => {
                return Ok(ScenariosView {
                    doc,
                    items: Vec::new(),
                    error: Some(e),
                })
            }
        };
        let items = list
            .iter()
            .map(|s| {
                let (verdict, error) = match scenario::run(book, s) {
                    Ok(v) => (Some(v), None),
                    Err(e) => (None, Some(e)),
                };
                let view = |x: &scenario::Expected| ExpectedView {
                    id: x.id,
                    name: book
                        .entry(x.id)
                        .map(|e| e.display_name().to_string())
                        .unwrap_or_else(|| x.name.clone()),
                    request: x.request.map(|r| r as u32),
                    position: x.position.clone(),
                    depth: x.depth,
                };
                ScenarioItem {
                    name: s.name.clone(),
                    rules: s.rules,
                    expected_in: s.expect.injected.len() as u32,
                    expected_out: s.expect.not_injected.len() as u32,
                    injected: s.expect.injected.iter().map(view).collect(),
                    not_injected: s.expect.not_injected.iter().map(view).collect(),
                    exactly: s.expect.exactly,
                    nothing_cut: s.expect.nothing_cut,
                    max_used: s.expect.max_used,
                    verdict,
                    error,
                }
            })
            .collect();
        Ok(ScenariosView {
            doc,
            items,
            error: None,
        })
    }

    /// Records the preview shown as scenario `name` of `doc` (one with the
    /// same name is replaced): the chat, the rules in force and their
    /// settings, expecting exactly what is injected now.
    pub fn record_scenario(&mut self, doc: u32, name: String) -> Result<ScenariosView, AppError> {
        let name = name.trim().to_string();
        if name.is_empty() {
            return Err(AppError::invalid(
                "a scenario needs a name",
                ErrorCode::ScenarioNameEmpty,
            ));
        }
        let (rules, settings) = self.preview_settings_now();
        let chat = self.chat_text.clone();
        let book = &self.doc(doc)?.book;
        let mut list = scenario::of(book).map_err(|e| AppError::scenarios_unreadable(&e))?;
        let s = scenario::record(book, &name, &chat, rules, settings)
            .map_err(|e| AppError::scenario_cannot_run(&name, &e))?;
        scenario::put(&mut list, s);
        self.store_scenarios(doc, &list)?;
        self.scenarios(doc)
    }

    /// Removes scenario `name` of `doc`.
    pub fn delete_scenario(&mut self, doc: u32, name: String) -> Result<ScenariosView, AppError> {
        let book = &self.doc(doc)?.book;
        let mut list = scenario::of(book).map_err(|e| AppError::scenarios_unreadable(&e))?;
        list.retain(|s| s.name != name);
        self.store_scenarios(doc, &list)?;
        self.scenarios(doc)
    }

    /// Loosens or edits scenario `name` of `doc` (one undo step).
    pub fn edit_scenario(
        &mut self,
        doc: u32,
        name: String,
        edit: ScenarioEdit,
    ) -> Result<ScenariosView, AppError> {
        let book = &self.doc(doc)?.book;
        let mut list = scenario::of(book).map_err(|e| AppError::scenarios_unreadable(&e))?;
        let Some(s) = list.iter_mut().find(|s| s.name == name) else {
            return Err(AppError::scenarios_unreadable(&format!(
                "no scenario named {name}"
            )));
        };
        let e = &mut s.expect;
        match edit {
            ScenarioEdit::RemoveExpected { out, index } => {
                let list = if out {
                    &mut e.not_injected
                } else {
                    &mut e.injected
                };
                if (index as usize) < list.len() {
                    list.remove(index as usize);
                }
            }
            ScenarioEdit::Exactly { on } => e.exactly = on,
            ScenarioEdit::NothingCut { on } => e.nothing_cut = on,
            ScenarioEdit::MaxUsed { tokens } => e.max_used = tokens,
            ScenarioEdit::AnyPlace { index } => {
                if let Some(x) = e.injected.get_mut(index as usize) {
                    x.position = None;
                    x.depth = None;
                }
            }
        }
        self.store_scenarios(doc, &list)?;
        self.scenarios(doc)
    }

    /// Stores `list` as `doc`'s scenarios, one undo step.
    fn store_scenarios(&mut self, doc: u32, list: &[Scenario]) -> Result<(), AppError> {
        let d = self.doc_mut(doc)?;
        let before = d.book.extensions.get(scenario::NS).cloned().map(Box::new);
        let mut changed = d.book.clone();
        scenario::set(&mut changed, list).map_err(|e| AppError::scenarios_unreadable(&e))?;
        let after = changed.extensions.get(scenario::NS).cloned().map(Box::new);
        if before != after {
            d.commit(vec![Change::Scenarios { before, after }], None);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::Rules;
    use lorebook_engine::scenario::Failure;

    fn names(v: &ScenariosView) -> Vec<(String, bool)> {
        v.items
            .iter()
            .map(|i| (i.name.clone(), i.verdict.as_ref().is_some_and(|v| v.passed)))
            .collect()
    }

    /// Save as scenario, an edit that breaks it with the rules' reason,
    /// undo that fixes it, and recording and removing as undo steps.
    #[test]
    fn a_recorded_scenario_fails_after_an_edit_and_passes_after_undo() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        assert!(ws.scenarios(doc).unwrap().items.is_empty());
        let v = ws.record_scenario(doc, "  arrival ".into()).unwrap();
        assert_eq!(names(&v), [("arrival".to_string(), true)]);
        assert!(ws.docs[0].dirty(), "recording is an edit");
        ws.set_rules(Rules::Risu);
        let v = ws.record_scenario(doc, "risu".into()).unwrap();
        assert_eq!(v.items[1].rules, Rules::Risu);
        assert!(v.items.iter().all(|i| i.verdict.as_ref().unwrap().passed));

        // The lighthouse loses its keys.
        let mut e = ws.entry_named("The Lighthouse");
        let id = e.id;
        e.keys = vec!["beacon".into()];
        ws.update_entry(doc, e).unwrap();
        let v = ws.scenarios(doc).unwrap();
        let arrival = v.items[0].verdict.as_ref().unwrap();
        assert!(!arrival.passed);
        assert!(
            arrival.failures.iter().any(|f| matches!(
                f,
                Failure::NotInjected { id: i, reason: Some(_), .. } if *i == id
            )),
            "{:?}",
            arrival.failures
        );
        ws.undo(doc).unwrap();
        assert!(
            ws.scenarios(doc).unwrap().items[0]
                .verdict
                .as_ref()
                .unwrap()
                .passed
        );
        // Removing is a step too; undo brings it back.
        let v = ws.delete_scenario(doc, "arrival".into()).unwrap();
        assert_eq!(names(&v), [("risu".to_string(), true)]);
        ws.undo(doc).unwrap();
        assert_eq!(ws.scenarios(doc).unwrap().items.len(), 2);
    }

    #[test]
    fn a_nameless_scenario_is_refused_and_unreadable_ones_are_reported() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        let e = ws.record_scenario(doc, "  ".into()).unwrap_err();
        assert_eq!(e.code, ErrorCode::ScenarioNameEmpty);
        ws.docs[0].book.extensions.insert(
            scenario::NS.into(),
            serde_json::json!({"scenarios": [{"name": 1}]}),
        );
        let v = ws.scenarios(doc).unwrap();
        assert!(v.error.is_some() && v.items.is_empty());
        let e = ws.record_scenario(doc, "x".into()).unwrap_err();
        assert!(matches!(e.code, ErrorCode::ScenariosUnreadable { .. }));
    }

    /// Loosening a recorded scenario: an expectation dropped, `exactly`
    /// off, a budget limit; each an undo step.
    #[test]
    fn a_scenario_is_loosened_one_step_at_a_time() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        let v = ws.record_scenario(doc, "arrival".into()).unwrap();
        let item = &v.items[0];
        assert!(item.exactly && item.injected.len() > 1);
        let first = item.injected[0].name.clone();
        let n = item.injected.len();
        let v = ws
            .edit_scenario(
                doc,
                "arrival".into(),
                ScenarioEdit::RemoveExpected {
                    out: false,
                    index: 0,
                },
            )
            .unwrap();
        assert_eq!(v.items[0].injected.len(), n - 1);
        assert!(v.items[0].injected.iter().all(|x| x.name != first));
        // Still exactly: the entry no longer expected fails it.
        assert!(!v.items[0].verdict.as_ref().unwrap().passed);
        let v = ws
            .edit_scenario(doc, "arrival".into(), ScenarioEdit::Exactly { on: false })
            .unwrap();
        assert!(v.items[0].verdict.as_ref().unwrap().passed);
        let v = ws
            .edit_scenario(
                doc,
                "arrival".into(),
                ScenarioEdit::MaxUsed { tokens: Some(1) },
            )
            .unwrap();
        assert_eq!(v.items[0].max_used, Some(1));
        assert!(matches!(
            v.items[0].verdict.as_ref().unwrap().failures[0],
            Failure::OverBudget { max: 1, .. }
        ));
        ws.undo(doc).unwrap();
        let v = ws.scenarios(doc).unwrap();
        assert_eq!(v.items[0].max_used, None);
        assert!(v.items[0].verdict.as_ref().unwrap().passed);
        let e = ws
            .edit_scenario(doc, "nope".into(), ScenarioEdit::Exactly { on: true })
            .unwrap_err();
        assert!(matches!(e.code, ErrorCode::ScenariosUnreadable { .. }));
    }
}
