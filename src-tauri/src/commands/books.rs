//! Commands on whole books: new, open and import (with their pending
//! confirmation), export, save, reload, close, the sample, and the recent-files
//! list kept in the app's config folder.

use super::*;

/// The recent-files list lives in the app's config folder as JSON.
fn recent_file(app: &AppHandle) -> Option<PathBuf> {
    app.path()
        .app_config_dir()
        .ok()
        .map(|d| d.join("recent.json"))
}

/// Reads the recent-files list saved by an earlier run (missing or broken
/// files give an empty list: it is a convenience, not a document).
pub fn load_recent(app: &AppHandle) -> Vec<PathBuf> {
    recent_file(app)
        .and_then(|f| std::fs::read(f).ok())
        .and_then(|b| serde_json::from_slice::<Vec<PathBuf>>(&b).ok())
        .unwrap_or_default()
}

/// Persists the recent-files list after opens and saves.
pub(crate) fn store_recent(app: &AppHandle, ws: &Workspace) {
    let Some(file) = recent_file(app) else { return };
    if let Some(dir) = file.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(bytes) = serde_json::to_vec_pretty(&ws.recent) {
        let _ = lorebook_engine::formats::write_atomic(&file, &bytes);
    }
}

/// A new, empty book; `name` is the UI's word for an untitled book. Off
/// the main thread, as every command that waits for the workspace.
#[tauri::command(async)]
pub fn new_book(s: State<'_, AppState>, name: String) -> R<u32> {
    guarded(&s, "new_book", |ws| Ok(ws.new_book_named(&name)))
}

/// Open… and Import…: a native dialog, then every chosen file is read.
/// Native files open at once; others wait with their report.
#[tauri::command]
pub async fn open_dialog(app: AppHandle, import: bool) -> R<Vec<ImportOutcome>> {
    let dialog = file_dialog(&app, if import { Dialog::Import } else { Dialog::Open });
    let Some(paths) = dialog.blocking_pick_files() else {
        return Err(AppError::nothing_chosen());
    };
    let paths: Vec<PathBuf> = paths
        .into_iter()
        .filter_map(|p| p.into_path().ok())
        .collect();
    let state = app.state::<AppState>();
    guarded(&state, "open_dialog", |ws| {
        let result = paths.iter().map(|p| ws.import_path(p)).collect();
        store_recent(&app, ws);
        result
    })
}

#[tauri::command(async)]
pub fn pending_imports(s: State<'_, AppState>) -> R<Vec<PendingImport>> {
    guarded(&s, "pending_imports", |ws| Ok(ws.pending()))
}

#[tauri::command(async)]
pub fn confirm_import(s: State<'_, AppState>, id: u32, accept: bool) -> R<Option<u32>> {
    guarded(&s, "confirm_import", |ws| ws.confirm_import(id, accept))
}

/// What an export would carry, shown before the user confirms.
#[tauri::command(async)]
pub fn export_report(s: State<'_, AppState>, doc: u32, format: ExportFormat) -> R<Report> {
    guarded(&s, "export_report", |ws| ws.export_report(doc, format))
}

/// Export as…: optionally a card PNG to write into, then where to save.
#[tauri::command]
pub async fn export_dialog(
    app: AppHandle,
    doc: u32,
    format: ExportFormat,
    into_card: bool,
) -> R<String> {
    let card = if into_card {
        let picked = file_dialog(&app, Dialog::ExportCard).blocking_pick_file();
        match picked.and_then(|p| p.into_path().ok()) {
            Some(p) => Some(p),
            None => return Err(AppError::nothing_chosen()),
        }
    } else {
        None
    };
    let (name, dir) = {
        let state = app.state::<AppState>();
        guarded(&state, "export_dialog", |ws| {
            let d = ws.doc(doc)?;
            let (name, dir) = match &card {
                Some(c) => {
                    // Written as the kind of card it was written into.
                    let ext = match c.extension().and_then(|e| e.to_str()) {
                        Some(e) if e.eq_ignore_ascii_case("charx") => "charx",
                        _ => "png",
                    };
                    (format!("{}.{ext}", safe_stem(&d.book.name)), None)
                }
                None => proposed_name(&d.book.name, d.source(), Some(format), d.save_back()),
            };
            Ok((name, dir.unwrap_or_else(|| start_dir(d))))
        })?
    };
    let dialog = file_dialog(&app, Dialog::Export)
        .set_file_name(&name)
        .set_directory(dir);
    let Some(path) = dialog.blocking_save_file().and_then(|p| p.into_path().ok()) else {
        return Err(AppError::nothing_chosen());
    };
    let state = app.state::<AppState>();
    guarded(&state, "export_dialog", |ws| {
        ws.export_to(doc, format, &path, card.as_deref())
    })
}

/// The folder a save dialog for book `doc` opens in: beside its file or
/// folder, else beside the file it was imported from, else the home
/// folder (never GTK's "Recent" list, where no folder can be made).
fn start_dir(d: &crate::workspace::Doc) -> PathBuf {
    let beside = |p: &std::path::Path| p.parent().map(std::path::Path::to_path_buf);
    d.path
        .as_deref()
        .and_then(beside)
        .or_else(|| d.source().and_then(beside))
        .filter(|p| p.is_dir())
        .or_else(|| std::env::var_os("HOME").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("/"))
}

/// The file name a save or export dialog proposes for book `name` in
/// `format` (`None`: the app's own), with the folder to open it in: the
/// source file's, for a book imported from one. Written back in the
/// format of the file it was imported from (`back`), the proposal is that
/// file. Otherwise the name is the book's, never the source file's own
/// name: Enter in the dialog must not replace the author's file with
/// another format.
pub(crate) fn proposed_name(
    name: &str,
    source: Option<&std::path::Path>,
    format: Option<ExportFormat>,
    back: Option<ExportFormat>,
) -> (String, Option<PathBuf>) {
    let dir = source
        .and_then(std::path::Path::parent)
        .map(std::path::Path::to_path_buf);
    if let (Some(src), Some(f)) = (source, format) {
        if back == Some(f) {
            if let Some(file) = src.file_name() {
                return (file.to_string_lossy().into_owned(), dir);
            }
        }
    }
    let stem = safe_stem(name);
    let ext = format.map_or("json", ExportFormat::extension);
    let plain = format!("{stem}.{ext}");
    let taken = source
        .and_then(|s| s.file_name())
        .is_some_and(|f| f.to_string_lossy() == plain);
    if !taken {
        return (plain, dir);
    }
    let label = match format {
        None | Some(ExportFormat::Native) => "Lorebook Studio",
        Some(f) => f.cli_name(),
    };
    (format!("{stem} ({label}).{ext}"), dir)
}

/// A file name made from a book name.
fn safe_stem(name: &str) -> String {
    let stem: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.is_empty() {
        "book".into()
    } else {
        stem
    }
}

/// Reopens a file from the recent list; the webview cannot name any other
/// path.
#[tauri::command(async)]
pub fn open_recent(app: AppHandle, s: State<'_, AppState>, path: String) -> R<ImportOutcome> {
    guarded(&s, "open_recent", |ws| {
        let result = ws.open_recent(&path);
        store_recent(&app, ws);
        result
    })
}

/// Saves to the book's file; `overwrite` saves over a file that changed on
/// disk since it was opened (else that is a `changed_on_disk` error).
#[tauri::command(async)]
pub fn save(app: AppHandle, s: State<'_, AppState>, doc: u32, overwrite: bool) -> R<SaveResult> {
    // A book opened from a SillyTavern server is saved back there.
    // Its own name: the fault hook's `save` is the save itself.
    let remote = guarded(&s, "save_target", |ws| Ok(ws.doc(doc)?.server().is_some()))?;
    if remote {
        return super::server::save_to_server(&s, doc, overwrite);
    }
    guarded(&s, "save", |ws| {
        let result = ws.save(doc, None, overwrite);
        store_recent(&app, ws);
        result
    })
}

#[tauri::command]
pub async fn save_as(app: AppHandle, doc: u32) -> R<SaveResult> {
    let name = {
        let state = app.state::<AppState>();
        guarded(&state, "save_as", |ws| {
            let d = ws.doc(doc)?;
            let (name, dir) = proposed_name(&d.book.name, d.source(), None, None);
            Ok((name, dir.unwrap_or_else(|| start_dir(d))))
        })?
    };
    let (name, dir) = name;
    let dialog = file_dialog(&app, Dialog::SaveAs)
        .set_file_name(&name)
        .set_directory(dir);
    let picked = dialog.blocking_save_file();
    let Some(path) = picked.and_then(|p| p.into_path().ok()) else {
        return Err(AppError::nothing_chosen());
    };
    let state = app.state::<AppState>();
    guarded(&state, "save_as", |ws| {
        let result = ws.save(doc, Some(path), false);
        store_recent(&app, ws);
        result
    })
}

/// Open Folder…: a book kept as a folder of Markdown files, opened bound
/// to its folder.
#[tauri::command]
pub async fn open_folder_dialog(app: AppHandle) -> R<ImportOutcome> {
    let picked = file_dialog(&app, Dialog::OpenFolder).blocking_pick_folder();
    let Some(dir) = picked.and_then(|p| p.into_path().ok()) else {
        return Err(AppError::nothing_chosen());
    };
    let state = app.state::<AppState>();
    guarded(&state, "open_folder_dialog", |ws| {
        let result = ws.import_path(&dir);
        store_recent(&app, ws);
        result
    })
}

/// Save As Folder…: the book written as a folder of Markdown files, in the
/// chosen folder when it is empty or already this book's, else in a new
/// folder named after the book inside it. A folder that already holds
/// another book is replaced only after the author says so in a native
/// question. The book is then bound to it.
#[tauri::command]
pub async fn save_as_folder(app: AppHandle, doc: u32) -> R<SaveResult> {
    let start = {
        let state = app.state::<AppState>();
        guarded(&state, "save_as_folder", |ws| Ok(start_dir(ws.doc(doc)?)))?
    };
    // Opened in a folder, not on GTK's "Recent" list, so its New Folder
    // button is there from the start.
    let picked = file_dialog(&app, Dialog::SaveAsFolder)
        .set_directory(start)
        .blocking_pick_folder();
    let Some(chosen) = picked.and_then(|p| p.into_path().ok()) else {
        return Err(AppError::nothing_chosen());
    };
    let state = app.state::<AppState>();
    let (name, own) = guarded(&state, "save_as_folder", |ws| {
        let d = ws.doc(doc)?;
        Ok((d.book.name.clone(), d.path.clone()))
    })?;
    let target = match folder_target(&chosen, &name, own.as_deref(), false) {
        Err(e) if matches!(e.code, ErrorCode::FolderHoldsBook { .. }) => {
            let ErrorCode::FolderHoldsBook { folder } = &e.code else {
                unreachable!()
            };
            if !crate::dialogs::ask_replace_folder(&app, folder) {
                return Err(AppError::nothing_chosen());
            }
            folder_target(&chosen, &name, own.as_deref(), true)?
        }
        other => other?,
    };
    guarded(&state, "save_as_folder", |ws| {
        let result = ws.save(doc, Some(target.clone()), false);
        store_recent(&app, ws);
        result
    })
}

/// Where Save As Folder writes when `chosen` is picked: `chosen` itself
/// when empty or a book's folder, else `chosen/NAME` (made), `NAME` the
/// book's name as a file name. A target that holds a book other than the
/// one saved (`own`, its folder) is a [`ErrorCode::FolderHoldsBook`]
/// error unless `replace`: the author is asked first.
pub(crate) fn folder_target(
    chosen: &std::path::Path,
    name: &str,
    own: Option<&std::path::Path>,
    replace: bool,
) -> Result<PathBuf, AppError> {
    use lorebook_engine::formats::markdown;
    let empty = |p: &std::path::Path| std::fs::read_dir(p).is_ok_and(|mut d| d.next().is_none());
    // A new folder named in the picker (its parent there): made, and the
    // book kept in it.
    let new = std::fs::symlink_metadata(chosen)
        .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        && chosen.parent().is_some_and(std::path::Path::is_dir);
    let target = if new || empty(chosen) || markdown::is_book_folder(chosen) {
        chosen.to_path_buf()
    } else {
        chosen.join(markdown::file_stem(name))
    };
    let ours =
        |p: &std::path::Path| own.is_some_and(|o| o.canonicalize().ok() == p.canonicalize().ok());
    if !replace && markdown::is_book_folder(&target) && !ours(&target) {
        return Err(AppError::invalid(
            format!(
                "{} already holds another book; it was not replaced",
                target.display()
            ),
            ErrorCode::FolderHoldsBook {
                folder: target.display().to_string(),
            },
        ));
    }
    std::fs::create_dir_all(&target).map_err(|e| AppError::write(&target, "save", e))?;
    Ok(target)
}

/// Merge a Book Into This One…: the other book chosen in a native dialog,
/// answered as the three groups the author decides on.
#[tauri::command]
pub async fn merge_dialog(app: AppHandle, doc: u32) -> R<MergeView> {
    let picked = file_dialog(&app, Dialog::MergeFrom).blocking_pick_file();
    let Some(path) = picked.and_then(|p| p.into_path().ok()) else {
        return Err(AppError::nothing_chosen());
    };
    let state = app.state::<AppState>();
    guarded(&state, "merge_dialog", |ws| ws.merge_from(doc, &path))
}

/// Applies the author's merge choices as one undo step.
#[tauri::command(async)]
pub fn apply_merge(
    s: State<'_, AppState>,
    doc: u32,
    choices: lorebook_engine::merge::MergeChoices,
) -> R<lorebook_engine::merge::MergeSummary> {
    guarded(&s, "apply_merge", |ws| ws.apply_merge(doc, &choices))
}

#[tauri::command(async)]
pub fn cancel_merge(s: State<'_, AppState>) -> R<()> {
    guarded(&s, "cancel_merge", |ws| {
        ws.cancel_merge();
        Ok(())
    })
}

/// The open books whose files changed on disk, each once per change; the
/// UI asks when the followed files changed (`disk-changed`, see
/// `crate::watch`) and on window focus, reloads the unmodified ones and
/// asks about the others.
#[tauri::command(async)]
pub fn check_disk_changes(s: State<'_, AppState>) -> R<Vec<DiskChange>> {
    guarded(&s, "check_disk_changes", |ws| Ok(ws.disk_changes()))
}

/// Reads a book again from its file, dropping its edits; unless
/// `unless_edited` and it has unsaved changes by now (`false`: kept, not
/// read), which the UI asks for when it reloads a book it saw unmodified.
#[tauri::command(async)]
pub fn reload_doc(s: State<'_, AppState>, doc: u32, unless_edited: bool) -> R<bool> {
    // A book opened from a SillyTavern server is read again from there.
    let remote = guarded(&s, "reload_target", |ws| {
        let d = ws.doc(doc)?;
        Ok(d.server().is_some().then(|| d.dirty()))
    })?;
    match remote {
        Some(true) if unless_edited => return Ok(false),
        Some(_) => return super::server::reload_from_server(&s, doc),
        None => {}
    }
    guarded(&s, "reload_doc", |ws| ws.reload(doc, unless_edited))
}

#[tauri::command(async)]
pub fn close_doc(s: State<'_, AppState>, doc: u32) -> R<()> {
    guarded(&s, "close_doc", |ws| ws.close(doc))
}

/// The empty state's "Open the sample": the bundled sample book (and its
/// chat, when none is set) as a new book without a file.
#[tauri::command(async)]
pub fn open_sample(s: State<'_, AppState>) -> R<u32> {
    guarded(&s, "open_sample", |ws| ws.open_sample())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// `proposed_name`: a SillyTavern book's Save As never proposes its
    /// source file's name; writing back in SillyTavern's format proposes
    /// exactly that file, in its folder.
    #[test]
    fn proposed_name_never_offers_the_source_for_another_format() {
        let src = Path::new("/books/Harbor.json");
        let st = Some(ExportFormat::SillyTavern);
        let books = Some(PathBuf::from("/books"));
        assert_eq!(
            proposed_name("Harbor", Some(src), None, st),
            ("Harbor (Lorebook Studio).json".into(), books.clone())
        );
        assert_eq!(
            proposed_name("Harbor", Some(src), st, st),
            ("Harbor.json".into(), Some(PathBuf::from("/books")))
        );
        assert_eq!(
            proposed_name("Harbor", Some(src), Some(ExportFormat::CardV2), st),
            ("Harbor (ccv2).json".into(), books.clone())
        );
        assert_eq!(
            proposed_name("Harbor", Some(src), Some(ExportFormat::NovelAi), st),
            ("Harbor.lorebook".into(), books)
        );
        assert_eq!(
            proposed_name("Harbor", None, None, None),
            ("Harbor.json".into(), None)
        );
    }

    /// `folder_target`: a folder named in the picker that is not there yet
    /// (its parent is) is made and is the book's folder itself.
    #[test]
    fn folder_target_makes_a_new_folder_named_in_the_picker() {
        let root = std::env::temp_dir().join(format!("lbs-new-folder-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let chosen = root.join("My Book");
        assert_eq!(
            folder_target(&chosen, "Harbor", None, false).unwrap(),
            chosen
        );
        assert!(chosen.is_dir());
        // Chosen again, now holding a file that is not a book's: a folder
        // named after the book inside it.
        std::fs::write(chosen.join("notes.txt"), b"mine").unwrap();
        assert_eq!(
            folder_target(&chosen, "Harbor", None, false).unwrap(),
            chosen.join("Harbor")
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
