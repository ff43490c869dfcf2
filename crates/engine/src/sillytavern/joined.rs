//! Token counts of the budget's running text, counted part by part.
//!
//! SillyTavern counts the text of every entry activated so far, each
//! followed by a newline, once per candidate (world-info.js:
//! `checkWorldInfo`), so a naive count grows with the square of the
//! activated text. The bundled encodings split text into pieces with
//! their pre-tokenizer pattern and count each piece on its own; no piece
//! crosses a newline that follows a character other than whitespace and
//! precedes a letter or digit (the only pattern parts that hold a newline
//! are runs of whitespace and the newlines trailing punctuation, which
//! stop at a letter or digit). At such a junction the count of the whole
//! is the sum of the counts of the two sides, and each side is counted
//! (and cached) on its own. Anywhere else, and for a user's tokenizer
//! file (whose pattern is not known here), the parts are counted
//! together.

use crate::tokenizer::{TokenCounter, Tokenizer};

/// A text built by appending parts, with its exact token count.
#[derive(Debug, Default)]
pub struct JoinedCount {
    /// Tokens of the parts already closed off at a clean junction.
    settled: u32,
    /// Bytes of the settled parts.
    settled_len: usize,
    /// The parts since the last clean junction.
    open: String,
}

/// Whether no pre-tokenizer piece of a bundled encoding crosses the
/// junction of `a` and `b`.
pub fn clean_junction(a: &str, b: &str) -> bool {
    let Some(head) = a.strip_suffix('\n') else {
        return false;
    };
    let before = head.chars().next_back();
    let after = b.chars().next();
    before.is_some_and(|c| !c.is_whitespace() && !super::matching::is_js_ws(c))
        && after.is_some_and(|c| c.is_alphanumeric())
}

impl JoinedCount {
    /// Appends `part` (which ends with its newline).
    pub fn push(&mut self, counter: &mut TokenCounter, part: &str) {
        let bundled = matches!(counter.tokenizer(), Tokenizer::Bundled(_));
        if bundled && clean_junction(&self.open, part) {
            self.settled = self.settled.saturating_add(counter.count(&self.open));
            self.settled_len += self.open.len();
            self.open.clear();
        }
        self.open.push_str(part);
    }

    /// Bytes appended so far.
    pub fn len(&self) -> usize {
        self.settled_len + self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Tokens of everything appended: the same as counting the whole text.
    pub fn count(&self, counter: &mut TokenCounter) -> u32 {
        self.settled.saturating_add(counter.count(&self.open))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::Encoding;

    // The parts' sum equals the whole text's count on every bundled
    // encoding, at clean junctions and at the ones that are not.
    #[test]
    fn part_by_part_equals_the_whole() {
        let parts = [
            "Apples are red.",
            "apples/pears",
            "/slash first",
            " leading space",
            "trailing space ",
            "12345 digits",
            "'s contraction",
            "\n\nblank lines before",
            "Ünïcödé wörds 日本語",
            "🐉 dragon",
            "x",
            "",
            "tabs\t",
            "end.",
            "它是龙",
            "\u{1}marker",
        ];
        for e in Encoding::ALL {
            let mut counter = TokenCounter::new(e);
            // Every ordered pair and a long run of all parts.
            for a in parts {
                for b in parts {
                    let mut j = JoinedCount::default();
                    let mut whole = String::new();
                    for p in [a, b, a] {
                        let part = format!("{p}\n");
                        j.push(&mut counter, &part);
                        whole.push_str(&part);
                    }
                    assert_eq!(
                        j.count(&mut counter),
                        e.count(&whole),
                        "{} on {whole:?}",
                        e.name()
                    );
                    assert_eq!(j.len(), whole.len());
                }
            }
            let mut j = JoinedCount::default();
            let mut whole = String::new();
            for p in parts.iter().cycle().take(200) {
                let part = format!("{p}\n");
                j.push(&mut counter, &part);
                whole.push_str(&part);
                assert_eq!(j.count(&mut counter), e.count(&whole), "{}", e.name());
            }
        }
    }

    #[test]
    fn junctions() {
        assert!(clean_junction("a.\n", "Bee"));
        assert!(clean_junction("a\n", "9"));
        assert!(!clean_junction("a \n", "b"));
        assert!(!clean_junction("a\n", " b"));
        assert!(!clean_junction("a\n", "/b"));
        assert!(!clean_junction("a", "b"));
        assert!(!clean_junction("\n", "b"));
        assert!(!clean_junction("", "b"));
    }
}
