//! SillyTavern's legacy macro engine (macros.js `evaluateMacros`, the
//! default before 1.17 and still used where `experimental_macro_engine` is
//! off), in our own words: a fixed list of replacements, each applied to
//! the whole text in turn, so a value one of them puts in is seen by the
//! later ones. Names match in any case, written exactly (`{{ user }}` is no
//! macro), and nothing nests: `{{if}}`, shorthands and scoped macros stay
//! as written. In order:
//!
//! 1. `<USER>`, `<BOT>`, `<CHAR>`, `<CHARIFNOTGROUP>`, `<GROUP>`;
//! 2. the variable macros, each its own pass: `setvar`, `addvar`, `incvar`,
//!    `decvar`, `getvar`, then the global five (`{{getvar::name}}`; the name
//!    runs to the closing braces and is trimmed);
//! 3. `{{newline}}`, `{{trim}}` (with the line breaks around it), `{{noop}}`,
//!    `{{input}}`;
//! 4. the character card's fields (empty: the preview has no card), then
//!    `{{user}}`, `{{char}}`, `{{group}}` and kin, `{{notChar}}`;
//! 5. `{{reverse:…}}` (all after the colon, on one line), `{{// comments}}`,
//!    the date and time (`{{time}}`, `{{date}}`, `{{weekday}}`, `{{isotime}}`,
//!    `{{isodate}}`, `{{time_UTC±N}}`), `{{outlet::…}}` and `{{banned "…"}}`
//!    (both empty here).
//!
//! Macros whose value the preview cannot know (time, rolls, the model, the
//! chat's last messages) stay as written.

use serde_json::Value;

use super::clock::{self, Moment};
use super::eval::remove_trim;
use super::js;
use super::vars::{Scope, Scratch, Variables};

/// Expands `text` as the legacy engine does, with the variables as its
/// macros left them when they changed any.
pub fn expand(
    text: &str,
    user: &str,
    char: &str,
    vars: &Variables,
    clock: Option<Moment>,
) -> (String, Option<Variables>) {
    let mut scratch = Scratch::new(vars);
    let mut t = text.to_string();
    for (mark, with) in [
        ("<user>", user),
        ("<bot>", char),
        ("<char>", char),
        ("<charifnotgroup>", char),
        ("<group>", char),
    ] {
        if t.contains('<') {
            t = replace_fixed(&t, mark, with);
        }
    }
    if !t.contains("{{") {
        return (t, None);
    }
    for scope in [Scope::Local, Scope::Global] {
        let g = if scope == Scope::Global { "global" } else { "" };
        t = two_args(&t, &format!("{{{{set{g}var::"), false, |name, value| {
            scratch.set(scope, name, Value::String(value.to_string()));
            String::new()
        });
        t = two_args(&t, &format!("{{{{add{g}var::"), true, |name, value| {
            scratch.add(scope, name, value);
            String::new()
        });
        t = one_arg(&t, &format!("{{{{inc{g}var::"), |name| {
            scratch.add(scope, name, "1")
        });
        t = one_arg(&t, &format!("{{{{dec{g}var::"), |name| {
            scratch.add(scope, name, "-1")
        });
        t = one_arg(&t, &format!("{{{{get{g}var::"), |name| {
            legacy_text(&scratch, scope, name)
        });
    }
    t = replace_fixed(&t, "{{newline}}", "\n");
    t = remove_trim(&t);
    t = replace_fixed(&t, "{{noop}}", "");
    t = replace_fixed(&t, "{{input}}", "");
    for field in CARD_FIELDS {
        t = replace_fixed(&t, &format!("{{{{{field}}}}}"), "");
    }
    for (name, with) in [
        ("user", user),
        ("char", char),
        ("group", char),
        ("charifnotgroup", char),
        ("groupnotmuted", char),
        ("notchar", user),
    ] {
        t = replace_fixed(&t, &format!("{{{{{name}}}}}"), with);
    }
    t = reverse(&t);
    t = comments(&t);
    if t.contains("{{") {
        let now = clock.unwrap_or_else(Moment::now);
        for name in ["time", "date", "weekday", "isotime", "isodate"] {
            if let Some(v) = clock::value(name, None, now) {
                t = replace_fixed(&t, &format!("{{{{{name}}}}}"), &v);
            }
        }
        t = one_arg(&t, "{{time_", |spec| match clock::utc_offset(spec) {
            Some(_) => clock::value("time", Some(spec), now).unwrap_or_default(),
            None => format!("{{{{time_{spec}}}}}"),
        });
    }
    t = one_arg(&t, "{{outlet::", |_| String::new());
    t = banned(&t);
    let changed = scratch.wrote().then(|| scratch.applied());
    (t, changed)
}

/// The card fields the legacy engine fills from the character.
const CARD_FIELDS: [&str; 13] = [
    "charprompt",
    "charinstruction",
    "charjailbreak",
    "description",
    "personality",
    "scenario",
    "persona",
    "mesexamples",
    "mesexamplesraw",
    "charversion",
    "char_version",
    "chardepthprompt",
    "creatornotes",
];

/// `getvar` in the legacy engine: numbers print as numbers, text as it is,
/// other values as JavaScript's `String` prints them.
fn legacy_text(vars: &Scratch, scope: Scope, name: &str) -> String {
    match vars.raw(scope, name) {
        Some(v @ (Value::Object(_) | Value::Array(_)))
            if js::number(&js::plain_text(v)).is_nan() =>
        {
            js::plain_text(v)
        }
        _ => vars.get(scope, name),
    }
}

/// Every `pattern` (any case) replaced by `with`.
fn replace_fixed(text: &str, pattern: &str, with: &str) -> String {
    let lower = text.to_ascii_lowercase();
    if !lower.contains(pattern) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (at, _) in lower.match_indices(pattern) {
        out.push_str(&text[last..at]);
        out.push_str(with);
        last = at + pattern.len();
    }
    out.push_str(&text[last..]);
    out
}

/// Each `{{prefixNAME}}` (any case; NAME one or more characters, no `}`)
/// replaced by `f(NAME trimmed)`.
fn one_arg(text: &str, prefix: &str, mut f: impl FnMut(&str) -> String) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::new();
    let (mut last, mut from) = (0, 0);
    while let Some(found) = lower[from..].find(prefix) {
        let at = from + found;
        let body = at + prefix.len();
        let close = text[body..].find('}').map(|c| body + c);
        match close {
            Some(c) if c > body && text[c..].starts_with("}}") => {
                out.push_str(&text[last..at]);
                out.push_str(&f(js::trim(&text[body..c])));
                last = c + 2;
                from = last;
            }
            _ => from = at + 1,
        }
    }
    out.push_str(&text[last..]);
    out
}

/// Each `{{prefixNAME::VALUE}}` replaced by `f(NAME trimmed, VALUE)`: NAME
/// runs to the first `:` and must be followed by `::`; VALUE has no `}`
/// (and is not empty when `value_needed`).
fn two_args(
    text: &str,
    prefix: &str,
    value_needed: bool,
    mut f: impl FnMut(&str, &str) -> String,
) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::new();
    let (mut last, mut from) = (0, 0);
    while let Some(found) = lower[from..].find(prefix) {
        let at = from + found;
        let body = at + prefix.len();
        let parsed = text[body..].find(':').and_then(|c| {
            let name_end = body + c;
            if name_end == body || !text[name_end..].starts_with("::") {
                return None;
            }
            let value_start = name_end + 2;
            let value_end = value_start + text[value_start..].find('}')?;
            if !text[value_end..].starts_with("}}") || (value_needed && value_end == value_start) {
                return None;
            }
            Some((name_end, value_start, value_end))
        });
        match parsed {
            Some((name_end, value_start, value_end)) => {
                out.push_str(&text[last..at]);
                out.push_str(&f(
                    js::trim(&text[body..name_end]),
                    &text[value_start..value_end],
                ));
                last = value_end + 2;
                from = last;
            }
            None => from = at + 1,
        }
    }
    out.push_str(&text[last..]);
    out
}

fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// `{{reverse:X}}`: X, one line, at least one character, up to the first
/// `}}` after its first character, reversed.
fn reverse(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::new();
    let (mut last, mut from) = (0, 0);
    while let Some(found) = lower[from..].find("{{reverse:") {
        let at = from + found;
        let body = at + "{{reverse:".len();
        let first = text[body..].chars().next();
        let end = first.filter(|c| !is_line_break(*c)).and_then(|c| {
            let after_first = body + c.len_utf8();
            let close = text[after_first..].find("}}").map(|k| after_first + k)?;
            (!text[body..close].contains(is_line_break)).then_some(close)
        });
        match end {
            Some(close) => {
                out.push_str(&text[last..at]);
                out.extend(text[body..close].chars().rev());
                last = close + 2;
                from = last;
            }
            None => from = at + 1,
        }
    }
    out.push_str(&text[last..]);
    out
}

/// `{{// …}}` removed, up to the first `}}`.
fn comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("{{//") {
        let Some(close) = rest[at + 4..].find("}}") else {
            break;
        };
        out.push_str(&rest[..at]);
        rest = &rest[at + 4 + close + 2..];
    }
    out.push_str(rest);
    out
}

/// `{{banned "word"}}` removed (a text-completion setting, not prompt text).
fn banned(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::new();
    let (mut last, mut from) = (0, 0);
    while let Some(found) = lower[from..].find("{{banned \"") {
        let at = from + found;
        // Greedy to the last `"}}` on the line.
        let line_end = text[at..]
            .find(is_line_break)
            .map_or(text.len(), |k| at + k);
        match text[at..line_end].rfind("\"}}") {
            Some(k) if at + k >= at + "{{banned ".len() => {
                out.push_str(&text[last..at]);
                last = at + k + 3;
                from = last;
            }
            _ => from = at + 1,
        }
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(text: &str) -> String {
        let vars = Variables {
            local: [
                ("hp".to_string(), json!("25")),
                ("who".to_string(), json!("{{user}}")),
            ]
            .into_iter()
            .collect(),
            global: Default::default(),
        };
        expand(text, "Alice", "Marcus", &vars, None).0
    }

    // macros.js evaluateMacros and variables.js getVariableMacros.
    #[test]
    fn legacy_rules() {
        assert_eq!(run("{{USER}} <bot> {{ user }}"), "Alice Marcus {{ user }}");
        assert_eq!(run("{{getvar::hp}}/{{getvar::none}}"), "25/");
        assert_eq!(
            run("{{getvar::who}}"),
            "Alice",
            "later passes see what a variable put in"
        );
        assert_eq!(
            run("{{setvar::x::5}}{{getvar::x}}{{incvar::x}}"),
            "66",
            "incvar runs before getvar"
        );
        assert_eq!(
            run("{{if .hp}}a{{else}}b{{/if}}"),
            "{{if .hp}}a{{else}}b{{/if}}"
        );
        assert_eq!(run("a\n{{trim}}\nb{{// gone }}c"), "abc");
        assert_eq!(run("{{reverse:abc}} {{reverse::ab}}"), "cba ba:");
        assert_eq!(run("x{{banned \"delve\"}}y {{description}}"), "xy ");
    }
}
