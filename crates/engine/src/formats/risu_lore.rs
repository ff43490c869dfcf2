//! An entry as RisuAI holds it (its `loreBook` record), made from the
//! model's [`Entry`]. The `risu` rules read this form, and the RisuAI
//! export writes it ([`crate::formats::risu`]): one mapping, so a book
//! exported to RisuAI previews under `risu` as the book itself does.
//!
//! What the model keeps as fields and RisuAI keeps as decorators (see
//! docs/risu-rules.md, "How Lorebook Studio applies these rules"):
//!
//! | model | RisuAI |
//! |---|---|
//! | `role` other than system | `@@role R` |
//! | `enabled: false` (not a folder) | `@@dont_activate` |
//! | `whole_words` | `@@match_full_word` (RisuAI's books match inside words), unless the SillyTavern source left it to the global setting (then RisuAI's book setting applies) |
//! | `priority` ≠ `order` | `@@priority N` (the budget's rank; `insertorder` is `order`) |
//! | secondary logic NOT ANY | `@@exclude_keys k` per secondary key |
//! | secondary logic AND ALL | `@@additional_keys k` per secondary key |
//! | secondary logic NOT ALL | `@@exclude_keys_all k1,k2,…` |
//! | `@@keep` | `@@keep_activate_after_match` |
//! | `@@order N` | `insertorder` N |
//! | SillyTavern `position` 4 (at depth D) | `@@reverse_depth D` (counted from the newest message, as SillyTavern counts) |
//! | SillyTavern `position` 0 / 1 | `@@position before_desc` / `after_desc` |
//! | SillyTavern `delay` N | `@@activate_only_after N` |
//!
//! `mode`, `id` and `folder` come from the RisuAI fields an import kept
//! (`extensions.risu`).

use serde_json::Value;

use crate::formats::common::{has_decorator_line, rename_decorator};
use crate::formats::shadow;
use crate::model::{Entry, Role, SecondaryLogic};

/// Where an import keeps a `key` / `secondkey` field of only separators
/// and blanks (in the entry's RisuAI fields; see [`Lore`]).
pub const BLANK_KEY: &str = "blankKey";
pub const BLANK_SECONDKEY: &str = "blankSecondkey";

/// The namespace of RisuAI's own fields in an entry's `extensions`.
pub const NS: &str = "risu";

/// RisuAI's `loreBook` record.
#[derive(Debug, Clone, PartialEq)]
pub struct Lore {
    /// Comma-separated primary keys.
    pub key: String,
    /// Comma-separated secondary keys.
    pub secondkey: String,
    pub insertorder: f64,
    pub comment: String,
    /// Decorator lines and body.
    pub content: String,
    /// `normal`, `folder`, `child`, …
    pub mode: String,
    pub always_active: bool,
    pub selective: bool,
    pub use_regex: bool,
    /// RisuAI's `id`, when the file had one.
    pub id: Option<String>,
    /// The `key` of the folder holding it.
    pub folder: Option<String>,
}

/// What [`Lore::of`] moved between a field and a decorator, for reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Moved {
    pub role: bool,
    pub disabled: bool,
    pub whole_words: bool,
    /// Whole words left to RisuAI's book setting: the source (SillyTavern,
    /// a card) left them to its own global setting.
    pub whole_words_global: bool,
    pub priority: bool,
    pub secondary_logic: bool,
    pub st_position: Option<u64>,
    pub delay: bool,
}

impl Lore {
    /// The RisuAI record of `e`, and what moved.
    pub fn of(e: &Entry) -> (Lore, Moved) {
        let ns = match e.extensions.get(NS) {
            Some(Value::Object(o)) => Some(o),
            _ => None,
        };
        let text = |k: &str| ns.and_then(|o| o.get(k)).and_then(Value::as_str);
        let mode = if e.folder {
            "folder"
        } else {
            text("mode").unwrap_or("normal")
        }
        .to_string();
        let id = ns.and_then(|o| o.get("id")).and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        });
        let folder = text("folder").map(str::to_string);
        let mut moved = Moved::default();
        let mut content = rename_decorator(&e.content, "keep", "keep_activate_after_match");
        // `@@order` is the guide's, not RisuAI's: it stays a line of the
        // body, which RisuAI drops as an unknown decorator, and the order
        // is the entry's own.
        let insertorder = e.order as f64;
        // Prepended one by one: the last one written ends up on top.
        let mut top: Vec<String> = Vec::new();
        let st_int = |k: &str| e.extensions.get(k).and_then(Value::as_u64);
        match st_int("position") {
            Some(4) => {
                let depth = st_int("depth").unwrap_or(4);
                top.push(format!("@@reverse_depth {depth}"));
                moved.st_position = Some(4);
            }
            Some(p @ (0 | 1)) if !has_decorator_line(&content, "position") => {
                let at = if p == 0 { "before_desc" } else { "after_desc" };
                top.push(format!("@@position {at}"));
                moved.st_position = Some(p);
            }
            _ => {}
        }
        if let Some(delay) = st_int("delay").filter(|d| *d > 0) {
            top.push(format!("@@activate_only_after {delay}"));
            moved.delay = true;
        }
        let mut selective = e.selective;
        let has_secondary = e.secondary_keys.iter().any(|k| !k.trim().is_empty());
        if e.selective && has_secondary && e.secondary_logic != SecondaryLogic::AndAny {
            selective = false;
            moved.secondary_logic = true;
            match e.secondary_logic {
                SecondaryLogic::NotAny => {
                    for k in &e.secondary_keys {
                        top.push(format!("@@exclude_keys {k}"));
                    }
                }
                SecondaryLogic::AndAll => {
                    for k in &e.secondary_keys {
                        top.push(format!("@@additional_keys {k}"));
                    }
                }
                SecondaryLogic::NotAll => {
                    top.push(format!("@@exclude_keys_all {}", e.secondary_keys.join(",")));
                }
                SecondaryLogic::AndAny => {}
            }
        }
        if e.priority != e.order && !has_decorator_line(&content, "priority") {
            top.push(format!("@@priority {}", e.priority));
            moved.priority = true;
        }
        if e.whole_words && !has_decorator_line(&content, "match_partial_word") {
            if whole_words_unset(e) {
                moved.whole_words_global = true;
            } else {
                top.push("@@match_full_word".to_string());
                moved.whole_words = true;
            }
        }
        if !e.enabled && mode != "folder" {
            top.push("@@dont_activate".to_string());
            moved.disabled = true;
        }
        if e.role != Role::System && !has_decorator_line(&content, "role") {
            top.push(format!("@@role {}", e.role.as_str()));
            moved.role = true;
        }
        for line in top {
            content = if content.is_empty() {
                line
            } else {
                format!("{line}\n{content}")
            };
        }
        // A field the import read as separators and blanks only is that
        // field again while the entry has no keys of that list.
        let join = |keys: &[String], blank: &str| match (keys.is_empty(), text(blank)) {
            (true, Some(raw)) => raw.to_string(),
            _ => keys.join(", "),
        };
        let lore = Lore {
            key: join(&e.keys, BLANK_KEY),
            // Kept when the logic moved into decorators, as RisuAI's own
            // card import keeps them (unread once `selective` is off).
            secondkey: join(&e.secondary_keys, BLANK_SECONDKEY),
            insertorder,
            comment: e.comment.clone(),
            content,
            mode,
            always_active: e.constant,
            selective,
            use_regex: e.use_regex,
            id,
            folder,
        };
        (lore, moved)
    }
}

/// Whether `e` came from a SillyTavern book or card that left whole words
/// to SillyTavern's global setting (`matchWholeWords: null`), unchanged
/// since: RisuAI's own book setting stands in for that global one.
fn whole_words_unset(e: &Entry) -> bool {
    let on = Value::Bool(true);
    shadow::left_unset(&e.extensions, "sillytavern", "/matchWholeWords", &on)
        || shadow::left_unset(&e.extensions, "card", "/extensions/match_whole_words", &on)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_become_decorators() {
        let e = Entry {
            keys: vec!["a".into(), "b".into()],
            secondary_keys: vec!["x".into(), "y".into()],
            selective: true,
            secondary_logic: SecondaryLogic::NotAny,
            role: Role::User,
            priority: 7,
            whole_words: false,
            content: "@@keep\nBody".into(),
            ..Entry::default()
        };
        let (l, m) = Lore::of(&e);
        assert_eq!(l.key, "a, b");
        assert!(!l.selective);
        assert!(m.secondary_logic && m.role && m.priority);
        assert_eq!(
            l.content,
            "@@role user\n@@priority 7\n@@exclude_keys y\n@@exclude_keys x\n@@keep_activate_after_match\nBody"
        );
    }

    #[test]
    fn st_depth_counts_from_the_newest_message() {
        let mut e = Entry {
            whole_words: false,
            content: "Body".into(),
            ..Entry::default()
        };
        e.extensions.insert("position".into(), 4.into());
        e.extensions.insert("depth".into(), 2.into());
        assert_eq!(Lore::of(&e).0.content, "@@reverse_depth 2\nBody");
    }

    /// Whole words a SillyTavern book left to its global setting are left
    /// to RisuAI's; whole words it chose are written.
    #[test]
    fn whole_words_left_unset_are_left_to_risu() {
        let mut e = Entry {
            content: "Body".into(),
            ..Entry::default()
        };
        assert_eq!(Lore::of(&e).0.content, "@@match_full_word\nBody");
        let record =
            serde_json::json!({"sillytavern": {"/matchWholeWords": {"was": null, "as": true}}});
        e.extensions.insert(shadow::KEY.into(), record);
        let (l, m) = Lore::of(&e);
        assert_eq!(l.content, "Body");
        assert!(m.whole_words_global && !m.whole_words);
    }
}
