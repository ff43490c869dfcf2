//! One session with a SillyTavern server: its address, the login it asked
//! for, the session cookies and the CSRF token every request carries.
//!
//! How SillyTavern 1.19.0 guards its API (read in its `src/server-main.js`,
//! `src/middleware/basicAuth.js`, `src/users.js` and
//! `src/endpoints/users-public.js`):
//! - with `basicAuthMode` every request carries an `Authorization: Basic`
//!   header, or the answer is 401 with a `WWW-Authenticate: Basic` challenge;
//! - a cookie session holds a CSRF token, given by `GET /csrf-token` as
//!   `{"token": …}` (the word `disabled` when the server runs without CSRF
//!   protection), and every `POST` must send it back in `X-CSRF-Token`, or
//!   the answer is 403;
//! - with `enableUserAccounts` the API answers 403 until
//!   `POST /api/users/login` with `{handle, password}` succeeds (403 with
//!   `{"error": …}` for wrong credentials, 429 after too many);
//! - `POST /api/ping` answers 204 to a request that is let in.
//!
//! A request refused with 403 once a session is up is tried once more with a
//! fresh token (and login): the token or session may have expired.

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::Mutex;

use base64::Engine as _;
use serde_json::Value;

use crate::address::{Address, AuthMode, Login, Timeouts};
use crate::error::{Error, LoginKind};

/// The most a book or chat answer may hold (decompressed): as a book file.
pub const MAX_ANSWER_BYTES: u64 = 256 * 1024 * 1024;

/// The most a small answer (token, login, listing of names) may hold.
const MAX_SMALL_ANSWER_BYTES: u64 = 16 * 1024 * 1024;

/// An answer: its status, its body, whether it was a basic-auth challenge.
struct Answer {
    status: u16,
    body: Vec<u8>,
    basic_challenge: bool,
}

struct State {
    cookies: BTreeMap<String, String>,
    token: Option<String>,
}

/// A live session with one SillyTavern server. Cheap to share between
/// threads (`&Server`); requests are made one at a time per call.
pub struct Server {
    address: Address,
    login: Option<Login>,
    mode: AuthMode,
    agent: ureq::Agent,
    timeouts: Timeouts,
    state: Mutex<State>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("address", &self.address)
            .field("user", &self.login.as_ref().map(|l| &l.user))
            .field("mode", &self.mode)
            .finish()
    }
}

impl Server {
    /// Connects: finds out what the server asks for, logs in with `login`
    /// where it asks, and checks the API lets us in.
    pub fn connect(address: &Address, login: Option<Login>) -> Result<Server, Error> {
        Server::connect_with(address, login, Timeouts::default())
    }

    pub fn connect_with(
        address: &Address,
        login: Option<Login>,
        timeouts: Timeouts,
    ) -> Result<Server, Error> {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .max_redirects_will_error(false)
            // Never through a proxy named in the environment: the login
            // would cross it, in the clear for http://.
            .proxy(None)
            .timeout_connect(Some(timeouts.connect))
            .timeout_global(Some(timeouts.request))
            .user_agent(concat!("lorebook-studio/", env!("CARGO_PKG_VERSION")))
            .build();
        let mut server = Server {
            address: address.clone(),
            login,
            mode: AuthMode::Open,
            agent: config.into(),
            timeouts,
            state: Mutex::new(State {
                cookies: BTreeMap::new(),
                token: None,
            }),
        };
        server.open()?;
        Ok(server)
    }

    pub fn address(&self) -> &Address {
        &self.address
    }

    pub fn mode(&self) -> AuthMode {
        self.mode
    }

    /// The user logged in as, if any.
    pub fn user(&self) -> Option<&str> {
        match self.mode {
            AuthMode::Open => None,
            _ => self.login.as_ref().map(|l| l.user.as_str()),
        }
    }

    fn basic(&self) -> bool {
        matches!(self.mode, AuthMode::Basic | AuthMode::BasicAndAccount)
    }

    fn account(&self) -> bool {
        matches!(self.mode, AuthMode::Account | AuthMode::BasicAndAccount)
    }

    /// Forgets the session cookies and token, as when the session expires
    /// on the server's side; the next request must get new ones. For the
    /// tests of that path.
    #[doc(hidden)]
    pub fn expire_session(&self) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.cookies.clear();
        s.token = Some("expired-token".into());
    }

    /// Replaces the CSRF token by one the server never gave, the session
    /// kept: the server refuses the next write as it does a token that
    /// expired. For the tests of that path.
    #[doc(hidden)]
    pub fn forge_token(&self) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.token = Some("forged-token".into());
    }

    /// Token, then ping; a basic challenge or a 403 tells what to log in with.
    fn open(&mut self) -> Result<(), Error> {
        let mut answer = self.fetch_token()?;
        if answer.basic_challenge {
            if self.login.is_none() {
                return Err(Error::NeedsLogin {
                    address: self.address.to_string(),
                    kind: LoginKind::Basic,
                });
            }
            self.mode = AuthMode::Basic;
            answer = self.fetch_token()?;
            if answer.basic_challenge {
                return Err(self.wrong_password(LoginKind::Basic));
            }
        }
        self.take_token(&answer)?;
        let ping = self.send("POST", "/api/ping", Some(b"{}"), MAX_SMALL_ANSWER_BYTES)?;
        match ping.status {
            204 | 200 => Ok(()),
            403 => {
                if self.login.is_none() {
                    return Err(Error::NeedsLogin {
                        address: self.address.to_string(),
                        kind: LoginKind::Account,
                    });
                }
                self.mode = if self.basic() {
                    AuthMode::BasicAndAccount
                } else {
                    AuthMode::Account
                };
                self.log_in()?;
                let ping = self.send("POST", "/api/ping", Some(b"{}"), MAX_SMALL_ANSWER_BYTES)?;
                match ping.status {
                    204 | 200 => Ok(()),
                    s => Err(self.not_st(&format!("the ping after logging in answered HTTP {s}"))),
                }
            }
            429 => Err(Error::TooManyAttempts {
                address: self.address.to_string(),
            }),
            s => Err(self.not_st(&format!("POST /api/ping answered HTTP {s}"))),
        }
    }

    fn not_st(&self, detail: &str) -> Error {
        Error::NotSillyTavern {
            address: self.address.to_string(),
            detail: detail.to_string(),
        }
    }

    fn wrong_password(&self, kind: LoginKind) -> Error {
        Error::WrongPassword {
            address: self.address.to_string(),
            user: self
                .login
                .as_ref()
                .map(|l| l.user.clone())
                .unwrap_or_default(),
            kind,
        }
    }

    fn fetch_token(&self) -> Result<Answer, Error> {
        let answer = self.send("GET", "/csrf-token", None, MAX_SMALL_ANSWER_BYTES)?;
        if answer.basic_challenge || answer.status == 200 {
            return Ok(answer);
        }
        if answer.status == 401 && self.basic() {
            return Ok(Answer {
                basic_challenge: true,
                ..answer
            });
        }
        Err(self.not_st(&format!("GET /csrf-token answered HTTP {}", answer.status)))
    }

    fn take_token(&self, answer: &Answer) -> Result<(), Error> {
        let token = serde_json::from_slice::<Value>(&answer.body)
            .ok()
            .and_then(|v| v.get("token")?.as_str().map(str::to_string))
            .ok_or_else(|| self.not_st("GET /csrf-token gave no {\"token\": …}"))?;
        self.state.lock().unwrap_or_else(|e| e.into_inner()).token = Some(token);
        Ok(())
    }

    fn log_in(&self) -> Result<(), Error> {
        let Some(login) = &self.login else {
            return Err(Error::NeedsLogin {
                address: self.address.to_string(),
                kind: LoginKind::Account,
            });
        };
        let body = serde_json::json!({"handle": login.user, "password": login.password.expose()});
        let body = serde_json::to_vec(&body).expect("a JSON object serialises");
        let answer = self.send(
            "POST",
            "/api/users/login",
            Some(&body),
            MAX_SMALL_ANSWER_BYTES,
        )?;
        match answer.status {
            200 => Ok(()),
            429 => Err(Error::TooManyAttempts {
                address: self.address.to_string(),
            }),
            400 | 401 | 403 | 404 => {
                let message = error_message(&answer.body);
                if message.contains("disabled") {
                    Err(Error::Refused {
                        what: "the login".into(),
                        status: answer.status,
                        message,
                    })
                } else {
                    Err(self.wrong_password(LoginKind::Account))
                }
            }
            s => Err(Error::Refused {
                what: "the login".into(),
                status: s,
                message: error_message(&answer.body),
            }),
        }
    }

    /// `POST path` with a JSON body, the answer's body when it is 2xx. A 403
    /// is tried once more with a fresh token (and login).
    pub(crate) fn post(
        &self,
        path: &str,
        body: &Value,
        what: &str,
        cap: u64,
    ) -> Result<Vec<u8>, Error> {
        let bytes = serde_json::to_vec(body).expect("a JSON value serialises");
        let mut answer = self.send("POST", path, Some(&bytes), cap)?;
        if answer.status == 403 || answer.basic_challenge {
            self.refresh()?;
            answer = self.send("POST", path, Some(&bytes), cap)?;
            if answer.status == 403 || answer.basic_challenge {
                return Err(Error::Forbidden {
                    address: self.address.to_string(),
                    what: what.to_string(),
                });
            }
        }
        match answer.status {
            200..=299 => Ok(answer.body),
            s => Err(Error::Refused {
                what: what.to_string(),
                status: s,
                message: error_message(&answer.body),
            }),
        }
    }

    /// A fresh token, and a fresh login where the server has accounts.
    fn refresh(&self) -> Result<(), Error> {
        let answer = self.fetch_token()?;
        if answer.basic_challenge {
            return Err(self.wrong_password(LoginKind::Basic));
        }
        self.take_token(&answer)?;
        if self.account() {
            self.log_in()?;
        }
        Ok(())
    }

    fn send(
        &self,
        method: &str,
        path: &str,
        body: Option<&[u8]>,
        cap: u64,
    ) -> Result<Answer, Error> {
        let url = self.address.url(path);
        let (cookie, token) = {
            let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
            let cookie = s
                .cookies
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("; ");
            (cookie, s.token.clone())
        };
        let mut headers: Vec<(&str, String)> = Vec::new();
        if !cookie.is_empty() {
            headers.push(("Cookie", cookie));
        }
        if let Some(t) = token {
            headers.push(("X-CSRF-Token", t));
        }
        if self.basic() {
            if let Some(l) = &self.login {
                let raw = format!("{}:{}", l.user, l.password.expose());
                let encoded = base64::engine::general_purpose::STANDARD.encode(raw);
                headers.push(("Authorization", format!("Basic {encoded}")));
            }
        }
        let result = match (method, body) {
            ("GET", _) => {
                let mut req = self.agent.get(&url);
                for (k, v) in &headers {
                    req = req.header(*k, v.as_str());
                }
                req.call()
            }
            (_, body) => {
                let mut req = self.agent.post(&url);
                for (k, v) in &headers {
                    req = req.header(*k, v.as_str());
                }
                req.content_type("application/json")
                    .send(body.unwrap_or(b"{}"))
            }
        };
        let mut response = result.map_err(|e| self.transport(e))?;
        let status = response.status().as_u16();
        let basic_challenge = status == 401
            && response
                .headers()
                .get_all("www-authenticate")
                .iter()
                .any(|v| {
                    v.to_str()
                        .is_ok_and(|s| s.trim_start().to_ascii_lowercase().starts_with("basic"))
                });
        let location = response
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        {
            let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
            for v in response.headers().get_all("set-cookie") {
                if let Some((k, v)) = v.to_str().ok().and_then(parse_set_cookie) {
                    s.cookies.insert(k, v);
                }
            }
        }
        if (300..400).contains(&status) {
            return Err(Error::Redirected {
                address: self.address.to_string(),
                to: location.unwrap_or_else(|| "somewhere unnamed".into()),
            });
        }
        let mut body = Vec::new();
        let read = response
            .body_mut()
            .with_config()
            .limit(cap.saturating_add(1))
            .reader()
            .take(cap.saturating_add(1))
            .read_to_end(&mut body);
        if let Err(e) = read {
            return Err(self.read_failure(e, path, cap));
        }
        if body.len() as u64 > cap {
            return Err(Error::TooLarge {
                what: format!("{method} {path}"),
                limit: cap,
            });
        }
        Ok(Answer {
            status,
            body,
            basic_challenge,
        })
    }

    fn transport(&self, e: ureq::Error) -> Error {
        let address = self.address.to_string();
        match e {
            ureq::Error::Timeout(_) => Error::TimedOut {
                address,
                seconds: self.timeouts.request.as_secs().max(1),
            },
            ureq::Error::HostNotFound => Error::Unreachable {
                address,
                detail: "no such host".into(),
            },
            ureq::Error::Io(io) => Error::Unreachable {
                address,
                detail: io.to_string(),
            },
            ureq::Error::ConnectionFailed => Error::Unreachable {
                address,
                detail: "the connection failed".into(),
            },
            other => Error::Unreachable {
                address,
                detail: other.to_string(),
            },
        }
    }

    fn read_failure(&self, e: std::io::Error, path: &str, cap: u64) -> Error {
        let text = e.to_string();
        if text.to_ascii_lowercase().contains("limit") {
            return Error::TooLarge {
                what: path.to_string(),
                limit: cap,
            };
        }
        if e.kind() == std::io::ErrorKind::TimedOut || text.to_ascii_lowercase().contains("timeout")
        {
            return Error::TimedOut {
                address: self.address.to_string(),
                seconds: self.timeouts.request.as_secs().max(1),
            };
        }
        Error::Unreachable {
            address: self.address.to_string(),
            detail: format!("the answer to {path} broke off: {text}"),
        }
    }
}

/// `name=value` of a `Set-Cookie` header (attributes aside).
fn parse_set_cookie(header: &str) -> Option<(String, String)> {
    let pair = header.split(';').next()?.trim();
    let (k, v) = pair.split_once('=')?;
    let k = k.trim();
    if k.is_empty() || k.contains([' ', ',', ';']) {
        return None;
    }
    Some((k.to_string(), v.trim().to_string()))
}

/// What a refusal says: `{"error": …}`, or a short plain text.
fn error_message(body: &[u8]) -> String {
    if let Ok(v) = serde_json::from_slice::<Value>(body) {
        if let Some(e) = v.get("error").and_then(Value::as_str) {
            return e.to_string();
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.starts_with('<') || text.is_empty() {
        return String::new();
    }
    let mut short: String = text.chars().take(200).collect();
    if text.chars().count() > 200 {
        short.push('…');
    }
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_set_cookie_takes_the_pair_only() {
        assert_eq!(
            parse_set_cookie("session-1=abc=; path=/; httponly"),
            Some(("session-1".into(), "abc=".into()))
        );
        assert_eq!(parse_set_cookie("; path=/"), None);
    }

    #[test]
    fn error_message_reads_json_or_short_text() {
        assert_eq!(
            error_message(br#"{"error":"Incorrect credentials"}"#),
            "Incorrect credentials"
        );
        assert_eq!(error_message(b"<html>nope</html>"), "");
        assert_eq!(
            error_message(b"Is not a valid world info file"),
            "Is not a valid world info file"
        );
    }
}
