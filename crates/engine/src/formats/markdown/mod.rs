//! A book as a folder of Markdown files (docs/markdown-folder.md): the
//! layout for books kept in git or edited in Obsidian.
//!
//! ```text
//! Saltmere/
//!   book.yaml            the book's settings, and its entries' order
//!   World.md             one entry: YAML front matter, then its body
//!   Places/              a folder of the book
//!     _folder.md         the folder's own fields
//!     Harbor.md
//! ```
//!
//! Writing then reading gives the same book, field for field and in the
//! same order ([`write`], [`read`]). A file that cannot be read is reported
//! and the others are read.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::model::{Book, Entry};

/// The settings file at the folder's top.
pub const BOOK_FILE: &str = "book.yaml";
/// A folder's own fields, inside its directory.
pub const FOLDER_FILE: &str = "_folder.md";
/// `format` in [`BOOK_FILE`].
pub const FORMAT: &str = "lorebook-studio-folder";
/// The layout's version in [`BOOK_FILE`].
pub const VERSION: u64 = 1;
/// The largest file read (an entry or the settings).
pub(super) const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// The deepest folder read.
pub(super) const MAX_DEPTH: usize = 64;

/// A file of the folder that could not be read (it was left out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProblem {
    /// The file, relative to the book's folder.
    pub file: String,
    pub problem: String,
}

impl std::fmt::Display for FileProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.problem)
    }
}

/// Whether `dir` holds a book in this layout: a regular `book.yaml` (not
/// a link) whose `format` says so. A folder another tool keeps a
/// `book.yaml` in is not one, and is never read or written as a book.
pub fn is_book_folder(dir: &Path) -> bool {
    crate::io::read_capped_no_follow(&dir.join(BOOK_FILE), MAX_FILE_BYTES)
        .ok()
        .and_then(|(bytes, _)| String::from_utf8(bytes).ok())
        .is_some_and(|text| read::not_ours(&text).is_none())
}

// --- Writing ------------------------------------------------------------

/// The files of `book` in this layout: each path relative to the book's
/// folder, with its bytes. Folders become directories; file names come
/// from the names ([`file_stem`]), made unique in their directory with the
/// entry's id. (What a save writes also depends on the files already in
/// the folder: see [`save`].)
pub fn files(book: &Book) -> Vec<(PathBuf, Vec<u8>)> {
    save::layout(book, &mut |_, _| Ok(save::Verdict::Free))
        .map(|planned| planned.into_iter().map(|p| (p.path, p.bytes)).collect())
        .unwrap_or_default()
}

/// The most bytes of a file name taken from an entry's name: with the
/// suffixes that tell names apart (` #ID-N`, ` (N)`, `.md`) and a
/// temporary file's (`.NAME.lbs-tmp-PID-N`), a name stays within the
/// 255 bytes file systems allow (80 CJK characters are 240 bytes).
pub const MAX_STEM_BYTES: usize = 120;

/// A file name made from `name`: what no file system refuses (no `/`,
/// `\`, `:`, `*`, `?`, `"`, `<`, `>`, `|` or control characters, no dot or
/// space at either end, not a name Windows reserves), at most 80
/// characters and [`MAX_STEM_BYTES`] bytes; `untitled` when nothing is
/// left.
pub fn file_stem(name: &str) -> String {
    let mut bytes = 0;
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_control() || "/\\:*?\"<>|".contains(c) {
                '_'
            } else {
                c
            }
        })
        .take(80)
        .take_while(|c| {
            bytes += c.len_utf8();
            bytes <= MAX_STEM_BYTES
        })
        .collect();
    s = s
        .trim_matches(|c: char| c == '.' || c.is_whitespace())
        .to_string();
    if s.is_empty() {
        return "untitled".into();
    }
    let base = s.split('.').next().unwrap_or("").to_ascii_lowercase();
    let reserved = matches!(base.as_str(), "con" | "prn" | "aux" | "nul")
        || ((base.starts_with("com") || base.starts_with("lpt"))
            && base.len() == 4
            && base.as_bytes()[3].is_ascii_digit());
    if reserved || s.starts_with('_') && s.to_lowercase() == "_folder" {
        s.push('_');
    }
    s
}

fn yaml(v: &Value) -> String {
    serde_norway::to_string(v).unwrap_or_else(|_| format!("{v}\n"))
}

fn settings_yaml(book: &Book) -> String {
    let mut o = Map::new();
    o.insert("format".into(), json!(FORMAT));
    o.insert("version".into(), json!(VERSION));
    o.insert("name".into(), json!(book.name));
    o.insert("description".into(), json!(book.description));
    o.insert("scan_depth".into(), json!(book.scan_depth));
    o.insert("token_budget".into(), json!(book.token_budget));
    o.insert("recursive_scanning".into(), json!(book.recursive_scanning));
    for (k, v) in [
        ("extensions", &book.extensions),
        ("extra", &book.extra),
        ("wrapper_extra", &book.wrapper_extra),
    ] {
        if !v.is_empty() {
            o.insert(k.into(), Value::Object(v.clone()));
        }
    }
    o.insert(
        "order".into(),
        json!(book.entries.iter().map(|e| e.id).collect::<Vec<_>>()),
    );
    let mut text = String::from(
        "# A Lorebook Studio book kept as a folder of Markdown files.\n\
         # `order` is the entries' order by id; each entry is one .md file.\n",
    );
    text.push_str(&yaml(&Value::Object(o)));
    text
}

/// The decorator lines of `content` and its body, when writing the lines
/// as a list and the body after them gives `content` back exactly.
fn split_decorators(content: &str) -> Option<(Vec<&str>, &str)> {
    let parsed = crate::decorators::parse(content);
    if parsed.lines.is_empty() {
        return None;
    }
    let n = parsed.lines.len();
    let lines: Vec<&str> = content.splitn(n + 1, '\n').collect();
    if lines.len() != n + 1 {
        return None;
    }
    let body = lines[n];
    let heads = lines[..n].to_vec();
    let rebuilt = format!("{}\n{body}", heads.join("\n"));
    (rebuilt == content && body == parsed.body && heads.iter().all(|l| l.starts_with("@@")))
        .then_some((heads, body))
}

fn entry_markdown(e: &Entry) -> String {
    let mut o = Map::new();
    o.insert("id".into(), json!(e.id));
    o.insert("comment".into(), json!(e.comment));
    o.insert("keys".into(), json!(e.keys));
    o.insert("secondary_keys".into(), json!(e.secondary_keys));
    o.insert("selective".into(), json!(e.selective));
    o.insert("secondary_logic".into(), json!(e.secondary_logic.as_str()));
    o.insert("constant".into(), json!(e.constant));
    o.insert("enabled".into(), json!(e.enabled));
    o.insert("whole_words".into(), json!(e.whole_words));
    o.insert("case_sensitive".into(), json!(e.case_sensitive));
    o.insert("use_regex".into(), json!(e.use_regex));
    o.insert("order".into(), json!(e.order));
    o.insert("priority".into(), json!(e.priority));
    o.insert("role".into(), json!(e.role.as_str()));
    let body = match split_decorators(&e.content) {
        Some((lines, body)) => {
            o.insert("decorators".into(), json!(lines));
            body
        }
        None => e.content.as_str(),
    };
    if !e.extensions.is_empty() {
        o.insert("extensions".into(), Value::Object(e.extensions.clone()));
    }
    if !e.extra.is_empty() {
        o.insert("extra".into(), Value::Object(e.extra.clone()));
    }
    // The body, then one newline that reading takes off again (editors
    // and git want a file to end with one).
    format!("---\n{}---\n{body}\n", yaml(&Value::Object(o)))
}

mod disk;
mod read;
mod save;
mod yaml;
pub use disk::{hash, list, Check, Found, Manifest, Stamp, MAX_FILES, MAX_FOLDER_BYTES};
#[cfg(test)]
use read::split_front_matter;
pub use read::{import, load, read, FolderRead};
pub use save::{save, write, SaveNote, Saved};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_stems_are_safe_everywhere() {
        assert_eq!(file_stem("Harbor / Dock: north?"), "Harbor _ Dock_ north_");
        assert_eq!(file_stem("  ..  "), "untitled");
        assert_eq!(file_stem("CON"), "CON_");
        assert_eq!(file_stem("com1.txt"), "com1.txt_");
        assert_eq!(file_stem("_folder"), "_folder_");
        assert_eq!(file_stem("Ação"), "Ação");
        assert_eq!(file_stem(&"x".repeat(200)).len(), 80);
        // Cut by bytes too: 80 CJK characters would be 240 bytes.
        let cjk = file_stem(&"灯".repeat(100));
        assert_eq!(cjk, "灯".repeat(40));
        assert!(cjk.len() <= MAX_STEM_BYTES);
    }

    #[test]
    fn front_matter_and_body_split_at_the_closing_line() {
        assert_eq!(
            split_front_matter("---\nid: 1\n---\nBody\n---\nmore\n").unwrap(),
            ("id: 1\n", "Body\n---\nmore")
        );
        assert!(split_front_matter("Body only").is_err());
        assert!(split_front_matter("---\nid: 1\n").is_err());
    }

    #[test]
    fn decorator_lines_go_to_the_front_matter_only_when_exact() {
        assert_eq!(
            split_decorators("@@depth 4\n@@role user\nBody"),
            Some((vec!["@@depth 4", "@@role user"], "Body"))
        );
        assert_eq!(split_decorators("Body"), None);
    }
}
