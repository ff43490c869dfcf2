//! SentencePiece BPE models (`.model` files): Mistral v1/v3/v7, NovelAI's
//! NerdStash, Llama 2 and any other BPE model with the identity normalizer.
//!
//! The file is a protobuf `ModelProto`; this module reads the few fields
//! counting needs and encodes as SentencePiece's own BPE does: the
//! normalized text (spaces as "▁", an optional dummy prefix) is split into
//! characters, a user-defined piece being matched whole and never merged;
//! then the adjacent pair whose joined piece has the highest score merges,
//! the leftmost first on equal scores, until no joined pair is a piece. A
//! symbol left that is no piece counts one token per byte with byte
//! fallback, or one unknown token without it.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

/// Piece types of `ModelProto.SentencePiece.Type`.
const NORMAL: u64 = 1;
const USER_DEFINED: u64 = 4;
const UNUSED: u64 = 5;

/// `TrainerSpec.ModelType`.
const MODEL_BPE: u64 = 2;

const SPACE: char = '\u{2581}';

/// A SentencePiece BPE model ready to count.
#[derive(Debug)]
pub struct SentencePiece {
    /// Pieces that can be produced by merging (normal, user-defined and
    /// unused ones) with their scores.
    scores: HashMap<String, f32>,
    /// User-defined pieces, matched whole in the text.
    user_defined: Vec<String>,
    longest_user_defined: usize,
    byte_fallback: bool,
    add_dummy_prefix: bool,
    remove_extra_whitespaces: bool,
    escape_whitespaces: bool,
    /// Whether no piece continues a word into the next "▁": then the text
    /// can be encoded word by word with the same result, each distinct word
    /// once.
    split_at_spaces: bool,
}

impl SentencePiece {
    /// Parses a serialized `ModelProto`.
    pub fn from_bytes(bytes: &[u8]) -> Result<SentencePiece, String> {
        let mut scores = HashMap::new();
        let mut user_defined = Vec::new();
        let mut model_type = 1; // the proto's default: unigram
        let mut byte_fallback = false;
        let mut add_dummy_prefix = true;
        let mut remove_extra_whitespaces = true;
        let mut escape_whitespaces = true;
        let mut charsmap_len = 0;
        let mut pieces = 0usize;
        let mut trainer_seen = false;
        for field in Fields::new(bytes) {
            let (number, value) = field?;
            match (number, value) {
                (1, Value::Bytes(piece_bytes)) => {
                    pieces += 1;
                    let (piece, score, kind) = piece_entry(piece_bytes)?;
                    if matches!(kind, NORMAL | USER_DEFINED | UNUSED) {
                        if kind == USER_DEFINED {
                            user_defined.push(piece.clone());
                        }
                        scores.entry(piece).or_insert(score);
                    }
                }
                (2, Value::Bytes(trainer)) => {
                    trainer_seen = true;
                    for field in Fields::new(trainer) {
                        match field? {
                            (3, Value::Varint(v)) => model_type = v,
                            (35, Value::Varint(v)) => byte_fallback = v != 0,
                            (24, Value::Varint(v)) if v != 0 => {
                                return Err("a SentencePiece model that puts \"▁\" after words \
                                            (treat_whitespace_as_suffix) is not supported"
                                    .into())
                            }
                            _ => {}
                        }
                    }
                }
                (3, Value::Bytes(normalizer)) => {
                    for field in Fields::new(normalizer) {
                        match field? {
                            (2, Value::Bytes(map)) => charsmap_len = map.len(),
                            (3, Value::Varint(v)) => add_dummy_prefix = v != 0,
                            (4, Value::Varint(v)) => remove_extra_whitespaces = v != 0,
                            (5, Value::Varint(v)) => escape_whitespaces = v != 0,
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        if pieces == 0 || !trainer_seen {
            return Err("not a SentencePiece model (no pieces or no trainer spec)".into());
        }
        if model_type != MODEL_BPE {
            let kind = match model_type {
                1 => "unigram",
                3 => "word",
                4 => "char",
                _ => "unknown-type",
            };
            return Err(format!(
                "a SentencePiece {kind} model; only SentencePiece BPE models are supported \
                 (a Hugging Face tokenizer.json of the same model counts too)"
            ));
        }
        if charsmap_len > 0 {
            return Err(
                "a SentencePiece model with its own normalization rules \
                        (precompiled_charsmap); only models with the identity normalizer \
                        are supported (a Hugging Face tokenizer.json of the same model counts too)"
                    .into(),
            );
        }
        let split_at_spaces = scores.keys().all(|p| {
            let mut previous_is_space = true;
            p.chars().all(|c| {
                let ok = c != SPACE || previous_is_space;
                previous_is_space = c == SPACE;
                ok
            })
        });
        user_defined.sort_by_key(|p| std::cmp::Reverse(p.len()));
        let longest_user_defined = user_defined.first().map_or(0, String::len);
        Ok(SentencePiece {
            scores,
            user_defined,
            longest_user_defined,
            byte_fallback,
            add_dummy_prefix,
            remove_extra_whitespaces,
            escape_whitespaces,
            split_at_spaces,
        })
    }

    /// Counts tokens of plain text (no BOS/EOS; control-token text counts
    /// as ordinary characters, as SentencePiece never matches it in text).
    pub fn count(&self, text: &str) -> u32 {
        let normalized = self.normalize(text);
        if normalized.is_empty() {
            return 0;
        }
        let total: usize = if self.split_at_spaces {
            let mut seen: HashMap<&str, usize> = HashMap::new();
            words(&normalized)
                .map(|w| *seen.entry(w).or_insert_with(|| self.encode_count(w)))
                .sum()
        } else {
            self.encode_count(&normalized)
        };
        u32::try_from(total).unwrap_or(u32::MAX)
    }

    /// SentencePiece's normalization with the identity rules: extra spaces
    /// dropped when the model says so, the dummy prefix, spaces as "▁".
    fn normalize(&self, text: &str) -> String {
        let mut input = text;
        if self.remove_extra_whitespaces {
            input = input.trim_matches(' ');
        }
        if input.is_empty() {
            return String::new();
        }
        let space = if self.escape_whitespaces { SPACE } else { ' ' };
        let mut out = String::with_capacity(input.len() + 3);
        if self.add_dummy_prefix {
            out.push(space);
        }
        let mut previous_space = false;
        for c in input.chars() {
            if c == ' ' {
                if self.remove_extra_whitespaces && previous_space {
                    continue;
                }
                out.push(space);
                previous_space = true;
            } else {
                out.push(c);
                previous_space = false;
            }
        }
        out
    }

    /// The length of the longest user-defined piece at the start of `s`.
    fn user_defined_at(&self, s: &str) -> Option<usize> {
        if self.longest_user_defined == 0 {
            return None;
        }
        self.user_defined
            .iter()
            .find(|p| s.starts_with(p.as_str()))
            .map(String::len)
    }

    /// SentencePiece's BPE on one normalized text: the number of tokens.
    fn encode_count(&self, s: &str) -> usize {
        struct Symbol {
            start: usize,
            len: usize,
            prev: Option<usize>,
            next: Option<usize>,
            frozen: bool,
        }
        let mut symbols: Vec<Symbol> = Vec::with_capacity(s.len());
        let mut pos = 0;
        while pos < s.len() {
            let rest = &s[pos..];
            let (len, frozen) = match self.user_defined_at(rest) {
                Some(len) => (len, true),
                None => (rest.chars().next().map_or(1, char::len_utf8), false),
            };
            let index = symbols.len();
            symbols.push(Symbol {
                start: pos,
                len,
                prev: index.checked_sub(1),
                next: None,
                frozen,
            });
            if index > 0 {
                symbols[index - 1].next = Some(index);
            }
            pos += len;
        }
        let mut agenda = BinaryHeap::new();
        let push =
            |agenda: &mut BinaryHeap<Pair>, symbols: &[Symbol], left: usize, right: usize| {
                let (l, r) = (&symbols[left], &symbols[right]);
                if l.frozen || r.frozen {
                    return;
                }
                let size = l.len + r.len;
                if let Some(score) = self.scores.get(&s[l.start..l.start + size]) {
                    agenda.push(Pair {
                        score: *score,
                        left,
                        right,
                        size,
                    });
                }
            };
        for i in 1..symbols.len() {
            push(&mut agenda, &symbols, i - 1, i);
        }
        while let Some(top) = agenda.pop() {
            let (l, r) = (&symbols[top.left], &symbols[top.right]);
            if l.len == 0 || r.len == 0 || l.len + r.len != top.size || l.next != Some(top.right) {
                continue;
            }
            let right_next = r.next;
            symbols[top.left].len = top.size;
            symbols[top.left].next = right_next;
            if let Some(n) = right_next {
                symbols[n].prev = Some(top.left);
            }
            symbols[top.right].len = 0;
            if let Some(p) = symbols[top.left].prev {
                push(&mut agenda, &symbols, p, top.left);
            }
            if let Some(n) = right_next {
                push(&mut agenda, &symbols, top.left, n);
            }
        }
        symbols
            .iter()
            .filter(|sym| sym.len > 0)
            .map(|sym| {
                let piece = &s[sym.start..sym.start + sym.len];
                if sym.frozen || self.scores.contains_key(piece) || !self.byte_fallback {
                    1
                } else {
                    piece.len()
                }
            })
            .sum()
    }
}

/// The words of a normalized text: each starts where a "▁" follows
/// something else.
fn words(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = s;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut previous_is_space = true;
        let mut cut = rest.len();
        for (i, c) in rest.char_indices() {
            if c == SPACE && !previous_is_space && i > 0 {
                cut = i;
                break;
            }
            previous_is_space = c == SPACE;
        }
        let (word, tail) = rest.split_at(cut);
        rest = tail;
        Some(word)
    })
}

/// A candidate merge: the highest score first, then the leftmost.
struct Pair {
    score: f32,
    left: usize,
    right: usize,
    size: usize,
}

impl PartialEq for Pair {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Pair {}
impl PartialOrd for Pair {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pair {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then_with(|| other.left.cmp(&self.left))
    }
}

fn piece_entry(bytes: &[u8]) -> Result<(String, f32, u64), String> {
    let mut piece = None;
    let mut score = 0.0;
    let mut kind = NORMAL;
    for field in Fields::new(bytes) {
        match field? {
            (1, Value::Bytes(p)) => {
                piece = Some(
                    String::from_utf8(p.to_vec())
                        .map_err(|_| "a SentencePiece piece is not UTF-8".to_string())?,
                );
            }
            (2, Value::Fixed32(bits)) => score = f32::from_bits(bits),
            (3, Value::Varint(v)) => kind = v,
            _ => {}
        }
    }
    let piece = piece.ok_or("a SentencePiece piece has no text")?;
    Ok((piece, score, kind))
}

/// One protobuf field value.
enum Value<'a> {
    Varint(u64),
    Fixed32(u32),
    Fixed64,
    Bytes(&'a [u8]),
}

/// The fields of a protobuf message, in order.
struct Fields<'a> {
    rest: &'a [u8],
    failed: bool,
}

impl<'a> Fields<'a> {
    fn new(bytes: &'a [u8]) -> Fields<'a> {
        Fields {
            rest: bytes,
            failed: false,
        }
    }

    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = self.rest.split_first()?;
            self.rest = rest;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.rest.len() < n {
            return None;
        }
        let (head, rest) = self.rest.split_at(n);
        self.rest = rest;
        Some(head)
    }

    fn field(&mut self) -> Option<(u32, Value<'a>)> {
        let key = self.varint()?;
        let number = u32::try_from(key >> 3).ok()?;
        let value = match key & 7 {
            0 => Value::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Value::Fixed64
            }
            2 => {
                let len = usize::try_from(self.varint()?).ok()?;
                Value::Bytes(self.take(len)?)
            }
            5 => {
                let b = self.take(4)?;
                Value::Fixed32(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            _ => return None,
        };
        Some((number, value))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u32, Value<'a>), String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.rest.is_empty() {
            return None;
        }
        match self.field() {
            Some(f) => Some(Ok(f)),
            None => {
                self.failed = true;
                Some(Err(
                    "not a SentencePiece model (the protobuf data is cut short \
                          or malformed)"
                        .into(),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Serializes a tiny BPE model: pieces with scores and types.
    fn model(pieces: &[(&str, f32, u64)], byte_fallback: bool, dummy_prefix: bool) -> Vec<u8> {
        fn bytes_field(out: &mut Vec<u8>, number: u8, data: &[u8]) {
            out.push(number << 3 | 2);
            out.push(u8::try_from(data.len()).unwrap());
            out.extend_from_slice(data);
        }
        let mut out = Vec::new();
        for (piece, score, kind) in pieces {
            let mut p = Vec::new();
            bytes_field(&mut p, 1, piece.as_bytes());
            p.push(2 << 3 | 5);
            p.extend_from_slice(&score.to_le_bytes());
            p.extend_from_slice(&[3 << 3, u8::try_from(*kind).unwrap()]);
            bytes_field(&mut out, 1, &p);
        }
        // trainer_spec: model_type = BPE; byte_fallback (field 35).
        let mut trainer = vec![3 << 3, 2];
        trainer.extend_from_slice(&[0x98, 0x02, u8::from(byte_fallback)]);
        bytes_field(&mut out, 2, &trainer);
        bytes_field(&mut out, 3, &[3 << 3, u8::from(dummy_prefix), 4 << 3, 0]);
        out
    }

    #[test]
    fn merges_by_score_and_falls_back_to_bytes() {
        let m = model(
            &[
                ("▁", -1.0, NORMAL),
                ("a", -1.0, NORMAL),
                ("b", -1.0, NORMAL),
                ("ab", -2.0, NORMAL),
                ("▁ab", -3.0, NORMAL),
                ("<X>", 0.0, USER_DEFINED),
            ],
            true,
            true,
        );
        let sp = SentencePiece::from_bytes(&m).unwrap();
        assert_eq!(sp.count(""), 0);
        assert_eq!(sp.count("ab"), 1); // ▁ab
        assert_eq!(sp.count("ab ab"), 2);
        assert_eq!(sp.count("aab"), 3); // ▁ a ab
        assert_eq!(sp.count("é"), 1 + 2); // ▁ + two bytes
        assert_eq!(sp.count("a<X>b"), 4); // ▁ a <X> b: the user piece never merges
        let no_fallback = SentencePiece::from_bytes(&model(&[("a", 0.0, NORMAL)], false, false));
        assert_eq!(no_fallback.unwrap().count("éa"), 2);
    }

    #[test]
    fn malformed_models_are_refused() {
        assert!(SentencePiece::from_bytes(b"\x0a\xff").is_err());
        assert!(SentencePiece::from_bytes(b"").is_err());
        let mut unigram = model(&[("a", 0.0, NORMAL)], false, false);
        let at = unigram
            .windows(4)
            .position(|w| w == [2 << 3 | 2, 5, 3 << 3, 2])
            .unwrap();
        unigram[at + 3] = 1;
        let e = SentencePiece::from_bytes(&unigram).unwrap_err();
        assert!(e.contains("unigram"), "{e}");
    }
}
