//! The count-only path of Hugging Face files (`tokenizer/hf_fast.rs`)
//! counts exactly as the library's full encoding does: on the fixture's
//! texts, on texts made of the cases its steps handle by hand (added
//! tokens, special-token text, normalization, whitespace runs before line
//! breaks and words, digits, CJK), and on random mixes of them. Skipped,
//! saying so once, when `scripts/fetch-tokenizers.sh` has not installed
//! the files.

use lorebook_engine::tokenizer::registry::family_of;
use lorebook_engine::tokenizer::{resources, FileTokenizer};
use proptest::prelude::*;
use serde_json::Value;

/// The families read from Hugging Face files that take the count-only path.
const FAST: [&str; 6] = [
    "llama-3",
    "qwen",
    "deepseek-v3",
    "claude",
    "gemma-2",
    "gemma-3",
];

fn load(id: &str) -> Option<std::sync::Arc<FileTokenizer>> {
    // The repository's folder (after `$LOREBOOK_TOKENIZERS`), as a program
    // hands the engine its search path.
    resources::set_search_path(lorebook_test_support::tokenizer_dirs()).unwrap();
    let family = family_of(id).unwrap();
    if resources::installed(family).is_none() {
        eprintln!(
            "skipped {id}: its tokenizer file is not installed (scripts/fetch-tokenizers.sh)"
        );
        return None;
    }
    Some(resources::load(family).unwrap())
}

const PARTS: &[&str] = &[
    "a",
    "Bc",
    "DEF",
    "word",
    " the",
    "'s",
    "'LL",
    "don't",
    "é",
    "e\u{301}",
    "ﬁ",
    "①",
    "Ａ",
    "ação",
    "маяк",
    "灯塔",
    "看守人",
    "説話",
    "ひらがな",
    "カタカナ",
    "한국어",
    "😀",
    "👩‍👩‍👧",
    "7",
    "42",
    "1234567",
    "3.14",
    " ",
    "  ",
    "   ",
    "\t",
    "\n",
    "\r\n",
    "\n\n",
    " \n ",
    "\u{a0}",
    "\u{3000}",
    ".",
    "!?",
    "—",
    "“",
    "/",
    "-",
    "_",
    "{",
    "}",
    "()",
    "<s>",
    "</s>",
    "<|endoftext|>",
    "<|im_start|>",
    "<tool_call>",
    "</tool_call>",
    "<|fim_prefix|>",
    "<｜User｜>",
    "<｜Assistant｜>",
    "<｜fim▁hole｜>",
    "<|begin_of_text|>",
    "<EOT>",
    "[INST]",
    "▁",
    "▁▁",
    "a▁b",
    "<start_of_turn>",
    "<mask>",
    "[@BOS@]",
    "<unused0>",
    "> </",
    ">",
    "</",
    "<2mass>",
    "\u{0}",
    "\u{7f}",
    "\u{ad}",
];

fn check(tokenizer: &FileTokenizer, id: &str, text: &str) {
    assert_eq!(
        tokenizer.count(text),
        tokenizer.library_count(text),
        "{id} on {text:?}"
    );
}

#[test]
fn the_fast_path_counts_as_the_library_on_the_fixture_and_the_hard_cases() {
    let texts: Value = serde_json::from_str(include_str!("tokenizer/texts.json")).unwrap();
    for id in FAST {
        let Some(t) = load(id) else { continue };
        assert!(t.has_fast_path(), "{id} should take the count-only path");
        for text in texts.as_array().unwrap() {
            check(&t, id, text["text"].as_str().unwrap());
        }
        for a in PARTS {
            check(&t, id, a);
            for b in PARTS {
                check(&t, id, &format!("{a}{b}"));
                check(&t, id, &format!("{a} {b}\n"));
            }
        }
        check(&t, id, &"x".repeat(3000));
        check(&t, id, &" ".repeat(300));
        check(
            &t,
            id,
            &format!(
                "{}word{}\n  \n\t\tnext   ",
                " ".repeat(200),
                " ".repeat(100)
            ),
        );
    }
}

#[test]
fn files_of_other_shapes_keep_the_library() {
    // A word-level model: not a BPE, so the library counts it.
    let json = r#"{"version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
        "normalizer": null, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": null,
        "decoder": null,
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "ab": 1}, "unk_token": "[UNK]"}}"#;
    let t = FileTokenizer::from_bytes(json.as_bytes(), "word-level").unwrap();
    assert!(!t.has_fast_path());
    assert_eq!(t.count("ab abab, cd"), 4);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_mixes_count_as_the_library(parts in proptest::collection::vec(
        proptest::sample::select(PARTS.to_vec()), 0..120,
    )) {
        let text = parts.concat();
        for id in FAST {
            if let Some(t) = load(id) {
                prop_assert_eq!(t.count(&text), t.library_count(&text), "{} on {:?}", id, text);
            }
        }
    }
}
