//! The checks under RisuAI's rules (`--rules risu`; docs/lint.md, "Under
//! RisuAI's rules"). An entry is read as RisuAI 460ecae's
//! `loadLoreBookV3Prompt` reads the record our RisuAI export writes
//! ([`crate::risu::Lore`]): its decorators run in order with the `@@@`
//! fallbacks, keys are matched without case, spaces ignored unless the
//! entry matches whole words, regex keys as RisuAI's buggy search reads
//! them, and the budget is RisuAI's greedy fill by priority. Each rule is
//! described in docs/risu-rules.md.

use std::collections::HashMap;

use super::book::Item;
use super::context::{Flags, KeyKind, LintContext};
use super::problem::{Finding, NeverReason, Problem};
use super::CountTokens;
use crate::diagnostic::Severity;
use crate::model::Entry;
use crate::risu::decorators::{self as lines, js_parse_int, js_trim, Line};
use crate::risu::known::{risu_decorator, RisuArg};
use crate::risu::matching::{KeyIds, KeyTable};
use crate::risu::{Lore, RisuSettings};
use crate::sillytavern::matching::RegexKey;

/// What the checks need of one entry under RisuAI's rules.
#[derive(Debug, Clone)]
pub(crate) struct RisuItem {
    /// The body as RisuAI's decorator parser returns it (what it counts).
    pub body: String,
    pub use_regex: bool,
    /// Whole-word matching: the book's setting, then the entry's
    /// `@@match_full_word` / `@@match_partial_word` (the last one run).
    pub full_word: bool,
    /// `alwaysActive`.
    pub always: bool,
    /// `@@activate` (true) or `@@dont_activate` (false), the last one run.
    pub forced: Option<bool>,
    /// The key field is empty: RisuAI skips the entry before reading its
    /// decorators, unless it is always active.
    pub no_key: bool,
    /// Its body joins the recursive texts when it activates.
    pub recursive: bool,
    /// It is searched for in the recursive texts (no `@@no_recursive_search`).
    pub searches_recursion: bool,
    /// A decorator may hold it out of a request (`@@probability` below
    /// 100, `@@activate_only_after`, `@@activate_only_every`,
    /// `@@is_greeting`, `@@dont_activate_after_match`).
    pub gated: bool,
    /// The budget's rank: `@@priority`, else `insertorder` (NaN when
    /// `@@priority` is no number: RisuAI's order is then unspecified).
    pub priority: f64,
}

impl RisuItem {
    /// Entry `e` as RisuAI reads its exported record under `settings`.
    pub(crate) fn of(settings: &RisuSettings, e: &Entry) -> RisuItem {
        let (lore, _) = Lore::of(e);
        let parsed = lines::parse(&lore.content);
        let mut it = RisuItem {
            body: parsed.body,
            use_regex: lore.use_regex,
            full_word: settings.full_word_matching,
            always: lore.always_active,
            forced: None,
            no_key: lore.key.is_empty(),
            recursive: settings.recursive_scanning,
            searches_recursion: true,
            gated: false,
            priority: lore.insertorder,
        };
        lines::run(&parsed.lines, |l| it.apply(l));
        it
    }

    /// The static part of one decorator line, and whether RisuAI counts it
    /// as a success (a failure lets the next `@@@` line run).
    fn apply(&mut self, l: &Line) -> bool {
        let int = || js_parse_int(l.args.first());
        match l.name.as_str() {
            "match_full_word" => self.full_word = true,
            "match_partial_word" => self.full_word = false,
            "activate" => self.forced = Some(true),
            "dont_activate" => self.forced = Some(false),
            "recursive" => self.recursive = true,
            "unrecursive" => self.recursive = false,
            "no_recursive_search" => self.searches_recursion = false,
            "priority" => self.priority = int(),
            "ignore_on_max_context" => self.priority = -1000.0,
            // A number that is not one never blocks.
            "probability" => self.gated |= int() < 100.0,
            "keep_activate_after_match" => return false,
            "dont_activate_after_match" => {
                self.gated = true;
                return false;
            }
            "activate_only_after" | "activate_only_every" | "is_greeting" => {
                if int().is_nan() {
                    return false;
                }
                self.gated = true;
            }
            _ => return succeeds(l),
        }
        true
    }

    /// Whether RisuAI activates it in every request, whatever the chat.
    pub(crate) fn always_on(&self) -> bool {
        let on = self.always || (self.forced == Some(true) && !self.no_key);
        on && self.forced != Some(false) && !self.gated
    }

    /// Whether it can activate at all.
    pub(crate) fn can_activate(&self) -> bool {
        self.forced != Some(false) && (self.always || !self.no_key)
    }

    /// Whether its keys are ever searched.
    pub(crate) fn keyed(&self) -> bool {
        !self.always && self.forced.is_none() && !self.no_key
    }
}

/// Whether RisuAI counts a decorator line it gives no static effect here
/// as a success (docs/risu-rules.md §2.2, "fails when").
fn succeeds(l: &Line) -> bool {
    let Some(k) = risu_decorator(&l.name) else {
        return false;
    };
    let first = l.args.first().map(String::as_str);
    if k.name == "disable_ui_prompt" {
        return matches!(first, Some("post_history_instructions" | "system_prompt"));
    }
    if !k.effect {
        return false;
    }
    match k.arg {
        RisuArg::Int => k.name == "scan_depth" || !js_parse_int(l.args.first()).is_nan(),
        RisuArg::Role => matches!(first, Some("system" | "user" | "assistant")),
        RisuArg::Position => {
            matches!(
                first,
                Some("before_desc" | "after_desc" | "personality" | "scenario")
            ) || first.is_some_and(|a| a.starts_with("pt_"))
        }
        RisuArg::None | RisuArg::Keys | RisuArg::Text => true,
    }
}

/// The budget of RisuAI's settings as a whole number of tokens.
pub(crate) fn budget_of(settings: &RisuSettings) -> u32 {
    let b = settings.token_budget;
    if b.is_nan() || b <= 0.0 {
        0
    } else {
        b.min(u32::MAX as f64) as u32
    }
}

pub(crate) use crate::risu::matching::RegexRead;

/// A key as RisuAI's search reads it (`matching::read_regex_key`), once
/// its blanks are trimmed as the lint reads every key.
pub(crate) fn read_regex(key: &str) -> RegexRead {
    crate::risu::matching::read_regex_key(js_trim(key))
}

/// How `key` matches under RisuAI's rules with the entry's `flags`.
pub(crate) fn key_kind(key: &str, flags: Flags) -> KeyKind {
    let key = js_trim(key);
    if key.is_empty() {
        return KeyKind::Empty;
    }
    if flags.use_regex {
        return match read_regex(key) {
            RegexRead::Pattern { pattern, flags } => KeyKind::Regex { pattern, flags },
            _ => KeyKind::Regex {
                pattern: key.into(),
                flags: String::new(),
            },
        };
    }
    let lowered = key.to_lowercase();
    if flags.whole_words {
        KeyKind::Plain {
            text: lowered,
            case_sensitive: false,
            left: true,
            right: true,
        }
    } else {
        // Partial mode removes every space from the text and the key.
        KeyKind::Plain {
            text: lowered.replace(' ', ""),
            case_sensitive: false,
            left: false,
            right: false,
        }
    }
}

/// What RisuAI's own reading of `key` makes of it, when that is a problem
/// the generic checks do not see: a key RisuAI splits at its commas, regex
/// keys as 460ecae rewrites them, a whole-word key with a space.
pub(crate) fn key_problem(key: &str, flags: Flags) -> Option<(Severity, Finding)> {
    let trimmed = js_trim(key);
    if trimmed.is_empty() {
        return None;
    }
    let never = |reason| {
        Some((
            Severity::Warning,
            Finding::KeyNeverMatches {
                key: trimmed.into(),
                reason,
            },
        ))
    };
    // The export joins the keys into RisuAI's one comma-separated field,
    // which RisuAI splits at every comma (a regex's `{1,3}` too).
    if trimmed.contains(',') {
        return never(NeverReason::SplitAtComma);
    }
    if flags.use_regex {
        return match read_regex(trimmed) {
            RegexRead::NoSlash => never(NeverReason::RegexNoSlash),
            RegexRead::NoFlags => never(NeverReason::RegexNoFlags),
            RegexRead::Pattern { pattern, flags } => {
                // A pattern that does not compile ends the search: the
                // key cannot work as written.
                if RegexKey::from_js(&pattern, &flags).is_none() {
                    let finding = Finding::RegexInvalid {
                        key: trimmed.into(),
                        error: format!("RisuAI compiles /{pattern}/{flags}, which is not valid"),
                        plain: false,
                    };
                    return Some((Severity::Error, finding));
                }
                let finding = Finding::RegexRewritten {
                    key: trimmed.into(),
                    pattern,
                };
                Some((Severity::Warning, finding))
            }
        };
    }
    if flags.whole_words && trimmed.contains(' ') {
        return never(NeverReason::SpaceInFullWord);
    }
    None
}

/// The plain keys of some entries in one RisuAI key table, with which
/// entry and key each is, found in a text the way RisuAI's `searchMatch`
/// finds them.
pub(crate) struct KeyOwners {
    table: KeyTable,
    /// Per partial-mode id, the (owner, key index) of partial-mode keys.
    partial: HashMap<u32, Vec<(usize, usize)>>,
    /// Per full-word id, those of whole-word keys.
    full: HashMap<u32, Vec<(usize, usize)>>,
}

impl KeyOwners {
    /// The keys of `owners`: each (owner, its keys, whole words).
    pub(crate) fn new<'k>(owners: impl IntoIterator<Item = (usize, &'k [String], bool)>) -> Self {
        let mut table = KeyTable::default();
        let mut partial: HashMap<u32, Vec<(usize, usize)>> = HashMap::new();
        let mut full: HashMap<u32, Vec<(usize, usize)>> = HashMap::new();
        for (owner, keys, whole) in owners {
            for (k, key) in keys.iter().enumerate() {
                let q = table.query([key.as_str()]);
                let Some(&KeyIds {
                    partial: p,
                    full: f,
                }) = q.ids.first()
                else {
                    continue;
                };
                if whole {
                    full.entry(f).or_default().push((owner, k));
                } else {
                    partial.entry(p).or_default().push((owner, k));
                }
            }
        }
        table.finish();
        KeyOwners {
            table,
            partial,
            full,
        }
    }

    /// The (owner, key index) of every key found in `text`.
    pub(crate) fn found(&self, text: &str) -> Vec<(usize, usize)> {
        let hits = self.table.hits(text);
        let mut out = Vec::new();
        for id in &hits.partial {
            out.extend(self.partial.get(id).into_iter().flatten().copied());
        }
        for id in &hits.full {
            out.extend(self.full.get(id).into_iter().flatten().copied());
        }
        out
    }
}

/// The recursion edges under RisuAI's rules: a → b when a's body, which
/// joins the recursive texts, holds one of b's plain primary keys and b
/// searches the recursive texts.
pub(crate) fn edges(items: &[Item]) -> Vec<Vec<u32>> {
    fn view<'i>(it: &'i Item) -> Option<&'i RisuItem> {
        it.seen.risu().filter(|_| it.entry.enabled)
    }
    let owners = KeyOwners::new(items.iter().enumerate().filter_map(|(i, it)| {
        let r = view(it)?;
        (r.keyed() && r.searches_recursion && !r.use_regex).then_some((
            i,
            it.entry.keys.as_slice(),
            r.full_word,
        ))
    }));
    let mut edges = vec![Vec::new(); items.len()];
    for (i, it) in items.iter().enumerate() {
        let Some(r) = view(it) else { continue };
        if !r.recursive || !r.can_activate() || r.body.is_empty() {
            continue;
        }
        let mut to: Vec<u32> = owners
            .found(&r.body)
            .into_iter()
            .map(|(o, _)| o as u32)
            .filter(|&o| o as usize != i)
            .collect();
        to.sort_unstable();
        to.dedup();
        edges[i] = to;
    }
    edges
}

/// `never_survives` under RisuAI's rules: RisuAI fills the budget once,
/// after all the passes, walking the active entries by priority, highest first, and
/// keeping each that still fits (one that does not is skipped, the walk
/// goes on). The entries active in every request with a higher priority
/// are walked first, so an entry that does not fit in what they leave is
/// never kept, whatever else activates.
pub(crate) fn never_survives(
    cx: &LintContext,
    live: &[&Item],
    tokens: &mut dyn CountTokens,
    out: &mut Vec<Problem>,
) {
    let limit = cx.budget as u64;
    let rank = |it: &Item| it.seen.risu().map(|r| r.priority).filter(|p| !p.is_nan());
    let mut ahead: Vec<(f64, &Item)> = live
        .iter()
        .filter(|it| it.seen.risu().is_some_and(RisuItem::always_on))
        .filter_map(|it| Some((rank(it)?, *it)))
        .collect();
    if ahead.is_empty() {
        return;
    }
    ahead.sort_by(|a, b| b.0.total_cmp(&a.0));
    let texts: Vec<&str> = ahead.iter().map(|(_, it)| it.body.as_str()).collect();
    // used[k]: what the first k of them take, each kept only if it fits.
    let mut used = vec![0u64];
    for t in tokens.count_all(&texts) {
        let total = used[used.len() - 1];
        used.push(if total + t as u64 <= limit {
            total + t as u64
        } else {
            total
        });
    }
    // A token is at least one byte: only longer bodies can fail to fit.
    let long: Vec<(&Item, usize)> = live
        .iter()
        .filter_map(|it| {
            let p = rank(it)?;
            let k = ahead.partition_point(|(o, _)| *o > p);
            (k > 0 && it.body.len() as u64 > limit - used[k]).then_some((*it, k))
        })
        .collect();
    let texts: Vec<&str> = long.iter().map(|(it, _)| it.body.as_str()).collect();
    let counts = tokens.count_all(&texts);
    for ((it, k), t) in long.into_iter().zip(counts) {
        // Over the budget alone is `entry_over_budget`.
        if t as u64 > limit || t as u64 + used[k] <= limit {
            continue;
        }
        out.push(super::budget::never_kept(it, t, used[k], cx));
    }
}

/// For each plain primary key of the entries whose keys RisuAI searches:
/// in how many of `texts` it is found (entry, key, count).
pub(crate) fn counts_in<'t>(
    items: &[Item],
    texts: impl IntoIterator<Item = &'t str>,
) -> Vec<(usize, usize, usize)> {
    let owners = KeyOwners::new(items.iter().enumerate().filter_map(|(i, it)| {
        let r = it.seen.risu()?;
        (it.entry.enabled && r.keyed() && !r.use_regex).then_some((
            i,
            it.entry.keys.as_slice(),
            r.full_word,
        ))
    }));
    let mut counts: HashMap<(usize, usize), usize> = HashMap::new();
    for text in texts {
        let mut found = owners.found(text);
        found.sort_unstable();
        found.dedup();
        for slot in found {
            *counts.entry(slot).or_default() += 1;
        }
    }
    let mut out: Vec<(usize, usize, usize)> =
        counts.into_iter().map(|((i, k), n)| (i, k, n)).collect();
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One reading of a regex key for the search and the lint: a key the
    /// lint says stops the search (no slash) or is never tested (no flags)
    /// does just that in the search, and one it reads as a pattern is
    /// tested. A second reading written apart would drift from this one.
    #[test]
    fn the_search_and_the_lint_read_a_regex_key_alike() {
        use crate::risu::matching::{regex_search, RegexEnd};
        for key in [
            "/sun/i",
            "sun",
            "/sun/",
            "/a/b/gi",
            "/(x/i",
            "  /sun/i ",
            "/",
            "/sun/iq",
        ] {
            let search = regex_search(&[key.trim().to_string()], ["a sun"]);
            match read_regex(key) {
                RegexRead::NoSlash => assert_eq!(search, RegexEnd::NoSlash, "{key}"),
                RegexRead::NoFlags => assert_eq!(search, RegexEnd::NoMatch, "{key}"),
                RegexRead::Pattern { .. } => assert_ne!(search, RegexEnd::NoSlash, "{key}"),
            }
        }
    }
}
