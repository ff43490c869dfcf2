//! A SillyTavern server the app is connected to (`crate::server`): the
//! connection, its books and characters, and what went wrong.

use super::*;

/// The connection in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ServerView {
    /// The address, normalised (`http://127.0.0.1:8000`).
    pub address: String,
    /// The user logged in as, when the server asked for one.
    pub user: Option<String>,
    /// What the server asked for.
    pub login: ServerLogin,
    /// The password is in the system's secret store for this server and
    /// user.
    pub password_saved: bool,
    /// Why the password could not be remembered, when that was asked.
    pub not_remembered: Option<String>,
}

/// The last server connected to (address and user, never a password), to
/// offer next time; kept in the app's data folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LastServer {
    pub address: String,
    pub user: Option<String>,
    /// A password for them is in the system's secret store.
    #[serde(default)]
    pub password_saved: bool,
}

/// What a server asked for (`lorebook_connect::AuthMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ServerLogin {
    Open,
    Basic,
    Account,
    BasicAndAccount,
}

/// A book on the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ServerBookView {
    /// Its name on the server (the file name without `.json`).
    pub file_id: String,
    /// The name inside the file, when it has one.
    pub name: String,
    /// The open tab of it, if any.
    pub open: Option<u32>,
}

/// A character on the server, with its linked book and chats.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ServerCharacterView {
    pub name: String,
    /// Its card's file name: what the server names it by.
    pub avatar: String,
    /// The book linked to it in SillyTavern, if any.
    pub world: Option<String>,
    /// Its chat files (names without `.jsonl`).
    pub chats: Vec<String>,
}

/// Where an open book lives when it was opened from a server: saving it
/// sends it back there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ServerBookRef {
    pub address: String,
    pub user: Option<String>,
    pub file_id: String,
}

/// What went wrong with a server (`ErrorCode::Server`), for the UI's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ServerProblem {
    BadAddress,
    Unreachable,
    TimedOut,
    NotSillytavern,
    Redirected,
    NeedsLogin,
    WrongPassword,
    TooManyAttempts,
    Forbidden,
    Refused,
    TooLarge,
    Malformed,
    NoSuchBook,
    NoSuchChat,
    BadName,
    Record,
    /// The system's secret store refused (`crate::secrets`).
    SecretStore,
}

/// How a server's copy of a book changed (`ErrorCode::ChangedOnServer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ServerChange {
    /// Edited there since it was opened or saved here.
    Edited,
    /// Deleted there.
    Deleted,
    /// A book of that name there was never opened here.
    NeverPulled,
}
