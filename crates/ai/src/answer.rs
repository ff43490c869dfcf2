//! Reading what the model answered: the JSON object in its text (whole,
//! in a code fence, or between the first `{` and the last `}`), lists of
//! keys as an array or one comma-separated string, drafts from JSON or
//! from `Name:`/`Keys:`/`Content:` blocks of plain text, and review
//! findings. What is not the shape asked for is refused saying what is
//! wrong.

use serde_json::Value;

use lorebook_engine::model::Book;

use crate::error::AiError;
use crate::suggested::{named, Draft, Finding, FINDING_KINDS};

/// The findings of a review's answer.
pub fn findings(book: &Book, text: &str) -> Result<Vec<Finding>, AiError> {
    let v = json_in(text)?;
    let list = v
        .get("findings")
        .and_then(Value::as_array)
        .ok_or_else(|| AiError::Malformed {
            detail: "the answer has no \"findings\" list".into(),
        })?;
    let mut out = Vec::new();
    for (i, f) in list.iter().enumerate() {
        let kind = f
            .get("kind")
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or_default();
        if !FINDING_KINDS.contains(&kind) {
            return Err(AiError::Malformed {
                detail: format!(
                    "finding {} has the kind {kind:?}, not one of {FINDING_KINDS:?}",
                    i + 1
                ),
            });
        }
        let names = strings(f, "entries").unwrap_or_default();
        let ids = names
            .iter()
            .filter_map(|n| named(book, n).map(|e| e.id))
            .collect();
        out.push(Finding {
            kind: kind.to_string(),
            entries: names,
            ids,
            note: f
                .get("note")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .trim()
                .to_string(),
            preview: None,
        });
    }
    Ok(out)
}

/// The JSON object of an answer: the whole text, the inside of a code
/// fence, or the span from the first `{` to the last `}`.
pub fn json_in(text: &str) -> Result<Value, AiError> {
    let t = text.trim();
    if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(t) {
        return Ok(v);
    }
    let fenced = t
        .split_once("```")
        .map(|(_, rest)| rest.trim_start_matches("json").trim_start_matches("JSON"))
        .and_then(|rest| rest.split_once("```"))
        .map(|(inside, _)| inside.trim());
    if let Some(Ok(v @ Value::Object(_))) = fenced.map(serde_json::from_str::<Value>) {
        return Ok(v);
    }
    if let (Some(a), Some(b)) = (t.find('{'), t.rfind('}')) {
        if a < b {
            if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(&t[a..=b]) {
                return Ok(v);
            }
        }
    }
    Err(AiError::Malformed {
        detail: if t.is_empty() {
            "the answer is empty".into()
        } else if t.starts_with('{') {
            "the answer's JSON does not close (cut short?)".into()
        } else {
            format!("no JSON object in the answer ({})", preview(t))
        },
    })
}

fn preview(t: &str) -> String {
    let first: String = t.chars().take(80).collect();
    if first.len() < t.len() {
        format!("{first:?}…")
    } else {
        format!("{first:?}")
    }
}

/// A list of strings at `field`: an array of strings, or one string of
/// comma-separated keys; blanks dropped, duplicates once.
pub(crate) fn strings(v: &Value, field: &str) -> Result<Vec<String>, AiError> {
    let raw: Vec<String> = match v.get(field) {
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| match x {
                Value::String(s) => Ok(s.clone()),
                other => Err(AiError::Malformed {
                    detail: format!("\"{field}\" holds {other}, not a string"),
                }),
            })
            .collect::<Result<_, _>>()?,
        Some(Value::String(s)) => s.split(',').map(String::from).collect(),
        Some(Value::Null) | None => {
            return Err(AiError::Malformed {
                detail: format!("the answer has no \"{field}\""),
            })
        }
        Some(other) => {
            return Err(AiError::Malformed {
                detail: format!("\"{field}\" is {other}, not a list"),
            })
        }
    };
    let mut out: Vec<String> = Vec::new();
    for s in raw {
        let s = s.trim().to_string();
        if !s.is_empty() && !out.iter().any(|o| o.eq_ignore_ascii_case(&s)) {
            out.push(s);
        }
    }
    Ok(out)
}

/// The drafts of an answer: `{"entries": [...]}` (or a bare list), else
/// `Name:`/`Keys:`/`Content:` blocks of plain text.
pub(crate) fn read_drafts(text: &str) -> Result<Vec<Draft>, AiError> {
    let list = match json_in(text) {
        Ok(v) => v
            .get("entries")
            .and_then(Value::as_array)
            .cloned()
            .ok_or_else(|| AiError::Malformed {
                detail: "the answer has no \"entries\" list".into(),
            })?,
        Err(e) => match plain_drafts(text) {
            Some(d) => return Ok(d),
            None => return Err(e),
        },
    };
    let mut out = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let n = i + 1;
        // Present as strings, as the schema says; an empty one is kept,
        // and its check fails saying so.
        let name = item
            .get("name")
            .and_then(Value::as_str)
            .map(str::trim)
            .ok_or_else(|| AiError::Malformed {
                detail: format!("entry {n} has no \"name\" text"),
            })?;
        let content = item
            .get("content")
            .and_then(Value::as_str)
            .map(str::trim)
            .ok_or_else(|| AiError::Malformed {
                detail: format!("entry {n} ({name:?}) has no \"content\" text"),
            })?;
        let keys = strings(item, "keys").map_err(|e| AiError::Malformed {
            detail: format!("entry {n} ({name:?}): {}", inner(&e)),
        })?;
        let secondary_keys = match item.get("secondary_keys") {
            None | Some(Value::Null) => Vec::new(),
            Some(_) => strings(item, "secondary_keys").map_err(|e| AiError::Malformed {
                detail: format!("entry {n} ({name:?}): {}", inner(&e)),
            })?,
        };
        out.push(Draft {
            name: name.to_string(),
            keys,
            secondary_keys,
            content: content.to_string(),
        });
    }
    Ok(out)
}

fn inner(e: &AiError) -> String {
    match e {
        AiError::Malformed { detail } => detail.clone(),
        other => other.to_string(),
    }
}

/// `Name: …` / `Keys: …` / `Secondary keys: …` / `Content: …` blocks, for
/// an endpoint that took no schema and a model that wrote no JSON.
fn plain_drafts(text: &str) -> Option<Vec<Draft>> {
    let mut out: Vec<Draft> = Vec::new();
    let mut cur: Option<Draft> = None;
    let mut in_content = false;
    for line in text.lines() {
        let l = line.trim().trim_start_matches(['-', '*', '#', ' ']);
        let field = l
            .split_once(':')
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim()));
        match field {
            Some((k, v)) if k == "name" || k == "title" => {
                out.extend(cur.take());
                cur = Some(Draft {
                    name: v.trim_matches(['*', '"']).to_string(),
                    ..Draft::default()
                });
                in_content = false;
            }
            Some((k, v)) if (k == "keys" || k == "key") && cur.is_some() => {
                cur.as_mut()?.keys = split_keys(v);
                in_content = false;
            }
            Some((k, v)) if k.starts_with("secondary") && cur.is_some() => {
                cur.as_mut()?.secondary_keys = split_keys(v);
                in_content = false;
            }
            Some((k, v)) if k == "content" && cur.is_some() => {
                cur.as_mut()?.content = v.to_string();
                in_content = true;
            }
            _ if in_content => {
                let c = &mut cur.as_mut()?.content;
                if !c.is_empty() {
                    c.push('\n');
                }
                c.push_str(line.trim());
            }
            _ => {}
        }
    }
    out.extend(cur);
    for d in &mut out {
        d.content = d.content.trim().to_string();
    }
    out.retain(|d| !d.name.is_empty() && !d.content.is_empty());
    (!out.is_empty()).then_some(out)
}

fn split_keys(v: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for k in v.split(',') {
        let k = k.trim().trim_matches(['"', '\'', '[', ']']).trim();
        if !k.is_empty() && !out.iter().any(|o| o.eq_ignore_ascii_case(k)) {
            out.push(k.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_is_found_where_models_put_it() {
        let rows = [
            (r#"{"a": 1}"#, Some(1)),
            ("Here you go:\n```json\n{\"a\": 2}\n```\nEnjoy.", Some(2)),
            ("Sure! {\"a\": 3} Hope it helps.", Some(3)),
            (r#"{"a": 4, "b": ["#, None),
            ("no json at all", None),
            ("", None),
        ];
        for (text, want) in rows {
            let got = json_in(text).ok().and_then(|v| v["a"].as_i64());
            assert_eq!(got, want, "{text:?}");
        }
        let cut = json_in(r#"{"a": 4, "b": ["#).unwrap_err().to_string();
        assert!(cut.contains("does not close"), "{cut}");
    }

    #[test]
    fn keys_read_as_a_list_or_one_string_without_blanks_or_repeats() {
        let v = serde_json::json!({"a": ["x", " y ", "", "X"], "b": "p, q ,, p", "c": 3, "d": [1]});
        assert_eq!(strings(&v, "a").unwrap(), ["x", "y"]);
        assert_eq!(strings(&v, "b").unwrap(), ["p", "q"]);
        assert!(strings(&v, "c").is_err());
        assert!(strings(&v, "d").is_err());
        assert!(strings(&v, "missing").is_err());
    }

    #[test]
    fn a_plain_text_draft_is_read_block_by_block() {
        let text = "Here are the entries.\n\nName: Vell Harbour\nKeys: Vell Harbour, \"the harbour\"\nContent: A harbour town.\nIts lamp is dark.\n\n- Name: Maro\n- Keys: Maro\n- Secondary keys: lamp\n- Content: The keeper.";
        let d = read_drafts(text).unwrap();
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].keys, ["Vell Harbour", "the harbour"]);
        assert_eq!(d[0].content, "A harbour town.\nIts lamp is dark.");
        assert_eq!(d[1].secondary_keys, ["lamp"]);
        assert!(read_drafts("I cannot help with that.").is_err());
        let e = read_drafts(r#"{"entries": [{"name": "A", "keys": ["a"], "content": "x"}, {"name": "B", "keys": 5, "content": "y"}]}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("entry 2 (\"B\")"), "{e}");
    }

    #[test]
    fn findings_name_their_entries_or_say_they_name_none() {
        let mut book = Book::default();
        book.add_entry(lorebook_engine::model::Entry {
            comment: "Maro".into(),
            ..Default::default()
        });
        let f = findings(
            &book,
            r#"{"findings": [{"kind": "never_fires", "entries": ["maro", "Nobody"], "note": "n"}]}"#,
        )
        .unwrap();
        assert_eq!(f[0].ids, [0]);
        assert!(findings(
            &book,
            r#"{"findings": [{"kind": "bad", "entries": [], "note": ""}]}"#
        )
        .is_err());
    }
}
