//! The preview under SillyTavern's rules: the results of a request and of
//! the request log. Which rules are in force and SillyTavern's settings are
//! in `st_rules.rs`; edits of the entries' SillyTavern fields go through
//! `edits.rs` like every edit.
//!
//! The preview ([`StPreview`], which compiles every book's keys) is kept
//! between views with what it was built from ([`StKey`]) and built again
//! only when that differs. With it the request log's timed states are kept
//! ([`TimedLog`]), so a change of the chat at message j runs only requests
//! j… again, and the log view's rows before j are kept too.

use lorebook_engine::model::Book;
use lorebook_engine::sillytavern::{
    DropKind, MatchSources, Names, PromptSource, StOptions, StPreview, StPromptMessage, StResult,
    StSettings, TimedLog,
};
use lorebook_engine::tokenizer::tokenizer_for_model;

use lorebook_engine::profile::Outcome;

use super::history::Change;
use super::log::BareRow;
use super::st_rules::engine_settings;
use super::view::diff;
use super::view::PerKind;
use super::Workspace;
use crate::error::{AppError, ErrorCode, ErrorKind};
use crate::views::{
    AttachedBook, StAbsentView, StDroppedView, StInjectedView, StOmittedDropped, StPreviewView,
    StPromptMessageView, StPromptPatch, StPromptSourceView,
};

/// Everything the SillyTavern preview is built from: when any of it differs
/// from what the kept preview was built from, it is built again. A new
/// input of the preview (the character's fields, say) is a field here.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct StKey {
    /// The attached books in order: document and the world name timed
    /// effects are keyed by.
    books: Vec<(u32, String)>,
    /// [`Workspace::books_gen`]: every edit of an attached book (they all
    /// pass through [`Workspace::sync`]), and books added, closed,
    /// attached, detached or reloaded.
    books_gen: u64,
    settings: StSettings,
    names: Names,
    /// The model whose tokenizer counts, unless the user's file does.
    model: String,
    /// [`Workspace::tokenizer_gen`]: the user's tokenizer file.
    tokenizer_gen: u64,
    seed: u64,
    /// The persona and character texts entries' `match…` flags scan
    /// (`st_inputs.rs`).
    sources: MatchSources,
}

/// The kept SillyTavern preview.
pub(super) struct StCache {
    key: StKey,
    preview: StPreview,
    /// The timed state after each request of the chat last previewed.
    log: TimedLog,
    /// The log view's rows of the first requests, as many as are current.
    rows: Vec<BareRow>,
}

impl std::fmt::Debug for StCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StCache")
            .field("key", &self.key)
            .field("kept", &self.log.kept())
            .field("rows", &self.rows.len())
            .finish_non_exhaustive()
    }
}

impl StCache {
    /// Brings the kept states and rows in step with `chat`.
    fn resume(&mut self, chat: &[lorebook_engine::chat::Message], max_context: u32) {
        let same = self.preview.resume(chat, max_context, &mut self.log);
        self.rows.truncate(same);
    }
}

impl Workspace {
    /// What the SillyTavern preview would be built from now.
    fn st_key(&self) -> StKey {
        let settings = self.settings();
        StKey {
            books: self
                .docs
                .iter()
                .filter(|d| d.attached)
                .map(|d| (d.id, d.display_name()))
                .collect(),
            books_gen: self.books_gen,
            settings: engine_settings(&self.st_settings),
            names: self.st_names(),
            model: settings.model.clone(),
            tokenizer_gen: self.tokenizer_gen,
            seed: settings.seed,
            sources: self.st_match_sources(),
        }
    }

    /// Builds the SillyTavern preview unless the kept one was built from
    /// what it would be built from now. The build stops when a save, an
    /// autosave or the exit path waits for the workspace (see
    /// [`super::interrupt`]): then `cancelled`, and no preview is kept, so
    /// the next view builds it.
    pub(super) fn st_ready(&mut self) -> Result<(), AppError> {
        let key = self.st_key();
        if self.st.as_ref().is_some_and(|c| c.key == key) {
            return Ok(());
        }
        self.st = None;
        let Some(preview) = self.st_preview_engine()? else {
            return Err(super::interrupt::gave_way());
        };
        self.st_builds += 1;
        self.st = Some(Box::new(StCache {
            key,
            preview,
            log: TimedLog::new(),
            rows: Vec::new(),
        }));
        Ok(())
    }

    /// Follows `changes` of attached book `book` (see [`Workspace::sync`]):
    /// when the kept preview was current, entries edited without touching
    /// their order are put in place (typing in an entry's body or keys
    /// compiles nothing, see `StPreview::replace_entry`); any other change
    /// leaves it to be built at the next view.
    pub(super) fn st_follow(&mut self, book: usize, changes: &[Change]) {
        let current = self.st.as_ref().is_some_and(|c| c.key == self.st_key());
        self.books_gen += 1;
        if !current {
            return;
        }
        let key = self.st_key();
        let Some(c) = self.st.as_deref_mut() else {
            return;
        };
        if in_place(changes, |e| c.preview.replace_entry(book, e)) {
            c.key = key;
        }
    }

    /// Makes the kept SillyTavern preview current with the inputs and its
    /// timed states and rows current with the chat.
    fn st_current(&mut self) -> Result<(), AppError> {
        self.st_ready()?;
        let max_context = self.st_settings.max_context;
        if let Some(c) = self.st.as_deref_mut() {
            c.resume(&self.chat, max_context);
        }
        Ok(())
    }

    /// How many times the SillyTavern preview was built.
    #[cfg(test)]
    pub(super) fn st_builds(&self) -> u64 {
        self.st_builds
    }

    /// The SillyTavern preview of the attached books; `None` when its
    /// build stopped for someone waiting urgently.
    fn st_preview_engine(&self) -> Result<Option<StPreview>, AppError> {
        let books: Vec<(String, &Book)> = self
            .docs
            .iter()
            .filter(|d| d.attached)
            .map(|d| (d.display_name(), &d.book))
            .collect();
        let settings = self.settings();
        let options = StOptions {
            names: self.st_names(),
            // The user's tokenizer file if one counts instead of the model's,
            // else the chosen model's tokenizer, of any family, as the
            // guide's preview counts with (loaded once per process).
            tokenizer: match self.preview.custom_tokenizer() {
                Some(t) => t.clone(),
                None => tokenizer_for_model(&settings.model)
                    .map_err(|e| AppError::tokenizer_unavailable(&settings.model, e))?,
            },
            seed: settings.seed,
            // The persona and character fields the entries' match flags
            // scan (st_inputs.rs).
            sources: self.st_match_sources(),
        };
        let interrupt = &self.interrupt;
        StPreview::new_while(&books, engine_settings(&self.st_settings), options, || {
            !interrupt.urgently_wanted()
        })
        .map_err(|detail| {
            AppError::coded(
                ErrorKind::Format,
                detail.clone(),
                ErrorCode::StPreviewFailed { detail },
            )
        })
    }

    pub(super) fn attached_views(&self) -> Vec<AttachedBook> {
        self.docs
            .iter()
            .filter(|d| d.attached)
            .map(|d| AttachedBook {
                doc: d.id,
                name: d.display_name(),
            })
            .collect()
    }

    /// Request `k` (default: the last) under SillyTavern's rules, after
    /// requests 1…k−1 ran, so sticky, cooldown and delay carry over.
    pub fn st_preview(&mut self, k: Option<usize>) -> Result<StPreviewView, AppError> {
        let (r, _) = self.st_run(k)?;
        Ok(self.st_view(r))
    }

    /// [`Workspace::st_preview`] with the final prompt SillyTavern would
    /// send, as a change to prompt number `have` when that is the last one
    /// sent (else whole). The card's texts, the persona, the character's
    /// note and the Author's Note are the preview's inputs
    /// (st_inputs.rs), the card's following the attached card.
    pub fn st_preview_with_prompt(
        &mut self,
        k: Option<usize>,
        have: Option<u32>,
    ) -> Result<StPreviewView, AppError> {
        let (r, k) = self.st_run(k)?;
        let inputs = self.st_prompt_inputs();
        let chat = &self.chat[..k];
        let Some(c) = self.st.as_deref_mut() else {
            return Err(AppError::invalid(
                "the SillyTavern preview is not built",
                ErrorCode::StPreviewNotBuilt,
            ));
        };
        let prompt = c.preview.prompt(&r, chat, &inputs);
        let mut view = self.st_view(r);
        let messages: Vec<StPromptMessageView> = prompt.messages.iter().map(message_view).collect();
        let count = messages.len() as u32;
        let d = diff(&mut self.sent_st_prompt, messages, have);
        view.prompt = Some(StPromptPatch {
            rev: d.rev,
            base: d.base,
            keep_head: d.keep_head,
            keep_tail: d.keep_tail,
            middle: d.middle,
            messages: count,
            tokens: prompt.tokens,
            authors_note_due: prompt.authors_note_due,
            absent: prompt
                .absent
                .iter()
                .map(|a| StAbsentView {
                    book: a.book as u32,
                    id: a.id,
                    position: a.position,
                    reason: a.reason,
                })
                .collect(),
        });
        Ok(view)
    }

    /// The answer of request k (k defaults to the chat's length) after
    /// requests 1…k−1, and k. Only the requests from the first message
    /// changed since the last view run again.
    fn st_run(&mut self, k: Option<usize>) -> Result<(StResult, usize), AppError> {
        let k = k.unwrap_or(self.chat.len()).min(self.chat.len());
        let context = self.st_settings.max_context;
        self.st_current()?;
        let Some(c) = self.st.as_deref_mut() else {
            return Err(AppError::invalid(
                "the SillyTavern preview is not built",
                ErrorCode::StPreviewNotBuilt,
            ));
        };
        let r = c.preview.request_after(&self.chat, k, context, &mut c.log);
        Ok((r, k))
    }

    fn st_view(&self, r: StResult) -> StPreviewView {
        let mut injected: Vec<StInjectedView> = Vec::with_capacity(r.injected.len());
        for i in &r.injected {
            let same_slot = |v: &StInjectedView| {
                v.position == i.position
                    && v.depth == i.depth
                    && v.role == i.role
                    && v.outlet == i.outlet
            };
            let rank = injected.iter().filter(|v| same_slot(v)).count() as u32 + 1;
            injected.push(StInjectedView {
                book: i.book as u32,
                id: i.id,
                name: name_of(&i.comment, i.id),
                position: i.position,
                depth: i.depth,
                role: i.role,
                outlet: i.outlet.clone(),
                order: i.order,
                rank,
                tokens: i.tokens,
                pass: i.pass,
                reason: i.reason.clone(),
                decided: i.decided.clone(),
            });
        }
        // Most of a big book is "no match": those past the first few are
        // counted without making anything (this loop runs per keystroke).
        let mut seen = PerKind::new();
        let mut dropped = Vec::new();
        for d in r.not_placed.iter().chain(&r.dropped) {
            if matches!(d.kind, DropKind::NoMatch | DropKind::Disabled) && !seen.shown(d.kind) {
                continue;
            }
            dropped.push(StDroppedView {
                book: d.book as u32,
                id: d.id,
                name: name_of(&d.comment, d.id),
                kind: d.kind,
                detail: (*d.detail).clone(),
            });
        }
        let omitted = seen
            .omitted()
            .map(|(kind, count)| StOmittedDropped { kind, count })
            .collect();
        StPreviewView {
            books: self.attached_views(),
            requests: self.chat.len() as u32,
            request: r.request as u32,
            budget: r.budget,
            used: r.used,
            overflowed: r.overflowed,
            percent: self.st_settings.budget_percent,
            context: self.st_settings.max_context,
            cap: self.st_settings.budget_cap,
            passes: r.passes,
            injected,
            dropped,
            omitted,
            prompt: None,
        }
    }

    /// Requests 1…M under SillyTavern's rules, timed effects carried from
    /// one to the next, rolls seeded by the preview's seed.
    /// The rows of requests before the first message changed since the
    /// last log are kept.
    pub(super) fn st_log(&mut self) -> Result<Vec<BareRow>, AppError> {
        let context = self.st_settings.max_context;
        self.st_current()?;
        let Some(c) = self.st.as_deref_mut() else {
            return Err(AppError::invalid(
                "the SillyTavern preview is not built",
                ErrorCode::StPreviewNotBuilt,
            ));
        };
        let rows = &mut c.rows;
        let interrupt = self.interrupt.clone();
        let whole = c.preview.log_from_while(
            &self.chat,
            rows.len(),
            context,
            &mut c.log,
            || !interrupt.wanted(),
            |r| rows.push(BareRow::of(&Outcome::of_sillytavern(r))),
        );
        if !whole {
            // The rows and timed states so far are kept: the next call
            // resumes there.
            return Err(super::interrupt::gave_way());
        }
        Ok(c.rows.clone())
    }
}

fn message_view(m: &StPromptMessage) -> StPromptMessageView {
    StPromptMessageView {
        role: m.role,
        name: m.name.map(String::from),
        content: m.content.clone(),
        block: m.block,
        sources: m.sources.iter().map(source_view).collect(),
        tokens: m.tokens,
    }
}

fn source_view(s: &PromptSource) -> StPromptSourceView {
    match s {
        PromptSource::Main => StPromptSourceView::Main,
        PromptSource::Persona => StPromptSourceView::Persona,
        PromptSource::Description => StPromptSourceView::Description,
        PromptSource::Personality => StPromptSourceView::Personality,
        PromptSource::Scenario => StPromptSourceView::Scenario,
        PromptSource::Entry { book, id, position } => StPromptSourceView::Entry {
            book: *book as u32,
            id: *id,
            position: *position,
        },
        PromptSource::NewExampleChat => StPromptSourceView::NewExampleChat,
        PromptSource::Example { block } => StPromptSourceView::Example {
            block: *block as u32,
        },
        PromptSource::NewChat => StPromptSourceView::NewChat,
        PromptSource::Chat { index } => StPromptSourceView::Chat {
            index: *index as u32,
        },
        PromptSource::AuthorsNote => StPromptSourceView::AuthorsNote,
        PromptSource::CharacterNote => StPromptSourceView::CharacterNote,
    }
}

/// Whether every change is an edit of an existing entry that `put` could
/// put in place in a kept preview (stopping at the first it could not).
pub(super) fn in_place(
    changes: &[Change],
    mut put: impl FnMut(&lorebook_engine::model::Entry) -> bool,
) -> bool {
    changes.iter().all(|change| match change {
        Change::Entry {
            before: Some(_),
            after: Some(e),
            ..
        } => put(e),
        // Scenarios change no preview.
        Change::Scenarios { .. } => true,
        _ => false,
    })
}

/// A preview's name of an entry: its comment, else `#id`.
pub(super) fn name_of(comment: &str, id: u64) -> String {
    if comment.trim().is_empty() {
        format!("#{id}")
    } else {
        comment.to_string()
    }
}
