//! The English of each lint finding: the CLI's wording (the app words the
//! codes through its catalog).

use std::fmt;

use super::problem::{
    CommonReason, Contradiction, DuplicateEffect, EntryRef, Finding, NeverReason, NoEffectReason,
};

/// `[0:1], [0:2] and 3 more`.
fn list(f: &mut fmt::Formatter<'_>, others: &[EntryRef], more: usize) -> fmt::Result {
    for (i, o) in others.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{o}")?;
    }
    if more > 0 {
        write!(f, " and {more} more")?;
    }
    Ok(())
}

/// Says a budget was assumed, not given.
fn assumed_note(f: &mut fmt::Formatter<'_>, assumed: bool) -> fmt::Result {
    if assumed {
        f.write_str(" (an assumed budget: give the front-end's settings or context size to check against yours)")
    } else {
        Ok(())
    }
}

fn chain(f: &mut fmt::Formatter<'_>, entries: &[EntryRef]) -> fmt::Result {
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            f.write_str(" → ")?;
        }
        write!(f, "{e}")?;
    }
    Ok(())
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::KeyNeverMatches { reason, .. } => match reason {
                NeverReason::Empty => f.write_str("empty key: it never matches"),
                NeverReason::SpaceInFullWord => f.write_str(
                    "whole-word key with a space: RisuAI splits the text on spaces, so it never matches",
                ),
                NeverReason::RegexNoSlash => f.write_str(
                    "regex key without a leading /: RisuAI ends the entry's regex search at it, so it and the keys after it never match",
                ),
                NeverReason::RegexNoFlags => f.write_str(
                    "regex key without flags after its last /: RisuAI 460ecae skips it, so it never matches",
                ),
                NeverReason::SplitAtComma => f.write_str(
                    "key with a comma: RisuAI's key field is comma-separated, so it searches the pieces as separate keys and never this one",
                ),
            },
            Finding::RegexRewritten { key, pattern } => write!(
                f,
                "regex key \"{key}\": RisuAI 460ecae searches for \"{pattern}\" instead (a known RisuAI bug), and only in the oldest message it scans"
            ),
            Finding::RegexInvalid { key, error, plain } => {
                write!(f, "regex key \"{key}\" does not compile: {error}")?;
                f.write_str(if *plain {
                    "; it is matched as plain text"
                } else {
                    "; it never matches"
                })
            }
            Finding::RegexMatchesEmpty { key } => write!(
                f,
                "regex key \"{key}\" matches the empty string: it matches every text"
            ),
            Finding::KeyTooCommon { key, reason } => match reason {
                CommonReason::Chat { matched, messages } => write!(
                    f,
                    "key \"{key}\" matches in {matched} of the chat's {messages} messages"
                ),
                CommonReason::SingleLetter => {
                    write!(f, "key \"{key}\" is a single letter: it matches almost everywhere")
                }
                CommonReason::StopWord { language } => write!(
                    f,
                    "key \"{key}\" is one of the most common words ({language}): it matches almost everywhere"
                ),
                CommonReason::Short => write!(
                    f,
                    "key \"{key}\" is under 3 characters with whole words off: it matches inside words"
                ),
                CommonReason::Whitespace => f.write_str(
                    "key of only whitespace: SillyTavern trims it to nothing and it matches every text",
                ),
            },
            Finding::DuplicateKey {
                key,
                others,
                more,
                effect,
            } => {
                write!(f, "key \"{key}\" is also a key of ")?;
                list(f, others, *more)?;
                match effect {
                    None => Ok(()),
                    Some(DuplicateEffect::SameText { other }) => {
                        write!(f, ", and {other} brought in by it says the same")
                    }
                    Some(DuplicateEffect::SameGroup { group }) => write!(
                        f,
                        ", in the same inclusion group \"{group}\": only one of them is inserted when it matches"
                    ),
                    Some(DuplicateEffect::AlwaysCut { requests: 1 }) => f.write_str(
                        ": in the chat's log this entry activated once, and the budget cut it",
                    ),
                    Some(DuplicateEffect::AlwaysCut { requests }) => write!(
                        f,
                        ": in the chat's log this entry activated {requests} times, and the budget cut it every time"
                    ),
                }
            }
            Finding::KeyContainsOther {
                key,
                other,
                other_key,
            } => write!(
                f,
                "key \"{key}\" contains \"{other_key}\", a key of {other}: that entry fires whenever this key matches"
            ),
            Finding::SecondaryUnused { count } => write!(
                f,
                "{count} secondary key(s) on an entry that is not selective: they are never tested"
            ),
            Finding::ConstantWithKeys { count } => write!(
                f,
                "{count} key(s) on a constant entry: they are never tested"
            ),
            Finding::SelectiveWithoutSecondary => {
                f.write_str("selective without secondary keys: behaves as not selective")
            }
            Finding::NoKeys => f.write_str(
                "no keys: this entry can never activate (make it constant or add a key)",
            ),
            Finding::DecoratorUnknown { name } => {
                write!(f, "unknown decorator @@{name}: no effect")
            }
            Finding::DecoratorBadArgument { decorator, problem } => {
                write!(f, "@@{decorator}: {problem}")
            }
            Finding::DecoratorContradictory {
                first,
                second,
                reason,
            } => match reason {
                Contradiction::KeepGated => write!(
                    f,
                    "@@{first} never applies: @@{second} shuts the entry out once it has matched"
                ),
                Contradiction::ActivateWins => write!(
                    f,
                    "@@{first} never applies: @@{second} is tested first and activates the entry"
                ),
                Contradiction::NoRequest { messages } => write!(
                    f,
                    "@@{first} and @@{second}: no request of the chat's {messages} satisfies both"
                ),
            },
            Finding::DecoratorNoEffect { decorator, reason } => match reason {
                NoEffectReason::OtherRules { rules } => write!(
                    f,
                    "@@{decorator} is a decorator of the {rules} rules: ignored under the rules in use"
                ),
                NoEffectReason::Repeated { winner } => {
                    write!(f, "@@{decorator} is given again; line {winner} wins")
                }
                NoEffectReason::Constant => {
                    write!(f, "@@{decorator} has no effect on a constant entry")
                }
                NoEffectReason::LoneFallback => write!(
                    f,
                    "fallback @@@{decorator} has no decorator before it to replace: ignored"
                ),
                NoEffectReason::RisuIgnores => {
                    write!(f, "RisuAI parses @@{decorator} and ignores it: no effect")
                }
                NoEffectReason::NoKey => write!(
                    f,
                    "@@{decorator} has no effect: RisuAI skips an entry with no key before reading its decorators"
                ),
            },
            Finding::EntryOverBudget {
                tokens,
                budget,
                assumed,
            } => {
                write!(f, "{tokens} tokens alone exceed the budget of {budget}")?;
                assumed_note(f, *assumed)
            }
            Finding::ConstantsOverBudget {
                tokens,
                budget,
                count,
                assumed,
            } => {
                write!(
                    f,
                    "the {count} constant entries take {tokens} of the budget's {budget} tokens"
                )?;
                assumed_note(f, *assumed)
            }
            Finding::NeverSurvives {
                tokens,
                constants,
                budget,
                assumed,
            } => {
                write!(
                    f,
                    "never kept: the constant entries always take {constants} of the budget's {budget} tokens, too few left for its {tokens}"
                )?;
                assumed_note(f, *assumed)
            }
            Finding::RecursionLoop { cycle, dead } => {
                f.write_str(if *dead {
                    "entries wait for recursion and only name each other, so none ever activates: "
                } else {
                    "entries name each other (each activates once, so the loop changes nothing): "
                })?;
                chain(f, cycle)
            }
            Finding::RecursionTooDeep { chain: c, limit } => {
                write!(
                    f,
                    "a chain of entries longer than the {limit} recursion passes: "
                )?;
                chain(f, c)
            }
            Finding::ContentEmpty => f.write_str("the body is empty: nothing is injected"),
            Finding::MacroAsText { text, reason, engine } => {
                use crate::sillytavern::macros::{check::MacroLeft, MacroEngine};
                let engine = match engine {
                    MacroEngine::New => "the new macro engine",
                    MacroEngine::Legacy => "the legacy macro engine",
                };
                match reason {
                    MacroLeft::NewEngineOnly => write!(
                        f,
                        "{text}: SillyTavern's legacy macro engine leaves this as written (only the new engine reads it)"
                    ),
                    MacroLeft::Unknown => write!(f, "{text}: SillyTavern has no such macro; {engine} leaves it as written"),
                    MacroLeft::Varies => write!(
                        f,
                        "{text}: its value changes from request to request; the preview keeps it as written"
                    ),
                }
            }
            Finding::ContentDuplicate { others, more } => {
                f.write_str("the same body as ")?;
                list(f, others, *more)
            }
            Finding::NameDuplicate { name, others, more } => {
                write!(f, "the name \"{name}\" is also the name of ")?;
                list(f, others, *more)
            }
        }
    }
}
