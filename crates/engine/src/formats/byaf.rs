//! Backyard AI character archives (`.byaf`, schema version 1): a ZIP with
//! `manifest.json` naming one character (`characters/<id>/character.json`)
//! and its scenarios. The book is the character's `loreItems`, each
//! `{key, value}`: the key field holds the keys separated by commas, the
//! value is the entry's text. The format has nothing else an entry could
//! carry (no order, no switch, no secondary keys); this reader gives each
//! item its position as its order, as SillyTavern 1.19's importer does.
//!
//! Rules, from Backyard AI's published format (its `specs/v1` and JSON
//! schemas, MIT) and SillyTavern 1.19.0's reading of it (`src/byaf.js`),
//! in our words:
//! - the character is the first path the manifest lists; a path must be
//!   exactly `characters/<folder>/character.json`, no `..`, no backslash;
//!   files are found by their exact name, never by a suffix;
//! - a key field is split at every comma, each piece trimmed, empty pieces
//!   dropped (no escaping);
//! - Backyard AI's placeholders become SillyTavern's macros, in keys and
//!   text alike, ignoring case: `#{user}:` → `{{user}}:`, `#{character}:`
//!   → `{{char}}:`, and a lone `{user}` / `{character}` → `{{user}}` /
//!   `{{char}}` (the report counts them);
//! - an item that is `null` is skipped, keeping the others' positions;
//! - the character's other fields are kept with the book
//!   (`wrapper_extra["byaf_character"]`), so nothing of the file is lost in
//!   the app's own format. There is no writer: a Backyard AI archive is a
//!   character, not a book file.
//!
//! The limits are CHARX's (`super::charx`): at most 65,535 files listed,
//! each JSON file inflated to at most 64 MiB, counted on the bytes
//! actually inflated.

use serde_json::Value;

use super::charx;
use super::error::ImportError;
use super::json::parse_json;
use super::report::{Note, Report};
use crate::model::{Book, Entry, Object};

/// The key the character's other fields are kept under.
pub const CHARACTER_KEY: &str = "byaf_character";

fn bad(m: impl Into<String>) -> ImportError {
    ImportError::BadCharx(format!("Backyard AI archive: {}", m.into()))
}

/// Whether a ZIP archive is a Backyard AI one: it has `manifest.json` at
/// its root and no `card.json` (which would make it a CHARX card).
pub fn claims(zip: &[u8]) -> bool {
    let Ok(names) = charx::names(zip) else {
        return false;
    };
    names.iter().any(|n| n == "manifest.json") && !names.iter().any(|n| n == "card.json")
}

fn json_file(zip: &[u8], name: &str) -> Result<Object, ImportError> {
    let bytes = charx::read_file(zip, name)?.ok_or_else(|| bad(format!("it has no {name}")))?;
    match parse_json(&bytes) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err(bad(format!("{name} is not a JSON object"))),
        Err(e) => Err(bad(format!("{name} is not JSON: {e}"))),
    }
}

/// Whether `path` is a character's file as the format lays them out.
fn character_path(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("characters/") else {
        return false;
    };
    let Some(folder) = rest.strip_suffix("/character.json") else {
        return false;
    };
    !folder.is_empty() && !folder.contains(['/', '\\']) && folder != "." && folder != ".."
}

/// Backyard AI's placeholders as SillyTavern's macros; the count of
/// replacements is added to `count`.
fn macros(text: &str, count: &mut usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['#', '{']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        // Compared as bytes, ignoring ASCII case: nothing of the rest of
        // the text is copied (a long text stays linear).
        let starts = |p: &str| {
            tail.len() >= p.len() && tail.as_bytes()[..p.len()].eq_ignore_ascii_case(p.as_bytes())
        };
        let (len, with) = if starts("#{user}:") {
            (8, "{{user}}:")
        } else if starts("#{character}:") {
            (13, "{{char}}:")
        } else if starts("{user}") && !tail[6..].starts_with('}') && !out.ends_with('{') {
            (6, "{{user}}")
        } else if starts("{character}") && !tail[11..].starts_with('}') && !out.ends_with('{') {
            (11, "{{char}}")
        } else {
            let c = tail.chars().next().unwrap_or('#');
            out.push(c);
            rest = &tail[c.len_utf8()..];
            continue;
        };
        out.push_str(with);
        *count += 1;
        rest = &tail[len..];
    }
    out.push_str(rest);
    out
}

/// Reads the book out of a Backyard AI archive.
pub fn import(zip: &[u8], report: &mut Report) -> Result<Book, ImportError> {
    let manifest = json_file(zip, "manifest.json")?;
    let characters: Vec<&str> = manifest
        .get("characters")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(&path) = characters.first() else {
        return Err(bad("its manifest.json lists no character"));
    };
    if !character_path(path) {
        return Err(bad(format!(
            "the manifest names {path:?}, which is not characters/<folder>/character.json"
        )));
    }
    if characters.len() > 1 {
        report.notes.push(Note::OnlyFirstCharacter {
            count: characters.len(),
        });
    }
    let mut character = json_file(zip, path)?;
    let items = match character.remove("loreItems") {
        Some(Value::Array(items)) if !items.is_empty() => items,
        _ => {
            return Err(ImportError::CardWithoutBook {
                spec: "Backyard AI character".into(),
            })
        }
    };
    let name = ["name", "displayName"]
        .iter()
        .find_map(|k| {
            character
                .get(*k)
                .and_then(Value::as_str)
                .filter(|s| !s.trim().is_empty())
        })
        .unwrap_or("Backyard AI character")
        .to_string();
    let mut converted = 0;
    let mut book = Book {
        name,
        ..Book::default()
    };
    for (position, item) in items.into_iter().enumerate() {
        let mut item = match item {
            Value::Null => continue,
            Value::Object(o) => o,
            other => {
                return Err(bad(format!(
                    "lore item {position} is {}, not an object",
                    super::json::type_name(&other)
                )))
            }
        };
        let text_of = |v: Option<Value>, field: &str| -> Result<String, ImportError> {
            match v {
                None | Some(Value::Null) => Ok(String::new()),
                Some(Value::String(s)) => Ok(s),
                Some(other) => Err(bad(format!(
                    "lore item {position}'s {field} is {}, not text",
                    super::json::type_name(&other)
                ))),
            }
        };
        let key = text_of(item.remove("key"), "key")?;
        let value = text_of(item.remove("value"), "value")?;
        let keys: Vec<String> = macros(&key, &mut converted)
            .split(',')
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(str::to_string)
            .collect();
        let id = book.entries.len() as u64;
        let entry = Entry {
            id,
            keys,
            content: macros(&value, &mut converted),
            order: position as i64,
            enabled: true,
            extra: item,
            ..Entry::default()
        };
        book.entries.push(entry);
    }
    if converted > 0 {
        report
            .notes
            .push(Note::PlaceholdersConverted { count: converted });
    }
    book.wrapper_extra
        .insert(CHARACTER_KEY.into(), Value::Object(character));
    Ok(book)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macros_convert_backyard_placeholders_only() {
        let mut n = 0;
        assert_eq!(
            macros("#{User}: hi {character}, {user}}", &mut n),
            "{{user}}: hi {{char}}, {user}}"
        );
        assert_eq!(n, 2);
        let mut n = 0;
        assert_eq!(
            macros("{{char}} and #{character}: ünï", &mut n),
            "{{char}} and {{char}}: ünï"
        );
        assert_eq!(n, 1);
    }

    #[test]
    fn character_path_takes_only_the_layout() {
        assert!(character_path("characters/abc/character.json"));
        for bad in [
            "characters//character.json",
            "characters/../character.json",
            "x/characters/a/character.json",
            "characters/a/b/character.json",
            "characters/a\\b/character.json",
        ] {
            assert!(!character_path(bad), "{bad}");
        }
    }
}
