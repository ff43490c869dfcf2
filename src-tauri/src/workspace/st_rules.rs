//! Which rules the preview follows, and SillyTavern's global settings.
//!
//! The rules follow the attached books until the user chooses: SillyTavern's
//! when any attached book targets SillyTavern (imported from a SillyTavern
//! world file or a character card, or carrying their fields), the guide's
//! otherwise. SillyTavern's settings are global in SillyTavern, so they are
//! one set for the whole app (the shell keeps them in the data folder), not
//! a property of a book: a book exported to SillyTavern does not carry them
//! either.

use std::path::Path;

use lorebook_engine::formats::Format;
use lorebook_engine::model::Book;
use lorebook_engine::sillytavern::macros::{self, MacroEngine};
use lorebook_engine::sillytavern::{StRange, StRanged, StSettings};

use super::documents::Doc;
use super::Workspace;
use crate::error::{AppError, ErrorCode, ErrorKind};
use crate::views::{Rules, RulesView, StSettingsView};

/// The context size the preview starts with (the engine's, which the CLI
/// and scenarios use too).
pub use lorebook_engine::sillytavern::DEFAULT_MAX_CONTEXT;

/// Extension keys only SillyTavern (or a card written by it) puts on an entry.
const ST_MARKS: &[&str] = &["sillytavern", "display_index", "position", "depth"];

/// A fresh SillyTavern install's settings.
pub fn default_settings() -> StSettingsView {
    view_of(
        &StSettings::default(),
        DEFAULT_MAX_CONTEXT,
        "User",
        "Character",
    )
}

fn view_of(s: &StSettings, max_context: u32, user: &str, char: &str) -> StSettingsView {
    StSettingsView {
        depth: s.depth,
        budget_percent: s.budget_percent,
        budget_cap: s.budget_cap,
        max_context,
        recursive: s.recursive,
        max_recursion_steps: s.max_recursion_steps,
        min_activations: s.min_activations,
        min_activations_depth_max: s.min_activations_depth_max,
        include_names: s.include_names,
        case_sensitive: s.case_sensitive,
        match_whole_words: s.match_whole_words,
        use_group_scoring: s.use_group_scoring,
        user_name: user.into(),
        char_name: char.into(),
        macro_engine: Default::default(),
        global_vars: Default::default(),
    }
}

/// A variable's stored value as the text the app shows and keeps (JSON
/// for what is not text; macros read both alike).
fn var_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Variables of a JSON object as text.
pub(super) fn vars_text(
    vars: std::collections::BTreeMap<String, serde_json::Value>,
) -> std::collections::BTreeMap<String, String> {
    vars.into_iter().map(|(k, v)| (k, var_text(&v))).collect()
}

pub(super) fn engine_settings(v: &StSettingsView) -> StSettings {
    StSettings {
        depth: v.depth,
        budget_percent: v.budget_percent,
        budget_cap: v.budget_cap,
        min_activations: v.min_activations,
        min_activations_depth_max: v.min_activations_depth_max,
        include_names: v.include_names,
        recursive: v.recursive,
        max_recursion_steps: v.max_recursion_steps,
        case_sensitive: v.case_sensitive,
        match_whole_words: v.match_whole_words,
        use_group_scoring: v.use_group_scoring,
        ..StSettings::default()
    }
}

/// Checks the ranges SillyTavern's own settings panel allows (the engine's
/// `ST_RANGES`).
fn check(v: &StSettingsView) -> Result<(), AppError> {
    let context = StRange::of(StRanged::MaxContext);
    let bad = engine_settings(v)
        .out_of_range()
        .or_else(|| (!context.holds(f64::from(v.max_context))).then_some(context));
    match bad {
        Some(r) => Err(AppError::out_of_range(r)),
        None => Ok(()),
    }
}

impl Doc {
    /// Whether SillyTavern is this book's target: imported from a
    /// SillyTavern world or a character card, or carrying their fields.
    pub fn targets_sillytavern(&self) -> bool {
        if let Some(f) = self.origin {
            return matches!(
                f,
                Format::SillyTavern
                    | Format::CardV2
                    | Format::CardV3
                    | Format::CharacterBook
                    | Format::PngCard
                    | Format::Charx
            );
        }
        carries_st_fields(&self.book)
    }
}

fn carries_st_fields(book: &Book) -> bool {
    book.wrapper_extra.contains_key("character_card")
        || book.extensions.contains_key("sillytavern")
        || book
            .entries
            .iter()
            .any(|e| ST_MARKS.iter().any(|k| e.extensions.contains_key(*k)))
}

impl Workspace {
    /// The rules in force.
    pub fn rules(&self) -> Rules {
        self.rules.unwrap_or_else(|| {
            let attached = || self.docs.iter().filter(|d| d.attached);
            if attached().any(|d| d.origin == Some(Format::Risu)) {
                Rules::Risu
            } else if attached().any(|d| d.targets_sillytavern()) {
                Rules::Sillytavern
            } else {
                Rules::Studio
            }
        })
    }

    pub fn rules_view(&self) -> RulesView {
        RulesView {
            rules: self.rules(),
            chosen: self.rules.is_some(),
            st: self.st_settings.clone(),
            inputs: self.st_inputs.clone(),
            card: self.st_card(),
            risu: self.risu_settings.clone(),
            chat_vars: self.chat_vars().clone(),
            chat_vars_edited: self.chat_vars_edited.is_some(),
        }
    }

    pub fn set_rules(&mut self, rules: Rules) {
        self.rules = Some(rules);
        // The other profiles' compiled books are as big as the guide's
        // index: not kept while unused.
        if rules != Rules::Sillytavern {
            self.st = None;
        }
        if rules != Rules::Risu {
            self.risu = None;
        }
    }

    /// The chat's variables the preview uses: as edited in the app, else
    /// the chat's own (`chat_metadata.variables` of its first line).
    pub fn chat_vars(&self) -> &std::collections::BTreeMap<String, String> {
        self.chat_vars_edited
            .as_ref()
            .unwrap_or(&self.chat_vars_file)
    }

    /// Sets the chat's variables for the preview (never written to the
    /// chat or a book); `None` goes back to the chat's own.
    pub fn set_chat_vars(&mut self, vars: Option<std::collections::BTreeMap<String, String>>) {
        self.chat_vars_edited = vars;
    }

    /// Reads the chat's variables from its text's first line when that is
    /// a SillyTavern chat header; a change there drops the app's edits.
    pub(super) fn read_chat_vars(&mut self) {
        let first = self.chat_text.lines().next().unwrap_or("");
        // A keystroke in the chat's messages leaves its first line as it
        // was: read again only when that line changed.
        if first == self.chat_header_read {
            return;
        }
        self.chat_header_read = first.to_string();
        let first = self.chat_header_read.as_str();
        let header = first
            .trim_start()
            .starts_with('{')
            .then(|| serde_json::from_str::<serde_json::Value>(first).ok())
            .flatten();
        let vars = vars_text(macros::chat_variables(header.as_ref()));
        if vars != self.chat_vars_file {
            self.chat_vars_file = vars;
            self.chat_vars_edited = None;
        }
    }

    /// The names and variables SillyTavern's macros expand with.
    pub(super) fn st_names(&self) -> lorebook_engine::sillytavern::Names {
        let as_values = |m: &std::collections::BTreeMap<String, String>| {
            m.iter()
                .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                .collect()
        };
        lorebook_engine::sillytavern::Names {
            user: self.st_settings.user_name.clone(),
            char: self.st_settings.char_name.clone(),
            engine: self.st_settings.macro_engine,
            vars: std::sync::Arc::new(macros::Variables {
                local: as_values(self.chat_vars()),
                global: as_values(&self.st_settings.global_vars),
            }),
            clock: None,
        }
    }

    pub fn set_st_settings(&mut self, v: StSettingsView) -> Result<(), AppError> {
        check(&v)?;
        self.st_settings = v;
        Ok(())
    }

    /// Reads a SillyTavern `settings.json` (its `world_info_settings`) or
    /// that object alone; keys it lacks take SillyTavern's defaults. The
    /// context size and the names are not in that object and stay.
    pub fn load_st_settings(&mut self, path: &Path) -> Result<StSettingsView, AppError> {
        let bytes = crate::error::read_book_file(path)?;
        self.load_st_settings_bytes(&bytes, &path.display().to_string())
    }

    /// [`Workspace::load_st_settings`] of bytes already read (a file, or a
    /// SillyTavern server's settings), `label` naming where they came from.
    pub fn load_st_settings_bytes(
        &mut self,
        bytes: &[u8],
        label: &str,
    ) -> Result<StSettingsView, AppError> {
        let text = String::from_utf8_lossy(bytes);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        // Numbers a hand-edited file has out of range are clamped to what
        // the panel accepts, so the loaded settings can be edited further.
        // The macro engine and the global variables, when the file is a
        // whole settings.json (a bare world_info_settings object says
        // nothing of them: they stay).
        let whole = lorebook_engine::formats::parse_json(text.as_bytes()).ok();
        let macros_of = whole.as_ref().and_then(|v| {
            let engine = MacroEngine::of_settings(v)?;
            Some((engine, vars_text(macros::global_variables(v))))
        });
        let s = StSettings::from_json(text)
            .map_err(|detail| {
                AppError::coded(
                    ErrorKind::Format,
                    format!("{label}: {detail}"),
                    ErrorCode::NotStSettings {
                        file: label.to_string(),
                        detail,
                    },
                )
            })?
            .clamped();
        let mut v = view_of(
            &s,
            self.st_settings.max_context,
            &self.st_settings.user_name,
            &self.st_settings.char_name,
        );
        (v.macro_engine, v.global_vars) = macros_of.unwrap_or_else(|| {
            (
                self.st_settings.macro_engine,
                self.st_settings.global_vars.clone(),
            )
        });
        self.st_settings = v.clone();
        Ok(v)
    }
}
