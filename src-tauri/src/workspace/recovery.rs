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
//! this run's copies apart from those of other runs.
//!
//! **Each instance owns its copies.** Several instances of the app may run
//! on one data folder (two windows started by hand, a second user session).
//! Each holds an exclusive lock on `<run>.lock` in the recovery folder for
//! as long as it runs; the operating system releases it when the process
//! ends, however it ends (a crash, `SIGKILL`). [`Recovery::list`] offers
//! only the copies of runs whose lock is free, so a running instance's live
//! copies are never listed, restored or deleted by another; restoring or
//! discarding takes the dead run's lock for the time it works, so two
//! instances never both claim one copy. (Making the app single-instance
//! would instead send a second launch's files to the first window, but a
//! second instance started under another `LOREBOOK_DATA_DIR` or by a
//! second user would still share nothing, and the lock is needed for the
//! crash case anyway: one rule covers both.)
//!
//! The sidecar also keeps the fingerprint of the book's file as the book
//! last read or wrote it, so a restored book still notices that its file
//! changed while the app was down (a `git pull` after a crash) and Save
//! asks before overwriting it.
//!
//! **Invariant:** an internal failure never reads as "no unsaved changes":
//! [`has_unsaved`] answers "dirty" for a poisoned workspace lock.
//!
//! Above the usual 600 lines: autosave, the instance lock and restoring share
//! the copy's format and are tested together in this file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use lorebook_engine::formats::{self, native};
use lorebook_engine::model::Book;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::disk::Fingerprint;
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
    /// The original file as the book last read or wrote it; `None` for a
    /// book never saved, and in copies written before it was kept (such a
    /// book asks before its first save over the file).
    #[serde(default)]
    disk: Option<Fingerprint>,
}

/// A book to copy, taken under the workspace lock and written after it.
#[derive(Debug)]
pub struct Snapshot {
    doc: u32,
    revision: u64,
    book: Book,
    path: Option<PathBuf>,
    disk: Option<Fingerprint>,
}

/// What one autosave pass does.
#[derive(Debug, Default)]
pub struct Plan {
    write: Vec<Snapshot>,
    /// Docs whose copy is no longer needed (clean or closed).
    forget: Vec<u32>,
    /// Whether any open book has unsaved changes (when none has, no copy is
    /// missing, and a past failure no longer matters).
    any_dirty: bool,
    /// The workspace's [`Workspace::edit_mark`], and when the first book
    /// left to copy becomes quiet (see [`Recovery::due_while_busy`]).
    mark: u64,
    next_due: Option<Instant>,
}

/// The recovery folder and what this run has written into it.
#[derive(Debug)]
pub struct Recovery {
    dir: PathBuf,
    run: String,
    /// The revision of each doc's copy on disk.
    written: HashMap<u32, u64>,
    /// This run's lock (`<run>.lock`), held while the run lives; `None`
    /// when the folder cannot be written (then no copy can be either).
    lock: Option<std::fs::File>,
    /// The last failure to write a copy, until a copy is written again.
    failure: Option<AppError>,
    /// The [`Workspace::edit_mark`] the last pass saw, and when a copy is
    /// due next as far as it knows (see [`Recovery::due_while_busy`]).
    seen: Option<u64>,
    due: Option<Instant>,
}

/// The lock file of run `run` in `dir`.
fn lock_file(dir: &Path, run: &str) -> PathBuf {
    dir.join(format!("{run}.lock"))
}

/// Takes the lock of run `run`: `Some(file)` while held, `None` when
/// another process holds it (that run is alive). A run that left no lock
/// file (an older version of the app) counts as ended.
fn claim(dir: &Path, run: &str) -> Option<Option<std::fs::File>> {
    let path = lock_file(dir, run);
    let Ok(file) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
    else {
        return Some(None);
    };
    match try_lock(&file) {
        Ok(()) => Some(Some(file)),
        Err(LockError::Busy) => None,
        // A file system without locks: nothing tells a live run from an
        // ended one, so only the age of its copies could; count it ended.
        Err(_) => Some(None),
    }
}

/// Why [`try_lock`] failed: another process holds the lock, or locks do
/// not work here.
#[derive(Debug)]
enum LockError {
    Busy,
    Unsupported,
}
/// An exclusive, non-blocking `flock` on `file`, released when the file is
/// closed or the process ends, however it ends.
#[cfg(unix)]
fn try_lock(file: &std::fs::File) -> Result<(), LockError> {
    use rustix::fs::{flock, FlockOperation};
    match flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(()),
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => Err(LockError::Busy),
        Err(_) => Err(LockError::Unsupported),
    }
}

#[cfg(not(unix))]
fn try_lock(_: &std::fs::File) -> Result<(), LockError> {
    Err(LockError::Unsupported)
}

/// The run part of a copy's key `<run>-<doc>`.
fn run_of(key: &str) -> &str {
    key.rsplit_once('-').map_or(key, |(run, _)| run)
}

impl Recovery {
    /// The recovery folder inside the app's data folder `data_dir`, and
    /// this run's lock in it.
    pub fn new(data_dir: &Path) -> Recovery {
        let started = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis();
        // A number of its own, so two instances made by one process (tests)
        // are two runs too. No '-': it ends the run part of a key.
        static NEXT_RUN: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT_RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut rec = Recovery {
            dir: data_dir.join("recovery"),
            run: format!("{started}x{}x{n}", std::process::id()),
            written: HashMap::new(),
            lock: None,
            failure: None,
            seen: None,
            due: None,
        };
        rec.take_lock();
        rec
    }

    /// Creates and locks this run's lock file (again, after the folder was
    /// removed or could not be written).
    fn take_lock(&mut self) {
        if self.lock.is_some() {
            return;
        }
        let _ = std::fs::create_dir_all(&self.dir);
        let Ok(file) = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(lock_file(&self.dir, &self.run))
        else {
            return;
        };
        if try_lock(&file).is_ok() {
            self.lock = Some(file);
        }
    }

    /// The last failure to write a recovery copy, while copies fail (the
    /// UI shows it until copies work again).
    pub fn failure(&self) -> Option<&AppError> {
        self.failure.as_ref()
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
        let mut plan = Plan {
            any_dirty: ws.any_dirty(),
            mark: ws.edit_mark(),
            ..Plan::default()
        };
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
            if let Some(at) = h.changed_at().filter(|_| !current && !quiet) {
                let at = at + delay;
                plan.next_due = Some(plan.next_due.map_or(at, |d| d.min(at)));
            }
            if !current && quiet {
                plan.write.push(Snapshot {
                    doc: d.id,
                    revision: h.revision(),
                    book: d.book.clone(),
                    path: d.path.clone(),
                    disk: d.disk.clone(),
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
    /// pass tries again). The last failure is kept ([`Recovery::failure`])
    /// until a pass writes every copy it meant to.
    pub fn apply(&mut self, plan: Plan) -> Vec<String> {
        // A copy that fails is tried again by the next pass that finds the
        // workspace free, or after the next edit: not worth stopping long
        // work for every half second.
        self.seen = Some(plan.mark);
        self.due = plan.next_due;
        let mut errors = Vec::new();
        let wrote = !plan.write.is_empty();
        let any_dirty = plan.any_dirty;
        let mut failed = None;
        for s in plan.write {
            match self.write(&s) {
                Ok(()) => {
                    self.written.insert(s.doc, s.revision);
                }
                Err(e) => {
                    errors.push(format!(
                        "cannot write the recovery copy of \"{}\" in {}: {e}",
                        s.book.name,
                        self.dir.display()
                    ));
                    failed = Some(AppError::write(&self.dir, "write recovery copies into", e));
                }
            }
        }
        for doc in plan.forget {
            self.forget(doc);
        }
        if failed.is_some() {
            self.failure = failed;
        } else if wrote || !any_dirty {
            self.failure = None;
        }
        errors
    }

    /// Whether a pass that finds the workspace busy with long work should
    /// stop it (a request log, a preview's build; see `interrupt`) and
    /// copy now: only when a copy is due. `mark` is the workspace's
    /// [`Workspace::edit_mark`] after the last command; when it moved since
    /// the last pass, a book may have changed, and its copy is due `delay`
    /// from now at the latest (its change came before). Otherwise the last
    /// pass knew when the next book becomes quiet. Long work is thus
    /// stopped at most once per change, and never while nothing is left
    /// to copy, however often autosave ticks.
    pub fn due_while_busy(&mut self, mark: u64, now: Instant, delay: Duration) -> bool {
        if self.seen != Some(mark) {
            self.seen = Some(mark);
            let at = now + delay;
            self.due = Some(self.due.map_or(at, |d| d.min(at)));
        }
        self.due.is_some_and(|t| now >= t)
    }

    /// Learns what a pass would of `ws` (its [`Workspace::edit_mark`], when
    /// a copy falls due) without writing anything, for
    /// [`Recovery::due_while_busy`] before the first pass (at start, while
    /// the preview of the books given is built).
    pub fn look(&mut self, ws: &Workspace, now: Instant, delay: Duration) {
        let plan = self.plan(ws, now, delay);
        self.seen = Some(plan.mark);
        self.due = if plan.write.is_empty() {
            plan.next_due
        } else {
            Some(now)
        };
    }

    fn write(&mut self, s: &Snapshot) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        self.take_lock();
        let key = self.key(s.doc);
        formats::write_atomic(&self.book_file(&key), &native::to_bytes(&s.book))?;
        let sidecar = Sidecar {
            original_path: s.path.clone(),
            title: s.book.name.clone(),
            saved_at: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default()
                .as_secs(),
            disk: s.disk.clone(),
        };
        let bytes = serde_json::to_vec_pretty(&sidecar).map_err(std::io::Error::other)?;
        formats::write_atomic(&self.sidecar_file(&key), &bytes)
    }

    /// Removes this run's copy of `doc`.
    pub fn forget(&mut self, doc: u32) {
        self.written.remove(&doc);
        self.remove(&self.key(doc));
    }

    /// Removes every copy this run wrote, and its lock: the app is closing
    /// cleanly, with every change saved or deliberately discarded.
    pub fn forget_all(&mut self) {
        let docs: Vec<u32> = self.written.keys().copied().collect();
        for doc in docs {
            self.forget(doc);
        }
        if self.lock.take().is_some() {
            let _ = std::fs::remove_file(lock_file(&self.dir, &self.run));
        }
    }

    fn remove(&self, key: &str) {
        // The sidecar goes first: a book file without one is never offered.
        let _ = std::fs::remove_file(self.sidecar_file(key));
        let _ = std::fs::remove_file(self.book_file(key));
    }

    /// The copies left by runs that ended (crashed, killed, shut down),
    /// oldest first; the copies of this run and of every other running
    /// instance are not offered. Lock files of ended runs with no copy
    /// left are tidied away.
    pub fn list(&self) -> Vec<RecoveredBook> {
        let Ok(dir) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut keys = Vec::new();
        let mut locks = Vec::new();
        for e in dir.flatten() {
            let Ok(name) = e.file_name().into_string() else {
                continue;
            };
            if let Some(key) = name.strip_suffix(".meta.json") {
                keys.push(key.to_string());
            } else if let Some(run) = name.strip_suffix(".lock") {
                locks.push(run.to_string());
            }
        }
        let mut alive: HashMap<String, bool> = HashMap::new();
        let mut is_alive = |run: &str| {
            if run == self.run {
                return true;
            }
            *alive
                .entry(run.to_string())
                .or_insert_with(|| claim(&self.dir, run).is_none())
        };
        let mut found = Vec::new();
        for key in &keys {
            if is_alive(run_of(key)) {
                continue;
            }
            if let Some(r) = self.read_copy(key) {
                found.push(r);
            }
        }
        for run in locks {
            let has_copies = keys.iter().any(|k| run_of(k) == run);
            if !has_copies && !is_alive(&run) {
                let _ = std::fs::remove_file(lock_file(&self.dir, &run));
            }
        }
        found.sort_by(|a, b| (a.saved_at, &a.id).cmp(&(b.saved_at, &b.id)));
        found
    }

    /// Copy `key` as the dialog shows it, with its file's fingerprint;
    /// `None` when its book file is missing or its sidecar broken.
    fn read_copy(&self, key: &str) -> Option<RecoveredBook> {
        self.read_sidecar(key).map(|(r, _)| r)
    }

    fn read_sidecar(&self, key: &str) -> Option<(RecoveredBook, Option<Fingerprint>)> {
        let book = self.book_file(key);
        if !book.is_file() {
            return None;
        }
        let bytes = formats::read_limited(&self.sidecar_file(key)).ok()?;
        let sidecar: Sidecar = serde_json::from_slice(&bytes).ok()?;
        let fingerprint = match (&sidecar.original_path, sidecar.disk) {
            (Some(_), None) => Some(Fingerprint::unknown()),
            (_, disk) => disk,
        };
        Some((
            RecoveredBook {
                id: key.to_string(),
                title: sidecar.title,
                original_path: sidecar.original_path.map(|p| p.display().to_string()),
                saved_at: sidecar.saved_at,
                file: book.display().to_string(),
            },
            fingerprint,
        ))
    }

    /// Copy `id` of an ended run, as [`Recovery::list`] would offer it,
    /// with that run's lock held until the returned guard is dropped; any
    /// other name is refused, so the webview cannot name a file outside the
    /// recovery folder (no path separators: only a key whose two files are
    /// in the folder reads), nor this run's or a running instance's copy.
    fn claimed(
        &self,
        id: &str,
    ) -> Result<(RecoveredBook, Option<Fingerprint>, Option<std::fs::File>), AppError> {
        let refused = || AppError::recovered_book_gone(id);
        let run = run_of(id);
        if run == self.run || id.contains(['/', '\\']) {
            return Err(refused());
        }
        let guard = claim(&self.dir, run).ok_or_else(refused)?;
        let (found, disk) = self.read_sidecar(id).ok_or_else(refused)?;
        Ok((found, disk, guard))
    }

    /// Opens copy `id` as a new doc of `ws`, dirty and bound to its
    /// original path, remembering that file as it was when the copy was
    /// made; the copy moves to this run (written again under this run's
    /// key before the old one is removed). Returns the doc.
    pub fn restore(&mut self, ws: &mut Workspace, id: &str) -> Result<u32, AppError> {
        let (found, disk, _guard) = self.claimed(id)?;
        let bytes = read_book_file(Path::new(&found.file))?;
        let (book, _) =
            native::load(&bytes).map_err(|e| AppError::not_a_book(Path::new(&found.file), &e))?;
        let doc = ws.add_doc(book, found.original_path.map(PathBuf::from));
        let d = ws.doc_mut(doc)?;
        d.history = History::unsaved();
        d.disk = disk;
        let plan = self.plan(ws, Instant::now(), Duration::ZERO);
        let errors = self.apply(plan);
        if errors.is_empty() {
            self.remove(id);
        }
        Ok(doc)
    }

    /// Deletes copy `id` of an ended run.
    pub fn discard(&self, id: &str) -> Result<(), AppError> {
        let _guard = self.claimed(id)?;
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

impl Workspace {
    /// A number that changes whenever a book is edited, undone, saved,
    /// opened or closed (each open book's id, revision and unsaved state),
    /// so autosave can tell, without the lock, that something may need a
    /// copy (see [`Recovery::due_while_busy`]).
    pub fn edit_mark(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for d in &self.docs {
            (d.id, d.history.revision(), d.dirty()).hash(&mut h);
        }
        h.finish()
    }
}

/// [`has_unsaved`] without waiting, for the main thread (the window's close
/// request): a workspace busy with long work is in an unknown state, which
/// counts as unsaved, so the UI is asked and the window never hangs.
pub fn has_unsaved_now(ws: &Mutex<Workspace>) -> bool {
    match ws.try_lock() {
        Ok(ws) => ws.any_dirty(),
        Err(_) => true,
    }
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

    /// The run `rec` ends as a crash ends it (its lock released, its
    /// copies left), and the next run starts on the same folder.
    fn after_crash(rec: &mut Recovery, dir: &Path) -> Recovery {
        rec.lock = None;
        // A process another test spawns holds a copy of every descriptor
        // between its fork and its exec, this run's lock with them: wait
        // until the lock is free, as it is once a crashed process is gone.
        let start = Instant::now();
        while claim(&rec.dir, &rec.run).is_none() && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(10));
        }
        Recovery::new(dir)
    }

    #[test]
    fn a_dirty_book_is_copied_only_after_the_quiet_period() {
        let tmp = TempDir::new("quiet");
        let (ws, _) = dirty_ws();
        let mut rec = Recovery::new(&tmp.0);
        let plan = rec.plan(&ws, Instant::now(), Duration::from_secs(3600));
        assert!(plan.write.is_empty(), "{plan:?}");
        rec.apply(plan);
        assert!(after_crash(&mut rec, &tmp.0).list().is_empty());
        let later = Instant::now() + AUTOSAVE_DELAY;
        let plan = rec.plan(&ws, later, AUTOSAVE_DELAY);
        assert_eq!(plan.write.len(), 1);
        assert!(rec.apply(plan).is_empty());
        // Unchanged since: nothing more to write.
        assert!(rec.plan(&ws, later, AUTOSAVE_DELAY).write.is_empty());
    }

    /// Issue 17: a pass that finds the workspace busy (a request log, a
    /// preview's build) stops that work only when a copy is due: once
    /// `delay` after a change it had not seen, or when the book its last
    /// pass saw changing becomes quiet; never while nothing is left to
    /// copy (the autosave ticks twice a second, and a build stopped that
    /// often would never end).
    #[test]
    fn autosave_stops_long_work_only_when_a_copy_is_due() {
        let tmp = TempDir::new("busy");
        let (mut ws, doc) = dirty_ws();
        let mut rec = Recovery::new(&tmp.0);
        let delay = AUTOSAVE_DELAY;
        let t0 = Instant::now();
        // A change the autosave has not seen: due `delay` later.
        assert!(!rec.due_while_busy(ws.edit_mark(), t0, delay));
        assert!(!rec.due_while_busy(ws.edit_mark(), t0 + delay / 2, delay));
        assert!(rec.due_while_busy(ws.edit_mark(), t0 + delay, delay));
        // Copied: nothing is due however long the work goes on.
        let plan = rec.plan(&ws, t0 + delay, delay);
        assert_eq!(plan.write.len(), 1);
        assert!(rec.apply(plan).is_empty());
        for s in 1..100 {
            let later = t0 + delay + Duration::from_secs(s);
            assert!(!rec.due_while_busy(ws.edit_mark(), later, delay));
        }
        // A pass that sees a book still changing knows when it is due.
        let mut s = ws.book_settings(doc).unwrap();
        s.name = "Edited again".into();
        ws.set_book_settings(doc, s).unwrap();
        let changed = ws.docs[0].history.changed_at().unwrap();
        let plan = rec.plan(&ws, changed, delay);
        assert!(plan.write.is_empty());
        rec.apply(plan);
        assert!(!rec.due_while_busy(ws.edit_mark(), changed, delay));
        assert!(rec.due_while_busy(ws.edit_mark(), changed + delay, delay));
        // Saving, closing or opening a book moves the mark too.
        let before = ws.edit_mark();
        ws.new_book();
        assert_ne!(ws.edit_mark(), before);
        // At start, before any pass: nothing due for books that need no
        // copy, at once for a book that does.
        let mut fresh = Recovery::new(&tmp.0);
        let clean = Workspace::with_sample();
        fresh.look(&clean, t0, delay);
        assert!(!fresh.due_while_busy(clean.edit_mark(), t0 + delay * 10, delay));
        let mut fresh = Recovery::new(&tmp.0);
        fresh.look(&ws, t0 + delay * 10, delay);
        assert!(fresh.due_while_busy(ws.edit_mark(), t0 + delay * 10, delay));
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

        let mut rec2 = after_crash(&mut rec, &tmp.0);
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
        // The copy now belongs to the second run, and a third one finds it
        // once the second has ended.
        assert!(rec2.list().is_empty());
        assert!(Recovery::new(&tmp.0).list().is_empty(), "the second runs");
        assert_eq!(after_crash(&mut rec2, &tmp.0).list().len(), 1);
    }

    #[test]
    fn a_new_never_saved_book_is_copied() {
        let tmp = TempDir::new("new");
        let mut ws = Workspace::default();
        let doc = ws.new_book();
        ws.add_entry(doc).unwrap();
        let mut rec = Recovery::new(&tmp.0);
        tick(&mut rec, &ws);
        let found = after_crash(&mut rec, &tmp.0).list();
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
        assert_eq!(after_crash(&mut rec, &tmp.0).list().len(), 1);
        ws.save(doc, Some(book.clone()), false).unwrap();
        tick(&mut rec, &ws);
        assert!(after_crash(&mut rec, &tmp.0).list().is_empty(), "saved");

        ws.add_entry(doc).unwrap();
        tick(&mut rec, &ws);
        assert_eq!(after_crash(&mut rec, &tmp.0).list().len(), 1);
        ws.close(doc).unwrap();
        tick(&mut rec, &ws);
        assert!(after_crash(&mut rec, &tmp.0).list().is_empty(), "closed");

        let (ws, _) = dirty_ws();
        tick(&mut rec, &ws);
        assert_eq!(after_crash(&mut rec, &tmp.0).list().len(), 1);
        rec.take_lock();
        rec.forget_all();
        assert!(Recovery::new(&tmp.0).list().is_empty(), "clean exit");
        // The later runs above ended cleanly too (dropped without copies):
        // a listing tidies their lock files away, and the clean exit took
        // its own.
        let left: Vec<_> = std::fs::read_dir(rec.dir())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert!(
            left.iter().all(|n| n.to_string_lossy().ends_with(".lock")),
            "{left:?}"
        );
        assert!(!lock_file(rec.dir(), &rec.run).exists());
    }

    #[test]
    fn discard_removes_a_copy_and_unknown_names_are_refused() {
        let tmp = TempDir::new("discard");
        let (ws, _) = dirty_ws();
        let mut rec = Recovery::new(&tmp.0);
        tick(&mut rec, &ws);
        let rec2 = after_crash(&mut rec, &tmp.0);
        let id = rec2.list()[0].id.clone();
        for bad in ["../book", "/etc/passwd", "", "nothing"] {
            assert!(rec2.discard(bad).is_err(), "{bad}");
        }
        rec2.discard(&id).unwrap();
        assert!(rec2.list().is_empty());
    }

    /// Two instances on one data folder: neither lists, restores nor
    /// deletes the other's live copies; once one ends without a clean exit
    /// its copies are offered.
    #[test]
    fn a_running_instance_s_copies_are_never_offered_to_another() {
        let tmp = TempDir::new("two");
        let (ws, _) = dirty_ws();
        let mut first = Recovery::new(&tmp.0);
        tick(&mut first, &ws);
        let key = first.key(ws.docs[0].id);
        let second = Recovery::new(&tmp.0);
        assert!(second.list().is_empty(), "{:?}", second.list());
        assert!(second.discard(&key).is_err());
        let mut ws2 = Workspace::default();
        let mut second = second;
        assert!(second.restore(&mut ws2, &key).is_err());
        assert!(first.book_file(&key).is_file(), "the live copy is kept");
        assert!(first.sidecar_file(&key).is_file());
        // The first ends as a kill ends it: its lock goes with the process.
        first.lock = None;
        assert_eq!(second.list().len(), 1);
    }

    /// The same across processes, with a real SIGKILL: a child process
    /// writes a copy and holds its lock; while it runs, this process is not
    /// offered the copy; once it is killed, a new run is.
    #[cfg(unix)]
    #[test]
    fn a_killed_instance_s_copies_are_offered_to_the_next_start() {
        use std::io::BufRead;
        let tmp = TempDir::new("kill");
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "workspace::recovery::tests::instance_child",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("LOREBOOK_RECOVERY_CHILD", &tmp.0)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let mut lines = std::io::BufReader::new(out).lines();
        let ready = lines.any(|l| l.is_ok_and(|l| l.contains("copy written")));
        assert!(ready, "the child wrote no copy");
        let second = Recovery::new(&tmp.0);
        assert!(
            second.list().is_empty(),
            "a live instance's copy was offered"
        );
        child.kill().unwrap();
        child.wait().unwrap();
        let third = Recovery::new(&tmp.0);
        let found = third.list();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].title, "Edited");
    }

    /// The child of the test above (does nothing when run on its own).
    #[test]
    #[ignore = "a helper process for the SIGKILL test"]
    fn instance_child() {
        let Some(dir) = std::env::var_os("LOREBOOK_RECOVERY_CHILD") else {
            return;
        };
        let (ws, _) = dirty_ws();
        let mut rec = Recovery::new(Path::new(&dir));
        assert!(tick(&mut rec, &ws).is_empty());
        println!("copy written");
        std::thread::sleep(Duration::from_secs(60));
    }

    /// A book opened from a file in `tmp`, edited and copied, then the app
    /// dies; `meanwhile` changes the file; the next run restores the copy.
    /// Returns that run's workspace, the restored doc and the file.
    fn restored_after_crash(
        tmp: &TempDir,
        meanwhile: impl FnOnce(&Path),
    ) -> (Workspace, u32, PathBuf) {
        let file = tmp.0.join("book.json");
        std::fs::write(
            &file,
            native::to_bytes(&Workspace::with_sample().docs[0].book),
        )
        .unwrap();
        let mut ws = Workspace::default();
        let doc = ws.open_path(&file).unwrap().doc;
        ws.add_entry(doc).unwrap();
        let mut rec = Recovery::new(&tmp.0);
        tick(&mut rec, &ws);
        let mut rec2 = after_crash(&mut rec, &tmp.0);
        meanwhile(&file);
        let mut ws2 = Workspace::default();
        let id = rec2.list()[0].id.clone();
        let restored = rec2.restore(&mut ws2, &id).unwrap();
        (ws2, restored, file)
    }

    /// A book restored after a crash remembers its file as it was when the
    /// copy was made: a file changed while the app was down (a `git pull`)
    /// is not overwritten without asking.
    #[test]
    fn a_restored_book_asks_before_saving_over_a_file_changed_meanwhile() {
        let tmp = TempDir::new("fingerprint");
        let (mut ws2, restored, file) = restored_after_crash(&tmp, |file| {
            std::fs::write(file, b"{\"name\": \"changed by git\", \"entries\": []}").unwrap()
        });
        let err = ws2.save(restored, None, false).unwrap_err();
        assert_eq!(err.kind, crate::error::ErrorKind::ChangedOnDisk, "{err:?}");
        assert!(std::fs::read_to_string(&file)
            .unwrap()
            .contains("changed by git"));
        // The user chose to overwrite.
        ws2.save(restored, None, true).unwrap();
        assert!(!std::fs::read_to_string(&file)
            .unwrap()
            .contains("changed by git"));
    }

    /// The same book restored over an unchanged file saves at once.
    #[test]
    fn a_restored_book_saves_over_its_unchanged_file() {
        let tmp = TempDir::new("fingerprint-same");
        let (mut ws2, restored, _) = restored_after_crash(&tmp, |_| {});
        ws2.save(restored, None, false).unwrap();
    }

    /// A copy written before fingerprints were kept: its file's state is
    /// unknown, so the first save over it asks.
    #[test]
    fn an_old_copy_without_a_fingerprint_asks_before_saving() {
        let tmp = TempDir::new("fingerprint-old");
        let file = tmp.0.join("book.json");
        std::fs::write(&file, b"{\"name\": \"b\", \"entries\": []}").unwrap();
        let dir = tmp.0.join("recovery");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("old-1.json"),
            native::to_bytes(&Workspace::with_sample().docs[0].book),
        )
        .unwrap();
        let sidecar = serde_json::json!({"original_path": file, "title": "b", "saved_at": 1});
        std::fs::write(dir.join("old-1.meta.json"), sidecar.to_string()).unwrap();
        let mut rec = Recovery::new(&tmp.0);
        let mut ws = Workspace::default();
        let doc = rec.restore(&mut ws, "old-1").unwrap();
        let err = ws.save(doc, None, false).unwrap_err();
        assert_eq!(err.kind, crate::error::ErrorKind::ChangedOnDisk);
    }

    #[test]
    fn autosave_failures_are_kept_until_a_copy_is_written() {
        let tmp = TempDir::new("failure");
        let (ws, _) = dirty_ws();
        // The data folder is a file: nothing can be written under it.
        let blocked = tmp.0.join("data");
        std::fs::write(&blocked, b"not a folder").unwrap();
        let mut rec = Recovery::new(&blocked);
        assert!(!tick(&mut rec, &ws).is_empty());
        let failure = rec.failure().cloned().unwrap();
        assert!(
            matches!(
                failure.code,
                crate::error::ErrorCode::Unwritable { .. }
                    | crate::error::ErrorCode::DiskFull { .. }
                    | crate::error::ErrorCode::PermissionDenied { .. }
            ),
            "{failure:?}"
        );
        assert!(failure.message.contains("recovery"), "{failure:?}");
        // Nothing new to write while typing: the failure stays (the copy
        // is still missing).
        rec.apply(Plan {
            any_dirty: true,
            ..Plan::default()
        });
        assert!(rec.failure().is_some());
        std::fs::remove_file(&blocked).unwrap();
        assert!(tick(&mut rec, &ws).is_empty());
        assert_eq!(rec.failure(), None);
    }

    /// Issue 17: autosave into a full or read-only data folder failed only
    /// on stderr; the failure is now kept, coded, for the UI's notice, and
    /// cleared once a copy is written again.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_or_read_only_data_folder_is_a_kept_failure() {
        use crate::workspace::tests::SmallDisk;
        let mut ran = false;
        if let Some(disk) = SmallDisk::mount("autosave-full", "64k") {
            ran = true;
            let (mut ws, doc) = dirty_ws();
            let mut e = ws.entry(doc, 1).unwrap().entry;
            e.content = "x".repeat(256 * 1024);
            ws.update_entry(doc, e).unwrap();
            let mut rec = Recovery::new(&disk.0);
            assert!(!tick(&mut rec, &ws).is_empty());
            let failure = rec.failure().cloned().expect("a kept failure");
            assert!(
                matches!(failure.code, crate::error::ErrorCode::DiskFull { .. }),
                "{failure:?}"
            );
        }
        if let Some(disk) = SmallDisk::read_only("autosave-ro") {
            ran = true;
            let (ws, _) = dirty_ws();
            let mut rec = Recovery::new(&disk.0);
            assert!(!tick(&mut rec, &ws).is_empty());
            assert!(rec.failure().is_some_and(|f| matches!(
                f.code,
                crate::error::ErrorCode::PermissionDenied { .. }
                    | crate::error::ErrorCode::Unwritable { .. }
            )));
        }
        if !ran {
            eprintln!("skipped: mounting a tmpfs needs permission");
        }
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
        assert_eq!(after_crash(&mut rec, &tmp.0).list().len(), 1);
    }

    /// Regression: a command that panicked while holding the workspace
    /// lock poisoned it, and the close check read the poisoned lock as
    /// "no unsaved changes", so the window closed without asking.
    /// Issue 17: the close request asked with a blocking lock on the main
    /// thread, so a long preview froze the window; now a busy workspace
    /// answers "unsaved" at once.
    #[test]
    fn the_close_check_never_waits_for_a_busy_workspace() {
        let ws = Mutex::new(Workspace::with_sample());
        assert!(!has_unsaved_now(&ws));
        let held = ws.lock().unwrap();
        let started = Instant::now();
        assert!(has_unsaved_now(&ws), "a busy workspace counts as unsaved");
        assert!(started.elapsed() < Duration::from_millis(100));
        drop(held);
        assert!(!has_unsaved_now(&ws));
    }

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
