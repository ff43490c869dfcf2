//! Reading what the preview commands are given on the command line: books
//! in any importable format, detected from the content, the rules, and the
//! request, asked of any profile one way (`drive`).

use std::path::{Path, PathBuf};

use lorebook_engine::chat::Message;
use lorebook_engine::formats::markdown::Manifest;
use lorebook_engine::formats::{self, Imported};
use lorebook_engine::model::Book;
use lorebook_engine::profile::{Outcome, Profile, ProfileName};

use crate::PreviewArgs;

/// The rules' settings of every command that runs a preview (`preview`,
/// `lint`, `diff`, `scenario record`): one group, flattened into each, so
/// an option is written and documented once.
#[derive(clap::Args, Clone, Default)]
pub struct RuleSettings {
    /// SillyTavern's settings.json, or its world_info_settings object
    /// (--rules sillytavern).
    #[arg(long)]
    pub st_settings: Option<PathBuf>,
    /// SillyTavern's context size (max context minus response length), of
    /// which the budget is a share (--rules sillytavern).
    #[arg(long)]
    pub max_context: Option<u32>,
    /// RisuAI's settings by its own names: loreBookDepth, loreBookToken,
    /// the character's loreSettings {tokenBudget, scanDepth,
    /// recursiveScanning, fullWordMatching}, fmIndex (--rules risu).
    #[arg(long)]
    pub risu_settings: Option<PathBuf>,
    /// The RisuAI whose rules apply where its versions differ: 2026 (the
    /// 2026 mainline, the default: the budget counts bodies with their CBS
    /// evaluated, {{position::name}} filled in) or 460ecae (--rules risu).
    #[arg(long, value_name = "2026|460ecae")]
    pub risu_version: Option<String>,
}

impl RuleSettings {
    /// RisuAI's settings: `--risu-settings` (RisuAI's names), else its
    /// defaults, with `--risu-version` over the file's `risuVersion`.
    pub fn risu(&self) -> Result<lorebook_engine::risu::RisuSettings, String> {
        use lorebook_engine::risu::{RisuSettings, RisuVersion};
        let mut s = match self.risu_settings.as_deref() {
            Some(path) => RisuSettings::from_json(&crate::read_text(path)?)
                .map_err(|e| format!("{}: {e}", path.display()))?,
            None => RisuSettings::default(),
        };
        if let Some(v) = &self.risu_version {
            s.version = RisuVersion::parse(v)?;
        }
        Ok(s)
    }

    /// The group as a scenario keeps it (`diff`, `scenario record`): the
    /// settings files read as JSON, the rest of the settings their defaults.
    pub fn scenario(&self) -> Result<lorebook_engine::scenario::Settings, String> {
        let json = |p: &Option<PathBuf>| p.as_deref().map(json_file).transpose();
        Ok(lorebook_engine::scenario::Settings {
            sillytavern: json(&self.st_settings)?,
            max_context: self.max_context,
            risu: match (json(&self.risu_settings)?, &self.risu_version) {
                (risu, None) => risu,
                (risu, Some(v)) => {
                    let mut value = risu.unwrap_or_else(|| serde_json::json!({}));
                    lorebook_engine::risu::RisuVersion::parse(v)?;
                    if let Some(o) = value.as_object_mut() {
                        o.insert("risuVersion".into(), v.trim().into());
                    }
                    Some(value)
                }
            },
            ..Default::default()
        })
    }
}

/// A JSON settings file, as its JSON value.
pub(crate) fn json_file(path: &Path) -> Result<serde_json::Value, String> {
    let text = crate::read_text(path)?;
    formats::parse_json(text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
}

/// Imports a book from bytes.
pub fn from_bytes(bytes: &[u8]) -> Result<Imported, String> {
    formats::import(bytes).map_err(|e| e.to_string())
}

/// Reads and imports a book file, or a book kept as a folder of Markdown
/// files (`formats::markdown`).
pub fn load(path: &Path) -> Result<Imported, String> {
    if path.is_dir() {
        return formats::markdown::import(path);
    }
    let bytes = formats::read_limited(path)?;
    crate::trace::phase("file read");
    from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// [`load`], keeping the manifest of a book kept as a folder (which of its
/// files the book owns), for a command that writes the book back.
pub fn load_for_writing(path: &Path) -> Result<(Imported, Option<Manifest>), String> {
    if path.is_dir() {
        let read = formats::markdown::load(path)?;
        let manifest = read.manifest.clone();
        return Ok((read.imported(), Some(manifest)));
    }
    Ok((load(path)?, None))
}

/// Writes `book` to `out`: into the folder when `out` is a folder (a book
/// kept as one, written back as one, owning what `folder` says the book
/// read from `source`), else as a native book file. What the save says
/// (an entry given another name, a file left in place) goes to standard
/// error.
pub fn write_back(
    book: &Book,
    out: &Path,
    source: &Path,
    folder: Option<&Manifest>,
) -> Result<(), String> {
    if out.is_dir() {
        return write_back_folder(book, out, source, folder);
    }
    let (bytes, _) =
        formats::export(book, formats::ExportFormat::Native).map_err(|e| e.to_string())?;
    formats::write_atomic(out, &bytes).map_err(|e| format!("{}: {e}", out.display()))
}

/// Writes `book` as a folder of Markdown files into `out` (made when
/// missing), owning what `folder` says the book read there when `out` is
/// the folder it was read from (`source`), else what `out`'s own files
/// say (`formats::markdown::write`).
pub fn write_back_folder(
    book: &Book,
    out: &Path,
    source: &Path,
    folder: Option<&Manifest>,
) -> Result<(), String> {
    let same = out.canonicalize().ok() == source.canonicalize().ok();
    let saved = formats::markdown::save(book, out, folder.filter(|_| same))?;
    for note in saved.notes {
        eprintln!("note: {note}");
    }
    Ok(())
}

impl crate::PreviewArgs {
    /// The request to show: `--request K`, else the last of a chat of
    /// `messages`; an error past the end of the chat.
    pub(crate) fn request_in(&self, messages: usize) -> Result<usize, String> {
        let k = self.request.unwrap_or(messages);
        if k > messages {
            return Err(format!(
                "--request {k} is past the end of the chat ({messages} messages)"
            ));
        }
        Ok(k)
    }
}

/// `--rules NAME`: a row of the profile table.
pub(crate) fn parse_profile(s: &str) -> Result<ProfileName, String> {
    ProfileName::parse(s).ok_or_else(|| format!("unknown rules (one of: {})", ProfileName::ids()))
}

/// Asks the profile for what the arguments name: the request log, request
/// K, or the request after the whole chat as the front-end answers it now.
pub(crate) fn drive(
    p: &mut dyn Profile,
    chat: &[Message],
    args: &PreviewArgs,
    print: &mut dyn FnMut(Outcome),
) -> Result<(), String> {
    if args.log {
        // Streamed: each request is printed and dropped before the next,
        // so memory stays flat however long the chat.
        p.log_each(chat, print);
    } else if args.request.is_some() {
        let k = args.request_in(chat.len())?;
        print(p.request(chat, k));
    } else {
        print(p.current(chat));
    }
    Ok(())
}
