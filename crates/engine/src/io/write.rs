//! Writing files so that a crash, a kill or a power cut at any moment leaves
//! either the old file or the new one, never half of either.
//!
//! [`write_atomic`] writes a temporary file beside the target, fsyncs it,
//! renames it over the target and fsyncs the folder, so the rename itself
//! survives a power cut. Around that discipline:
//!
//! - The temporary file is created exclusively (`create_new`), so a symlink
//!   or file planted at its name is never followed or truncated. Its name,
//!   `.NAME.lbs-tmp-PID-N`, is recognisable: temporaries left by a killed
//!   process (its PID gone, or older than [`STALE_TEMP_AGE`]) are removed by
//!   the next write into the same folder.
//! - The new file keeps the permissions of the one it replaces, and has
//!   them from the moment it is created: a file that replaces a private one
//!   is created readable by its owner only, so no other user can open it
//!   while it is written.
//! - A target that is a symlink is resolved first: the file it points to is
//!   replaced and the link stays a link.
//! - [`write_with_backup`] first keeps the previous version as `NAME.bak`
//!   beside the file (see [`backup_path`]). The new backup is made under a
//!   temporary name and renamed over the last one, so there is always a
//!   backup: never a moment when the old one is gone and the new one not
//!   yet there.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// How old a temporary file of ours must be before any writer treats it as
/// left over by a crash, whatever its PID says.
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(60);

/// The marker between a file's name and the writer's PID in temporary names.
const TEMP_MARK: &str = ".lbs-tmp-";

/// How many symlinks are followed before a path is refused as a loop (the
/// number Linux follows before `ELOOP`).
const MAX_LINKS: usize = 40;

/// Numbers the temporary files of this process, so two writes never race
/// for one name.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` atomically (see the module header).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write(path, bytes, false)
}

/// Like [`write_atomic`], but first keeps the file being replaced as
/// [`backup_path`]. The backup is a hard link to the old file where the file
/// system allows (no copy, and the rename leaves it holding the old bytes),
/// else a copy. A failed backup does not stop the save: losing the backup
/// of a version is better than refusing to save the next one.
pub fn write_with_backup(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write(path, bytes, true)
}

/// Where [`write_with_backup`] keeps the previous version of `path`:
/// `NAME.bak` in the same folder, after resolving symlinks.
pub fn backup_path(path: &Path) -> io::Result<PathBuf> {
    let target = resolve_links(path)?;
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(".bak");
    Ok(target.with_file_name(name))
}

fn write(path: &Path, bytes: &[u8], backup: bool) -> io::Result<()> {
    let target = resolve_links(path)?;
    let (dir, name) = dir_and_name(&target, path)?;
    if !dir.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!(
                "the folder {} does not exist (was it moved or deleted?)",
                dir.display()
            ),
        ));
    }
    remove_stale_temps(&dir, &name);
    // And those of a killed writer's backup, whatever this write keeps.
    remove_stale_temps(&dir, &format!("{name}.bak"));
    let existing = fs::metadata(&target).ok().filter(|m| m.is_file());
    // Replacing a file: the temporary starts private and takes the old
    // file's permissions before a byte is written (an fd opened while it
    // was readable would keep reading whatever is written after).
    let (tmp, mut file) = create_temp(&dir, &name, existing.is_some())?;
    let result = (|| {
        if let Some(meta) = &existing {
            file.set_permissions(meta.permissions())?;
        }
        step(Step::TempCreated, &tmp);
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        if backup && existing.is_some() {
            keep_backup(&dir, &target);
        }
        fs::rename(&tmp, &target)?;
        sync_dir(&dir);
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(|e: io::Error| match e.kind() {
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded | io::ErrorKind::FileTooLarge => {
            io::Error::new(
                e.kind(),
                format!(
                    "the disk holding {} is full ({e}); the file was not changed",
                    dir.display()
                ),
            )
        }
        _ => e,
    })
}

/// The folder `target` is in (`.` for a bare name) and its file name; an
/// error naming `asked` (the path the caller was given) when it names no
/// file.
fn dir_and_name(target: &Path, asked: &Path) -> io::Result<(PathBuf, String)> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Some(name) = target.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} does not name a file", asked.display()),
        ));
    };
    Ok((dir, name))
}

/// A file written in full under a temporary name beside its target, not
/// yet in place: the first half of a save that writes many files and
/// wants either all of them or none ([`stage`], [`Staged::commit`]).
#[derive(Debug)]
pub struct Staged {
    tmp: PathBuf,
    target: PathBuf,
}

/// Writes `bytes` under a temporary name beside `target` and fsyncs it,
/// without touching `target`. Unlike [`write_atomic`], no link is
/// followed: a `target` that is a symbolic link, a directory or anything
/// but a regular file is refused, and the temporary file is created
/// exclusively. The new file takes the permissions of the one it will
/// replace.
pub fn stage(target: &Path, bytes: &[u8]) -> io::Result<Staged> {
    let (dir, name) = dir_and_name(target, target)?;
    let existing = match fs::symlink_metadata(target) {
        Ok(meta) if meta.file_type().is_file() => Some(meta),
        Ok(_) => return Err(not_regular(target)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    remove_stale_temps(&dir, &name);
    let (tmp, mut file) = create_temp(&dir, &name, existing.is_some())?;
    let written = (|| {
        if let Some(meta) = &existing {
            file.set_permissions(meta.permissions())?;
        }
        file.write_all(bytes)?;
        file.sync_all()
    })();
    match written {
        Ok(()) => Ok(Staged {
            tmp,
            target: target.to_path_buf(),
        }),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// The refusal of a target that is not a regular file.
fn not_regular(target: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is a symbolic link or not a regular file; it is never written through",
            target.display()
        ),
    )
}

impl Staged {
    /// Puts the file in place (a rename over the target, which replaces a
    /// file whole and never follows a link). The target is looked at once
    /// more first: one that became a link or a directory since it was
    /// staged is refused. The folder is not synced: the caller syncs each
    /// folder once after its last commit ([`sync_dir`]).
    pub fn commit(self) -> io::Result<()> {
        match fs::symlink_metadata(&self.target) {
            Ok(meta) if !meta.file_type().is_file() => {
                let err = not_regular(&self.target);
                self.discard();
                return Err(err);
            }
            _ => {}
        }
        let renamed = fs::rename(&self.tmp, &self.target);
        if renamed.is_err() {
            let _ = fs::remove_file(&self.tmp);
        }
        renamed
    }

    /// Removes the temporary file: the target stays as it was.
    pub fn discard(self) {
        let _ = fs::remove_file(&self.tmp);
    }

    /// Where the file goes.
    pub fn target(&self) -> &Path {
        &self.target
    }
}

/// `path` with every symlink in its last component followed, so a save
/// replaces the file a link points to and not the link. A dangling link
/// resolves to the path it names, which the save then creates.
fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    // One look more than links followed: the last link's target may be
    // the file.
    for _ in 0..=MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is a loop of symlinks (or a chain of more than {MAX_LINKS})",
            path.display()
        ),
    ))
}

/// Creates a new temporary file beside the target, never opening a file
/// that already exists at its name; `private` creates it readable and
/// writable by its owner only (its permissions are set afterwards).
fn create_temp(dir: &Path, name: &str, private: bool) -> io::Result<(PathBuf, File)> {
    loop {
        let n = NEXT_TEMP.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}{TEMP_MARK}{}-{n}", std::process::id()));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        if private {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        #[cfg(not(unix))]
        let _ = private;
        match options.open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            // Someone else's file holds this name: take the next number.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("the folder {} is not writable ({e})", dir.display()),
                ))
            }
            Err(e) => return Err(e),
        }
    }
}

/// Removes temporary files that an earlier write of `name` left in `dir`
/// when its process was killed: those of a process no longer running, and
/// any older than [`STALE_TEMP_AGE`]. Failures are ignored; this is tidying.
fn remove_stale_temps(dir: &Path, name: &str) {
    let prefix = format!(".{name}{TEMP_MARK}");
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        let Some(pid) = temp_pid(rest) else { continue };
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| SystemTime::now().duration_since(m).ok())
            .is_some_and(|age| age > STALE_TEMP_AGE);
        if old || (pid != std::process::id() && !process_alive(pid)) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The PID in the `PID-N` tail of a temporary file's name.
fn temp_pid(rest: &str) -> Option<u32> {
    let (pid, n) = rest.split_once('-')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// Whether process `pid` runs. Where that cannot be asked cheaply, every
/// process counts as running and only age removes its temporaries.
fn process_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new(&format!("/proc/{pid}")).exists()
    } else {
        true
    }
}

/// Keeps the current file at `target` as its backup, replacing the last:
/// the new backup is made under a temporary name in `dir` (created
/// exclusively, so nothing planted there is followed) and renamed over the
/// old one, which a rename replaces whole, a symlink planted at the
/// backup's name included. Until that rename the old backup stays.
fn keep_backup(dir: &Path, target: &Path) {
    let Ok(bak) = backup_path(target) else { return };
    let bak_name = bak.file_name().unwrap_or_default().to_string_lossy();
    let tmp = loop {
        let n = NEXT_TEMP.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{bak_name}{TEMP_MARK}{}-{n}", std::process::id()));
        match fs::hard_link(target, &tmp) {
            Ok(()) => break Some(tmp),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            // No hard links here: a copy, into a file created exclusively.
            Err(_) => {
                let Ok((tmp, mut file)) = create_temp(dir, &bak_name, true) else {
                    break None;
                };
                let copied = fs::read(target).and_then(|b| {
                    if let Ok(meta) = fs::metadata(target) {
                        file.set_permissions(meta.permissions())?;
                    }
                    file.write_all(&b)
                });
                if copied.is_err() {
                    let _ = fs::remove_file(&tmp);
                    break None;
                }
                break Some(tmp);
            }
        }
    };
    let Some(tmp) = tmp else { return };
    step(Step::BackupMade, &tmp);
    if fs::rename(&tmp, &bak).is_err() {
        let _ = fs::remove_file(&tmp);
    }
}

/// The moments of a write a test can look at.
#[cfg_attr(not(test), allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// The temporary file exists, with its final permissions, still empty.
    TempCreated,
    /// The new backup exists under its temporary name, not yet renamed.
    BackupMade,
}

/// What a test runs at each [`Step`].
#[cfg(test)]
type StepHook = Box<dyn FnMut(Step, &Path)>;

#[cfg(test)]
thread_local! {
    /// Called at each [`Step`] of a write on this thread (tests only).
    static STEP_HOOK: std::cell::RefCell<Option<StepHook>> =
        const { std::cell::RefCell::new(None) };
}

#[cfg(test)]
fn step(at: Step, path: &Path) {
    STEP_HOOK.with(|h| {
        if let Some(f) = h.borrow_mut().as_mut() {
            f(at, path)
        }
    });
}

#[cfg(not(test))]
fn step(_: Step, _: &Path) {}

/// Persists a rename in `dir`. Folders cannot be opened for syncing on
/// every platform, so a failure here is not an error.
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
#[path = "write_tests.rs"]
mod tests;
