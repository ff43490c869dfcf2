//! The CBS functions a lorebook reaches, as RisuAI's 2026 mainline gives
//! them with side effects off. A call's name is read without case, spaces,
//! `_` or `-` (`{{Get_Var::x}}` is `getvar`); its arguments follow `::`,
//! or single `:` when the first colon is not doubled (the old form).
//! Names RisuAI does not evaluate here (`{{// …}}`, `{{slot}}`,
//! `{{position}}`, asset macros) and the ones this preview does not know
//! are left as written, as RisuAI leaves unknown names.

use chrono::{DateTime, Datelike, TimeZone, Timelike, Utc};

use super::blocks::{self, array_items, value_text};
use super::calc::{calc, js_number, number};
use super::{Out, Run};
use crate::sillytavern::macros::clock::{MONTHS, WEEKDAYS};

/// Private-use stand-ins of `{{bo}}`, `{{(}}` and their kind.
const ESCAPES: [(&str, &str); 9] = [
    ("bo", "\u{E9B8}\u{E9B8}"),
    ("bc", "\u{E9B9}\u{E9B9}"),
    ("decbo", "\u{E9B8}"),
    ("decbc", "\u{E9B9}"),
    ("(", "\u{E9BA}"),
    (")", "\u{E9BB}"),
    ("<", "\u{E9BC}"),
    (">", "\u{E9BD}"),
    (";", "\u{E9BF}"),
];

fn flag(b: bool) -> String {
    if b { "1" } else { "0" }.to_string()
}

/// The arguments of a list function: one argument is an array (JSON, else
/// split on `§`), several are the list.
fn list_args(args: &[&str]) -> Vec<String> {
    if let [one] = args {
        return array_items(one);
    }
    args.iter().map(|s| s.to_string()).collect()
}

impl Run<'_, '_> {
    /// `{{inner}}` as a call.
    pub(super) fn call(&mut self, inner: &str) -> Result<Out, String> {
        if let Some(expr) = inner.strip_prefix("? ") {
            return Ok(Out::Text(calc(expr, self.cbs.inputs)));
        }
        let pieces: Vec<&str> = match inner.find(':') {
            Some(at) if inner[at + 1..].starts_with(':') => inner.split("::").collect(),
            Some(_) => inner.split(':').collect(),
            None => vec![inner],
        };
        let name = super::folded(pieces[0]);
        let args = &pieces[1..];
        if let Some((_, text)) = ESCAPES.iter().find(|(n, _)| *n == inner || *n == name) {
            return Ok(Out::Text(text.to_string()));
        }
        if name == "call" {
            return blocks::call(self, args);
        }
        if name == "return" {
            return Ok(Out::Return(args.first().map_or("null", |a| a).to_string()));
        }
        Ok(match self.function(&name, args)? {
            Some(text) => Out::Text(text),
            None => Out::Verbatim,
        })
    }

    /// `None`: left as written (unknown, a missing argument, a write).
    fn function(&mut self, name: &str, args: &[&str]) -> Result<Option<String>, String> {
        let inputs = self.cbs.inputs;
        let arg = |i: usize| args.get(i).copied();
        // A missing argument is JavaScript's `undefined`: not a number.
        let num = |i: usize| arg(i).map_or(f64::NAN, number);
        // Functions that fail on a missing text (RisuAI leaves them as
        // written).
        let needs_text = [
            "length",
            "lower",
            "upper",
            "capitalize",
            "reverse",
            "tonumber",
            "round",
            "floor",
            "ceil",
            "abs",
        ];
        if args.is_empty() && needs_text.contains(&name) {
            return Ok(None);
        }
        Ok(Some(match name {
            "char" | "bot" => inputs.char().to_string(),
            "user" => inputs.username.clone(),
            "personality" | "charpersona" => self.nested(&inputs.personality),
            "description" | "chardesc" => self.nested(&inputs.description),
            "scenario" => self.nested(&inputs.scenario),
            "exampledialogue" | "examplemessage" => self.nested(&inputs.example_message),
            "persona" | "userpersona" => self.nested(&inputs.persona_prompt),
            "getvar" => match arg(0) {
                Some(k) => inputs.chat_var(k),
                None => "null".into(),
            },
            "getglobalvar" => match arg(0) {
                Some(k) => inputs.global_var(k),
                None => return Ok(None),
            },
            // Writes do nothing with side effects off: left as written.
            "setvar" | "addvar" | "setdefaultvar" => return Ok(None),
            "tempvar" | "gettempvar" => self
                .temp
                .get(arg(0).unwrap_or(""))
                .cloned()
                .unwrap_or_default(),
            "settempvar" => {
                let (Some(k), Some(v)) = (arg(0), arg(1)) else {
                    return Ok(None);
                };
                self.temp.insert(k.to_string(), v.to_string());
                String::new()
            }
            "equal" => flag(arg(0) == arg(1)),
            "notequal" => flag(arg(0) != arg(1)),
            "greater" => flag(num(0) > num(1)),
            "less" => flag(num(0) < num(1)),
            "greaterequal" => flag(num(0) >= num(1)),
            "lessequal" => flag(num(0) <= num(1)),
            "and" => flag(arg(0) == Some("1") && arg(1) == Some("1")),
            "or" => flag(arg(0) == Some("1") || arg(1) == Some("1")),
            "not" => flag(arg(0) != Some("1")),
            "all" => flag(list_args(args).iter().all(|a| a == "1")),
            "any" => flag(list_args(args).iter().any(|a| a == "1")),
            "iserror" => flag(arg(0).unwrap_or("").to_lowercase().starts_with("error:")),
            "startswith" => flag(arg(0).unwrap_or("").starts_with(arg(1).unwrap_or(""))),
            "endswith" => flag(arg(0).unwrap_or("").ends_with(arg(1).unwrap_or(""))),
            "contains" => flag(arg(0).unwrap_or("").contains(arg(1).unwrap_or(""))),
            "length" => arg(0).unwrap_or("").encode_utf16().count().to_string(),
            "lower" => arg(0).unwrap_or("").to_lowercase(),
            "upper" => arg(0).unwrap_or("").to_uppercase(),
            "capitalize" => {
                let s = arg(0).unwrap_or("");
                let mut c = s.chars();
                match c.next() {
                    Some(first) => first.to_uppercase().chain(c).collect(),
                    None => String::new(),
                }
            }
            "trim" => match arg(0) {
                Some(s) => s.trim().to_string(),
                None => return Ok(None),
            },
            "replace" => match (arg(0), arg(1), arg(2)) {
                (Some(s), Some(a), Some(b)) => s.replace(a, b),
                _ => return Ok(None),
            },
            "split" => match (arg(0), arg(1)) {
                (Some(s), Some(d)) => serde_json::to_string(&s.split(d).collect::<Vec<_>>())
                    .expect("strings serialise"),
                _ => return Ok(None),
            },
            "join" => match (arg(0), arg(1)) {
                (Some(a), Some(d)) => array_items(a).join(d),
                _ => return Ok(None),
            },
            "reverse" => arg(0).unwrap_or("").chars().rev().collect(),
            "tonumber" => arg(0)
                .unwrap_or("")
                .chars()
                .filter(|c| c.is_ascii_digit() || *c == '.' || c.is_whitespace())
                .collect(),
            "br" | "newline" => "\n".into(),
            "cbr" | "cnewline" => "\\n".into(),
            "blank" | "none" | "comment" | "hiddenkey" | "lastusermessage" => String::new(),
            "calc" => calc(arg(0).unwrap_or(""), inputs),
            "round" => js_number(js_round(num(0))),
            "floor" => js_number(num(0).floor()),
            "ceil" => js_number(num(0).ceil()),
            "abs" => js_number(num(0).abs()),
            "remaind" => js_number(num(0) % num(1)),
            "pow" => js_number(num(0).powf(num(1))),
            "min" | "max" | "sum" | "average" => {
                let ns: Vec<f64> = list_args(args)
                    .iter()
                    .map(|a| number(a))
                    .map(|n| if n.is_nan() { 0.0 } else { n })
                    .collect();
                js_number(match name {
                    "min" => ns.iter().copied().fold(f64::INFINITY, f64::min),
                    "max" => ns.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    "sum" => ns.iter().sum(),
                    _ => ns.iter().sum::<f64>() / ns.len() as f64,
                })
            }
            "lastmessage" => match self.cbs.messages.last() {
                Some(m) => m.to_string(),
                None => return Ok(None),
            },
            "lastmessageid" | "lastmessageindex" => {
                (self.cbs.messages.len() as i64 - 1).to_string()
            }
            "chatindex" => "-1".into(),
            // No role in a lorebook's evaluation: RisuAI's text `null`.
            "role" => "null".into(),
            "isfirstmsg" => "0".into(),
            "messagetime" => "[Cannot get time]".into(),
            "makearray" | "array" | "a" => serde_json::to_string(args).expect("strings serialise"),
            "arraylength" => array_items(arg(0).unwrap_or("")).len().to_string(),
            "arrayelement" => {
                let items: Vec<serde_json::Value> = match serde_json::from_str(arg(0).unwrap_or(""))
                {
                    Ok(serde_json::Value::Array(items)) => items,
                    _ => array_items(arg(0).unwrap_or(""))
                        .into_iter()
                        .map(serde_json::Value::String)
                        .collect(),
                };
                let i = num(1);
                let i = if i.is_nan() { 0 } else { i.trunc() as i64 };
                let at = if i < 0 { items.len() as i64 + i } else { i };
                usize::try_from(at)
                    .ok()
                    .and_then(|at| items.get(at))
                    .map_or_else(|| "null".into(), value_text)
            }
            "dictelement" | "objectelement" => {
                match serde_json::from_str::<serde_json::Value>(arg(0).unwrap_or("")) {
                    Ok(serde_json::Value::Object(o)) => o
                        .get(arg(1).unwrap_or(""))
                        .map_or_else(|| "null".into(), value_text),
                    _ => "null".into(),
                }
            }
            "makedict" | "dict" | "object" => {
                let mut o = serde_json::Map::new();
                for a in args {
                    if let Some((k, v)) = a.split_once('=') {
                        o.insert(k.to_string(), serde_json::Value::String(v.to_string()));
                    }
                }
                serde_json::Value::Object(o).to_string()
            }
            "random" => {
                let choices: Vec<String> = match args {
                    [] => return Ok(Some(js_number(self.draw()))),
                    [one] if one.starts_with('[') && one.ends_with(']') => array_items(one),
                    [one] => one
                        .replace("\\,", "\u{0}")
                        .split([',', ':'])
                        .map(|s| s.replace('\u{0}', ","))
                        .collect(),
                    many => many.iter().map(|s| s.to_string()).collect(),
                };
                let at = (self.draw() * choices.len() as f64) as usize;
                choices.get(at).cloned().unwrap_or_default()
            }
            "roll" => {
                let spec = arg(0).unwrap_or("");
                if arg(0).is_none() {
                    return Ok(Some("1".into()));
                }
                let (count, sides) = match spec.split_once('d') {
                    Some((c, s)) => (
                        if c.is_empty() { 1.0 } else { number(c) },
                        if s.is_empty() { 6.0 } else { number(s) },
                    ),
                    None => (1.0, number(spec)),
                };
                if count.is_nan() || sides.is_nan() || count < 1.0 || sides < 1.0 {
                    "NaN".into()
                } else {
                    let mut total = 0.0;
                    for _ in 0..(count as u32).min(10_000) {
                        total += (self.draw() * sides).floor() + 1.0;
                    }
                    js_number(total)
                }
            }
            "time" | "date" | "datetimeformat" | "isotime" | "isodate" | "unixtime" => {
                self.clock(name, args)
            }
            _ => return Ok(None),
        }))
    }

    /// The date and time functions, on the evaluation's clock (UTC).
    fn clock(&self, name: &str, args: &[&str]) -> String {
        let now_ms = self
            .cbs
            .now_ms
            .unwrap_or_else(|| Utc::now().timestamp_millis());
        let at_ms = match args.get(1).map(|a| number(a)) {
            // RisuAI divides the given time by 1000 and reads it as
            // milliseconds (its own slip, kept); empty or 0 is now.
            Some(n) if !n.is_nan() && n != 0.0 => (n / 1000.0) as i64,
            _ => now_ms,
        };
        let t: DateTime<Utc> = Utc
            .timestamp_millis_opt(at_ms)
            .single()
            .unwrap_or_else(Utc::now);
        match (name, args.first()) {
            ("unixtime", _) => (now_ms.div_euclid(1000)).to_string(),
            ("isotime", _) | ("time", None) => {
                format!("{}:{}:{}", t.hour(), t.minute(), t.second())
            }
            ("isodate", _) | ("date" | "datetimeformat", None) => {
                format!("{}-{}-{}", t.year(), t.month(), t.day())
            }
            (_, Some(fmt)) => format_date(fmt, &t),
            (_, None) => String::new(),
        }
    }
}

/// JavaScript's `Math.round`: halves up.
fn js_round(n: f64) -> f64 {
    (n + 0.5).floor()
}

/// A date format as RisuAI fills it: each token replaced everywhere in
/// turn (so a later token also rewrites what an earlier one wrote:
/// `MMMM` in April is `PMpril` once `A` is filled).
fn format_date(fmt: &str, t: &DateTime<Utc>) -> String {
    if fmt.chars().count() > 300 {
        return String::new();
    }
    let month = MONTHS[t.month0() as usize];
    let day = WEEKDAYS[t.weekday().num_days_from_sunday() as usize];
    let hour12 = match t.hour() % 12 {
        0 => 12,
        h => h,
    };
    let steps: [(&str, String); 16] = [
        ("YYYY", t.year().to_string()),
        ("YY", format!("{:02}", t.year().rem_euclid(100))),
        ("MMMM", month.to_string()),
        ("MMM", month[..3].to_string()),
        ("MM", format!("{:02}", t.month())),
        ("DDDD", t.ordinal().to_string()),
        ("DD", format!("{:02}", t.day())),
        ("dddd", day.to_string()),
        ("ddd", day[..3].to_string()),
        ("HH", format!("{:02}", t.hour())),
        ("hh", format!("{hour12:02}")),
        ("mm", format!("{:02}", t.minute())),
        ("ss", format!("{:02}", t.second())),
        ("X", t.timestamp().to_string()),
        ("x", t.timestamp_millis().to_string()),
        ("A", if t.hour() < 12 { "AM" } else { "PM" }.to_string()),
    ];
    let mut out = fmt.to_string();
    for (token, value) in steps {
        out = out.replace(token, &value);
    }
    out
}
