//! The few JavaScript conversions SillyTavern's macros lean on: what
//! `Number(x)` reads, how a number prints, what counts as "false", and
//! how a stored variable turns into text (variables.js: `getLocalVariable`
//! returns numbers for numeric text; the macro engine's
//! `normalizeMacroResult` prints them).

use serde_json::Value;

pub use crate::sillytavern::matching::{is_js_ws as is_ws, js_trim as trim};

/// JavaScript's `Number(text)`: blank is 0; decimal with optional sign,
/// fraction and exponent; `0x`, `0o`, `0b` integers; `Infinity`; else NaN.
pub fn number(text: &str) -> f64 {
    let t = trim(text);
    if t.is_empty() {
        return 0.0;
    }
    let radix = |digits: &str, r: u32| -> f64 {
        if digits.is_empty() {
            return f64::NAN;
        }
        digits
            .chars()
            .try_fold(0f64, |acc, c| {
                c.to_digit(r).map(|d| acc * r as f64 + d as f64)
            })
            .unwrap_or(f64::NAN)
    };
    let lower = t.to_ascii_lowercase();
    if let Some(d) = lower.strip_prefix("0x") {
        return radix(d, 16);
    }
    if let Some(d) = lower.strip_prefix("0o") {
        return radix(d, 8);
    }
    if let Some(d) = lower.strip_prefix("0b") {
        return radix(d, 2);
    }
    let (sign, body) = match t.as_bytes()[0] {
        b'-' => (-1.0, &t[1..]),
        b'+' => (1.0, &t[1..]),
        _ => (1.0, t),
    };
    if body == "Infinity" {
        return sign * f64::INFINITY;
    }
    // Rust's float syntax is wider (`inf`, `nan`, `1_0` no, but `infinity`):
    // only digits, one dot, and an exponent are JavaScript's.
    let ok = {
        let (mantissa, exp) = match body.find(['e', 'E']) {
            Some(at) => (&body[..at], Some(&body[at + 1..])),
            None => (body, None),
        };
        let digits = mantissa.chars().filter(|c| c.is_ascii_digit()).count();
        let dots = mantissa.chars().filter(|&c| c == '.').count();
        let mantissa_ok = digits > 0 && dots <= 1 && digits + dots == mantissa.len();
        let exp_ok = exp.is_none_or(|e| {
            let e = e.strip_prefix(['+', '-']).unwrap_or(e);
            !e.is_empty() && e.chars().all(|c| c.is_ascii_digit())
        });
        mantissa_ok && exp_ok
    };
    if !ok {
        return f64::NAN;
    }
    body.parse::<f64>().map_or(f64::NAN, |v| sign * v)
}

/// How JavaScript prints a number (`String(n)`).
pub fn number_text(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if n == 0.0 {
        return "0".into();
    }
    let abs = n.abs();
    if (1e-6..1e21).contains(&abs) {
        // Rust prints the shortest text that reads back, without exponent,
        // as JavaScript does in this range.
        return format!("{n}");
    }
    // Exponent form: `1e+21`, `1.5e-7`.
    let e = format!("{n:e}");
    match e.split_once('e') {
        Some((m, x)) if !x.starts_with('-') => format!("{m}e+{x}"),
        _ => e,
    }
}

/// utils.js `isFalseBoolean`: `off`, `false` or `0`, any case, trimmed.
pub fn is_false_word(text: &str) -> bool {
    let t = trim(text).to_lowercase();
    matches!(t.as_str(), "off" | "false" | "0")
}

/// What `Number(value)` gives for a stored JSON value.
fn value_number(v: &Value) -> f64 {
    match v {
        Value::Null => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => number(s),
        // An array reads as its text: its items joined with commas.
        Value::Array(_) => number(&plain_text(v)),
        Value::Object(_) => f64::NAN,
    }
}

/// `String(value)` for a stored value, as JavaScript prints it.
pub fn plain_text(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_text(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::Null => String::new(),
                other => plain_text(other),
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => "[object Object]".into(),
    }
}

/// A variable as its macro prints it: missing is empty; numeric text and
/// other values that read as numbers print as that number (`"007"` is
/// `7`); blank or non-numeric text as it is; objects and arrays that are
/// no number as JSON.
pub fn variable_text(v: Option<&Value>) -> String {
    let Some(v) = v else {
        return String::new();
    };
    if let Value::String(s) = v {
        if trim(s).is_empty() {
            return s.clone();
        }
    }
    let n = value_number(v);
    if !n.is_nan() {
        return number_text(n);
    }
    match v {
        Value::String(s) => s.clone(),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_read_as_javascript_does() {
        for (t, n) in [
            ("", 0.0),
            (" 5 ", 5.0),
            ("0x1F", 31.0),
            ("1e3", 1000.0),
            (".5", 0.5),
            ("5.", 5.0),
            ("-Infinity", f64::NEG_INFINITY),
        ] {
            assert_eq!(number(t), n, "{t:?}");
        }
        for t in ["abc", "1_0", "inf", "nan", "1e", "--1", "0x"] {
            assert!(number(t).is_nan(), "{t:?}");
        }
    }

    #[test]
    fn numbers_print_as_javascript_does() {
        for (n, t) in [
            (7.0, "7"),
            (0.1, "0.1"),
            (-0.0, "0"),
            (1e21, "1e+21"),
            (1.5e-7, "1.5e-7"),
            (123456789.5, "123456789.5"),
        ] {
            assert_eq!(number_text(n), t);
        }
    }

    // variables.js: getLocalVariable's numeric reading.
    #[test]
    fn variables_print_as_their_macro_does() {
        assert_eq!(variable_text(None), "");
        assert_eq!(variable_text(Some(&json!("007"))), "7");
        assert_eq!(variable_text(Some(&json!("  "))), "  ");
        assert_eq!(variable_text(Some(&json!("dragon"))), "dragon");
        assert_eq!(variable_text(Some(&json!(true))), "1");
        assert_eq!(variable_text(Some(&json!([]))), "0");
        assert_eq!(variable_text(Some(&json!({"a": 1}))), "{\"a\":1}");
        assert!(is_false_word(" OFF ") && !is_false_word("no"));
    }
}
