//! The starting inputs of every target, gathered from the repository's
//! fixtures (and the shared corpus when there is one), so the fuzzers and
//! the `replay` test start from the same files.
//!
//! - Book files (the format fixtures, `samples/`, the SillyTavern cases'
//!   worlds, the corpus books): every importer and `round_trip`.
//! - Chats (`samples/`, the cases' `chat.jsonl`, the corpus chats): `chat`.
//! - Each book's entry contents: `decorators`; its keys with their flags
//!   over a chat's text: `matcher`.
//! - A book, NUL, a chat (NUL, settings for the SillyTavern cases): both
//!   preview targets.
//! - `fuzz/seeds/<target>/` (hand-made inputs, such as the smallest PNG
//!   and CHARX cards) and `fuzz/regressions/<target>/` (what the fuzzers
//!   found, each fixed): their own target.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use lorebook_engine::chat::{self, ChatOptions};
use lorebook_engine::formats;

use crate::TARGETS;

/// One input of one target.
#[derive(Debug, Clone)]
pub struct Seed {
    pub target: &'static str,
    /// Where it came from, to name it in a failure.
    pub name: String,
    pub bytes: Vec<u8>,
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

fn dirs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

fn read(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn joined(parts: &[&[u8]]) -> Vec<u8> {
    parts.join(&0u8)
}

/// Every seed, for `repo` (the repository root) and the corpus folder.
pub fn all(repo: &Path, corpus: Option<&Path>) -> Vec<Seed> {
    let mut books: Vec<(String, Vec<u8>)> = Vec::new();
    let mut chats: Vec<(String, Vec<u8>)> = Vec::new();
    let mut previews: Vec<(String, Vec<u8>)> = Vec::new();
    let rel = |p: &Path| {
        p.strip_prefix(repo)
            .or_else(|_| p.strip_prefix(corpus.unwrap_or(repo)))
            .unwrap_or(p)
            .display()
            .to_string()
    };

    for p in files(&repo.join("crates/engine/tests/fixtures/formats")) {
        books.push((rel(&p), read(&p)));
    }
    let sample_book = read(&repo.join("samples/saltmere.json"));
    let sample_chat = read(&repo.join("samples/saltmere-chat.txt"));
    books.push(("samples/saltmere.json".into(), sample_book.clone()));
    chats.push(("samples/saltmere-chat.txt".into(), sample_chat.clone()));
    for (name, book) in books.clone() {
        previews.push((
            format!("{name}+saltmere-chat"),
            joined(&[&book, &sample_chat]),
        ));
    }
    for case in dirs(&repo.join("crates/engine/tests/sillytavern")) {
        let (world, chat) = (
            read(&case.join("world.json")),
            read(&case.join("chat.jsonl")),
        );
        let settings = read(&case.join("settings.json"));
        previews.push((rel(&case), joined(&[&world, &chat, &settings])));
        books.push((rel(&case.join("world.json")), world));
        chats.push((rel(&case.join("chat.jsonl")), chat));
    }
    if let Some(corpus) = corpus {
        for dir in dirs(corpus) {
            for p in files(&dir) {
                if dir.ends_with("chats") {
                    chats.push((format!("corpus/{}", rel(&p)), read(&p)));
                } else {
                    books.push((format!("corpus/{}", rel(&p)), read(&p)));
                }
            }
        }
    }

    let mut seeds = Vec::new();
    let mut add = |target: &'static str, name: &str, bytes: Vec<u8>| {
        seeds.push(Seed {
            target,
            name: name.to_string(),
            bytes,
        })
    };
    for (name, bytes) in &books {
        for (target, _) in TARGETS {
            if target.starts_with("import_") || *target == "round_trip" {
                add(target, name, bytes.clone());
            }
        }
    }
    for (name, bytes) in &chats {
        add("chat", name, bytes.clone());
    }
    for (name, bytes) in &previews {
        add("preview_studio", name, bytes.clone());
        add("preview_sillytavern", name, bytes.clone());
        add("preview_risu", name, bytes.clone());
    }
    // Entry contents and keys, from every book that imports.
    let chat_text: String = chat::parse(
        &String::from_utf8_lossy(&sample_chat),
        &ChatOptions::default(),
    )
    .map(|c| c.messages.into_iter().map(|m| m.text + "\n").collect())
    .unwrap_or_default();
    let mut contents = BTreeSet::new();
    for (name, bytes) in &books {
        let Ok(imported) = formats::import(bytes) else {
            continue;
        };
        let mut keys = String::new();
        for e in &imported.book.entries {
            contents.insert(e.content.clone());
            let flags = format!(
                "{}{}{}",
                if e.case_sensitive { "c" } else { "" },
                if e.whole_words { "w" } else { "" },
                if e.use_regex { "r" } else { "" }
            );
            for k in e.keys.iter().chain(&e.secondary_keys) {
                if !k.contains('\n') {
                    keys.push_str(&format!("{flags}\t{k}\n"));
                }
            }
        }
        add("matcher", name, format!("{keys}\n{chat_text}").into_bytes());
    }
    for (i, content) in contents.into_iter().enumerate() {
        add(
            "decorators",
            &format!("entry content {i}"),
            content.into_bytes(),
        );
    }
    for folder in ["seeds", "regressions"] {
        for (target, _) in TARGETS {
            for p in files(&repo.join("fuzz").join(folder).join(target)) {
                add(target, &rel(&p), read(&p));
                // A hand-made book is a round trip's input too.
                if folder == "seeds" && target.starts_with("import_") {
                    add("round_trip", &rel(&p), read(&p));
                }
            }
        }
    }
    seeds
}
