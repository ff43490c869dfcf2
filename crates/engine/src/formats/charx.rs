//! CHARX character cards: a ZIP archive with the v3 card in `card.json`
//! (assets beside it). Import reads the book out of `card.json` exactly as
//! for a JSON card ([`super::card`]); the assets are not part of a book and
//! are not read (the report says so).
//!
//! The archive is read with the `zip` crate (stored and deflate entries).
//! Only `card.json` is inflated, and never past `MAX_CARD_BYTES`: the cap
//! counts the bytes actually inflated, not the size the archive declares,
//! so a hostile archive cannot exhaust memory. Encrypted entries and other
//! compression methods are refused with a clear message.

use std::io::{Cursor, Read};

use serde_json::Value;
use zip::{CompressionMethod, ZipArchive};

use super::card;
use super::error::ImportError;
use super::format::Format;
use super::json::parse_json;
use super::report::{Note, Report};
use crate::model::Book;

/// The first bytes of a ZIP archive (a local file header).
pub(crate) const SIGNATURE: &[u8] = b"PK\x03\x04";

/// The largest `card.json` accepted (uncompressed).
const MAX_CARD_BYTES: u64 = 64 * 1024 * 1024;

/// The most files an archive may list. The `zip` crate reads the whole
/// central directory into memory before any file can be found, some
/// hundreds of bytes a file: a 256 MiB archive of millions of empty
/// entries took gigabytes. A card has its `card.json` and its assets.
pub const MAX_CHARX_ENTRIES: usize = 65_535;

/// An upper bound on the files the central directory lists: each of its
/// records starts with this signature, so an archive holding it fewer
/// times cannot list more files. Counting stops past `cap`.
fn central_records(zip: &[u8], cap: usize) -> usize {
    let mut count = 0;
    let mut at = 0;
    while let Some(i) = zip[at..].iter().position(|&b| b == b'P') {
        at += i + 1;
        if zip[at..].starts_with(b"K\x01\x02") {
            count += 1;
            if count > cap {
                break;
            }
        }
    }
    count
}

fn bad(m: impl Into<String>) -> ImportError {
    ImportError::BadCharx(m.into())
}

/// Reads one file of the archive by name, inflating at most
/// [`MAX_CARD_BYTES`].
fn read_file(zip: &[u8], wanted: &str) -> Result<Option<Vec<u8>>, ImportError> {
    if central_records(zip, MAX_CHARX_ENTRIES) > MAX_CHARX_ENTRIES {
        return Err(bad(format!(
            "the archive lists more than {MAX_CHARX_ENTRIES} files; such archives are refused"
        )));
    }
    let mut archive = ZipArchive::new(Cursor::new(zip))
        .map_err(|e| bad(format!("not a readable ZIP archive: {e}")))?;
    let Some(index) = archive.index_for_name(wanted) else {
        return Ok(None);
    };
    let raw = archive
        .by_index_raw(index)
        .map_err(|e| bad(format!("damaged entry {wanted}: {e}")))?;
    if raw.encrypted() {
        return Err(bad(format!("{wanted} is encrypted")));
    }
    let method = raw.compression();
    if !matches!(
        method,
        CompressionMethod::Stored | CompressionMethod::Deflated
    ) {
        // The crate deprecates method numbers in favour of its constants,
        // but an unknown method can only be named by its number.
        #[allow(deprecated)]
        let number = method.to_u16();
        return Err(bad(format!(
            "{wanted} uses compression method {number}; only stored and deflate are supported"
        )));
    }
    drop(raw);
    let file = archive
        .by_index(index)
        .map_err(|e| bad(format!("damaged entry {wanted}: {e}")))?;
    let mut out = Vec::new();
    file.take(MAX_CARD_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| bad(format!("{wanted} cannot be inflated: {e}")))?;
    if out.len() as u64 > MAX_CARD_BYTES {
        return Err(bad(format!(
            "{wanted} is larger than {MAX_CARD_BYTES} bytes"
        )));
    }
    Ok(Some(out))
}

/// Reads the book out of a CHARX archive.
pub fn import(zip: &[u8], report: &mut Report) -> Result<Book, ImportError> {
    let json = read_file(zip, "card.json")?.ok_or_else(|| bad("the archive has no card.json"))?;
    let value = parse_json(&json).map_err(|e| match e.in_format(Format::Charx) {
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
    report.notes.push(Note::CharxAssets);
    card::book_of_card(card_obj, report)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use zip::write::SimpleFileOptions;
    use zip::ZipWriter;

    use super::*;

    /// An archive holding `card.json` deflated, and the offset of its
    /// central directory header.
    fn archive(card: &[u8]) -> (Vec<u8>, usize) {
        let mut w = ZipWriter::new(Cursor::new(Vec::new()));
        let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
        w.start_file("card.json", options).unwrap();
        w.write_all(card).unwrap();
        let bytes = w.finish().unwrap().into_inner();
        let cd = bytes.windows(4).position(|s| s == b"PK\x01\x02").unwrap();
        (bytes, cd)
    }

    fn message(zip: &[u8]) -> String {
        match read_file(zip, "card.json") {
            Err(e @ ImportError::BadCharx(_)) => e.to_string(),
            other => panic!("expected a CHARX error, got {other:?}"),
        }
    }

    #[test]
    fn card_json_is_capped_by_the_bytes_inflated() {
        let (small, _) = archive(b"{}");
        assert_eq!(read_file(&small, "card.json").unwrap().unwrap(), b"{}");
        let mut big = vec![b' '; MAX_CARD_BYTES as usize];
        let (just_under, _) = archive(&big);
        assert_eq!(
            read_file(&just_under, "card.json").unwrap().unwrap().len() as u64,
            MAX_CARD_BYTES
        );
        big.push(b' ');
        let (honest, cd) = archive(&big);
        assert!(message(&honest).contains("larger than"));
        // The same archive declaring a 10-byte card.json in its directory
        // is refused all the same, with no more than the cap inflated.
        let mut lying = honest;
        lying[cd + 24..cd + 28].copy_from_slice(&10u32.to_le_bytes());
        message(&lying);
    }

    #[test]
    fn encrypted_and_unknown_methods_are_refused() {
        let (zip, cd) = archive(b"{}");
        let mut encrypted = zip.clone();
        encrypted[cd + 8] |= 1;
        assert!(message(&encrypted).contains("card.json is encrypted"));
        let mut bzip2 = zip;
        bzip2[cd + 10..cd + 12].copy_from_slice(&12u16.to_le_bytes());
        assert!(message(&bzip2).contains("compression method 12"));
    }
}
