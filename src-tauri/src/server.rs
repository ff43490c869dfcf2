//! The app's connection to a running SillyTavern (`lorebook_connect`): one
//! at a time, held here, outside the workspace, so that the network never
//! holds the workspace's lock. The webview never talks to the server: it
//! asks these commands, and Rust does.
//!
//! The password is handed over once, to connect, and kept only inside the
//! connection (in memory, never printed: `lorebook_connect::Secret`); it is
//! never written into a book, the preferences, a log, a report or a
//! recovery copy. Disconnecting, or closing the app, forgets it.

use std::sync::{Arc, Mutex};

use lorebook_connect::{Address, AuthMode, Changed, Error, Ledger, Login, Secret, Server};

use crate::error::{AppError, ErrorCode, ErrorKind};
use crate::secrets::{self, SecretStore, SystemStore};
use crate::views::{
    LastServer, ServerBookRef, ServerChange, ServerCharacterView, ServerLogin, ServerProblem,
    ServerView,
};

/// The connection in force, if any, and where remembered passwords go.
pub struct Link {
    current: Mutex<Option<Arc<Server>>>,
    store: Box<dyn SecretStore>,
    /// The record of the books pulled and pushed on this machine (shared
    /// with the CLI's `lorebook sillytavern`).
    ledger_path: std::path::PathBuf,
}

impl Default for Link {
    fn default() -> Self {
        Link::with(Box::new(SystemStore), Ledger::default_path())
    }
}

/// The file of the last server connected to, in the app's data folder.
pub const LAST_FILE: &str = "sillytavern-server.json";

impl Link {
    pub fn with(store: Box<dyn SecretStore>, ledger_path: std::path::PathBuf) -> Link {
        Link {
            current: Mutex::new(None),
            store,
            ledger_path,
        }
    }

    /// The record of the books pulled and pushed on this machine.
    pub fn ledger(&self) -> Result<Ledger, AppError> {
        Ledger::open(&self.ledger_path).map_err(error)
    }

    /// Connects to `address` (replacing any connection), logging in as
    /// `user` where the server asks for a login. Without `password`, the
    /// one remembered for this server and user is used. With `remember`,
    /// the password goes to the system's secret store once the server took
    /// it (a store that does not run is said in the answer, and the
    /// connection stands).
    pub fn connect(
        &self,
        address: &str,
        user: Option<String>,
        password: Option<String>,
        remember: bool,
        saved_before: bool,
    ) -> Result<ServerView, AppError> {
        let address = Address::parse(address).map_err(error)?;
        let user = user.map(|u| u.trim().to_string()).filter(|u| !u.is_empty());
        let key = user.as_deref().map(|u| secrets::key(address.as_str(), u));
        // The secret store is read only when no password was typed, and
        // written only when asked: an author who never ticks Remember is
        // never asked to unlock a keyring.
        let typed = password.is_some();
        let password = match (password, &key) {
            (Some(p), _) => p,
            (None, Some(k)) => self.store.get(k).ok().flatten().unwrap_or_default(),
            (None, None) => String::new(),
        };
        let login = user.map(|user| Login {
            user,
            password: Secret::new(password.clone()),
        });
        let server = Server::connect(&address, login).map_err(error)?;
        let mut not_remembered = None;
        let mut password_saved = false;
        if let Some(k) = &key {
            if remember {
                match self.store.set(k, &password) {
                    Ok(()) => password_saved = true,
                    Err(e) => not_remembered = Some(e),
                }
            } else {
                password_saved = saved_before || !typed;
            }
        }
        let mut view = view_of(&server);
        view.password_saved = password_saved;
        view.not_remembered = not_remembered;
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(server));
        Ok(view)
    }

    /// Removes the password remembered for this server and user.
    pub fn forget_password(&self, address: &str, user: &str) -> Result<(), AppError> {
        let address = Address::parse(address).map_err(error)?;
        self.store
            .delete(&secrets::key(address.as_str(), user))
            .map_err(|detail| {
                AppError::coded(
                    ErrorKind::Server,
                    format!("the password could not be removed from the secret store: {detail}"),
                    ErrorCode::Server {
                        problem: ServerProblem::SecretStore,
                        address: address.to_string(),
                        detail,
                    },
                )
            })
    }

    /// The last server connected to (from `file`), with whether its
    /// password was remembered (as recorded there: the keyring is not
    /// asked).
    pub fn last(&self, file: &std::path::Path) -> Option<LastServer> {
        let bytes = crate::error::read_book_file(file).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    pub fn disconnect(&self) {
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    pub fn view(&self) -> Option<ServerView> {
        self.current
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_deref()
            .map(view_of)
    }

    /// The connection in force.
    pub fn server(&self) -> Result<Arc<Server>, AppError> {
        self.current
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or_else(|| not_connected(""))
    }

    /// The connection to the server (and user) a book was opened from.
    pub fn server_for(&self, at: &ServerBookRef) -> Result<Arc<Server>, AppError> {
        let server = self.server().map_err(|_| not_connected(&at.address))?;
        if server.address().as_str() != at.address || server.user() != at.user.as_deref() {
            return Err(not_connected(&at.address));
        }
        Ok(server)
    }
}

fn view_of(server: &Server) -> ServerView {
    ServerView {
        address: server.address().to_string(),
        user: server.user().map(str::to_string),
        login: match server.mode() {
            AuthMode::Open => ServerLogin::Open,
            AuthMode::Basic => ServerLogin::Basic,
            AuthMode::Account => ServerLogin::Account,
            AuthMode::BasicAndAccount => ServerLogin::BasicAndAccount,
        },
        password_saved: false,
        not_remembered: None,
    }
}

/// Writes the last server connected to: address, user and whether its
/// password is in the secret store (never the password).
pub fn write_last(file: &std::path::Path, view: &ServerView) {
    write_last_server(
        file,
        &LastServer {
            address: view.address.clone(),
            user: view.user.clone(),
            password_saved: view.password_saved,
        },
    );
}

/// Writes `last` to `file` (best effort: it only fills the dialog).
pub fn write_last_server(file: &std::path::Path, last: &LastServer) {
    if let Some(dir) = file.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let bytes = serde_json::to_vec_pretty(last).expect("JSON");
    let _ = lorebook_engine::formats::write_atomic(file, &bytes);
}

/// Where a book of `server` lives, as its tab remembers it.
pub fn book_ref(server: &Server, file_id: &str) -> ServerBookRef {
    ServerBookRef {
        address: server.address().to_string(),
        user: server.user().map(str::to_string),
        file_id: file_id.to_string(),
    }
}

fn not_connected(address: &str) -> AppError {
    AppError::coded(
        ErrorKind::Server,
        if address.is_empty() {
            "not connected to a SillyTavern server".to_string()
        } else {
            format!("not connected to {address}: connect to it to save this book there, or save it as a file")
        },
        ErrorCode::NotConnected {
            address: address.to_string(),
        },
    )
}

/// A client error as the app reports it: the client's English for logs,
/// a code the UI words in its language.
pub fn error(e: Error) -> AppError {
    let message = e.to_string();
    if let Error::Changed(c) = &e {
        let (book, how) = match c {
            Changed::Edited { name } => (name, ServerChange::Edited),
            Changed::Deleted { name } => (name, ServerChange::Deleted),
            Changed::NeverPulled { name } => (name, ServerChange::NeverPulled),
        };
        return AppError::coded(
            ErrorKind::ChangedOnServer,
            message,
            ErrorCode::ChangedOnServer {
                book: book.clone(),
                how,
            },
        );
    }
    let (problem, address) = match &e {
        Error::BadAddress { address, .. } => (ServerProblem::BadAddress, address.clone()),
        Error::Unreachable { address, .. } => (ServerProblem::Unreachable, address.clone()),
        Error::TimedOut { address, .. } => (ServerProblem::TimedOut, address.clone()),
        Error::NotSillyTavern { address, .. } => (ServerProblem::NotSillytavern, address.clone()),
        Error::Redirected { address, .. } => (ServerProblem::Redirected, address.clone()),
        Error::NeedsLogin { address, .. } => (ServerProblem::NeedsLogin, address.clone()),
        Error::WrongPassword { address, .. } => (ServerProblem::WrongPassword, address.clone()),
        Error::TooManyAttempts { address } => (ServerProblem::TooManyAttempts, address.clone()),
        Error::Forbidden { address, .. } => (ServerProblem::Forbidden, address.clone()),
        Error::Refused { .. } => (ServerProblem::Refused, String::new()),
        Error::TooLarge { .. } => (ServerProblem::TooLarge, String::new()),
        Error::Malformed { .. } => (ServerProblem::Malformed, String::new()),
        Error::NoSuchBook { .. } => (ServerProblem::NoSuchBook, String::new()),
        Error::NoSuchChat { .. } => (ServerProblem::NoSuchChat, String::new()),
        Error::BadName { .. } => (ServerProblem::BadName, String::new()),
        Error::Ledger { .. } => (ServerProblem::Record, String::new()),
        Error::Changed(_) => unreachable!("handled above"),
    };
    AppError::coded(
        ErrorKind::Server,
        message.clone(),
        ErrorCode::Server {
            problem,
            address,
            detail: message,
        },
    )
}

/// The server's characters, with their linked books and chat files.
pub fn characters(server: &Server) -> Result<Vec<ServerCharacterView>, AppError> {
    let all = server.characters().map_err(error)?;
    let mut out = Vec::with_capacity(all.len());
    for c in all {
        let chats = server
            .chats(&c)
            .map_err(error)?
            .into_iter()
            .map(|c| c.file_id)
            .collect();
        out.push(ServerCharacterView {
            name: c.name,
            avatar: c.avatar,
            world: c.world,
            chats,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_keeps_the_password_out_and_codes_each_problem() {
        let e = error(Error::WrongPassword {
            address: "http://h".into(),
            user: "alice".into(),
            kind: lorebook_connect::LoginKind::Account,
        });
        assert_eq!(e.kind, ErrorKind::Server);
        assert!(matches!(
            e.code,
            ErrorCode::Server {
                problem: ServerProblem::WrongPassword,
                ..
            }
        ));
        let e = error(Error::Changed(Changed::Edited { name: "B".into() }));
        assert_eq!(e.kind, ErrorKind::ChangedOnServer);
    }

    #[test]
    fn a_book_saves_only_to_the_server_and_user_it_came_from() {
        let link = Link::default();
        let at = ServerBookRef {
            address: "http://127.0.0.1:1".into(),
            user: None,
            file_id: "B".into(),
        };
        let e = link.server_for(&at).unwrap_err();
        assert!(matches!(e.code, ErrorCode::NotConnected { .. }), "{e:?}");
    }
}
