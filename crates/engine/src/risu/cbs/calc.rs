//! CBS arithmetic (`{{? …}}`, `{{calc::…}}`) and JavaScript's reading and
//! writing of numbers, which every numeric CBS function goes through.
//!
//! An expression is worked out innermost parentheses first, each group's
//! number pasted back as text. A flat expression reads `$name` as a chat
//! variable and `@name` as a global one (not a number: 0), turns the
//! two-character operators into one-character ones, reads `null` as 0,
//! drops every space, then splits numbers from operators. A `-` at the
//! start or after an operator belongs to the number. A piece that is not a
//! number (0 itself aside, a piece reading as zero) is dropped without a
//! word, so `0.0+1` is left with an operator short of an operand: NaN.
//! `Number()` and the printing of numbers are SillyTavern's macros' own
//! JavaScript helpers (`sillytavern::macros::js`): one reading of
//! JavaScript for both front-ends.

use super::CbsInputs;
pub(crate) use crate::sillytavern::macros::js::{number, number_text as js_number};

/// Operators after the two-character ones are made single.
const OPS: [char; 15] = [
    '+', '-', '*', '/', '%', '^', '<', '>', '≤', '≥', '=', '≠', '&', '|', '!',
];

fn precedence(op: char) -> u8 {
    match op {
        '!' => 5,
        '^' => 4,
        '*' | '/' | '%' => 3,
        '+' | '-' => 2,
        _ => 1,
    }
}

/// `expr` worked out, as JavaScript prints the number. Groups are read
/// in one pass with a stack: each `)` closes the innermost open `(`, its
/// number pasted back as text; a `)` with nothing open is kept as a
/// character and an unclosed `(` is dropped.
pub(super) fn calc(expr: &str, inputs: &CbsInputs) -> String {
    let mut open: Vec<String> = vec![String::new()];
    for c in expr.chars() {
        match c {
            '(' => open.push(String::new()),
            ')' if open.len() > 1 => {
                let inner = open.pop().expect("more than one");
                let value = js_number(flat(&inner, inputs));
                open.last_mut().expect("the outer text").push_str(&value);
            }
            c => open.last_mut().expect("the outer text").push(c),
        }
    }
    let mut text = String::new();
    for part in open {
        text.push_str(&part);
    }
    js_number(flat(&text, inputs))
}

/// A variable's value as a number: JavaScript's `parseFloat`, NaN as 0.
fn var_number(text: &str) -> String {
    let n = parse_float(text);
    js_number(if n.is_nan() { 0.0 } else { n })
}

fn flat(expr: &str, inputs: &CbsInputs) -> f64 {
    // Variables.
    let mut s = String::with_capacity(expr.len());
    let mut chars = expr.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c == '$' || c == '@' {
            let name: String = expr[at + 1..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                let value = if c == '$' {
                    inputs.chat_var(&name)
                } else {
                    inputs.global_var(&name)
                };
                s.push_str(&var_number(&value));
                for _ in 0..name.chars().count() {
                    chars.next();
                }
                continue;
            }
        }
        s.push(c);
    }
    let s = s
        .replace("&&", "&")
        .replace("||", "|")
        .replace("<=", "≤")
        .replace(">=", "≥")
        .replace("==", "=")
        .replace("!=", "≠");
    let s = replace_null(&s);
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    evaluate(&tokens(&s))
}

/// Every `null`, in any case, as `0`.
fn replace_null(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s.get(i..i + 4)
            .is_some_and(|w| w.eq_ignore_ascii_case("null"))
        {
            out.push('0');
            i += 4;
        } else {
            let c = s[i..].chars().next().expect("in the text");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Num(f64),
    Op(char),
    /// `!` before an operand.
    Not,
}

fn tokens(s: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut number = String::new();
    // Whether the last thing read was an operator (or nothing).
    let mut after_op = true;
    let push_number = |number: &mut String, out: &mut Vec<Token>| {
        if number.is_empty() {
            return;
        }
        let n = parse_float(number);
        // A piece reading as zero counts only when it is `0` itself.
        if (n != 0.0 && !n.is_nan()) || number == "0" {
            out.push(Token::Num(n));
        }
        number.clear();
    };
    for c in s.chars() {
        if OPS.contains(&c) {
            if c == '-' && after_op && number.is_empty() {
                number.push('-');
                continue;
            }
            push_number(&mut number, &mut out);
            if c == '!' && after_op {
                out.push(Token::Not);
            } else {
                if after_op && c != '!' && !matches!(out.last(), Some(Token::Num(_))) {
                    // An operator with nothing on its left takes 0.
                    out.push(Token::Num(0.0));
                }
                out.push(Token::Op(c));
            }
            after_op = true;
        } else {
            number.push(c);
            after_op = false;
        }
    }
    push_number(&mut number, &mut out);
    // An operator at the very end has nothing to work on: left out.
    if matches!(out.last(), Some(Token::Op(_) | Token::Not)) {
        out.pop();
    }
    out
}

fn evaluate(tokens: &[Token]) -> f64 {
    if tokens.is_empty() {
        return 0.0;
    }
    // To postfix: equal precedence leaves left to right.
    let mut postfix: Vec<Token> = Vec::new();
    let mut ops: Vec<Token> = Vec::new();
    let prec = |t: &Token| match t {
        Token::Op(c) => precedence(*c),
        Token::Not => 5,
        Token::Num(_) => 0,
    };
    for t in tokens {
        match t {
            Token::Num(_) => postfix.push(t.clone()),
            Token::Not => ops.push(t.clone()),
            Token::Op(_) => {
                while ops.last().is_some_and(|top| prec(top) >= prec(t)) {
                    postfix.push(ops.pop().expect("checked"));
                }
                ops.push(t.clone());
            }
        }
    }
    while let Some(op) = ops.pop() {
        postfix.push(op);
    }
    let mut stack: Vec<f64> = Vec::new();
    for t in postfix {
        match t {
            Token::Num(n) => stack.push(n),
            Token::Not => {
                let a = stack.pop().unwrap_or(f64::NAN);
                stack.push(if a == 0.0 || a.is_nan() { 1.0 } else { 0.0 });
            }
            Token::Op(c) => {
                let (Some(b), Some(a)) = (stack.pop(), stack.pop()) else {
                    return f64::NAN;
                };
                let bool_n = |x: bool| if x { 1.0 } else { 0.0 };
                let truthy = |x: f64| x != 0.0 && !x.is_nan();
                stack.push(match c {
                    '+' => a + b,
                    '-' => a - b,
                    '*' => a * b,
                    '/' => a / b,
                    '%' => a % b,
                    '^' => a.powf(b),
                    '<' => bool_n(a < b),
                    '>' => bool_n(a > b),
                    '≤' => bool_n(a <= b),
                    '≥' => bool_n(a >= b),
                    '=' => bool_n(a == b),
                    '≠' => bool_n(a != b),
                    '&' => {
                        if truthy(a) {
                            b
                        } else {
                            a
                        }
                    }
                    _ => {
                        if truthy(a) {
                            a
                        } else {
                            b
                        }
                    }
                });
            }
        }
    }
    stack.pop().unwrap_or(f64::NAN)
}

/// JavaScript's `parseFloat`: the longest number at the start (after
/// white space), `Infinity` too; NaN when there is none.
pub(crate) fn parse_float(text: &str) -> f64 {
    let s = text.trim_start();
    let (sign, body) = match s.as_bytes().first() {
        Some(b'-') => (-1.0, &s[1..]),
        Some(b'+') => (1.0, &s[1..]),
        _ => (1.0, s),
    };
    if body.starts_with("Infinity") {
        return sign * f64::INFINITY;
    }
    let b = body.as_bytes();
    let mut end = 0;
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    let int_digits = end;
    if end < b.len() && b[end] == b'.' {
        let mut j = end + 1;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > end + 1 || int_digits > 0 {
            end = j;
        }
    }
    if end == 0 || (end == 1 && b[0] == b'.') {
        return f64::NAN;
    }
    if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
        let mut j = end + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let digits = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > digits {
            end = j;
        }
    }
    body[..end].parse::<f64>().map_or(f64::NAN, |n| sign * n)
}
