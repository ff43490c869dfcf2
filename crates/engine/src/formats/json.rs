//! JSON helpers every format uses: parsing with a located error, reading
//! typed fields out of an object with errors that name the field's path,
//! and pretty output. A leaf module, like [`super::error`].

use serde_json::Value;

use super::error::ImportError;
use crate::model::Object;

/// The most JSON values (arrays, objects, their members and elements) a
/// document may hold. Parsed, each value costs tens of bytes however short
/// its text: `[],` is 3 bytes and an empty array in memory about 80, so a
/// file within the 256 MiB cap could expand to gigabytes. 8 million is
/// 2–3 times a 100,000-entry SillyTavern book.
pub const MAX_JSON_VALUES: usize = 8_000_000;

/// How deep arrays and objects may nest: serde_json's recursion limit (its
/// counter of 128 refuses the 128th level),
/// which stays on (nothing here disables it), so parsing and dropping a
/// value never exhausts the stack.
pub const MAX_JSON_DEPTH: usize = 127;

/// An upper bound on the number of values in a JSON text, counted without
/// parsing: every `[`, `{`, `,` and `:` outside strings starts one. Stops
/// counting past `cap` (returns `cap + 1`), so the scan of an absurd file
/// is one pass over its bytes and nothing else.
pub fn count_json_values(text: &str, cap: usize) -> usize {
    let mut count = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in text.as_bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' | b',' | b':' => {
                count += 1;
                if count > cap {
                    return count;
                }
            }
            _ => {}
        }
    }
    count
}

/// The refusal of a JSON text holding more than [`MAX_JSON_VALUES`] values.
pub fn too_many_values() -> String {
    format!(
        "the JSON holds more than {MAX_JSON_VALUES} values (arrays, objects and their items); \
         such files are refused"
    )
}

/// Parses bytes as JSON with a located error. A UTF-8 byte order mark is
/// skipped. Documents of more than [`MAX_JSON_VALUES`] values or nested
/// deeper than [`MAX_JSON_DEPTH`] are refused with a clear error.
pub fn parse_json(bytes: &[u8]) -> Result<Value, ImportError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        ImportError::shape_of_file(format!(
            "the file is not UTF-8 text (invalid byte at offset {})",
            e.valid_up_to()
        ))
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if count_json_values(text, MAX_JSON_VALUES) > MAX_JSON_VALUES {
        return Err(ImportError::shape_of_file(too_many_values()));
    }
    serde_json::from_str(text).map_err(|e| located(&e))
}

/// serde_json's message, with its recursion limit said in words.
pub fn json_error_message(e: &serde_json::Error) -> String {
    let message = e.to_string();
    // serde_json appends " at line L column C"; keep only the cause.
    let message = match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    };
    if message == "recursion limit exceeded" {
        format!(
            "arrays and objects nested more than {MAX_JSON_DEPTH} levels deep; such files are refused"
        )
    } else {
        message
    }
}

/// A serde_json error as [`ImportError::Json`], with its line and column.
fn located(e: &serde_json::Error) -> ImportError {
    let message = json_error_message(e);
    ImportError::Json {
        line: e.line(),
        column: e.column(),
        message,
    }
}

/// Pretty-printed JSON with a final newline, as every export writes it.
pub(crate) fn to_pretty(value: &Value) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(value).unwrap_or_default();
    out.push(b'\n');
    out
}

/// A probability number read leniently: rounds fractions, clamps to 0–100.
/// Returns the value and whether it had to be changed.
pub(crate) fn percent(v: &Value) -> Option<(u8, bool)> {
    let f = v.as_f64()?;
    if !f.is_finite() {
        return None;
    }
    let r = f.round().clamp(0.0, 100.0);
    Some((r as u8, r != f))
}

/// The boolean at `key`, when there is one.
pub(crate) fn bool_of(o: &Object, key: &str) -> Option<bool> {
    o.get(key).and_then(Value::as_bool)
}

/// How a JSON value's type is named in messages ("a string", "null", …).
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn wrong(path: &str, key: &str, want: &str, got: &Value) -> ImportError {
    ImportError::field(
        format!("{path}.{key}"),
        format!("must be {want}, found {}", type_name(got)),
    )
}

/// Removes `key` and reads it as a string; absent or null is `None`.
pub(crate) fn take_string(
    o: &mut Object,
    key: &str,
    path: &str,
) -> Result<Option<String>, ImportError> {
    match o.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(wrong(path, key, "a string", &v)),
    }
}

/// Removes `key` and reads it as a boolean; absent or null is `None`.
pub(crate) fn take_bool(
    o: &mut Object,
    key: &str,
    path: &str,
) -> Result<Option<bool>, ImportError> {
    match o.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b)),
        Some(v) => Err(wrong(path, key, "true or false", &v)),
    }
}

/// Removes `key` and reads it as a whole number (a float with no
/// fraction counts); absent or null is `None`.
pub(crate) fn take_i64(o: &mut Object, key: &str, path: &str) -> Result<Option<i64>, ImportError> {
    match o.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(i) => Ok(Some(i)),
            None => match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Ok(Some(f as i64)),
                _ => Err(ImportError::field(
                    format!("{path}.{key}"),
                    format!("must be a whole number, found {n}"),
                )),
            },
        },
        Some(v) => Err(wrong(path, key, "a number", &v)),
    }
}

/// [`take_i64`] for a number that must not be negative.
pub(crate) fn take_u64(o: &mut Object, key: &str, path: &str) -> Result<Option<u64>, ImportError> {
    match take_i64(o, key, path)? {
        None => Ok(None),
        Some(i) if i >= 0 => Ok(Some(i as u64)),
        Some(i) => Err(ImportError::field(
            format!("{path}.{key}"),
            format!("must not be negative, found {i}"),
        )),
    }
}

/// Removes `key` and reads it as an object; absent or null is `None`.
pub(crate) fn take_object(
    o: &mut Object,
    key: &str,
    path: &str,
) -> Result<Option<Object>, ImportError> {
    match o.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(v) => Err(wrong(path, key, "an object", &v)),
    }
}

/// Keys as an array of strings; a single comma-separated string is accepted
/// too, as some tools write it.
pub(crate) fn take_keys(o: &mut Object, key: &str, path: &str) -> Result<Vec<String>, ImportError> {
    match o.remove(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(crate::model::split_keys(&s)),
        Some(Value::Array(a)) => a
            .into_iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::String(s) => Ok(s),
                Value::Number(n) => Ok(n.to_string()),
                other => Err(ImportError::field(
                    format!("{path}.{key}[{i}]"),
                    format!("must be a string, found {}", type_name(&other)),
                )),
            })
            .collect(),
        Some(v) => Err(wrong(path, key, "an array of strings", &v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_rounds_and_clamps() {
        assert_eq!(percent(&serde_json::json!(50)), Some((50, false)));
        assert_eq!(percent(&serde_json::json!(49.6)), Some((50, true)));
        assert_eq!(percent(&serde_json::json!(150)), Some((100, true)));
        assert_eq!(percent(&serde_json::json!("x")), None);
    }
}
