//! Saving a book into its folder without touching what is not the
//! book's (docs/markdown-folder.md, "Writing").
//!
//! A book folder sits in an author's repository beside everything else,
//! maybe cloned from somebody else's. So a save:
//!
//! - writes only where the book owns the file: a file it read as its
//!   entry or wrote itself, unchanged since ([`Manifest`]), or one whose
//!   front matter names the very entry being written. A name taken by a
//!   file of somebody else's gets another name (`Harbor (2).md`), and the
//!   save says so ([`Note::SavedUnderName`]);
//! - never follows a symbolic link and never opens anything but a regular
//!   file: a link, FIFO or device where the book wants a file is an error
//!   that names it, and nothing is written;
//! - writes every changed file under a temporary name first and puts them
//!   in place only when all were written, so a file that cannot be written
//!   leaves the folder as it was;
//! - removes only files the manifest says the book owned and that are
//!   unchanged since; a file that appeared during the save, or was edited
//!   since it was read, stays ([`Note::StaleFileKept`]).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::disk::{hash, Manifest, Stamp};
use super::read::{id_in, not_ours};
use super::{
    entry_markdown, file_stem, settings_yaml, BOOK_FILE, FOLDER_FILE, MAX_DEPTH, MAX_FILE_BYTES,
};
use crate::folders::Tree;
use crate::formats::note::Note;
use crate::model::Book;

/// How many threads write a book's changed files at most.
const WRITERS: usize = 32;

/// Whether a name the layout wants is free to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Nothing there, or the book's own file (or directory).
    Free,
    /// Somebody else's file: the entry gets another name.
    Foreign,
}

/// What the layout asks about a name.
#[derive(Debug, Clone, Copy)]
pub(super) enum Claim {
    /// A folder's directory (its `_folder.md` inside must be the folder's).
    Dir { folder: u64 },
    /// An entry's file.
    File { id: u64 },
    /// `book.yaml` or a folder's `_folder.md`, whose names are fixed.
    Fixed,
}

/// One file of the layout.
#[derive(Debug, Clone)]
pub(super) struct Planned {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    /// The name it would have had, when somebody else's file took it.
    pub wanted: Option<PathBuf>,
}

/// Something a save did that the author should hear about: a
/// [`Note::SavedUnderName`] or a [`Note::StaleFileKept`].
pub type SaveNote = Note;

/// What a save did: the folder's new manifest, and what the author should
/// hear about.
#[derive(Debug, Clone, Default)]
pub struct Saved {
    pub manifest: Manifest,
    pub notes: Vec<SaveNote>,
}

/// The book's files, their names chosen with `occupant`'s answers about
/// what is already at each name (see [`Verdict`]).
pub(super) fn layout(
    book: &Book,
    occupant: &mut dyn FnMut(&Path, Claim) -> Result<Verdict, String>,
) -> Result<Vec<Planned>, String> {
    let tree = Tree::of(book);
    let depth = tree.depths(book);
    let folders: Vec<u64> = book
        .entries
        .iter()
        .filter(|e| e.folder)
        .map(|e| e.id)
        .collect();
    if let Some(deepest) = depth.values().max().filter(|&&d| d > MAX_DEPTH) {
        return Err(format!(
            "the book's folders nest {deepest} deep; a book's folder keeps at most {MAX_DEPTH} \
             levels, so nothing was written"
        ));
    }
    let mut by_depth = folders;
    by_depth.sort_by_key(|f| depth[f]);
    let mut names = Names::default();
    let mut planned = Vec::with_capacity(book.entries.len() + 1);
    let mut dirs: HashMap<u64, PathBuf> = HashMap::new();
    let mut dir_wanted: HashMap<u64, PathBuf> = HashMap::new();
    let comment: HashMap<u64, &str> = book
        .entries
        .iter()
        .filter(|e| e.folder)
        .map(|e| (e.id, e.comment.as_str()))
        .collect();
    for f in by_depth {
        let up = tree
            .parent(f)
            .and_then(|p| dirs.get(&p).cloned())
            .unwrap_or_default();
        let (dir, wanted) = names.claim(&up, &file_stem(comment[&f]), f, "", |p| {
            occupant(p, Claim::Dir { folder: f })
        })?;
        if let Some(w) = wanted {
            dir_wanted.insert(f, w);
        }
        dirs.insert(f, dir);
    }
    let settings = PathBuf::from(BOOK_FILE);
    occupant(&settings, Claim::Fixed)?;
    planned.push(Planned {
        path: settings,
        bytes: settings_yaml(book).into_bytes(),
        wanted: None,
    });
    for e in &book.entries {
        let (path, wanted) = if e.folder {
            let path = dirs[&e.id].join(FOLDER_FILE);
            occupant(&path, Claim::Fixed)?;
            (path, dir_wanted.remove(&e.id))
        } else {
            let dir = tree
                .parent(e.id)
                .and_then(|p| dirs.get(&p).cloned())
                .unwrap_or_default();
            names.claim(&dir, &file_stem(e.display_name()), e.id, ".md", |p| {
                occupant(p, Claim::File { id: e.id })
            })?
        };
        planned.push(Planned {
            path,
            bytes: entry_markdown(e).into_bytes(),
            wanted,
        });
    }
    Ok(planned)
}

/// The names taken in each directory of the layout (case aside, for the
/// file systems that ignore it), the layout's own names reserved.
#[derive(Default)]
struct Names {
    taken: HashMap<PathBuf, HashSet<String>>,
}

impl Names {
    /// `dir`'s name for `stem` (with `ext`): made unique among the names
    /// the layout took there with the entry's id (`Harbor #12.md`), and
    /// moved off a name somebody else's file has (`Harbor (2).md`). The
    /// second value is the name it wanted, when it moved off one.
    fn claim(
        &mut self,
        dir: &Path,
        stem: &str,
        id: u64,
        ext: &str,
        mut free: impl FnMut(&Path) -> Result<Verdict, String>,
    ) -> Result<(PathBuf, Option<PathBuf>), String> {
        let names = self.taken.entry(dir.to_path_buf()).or_insert_with(|| {
            let mut reserved = HashSet::from([FOLDER_FILE.to_string()]);
            if dir.as_os_str().is_empty() {
                reserved.insert(BOOK_FILE.to_string());
            }
            reserved
        });
        let (mut ours, mut theirs) = (0u32, 0u32);
        let mut wanted = None;
        for _ in 0..10_000 {
            let mut name = stem.to_string();
            match ours {
                0 => {}
                1 => name.push_str(&format!(" #{id}")),
                n => name.push_str(&format!(" #{id}-{n}")),
            }
            if theirs > 0 {
                name.push_str(&format!(" ({})", theirs + 1));
            }
            name.push_str(ext);
            let key = name.to_lowercase();
            if names.contains(&key) {
                ours += 1;
                continue;
            }
            let path = dir.join(&name);
            match free(&path)? {
                Verdict::Free => {
                    names.insert(key);
                    return Ok((path, wanted));
                }
                Verdict::Foreign => {
                    wanted.get_or_insert_with(|| path.clone());
                    theirs += 1;
                }
            }
        }
        Err(format!(
            "no free name for {stem}{ext} in {}: every one tried is taken",
            dir.display()
        ))
    }
}

/// Writes `book` into `dir` (made when missing), owning what the folder's
/// files say the book owns: the files whose front matter gives an id
/// (what [`save`] decides with no manifest of the book's own). A folder
/// that holds files but no `book.yaml`, or another tool's `book.yaml`, is
/// refused.
pub fn write(book: &Book, dir: &Path) -> Result<Saved, String> {
    save(book, dir, None)
}

/// Saves `book` into `dir` (see the module header). `known` is the
/// manifest of what the book read or last wrote there; without one, a
/// file is the book's when its front matter gives an id, as [`write`]
/// says. Returns the folder's new manifest and what the author should
/// hear about. On an error nothing was changed, unless the error says so.
pub fn save(book: &Book, dir: &Path, known: Option<&Manifest>) -> Result<Saved, String> {
    let shown = dir.display();
    let made_root = check_folder(dir)?;
    let scanned;
    // What is at each name now, as far as the layout asked (a scan just
    // made says it for every file it read, so none is read twice).
    let mut current: HashMap<PathBuf, [u8; 32]> = HashMap::new();
    let known = match known {
        Some(k) => k,
        None => {
            scanned = super::disk::scan(dir)?;
            current.extend(scanned.files.iter().map(|(p, s)| (p.clone(), s.hash)));
            &scanned
        }
    };
    let planned = layout(book, &mut |rel, claim| {
        occupant(dir, known, rel, claim, &mut current)
    });
    let planned = match planned {
        Ok(p) => p,
        Err(e) => {
            if made_root {
                let _ = fs::remove_dir(dir);
            }
            return Err(e);
        }
    };
    // Directories, from the top down.
    let mut wanted_dirs: Vec<PathBuf> = planned
        .iter()
        .filter_map(|p| p.path.parent().map(Path::to_path_buf))
        .filter(|d| !d.as_os_str().is_empty())
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    wanted_dirs.sort_by_key(|d| d.components().count());
    let mut made = Vec::new();
    let undo_dirs = |made: &[PathBuf]| {
        for d in made.iter().rev() {
            let _ = fs::remove_dir(dir.join(d));
        }
        if made_root {
            let _ = fs::remove_dir(dir);
        }
    };
    for d in &wanted_dirs {
        let path = dir.join(d);
        match fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                undo_dirs(&made);
                return Err(format!(
                    "{} is not a folder (a link or a file appeared there during the save); \
                     nothing was written",
                    path.display()
                ));
            }
            Err(_) => match fs::create_dir(&path) {
                Ok(()) => made.push(d.clone()),
                Err(e) => {
                    undo_dirs(&made);
                    return Err(format!("{}: {e}; nothing was written", path.display()));
                }
            },
        }
    }
    // Every changed file under a temporary name, then all put in place.
    let changed: Vec<&Planned> = planned
        .iter()
        .filter(|p| current.get(&p.path) != Some(&hash(&p.bytes)))
        .collect();
    let staged = match stage_all(dir, &changed) {
        Ok(s) => s,
        Err(e) => {
            undo_dirs(&made);
            return Err(format!("{e}; nothing was written, the folder is as it was"));
        }
    };
    let mut touched: HashSet<PathBuf> = HashSet::new();
    let mut left: Vec<String> = Vec::new();
    let mut failed = None;
    for s in staged {
        let target = s.target().to_path_buf();
        if failed.is_some() {
            left.push(target.display().to_string());
            s.discard();
            continue;
        }
        match s.commit() {
            Ok(()) => {
                touched.insert(target.parent().map(Path::to_path_buf).unwrap_or_default());
            }
            Err(e) => {
                failed = Some(format!("{}: {e}", target.display()));
                left.push(target.display().to_string());
            }
        }
    }
    for d in &touched {
        crate::io::sync_dir(d);
    }
    if let Some(e) = failed {
        return Err(format!(
            "{e}; the save stopped part way: {} of the book's changed files in {shown} are still \
             the old ones ({})",
            left.len(),
            left.join(", ")
        ));
    }
    // The files of entries the book no longer has.
    let laid: HashSet<&Path> = planned.iter().map(|p| p.path.as_path()).collect();
    let mut notes: Vec<SaveNote> = planned
        .iter()
        .filter_map(|p| {
            Some(Note::SavedUnderName {
                wanted: p.wanted.as_ref()?.display().to_string(),
                written: p.path.display().to_string(),
            })
        })
        .collect();
    let mut manifest = Manifest::default();
    let mut emptied = HashSet::new();
    for (rel, stamp) in &known.files {
        if laid.contains(rel.as_path()) {
            continue;
        }
        let path = dir.join(rel);
        let now = crate::io::read_capped_no_follow(&path, MAX_FILE_BYTES).ok();
        let same = now.as_ref().is_some_and(|(b, _)| hash(b) == stamp.hash);
        if stamp.owned && same && fs::remove_file(&path).is_ok() {
            if let Some(parent) = rel.parent().filter(|p| !p.as_os_str().is_empty()) {
                emptied.insert(parent.to_path_buf());
            }
            continue;
        }
        if stamp.owned && now.is_some() {
            notes.push(Note::StaleFileKept {
                file: rel.display().to_string(),
            });
        }
        if now.is_some() {
            // Not the book's (or no longer): kept in the manifest as it
            // was, so a change to it is still seen as one.
            manifest.files.insert(
                rel.clone(),
                Stamp {
                    owned: false,
                    ..stamp.clone()
                },
            );
        }
    }
    remove_emptied(dir, emptied);
    for p in &planned {
        let path = dir.join(&p.path);
        if let Ok(meta) = fs::symlink_metadata(&path) {
            manifest
                .files
                .insert(p.path.clone(), Stamp::of(&meta, &p.bytes, true));
        }
    }
    Ok(Saved { manifest, notes })
}

/// Checks the folder a save writes into: made when missing (`Ok(true)`),
/// else a folder that is empty or a book's own (its `book.yaml` says
/// so).
fn check_folder(dir: &Path) -> Result<bool, String> {
    let shown = dir.display();
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(format!("{shown} is a file, not a folder")),
        Err(_) => {
            fs::create_dir_all(dir).map_err(|e| format!("{shown}: {e}"))?;
            return Ok(true);
        }
    }
    let empty = fs::read_dir(dir)
        .map_err(|e| format!("{shown}: {e}"))?
        .next()
        .is_none();
    if empty {
        return Ok(false);
    }
    let settings = dir.join(BOOK_FILE);
    let text = match crate::io::read_capped_no_follow(&settings, MAX_FILE_BYTES) {
        Ok((bytes, _)) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(crate::io::ReadError::Io { error, .. })
            if error.kind() == std::io::ErrorKind::NotFound =>
        {
            return Err(format!(
                "{shown} holds files but no {BOOK_FILE}: not a book's folder, so nothing was written"
            ))
        }
        Err(e) => return Err(format!("{e}; nothing was written")),
    };
    match not_ours(&text) {
        None => Ok(false),
        Some(why) => Err(format!(
            "{shown} is not a Lorebook Studio book's folder: {why}; nothing was written"
        )),
    }
}

/// What is at `rel` for the layout's `claim` (see [`Verdict`]); the hash
/// of a regular file read there goes into `current`.
fn occupant(
    dir: &Path,
    known: &Manifest,
    rel: &Path,
    claim: Claim,
    current: &mut HashMap<PathBuf, [u8; 32]>,
) -> Result<Verdict, String> {
    let path = dir.join(rel);
    let meta = match fs::symlink_metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Verdict::Free),
        Err(e) => return Err(format!("{}: {e}; nothing was written", path.display())),
    };
    let kind = meta.file_type();
    // A regular file the book owns, its bytes just read by a scan: the
    // book's, with no second read.
    if kind.is_file() && !matches!(claim, Claim::Dir { .. }) {
        if let (Some(h), Some(s)) = (current.get(rel), known.files.get(rel)) {
            if s.owned && s.hash == *h {
                return Ok(Verdict::Free);
            }
        }
    }
    if kind.is_symlink() {
        return Err(format!(
            "{} is a symbolic link where the book's {} goes; a book's folder is never written \
             through links, so nothing was written (remove the link, or rename the entry)",
            path.display(),
            if matches!(claim, Claim::Dir { .. }) {
                "folder"
            } else {
                "file"
            }
        ));
    }
    match claim {
        Claim::Dir { folder } => {
            if !kind.is_dir() {
                return Ok(Verdict::Foreign);
            }
            let inside = rel.join(FOLDER_FILE);
            match occupant(dir, known, &inside, Claim::File { id: folder }, current)? {
                Verdict::Free => Ok(Verdict::Free),
                Verdict::Foreign => {
                    current.remove(&inside);
                    Ok(Verdict::Foreign)
                }
            }
        }
        Claim::File { .. } | Claim::Fixed => {
            if kind.is_dir() {
                return match claim {
                    Claim::Fixed => Err(format!(
                        "{} is a folder where the book keeps a file of its own; nothing was written",
                        path.display()
                    )),
                    _ => Ok(Verdict::Foreign),
                };
            }
            let (bytes, _) = crate::io::read_capped_no_follow(&path, MAX_FILE_BYTES)
                .map_err(|e| format!("{e}; the book's file goes there, so nothing was written"))?;
            let h = hash(&bytes);
            current.insert(rel.to_path_buf(), h);
            let Claim::File { id } = claim else {
                return Ok(Verdict::Free);
            };
            let ours = known.files.get(rel).is_some_and(|s| s.owned && s.hash == h)
                || std::str::from_utf8(&bytes).is_ok_and(|t| id_in(t) == Some(id));
            Ok(if ours {
                Verdict::Free
            } else {
                Verdict::Foreign
            })
        }
    }
}

/// Writes each of `changed` under a temporary name beside it, on a few
/// threads (the waits for the disk overlap: 10,000 new files took 6 s one
/// at a time, 2.2–2.6 s this way; BENCHMARKS.md). Where the system refuses
/// a thread, the work is done on fewer. On an error, every file staged is
/// removed again.
fn stage_all(dir: &Path, changed: &[&Planned]) -> Result<Vec<crate::io::Staged>, String> {
    let chunk = changed.len().div_ceil(WRITERS).max(1);
    let stage_part = |part: &[&Planned]| -> Vec<Result<crate::io::Staged, String>> {
        let mut out = Vec::with_capacity(part.len());
        for p in part {
            let path = dir.join(&p.path);
            let r =
                crate::io::stage(&path, &p.bytes).map_err(|e| format!("{}: {e}", path.display()));
            let failed = r.is_err();
            out.push(r);
            if failed {
                break;
            }
        }
        out
    };
    let results: Vec<Result<crate::io::Staged, String>> = std::thread::scope(|s| {
        let mut handles = Vec::new();
        let mut inline = Vec::new();
        for part in changed.chunks(chunk) {
            match std::thread::Builder::new().spawn_scoped(s, move || stage_part(part)) {
                Ok(h) => handles.push(h),
                // No thread to be had (a process or address-space limit):
                // this one does the part.
                Err(_) => inline.extend(stage_part(part)),
            }
        }
        let mut all = inline;
        for h in handles {
            match h.join() {
                Ok(r) => all.extend(r),
                Err(_) => all.push(Err("a writer thread failed".into())),
            }
        }
        all
    });
    let mut staged = Vec::with_capacity(results.len());
    let mut error = None;
    for r in results {
        match r {
            Ok(s) => staged.push(s),
            Err(e) => {
                error.get_or_insert(e);
            }
        }
    }
    if let Some(e) = error {
        for s in staged {
            s.discard();
        }
        return Err(e);
    }
    Ok(staged)
}

/// Removes the directories under `dir` that removing the book's files
/// left empty, deepest first (a parent left empty by its child goes too).
/// Only an empty directory is removed, never a link.
fn remove_emptied(dir: &Path, emptied: HashSet<PathBuf>) {
    let mut dirs: Vec<PathBuf> = emptied
        .into_iter()
        .flat_map(|d| d.ancestors().map(Path::to_path_buf).collect::<Vec<_>>())
        .filter(|d| !d.as_os_str().is_empty())
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    for d in dirs {
        let _ = fs::remove_dir(dir.join(d));
    }
}
