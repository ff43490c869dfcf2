//! Absurd input in a preview (issue 8): an entry holding one unbroken
//! megabyte made the tokenizer library panic inside the preview.

use lorebook_engine::chat;
use lorebook_engine::formats::native;
use lorebook_engine::preview::{Preview, Settings};

#[test]
fn a_preview_counts_an_entry_of_one_unbroken_megabyte() {
    for unit in ["A", "😀", "7"] {
        let body = unit.repeat(1024 * 1024 / unit.len());
        let file = serde_json::json!({"spec": "lorebook_v3", "data": {"entries": [
            {"id": 0, "keys": ["tide"], "content": body},
            {"id": 1, "keys": ["tide"], "priority": 200, "content": "The tide is out."},
        ]}});
        let (book, _) = native::load(file.to_string().as_bytes()).unwrap();
        let chat = chat::parse("User: when is the tide?", &Default::default()).unwrap();
        let result = Preview::new(&[book], Settings::default()).request(&chat.messages, 1);
        // The megabyte entry cannot fit the budget; the small one, ranked
        // first, still does.
        assert_eq!(result.injected.len(), 1, "{unit}");
        assert_eq!(result.injected[0].id, 1);
        assert_eq!(result.dropped[0].id, 0);
    }
}

/// JSON that expands (issue 8): nesting past serde_json's recursion limit,
/// which nothing disables, and millions of tiny values within the file cap.
mod json_amplification {
    use lorebook_engine::chat;
    use lorebook_engine::formats::json::{count_json_values, MAX_JSON_DEPTH, MAX_JSON_VALUES};
    use lorebook_engine::formats::{self, parse_json};
    use std::time::{Duration, Instant};

    fn nested(depth: usize) -> String {
        format!("{}{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn nesting_just_at_and_just_past_the_depth_limit() {
        assert!(parse_json(nested(MAX_JSON_DEPTH).as_bytes()).is_ok());
        let err = parse_json(nested(MAX_JSON_DEPTH + 1).as_bytes())
            .unwrap_err()
            .to_string();
        assert!(err.contains("nested more than 127 levels deep"), "{err}");
        // 100,000 levels: the same refusal, no stack overflow.
        let err = formats::import(nested(100_000).as_bytes())
            .unwrap_err()
            .to_string();
        assert!(err.contains("nested more than 127 levels deep"), "{err}");
        let err = chat::parse(&nested(100_000), &Default::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("nested more than 127 levels deep"), "{err}");
    }

    #[test]
    fn values_are_counted_outside_strings_only() {
        assert_eq!(count_json_values(r#"{"a": [1, 2], "b": {}}"#, 100), 7);
        assert_eq!(count_json_values(r#"["[,{:", "\"[", 1]"#, 100), 3);
        assert_eq!(
            count_json_values("[0,0,0]", 2),
            3,
            "stops just past the cap"
        );
    }

    #[test]
    fn ten_million_tiny_arrays_are_refused_before_parsing() {
        // 30 MB of `[],`: parsed, some 800 MB of values.
        let text = format!("[{}[]]", "[],".repeat(10_000_000));
        let start = Instant::now();
        let err = formats::import(text.as_bytes()).unwrap_err().to_string();
        assert!(err.contains("more than 8000000 values"), "{err}");
        let err = chat::parse(&text, &Default::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("more than 8000000 values"), "{err}");
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn values_just_under_and_just_over_the_cap() {
        // `[0,0,…]` with n zeros holds n + 1 values by the count: the array
        // starts one, each comma one more.
        let under = format!("[{}0]", "0,".repeat(MAX_JSON_VALUES - 1));
        assert_eq!(count_json_values(&under, MAX_JSON_VALUES), MAX_JSON_VALUES);
        let over = format!("[{}0]", "0,".repeat(MAX_JSON_VALUES));
        let err = parse_json(over.as_bytes()).unwrap_err().to_string();
        assert!(err.contains("more than 8000000 values"), "{err}");
        // Just under parses (a bare array is no book: the error is the
        // format's, not the cap's).
        let err = formats::import(under.as_bytes()).unwrap_err().to_string();
        assert!(!err.contains("values"), "{err}");
    }
}

/// Found by the `round_trip` fuzz target (docs/fuzzing.md): a PNG card
/// whose `chara` chunk says `"spec": "chara_Sard_v2"` imports, but its
/// export as card v3 JSON kept that spec and did not read back; now the
/// export writes its own spec and the report says the old one was replaced.
#[test]
fn a_card_with_an_unknown_spec_exports_as_a_card_that_reads_back() {
    use lorebook_engine::formats::{export, export_into_card, import, ExportFormat};
    let png = include_bytes!("../../../fuzz/regressions/round_trip/png-card-with-unknown-spec.png");
    let book = import(png).unwrap().book;
    for to in [ExportFormat::CardV2, ExportFormat::CardV3] {
        let (bytes, report) = export(&book, to).unwrap();
        let back = import(&bytes).unwrap();
        assert_eq!(back.format, to.as_format());
        assert_eq!(back.book.entries.len(), book.entries.len());
        let note = &report.book.approximated[0];
        assert_eq!(note.field, "spec", "{report}");
        // Its other chunk, `ccv3`, is broken: writing into this image is
        // refused with the chunk named, not written half-way.
        let refused = export_into_card(&book, png, to).unwrap_err();
        assert!(refused.to_string().contains("ccv3"), "{refused}");
    }
}

/// Found by the `round_trip` fuzz target (docs/fuzzing.md): an entry whose
/// `extensions.role` is 5 (no role) keeps it in its extensions, but saving
/// wrote the default role over it, so save and load changed the book.
#[test]
fn a_native_entry_with_an_unknown_role_survives_save_and_load() {
    use lorebook_engine::formats::native;
    use lorebook_engine::model::Role;
    let file =
        include_bytes!("../../../fuzz/regressions/round_trip/native-entry-with-unknown-role.json");
    let (book, _) = native::load(file).unwrap();
    let odd = book.entries.iter().find(|e| e.id == 8).unwrap();
    assert_eq!(odd.extensions["role"], 5);
    let (back, _) = native::load(&native::to_bytes(&book)).unwrap();
    assert_eq!(back, book);
    // A role chosen since then is what gets written.
    let mut edited = book.clone();
    edited.entries.iter_mut().find(|e| e.id == 8).unwrap().role = Role::User;
    let (back, _) = native::load(&native::to_bytes(&edited)).unwrap();
    assert_eq!(
        back.entries.iter().find(|e| e.id == 8).unwrap().role,
        Role::User
    );
}
