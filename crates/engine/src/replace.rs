//! Find and replace across a book (issue 22): in names, keys, secondary
//! keys and content (any subset), plain or regex (the `regex` crate's
//! syntax, `$1`/`${name}` captures in the replacement), case-sensitive or
//! not, whole words or not. `find` lists every match with its context;
//! `plan` gives each changed field's text before and after (only the
//! matches chosen), which `apply` writes. `lorebook replace` runs it.

use regex::{NoExpand, Regex, RegexBuilder};
use serde::Serialize;

use crate::model::{Book, Entry};

/// Where to look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ReplaceField"))]
#[serde(rename_all = "snake_case")]
pub enum Field {
    Name,
    Keys,
    SecondaryKeys,
    Content,
}

impl Field {
    pub const ALL: [Field; 4] = [
        Field::Name,
        Field::Keys,
        Field::SecondaryKeys,
        Field::Content,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Field::Name => "names",
            Field::Keys => "keys",
            Field::SecondaryKeys => "secondary",
            Field::Content => "content",
        }
    }

    /// `names`, `keys`, `secondary` or `content`.
    pub fn parse(s: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|f| f.id() == s.trim())
    }
}

/// What to look for.
#[derive(Debug, Clone)]
pub struct Query {
    pub pattern: String,
    pub regex: bool,
    pub case_sensitive: bool,
    pub whole_word: bool,
    pub fields: Vec<Field>,
}

/// One match: the entry, the field (and which key), where in that text,
/// the text matched and some context around it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Match {
    pub id: u64,
    pub field: Field,
    /// The key's index for `keys` and `secondary_keys`.
    pub index: Option<usize>,
    pub start: usize,
    pub end: usize,
    pub matched: String,
    pub context: String,
}

/// One text that changes: its entry, field and key, before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Edit {
    pub id: u64,
    pub field: Field,
    pub index: Option<usize>,
    pub before: String,
    pub after: String,
}

/// The compiled query; an invalid pattern is a clear error.
pub struct Finder {
    re: Regex,
    regex: bool,
    fields: Vec<Field>,
}

/// At most this many bytes of context on each side of a match.
const CONTEXT: usize = 40;

fn floor(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

impl Finder {
    pub fn new(q: &Query) -> Result<Finder, String> {
        if q.pattern.is_empty() {
            return Err("nothing to find: the pattern is empty".into());
        }
        let body = if q.regex {
            q.pattern.clone()
        } else {
            regex::escape(&q.pattern)
        };
        let body = if q.whole_word {
            format!(r"\b(?:{body})\b")
        } else {
            body
        };
        let re = RegexBuilder::new(&body)
            .case_insensitive(!q.case_sensitive)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| format!("invalid pattern: {e}"))?;
        let fields = if q.fields.is_empty() {
            Field::ALL.to_vec()
        } else {
            q.fields.clone()
        };
        Ok(Finder {
            re,
            regex: q.regex,
            fields,
        })
    }

    /// The texts of `e` searched, as `(field, key index, text)`.
    fn texts<'e>(&self, e: &'e Entry) -> Vec<(Field, Option<usize>, &'e str)> {
        let mut out = Vec::new();
        for &f in &self.fields {
            match f {
                Field::Name => out.push((f, None, e.comment.as_str())),
                Field::Keys => out.extend(
                    e.keys
                        .iter()
                        .enumerate()
                        .map(|(i, k)| (f, Some(i), k.as_str())),
                ),
                Field::SecondaryKeys => out.extend(
                    e.secondary_keys
                        .iter()
                        .enumerate()
                        .map(|(i, k)| (f, Some(i), k.as_str())),
                ),
                Field::Content => out.push((f, None, e.content.as_str())),
            }
        }
        out
    }

    /// Every match in the entries of `book` that `only` lets through (all
    /// when `None`).
    pub fn find(&self, book: &Book, only: Option<&[u64]>) -> Vec<Match> {
        self.find_capped(book, only, usize::MAX).0
    }

    /// [`Finder::find`], keeping at most `cap` matches and counting the
    /// rest: the matches past the cap are never copied out with their
    /// context (a regex `.` over a large book finds tens of millions).
    pub fn find_capped(
        &self,
        book: &Book,
        only: Option<&[u64]>,
        cap: usize,
    ) -> (Vec<Match>, usize) {
        let mut out = Vec::new();
        let mut total = 0usize;
        for e in &book.entries {
            if only.is_some_and(|ids| !ids.contains(&e.id)) {
                continue;
            }
            for (field, index, text) in self.texts(e) {
                if out.len() >= cap {
                    total += self.re.find_iter(text).count();
                    continue;
                }
                for m in self.re.find_iter(text) {
                    total += 1;
                    if out.len() >= cap {
                        continue;
                    }
                    let (a, b) = (
                        floor(text, m.start().saturating_sub(CONTEXT)),
                        ceil(text, (m.end() + CONTEXT).min(text.len())),
                    );
                    out.push(Match {
                        id: e.id,
                        field,
                        index,
                        start: m.start(),
                        end: m.end(),
                        matched: m.as_str().to_string(),
                        context: text[a..b].to_string(),
                    });
                }
            }
        }
        (out, total)
    }

    /// `text` with the matches whose start is in `keep` (all when `None`)
    /// replaced by `with`.
    fn replace_in(&self, text: &str, with: &str, keep: Option<&[usize]>) -> String {
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for caps in self.re.captures_iter(text) {
            let m = caps.get(0).expect("group 0 is the match");
            if keep.is_some_and(|k| !k.contains(&m.start())) {
                continue;
            }
            out.push_str(&text[last..m.start()]);
            if self.regex {
                caps.expand(with, &mut out);
            } else {
                out.push_str(NoExpand(with).0);
            }
            last = m.end();
        }
        out.push_str(&text[last..]);
        out
    }

    /// The texts that change when the `chosen` matches (all when `None`) are
    /// replaced by `with`.
    pub fn plan(&self, book: &Book, with: &str, chosen: Option<&[Match]>) -> Vec<Edit> {
        let mut edits = Vec::new();
        self.plan_each(book, with, Chosen::of(chosen), &mut |e| edits.push(e));
        edits
    }

    /// The texts that change when every match in the entries `only` lets
    /// through (all when `None`) is replaced by `with`: at most `cap` of
    /// them, and how many there are.
    pub fn plan_capped(
        &self,
        book: &Book,
        with: &str,
        only: Option<&[u64]>,
        cap: usize,
    ) -> (Vec<Edit>, usize) {
        let mut edits = Vec::new();
        let mut total = 0;
        let only: Option<std::collections::HashSet<u64>> =
            only.map(|o| o.iter().copied().collect());
        self.plan_each(book, with, Chosen::In(only.as_ref()), &mut |e| {
            total += 1;
            if edits.len() < cap {
                edits.push(e);
            }
        });
        (edits, total)
    }

    fn plan_each(&self, book: &Book, with: &str, chosen: Chosen, each: &mut dyn FnMut(Edit)) {
        for e in &book.entries {
            if let Chosen::In(Some(ids)) = &chosen {
                if !ids.contains(&e.id) {
                    continue;
                }
            }
            for (field, index, text) in self.texts(e) {
                let keep: Option<&[usize]> = match &chosen {
                    Chosen::In(_) => None,
                    Chosen::Matches(starts) => match starts.get(&(e.id, field, index)) {
                        Some(k) => Some(k.as_slice()),
                        None => continue,
                    },
                };
                let after = self.replace_in(text, with, keep);
                if after != text {
                    each(Edit {
                        id: e.id,
                        field,
                        index,
                        before: text.to_string(),
                        after,
                    });
                }
            }
        }
    }
}

/// Which matches a plan replaces.
enum Chosen<'a> {
    /// Every match in these entries (all when `None`).
    In(Option<&'a std::collections::HashSet<u64>>),
    /// The chosen starts of each text, looked up once per text (not a
    /// walk of every chosen match per text: 80,000 matches over 40,000
    /// texts took seconds).
    Matches(std::collections::HashMap<(u64, Field, Option<usize>), Vec<usize>>),
}

impl Chosen<'_> {
    fn of(chosen: Option<&[Match]>) -> Chosen<'static> {
        let Some(chosen) = chosen else {
            return Chosen::In(None);
        };
        let mut starts: std::collections::HashMap<(u64, Field, Option<usize>), Vec<usize>> =
            std::collections::HashMap::new();
        for m in chosen {
            starts
                .entry((m.id, m.field, m.index))
                .or_default()
                .push(m.start);
        }
        Chosen::Matches(starts)
    }
}

/// Writes `edits` into `book`; returns the entries changed. A key emptied
/// by its replacement is removed.
pub fn apply(book: &mut Book, edits: &[Edit]) -> Vec<u64> {
    let mut changed: Vec<u64> = Vec::new();
    for ed in edits {
        let Some(e) = book.entries.iter_mut().find(|e| e.id == ed.id) else {
            continue;
        };
        match (ed.field, ed.index) {
            (Field::Name, _) => e.comment = ed.after.clone(),
            (Field::Content, _) => e.content = ed.after.clone(),
            (Field::Keys, Some(i)) => {
                if let Some(k) = e.keys.get_mut(i) {
                    *k = ed.after.clone();
                }
            }
            (Field::SecondaryKeys, Some(i)) => {
                if let Some(k) = e.secondary_keys.get_mut(i) {
                    *k = ed.after.clone();
                }
            }
            _ => continue,
        }
        if !changed.contains(&e.id) {
            changed.push(e.id);
        }
    }
    for e in &mut book.entries {
        if changed.contains(&e.id) {
            e.keys.retain(|k| !k.trim().is_empty());
            e.secondary_keys.retain(|k| !k.trim().is_empty());
        }
    }
    changed
}
