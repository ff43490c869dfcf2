//! The entry list and the entry editor's view of one entry. Both build
//! their rows with [`row`], so a row updated after an edit is the row the
//! list would show.
//!
//! Filtering and sorting happen here, in Rust, so the UI never holds every
//! entry's content. Diagnostics come from the preview's index when the
//! entry is compiled there, and from [`lint_entry`] otherwise.
//!
//! A book's own display name ([`Doc::display_name`]) is decided here too,
//! next to the entries' names, so every view shows the same one.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::Path;

use lorebook_engine::decorators::{self, Diagnostic, Severity};
use lorebook_engine::folders::Tree;
use lorebook_engine::lint::lint_entry;
use lorebook_engine::model::{Book, Entry};
use lorebook_engine::preview::Preview;

use super::documents::Doc;
use super::Workspace;
use crate::error::AppError;
use crate::views::{
    EntryDetail, EntryFilter, EntryRow, ListQuery, RowTokens, Rules, SortKey, TokenStep,
};

impl Doc {
    /// The name shown for this book in tabs, dialogs and the window title:
    /// its name, else its file's name without extension (imported books
    /// often have no name), else empty, which the UI words as "untitled".
    pub fn display_name(&self) -> String {
        let name = self.book.name.trim();
        if !name.is_empty() {
            return name.to_string();
        }
        self.path.as_deref().map(name_from_file).unwrap_or_default()
    }
}

/// The name a book from file `path` goes by when it has none of its own:
/// the file's name without its extension.
pub(super) fn name_from_file(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The app's name, last in the window title.
const APP_NAME: &str = "Lorebook Studio";

/// The window title for book `doc` (none open: the app's name alone): the
/// book's display name (`untitled` when it has none), marked "●" while it
/// has unsaved changes, as editors mark a modified file.
pub fn window_title(doc: Option<&Doc>, untitled: &str) -> String {
    let Some(d) = doc else {
        return APP_NAME.to_string();
    };
    let name = d.display_name();
    let name = if name.is_empty() { untitled } else { &name };
    let dirty = if d.dirty() { "● " } else { "" };
    format!("{dirty}{name} — {APP_NAME}")
}

/// How many warnings and errors there are and the worst of them, as a
/// row's badge shows. Hints are left out: they are listed in the Problems
/// panel when asked for, never badged on a row (issue 20: a badge on every
/// row of a SillyTavern book said nothing).
fn tally(diagnostics: &[Diagnostic]) -> (u32, Option<Severity>) {
    let problems = diagnostics.iter().filter(|d| d.severity != Severity::Hint);
    let worst = problems.clone().map(|d| d.severity).max();
    (problems.count() as u32, worst)
}

/// How many bytes of bodies not counted before one call of
/// [`Workspace::list`] or [`Workspace::count_list_tokens`] counts at most.
/// A book's first list would otherwise count every body before the list is
/// shown (10,000 bodies: about a second); beyond this budget, rows come
/// without their count and the UI asks for the rest a step at a time, so
/// the list and the preview are painted first and typing is never held up
/// for more than one step.
pub const COUNT_STEP_BYTES: usize = 256 * 1024;

/// The book's folders ([`Tree`]) for the list: each row's folder and depth.
pub(super) struct Folders(Tree);

impl Folders {
    pub(super) fn of(book: &Book) -> Self {
        Folders(Tree::of(book))
    }

    /// Whether `e` is a folder, and the folder it is in.
    pub(super) fn place(&self, e: &Entry) -> (bool, Option<u64>) {
        (e.folder, self.0.parent(e.id))
    }
}

/// Each folder's rows right after its own, at any depth, in their sorted
/// order; a row whose folder is not listed keeps its place. Sets each
/// row's `depth` (how many listed folders hold it).
fn tree_order(rows: Vec<EntryRow>) -> Vec<EntryRow> {
    if !rows.iter().any(|r| r.parent.is_some()) {
        return rows;
    }
    let listed: HashSet<u64> = rows.iter().filter(|r| r.folder).map(|r| r.id).collect();
    let mut children: HashMap<u64, Vec<EntryRow>> = HashMap::new();
    let mut top = Vec::with_capacity(rows.len());
    for r in rows {
        match r.parent.filter(|p| listed.contains(p)) {
            Some(p) => children.entry(p).or_default().push(r),
            None => top.push(r),
        }
    }
    let mut out = Vec::with_capacity(top.len() + children.len());
    // Depth first, without recursion (a deep tree is no stack risk).
    let mut stack: Vec<(EntryRow, u32)> = top.into_iter().rev().map(|r| (r, 0)).collect();
    while let Some((mut r, depth)) = stack.pop() {
        r.depth = depth;
        if let Some(kids) = children.remove(&r.id) {
            stack.extend(kids.into_iter().rev().map(|k| (k, depth + 1)));
        }
        out.push(r);
    }
    out
}

/// Each folder's totals over the whole book (filters aside): the entries
/// inside it at any depth and their tokens, `None` while one is not
/// counted yet.
fn folder_totals(
    book: &Book,
    tree: &Tree,
    mut counted: impl FnMut(&str) -> Option<u32>,
) -> HashMap<u64, (u32, Option<u64>)> {
    let mut out: HashMap<u64, (u32, Option<u64>)> = HashMap::new();
    for e in book.entries.iter().filter(|e| !e.folder) {
        let up = tree.ancestors(e.id);
        if up.is_empty() {
            continue;
        }
        let tokens = counted(decorators::parse(&e.content).body);
        for f in up {
            let t = out.entry(f).or_insert((0, Some(0)));
            t.0 += 1;
            t.1 = t.1.zip(tokens).map(|(a, b)| a + u64::from(b));
        }
    }
    out
}

fn row(
    e: &Entry,
    tokens: Option<u32>,
    (count, worst): (u32, Option<Severity>),
    (folder, parent): (bool, Option<u64>),
) -> EntryRow {
    EntryRow {
        id: e.id,
        // A folder's name is its comment (a RisuAI folder's key is
        // private-use text).
        name: if e.folder {
            e.comment.clone()
        } else {
            e.display_name().to_string()
        },
        keys: e.keys.join(", "),
        enabled: e.enabled,
        constant: e.constant,
        order: e.order,
        priority: e.priority,
        tokens,
        diagnostics: count,
        severity: worst,
        folder,
        parent,
        depth: 0,
        inside: None,
        inside_tokens: None,
    }
}

/// `a` before `b` in the list sorted by `key`; ties by id.
fn by(key: SortKey, a: &EntryRow, b: &EntryRow, descending: bool) -> std::cmp::Ordering {
    let o = match key {
        SortKey::Id => a.id.cmp(&b.id),
        SortKey::Name => a.name.to_lowercase().cmp(&b.name.to_lowercase()),
        SortKey::Keys => a.keys.to_lowercase().cmp(&b.keys.to_lowercase()),
        SortKey::Order => a.order.cmp(&b.order),
        SortKey::Priority => a.priority.cmp(&b.priority),
        SortKey::Tokens => a.tokens.cmp(&b.tokens),
        SortKey::Enabled => a.enabled.cmp(&b.enabled),
        SortKey::Constant => a.constant.cmp(&b.constant),
    }
    .then(a.id.cmp(&b.id));
    if descending {
        o.reverse()
    } else {
        o
    }
}

/// The diagnostics of `e`: those the preview compiled when the entry is in
/// attached book `book` of an up-to-date index, else linted on their own;
/// under RisuAI's rules (`risu`), as RisuAI reads its decorators.
fn diagnostics<'a>(
    preview: &'a Preview,
    book: Option<usize>,
    e: &Entry,
    risu: bool,
) -> Cow<'a, [Diagnostic]> {
    let found = match book.and_then(|b| preview.index().entry(b, e.id)) {
        Some(c) => Cow::Borrowed(c.diagnostics.as_slice()),
        None => Cow::Owned(lint_entry(e)),
    };
    match risu.then(|| lorebook_engine::risu::risu_diagnostics(&e.content, &found)) {
        Some(Some(changed)) => Cow::Owned(changed),
        _ => found,
    }
}

/// The list's search box: case-insensitive, over names, keys and content.
/// Text typed in ASCII (nearly every search) is found without lowering
/// every body of the book per keystroke, by an ASCII-case-insensitive
/// search; other text is compared lowercased on both sides. The two agree
/// but for the few letters outside ASCII whose lowercase is ASCII (the
/// Kelvin sign, a dotted capital I), which only the second finds.
pub(super) enum Search {
    Everything,
    Ascii(aho_corasick::AhoCorasick),
    Lowered(String),
}

impl Search {
    pub(super) fn new(typed: &str) -> Search {
        let typed = typed.trim();
        if typed.is_empty() {
            return Search::Everything;
        }
        if typed.is_ascii() {
            let built = aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build([typed]);
            if let Ok(found) = built {
                return Search::Ascii(found);
            }
        }
        Search::Lowered(typed.to_lowercase())
    }

    /// Whether nothing was typed (every entry is listed).
    pub(super) fn everything(&self) -> bool {
        matches!(self, Search::Everything)
    }

    fn finds(&self, text: &str) -> bool {
        match self {
            Search::Everything => true,
            Search::Ascii(found) => found.is_match(text),
            Search::Lowered(needle) => text.to_lowercase().contains(needle.as_str()),
        }
    }

    /// Whether `e` mentions the text in its name, keys or content.
    pub(super) fn mentions(&self, e: &Entry) -> bool {
        self.everything()
            || self.finds(&e.comment)
            || e.keys
                .iter()
                .chain(&e.secondary_keys)
                .any(|k| self.finds(k))
            || self.finds(&e.content)
    }
}

impl Workspace {
    /// The window title while book `doc` is the one shown (see
    /// [`window_title`]); a closed or unknown book gives the app's name.
    pub fn window_title(&self, doc: Option<u32>, untitled: &str) -> String {
        window_title(doc.and_then(|id| self.doc(id).ok()), untitled)
    }

    /// The entry list, filtered and sorted.
    pub fn list(&mut self, doc: u32, q: &ListQuery) -> Result<Vec<EntryRow>, AppError> {
        // An index whose build stopped for a save is not used: each entry
        // is then checked on its own, as an unattached book's are.
        let built = self.refresh();
        let book = self.attached_position(doc).filter(|_| built);
        let risu = self.rules() == Rules::Risu;
        // Disjoint borrows: the documents are read while the preview counts.
        let d = self
            .docs
            .iter()
            .find(|d| d.id == doc)
            .ok_or_else(|| AppError::book_not_open(doc))?;
        let preview = &mut self.preview;
        // Sorting by tokens needs every count: those not counted yet are
        // counted at once, over every core.
        if q.sort == SortKey::Tokens {
            preview.prime_tokens(
                d.book
                    .entries
                    .iter()
                    .map(|e| decorators::parse(&e.content).body),
            );
        }
        let search = Search::new(&q.search);
        // Sorting by tokens needs every count; otherwise counting stops
        // after a budget (see `COUNT_STEP_BYTES`).
        let mut budget = if q.sort == SortKey::Tokens {
            usize::MAX
        } else {
            COUNT_STEP_BYTES
        };
        let folders = Folders::of(&d.book);
        let mut rows: Vec<EntryRow> = Vec::with_capacity(d.book.entries.len());
        for e in &d.book.entries {
            let found = tally(&diagnostics(preview, book, e, risu));
            let matches_filter = match q.filter {
                EntryFilter::All => true,
                EntryFilter::Enabled => e.enabled,
                EntryFilter::Disabled => !e.enabled,
                EntryFilter::Constant => e.constant,
                // Hints are not problems: the filter lists what needs fixing.
                EntryFilter::Diagnostics => found.1.is_some_and(Severity::is_problem),
            };
            // A folder is listed when something inside it is (below).
            if e.folder || !matches_filter || !search.mentions(e) {
                continue;
            }
            let body = decorators::parse(&e.content).body;
            let tokens = preview.counted_tokens(body).or_else(|| {
                (budget > 0).then(|| {
                    budget = budget.saturating_sub(body.len());
                    preview.count_tokens(body)
                })
            });
            rows.push(row(e, tokens, found, folders.place(e)));
        }
        // The folders holding a listed entry, and every folder when
        // nothing is filtered out; each with its totals.
        if d.book.entries.iter().any(|e| e.folder) {
            let filtered = !search.everything() || q.filter != EntryFilter::All;
            let mut wanted: HashSet<u64> = HashSet::new();
            for r in &rows {
                wanted.extend(folders.0.ancestors(r.id));
            }
            let totals = folder_totals(&d.book, &folders.0, |b| preview.counted_tokens(b));
            for e in d.book.entries.iter().filter(|e| e.folder) {
                // A filtered list keeps the folders of what it lists, and
                // a folder whose name the search finds (filters aside).
                let named =
                    !search.everything() && q.filter == EntryFilter::All && search.mentions(e);
                if filtered && !wanted.contains(&e.id) && !named {
                    continue;
                }
                let mut r = row(e, None, (0, None), folders.place(e));
                let (n, tokens) = totals.get(&e.id).copied().unwrap_or((0, Some(0)));
                r.inside = Some(n);
                r.inside_tokens = tokens;
                rows.push(r);
            }
        }
        let key = q.sort;
        // Folders keep the book's order among themselves, before entries
        // at the same level, whatever the sort.
        rows.sort_by(|a, b| {
            b.folder.cmp(&a.folder).then_with(|| {
                if a.folder {
                    std::cmp::Ordering::Equal
                } else {
                    by(key, a, b, q.descending)
                }
            })
        });
        Ok(tree_order(rows))
    }

    /// The token counts of the entries of `doc` from position `from` on,
    /// counting bodies not counted before up to [`COUNT_STEP_BYTES`] of
    /// them (counts already known cost nothing). The UI calls it after
    /// showing a list whose rows lack counts, from 0 and then from each
    /// answer's `next`, until `next` is `None`.
    pub fn count_list_tokens(&mut self, doc: u32, from: u32) -> Result<TokenStep, AppError> {
        let d = self
            .docs
            .iter()
            .find(|d| d.id == doc)
            .ok_or_else(|| AppError::book_not_open(doc))?;
        let preview = &mut self.preview;
        let entries = &d.book.entries;
        let from = (from as usize).min(entries.len());
        // The step ends where the uncounted bodies pass the budget; they
        // are then counted together (over every core when there are many).
        let mut budget = COUNT_STEP_BYTES;
        let mut end = from;
        let mut step: Vec<(u64, &str)> = Vec::new();
        while end < entries.len() {
            let body = decorators::parse(&entries[end].content).body;
            if preview.counted_tokens(body).is_none() {
                if budget == 0 {
                    break;
                }
                budget = budget.saturating_sub(body.len());
            }
            step.push((entries[end].id, body));
            end += 1;
        }
        preview.prime_tokens(step.iter().map(|(_, body)| *body));
        let counts = step
            .into_iter()
            .map(|(id, body)| RowTokens {
                id,
                tokens: preview.count_tokens(body),
            })
            .collect::<Vec<_>>();
        let next = (end < entries.len()).then_some(end as u32);
        self.counted_into_sent_list(doc, &counts);
        Ok(TokenStep { counts, next })
    }

    /// One entry with everything the editor shows about it.
    pub fn entry(&mut self, doc: u32, id: u64) -> Result<EntryDetail, AppError> {
        let d = self.doc(doc)?;
        let e = d
            .book
            .entry(id)
            .ok_or_else(|| AppError::entry_not_found(id))?
            .clone();
        let parsed = decorators::parse(&e.content);
        let decorator_lines = parsed.lines.clone();
        let body_line = parsed.lines.len() as u32;
        // An attached entry was just compiled by the preview: reuse its
        // diagnostics instead of compiling its keys again.
        let book = self.attached_position(doc).filter(|_| !self.stale);
        let tokens = self.preview.count_tokens(parsed.body);
        let risu = self.rules() == Rules::Risu;
        let diagnostics = diagnostics(&self.preview, book, &e, risu).into_owned();
        // This runs per keystroke in the editor: no tree of the book.
        let place = (
            e.folder,
            lorebook_engine::folders::parent_of(&self.doc(doc)?.book, &e),
        );
        let row = row(&e, Some(tokens), tally(&diagnostics), place);
        Ok(EntryDetail {
            st: lorebook_engine::formats::st_fields::read(&e),
            entry: e,
            decorator_lines,
            body_line,
            diagnostics,
            tokens,
            row,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::{EntryFilter, ImportOutcome, ListQuery, SortKey};

    /// A SillyTavern book as SillyTavern saves it: no name, and every entry
    /// selective without secondary keys.
    const NAMELESS: &str = r#"{"entries": {
        "0": {"uid": 0, "key": ["harbor"], "keysecondary": [], "comment": "Harbor",
              "content": "The harbor.", "selective": true, "constant": false},
        "1": {"uid": 1, "key": ["lamp"], "keysecondary": [], "comment": "",
              "content": "@@bogus\nThe lamp.", "selective": true, "constant": false}
    }}"#;

    fn query(filter: EntryFilter) -> ListQuery {
        ListQuery {
            search: String::new(),
            filter,
            sort: SortKey::Id,
            descending: false,
        }
    }

    /// Issue 12: an imported book without a name showed "—" in its tab and
    /// an orange badge on every entry.
    #[test]
    fn a_nameless_sillytavern_book_shows_its_file_name_and_no_hint_badges() {
        let dir = std::env::temp_dir().join(format!("lbs-list-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("Saltmere Coast.json");
        std::fs::write(&path, NAMELESS).unwrap();
        let mut ws = Workspace::default();
        let ImportOutcome::Pending(p) = ws.import_path(&path).unwrap() else {
            panic!("a SillyTavern file waits for confirmation")
        };
        assert_eq!(p.name, "Saltmere Coast");
        let doc = ws.confirm_import(p.id, true).unwrap().unwrap();
        assert_eq!(ws.state().docs[0].name, "Saltmere Coast");
        // A confirmed import is a new book with unsaved changes (issue 8).
        assert_eq!(
            ws.window_title(Some(doc), "Untitled"),
            "● Saltmere Coast — Lorebook Studio"
        );
        let rows = ws.list(doc, &query(EntryFilter::All)).unwrap();
        assert_eq!(rows[0].severity, None, "a hint is not badged");
        assert_eq!(rows[0].diagnostics, 0);
        assert_eq!(rows[1].severity, Some(Severity::Warning), "the worst one");
        assert_eq!(rows[1].diagnostics, 1, "the warning, not the hint");
        let problems = ws.list(doc, &query(EntryFilter::Diagnostics)).unwrap();
        let ids: Vec<u64> = problems.iter().map(|r| r.id).collect();
        assert_eq!(ids, vec![1], "hints alone are not problems to filter for");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_window_title_marks_unsaved_changes() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        assert_eq!(ws.window_title(None, "Untitled"), "Lorebook Studio");
        let clean = ws.window_title(Some(doc), "Untitled");
        assert!(!clean.starts_with('●'), "{clean}");
        let mut e = ws.entry(doc, 1).unwrap().entry;
        e.keys.push("beacon".into());
        ws.update_entry(doc, e).unwrap();
        assert_eq!(ws.window_title(Some(doc), "Untitled"), format!("● {clean}"));
        let mut settings = ws.doc(doc).unwrap().settings();
        settings.name = " ".into();
        ws.set_book_settings(doc, settings).unwrap();
        assert_eq!(
            ws.window_title(Some(doc), "Untitled"),
            "● Untitled — Lorebook Studio",
            "a book with neither name nor file"
        );
    }

    #[test]
    fn the_search_ignores_case_in_ascii_and_beyond_and_finds_every_field() {
        let entry = Entry {
            comment: "The Lighthouse".into(),
            keys: vec!["beacon".into()],
            secondary_keys: vec!["Fog Horn".into()],
            content: "Keeper ÉLODIE tends the lamp.".into(),
            ..Entry::default()
        };
        let finds = |typed: &str| Search::new(typed).mentions(&entry);
        assert!(finds(""), "nothing typed lists everything");
        assert!(
            finds("  lighthouse "),
            "name, case and spaces around ignored"
        );
        assert!(finds("BEACON") && finds("fog horn") && finds("the lamp"));
        assert!(finds("élodie") && finds("Élodie"), "beyond ASCII, lowered");
        assert!(!finds("lantern") && !finds("élodies"));
        assert!(matches!(Search::new("lamp"), Search::Ascii(_)));
        assert!(matches!(Search::new("élodie"), Search::Lowered(_)));
    }
}
