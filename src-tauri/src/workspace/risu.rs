//! The preview under RisuAI's rules (docs/risu-rules.md): the request
//! shown, RisuAI's settings, and the kept preview.
//!
//! The preview ([`RisuPreview`], which reads every entry in its RisuAI
//! form and compiles the book's keys) is kept with what it was built from
//! ([`RisuKey`]) and built again only when that differs; an edit of an
//! entry that names no new key is put in place (`risu_follow`), any other
//! change of an attached book builds it again at the next view. RisuAI's settings belong to the character in RisuAI; here they
//! are one set for the preview, like SillyTavern's.

use lorebook_engine::model::Book;
use lorebook_engine::profile::{self, Detail, Outcome, Profile, Setup};
use lorebook_engine::risu::cbs::CbsInputs;
use lorebook_engine::risu::{RisuDrop, RisuOptions, RisuResult, RisuSettings, RisuVersion};
use lorebook_engine::tokenizer::tokenizer_for_model;

use super::history::Change;
use super::st::{in_place, name_of};
use super::view::PerKind;
use super::Workspace;
use crate::error::{AppError, ErrorCode, ErrorKind};
use crate::views::{
    RisuAbsentView, RisuDroppedView, RisuFailureView, RisuInjectedView, RisuPreviewView,
    RisuPromptView, RisuSettingsView,
};

/// RisuAI's defaults (a character without `loreSettings`).
pub fn default_settings() -> RisuSettingsView {
    view_of(&RisuSettings::default())
}

fn view_of(s: &RisuSettings) -> RisuSettingsView {
    let c = &s.cbs;
    RisuSettingsView {
        scan_depth: s.scan_depth,
        token_budget: s.token_budget,
        recursive: s.recursive_scanning,
        full_word: s.full_word_matching,
        fm_index: s.fm_index,
        version: s.version.as_str().to_string(),
        username: c.username.clone(),
        char_name: c.char_name.clone(),
        char_nickname: c.char_nickname.clone(),
        default_variables: c.default_variables.clone(),
        template_default_variables: c.template_default_variables.clone(),
        chat_variables: c
            .scriptstate
            .iter()
            .map(|(k, v)| (k.strip_prefix('$').unwrap_or(k).to_string(), v.clone()))
            .collect(),
        global_variables: c.global_chat_variables.clone(),
    }
}

pub(super) fn engine_settings(v: &RisuSettingsView) -> RisuSettings {
    let cbs = CbsInputs {
        username: v.username.clone(),
        char_name: v.char_name.clone(),
        char_nickname: v.char_nickname.clone(),
        default_variables: v.default_variables.clone(),
        template_default_variables: v.template_default_variables.clone(),
        scriptstate: v
            .chat_variables
            .iter()
            .map(|(k, v)| (format!("${k}"), v.clone()))
            .collect(),
        global_chat_variables: v.global_variables.clone(),
        ..CbsInputs::default()
    };
    RisuSettings {
        scan_depth: v.scan_depth,
        token_budget: v.token_budget,
        recursive_scanning: v.recursive,
        full_word_matching: v.full_word,
        fm_index: v.fm_index,
        version: RisuVersion::parse(&v.version).unwrap_or_default(),
        cbs: Box::new(cbs),
    }
}

/// Everything the RisuAI preview is built from.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RisuKey {
    books: Vec<u32>,
    books_gen: u64,
    settings: RisuSettingsView,
    model: String,
    tokenizer_gen: u64,
    seed: u64,
}

/// The kept RisuAI preview, built through the profiles' seam.
pub(super) struct RisuCache {
    key: RisuKey,
    preview: Box<dyn Profile>,
}

impl std::fmt::Debug for RisuCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RisuCache")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl Workspace {
    fn risu_key(&self) -> RisuKey {
        let settings = self.settings();
        RisuKey {
            books: self
                .docs
                .iter()
                .filter(|d| d.attached)
                .map(|d| d.id)
                .collect(),
            books_gen: self.books_gen,
            settings: self.risu_settings.clone(),
            model: settings.model.clone(),
            tokenizer_gen: self.tokenizer_gen,
            seed: settings.seed,
        }
    }

    /// Whether the kept RisuAI preview was built from what it would be
    /// built from now.
    pub(super) fn risu_current(&self) -> bool {
        self.risu.as_ref().is_some_and(|c| c.key == self.risu_key())
    }

    /// Follows `changes` of attached book `book` (see `Workspace::sync`),
    /// given whether the kept preview was current before them: entries
    /// edited without naming a new key are put in place (typing in an
    /// entry's body builds nothing, see `RisuPreview::replace_entry`); any
    /// other change leaves it to be built at the next view.
    pub(super) fn risu_follow(&mut self, book: usize, changes: &[Change], current: bool) {
        if !current {
            return;
        }
        let key = self.risu_key();
        let Some(c) = self.risu.as_deref_mut() else {
            return;
        };
        if in_place(changes, |e| c.preview.replace_entry(book, e)) {
            c.key = key;
        }
    }

    /// How many times the RisuAI preview was built, for tests.
    #[cfg(test)]
    pub(super) fn risu_builds(&self) -> u64 {
        self.risu_builds
    }

    /// Builds the RisuAI preview unless the kept one is current.
    fn risu_ready(&mut self) -> Result<&mut dyn Profile, AppError> {
        let key = self.risu_key();
        if !self.risu.as_ref().is_some_and(|c| c.key == key) {
            let books: Vec<(String, &Book)> = self
                .docs
                .iter()
                .filter(|d| d.attached)
                .map(|d| (String::new(), &d.book))
                .collect();
            let settings = self.settings();
            let tokenizer = match self.preview.custom_tokenizer() {
                Some(t) => t.clone(),
                None => tokenizer_for_model(&settings.model)
                    .map_err(|e| AppError::tokenizer_unavailable(&settings.model, e))?,
            };
            // Gives way to whoever keeps the user's work (see
            // `super::interrupt`); the next view builds it again.
            let interrupt = self.interrupt.clone();
            let preview = profile::build_while(
                &books,
                Setup::Risu {
                    settings: engine_settings(&self.risu_settings),
                    options: RisuOptions {
                        tokenizer,
                        seed: settings.seed,
                    },
                    // The view builds the prompt itself (`risu_preview`).
                    inputs: Box::default(),
                },
                || !interrupt.urgently_wanted(),
            )
            .map_err(|e| AppError::internal("risu_ready", &e))?
            .ok_or_else(super::interrupt::gave_way)?;
            self.risu_builds += 1;
            self.risu = Some(Box::new(RisuCache { key, preview }));
        }
        match self.risu.as_deref_mut() {
            Some(c) => Ok(&mut *c.preview),
            None => Err(AppError::internal("risu_ready", "no preview kept")),
        }
    }

    /// Request `k` (default: the last) under RisuAI's rules, after
    /// requests 1…k−1 ran when some entry keeps after-match state; with
    /// `prompt`, the final prompt RisuAI sends for it.
    pub fn risu_preview(
        &mut self,
        k: Option<usize>,
        prompt: bool,
    ) -> Result<RisuPreviewView, AppError> {
        let requests = self.chat.len();
        let k = k.unwrap_or(requests).min(requests);
        let chat = std::mem::take(&mut self.chat);
        let result = self.risu_ready().map(|p| p.request(&chat, k));
        self.chat = chat;
        let Detail::Risu(r) = result?.detail else {
            return Err(AppError::internal("risu_preview", "not a RisuAI answer"));
        };
        // A request RisuAI's prompt build fails on sends nothing.
        let prompt = (prompt && r.failure.is_none()).then(|| {
            let seen = &self.chat[..r.request.min(self.chat.len())];
            let p = lorebook_engine::risu::prompt::build(&r, seen, &self.risu_prompt_inputs());
            let name = |book: usize, id: u64| {
                let entry = self
                    .docs
                    .iter()
                    .filter(|d| d.attached)
                    .nth(book)
                    .and_then(|d| d.book.entries.iter().find(|e| e.id == id));
                name_of(entry.map_or("", |e| e.comment.as_str()), id)
            };
            RisuPromptView {
                absent: p
                    .absent
                    .iter()
                    .map(|a| RisuAbsentView {
                        book: a.book as u32,
                        id: a.id,
                        name: name(a.book, a.id),
                        position: a.position.clone(),
                    })
                    .collect(),
                messages: p.messages,
            }
        });
        let mut view = self.risu_view(*r, requests);
        view.prompt = prompt;
        Ok(view)
    }

    /// Requests 1…M under RisuAI's rules, one after-match state carried,
    /// each handed to `each`; `false` when it gave way (see
    /// [`super::interrupt`]).
    pub(super) fn risu_log_each(
        &mut self,
        each: &mut dyn FnMut(Outcome),
    ) -> Result<bool, AppError> {
        let chat = std::mem::take(&mut self.chat);
        let interrupt = self.interrupt.clone();
        let whole = self
            .risu_ready()
            .map(|p| p.log_each_while(&chat, &mut || !interrupt.wanted(), each));
        self.chat = chat;
        whole
    }

    fn risu_view(&self, r: RisuResult, requests: usize) -> RisuPreviewView {
        let mut unmatched = 0u32;
        let mut more = 0u32;
        let mut dropped = Vec::new();
        // Per reason, the first few are listed and the rest counted, so
        // what crosses per keystroke does not grow with the book.
        let mut seen = PerKind::new();
        for d in r.dropped.iter() {
            if matches!(d.reason, RisuDrop::NoMatch | RisuDrop::EmptyKey) {
                unmatched += 1;
                continue;
            }
            if !seen.shown(std::mem::discriminant(&d.reason)) {
                more += 1;
                continue;
            }
            dropped.push(RisuDroppedView {
                book: d.book as u32,
                id: d.id,
                name: name_of(&d.comment, d.id),
                why: d.reason.clone(),
            });
        }
        RisuPreviewView {
            books: self.attached_views(),
            request: r.request as u32,
            requests: requests as u32,
            budget: r.budget,
            used: r.used,
            passes: r.passes,
            injected: r
                .injected
                .into_iter()
                .map(|i| RisuInjectedView {
                    book: i.book as u32,
                    id: i.id,
                    name: name_of(&i.comment, i.id),
                    position: i.position.to_string(),
                    depth: i.depth,
                    role: i.role,
                    order: i.order,
                    priority: i.priority,
                    tokens: i.tokens,
                    pass: i.pass,
                    why: i.reason,
                    sent: i.sent,
                })
                .collect(),
            dropped,
            unmatched,
            more,
            failure: r.failure.map(|f| RisuFailureView {
                book: f.book as u32,
                id: f.id,
                name: f.comment,
            }),
            prompt: None,
        }
    }

    pub fn set_risu_settings(&mut self, v: RisuSettingsView) -> Result<(), AppError> {
        let ranges: [(&str, f64, i64, i64); 3] = [
            ("scan_depth", v.scan_depth, 0, 1000),
            ("token_budget", v.token_budget, 0, 10_000_000),
            ("fm_index", v.fm_index as f64, -1, 1000),
        ];
        for (setting, value, min, max) in ranges {
            if !(min as f64..=max as f64).contains(&value) {
                return Err(AppError::coded(
                    ErrorKind::Invalid,
                    format!("RisuAI setting {setting} must be between {min} and {max}"),
                    ErrorCode::RisuSettingOutOfRange {
                        setting: setting.into(),
                        min,
                        max,
                    },
                ));
            }
        }
        if let Err(detail) = RisuVersion::parse(&v.version) {
            return Err(AppError::coded(
                ErrorKind::Invalid,
                detail.clone(),
                ErrorCode::BadPreviewSettings { detail },
            ));
        }
        self.risu_settings = v;
        Ok(())
    }
}
