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
