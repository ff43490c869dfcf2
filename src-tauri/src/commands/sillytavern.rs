//! Commands of the preview under SillyTavern's rules: the rules choice,
//! SillyTavern's settings and inputs (kept in the data folder), its preview,
//! log and entry fields.

use super::*;

/// SillyTavern's settings live in the app's data folder as JSON: they are
/// SillyTavern's global settings, not a book's (workspace/st.rs).
fn st_settings_file(app: &AppHandle) -> Option<PathBuf> {
    Some(crate::data_dir(app).join("sillytavern-settings.json"))
}

/// Reads the SillyTavern settings and the preview's character, persona
/// and Author's Note texts saved by an earlier run; a missing or broken
/// file leaves a fresh install's.
pub fn load_st_settings(app: &AppHandle) {
    let saved = st_settings_file(app).and_then(|f| std::fs::read(f).ok());
    if let Some(bytes) = saved {
        let state = app.state::<AppState>();
        // Out-of-range values from a hand-edited file are refused, keeping
        // the defaults.
        lock(&state).restore_st_file(&bytes);
    }
}

/// Writes the settings and the inputs, keeping the keys of the file this
/// version does not know.
pub(super) fn store_st_settings(app: &AppHandle, ws: &Workspace) {
    let Some(file) = st_settings_file(app) else {
        return;
    };
    if let Some(dir) = file.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let old = std::fs::read(&file).ok();
    let bytes = ws.st_file(old.as_deref());
    if !bytes.is_empty() {
        let _ = lorebook_engine::formats::write_atomic(&file, &bytes);
    }
}

#[tauri::command(async)]
pub fn rules_view(s: State<'_, AppState>) -> R<RulesView> {
    guarded(&s, "rules_view", |ws| Ok(ws.rules_view()))
}

#[tauri::command(async)]
pub fn set_rules(s: State<'_, AppState>, rules: Rules) -> R<RulesView> {
    guarded(&s, "set_rules", |ws| {
        ws.set_rules(rules);
        Ok(ws.rules_view())
    })
}

#[tauri::command(async)]
pub fn set_st_settings(app: AppHandle, settings: StSettingsView) -> R<RulesView> {
    let state = app.state::<AppState>();
    guarded(&state, "set_st_settings", |ws| {
        ws.set_st_settings(settings)?;
        store_st_settings(&app, ws);
        Ok(ws.rules_view())
    })
}

/// Sets the chat's variables for previews under SillyTavern's rules
/// (`None`: the chat's own again). They stay in the app: neither the chat
/// nor a book is written.
#[tauri::command(async)]
pub fn set_chat_vars(
    s: State<'_, AppState>,
    vars: Option<std::collections::BTreeMap<String, String>>,
) -> R<RulesView> {
    guarded(&s, "set_chat_vars", |ws| {
        ws.set_chat_vars(vars);
        Ok(ws.rules_view())
    })
}

/// Load from SillyTavern…: a native dialog for its `settings.json` (or a
/// file holding its `world_info_settings` object).
#[tauri::command]
pub async fn load_st_settings_dialog(app: AppHandle) -> R<RulesView> {
    let picked = file_dialog(&app, Dialog::StSettings).blocking_pick_file();
    let Some(path) = picked.and_then(|p| p.into_path().ok()) else {
        return Err(AppError::nothing_chosen());
    };
    let state = app.state::<AppState>();
    guarded(&state, "load_st_settings_dialog", |ws| {
        ws.load_st_settings(&path)?;
        store_st_settings(&app, ws);
        Ok(ws.rules_view())
    })
}

/// The preview's persona, character and Author's Note texts under
/// SillyTavern's rules; kept with SillyTavern's settings.
#[tauri::command(async)]
pub fn set_st_inputs(app: AppHandle, inputs: StInputsView) -> R<RulesView> {
    let state = app.state::<AppState>();
    guarded(&state, "set_st_inputs", |ws| {
        ws.set_st_inputs(inputs)?;
        store_st_settings(&app, ws);
        Ok(ws.rules_view())
    })
}

#[tauri::command(async)]
pub fn set_st_field(s: State<'_, AppState>, doc: u32, id: u64, edit: StEdit) -> R<EntryDetail> {
    guarded(&s, "set_st_field", |ws| ws.set_st_field(doc, id, edit))
}
