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
//! Detection looks at the content, never at the file name: PNG and ZIP
//! signatures first, then the JSON's marker fields (`spec`, `type: "risu"`,
//! `lorebookVersion`, `storyContainerVersion`, `kind: "memory"`, an
//! `entries` object or array).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::report::{Direction, Report};
use super::{agnai, card, charx, native, novelai, png, risu, sillytavern, FormatError};
use crate::model::Book;

/// A format an import can come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// The project's own `{"spec": "lorebook_v3", …}` file.
    Native,
    /// SillyTavern world info (`{"entries": {"<uid>": …}}`).
    SillyTavern,
    /// Character card v2 JSON (`spec: chara_card_v2`).
    CardV2,
    /// Character card v3 JSON (`spec: chara_card_v3`).
    CardV3,
    /// A bare `character_book` object (`{"entries": [...]}` without a card).
    CharacterBook,
    /// A PNG character card (`tEXt` chunk `ccv3` or `chara`).
    PngCard,
    /// A CHARX zip with `card.json`.
    Charx,
    /// RisuAI lorebook export (`{"type": "risu", …}`).
    Risu,
    /// NovelAI `.lorebook` (or a `.story` holding one).
    NovelAi,
    /// Agnai memory book (`kind: "memory"`).
    Agnai,
}

impl Format {
    /// Human name, for messages and reports.
    pub fn name(self) -> &'static str {
        match self {
            Format::Native => "native lorebook (lorebook_v3)",
            Format::SillyTavern => "SillyTavern world info",
            Format::CardV2 => "character card v2",
            Format::CardV3 => "character card v3",
            Format::CharacterBook => "character book (v2/v3 character_book)",
            Format::PngCard => "PNG character card",
            Format::Charx => "CHARX character card",
            Format::Risu => "RisuAI lorebook",
            Format::NovelAi => "NovelAI lorebook",
            Format::Agnai => "Agnai memory book",
        }
    }

    /// The snake_case id (as serialized).
    pub fn id(self) -> &'static str {
        match self {
            Format::Native => "native",
            Format::SillyTavern => "sillytavern",
            Format::CardV2 => "card_v2",
            Format::CardV3 => "card_v3",
            Format::CharacterBook => "character_book",
            Format::PngCard => "png_card",
            Format::Charx => "charx",
            Format::Risu => "risu",
            Format::NovelAi => "novelai",
            Format::Agnai => "agnai",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A format an export can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    Native,
    SillyTavern,
    CardV2,
    CardV3,
    /// A bare v3 `character_book` object.
    CharacterBook,
    Risu,
    NovelAi,
    Agnai,
}

impl ExportFormat {
    /// Every export format, in the order the CLI lists them.
    pub const ALL: [ExportFormat; 8] = [
        ExportFormat::Native,
        ExportFormat::SillyTavern,
        ExportFormat::CardV2,
        ExportFormat::CardV3,
        ExportFormat::CharacterBook,
        ExportFormat::Risu,
        ExportFormat::NovelAi,
        ExportFormat::Agnai,
    ];

    /// The CLI name (`native`, `sillytavern`, `ccv2`, `ccv3`, `book`,
    /// `risu`, `novelai`, `agnai`).
    pub fn cli_name(self) -> &'static str {
        match self {
            ExportFormat::Native => "native",
            ExportFormat::SillyTavern => "sillytavern",
            ExportFormat::CardV2 => "ccv2",
            ExportFormat::CardV3 => "ccv3",
            ExportFormat::CharacterBook => "book",
            ExportFormat::Risu => "risu",
            ExportFormat::NovelAi => "novelai",
            ExportFormat::Agnai => "agnai",
        }
    }

    /// Human name, for messages and reports.
    pub fn name(self) -> &'static str {
        self.as_format().name()
    }

    /// The matching import format.
    pub fn as_format(self) -> Format {
        match self {
            ExportFormat::Native => Format::Native,
            ExportFormat::SillyTavern => Format::SillyTavern,
            ExportFormat::CardV2 => Format::CardV2,
            ExportFormat::CardV3 => Format::CardV3,
            ExportFormat::CharacterBook => Format::CharacterBook,
            ExportFormat::Risu => Format::Risu,
            ExportFormat::NovelAi => Format::NovelAi,
            ExportFormat::Agnai => Format::Agnai,
        }
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::NovelAi => "lorebook",
            _ => "json",
        }
    }
}

impl fmt::Display for ExportFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.cli_name())
    }
}

/// An export format name the CLI did not recognise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownExportFormat(pub String);

impl fmt::Display for UnknownExportFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = ExportFormat::ALL.iter().map(|f| f.cli_name()).collect();
        write!(
            f,
            "unknown export format \"{}\"; expected one of: {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownExportFormat {}

impl FromStr for ExportFormat {
    type Err = UnknownExportFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm = s.trim().to_ascii_lowercase().replace(['-', ' '], "_");
        Ok(match norm.as_str() {
            "native" | "lorebook_v3" | "v3" => ExportFormat::Native,
            "sillytavern" | "st" | "silly_tavern" | "world_info" => ExportFormat::SillyTavern,
            "ccv2" | "card_v2" | "chara_card_v2" | "v2" => ExportFormat::CardV2,
            "ccv3" | "card_v3" | "chara_card_v3" => ExportFormat::CardV3,
            "book" | "character_book" => ExportFormat::CharacterBook,
            "risu" | "risuai" => ExportFormat::Risu,
            "novelai" | "nai" | "lorebook" => ExportFormat::NovelAi,
            "agnai" | "agnaistic" | "memory" => ExportFormat::Agnai,
            _ => return Err(UnknownExportFormat(s.to_string())),
        })
    }
}

/// Why a file could not be imported. Each case has its own message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportError {
    /// The file looks like JSON text but is not valid JSON (1-based).
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    /// Valid input, but none of the supported formats.
    UnknownFormat { found: String },
    /// A PNG with no `chara` or `ccv3` text chunk.
    PngWithoutCard,
    /// A PNG whose structure is damaged.
    BadPng(String),
    /// A card chunk whose text is not base64 JSON of a card.
    BadCardChunk { chunk: String, message: String },
    /// A character card that carries no lorebook.
    CardWithoutBook { spec: String },
    /// A CHARX zip that cannot be read or has no `card.json`.
    BadCharx(String),
    /// The right format, but the wrong shape.
    Shape { format: Format, message: String },
    /// A field with the wrong type or an impossible value.
    Field { path: String, message: String },
}

impl ImportError {
    /// A stable code the UI can act on.
    pub fn code(&self) -> &'static str {
        match self {
            ImportError::Json { .. } => "malformed_json",
            ImportError::UnknownFormat { .. } => "unknown_format",
            ImportError::PngWithoutCard => "png_without_card",
            ImportError::BadPng(_) => "bad_png",
            ImportError::BadCardChunk { .. } => "bad_card_chunk",
            ImportError::CardWithoutBook { .. } => "card_without_book",
            ImportError::BadCharx(_) => "bad_charx",
            ImportError::Shape { .. } => "bad_shape",
            ImportError::Field { .. } => "bad_field",
        }
    }

    pub(crate) fn shape(format: Format, message: impl Into<String>) -> Self {
        ImportError::Shape {
            format,
            message: message.into(),
        }
    }

    pub(crate) fn field(path: impl Into<String>, message: impl Into<String>) -> Self {
        ImportError::Field {
            path: path.into(),
            message: message.into(),
        }
    }

    /// Converts a native-reader error found while reading `format`.
    pub(crate) fn from_format(format: Format, e: FormatError) -> Self {
        match e {
            FormatError::Json {
                line,
                column,
                message,
            } => ImportError::Json {
                line,
                column,
                message,
            },
            FormatError::Shape(message) => ImportError::Shape { format, message },
            FormatError::Field { path, message } => ImportError::Field {
                path: path.trim_start_matches('.').to_string(),
                message,
            },
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Json {
                line,
                column,
                message,
            } => write!(
                f,
                "malformed JSON at line {line}, column {column}: {message}"
            ),
            ImportError::UnknownFormat { found } => write!(
                f,
                "not a lorebook this app can read ({found}); expected SillyTavern world info, \
                 a character card (JSON, PNG or CHARX), a lorebook_v3 file, a RisuAI, \
                 NovelAI or Agnai lorebook"
            ),
            ImportError::PngWithoutCard => f.write_str(
                "this PNG is not a character card: it has no \"chara\" or \"ccv3\" text chunk",
            ),
            ImportError::BadPng(m) => write!(f, "damaged PNG: {m}"),
            ImportError::BadCardChunk { chunk, message } => {
                write!(
                    f,
                    "the PNG's \"{chunk}\" card chunk cannot be read: {message}"
                )
            }
            ImportError::CardWithoutBook { spec } => write!(
                f,
                "this character card ({spec}) has no lorebook (data.character_book is missing)"
            ),
            ImportError::BadCharx(m) => write!(f, "cannot read the CHARX file: {m}"),
            ImportError::Shape { format, message } => write!(f, "{}: {message}", format.name()),
            ImportError::Field { path, message } => write!(f, "{path}: {message}"),
        }
    }
}

impl std::error::Error for ImportError {}

/// Why a book could not be exported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportError {
    /// [`export_into_card`] was given a format that is not a card.
    NotACardFormat(ExportFormat),
    /// The image given to [`export_into_card`] is not a PNG or is damaged.
    BadPng(String),
    /// The image given to [`export_into_card`] holds no card to write into.
    PngWithoutCard,
    /// The card chunk of the image cannot be read.
    BadCardChunk { chunk: String, message: String },
}

impl ExportError {
    /// A stable code the UI can act on.
    pub fn code(&self) -> &'static str {
        match self {
            ExportError::NotACardFormat(_) => "not_a_card_format",
            ExportError::BadPng(_) => "bad_png",
            ExportError::PngWithoutCard => "png_without_card",
            ExportError::BadCardChunk { .. } => "bad_card_chunk",
        }
    }
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::NotACardFormat(to) => write!(
                f,
                "a book can be written into a card PNG only as ccv2 or ccv3, not {to}"
            ),
            ExportError::BadPng(m) => write!(f, "damaged PNG: {m}"),
            ExportError::PngWithoutCard => f.write_str(
                "this PNG is not a character card: it has no \"chara\" or \"ccv3\" text chunk to write the book into",
            ),
            ExportError::BadCardChunk { chunk, message } => {
                write!(f, "the PNG's \"{chunk}\" card chunk cannot be read: {message}")
            }
        }
    }
}

impl std::error::Error for ExportError {}

/// The result of [`import`].
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub format: Format,
    pub book: Book,
    pub report: Report,
}

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
const ZIP_SIGNATURE: &[u8] = b"PK\x03\x04";

/// What the bytes are, decided from their content.
pub fn detect(bytes: &[u8]) -> Result<Format, ImportError> {
    if bytes.starts_with(PNG_SIGNATURE) {
        png::find_card(bytes)?;
        return Ok(Format::PngCard);
    }
    if bytes.starts_with(ZIP_SIGNATURE) {
        return Ok(Format::Charx);
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
    super::parse_json(bytes).map_err(|e| ImportError::from_format(Format::Native, e))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The format of a parsed JSON document.
pub fn detect_value(value: &Value) -> Result<Format, ImportError> {
    let Value::Object(top) = value else {
        return Err(ImportError::UnknownFormat {
            found: format!("JSON whose top level is {}, not an object", kind(value)),
        });
    };
    let spec = top.get("spec");
    match spec.and_then(Value::as_str) {
        Some(native::SPEC) => return Ok(Format::Native),
        Some(card::SPEC_V2) => return Ok(Format::CardV2),
        Some(card::SPEC_V3) => return Ok(Format::CardV3),
        _ => {}
    }
    let entries = top.get("entries");
    let entries_array = matches!(entries, Some(Value::Array(_)) | None);
    if top.get("type").and_then(Value::as_str) == Some("risu")
        && top.get("data").is_some_and(Value::is_array)
    {
        return Ok(Format::Risu);
    }
    if (top.contains_key("lorebookVersion") && entries_array) || novelai::is_story(top) {
        return Ok(Format::NovelAi);
    }
    if top.get("kind").and_then(Value::as_str) == Some("memory") && entries_array {
        return Ok(Format::Agnai);
    }
    match entries {
        Some(Value::Object(_)) => return Ok(Format::SillyTavern),
        Some(Value::Array(_)) if !spec.is_some_and(Value::is_string) => {
            return Ok(Format::CharacterBook)
        }
        _ => {}
    }
    if let Some(spec) = spec {
        return Err(ImportError::UnknownFormat {
            found: format!("JSON with an unknown \"spec\": {spec}"),
        });
    }
    if top.get("type").and_then(Value::as_str) == Some("risu") {
        return Ok(Format::Risu);
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
    if bytes.starts_with(PNG_SIGNATURE) {
        let mut report = Report::new(Direction::Import, Format::PngCard.name());
        let book = png::import(bytes, &mut report)?;
        return Ok(Imported {
            format: Format::PngCard,
            book,
            report,
        });
    }
    if bytes.starts_with(ZIP_SIGNATURE) {
        let mut report = Report::new(Direction::Import, Format::Charx.name());
        let book = charx::import(bytes, &mut report)?;
        return Ok(Imported {
            format: Format::Charx,
            book,
            report,
        });
    }
    let value = parse(bytes)?;
    import_value(value)
}

/// [`import`] for an already parsed JSON document.
pub fn import_value(value: Value) -> Result<Imported, ImportError> {
    let format = detect_value(&value)?;
    let mut report = Report::new(Direction::Import, format.name());
    let book = match format {
        Format::Native => {
            let (book, notes) =
                native::from_value(value).map_err(|e| ImportError::from_format(format, e))?;
            for n in notes {
                report.book.approx("data", n);
            }
            for e in &book.entries {
                report.entry(e.id, e.display_name()).carry("every field");
            }
            book
        }
        Format::SillyTavern => sillytavern::import_value(value, &mut report)?,
        Format::CardV2 | Format::CardV3 => card::import_card(value, &mut report)?,
        Format::CharacterBook => card::import_bare_book(value, &mut report)?,
        Format::Risu => risu::import_value(value, &mut report)?,
        Format::NovelAi => novelai::import_value(value, &mut report)?,
        Format::Agnai => agnai::import_value(value, &mut report)?,
        // Binary formats are dispatched by signature in `import`.
        Format::PngCard | Format::Charx => {
            return Err(ImportError::UnknownFormat {
                found: "JSON".into(),
            })
        }
    };
    Ok(Imported {
        format,
        book,
        report,
    })
}

/// Writes a book in a format, with the report of what could not be carried.
pub fn export(book: &Book, to: ExportFormat) -> Result<(Vec<u8>, Report), ExportError> {
    let mut report = Report::new(Direction::Export, to.name());
    let value = match to {
        ExportFormat::Native => {
            for e in &book.entries {
                report.entry(e.id, e.display_name()).carry("every field");
            }
            return Ok((native::to_bytes(book), report));
        }
        ExportFormat::SillyTavern => sillytavern::export_value(book, &mut report),
        ExportFormat::CardV2 => card::export_card(book, card::Version::V2, &mut report),
        ExportFormat::CardV3 => card::export_card(book, card::Version::V3, &mut report),
        ExportFormat::CharacterBook => {
            let mut obj = card::export_book(book, card::Version::V3, &mut report);
            // A bare book has no `spec`; one among the book's own fields
            // would make the file read as something else.
            if obj.get("spec").is_some_and(Value::is_string) {
                obj.remove("spec");
                report
                    .book
                    .lose("spec", "a bare character book cannot hold a \"spec\" field");
            }
            Value::Object(obj)
        }
        ExportFormat::Risu => risu::export_value(book, &mut report),
        ExportFormat::NovelAi => novelai::export_value(book, &mut report),
        ExportFormat::Agnai => agnai::export_value(book, &mut report),
    };
    Ok((to_pretty(&value), report))
}

pub(crate) fn to_pretty(value: &Value) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(value).unwrap_or_default();
    out.push(b'\n');
    out
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
    let version = match to {
        ExportFormat::CardV2 => card::Version::V2,
        ExportFormat::CardV3 => card::Version::V3,
        other => return Err(ExportError::NotACardFormat(other)),
    };
    let mut report = Report::new(Direction::Export, Format::PngCard.name());
    let bytes = png::export_into(book, card_png, version, &mut report)?;
    Ok((bytes, report))
}
