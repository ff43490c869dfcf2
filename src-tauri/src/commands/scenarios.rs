//! Commands of the Scenarios panel: a book's scenarios with their answers,
//! recording the preview shown as one, removing one.

use super::*;

#[tauri::command(async)]
pub fn scenarios(s: State<'_, AppState>, doc: u32) -> R<ScenariosView> {
    guarded(&s, "scenarios", |ws| ws.scenarios(doc))
}

#[tauri::command(async)]
pub fn record_scenario(s: State<'_, AppState>, doc: u32, name: String) -> R<ScenariosView> {
    guarded(&s, "record_scenario", |ws| ws.record_scenario(doc, name))
}

/// Loosens or edits a scenario's expectations.
#[tauri::command(async)]
pub fn edit_scenario(
    s: State<'_, AppState>,
    doc: u32,
    name: String,
    edit: ScenarioEdit,
) -> R<ScenariosView> {
    guarded(&s, "edit_scenario", |ws| ws.edit_scenario(doc, name, edit))
}

#[tauri::command(async)]
pub fn delete_scenario(s: State<'_, AppState>, doc: u32, name: String) -> R<ScenariosView> {
    guarded(&s, "delete_scenario", |ws| ws.delete_scenario(doc, name))
}

/// What the book's unsaved edits change over the chat's request log and
/// its scenarios. Its inputs are taken under the workspace's lock; the two
/// logs run without it, so typing never waits for them.
#[tauri::command(async)]
pub fn impact(s: State<'_, AppState>, doc: u32) -> R<ImpactView> {
    let inputs = guarded(&s, "impact", |ws| ws.impact_inputs(doc))?;
    caught("impact", || inputs.compute())
}
