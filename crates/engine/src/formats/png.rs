//! PNG character cards: the card is base64 JSON in a `tEXt` chunk named
//! `chara` (v2, sometimes holding a v3 card) or `ccv3` (v3).
//!
//! Import prefers `ccv3` and reads the book once even when both chunks
//! hold it; it falls back to `chara` when `ccv3` is unreadable or has no
//! book, and the report says so. The card's other fields are kept in
//! `wrapper_extra["character_card"]` as for a JSON card ([`super::card`]).
//!
//! Only `tEXt` chunks are read. The compressed text chunks (`zTXt`, and
//! `iTXt` with its compression flag) are never inflated — the card tools
//! write `tEXt` — so a small PNG cannot expand into a huge card; the card
//! text itself is bounded by the file cap (256 MiB) and the JSON caps of
//! [`super::json`].
//!
//! Export ([`export_into`]) rewrites the card chunks of an existing PNG and
//! copies every other chunk byte for byte, in order.

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::{DecodePaddingMode, Engine};
use serde_json::Value;

use super::card::{self, Version};
use super::error::{ExportError, ImportError};
use super::json::parse_json;
use super::report::{Note, Report};
use crate::model::{Book, Object};

/// The first eight bytes of every PNG file.
pub(crate) const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
/// The card chunk keywords, in order of preference.
const KEYWORDS: [&str; 2] = ["ccv3", "chara"];

/// Base64 that accepts input with or without padding.
const B64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// One chunk: its type and the byte range of the whole chunk (length,
/// type, data and CRC) in the file.
#[derive(Debug, Clone, Copy)]
struct Chunk<'a> {
    kind: &'a [u8],
    data: &'a [u8],
    whole: &'a [u8],
}

/// The chunks of a PNG, one at a time up to `IEND`, never collected: a
/// 256 MiB file of empty chunks holds 22 million of them, and a list of
/// them took gigabytes. Checked on creation: the signature and an `IHDR`
/// first.
struct Chunks<'a> {
    rest: &'a [u8],
    seen: usize,
    done: bool,
}

fn chunks(bytes: &[u8]) -> Result<Chunks<'_>, String> {
    let rest = bytes
        .strip_prefix(SIGNATURE)
        .ok_or_else(|| "no PNG signature".to_string())?;
    let all = Chunks {
        rest,
        seen: 0,
        done: false,
    };
    let mut peek = Chunks { ..all };
    match peek.next() {
        Some(Err(e)) => Err(e),
        Some(Ok(c)) if c.kind == b"IHDR" => Ok(all),
        _ => Err("the first chunk is not IHDR".into()),
    }
}

impl<'a> Iterator for Chunks<'a> {
    type Item = Result<Chunk<'a>, String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.rest.is_empty() {
            return None;
        }
        let item = self.chunk();
        self.done = !matches!(&item, Ok(c) if c.kind != b"IEND");
        Some(item)
    }
}

impl<'a> Chunks<'a> {
    fn chunk(&mut self) -> Result<Chunk<'a>, String> {
        let rest = self.rest;
        let header = rest
            .get(..8)
            .ok_or_else(|| format!("truncated chunk header after {} chunks", self.seen))?;
        let len = u32::from_be_bytes([header[0], header[1], header[2], header[3]]) as usize;
        let total = len
            .checked_add(12)
            .ok_or_else(|| "chunk length overflows".to_string())?;
        let whole = rest.get(..total).ok_or_else(|| {
            format!(
                "chunk {} declares {len} bytes but the file ends first",
                String::from_utf8_lossy(&header[4..8])
            )
        })?;
        self.rest = &rest[total..];
        self.seen += 1;
        Ok(Chunk {
            kind: &whole[4..8],
            data: &whole[8..8 + len],
            whole,
        })
    }
}

/// The keyword and text of a `tEXt` chunk.
fn text_chunk<'a>(c: &Chunk<'a>) -> Option<(&'a [u8], &'a [u8])> {
    if c.kind != b"tEXt" {
        return None;
    }
    let nul = c.data.iter().position(|b| *b == 0)?;
    Some((&c.data[..nul], &c.data[nul + 1..]))
}

fn is_keyword(k: &[u8], want: &str) -> bool {
    k.eq_ignore_ascii_case(want.as_bytes())
}

/// The card JSON of a chunk text.
fn decode_card(text: &[u8]) -> Result<Object, String> {
    let trimmed: Vec<u8> = text
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    let raw = B64
        .decode(&trimmed)
        .map_err(|e| format!("not base64 ({e})"))?;
    match parse_json(&raw) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err("the JSON is not an object".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// The card chunks present, decoded, in order of preference.
type Found = Vec<(&'static str, Result<Object, String>)>;

/// The text of each card chunk present, in order of preference (the first
/// chunk of each keyword), read in one pass over the chunks.
fn card_texts(bytes: &[u8]) -> Result<Vec<(&'static str, &[u8])>, String> {
    let mut first: [Option<&[u8]>; KEYWORDS.len()] = [None; KEYWORDS.len()];
    for chunk in chunks(bytes)? {
        let chunk = chunk?;
        if let Some((k, text)) = text_chunk(&chunk) {
            for (slot, kw) in first.iter_mut().zip(KEYWORDS) {
                if slot.is_none() && is_keyword(k, kw) {
                    *slot = Some(text);
                }
            }
        }
    }
    Ok(KEYWORDS
        .into_iter()
        .zip(first)
        .filter_map(|(kw, text)| Some((kw, text?)))
        .collect())
}

fn cards(bytes: &[u8]) -> Result<Found, ImportError> {
    let found: Found = card_texts(bytes)
        .map_err(ImportError::BadPng)?
        .into_iter()
        .map(|(kw, text)| (kw, decode_card(text)))
        .collect();
    if found.is_empty() {
        return Err(ImportError::PngWithoutCard);
    }
    Ok(found)
}

/// Checks that the PNG holds a card chunk.
pub(crate) fn find_card(bytes: &[u8]) -> Result<(), ImportError> {
    cards(bytes).map(|_| ())
}

fn has_book(card: &Object) -> bool {
    card.get("data")
        .and_then(|d| d.get("character_book"))
        .is_some_and(Value::is_object)
}

/// Reads the book out of a PNG card.
pub fn import(bytes: &[u8], report: &mut Report) -> Result<Book, ImportError> {
    let found = cards(bytes)?;
    let pick = found
        .iter()
        .position(|(_, c)| c.as_ref().is_ok_and(has_book))
        .or_else(|| found.iter().position(|(_, c)| c.is_ok()));
    let Some(i) = pick else {
        let (kw, e) = &found[0];
        return Err(ImportError::BadCardChunk {
            chunk: kw.to_string(),
            message: e.clone().err().unwrap_or_default(),
        });
    };
    for (j, (kw, c)) in found.iter().enumerate() {
        if j == i {
            continue;
        }
        match c {
            Err(e) => report.notes.push(Note::ChunkSkipped {
                chunk: kw.to_string(),
                error: e.clone(),
            }),
            Ok(_) => report.notes.push(Note::ChunkNotRead {
                chunk: kw.to_string(),
                used: found[i].0.to_string(),
            }),
        }
    }
    let (kw, card) = &found[i];
    let card = card.clone().unwrap_or_default();
    report.notes.push(Note::ReadFromChunk {
        chunk: kw.to_string(),
        spec: card.get("spec").and_then(Value::as_str).map(str::to_string),
    });
    card::book_of_card(card, report)
}

/// A chunk with its length and CRC (CRC-32 of the type and data, PNG §5.3).
fn chunk_bytes(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 12);
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32fast::hash(&out[4..]);
    out.extend_from_slice(&crc.to_be_bytes());
    out
}

/// A `tEXt` chunk: keyword, NUL, text.
fn text_chunk_bytes(keyword: &str, text: &[u8]) -> Vec<u8> {
    let mut data = Vec::with_capacity(keyword.len() + 1 + text.len());
    data.extend_from_slice(keyword.as_bytes());
    data.push(0);
    data.extend_from_slice(text);
    chunk_bytes(b"tEXt", &data)
}

fn encode_card(card: &Object) -> Vec<u8> {
    let json = serde_json::to_string(card).unwrap_or_default();
    B64.encode(json.as_bytes()).into_bytes()
}

/// Writes the book into the card chunks of `png` (see
/// [`super::export_into_card`]).
pub fn export_into(
    book: &Book,
    png: &[u8],
    want: Version,
    report: &mut Report,
) -> Result<Vec<u8>, ExportError> {
    let texts = card_texts(png).map_err(ExportError::BadPng)?;
    // (keyword, card, whether the chunk is added by this export)
    let mut existing: Vec<(&'static str, Object, bool)> = Vec::new();
    for (kw, text) in texts {
        let card = decode_card(text).map_err(|message| ExportError::BadCardChunk {
            chunk: kw.to_string(),
            message,
        })?;
        existing.push((kw, card, false));
    }
    if existing.is_empty() {
        return Err(ExportError::PngWithoutCard);
    }
    let wanted_kw = match want {
        Version::V2 => "chara",
        Version::V3 => "ccv3",
    };
    if !existing.iter().any(|(k, _, _)| *k == wanted_kw) {
        let template = existing[0].1.clone();
        report.notes.push(Note::ChunkAdded {
            chunk: wanted_kw.into(),
            from: existing[0].0.to_string(),
        });
        existing.push((wanted_kw, template, true));
    }
    let mut new_text: Vec<(&'static str, Vec<u8>)> = Vec::new();
    let mut first = true;
    for (kw, card_obj, added) in existing {
        // `chara` keeps the version it declares (some hold a v3 card);
        // an added chunk gets the version asked for.
        let version = match kw {
            "ccv3" => Version::V3,
            _ if added => want,
            _ => Version::of_card(&card_obj),
        };
        // Only the first card's report is kept: the chunks hold one book.
        let mut scratch = Report::new(report.direction, "");
        let target = if first { &mut *report } else { &mut scratch };
        first = false;
        let card_out = card::card_with_book(card_obj, book, version, target);
        new_text.push((kw, encode_card(&card_out)));
    }
    let mut out = Vec::with_capacity(png.len() + 1024);
    out.extend_from_slice(SIGNATURE);
    let mut written: Vec<&str> = Vec::new();
    let mut consumed = SIGNATURE.len();
    // Every chunk was read once already (`card_texts`): none fails now.
    for c in chunks(png).map_err(ExportError::BadPng)? {
        let c = c.map_err(ExportError::BadPng)?;
        consumed += c.whole.len();
        if c.kind == b"IEND" {
            for (kw, text) in &new_text {
                if !written.contains(kw) {
                    out.extend_from_slice(&text_chunk_bytes(kw, text));
                    written.push(kw);
                }
            }
        }
        let replaced = text_chunk(&c).and_then(|(k, _)| {
            new_text
                .iter()
                .find(|(kw, _)| is_keyword(k, kw))
                .map(|(kw, text)| (*kw, k, text))
        });
        match replaced {
            Some((kw, original_kw, text)) => {
                let kw_text = String::from_utf8_lossy(original_kw).into_owned();
                out.extend_from_slice(&text_chunk_bytes(&kw_text, text));
                if !written.contains(&kw) {
                    written.push(kw);
                }
            }
            None => out.extend_from_slice(c.whole),
        }
    }
    // Bytes after IEND (some tools append data) are kept too.
    out.extend_from_slice(png.get(consumed..).unwrap_or_default());
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A 1×1 PNG with the given extra text chunks before IEND.
    pub(crate) fn tiny_png(texts: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = SIGNATURE.to_vec();
        out.extend(chunk_bytes(
            b"IHDR",
            &[0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0],
        ));
        out.extend(chunk_bytes(b"IDAT", &[0x78, 0x9c, 0x63, 0, 0, 0, 1, 0, 1]));
        for (k, t) in texts {
            out.extend(text_chunk_bytes(k, t));
        }
        out.extend(chunk_bytes(b"IEND", &[]));
        out
    }

    #[test]
    fn compressed_text_chunks_are_never_inflated() {
        use flate2::{write::ZlibEncoder, Compression};
        use std::io::Write;
        // 64 MiB of base64-looking text deflated to some 64 KiB.
        let mut z = ZlibEncoder::new(Vec::new(), Compression::best());
        z.write_all(&vec![b'A'; 64 << 20]).unwrap();
        let deflated = z.finish().unwrap();
        let mut ztxt = b"chara\0\0".to_vec();
        ztxt.extend_from_slice(&deflated);
        let mut itxt = b"ccv3\0\x01\0\0\0".to_vec();
        itxt.extend_from_slice(&deflated);
        let mut png = tiny_png(&[]);
        let iend = png.len() - 12;
        let mut extra = chunk_bytes(b"zTXt", &ztxt);
        extra.extend(chunk_bytes(b"iTXt", &itxt));
        png.splice(iend..iend, extra);
        let start = std::time::Instant::now();
        assert!(matches!(cards(&png), Err(ImportError::PngWithoutCard)));
        assert!(start.elapsed() < std::time::Duration::from_millis(500));
    }

    #[test]
    fn truncated_and_foreign_pngs_are_errors() {
        let png = tiny_png(&[]);
        assert!(matches!(cards(&png), Err(ImportError::PngWithoutCard)));
        for cut in 8..png.len() - 1 {
            let _ = cards(&png[..cut]);
        }
        assert!(matches!(cards(&png[..20]), Err(ImportError::BadPng(_))));
        let bad = tiny_png(&[("chara", b"%%%")]);
        let mut r = Report::new(super::super::report::Direction::Import, "");
        assert!(matches!(
            import(&bad, &mut r),
            Err(ImportError::BadCardChunk { .. })
        ));
    }

    /// The CRCs are checked against values computed independently of
    /// this code: IEND's is printed in every PNG file, the other was
    /// computed with zlib's `crc32`.
    #[test]
    fn chunk_crcs_match_independent_values() {
        assert_eq!(
            chunk_bytes(b"IEND", &[]),
            [0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xAE, 0x42, 0x60, 0x82]
        );
        let c = text_chunk_bytes("chara", b"abc");
        assert_eq!(&c[..4], &[0, 0, 0, 9]);
        assert_eq!(&c[4..17], b"tEXtchara\0abc");
        assert_eq!(&c[17..], &[0x83, 0xDA, 0xA2, 0x2A]);
    }

    /// A chunk whose declared length is exactly what the file holds reads;
    /// one byte more is an error naming the chunk, not a read past the end.
    #[test]
    fn a_chunk_length_just_at_and_just_past_the_end_of_the_file() {
        let png = tiny_png(&[("chara", b"abc")]);
        fn all(bytes: &[u8]) -> Result<Vec<Chunk<'_>>, String> {
            chunks(bytes)?.collect()
        }
        assert!(all(&png).is_ok());
        let text = png
            .windows(4)
            .position(|w| w == b"tEXt")
            .expect("the text chunk")
            - 4;
        let declared = u32::from_be_bytes(png[text..text + 4].try_into().unwrap());
        // Cut the file right after the text chunk: its length fits exactly.
        let cut = &png[..text + 12 + declared as usize];
        assert!(all(cut).is_ok_and(|c| c.last().unwrap().kind == b"tEXt"));
        let mut longer = cut.to_vec();
        longer[text..text + 4].copy_from_slice(&(declared + 1).to_be_bytes());
        let err = all(&longer).unwrap_err();
        assert!(err.contains("tEXt declares"), "{err}");
    }
}
