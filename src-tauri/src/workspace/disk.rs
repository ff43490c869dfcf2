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

use lorebook_engine::formats::markdown::{Check, Manifest};
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
    /// A book kept as a folder: each of its files' fingerprint, and which
    /// of them the book owns (the engine's manifest, which a save goes
    /// by). `None` for a book file.
    #[serde(default)]
    files: Option<Manifest>,
}

impl Fingerprint {
    /// The fingerprint of `path`, whose content is `bytes` (just read or
    /// just written).
    pub fn of(path: &Path, bytes: &[u8]) -> Fingerprint {
        Fingerprint {
            len: bytes.len() as u64,
            modified: std::fs::metadata(path).and_then(|m| m.modified()).ok(),
            hash: Sha256::digest(bytes).into(),
            files: None,
        }
    }

    /// The fingerprint of a book kept as a folder of Markdown files
    /// (`formats::markdown`): the manifest of its files as the book read
    /// or wrote them.
    pub fn of_folder(manifest: Manifest) -> Fingerprint {
        Fingerprint {
            len: manifest.files.values().map(|s| s.len).sum(),
            modified: None,
            hash: [0; 32],
            files: Some(manifest),
        }
    }

    /// The manifest of a book kept as a folder: which files its save may
    /// replace or remove.
    pub fn manifest(&self) -> Option<&Manifest> {
        self.files.as_ref()
    }

    /// A fingerprint no file matches: the file's state is not known (a
    /// recovery copy written before fingerprints were kept), so saving over
    /// it asks first.
    pub fn unknown() -> Fingerprint {
        Fingerprint {
            len: u64::MAX,
            modified: None,
            hash: [0; 32],
            files: None,
        }
    }

    /// How the file at `path` differs from `self`; `None` when it is the
    /// same.
    fn changed(&self, path: &Path) -> Option<Change> {
        let Ok(meta) = std::fs::metadata(path) else {
            return Some(Change::Gone);
        };
        if meta.is_dir() {
            let Some(manifest) = &self.files else {
                // A folder where a book file was, or a fingerprint from
                // before folders kept manifests: read it again.
                return Some(match formats::markdown::load(path) {
                    Ok(read) => Change::Edited(Fingerprint::of_folder(read.manifest)),
                    Err(_) => Change::Gone,
                });
            };
            return match manifest.check(path) {
                Check::Same => None,
                Check::Touched(now) => Some(Change::Same(Fingerprint::of_folder(now))),
                Check::Changed(now) => Some(Change::Edited(Fingerprint::of_folder(now))),
                Check::Gone => Some(Change::Gone),
            };
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
            files: None,
        };
        return Ok((book, notes, seen));
    }
    for _ in 0..STEADY_TRIES {
        let (book, notes, manifest) = read_folder(path)?;
        // Each file's fingerprint was taken as it was read; one that moved
        // since (a checkout in progress) is read again.
        if manifest.check(path) == Check::Same {
            return Ok((book, notes, Fingerprint::of_folder(manifest)));
        }
    }
    let (book, notes, _) = read_folder(path)?;
    Ok((book, notes, Fingerprint::unknown()))
}

/// Reads the book kept as a folder of Markdown files at `dir`, with a note
/// per file left out and per setting clamped, and the manifest of what was
/// read (`formats::markdown`).
pub(super) fn read_folder(
    dir: &Path,
) -> Result<
    (
        lorebook_engine::model::Book,
        Vec<formats::note::Note>,
        Manifest,
    ),
    AppError,
> {
    let read = formats::markdown::load(dir).map_err(|e| {
        AppError::invalid(
            e.clone(),
            ErrorCode::NotABookFolder {
                file: dir.display().to_string(),
                detail: e,
            },
        )
    })?;
    let manifest = read.manifest.clone();
    let imported = read.imported();
    Ok((imported.book, imported.report.notes, manifest))
}

#[cfg(test)]
mod tests {
    use super::super::Workspace;
    use crate::error::{ErrorCode, ErrorKind};
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
        let target = crate::commands::folder_target(&other, "Saltmere", Some(&dir), false).unwrap();
        assert_eq!(target, other.join("Saltmere"));
        ws.save(doc, Some(target.clone()), false).unwrap();
        assert!(target.join(markdown::BOOK_FILE).is_file());
        // Its own folder again: no question.
        assert_eq!(
            crate::commands::folder_target(&other, "Saltmere", Some(&target), false).unwrap(),
            target
        );
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&other);
    }

    /// A scratch folder holding the sample book as a folder, opened.
    fn open_folder(name: &str) -> (Workspace, u32, std::path::PathBuf) {
        use lorebook_engine::formats::{markdown, native};
        let dir = std::env::temp_dir().join(format!("lbs-disk-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (sample, _) = native::load(super::super::SAMPLE_BOOK.as_bytes()).unwrap();
        markdown::write(&sample, &dir).unwrap();
        let mut ws = Workspace::default();
        let doc = ws.open_path(&dir).unwrap().doc;
        (ws, doc, dir)
    }

    /// Save As Folder pointed at a folder that holds another book's folder
    /// of the book's name asks first (issue 37); asked and answered yes, it
    /// replaces that book.
    #[test]
    fn save_as_folder_over_another_book_s_folder_asks_first() {
        use lorebook_engine::formats::markdown;
        let (mut ws, doc, dir) = open_folder("replace");
        let parent = dir.with_extension("parent");
        let _ = std::fs::remove_dir_all(&parent);
        std::fs::create_dir_all(&parent).unwrap();
        std::fs::write(parent.join("notes.txt"), "mine").unwrap();
        let mut other = lorebook_engine::model::Book {
            name: "Saltmere".into(),
            ..Default::default()
        };
        other.add_entry(lorebook_engine::model::Entry {
            comment: "Another book's entry".into(),
            ..Default::default()
        });
        let theirs = parent.join("Saltmere");
        markdown::write(&other, &theirs).unwrap();
        let before = std::fs::read(theirs.join("Another book's entry.md")).unwrap();
        let err =
            crate::commands::folder_target(&parent, "Saltmere", Some(&dir), false).unwrap_err();
        assert!(
            matches!(err.code, ErrorCode::FolderHoldsBook { .. }),
            "{err:?}"
        );
        assert_eq!(
            std::fs::read(theirs.join("Another book's entry.md")).unwrap(),
            before
        );
        // The same when the other book's folder itself is picked.
        assert!(crate::commands::folder_target(&theirs, "Saltmere", Some(&dir), false).is_err());
        let target = crate::commands::folder_target(&parent, "Saltmere", Some(&dir), true).unwrap();
        ws.save(doc, Some(target.clone()), false).unwrap();
        assert!(!theirs.join("Another book's entry.md").exists(), "replaced");
        assert_eq!(
            std::fs::read_to_string(parent.join("notes.txt")).unwrap(),
            "mine"
        );
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&parent);
    }

    /// A file that arrives after the book was read (a `git pull`) is not
    /// the book's: a save leaves it, and the change check sees it.
    #[test]
    fn a_file_added_before_a_save_survives_it_and_is_seen() {
        let (mut ws, doc, dir) = open_folder("added");
        let pulled = dir.join("Pulled.md");
        std::fs::write(&pulled, "---\nid: 900\ncomment: Pulled\n---\nNew.\n").unwrap();
        // The author deleted every entry but the first, and saves over the
        // change (Overwrite).
        let keep = ws.doc(doc).unwrap().book.entries[0].id;
        ws.doc_mut(doc)
            .unwrap()
            .book
            .entries
            .retain(|e| e.id == keep);
        ws.save(doc, None, true).unwrap();
        assert!(pulled.is_file(), "the pulled file survives the save");
        assert_eq!(ws.disk_changes(), change(doc, false));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A change that keeps the file's size and time (`rsync -t`, or a
    /// `touch -r` after an edit) is still seen.
    #[test]
    fn a_change_keeping_size_and_time_is_seen() {
        let (mut ws, doc, dir) = open_folder("rsync");
        let light = dir.join("The Lighthouse.md");
        let meta = std::fs::metadata(&light).unwrap();
        let text = std::fs::read_to_string(&light).unwrap();
        let edited = text.replacen("lighthouse", "LIGHTHOUSE", 1);
        assert_ne!(edited, text);
        assert_eq!(edited.len(), text.len());
        std::fs::write(&light, &edited).unwrap();
        let f = std::fs::File::options().write(true).open(&light).unwrap();
        f.set_modified(meta.modified().unwrap()).unwrap();
        drop(f);
        assert_eq!(
            std::fs::metadata(&light).unwrap().modified().unwrap(),
            meta.modified().unwrap()
        );
        assert_eq!(ws.disk_changes(), change(doc, false));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
