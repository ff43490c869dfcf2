//! The preview settings kept across runs: the model whose tokenizer
//! counts, the user's tokenizer file when one counts instead, the seed and
//! the prompt template.
//!
//! They live in `preview-settings.json` in the app's data folder, written
//! atomically after each change. On start the UI asks for them back
//! ([`restore`], run off the UI thread: a large tokenizer takes up to two
//! seconds to read). A value that no longer works — an unknown model, a
//! tokenizer file moved or broken — is dropped with a notice saying why,
//! and the rest is restored. Fields this version does not know are kept.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use lorebook_engine::preview::Settings;
use lorebook_engine::prompt::Template;
use lorebook_engine::tokenizer::{resources, tokenizer_for_model, FileTokenizer};
use serde_json::{Map, Value};

use crate::views::{Notice, SavedSetting};
use crate::workspace::Workspace;

/// The file name inside the data folder.
pub const FILE: &str = "preview-settings.json";

/// The largest file read back; anything bigger is not ours.
const MAX_BYTES: u64 = 256 * 1024;

/// What is kept of the preview settings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Saved {
    pub model: Option<String>,
    pub seed: Option<u64>,
    pub template: Option<Template>,
    pub tokenizer_file: Option<PathBuf>,
    /// Fields of a newer version, kept as they were.
    pub other: Map<String, Value>,
}

impl Saved {
    /// The workspace's current preview settings.
    pub fn of(ws: &Workspace) -> Saved {
        let s = ws.settings();
        Saved {
            model: Some(s.model.clone()),
            seed: Some(s.seed),
            template: Some(s.template.clone()),
            tokenizer_file: ws.tokenizer_file().map(Path::to_path_buf),
            other: Map::new(),
        }
    }

    /// Reads what a file holds, each field on its own: a broken template
    /// does not lose the model.
    fn from_json(mut json: Map<String, Value>) -> Saved {
        let model = json.remove("model");
        let seed = json.remove("seed");
        let template = json.remove("template");
        let file = json.remove("tokenizer_file");
        Saved {
            model: model.and_then(|v| v.as_str().map(str::to_string)),
            seed: seed.and_then(|v| v.as_u64()),
            template: template.and_then(|v| serde_json::from_value(v).ok()),
            tokenizer_file: file.and_then(|v| v.as_str().map(PathBuf::from)),
            other: json,
        }
    }

    fn to_json(&self) -> Value {
        let mut json = self.other.clone();
        let mut put = |k: &str, v: Value| {
            json.insert(k.to_string(), v);
        };
        if let Some(m) = &self.model {
            put("model", Value::from(m.as_str()));
        }
        if let Some(s) = self.seed {
            put("seed", Value::from(s));
        }
        if let Some(t) = &self.template {
            put("template", serde_json::to_value(t).unwrap_or(Value::Null));
        }
        put(
            "tokenizer_file",
            self.tokenizer_file
                .as_ref()
                .map_or(Value::Null, |p| Value::from(p.display().to_string())),
        );
        Value::Object(json)
    }
}

pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE)
}

/// Reads the saved settings (nothing when the file is missing, too big or
/// not a JSON object).
pub fn load(data_dir: &Path) -> Saved {
    lorebook_engine::io::read_capped(&path(data_dir), MAX_BYTES)
        .ok()
        .and_then(|b| serde_json::from_slice::<Map<String, Value>>(&b).ok())
        .map(Saved::from_json)
        .unwrap_or_default()
}

/// Writes the workspace's preview settings, keeping the fields of a newer
/// version already in the file.
pub fn store(data_dir: &Path, ws: &Workspace) -> Result<(), String> {
    let mut saved = Saved::of(ws);
    saved.other = load(data_dir).other;
    std::fs::create_dir_all(data_dir).map_err(|e| e.to_string())?;
    let bytes = serde_json::to_vec_pretty(&saved.to_json()).map_err(|e| e.to_string())?;
    lorebook_engine::formats::write_atomic(&path(data_dir), &bytes).map_err(|e| e.to_string())
}

/// What [`prepare`] read, ready to apply under the workspace lock.
pub struct Prepared {
    settings: Option<Settings>,
    file: Option<(PathBuf, Arc<FileTokenizer>)>,
    /// Why a saved value was dropped, for the notice panel.
    pub problems: Vec<Notice>,
}

/// Loads what the saved settings need (the model's tokenizer, the user's
/// file) without the workspace: call it before taking the lock. `current`
/// is the workspace's settings, which fill what was not saved.
pub fn prepare(saved: &Saved, current: &Settings) -> Prepared {
    let mut problems = Vec::new();
    let mut settings = current.clone();
    if let Some(model) = &saved.model {
        match tokenizer_for_model(model) {
            Ok(_) => settings.model = model.clone(),
            Err(e) => problems.push(Notice::SettingDropped {
                setting: SavedSetting::Model,
                value: model.clone(),
                detail: e,
                using: current.model.clone(),
            }),
        }
    }
    if let Some(seed) = saved.seed {
        settings.seed = seed;
    }
    if let Some(template) = &saved.template {
        settings.template = template.clone();
    }
    let file = saved.tokenizer_file.as_ref().and_then(|p| {
        resources::load_file(p)
            .map(|t| (p.clone(), t))
            .map_err(|e| {
                problems.push(Notice::SettingDropped {
                    setting: SavedSetting::TokenizerFile,
                    value: p.display().to_string(),
                    detail: e,
                    using: settings.model.clone(),
                })
            })
            .ok()
    });
    Prepared {
        settings: Some(settings),
        file,
        problems,
    }
}

/// Applies what [`prepare`] read.
pub fn apply(ws: &mut Workspace, prepared: Prepared) -> Vec<Notice> {
    let mut problems = prepared.problems;
    if let Some(settings) = prepared.settings {
        if let Err(error) = ws.set_settings(settings) {
            problems.push(Notice::Failed { error });
        }
    }
    ws.set_tokenizer_file(prepared.file);
    problems
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lbs-pset-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A Hugging Face `tokenizer.json` of whole words split at spaces.
    pub(crate) const WORD_TOKENIZER: &str = r#"{"version": "1.0", "truncation": null,
        "padding": null, "added_tokens": [], "normalizer": null,
        "pre_tokenizer": {"type": "Whitespace"}, "post_processor": null, "decoder": null,
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "ab": 1}, "unk_token": "[UNK]"}}"#;

    #[test]
    fn the_model_seed_template_and_file_come_back_in_the_next_run() {
        let dir = temp_dir("round");
        let file = dir.join("tokenizer.json");
        std::fs::write(&file, WORD_TOKENIZER).unwrap();
        let mut ws = Workspace::default();
        let mut settings = ws.settings().clone();
        settings.model = "gpt-4".into();
        settings.seed = 77;
        settings.template.blocks.reverse();
        ws.set_settings(settings.clone()).unwrap();
        ws.set_tokenizer_file(Some((file.clone(), resources::load_file(&file).unwrap())));
        store(&dir, &ws).unwrap();

        let mut next = Workspace::default();
        let saved = load(&dir);
        assert_eq!(saved.tokenizer_file.as_deref(), Some(file.as_path()));
        let prepared = prepare(&saved, next.settings());
        let problems = apply(&mut next, prepared);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(next.settings(), &settings);
        assert_eq!(next.tokenizer_file(), Some(file.as_path()));
        // The file counts: one token per word.
        assert_eq!(next.count_tokens("ab abab, cd"), 4);
        assert!(!next.state().approximate);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_value_that_no_longer_works_is_dropped_with_a_reason() {
        let dir = temp_dir("broken");
        std::fs::write(
            path(&dir),
            r#"{"model": "claudia-9", "seed": 5, "template": "garbage",
                "tokenizer_file": "/nonexistent/tok.json", "future": [1, 2]}"#,
        )
        .unwrap();
        let mut ws = Workspace::default();
        let before = ws.settings().clone();
        let saved = load(&dir);
        let prepared = prepare(&saved, ws.settings());
        let problems = apply(&mut ws, prepared);
        assert_eq!(problems.len(), 2, "{problems:?}");
        let dropped: Vec<(SavedSetting, &str, &str)> = problems
            .iter()
            .map(|n| match n {
                Notice::SettingDropped {
                    setting,
                    value,
                    using,
                    ..
                } => (*setting, value.as_str(), using.as_str()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            dropped,
            [
                (SavedSetting::Model, "claudia-9", before.model.as_str()),
                (
                    SavedSetting::TokenizerFile,
                    "/nonexistent/tok.json",
                    before.model.as_str()
                )
            ]
        );
        assert_eq!(ws.settings().model, before.model);
        assert_eq!(ws.settings().template, before.template);
        assert_eq!(ws.settings().seed, 5);
        assert_eq!(ws.tokenizer_file(), None);
        // A newer version's field survives the next write.
        store(&dir, &ws).unwrap();
        let text = std::fs::read_to_string(path(&dir)).unwrap();
        assert!(text.contains("\"future\""), "{text}");
        // A missing or broken file restores nothing and says nothing.
        std::fs::write(path(&dir), b"\x00not json").unwrap();
        assert_eq!(load(&dir), Saved::default());
        std::fs::remove_file(path(&dir)).unwrap();
        assert_eq!(load(&dir), Saved::default());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
