//! `lorebook compare` and `lorebook replace` as processes: groups, exit
//! statuses, dry runs that write nothing, and a native book written back.

mod common;

use common::{lorebook, root, tmp};
use serde_json::Value;

fn sample(tag: &str) -> String {
    let book = tmp(&format!("i22-{tag}.json"));
    std::fs::copy(root().join("samples/saltmere.json"), &book).unwrap();
    book.display().to_string()
}

#[test]
fn compare_lists_the_three_groups_and_exits_1_on_a_difference() {
    let a = sample("cmp-a");
    let out = lorebook(&["compare", &a, &a]);
    assert_eq!(out.status.code(), Some(0));
    let b = sample("cmp-b");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&b).unwrap()).unwrap();
    let entries = v
        .pointer_mut("/data/entries")
        .unwrap()
        .as_array_mut()
        .unwrap();
    entries.remove(0);
    entries[0]["content"] = Value::String("Changed.".into());
    std::fs::write(&b, serde_json::to_vec(&v).unwrap()).unwrap();
    let out = lorebook(&["compare", &a, &b, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(c["only_a"][0]["name"], "World: Saltmere");
    assert_eq!(c["only_b"].as_array().unwrap().len(), 0);
    assert_eq!(c["different"][0]["fields"][0]["field"], "content");
    assert_eq!(c["different"][0]["fields"][0]["b"], "Changed.");
    let text = String::from_utf8(lorebook(&["compare", &a, &b]).stdout).unwrap();
    assert!(
        text.contains("content: \"The Saltmere lighthouse"),
        "{text}"
    );
    let out = lorebook(&["compare", &a, "no-such.json"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn replace_dry_run_writes_nothing_and_a_real_run_writes_the_book() {
    let book = sample("rep");
    let before = std::fs::read_to_string(&book).unwrap();
    let out = lorebook(&[
        "replace",
        &book,
        "--find",
        "lighthouse",
        "--with",
        "beacon",
        "--in",
        "content",
        "--dry-run",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("dry run: nothing written"), "{text}");
    assert!(
        text.contains("+ \"The Saltmere beacon has been dark"),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(&book).unwrap(), before);
    let out = lorebook(&[
        "replace",
        &book,
        "--find",
        r"(\w+) Venn",
        "--with",
        "$1 of the Venns",
        "--regex",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["written"], true);
    let after = std::fs::read_to_string(&book).unwrap();
    assert!(after.contains("Orla of the Venns"), "the book was written");
    // Nothing matches: exit 1; a bad regex or field: exit 2.
    let out = lorebook(&["replace", &book, "--find", "zeppelin", "--with", "x"]);
    assert_eq!(out.status.code(), Some(1));
    let out = lorebook(&["replace", &book, "--find", "(", "--with", "x", "--regex"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid pattern"));
    let out = lorebook(&[
        "replace", &book, "--find", "a", "--with", "x", "--in", "titles",
    ]);
    assert_eq!(out.status.code(), Some(2));
}
