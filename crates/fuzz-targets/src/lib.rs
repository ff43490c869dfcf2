//! The bodies of the fuzz targets, one function per target of `fuzz/`.
//!
//! Each takes the raw bytes a fuzzer made and panics only when the engine
//! broke a promise: a panic inside the engine, or one of the checks below
//! (a hit outside its text, an export that does not read back, an edited
//! preview that differs from a fresh one). `fuzz/fuzz_targets/<name>.rs`
//! calls [`run`] with its name under libFuzzer; the `replay` test calls
//! the same function on every seed and saved finding with plain
//! `cargo test`, so a crash once found stays fixed without the fuzzer.
//!
//! Inputs that carry more than one part (a book and a chat) separate the
//! parts with a NUL byte, so the seeds stay readable files.

use std::hash::{Hash, Hasher};

use lorebook_engine::chat::{self, ChatOptions, Message};
use lorebook_engine::decorators;
use lorebook_engine::formats::{self, native, ExportFormat, Format};
use lorebook_engine::lint;
use lorebook_engine::matcher::{KeyFlags, KeyOwner, Matcher, MatcherBuilder};
use lorebook_engine::model::{Book, Entry};
use lorebook_engine::preview::{Preview, Settings};
use lorebook_engine::risu::{RisuOptions, RisuPreview, RisuSettings};
use lorebook_engine::sillytavern::{StOptions, StPreview, StSettings, TimedState};

/// A target's body: the bytes a fuzzer made, a panic when a promise broke.
pub type Body = fn(&[u8]);

/// Every target: its name (the file in `fuzz/fuzz_targets/`) and body.
pub const TARGETS: &[(&str, Body)] = &[
    ("import_native", |d| import(Format::Native, d)),
    ("import_sillytavern", |d| import(Format::SillyTavern, d)),
    ("import_card_v2", |d| import(Format::CardV2, d)),
    ("import_card_v3", |d| import(Format::CardV3, d)),
    ("import_character_book", |d| {
        import(Format::CharacterBook, d)
    }),
    ("import_png_card", |d| import(Format::PngCard, d)),
    ("import_charx", |d| import(Format::Charx, d)),
    ("import_byaf", |d| import(Format::Byaf, d)),
    ("import_risu", |d| import(Format::Risu, d)),
    ("import_novelai", |d| import(Format::NovelAi, d)),
    ("import_agnai", |d| import(Format::Agnai, d)),
    ("import_marinara", |d| import(Format::Marinara, d)),
    ("round_trip", round_trip),
    ("chat", chat),
    ("decorators", decorators),
    ("matcher", matcher),
    ("preview_studio", preview_studio),
    ("preview_sillytavern", preview_sillytavern),
    ("preview_risu", preview_risu),
    ("markdown_folder", markdown_folder),
];

/// The body of target `name`, or an error naming it when there is none.
pub fn target(name: &str) -> Result<Body, String> {
    TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, body)| *body)
        .ok_or_else(|| format!("no fuzz target named {name}"))
}

/// Runs target `name` on `data`. Panics on an unknown name (the fuzz
/// target files call it, and a panic is how libFuzzer hears of it), so a
/// fuzz target file and this table cannot drift apart silently.
pub fn run(name: &str, data: &[u8]) {
    match target(name) {
        Ok(body) => body(data),
        Err(e) => panic!("{e}"),
    }
}

/// Chat messages a preview target runs at most (each is one request).
const MAX_MESSAGES: usize = 12;

/// The importer of one format (through the codec table, no detection),
/// and detection plus import of the same bytes.
pub fn import(format: Format, data: &[u8]) {
    if let Ok(imported) = formats::import_as(format, data) {
        assert_eq!(imported.format, format);
        let _ = imported.report.to_string();
        for entry in &imported.book.entries {
            let _ = lint::lint_entry(entry);
        }
    }
    let _ = formats::detect(data);
    let _ = formats::import(data);
}

/// Import, then every export, then the export read back: each export of an
/// imported book must read back, and the native file must keep the book.
pub fn round_trip(data: &[u8]) {
    let Ok(imported) = formats::import(data) else {
        return;
    };
    let book = imported.book;
    let (back, _) = native::load(&native::to_bytes(&book)).expect("the native file reads back");
    assert_eq!(back, book, "the native file keeps the book");
    for to in ExportFormat::ALL {
        let (bytes, _report) =
            formats::export(&book, to).expect("every export format has a writer");
        if let Err(e) = formats::import(&bytes) {
            panic!("the {to} export does not read back: {e}");
        }
    }
    // Writing into the card it came from may be refused (a second card
    // chunk the import did not need can be broken); what it writes must
    // read back.
    if matches!(imported.format, Format::PngCard | Format::Charx) {
        for to in [ExportFormat::CardV2, ExportFormat::CardV3] {
            let Ok((png, _)) = formats::export_into_card(&book, data, to) else {
                continue;
            };
            if let Err(e) = formats::import(&png) {
                panic!("the card written as {to} does not read back: {e}");
            }
        }
    }
}

/// Chat parsing, through the detecting parser and each format's own.
pub fn chat(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let options = ChatOptions::default();
    let _ = chat::parse(&text, &options);
    let _ = chat::parse_openai(&text);
    let _ = chat::parse_jsonl(&text);
    let _ = chat::parse_plain(&text, &options);
    let _ = chat::parse_plain(&text, &ChatOptions { user_names: vec![] });
}

/// The decorator parser on one entry's content, the editor's `set` and
/// `remove` for every known decorator, and the entry lints.
pub fn decorators(data: &[u8]) {
    let content = String::from_utf8_lossy(data);
    let parsed = decorators::parse(&content);
    assert_eq!(parsed.body, &content[parsed.body_start..]);
    for line in &parsed.lines {
        assert!(line.start <= line.end && content.get(line.start..line.end).is_some());
    }
    for spec in decorators::KNOWN {
        let set = decorators::set(&content, spec.name, Some("7"));
        let _ = decorators::parse(&set);
        let removed = decorators::remove(&content, spec.name);
        let again = decorators::parse(&removed);
        assert!(
            again
                .lines
                .iter()
                .all(|l| l.name != spec.name || l.fallback),
            "@@{} removed",
            spec.name
        );
    }
    let entry = Entry {
        keys: vec!["key".into()],
        content: content.into_owned(),
        ..Entry::default()
    };
    let _ = lint::lint_entry(&entry);
}

/// Keys (one per line, up to the first empty line; `FLAGS<TAB>key` sets
/// the flags `c` case-sensitive, `w` whole words, `r` regex), then the
/// text they scan. The quick and the full matcher must agree (on the keys
/// the scan's budget gave up on too), and every hit must lie on character
/// boundaries of the text.
pub fn matcher(data: &[u8]) {
    let input = String::from_utf8_lossy(data);
    let (head, text) = input.split_once("\n\n").unwrap_or((&input, ""));
    let build = |mut b: MatcherBuilder| -> Matcher {
        for (i, line) in head.lines().enumerate() {
            let (flags, key) = match line.split_once('\t') {
                Some((f, k)) => (
                    KeyFlags {
                        case_sensitive: f.contains('c'),
                        whole_words: f.contains('w'),
                        use_regex: f.contains('r'),
                    },
                    k,
                ),
                None => (
                    KeyFlags {
                        whole_words: true,
                        ..KeyFlags::default()
                    },
                    line,
                ),
            };
            let owner = KeyOwner {
                entry: i as u32,
                secondary: i % 2 == 1,
                position: 0,
            };
            b.add(key, owner, flags);
        }
        b.build().0
    };
    let full = build(MatcherBuilder::default());
    let quick = build(MatcherBuilder::quick());
    let mut hits = full.scan(text);
    for hit in hits.iter().filter(|h| !h.gave_up()) {
        assert!(hit.start <= hit.end && text.get(hit.start as usize..hit.end as usize).is_some());
        let _ = (full.owner(hit.key), full.key_text(hit.key));
    }
    let mut quick_hits = quick.scan(text);
    hits.sort_by_key(|h| (h.key, h.start));
    quick_hits.sort_by_key(|h| (h.key, h.start));
    assert_eq!(
        hits, quick_hits,
        "the quick matcher finds what the full one does"
    );
}

/// A book file, a NUL byte, a chat (and, for SillyTavern, a NUL byte and
/// its settings JSON).
fn parts(data: &[u8]) -> Option<(Book, Vec<Message>, &[u8])> {
    let mut it = data.splitn(3, |&b| b == 0);
    let book = formats::import(it.next()?).ok()?.book;
    let text = String::from_utf8_lossy(it.next().unwrap_or_default());
    let mut messages = chat::parse(&text, &ChatOptions::default()).ok()?.messages;
    messages.truncate(MAX_MESSAGES);
    Some((book, messages, it.next().unwrap_or_default()))
}

fn seed_of(data: &[u8]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    data.hash(&mut h);
    h.finish()
}

/// The studio rules: every request of the chat, then an edit of one entry
/// through the incremental path, which must give what a preview built
/// from the edited book gives.
pub fn preview_studio(data: &[u8]) {
    let Some((book, messages, _)) = parts(data) else {
        return;
    };
    let settings = Settings {
        seed: seed_of(data),
        ..Settings::default()
    };
    let mut preview = Preview::new(std::slice::from_ref(&book), settings.clone());
    let _ = preview.log(&messages);
    let Some(first) = book.entries.first() else {
        return;
    };
    let mut edited = first.clone();
    edited.content.push_str(" edited");
    edited.keys.reverse();
    preview.upsert_entry(0, &edited);
    let mut fresh = Preview::new(preview.books(), settings);
    let k = messages.len().max(1);
    assert_eq!(
        preview.request(&messages, k),
        fresh.request(&messages, k),
        "an incremental edit gives what a fresh preview gives"
    );
}

/// The SillyTavern rules: every request of the chat, with its timed
/// effects carried from one request to the next.
pub fn preview_sillytavern(data: &[u8]) {
    let Some((book, messages, settings)) = parts(data) else {
        return;
    };
    let settings = match serde_json::from_slice(settings) {
        Ok(value) => match StSettings::from_value(&value) {
            Ok(s) => s,
            Err(_) => return,
        },
        Err(_) => StSettings::default(),
    };
    let options = StOptions {
        seed: seed_of(data),
        ..StOptions::default()
    };
    let Ok(mut preview) = StPreview::new(&[("world".into(), &book)], settings, options) else {
        return;
    };
    let mut state = TimedState::default();
    for k in 1..=messages.len() {
        let _ = preview.request(&messages[..k], 8192, &mut state);
    }
}

/// RisuAI's rules: every request of the chat with the after-match state
/// carried through; each request's budget holds (what was kept fits, or
/// nothing was), and asking for the last request alone replays the same
/// answer.
pub fn preview_risu(data: &[u8]) {
    let Some((book, messages, settings)) = parts(data) else {
        return;
    };
    let settings = std::str::from_utf8(settings)
        .ok()
        .and_then(|s| RisuSettings::from_json(s).ok())
        .unwrap_or_default();
    let options = RisuOptions {
        seed: seed_of(data),
        ..RisuOptions::default()
    };
    let mut preview = RisuPreview::new(&[&book], settings, options);
    let mut last = None;
    preview.log_each(&messages, |r| {
        let budget = r.budget;
        assert!(
            f64::from(r.used) <= budget || r.used == 0 || budget.is_nan(),
            "request {}: {} tokens used over a budget of {budget}",
            r.request,
            r.used
        );
        last = Some(r);
    });
    if let Some(last) = last {
        let again = preview.request_after(&messages, messages.len());
        assert_eq!(format!("{last:?}"), format!("{again:?}"), "replay differs");
    }
}

/// A book folder made from generated files, read and saved back (issue
/// 37). The input is files separated by NUL bytes, each a relative path
/// on its first line and its bytes after it; a path ending in ` -> ` and
/// a target makes a symbolic link instead (to `..`, `/`, or the file
/// `outside.txt` beside the folder). The promises checked: reading never
/// panics, a save never changes a file outside the folder nor a file the
/// book does not own, and what a save wrote reads back as the same book.
pub fn markdown_folder(data: &[u8]) {
    use formats::markdown;
    use std::sync::atomic::{AtomicU64, Ordering};
    static RUN: AtomicU64 = AtomicU64::new(0);
    let base = std::env::temp_dir().join(format!(
        "lbs-fuzz-folder-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&base);
    let dir = base.join("book");
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let outside = base.join("outside.txt");
    let _ = std::fs::write(&outside, "not the book's\n");
    for part in data.split(|&b| b == 0).take(64) {
        let (head, body) = match part.iter().position(|&b| b == b'\n') {
            Some(i) => (&part[..i], &part[i + 1..]),
            None => (part, &[][..]),
        };
        let Ok(head) = std::str::from_utf8(head) else {
            continue;
        };
        let (path, link) = match head.split_once(" -> ") {
            Some((p, l)) => (p, Some(l)),
            None => (head, None),
        };
        // Relative paths of plain names only, at most 6 deep.
        let names: Vec<&str> = path.split('/').filter(|n| !n.is_empty()).collect();
        if names.is_empty()
            || names.len() > 6
            || names
                .iter()
                .any(|n| *n == "." || *n == ".." || n.len() > 100)
        {
            continue;
        }
        let target = names.iter().fold(dir.clone(), |p, n| p.join(n));
        if let Some(parent) = target.parent() {
            if std::fs::create_dir_all(parent).is_err() {
                continue;
            }
        }
        let _ = match link {
            Some(l) => {
                let to = match l {
                    "/" => std::path::PathBuf::from("/"),
                    ".." => base.clone(),
                    _ => outside.clone(),
                };
                std::os::unix::fs::symlink(to, &target)
            }
            None => std::fs::write(&target, body),
        };
    }
    let snapshot = |root: &std::path::Path| -> Vec<(std::path::PathBuf, Vec<u8>)> {
        fn walk(at: &std::path::Path, out: &mut Vec<(std::path::PathBuf, Vec<u8>)>) {
            let Ok(read) = std::fs::read_dir(at) else {
                return;
            };
            for d in read.flatten() {
                let p = d.path();
                match d.file_type() {
                    Ok(t) if t.is_dir() => walk(&p, out),
                    Ok(t) if t.is_symlink() => out.push((p.clone(), b"link".to_vec())),
                    Ok(_) => out.push((p.clone(), std::fs::read(&p).unwrap_or_default())),
                    Err(_) => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(root, &mut out);
        out.sort();
        out
    };
    if let Ok(read) = markdown::load(&dir) {
        let before_outside = std::fs::read(&outside).unwrap_or_default();
        // The files the book does not own, as they are.
        let foreign: Vec<_> = snapshot(&dir)
            .into_iter()
            .filter(|(p, _)| {
                let rel = p.strip_prefix(&dir).unwrap_or(p);
                !read.manifest.files.get(rel).is_some_and(|s| s.owned)
            })
            .collect();
        if let Ok(saved) = markdown::save(&read.book, &dir, Some(&read.manifest)) {
            let again = markdown::load(&dir).expect("a folder just saved reads");
            assert_eq!(again.book, read.book, "the saved book reads back the same");
            let _ = saved;
        }
        assert_eq!(
            std::fs::read(&outside).unwrap_or_default(),
            before_outside,
            "a file outside the folder changed"
        );
        let now = snapshot(&dir);
        for (p, bytes) in foreign {
            let kept = now.iter().find(|(q, _)| *q == p);
            assert_eq!(
                kept.map(|(_, b)| b),
                Some(&bytes),
                "{} is not the book's and changed",
                p.display()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&base);
}

pub mod seeds;
