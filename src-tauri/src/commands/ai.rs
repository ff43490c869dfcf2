//! Commands of the author's own model (`crate::ai`): set the endpoint, run
//! an action (outside the workspace's lock, its progress sent as the
//! `ai-progress` event, stopped by `ai_cancel`), accept suggestions as one
//! undo step, read the transcript, lock an entry.

use tauri::Emitter;

use super::*;

fn config_file(app: &AppHandle) -> PathBuf {
    crate::data_dir(app).join(crate::ai::CONFIG_FILE)
}

/// The endpoint in force, if any.
#[tauri::command(async)]
pub fn ai_config(app: AppHandle, s: State<'_, AppState>) -> R<Option<AiConfigView>> {
    caught("ai_config", || Ok(s.ai.config(&config_file(&app))))
}

/// Sets the endpoint; a `key` typed is held for the session and, with
/// `remember`, put in the system's secret store.
#[tauri::command(async)]
pub fn ai_configure(
    app: AppHandle,
    s: State<'_, AppState>,
    address: String,
    model: String,
    context: u32,
    key: Option<String>,
    remember: bool,
) -> R<AiConfigView> {
    caught("ai_configure", || {
        s.ai.configure(&config_file(&app), &address, &model, context, key, remember)
    })
}

/// Removes the endpoint's key from memory and the secret store.
#[tauri::command(async)]
pub fn ai_forget_key(app: AppHandle, s: State<'_, AppState>) -> R<Option<AiConfigView>> {
    caught("ai_forget_key", || s.ai.forget_key(&config_file(&app)))
}

/// Runs an action on `doc`: what it reads is copied under the lock, the
/// model is asked without it.
#[tauri::command(async)]
pub fn ai_run(app: AppHandle, s: State<'_, AppState>, doc: u32, ask: AiAsk) -> R<AiRunView> {
    let inputs = guarded(&s, "ai_run", |ws| ws.ai_inputs(doc))?;
    caught("ai_run", || {
        let mut last = std::time::Instant::now();
        s.ai.run(&config_file(&app), doc, inputs, &ask, &mut |chars| {
            if last.elapsed() >= std::time::Duration::from_millis(100) {
                last = std::time::Instant::now();
                let _ = app.emit("ai-progress", chars);
            }
        })
    })
}

/// Stops the running action.
#[tauri::command(async)]
pub fn ai_cancel(s: State<'_, AppState>) -> R<()> {
    caught("ai_cancel", || {
        s.ai.cancel();
        Ok(())
    })
}

/// Takes the last run's suggestions at `picks` into `doc` as one undo
/// step (never a locked entry); the entries added or changed.
#[tauri::command(async)]
pub fn ai_accept(s: State<'_, AppState>, doc: u32, picks: Vec<u32>) -> R<Vec<u64>> {
    let picked = caught("ai_accept", || s.ai.picked(doc, &picks))?;
    let touched = guarded(&s, "ai_accept", |ws| ws.ai_accept(doc, &picked))?;
    s.ai.accepted();
    Ok(touched)
}

/// The last run's requests and answers, as JSON (never the key).
#[tauri::command(async)]
pub fn ai_transcript(s: State<'_, AppState>) -> R<String> {
    caught("ai_transcript", || Ok(s.ai.transcript()))
}

/// Locks or unlocks an entry against AI actions (one undo step).
#[tauri::command(async)]
pub fn set_entry_locked(s: State<'_, AppState>, doc: u32, id: u64, locked: bool) -> R<EntryDetail> {
    guarded(&s, "set_entry_locked", |ws| {
        ws.set_locked(doc, id, locked)?;
        ws.entry(doc, id)
    })
}
