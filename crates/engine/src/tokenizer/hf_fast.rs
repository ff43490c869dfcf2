//! A count-only path for Hugging Face BPE tokenizers: byte-level ones
//! (Llama 3, Qwen, DeepSeek, Claude) and SentencePiece-style ones (Gemma).
//!
//! The library finds pre-tokenizer pieces with `fancy-regex`, a
//! backtracking engine, and builds a full `Encoding` (ids, offsets, words)
//! per text; both cost more than the byte-pair merges. This path splits
//! the text the same way with the linear-time `regex` crate
//! ([`PreTokenizer`], which emulates the patterns' one look-ahead) and hands
//! each piece to the library's own BPE model (with its word cache), so the
//! merges, and therefore the counts, are the library's.
//!
//! It follows the library's steps for counting plain text:
//! 1. added tokens that match the raw text (`normalized: false`) are cut
//!    out, one token each; special tokens are not cut (their text counts
//!    as ordinary text);
//! 2. the rest is normalized (NFC, NFKC or nothing);
//! 3. added tokens that match the normalized text are cut out;
//! 4. byte-level files: each `Split` step (isolated matches) and the
//!    byte-level step's own pattern cut pieces, which are mapped to
//!    byte-level characters and merged by the model; SentencePiece-style
//!    files: the text is cut into words where no token can cross (see
//!    [`Pieces::Words`]) and each word merged by the model (with its byte
//!    fallback).
//!
//! A file with anything else (another normalizer or pre-tokenizer, added
//! tokens that strip spaces or match single words, dropout, a byte-level
//! file with byte fallback)
//! is counted by the library as before: [`HfFast::from_json`] answers `None`.

use std::borrow::Cow;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use serde_json::Value;
use tokenizers::{Model, NormalizedString, Normalizer};

use super::pretokenizer::{PreTokenizer, R50K_PATTERN};

/// What this path and the format check read of a `tokenizer.json`:
/// everything but the model's vocabulary and merges, which serde skips
/// without building them (a Gemma file's merges as a `Value` tree took
/// hundreds of megabytes; the library reads them once, for itself).
#[derive(Debug, serde::Deserialize)]
pub struct Head {
    /// `Some(Null)` when the file writes `null`, `None` when it has none.
    #[serde(default, deserialize_with = "present")]
    pub normalizer: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub pre_tokenizer: Option<Value>,
    #[serde(default)]
    pub added_tokens: Value,
    pub model: ModelHead,
}

/// The model's settings, without its vocabulary and merges.
#[derive(Debug, serde::Deserialize)]
pub struct ModelHead {
    #[serde(rename = "type", default)]
    pub kind: Value,
    #[serde(default)]
    pub dropout: Value,
    #[serde(default)]
    pub continuing_subword_prefix: Value,
    #[serde(default)]
    pub end_of_word_suffix: Value,
    #[serde(default)]
    pub byte_fallback: Value,
}

/// A field that is there, `null` included.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    <Value as serde::Deserialize>::deserialize(d).map(Some)
}

impl Head {
    /// Reads the head of a JSON text; `None` when it is not an object
    /// with a `model` object.
    pub fn read(text: &str) -> Option<Head> {
        serde_json::from_str(text).ok()
    }

    /// A Hugging Face `tokenizer.json`: a model object beside a normalizer
    /// or pre-tokenizer (each may be `null`).
    pub fn is_hugging_face(&self) -> bool {
        self.pre_tokenizer.is_some() || self.normalizer.is_some()
    }
}

/// Added tokens matched the way the library matches them (leftmost-longest),
/// with which of them are special (not cut out).
struct AddedSplit {
    automaton: AhoCorasick,
    special: Vec<bool>,
}

impl AddedSplit {
    fn new(tokens: Vec<(String, bool)>) -> Option<AddedSplit> {
        // Only special tokens: every match would be skipped.
        if tokens.iter().all(|(_, special)| *special) {
            return None;
        }
        let automaton = AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostLongest)
            .build(tokens.iter().map(|(t, _)| t.as_str()))
            .ok()?;
        Some(AddedSplit {
            automaton,
            special: tokens.iter().map(|(_, s)| *s).collect(),
        })
    }

    /// Calls `each(piece, added)` for the text between added tokens
    /// (`added == false`) and for each added token cut out.
    fn split<'t>(split: Option<&AddedSplit>, text: &'t str, mut each: impl FnMut(&'t str, bool)) {
        let Some(split) = split else {
            each(text, false);
            return;
        };
        let mut start = 0;
        for m in split.automaton.find_iter(text) {
            if split.special[m.pattern().as_usize()] {
                continue;
            }
            if start < m.start() {
                each(&text[start..m.start()], false);
            }
            each(&text[m.start()..m.end()], true);
            start = m.end();
        }
        if start < text.len() {
            each(&text[start..], false);
        }
    }
}

/// What the file's normalizer does.
enum Norm {
    /// Nothing.
    Keep,
    /// NFC or NFKC, done by the library's normalizer.
    Unicode,
    /// Spaces become "▁" (SentencePiece-style files: Gemma).
    SpaceToMeta,
}

/// How the normalized text reaches the model.
enum Pieces {
    /// Byte-level BPE: the pre-tokenizer's splitting steps, in order, then
    /// each piece's bytes as GPT-2's byte-level characters.
    ByteLevel {
        splits: Vec<PreTokenizer>,
        byte_chars: Box<[char; 256]>,
    },
    /// SentencePiece-style BPE (no pre-tokenizer: the whole text is one
    /// word). It is cut before each "▁" that follows another character,
    /// except after the characters some token joins to a following "▁":
    /// no token crosses such a cut, so no merge does, and the merges on
    /// each side are the ones the whole text gets. The cut pieces repeat,
    /// so the model's word cache serves most of them.
    Words { joined_before_meta: Vec<char> },
}

/// The count-only path of one Hugging Face `tokenizer.json`.
pub struct HfFast {
    norm: Norm,
    raw_added: Option<AddedSplit>,
    normalized_added: Option<AddedSplit>,
    pieces: Pieces,
}

const META: char = '\u{2581}';

impl HfFast {
    /// The count-only path for a tokenizer of this shape, or `None` when the
    /// file uses a step this path does not follow. `hf` is the tokenizer
    /// read from the same JSON (its normalizer normalizes the added tokens
    /// that match normalized text, as the library does).
    pub fn from_json(json: &Head, hf: &tokenizers::Tokenizer) -> Option<HfFast> {
        let null = Value::Null;
        let norm = match json.normalizer.as_ref().unwrap_or(&null) {
            Value::Null => Norm::Keep,
            n if n["type"] == "NFC" || n["type"] == "NFKC" => Norm::Unicode,
            n if n["type"] == "Sequence" && n["normalizers"].as_array()?.is_empty() => Norm::Keep,
            n if n["type"] == "Replace"
                && n["pattern"]["String"] == " "
                && n["content"] == META.to_string().as_str() =>
            {
                Norm::SpaceToMeta
            }
            _ => return None,
        };
        let model = &json.model;
        let empty = |v: &Value| v.is_null() || v.as_str() == Some("");
        let plain_bpe = model.kind == "BPE"
            && (model.dropout.is_null() || model.dropout.as_f64() == Some(0.0))
            && empty(&model.continuing_subword_prefix)
            && empty(&model.end_of_word_suffix);
        let byte_fallback = model.byte_fallback == true;
        let pre_tokenizer = json.pre_tokenizer.as_ref().unwrap_or(&null);
        if !plain_bpe {
            return None;
        }
        let pieces = match norm {
            Norm::SpaceToMeta => {
                // A split at spaces finds none once they are "▁".
                let pre = pre_tokenizer;
                let no_op =
                    pre.is_null() || (pre["type"] == "Split" && pre["pattern"]["String"] == " ");
                if !no_op {
                    return None;
                }
                // The model's own vocabulary (the file's, as the library read it).
                let vocab = hf.get_model().get_vocab();
                let mut joined: Vec<char> = Vec::new();
                for token in vocab.keys() {
                    let chars: Vec<char> = token.chars().collect();
                    for w in chars.windows(2) {
                        if w[1] == META && w[0] != META && !joined.contains(&w[0]) {
                            joined.push(w[0]);
                        }
                    }
                }
                Pieces::Words {
                    joined_before_meta: joined,
                }
            }
            _ if byte_fallback => return None,
            _ => Pieces::ByteLevel {
                splits: pre_tokenizer_splits(pre_tokenizer)?,
                byte_chars: Box::new(byte_chars()),
            },
        };
        let mut raw = Vec::new();
        let mut normalized = Vec::new();
        for t in json.added_tokens.as_array().map_or(&[][..], Vec::as_slice) {
            let content = t["content"].as_str()?;
            let special = t["special"].as_bool()?;
            let flag = |k: &str| t[k].as_bool().unwrap_or(false);
            if !special && (flag("single_word") || flag("lstrip") || flag("rstrip")) {
                return None;
            }
            if content.is_empty() {
                continue;
            }
            if flag("normalized") {
                let mut n = NormalizedString::from(content);
                if let Some(normalizer) = hf.get_normalizer() {
                    normalizer.normalize(&mut n).ok()?;
                }
                normalized.push((n.get().to_string(), special));
            } else {
                raw.push((content.to_string(), special));
            }
        }
        Some(HfFast {
            norm,
            raw_added: AddedSplit::new(raw),
            normalized_added: AddedSplit::new(normalized),
            pieces,
        })
    }

    /// The token count of `text` under `hf`, the tokenizer this path was
    /// built for.
    pub fn count(&self, hf: &tokenizers::Tokenizer, text: &str) -> usize {
        let mut total = 0;
        AddedSplit::split(self.raw_added.as_ref(), text, |piece, added| {
            if added {
                total += 1;
                return;
            }
            let normalized = self.normalize(hf, piece);
            AddedSplit::split(
                self.normalized_added.as_ref(),
                &normalized,
                |piece, added| {
                    total += match &self.pieces {
                        _ if added => 1,
                        Pieces::ByteLevel { .. } => self.count_pieces(hf, piece, 0),
                        Pieces::Words { joined_before_meta } => words(piece, joined_before_meta)
                            .map(|w| tokenize(hf, w))
                            .sum(),
                    };
                },
            );
        });
        total
    }

    fn normalize<'t>(&self, hf: &tokenizers::Tokenizer, text: &'t str) -> Cow<'t, str> {
        match self.norm {
            Norm::Keep => return Cow::Borrowed(text),
            Norm::SpaceToMeta => return Cow::Owned(text.replace(' ', "\u{2581}")),
            // NFC and NFKC leave ASCII as it is.
            Norm::Unicode if text.is_ascii() => return Cow::Borrowed(text),
            Norm::Unicode => {}
        }
        let mut n = NormalizedString::from(text);
        if let Some(normalizer) = hf.get_normalizer() {
            // Normalizing a string cannot fail for NFC and NFKC.
            let _ = normalizer.normalize(&mut n);
        }
        Cow::Owned(n.get().to_string())
    }

    /// Splits `text` with step `step` and the ones after it (each match and
    /// each stretch between matches is a piece), then merges each piece.
    fn count_pieces(&self, hf: &tokenizers::Tokenizer, text: &str, step: usize) -> usize {
        if text.is_empty() {
            return 0;
        }
        let Pieces::ByteLevel { splits, byte_chars } = &self.pieces else {
            return tokenize(hf, text);
        };
        let Some(split) = splits.get(step) else {
            let chars: String = text.bytes().map(|b| byte_chars[b as usize]).collect();
            return tokenize(hf, &chars);
        };
        let mut total = 0;
        let mut start = 0;
        for piece in split.pieces(text) {
            if start < piece.start {
                total += self.count_pieces(hf, &text[start..piece.start], step + 1);
            }
            total += self.count_pieces(hf, &text[piece.clone()], step + 1);
            start = piece.end;
        }
        if start < text.len() {
            total += self.count_pieces(hf, &text[start..], step + 1);
        }
        total
    }
}

/// The model's tokens for one piece (its merges, with its word cache).
fn tokenize(hf: &tokenizers::Tokenizer, piece: &str) -> usize {
    hf.get_model().tokenize(piece).map_or(0, |t| t.len())
}

/// `text` cut before each "▁" that follows a character other than "▁" and
/// those in `joined` (see [`Pieces::Words`]).
fn words<'t>(text: &'t str, joined: &'t [char]) -> impl Iterator<Item = &'t str> + 't {
    let mut start = 0;
    let mut prev: Option<char> = None;
    let mut cuts = text.char_indices().filter_map(move |(i, c)| {
        let cut = c == META && prev.is_some_and(|p| p != META && !joined.contains(&p));
        prev = Some(c);
        cut.then_some(i)
    });
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let end = match cuts.next() {
            Some(i) => i,
            None => {
                done = true;
                text.len()
            }
        };
        let word = &text[start..end];
        start = end;
        Some(word)
    })
}

/// The splitting steps of a pre-tokenizer made of isolated regex `Split`s
/// and a final byte-level step, or of one byte-level step with its own
/// pattern (GPT-2's, as `R50K_PATTERN`).
fn pre_tokenizer_splits(pre: &Value) -> Option<Vec<PreTokenizer>> {
    let byte_level = |p: &Value, last: bool| -> Option<Option<PreTokenizer>> {
        if p["type"] != "ByteLevel" || p["add_prefix_space"] != false || !last {
            return None;
        }
        // `use_regex` is on unless said otherwise.
        match p["use_regex"].as_bool().unwrap_or(true) {
            true => Some(Some(PreTokenizer::new(R50K_PATTERN).ok()?)),
            false => Some(None),
        }
    };
    let steps: Vec<&Value> = match pre["type"].as_str()? {
        "Sequence" => pre["pretokenizers"].as_array()?.iter().collect(),
        _ => vec![pre],
    };
    let mut splits = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let last = i + 1 == steps.len();
        if step["type"] == "Split" {
            let isolated = step["behavior"] == "Isolated" && step["invert"] == false;
            let pattern = step["pattern"]["Regex"].as_str();
            splits.push(PreTokenizer::new(pattern.filter(|_| isolated)?).ok()?);
        } else {
            splits.extend(byte_level(step, last)?);
        }
    }
    // The byte-level step must be there (it was the last one).
    (steps.last()?["type"] == "ByteLevel").then_some(splits)
}

/// GPT-2's byte-level alphabet: printable Latin-1 bytes stand for
/// themselves, the others for the characters from U+0100 on, in order.
fn byte_chars() -> [char; 256] {
    let mut chars = ['\0'; 256];
    let mut next = 256u32;
    for (b, c) in chars.iter_mut().enumerate() {
        let printable = matches!(b, 0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF);
        let code = if printable {
            b as u32
        } else {
            next += 1;
            next - 1
        };
        *c = char::from_u32(code).unwrap_or('\0');
    }
    chars
}
