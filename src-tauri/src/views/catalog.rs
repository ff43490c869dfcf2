//! What the engine offers the UI: decorators, tokenizer families,
//! formats and limits.

use super::*;

/// A decorator for the editor's completion and structured panel.
#[derive(Debug, Clone, Serialize, TS)]
pub struct DecoratorInfo {
    pub name: String,
    pub aliases: Vec<String>,
    /// `none`, `int` or `role`.
    pub arg: String,
    pub min: Option<i64>,
    pub max: Option<i64>,
    pub summary: String,
}

/// A decorator RisuAI's lorebook code reads, for the decorator panel under
/// RisuAI's rules (its meaning is worded by the UI: `risuDec.<name>`).
#[derive(Debug, Clone, Serialize, TS)]
pub struct RisuDecoratorInfo {
    pub name: String,
    /// `none`, `int`, `keys`, `role`, `position` or `text`.
    pub arg: String,
    /// Whether it changes anything in RisuAI 460ecae.
    pub effect: bool,
}

/// Static facts the UI needs once.
#[derive(Debug, Clone, Serialize, TS)]
pub struct Catalog {
    pub decorators: Vec<DecoratorInfo>,
    /// RisuAI's decorators, in the panel's order.
    pub risu_decorators: Vec<RisuDecoratorInfo>,
    pub models: Vec<String>,
    pub scan_depth: [u32; 2],
    pub token_budget: [u32; 2],
    pub export_formats: Vec<ExportChoice>,
    /// The model names whose counts are approximate, shown with "≈".
    pub approximate_models: Vec<String>,
    /// The tokenizer families, OpenAI's first, for the model picker.
    pub families: Vec<FamilyView>,
    /// The rule profiles, in the order the rules picker offers them
    /// (worded by the UI: `rules.<id>`).
    pub profiles: Vec<Rules>,
}

/// A tokenizer family as the model picker shows it.
#[derive(Debug, Clone, Serialize, TS)]
pub struct FamilyView {
    /// The family's id (`llama-3`, `claude`).
    pub id: String,
    /// The vendor or model line it is grouped under (`Llama 3.x`).
    pub group: String,
    /// Whether its counts equal the models' own tokenizer.
    pub exact: bool,
    /// The model names the picker offers for it.
    pub models: Vec<String>,
}

#[cfg(test)]
mod tests {
    /// A row of the engine's profile table is offered by the rules picker
    /// (the catalog lists every row) and worded in every language: a new
    /// profile's catalog words are `rules.<id>`.
    #[test]
    fn every_rule_profile_has_its_words_in_every_language() {
        for locale in ["en", "pt-BR"] {
            let words = crate::dialogs::catalog(locale);
            for p in lorebook_engine::profile::PROFILES {
                let key = format!("rules.{}", p.id);
                assert!(
                    words.get(&key).is_some_and(|w| !w.is_empty()),
                    "{key} missing in {locale}"
                );
            }
        }
    }
}

/// What the About dialog shows: the version (the workspace's, as the CLI
/// and the package carry it), the licences and where things are kept.
#[derive(Debug, Clone, Serialize, TS)]
pub struct About {
    pub version: String,
    /// The program's licence (SPDX).
    pub license: String,
    /// Where preferences, recovery copies and the model choice are kept.
    pub data_dir: String,
    /// The folder the tokenizer files were found in, if any family is
    /// installed.
    pub tokenizers_dir: Option<String>,
    /// Every tokenizer family: its source with its data's licence.
    pub tokenizers: Vec<AboutTokenizer>,
}

/// One tokenizer family in the About dialog.
#[derive(Debug, Clone, Serialize, TS)]
pub struct AboutTokenizer {
    pub id: String,
    /// The package it comes from and its data's licence.
    pub source: String,
    /// Built in, or its file was found (else it is not installed).
    pub available: bool,
}
