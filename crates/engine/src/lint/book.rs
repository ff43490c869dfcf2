//! The checks across entries ([`check_books`]): duplicate keys (hashed),
//! keys containing other entries' keys (one Aho-Corasick automaton over all
//! keys), duplicate bodies and names, the recursion graph (one matcher over
//! all keys, every body scanned once) and the budget (`budget.rs`). Each is linear in the
//! size of the books, plus what it reports (capped per entry).

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, MatchKind};

use super::context::{self, key_kind, KeyKind, LintContext, LintRules, Seen};
use super::problem::{DuplicateEffect, EntryRef, Finding, Problem, Span};
use super::CountTokens;
use crate::decorators;
use crate::diagnostic::Severity;
use crate::model::{Book, Entry};

/// How many other entries a duplicate lists (the rest are counted).
pub const LISTED: usize = 5;
/// How many contained keys one key reports.
const CONTAINED_PER_KEY: usize = 3;

/// One entry as the whole-book checks see it.
pub(crate) struct Item<'b> {
    pub at: EntryRef,
    pub entry: &'b Entry,
    /// The entry as the rules in use read it.
    pub seen: Seen,
    /// The injected text (decorators removed).
    pub body: String,
    /// Inclusion groups (SillyTavern's `group`, comma-separated).
    pub groups: Vec<String>,
}

impl Item<'_> {
    fn shares_group(&self, other: &Item) -> bool {
        self.groups.iter().any(|g| other.groups.contains(g))
    }
}

pub(crate) fn items<'b>(cx: &LintContext, books: &'b [Book]) -> Vec<Item<'b>> {
    let mut out = Vec::new();
    for (b, book) in books.iter().enumerate() {
        // A folder holds entries; it is no entry to check (crate::folders).
        for e in book.entries.iter().filter(|e| !e.folder) {
            let seen = Seen::of(cx, b, e);
            let body = match &seen {
                Seen::St(s) => s.content.clone(),
                Seen::Risu(r) => r.body.clone(),
                Seen::Studio => decorators::parse(&e.content).body.to_string(),
            };
            let group = match &seen {
                Seen::St(s) => s.group.clone(),
                // RisuAI has no inclusion groups.
                Seen::Risu(_) => String::new(),
                Seen::Studio => e
                    .extensions
                    .get("group")
                    .and_then(|g| g.as_str())
                    .unwrap_or_default()
                    .to_string(),
            };
            let groups = group
                .split(',')
                .map(str::trim)
                .filter(|g| !g.is_empty())
                .map(String::from)
                .collect();
            out.push(Item {
                at: EntryRef { book: b, id: e.id },
                entry: e,
                seen,
                body,
                groups,
            });
        }
    }
    out
}

/// The whole-book problems of `books` linted together.
pub fn check_books(cx: &LintContext, books: &[Book], tokens: &mut dyn CountTokens) -> Vec<Problem> {
    check_books_items(cx, &items(cx, books), tokens)
}

/// [`check_books`] over the entries as the rules read them, made once by
/// the caller.
pub(crate) fn check_books_items(
    cx: &LintContext,
    items: &[Item],
    tokens: &mut dyn CountTokens,
) -> Vec<Problem> {
    let mut out = Vec::new();
    duplicates(cx, items, &mut out);
    containment(cx, items, &mut out);
    same_text(items, &mut out);
    if context::recursion_on(cx) {
        super::recursion::check(cx, items, &mut out);
    }
    super::budget::check(cx, items, tokens, &mut out);
    out
}

/// Whether `item`'s primary keys are ever tested.
pub(super) fn keyed(item: &Item) -> bool {
    item.entry.enabled && item.seen.risu().map_or(!item.entry.constant, |r| r.keyed())
}

/// Entries that are listed, and how many more there are.
fn others_of(list: &[usize], me: usize, items: &[Item]) -> (Vec<EntryRef>, usize) {
    let mut seen = Vec::new();
    for &i in list {
        if i != me && items[i].at != items[me].at && !seen.contains(&items[i].at) {
            seen.push(items[i].at);
        }
    }
    let more = seen.len().saturating_sub(LISTED);
    seen.truncate(LISTED);
    (seen, more)
}

/// The same primary key, after the rules' folding, on several entries.
fn duplicates(cx: &LintContext, items: &[Item], out: &mut Vec<Problem>) {
    let mut by_key: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
    for (i, item) in items.iter().enumerate().filter(|(_, it)| keyed(it)) {
        let flags = context::flags(cx, item.entry, &item.seen);
        for (k, key) in item.entry.keys.iter().enumerate() {
            let norm = match key_kind(&cx.rules, key, flags) {
                KeyKind::Plain { text, .. } => text,
                KeyKind::Regex { pattern, flags } => format!("/{pattern}/{flags}"),
                KeyKind::Empty => continue,
            };
            by_key.entry(norm).or_default().push((i, k));
        }
    }
    let mut groups: Vec<_> = by_key.into_values().filter(|v| v.len() > 1).collect();
    groups.sort_unstable();
    for list in groups {
        let owners: Vec<usize> = list.iter().map(|(i, _)| *i).collect();
        if owners.iter().all(|&i| items[i].at == items[owners[0]].at) {
            continue;
        }
        // One problem per entry and key, even when an entry repeats it.
        let mut done: Vec<usize> = Vec::new();
        for &(i, k) in &list {
            if done.contains(&i) {
                continue;
            }
            done.push(i);
            let (others, more) = others_of(&owners, i, items);
            if others.is_empty() {
                continue;
            }
            let me = &items[i];
            // Sharing a key is how facets of one subject are written: a
            // hint, unless it does something the author may not mean (the
            // chat's log adds its evidence later: `refine_with_coverage`).
            // The first few sharers are compared, so a key on thousands of
            // entries stays linear.
            let effect = owners
                .iter()
                .filter(|&&o| items[o].at != me.at)
                .take(COMPARED)
                .find_map(|&o| {
                    let other = &items[o];
                    if let Some(g) = me.groups.iter().find(|g| other.groups.contains(g)) {
                        return Some(DuplicateEffect::SameGroup { group: g.clone() });
                    }
                    says_the_same(&me.body, &other.body)
                        .then_some(DuplicateEffect::SameText { other: other.at })
                });
            out.push(Problem {
                entry: me.at,
                severity: if effect.is_some() {
                    Severity::Warning
                } else {
                    Severity::Hint
                },
                span: Span::Key {
                    secondary: false,
                    index: k,
                },
                finding: Finding::DuplicateKey {
                    key: me.entry.keys[k].trim().to_string(),
                    others,
                    more,
                    effect,
                },
                fix: None,
            });
        }
    }
}

/// How many other entries sharing a key are compared with each one.
const COMPARED: usize = 64;

/// Two bodies brought in by one key that repeat each other: equal, or
/// one holding the other whole (at least a sentence's worth of it).
fn says_the_same(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long || (short.chars().count() >= 40 && long.contains(short))
}

/// Distinct key texts, the keys (in `keys`) sharing each, and the index of
/// each text.
type Patterns<'k> = (Vec<&'k str>, Vec<Vec<usize>>, HashMap<&'k str, usize>);

/// A plain primary key as the containment check compares it.
struct Plain {
    item: usize,
    index: usize,
    text: String,
    case_sensitive: bool,
    left: bool,
    right: bool,
}

/// A key that contains another entry's key: that one fires whenever this
/// one matches. Case-insensitive keys are searched in the folded text of
/// every key, case-sensitive ones in the raw text of case-sensitive keys.
fn containment(cx: &LintContext, items: &[Item], out: &mut Vec<Problem>) {
    let mut keys = Vec::new();
    for (i, item) in items.iter().enumerate().filter(|(_, it)| keyed(it)) {
        let flags = context::flags(cx, item.entry, &item.seen);
        for (k, key) in item.entry.keys.iter().enumerate() {
            if let KeyKind::Plain {
                text,
                case_sensitive,
                left,
                right,
            } = key_kind(&cx.rules, key, flags)
            {
                keys.push(Plain {
                    item: i,
                    index: k,
                    text,
                    case_sensitive,
                    left,
                    right,
                });
            }
        }
    }
    // Distinct patterns of each kind, with the keys that share each.
    let mut patterns: [Patterns; 2] = Default::default();
    for (n, p) in keys.iter().enumerate() {
        let (list, owners, index) = &mut patterns[p.case_sensitive as usize];
        let at = *index.entry(p.text.as_str()).or_insert_with(|| {
            list.push(p.text.as_str());
            owners.push(Vec::new());
            list.len() - 1
        });
        owners[at].push(n);
    }
    let build = |list: &[&str]| {
        (!list.is_empty()).then(|| {
            AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(list)
                .ok()
        })
    };
    let automata = [
        build(&patterns[0].0).flatten(),
        build(&patterns[1].0).flatten(),
    ];
    let word = |c: Option<char>| c.is_some_and(|c| context::is_word(&cx.rules, c));
    for a in &keys {
        let mut found: Vec<(EntryRef, usize)> = Vec::new();
        // Case-insensitive keys match wherever the folded key does; a
        // case-sensitive key only inside a case-sensitive one.
        let folded;
        let searches: [(usize, &str); 2] = [
            (0, {
                folded = if a.case_sensitive {
                    fold_for(&cx.rules, &a.text)
                } else {
                    a.text.clone()
                };
                folded.as_str()
            }),
            (
                1,
                if a.case_sensitive {
                    a.text.as_str()
                } else {
                    ""
                },
            ),
        ];
        'search: for (kind, hay) in searches {
            let Some(ac) = &automata[kind] else { continue };
            if hay.is_empty() {
                continue;
            }
            for m in ac.find_overlapping_iter(hay) {
                let (s, e) = (m.start(), m.end());
                if e - s == hay.len() {
                    continue; // the same key: duplicate_key says so
                }
                for &b in &patterns[kind].1[m.pattern().as_usize()] {
                    let b = &keys[b];
                    if items[b.item].at == items[a.item].at
                        || found.iter().any(|(at, _)| *at == items[b.item].at)
                    {
                        continue;
                    }
                    let left_ok = !b.left
                        || if s == 0 {
                            a.left
                        } else {
                            !word(hay[..s].chars().next_back())
                        };
                    let right_ok = !b.right
                        || if e == hay.len() {
                            a.right
                        } else {
                            !word(hay[e..].chars().next())
                        };
                    if left_ok && right_ok {
                        found.push((items[b.item].at, b.index));
                        let (item, other) = (&items[a.item], &items[b.item]);
                        out.push(Problem {
                            entry: item.at,
                            severity: Severity::Hint,
                            span: Span::Key {
                                secondary: false,
                                index: a.index,
                            },
                            finding: Finding::KeyContainsOther {
                                key: item.entry.keys[a.index].trim().to_string(),
                                other: other.at,
                                other_key: other.entry.keys[b.index].trim().to_string(),
                            },
                            fix: None,
                        });
                        if found.len() >= CONTAINED_PER_KEY {
                            break 'search;
                        }
                    }
                }
            }
        }
    }
}

fn fold_for(rules: &LintRules, s: &str) -> String {
    match rules {
        LintRules::Studio => crate::matcher::fold(s),
        LintRules::SillyTavern { .. } | LintRules::Risu { .. } => s.to_lowercase(),
    }
}

/// The same body on several entries; the same name on several entries.
fn same_text(items: &[Item], out: &mut Vec<Problem>) {
    let mut bodies: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut names: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        if !item.entry.enabled {
            continue;
        }
        let body = item.body.trim();
        if !body.is_empty() {
            bodies.entry(body).or_default().push(i);
        }
        let name = item.entry.comment.trim();
        if !name.is_empty() {
            names.entry(name).or_default().push(i);
        }
    }
    let mut lists: Vec<(bool, Vec<usize>)> = bodies
        .into_values()
        .map(|v| (true, v))
        .chain(names.into_values().map(|v| (false, v)))
        .filter(|(_, v)| v.len() > 1)
        .collect();
    lists.sort_unstable();
    for (body, list) in lists {
        for &i in &list {
            let (others, more) = others_of(&list, i, items);
            if others.is_empty() {
                continue;
            }
            let me = &items[i];
            let (severity, finding) = if body {
                let grouped = list
                    .iter()
                    .filter(|&&o| o != i)
                    .all(|&o| me.shares_group(&items[o]));
                (
                    if grouped {
                        Severity::Hint
                    } else {
                        Severity::Warning
                    },
                    Finding::ContentDuplicate { others, more },
                )
            } else {
                (
                    Severity::Hint,
                    Finding::NameDuplicate {
                        name: me.entry.comment.trim().to_string(),
                        others,
                        more,
                    },
                )
            };
            out.push(Problem {
                entry: me.at,
                severity,
                span: Span::Entry,
                finding,
                fix: None,
            });
        }
    }
}
