//! What the test suites of every crate share about the machine they run
//! on: where the shared real-world corpus is, and where the repository's
//! tokenizer files are. Dev-only (`publish = false`, a dev-dependency
//! only): the engine's production API neither reads `LOREBOOK_CORPUS` nor
//! knows the source tree's folders.
//!
//! The corpus is optional: the tests that need all of it carry
//! `#[cfg_attr(not(corpus), ignore = "corpus not found: …")]`, with
//! `cfg(corpus)` set by their crate's build script (`corpus_cfg.rs`, the
//! same rule as [`corpus_root`]), and call [`corpus`]; the tests that only
//! add corpus files to what they check call [`corpus_root`].

use std::path::{Path, PathBuf};

pub mod cache;
mod corpus_rule;
pub mod model_server;
pub mod relay;
pub mod scripted;
pub mod sillytavern;

pub use corpus_rule::{corpus_dir_beside, CORPUS_ENV_VAR};

/// The environment variable naming the tokenizer folder; the same name as
/// `lorebook_engine::tokenizer::resources::ENV_VAR` (a test checks).
pub const TOKENIZERS_ENV_VAR: &str = "LOREBOOK_TOKENIZERS";

/// The workspace's root folder (this crate is `crates/test-support`).
pub fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .nth(2)
        .map_or_else(|| manifest.join("../.."), Path::to_path_buf)
}

/// Where the shared corpus is looked for, whether or not it is there:
/// `$LOREBOOK_CORPUS`, else `../shared/corpus` beside the workspace.
pub fn corpus_dir() -> PathBuf {
    corpus_dir_beside(&workspace_root())
}

/// The shared corpus folder, or `None` when it is absent.
pub fn corpus_root() -> Option<PathBuf> {
    Some(corpus_dir()).filter(|d| d.is_dir())
}

/// The shared corpus folder, for a test that is ignored without it
/// (`cfg(corpus)`): panics, naming where it looked, when the corpus is
/// absent, as when such a test is run with `--include-ignored`.
pub fn corpus() -> PathBuf {
    corpus_root().unwrap_or_else(|| {
        panic!(
            "the shared corpus is not at {}: set {CORPUS_ENV_VAR} or put it at \
             ../shared/corpus beside the repository",
            corpus_dir().display()
        )
    })
}

/// The repository's `resources/tokenizers`, where
/// `scripts/fetch-tokenizers.sh` installs the tokenizer files.
pub fn tokenizers_dir() -> PathBuf {
    workspace_root().join("resources/tokenizers")
}

/// The folders the tests hand the engine's tokenizer search path
/// (`resources::set_search_path`): `$LOREBOOK_TOKENIZERS` when set, then
/// [`tokenizers_dir`], as a program run from the source tree searches.
pub fn tokenizer_dirs() -> Vec<PathBuf> {
    std::env::var_os(TOKENIZERS_ENV_VAR)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .into_iter()
        .chain([tokenizers_dir()])
        .collect()
}
