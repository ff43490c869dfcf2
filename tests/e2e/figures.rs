//! Issue 22's whole-book figures end to end: the Figures panel on the
//! sample book with its chat, a click on a largest entry selecting it, and
//! the figures following an edit.

use super::*;

#[test]
fn the_figures_panel_sums_up_the_book_and_its_chat() {
    let _serial = serial();
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    app.click(&tid("figures-toggle"));
    let text = |id: &str| app.text(&app.find(&tid(id))?).map_err(|e| e.to_string());
    wait_until("the sample's figures", TIMEOUT, || {
        let totals = text("figures-totals")?;
        let chat = text("figures-chat")?;
        let constant = text("figures-constant")?;
        if totals.starts_with("10 entries (9 enabled, 1 constant)")
            && chat.contains("6 requests")
            && constant.contains("of the 200-token budget")
        {
            Ok(())
        } else {
            Err(format!("{totals:?} {chat:?} {constant:?}"))
        }
    });
    let first = format!("{} li:first-child button", tid("figures-largest"));
    wait_until("the lighthouse the largest", TIMEOUT, || {
        let name = app.text(&app.find(&first)?)?;
        if name == "The Lighthouse" {
            Ok(())
        } else {
            Err(format!("{name:?}"))
        }
    });
    assert_accessible(&app, "the Figures panel");
    if std::env::var_os("LOREBOOK_E2E_SCREENSHOT").is_some() {
        app.save_screenshot();
    }
    app.click(&first);
    wait_until("the lighthouse in the editor", TIMEOUT, || {
        let comment = app.value(&tid("comment"))?;
        if comment == "The Lighthouse" {
            Ok(())
        } else {
            Err(format!("{comment:?}"))
        }
    });
    // An edit: a longer body makes the book's tokens grow.
    let before = text("figures-totals").unwrap();
    let el = app.find(&tid("content")).expect("the body");
    app.run(el.send_keys(" And a great deal more about the lamp and its keeper."))
        .expect("type");
    wait_until("the figures following the edit", TIMEOUT, || {
        let now = text("figures-totals")?;
        if now != before {
            Ok(())
        } else {
            Err(format!("{now:?}"))
        }
    });
    app.assert_no_errors();
}

/// Find and replace (issue 22) end to end: the matches listed with their
/// context, one left out, the texts that change shown before anything
/// changes, Replace as one undo step.
#[test]
fn find_and_replace_lists_shows_and_replaces_as_one_undo_step() {
    let _serial = serial();
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    app.click(&tid("replace-toggle"));
    app.type_into(&tid("replace-find"), "harbour");
    app.type_into(&tid("replace-with"), "port");
    wait_until("the matches", TIMEOUT, || {
        let n = app.find_all(&tid("replace-match"))?.len();
        let edits = app.find_all(&tid("replace-edit"))?.len();
        if n >= 3 && edits >= 3 {
            Ok(())
        } else {
            Err(format!("{n} matches, {edits} edits"))
        }
    });
    assert_accessible(&app, "the Find and replace panel");
    // Issue 43: only the changed words are marked, not whole paragraphs.
    let marked = app.js(
        "return [...document.querySelectorAll('[data-testid=\"replace-edit\"] del, [data-testid=\"replace-edit\"] ins')]\
           .map((e) => e.tagName.toLowerCase() + ':' + e.textContent)",
        vec![],
    );
    let marked: Vec<String> = serde_json::from_value(marked).expect("strings");
    assert!(!marked.is_empty());
    for m in &marked {
        let word = m
            .split_once(':')
            .map(|(_, w)| w.to_lowercase())
            .unwrap_or_default();
        assert!(
            word == "harbour" || word == "port",
            "a whole text marked: {m:?}"
        );
    }
    // The sample holds "harbour" four times (in three bodies and a name);
    // the first match left out.
    let first = format!("{} input", tid("replace-match"));
    app.click(&first);
    wait_until("the first match left out", TIMEOUT, || {
        let summary = app.text(&app.find(&tid("replace-summary"))?)?;
        if summary.starts_with("4 matches, 3 chosen") {
            Ok(summary)
        } else {
            Err(summary)
        }
    });
    // What the chosen replacements change in the chat, before they are made.
    wait_until("the replacements' impact", TIMEOUT, || {
        let text = app.text(&app.find(&tid("replace-impact"))?)?;
        if text.contains("request") && !text.contains("updating") {
            Ok(())
        } else {
            Err(text)
        }
    });
    if std::env::var_os("LOREBOOK_E2E_SCREENSHOT").is_some() {
        app.save_screenshot();
    }
    app.click(&tid("replace-apply"));
    // The first match is the only one left.
    wait_until("one match left", TIMEOUT, || {
        let n = app.find_all(&tid("replace-match"))?.len();
        if n == 1 {
            Ok(())
        } else {
            Err(format!("{n} matches"))
        }
    });
    app.select_entry(3, "Tam Venn (ferryman)");
    let body = app.value(&tid("content")).expect("the body");
    assert!(body.contains("across the port"), "{body}");
    app.click(&tid("undo"));
    wait_until("undone at once", TIMEOUT, || {
        let body = app.value(&tid("content"))?;
        if body.contains("across the harbour") {
            Ok(())
        } else {
            Err(body)
        }
    });
    app.assert_no_errors();
}
