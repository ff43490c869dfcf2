//! Commands of the preview under the guide's rules: the chat, the attached
//! books, the preview settings (kept across runs) and tokenizer file, the
//! preview and its request log.

use super::*;

/// The chat typed for book `doc` (`None`: the shown book's); a book no
/// longer shown keeps it for its tab (see `Workspace::set_chat_of`).
#[tauri::command(async)]
pub fn set_chat(s: State<'_, AppState>, text: String, doc: Option<u32>) -> R<ChatStatus> {
    guarded(&s, "set_chat", |ws| {
        ws.set_chat_of(doc, text);
        Ok(ws.chat_status())
    })
}

/// Shows book `doc`'s tab: the preview runs on it, with its own chat.
#[tauri::command(async)]
pub fn show_doc(s: State<'_, AppState>, doc: u32) -> R<()> {
    guarded(&s, "show_doc", |ws| ws.show(doc))
}

#[tauri::command]
pub async fn open_chat_dialog(app: AppHandle) -> R<AppStateView> {
    let picked = file_dialog(&app, Dialog::OpenChat).blocking_pick_file();
    let Some(path) = picked.and_then(|p| p.into_path().ok()) else {
        return Err(AppError::nothing_chosen());
    };
    let text = lorebook_engine::io::read_text_capped(&path, lorebook_engine::io::MAX_CHAT_BYTES)
        .map_err(AppError::read)?;
    let state = app.state::<AppState>();
    guarded(&state, "open_chat_dialog", |ws| {
        ws.set_chat(text);
        Ok(ws.state())
    })
}

#[tauri::command(async)]
pub fn set_attached(s: State<'_, AppState>, doc: u32, attached: bool) -> R<()> {
    guarded(&s, "set_attached", |ws| ws.set_attached(doc, attached))
}

#[tauri::command(async)]
pub fn set_preview_settings(app: AppHandle, settings: Settings) -> R<()> {
    // A family read from its file loads here, once per process and off the
    // UI thread, before the workspace is locked (up to two seconds for the
    // largest vocabularies).
    tokenizer_for_model(&settings.model)
        .map_err(|e| AppError::tokenizer_unavailable(&settings.model, e))?;
    let state = app.state::<AppState>();
    guarded(&state, "set_preview_settings", |ws| {
        ws.set_settings(settings)?;
        store_preview_settings(&app, ws);
        Ok(())
    })
}

/// Saves the preview settings for the next run (a failure loses only the
/// convenience, never a book).
fn store_preview_settings(app: &AppHandle, ws: &Workspace) {
    if let Err(e) = crate::preview_settings::store(&crate::data_dir(app), ws) {
        eprintln!("Lorebook Studio: the preview settings were not saved: {e}");
    }
}

/// The preview under the rules in force: the request `ask` names, with
/// its parameters when `ask` names those rules.
#[tauri::command(async)]
pub fn preview(s: State<'_, AppState>, ask: PreviewAsk) -> R<PreviewAnswer> {
    guarded(&s, "preview", |ws| ws.preview_answer(ask))
}

/// The request log under the rules in force, one row shape for all.
#[tauri::command(async)]
pub fn preview_log(s: State<'_, AppState>) -> R<Vec<LogRow>> {
    guarded(&s, "preview_log", |ws| ws.preview_log())
}

/// A window of the activation timeline under the rules in force.
#[tauri::command(async)]
pub fn timeline(s: State<'_, AppState>, offset: u32, limit: u32) -> R<TimelineView> {
    guarded(&s, "timeline", |ws| ws.timeline(offset, limit))
}

/// The chat's text, for the chat box when the chat was set from elsewhere
/// (start-up, a chat file); typing never asks for it back.
#[tauri::command(async)]
pub fn chat_text(s: State<'_, AppState>) -> R<String> {
    guarded(&s, "chat_text", |ws| Ok(ws.chat_text.clone()))
}

/// A typed change to the chat (see `Workspace::edit_chat`): the keystroke's
/// few characters cross, not the whole chat.
#[tauri::command(async)]
pub fn edit_chat(
    s: State<'_, AppState>,
    at: u32,
    remove: u32,
    insert: String,
    len: u32,
    doc: Option<u32>,
) -> R<ChatStatus> {
    guarded(&s, "edit_chat", |ws| {
        if !ws.chat_is_shown(doc) {
            // Typed for a tab no longer shown: the UI sends it whole, for
            // that book (set_chat).
            let detail = "the chat edit is for a book no longer shown: send it whole".to_string();
            return Err(AppError::invalid(
                detail.clone(),
                ErrorCode::ChatOutOfStep { detail },
            ));
        }
        ws.edit_chat(at, remove, &insert, len)?;
        Ok(ws.chat_status())
    })
}

/// Custom file… in the model picker: a native dialog for a tokenizer file
/// (Hugging Face `tokenizer.json`, SentencePiece `.model`, tiktoken or
/// Tekken, detected by content), read off the UI thread and once per
/// process; it then counts every entry and the preview until a model is
/// picked again, and is remembered for the next run.
#[tauri::command]
pub async fn pick_tokenizer_file(app: AppHandle) -> R<AppStateView> {
    let picked = file_dialog(&app, Dialog::Tokenizer).blocking_pick_file();
    let Some(path) = picked.and_then(|p| p.into_path().ok()) else {
        return Err(AppError::nothing_chosen());
    };
    let read = path.clone();
    let tokenizer = tauri::async_runtime::spawn_blocking(move || resources::load_file(&read))
        .await
        .map_err(|e| AppError::internal("pick_tokenizer_file", &e.to_string()))?
        .map_err(|e| AppError::bad_tokenizer_file(&path, e))?;
    let state = app.state::<AppState>();
    guarded(&state, "pick_tokenizer_file", |ws| {
        ws.set_tokenizer_file(Some((path, tokenizer)));
        store_preview_settings(&app, ws);
        Ok(ws.state())
    })
}

/// Counts with the model's tokenizer again instead of the user's file.
#[tauri::command(async)]
pub fn clear_tokenizer_file(app: AppHandle) -> R<()> {
    let state = app.state::<AppState>();
    guarded(&state, "clear_tokenizer_file", |ws| {
        ws.set_tokenizer_file(None);
        store_preview_settings(&app, ws);
        Ok(())
    })
}

/// The preview settings of the last run (model, tokenizer file, seed,
/// template), asked for by the UI once as it starts. Their tokenizer loads
/// here, off the UI thread and before the workspace is locked; a value that
/// no longer works is dropped and named in the notices returned. Later
/// calls (a reloaded webview) change nothing.
#[tauri::command(async)]
pub fn restore_preview_settings(app: AppHandle) -> R<Vec<Notice>> {
    static RESTORED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if RESTORED.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return Ok(Vec::new());
    }
    let saved = crate::preview_settings::load(&crate::data_dir(&app));
    let state = app.state::<AppState>();
    let current = guarded(&state, "restore_preview_settings", |ws| {
        Ok(ws.settings().clone())
    })?;
    let prepared = crate::preview_settings::prepare(&saved, &current);
    guarded(&state, "restore_preview_settings", |ws| {
        let problems = crate::preview_settings::apply(ws, prepared);
        Ok(problems)
    })
}
