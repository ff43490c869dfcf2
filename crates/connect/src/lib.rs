//! A running SillyTavern reached over its server API, for the app and the
//! CLI: connecting (no login, basic auth or a user account, the CSRF token
//! handled), listing, pulling and pushing books with a check that the
//! server's copy is the one last seen here, and reading the settings,
//! characters and chats the preview needs.
//!
//! Only Rust talks to the server (rustls for HTTPS); the app's webview never
//! does. Passwords live in [`Secret`], which never prints, and are never
//! written anywhere by this crate. See `docs/sillytavern-server.md`.

mod address;
mod api;
mod client;
mod error;
mod sync;

pub use address::{Address, AuthMode, Login, Secret, Timeouts};
pub use api::{check_book_name, BookListing, Character, ChatListing};
pub use client::{Server, MAX_ANSWER_BYTES};
pub use error::{Changed, Error, LoginKind};
pub use sync::{
    check, check_seen, fetch, fingerprint, pull, push, push_seen, same_json, Ledger, Pushed,
    LEDGER_FILE, STATE_DIR_ENV,
};
