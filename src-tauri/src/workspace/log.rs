//! The request log under any rules: one row shape ([`LogRow`]) read from
//! the common part of the profiles' seam (`lorebook_engine::profile::Outcome`),
//! whatever the rules in force. Each profile's log runs where its preview is
//! kept (the guide's in `view.rs`, SillyTavern's resumable one in `st.rs`,
//! RisuAI's in `risu.rs`); this module turns their answers into rows and
//! names the entries.

use lorebook_engine::profile::Outcome;

use super::Workspace;
use crate::error::AppError;
use crate::views::{LogEntry, LogRow, PreviewAnswer, PreviewAsk, Rules};

/// A log row before its entries are named: what a request's answer is
/// reduced to at once, so a long log keeps no whole answers.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct BareRow {
    request: u32,
    used: u32,
    limit: u32,
    injected: Vec<(usize, u64)>,
    cut: Vec<(usize, u64)>,
    held: Vec<(usize, u64)>,
}

impl BareRow {
    pub(super) fn of(o: &Outcome) -> Self {
        BareRow {
            request: o.request as u32,
            used: o.used,
            limit: o.limit,
            injected: o.injected.iter().map(|p| (p.book, p.id)).collect(),
            cut: o.cut.clone(),
            held: o.held.clone(),
        }
    }
}

impl PreviewAsk {
    /// The rules the preview shown follows.
    pub fn rules(&self) -> Rules {
        match self {
            PreviewAsk::Studio { .. } => Rules::Studio,
            PreviewAsk::Sillytavern { .. } => Rules::Sillytavern,
            PreviewAsk::Risu { .. } => Rules::Risu,
        }
    }

    /// The request asked for (`None`: the last).
    pub fn request(&self) -> Option<usize> {
        let (PreviewAsk::Studio { request, .. }
        | PreviewAsk::Sillytavern { request, .. }
        | PreviewAsk::Risu { request }) = self;
        request.map(|r| r as usize)
    }
}

impl Workspace {
    /// The preview under the rules in force, whatever the rules: the
    /// request `ask` names, with the rest of `ask` (the prompt held, the
    /// prompt panel) when it names the rules in force.
    pub fn preview_answer(&mut self, ask: PreviewAsk) -> Result<PreviewAnswer, AppError> {
        let k = ask.request();
        let same = ask.rules() == self.rules();
        Ok(match self.rules() {
            Rules::Studio => {
                let have = match ask {
                    PreviewAsk::Studio { have, .. } if same => have,
                    _ => None,
                };
                PreviewAnswer::Studio {
                    view: self.preview_since(k, have)?,
                }
            }
            Rules::Sillytavern => {
                let view = match ask {
                    PreviewAsk::Sillytavern {
                        prompt: true, have, ..
                    } => self.st_preview_with_prompt(k, have)?,
                    _ => self.st_preview(k)?,
                };
                PreviewAnswer::Sillytavern { view }
            }
            Rules::Risu => PreviewAnswer::Risu {
                view: self.risu_preview(k)?,
            },
        })
    }

    /// The request log under the rules in force. A log that gave way to a
    /// save or a newer request answers `cancelled` (see
    /// [`super::interrupt`]).
    pub fn preview_log(&mut self) -> Result<Vec<LogRow>, AppError> {
        let bare = match self.rules() {
            Rules::Studio => self.studio_log()?,
            Rules::Sillytavern => self.st_log()?,
            Rules::Risu => {
                let mut rows = Vec::with_capacity(self.chat.len());
                if !self.risu_log_each(&mut |o| rows.push(BareRow::of(&o)))? {
                    return Err(super::interrupt::gave_way());
                }
                rows
            }
        };
        Ok(self.named_rows(&bare))
    }

    /// The rows with each entry's name (its comment, else its first key,
    /// else `#id`), looked up once per entry.
    fn named_rows(&self, bare: &[BareRow]) -> Vec<LogRow> {
        let attached: Vec<&super::documents::Doc> =
            self.docs.iter().filter(|d| d.attached).collect();
        let mut names = std::collections::HashMap::new();
        let mut name = |book: usize, id: u64| -> LogEntry {
            let name = names
                .entry((book, id))
                .or_insert_with(|| {
                    attached
                        .get(book)
                        .and_then(|d| d.book.entry(id))
                        .map(|e| e.display_name().to_string())
                        .unwrap_or_else(|| format!("#{id}"))
                })
                .clone();
            LogEntry {
                book: book as u32,
                id,
                name,
            }
        };
        bare.iter()
            .map(|r| LogRow {
                request: r.request,
                used: r.used,
                limit: r.limit,
                injected: r.injected.iter().map(|&(b, id)| name(b, id)).collect(),
                cut: r.cut.iter().map(|&(b, id)| name(b, id)).collect(),
                held: r.held.iter().map(|&(b, id)| name(b, id)).collect(),
            })
            .collect()
    }
}
