// Where the shared real-world corpus is: the one rule, used by
// `lorebook-test-support` (the tests), `include!`d through `corpus_cfg.rs`
// by the build scripts that set `cfg(corpus)` and by the fuzzers' seed
// writer (`crates/fuzz-targets/src/bin/fuzz-seeds.rs`), none of which may
// depend on a dev-only crate. Plain items and `//` comments only, so the
// file can be included anywhere.

/// The environment variable naming the shared corpus folder.
pub const CORPUS_ENV_VAR: &str = "LOREBOOK_CORPUS";

/// Where the shared corpus is looked for, whether or not it is there: the
/// folder named by `LOREBOOK_CORPUS`, else `../shared/corpus` beside the
/// workspace whose root is `workspace_root`.
pub fn corpus_dir_beside(workspace_root: &std::path::Path) -> std::path::PathBuf {
    match std::env::var_os(CORPUS_ENV_VAR) {
        Some(dir) => std::path::PathBuf::from(dir),
        None => workspace_root.join("../shared/corpus"),
    }
}
