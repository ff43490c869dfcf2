//! Entry ids at the edges (issue 8): ids near `u64::MAX`, above 2^53,
//! negative, fractional, strings, and ids used twice, in every importer
//! that reads ids. The rule (docs/semantics.md, "Entry ids"): inside the
//! editor every id is a distinct whole number from 0 to `MAX_ID` (2^53 − 1,
//! what the webview's numbers hold exactly); an id outside that gets a
//! fresh one, the import report says so, and the export writes the
//! source's id back.

use std::collections::HashSet;

use lorebook_engine::formats::{self, native, ExportFormat};
use lorebook_engine::model::{Book, MAX_ID};
use serde_json::{json, Value};

fn assert_ids_usable(book: &Book) {
    let ids: HashSet<u64> = book.entries.iter().map(|e| e.id).collect();
    assert_eq!(ids.len(), book.entries.len(), "ids unique: {ids:?}");
    assert!(ids.iter().all(|&id| id <= MAX_ID), "{ids:?}");
}

fn report_text(r: &formats::Report) -> String {
    r.to_string()
}

/// The native file: every odd id spelling, ids used twice, and an unknown
/// nested field with an integer past 2^53.
const NATIVE: &str = r#"{"spec": "lorebook_v3", "data": {"name": "Edges", "entries": [
  {"id": 1152921504606846977, "keys": ["a"], "content": "2^60+1", "x": {"deep": {"n": 1152921504606846977}}},
  {"id": 9007199254740991, "keys": ["b"], "content": "max"},
  {"id": 9007199254740991, "keys": ["c"], "content": "max again"},
  {"id": 9007199254740992, "keys": ["d"], "content": "2^53"},
  {"id": 18446744073709551615, "keys": ["e"], "content": "u64 max"},
  {"id": -3, "keys": ["f"], "content": "negative"},
  {"id": 1.5, "keys": ["g"], "content": "fraction"},
  {"id": "abc", "keys": ["h"], "content": "text"},
  {"id": "12", "keys": ["i"], "content": "digits"},
  {"id": 12, "keys": ["j"], "content": "twelve again"},
  {"keys": ["k"], "content": "none"}
]}}"#;

#[test]
fn native_ids_stay_unique_and_usable_and_come_back_on_export() {
    let imported = formats::import(NATIVE.as_bytes()).unwrap();
    let book = &imported.book;
    assert_ids_usable(book);
    // Ids that are usable stay; MAX_ID's second use and every unusable one
    // take the smallest free ids (one past MAX_ID would not fit).
    let ids: Vec<u64> = book.entries.iter().map(|e| e.id).collect();
    assert_eq!(ids[1], MAX_ID);
    assert_eq!(ids[8], 12);
    assert_eq!(&ids[..1], &[0]);
    let report = report_text(&imported.report);
    for said in [
        "id 9007199254740991 is used twice",
        "id 1152921504606846977 is not a whole number from 0 to 2^53 − 1",
        "id 18446744073709551615 is not",
        "id -3 is not",
        "id 1.5 is not",
        "id \"abc\" is not",
        "id 12 is used twice",
        "no id",
    ] {
        assert!(report.contains(said), "{said:?} in\n{report}");
    }

    let out = String::from_utf8(native::to_bytes(book)).unwrap();
    for spelled in [
        "\"id\": 1152921504606846977",
        "\"n\": 1152921504606846977",
        "\"id\": 9007199254740992",
        "\"id\": 18446744073709551615",
        "\"id\": -3",
        "\"id\": 1.5",
        "\"id\": \"abc\"",
    ] {
        assert!(out.contains(spelled), "{spelled} in\n{out}");
    }
    assert!(!out.contains("original_id"), "{out}");

    // Reading the saved file again gives the same ids: stable across saves.
    let again = formats::import(&native::to_bytes(book)).unwrap().book;
    let again_ids: Vec<u64> = again.entries.iter().map(|e| e.id).collect();
    assert_eq!(again_ids, ids);
    assert_eq!(native::to_bytes(&again), native::to_bytes(book));
}

#[test]
fn a_copy_of_an_entry_never_writes_its_original_id_twice() {
    let mut book = formats::import(NATIVE.as_bytes()).unwrap().book;
    // A copy that kept the source id (as a careless caller might) is
    // written with its own id instead: ids in the file stay unique.
    let mut copy = book.entries[0].clone();
    copy.id = book.next_id();
    book.entries.push(copy.clone());
    let out: Value = serde_json::from_slice(&native::to_bytes(&book)).unwrap();
    let entries = out["data"]["entries"].as_array().unwrap();
    assert_eq!(entries[0]["id"], json!(1152921504606846977u64));
    let last = entries.last().unwrap();
    assert_eq!(last["id"], json!(copy.id));
    assert_eq!(last["original_id"], json!(1152921504606846977u64));
}

#[test]
fn next_ids_after_the_largest_id_fill_gaps_instead_of_wrapping() {
    let mut book = formats::import(NATIVE.as_bytes()).unwrap().book;
    let fresh = book.fresh_ids(3);
    assert!(fresh
        .iter()
        .all(|&id| id <= MAX_ID && book.entry(id).is_none()));
    let id = book.add_entry(Default::default());
    assert_eq!(id, fresh[0]);
    assert_ids_usable(&book);
}

#[test]
fn sillytavern_uids_at_the_edges_round_trip() {
    let src = json!({"entries": {
        "1152921504606846977": {"uid": 1152921504606846977u64, "key": ["a"], "content": "big"},
        "a": {"uid": -1, "key": ["b"], "content": "negative"},
        "b": {"uid": 2.5, "key": ["c"], "content": "fraction"},
        "c": {"uid": "x", "key": ["d"], "content": "text"},
        "d": {"uid": 5, "key": ["e"], "content": "five"},
        "e": {"uid": 5, "key": ["f"], "content": "five again"},
        "f": {"uid": 18446744073709551615u64, "key": ["g"], "content": "u64 max"},
        "9007199254740991": {"uid": 9007199254740991u64, "key": ["h"], "content": "max"}
    }});
    let imported = formats::import(src.to_string().as_bytes()).unwrap();
    assert_ids_usable(&imported.book);
    let report = report_text(&imported.report);
    for said in [
        "uid 1152921504606846977 is not a whole number",
        "uid -1 is not",
        "uid 2.5 is not",
        "uid \"x\" is not",
        "uid 5 is used twice",
    ] {
        assert!(report.contains(said), "{said:?} in\n{report}");
    }
    let (bytes, _) = formats::export(&imported.book, ExportFormat::SillyTavern).unwrap();
    let out: Value = serde_json::from_slice(&bytes).unwrap();
    let uids = |v: &Value| -> Vec<Value> {
        let mut u: Vec<Value> = v["entries"]
            .as_object()
            .unwrap()
            .values()
            .map(|e| e["uid"].clone())
            .collect();
        u.sort_by_key(|v| v.to_string());
        u
    };
    assert_eq!(uids(&out), uids(&src));
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.contains("\"uid\": 1152921504606846977"), "{text}");
}

#[test]
fn card_ids_at_the_edges_round_trip() {
    let card = json!({"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "C", "character_book": {"entries": [
        {"id": 1152921504606846977u64, "keys": ["a"], "content": "big", "enabled": true, "insertion_order": 1},
        {"id": "abc", "keys": ["b"], "content": "text", "enabled": true, "insertion_order": 1},
        {"id": 5, "keys": ["c"], "content": "five", "enabled": true, "insertion_order": 1},
        {"id": 5, "keys": ["d"], "content": "five again", "enabled": true, "insertion_order": 1},
        {"id": -7, "keys": ["e"], "content": "negative", "enabled": true, "insertion_order": 1}
    ]}}});
    let imported = formats::import(card.to_string().as_bytes()).unwrap();
    assert_ids_usable(&imported.book);
    let report = report_text(&imported.report);
    assert!(report.contains("id 5 is used twice"), "{report}");
    assert!(report.contains("id 1152921504606846977 is not"), "{report}");
    let (bytes, _) = formats::export(&imported.book, ExportFormat::CardV3).unwrap();
    let out: Value = serde_json::from_slice(&bytes).unwrap();
    let ids = |v: &Value| -> Vec<Value> {
        v["data"]["character_book"]["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].clone())
            .collect()
    };
    assert_eq!(ids(&out), ids(&card));
}

#[test]
fn formats_without_usable_ids_number_entries_and_keep_their_own() {
    // NovelAI keeps its own "id" (any value, a huge number included);
    // RisuAI and Agnai have no entry ids. Entries are numbered 0, 1, ….
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/formats/");
    let mut nai: Value = serde_json::from_slice(
        &std::fs::read(format!("{dir}novelai_all_fields.lorebook")).unwrap(),
    )
    .unwrap();
    nai["entries"][0]["id"] = json!(1152921504606846977u64);
    let imported = formats::import(nai.to_string().as_bytes()).unwrap();
    assert_ids_usable(&imported.book);
    let (bytes, _) = formats::export(&imported.book, ExportFormat::NovelAi).unwrap();
    let out: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(out["entries"][0]["id"], json!(1152921504606846977u64));
    for name in ["risu_all_fields.json", "agnai_all_fields.json"] {
        let bytes = std::fs::read(format!("{dir}{name}")).unwrap();
        let book = formats::import(&bytes).unwrap().book;
        let ids: Vec<u64> = book.entries.iter().map(|e| e.id).collect();
        assert_eq!(ids, (0..ids.len() as u64).collect::<Vec<_>>(), "{name}");
    }
}
