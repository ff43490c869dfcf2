//! The native file's unit tests (`native.rs`).

use super::*;

fn round_trip(text: &str) -> Value {
    let (book, _) = load(text.as_bytes()).unwrap();
    serde_json::from_slice(&to_bytes(&book)).unwrap()
}

#[test]
fn unknown_fields_and_extensions_survive() {
    let src = r#"{"spec":"lorebook_v3","spec_note":"x","data":{"name":"B","entries":[
        {"id":3,"keys":["a"],"content":"c","insertion_order":5,"enabled":true,"use_regex":false,
         "name":"n","position":"before_char","extensions":{"depth":4,"match_whole_words":true,"role":2,"selectiveLogic":3}}],
        "custom":{"k":[1,2]}}}"#;
    let out = round_trip(src);
    assert_eq!(out["spec_note"], "x");
    assert_eq!(out["data"]["custom"], json!({"k":[1,2]}));
    let e = &out["data"]["entries"][0];
    assert_eq!(e["name"], "n");
    assert_eq!(e["position"], "before_char");
    assert_eq!(e["insertion_order"], 5);
    assert_eq!(e["extensions"]["depth"], 4);
    assert_eq!(e["extensions"]["match_whole_words"], true);
    assert_eq!(e["extensions"]["role"], 2);
    assert_eq!(e["extensions"]["selectiveLogic"], 3);
}

#[test]
fn st_extension_fields_become_model_fields() {
    let src = r#"{"spec":"lorebook_v3","data":{"entries":[
        {"id":1,"keys":[],"extensions":{"match_whole_words":true,"role":1,"selectiveLogic":2}},
        {"id":2,"keys":[]}]}}"#;
    let (book, _) = load(src.as_bytes()).unwrap();
    assert!(book.entries[0].whole_words);
    assert_eq!(book.entries[0].role, Role::User);
    assert_eq!(book.entries[0].secondary_logic, SecondaryLogic::NotAny);
    // SPEC §7: a file without match_whole_words means whole words off.
    assert!(!book.entries[1].whole_words);
    assert!(book.entries[1].extensions.is_empty());
}

#[test]
fn out_of_range_settings_are_clamped_with_a_note() {
    let src = r#"{"spec":"lorebook_v3","data":{"scan_depth":500,"token_budget":5,"entries":[]}}"#;
    let (book, notes) = load(src.as_bytes()).unwrap();
    assert_eq!((book.scan_depth, book.token_budget), (100, 100));
    assert_eq!(notes.len(), 2, "{notes:?}");
}

#[test]
fn missing_and_duplicate_ids_get_fresh_ones() {
    let src = r#"{"spec":"lorebook_v3","data":{"entries":[{"id":4},{"id":4},{},{"id":"zz"}]}}"#;
    let (book, notes) = load(src.as_bytes()).unwrap();
    let ids: Vec<u64> = book.entries.iter().map(|e| e.id).collect();
    assert_eq!(ids, vec![4, 5, 6, 7]);
    assert_eq!(notes.len(), 3);
    assert_eq!(book.entries[3].extra["original_id"], "zz");
}

#[test]
fn errors_name_the_place() {
    let check = |src: &str, expected: &str| {
        let err = load(src.as_bytes()).unwrap_err().to_string();
        assert!(
            err.contains(expected),
            "{err:?} should contain {expected:?}"
        );
    };
    check("{\n  \"spec\": ", "line 2");
    check(r#"{"spec":"chara_card_v2"}"#, "not a native lorebook");
    check(r#"[1]"#, "expected a JSON object");
    check(r#"{"spec":"lorebook_v3"}"#, "no \"data\"");
    check(
        r#"{"spec":"lorebook_v3","data":{"entries":[{"enabled":"yes"}]}}"#,
        "data.entries[0].enabled",
    );
    check(
        r#"{"spec":"lorebook_v3","data":{"entries":[{"keys":[{}]}]}}"#,
        "data.entries[0].keys[0]",
    );
    check(
        r#"{"spec":"lorebook_v3","data":{"scan_depth":-1}}"#,
        "must not be negative",
    );
}

#[test]
fn save_is_atomic_and_reloadable() {
    let dir = std::env::temp_dir().join(format!("lb-native-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("b.json");
    let mut book = Book {
        name: "Sol".into(),
        ..Book::default()
    };
    book.add_entry(Entry {
        keys: vec!["sun".into()],
        content: "@@keep\nThe sun.".into(),
        ..Entry::default()
    });
    save(&book, &path).unwrap();
    let (back, notes) = load(&std::fs::read(&path).unwrap()).unwrap();
    assert!(notes.is_empty());
    assert_eq!(back, book);
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temp file left behind");
    std::fs::remove_dir_all(&dir).unwrap();
}
