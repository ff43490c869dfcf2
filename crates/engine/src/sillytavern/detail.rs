//! Why an entry is in or out under SillyTavern's rules, as codes with
//! parameters: the app words them in the UI's language
//! (`ui/src/lib/messages.ts`); English exists only in their `Display`
//! impls, which the command line prints.

use std::fmt;

use serde::Serialize;

/// How an entry activated.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum StReason {
    /// The `@@activate` decorator.
    Activate,
    #[default]
    Constant,
    /// Sticky from an earlier request, `left` messages to go.
    Sticky { left: f64 },
    /// A primary key matched in scan pass `pass`; `widened` is the scan
    /// depth when min activations widened it.
    Key {
        key: String,
        pass: u32,
        widened: Option<f64>,
        /// The key as SillyTavern's macros made it, when they changed it
        /// (`{{user}} smiled` → `Alice smiled`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expanded: Option<String>,
    },
}

impl fmt::Display for StReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StReason::Activate => f.write_str("@@activate"),
            StReason::Constant => f.write_str("constant"),
            StReason::Sticky { left } => write!(f, "sticky: {left} message(s) left"),
            StReason::Key {
                key,
                pass,
                widened,
                expanded,
            } => {
                write!(f, "key \"{key}\"")?;
                if let Some(x) = expanded {
                    write!(f, ", \"{x}\" after macros")?;
                }
                write!(f, " (pass {pass}")?;
                if let Some(depth) = widened {
                    write!(
                        f,
                        ", after min activations widened the scan to {depth} message(s)"
                    )?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Why a group member left the group.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum GroupLoss {
    /// A sticky member holds the group.
    StickyHolds,
    OnCooldown,
    Delayed,
    /// Group scoring: this member matched `score` keys, the best `best`.
    Scoring {
        score: usize,
        best: usize,
    },
    /// An entry of the group activated in an earlier pass.
    AlreadyActivated,
    /// The winner has Prioritize Inclusion and the highest order.
    Prioritized {
        winner: u64,
        winner_name: String,
    },
    /// The weighted roll picked the winner.
    LostRoll {
        roll: f64,
        total: f64,
        weight: f64,
        winner: u64,
        winner_name: String,
    },
}

impl fmt::Display for GroupLoss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroupLoss::StickyHolds => f.write_str("a sticky member holds the group"),
            GroupLoss::OnCooldown => f.write_str("on cooldown"),
            GroupLoss::Delayed => f.write_str("delayed"),
            GroupLoss::Scoring { score, best } => write!(
                f,
                "group scoring: {score} key(s) matched, the best member {best}"
            ),
            GroupLoss::AlreadyActivated => f.write_str("the group already has an activated entry"),
            GroupLoss::Prioritized {
                winner,
                winner_name,
            } => write!(
                f,
                "prioritized with a higher order: {winner} ({winner_name}) won"
            ),
            GroupLoss::LostRoll {
                roll,
                total,
                weight,
                winner,
                winner_name,
            } => write!(
                f,
                "lost the roll ({roll:.1} of total weight {total}, weight {weight}): {winner} ({winner_name}) won"
            ),
        }
    }
}

/// The particulars of why an entry is out (its [`super::DropKind`] names
/// the rule).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum StDetail {
    Disabled,
    /// Generation triggers without "normal".
    Triggers {
        triggers: Vec<String>,
    },
    /// The character filter excludes `character`.
    CharacterFilter {
        character: String,
    },
    /// Delay: the chat has `length` of the `delay` messages it needs.
    Delay {
        length: usize,
        delay: f64,
    },
    Cooldown {
        left: f64,
    },
    /// Delay until recursion, in a pass that is not a recursion pass.
    DelayedUntilRecursion,
    /// Delay until recursion level `level`, not reached yet.
    DelayedUntilLevel {
        level: f64,
    },
    /// Non-recursable, in a recursion pass.
    NonRecursable,
    DontActivate,
    NoKeys,
    /// No primary key in the last `depth` messages.
    NoMatch {
        depth: f64,
    },
    /// The optional filter with `logic` (SillyTavern's label, `None` for
    /// an unknown logic) failed: `hits` of `n` secondary keys matched.
    Secondary {
        logic: Option<String>,
        hits: usize,
        n: usize,
    },
    /// Out of inclusion group `group`.
    Group {
        group: String,
        loss: GroupLoss,
    },
    /// Trigger %: `roll` (one decimal) was above `chance`.
    Probability {
        roll: f64,
        chance: f64,
    },
    /// The budget was reached by an earlier entry of the pass.
    BudgetReached {
        budget: u32,
    },
    /// Adding this entry makes `total` tokens, reaching `budget`
    /// (`percent` % of `context`, capped at `cap` when above 0).
    Budget {
        total: u32,
        budget: u32,
        percent: f64,
        context: u32,
        cap: f64,
    },
    /// Activated, but its content is empty.
    EmptyContent,
    /// An outlet entry without an outlet name.
    OutletWithoutName,
    /// A position none of SillyTavern's.
    UnknownPosition,
    /// Regex key `key` (as written) ran out of its step budget on the
    /// scanned text and was treated as not matching; no other key made up
    /// for it (primary keys: none matched; secondary keys: the filter
    /// failed).
    RegexTooSlow {
        key: String,
    },
    /// Regex key `key` was not tested: the request's regex keys had used
    /// up the steps they share (`matching::REGEX_STEPS_PER_REQUEST`), so
    /// it was treated as not matching (as [`StDetail::RegexTooSlow`]).
    RegexBudgetSpent {
        key: String,
    },
    /// Regex key `key` is past the pattern size caps
    /// (`matcher::regex_too_large`): it is never compiled and never
    /// matches.
    RegexTooLarge {
        key: String,
    },
}

impl StDetail {
    /// The detail of an entry whose regex key `key` was given up on.
    pub fn given_up(key: String, why: super::matching::GiveUp) -> Self {
        use super::matching::GiveUp;
        match why {
            GiveUp::TooSlow => StDetail::RegexTooSlow { key },
            GiveUp::RequestBudget => StDetail::RegexBudgetSpent { key },
            GiveUp::TooLarge => StDetail::RegexTooLarge { key },
        }
    }
}

impl fmt::Display for StDetail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StDetail::Disabled => f.write_str("disabled"),
            StDetail::Triggers { triggers } => write!(
                f,
                "generation triggers {triggers:?} exclude a normal generation"
            ),
            StDetail::CharacterFilter { character } => {
                write!(f, "character filter excludes {character}")
            }
            StDetail::Delay { length, delay } => {
                write!(f, "delay: the chat has {length} of {delay} messages")
            }
            StDetail::Cooldown { left } => write!(f, "cooldown: {left} message(s) left"),
            StDetail::DelayedUntilRecursion => f.write_str("delayed until recursion"),
            StDetail::DelayedUntilLevel { level } => {
                write!(f, "delayed until recursion level {level}")
            }
            StDetail::NonRecursable => {
                f.write_str("non-recursable: cannot activate in a recursion pass")
            }
            StDetail::DontActivate => f.write_str("@@dont_activate"),
            StDetail::NoKeys => f.write_str("no primary keys"),
            StDetail::NoMatch { depth } => {
                write!(f, "no primary key in the last {depth} message(s)")
            }
            StDetail::Secondary { logic, hits, n } => write!(
                f,
                "optional filter {} failed ({hits} of {n} matched)",
                logic.as_deref().unwrap_or("an unknown logic")
            ),
            StDetail::Group { group, loss } => write!(f, "group '{group}': {loss}"),
            StDetail::Probability { roll, chance } => {
                write!(f, "rolled {roll:.1}, needed at most {chance}")
            }
            StDetail::BudgetReached { budget } => write!(
                f,
                "skipped: the budget of {budget} tokens was already reached"
            ),
            StDetail::Budget {
                total,
                budget,
                percent,
                context,
                cap,
            } => {
                write!(
                    f,
                    "budget: {total} tokens would reach the budget of {budget} ({percent}% of {context}"
                )?;
                if *cap > 0.0 {
                    write!(f, ", cap {cap}")?;
                }
                f.write_str(")")
            }
            StDetail::EmptyContent => f.write_str("its content is empty"),
            StDetail::OutletWithoutName => f.write_str("an outlet entry without an outlet name"),
            StDetail::UnknownPosition => f.write_str("its position is not one of SillyTavern's"),
            StDetail::RegexTooSlow { key } => write!(
                f,
                "regex key {key} took too long on this chat; treated as not matching"
            ),
            StDetail::RegexBudgetSpent { key } => write!(
                f,
                "regex key {key} was not tested: the regex keys before it used up this request's time; treated as not matching"
            ),
            StDetail::RegexTooLarge { key } => write!(
                f,
                "regex key {key} is too large to compile; it never matches"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The command line prints these; docs/cli.md documents them.
    #[test]
    fn english_for_the_command_line() {
        let group = StDetail::Group {
            group: "weather".into(),
            loss: GroupLoss::Prioritized {
                winner: 2,
                winner_name: "storm".into(),
            },
        };
        assert_eq!(
            group.to_string(),
            "group 'weather': prioritized with a higher order: 2 (storm) won"
        );
        let budget = StDetail::Budget {
            total: 52,
            budget: 50,
            percent: 25.0,
            context: 200,
            cap: 0.0,
        };
        assert_eq!(
            budget.to_string(),
            "budget: 52 tokens would reach the budget of 50 (25% of 200)"
        );
        assert_eq!(
            StDetail::Cooldown { left: 2.0 }.to_string(),
            "cooldown: 2 message(s) left"
        );
        let key = StReason::Key {
            key: "lamp".into(),
            pass: 1,
            widened: Some(3.0),
            expanded: None,
        };
        assert_eq!(
            key.to_string(),
            "key \"lamp\" (pass 1, after min activations widened the scan to 3 message(s))"
        );
        // The app reads codes and parameters.
        assert_eq!(
            serde_json::to_value(&group).unwrap(),
            serde_json::json!({"code": "group", "group": "weather",
                "loss": {"code": "prioritized", "winner": 2, "winner_name": "storm"}})
        );
    }
}
