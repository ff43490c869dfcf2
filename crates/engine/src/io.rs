//! Bounded reading of the files a user names (books, chats and card
//! images), and atomic writing of the files the app saves ([`write`]).
//!
//! Every read goes through [`read_capped`], which refuses anything that is
//! not a regular file (a FIFO would block for ever, a device can be endless,
//! a directory has no content) and stops after the cap plus one byte, so the
//! limit holds whatever the file system's metadata claims.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

pub mod write;

pub use write::{backup_path, stage, sync_dir, write_atomic, write_with_backup, Staged};

/// The largest chat file read (64 MiB): thousands of long messages fit,
/// and an absurd file gets a clear refusal instead of exhausting memory.
pub const MAX_CHAT_BYTES: u64 = 64 * 1024 * 1024;

/// Why a file could not be read. Displayed, every variant names the file.
#[derive(Debug)]
pub enum ReadError {
    /// The path names a directory, FIFO, socket or device.
    NotAFile { path: PathBuf, kind: &'static str },
    /// The file holds more than `cap` bytes.
    TooLarge { path: PathBuf, cap: u64 },
    /// The file is not UTF-8 text (for [`read_text_capped`]).
    NotText { path: PathBuf, offset: usize },
    /// The operating system refused (missing file, permissions, …).
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotAFile { path, kind } => write!(
                f,
                "cannot read {}: it is a {kind}, not a regular file",
                path.display()
            ),
            ReadError::TooLarge { path, cap } => write!(
                f,
                "cannot read {}: it is larger than {}; such files are refused",
                path.display(),
                human_size(*cap)
            ),
            ReadError::NotText { path, offset } => write!(
                f,
                "cannot read {}: not UTF-8 text (invalid byte at offset {offset})",
                path.display()
            ),
            ReadError::Io { path, error } => write!(f, "cannot read {}: {error}", path.display()),
        }
    }
}

impl std::error::Error for ReadError {}

/// A cap in the largest whole unit that states it exactly.
fn human_size(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes >= MIB && bytes % MIB == 0 {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= 1024 && bytes % 1024 == 0 {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

/// What a non-regular file is, in words.
fn kind_of(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("FIFO (named pipe)");
        }
        if t.is_socket() {
            return Some("socket");
        }
        if t.is_char_device() || t.is_block_device() {
            return Some("device");
        }
    }
    Some("special file")
}

/// Reads a regular file of at most `cap` bytes.
///
/// The type is checked before opening, because opening a FIFO blocks until
/// a writer appears, and again on the open handle, so a path replaced in
/// between by a directory or a device is still refused. The size comes from
/// the bytes actually read, never from metadata alone: a file that grows,
/// or reports a wrong size, still stops at `cap + 1` bytes.
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    let io = |error| ReadError::Io {
        path: path.to_path_buf(),
        error,
    };
    let not_a_file = |kind| ReadError::NotAFile {
        path: path.to_path_buf(),
        kind,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if let Some(kind) = kind_of(&meta) {
        return Err(not_a_file(kind));
    }
    let file = File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if let Some(kind) = kind_of(&meta) {
        return Err(not_a_file(kind));
    }
    let too_large = || ReadError::TooLarge {
        path: path.to_path_buf(),
        cap,
    };
    // A size above the cap is refused before reading; below it, metadata
    // only sizes the first allocation and the cap holds on the bytes read.
    if meta.len() > cap {
        return Err(too_large());
    }
    let hint = meta.len().min(cap).saturating_add(1);
    let mut bytes = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > cap {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Reads the regular file at `path` itself, never a file a symbolic link
/// there points to, with its metadata taken from the open handle before
/// the bytes are read: the one read for a book kept as a folder, whose
/// files come from a repository the author may not have written
/// (docs/markdown-folder.md). The file is opened without waiting on a
/// FIFO's writer, and refused unless regular, before a byte is read.
pub fn read_capped_no_follow(
    path: &Path,
    cap: u64,
) -> Result<(Vec<u8>, std::fs::Metadata), ReadError> {
    let io = |error| ReadError::Io {
        path: path.to_path_buf(),
        error,
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let meta = std::fs::symlink_metadata(path).map_err(io)?;
    if meta.file_type().is_symlink() {
        return Err(ReadError::NotAFile {
            path: path.to_path_buf(),
            kind: "symbolic link",
        });
    }
    if let Some(kind) = kind_of(&meta) {
        return Err(ReadError::NotAFile {
            path: path.to_path_buf(),
            kind,
        });
    }
    let file = options.open(path).map_err(|e| {
        // O_NOFOLLOW's refusal of a link put there since the look.
        if cfg!(unix) && e.raw_os_error() == Some(eloop()) {
            ReadError::NotAFile {
                path: path.to_path_buf(),
                kind: "symbolic link",
            }
        } else {
            io(e)
        }
    })?;
    let meta = file.metadata().map_err(io)?;
    if let Some(kind) = kind_of(&meta) {
        return Err(ReadError::NotAFile {
            path: path.to_path_buf(),
            kind,
        });
    }
    if meta.len() > cap {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            cap,
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len().min(cap)).unwrap_or(0));
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            cap,
        });
    }
    Ok((bytes, meta))
}

/// The error number of a refused link (`ELOOP`).
fn eloop() -> i32 {
    #[cfg(unix)]
    {
        libc::ELOOP
    }
    #[cfg(not(unix))]
    {
        -1
    }
}

/// Reads a regular UTF-8 text file of at most `cap` bytes.
pub fn read_text_capped(path: &Path, cap: u64) -> Result<String, ReadError> {
    text_of(path, read_capped(path, cap)?)
}

/// The bytes read from `path` as UTF-8 text, or an error naming the file
/// and the first invalid byte.
pub fn text_of(path: &Path, bytes: Vec<u8>) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|e| ReadError::NotText {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lbs-io-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn caps_hold_just_under_and_just_over() {
        let dir = temp_dir("cap");
        let path = dir.join("f");
        std::fs::write(&path, vec![b'x'; 100]).unwrap();
        assert_eq!(read_capped(&path, 100).unwrap().len(), 100);
        assert_eq!(read_capped(&path, 101).unwrap().len(), 100);
        let err = read_capped(&path, 99).unwrap_err();
        assert!(matches!(err, ReadError::TooLarge { cap: 99, .. }), "{err}");
        assert!(err.to_string().contains("larger than 99 bytes"), "{err}");
        std::fs::write(&path, b"").unwrap();
        assert_eq!(read_capped(&path, 0).unwrap(), b"");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn chat_cap_just_under_and_just_over() {
        let dir = temp_dir("chat-cap");
        let path = dir.join("chat.txt");
        // Sparse files: the size costs no disk, the read costs the cap.
        let f = File::create(&path).unwrap();
        f.set_len(MAX_CHAT_BYTES).unwrap();
        assert_eq!(
            read_capped(&path, MAX_CHAT_BYTES).unwrap().len() as u64,
            MAX_CHAT_BYTES
        );
        f.set_len(MAX_CHAT_BYTES + 1).unwrap();
        let err = read_text_capped(&path, MAX_CHAT_BYTES).unwrap_err();
        assert!(err.to_string().contains("larger than 64 MiB"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn text_must_be_utf8() {
        let dir = temp_dir("text");
        let path = dir.join("t");
        std::fs::write(&path, b"ok \xff").unwrap();
        let err = read_text_capped(&path, 10).unwrap_err();
        assert!(err.to_string().contains("offset 3"), "{err}");
        std::fs::write(&path, "café").unwrap();
        assert_eq!(read_text_capped(&path, 10).unwrap(), "café");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn directories_and_missing_files_are_refused() {
        let dir = temp_dir("dir");
        let err = read_capped(&dir, 10).unwrap_err();
        assert!(err.to_string().contains("is a directory"), "{err}");
        let err = read_capped(&dir.join("missing"), 10).unwrap_err();
        assert!(matches!(err, ReadError::Io { .. }), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn fifos_and_devices_are_refused_at_once() {
        let dir = temp_dir("fifo");
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let start = std::time::Instant::now();
        let err = read_capped(&fifo, 10).unwrap_err();
        assert!(err.to_string().contains("FIFO"), "{err}");
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
        let err = read_capped(Path::new("/dev/zero"), 10).unwrap_err();
        assert!(err.to_string().contains("is a device"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
