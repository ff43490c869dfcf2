//! The character, persona and Author's Note texts of the preview under
//! SillyTavern's rules: what the entries' `match…` flags add to the
//! scanned text ([`MatchSources`]) and what the final prompt is built from
//! besides the chat ([`StPromptInputs`]).
//!
//! The card's fields follow the first attached book that came from a
//! character card (its card is kept whole in the book's
//! `wrapper_extra["character_card"]`), until the user types their own
//! text; the persona and the Author's Note are the user's alone. They are
//! one set for the app, kept in the SillyTavern settings file beside the
//! settings (`sillytavern-settings.json`), whose other keys are kept.

use lorebook_engine::formats::card::CARD_KEY;
use lorebook_engine::model::Role;
use lorebook_engine::risu::prompt::RisuPromptInputs;
use lorebook_engine::sillytavern::matching::{js_trim, substitute};
use lorebook_engine::sillytavern::{
    AuthorsNote, CharacterNote, MatchSources, Names, NotePosition, StPromptInputs,
};
use serde_json::{Map, Value};

use super::Workspace;
use crate::error::{AppError, ErrorCode, NoteNumber};
use crate::views::{StCardView, StCharacterNoteView, StInputsView, StNotePosition, StSettingsView};

/// The key of the inputs in the settings file.
const INPUTS_KEY: &str = "inputs";

/// The deepest in-chat injection SillyTavern makes, decided in the engine.
const MAX_DEPTH: f64 = lorebook_engine::sillytavern::prompt::MAX_INJECTION_DEPTH;

fn role_number(r: Role) -> i64 {
    i64::from(r.to_st())
}

/// A card's `depth_prompt.role` (a name; anything else is system, as
/// SillyTavern reads it).
fn role_of_name(v: Option<&Value>) -> Role {
    match v.and_then(Value::as_str) {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        _ => Role::System,
    }
}

/// `{{original}}` (any case) in a card's system prompt stands for the main
/// prompt it replaces.
fn with_original(text: &str, original: &str) -> String {
    const MARK: &str = "{{original}}";
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for (at, _) in lower.match_indices(MARK) {
        out.push_str(&text[from..at]);
        out.push_str(original);
        from = at + MARK.len();
    }
    out.push_str(&text[from..]);
    out
}

/// The card's fields, read from the card object a book kept; named by the
/// character's name (`data.name`), else by the book's.
pub(super) fn card_view(doc: u32, name: String, card: &Value) -> Option<StCardView> {
    let data = card.get("data").filter(|d| d.is_object())?;
    let text = |pointer: &str| {
        data.pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let note = text("/extensions/depth_prompt/prompt");
    let character_note = (!js_trim(&note).is_empty()).then(|| StCharacterNoteView {
        text: note,
        depth: data
            .pointer("/extensions/depth_prompt/depth")
            .and_then(Value::as_f64)
            .unwrap_or(4.0),
        role: role_of_name(data.pointer("/extensions/depth_prompt/role")),
    });
    let own = text("/name");
    Some(StCardView {
        doc,
        name: if own.trim().is_empty() { name } else { own },
        description: text("/description"),
        personality: text("/personality"),
        scenario: text("/scenario"),
        examples: text("/mes_example"),
        creator_notes: text("/creator_notes"),
        character_note,
        system_prompt: !text("/system_prompt").trim().is_empty(),
    })
}

/// A whole number from 0 to `hi`.
fn whole(setting: NoteNumber, name: &str, x: f64, hi: f64) -> Result<(), AppError> {
    if x.fract() == 0.0 && (0.0..=hi).contains(&x) {
        Ok(())
    } else {
        Err(AppError::invalid(
            format!("{name} must be a whole number from 0 to {hi}"),
            ErrorCode::NoteNumberOutOfRange {
                setting,
                max: hi as u32,
            },
        ))
    }
}

impl Workspace {
    /// The card of the first attached book that came from a character
    /// card, if any.
    pub fn st_card(&self) -> Option<StCardView> {
        self.docs.iter().filter(|d| d.attached).find_map(|d| {
            let card = d.book.wrapper_extra.get(CARD_KEY)?;
            card_view(d.id, d.display_name(), card)
        })
    }

    /// Replaces the inputs after checking the notes' numbers.
    pub fn set_st_inputs(&mut self, v: StInputsView) -> Result<(), AppError> {
        if let Some(n) = &v.character_note {
            whole(
                NoteNumber::CharacterNoteDepth,
                "character's note depth",
                n.depth,
                MAX_DEPTH,
            )?;
        }
        whole(
            NoteNumber::AuthorsNoteDepth,
            "Author's Note depth",
            v.authors_note.depth,
            MAX_DEPTH,
        )?;
        whole(
            NoteNumber::AuthorsNoteInterval,
            "Author's Note frequency",
            v.authors_note.interval,
            MAX_DEPTH,
        )?;
        self.st_inputs = v;
        Ok(())
    }

    /// The inputs with the card's fields filled in where they follow it.
    fn st_resolved(&self) -> (StInputsView, Option<StCardView>) {
        let card = self.st_card();
        let mut v = self.st_inputs.clone();
        let fill = |field: &mut Option<String>, from: fn(&StCardView) -> &String| {
            if field.is_none() {
                *field = Some(card.as_ref().map(from).cloned().unwrap_or_default());
            }
        };
        fill(&mut v.description, |c| &c.description);
        fill(&mut v.personality, |c| &c.personality);
        fill(&mut v.scenario, |c| &c.scenario);
        fill(&mut v.examples, |c| &c.examples);
        fill(&mut v.creator_notes, |c| &c.creator_notes);
        if v.character_note.is_none() {
            v.character_note = card.as_ref().and_then(|c| c.character_note.clone());
        }
        (v, card)
    }

    /// What the entries' `match…` flags add to the scanned text: each
    /// field trimmed and its `{{user}}`/`{{char}}` macros expanded, as
    /// SillyTavern prepares them (script.js: `getCharacterCardFields`).
    pub fn st_match_sources(&self) -> MatchSources {
        let (v, _) = self.st_resolved();
        let names = Names {
            user: self.st_settings.user_name.clone(),
            char: self.st_settings.char_name.clone(),
            ..Default::default()
        };
        let prepared =
            |text: Option<String>| substitute(js_trim(&text.unwrap_or_default()), &names);
        MatchSources {
            persona_description: prepared(Some(v.persona)),
            character_description: prepared(v.description),
            character_personality: prepared(v.personality),
            character_depth_prompt: prepared(v.character_note.map(|n| n.text)),
            scenario: prepared(v.scenario),
            creator_notes: prepared(v.creator_notes),
        }
    }

    /// What the final prompt is built from besides the chat: the card's
    /// texts where SillyTavern puts them, the persona, the character's
    /// note and the Author's Note; the card's own system prompt replaces
    /// the main prompt, as SillyTavern's "prefer character prompt" does.
    pub fn st_prompt_inputs(&self) -> StPromptInputs {
        let (v, card) = self.st_resolved();
        let mut inputs = StPromptInputs {
            persona: v.persona,
            description: v.description.unwrap_or_default(),
            personality: v.personality.unwrap_or_default(),
            scenario: v.scenario.unwrap_or_default(),
            examples: v.examples.unwrap_or_default(),
            character_note: v
                .character_note
                .filter(|n| !js_trim(&n.text).is_empty())
                .map(|n| CharacterNote {
                    text: js_trim(&n.text).to_string(),
                    depth: n.depth,
                    role: role_number(n.role),
                }),
            authors_note: AuthorsNote {
                text: v.authors_note.text,
                interval: v.authors_note.interval,
                position: match v.authors_note.position {
                    StNotePosition::AfterMain => NotePosition::AfterMain,
                    StNotePosition::InChat => NotePosition::InChat,
                    StNotePosition::BeforeMain => NotePosition::BeforeMain,
                },
                depth: v.authors_note.depth,
                role: role_number(v.authors_note.role),
            },
            ..StPromptInputs::default()
        };
        if let Some(system) = self.card_system_prompt(card) {
            inputs.main = with_original(&system, &inputs.main);
        }
        inputs
    }

    /// The system prompt of the card the inputs follow, when they follow
    /// it (`{{original}}` in it stands for the main prompt it replaces).
    fn card_system_prompt(&self, card: Option<StCardView>) -> Option<String> {
        let c = card.filter(|c| c.system_prompt)?;
        self.card_text(c.doc, "/data/system_prompt")
    }

    /// Text `pointer` of the character card kept with book `doc`.
    fn card_text(&self, doc: u32, pointer: &str) -> Option<String> {
        let doc = self.docs.iter().find(|d| d.id == doc)?;
        let card = doc.book.wrapper_extra.get(CARD_KEY)?;
        Some(card.pointer(pointer)?.as_str()?.to_string())
    }

    /// What RisuAI's final prompt is built from besides the chat: the texts
    /// of the attached character card (its description, personality,
    /// scenario, example messages, the greeting RisuAI's `fmIndex` picks,
    /// and its system prompt as the main prompt, `{{original}}`, RisuAI's
    /// global main prompt, left empty: its default text is not
    /// reproduced). Nothing typed in SillyTavern's inputs, which the panel
    /// under RisuAI's rules does not show; no persona or author's note.
    pub(super) fn risu_prompt_inputs(&self) -> RisuPromptInputs {
        let (_, card) = self.st_resolved();
        let Some(c) = card else {
            return RisuPromptInputs::default();
        };
        let text = |pointer: &str| self.card_text(c.doc, pointer).unwrap_or_default();
        let greeting = match usize::try_from(self.risu_settings.fm_index) {
            Ok(k) => text(&format!("/data/alternate_greetings/{k}")),
            Err(_) => text("/data/first_mes"),
        };
        RisuPromptInputs {
            main: with_original(&text("/data/system_prompt"), ""),
            description: text("/data/description"),
            personality: text("/data/personality"),
            scenario: text("/data/scenario"),
            examples: text("/data/mes_example"),
            greeting,
            ..RisuPromptInputs::default()
        }
    }

    /// Takes the settings and inputs a settings file holds (see
    /// [`settings_file`]); values out of range are refused, keeping what
    /// was there, and a broken file changes nothing.
    pub fn restore_st_file(&mut self, bytes: &[u8]) {
        let Ok(Value::Object(top)) = serde_json::from_slice::<Value>(bytes) else {
            return;
        };
        if let Ok(s) = serde_json::from_value::<StSettingsView>(Value::Object(top.clone())) {
            let _ = self.set_st_settings(s);
        }
        if let Some(v) = top
            .get(INPUTS_KEY)
            .and_then(|i| serde_json::from_value::<StInputsView>(i.clone()).ok())
        {
            let _ = self.set_st_inputs(v);
        }
    }

    /// The settings file's new text: the settings' keys and the inputs
    /// written over the `old` file's object, so keys this version does not
    /// know (a newer version's) are kept.
    pub fn st_file(&self, old: Option<&[u8]>) -> Vec<u8> {
        let mut top = old
            .and_then(|b| serde_json::from_slice::<Value>(b).ok())
            .and_then(|v| match v {
                Value::Object(m) => Some(m),
                _ => None,
            })
            .unwrap_or_default();
        if let Ok(Value::Object(s)) = serde_json::to_value(&self.st_settings) {
            merge(&mut top, s);
        }
        if let Ok(Value::Object(i)) = serde_json::to_value(&self.st_inputs) {
            match top.get_mut(INPUTS_KEY) {
                Some(Value::Object(old)) => merge(old, i),
                _ => {
                    top.insert(INPUTS_KEY.into(), Value::Object(i));
                }
            }
        }
        serde_json::to_vec_pretty(&Value::Object(top)).unwrap_or_default()
    }
}

/// `new`'s keys written over `old`, objects key by key.
fn merge(old: &mut Map<String, Value>, new: Map<String, Value>) {
    for (k, v) in new {
        match (old.get_mut(&k), v) {
            (Some(Value::Object(o)), Value::Object(n)) => merge(o, n),
            (_, v) => {
                old.insert(k, v);
            }
        }
    }
}
