//! The remarks of an import or export report as codes with parameters. A
//! leaf module beside `report.rs`: the formats say *what* happened with a
//! [`Note`]; English exists only in its [`Display`](fmt::Display) (what the
//! CLI prints), and the app words each code through its catalog
//! (`note.<code>` in `ui/src/lib/locales/`).
//!
//! Parameters are values and names, never sentences: `value` is the source
//! file's JSON text, `tool` a program's name, `field` and `target` field
//! spellings. [`Note::examples`] holds one note of every code, so a test can
//! demand a sentence for each.
//!
//! Above the usual 600 lines: the one enum of report notes, its list of codes
//! and its English are kept in one file, so a code is added in one place.

use std::fmt;

use serde::Serialize;

/// What became of a field, a chunk or a file during a conversion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "code")]
pub enum Note {
    // Values repaired when any book is read.
    /// A book setting outside its range, moved to the nearest allowed value.
    Clamped {
        field: String,
        value: u64,
        min: u64,
        max: u64,
        clamped: u64,
    },
    /// Entry `index` (from 0) shares id `old` with an earlier one.
    IdUsedTwice { index: usize, old: u64, new: u64 },
    /// Entry `index` has an id the editor cannot hold; it is kept for saving.
    IdNotWhole {
        index: usize,
        value: String,
        new: u64,
    },
    /// Entry `index` has no id.
    NoId { index: usize, new: u64 },
    /// A SillyTavern uid used by an earlier entry too.
    UidUsedTwice { old: u64, new: u64 },
    /// A SillyTavern entry without a usable uid.
    NoUsableUid { new: u64 },
    /// A SillyTavern uid the editor cannot hold, written back on export.
    UidNotWhole { value: String },
    /// A card whose `character_book.entries` is an object (a common
    /// exporter's quirk) instead of the spec's array: its `count` entries
    /// read in the object's key order, and written back as an array.
    EntriesObject { count: usize },

    // Values read differently from how the source wrote them.
    /// `value` read as the number `read`.
    ReadAs { value: String, read: i64 },
    /// A value that should be a number and is not; the field is ignored.
    NotNumberIgnored { value: String },
    /// A value that should be a number and is not; `default` used.
    NotNumberDefault { value: String, default: i64 },
    /// A value that should be true or false; read as `read`.
    NotBool { value: String, read: bool },
    /// A SillyTavern `selectiveLogic` outside 0–3.
    LogicUnknown { value: String },
    /// A SillyTavern `role` outside 0–2.
    RoleUnknown { value: String },
    /// A SillyTavern `scanDepth` beyond `@@scan_depth`'s range.
    ScanDepthClamped { value: String, read: u64 },
    /// SillyTavern's `matchWholeWords` unset or null: its global setting.
    WholeWordsGlobal,
    /// Whole words the source left to its front-end's global setting, left
    /// to RisuAI's book setting (`fullWordMatching`) on export.
    WholeWordsToRisuSetting,
    /// `use_regex: true` in a card SillyTavern wrote (it ignores it).
    StUseRegexIgnored,
    /// RisuAI's `mode: "constant"`.
    RisuConstant,
    /// A RisuAI folder, kept as a folder (a disabled entry holding entries).
    RisuFolder,
    /// Folders rebuilt from the entries' folder paths.
    FoldersFromPaths { folders: usize },
    /// A RisuAI export carries no book settings.
    NoBookSettings { tool: String },
    /// RisuAI scans recursively unless told not to: recursion on.
    RisuRecursion,

    // Values an export writes in another form.
    /// A decorator or field written as the target's `target` field.
    WrittenAs { target: String, value: String },
    /// Disabled, written as `@@dont_activate` (RisuAI has no switch).
    DisabledAsDecorator,
    /// Regex keys written as `/pattern/` literals.
    RegexAsLiterals { tool: String },
    /// A key that RisuAI will split at its comma.
    KeyHasComma { key: String },
    /// Several regex keys joined into one RisuAI pattern.
    PatternsJoined,
    /// RisuAI's `insertorder` drives both order and priority.
    RisuPriority { priority: i64 },
    /// SillyTavern's single order drives budget and placement.
    StPriority { priority: i64, order: i64 },
    /// NovelAI places by `budgetPriority`.
    NovelAiOrder { order: i64, priority: i64 },
    /// An unknown SillyTavern position name, written as 0.
    PositionUnknown { value: String },
    /// Book settings written at the top of a SillyTavern file.
    StBookSettings,
    /// An unknown card spec, replaced by the one written.
    UnknownSpec { old: String, new: String },
    /// The exported file repeats the source's spelling of a value.
    SourceSpelling { was: String, shown: String },

    /// Folders written as each entry's folder path.
    FoldersAsPaths { folders: usize },

    // Fields the target cannot hold.
    /// A folder with no entry inside: the target keeps no trace of it.
    EmptyFolder { path: String },
    /// A decorator the target does not know; its line stays in the content.
    DecoratorInContent { tool: String },
    /// A decorator other v3 readers do not know.
    DecoratorUnknownToV3,
    /// A v2 card has no decorators.
    NoDecoratorsV2,
    /// A tool without decorators: the line reaches the model as text.
    NoDecorators { tool: String },
    /// A tool with no secondary keys.
    NoSecondaryKeys { tool: String },
    /// A tool with only AND ANY secondary logic.
    OnlyAndAny { tool: String, logic: String },
    /// A tool that matches keys inside words.
    InsideWords { tool: String },
    /// A tool that matches keys case-insensitively.
    CaseInsensitive { tool: String },
    /// A tool whose keys are never regexes.
    NoRegex { tool: String },
    /// A tool without always-on entries.
    NoConstant { tool: String },
    /// A tool whose entries have no role.
    NoRole { tool: String },
    /// A tool whose entries have no extension fields.
    NoExtensions { tool: String },
    /// A field of the source file with no place in the target.
    SourceFieldNoPlace { tool: String },
    /// A book field with no place in the target's books.
    BookFieldNoPlace { tool: String },
    /// A book field Agnai sets per chat.
    SetPerChat { tool: String },
    /// A book name the target cannot hold.
    NoBookName { tool: String },
    /// A bare character book cannot hold `spec`.
    NoSpecInBareBook,

    // Remarks about the file as a whole.
    /// Which card chunk the book was read from (`spec` of its card).
    ReadFromChunk { chunk: String, spec: Option<String> },
    /// A card chunk that was not read because another one was.
    ChunkNotRead { chunk: String, used: String },
    /// A card chunk that could not be read (`error`: why, in English).
    ChunkSkipped { chunk: String, error: String },
    /// A missing card chunk added from another card's text.
    ChunkAdded { chunk: String, from: String },
    /// A file of a Markdown-folder book that could not be read (`problem`:
    /// why, in English): left out, and left on disk.
    FileNotRead { file: String, problem: String },
    /// A Markdown-folder save wrote an entry (or a folder's directory)
    /// under another name, because a file that is not the book's has its
    /// name.
    SavedUnderName { wanted: String, written: String },
    /// A Markdown-folder save left the file of an entry the book no longer
    /// has in place, because it changed since the book read it.
    StaleFileKept { file: String },
    /// The file (or book folder) asked to be opened is open already: its
    /// tab is shown.
    AlreadyOpen { file: String },
    /// A CHARX archive: its `card.json` read, the assets not.
    CharxAssets,
    /// Written into a CHARX holding a RisuAI module (`module.risum`), whose
    /// lorebook RisuAI reads in place of the card's: kept as it was.
    RisuModuleKept,
    /// A Backyard AI archive listing several characters: the first read.
    OnlyFirstCharacter { count: usize },
    /// Backyard AI's placeholders (`{user}`, `#{character}:`) written as
    /// SillyTavern's macros.
    PlaceholdersConverted { count: usize },
    /// A NovelAI story: the lorebook read, the story kept.
    NovelAiStoryRead,
    /// A NovelAI story written back with the book.
    NovelAiStoryWritten,
    /// The card's other fields come from the imported card.
    CardFromImport,
    /// No imported card: a minimal one written.
    MinimalCard { name: String },
}

impl Note {
    /// One note of every code, with plain parameters, in the order of the
    /// variants: the one list of the codes (the app's bindings export it as
    /// `NOTE_CODES`, which its catalogs are checked against; a test of the
    /// bindings checks it against the variants themselves).
    pub fn examples() -> Vec<Note> {
        let s = || "x".to_string();
        vec![
            Note::Clamped {
                field: s(),
                value: 5,
                min: 1,
                max: 3,
                clamped: 3,
            },
            Note::IdUsedTwice {
                index: 0,
                old: 1,
                new: 2,
            },
            Note::IdNotWhole {
                index: 0,
                value: s(),
                new: 2,
            },
            Note::NoId { index: 0, new: 2 },
            Note::UidUsedTwice { old: 1, new: 2 },
            Note::NoUsableUid { new: 2 },
            Note::UidNotWhole { value: s() },
            Note::EntriesObject { count: 3 },
            Note::ReadAs {
                value: s(),
                read: 1,
            },
            Note::NotNumberIgnored { value: s() },
            Note::NotNumberDefault {
                value: s(),
                default: 1,
            },
            Note::NotBool {
                value: s(),
                read: true,
            },
            Note::LogicUnknown { value: s() },
            Note::RoleUnknown { value: s() },
            Note::ScanDepthClamped {
                value: s(),
                read: 1,
            },
            Note::WholeWordsGlobal,
            Note::WholeWordsToRisuSetting,
            Note::StUseRegexIgnored,
            Note::RisuConstant,
            Note::RisuFolder,
            Note::FoldersFromPaths { folders: 1 },
            Note::NoBookSettings { tool: s() },
            Note::RisuRecursion,
            Note::WrittenAs {
                target: s(),
                value: s(),
            },
            Note::DisabledAsDecorator,
            Note::RegexAsLiterals { tool: s() },
            Note::KeyHasComma { key: s() },
            Note::PatternsJoined,
            Note::RisuPriority { priority: 1 },
            Note::StPriority {
                priority: 1,
                order: 2,
            },
            Note::NovelAiOrder {
                order: 1,
                priority: 2,
            },
            Note::PositionUnknown { value: s() },
            Note::StBookSettings,
            Note::UnknownSpec { old: s(), new: s() },
            Note::SourceSpelling {
                was: s(),
                shown: s(),
            },
            Note::FoldersAsPaths { folders: 1 },
            Note::EmptyFolder { path: s() },
            Note::DecoratorInContent { tool: s() },
            Note::DecoratorUnknownToV3,
            Note::NoDecoratorsV2,
            Note::NoDecorators { tool: s() },
            Note::NoSecondaryKeys { tool: s() },
            Note::OnlyAndAny {
                tool: s(),
                logic: s(),
            },
            Note::InsideWords { tool: s() },
            Note::CaseInsensitive { tool: s() },
            Note::NoRegex { tool: s() },
            Note::NoConstant { tool: s() },
            Note::NoRole { tool: s() },
            Note::NoExtensions { tool: s() },
            Note::SourceFieldNoPlace { tool: s() },
            Note::BookFieldNoPlace { tool: s() },
            Note::SetPerChat { tool: s() },
            Note::NoBookName { tool: s() },
            Note::NoSpecInBareBook,
            Note::ReadFromChunk {
                chunk: s(),
                spec: None,
            },
            Note::ChunkNotRead {
                chunk: s(),
                used: s(),
            },
            Note::ChunkSkipped {
                chunk: s(),
                error: s(),
            },
            Note::ChunkAdded {
                chunk: s(),
                from: s(),
            },
            Note::FileNotRead {
                file: s(),
                problem: s(),
            },
            Note::SavedUnderName {
                wanted: s(),
                written: s(),
            },
            Note::StaleFileKept { file: s() },
            Note::AlreadyOpen { file: s() },
            Note::CharxAssets,
            Note::RisuModuleKept,
            Note::OnlyFirstCharacter { count: 2 },
            Note::PlaceholdersConverted { count: 1 },
            Note::NovelAiStoryRead,
            Note::NovelAiStoryWritten,
            Note::CardFromImport,
            Note::MinimalCard { name: s() },
        ]
    }

    /// The code this note is serialized with.
    pub fn code(&self) -> String {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(o)) => o
                .get("code")
                .and_then(|c| c.as_str())
                .unwrap_or_default()
                .to_string(),
            _ => String::new(),
        }
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::Clamped {
                field,
                value,
                min,
                max,
                clamped,
            } => write!(
                f,
                "{field} {value} is outside {min}–{max}; clamped to {clamped}"
            ),
            Note::IdUsedTwice { index, old, new } => {
                write!(f, "entry {index}: id {old} is used twice; given id {new}")
            }
            Note::IdNotWhole { index, value, new } => write!(
                f,
                "entry {index}: id {value} is not a whole number from 0 to 2^53 − 1; \
                 given id {new}, and {value} is written back as its id on save"
            ),
            Note::NoId { index, new } => write!(f, "entry {index}: no id; given id {new}"),
            Note::UidUsedTwice { old, new } => {
                write!(f, "uid {old} is used twice; given id {new}")
            }
            Note::NoUsableUid { new } => write!(f, "no usable uid; given id {new}"),
            Note::UidNotWhole { value } => write!(
                f,
                "uid {value} is not a whole number from 0 to 2^53 − 1; it is written back on export"
            ),
            Note::EntriesObject { count } => write!(
                f,
                "the card's character_book.entries is an object, not the spec's array: its {count} entries were read in its key order and are written back as an array"
            ),
            Note::ReadAs { value, read } => write!(f, "{value} read as {read}"),
            Note::NotNumberIgnored { value } => write!(f, "{value} is not a number; ignored"),
            Note::NotNumberDefault { value, default } => {
                write!(f, "{value} is not a number; default {default} used")
            }
            Note::NotBool { value, read } => {
                write!(f, "{value} is not true/false; read as {read}")
            }
            Note::LogicUnknown { value } => write!(
                f,
                "{value} is not 0–3; read as AND ANY (the value is kept for export)"
            ),
            Note::RoleUnknown { value } => write!(f, "{value} is not 0–2; read as system"),
            Note::ScanDepthClamped { value, read } => {
                write!(f, "{value} clamped to @@scan_depth {read}")
            }
            Note::WholeWordsGlobal => f.write_str(
                "unset (SillyTavern's global setting applies); read as whole words on, its default",
            ),
            Note::WholeWordsToRisuSetting => f.write_str(
                "unset in the source (its global setting); no @@match_full_word written, so RisuAI's full-word setting applies",
            ),
            Note::StUseRegexIgnored => f.write_str(
                "true as SillyTavern writes it on every entry (it ignores it); read as plain keys",
            ),
            Note::RisuConstant => f.write_str(
                "mode \"constant\" kept as a field: RisuAI makes an entry constant by alwaysActive alone",
            ),
            Note::RisuFolder => {
                f.write_str("a RisuAI folder: listed as a folder with its entries, and disabled so it never fires")
            }
            Note::FoldersFromPaths { folders } => write!(
                f,
                "folders made again from the entries' folder paths: {folders}"
            ),
            Note::FoldersAsPaths { folders } => write!(
                f,
                "folders written as each entry's folder path (extensions.lorebook_studio_folder), which the next import makes into folders again: {folders}"
            ),
            Note::EmptyFolder { path } => write!(
                f,
                "folder \"{path}\" holds no entry: the target has no folders and keeps no trace of it"
            ),
            Note::NoBookSettings { tool } => write!(f, "a {tool} export has none; defaults used"),
            Note::RisuRecursion => {
                f.write_str("not in the file; on, as RisuAI scans recursively by default")
            }
            Note::WrittenAs { target, value } => write!(f, "written as {target} {value}"),
            Note::DisabledAsDecorator => {
                f.write_str("RisuAI has no switch; written as the @@dont_activate decorator")
            }
            Note::RegexAsLiterals { tool } => write!(
                f,
                "{tool} has no such switch; keys written as /pattern/ literals"
            ),
            Note::KeyHasComma { key } => {
                write!(f, "key {key:?} holds a comma; RisuAI will split it")
            }
            Note::PatternsJoined => {
                f.write_str("RisuAI takes one pattern per key field; patterns joined with |")
            }
            Note::RisuPriority { priority } => write!(
                f,
                "RisuAI's insertorder drives both; priority {priority} not carried"
            ),
            Note::StPriority { priority, order } => write!(
                f,
                "SillyTavern's single order drives budget and placement; \
                 priority {priority} not carried, order {order} written"
            ),
            Note::NovelAiOrder { order, priority } => write!(
                f,
                "NovelAI places by budgetPriority; order {order} not carried (priority {priority} written)"
            ),
            Note::PositionUnknown { value } => {
                write!(f, "\"{value}\" written as 0 (before char)")
            }
            Note::StBookSettings => f.write_str(
                "written at the top of the file for round trips; SillyTavern itself uses its global settings",
            ),
            Note::UnknownSpec { old, new } => {
                write!(f, "the card's unknown spec {old} was written as \"{new}\"")
            }
            Note::SourceSpelling { was, shown } => write!(
                f,
                "written as the source file had it, {was}, where the editor shows {shown}"
            ),
            Note::DecoratorInContent { tool } => {
                write!(f, "{tool} has no equivalent; the line stays in the content")
            }
            Note::DecoratorUnknownToV3 => {
                f.write_str("kept in the content; other v3 readers do not know it")
            }
            Note::NoDecoratorsV2 => {
                f.write_str("a v2 card has no decorators; the line stays in the content")
            }
            Note::NoDecorators { tool } => write!(
                f,
                "{tool} has no decorators; the line stays in the text and will be sent to the model"
            ),
            Note::NoSecondaryKeys { tool } => write!(f, "{tool} has no secondary keys"),
            Note::OnlyAndAny { tool, logic } => {
                write!(f, "{tool} only has AND ANY; {logic} not carried")
            }
            Note::InsideWords { tool } => write!(f, "{tool} matches keys inside words"),
            Note::CaseInsensitive { tool } => {
                write!(f, "{tool} matches keys case-insensitively")
            }
            Note::NoRegex { tool } => write!(f, "{tool} keys are plain text"),
            Note::NoConstant { tool } => write!(
                f,
                "{tool} has no always-on entries; the entry needs a key to fire"
            ),
            Note::NoRole { tool } => write!(f, "{tool} entries are plain text without a role"),
            Note::NoExtensions { tool } => write!(f, "{tool} entries have no extension fields"),
            Note::SourceFieldNoPlace { tool } => {
                write!(f, "a field of the source file with no place in {tool}")
            }
            Note::BookFieldNoPlace { tool } => {
                write!(f, "a {tool} book has no place for it")
            }
            Note::SetPerChat { tool } => write!(
                f,
                "a {tool} book has no place for it ({tool} sets it per chat)"
            ),
            Note::NoBookName { tool } => write!(f, "a {tool} book has no name"),
            Note::NoSpecInBareBook => {
                f.write_str("a bare character book cannot hold a \"spec\" field")
            }
            Note::ReadFromChunk { chunk, spec } => match spec {
                Some(s) => write!(f, "book read from the \"{chunk}\" chunk ({s})"),
                None => write!(f, "book read from the \"{chunk}\" chunk (no spec)"),
            },
            Note::ChunkNotRead { chunk, used } => write!(
                f,
                "the \"{chunk}\" chunk was not read (the \"{used}\" chunk was)"
            ),
            Note::ChunkSkipped { chunk, error } => {
                write!(f, "the \"{chunk}\" chunk was skipped: {error}")
            }
            Note::ChunkAdded { chunk, from } => write!(
                f,
                "the PNG had no \"{chunk}\" chunk; one was added from the \"{from}\" card"
            ),
            Note::FileNotRead { file, problem } => write!(
                f,
                "{file} was not read ({problem}): its entry is not in the book, and the file is left as it is"
            ),
            Note::SavedUnderName { wanted, written } => write!(
                f,
                "{wanted} is not the book's (a file of your own, or another tool's), so it was left \
                 alone and the entry was written as {written}"
            ),
            Note::AlreadyOpen { file } => {
                write!(f, "{file} is open already: its tab is shown")
            }
            Note::StaleFileKept { file } => write!(
                f,
                "{file} belonged to an entry the book no longer has, but it changed since the book \
                 read it, so it was left in place"
            ),
            Note::CharxAssets => f.write_str(
                "book read from card.json; the archive's assets are not part of a book and were not read",
            ),
            Note::RisuModuleKept => f.write_str(
                "the archive holds a RisuAI module (module.risum), kept byte for byte; RisuAI reads the lorebook from it rather than from card.json, so RisuAI keeps showing the module's own lorebook until it is edited there",
            ),
            Note::OnlyFirstCharacter { count } => write!(
                f,
                "the archive lists {count} characters; the book of the first was read"
            ),
            Note::PlaceholdersConverted { count } => write!(
                f,
                "Backyard AI placeholders ({{user}}, {{character}}, #{{user}}:) written as SillyTavern's {{{{user}}}} and {{{{char}}}}: {count}"
            ),
            Note::NovelAiStoryRead => f.write_str(
                "a NovelAI story: its lorebook was read; the story is kept for export",
            ),
            Note::NovelAiStoryWritten => {
                f.write_str("written back into the NovelAI story it came from")
            }
            Note::CardFromImport => {
                f.write_str("the card's other fields come from the imported card")
            }
            Note::MinimalCard { name } => write!(
                f,
                "no card was imported with this book; a minimal card named \"{name}\" was written"
            ),
        }
    }
}

impl From<crate::model::Clamped> for Note {
    fn from(c: crate::model::Clamped) -> Self {
        Note::Clamped {
            field: c.field,
            value: c.value,
            min: c.min,
            max: c.max,
            clamped: c.clamped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_its_english_text() {
        let notes = Note::examples();
        for n in &notes {
            let text = n.to_string();
            assert!(text.len() > 8, "{}: {text:?}", n.code());
        }
        let mut seen = std::collections::HashSet::new();
        for n in &notes {
            assert!(seen.insert(n.to_string()), "two codes say the same: {n}");
        }
    }

    #[test]
    fn serializes_as_code_and_parameters() {
        let n = Note::ReadAs {
            value: "\"50\"".into(),
            read: 50,
        };
        let v = serde_json::to_value(&n).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"code": "read_as", "value": "\"50\"", "read": 50})
        );
        assert_eq!(n.to_string(), "\"50\" read as 50");
    }
}
