//! The most common words of the languages the checks know (English and
//! Portuguese), and a guess at a book's language from its bodies.

use serde::{Deserialize, Serialize};

use crate::model::Book;

/// A language with a stop-word list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Language {
    English,
    Portuguese,
}

impl Language {
    /// `en` or `pt`.
    pub fn code(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::Portuguese => "pt",
        }
    }
}

const ENGLISH: &[&str] = &[
    "a", "about", "after", "all", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by",
    "can", "could", "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "him",
    "his", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "no", "not", "of", "on",
    "one", "or", "our", "she", "so", "that", "the", "their", "them", "then", "there", "they",
    "this", "to", "up", "us", "was", "we", "were", "what", "when", "which", "who", "will", "with",
    "would", "you", "your",
];

const PORTUGUESE: &[&str] = &[
    "a", "ao", "aos", "as", "até", "com", "como", "da", "das", "de", "dela", "dele", "do", "dos",
    "e", "ela", "elas", "ele", "eles", "em", "entre", "era", "essa", "esse", "esta", "está",
    "este", "eu", "foi", "há", "isso", "isto", "já", "lhe", "mais", "mas", "me", "meu", "minha",
    "na", "nas", "não", "no", "nos", "nós", "o", "os", "ou", "para", "pela", "pelo", "por", "que",
    "se", "sem", "ser", "seu", "sua", "são", "também", "te", "tem", "um", "uma", "você",
];

/// The stop words of `language`, lower-case.
pub fn stop_words(language: Language) -> &'static [&'static str] {
    match language {
        Language::English => ENGLISH,
        Language::Portuguese => PORTUGUESE,
    }
}

/// Words that are common in one language and not in the other, counted
/// over the first bodies of the book: the language with more wins, English
/// on a tie.
pub fn detect(book: &Book) -> Language {
    const EN: &[&str] = &["the", "and", "of", "is", "with", "he", "she", "they", "was"];
    const PT: &[&str] = &["o", "os", "e", "é", "do", "da", "não", "com", "uma", "que"];
    let (mut en, mut pt) = (0usize, 0usize);
    let mut seen = 0usize;
    for e in &book.entries {
        for w in e.content.split(|c: char| !c.is_alphanumeric()) {
            if w.is_empty() {
                continue;
            }
            let w = w.to_lowercase();
            en += EN.contains(&w.as_str()) as usize;
            pt += PT.contains(&w.as_str()) as usize;
            seen += 1;
        }
        if seen > 20_000 {
            break;
        }
    }
    if pt > en {
        Language::Portuguese
    } else {
        Language::English
    }
}
