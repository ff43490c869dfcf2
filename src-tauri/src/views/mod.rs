//! What crosses the IPC boundary besides engine types, one module per
//! domain. Every type here and every engine type it holds derives
//! `ts_rs::TS`; `ui/src/lib/bindings.ts` is generated from them (see
//! `bindings::tests`).

mod ai;
mod book;
mod catalog;
mod lint;
mod preview;
mod risu;
mod scenarios;
mod server;
mod sillytavern;
mod transfer;

pub use ai::*;
pub use book::*;
pub use catalog::*;
pub use lint::*;
pub use preview::*;
pub use risu::*;
pub use scenarios::*;
pub use server::*;
pub use sillytavern::*;
pub use transfer::*;

// The engine types the views hold, for the modules above.
use lorebook_engine::chat::{ChatError, ChatWarning};
use lorebook_engine::decorators::{DecoratorLine, Diagnostic, Severity};
use lorebook_engine::explain::{RequestResult, Source};
use lorebook_engine::formats::report::Note;
use lorebook_engine::formats::{ExportFormat, Format, Report};
use lorebook_engine::model::{Entry, Role};
use lorebook_engine::preview::Settings;
use lorebook_engine::prompt::PromptMessage;
use lorebook_engine::sillytavern::{AbsentReason, Position, PromptBlock, StDetail, StReason};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::AppError;
