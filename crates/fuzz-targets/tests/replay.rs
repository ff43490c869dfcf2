//! Every seed and every saved finding of the fuzzers (fuzz/seeds,
//! fuzz/regressions, the fixtures and the shared corpus when present) run
//! through the same target bodies as the fuzzers, with plain `cargo test`:
//! a crash once found stays fixed on a machine without cargo-fuzz.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use lorebook_fuzz_targets::{run, seeds, TARGETS};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_seed_and_finding_runs_through_its_target() {
    // Optional: without the shared corpus the other seeds still run.
    let corpus = lorebook_test_support::corpus_root();
    let seeds = seeds::all(&repo(), corpus.as_deref());
    let mut failed = Vec::new();
    for seed in &seeds {
        if catch_unwind(AssertUnwindSafe(|| run(seed.target, &seed.bytes))).is_err() {
            failed.push(format!("{} on {}", seed.target, seed.name));
        }
    }
    assert!(failed.is_empty(), "panicked: {failed:#?}");
    for (target, _) in TARGETS {
        assert!(
            seeds.iter().any(|s| s.target == *target),
            "{target} has no seed"
        );
    }
}

#[test]
fn every_target_has_a_fuzz_target_file_and_back() {
    let dir = repo().join("fuzz/fuzz_targets");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| Some(p.file_stem()?.to_str()?.to_string()))
        .collect();
    files.sort();
    let mut names: Vec<String> = TARGETS.iter().map(|(n, _)| n.to_string()).collect();
    names.sort();
    assert_eq!(files, names);
    for name in &names {
        let text = std::fs::read_to_string(dir.join(format!("{name}.rs"))).unwrap();
        assert!(
            text.contains(&format!("run(\"{name}\"")),
            "{name}.rs runs {name}"
        );
    }
}

#[test]
fn an_unknown_target_name_is_refused() {
    let err = lorebook_fuzz_targets::target("import_nothing")
        .map(|_| ())
        .unwrap_err();
    assert_eq!(err, "no fuzz target named import_nothing");
    assert!(lorebook_fuzz_targets::target("import_native").is_ok());
}
