//! Autosave and crash recovery, and the unsaved-changes check at exit.
//!
//! A book with unsaved changes is copied into the recovery folder
//! ([`AUTOSAVE_DELAY`] after its last change, checked every
//! [`AUTOSAVE_TICK`]) as a native book file `<key>.json` beside a sidecar
//! `<key>.meta.json` naming its original path, title and time. Both are
//! written atomically (temp file, fsync, rename), the book first, so a
//! sidecar always points at a whole book. A book that becomes clean (saved,
//! or undone back to its saved state) or is closed loses its copy; a clean
//! exit of the app removes every copy of its run. What is left at the next
//! start came from a crash, a kill or a shutdown, and is offered back.
//!
//! Keys are `<run>-<doc>`: the run part (start time and process id) keeps
//! this run's copies apart from those of earlier runs, which are the only
//! ones [`Recovery::list`] offers.
//!
//! **Invariant:** an internal failure never reads as "no unsaved changes":
//! [`has_unsaved`] answers "dirty" for a poisoned workspace lock.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use lorebook_engine::formats::{self, native};
use lorebook_engine::model::Book;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::history::History;
use super::Workspace;
use crate::error::{read_book_file, AppError};

/// How long a book must stay unchanged before its copy is written, so a
/// burst of typing is written once.
pub const AUTOSAVE_DELAY: Duration = Duration::from_secs(2);

/// How often the autosave thread looks for books to copy.
pub const AUTOSAVE_TICK: Duration = Duration::from_millis(500);

/// The environment variable that overrides the app's data folder (the
/// recovery folder is its `recovery` subfolder); tests point it at a
/// temporary folder.
pub const DATA_DIR_ENV: &str = "LOREBOOK_DATA_DIR";

/// A copy left by an earlier run, as the restore dialog shows it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RecoveredBook {
    /// The key to restore or discard it by.
    pub id: String,
    pub title: String,
    /// The file the book belongs to; `None` for a book never saved.
    pub original_path: Option<String>,
    /// When the copy was written, in seconds since the Unix epoch.
    pub saved_at: u64,
    /// The recovery copy itself, so the user can find it by hand.
    pub file: String,
}

/// The sidecar beside each copy.
#[derive(Debug, Serialize, Deserialize)]
struct Sidecar {
    original_path: Option<PathBuf>,
    title: String,
    saved_at: u64,
}

/// A book to copy, taken under the workspace lock and written after it.
#[derive(Debug)]
pub struct Snapshot {
    doc: u32,
    revision: u64,
    book: Book,
    path: Option<PathBuf>,
}

/// What one autosave pass does.
#[derive(Debug, Default)]
pub struct Plan {
    write: Vec<Snapshot>,
    /// Docs whose copy is no longer needed (clean or closed).
    forget: Vec<u32>,
}

/// The recovery folder and what this run has written into it.
#[derive(Debug)]
pub struct Recovery {
    dir: PathBuf,
    run: String,
    /// The revision of each doc's copy on disk.
    written: HashMap<u32, u64>,
}

impl Recovery {
    /// The recovery folder inside the app's data folder `data_dir`.
    pub fn new(data_dir: &Path) -> Recovery {
        let started = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis();
        Recovery {
            dir: data_dir.join("recovery"),
            run: format!("{started}x{}", std::process::id()),
            written: HashMap::new(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn key(&self, doc: u32) -> String {
        format!("{}-{doc}", self.run)
    }

    fn book_file(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    fn sidecar_file(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.meta.json"))
    }

    /// What to write and remove now: dirty books changed since their copy
    /// and quiet for `delay`, and copies of books now clean or closed.
    pub fn plan(&self, ws: &Workspace, now: Instant, delay: Duration) -> Plan {
        let mut plan = Plan::default();
        for d in &ws.docs {
            let h = &d.history;
            if !d.dirty() {
                if self.written.contains_key(&d.id) {
                    plan.forget.push(d.id);
                }
                continue;
            }
            let current = self.written.get(&d.id) == Some(&h.revision());
            let quiet = h
                .changed_at()
                .is_none_or(|t| now.saturating_duration_since(t) >= delay);
            if !current && quiet {
                plan.write.push(Snapshot {
                    doc: d.id,
                    revision: h.revision(),
                    book: d.book.clone(),
                    path: d.path.clone(),
                });
            }
        }
        plan.forget.extend(
            self.written
                .keys()
                .filter(|id| !ws.docs.iter().any(|d| d.id == **id)),
        );
        plan
    }

    /// Carries out a plan; returns what could not be written (the next
    /// pass tries again).
    pub fn apply(&mut self, plan: Plan) -> Vec<String> {
        let mut errors = Vec::new();
        for s in plan.write {
            match self.write(&s) {
                Ok(()) => {
                    self.written.insert(s.doc, s.revision);
                }
                Err(e) => errors.push(format!(
                    "cannot write the recovery copy of \"{}\" in {}: {e}",
                    s.book.name,
                    self.dir.display()
                )),
            }
        }
        for doc in plan.forget {
            self.forget(doc);
        }
        errors
    }

    fn write(&self, s: &Snapshot) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let key = self.key(s.doc);
        formats::write_atomic(&self.book_file(&key), &native::to_bytes(&s.book))?;
        let sidecar = Sidecar {
            original_path: s.path.clone(),
            title: s.book.name.clone(),
            saved_at: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default()
                .as_secs(),
        };
        let bytes = serde_json::to_vec_pretty(&sidecar).map_err(std::io::Error::other)?;
        formats::write_atomic(&self.sidecar_file(&key), &bytes)
    }

    /// Removes this run's copy of `doc`.
    pub fn forget(&mut self, doc: u32) {
        self.written.remove(&doc);
        self.remove(&self.key(doc));
    }

    /// Removes every copy this run wrote: the app is closing cleanly, with
    /// every change saved or deliberately discarded.
    pub fn forget_all(&mut self) {
        let docs: Vec<u32> = self.written.keys().copied().collect();
        for doc in docs {
            self.forget(doc);
        }
    }

    fn remove(&self, key: &str) {
        // The sidecar goes first: a book file without one is never offered.
        let _ = std::fs::remove_file(self.sidecar_file(key));
        let _ = std::fs::remove_file(self.book_file(key));
    }

    /// The copies left by earlier runs, oldest first.
    pub fn list(&self) -> Vec<RecoveredBook> {
        let Ok(dir) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut found: Vec<RecoveredBook> = dir
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let key = name.strip_suffix(".meta.json")?;
                if key.starts_with(&format!("{}-", self.run)) {
                    return None;
                }
                let book = self.book_file(key);
                if !book.is_file() {
                    return None;
                }
                let bytes = formats::read_limited(&e.path()).ok()?;
                let sidecar: Sidecar = serde_json::from_slice(&bytes).ok()?;
                Some(RecoveredBook {
                    id: key.to_string(),
                    title: sidecar.title,
                    original_path: sidecar.original_path.map(|p| p.display().to_string()),
                    saved_at: sidecar.saved_at,
                    file: book.display().to_string(),
                })
            })
            .collect();
        found.sort_by(|a, b| (a.saved_at, &a.id).cmp(&(b.saved_at, &b.id)));
        found
    }

    /// The listed copy `id`; any other name is refused, so the webview
    /// cannot name a file outside the recovery folder.
    fn listed(&self, id: &str) -> Result<RecoveredBook, AppError> {
        self.list()
            .into_iter()
            .find(|r| r.id == id)
            .ok_or_else(|| AppError::not_found(format!("no recovered book \"{id}\"")))
    }

    /// Opens copy `id` as a new doc of `ws`, dirty and bound to its
    /// original path; the copy moves to this run (written again under this
    /// run's key before the old one is removed). Returns the doc.
    pub fn restore(&mut self, ws: &mut Workspace, id: &str) -> Result<u32, AppError> {
        let found = self.listed(id)?;
        let bytes = read_book_file(Path::new(&found.file))?;
        let (book, _) =
            native::load(&bytes).map_err(|e| AppError::not_a_book(Path::new(&found.file), &e))?;
        let doc = ws.add_doc(book, found.original_path.map(PathBuf::from));
        let d = ws.doc_mut(doc)?;
        d.history = History::unsaved();
        let plan = self.plan(ws, Instant::now(), Duration::ZERO);
        let errors = self.apply(plan);
        if errors.is_empty() {
            self.remove(id);
        }
        Ok(doc)
    }

    /// Deletes copy `id` of an earlier run.
    pub fn discard(&self, id: &str) -> Result<(), AppError> {
        self.listed(id)?;
        self.remove(id);
        Ok(())
    }
}

/// Whether closing now could lose work. A poisoned lock (a command
/// panicked while holding it) answers yes: the state may be anything, and
/// asking once too often is cheap while closing silently is not.
pub fn has_unsaved(ws: &Mutex<Workspace>) -> bool {
    ws.lock().map(|ws| ws.any_dirty()).unwrap_or(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::Workspace;

    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let dir = std::env::temp_dir().join(format!(
                "lorebook-recovery-{tag}-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A workspace with one dirty book (the sample, renamed).
    fn dirty_ws() -> (Workspace, u32) {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        let mut s = ws.book_settings(doc).unwrap();
        s.name = "Edited".into();
        ws.set_book_settings(doc, s).unwrap();
        (ws, doc)
    }

    fn tick(rec: &mut Recovery, ws: &Workspace) -> Vec<String> {
        let plan = rec.plan(ws, Instant::now(), Duration::ZERO);
        rec.apply(plan)
    }

    /// The next run: a new `Recovery` on the same folder.
    fn next_run(dir: &Path) -> Recovery {
        let mut rec = Recovery::new(dir);
        rec.run.push_str("-next");
        rec
    }

    #[test]
    fn a_dirty_book_is_copied_only_after_the_quiet_period() {
        let tmp = TempDir::new("quiet");
        let (ws, _) = dirty_ws();
        let mut rec = Recovery::new(&tmp.0);
        let plan = rec.plan(&ws, Instant::now(), Duration::from_secs(3600));
        assert!(plan.write.is_empty(), "{plan:?}");
        rec.apply(plan);
        assert!(next_run(&tmp.0).list().is_empty());
        let later = Instant::now() + AUTOSAVE_DELAY;
        let plan = rec.plan(&ws, later, AUTOSAVE_DELAY);
        assert_eq!(plan.write.len(), 1);
        assert!(rec.apply(plan).is_empty());
        // Unchanged since: nothing more to write.
        assert!(rec.plan(&ws, later, AUTOSAVE_DELAY).write.is_empty());
    }

    #[test]
    fn a_crashed_run_s_book_is_restored_dirty_with_its_path() {
        let tmp = TempDir::new("restore");
        let (mut ws, doc) = dirty_ws();
        ws.doc_mut(doc).unwrap().path = Some(PathBuf::from("/books/sample.json"));
        let mut rec = Recovery::new(&tmp.0);
        assert!(tick(&mut rec, &ws).is_empty());
        // This run does not offer its own copies.
        assert!(rec.list().is_empty());

        let mut rec2 = next_run(&tmp.0);
        let found = rec2.list();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].title, "Edited");
        assert_eq!(
            found[0].original_path.as_deref(),
            Some("/books/sample.json")
        );
        assert!(Path::new(&found[0].file).starts_with(tmp.0.join("recovery")));

        let mut ws2 = Workspace::default();
        let restored = rec2.restore(&mut ws2, &found[0].id).unwrap();
        let d = ws2.doc(restored).unwrap();
        assert!(d.dirty());
        assert_eq!(d.book, ws.docs[0].book);
        assert_eq!(d.path.as_deref(), Some(Path::new("/books/sample.json")));
        // The copy now belongs to the second run, and a third one finds it.
        assert!(rec2.list().is_empty());
        let third = Recovery {
            run: "third".into(),
            ..Recovery::new(&tmp.0)
        };
        assert_eq!(third.list().len(), 1);
    }

    #[test]
    fn a_new_never_saved_book_is_copied() {
        let tmp = TempDir::new("new");
        let mut ws = Workspace::default();
        let doc = ws.new_book();
        ws.add_entry(doc).unwrap();
        let mut rec = Recovery::new(&tmp.0);
        tick(&mut rec, &ws);
        let found = next_run(&tmp.0).list();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].original_path, None);
    }

    #[test]
    fn saving_closing_and_a_clean_exit_remove_the_copy() {
        let tmp = TempDir::new("clean");
        let book = tmp.0.join("book.json");
        let (mut ws, doc) = dirty_ws();
        let mut rec = Recovery::new(&tmp.0);
        tick(&mut rec, &ws);
        assert_eq!(next_run(&tmp.0).list().len(), 1);
        ws.save(doc, Some(book.clone()), false).unwrap();
        tick(&mut rec, &ws);
        assert!(next_run(&tmp.0).list().is_empty(), "saved");

        ws.add_entry(doc).unwrap();
        tick(&mut rec, &ws);
        assert_eq!(next_run(&tmp.0).list().len(), 1);
        ws.close(doc).unwrap();
        tick(&mut rec, &ws);
        assert!(next_run(&tmp.0).list().is_empty(), "closed");

        let (ws, _) = dirty_ws();
        tick(&mut rec, &ws);
        assert_eq!(next_run(&tmp.0).list().len(), 1);
        rec.forget_all();
        assert!(next_run(&tmp.0).list().is_empty(), "clean exit");
        assert_eq!(std::fs::read_dir(rec.dir()).unwrap().count(), 0);
    }

    #[test]
    fn discard_removes_a_copy_and_unknown_names_are_refused() {
        let tmp = TempDir::new("discard");
        let (ws, _) = dirty_ws();
        let mut rec = Recovery::new(&tmp.0);
        tick(&mut rec, &ws);
        let rec2 = next_run(&tmp.0);
        let id = rec2.list()[0].id.clone();
        for bad in ["../book", "/etc/passwd", "", "nothing"] {
            assert!(rec2.discard(bad).is_err(), "{bad}");
        }
        rec2.discard(&id).unwrap();
        assert!(rec2.list().is_empty());
    }

    /// A copy whose book file is missing or whose sidecar is broken is not
    /// offered (and does not stop the others).
    #[test]
    fn broken_copies_are_skipped() {
        let tmp = TempDir::new("broken");
        let dir = tmp.0.join("recovery");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a-1.meta.json"), b"{not json").unwrap();
        std::fs::write(dir.join("a-1.json"), b"{}").unwrap();
        std::fs::write(
            dir.join("a-2.meta.json"),
            br#"{"original_path":null,"title":"t","saved_at":1}"#,
        )
        .unwrap();
        let (ws, _) = dirty_ws();
        let mut rec = Recovery::new(&tmp.0);
        tick(&mut rec, &ws);
        assert_eq!(next_run(&tmp.0).list().len(), 1);
    }

    /// Regression: a command that panicked while holding the workspace
    /// lock poisoned it, and the close check read the poisoned lock as
    /// "no unsaved changes", so the window closed without asking.
    #[test]
    fn a_panicking_command_does_not_disable_the_unsaved_changes_check() {
        let ws = Mutex::new(Workspace::with_sample());
        assert!(!has_unsaved(&ws));
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _guard = ws.lock().unwrap();
            panic!("a command fails");
        }));
        assert!(result.is_err());
        assert!(ws.is_poisoned());
        assert!(has_unsaved(&ws));
    }
}
