//! Issue 19 end to end: a RisuAI export shows its folders as folders and
//! previews under RisuAI's rules by
//! default, the rules can be switched away and back, and a decorator only
//! RisuAI reads (`@@exclude_keys`) takes effect as the chat is typed, with
//! the RisuAI rule named in the explanation; the entry editor's RisuAI
//! decorator panel edits it; the request log answers under RisuAI's rules.

use super::*;

/// A RisuAI export: the harbor at `@@depth 2` as the assistant (in the
/// folder "Places"), the lighthouse kept out by `@@exclude_keys storm`, an
/// always-active entry, the folder, and a regex key RisuAI 460ecae
/// rewrites before searching (its known bug).
const RISU_BOOK: &str = r#"{"type": "risu", "ver": 1, "data": [
 {"key": "harbor", "secondkey": "", "comment": "Harbor", "mode": "normal", "insertorder": 100,
  "alwaysActive": false, "selective": false, "content": "@@depth 2\n@@role assistant\nTar and salt.",
  "folder": "folder:places"},
 {"key": "lighthouse", "secondkey": "", "comment": "Lighthouse", "mode": "normal", "insertorder": 200,
  "alwaysActive": false, "selective": false, "content": "@@exclude_keys storm\nThe light turns."},
 {"key": "", "secondkey": "", "comment": "Always", "mode": "normal", "insertorder": 300,
  "alwaysActive": true, "selective": false, "content": "Salt everywhere."},
 {"key": "folder:places", "secondkey": "", "comment": "Places", "mode": "folder", "insertorder": 50,
  "alwaysActive": false, "selective": false, "content": ""},
 {"key": "/drake/i", "secondkey": "", "comment": "Drake", "mode": "normal", "insertorder": 10,
  "alwaysActive": false, "selective": false, "useRegex": true, "content": "Scales."}
]}"#;

#[test]
fn a_risu_export_previews_under_risu_s_rules() {
    let _serial = serial();
    let files = TempDir::new("risurules");
    let book = files.path().join("Harbor.json");
    std::fs::write(&book, RISU_BOOK).expect("write the book");
    let mut driver = Driver::start();
    let app = driver.launch(&[book.to_str().expect("utf-8 temp path")]);
    app.wait_ready();
    // The folder is a folder in the list, its entry under it; a click
    // closes it and opens it again.
    let folder = format!("{}[data-id=\"3\"]", tid("entry-row"));
    let harbor = format!("{}[data-id=\"0\"]", tid("entry-row"));
    wait_until("the folder and its entry", TIMEOUT, || {
        let state = app.attr(&app.find(&folder)?, "data-folder")?;
        let ids = app.row_ids()?;
        let at = |id| ids.iter().position(|&i| i == id);
        match (state.as_deref(), at(3), at(0)) {
            (Some("open"), Some(f), Some(h)) if h == f + 1 => Ok(()),
            _ => Err(format!("folder {state:?}, rows {ids:?}")),
        }
    });
    app.click(&folder);
    wait_until("the folder closed", TIMEOUT, || {
        let state = app.attr(&app.find(&folder)?, "data-folder")?;
        let ids = app.row_ids()?;
        if state.as_deref() == Some("collapsed") && !ids.contains(&0) {
            Ok(())
        } else {
            Err(format!("folder {state:?}, rows {ids:?}"))
        }
    });
    app.click(&folder);
    app.wait_for(&harbor);
    app.type_into(
        &tid("chat"),
        "User: We reach the harbor.\nNarrator: The lighthouse stands tall.",
    );
    // RisuAI's rules are the default for a RisuAI file.
    wait_until("the lighthouse under RisuAI's rules", TIMEOUT, || {
        let rules = app.value(&tid("rules"))?;
        if rules != "risu" {
            return Err(format!("rules {rules:?}"));
        }
        let p = app.preview()?;
        if p.injected.contains(&0) && p.injected.contains(&1) && p.injected.contains(&2) {
            Ok(())
        } else {
            Err(format!("{p:?}"))
        }
    });
    // Where RisuAI puts the harbor: @@depth counts from the chat's start.
    let at = app.find(&format!(
        "{}[data-id=\"0\"] {}",
        tid("injected-entry"),
        tid("risu-position")
    ));
    let label = at.and_then(|el| app.text(&el)).unwrap_or_default();
    assert_eq!(label, "@@depth 2 (from the start of the chat) as assistant");
    // The storm turns the lighthouse off through @@exclude_keys, which
    // only RisuAI reads.
    app.type_into(
        &tid("chat"),
        "User: We reach the harbor.\nNarrator: The lighthouse stands in the storm.",
    );
    wait_until("@@exclude_keys keeping the lighthouse out", TIMEOUT, || {
        let p = app.preview()?;
        if p.dropped.get(&1).map(String::as_str) != Some("excluded") {
            return Err(format!("{p:?}"));
        }
        let el = app.find(&format!("{}[data-id=\"1\"]", tid("dropped-entry")))?;
        let text = app.text(&el)?;
        if text.contains("@@exclude_keys") && text.contains("storm") && text.contains("message 2") {
            Ok(())
        } else {
            Err(format!("drop reason {text:?}"))
        }
    });
    // Under the guide's rules the decorator is unknown: the lighthouse is in.
    app.click(&format!("{} option[value=\"studio\"]", tid("rules")));
    wait_until("the guide's rules", TIMEOUT, || {
        let p = app.preview()?;
        if p.injected.contains(&1) {
            Ok(())
        } else {
            Err(format!("{p:?}"))
        }
    });
    app.click(&format!("{} option[value=\"risu\"]", tid("rules")));
    app.wait_for(&tid("risu-settings"));
    wait_until("back under RisuAI's rules", TIMEOUT, || {
        let p = app.preview()?;
        if p.dropped.contains_key(&1) {
            Ok(())
        } else {
            Err(format!("{p:?}"))
        }
    });
    // The RisuAI decorator panel reads the lighthouse's @@exclude_keys and
    // edits it: with "fog" instead of "storm" the lighthouse is back in.
    app.select_entry(1, "Lighthouse");
    let field = format!(
        "{} {}",
        tid("risu-decorator-panel"),
        tid("risu-dec-exclude_keys")
    );
    wait_until("the panel reading @@exclude_keys", TIMEOUT, || {
        let v = app.value(&field)?;
        if v == "storm" {
            Ok(())
        } else {
            Err(format!("the field holds {v:?}"))
        }
    });
    app.type_into(&field, "fog");
    let el = app.find(&field).expect("the @@exclude_keys field");
    app.run(el.send_keys(&char::from(Key::Tab).to_string()))
        .expect("leave the field");
    wait_until("the lighthouse back in", TIMEOUT, || {
        let p = app.preview()?;
        if p.injected.contains(&1) {
            Ok(())
        } else {
            Err(format!("{p:?}"))
        }
    });
    // The final prompt as RisuAI sends it without a template: the harbor
    // at @@depth 2 counted from the chat block's start (the new-chat line,
    // then the first message), the last message split off after it, then
    // the lorebook block in RisuAI's final order.
    app.open_details(&tid("risu-prompt-panel"));
    wait_until("RisuAI's final prompt", TIMEOUT, || {
        let rows = app.find_all(&format!("{} li", tid("risu-messages")))?;
        let mut got = Vec::new();
        for row in &rows {
            let source = app.attr(row, "data-source")?.unwrap_or_default();
            got.push((source, app.text(row)?));
        }
        let want = [
            ("new_chat", "[Start a new chat]"),
            ("chat", "We reach the harbor."),
            ("entry", "Tar and salt."),
            ("chat", "The lighthouse stands in the storm."),
            ("entry", "The light turns."),
            ("entry", "Salt everywhere."),
        ];
        let same = got.len() == want.len()
            && got
                .iter()
                .zip(want)
                .all(|((source, text), (s, end))| source == s && text.ends_with(end));
        if same {
            Ok(())
        } else {
            Err(format!("{got:?}"))
        }
    });
    // Closed again, it is neither computed nor sent.
    app.click(&format!("{} > summary", tid("risu-prompt-panel")));
    wait_gone(&app, &tid("risu-messages"), "the final prompt closed");
    // The request log, the one log of every rules, answers under RisuAI's
    // too: a row per request, the entries named.
    app.open_details(&tid("log-panel"));
    wait_until("the request log under RisuAI's rules", TIMEOUT, || {
        let rows = app.find_all(&format!("{} li", tid("log")))?;
        if rows.len() != 2 {
            return Err(format!("{} rows", rows.len()));
        }
        let last = app.text(&rows[1])?;
        if last.contains("Lighthouse") && last.contains("Harbor") && last.contains("Always") {
            Ok(())
        } else {
            Err(format!("row 2 {last:?}"))
        }
    });
    // The activation timeline names the harbor's folder on its row.
    app.open_details(&tid("timeline-panel"));
    wait_until("the harbor's row under its folder", TIMEOUT, || {
        let folder = app.text(&app.find(&format!(
            "{}[data-id=\"0\"] {}",
            tid("timeline-row"),
            tid("timeline-folder")
        ))?)?;
        if folder.starts_with("Places") {
            Ok(())
        } else {
            Err(format!("folder {folder:?}"))
        }
    });
    // The Problems panel checks by RisuAI's rules: it names the regex key
    // RisuAI rewrites, which the guide's rules read as a plain regex.
    app.click(&tid("problems-toggle"));
    wait_until("RisuAI's regex bug in the Problems panel", TIMEOUT, || {
        let status = app.text(&app.find(&tid("problems-status"))?)?;
        if !status.contains("RisuAI") {
            return Err(format!("status {status:?}"));
        }
        let listed = listed_problems(&app)?;
        if listed
            .iter()
            .any(|(id, code, sev)| *id == 4 && code == "regex_rewritten" && sev == "warning")
        {
            Ok(())
        } else {
            Err(format!("{listed:?}"))
        }
    });
    // The panel covers the rules, scrolled away with the timeline open:
    // closed and scrolled to, to switch them, then opened again.
    app.click(&tid("problems-toggle"));
    app.js(
        "document.querySelector('[data-testid=\"rules\"]').scrollIntoView({ block: 'center' });",
        vec![],
    );
    app.click(&format!("{} option[value=\"studio\"]", tid("rules")));
    app.click(&tid("problems-toggle"));
    wait_until("the guide's rules in the Problems panel", TIMEOUT, || {
        let status = app.text(&app.find(&tid("problems-status"))?)?;
        let listed = listed_problems(&app)?;
        if status.contains("guide") && !listed.iter().any(|(_, code, _)| code == "regex_rewritten")
        {
            Ok(())
        } else {
            Err(format!("status {status:?}, {listed:?}"))
        }
    });
    if std::env::var_os("LOREBOOK_E2E_SCREENSHOT").is_some() {
        app.save_screenshot();
    }
    app.assert_no_errors();
}

/// Issue 45: RisuAI's 2026 mainline in the app. The RisuAI settings give
/// CBS its user name and chat variables; the injected entry shows what
/// RisuAI sends, and its tokens are those of the evaluated text; the
/// version switched to 460ecae counts the body as written.
#[test]
fn risu_settings_give_cbs_its_inputs_and_choose_the_version() {
    let _serial = serial();
    let files = TempDir::new("risucbs");
    let book = files.path().join("Storm.json");
    std::fs::write(
        &book,
        r#"{"type": "risu", "ver": 1, "data": [
 {"key": "", "secondkey": "", "comment": "Weather", "mode": "normal", "insertorder": 100, "alwaysActive": true,
  "selective": false, "content": "{{#if {{getvar::storm}}}}A storm rolls over the harbor and its ships tonight.{{/if}}Salt for {{user}}."}
]}"#,
    )
    .expect("write the book");
    let mut driver = Driver::start();
    let app = driver.launch(&[book.to_str().expect("utf-8 temp path")]);
    app.wait_ready();
    app.type_into(&tid("chat"), "User: Hello.");
    let sent = |want: &str| {
        wait_until(&format!("RisuAI sends {want:?}"), TIMEOUT, || {
            app.open_details(&tid("risu-sent"));
            let el = app.find(&format!("{} pre", tid("risu-sent")))?;
            let text = app.text(&el)?;
            if text == want {
                Ok(())
            } else {
                Err(text)
            }
        })
    };
    let tokens = || -> u32 {
        let el = app
            .find(&format!("{} .meta", tid("injected-entry")))
            .expect("the entry's figures");
        let text = app.text(&el).unwrap_or_default();
        text.split_whitespace()
            .zip(text.split_whitespace().skip(1))
            .find(|(_, next)| next.starts_with("tok"))
            .and_then(|(n, _)| n.trim_start_matches('≈').parse().ok())
            .unwrap_or_else(|| panic!("no token count in {text:?}"))
    };
    sent("Salt for User.");
    app.open_details(&tid("risu-settings"));
    let version = app.find(&tid("risu-version")).expect("the version choice");
    assert_eq!(app.value(&tid("risu-version")).unwrap_or_default(), "2026");
    drop(version);
    let leave = |css: &str| {
        let el = app.find(css).expect("the field");
        app.run(el.send_keys(&char::from(Key::Tab).to_string()))
            .expect("leave the field");
    };
    app.type_into(&tid("risu-username"), "Kim");
    leave(&tid("risu-username"));
    sent("Salt for Kim.");
    let quiet = tokens();
    app.type_into(&tid("risu-chat_variables"), "storm=1");
    leave(&tid("risu-chat_variables"));
    sent("A storm rolls over the harbor and its ships tonight.Salt for Kim.");
    let stormy = tokens();
    assert!(
        stormy > quiet,
        "the evaluated text counted: {stormy} > {quiet}"
    );
    app.snapshot("risu-cbs");
    app.click(&format!(
        "{} option[value=\"460ecae\"]",
        tid("risu-version")
    ));
    wait_until("460ecae counting the body as written", TIMEOUT, || {
        let now = tokens();
        if now > stormy {
            Ok(())
        } else {
            Err(format!("{now} tokens"))
        }
    });
    app.assert_no_errors();
}
