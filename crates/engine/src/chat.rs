//! Chats: the messages a preview scans, parsed from the formats authors have.
//!
//! - OpenAI-style JSON: `[{role, content}]` or `{"messages": [...]}`.
//! - SillyTavern `.jsonl`: a metadata line, then `{name, is_user, mes}` lines.
//! - Plain pasted text, where a line `Name: text` starts a message; names in
//!   [`ChatOptions::user_names`] are the user, any other name the character.
//!
//! [`parse`] picks the format from the content.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Speaker {
    System,
    User,
    Assistant,
}

impl Speaker {
    pub fn as_str(self) -> &'static str {
        match self {
            Speaker::System => "system",
            Speaker::User => "user",
            Speaker::Assistant => "assistant",
        }
    }
}

/// One chat message. Only `text` is ever scanned, never the name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Message {
    pub role: Speaker,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub text: String,
}

/// A parsed chat and what was skipped on the way.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Chat {
    pub messages: Vec<Message>,
    /// Lines or items that were skipped, with their place.
    pub warnings: Vec<ChatWarning>,
}

/// How plain text is split into messages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChatOptions {
    /// Speaker names that are the user (compared case-insensitively).
    pub user_names: Vec<String>,
}

impl Default for ChatOptions {
    fn default() -> Self {
        ChatOptions {
            user_names: vec!["User".into(), "You".into(), "{{user}}".into()],
        }
    }
}

/// A chat that could not be read; `line` is 1-based. The problem is a
/// code with parameters: English lives only in `Display` (the CLI's
/// words); the app words the code in the user's language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChatError {
    pub line: Option<usize>,
    pub problem: ChatProblem,
}

/// Why a chat could not be read. `index` counts messages from 0, as the
/// file's array does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "code")]
pub enum ChatProblem {
    /// More JSON values than any chat needs (see `formats::json`).
    TooManyValues {
        limit: usize,
    },
    /// Not JSON where JSON was expected; `detail` is the parser's own
    /// words, which have no code to translate.
    MalformedJson {
        column: usize,
        detail: String,
    },
    /// JSON, but neither an array of messages nor `{"messages": [...]}`.
    NotMessages,
    MessageNotObject {
        index: usize,
    },
    UnknownRole {
        index: usize,
        role: String,
    },
    MissingRole {
        index: usize,
    },
    ContentNotText {
        index: usize,
    },
    /// A JSON line that is not an object.
    LineNotObject,
    /// A SillyTavern line whose `mes` is not text.
    MesNotText,
}

impl std::fmt::Display for ChatProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChatProblem::TooManyValues { .. } => {
                f.write_str(&crate::formats::json::too_many_values())
            }
            ChatProblem::MalformedJson { column, detail } => {
                write!(f, "malformed JSON at column {column}: {detail}")
            }
            ChatProblem::NotMessages => {
                f.write_str("expected an array of messages or {\"messages\": [...]}")
            }
            ChatProblem::MessageNotObject { index } => {
                write!(f, "message {index} is not an object")
            }
            ChatProblem::UnknownRole { index, role } => {
                write!(f, "message {index}: unknown role \"{role}\"")
            }
            ChatProblem::MissingRole { index } => write!(f, "message {index}: missing \"role\""),
            ChatProblem::ContentNotText { index } => {
                write!(f, "message {index}: \"content\" must be text")
            }
            ChatProblem::LineNotObject => f.write_str("expected a JSON object"),
            ChatProblem::MesNotText => f.write_str("\"mes\" must be text"),
        }
    }
}

impl std::fmt::Display for ChatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "chat line {l}: {}", self.problem),
            None => write!(f, "chat: {}", self.problem),
        }
    }
}

impl std::error::Error for ChatError {}

fn err(line: Option<usize>, problem: ChatProblem) -> ChatError {
    ChatError { line, problem }
}

/// A part of a chat file that was skipped, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "code")]
pub enum ChatWarning {
    /// A tool or function message (index from 0): not chat text.
    ToolMessageSkipped { index: usize },
    /// A SillyTavern line (1-based) that is not a message.
    NotAMessage { line: usize },
}

impl std::fmt::Display for ChatWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChatWarning::ToolMessageSkipped { index } => {
                write!(f, "message {index}: tool message skipped")
            }
            ChatWarning::NotAMessage { line } => {
                write!(f, "line {line}: not a message (no \"mes\"); skipped")
            }
        }
    }
}

/// Parses a chat, choosing the format from the content.
/// The length of `text` in UTF-16 code units, as a webview counts it.
pub fn utf16_len(text: &str) -> usize {
    if text.is_ascii() {
        return text.len();
    }
    text.chars().map(char::len_utf16).sum()
}

/// The byte offset in `text` of UTF-16 code unit `unit`, as a webview
/// counts places in a text; `None` past the end or inside a character
/// (between the halves of a surrogate pair).
pub fn utf16_to_byte(text: &str, unit: usize) -> Option<usize> {
    // ASCII text (most of a chat, and the whole of many) counts a unit a
    // byte: the prefix up to the first other byte is skipped at once.
    let ascii = text
        .bytes()
        .position(|b| !b.is_ascii())
        .unwrap_or(text.len());
    if unit <= ascii {
        return Some(unit);
    }
    let mut seen = ascii;
    for (i, c) in text[ascii..].char_indices() {
        if seen == unit {
            return Some(ascii + i);
        }
        seen += c.len_utf16();
        if seen > unit {
            return None;
        }
    }
    (seen == unit).then_some(text.len())
}

pub fn parse(text: &str, options: &ChatOptions) -> Result<Chat, ChatError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let trimmed = text.trim_start();
    if trimmed.starts_with(['[', '{']) {
        use crate::formats::json::{count_json_values, MAX_JSON_VALUES};
        if count_json_values(text, MAX_JSON_VALUES) > MAX_JSON_VALUES {
            return Err(err(
                None,
                ChatProblem::TooManyValues {
                    limit: MAX_JSON_VALUES,
                },
            ));
        }
    }
    if trimmed.starts_with('[') {
        return parse_openai(text);
    }
    if trimmed.starts_with('{') {
        // One JSON document with "messages", or JSON lines.
        let first_line = trimmed.lines().next().unwrap_or("");
        let first: Result<Value, _> = serde_json::from_str(first_line);
        let multi_line = trimmed.lines().filter(|l| !l.trim().is_empty()).count() > 1;
        if first.is_ok() && multi_line {
            return parse_jsonl(text);
        }
        if let Ok(Value::Object(o)) = &first {
            if !o.contains_key("messages") && (o.contains_key("mes") || o.contains_key("user_name"))
            {
                return parse_jsonl(text);
            }
        }
        return parse_openai(text);
    }
    Ok(parse_plain(text, options))
}

/// OpenAI-style JSON.
pub fn parse_openai(text: &str) -> Result<Chat, ChatError> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        err(
            Some(e.line()),
            ChatProblem::MalformedJson {
                column: e.column(),
                detail: strip_location(&e),
            },
        )
    })?;
    let items = match value {
        Value::Array(a) => a,
        Value::Object(mut o) => match o.remove("messages") {
            Some(Value::Array(a)) => a,
            _ => return Err(err(None, ChatProblem::NotMessages)),
        },
        _ => return Err(err(None, ChatProblem::NotMessages)),
    };
    let mut chat = Chat::default();
    for (i, item) in items.into_iter().enumerate() {
        let Value::Object(o) = item else {
            return Err(err(None, ChatProblem::MessageNotObject { index: i }));
        };
        let role = match o.get("role").and_then(Value::as_str) {
            Some("user") => Speaker::User,
            Some("assistant") => Speaker::Assistant,
            Some("system") | Some("developer") => Speaker::System,
            Some("tool") | Some("function") => {
                chat.warnings
                    .push(ChatWarning::ToolMessageSkipped { index: i });
                continue;
            }
            Some(other) => {
                return Err(err(
                    None,
                    ChatProblem::UnknownRole {
                        index: i,
                        role: other.to_string(),
                    },
                ))
            }
            None => return Err(err(None, ChatProblem::MissingRole { index: i })),
        };
        let text = match o.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            Some(Value::Null) | None => String::new(),
            Some(_) => return Err(err(None, ChatProblem::ContentNotText { index: i })),
        };
        let name = o.get("name").and_then(Value::as_str).map(str::to_string);
        chat.messages.push(Message { role, name, text });
    }
    Ok(chat)
}

/// SillyTavern `.jsonl`.
pub fn parse_jsonl(text: &str) -> Result<Chat, ChatError> {
    let mut chat = Chat::default();
    let mut seen_header = false;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line).map_err(|e| {
            err(
                Some(n),
                ChatProblem::MalformedJson {
                    column: e.column(),
                    detail: strip_location(&e),
                },
            )
        })?;
        let Value::Object(o) = value else {
            return Err(err(Some(n), ChatProblem::LineNotObject));
        };
        let Some(mes) = o.get("mes") else {
            if !seen_header && chat.messages.is_empty() {
                seen_header = true;
            } else {
                chat.warnings.push(ChatWarning::NotAMessage { line: n });
            }
            continue;
        };
        let Some(mes) = mes.as_str() else {
            return Err(err(Some(n), ChatProblem::MesNotText));
        };
        let is_user = o.get("is_user").and_then(Value::as_bool).unwrap_or(false);
        let is_system = o.get("is_system").and_then(Value::as_bool).unwrap_or(false);
        let role = if is_user {
            Speaker::User
        } else if is_system {
            Speaker::System
        } else {
            Speaker::Assistant
        };
        chat.messages.push(Message {
            role,
            name: o.get("name").and_then(Value::as_str).map(str::to_string),
            text: mes.to_string(),
        });
    }
    Ok(chat)
}

/// Plain text: `Name: text` lines start messages; other lines continue the
/// current message. Text before the first name line is one user message.
pub fn parse_plain(text: &str, options: &ChatOptions) -> Chat {
    let mut chat = Chat::default();
    let mut current: Option<Message> = None;
    let mut pending = String::new();
    for line in text.lines() {
        if let Some((name, rest)) = speaker_prefix(line) {
            flush(&mut chat, current.take(), &mut pending);
            let role = if options
                .user_names
                .iter()
                .any(|u| u.eq_ignore_ascii_case(name))
            {
                Speaker::User
            } else {
                Speaker::Assistant
            };
            current = Some(Message {
                role,
                name: Some(name.to_string()),
                text: String::new(),
            });
            pending.push_str(rest);
        } else {
            if !pending.is_empty() || current.is_some() {
                pending.push('\n');
            }
            pending.push_str(line);
        }
    }
    flush(&mut chat, current, &mut pending);
    chat
}

fn flush(chat: &mut Chat, current: Option<Message>, pending: &mut String) {
    let text = std::mem::take(pending).trim().to_string();
    match current {
        Some(mut m) => {
            m.text = text;
            chat.messages.push(m);
        }
        None if !text.is_empty() => chat.messages.push(Message {
            role: Speaker::User,
            name: None,
            text,
        }),
        None => {}
    }
}

/// `Name: rest` where the name is 1–40 characters, does not start with a
/// space and holds no colon; URLs (`http://`) are not names.
fn speaker_prefix(line: &str) -> Option<(&str, &str)> {
    let colon = line.find(':')?;
    let name = &line[..colon];
    let rest = &line[colon + 1..];
    if name.is_empty()
        || name.starts_with(char::is_whitespace)
        || name.chars().count() > 40
        || name.trim().is_empty()
        || rest.starts_with("//")
        || name.split_whitespace().count() > 4
    {
        return None;
    }
    Some((name.trim_end(), rest.strip_prefix(' ').unwrap_or(rest)))
}

fn strip_location(e: &serde_json::Error) -> String {
    crate::formats::json::json_error_message(e)
}

#[cfg(test)]
mod tests {

    #[test]
    fn utf16_offsets_count_as_a_webview_does() {
        for text in [
            "",
            "plain ascii",
            "é à ü",
            "a😀b",
            "ab😀",
            "😀",
            "x\u{10000}y\u{feff}",
        ] {
            // The reference: every character boundary, by units.
            let mut expected = vec![None; utf16_len(text) + 1];
            let mut unit = 0;
            for (i, c) in text.char_indices() {
                expected[unit] = Some(i);
                unit += c.len_utf16();
            }
            expected[unit] = Some(text.len());
            assert_eq!(utf16_len(text), text.encode_utf16().count(), "{text:?}");
            for (unit, want) in expected.iter().enumerate() {
                assert_eq!(utf16_to_byte(text, unit), *want, "{text:?} at {unit}");
            }
            assert_eq!(
                utf16_to_byte(text, utf16_len(text) + 1),
                None,
                "{text:?} past the end"
            );
        }
    }
    use super::*;

    fn roles(chat: &Chat) -> Vec<(Speaker, &str)> {
        chat.messages
            .iter()
            .map(|m| (m.role, m.text.as_str()))
            .collect()
    }

    #[test]
    fn plain_text() {
        let chat = parse(
            "User: hi there\nmore\nAria: hello\n\n{{user}}: ok\nyou: lower\nhttp://x.y: no",
            &ChatOptions::default(),
        )
        .unwrap();
        assert_eq!(
            roles(&chat),
            vec![
                (Speaker::User, "hi there\nmore"),
                (Speaker::Assistant, "hello"),
                (Speaker::User, "ok"),
                (Speaker::User, "lower\nhttp://x.y: no"),
            ]
        );
        assert_eq!(chat.messages[1].name.as_deref(), Some("Aria"));
        let lone = parse("just some words", &ChatOptions::default()).unwrap();
        assert_eq!(roles(&lone), vec![(Speaker::User, "just some words")]);
        assert!(parse("  \n", &ChatOptions::default())
            .unwrap()
            .messages
            .is_empty());
        let custom = ChatOptions {
            user_names: vec!["Rin".into()],
        };
        assert_eq!(
            parse("Rin: a\nUser: b", &custom).unwrap().messages[1].role,
            Speaker::Assistant
        );
    }

    #[test]
    fn openai_json() {
        let a = parse(r#"[{"role":"system","content":"s"},{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"text","text":"a"}]}]"#, &ChatOptions::default()).unwrap();
        assert_eq!(
            roles(&a),
            vec![
                (Speaker::System, "s"),
                (Speaker::User, "u"),
                (Speaker::Assistant, "a")
            ]
        );
        let b = parse(
            r#"{"messages":[{"role":"user","content":"u","name":"Bo"}]}"#,
            &ChatOptions::default(),
        )
        .unwrap();
        assert_eq!(b.messages[0].name.as_deref(), Some("Bo"));
        let e = parse(
            "[\n{\"role\": \"user\",\n \"content\": }]",
            &ChatOptions::default(),
        )
        .unwrap_err();
        assert_eq!(e.line, Some(3));
        let e = parse(
            r#"[{"role":"narrator","content":"x"}]"#,
            &ChatOptions::default(),
        )
        .unwrap_err();
        assert_eq!(
            e.problem,
            ChatProblem::UnknownRole {
                index: 0,
                role: "narrator".into()
            }
        );
        assert!(e.to_string().contains("unknown role"), "{e}");
    }

    #[test]
    fn sillytavern_jsonl() {
        let text = "{\"user_name\":\"You\",\"character_name\":\"Aria\"}\n{\"name\":\"Aria\",\"is_user\":false,\"mes\":\"hi\"}\n{\"system\":\"odd\"}\n{\"name\":\"You\",\"is_user\":true,\"mes\":\"yo\"}\n";
        let c = parse(text, &ChatOptions::default()).unwrap();
        assert_eq!(
            roles(&c),
            vec![(Speaker::Assistant, "hi"), (Speaker::User, "yo")]
        );
        assert_eq!(c.warnings.len(), 1);
        assert_eq!(c.warnings[0], ChatWarning::NotAMessage { line: 3 });
        assert!(c.warnings[0].to_string().contains("line 3"));
        let e = parse(
            "{\"user_name\":\"a\"}\n{\"mes\": 1}\n{\"mes\":\"x\"",
            &ChatOptions::default(),
        )
        .unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = parse(
            "{\"user_name\":\"a\"}\n{\"mes\":\"x\"",
            &ChatOptions::default(),
        )
        .unwrap_err();
        assert_eq!(e.line, Some(2));
    }

    #[test]
    #[cfg_attr(
        not(corpus),
        ignore = "corpus not found: set LOREBOOK_CORPUS or put it at ../shared/corpus"
    )]
    fn corpus_chats_parse() {
        let dir = lorebook_test_support::corpus().join("chats");
        let files = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("corpus chats at {}: {e}", dir.display()));
        for f in files {
            let path = f.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let chat = parse(&text, &ChatOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!chat.messages.is_empty(), "{}", path.display());
        }
    }
}
