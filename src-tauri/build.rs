//! Builds the Tauri context. Every app command is listed in the app
//! manifest, which makes each one deny-by-default: the webview may call only
//! what `capabilities/` grants. The names come from the one list in
//! `src/command_list.rs`, which the library's invoke handler reads too.
//!
//! It also sets `cfg(corpus)` when the shared real-world corpus is present,
//! so the tests that need it (`src/workspace/tests.rs`, `tests/e2e.rs`) are
//! counted as ignored without it, not as passed; the rule is
//! `crates/test-support`'s.

include!("src/command_list.rs");
include!("../crates/test-support/corpus_cfg.rs");

const COMMANDS: &[&str] = with_command_names!(command_names);

fn main() {
    println!("cargo:rerun-if-changed=src-tauri/src/command_list.rs");
    // A grant added to a capability file must reach the app: without this
    // line a build kept from before the change denied the new command.
    println!("cargo:rerun-if-changed=src-tauri/capabilities");
    emit_corpus_cfg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")));
    let attributes = tauri_build::Attributes::new()
        .capabilities_path_pattern("./src-tauri/capabilities/**/*")
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    tauri_build::try_build(attributes).expect("tauri-build failed");
}
