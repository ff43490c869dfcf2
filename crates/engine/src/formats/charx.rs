//! CHARX character cards: a ZIP archive with the v3 card in `card.json`
//! (assets beside it). Import reads the book out of `card.json` exactly as
//! for a JSON card ([`super::card`]); the assets are not part of a book and
//! are not read (the report says so).
//!
//! The ZIP reader is deliberately small: it reads the central directory,
//! finds `card.json` and inflates it (stored or deflate), with a size cap so
//! a hostile archive cannot exhaust memory. ZIP64 and encrypted archives are
//! refused with a clear message.

use std::io::Read;

use serde_json::Value;

use super::card;
use super::convert::{Format, ImportError};
use super::report::Report;
use crate::model::Book;

/// The largest `card.json` accepted (uncompressed).
const MAX_CARD_BYTES: u64 = 64 * 1024 * 1024;

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    b.get(at..at.checked_add(2)?)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at.checked_add(4)?)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn bad(m: impl Into<String>) -> ImportError {
    ImportError::BadCharx(m.into())
}

/// Reads one file of the archive by name.
pub(crate) fn read_file(zip: &[u8], wanted: &str) -> Result<Option<Vec<u8>>, ImportError> {
    // End of central directory: the last "PK\x05\x06" within 64 KiB + 22.
    let min = zip.len().saturating_sub(65_535 + 22);
    let eocd = (min..zip.len().saturating_sub(21))
        .rev()
        .find(|&i| zip.get(i..i + 4) == Some(b"PK\x05\x06".as_slice()))
        .ok_or_else(|| bad("not a complete ZIP archive (no end of central directory)"))?;
    let count = u16_at(zip, eocd + 10).ok_or_else(|| bad("truncated directory"))? as usize;
    let cd_offset = u32_at(zip, eocd + 16).ok_or_else(|| bad("truncated directory"))?;
    if cd_offset == u32::MAX || count == u16::MAX as usize {
        return Err(bad("ZIP64 archives are not supported"));
    }
    let mut at = cd_offset as usize;
    for _ in 0..count {
        if u32_at(zip, at) != Some(0x0201_4b50) {
            return Err(bad("damaged central directory"));
        }
        let field = |off: usize| u16_at(zip, at + off).ok_or_else(|| bad("truncated directory"));
        let flags = field(8)?;
        let method = field(10)?;
        let csize = u32_at(zip, at + 20).ok_or_else(|| bad("truncated directory"))? as usize;
        let name_len = field(28)? as usize;
        let extra_len = field(30)? as usize;
        let comment_len = field(32)? as usize;
        let local = u32_at(zip, at + 42).ok_or_else(|| bad("truncated directory"))? as usize;
        let name = zip
            .get(at + 46..at + 46 + name_len)
            .ok_or_else(|| bad("truncated directory"))?;
        at += 46 + name_len + extra_len + comment_len;
        if name != wanted.as_bytes() {
            continue;
        }
        if flags & 1 != 0 {
            return Err(bad(format!("{wanted} is encrypted")));
        }
        if u32_at(zip, local) != Some(0x0403_4b50) {
            return Err(bad(format!("damaged local header of {wanted}")));
        }
        let lname = u16_at(zip, local + 26).ok_or_else(|| bad("truncated local header"))? as usize;
        let lextra = u16_at(zip, local + 28).ok_or_else(|| bad("truncated local header"))? as usize;
        let start = local + 30 + lname + lextra;
        let data = start
            .checked_add(csize)
            .and_then(|end| zip.get(start..end))
            .ok_or_else(|| bad(format!("{wanted} is cut short")))?;
        let mut out = Vec::new();
        match method {
            0 => out.extend_from_slice(data),
            8 => {
                flate2::read::DeflateDecoder::new(data)
                    .take(MAX_CARD_BYTES + 1)
                    .read_to_end(&mut out)
                    .map_err(|e| bad(format!("{wanted} cannot be inflated: {e}")))?;
            }
            m => {
                return Err(bad(format!(
                    "{wanted} uses compression method {m}; only stored and deflate are supported"
                )))
            }
        }
        if out.len() as u64 > MAX_CARD_BYTES {
            return Err(bad(format!(
                "{wanted} is larger than {MAX_CARD_BYTES} bytes"
            )));
        }
        return Ok(Some(out));
    }
    Ok(None)
}

/// Reads the book out of a CHARX archive.
pub fn import(zip: &[u8], report: &mut Report) -> Result<Book, ImportError> {
    let json = read_file(zip, "card.json")?.ok_or_else(|| bad("the archive has no card.json"))?;
    let value =
        super::parse_json(&json).map_err(|e| match ImportError::from_format(Format::Charx, e) {
            ImportError::Json {
                line,
                column,
                message,
            } => bad(format!(
                "card.json is malformed JSON at line {line}, column {column}: {message}"
            )),
            other => other,
        })?;
    let Value::Object(card_obj) = value else {
        return Err(bad("card.json is not a JSON object"));
    };
    report.notes.push(
        "book read from card.json; the archive's assets are not part of a book and were not read"
            .into(),
    );
    card::book_of_card(card_obj, report)
}
