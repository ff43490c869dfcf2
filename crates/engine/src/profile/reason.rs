//! Why an entry is in or out of a request, typed: each profile's own
//! reason (`Reason`), read from an [`Outcome`]'s detail.

use serde::Serialize;

use super::{Detail, Outcome, Placed};
use crate::explain::{Activation, DropReason};
use crate::risu::{RisuDrop, RisuWhy};
use crate::sillytavern::{StDetail, StReason};

/// Why an entry is in or out of a request, as its rules say it: the
/// profile's own typed reason (worded by the UI's catalog; English in
/// `Display`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "is", rename_all = "snake_case")]
pub enum Reason {
    StudioIn {
        why: Activation,
    },
    StudioOut {
        why: DropReason,
    },
    SillytavernIn {
        why: StReason,
    },
    SillytavernOut {
        why: StDetail,
    },
    RisuIn {
        why: RisuWhy,
    },
    RisuOut {
        why: RisuDrop,
    },
    /// RisuAI's prompt build fails on this request.
    RisuFailed {
        entry: String,
    },
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::StudioIn { why } => write!(f, "{why}"),
            Reason::StudioOut { why } => write!(f, "{why}"),
            Reason::SillytavernIn { why } => write!(f, "{why}"),
            Reason::SillytavernOut { why } => write!(f, "{why}"),
            Reason::RisuIn { why } => write!(f, "{why}"),
            Reason::RisuOut { why } => write!(f, "{why}"),
            Reason::RisuFailed { entry } => write!(
                f,
                "entry '{entry}' has @@position without an argument: RisuAI's prompt build throws and the request fails"
            ),
        }
    }
}

impl Outcome {
    /// Why `(book, id)` is in the prompt; `None` when it is not injected.
    pub fn reason_in(&self, book: usize, id: u64) -> Option<Reason> {
        match &self.detail {
            Detail::Studio(r) => r
                .injected
                .iter()
                .find(|i| i.book == book && i.id == id)
                .map(|i| Reason::StudioIn {
                    why: i.reason.clone(),
                }),
            Detail::Sillytavern(r) => r
                .injected
                .iter()
                .find(|i| i.book == book && i.id == id)
                .map(|i| Reason::SillytavernIn {
                    why: i.reason.clone(),
                }),
            Detail::Risu(r) => r
                .injected
                .iter()
                .find(|i| i.book == book && i.id == id)
                .map(|i| Reason::RisuIn {
                    why: i.reason.clone(),
                }),
        }
    }

    /// Why `(book, id)` is not in the prompt; `None` when it is injected
    /// or the profile lists no such entry.
    pub fn reason_out(&self, book: usize, id: u64) -> Option<Reason> {
        match &self.detail {
            Detail::Studio(r) => r
                .dropped
                .iter()
                .find(|d| d.book == book && d.id == id)
                .map(|d| Reason::StudioOut {
                    why: d.reason.clone(),
                }),
            Detail::Sillytavern(r) => r
                .dropped
                .iter()
                .chain(&r.not_placed)
                .find(|d| d.book == book && d.id == id)
                .map(|d| Reason::SillytavernOut {
                    why: (*d.detail).clone(),
                }),
            Detail::Risu(r) => {
                if let Some(f) = r.failure.as_ref() {
                    return Some(Reason::RisuFailed {
                        entry: f.comment.clone(),
                    });
                }
                r.dropped
                    .iter()
                    .find(|d| d.book == book && d.id == id)
                    .map(|d| Reason::RisuOut {
                        why: d.reason.clone(),
                    })
            }
        }
    }

    /// The injected entry `(book, id)`, if injected.
    pub fn placed(&self, book: usize, id: u64) -> Option<&Placed> {
        self.injected.iter().find(|p| p.book == book && p.id == id)
    }
}
