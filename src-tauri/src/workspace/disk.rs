//! Noticing that a book's file changed behind the app's back.
//!
//! Each open book remembers what its file looked like when it was opened or
//! last saved: size, modification time and a SHA-256 of its bytes. Saving
//! over a file that no longer matches is refused with
//! [`crate::error::ErrorKind::ChangedOnDisk`] unless the user chose to overwrite, and
//! [`Workspace::disk_changes`] tells the UI, when the files followed by
//! `crate::watch` changed or the window regains focus, which books changed:
//! the UI reads an unmodified one again and asks about one with unsaved
//! changes.
//!
//! **Invariant:** size and time are only a fast path; a file whose size or
//! time differ but whose bytes are the same (a `touch`, a copy back) is not
//! a change.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use lorebook_engine::formats::{self, native};
use sha2::{Digest, Sha256};

use super::history::History;
use super::Workspace;
use crate::error::{read_book_file, AppError, ErrorCode};
use crate::views::DiskChange;

/// What a file looked like when the app last read or wrote it (kept in
/// recovery sidecars, so a restored book still knows it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Fingerprint {
    len: u64,
    modified: Option<SystemTime>,
    hash: [u8; 32],
}

impl Fingerprint {
    /// The fingerprint of `path`, whose content is `bytes` (just read or
    /// just written).
    pub fn of(path: &Path, bytes: &[u8]) -> Fingerprint {
        Fingerprint {
            len: bytes.len() as u64,
            modified: std::fs::metadata(path).and_then(|m| m.modified()).ok(),
            hash: Sha256::digest(bytes).into(),
        }
    }

    /// The fingerprint of a book kept as a folder of Markdown files
    /// (`formats::markdown`): its files' total size, the newest time among
    /// them and their directories (a rename or a removal changes a
    /// directory's), and a SHA-256 over each file's path and bytes.
    pub fn of_folder(dir: &Path) -> Fingerprint {
        let mut hash = Sha256::new();
        let (len, modified) = folder_stat(dir, &mut |rel, path| {
            hash.update(rel.to_string_lossy().as_bytes());
            hash.update([0]);
            hash.update(std::fs::read(path).unwrap_or_default());
            hash.update([0]);
        });
        Fingerprint {
            len,
            modified,
            hash: hash.finalize().into(),
        }
    }

    /// A fingerprint no file matches: the file's state is not known (a
    /// recovery copy written before fingerprints were kept), so saving over
    /// it asks first.
    pub fn unknown() -> Fingerprint {
        Fingerprint {
            len: u64::MAX,
            modified: None,
            hash: [0; 32],
        }
    }

    /// How the file at `path` differs from `self`; `None` when it is the
    /// same.
    fn changed(&self, path: &Path) -> Option<Change> {
        let Ok(meta) = std::fs::metadata(path) else {
            return Some(Change::Gone);
        };
        if meta.is_dir() {
            if !formats::markdown::is_book_folder(path) {
                return Some(Change::Gone);
            }
            if folder_stat(path, &mut |_, _| {}) == (self.len, self.modified) {
                return None;
            }
            let now = Fingerprint::of_folder(path);
            return Some(if now.hash != self.hash {
                Change::Edited(now)
            } else {
                Change::Same(now)
            });
        }
        if meta.len() == self.len && meta.modified().ok() == self.modified {
            return None;
        }
        let Ok(bytes) = formats::read_limited(path) else {
            return Some(Change::Unreadable);
        };
        let now = Fingerprint::of(path, &bytes);
        Some(if now.hash != self.hash {
            Change::Edited(now)
        } else {
            Change::Same(now)
        })
    }
}

/// The total size of a book folder's files (`book.yaml` and every `.md`
/// file, hidden directories skipped) and the newest time among them and
/// their directories; `each` is given every file, in a fixed order.
fn folder_stat(dir: &Path, each: &mut dyn FnMut(&Path, &Path)) -> (u64, Option<SystemTime>) {
    fn walk(
        root: &Path,
        rel: &Path,
        depth: usize,
        acc: &mut (u64, Option<SystemTime>),
        each: &mut dyn FnMut(&Path, &Path),
    ) {
        let here = root.join(rel);
        let newest = |acc: &mut (u64, Option<SystemTime>), t: Option<SystemTime>| {
            acc.1 = acc.1.max(t);
        };
        newest(
            acc,
            std::fs::metadata(&here).and_then(|m| m.modified()).ok(),
        );
        let Ok(read) = std::fs::read_dir(&here) else {
            return;
        };
        let mut names: Vec<_> = read
            .filter_map(Result::ok)
            .filter(|d| !d.file_name().to_string_lossy().starts_with('.'))
            .collect();
        names.sort_by_key(|d| d.file_name());
        for d in names {
            let Ok(meta) = d.metadata() else { continue };
            let r = rel.join(d.file_name());
            if meta.is_dir() {
                if depth < 64 {
                    walk(root, &r, depth + 1, acc, each);
                }
                continue;
            }
            let name = d.file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".md") || (depth == 0 && name == formats::markdown::BOOK_FILE) {
                acc.0 += meta.len();
                newest(acc, meta.modified().ok());
                each(&r, &d.path());
            }
        }
    }
    let mut acc = (0, None);
    walk(dir, Path::new(""), 0, &mut acc, each);
    acc
}

/// How a file differs from its fingerprint.
enum Change {
    /// Its size or time changed, its bytes did not (a `touch`, a copy of
    /// the same bytes): no change, with the fingerprint to keep so the
    /// bytes are not read again at the next check.
    Same(Fingerprint),
    Gone,
    /// Its size or time changed and its bytes cannot be read to compare.
    Unreadable,
    Edited(Fingerprint),
}

impl Workspace {
    /// Refuses to save `doc` over its file when the file changed since it
    /// was opened or saved, unless `overwrite`.
    pub(super) fn check_unchanged(&self, doc: u32, overwrite: bool) -> Result<(), AppError> {
        let d = self.doc(doc)?;
        let (Some(path), Some(seen)) = (&d.path, &d.disk) else {
            return Ok(());
        };
        if overwrite {
            return Ok(());
        }
        let gone = match seen.changed(path) {
            None | Some(Change::Same(_)) => return Ok(()),
            Some(Change::Gone) => true,
            Some(Change::Unreadable | Change::Edited(_)) => false,
        };
        Err(AppError::changed_on_disk(path, gone))
    }

    /// The files (or folders) of the open books, which the app follows for
    /// outside edits (`crate::watch`).
    pub fn book_paths(&self) -> Vec<PathBuf> {
        self.docs.iter().filter_map(|d| d.path.clone()).collect()
    }

    /// The open books whose files changed on disk since they were opened
    /// or saved, with whether they have unsaved changes, each reported
    /// once per change so that a user who keeps their version is not asked
    /// again at every focus.
    pub fn disk_changes(&mut self) -> Vec<DiskChange> {
        let mut changed = Vec::new();
        for d in &mut self.docs {
            let (Some(path), Some(seen)) = (&d.path, &d.disk) else {
                continue;
            };
            let now = match seen.changed(path) {
                Some(Change::Edited(now)) => now,
                Some(Change::Same(now)) => {
                    d.disk = Some(now);
                    continue;
                }
                _ => continue,
            };
            if d.disk_reported.as_ref() != Some(&now) {
                d.disk_reported = Some(now);
                changed.push(DiskChange {
                    doc: d.id,
                    dirty: d.dirty(),
                });
            }
        }
        changed
    }

    /// Reads `doc` again from its file, dropping its edits and undo
    /// history; unless `unless_edited` and the book has unsaved changes by
    /// now (an edit sent while the reload was being decided), which are
    /// then kept and nothing is read (`Ok(false)`).
    pub fn reload(&mut self, doc: u32, unless_edited: bool) -> Result<bool, AppError> {
        if unless_edited && self.doc(doc)?.dirty() {
            return Ok(false);
        }
        let path = self.doc(doc)?.path.clone().ok_or_else(|| {
            AppError::invalid(
                "this book has no file to reload from: it was never saved",
                ErrorCode::NeverSaved,
            )
        })?;
        let (book, _, seen) = read_steady(&path)?;
        let d = self.doc_mut(doc)?;
        d.book = book;
        d.history = History::saved();
        d.disk = Some(seen);
        d.disk_reported = None;
        self.books_changed();
        Ok(true)
    }
}

/// How many times [`read_steady`] reads a folder that keeps changing.
const STEADY_TRIES: usize = 5;

/// The book at `path` (a book file, or a book kept as a folder), with the
/// fingerprint of what was read, not of what the files became while they
/// were read: a file's time is taken before its bytes (a later change
/// then shows as a change), and a folder is read again while its sizes
/// and times moved during the read (a `git checkout` in progress), at
/// most [`STEADY_TRIES`] times, after which its fingerprint is one no
/// folder matches, so the next check reads it again and a save asks
/// first.
pub(super) fn read_steady(
    path: &Path,
) -> Result<
    (
        lorebook_engine::model::Book,
        Vec<formats::note::Note>,
        Fingerprint,
    ),
    AppError,
> {
    if !path.is_dir() {
        let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        let bytes = read_book_file(path)?;
        let (book, notes) = native::load(&bytes).map_err(|e| AppError::not_a_book(path, &e))?;
        let seen = Fingerprint {
            len: bytes.len() as u64,
            modified,
            hash: Sha256::digest(&bytes).into(),
        };
        return Ok((book, notes, seen));
    }
    let mut last = None;
    for _ in 0..STEADY_TRIES {
        let before = folder_stat(path, &mut |_, _| {});
        let (book, notes) = read_folder(path)?;
        let seen = Fingerprint::of_folder(path);
        if (seen.len, seen.modified) == before {
            return Ok((book, notes, seen));
        }
        last = Some((book, notes));
    }
    let (book, notes) = match last {
        Some(read) => read,
        None => read_folder(path)?,
    };
    Ok((book, notes, Fingerprint::unknown()))
}

/// Reads the book kept as a folder of Markdown files at `dir`, with a note
/// per file left out (`formats::markdown`).
pub(super) fn read_folder(
    dir: &Path,
) -> Result<(lorebook_engine::model::Book, Vec<formats::note::Note>), AppError> {
    let imported = formats::markdown::import(dir).map_err(|e| {
        AppError::invalid(
            e.clone(),
            ErrorCode::NotABookFolder {
                file: dir.display().to_string(),
                detail: e,
            },
        )
    })?;
    Ok((imported.book, imported.report.notes))
}

#[cfg(test)]
mod tests {
    use super::super::Workspace;
    use crate::error::ErrorKind;
    use crate::views::DiskChange;

    fn open_copy(name: &str) -> (Workspace, u32, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("lbs-disk-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("book.json");
        std::fs::write(&path, super::super::SAMPLE_BOOK).unwrap();
        let mut ws = Workspace::default();
        let doc = ws.open_path(&path).unwrap().doc;
        (ws, doc, path)
    }

    /// An edit that makes `doc` dirty.
    fn edit(ws: &mut Workspace, doc: u32) {
        let mut e = ws.entry(doc, 1).unwrap().entry;
        e.keys.push("edited".into());
        ws.update_entry(doc, e).unwrap();
    }

    #[test]
    fn saving_over_a_file_changed_on_disk_asks_first() {
        let (mut ws, doc, path) = open_copy("save");
        edit(&mut ws, doc);
        std::fs::write(&path, "{\"entries\": {}}").unwrap();
        let err = ws.save(doc, None, false).unwrap_err();
        assert_eq!(err.kind, ErrorKind::ChangedOnDisk);
        assert!(
            err.message.contains("changed by another program"),
            "{}",
            err.message
        );
        assert!(
            ws.doc(doc).unwrap().dirty(),
            "a refused save keeps the book dirty"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"entries\": {}}");
        ws.save(doc, None, true).unwrap();
        assert!(!ws.doc(doc).unwrap().dirty());
        // After our own save the file matches again: no question.
        edit(&mut ws, doc);
        ws.save(doc, None, false).unwrap();
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn a_deleted_file_is_a_change_and_the_same_bytes_are_not() {
        let (mut ws, doc, path) = open_copy("same");
        // Rewriting the same bytes changes the time, not the content: no
        // change, and the new time is kept, so the next check does not
        // read the bytes again.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&path, super::super::SAMPLE_BOOK).unwrap();
        assert!(ws.disk_changes().is_empty());
        let modified = std::fs::metadata(&path).unwrap().modified().ok();
        assert_eq!(
            ws.doc(doc).unwrap().disk.as_ref().unwrap().modified,
            modified
        );
        ws.save(doc, None, false).unwrap();
        std::fs::remove_file(&path).unwrap();
        let err = ws.save(doc, None, false).unwrap_err();
        assert_eq!(err.kind, ErrorKind::ChangedOnDisk);
        assert!(err.message.contains("moved or deleted"), "{}", err.message);
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    fn change(doc: u32, dirty: bool) -> Vec<DiskChange> {
        vec![DiskChange { doc, dirty }]
    }

    #[test]
    fn outside_edits_are_told_once_per_change_with_whether_the_book_has_edits() {
        let (mut ws, doc, path) = open_copy("focus");
        assert_eq!(ws.book_paths(), std::slice::from_ref(&path));
        assert!(ws.disk_changes().is_empty());
        let changed = super::super::SAMPLE_BOOK.replace("Saltmere", "Saltmarsh");
        std::fs::write(&path, &changed).unwrap();
        assert_eq!(ws.disk_changes(), change(doc, false));
        assert!(ws.disk_changes().is_empty(), "told once per change");
        assert!(ws.reload(doc, true).unwrap());
        assert!(ws.doc(doc).unwrap().book.name.contains("Saltmarsh"));
        assert!(!ws.doc(doc).unwrap().dirty());
        // A book with edits is told too, as dirty (the UI asks), and the
        // save still refuses to write over the change unasked.
        edit(&mut ws, doc);
        std::fs::write(&path, super::super::SAMPLE_BOOK).unwrap();
        assert_eq!(ws.disk_changes(), change(doc, true));
        assert!(ws.disk_changes().is_empty());
        // A reload asked for an unmodified book that has edits by now keeps
        // them and reads nothing.
        assert!(!ws.reload(doc, true).unwrap());
        assert!(ws.doc(doc).unwrap().dirty());
        assert_eq!(
            ws.save(doc, None, false).unwrap_err().kind,
            ErrorKind::ChangedOnDisk
        );
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    /// A book kept as a folder of Markdown files opens bound to its
    /// folder, saves back into it (only the edited entry's file changes),
    /// refuses to save over an edit made outside, reports that edit on
    /// focus, and reloads it.
    #[test]
    fn a_book_kept_as_a_folder_opens_saves_and_follows_outside_edits() {
        use lorebook_engine::formats::{markdown, native};
        let dir = std::env::temp_dir().join(format!("lbs-disk-folder-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (sample, _) = native::load(super::super::SAMPLE_BOOK.as_bytes()).unwrap();
        markdown::write(&sample, &dir).unwrap();
        let mut ws = Workspace::default();
        let doc = ws.open_path(&dir).unwrap().doc;
        assert_eq!(ws.doc(doc).unwrap().book, sample);
        let light = dir.join("The Lighthouse.md");
        let orla = dir.join("Orla Venn.md");
        let untouched = std::fs::metadata(&orla).unwrap().modified().unwrap();
        edit(&mut ws, doc);
        std::thread::sleep(std::time::Duration::from_millis(20));
        ws.save(doc, None, false).unwrap();
        assert!(std::fs::read_to_string(&light)
            .unwrap()
            .contains("- edited"));
        assert_eq!(
            std::fs::metadata(&orla).unwrap().modified().unwrap(),
            untouched
        );
        assert!(ws.disk_changes().is_empty(), "our own save is no change");
        // An editor changes a file (later than the save: the file system's
        // clock is coarse): reported once, and reloaded.
        std::thread::sleep(std::time::Duration::from_millis(50));
        let text = std::fs::read_to_string(&orla).unwrap();
        std::fs::write(&orla, text.replace("keeper", "warden")).unwrap();
        assert_eq!(ws.disk_changes(), change(doc, false));
        assert!(ws.disk_changes().is_empty());
        edit(&mut ws, doc);
        let err = ws.save(doc, None, false).unwrap_err();
        assert_eq!(err.kind, ErrorKind::ChangedOnDisk);
        // Reload, dropping the edit (the user's answer to the question).
        assert!(ws.reload(doc, false).unwrap());
        let book = &ws.doc(doc).unwrap().book;
        assert!(book.entries.iter().any(|e| e.content.contains("warden")));
        // Save As Folder into a folder of other files makes one inside it.
        let other = dir.with_extension("other");
        let _ = std::fs::remove_dir_all(&other);
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("notes.txt"), "mine").unwrap();
        let target = crate::commands::folder_target(&other, "Saltmere").unwrap();
        assert_eq!(target, other.join("Saltmere"));
        ws.save(doc, Some(target.clone()), false).unwrap();
        assert!(target.join(markdown::BOOK_FILE).is_file());
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&other);
    }
}
