//! SillyTavern's global world-info settings (`world_info_settings`).
//!
//! SillyTavern loads each known key that is present with JavaScript's
//! `Number(…)` or `Boolean(…)` coercion and leaves absent keys at the
//! module's defaults (world-info.js: `setWorldInfoSettings`). A fresh
//! install ships a `settings.json` that turns recursion and whole words on,
//! so [`StSettings::default`] (no file at all) uses those values while
//! [`StSettings::from_value`] starts from the module defaults.

use serde::Serialize;
use serde_json::Value;

/// The context size of a fresh SillyTavern chat completion preset minus its
/// response length, about: the preview's default (the app, the CLI and
/// scenarios).
pub const DEFAULT_MAX_CONTEXT: u32 = 8192;

/// The settings that change what world info activates and where it goes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StSettings {
    /// Scan depth: how many of the newest messages are scanned.
    pub depth: f64,
    /// Budget as a percentage of the context size.
    pub budget_percent: f64,
    /// Upper bound of the budget in tokens when above 0.
    pub budget_cap: f64,
    pub min_activations: f64,
    /// Largest depth min activations widens to (0: the chat length).
    pub min_activations_depth_max: f64,
    pub include_names: bool,
    pub recursive: bool,
    /// Maximum number of scan passes when above 0.
    pub max_recursion_steps: f64,
    pub case_sensitive: bool,
    pub match_whole_words: bool,
    pub use_group_scoring: bool,
    /// 0 evenly, 1 character lore first, 2 global lore first.
    pub character_strategy: f64,
}

impl StSettings {
    /// The module defaults at the top of world-info.js, used for keys a
    /// settings file does not have.
    pub fn module_defaults() -> Self {
        StSettings {
            depth: 2.0,
            budget_percent: 25.0,
            budget_cap: 0.0,
            min_activations: 0.0,
            min_activations_depth_max: 0.0,
            include_names: true,
            recursive: false,
            max_recursion_steps: 0.0,
            case_sensitive: false,
            match_whole_words: false,
            use_group_scoring: false,
            character_strategy: 1.0,
        }
    }

    /// Reads the text of a SillyTavern `settings.json` (see
    /// [`StSettings::from_value`]) under the JSON caps of books
    /// ([`crate::formats::json::MAX_JSON_VALUES`] values, counted before
    /// parsing, and [`crate::formats::json::MAX_JSON_DEPTH`] levels): a
    /// 64 MiB file of empty arrays would otherwise parse into gigabytes.
    /// A UTF-8 byte order mark is skipped.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let value = crate::formats::parse_json(text.as_bytes()).map_err(|e| e.to_string())?;
        StSettings::from_value(&value)
    }

    /// Reads a whole SillyTavern `settings.json` (its `world_info_settings`
    /// object is used) or the `world_info_settings` object itself.
    pub fn from_value(value: &Value) -> Result<Self, String> {
        let Value::Object(top) = value else {
            return Err("SillyTavern settings must be a JSON object".into());
        };
        let o = match top.get("world_info_settings") {
            Some(Value::Object(inner)) => inner,
            Some(_) => return Err("\"world_info_settings\" must be an object".into()),
            None => top,
        };
        let mut s = StSettings::module_defaults();
        let numbers: [(&str, &mut f64); 7] = [
            ("world_info_depth", &mut s.depth),
            ("world_info_budget", &mut s.budget_percent),
            ("world_info_budget_cap", &mut s.budget_cap),
            ("world_info_min_activations", &mut s.min_activations),
            (
                "world_info_min_activations_depth_max",
                &mut s.min_activations_depth_max,
            ),
            ("world_info_max_recursion_steps", &mut s.max_recursion_steps),
            ("world_info_character_strategy", &mut s.character_strategy),
        ];
        for (key, slot) in numbers {
            if let Some(v) = o.get(key) {
                *slot = js_number(v);
            }
        }
        let bools: [(&str, &mut bool); 5] = [
            ("world_info_include_names", &mut s.include_names),
            ("world_info_recursive", &mut s.recursive),
            ("world_info_case_sensitive", &mut s.case_sensitive),
            ("world_info_match_whole_words", &mut s.match_whole_words),
            ("world_info_use_group_scoring", &mut s.use_group_scoring),
        ];
        for (key, slot) in bools {
            if let Some(v) = o.get(key) {
                *slot = js_truthy(v);
            }
        }
        // Budgets above 100 % come from the old absolute-token format and
        // are reset (world-info.js: setWorldInfoSettings).
        if s.budget_percent > 100.0 {
            s.budget_percent = 25.0;
        }
        Ok(s)
    }

    /// The settings by SillyTavern's names, as [`StSettings::from_value`]
    /// reads them back (a scenario keeps them so).
    pub fn to_value(&self) -> Value {
        serde_json::json!({
            "world_info_depth": self.depth,
            "world_info_budget": self.budget_percent,
            "world_info_budget_cap": self.budget_cap,
            "world_info_min_activations": self.min_activations,
            "world_info_min_activations_depth_max": self.min_activations_depth_max,
            "world_info_max_recursion_steps": self.max_recursion_steps,
            "world_info_character_strategy": self.character_strategy,
            "world_info_include_names": self.include_names,
            "world_info_recursive": self.recursive,
            "world_info_case_sensitive": self.case_sensitive,
            "world_info_match_whole_words": self.match_whole_words,
            "world_info_use_group_scoring": self.use_group_scoring,
        })
    }

    /// The budget in tokens for a context of `max_context` tokens:
    /// round(percent × context / 100), at least 1, capped when a cap is set
    /// (world-info.js: checkWorldInfo).
    pub fn budget(&self, max_context: u32) -> u32 {
        let raw = (self.budget_percent * max_context as f64 / 100.0 + 0.5).floor();
        let mut budget = if raw.is_nan() || raw <= 0.0 { 1.0 } else { raw };
        if self.budget_cap > 0.0 && budget > self.budget_cap {
            budget = self.budget_cap;
        }
        budget.min(u32::MAX as f64) as u32
    }
}

impl Default for StSettings {
    /// What an untouched SillyTavern uses: the module defaults overridden
    /// by the fresh-install `settings.json` (recursion and whole words on).
    fn default() -> Self {
        StSettings {
            recursive: true,
            match_whole_words: true,
            ..StSettings::module_defaults()
        }
    }
}

/// A setting of SillyTavern's World Info panel that takes a number in a
/// range (the max context is the chat completion preset's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum StRanged {
    Depth,
    BudgetPercent,
    BudgetCap,
    MaxContext,
    MaxRecursionSteps,
    MinActivations,
    MinActivationsDepthMax,
}

/// The whole numbers a setting takes: `min..=max`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StRange {
    pub setting: StRanged,
    pub min: f64,
    pub max: f64,
}

/// The ranges SillyTavern's own settings panel allows, the one table the
/// app (its settings panel and the check of what it is sent), the loading
/// of a settings file and the CLI apply.
pub const ST_RANGES: [StRange; 7] = [
    StRange {
        setting: StRanged::Depth,
        min: 0.0,
        max: 1000.0,
    },
    StRange {
        setting: StRanged::BudgetPercent,
        min: 1.0,
        max: 100.0,
    },
    StRange {
        setting: StRanged::BudgetCap,
        min: 0.0,
        max: 65536.0,
    },
    StRange {
        setting: StRanged::MaxContext,
        min: 1.0,
        max: 2_000_000.0,
    },
    StRange {
        setting: StRanged::MaxRecursionSteps,
        min: 0.0,
        max: 10.0,
    },
    StRange {
        setting: StRanged::MinActivations,
        min: 0.0,
        max: 100.0,
    },
    StRange {
        setting: StRanged::MinActivationsDepthMax,
        min: 0.0,
        max: 100.0,
    },
];

impl StRange {
    /// The range of `setting`.
    pub fn of(setting: StRanged) -> StRange {
        ST_RANGES
            .into_iter()
            .find(|r| r.setting == setting)
            .expect("every setting has its range")
    }

    /// Whether `x` is a whole number in the range.
    pub fn holds(&self, x: f64) -> bool {
        x.fract() == 0.0 && (self.min..=self.max).contains(&x)
    }

    /// `x` rounded to a whole number in the range (`NaN` to its minimum).
    pub fn clamp(&self, x: f64) -> f64 {
        if x.is_nan() {
            self.min
        } else {
            x.round().clamp(self.min, self.max)
        }
    }
}

impl StSettings {
    /// The settings' ranged numbers (all but the max context), mutable.
    fn ranged(&mut self) -> [(StRanged, &mut f64); 6] {
        [
            (StRanged::Depth, &mut self.depth),
            (StRanged::BudgetPercent, &mut self.budget_percent),
            (StRanged::BudgetCap, &mut self.budget_cap),
            (StRanged::MaxRecursionSteps, &mut self.max_recursion_steps),
            (StRanged::MinActivations, &mut self.min_activations),
            (
                StRanged::MinActivationsDepthMax,
                &mut self.min_activations_depth_max,
            ),
        ]
    }

    /// The first setting out of its range ([`ST_RANGES`]), if any.
    pub fn out_of_range(&self) -> Option<StRange> {
        let mut copy = self.clone();
        let found = copy
            .ranged()
            .into_iter()
            .map(|(s, x)| (StRange::of(s), *x))
            .find(|(r, x)| !r.holds(*x))
            .map(|(r, _)| r);
        found
    }

    /// The settings with every ranged number clamped into its range, as a
    /// hand-edited settings file is read (so it can be edited further).
    pub fn clamped(mut self) -> Self {
        for (s, x) in self.ranged() {
            *x = StRange::of(s).clamp(*x);
        }
        self
    }
}

/// JavaScript `Number(value)` for a JSON value.
pub(crate) fn js_number(v: &Value) -> f64 {
    match v {
        Value::Null => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => {
            let t = super::matching::js_trim(s);
            if t.is_empty() {
                0.0
            } else {
                t.parse::<f64>().unwrap_or(f64::NAN)
            }
        }
        Value::Array(a) if a.is_empty() => 0.0,
        Value::Array(a) if a.len() == 1 => js_number(&a[0]),
        _ => f64::NAN,
    }
}

/// JavaScript truthiness of a JSON value.
pub(crate) fn js_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_hold_whole_numbers_just_inside_and_not_just_outside() {
        for r in ST_RANGES {
            assert!(r.holds(r.min) && r.holds(r.max), "{r:?}");
            assert!(!r.holds(r.min - 1.0) && !r.holds(r.max + 1.0), "{r:?}");
            assert!(!r.holds(r.min + 0.5), "{r:?}");
            assert_eq!(r.clamp(r.max + 7.0), r.max);
            assert_eq!(r.clamp(f64::NAN), r.min);
        }
        let mut s = StSettings::default();
        assert_eq!(s.out_of_range(), None);
        s.max_recursion_steps = 11.0;
        assert_eq!(
            s.out_of_range().map(|r| r.setting),
            Some(StRanged::MaxRecursionSteps)
        );
        let s = s.clamped();
        assert_eq!(s.max_recursion_steps, 10.0);
        assert_eq!(s.out_of_range(), None);
    }
    use serde_json::json;

    // world-info.js: checkWorldInfo (budget = round(% × context / 100), ≥ 1, capped).
    #[test]
    fn budget_from_percent_context_and_cap() {
        let cases: &[(Value, u32, u32)] = &[
            (json!({"world_info_budget": 25}), 8192, 2048),
            (json!({"world_info_budget": 25}), 200, 50),
            (json!({"world_info_budget": 25}), 40, 10),
            (
                json!({"world_info_budget": 25, "world_info_budget_cap": 30}),
                8192,
                30,
            ),
            (json!({"world_info_budget": 1}), 10, 1),
            (json!({"world_info_budget": 150}), 100, 25),
            (json!({"world_info_budget": 50}), 3, 2),
        ];
        for (v, ctx, want) in cases {
            let s = StSettings::from_value(v).unwrap();
            assert_eq!(s.budget(*ctx), *want, "{v} at {ctx}");
        }
    }

    // world-info.js: setWorldInfoSettings (Number/Boolean coercion, absent
    // keys keep the module defaults, nested world_info_settings accepted).
    #[test]
    fn loading_coerces_like_javascript() {
        let s = StSettings::from_value(&json!({"world_info_recursive": "false"})).unwrap();
        assert!(s.recursive, "a non-empty string is true");
        assert!(!s.match_whole_words, "absent key keeps the module default");
        let s = StSettings::from_value(&json!({"world_info_depth": null})).unwrap();
        assert_eq!(s.depth, 0.0);
        let s = StSettings::from_value(&json!({"world_info_depth": "5"})).unwrap();
        assert_eq!(s.depth, 5.0);
        let s = StSettings::from_value(&json!({"world_info_settings": {
            "world_info_depth": 7, "world_info_match_whole_words": true}}))
        .unwrap();
        assert_eq!(s.depth, 7.0);
        assert!(s.match_whole_words);
        let fresh = StSettings::default();
        assert!(fresh.recursive && fresh.match_whole_words);
        assert!(StSettings::from_value(&json!([1])).is_err());
    }
}
