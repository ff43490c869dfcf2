//! Matching one key against the scanned text the way SillyTavern does
//! (world-info.js: `WorldInfoBuffer.matchKeys`, `parseRegexFromString`),
//! and the macros applied to keys and content ([`substitute`], see
//! [`super::macros`]).
//!
//! Above the usual 600 lines: SillyTavern's one-key rule, its regex parsing
//! and the regex step budget are one rule, tested together.

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

/// The names and variables the macros expand with, and which of
/// SillyTavern's macro engines expands them ([`super::macros`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    pub user: String,
    pub char: String,
    pub engine: super::macros::MacroEngine,
    pub vars: std::sync::Arc<super::macros::Variables>,
    /// The moment date and time macros show (`None`: now).
    pub clock: Option<super::macros::clock::Moment>,
}

impl Names {
    /// Expands a key or content, saying what its macros did.
    pub fn expand(&self, text: &str) -> super::macros::Expanded {
        super::macros::expand_full(
            text,
            self.engine,
            &self.user,
            &self.char,
            &self.vars,
            self.clock,
        )
    }

    /// A key as the macros make it, trimmed, when they change it.
    pub fn changed_key(&self, key: &str) -> Option<String> {
        if !key.contains("{{") && !key.contains('<') {
            return None;
        }
        let text = self.expand(key).text;
        Some(js_trim(&text).to_string()).filter(|x| x != key)
    }
}

/// Expands the macros of a key or of content as SillyTavern's
/// `substituteParams` does under the chosen engine.
pub fn substitute(text: &str, names: &Names) -> String {
    names.expand(text).text
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

/// A compiled regex key: the ECMAScript regex, whether it is sticky
/// (`y`, anchored at the start of the text), and its pattern's length in
/// UTF-16 code units (for its step budget, see [`regex_step_budget`]).
pub struct RegexKey {
    regex: regress::Regex,
    sticky: bool,
    unicode: bool,
    pattern_units: u64,
}

/// Steps any regex key may take on a text, however short.
pub const REGEX_STEPS_BASE: u64 = 1 << 22;
/// The least number of steps a regex key may take per code unit of the
/// text; a longer pattern may take [`REGEX_STEPS_PER_PATTERN_UNIT`] per
/// code unit of its pattern instead, if that is more.
pub const REGEX_STEPS_PER_UNIT: u64 = 64;
/// See [`REGEX_STEPS_PER_UNIT`].
pub const REGEX_STEPS_PER_PATTERN_UNIT: u64 = 8;
/// The most steps a regex key may take on one text.
pub const REGEX_STEPS_MAX: u64 = 1 << 27;

/// The steps a regex key whose pattern has `pattern_units` UTF-16 code
/// units may take on a text of `units` code units before it is given up
/// on: [`REGEX_STEPS_BASE`] plus, per code unit of the text, the larger of
/// [`REGEX_STEPS_PER_UNIT`] and [`REGEX_STEPS_PER_PATTERN_UNIT`] × the
/// pattern's length, at most [`REGEX_STEPS_MAX`]. A step is one
/// instruction of the backtracking matcher, run or resumed after a
/// backtrack (the vendored `regress`'s `find_from_utf16_limited`). A key
/// that does not backtrack far takes a few steps per code unit of text
/// and per alternative it tries there (docs/data-safety.md has the
/// measurements), far under this budget; a catastrophic one takes
/// exponentially many and runs out.
pub fn regex_step_budget(units: usize, pattern_units: usize) -> u64 {
    let per_unit = (pattern_units as u64)
        .saturating_mul(REGEX_STEPS_PER_PATTERN_UNIT)
        .max(REGEX_STEPS_PER_UNIT);
    (units as u64)
        .saturating_mul(per_unit)
        .saturating_add(REGEX_STEPS_BASE)
        .min(REGEX_STEPS_MAX)
}

/// The steps all the regex keys of one request may take together, on all
/// its scanned texts: past it, every regex key still to be tested is given
/// up on ([`GiveUp::RequestBudget`]). A per-key budget alone lets 2,000
/// catastrophic keys cost 2,000 times [`REGEX_STEPS_MAX`] on every request.
pub const REGEX_STEPS_PER_REQUEST: u64 = 1 << 28;

/// A regex key ran out of steps on a text: JavaScript would still be
/// backtracking (a catastrophic pattern such as `/(a+)+$/`), so the key is
/// treated as not matching and the preview says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooSlow;

/// Why a regex key was treated as not matching a text without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GiveUp {
    /// It ran out of its own step budget ([`regex_step_budget`]).
    TooSlow,
    /// The request's regex keys had used up [`REGEX_STEPS_PER_REQUEST`].
    RequestBudget,
    /// Its pattern is past the size caps ([`crate::matcher::regex_too_large`])
    /// and is never compiled.
    TooLarge,
}

/// The steps left to the regex keys of one request, shared by its
/// scanned texts.
pub type RequestSteps = std::rc::Rc<std::cell::Cell<u64>>;

/// A fresh request budget of [`REGEX_STEPS_PER_REQUEST`] steps.
pub fn request_steps() -> RequestSteps {
    std::rc::Rc::new(std::cell::Cell::new(REGEX_STEPS_PER_REQUEST))
}

impl RegexKey {
    fn compile(key: &str) -> Option<RegexKey> {
        let (pattern, flags) = split_regex(key)?;
        Self::with_flags(pattern, flags)
    }

    /// `new RegExp(pattern, flags)`: `None` where JavaScript throws (a flag
    /// other than `dgimsuvy`, a repeated flag, a pattern the engine
    /// rejects) or the pattern is past the size caps. `d` and `g` change
    /// nothing a test sees; `v` is read as `u`.
    pub fn from_js(pattern: &str, flags: &str) -> Option<RegexKey> {
        let mut seen = String::new();
        for f in flags.chars() {
            if !"dgimsuvy".contains(f) || seen.contains(f) {
                return None;
            }
            seen.push(f);
        }
        if seen.contains('u') && seen.contains('v') {
            return None;
        }
        if crate::matcher::regex_too_large(pattern).is_some() {
            return None;
        }
        let flags = flags.replace('v', "u");
        Self::with_flags(pattern, &flags)
    }

    fn with_flags(pattern: &str, flags: &str) -> Option<RegexKey> {
        let engine_flags: String = flags.chars().filter(|c| "imsu".contains(*c)).collect();
        let regex = regress::Regex::with_flags(pattern, engine_flags.as_str()).ok()?;
        Some(RegexKey {
            regex,
            sticky: flags.contains('y'),
            unicode: flags.contains('u'),
            pattern_units: pattern.encode_utf16().count() as u64,
        })
    }

    /// JavaScript `RegExp.test` on `text`; a fresh object each time, so `g`
    /// has no effect and `y` anchors at index 0. Non-Unicode regexes see
    /// UTF-16 code units, as in JavaScript. `Err` when the search used up
    /// its step budget ([`regex_step_budget`]) before deciding.
    pub fn test(&self, text_utf16: &[u16]) -> Result<bool, TooSlow> {
        self.test_within(
            text_utf16,
            regex_step_budget(text_utf16.len(), self.pattern_units as usize),
        )
    }

    /// [`RegexKey::test`] with a budget of `steps`.
    pub fn test_within(&self, text_utf16: &[u16], steps: u64) -> Result<bool, TooSlow> {
        self.test_counted(text_utf16, steps).0
    }

    /// [`RegexKey::test_within`], with the steps the search took.
    fn test_counted(&self, text_utf16: &[u16], steps: u64) -> (Result<bool, TooSlow>, u64) {
        let (found, used) = if self.unicode {
            self.regex.find_from_utf16_counted(text_utf16, 0, steps)
        } else {
            self.regex.find_from_ucs2_counted(text_utf16, 0, steps)
        };
        let answer = match found {
            Err(_) => Err(TooSlow),
            Ok(Some(m)) => Ok(!self.sticky || m.start() == 0),
            Ok(None) => Ok(false),
        };
        (answer, used)
    }
}

/// What a key text compiles to.
enum Compiled {
    /// Not a regex key (or an invalid one): plain text.
    Plain,
    Regex(RegexKey),
    /// A regex key past the size caps: never compiled, never matches.
    TooLarge,
}

/// Compiled regex keys, by key text.
#[derive(Default)]
pub struct RegexCache {
    keys: HashMap<String, Compiled>,
}

impl RegexCache {
    fn compiled(&mut self, key: &str) -> &Compiled {
        if !self.keys.contains_key(key) {
            let compiled = match split_regex(key) {
                Some((pattern, _)) if crate::matcher::regex_too_large(pattern).is_some() => {
                    Compiled::TooLarge
                }
                _ => RegexKey::compile(key).map_or(Compiled::Plain, Compiled::Regex),
            };
            self.keys.insert(key.to_string(), compiled);
        }
        &self.keys[key]
    }

    /// The compiled regex of `key`; `None` for plain-text keys and for
    /// regex keys too large to compile ([`RegexCache::too_large`]).
    pub fn get(&mut self, key: &str) -> Option<&RegexKey> {
        match self.compiled(key) {
            Compiled::Regex(r) => Some(r),
            _ => None,
        }
    }

    /// Whether `key` is a regex key past the size caps
    /// ([`crate::matcher::regex_too_large`]): it never matches.
    pub fn too_large(&mut self, key: &str) -> bool {
        matches!(self.compiled(key), Compiled::TooLarge)
    }
}

/// The scanned text of one entry, in the forms matching needs.
pub struct Haystack {
    pub raw: String,
    lower: Option<String>,
    utf16: Option<Vec<u16>>,
    /// The regex keys given up on for this text, and why: tested again,
    /// they do not match at once.
    given_up: Vec<(String, GiveUp)>,
    /// The steps left to the request's regex keys.
    steps: RequestSteps,
}

impl Haystack {
    /// A text with a request budget of its own.
    pub fn new(raw: String) -> Self {
        Haystack::sharing(raw, request_steps())
    }

    /// A text of a request whose regex keys share `steps`.
    pub fn sharing(raw: String, steps: RequestSteps) -> Self {
        Haystack {
            raw,
            lower: None,
            utf16: None,
            given_up: Vec::new(),
            steps,
        }
    }

    /// Why regex key `key` was given up on for this text, if it was.
    /// Whether any regex key was given up on this text.
    pub fn gave_up_any(&self) -> bool {
        !self.given_up.is_empty()
    }

    pub fn given_up(&self, key: &str) -> Option<GiveUp> {
        self.given_up
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, why)| *why)
    }

    /// Whether regex key `key` ran out of steps on this text.
    pub fn too_slow(&self, key: &str) -> bool {
        self.given_up(key) == Some(GiveUp::TooSlow)
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
    if regexes.too_large(key) {
        if hay.given_up(key).is_none() {
            hay.given_up.push((key.to_string(), GiveUp::TooLarge));
        }
        return false;
    }
    if let Some(r) = regexes.get(key) {
        if hay.given_up(key).is_some() {
            return false;
        }
        let left = hay.steps.get();
        if left == 0 {
            hay.given_up.push((key.to_string(), GiveUp::RequestBudget));
            return false;
        }
        let own = regex_step_budget(hay.utf16().len(), r.pattern_units as usize);
        let (answer, used) = r.test_counted(hay.utf16(), own.min(left));
        hay.steps.set(left - used.min(left));
        return match answer {
            Ok(found) => found,
            Err(TooSlow) => {
                let why = if own > left {
                    GiveUp::RequestBudget
                } else {
                    GiveUp::TooSlow
                };
                hay.given_up.push((key.to_string(), why));
                false
            }
        };
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

    /// Runs `f` on a thread of its own and fails the test, instead of
    /// hanging it, when `f` takes longer than `limit`.
    pub(crate) fn within<T: Send + 'static>(
        limit: std::time::Duration,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> T {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(limit)
            .unwrap_or_else(|_| panic!("did not finish within {limit:?}"))
    }

    fn utf16(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    // Issue 8: a catastrophic key (exponential backtracking on a run it
    // almost matches) gives up within its step budget instead of running
    // for ever: `(a+)+$` on 60 `a` and a `b` is 2^60 steps in JavaScript.
    #[test]
    fn a_catastrophic_key_gives_up_within_its_budget() {
        let started = std::time::Instant::now();
        let (plain, repeated) = within(std::time::Duration::from_secs(20), || {
            let text = format!("{}b", "a".repeat(60));
            let mut hay = Haystack::new(text);
            let mut regexes = RegexCache::default();
            let mode = KeyMode {
                case_sensitive: false,
                whole_words: true,
            };
            let first = matches(&mut hay, "/(a+)+$/", mode, &mut regexes);
            assert!(hay.too_slow("/(a+)+$/"));
            assert!(!hay.too_slow("/a+$/"));
            // Tested again on the same text, it gives up at once.
            let again = std::time::Instant::now();
            let second = matches(&mut hay, "/(a+)+$/", mode, &mut regexes);
            assert!(again.elapsed() < std::time::Duration::from_millis(5));
            (first, second)
        });
        assert!(!plain && !repeated, "a key that ran out counts as no match");
        eprintln!("gave up after {:?}", started.elapsed());
        // Look-arounds and back-references are bounded too.
        for key in ["/(?=(a+)+$)x/", "/(a|aa)+\\1$/", "/(?<=c(a+)+)b/"] {
            let out = within(std::time::Duration::from_secs(20), move || {
                let text = utf16(&format!("{}b", "a".repeat(60)));
                RegexCache::default().get(key).map(|r| r.test(&text))
            });
            assert_eq!(out, Some(Err(TooSlow)), "{key}");
        }
        // The same key decides at once where it can: a match, or a text
        // without the run.
        let mut regexes = RegexCache::default();
        let key = regexes.get("/(a+)+$/").unwrap();
        assert_eq!(key.test(&utf16("xx aaaa")), Ok(true));
        assert_eq!(key.test(&utf16("bbbb")), Ok(false));
    }

    // The budget, just under and just over: a search that needs `n` steps
    // decides with `n` and gives up with `n - 1`.
    #[test]
    fn the_step_budget_just_under_and_just_over() {
        let mut regexes = RegexCache::default();
        let text = utf16(&format!("{}b", "a".repeat(12)));
        for (key, want) in [
            ("/(a+)+b/", true),
            ("/(a+)+$/", false),
            ("/(?=a*b)b/", true),
        ] {
            let r = regexes.get(key).unwrap();
            // The least budget that decides, by doubling then bisecting.
            let mut high = 1u64;
            while r.test_within(&text, high).is_err() {
                high *= 2;
            }
            let mut low = high / 2;
            while low + 1 < high {
                let mid = (low + high) / 2;
                if r.test_within(&text, mid).is_ok() {
                    high = mid;
                } else {
                    low = mid;
                }
            }
            let needed = high;
            assert!(needed > 1, "{key}");
            assert_eq!(r.test_within(&text, needed), Ok(want), "{key}");
            assert_eq!(r.test_within(&text, needed - 1), Err(TooSlow), "{key}");
        }
        // The budget of a text: a base, a share per code unit of the text
        // (more for long patterns), and a cap.
        assert_eq!(regex_step_budget(0, 6), REGEX_STEPS_BASE);
        assert_eq!(
            regex_step_budget(1_000, 6),
            REGEX_STEPS_BASE + 1_000 * REGEX_STEPS_PER_UNIT
        );
        assert_eq!(
            regex_step_budget(1_000, 100),
            REGEX_STEPS_BASE + 1_000 * 100 * REGEX_STEPS_PER_PATTERN_UNIT
        );
        let at_cap = ((REGEX_STEPS_MAX - REGEX_STEPS_BASE) / REGEX_STEPS_PER_UNIT) as usize;
        assert_eq!(regex_step_budget(at_cap, 1), REGEX_STEPS_MAX);
        assert_eq!(
            regex_step_budget(at_cap - 1, 1),
            REGEX_STEPS_MAX - REGEX_STEPS_PER_UNIT
        );
        assert_eq!(regex_step_budget(at_cap + 1, 1), REGEX_STEPS_MAX);
        assert_eq!(regex_step_budget(usize::MAX, usize::MAX), REGEX_STEPS_MAX);
    }

    // Keys that do not backtrack far decide well within their budget on a
    // long text, matching or not: the budget changes no answer of theirs.
    #[test]
    fn ordinary_keys_decide_on_a_long_text() {
        let prose = "The dragon flew over the old lighthouse at Saltmere; Mira watched it go. ";
        let text = utf16(&prose.repeat(300_000 / prose.len()));
        let mut regexes = RegexCache::default();
        let alternatives = "/\\b(sword|blade|dagger|axe|spear|bow|arrow|shield|helmet|armor|gauntlet|mace|hammer|flail|halberd|pike|lance|crossbow|sling|whip|staff|wand|orb|tome|scroll|potion|elixir|amulet|cloak)s?\\b/i";
        for (key, want) in [
            ("/\\bdragons?\\b/i", true),
            ("/(?<=the )light\\w+/i", false),
            ("/\\w+ing\\b/", false),
            ("/(\\w+)\\s+\\1/i", false),
            ("/^.*zzz/", false),
            ("/[A-Z][a-z]+ [A-Z][a-z]+/", false),
            (alternatives, false),
            ("/Saltmere;\\s+Mira/u", true),
        ] {
            let r = regexes.get(key).unwrap();
            assert_eq!(r.test(&text), Ok(want), "{key}");
        }
    }

    // macros.js: evaluateMacros ({{user}}/{{char}} and the legacy forms).
    #[test]
    fn macros() {
        let names = Names {
            user: "Tom".into(),
            char: "Mira".into(),
            engine: super::super::macros::MacroEngine::Legacy,
            ..Default::default()
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
