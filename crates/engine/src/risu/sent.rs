//! What RisuAI sends for each placed entry: its body with CBS evaluated
//! (docs/risu-rules.md, "CBS: what the budget counts"), and since the 2026
//! mainline (RisuAI's PR #1383) with `{{position::name}}` filled in first.
//!
//! A marker `{{position::name}}` (the name up to the first `}}`, on one
//! line, taken as written) becomes the bodies, as written, of the placed
//! entries at `@@position pt_name`, one per line in their final order, or
//! nothing when none is placed. The bodies brought in can hold markers of
//! their own: the text is filled again, at most five times in all, and the
//! markers still left after that are removed. CBS is evaluated after, on
//! the whole text. `460ecae` fills in nothing: a marker is an unknown macro
//! there, left as written.

use super::cbs::{self, Cbs};
use super::{Position, RisuInjected};

const MARKER: &str = "{{position::";

/// How many times the markers are filled in (RisuAI's `maxDepth`).
pub const POSITION_DEPTH: usize = 5;

/// Sets each entry's `sent` text where it differs from its body;
/// `macros` says of each whether its body can hold a macro at all.
pub(crate) fn fill(
    mut injected: Vec<RisuInjected>,
    macros: &[bool],
    mainline: bool,
    c: &Cbs<'_>,
) -> Vec<RisuInjected> {
    if !macros.contains(&true) {
        return injected;
    }
    let slots: Vec<(String, String)> = if mainline {
        injected
            .iter()
            .filter_map(|e| match &e.position {
                Position::Template(name) => Some((name.clone(), e.content.clone())),
                _ => None,
            })
            .collect()
    } else {
        Vec::new()
    };
    for (e, &may) in injected.iter_mut().zip(macros) {
        if !may {
            continue;
        }
        let marked = mainline && e.content.contains(MARKER);
        let filled = if marked {
            resolve_positions(&e.content, &slots)
        } else {
            e.content.clone()
        };
        let out = cbs::eval(&filled, c);
        if out != e.content {
            e.sent = Some(out);
        }
    }
    injected
}

/// `text` with its markers filled from `slots` (name, body), as many as
/// [`POSITION_DEPTH`] times, then any marker left removed.
pub fn resolve_positions(text: &str, slots: &[(String, String)]) -> String {
    let mut s = text.to_string();
    for _ in 0..POSITION_DEPTH {
        if s.len() > cbs::MAX_MADE {
            break;
        }
        let (next, found) = replace_markers(&s, |name| {
            slots
                .iter()
                .filter(|(n, _)| n == name)
                .map(|(_, body)| body.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        });
        s = next;
        if !found {
            return s;
        }
    }
    replace_markers(&s, |_| String::new()).0
}

/// One pass: each marker replaced by `with(name)`; whether any was found.
fn replace_markers(text: &str, with: impl Fn(&str) -> String) -> (String, bool) {
    let mut out = String::with_capacity(text.len());
    let mut found = false;
    let mut rest = text;
    while let Some(at) = rest.find(MARKER) {
        let after = &rest[at + MARKER.len()..];
        let end = after.find("}}");
        let name = end.map(|e| &after[..e]);
        match name {
            Some(name) if !name.is_empty() && !name.contains('\n') => {
                out.push_str(&rest[..at]);
                out.push_str(&with(name));
                found = true;
                rest = &after[name.len() + 2..];
            }
            _ => {
                out.push_str(&rest[..at + MARKER.len()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    (out, found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    /// `resolvePosition` (RisuAI's `sendChat`, PR #1383): placed `pt_`
    /// bodies joined by lines; no entry, another case or a space in the
    /// name gives nothing.
    #[test]
    fn resolve_position_fills_markers_from_the_placed_slots() {
        let s = slots(&[("x", "one"), ("x", "two")]);
        assert_eq!(
            resolve_positions("Intro: {{position::x}}", &s),
            "Intro: one\ntwo"
        );
        assert_eq!(resolve_positions("A{{position:: x}}B", &s), "AB");
        assert_eq!(resolve_positions("A{{position::X}}B", &s), "AB");
        assert_eq!(resolve_positions("A{{position::after_desc}}B", &s), "AB");
        assert_eq!(resolve_positions("no marker", &s), "no marker");
    }

    /// Five levels filled, a sixth removed; a body naming itself is
    /// filled five times.
    #[test]
    fn resolve_position_stops_after_five_levels() {
        let s = slots(&[
            ("b", "B[{{position::c}}]"),
            ("c", "C[{{position::d}}]"),
            ("d", "D[{{position::e}}]"),
            ("e", "E[{{position::f}}]"),
            ("f", "F[{{position::g}}]"),
            ("g", "G"),
        ]);
        assert_eq!(
            resolve_positions("A[{{position::b}}]", &s),
            "A[B[C[D[E[F[]]]]]]"
        );
        let me = slots(&[("x", "x{{position::x}}")]);
        assert_eq!(resolve_positions("{{position::x}}", &me), "xxxxx");
    }
}
