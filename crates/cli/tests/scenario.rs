//! `lorebook scenario record`, `lorebook scenario list` and `lorebook test`:
//! recording what the preview shows, running the scenarios, their output and
//! exit status (0 all pass, 1 one fails, 2 usage or unreadable input).

mod common;

use common::{lorebook, root, tmp};
use serde_json::Value;

const CHAT: &str = "User: We reach the harbor at dusk.\nNarrator: The lighthouse turns.\n";

/// The bundled sample book, copied (the tests write scenarios into it).
fn sample(tag: &str) -> (String, String) {
    let book = tmp(&format!("scenario-{tag}.json"));
    std::fs::copy(root().join("samples/saltmere.json"), &book).unwrap();
    let chat = tmp(&format!("scenario-{tag}.txt"));
    std::fs::copy(root().join("samples/saltmere-chat.txt"), &chat).unwrap();
    (book.display().to_string(), chat.display().to_string())
}

fn ok(args: &[&str]) -> String {
    let out = lorebook(args);
    assert!(
        out.status.success(),
        "lorebook {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn recorded_scenarios_pass_under_every_rules_and_an_edit_fails_them() {
    let (book, chat) = sample("edit");
    for (name, rules) in [("guide", "studio"), ("st", "sillytavern"), ("risu", "risu")] {
        ok(&[
            "scenario", "record", &book, "--chat", &chat, "--name", name, "--rules", rules,
        ]);
    }
    let listed = ok(&["scenario", "list", &book]);
    assert!(listed.contains("guide (studio rules)"), "{listed}");
    assert!(listed.contains("risu (risu rules)"), "{listed}");
    let out = ok(&["test", &book]);
    assert!(
        out.contains(&format!("{book}: scenario guide: ok")),
        "{out}"
    );
    assert!(out.contains("3 of 3 scenario(s) passed"), "{out}");

    // The lighthouse loses its keys: the scenarios that expected it fail,
    // each failure on its own line with the rules' reason.
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&book).unwrap()).unwrap();
    let entries = v
        .pointer_mut("/data/entries")
        .unwrap()
        .as_array_mut()
        .unwrap();
    let light = entries
        .iter_mut()
        .find(|e| e["comment"] == "The Lighthouse")
        .unwrap();
    light["keys"] = serde_json::json!(["beacon"]);
    std::fs::write(&book, serde_json::to_vec(&v).unwrap()).unwrap();
    let out = lorebook(&["test", &book]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "{book}: scenario guide: 'The Lighthouse' is not injected in request 6: no match"
        )),
        "{text}"
    );
    let out = lorebook(&["test", &book, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["passed"], false);
    let guide = &v["scenarios"][0];
    assert_eq!(guide["name"], "guide");
    assert_eq!(guide["failures"][0]["code"], "not_injected");
    assert_eq!(guide["failures"][0]["request"], 6);
}

#[test]
fn a_book_in_another_format_is_written_elsewhere_and_usage_errors_exit_2() {
    let chat = tmp("scenario-st.txt");
    std::fs::write(&chat, CHAT).unwrap();
    let chat = chat.display().to_string();
    let st = tmp("scenario-world.json");
    std::fs::write(
        &st,
        r#"{"entries": {"0": {"uid": 0, "key": ["harbor"], "keysecondary": [], "comment": "Harbor",
            "content": "The harbor is old.", "constant": false, "selective": false, "order": 100,
            "position": 0, "disable": false}}}"#,
    )
    .unwrap();
    let st = st.display().to_string();
    let out = lorebook(&["scenario", "record", &st, "--chat", &chat, "--name", "a"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("with -o OUT"));
    let native = tmp("scenario-out.json").display().to_string();
    ok(&[
        "scenario", "record", &st, "--chat", &chat, "--name", "a", "-o", &native,
    ]);
    assert!(ok(&["test", &native]).contains("scenario a: ok"));
    // A book without scenarios passes; unreadable input exits with 2.
    assert!(ok(&["test", &st]).contains("no scenarios"));
    let out = lorebook(&["test", "no-such-book.json"]);
    assert_eq!(out.status.code(), Some(2));
    let out = lorebook(&["test"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_scenario_that_cannot_run_is_unreadable_input() {
    let (book, chat) = sample("bad");
    ok(&["scenario", "record", &book, "--chat", &chat, "--name", "x"]);
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&book).unwrap()).unwrap();
    v.pointer_mut("/data/extensions/lorebook_studio/scenarios/0")
        .unwrap()
        .as_object_mut()
        .unwrap()
        .insert(
            "settings".into(),
            serde_json::json!({"model": "no-such-model"}),
        );
    std::fs::write(&book, serde_json::to_vec(&v).unwrap()).unwrap();
    let out = lorebook(&["test", &book]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("scenario x:"), "{err}");
}
