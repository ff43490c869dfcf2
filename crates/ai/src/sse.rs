//! An OpenAI-style answer streamed as server-sent events, read line by
//! line: each `data:` piece's text, the reason the model stopped, `[DONE]`,
//! and an error sent inside the stream.

use serde_json::Value;

use crate::error::AiError;

/// A server-sent events answer, read line by line.
#[derive(Default)]
pub(crate) struct Stream {
    pub(crate) text: String,
    finish: Option<String>,
    /// A `data:` line was read.
    pub(crate) seen: bool,
    /// `[DONE]` was read.
    pub(crate) done: bool,
}

impl Stream {
    /// Reads one line; the text it adds.
    pub(crate) fn line(&mut self, line: &str) -> Result<Option<String>, AiError> {
        let line = line.trim_end_matches(['\r', '\n']);
        let Some(data) = line.strip_prefix("data:") else {
            return Ok(None);
        };
        self.seen = true;
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(None);
        }
        let v: Value = serde_json::from_str(data).map_err(|e| AiError::Malformed {
            detail: format!("a piece of the stream is not JSON ({e})"),
        })?;
        if let Some(e) = error_text(&v) {
            return Err(AiError::ModelError { detail: e });
        }
        let choice = v.pointer("/choices/0");
        if let Some(reason) = choice
            .and_then(|c| c.get("finish_reason"))
            .and_then(Value::as_str)
        {
            self.finish = Some(reason.to_string());
        }
        let piece = choice
            .and_then(|c| c.pointer("/delta/content"))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        Ok(piece.map(|p| {
            self.text.push_str(p);
            p.to_string()
        }))
    }

    pub(crate) fn finish(self) -> Result<String, AiError> {
        match self.finish.as_deref() {
            Some("length") => Err(AiError::Truncated {
                detail: "the model reached its answer limit".into(),
            }),
            _ => Ok(self.text),
        }
    }

    /// The connection closed: complete only if the model said it finished.
    pub(crate) fn finish_at_end(self) -> Result<String, AiError> {
        if self.finish.is_none() && !self.done {
            return Err(AiError::Truncated {
                detail: "the stream ended before the model finished".into(),
            });
        }
        self.finish()
    }
}

/// The message of an `{"error": …}` or `{"detail": …}` body.
pub(crate) fn error_text(v: &Value) -> Option<String> {
    let e = v.get("error").or_else(|| v.get("detail"))?;
    Some(match e {
        Value::String(s) => short(s),
        Value::Object(o) => short(
            o.get("message")
                .and_then(Value::as_str)
                .map(String::from)
                .unwrap_or_else(|| e.to_string())
                .as_str(),
        ),
        other => short(&other.to_string()),
    })
}

pub(crate) fn short(s: &str) -> String {
    let s = s.trim();
    match s.char_indices().nth(400) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_is_read_piece_by_piece_and_length_is_truncation() {
        let mut s = Stream::default();
        assert_eq!(s.line(": ping\n").unwrap(), None);
        let a = s
            .line(r#"data: {"choices":[{"delta":{"content":"{\"a\""}}]}"#)
            .unwrap();
        assert_eq!(a.as_deref(), Some("{\"a\""));
        s.line(r#"data: {"choices":[{"delta":{"content":":1}"},"finish_reason":"stop"}]}"#)
            .unwrap();
        s.line("data: [DONE]").unwrap();
        assert!(s.done);
        assert_eq!(s.finish().unwrap(), "{\"a\":1}");

        let mut s = Stream::default();
        s.line(r#"data: {"choices":[{"delta":{"content":"x"},"finish_reason":"length"}]}"#)
            .unwrap();
        assert!(matches!(s.finish_at_end(), Err(AiError::Truncated { .. })));

        let mut s = Stream::default();
        s.line(r#"data: {"choices":[{"delta":{"content":"x"}}]}"#)
            .unwrap();
        assert!(matches!(s.finish_at_end(), Err(AiError::Truncated { .. })));

        let mut s = Stream::default();
        assert!(matches!(
            s.line(r#"data: {"error":{"message":"model overloaded"}}"#),
            Err(AiError::ModelError { .. })
        ));
        assert!(matches!(
            s.line("data: {nope"),
            Err(AiError::Malformed { .. })
        ));
    }
}
