//! Issue 43: the first minutes. A short hint on the first start, dismissed
//! for good; the Help menu's user guide (the guide shipped with the app,
//! rendered as text, its sections listed) and keyboard shortcuts.

use serde_json::json;

use super::{assert_accessible, serial, tid, wait_until, Driver, TIMEOUT};

#[test]
fn the_first_start_shows_a_hint_the_guide_and_the_shortcuts() {
    let _serial = serial();
    let mut driver = Driver::start();
    // A first start: no preferences yet.
    let prefs = driver.dir.path().join("data/prefs.json");
    std::fs::remove_file(&prefs).expect("no preferences");
    let app = driver.launch(&[]);
    app.wait_ready();
    app.wait_for(&tid("welcome"));
    assert_accessible(&app, "the first-run hint");

    // The user guide: its sections listed, a click shows one.
    app.click(&tid("welcome-guide"));
    app.wait_for(&tid("guide-dialog"));
    let sections = app.find_all(&tid("guide-section")).expect("sections");
    assert!(sections.len() >= 10, "{} sections", sections.len());
    let body = app.text(&app.find(&tid("guide-body")).unwrap()).unwrap();
    assert!(
        body.contains("Find and replace") && body.contains("Ctrl+S"),
        "the guide's text"
    );
    assert!(
        !body.contains("]("),
        "links keep their words, no Markdown shown"
    );
    assert_accessible(&app, "the user guide");
    app.js(
        "[...document.querySelectorAll('[data-testid=\"guide-section\"]')].find((b) => b.textContent === 'Find and replace').click()",
        vec![],
    );
    wait_until("the guide scrolled to the section", TIMEOUT, || {
        let top = app.js(
            "return document.querySelector('[data-testid=\"guide-body\"]').scrollTop",
            vec![],
        );
        if top.as_f64().unwrap_or(0.0) > 100.0 {
            Ok(())
        } else {
            Err(format!("scrollTop {top}"))
        }
    });
    app.click(&tid("guide-close"));

    // The keyboard shortcuts, from the menu's own table.
    app.click(&tid("welcome-shortcuts"));
    app.wait_for(&tid("shortcuts-dialog"));
    let rows = app.js(
        "return [...document.querySelectorAll('[data-testid=\"shortcut-row\"]')].map((r) => r.textContent)",
        vec![],
    );
    let rows: Vec<String> = serde_json::from_value(rows).unwrap();
    assert!(
        rows.iter()
            .any(|r| r.contains("Save") && r.contains("Ctrl+S")),
        "{rows:?}"
    );
    assert!(
        rows.iter()
            .any(|r| r.contains("User Guide") && r.contains("F1")),
        "{rows:?}"
    );
    assert_accessible(&app, "the keyboard shortcuts");
    app.click(&tid("shortcuts-close"));

    // Dismissed for good.
    app.click(&tid("welcome-dismiss"));
    wait_until("the hint gone and remembered", TIMEOUT, || {
        if !app.find_all(&tid("welcome"))?.is_empty() {
            return Err("still shown".into());
        }
        let text = std::fs::read_to_string(&prefs).map_err(|e| e.to_string())?;
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        if v["welcomed"] == json!(true) {
            Ok(())
        } else {
            Err(text)
        }
    });
    app.assert_no_errors();
}
