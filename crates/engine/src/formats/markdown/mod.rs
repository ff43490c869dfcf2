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

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::folders::Tree;
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
/// How many threads write a book's changed files.
const WRITERS: usize = 32;
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

/// Whether `dir` holds a book in this layout.
pub fn is_book_folder(dir: &Path) -> bool {
    dir.join(BOOK_FILE).is_file()
}

// --- Writing ------------------------------------------------------------

/// The files of `book` in this layout: each path relative to the book's
/// folder, with its bytes. Folders become directories; file names come
/// from the names ([`file_stem`]), made unique in their directory with the
/// entry's id.
pub fn files(book: &Book) -> Vec<(PathBuf, Vec<u8>)> {
    let tree = Tree::of(book);
    // Each folder's directory, made from the top down.
    let mut dirs: HashMap<u64, PathBuf> = HashMap::new();
    let mut taken: HashMap<PathBuf, HashSet<String>> = HashMap::new();
    // `book.yaml` is no `.md` file, and no stem is `_folder` (see
    // `file_stem`): the layout's own names never collide with an entry's.
    let mut folders: Vec<&Entry> = book.entries.iter().filter(|e| e.folder).collect();
    folders.sort_by_key(|e| tree.ancestors(e.id).len());
    for f in folders {
        let up = tree
            .parent(f.id)
            .and_then(|p| dirs.get(&p).cloned())
            .unwrap_or_default();
        let dir = claim(&mut taken, &up, file_stem(&f.comment), f.id, "");
        dirs.insert(f.id, dir);
    }
    let mut out = Vec::with_capacity(book.entries.len() + 1);
    out.push((PathBuf::from(BOOK_FILE), settings_yaml(book).into_bytes()));
    for e in &book.entries {
        let path = if e.folder {
            dirs[&e.id].join(FOLDER_FILE)
        } else {
            let dir = tree
                .parent(e.id)
                .and_then(|p| dirs.get(&p).cloned())
                .unwrap_or_default();
            claim(&mut taken, &dir, file_stem(e.display_name()), e.id, ".md")
        };
        out.push((path, entry_markdown(e).into_bytes()));
    }
    out
}

/// `dir`'s name for `stem` (with `ext`), made unique among the names
/// already taken there (case aside) with the entry's id.
fn claim(
    taken: &mut HashMap<PathBuf, HashSet<String>>,
    dir: &Path,
    stem: String,
    id: u64,
    ext: &str,
) -> PathBuf {
    let names = taken.entry(dir.to_path_buf()).or_default();
    let mut name = format!("{stem}{ext}");
    let mut n = 1;
    while !names.insert(name.to_lowercase()) {
        name = if n == 1 {
            format!("{stem} #{id}{ext}")
        } else {
            format!("{stem} #{id}-{n}{ext}")
        };
        n += 1;
    }
    dir.join(name)
}

/// A file name made from `name`: what no file system refuses (no `/`,
/// `\`, `:`, `*`, `?`, `"`, `<`, `>`, `|` or control characters, no dot or
/// space at either end, not a name Windows reserves), at most 80
/// characters; `untitled` when nothing is left.
pub fn file_stem(name: &str) -> String {
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

/// Writes `book` into `dir` (made when missing). A folder that holds files
/// but no [`BOOK_FILE`] is refused: it is not a book's. Files of the
/// layout that the book no longer has (an entry deleted or renamed) are
/// removed, and so are the directories that leaves empty; other files are
/// left alone. Each file is written atomically.
pub fn write(book: &Book, dir: &Path) -> Result<(), String> {
    let shown = dir.display();
    if dir.exists() {
        if !dir.is_dir() {
            return Err(format!("{shown} is a file, not a folder"));
        }
        let empty = std::fs::read_dir(dir)
            .map_err(|e| format!("{shown}: {e}"))?
            .next()
            .is_none();
        if !empty && !is_book_folder(dir) {
            return Err(format!(
                "{shown} holds files but no {BOOK_FILE}: not a book's folder, so nothing was written"
            ));
        }
    }
    let files = files(book);
    let written: HashSet<PathBuf> = files.iter().map(|(p, _)| p.clone()).collect();
    let mut changed = Vec::new();
    for (rel, bytes) in &files {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        // Unchanged files are not touched (git and editors see no change).
        if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
            changed.push((path, bytes));
        }
    }
    // Each file is written atomically (fsynced, then renamed): the waits
    // for the disk overlap on a few threads (10,000 new files took 6 s
    // one at a time, 2.2–2.6 s this way; BENCHMARKS.md).
    let chunk = changed.len().div_ceil(WRITERS).max(1);
    std::thread::scope(|s| {
        let jobs: Vec<_> = changed
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    for (path, bytes) in part {
                        crate::io::write_atomic(path, bytes)
                            .map_err(|e| format!("{}: {e}", path.display()))?;
                    }
                    Ok::<(), String>(())
                })
            })
            .collect();
        jobs.into_iter().try_for_each(|j| {
            j.join()
                .unwrap_or_else(|_| Err("a writer thread failed".into()))
        })
    })?;
    let mut dirs = HashSet::new();
    for rel in stale(dir, &written) {
        let path = dir.join(&rel);
        std::fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if let Some(parent) = rel.parent().filter(|p| !p.as_os_str().is_empty()) {
            dirs.insert(parent.to_path_buf());
        }
    }
    // Deepest first, so a parent left empty by its child goes too.
    let mut dirs: Vec<PathBuf> = dirs
        .into_iter()
        .flat_map(|d| d.ancestors().map(Path::to_path_buf).collect::<Vec<_>>())
        .filter(|d| !d.as_os_str().is_empty())
        .collect();
    dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    dirs.dedup();
    for d in dirs {
        // Only an empty directory is removed; anything else stays.
        let _ = std::fs::remove_dir(dir.join(d));
    }
    Ok(())
}

/// The layout's files in `dir` that the book no longer has: the `.md`
/// files other than `written` that read as entries (what [`read`] takes
/// into the book), relative to `dir`. A file that does not read is never
/// among them, so a save never removes it; the files just written are not
/// read again.
fn stale(dir: &Path, written: &HashSet<PathBuf>) -> Vec<PathBuf> {
    md_files(dir)
        .into_iter()
        .filter(|rel| !written.contains(rel))
        .filter(|rel| {
            let folder = rel.file_name().is_some_and(|n| n == FOLDER_FILE);
            crate::io::read_text_capped(&dir.join(rel), MAX_FILE_BYTES)
                .is_ok_and(|t| read_entry(&t, folder).is_ok())
        })
        .collect()
}

/// Every `.md` file under `root` (hidden directories skipped, at most
/// [`MAX_DEPTH`] deep), relative to it, directories in name order.
fn md_files(root: &Path) -> Vec<PathBuf> {
    fn collect(root: &Path, rel: &Path, depth: usize, out: &mut Vec<PathBuf>) {
        if depth > MAX_DEPTH {
            return;
        }
        let Ok(read) = std::fs::read_dir(root.join(rel)) else {
            return;
        };
        let mut names: Vec<(String, bool)> = read
            .filter_map(Result::ok)
            .filter_map(|d| {
                let name = d.file_name().into_string().ok()?;
                let dir = d.file_type().ok()?.is_dir();
                Some((name, dir))
            })
            .filter(|(n, _)| !n.starts_with('.'))
            .collect();
        names.sort();
        for (name, is_dir) in names {
            let path = rel.join(&name);
            if is_dir {
                collect(root, &path, depth + 1, out);
            } else if name.ends_with(".md") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    collect(root, Path::new(""), 0, &mut out);
    out
}

/// Calls `each` with every `.md` file under `root` ([`md_files`]): its
/// relative path, and its text or `None` when it cannot be read as text.
pub(super) fn walk(root: &Path, each: &mut dyn FnMut(&Path, Option<&str>)) {
    for rel in md_files(root) {
        let text = crate::io::read_text_capped(&root.join(&rel), MAX_FILE_BYTES).ok();
        each(&rel, text.as_deref());
    }
}

mod read;
use read::read_entry;
#[cfg(test)]
use read::split_front_matter;
pub use read::{import, read};

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
