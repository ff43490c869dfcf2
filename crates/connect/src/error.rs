//! What can go wrong talking to a SillyTavern server, each said so that an
//! author knows what to do next. No error ever holds a password: a login is
//! named by its user only.

use std::fmt;

/// Why a call to the server did not do what it was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The address is not one this client can use (`detail` says why).
    BadAddress { address: String, detail: String },
    /// Nothing answered at the address (refused, unknown host, TLS failure).
    Unreachable { address: String, detail: String },
    /// The server took longer than the time allowed.
    TimedOut { address: String, seconds: u64 },
    /// Something answered, but not as SillyTavern does.
    NotSillyTavern { address: String, detail: String },
    /// The server sent us elsewhere; we never follow (a password would go too).
    Redirected { address: String, to: String },
    /// The server asks for a user and password (basic auth or a user account).
    NeedsLogin { address: String, kind: LoginKind },
    /// The user or password was refused.
    WrongPassword {
        address: String,
        user: String,
        kind: LoginKind,
    },
    /// Too many wrong passwords: the server makes us wait.
    TooManyAttempts { address: String },
    /// The server refused the request after a fresh token and login.
    Forbidden { address: String, what: String },
    /// The server answered with an error status.
    Refused {
        what: String,
        status: u16,
        message: String,
    },
    /// An answer larger than any book, not read past the cap.
    TooLarge { what: String, limit: u64 },
    /// An answer that is not what the endpoint gives (shape or JSON).
    Malformed { what: String, detail: String },
    /// No book of that name on the server.
    NoSuchBook { name: String, near: Vec<String> },
    /// No character or chat of that name on the server.
    NoSuchChat { what: String },
    /// A name SillyTavern would store under another file name.
    BadName { name: String, detail: String },
    /// The server's copy changed since this machine last pulled or pushed it.
    Changed(Changed),
    /// The record of what was pulled could not be read or written.
    Ledger { path: String, detail: String },
}

/// Which login the server asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginKind {
    /// HTTP basic auth (`basicAuthMode`).
    Basic,
    /// A SillyTavern user account (`enableUserAccounts`).
    Account,
}

/// How the server's copy differs from the one last seen here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changed {
    /// The server has a book of that name this machine never pulled.
    NeverPulled { name: String },
    /// The server's copy was edited since the last pull or push.
    Edited { name: String },
    /// The server's copy was deleted since the last pull or push.
    Deleted { name: String },
}

impl fmt::Display for LoginKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LoginKind::Basic => "basic auth",
            LoginKind::Account => "a user account",
        })
    }
}

impl fmt::Display for Changed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Changed::NeverPulled { name } => write!(
                f,
                "the server already has a book {name:?} that was never pulled here; pull it first, or replace it with --force"
            ),
            Changed::Edited { name } => write!(
                f,
                "the server's copy of {name:?} changed since it was last pulled or pushed here; pull it to see the change, or replace it with --force"
            ),
            Changed::Deleted { name } => write!(
                f,
                "the server's copy of {name:?} was deleted since it was last pulled or pushed here; push with --force to create it again"
            ),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadAddress { address, detail } => {
                write!(f, "{address:?} is not a server address: {detail}")
            }
            Error::Unreachable { address, detail } => write!(
                f,
                "cannot reach {address}: {detail} (is SillyTavern running, and is this its address?)"
            ),
            Error::TimedOut { address, seconds } => write!(
                f,
                "{address} did not answer within {seconds} s; the book here is kept as it is (saving it again is safe)"
            ),
            Error::NotSillyTavern { address, detail } => write!(
                f,
                "{address} does not answer as SillyTavern does ({detail}); check the address and port"
            ),
            Error::Redirected { address, to } => write!(
                f,
                "{address} sent the request to {to}; give that address instead (redirects are never followed, so a password never goes elsewhere)"
            ),
            Error::NeedsLogin { address, kind } => write!(
                f,
                "{address} asks for a user and password ({kind}): give --user, and the password in LOREBOOK_ST_PASSWORD"
            ),
            Error::WrongPassword {
                address,
                user,
                kind,
            } => write!(
                f,
                "{address} refused the user {user:?} and its password ({kind}): wrong user or password"
            ),
            Error::TooManyAttempts { address } => write!(
                f,
                "{address} refuses logins for a while after too many wrong passwords; wait a minute and try again"
            ),
            Error::Forbidden { address, what } => write!(
                f,
                "{address} refused {what} even after a fresh token and login (is this user allowed to?)"
            ),
            Error::Refused {
                what,
                status,
                message,
            } => {
                if message.is_empty() {
                    write!(f, "the server refused {what} (HTTP {status})")
                } else {
                    write!(f, "the server refused {what} (HTTP {status}): {message}")
                }
            }
            Error::TooLarge { what, limit } => write!(
                f,
                "the server's answer to {what} is larger than {} MiB, more than any book; not read",
                limit / (1024 * 1024)
            ),
            Error::Malformed { what, detail } => {
                write!(f, "the server's answer to {what} is not what SillyTavern sends: {detail}")
            }
            Error::NoSuchBook { name, near } => {
                write!(f, "the server has no book named {name:?}")?;
                if !near.is_empty() {
                    write!(f, " (it has {})", quoted_list(near))?;
                }
                Ok(())
            }
            Error::NoSuchChat { what } => write!(f, "the server has no {what}"),
            Error::BadName { name, detail } => {
                write!(f, "{name:?} cannot be a SillyTavern book name: {detail}")
            }
            Error::Changed(c) => write!(f, "{c}"),
            Error::Ledger { path, detail } => write!(
                f,
                "cannot keep the record of pulled books in {path}: {detail}"
            ),
        }
    }
}

impl std::error::Error for Error {}

fn quoted_list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}
