//! One chat-completions request, streamed: the answer's text arrives piece
//! by piece (shown as progress), can be cancelled at any moment, and is
//! given up when it stalls, runs past its time or its size cap.
//!
//! Structured output is asked for in the first form the endpoint takes:
//! OpenAI's `json_schema`, then llama.cpp's `json_object` with a `schema`,
//! then plain text that the action parses; each refused try is kept in
//! the transcript ([`Exchange`]), which never holds the API key.

use std::io::{BufRead, BufReader, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::endpoint::{Endpoint, Limits};
use crate::error::AiError;
use crate::sse::{error_text, short};

/// How the answer's shape is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Each of the forms below in turn, as far as the endpoint refuses them.
    Auto,
    /// OpenAI's `response_format: {type: "json_schema", json_schema: …}`.
    JsonSchema,
    /// llama.cpp's `response_format: {type: "json_object", schema: …}`.
    JsonObject,
    /// No `response_format`: the prompt asks for JSON and the answer is
    /// read leniently.
    Text,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        Some(match s {
            "auto" => Format::Auto,
            "json_schema" => Format::JsonSchema,
            "json_object" => Format::JsonObject,
            "text" => Format::Text,
            _ => return None,
        })
    }
    pub fn id(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::JsonSchema => "json_schema",
            Format::JsonObject => "json_object",
            Format::Text => "text",
        }
    }
}

/// One message of the prompt.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PromptMessage {
    pub role: &'static str,
    pub content: String,
}

/// What to ask.
#[derive(Debug, Clone)]
pub struct Call {
    pub messages: Vec<PromptMessage>,
    /// The JSON schema of the answer and its name.
    pub schema: Option<(&'static str, Value)>,
    /// The answer's length, at most, in the model's tokens.
    pub max_tokens: u32,
    pub temperature: f32,
    /// The sampling seed, where the endpoint takes one (repeatable answers).
    pub seed: Option<u64>,
}

/// One request as sent and what came back, for the author to read: the
/// body sent (no key: it only goes in a header), the status, the raw
/// answer (capped) and how it ended.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Exchange {
    pub url: String,
    pub format: &'static str,
    pub request: Value,
    pub status: Option<u16>,
    /// The raw answer, as it came (server-sent events, or one JSON body).
    pub answer: String,
    /// The model's text put together from it.
    pub text: String,
    pub error: Option<String>,
}

/// The model's text and why it stopped.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub text: String,
    /// The format the endpoint took.
    pub format: Format,
}

/// What a call gives: the answer or the fault, and every exchange made.
#[derive(Debug)]
pub struct Completion {
    pub result: Result<Answer, AiError>,
    pub exchanges: Vec<Exchange>,
}

/// Characters of the raw answer kept in an exchange.
const TRANSCRIPT_CAP: usize = 256 * 1024;

/// Sends `call` to `endpoint`; `progress` gets each piece of text as it
/// arrives; `cancel` stops the wait at once (the connection is dropped by
/// the reading thread at its next byte, or at the time limit).
pub fn complete(
    endpoint: &Endpoint,
    call: &Call,
    limits: Limits,
    format: Format,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(&str),
) -> Completion {
    let ladder: &[Format] = match (format, call.schema.is_some()) {
        (_, false) | (Format::Text, _) => &[Format::Text],
        (Format::Auto, true) => &[Format::JsonSchema, Format::JsonObject, Format::Text],
        (Format::JsonSchema, true) => &[Format::JsonSchema],
        (Format::JsonObject, true) => &[Format::JsonObject],
    };
    let mut exchanges = Vec::new();
    for (i, f) in ladder.iter().enumerate() {
        let body = request_body(endpoint, call, *f);
        let (result, exchange) = one(endpoint, body, *f, limits, cancel, progress);
        exchanges.push(exchange);
        match result {
            Err(AiError::Refused { status, ref detail })
                if i + 1 < ladder.len() && format_refused(status, detail) =>
            {
                continue
            }
            result => return Completion { result, exchanges },
        }
    }
    unreachable!("the ladder's last step returns")
}

/// A refusal that names the answer's format: the next form is tried.
/// llama-cpp-python answers an unknown `response_format` type with a 500
/// naming the field, so a 500 counts when it names `response_format`.
fn format_refused(status: u16, detail: &str) -> bool {
    let d = detail.to_ascii_lowercase();
    match status {
        400 | 422 | 501 => [
            "response_format",
            "json_schema",
            "schema",
            "format",
            "grammar",
        ]
        .iter()
        .any(|w| d.contains(w)),
        500 => d.contains("response_format"),
        _ => false,
    }
}

fn request_body(endpoint: &Endpoint, call: &Call, format: Format) -> Value {
    let mut body = json!({
        "model": endpoint.model,
        "messages": call.messages,
        "stream": true,
        "max_tokens": call.max_tokens,
        "temperature": call.temperature,
    });
    if let Some(seed) = call.seed {
        body["seed"] = json!(seed);
    }
    if let Some((name, schema)) = &call.schema {
        let rf = match format {
            Format::JsonSchema => Some(json!({
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": true},
            })),
            Format::JsonObject => Some(json!({"type": "json_object", "schema": schema})),
            Format::Text | Format::Auto => None,
        };
        if let Some(rf) = rf {
            body["response_format"] = rf;
        }
    }
    body
}

/// What the reading thread hands over.
enum Piece {
    Head { status: u16, event_stream: bool },
    Line(String),
    Failed(AiError),
    End,
}

fn one(
    endpoint: &Endpoint,
    body: Value,
    format: Format,
    limits: Limits,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(&str),
) -> (Result<Answer, AiError>, Exchange) {
    let url = endpoint.url();
    let mut exchange = Exchange {
        url: url.clone(),
        format: format.id(),
        request: body.clone(),
        status: None,
        answer: String::new(),
        text: String::new(),
        error: None,
    };
    let (tx, rx) = mpsc::channel::<Piece>();
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        let endpoint = endpoint.clone();
        let text = body.to_string();
        std::thread::Builder::new()
            .name("model request".into())
            .spawn(move || read(&endpoint, &text, limits, &stop, &tx))
            .expect("a thread for the model request");
    }
    let result = receive(endpoint, &rx, limits, cancel, progress, &mut exchange);
    // The reading thread drops its connection at its next byte.
    stop.store(true, Ordering::Relaxed);
    let result = result.map(|text| Answer { text, format });
    if let Err(e) = &result {
        exchange.error = Some(e.to_string());
    }
    (result, exchange)
}

/// The reading thread: sends the request, then hands over the status and
/// each line of the answer.
fn read(
    endpoint: &Endpoint,
    body: &str,
    limits: Limits,
    stop: &AtomicBool,
    tx: &mpsc::Sender<Piece>,
) {
    let config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .max_redirects_will_error(false)
        .proxy(None)
        .timeout_connect(Some(limits.connect))
        .timeout_global(Some(limits.total))
        .user_agent(concat!("lorebook-studio/", env!("CARGO_PKG_VERSION")))
        .build();
    let agent: ureq::Agent = config.into();
    let mut request = agent
        .post(endpoint.url())
        .header("Content-Type", "application/json")
        .header("Accept", "text/event-stream, application/json");
    if let Some(key) = &endpoint.key {
        request = request.header("Authorization", key.header());
    }
    let response = match request.send(body) {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.send(Piece::Failed(transport(endpoint, &e, limits)));
            return;
        }
    };
    let status = response.status().as_u16();
    let event_stream = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().contains("event-stream"));
    if tx
        .send(Piece::Head {
            status,
            event_stream,
        })
        .is_err()
    {
        return;
    }
    let reader = response
        .into_body()
        .into_with_config()
        .limit(limits.max_answer.saturating_add(1))
        .reader();
    let mut lines = BufReader::new(reader.take(limits.max_answer.saturating_add(1)));
    let mut line = Vec::new();
    loop {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        line.clear();
        match lines.read_until(b'\n', &mut line) {
            Ok(0) => {
                let _ = tx.send(Piece::End);
                return;
            }
            Ok(_) => {
                let text = String::from_utf8_lossy(&line).into_owned();
                if tx.send(Piece::Line(text)).is_err() {
                    return;
                }
            }
            Err(e) => {
                let text = e.to_string().to_ascii_lowercase();
                let fault = if text.contains("limit") {
                    AiError::TooLarge {
                        limit: limits.max_answer,
                    }
                } else if e.kind() == std::io::ErrorKind::TimedOut || text.contains("timeout") {
                    AiError::TimedOut {
                        address: endpoint.address.clone(),
                        seconds: limits.total.as_secs().max(1),
                    }
                } else {
                    AiError::Truncated {
                        detail: format!("the connection broke off: {e}"),
                    }
                };
                let _ = tx.send(Piece::Failed(fault));
                return;
            }
        }
    }
}

fn transport(endpoint: &Endpoint, e: &ureq::Error, limits: Limits) -> AiError {
    let address = endpoint.address.clone();
    match e {
        ureq::Error::Timeout(_) => AiError::TimedOut {
            address,
            seconds: limits.total.as_secs().max(1),
        },
        ureq::Error::HostNotFound => AiError::Unreachable {
            address,
            detail: "no such host".into(),
        },
        ureq::Error::Io(io) => AiError::Unreachable {
            address,
            detail: io.to_string(),
        },
        ureq::Error::ConnectionFailed => AiError::Unreachable {
            address,
            detail: "the connection failed".into(),
        },
        other => AiError::Unreachable {
            address,
            detail: other.to_string(),
        },
    }
}

/// Waits for the reading thread's pieces, answering cancel, stalls, the
/// time limit and the size cap, and puts the model's text together.
fn receive(
    endpoint: &Endpoint,
    rx: &mpsc::Receiver<Piece>,
    limits: Limits,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(&str),
    exchange: &mut Exchange,
) -> Result<String, AiError> {
    let started = Instant::now();
    let mut last = Instant::now();
    let mut status = 0u16;
    let mut sse = false;
    let mut raw = String::new();
    let mut received: u64 = 0;
    let mut stream = crate::sse::Stream::default();
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Err(AiError::Cancelled);
        }
        if started.elapsed() > limits.total {
            return Err(AiError::TimedOut {
                address: endpoint.address.clone(),
                seconds: limits.total.as_secs().max(1),
            });
        }
        if last.elapsed() > limits.idle {
            return Err(AiError::Stalled {
                address: endpoint.address.clone(),
                seconds: limits.idle.as_secs().max(1),
            });
        }
        let piece = match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(p) => p,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => Piece::Failed(AiError::Truncated {
                detail: "the request stopped unexpectedly".into(),
            }),
        };
        last = Instant::now();
        match piece {
            Piece::Head {
                status: s,
                event_stream,
            } => {
                status = s;
                sse = event_stream;
                exchange.status = Some(s);
            }
            Piece::Line(line) => {
                received += line.len() as u64;
                if received > limits.max_answer {
                    return Err(AiError::TooLarge {
                        limit: limits.max_answer,
                    });
                }
                if raw.len() < TRANSCRIPT_CAP {
                    let room = TRANSCRIPT_CAP - raw.len();
                    let mut cut = line.len().min(room);
                    while !line.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    raw.push_str(&line[..cut]);
                    exchange.answer.clone_from(&raw);
                }
                let streaming =
                    (200..300).contains(&status) && (sse || line.trim_start().starts_with("data:"));
                if streaming {
                    if let Some(piece) = stream.line(&line)? {
                        exchange.text.push_str(&piece);
                        progress(&piece);
                    }
                    if stream.done {
                        return stream.finish();
                    }
                }
            }
            Piece::Failed(e) => return Err(e),
            Piece::End => {
                if !(200..300).contains(&status) {
                    return Err(refusal(status, &raw));
                }
                if stream.seen {
                    return stream.finish_at_end();
                }
                // An endpoint that answered in one piece, not streamed.
                let text = whole_answer(&raw)?;
                exchange.text.clone_from(&text);
                progress(&text);
                return Ok(text);
            }
        }
    }
}

/// A refusal's message, from an OpenAI-style error body where there is one.
fn refusal(status: u16, body: &str) -> AiError {
    let detail = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| error_text(&v))
        .unwrap_or_else(|| short(body));
    if status == 401 || status == 403 {
        AiError::WrongKey { status, detail }
    } else {
        AiError::Refused { status, detail }
    }
}

/// `choices[0].message.content` of a whole (not streamed) answer.
fn whole_answer(raw: &str) -> Result<String, AiError> {
    let v: Value = serde_json::from_str(raw).map_err(|e| AiError::Malformed {
        detail: format!("the endpoint's answer is not JSON ({e})"),
    })?;
    if let Some(e) = error_text(&v) {
        return Err(AiError::ModelError { detail: e });
    }
    let choice = v.pointer("/choices/0").ok_or_else(|| AiError::Malformed {
        detail: "the endpoint's answer has no choices".into(),
    })?;
    let text = choice
        .pointer("/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| AiError::Malformed {
            detail: "the endpoint's answer has no message content".into(),
        })?;
    if choice.get("finish_reason").and_then(Value::as_str) == Some("length") {
        return Err(AiError::Truncated {
            detail: "the model reached its answer limit".into(),
        });
    }
    Ok(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_key_or_the_status() {
        assert!(matches!(
            refusal(401, r#"{"error":{"message":"Incorrect API key"}}"#),
            AiError::WrongKey { status: 401, .. }
        ));
        let e = refusal(500, "boom");
        assert_eq!(
            e.to_string(),
            "the model server refused the request (HTTP 500): boom"
        );
        assert!(format_refused(
            422,
            r#"{"detail":[{"loc":["body","response_format"]}]}"#
        ));
        assert!(format_refused(500, "('body', 'response_format', 'type')"));
        assert!(!format_refused(500, "out of memory"));
        assert!(!format_refused(401, "response_format"));
    }
}
