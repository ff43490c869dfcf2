//! Where the model is: an OpenAI-compatible chat-completions endpoint
//! (llama.cpp's server, KoboldCpp, Ollama, LM Studio, OpenAI, OpenRouter),
//! its model name and an optional API key that never prints.

use std::time::Duration;

use crate::error::AiError;

/// An API key: `Debug` shows stars, and nothing here writes it anywhere
/// but the request's `Authorization` header.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// `None` for an empty key.
    pub fn new(key: impl Into<String>) -> Option<ApiKey> {
        let key = key.into();
        let trimmed = key.trim();
        (!trimmed.is_empty()).then(|| ApiKey(trimmed.to_string()))
    }
    pub(crate) fn header(&self) -> String {
        format!("Bearer {}", self.0)
    }
    /// The key's text, for the one place that keeps it on purpose: the
    /// system's secret store, when the author asks.
    pub fn secret(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// An endpoint as the author gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The base address, normalised: scheme, host, port and path, no
    /// trailing slash, never a user or password.
    pub address: String,
    pub model: String,
    pub key: Option<ApiKey>,
}

impl Endpoint {
    /// Reads an address as authors write it: `http://127.0.0.1:8080`,
    /// `…/v1`, or the full `…/v1/chat/completions`; `host:port` is taken as
    /// `http://host:port`.
    pub fn new(address: &str, model: &str, key: Option<ApiKey>) -> Result<Endpoint, AiError> {
        let t = address.trim();
        let bad = |detail: &str| AiError::BadAddress {
            address: without_userinfo(t),
            detail: detail.to_string(),
        };
        if t.is_empty() {
            return Err(bad("it is empty"));
        }
        if t.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(bad("it holds a space or a control character"));
        }
        let with_scheme = if t.contains("://") {
            t.to_string()
        } else {
            format!("http://{t}")
        };
        let (scheme, rest) = with_scheme.split_once("://").expect("a scheme");
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(bad("only http:// and https:// addresses are read"));
        }
        let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let authority = &rest[..host_end];
        if authority.contains('@') {
            return Err(bad(
                "a user or password in the address is refused: give the API key on its own",
            ));
        }
        if authority.is_empty() {
            return Err(bad("it names no host"));
        }
        let path = &rest[host_end..];
        if path.contains(['?', '#']) {
            return Err(bad("a query or fragment is refused"));
        }
        let model = model.trim();
        if model.is_empty() {
            return Err(AiError::Invalid {
                detail: "no model name is given (the endpoint's model, e.g. gpt-4o-mini)".into(),
            });
        }
        Ok(Endpoint {
            address: format!("{scheme}://{authority}{}", path.trim_end_matches('/')),
            model: model.to_string(),
            key,
        })
    }

    /// The chat-completions URL.
    pub fn url(&self) -> String {
        let a = &self.address;
        if a.ends_with("/chat/completions") {
            a.clone()
        } else if a.ends_with("/v1") {
            format!("{a}/chat/completions")
        } else {
            format!("{a}/v1/chat/completions")
        }
    }
}

/// `address` with any `user:password@` removed, for errors.
fn without_userinfo(address: &str) -> String {
    let (scheme, rest) = match address.split_once("://") {
        Some((s, r)) => (format!("{s}://"), r),
        None => (String::new(), address),
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..end].rfind('@') {
        Some(at) => format!("{scheme}{}{}", &rest[at + 1..end], &rest[end..]),
        None => address.to_string(),
    }
}

/// How long to wait and how much to take.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub connect: Duration,
    /// No byte of the answer for this long is a stall.
    pub idle: Duration,
    /// One whole request, answer included.
    pub total: Duration,
    /// The answer's bytes, at most.
    pub max_answer: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            connect: Duration::from_secs(10),
            idle: Duration::from_secs(90),
            total: Duration::from_secs(600),
            max_answer: 4 << 20,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_read_as_authors_write_them() {
        let url = |a: &str| Endpoint::new(a, "m", None).map(|e| e.url());
        assert_eq!(
            url("127.0.0.1:8080").unwrap(),
            "http://127.0.0.1:8080/v1/chat/completions"
        );
        assert_eq!(
            url("https://api.openai.com/v1/").unwrap(),
            "https://api.openai.com/v1/chat/completions"
        );
        assert_eq!(
            url("https://openrouter.ai/api/v1").unwrap(),
            "https://openrouter.ai/api/v1/chat/completions"
        );
        assert_eq!(
            url("http://h:1/v1/chat/completions").unwrap(),
            "http://h:1/v1/chat/completions"
        );
        let e = url("http://me:secret@h:1/v1").unwrap_err();
        assert!(!e.to_string().contains("secret"), "{e}");
        assert!(url("ftp://h").is_err());
        assert!(url("http://h/v1?x=1").is_err());
        assert!(url("").is_err());
        assert!(Endpoint::new("h:1", " ", None).is_err());
        assert!(ApiKey::new("  ").is_none());
        let k = ApiKey::new("sk-123").unwrap();
        assert_eq!(format!("{k:?}"), "ApiKey(***)");
    }
}
