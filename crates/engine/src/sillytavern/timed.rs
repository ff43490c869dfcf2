//! Sticky, cooldown and delay across requests (world-info.js:
//! `WorldInfoTimedEffects`).
//!
//! Records live in the chat's metadata (`timedWorldInfo`), keyed
//! `bookName.uid`, counted in chat messages. SillyTavern finds the entry of
//! a record by a hash of the whole entry; the preview finds it by its key,
//! which is the same entry as long as the book is not edited between the
//! requests of one log.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::entry::StEntry;

/// One stored sticky or cooldown record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// SillyTavern's entry hash, kept as read.
    #[serde(default)]
    pub hash: Value,
    pub start: f64,
    pub end: f64,
    #[serde(default)]
    pub protected: bool,
}

/// The `timedWorldInfo` object of a chat, records in insertion order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimedState {
    pub sticky: Vec<(String, Record)>,
    pub cooldown: Vec<(String, Record)>,
}

impl TimedState {
    /// Reads `chat_metadata.timedWorldInfo`; records that are not objects
    /// are discarded, as SillyTavern does on load.
    pub fn from_metadata(value: Option<&Value>) -> Self {
        let read = |kind: &str| -> Vec<(String, Record)> {
            value
                .and_then(|v| v.get(kind))
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .filter_map(|(k, v)| {
                            serde_json::from_value::<Record>(v.clone())
                                .ok()
                                .map(|r| (k.clone(), r))
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        TimedState {
            sticky: read("sticky"),
            cooldown: read("cooldown"),
        }
    }

    /// The state as SillyTavern stores it.
    pub fn to_metadata(&self) -> Value {
        let write = |records: &[(String, Record)]| -> Value {
            let mut m = Map::new();
            for (k, r) in records {
                m.insert(k.clone(), serde_json::to_value(r).unwrap_or_default());
            }
            Value::Object(m)
        };
        serde_json::json!({"sticky": write(&self.sticky), "cooldown": write(&self.cooldown)})
    }
}

/// Which entries (by index) are under an effect in this request.
#[derive(Debug, Clone, Default)]
pub struct Active {
    pub sticky: HashSet<usize>,
    pub cooldown: HashSet<usize>,
    /// Messages left, by entry index, for explanations.
    pub left: std::collections::HashMap<usize, f64>,
}

/// The start of a request at chat length `length` (world-info.js:
/// `checkTimedEffects`): expired and rolled-back records are removed, an
/// expired sticky starts its entry's cooldown.
pub fn check(state: &mut TimedState, entries: &[StEntry], length: f64) -> Active {
    let mut active = Active::default();
    let find = |key: &str| entries.iter().position(|e| e.key == key);
    let mut started_cooldowns = Vec::new();
    state.sticky.retain(|(key, r)| {
        if length <= r.start && !r.protected {
            return false;
        }
        let Some(i) = find(key) else {
            return length < r.end;
        };
        let e = &entries[i];
        if e.sticky == 0.0 || e.sticky.is_nan() {
            return false;
        }
        if length >= r.end {
            if e.cooldown != 0.0 && !e.cooldown.is_nan() {
                started_cooldowns.push((
                    key.clone(),
                    Record {
                        hash: r.hash.clone(),
                        start: length,
                        end: length + e.cooldown,
                        protected: true,
                    },
                ));
            }
            return false;
        }
        active.sticky.insert(i);
        active.left.insert(i, r.end - length);
        true
    });
    for (key, record) in started_cooldowns {
        state.cooldown.retain(|(k, _)| *k != key);
        state.cooldown.push((key, record));
    }
    state.cooldown.retain(|(key, r)| {
        if length <= r.start && !r.protected {
            return false;
        }
        let Some(i) = find(key) else {
            return length < r.end;
        };
        let e = &entries[i];
        if e.cooldown == 0.0 || e.cooldown.is_nan() {
            return false;
        }
        if length >= r.end {
            return false;
        }
        active.cooldown.insert(i);
        active.left.entry(i).or_insert(r.end - length);
        true
    });
    active
}

/// Whether `delay` holds the entry back at chat length `length`.
pub fn delayed(e: &StEntry, length: f64) -> bool {
    e.delay != 0.0 && !e.delay.is_nan() && length < e.delay
}

/// Whether [`record`] can ever keep a record of `e`.
pub fn leaves_records(e: &StEntry) -> bool {
    [e.sticky, e.cooldown]
        .iter()
        .any(|v| *v != 0.0 && !v.is_nan())
}

/// The end of a request (world-info.js: `setTimedEffects`): every activated
/// entry with sticky or cooldown gets a record unless one exists.
pub fn record(state: &mut TimedState, entries: &[StEntry], activated: &[usize], length: f64) {
    for &i in activated {
        let e = &entries[i];
        for (value, records) in [
            (e.sticky, &mut state.sticky),
            (e.cooldown, &mut state.cooldown),
        ] {
            if value == 0.0 || value.is_nan() || records.iter().any(|(k, _)| *k == e.key) {
                continue;
            }
            records.push((
                e.key.clone(),
                Record {
                    hash: Value::Null,
                    start: length,
                    end: length + value,
                    protected: false,
                },
            ));
        }
    }
}
