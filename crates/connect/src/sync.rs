//! Pulling and pushing books, with the check SillyTavern's API lacks: its
//! `edit` replaces a book whatever the server holds, so before writing we
//! look at the server's copy and compare it with the one this machine last
//! pulled or pushed (a SHA-256 of its JSON, kept in a small record file,
//! [`Ledger`]). The record holds server addresses, user names, book names
//! and fingerprints: never a password, never a book's text.
//!
//! Between that look and the write another client can still write (the API
//! has no version to send); the window is one request long.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::client::Server;
use crate::error::{Changed, Error};

/// The environment variable that moves the record (tests, portable installs).
pub const STATE_DIR_ENV: &str = "LOREBOOK_STATE_DIR";

/// The record's file name in the state folder.
pub const LEDGER_FILE: &str = "sillytavern-sync.json";

/// The fingerprint of a book's JSON: SHA-256 of its compact form, keys in
/// the order the server sent them.
pub fn fingerprint(value: &Value) -> String {
    let bytes = serde_json::to_vec(value).expect("a JSON value serialises");
    let digest = Sha256::digest(&bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// What this machine last saw of each server's books.
#[derive(Debug)]
pub struct Ledger {
    path: PathBuf,
    seen: BTreeMap<String, String>,
}

impl Ledger {
    /// `$LOREBOOK_STATE_DIR`, else `$XDG_STATE_HOME/lorebook-studio`, else
    /// `~/.local/state/lorebook-studio`: the record's file there.
    pub fn default_path() -> PathBuf {
        let dir = std::env::var_os(STATE_DIR_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("XDG_STATE_HOME")
                    .filter(|v| !v.is_empty())
                    .map(|d| PathBuf::from(d).join("lorebook-studio"))
            })
            .or_else(|| {
                std::env::var_os("HOME")
                    .map(|h| PathBuf::from(h).join(".local/state/lorebook-studio"))
            })
            .unwrap_or_else(|| PathBuf::from(".lorebook-studio"));
        dir.join(LEDGER_FILE)
    }

    /// Reads the record at `path` (none yet is an empty record).
    pub fn open(path: &Path) -> Result<Ledger, Error> {
        let err = |detail: String| Error::Ledger {
            path: path.display().to_string(),
            detail,
        };
        let seen = match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(err(e.to_string())),
            Ok(m) if !m.is_file() => return Err(err("it is not a plain file".into())),
            Ok(m) if m.len() > 64 * 1024 * 1024 => return Err(err("it is far too large".into())),
            Ok(_) => {
                let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
                let v: Value =
                    serde_json::from_str(&text).map_err(|e| err(format!("not JSON ({e})")))?;
                let Some(books) = v.get("books").and_then(Value::as_object) else {
                    return Err(err("no \"books\" object".into()));
                };
                books
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                    .collect()
            }
        };
        Ok(Ledger {
            path: path.to_path_buf(),
            seen,
        })
    }

    /// One record per server, user and book: a JSON array of the three,
    /// so no spelling of one can pass for another.
    fn key(server: &Server, file_id: &str) -> String {
        serde_json::to_string(&[
            server.address().as_str(),
            server.user().unwrap_or(""),
            file_id,
        ])
        .expect("strings serialise")
    }

    /// The fingerprint last seen of the book on this server (as this user).
    pub fn seen(&self, server: &Server, file_id: &str) -> Option<&str> {
        self.seen
            .get(&Ledger::key(server, file_id))
            .map(String::as_str)
    }

    /// Records the server's copy as seen, and writes the record: read
    /// again first and this one key merged in, under a lock for this
    /// process, so that two saves (or the app and the CLI) do not drop each
    /// other's records.
    pub fn record(&mut self, server: &Server, file_id: &str, value: &Value) -> Result<(), Error> {
        static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one_at_a_time = WRITING.lock().unwrap_or_else(|p| p.into_inner());
        let key = Ledger::key(server, file_id);
        let print = fingerprint(value);
        if let Ok(now) = Ledger::open(&self.path) {
            self.seen = now.seen;
        }
        self.seen.insert(key, print);
        self.save()
    }

    fn save(&self) -> Result<(), Error> {
        let err = |detail: String| Error::Ledger {
            path: self.path.display().to_string(),
            detail,
        };
        let dir = self
            .path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| err(e.to_string()))?;
        if let Ok(m) = std::fs::symlink_metadata(&self.path) {
            if !m.is_file() {
                return Err(err("it is not a plain file".into()));
            }
        }
        let body = serde_json::json!({
            "note": "What Lorebook Studio last pulled or pushed of each SillyTavern book (server, user, book: SHA-256 of its JSON).",
            "books": self.seen,
        });
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!(".{LEDGER_FILE}.{}.{n}.tmp", std::process::id()));
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            f.write_all(
                serde_json::to_string_pretty(&body)
                    .expect("JSON")
                    .as_bytes(),
            )?;
            f.sync_all()?;
            std::fs::rename(&tmp, &self.path)
        };
        write().map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            err(e.to_string())
        })
    }
}

/// What a push did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pushed {
    /// The server had no book of that name.
    pub created: bool,
    /// The name written: the server's own spelling when it had the book
    /// under a name differing only in case.
    pub name: String,
    /// The fingerprint of the server's copy now (what was sent, read back).
    pub fingerprint: String,
    /// The book is on the server, but the record of it could not be
    /// written (the next push will ask): said, not an error.
    pub record_error: Option<String>,
}

/// The book from the server and its fingerprint, not yet recorded: record
/// it ([`Ledger::record`]) once it is safely where it goes (a file
/// written, a tab open), so a failure there leaves the record as it was.
pub fn fetch(server: &Server, file_id: &str) -> Result<(Value, String), Error> {
    let value = server.book(file_id)?;
    let seen = fingerprint(&value);
    Ok((value, seen))
}

/// The book from the server, recorded as seen.
pub fn pull(server: &Server, ledger: &mut Ledger, file_id: &str) -> Result<Value, Error> {
    let (value, _) = fetch(server, file_id)?;
    ledger.record(server, file_id, &value)?;
    Ok(value)
}

/// The server's spelling of a book named `file_id`, matched ignoring case
/// (a server on a case-insensitive disk keeps `Harbor.json` and
/// `harbor.json` as one file).
fn existing(server: &Server, file_id: &str) -> Result<Option<String>, Error> {
    let lower = file_id.to_lowercase();
    let books = server.books()?;
    Ok(books
        .iter()
        .find(|b| b.file_id == file_id)
        .or_else(|| books.iter().find(|b| b.file_id.to_lowercase() == lower))
        .map(|b| b.file_id.clone()))
}

/// Whether the server's copy of `file_id` is still the one last seen here:
/// `Ok(None)` when it is (or there is none and none was seen), else how it
/// changed. `Ok(Some(..))` is not an error: the app asks the author.
pub fn check(server: &Server, ledger: &Ledger, file_id: &str) -> Result<Option<Changed>, Error> {
    check_seen(server, file_id, ledger.seen(server, file_id))
}

/// [`check`] against a fingerprint the caller keeps (an open tab's: the
/// copy it was opened or last saved from).
pub fn check_seen(
    server: &Server,
    file_id: &str,
    seen: Option<&str>,
) -> Result<Option<Changed>, Error> {
    let there = existing(server, file_id)?;
    changed(server, file_id, there.as_deref(), seen)
}

/// How the server's copy (`there`: its spelling of the name, if it has
/// the book) differs from `seen`.
fn changed(
    server: &Server,
    file_id: &str,
    there: Option<&str>,
    seen: Option<&str>,
) -> Result<Option<Changed>, Error> {
    let name = file_id.to_string();
    Ok(match (there, seen) {
        (None, None) => None,
        (None, Some(_)) => Some(Changed::Deleted { name }),
        (Some(_), None) => Some(Changed::NeverPulled { name }),
        (Some(there), Some(seen)) => {
            let now = fingerprint(&server.book_unchecked(there)?);
            (now != seen).then_some(Changed::Edited { name })
        }
    })
}

/// Sends `data` as the book `file_id`: refused with [`Error::Changed`] when
/// the server's copy is not the one last seen on this machine, unless
/// `force`. After the write the server's copy is read back, compared with
/// what was sent, and recorded as seen. A name differing only in case from
/// one of the server's books is that book.
pub fn push(
    server: &Server,
    ledger: &mut Ledger,
    file_id: &str,
    data: &Value,
    force: bool,
) -> Result<Pushed, Error> {
    push_as(server, ledger, file_id, data, None, force)
}

/// [`push`] checked against `seen` (an open tab's fingerprint) rather
/// than the machine's record.
pub fn push_seen(
    server: &Server,
    ledger: &mut Ledger,
    file_id: &str,
    data: &Value,
    seen: Option<&str>,
    force: bool,
) -> Result<Pushed, Error> {
    push_as(server, ledger, file_id, data, Some(seen), force)
}

/// `seen`: `None` reads the machine's record (under the server's spelling
/// of the name, else the one given).
fn push_as(
    server: &Server,
    ledger: &mut Ledger,
    file_id: &str,
    data: &Value,
    seen: Option<Option<&str>>,
    force: bool,
) -> Result<Pushed, Error> {
    crate::api::check_book_name(file_id)?;
    // One listing of the server's books answers both questions.
    let there = existing(server, file_id)?;
    // The server's own spelling: on a case-sensitive disk a name typed in
    // another case would otherwise make a second book beside it.
    let name = there.as_deref().unwrap_or(file_id);
    let seen = match seen {
        Some(given) => given.map(str::to_string),
        None => ledger
            .seen(server, name)
            .or_else(|| ledger.seen(server, file_id))
            .map(str::to_string),
    };
    let seen = seen.as_deref();
    if !force {
        if let Some(how) = changed_unless_same(server, name, there.as_deref(), seen, data)? {
            return Err(Error::Changed(how));
        }
    }
    server.put_book(name, data)?;
    let stored = server.book_unchecked(name)?;
    // What the server holds now is what this machine last saw of it, even
    // when it is not what was sent (said below).
    let record_error = ledger
        .record(server, name, &stored)
        .err()
        .map(|e| e.to_string());
    if !same_json(&stored, data) {
        return Err(Error::Malformed {
            what: format!("saving the book {name:?}"),
            detail: "the server's copy read back is not what was sent".into(),
        });
    }
    Ok(Pushed {
        created: there.is_none(),
        name: name.to_string(),
        fingerprint: fingerprint(&stored),
        record_error,
    })
}

/// [`changed`], except that a server copy already equal to `data` is no
/// change to ask about: a save whose answer was lost (the server wrote,
/// then went down before saying so) is sent again without a question, and
/// a book the server already holds as it is here needs no pull first.
fn changed_unless_same(
    server: &Server,
    name: &str,
    there: Option<&str>,
    seen: Option<&str>,
    data: &Value,
) -> Result<Option<Changed>, Error> {
    let Some(there) = there else {
        return changed(server, name, None, seen);
    };
    let now = server.book_unchecked(there)?;
    if seen == Some(fingerprint(&now).as_str()) || same_json(&now, data) {
        return Ok(None);
    }
    let name = name.to_string();
    Ok(Some(match seen {
        None => Changed::NeverPulled { name },
        Some(_) => Changed::Edited { name },
    }))
}

/// JSON equality as JavaScript sees it: numbers by value (`1` and `1.0`
/// are one number once the server has read them).
pub fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_json(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn same_json_compares_numbers_by_value() {
        assert!(same_json(
            &json!({"a": 1, "b": [1.0]}),
            &json!({"b": [1], "a": 1.0})
        ));
        assert!(!same_json(&json!({"a": 1}), &json!({"a": 2})));
        assert!(!same_json(&json!({"a": 1}), &json!({"a": 1, "b": null})));
    }

    #[test]
    fn fingerprint_depends_on_content() {
        assert_eq!(
            fingerprint(&json!({"entries": {}})),
            fingerprint(&json!({"entries": {}}))
        );
        assert_ne!(
            fingerprint(&json!({"entries": {}})),
            fingerprint(&json!({"entries": {"0": {}}}))
        );
    }

    #[test]
    fn ledger_refuses_a_link_or_garbage_and_reads_an_absent_file_as_empty() {
        let dir = std::env::temp_dir().join(format!("lorebook-ledger-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(LEDGER_FILE);
        assert!(Ledger::open(&path).unwrap().seen.is_empty());
        std::fs::write(&path, "not json").unwrap();
        assert!(Ledger::open(&path)
            .unwrap_err()
            .to_string()
            .contains("not JSON"));
        std::fs::remove_file(&path).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc/passwd", &path).unwrap();
            assert!(Ledger::open(&path)
                .unwrap_err()
                .to_string()
                .contains("plain file"));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
