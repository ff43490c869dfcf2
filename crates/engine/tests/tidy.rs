//! Tidy (issue 18): the repository's documents tell the truth about the
//! tree, as rust-analyzer's `tidy` test keeps its docs honest.
//!
//! - Every Markdown link in `README.md`, `ARCHITECTURE.md`, `BENCHMARKS.md`
//!   and `docs/` points at a file of the repository (never outside it, nor
//!   at the web) and, with a `#section`, at a heading that file has.
//! - Every source path those documents name in backticks (`matcher.rs`,
//!   `ui/src/lib/ipc.ts`; in `ARCHITECTURE.md` folders too, `workspace/`)
//!   exists in the tree.
//! - Every Rust module of the crates and the shell over 600 lines says why
//!   in its header (the words "600 lines") and is named in
//!   `ARCHITECTURE.md`'s "Module size".
//!
//! It lives in the engine's tests because every `cargo test` builds them;
//! it reads files only. Each check is also run on a planted mistake (the
//! `*_is_caught` tests), so a check that stopped finding anything fails.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Folders never walked: build output, dependencies, git, vendored code.
const SKIPPED: &[&str] = &[
    "target",
    "node_modules",
    ".git",
    "dist",
    "corpus",
    "artifacts",
    "coverage",
];

/// Every file and folder of the tree, as `/`-separated paths relative to
/// the root (folders end with `/`).
fn tree() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let Ok(dir) = std::fs::read_dir(root().join(&rel)) else {
            continue;
        };
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let path = rel.join(&name);
            let shown = path.to_string_lossy().replace('\\', "/");
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                if !SKIPPED.contains(&name.as_str()) {
                    out.insert(format!("{shown}/"));
                    stack.push(path);
                }
            } else {
                out.insert(shown);
            }
        }
    }
    out
}

/// The documents checked.
fn documents() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = ["README.md", "ARCHITECTURE.md", "BENCHMARKS.md"]
        .iter()
        .map(PathBuf::from)
        .collect();
    let mut stack = vec![PathBuf::from("docs")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(root().join(&dir)).unwrap().flatten() {
            let path = dir.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "md") {
                docs.push(path);
            }
        }
    }
    docs.sort();
    docs
}

/// The lines of `text` outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

/// GitHub's anchor for a heading: lower case, only letters, digits,
/// spaces, `-` and `_` kept, spaces turned into `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown text's headings (a repeated heading takes
/// `-1`, `-2`… as on GitHub).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in prose(text) {
        let t = line.trim_start();
        if !t.starts_with('#') {
            continue;
        }
        let heading = t.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let base = slug(heading);
        let mut s = base.clone();
        let mut n = 0;
        while out.contains(&s) {
            n += 1;
            s = format!("{base}-{n}");
        }
        out.insert(s);
    }
    out
}

/// The targets of the inline links `[text](target)` of a Markdown text
/// (a link may break across lines between `]` and `(`).
fn links(text: &str) -> Vec<String> {
    let body = prose(text).join("\n");
    let mut out = Vec::new();
    let mut rest = body.as_str();
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(end) = rest.find(')') {
            out.push(rest[..end].trim().to_string());
            rest = &rest[end..];
        }
    }
    out
}

/// What is wrong with the links of document `doc` (a path relative to the
/// root) whose text is `text`: one message per broken link.
fn broken_links(doc: &Path, text: &str, read: impl Fn(&Path) -> Option<String>) -> Vec<String> {
    let mut out = Vec::new();
    for target in links(text) {
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        if path.contains("://") || path.starts_with('/') || path.starts_with("mailto:") {
            out.push(format!("{}: {target} leaves the repository", doc.display()));
            continue;
        }
        let base = doc.parent().unwrap_or(Path::new(""));
        let resolved = if path.is_empty() {
            doc.to_path_buf()
        } else {
            normalize(&base.join(path))
        };
        if resolved.starts_with("..") {
            out.push(format!("{}: {target} leaves the repository", doc.display()));
            continue;
        }
        let Some(linked) = read(&resolved) else {
            out.push(format!("{}: {target}: no such file", doc.display()));
            continue;
        };
        if let Some(anchor) = anchor {
            let is_md = resolved.extension().is_some_and(|x| x == "md");
            if is_md && !anchors(&linked).contains(anchor) {
                out.push(format!("{}: {target}: no such section", doc.display()));
            }
        }
    }
    out
}

/// `a/b/../c` → `a/c`; a path that climbs above its start keeps its `..`.
fn normalize(p: &Path) -> PathBuf {
    let mut out: Vec<String> = Vec::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                if out.last().is_some_and(|l| l != "..") {
                    out.pop();
                } else {
                    out.push("..".into());
                }
            }
            std::path::Component::CurDir => {}
            c => out.push(c.as_os_str().to_string_lossy().to_string()),
        }
    }
    out.iter().collect()
}

/// Reads a file or lists a folder of the repository (a folder reads as
/// empty text).
fn read_repo(path: &Path) -> Option<String> {
    let full = root().join(path);
    if full.is_dir() {
        return Some(String::new());
    }
    std::fs::read(full)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).to_string())
}

#[test]
fn every_link_of_the_docs_points_into_the_repository() {
    let mut problems = Vec::new();
    for doc in documents() {
        let text = read_repo(&doc).unwrap();
        problems.extend(broken_links(&doc, &text, read_repo));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_broken_link_is_caught() {
    let text = "See [a](missing.md), [b](semantics.md#no-such-section), \
                [c](semantics.md#matching), [d](https://example.com) and [e](../../x.md).";
    let docs = |p: &Path| (p == Path::new("docs/semantics.md")).then(|| "## Matching\n".into());
    let found = broken_links(Path::new("docs/lint.md"), text, docs);
    assert_eq!(
        found,
        [
            "docs/lint.md: missing.md: no such file",
            "docs/lint.md: semantics.md#no-such-section: no such section",
            "docs/lint.md: https://example.com leaves the repository",
            "docs/lint.md: ../../x.md leaves the repository",
        ]
    );
    assert_eq!(
        slug("Typing while the Problems panel's checks run (issue 20)"),
        "typing-while-the-problems-panels-checks-run-issue-20"
    );
    assert_eq!(slug("Character & persona"), "character--persona");
}

/// Backticked words of `text` that name a source path: a file with one of
/// the tree's source extensions, or a word with a `/` made only of path
/// characters (a folder ends with `/`). Patterns, commands and examples
/// (`/regex/`, `~/.local/…`, `NAME.bak`, `<target>`) are not paths.
fn named_paths(text: &str) -> Vec<String> {
    const EXTENSIONS: &[&str] = &[".rs", ".ts", ".svelte", ".sh", ".md", ".toml"];
    let mut out = Vec::new();
    for line in prose(text) {
        let mut parts = line.split('`');
        parts.next();
        while let Some(code) = parts.next() {
            parts.next();
            let w = code.trim();
            let pathlike = !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'))
                && !w.starts_with('/')
                && !w.starts_with('.')
                && !w.contains("//");
            let source = EXTENSIONS.iter().any(|x| w.ends_with(x));
            if pathlike && (source || (w.contains('/') && w.ends_with('/'))) {
                out.push(w.to_string());
            }
        }
    }
    out
}

/// Whether `name` is a path of `tree`, or the tail of one (documents name
/// files relative to the part they describe: `lint/book.rs`).
fn exists_in(tree: &BTreeSet<String>, name: &str) -> bool {
    tree.iter()
        .any(|p| p == name || p.ends_with(&format!("/{name}")))
}

/// Files documents name that are not ours: SillyTavern's documentation
/// page the rules cite, the corpus's list of sources.
const NOT_OURS: &[&str] = &["Usage/worldinfo.md", "SOURCES.md"];

#[test]
fn every_source_path_the_docs_name_exists() {
    let tree = tree();
    let mut problems = Vec::new();
    for doc in documents() {
        let text = read_repo(&doc).unwrap();
        // Folders are checked in the code map only: the other documents
        // name folders the app or a tool makes at run time (`recovery/`,
        // `fuzz/corpus/`).
        let code_map = doc == Path::new("ARCHITECTURE.md");
        for name in named_paths(&text) {
            let folder = name.ends_with('/');
            if !NOT_OURS.contains(&name.as_str())
                && (code_map || !folder)
                && !exists_in(&tree, &name)
            {
                problems.push(format!("{}: `{name}` is not in the tree", doc.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_missing_source_path_is_caught() {
    let tree: BTreeSet<String> = [
        "crates/engine/src/tokenizer/mod.rs",
        "src-tauri/src/workspace/",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let text = "`tokenizer.rs`, `tokenizer/mod.rs`, `workspace/`, `/regex/`, `NAME.bak`";
    let named = named_paths(text);
    assert_eq!(named, ["tokenizer.rs", "tokenizer/mod.rs", "workspace/"]);
    let missing: Vec<&String> = named.iter().filter(|n| !exists_in(&tree, n)).collect();
    assert_eq!(missing, ["tokenizer.rs"]);
}

/// A module's header comment: a Rust module's `//!` lines, a TypeScript
/// module's leading `//` lines, a Svelte component's leading `<!-- -->`
/// comment and the `//` lines opening its script.
fn header_of(path: &str, text: &str) -> String {
    let mut in_comment = false;
    text.lines()
        .take_while(|l| {
            let t = l.trim_start();
            if path.ends_with(".rs") {
                return t.starts_with("//!");
            }
            if in_comment {
                in_comment = !t.contains("-->");
                return true;
            }
            if t.starts_with("<!--") {
                in_comment = !t.contains("-->");
                return true;
            }
            t.starts_with("//") || (path.ends_with(".svelte") && t.starts_with("<script"))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The modules over `limit` lines (tests excluded) that do not say why in
/// their header or are not named in the "Module size" section.
fn oversized(files: &[(String, String)], architecture: &str, limit: usize) -> Vec<String> {
    let section = architecture
        .split("## Module size")
        .nth(1)
        .map(|s| s.split("\n## ").next().unwrap_or(s))
        .unwrap_or("");
    let mut out = Vec::new();
    for (path, text) in files {
        if text.lines().count() <= limit {
            continue;
        }
        let header = header_of(path, text);
        if !header.contains("600 lines") {
            out.push(format!(
                "{path}: over {limit} lines without saying why in its header"
            ));
        }
        let short = path
            .split_once("/src/")
            .map(|(_, s)| s)
            .unwrap_or(path.as_str());
        if !section.contains(&format!("`{short}`")) {
            out.push(format!(
                "{path}: over {limit} lines, not named in ARCHITECTURE.md's Module size"
            ));
        }
    }
    out
}

#[test]
fn every_long_module_says_why() {
    let mut files = Vec::new();
    for path in tree() {
        let is_src = path.starts_with("crates/") || path.starts_with("src-tauri/");
        let is_test = path.contains("/tests/") || path.ends_with("tests.rs");
        if is_src && !is_test && path.ends_with(".rs") && path.contains("/src/") {
            let text = std::fs::read_to_string(root().join(&path)).unwrap();
            files.push((path, text));
        }
    }
    let architecture = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let problems = oversized(&files, &architecture, 600);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The same rule for the UI's TypeScript modules and Svelte components;
/// the generated bindings, the locale catalogs and the tests aside.
#[test]
fn every_long_ui_module_says_why() {
    let mut files = Vec::new();
    for path in tree() {
        let ui = path.starts_with("ui/src/")
            && (path.ends_with(".ts") || path.ends_with(".svelte"))
            && !path.ends_with(".test.ts")
            && !path.ends_with("/bindings.ts")
            && !path.contains("/locales/");
        if ui {
            let text = std::fs::read_to_string(root().join(&path)).unwrap();
            files.push((path, text));
        }
    }
    assert!(
        files.len() > 20,
        "the UI's modules are found: {}",
        files.len()
    );
    let architecture = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let problems = oversized(&files, &architecture, 600);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_long_module_without_a_reason_is_caught() {
    let long = |header: &str| format!("{header}\n{}", "fn f() {}\n".repeat(601));
    let files = vec![
        ("crates/engine/src/big.rs".to_string(), long("//! Big.")),
        (
            "crates/engine/src/fine.rs".to_string(),
            long("//! Above 600 lines: one table."),
        ),
        (
            "crates/engine/src/small.rs".to_string(),
            "fn f() {}\n".into(),
        ),
        (
            "ui/src/lib/Fine.svelte".to_string(),
            long("<!-- A panel.\n     Above 600 lines: one form. -->\n<script lang=\"ts\">"),
        ),
        ("ui/src/lib/big.ts".to_string(), long("// Big.")),
    ];
    let architecture =
        "## Module size\n\n`fine.rs` (one table), `lib/Fine.svelte`.\n\n## Next\n`big.rs`";
    assert_eq!(
        oversized(&files, architecture, 600),
        [
            "crates/engine/src/big.rs: over 600 lines without saying why in its header",
            "crates/engine/src/big.rs: over 600 lines, not named in ARCHITECTURE.md's Module size",
            "ui/src/lib/big.ts: over 600 lines without saying why in its header",
            "ui/src/lib/big.ts: over 600 lines, not named in ARCHITECTURE.md's Module size",
        ]
    );
}
