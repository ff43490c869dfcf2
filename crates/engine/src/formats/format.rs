//! The formats by name: [`Format`] (what an import can come from) and
//! [`ExportFormat`] (what an export can write), with their human names,
//! ids and command-line names. A leaf module: every format may use it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::Object;

/// A format an import can come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// The project's own `{"spec": "lorebook_v3", …}` file.
    Native,
    /// SillyTavern world info (`{"entries": {"<uid>": …}}`).
    #[serde(rename = "sillytavern")]
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
    /// A Backyard AI character archive (`.byaf`): its `loreItems`.
    Byaf,
    /// RisuAI lorebook export (`{"type": "risu", …}`).
    Risu,
    /// NovelAI `.lorebook` (or a `.story` holding one).
    #[serde(rename = "novelai")]
    NovelAi,
    /// Agnai memory book (`kind: "memory"`).
    Agnai,
    /// Marinara-Engine lorebook (`type: "marinara_lorebook"`).
    Marinara,
}

impl Format {
    /// Every format an import can come from.
    pub const ALL: [Format; 12] = [
        Format::Native,
        Format::SillyTavern,
        Format::CardV2,
        Format::CardV3,
        Format::CharacterBook,
        Format::PngCard,
        Format::Charx,
        Format::Byaf,
        Format::Risu,
        Format::NovelAi,
        Format::Agnai,
        Format::Marinara,
    ];

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
            Format::Byaf => "Backyard AI character (.byaf)",
            Format::Risu => "RisuAI lorebook",
            Format::NovelAi => "NovelAI lorebook",
            Format::Agnai => "Agnai memory book",
            Format::Marinara => "Marinara-Engine lorebook",
        }
    }

    /// The id, one spelling everywhere: as serialized (the app's bindings),
    /// in the CLI's `--json` and in the docs; `sillytavern` and `novelai`
    /// as the extension namespaces and the CLI's `--to` spell them.
    pub fn id(self) -> &'static str {
        match self {
            Format::Native => "native",
            Format::SillyTavern => "sillytavern",
            Format::CardV2 => "card_v2",
            Format::CardV3 => "card_v3",
            Format::CharacterBook => "character_book",
            Format::PngCard => "png_card",
            Format::Charx => "charx",
            Format::Byaf => "byaf",
            Format::Risu => "risu",
            Format::NovelAi => "novelai",
            Format::Agnai => "agnai",
            Format::Marinara => "marinara",
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
    #[serde(rename = "sillytavern")]
    SillyTavern,
    CardV2,
    CardV3,
    /// A bare v3 `character_book` object.
    CharacterBook,
    Risu,
    #[serde(rename = "novelai")]
    NovelAi,
    Agnai,
    Marinara,
    /// A CHARX archive (`card.json` with the book; written into an
    /// existing CHARX, its assets are kept: `export_into_card`).
    Charx,
}

impl ExportFormat {
    /// Every export format, in the order the CLI lists them.
    pub const ALL: [ExportFormat; 10] = [
        ExportFormat::Native,
        ExportFormat::SillyTavern,
        ExportFormat::CardV2,
        ExportFormat::CardV3,
        ExportFormat::CharacterBook,
        ExportFormat::Risu,
        ExportFormat::NovelAi,
        ExportFormat::Agnai,
        ExportFormat::Marinara,
        ExportFormat::Charx,
    ];

    /// The CLI name (`native`, `sillytavern`, `ccv2`, `ccv3`, `book`,
    /// `risu`, `novelai`, `agnai`, `charx`).
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
            ExportFormat::Marinara => "marinara",
            ExportFormat::Charx => "charx",
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
            ExportFormat::Marinara => Format::Marinara,
            ExportFormat::Charx => Format::Charx,
        }
    }

    /// The format a book imported from `origin` is written back in, where
    /// one writes the same kind of file: `None` for the project's own
    /// format (read with losses, it is not written over) and for the card
    /// files (a PNG or CHARX card is written only into a card the author
    /// picks).
    pub fn of_origin(origin: Format) -> Option<ExportFormat> {
        Some(match origin {
            Format::SillyTavern => ExportFormat::SillyTavern,
            Format::CardV2 => ExportFormat::CardV2,
            Format::CardV3 => ExportFormat::CardV3,
            Format::CharacterBook => ExportFormat::CharacterBook,
            Format::Risu => ExportFormat::Risu,
            Format::NovelAi => ExportFormat::NovelAi,
            Format::Agnai => ExportFormat::Agnai,
            Format::Marinara => ExportFormat::Marinara,
            Format::Native | Format::PngCard | Format::Charx | Format::Byaf => return None,
        })
    }

    /// Whether the format is binary (a file to write, not text to print).
    pub fn binary(self) -> bool {
        matches!(self, ExportFormat::Charx)
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::NovelAi => "lorebook",
            ExportFormat::Charx => "charx",
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
            "charx" => ExportFormat::Charx,
            "marinara" | "marinara_engine" => ExportFormat::Marinara,
            _ => return Err(UnknownExportFormat(s.to_string())),
        })
    }
}

/// How sure a JSON format is that a document is its own (each format
/// module's `detect`; see [`super::convert`] for the order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detect {
    /// Its marker fields are there.
    Sure,
    /// It may be, when no format is sure and there is no `spec`.
    Fallback,
    /// Not this format.
    No,
}

impl Detect {
    /// [`Detect::Sure`] when the markers are there, else [`Detect::No`].
    pub(crate) fn sure_if(markers: bool) -> Self {
        if markers {
            Detect::Sure
        } else {
            Detect::No
        }
    }

    /// Sure when the document's `spec` is `spec` (native files and cards
    /// name themselves there).
    pub(crate) fn by_spec(top: &Object, spec: &str) -> Self {
        Detect::sure_if(top.get("spec").and_then(Value::as_str) == Some(spec))
    }
}
