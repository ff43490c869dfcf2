//! Builds the Tauri context. Every app command is listed in the app
//! manifest, which makes each one deny-by-default: the webview may call only
//! what `capabilities/` grants. The names come from the one list in
//! `src/command_list.rs`, which the library's invoke handler reads too.

include!("src/command_list.rs");

const COMMANDS: &[&str] = with_command_names!(command_names);

fn main() {
    println!("cargo:rerun-if-changed=src-tauri/src/command_list.rs");
    let attributes = tauri_build::Attributes::new()
        .capabilities_path_pattern("./src-tauri/capabilities/**/*")
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    tauri_build::try_build(attributes).expect("tauri-build failed");
}
