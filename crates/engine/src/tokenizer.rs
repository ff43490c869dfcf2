//! Token counting with the selected model's real tokenizer.
//!
//! The OpenAI encodings ship inside the binary (`tiktoken-rs` embeds them);
//! each loads on first use. [`TokenCounter`] caches counts by content hash,
//! so an unchanged body is never counted twice.
//!
//! Counting is bounded for any input. The library splits text into pieces
//! with each encoding's pre-tokenizer pattern and byte-pair encodes each
//! piece; a long unbroken run (a megabyte of one letter, one emoji, digits)
//! is a single piece, which makes the library's backtracking pattern give
//! up with a panic and its merge loop quadratic. [`Encoding::count`] finds
//! the pieces itself with a linear-time equivalent of the pattern, hands
//! every run of ordinary pieces to the library unchanged (so ordinary text
//! counts exactly as the library counts it) and counts a piece longer than
//! [`MAX_PIECE_BYTES`] in chunks of [`CHUNK_BYTES`].

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use serde::{Deserialize, Serialize};

/// A byte-pair encoding shipped with the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    O200kBase,
    Cl100kBase,
    P50kBase,
    R50kBase,
}

impl Encoding {
    pub const ALL: [Encoding; 4] = [
        Encoding::O200kBase,
        Encoding::Cl100kBase,
        Encoding::P50kBase,
        Encoding::R50kBase,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
            Encoding::P50kBase => "p50k_base",
            Encoding::R50kBase => "r50k_base",
        }
    }

    fn bpe(self) -> &'static tiktoken_rs::CoreBPE {
        match self {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            Encoding::P50kBase => tiktoken_rs::p50k_base_singleton(),
            Encoding::R50kBase => tiktoken_rs::r50k_base_singleton(),
        }
    }

    /// Counts tokens without a cache. Special-token text is counted as
    /// ordinary text, as it is in a chat message's content. Exact for every
    /// text whose pieces are at most [`MAX_PIECE_BYTES`] long; a longer piece
    /// counts as the sum of its chunks of [`CHUNK_BYTES`], in time linear in
    /// its length.
    pub fn count(self, text: &str) -> u32 {
        let bpe = self.bpe();
        let library = |span: &str| bpe.encode_ordinary(span).len();
        if text.len() <= MAX_PIECE_BYTES {
            return saturate(library(text));
        }
        let mut total = 0usize;
        let mut span_start = 0;
        // A run of one character repeats the same chunk thousands of times.
        let mut chunk_counts: HashMap<&str, usize> = HashMap::new();
        for piece in self.pre_tokenizer().pieces(text) {
            if piece.len() <= MAX_PIECE_BYTES {
                continue;
            }
            total += library(&text[span_start..piece.start]);
            for chunk in chunks(&text[piece.clone()], CHUNK_BYTES) {
                total += *chunk_counts.entry(chunk).or_insert_with(|| library(chunk));
            }
            span_start = piece.end;
        }
        total += library(&text[span_start..]);
        saturate(total)
    }

    fn pre_tokenizer(self) -> &'static PreTokenizer {
        static CELLS: [OnceLock<PreTokenizer>; 4] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        let index = Encoding::ALL.iter().position(|e| *e == self).unwrap_or(0);
        CELLS[index].get_or_init(|| PreTokenizer::new(self))
    }
}

/// The longest piece counted whole, in bytes. Words, numbers, punctuation
/// runs and indentation of real text stay far below it; beyond it the
/// library's merge loop costs grow with the square of the length.
pub const MAX_PIECE_BYTES: usize = 256;

/// The size of the chunks a longer piece is counted in: small enough that a
/// megabyte of distinct chunks counts well within 200 ms, large enough that
/// cutting a run there costs at most a token or so per chunk.
pub const CHUNK_BYTES: usize = 64;

fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Splits `text` into consecutive chunks of at most `max` bytes (at least
/// one character each), cut on character boundaries.
fn chunks(text: &str, max: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut cut = max.min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        if cut == 0 {
            cut = rest.chars().next().map_or(rest.len(), char::len_utf8);
        }
        let (chunk, tail) = rest.split_at(cut);
        rest = tail;
        Some(chunk)
    })
}

/// An encoding's pre-tokenizer pattern in a form the linear-time `regex`
/// crate accepts. The published patterns end with `\s+(?!\S)|\s+`; the
/// look-ahead is dropped here and [`PreTokenizer::pieces`] gives back the
/// whitespace character it would have left for the next piece.
struct PreTokenizer {
    regex: Regex,
    /// Whether the pattern has the `\s*[\r\n]+` alternative, which claims
    /// every whitespace run holding a line break before `\s+` can.
    line_break_alternative: bool,
}

impl PreTokenizer {
    fn new(encoding: Encoding) -> PreTokenizer {
        let (pattern, line_break_alternative) = match encoding {
            Encoding::O200kBase => (
                concat!(
                    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
                    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
                    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+",
                ),
                true,
            ),
            Encoding::Cl100kBase => (
                r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+",
                true,
            ),
            Encoding::P50kBase | Encoding::R50kBase => (
                r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+",
                false,
            ),
        };
        PreTokenizer {
            regex: Regex::new(pattern).expect("the pre-tokenizer patterns are valid"),
            line_break_alternative,
        }
    }

    /// The byte ranges of the pieces the library's own pattern finds.
    fn pieces<'t>(&'t self, text: &'t str) -> impl Iterator<Item = Range<usize>> + 't {
        let mut pos = 0;
        std::iter::from_fn(move || {
            let m = self.regex.find_at(text, pos)?;
            let mut end = m.end();
            let s = m.as_str();
            // A whitespace run matched by the final `\s+` and followed by
            // more text: `\s+(?!\S)` would have matched all but its last
            // character, which then starts the next piece (" word").
            let from_plain_whitespace = s.chars().all(char::is_whitespace)
                && !(self.line_break_alternative && s.contains(['\r', '\n']));
            if from_plain_whitespace && end < text.len() {
                if let Some((last, _)) = s.char_indices().last().filter(|(i, _)| *i > 0) {
                    end = m.start() + last;
                }
            }
            pos = end;
            Some(m.start()..end)
        })
    }
}

/// Model-name prefixes and their encodings; the longest prefix wins.
pub const MODEL_TABLE: &[(&str, Encoding)] = &[
    ("gpt-4o", Encoding::O200kBase),
    ("chatgpt-4o", Encoding::O200kBase),
    ("gpt-4.1", Encoding::O200kBase),
    ("gpt-4.5", Encoding::O200kBase),
    ("gpt-5", Encoding::O200kBase),
    ("gpt-oss", Encoding::O200kBase),
    ("o1", Encoding::O200kBase),
    ("o3", Encoding::O200kBase),
    ("o4", Encoding::O200kBase),
    ("gpt-4", Encoding::Cl100kBase),
    ("gpt-3.5-turbo", Encoding::Cl100kBase),
    ("gpt-35-turbo", Encoding::Cl100kBase),
    ("text-embedding-ada-002", Encoding::Cl100kBase),
    ("text-embedding-3", Encoding::Cl100kBase),
    ("text-davinci-002", Encoding::P50kBase),
    ("text-davinci-003", Encoding::P50kBase),
    ("code-davinci", Encoding::P50kBase),
    ("code-cushman", Encoding::P50kBase),
    ("davinci", Encoding::R50kBase),
    ("curie", Encoding::R50kBase),
    ("babbage", Encoding::R50kBase),
    ("ada", Encoding::R50kBase),
    ("text-davinci-001", Encoding::R50kBase),
    ("gpt-3", Encoding::R50kBase),
];

/// The model the preview uses unless told otherwise.
pub const DEFAULT_MODEL: &str = "gpt-4o";

/// Model names offered in pickers, one per family.
pub const SUGGESTED_MODELS: &[&str] = &[
    "gpt-4o",
    "gpt-4.1",
    "o3",
    "gpt-4",
    "gpt-3.5-turbo",
    "text-davinci-003",
    "davinci",
];

/// Finds the encoding of a model name (or of an encoding's own name).
pub fn encoding_for_model(model: &str) -> Result<Encoding, String> {
    let m = model.trim().to_ascii_lowercase();
    if let Some(e) = Encoding::ALL.iter().find(|e| e.name() == m) {
        return Ok(*e);
    }
    MODEL_TABLE
        .iter()
        .filter(|(prefix, _)| {
            m == *prefix
                || (m.starts_with(prefix) && !m[prefix.len()..].starts_with(char::is_alphanumeric))
        })
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, e)| *e)
        .ok_or_else(|| {
            format!(
                "unknown model \"{model}\": use an OpenAI model name ({}) or an encoding ({})",
                SUGGESTED_MODELS.join(", "),
                Encoding::ALL.map(Encoding::name).join(", ")
            )
        })
}

/// Counts tokens with one encoding, caching by content hash.
#[derive(Debug)]
pub struct TokenCounter {
    encoding: Encoding,
    cache: HashMap<u64, u32>,
}

impl TokenCounter {
    pub fn new(encoding: Encoding) -> Self {
        TokenCounter {
            encoding,
            cache: HashMap::new(),
        }
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Token count of `text`; counted once per distinct text.
    pub fn count(&mut self, text: &str) -> u32 {
        if text.is_empty() {
            return 0;
        }
        let h = content_hash(text);
        let encoding = self.encoding;
        *self.cache.entry(h).or_insert_with(|| encoding.count(text))
    }

    /// Number of distinct texts counted so far.
    pub fn cached(&self) -> usize {
        self.cache.len()
    }
}

/// A stable 64-bit hash of a text, for caches.
pub fn content_hash(text: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_table() {
        let check = |model: &str, expected: Encoding| {
            assert_eq!(encoding_for_model(model), Ok(expected), "{model}");
        };
        check("gpt-4o", Encoding::O200kBase);
        check("gpt-4o-mini", Encoding::O200kBase);
        check("GPT-4.1-nano", Encoding::O200kBase);
        check("o3-mini", Encoding::O200kBase);
        check("gpt-4", Encoding::Cl100kBase);
        check("gpt-4-turbo", Encoding::Cl100kBase);
        check("gpt-3.5-turbo-16k", Encoding::Cl100kBase);
        check("text-davinci-003", Encoding::P50kBase);
        check("davinci", Encoding::R50kBase);
        check("cl100k_base", Encoding::Cl100kBase);
        assert!(encoding_for_model("claude-3")
            .unwrap_err()
            .contains("unknown model"));
        assert!(encoding_for_model("o1x").is_err());
    }

    #[test]
    fn counts_are_the_real_encodings() {
        // Reference counts from OpenAI's tiktoken.
        assert_eq!(Encoding::Cl100kBase.count("hello world"), 2);
        assert_eq!(Encoding::O200kBase.count("hello world"), 2);
        assert_eq!(Encoding::R50kBase.count("hello world"), 2);
        assert_eq!(Encoding::Cl100kBase.count("<|endoftext|>"), 7);
        let mut c = TokenCounter::new(Encoding::O200kBase);
        assert_eq!(c.count(""), 0);
        let n = c.count("The old lighthouse keeper of Saltmere");
        assert!(n > 3);
        assert_eq!(c.count("The old lighthouse keeper of Saltmere"), n);
        assert_eq!(c.cached(), 1);
    }

    /// The library's own count of the text as one call, for comparison.
    fn unsplit(e: Encoding, text: &str) -> usize {
        e.bpe().encode_ordinary(text).len()
    }

    fn check_exact(text: &str) {
        for e in Encoding::ALL {
            assert_eq!(
                e.count(text) as usize,
                unsplit(e, text),
                "{} on {:?}",
                e.name(),
                text.chars().take(80).collect::<String>()
            );
        }
    }

    #[test]
    fn ordinary_text_counts_exactly_as_the_library_does() {
        check_exact(include_str!("../../../samples/saltmere.json"));
        check_exact(include_str!("../../../samples/saltmere-chat.txt"));
        let mixed = "He said: \"I'll go\" — they'd THINK so.\r\n\r\n    indented  code\tx\n\
                     日本語のテキスト、Tokyoに行く。 Ünïcödé café naïve 😀😀 👩‍👩‍👧 \u{a0}nbsp\n\
                     1234567 3.14159 https://example.com/a/b?c=d&e=f ----- ===== \n\n\n   \n";
        check_exact(&mixed.repeat(20));
        // Long-ish words, up to the longest piece counted whole (a leading
        // space belongs to the piece).
        for len in [30, 100, MAX_PIECE_BYTES - 1] {
            let word = "ab".repeat(len).chars().take(len).collect::<String>();
            check_exact(&format!("{word} {} {word}. ", "x".repeat(200)));
            check_exact(&format!(
                "{}\n{}\n",
                "-".repeat(len + 1),
                "9".repeat(len + 1)
            ));
        }
        // Whitespace runs before words, line breaks and the end of text.
        check_exact(&format!(
            "{}word{}\n  \n\t\tnext   ",
            " ".repeat(200),
            " ".repeat(100)
        ));
    }

    proptest::proptest! {
        #[test]
        fn random_ordinary_texts_count_exactly(parts in proptest::collection::vec(
            proptest::sample::select(vec![
                "a", "Bc", "DEF", "é", "日本", "7", "42", "1234", " ", "  ", "\n", "\r\n", "\t",
                "'s", "'LL", ".", "!?", "😀", "/", "-", "\u{a0}", "\u{301}", "x\n", " \n ",
            ]),
            0..400,
        )) {
            check_exact(&parts.concat());
        }
    }

    #[test]
    fn unbroken_runs_count_without_panicking() {
        for run in ["A", "😀", "7", " ", "\n", "-", "aB"] {
            let text = run.repeat(1024 * 1024 / run.len());
            for e in Encoding::ALL {
                let n = e.count(&text) as usize;
                assert!(n > 0 && n <= text.len(), "{} on {run:?}: {n}", e.name());
            }
        }
        // Chunks never split a character, whatever its width.
        let emoji = "😀".repeat(100);
        assert!(chunks(&emoji, 7).all(|c| c == "😀"));
        assert_eq!(
            chunks(&emoji, CHUNK_BYTES).map(str::len).sum::<usize>(),
            emoji.len()
        );
    }

    #[test]
    fn a_long_piece_counts_as_the_sum_of_its_chunks() {
        let text = "A".repeat(5 * CHUNK_BYTES);
        assert!(text.len() > MAX_PIECE_BYTES);
        let chunk = unsplit(Encoding::O200kBase, &text[..CHUNK_BYTES]);
        assert_eq!(Encoding::O200kBase.count(&text) as usize, 5 * chunk);
        // The ordinary pieces around it still count exactly.
        let e = Encoding::O200kBase;
        let around = format!("The {text} end");
        assert_eq!(
            e.count(&around) as usize,
            unsplit(e, "The") + e.count(&format!(" {text}")) as usize + unsplit(e, " end")
        );
    }
}
