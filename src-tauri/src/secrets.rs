//! A SillyTavern server's password in the system's secret store (the
//! Secret Service: GNOME Keyring, KWallet, KeePassXC), only when the author
//! ticks "Remember the password". Nothing else ever holds it on disk: where
//! no secret store runs, the password is not remembered, and the app says
//! so.
//!
//! The store is behind [`SecretStore`] so the app's logic (remember when
//! asked, use it to connect, forget) is tested with one in memory; the
//! system's is used by the app ([`SystemStore`], the keyring crate).

use std::collections::BTreeMap;
use std::sync::Mutex;

/// Where passwords are kept.
pub trait SecretStore: Send + Sync {
    /// The secret under `key`, `None` when there is none.
    fn get(&self, key: &str) -> Result<Option<String>, String>;
    fn set(&self, key: &str, secret: &str) -> Result<(), String>;
    /// Removes the secret under `key` (none there is not an error).
    fn delete(&self, key: &str) -> Result<(), String>;
}

/// The name the app's secrets are filed under in the system's store.
const SERVICE: &str = "Lorebook Studio";

/// The key of a server login: the server's address and the user.
pub fn key(address: &str, user: &str) -> String {
    format!("SillyTavern {user} at {address}")
}

/// The system's secret store.
pub struct SystemStore;

impl SystemStore {
    fn entry(key: &str) -> Result<keyring::Entry, String> {
        keyring::Entry::new(SERVICE, key).map_err(|e| said(&e))
    }
}

/// A store error in words an author can act on.
fn said(e: &keyring::Error) -> String {
    match e {
        keyring::Error::NoStorageAccess(_) | keyring::Error::PlatformFailure(_) => format!(
            "no secret store answers on this system (a keyring such as GNOME Keyring or KWallet must be running and unlocked): {e}"
        ),
        other => other.to_string(),
    }
}

impl SecretStore for SystemStore {
    fn get(&self, key: &str) -> Result<Option<String>, String> {
        match SystemStore::entry(key)?.get_password() {
            Ok(p) => Ok(Some(p)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(said(&e)),
        }
    }

    fn set(&self, key: &str, secret: &str) -> Result<(), String> {
        SystemStore::entry(key)?
            .set_password(secret)
            .map_err(|e| said(&e))
    }

    fn delete(&self, key: &str) -> Result<(), String> {
        match SystemStore::entry(key)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(said(&e)),
        }
    }
}

/// A store in memory, for the tests of the app's logic.
#[derive(Default)]
pub struct MemoryStore {
    secrets: Mutex<BTreeMap<String, String>>,
    /// When set, every call fails with this (a store that does not run).
    pub broken: Option<String>,
}

impl MemoryStore {
    /// A store where every call fails with `why`.
    pub fn broken(why: &str) -> MemoryStore {
        MemoryStore {
            broken: Some(why.to_string()),
            ..MemoryStore::default()
        }
    }
}

impl SecretStore for MemoryStore {
    fn get(&self, key: &str) -> Result<Option<String>, String> {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        Ok(self
            .secrets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(key)
            .cloned())
    }

    fn set(&self, key: &str, secret: &str) -> Result<(), String> {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        self.secrets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key.to_string(), secret.to_string());
        Ok(())
    }

    fn delete(&self, key: &str) -> Result<(), String> {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        self.secrets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(key);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a session bus there is no Secret Service: the system store
    /// says so (an error to show), and never panics. Skipped where a
    /// session bus runs (a desktop), so a developer's keyring is not
    /// touched.
    #[test]
    fn system_store_without_a_secret_service_says_so() {
        if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
            eprintln!(
                "skipped: a session bus runs here (the user's keyring is not touched by tests)"
            );
            return;
        }
        let e = SystemStore
            .set(&key("http://127.0.0.1:1", "nobody"), "x")
            .unwrap_err();
        assert!(e.contains("no secret store answers"), "{e}");
        assert!(SystemStore
            .get(&key("http://127.0.0.1:1", "nobody"))
            .is_err());
    }
}
