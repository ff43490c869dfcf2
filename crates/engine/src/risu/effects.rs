//! What each decorator line does to one evaluation of an entry (the
//! decorator callback of RisuAI 460ecae's `loadLoreBookV3Prompt`;
//! docs/risu-rules.md, "Decorators").

use super::super::decorators::{Line, Name};
use super::super::detail::RisuDrop;
use super::super::texts::roll;
use super::super::{Position, RisuState};
use super::{line_index, Eval, Flags, Force, Inject, InjectOp, QueryKind, Request};
use crate::model::Role;

impl Request<'_> {
    /// One decorator line: its effect on `e`, and whether it succeeded
    /// (a failure lets the next `@@@` line run).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn decorator(
        &self,
        l: &Line,
        e: &mut Eval,
        state: &RisuState,
        flags: &mut Flags,
        key: &str,
        i: usize,
        pass: u32,
        chat_length: usize,
    ) -> bool {
        let int = || l.int();
        let gate = |e: &mut Eval, d: RisuDrop| {
            if e.gate.is_none() {
                e.gate = Some(d);
            }
        };
        match l.kind {
            Name::End => {
                e.position = Position::Depth;
                e.depth = 0.0;
            }
            Name::ActivateOnlyAfter => {
                let n = int();
                if n.is_nan() {
                    return false;
                }
                if (chat_length as f64) < n {
                    gate(
                        e,
                        RisuDrop::OnlyAfter {
                            n,
                            length: chat_length,
                        },
                    );
                }
            }
            Name::ActivateOnlyEvery => {
                let n = int();
                if n.is_nan() {
                    return false;
                }
                let rem = (chat_length as f64) % n;
                if rem.is_nan() || rem != 0.0 {
                    gate(
                        e,
                        RisuDrop::OnlyEvery {
                            n,
                            length: chat_length,
                        },
                    );
                }
            }
            Name::KeepActivateAfterMatch => {
                if state.has("ka:", key) {
                    e.force = Force::On { kept: true };
                } else {
                    flags.keep = true;
                }
                return false;
            }
            Name::DontActivateAfterMatch => {
                if state.has("da:", key) {
                    e.force = Force::Off { not_again: true };
                } else {
                    flags.dont = true;
                }
                return false;
            }
            Name::Depth | Name::ReverseDepth => {
                let n = int();
                if n.is_nan() {
                    return false;
                }
                e.position = if l.kind == Name::Depth {
                    Position::Depth
                } else {
                    Position::ReverseDepth
                };
                e.depth = n;
            }
            Name::Role => match l.args.first().map(String::as_str) {
                Some("user") => e.role = Role::User,
                Some("assistant") => e.role = Role::Assistant,
                Some("system") => e.role = Role::System,
                _ => return false,
            },
            Name::ScanDepth => e.scan_depth = int(),
            Name::IsGreeting => {
                let n = int();
                if n.is_nan() {
                    return false;
                }
                let greeting = self.settings.fm_index + 1;
                if (greeting as f64) != n {
                    gate(e, RisuDrop::Greeting { n, greeting });
                }
            }
            Name::Position => {
                let Some(arg) = l.args.first() else {
                    e.throws = true;
                    return false;
                };
                e.position = match arg.as_str() {
                    "after_desc" => Position::AfterDesc,
                    "before_desc" => Position::BeforeDesc,
                    "personality" => Position::Personality,
                    "scenario" => Position::Scenario,
                    a if a.starts_with("pt_") => Position::Template(a[3..].to_string()),
                    _ => return false,
                };
            }
            Name::InjectLore | Name::InjectAt => {
                let location = l.args.join(" ");
                let lore = l.kind == Name::InjectLore;
                match &mut e.inject {
                    Some(inj) => {
                        inj.location = location;
                        inj.lore = lore;
                    }
                    None => {
                        e.inject = Some(Inject {
                            location,
                            lore,
                            op: InjectOp::Append,
                        })
                    }
                }
            }
            Name::InjectReplace | Name::InjectPrepend => {
                let op = if l.kind == Name::InjectReplace {
                    InjectOp::Replace(l.args.join(" "))
                } else {
                    InjectOp::Prepend
                };
                match &mut e.inject {
                    Some(inj) => inj.op = op,
                    None => {
                        e.inject = Some(Inject {
                            location: String::new(),
                            lore: false,
                            op,
                        })
                    }
                }
            }
            Name::IgnoreOnMaxContext => e.priority = -1000.0,
            Name::AdditionalKeys => e.queries.push((QueryKind::Additional, line_index(l, e))),
            Name::ExcludeKeys => e.queries.push((QueryKind::Exclude, line_index(l, e))),
            Name::ExcludeKeysAll => e.queries.push((QueryKind::ExcludeAll, line_index(l, e))),
            Name::MatchFullWord => e.full_word = true,
            Name::MatchPartialWord => e.full_word = false,
            Name::Activate => e.force = Force::On { kept: false },
            Name::DontActivate => e.force = Force::Off { not_again: false },
            Name::DisableUiPrompt => {
                return matches!(
                    l.args.first().map(String::as_str),
                    Some("post_history_instructions" | "system_prompt")
                )
            }
            Name::Probability => {
                let percent = int();
                let r = roll(self.seed, self.request, i, pass) * 100.0;
                if r > percent {
                    gate(e, RisuDrop::Probability { percent, roll: r });
                }
            }
            Name::Priority => e.priority = int(),
            Name::Recursive => e.recursive = Some(true),
            Name::Unrecursive => e.recursive = Some(false),
            Name::NoRecursiveSearch => e.no_recursive_search = true,
            // instruct_depth, reverse_instruct_depth, instruct_scan_depth,
            // is_user_icon and every unknown name: no effect, a failure.
            _ => return false,
        }
        true
    }
}
