//! Issue 43: the preview follows the tab shown. Each book keeps its own
//! chat and its own choice of books; opening a second book attaches it to
//! nothing, and another book joins a tab's preview only when the author
//! ticks it.

use serde_json::json;

use super::{serial, tid, wait_until, Driver, Session, TempDir, TIMEOUT};

/// A SillyTavern world of one entry keyed `key`.
fn world(comment: &str, key: &str) -> String {
    json!({"entries": {"0": {"uid": 0, "key": [key], "keysecondary": [], "comment": comment,
        "content": format!("What the {key} is."), "constant": false, "selective": false,
        "order": 100, "position": 0, "disable": false}}})
    .to_string()
}

/// The shown tab's name.
fn shown_tab(app: &Session<'_>) -> Result<String, String> {
    let el = app.find(".tab.active .tab-name")?;
    Ok(app.text(&el)?.replace('●', "").trim().to_string())
}

/// Clicks the tab named `name` and waits until the preview says it runs
/// on that book.
fn show_tab(app: &Session<'_>, name: &str) {
    app.js(
        "const tab = [...document.querySelectorAll('.tab-name')].find((t) => t.textContent.replace('●', '').trim() === arguments[0]);\
         tab.click();",
        vec![json!(name)],
    );
    wait_until(&format!("the tab {name} shown"), TIMEOUT, || {
        if shown_tab(app)? != name {
            return Err("not yet".into());
        }
        let runs = app.text(&app.find(&tid("preview-runs-on"))?)?;
        if !runs.contains(name) {
            return Err(format!("runs on: {runs:?}"));
        }
        Ok(())
    });
}

/// The names of the injected entries.
fn injected_names(app: &Session<'_>) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    for el in app.find_all(&tid("injected-entry"))? {
        names.push(app.text(&el)?);
    }
    Ok(names)
}

fn wait_injected(app: &Session<'_>, what: &str, want: &[&str]) {
    wait_until(what, TIMEOUT, || {
        let got = injected_names(app)?;
        let ok = want.iter().all(|w| got.iter().any(|g| g.contains(w))) && got.len() == want.len();
        if ok {
            Ok(())
        } else {
            Err(format!("injected {got:?}, want {want:?}"))
        }
    });
}

#[test]
fn the_preview_follows_the_tab_shown_with_each_books_own_chat() {
    let _serial = serial();
    let files = TempDir::new("tabs");
    let harbor = files.path().join("Harbor.json");
    let forest = files.path().join("Forest.json");
    std::fs::write(&harbor, world("Harbor fog", "fog")).expect("write");
    std::fs::write(&forest, world("Forest owl", "owl")).expect("write");
    let mut driver = Driver::start();
    let app = driver.launch(&[
        harbor.to_str().expect("utf-8"),
        forest.to_str().expect("utf-8"),
    ]);
    app.wait_ready();
    app.click(&format!("{} option[value=\"sillytavern\"]", tid("rules")));
    let first = wait_until("a tab shown", TIMEOUT, || shown_tab(&app));
    let (here, other, here_entry, other_entry) = if first == "Harbor" {
        ("Harbor", "Forest", "Harbor fog", "Forest owl")
    } else {
        ("Forest", "Harbor", "Forest owl", "Harbor fog")
    };
    show_tab(&app, here);
    // Only the shown book: the other, opened with it, was attached to nothing.
    app.type_into(&tid("chat"), "User: The fog rolls in and an owl calls.");
    wait_injected(&app, "the shown book's entry alone", &[here_entry]);
    let runs = app
        .text(&app.find(&tid("preview-runs-on")).unwrap())
        .unwrap();
    assert!(
        !runs.contains(other),
        "the preview names only {here}: {runs:?}"
    );

    // The other tab: its own, empty chat, its own book.
    show_tab(&app, other);
    wait_until("the other tab's chat box empty", TIMEOUT, || {
        let v = app.value(&tid("chat"))?;
        if v.is_empty() {
            Ok(())
        } else {
            Err(format!("box holds {v:?}"))
        }
    });
    app.type_into(&tid("chat"), "User: Only the owl tonight, and no fog.");
    wait_injected(&app, "the other book's entry alone", &[other_entry]);

    // Back: the first tab's chat and books come back.
    show_tab(&app, here);
    wait_until("the first tab's chat back", TIMEOUT, || {
        let v = app.value(&tid("chat"))?;
        if v == "User: The fog rolls in and an owl calls." {
            Ok(())
        } else {
            Err(format!("box holds {v:?}"))
        }
    });
    wait_injected(&app, "the first book's entry again", &[here_entry]);

    // Attached on request: both books' entries, and the preview says so.
    app.click(&format!("{} input", tid("preview-book-other")));
    wait_injected(&app, "both books once attached", &[here_entry, other_entry]);
    let runs = app
        .text(&app.find(&tid("preview-runs-on")).unwrap())
        .unwrap();
    assert!(runs.contains(here) && runs.contains(other), "{runs:?}");
    // The other tab kept its own choice: itself alone.
    show_tab(&app, other);
    wait_injected(&app, "the other tab's own books", &[other_entry]);
    app.assert_no_errors();
}
