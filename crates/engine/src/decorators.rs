//! Decorators (SPEC §3): the `@@name arg` lines at the top of an entry's
//! content.
//!
//! [`parse`] never fails: it returns what applies, every line it saw with its
//! status, the body and diagnostics. Unknown or invalid lines stay in the
//! stored content (the model is never rewritten) and are left out of the body.
//!
//! This module is above the usual ~600 lines on purpose: the decorator table,
//! the parser that reads it and their tests change together.
//!
//! ```
//! use lorebook_engine::decorators::parse;
//! let p = parse("@@probability 50\n@@bogus\nThe body.");
//! assert_eq!(p.decorators.probability, Some(50));
//! assert_eq!(p.body, "The body.");
//! assert_eq!(p.diagnostics[0].line, Some(2));
//! ```

use serde::{Deserialize, Serialize};

// A diagnostic is what `parse` reports, so its types are reachable from here.
use crate::diagnostic::{ArgProblem, DiagnosticMessage};
pub use crate::diagnostic::{Diagnostic, Severity};
use crate::model::Role;

/// The decorators that apply to an entry, after fallbacks and repeats.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Decorators {
    pub probability: Option<u8>,
    pub scan_depth: Option<u32>,
    pub order: Option<i64>,
    pub priority: Option<i64>,
    pub role: Option<Role>,
    pub activate_only_after: Option<u64>,
    pub activate_only_every: Option<u64>,
    pub keep: bool,
    pub dont_activate_after_match: bool,
    pub is_greeting: bool,
}

/// What happened to one decorator line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum LineStatus {
    /// The line applies.
    Applied,
    /// A later line with the same decorator replaced it.
    Overridden { by_line: usize },
    /// Not a decorator this engine knows; kept in the content.
    Unknown,
    /// A known decorator with a bad argument.
    Invalid { problem: ArgProblem },
    /// A `@@@` fallback that was not needed: the line before it applied.
    FallbackUnused,
}

/// One `@@` line of the decorator block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DecoratorLine {
    /// 1-based line number in the content.
    pub line: usize,
    /// Byte range of the line in the content, without its line break.
    pub start: usize,
    pub end: usize,
    pub name: String,
    pub arg: Option<String>,
    /// Written `@@@name`: applies only if the line before failed.
    pub fallback: bool,
    pub status: LineStatus,
}

/// The result of [`parse`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed<'a> {
    pub decorators: Decorators,
    pub lines: Vec<DecoratorLine>,
    /// The injected text: everything from the first non-`@@` line on.
    pub body: &'a str,
    /// Byte offset of the body in the content.
    pub body_start: usize,
    pub diagnostics: Vec<Diagnostic>,
}

/// The argument a decorator takes, for validation and for the editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ArgKind {
    None,
    /// An integer in an inclusive range.
    Int {
        min: i64,
        max: i64,
    },
    Role,
}

/// A decorator this engine knows.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct DecoratorSpec {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub arg: ArgKind,
    pub summary: &'static str,
}

/// Every decorator of SPEC §3, in the order the editor lists them.
pub const KNOWN: &[DecoratorSpec] = &[
    DecoratorSpec {
        name: "probability",
        aliases: &[],
        arg: ArgKind::Int { min: 0, max: 100 },
        summary: "chance, in percent, of being injected once activated",
    },
    DecoratorSpec {
        name: "scan_depth",
        aliases: &[],
        arg: ArgKind::Int { min: 0, max: 100 },
        summary: "replaces the book's scan depth for this entry",
    },
    DecoratorSpec {
        name: "order",
        aliases: &[],
        arg: ArgKind::Int {
            min: i64::MIN,
            max: i64::MAX,
        },
        summary: "replaces the entry's order (placement)",
    },
    DecoratorSpec {
        name: "priority",
        aliases: &[],
        arg: ArgKind::Int {
            min: i64::MIN,
            max: i64::MAX,
        },
        summary: "replaces the entry's priority (budget)",
    },
    DecoratorSpec {
        name: "role",
        aliases: &[],
        arg: ArgKind::Role,
        summary: "replaces the role: system, user or assistant",
    },
    DecoratorSpec {
        name: "activate_only_after",
        aliases: &[],
        arg: ArgKind::Int {
            min: 0,
            max: i64::MAX,
        },
        summary: "fires only once the history holds at least N messages",
    },
    DecoratorSpec {
        name: "activate_only_every",
        aliases: &[],
        arg: ArgKind::Int {
            min: 1,
            max: i64::MAX,
        },
        summary: "fires only when the message count is a multiple of N",
    },
    DecoratorSpec {
        name: "keep",
        aliases: &["keep_activate_after_match"],
        arg: ArgKind::None,
        summary: "once matched, stays active in every later request",
    },
    DecoratorSpec {
        name: "dont_activate_after_match",
        aliases: &[],
        arg: ArgKind::None,
        summary: "once matched, never fires again in later requests",
    },
    DecoratorSpec {
        name: "is_greeting",
        aliases: &[],
        arg: ArgKind::None,
        summary: "fires only while there is no user message yet (an optional greeting number N, as in card v3, is accepted)",
    },
];

/// Finds a known decorator by name or alias.
pub fn lookup(name: &str) -> Option<&'static DecoratorSpec> {
    KNOWN
        .iter()
        .find(|s| s.name == name || s.aliases.contains(&name))
}

/// Parses the decorator block of `content`.
pub fn parse(content: &str) -> Parsed<'_> {
    let mut decorators = Decorators::default();
    let mut lines: Vec<DecoratorLine> = Vec::new();
    let mut diagnostics = Vec::new();
    let mut offset = 0;
    // Whether the decorator line before failed (so a `@@@` fallback applies).
    let mut previous_failed: Option<bool> = None;
    // Canonical name → index in `lines` of the line that currently applies.
    let mut applied_at: Vec<(&'static str, usize)> = Vec::new();

    for raw in content.split_inclusive('\n') {
        let text = raw.trim_end_matches('\n').trim_end_matches('\r');
        if !text.starts_with("@@") {
            break;
        }
        let line_no = lines.len() + 1;
        let fallback = text.starts_with("@@@");
        let rest = &text[if fallback { 3 } else { 2 }..];
        let (name, arg) = match rest.find(char::is_whitespace) {
            Some(i) => (&rest[..i], Some(rest[i..].trim()).filter(|a| !a.is_empty())),
            None => (rest, None),
        };
        let mut line = DecoratorLine {
            line: line_no,
            start: offset,
            end: offset + text.len(),
            name: name.to_string(),
            arg: arg.map(str::to_string),
            fallback,
            status: LineStatus::Applied,
        };
        offset += raw.len();

        if fallback && previous_failed != Some(true) {
            if previous_failed.is_none() {
                diagnostics.push(Diagnostic {
                    line: Some(line_no),
                    severity: Severity::Warning,
                    message: DiagnosticMessage::FallbackWithoutPrevious {
                        name: name.to_string(),
                    },
                });
            }
            line.status = LineStatus::FallbackUnused;
            lines.push(line);
            continue;
        }

        match lookup(name) {
            None => {
                let message = if name.is_empty() {
                    DiagnosticMessage::EmptyDecoratorName
                } else {
                    DiagnosticMessage::UnknownDecorator {
                        name: name.to_string(),
                    }
                };
                diagnostics.push(Diagnostic {
                    line: Some(line_no),
                    severity: Severity::Warning,
                    message,
                });
                line.status = LineStatus::Unknown;
                previous_failed = Some(true);
            }
            Some(spec) => match apply(spec, arg, &mut decorators) {
                Err(problem) => {
                    diagnostics.push(Diagnostic {
                        line: Some(line_no),
                        severity: Severity::Error,
                        message: DiagnosticMessage::BadArgument {
                            decorator: name.to_string(),
                            problem: problem.clone(),
                        },
                    });
                    line.status = LineStatus::Invalid { problem };
                    previous_failed = Some(true);
                }
                Ok(()) => {
                    let idx = lines.len();
                    if let Some(slot) = applied_at.iter_mut().find(|(n, _)| *n == spec.name) {
                        let old = &mut lines[slot.1];
                        diagnostics.push(Diagnostic {
                            line: Some(old.line),
                            severity: Severity::Warning,
                            message: DiagnosticMessage::Repeated {
                                decorator: spec.name.to_string(),
                                winner: line_no,
                            },
                        });
                        old.status = LineStatus::Overridden { by_line: line_no };
                        slot.1 = idx;
                    } else {
                        applied_at.push((spec.name, idx));
                    }
                    previous_failed = Some(false);
                }
            },
        }
        lines.push(line);
    }
    Parsed {
        decorators,
        lines,
        body: &content[offset..],
        body_start: offset,
        diagnostics,
    }
}

fn apply(spec: &DecoratorSpec, arg: Option<&str>, d: &mut Decorators) -> Result<(), ArgProblem> {
    let int = |min: i64, max: i64| -> Result<i64, ArgProblem> {
        let a = arg.ok_or(ArgProblem::MissingNumber)?;
        let value: i64 = a
            .parse()
            .map_err(|_| ArgProblem::NotWholeNumber { arg: a.to_string() })?;
        if value < min || value > max {
            return Err(match (min, max) {
                (min, i64::MAX) => ArgProblem::Below { value, min },
                _ => ArgProblem::OutOfRange { value, min, max },
            });
        }
        Ok(value)
    };
    let flag = || match arg {
        None => Ok(true),
        Some(a) => Err(ArgProblem::UnexpectedArgument { arg: a.to_string() }),
    };
    match (spec.name, spec.arg) {
        ("probability", ArgKind::Int { min, max }) => d.probability = Some(int(min, max)? as u8),
        ("scan_depth", ArgKind::Int { min, max }) => d.scan_depth = Some(int(min, max)? as u32),
        ("order", ArgKind::Int { min, max }) => d.order = Some(int(min, max)?),
        ("priority", ArgKind::Int { min, max }) => d.priority = Some(int(min, max)?),
        ("activate_only_after", ArgKind::Int { min, max }) => {
            d.activate_only_after = Some(int(min, max)? as u64)
        }
        ("activate_only_every", ArgKind::Int { min, max }) => {
            d.activate_only_every = Some(int(min, max)? as u64)
        }
        ("role", _) => {
            let a = arg.ok_or(ArgProblem::MissingRole)?;
            d.role =
                Some(Role::parse(a).ok_or_else(|| ArgProblem::NotRole { arg: a.to_string() })?);
        }
        ("keep", _) => d.keep = flag()?,
        ("dont_activate_after_match", _) => d.dont_activate_after_match = flag()?,
        // Card v3's `@@is_greeting N` names a greeting (0 the first
        // message, k the alternate greeting k − 1). The guide's preview has
        // one greeting, the chat's opening, so N is accepted (a whole
        // number, 0 or more), kept in the content for the formats that
        // read it, and the gate is the same as without it.
        ("is_greeting", _) => {
            if arg.is_some() {
                int(0, i64::MAX)?;
            }
            d.is_greeting = true;
        }
        // `every_known_decorator_is_applied` applies each row of `KNOWN`, so
        // a row without an arm here fails that test before it ships.
        (name, _) => unreachable!("decorator @@{name} is in KNOWN but not applied"),
    }
    Ok(())
}

/// Sets decorator `name` to `arg` in `content` (the editor's structured
/// panel): replaces the line that applies, or appends one to the block.
/// `None` for `arg` on a flag decorator writes the bare `@@name`.
pub fn set(content: &str, name: &str, arg: Option<&str>) -> String {
    let parsed = parse(content);
    let canonical = lookup(name).map(|s| s.name).unwrap_or(name);
    let new_line = match arg {
        Some(a) => format!("@@{canonical} {a}"),
        None => format!("@@{canonical}"),
    };
    let target =
        parsed.lines.iter().rev().find(|l| {
            !l.fallback && lookup(&l.name).map(|s| s.name).unwrap_or(&l.name) == canonical
        });
    match target {
        Some(l) => format!("{}{}{}", &content[..l.start], new_line, &content[l.end..]),
        None => {
            let (head, body) = content.split_at(parsed.body_start);
            let sep = if head.is_empty() || head.ends_with('\n') {
                ""
            } else {
                "\n"
            };
            format!("{head}{sep}{new_line}\n{body}")
        }
    }
}

/// Removes every line of decorator `name` (and fallbacks that follow it)
/// from `content`.
pub fn remove(content: &str, name: &str) -> String {
    let parsed = parse(content);
    let canonical = lookup(name).map(|s| s.name).unwrap_or(name);
    let mut out = String::with_capacity(content.len());
    let mut cursor = 0;
    let mut dropping = false;
    for l in &parsed.lines {
        let is_target = lookup(&l.name).map(|s| s.name).unwrap_or(&l.name) == canonical;
        let drop = if l.fallback { dropping } else { is_target };
        dropping = drop && (!l.fallback || dropping);
        if drop {
            out.push_str(&content[cursor..l.start]);
            // Skip the line break that ended this line.
            if content[l.end..].starts_with("\r\n") {
                cursor = l.end + 2;
            } else if content[l.end..].starts_with('\n') {
                cursor = l.end + 1;
            } else {
                cursor = l.end;
            }
        }
    }
    out.push_str(&content[cursor..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(content: &str, expected: Decorators, body: &str, diag_lines: &[usize]) {
        let p = parse(content);
        assert_eq!(p.decorators, expected, "decorators of {content:?}");
        assert_eq!(p.body, body, "body of {content:?}");
        let lines: Vec<usize> = p.diagnostics.iter().filter_map(|d| d.line).collect();
        assert_eq!(
            lines, diag_lines,
            "diagnostics of {content:?}: {:?}",
            p.diagnostics
        );
    }

    fn d() -> Decorators {
        Decorators::default()
    }

    #[test]
    fn every_decorator_of_the_table() {
        check(
            "@@probability 50\nx",
            Decorators {
                probability: Some(50),
                ..d()
            },
            "x",
            &[],
        );
        check(
            "@@scan_depth 8\nx",
            Decorators {
                scan_depth: Some(8),
                ..d()
            },
            "x",
            &[],
        );
        check(
            "@@order -3\nx",
            Decorators {
                order: Some(-3),
                ..d()
            },
            "x",
            &[],
        );
        check(
            "@@priority 900\nx",
            Decorators {
                priority: Some(900),
                ..d()
            },
            "x",
            &[],
        );
        check(
            "@@role assistant\nx",
            Decorators {
                role: Some(Role::Assistant),
                ..d()
            },
            "x",
            &[],
        );
        check(
            "@@activate_only_after 0\nx",
            Decorators {
                activate_only_after: Some(0),
                ..d()
            },
            "x",
            &[],
        );
        check(
            "@@activate_only_every 3\nx",
            Decorators {
                activate_only_every: Some(3),
                ..d()
            },
            "x",
            &[],
        );
        check("@@keep\nx", Decorators { keep: true, ..d() }, "x", &[]);
        check(
            "@@keep_activate_after_match\nx",
            Decorators { keep: true, ..d() },
            "x",
            &[],
        );
        check(
            "@@dont_activate_after_match\nx",
            Decorators {
                dont_activate_after_match: true,
                ..d()
            },
            "x",
            &[],
        );
        check(
            "@@is_greeting\nx",
            Decorators {
                is_greeting: true,
                ..d()
            },
            "x",
            &[],
        );
    }

    #[test]
    fn every_known_decorator_is_applied() {
        // `apply` has an arm per row of `KNOWN`; a missing arm would panic.
        for spec in KNOWN {
            let arg = match spec.arg {
                ArgKind::None => "",
                ArgKind::Int { .. } => " 1",
                ArgKind::Role => " user",
            };
            let content = format!("@@{}{arg}\nx", spec.name);
            let p = parse(&content);
            assert!(
                p.diagnostics.is_empty(),
                "@@{}: {:?}",
                spec.name,
                p.diagnostics
            );
        }
    }

    #[test]
    fn bad_arguments_are_diagnostics() {
        check("@@probability 101\nx", d(), "x", &[1]);
        check("@@probability -1\nx", d(), "x", &[1]);
        check("@@probability\nx", d(), "x", &[1]);
        check("@@probability half\nx", d(), "x", &[1]);
        check("@@scan_depth 101\nx", d(), "x", &[1]);
        check("@@role narrator\nx", d(), "x", &[1]);
        check("@@activate_only_every 0\nx", d(), "x", &[1]);
        check("@@activate_only_after -2\nx", d(), "x", &[1]);
        check("@@keep now\nx", d(), "x", &[1]);
    }

    #[test]
    fn unknown_decorators_are_kept_out_of_the_body() {
        let p = parse("@@depth 0\n@@@keep\nbody");
        assert_eq!(p.lines[0].status, LineStatus::Unknown);
        assert!(
            p.decorators.keep,
            "the fallback applies after an unknown line"
        );
        assert_eq!(p.body, "body");
    }

    #[test]
    fn fallbacks_apply_only_after_a_failed_line() {
        check(
            "@@probability 50\n@@@probability 10\nx",
            Decorators {
                probability: Some(50),
                ..d()
            },
            "x",
            &[],
        );
        check(
            "@@probability 500\n@@@probability 10\nx",
            Decorators {
                probability: Some(10),
                ..d()
            },
            "x",
            &[1],
        );
        check(
            "@@bogus\n@@@bogus2\n@@@order 5\nx",
            Decorators {
                order: Some(5),
                ..d()
            },
            "x",
            &[1, 2],
        );
        check("@@@order 5\nx", d(), "x", &[1]);
    }

    #[test]
    fn repeated_decorator_last_wins() {
        let p = parse("@@order 1\n@@order 2\nx");
        assert_eq!(p.decorators.order, Some(2));
        assert_eq!(p.lines[0].status, LineStatus::Overridden { by_line: 2 });
        assert_eq!(p.diagnostics.len(), 1);
    }

    #[test]
    fn the_first_non_decorator_line_ends_the_block() {
        check(
            "@@keep\n\n@@order 3\nx",
            Decorators { keep: true, ..d() },
            "\n@@order 3\nx",
            &[],
        );
        check(" @@keep\nx", d(), " @@keep\nx", &[]);
        check("@@keep", Decorators { keep: true, ..d() }, "", &[]);
        check(
            "@@keep\r\nbody\r\n",
            Decorators { keep: true, ..d() },
            "body\r\n",
            &[],
        );
        check("", d(), "", &[]);
    }

    #[test]
    fn set_and_remove_keep_the_rest() {
        assert_eq!(
            set("body", "probability", Some("40")),
            "@@probability 40\nbody"
        );
        assert_eq!(
            set("@@keep\nbody", "probability", Some("40")),
            "@@keep\n@@probability 40\nbody"
        );
        assert_eq!(
            set("@@probability 10\nbody", "probability", Some("40")),
            "@@probability 40\nbody"
        );
        assert_eq!(
            set("@@keep_activate_after_match\nb", "keep", None),
            "@@keep\nb"
        );
        assert_eq!(set("@@keep", "order", Some("2")), "@@keep\n@@order 2\n");
        assert_eq!(remove("@@keep\n@@order 2\nbody", "keep"), "@@order 2\nbody");
        assert_eq!(
            remove("@@x\n@@order 2\n@@@order 3\nbody", "order"),
            "@@x\nbody"
        );
        assert_eq!(remove("@@order 2", "order"), "");
        assert_eq!(remove("body", "order"), "body");
    }
}
