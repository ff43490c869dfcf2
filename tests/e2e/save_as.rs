//! Issue 43: Save As of a book imported from SillyTavern offers
//! SillyTavern's format first and writes it back over its own file (a
//! backup kept); the app's own format is offered second, says what it
//! means, and is never proposed over the SillyTavern file.

use serde_json::{json, Value};

use super::{accept_file_dialog, serial, tid, wait_until, Driver, TempDir, TIMEOUT};

fn world() -> String {
    let entry = |uid: u64, key: &str, comment: &str| {
        json!({"uid": uid, "key": [key], "keysecondary": [], "comment": comment,
            "content": format!("What the {key} is."), "constant": false, "selective": false,
            "order": 100, "position": 0, "disable": false, "someFutureField": {"kept": true}})
    };
    json!({"entries": {"0": entry(0, "fog", "Fog"), "1": entry(1, "bell", "Bell")}}).to_string()
}

#[test]
fn save_as_of_a_sillytavern_book_offers_its_own_format_first_and_never_its_file_for_another() {
    let _serial = serial();
    let files = TempDir::new("save-as-st");
    let source = files.path().join("Harbor.json");
    std::fs::write(&source, world()).expect("write the world");
    let original = std::fs::read(&source).unwrap();
    let mut driver = Driver::start();
    let display = driver.display.clone();
    let app = driver.launch(&[source.to_str().expect("utf-8")]);
    app.wait_ready();

    // Save As: SillyTavern's format first, saying where the book came from.
    app.click(&tid("save-as"));
    app.wait_for(&tid("export-dialog"));
    let options = app.js(
        "return [...document.querySelectorAll('[data-testid=\"export-format\"] option')].map((o) => o.value)",
        vec![],
    );
    assert_eq!(options, json!(["sillytavern", "native"]));
    assert_eq!(app.value(&tid("export-format")).unwrap(), "sillytavern");
    let from = app.text(&app.find(&tid("save-from")).unwrap()).unwrap();
    assert!(from.contains("Harbor.json"), "{from}");
    app.wait_for(&format!("{}:not([disabled])", tid("export-confirm")));
    app.click(&tid("export-confirm"));
    // Enter takes the proposal: the SillyTavern file itself, written back.
    accept_file_dialog(&display, "Export lorebook as|Exportar");
    let backup = files.path().join("Harbor.json.bak");
    wait_until("the book written back with a backup", TIMEOUT, || {
        if backup.exists() {
            Ok(())
        } else {
            Err("no backup yet".into())
        }
    });
    assert_eq!(std::fs::read(&backup).unwrap(), original);
    let back: Value = serde_json::from_slice(&std::fs::read(&source).unwrap()).unwrap();
    let entries = back["entries"]
        .as_object()
        .expect("still a SillyTavern world");
    assert_eq!(entries.len(), 2);
    assert!(
        entries
            .values()
            .all(|e| e["someFutureField"]["kept"] == true),
        "unknown fields kept: {back}"
    );
    wait_until("the tab saved", TIMEOUT, || {
        if app.find_all(&tid("dirty"))?.is_empty() {
            Ok(())
        } else {
            Err("still unsaved".into())
        }
    });
    let written = std::fs::read(&source).unwrap();

    // The app's own format: said what it means, saved beside, never over it.
    app.click(&tid("save-as"));
    app.wait_for(&tid("export-dialog"));
    app.click(&format!(
        "{} option[value=\"native\"]",
        tid("export-format")
    ));
    let meaning = wait_until("the app's own format explained", TIMEOUT, || {
        let t = app.text(&app.find(&tid("save-meaning"))?)?;
        if t.contains("Lorebook Studio") {
            Ok(t)
        } else {
            Err(t)
        }
    });
    assert!(meaning.contains("Harbor.json"), "{meaning}");
    app.wait_for(&format!("{}:not([disabled])", tid("export-confirm")));
    app.click(&tid("export-confirm"));
    accept_file_dialog(&display, "Save lorebook as|Salvar livro");
    let native = files.path().join("Harbor (Lorebook Studio).json");
    wait_until("the book saved in the app's format beside", TIMEOUT, || {
        if native.exists() {
            Ok(())
        } else {
            Err("not yet".into())
        }
    });
    let saved: Value = serde_json::from_slice(&std::fs::read(&native).unwrap()).unwrap();
    assert_eq!(saved["spec"], "lorebook_v3");
    assert_eq!(
        std::fs::read(&source).unwrap(),
        written,
        "the SillyTavern file untouched"
    );
    app.assert_no_errors();
}

/// Issue 43: Save As Folder's picker opens in the book's own folder (not on
/// GTK's "Recent" list, which has no New Folder button): Enter there keeps
/// the book in a new folder named after it, beside its file.
#[test]
fn save_as_folder_opens_where_the_book_is_so_a_folder_can_be_made_there() {
    use lorebook_engine::formats::native;
    use lorebook_engine::model::{Book, Entry};
    let _serial = serial();
    let files = TempDir::new("save-as-folder");
    let file = files.path().join("Harbor.json");
    let book = Book {
        name: "Harbor".into(),
        entries: vec![Entry {
            id: 1,
            comment: "Fog".into(),
            keys: vec!["fog".into()],
            content: "Fog rolls in.".into(),
            ..Entry::default()
        }],
        ..Book::default()
    };
    std::fs::write(&file, native::to_bytes(&book)).expect("write the book");
    let mut driver = Driver::start();
    let display = driver.display.clone();
    let app = driver.launch(&[file.to_str().expect("utf-8")]);
    app.wait_ready();
    // File › Save As Folder… runs this command (the native menu is not the
    // webview's to click).
    app.js(
        "void window.__TAURI_INTERNALS__.invoke('save_as_folder', { doc: 1 });",
        vec![],
    );
    accept_file_dialog(
        &display,
        "Choose where to keep the book as a folder|Escolha onde",
    );
    let folder = files.path().join("Harbor");
    wait_until("the book kept as a folder beside its file", TIMEOUT, || {
        if folder.join("book.yaml").is_file() {
            Ok(())
        } else {
            Err("not yet".into())
        }
    });
    assert!(folder.join("Fog.md").is_file());
    app.assert_no_errors();
}
