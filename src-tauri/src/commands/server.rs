//! Commands of the connection to a running SillyTavern (`crate::server`):
//! connect, list its books and characters, open a book as a tab that saves
//! back there, and take its settings, a character and a chat into the
//! preview. The network is reached outside the workspace's lock: a slow
//! server never freezes the editor.

use lorebook_connect::Server;

use super::*;
use crate::server::{book_ref, error};

fn last_file(app: &AppHandle) -> PathBuf {
    crate::data_dir(app).join(crate::server::LAST_FILE)
}

/// Connects (replacing any connection). `user` and `password` are used
/// only where the server asks for a login, and kept in memory only; no
/// `password` takes the one remembered for this server and user; with
/// `remember` the password goes to the system's secret store. The address
/// and user (never the password) are kept to offer next time.
#[tauri::command(async)]
pub fn st_connect(
    app: AppHandle,
    s: State<'_, AppState>,
    address: String,
    user: Option<String>,
    password: Option<String>,
    remember: bool,
) -> R<ServerView> {
    caught("st_connect", || {
        // Whether a password for this server and user was remembered, as
        // the last connection recorded it (the keyring is not asked).
        let file = last_file(&app);
        let wanted = crate::secrets::key(address.trim(), user.as_deref().unwrap_or("").trim());
        let saved_before = s.server.last(&file).is_some_and(|l| {
            l.password_saved
                && crate::secrets::key(&l.address, l.user.as_deref().unwrap_or("")) == wanted
        });
        let view = s
            .server
            .connect(&address, user, password, remember, saved_before)?;
        crate::server::write_last(&file, &view);
        Ok(view)
    })
}

/// The last server connected to, to offer in the dialog.
#[tauri::command(async)]
pub fn st_last_server(app: AppHandle, s: State<'_, AppState>) -> R<Option<LastServer>> {
    caught("st_last_server", || Ok(s.server.last(&last_file(&app))))
}

/// Removes the password remembered for a server and user.
#[tauri::command(async)]
pub fn st_forget_password(
    app: AppHandle,
    s: State<'_, AppState>,
    address: String,
    user: String,
) -> R<()> {
    caught("st_forget_password", || {
        s.server.forget_password(&address, &user)?;
        let file = last_file(&app);
        if let Some(mut last) = s.server.last(&file) {
            last.password_saved = false;
            crate::server::write_last_server(&file, &last);
        }
        Ok(())
    })
}

#[tauri::command(async)]
pub fn st_disconnect(s: State<'_, AppState>) -> R<()> {
    caught("st_disconnect", || {
        s.server.disconnect();
        Ok(())
    })
}

/// The connection in force, if any.
#[tauri::command(async)]
pub fn st_connection(s: State<'_, AppState>) -> R<Option<ServerView>> {
    caught("st_connection", || Ok(s.server.view()))
}

/// The server's books, each with its open tab.
#[tauri::command(async)]
pub fn st_books(s: State<'_, AppState>) -> R<Vec<ServerBookView>> {
    caught("st_books", || {
        let server = s.server.server()?;
        let listed = server.books().map_err(error)?;
        let ws = lock(&s);
        Ok(listed
            .into_iter()
            .map(|b| ServerBookView {
                open: ws.server_doc(&book_ref(&server, &b.file_id)),
                file_id: b.file_id,
                name: b.name,
            })
            .collect())
    })
}

/// Opens a server's book as a tab (recorded as pulled: a later save checks
/// the server's copy is still this one).
#[tauri::command(async)]
pub fn st_open_book(s: State<'_, AppState>, file_id: String) -> R<OpenResult> {
    open_from_server(&s, &file_id)
}

/// [`st_open_book`]: an open tab is shown, not fetched again (the copy it
/// came from stays the one its Save checks).
pub(crate) fn open_from_server(s: &AppState, file_id: &str) -> R<OpenResult> {
    let server = caught("st_open_book", || s.server.server())?;
    let at = book_ref(&server, file_id);
    let open = guarded(s, "st_open_book", |ws| Ok(ws.server_doc(&at)))?;
    if let Some(doc) = open {
        return Ok(OpenResult {
            doc,
            notes: vec![lorebook_engine::formats::note::Note::AlreadyOpen {
                file: format!("{} ({})", at.file_id, at.address),
            }],
        });
    }
    let (value, seen) = caught("st_open_book", || {
        lorebook_connect::fetch(&server, file_id).map_err(error)
    })?;
    let recorded = value.clone();
    let opened = guarded(s, "st_open_book", |ws| ws.open_server_book(value, at, seen))?;
    // Recorded as pulled on this machine once the tab is open (the CLI's
    // check reads the record; the tab keeps its own fingerprint).
    if let Ok(mut ledger) = s.server.ledger() {
        let _ = ledger.record(&server, file_id, &recorded);
    }
    Ok(opened)
}

/// The server's characters, with their linked books and chats.
#[tauri::command(async)]
pub fn st_characters(s: State<'_, AppState>) -> R<Vec<ServerCharacterView>> {
    caught("st_characters", || {
        crate::server::characters(&*s.server.server()?)
    })
}

/// A character's chat from the server as the preview's chat (again, to
/// refresh it: the server's chat as it is now).
#[tauri::command(async)]
pub fn st_use_chat(s: State<'_, AppState>, avatar: String, chat: String) -> R<AppStateView> {
    chat_from_server(&s, &avatar, &chat)
}

pub(crate) fn chat_from_server(s: &AppState, avatar: &str, chat: &str) -> R<AppStateView> {
    let text = caught("st_use_chat", || {
        let server = s.server.server()?;
        let character = server.character(avatar).map_err(error)?;
        server.chat(&character, chat).map_err(error)
    })?;
    guarded(s, "st_use_chat", |ws| {
        ws.set_chat(text);
        Ok(ws.state())
    })
}

/// The server's settings.json as SillyTavern's settings for the preview
/// (world-info settings, macro engine, global variables), kept with the
/// app's SillyTavern settings in its data folder.
#[tauri::command(async)]
pub fn st_use_settings(app: AppHandle, s: State<'_, AppState>) -> R<RulesView> {
    let view = settings_from_server(&s)?;
    guarded(&s, "st_use_settings", |ws| {
        super::sillytavern::store_st_settings(&app, ws);
        Ok(())
    })?;
    Ok(view)
}

pub(crate) fn settings_from_server(s: &AppState) -> R<RulesView> {
    let (value, address) = caught("st_use_settings", || {
        let server = s.server.server()?;
        Ok((
            server.settings().map_err(error)?,
            server.address().to_string(),
        ))
    })?;
    let bytes = serde_json::to_vec(&value).expect("a JSON value serialises");
    guarded(s, "st_use_settings", |ws| {
        ws.load_st_settings_bytes(&bytes, &format!("settings.json of {address}"))?;
        Ok(ws.rules_view())
    })
}

/// A server's character as the preview's character (its name for
/// `{{char}}` and its fields for the entries' match flags), kept with the
/// app's SillyTavern settings.
#[tauri::command(async)]
pub fn st_use_character(app: AppHandle, s: State<'_, AppState>, avatar: String) -> R<RulesView> {
    let view = character_from_server(&s, &avatar)?;
    guarded(&s, "st_use_character", |ws| {
        super::sillytavern::store_st_settings(&app, ws);
        Ok(())
    })?;
    Ok(view)
}

pub(crate) fn character_from_server(s: &AppState, avatar: &str) -> R<RulesView> {
    let character = caught("st_use_character", || {
        let server = s.server.server()?;
        server.character(avatar).map_err(error)
    })?;
    guarded(s, "st_use_character", |ws| {
        ws.use_st_character(&character.name, &character.value)?;
        Ok(ws.rules_view())
    })
}

/// Saves a server's book back to its server: refused with a
/// `changed_on_server` error when the server's copy changed since it was
/// opened or saved, unless `overwrite`. The book is sent as it was when
/// Save was asked, outside the workspace's lock; it is marked saved only
/// if it was not edited meanwhile. A failed save changes nothing here.
pub(crate) fn save_to_server(s: &AppState, doc: u32, overwrite: bool) -> R<SaveResult> {
    // The steps have their own names; `save` (the fault hook's, the
    // trace's) is the last, which marks the book saved.
    let Some(job) = guarded(s, "save_target", |ws| ws.server_save(doc))? else {
        return Err(AppError::needs_path());
    };
    let pushed = caught("save_push", || {
        let server: std::sync::Arc<Server> = s.server.server_for(&job.at)?;
        let mut ledger = s.server.ledger()?;
        lorebook_connect::push_seen(
            &server,
            &mut ledger,
            &job.at.file_id,
            &job.data,
            job.seen.as_deref(),
            overwrite,
        )
        .map_err(error)
    })?;
    guarded(s, "save", |ws| {
        ws.server_saved(doc, job.revision, pushed.fingerprint.clone())
    })?;
    Ok(SaveResult {
        path: format!("{} ({})", job.at.file_id, job.at.address),
        notes: Vec::new(),
    })
}

/// Reads a server's book again from its server, dropping its edits (the
/// answer to a changed server copy: Reload). `Ok(false)`: not a server
/// book, or edited while the copy was fetched (the edit is kept).
pub(crate) fn reload_from_server(s: &AppState, doc: u32) -> R<bool> {
    let (at, revision) = {
        let ws = lock_state(s);
        match ws.doc(doc)?.server() {
            Some(at) => (at.clone(), ws.revision_of(doc)?),
            None => return Ok(false),
        }
    };
    let (value, seen) = caught("reload_pull", || {
        let server = s.server.server_for(&at)?;
        lorebook_connect::fetch(&server, &at.file_id).map_err(error)
    })?;
    let recorded = value.clone();
    let reloaded = guarded(s, "reload_doc", |ws| {
        ws.reload_server_book(doc, value, seen, revision)
    })?;
    if reloaded {
        if let (Ok(server), Ok(mut ledger)) = (s.server.server_for(&at), s.server.ledger()) {
            let _ = ledger.record(&server, &at.file_id, &recorded);
        }
    }
    Ok(reloaded)
}

fn lock_state(s: &AppState) -> std::sync::MutexGuard<'_, Workspace> {
    s.ws.lock().unwrap_or_else(|p| p.into_inner())
}
