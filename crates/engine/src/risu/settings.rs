//! RisuAI's lorebook settings, read by RisuAI's own names
//! (docs/risu-rules.md, "Sources, settings, headline surprises").

use serde::Serialize;
use serde_json::Value;

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
}

impl Default for RisuSettings {
    fn default() -> Self {
        RisuSettings {
            scan_depth: 5.0,
            token_budget: 800.0,
            recursive_scanning: true,
            full_word_matching: false,
            fm_index: -1,
        }
    }
}

impl RisuSettings {
    /// The settings by RisuAI's names, as [`RisuSettings::from_json`]
    /// reads them back (a scenario keeps them so).
    pub fn to_value(&self) -> Value {
        serde_json::json!({
            "fmIndex": self.fm_index,
            "loreSettings": {
                "scanDepth": self.scan_depth,
                "tokenBudget": self.token_budget,
                "recursiveScanning": self.recursive_scanning,
                "fullWordMatching": self.full_word_matching,
            },
        })
    }

    /// Reads RisuAI's own names: `loreBookDepth`, `loreBookToken`,
    /// `loreSettings {tokenBudget, scanDepth, recursiveScanning,
    /// fullWordMatching}` and `fmIndex`. Without `loreSettings`, the
    /// global values and RisuAI's defaults apply (recursion on, partial
    /// words). Other fields are ignored.
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
        Ok(s)
    }
}
