//! Following the open books' files for edits by other programs: a text
//! editor, Obsidian, `git pull` or `git checkout` in a book kept as a
//! folder of Markdown files.
//!
//! Each open book's file is followed through its directory (editors, and
//! our own saves, replace a file by renaming another over it, which a
//! watch on the file itself would lose); a book kept as a folder is
//! followed with everything inside it, hidden directories such as `.git`
//! left out. Events are coalesced: once the files have been quiet for
//! [`QUIET`] (or after [`LONGEST`] of steady changes), the app is told
//! once, and the UI runs the check it runs on window focus
//! (`check_disk_changes`): a book without unsaved changes is read again, a
//! book with unsaved changes asks what to do.
//!
//! **Invariant:** an event only means "look again". Whether a book changed
//! is always decided by its fingerprint (`workspace::disk`), so the app's
//! own saves, a `touch` or a copy of the same bytes never reload anything,
//! and a missed event costs nothing but the wait for the next focus.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};

/// How long the followed files must be quiet before the app is told.
pub const QUIET: Duration = Duration::from_millis(300);

/// The longest a steady stream of changes (a long checkout) delays the
/// telling.
pub const LONGEST: Duration = Duration::from_secs(2);

/// One followed book.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    File(PathBuf),
    Folder(PathBuf),
}

impl Target {
    /// The book at `path`, symbolic links resolved so the file that
    /// changes is the one followed.
    fn of(path: &Path) -> Target {
        let real = std::fs::canonicalize(path)
            .or_else(|_| std::path::absolute(path))
            .unwrap_or_else(|_| path.to_path_buf());
        if real.is_dir() {
            Target::Folder(real)
        } else {
            Target::File(real)
        }
    }

    /// Whether a change at `p` may change this book.
    fn concerns(&self, p: &Path) -> bool {
        match self {
            Target::File(f) => p == f,
            Target::Folder(d) => p.strip_prefix(d).is_ok_and(|rel| {
                !rel.components().any(|c| {
                    matches!(c, Component::Normal(name) if name.to_string_lossy().starts_with('.'))
                })
            }),
        }
    }

    /// What the system watches for it, and whether below it too.
    fn watched(&self) -> (PathBuf, bool) {
        match self {
            Target::File(f) => (
                f.parent()
                    .map_or_else(|| PathBuf::from("/"), Path::to_path_buf),
                false,
            ),
            Target::Folder(d) => (d.clone(), true),
        }
    }
}

/// Whether `kind` can change a file's bytes or names (a read, which our
/// own fingerprint check makes, cannot).
fn writes(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

struct Running {
    system: RecommendedWatcher,
    /// Read by the event handler on the watcher's thread.
    targets: Arc<Mutex<BTreeSet<Target>>>,
    /// The books' paths as last given to [`Watch::follow`].
    paths: Vec<PathBuf>,
    /// What the system watches now: each path once, and whether
    /// recursively.
    watched: BTreeMap<PathBuf, bool>,
}

/// The app's one watcher (in `AppState`); it does nothing until
/// [`Watch::start`].
#[derive(Default)]
pub struct Watch(Mutex<Option<Running>>);

impl Watch {
    /// Starts following; `changed` is called (on a thread of the watch's
    /// own) each time followed files changed and then were quiet. An error
    /// means the system refused a watcher (the focus check still works).
    pub fn start(&self, changed: impl Fn() + Send + 'static) -> notify::Result<()> {
        let targets: Arc<Mutex<BTreeSet<Target>>> = Arc::default();
        let (tx, rx) = mpsc::channel::<()>();
        let seen = targets.clone();
        let system = notify::recommended_watcher(move |event: notify::Result<Event>| {
            let concerned = match event {
                Ok(e) => {
                    writes(&e.kind) && {
                        let t = seen.lock().unwrap_or_else(|p| p.into_inner());
                        e.paths.iter().any(|p| t.iter().any(|t| t.concerns(p)))
                    }
                }
                // Events may have been lost (the queue overflowed): look.
                Err(_) => true,
            };
            if concerned {
                let _ = tx.send(());
            }
        })?;
        std::thread::spawn(move || {
            while rx.recv().is_ok() {
                let first = Instant::now();
                while first.elapsed() < LONGEST && rx.recv_timeout(QUIET).is_ok() {}
                changed();
            }
        });
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(Running {
            system,
            targets,
            paths: Vec::new(),
            watched: BTreeMap::new(),
        });
        Ok(())
    }

    /// Follows the books at `paths` (files or folders) and no others.
    /// Cheap when they are the ones already followed, so every command
    /// calls it as it ends.
    pub fn follow(&self, paths: Vec<PathBuf>) {
        let mut running = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let Some(r) = running.as_mut() else { return };
        if r.paths == paths {
            return;
        }
        let wanted: BTreeSet<Target> = paths.iter().map(|p| Target::of(p)).collect();
        r.paths = paths;
        // One watch per path (the system has one per directory): a folder
        // book's folder that also holds a book file is watched recursively,
        // which covers the file's events too.
        let mut system: BTreeMap<PathBuf, bool> = BTreeMap::new();
        for (path, recursive) in wanted.iter().map(Target::watched) {
            *system.entry(path).or_default() |= recursive;
        }
        *r.targets.lock().unwrap_or_else(|p| p.into_inner()) = wanted;
        for (path, recursive) in &r.watched {
            if system.get(path) != Some(recursive) {
                let _ = r.system.unwatch(path);
            }
        }
        let mut now = BTreeMap::new();
        for (path, &recursive) in &system {
            if r.watched.get(path) == Some(&recursive) {
                now.insert(path.clone(), recursive);
                continue;
            }
            let mode = if recursive {
                RecursiveMode::Recursive
            } else {
                RecursiveMode::NonRecursive
            };
            match r.system.watch(path, mode) {
                Ok(()) => {
                    now.insert(path.clone(), recursive);
                }
                // Focus still checks it.
                Err(e) => eprintln!("Lorebook Studio: cannot follow {}: {e}", path.display()),
            }
        }
        r.watched = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A watch whose calls arrive on the returned channel.
    fn started() -> (Watch, mpsc::Receiver<()>) {
        let watch = Watch::default();
        let (tx, rx) = mpsc::channel();
        watch
            .start(move || {
                let _ = tx.send(());
            })
            .expect("a watcher");
        (watch, rx)
    }

    fn told(rx: &mpsc::Receiver<()>) -> bool {
        rx.recv_timeout(QUIET * 10).is_ok()
    }

    fn quiet(rx: &mpsc::Receiver<()>) -> bool {
        rx.recv_timeout(QUIET * 3).is_err()
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lbs-watch-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_book_file_rewritten_or_replaced_is_told_once_and_its_neighbours_are_not() {
        let dir = temp("file");
        let book = dir.join("book.json");
        std::fs::write(&book, "{}").unwrap();
        let (watch, rx) = started();
        watch.follow(vec![book.clone()]);
        std::fs::write(dir.join("other.json"), "{}").unwrap();
        assert!(quiet(&rx), "a neighbouring file is not the book");
        // A burst of writes is told once.
        for i in 0..5 {
            std::fs::write(&book, format!("{{\"n\":{i}}}")).unwrap();
        }
        assert!(told(&rx), "the book rewritten in place");
        assert!(quiet(&rx), "one call for the burst");
        // Replaced by a rename, as editors save.
        std::fs::write(dir.join(".book.tmp"), "{\"n\":9}").unwrap();
        std::fs::rename(dir.join(".book.tmp"), &book).unwrap();
        assert!(told(&rx), "the book replaced by a rename");
        // Reading it tells nothing.
        let _ = std::fs::read(&book).unwrap();
        assert!(quiet(&rx), "a read is not a change");
        // No longer followed.
        watch.follow(Vec::new());
        std::fs::write(&book, "{}").unwrap();
        assert!(quiet(&rx), "a book closed is not followed");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_book_folder_is_followed_at_any_depth_but_not_in_hidden_directories() {
        let dir = temp("folder");
        let book = dir.join("Book");
        std::fs::create_dir_all(book.join("Places").join(".git")).unwrap();
        std::fs::write(book.join("book.yaml"), "name: x\n").unwrap();
        let (watch, rx) = started();
        watch.follow(vec![book.clone()]);
        std::fs::write(book.join("Places").join(".git").join("index"), "x").unwrap();
        assert!(quiet(&rx), "a hidden directory is not the book");
        std::fs::write(dir.join("beside.md"), "x").unwrap();
        assert!(quiet(&rx), "a file beside the folder is not the book");
        std::fs::write(book.join("Places").join("Harbor.md"), "---\n---\nx").unwrap();
        assert!(told(&rx), "an entry's file in a subfolder");
        std::fs::remove_file(book.join("Places").join("Harbor.md")).unwrap();
        assert!(told(&rx), "an entry's file removed");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A book file kept in a book folder's own directory, both open: one
    /// watch serves both, and closing the folder book leaves the file
    /// followed.
    #[test]
    fn a_book_file_beside_a_book_folder_s_files_stays_followed_when_the_folder_closes() {
        let dir = temp("shared");
        std::fs::write(dir.join("book.yaml"), "name: x\n").unwrap();
        let file = dir.join("other.json");
        std::fs::write(&file, "{}").unwrap();
        let (watch, rx) = started();
        watch.follow(vec![dir.clone(), file.clone()]);
        std::fs::write(dir.join("Harbor.md"), "x").unwrap();
        assert!(told(&rx), "the folder book");
        watch.follow(vec![file.clone()]);
        std::fs::write(&file, "{\"n\":1}").unwrap();
        assert!(told(&rx), "the book file, still followed");
        std::fs::write(dir.join("Harbor.md"), "y").unwrap();
        assert!(quiet(&rx), "the closed folder book");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
