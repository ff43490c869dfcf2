//! The repository stands on its own (issue 8): the README and the data
//! safety page link only to files inside the repository, every linked file
//! exists, and every `#anchor` names a heading of the file it points into.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The targets of the Markdown links `[text](target)` in `text`.
fn links(text: &str) -> Vec<&str> {
    text.match_indices("](")
        .filter_map(|(i, _)| {
            let rest = &text[i + 2..];
            rest.find(')').map(|end| &rest[..end])
        })
        .collect()
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces
/// turned into hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(markdown: &str) -> Vec<String> {
    markdown
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| slug(l.trim_start_matches('#')))
        .collect()
}

fn check(doc: &str) -> Vec<String> {
    let root = root();
    let path = root.join(doc);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut problems = Vec::new();
    for link in links(&text) {
        let (file, anchor) = link.split_once('#').unwrap_or((link, ""));
        if file.contains("://") || file.starts_with("mailto:") {
            problems.push(format!("{doc}: {link} leaves the repository"));
            continue;
        }
        let target = if file.is_empty() {
            path.clone()
        } else {
            path.parent().unwrap().join(file)
        };
        let Ok(target) = target.canonicalize() else {
            problems.push(format!("{doc}: {link} names no file"));
            continue;
        };
        if !target.starts_with(&root) {
            problems.push(format!("{doc}: {link} is outside the repository"));
            continue;
        }
        if !anchor.is_empty() {
            let markdown = std::fs::read_to_string(&target).unwrap_or_default();
            if !anchors(&markdown).iter().any(|a| a == anchor) {
                problems.push(format!("{doc}: {link} names no heading"));
            }
        }
    }
    problems
}

#[test]
fn readme_links_stay_inside_the_repository_and_resolve() {
    let problems: Vec<String> = ["README.md", "docs/data-safety.md"]
        .iter()
        .flat_map(|d| check(d))
        .collect();
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_link_check_catches_what_it_should() {
    assert_eq!(
        links("see [a](b.md) and [c](https://x.org)"),
        ["b.md", "https://x.org"]
    );
    assert_eq!(
        slug(" At scale (issue 8): `cargo bench -p x --bench scale`"),
        "at-scale-issue-8-cargo-bench--p-x---bench-scale"
    );
}
