//! Property tests for the round-trip rules, and fuzz-style tests proving
//! the importers return errors rather than panicking.

use lorebook_engine::formats::{
    detect, export, export_into_card, import, import_value, native, ExportFormat,
};
use lorebook_engine::model::{Book, Entry, Role, SecondaryLogic};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

mod common;

// --- Generators -------------------------------------------------------------------

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 ,.!?éü中\"{}]{0,16}"
}

fn key() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9 ]{0,6}[a-z]".prop_map(|s| s)
}

/// A content: optional `@@probability` / `@@scan_depth` lines, then a body.
fn content() -> impl Strategy<Value = String> {
    (
        proptest::option::of(0u8..100),
        proptest::option::of(0u32..=100),
        "[A-Za-z][a-zA-Z0-9 \n@.]{0,24}",
    )
        .prop_map(|(p, d, body)| {
            let mut c = String::new();
            if let Some(p) = p {
                c.push_str(&format!("@@probability {p}\n"));
            }
            if let Some(d) = d {
                c.push_str(&format!("@@scan_depth {d}\n"));
            }
            c + &body
        })
}

fn logic() -> impl Strategy<Value = SecondaryLogic> {
    prop_oneof![
        Just(SecondaryLogic::AndAny),
        Just(SecondaryLogic::AndAll),
        Just(SecondaryLogic::NotAny),
        Just(SecondaryLogic::NotAll),
    ]
}

fn role() -> impl Strategy<Value = Role> {
    prop_oneof![Just(Role::System), Just(Role::User), Just(Role::Assistant)]
}

/// An entry using every model field.
fn any_entry() -> impl Strategy<Value = Entry> {
    (
        (
            text(),
            proptest::collection::vec(key(), 0..4),
            proptest::collection::vec(key(), 0..3),
        ),
        (
            any::<bool>(),
            logic(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        ),
        (
            -1000i64..1000,
            -1000i64..1000,
            role(),
            content(),
            any::<bool>(),
        ),
    )
        .prop_map(
            |(
                (comment, keys, secondary_keys),
                (selective, secondary_logic, constant, enabled, whole_words, case_sensitive),
                (order, priority, role, content, use_regex),
            )| Entry {
                comment,
                keys,
                secondary_keys,
                selective,
                secondary_logic,
                constant,
                enabled,
                whole_words,
                case_sensitive,
                use_regex,
                order,
                priority,
                role,
                content,
                ..Entry::default()
            },
        )
}

fn any_book(entry: impl Strategy<Value = Entry>) -> impl Strategy<Value = Book> {
    (
        text(),
        text(),
        0u32..=100,
        100u32..=32000,
        any::<bool>(),
        proptest::collection::vec(entry, 0..5),
    )
        .prop_map(
            |(name, description, scan_depth, token_budget, recursive_scanning, entries)| Book {
                description,
                scan_depth,
                token_budget,
                recursive_scanning,
                ..book_of(name, entries)
            },
        )
}

/// A book named `name` holding `entries` (their ids given by the book).
fn book_of(name: String, entries: Vec<Entry>) -> Book {
    let mut book = Book {
        name,
        ..Book::default()
    };
    for e in entries {
        book.add_entry(e);
    }
    book
}

fn back(book: &Book, to: ExportFormat) -> Book {
    let (out, _) = export(book, to).unwrap();
    let imported = import(&out).unwrap_or_else(|e| panic!("{to}: {e}"));
    assert_eq!(imported.format, to.as_format());
    let (reloaded, _) = native::load(&native::to_bytes(&imported.book)).unwrap();
    reloaded
}

// --- native → X → native keeps every field X can hold --------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn card_v3_holds_everything(book in any_book(any_entry())) {
        let mut out = back(&book, ExportFormat::CardV3);
        // The card around the book is new (a minimal card): not part of the book.
        prop_assert!(out.wrapper_extra.remove("character_card").is_some());
        prop_assert_eq!(out, book.clone());
        prop_assert_eq!(back(&book, ExportFormat::CharacterBook).entries, book.entries);
    }

    #[test]
    fn card_v2_holds_everything_but_decorators_without_a_field(book in any_book(any_entry())) {
        let mut out = back(&book, ExportFormat::CardV2);
        out.wrapper_extra.clear();
        let mut book = book;
        book.wrapper_extra.clear();
        prop_assert_eq!(out, book);
    }

    #[test]
    fn sillytavern_holds_all_but_priority_and_regex(
        book in any_book(any_entry().prop_map(|mut e| { e.priority = e.order; e.use_regex = false; e }))
    ) {
        prop_assert_eq!(back(&book, ExportFormat::SillyTavern), book);
    }

    #[test]
    fn risu_holds_its_fields(
        entries in proptest::collection::vec(any_entry().prop_map(|mut e| {
            e.priority = e.order;
            e.use_regex = false;
            e.whole_words = false;
            e.secondary_logic = SecondaryLogic::AndAny;
            // RisuAI keeps @@scan_depth in the content and its own order.
            e.content = lorebook_engine::decorators::remove(&e.content, "scan_depth");
            e
        }), 0..5)
    ) {
        let book = book_of(String::new(), entries);
        prop_assert_eq!(back(&book, ExportFormat::Risu).entries, book.entries);
    }

    #[test]
    fn novelai_holds_its_fields(
        entries in proptest::collection::vec(any_entry().prop_map(|e| Entry {
            comment: e.comment,
            keys: e.keys,
            content: e.content,
            enabled: e.enabled,
            constant: e.constant,
            order: e.priority,
            priority: e.priority,
            whole_words: false,
            ..Entry::default()
        }), 0..5)
    ) {
        let book = book_of(String::new(), entries);
        prop_assert_eq!(back(&book, ExportFormat::NovelAi).entries, book.entries);
    }

    #[test]
    fn agnai_holds_its_fields(
        name in text(),
        entries in proptest::collection::vec(any_entry().prop_map(|e| Entry {
            comment: e.comment,
            keys: e.keys,
            content: e.content,
            enabled: e.enabled,
            order: e.order,
            priority: e.priority,
            whole_words: false,
            ..Entry::default()
        }), 0..5)
    ) {
        let book = book_of(name, entries);
        let out = back(&book, ExportFormat::Agnai);
        prop_assert_eq!(out.name, book.name);
        prop_assert_eq!(out.entries, book.entries);
    }
}

// --- X → native → X keeps every field of the original file ----------------------

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-5i64..200).prop_map(Value::from),
        // Quarter steps: decimal text that parses back to the same f64.
        (0u32..480).prop_map(|q| json!(q as f64 / 4.0)),
        "[a-z ,]{0,6}".prop_map(Value::from),
    ]
}

/// A SillyTavern entry with a random subset of real and unknown fields, and
/// random (sometimes odd) values.
fn st_entry() -> impl Strategy<Value = Map<String, Value>> {
    let fields = [
        "constant",
        "selective",
        "selectiveLogic",
        "order",
        "disable",
        "probability",
        "useProbability",
        "scanDepth",
        "caseSensitive",
        "matchWholeWords",
        "role",
        "position",
        "depth",
        "group",
        "sticky",
        "cooldown",
        "delay",
        "displayIndex",
        "addMemo",
        "somethingNew",
        "enabled",
        "vectorized",
        "groupWeight",
    ];
    (
        proptest::collection::vec(key(), 0..3),
        proptest::option::of(proptest::collection::vec(key(), 0..2)),
        proptest::option::of(text()),
        "[A-Za-z @\n]{0,20}",
        proptest::collection::vec((0..fields.len(), scalar()), 0..12),
    )
        .prop_map(move |(keys, secondary, comment, content, extra)| {
            let mut o = Map::new();
            o.insert("key".into(), json!(keys));
            if let Some(s) = secondary {
                o.insert("keysecondary".into(), json!(s));
            }
            if let Some(c) = comment {
                o.insert("comment".into(), json!(c));
            }
            o.insert("content".into(), json!(content));
            for (i, v) in extra {
                let v = match fields[i] {
                    // Booleans the importer requires to be booleans.
                    "constant" | "selective" | "disable" => json!(v.as_bool().unwrap_or(true)),
                    "order" => json!(v.as_i64().unwrap_or(3)),
                    _ => v,
                };
                o.insert(fields[i].into(), v);
            }
            o
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn sillytavern_documents_come_back_unchanged(
        entries in proptest::collection::vec(st_entry(), 0..5),
        with_uid in any::<bool>(),
        book_name in proptest::option::of(text()),
    ) {
        let mut map = Map::new();
        for (i, mut e) in entries.into_iter().enumerate() {
            if with_uid {
                e.insert("uid".into(), json!(i * 3));
            }
            map.insert((i * 3).to_string(), Value::Object(e));
        }
        let mut doc = Map::new();
        doc.insert("entries".into(), Value::Object(map));
        if let Some(n) = book_name {
            doc.insert("name".into(), json!(n));
        }
        let doc = Value::Object(doc);
        let bytes = serde_json::to_vec(&doc).unwrap();
        let book = import(&bytes).unwrap().book;
        let (book, _) = native::load(&native::to_bytes(&book)).unwrap();
        let (out, _) = export(&book, ExportFormat::SillyTavern).unwrap();
        prop_assert_eq!(serde_json::from_slice::<Value>(&out).unwrap(), doc);
    }

    #[test]
    fn risu_documents_come_back_unchanged(
        entries in proptest::collection::vec(
            (text(), text(), "[@A-Za-z \n]{0,20}", proptest::collection::vec(("[a-zA-Z]{1,8}", scalar()), 0..5)),
            0..4,
        )
    ) {
        let data: Vec<Value> = entries
            .into_iter()
            .map(|(key, comment, content, extra)| {
                let mut o = Map::new();
                o.insert("key".into(), json!(key));
                o.insert("comment".into(), json!(comment));
                o.insert("content".into(), json!(content));
                for (k, v) in extra {
                    let v = match k.as_str() {
                        "key" | "secondkey" | "comment" | "content" => json!(""),
                        "insertorder" => json!(v.as_i64().unwrap_or(1)),
                        _ => v,
                    };
                    o.insert(k, v);
                }
                Value::Object(o)
            })
            .collect();
        let doc = json!({"type": "risu", "ver": 1, "data": data});
        let book = import(&serde_json::to_vec(&doc).unwrap()).unwrap().book;
        let (out, _) = export(&book, ExportFormat::Risu).unwrap();
        prop_assert_eq!(serde_json::from_slice::<Value>(&out).unwrap(), doc);
    }
}

// --- Fuzz: errors, never panics ------------------------------------------------

fn any_json() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            proptest::collection::vec(
                (
                    prop_oneof![
                        Just("entries".to_string()),
                        Just("data".to_string()),
                        Just("spec".to_string()),
                        Just("key".to_string()),
                        Just("keys".to_string()),
                        Just("content".to_string()),
                        Just("extensions".to_string()),
                        Just("character_book".to_string()),
                        Just("contextConfig".to_string()),
                        Just("lorebook".to_string()),
                        "[a-zA-Z_]{1,10}",
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Wraps random JSON in each format's markers so it reaches deep into the
/// importers.
fn shaped_json() -> impl Strategy<Value = Value> {
    (0usize..10, any_json(), any_json()).prop_map(|(shape, a, b)| match shape {
        0 => json!({"entries": a}),
        1 => json!({"entries": {"0": a, "1": b}}),
        2 => json!({"spec": "chara_card_v2", "data": {"character_book": a}}),
        3 => json!({"spec": "chara_card_v3", "data": {"character_book": {"entries": [a, b]}}}),
        4 => json!({"spec": "lorebook_v3", "data": a}),
        5 => json!({"type": "risu", "ver": 1, "data": [a, b]}),
        6 => json!({"lorebookVersion": 6, "entries": [a, b]}),
        7 => json!({"storyContainerVersion": 1, "content": {"lorebook": {"entries": [a]}}}),
        8 => json!({"kind": "memory", "entries": [a, b]}),
        _ => json!({"entries": [a, b]}),
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = detect(&bytes);
        let _ = import(&bytes);
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend(&bytes);
        let _ = import(&png);
        let _ = export_into_card(&Book::default(), &png, ExportFormat::CardV3);
        let mut zip = b"PK\x03\x04".to_vec();
        zip.extend(&bytes);
        let _ = import(&zip);
    }

    #[test]
    fn arbitrary_json_never_panics(v in any_json()) {
        let _ = import(&serde_json::to_vec(&v).unwrap());
    }

    #[test]
    fn shaped_json_imports_or_errors_and_exports(v in shaped_json()) {
        if let Ok(imported) = import_value(v) {
            for to in ExportFormat::ALL {
                let (out, report) = export(&imported.book, to).unwrap();
                let _ = report.to_string();
                // Whatever we write, we read back.
                prop_assert!(import(&out).is_ok(), "{} output unreadable", to);
            }
        }
    }

    #[test]
    fn damaged_card_pngs_never_panic(cut in 0usize..400, flip in 0usize..400, byte in any::<u8>()) {
        let card = json!({"spec": "chara_card_v2", "data": {"name": "x", "character_book": {"entries": [{"keys": ["a"], "content": "b"}]}}});
        let png = png_with_card(&card);
        let mut damaged = png.clone();
        if let Some(b) = damaged.get_mut(flip) {
            *b = byte;
        }
        let damaged = &damaged[..cut.min(damaged.len())];
        let _ = import(damaged);
        let _ = export_into_card(&Book::default(), damaged, ExportFormat::CardV2);
        prop_assert!(import(&png).is_ok());
    }
}

fn png_with_card(card: &Value) -> Vec<u8> {
    common::png(&[common::card_chunk("chara", card)])
}

/// A number the fastest float parser rounds differently on a second read
/// (found by the round_trip fuzzer: a 71-digit SillyTavern `groupWeight`):
/// JSON numbers are parsed exactly, so the native file keeps it.
#[test]
fn a_long_number_survives_the_native_file() {
    let digits = format!("1{}00", "8".repeat(68));
    let text = format!(
        r#"{{"entries": {{"0": {{"uid": 0, "key": ["a"], "content": "A.", "groupWeight": {digits}}}}}}}"#
    );
    let book = lorebook_engine::formats::import(text.as_bytes())
        .unwrap()
        .book;
    let (back, _) =
        lorebook_engine::formats::native::load(&lorebook_engine::formats::native::to_bytes(&book))
            .unwrap();
    assert_eq!(back, book);
}

// --- The streamed reading of native files (issue 24) -----------------------------

/// `bytes` read by `import` (which streams a native file's entries) and by
/// the ordinary reading of the parsed document give the same book and
/// report, or both an error.
fn read_alike(bytes: &[u8]) -> Result<(), TestCaseError> {
    let streamed = import(bytes);
    let ordinary = serde_json::from_slice::<Value>(bytes)
        .map_err(|e| e.to_string())
        .and_then(|v| import_value(v).map_err(|e| e.to_string()));
    match (streamed, ordinary) {
        (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
        (Err(_), Err(_)) => {}
        (a, b) => prop_assert!(false, "streamed {:?}, ordinary {:?}", a.is_ok(), b.is_ok()),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A native file, with fields of its own at every level.
    #[test]
    fn a_native_file_streams_to_the_same_book(
        book in any_book(any_entry()),
        extra in any_json(),
        entry_extra in any_json(),
    ) {
        let mut doc: Value = serde_json::from_slice(&native::to_bytes(&book)).unwrap();
        doc["x_top"] = extra.clone();
        doc["data"]["x_data"] = extra;
        if let Some(Value::Object(first)) = doc["data"]["entries"].get_mut(0) {
            first.insert("x_entry".into(), entry_extra);
        }
        read_alike(&serde_json::to_vec(&doc).unwrap())?;
        read_alike(&serde_json::to_vec_pretty(&doc).unwrap())?;
    }

    /// Every format's shapes, parsed once by `import`: read alike.
    #[test]
    fn every_format_reads_alike_from_one_parse(v in shaped_json()) {
        read_alike(&serde_json::to_vec(&v).unwrap())?;
    }

    /// Random JSON as a native file's data or entries: read alike, whether
    /// a book or an error.
    #[test]
    fn random_native_shapes_read_alike(a in any_json(), b in any_json()) {
        for doc in [
            json!({"spec": "lorebook_v3", "data": a}),
            json!({"spec": "lorebook_v3", "data": {"name": "n", "entries": [a, b]}}),
            json!({"spec": "lorebook_v3", "data": {"entries": a}, "kind": b}),
        ] {
            read_alike(&serde_json::to_vec(&doc).unwrap())?;
        }
    }
}

/// Duplicate fields keep the later value as the ordinary reading does, a
/// second `spec` decides nothing on its own, and errors stay errors.
#[test]
fn edge_cases_of_a_native_file_read_alike() {
    for text in [
        r#"{"spec":"lorebook_v3","data":{"entries":[{"id":1,"content":"a"}],"entries":[{"id":2,"content":"b"}]}}"#,
        r#"{"spec":"lorebook_v3","data":{"entries":[{"id":1}]},"data":{"name":"later"}}"#,
        r#"{"spec":"lorebook_v3","spec":"chara_card_v2","data":{"entries":[]}}"#,
        r#"{"spec":"chara_card_v2","spec":"lorebook_v3","data":{"entries":[{"id":3}]}}"#,
        r#"{"spec":"lorebook_v3","data":{"entries":[1,2]}}"#,
        r#"{"spec":"lorebook_v3","data":{"entries":[{"id":"x","keys":"not a list"}]}}"#,
        r#"{"spec":"lorebook_v3","data":{"entries":null}}"#,
        r#"{"spec":"lorebook_v3","data":{"entries":[{"id":1}]}} trailing"#,
        r#"{"data":{"entries":[{"id":1}]},"spec":"lorebook_v3"}"#,
        r#"{"spec":"lorebook_v3","data":{"entries":[{"id":1},{"id":1},{}]}}"#,
        "\u{feff}{\"spec\":\"lorebook_v3\",\"data\":{\"entries\":[{\"id\":4}]}}",
    ] {
        let bytes = text.as_bytes();
        let streamed = import(bytes);
        let ordinary = lorebook_engine::formats::json::parse_json(bytes)
            .map_err(|e| e.to_string())
            .and_then(|v| import_value(v).map_err(|e| e.to_string()));
        match (&streamed, &ordinary) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
            (Err(_), Err(_)) => {}
            _ => panic!("{text}: streamed {streamed:?}, ordinary {ordinary:?}"),
        }
    }
}
