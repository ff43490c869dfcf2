//! The Markdown-folder layout (docs/markdown-folder.md): book → folder →
//! book is the identity, on generated books with folders, Unicode names,
//! decorators and foreign fields; a file that cannot be read is reported
//! and the others are read; files moved or edited outside are read as
//! they are now.

use std::path::{Path, PathBuf};

use lorebook_engine::formats::markdown::{files, load, read, save, write, BOOK_FILE};
use lorebook_engine::model::{Book, Entry, Role, SecondaryLogic};

#[path = "markdown_folder/safety.rs"]
mod safety;
use proptest::prelude::*;
use serde_json::json;

/// A fresh folder under the system's temporary folder.
fn scratch(name: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "lbs-md-{}-{name}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 ]{0,12}",
        "[a-zé中ü/\\\\:*?\"<>|. _#-]{0,10}",
        Just("_folder".to_string()),
        Just("CON".to_string()),
        Just("Same".to_string()),
        Just("same".to_string()),
    ]
}

fn content() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z \n:#-]{0,30}",
        Just("@@depth 4\n@@role user\nBody".to_string()),
        Just("@@probability 50\n".to_string()),
        Just("---\nnot front matter\n---\n".to_string()),
        Just("ends with newlines\n\n".to_string()),
        Just("\n\nstarts with them".to_string()),
        Just("@@@ fallback only\nBody".to_string()),
    ]
}

prop_compose! {
    fn entry()(
        comment in name(),
        keys in proptest::collection::vec("[a-z ,:é]{1,8}", 0..3),
        secondary in proptest::collection::vec("[a-z]{1,6}", 0..2),
        flags in proptest::collection::vec(any::<bool>(), 7),
        logic in 0u64..4,
        role in 0u64..3,
        order in -1000i64..1000,
        priority in any::<i64>(),
        content in content(),
        ext in proptest::option::of(("[a-z]{1,6}", any::<i32>(), "[a-z:é ]{0,6}")),
        folder in any::<bool>(),
    ) -> Entry {
        let mut e = Entry {
            comment,
            keys,
            secondary_keys: secondary,
            selective: flags[0],
            constant: flags[1],
            enabled: flags[2],
            whole_words: flags[3],
            case_sensitive: flags[4],
            use_regex: flags[5],
            secondary_logic: SecondaryLogic::from_st(logic).unwrap(),
            role: Role::from_st(role).unwrap(),
            order,
            priority,
            content,
            folder: folder && flags[6],
            ..Entry::default()
        };
        if let Some((k, n, s)) = ext {
            e.extensions.insert(k.clone(), json!({"n": n, "s": s, "list": [1.5, null, true]}));
            e.extra.insert(format!("x_{k}"), json!(s));
        }
        e
    }
}

prop_compose! {
    fn book()(
        entries in proptest::collection::vec((entry(), any::<prop::sample::Index>(), any::<bool>()), 0..14),
        name in name(),
        budget in 100u32..32000,
    ) -> Book {
        let mut book = Book { name, token_budget: budget, ..Book::default() };
        book.extensions.insert("kept".into(), json!({"a": [1, 2]}));
        for (i, (mut e, at, inside)) in entries.into_iter().enumerate() {
            // Ids out of order, to prove the order is kept.
            e.id = (i as u64 * 7919) % 1000;
            let folders: Vec<u64> = book.entries.iter().filter(|e| e.folder).map(|e| e.id).collect();
            if inside && !folders.is_empty() {
                e.parent = Some(folders[at.index(folders.len())]);
            }
            book.entries.push(e);
        }
        book
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Book → folder → book is the identity.
    #[test]
    fn a_book_written_as_a_folder_reads_back_the_same(book in book()) {
        let dir = scratch("prop");
        write(&book, &dir).unwrap();
        let (back, problems) = read(&dir).unwrap();
        prop_assert!(problems.is_empty(), "{:?}", problems);
        prop_assert_eq!(&back, &book);
        // Written again unchanged, it reads the same (nothing stale left).
        write(&back, &dir).unwrap();
        let (again, _) = read(&dir).unwrap();
        prop_assert_eq!(again, book);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn sample() -> Book {
    let e = |id: u64, name: &str, folder: bool, parent: Option<u64>, content: &str| Entry {
        id,
        comment: name.into(),
        keys: if folder {
            vec![]
        } else {
            vec![name.to_lowercase()]
        },
        content: content.into(),
        folder,
        parent,
        ..Entry::default()
    };
    Book {
        name: "Saltmere".into(),
        entries: vec![
            e(0, "World", false, None, "@@depth 4\nThe world."),
            e(1, "Places", true, None, ""),
            e(2, "Harbor", false, Some(1), "Boats."),
            e(3, "Tower", false, Some(1), "Tall."),
        ],
        ..Book::default()
    }
}

fn rel(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

#[test]
fn the_layout_has_one_file_per_entry_in_folders_of_folders() {
    let names: Vec<String> = files(&sample()).iter().map(|(p, _)| rel(p)).collect();
    assert_eq!(
        names,
        [
            BOOK_FILE,
            "World.md",
            "Places/_folder.md",
            "Places/Harbor.md",
            "Places/Tower.md"
        ]
    );
    let (_, world) = &files(&sample())[1];
    let text = String::from_utf8(world.clone()).unwrap();
    assert!(text.starts_with("---\nid: 0\ncomment: World\n"), "{text}");
    assert!(text.contains("decorators:\n- '@@depth 4'\n"), "{text}");
    assert!(text.ends_with("---\nThe world.\n"), "{text}");
}

#[test]
fn a_bad_file_is_reported_and_the_others_read() {
    let dir = scratch("bad");
    write(&sample(), &dir).unwrap();
    std::fs::write(dir.join("Places/Tower.md"), "---\nid: [unclosed\n---\nx").unwrap();
    std::fs::write(dir.join("Places/Notes.md"), "no front matter at all").unwrap();
    let (book, problems) = read(&dir).unwrap();
    let bad: Vec<&str> = problems.iter().map(|p| p.file.as_str()).collect();
    assert_eq!(bad.len(), 2, "{problems:?}");
    assert!(
        problems[0].problem.contains("no front matter"),
        "{problems:?}"
    );
    assert!(problems[1].problem.contains("YAML"), "{problems:?}");
    let names: Vec<&str> = book.entries.iter().map(|e| e.comment.as_str()).collect();
    assert_eq!(names, ["World", "Places", "Harbor"]);
    // Saving never removes a file it could not read.
    write(&book, &dir).unwrap();
    assert!(dir.join("Places/Tower.md").exists() && dir.join("Places/Notes.md").exists());
    // A folder that is not a book's is never written into.
    let other = scratch("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    let err = write(&sample(), &other).unwrap_err();
    assert!(err.contains("not a book's folder"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&other);
}

#[test]
fn edits_outside_are_read_as_they_are() {
    let dir = scratch("outside");
    write(&sample(), &dir).unwrap();
    // An editor moves Tower out of its folder, makes a new folder by hand
    // with a new note in it, and edits World's body.
    std::fs::rename(dir.join("Places/Tower.md"), dir.join("Tower.md")).unwrap();
    std::fs::create_dir_all(dir.join("Lore")).unwrap();
    std::fs::write(dir.join("Lore/Gods.md"), "---\nkeys: [gods]\n---\nMany.\n").unwrap();
    let world = std::fs::read_to_string(dir.join("World.md")).unwrap();
    std::fs::write(
        dir.join("World.md"),
        world.replace("The world.", "The wide world."),
    )
    .unwrap();
    let read_back = load(&dir).unwrap();
    let (book, problems) = (read_back.book, read_back.problems);
    assert!(problems.is_empty(), "{problems:?}");
    let tree = lorebook_engine::folders::Tree::of(&book);
    let by = |n: &str| {
        book.entries
            .iter()
            .find(|e| e.comment == n || e.keys == [n])
            .unwrap()
    };
    assert_eq!(by("World").content, "@@depth 4\nThe wide world.");
    assert_eq!(tree.path(by("Tower").id), Vec::<String>::new());
    assert_eq!(tree.path(by("gods").id), ["Lore"]);
    assert_eq!(by("gods").content, "Many.");
    // Saving again moves nothing back and leaves no stale file: the
    // files it read are the book's (the hand-written one without an id
    // too), so the old names go.
    save(&book, &dir, Some(&read_back.manifest)).unwrap();
    assert!(!dir.join("Places/Tower.md").exists());
    assert!(dir.join("Lore/_folder.md").exists());
    let (again, _) = read(&dir).unwrap();
    assert_eq!(again, book);
    let _ = std::fs::remove_dir_all(&dir);
}
