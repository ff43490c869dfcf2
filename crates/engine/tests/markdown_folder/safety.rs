//! A book folder never touches what is not the book's (issue 37): links,
//! files the author wrote beside the entries, another tool's `book.yaml`,
//! files that appear or change during a save, FIFOs, hostile YAML and
//! sizes. Each test fails on the layout as it was before.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lorebook_engine::formats::markdown::{
    load, read, save, write, Check, SaveNote, BOOK_FILE, MAX_FOLDER_BYTES,
};
use lorebook_engine::model::{Book, Entry, MAX_ID};

use super::{sample, scratch};

/// Every file under `dir` (links as `-> target`), with its bytes: what
/// must stay byte for byte.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, at: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        let Ok(read) = std::fs::read_dir(at) else {
            return;
        };
        for d in read.flatten() {
            let path = d.path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            let kind = d.file_type().unwrap();
            if kind.is_symlink() {
                let to = std::fs::read_link(&path).unwrap();
                out.insert(rel, format!("-> {}", to.display()).into_bytes());
            } else if kind.is_dir() {
                out.insert(rel, b"<dir>".to_vec());
                walk(root, &path, out);
            } else if kind.is_file() {
                out.insert(rel, std::fs::read(&path).unwrap());
            } else {
                out.insert(rel, b"<special>".to_vec());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// A book folder of the sample, and a folder of somebody else's beside it
/// holding `secret.txt`.
fn book_and_outside(name: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(name);
    write(&sample(), &dir).unwrap();
    let outside = scratch(&format!("{name}-outside"));
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "# my shell settings\n").unwrap();
    (dir, outside)
}

fn with_entry(mut book: Book, name: &str, parent: Option<u64>) -> Book {
    let id = book.next_id();
    book.entries.push(Entry {
        id,
        comment: name.into(),
        keys: vec![name.to_lowercase()],
        content: format!("About {name}."),
        parent,
        ..Entry::default()
    });
    book
}

#[test]
fn a_link_where_an_entry_s_file_goes_is_never_written_through() {
    let (dir, outside) = book_and_outside("link-file");
    std::fs::remove_file(dir.join("World.md")).unwrap();
    symlink(&outside.join("secret.txt"), &dir.join("World.md"));
    let before = (snapshot(&dir), snapshot(&outside));
    let mut book = sample();
    book.entries[0].content = "Written by the repository's author.".into();
    let err = write(&book, &dir).unwrap_err();
    assert!(
        err.contains("World.md") && err.contains("symbolic link"),
        "{err}"
    );
    assert_eq!(
        (snapshot(&dir), snapshot(&outside)),
        before,
        "nothing changed"
    );
    // Read, the link is named and not followed.
    let (read_back, problems) = read(&dir).unwrap();
    assert!(read_back.entries.iter().all(|e| e.comment != "World"));
    assert!(
        problems
            .iter()
            .any(|p| p.file == "World.md" && p.problem.contains("symbolic link")),
        "{problems:?}"
    );
}

#[test]
fn a_linked_subfolder_is_never_written_into_nor_read() {
    let (dir, outside) = book_and_outside("link-dir");
    std::fs::remove_dir_all(dir.join("Places")).unwrap();
    std::fs::write(
        outside.join("Stranger.md"),
        "---\nid: 40\ncomment: Stranger\n---\nFrom outside.\n",
    )
    .unwrap();
    symlink(&outside, &dir.join("Places"));
    let before = (snapshot(&dir), snapshot(&outside));
    let err = write(&sample(), &dir).unwrap_err();
    assert!(
        err.contains("Places") && err.contains("symbolic link"),
        "{err}"
    );
    assert_eq!((snapshot(&dir), snapshot(&outside)), before);
    let (book, problems) = read(&dir).unwrap();
    assert!(book.entries.iter().all(|e| e.comment != "Stranger"));
    assert!(problems.iter().any(|p| p.file == "Places"), "{problems:?}");
}

#[test]
fn a_note_of_the_author_s_keeps_its_name_and_the_entry_takes_another() {
    let dir = scratch("note");
    write(&sample(), &dir).unwrap();
    std::fs::write(
        dir.join("Lighthouse.md"),
        "My own notes on the lighthouse.\n",
    )
    .unwrap();
    let read_back = load(&dir).unwrap();
    let book = with_entry(read_back.book.clone(), "Lighthouse", None);
    let saved = save(&book, &dir, Some(&read_back.manifest)).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("Lighthouse.md")).unwrap(),
        "My own notes on the lighthouse.\n"
    );
    assert!(dir.join("Lighthouse (2).md").is_file());
    assert!(
        saved.notes.contains(&SaveNote::SavedUnderName {
            wanted: "Lighthouse.md".into(),
            written: "Lighthouse (2).md".into()
        }),
        "{:?}",
        saved.notes
    );
    // Without a manifest (the CLI writing into a folder), a file is the
    // book's only when its front matter gives an id: the page of the
    // static site is not.
    let dir = scratch("note-cli");
    write(&sample(), &dir).unwrap();
    std::fs::write(
        dir.join("Keeper.md"),
        "---\ntitle: Keeper\ntags: [draft]\n---\nA page of a static site.\n",
    )
    .unwrap();
    let book = with_entry(sample(), "Keeper", None);
    write(&book, &dir).unwrap();
    assert!(std::fs::read_to_string(dir.join("Keeper.md"))
        .unwrap()
        .contains("static site"));
    assert!(dir.join("Keeper (2).md").is_file());
    let (again, _) = read(&dir).unwrap();
    assert!(again.entries.iter().any(|e| e.comment == "Keeper"));
}

#[test]
fn a_broken_folder_file_is_never_overwritten() {
    let dir = scratch("broken-folder");
    write(&sample(), &dir).unwrap();
    std::fs::write(dir.join("Places/_folder.md"), "---\nid: [oops\n---\n").unwrap();
    let read_back = load(&dir).unwrap();
    let saved = save(&read_back.book, &dir, Some(&read_back.manifest)).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("Places/_folder.md")).unwrap(),
        "---\nid: [oops\n---\n"
    );
    assert!(!saved.notes.is_empty());
    // The folder's entries moved with it; reading again gives the same
    // entries, the broken file still reported.
    let again = load(&dir).unwrap();
    let names = |b: &Book| {
        let mut n: Vec<String> = b
            .entries
            .iter()
            .filter(|e| !e.folder)
            .map(|e| e.comment.clone())
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(&again.book), names(&read_back.book));
    assert_eq!(again.problems.len(), 1, "{:?}", again.problems);
}

#[test]
fn another_tool_s_book_yaml_is_not_a_book_folder() {
    let dir = scratch("site");
    std::fs::create_dir_all(dir.join("posts")).unwrap();
    std::fs::write(dir.join(BOOK_FILE), "title: My site\ntheme: minima\n").unwrap();
    std::fs::write(dir.join("index.md"), "---\nlayout: home\n---\nWelcome.\n").unwrap();
    std::fs::write(
        dir.join("posts/first.md"),
        "---\nid: 3\ntitle: First\n---\nA post.\n",
    )
    .unwrap();
    let before = snapshot(&dir);
    let err = write(&sample(), &dir).unwrap_err();
    assert!(err.contains("another tool"), "{err}");
    let err = read(&dir).unwrap_err();
    assert!(err.contains("another tool"), "{err}");
    assert!(!lorebook_engine::formats::markdown::is_book_folder(&dir));
    std::fs::write(dir.join(BOOK_FILE), "format: jekyll\n").unwrap();
    assert!(write(&sample(), &dir).unwrap_err().contains("jekyll"));
    std::fs::write(dir.join(BOOK_FILE), "title: My site\ntheme: minima\n").unwrap();
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn a_save_removes_only_the_book_s_own_unchanged_files() {
    let dir = scratch("stale");
    write(&sample(), &dir).unwrap();
    std::fs::write(dir.join("Broken.md"), "---\nid: [\n---\nhalf").unwrap();
    let read_back = load(&dir).unwrap();
    // During the save's wait (a `git pull`): a new entry file arrives,
    // the broken one is fixed by hand, and Tower is edited.
    std::fs::write(
        dir.join("Pulled.md"),
        "---\nid: 77\ncomment: Pulled\n---\nNew.\n",
    )
    .unwrap();
    std::fs::write(dir.join("Broken.md"), "---\nid: 78\n---\nFixed.\n").unwrap();
    let tower = dir.join("Places/Tower.md");
    let edited = std::fs::read_to_string(&tower)
        .unwrap()
        .replace("Tall.", "Taller.");
    std::fs::write(&tower, &edited).unwrap();
    // The author deleted Harbor and Tower in the app, and saves.
    let mut book = read_back.book.clone();
    book.entries
        .retain(|e| e.comment != "Harbor" && e.comment != "Tower");
    let saved = save(&book, &dir, Some(&read_back.manifest)).unwrap();
    assert!(
        !dir.join("Places/Harbor.md").exists(),
        "the book's, unchanged"
    );
    assert_eq!(std::fs::read_to_string(&tower).unwrap(), edited);
    assert!(dir.join("Pulled.md").is_file() && dir.join("Broken.md").is_file());
    assert_eq!(
        saved.notes,
        vec![SaveNote::StaleFileKept {
            file: "Places/Tower.md".into()
        }]
    );
    // What the save left unseen is a change for the app's check.
    assert!(matches!(saved.manifest.check(&dir), Check::Changed(_)));
}

#[test]
fn long_and_reserved_names_save_whole() {
    let dir = scratch("names");
    let mut book = sample();
    let long = "灯台守の物語".repeat(14); // 84 characters, 252 bytes
    book = with_entry(book, &long, None);
    let folder_id = book.next_id();
    book.entries.push(Entry {
        id: folder_id,
        comment: BOOK_FILE.into(),
        folder: true,
        ..Entry::default()
    });
    book = with_entry(book, "Inside", Some(folder_id));
    let other = book.next_id();
    book.entries.push(Entry {
        id: other,
        comment: "_folder.md".into(),
        folder: true,
        parent: Some(1),
        ..Entry::default()
    });
    book = with_entry(book, "Deep", Some(other));
    write(&book, &dir).unwrap();
    assert!(dir.join(BOOK_FILE).is_file(), "book.yaml is the settings");
    let (again, problems) = read(&dir).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(again, book);
}

#[test]
fn a_fifo_where_an_entry_s_file_goes_is_refused_at_once() {
    let dir = scratch("fifo");
    write(&sample(), &dir).unwrap();
    std::fs::remove_file(dir.join("World.md")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(dir.join("World.md"))
        .status()
        .unwrap();
    assert!(made.success());
    let start = Instant::now();
    let err = write(&sample(), &dir).unwrap_err();
    assert!(err.contains("FIFO"), "{err}");
    let read_back = load(&dir).unwrap();
    assert!(read_back
        .problems
        .iter()
        .any(|p| p.problem.contains("FIFO")));
    assert!(matches!(read_back.manifest.check(&dir), Check::Same));
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn hostile_yaml_is_refused_in_time_and_the_rest_read() {
    let dir = scratch("yaml");
    write(&sample(), &dir).unwrap();
    let mut bomb = String::from("---\nid: 50\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let p = i - 1;
        bomb.push_str(&format!(
            "a{i}: &a{i} [{}]\n",
            vec![format!("*a{p}"); 10].join(", ")
        ));
    }
    bomb.push_str("---\nBody\n");
    std::fs::write(dir.join("Bomb.md"), bomb).unwrap();
    let mut flood = String::from("---\nid: 51\nx: [");
    flood.push_str(&"[],".repeat(9_000_000));
    flood.push_str("]\n---\n");
    std::fs::write(dir.join("Flood.md"), flood).unwrap();
    let start = Instant::now();
    let (book, problems) = read(&dir).unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(book.entries.len(), 4);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems.iter().all(|p| p.problem.contains("refused")),
        "{problems:?}"
    );
}

#[test]
fn a_folder_over_the_book_cap_is_refused_before_reading() {
    let dir = scratch("cap");
    write(&sample(), &dir).unwrap();
    for i in 0..40 {
        let f = std::fs::File::create(dir.join(format!("Sparse {i}.md"))).unwrap();
        f.set_len(60 << 20).unwrap();
    }
    let start = Instant::now();
    let err = read(&dir).unwrap_err();
    assert!(
        err.contains(&format!("{} MiB", MAX_FOLDER_BYTES >> 20)),
        "{err}"
    );
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn ids_stay_exact_and_settings_are_clamped() {
    let dir = scratch("ids");
    write(&sample(), &dir).unwrap();
    std::fs::write(dir.join("Top.md"), format!("---\nid: {MAX_ID}\n---\nx\n")).unwrap();
    std::fs::write(dir.join("Loose.md"), "---\nkeys: [loose]\n---\ny\n").unwrap();
    let yaml = std::fs::read_to_string(dir.join(BOOK_FILE)).unwrap();
    let yaml = yaml
        .replace("scan_depth: 4", "scan_depth: 100000")
        .replace("token_budget: 800", "token_budget: 99999999");
    std::fs::write(dir.join(BOOK_FILE), &yaml).unwrap();
    let r = load(&dir).unwrap();
    assert!(r.book.entries.iter().all(|e| e.id <= MAX_ID));
    assert_eq!((r.book.scan_depth, r.book.token_budget), (100, 32000));
    assert_eq!(r.notes.len(), 2, "{:?}", r.notes);
}
