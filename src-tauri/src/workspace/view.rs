//! The preview side of the workspace: the sample chat, which books are
//! attached, the preview settings, and the views of a request and of the
//! whole chat that the preview pane renders.

use lorebook_engine::chat;
use lorebook_engine::explain::{Activation, DropReason, DropReasonKind, Source};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lorebook_engine::preview::Settings;
use lorebook_engine::prompt::PromptMessage;
use lorebook_engine::tokenizer::registry::family_of;
use lorebook_engine::tokenizer::{FileTokenizer, Tokenizer};

use lorebook_engine::profile::Outcome;

use super::log::BareRow;
use super::Workspace;
use crate::error::{AppError, ErrorCode};
use crate::views::{
    AttachedBook, ChatStatus, EntryName, OmittedDropped, PreviewView, PromptPatch, SourceText,
};

/// How many "no match" and "disabled" entries a preview view lists.
pub const SHOWN_PER_KIND: usize = 100;

/// Counts the dropped entries of each kind a preview view meets, so that
/// past the first [`SHOWN_PER_KIND`] of a kind they are counted, not made
/// (the views are built per keystroke).
pub(super) struct PerKind<K>(Vec<(K, u32)>);

impl<K: PartialEq> PerKind<K> {
    pub fn new() -> Self {
        PerKind(Vec::new())
    }

    /// Counts one more of `kind`: whether it is still among those shown.
    pub fn shown(&mut self, kind: K) -> bool {
        let n = match self.0.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => n,
            None => {
                self.0.push((kind, 0));
                &mut self.0.last_mut().expect("just pushed").1
            }
        };
        *n += 1;
        *n as usize <= SHOWN_PER_KIND
    }

    /// Each kind with how many of it were counted and not shown.
    pub fn omitted(self) -> impl Iterator<Item = (K, u32)> {
        self.0
            .into_iter()
            .filter(|(_, n)| *n as usize > SHOWN_PER_KIND)
            .map(|(k, n)| (k, n - SHOWN_PER_KIND as u32))
    }
}

impl Workspace {
    pub fn set_chat(&mut self, text: String) {
        match chat::parse(&text, &self.chat_options) {
            Ok(c) => {
                self.chat = c.messages;
                self.chat_warnings = c.warnings;
                self.chat_error = None;
            }
            Err(e) => {
                // Keep the last good messages so the preview stays useful.
                self.chat_error = Some(e);
            }
        }
        self.chat_text = text;
        self.read_chat_vars();
    }

    /// Applies a typed change to the chat: `remove` characters at `at`
    /// replaced by `insert`, counted in UTF-16 code units as the webview
    /// counts them. `len` is the chat's length the UI believes Rust holds;
    /// another length (or a place inside a character) is refused, and the
    /// UI then sends the whole text. A keystroke thus sends what it typed,
    /// not the whole chat.
    pub fn edit_chat(
        &mut self,
        at: u32,
        remove: u32,
        insert: &str,
        len: u32,
    ) -> Result<(), AppError> {
        // Counted in the engine (optimized even in debug builds): a 100 KB
        // chat walked char by char in unoptimized code cost milliseconds.
        let units = chat::utf16_len(&self.chat_text);
        if units != len as usize {
            return Err(out_of_step(format!(
                "the chat has {units} characters, not {len}: send it whole"
            )));
        }
        let byte_at = |unit: usize| chat::utf16_to_byte(&self.chat_text, unit);
        // Checked: the webview sends these numbers, and a sum past u32 (or
        // past the chat) is a refused edit, not a wrap or a panic.
        let Some(end) = at.checked_add(remove) else {
            return Err(out_of_step(format!(
                "the chat edit at {at} removing {remove} characters goes past the chat's end"
            )));
        };
        let (Some(from), Some(to)) = (byte_at(at as usize), byte_at(end as usize)) else {
            return Err(out_of_step(
                "the chat edit is not at a character boundary".into(),
            ));
        };
        let mut text = String::with_capacity(self.chat_text.len() + insert.len());
        text.push_str(&self.chat_text[..from]);
        text.push_str(insert);
        text.push_str(&self.chat_text[to..]);
        self.set_chat(text);
        Ok(())
    }

    /// The chat's reading, without its text.
    pub fn chat_status(&self) -> ChatStatus {
        ChatStatus {
            chat_error: self.chat_error.clone(),
            chat_warnings: self.chat_warnings.clone(),
        }
    }

    pub fn set_attached(&mut self, doc: u32, attached: bool) -> Result<(), AppError> {
        self.doc_mut(doc)?.attached = attached;
        self.books_changed();
        Ok(())
    }

    pub fn set_settings(&mut self, settings: Settings) -> Result<(), AppError> {
        self.preview.set_settings(settings).map_err(|detail| {
            AppError::invalid(detail.clone(), ErrorCode::BadPreviewSettings { detail })
        })
    }

    pub fn settings(&self) -> &Settings {
        self.preview.settings()
    }

    /// Counts every entry and the preview with a user's tokenizer file
    /// instead of the model's, or with the model's again (`None`). The
    /// file is read by the caller, off the workspace lock.
    pub fn set_tokenizer_file(&mut self, file: Option<(PathBuf, Arc<FileTokenizer>)>) {
        let (path, tokenizer) = file.unzip();
        self.tokenizer_file = path;
        self.tokenizer_gen += 1;
        self.preview.set_tokenizer(tokenizer.map(Tokenizer::File));
    }

    /// Token count of `text` with the tokenizer in use.
    pub fn count_tokens(&mut self, text: &str) -> u32 {
        self.preview.count_tokens(text)
    }

    /// The user's tokenizer file counting instead of the model's, if any.
    pub fn tokenizer_file(&self) -> Option<&Path> {
        self.tokenizer_file.as_deref()
    }

    /// Whether counts are approximate: the model's family is marked so and
    /// no file of the user's counts instead.
    pub fn approximate_counts(&self) -> bool {
        self.tokenizer_file.is_none()
            && family_of(&self.preview.settings().model).is_ok_and(|f| !f.exact)
    }

    /// The preview of request `k` (default: the last), with the whole
    /// final prompt; the index is built whoever waits.
    pub fn preview(&mut self, k: Option<usize>) -> PreviewView {
        self.refresh_while(|| true);
        self.view_of(k, None)
    }

    /// The preview of request `k`, its final prompt as a change to prompt
    /// number `have` when that is the last one sent (else whole). When the
    /// index had to be built and a save or an autosave came to wait for
    /// the workspace, the build stops and the answer is `cancelled` (see
    /// [`super::interrupt`]).
    pub fn preview_since(
        &mut self,
        k: Option<usize>,
        have: Option<u32>,
    ) -> Result<PreviewView, AppError> {
        if !self.refresh() {
            return Err(super::interrupt::gave_way());
        }
        Ok(self.view_of(k, have))
    }

    /// The view of request `k` of the built index.
    fn view_of(&mut self, k: Option<usize>, have: Option<u32>) -> PreviewView {
        let attached: Vec<(u32, String)> = self
            .docs
            .iter()
            .filter(|d| d.attached)
            .map(|d| (d.id, d.display_name()))
            .collect();
        let k = k.unwrap_or(self.chat.len()).min(self.chat.len());
        let mut result = self.preview.request(&self.chat, k);
        // On a 10,000-entry book nearly every entry is "no match": the view
        // lists the first few of the plentiful kinds and counts the rest, so
        // a keystroke does not ship megabytes to the webview.
        let mut seen: Vec<(DropReasonKind, u32)> = Vec::new();
        result.dropped.retain(|d| {
            let kind = d.reason.reason_kind();
            // An entry whose key the scan gave up on is always shown.
            let gave_up = matches!(
                &d.reason,
                DropReason::NoMatch {
                    gave_up: Some(_),
                    ..
                }
            );
            if gave_up || !matches!(kind, DropReasonKind::NoMatch | DropReasonKind::Disabled) {
                return true;
            }
            let n = match seen.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, n)) => n,
                None => {
                    seen.push((kind, 0));
                    &mut seen.last_mut().expect("just pushed").1
                }
            };
            *n += 1;
            *n as usize <= SHOWN_PER_KIND
        });
        let omitted = seen
            .into_iter()
            .filter(|(_, n)| *n as usize > SHOWN_PER_KIND)
            .map(|(kind, n)| OmittedDropped {
                kind,
                count: n - SHOWN_PER_KIND as u32,
            })
            .collect();
        let index = self.preview.index();
        let name = |book: usize, id: u64| -> String {
            index
                .entry(book, id)
                .map(|e| e.comment.to_string())
                .filter(|c| !c.trim().is_empty())
                .or_else(|| {
                    let doc = attached.get(book)?.0;
                    let d = self.docs.iter().find(|d| d.id == doc)?;
                    Some(d.book.entry(id)?.display_name().to_string())
                })
                .unwrap_or_default()
        };
        let names = result
            .injected
            .iter()
            .map(|i| (i.book, i.id))
            .chain(result.dropped.iter().map(|d| (d.book, d.id)))
            .map(|(b, id)| EntryName {
                book: b as u32,
                id,
                name: name(b, id),
            })
            .collect();
        let mut sources: Vec<SourceText> = Vec::new();
        for i in &result.injected {
            let Activation::Key { primary, .. } = &i.reason else {
                continue;
            };
            if sources.iter().any(|t| t.source == primary.source) {
                continue;
            }
            let text = match primary.source {
                Source::Message { index } => self.chat.get(index).map(|m| m.text.clone()),
                Source::Entry { book, id } => index.entry(book, id).map(|e| e.body.to_string()),
            };
            if let Some(text) = text {
                sources.push(SourceText {
                    source: primary.source,
                    text,
                });
            }
        }
        let messages = std::mem::take(&mut result.messages);
        let prompt = self.prompt_patch(messages, have);
        PreviewView {
            books: attached
                .iter()
                .map(|(id, name)| AttachedBook {
                    doc: *id,
                    name: name.clone(),
                })
                .collect(),
            requests: self.chat.len() as u32,
            names,
            sources,
            result,
            prompt,
            omitted,
        }
    }

    /// `messages` as a change to the last prompt sent, when the UI has it.
    fn prompt_patch(&mut self, messages: Vec<PromptMessage>, have: Option<u32>) -> PromptPatch {
        let d = diff(&mut self.sent_prompt, messages, have);
        PromptPatch {
            rev: d.rev,
            base: d.base,
            keep_head: d.keep_head,
            keep_tail: d.keep_tail,
            middle: d.middle,
        }
    }

    /// The request log's rows under the guide's rules. Stops, answering
    /// `cancelled`, when someone waits for the workspace (see
    /// [`super::interrupt`]).
    pub(super) fn studio_log(&mut self) -> Result<Vec<BareRow>, AppError> {
        if !self.refresh() {
            return Err(super::interrupt::gave_way());
        }
        let interrupt = self.interrupt.clone();
        let mut rows = Vec::with_capacity(self.chat.len());
        let whole = self.preview.log_each_while(
            &self.chat,
            || !interrupt.wanted(),
            |r| rows.push(BareRow::of(&Outcome::of_studio(r))),
        );
        if !whole {
            return Err(super::interrupt::gave_way());
        }
        Ok(rows)
    }

    /// The doc behind attached book position `book`.
    pub fn doc_of_attached(&self, book: usize) -> Option<u32> {
        self.docs
            .iter()
            .filter(|d| d.attached)
            .nth(book)
            .map(|d| d.id)
    }
}

/// A list of messages as a change to the last one sent (`sent`), when the
/// UI says it holds that one (`have`); else the whole list.
pub(super) struct Diff<T> {
    pub rev: u32,
    pub base: Option<u32>,
    pub keep_head: u32,
    pub keep_tail: u32,
    pub middle: Vec<T>,
}

/// `messages` against `sent`, which then becomes `messages`.
pub(super) fn diff<T: Clone + PartialEq>(
    sent: &mut (u32, Vec<T>),
    messages: Vec<T>,
    have: Option<u32>,
) -> Diff<T> {
    let (last_rev, last) = &*sent;
    let rev = last_rev.wrapping_add(1);
    let d = if have == Some(*last_rev) {
        let head = messages
            .iter()
            .zip(last.iter())
            .take_while(|(a, b)| a == b)
            .count();
        let tail = messages[head..]
            .iter()
            .rev()
            .zip(last[head..].iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        Diff {
            rev,
            base: have,
            keep_head: head as u32,
            keep_tail: tail as u32,
            middle: messages[head..messages.len() - tail].to_vec(),
        }
    } else {
        Diff {
            rev,
            base: None,
            keep_head: 0,
            keep_tail: 0,
            middle: messages.clone(),
        }
    };
    *sent = (rev, messages);
    d
}

/// A chat edit refused because it does not fit the chat held.
fn out_of_step(detail: String) -> AppError {
    AppError::invalid(detail.clone(), ErrorCode::ChatOutOfStep { detail })
}
