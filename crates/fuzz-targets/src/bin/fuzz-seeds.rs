//! Writes every seed into `<out>/<target>/`, the corpus folders libFuzzer
//! starts from (`scripts/fuzz.sh` runs this; the folders are not
//! committed, since the corpus files are not ours to copy into the
//! repository). Usage: `fuzz-seeds <out>`.

use std::path::PathBuf;

// Where the shared corpus is (`LOREBOOK_CORPUS`, else `../shared/corpus`
// beside the repository): the tests' rule, included rather than depended
// on, since `lorebook-test-support` is a dev-only crate.
include!("../../../test-support/src/corpus_rule.rs");

fn main() {
    let Some(out) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: fuzz-seeds <out>");
        std::process::exit(2);
    };
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let repo = repo.canonicalize().unwrap_or(repo);
    let corpus = Some(corpus_dir_beside(&repo)).filter(|d| d.is_dir());
    let seeds = lorebook_fuzz_targets::seeds::all(&repo, corpus.as_deref());
    for (i, seed) in seeds.iter().enumerate() {
        let dir = out.join(seed.target);
        let written = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(dir.join(format!("seed-{i:04}")), &seed.bytes));
        if let Err(e) = written {
            eprintln!("fuzz-seeds: {}: {e}", dir.display());
            std::process::exit(1);
        }
    }
    println!(
        "fuzz-seeds: {} seeds for {} targets in {}{}",
        seeds.len(),
        lorebook_fuzz_targets::TARGETS.len(),
        out.display(),
        if corpus.is_some() {
            " (with the shared corpus)"
        } else {
            ""
        }
    );
}
