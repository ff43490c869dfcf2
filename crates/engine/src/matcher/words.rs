//! Word edges and case folding for plain keys (SPEC §5): where a whole-word
//! key may start and end, the scripts written without spaces, and the
//! folded text the case-insensitive automaton searches.

/// Whether the match `start..end` of `text` has a word boundary on each edge
/// that needs one.
pub(super) fn edges_hold(text: &str, start: usize, end: usize, left: bool, right: bool) -> bool {
    let broken_left = left
        && text[..start]
            .chars()
            .next_back()
            .is_some_and(blocks_boundary);
    let broken_right = right && text[end..].chars().next().is_some_and(blocks_boundary);
    !broken_left && !broken_right
}

/// A word character: Unicode letter, mark, digit or connector (`_`).
pub fn is_word_char(c: char) -> bool {
    regex_syntax::is_word_character(c)
}

/// Scripts written without spaces between words (SPEC §5): no word
/// boundary is required next to their characters.
pub fn is_spaceless_script(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF            // Thai, Lao
        | 0x1000..=0x109F          // Myanmar
        | 0x1100..=0x11FF          // Hangul Jamo
        | 0x1780..=0x17FF          // Khmer
        | 0x19E0..=0x19FF          // Khmer symbols
        | 0x2E80..=0x2FDF          // CJK radicals, Kangxi
        | 0x3005..=0x3007          // 々 〆 〇
        | 0x3021..=0x3029          // Hangzhou numerals
        | 0x3040..=0x30FF          // Hiragana, Katakana
        | 0x3130..=0x318F          // Hangul compatibility Jamo
        | 0x31F0..=0x31FF          // Katakana phonetic extensions
        | 0x3400..=0x4DBF          // CJK extension A
        | 0x4E00..=0x9FFF          // CJK unified ideographs
        | 0xA960..=0xA97F          // Hangul Jamo extended A
        | 0xA9E0..=0xA9FF          // Myanmar extended B
        | 0xAA60..=0xAA7F          // Myanmar extended A
        | 0xAC00..=0xD7FF          // Hangul syllables, Jamo extended B
        | 0xF900..=0xFAFF          // CJK compatibility ideographs
        | 0xFF66..=0xFF9F          // halfwidth Katakana
        | 0xFFA0..=0xFFDC          // halfwidth Hangul
        | 0x20000..=0x3134F        // CJK extensions B–H
    )
}

/// Whether a key edge made of `c` needs a word boundary beside it.
pub(crate) fn needs_boundary(c: char) -> bool {
    is_word_char(c) && !is_spaceless_script(c)
}

/// Whether a text character next to a whole-word match breaks it.
fn blocks_boundary(c: char) -> bool {
    is_word_char(c) && !is_spaceless_script(c)
}

/// Unicode full case folding.
pub fn fold(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    caseless::default_case_fold_str(s)
}

/// A case-folded text with a map back to the original byte offsets.
pub(super) struct Folded<'a> {
    pub(super) text: std::borrow::Cow<'a, str>,
    /// For each folded byte offset (and one past the end): the original
    /// offset, or `u32::MAX` inside the folding of one character. Empty when
    /// offsets are identical.
    map: Vec<u32>,
}

impl<'a> Folded<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        if text.is_ascii() {
            if !text.bytes().any(|b| b.is_ascii_uppercase()) {
                return Folded {
                    text: std::borrow::Cow::Borrowed(text),
                    map: Vec::new(),
                };
            }
            return Folded {
                text: std::borrow::Cow::Owned(text.to_ascii_lowercase()),
                map: Vec::new(),
            };
        }
        use caseless::Caseless;
        let mut out = String::with_capacity(text.len() + 8);
        let mut map = Vec::with_capacity(text.len() + 9);
        for (i, c) in text.char_indices() {
            let before = out.len();
            if c.is_ascii() {
                out.push(c.to_ascii_lowercase());
            } else {
                out.extend(std::iter::once(c).default_case_fold());
            }
            map.push(i as u32);
            map.extend(std::iter::repeat_n(u32::MAX, out.len() - before - 1));
        }
        map.push(text.len() as u32);
        Folded {
            text: std::borrow::Cow::Owned(out),
            map,
        }
    }

    pub(super) fn original(&self, folded: usize) -> Option<usize> {
        if self.map.is_empty() {
            return Some(folded);
        }
        match self.map.get(folded) {
            Some(&o) if o != u32::MAX => Some(o as usize),
            _ => None,
        }
    }
}
