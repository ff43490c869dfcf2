//! Issue 43: the preview in the app equals `lorebook preview` request by
//! request, under every rules profile, on a SillyTavern book whose uids
//! collide (the corpus ZZZ book, when the shared corpus is there, and a
//! book built to collide on purpose). The app once showed one entry
//! injected where the CLI showed seven: SillyTavern's answers named
//! entries by their uid, two entries shared one, and every list keyed by
//! book and id went stale.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use super::{serial, tid, wait_until, Driver, Session, TempDir, TIMEOUT};

/// A SillyTavern world where three entries share uid 5 and two share
/// uid 9, as exporters that copy entries write them.
fn colliding_world() -> String {
    let entry = |uid: u64, key: &str, comment: &str, order: u64| {
        json!({"uid": uid, "key": [key], "keysecondary": [], "comment": comment,
            "content": format!("{comment}: what the {key} means."), "constant": false,
            "selective": false, "order": order, "position": 0, "disable": false})
    };
    json!({"entries": {
        "0": entry(5, "fog", "Fog", 100),
        "1": entry(5, "bell", "Bell", 90),
        "2": entry(5, "tide", "Tide", 80),
        "3": entry(9, "lamp", "Lamp", 70),
        "4": entry(9, "keeper", "Keeper", 60),
        "5": entry(11, "harbor", "Harbor", 50)
    }})
    .to_string()
}

const COLLIDING_CHAT: &str = "User: The fog came in over the harbor.\n\
                              Narrator: A bell rang from the lamp room.\n\
                              User: Where is the keeper?\n\
                              Narrator: Down by the tide pools.";

const ZZZ_CHAT: &str = "User: Belle, have you heard from Phaethon lately?\n\
                        Assistant: Not since the Silver Squad came by the video store.\n\
                        User: Yixuan was asking about the trip to Yunkui Summit.\n\
                        Assistant: She wants to take The Denny up the mountain road.\n\
                        User: Let's check the story timeline before we go.\n\
                        Assistant: Good idea. Belle will bring the map.";

/// The `lorebook` command-line tool of this build (`cargo test
/// --workspace` builds it beside this test).
fn cli() -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps");
    let cli = dir.join("lorebook");
    assert!(
        cli.is_file(),
        "{} is missing: build it with `cargo build -p lorebook-cli` (cargo test --workspace does)",
        cli.display()
    );
    cli
}

/// The ids `lorebook preview` injects at request `k`, in its order, with
/// the model the app counts with.
fn cli_injected(book: &Path, chat: &Path, rules: &str, model: &str, k: usize) -> Vec<u64> {
    let out = Command::new(cli())
        .args([
            "preview",
            book.to_str().unwrap(),
            "--chat",
            chat.to_str().unwrap(),
        ])
        .args(["--rules", rules, "--request", &k.to_string(), "--json"])
        .args(["--model", model])
        .output()
        .expect("run lorebook");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    v["injected"]
        .as_array()
        .expect("injected")
        .iter()
        .map(|i| i["id"].as_u64().expect("id"))
        .collect()
}

/// Moves the request slider to `k`, as dragging it does.
fn show_request(app: &Session<'_>, k: usize) {
    app.js(
        "const el = document.querySelector('[data-testid=\"request\"]');\
         el.value = String(arguments[0]);\
         el.dispatchEvent(new Event('input', { bubbles: true }));",
        vec![json!(k)],
    );
}

/// Every request of `chat` under every rules profile: the app's injected
/// list equals the CLI's, in order, no injected entry is also listed as
/// dropped, and the label names the request shown.
fn every_request_equals_the_cli(app: &Session<'_>, book: &Path, chat_file: &Path, requests: usize) {
    // The CLI asked with the app's model (under RisuAI's rules the CLI
    // would count with cl100k by default, the app with the model shown).
    let model = app.value(&tid("model")).expect("the model picker");
    assert!(!model.is_empty(), "a model is chosen");
    for rules in ["sillytavern", "studio", "risu", "sillytavern"] {
        app.click(&format!("{} option[value=\"{rules}\"]", tid("rules")));
        for k in (1..=requests).rev() {
            let want = cli_injected(book, chat_file, rules, &model, k);
            show_request(app, k);
            wait_until(
                &format!("request {k} under {rules} as the CLI answers it"),
                TIMEOUT,
                || {
                    let label = app.text(&app.find(&tid("request-label"))?)?;
                    if !label.contains(&format!(" {k} ")) {
                        return Err(format!("label {label:?}"));
                    }
                    let p = app.preview()?;
                    if p.injected != want {
                        return Err(format!("app {:?}, CLI {want:?}", p.injected));
                    }
                    if let Some(both) = p.injected.iter().find(|id| p.dropped.contains_key(id)) {
                        return Err(format!("entry {both} listed injected and dropped"));
                    }
                    Ok(())
                },
            );
        }
    }
    app.assert_no_errors();
}

#[test]
fn the_preview_equals_the_cli_on_every_request_of_a_book_with_colliding_uids() {
    let _serial = serial();
    let files = TempDir::new("collide");
    let book = files.path().join("Collide.json");
    std::fs::write(&book, colliding_world()).expect("write the world");
    let chat = files.path().join("chat.txt");
    std::fs::write(&chat, COLLIDING_CHAT).expect("write the chat");
    let mut driver = Driver::start();
    let app = driver.launch(&[book.to_str().expect("utf-8 temp path")]);
    app.wait_ready();
    app.type_into(&tid("chat"), COLLIDING_CHAT);
    every_request_equals_the_cli(&app, &book, &chat, 4);
}

#[test]
fn the_preview_equals_the_cli_on_every_request_of_the_corpus_zzz_book() {
    let Some(corpus) = lorebook_test_support::corpus_root() else {
        eprintln!("skipped: the shared corpus is not there");
        return;
    };
    let _serial = serial();
    let book = corpus.join("sillytavern/Complete_ZZZ_Lorebook.json");
    let files = TempDir::new("zzz-ids");
    let chat = files.path().join("chat.txt");
    std::fs::write(&chat, ZZZ_CHAT).expect("write the chat");
    let mut driver = Driver::start();
    let app = driver.launch(&[book.to_str().expect("utf-8 corpus path")]);
    app.wait_ready();
    app.type_into(&tid("chat"), ZZZ_CHAT);
    every_request_equals_the_cli(&app, &book, &chat, 6);
}

/// Issue 43: selecting a second entry keeps every action where it was
/// (Duplicate once landed where Move to folder had been).
#[test]
fn selecting_a_second_entry_moves_no_action_under_the_pointer() {
    let _serial = serial();
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    app.select_entry(1, "The Lighthouse");
    let at = |css: &str| -> Result<(f64, f64), String> {
        let el = app.find(css)?;
        let (x, y, _, _) = app.run(el.rectangle())?;
        Ok((x.round(), y.round()))
    };
    let one = wait_until("the actions of one entry", TIMEOUT, || {
        Ok([
            at(&tid("duplicate-entry"))?,
            at(&tid("delete-entry"))?,
            at(&tid("move-to"))?,
        ])
    });
    // Ctrl+click a second row, as a user adds it to the selection.
    app.js(
        "const rows = document.querySelectorAll('[data-testid=\"entry-row\"]');\
         const other = [...rows].find((r) => r.dataset.id !== '1');\
         other.dispatchEvent(new MouseEvent('click', { bubbles: true, ctrlKey: true }));",
        vec![],
    );
    let two = wait_until("the actions of two entries", TIMEOUT, || {
        app.find(&tid("selected-count"))?;
        Ok([
            at(&tid("duplicate-entry"))?,
            at(&tid("bulk-delete"))?,
            at(&tid("bulk-move"))?,
        ])
    });
    assert_eq!(one, two, "every action stays where it was");
    app.assert_no_errors();
}

/// Issue 43: at 1024×700 the header is one row and no entry name in the
/// list is cut below 12 characters (a problem badge once hid a short name
/// whole).
#[test]
fn a_small_window_keeps_one_header_row_and_readable_names() {
    let _serial = serial();
    let corpus = lorebook_test_support::corpus_root();
    let zzz = corpus.map(|c| c.join("sillytavern/Complete_ZZZ_Lorebook.json"));
    let args: Vec<String> = zzz
        .iter()
        .map(|p| p.to_str().expect("utf-8 path").to_string())
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut driver = Driver::start();
    let app = driver.launch(&args);
    app.wait_ready();
    app.run(app.client.set_window_size(1024, 700))
        .expect("resize the window");
    wait_until("the header on one row, names readable", TIMEOUT, || {
        let got = app.js(
            "const bar = document.querySelector('header.toolbar');\
             const h = bar.getBoundingClientRect().height;\
             const probe = document.createElement('span');\
             probe.style.visibility = 'hidden'; probe.textContent = 'x'.repeat(12);\
             const cut = [];\
             for (const n of document.querySelectorAll('[data-testid=\"entry-row\"] .name')) {\
               n.appendChild(probe); const twelve = probe.getBoundingClientRect().width; probe.remove();\
               if (n.scrollWidth > n.clientWidth + 1 && n.clientWidth < twelve) cut.push(n.textContent);\
             }\
             return { height: h, width: window.innerWidth, cut };",
            vec![],
        );
        let height = got["height"].as_f64().unwrap_or(999.0);
        let width = got["width"].as_f64().unwrap_or(0.0);
        if width > 1100.0 {
            return Err(format!("the window is {width} px wide"));
        }
        let cut = got["cut"].as_array().cloned().unwrap_or_default();
        if height > 60.0 || !cut.is_empty() {
            return Err(format!("header {height} px, names cut: {cut:?}"));
        }
        Ok(())
    });
    app.assert_no_errors();
}
