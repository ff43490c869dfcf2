//! Matching one key against the scanned text the way SillyTavern does
//! (world-info.js: `WorldInfoBuffer.matchKeys`, `parseRegexFromString`),
//! and the `{{user}}`/`{{char}}` macros applied to keys and content
//! (macros.js: `evaluateMacros`).

use std::collections::HashMap;

/// JavaScript's whitespace set (`String.prototype.trim`, `\s`), which is
/// not Rust's: U+FEFF is in it, U+0085 is not.
pub fn is_js_ws(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// JavaScript `trim`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_ws)
}

/// The names the macros expand to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    pub user: String,
    pub char: String,
}

/// Expands `{{user}}`, `{{char}}` and their legacy forms `<USER>`, `<BOT>`,
/// `<CHAR>` (names case-insensitive), plus `{{newline}}`, `{{noop}}` and
/// `{{// comments}}`. Other macros stay verbatim.
pub fn substitute(text: &str, names: &Names) -> String {
    if !text.contains("{{") && !text.contains('<') {
        return text.to_string();
    }
    let table: [(&str, &str); 7] = [
        ("{{user}}", &names.user),
        ("{{char}}", &names.char),
        ("<user>", &names.user),
        ("<bot>", &names.char),
        ("<char>", &names.char),
        ("{{newline}}", "\n"),
        ("{{noop}}", ""),
    ];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'outer: while !rest.is_empty() {
        // `{{// comment}}` is removed.
        if rest.starts_with("{{//") {
            if let Some(end) = rest.find("}}") {
                rest = &rest[end + 2..];
                continue;
            }
        }
        if rest.starts_with('{') || rest.starts_with('<') {
            for (pattern, value) in &table {
                if rest.len() >= pattern.len()
                    && rest.is_char_boundary(pattern.len())
                    && rest[..pattern.len()].eq_ignore_ascii_case(pattern)
                {
                    out.push_str(value);
                    rest = &rest[pattern.len()..];
                    continue 'outer;
                }
            }
        }
        let c = rest.chars().next().unwrap_or_default();
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// A `/pattern/flags` key split into its parts, or `None` when the key is
/// plain text (world-info.js: `parseRegexFromString`).
pub fn split_regex(key: &str) -> Option<(&str, &str)> {
    let inner = key.strip_prefix('/')?;
    // The shortest closing slash after which only flag letters follow.
    let close = inner
        .char_indices()
        .filter(|(_, c)| *c == '/')
        .map(|(i, _)| i)
        .find(|&i| inner[i + 1..].chars().all(|c| "gimsuy".contains(c)))?;
    let (pattern, flags) = (&inner[..close], &inner[close + 1..]);
    if pattern.is_empty() {
        return None;
    }
    // An unescaped slash inside the pattern makes it plain text.
    let bytes = pattern.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'/' && (i == 0 || bytes[i - 1] != b'\\') {
            return None;
        }
    }
    let mut seen = String::new();
    for f in flags.chars() {
        if seen.contains(f) {
            return None;
        }
        seen.push(f);
    }
    Some((pattern, flags))
}

/// A compiled regex key: the ECMAScript regex and whether it is sticky
/// (`y`, anchored at the start of the text).
pub struct RegexKey {
    regex: regress::Regex,
    sticky: bool,
    unicode: bool,
}

impl RegexKey {
    fn compile(key: &str) -> Option<RegexKey> {
        let (pattern, flags) = split_regex(key)?;
        let engine_flags: String = flags.chars().filter(|c| "imsu".contains(*c)).collect();
        let regex = regress::Regex::with_flags(pattern, engine_flags.as_str()).ok()?;
        Some(RegexKey {
            regex,
            sticky: flags.contains('y'),
            unicode: flags.contains('u'),
        })
    }

    /// JavaScript `RegExp.test` on `text`; a fresh object each time, so `g`
    /// has no effect and `y` anchors at index 0. Non-Unicode regexes see
    /// UTF-16 code units, as in JavaScript.
    pub fn test(&self, text_utf16: &[u16]) -> bool {
        let found = if self.unicode {
            self.regex.find_from_utf16(text_utf16, 0).next()
        } else {
            self.regex.find_from_ucs2(text_utf16, 0).next()
        };
        match found {
            Some(m) => !self.sticky || m.start() == 0,
            None => false,
        }
    }
}

/// Compiled regex keys, by key text; `None` marks plain-text keys.
#[derive(Default)]
pub struct RegexCache {
    keys: HashMap<String, Option<RegexKey>>,
}

impl RegexCache {
    pub fn get(&mut self, key: &str) -> Option<&RegexKey> {
        if !self.keys.contains_key(key) {
            self.keys.insert(key.to_string(), RegexKey::compile(key));
        }
        self.keys.get(key).and_then(Option::as_ref)
    }
}

/// The scanned text of one entry, in the forms matching needs.
pub struct Haystack {
    pub raw: String,
    lower: Option<String>,
    utf16: Option<Vec<u16>>,
}

impl Haystack {
    pub fn new(raw: String) -> Self {
        Haystack {
            raw,
            lower: None,
            utf16: None,
        }
    }

    pub(crate) fn lower(&mut self) -> &str {
        let raw = &self.raw;
        self.lower.get_or_insert_with(|| raw.to_lowercase())
    }

    fn utf16(&mut self) -> &[u16] {
        let raw = &self.raw;
        self.utf16
            .get_or_insert_with(|| raw.encode_utf16().collect())
    }
}

/// How plain keys compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyMode {
    pub case_sensitive: bool,
    pub whole_words: bool,
}

/// Whether `key` occurs in the text (world-info.js: `matchKeys`). The key
/// is used as given; callers apply macros and trimming first.
pub fn matches(hay: &mut Haystack, key: &str, mode: KeyMode, regexes: &mut RegexCache) -> bool {
    if let Some(r) = regexes.get(key) {
        return r.test(hay.utf16());
    }
    let folded;
    let (text, key) = if mode.case_sensitive {
        (hay.raw.as_str(), key)
    } else {
        folded = key.to_lowercase();
        (hay.lower(), folded.as_str())
    };
    if !mode.whole_words || key.split(is_js_ws).filter(|w| !w.is_empty()).count() > 1 {
        return text.contains(key);
    }
    whole_word(text, key)
}

/// A word character for SillyTavern's boundary test: JavaScript's
/// non-Unicode `\w`, so every non-ASCII character is a boundary.
pub(crate) fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Some occurrence of `key` (overlaps included) with a non-word character
/// or the text's edge on both sides.
fn whole_word(text: &str, key: &str) -> bool {
    let mut from = 0;
    while let Some(i) = text[from..].find(key) {
        let at = from + i;
        let before = text[..at].chars().next_back();
        let after = text[at + key.len()..].chars().next();
        if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
            return true;
        }
        match text[at..].chars().next() {
            Some(c) => from = at + c.len_utf8(),
            None => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, key: &str, case_sensitive: bool, whole_words: bool) -> bool {
        let mut hay = Haystack::new(text.to_string());
        let mode = KeyMode {
            case_sensitive,
            whole_words,
        };
        matches(&mut hay, key, mode, &mut RegexCache::default())
    }

    // world-info.js: WorldInfoBuffer.matchKeys (whole words with ASCII-only
    // \w: any non-ASCII character is a boundary; multi-word keys are
    // substring searches).
    #[test]
    fn whole_words_treat_non_ascii_as_boundaries() {
        let text = "\u{1}User: A fogueira aqueceu o cãozinho. Который час? Levantei a mão. Vi os dragões. 大火燃烧";
        let cases = [
            ("fogo", false),
            ("fogue", false),
            ("ozinho", true),
            ("кот", true),
            ("mão", true),
            ("dragão", false),
            ("dragõe", false),
            ("火", true),
            ("levantei a", true),
            ("user", true),
        ];
        for (key, want) in cases {
            assert_eq!(check(text, key, false, true), want, "{key}");
        }
        assert!(check(text, "fogue", false, false));
        assert!(!check("it's not to my liking", "king", false, true));
        assert!(check("long live the king", "king", false, true));
        assert!(check("aaa", "aa", false, false));
        assert!(check("x c++ y", "c++", false, true));
        assert!(!check("x c++y", "c++", false, true));
        // An empty key (a key of spaces after trimming) always matches.
        assert!(check("\u{1}abc", "", false, true));
    }

    // world-info.js: WorldInfoBuffer.#transformString (toLowerCase on both
    // sides unless case-sensitive).
    #[test]
    fn case_folding() {
        assert!(check("i love paris", "Paris", false, true));
        assert!(check("une école", "ÉCOLE", false, true));
        assert!(!check("i love paris", "Paris", true, true));
        assert!(check("A ROSE", "ROSE", true, true));
    }

    // world-info.js: parseRegexFromString and matchKeys (regex keys test the
    // raw text; invalid or odd-flag keys are plain text).
    #[test]
    fn regex_keys() {
        let text = "\u{1}User: The dragon and the Drakon flew.\n\u{1}Bot: Look up.";
        let cases = [
            ("/dra(g|k)on/", true),
            ("/DRAGON/", false),
            ("/DRAGON/i", true),
            ("/^The/", false),
            ("/flew\\./", true),
            ("/up\\.$/", true),
            ("/(?<=The )dragon/", true),
            ("/\\x01Bot:[^\\x01]*Look/", true),
            ("/\\u0001User/y", true),
            ("/User/y", false),
        ];
        for (key, want) in cases {
            assert_eq!(check(text, key, false, true), want, "{key}");
        }
        assert_eq!(split_regex("/a/i/"), None);
        assert_eq!(split_regex("/foo/d"), None);
        assert_eq!(split_regex("//"), None);
        assert_eq!(split_regex("/a/ii"), None);
        assert_eq!(split_regex("/a\\/b/g"), Some(("a\\/b", "g")));
        assert_eq!(split_regex("/a/b/"), None);
        // An invalid pattern is matched as plain text.
        assert!(check("see /(x/ here", "/(x/", false, false));
    }

    // macros.js: evaluateMacros ({{user}}/{{char}} and the legacy forms).
    #[test]
    fn macros() {
        let names = Names {
            user: "Tom".into(),
            char: "Mira".into(),
        };
        let cases = [
            ("{{char}} knows {{user}}.", "Mira knows Tom."),
            ("{{CHAR}} <USER> <bot> <Char>", "Mira Tom Mira Mira"),
            ("a{{newline}}b{{noop}}", "a\nb"),
            ("x{{// note for authors}}y", "xy"),
            ("{{random::a::b}} <i>", "{{random::a::b}} <i>"),
            ("é{{user}}", "éTom"),
        ];
        for (input, want) in cases {
            assert_eq!(substitute(input, &names), want, "{input}");
        }
    }

    #[test]
    fn javascript_trim() {
        assert_eq!(js_trim("\u{FEFF} a \u{3000}"), "a");
        assert_eq!(js_trim("\u{85}a"), "\u{85}a");
    }
}
