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

/// Static facts the UI needs once.
#[derive(Debug, Clone, Serialize, TS)]
pub struct Catalog {
    pub decorators: Vec<DecoratorInfo>,
    pub models: Vec<String>,
    pub scan_depth: [u32; 2],
    pub token_budget: [u32; 2],
    pub export_formats: Vec<ExportChoice>,
    /// The model names whose counts are approximate, shown with "≈".
    pub approximate_models: Vec<String>,
    /// The tokenizer families, OpenAI's first, for the model picker.
    pub families: Vec<FamilyView>,
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
