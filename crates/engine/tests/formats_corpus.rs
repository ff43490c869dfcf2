//! Round trips and mappings on every real file of the shared corpus
//! (`../../../shared/corpus` or `LOREBOOK_CORPUS`, see its SOURCES.md for
//! each file's quirks). Without the corpus these tests are ignored
//! (`cfg(corpus)`, set by `build.rs`), so the test runner counts them as
//! skipped; the fixtures of `formats_fixtures.rs` cover every format on
//! their own.

use lorebook_engine::decorators;
use lorebook_engine::formats::{
    export, export_into_card, import, native, ExportFormat, Format, ImportError,
};
use lorebook_engine::model::{Book, Role};
use serde_json::Value;

/// A corpus file's bytes (the tests calling it are ignored without the
/// corpus; run anyway, they fail naming where it was looked for).
fn corpus(rel: &str) -> Vec<u8> {
    let path = lorebook_test_support::corpus().join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("exported JSON parses")
}

/// Saves and reloads through the native file, as the app does.
fn through_native(book: &Book) -> Book {
    let (back, notes) = native::load(&native::to_bytes(book)).expect("native reload");
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(&back, book, "native save/load keeps the book");
    back
}

/// X → native → X gives the original document back.
fn check_round_trip(rel: &str, format: Format, to: ExportFormat) -> Book {
    let bytes = corpus(rel);
    let imported = import(&bytes).unwrap_or_else(|e| panic!("{rel}: {e}"));
    assert_eq!(imported.format, format, "{rel}");
    let book = through_native(&imported.book);
    let (out, _report) = export(&book, to).unwrap();
    let original = json(&bytes);
    let back = json(&out);
    if back != original {
        let (o, b) = (original.to_string(), back.to_string());
        let at = o
            .bytes()
            .zip(b.bytes())
            .position(|(x, y)| x != y)
            .unwrap_or(0);
        panic!(
            "{rel}: round trip differs near byte {at}:\noriginal …{}\nexported …{}",
            &o[at.saturating_sub(200)..(at + 200).min(o.len())],
            &b[at.saturating_sub(200)..(at + 200).min(b.len())]
        );
    }
    imported.book
}

#[test]
#[cfg_attr(
    not(corpus),
    ignore = "corpus not found: set LOREBOOK_CORPUS or put it at ../shared/corpus"
)]
fn sillytavern_files_round_trip() {
    for f in [
        "sillytavern/Eldoria.json",
        "sillytavern/Toaru.json",
        "sillytavern/edrum_worldinfo_v10_en.json",
        "sillytavern/edrum_worldinfo_v7_ru.json",
        "sillytavern/dsh_hsr_worldbook_zh.json",
        "sillytavern/Complete_ZZZ_Lorebook.json",
    ] {
        check_round_trip(f, Format::SillyTavern, ExportFormat::SillyTavern);
    }
}

#[test]
#[cfg_attr(
    not(corpus),
    ignore = "corpus not found: set LOREBOOK_CORPUS or put it at ../shared/corpus"
)]
fn other_json_files_round_trip() {
    check_round_trip(
        "ccv2/nightreign_master_complete.json",
        Format::CharacterBook,
        ExportFormat::CharacterBook,
    );
    check_round_trip(
        "risu/rpg_module_cha1_lorebook_export.json",
        Format::Risu,
        ExportFormat::Risu,
    );
    for f in [
        "novelai/test_lorebook.lorebook",
        "novelai/starter.lorebook",
        "novelai/A_hiss_of_smoke_empty.lorebook",
        "novelai/tamriel_katariah_create_character_20210622.story",
    ] {
        check_round_trip(f, Format::NovelAi, ExportFormat::NovelAi);
    }
}

/// The decoded card JSON of every tEXt chunk, by keyword, and every other
/// chunk's bytes.
fn png_parts(png: &[u8]) -> (Vec<(String, Value)>, Vec<Vec<u8>>) {
    use base64::Engine;
    let (mut cards, mut others) = (Vec::new(), Vec::new());
    let mut at = 8;
    while at + 12 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        let whole = &png[at..at + 12 + len];
        let kind = &whole[4..8];
        let data = &whole[8..8 + len];
        assert_eq!(
            &whole[8 + len..],
            crc32fast::hash(&whole[4..8 + len]).to_be_bytes(),
            "CRC"
        );
        let nul = data.iter().position(|b| *b == 0);
        match (kind, nul) {
            (b"tEXt", Some(n)) if matches!(&data[..n], b"chara" | b"ccv3") => {
                let text = base64::engine::general_purpose::STANDARD
                    .decode(&data[n + 1..])
                    .unwrap();
                cards.push((
                    String::from_utf8(data[..n].to_vec()).unwrap(),
                    serde_json::from_slice(&text).unwrap(),
                ));
            }
            _ => others.push(whole.to_vec()),
        }
        at += 12 + len;
    }
    (cards, others)
}

#[test]
#[cfg_attr(
    not(corpus),
    ignore = "corpus not found: set LOREBOOK_CORPUS or put it at ../shared/corpus"
)]
fn png_cards_round_trip_into_the_same_image() {
    for (rel, to, chunks) in [
        ("ccv2/contest_Assistant_Sakana.png", ExportFormat::CardV2, 1),
        ("ccv3/default_Seraphina.png", ExportFormat::CardV3, 2),
    ] {
        let png = corpus(rel);
        let imported = import(&png).unwrap();
        assert_eq!(imported.format, Format::PngCard);
        let book = through_native(&imported.book);
        let (out, _) = export_into_card(&book, &png, to).unwrap();
        let (cards, others) = png_parts(&png);
        let (cards_out, others_out) = png_parts(&out);
        assert_eq!(cards.len(), chunks, "{rel}");
        assert_eq!(
            cards_out, cards,
            "{rel}: every card chunk gives the same card back"
        );
        assert_eq!(
            others_out, others,
            "{rel}: every other chunk is byte for byte the same"
        );
    }
}

#[test]
#[cfg_attr(
    not(corpus),
    ignore = "corpus not found: set LOREBOOK_CORPUS or put it at ../shared/corpus"
)]
fn png_card_edits_reach_both_chunks() {
    let png = corpus("ccv3/default_Seraphina.png");
    let mut book = import(&png).unwrap().book;
    book.entries[0].comment = "Eldoria (edited)".into();
    book.entries[0].content = decorators::set(&book.entries[0].content, "probability", Some("50"));
    let (out, _) = export_into_card(&book, &png, ExportFormat::CardV3).unwrap();
    let (cards, _) = png_parts(&out);
    for (kw, card) in &cards {
        let e = &card["data"]["character_book"]["entries"][0];
        assert_eq!(e["comment"], "Eldoria (edited)", "{kw}");
        assert_eq!(
            e["extensions"]["probability"], 50,
            "{kw}: SillyTavern reads it there"
        );
        assert_eq!(
            e["use_regex"], true,
            "{kw}: SillyTavern's own spelling kept"
        );
    }
    let chara = &cards.iter().find(|(k, _)| k == "chara").unwrap().1;
    let content = chara["data"]["character_book"]["entries"][0]["content"]
        .as_str()
        .unwrap();
    assert!(
        !content.starts_with("@@"),
        "v2 has no decorators: {content:?}"
    );
}

#[test]
#[cfg_attr(
    not(corpus),
    ignore = "corpus not found: set LOREBOOK_CORPUS or put it at ../shared/corpus"
)]
fn sillytavern_mapping_on_real_books() {
    // Eldoria: selective with no secondary keys, no selectiveLogic, null tri-states.
    let book = import(&corpus("sillytavern/Eldoria.json")).unwrap().book;
    assert_eq!(book.entries.len(), 4);
    for e in &book.entries {
        assert!(e.selective && e.secondary_keys.is_empty());
        assert!(
            e.whole_words,
            "null matchWholeWords → SillyTavern's default"
        );
        assert!(!e.case_sensitive);
        assert_eq!(e.role, Role::System);
        assert_eq!(e.order, e.priority);
        assert!(!e.comment.is_empty());
    }
    // Toaru: the oldest format; every default comes from the importer.
    let book = import(&corpus("sillytavern/Toaru.json")).unwrap().book;
    assert_eq!(book.entries.len(), 18);
    assert!(book
        .entries
        .iter()
        .all(|e| e.enabled && (1..=8).contains(&e.order)));
    // edrum v10: book settings, uids 1…36 without 33, both enabled and disable.
    let imported = import(&corpus("sillytavern/edrum_worldinfo_v10_en.json")).unwrap();
    let book = &imported.book;
    assert_eq!((book.scan_depth, book.token_budget), (50, 500));
    let ids: Vec<u64> = book.entries.iter().map(|e| e.id).collect();
    assert_eq!(ids.len(), 35);
    assert!(!ids.contains(&33) && ids.contains(&1) && ids.contains(&36));
    assert_eq!(book.entries.iter().filter(|e| e.constant).count(), 3);
    assert!(book
        .entries
        .iter()
        .any(|e| e.keys.iter().any(|k| k.contains('*'))));
    // edrum v7 (Cyrillic, sentinel keys, missing keysecondary).
    let book = import(&corpus("sillytavern/edrum_worldinfo_v7_ru.json"))
        .unwrap()
        .book;
    assert_eq!(book.entries.len(), 36);
    assert!(book
        .entries
        .iter()
        .any(|e| e.keys == ["__constant__"] && e.constant));
    // dsh: all keys empty, two disabled, a 21.8 K-character entry.
    let book = import(&corpus("sillytavern/dsh_hsr_worldbook_zh.json"))
        .unwrap()
        .book;
    assert_eq!(book.entries.len(), 21);
    assert!(book.entries.iter().all(|e| e.keys.is_empty()));
    assert_eq!(book.entries.iter().filter(|e| !e.enabled).count(), 2);
    assert_eq!(book.entries.iter().filter(|e| e.constant).count(), 11);
    assert!(book
        .entries
        .iter()
        .any(|e| e.content.chars().count() > 20_000));
    // ZZZ: 338 entries, position 2 / depth 0 kept for SillyTavern.
    let imported = import(&corpus("sillytavern/Complete_ZZZ_Lorebook.json")).unwrap();
    assert_eq!(imported.book.entries.len(), 338);
    let positions = imported
        .book
        .entries
        .iter()
        .filter(|e| e.extensions.get("position") == Some(&serde_json::json!(2)))
        .count();
    assert_eq!(positions, 337);
    assert!(imported
        .book
        .entries
        .iter()
        .any(|e| e.keys.iter().any(|k| k.contains("Yúnkuī"))));
    let text = imported.report.to_string();
    assert!(text.contains("338 entries"), "{text}");
    assert!(
        text.lines().count() < 40,
        "the text report groups notes:\n{text}"
    );
}

#[test]
#[cfg_attr(
    not(corpus),
    ignore = "corpus not found: set LOREBOOK_CORPUS or put it at ../shared/corpus"
)]
fn card_mapping_on_real_cards() {
    let imported = import(&corpus("ccv2/contest_Assistant_Sakana.png")).unwrap();
    let book = &imported.book;
    assert_eq!(book.name, "Sakana-WI");
    assert_eq!(book.entries.len(), 14);
    assert!(book.entries.iter().all(|e| e.whole_words && !e.use_regex));
    assert_eq!(
        book.entries
            .iter()
            .filter(|e| !e.secondary_keys.is_empty())
            .count(),
        4
    );
    assert_eq!(
        book.entries[1]
            .keys
            .iter()
            .filter(|k| *k == "check")
            .count(),
        2,
        "a repeated key is kept as written"
    );
    assert_eq!(
        book.wrapper_extra["character_card"]["spec"],
        "chara_card_v2"
    );

    let imported = import(&corpus("ccv3/default_Seraphina.png")).unwrap();
    assert_eq!(imported.book.name, "Eldoria");
    assert_eq!(
        imported.book.entries.len(),
        4,
        "the book is read once, from ccv3"
    );
    let st = import(&corpus("sillytavern/Eldoria.json")).unwrap().book;
    for (a, b) in imported.book.entries.iter().zip(&st.entries) {
        assert_eq!(
            (&a.keys, &a.comment, &a.content),
            (&b.keys, &b.comment, &b.content)
        );
        assert_eq!(
            (a.whole_words, a.use_regex, a.order),
            (b.whole_words, b.use_regex, b.order)
        );
    }

    let book = import(&corpus("ccv2/nightreign_master_complete.json"))
        .unwrap()
        .book;
    assert_eq!(book.entries.len(), 77);
    assert_eq!((book.scan_depth, book.token_budget), (50, 500));
    assert!(book.entries.iter().all(|e| e.extra.contains_key("uid")));
}

#[test]
#[cfg_attr(
    not(corpus),
    ignore = "corpus not found: set LOREBOOK_CORPUS or put it at ../shared/corpus"
)]
fn risu_novelai_mapping_on_real_files() {
    let book = import(&corpus("risu/rpg_module_cha1_lorebook_export.json"))
        .unwrap()
        .book;
    assert_eq!(book.entries.len(), 2);
    assert!(book.entries.iter().all(|e| e.constant && e.keys.is_empty()));
    assert_eq!((book.entries[0].order, book.entries[1].order), (800, 999));
    let p = decorators::parse(&book.entries[1].content);
    assert_eq!(
        p.lines[0].name, "depth",
        "RisuAI's @@depth is kept as an unknown decorator"
    );

    let book = import(&corpus("novelai/test_lorebook.lorebook"))
        .unwrap()
        .book;
    assert_eq!(book.entries.len(), 3);
    assert!(book.entries.iter().any(|e| e.keys.is_empty()));
    assert_eq!(
        book.extensions["novelai"]["categories"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let book = import(&corpus("novelai/starter.lorebook")).unwrap().book;
    assert_eq!(book.entries[0].comment, "Rome Burning");
    assert!(import(&corpus("novelai/A_hiss_of_smoke_empty.lorebook"))
        .unwrap()
        .book
        .entries
        .is_empty());
    let story = import(&corpus(
        "novelai/tamriel_katariah_create_character_20210622.story",
    ))
    .unwrap();
    assert_eq!(story.format, Format::NovelAi);
    assert_eq!(story.book.entries.len(), 100);
    assert!(story.book.wrapper_extra.contains_key("novelai_story"));
}

/// A SillyTavern book leaves whole words to SillyTavern's global setting
/// (`matchWholeWords: null`) on almost every entry: its RisuAI export
/// leaves them to RisuAI's own setting (no `@@match_full_word`, which
/// would silence every key of two words), says so in the report, and
/// writes the line where the source chose whole words.
#[test]
#[cfg_attr(
    not(corpus),
    ignore = "corpus not found: set LOREBOOK_CORPUS or put it at ../shared/corpus"
)]
fn sillytavern_to_risu_leaves_unset_whole_words_to_risu() {
    let bytes = corpus("sillytavern/Complete_ZZZ_Lorebook.json");
    let source = json(&bytes);
    let book = through_native(&import(&bytes).unwrap().book);
    let (out, report) = export(&book, ExportFormat::Risu).unwrap();
    let risu = json(&out);
    let data = risu["data"].as_array().unwrap();
    assert_eq!(data.len(), book.entries.len());
    let whole = |v: &Value| v["matchWholeWords"].clone();
    let entries = source["entries"].as_object().unwrap().values();
    let unset = entries.clone().filter(|v| whole(v).is_null()).count();
    let chosen = entries.filter(|v| whole(v) == Value::Bool(true)).count();
    let written = data
        .iter()
        .filter(|lore| {
            let content = lore["content"].as_str().unwrap();
            content.lines().any(|l| l == "@@match_full_word")
        })
        .count();
    assert_eq!(written, chosen, "only where the source chose whole words");
    assert!(unset > 300, "the book leaves whole words unset: {unset}");
    let text = report.to_string();
    assert!(
        text.contains("RisuAI's full-word setting applies"),
        "{text}"
    );
    // Read back under RisuAI's rules, no multi-word key is dead.
    let back = import(&out).unwrap().book;
    let books = std::slice::from_ref(&back);
    let rules = lorebook_engine::lint::LintRules::Risu {
        settings: lorebook_engine::risu::RisuSettings::default(),
    };
    let cx = lorebook_engine::lint::LintContext::new(books, rules, &[]);
    let mut counter = lorebook_engine::tokenizer::TokenCounter::new(
        lorebook_engine::tokenizer::Encoding::Cl100kBase,
    );
    let problems = lorebook_engine::lint::lint(&cx, books, &mut counter, None);
    let dead: Vec<String> = problems
        .iter()
        .filter(|p| p.code() == "key_never_matches")
        .map(|p| p.to_string())
        .collect();
    assert!(dead.is_empty(), "{dead:?}");
}

#[test]
#[cfg_attr(
    not(corpus),
    ignore = "corpus not found: set LOREBOOK_CORPUS or put it at ../shared/corpus"
)]
fn non_lorebook_corpus_files_are_refused_clearly() {
    for rel in [
        "kobold/create_character_20210621.json",
        "kobold/half_life_2_start_20210621.json",
    ] {
        let err = import(&corpus(rel)).unwrap_err();
        assert!(
            matches!(err, ImportError::UnknownFormat { .. }),
            "{rel}: {err}"
        );
        assert!(err.to_string().contains("KoboldAI"), "{err}");
    }
    for rel in [
        "chats/st_Seraphina_2023-5-12.jsonl",
        "chats/st_Megumin_1673323621108.jsonl",
        "chats/st_Aqua_1673181146000.jsonl",
    ] {
        let err = import(&corpus(rel)).unwrap_err();
        match err {
            ImportError::Json { line, .. } => assert_eq!(line, 2, "{rel}"),
            other => panic!("{rel}: {other}"),
        }
    }
}

#[test]
#[cfg_attr(
    not(corpus),
    ignore = "corpus not found: set LOREBOOK_CORPUS or put it at ../shared/corpus"
)]
fn every_corpus_book_survives_every_export() {
    for rel in [
        "sillytavern/Eldoria.json",
        "sillytavern/Toaru.json",
        "sillytavern/edrum_worldinfo_v10_en.json",
        "sillytavern/dsh_hsr_worldbook_zh.json",
        "ccv2/contest_Assistant_Sakana.png",
        "ccv2/nightreign_master_complete.json",
        "ccv3/default_Seraphina.png",
        "risu/rpg_module_cha1_lorebook_export.json",
        "novelai/test_lorebook.lorebook",
        "novelai/tamriel_katariah_create_character_20210622.story",
    ] {
        let book = import(&corpus(rel)).unwrap().book;
        for to in ExportFormat::ALL {
            let (out, report) = export(&book, to).unwrap();
            let back = import(&out)
                .unwrap_or_else(|e| panic!("{rel} → {to}: {e}"))
                .book;
            assert_eq!(back.entries.len(), book.entries.len(), "{rel} → {to}");
            for (a, b) in book.entries.iter().zip(&back.entries) {
                // Comments and keys survive every target; contents keep their body.
                assert_eq!(a.comment, b.comment, "{rel} → {to}");
                // Keys are trimmed when matched (SPEC §5); RisuAI trims them.
                let trimmed =
                    |k: &[String]| k.iter().map(|k| k.trim().to_string()).collect::<Vec<_>>();
                assert_eq!(trimmed(&a.keys), trimmed(&b.keys), "{rel} → {to}");
                assert_eq!(
                    decorators::parse(&a.content).body,
                    decorators::parse(&b.content).body,
                    "{rel} → {to}"
                );
            }
            let _ = report.to_string();
        }
    }
}

#[test]
#[cfg_attr(
    not(corpus),
    ignore = "corpus not found: set LOREBOOK_CORPUS or put it at ../shared/corpus"
)]
fn sillytavern_through_a_card_and_back() {
    // ST → native → ccv3 → native → ST gives the world file back: the ST
    // fields travel in the card extensions under SillyTavern's own names.
    let bytes = corpus("sillytavern/Complete_ZZZ_Lorebook.json");
    let book = import(&bytes).unwrap().book;
    let (card, _) = export(&book, ExportFormat::CardV3).unwrap();
    let e0 = &json(&card)["data"]["character_book"]["entries"][0];
    assert_eq!(e0["extensions"]["position"], 2);
    assert_eq!(e0["extensions"]["depth"], 0);
    let back = import(&card).unwrap().book;
    let (st, _) = export(&back, ExportFormat::SillyTavern).unwrap();
    assert_eq!(json(&st), json(&bytes));
}
