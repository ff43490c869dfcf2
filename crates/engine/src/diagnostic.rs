//! Problems shown on an entry, as data: a code with its parameters, never a
//! ready-made sentence.
//!
//! The decorator parser ([`crate::decorators::parse`]) and the key lints of
//! activation produce [`Diagnostic`]s. Each says what is wrong as a
//! [`DiagnosticMessage`] (serialized with a `code` tag), so every front-end
//! words it in its own language: the desktop app through its message
//! catalog, the CLI through the English [`Display`](std::fmt::Display) impls
//! here, which are the one place the engine's English lives.
//!
//! ```
//! use lorebook_engine::decorators::parse;
//! use lorebook_engine::diagnostic::DiagnosticMessage;
//! let d = &parse("@@bogus\nBody").diagnostics[0];
//! assert_eq!(d.message, DiagnosticMessage::UnknownDecorator { name: "bogus".into() });
//! assert_eq!(d.message.to_string(), "unknown decorator @@bogus; kept in the content, no effect");
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

/// How serious a diagnostic is, least serious first, so the worst of a list
/// is its maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth knowing, but the entry works as its author most likely meant:
    /// a condition that is normal in the book's source format and has no
    /// effect under the rules the preview applies.
    Hint,
    /// Something that changes or prevents what the entry does.
    Warning,
    /// Something that cannot work as written.
    Error,
}

impl Severity {
    /// Whether a diagnostic of this severity is a problem to fix, as
    /// opposed to a hint.
    pub fn is_problem(self) -> bool {
        self >= Severity::Warning
    }
}

/// A problem shown on an entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Diagnostic {
    /// 1-based content line, when the problem is on one.
    pub line: Option<usize>,
    pub severity: Severity,
    pub message: DiagnosticMessage,
}

/// What a diagnostic says: its code (the serde tag) and parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "code")]
pub enum DiagnosticMessage {
    /// A `@@@name` fallback that opens the block, so it replaces nothing.
    FallbackWithoutPrevious { name: String },
    /// A bare `@@` line.
    EmptyDecoratorName,
    /// A `@@name` this engine does not know.
    UnknownDecorator { name: String },
    /// Under RisuAI's rules: a decorator RisuAI parses and ignores.
    NoEffectInRisu { name: String },
    /// A known decorator, as written, with an argument it refuses.
    BadArgument {
        decorator: String,
        problem: ArgProblem,
    },
    /// The decorator applies on more than one line; `winner` (1-based) is
    /// the line that applies.
    Repeated { decorator: String, winner: usize },
    /// A regex key that does not compile. `error` is the regex library's
    /// own explanation, which has no code to translate.
    InvalidRegex {
        key: String,
        secondary: bool,
        error: String,
    },
    /// A regex key whose pattern is past a cap on its text
    /// (`matcher::regex_too_large`): `limit` says which, `max` its value.
    /// It is never compiled and never matches.
    RegexTooLarge {
        key: String,
        secondary: bool,
        limit: PatternLimit,
        max: u32,
    },
    /// A selective entry whose secondary keys are all empty. SillyTavern
    /// saves every plain entry this way, and the entry behaves as not
    /// selective, so it is only a [`Severity::Hint`].
    SelectiveWithoutSecondary,
    /// An enabled, non-constant entry without a usable primary key.
    NoKeys,
}

/// Which cap on a regex key's pattern text it is past
/// ([`DiagnosticMessage::RegexTooLarge`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum PatternLimit {
    /// Bytes of the pattern.
    Length,
    /// `|` in it.
    Alternatives,
    /// `(` in it.
    Groups,
    /// Groups inside groups.
    Nesting,
}

impl fmt::Display for PatternLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PatternLimit::Length => "bytes",
            PatternLimit::Alternatives => "alternatives (|)",
            PatternLimit::Groups => "groups",
            PatternLimit::Nesting => "levels of nested groups",
        })
    }
}

/// Why a decorator refused its argument.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "code")]
pub enum ArgProblem {
    /// A numeric decorator written without its number.
    MissingNumber,
    NotWholeNumber {
        arg: String,
    },
    /// Below the minimum of a range without a maximum.
    Below {
        value: i64,
        min: i64,
    },
    OutOfRange {
        value: i64,
        min: i64,
        max: i64,
    },
    /// `@@role` written without its role.
    MissingRole,
    NotRole {
        arg: String,
    },
    /// A flag decorator written with an argument.
    UnexpectedArgument {
        arg: String,
    },
    /// RisuAI's `@@position` written without its position (RisuAI's prompt
    /// build then fails).
    MissingPosition,
    /// A `@@position` RisuAI does not know (it skips the line).
    NotPosition {
        arg: String,
    },
    /// A RisuAI key decorator (`@@additional_keys`, `@@exclude_keys`,
    /// `@@exclude_keys_all`) written without keys.
    MissingKeys,
}

impl fmt::Display for DiagnosticMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::FallbackWithoutPrevious { name } => write!(
                f,
                "fallback @@@{name} has no decorator before it to replace; ignored"
            ),
            Self::EmptyDecoratorName => f.write_str("empty decorator name"),
            Self::NoEffectInRisu { name } => {
                write!(f, "@@{name}: RisuAI reads it and ignores it; no effect")
            }
            Self::UnknownDecorator { name } => write!(
                f,
                "unknown decorator @@{name}; kept in the content, no effect"
            ),
            Self::BadArgument { decorator, problem } => write!(f, "@@{decorator}: {problem}"),
            Self::Repeated { decorator, winner } => {
                write!(f, "@@{decorator} is repeated; line {winner} wins")
            }
            Self::InvalidRegex {
                key,
                secondary,
                error,
            } => {
                let which = if *secondary { "secondary key" } else { "key" };
                write!(f, "{which} \"{key}\" is an invalid regex: {error}")
            }
            Self::RegexTooLarge {
                key,
                secondary,
                limit,
                max,
            } => {
                let which = if *secondary { "secondary key" } else { "key" };
                let shown: String = key.chars().take(40).collect();
                let more = if shown.len() < key.len() { "…" } else { "" };
                write!(
                    f,
                    "{which} \"{shown}{more}\" is too large a regex: past the limit of {max} {limit}; it never matches"
                )
            }
            Self::SelectiveWithoutSecondary => {
                f.write_str("selective without secondary keys: behaves as not selective")
            }
            Self::NoKeys => f.write_str(
                "no keys: this entry can never activate (make it constant or add a key)",
            ),
        }
    }
}

impl fmt::Display for ArgProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingNumber => f.write_str("needs a number"),
            Self::NotWholeNumber { arg } => write!(f, "\"{arg}\" is not a whole number"),
            Self::Below { value, min } => write!(f, "{value} is below {min}"),
            Self::OutOfRange { value, min, max } => write!(f, "{value} is outside {min}–{max}"),
            Self::MissingRole => f.write_str("needs system, user or assistant"),
            Self::NotRole { arg } => write!(f, "\"{arg}\" is not system, user or assistant"),
            Self::UnexpectedArgument { arg } => write!(f, "takes no argument, found \"{arg}\""),
            Self::MissingPosition => {
                f.write_str("needs a position; without one RisuAI's prompt build fails")
            }
            Self::NotPosition { arg } => write!(
                f,
                "\"{arg}\" is not pt_<name>, before_desc, after_desc, personality or scenario"
            ),
            Self::MissingKeys => f.write_str("needs keys, separated by commas"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decorators::parse;
    use serde_json::json;

    /// The messages `parse` gives `content`, as (line, code and params).
    fn check(content: &str, expected: &[(Option<usize>, DiagnosticMessage)]) {
        let got: Vec<_> = parse(content)
            .diagnostics
            .into_iter()
            .map(|d| (d.line, d.message))
            .collect();
        assert_eq!(got, expected, "diagnostics of {content:?}");
    }

    fn bad(decorator: &str, problem: ArgProblem) -> DiagnosticMessage {
        DiagnosticMessage::BadArgument {
            decorator: decorator.into(),
            problem,
        }
    }

    #[test]
    fn the_parser_reports_codes_with_parameters() {
        use ArgProblem::*;
        check(
            "@@@keep\n@@\n@@bogus\nx",
            &[
                (
                    Some(1),
                    DiagnosticMessage::FallbackWithoutPrevious {
                        name: "keep".into(),
                    },
                ),
                (Some(2), DiagnosticMessage::EmptyDecoratorName),
                (
                    Some(3),
                    DiagnosticMessage::UnknownDecorator {
                        name: "bogus".into(),
                    },
                ),
            ],
        );
        check(
            "@@probability\nx",
            &[(Some(1), bad("probability", MissingNumber))],
        );
        check(
            "@@order soon\nx",
            &[(Some(1), bad("order", NotWholeNumber { arg: "soon".into() }))],
        );
        check(
            "@@activate_only_every 0\nx",
            &[(
                Some(1),
                bad("activate_only_every", Below { value: 0, min: 1 }),
            )],
        );
        check(
            "@@probability 101\nx",
            &[(
                Some(1),
                bad(
                    "probability",
                    OutOfRange {
                        value: 101,
                        min: 0,
                        max: 100,
                    },
                ),
            )],
        );
        check("@@role\nx", &[(Some(1), bad("role", MissingRole))]);
        check(
            "@@role narrator\nx",
            &[(
                Some(1),
                bad(
                    "role",
                    NotRole {
                        arg: "narrator".into(),
                    },
                ),
            )],
        );
        check(
            "@@keep_activate_after_match now\nx",
            &[(
                Some(1),
                bad(
                    "keep_activate_after_match",
                    UnexpectedArgument { arg: "now".into() },
                ),
            )],
        );
        check(
            "@@order 1\n@@order 2\nx",
            &[(
                Some(1),
                DiagnosticMessage::Repeated {
                    decorator: "order".into(),
                    winner: 2,
                },
            )],
        );
    }

    #[test]
    fn english_is_the_cli_wording() {
        let cases = [
            (
                "@@@keep",
                "fallback @@@keep has no decorator before it to replace; ignored",
            ),
            ("@@", "empty decorator name"),
            (
                "@@depth 4",
                "unknown decorator @@depth; kept in the content, no effect",
            ),
            ("@@probability", "@@probability: needs a number"),
            ("@@order soon", "@@order: \"soon\" is not a whole number"),
            (
                "@@activate_only_after -2",
                "@@activate_only_after: -2 is below 0",
            ),
            ("@@scan_depth 101", "@@scan_depth: 101 is outside 0–100"),
            ("@@role", "@@role: needs system, user or assistant"),
            (
                "@@role narrator",
                "@@role: \"narrator\" is not system, user or assistant",
            ),
            ("@@keep now", "@@keep: takes no argument, found \"now\""),
            ("@@order 1\n@@order 2", "@@order is repeated; line 2 wins"),
        ];
        for (content, english) in cases {
            let p = parse(content);
            assert_eq!(p.diagnostics[0].message.to_string(), english, "{content:?}");
        }
        let regex = |secondary| DiagnosticMessage::InvalidRegex {
            key: "/(a/".into(),
            secondary,
            error: "unclosed group".into(),
        };
        assert_eq!(
            regex(false).to_string(),
            "key \"/(a/\" is an invalid regex: unclosed group"
        );
        assert_eq!(
            regex(true).to_string(),
            "secondary key \"/(a/\" is an invalid regex: unclosed group"
        );
        assert_eq!(
            DiagnosticMessage::SelectiveWithoutSecondary.to_string(),
            "selective without secondary keys: behaves as not selective"
        );
        assert_eq!(
            DiagnosticMessage::NoKeys.to_string(),
            "no keys: this entry can never activate (make it constant or add a key)"
        );
    }

    #[test]
    fn the_worst_severity_is_the_maximum() {
        assert!(Severity::Hint < Severity::Warning && Severity::Warning < Severity::Error);
        assert!(!Severity::Hint.is_problem());
        assert!(Severity::Warning.is_problem() && Severity::Error.is_problem());
        assert_eq!(serde_json::to_value(Severity::Hint).unwrap(), json!("hint"));
    }

    #[test]
    fn codes_travel_as_snake_case_tags() {
        let d = &parse("@@probability 500\nx").diagnostics[0];
        assert_eq!(
            serde_json::to_value(d).unwrap(),
            json!({
                "line": 1,
                "severity": "error",
                "message": {
                    "code": "bad_argument",
                    "decorator": "probability",
                    "problem": {"code": "out_of_range", "value": 500, "min": 0, "max": 100},
                },
            })
        );
        assert_eq!(
            serde_json::to_value(DiagnosticMessage::NoKeys).unwrap(),
            json!({"code": "no_keys"})
        );
        let back: Diagnostic = serde_json::from_value(serde_json::to_value(d).unwrap()).unwrap();
        assert_eq!(&back, d);
    }
}
