//! Regex keys (SPEC §5): how a key is read as `/pattern/flags`, the caps on
//! a pattern's text checked before it is compiled, and the compiled form
//! the matcher runs ([`super::Matcher`]).

use regex_automata::meta::{self, Regex};
use regex_automata::util::syntax;

use super::PatternLimit;

/// A key written `/pattern/flags`: returns the pattern and flags, or `None`
/// when the key is plain text.
pub fn split_regex_key(key: &str) -> Option<(&str, &str)> {
    let rest = key.strip_prefix('/')?;
    let close = rest.rfind('/')?;
    let (pattern, flags) = (&rest[..close], &rest[close + 1..]);
    if pattern.is_empty() || !flags.chars().all(|c| "imsxuyg".contains(c)) {
        return None;
    }
    Some((pattern, flags))
}

/// The largest compiled regex key (its automaton, in bytes): past it the
/// key is refused as too large. Counting repetitions inflate patterns
/// (`\w{1000}` is a thousand copies of every Unicode word character), and
/// a key that large is a mistake or an attack, not a lorebook key.
pub const MAX_REGEX_BYTES: usize = 1 << 22;

/// The memory all the regex keys of one matcher may take once compiled.
/// A key like `/name123(s|es)?/i` takes about 7.4 KiB, so 10,000 of them
/// (74 MiB) fit; a book of many keys each near [`MAX_REGEX_BYTES`] would
/// otherwise take gigabytes. Keys past it are refused, in the order they
/// were added, so the same book always refuses the same keys.
pub const MAX_REGEXES_BYTES: usize = 256 << 20;

/// The longest regex key pattern compiled, in bytes.
pub const MAX_REGEX_PATTERN_BYTES: usize = 64 * 1024;
/// The most alternatives (`|`) a regex key pattern may have.
pub const MAX_REGEX_ALTERNATIVES: usize = 2_000;
/// The most groups (`(`) a regex key pattern may have.
pub const MAX_REGEX_GROUPS: usize = 2_000;
/// How deep groups may nest in a regex key pattern.
pub const MAX_REGEX_NESTING: usize = 64;

/// Whether a regex key pattern is past the caps on its text, checked
/// before it is compiled (under both rules: the `regex` crate here, the
/// vendored `regress` under SillyTavern's): which limit, and its value.
/// The regex engines parse, optimise and drop a pattern with recursive
/// passes (`regress` nests one level per alternative), so a pattern of
/// hundreds of thousands of alternatives overflowed the stack before any
/// size limit of theirs applied. Escapes and bracket classes are skipped
/// when counting, so a literal `\|` or `[(]` does not count.
pub fn regex_too_large(pattern: &str) -> Option<(PatternLimit, usize)> {
    if pattern.len() > MAX_REGEX_PATTERN_BYTES {
        return Some((PatternLimit::Length, MAX_REGEX_PATTERN_BYTES));
    }
    let (mut alternatives, mut groups, mut depth) = (0usize, 0usize, 0usize);
    let mut bytes = pattern.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'\\' => {
                bytes.next();
            }
            b'[' => {
                while let Some(b) = bytes.next() {
                    match b {
                        b'\\' => {
                            bytes.next();
                        }
                        b']' => break,
                        _ => {}
                    }
                }
            }
            b'|' => {
                alternatives += 1;
                if alternatives > MAX_REGEX_ALTERNATIVES {
                    return Some((PatternLimit::Alternatives, MAX_REGEX_ALTERNATIVES));
                }
            }
            b'(' => {
                groups += 1;
                depth += 1;
                if groups > MAX_REGEX_GROUPS {
                    return Some((PatternLimit::Groups, MAX_REGEX_GROUPS));
                }
                if depth > MAX_REGEX_NESTING {
                    return Some((PatternLimit::Nesting, MAX_REGEX_NESTING));
                }
            }
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Compiles a regex key as the `regex` crate's `Regex::new` would (the same
/// engine, its configuration spelled out), with its size capped at `limit`.
/// The one-pass DFA and the bounded backtracker only serve searches for
/// capture groups, which keys never ask for, and no full DFA is built ahead
/// (the lazy DFA finds the same matches; that build was most of a key's
/// compile time, paid by every cold `lorebook preview`): a key takes
/// 7.4 KiB instead of 27 KiB.
pub(super) fn compile_regex(pattern: &str, flags: &str, limit: usize) -> Result<Regex, String> {
    if let Some((limit, max)) = regex_too_large(pattern) {
        return Err(format!("the pattern is past its limit of {max} {limit}"));
    }
    let config = meta::Config::new()
        .match_kind(regex_automata::MatchKind::LeftmostFirst)
        .utf8_empty(true)
        .nfa_size_limit(Some(limit))
        .hybrid_cache_capacity(2 << 20)
        .onepass(false)
        .backtrack(false)
        .dfa(false);
    Regex::builder()
        .syntax(regex_syntax_config(flags))
        .configure(config)
        .build(pattern)
        .map_err(|e| match (e.syntax_error(), e.size_limit()) {
            (Some(syntax), _) => syntax.to_string(),
            (None, Some(_)) => "the pattern is too large".to_string(),
            (None, None) => e.to_string(),
        })
}

/// Whether a regex key has a Unicode word boundary (`\b`, `\B` and their
/// `\b{start}` kin), which the lazy DFA decides on ASCII only.
pub(super) fn has_unicode_word_boundary(pattern: &str, flags: &str) -> bool {
    syntax::parse_with(pattern, &regex_syntax_config(flags))
        .is_ok_and(|hir| hir.properties().look_set().contains_word_unicode())
}

/// The syntax of a regex key with its `/…/flags`.
fn regex_syntax_config(flags: &str) -> syntax::Config {
    syntax::Config::new()
        .utf8(true)
        .case_insensitive(flags.contains('i'))
        .multi_line(flags.contains('m'))
        .dot_matches_new_line(flags.contains('s'))
        .ignore_whitespace(flags.contains('x'))
}
