//! The lorebook engine: books, decorators, matching, activation, budget,
//! tokenizers, chat parsing and prompt assembly, as the guide's contract
//! defines them. Comments cite its sections as "SPEC §N"; the repository's
//! `docs/semantics.md` restates each section and maps the numbers.
//!
//! Pure Rust, no global state, no I/O beyond explicit load/save functions.
//! The usual entry point is [`preview::Preview`]:
//!
//! ```
//! use lorebook_engine::{chat, formats::native, preview::{Preview, Settings}};
//! let (book, _notes) = native::load(br#"{"spec":"lorebook_v3","data":{"entries":[
//!     {"id":0,"keys":["lighthouse"],"content":"The lighthouse has been dark for years."}]}}"#).unwrap();
//! let chat = chat::parse("User: Who keeps the lighthouse?", &Default::default()).unwrap();
//! let result = Preview::new(&[book], Settings::default()).request(&chat.messages, 1);
//! assert_eq!(result.injected[0].id, 0);
//! ```

pub mod activation;
pub mod budget;
pub mod chat;
pub mod compare;
pub mod decorators;
pub mod diagnostic;
pub mod explain;
pub mod figures;
pub mod folders;
pub mod formats;
pub mod impact;
pub mod io;
pub mod lint;
pub mod matcher;
pub mod merge;
pub mod model;
pub mod placement;
pub mod preview;
pub mod profile;
pub mod prompt;
pub mod replace;
pub mod risu;
pub mod scenario;
pub mod sillytavern;
pub mod tokenizer;
