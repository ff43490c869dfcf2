//! The author's own language model, through any OpenAI-compatible
//! chat-completions endpoint, and what it suggests checked by the preview
//! before anything goes in (docs/ai.md).
//!
//! - [`endpoint`]: where the model is; the API key never prints;
//! - [`client`]: one streamed request, cancellable, with its time and size
//!   limits and the structured-output ladder, and its transcript;
//! - [`prompt`]: the actions' prompts, as files an author can replace;
//! - [`action`]: draft, keys, shorten, review: the prompt's values, the
//!   answer's schema and what an answer becomes;
//! - [`check`]: each suggestion's simulated effect under the rules in use.
//!
//! Nothing is sent unless an action runs, and nothing is written here:
//! the caller applies what the author accepts ([`action::apply`]).

pub mod action;
mod answer;
pub mod check;
pub mod client;
pub mod endpoint;
pub mod error;
pub mod prompt;
pub mod run;
mod sse;
mod suggested;

pub use action::{Draft, Finding, Merge, Request, Suggestion};
pub use check::{Check, Failed, Setup, Verdict};
pub use client::{Exchange, Format};
pub use endpoint::{ApiKey, Endpoint, Limits};
pub use error::AiError;
