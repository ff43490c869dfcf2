//! Find and replace in the app (issue 22): the engine's `replace::Finder`
//! over the shown book (or the selected entries); the matches listed with
//! their context, the texts they change shown before anything changes,
//! and the chosen ones replaced as one undo step.

use lorebook_engine::replace::{self, Finder, Match, Query};

use super::history::Change;
use super::Workspace;
use crate::error::{AppError, ErrorCode};
use crate::views::{FindAsk, FindView, FoundMatch, MatchRef, ReplaceEditView};

/// The most matches listed (the count says how many there are).
pub const LISTED: usize = 2000;

/// The most changed texts listed, before and after (each may be a whole
/// body; the count says how many there are).
pub const EDITS_LISTED: usize = 500;

fn finder(ask: &FindAsk) -> Result<Finder, String> {
    Finder::new(&Query {
        pattern: ask.pattern.clone(),
        regex: ask.regex,
        case_sensitive: ask.case_sensitive,
        whole_word: ask.whole_word,
        fields: ask.fields.clone(),
    })
}

/// The engine's match a reference names (what `plan` reads of it).
fn chosen(refs: &[MatchRef]) -> Vec<Match> {
    refs.iter()
        .map(|r| Match {
            id: r.id,
            field: r.field,
            index: r.index.map(|i| i as usize),
            start: r.start as usize,
            end: r.start as usize,
            matched: String::new(),
            context: String::new(),
        })
        .collect()
}

impl Workspace {
    /// The matches of `ask` in book `doc`, and the texts that change when
    /// the `chosen` ones (all when `None`) are replaced.
    pub fn find_in_book(
        &self,
        doc: u32,
        ask: &FindAsk,
        picked: Option<&[MatchRef]>,
    ) -> Result<FindView, AppError> {
        let d = self.doc(doc)?;
        let mut view = FindView {
            doc,
            total: 0,
            matches: Vec::new(),
            changes: 0,
            edits: Vec::new(),
            error: None,
        };
        let f = match finder(ask) {
            Ok(f) => f,
            Err(e) => {
                view.error = Some(e);
                return Ok(view);
            }
        };
        let name = |id: u64| {
            d.book
                .entry(id)
                .map(|e| e.display_name().to_string())
                .unwrap_or_default()
        };
        // Only the listed matches are kept (a regex `.` over the 10,000-entry
        // workload finds millions, each with its context).
        let (found, total) = f.find_capped(&d.book, ask.only.as_deref(), LISTED);
        view.total = total.min(u32::MAX as usize) as u32;
        view.matches = found
            .iter()
            .map(|m| {
                let at = m.context.find(&m.matched).unwrap_or(0);
                FoundMatch {
                    id: m.id,
                    name: name(m.id),
                    field: m.field,
                    index: m.index.map(|i| i as u32),
                    start: m.start as u32,
                    before: m.context[..at].to_string(),
                    matched: m.matched.clone(),
                    after: m.context[at + m.matched.len()..].to_string(),
                }
            })
            .collect();
        // Without a choice, every match in the entries looked in.
        let (plan, changes) = match picked {
            Some(p) => {
                let plan = f.plan(&d.book, &ask.with, Some(&chosen(p)));
                let n = plan.len();
                (plan.into_iter().take(EDITS_LISTED).collect(), n)
            }
            None => f.plan_capped(&d.book, &ask.with, ask.only.as_deref(), EDITS_LISTED),
        };
        view.changes = changes.min(u32::MAX as usize) as u32;
        view.edits = plan
            .into_iter()
            .map(|e| ReplaceEditView {
                id: e.id,
                name: name(e.id),
                field: e.field,
                index: e.index.map(|i| i as u32),
                before: e.before,
                after: e.after,
            })
            .collect();
        Ok(view)
    }

    /// The book `doc` with the `picked` matches of `ask` replaced, not
    /// written anywhere; with the entries it changes.
    fn replaced(
        &self,
        doc: u32,
        ask: &FindAsk,
        picked: &[MatchRef],
    ) -> Result<(lorebook_engine::model::Book, Vec<u64>), AppError> {
        let f = finder(ask).map_err(|detail| {
            AppError::invalid(detail.clone(), ErrorCode::BadPattern { detail })
        })?;
        let d = self.doc(doc)?;
        let edits = f.plan(&d.book, &ask.with, Some(&chosen(picked)));
        let mut book = d.book.clone();
        let ids = replace::apply(&mut book, &edits);
        Ok((book, ids))
    }

    /// What the `picked` replacements would change over the chat's request
    /// log and the scenarios, before they are made.
    pub fn replace_impact(
        &self,
        doc: u32,
        ask: &FindAsk,
        picked: &[MatchRef],
    ) -> Result<super::impact::ImpactInputs, AppError> {
        let (book, _) = self.replaced(doc, ask, picked)?;
        self.impact_inputs_of(doc, book)
    }

    /// Replaces the `picked` matches of `ask` in book `doc` as one undo
    /// step; answers how many entries changed.
    pub fn replace_in_book(
        &mut self,
        doc: u32,
        ask: &FindAsk,
        picked: &[MatchRef],
    ) -> Result<u32, AppError> {
        let (book, ids) = self.replaced(doc, ask, picked)?;
        let d = self.doc_mut(doc)?;
        let mut changes = Vec::new();
        for id in &ids {
            let index = d.position(*id)?;
            let (before, after) = (&d.book.entries[index], &book.entries[index]);
            if before != after {
                changes.push(Change::Entry {
                    index,
                    before: Some(Box::new(before.clone())),
                    after: Some(Box::new(after.clone())),
                });
            }
        }
        let n = changes.len() as u32;
        let applied = d.commit(changes, None);
        self.sync(doc, &applied);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lorebook_engine::replace::Field;

    fn ask(pattern: &str, with: &str) -> FindAsk {
        FindAsk {
            pattern: pattern.into(),
            with: with.into(),
            regex: false,
            case_sensitive: false,
            whole_word: false,
            fields: vec![Field::Content],
            only: None,
        }
    }

    /// Every match listed with its context; the texts the chosen ones
    /// change shown first; the chosen ones (one left out) replaced as one
    /// undo step, which undo takes back whole.
    #[test]
    fn find_lists_matches_and_replace_is_one_undo_step() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        let before = ws.docs[0].book.clone();
        let a = ask("harbour", "port");
        let v = ws.find_in_book(doc, &a, None).unwrap();
        assert!(v.total >= 2, "{v:?}");
        let m = &v.matches[0];
        assert_eq!(m.matched.to_lowercase(), "harbour");
        let text = ws.docs[0].book.entry(m.id).unwrap().content.clone();
        assert!(text.contains(&format!("{}{}{}", m.before, m.matched, m.after)));
        assert!(v.edits.iter().all(|e| e.after.contains("port")));
        // All but the first chosen: its text keeps that one.
        let chosen: Vec<MatchRef> = v.matches[1..].iter().map(MatchRef::from).collect();
        let planned = ws.find_in_book(doc, &a, Some(&chosen)).unwrap();
        let changed = ws.replace_in_book(doc, &a, &chosen).unwrap();
        assert!(changed >= 1);
        let left = ws.find_in_book(doc, &a, None).unwrap();
        assert_eq!(left.total, 1, "only the match left out remains");
        for e in &planned.edits {
            assert_eq!(ws.docs[0].book.entry(e.id).unwrap().content, e.after);
        }
        ws.undo(doc).unwrap();
        assert_eq!(ws.docs[0].book, before, "one undo step takes it all back");
    }

    /// A regex with captures; a pattern that does not compile is said in
    /// the answer and refused with its code.
    #[test]
    fn regex_captures_and_bad_patterns() {
        let mut ws = Workspace::with_sample();
        let doc = ws.docs[0].id;
        let mut a = ask(r"(\w+) Venn", "Venn, $1");
        a.regex = true;
        a.fields = vec![Field::Name];
        let v = ws.find_in_book(doc, &a, None).unwrap();
        assert!(v.edits.iter().any(|e| e.after == "Venn, Orla"), "{v:?}");
        let mut bad = ask("(", "");
        bad.regex = true;
        let v = ws.find_in_book(doc, &bad, None).unwrap();
        assert!(v.error.is_some() && v.matches.is_empty());
        let e = ws.replace_in_book(doc, &bad, &[]).unwrap_err();
        assert!(matches!(e.code, ErrorCode::BadPattern { .. }), "{e:?}");
    }

    /// Before replacing: what the chosen replacements would change over
    /// the chat's log (a key renamed: the entry stops), nothing written.
    #[test]
    fn the_impact_of_a_replacement_is_shown_before_it_is_made() {
        let ws = {
            let mut ws = Workspace::with_sample();
            ws.docs[0].history.mark_saved();
            ws
        };
        let doc = ws.docs[0].id;
        let mut a = ask("lighthouse", "zeppelin");
        a.fields = vec![Field::Keys];
        let v = ws.find_in_book(doc, &a, None).unwrap();
        let all: Vec<MatchRef> = v.matches.iter().map(MatchRef::from).collect();
        let before = ws.docs[0].book.clone();
        let impact = ws.replace_impact(doc, &a, &all).unwrap().compute().unwrap();
        assert_eq!(impact.against, crate::views::ImpactAgainst::Planned);
        let light = ws.entry_named("The Lighthouse").id;
        assert!(
            impact
                .rows
                .iter()
                .any(|r| r.stopped.iter().any(|s| s.id == light)),
            "{impact:?}"
        );
        assert_eq!(ws.docs[0].book, before, "nothing is written");
        assert!(!ws.docs[0].dirty());
    }

    /// The peak resident memory of this process, in bytes, reset first
    /// when `reset` (Linux: `/proc/self/clear_refs`).
    fn peak(reset: bool) -> Option<u64> {
        if reset {
            std::fs::write("/proc/self/clear_refs", "5").ok()?;
        }
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let kb: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))?
            .trim()
            .trim_end_matches(" kB")
            .trim()
            .parse()
            .ok()?;
        Some(kb * 1024)
    }

    /// Find with a regex `.` over 10,000 entries of a kilobyte each (ten
    /// million matches) keeps only what it lists, and counts the rest:
    /// before, every match was copied out with its context first, which
    /// took gigabytes (issue 37).
    ///
    /// The peak is the whole process's, so the measure runs alone, in a
    /// child process of this test binary: beside other tests running at the
    /// same time it measured their memory too.
    #[test]
    fn find_everything_in_a_large_book_keeps_only_what_it_lists() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "workspace::replace::tests::find_everything_alone",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("LOREBOOK_FIND_ALONE", "1")
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && said.contains("1 passed"),
            "{said}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The measure itself; run by the test above, alone in its process.
    #[test]
    #[ignore = "run alone in a child process by find_everything_in_a_large_book_keeps_only_what_it_lists"]
    fn find_everything_alone() {
        if std::env::var_os("LOREBOOK_FIND_ALONE").is_none() {
            return;
        }
        let mut ws = Workspace::default();
        let mut book = lorebook_engine::model::Book::default();
        for i in 0..10_000 {
            book.add_entry(lorebook_engine::model::Entry {
                comment: format!("Entry {i}"),
                content: "The harbour lies under fog. ".repeat(36),
                ..Default::default()
            });
        }
        let doc = ws.add_doc(book, None);
        let before = peak(true);
        let mut a = ask(".", "x");
        a.regex = true;
        let v = ws.find_in_book(doc, &a, None).unwrap();
        let after = peak(false);
        assert_eq!(v.total, 10_000 * 28 * 36);
        assert_eq!(v.matches.len(), LISTED);
        assert_eq!(v.changes, 10_000);
        assert_eq!(v.edits.len(), EDITS_LISTED);
        if let (Some(before), Some(after)) = (before, after) {
            let grew = after.saturating_sub(before);
            assert!(grew < 256 << 20, "Find took {} MiB", grew >> 20);
        }
    }
}
