//! The request log under any rules: one row shape ([`LogRow`]) read from
//! the common part of the profiles' seam (`lorebook_engine::profile::Outcome`),
//! whatever the rules in force. Each profile's log runs where its preview is
//! kept (the guide's in `view.rs`, SillyTavern's resumable one in `st.rs`,
//! RisuAI's in `risu.rs`); this module turns their answers into rows and
//! names the entries.

use lorebook_engine::profile::Outcome;

use super::Workspace;
use crate::error::AppError;
use crate::views::{LogEntry, LogRow, PreviewAnswer, PreviewAsk, Rules, TimelineRow, TimelineView};

/// A log row before its entries are named: what a request's answer is
/// reduced to at once, so a long log keeps no whole answers.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct BareRow {
    request: u32,
    used: u32,
    limit: u32,
    pub(super) injected: Vec<(usize, u64)>,
    cut: Vec<(usize, u64)>,
    held: Vec<(usize, u64)>,
    gated: Vec<(usize, u64)>,
}

impl BareRow {
    pub(super) fn of(o: &Outcome) -> Self {
        BareRow {
            request: o.request as u32,
            used: o.used,
            limit: o.limit,
            injected: o.injected.iter().map(|p| (p.book, p.id)).collect(),
            cut: o.cut.clone(),
            held: o.held.clone(),
            gated: o.gated.clone(),
        }
    }
}

impl PreviewAsk {
    /// The rules the preview shown follows.
    pub fn rules(&self) -> Rules {
        match self {
            PreviewAsk::Studio { .. } => Rules::Studio,
            PreviewAsk::Sillytavern { .. } => Rules::Sillytavern,
            PreviewAsk::Risu { .. } => Rules::Risu,
        }
    }

    /// The request asked for (`None`: the last).
    pub fn request(&self) -> Option<usize> {
        let (PreviewAsk::Studio { request, .. }
        | PreviewAsk::Sillytavern { request, .. }
        | PreviewAsk::Risu { request, .. }) = self;
        request.map(|r| r as usize)
    }
}

impl Workspace {
    /// The preview under the rules in force, whatever the rules: the
    /// request `ask` names, with the rest of `ask` (the prompt held, the
    /// prompt panel) when it names the rules in force.
    pub fn preview_answer(&mut self, ask: PreviewAsk) -> Result<PreviewAnswer, AppError> {
        let k = ask.request();
        let same = ask.rules() == self.rules();
        Ok(match self.rules() {
            Rules::Studio => {
                let have = match ask {
                    PreviewAsk::Studio { have, .. } if same => have,
                    _ => None,
                };
                PreviewAnswer::Studio {
                    view: self.preview_since(k, have)?,
                }
            }
            Rules::Sillytavern => {
                let view = match ask {
                    PreviewAsk::Sillytavern {
                        prompt: true, have, ..
                    } => self.st_preview_with_prompt(k, have)?,
                    _ => self.st_preview(k)?,
                };
                PreviewAnswer::Sillytavern { view }
            }
            Rules::Risu => PreviewAnswer::Risu {
                view: self.risu_preview(k, matches!(ask, PreviewAsk::Risu { prompt: true, .. }))?,
            },
        })
    }

    /// The request log under the rules in force. A log that gave way to a
    /// save or a newer request answers `cancelled` (see
    /// [`super::interrupt`]).
    pub fn preview_log(&mut self) -> Result<Vec<LogRow>, AppError> {
        let bare = self.bare_log()?;
        Ok(self.named_rows(&bare))
    }

    /// The request log's rows under the rules in force, entries unnamed.
    pub(super) fn bare_log(&mut self) -> Result<Vec<BareRow>, AppError> {
        Ok(match self.rules() {
            Rules::Studio => self.studio_log()?,
            Rules::Sillytavern => self.st_log()?,
            Rules::Risu => {
                let mut rows = Vec::with_capacity(self.chat.len());
                if !self.risu_log_each(&mut |o| rows.push(BareRow::of(&o)))? {
                    return Err(super::interrupt::gave_way());
                }
                rows
            }
        })
    }

    /// What the timeline is computed from: the rules and every setting,
    /// each attached book's revision, the chat.
    fn timeline_key(&self) -> u64 {
        let docs: Vec<(u32, u64)> = self
            .docs
            .iter()
            .filter(|d| d.attached)
            .map(|d| (d.id, d.history.revision()))
            .collect();
        let text = format!(
            "{:?}|{docs:?}|{:?}|{:?}|{:?}|{}",
            self.rules(),
            self.settings(),
            self.st_settings,
            self.risu_settings,
            self.tokenizer_gen,
        );
        lorebook_engine::tokenizer::content_hash(&text)
            ^ lorebook_engine::tokenizer::content_hash(&self.chat_text).rotate_left(1)
    }

    /// The activation timeline: every entry some request of the chat
    /// matched (rows, the most often injected first), its state in each
    /// request as one letter (`i` injected, `c` cut by the budget, `h`
    /// held out by an earlier request, `g` kept out by another rule, `.`
    /// not matched); at most `limit` rows from `offset`. Computed once per
    /// state of the books, chat and settings (a log of every request) and
    /// kept; it gives way to a save as the log does.
    pub fn timeline(&mut self, offset: u32, limit: u32) -> Result<TimelineView, AppError> {
        let key = self.timeline_key();
        let bare = if self.timeline.as_ref().is_none_or(|t| t.key != key) {
            Some(self.bare_log()?)
        } else {
            None
        };
        let attached: Vec<&super::documents::Doc> =
            self.docs.iter().filter(|d| d.attached).collect();
        let folders: Vec<super::list::Folders> = attached
            .iter()
            .map(|d| super::list::Folders::of(&d.book))
            .collect();
        // The folder entry each row's entry is in (book, folder id).
        let folder_of = |(book, id): (usize, u64)| -> Option<(usize, u64)> {
            let e = attached.get(book)?.book.entry(id)?;
            folders[book].place(e).1.map(|f| (book, f))
        };
        if let Some(bare) = bare {
            let mut cache = TimelineCache::of(key, &bare);
            cache.group(&folder_of);
            self.timeline = Some(cache);
        }
        let t = self.timeline.as_ref().expect("computed above");
        let entries: usize = attached.iter().map(|d| d.book.entries.len()).sum();
        let name_of = |book: usize, id: u64| {
            attached
                .get(book)
                .and_then(|d| d.book.entry(id))
                .map(|e| e.display_name().to_string())
                .unwrap_or_else(|| format!("#{id}"))
        };
        let rows = t
            .rows
            .iter()
            .skip(offset as usize)
            .take(limit as usize)
            .map(|((book, id), cells)| TimelineRow {
                book: *book as u32,
                id: *id,
                name: name_of(*book, *id),
                folder: folder_of((*book, *id)).map(|(b, f)| name_of(b, f)),
                cells: String::from_utf8_lossy(cells).into_owned(),
            })
            .collect();
        Ok(TimelineView {
            requests: t.requests,
            total: t.rows.len() as u32,
            never: entries.saturating_sub(t.rows.len()) as u32,
            offset,
            rows,
        })
    }

    /// The rows with each entry's name (its comment, else its first key,
    /// else `#id`), looked up once per entry.
    fn named_rows(&self, bare: &[BareRow]) -> Vec<LogRow> {
        let attached: Vec<&super::documents::Doc> =
            self.docs.iter().filter(|d| d.attached).collect();
        let mut names = std::collections::HashMap::new();
        let mut name = |book: usize, id: u64| -> LogEntry {
            let name = names
                .entry((book, id))
                .or_insert_with(|| {
                    attached
                        .get(book)
                        .and_then(|d| d.book.entry(id))
                        .map(|e| e.display_name().to_string())
                        .unwrap_or_else(|| format!("#{id}"))
                })
                .clone();
            LogEntry {
                book: book as u32,
                id,
                name,
            }
        };
        bare.iter()
            .map(|r| LogRow {
                request: r.request,
                used: r.used,
                limit: r.limit,
                injected: r.injected.iter().map(|&(b, id)| name(b, id)).collect(),
                cut: r.cut.iter().map(|&(b, id)| name(b, id)).collect(),
                held: r.held.iter().map(|&(b, id)| name(b, id)).collect(),
            })
            .collect()
    }
}

/// One timeline row: the entry (book, id) and its letter per request.
type Row = ((usize, u64), Vec<u8>);

/// The timeline's rows, kept with the key of what they were computed from.
#[derive(Debug)]
pub(super) struct TimelineCache {
    key: u64,
    requests: u32,
    rows: Vec<Row>,
}

impl TimelineCache {
    fn of(key: u64, log: &[BareRow]) -> Self {
        let n = log.len();
        let mut cells: std::collections::HashMap<(usize, u64), Vec<u8>> = Default::default();
        for (k, r) in log.iter().enumerate() {
            for (list, mark) in [
                (&r.gated, b'g'),
                (&r.held, b'h'),
                (&r.cut, b'c'),
                (&r.injected, b'i'),
            ] {
                for &e in list {
                    cells.entry(e).or_insert_with(|| vec![b'.'; n])[k] = mark;
                }
            }
        }
        let count = |c: &[u8], m: u8| c.iter().filter(|&&x| x == m).count();
        let mut rows: Vec<Row> = cells.into_iter().collect();
        rows.sort_by(|a, b| {
            count(&b.1, b'i')
                .cmp(&count(&a.1, b'i'))
                .then(count(&b.1, b'c').cmp(&count(&a.1, b'c')))
                .then(a.0.cmp(&b.0))
        });
        TimelineCache {
            key,
            requests: n as u32,
            rows,
        }
    }

    /// Lists the entries of one folder together, where the folder's most
    /// active entry is, each folder's in their order; an entry in no
    /// folder keeps its place.
    fn group(&mut self, folder_of: &dyn Fn((usize, u64)) -> Option<(usize, u64)>) {
        let mut groups: Vec<Vec<Row>> = Vec::new();
        let mut at: std::collections::HashMap<(usize, u64), usize> = Default::default();
        for row in std::mem::take(&mut self.rows) {
            match folder_of(row.0) {
                Some(f) => match at.get(&f) {
                    Some(&g) => groups[g].push(row),
                    None => {
                        at.insert(f, groups.len());
                        groups.push(vec![row]);
                    }
                },
                None => groups.push(vec![row]),
            }
        }
        self.rows = groups.into_iter().flatten().collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sample's timeline: a row per matched entry, a letter per
    /// request, the most injected first; kept until something it reads
    /// changes, then computed again.
    #[test]
    fn the_timeline_marks_each_request_and_follows_edits() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        let t = ws.timeline(0, 100).unwrap();
        assert_eq!(t.requests, 6);
        assert_eq!(t.total as usize, t.rows.len());
        assert!(t.never > 0, "the disabled draft never matches");
        let row = |t: &TimelineView, name: &str| {
            t.rows
                .iter()
                .find(|r| r.name == name)
                .map(|r| r.cells.clone())
        };
        assert_eq!(row(&t, "World: Saltmere").unwrap(), "iiiiii");
        let light = row(&t, "The Lighthouse").unwrap();
        assert_eq!(light.len(), 6);
        assert!(light.ends_with('i') && light.starts_with('.'), "{light}");
        let injected = |c: &str| c.matches('i').count();
        assert!(t
            .rows
            .windows(2)
            .all(|w| injected(&w[0].cells) >= injected(&w[1].cells)));
        // A window of the rows.
        let w = ws.timeline(1, 2).unwrap();
        assert_eq!(w.rows.len(), 2);
        assert_eq!(w.rows[0].id, t.rows[1].id);

        let mut e = ws.entry_named("The Lighthouse");
        e.keys = vec!["beacon".into()];
        e.constant = false;
        ws.update_entry(doc, e).unwrap();
        let t = ws.timeline(0, 100).unwrap();
        assert!(row(&t, "The Lighthouse").is_none_or(|c| !c.contains('i')));
    }
}
