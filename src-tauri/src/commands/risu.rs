//! Commands of the preview under RisuAI's rules: RisuAI's settings (kept
//! in the data folder) and its preview.

use super::*;

/// RisuAI's settings live in the app's data folder as JSON, like
/// SillyTavern's: one set for the preview, not a book's.
fn risu_settings_file(app: &AppHandle) -> PathBuf {
    crate::data_dir(app).join("risu-settings.json")
}

/// Reads the RisuAI settings saved by an earlier run; a missing, broken or
/// out-of-range file leaves RisuAI's defaults.
pub fn load_risu_settings(app: &AppHandle) {
    let Ok(bytes) = std::fs::read(risu_settings_file(app)) else {
        return;
    };
    let Ok(v) = serde_json::from_slice::<RisuSettingsView>(&bytes) else {
        return;
    };
    let state = app.state::<AppState>();
    let _ = lock(&state).set_risu_settings(v);
}

#[tauri::command(async)]
pub fn set_risu_settings(app: AppHandle, settings: RisuSettingsView) -> R<RulesView> {
    let state = app.state::<AppState>();
    guarded(&state, "set_risu_settings", |ws| {
        ws.set_risu_settings(settings)?;
        let file = risu_settings_file(&app);
        if let Some(dir) = file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Ok(bytes) = serde_json::to_vec_pretty(&ws.risu_settings) {
            // A failure loses only the convenience, never a book.
            let _ = lorebook_engine::formats::write_atomic(&file, &bytes);
        }
        Ok(ws.rules_view())
    })
}
