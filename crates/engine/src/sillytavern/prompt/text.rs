//! Macros and example dialogue in prompt texts (script.js:
//! `parseMesExamples`; openai.js: `parseExampleIntoIndividual`).

use crate::sillytavern::matching::{js_trim, substitute, Names};

/// Expands the macros the prompt uses: those of [`substitute`] plus
/// `{{charIfNotGroup}}` (the character outside group chats) and
/// `{{outlet::Name}}` (an outlet's joined text; unknown names give ""),
/// whose text is put in after the other macros, as a macro's value is,
/// never expanded again.
pub(super) fn expand(text: &str, names: &Names, outlets: &[(String, String)]) -> String {
    let mut text = text.to_string();
    let mut values: Vec<&str> = Vec::new();
    if text.contains("{{") {
        text = replace_ci(&text, "{{charIfNotGroup}}", &names.char);
        // Each outlet stands as a mark the macros leave alone, then its text.
        let marked = replace_outlets(&text, |name| {
            values.push(
                outlets
                    .iter()
                    .find(|(n, _)| n == name)
                    .map_or("", |(_, v)| v.as_str()),
            );
            OUTLET_MARK
        });
        text = marked;
    }
    let expanded = substitute(&text, names);
    if values.is_empty() {
        return expanded;
    }
    let mut out = String::with_capacity(expanded.len());
    let mut values = values.into_iter();
    let mut pieces = expanded.split(OUTLET_MARK);
    out.push_str(pieces.next().unwrap_or_default());
    for piece in pieces {
        out.push_str(values.next().unwrap_or_default());
        out.push_str(piece);
    }
    out
}

/// Where an outlet's text goes (private-use characters no macro writes).
const OUTLET_MARK: &str = "\u{F8FF}outlet\u{F8FF}";

/// The trimmed name of every `{{outlet::Name}}` in `text`, in order.
pub(super) fn outlet_names(text: &str) -> Vec<&str> {
    let mut names = Vec::new();
    replace_outlets(text, |name| {
        names.push(name);
        ""
    });
    names
}

/// `text` with each `{{outlet::Name}}` (any case; the name runs to the
/// first `}}`) replaced by `value(trimmed name)`, in one pass from left to
/// right: an inserted text is not searched again (an outlet holding its
/// own macro stays as it is), and an opener without a `}}` after it ends
/// the search, so the time is linear in the text.
fn replace_outlets<'t>(text: &'t str, mut value: impl FnMut(&'t str) -> &str) -> String {
    const OPEN: &str = "{{outlet::";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = find_ci(rest, OPEN) {
        let Some(len) = rest[start + OPEN.len()..].find("}}") else {
            break;
        };
        out.push_str(&rest[..start]);
        let inner = start + OPEN.len();
        out.push_str(value(js_trim(&rest[inner..inner + len])));
        rest = &rest[inner + len + 2..];
    }
    out.push_str(rest);
    out
}

pub(super) fn find_ci(text: &str, pattern: &str) -> Option<usize> {
    text.char_indices().map(|(i, _)| i).find(|&i| {
        text.len() >= i + pattern.len()
            && text.is_char_boundary(i + pattern.len())
            && text[i..i + pattern.len()].eq_ignore_ascii_case(pattern)
    })
}

fn replace_ci(text: &str, pattern: &str, value: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = find_ci(rest, pattern) {
        out.push_str(&rest[..at]);
        out.push_str(value);
        rest = &rest[at + pattern.len()..];
    }
    out.push_str(rest);
    out
}

/// Splits an examples text into blocks the way SillyTavern does for Chat
/// Completion (script.js: `parseMesExamples`): a text that does not start
/// with `<START>` gets one, the text is split at every `<START>` (any
/// case), and each block becomes `<START>`, newline, the trimmed block,
/// newline.
pub fn example_blocks(text: &str) -> Vec<String> {
    if text.is_empty() || text == "<START>" {
        return Vec::new();
    }
    let text = if text.starts_with("<START>") {
        text.to_string()
    } else {
        format!("<START>\n{}", js_trim(text))
    };
    let mut marks = Vec::new();
    let mut from = 0;
    while let Some(at) = find_ci(&text[from..], "<START>") {
        marks.push(from + at);
        from += at + "<START>".len();
    }
    marks
        .iter()
        .enumerate()
        .map(|(n, &at)| {
            let end = marks.get(n + 1).copied().unwrap_or(text.len());
            format!("<START>\n{}\n", js_trim(&text[at + "<START>".len()..end]))
        })
        .collect()
}

/// The messages of one example block (openai.js:
/// `setOpenAIMessageExamples`, `parseExampleIntoIndividual`): the first
/// line (the block heading) is skipped; a line starting with `User:`
/// starts a user example, one starting with `Char:` a character example;
/// lines before the first speaker belong to the first message. Each
/// message drops the first `Name:` in it and is trimmed. An example with
/// no speaker line gives no message.
pub fn example_messages(block: &str, names: &Names) -> Vec<(&'static str, String)> {
    let block = block.replace('\r', "");
    let user = format!("{}:", names.user);
    let char = format!("{}:", names.char);
    let mut out = Vec::new();
    let mut lines: Vec<&str> = Vec::new();
    let mut in_user = false;
    let mut in_bot = false;
    let flush = |lines: &mut Vec<&str>,
                 who: &str,
                 name: &'static str,
                 out: &mut Vec<(&'static str, String)>| {
        let joined = lines.join("\n");
        let text = joined.replacen(who, "", 1);
        out.push((name, js_trim(&text).to_string()));
        lines.clear();
    };
    for line in block.split('\n').skip(1) {
        if line.starts_with(&user) {
            if in_bot {
                flush(&mut lines, &char, "example_assistant", &mut out);
            }
            in_user = true;
            in_bot = false;
        } else if line.starts_with(&char) {
            if in_user {
                flush(&mut lines, &user, "example_user", &mut out);
            }
            in_bot = true;
            in_user = false;
        }
        lines.push(line);
    }
    if in_user {
        flush(&mut lines, &user, "example_user", &mut out);
    } else if in_bot {
        flush(&mut lines, &char, "example_assistant", &mut out);
    }
    out
}
