//! Commands of the app itself: the catalog the UI is built from, the
//! workspace state and notices, the native menu's words, the window title,
//! quitting, the interface preferences and recovered books.

use super::*;

#[tauri::command]
pub fn catalog() -> R<Catalog> {
    caught("catalog", || {
        Ok(Catalog {
            decorators: KNOWN
                .iter()
                .map(|d| {
                    let (arg, min, max) = match d.arg {
                        ArgKind::None => ("none", None, None),
                        ArgKind::Int { min, max } => (
                            "int",
                            (min != i64::MIN).then_some(min),
                            (max != i64::MAX).then_some(max),
                        ),
                        ArgKind::Role => ("role", None, None),
                    };
                    DecoratorInfo {
                        name: d.name.into(),
                        aliases: d.aliases.iter().map(|a| a.to_string()).collect(),
                        arg: arg.into(),
                        min,
                        max,
                        summary: d.summary.into(),
                    }
                })
                .collect(),
            risu_decorators: lorebook_engine::risu::RISU_DECORATORS
                .iter()
                .map(|d| {
                    use lorebook_engine::risu::RisuArg;
                    let arg = match d.arg {
                        RisuArg::None => "none",
                        RisuArg::Int => "int",
                        RisuArg::Keys => "keys",
                        RisuArg::Role => "role",
                        RisuArg::Position => "position",
                        RisuArg::Text => "text",
                    };
                    RisuDecoratorInfo {
                        name: d.name.into(),
                        arg: arg.into(),
                        effect: d.effect,
                    }
                })
                .collect(),
            models: SUGGESTED_MODELS.iter().map(|m| m.to_string()).collect(),
            scan_depth: [SCAN_DEPTH_RANGE.0, SCAN_DEPTH_RANGE.1],
            token_budget: [TOKEN_BUDGET_RANGE.0, TOKEN_BUDGET_RANGE.1],
            export_formats: ExportFormat::ALL
                .iter()
                .map(|f| ExportChoice {
                    id: serde_json::to_value(f)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    name: f.name().into(),
                    card: matches!(
                        f,
                        ExportFormat::CardV2 | ExportFormat::CardV3 | ExportFormat::Charx
                    ),
                })
                .collect(),
            approximate_models: SUGGESTED_MODELS
                .iter()
                .filter(|m| family_of(m).is_ok_and(|f| !f.exact))
                .map(|m| m.to_string())
                .collect(),
            profiles: lorebook_engine::profile::PROFILES
                .iter()
                .map(|p| p.name)
                .collect(),
            families: FAMILIES
                .iter()
                .map(|f| FamilyView {
                    id: f.id.into(),
                    group: f.group.into(),
                    exact: f.exact,
                    models: suggested_for(f).into_iter().map(str::to_string).collect(),
                })
                .collect(),
        })
    })
}

#[tauri::command(async)]
pub fn app_state(s: State<'_, AppState>) -> R<AppStateView> {
    // While long work (a preview's build or log) holds the workspace, the
    // state as the last command left it: the one holding it changes no
    // book until it ends, and then it is read anew.
    if let Err(std::sync::TryLockError::WouldBlock) = s.ws.try_lock() {
        return caught("app_state", || {
            Ok(s.shown.lock().unwrap_or_else(|p| p.into_inner()).clone())
        });
    }
    guarded(&s, "app_state", |ws| Ok(ws.state()))
}

/// Messages from startup, drag and drop or the menu that the UI shows once.
#[tauri::command]
pub fn take_notices(s: State<'_, AppState>) -> R<Vec<Notice>> {
    caught("take_notices", || {
        Ok(std::mem::take(
            &mut *s.notices.lock().unwrap_or_else(|p| p.into_inner()),
        ))
    })
}

/// Relabels the native menu and words the native file dialogs in the UI's
/// language (the message catalog lives in the UI; accelerators stay the
/// same): `labels` holds menu labels by menu id and dialog words by their
/// `dialog.*` catalog key.
#[tauri::command]
pub fn set_menu_labels(
    app: AppHandle,
    native: State<'_, NativeLabels>,
    labels: std::collections::HashMap<String, String>,
) -> R<()> {
    caught("set_menu_labels", || {
        {
            let mut kept = native.0.lock().unwrap_or_else(|p| p.into_inner());
            if *kept == labels {
                // The menu in place was built from these words (at start,
                // from the kept file, or by an earlier call): replacing it
                // with the same would only make GTK warn about the old
                // menu's accelerators.
                return Ok(());
            }
            // Kept for the next start; losing them costs only an English
            // menu until the page loads.
            if let Err(e) = crate::dialogs::store_labels(&crate::data_dir(&app), &labels) {
                eprintln!("Lorebook Studio: the menu's words were not kept: {e}");
            }
            *kept = labels.clone();
        }
        let menu = crate::menu::build_labeled(&app, &labels).map_err(menu_failed)?;
        app.set_menu(menu).map_err(menu_failed)?;
        Ok(())
    })
}

/// The native menu that could not be built or set.
fn menu_failed(e: tauri::Error) -> AppError {
    AppError::coded(
        ErrorKind::Menu,
        format!("the menu could not be rebuilt: {e}"),
        ErrorCode::MenuFailed {
            detail: e.to_string(),
        },
    )
}

/// The recovery folder and this run's copies in it, beside the workspace.
pub struct RecoveryState(pub Mutex<Recovery>);

fn recovery<'a>(s: &'a State<'_, RecoveryState>) -> std::sync::MutexGuard<'a, Recovery> {
    s.0.lock().unwrap_or_else(|p| p.into_inner())
}

/// Books left unsaved by an earlier run that crashed or was killed.
#[tauri::command(async)]
pub fn list_recovered(r: State<'_, RecoveryState>) -> R<Vec<RecoveredBook>> {
    caught("list_recovered", || Ok(recovery(&r).list()))
}

/// Opens a recovered book, dirty and bound to its original file.
#[tauri::command(async)]
pub fn restore_recovered(
    s: State<'_, AppState>,
    r: State<'_, RecoveryState>,
    id: String,
) -> R<u32> {
    // Lock order everywhere: the workspace, then the recovery folder.
    guarded(&s, "restore_recovered", |ws| recovery(&r).restore(ws, &id))
}

/// Why recovery copies cannot be written now, while they cannot (the UI
/// shows a lasting notice); `None` when they work. The autosave thread
/// also sends each change as the `autosave-status` event.
#[tauri::command(async)]
pub fn autosave_status(r: State<'_, RecoveryState>) -> R<Option<AppError>> {
    caught("autosave_status", || Ok(recovery(&r).failure().cloned()))
}

/// Deletes a recovered book the user does not want back.
#[tauri::command(async)]
pub fn discard_recovered(r: State<'_, RecoveryState>, id: String) -> R<()> {
    caught("discard_recovered", || recovery(&r).discard(&id))
}

/// Titles the window after book `doc` (the one the UI shows) and its dirty
/// state; `untitled` is the UI's word for a book without any name. Returns
/// the title, which the page takes as its own too (what WebDriver and
/// assistive tools read).
#[tauri::command(async)]
pub fn set_window_title(
    app: AppHandle,
    s: State<'_, AppState>,
    doc: Option<u32>,
    untitled: String,
) -> R<String> {
    let title = guarded(&s, "set_window_title", |ws| {
        Ok(ws.window_title(doc, &untitled))
    })?;
    if let Some(w) = app.get_webview_window("main") {
        w.set_title(&title)
            .map_err(|e| AppError::internal("set_window_title", &e.to_string()))?;
    }
    Ok(title)
}

/// Whether quitting could lose work, asked by the UI after it read the
/// books' dirty flags: a workspace left poisoned by a panicking command
/// answers yes even when every flag reads clean.
#[tauri::command(async)]
pub fn has_unsaved(s: State<'_, AppState>) -> bool {
    // Blocking, as every command body (see `catch`).
    tokio::task::block_in_place(|| s.has_unsaved_soon())
}

/// Closes the window even with unsaved changes (after the UI asked).
#[tauri::command]
pub fn quit(app: AppHandle) {
    crate::QUIT_CONFIRMED.store(true, std::sync::atomic::Ordering::SeqCst);
    app.exit(0);
}

/// The About dialog's facts: version, licences, the data folder and where
/// the tokenizer files were found.
#[tauri::command]
pub fn about(app: AppHandle) -> R<About> {
    caught("about", || Ok(about_of(&crate::data_dir(&app))))
}

/// [`about`] for a data folder.
pub fn about_of(data_dir: &std::path::Path) -> About {
    About {
        version: env!("CARGO_PKG_VERSION").to_string(),
        license: env!("CARGO_PKG_LICENSE").to_string(),
        data_dir: data_dir.display().to_string(),
        tokenizers_dir: FAMILIES
            .iter()
            .find_map(resources::installed)
            .and_then(|p| p.parent().map(|d| d.display().to_string())),
        tokenizers: FAMILIES
            .iter()
            .map(|f| AboutTokenizer {
                id: f.id.to_string(),
                source: f.source.to_string(),
                available: f.available(),
            })
            .collect(),
    }
}

/// The interface preferences saved by an earlier run (the defaults when
/// there are none).
#[tauri::command]
pub fn load_prefs(app: AppHandle) -> R<crate::prefs::Prefs> {
    caught("load_prefs", || {
        Ok(crate::prefs::load(&crate::data_dir(&app)))
    })
}

/// Saves the interface preferences (theme, language, pane sizes).
#[tauri::command]
pub fn save_prefs(app: AppHandle, prefs: crate::prefs::Prefs) -> R<()> {
    caught("save_prefs", || {
        crate::prefs::store(&crate::data_dir(&app), prefs).map_err(|e| {
            AppError::coded(
                ErrorKind::Io,
                format!("the preferences were not saved: {e}"),
                ErrorCode::PrefsNotSaved { detail: e },
            )
        })
    })
}
