//! Helpers shared by the foreign-format modules: namespaced extensions,
//! decorator edits, regex keys, and the last step of every entry import.

use serde_json::Value;

use super::report::{EntryReport, Note, Report, Section};
use super::shadow;
use crate::decorators;
use crate::model::{Book, Entry, Object};

/// Removes `extensions[ns]` and returns it (empty when absent or not an
/// object; a non-object value is left in place, it is not ours).
pub(crate) fn take_ns(extensions: &mut Object, ns: &str) -> Object {
    match extensions.get(ns) {
        Some(Value::Object(_)) => match extensions.remove(ns) {
            Some(Value::Object(o)) => o,
            _ => Object::new(),
        },
        _ => Object::new(),
    }
}

/// Stores `fields` as `extensions[ns]`, merging with what is there; nothing
/// when `fields` is empty.
pub(crate) fn put_ns(extensions: &mut Object, ns: &str, fields: Object) {
    if fields.is_empty() {
        return;
    }
    match extensions.get_mut(ns) {
        Some(Value::Object(existing)) => {
            for (k, v) in fields {
                existing.entry(k).or_insert(v);
            }
        }
        Some(_) => {
            // The file already used our namespace for something else: keep
            // both, ours beside it.
            extensions.insert(format!("{ns}_fields"), Value::Object(fields));
        }
        None => {
            extensions.insert(ns.to_string(), Value::Object(fields));
        }
    }
}

/// Removes every line of decorator `name` when it applies; returns the new
/// content. Used when a value moves from a decorator to a field.
pub(crate) fn drop_decorator(content: &str, name: &str) -> String {
    decorators::remove(content, name)
}

/// Sets decorator `name` in content (replacing a line that applies).
pub(crate) fn set_decorator(content: &str, name: &str, arg: Option<&str>) -> String {
    decorators::set(content, name, arg)
}

/// Renames decorator lines `from` to `to` (fallback lines too), keeping the
/// argument and everything else byte for byte.
pub(crate) fn rename_decorator(content: &str, from: &str, to: &str) -> String {
    let parsed = decorators::parse(content);
    let mut out = String::with_capacity(content.len());
    let mut cursor = 0;
    for l in parsed.lines.iter().filter(|l| l.name == from) {
        let prefix = if l.fallback { "@@@" } else { "@@" };
        let name_end = l.start + prefix.len() + l.name.len();
        let (Some(before), Some(rest)) =
            (content.get(cursor..l.start), content.get(name_end..l.end))
        else {
            return content.to_string();
        };
        out.push_str(before);
        out.push_str(prefix);
        out.push_str(to);
        out.push_str(rest);
        cursor = l.end;
    }
    match content.get(cursor..) {
        Some(rest) => out.push_str(rest),
        None => return content.to_string(),
    }
    out
}

/// Whether content's decorator block has a line named `name` (any status).
pub(crate) fn has_decorator_line(content: &str, name: &str) -> bool {
    decorators::parse(content)
        .lines
        .iter()
        .any(|l| l.name == name)
}

/// Whether a key is written `/pattern/flags` (SPEC §5).
pub(crate) fn is_regex_literal(key: &str) -> bool {
    let Some(rest) = key.strip_prefix('/') else {
        return false;
    };
    match rest.rfind('/') {
        Some(i) => rest[i + 1..].chars().all(|c| "imsxugy".contains(c)) && i > 0,
        None => false,
    }
}

/// A key as a `/pattern/flags` literal, for targets without a "keys are
/// regular expressions" switch. A key already written that way is kept.
pub(crate) fn as_regex_literal(key: &str, case_sensitive: bool) -> String {
    if is_regex_literal(key) {
        return key.to_string();
    }
    let mut out = String::with_capacity(key.len() + 3);
    out.push('/');
    let mut escaped = false;
    for c in key.chars() {
        if c == '/' && !escaped {
            out.push('\\');
        }
        escaped = c == '\\' && !escaped;
        out.push(c);
    }
    if escaped {
        // A trailing lone backslash would escape the closing slash.
        out.push('\\');
    }
    out.push('/');
    if !case_sensitive {
        out.push('i');
    }
    out
}

/// Whether `entries` is absent or an array (the formats whose entries are
/// a list are told apart by other fields).
pub(crate) fn entries_are_a_list(top: &Object) -> bool {
    matches!(top.get("entries"), Some(Value::Array(_)) | None)
}

/// The last step of importing one entry: keep what its export would write
/// differently from the source (so X → native → X gives the source back),
/// file its report section, and add it to the book.
pub(crate) fn push_imported(
    book: &mut Book,
    report: &mut Report,
    source: &str,
    raw: &Object,
    emitted: &Object,
    mut e: Entry,
    sec: Section,
) {
    shadow::store(&mut e.extensions, source, shadow::diff(raw, emitted));
    report.entries.push(EntryReport {
        id: e.id,
        name: e.display_name().to_string(),
        fields: sec,
    });
    book.entries.push(e);
}

/// The same for the book's own fields, once every entry is in.
pub(crate) fn finish_imported(
    book: &mut Book,
    source: &str,
    raw_top: &Object,
    emitted_top: &Object,
) {
    shadow::store(
        &mut book.extensions,
        source,
        shadow::diff(raw_top, emitted_top),
    );
}

/// On export to a tool without decorators: every decorator line is
/// reported, since it stays in the text the model will receive.
pub(crate) fn lose_decorators(sec: &mut Section, content: &str, tool: &str) {
    for l in &decorators::parse(content).lines {
        sec.lose(
            format!("@@{}", l.name),
            Note::NoDecorators { tool: tool.into() },
        );
    }
}

/// On export to a tool whose entries hold no extensions: the extensions and
/// the source file's extra fields left over are reported as not carried.
pub(crate) fn lose_leftovers(sec: &mut Section, extensions: &Object, extra: &Object, tool: &str) {
    if !extensions.is_empty() {
        sec.lose(
            format!(
                "extensions ({})",
                extensions.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
            Note::NoExtensions { tool: tool.into() },
        );
    }
    for k in extra.keys() {
        sec.lose(k.clone(), Note::SourceFieldNoPlace { tool: tool.into() });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regex_literals() {
        assert!(is_regex_literal("/a+/i"));
        assert!(is_regex_literal("/a/"));
        assert!(!is_regex_literal("/a/q"));
        assert!(!is_regex_literal("//"));
        assert!(!is_regex_literal("a/b/"));
        assert_eq!(as_regex_literal("a/b", false), "/a\\/b/i");
        assert_eq!(as_regex_literal("x\\/y", true), "/x\\/y/");
        assert_eq!(as_regex_literal("end\\", true), "/end\\\\/");
        assert_eq!(as_regex_literal("/k/i", true), "/k/i");
    }

    #[test]
    fn rename_keeps_the_rest() {
        let c = "@@keep_activate_after_match\n@@bogus\n@@@keep_activate_after_match\nbody @@keep_activate_after_match";
        assert_eq!(
            rename_decorator(c, "keep_activate_after_match", "keep"),
            "@@keep\n@@bogus\n@@@keep\nbody @@keep_activate_after_match"
        );
        assert_eq!(rename_decorator("plain", "a", "b"), "plain");
    }
}
