//! Hand-made fixtures, one per format, covering every field: mapping,
//! round trips, edits flowing through, reports and error messages.

use std::path::PathBuf;

use lorebook_engine::decorators;
use lorebook_engine::formats::{
    detect, export, export_into_card, import, native, ExportError, ExportFormat, Format,
    ImportError,
};
use lorebook_engine::model::{Book, Entry, Role, SecondaryLogic};
use serde_json::{json, Value};

mod common;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/formats")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("exported JSON parses")
}

fn through_native(book: &Book) -> Book {
    let (back, _) = native::load(&native::to_bytes(book)).unwrap();
    assert_eq!(&back, book);
    back
}

/// X → native → X gives the fixture back, value for value.
fn round_trip(name: &str, format: Format, to: ExportFormat) -> Book {
    let bytes = fixture(name);
    let imported = import(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(imported.format, format);
    assert_eq!(detect(&bytes).unwrap(), format);
    let (out, _) = export(&through_native(&imported.book), to).unwrap();
    assert_eq!(json(&out), json(&bytes), "{name} round trip");
    imported.book
}

fn entry(book: &Book, id: u64) -> &Entry {
    book.entry(id).unwrap_or_else(|| panic!("no entry {id}"))
}

// --- SillyTavern ------------------------------------------------------------

#[test]
fn sillytavern_fixture_maps_every_field() {
    let book = round_trip(
        "sillytavern_all_fields.json",
        Format::SillyTavern,
        ExportFormat::SillyTavern,
    );
    assert_eq!(book.name, "Fixture World");
    assert_eq!(book.description, "Every SillyTavern field");
    assert_eq!(
        book.extensions["sillytavern"]["originalData"]["name"],
        "from a card"
    );

    let sun = entry(&book, 7);
    assert_eq!(sun.keys, ["sun", "/sol(ar)?/i"]);
    assert_eq!(sun.secondary_keys, ["hot"]);
    assert_eq!(sun.comment, "The Sun");
    assert!(sun.selective);
    assert_eq!(sun.secondary_logic, SecondaryLogic::AndAll);
    assert_eq!(
        (sun.order, sun.priority),
        (250, 250),
        "ST order is order and priority"
    );
    assert!(!sun.enabled, "disable → !enabled");
    assert!(sun.case_sensitive);
    assert!(!sun.whole_words);
    assert_eq!(sun.role, Role::Assistant);
    let d = decorators::parse(&sun.content);
    assert_eq!(d.decorators.probability, Some(35));
    assert_eq!(d.decorators.scan_depth, Some(12));
    assert_eq!(d.body, "The sun is hot.");
    // SillyTavern-only fields, under the names ST uses in character books.
    for (k, v) in [
        ("position", json!(4)),
        ("depth", json!(2)),
        ("group", json!("sky")),
        ("group_override", json!(true)),
        ("group_weight", json!(50)),
        ("sticky", json!(3)),
        ("cooldown", json!(4)),
        ("delay", json!(5)),
        ("exclude_recursion", json!(true)),
        ("prevent_recursion", json!(true)),
        ("delay_until_recursion", json!(2)),
        ("outlet_name", json!("weather")),
        ("use_group_scoring", json!(true)),
        ("automation_id", json!("auto-1")),
        ("ignore_budget", json!(true)),
        ("display_index", json!(1)),
        ("triggers", json!(["normal", "swipe"])),
        ("match_persona_description", json!(true)),
    ] {
        assert_eq!(sun.extensions[k], v, "extensions.{k}");
    }
    assert_eq!(sun.extensions["sillytavern"]["addMemo"], true);
    assert_eq!(sun.extensions["sillytavern"]["futureField"]["nested"][1], 2);
    assert_eq!(
        sun.extensions["sillytavern"]["characterFilter"]["names"][0],
        "Bob"
    );

    let moon = entry(&book, 8);
    assert!(moon.constant);
    assert_eq!(moon.secondary_logic, SecondaryLogic::NotAll);
    assert!(moon.whole_words, "null matchWholeWords → ST default (on)");
    assert!(!moon.case_sensitive);
    assert_eq!(moon.role, Role::System);
    assert_eq!(
        decorators::parse(&moon.content).decorators.probability,
        None,
        "useProbability false → no roll"
    );
    assert_eq!(
        moon.content, "@@activate\nThe moon.",
        "ST's own decorators stay"
    );
}

#[test]
fn sillytavern_edits_reach_the_export() {
    let mut book = import(&fixture("sillytavern_all_fields.json"))
        .unwrap()
        .book;
    let sun = book.entries.iter_mut().find(|e| e.id == 7).unwrap();
    sun.content = decorators::set(&sun.content, "probability", Some("90"));
    sun.content = decorators::remove(&sun.content, "scan_depth");
    sun.whole_words = true;
    sun.enabled = true;
    let moon = book.entries.iter_mut().find(|e| e.id == 8).unwrap();
    moon.whole_words = false;
    moon.comment = "Moon".into();
    let (out, _) = export(&book, ExportFormat::SillyTavern).unwrap();
    let v = json(&out);
    let s = &v["entries"]["7"];
    assert_eq!(
        (s["probability"].clone(), s["useProbability"].clone()),
        (json!(90), json!(true))
    );
    assert_eq!(s["scanDepth"], Value::Null);
    assert_eq!(s["matchWholeWords"], true);
    assert_eq!(s["disable"], false);
    assert_eq!(s["content"], "The sun is hot.", "decorator lines removed");
    let m = &v["entries"]["8"];
    assert_eq!(m["matchWholeWords"], false);
    assert_eq!(m["comment"], "Moon");
    assert_eq!(m["useProbability"], false, "untouched source value kept");
}

#[test]
fn native_decorators_are_written_the_sillytavern_way() {
    let mut book = Book::default();
    book.add_entry(Entry {
        keys: vec!["a".into(), "b/c".into()],
        content: "@@probability 30\n@@order 7\n@@role user\n@@keep\n@@scan_depth 2\nBody".into(),
        priority: 5,
        use_regex: true,
        ..Entry::default()
    });
    let (out, report) = export(&book, ExportFormat::SillyTavern).unwrap();
    let e = &json(&out)["entries"]["0"];
    assert_eq!(e["probability"], 30);
    assert_eq!(e["useProbability"], true);
    assert_eq!(e["order"], 7);
    assert_eq!(e["role"], 1);
    assert_eq!(e["scanDepth"], 2);
    assert_eq!(
        e["content"], "@@keep\nBody",
        "@@keep has no ST place: left and reported"
    );
    assert_eq!(e["key"], json!(["/a/i", "/b\\/c/i"]));
    assert_eq!(e["position"], 0, "ST needs a position to inject the entry");
    let notes: Vec<String> = report.entry_notes().map(|(_, n)| n.field.clone()).collect();
    for f in ["@@keep", "@@order", "@@role", "use_regex", "priority"] {
        assert!(notes.iter().any(|n| n == f), "{f} reported: {notes:?}");
    }
}

// --- Cards --------------------------------------------------------------------

#[test]
fn card_v2_fixture_maps_every_field() {
    let book = round_trip(
        "card_v2_all_fields.json",
        Format::CardV2,
        ExportFormat::CardV2,
    );
    assert_eq!(book.name, "Lighthouse lore");
    assert_eq!(
        (book.scan_depth, book.token_budget, book.recursive_scanning),
        (6, 1200, true)
    );
    assert_eq!(book.extensions["book_ext"], 1);
    assert_eq!(
        book.wrapper_extra["character_card"]["data"]["first_mes"],
        "Hello."
    );
    let e = entry(&book, 3);
    assert_eq!(e.keys, ["lighthouse", "beacon"]);
    assert_eq!((e.order, e.priority), (20, 7));
    assert!(e.case_sensitive && e.whole_words && e.selective);
    assert_eq!(e.role, Role::User);
    assert_eq!(e.secondary_logic, SecondaryLogic::NotAny);
    let d = decorators::parse(&e.content);
    assert_eq!(d.decorators.probability, Some(60));
    assert_eq!(d.decorators.scan_depth, Some(9));
    assert_eq!(d.body, "The lighthouse is dark.");
    assert_eq!(e.extra["name"], "lighthouse entry");
    assert_eq!(e.extensions["group"], "coast");
    assert!(!entry(&book, 4).enabled);
}

#[test]
fn card_v3_fixture_keeps_decorators_and_renames_keep() {
    let book = round_trip(
        "card_v3_all_fields.json",
        Format::CardV3,
        ExportFormat::CardV3,
    );
    let e = entry(&book, 0);
    assert!(e.use_regex, "not a SillyTavern entry: use_regex is meant");
    let d = decorators::parse(&e.content);
    assert!(
        d.decorators.keep,
        "@@keep_activate_after_match is our @@keep"
    );
    assert_eq!(d.decorators.scan_depth, Some(3));
    assert!(e.content.starts_with("@@keep\n"));
    // Exporting a native book writes v3's name.
    let mut fresh = Book::default();
    fresh.add_entry(Entry {
        content: "@@keep\nx".into(),
        ..Entry::default()
    });
    let (out, _) = export(&fresh, ExportFormat::CardV3).unwrap();
    let v = json(&out);
    assert_eq!(v["spec"], "chara_card_v3");
    assert_eq!(
        v["data"]["character_book"]["entries"][0]["content"],
        "@@keep_activate_after_match\nx"
    );
}

#[test]
fn card_v2_export_moves_decorators_to_fields() {
    let mut book = Book::default();
    book.add_entry(Entry {
        content: "@@probability 20\n@@scan_depth 5\n@@order 9\n@@priority 8\n@@role assistant\n@@is_greeting\nBody".into(),
        ..Entry::default()
    });
    let (out, report) = export(&book, ExportFormat::CardV2).unwrap();
    let v = json(&out);
    assert_eq!(v["spec"], "chara_card_v2");
    let e = &v["data"]["character_book"]["entries"][0];
    assert_eq!(e["content"], "@@is_greeting\nBody");
    assert_eq!(e["insertion_order"], 9);
    assert_eq!(e["priority"], 8);
    assert_eq!(e["extensions"]["probability"], 20);
    assert_eq!(e["extensions"]["useProbability"], true);
    assert_eq!(e["extensions"]["scan_depth"], 5);
    assert_eq!(e["extensions"]["role"], 2);
    assert!(report
        .entry_notes()
        .any(|(_, n)| n.field == "@@is_greeting"));
    // And back: the v2 extension fields become decorators again.
    let again = import(&out).unwrap().book;
    let d = decorators::parse(&again.entries[0].content).decorators;
    assert_eq!(
        (d.probability, d.scan_depth, d.is_greeting),
        (Some(20), Some(5), true)
    );
}

#[test]
fn native_fixture_imports_as_native() {
    let bytes = fixture("lorebook_v3_all_fields.json");
    let imported = import(&bytes).unwrap();
    assert_eq!(imported.format, Format::Native);
    let (out, _) = export(&imported.book, ExportFormat::Native).unwrap();
    assert_eq!(json(&out), json(&native::to_bytes(&imported.book)));
    let e = &imported.book.entries[0];
    assert_eq!((e.order, e.priority, e.role), (50, 60, Role::User));
}

/// A 1×1 PNG with an `IDAT` and the given tEXt chunks (base64 of the
/// JSON) before IEND.
fn png_with(chunks: &[(&str, &Value)]) -> Vec<u8> {
    let mut all = vec![(b"IDAT" as &[u8], vec![0x78, 0x9c, 0x63, 0, 0, 0, 1, 0, 1])];
    all.extend(chunks.iter().map(|(k, v)| common::card_chunk(k, v)));
    common::png(&all)
}

/// The decoded card JSON of every tEXt chunk, by keyword.
fn png_cards(png: &[u8]) -> Vec<(String, Value)> {
    use base64::Engine;
    let mut out = Vec::new();
    let mut at = 8;
    while at + 8 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        let kind = &png[at + 4..at + 8];
        let data = &png[at + 8..at + 8 + len];
        let crc = &png[at + 8 + len..at + 12 + len];
        assert_eq!(
            crc,
            crc32fast::hash(&png[at + 4..at + 8 + len]).to_be_bytes(),
            "CRC"
        );
        if kind == b"tEXt" {
            let nul = data.iter().position(|b| *b == 0).unwrap();
            let text = base64::engine::general_purpose::STANDARD
                .decode(&data[nul + 1..])
                .unwrap();
            out.push((
                String::from_utf8(data[..nul].to_vec()).unwrap(),
                serde_json::from_slice(&text).unwrap(),
            ));
        }
        at += 12 + len;
    }
    out
}

#[test]
fn png_card_import_prefers_ccv3_and_export_writes_both_chunks() {
    let v2 = json(&fixture("card_v2_all_fields.json"));
    let v3 = json(&fixture("card_v3_all_fields.json"));
    let png = png_with(&[("chara", &v2), ("ccv3", &v3)]);
    let imported = import(&png).unwrap();
    assert_eq!(imported.format, Format::PngCard);
    assert_eq!(imported.book.name, "Tide lore", "ccv3 preferred");
    assert!(imported
        .report
        .notes
        .iter()
        .any(|n| n.to_string().contains("ccv3")));

    let mut book = through_native(&imported.book);
    book.entries[0].comment = "Tide (edited)".into();
    let (out, _) = export_into_card(&book, &png, ExportFormat::CardV3).unwrap();
    let cards = png_cards(&out);
    assert_eq!(cards.len(), 2);
    for (kw, card) in &cards {
        let b = &card["data"]["character_book"];
        assert_eq!(b["entries"][0]["comment"], "Tide (edited)", "{kw}");
    }
    assert_eq!(
        cards[0].1["spec"], "chara_card_v2",
        "chara keeps its version"
    );
    assert_eq!(
        cards[0].1["data"]["first_mes"], "Hello.",
        "the chara card's own fields are kept"
    );
    assert_eq!(cards[1].1["data"]["assets"], v3["data"]["assets"]);
    // Every non-card chunk is byte for byte the same.
    assert_eq!(&out[..8], &png[..8]);
    assert!(out.windows(22).any(|w| w == &png[8..30]), "IHDR kept");
}

#[test]
fn png_export_adds_the_missing_chunk() {
    let v2 = json(&fixture("card_v2_all_fields.json"));
    let png = png_with(&[("chara", &v2)]);
    let book = import(&png).unwrap().book;
    let (same, _) = export_into_card(&book, &png, ExportFormat::CardV2).unwrap();
    assert_eq!(
        png_cards(&same),
        vec![("chara".to_string(), v2.clone())],
        "v2 round trip"
    );
    let (both, report) = export_into_card(&book, &png, ExportFormat::CardV3).unwrap();
    let cards = png_cards(&both);
    assert_eq!(cards.len(), 2);
    assert_eq!(cards[1].0, "ccv3");
    assert_eq!(cards[1].1["spec"], "chara_card_v3");
    assert!(report
        .notes
        .iter()
        .any(|n| n.to_string().contains("no \"ccv3\" chunk")));
}

#[test]
fn png_with_v3_card_in_chara_chunk() {
    // The oddity SOURCES.md mentions: a v3 card in the `chara` chunk.
    let v3 = json(&fixture("card_v3_all_fields.json"));
    let png = png_with(&[("chara", &v3)]);
    let imported = import(&png).unwrap();
    assert_eq!(imported.book.name, "Tide lore");
    let (out, _) = export_into_card(&imported.book, &png, ExportFormat::CardV2).unwrap();
    let cards = png_cards(&out);
    assert_eq!(
        cards,
        vec![("chara".to_string(), v3)],
        "kept as the v3 card it was"
    );
}

#[test]
fn png_errors_are_distinct() {
    let plain = png_with(&[]);
    assert_eq!(import(&plain).unwrap_err(), ImportError::PngWithoutCard);
    assert_eq!(detect(&plain).unwrap_err(), ImportError::PngWithoutCard);
    let no_book = png_with(&[(
        "chara",
        &json!({"spec": "chara_card_v2", "data": {"name": "x"}}),
    )]);
    assert!(matches!(
        import(&no_book).unwrap_err(),
        ImportError::CardWithoutBook { .. }
    ));
    let truncated = &fixture_png()[..40];
    assert!(matches!(
        import(truncated).unwrap_err(),
        ImportError::BadPng(_)
    ));
    assert_eq!(
        export_into_card(&Book::default(), &plain, ExportFormat::CardV2).unwrap_err(),
        ExportError::PngWithoutCard
    );
    assert_eq!(
        export_into_card(&Book::default(), &plain, ExportFormat::Risu).unwrap_err(),
        ExportError::NotACardFormat(ExportFormat::Risu)
    );
    assert!(matches!(
        export_into_card(&Book::default(), b"not a png", ExportFormat::CardV3).unwrap_err(),
        ExportError::BadPng(_)
    ));
}

fn fixture_png() -> Vec<u8> {
    png_with(&[("ccv3", &json(&fixture("card_v3_all_fields.json")))])
}

/// A ZIP archive of the given files (method 0 = stored, 8 = deflate).
fn zip_with(files: &[(&str, &[u8], u16)]) -> Vec<u8> {
    use std::io::Write;
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data, method) in files {
        let stored: Vec<u8> = if *method == 8 {
            let mut enc =
                flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
            enc.write_all(data).unwrap();
            enc.finish().unwrap()
        } else {
            data.to_vec()
        };
        let crc = crc32fast::hash(data);
        let offset = out.len() as u32;
        let header = |sig: u32, central: bool| {
            let mut h = sig.to_le_bytes().to_vec();
            if central {
                h.extend(20u16.to_le_bytes());
            }
            h.extend(20u16.to_le_bytes());
            h.extend(0u16.to_le_bytes());
            h.extend(method.to_le_bytes());
            h.extend([0u8; 4]);
            h.extend(crc.to_le_bytes());
            h.extend((stored.len() as u32).to_le_bytes());
            h.extend((data.len() as u32).to_le_bytes());
            h.extend((name.len() as u16).to_le_bytes());
            h.extend(0u16.to_le_bytes());
            if central {
                h.extend([0u8; 10]);
                h.extend(offset.to_le_bytes());
            }
            h.extend(name.as_bytes());
            h
        };
        out.extend(header(0x0403_4b50, false));
        out.extend(&stored);
        central.extend(header(0x0201_4b50, true));
    }
    let cd_offset = out.len() as u32;
    out.extend(&central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0u8; 4]);
    out.extend((files.len() as u16).to_le_bytes());
    out.extend((files.len() as u16).to_le_bytes());
    out.extend((central.len() as u32).to_le_bytes());
    out.extend(cd_offset.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}

#[test]
fn charx_reads_card_json() {
    let card = fixture("card_v3_all_fields.json");
    for method in [0, 8] {
        let zip = zip_with(&[
            ("assets/icon.png", b"\x89PNG", 0),
            ("card.json", &card, method),
        ]);
        assert_eq!(detect(&zip).unwrap(), Format::Charx);
        let imported = import(&zip).unwrap();
        assert_eq!(imported.format, Format::Charx);
        assert_eq!(imported.book.name, "Tide lore");
        let (out, _) = export(&imported.book, ExportFormat::CardV3).unwrap();
        assert_eq!(
            json(&out),
            json(&card),
            "CHARX card → ccv3 JSON keeps the card"
        );
    }
    let empty = zip_with(&[("other.txt", b"x", 0)]);
    let err = import(&empty).unwrap_err();
    assert!(matches!(err, ImportError::BadCharx(_)));
    assert!(err.to_string().contains("no card.json"), "{err}");
    let bad = zip_with(&[("card.json", b"{\"spec\":", 0)]);
    assert!(import(&bad).unwrap_err().to_string().contains("line 1"));
    assert!(matches!(
        import(b"PK\x03\x04garbage").unwrap_err(),
        ImportError::BadCharx(_)
    ));
}

// --- RisuAI ----------------------------------------------------------------------

#[test]
fn risu_fixture_maps_every_field() {
    let book = round_trip("risu_all_fields.json", Format::Risu, ExportFormat::Risu);
    assert_eq!(book.extensions["risu"]["exportedBy"], "fixture");
    assert!(
        book.recursive_scanning,
        "RisuAI scans recursively by default"
    );
    let castle = entry(&book, 0);
    assert_eq!(castle.keys, ["castle", "keep"]);
    assert_eq!(castle.secondary_keys, ["night"]);
    assert_eq!(castle.comment, "Castle");
    assert_eq!((castle.order, castle.priority), (300, 300));
    assert!(castle.selective && castle.case_sensitive && !castle.constant && !castle.whole_words);
    assert_eq!(castle.role, Role::Assistant, "@@role becomes the role");
    let d = decorators::parse(&castle.content);
    assert!(d.decorators.keep);
    assert_eq!(
        d.decorators.probability, None,
        "RisuAI never reads activationPercent"
    );
    assert_eq!(castle.extensions["risu"]["activationPercent"], 25);
    assert_eq!(castle.content, "@@keep\n@@depth 0\nThe castle.");
    assert_eq!(castle.extensions["risu"]["extentions"]["risu_other"], 1);
    let dragons = entry(&book, 1);
    // loadLoreBookV3Prompt: only alwaysActive makes an entry constant; the
    // old `mode: "constant"` stays a RisuAI field.
    assert!(dragons.use_regex && !dragons.constant && !dragons.enabled);
    assert_eq!(dragons.extensions["risu"]["mode"], "constant");
    assert_eq!(dragons.keys, ["/drag(on|ons)/i"]);
    assert_eq!(dragons.content, "Dragons.");
    assert!(!entry(&book, 2).enabled, "folders never fire");
}

#[test]
fn risu_export_of_a_native_book() {
    let mut book = Book {
        name: "N".into(),
        ..Book::default()
    };
    book.add_entry(Entry {
        keys: vec!["a".into(), "b".into()],
        secondary_keys: vec!["x".into(), "y".into()],
        content: "@@keep\n@@priority 3\nx".into(),
        role: Role::User,
        enabled: false,
        secondary_logic: SecondaryLogic::NotAny,
        selective: true,
        ..Entry::default()
    });
    let (out, report) = export(&book, ExportFormat::Risu).unwrap();
    let e = &json(&out)["data"][0];
    assert_eq!(e["key"], "a, b");
    // Every field RisuAI has no field for is one of its decorators; the
    // secondary logic as RisuAI's own card import writes it.
    assert_eq!(
        e["content"],
        "@@role user\n@@dont_activate\n@@match_full_word\n@@exclude_keys y\n@@exclude_keys x\n@@keep_activate_after_match\n@@priority 3\nx"
    );
    assert_eq!(e["selective"], false);
    assert!(e.get("activationPercent").is_none());
    let back = import(&out).unwrap().book;
    let b = &back.entries[0];
    assert_eq!(
        (b.role, b.enabled, b.whole_words),
        (Role::User, false, true)
    );
    assert_eq!(
        b.content,
        "@@exclude_keys y\n@@exclude_keys x\n@@keep\n@@priority 3\nx"
    );
    let lost: Vec<&str> = report
        .entry_notes()
        .map(|(_, n)| n.field.as_str())
        .collect();
    for f in ["secondary_logic", "whole_words", "@@priority"] {
        assert!(!lost.contains(&f), "{f} in {lost:?}");
    }
    assert!(report.book.not_carried.iter().any(|n| n.field == "name"));
}

#[test]
fn bare_character_book_fixture_round_trips() {
    let book = round_trip(
        "character_book_all_fields.json",
        Format::CharacterBook,
        ExportFormat::CharacterBook,
    );
    assert_eq!(book.name, "Saltmere tides");
    assert_eq!((book.scan_depth, book.token_budget), (4, 900));
    let e = entry(&book, 10);
    assert_eq!(e.keys, ["tide", "/ebb(s|ing)?/i"]);
    assert!(e.use_regex && e.selective && !e.whole_words);
    assert_eq!((e.order, e.priority), (40, 3));
    assert_eq!(decorators::parse(&e.content).decorators.scan_depth, Some(2));
    assert!(entry(&book, 11).constant);
}

// --- NovelAI --------------------------------------------------------------------

#[test]
fn novelai_fixture_maps_every_field() {
    let book = round_trip(
        "novelai_all_fields.lorebook",
        Format::NovelAi,
        ExportFormat::NovelAi,
    );
    let e = entry(&book, 0);
    assert_eq!(e.comment, "Harbor");
    assert_eq!(e.content, "The harbor smells of salt.");
    assert_eq!(e.keys, ["harbor", "/docks?/i"]);
    assert!(!e.enabled && e.constant && !e.whole_words);
    assert_eq!((e.priority, e.order), (650, 650));
    let ns = &e.extensions["novelai"];
    assert_eq!(ns["searchRange"], 2000);
    assert_eq!(ns["id"], "00000000-0000-4000-8000-000000000001");
    assert_eq!(ns["contextConfig"]["insertionPosition"], -2);
    assert_eq!(
        book.extensions["novelai"]["categories"][0]["name"],
        "Places"
    );
    assert_eq!(book.extensions["novelai"]["lorebookVersion"], 5);
}

#[test]
fn novelai_story_fixture_keeps_its_container() {
    let book = round_trip(
        "novelai_story.story",
        Format::NovelAi,
        ExportFormat::NovelAi,
    );
    assert_eq!(entry(&book, 0).comment, "Ferry");
    assert!(book.wrapper_extra.contains_key("novelai_story"));
}

#[test]
fn novelai_export_of_a_native_book_reports_what_is_lost() {
    let mut book = Book::default();
    book.add_entry(Entry {
        keys: vec!["k".into()],
        secondary_keys: vec!["s".into()],
        selective: true,
        content: "@@probability 5\nText".into(),
        priority: 500,
        ..Entry::default()
    });
    let (out, report) = export(&book, ExportFormat::NovelAi).unwrap();
    let v = json(&out);
    assert_eq!(v["lorebookVersion"], 6);
    let e = &v["entries"][0];
    assert_eq!(e["contextConfig"]["budgetPriority"], 500);
    assert_eq!(e["text"], "@@probability 5\nText");
    let lost: Vec<&str> = report
        .entry_notes()
        .map(|(_, n)| n.field.as_str())
        .collect();
    for f in ["secondary_keys", "@@probability", "whole_words", "order"] {
        assert!(lost.contains(&f), "{f} in {lost:?}");
    }
}

// --- Agnai ------------------------------------------------------------------------

#[test]
fn agnai_fixture_maps_every_field() {
    let book = round_trip("agnai_all_fields.json", Format::Agnai, ExportFormat::Agnai);
    assert_eq!(book.name, "Agnai fixture");
    assert_eq!(book.description, "memory book");
    assert_eq!(book.extensions["agnai"]["_id"], "book-1");
    let river = entry(&book, 0);
    assert_eq!(river.comment, "River");
    assert_eq!(river.content, "The river floods in spring.");
    assert_eq!(river.keys, ["river", "flood"]);
    assert_eq!((river.priority, river.order), (10, 5));
    let bridge = entry(&book, 1);
    assert!(!bridge.enabled);
    assert_eq!(bridge.extensions["agnai"]["note"], "extra field");
}

// --- Native → X → native --------------------------------------------------------

/// A native book whose every field every foreign format can hold.
fn portable_book() -> Book {
    let mut book = Book {
        name: "Portable".into(),
        description: "d".into(),
        ..Book::default()
    };
    book.add_entry(Entry {
        comment: "First".into(),
        keys: vec!["alpha".into(), "beta".into()],
        content: "Alpha text.".into(),
        whole_words: false,
        order: 10,
        priority: 10,
        ..Entry::default()
    });
    book.add_entry(Entry {
        comment: "Second".into(),
        keys: vec!["gamma".into()],
        content: "Gamma text.".into(),
        enabled: false,
        whole_words: false,
        order: 3,
        priority: 3,
        ..Entry::default()
    });
    book
}

#[test]
fn native_to_every_format_and_back_keeps_what_it_can_hold() {
    let book = portable_book();
    for to in ExportFormat::ALL {
        let (out, report) = export(&book, to).unwrap();
        let back = import(&out).unwrap_or_else(|e| panic!("{to}: {e}")).book;
        assert_eq!(back.entries.len(), 2, "{to}");
        for (a, b) in book.entries.iter().zip(&back.entries) {
            assert_eq!(
                a.comment, b.comment,
                "{to}: comments survive every round trip"
            );
            assert_eq!(a.keys, b.keys, "{to}");
            assert_eq!(a.content, b.content, "{to}");
            assert_eq!(a.enabled, b.enabled, "{to}");
            assert_eq!((a.order, a.priority), (b.order, b.priority), "{to}");
            assert_eq!(a.whole_words, b.whole_words, "{to}");
        }
        assert!(!report.to_string().is_empty());
    }
}

// --- Detection and errors -------------------------------------------------------

#[test]
fn each_failure_has_its_own_error() {
    // The code as it crosses to the UI.
    let code_of = |e: &lorebook_engine::formats::ImportError| {
        serde_json::to_value(e.code())
            .unwrap()
            .as_str()
            .unwrap()
            .to_string()
    };
    let check = |bytes: &[u8], code: &str, text: &str| {
        let err = import(bytes).unwrap_err();
        assert_eq!(code_of(&err), code, "{err}");
        assert!(
            err.to_string().contains(text),
            "{err:?} should contain {text:?}"
        );
        assert_eq!(
            detect(bytes)
                .map_err(|e| code_of(&e))
                .err()
                .unwrap_or(code.to_string()),
            code
        );
    };
    check(
        b"{\n  \"entries\": {\n    \"0\": [,]",
        "malformed_json",
        "line 3, column",
    );
    check(b"", "malformed_json", "line 1");
    check(b"[1, 2]", "unknown_format", "top level is an array");
    check(br#"{"hello": 1}"#, "unknown_format", "fields hello");
    check(
        br#"{"spec": "something_else"}"#,
        "unknown_format",
        "unknown \"spec\"",
    );
    check(b"\xff\xfe\x00binary", "unknown_format", "binary data");
    check(
        br#"{"spec":"chara_card_v2","data":{"name":"x"}}"#,
        "card_without_book",
        "no lorebook",
    );
    check(
        br#"{"name":"x","first_mes":"hi"}"#,
        "card_without_book",
        "v1",
    );
    check(br#"{"spec":"chara_card_v3"}"#, "bad_shape", "no \"data\"");
    check(
        br#"{"entries":{"0":{"key":"a","constant":"yes"}}}"#,
        "bad_field",
        "entries.0.constant",
    );
    check(br#"{"entries":{"0":5}}"#, "bad_field", "entries.0");
    check(
        br#"{"type":"risu","ver":1,"data":{}}"#,
        "bad_shape",
        "\"data\" must be an array",
    );
    check(
        br#"{"lorebookVersion":6,"entries":[{"keys":{}}]}"#,
        "bad_field",
        "entries[0].keys",
    );
    check(
        br#"{"kind":"memory","entries":[{"priority":"high"}]}"#,
        "bad_field",
        "entries[0].priority",
    );
    check(
        br#"{"worldinfo":[],"actions":[]}"#,
        "unknown_format",
        "KoboldAI",
    );
}

#[test]
fn export_format_names_parse() {
    for f in ExportFormat::ALL {
        assert_eq!(f.cli_name().parse::<ExportFormat>().unwrap(), f);
    }
    assert_eq!(
        "ST".parse::<ExportFormat>().unwrap(),
        ExportFormat::SillyTavern
    );
    assert_eq!(
        "chara_card_v2".parse::<ExportFormat>().unwrap(),
        ExportFormat::CardV2
    );
    let err = "docx".parse::<ExportFormat>().unwrap_err().to_string();
    assert!(err.contains("ccv3"), "{err}");
    // One spelling per format (issue 18): the id is what serde writes (the
    // app's bindings), and an export format's id is its import format's.
    for f in Format::ALL {
        assert_eq!(serde_json::to_value(f).unwrap(), f.id(), "{f:?}");
    }
    for f in ExportFormat::ALL {
        assert_eq!(
            serde_json::to_value(f).unwrap(),
            f.as_format().id(),
            "{f:?}"
        );
    }
    assert_eq!(Format::NovelAi.id(), "novelai");
    assert_eq!(Format::SillyTavern.id(), "sillytavern");
}

// --- Backyard AI (.byaf) ----------------------------------------------------

/// A Backyard AI archive as the format lays it out: the manifest, the
/// character with its lore items, an image and a scenario (stored, as
/// Backyard AI's writer stores them).
fn byaf(character: Value, manifest_characters: &[&str]) -> Vec<u8> {
    use std::io::Write;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let manifest = json!({"schemaVersion": 1, "createdAt": "2026-01-01T00:00:00Z",
        "characters": manifest_characters, "scenarios": ["scenarios/scenario1.json"]});
    w.start_file("manifest.json", stored).unwrap();
    w.write_all(manifest.to_string().as_bytes()).unwrap();
    w.start_file("characters/c1/character.json", stored)
        .unwrap();
    w.write_all(character.to_string().as_bytes()).unwrap();
    w.start_file("characters/c1/images/avatar.png", stored)
        .unwrap();
    w.write_all(b"not an image").unwrap();
    w.start_file("scenarios/scenario1.json", stored).unwrap();
    w.write_all(br#"{"narrative": "A harbor town."}"#).unwrap();
    w.finish().unwrap().into_inner()
}

fn harbor_character() -> Value {
    json!({
        "schemaVersion": 1, "id": "c1", "name": "Mira", "displayName": "Mira of the Harbor",
        "isNSFW": false, "persona": "A harbor pilot.", "createdAt": "2026-01-01T00:00:00Z",
        "updatedAt": "2026-01-01T00:00:00Z",
        "loreItems": [
            {"key": "harbor, dock,, pier ", "value": "#{character}: the harbor is {user}'s home."},
            null,
            {"key": "Gull", "value": "Gulls circle {{char}}'s boat.", "note": "an unknown field"}
        ],
        "images": [{"path": "images/avatar.png", "label": "avatar"}]
    })
}

#[test]
fn byaf_lore_items_become_entries_with_keys_split_and_placeholders_as_macros() {
    let bytes = byaf(harbor_character(), &["characters/c1/character.json"]);
    assert_eq!(detect(&bytes).unwrap(), Format::Byaf);
    let imported = import(&bytes).unwrap();
    assert_eq!(imported.format, Format::Byaf);
    let book = imported.book;
    assert_eq!(book.name, "Mira");
    assert_eq!(book.entries.len(), 2, "the null item skipped");
    let harbor = &book.entries[0];
    assert_eq!(harbor.keys, ["harbor", "dock", "pier"]);
    assert_eq!(harbor.content, "{{char}}: the harbor is {{user}}'s home.");
    assert_eq!((harbor.order, harbor.enabled), (0, true));
    let gull = &book.entries[1];
    assert_eq!(gull.keys, ["Gull"]);
    assert_eq!(
        gull.content, "Gulls circle {{char}}'s boat.",
        "SillyTavern's macros stay as they are"
    );
    assert_eq!(gull.order, 2, "the position in the file, nulls counted");
    assert_eq!(gull.extra["note"], "an unknown field");
    // The character's other fields are kept with the book, and through the
    // app's own format.
    let kept = &book.wrapper_extra["byaf_character"];
    assert_eq!(kept["persona"], "A harbor pilot.");
    assert!(kept.get("loreItems").is_none());
    through_native(&book);
    let said = imported.report.to_string();
    assert!(said.contains("{{char}}: 2"), "{said}");
}

#[test]
fn byaf_sample_made_by_backyard_ais_own_writer_reads() {
    let bytes = fixture("backyard_sample.byaf");
    let imported = import(&bytes).unwrap();
    assert_eq!(imported.format, Format::Byaf);
    assert_eq!(imported.book.name, "TestBot");
    assert_eq!(imported.book.entries.len(), 1);
    assert_eq!(imported.book.entries[0].keys, ["test"]);
    assert_eq!(imported.book.entries[0].content, "value");
}

#[test]
fn byaf_hostile_layouts_are_refused_with_a_reason() {
    let mut no_lore = harbor_character();
    no_lore["loreItems"] = json!([]);
    assert!(matches!(
        import(&byaf(no_lore, &["characters/c1/character.json"])),
        Err(ImportError::CardWithoutBook { .. })
    ));
    for path in [
        "characters/../character.json",
        "x/characters/c1/character.json",
        "/characters/c1/character.json",
    ] {
        let e = import(&byaf(harbor_character(), &[path]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not characters/<folder>/character.json"),
            "{path}: {e}"
        );
    }
    let e = import(&byaf(harbor_character(), &["characters/c2/character.json"]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("it has no characters/c2/character.json"), "{e}");
    let mut bad_item = harbor_character();
    bad_item["loreItems"] = json!([{"key": ["not", "text"], "value": "x"}]);
    let e = import(&byaf(bad_item, &["characters/c1/character.json"]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("lore item 0's key is an array, not text"), "{e}");
    // Two characters listed: the first read, and said.
    let two = import(&byaf(
        harbor_character(),
        &[
            "characters/c1/character.json",
            "characters/c2/character.json",
        ],
    ))
    .unwrap();
    assert!(two.report.to_string().contains("lists 2 characters"));
}

// --- CHARX export -----------------------------------------------------------

#[test]
fn charx_export_writes_a_card_that_reads_back_and_into_a_charx_keeps_its_assets() {
    let book = import(&fixture("card_v3_all_fields.json")).unwrap().book;
    let (fresh, _) = export(&book, ExportFormat::Charx).unwrap();
    let back = import(&fresh).unwrap();
    assert_eq!(back.format, Format::Charx);
    assert_eq!(back.book.entries.len(), book.entries.len());
    for (a, b) in back.book.entries.iter().zip(&book.entries) {
        assert_eq!((&a.keys, &a.content), (&b.keys, &b.content));
    }
    // Into an existing CHARX: its other files as stored, byte for byte.
    use std::io::{Read, Write};
    let mut archive = zip::ZipWriter::new_append(std::io::Cursor::new(fresh)).unwrap();
    archive
        .start_file(
            "assets/other/x.bin",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
    archive.write_all(&[0, 1, 2, 255]).unwrap();
    let with_asset = archive.finish().unwrap().into_inner();
    let (into, _) = export_into_card(&book, &with_asset, ExportFormat::CardV3).unwrap();
    let mut a = zip::ZipArchive::new(std::io::Cursor::new(&into[..])).unwrap();
    let mut asset = Vec::new();
    a.by_name("assets/other/x.bin")
        .unwrap()
        .read_to_end(&mut asset)
        .unwrap();
    assert_eq!(asset, [0, 1, 2, 255]);
    assert!(matches!(
        export_into_card(&book, &with_asset, ExportFormat::CardV2),
        Err(ExportError::NotACardFormat(ExportFormat::CardV2))
    ));
}

// --- Marinara-Engine --------------------------------------------------------

#[test]
fn marinara_fixture_maps_every_field_and_keeps_the_rest() {
    let book = round_trip(
        "marinara_all_fields.json",
        Format::Marinara,
        ExportFormat::Marinara,
    );
    assert_eq!(book.name, "Saltmere");
    assert_eq!(
        (book.scan_depth, book.token_budget, book.recursive_scanning),
        (3, 2048, true)
    );
    let harbor = entry(&book, 0);
    assert_eq!(harbor.comment, "Harbor");
    assert_eq!(harbor.keys, ["harbor", "dock"]);
    assert_eq!(harbor.secondary_keys, ["ship"]);
    assert_eq!(harbor.secondary_logic, SecondaryLogic::AndAll);
    assert!(harbor.selective && harbor.whole_words && !harbor.case_sensitive);
    assert_eq!(
        decorators::parse(&harbor.content).decorators.probability,
        Some(50)
    );
    assert_eq!(harbor.extensions["marinara"]["locked"], true);
    assert_eq!(
        harbor.extensions["marinara"]["activationConditions"][0]["operator"],
        "equals"
    );
    let gull = entry(&book, 1);
    assert_eq!(gull.secondary_logic, SecondaryLogic::NotAny);
    assert!(gull.constant && !gull.enabled && gull.case_sensitive && gull.use_regex);
    assert_eq!(gull.role, Role::Assistant);
    assert_eq!(gull.parent, None);
    let orla = entry(&book, 2);
    assert_eq!(orla.secondary_logic, SecondaryLogic::AndAny);
    assert_eq!(orla.role, Role::User);
    // Folders: Places at the top, People inside it (a nested folder kept).
    let places = book
        .entries
        .iter()
        .find(|e| e.folder && e.comment == "Places")
        .unwrap();
    let people = book
        .entries
        .iter()
        .find(|e| e.folder && e.comment == "People")
        .unwrap();
    assert_eq!(harbor.parent, Some(places.id));
    assert_eq!(orla.parent, Some(people.id));
    assert_eq!(people.parent, Some(places.id));
    assert!(!people.enabled);
}

#[test]
fn marinara_export_of_another_book_reads_back_with_its_folders() {
    let book = import(&fixture("risu_all_fields.json")).unwrap().book;
    let (bytes, report) = export(&book, ExportFormat::Marinara).unwrap();
    let v = json(&bytes);
    assert_eq!(v["type"], "marinara_lorebook");
    assert_eq!(v["version"], 1);
    let back = import(&bytes).unwrap();
    assert_eq!(back.format, Format::Marinara);
    let plain = |b: &Book| {
        b.entries
            .iter()
            .filter(|e| !e.folder)
            .map(|e| (e.keys.clone(), e.comment.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(plain(&back.book), plain(&book));
    assert_eq!(
        back.book.entries.iter().filter(|e| e.folder).count(),
        book.entries.iter().filter(|e| e.folder).count()
    );
    let _ = report.to_string();
}
