//! CBS blocks: an opener `{{#…}}` read once its header is evaluated, its
//! body collected to its closer, then shaped as RisuAI shapes each kind.
//!
//! Truth is exactly `1` or `true`. `#if` keeps a true body trimmed with
//! every line's indentation removed and drops a false one unread;
//! `#if_pure` keeps a true body as written; `#when` reads its body either
//! way and keeps the part before or after a `{{:else}}`, a single line
//! untrimmed, several lines without the blank ones at either end; `#pure`,
//! `#puredisplay`, `#escape`, `#code`, `#each` and `#func` take their body
//! as written.

use super::{Out, Run};

/// Private-use characters RisuAI's escapes stand in for, turned back into
/// the characters only when the request is sent.
pub(super) const OPEN_BRACE: char = '\u{E9B8}';
pub(super) const CLOSE_BRACE: char = '\u{E9B9}';
pub(super) const OPEN_PAREN: char = '\u{E9BA}';
pub(super) const CLOSE_PAREN: char = '\u{E9BB}';

#[derive(Debug)]
pub(super) enum Kind {
    If(bool),
    IfPure(bool),
    When {
        cond: bool,
        keep: bool,
        legacy: bool,
    },
    Pure,
    PureDisplay,
    Escape {
        keep: bool,
    },
    Code,
    Each {
        items: Vec<String>,
        name: String,
        keep: bool,
    },
    Func(String),
}

#[derive(Debug)]
pub(super) struct Block {
    pub kind: Kind,
    pub body: String,
    /// The body is kept as written (calls not made).
    pub pure: bool,
    /// Blocks opened inside a pure body, not yet closed.
    pub nest: u32,
}

/// RisuAI's truth: exactly `1` or `true`.
pub(super) fn truthy(s: &str) -> bool {
    s == "1" || s == "true"
}

fn bool_text(b: bool) -> String {
    if b { "1" } else { "0" }.to_string()
}

impl Block {
    /// The block an opener (its evaluated text, `#` first) starts; `None`
    /// for an opener RisuAI does not know, which stays as written.
    pub fn open(header: &str, run: &mut Run<'_, '_>) -> Option<Block> {
        let second_word = |h: &str| h.split(' ').nth(1).is_some_and(truthy);
        let (kind, pure) = if header.starts_with("#if_pure") {
            let cond = second_word(header);
            (Kind::IfPure(cond), !cond)
        } else if header.starts_with("#if") {
            let cond = second_word(header);
            (Kind::If(cond), !cond)
        } else if let Some(ops) = header.strip_prefix("#when::") {
            let (cond, keep, legacy) = when(ops, run);
            (Kind::When { cond, keep, legacy }, legacy && !cond)
        } else if header.starts_with("#when ") {
            let cond = second_word(header);
            (
                Kind::When {
                    cond,
                    keep: false,
                    legacy: false,
                },
                false,
            )
        } else if header.starts_with("#when") {
            (
                Kind::When {
                    cond: false,
                    keep: false,
                    legacy: false,
                },
                false,
            )
        } else if header == "#pure" {
            (Kind::Pure, true)
        } else if header == "#puredisplay" || header == "#pure_display" {
            (Kind::PureDisplay, true)
        } else if header == "#escape" || header == "#escape::keep" {
            (
                Kind::Escape {
                    keep: header.ends_with("::keep"),
                },
                true,
            )
        } else if header == "#code" {
            (Kind::Code, false)
        } else if let Some((rest, keep)) = header
            .strip_prefix("#each::keep ")
            .map(|r| (r, true))
            .or_else(|| header.strip_prefix("#each ").map(|r| (r, false)))
        {
            let (array, name) = match rest.rfind(" as ") {
                Some(at) => (&rest[..at], rest[at + 4..].trim()),
                None => match rest.trim_end().rfind(' ') {
                    Some(at) => (&rest[..at], rest[at + 1..].trim()),
                    None => (rest, ""),
                },
            };
            (
                Kind::Each {
                    items: array_items(array),
                    name: name.to_string(),
                    keep,
                },
                true,
            )
        } else if let Some(rest) = header.strip_prefix("#func ") {
            let name = rest.split(' ').next().unwrap_or("").to_string();
            (Kind::Func(name), true)
        } else {
            return None;
        };
        Some(Block {
            kind,
            body: String::new(),
            pure,
            nest: 0,
        })
    }

    /// The block's text once closed. `Err` is a `{{return}}` inside an
    /// `{{#each}}` body.
    pub fn finish(self, run: &mut Run<'_, '_>) -> Result<String, String> {
        let body = self.body;
        Ok(match self.kind {
            Kind::If(true) => if_trim(&body),
            Kind::If(false) | Kind::IfPure(false) => String::new(),
            Kind::IfPure(true) => body,
            Kind::When {
                cond, legacy: true, ..
            } => {
                if cond {
                    if_trim(&body)
                } else {
                    String::new()
                }
            }
            Kind::When { cond, keep, .. } => when_body(&body, cond, keep),
            Kind::Pure => body.trim().to_string(),
            Kind::PureDisplay => body.trim().replace("{{", "\\{\\{").replace("}}", "\\}\\}"),
            Kind::Escape { keep } => {
                let text = if keep { body.as_str() } else { body.trim() };
                text.chars()
                    .map(|c| match c {
                        '{' => OPEN_BRACE,
                        '}' => CLOSE_BRACE,
                        '(' => OPEN_PAREN,
                        ')' => CLOSE_PAREN,
                        c => c,
                    })
                    .collect()
            }
            Kind::Code => code(&body),
            Kind::Each { items, name, keep } => {
                let shaped = if keep { body.clone() } else { if_trim(&body) };
                let slot = format!("{{{{slot::{name}}}}}");
                let mut all = String::new();
                for item in &items {
                    if all.len() > super::MAX_MADE {
                        break;
                    }
                    all.push_str(&shaped.replace(&slot, item));
                }
                let all = if keep { all } else { all.trim().to_string() };
                // The repeated text is read again: its calls run once per item.
                run.spliced(&all)?
            }
            Kind::Func(name) => {
                run.funcs.insert(name, body.trim().to_string());
                String::new()
            }
        })
    }
}

/// `#if`'s shaping: trimmed, every line's indentation removed, trimmed.
fn if_trim(body: &str) -> String {
    body.trim()
        .split('\n')
        .map(str::trim_start)
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// `#when`'s body: on one line split at the first `{{:else}}`, untrimmed;
/// on several, at a line that is only `{{:else}}`, the blank lines at
/// either end dropped unless `keep`.
fn when_body(body: &str, cond: bool, keep: bool) -> String {
    const ELSE: &str = "{{:else}}";
    if !body.contains('\n') {
        return match body.find(ELSE) {
            Some(at) if cond => body[..at].to_string(),
            Some(at) => body[at + ELSE.len()..].to_string(),
            None if cond => body.to_string(),
            None => String::new(),
        };
    }
    let lines: Vec<&str> = body.split('\n').collect();
    let chosen: &[&str] = match lines.iter().position(|l| l.trim() == ELSE) {
        Some(at) if cond => &lines[..at],
        Some(at) => &lines[at + 1..],
        None if cond => &lines,
        None => &[],
    };
    let mut chosen = chosen;
    if !keep {
        while chosen.first().is_some_and(|l| l.trim().is_empty()) {
            chosen = &chosen[1..];
        }
        while chosen.last().is_some_and(|l| l.trim().is_empty()) {
            chosen = &chosen[..chosen.len() - 1];
        }
    }
    chosen.join("\n")
}

/// `#code`'s body: trimmed, line breaks and tabs removed, then backslash
/// escapes read.
fn code(body: &str) -> String {
    let flat: String = body
        .trim()
        .chars()
        .filter(|c| *c != '\n' && *c != '\t')
        .collect();
    let mut out = String::with_capacity(flat.len());
    let mut chars = flat.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('u') => {
                let hex: String = chars.clone().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) if hex.len() == 4 => {
                        out.push(ch);
                        for _ in 0..4 {
                            chars.next();
                        }
                    }
                    _ => out.push('u'),
                }
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// An array argument: JSON, else the text split on `§`; strings as they
/// are, other values as JSON.
pub(super) fn array_items(text: &str) -> Vec<String> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Array(items)) => items.iter().map(value_text).collect(),
        _ => text.split('§').map(str::to_string).collect(),
    }
}

/// A JSON value as text: a string as it is, anything else as JSON.
pub(super) fn value_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Number(n) => super::js_number(n.as_f64().unwrap_or(f64::NAN)),
        other => other.to_string(),
    }
}

/// `#when::…`'s condition, read from the right: an operator takes the
/// piece after it (and a binary one the piece before); `keep` and
/// `legacy` pass their operand on; an unknown word is passed over.
/// Returns the condition, `keep` and `legacy`.
fn when(ops: &str, run: &mut Run<'_, '_>) -> (bool, bool, bool) {
    let mut stack: Vec<String> = ops.split("::").map(str::to_string).collect();
    let (mut keep, mut legacy) = (false, false);
    let inputs = run.cbs.inputs;
    while stack.len() > 1 {
        let right = stack.pop().expect("two pieces or more");
        let op = stack.pop().expect("two pieces or more");
        let binary = |stack: &mut Vec<String>, f: &dyn Fn(&str) -> bool| {
            let left = stack.pop().unwrap_or_default();
            stack.push(bool_text(f(&left)));
        };
        match op.as_str() {
            "keep" => {
                keep = true;
                stack.push(right);
            }
            "legacy" => {
                legacy = true;
                stack.push(right);
            }
            "not" => stack.push(bool_text(!truthy(&right))),
            "var" => stack.push(bool_text(truthy(&inputs.chat_var(&right)))),
            "toggle" => stack.push(bool_text(truthy(
                &inputs.global_var(&format!("toggle_{right}")),
            ))),
            "is" => binary(&mut stack, &|l| l == right),
            "isnot" => binary(&mut stack, &|l| l != right),
            "and" => binary(&mut stack, &|l| truthy(l) && truthy(&right)),
            "or" => binary(&mut stack, &|l| truthy(l) || truthy(&right)),
            ">" | "<" | ">=" | "<=" => {
                let b = super::calc::parse_float(&right);
                binary(&mut stack, &|l| {
                    let a = super::calc::parse_float(l);
                    match op.as_str() {
                        ">" => a > b,
                        "<" => a < b,
                        ">=" => a >= b,
                        _ => a <= b,
                    }
                })
            }
            "vis" => binary(&mut stack, &|l| inputs.chat_var(l) == right),
            "visnot" => binary(&mut stack, &|l| inputs.chat_var(l) != right),
            "tis" => binary(&mut stack, &|l| {
                inputs.global_var(&format!("toggle_{l}")) == right
            }),
            "tisnot" => binary(&mut stack, &|l| {
                inputs.global_var(&format!("toggle_{l}")) != right
            }),
            // An unknown word passes its operand's truth on.
            _ => stack.push(bool_text(truthy(&right))),
        }
    }
    let cond = stack.first().is_some_and(|s| truthy(s));
    (cond, keep, legacy)
}

/// `{{call::name::args…}}`: the function's body with `{{arg::0}}` its name
/// and `{{arg::N}}` the Nth argument, read again.
pub(super) fn call(run: &mut Run<'_, '_>, args: &[&str]) -> Result<Out, String> {
    let Some(name) = args.first() else {
        return Ok(Out::Verbatim);
    };
    let Some(body) = run.funcs.get(*name).cloned() else {
        return Ok(Out::Verbatim);
    };
    let mut text = body;
    for (i, a) in args.iter().enumerate() {
        text = text.replace(&format!("{{{{arg::{i}}}}}"), a);
    }
    Ok(Out::Text(run.nested(&text)))
}
