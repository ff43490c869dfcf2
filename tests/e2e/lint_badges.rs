//! Issue 44: opening the corpus ZZZ book (338 entries written as facets of
//! a few subjects, sharing keys and naming each other) badges only the
//! entries with a real problem: the two copies of one body and the entry
//! keyed on a single letter.

use super::{serial, tid, wait_until, Driver, TIMEOUT};

/// Scrolls the entry list from top to bottom and names every row that
/// wears a problem badge.
const BADGED_ROWS: &str = r#"
const done = arguments[arguments.length - 1];
const box = document.querySelector('[data-testid="entry-list"]');
const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
(async () => {
  const badged = new Map();
  box.scrollTop = 0;
  await frame();
  for (let n = 0; n < 2000; n++) {
    for (const row of box.querySelectorAll('[data-testid="entry-row"]')) {
      if (row.querySelector('[data-testid="diag-badge"]')) {
        badged.set(row.dataset.id, row.querySelector('.name').textContent.trim());
      }
    }
    if (box.scrollTop + box.clientHeight >= box.scrollHeight - 1) break;
    box.scrollTop += Math.max(20, box.clientHeight / 2);
    await frame();
  }
  done([...badged.values()]);
})();
"#;

#[test]
fn the_zzz_book_badges_only_entries_with_a_real_problem() {
    let Some(corpus) = lorebook_test_support::corpus_root() else {
        eprintln!("skipped: the shared corpus is not there");
        return;
    };
    let _serial = serial();
    let book = corpus.join("sillytavern/Complete_ZZZ_Lorebook.json");
    let mut driver = Driver::start();
    let app = driver.launch(&[book.to_str().expect("utf-8 corpus path")]);
    app.wait_ready();
    // Under SillyTavern's rules (the book's own), without a chat.
    wait_until("SillyTavern's rules, the book's own", TIMEOUT, || {
        let rules = app.value(&tid("rules"))?;
        if rules == "sillytavern" {
            Ok(())
        } else {
            Err(rules)
        }
    });
    wait_until("the checks done: three problems", TIMEOUT, || {
        let n = app.text(&app.find(&tid("problems-count"))?)?;
        if n == "3" {
            Ok(())
        } else {
            Err(format!("count {n}"))
        }
    });
    let names = app
        .run(app.client.execute_async(BADGED_ROWS, vec![]))
        .expect("read the rows");
    let mut names: Vec<String> = serde_json::from_value(names).expect("names");
    names.sort();
    assert_eq!(names, ["Mr. Z", "Story Timeline", "Story Timeline"]);
    if std::env::var_os("LOREBOOK_E2E_SCREENSHOT").is_some() {
        app.save_screenshot();
    }
    app.assert_no_errors();
}
