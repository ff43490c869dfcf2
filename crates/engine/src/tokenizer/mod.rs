//! Token counting with the selected model's real tokenizer.
//!
//! The OpenAI encodings ship inside the binary (`tiktoken-rs` embeds them);
//! each loads on first use. The other families read their installed files
//! ([`resources`], in the folders the program hands it), each loaded once
//! per process. [`registry`] lists every
//! tokenizer family and resolves model names; [`file`] reads a tokenizer
//! file (an installed one or one a user brings; [`spm`] counts
//! SentencePiece models).
//! [`TokenCounter`] caches counts by content hash, so an unchanged body is
//! never counted twice. Every count is bounded in time for any input (see
//! [`pretokenizer`]).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

pub mod file;
pub mod hf_fast;
pub mod pretokenizer;
pub mod registry;
pub mod resources;
pub mod spm;

pub use file::FileTokenizer;
use pretokenizer::{bounded_count, PreTokenizer};
pub use pretokenizer::{CHUNK_BYTES, MAX_PIECE_BYTES};
pub use registry::tokenizer_for_model;

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

    /// The pre-tokenizer pattern the library compiles for this encoding.
    fn pattern(self) -> &'static str {
        match self {
            Encoding::O200kBase => pretokenizer::O200K_PATTERN,
            Encoding::Cl100kBase => pretokenizer::CL100K_PATTERN,
            Encoding::P50kBase | Encoding::R50kBase => pretokenizer::R50K_PATTERN,
        }
    }

    /// Counts tokens without a cache. Special-token text is counted as
    /// ordinary text, as it is in a chat message's content. Exact for every
    /// text whose pieces are at most [`MAX_PIECE_BYTES`] long; a longer piece
    /// counts as the sum of its chunks of [`CHUNK_BYTES`], in time linear in
    /// its length.
    pub fn count(self, text: &str) -> u32 {
        let bpe = self.bpe();
        bounded_count(self.pre_tokenizer(), text, |span| {
            bpe.encode_ordinary(span).len()
        })
    }

    fn pre_tokenizer(self) -> &'static PreTokenizer {
        static CELLS: [OnceLock<PreTokenizer>; 4] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        let index = Encoding::ALL.iter().position(|e| *e == self).unwrap_or(0);
        CELLS[index].get_or_init(|| {
            PreTokenizer::new(self.pattern()).expect("the bundled patterns are linear-time")
        })
    }
}

/// A tokenizer that counts: a bundled encoding or a user's file.
#[derive(Debug, Clone)]
pub enum Tokenizer {
    Bundled(Encoding),
    File(Arc<FileTokenizer>),
}

impl Tokenizer {
    /// Counts tokens of plain text without a cache.
    pub fn count(&self, text: &str) -> u32 {
        match self {
            Tokenizer::Bundled(e) => e.count(text),
            Tokenizer::File(f) => f.count(text),
        }
    }

    /// Loads the tables now: a bundled encoding's load on its first count
    /// otherwise (about a tenth of a second for `o200k_base`), which a
    /// program can so move to another thread while it reads the books.
    pub fn load(&self) {
        if let Tokenizer::Bundled(e) = self {
            e.bpe();
            e.pre_tokenizer();
        }
    }

    /// The encoding's name or the file's path.
    pub fn name(&self) -> &str {
        match self {
            Tokenizer::Bundled(e) => e.name(),
            Tokenizer::File(f) => f.label(),
        }
    }
}

/// The model the preview uses unless told otherwise.
pub const DEFAULT_MODEL: &str = "gpt-4o";

/// Model names offered in pickers, at least one per family, grouped by
/// vendor.
pub const SUGGESTED_MODELS: &[&str] = &[
    "gpt-4o",
    "gpt-4.1",
    "o3",
    "gpt-4",
    "gpt-3.5-turbo",
    "text-davinci-003",
    "davinci",
    "llama-3.1-8b",
    "mistral-7b",
    "mixtral-8x22b",
    "mistral-large",
    "mistral-nemo",
    "qwen3",
    "deepseek-v3",
    "gemma-2",
    "gemma-3",
    "gemini",
    "claude",
    "kayra",
    "clio",
];

/// The model names a picker offers for `family`: the suggested names that
/// select it, or the family's own id when none does.
pub fn suggested_for(family: &registry::Family) -> Vec<&'static str> {
    let names: Vec<&'static str> = SUGGESTED_MODELS
        .iter()
        .copied()
        .filter(|m| registry::family_of(m).is_ok_and(|f| f.id == family.id))
        .collect();
    if names.is_empty() {
        vec![family.id]
    } else {
        names
    }
}

/// The fewest uncounted texts per core worth a thread of their own in
/// [`TokenCounter::prime`].
pub const PARALLEL_MIN: usize = 256;

/// Counts tokens with one tokenizer, caching by content hash.
#[derive(Debug)]
pub struct TokenCounter {
    tokenizer: Tokenizer,
    cache: HashMap<u64, u32>,
}

impl TokenCounter {
    pub fn new(encoding: Encoding) -> Self {
        TokenCounter::with_tokenizer(Tokenizer::Bundled(encoding))
    }

    pub fn with_tokenizer(tokenizer: Tokenizer) -> Self {
        TokenCounter {
            tokenizer,
            cache: HashMap::new(),
        }
    }

    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Token count of `text`; counted once per distinct text.
    pub fn count(&mut self, text: &str) -> u32 {
        if text.is_empty() {
            return 0;
        }
        let h = content_hash(text);
        let tokenizer = &self.tokenizer;
        *self.cache.entry(h).or_insert_with(|| tokenizer.count(text))
    }

    /// Counts every text not counted yet, spread over the machine's cores
    /// when there are at least [`PARALLEL_MIN`] of them (a book's bodies on
    /// first sight, or after another tokenizer is picked); [`Self::count`]
    /// then finds them cached. The counts are the same as one at a time.
    pub fn prime<'t>(&mut self, texts: impl IntoIterator<Item = &'t str>) {
        let mut todo: Vec<(u64, &str)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for text in texts {
            let h = content_hash(text);
            if !text.is_empty() && !self.cache.contains_key(&h) && seen.insert(h) {
                todo.push((h, text));
            }
        }
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let threads = cores.min(todo.len() / PARALLEL_MIN).max(1);
        let tokenizer = &self.tokenizer;
        if threads == 1 {
            for (h, text) in todo {
                self.cache.insert(h, tokenizer.count(text));
            }
            return;
        }
        let part = todo.len().div_ceil(threads);
        let counted: Vec<Vec<(u64, u32)>> = std::thread::scope(|scope| {
            let workers: Vec<_> = todo
                .chunks(part)
                .map(|texts| {
                    scope.spawn(move || {
                        texts
                            .iter()
                            .map(|(h, text)| (*h, tokenizer.count(text)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        self.cache.extend(counted.into_iter().flatten());
    }

    /// Token count of `text` if it was counted before; never counts.
    pub fn lookup(&self, text: &str) -> Option<u32> {
        if text.is_empty() {
            return Some(0);
        }
        self.cache.get(&content_hash(text)).copied()
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
    use super::pretokenizer::chunks;
    use super::*;

    #[test]
    fn model_table() {
        let encoding = |model: &str| registry::family_of(model).map(|f| f.encoding);
        let check = |model: &str, expected: Encoding| {
            assert_eq!(encoding(model), Ok(Some(expected)), "{model}");
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
        assert!(encoding("claudia-3").unwrap_err().contains("unknown model"));
        assert_eq!(encoding("claude-3"), Ok(None), "read from its file");
        assert!(encoding("o1x").is_err());
    }

    #[test]
    fn every_family_has_a_name_in_the_picker() {
        for family in registry::FAMILIES {
            let names = suggested_for(family);
            assert!(!names.is_empty(), "{}", family.id);
            for name in names {
                assert_eq!(registry::family_of(name).unwrap().id, family.id, "{name}");
            }
        }
        assert_eq!(suggested_for(&registry::FAMILIES[0])[0], "gpt-4o");
        let v3 = registry::family_of("mistral-v3").unwrap();
        assert_eq!(suggested_for(v3), ["mixtral-8x22b"]);
    }

    #[test]
    fn priming_counts_as_one_at_a_time_does() {
        let texts: Vec<String> = (0..3 * PARALLEL_MIN)
            .map(|i| {
                format!(
                    "Entry {i}: the keeper of Saltmere {} ação 灯塔",
                    "x".repeat(i % 40)
                )
            })
            .collect();
        let mut one = TokenCounter::new(Encoding::Cl100kBase);
        let expected: Vec<u32> = texts.iter().map(|t| one.count(t)).collect();
        let mut primed = TokenCounter::new(Encoding::Cl100kBase);
        primed.prime(texts.iter().map(String::as_str).chain(["", "Entry 0"]));
        assert_eq!(
            primed.cached(),
            texts.len() + 1,
            "every distinct, non-empty text"
        );
        // Counted already: the cache answers without the tokenizer.
        let got: Vec<u32> = texts.iter().map(|t| primed.count(t)).collect();
        assert_eq!(got, expected);
        assert_eq!(primed.cached(), texts.len() + 1);
        // Priming again counts nothing new.
        primed.prime(texts.iter().map(String::as_str));
        assert_eq!(primed.cached(), texts.len() + 1);
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

    /// The library's own count of the text as one call, for comparison.
    fn unsplit(e: Encoding, text: &str) -> usize {
        e.bpe().encode_ordinary(text).len()
    }

    fn check_exact(text: &str) {
        for e in Encoding::ALL {
            assert_eq!(
                e.count(text) as usize,
                unsplit(e, text),
                "{} on {:?}",
                e.name(),
                text.chars().take(80).collect::<String>()
            );
        }
    }

    #[test]
    fn ordinary_text_counts_exactly_as_the_library_does() {
        check_exact(include_str!("../../../../samples/saltmere.json"));
        check_exact(include_str!("../../../../samples/saltmere-chat.txt"));
        let mixed = "He said: \"I'll go\" — they'd THINK so.\r\n\r\n    indented  code\tx\n\
                     日本語のテキスト、Tokyoに行く。 Ünïcödé café naïve 😀😀 👩‍👩‍👧 \u{a0}nbsp\n\
                     1234567 3.14159 https://example.com/a/b?c=d&e=f ----- ===== \n\n\n   \n";
        check_exact(&mixed.repeat(20));
        // Long-ish words, up to the longest piece counted whole (a leading
        // space belongs to the piece).
        for len in [30, 100, MAX_PIECE_BYTES - 1] {
            let word = "ab".repeat(len).chars().take(len).collect::<String>();
            check_exact(&format!("{word} {} {word}. ", "x".repeat(200)));
            check_exact(&format!(
                "{}\n{}\n",
                "-".repeat(len + 1),
                "9".repeat(len + 1)
            ));
        }
        // Whitespace runs before words, line breaks and the end of text.
        check_exact(&format!(
            "{}word{}\n  \n\t\tnext   ",
            " ".repeat(200),
            " ".repeat(100)
        ));
    }

    proptest::proptest! {
        #[test]
        fn random_ordinary_texts_count_exactly(parts in proptest::collection::vec(
            proptest::sample::select(vec![
                "a", "Bc", "DEF", "é", "日本", "7", "42", "1234", " ", "  ", "\n", "\r\n", "\t",
                "'s", "'LL", ".", "!?", "😀", "/", "-", "\u{a0}", "\u{301}", "x\n", " \n ",
            ]),
            0..400,
        )) {
            check_exact(&parts.concat());
        }
    }

    #[test]
    fn unbroken_runs_count_without_panicking() {
        for run in ["A", "😀", "7", " ", "\n", "-", "aB"] {
            let text = run.repeat(1024 * 1024 / run.len());
            for e in Encoding::ALL {
                let n = e.count(&text) as usize;
                assert!(n > 0 && n <= text.len(), "{} on {run:?}: {n}", e.name());
            }
        }
        // Chunks never split a character, whatever its width.
        let emoji = "😀".repeat(100);
        assert!(chunks(&emoji, 7).all(|c| c == "😀"));
        assert_eq!(
            chunks(&emoji, CHUNK_BYTES).map(str::len).sum::<usize>(),
            emoji.len()
        );
    }

    #[test]
    fn a_long_piece_counts_as_the_sum_of_its_chunks() {
        let text = "A".repeat(5 * CHUNK_BYTES);
        assert!(text.len() > MAX_PIECE_BYTES);
        let chunk = unsplit(Encoding::O200kBase, &text[..CHUNK_BYTES]);
        assert_eq!(Encoding::O200kBase.count(&text) as usize, 5 * chunk);
        // The ordinary pieces around it still count exactly.
        let e = Encoding::O200kBase;
        let around = format!("The {text} end");
        assert_eq!(
            e.count(&around) as usize,
            unsplit(e, "The") + e.count(&format!(" {text}")) as usize + unsplit(e, " end")
        );
    }
}
