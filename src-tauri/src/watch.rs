//! Following the open books' files for edits by other programs: a text
//! editor, Obsidian, `git pull` or `git checkout` in a book kept as a
//! folder of Markdown files.
//!
//! Each open book's file is followed through its directory (editors, and
//! our own saves, replace a file by renaming another over it, which a
//! watch on the file itself would lose); a book kept as a folder is
//! followed through each of its directories, found by a walk of our own
//! that never follows a symbolic link and never enters a hidden directory
//! such as `.git` (a link to `/` inside a book folder is a link, not the
//! disk), at most [`MAX_DIRS`] directories a book: past that, the folder
//! is said to be followed only in part ([`Watch::start`]'s `unfollowed`),
//! and the rest is checked when the window comes back to the front. The
//! walk runs on the watch's own thread, never under the workspace's lock.
//! Events are coalesced: once the files have been quiet for [`QUIET`] (or
//! after [`LONGEST`] of steady changes), the app is told once, and the UI
//! runs the check it runs on window focus (`check_disk_changes`): a book
//! without unsaved changes is read again, a book with unsaved changes
//! asks what to do. A directory made inside a book folder is followed
//! from then on (each telling walks the folders again).
//!
//! **Invariant:** an event only means "look again". Whether a book changed
//! is always decided by its fingerprint (`workspace::disk`), so the app's
//! own saves, a `touch` or a copy of the same bytes never reload anything,
//! and a missed event costs nothing but the wait for the next focus.

use std::collections::BTreeSet;
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

/// The most directories of one book folder that are watched: a watch is a
/// kernel resource a user has a few thousand of (inotify's
/// `max_user_watches` is 8,192 on many systems), shared with every other
/// program.
pub const MAX_DIRS: usize = 1024;

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

    /// The directories the system watches for it: a book file's
    /// directory, or a book folder's directories ([`folder_dirs`]); and,
    /// for a folder with more than [`MAX_DIRS`], that it is followed only
    /// in part.
    fn watched(&self) -> (Vec<PathBuf>, bool) {
        match self {
            Target::File(f) => (
                vec![f
                    .parent()
                    .map_or_else(|| PathBuf::from("/"), Path::to_path_buf)],
                false,
            ),
            Target::Folder(d) => folder_dirs(d, MAX_DIRS),
        }
    }
}

/// `root` and the directories under it that a book folder's reader
/// enters: real directories (never a symbolic link), not hidden, at most
/// 64 levels down; at most `max`, with whether some were left out.
fn folder_dirs(root: &Path, max: usize) -> (Vec<PathBuf>, bool) {
    let mut out = vec![root.to_path_buf()];
    let mut at = 0;
    let mut depth = vec![0usize];
    while at < out.len() {
        let (dir, d) = (out[at].clone(), depth[at]);
        at += 1;
        if d >= 64 {
            continue;
        }
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut subdirs: Vec<PathBuf> = read
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .collect();
        subdirs.sort();
        for s in subdirs {
            if out.len() >= max {
                return (out, true);
            }
            out.push(s);
            depth.push(d + 1);
        }
    }
    (out, false)
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
    /// The directories the system watches now.
    watched: BTreeSet<PathBuf>,
    /// The folders said to be followed in part, so each is said once.
    partial: BTreeSet<PathBuf>,
    /// The paths the watches were last brought in line with.
    applied: Vec<PathBuf>,
}

/// What the watch's own thread is woken for.
enum Wake {
    /// Followed files changed.
    Changed,
    /// The books to follow changed: walk their folders.
    Follow,
}

/// The app's one watcher (in `AppState`); it does nothing until
/// [`Watch::start`].
#[derive(Default)]
pub struct Watch {
    running: Arc<Mutex<Option<Running>>>,
    wake: Mutex<Option<mpsc::Sender<Wake>>>,
}

impl Watch {
    /// Starts following; `changed` is called (on a thread of the watch's
    /// own) each time followed files changed and then were quiet, and
    /// `unfollowed` with a sentence when a book folder can be followed
    /// only in part (too many directories, or the system refused a
    /// watch). An error means the system refused a watcher (the focus
    /// check still works).
    pub fn start(
        &self,
        changed: impl Fn() + Send + 'static,
        unfollowed: impl Fn(String) + Send + 'static,
    ) -> notify::Result<()> {
        let targets: Arc<Mutex<BTreeSet<Target>>> = Arc::default();
        let (tx, rx) = mpsc::channel::<Wake>();
        let seen = targets.clone();
        let events = tx.clone();
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
                let _ = events.send(Wake::Changed);
            }
        })?;
        *self.running.lock().unwrap_or_else(|p| p.into_inner()) = Some(Running {
            system,
            targets,
            paths: Vec::new(),
            watched: BTreeSet::new(),
            partial: BTreeSet::new(),
            applied: Vec::new(),
        });
        *self.wake.lock().unwrap_or_else(|p| p.into_inner()) = Some(tx);
        let running = self.running.clone();
        std::thread::spawn(move || {
            while let Ok(wake) = rx.recv() {
                if let Wake::Follow = wake {
                    update(&running, &unfollowed);
                    continue;
                }
                let first = Instant::now();
                while first.elapsed() < LONGEST {
                    match rx.recv_timeout(QUIET) {
                        Ok(Wake::Changed) => {}
                        Ok(Wake::Follow) => update(&running, &unfollowed),
                        Err(_) => break,
                    }
                }
                // Directories made since are followed from now on.
                update(&running, &unfollowed);
                changed();
            }
        });
        Ok(())
    }

    /// Follows the books at `paths` (files or folders) and no others.
    /// Cheap, and never walks a folder itself: the watch's own thread
    /// does, so every command calls it as it ends, holding the workspace.
    pub fn follow(&self, paths: Vec<PathBuf>) {
        {
            let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
            let Some(r) = running.as_mut() else { return };
            if r.paths == paths {
                return;
            }
            r.paths = paths;
        }
        if let Some(tx) = &*self.wake.lock().unwrap_or_else(|p| p.into_inner()) {
            let _ = tx.send(Wake::Follow);
        }
    }

    /// Waits until the watches follow the paths last given (for tests:
    /// the walk runs on the watch's own thread).
    #[cfg(test)]
    fn settle(&self) {
        let start = Instant::now();
        loop {
            if let Some(r) = &*self.running.lock().unwrap_or_else(|p| p.into_inner()) {
                if r.applied == r.paths {
                    return;
                }
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the watch never settled"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// How many directories the system watches now (for tests).
    #[cfg(test)]
    fn watch_count(&self) -> usize {
        self.running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map_or(0, |r| r.watched.len())
    }
}

/// Brings the system's watches in line with the books to follow: the
/// folders are walked without the lock, then the watches changed under it.
fn update(running: &Mutex<Option<Running>>, unfollowed: &dyn Fn(String)) {
    let paths = match &*running.lock().unwrap_or_else(|p| p.into_inner()) {
        Some(r) => r.paths.clone(),
        None => return,
    };
    let wanted: BTreeSet<Target> = paths.iter().map(|p| Target::of(p)).collect();
    let mut dirs = BTreeSet::new();
    let mut partial = BTreeSet::new();
    for t in &wanted {
        let (d, cut) = t.watched();
        dirs.extend(d);
        if let (true, Target::Folder(f)) = (cut, t) {
            partial.insert(f.clone());
        }
    }
    let mut guard = running.lock().unwrap_or_else(|p| p.into_inner());
    let Some(r) = guard.as_mut() else { return };
    if r.paths != paths {
        // Asked to follow others meanwhile: that asking walks again.
        return;
    }
    *r.targets.lock().unwrap_or_else(|p| p.into_inner()) = wanted;
    for d in r.watched.difference(&dirs).cloned().collect::<Vec<_>>() {
        let _ = r.system.unwatch(&d);
        r.watched.remove(&d);
    }
    let mut refused = None;
    for d in dirs.difference(&r.watched.clone()) {
        match r.system.watch(d, RecursiveMode::NonRecursive) {
            Ok(()) => {
                r.watched.insert(d.clone());
            }
            // Focus still checks it.
            Err(e) => {
                refused.get_or_insert_with(|| format!("{}: {e}", d.display()));
            }
        }
    }
    let mut say = Vec::new();
    for f in &partial {
        if r.partial.insert(f.clone()) {
            say.push(format!(
                "{} has more than {MAX_DIRS} folders: edits made outside the app in the others are \
                 noticed when the window comes back to the front",
                f.display()
            ));
        }
    }
    r.partial.retain(|f| partial.contains(f));
    r.applied = paths;
    if let Some(e) = refused {
        say.push(format!(
            "the system refused to follow a folder of an open book ({e}): edits made outside the \
             app there are noticed when the window comes back to the front"
        ));
    }
    drop(guard);
    for s in say {
        unfollowed(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A watch whose calls arrive on the returned channel.
    fn started() -> (Watch, mpsc::Receiver<()>) {
        let (watch, rx, _) = started_saying();
        (watch, rx)
    }

    /// [`started`], with what it says of folders followed in part.
    fn started_saying() -> (Watch, mpsc::Receiver<()>, mpsc::Receiver<String>) {
        let watch = Watch::default();
        let (tx, rx) = mpsc::channel();
        let (said_tx, said) = mpsc::channel();
        watch
            .start(
                move || {
                    let _ = tx.send(());
                },
                move |s| {
                    let _ = said_tx.send(s);
                },
            )
            .expect("a watcher");
        (watch, rx, said)
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
        watch.settle();
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
        watch.settle();
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
        watch.settle();
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
        watch.settle();
        std::fs::write(dir.join("Harbor.md"), "x").unwrap();
        assert!(told(&rx), "the folder book");
        watch.follow(vec![file.clone()]);
        watch.settle();
        std::fs::write(&file, "{\"n\":1}").unwrap();
        assert!(told(&rx), "the book file, still followed");
        std::fs::write(dir.join("Harbor.md"), "y").unwrap();
        assert!(quiet(&rx), "the closed folder book");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A book folder holding a link to `/` and a `.git` directory: the
    /// link is never followed and `.git` never watched, so following it
    /// takes a few watches at once (issue 37).
    #[test]
    fn a_link_to_the_root_inside_a_book_folder_is_never_walked() {
        let dir = temp("link-root");
        let book = dir.join("Book");
        std::fs::create_dir_all(book.join("Places")).unwrap();
        std::fs::create_dir_all(book.join(".git").join("objects")).unwrap();
        std::fs::write(book.join("book.yaml"), "format: lorebook-studio-folder\n").unwrap();
        std::os::unix::fs::symlink("/", book.join("root")).unwrap();
        let (watch, rx) = started();
        let start = Instant::now();
        watch.follow(vec![book.clone()]);
        watch.settle();
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
        assert_eq!(watch.watch_count(), 2, "the folder and Places only");
        // Still told of a new directory's files once it is followed.
        std::fs::create_dir_all(book.join("Lore")).unwrap();
        assert!(told(&rx), "a directory made inside");
        watch.settle();
        assert_eq!(watch.watch_count(), 3);
        std::fs::write(book.join("Lore").join("Gods.md"), "x").unwrap();
        assert!(told(&rx), "a file in the new directory");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A folder of more directories than the bound is followed in part,
    /// and says so once.
    #[test]
    fn a_folder_of_thousands_of_directories_is_followed_in_part_and_says_so() {
        let dir = temp("many");
        for i in 0..(MAX_DIRS + 50) {
            std::fs::create_dir_all(dir.join(format!("d{i:05}"))).unwrap();
        }
        let (watch, _rx, said) = started_saying();
        watch.follow(vec![dir.clone()]);
        watch.settle();
        assert_eq!(watch.watch_count(), MAX_DIRS);
        let s = said.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(s.contains("more than"), "{s}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
