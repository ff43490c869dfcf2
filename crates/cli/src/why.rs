//! How `lorebook preview` says, under the guide's rules, why an entry is
//! in or out: the engine's reasons with the speaker and entry names only
//! the CLI knows.

use lorebook_engine::chat::Message;
use lorebook_engine::explain::{Activation, DropReason, KeyMatch, Source};

use crate::{comment, Names};

fn describe_match(m: &KeyMatch, books: &Names, chat: &[Message]) -> String {
    let place = match m.source {
        Source::Message { index } => {
            let speaker = chat
                .get(index)
                .and_then(|c| c.name.clone())
                .unwrap_or_else(|| {
                    chat.get(index)
                        .map(|c| c.role.as_str().to_string())
                        .unwrap_or_default()
                });
            format!("message {} ({speaker})", index + 1)
        }
        Source::Entry { book, id } => {
            format!("the body of [{book}:{id}] {}", comment(books, book, id))
        }
    };
    format!(
        "key \"{}\" in {place} at bytes {}..{} (pass {})",
        m.key, m.start, m.end, m.pass
    )
}

pub(crate) fn describe_activation(a: &Activation, books: &Names, chat: &[Message]) -> String {
    match a {
        Activation::Constant => "constant".into(),
        Activation::Kept { since_request } => {
            format!("kept by @@keep since request {since_request}")
        }
        Activation::Key { primary, secondary } => {
            let mut s = describe_match(primary, books, chat);
            for m in secondary {
                s.push_str(&format!("; secondary {}", describe_match(m, books, chat)));
            }
            s
        }
    }
}

/// A drop reason: the engine's English, and for a budget cut how the
/// entry activated, with the speaker and entry names only the CLI knows.
/// `after`: the entry the budget stopped at, for any other entry cut
/// after it (the guide's rule drops everything after the first entry that
/// does not fit, even one that would fit what is left).
pub(crate) fn describe_drop(
    d: &DropReason,
    after: Option<(usize, u64)>,
    books: &Names,
    chat: &[Message],
) -> String {
    match d {
        DropReason::Budget {
            activation,
            needed,
            left,
        } => {
            let why = match after {
                Some((b, id)) => format!(
                    "budget: cut after [{b}:{id}] {} did not fit (this one needs {needed} tokens, {left} left)",
                    comment(books, b, id)
                ),
                None => d.to_string(),
            };
            format!(
                "{why} (activated: {})",
                describe_activation(activation, books, chat)
            )
        }
        _ => d.to_string(),
    }
}
