//! SillyTavern's entry fields, read and edited by their SillyTavern names.
//!
//! An imported SillyTavern entry keeps its fields in three places: the ones
//! the model has a name for (`order`, `role`, `selectiveLogic`,
//! `caseSensitive`, `matchWholeWords`), decorator lines (`@@probability`,
//! `@@scan_depth`), and `extensions` under SillyTavern's character-book
//! names (`position`, `depth`, `group`, `sticky`, …; see the table of
//! [`super::sillytavern`]). [`read`] gives each field the way a
//! SillyTavern export writes it; [`set`] changes one field where it lives,
//! so a SillyTavern or card export writes the new value and every other
//! field exactly as before.
//!
//! Two values have no place in the model and are kept as source spellings
//! ([`super::shadow`]): `useProbability: false` and `null` for
//! `caseSensitive` / `matchWholeWords` ("use the global setting"). A card
//! carries neither: SillyTavern reads a card entry without `useProbability`
//! as always rolling at 100 %, which is what `useProbability: false` means,
//! and a card stores the resolved case and whole-word switches.
//!
//! ```
//! use lorebook_engine::formats::{self, st_fields::{self, StField}};
//! let mut book = formats::import_value(serde_json::json!({"entries": {"0":
//!     {"uid": 0, "key": ["rain"], "content": "Wet.", "position": 0, "group": ""}}})).unwrap().book;
//! st_fields::set(&mut book.entries[0], StField::Group, &serde_json::json!("weather")).unwrap();
//! assert_eq!(st_fields::read(&book.entries[0])["group"], "weather");
//! ```

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::common::set_decorator;
use super::shadow;
use super::sillytavern::{self, ST_EXT};
use crate::model::{Entry, Object, Role as ModelRole, SecondaryLogic};

/// Shadow source names of the SillyTavern file and of cards.
const ST_SOURCE: &str = "sillytavern";
const CARD_SOURCE: &str = "card";
/// Where a card's record of its whole-words switch is kept.
const CARD_WHOLE: &str = "/extensions/match_whole_words";

/// One editable SillyTavern entry field, named as SillyTavern names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum StField {
    #[serde(rename = "position")]
    Position,
    #[serde(rename = "depth")]
    Depth,
    #[serde(rename = "role")]
    Role,
    #[serde(rename = "outletName")]
    OutletName,
    #[serde(rename = "order")]
    Order,
    #[serde(rename = "probability")]
    Probability,
    #[serde(rename = "useProbability")]
    UseProbability,
    #[serde(rename = "scanDepth")]
    ScanDepth,
    #[serde(rename = "caseSensitive")]
    CaseSensitive,
    #[serde(rename = "matchWholeWords")]
    MatchWholeWords,
    #[serde(rename = "group")]
    Group,
    #[serde(rename = "groupOverride")]
    GroupOverride,
    #[serde(rename = "groupWeight")]
    GroupWeight,
    #[serde(rename = "useGroupScoring")]
    UseGroupScoring,
    #[serde(rename = "excludeRecursion")]
    ExcludeRecursion,
    #[serde(rename = "preventRecursion")]
    PreventRecursion,
    #[serde(rename = "delayUntilRecursion")]
    DelayUntilRecursion,
    #[serde(rename = "sticky")]
    Sticky,
    #[serde(rename = "cooldown")]
    Cooldown,
    #[serde(rename = "delay")]
    Delay,
    #[serde(rename = "ignoreBudget")]
    IgnoreBudget,
    #[serde(rename = "matchPersonaDescription")]
    MatchPersonaDescription,
    #[serde(rename = "matchCharacterDescription")]
    MatchCharacterDescription,
    #[serde(rename = "matchCharacterPersonality")]
    MatchCharacterPersonality,
    #[serde(rename = "matchCharacterDepthPrompt")]
    MatchCharacterDepthPrompt,
    #[serde(rename = "matchScenario")]
    MatchScenario,
    #[serde(rename = "matchCreatorNotes")]
    MatchCreatorNotes,
    #[serde(rename = "selectiveLogic")]
    SelectiveLogic,
}

/// Every field, in the order SillyTavern's entry editor shows them.
pub const ALL: [StField; 28] = [
    StField::Position,
    StField::Depth,
    StField::Role,
    StField::OutletName,
    StField::Order,
    StField::Probability,
    StField::UseProbability,
    StField::ScanDepth,
    StField::CaseSensitive,
    StField::MatchWholeWords,
    StField::Group,
    StField::GroupOverride,
    StField::GroupWeight,
    StField::UseGroupScoring,
    StField::ExcludeRecursion,
    StField::PreventRecursion,
    StField::DelayUntilRecursion,
    StField::Sticky,
    StField::Cooldown,
    StField::Delay,
    StField::IgnoreBudget,
    StField::MatchPersonaDescription,
    StField::MatchCharacterDescription,
    StField::MatchCharacterPersonality,
    StField::MatchCharacterDepthPrompt,
    StField::MatchScenario,
    StField::MatchCreatorNotes,
    StField::SelectiveLogic,
];

impl StField {
    /// SillyTavern's name of the field.
    pub fn name(self) -> &'static str {
        let at = ALL.iter().position(|f| *f == self).unwrap_or_default();
        ALL_NAMES[at]
    }
}

const ALL_NAMES: [&str; 28] = [
    "position",
    "depth",
    "role",
    "outletName",
    "order",
    "probability",
    "useProbability",
    "scanDepth",
    "caseSensitive",
    "matchWholeWords",
    "group",
    "groupOverride",
    "groupWeight",
    "useGroupScoring",
    "excludeRecursion",
    "preventRecursion",
    "delayUntilRecursion",
    "sticky",
    "cooldown",
    "delay",
    "ignoreBudget",
    "matchPersonaDescription",
    "matchCharacterDescription",
    "matchCharacterPersonality",
    "matchCharacterDepthPrompt",
    "matchScenario",
    "matchCreatorNotes",
    "selectiveLogic",
];

/// The fields of `e` as a SillyTavern export writes them (absent fields
/// are `null`).
pub fn read(e: &Entry) -> Object {
    let mut o = sillytavern::entry_value(e);
    // A card SillyTavern wrote left whole words to the global setting too.
    let on = Value::Bool(true);
    if e.whole_words && shadow::left_unset(&e.extensions, CARD_SOURCE, CARD_WHOLE, &on) {
        o.insert("matchWholeWords".into(), Value::Null);
    }
    ALL_NAMES
        .iter()
        .map(|n| (n.to_string(), o.get(*n).cloned().unwrap_or(Value::Null)))
        .collect()
}

/// What `set` accepts for a field, checked before anything changes.
fn check(field: StField, v: &Value) -> Result<(), String> {
    let name = field.name();
    let int_in = |lo: i64, hi: i64| -> Result<(), String> {
        match v.as_i64() {
            Some(n) if (lo..=hi).contains(&n) => Ok(()),
            _ => Err(format!("{name} must be a whole number from {lo} to {hi}")),
        }
    };
    let boolean = || -> Result<(), String> {
        v.as_bool()
            .map(|_| ())
            .ok_or_else(|| format!("{name} must be true or false"))
    };
    let or_null = |r: Result<(), String>| {
        if v.is_null() {
            Ok(())
        } else {
            r.map_err(|e| format!("{e}, or empty"))
        }
    };
    use StField::*;
    match field {
        Position => int_in(0, 7),
        Depth => int_in(0, 9999),
        Role => int_in(0, 2),
        Order => int_in(-999_999, 999_999),
        Probability => int_in(0, 100),
        ScanDepth => or_null(int_in(0, 100)),
        GroupWeight => int_in(1, 999_999),
        SelectiveLogic => int_in(0, 3),
        Sticky | Cooldown | Delay => or_null(int_in(0, 999_999)),
        OutletName | Group => v
            .as_str()
            .map(|_| ())
            .ok_or_else(|| format!("{name} must be text")),
        CaseSensitive | MatchWholeWords | UseGroupScoring => or_null(boolean()),
        DelayUntilRecursion => match v {
            Value::Bool(_) => Ok(()),
            _ => int_in(1, 999_999).map_err(|e| format!("{e}, or true/false")),
        },
        UseProbability
        | GroupOverride
        | ExcludeRecursion
        | PreventRecursion
        | IgnoreBudget
        | MatchPersonaDescription
        | MatchCharacterDescription
        | MatchCharacterPersonality
        | MatchCharacterDepthPrompt
        | MatchScenario
        | MatchCreatorNotes => boolean(),
    }
}

/// The shadow records of one source, when the entry has any.
fn records<'a>(e: &'a mut Entry, source: &str) -> Option<&'a mut Object> {
    match e.extensions.get_mut(shadow::KEY)?.get_mut(source)? {
        Value::Object(o) => Some(o),
        _ => None,
    }
}

/// Forgets the source spelling at `pointer`, so the edited value is written.
fn forget(e: &mut Entry, source: &str, pointer: &str) {
    let Some(r) = records(e, source) else { return };
    r.remove(pointer);
    let empty = r.is_empty();
    if empty {
        if let Some(Value::Object(all)) = e.extensions.get_mut(shadow::KEY) {
            all.remove(source);
            if all.is_empty() {
                e.extensions.remove(shadow::KEY);
            }
        }
    }
}

/// Records that a SillyTavern export writes `was` where it would write `as_`.
fn spell(e: &mut Entry, pointer: &str, was: Value, as_: Value) {
    let mut one = Object::new();
    one.insert(pointer.into(), json!({"was": was, "as": as_}));
    let mut existing = records(e, ST_SOURCE)
        .map(std::mem::take)
        .unwrap_or_default();
    existing.extend(one);
    shadow::store(&mut e.extensions, ST_SOURCE, existing);
}

/// Sets one field of `e` to `value` (SillyTavern's JSON form: numbers,
/// booleans, text, `null` where SillyTavern allows it). Returns whether
/// the entry changed; an invalid value is an error and changes nothing.
pub fn set(e: &mut Entry, field: StField, value: &Value) -> Result<bool, String> {
    check(field, value)?;
    let name = field.name();
    if read(e).get(name) == Some(value) {
        return Ok(false);
    }
    let pointer = format!("/{name}");
    forget(e, ST_SOURCE, &pointer);
    if field == StField::MatchWholeWords {
        forget(e, CARD_SOURCE, CARD_WHOLE);
    }
    use StField::*;
    match field {
        Role => {
            e.role = value
                .as_u64()
                .and_then(ModelRole::from_st)
                .unwrap_or_default();
            e.content = super::common::drop_decorator(&e.content, "role");
        }
        Order => {
            let n = value.as_i64().unwrap_or_default();
            e.order = n;
            e.priority = n;
            e.content = super::common::drop_decorator(&e.content, "order");
        }
        SelectiveLogic => {
            e.secondary_logic = value
                .as_u64()
                .and_then(SecondaryLogic::from_st)
                .unwrap_or_default();
        }
        Probability => {
            let n = value.as_i64().unwrap_or(100);
            let arg = (n < 100).then(|| n.to_string());
            e.content = set_decorator(&e.content, "probability", arg.as_deref());
        }
        UseProbability => {
            // The export always writes `true`; `false` is a source spelling.
            if value == &Value::Bool(false) {
                spell(e, &pointer, json!(false), json!(true));
            }
        }
        ScanDepth => {
            let arg = value.as_u64().map(|n| n.to_string());
            e.content = set_decorator(&e.content, "scan_depth", arg.as_deref());
        }
        CaseSensitive | MatchWholeWords => {
            let global_default = field == MatchWholeWords;
            let b = value.as_bool().unwrap_or(global_default);
            if field == CaseSensitive {
                e.case_sensitive = b;
            } else {
                e.whole_words = b;
            }
            if value.is_null() {
                spell(e, &pointer, Value::Null, json!(b));
            }
        }
        _ => {
            let (_, snake, default) = ST_EXT
                .iter()
                .find(|(st, _, _)| *st == name)
                .expect("every other field is an extensions field");
            forget(e, CARD_SOURCE, &format!("/extensions/{snake}"));
            if default.map(|d| d()).as_ref() == Some(value) {
                e.extensions.remove(*snake);
            } else {
                e.extensions.insert(snake.to_string(), value.clone());
            }
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{self, ExportFormat};

    fn source() -> Value {
        let first: Value = serde_json::from_str(
            r#"{"uid": 0, "key": ["rain"], "keysecondary": [], "comment": "Rain", "content": "Wet.",
                  "constant": false, "selective": true, "selectiveLogic": 0, "order": 100,
                  "position": 0, "disable": false, "probability": 100, "useProbability": true,
                  "depth": 4, "group": "", "groupOverride": false, "groupWeight": 100,
                  "scanDepth": null, "caseSensitive": null, "matchWholeWords": null,
                  "useGroupScoring": null, "automationId": "", "role": null, "sticky": 0,
                  "cooldown": 0, "delay": 0, "displayIndex": 0, "excludeRecursion": false,
                  "preventRecursion": false, "delayUntilRecursion": false, "vectorized": false,
                  "addMemo": true, "ignoreBudget": false, "outletName": "",
                  "matchPersonaDescription": false, "matchCharacterDescription": false,
                  "matchCharacterPersonality": false, "matchCharacterDepthPrompt": false,
                  "matchScenario": false, "matchCreatorNotes": false, "triggers": [],
                  "characterFilter": {"isExclude": false, "names": [], "tags": []}}"#,
        )
        .unwrap();
        json!({"entries": {
            "0": first,
            "1": {"uid": 1, "key": ["sun"], "content": "Dry.", "position": 4, "depth": 2}
        }})
    }

    /// A value for every field that differs from the fixture's.
    fn edits() -> Vec<(StField, Value)> {
        use StField::*;
        vec![
            (Position, json!(4)),
            (Depth, json!(2)),
            (Role, json!(1)),
            (OutletName, json!("map")),
            (Order, json!(250)),
            (Probability, json!(40)),
            (UseProbability, json!(false)),
            (ScanDepth, json!(6)),
            (CaseSensitive, json!(true)),
            (MatchWholeWords, json!(false)),
            (Group, json!("weather")),
            (GroupOverride, json!(true)),
            (GroupWeight, json!(30)),
            (UseGroupScoring, json!(true)),
            (ExcludeRecursion, json!(true)),
            (PreventRecursion, json!(true)),
            (DelayUntilRecursion, json!(2)),
            (Sticky, json!(3)),
            (Cooldown, json!(2)),
            (Delay, json!(5)),
            (IgnoreBudget, json!(true)),
            (MatchPersonaDescription, json!(true)),
            (MatchCharacterDescription, json!(true)),
            (MatchCharacterPersonality, json!(true)),
            (MatchCharacterDepthPrompt, json!(true)),
            (MatchScenario, json!(true)),
            (MatchCreatorNotes, json!(true)),
            (SelectiveLogic, json!(3)),
        ]
    }

    fn st_entry(v: &Value, uid: &str) -> Object {
        v["entries"][uid].as_object().unwrap().clone()
    }

    #[test]
    fn every_field_round_trips_alone_and_leaves_the_rest_byte_identical() {
        assert_eq!(edits().len(), ALL.len());
        let original = source();
        for (field, value) in edits() {
            let mut book = formats::import_value(original.clone()).unwrap().book;
            assert!(
                set(&mut book.entries[0], field, &value).unwrap(),
                "{field:?}"
            );
            let (bytes, _) = formats::export(&book, ExportFormat::SillyTavern).unwrap();
            let out: Value = serde_json::from_slice(&bytes).unwrap();
            let (before, after) = (st_entry(&original, "0"), st_entry(&out, "0"));
            for (k, v) in &before {
                if k != field.name() {
                    assert_eq!(after.get(k), Some(v), "{field:?} changed {k}");
                }
            }
            assert_eq!(after[field.name()], value, "{field:?}");
            assert_eq!(st_entry(&out, "1"), st_entry(&original, "1"));
            // Re-imported, the edit is still there.
            let again = formats::import(&bytes).unwrap().book;
            assert_eq!(read(&again.entries[0])[field.name()], value, "{field:?}");
        }
    }

    #[test]
    fn all_edits_survive_card_v2_and_v3_exports() {
        for to in [ExportFormat::CardV2, ExportFormat::CardV3] {
            let mut book = formats::import_value(source()).unwrap().book;
            for (field, value) in edits() {
                set(&mut book.entries[0], field, &value).unwrap();
            }
            let (bytes, _) = formats::export(&book, to).unwrap();
            let again = formats::import(&bytes).unwrap().book;
            let got = read(&again.entries[0]);
            for (field, value) in edits() {
                // A card has no `useProbability: false` (SillyTavern reads
                // the card entry as always rolling, the same thing); see the
                // module doc.
                if matches!(field, StField::UseProbability | StField::Probability) {
                    continue;
                }
                assert_eq!(got[field.name()], value, "{to:?} {field:?}");
            }
        }
    }

    #[test]
    fn unchanged_value_is_no_edit_and_bad_values_change_nothing() {
        let mut book = formats::import_value(source()).unwrap().book;
        let e = &mut book.entries[0];
        let before = e.clone();
        assert!(!set(e, StField::Position, &json!(0)).unwrap());
        assert!(!set(e, StField::CaseSensitive, &Value::Null).unwrap());
        assert_eq!(*e, before);
        for (field, bad) in [
            (StField::Position, json!(8)),
            (StField::Depth, json!(-1)),
            (StField::Group, json!(3)),
            (StField::Sticky, json!("x")),
            (StField::SelectiveLogic, json!(4)),
            (StField::IgnoreBudget, Value::Null),
        ] {
            let err = set(e, field, &bad).unwrap_err();
            assert!(err.starts_with(field.name()), "{err}");
        }
        assert_eq!(*e, before);
    }

    #[test]
    fn back_to_the_source_value_gives_the_source_back() {
        let original = source();
        let mut book = formats::import_value(original.clone()).unwrap().book;
        let e = &mut book.entries[0];
        set(e, StField::CaseSensitive, &json!(true)).unwrap();
        set(e, StField::CaseSensitive, &Value::Null).unwrap();
        set(e, StField::Sticky, &json!(4)).unwrap();
        set(e, StField::Sticky, &json!(0)).unwrap();
        let (bytes, _) = formats::export(&book, ExportFormat::SillyTavern).unwrap();
        let out: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(st_entry(&out, "0"), st_entry(&original, "0"));
    }

    /// A card whose entry left whole words to SillyTavern's global setting
    /// shows it unset; setting it to true is the author's choice, which
    /// the RisuAI export then writes as `@@match_full_word`.
    #[test]
    fn a_cards_unset_whole_words_shows_unset_until_chosen() {
        let mut e = crate::model::Entry {
            content: "Body".into(),
            ..Default::default()
        };
        let record = json!({"card": {CARD_WHOLE: {"was": null, "as": true}}});
        e.extensions.insert(shadow::KEY.into(), record);
        assert_eq!(read(&e)["matchWholeWords"], Value::Null);
        assert!(!crate::risu::Lore::of(&e)
            .0
            .content
            .contains("@@match_full_word"));
        assert!(set(&mut e, StField::MatchWholeWords, &json!(true)).unwrap());
        assert_eq!(read(&e)["matchWholeWords"], json!(true));
        assert!(crate::risu::Lore::of(&e)
            .0
            .content
            .contains("@@match_full_word"));
    }
}
