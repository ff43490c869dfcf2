//! Exactness against the reference libraries on the committed fixture.
//!
//! `tests/tokenizer/texts.json` holds the texts; `expected-openai.json` the
//! counts OpenAI's Python `tiktoken` gives them, written by
//! `scripts/tokenizer-expected.py`. The same counts must come out of the
//! bundled encodings and out of the same vocabularies loaded from files in
//! each supported file format. `expected-families.json` holds the counts of
//! the other families' reference libraries (Hugging Face `tokenizers`,
//! `sentencepiece`, `mistral-common`), for the files
//! `scripts/fetch-tokenizers.sh` installs.

use std::collections::BTreeMap;
use std::sync::Arc;

use base64::Engine as _;
use lorebook_engine::tokenizer::file::FileFormat;
use lorebook_engine::tokenizer::registry::{self, FAMILIES};
use lorebook_engine::tokenizer::{
    resources, tokenizer_for_model, Encoding, FileTokenizer, Tokenizer,
};
use serde_json::{json, Value};

fn texts() -> Vec<(String, String)> {
    let texts: Value = serde_json::from_str(include_str!("tokenizer/texts.json")).unwrap();
    texts
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn expected(encoding: Encoding) -> BTreeMap<String, u32> {
    let all: Value = serde_json::from_str(include_str!("tokenizer/expected-openai.json")).unwrap();
    serde_json::from_value(all[encoding.name()].clone()).unwrap()
}

fn assert_counts(what: &str, encoding: Encoding, count: impl Fn(&str) -> u32) {
    let expected = expected(encoding);
    let texts = texts();
    assert_eq!(expected.len(), texts.len(), "{what}: one count per text");
    for (name, text) in texts {
        assert_eq!(
            Some(&count(&text)),
            expected.get(&name),
            "{what} ({}) on {name}",
            encoding.name()
        );
    }
}

#[test]
fn the_fixture_covers_what_the_issue_lists() {
    let names: Vec<String> = texts().into_iter().map(|(n, _)| n).collect();
    for needed in [
        "english",
        "portuguese",
        "russian",
        "chinese",
        "japanese",
        "emoji",
        "code",
        "whitespace_runs",
        "long_words",
        "special_token_text",
    ] {
        assert!(names.iter().any(|n| n == needed), "{needed}");
    }
}

#[test]
fn bundled_encodings_count_as_tiktoken_does() {
    for e in Encoding::ALL {
        assert_counts("bundled", e, |t| e.count(t));
    }
}

/// An encoding's rank table, read back from the library one rank at a time.
fn ranks(encoding: Encoding) -> Vec<(Vec<u8>, u32)> {
    let (bpe, n) = match encoding {
        Encoding::O200kBase => (tiktoken_rs::o200k_base_singleton(), 199_998),
        Encoding::Cl100kBase => (tiktoken_rs::cl100k_base_singleton(), 100_256),
        Encoding::P50kBase => (tiktoken_rs::p50k_base_singleton(), 50_280),
        Encoding::R50kBase => (tiktoken_rs::r50k_base_singleton(), 50_256),
    };
    (0..n)
        .filter_map(|rank| {
            // o200k leaves two ranks unassigned.
            let bytes = std::panic::catch_unwind(|| {
                bpe._decode_native_and_split(vec![rank]).next().unwrap()
            })
            .ok()?;
            Some((bytes, rank))
        })
        .collect()
}

fn tiktoken_file(ranks: &[(Vec<u8>, u32)]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD;
    ranks
        .iter()
        .map(|(bytes, rank)| format!("{} {rank}\n", b64.encode(bytes)))
        .collect()
}

#[test]
fn tiktoken_files_count_as_tiktoken_does() {
    // The r50k and cl100k sizes pick their own patterns; o200k's is the
    // default for every other size.
    for e in [
        Encoding::R50kBase,
        Encoding::Cl100kBase,
        Encoding::O200kBase,
    ] {
        let file = tiktoken_file(&ranks(e));
        let t = FileTokenizer::from_bytes(file.as_bytes(), "test.tiktoken").unwrap();
        assert_eq!(t.format(), FileFormat::Tiktoken);
        assert!(t.pattern_note().contains(e.name()), "{}", t.pattern_note());
        assert_counts("tiktoken file", e, |text| t.count(text));
    }
}

#[test]
fn tekken_files_count_with_their_own_pattern() {
    // A Tekken JSON carrying cl100k's vocabulary and pattern, with special
    // slots at the start of the size as Mistral lays them out.
    let b64 = base64::engine::general_purpose::STANDARD;
    let ranks = ranks(Encoding::Cl100kBase);
    let vocab: Vec<Value> = ranks
        .iter()
        .map(|(bytes, rank)| json!({"rank": rank, "token_bytes": b64.encode(bytes), "token_str": null}))
        .collect();
    let specials = 1000;
    let tekken = json!({
        "config": {
            "pattern": lorebook_engine::tokenizer::pretokenizer::CL100K_PATTERN,
            "default_vocab_size": ranks.len() + specials,
            "default_num_special_tokens": specials,
            "version": "v3",
        },
        "vocab": vocab,
        "special_tokens": [],
    });
    let t = FileTokenizer::from_bytes(tekken.to_string().as_bytes(), "tekken.json").unwrap();
    assert_eq!(t.format(), FileFormat::Tekken);
    assert_counts("Tekken file", Encoding::Cl100kBase, |text| t.count(text));
    // Long runs stay bounded for a loaded file, counted as the bundled
    // encoding counts them.
    let run = "A".repeat(1 << 20);
    assert_eq!(t.count(&run), Encoding::Cl100kBase.count(&run));
}

#[test]
fn other_files_are_named_and_refused() {
    let refuse = |bytes: &[u8]| FileTokenizer::from_bytes(bytes, "x").unwrap_err();
    let hf = json!({"version": "1.0", "model": {"type": "BPE"}, "pre_tokenizer": null});
    assert!(refuse(hf.to_string().as_bytes()).contains("Hugging Face tokenizer.json"));
    let mut sp = vec![0x0A, 0x09, 0x0A, 0x03];
    sp.extend_from_slice("\u{2581}the".as_bytes());
    sp.push(0xFF);
    assert!(refuse(&sp).contains("SentencePiece"));
    let claude = json!({"bpe_ranks": "! 0 IQ==", "pat_str": ".", "special_tokens": {}});
    assert!(refuse(claude.to_string().as_bytes()).contains("tiktoken-JS"));
    assert!(refuse(b"{\"a\": 1}").contains("not a Tekken tokenizer"));
    assert!(refuse(b"hello world\n").contains("not a tokenizer file"));
    assert!(refuse(&[0xFF, 0xFE, 0x00]).contains("not a tokenizer file"));
    assert!(refuse(b"").contains("not a tokenizer file"));
    // A vocabulary the library would panic on.
    assert!(refuse(b"YQ== 0\nYg== 0\n").contains("rank 0 appears twice"));
    assert!(refuse(b"YQ== 0\nYg== 1\n").contains("single bytes"));
    let broken = format!("{}not a line\n", tiktoken_file(&ranks(Encoding::R50kBase)));
    assert!(refuse(broken.as_bytes()).contains("line 50257"));
}

/// The counts of every family read from an installed file, written by
/// `scripts/tokenizer-expected.py` from each family's reference library.
fn expected_families() -> BTreeMap<String, BTreeMap<String, u32>> {
    let all: Value =
        serde_json::from_str(include_str!("tokenizer/expected-families.json")).unwrap();
    all.as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| *k != "reference")
        .map(|(k, v)| (k.clone(), serde_json::from_value(v.clone()).unwrap()))
        .collect()
}

/// Hands the engine the repository's tokenizer folder (after
/// `$LOREBOOK_TOKENIZERS`), as a program hands it its search path; every
/// test reading an installed file calls it first.
fn search_the_repository() {
    resources::set_search_path(lorebook_test_support::tokenizer_dirs()).unwrap();
}

fn installed(family: &str) -> Arc<FileTokenizer> {
    search_the_repository();
    match tokenizer_for_model(family) {
        Ok(Tokenizer::File(f)) => f,
        Ok(other) => panic!("{family} is {other:?}, not read from its file"),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn every_family_counts_as_its_reference_library_does() {
    let expected = expected_families();
    let file_families: Vec<&str> = FAMILIES
        .iter()
        .filter(|f| f.file.is_some() && f.id != "gemini")
        .map(|f| f.id)
        .collect();
    let listed: Vec<&str> = expected.keys().map(String::as_str).collect();
    let mut sorted = file_families.clone();
    sorted.sort_unstable();
    assert_eq!(listed, sorted, "one expected column per family");
    let texts = texts();
    let mut mismatches = Vec::new();
    for family in file_families {
        let t = installed(family);
        for (name, text) in &texts {
            let want = expected[family][name];
            let got = t.count(text);
            if got != want {
                mismatches.push(format!("{family} on {name}: {got}, reference {want}"));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn gemini_is_approximated_by_gemma_3() {
    let gemini = registry::family_of("gemini-2.5-pro").unwrap();
    assert_eq!(gemini.id, "gemini");
    assert!(!gemini.exact);
    let expected = &expected_families()["gemma-3"];
    let t = installed("gemini");
    for (name, text) in texts() {
        assert_eq!(t.count(&text), expected[&name], "{name}");
    }
}

#[test]
fn installed_files_are_detected_by_content_when_brought_as_files() {
    search_the_repository();
    for (family, format) in [
        ("llama-3", FileFormat::HuggingFace),
        ("mistral-v1", FileFormat::SentencePiece),
        ("nerdstash-v2", FileFormat::SentencePiece),
        ("mistral-tekken", FileFormat::Tekken),
    ] {
        let f = registry::family_of(family).unwrap();
        let path = resources::installed(f).expect("installed by scripts/fetch-tokenizers.sh");
        // As installed (gzip) and unpacked, under any name.
        let packed = std::fs::read(&path).unwrap();
        let mut raw = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&packed[..]), &mut raw)
            .unwrap();
        for bytes in [&packed, &raw] {
            let t = FileTokenizer::from_bytes(bytes, "my-file").unwrap();
            assert_eq!(t.format(), format, "{family}");
            let expected = &expected_families()[family];
            for (name, text) in texts() {
                assert_eq!(t.count(&text), expected[&name], "{family} on {name}");
            }
        }
    }
}

#[test]
fn long_unbroken_runs_count_in_bounded_time_for_every_family() {
    search_the_repository();
    let runs = [
        "A".repeat(200_000),
        " ".repeat(200_000),
        "😀".repeat(50_000),
        "7".repeat(200_000),
    ];
    for f in FAMILIES {
        let t = tokenizer_for_model(f.id).unwrap();
        for run in &runs {
            let start = std::time::Instant::now();
            let n = t.count(run) as usize;
            // At most one token per byte, plus a SentencePiece dummy prefix.
            assert!(
                n > 0 && n <= run.len() + 1,
                "{} on a run of {:?}",
                f.id,
                &run[..4]
            );
            // Generous for a busy debug build; linear or n log n stays far
            // below, quadratic would take minutes.
            assert!(
                start.elapsed().as_secs() < 20,
                "{} took {:?} on a run of {:?}",
                f.id,
                start.elapsed(),
                &run[..4]
            );
        }
    }
}

#[test]
fn a_missing_family_file_names_the_fix() {
    search_the_repository();
    // A family whose file no folder has.
    let ghost = registry::Family {
        file: Some("no-such-tokenizer.json.gz"),
        ..*registry::family_of("claude").unwrap()
    };
    let e = resources::read(&ghost).unwrap_err();
    assert!(e.contains("is not installed"), "{e}");
    assert!(e.contains("scripts/fetch-tokenizers.sh"), "{e}");
    assert!(e.contains(resources::ENV_VAR), "{e}");
    let repository = lorebook_test_support::tokenizers_dir();
    assert!(e.contains(&repository.display().to_string()), "{e}");
}
