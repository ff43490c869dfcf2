//! Issue 23: the app a user installs. Run against the built app by every
//! `cargo test`, and against the installed package by
//! `scripts/check-package.sh` (`LOREBOOK_E2E_APP=/usr/bin/lorebook-studio`,
//! with `LOREBOOK_E2E_TOKENIZERS` naming the package's tokenizer folder).

use super::*;

/// Started with no file, the app shows its sample book and chat at once,
/// with a preview; Help › About (the toolbar's About) names the version
/// the workspace's Cargo.toml gives (the CLI's and the package's), the
/// licence, the data folder this run uses and where the tokenizer files
/// were found.
#[test]
fn the_app_starts_on_the_sample_and_about_names_version_and_folders() {
    let _serial = serial();
    let mut driver = Driver::start();
    let data_dir = driver.dir.path().join("data");
    let app = driver.launch(&[]);
    app.wait_ready();
    let rows = app.find_all(&tid("entry-row")).expect("entry rows");
    assert!(rows.len() >= 6, "the sample's entries: {}", rows.len());
    app.wait_for(&tid("injected-entry"));
    let sample = std::fs::read_to_string(Path::new(ROOT).join("samples/saltmere-chat.txt"))
        .expect("the sample chat");
    wait_until("the sample chat", TIMEOUT, || {
        let chat = app.value(&tid("chat"))?;
        if chat.trim() == sample.trim() {
            Ok(())
        } else {
            Err(format!("the chat holds {chat:?}"))
        }
    });

    app.click(&tid("about-open"));
    let version = app
        .text(&app.wait_for(&tid("about-version")))
        .expect("version");
    assert_eq!(version, format!("Version {}", env!("CARGO_PKG_VERSION")));
    let dialog = app
        .text(&app.wait_for(&tid("about-dialog")))
        .expect("dialog");
    assert!(dialog.contains("MIT"), "{dialog}");
    let data = app
        .text(&app.wait_for(&tid("about-data-dir")))
        .expect("data dir");
    assert_eq!(data, data_dir.display().to_string());
    let families = app.find_all(&tid("about-tokenizer")).expect("families");
    assert!(families.len() >= 10, "{}", families.len());
    if let Ok(expected) = std::env::var("LOREBOOK_E2E_TOKENIZERS") {
        let dir = app
            .text(&app.wait_for(&tid("about-tokenizers-dir")))
            .expect("tokenizer folder");
        assert_eq!(dir, expected, "the package's tokenizer files count");
    }
    if std::env::var_os("LOREBOOK_E2E_SCREENSHOT").is_some() {
        app.save_screenshot();
    }
    app.click(&tid("about-close"));
    wait_until("the About dialog closed", TIMEOUT, || {
        if app.find_all(&tid("about-dialog"))?.is_empty() {
            Ok(())
        } else {
            Err("still open".to_string())
        }
    });
}
