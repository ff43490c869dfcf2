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

/// The undo steps the impact can compare with, newest first.
#[tauri::command(async)]
pub fn impact_steps(s: State<'_, AppState>, doc: u32) -> R<Vec<ImpactStepView>> {
    guarded(&s, "impact_steps", |ws| ws.impact_steps(doc))
}

/// Compares the book's impact with the saved version or an undo step from
/// now on; answers the impact against it.
#[tauri::command(async)]
pub fn set_impact_base(s: State<'_, AppState>, doc: u32, base: ImpactBaseAsk) -> R<ImpactView> {
    let inputs = guarded(&s, "set_impact_base", |ws| {
        ws.set_impact_base(doc, base)?;
        ws.impact_inputs(doc)
    })?;
    caught("set_impact_base", || inputs.compute())
}

/// Compare with a file…: a native dialog, then the chosen file (any format
/// Import reads) is what the book's impact compares with from now on;
/// answers the impact against it.
#[tauri::command]
pub async fn impact_base_dialog(app: AppHandle, doc: u32) -> R<ImpactView> {
    let picked = file_dialog(&app, Dialog::CompareWith).blocking_pick_file();
    let Some(path) = picked.and_then(|p| p.into_path().ok()) else {
        return Err(AppError::nothing_chosen());
    };
    let state = app.state::<AppState>();
    let inputs = guarded(&state, "impact_base_dialog", |ws| {
        ws.set_impact_base_file(doc, &path)?;
        ws.impact_inputs(doc)
    })?;
    caught("impact_base_dialog", || inputs.compute())
}

/// The book's figures (the Figures panel).
#[tauri::command(async)]
pub fn book_figures(s: State<'_, AppState>, doc: u32) -> R<BookFiguresView> {
    guarded(&s, "book_figures", |ws| ws.book_figures(doc))
}

/// Find and replace: the matches in the book, and the texts the chosen
/// ones (all when none are given) change.
#[tauri::command(async)]
pub fn find_in_book(
    s: State<'_, AppState>,
    doc: u32,
    ask: FindAsk,
    chosen: Option<Vec<MatchRef>>,
) -> R<FindView> {
    guarded(&s, "find_in_book", |ws| {
        ws.find_in_book(doc, &ask, chosen.as_deref())
    })
}

/// Replaces the chosen matches as one undo step; answers how many entries
/// changed.
#[tauri::command(async)]
pub fn replace_in_book(
    s: State<'_, AppState>,
    doc: u32,
    ask: FindAsk,
    chosen: Vec<MatchRef>,
) -> R<u32> {
    guarded(&s, "replace_in_book", |ws| {
        ws.replace_in_book(doc, &ask, &chosen)
    })
}

/// What the chosen replacements would change over the chat's request log
/// and the scenarios, before they are made. The logs run without the lock.
#[tauri::command(async)]
pub fn replace_impact(
    s: State<'_, AppState>,
    doc: u32,
    ask: FindAsk,
    chosen: Vec<MatchRef>,
) -> R<ImpactView> {
    let inputs = guarded(&s, "replace_impact", |ws| {
        ws.replace_impact(doc, &ask, &chosen)
    })?;
    caught("replace_impact", || inputs.compute())
}
