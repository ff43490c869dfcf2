// The part of a build script that sets `cfg(corpus)` when the shared
// corpus is present, so the tests that need it carry
// `#[cfg_attr(not(corpus), ignore = "corpus not found: …")]` and the test
// runner counts them as ignored, not passed, without it. `include!`d by
// crates/engine/build.rs, crates/cli/build.rs and src-tauri/build.rs; the
// rule itself is src/corpus_rule.rs. Plain items and `//` comments only.

include!("src/corpus_rule.rs");

/// Prints the cargo instructions for `cfg(corpus)`. A build script whose
/// watched path is missing runs again on every build (and its crate is
/// compiled again), so without the corpus the folder that would hold it is
/// watched instead, when that folder exists and is not one holding the
/// workspace (whose `target/` changes on every build); otherwise only
/// `LOREBOOK_CORPUS` is watched.
fn emit_corpus_cfg(workspace_root: &std::path::Path) {
    println!("cargo:rustc-check-cfg=cfg(corpus)");
    println!("cargo:rerun-if-env-changed={CORPUS_ENV_VAR}");
    let dir = corpus_dir_beside(workspace_root);
    if dir.is_dir() {
        println!("cargo:rustc-cfg=corpus");
        println!("cargo:rerun-if-changed={}", dir.display());
        return;
    }
    let workspace = workspace_root.canonicalize().ok();
    let parent = dir.parent().and_then(|p| p.canonicalize().ok());
    if let (Some(workspace), Some(parent)) = (workspace, parent) {
        if parent.is_dir() && !workspace.starts_with(&parent) {
            println!("cargo:rerun-if-changed={}", parent.display());
        }
    }
}
