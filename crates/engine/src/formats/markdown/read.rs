//! Reading a book kept as a folder of Markdown files (see the parent
//! module): `book.yaml`, then every `.md` file under the folder, each read
//! on its own so one bad file is reported and the others are read.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{walk, FileProblem, BOOK_FILE, FOLDER_FILE, MAX_FILE_BYTES, VERSION};
use crate::formats::json::{take_bool, take_i64, take_keys, take_object, take_string, take_u64};
use crate::model::{Book, Entry, Object, Role, SecondaryLogic};

// --- Reading ------------------------------------------------------------

/// The book in `dir` as an import: the native model (`format` Native),
/// with a report naming each file left out.
pub fn import(dir: &Path) -> Result<crate::formats::Imported, String> {
    let (book, problems) = read(dir)?;
    let mut report =
        crate::formats::Report::new(crate::formats::report::Direction::Import, "Markdown folder");
    for p in problems {
        report.notes.push(crate::formats::note::Note::FileNotRead {
            file: p.file,
            problem: p.problem,
        });
    }
    Ok(crate::formats::Imported {
        format: crate::formats::Format::Native,
        book,
        report,
    })
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

fn parse_yaml(text: &str) -> Result<Object, String> {
    if text.trim().is_empty() {
        return Ok(Object::new());
    }
    match serde_norway::from_str::<Value>(text) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(Value::Null) => Ok(Object::new()),
        Ok(_) => Err("the YAML is not a map of fields".into()),
        Err(e) => Err(format!("the YAML does not read: {e}")),
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
/// [`BOOK_FILE`] is missing or unreadable.
pub fn read(dir: &Path) -> Result<(Book, Vec<FileProblem>), String> {
    let shown = dir.display();
    let settings_path = dir.join(BOOK_FILE);
    let text = crate::io::read_text_capped(&settings_path, MAX_FILE_BYTES)
        .map_err(|e| format!("{shown}: not a book's folder ({BOOK_FILE}: {e})"))?;
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

    // Every file, with the directory it is in.
    let mut problems = Vec::new();
    let mut read: Vec<(PathBuf, Entry, Option<u64>)> = Vec::new();
    walk(dir, &mut |rel, text| {
        let file = rel.to_string_lossy().into_owned();
        let folder = rel.file_name().is_some_and(|n| n == FOLDER_FILE);
        let Some(text) = text else {
            problems.push(FileProblem {
                file,
                problem: "cannot be read as UTF-8 text".into(),
            });
            return;
        };
        match read_entry(text, folder) {
            Ok((e, id)) => read.push((rel.to_path_buf(), e, id)),
            Err(problem) => problems.push(FileProblem { file, problem }),
        }
    });
    // Ids: the file's own, unless missing or already taken.
    let mut used: HashSet<u64> = HashSet::new();
    let mut fresh = Vec::new();
    for (i, (_, e, id)) in read.iter_mut().enumerate() {
        match *id {
            Some(id) if used.insert(id) => e.id = id,
            _ => fresh.push(i),
        }
    }
    let mut next = used.iter().max().map_or(0, |m| m + 1);
    for i in fresh {
        while used.contains(&next) {
            next += 1;
        }
        read[i].1.id = next;
        used.insert(next);
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
        while used.contains(&next) {
            next += 1;
        }
        used.insert(next);
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
    Ok((book, problems))
}
