//! Helpers shared by the foreign-format modules: namespaced extensions,
//! decorator edits, regex keys, the last step of every entry import, and
//! the steps every export shares (writing the entries, restoring the
//! source's spellings, reporting what the target has no place for).

use serde_json::Value;

use super::error::ImportError;
use super::report::{EntryReport, Note, Report, Section};
use super::shadow;
use crate::decorators;
use crate::model::{Book, Entry, Object, Role};

/// The book fields the model owns, besides its entries.
pub(crate) const BOOK_FIELDS: [&str; 6] = [
    "name",
    "description",
    "scan_depth",
    "token_budget",
    "recursive_scanning",
    "extensions",
];

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
        Some(Value::Object(existing)) => fill_in(existing, fields),
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

/// Adds each of `fields` to `o` unless `o` has a field of that name.
pub(crate) fn fill_in(o: &mut Object, fields: Object) {
    for (k, v) in fields {
        o.entry(k).or_insert(v);
    }
}

/// What an export writes an object's `extensions` from: them without the
/// records [`shadow`] keeps for `source`, and the `ns` namespace taken out
/// of them (the source's fields the model has no place for).
pub(crate) fn split_extensions(extensions: &Object, source: &str, ns: &str) -> (Object, Object) {
    let mut ext = extensions.clone();
    shadow::take(&mut ext, source);
    let own = take_ns(&mut ext, ns);
    (ext, own)
}

/// Removes every line of decorator `name` when it applies; returns the new
/// content. Used when a value moves from a decorator to a field.
pub(crate) fn drop_decorator(content: &str, name: &str) -> String {
    decorators::remove(content, name)
}

/// On export: decorator `name` is written as the target's field `target`
/// with `value`, so its line is removed from the content (and reported).
pub(crate) fn decorator_to_field(
    content: &mut String,
    sec: &mut Section,
    name: &str,
    target: &str,
    value: impl ToString,
) {
    *content = drop_decorator(content, name);
    sec.approx(
        format!("@@{name}"),
        Note::WrittenAs {
            target: target.into(),
            value: value.to_string(),
        },
    );
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

/// A source's activation chance in field `field`, `v` read as the percent
/// `n` (`changed` when it had to be rounded or clamped), written as
/// `@@probability n` (no line at 100).
pub(crate) fn probability_from(
    content: &mut String,
    sec: &mut Section,
    field: &str,
    v: &Value,
    (n, changed): (u8, bool),
) {
    if n < 100 {
        *content = set_decorator(content, "probability", Some(&n.to_string()));
    }
    if changed {
        sec.approx(
            field,
            Note::ReadAs {
                value: v.to_string(),
                read: n.into(),
            },
        );
    } else {
        sec.carry(format!("{field} (as @@probability)"));
    }
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

/// A new entry as read from a tool that matches keys inside words:
/// whole-word matching off.
pub(crate) fn inside_words_entry() -> Entry {
    Entry {
        whole_words: false,
        ..Entry::default()
    }
}

/// The rest of an import once the book's own fields are read: each of
/// `entries` must be an object (named `path(i)` in errors), the format's
/// `read` maps it, its id is its place in the list, and [`push_imported`]
/// files it with what `write` exports for it; then [`finish_imported`]
/// keeps what `top` writes differently from the source's `raw_top`.
pub(crate) fn import_entries(
    mut book: Book,
    report: &mut Report,
    m: &Mapping,
    entries: Vec<Value>,
    path: impl Fn(usize) -> String,
    raw_top: &Object,
) -> Result<Book, ImportError> {
    for (i, raw) in entries.into_iter().enumerate() {
        let path = path(i);
        let Value::Object(raw) = raw else {
            return Err(ImportError::field(path, "must be an object"));
        };
        let mut sec = Section::default();
        let mut e = (m.read)(raw.clone(), &path, &mut sec)?;
        e.id = i as u64;
        let emitted = (m.write)(&e, &mut Section::default());
        push_imported(&mut book, report, m.source, &raw, &emitted, e, sec);
    }
    let emitted_top = (m.top)(&book);
    finish_imported(&mut book, m.source, raw_top, &emitted_top);
    Ok(book)
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
    file_imported(report, source, raw, emitted, &mut e, sec);
    book.entries.push(e);
}

/// [`push_imported`] for an entry already in its book.
pub(crate) fn file_imported(
    report: &mut Report,
    source: &str,
    raw: &Object,
    emitted: &Object,
    e: &mut Entry,
    sec: Section,
) {
    shadow::store(&mut e.extensions, source, shadow::diff(raw, emitted));
    report.entries.push(EntryReport {
        id: e.id,
        name: e.display_name().to_string(),
        fields: sec,
    });
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

/// On export: one entry as `write` maps it, in its own section of the
/// report, with the spellings its import from `source` kept restored.
pub(crate) fn export_entry(
    report: &mut Report,
    e: &Entry,
    source: &str,
    write: impl FnOnce(&Entry, &mut Section) -> Object,
) -> Object {
    let sec = report.entry(e.id, e.display_name());
    let mut o = write(e, sec);
    shadow::restore_reported(&mut o, &e.extensions, source, sec);
    o
}

/// What an export to a foreign format writes before its own steps: every
/// entry through [`export_entry`] with the format's `write`, the top-level
/// fields its `top` maps the book to with the spellings its import kept
/// restored, and the book's extensions left to report (the format's
/// namespace among them).
pub(crate) fn export_parts(
    book: &Book,
    report: &mut Report,
    m: &Mapping,
) -> (Vec<Value>, Object, Object) {
    let entries = book
        .entries
        .iter()
        .map(|e| Value::Object(export_entry(report, e, m.source, m.write)))
        .collect();
    let mut top = (m.top)(book);
    let mut ext = book.extensions.clone();
    shadow::restore(&mut top, &shadow::take(&mut ext, m.source));
    (entries, top, ext)
}

/// On export to a tool with no place for the book's settings: each of
/// them but `kept` that differs from a new book's is reported with `note`.
pub(crate) fn lose_book_fields(report: &mut Report, book: &Book, kept: &[&str], note: &Note) {
    let d = Book::default();
    let changed = [
        ("name", book.name != d.name),
        ("description", book.description != d.description),
        ("scan_depth", book.scan_depth != d.scan_depth),
        ("token_budget", book.token_budget != d.token_budget),
        (
            "recursive_scanning",
            book.recursive_scanning != d.recursive_scanning,
        ),
    ];
    for (f, differs) in changed {
        if differs && !kept.contains(&f) {
            report.book.lose(f, note.clone());
        }
    }
}

/// On export to a tool with no place for the book's extensions: those of
/// `ext` other than `ns` (the tool's own fields, written back) are
/// reported.
pub(crate) fn lose_book_extensions(report: &mut Report, ext: &Object, ns: &str, tool: &str) {
    let ext_keys: Vec<String> = ext.keys().filter(|k| *k != ns).cloned().collect();
    if !ext_keys.is_empty() {
        report.book.lose(
            format!("extensions ({})", ext_keys.join(", ")),
            Note::BookFieldNoPlace { tool: tool.into() },
        );
    }
}

/// An entry switch some tools have no place for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Switch {
    Constant,
    CaseSensitive,
    WholeWords,
    Regex,
    /// A role other than system.
    Role,
}

impl Switch {
    /// Whether `e` uses the switch, and its field.
    fn used(self, e: &Entry) -> (bool, &'static str) {
        match self {
            Switch::Constant => (e.constant, "constant"),
            Switch::CaseSensitive => (e.case_sensitive, "case_sensitive"),
            Switch::WholeWords => (e.whole_words, "whole_words"),
            Switch::Regex => (e.use_regex, "use_regex"),
            Switch::Role => (e.role != Role::System, "role"),
        }
    }

    /// Why `tool` does not carry it.
    fn note(self, tool: &str) -> Note {
        let tool = tool.into();
        match self {
            Switch::Constant => Note::NoConstant { tool },
            Switch::CaseSensitive => Note::CaseInsensitive { tool },
            Switch::WholeWords => Note::InsideWords { tool },
            Switch::Regex => Note::NoRegex { tool },
            Switch::Role => Note::NoRole { tool },
        }
    }
}

/// What the steps shared by the formats of other tools (Agnai, NovelAI,
/// RisuAI) need to know of one.
pub(crate) struct Mapping {
    /// The tool's name in the report's notes.
    pub tool: &'static str,
    /// The entry switches it has no place for.
    pub lacks: &'static [Switch],
    /// Whether it has no decorators (their lines stay in the text).
    pub lacks_decorators: bool,
    /// Its name for the source spellings [`shadow`] keeps.
    pub source: &'static str,
    /// One entry object of the format read into the model.
    pub read: fn(Object, &str, &mut Section) -> Result<Entry, ImportError>,
    /// One entry written as the format's object (before the source's
    /// spellings are restored), reporting what it cannot carry.
    pub write: fn(&Entry, &mut Section) -> Object,
    /// The book's top-level fields as the format writes them, without the
    /// entries (before the source's spellings are restored).
    pub top: fn(&Book) -> Object,
}

/// On export: reports what `m.tool` has no place for in entry `e`: the
/// switches it uses, its decorator lines, and the extensions `ext` and
/// source fields left over.
pub(crate) fn lose_lacking(sec: &mut Section, e: &Entry, ext: &Object, m: &Mapping) {
    for s in m.lacks {
        if let (true, field) = s.used(e) {
            sec.lose(field, s.note(m.tool));
        }
    }
    if m.lacks_decorators {
        lose_decorators(sec, &e.content, m.tool);
    }
    lose_leftovers(sec, ext, &e.extra, m.tool);
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
