//! Issue 22's folders end to end: make a folder, name it, move an entry in
//! with "Move to folder", drag another onto it, collapse it, enable and
//! disable what it holds, delete it keeping its entries, and undo.

use fantoccini::actions::{InputSource, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};

use super::*;

fn row(id: u64) -> String {
    format!("{}[data-id=\"{id}\"]", tid("entry-row"))
}

#[test]
fn folders_are_made_filled_by_menu_and_drag_collapsed_and_deleted() {
    let _serial = serial();
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    let ids = app.row_ids().expect("the sample's rows");
    let (first, second) = (ids[0], ids[1]);
    let entries = ids.len();
    app.click(&tid("add-folder"));
    app.wait_for(&tid("folder-pane"));
    app.type_into(&tid("folder-name"), "Places");
    let field = app.find(&tid("folder-name")).expect("the name field");
    app.run(field.send_keys(&char::from(Key::Enter).to_string()))
        .expect("press Enter");
    let folder_css = format!("{}[data-folder]", tid("entry-row"));
    // The row's words, as the page holds them (a row clips its text).
    let words = |css: &str| -> Result<String, String> {
        let v = app.js(
            "const el = document.querySelector(arguments[0]); return el ? el.textContent : null;",
            vec![serde_json::json!(css)],
        );
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("no {css}"))
    };
    wait_until("the folder named, first in the list", TIMEOUT, || {
        let text = words(&folder_css)?;
        if text.contains("Places") && text.contains("0 entries") {
            Ok(())
        } else {
            Err(format!("{text:?}"))
        }
    });
    let folder: u64 = app
        .attr(&app.find(&folder_css).unwrap(), "data-id")
        .unwrap()
        .unwrap()
        .parse()
        .unwrap();
    // Move the first entry in with the selection's "Move to folder".
    app.click(&row(first));
    app.click(&format!("{} option[value=\"{folder}\"]", tid("move-to")));
    wait_until("the first entry inside", TIMEOUT, || {
        let depth = app.attr(&app.find(&row(first))?, "data-depth")?;
        if depth.as_deref() == Some("1") {
            Ok(())
        } else {
            Err(format!("depth {depth:?}"))
        }
    });
    // Drag the second entry onto the folder.
    let from = app.find(&row(second)).expect("the second row");
    let onto = app.find(&row(folder)).expect("the folder row");
    let mouse = MouseActions::new("mouse".into())
        .then(PointerAction::MoveToElement {
            element: from,
            duration: None,
            x: 0.0,
            y: 0.0,
        })
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_LEFT,
        })
        .then(PointerAction::MoveBy {
            duration: Some(Duration::from_millis(100)),
            x: 0.0,
            y: -12.0,
        })
        .then(PointerAction::MoveToElement {
            element: onto,
            duration: Some(Duration::from_millis(200)),
            x: 0.0,
            y: 0.0,
        })
        .then(PointerAction::Up {
            button: MOUSE_BUTTON_LEFT,
        });
    app.run(app.client.perform_actions(mouse)).expect("drag");
    wait_until("the second entry dragged inside", TIMEOUT, || {
        let depth = app.attr(&app.find(&row(second))?, "data-depth")?;
        let text = words(&row(folder))?;
        if depth.as_deref() == Some("1") && text.contains("2 entries") {
            Ok(())
        } else {
            Err(format!("depth {depth:?}, folder {text:?}"))
        }
    });
    if std::env::var_os("LOREBOOK_E2E_SCREENSHOT").is_some() {
        app.save_screenshot();
    }
    // Collapsing the folder hides its entries; opening shows them again.
    app.click(&row(folder));
    wait_until("the folder collapsed", TIMEOUT, || {
        let n = app.find_all(&row(first))?.len();
        let state = app.attr(&app.find(&row(folder))?, "data-folder")?;
        if n == 0 && state.as_deref() == Some("collapsed") {
            Ok(())
        } else {
            Err(format!("{n} rows of the first entry, folder {state:?}"))
        }
    });
    app.wait_for(&tid("folder-pane"));
    assert_accessible(&app, "the folder pane");
    // Disable what it holds, then enable it again.
    app.click(&tid("folder-disable"));
    wait_until("the folder's counts", TIMEOUT, || {
        let counts = app.text(&app.find(&tid("folder-counts"))?)?;
        if counts.starts_with("2 entries inside") {
            Ok(())
        } else {
            Err(counts)
        }
    });
    app.click(&row(folder)); // open it again
    wait_until("the entries shown struck through", TIMEOUT, || {
        let class = app
            .attr(&app.find(&row(first))?, "class")?
            .unwrap_or_default();
        if class.contains("off") {
            Ok(())
        } else {
            Err(class)
        }
    });
    app.click(&row(folder));
    app.click(&tid("folder-enable"));
    app.click(&row(folder));
    wait_until("the entries enabled again", TIMEOUT, || {
        let class = app
            .attr(&app.find(&row(second))?, "class")?
            .unwrap_or_default();
        if !class.contains("off") {
            Ok(())
        } else {
            Err(class)
        }
    });
    // Delete the folder, keeping its entries: they are at the top again.
    app.click(&row(folder));
    app.click(&tid("folder-delete"));
    app.click(&tid("confirm-other"));
    wait_until("the folder gone, its entries kept", TIMEOUT, || {
        let ids = app.row_ids()?;
        let depth = app.attr(&app.find(&row(first))?, "data-depth")?;
        if ids.len() == entries && !ids.contains(&folder) && depth.as_deref() == Some("0") {
            Ok(())
        } else {
            Err(format!("{ids:?}, depth {depth:?}"))
        }
    });
    // Undo brings the folder back (still collapsed) with both entries.
    app.click(&tid("undo"));
    wait_until("the folder back", TIMEOUT, || {
        let text = words(&row(folder))?;
        if text.contains("2 entries") {
            Ok(())
        } else {
            Err(text)
        }
    });
    app.assert_no_errors();
}

/// A book kept as a folder of Markdown files, given on the command line
/// (as "Open with" does): it opens bound to the folder, Save writes the
/// edited entry's file (renamed with the entry), and a file changed by
/// another program shows up in the open book, or asks at once when the book
/// has unsaved changes; Overwrite writes the app's book.
#[test]
fn a_book_kept_as_a_folder_opens_saves_and_asks_over_an_outside_edit() {
    use lorebook_engine::formats::{markdown, native};
    let _serial = serial();
    let files = TempDir::new("md-folder");
    let dir = files.path().join("Saltmere");
    let sample = std::fs::read(Path::new(ROOT).join("samples/saltmere.json")).unwrap();
    let (book, _) = native::load(&sample).unwrap();
    markdown::write(&book, &dir).expect("write the folder");
    let mut driver = Driver::start();
    let app = driver.launch(&[dir.to_str().unwrap()]);
    app.wait_ready();
    app.select_entry(1, "The Lighthouse");
    app.type_into(&tid("comment"), "The Beacon");
    app.wait_for(&tid("dirty"));
    app.click(&tid("save"));
    wait_until("the entry's file renamed with it", TIMEOUT, || {
        if dir.join("The Beacon.md").is_file() && !dir.join("The Lighthouse.md").exists() {
            Ok(())
        } else {
            Err("The Beacon.md not written yet".to_string())
        }
    });
    // Another program edits a file while the book has no unsaved changes:
    // it shows up in the open book, and the entry shown stays shown.
    std::thread::sleep(Duration::from_millis(50));
    let orla = dir.join("Orla Venn.md");
    let text = std::fs::read_to_string(&orla).unwrap();
    std::fs::write(&orla, text.replace("keeper", "warden")).unwrap();
    app.select_entry(2, "Orla Venn");
    wait_until("the outside edit shown in the open book", TIMEOUT, || {
        let content = app.value(&tid("content"))?;
        if content.contains("warden") {
            Ok(())
        } else {
            Err(content)
        }
    });
    assert!(
        app.find_all(&tid("dirty")).unwrap().is_empty(),
        "reloaded, not edited"
    );
    // With unsaved changes, the next outside edit asks at once.
    app.type_into(&tid("comment"), "Orla Venn, warden");
    app.wait_for(&tid("dirty"));
    let text = std::fs::read_to_string(&orla).unwrap();
    std::fs::write(&orla, text.replace("warden", "keeper")).unwrap();
    app.wait_for(&tid("disk-message"));
    app.click(&tid("disk-overwrite"));
    wait_until("the app's book written over the edit", TIMEOUT, || {
        if dir.join("Orla Venn, warden.md").is_file() && !orla.exists() {
            Ok(())
        } else {
            Err("not written yet".to_string())
        }
    });
    app.assert_no_errors();
}

/// Merge a book into this one (issue 22): the other file chosen in the
/// native dialog (answered with xdotool), its three groups shown, one new
/// entry left out, a changed entry taken from the other book, Merge as one
/// undo step.
#[test]
fn a_book_is_merged_picking_entries_and_undone_in_one_step() {
    use lorebook_engine::formats::native;
    use lorebook_engine::model::Entry;
    let _serial = serial();
    let files = TempDir::new("merge");
    let file = files.path().join("saltmere-theirs.json");
    let sample = std::fs::read(Path::new(ROOT).join("samples/saltmere.json")).unwrap();
    let (mut theirs, _) = native::load(&sample).unwrap();
    theirs.entries[1].content = "A brighter lighthouse.".into();
    for (id, name) in [(70, "Smugglers"), (71, "Wreckers")] {
        theirs.entries.push(Entry {
            id,
            comment: name.into(),
            keys: vec![name.to_lowercase()],
            content: format!("{name} land at night."),
            ..Entry::default()
        });
    }
    std::fs::write(&file, native::to_bytes(&theirs)).unwrap();
    let mut driver = Driver::start();
    let display = driver.display.clone();
    let app = driver.launch(&[]);
    app.wait_ready();
    let before = app.row_ids().expect("rows").len();
    app.click(&tid("merge-start"));
    answer_file_dialog(
        &display,
        "Merge a book into this one|Mesclar um livro neste",
        &file,
    );
    let summary = app.wait_for(&tid("merge-summary"));
    let text = app.text(&summary).unwrap();
    assert!(
        text.contains("Only there: 2") && text.contains("different: 1"),
        "{text}"
    );
    assert_accessible(&app, "the merge panel");
    if std::env::var_os("LOREBOOK_E2E_SCREENSHOT").is_some() {
        app.save_screenshot();
    }
    // Leave Wreckers out, take the other book's lighthouse.
    let boxes = app
        .find_all(&format!(
            "{} input[type=checkbox]",
            tid("merge-only-theirs")
        ))
        .unwrap();
    app.run(boxes[1].click()).expect("untick Wreckers");
    let take = app.find(&tid("merge-take")).unwrap();
    app.run(take.select_by_value("theirs"))
        .expect("take theirs");
    app.click(&tid("merge-apply"));
    wait_until("the merged book", TIMEOUT, || {
        let n = app.row_ids()?.len();
        let words = app.js("return document.body.textContent", vec![]);
        let words = words.as_str().unwrap_or("");
        if n == before + 1 && words.contains("Smugglers") && !words.contains("Wreckers") {
            Ok(())
        } else {
            Err(format!("{n} rows"))
        }
    });
    app.select_entry(1, "The Lighthouse");
    assert_eq!(
        app.value(&tid("content")).unwrap(),
        "A brighter lighthouse."
    );
    app.click(&tid("undo"));
    wait_until("the merge undone", TIMEOUT, || {
        let n = app.row_ids()?.len();
        let content = app.value(&tid("content"))?;
        if n == before && content != "A brighter lighthouse." {
            Ok(())
        } else {
            Err(format!("{n} rows, {content:?}"))
        }
    });
    app.assert_no_errors();
}
