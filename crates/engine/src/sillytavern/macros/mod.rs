//! SillyTavern's macros as world info meets them: keys (primary and
//! secondary) and content go through `substituteParams` before matching,
//! counting and inserting (world-info.js `checkWorldInfo`). SillyTavern
//! 1.19 has two engines for it, chosen by `power_user.experimental_macro_engine`
//! in its `settings.json` (on for new installs since 1.17, and when the key is
//! missing): the new one ("Macros 2.0", [`eval`]) and the legacy one
//! ([`legacy`]). Both read the chat's variables and the global ones
//! ([`vars`]).

pub mod check;
pub mod clock;
pub mod eval;
pub mod js;
pub mod legacy;
pub mod parse;
pub mod registry;
pub mod scope;
pub mod trace;
pub mod vars;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use vars::Variables;

/// Which of SillyTavern's macro engines expands keys and content.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum MacroEngine {
    /// "Macros 2.0": `{{if}}`, scoped macros, variable shorthands, nesting.
    #[default]
    New,
    /// The regex-based engine of SillyTavern 1.15 and earlier.
    Legacy,
}

impl MacroEngine {
    /// The engine a SillyTavern `settings.json` chooses: off only when
    /// `power_user.experimental_macro_engine` is false (power-user.js
    /// defaults it to on). `None` for a bare `world_info_settings` object,
    /// which does not say.
    pub fn of_settings(value: &Value) -> Option<Self> {
        let power_user = value.get("power_user")?;
        Some(match power_user.get("experimental_macro_engine") {
            Some(Value::Bool(false)) => MacroEngine::Legacy,
            _ => MacroEngine::New,
        })
    }

    /// `new` or `legacy`, as the CLI and scenarios write it.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "new" => Ok(MacroEngine::New),
            "legacy" => Ok(MacroEngine::Legacy),
            other => Err(format!("unknown macro engine {other:?} (new or legacy)")),
        }
    }
}

/// The global variables of a SillyTavern `settings.json`
/// (`extension_settings.variables.global`).
pub fn global_variables(settings: &Value) -> std::collections::BTreeMap<String, Value> {
    Variables::object(settings.pointer("/extension_settings/variables/global"))
}

/// The chat's variables from a chat file's first line
/// (`chat_metadata.variables`).
pub fn chat_variables(header: Option<&Value>) -> std::collections::BTreeMap<String, Value> {
    Variables::object(header.and_then(|h| h.pointer("/chat_metadata/variables")))
}

/// What one expansion gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    pub text: String,
    /// A macro of the text set or changed a variable.
    pub wrote: bool,
    /// The variables after the text's macros changed them (when it did):
    /// what later keys and content of the same request read.
    pub vars: Option<Variables>,
    /// A macro whose value the preview cannot know stayed as written.
    pub unknowable: bool,
    /// Where the new engine's macros decided: `{{if}}` branches and the
    /// variables read (the legacy engine records none).
    pub decided: Vec<trace::MacroDecision>,
}

/// Expands `text` under `engine` with these names and variables; date and
/// time macros show `clock` (default: now).
pub fn expand(
    text: &str,
    engine: MacroEngine,
    user: &str,
    char: &str,
    vars: &Variables,
    clock: Option<clock::Moment>,
) -> String {
    expand_full(text, engine, user, char, vars, clock).text
}

/// [`expand`], saying what the text's macros did.
pub fn expand_full(
    text: &str,
    engine: MacroEngine,
    user: &str,
    char: &str,
    vars: &Variables,
    clock: Option<clock::Moment>,
) -> Expanded {
    let plain = |text: &str| Expanded {
        text: text.to_string(),
        wrote: false,
        vars: None,
        unknowable: false,
        decided: Vec::new(),
    };
    match engine {
        MacroEngine::Legacy => {
            if !text.contains("{{") && !text.contains('<') {
                return plain(text);
            }
            let (text, changed) = legacy::expand(text, user, char, vars, clock);
            Expanded {
                unknowable: text.contains("{{") && unknowable_left(&text),
                text,
                wrote: changed.is_some(),
                vars: changed,
                decided: Vec::new(),
            }
        }
        MacroEngine::New => {
            if !text.contains("{{")
                && !text.contains('<')
                && !text.contains('\\')
                && !text.contains('\0')
            {
                return plain(text);
            }
            let cx = eval::Cx::new(user, char, vars, text.len(), clock);
            let out = cx.evaluate(text);
            if cx.spent() {
                // Too costly to read: kept as written.
                return plain(text);
            }
            let scratch = cx.vars.borrow();
            let changed = scratch.wrote().then(|| scratch.applied());
            Expanded {
                text: out,
                wrote: changed.is_some(),
                vars: changed,
                unknowable: cx.unknowable.get(),
                decided: cx.trace.take(),
            }
        }
    }
}

/// Whether a legacy-expanded text still holds a macro the preview cannot
/// know.
fn unknowable_left(text: &str) -> bool {
    let steps = std::cell::Cell::new((text.len() as u64).saturating_mul(64).max(1 << 20));
    parse::document(text, &steps).iter().any(|item| match item {
        parse::Item::Macro(parse::Node {
            body: parse::Body::Named { name, .. },
            ..
        }) => registry::lookup(&text[name.0..name.1])
            .is_some_and(|d| d.does == registry::Does::Unknowable),
        _ => false,
    })
}

#[cfg(test)]
mod tests;
