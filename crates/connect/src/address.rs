//! What a connection is made of before it is made: the server's address,
//! the login (its password a [`Secret`] that never prints) and how long to
//! wait.

use std::time::Duration;

use crate::error::Error;

/// A password, never printed: `Debug` shows stars.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// A user and password, for basic auth or a user account (the server says
/// which it wants; with per-user basic auth, both).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Login {
    pub user: String,
    pub password: Secret,
}

/// How long to wait.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    pub connect: Duration,
    /// One whole request, answer included.
    pub request: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(10),
            request: Duration::from_secs(120),
        }
    }
}

/// What the server turned out to ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthMode {
    /// Nothing: the API is open (to this machine).
    Open,
    Basic,
    Account,
    BasicAndAccount,
}

/// A server address, normalised: scheme, host and port, an optional base
/// path, no trailing slash, never a user or password.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address(String);

impl Address {
    /// Reads what an author types: `host:port` is taken as `http://host:port`.
    pub fn parse(text: &str) -> Result<Address, Error> {
        // An error names the address without a password typed into it.
        let shown = without_userinfo(text);
        let bad = |detail: &str| Error::BadAddress {
            address: shown.clone(),
            detail: detail.to_string(),
        };
        let t = text.trim();
        if t.is_empty() {
            return Err(bad("it is empty"));
        }
        if t.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(bad("it holds spaces or control characters"));
        }
        let (scheme, rest) = match t.split_once("://") {
            Some((s, r)) => (s.to_ascii_lowercase(), r),
            None => ("http".to_string(), t),
        };
        if scheme != "http" && scheme != "https" {
            return Err(bad("only http:// and https:// addresses are served"));
        }
        let (authority, path) = match rest.find(['/', '?', '#']) {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        if authority.contains('@') {
            return Err(bad(
                "it holds a user or password; give the user with --user and the password in LOREBOOK_ST_PASSWORD",
            ));
        }
        if authority.is_empty() {
            return Err(bad("it has no host"));
        }
        if path.contains(['?', '#']) {
            return Err(bad("it holds a query or fragment"));
        }
        let path = path.trim_end_matches('/');
        Ok(Address(format!("{scheme}://{authority}{path}")))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.0)
    }
}

/// `text` with a `user:password@` before the host replaced by `***@`.
fn without_userinfo(text: &str) -> String {
    let (scheme, rest) = match text.split_once("://") {
        Some((s, r)) => (format!("{s}://"), r),
        None => (String::new(), text),
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..end].rfind('@') {
        Some(at) => format!("{scheme}***{}", &rest[at..]),
        None => text.to_string(),
    }
}

impl std::fmt::Display for Address {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_parse_normalises_and_refuses_credentials() {
        assert_eq!(
            Address::parse("127.0.0.1:8000").unwrap().as_str(),
            "http://127.0.0.1:8000"
        );
        assert_eq!(
            Address::parse(" HTTPS://st.example/base/ ")
                .unwrap()
                .as_str(),
            "https://st.example/base"
        );
        for bad in [
            "",
            "ftp://x",
            "http://u:p@host:8000",
            "http://",
            "http://h/x?y",
            "a b",
        ] {
            assert!(Address::parse(bad).is_err(), "{bad:?}");
        }
        let e = Address::parse("http://alice:hunter2@h")
            .unwrap_err()
            .to_string();
        assert!(e.contains("--user"), "{e}");
        assert!(!e.contains("hunter2") && e.contains("http://***@h"), "{e}");
    }

    #[test]
    fn secret_debug_hides_the_password() {
        let l = Login {
            user: "alice".into(),
            password: Secret::new("hunter2"),
        };
        let shown = format!("{l:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("alice"));
    }
}
