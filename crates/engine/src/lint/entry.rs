//! The checks of one entry on its own ([`check_entry`]): its keys, flags,
//! decorators and body, under the rules in use. They read nothing of the
//! other entries, so an editor re-runs them on the edited entry alone.

use super::context::{self, key_kind, Flags, KeyKind, LintContext, LintRules, Seen};
use super::problem::{
    line_with_break, CommonReason, Contradiction, EntryRef, Finding, Fix, NeverReason,
    NoEffectReason, Problem, Span,
};
use crate::decorators::{self, DecoratorLine};
use crate::diagnostic::{ArgProblem, DiagnosticMessage, Severity};
use crate::matcher::{KeyOwner, MatcherBuilder};
use crate::model::Entry;
use crate::sillytavern::entry::StEntry;

/// The problems of entry `e` of book `book` on its own. A disabled entry
/// fires under no rules, so it keeps only its errors (what cannot work as
/// written once it is enabled again).
pub fn check_entry(cx: &LintContext, book: usize, e: &Entry) -> Vec<Problem> {
    check_entry_seen(cx, book, e, &Seen::of(cx, book, e))
}

/// [`check_entry`] of the entry as the rules read it (`seen`), made once
/// by the caller for every check of a whole lint.
pub(crate) fn check_entry_seen(
    cx: &LintContext,
    book: usize,
    e: &Entry,
    seen: &Seen,
) -> Vec<Problem> {
    let mut out = Checker {
        cx,
        at: EntryRef { book, id: e.id },
        out: Vec::new(),
    };
    out.keys(e, seen);
    match seen {
        Seen::Studio => out.studio_decorators(e, None),
        Seen::St(st) => {
            out.st_decorators(e, st);
            out.st_macros(e);
        }
        Seen::Risu(r) => out.studio_decorators(e, Some(r)),
    }
    out.flags(e, seen);
    let mut problems = out.out;
    // RisuAI's `@@dont_activate` (what the export writes for a disabled
    // entry) shuts the entry off as surely.
    let off = seen.risu().is_some_and(|r| r.forced == Some(false));
    if !e.enabled || off {
        problems.retain(|p| p.severity == Severity::Error);
    }
    problems
}

/// The most macro findings one entry gets.
const MAX_MACRO_FINDINGS: usize = 5;

struct Checker<'a> {
    cx: &'a LintContext,
    at: EntryRef,
    out: Vec<Problem>,
}

impl Checker<'_> {
    fn push(&mut self, severity: Severity, span: Span, finding: Finding, fix: Option<Fix>) {
        self.out.push(Problem {
            entry: self.at,
            severity,
            span,
            finding,
            fix,
        });
    }

    /// Key by key: empty, invalid or empty-matching regex, too common.
    fn keys(&mut self, e: &Entry, seen: &Seen) {
        let flags = context::flags(self.cx, e, seen);
        let selective = seen.st().map_or(e.selective, |s| s.selective);
        // Under RisuAI's rules, what is always on never tests its keys; a
        // disabled entry (`@@dont_activate`) keeps its key errors.
        let constant = seen.risu().map_or(e.constant, |r| {
            r.always || (r.forced == Some(true) && !r.no_key)
        });
        let lists: [(&[String], bool); 2] = [(&e.keys, false), (&e.secondary_keys, true)];
        for (keys, secondary) in lists {
            // Keys never tested are reported as a whole (secondary_unused,
            // constant_with_keys), not key by key.
            if (secondary && !selective) || (!secondary && constant) {
                continue;
            }
            for (index, key) in keys.iter().enumerate() {
                self.key(key, index, secondary, flags);
            }
        }
    }

    fn key(&mut self, key: &str, index: usize, secondary: bool, flags: Flags) {
        let span = Span::Key { secondary, index };
        let remove = Some(Fix::RemoveKey { secondary, index });
        // SillyTavern tests emptiness before trimming: a key of spaces
        // survives the test and, trimmed to nothing, matches every text.
        if self.cx.rules.is_sillytavern()
            && !key.is_empty()
            && crate::sillytavern::matching::js_trim(key).is_empty()
        {
            let finding = Finding::KeyTooCommon {
                key: key.into(),
                reason: CommonReason::Whitespace,
            };
            return self.push(Severity::Warning, span, finding, remove);
        }
        if self.cx.rules.risu().is_some() {
            if let Some((severity, finding)) = super::risu::key_problem(key, flags) {
                return self.push(severity, span, finding, None);
            }
        }
        match key_kind(&self.cx.rules, key, flags) {
            KeyKind::Empty => {
                let finding = Finding::KeyNeverMatches {
                    key: key.into(),
                    reason: NeverReason::Empty,
                };
                self.push(Severity::Warning, span, finding, remove);
            }
            KeyKind::Regex { pattern, flags: f } => self.regex(key, &pattern, &f, span, flags),
            KeyKind::Plain {
                text, left, right, ..
            } => {
                if self.cx.chat_loaded {
                    return;
                }
                let chars = text.chars().count();
                let language = self.cx.book(self.at.book).language;
                let reason = if chars == 1 && text.chars().all(char::is_alphabetic) {
                    CommonReason::SingleLetter
                } else if context::is_stop_word(language, &text.to_lowercase()) {
                    CommonReason::StopWord {
                        language: language.code().into(),
                    }
                } else if chars < 3 && !left && !right && !flags.whole_words {
                    CommonReason::Short
                } else {
                    return;
                };
                let finding = Finding::KeyTooCommon {
                    key: key.trim().into(),
                    reason,
                };
                self.push(Severity::Warning, span, finding, None);
            }
        }
    }

    fn regex(&mut self, key: &str, pattern: &str, f: &str, span: Span, flags: Flags) {
        let key = key.trim().to_string();
        let compiled = match &self.cx.rules {
            LintRules::Studio => {
                let mut b = MatcherBuilder::quick();
                let owner = KeyOwner {
                    entry: 0,
                    secondary: false,
                    position: 0,
                };
                let k = crate::matcher::KeyFlags {
                    case_sensitive: flags.case_sensitive,
                    whole_words: flags.whole_words,
                    use_regex: flags.use_regex,
                };
                b.add(&key, owner, k);
                let (_, errors) = b.build();
                match errors.into_iter().next() {
                    Some(err) => Err(err.message),
                    None => Ok(regex::RegexBuilder::new(pattern)
                        .case_insensitive(f.contains('i'))
                        .multi_line(f.contains('m'))
                        .dot_matches_new_line(f.contains('s'))
                        .ignore_whitespace(f.contains('x'))
                        .build()
                        .map(|r| r.is_match(""))
                        .unwrap_or(false)),
                }
            }
            // RisuAI's regex keys are read by `risu::key_problem`.
            LintRules::Risu { .. } => return,
            LintRules::SillyTavern { .. } => {
                let engine: String = f.chars().filter(|c| "imsu".contains(*c)).collect();
                if let Some((limit, max)) = crate::matcher::regex_too_large(pattern) {
                    Err(format!(
                        "past the regex size limit ({max} {limit}); never compiled"
                    ))
                } else {
                    match regress::Regex::with_flags(pattern, engine.as_str()) {
                        Err(e) => Err(e.to_string()),
                        // The buffer always holds at least the message marker,
                        // so an empty match is found in every scanned text.
                        Ok(r) => Ok(r.find("").is_some()),
                    }
                }
            }
        };
        match compiled {
            Err(error) => {
                let plain = self.cx.rules.is_sillytavern();
                let finding = Finding::RegexInvalid { key, error, plain };
                let severity = if plain {
                    Severity::Warning
                } else {
                    Severity::Error
                };
                self.push(severity, span, finding, None);
            }
            Ok(true) => {
                let finding = Finding::RegexMatchesEmpty { key };
                self.push(Severity::Warning, span, finding, None);
            }
            Ok(false) => {}
        }
    }

    /// Macros SillyTavern's engine leaves in keys and content as written.
    fn st_macros(&mut self, e: &Entry) {
        use crate::sillytavern::macros::check::{left_as_text, MacroLeft};
        let LintRules::SillyTavern { macros, .. } = self.cx.rules else {
            return;
        };
        let keys = [(&e.keys, false), (&e.secondary_keys, true)];
        let mut found: Vec<(Span, String, MacroLeft)> = Vec::new();
        for (list, secondary) in keys {
            for (index, key) in list.iter().enumerate() {
                for l in left_as_text(key, macros) {
                    found.push((
                        Span::Key { secondary, index },
                        key[l.start..l.end].to_string(),
                        l.why,
                    ));
                }
            }
        }
        for l in left_as_text(&e.content, macros) {
            let span = Span::Content {
                start: l.start,
                end: l.end,
            };
            found.push((span, e.content[l.start..l.end].to_string(), l.why));
        }
        // A few per entry: one book-wide habit is not a hundred findings.
        for (span, text, reason) in found.into_iter().take(MAX_MACRO_FINDINGS) {
            let severity = match reason {
                MacroLeft::Varies => Severity::Hint,
                MacroLeft::NewEngineOnly | MacroLeft::Unknown => Severity::Warning,
            };
            let finding = Finding::MacroAsText {
                text,
                reason,
                engine: macros,
            };
            self.push(severity, span, finding, None);
        }
    }

    /// Flags against keys: unused secondary keys, keys of a constant,
    /// selective without secondary keys, no keys at all; an empty body.
    fn flags(&mut self, e: &Entry, seen: &Seen) {
        let st = seen.st();
        let usable = |keys: &[String]| {
            keys.iter()
                .filter(|k| match seen {
                    Seen::Studio => !k.trim().is_empty(),
                    Seen::St(_) => !k.is_empty(),
                    Seen::Risu(_) => !crate::risu::decorators::js_trim(k).is_empty(),
                })
                .count()
        };
        let (primary, secondary) = (usable(&e.keys), usable(&e.secondary_keys));
        let selective = st.map_or(e.selective, |s| s.selective);
        if !selective && secondary > 0 && !e.constant {
            let finding = Finding::SecondaryUnused { count: secondary };
            let fix = Some(Fix::ClearSecondaryKeys);
            self.push(Severity::Warning, Span::Entry, finding, fix);
        }
        if e.constant && primary > 0 {
            let finding = Finding::ConstantWithKeys { count: primary };
            self.push(Severity::Hint, Span::Entry, finding, Some(Fix::ClearKeys));
        }
        // SillyTavern saves every plain entry as selective without
        // secondary keys: normal there, and it changes nothing.
        let from_st = self.cx.book(self.at.book).from_sillytavern;
        if st.is_none() && !from_st && e.selective && secondary == 0 && !e.constant {
            let fix = Some(Fix::SetSelective { value: false });
            let finding = Finding::SelectiveWithoutSecondary;
            self.push(Severity::Hint, Span::Entry, finding, fix);
        }
        // RisuAI skips an entry with an empty key before `@@activate`.
        let forced = match seen {
            Seen::St(s) => s.activate,
            Seen::Risu(r) => r.always_on() || (r.forced == Some(true) && !r.no_key),
            Seen::Studio => false,
        };
        if primary == 0 && !e.constant && !forced {
            self.push(Severity::Warning, Span::Entry, Finding::NoKeys, None);
        }
        let (body, start) = match seen {
            Seen::St(s) => (s.content.clone(), e.content.len() - s.content.len()),
            Seen::Risu(r) => (r.body.clone(), decorators::parse(&e.content).body_start),
            Seen::Studio => {
                let p = decorators::parse(&e.content);
                (p.body.to_string(), p.body_start)
            }
        };
        if body.trim().is_empty() {
            let span = Span::Content {
                start: start.min(e.content.len()),
                end: e.content.len(),
            };
            self.push(Severity::Warning, span, Finding::ContentEmpty, None);
        }
    }

    /// The guide's decorator checks; under RisuAI's rules (`risu`) the
    /// guide's diagnostics as RisuAI reads the decorators
    /// (`risu_diagnostics`: its own decorators are known, their arguments
    /// read as it reads them), and `@@activate` on an entry RisuAI skips.
    fn studio_decorators(&mut self, e: &Entry, risu: Option<&super::risu::RisuItem>) {
        let p = decorators::parse(&e.content);
        let line_of = |n: Option<usize>| n.and_then(|n| p.lines.iter().find(|l| l.line == n));
        let risu_read =
            risu.and_then(|_| crate::risu::risu_diagnostics(&e.content, &p.diagnostics));
        for d in risu_read.as_deref().unwrap_or(&p.diagnostics) {
            let Some(line) = line_of(d.line) else {
                continue;
            };
            let (span, delete) = spans(&e.content, line);
            let (severity, finding) = match &d.message {
                DiagnosticMessage::UnknownDecorator { name } if is_st_decorator(name) => (
                    Severity::Warning,
                    Finding::DecoratorNoEffect {
                        decorator: name.clone(),
                        reason: NoEffectReason::OtherRules {
                            rules: "sillytavern".into(),
                        },
                    },
                ),
                DiagnosticMessage::UnknownDecorator { name } => (
                    Severity::Warning,
                    Finding::DecoratorUnknown { name: name.clone() },
                ),
                DiagnosticMessage::EmptyDecoratorName => (
                    Severity::Warning,
                    Finding::DecoratorUnknown {
                        name: String::new(),
                    },
                ),
                DiagnosticMessage::FallbackWithoutPrevious { name } => (
                    Severity::Warning,
                    Finding::DecoratorNoEffect {
                        decorator: name.clone(),
                        reason: NoEffectReason::LoneFallback,
                    },
                ),
                // The guide's bad arguments are errors; RisuAI's are as bad
                // as what RisuAI then does (`risu_argument_problem`).
                DiagnosticMessage::BadArgument { decorator, problem } => (
                    d.severity,
                    Finding::DecoratorBadArgument {
                        decorator: decorator.clone(),
                        problem: problem.clone(),
                    },
                ),
                DiagnosticMessage::NoEffectInRisu { name } => (
                    Severity::Hint,
                    Finding::DecoratorNoEffect {
                        decorator: name.clone(),
                        reason: NoEffectReason::RisuIgnores,
                    },
                ),
                DiagnosticMessage::Repeated { decorator, winner } => (
                    Severity::Warning,
                    Finding::DecoratorNoEffect {
                        decorator: decorator.clone(),
                        reason: NoEffectReason::Repeated { winner: *winner },
                    },
                ),
                _ => continue,
            };
            self.push(severity, span, finding, Some(delete));
        }
        let applied = |name: &str| {
            p.lines.iter().rev().find(|l| {
                matches!(l.status, decorators::LineStatus::Applied)
                    && decorators::lookup(&l.name).is_some_and(|s| s.name == name)
            })
        };
        if let Some(r) = risu {
            if r.no_key && !r.always {
                let activate = p.lines.iter().filter(|l| {
                    l.name == "activate"
                        || l.name == "keep_activate_after_match"
                        || decorators::lookup(&l.name).is_some_and(|s| s.name == "keep")
                });
                for line in activate {
                    let (span, delete) = spans(&e.content, line);
                    let finding = Finding::DecoratorNoEffect {
                        decorator: line.name.clone(),
                        reason: NoEffectReason::NoKey,
                    };
                    self.push(Severity::Warning, span, finding, Some(delete));
                }
            }
            // The guide's decorators RisuAI has no name for (`@@order`; the
            // guide's `@@keep` is written as RisuAI's own): RisuAI drops
            // the line.
            for line in p.lines.iter().filter(|l| {
                decorators::lookup(&l.name).is_some_and(|s| s.name != "keep")
                    && crate::risu::known::risu_decorator(&l.name).is_none()
            }) {
                let (span, delete) = spans(&e.content, line);
                let finding = Finding::DecoratorNoEffect {
                    decorator: line.name.clone(),
                    reason: NoEffectReason::OtherRules {
                        rules: "studio".into(),
                    },
                };
                self.push(Severity::Warning, span, finding, Some(delete));
            }
            return;
        }
        let d = &p.decorators;
        if d.keep && d.dont_activate_after_match && !e.constant {
            if let Some(line) = applied("keep") {
                let (span, delete) = spans(&e.content, line);
                let finding = Finding::DecoratorContradictory {
                    first: line.name.clone(),
                    second: "dont_activate_after_match".into(),
                    reason: Contradiction::KeepGated,
                };
                self.push(Severity::Warning, span, finding, Some(delete));
            }
        }
        if e.constant {
            for name in ["scan_depth", "keep"] {
                if let Some(line) = applied(name) {
                    let (span, delete) = spans(&e.content, line);
                    let finding = Finding::DecoratorNoEffect {
                        decorator: line.name.clone(),
                        reason: NoEffectReason::Constant,
                    };
                    self.push(Severity::Warning, span, finding, Some(delete));
                }
            }
        }
    }

    /// SillyTavern's decorator block (sillytavern-rules.md §2.3): `@@activate`
    /// and `@@dont_activate`, exactly as written, are the only ones with an
    /// effect.
    fn st_decorators(&mut self, e: &Entry, st: &StEntry) {
        let content = &e.content;
        let mut offset = 0;
        let mut previous_unknown = false;
        let mut seen: Vec<(&str, Span, Fix)> = Vec::new();
        for raw in content.split_inclusive('\n') {
            let start = offset;
            offset += raw.len();
            let line = raw.strip_suffix('\n').unwrap_or(raw);
            if !line.starts_with("@@") {
                break;
            }
            let span = Span::Content {
                start,
                end: start + line.len(),
            };
            let delete = Fix::DeleteContent { start, end: offset };
            let text = if let Some(rest) = line.strip_prefix("@@@") {
                if !previous_unknown {
                    continue;
                }
                format!("@@{rest}")
            } else {
                line.to_string()
            };
            let rest = &text[2..];
            let name_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let name = &rest[..name_end];
            let known = ["activate", "dont_activate"]
                .into_iter()
                .find(|n| rest.starts_with(n));
            previous_unknown = known.is_none();
            let (severity, finding, fix) = if let Some(spec) = decorators::lookup(name) {
                // The export writes these as SillyTavern's own fields.
                if CARRIED.contains(&spec.name) {
                    continue;
                }
                let finding = Finding::DecoratorNoEffect {
                    decorator: spec.name.into(),
                    reason: NoEffectReason::OtherRules {
                        rules: "studio".into(),
                    },
                };
                (Severity::Warning, finding, delete)
            } else if let Some(known) = known {
                if rest == known {
                    seen.push((known, span, delete));
                    continue;
                }
                let finding = Finding::DecoratorBadArgument {
                    decorator: known.into(),
                    problem: ArgProblem::UnexpectedArgument {
                        arg: rest[known.len()..].to_string(),
                    },
                };
                let fix = Fix::ReplaceContent {
                    start,
                    end: start + line.len(),
                    text: format!("@@{known}"),
                };
                (Severity::Warning, finding, fix)
            } else {
                let finding = Finding::DecoratorUnknown { name: name.into() };
                (Severity::Warning, finding, delete)
            };
            self.push(severity, span, finding, Some(fix));
        }
        if st.activate && st.dont_activate {
            if let Some((_, span, fix)) = seen.iter().find(|(n, ..)| *n == "dont_activate") {
                let finding = Finding::DecoratorContradictory {
                    first: "dont_activate".into(),
                    second: "activate".into(),
                    reason: Contradiction::ActivateWins,
                };
                self.push(Severity::Warning, *span, finding, Some(fix.clone()));
            }
        }
    }
}

/// Guide decorators the SillyTavern export turns into SillyTavern's own
/// fields (`probability`, `scanDepth`, `order`, `role`).
const CARRIED: &[&str] = &["probability", "scan_depth", "order", "role"];

/// SillyTavern's own decorators, which the studio rules do not know.
fn is_st_decorator(name: &str) -> bool {
    name == "activate" || name == "dont_activate"
}

/// The span of a decorator line and the fix that deletes it.
fn spans(content: &str, line: &DecoratorLine) -> (Span, Fix) {
    let (start, end) = line_with_break(content, line);
    (
        Span::Content {
            start: line.start,
            end: line.end,
        },
        Fix::DeleteContent { start, end },
    )
}
