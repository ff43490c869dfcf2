//! Bounded counting: finding a text's pieces in linear time and counting a
//! very long piece in chunks.
//!
//! A byte-pair encoder splits text into pieces with its pre-tokenizer
//! pattern and encodes each piece. A long unbroken run (a megabyte of one
//! letter, one emoji, digits) is a single piece: the library's backtracking
//! pattern and its merge of the whole piece take over half a second for a
//! megabyte (tiktoken-rs 0.12; older versions panicked or went quadratic).
//! [`bounded_count`] finds the pieces itself with a linear-time equivalent
//! of the pattern, hands every run of ordinary pieces to the library
//! unchanged (so ordinary text counts exactly as the library counts it) and
//! counts a piece longer than [`MAX_PIECE_BYTES`] in chunks of
//! [`CHUNK_BYTES`], each distinct chunk once.

use std::collections::HashMap;
use std::ops::Range;

use regex::Regex;

/// The longest piece counted whole, in bytes. Words, numbers, punctuation
/// runs and indentation of real text stay far below it; beyond it the
/// library's costs grow faster than the length.
pub const MAX_PIECE_BYTES: usize = 256;

/// The size of the chunks a longer piece is counted in: small enough that a
/// megabyte of distinct chunks counts well within 200 ms, large enough that
/// cutting a run there costs at most a token or so per chunk.
pub const CHUNK_BYTES: usize = 64;

/// The r50k/p50k pre-tokenizer pattern in OpenAI's first form. The library
/// now compiles an equivalent rewrite with possessive quantifiers, which the
/// `regex` crate lacks; the exactness tests check that both split alike.
pub const R50K_PATTERN: &str =
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";

/// The cl100k pre-tokenizer pattern in OpenAI's first form (see
/// [`R50K_PATTERN`] on the library's rewrite).
pub const CL100K_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// The o200k pre-tokenizer pattern as OpenAI publishes it.
pub const O200K_PATTERN: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
);

/// The published patterns end with `\s+(?!\S)|\s+`, the only look-around
/// they use; [`PreTokenizer::pieces`] does its work by hand.
const TRAILING_WHITESPACE: &str = r"\s+(?!\S)|\s+";

/// The alternative that claims every whitespace run holding a line break
/// before `\s+` can.
const LINE_BREAK_ALTERNATIVE: &str = r"\s*[\r\n]+";

/// A pre-tokenizer pattern in a form the linear-time `regex` crate accepts.
#[derive(Debug)]
pub struct PreTokenizer {
    regex: Regex,
    line_break_alternative: bool,
}

impl PreTokenizer {
    /// Compiles the linear-time equivalent of a published pattern: one whose
    /// only look-around is the final `\s+(?!\S)|\s+`, otherwise within the
    /// `regex` crate's syntax.
    pub fn new(published: &str) -> Result<PreTokenizer, String> {
        let linear = match published.strip_suffix(TRAILING_WHITESPACE) {
            Some(head) => format!(r"{head}\s+"),
            None => published.to_string(),
        };
        let regex = Regex::new(&linear).map_err(|_| {
            format!(
                "the pre-tokenizer pattern uses syntax the bounded splitter cannot follow \
                 (only a final `{TRAILING_WHITESPACE}` look-ahead is supported): {published}"
            )
        })?;
        Ok(PreTokenizer {
            regex,
            // Written with `\r\n` escapes or, as some tokenizer.json files
            // have it, with the control characters themselves.
            line_break_alternative: published
                .replace('\r', r"\r")
                .replace('\n', r"\n")
                .contains(LINE_BREAK_ALTERNATIVE),
        })
    }

    /// The byte ranges of the pieces the library's own pattern finds.
    pub(crate) fn pieces<'t>(&'t self, text: &'t str) -> impl Iterator<Item = Range<usize>> + 't {
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

/// Counts `text` with `library` (the encoder's own count of a span), cutting
/// out every piece longer than [`MAX_PIECE_BYTES`] and counting it as the
/// sum of its chunks of [`CHUNK_BYTES`], in time linear in its length.
pub fn bounded_count(
    pre_tokenizer: &PreTokenizer,
    text: &str,
    library: impl Fn(&str) -> usize,
) -> u32 {
    if text.len() <= MAX_PIECE_BYTES {
        return saturate(library(text));
    }
    let mut total = 0usize;
    let mut span_start = 0;
    // A run of one character repeats the same chunk thousands of times.
    let mut chunk_counts: HashMap<&str, usize> = HashMap::new();
    for piece in pre_tokenizer.pieces(text) {
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

fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Splits `text` into consecutive chunks of at most `max` bytes (at least
/// one character each), cut on character boundaries.
pub(crate) fn chunks(text: &str, max: usize) -> impl Iterator<Item = &str> {
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
