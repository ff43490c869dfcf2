//! What the app and the CLI ask of SillyTavern 1.19.0's API, each answer
//! checked for the shape the endpoint gives (read in its
//! `src/endpoints/worldinfo.js`, `settings.js`, `characters.js` and
//! `chats.js`):
//! - `POST /api/worldinfo/list` → `[{file_id, name, extensions}]`, a book's
//!   identity being its file name without `.json` (`file_id`);
//! - `POST /api/worldinfo/get {name}` → the book's JSON, or `{"entries":{}}`
//!   when there is no such file (so a book is looked up in the list first);
//! - `POST /api/worldinfo/edit {name, data}` → the file replaced whole
//!   (written atomically), with no version check: the last write wins;
//! - `POST /api/settings/get` → `{settings: "<settings.json as text>", …}`;
//! - `POST /api/characters/all` → the characters, `avatar` naming each;
//! - `POST /api/characters/chats {avatar_url, simple}` → the chat files, or
//!   `{"error": true}` when the character has none (this one never creates
//!   a folder, unlike `chats/get`, which is only asked for a listed chat);
//! - `POST /api/chats/get {ch_name, file_name, avatar_url}` → the chat's
//!   lines as a JSON array (header first).

use serde::Serialize;
use serde_json::{json, Value};

use crate::client::{Server, MAX_ANSWER_BYTES};
use crate::error::Error;

const LIST_CAP: u64 = 64 * 1024 * 1024;

/// A book on the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BookListing {
    /// The book's file name without `.json`: what every call names it by.
    pub file_id: String,
    /// The `name` inside the file, or the file name.
    pub name: String,
}

/// A character on the server, with what the preview needs of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Character {
    pub name: String,
    /// Its card's file name (`Seraphina.png`): what every call names it by.
    pub avatar: String,
    /// The book linked to it (`data.extensions.world`), if any.
    pub world: Option<String>,
    /// The whole character as the server sent it (description, personality,
    /// scenario, … the fields entries can match on).
    #[serde(skip)]
    pub value: Value,
}

/// A chat file of a character.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChatListing {
    /// The file name without `.jsonl`.
    pub file_id: String,
}

fn malformed(what: &str, detail: impl Into<String>) -> Error {
    Error::Malformed {
        what: what.to_string(),
        detail: detail.into(),
    }
}

fn parse(what: &str, bytes: &[u8]) -> Result<Value, Error> {
    serde_json::from_slice(bytes).map_err(|e| malformed(what, format!("not JSON ({e})")))
}

impl Server {
    /// The books, as the server lists them (by file name).
    pub fn books(&self) -> Result<Vec<BookListing>, Error> {
        const WHAT: &str = "the list of books";
        let v = parse(
            WHAT,
            &self.post("/api/worldinfo/list", &json!({}), WHAT, LIST_CAP)?,
        )?;
        let Value::Array(items) = v else {
            return Err(malformed(WHAT, "not a list"));
        };
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            let file_id = item
                .get("file_id")
                .and_then(Value::as_str)
                .ok_or_else(|| malformed(WHAT, "an item without a file_id"))?;
            let name = item.get("name").and_then(Value::as_str).unwrap_or(file_id);
            out.push(BookListing {
                file_id: file_id.to_string(),
                name: name.to_string(),
            });
        }
        Ok(out)
    }

    /// The book named `file_id`, as the server keeps it; an error naming the
    /// books it has when there is none.
    pub fn book(&self, file_id: &str) -> Result<Value, Error> {
        let books = self.books()?;
        if !books.iter().any(|b| b.file_id == file_id) {
            return Err(no_such_book(file_id, &books));
        }
        self.book_unchecked(file_id)
    }

    /// The book, without looking it up in the list first (the server answers
    /// `{"entries":{}}` for a file it does not have).
    pub(crate) fn book_unchecked(&self, file_id: &str) -> Result<Value, Error> {
        let what = format!("the book {file_id:?}");
        let v = parse(
            &what,
            &self.post(
                "/api/worldinfo/get",
                &json!({"name": file_id}),
                &what,
                MAX_ANSWER_BYTES,
            )?,
        )?;
        if !v
            .get("entries")
            .is_some_and(|e| e.is_object() || e.is_array())
        {
            return Err(malformed(&what, "no \"entries\""));
        }
        Ok(v)
    }

    /// Replaces (or creates) the book `file_id` with `data`, whole.
    pub fn put_book(&self, file_id: &str, data: &Value) -> Result<(), Error> {
        check_book_name(file_id)?;
        if !data.get("entries").is_some_and(Value::is_object) {
            return Err(Error::BadName {
                name: file_id.to_string(),
                detail: "the book to send has no \"entries\" object".into(),
            });
        }
        let what = format!("saving the book {file_id:?}");
        let body = json!({"name": file_id, "data": data});
        let answer = self.post("/api/worldinfo/edit", &body, &what, 1024 * 1024)?;
        let v = parse(&what, &answer)?;
        if v.get("ok") != Some(&Value::Bool(true)) {
            return Err(malformed(&what, "no {\"ok\": true}"));
        }
        Ok(())
    }

    /// The author's `settings.json`, as the server keeps it.
    pub fn settings(&self) -> Result<Value, Error> {
        const WHAT: &str = "the settings";
        let v = parse(
            WHAT,
            &self.post("/api/settings/get", &json!({}), WHAT, MAX_ANSWER_BYTES)?,
        )?;
        let text = v
            .get("settings")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed(WHAT, "no \"settings\" text"))?;
        serde_json::from_str(text)
            .map_err(|e| malformed(WHAT, format!("settings.json is not JSON ({e})")))
    }

    /// The characters.
    pub fn characters(&self) -> Result<Vec<Character>, Error> {
        const WHAT: &str = "the list of characters";
        let v = parse(
            WHAT,
            &self.post("/api/characters/all", &json!({}), WHAT, MAX_ANSWER_BYTES)?,
        )?;
        let Value::Array(items) = v else {
            return Err(malformed(WHAT, "not a list"));
        };
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            let (Some(name), Some(avatar)) = (
                item.get("name").and_then(Value::as_str),
                item.get("avatar").and_then(Value::as_str),
            ) else {
                return Err(malformed(WHAT, "a character without a name or avatar"));
            };
            let world = item
                .pointer("/data/extensions/world")
                .and_then(Value::as_str)
                .filter(|w| !w.is_empty())
                .map(str::to_string);
            out.push(Character {
                name: name.to_string(),
                avatar: avatar.to_string(),
                world,
                value: item.clone(),
            });
        }
        Ok(out)
    }

    /// The character named `who`: by its avatar file (with or without
    /// `.png`) or, when one only has it, by its name.
    pub fn character(&self, who: &str) -> Result<Character, Error> {
        let all = self.characters()?;
        let by_avatar = all
            .iter()
            .find(|c| c.avatar == who || c.avatar.strip_suffix(".png") == Some(who));
        if let Some(c) = by_avatar {
            return Ok(c.clone());
        }
        let by_name: Vec<&Character> = all.iter().filter(|c| c.name == who).collect();
        match by_name.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(Error::NoSuchChat {
                what: format!("character {who:?}"),
            }),
            _ => Err(Error::NoSuchChat {
                what: format!(
                    "single character named {who:?} ({} have that name: give the card's file name, {})",
                    by_name.len(),
                    by_name.iter().map(|c| c.avatar.as_str()).collect::<Vec<_>>().join(", ")
                ),
            }),
        }
    }

    /// The chat files of a character (by avatar), newest name last.
    pub fn chats(&self, character: &Character) -> Result<Vec<ChatListing>, Error> {
        let what = format!("the chats of {:?}", character.name);
        let v = parse(
            &what,
            &self.post(
                "/api/characters/chats",
                &json!({"avatar_url": character.avatar, "simple": true}),
                &what,
                LIST_CAP,
            )?,
        )?;
        let items = match v {
            Value::Array(items) => items,
            Value::Object(o) if o.get("error") == Some(&Value::Bool(true)) => Vec::new(),
            _ => return Err(malformed(&what, "not a list")),
        };
        let mut out: Vec<ChatListing> = items
            .iter()
            .filter_map(|i| i.get("file_id").and_then(Value::as_str))
            .map(|f| ChatListing {
                file_id: f.to_string(),
            })
            .collect();
        out.sort_by(|a, b| a.file_id.cmp(&b.file_id));
        Ok(out)
    }

    /// One chat's lines (its header first), as JSON Lines text.
    pub fn chat(&self, character: &Character, file_id: &str) -> Result<String, Error> {
        let chats = self.chats(character)?;
        if !chats.iter().any(|c| c.file_id == file_id) {
            return Err(Error::NoSuchChat {
                what: format!("chat {file_id:?} of {:?}", character.name),
            });
        }
        let what = format!("the chat {file_id:?}");
        let v = parse(
            &what,
            &self.post(
                "/api/chats/get",
                &json!({"ch_name": character.name, "file_name": file_id, "avatar_url": character.avatar}),
                &what,
                MAX_ANSWER_BYTES,
            )?,
        )?;
        let Value::Array(lines) = v else {
            return Err(malformed(&what, "not a list of chat lines"));
        };
        let mut text = String::new();
        for line in lines {
            text.push_str(&serde_json::to_string(&line).expect("a JSON value serialises"));
            text.push('\n');
        }
        Ok(text)
    }
}

fn no_such_book(name: &str, books: &[BookListing]) -> Error {
    let lower = name.to_lowercase();
    let near = books
        .iter()
        .filter(|b| {
            let f = b.file_id.to_lowercase();
            f == lower || f.contains(&lower) || lower.contains(&f)
        })
        .take(5)
        .map(|b| b.file_id.clone())
        .collect();
    Error::NoSuchBook {
        name: name.to_string(),
        near,
    }
}

/// Checks that SillyTavern would keep `name` as the book's file name as it
/// is. It stores a book as `<name>.json` after dropping what a file name
/// cannot hold (its `sanitize-filename` dependency): path separators and
/// `?<>\:*|"`, control characters, names of only dots, Windows' reserved
/// device names, trailing dots and spaces, more than 255 bytes. A name it
/// would change is refused here rather than saved under another.
pub fn check_book_name(name: &str) -> Result<(), Error> {
    let bad = |detail: &str| {
        Err(Error::BadName {
            name: name.to_string(),
            detail: detail.to_string(),
        })
    };
    if name.trim().is_empty() {
        return bad("it is empty");
    }
    if let Some(c) = name.chars().find(|c| "/\\?<>:*|\"".contains(*c)) {
        return bad(&format!("SillyTavern drops {c:?} from file names"));
    }
    if name.chars().any(char::is_control) {
        return bad("it holds control characters");
    }
    if name.ends_with(['.', ' ']) || name.starts_with(' ') {
        return bad("it begins with a space or ends with a dot or space");
    }
    let stem = name.split('.').next().unwrap_or("").to_ascii_lowercase();
    let reserved = ["con", "prn", "aux", "nul"].contains(&stem.as_str())
        || ((stem.starts_with("com") || stem.starts_with("lpt"))
            && stem.len() == 4
            && stem.as_bytes()[3].is_ascii_digit());
    if reserved {
        return bad("it is a reserved device name on Windows");
    }
    if name.len() + ".json".len() > 255 {
        return bad("it is longer than a file name may be");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_book_name_refuses_what_sanitize_filename_changes() {
        for ok in ["Eldoria", "My book (2)", "Ünïcode ✓", "a.b"] {
            assert!(check_book_name(ok).is_ok(), "{ok:?}");
        }
        for bad in [
            "",
            "  ",
            "a/b",
            "..",
            "x.",
            " x",
            "CON",
            "com1.txt",
            "a\u{7}b",
            "q?",
            &"x".repeat(251),
        ] {
            assert!(check_book_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn no_such_book_names_near_books() {
        let books = vec![
            BookListing {
                file_id: "Eldoria".into(),
                name: "Eldoria".into(),
            },
            BookListing {
                file_id: "Other".into(),
                name: "Other".into(),
            },
        ];
        let e = no_such_book("eldoria", &books).to_string();
        assert!(e.contains("\"Eldoria\"") && !e.contains("Other"), "{e}");
    }
}
