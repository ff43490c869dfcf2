//! Commands on a book's settings and entries: the list, the editor's entry
//! (an edit answered with the state and the preview, `update_entry`), bulk
//! edits, undo/redo, decorators, the Problems panel and the budget advice.

use super::*;

#[tauri::command(async)]
pub fn book_settings(s: State<'_, AppState>, doc: u32) -> R<BookSettings> {
    guarded(&s, "book_settings", |ws| ws.book_settings(doc))
}

#[tauri::command(async)]
pub fn set_book_settings(s: State<'_, AppState>, doc: u32, settings: BookSettings) -> R<()> {
    guarded(&s, "set_book_settings", |ws| {
        ws.set_book_settings(doc, settings)
    })
}

/// The entry list of `doc`, as a change to the list the UI has (`have`)
/// with the rows it changed on its own since (`changed`; see `ListPatch`).
#[tauri::command(async)]
pub fn list_entries(
    s: State<'_, AppState>,
    doc: u32,
    query: ListQuery,
    have: Option<u64>,
    changed: Vec<u64>,
) -> R<ListPatch> {
    guarded(&s, "list_entries", |ws| {
        ws.list_patch(doc, &query, have, &changed)
    })
}

/// The token counts the list of `doc` was sent without, a step at a time
/// from entry position `from` (`Workspace::count_list_tokens`).
#[tauri::command(async)]
pub fn count_list_tokens(s: State<'_, AppState>, doc: u32, from: u32) -> R<TokenStep> {
    guarded(&s, "count_list_tokens", |ws| {
        ws.count_list_tokens(doc, from)
    })
}

#[tauri::command(async)]
pub fn get_entry(s: State<'_, AppState>, doc: u32, id: u64) -> R<EntryDetail> {
    guarded(&s, "get_entry", |ws| ws.entry(doc, id))
}

#[tauri::command(async)]
pub fn update_entry(
    s: State<'_, AppState>,
    doc: u32,
    entry: Entry,
    preview: Option<PreviewAsk>,
) -> R<EntryEdited> {
    guarded(&s, "update_entry", |ws| ws.edit_entry(doc, entry, preview))
}

/// The problems of book `doc` under the preview's rules (docs/lint.md).
/// The checks run with the workspace's lock free (a big book takes longer
/// than a keystroke may wait), taking it only to count tokens.
/// Without `hints`, the hints are only counted per code: a big book has
/// hundreds of thousands, which the panel lists only when asked. `have` is
/// the fingerprint of the view the panel holds: the same view is not sent
/// again ([`ProblemsAnswer`]).
#[tauri::command(async)]
pub fn lint_problems(
    s: State<'_, AppState>,
    doc: u32,
    hints: bool,
    have: Option<String>,
) -> R<ProblemsAnswer> {
    let job = guarded(&s, "lint_problems", |ws| ws.lint_job(doc))?;
    let job = if hints { job } else { job.without_hints() };
    caught("lint_problems", || {
        let view = job.run(&mut Locked(&s));
        Ok(ProblemsAnswer::of(view, have.as_deref()))
    })
}

/// Counts tokens through the workspace's preview, holding its lock only
/// while it counts, a step of at most `COUNT_STEP_BYTES` of text at a
/// time, and letting whoever waits for the workspace (a keystroke's edit
/// or preview) go first between steps: on a 100,000-entry book the
/// uncounted bodies take seconds, which an edit must not wait for.
struct Locked<'a>(&'a AppState);

impl lorebook_engine::lint::CountTokens for Locked<'_> {
    fn count_all(&mut self, texts: &[&str]) -> Vec<u32> {
        let mut out = Vec::with_capacity(texts.len());
        for step in count_steps(texts, crate::workspace::COUNT_STEP_BYTES) {
            while self.0.interrupt.wanted() {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            let mut ws = self.0.ws.lock().unwrap_or_else(|p| p.into_inner());
            out.extend(lorebook_engine::lint::CountTokens::count_all(
                &mut *ws, step,
            ));
        }
        out
    }
}

/// `texts` in consecutive steps of at most `bytes` bytes of text (one text
/// longer than that is a step of its own).
fn count_steps<'t, 's>(texts: &'t [&'s str], bytes: usize) -> Vec<&'t [&'s str]> {
    let mut steps = Vec::new();
    let (mut start, mut held) = (0, 0);
    for (i, t) in texts.iter().enumerate() {
        if i > start && held + t.len() > bytes {
            steps.push(&texts[start..i]);
            (start, held) = (i, 0);
        }
        held += t.len();
    }
    if start < texts.len() {
        steps.push(&texts[start..]);
    }
    steps
}

#[cfg(test)]
mod tests {
    #[test]
    fn counting_steps_cover_every_text_once_within_the_step_size() {
        let texts = ["aaaa", "bb", "cccccccc", "d", "ee", ""];
        let steps = super::count_steps(&texts, 5);
        assert_eq!(
            steps,
            [&["aaaa"][..], &["bb"], &["cccccccc"], &["d", "ee", ""]]
        );
        assert_eq!(steps.concat(), texts);
        assert!(super::count_steps(&[], 5).is_empty());
    }
}

/// Applies a problem's quick fix to entry `id` as one undo step.
#[tauri::command(async)]
pub fn apply_fix(
    s: State<'_, AppState>,
    doc: u32,
    id: u64,
    fix: lorebook_engine::lint::Fix,
) -> R<EntryDetail> {
    guarded(&s, "apply_fix", |ws| ws.apply_fix(doc, id, &fix))
}

/// The budget advice of the loaded chat's request log, and what entry
/// `entry` (`[doc, id]`) would need to survive it.
#[tauri::command(async)]
pub fn budget_advice(s: State<'_, AppState>, entry: Option<(u32, u64)>) -> R<Option<AdviceView>> {
    guarded(&s, "budget_advice", |ws| ws.budget_advice(entry))
}

#[tauri::command(async)]
pub fn add_entry(s: State<'_, AppState>, doc: u32) -> R<u64> {
    guarded(&s, "add_entry", |ws| ws.add_entry(doc))
}

#[tauri::command(async)]
pub fn duplicate_entries(
    s: State<'_, AppState>,
    doc: u32,
    ids: Vec<u64>,
    copy_name: String,
) -> R<Vec<u64>> {
    guarded(&s, "duplicate_entries", |ws| {
        ws.duplicate(doc, &ids, &copy_name)
    })
}

#[tauri::command(async)]
pub fn delete_entries(s: State<'_, AppState>, doc: u32, ids: Vec<u64>) -> R<()> {
    guarded(&s, "delete_entries", |ws| ws.delete(doc, &ids))
}

#[tauri::command(async)]
pub fn bulk_update(s: State<'_, AppState>, doc: u32, ids: Vec<u64>, patch: BulkPatch) -> R<()> {
    guarded(&s, "bulk_update", |ws| ws.bulk(doc, &ids, &patch))
}

#[tauri::command(async)]
pub fn add_folder(s: State<'_, AppState>, doc: u32, name: String, parent: Option<u64>) -> R<u64> {
    guarded(&s, "add_folder", |ws| ws.add_folder(doc, &name, parent))
}

#[tauri::command(async)]
pub fn move_to_folder(s: State<'_, AppState>, doc: u32, ids: Vec<u64>, into: Option<u64>) -> R<()> {
    guarded(&s, "move_to_folder", |ws| {
        ws.move_to_folder(doc, &ids, into)
    })
}

#[tauri::command(async)]
pub fn rename_folder(s: State<'_, AppState>, doc: u32, id: u64, name: String) -> R<()> {
    guarded(&s, "rename_folder", |ws| ws.rename_folder(doc, id, &name))
}

#[tauri::command(async)]
pub fn folder_entries(s: State<'_, AppState>, doc: u32, id: u64) -> R<Vec<u64>> {
    guarded(&s, "folder_entries", |ws| ws.folder_entries(doc, id))
}

#[tauri::command(async)]
pub fn set_folder_enabled(s: State<'_, AppState>, doc: u32, id: u64, enabled: bool) -> R<()> {
    guarded(&s, "set_folder_enabled", |ws| {
        ws.set_folder_enabled(doc, id, enabled)
    })
}

#[tauri::command(async)]
pub fn delete_folder(s: State<'_, AppState>, doc: u32, id: u64, contents: FolderContents) -> R<()> {
    guarded(&s, "delete_folder", |ws| {
        ws.delete_folder(doc, id, contents)
    })
}

#[tauri::command(async)]
pub fn undo(s: State<'_, AppState>, doc: u32) -> R<bool> {
    guarded(&s, "undo", |ws| ws.undo(doc))
}

#[tauri::command(async)]
pub fn redo(s: State<'_, AppState>, doc: u32) -> R<bool> {
    guarded(&s, "redo", |ws| ws.redo(doc))
}

/// Splits the editor's comma-separated keys, keeping commas inside
/// `/regex/` keys (the engine's rule, not re-implemented in the UI).
#[tauri::command]
pub fn split_keys(text: String) -> R<Vec<String>> {
    caught("split_keys", || {
        Ok(lorebook_engine::model::split_keys(&text))
    })
}

#[tauri::command]
pub fn set_decorator(
    content: String,
    name: String,
    arg: Option<String>,
    present: bool,
) -> R<String> {
    caught("set_decorator", || {
        Ok(Workspace::set_decorator(
            &content,
            &name,
            arg.as_deref(),
            present,
        ))
    })
}
