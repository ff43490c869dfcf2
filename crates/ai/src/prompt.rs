//! Prompts are data: one file per action and language
//! (`crates/ai/prompts/<lang>/<action>.md`, built in), which an author can
//! read (`lorebook ai prompt ACTION`) and replace with their own (a folder
//! holding `<action>.md`). A file is the system message, a line
//! `=== user ===`, then the user message; `{{name}}` marks where the
//! action puts its text, filled in one pass (a value that itself holds
//! `{{…}}` stays as written).

use std::path::Path;

use crate::client::PromptMessage;
use crate::error::AiError;

/// The line between the system and the user message.
pub const SEPARATOR: &str = "=== user ===";

/// The languages the built-in prompts are written in.
pub const LANGUAGES: [&str; 2] = ["en", "pt-BR"];

/// The actions, by their file names.
pub const ACTIONS: [&str; 4] = ["draft", "keys", "shorten", "review"];

/// The built-in prompt of `action` in `lang` (English for another).
pub fn builtin(action: &str, lang: &str) -> Option<&'static str> {
    let pt = lang.eq_ignore_ascii_case("pt-BR") || lang.eq_ignore_ascii_case("pt");
    Some(match (action, pt) {
        ("draft", false) => include_str!("../prompts/en/draft.md"),
        ("keys", false) => include_str!("../prompts/en/keys.md"),
        ("shorten", false) => include_str!("../prompts/en/shorten.md"),
        ("review", false) => include_str!("../prompts/en/review.md"),
        ("draft", true) => include_str!("../prompts/pt-BR/draft.md"),
        ("keys", true) => include_str!("../prompts/pt-BR/keys.md"),
        ("shorten", true) => include_str!("../prompts/pt-BR/shorten.md"),
        ("review", true) => include_str!("../prompts/pt-BR/review.md"),
        _ => return None,
    })
}

/// The prompt text of `action`: `folder/<action>.md` when the folder holds
/// one, else the built-in one in `lang`.
pub fn text(action: &str, lang: &str, folder: Option<&Path>) -> Result<String, AiError> {
    if let Some(dir) = folder {
        let path = dir.join(format!("{action}.md"));
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() => {
                if m.len() > 1 << 20 {
                    return Err(AiError::Invalid {
                        detail: format!("{}: a prompt file over 1 MiB is refused", path.display()),
                    });
                }
                return std::fs::read_to_string(&path).map_err(|e| AiError::Invalid {
                    detail: format!("{}: {e}", path.display()),
                });
            }
            Ok(_) => {
                return Err(AiError::Invalid {
                    detail: format!("{}: not a regular file", path.display()),
                })
            }
            Err(_) => {}
        }
    }
    builtin(action, lang)
        .map(String::from)
        .ok_or_else(|| AiError::Invalid {
            detail: format!("no prompt for the action {action:?}"),
        })
}

/// The two messages of a prompt text with its places filled from `values`.
pub fn messages(text: &str, values: &[(&str, &str)]) -> Result<Vec<PromptMessage>, AiError> {
    let (system, user) = match text.split_once(&format!("\n{SEPARATOR}\n")) {
        Some(parts) => parts,
        None => match text.split_once(SEPARATOR) {
            Some(parts) => parts,
            None => {
                return Err(AiError::Invalid {
                    detail: format!(
                        "the prompt has no line {SEPARATOR:?} between its system and user message"
                    ),
                })
            }
        },
    };
    Ok(vec![
        PromptMessage {
            role: "system",
            content: fill(system.trim(), values),
        },
        PromptMessage {
            role: "user",
            content: fill(user.trim(), values),
        },
    ])
}

/// `{{name}}` replaced by its value, in one pass over `text`.
pub fn fill(text: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let value = after.find("}}").and_then(|end| {
            let name = after[..end].trim();
            values
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v, end))
        });
        match value {
            Some((v, end)) => {
                out.push_str(v);
                rest = &after[end + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_prompt_has_its_two_messages_in_both_languages() {
        for lang in LANGUAGES {
            for action in ACTIONS {
                let text = builtin(action, lang).unwrap();
                let m = messages(text, &[]).unwrap();
                assert_eq!(m.len(), 2, "{lang}/{action}");
                assert!(m[0].content.contains("JSON"), "{lang}/{action}");
            }
        }
        assert_ne!(builtin("draft", "en"), builtin("draft", "pt-BR"));
    }

    #[test]
    fn places_are_filled_once() {
        let t = fill(
            "a {{x}} b {{y}} {{unknown}} {{x",
            &[("x", "{{y}}"), ("y", "2")],
        );
        assert_eq!(t, "a {{y}} b 2 {{unknown}} {{x");
    }

    #[test]
    fn a_folder_s_prompt_replaces_the_builtin_one() {
        let dir = std::env::temp_dir().join(format!("lorebook-ai-prompts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("keys.md"), "Mine.\n=== user ===\n{{name}}").unwrap();
        let t = text("keys", "en", Some(&dir)).unwrap();
        assert_eq!(
            messages(&t, &[("name", "Elara")]).unwrap()[1].content,
            "Elara"
        );
        // Not in the folder: the built-in one.
        assert_eq!(
            text("draft", "en", Some(&dir)).unwrap(),
            builtin("draft", "en").unwrap()
        );
        std::fs::write(dir.join("review.md"), "no separator").unwrap();
        let t = text("review", "en", Some(&dir)).unwrap();
        assert!(messages(&t, &[]).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
