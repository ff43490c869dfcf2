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
