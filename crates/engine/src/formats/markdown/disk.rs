//! Which files belong to a book folder, and what each looked like when
//! the book last read or wrote it ([`Manifest`]).
//!
//! The layout decides this here and nowhere else: the reader reads what
//! [`list`] lists, the writer replaces or removes only what a
//! [`Manifest`] says the book owns, and the app's change check compares a
//! manifest with the folder ([`Manifest::check`]) instead of walking it
//! again.
//!
//! **Invariants.** A symbolic link is never followed: a link in the
//! folder is listed as a link (the reader reports it, the writer refuses
//! to write where one is) and a linked directory is never entered. Hidden
//! directories (`.git`) are never entered. Nothing but a regular file is
//! ever opened, so a FIFO or a device cannot stall a read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{BOOK_FILE, MAX_DEPTH, MAX_FILE_BYTES};

/// The most `.md` files a book folder may hold: twice the largest book
/// this editor is measured on (BENCHMARKS.md), so a folder of millions of
/// empty files is refused instead of read.
pub const MAX_FILES: usize = 200_000;

/// The most bytes a book folder's files may hold together: the cap of a
/// book file ([`crate::formats::MAX_FILE_BYTES`]).
pub const MAX_FOLDER_BYTES: u64 = crate::formats::MAX_FILE_BYTES;

/// What one file found in a book folder is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// A regular file: `book.yaml` or a `.md` file.
    File { len: u64 },
    /// A symbolic link at a `.md` name or to a directory: never followed.
    Link,
    /// A FIFO, socket or device at a `.md` name: never opened.
    Special(&'static str),
}

/// Every file of the layout under `root`, relative to it, directories in
/// name order (see the module header): `book.yaml` at the top, `.md` files
/// at most [`MAX_DEPTH`] deep, and the links and special files found at
/// such names (and links to directories) so that the reader can name them.
pub fn list(root: &Path) -> Result<Vec<(PathBuf, Found)>, String> {
    let mut out = Vec::new();
    visit(root, Path::new(""), 0, &mut out)?;
    Ok(out)
}

/// [`list`] below `rel`, `depth` levels down.
fn visit(
    root: &Path,
    rel: &Path,
    depth: usize,
    out: &mut Vec<(PathBuf, Found)>,
) -> Result<(), String> {
    let Ok(read) = std::fs::read_dir(root.join(rel)) else {
        return Ok(());
    };
    // The entry's own type and size (never a link's target), asked of the
    // open directory rather than by path.
    let mut names: Vec<(String, std::fs::FileType, u64)> = read
        .filter_map(Result::ok)
        .filter_map(|d| {
            let name = d.file_name().into_string().ok()?;
            let kind = d.file_type().ok()?;
            let len = if kind.is_file() {
                d.metadata().map_or(0, |m| m.len())
            } else {
                0
            };
            Some((name, kind, len))
        })
        .filter(|(n, _, _)| !n.starts_with('.'))
        .collect();
    names.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, kind, len) in names {
        let path = rel.join(&name);
        let layout = name.ends_with(".md") || (depth == 0 && name == BOOK_FILE);
        if kind.is_dir() {
            if depth < MAX_DEPTH {
                visit(root, &path, depth + 1, out)?;
            }
            continue;
        }
        if kind.is_symlink() {
            let to_dir = std::fs::metadata(root.join(&path)).is_ok_and(|m| m.is_dir());
            if layout || to_dir {
                out.push((path, Found::Link));
            }
        } else if layout {
            let found = if kind.is_file() {
                Found::File { len }
            } else {
                Found::Special(special(&kind))
            };
            out.push((path, found));
        }
        if out.len() > MAX_FILES {
            return Err(format!(
                "{} holds more than {MAX_FILES} Markdown files; such folders are refused",
                root.display()
            ));
        }
    }
    Ok(())
}

/// What a file that is neither regular, a directory nor a link is.
fn special(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "FIFO (named pipe)";
        }
        if kind.is_socket() {
            return "socket";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "device";
        }
    }
    let _ = kind;
    "special file"
}

/// What a file of a book folder looked like when the book read or wrote
/// it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub len: u64,
    pub modified: Option<SystemTime>,
    /// The inode and status-change time where the system keeps them:
    /// what a copy that keeps modification times (`rsync -t`) or an
    /// editor's rename still changes.
    #[serde(default)]
    pub status: Option<(u64, i64, i64)>,
    pub hash: [u8; 32],
    /// Whether the file is the book's: its settings, a file it read as
    /// one of its entries, or one it wrote. Only such a file is ever
    /// replaced or removed by a save, and only while unchanged.
    pub owned: bool,
}

impl Stamp {
    /// The stamp of a file whose metadata is `meta` and bytes `bytes`.
    pub fn of(meta: &std::fs::Metadata, bytes: &[u8], owned: bool) -> Stamp {
        Stamp {
            len: bytes.len() as u64,
            modified: meta.modified().ok(),
            status: status(meta),
            hash: hash(bytes),
            owned,
        }
    }

    /// Whether `meta` shows the file as it was stamped, without reading
    /// it.
    fn looks_same(&self, meta: &std::fs::Metadata) -> bool {
        meta.len() == self.len
            && meta.modified().ok() == self.modified
            && status(meta) == self.status
    }
}

/// The inode and status-change time of `meta`, where kept.
fn status(meta: &std::fs::Metadata) -> Option<(u64, i64, i64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.ino(), meta.ctime(), meta.ctime_nsec()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// The SHA-256 of `bytes`.
pub fn hash(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The files of a book folder as its book last read or wrote them, each
/// path relative to the folder: every regular file of the layout that
/// was there ([`list`]), owned or not.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub files: BTreeMap<PathBuf, Stamp>,
}

/// How a folder compares with its manifest ([`Manifest::check`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// Every file as stamped.
    Same,
    /// Times or sizes moved, no file's bytes did (a `touch`, a copy of
    /// the same bytes): the manifest to keep, so they are not read again.
    Touched(Manifest),
    /// A file of the layout was edited, added, removed or cannot be
    /// read: what the folder holds now.
    Changed(Manifest),
    /// The folder is gone, or no longer a book's.
    Gone,
}

impl Manifest {
    /// Takes as the book's again, as they are now, the files it owned
    /// that changed since (an editor, a `git pull`) and whose front matter
    /// still names one of `ids`: what a save the author chose to make over
    /// those changes (Overwrite) may then replace or remove. A file that
    /// was not the book's stays not the book's.
    pub fn adopt_changed(&mut self, dir: &Path, ids: &std::collections::HashSet<u64>) {
        for (rel, stamp) in &mut self.files {
            if !stamp.owned {
                continue;
            }
            let Ok((bytes, meta)) =
                crate::io::read_capped_no_follow(&dir.join(rel), MAX_FILE_BYTES)
            else {
                continue;
            };
            let h = hash(&bytes);
            if h == stamp.hash {
                continue;
            }
            let still = std::str::from_utf8(&bytes)
                .ok()
                .and_then(super::read::id_in)
                .is_some_and(|id| ids.contains(&id));
            if still {
                *stamp = Stamp::of(&meta, &bytes, true);
            }
        }
    }

    /// Compares the folder at `dir` with the manifest: each file's size,
    /// times and inode first, and its bytes only where those moved.
    pub fn check(&self, dir: &Path) -> Check {
        if !super::is_book_folder(dir) {
            return Check::Gone;
        }
        let Ok(listed) = list(dir) else {
            return Check::Changed(Manifest::default());
        };
        let mut now = Manifest::default();
        let mut changed = false;
        let mut touched = false;
        for (rel, found) in listed {
            let Found::File { .. } = found else { continue };
            let path = dir.join(&rel);
            let old = self.files.get(&rel);
            let meta = std::fs::symlink_metadata(&path).ok();
            if let (Some(old), Some(meta)) = (old, &meta) {
                if old.looks_same(meta) {
                    now.files.insert(rel, old.clone());
                    continue;
                }
            }
            let Ok((bytes, meta)) = crate::io::read_capped_no_follow(&path, MAX_FILE_BYTES) else {
                changed = true;
                continue;
            };
            let owned = old.is_some_and(|o| o.owned);
            let stamp = Stamp::of(&meta, &bytes, owned);
            match old {
                Some(o) if o.hash == stamp.hash => touched = true,
                _ => changed = true,
            }
            now.files.insert(rel, stamp);
        }
        if self.files.keys().any(|k| !now.files.contains_key(k)) {
            changed = true;
        }
        if changed {
            Check::Changed(now)
        } else if touched {
            Check::Touched(now)
        } else {
            Check::Same
        }
    }
}

/// The manifest a save without one goes by: every regular file of the
/// layout, the book's when its front matter gives an id (and the
/// settings).
pub(super) fn scan(dir: &Path) -> Result<Manifest, String> {
    let mut manifest = Manifest::default();
    for (rel, found) in super::disk::list(dir)? {
        let Found::File { .. } = found else { continue };
        let Ok((bytes, meta)) = crate::io::read_capped_no_follow(&dir.join(&rel), MAX_FILE_BYTES)
        else {
            continue;
        };
        let owned = rel == Path::new(BOOK_FILE)
            || std::str::from_utf8(&bytes).is_ok_and(|t| super::read::id_in(t).is_some());
        manifest.files.insert(rel, Stamp::of(&meta, &bytes, owned));
    }
    Ok(manifest)
}
