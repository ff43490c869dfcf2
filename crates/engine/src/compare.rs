//! Comparing two books entry by entry (issue 22): entries are matched by id
//! first, then the rest by name, then by keys; the answer is the three
//! groups — only in the first book, only in the second, in both but
//! different (with the fields that differ) — and how many are the same.
//! `lorebook compare` prints it; a merge reads the same matching.

use serde::Serialize;
use serde_json::Value;

use crate::model::{Book, Entry};

/// One field that differs, with its value on each side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldDiff {
    pub field: String,
    pub a: Value,
    pub b: Value,
}

/// An entry of each book matched together, and how they differ.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pair {
    pub a: u64,
    pub b: u64,
    pub name: String,
    /// How they were matched: `id`, `name` or `keys`.
    pub by: &'static str,
    pub fields: Vec<FieldDiff>,
}

/// An entry only one book has.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alone {
    pub id: u64,
    pub name: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Comparison {
    pub only_a: Vec<Alone>,
    pub only_b: Vec<Alone>,
    pub different: Vec<Pair>,
    pub same: usize,
}

impl Comparison {
    pub fn is_same(&self) -> bool {
        self.only_a.is_empty() && self.only_b.is_empty() && self.different.is_empty()
    }
}

/// An entry's fields as JSON, without its id.
fn fields(e: &Entry) -> serde_json::Map<String, Value> {
    let mut v = match serde_json::to_value(e) {
        Ok(Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    v.remove("id");
    v
}

/// The fields of `a` and `b` that differ, in the entry's field order.
pub fn diff_entries(a: &Entry, b: &Entry) -> Vec<FieldDiff> {
    let (fa, fb) = (fields(a), fields(b));
    let mut out = Vec::new();
    for (k, va) in &fa {
        let vb = fb.get(k).cloned().unwrap_or(Value::Null);
        if *va != vb {
            out.push(FieldDiff {
                field: k.clone(),
                a: va.clone(),
                b: vb,
            });
        }
    }
    for (k, vb) in &fb {
        if !fa.contains_key(k) {
            out.push(FieldDiff {
                field: k.clone(),
                a: Value::Null,
                b: vb.clone(),
            });
        }
    }
    out
}

/// What a matching round compares entries by (`None`: the entry has none).
type MatchKey = fn(&Entry) -> Option<Vec<String>>;

fn keys_of(e: &Entry) -> Vec<String> {
    let mut k: Vec<String> = e.keys.iter().map(|k| k.trim().to_lowercase()).collect();
    k.sort();
    k.dedup();
    k
}

/// The matched pairs `(index in a, index in b, how)`: by id, then the
/// others by the same non-empty name, then by the same non-empty keys.
pub fn match_entries(a: &Book, b: &Book) -> Vec<(usize, usize, &'static str)> {
    let mut used_a = vec![false; a.entries.len()];
    let mut used_b = vec![false; b.entries.len()];
    let mut pairs = Vec::new();
    let by_id: std::collections::HashMap<u64, usize> = b
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id, i))
        .collect();
    for (i, e) in a.entries.iter().enumerate() {
        if let Some(&j) = by_id.get(&e.id) {
            used_a[i] = true;
            used_b[j] = true;
            pairs.push((i, j, "id"));
        }
    }
    let rounds: [(&'static str, MatchKey); 2] = [
        ("name", |e| {
            let n = e.comment.trim().to_lowercase();
            (!n.is_empty()).then(|| vec![n])
        }),
        ("keys", |e| {
            let k = keys_of(e);
            (!k.is_empty()).then_some(k)
        }),
    ];
    for (how, key) in rounds {
        let mut open: std::collections::HashMap<Vec<String>, Vec<usize>> = Default::default();
        for (j, e) in b.entries.iter().enumerate() {
            if !used_b[j] {
                if let Some(k) = key(e) {
                    open.entry(k).or_default().push(j);
                }
            }
        }
        for (i, e) in a.entries.iter().enumerate() {
            if used_a[i] {
                continue;
            }
            let Some(k) = key(e) else { continue };
            if let Some(list) = open.get_mut(&k) {
                if let Some(pos) = list.iter().position(|&j| !used_b[j]) {
                    let j = list.remove(pos);
                    used_a[i] = true;
                    used_b[j] = true;
                    pairs.push((i, j, how));
                }
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

/// Compares book `a` with book `b`.
pub fn compare(a: &Book, b: &Book) -> Comparison {
    let pairs = match_entries(a, b);
    let mut in_a = vec![false; a.entries.len()];
    let mut in_b = vec![false; b.entries.len()];
    let mut out = Comparison::default();
    for &(i, j, by) in &pairs {
        in_a[i] = true;
        in_b[j] = true;
        let fields = diff_entries(&a.entries[i], &b.entries[j]);
        if fields.is_empty() {
            out.same += 1;
        } else {
            out.different.push(Pair {
                a: a.entries[i].id,
                b: b.entries[j].id,
                name: a.entries[i].display_name().to_string(),
                by,
                fields,
            });
        }
    }
    let alone = |e: &Entry| Alone {
        id: e.id,
        name: e.display_name().to_string(),
    };
    out.only_a = a
        .entries
        .iter()
        .zip(&in_a)
        .filter(|(_, m)| !**m)
        .map(|(e, _)| alone(e))
        .collect();
    out.only_b = b
        .entries
        .iter()
        .zip(&in_b)
        .filter(|(_, m)| !**m)
        .map(|(e, _)| alone(e))
        .collect();
    out
}
