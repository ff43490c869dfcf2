//! Reading a book kept as a folder of Markdown files (see the parent
//! module): `book.yaml`, then every `.md` file under the folder, each read
//! on its own so one bad file is reported and the others are read.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::disk::{self, Found, Manifest, Stamp, MAX_FOLDER_BYTES};
use super::{FileProblem, BOOK_FILE, FOLDER_FILE, FORMAT, MAX_FILE_BYTES, VERSION};
use crate::formats::json::{take_bool, take_i64, take_keys, take_object, take_string, take_u64};
use crate::model::{Book, Entry, Object, Role, SecondaryLogic};

// --- Reading ------------------------------------------------------------

/// The book in `dir` as an import: the native model (`format` Native),
/// with a report naming each file left out.
pub fn import(dir: &Path) -> Result<crate::formats::Imported, String> {
    Ok(load(dir)?.imported())
}

/// A book folder as read: the book, the files left out, the settings
/// clamped, and the manifest of what was read (which files the book owns).
#[derive(Debug, Clone)]
pub struct FolderRead {
    pub book: Book,
    pub problems: Vec<FileProblem>,
    /// Settings clamped to their ranges, as the native reader clamps them.
    pub notes: Vec<crate::formats::note::Note>,
    pub manifest: Manifest,
}

impl FolderRead {
    /// The read as an import: the native model, with a report naming each
    /// file left out and each setting clamped.
    pub fn imported(self) -> crate::formats::Imported {
        import_of(self.book, self.problems, self.notes)
    }
}

fn import_of(
    book: Book,
    problems: Vec<FileProblem>,
    notes: Vec<crate::formats::note::Note>,
) -> crate::formats::Imported {
    let mut report =
        crate::formats::Report::new(crate::formats::report::Direction::Import, "Markdown folder");
    report.notes.extend(notes);
    for p in problems {
        report.notes.push(crate::formats::note::Note::FileNotRead {
            file: p.file,
            problem: p.problem,
        });
    }
    crate::formats::Imported {
        format: crate::formats::Format::Native,
        book,
        report,
    }
}

/// `text` split into its front matter (without the `---` lines) and body.
pub(super) fn split_front_matter(text: &str) -> Result<(&str, &str), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Err("no front matter: the file must start with a line `---`".into());
    };
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end_matches(['\r', '\n']) == "---" {
            let body = &rest[at + line.len()..];
            return Ok((&rest[..at], body.strip_suffix('\n').unwrap_or(body)));
        }
        at += line.len();
    }
    Err("the front matter has no closing `---` line".into())
}

pub(super) fn parse_yaml(text: &str) -> Result<Object, String> {
    if text.trim().is_empty() {
        return Ok(Object::new());
    }
    match super::yaml::parse(text)? {
        Value::Object(o) => Ok(o),
        Value::Null => Ok(Object::new()),
        _ => Err("the YAML is not a map of fields".into()),
    }
}

/// The `id` a file's front matter gives, when the file has front matter
/// that reads and an id in range: what says a file is a given entry's.
pub(super) fn id_in(text: &str) -> Option<u64> {
    let (fm, _) = split_front_matter(text).ok()?;
    parse_yaml(fm)
        .ok()?
        .get("id")?
        .as_u64()
        .filter(|&id| id <= crate::model::MAX_ID)
}

/// Why `settings` (the text of a folder's `book.yaml`) is not a book's
/// settings in this layout, if it is not: its `format` must say so.
pub(super) fn not_ours(settings: &str) -> Option<String> {
    let o = match parse_yaml(settings) {
        Ok(o) => o,
        Err(e) => return Some(format!("its {BOOK_FILE} does not read ({e})")),
    };
    match o.get("format").and_then(Value::as_str) {
        Some(FORMAT) => None,
        Some(other) => Some(format!(
            "its {BOOK_FILE} is another tool's (format \"{other}\", not \"{FORMAT}\")"
        )),
        None => Some(format!(
            "its {BOOK_FILE} is another tool's (it has no `format: {FORMAT}` line)"
        )),
    }
}

/// One entry file read: the entry (its id `None` when the file has none).
pub(super) fn read_entry(text: &str, folder: bool) -> Result<(Entry, Option<u64>), String> {
    let (fm, body) = split_front_matter(text)?;
    let mut o = parse_yaml(fm)?;
    let err = |e: crate::formats::error::ImportError| e.to_string();
    let path = "front matter";
    let mut e = Entry {
        folder,
        ..Entry::default()
    };
    let id = take_u64(&mut o, "id", path)
        .map_err(err)?
        .filter(|&id| id <= crate::model::MAX_ID);
    e.comment = take_string(&mut o, "comment", path)
        .map_err(err)?
        .unwrap_or_default();
    e.keys = take_keys(&mut o, "keys", path).map_err(err)?;
    e.secondary_keys = take_keys(&mut o, "secondary_keys", path).map_err(err)?;
    let flag = |o: &mut Object, k: &str, d: bool| -> Result<bool, String> {
        Ok(take_bool(o, k, path).map_err(err)?.unwrap_or(d))
    };
    e.selective = flag(&mut o, "selective", e.selective)?;
    e.constant = flag(&mut o, "constant", e.constant)?;
    e.enabled = flag(&mut o, "enabled", e.enabled)?;
    e.whole_words = flag(&mut o, "whole_words", e.whole_words)?;
    e.case_sensitive = flag(&mut o, "case_sensitive", e.case_sensitive)?;
    e.use_regex = flag(&mut o, "use_regex", e.use_regex)?;
    if let Some(s) = take_string(&mut o, "secondary_logic", path).map_err(err)? {
        e.secondary_logic = [
            SecondaryLogic::AndAny,
            SecondaryLogic::AndAll,
            SecondaryLogic::NotAny,
            SecondaryLogic::NotAll,
        ]
        .into_iter()
        .find(|l| l.as_str() == s)
        .ok_or_else(|| {
            format!("secondary_logic \"{s}\" is not and_any, and_all, not_any or not_all")
        })?;
    }
    if let Some(s) = take_string(&mut o, "role", path).map_err(err)? {
        e.role = Role::parse(&s)
            .ok_or_else(|| format!("role \"{s}\" is not system, user or assistant"))?;
    }
    e.order = take_i64(&mut o, "order", path)
        .map_err(err)?
        .unwrap_or(e.order);
    e.priority = take_i64(&mut o, "priority", path)
        .map_err(err)?
        .unwrap_or(e.priority);
    let decorators = take_keys(&mut o, "decorators", path).map_err(err)?;
    e.content = if decorators.is_empty() {
        body.to_string()
    } else {
        format!("{}\n{body}", decorators.join("\n"))
    };
    e.extensions = take_object(&mut o, "extensions", path)
        .map_err(err)?
        .unwrap_or_default();
    let mut extra = take_object(&mut o, "extra", path)
        .map_err(err)?
        .unwrap_or_default();
    // Fields added by hand that the layout does not know are kept.
    for (k, v) in o {
        extra.entry(k).or_insert(v);
    }
    e.extra = extra;
    Ok((e, id))
}

/// Reads the book in `dir`; the files that could not be read are listed
/// (and left out), never an error for the whole book unless its
/// [`BOOK_FILE`] is missing, unreadable or another tool's, or the folder
/// is over its caps ([`disk::MAX_FILES`], [`MAX_FOLDER_BYTES`]).
pub fn read(dir: &Path) -> Result<(Book, Vec<FileProblem>), String> {
    let r = load(dir)?;
    Ok((r.book, r.problems))
}

/// [`read`], with the settings clamped and the manifest of what was read.
pub fn load(dir: &Path) -> Result<FolderRead, String> {
    let shown = dir.display();
    let settings_path = dir.join(BOOK_FILE);
    let (bytes, meta) = crate::io::read_capped_no_follow(&settings_path, MAX_FILE_BYTES)
        .map_err(|e| format!("{shown}: not a book's folder ({BOOK_FILE}: {e})"))?;
    let mut manifest = Manifest::default();
    manifest
        .files
        .insert(PathBuf::from(BOOK_FILE), Stamp::of(&meta, &bytes, true));
    let text = crate::io::text_of(&settings_path, bytes)
        .map_err(|e| format!("{shown}: not a book's folder ({e})"))?;
    if let Some(why) = not_ours(&text) {
        return Err(format!(
            "{shown} is not a Lorebook Studio book's folder: {why}; it is never read or written as a book"
        ));
    }
    let mut o = parse_yaml(&text).map_err(|e| format!("{}: {e}", settings_path.display()))?;
    let path = BOOK_FILE;
    let err = |e: crate::formats::error::ImportError| format!("{shown}: {e}");
    if let Some(v) = take_u64(&mut o, "version", path).map_err(err)? {
        if v > VERSION {
            return Err(format!(
                "{shown}: layout version {v} is newer than this app reads ({VERSION})"
            ));
        }
    }
    o.remove("format");
    let mut book = Book {
        name: take_string(&mut o, "name", path)
            .map_err(err)?
            .unwrap_or_default(),
        description: take_string(&mut o, "description", path)
            .map_err(err)?
            .unwrap_or_default(),
        ..Book::default()
    };
    if let Some(d) = take_u64(&mut o, "scan_depth", path).map_err(err)? {
        book.scan_depth = d.min(u64::from(u32::MAX)) as u32;
    }
    if let Some(b) = take_u64(&mut o, "token_budget", path).map_err(err)? {
        book.token_budget = b.min(u64::from(u32::MAX)) as u32;
    }
    if let Some(r) = take_bool(&mut o, "recursive_scanning", path).map_err(err)? {
        book.recursive_scanning = r;
    }
    book.extensions = take_object(&mut o, "extensions", path)
        .map_err(err)?
        .unwrap_or_default();
    book.wrapper_extra = take_object(&mut o, "wrapper_extra", path)
        .map_err(err)?
        .unwrap_or_default();
    let order: Vec<u64> = match o.remove("order") {
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_u64).collect(),
        _ => Vec::new(),
    };
    let mut extra = take_object(&mut o, "extra", path)
        .map_err(err)?
        .unwrap_or_default();
    for (k, v) in o {
        extra.entry(k).or_insert(v);
    }
    book.extra = extra;

    let notes: Vec<crate::formats::note::Note> =
        book.clamp_settings().into_iter().map(Into::into).collect();

    // Every file, with the directory it is in.
    let listed = disk::list(dir)?;
    let total: u64 = listed
        .iter()
        .map(|(_, f)| match f {
            Found::File { len } => *len,
            _ => 0,
        })
        .sum();
    if total > MAX_FOLDER_BYTES {
        return Err(too_large(dir));
    }
    let mut problems = Vec::new();
    let mut read: Vec<(PathBuf, Entry, Option<u64>)> = Vec::new();
    let mut spent = 0u64;
    for (rel, found) in listed {
        if rel == Path::new(BOOK_FILE) {
            continue;
        }
        let file = rel.to_string_lossy().into_owned();
        let problem = match found {
            Found::Link => {
                problems.push(FileProblem {
                    file,
                    problem: "a symbolic link: links are never followed in a book's folder".into(),
                });
                continue;
            }
            Found::Special(kind) => {
                problems.push(FileProblem {
                    file,
                    problem: format!("a {kind}, not a regular file: never opened"),
                });
                continue;
            }
            Found::File { .. } => {
                let path = dir.join(&rel);
                match crate::io::read_capped_no_follow(&path, MAX_FILE_BYTES) {
                    Err(e) => e.to_string(),
                    Ok((bytes, meta)) => {
                        spent += bytes.len() as u64;
                        if spent > MAX_FOLDER_BYTES {
                            return Err(too_large(dir));
                        }
                        let stamp = Stamp::of(&meta, &bytes, false);
                        let folder = rel.file_name().is_some_and(|n| n == FOLDER_FILE);
                        let outcome = std::str::from_utf8(&bytes)
                            .map_err(|e| {
                                format!(
                                    "cannot be read as UTF-8 text (invalid byte at offset {})",
                                    e.valid_up_to()
                                )
                            })
                            .and_then(|text| read_entry(text, folder));
                        let owned = outcome.is_ok();
                        manifest.files.insert(rel.clone(), Stamp { owned, ..stamp });
                        match outcome {
                            Ok((e, id)) => {
                                read.push((rel, e, id));
                                continue;
                            }
                            Err(problem) => problem,
                        }
                    }
                }
            }
        };
        problems.push(FileProblem { file, problem });
    }
    // Ids: the file's own, unless missing or already taken.
    let mut used: HashSet<u64> = HashSet::new();
    let mut fresh = Vec::new();
    for (i, (_, e, id)) in read.iter_mut().enumerate() {
        match *id {
            Some(id) if used.insert(id) => e.id = id,
            _ => fresh.push(i),
        }
    }
    let mut ids = FreshIds::after(&used);
    for i in fresh {
        read[i].1.id = ids.take(&mut used);
    }
    // Each directory's folder: its `_folder.md`, or one made for a
    // directory that has none.
    let mut folder_of: HashMap<PathBuf, u64> = read
        .iter()
        .filter(|(_, e, _)| e.folder)
        .filter_map(|(p, e, _)| Some((p.parent()?.to_path_buf(), e.id)))
        .collect();
    let dirs: Vec<PathBuf> = read
        .iter()
        .flat_map(|(p, e, _)| {
            let skip = usize::from(e.folder);
            p.ancestors()
                .skip(1 + skip)
                .map(Path::to_path_buf)
                .collect::<Vec<_>>()
        })
        .filter(|d| !d.as_os_str().is_empty())
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let mut dirs = dirs;
    dirs.sort();
    for d in dirs {
        if folder_of.contains_key(&d) {
            continue;
        }
        let next = ids.take(&mut used);
        let name = d
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        read.push((
            d.join(FOLDER_FILE),
            Entry {
                id: next,
                comment: name,
                folder: true,
                ..Entry::default()
            },
            None,
        ));
        folder_of.insert(d, next);
    }
    for (p, e, _) in &mut read {
        let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
        let holder = if e.folder {
            dir.parent().map(Path::to_path_buf)
        } else {
            Some(dir)
        };
        e.parent = holder.and_then(|d| folder_of.get(&d).copied());
    }
    // The book's order: `order`, then the rest as the files come.
    let rank: HashMap<u64, usize> = order.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let mut entries: Vec<(usize, usize, Entry)> = read
        .into_iter()
        .enumerate()
        .map(|(i, (_, e, _))| (rank.get(&e.id).copied().unwrap_or(usize::MAX), i, e))
        .collect();
    entries.sort_by_key(|(r, i, _)| (*r, *i));
    book.entries = entries.into_iter().map(|(_, _, e)| e).collect();
    crate::folders::repair(&mut book);
    Ok(FolderRead {
        book,
        problems,
        notes,
        manifest,
    })
}

/// The refusal of a folder whose files hold more than a book may.
fn too_large(dir: &Path) -> String {
    format!(
        "{}: its files hold more than {} MiB together, the most a book may; such folders are refused",
        dir.display(),
        MAX_FOLDER_BYTES >> 20
    )
}

/// Ids for entries that came without one, as [`Book::fresh_ids`] chooses
/// them: after the largest in use, then the smallest free ones once that
/// would pass [`crate::model::MAX_ID`] (one past it is not an exact
/// integer in the JSON the other formats write).
struct FreshIds {
    next: u64,
}

impl FreshIds {
    fn after(used: &HashSet<u64>) -> FreshIds {
        FreshIds {
            next: used.iter().max().map_or(0, |m| m.saturating_add(1)),
        }
    }

    fn take(&mut self, used: &mut HashSet<u64>) -> u64 {
        loop {
            if self.next > crate::model::MAX_ID {
                self.next = 0;
            }
            let id = self.next;
            self.next += 1;
            if used.insert(id) {
                return id;
            }
        }
    }
}
