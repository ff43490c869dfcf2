//! Folders through every format (docs/folders.md): the native file and
//! RisuAI's keep folders as folders; the formats without folders keep each
//! entry's folder path where SillyTavern keeps unknown fields (the entry's
//! `extensions`), and the next import makes the tree again.

use lorebook_engine::folders::{Tree, PATH};
use lorebook_engine::formats::{export, import, native, ExportFormat};
use lorebook_engine::model::{Book, Entry};
use proptest::prelude::*;
use serde_json::Value;

fn entry(id: u64, name: &str, folder: bool, parent: Option<u64>) -> Entry {
    Entry {
        id,
        comment: name.into(),
        keys: if folder {
            vec![]
        } else {
            vec![name.to_lowercase()]
        },
        content: if folder {
            String::new()
        } else {
            format!("About {name}.")
        },
        folder,
        parent,
        ..Entry::default()
    }
}

fn places() -> Book {
    Book {
        name: "Folders".into(),
        entries: vec![
            entry(1, "Places", true, None),
            entry(2, "Harbor", true, Some(1)),
            entry(3, "Dock", false, Some(2)),
            entry(4, "Sun", false, None),
            entry(5, "Tower", false, Some(1)),
            entry(6, "Empty", true, Some(1)),
            entry(7, "Ação / é", true, None),
            entry(8, "Canção", false, Some(7)),
        ],
        ..Book::default()
    }
}

/// Each entry (not folder) by name, with its folder path.
fn paths(book: &Book) -> Vec<(String, Vec<String>)> {
    let tree = Tree::of(book);
    let mut out: Vec<_> = book
        .entries
        .iter()
        .filter(|e| !e.folder)
        .map(|e| (e.comment.clone(), tree.path(e.id)))
        .collect();
    out.sort();
    out
}

#[test]
fn the_native_file_keeps_folders_exactly() {
    let book = places();
    let bytes = native::to_bytes(&book);
    let (back, notes) = native::load(&bytes).unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(back, book);
}

#[test]
fn every_format_without_folders_keeps_the_tree_through_paths() {
    let book = places();
    for to in ExportFormat::ALL {
        if matches!(
            to,
            ExportFormat::Native | ExportFormat::Risu | ExportFormat::Marinara
        ) {
            continue;
        }
        let (bytes, report) = export(&book, to).unwrap();
        let text = report.to_string();
        assert!(
            text.contains("written as each entry's folder path"),
            "{to}: {text}"
        );
        assert!(
            text.contains("\"Places / Empty\" holds no entry"),
            "{to}: {text}"
        );
        let back = import(&bytes).unwrap();
        assert_eq!(paths(&back.book), paths(&book), "{to}");
        assert!(back
            .book
            .entries
            .iter()
            .all(|e| !e.extensions.contains_key(PATH)));
        assert!(back.report.to_string().contains("made again"), "{to}");
    }
}

/// Marinara-Engine's folders are records (`data.folders`), an entry names
/// its folder (`folderId`) and a folder its parent (`parentFolderId`):
/// the tree comes back whole, the empty folder too.
#[test]
fn marinara_keeps_folders_as_folders() {
    let book = places();
    let (bytes, report) = export(&book, ExportFormat::Marinara).unwrap();
    assert!(!report.to_string().contains("folder path"), "{report}");
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        v["data"]["folders"].as_array().unwrap().len(),
        book.entries.iter().filter(|e| e.folder).count()
    );
    let back = import(&bytes).unwrap().book;
    assert_eq!(paths(&back), paths(&book));
    let folders = |b: &Book| {
        let tree = Tree::of(b);
        let mut f: Vec<_> = b
            .entries
            .iter()
            .filter(|e| e.folder)
            .map(|e| tree.path(e.id))
            .collect();
        f.sort();
        f
    };
    assert_eq!(folders(&back), folders(&book));
}

/// SillyTavern keeps an entry's `extensions` object through its editor's
/// saves and through a card's book (docs/folders.md): the path goes there.
#[test]
fn sillytavern_and_cards_get_the_path_in_the_entry_s_extensions() {
    let book = places();
    let (bytes, _) = export(&book, ExportFormat::SillyTavern).unwrap();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    let dock = v["entries"]
        .as_object()
        .unwrap()
        .values()
        .find(|e| e["comment"] == "Dock")
        .unwrap();
    assert_eq!(
        dock["extensions"][PATH],
        serde_json::json!(["Places", "Harbor"])
    );
    assert_eq!(v["entries"].as_object().unwrap().len(), 4);
    let (bytes, _) = export(&book, ExportFormat::CardV2).unwrap();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    let entries = v["data"]["character_book"]["entries"].as_array().unwrap();
    let dock = entries.iter().find(|e| e["comment"] == "Dock").unwrap();
    assert_eq!(
        dock["extensions"][PATH],
        serde_json::json!(["Places", "Harbor"])
    );
}

/// RisuAI's folders are records (`mode: "folder"`) and an entry names its
/// folder's key; a folder made here gets a key. Nested folders stay nested.
#[test]
fn risu_keeps_folders_as_folders() {
    let book = places();
    let (bytes, _) = export(&book, ExportFormat::Risu).unwrap();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    let data = v["data"].as_array().unwrap();
    let harbor = data.iter().find(|e| e["comment"] == "Harbor").unwrap();
    let dock = data.iter().find(|e| e["comment"] == "Dock").unwrap();
    assert_eq!(harbor["mode"], "folder");
    assert_eq!(dock["folder"], harbor["key"]);
    assert!(harbor["key"].as_str().unwrap().starts_with('\u{f000}'));
    let back = import(&bytes).unwrap().book;
    assert_eq!(paths(&back), paths(&book));
    let folders: Vec<&str> = back
        .entries
        .iter()
        .filter(|e| e.folder)
        .map(|e| e.comment.as_str())
        .collect();
    assert_eq!(folders, ["Places", "Harbor", "Empty", "Ação / é"]);
}

fn arb_book() -> impl Strategy<Value = Book> {
    // Up to 12 entries, each a folder or not, each in any earlier folder.
    proptest::collection::vec(
        (
            any::<bool>(),
            any::<prop::sample::Index>(),
            "[a-zA-Zé中 /]{1,8}",
        ),
        1..12,
    )
    .prop_map(|specs| {
        let mut book = Book::default();
        for (i, (folder, at, name)) in specs.into_iter().enumerate() {
            let folders: Vec<u64> = book
                .entries
                .iter()
                .filter(|e| e.folder)
                .map(|e| e.id)
                .collect();
            let parent =
                (!folders.is_empty() && at.index(3) > 0).then(|| folders[at.index(folders.len())]);
            book.entries.push(entry(i as u64, &name, folder, parent));
        }
        book
    })
}

proptest! {
    /// Through any format, every entry keeps its folder path by name.
    #[test]
    fn every_format_keeps_every_entry_s_folder_path(book in arb_book()) {
        for to in ExportFormat::ALL {
            let (bytes, _) = export(&book, to).unwrap();
            let back = import(&bytes).unwrap().book;
            prop_assert_eq!(paths(&back), paths(&book), "{}", to);
        }
        let (back, _) = native::load(&native::to_bytes(&book)).unwrap();
        prop_assert_eq!(back, book);
    }
}

/// Under the guide's rules a folder never fires and is not listed among
/// the entries left out, even constant and named by the chat; the entries
/// inside it fire on their own keys.
#[test]
fn a_folder_never_fires_and_is_not_an_entry_left_out() {
    use lorebook_engine::chat::{Message, Speaker};
    use lorebook_engine::preview::{Preview, Settings};
    let mut book = places();
    book.entries[0].keys = vec!["dock".into()];
    book.entries[0].constant = true;
    book.entries[0].content = "Folder text.".into();
    let chat = vec![Message {
        role: Speaker::User,
        name: None,
        text: "We walk to the dock.".into(),
    }];
    let mut p = Preview::new(&[book], Settings::default());
    let r = p.request(&chat, 1);
    let injected: Vec<u64> = r.injected.iter().map(|i| i.id).collect();
    assert_eq!(injected, [3]);
    assert!(r.dropped.iter().all(|d| ![1, 2, 6, 7].contains(&d.id)));
    assert_eq!(r.dropped.len(), 3, "Sun, Tower and Canção");
}
