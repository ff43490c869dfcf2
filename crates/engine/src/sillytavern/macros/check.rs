//! Macros SillyTavern leaves in the text as written, for the lint: under
//! the legacy engine, the new engine's syntax (`{{if}}`, scoped macros,
//! `{{.name}}` shorthands, blanks inside the braces, nesting); under either,
//! macros SillyTavern does not know (a typo such as `{{usr}}`) and those
//! whose value the preview cannot know (a roll, the model).

use std::cell::Cell;

use serde::{Deserialize, Serialize};

use super::parse::{self, Body, Item, Node};
use super::registry::{self, Does};
use super::{legacy, MacroEngine, Variables};

/// Why a macro stays in the text as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum MacroLeft {
    /// Only the new engine reads it; the legacy engine leaves it as text.
    NewEngineOnly,
    /// SillyTavern has no such macro.
    Unknown,
    /// Its value changes from request to request (a roll, the model, the
    /// last message): the preview keeps it as written.
    Varies,
}

/// One macro left as written: where it is in the text, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Left {
    pub start: usize,
    pub end: usize,
    pub why: MacroLeft,
}

/// The macros of `text` that `engine` leaves as written, outermost first,
/// each distinct text once.
pub fn left_as_text(text: &str, engine: MacroEngine) -> Vec<Left> {
    if !text.contains("{{") {
        return Vec::new();
    }
    let steps = Cell::new((text.len() as u64).saturating_mul(16).max(1 << 16));
    let mut out = Vec::new();
    visit(text, 0, engine, &steps, &mut out, 0);
    let mut seen = std::collections::HashSet::new();
    out.retain(|l: &Left| seen.insert(&text[l.start..l.end]));
    out
}

fn visit(
    text: &str,
    base: usize,
    engine: MacroEngine,
    steps: &Cell<u64>,
    out: &mut Vec<Left>,
    depth: usize,
) {
    if depth > 8 {
        return;
    }
    for item in parse::document(text, steps) {
        let Item::Macro(node) = item else { continue };
        let raw = &text[node.start..node.end];
        let why = match engine {
            MacroEngine::New => new_engine(&node, text),
            MacroEngine::Legacy => legacy_engine(&node, text, raw),
        };
        if let Some(why) = why {
            out.push(Left {
                start: base + node.start,
                end: base + node.end,
                why,
            });
            if why == MacroLeft::NewEngineOnly {
                continue;
            }
        }
        // Macros inside the arguments.
        if let Body::Named { args, .. } = &node.body {
            for (s, e) in args.iter().flatten() {
                visit(&text[*s..*e], base + s, engine, steps, out, depth + 1);
            }
        }
    }
}

fn new_engine(node: &Node, text: &str) -> Option<MacroLeft> {
    let Body::Named { name, .. } = &node.body else {
        return None;
    };
    // A closing `{{/name}}` is judged with its opener.
    if node.flags.contains(&'/') {
        return None;
    }
    match registry::lookup(&text[name.0..name.1]) {
        None => Some(MacroLeft::Unknown),
        Some(d) if d.does == Does::Unknowable => Some(MacroLeft::Varies),
        Some(_) => None,
    }
}

fn legacy_engine(node: &Node, text: &str, raw: &str) -> Option<MacroLeft> {
    // A block is judged by its opener: its `{{else}}` and closer are not
    // listed again.
    if let Body::Named { name, .. } = &node.body {
        if node.flags.contains(&'/') || text[name.0..name.1].eq_ignore_ascii_case("else") {
            return None;
        }
    }
    let names = ("\u{1}", "\u{2}");
    let (expanded, _) = legacy::expand(raw, names.0, names.1, &Variables::default(), None);
    if expanded != raw {
        return None;
    }
    match &node.body {
        Body::Var { .. } => Some(MacroLeft::NewEngineOnly),
        Body::Named { name, .. } => match registry::lookup(&text[name.0..name.1]) {
            Some(d) if d.does == Does::Unknowable && node.flags.is_empty() => {
                Some(MacroLeft::Varies)
            }
            Some(_) => Some(MacroLeft::NewEngineOnly),
            None => Some(MacroLeft::Unknown),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str, engine: MacroEngine) -> Vec<(String, MacroLeft)> {
        left_as_text(text, engine)
            .into_iter()
            .map(|l| (text[l.start..l.end].to_string(), l.why))
            .collect()
    }

    #[test]
    fn what_each_engine_leaves() {
        let text = "{{if .a}}x{{else}}y{{/if}} {{usr}} {{user}} {{ user }} {{random::a::b}}";
        assert_eq!(
            kinds(text, MacroEngine::New),
            [
                ("{{usr}}".into(), MacroLeft::Unknown),
                ("{{random::a::b}}".into(), MacroLeft::Varies)
            ]
        );
        assert_eq!(
            kinds(text, MacroEngine::Legacy),
            [
                ("{{if .a}}".into(), MacroLeft::NewEngineOnly),
                ("{{usr}}".into(), MacroLeft::Unknown),
                ("{{ user }}".into(), MacroLeft::NewEngineOnly),
                ("{{random::a::b}}".into(), MacroLeft::Varies),
            ]
        );
        assert!(kinds("{{getvar::{{usr}}}}", MacroEngine::New)
            .iter()
            .any(|(t, _)| t == "{{usr}}"));
        assert!(kinds("plain text", MacroEngine::Legacy).is_empty());
    }
}
