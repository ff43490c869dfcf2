//! Hostile book folders and hostile shapes through the CLI (issue 37): a
//! cloned repository must be safe to open and save. Each command ends in
//! time and under 1 GiB, exits 0 or with a clear error, and every file
//! that is not the book's own stays byte for byte.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use serde_json::{json, Value};

use super::{bounded, GIB_KIB};
use crate::common::{root, tmp};

/// Runs `lorebook args` within `secs` and 1 GiB; exit 0 or 1/2 with a
/// message, never a crash.
fn run(args: &[&str], secs: u64) -> Output {
    let (out, peak) = bounded(args, Duration::from_secs(secs));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        matches!(out.status.code(), Some(0..=3)),
        "a crash: {:?} {err}",
        out.status
    );
    if let Some(kib) = peak {
        assert!(kib < GIB_KIB, "lorebook {args:?} took {} MiB", kib >> 10);
    }
    out
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn failed_saying(out: &Output, words: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "should fail: {err}");
    for w in words {
        assert!(err.contains(w), "{w:?} not in {err}");
    }
}

/// Every file under `dir` with its bytes (links by their target).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, at: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        let Ok(read) = std::fs::read_dir(at) else {
            return;
        };
        for d in read.flatten() {
            let path = d.path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            let kind = d.file_type().unwrap();
            if kind.is_symlink() {
                out.insert(
                    rel,
                    std::fs::read_link(&path)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                );
            } else if kind.is_dir() {
                walk(root, &path, out);
            } else if kind.is_file() {
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A fresh scratch folder.
fn fresh(name: &str) -> PathBuf {
    let dir = tmp(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The bundled sample as a book folder at `dir`.
fn sample_folder(dir: &Path) {
    let sample = root().join("samples/saltmere.json");
    ok(&run(
        &["convert", s(&sample), "--to", "folder", "-o", s(dir)],
        20,
    ));
}

/// A small book with a folder (`Places`, holding `Tavern`), as a native
/// file; returns its path.
fn folder_book(name: &str) -> PathBuf {
    let path = fresh(name);
    std::fs::write(
        &path,
        json!({"spec": "lorebook_v3", "data": {"name": "Harbor", "entries": [
            {"id": 1, "keys": ["lighthouse"], "comment": "The Lighthouse",
             "content": "The lighthouse is dark."},
            {"id": 2, "keys": [], "comment": "Places", "content": "",
             "extensions": {"lorebook_studio_is_folder": true}},
            {"id": 3, "keys": ["tavern"], "comment": "Tavern",
             "content": "The lighthouse keeper drinks here.",
             "extensions": {"lorebook_studio_parent": 2}}
        ]}})
        .to_string(),
    )
    .unwrap();
    path
}

/// Somebody's files beside the book: a folder holding `secret.txt`.
fn outside(name: &str) -> PathBuf {
    let dir = fresh(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("secret.txt"), "export PATH=/usr/bin\n").unwrap();
    dir
}

#[test]
fn links_out_of_a_book_folder_are_never_written_through() {
    let dir = fresh("h37-links");
    let sample = folder_book("h37-links.json");
    ok(&run(
        &["convert", s(&sample), "--to", "folder", "-o", s(&dir)],
        20,
    ));
    let out_dir = outside("h37-links-outside");
    // The repository holds the lighthouse's file as a link to a file of
    // the user's, and a folder of the book as a link to another folder.
    std::fs::remove_file(dir.join("The Lighthouse.md")).unwrap();
    std::os::unix::fs::symlink(out_dir.join("secret.txt"), dir.join("The Lighthouse.md")).unwrap();
    let before = snapshot(&out_dir);
    let out = run(
        &["convert", s(&sample), "--to", "folder", "-o", s(&dir)],
        20,
    );
    failed_saying(&out, &["The Lighthouse.md", "symbolic link"]);
    // Read, the link is named and not followed.
    let out = run(&["inspect", s(&dir)], 20);
    ok(&out);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("symbolic link"), "{text}");
    assert_eq!(snapshot(&out_dir), before);
    // A linked subfolder.
    let dir = fresh("h37-linked-dir");
    ok(&run(
        &["convert", s(&sample), "--to", "folder", "-o", s(&dir)],
        20,
    ));
    let places: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    assert!(!places.is_empty(), "the book has a folder");
    let sub = &places[0];
    std::fs::remove_dir_all(sub).unwrap();
    std::os::unix::fs::symlink(&out_dir, sub).unwrap();
    let out = run(
        &["convert", s(&sample), "--to", "folder", "-o", s(&dir)],
        20,
    );
    failed_saying(&out, &["symbolic link"]);
    assert_eq!(snapshot(&out_dir), before);
}

#[test]
fn notes_and_a_broken_folder_file_beside_the_entries_stay_as_they_are() {
    let dir = fresh("h37-notes");
    let book = folder_book("h37-notes.json");
    ok(&run(
        &["convert", s(&book), "--to", "folder", "-o", s(&dir)],
        20,
    ));
    let sub = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.is_dir())
        .unwrap();
    std::fs::write(dir.join("Harbor.md"), "Notes on the harbor, mine.\n").unwrap();
    std::fs::write(sub.join("_folder.md"), "---\nid: [broken\n---\n").unwrap();
    let note = std::fs::read(dir.join("Harbor.md")).unwrap();
    let broken = std::fs::read(sub.join("_folder.md")).unwrap();
    // Replace writes the folder back as a folder (it used to print its
    // edits and fail with "Is a directory").
    let out = run(
        &[
            "replace",
            s(&dir),
            "--find",
            "lighthouse",
            "--with",
            "beacon",
        ],
        20,
    );
    ok(&out);
    assert!(dir.is_dir() && dir.join("book.yaml").is_file());
    assert_eq!(std::fs::read(dir.join("Harbor.md")).unwrap(), note);
    assert_eq!(std::fs::read(sub.join("_folder.md")).unwrap(), broken);
    let text = String::from_utf8(run(&["convert", s(&dir), "--to", "native"], 20).stdout).unwrap();
    assert!(text.contains("beacon") && !text.contains("lighthouse"));
    // A new entry named like the note: the note keeps its name.
    let book = fresh("h37-notes-book.json");
    std::fs::write(
        &book,
        json!({"spec": "lorebook_v3", "data": {"name": "Saltmere", "entries": [
            {"id": 1, "keys": ["harbor"], "comment": "Harbor", "content": "Boats."}
        ]}})
        .to_string(),
    )
    .unwrap();
    let other = fresh("h37-notes-2");
    std::fs::create_dir_all(&other).unwrap();
    ok(&run(
        &["convert", s(&book), "--to", "folder", "-o", s(&other)],
        20,
    ));
    std::fs::write(other.join("Harbor.md"), "Mine.\n").unwrap();
    let out = run(
        &["convert", s(&book), "--to", "folder", "-o", s(&other)],
        20,
    );
    ok(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("Harbor (2).md"));
    assert_eq!(
        std::fs::read_to_string(other.join("Harbor.md")).unwrap(),
        "Mine.\n"
    );
}

#[test]
fn another_tool_s_folder_with_a_book_yaml_is_never_written_into() {
    let site = fresh("h37-site");
    std::fs::create_dir_all(site.join("_posts")).unwrap();
    std::fs::write(site.join("book.yaml"), "title: My site\n").unwrap();
    std::fs::write(site.join("index.md"), "---\nlayout: home\n---\nHi.\n").unwrap();
    std::fs::write(site.join("_posts/a.md"), "---\nid: 4\n---\nA post.\n").unwrap();
    let before = snapshot(&site);
    let sample = root().join("samples/saltmere.json");
    let out = run(
        &["convert", s(&sample), "--to", "folder", "-o", s(&site)],
        20,
    );
    failed_saying(&out, &["another tool"]);
    let out = run(&["inspect", s(&site)], 20);
    failed_saying(&out, &["another tool"]);
    assert_eq!(snapshot(&site), before);
}

#[test]
fn reserved_and_long_names_save_whole_and_read_back() {
    let long = "灯台守の物語".repeat(14);
    let book = fresh("h37-names.json");
    std::fs::write(
        &book,
        json!({"spec": "lorebook_v3", "data": {"name": "Names", "entries": [
            {"id": 1, "keys": ["a"], "comment": long, "content": "Long."},
            {"id": 2, "keys": [], "comment": "book.yaml", "content": "",
             "extensions": {"lorebook_studio_is_folder": true}},
            {"id": 3, "keys": ["b"], "comment": "In", "content": "B.",
             "extensions": {"lorebook_studio_parent": 2}},
            {"id": 4, "keys": [], "comment": "_folder.md", "content": "",
             "extensions": {"lorebook_studio_is_folder": true, "lorebook_studio_parent": 2}},
            {"id": 5, "keys": ["c"], "comment": "Deep", "content": "C.",
             "extensions": {"lorebook_studio_parent": 4}}
        ]}})
        .to_string(),
    )
    .unwrap();
    let dir = fresh("h37-names");
    ok(&run(
        &["convert", s(&book), "--to", "folder", "-o", s(&dir)],
        20,
    ));
    let direct = run(&["convert", s(&book), "--to", "native"], 20).stdout;
    let back = run(&["convert", s(&dir), "--to", "native"], 20).stdout;
    assert_eq!(
        String::from_utf8(back).unwrap(),
        String::from_utf8(direct).unwrap()
    );
}

#[test]
fn a_fifo_in_a_book_folder_never_stalls_a_command() {
    let dir = fresh("h37-fifo");
    sample_folder(&dir);
    std::fs::remove_file(dir.join("The Lighthouse.md")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(dir.join("The Lighthouse.md"))
        .status()
        .unwrap();
    assert!(made.success());
    let out = run(&["inspect", s(&dir)], 10);
    ok(&out);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("FIFO"), "{text}");
    let sample = root().join("samples/saltmere.json");
    let out = run(
        &["convert", s(&sample), "--to", "folder", "-o", s(&dir)],
        10,
    );
    failed_saying(&out, &["FIFO"]);
}

#[test]
fn yaml_aliases_huge_lists_and_a_folder_over_the_cap_are_refused_in_time() {
    let dir = fresh("h37-yaml");
    sample_folder(&dir);
    let mut bomb = String::from("---\nid: 500\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        bomb.push_str(&format!(
            "a{i}: &a{i} [{}]\n",
            vec![format!("*a{}", i - 1); 10].join(", ")
        ));
    }
    bomb.push_str("---\nBody\n");
    std::fs::write(dir.join("Bomb.md"), bomb).unwrap();
    let mut flood = String::from("---\nid: 501\nx: [");
    flood.push_str(&"[],".repeat(16 << 20));
    flood.push_str("]\n---\n");
    std::fs::write(dir.join("Flood.md"), flood).unwrap();
    let out = run(&["inspect", s(&dir)], 30);
    ok(&out);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("Bomb.md") && text.contains("Flood.md"),
        "{text}"
    );
    // Forty sparse 60 MiB files: over the book cap, refused before reading.
    std::fs::remove_file(dir.join("Flood.md")).unwrap();
    for i in 0..40 {
        let f = std::fs::File::create(dir.join(format!("Sparse {i}.md"))).unwrap();
        f.set_len(60 << 20).unwrap();
    }
    let out = run(&["inspect", s(&dir)], 10);
    failed_saying(&out, &["256 MiB"]);
}

/// A native book whose folders nest `depth` deep, one entry at the bottom.
fn chain(name: &str, depth: u64) -> PathBuf {
    let mut entries: Vec<Value> = (0..depth)
        .map(|i| {
            let mut ext = json!({"lorebook_studio_is_folder": true});
            if i > 0 {
                ext["lorebook_studio_parent"] = json!(i - 1);
            }
            json!({"id": i, "keys": [], "comment": format!("F{i}"), "content": "", "extensions": ext})
        })
        .collect();
    entries.push(
        json!({"id": depth, "keys": ["deep"], "comment": "Deep", "content": "Deep lore.",
        "extensions": {"lorebook_studio_parent": depth - 1}}),
    );
    let path = fresh(name);
    std::fs::write(
        &path,
        json!({"spec": "lorebook_v3", "data": {"name": "Chain", "entries": entries}}).to_string(),
    )
    .unwrap();
    path
}

#[test]
fn fifty_thousand_nested_folders_are_read_counted_and_converted_in_time() {
    let book = chain("h37-chain.json", 50_000);
    let chat = fresh("h37-chain-chat.txt");
    std::fs::write(&chat, "User: tell me the deep lore\n").unwrap();
    let b = s(&book);
    let out = run(&["inspect", b, "--chat", s(&chat)], 20);
    ok(&out);
    ok(&run(&["lint", b, "--chat", s(&chat)], 20));
    ok(&run(
        &["preview", b, "--chat", s(&chat), "--rules", "sillytavern"],
        20,
    ));
    let st = fresh("h37-chain-st.json");
    ok(&run(
        &["convert", b, "--to", "sillytavern", "-o", s(&st)],
        20,
    ));
    // Back: one entry's folder path of 50,000 names.
    let out = run(&["convert", s(&st), "--to", "native"], 20);
    ok(&out);
    let dir = fresh("h37-chain-dir");
    let out = run(&["convert", b, "--to", "folder", "-o", s(&dir)], 20);
    failed_saying(&out, &["at most 64"]);
    assert!(!dir.exists(), "nothing written");
}

#[test]
fn a_scenario_of_twelve_hundred_expectations_runs_in_time() {
    let chat: String = (0..1200)
        .map(|i| {
            let who = if i % 2 == 0 { "User" } else { "Narrator" };
            format!("{who}: the {} again\n", ["fog", "bell", "tide"][i % 3])
        })
        .collect();
    let injected: Vec<Value> = (1..=1200).map(|k| json!({"id": 1, "request": k})).collect();
    let book = fresh("h37-scenario.json");
    std::fs::write(
        &book,
        json!({"spec": "lorebook_v3", "data": {"name": "Timed", "entries": [
            {"id": 1, "keys": ["fog"], "comment": "Fog", "content": "Fog rolls in.",
             "extensions": {"sticky": 2, "cooldown": 1}},
            {"id": 2, "keys": ["bell"], "comment": "Bell", "content": "A bell rings.",
             "extensions": {"sticky": 1}}
        ], "extensions": {"lorebook_studio": {"scenarios": [
            {"name": "long", "chat": chat, "rules": "sillytavern",
             "expect": {"injected": injected}}
        ]}}}})
        .to_string(),
    )
    .unwrap();
    let out = run(&["test", s(&book), "--json"], 30);
    // Fog is not in every request: the scenario fails, with reasons.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("long"));
}

#[test]
fn a_risu_recursion_chain_in_reverse_order_runs_in_time() {
    let n = 100_000;
    // Entry i's body names entry i-1's key; the book lists them so that
    // each pass finds one more: as many passes as entries.
    let lore: Vec<Value> = (0..n)
        .map(|i| {
            json!({"key": format!("kw{i}x"), "comment": format!("E{i}"),
                "content": if i > 0 { format!("kw{}x", i - 1) } else { "end".into() },
                "mode": "normal", "insertorder": 100, "alwaysActive": false,
                "secondkey": "", "selective": false})
        })
        .collect();
    let book = fresh("h37-risu.json");
    std::fs::write(
        &book,
        json!({"type": "risu", "ver": 1, "data": lore}).to_string(),
    )
    .unwrap();
    let chat = fresh("h37-risu-chat.txt");
    std::fs::write(&chat, format!("User: kw{}x\n", n - 1)).unwrap();
    let settings = fresh("h37-risu-settings.json");
    std::fs::write(
        &settings,
        json!({"loreBookToken": 100_000_000, "loreSettings": {"tokenBudget": 100_000_000,
            "scanDepth": 5, "recursiveScanning": true}})
        .to_string(),
    )
    .unwrap();
    let out = run(
        &[
            "preview",
            s(&book),
            "--chat",
            s(&chat),
            "--rules",
            "risu",
            "--risu-settings",
            s(&settings),
            "--json",
        ],
        30,
    );
    ok(&out);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = v.to_string();
    assert!(
        text.contains("\"passes\":100001") || text.contains("100001"),
        "{}",
        &text[..400.min(text.len())]
    );
}

#[test]
fn record_writes_a_book_folder_back_as_a_folder() {
    let dir = fresh("h37-record");
    sample_folder(&dir);
    std::fs::write(dir.join("Notes.md"), "mine\n").unwrap();
    let chat = root().join("samples/saltmere-chat.txt");
    let out = run(
        &[
            "scenario",
            "record",
            s(&dir),
            "--chat",
            s(&chat),
            "--name",
            "first",
        ],
        20,
    );
    ok(&out);
    assert!(std::fs::read_to_string(dir.join("book.yaml"))
        .unwrap()
        .contains("first"));
    assert_eq!(
        std::fs::read_to_string(dir.join("Notes.md")).unwrap(),
        "mine\n"
    );
    let out = run(&["test", s(&dir)], 20);
    ok(&out);
}
