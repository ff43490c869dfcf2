//! RisuAI 460ecae's decorator names, once: what each is to the
//! activation's handler ([`Name`]), the argument it takes, whether it
//! changes anything and its meaning (the editor's panel and the
//! diagnostics under RisuAI's rules read the same table).

/// The decorators `loadLoreBookV3Prompt`'s handler acts on, resolved once
/// when a line is parsed: the handler then dispatches on this instead of
/// comparing the name with each decorator's on every evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Name {
    End,
    ActivateOnlyAfter,
    ActivateOnlyEvery,
    KeepActivateAfterMatch,
    DontActivateAfterMatch,
    Depth,
    ReverseDepth,
    Role,
    ScanDepth,
    IsGreeting,
    Position,
    InjectLore,
    InjectAt,
    InjectReplace,
    InjectPrepend,
    IgnoreOnMaxContext,
    AdditionalKeys,
    ExcludeKeys,
    ExcludeKeysAll,
    MatchFullWord,
    MatchPartialWord,
    Activate,
    DontActivate,
    DisableUiPrompt,
    Probability,
    Priority,
    Recursive,
    Unrecursive,
    NoRecursiveSearch,
    /// Any other name: no effect, a failure.
    Other,
}

impl Name {
    /// The decorator `name` (exact, case-sensitive) names: its row of
    /// [`RISU_DECORATORS`], else [`Name::Other`].
    pub fn of(name: &str) -> Name {
        risu_decorator(name).map_or(Name::Other, |d| d.kind)
    }
}

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
    /// What the activation's handler does with it ([`Name::Other`]: parsed
    /// and ignored).
    pub kind: Name,
    pub arg: RisuArg,
    /// Whether it changes anything at 460ecae (some are parsed and
    /// ignored).
    pub effect: bool,
    /// Its meaning under RisuAI's rules, in English (the UI has its own
    /// words).
    pub summary: &'static str,
}

const fn d(name: &'static str, kind: Name, arg: RisuArg, summary: &'static str) -> RisuDecorator {
    RisuDecorator {
        name,
        kind,
        arg,
        effect: true,
        summary,
    }
}

/// Every decorator RisuAI 460ecae's lorebook code reads, in the order of
/// the panel: placement, activation, keys, recursion, budget, injection,
/// then those it parses and ignores.
pub const RISU_DECORATORS: &[RisuDecorator] = &[
    d("depth", Name::Depth, RisuArg::Int, "placed N messages from the start of the chat"),
    d(
        "reverse_depth", Name::ReverseDepth,
        RisuArg::Int,
        "placed N messages from the end of the chat",
    ),
    d("end", Name::End, RisuArg::None, "placed after the whole chat (depth 0)"),
    d(
        "position", Name::Position,
        RisuArg::Position,
        "placed before or after the description, in the personality or scenario, or at a template slot pt_<name>",
    ),
    d("role", Name::Role, RisuArg::Role, "the role of the placed message"),
    d(
        "scan_depth", Name::ScanDepth,
        RisuArg::Int,
        "how many of the newest messages this entry's keys are searched in",
    ),
    d(
        "probability", Name::Probability,
        RisuArg::Int,
        "chance in percent of activating, rolled on each pass",
    ),
    d(
        "activate", Name::Activate,
        RisuArg::None,
        "always active, whatever its keys say",
    ),
    d("dont_activate", Name::DontActivate, RisuArg::None, "never active"),
    d(
        "keep_activate_after_match", Name::KeepActivateAfterMatch,
        RisuArg::None,
        "once active in a chat, active for the rest of it",
    ),
    d(
        "dont_activate_after_match", Name::DontActivateAfterMatch,
        RisuArg::None,
        "once active in a chat, never again in it",
    ),
    d(
        "activate_only_after", Name::ActivateOnlyAfter,
        RisuArg::Int,
        "inactive until the chat has N − 1 messages",
    ),
    d(
        "activate_only_every", Name::ActivateOnlyEvery,
        RisuArg::Int,
        "active only when the number of messages + 1 is a multiple of N",
    ),
    d(
        "is_greeting", Name::IsGreeting,
        RisuArg::Int,
        "active only with greeting N (0 is the first message, k the alternate greeting k − 1)",
    ),
    d(
        "additional_keys", Name::AdditionalKeys,
        RisuArg::Keys,
        "one of these keys must also be found",
    ),
    d(
        "exclude_keys", Name::ExcludeKeys,
        RisuArg::Keys,
        "inactive when any of these keys is found",
    ),
    d(
        "exclude_keys_all", Name::ExcludeKeysAll,
        RisuArg::Keys,
        "inactive when every one of these keys is in every scanned text",
    ),
    d(
        "match_full_word", Name::MatchFullWord,
        RisuArg::None,
        "keys match whole words only",
    ),
    d(
        "match_partial_word", Name::MatchPartialWord,
        RisuArg::None,
        "keys also match inside words",
    ),
    d("recursive", Name::Recursive, RisuArg::None, "its text is searched by other entries"),
    d(
        "unrecursive", Name::Unrecursive,
        RisuArg::None,
        "its text is not searched by other entries",
    ),
    d(
        "no_recursive_search", Name::NoRecursiveSearch,
        RisuArg::None,
        "its keys are not searched in other entries' texts",
    ),
    d(
        "priority", Name::Priority,
        RisuArg::Int,
        "its rank for the budget (higher first), instead of its order",
    ),
    d(
        "ignore_on_max_context", Name::IgnoreOnMaxContext,
        RisuArg::None,
        "ranked last for the budget (priority −1000)",
    ),
    d(
        "inject_lore", Name::InjectLore,
        RisuArg::Text,
        "its text goes into the active entry of that name instead",
    ),
    d(
        "inject_at", Name::InjectAt,
        RisuArg::Text,
        "its text goes into that part of the prompt template",
    ),
    d(
        "inject_replace", Name::InjectReplace,
        RisuArg::Text,
        "the injection replaces this text",
    ),
    d("inject_prepend", Name::InjectPrepend, RisuArg::None, "the injection is prepended"),
    RisuDecorator {
        name: "disable_ui_prompt",
        kind: Name::DisableUiPrompt,
        arg: RisuArg::Text,
        effect: false,
        summary: "recorded by RisuAI and never read: no effect",
    },
    RisuDecorator {
        name: "instruct_depth",
        kind: Name::Other,
        arg: RisuArg::Text,
        effect: false,
        summary: "parsed and ignored (RisuAI has no instruct mode): no effect",
    },
    RisuDecorator {
        name: "reverse_instruct_depth",
        kind: Name::Other,
        arg: RisuArg::Text,
        effect: false,
        summary: "parsed and ignored (RisuAI has no instruct mode): no effect",
    },
    RisuDecorator {
        name: "instruct_scan_depth",
        kind: Name::Other,
        arg: RisuArg::Text,
        effect: false,
        summary: "parsed and ignored (RisuAI has no instruct mode): no effect",
    },
    RisuDecorator {
        name: "is_user_icon",
        kind: Name::Other,
        arg: RisuArg::Text,
        effect: false,
        summary: "parsed and ignored (unfinished in RisuAI): no effect",
    },
];

/// The decorator `name` as RisuAI reads it (exact, lower case).
pub fn risu_decorator(name: &str) -> Option<&'static RisuDecorator> {
    RISU_DECORATORS.iter().find(|d| d.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The handler's names come from the table alone: each decorator it acts
    // on is one row, and every other row is parsed and ignored.
    #[test]
    fn each_handled_decorator_is_one_row() {
        let kinds: Vec<Name> = RISU_DECORATORS
            .iter()
            .map(|d| d.kind)
            .filter(|k| *k != Name::Other)
            .collect();
        for (i, k) in kinds.iter().enumerate() {
            assert!(!kinds[i + 1..].contains(k), "{k:?} twice");
        }
        assert_eq!(
            kinds.len(),
            29,
            "every decorator loadLoreBookV3Prompt acts on"
        );
        assert_eq!(Name::of("exclude_keys_all"), Name::ExcludeKeysAll);
        assert_eq!(Name::of("is_user_icon"), Name::Other);
        assert_eq!(Name::of("order"), Name::Other, "the guide's, not RisuAI's");
        assert_eq!(Name::of("Depth"), Name::Other, "names are exact");
    }
}
