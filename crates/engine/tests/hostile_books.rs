//! Hostile books (issue 17): inputs within every file cap that cost far
//! more time or memory than their size. Each test runs its book through
//! the engine with a time limit (a thread that must answer in time) and,
//! for the file formats, a check of the memory the process took.
//!
//! The tests of this file run one at a time (`serial`), so the memory one
//! of them takes is its own.

use std::sync::Mutex;
use std::time::Duration;

use lorebook_engine::chat::{Message, Speaker};
use lorebook_engine::diagnostic::{DiagnosticMessage, PatternLimit};
use lorebook_engine::formats;
use lorebook_engine::matcher::{self, MAX_REGEX_ALTERNATIVES, MAX_REGEX_GROUPS, MAX_REGEX_NESTING};
use lorebook_engine::preview::{Preview, Settings};
use lorebook_engine::sillytavern::matching::REGEX_STEPS_PER_REQUEST;
use lorebook_engine::sillytavern::{
    DropKind, StPreview, StPromptInputs, StResult, StSettings, TimedState,
};
use serde_json::{json, Value};

mod common;
use common::{st_book, within};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A SillyTavern-rules preview of one book of `entries` (uid = position).
fn st_preview(entries: Value) -> StPreview {
    common::st_preview(&st_book(&entries, true), &json!({"world_info_depth": 2}), 0)
}

fn user(text: &str) -> Vec<Message> {
    vec![Message {
        role: Speaker::User,
        name: Some("Tom".into()),
        text: text.into(),
    }]
}

fn detail(r: &StResult, id: u64) -> (DropKind, String) {
    let d = r.dropped.iter().find(|d| d.id == id).unwrap();
    (d.kind, d.detail.to_string())
}

/// A quarter million unclosed `{{//` searched the rest of the text for
/// `}}` at each one (quadratic: minutes per request); `{{outlet::` openers
/// and `::` did the same in the prompt, and an outlet holding its own
/// macro expanded for ever. Now every macro scan is one pass.
#[test]
fn unclosed_macro_openers_expand_in_linear_time() {
    let _serial = serial();
    let (result, prompt) = within(Duration::from_secs(8), || {
        let mut p = st_preview(json!([
            {"constant": true, "order": 200, "position": 7, "outletName": "x",
             "content": "\\{\\{outlet::x\\}\\}"},
            {"constant": true, "content": "{{//".repeat(250_000), "comment": "comments"},
        ]));
        let chat = user("hello");
        let r = p.request(&chat, 8192, &mut TimedState::default());
        let inputs = StPromptInputs {
            scenario: format!(
                "[{{{{outlet::x}}}}] {}{}",
                "{{outlet::".repeat(100_000),
                "::".repeat(250_000)
            ),
            ..StPromptInputs::default()
        };
        let prompt = p.prompt(&r, &chat, &inputs);
        (r, prompt)
    });
    assert!(result.injected.iter().any(|i| i.id == 0));
    // The comment entry is expanded (and then too large for the budget).
    assert_eq!(detail(&result, 1).0, DropKind::Budget);
    let scenario = prompt
        .messages
        .iter()
        .find(|m| m.content.contains("[{{outlet::x}}]"))
        .expect("the outlet's own macro is inserted as it is, not expanded again");
    assert!(scenario.content.ends_with(&"::".repeat(250_000)));
}

/// A regex key of `n` alternatives.
fn alternatives(n: usize) -> String {
    (0..n)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join("|")
}

/// A key of hundreds of thousands of alternatives overflowed the stack of
/// the regex engines' recursive passes (parse, optimise, drop): the
/// process aborted. It is now refused on its text before it is compiled,
/// with its own diagnostic under the guide's rules and its own reason
/// under SillyTavern's, and the other keys still match.
#[test]
fn a_regex_key_of_300k_alternatives_is_refused_not_a_stack_overflow() {
    let _serial = serial();
    let huge = format!("/{}/", alternatives(300_000));
    let key = huge.clone();
    let (diagnostics, injected) = within(Duration::from_secs(8), move || {
        let file = json!({"spec": "lorebook_v3", "data": {"entries": [
            {"id": 0, "keys": [key], "content": "Huge."},
            {"id": 1, "keys": ["/w1\\b/"], "content": "Small."},
        ]}});
        let (book, _) = formats::native::load(file.to_string().as_bytes()).unwrap();
        let mut preview = Preview::new(&[book], Settings::default());
        let chat = user("w1 w2");
        let r = preview.request(&chat, 1);
        let d = preview.index().entry(0, 0).unwrap().diagnostics.clone();
        (d, r.injected.iter().map(|i| i.id).collect::<Vec<_>>())
    });
    assert_eq!(injected, [1]);
    assert!(
        diagnostics.iter().any(|d| matches!(
            &d.message,
            DiagnosticMessage::RegexTooLarge {
                limit: PatternLimit::Length,
                secondary: false,
                ..
            }
        )),
        "{diagnostics:?}"
    );
    let shown = diagnostics[0].message.to_string();
    assert!(shown.contains("too large a regex"), "{shown}");
    assert!(shown.len() < 200, "the key is shortened: {shown}");
    // SillyTavern's rules: the key never matches and the entry says why.
    let key = huge.clone();
    let r = within(Duration::from_secs(8), move || {
        let mut p = st_preview(json!([
            {"key": [key], "comment": "huge"},
            {"key": ["/w1\\b/"]},
        ]));
        p.request(&user("w1 w2"), 8192, &mut TimedState::default())
    });
    assert_eq!(r.injected.iter().map(|i| i.id).collect::<Vec<_>>(), [1]);
    let (kind, text) = detail(&r, 0);
    assert_eq!(kind, DropKind::NoMatch);
    assert!(text.contains("is too large to compile"), "{text}");
}

/// The caps on a pattern's text, just under and just over each: the
/// alternatives, the groups and their nesting (the length cap is above).
#[test]
fn regex_pattern_caps_just_under_and_just_over() {
    let _serial = serial();
    let cases = [
        (
            alternatives(MAX_REGEX_ALTERNATIVES + 1),
            alternatives(MAX_REGEX_ALTERNATIVES + 2),
            PatternLimit::Alternatives,
        ),
        (
            format!("(w1){}", "()".repeat(MAX_REGEX_GROUPS - 1)),
            format!("(w1){}", "()".repeat(MAX_REGEX_GROUPS)),
            PatternLimit::Groups,
        ),
        (
            format!(
                "{}a{}",
                "(".repeat(MAX_REGEX_NESTING),
                ")".repeat(MAX_REGEX_NESTING)
            ),
            format!(
                "{}a{}",
                "(".repeat(MAX_REGEX_NESTING + 1),
                ")".repeat(MAX_REGEX_NESTING + 1)
            ),
            PatternLimit::Nesting,
        ),
    ];
    for (under, over, limit) in cases {
        assert_eq!(matcher::regex_too_large(&under), None, "{limit:?}");
        assert_eq!(matcher::regex_too_large(&over).map(|(l, _)| l), Some(limit));
        // Just under compiles and runs on a 2 MiB stack, under both rules.
        let under_key = format!("/{under}/");
        let over_key = format!("/{over}/");
        let r = within(Duration::from_secs(8), move || {
            let mut p = st_preview(json!([{"key": [under_key]}, {"key": [over_key]}]));
            p.request(&user("w1 a"), 8192, &mut TimedState::default())
        });
        assert_eq!(
            r.injected.iter().map(|i| i.id).collect::<Vec<_>>(),
            [0],
            "{limit:?}"
        );
        assert!(detail(&r, 1).1.contains("too large"), "{limit:?}");
    }
    let max = matcher::MAX_REGEX_PATTERN_BYTES;
    assert_eq!(matcher::regex_too_large(&"a".repeat(max)), None);
    assert_eq!(
        matcher::regex_too_large(&"a".repeat(max + 1)),
        Some((PatternLimit::Length, max))
    );
    // Escaped and bracketed characters do not count.
    let literal = "\\|[|(]".repeat(MAX_REGEX_ALTERNATIVES + 1);
    assert_eq!(matcher::regex_too_large(&literal), None);
}

/// 2,000 catastrophic keys each ran out of their own budget, one after
/// another, on every request (2,000 × 4 Mi steps, minutes). The request's
/// regex keys now share [`REGEX_STEPS_PER_REQUEST`]: once it is spent the
/// keys still to be tested are given up on, and each entry says which
/// key and why.
#[test]
fn two_thousand_catastrophic_keys_share_one_request_budget() {
    let _serial = serial();
    let n = 2_000;
    let r = within(Duration::from_secs(9), move || {
        let entries: Vec<Value> = (0..n)
            .map(|i| json!({"key": [format!("/(a+)+$(?!x{{{i}}})/")]}))
            .chain([json!({"key": ["/lamp/"], "comment": "cheap"})])
            .collect();
        let mut p = st_preview(Value::Array(entries));
        let chat = user(&format!("the lamp {}b", "a".repeat(40)));
        p.request(&chat, 8192, &mut TimedState::default())
    });
    let mut slow = 0;
    let mut spent = 0;
    for i in 0..n {
        let (kind, text) = detail(&r, i as u64);
        assert_eq!(kind, DropKind::NoMatch);
        if text.contains("took too long") {
            slow += 1;
        } else {
            assert!(text.contains("used up this request's time"), "{text}");
            spent += 1;
        }
    }
    eprintln!("{slow} keys ran out of their own budget, {spent} of the request's");
    assert!((1..200).contains(&slow), "{slow}");
    assert_eq!(slow + spent, n);
    const { assert!(REGEX_STEPS_PER_REQUEST >= 1 << 27) };
    // The entry that comes after them was given up on too: the budget
    // is the request's, whatever the key.
    assert!(detail(&r, n as u64).1.contains("used up"));
}

/// Bytes of resident memory the process has taken at most since the last
/// [`reset_peak`], read from `/proc/self/status` (`None` elsewhere).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn current_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Starts the high-water mark of [`peak_rss`] over (Linux: `clear_refs`).
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Runs `f` and returns its answer and the memory it took beyond what the
/// process held before (`None` where it cannot be measured).
fn measured<T>(f: impl FnOnce() -> T) -> (T, Option<u64>) {
    let before = current_rss();
    let reset = reset_peak();
    let out = f();
    let grew = match (reset, before, peak_rss()) {
        (true, Some(before), Some(peak)) => Some(peak.saturating_sub(before)),
        _ => None,
    };
    (out, grew)
}

const MIB: u64 = 1 << 20;

/// A PNG of `n` empty chunks after its header.
fn png_of_empty_chunks(n: usize) -> Vec<u8> {
    let mut png = Vec::with_capacity(8 + 25 + 12 * n + 12);
    png.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    png.extend_from_slice(&[0, 0, 0, 13]);
    png.extend_from_slice(b"IHDR");
    png.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]);
    png.extend_from_slice(&[0; 4]);
    for _ in 0..n {
        png.extend_from_slice(&[0, 0, 0, 0, b'a', b'b', b'C', b'D', 0, 0, 0, 0]);
    }
    png.extend_from_slice(&[0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xAE, 0x42, 0x60, 0x82]);
    png
}

/// 256 MiB of empty PNG chunks (22 million) were listed before the card
/// chunks were looked for, 48 bytes each: over a gigabyte. Now the chunks
/// are read one at a time.
#[test]
fn a_png_of_millions_of_empty_chunks_takes_no_more_than_the_file() {
    let _serial = serial();
    let png = png_of_empty_chunks((256 * MIB as usize - 64) / 12);
    let (err, grew) = measured(|| formats::import(&png).unwrap_err().to_string());
    assert!(err.contains("not a character card"), "{err}");
    if let Some(grew) = grew {
        assert!(grew < 64 * MIB, "took {} MiB", grew / MIB);
    }
}

/// A CHARX whose central directory lists `n` empty files (zip64, so more
/// than 65,535 can be listed).
fn charx_of_empty_entries(n: usize) -> Vec<u8> {
    let mut zip = Vec::with_capacity(46 * n + 200);
    for _ in 0..n {
        zip.extend_from_slice(b"PK\x01\x02");
        zip.extend_from_slice(&[20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        zip.extend_from_slice(&[0; 12]); // crc, sizes
        zip.extend_from_slice(&[0; 6]); // name, extra, comment lengths
        zip.extend_from_slice(&[0; 8]); // disk, attributes
        zip.extend_from_slice(&[0; 4]); // local header offset
    }
    let size = zip.len() as u64;
    let eocd64 = zip.len() as u64;
    zip.extend_from_slice(b"PK\x06\x06");
    zip.extend_from_slice(&44u64.to_le_bytes());
    zip.extend_from_slice(&[45, 0, 45, 0]);
    zip.extend_from_slice(&[0; 8]); // disk numbers
    zip.extend_from_slice(&(n as u64).to_le_bytes());
    zip.extend_from_slice(&(n as u64).to_le_bytes());
    zip.extend_from_slice(&size.to_le_bytes());
    zip.extend_from_slice(&0u64.to_le_bytes());
    zip.extend_from_slice(b"PK\x06\x07");
    zip.extend_from_slice(&0u32.to_le_bytes());
    zip.extend_from_slice(&eocd64.to_le_bytes());
    zip.extend_from_slice(&1u32.to_le_bytes());
    zip.extend_from_slice(b"PK\x05\x06");
    zip.extend_from_slice(&[0; 4]);
    zip.extend_from_slice(&[0xFF; 4]);
    zip.extend_from_slice(&[0xFF; 8]);
    zip.extend_from_slice(&[0; 2]);
    // A local file header first, so the archive is detected as CHARX.
    let mut out = b"PK\x03\x04".to_vec();
    out.extend_from_slice(&[0; 26]);
    let shift = out.len() as u64;
    // Offsets in the directory and the zip64 records count from the start.
    let eocd64_at = zip.len() - 22 - 20 - 56;
    zip[eocd64_at + 48..eocd64_at + 56].copy_from_slice(&shift.to_le_bytes());
    let locator = zip.len() - 22 - 20;
    zip[locator + 8..locator + 16].copy_from_slice(&(eocd64 + shift).to_le_bytes());
    out.extend_from_slice(&zip);
    out
}

/// A CHARX listing millions of files had its whole central directory read
/// by the `zip` crate (hundreds of bytes a file) before `card.json` was
/// looked for; now an archive listing more than
/// [`formats::charx::MAX_CHARX_ENTRIES`] is refused first.
#[test]
fn a_charx_of_millions_of_entries_is_refused_before_its_directory_is_read() {
    let _serial = serial();
    let zip = charx_of_empty_entries(5_000_000);
    let (err, grew) = measured(|| formats::import(&zip).unwrap_err().to_string());
    assert!(err.contains("more than 65535 files"), "{err}");
    if let Some(grew) = grew {
        assert!(grew < 64 * MIB, "took {} MiB", grew / MIB);
    }
    // Just at the cap the directory is read (the archive has no card).
    let cap = formats::charx::MAX_CHARX_ENTRIES;
    let err = formats::import(&charx_of_empty_entries(cap))
        .unwrap_err()
        .to_string();
    assert!(!err.contains("more than"), "{err}");
    let err = formats::import(&charx_of_empty_entries(cap + 1))
        .unwrap_err()
        .to_string();
    assert!(err.contains("more than 65535 files"), "{err}");
}

/// A 64 MiB SillyTavern `settings.json` of empty arrays parsed into
/// gigabytes; it now meets the JSON caps of books.
#[test]
fn a_settings_file_of_millions_of_empty_arrays_is_refused_before_parsing() {
    let _serial = serial();
    let text = format!(
        "{{\"world_info_settings\": {{}}, \"x\": [{}[]]}}",
        "[],".repeat(21_000_000)
    );
    let (err, grew) = measured(|| StSettings::from_json(&text).unwrap_err());
    assert!(err.contains("more than 8000000 values"), "{err}");
    if let Some(grew) = grew {
        assert!(grew < 64 * MIB, "took {} MiB", grew / MIB);
    }
    let ok = StSettings::from_json("\u{feff}{\"world_info_settings\": {\"world_info_depth\": 3}}");
    assert_eq!(ok.unwrap().depth, 3.0);
}

/// A guide's-rules preview of a native book of `entries`, run on one user
/// message `text`; returns the result.
fn studio_request(entries: Vec<Value>, text: String) -> lorebook_engine::explain::RequestResult {
    let file = json!({"spec": "lorebook_v3", "data": {"entries": entries}});
    let (book, _) = formats::native::load(file.to_string().as_bytes()).unwrap();
    let mut preview = Preview::new(&[book], Settings::default());
    preview.request(&user(&text), 1)
}

/// The key a dropped entry's scan gave up on, if it did.
fn gave_up(r: &lorebook_engine::explain::RequestResult, id: u64) -> Option<String> {
    let d = r.dropped.iter().find(|d| d.id == id)?;
    match &d.reason {
        lorebook_engine::explain::DropReason::NoMatch { gave_up, .. } => gave_up.clone(),
        _ => None,
    }
}

/// Overlapping keys under the guide's rules (issue 17): `a`, `aa`, …
/// `a`×2,000 as whole words over two megabytes of `a` made the overlapping
/// search report all 2,000 keys at every position (4 × 10^9 matches).
/// The scan now gives up once its text's budget is spent; the entries say
/// which key was given up on, and a key found before that still counts.
#[test]
fn overlapping_keys_over_megabytes_are_given_up_in_time() {
    let _serial = serial();
    let r = within(Duration::from_secs(20), || {
        let entries: Vec<Value> = (1..=2_000)
            .map(|n| {
                json!({"id": n, "keys": ["a".repeat(n)], "content": "A.",
                       "extensions": {"match_whole_words": true}})
            })
            .chain([json!({"id": 0, "keys": ["lamp"], "content": "Lamp."})])
            .collect();
        studio_request(entries, format!("the lamp {}", "a".repeat(2 << 20)))
    });
    assert_eq!(r.injected.iter().map(|i| i.id).collect::<Vec<_>>(), [0]);
    for n in 1..=2_000u64 {
        assert_eq!(
            gave_up(&r, n).as_deref(),
            Some("a".repeat(n as usize).as_str())
        );
    }
}

/// A regex key with a Unicode word boundary runs on the PikeVM over a
/// text that is not ASCII (about 100 ns a byte): 2,000 of them over a
/// megabyte of Cyrillic would take minutes. The scan's budget charges
/// each its text's length, so the first keys are decided exactly and the
/// rest given up on, by name.
#[test]
fn unicode_word_boundary_keys_over_a_long_cyrillic_chat_are_bounded() {
    let _serial = serial();
    let unit = "Привет, мир! Драконы летят над горой. ";
    let text = unit.repeat((1 << 20) / unit.len());
    let r = within(Duration::from_secs(30), move || {
        let entries: Vec<Value> = (0..2_000)
            .map(|i| json!({"id": i, "keys": [format!("/\\b\\w+ой{i}?\\b/")], "content": "R."}))
            .collect();
        studio_request(entries, text)
    });
    let given_up = (0..2_000).filter(|&i| gave_up(&r, i).is_some()).count();
    eprintln!("{} keys decided, {given_up} given up on", 2_000 - given_up);
    assert!(!r.injected.is_empty(), "the first keys are decided");
    assert!((1_000..2_000).contains(&given_up), "{given_up}");
    assert!(gave_up(&r, 0).is_none());
    assert!(gave_up(&r, 1_999).unwrap().starts_with("/\\b\\w+ой"));
}
