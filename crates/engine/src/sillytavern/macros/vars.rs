//! The chat's variables (`chat_metadata.variables`, "local") and the global
//! ones (`extension_settings.variables.global`) as macros read and change
//! them (variables.js: `getLocalVariable`, `setLocalVariable`,
//! `addLocalVariable`, ... and their global twins).
//!
//! The preview never writes them back to a chat or settings file: a macro
//! that sets a variable changes it for the rest of the request (later keys
//! and content, as in SillyTavern), and the next request starts again from
//! the stored values (see `docs/sillytavern-rules.md`).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::js;

/// Variables as SillyTavern keeps them on disk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Variables {
    /// The chat's own (`chat_metadata.variables` in the chat file).
    pub local: BTreeMap<String, Value>,
    /// Every chat's (`extension_settings.variables.global` in settings.json).
    pub global: BTreeMap<String, Value>,
}

impl Variables {
    /// The variables of a JSON object (anything else has none).
    pub fn object(value: Option<&Value>) -> BTreeMap<String, Value> {
        match value {
            Some(Value::Object(o)) => o.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            _ => BTreeMap::new(),
        }
    }
}

/// Which of the two sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    Local,
    Global,
}

/// The variables seen by one expansion: the stored ones under the changes
/// its own macros made.
pub struct Scratch<'v> {
    base: &'v Variables,
    changed: HashMap<(Scope, String), Option<Value>>,
}

impl<'v> Scratch<'v> {
    pub fn new(base: &'v Variables) -> Self {
        Scratch {
            base,
            changed: HashMap::new(),
        }
    }

    /// The variables with this text's changes applied.
    pub fn applied(&self) -> Variables {
        let mut out = self.base.clone();
        for ((scope, name), value) in &self.changed {
            let map = match scope {
                Scope::Local => &mut out.local,
                Scope::Global => &mut out.global,
            };
            match value {
                Some(v) => {
                    map.insert(name.clone(), v.clone());
                }
                None => {
                    map.remove(name);
                }
            }
        }
        out
    }

    /// Whether a macro of the text changed a variable.
    pub fn wrote(&self) -> bool {
        !self.changed.is_empty()
    }

    /// The stored value under this text's changes.
    pub fn raw(&self, scope: Scope, name: &str) -> Option<&Value> {
        if let Some(v) = self.changed.get(&(scope, name.to_string())) {
            return v.as_ref();
        }
        match scope {
            Scope::Local => self.base.local.get(name),
            Scope::Global => self.base.global.get(name),
        }
    }

    pub fn has(&self, scope: Scope, name: &str) -> bool {
        self.raw(scope, name).is_some()
    }

    /// The variable's text (`{{getvar}}`).
    pub fn get(&self, scope: Scope, name: &str) -> String {
        js::variable_text(self.raw(scope, name))
    }

    /// One item of a variable holding a JSON array or object
    /// (`{{getvarkey}}`): a numeric key indexes an array; an item that is
    /// itself an array or object prints as JSON. A variable that is no JSON
    /// reads whole.
    pub fn get_key(&self, scope: Scope, name: &str, key: &str) -> String {
        let Some(raw) = self.raw(scope, name) else {
            return String::new();
        };
        let parsed = match raw {
            Value::String(s) => serde_json::from_str::<Value>(s).ok(),
            other => Some(other.clone()),
        };
        let Some(parsed) = parsed else {
            return js::variable_text(Some(raw));
        };
        let index = js::number(key);
        let item = match (&parsed, index.is_nan()) {
            (Value::Array(a), false) if index >= 0.0 && index.fract() == 0.0 => {
                a.get(index as usize).cloned()
            }
            (Value::Object(o), _) => o.get(key).cloned(),
            _ => None,
        };
        match item {
            None => String::new(),
            Some(v @ (Value::Array(_) | Value::Object(_))) => js::variable_text(Some(
                &Value::String(serde_json::to_string(&v).unwrap_or_default()),
            )),
            Some(v) => js::variable_text(Some(&v)),
        }
    }

    pub fn set(&mut self, scope: Scope, name: &str, value: Value) {
        self.changed.insert((scope, name.to_string()), Some(value));
    }

    pub fn delete(&mut self, scope: Scope, name: &str) {
        self.changed.insert((scope, name.to_string()), None);
    }

    /// Sets one item of a JSON array or object variable, making it (an
    /// array for a numeric key, else an object) when missing.
    pub fn set_key(&mut self, scope: Scope, name: &str, key: &str, value: &str) {
        let current = match self.raw(scope, name) {
            None | Some(Value::Null) => Value::Null,
            Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                Ok(v) => v,
                Err(_) => return,
            },
            Some(other) => other.clone(),
        };
        let index = js::number(key);
        let item = Value::String(value.to_string());
        let updated = match (current, index.is_nan()) {
            (Value::Null, true) => Value::Object([(key.to_string(), item)].into_iter().collect()),
            (Value::Object(mut o), _) => {
                o.insert(key.to_string(), item);
                Value::Object(o)
            }
            (Value::Null, false) | (Value::Array(_), false) if !(0.0..=1e6).contains(&index) => {
                return
            }
            (Value::Null, false) => {
                let mut a = vec![Value::Null; index as usize + 1];
                a[index as usize] = item;
                Value::Array(a)
            }
            (Value::Array(mut a), false) => {
                let at = index as usize;
                if a.len() <= at {
                    a.resize(at + 1, Value::Null);
                }
                a[at] = item;
                Value::Array(a)
            }
            _ => return,
        };
        self.set(
            scope,
            name,
            Value::String(serde_json::to_string(&updated).unwrap_or_default()),
        );
    }

    /// `{{addvar}}`: appends to a JSON array variable; adds numbers when
    /// both read as numbers; else appends the text. Returns the new value's
    /// text.
    pub fn add(&mut self, scope: Scope, name: &str, value: &str) -> String {
        let shown = self.get(scope, name);
        // `current || 0`: empty reads as 0.
        let current = if shown.is_empty() {
            "0".to_string()
        } else {
            shown
        };
        if let Ok(Value::Array(mut a)) = serde_json::from_str::<Value>(&current) {
            a.push(Value::String(value.to_string()));
            let text = serde_json::to_string(&a).unwrap_or_default();
            self.set(scope, name, Value::String(text.clone()));
            return text;
        }
        let step = js::number(value);
        let now = js::number(&current);
        if step.is_nan() || now.is_nan() {
            // `String(current || '')`: a zero reads as nothing.
            let joined = if now == 0.0 {
                value.to_string()
            } else {
                format!("{current}{value}")
            };
            self.set(scope, name, Value::String(joined.clone()));
            return joined;
        }
        let sum = now + step;
        if sum.is_nan() {
            return String::new();
        }
        self.set(
            scope,
            name,
            serde_json::Number::from_f64(sum).map_or(Value::Null, Value::Number),
        );
        js::number_text(sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vars() -> Variables {
        Variables {
            local: [
                ("n".to_string(), json!("5")),
                ("list".to_string(), json!("[\"a\",{\"b\":1}]")),
            ]
            .into_iter()
            .collect(),
            global: [("vip".to_string(), json!("true"))].into_iter().collect(),
        }
    }

    // variables.js: addLocalVariable, getLocalVariable with an index.
    #[test]
    fn add_and_keys() {
        let base = vars();
        let mut s = Scratch::new(&base);
        assert_eq!(s.add(Scope::Local, "n", "2"), "7");
        assert_eq!(s.get(Scope::Local, "n"), "7");
        assert_eq!(s.add(Scope::Local, "n", "x"), "7x");
        assert_eq!(s.add(Scope::Local, "fresh", "x"), "x");
        assert_eq!(s.add(Scope::Local, "list", "c"), "[\"a\",{\"b\":1},\"c\"]");
        assert_eq!(s.get_key(Scope::Local, "list", "1"), "{\"b\":1}");
        assert_eq!(
            s.get_key(Scope::Global, "vip", "0"),
            "",
            "true has no items"
        );
        s.set_key(Scope::Local, "obj", "k", "v");
        assert_eq!(s.get_key(Scope::Local, "obj", "k"), "v");
        assert!(s.wrote());
        assert_eq!(
            base.local["n"],
            json!("5"),
            "the stored variables never change"
        );
    }
}
