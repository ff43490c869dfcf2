//! Change impact in the app (issue 21): the saved version of a book (or,
//! as the author chooses, the book some undo steps ago or another file:
//! [`ImpactBase`]) against the book as edited, over the chat's whole
//! request log under the rules in force and over every scenario. What it reads is taken under the
//! workspace's lock (`impact_inputs`: the saved book rebuilt from the undo
//! history, the edited one, the chat, the rules and their settings); the
//! logs run without it (`ImpactInputs::compute`, through the engine's
//! `impact::compare_books`),
//! so typing never waits for an impact.

use std::path::Path;
use std::sync::Arc;

use lorebook_engine::impact::{self, Change as RequestChange};
use lorebook_engine::model::Book;
use lorebook_engine::scenario::{self, Scenario, Settings};

use super::Workspace;
use crate::error::read_book_file;
use crate::error::AppError;
use crate::views::{
    ImpactAgainst, ImpactBaseAsk, ImpactEntry, ImpactMove, ImpactRow, ImpactStepView, ImpactView,
    Rules, ScenarioFlip,
};

/// What a book's impact compares with instead of its saved version: a
/// copy taken when the author chose it (the book some undo steps ago, or
/// another file read then), kept until they choose again or close the
/// book. A copy, not an undo depth, so later edits and undos never move
/// what it means.
#[derive(Debug)]
pub struct ImpactBase {
    // Shared with each impact computed against it, not copied.
    book: Arc<Book>,
    label: BaseLabel,
}

#[derive(Debug, Clone)]
enum BaseLabel {
    Step(u32),
    File(String),
}

/// What an impact is computed from, taken under the lock.
pub struct ImpactInputs {
    doc: u32,
    /// The saved book; `None` when there is nothing to compare (`against`).
    before: Option<Arc<Book>>,
    against: ImpactAgainst,
    base_steps: Option<u32>,
    base_file: Option<String>,
    after: Book,
    chat: String,
    rules: Rules,
    settings: Settings,
    scenarios: Vec<Scenario>,
}

impl Workspace {
    /// The preview's rules and their settings as a scenario keeps them
    /// (model, seed, SillyTavern's or RisuAI's settings).
    pub(crate) fn preview_settings_now(&self) -> (Rules, Settings) {
        let rules = self.rules();
        let preview = self.settings();
        let mut settings = Settings {
            model: Some(preview.model.clone()),
            seed: preview.seed,
            ..Settings::default()
        };
        match rules {
            Rules::Studio => {}
            Rules::Sillytavern => {
                let st = &self.st_settings;
                settings.sillytavern = Some(super::st_rules::engine_settings(st).to_value());
                settings.max_context = Some(st.max_context);
                settings.user = Some(st.user_name.clone());
                settings.char = Some(st.char_name.clone());
            }
            Rules::Risu => {
                settings.risu = Some(super::risu::engine_settings(&self.risu_settings).to_value());
            }
        }
        (rules, settings)
    }

    /// What the impact of `doc`'s unsaved edits reads.
    pub fn impact_inputs(&self, doc: u32) -> Result<ImpactInputs, AppError> {
        let d = self.doc(doc)?;
        let (before, against) = match self.impact_bases.get(&doc) {
            Some(base) => {
                let against = match &base.label {
                    BaseLabel::Step(n) => (ImpactAgainst::Step, Some(*n), None),
                    BaseLabel::File(name) => (ImpactAgainst::File, None, Some(name.clone())),
                };
                (Some(base.book.clone()), against)
            }
            // A book never saved (a recovered copy, an import) has no
            // saved version to compare with.
            None if !d.dirty() || d.history.never_saved() => {
                (None, (ImpactAgainst::Clean, None, None))
            }
            None => match d.history.saved_book(&d.book) {
                Some(b) => (Some(Arc::new(b)), (ImpactAgainst::Saved, None, None)),
                None => (None, (ImpactAgainst::Unreachable, None, None)),
            },
        };
        // Copied only when there is something to compare it with.
        let after = if before.is_some() {
            d.book.clone()
        } else {
            Book::default()
        };
        self.inputs(doc, before, against, after)
    }

    /// What the impact of an edit not made yet reads: book `doc` as it is
    /// against `after` (Find and replace's planned replacements).
    pub fn impact_inputs_of(&self, doc: u32, after: Book) -> Result<ImpactInputs, AppError> {
        let before = Arc::new(self.doc(doc)?.book.clone());
        self.inputs(
            doc,
            Some(before),
            (ImpactAgainst::Planned, None, None),
            after,
        )
    }

    /// `before` against `after` for book `doc`, with what `before` is
    /// (`against`, and the undo steps or file it names), under the
    /// preview's rules, over its chat and the book's scenarios.
    fn inputs(
        &self,
        doc: u32,
        before: Option<Arc<Book>>,
        (against, base_steps, base_file): (ImpactAgainst, Option<u32>, Option<String>),
        after: Book,
    ) -> Result<ImpactInputs, AppError> {
        let d = self.doc(doc)?;
        let (rules, settings) = self.preview_settings_now();
        Ok(ImpactInputs {
            doc,
            before,
            against,
            base_steps,
            base_file,
            after,
            chat: self.chat_text.clone(),
            rules,
            settings,
            scenarios: scenario::of(&d.book).unwrap_or_default(),
        })
    }

    /// The undo steps `doc`'s impact can compare with, newest first.
    pub fn impact_steps(&self, doc: u32) -> Result<Vec<ImpactStepView>, AppError> {
        let d = self.doc(doc)?;
        let now = std::time::Instant::now();
        Ok(d.history
            .steps()
            .enumerate()
            .map(|(i, (entry, at))| ImpactStepView {
                back: i as u32 + 1,
                entry: entry.map(|id| entry_name(&d.book, id)),
                seconds_ago: now.saturating_duration_since(at).as_secs() as u32,
            })
            .collect())
    }

    /// Compares `doc`'s impact with what `ask` names from now on.
    pub fn set_impact_base(&mut self, doc: u32, ask: ImpactBaseAsk) -> Result<(), AppError> {
        let d = self.doc(doc)?;
        match ask {
            ImpactBaseAsk::Saved => {
                self.impact_bases.remove(&doc);
            }
            ImpactBaseAsk::Step { back } => {
                let book = d
                    .history
                    .book_back(&d.book, back as usize)
                    .filter(|_| back > 0)
                    .ok_or_else(|| AppError::no_such_undo_step(back))?;
                self.impact_bases.insert(
                    doc,
                    ImpactBase {
                        book: Arc::new(book),
                        label: BaseLabel::Step(back),
                    },
                );
            }
        }
        Ok(())
    }

    /// Compares `doc`'s impact with the book in the file at `path` (any
    /// format Import reads) from now on. The file is read once, now.
    pub fn set_impact_base_file(&mut self, doc: u32, path: &Path) -> Result<(), AppError> {
        self.doc(doc)?;
        let bytes = read_book_file(path)?;
        let book = lorebook_engine::formats::import(&bytes)
            .map_err(|e| AppError::not_a_book(path, &e))?
            .book;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        self.impact_bases.insert(
            doc,
            ImpactBase {
                book: Arc::new(book),
                label: BaseLabel::File(name),
            },
        );
        Ok(())
    }
}

fn entry_name(book: &Book, id: u64) -> String {
    book.entry(id)
        .map(|e| e.display_name().to_string())
        .unwrap_or_else(|| format!("#{id}"))
}

impl ImpactInputs {
    /// The impact, without the workspace: both logs side by side, in step.
    pub fn compute(self) -> Result<ImpactView, AppError> {
        let mut view = ImpactView {
            doc: self.doc,
            against: self.against,
            base_steps: self.base_steps,
            base_file: self.base_file.clone(),
            rules: self.rules,
            rows: Vec::new(),
            scenarios: Vec::new(),
            error: None,
        };
        let Some(before) = self.before.as_ref() else {
            return Ok(view);
        };
        let after = &self.after;
        let mut changes: Vec<RequestChange> = Vec::new();
        if let Err(e) = impact::compare_books(
            before,
            after,
            self.rules,
            &self.settings,
            &self.chat,
            &mut |c| changes.push(c),
        ) {
            view.error = Some(e);
            return Ok(view);
        }
        view.rows = changes
            .into_iter()
            .map(|c| {
                let flip = |f: &impact::Flip, book: &Book| ImpactEntry {
                    id: f.id,
                    name: entry_name(book, f.id),
                    now: f.now.clone(),
                    was: f.was.clone(),
                };
                ImpactRow {
                    request: c.request as u32,
                    started: c.started.iter().map(|f| flip(f, after)).collect(),
                    stopped: c.stopped.iter().map(|f| flip(f, before)).collect(),
                    moved: c
                        .moved
                        .iter()
                        .map(|m| ImpactMove {
                            id: m.id,
                            name: entry_name(after, m.id),
                            from: m.from.clone(),
                            to: m.to.clone(),
                        })
                        .collect(),
                    budget_before: c.budget.old,
                    budget_after: c.budget.new,
                }
            })
            .collect();
        for s in &self.scenarios {
            let passed = |b: &Book| scenario::run(b, s).ok().map(|v| v.passed);
            let (was, now) = (passed(before), passed(after));
            if was != now {
                view.scenarios.push(ScenarioFlip {
                    name: s.name.clone(),
                    was,
                    now,
                });
            }
        }
        Ok(view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::ImpactAgainst;
    use lorebook_engine::profile::Reason;

    /// The saved sample against an edit of the lighthouse's key: the
    /// requests where it stops, with the rules' reasons, and the scenario
    /// the edit breaks; nothing once undone; nothing to compare when clean.
    #[test]
    fn the_impact_of_an_edit_names_the_requests_entries_and_scenarios() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        ws.docs[0].history.mark_saved();
        let clean = ws.impact_inputs(doc).unwrap().compute().unwrap();
        assert_eq!(clean.against, ImpactAgainst::Clean);
        ws.record_scenario(doc, "arrival".into()).unwrap();
        let v = ws.impact_inputs(doc).unwrap().compute().unwrap();
        assert_eq!(v.against, ImpactAgainst::Saved);
        assert!(v.rows.is_empty() && v.scenarios.is_empty(), "{v:?}");

        let mut e = ws.entry_named("The Lighthouse");
        let id = e.id;
        e.keys = vec!["beacon".into()];
        ws.update_entry(doc, e).unwrap();
        let v = ws.impact_inputs(doc).unwrap().compute().unwrap();
        let row = v
            .rows
            .iter()
            .find(|r| r.request == 6)
            .unwrap_or_else(|| panic!("{v:?}"));
        let light = row.stopped.iter().find(|s| s.id == id).unwrap();
        assert_eq!(light.name, "The Lighthouse");
        assert!(matches!(light.now, Some(Reason::StudioOut { .. })));
        assert!(matches!(light.was, Some(Reason::StudioIn { .. })));
        assert_eq!(v.scenarios.len(), 1);
        assert_eq!(
            (v.scenarios[0].was, v.scenarios[0].now),
            (Some(true), Some(false))
        );

        ws.undo(doc).unwrap();
        let v = ws.impact_inputs(doc).unwrap().compute().unwrap();
        assert!(v.rows.is_empty() && v.scenarios.is_empty(), "{v:?}");
    }

    /// A book never saved (here an import) has no saved version: nothing
    /// to compare, not "past the undo history".
    #[test]
    fn a_book_never_saved_has_nothing_to_compare() {
        let mut ws = Workspace::default();
        let doc = ws.add_doc(lorebook_engine::model::Book::default(), None);
        ws.docs[0].history = super::super::history::History::imported();
        ws.add_entry(doc).unwrap();
        assert!(ws.docs[0].dirty());
        let v = ws.impact_inputs(doc).unwrap().compute().unwrap();
        assert_eq!(v.against, ImpactAgainst::Clean);
    }

    /// The saved state rebuilt from the undo history is the book as saved,
    /// whether it lies behind (undo) or ahead (redo).
    #[test]
    fn the_saved_book_is_rebuilt_from_the_history() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        ws.docs[0].history.mark_saved();
        let saved = ws.docs[0].book.clone();
        let mut e = ws.docs[0].book.entries[2].clone();
        e.content.push_str(" More.");
        ws.update_entry(doc, e).unwrap();
        let d = &ws.docs[0];
        assert_eq!(d.history.saved_book(&d.book).unwrap(), saved);
        // Saved after the edit, then undone: the saved state is a redo away.
        ws.docs[0].history.mark_saved();
        let edited = ws.docs[0].book.clone();
        ws.undo(doc).unwrap();
        let d = &ws.docs[0];
        assert_eq!(d.book, saved);
        assert_eq!(d.history.saved_book(&d.book).unwrap(), edited);
    }

    /// Compared with an undo step the author chose: the book as it was
    /// then, kept while later edits and undos happen (even once the book is
    /// saved, so not dirty); back to the saved version on request; a step
    /// the history does not hold is refused with its code.
    #[test]
    fn the_impact_compares_with_the_undo_step_the_author_chose() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        ws.docs[0].history.mark_saved();
        let mut e = ws.entry_named("The Lighthouse");
        let id = e.id;
        e.keys = vec!["beacon".into()];
        ws.update_entry(doc, e).unwrap();
        let mut other = ws.entry_named("Harbour tavern: The Gull");
        other.comment = "The Old Tavern".into();
        ws.update_entry(doc, other).unwrap();
        let steps = ws.impact_steps(doc).unwrap();
        assert_eq!(steps.len(), 2, "{steps:?}");
        assert_eq!(steps[0].back, 1);
        assert_eq!(steps[0].entry.as_deref(), Some("The Old Tavern"));
        assert_eq!(steps[1].entry.as_deref(), Some("The Lighthouse"));

        // One step back: only the rename differs, which changes no request.
        ws.set_impact_base(doc, ImpactBaseAsk::Step { back: 1 })
            .unwrap();
        let v = ws.impact_inputs(doc).unwrap().compute().unwrap();
        assert_eq!((v.against, v.base_steps), (ImpactAgainst::Step, Some(1)));
        assert!(v.rows.is_empty(), "{v:?}");
        // Two steps back: the lighthouse's key too.
        ws.set_impact_base(doc, ImpactBaseAsk::Step { back: 2 })
            .unwrap();
        ws.docs[0].history.mark_saved();
        let v = ws.impact_inputs(doc).unwrap().compute().unwrap();
        assert_eq!(v.against, ImpactAgainst::Step);
        assert!(
            v.rows.iter().any(|r| r.stopped.iter().any(|s| s.id == id)),
            "{v:?}"
        );

        let e = ws
            .set_impact_base(doc, ImpactBaseAsk::Step { back: 3 })
            .unwrap_err();
        assert_eq!(e.code, crate::error::ErrorCode::NoSuchUndoStep { back: 3 });
        let e = ws
            .set_impact_base(doc, ImpactBaseAsk::Step { back: 0 })
            .unwrap_err();
        assert_eq!(e.code, crate::error::ErrorCode::NoSuchUndoStep { back: 0 });

        ws.set_impact_base(doc, ImpactBaseAsk::Saved).unwrap();
        let v = ws.impact_inputs(doc).unwrap().compute().unwrap();
        assert_eq!(v.against, ImpactAgainst::Clean);
    }

    /// Compared with another file (any importable format): its entries
    /// matched by id; a file that is not a book is refused and the choice
    /// stays as it was; closing the book forgets the choice.
    #[test]
    fn the_impact_compares_with_another_file() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        ws.docs[0].history.mark_saved();
        let dir = crate::workspace::st_tests::scratch("impact-file");
        let mut older = ws.docs[0].book.clone();
        let light = older
            .entries
            .iter_mut()
            .find(|e| e.comment == "The Lighthouse")
            .unwrap();
        let id = light.id;
        light.keys = vec!["beacon".into()];
        let path = dir.join("older.json");
        let (bytes, _) = lorebook_engine::formats::export(
            &older,
            lorebook_engine::formats::ExportFormat::SillyTavern,
        )
        .unwrap();
        std::fs::write(&path, bytes).unwrap();
        ws.set_impact_base_file(doc, &path).unwrap();
        let v = ws.impact_inputs(doc).unwrap().compute().unwrap();
        assert_eq!(v.against, ImpactAgainst::File);
        assert_eq!(v.base_file.as_deref(), Some("older.json"));
        // The file's lighthouse never matched; the book's does.
        assert!(
            v.rows.iter().any(|r| r.started.iter().any(|s| s.id == id)),
            "{v:?}"
        );

        let junk = dir.join("junk.json");
        std::fs::write(&junk, b"{ not json").unwrap();
        assert!(ws.set_impact_base_file(doc, &junk).is_err());
        let v = ws.impact_inputs(doc).unwrap().compute().unwrap();
        assert_eq!(v.base_file.as_deref(), Some("older.json"));

        ws.close(doc).unwrap();
        assert!(ws.impact_bases.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
