//! Issue 39: SillyTavern's macros in the real app. A book whose keys and
//! bodies use variables and `{{if}}`; the settings panel adds a chat
//! variable and a global one and switches the macro engine, and the
//! preview follows each change. Nothing is written into the book.

use super::{assert_accessible, serial, tid, wait_until, Driver, TempDir, TIMEOUT};

const WORLD: &str = r#"{"entries": {
  "0": {"uid": 0, "key": ["{{getvar::target}}"], "keysecondary": [], "comment": "Target", "content": "Target lore.",
        "selective": true, "selectiveLogic": 0, "order": 100, "position": 0, "probability": 100, "useProbability": true},
  "1": {"uid": 1, "key": ["storm"], "keysecondary": [], "comment": "Storm",
        "content": "{{if $vip}}The lighthouse.{{else}}Calm seas.{{/if}}",
        "selective": true, "selectiveLogic": 0, "order": 100, "position": 0, "probability": 100, "useProbability": true},
  "2": {"uid": 2, "key": ["lighthouse"], "keysecondary": [], "comment": "Lighthouse", "content": "Keeper.",
        "selective": true, "selectiveLogic": 0, "order": 100, "position": 0, "probability": 100, "useProbability": true},
  "3": {"uid": 3, "key": ["calm seas"], "keysecondary": [], "comment": "Calm", "content": "Sailors.",
        "selective": true, "selectiveLogic": 0, "order": 100, "position": 0, "probability": 100, "useProbability": true}
}}"#;

#[test]
fn variables_and_the_macro_engine_change_the_preview() {
    let _serial = serial();
    let files = TempDir::new("stmacros");
    let book = files.path().join("Sea.json");
    std::fs::write(&book, WORLD).expect("write the world");
    let mut driver = Driver::start();
    let app = driver.launch(&[book.to_str().expect("utf-8 temp path")]);
    app.wait_ready();
    app.type_into(&tid("chat"), "User: A dragon in the storm.");
    let injected = |want: &'static [u64]| {
        wait_until(&format!("entries {want:?} injected"), TIMEOUT, || {
            let mut got = app.preview()?.injected;
            got.sort();
            if got == want {
                Ok(())
            } else {
                Err(format!("injected {got:?}"))
            }
        })
    };
    // No variables: the else branch, and by recursion the calm seas.
    injected(&[1, 3]);

    app.open_details(&tid("st-settings"));
    app.type_into(&tid("st-chat-vars-new-name"), "target");
    app.type_into(&tid("st-chat-vars-new-value"), "dragon");
    app.click(&tid("st-chat-vars-add"));
    injected(&[0, 1, 3]);
    app.wait_for(&tid("st-chat-vars-reset"));

    app.type_into(&tid("st-global-vars-new-name"), "vip");
    app.type_into(&tid("st-global-vars-new-value"), "true");
    app.click(&tid("st-global-vars-add"));
    injected(&[0, 1, 2]);
    // Why in: the branch the {{if}} took, on what value.
    wait_until("the macro decision shown", TIMEOUT, || {
        let texts: Vec<String> = app
            .find_all(&format!(
                "{}[data-id=\"1\"] {}",
                tid("injected-entry"),
                tid("st-macro-decision")
            ))?
            .iter()
            .map(|e| app.text(e).unwrap_or_default())
            .collect();
        if texts
            .iter()
            .any(|t| t == "macros: {{if $vip}} is \"true\": the first branch")
        {
            Ok(())
        } else {
            Err(format!("decisions {texts:?}"))
        }
    });
    assert_accessible(&app, "the SillyTavern settings with variables");

    // The legacy engine leaves {{if}} as written: both branches' words.
    app.click(&format!(
        "{} option[value=\"legacy\"]",
        tid("st-macro_engine")
    ));
    injected(&[0, 1, 2, 3]);

    // Back to the chat's own variables (it has none): the key is empty.
    app.click(&tid("st-chat-vars-reset"));
    injected(&[1, 2, 3]);
    app.snapshot("variables");
    let on_disk = std::fs::read_to_string(&book).expect("the book");
    assert_eq!(on_disk, WORLD, "the book is never written");
}
