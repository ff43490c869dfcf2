//! Activation (SPEC §6): which entries fire in one request, and why.
//!
//! The modules follow the steps of the semantics:
//!
//! - `index.rs`: the attached books compiled once ([`Index::build`]) —
//!   decorators parsed, effective settings resolved, every key in one
//!   matcher — and kept up to date by single-entry edits through an overlay.
//! - `hits.rs`: the keys each message or body contains, scanned once per
//!   text ([`HitCache`]).
//! - `request.rs`: steps 1–6 as a seam, [`Rules`], with the pieces any
//!   front-end's rules share: scan passes, the key test, the roll and the
//!   state between requests.
//! - `studio.rs`: the guide's rules ([`Studio`]), which [`Index::activate`]
//!   runs: gates, constants and kept entries, scan passes, rolls and
//!   recursion, in SPEC order.
//! - `finish.rs`: steps 7–9 ([`Index::finish`]) through `budget`,
//!   `placement` and `prompt`.
//!
//! A request is `activate` (which may be followed by `record` for the next
//! request's `@@keep` state) then `finish`:
//!
//! ```
//! use lorebook_engine::activation::{HitCache, Index, State};
//! use lorebook_engine::{chat, formats::native, prompt::Template, tokenizer::{Encoding, TokenCounter}};
//! let (book, _) = native::load(br#"{"spec":"lorebook_v3","data":{"entries":[
//!     {"id":0,"keys":["moon"],"content":"The moon is red."}]}}"#).unwrap();
//! let chat = chat::parse("User: look at the moon", &Default::default()).unwrap().messages;
//! let index = Index::build(&[book]);
//! let activated = index.activate(&mut HitCache::default(), &chat, 1, 0, &State::default());
//! let mut tokens = TokenCounter::new(Encoding::O200kBase);
//! let result = index.finish(activated, &mut tokens, &Template::default(), &chat);
//! assert_eq!(result.injected[0].id, 0);
//! ```
//!
//! Invariants:
//! - every entry of every attached book ends up in exactly one of
//!   `injected` / `dropped`;
//! - the same seed, chat and books give the same result;
//! - a result depends on each book's entries by id, not on their positions,
//!   so an index edited incrementally gives the same results as one built
//!   from the edited books;
//! - a probability roll depends only on `(seed, request, book, entry id)`.

mod finish;
mod hits;
mod index;
mod request;
mod studio;

pub use hits::HitCache;
pub use index::{CompiledEntry, Index, KeyIx, BUILD_CHECK_EVERY, RECENT_LIMIT};
pub use request::{roll, Activated, Rules, State};
pub use studio::{Studio, RECURSION_LIMIT};
