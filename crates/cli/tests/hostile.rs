//! Hostile books (issue 17) through `lorebook preview` as a child process:
//! each must end within a few seconds, under 1 GiB of memory, and either
//! succeed or fail with a clear message (never a crash, a hang or a panic).

mod common;

#[path = "hostile/folders.rs"]
mod folders;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{root, tmp};
use serde_json::{json, Value};

const GIB_KIB: u64 = 1 << 20;

/// Runs `lorebook args` (under `/usr/bin/time -v` where it exists, for the
/// child's peak memory), killed and failed past `limit`. Returns the
/// output and the peak resident memory in KiB when measured.
fn bounded(args: &[&str], limit: Duration) -> (Output, Option<u64>) {
    let timed = Path::new("/usr/bin/time").exists();
    let mut cmd = if timed {
        let mut c = Command::new("/usr/bin/time");
        c.arg("-v").arg(env!("CARGO_BIN_EXE_lorebook"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_lorebook"))
    };
    let mut child = cmd
        .args(args)
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run lorebook");
    // Read the pipes on threads, so a large output cannot block the child.
    let mut out_pipe = child.stdout.take().unwrap();
    let mut err_pipe = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut out_pipe, &mut v).ok();
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut err_pipe, &mut v).ok();
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("lorebook {args:?} took more than {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = out.join().unwrap();
    let stderr = err.join().unwrap();
    let text = String::from_utf8_lossy(&stderr);
    let peak = text
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .and_then(|n| n.parse().ok());
    eprintln!(
        "lorebook {:?}…: {:?}, peak {:?} KiB",
        &args[..2.min(args.len())],
        start.elapsed(),
        peak
    );
    (
        Output {
            status,
            stdout,
            stderr,
        },
        peak,
    )
}

/// Runs a preview that must end in time and under 1 GiB; returns it.
fn preview(args: &[&str]) -> Output {
    let (out, peak) = bounded(args, Duration::from_secs(20));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "a crash: {:?} {err}",
        out.status
    );
    if let Some(kib) = peak {
        assert!(kib < GIB_KIB, "lorebook {args:?} took {} MiB", kib >> 10);
    }
    out
}

/// A SillyTavern book file of `entries` (uid = position).
fn st_book(name: &str, entries: Vec<Value>) -> String {
    let mut map = serde_json::Map::new();
    for (i, mut e) in entries.into_iter().enumerate() {
        for (k, v) in [
            ("uid", json!(i)),
            ("keysecondary", json!([])),
            ("position", json!(0)),
            ("order", json!(100)),
        ] {
            if e.get(k).is_none() {
                e[k] = v;
            }
        }
        if e.get("content").is_none() {
            e["content"] = json!(format!("Entry {i}."));
        }
        map.insert(i.to_string(), e);
    }
    let path = tmp(name);
    std::fs::write(&path, json!({ "entries": map }).to_string()).unwrap();
    path.to_str().unwrap().to_string()
}

fn chat(name: &str, text: &str) -> String {
    let path = tmp(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn st_preview(book: &str, chat: &str, more: &[&str]) -> Output {
    let mut args = vec!["preview", book, "--chat", chat, "--rules", "sillytavern"];
    args.extend_from_slice(more);
    preview(&args)
}

#[test]
fn unclosed_macro_openers_do_not_stall_the_sillytavern_preview() {
    let book = st_book(
        "macros.json",
        vec![
            json!({"key": [], "constant": true, "order": 200, "position": 7, "outletName": "x",
                   "content": "{{outlet::x}}"}),
            json!({"key": [], "constant": true, "content": "{{//".repeat(250_000)}),
        ],
    );
    let card = tmp("macros-card.json");
    let scenario = format!(
        "[{{{{outlet::x}}}}] {}{}",
        "{{outlet::".repeat(100_000),
        "::".repeat(250_000)
    );
    std::fs::write(
        &card,
        json!({"spec": "chara_card_v2", "data": {"name": "Mira", "scenario": scenario}})
            .to_string(),
    )
    .unwrap();
    let chat = chat("macros.txt", "User: hello\n");
    let out = st_preview(&book, &chat, &["--st-sources", card.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_regex_key_of_300k_alternatives_is_refused_under_both_rules() {
    let alternatives: Vec<String> = (0..300_000).map(|i| format!("w{i}")).collect();
    let key = format!("/{}/", alternatives.join("|"));
    let book = st_book(
        "huge-regex.json",
        vec![
            json!({"key": [key], "comment": "huge"}),
            json!({"key": ["w1"]}),
        ],
    );
    let chat = chat("huge-regex.txt", "User: w1 w2\n");
    let out = st_preview(&book, &chat, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("is too large to compile"), "{stdout}");
    // The guide's rules read the same book: the key is an error, not a crash.
    let out = preview(&["preview", &book, "--chat", &chat]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn two_thousand_catastrophic_regex_keys_share_one_request_budget() {
    let mut entries: Vec<Value> = (0..2_000)
        .map(|i| json!({"key": [format!("/(a+)+$(?!x{{{i}}})/")]}))
        .collect();
    entries.push(json!({"key": ["lamp"], "comment": "cheap"}));
    let book = st_book("catastrophic.json", entries);
    let chat = chat(
        "catastrophic.txt",
        &format!("User: the lamp {}b\n", "a".repeat(40)),
    );
    let out = st_preview(&book, &chat, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The default settings recurse: the last pass scans a new text, on
    // which the spent budget gives every catastrophic key up at once.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("[0:2000] cheap"), "{stdout}");
    let given_up = stdout.matches("used up this request's time").count()
        + stdout.matches("took too long on this chat").count();
    assert_eq!(given_up, 2_000, "every key is named: {stdout}");
}

/// A file that must be refused promptly, with `expected` in the message.
fn refused(path: &str, expected: &str, st: bool) {
    let chat = chat("refused.txt", "User: hello\n");
    let out = if st {
        let book = st_book("refused-book.json", vec![json!({"key": ["hello"]})]);
        st_preview(&book, &chat, &["--st-settings", path])
    } else {
        preview(&["preview", path, "--chat", &chat])
    };
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(expected), "{err}");
}

#[test]
fn a_png_of_millions_of_empty_chunks_is_refused_within_memory() {
    let n = (256 << 20) / 12 - 8;
    let mut png = Vec::with_capacity(12 * n + 64);
    png.extend_from_slice(
        b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\0\0\0\0",
    );
    for _ in 0..n {
        png.extend_from_slice(b"\0\0\0\0abCD\0\0\0\0");
    }
    png.extend_from_slice(b"\0\0\0\0IEND\xae\x42\x60\x82");
    let path = tmp("empty-chunks.png");
    std::fs::write(&path, &png).unwrap();
    drop(png);
    refused(path.to_str().unwrap(), "not a character card", false);
    std::fs::remove_file(path).ok();
}

#[test]
fn a_charx_listing_millions_of_files_is_refused_within_memory() {
    let n = 5_000_000usize;
    let mut zip = b"PK\x03\x04".to_vec();
    zip.extend_from_slice(&[0; 26]);
    let start = zip.len() as u64;
    for _ in 0..n {
        zip.extend_from_slice(b"PK\x01\x02\x14\0\x14\0");
        zip.extend_from_slice(&[0; 38]);
    }
    let size = zip.len() as u64 - start;
    let eocd64 = zip.len() as u64;
    zip.extend_from_slice(b"PK\x06\x06");
    zip.extend_from_slice(&44u64.to_le_bytes());
    zip.extend_from_slice(&[45, 0, 45, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    zip.extend_from_slice(&(n as u64).to_le_bytes());
    zip.extend_from_slice(&(n as u64).to_le_bytes());
    zip.extend_from_slice(&size.to_le_bytes());
    zip.extend_from_slice(&start.to_le_bytes());
    zip.extend_from_slice(b"PK\x06\x07\0\0\0\0");
    zip.extend_from_slice(&eocd64.to_le_bytes());
    zip.extend_from_slice(&1u32.to_le_bytes());
    zip.extend_from_slice(
        b"PK\x05\x06\0\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\0\0",
    );
    let path = tmp("many-files.charx");
    std::fs::write(&path, &zip).unwrap();
    drop(zip);
    refused(path.to_str().unwrap(), "more than 65535 files", false);
    std::fs::remove_file(path).ok();
}

#[test]
fn a_settings_file_of_millions_of_empty_arrays_is_refused_within_memory() {
    let path = tmp("settings.json");
    let text = format!(
        "{{\"world_info_settings\": {{}}, \"x\": [{}[]]}}",
        "[],".repeat((64 << 20) / 3 - 20)
    );
    std::fs::write(&path, text).unwrap();
    refused(path.to_str().unwrap(), "more than 8000000 values", true);
    std::fs::remove_file(path).ok();
}

/// How many dropped entries of a `preview --json` answer name a key the
/// scan gave up on.
fn given_up(v: &Value) -> usize {
    v["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["reason"]["gave_up"].is_string())
        .count()
}

/// A native book of `entries`.
fn native_book(name: &str, entries: Vec<Value>) -> String {
    let path = tmp(name);
    let file = json!({"spec": "lorebook_v3", "data": {"entries": entries}});
    std::fs::write(&path, file.to_string()).unwrap();
    path.to_str().unwrap().to_string()
}

/// Overlapping whole-word keys `a` … `a`×2,000 over two megabytes of `a`
/// under the guide's rules: the scan gives up within its budget, and the
/// JSON lists each given-up entry with the key (without
/// `--list-unmatched`), while the entry with an ordinary key activates.
#[test]
fn overlapping_keys_over_megabytes_end_in_time_under_the_guide_s_rules() {
    let entries: Vec<Value> = (1..=2_000)
        .map(|n| {
            json!({"id": n, "keys": ["a".repeat(n)], "content": "A.",
                       "extensions": {"match_whole_words": true}})
        })
        .chain([json!({"id": 0, "keys": ["lamp"], "content": "Lamp."})])
        .collect();
    let book = native_book("overlapping.json", entries);
    let chat = chat(
        "overlapping.txt",
        &format!("User: the lamp {}\n", "a".repeat(2 << 20)),
    );
    let out = preview(&["preview", &book, "--chat", &chat, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let injected: Vec<u64> = v["injected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_u64().unwrap())
        .collect();
    assert_eq!(injected, [0]);
    assert_eq!(given_up(&v), 2_000);
    let text = preview(&["preview", &book, "--chat", &chat]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("the scan gave up on key \"aaa\""),
        "{}",
        &text[..text.len().min(2000)]
    );
}

/// 2,000 regex keys with a Unicode `\b` over a megabyte of Cyrillic under
/// the guide's rules end in time: the first are decided, the rest given up
/// on by name.
#[test]
fn unicode_word_boundary_keys_over_a_megabyte_of_cyrillic_end_in_time() {
    let entries: Vec<Value> = (0..2_000)
        .map(|i| json!({"id": i, "keys": [format!("/\\b\\w+ой{i}?\\b/")], "content": "R."}))
        .collect();
    let book = native_book("unicode-b.json", entries);
    let unit = "Привет, мир! Драконы летят над горой. ";
    let chat = chat(
        "unicode-b.txt",
        &format!("User: {}\n", unit.repeat((1 << 20) / unit.len())),
    );
    let out = preview(&["preview", &book, "--chat", &chat, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let injected = v["injected"].as_array().unwrap().len();
    let given_up = given_up(&v);
    assert!(injected >= 1, "the first keys are decided");
    assert!((1_000..2_000).contains(&given_up), "{given_up}");
}
