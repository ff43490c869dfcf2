//! Issue 17 end to end: nothing is lost when a file changes while the app
//! is down, when the data folder cannot take recovery copies, or when a
//! save or a shutdown comes during a preview that takes seconds.
//!
//! The timings of the last test are measured against the long work itself,
//! taken in the same run (a loaded machine slows both), not against fixed
//! numbers; what shows up is waited for with the harness's generous
//! `TIMEOUT`.

use super::*;
use lorebook_engine::model::{Book, Entry};
use lorebook_studio_lib::workspace::recovery::AUTOSAVE_DELAY;
use serde_json::Value;

/// Runs `script` in the page and answers what it returns.
fn js(app: &Session<'_>, script: &str, args: Vec<Value>) -> Value {
    app.run(app.client.execute(script, args))
        .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
}

/// Runs the asynchronous `script` (it calls its last argument when done).
fn js_async(app: &Session<'_>, script: &str, args: Vec<Value>) -> Value {
    app.run(app.client.execute_async(script, args))
        .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
}

/// Waits until `recovery` holds a recovery copy whose book contains `text`.
fn wait_for_copy(recovery: &Path, text: &str) -> PathBuf {
    wait_for_copy_that(recovery, &format!("holding {text:?}"), |p| {
        std::fs::read_to_string(p).is_ok_and(|t| t.contains(text))
    })
}

/// Waits until `recovery` holds a recovery copy (a book, not a sidecar)
/// for which `test` holds, and answers its path.
fn wait_for_copy_that(recovery: &Path, what: &str, test: impl Fn(&Path) -> bool) -> PathBuf {
    wait_until(&format!("a recovery copy {what}"), TIMEOUT, || {
        let copies = std::fs::read_dir(recovery).map_err(|e| e.to_string())?;
        copies
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                let name = p.file_name().unwrap_or_default().to_string_lossy();
                name.ends_with(".json") && !name.ends_with(".meta.json") && test(p)
            })
            .ok_or_else(|| format!("none in {}", recovery.display()))
    })
}

/// Issue 17: a book restored from a recovery copy still knows its file as
/// it was when the copy was made. The app is ended with the book unsaved,
/// another program changes the file while the app is down, the next start
/// restores the copy, and Save asks before overwriting the changed file;
/// Overwrite then writes the restored book.
#[test]
fn a_restored_book_asks_before_saving_over_a_file_changed_while_the_app_was_down() {
    let _serial = serial();
    let files = TempDir::new("restore-changed");
    let book = files.path().join("book.json");
    std::fs::copy(Path::new(ROOT).join("samples/saltmere.json"), &book).expect("copy the sample");
    let path = book.to_str().expect("utf-8 temp path");
    let changed = "The Lighthouse (restored, then saved)";

    let mut driver = Driver::start();
    let recovery = driver.dir.path().join("data").join("recovery");
    {
        let app = driver.launch(&[path]);
        app.wait_ready();
        app.select_entry(1, "The Lighthouse");
        app.type_into(&tid("comment"), changed);
        app.wait_for(&tid("dirty"));
        wait_for_copy(&recovery, changed);
        app.assert_no_errors();
        // Ends without the clean exit, as a kill does.
        app.quit();
    }
    let on_disk = std::fs::read_to_string(&book).expect("read the book");
    assert!(!on_disk.contains(changed), "the book was saved");
    // A `git pull` while the app is down.
    std::fs::write(&book, on_disk.replace("Saltmere", "Saltmarsh")).expect("change the file");

    let app = driver.launch(&[]);
    app.wait_ready();
    app.wait_for(&tid("recovery-dialog"));
    app.click(&tid("recovery-restore"));
    wait_gone(
        &app,
        &tid("recovery-dialog"),
        "the recovery dialog to close",
    );
    wait_until("two books open, the restored one unsaved", TIMEOUT, || {
        let tabs = app.find_all(&tid("book-tab"))?.len();
        let dirty = app.find_all(&tid("dirty"))?.len();
        if tabs == 2 && dirty == 1 {
            Ok(())
        } else {
            Err(format!("{tabs} tabs, {dirty} marked unsaved"))
        }
    });
    // The restored book's tab (the one marked unsaved) is the one saved.
    js(
        &app,
        "Array.from(document.querySelectorAll('[data-testid=\"book-tab\"]'))
           .find((t) => t.querySelector('[data-testid=\"dirty\"]'))
           .querySelector('.tab-name').click(); return true;",
        vec![],
    );
    app.select_entry(1, changed);
    app.click(&tid("save"));
    wait_for_disk_question(&app);
    let now = std::fs::read_to_string(&book).expect("read the book");
    assert!(
        now.contains("Saltmarsh") && !now.contains(changed),
        "the restored book was saved over the changed file without asking"
    );
    app.click(&tid("disk-overwrite"));
    wait_gone(
        &app,
        &tid("dirty"),
        "the unsaved marker to go after Overwrite",
    );
    let saved = std::fs::read_to_string(&book).expect("read the saved book");
    assert!(
        saved.contains(changed) && !saved.contains("Saltmarsh"),
        "Overwrite writes the restored book"
    );
    app.assert_no_errors();
}

/// Issue 17: when recovery copies cannot be written, a lasting notice says
/// so within seconds of an edit, and goes once copies work again. A file
/// stands where the recovery folder should be: no copy can be written,
/// whoever runs the app (permissions do not stop root).
#[test]
fn an_unusable_recovery_folder_shows_a_lasting_notice_until_copies_work() {
    let _serial = serial();
    let mut driver = Driver::start();
    let recovery = driver.dir.path().join("data").join("recovery");
    let app = driver.launch(&[]);
    app.wait_ready();
    wait_until("the recovery folder made at start", TIMEOUT, || {
        if recovery.is_dir() {
            Ok(())
        } else {
            Err(format!("no folder {}", recovery.display()))
        }
    });
    std::fs::remove_dir_all(&recovery).expect("remove the recovery folder");
    std::fs::write(&recovery, "not a folder").expect("a file in its place");

    app.select_entry(1, "The Lighthouse");
    let edited = Instant::now();
    app.type_into(&tid("comment"), "The Lighthouse (no copy can be made)");
    app.wait_for(&tid("dirty"));
    let banner = app.wait_for(&tid("autosave-failed"));
    eprintln!(
        "the autosave notice showed {:?} after the edit",
        edited.elapsed()
    );
    let text = app.text(&banner).expect("the notice's text");
    assert!(
        text.contains("cannot be copied for recovery"),
        "the notice says why: {text:?}"
    );
    // Lasting: still there after several more autosave passes.
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        !app.find_all(&tid("autosave-failed"))
            .expect("look for the notice")
            .is_empty(),
        "the notice went while copies still fail"
    );
    app.assert_no_errors();

    std::fs::remove_file(&recovery).expect("remove the file");
    let fixed = "The Lighthouse (copied again)";
    app.type_into(&tid("comment"), fixed);
    wait_gone(
        &app,
        &tid("autosave-failed"),
        "the notice to go once copies work",
    );
    wait_for_copy(&recovery, fixed);
    app.assert_no_errors();
}

// ------------------------------------------------ a save and a shutdown

/// Entries of the book whose SillyTavern preview takes seconds to build
/// (24,000 took just under one second on a fast day: the test needs more).
const LONG_BOOK: u64 = 40_000;

const SYLLABLES: &[&str] = &[
    "ka", "ri", "mo", "ven", "tal", "sor", "eth", "ul", "bra", "nis", "dor", "ae", "lun", "qui",
    "zar", "fel", "gor", "hal", "ith", "jor", "mar", "nel", "ost", "pra", "rho", "sel", "tur",
    "vel", "wyn", "yl", "zen", "cai",
];

/// A made-up name of four syllables, the same for the same numbers.
fn name(i: u64, salt: u64) -> String {
    let x = i
        .wrapping_mul(2_654_435_761)
        .wrapping_add(salt.wrapping_mul(97));
    (0..4)
        .map(|d| SYLLABLES[((x >> (5 * d)) % 32) as usize])
        .collect()
}

/// A book of `n` entries keyed on made-up names, as lorebooks key on
/// proper nouns.
fn long_book(n: u64) -> Book {
    Book {
        name: "Long".into(),
        token_budget: 2000,
        entries: (0..n)
            .map(|i| Entry {
                id: i,
                comment: format!("Entry {i}"),
                keys: vec![
                    name(i, 0),
                    name(i, 1),
                    format!("{} {}", name(i, 2), name(i, 3)),
                ],
                content: format!(
                    "Lore of {} and {}, a little longer than one line.",
                    name(i, 0),
                    name(i + 1, 1)
                ),
                order: (i % 1000) as i64,
                ..Entry::default()
            })
            .collect(),
        ..Book::default()
    }
}

/// A chat of 30 messages naming some of the book's keys.
fn long_chat() -> String {
    (0..30)
        .map(|m| {
            format!(
                "User: we talk about {} and {}\n",
                name(m * 13, 0),
                name(m * 7, 1)
            )
        })
        .collect()
}

/// Installed once per page: every IPC command with when it was sent and
/// answered (`performance.now()`), around `fetch`, which Tauri's IPC uses.
const IPC_TIMES: &str = r#"
if (!window.__ipc) {
  window.__ipc = [];
  const orig = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const url = String(input && input.url ? input.url : input);
    if (!(url.startsWith('ipc:') || url.includes('//ipc.'))) return orig(input, init);
    const rec = { cmd: url.split('/').pop().split('?')[0], t0: performance.now(), t1: null, status: null };
    window.__ipc.push(rec);
    return orig(input, init).then(
      (r) => { rec.t1 = performance.now(); rec.status = r.status; return r; },
      (e) => { rec.t1 = performance.now(); rec.status = -1; throw e; },
    );
  };
}
return true;
"#;

/// Waits until no command has been in flight for half a second (the
/// list's background token counts and the Problems checks included).
fn wait_idle(app: &Session<'_>) {
    wait_until("the app to be idle", TIMEOUT * 3, || {
        let idle = js(
            app,
            "const now = performance.now();
             return window.__ipc.every((r) => r.t1 !== null && now - r.t1 > 500);",
            vec![],
        );
        if idle == Value::Bool(true) {
            Ok(())
        } else {
            Err("commands in flight".to_string())
        }
    });
}

/// Sets entry `id`'s order through the editor (one input event, as
/// typing a number does): under SillyTavern's rules the entry moves in
/// SillyTavern's order, so the next preview compiles every entry again.
/// Answers the page's time just before.
fn set_order(app: &Session<'_>, order: i64) -> f64 {
    js(
        app,
        "const el = document.querySelector('[data-testid=\"order\"]');
         const at = performance.now();
         el.focus(); el.value = String(arguments[0]);
         el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText' }));
         return at;",
        vec![json!(order)],
    )
    .as_f64()
    .expect("a time")
}

/// Waits until a SillyTavern preview asked for after page time `after` has
/// been computing for `age` ms; answers how long ago (ms) the entry edit
/// sent after `after` was stored. The edit's own answer carries the
/// preview (`update_entry` with its `preview` ask), so the build runs in
/// that command once the edit is stored; a preview asked for on its own
/// (`preview`, after an edit answered without one) counts too.
fn wait_for_long_preview(app: &Session<'_>, after: f64, age: f64) -> f64 {
    wait_until("a SillyTavern preview being computed", TIMEOUT, || {
        let seen = js(
            app,
            "const [after, age] = arguments; const now = performance.now();
             const edit = window.__ipc.find((r) => r.cmd === 'update_entry' && r.t0 >= after);
             if (!edit) return null;
             if (edit.t1 === null) return now - edit.t0 >= age ? now - edit.t0 : null;
             const busy = window.__ipc.some((r) => r.cmd === 'preview' && r.t0 >= after && r.t1 === null && now - r.t0 >= age);
             return busy ? now - edit.t1 : null;",
            vec![json!(after), json!(age)],
        );
        seen.as_f64()
            .ok_or_else(|| format!("commands: {}", ipc_summary(app)))
    })
}

/// The commands sent so far, for failure messages.
fn ipc_summary(app: &Session<'_>) -> String {
    js(
        app,
        "return window.__ipc.slice(-12).map((r) => `${r.cmd} ${r.t1 === null ? 'in flight' : Math.round(r.t1 - r.t0) + ' ms ' + r.status}`).join(', ');",
        vec![],
    )
    .to_string()
}

/// The process id of the app running on the data folder `data`: the
/// process running the app's binary with `data` in its environment (each
/// driver gives its apps a data folder of their own).
fn app_pid(data: &Path) -> u32 {
    let data = format!("LOREBOOK_DATA_DIR={}", data.display());
    let exe = std::fs::canonicalize(app_path()).expect("the app's binary");
    wait_until("the app's process", TIMEOUT, || {
        let mut found = Vec::new();
        for e in std::fs::read_dir("/proc")
            .map_err(|e| e.to_string())?
            .flatten()
        {
            let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let runs_app = std::fs::read_link(e.path().join("exe")).is_ok_and(|p| p == exe);
            let ours = std::fs::read(e.path().join("environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == data.as_bytes()));
            if runs_app && ours {
                found.push(pid);
            }
        }
        match found[..] {
            [pid] => Ok(pid),
            _ => Err(format!("processes {found:?}")),
        }
    })
}

/// Whether process `pid` has ended (gone, or a zombie its parent has not
/// reaped yet).
fn ended(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
    }
}

/// The order of entry `id` in the native book file `file`.
fn order_in(file: &Path, id: u64) -> Option<i64> {
    let bytes = std::fs::read(file).ok()?;
    let (book, _) = lorebook_engine::formats::native::load(&bytes).ok()?;
    Some(book.entry(id)?.order)
}

/// Issue 17: under SillyTavern's rules, an edit that moves an entry in
/// SillyTavern's order makes the next preview compile every entry of the
/// book again, seconds on a big one, holding the workspace. A Save and a
/// SIGTERM (a shutdown) coming meanwhile stop that build: the Save is
/// answered, and the process ends with its recovery copy written, in a
/// fraction of the time the build takes (measured in this run, from the
/// first SillyTavern preview, which nothing stops: the book is clean then).
#[test]
fn a_save_and_a_sigterm_during_a_long_preview_build_do_not_wait_for_it() {
    let _serial = serial();
    let files = TempDir::new("long-build");
    let book = files.path().join("long.json");
    lorebook_engine::formats::native::save(&long_book(LONG_BOOK), &book).expect("write the book");
    let path = book.to_str().expect("utf-8 temp path");

    // With each command's wait for the workspace in the log a failure shows.
    let mut driver = Driver::start_with_env(&[("LOREBOOK_TRACE", "1")]);
    let data = driver.dir.path().join("data");
    let recovery = data.join("recovery");
    let app = driver.launch(&[path]);
    app.wait_ready();
    js(&app, IPC_TIMES, vec![]);
    wait_idle(&app);
    let first = wait_until("the listed entries", TIMEOUT, || {
        app.row_ids()?
            .first()
            .copied()
            .ok_or_else(|| "no rows".to_string())
    });
    app.select_entry(first, &format!("Entry {first}"));
    js(
        &app,
        "const el = document.querySelector('[data-testid=\"chat\"]');
         el.focus(); el.value = arguments[0];
         el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText' }));
         return true;",
        vec![json!(long_chat())],
    );
    wait_idle(&app);

    // The baseline: the first SillyTavern preview builds from scratch and
    // nothing stops it (no book is unsaved, so no copy falls due).
    let switched = js(
        &app,
        "const el = document.querySelector('[data-testid=\"rules\"]');
         const at = performance.now();
         el.value = 'sillytavern'; el.dispatchEvent(new Event('change', { bubbles: true }));
         return at;",
        vec![],
    )
    .as_f64()
    .expect("a time");
    let build = wait_until("the first SillyTavern preview", TIMEOUT * 3, || {
        js(
            &app,
            "const r = window.__ipc.find((r) => r.cmd === 'preview' && r.t0 >= arguments[0] && r.t1 !== null);
             return r ? r.t1 - r.t0 : null;",
            vec![json!(switched)],
        )
        .as_f64()
        .ok_or_else(|| format!("commands: {}", ipc_summary(&app)))
    });
    eprintln!("the first SillyTavern preview of {LONG_BOOK} entries took {build:.0} ms");
    assert!(
        build > 1000.0,
        "the build took only {build:.0} ms: too short to show anything; make the book bigger"
    );
    wait_idle(&app);

    // A Save while the preview builds again.
    let before = set_order(&app, 4242);
    let after_edit = wait_for_long_preview(&app, before, 200.0);
    let save = js_async(
        &app,
        "const done = arguments[arguments.length - 1];
         const n = window.__ipc.length;
         document.querySelector('[data-testid=\"save\"]').click();
         const wait = () => {
           const r = window.__ipc.slice(n).find((r) => r.cmd === 'save');
           if (r && r.t1 !== null) done(r.t1 - r.t0); else setTimeout(wait, 5);
         };
         wait();",
        vec![],
    )
    .as_f64()
    .expect("the save's time");
    eprintln!(
        "Save clicked {after_edit:.0} ms after the edit, answered in {save:.0} ms \
         (the build takes {build:.0} ms); commands: {}",
        ipc_summary(&app)
    );
    assert!(
        save < build / 2.0,
        "Save took {save:.0} ms during a build of {build:.0} ms"
    );
    wait_gone(&app, &tid("dirty"), "the unsaved marker to go after Save");
    assert_eq!(order_in(&book, first), Some(4242), "the saved file");
    app.assert_no_errors();
    wait_idle(&app);

    // A SIGTERM while the preview builds again: the process copies the
    // unsaved book and ends.
    let pid = app_pid(&data);
    let before = set_order(&app, 4343);
    let after_edit = wait_for_long_preview(&app, before, 200.0);
    let sent = Instant::now();
    let killed = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success(), "kill -TERM {pid}");
    wait_until("the app to end after SIGTERM", TIMEOUT, || {
        if ended(pid) {
            Ok(())
        } else {
            Err(format!("process {pid} still runs"))
        }
    });
    let exit = sent.elapsed().as_secs_f64() * 1000.0;
    eprintln!(
        "SIGTERM sent {after_edit:.0} ms after the edit; the app ended {exit:.0} ms later \
         (the build takes {build:.0} ms)"
    );
    assert!(
        exit < build / 2.0,
        "the app took {exit:.0} ms to end during a build of {build:.0} ms"
    );
    // The app ended before autosave's quiet period after the edit was
    // over: the copy holding it is the signal handler's.
    let quiet = AUTOSAVE_DELAY.as_secs_f64() * 1000.0;
    assert!(
        after_edit + exit < quiet,
        "the app ended {:.0} ms after the edit: autosave could have copied it",
        after_edit + exit
    );
    let copy = wait_for_copy_that(&recovery, "holding the last edit", |p| {
        order_in(p, first) == Some(4343)
    });
    let sidecar = std::fs::read_to_string(copy.with_extension("meta.json")).expect("its sidecar");
    assert!(
        sidecar.contains("long.json"),
        "the copy names its book's file: {sidecar}"
    );
}
