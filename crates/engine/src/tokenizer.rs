//! Token counting with the selected model's real tokenizer.
//!
//! The OpenAI encodings ship inside the binary (`tiktoken-rs` embeds them);
//! each loads on first use. [`TokenCounter`] caches counts by content hash,
//! so an unchanged body is never counted twice.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

/// A byte-pair encoding shipped with the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    O200kBase,
    Cl100kBase,
    P50kBase,
    R50kBase,
}

impl Encoding {
    pub const ALL: [Encoding; 4] = [
        Encoding::O200kBase,
        Encoding::Cl100kBase,
        Encoding::P50kBase,
        Encoding::R50kBase,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
            Encoding::P50kBase => "p50k_base",
            Encoding::R50kBase => "r50k_base",
        }
    }

    fn bpe(self) -> &'static tiktoken_rs::CoreBPE {
        match self {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            Encoding::P50kBase => tiktoken_rs::p50k_base_singleton(),
            Encoding::R50kBase => tiktoken_rs::r50k_base_singleton(),
        }
    }

    /// Counts tokens without a cache. Special-token text is counted as
    /// ordinary text, as it is in a chat message's content.
    pub fn count(self, text: &str) -> u32 {
        self.bpe().encode_ordinary(text).len() as u32
    }
}

/// Model-name prefixes and their encodings; the longest prefix wins.
pub const MODEL_TABLE: &[(&str, Encoding)] = &[
    ("gpt-4o", Encoding::O200kBase),
    ("chatgpt-4o", Encoding::O200kBase),
    ("gpt-4.1", Encoding::O200kBase),
    ("gpt-4.5", Encoding::O200kBase),
    ("gpt-5", Encoding::O200kBase),
    ("gpt-oss", Encoding::O200kBase),
    ("o1", Encoding::O200kBase),
    ("o3", Encoding::O200kBase),
    ("o4", Encoding::O200kBase),
    ("gpt-4", Encoding::Cl100kBase),
    ("gpt-3.5-turbo", Encoding::Cl100kBase),
    ("gpt-35-turbo", Encoding::Cl100kBase),
    ("text-embedding-ada-002", Encoding::Cl100kBase),
    ("text-embedding-3", Encoding::Cl100kBase),
    ("text-davinci-002", Encoding::P50kBase),
    ("text-davinci-003", Encoding::P50kBase),
    ("code-davinci", Encoding::P50kBase),
    ("code-cushman", Encoding::P50kBase),
    ("davinci", Encoding::R50kBase),
    ("curie", Encoding::R50kBase),
    ("babbage", Encoding::R50kBase),
    ("ada", Encoding::R50kBase),
    ("text-davinci-001", Encoding::R50kBase),
    ("gpt-3", Encoding::R50kBase),
];

/// The model the preview uses unless told otherwise.
pub const DEFAULT_MODEL: &str = "gpt-4o";

/// Model names offered in pickers, one per family.
pub const SUGGESTED_MODELS: &[&str] = &[
    "gpt-4o",
    "gpt-4.1",
    "o3",
    "gpt-4",
    "gpt-3.5-turbo",
    "text-davinci-003",
    "davinci",
];

/// Finds the encoding of a model name (or of an encoding's own name).
pub fn encoding_for_model(model: &str) -> Result<Encoding, String> {
    let m = model.trim().to_ascii_lowercase();
    if let Some(e) = Encoding::ALL.iter().find(|e| e.name() == m) {
        return Ok(*e);
    }
    MODEL_TABLE
        .iter()
        .filter(|(prefix, _)| {
            m == *prefix
                || (m.starts_with(prefix) && !m[prefix.len()..].starts_with(char::is_alphanumeric))
        })
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, e)| *e)
        .ok_or_else(|| {
            format!(
                "unknown model \"{model}\": use an OpenAI model name ({}) or an encoding ({})",
                SUGGESTED_MODELS.join(", "),
                Encoding::ALL.map(Encoding::name).join(", ")
            )
        })
}

/// Counts tokens with one encoding, caching by content hash.
#[derive(Debug)]
pub struct TokenCounter {
    encoding: Encoding,
    cache: HashMap<u64, u32>,
}

impl TokenCounter {
    pub fn new(encoding: Encoding) -> Self {
        TokenCounter {
            encoding,
            cache: HashMap::new(),
        }
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Token count of `text`; counted once per distinct text.
    pub fn count(&mut self, text: &str) -> u32 {
        if text.is_empty() {
            return 0;
        }
        let h = content_hash(text);
        let encoding = self.encoding;
        *self.cache.entry(h).or_insert_with(|| encoding.count(text))
    }

    /// Number of distinct texts counted so far.
    pub fn cached(&self) -> usize {
        self.cache.len()
    }
}

/// A stable 64-bit hash of a text, for caches.
pub fn content_hash(text: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_table() {
        let check = |model: &str, expected: Encoding| {
            assert_eq!(encoding_for_model(model), Ok(expected), "{model}");
        };
        check("gpt-4o", Encoding::O200kBase);
        check("gpt-4o-mini", Encoding::O200kBase);
        check("GPT-4.1-nano", Encoding::O200kBase);
        check("o3-mini", Encoding::O200kBase);
        check("gpt-4", Encoding::Cl100kBase);
        check("gpt-4-turbo", Encoding::Cl100kBase);
        check("gpt-3.5-turbo-16k", Encoding::Cl100kBase);
        check("text-davinci-003", Encoding::P50kBase);
        check("davinci", Encoding::R50kBase);
        check("cl100k_base", Encoding::Cl100kBase);
        assert!(encoding_for_model("claude-3")
            .unwrap_err()
            .contains("unknown model"));
        assert!(encoding_for_model("o1x").is_err());
    }

    #[test]
    fn counts_are_the_real_encodings() {
        // Reference counts from OpenAI's tiktoken.
        assert_eq!(Encoding::Cl100kBase.count("hello world"), 2);
        assert_eq!(Encoding::O200kBase.count("hello world"), 2);
        assert_eq!(Encoding::R50kBase.count("hello world"), 2);
        assert_eq!(Encoding::Cl100kBase.count("<|endoftext|>"), 7);
        let mut c = TokenCounter::new(Encoding::O200kBase);
        assert_eq!(c.count(""), 0);
        let n = c.count("The old lighthouse keeper of Saltmere");
        assert!(n > 3);
        assert_eq!(c.count("The old lighthouse keeper of Saltmere"), n);
        assert_eq!(c.cached(), 1);
    }
}
