//! Files seen in the wild that bend a format's spec (issue 41): each is
//! read as its author meant, and the report says how.

use lorebook_engine::formats::{export, import, report::Note, ExportFormat, Format};
use serde_json::{json, Value};

/// `entries_as_array` (card.rs): a card whose `character_book.entries` is
/// an object keyed by position, as a common exporter writes it, imports
/// with its entries in key order (whole numbers ascending, the way
/// JavaScript orders them), says so, and exports as the spec's array with
/// every field kept.
#[test]
fn a_card_whose_book_entries_is_an_object_imports_in_key_order() {
    let entry = |id: u64, key: &str| {
        json!({"id": id, "keys": [key], "content": format!("About the {key}."), "enabled": true,
               "insertion_order": 100, "extensions": {"custom": key}})
    };
    let card = json!({"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Harbor", "description": "A town.",
        "character_book": {"name": "Harbor lore", "entries": {
            "10": entry(10, "lamp"), "2": entry(2, "fog"), "0": entry(0, "bell"),
        }}
    }});
    let imported = import(card.to_string().as_bytes()).expect("the card imports");
    assert_eq!(imported.format, Format::CardV2);
    let keys: Vec<&str> = imported
        .book
        .entries
        .iter()
        .map(|e| e.keys[0].as_str())
        .collect();
    assert_eq!(keys, ["bell", "fog", "lamp"], "JavaScript's key order");
    assert!(
        imported
            .report
            .book
            .approximated
            .iter()
            .any(|n| n.note == Note::EntriesObject { count: 3 }),
        "{:?}",
        imported.report.book
    );
    let (bytes, _) = export(&imported.book, ExportFormat::CardV2).expect("export");
    let out: Value = serde_json::from_slice(&bytes).unwrap();
    let entries = out["data"]["character_book"]["entries"]
        .as_array()
        .expect("the spec's array");
    assert_eq!(entries.len(), 3);
    assert_eq!(
        entries[2]["extensions"]["custom"], "lamp",
        "unknown fields kept"
    );
    assert_eq!(
        out["data"]["description"], "A town.",
        "the rest of the card kept"
    );
}
