//! Reading what the preview commands are given on the command line: books
//! in any importable format, detected from the content, and the request.

use std::path::Path;

use lorebook_engine::formats::{self, Imported};

/// Imports a book from bytes.
pub fn from_bytes(bytes: &[u8]) -> Result<Imported, String> {
    formats::import(bytes).map_err(|e| e.to_string())
}

/// Reads and imports a book file.
pub fn load(path: &Path) -> Result<Imported, String> {
    let bytes = formats::read_limited(path)?;
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
