//! Detection, import and export of every supported format, with reports.
//!
//! ```
//! use lorebook_engine::formats::{export, import, ExportFormat, Format};
//! let st = br#"{"entries": {"0": {"uid": 0, "key": ["sun"], "content": "Hot.",
//!     "comment": "Sun", "useProbability": true, "probability": 40}}}"#;
//! let imported = import(st).unwrap();
//! assert_eq!(imported.format, Format::SillyTavern);
//! assert_eq!(imported.book.entries[0].content, "@@probability 40\nHot.");
//! let (bytes, report) = export(&imported.book, ExportFormat::SillyTavern).unwrap();
//! let back: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
//! assert_eq!(back["entries"]["0"]["probability"], 40);
//! assert_eq!(back["entries"]["0"]["content"], "Hot.");
//! println!("{report}");
//! ```
//!
//! This module only dispatches, over `CODECS`: one row per format with
//! its detection, its reader and its writer; the mapping itself lives in
//! the format's own module. Adding a format is one new module, one row
//! here, and its variant with its names in [`Format`] (and
//! [`ExportFormat`] when it is written).
//!
//! Detection looks at the content, never at the file name: the binary
//! formats' signatures (PNG, ZIP) first, then the JSON formats' marker
//! fields (`spec`, `type: "risu"`, `lorebookVersion`,
//! `storyContainerVersion`, `kind: "memory"`, an `entries` object or
//! array), in table order. A `Detect::Fallback` claim counts only when
//! no row is `Detect::Sure` and the document has no `spec`.

use serde_json::Value;

use super::error::{ExportError, ImportError};
use super::format::{Detect, ExportFormat, Format};
use super::json::{parse_json, to_pretty, type_name};
use super::report::{Direction, Note, Report};
use super::{agnai, byaf, card, charx, marinara, native, novelai, png, risu, sillytavern};
use crate::model::{Book, Object};

/// How a format is recognised and read.
pub(crate) enum Reader {
    /// A binary file that starts with `signature`; `check` refuses one
    /// that has the signature but cannot be this format's.
    Binary {
        signature: &'static [u8],
        /// Whether a file with the signature is this format's (two ZIP
        /// formats share one signature); the first row that claims it
        /// reads it.
        claims: fn(&[u8]) -> bool,
        check: fn(&[u8]) -> Result<(), ImportError>,
        read: fn(&[u8], &mut Report) -> Result<Book, ImportError>,
    },
    /// A JSON document recognised by its top-level object.
    Json {
        detect: fn(&Object) -> Detect,
        read: fn(Value, &mut Report) -> Result<Book, ImportError>,
    },
}

/// One format: how it is recognised and read, and how a book is written
/// in it (`None` for the formats only read: a card image or archive is
/// written with [`export_into_card`] or as card JSON).
pub(crate) struct Codec {
    pub format: Format,
    pub reader: Reader,
    pub write: Option<fn(&Book, &mut Report) -> Value>,
}

/// Every format. The order of the JSON rows is the detection order.
pub(crate) const CODECS: &[Codec] = &[
    Codec {
        format: Format::PngCard,
        reader: Reader::Binary {
            signature: png::SIGNATURE,
            claims: |_| true,
            check: png::find_card,
            read: png::import,
        },
        write: None,
    },
    Codec {
        format: Format::Byaf,
        reader: Reader::Binary {
            signature: charx::SIGNATURE,
            claims: byaf::claims,
            check: |_| Ok(()),
            read: byaf::import,
        },
        write: None,
    },
    Codec {
        format: Format::Charx,
        reader: Reader::Binary {
            signature: charx::SIGNATURE,
            claims: |_| true,
            check: |_| Ok(()),
            read: charx::import,
        },
        write: None,
    },
    Codec {
        format: Format::Native,
        reader: Reader::Json {
            detect: native::detect,
            read: native::import_value,
        },
        write: Some(native::export_value),
    },
    Codec {
        format: Format::CardV2,
        reader: Reader::Json {
            detect: card::detect_v2,
            read: card::import_card,
        },
        write: Some(card::export_card_v2),
    },
    Codec {
        format: Format::CardV3,
        reader: Reader::Json {
            detect: card::detect_v3,
            read: card::import_card,
        },
        write: Some(card::export_card_v3),
    },
    Codec {
        format: Format::Risu,
        reader: Reader::Json {
            detect: risu::detect,
            read: risu::import_value,
        },
        write: Some(risu::export_value),
    },
    Codec {
        format: Format::NovelAi,
        reader: Reader::Json {
            detect: novelai::detect,
            read: novelai::import_value,
        },
        write: Some(novelai::export_value),
    },
    Codec {
        format: Format::Marinara,
        reader: Reader::Json {
            detect: marinara::detect,
            read: marinara::import_value,
        },
        write: Some(marinara::export_value),
    },
    Codec {
        format: Format::Agnai,
        reader: Reader::Json {
            detect: agnai::detect,
            read: agnai::import_value,
        },
        write: Some(agnai::export_value),
    },
    Codec {
        format: Format::SillyTavern,
        reader: Reader::Json {
            detect: sillytavern::detect,
            read: sillytavern::import_value,
        },
        write: Some(sillytavern::export_value),
    },
    Codec {
        format: Format::CharacterBook,
        reader: Reader::Json {
            detect: card::detect_bare_book,
            read: card::import_bare_book,
        },
        write: Some(card::export_bare_book),
    },
];

fn codec(format: Format) -> Option<&'static Codec> {
    CODECS.iter().find(|c| c.format == format)
}

/// The binary codec whose signature starts `bytes`.
fn binary(bytes: &[u8]) -> Option<(&'static Codec, &'static Reader)> {
    CODECS.iter().find_map(|c| match &c.reader {
        r @ Reader::Binary {
            signature, claims, ..
        } if bytes.starts_with(signature) && claims(bytes) => Some((c, r)),
        _ => None,
    })
}

/// The result of [`import`].
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub format: Format,
    pub book: Book,
    pub report: Report,
}

/// What the bytes are, decided from their content.
pub fn detect(bytes: &[u8]) -> Result<Format, ImportError> {
    if let Some((c, Reader::Binary { check, .. })) = binary(bytes) {
        check(bytes)?;
        return Ok(c.format);
    }
    let value = parse(bytes)?;
    detect_value(&value)
}

fn parse(bytes: &[u8]) -> Result<Value, ImportError> {
    if std::str::from_utf8(bytes).is_err() {
        return Err(ImportError::UnknownFormat {
            found: "binary data that is not a PNG or a ZIP".into(),
        });
    }
    parse_json(bytes).map_err(|e| e.in_format(Format::Native))
}

/// The first JSON codec that claims `top` with `claim`.
fn claimed(top: &Object, claim: Detect) -> Option<Format> {
    CODECS.iter().find_map(|c| match c.reader {
        Reader::Json { detect, .. } if detect(top) == claim => Some(c.format),
        _ => None,
    })
}

/// The format of a parsed JSON document.
pub fn detect_value(value: &Value) -> Result<Format, ImportError> {
    let Value::Object(top) = value else {
        return Err(ImportError::UnknownFormat {
            found: format!(
                "JSON whose top level is {}, not an object",
                type_name(value)
            ),
        });
    };
    if let Some(format) = claimed(top, Detect::Sure) {
        return Ok(format);
    }
    if let Some(spec) = top.get("spec") {
        return Err(ImportError::UnknownFormat {
            found: format!("JSON with an unknown \"spec\": {spec}"),
        });
    }
    if let Some(format) = claimed(top, Detect::Fallback) {
        return Ok(format);
    }
    if top.contains_key("first_mes") || top.contains_key("char_name") {
        return Err(ImportError::CardWithoutBook {
            spec: "character card v1".into(),
        });
    }
    let found = if top.contains_key("worldinfo") && top.contains_key("actions") {
        "a KoboldAI saved story, whose world info is not a supported lorebook format".to_string()
    } else {
        let keys: Vec<&str> = top.keys().take(6).map(String::as_str).collect();
        format!("a JSON object with fields {}", keys.join(", "))
    };
    Err(ImportError::UnknownFormat { found })
}

/// Reads a book from any supported format, with the report of what was
/// carried. Never panics; every problem is an [`ImportError`].
pub fn import(bytes: &[u8]) -> Result<Imported, ImportError> {
    if let Some((c, Reader::Binary { read, .. })) = binary(bytes) {
        let mut report = Report::new(Direction::Import, c.format.name());
        let book = read(bytes, &mut report)?;
        return Ok(Imported {
            format: c.format,
            book,
            report,
        }
        .with_folders());
    }
    // A JSON file is parsed once, a native file's entries streamed; what
    // that reading is not sure of is read the ordinary way (same book,
    // same errors).
    if let Some(read) = import_streamed(bytes) {
        return read.map(Imported::with_folders);
    }
    let value = parse(bytes)?;
    import_value(value)
}

/// A JSON file read once ([`super::native_stream::read`]): a document
/// without `data.entries` is imported whatever its format; a native one
/// with its entries as they were streamed; anything else (and a native
/// document its streamed entries do not fit) is left to the ordinary
/// reading, `None`.
pub(crate) fn import_streamed(bytes: &[u8]) -> Option<Result<Imported, ImportError>> {
    let (top, entries) = super::native_stream::read(bytes)?;
    let Some(entries) = entries else {
        // Nothing was streamed: this is the ordinary reading's document.
        return Some(import_value(top));
    };
    if detect_value(&top).ok()? != Format::Native {
        return None;
    }
    let mut report = Report::new(Direction::Import, Format::Native.name());
    let book = super::native::import_value_with(top, Some(entries), &mut report).ok()?;
    Some(Ok(Imported {
        format: Format::Native,
        book,
        report,
    }))
}

/// Reads `bytes` with one format's reader, skipping detection: what
/// [`import`] does once it has decided on `format`. A JSON format still
/// needs a JSON document, and a binary one its signature. The fuzz targets
/// (`fuzz/`) reach each importer through this.
pub fn import_as(format: Format, bytes: &[u8]) -> Result<Imported, ImportError> {
    let Some(c) = codec(format) else {
        return Err(ImportError::UnknownFormat {
            found: format!("no reader for {format}"),
        });
    };
    let mut report = Report::new(Direction::Import, format.name());
    let book = match &c.reader {
        Reader::Binary {
            signature, read, ..
        } => {
            if !bytes.starts_with(signature) {
                return Err(ImportError::UnknownFormat {
                    found: format!("a file without the signature of a {format}"),
                });
            }
            read(bytes, &mut report)?
        }
        Reader::Json { read, .. } => {
            read(parse(bytes)?, &mut report).map_err(|e| e.in_format(format))?
        }
    };
    Ok(Imported {
        format,
        book,
        report,
    }
    .with_folders())
}

/// [`import`] for an already parsed JSON document.
pub fn import_value(value: Value) -> Result<Imported, ImportError> {
    let format = detect_value(&value)?;
    let Some(Reader::Json { read, .. }) = codec(format).map(|c| &c.reader) else {
        // Only JSON rows are detected from a JSON document.
        return Err(ImportError::UnknownFormat {
            found: "JSON".into(),
        });
    };
    let mut report = Report::new(Direction::Import, format.name());
    let book = read(value, &mut report).map_err(|e| e.in_format(format))?;
    Ok(Imported {
        format,
        book,
        report,
    }
    .with_folders())
}

impl Imported {
    /// The book with the folders its entries' folder paths name
    /// ([`crate::folders::unflatten`]): how a book from a format without
    /// folders gets its tree back.
    fn with_folders(mut self) -> Imported {
        let made = crate::folders::unflatten(&mut self.book);
        if made > 0 {
            self.report.book.approx(
                crate::folders::PATH,
                Note::FoldersFromPaths { folders: made },
            );
        }
        self
    }
}

/// `book` as a format without folders holds it ([`crate::folders::flatten`]),
/// with the report's words on what that cost; the book itself when it has no
/// folders or `to` has them.
fn for_target<'a>(
    book: &'a Book,
    to: ExportFormat,
    report: &mut Report,
) -> std::borrow::Cow<'a, Book> {
    if matches!(
        to,
        ExportFormat::Native | ExportFormat::Risu | ExportFormat::Marinara
    ) {
        return std::borrow::Cow::Borrowed(book);
    }
    // NovelAI and Agnai write back only their own namespace's fields.
    let ns = match to {
        ExportFormat::NovelAi => Some(novelai::NS),
        ExportFormat::Agnai => Some(agnai::NS),
        _ => None,
    };
    let Some((flat, facts)) = crate::folders::flatten(book, ns) else {
        return std::borrow::Cow::Borrowed(book);
    };
    report.book.approx(
        "folders",
        Note::FoldersAsPaths {
            folders: facts.folders,
        },
    );
    for path in facts.empty {
        report.book.lose("folders", Note::EmptyFolder { path });
    }
    std::borrow::Cow::Owned(flat)
}

/// Writes a book in a format, with the report of what could not be carried.
pub fn export(book: &Book, to: ExportFormat) -> Result<(Vec<u8>, Report), ExportError> {
    if to == ExportFormat::Charx {
        // A ZIP archive, not a JSON document: the card in `card.json`.
        let mut report = Report::new(Direction::Export, to.name());
        let book = for_target(book, to, &mut report);
        let bytes = charx::export_new(&book, &mut report)?;
        return Ok((bytes, report));
    }
    let write = codec(to.as_format())
        .and_then(|c| c.write)
        .ok_or(ExportError::NoWriter(to))?;
    let mut report = Report::new(Direction::Export, to.name());
    let book = for_target(book, to, &mut report);
    let value = write(&book, &mut report);
    Ok((to_pretty(&value), report))
}

/// Writes a book into an existing card PNG. Every card chunk already there
/// (`chara`, `ccv3`) gets the book in its own card version; `to` says which
/// chunk must exist afterwards (`CardV2` → `chara`, `CardV3` → `ccv3`), so
/// a missing one is added, built from the other. Every other byte of the
/// image and every other field of the card is kept.
pub fn export_into_card(
    book: &Book,
    card_png: &[u8],
    to: ExportFormat,
) -> Result<(Vec<u8>, Report), ExportError> {
    // A CHARX archive (a ZIP) takes the book in its v3 `card.json`, its
    // other files kept as stored.
    if card_png.starts_with(charx::SIGNATURE) {
        if !matches!(to, ExportFormat::CardV3 | ExportFormat::Charx) {
            return Err(ExportError::NotACardFormat(to));
        }
        let mut report = Report::new(Direction::Export, Format::Charx.name());
        let book = for_target(book, to, &mut report);
        let bytes = charx::export_into(&book, card_png, &mut report)?;
        return Ok((bytes, report));
    }
    let version = match to {
        ExportFormat::CardV2 => card::Version::V2,
        ExportFormat::CardV3 => card::Version::V3,
        other => return Err(ExportError::NotACardFormat(other)),
    };
    let mut report = Report::new(Direction::Export, Format::PngCard.name());
    let book = for_target(book, to, &mut report);
    let bytes = png::export_into(&book, card_png, version, &mut report)?;
    Ok((bytes, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_as_reads_with_the_named_reader_only() {
        // No detection: the bytes are read as the format named, or refused.
        let bytes = br#"{"entries": [{"keys": ["sun"], "content": "Hot."}]}"#;
        let book = import_as(Format::CharacterBook, bytes).unwrap();
        assert_eq!(book.format, Format::CharacterBook);
        assert_eq!(book.book.entries[0].content, "Hot.");
        assert!(import_as(Format::Native, bytes).is_err());
        assert!(matches!(
            import_as(Format::PngCard, bytes),
            Err(ImportError::UnknownFormat { .. })
        ));
        for format in Format::ALL {
            assert_eq!(codec(format).map(|c| c.format), Some(format));
        }
    }

    #[test]
    fn every_format_has_one_row_and_every_export_a_writer() {
        for c in CODECS {
            let rows = CODECS.iter().filter(|d| d.format == c.format).count();
            assert_eq!(rows, 1, "{:?}", c.format);
        }
        for to in ExportFormat::ALL {
            // A binary format is written by its own module (`export`).
            if to.binary() {
                assert!(export(&Book::default(), to).is_ok(), "{to}");
                continue;
            }
            assert!(
                codec(to.as_format()).is_some_and(|c| c.write.is_some()),
                "{to}"
            );
        }
    }
}

#[cfg(test)]
mod streamed_tests {
    use super::*;

    fn import(bytes: &[u8]) -> Option<Result<Imported, ImportError>> {
        import_streamed(bytes)
    }

    /// The streamed reading answers for a native file (the sample, the
    /// all-fields fixture), with the book and report of the ordinary one.
    #[test]
    fn a_native_file_is_read_streamed_and_alike() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for rel in [
            "../../samples/saltmere.json",
            "tests/fixtures/formats/lorebook_v3_all_fields.json",
        ] {
            let bytes = std::fs::read(root.join(rel)).unwrap();
            let streamed = import(&bytes)
                .unwrap_or_else(|| panic!("{rel} streamed"))
                .unwrap();
            let value = crate::formats::json::parse_json(&bytes).unwrap();
            let ordinary = import_value(value).unwrap();
            assert_eq!(streamed, ordinary, "{rel}");
        }
    }

    /// What it leaves to the ordinary reading, and a file of another
    /// format read from the one parse, alike.
    #[test]
    fn what_is_left_to_the_ordinary_reading_and_other_formats_read_once() {
        for text in [
            r#"{"spec":"lorebook_v3","spec":"lorebook_v3","data":{"entries":[]}}"#,
            r#"{"spec":"lorebook_v3","data":{"entries":[1]}}"#,
            r#"{"spec":"lorebook_v3","data":{"entries":[{"keys":7}]}}"#,
            r#"{"spec":"lorebook_v3","data":{"entries":[]}"#,
            r#"{"spec":"chara_card_v3","data":{"entries":[{"id":1}]}}"#,
            r#"[1, 2]"#,
        ] {
            assert!(import(text.as_bytes()).is_none(), "{text}");
        }
        for text in [
            r#"{"entries":{"0":{"key":["a"],"content":"x"}}}"#,
            r#"{"spec":"chara_card_v3","data":{"name":"c","character_book":{"entries":[]}}}"#,
            r#"{"type":"risu","ver":1,"data":[{"key":"a","content":"x","mode":"normal","insertorder":100,"alwaysActive":false}]}"#,
            r#"{"spec":"lorebook_v3","data":{"name":"no entries","n":1.5,"t":true,"z":null}}"#,
        ] {
            let value = crate::formats::json::parse_json(text.as_bytes()).unwrap();
            let ordinary = import_value(value);
            let streamed = import(text.as_bytes()).unwrap_or_else(|| panic!("{text}"));
            match (streamed, ordinary) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text}"),
                (a, b) => panic!("{text}: {a:?} / {b:?}"),
            }
        }
    }
}
