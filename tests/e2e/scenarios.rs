//! Issue 21 end to end: save the preview shown as a scenario, edit a key
//! so it fails, see the failure name the entry, the request and the rules'
//! reason and the impact strip name the entry and the request, undo and
//! see it pass again.

use super::*;

/// The scenario's state in the panel: `yes`/`no`, and its failures' text.
fn scenario(app: &Session<'_>, name: &str) -> Result<(String, Vec<String>), String> {
    let css = format!("{}[data-name=\"{name}\"]", tid("scenario"));
    let el = app.find(&css)?;
    let passed = app.attr(&el, "data-passed")?.unwrap_or_default();
    let mut failures = Vec::new();
    for f in app.find_all(&format!("{css} {}", tid("scenario-failure")))? {
        failures.push(app.text(&f)?);
    }
    Ok((passed, failures))
}

#[test]
fn a_saved_scenario_fails_after_an_edit_and_passes_after_undo() {
    let _serial = serial();
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    app.open_details(&tid("scenarios-panel"));
    app.type_into(&tid("scenario-name"), "harbor arrival");
    app.click(&tid("scenario-save"));
    wait_until(
        "the scenario saved and passing",
        TIMEOUT,
        || match scenario(&app, "harbor arrival")? {
            (p, f) if p == "yes" && f.is_empty() => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    // The lighthouse's key no longer matches the chat.
    app.select_entry(1, "The Lighthouse");
    app.type_into(&tid("keys"), "zeppelin");
    wait_until("the scenario failing on the lighthouse", TIMEOUT, || {
        let (passed, failures) = scenario(&app, "harbor arrival")?;
        let named = failures.iter().any(|f| {
            f.starts_with("“The Lighthouse” is not injected in request 6:") && f.contains("no")
        });
        if passed == "no" && named {
            Ok(())
        } else {
            Err(format!("{passed} {failures:?}"))
        }
    });
    let summary = app
        .find(&tid("scenarios-summary"))
        .and_then(|el| app.text(&el))
        .unwrap_or_default();
    assert_eq!(summary, "0 passing, 1 failing");
    // The impact strip: against the saved book, the lighthouse stops in
    // the requests that named it, and the scenario now fails.
    wait_until("the impact strip", TIMEOUT, || {
        let text = app.text(&app.find(&tid("impact"))?)?;
        if text.contains("requests change") && text.contains("1 scenario now failing") {
            Ok(())
        } else {
            Err(format!("strip {text:?}"))
        }
    });
    app.click(&tid("impact-toggle"));
    wait_until("the lighthouse stopped in request 6", TIMEOUT, || {
        let row = app.find(&format!("{}[data-request=\"6\"]", tid("impact-row")))?;
        let text = app.text(&row)?;
        if text.contains("− The Lighthouse:") {
            Ok(())
        } else {
            Err(format!("row {text:?}"))
        }
    });
    if std::env::var_os("LOREBOOK_E2E_SCREENSHOT").is_some() {
        app.save_screenshot();
    }
    app.click(&tid("undo"));
    wait_until(
        "the scenario passing after undo",
        TIMEOUT,
        || match scenario(&app, "harbor arrival")? {
            (p, f) if p == "yes" && f.is_empty() => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    // Loosened in its small form: one expectation dropped (with "nothing
    // else" on, that entry now fails it), then "nothing else" off.
    app.open_details(&tid("scenario-expect"));
    app.click(&tid("scenario-drop-expected"));
    wait_until(
        "the dropped entry failing 'nothing else'",
        TIMEOUT,
        || match scenario(&app, "harbor arrival")? {
            (p, f) if p == "no" && f.iter().any(|f| f.contains("is injected in request 6")) => {
                Ok(())
            }
            other => Err(format!("{other:?}")),
        },
    );
    app.click(&tid("scenario-exactly"));
    wait_until(
        "the loosened scenario passing",
        TIMEOUT,
        || match scenario(&app, "harbor arrival")? {
            (p, f) if p == "yes" && f.is_empty() => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    app.assert_no_errors();
}

/// The activation timeline: a row per matched entry, a cell per request;
/// a click on a cell shows that request and selects the entry.
#[test]
fn the_timeline_shows_each_request_and_a_click_opens_it() {
    let _serial = serial();
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    app.open_details(&tid("timeline-panel"));
    // The lighthouse (id 1) is named from message 4 on.
    let cell = |k: u32| {
        format!(
            "{}[data-id=\"1\"] {}[data-request=\"{k}\"]",
            tid("timeline-row"),
            tid("timeline-cell")
        )
    };
    wait_until("the lighthouse's row", TIMEOUT, || {
        let first = app.attr(&app.find(&cell(1))?, "data-state")?;
        let last = app.attr(&app.find(&cell(6))?, "data-state")?;
        match (first.as_deref(), last.as_deref()) {
            (Some("."), Some("i")) => Ok(()),
            other => Err(format!("{other:?}")),
        }
    });
    // An unsaved edit: the lighthouse loses its keys, which frees budget
    // for the tavern (id 6) in the last requests; the timeline marks the
    // cells the edit changes.
    app.select_entry(1, "The Lighthouse");
    app.type_into(&tid("keys"), "zeppelin");
    let tavern = format!(
        "{}[data-id=\"6\"] {}[data-request=\"6\"]",
        tid("timeline-row"),
        tid("timeline-cell")
    );
    wait_until("the tavern's changed cell", TIMEOUT, || {
        let el = app.find(&tavern)?;
        let class = app.attr(&el, "class")?.unwrap_or_default();
        let state = app.attr(&el, "data-state")?.unwrap_or_default();
        // The lighthouse matches nowhere now: its row stays, its cell
        // ringed as changed.
        let light = app.find(&cell(6))?;
        let light_class = app.attr(&light, "class")?.unwrap_or_default();
        if class.contains("changed") && state == "i" && light_class.contains("changed") {
            Ok(())
        } else {
            Err(format!("{class:?} {state:?}"))
        }
    });
    app.click(&tid("undo"));
    wait_until("the rings gone after undo", TIMEOUT, || {
        let rings = app.find_all(&format!("{}.changed", tid("timeline-cell")))?;
        let state = app.attr(&app.find(&cell(6))?, "data-state")?;
        if rings.is_empty() && state.as_deref() == Some("i") {
            Ok(())
        } else {
            Err(format!("{} rings, lighthouse {state:?}", rings.len()))
        }
    });
    app.click(&cell(5));
    wait_until("request 5 and the lighthouse selected", TIMEOUT, || {
        let comment = app.value(&tid("comment"))?;
        let label = app.text(&app.find(&tid("request-label"))?)?;
        if comment == "The Lighthouse" && label == "Request 5 of 6" {
            Ok(())
        } else {
            Err(format!("{comment:?}, {label:?}"))
        }
    });
    if std::env::var_os("LOREBOOK_E2E_SCREENSHOT").is_some() {
        app.save_screenshot();
    }
    app.assert_no_errors();
}

/// The impact compares with what the author picks: the book an undo step
/// ago, another file (chosen in the native dialog, answered with xdotool),
/// and back to the saved version; the strip says which.
#[test]
fn the_impact_compares_with_an_undo_step_or_another_file() {
    let _serial = serial();
    let dir = TempDir::new("impact-base");
    let file = dir.path().join("saltmere-copy.json");
    std::fs::copy(Path::new(ROOT).join("samples/saltmere.json"), &file).expect("copy the sample");
    let mut driver = Driver::start();
    let display = driver.display.clone();
    let app = driver.launch(&[]);
    app.wait_ready();
    app.select_entry(1, "The Lighthouse");
    app.type_into(&tid("keys"), "zeppelin");
    let strip = |title: &str, changes: bool| {
        wait_until(&format!("the strip {title:?}"), TIMEOUT, || {
            let text = app.text(&app.find(&tid("impact"))?)?;
            if text.starts_with(title) && (!changes || text.contains("requests change")) {
                Ok(())
            } else {
                Err(format!("strip {text:?}"))
            }
        })
    };
    strip("Since saved:", true);
    let choose = |value: &str| {
        let css = format!("{} option[value=\"{value}\"]", tid("impact-base"));
        wait_until(&format!("the choice {value}"), TIMEOUT, || {
            Ok(app.find(&css)?)
        });
        let select = app.find(&tid("impact-base")).expect("the choice");
        app.run(select.select_by_value(value)).expect("choose");
    };
    choose("step:1");
    strip("Since 1 step back:", false);
    choose("pick-file");
    answer_file_dialog(
        &display,
        "Compare the book with|Comparar o livro com",
        &file,
    );
    strip("Against saltmere-copy.json:", true);
    if std::env::var_os("LOREBOOK_E2E_SCREENSHOT").is_some() {
        app.save_screenshot();
    }
    choose("saved");
    strip("Since saved:", true);
    app.assert_no_errors();
}

/// The timeline of a long chat draws only the columns in view: of 400
/// requests, the first ones at first, the last ones once scrolled to the
/// right end, each cell still a click away from its request.
#[test]
fn the_timeline_draws_only_the_requests_in_view() {
    let _serial = serial();
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    let chat: String = (1..=400)
        .map(|i| {
            if i % 2 == 1 {
                format!("User: the harbor and the lighthouse, {i}.\n")
            } else {
                format!("Narrator: fog on the water, {i}.\n")
            }
        })
        .collect();
    app.js(
        "const c = document.querySelector('[data-testid=chat]'); c.focus(); c.value = arguments[0];
         c.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText' })); return true;",
        vec![json!(chat)],
    );
    app.open_details(&tid("timeline-panel"));
    let lighthouse = format!("{}[data-id=\"1\"]", tid("timeline-row"));
    let drawn = |app: &Session<'_>| -> Result<(usize, bool, bool), String> {
        let cells = app.find_all(&format!("{lighthouse} {}", tid("timeline-cell")))?;
        let has = |k: u32| {
            app.find_all(&format!("{lighthouse} [data-request=\"{k}\"]"))
                .map(|v| !v.is_empty())
        };
        Ok((cells.len(), has(1)?, has(400)?))
    };
    wait_until("the first columns drawn", TIMEOUT, || match drawn(&app)? {
        (n, true, false) if n > 0 && n < 400 => Ok(()),
        other => Err(format!("{other:?}")),
    });
    app.js(
        "let b = document.querySelector('[data-testid=timeline]');
         while (b && !(b.scrollWidth > b.clientWidth + 1 && /auto|scroll/.test(getComputedStyle(b).overflowX))) b = b.parentElement;
         b.scrollLeft = b.scrollWidth; return true;",
        vec![],
    );
    wait_until("the last columns drawn", TIMEOUT, || match drawn(&app)? {
        (n, false, true) if n < 400 => Ok(()),
        other => Err(format!("{other:?}")),
    });
    app.click(&format!("{lighthouse} [data-request=\"390\"]"));
    wait_until("request 390 shown", TIMEOUT, || {
        let label = app.text(&app.find(&tid("request-label"))?)?;
        if label.contains("390") {
            Ok(())
        } else {
            Err(format!("label {label:?}"))
        }
    });
    app.assert_no_errors();
}
