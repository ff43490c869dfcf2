//! CHARX character cards: a ZIP archive with the v3 card in `card.json`
//! (assets beside it). Import reads the book out of `card.json` exactly as
//! for a JSON card ([`super::card`]); the assets are not part of a book and
//! are not read (the report says so).
//!
//! Export writes a book into an existing CHARX ([`export_into`]): the card
//! in `card.json` gets the book (its other fields as they were), and every
//! other file of the archive is copied as it is stored, compressed bytes,
//! names and order unchanged, so a card's assets and a RisuAI module's own
//! `module.risum` (RisuAI's `.module.charx`, June 2026) are kept byte for
//! byte. [`export_new`] writes a CHARX holding only `card.json`.
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
use super::error::{ExportError, ImportError};
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
pub(crate) fn read_file(zip: &[u8], wanted: &str) -> Result<Option<Vec<u8>>, ImportError> {
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

/// The names of the files an archive lists (at most
/// [`MAX_CHARX_ENTRIES`]).
pub(crate) fn names(zip: &[u8]) -> Result<Vec<String>, ImportError> {
    if central_records(zip, MAX_CHARX_ENTRIES) > MAX_CHARX_ENTRIES {
        return Err(bad(format!(
            "the archive lists more than {MAX_CHARX_ENTRIES} files; such archives are refused"
        )));
    }
    let archive = ZipArchive::new(Cursor::new(zip))
        .map_err(|e| bad(format!("not a readable ZIP archive: {e}")))?;
    Ok(archive.file_names().map(str::to_string).collect())
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

fn bad_archive(message: impl Into<String>) -> ExportError {
    ExportError::BadCardChunk {
        chunk: "card.json".into(),
        message: message.into(),
    }
}

/// The card JSON as SillyTavern and RisuAI write it (two spaces).
fn card_bytes(card: &serde_json::Map<String, Value>) -> Vec<u8> {
    serde_json::to_vec_pretty(card).expect("a JSON object serialises")
}

/// Writes `book` into the CHARX archive `zip` (always a v3 card, as CHARX
/// holds): `card.json` replaced in its place, every other file copied as
/// stored.
pub fn export_into(book: &Book, zip: &[u8], report: &mut Report) -> Result<Vec<u8>, ExportError> {
    let json = read_file(zip, "card.json")
        .map_err(|e| bad_archive(e.to_string()))?
        .ok_or_else(|| bad_archive("the archive has no card.json"))?;
    let card_obj = match parse_json(&json) {
        Ok(Value::Object(o)) => o,
        Ok(_) => return Err(bad_archive("card.json is not a JSON object")),
        Err(e) => return Err(bad_archive(format!("card.json is malformed JSON: {e}"))),
    };
    let card_out = card::card_with_book(card_obj, book, card::Version::V3, report);
    let new_card = card_bytes(&card_out);
    let mut archive = ZipArchive::new(Cursor::new(zip))
        .map_err(|e| bad_archive(format!("not a readable ZIP archive: {e}")))?;
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::with_capacity(zip.len() + new_card.len())));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    for i in 0..archive.len() {
        let file = archive
            .by_index_raw(i)
            .map_err(|e| bad_archive(format!("damaged entry {i}: {e}")))?;
        if file.name() == "module.risum" {
            report.book.lose("module.risum", Note::RisuModuleKept);
        }
        if file.name() == "card.json" {
            drop(file);
            out.start_file("card.json", options)
                .map_err(|e| bad_archive(e.to_string()))?;
            std::io::Write::write_all(&mut out, &new_card)
                .map_err(|e| bad_archive(e.to_string()))?;
        } else {
            out.raw_copy_file(file)
                .map_err(|e| bad_archive(format!("cannot copy an entry: {e}")))?;
        }
    }
    let bytes = out
        .finish()
        .map_err(|e| bad_archive(e.to_string()))?
        .into_inner();
    Ok(bytes)
}

/// A CHARX archive holding only `card.json`: the book's card (a minimal
/// one when the book came from no card).
pub fn export_new(book: &Book, report: &mut Report) -> Result<Vec<u8>, ExportError> {
    let card_out = match card::export_card(book, card::Version::V3, report) {
        Value::Object(o) => o,
        _ => return Err(bad_archive("the card is not a JSON object")),
    };
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    out.start_file("card.json", options)
        .map_err(|e| bad_archive(e.to_string()))?;
    std::io::Write::write_all(&mut out, &card_bytes(&card_out))
        .map_err(|e| bad_archive(e.to_string()))?;
    Ok(out
        .finish()
        .map_err(|e| bad_archive(e.to_string()))?
        .into_inner())
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

    /// A CHARX as RisuAI writes a module (`.module.charx`): the card, an
    /// asset stored, the module's own data deflated, and a folder entry.
    fn module_charx() -> Vec<u8> {
        let card = serde_json::json!({
            "spec": "chara_card_v3", "spec_version": "3.0",
            "data": {
                "name": "Harbor module", "description": "", "personality": "", "scenario": "",
                "first_mes": "", "mes_example": "", "creator_notes": "A module.", "system_prompt": "",
                "post_history_instructions": "", "alternate_greetings": [], "tags": [], "creator": "",
                "character_version": "", "extensions": {"risuai": {"moduleNoneImage": true}, "kept": [1, 2]},
                "character_book": {"name": "Harbor", "extensions": {}, "entries": [
                    {"keys": ["harbor"], "content": "Ships moor here.", "extensions": {}, "enabled": true,
                     "insertion_order": 100, "use_regex": false, "id": 0, "comment": "Harbor"}
                ]}
            }
        });
        let mut w = ZipWriter::new(Cursor::new(Vec::new()));
        let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
        let deflated = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
        w.add_directory("assets/", stored).unwrap();
        w.start_file("assets/icon/image.png", stored).unwrap();
        w.write_all(b"\x89PNG\r\n\x1a\n not really an image")
            .unwrap();
        w.start_file("card.json", deflated).unwrap();
        w.write_all(serde_json::to_string(&card).unwrap().as_bytes())
            .unwrap();
        w.start_file("module.risum", deflated).unwrap();
        w.write_all(&[111, 0, 3, 0, 0, 0, 9, 8, 7, 1, 0]).unwrap();
        w.finish().unwrap().into_inner()
    }

    /// Every entry but `card.json`: name and raw (stored) bytes, in order.
    fn raw_entries(zip: &[u8]) -> Vec<(String, Vec<u8>, u32)> {
        let mut a = ZipArchive::new(Cursor::new(zip)).unwrap();
        (0..a.len())
            .map(|i| {
                let mut f = a.by_index_raw(i).unwrap();
                let name = f.name().to_string();
                let crc = f.crc32();
                let mut raw = Vec::new();
                f.read_to_end(&mut raw).unwrap();
                (name, raw, crc)
            })
            .collect()
    }

    #[test]
    fn export_into_keeps_every_other_file_byte_for_byte_and_the_cards_other_fields() {
        let original = module_charx();
        let mut report = Report::new(crate::formats::report::Direction::Import, "CHARX");
        let mut book = import(&original, &mut report).unwrap();
        book.entries[0].content = "Ships moor here. Gulls cry.".into();
        let mut out_report = Report::new(crate::formats::report::Direction::Export, "CHARX");
        let written = export_into(&book, &original, &mut out_report).unwrap();
        assert!(
            out_report
                .to_string()
                .contains("RisuAI reads the lorebook from it"),
            "the module's own lorebook is said: {out_report}"
        );
        let before = raw_entries(&original);
        let after = raw_entries(&written);
        assert_eq!(
            before.iter().map(|e| &e.0).collect::<Vec<_>>(),
            after.iter().map(|e| &e.0).collect::<Vec<_>>(),
            "same files, same order"
        );
        for (b, a) in before.iter().zip(&after) {
            if b.0 != "card.json" {
                assert_eq!(b, a, "{} kept as stored", b.0);
            }
        }
        let card: Value =
            serde_json::from_slice(&read_file(&written, "card.json").unwrap().unwrap()).unwrap();
        assert_eq!(
            card["data"]["extensions"]["kept"],
            serde_json::json!([1, 2])
        );
        assert_eq!(card["data"]["creator_notes"], "A module.");
        let mut again = Report::new(crate::formats::report::Direction::Import, "CHARX");
        let back = import(&written, &mut again).unwrap();
        assert_eq!(back.entries[0].content, "Ships moor here. Gulls cry.");
        assert_eq!(back.entries.len(), book.entries.len());
    }

    #[test]
    fn export_into_refuses_an_archive_without_a_card_and_export_new_reads_back() {
        let mut w = ZipWriter::new(Cursor::new(Vec::new()));
        w.start_file("other.txt", SimpleFileOptions::default())
            .unwrap();
        w.write_all(b"x").unwrap();
        let no_card = w.finish().unwrap().into_inner();
        let mut report = Report::new(crate::formats::report::Direction::Export, "CHARX");
        let e = export_into(&Book::default(), &no_card, &mut report).unwrap_err();
        assert!(e.to_string().contains("no card.json"), "{e}");
        let mut report = Report::new(crate::formats::report::Direction::Import, "CHARX");
        let book = import(&module_charx(), &mut report).unwrap();
        let mut out = Report::new(crate::formats::report::Direction::Export, "CHARX");
        let fresh = export_new(&book, &mut out).unwrap();
        assert_eq!(
            raw_entries(&fresh)
                .iter()
                .map(|e| e.0.as_str())
                .collect::<Vec<_>>(),
            ["card.json"]
        );
        let mut again = Report::new(crate::formats::report::Direction::Import, "CHARX");
        let back = import(&fresh, &mut again).unwrap();
        assert_eq!(back.entries[0].content, book.entries[0].content);
        assert_eq!(back.entries[0].keys, book.entries[0].keys);
    }
}
