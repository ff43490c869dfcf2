//! What each decorator line does to one evaluation of an entry (the
//! decorator callback of RisuAI 460ecae's `loadLoreBookV3Prompt`;
//! docs/risu-rules.md, "Decorators").

use super::super::decorators::Line;
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
        match l.name.as_str() {
            "end" => {
                e.position = Position::Depth;
                e.depth = 0.0;
            }
            "activate_only_after" => {
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
            "activate_only_every" => {
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
            "keep_activate_after_match" => {
                if state.has("ka:", key) {
                    e.force = Force::On { kept: true };
                } else {
                    flags.keep = true;
                }
                return false;
            }
            "dont_activate_after_match" => {
                if state.has("da:", key) {
                    e.force = Force::Off { not_again: true };
                } else {
                    flags.dont = true;
                }
                return false;
            }
            "depth" | "reverse_depth" => {
                let n = int();
                if n.is_nan() {
                    return false;
                }
                e.position = if l.name == "depth" {
                    Position::Depth
                } else {
                    Position::ReverseDepth
                };
                e.depth = n;
            }
            "role" => match l.args.first().map(String::as_str) {
                Some("user") => e.role = Role::User,
                Some("assistant") => e.role = Role::Assistant,
                Some("system") => e.role = Role::System,
                _ => return false,
            },
            "scan_depth" => e.scan_depth = int(),
            "is_greeting" => {
                let n = int();
                if n.is_nan() {
                    return false;
                }
                let greeting = self.settings.fm_index + 1;
                if (greeting as f64) != n {
                    gate(e, RisuDrop::Greeting { n, greeting });
                }
            }
            "position" => {
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
            "inject_lore" | "inject_at" => {
                let location = l.args.join(" ");
                let lore = l.name == "inject_lore";
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
            "inject_replace" | "inject_prepend" => {
                let op = if l.name == "inject_replace" {
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
            "ignore_on_max_context" => e.priority = -1000.0,
            "additional_keys" => e.queries.push((QueryKind::Additional, line_index(l, e))),
            "exclude_keys" => e.queries.push((QueryKind::Exclude, line_index(l, e))),
            "exclude_keys_all" => e.queries.push((QueryKind::ExcludeAll, line_index(l, e))),
            "match_full_word" => e.full_word = true,
            "match_partial_word" => e.full_word = false,
            "activate" => e.force = Force::On { kept: false },
            "dont_activate" => e.force = Force::Off { not_again: false },
            "disable_ui_prompt" => {
                return matches!(
                    l.args.first().map(String::as_str),
                    Some("post_history_instructions" | "system_prompt")
                )
            }
            "probability" => {
                let percent = int();
                let r = roll(self.seed, self.request, i, pass) * 100.0;
                if r > percent {
                    gate(e, RisuDrop::Probability { percent, roll: r });
                }
            }
            "priority" => e.priority = int(),
            "recursive" => e.recursive = Some(true),
            "unrecursive" => e.recursive = Some(false),
            "no_recursive_search" => e.no_recursive_search = true,
            // instruct_depth, reverse_instruct_depth, instruct_scan_depth,
            // is_user_icon and every unknown name: no effect, a failure.
            _ => return false,
        }
        true
    }
}
