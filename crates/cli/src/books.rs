//! Reading what the preview commands are given on the command line: books
//! in any importable format, detected from the content, the rules, and the
//! request, asked of any profile one way (`drive`).

use std::path::Path;

use lorebook_engine::chat::Message;
use lorebook_engine::formats::{self, Imported};
use lorebook_engine::profile::{Outcome, Profile, ProfileName};

use crate::PreviewArgs;

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
