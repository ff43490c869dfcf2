//! The decorators RisuAI 460ecae's lorebook code reads, for the editor's
//! decorator panel and the diagnostics under RisuAI's rules: each with the
//! argument it takes, whether it changes anything, and its meaning
//! (docs/risu-rules.md, "The decorators loadLoreBookV3Prompt recognises").

use super::decorators::{self as risu_lines, js_parse_int};
use crate::diagnostic::{ArgProblem, Diagnostic, DiagnosticMessage, Severity};

pub use super::names::{risu_decorator, RisuArg, RisuDecorator, RISU_DECORATORS};

/// What is wrong with the arguments of RisuAI decorator `k` written as
/// `line` (one line of the content), read as RisuAI 460ecae reads them
/// (`parseDecorators`, then `loadLoreBookV3Prompt`'s handler), and how bad
/// it is. `None`: nothing.
fn argument_problem(k: &RisuDecorator, line: &str) -> Option<(Severity, ArgProblem)> {
    let parsed = risu_lines::parse(line);
    let read = parsed.lines.first()?;
    // The guide ends a name at any white space, RisuAI only at a space:
    // "@@position<tab>x" is another, unknown name to RisuAI, not this one.
    if read.name != k.name {
        return None;
    }
    let args = read.args.as_slice();
    let first = args.first();
    let warn = |p| Some((Severity::Warning, p));
    match k.arg {
        // parseInt: leading digits are enough ("12th" is 12); no number at
        // all makes RisuAI skip the line.
        RisuArg::Int => match first {
            None => warn(ArgProblem::MissingNumber),
            Some(a) if js_parse_int(Some(a)).is_nan() => {
                warn(ArgProblem::NotWholeNumber { arg: a.clone() })
            }
            Some(_) => None,
        },
        RisuArg::Role => match first.map(String::as_str) {
            None => warn(ArgProblem::MissingRole),
            Some("system" | "user" | "assistant") => None,
            Some(a) => warn(ArgProblem::NotRole { arg: a.into() }),
        },
        RisuArg::Position => match first.map(String::as_str) {
            None => Some((Severity::Error, ArgProblem::MissingPosition)),
            Some("before_desc" | "after_desc" | "personality" | "scenario") => None,
            Some(a) if a.starts_with("pt_") => None,
            Some(a) => warn(ArgProblem::NotPosition { arg: a.into() }),
        },
        RisuArg::Keys if args.is_empty() => warn(ArgProblem::MissingKeys),
        // A flag ignores what follows it: harmless, but not what was meant.
        RisuArg::None if !args.is_empty() => Some((
            Severity::Hint,
            ArgProblem::UnexpectedArgument {
                arg: args.join(", "),
            },
        )),
        _ => None,
    }
}

/// What is wrong with the argument of decorator `name`, written as `line`,
/// under RisuAI's rules ([`argument_problem`]); `None` for a decorator
/// RisuAI does not read or ignores, and for a good argument.
pub fn risu_argument_problem(name: &str, line: &str) -> Option<(Severity, ArgProblem)> {
    risu_decorator(name)
        .filter(|k| k.effect)
        .and_then(|k| argument_problem(k, line))
}

/// The guide's diagnostics of an entry whose content is `content` as
/// RisuAI's rules see them: a decorator the guide does not know but RisuAI
/// reads is no problem unless its argument is one RisuAI cannot use (a bad
/// argument, worded with what RisuAI then does), and one RisuAI parses and
/// ignores is said to have no effect (a hint). A decorator both read
/// (`@@priority`, `@@probability`, `@@role`, …) is judged by RisuAI's
/// reading alone: the guide's verdict on its argument is left out, and what
/// RisuAI cannot use is named (`@@priority 1.5` is 1 to RisuAI, `@@role
/// User` a line it skips). `None` when nothing changes, so the common case
/// allocates nothing.
pub fn risu_diagnostics(content: &str, diagnostics: &[Diagnostic]) -> Option<Vec<Diagnostic>> {
    let read = |name: &str| risu_decorator(name).filter(|k| k.effect);
    let risu_name = |d: &Diagnostic| match &d.message {
        DiagnosticMessage::UnknownDecorator { name } => risu_decorator(name),
        _ => None,
    };
    let guide_verdict = |d: &Diagnostic| {
        matches!(&d.message, DiagnosticMessage::BadArgument { decorator, .. }
            if crate::decorators::lookup(decorator).is_some() && read(decorator).is_some())
    };
    let lines: Vec<&str> = content.split('\n').collect();
    // The decorators both read, by line number, with what RisuAI makes of
    // their arguments.
    let mut shared = Vec::new();
    for (i, raw) in lines.iter().enumerate() {
        let line = risu_lines::js_trim(raw);
        if !line.starts_with("@@") {
            break;
        }
        let Some(l) = risu_lines::parse(line).lines.into_iter().next() else {
            continue;
        };
        if crate::decorators::lookup(&l.name).is_none() {
            continue;
        }
        if let Some(found) = read(&l.name).and_then(|k| argument_problem(k, line)) {
            shared.push((i + 1, l.name, found));
        }
    }
    if shared.is_empty()
        && !diagnostics
            .iter()
            .any(|d| risu_name(d).is_some() || guide_verdict(d))
    {
        return None;
    }
    let mut out = Vec::with_capacity(diagnostics.len() + shared.len());
    let line_of = |n: Option<usize>| n.and_then(|n| lines.get(n.checked_sub(1)?).copied());
    for d in diagnostics {
        if guide_verdict(d) {
            continue;
        }
        match risu_name(d) {
            Some(k) if k.effect => {
                if let Some((severity, problem)) =
                    line_of(d.line).and_then(|l| argument_problem(k, risu_lines::js_trim(l)))
                {
                    out.push(Diagnostic {
                        line: d.line,
                        severity,
                        message: DiagnosticMessage::BadArgument {
                            decorator: k.name.to_string(),
                            problem,
                        },
                    });
                }
            }
            Some(k) => out.push(Diagnostic {
                line: d.line,
                severity: Severity::Hint,
                message: DiagnosticMessage::NoEffectInRisu {
                    name: k.name.to_string(),
                },
            }),
            None => out.push(d.clone()),
        }
    }
    for (n, decorator, (severity, problem)) in shared {
        out.push(Diagnostic {
            line: Some(n),
            severity,
            message: DiagnosticMessage::BadArgument { decorator, problem },
        });
    }
    // In line order, as the guide lists them (lines without one last).
    out.sort_by_key(|d| d.line.unwrap_or(usize::MAX));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_known_ones_have_an_effect() {
        let mut names: Vec<&str> = RISU_DECORATORS.iter().map(|d| d.name).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n);
        assert!(risu_decorator("exclude_keys").is_some_and(|d| d.effect));
        assert!(risu_decorator("is_user_icon").is_some_and(|d| !d.effect));
        assert!(risu_decorator("keep").is_none(), "the guide's spelling");
    }

    #[test]
    fn risu_decorators_are_no_longer_unknown() {
        let content = "@@exclude_keys storm\n@@is_user_icon x\n@@bogus\nBody";
        let parsed = crate::decorators::parse(content);
        let got = risu_diagnostics(content, &parsed.diagnostics).expect("something changes");
        let messages: Vec<_> = got.iter().map(|d| (d.line, d.message.clone())).collect();
        assert_eq!(
            messages,
            [
                (
                    Some(2),
                    DiagnosticMessage::NoEffectInRisu {
                        name: "is_user_icon".into()
                    }
                ),
                (
                    Some(3),
                    DiagnosticMessage::UnknownDecorator {
                        name: "bogus".into()
                    }
                ),
            ]
        );
        assert_eq!(got[0].severity, Severity::Hint);
        let bogus = "@@bogus\nB";
        assert!(risu_diagnostics(bogus, &crate::decorators::parse(bogus).diagnostics).is_none());
    }

    /// The handler of `loadLoreBookV3Prompt` (RisuAI 460ecae) reads each
    /// decorator's arguments as `parseDecorators` split them: a number by
    /// `parseInt` (no number: the line is skipped), a position from its
    /// list (none at all: the prompt build throws), keys as a list. Bad
    /// arguments of the RisuAI-only decorators are named; good ones, and
    /// what parseInt accepts ("3rd"), are not.
    #[test]
    fn load_lore_book_v3_prompt_arguments_are_checked_as_risu_reads_them() {
        use ArgProblem::*;
        let check = |content: &str| -> Vec<(Option<usize>, Severity, DiagnosticMessage)> {
            let parsed = crate::decorators::parse(content);
            risu_diagnostics(content, &parsed.diagnostics)
                .unwrap_or_else(|| parsed.diagnostics.clone())
                .into_iter()
                .map(|d| (d.line, d.severity, d.message))
                .collect()
        };
        let bad = |line, severity, decorator: &str, problem| {
            (
                Some(line),
                severity,
                DiagnosticMessage::BadArgument {
                    decorator: decorator.into(),
                    problem,
                },
            )
        };
        assert_eq!(
            check("@@depth\n@@reverse_depth soon\n@@position\n@@position middle\n@@exclude_keys\n@@activate now\nBody"),
            [
                bad(1, Severity::Warning, "depth", MissingNumber),
                bad(2, Severity::Warning, "reverse_depth", NotWholeNumber { arg: "soon".into() }),
                bad(3, Severity::Error, "position", MissingPosition),
                bad(4, Severity::Warning, "position", NotPosition { arg: "middle".into() }),
                bad(5, Severity::Warning, "exclude_keys", MissingKeys),
                bad(6, Severity::Hint, "activate", UnexpectedArgument { arg: "now".into() }),
            ]
        );
        assert_eq!(
            check("@@position\tafter_desc\nBody"),
            [],
            "a tab does not end a name in RisuAI: another decorator"
        );
        assert_eq!(
            check("@@depth 3rd\n@@position pt_lore\n@@position after_desc\n@@additional_keys storm, fog\n@@activate\nBody"),
            [],
        );
    }

    /// A decorator the guide and RisuAI both read is judged as RisuAI
    /// reads it: parseInt's number, no range of the guide's, RisuAI's
    /// exact role names.
    #[test]
    fn shared_decorators_are_read_as_risu_reads_them() {
        let content = "@@priority 1.5\n@@probability 150\n@@role User\n@@scan_depth 200\nBody";
        let parsed = crate::decorators::parse(content);
        let got = risu_diagnostics(content, &parsed.diagnostics).expect("something changes");
        let messages: Vec<_> = got
            .iter()
            .map(|d| (d.line, d.severity, d.message.clone()))
            .collect();
        assert_eq!(
            messages,
            [(
                Some(3),
                Severity::Warning,
                DiagnosticMessage::BadArgument {
                    decorator: "role".into(),
                    problem: ArgProblem::NotRole { arg: "User".into() }
                }
            )]
        );
        let fine = "@@priority 3\n@@role user\nBody";
        assert!(risu_diagnostics(fine, &crate::decorators::parse(fine).diagnostics).is_none());
    }
}
