//! The decorators RisuAI 460ecae's lorebook code reads, for the editor's
//! decorator panel and the diagnostics under RisuAI's rules: each with the
//! argument it takes, whether it changes anything, and its meaning
//! (docs/risu-rules.md, "The decorators loadLoreBookV3Prompt recognises").

use crate::diagnostic::{Diagnostic, DiagnosticMessage, Severity};

/// What a RisuAI decorator takes after its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RisuArg {
    None,
    /// A whole number, read as JavaScript's `parseInt` reads it.
    Int,
    /// Comma-separated keys.
    Keys,
    /// `system`, `user` or `assistant`.
    Role,
    /// `pt_<name>`, `before_desc`, `after_desc`, `personality`, `scenario`.
    Position,
    /// Free text (words joined by one space).
    Text,
}

/// One decorator RisuAI reads.
#[derive(Debug, Clone, Copy)]
pub struct RisuDecorator {
    pub name: &'static str,
    pub arg: RisuArg,
    /// Whether it changes anything at 460ecae (some are parsed and
    /// ignored).
    pub effect: bool,
    /// Its meaning under RisuAI's rules, in English (the UI has its own
    /// words).
    pub summary: &'static str,
}

const fn d(name: &'static str, arg: RisuArg, summary: &'static str) -> RisuDecorator {
    RisuDecorator {
        name,
        arg,
        effect: true,
        summary,
    }
}

/// Every decorator RisuAI 460ecae's lorebook code reads, in the order of
/// the panel: placement, activation, keys, recursion, budget, injection,
/// then those it parses and ignores.
pub const RISU_DECORATORS: &[RisuDecorator] = &[
    d("depth", RisuArg::Int, "placed N messages from the start of the chat"),
    d(
        "reverse_depth",
        RisuArg::Int,
        "placed N messages from the end of the chat",
    ),
    d("end", RisuArg::None, "placed after the whole chat (depth 0)"),
    d(
        "position",
        RisuArg::Position,
        "placed before or after the description, in the personality or scenario, or at a template slot pt_<name>",
    ),
    d("role", RisuArg::Role, "the role of the placed message"),
    d(
        "scan_depth",
        RisuArg::Int,
        "how many of the newest messages this entry's keys are searched in",
    ),
    d(
        "probability",
        RisuArg::Int,
        "chance in percent of activating, rolled on each pass",
    ),
    d(
        "activate",
        RisuArg::None,
        "always active, whatever its keys say",
    ),
    d("dont_activate", RisuArg::None, "never active"),
    d(
        "keep_activate_after_match",
        RisuArg::None,
        "once active in a chat, active for the rest of it",
    ),
    d(
        "dont_activate_after_match",
        RisuArg::None,
        "once active in a chat, never again in it",
    ),
    d(
        "activate_only_after",
        RisuArg::Int,
        "inactive until the chat has N − 1 messages",
    ),
    d(
        "activate_only_every",
        RisuArg::Int,
        "active only when the number of messages + 1 is a multiple of N",
    ),
    d(
        "is_greeting",
        RisuArg::Int,
        "active only with greeting N (0 is the first message, k the alternate greeting k − 1)",
    ),
    d(
        "additional_keys",
        RisuArg::Keys,
        "one of these keys must also be found",
    ),
    d(
        "exclude_keys",
        RisuArg::Keys,
        "inactive when any of these keys is found",
    ),
    d(
        "exclude_keys_all",
        RisuArg::Keys,
        "inactive when every one of these keys is in every scanned text",
    ),
    d(
        "match_full_word",
        RisuArg::None,
        "keys match whole words only",
    ),
    d(
        "match_partial_word",
        RisuArg::None,
        "keys also match inside words",
    ),
    d("recursive", RisuArg::None, "its text is searched by other entries"),
    d(
        "unrecursive",
        RisuArg::None,
        "its text is not searched by other entries",
    ),
    d(
        "no_recursive_search",
        RisuArg::None,
        "its keys are not searched in other entries' texts",
    ),
    d(
        "priority",
        RisuArg::Int,
        "its rank for the budget (higher first), instead of its order",
    ),
    d(
        "ignore_on_max_context",
        RisuArg::None,
        "ranked last for the budget (priority −1000)",
    ),
    d(
        "inject_lore",
        RisuArg::Text,
        "its text goes into the active entry of that name instead",
    ),
    d(
        "inject_at",
        RisuArg::Text,
        "its text goes into that part of the prompt template",
    ),
    d(
        "inject_replace",
        RisuArg::Text,
        "the injection replaces this text",
    ),
    d("inject_prepend", RisuArg::None, "the injection is prepended"),
    RisuDecorator {
        name: "disable_ui_prompt",
        arg: RisuArg::Text,
        effect: false,
        summary: "recorded by RisuAI and never read: no effect",
    },
    RisuDecorator {
        name: "instruct_depth",
        arg: RisuArg::Text,
        effect: false,
        summary: "parsed and ignored (RisuAI has no instruct mode): no effect",
    },
    RisuDecorator {
        name: "reverse_instruct_depth",
        arg: RisuArg::Text,
        effect: false,
        summary: "parsed and ignored (RisuAI has no instruct mode): no effect",
    },
    RisuDecorator {
        name: "instruct_scan_depth",
        arg: RisuArg::Text,
        effect: false,
        summary: "parsed and ignored (RisuAI has no instruct mode): no effect",
    },
    RisuDecorator {
        name: "is_user_icon",
        arg: RisuArg::Text,
        effect: false,
        summary: "parsed and ignored (unfinished in RisuAI): no effect",
    },
];

/// The decorator `name` as RisuAI reads it (exact, lower case).
pub fn risu_decorator(name: &str) -> Option<&'static RisuDecorator> {
    RISU_DECORATORS.iter().find(|d| d.name == name)
}

/// The guide's diagnostics of an entry as RisuAI's rules see them: a
/// decorator the guide does not know but RisuAI reads is no problem, and
/// one RisuAI parses and ignores is said to have no effect (a hint).
/// `None` when nothing changes, so the common case allocates nothing.
pub fn risu_diagnostics(diagnostics: &[Diagnostic]) -> Option<Vec<Diagnostic>> {
    let risu_name = |d: &Diagnostic| match &d.message {
        DiagnosticMessage::UnknownDecorator { name } => risu_decorator(name),
        _ => None,
    };
    if !diagnostics.iter().any(|d| risu_name(d).is_some()) {
        return None;
    }
    let mut out = Vec::with_capacity(diagnostics.len());
    for d in diagnostics {
        match risu_name(d) {
            Some(k) if k.effect => {}
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
        let parsed =
            crate::decorators::parse("@@exclude_keys storm\n@@is_user_icon x\n@@bogus\nBody");
        let got = risu_diagnostics(&parsed.diagnostics).expect("something changes");
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
        assert!(risu_diagnostics(&crate::decorators::parse("@@bogus\nB").diagnostics).is_none());
    }
}
