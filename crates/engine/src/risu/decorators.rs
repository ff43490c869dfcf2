//! RisuAI's decorator block, read as RisuAI 460ecae reads it (the
//! `parseDecorators` function of its card library, which
//! `loadLoreBookV3Prompt` calls), and JavaScript's number reading.
//!
//! Rules (docs/risu-rules.md, "Decorators"):
//! - the content is trimmed and split on `\n`; each line is trimmed only to
//!   look at it, so `\r` stays inside the body;
//! - `@@@end` alone on a line reads as `@@end`;
//! - lines are decorators while they start with `@@`; the first line that
//!   does not (a blank line too) starts the body, which is the rest of the
//!   lines joined with `\n` and trimmed; all decorators give an empty body;
//! - the name runs to the first space (a tab does not end it) and is
//!   case-sensitive; the arguments are the rest split on `,`, trimmed, the
//!   empty ones left out;
//! - a `@@@` line is read only when the decorator line before it failed;
//!   a line with an empty name is read as a success.

pub use super::names::Name;

/// One decorator line: its name, its arguments and whether it was written
/// `@@@` (a fallback).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub name: String,
    pub args: Vec<String>,
    pub fallback: bool,
    /// 1-based line number in the trimmed content.
    pub number: usize,
    /// The decorator the name is, for the handler.
    pub kind: Name,
    /// The first argument read by JavaScript's `parseInt` (its `f64`
    /// bits; NaN without one), read once here rather than per evaluation
    /// ([`Line::int`]).
    int_bits: u64,
}

impl Line {
    /// The first argument as JavaScript's `parseInt` reads it.
    pub fn int(&self) -> f64 {
        f64::from_bits(self.int_bits)
    }
}

/// The decorator lines of a content and its body.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed {
    pub lines: Vec<Line>,
    pub body: String,
}

/// JavaScript's `String.prototype.trim`: Unicode white space, line
/// terminators and the byte-order mark.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

/// Splits `content` into its decorator lines and its body. Fallback lines
/// are all kept; which of them run depends on the handler's answers (see
/// [`run`]).
pub fn parse(content: &str) -> Parsed {
    let trimmed = js_trim(content);
    let lines: Vec<&str> = trimmed.split('\n').collect();
    let mut out = Vec::new();
    for (i, raw) in lines.iter().enumerate() {
        let mut line = js_trim(raw);
        if line == "@@@end" {
            line = "@@end";
        }
        let Some(rest) = line.strip_prefix("@@") else {
            let body = lines[i..].join("\n");
            return Parsed {
                lines: out,
                body: js_trim(&body).to_string(),
            };
        };
        let (fallback, rest) = match rest.strip_prefix('@') {
            Some(r) => (true, r),
            None => (false, rest),
        };
        let (name, args) = match rest.find(' ') {
            Some(at) => (&rest[..at], &rest[at..]),
            None => (rest, ""),
        };
        let args: Vec<String> = args
            .split(',')
            .map(js_trim)
            .filter(|a| !a.is_empty())
            .map(str::to_string)
            .collect();
        let int_bits = js_parse_int(args.first()).to_bits();
        out.push(Line {
            kind: Name::of(name),
            name: name.to_string(),
            args,
            fallback,
            number: i + 1,
            int_bits,
        });
    }
    Parsed {
        lines: out,
        body: String::new(),
    }
}

/// Runs `handler` over the lines the way RisuAI does: a `@@@` line only
/// when the line before failed (`false`), a line with an empty name as a
/// success without calling it.
pub fn run(lines: &[Line], mut handler: impl FnMut(&Line) -> bool) {
    let mut failed = false;
    for l in lines {
        if l.fallback && !failed {
            continue;
        }
        if l.name.is_empty() {
            failed = false;
            continue;
        }
        failed = !handler(l);
    }
}

/// JavaScript's `parseInt(s)` (radix unset): leading white space, a sign,
/// `0x` for hexadecimal, then the longest run of digits; `NaN` when there
/// is none.
pub fn js_parse_int(s: Option<&String>) -> f64 {
    let Some(s) = s else { return f64::NAN };
    let t = js_trim(s);
    let (negative, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (radix, digits) = match t.get(..2) {
        Some("0x" | "0X") => (16, &t[2..]),
        _ => (10, t),
    };
    let mut value = 0f64;
    let mut any = false;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else { break };
        value = value * f64::from(radix) + f64::from(d);
        any = true;
    }
    match (any, negative) {
        (false, _) => f64::NAN,
        (true, true) => -value,
        (true, false) => value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(p: &Parsed) -> Vec<(&str, Vec<&str>, bool)> {
        p.lines
            .iter()
            .map(|l| {
                (
                    l.name.as_str(),
                    l.args.iter().map(String::as_str).collect(),
                    l.fallback,
                )
            })
            .collect()
    }

    /// parseDecorators: a blank line ends the block, `\r` stays in the body.
    #[test]
    fn parse_decorators_block_and_body() {
        let p = parse("  \n@@depth 4\r\n@@role user\r\nBody\r\nmore\n@@depth 1\n");
        assert_eq!(
            names(&p),
            [("depth", vec!["4"], false), ("role", vec!["user"], false)]
        );
        assert_eq!(p.body, "Body\r\nmore\n@@depth 1");
        let p = parse("@@depth 0\n\n@@role user\nBody");
        assert_eq!(names(&p), [("depth", vec!["0"], false)]);
        assert_eq!(p.body, "@@role user\nBody");
        assert_eq!(parse("@@depth 0").body, "");
    }

    /// parseDecorators: names end at a space, arguments split on commas.
    #[test]
    fn parse_decorators_names_and_arguments() {
        let p = parse("@@additional_keys a, ,b ,\n@@depth\t3\n@@@end\n@@@role user\nx");
        assert_eq!(
            names(&p),
            [
                ("additional_keys", vec!["a", "b"], false),
                ("depth\t3", vec![], false),
                ("end", vec![], false),
                ("role", vec!["user"], true),
            ]
        );
    }

    /// parseDecorators: a fallback runs only after a failure.
    #[test]
    fn parse_decorators_fallbacks() {
        let p = parse("@@@depth 1\n@@a\n@@@b\n@@@c\n@@d\n@@@e\nx");
        let mut ran = Vec::new();
        run(&p.lines, |l| {
            ran.push(l.name.clone());
            l.name != "a" && l.name != "b"
        });
        assert_eq!(ran, ["a", "b", "c", "d"]);
    }

    #[test]
    fn js_parse_int_cases() {
        let n = |s: &str| js_parse_int(Some(&s.to_string()));
        assert_eq!(n("4.9"), 4.0);
        assert_eq!(n("3abc"), 3.0);
        assert_eq!(n("-2"), -2.0);
        assert_eq!(n("0x1f"), 31.0);
        assert!(n("abc").is_nan());
        assert!(js_parse_int(None).is_nan());
    }
}
