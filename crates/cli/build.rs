//! Sets `cfg(corpus)` when the shared real-world corpus is present, so the
//! tests that need it (`tests/cli.rs`) are counted as ignored without it,
//! not as passed. The rule is `crates/test-support`'s.

include!("../test-support/corpus_cfg.rs");

fn main() {
    emit_corpus_cfg(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."));
}
