//! How SillyTavern 1.19's macro engine ("Macros 2.0") reads a text into
//! plain runs and macros (macros/engine/MacroLexer.js and MacroParser.js:
//! a lexer with modes and a parser over its tokens). Written here as one
//! scanner that follows the same modes, in our own words:
//!
//! - A macro opens with `{{`. In a run of braces the last two open it
//!   (`{{{x}}` is `{` then the macro `{{x}}`).
//! - After `{{` come flags (`!`, `?`, `~`, `#`, `/`, `>`, whitespace between
//!   them allowed), then either a variable shorthand (`.name` local, `$name`
//!   global, with an optional operator) or a name: `//` (the comment) or a
//!   letter followed by letters, digits, `_` or `-`. Anything else means the
//!   `{{` was plain text.
//! - After a name: `}}` closes it; whitespace, `:`, `|` or `}` begins its
//!   arguments; any other character is dropped up to the next of those (the
//!   lexer's error recovery: `{{user.name}}` is `{{user}}`).
//! - Arguments run to the `}}` that is not inside a nested macro. If they
//!   begin with `::`, each `::` separates two of them; otherwise (after an
//!   optional single `:`) everything is one argument. An argument is its text
//!   from its first to its last non-blank character.
//! - A text whose macro never closes keeps its `{{` as text, and the macros
//!   inside it are still read.

use std::cell::Cell;

use super::js::is_ws;

/// A byte range of the text being read.
pub type Span = (usize, usize);

/// What a text holds at the top level.
#[derive(Debug, Clone)]
pub enum Item {
    Text(Span),
    Macro(Node),
}

/// One macro, from its `{{` to its `}}`.
#[derive(Debug, Clone)]
pub struct Node {
    pub start: usize,
    /// Just past the closing `}}`.
    pub end: usize,
    /// Flag characters in the order written.
    pub flags: Vec<char>,
    pub body: Body,
}

#[derive(Debug, Clone)]
pub enum Body {
    /// A named macro; `None` arguments are empty ones (`{{getvar::}}`).
    Named { name: Span, args: Vec<Option<Span>> },
    /// `.name` or `$name` with its operator and value.
    Var {
        global: bool,
        name: Span,
        op: Option<VarOp>,
        value: Option<Span>,
    },
}

/// The operators of a variable shorthand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarOp {
    Inc,
    Dec,
    Set,
    Add,
    Sub,
    Or,
    Nullish,
    OrAssign,
    NullishAssign,
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

/// The value operators, longest first where one begins another.
const VALUE_OPS: [(&str, VarOp); 13] = [
    ("??=", VarOp::NullishAssign),
    ("??", VarOp::Nullish),
    ("||=", VarOp::OrAssign),
    ("||", VarOp::Or),
    ("-=", VarOp::Sub),
    ("==", VarOp::Eq),
    ("!=", VarOp::Ne),
    (">=", VarOp::Ge),
    (">", VarOp::Gt),
    ("<=", VarOp::Le),
    ("<", VarOp::Lt),
    ("+=", VarOp::Add),
    ("=", VarOp::Set),
];

/// How deep macros may nest inside arguments before the inner ones are
/// read as text (a guard against stack exhaustion; real texts nest a few).
pub const MAX_NESTING: usize = 48;

/// Reads `text` into plain runs and top-level macros, in order. `steps`
/// bounds the work of all the reading one expansion does (each token
/// costs one); once spent, every later `{{` reads as text and the caller
/// keeps the text as written.
pub fn document(text: &str, steps: &Cell<u64>) -> Vec<Item> {
    let mut items = Vec::new();
    let mut plain_from = 0;
    let mut i = 0;
    let b = text.as_bytes();
    // No macro opens after the last `}}`: an unclosed `{{` is not read again
    // and again to the end.
    let last_close = text.rfind("}}").unwrap_or(0);
    while let Some(found) = text[i..].find("{{") {
        let mut at = i + found;
        if at >= last_close {
            break;
        }
        // The last two braces of a run open the macro.
        while b.get(at + 2) == Some(&b'{') {
            at += 1;
        }
        match parse_macro(text, at, 0, steps) {
            Some(node) => {
                if at > plain_from {
                    items.push(Item::Text((plain_from, at)));
                }
                i = node.end;
                plain_from = node.end;
                items.push(Item::Macro(node));
            }
            None => i = at + 2,
        }
    }
    if plain_from < text.len() {
        items.push(Item::Text((plain_from, text.len())));
    }
    items
}

fn skip_ws(text: &str, mut i: usize) -> usize {
    while let Some(c) = text[i..].chars().next() {
        if !is_ws(c) {
            break;
        }
        i += c.len_utf8();
    }
    i
}

fn ident_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'-') {
        i += 1;
    }
    i
}

/// The macro opening at `at` (which holds `{{`), or `None` when those
/// braces are plain text.
pub fn parse_macro(text: &str, at: usize, depth: usize, steps: &Cell<u64>) -> Option<Node> {
    if depth > MAX_NESTING || steps.get() == 0 {
        return None;
    }
    let b = text.as_bytes();
    let mut i = at + 2;
    let mut flags = Vec::new();
    loop {
        i = skip_ws(text, i);
        let rest = &text[i..];
        if rest.starts_with("//") {
            let name = (i, i + 2);
            let (args, end) = arguments(text, i + 2, depth, steps)?;
            return Some(Node {
                start: at,
                end,
                flags,
                body: Body::Named { name, args },
            });
        }
        match rest.chars().next()? {
            c @ ('.' | '$') => {
                let (body, end) = variable(text, i + 1, c == '$', depth, steps)?;
                return Some(Node {
                    start: at,
                    end,
                    flags,
                    body,
                });
            }
            c @ ('!' | '?' | '~' | '#' | '/' | '>') => {
                flags.push(c);
                i += 1;
            }
            c if c.is_ascii_alphabetic() => break,
            _ => return None,
        }
    }
    let name = (i, ident_end(b, i + 1));
    i = name.1;
    // After the name: `}}`, or what begins the arguments; other characters
    // are dropped up to one of those.
    loop {
        let rest = &text[i..];
        if rest.starts_with("}}") {
            return Some(Node {
                start: at,
                end: i + 2,
                flags,
                body: Body::Named { name, args: vec![] },
            });
        }
        let c = rest.chars().next()?;
        if is_ws(c) || c == ':' || c == '|' || c == '}' {
            break;
        }
        i += c.len_utf8();
    }
    let (args, end) = arguments(text, i, depth, steps)?;
    Some(Node {
        start: at,
        end,
        flags,
        body: Body::Named { name, args },
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tok {
    DoubleColon,
    Colon,
    Other,
}

/// Tokens up to the closing `}}` (skipping blanks and nested macros as one
/// token each), and the position just past that `}}`.
fn tokens(
    text: &str,
    mut i: usize,
    depth: usize,
    steps: &Cell<u64>,
) -> Option<(Vec<(Tok, Span)>, usize)> {
    let mut out = Vec::new();
    loop {
        let left = steps.get().checked_sub(1)?;
        steps.set(left);
        i = skip_ws(text, i);
        let rest = &text[i..];
        if rest.starts_with("}}") {
            return Some((out, i + 2));
        }
        if rest.starts_with("{{") {
            let mut at = i;
            while text.as_bytes().get(at + 2) == Some(&b'{') {
                at += 1;
            }
            if let Some(node) = parse_macro(text, at, depth + 1, steps) {
                out.push((Tok::Other, (i, node.end)));
                i = node.end;
                continue;
            }
        }
        if rest.starts_with("::") {
            out.push((Tok::DoubleColon, (i, i + 2)));
            i += 2;
            continue;
        }
        let c = rest.chars().next()?;
        let kind = if c == ':' { Tok::Colon } else { Tok::Other };
        out.push((kind, (i, i + c.len_utf8())));
        i += c.len_utf8();
    }
}

fn span_of(toks: &[(Tok, Span)]) -> Option<Span> {
    Some((toks.first()?.1 .0, toks.last()?.1 .1))
}

/// A named macro's arguments from `i` to its `}}`.
fn arguments(
    text: &str,
    i: usize,
    depth: usize,
    steps: &Cell<u64>,
) -> Option<(Vec<Option<Span>>, usize)> {
    let (toks, end) = tokens(text, i, depth, steps)?;
    let Some(first) = toks.first() else {
        return Some((vec![], end));
    };
    if first.0 == Tok::DoubleColon {
        let args = toks[1..]
            .split(|t| t.0 == Tok::DoubleColon)
            .map(span_of)
            .collect();
        return Some((args, end));
    }
    let rest = if first.0 == Tok::Colon {
        &toks[1..]
    } else {
        &toks[..]
    };
    // One argument, `::` included; a lone `:` with nothing after it does
    // not read as a macro.
    let span = span_of(rest)?;
    Some((vec![Some(span)], end))
}

/// A variable shorthand after its `.` or `$`.
fn variable(
    text: &str,
    i: usize,
    global: bool,
    depth: usize,
    steps: &Cell<u64>,
) -> Option<(Body, usize)> {
    let b = text.as_bytes();
    let i = skip_ws(text, i);
    if !b.get(i)?.is_ascii_alphabetic() {
        return None;
    }
    // Letters, digits, `_` and `-`, not ending in `-`.
    let mut end = ident_end(b, i + 1);
    while b[end - 1] == b'-' {
        end -= 1;
    }
    let name = (i, end);
    let j = skip_ws(text, end);
    let rest = &text[j..];
    for (word, op) in [("++", VarOp::Inc), ("--", VarOp::Dec)] {
        if rest.starts_with(word) {
            let k = skip_ws(text, j + 2);
            return text[k..].starts_with("}}").then_some((
                Body::Var {
                    global,
                    name,
                    op: Some(op),
                    value: None,
                },
                k + 2,
            ));
        }
    }
    for (word, op) in VALUE_OPS {
        if rest.starts_with(word) {
            let (toks, close) = tokens(text, j + word.len(), depth, steps)?;
            return Some((
                Body::Var {
                    global,
                    name,
                    op: Some(op),
                    value: span_of(&toks),
                },
                close,
            ));
        }
    }
    rest.starts_with("}}").then_some((
        Body::Var {
            global,
            name,
            op: None,
            value: None,
        },
        j + 2,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        document(text, &Cell::new(1 << 20))
            .into_iter()
            .filter_map(|i| match i {
                Item::Macro(Node {
                    body: Body::Named { name, args },
                    ..
                }) => Some(format!(
                    "{}{:?}",
                    &text[name.0..name.1],
                    args.iter()
                        .map(|a| a.map_or("", |s| &text[s.0..s.1]))
                        .collect::<Vec<_>>()
                )),
                Item::Macro(_) => Some("var".into()),
                Item::Text(_) => None,
            })
            .collect()
    }

    // MacroLexer.js / MacroParser.js: the argument forms.
    #[test]
    fn arguments_by_separator() {
        assert_eq!(names("{{getvar::a}}"), ["getvar[\"a\"]"]);
        assert_eq!(names("{{setvar::a:: b c }}"), ["setvar[\"a\", \"b c\"]"]);
        assert_eq!(names("{{getvar a}}"), ["getvar[\"a\"]"]);
        assert_eq!(names("{{random:a::b}}"), ["random[\"a::b\"]"]);
        assert_eq!(names("{{getvar::}}"), ["getvar[\"\"]"]);
        assert_eq!(names("{{ user }}"), ["user[]"]);
        assert_eq!(names("{{user.name}}"), ["user[]"]);
        assert_eq!(names("{{if {{.a}}}}x"), ["if[\"{{.a}}\"]"]);
        assert_eq!(names("{{// a note }}"), ["//[\"a note\"]"]);
        assert_eq!(names("{{/if}}"), ["if[]"]);
    }

    #[test]
    fn what_is_not_a_macro() {
        assert!(names("{{}} {{ 1 }} {{user").is_empty());
        assert_eq!(names("{{{user}}}"), ["user[]"]);
        assert_eq!(names("{{if {{user}}"), ["user[]"]);
    }

    #[test]
    fn shorthand_operators() {
        for t in [
            "{{.a}}",
            "{{$a-b}}",
            "{{.a++}}",
            "{{.a < 10}}",
            "{{.a ?? {{user}}}}",
        ] {
            assert_eq!(names(t), ["var"], "{t}");
        }
        assert!(names("{{.a b}}").is_empty());
    }

    #[test]
    fn deep_nesting_stays_bounded() {
        let text = "{{if ".repeat(5000) + &"}}".repeat(5000);
        let steps = Cell::new(1 << 22);
        let _ = document(&text, &steps);
    }
}
