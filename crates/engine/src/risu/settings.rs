//! RisuAI's lorebook settings, read by RisuAI's own names
//! (docs/risu-rules.md, "Sources, settings, headline surprises").

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::cbs::CbsInputs;

/// Which RisuAI the rules follow where its versions differ.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RisuVersion {
    /// RisuAI's 2026 mainline (upstream's merged pull requests to #1490;
    /// `004367c6`): the budget counts each body as CBS evaluates it, and
    /// `{{position::name}}` inside lorebook texts is filled in.
    #[default]
    Mainline2026,
    /// RisuAI `460ecae` (December 2025): the budget counts the bodies as
    /// written, and `{{position::name}}` stays as written.
    V460ecae,
}

impl RisuVersion {
    /// `2026` (also `mainline`, `004367c6`) or `460ecae`.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text.trim() {
            "2026" | "mainline" | "004367c6" => Ok(RisuVersion::Mainline2026),
            "460ecae" => Ok(RisuVersion::V460ecae),
            other => Err(format!(
                "unknown RisuAI version {other:?} (2026 for the 2026 mainline, or 460ecae)"
            )),
        }
    }

    /// The name [`RisuVersion::parse`] reads.
    pub fn as_str(self) -> &'static str {
        match self {
            RisuVersion::Mainline2026 => "2026",
            RisuVersion::V460ecae => "460ecae",
        }
    }
}

/// RisuAI's lorebook settings: the character's `loreSettings`, else the
/// global `loreBookDepth` / `loreBookToken`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RisuSettings {
    /// Messages scanned (RisuAI's default 5; NaN scans all).
    pub scan_depth: f64,
    /// Token budget (default 800).
    pub token_budget: f64,
    /// Recursion (default on).
    pub recursive_scanning: bool,
    /// Whole-word matching (default off).
    pub full_word_matching: bool,
    /// The greeting in use: −1 the first message, k the alternate
    /// greeting k (RisuAI's `fmIndex`), read by `@@is_greeting`.
    pub fm_index: i64,
    /// The RisuAI whose rules apply where versions differ.
    pub version: RisuVersion,
    /// What CBS reads (the user's and character's names, variables);
    /// boxed, so the settings stay small where they travel.
    pub cbs: Box<CbsInputs>,
}

impl Default for RisuSettings {
    fn default() -> Self {
        RisuSettings {
            scan_depth: 5.0,
            token_budget: 800.0,
            recursive_scanning: true,
            full_word_matching: false,
            fm_index: -1,
            version: RisuVersion::default(),
            cbs: Box::default(),
        }
    }
}

impl RisuSettings {
    /// The settings by RisuAI's names, as [`RisuSettings::from_json`]
    /// reads them back (a scenario keeps them so).
    pub fn to_value(&self) -> Value {
        let mut v = serde_json::json!({
            "fmIndex": self.fm_index,
            "loreSettings": {
                "scanDepth": self.scan_depth,
                "tokenBudget": self.token_budget,
                "recursiveScanning": self.recursive_scanning,
                "fullWordMatching": self.full_word_matching,
            },
        });
        let top = v.as_object_mut().expect("an object");
        if self.version != RisuVersion::default() {
            top.insert("risuVersion".into(), self.version.as_str().into());
        }
        let c = &self.cbs;
        let d = CbsInputs::default();
        if c.username != d.username {
            top.insert("username".into(), c.username.clone().into());
        }
        let mut character = Map::new();
        for (key, value, default) in [
            ("name", &c.char_name, &d.char_name),
            ("nickname", &c.char_nickname, &d.char_nickname),
            (
                "defaultVariables",
                &c.default_variables,
                &d.default_variables,
            ),
            ("desc", &c.description, &d.description),
            ("personality", &c.personality, &d.personality),
            ("scenario", &c.scenario, &d.scenario),
            ("exampleMessage", &c.example_message, &d.example_message),
        ] {
            if value != default {
                character.insert(key.into(), value.clone().into());
            }
        }
        if !character.is_empty() {
            top.insert("character".into(), Value::Object(character));
        }
        for (key, value) in [
            ("templateDefaultVariables", &c.template_default_variables),
            ("personaPrompt", &c.persona_prompt),
        ] {
            if !value.is_empty() {
                top.insert(key.into(), value.clone().into());
            }
        }
        for (key, map) in [
            ("scriptstate", &c.scriptstate),
            ("globalChatVariables", &c.global_chat_variables),
        ] {
            if !map.is_empty() {
                top.insert(
                    key.into(),
                    Value::Object(
                        map.iter()
                            .map(|(k, v)| (k.clone(), v.clone().into()))
                            .collect(),
                    ),
                );
            }
        }
        v
    }

    /// Reads RisuAI's own names: `loreBookDepth`, `loreBookToken`,
    /// `loreSettings {tokenBudget, scanDepth, recursiveScanning,
    /// fullWordMatching}` and `fmIndex`, and what CBS reads (`username`,
    /// `character`, `scriptstate`, `globalChatVariables`,
    /// `templateDefaultVariables`, `personaPrompt`); `risuVersion` is ours
    /// (`2026` or `460ecae`). Without `loreSettings`, the global values and
    /// RisuAI's defaults apply (recursion on, partial words). Other fields
    /// are ignored.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let v: Value = crate::formats::parse_json(text.as_bytes()).map_err(|e| e.to_string())?;
        let Value::Object(top) = v else {
            return Err("RisuAI settings must be a JSON object".into());
        };
        let number = |o: &serde_json::Map<String, Value>, k: &str| -> Result<Option<f64>, String> {
            match o.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v
                    .as_f64()
                    .map(Some)
                    .ok_or_else(|| format!("{k} must be a number")),
            }
        };
        let boolean =
            |o: &serde_json::Map<String, Value>, k: &str| -> Result<Option<bool>, String> {
                match o.get(k) {
                    None | Some(Value::Null) => Ok(None),
                    Some(Value::Bool(b)) => Ok(Some(*b)),
                    Some(_) => Err(format!("loreSettings.{k} must be true or false")),
                }
            };
        let mut s = RisuSettings::default();
        if let Some(d) = number(&top, "loreBookDepth")? {
            s.scan_depth = d;
        }
        if let Some(t) = number(&top, "loreBookToken")? {
            s.token_budget = t;
        }
        if let Some(f) = number(&top, "fmIndex")? {
            s.fm_index = f as i64;
        }
        match top.get("loreSettings") {
            None | Some(Value::Null) => {}
            Some(Value::Object(ls)) => {
                if let Some(d) = number(ls, "scanDepth")? {
                    s.scan_depth = d;
                }
                if let Some(t) = number(ls, "tokenBudget")? {
                    s.token_budget = t;
                }
                if let Some(r) = boolean(ls, "recursiveScanning")? {
                    s.recursive_scanning = r;
                }
                if let Some(f) = boolean(ls, "fullWordMatching")? {
                    s.full_word_matching = f;
                }
            }
            Some(_) => return Err("loreSettings must be an object".into()),
        }
        match top.get("risuVersion") {
            None | Some(Value::Null) => {}
            Some(Value::String(v)) => s.version = RisuVersion::parse(v)?,
            Some(_) => return Err("risuVersion must be \"2026\" or \"460ecae\"".into()),
        }
        read_cbs(&top, &mut s.cbs)?;
        Ok(s)
    }
}

/// A text field by RisuAI's name: absent or null leaves `into` as it is.
fn text_field(o: &Map<String, Value>, key: &str, into: &mut String) -> Result<(), String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(()),
        Some(Value::String(t)) => {
            *into = t.clone();
            Ok(())
        }
        Some(_) => Err(format!("{key} must be text")),
    }
}

/// A variable's value as RisuAI turns it into text (`toString`, as
/// JavaScript's `String` prints it); a null one is no value.
fn variable_text(v: &Value) -> Option<String> {
    (!v.is_null()).then(|| crate::sillytavern::macros::js::plain_text(v))
}

fn variables(
    o: &Map<String, Value>,
    key: &str,
) -> Result<Option<BTreeMap<String, String>>, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => Ok(Some(
            m.iter()
                .filter_map(|(k, v)| variable_text(v).map(|t| (k.clone(), t)))
                .collect(),
        )),
        Some(_) => Err(format!("{key} must be an object of variables")),
    }
}

/// What CBS reads, by RisuAI's names: `username`, `character {name,
/// nickname, defaultVariables, desc, personality, scenario,
/// exampleMessage}`, `scriptstate`, `globalChatVariables`,
/// `templateDefaultVariables` and `personaPrompt`.
fn read_cbs(top: &Map<String, Value>, c: &mut CbsInputs) -> Result<(), String> {
    text_field(top, "username", &mut c.username)?;
    text_field(
        top,
        "templateDefaultVariables",
        &mut c.template_default_variables,
    )?;
    text_field(top, "personaPrompt", &mut c.persona_prompt)?;
    match top.get("character") {
        None | Some(Value::Null) => {}
        Some(Value::Object(ch)) => {
            text_field(ch, "name", &mut c.char_name)?;
            text_field(ch, "nickname", &mut c.char_nickname)?;
            text_field(ch, "defaultVariables", &mut c.default_variables)?;
            text_field(ch, "desc", &mut c.description)?;
            text_field(ch, "personality", &mut c.personality)?;
            text_field(ch, "scenario", &mut c.scenario)?;
            text_field(ch, "exampleMessage", &mut c.example_message)?;
        }
        Some(_) => return Err("character must be an object".into()),
    }
    if let Some(vars) = variables(top, "scriptstate")? {
        c.scriptstate = vars;
    }
    if let Some(vars) = variables(top, "globalChatVariables")? {
        c.global_chat_variables = vars;
    }
    Ok(())
}

impl RisuSettings {
    /// The version's name, for what the preview says of its rules.
    pub fn version_name(&self) -> &'static str {
        self.version.as_str()
    }
}
