//! The SillyTavern view of a book's entries.
//!
//! A book is written out as a SillyTavern world file with the project's own
//! exporter (which restores an imported file's fields exactly and maps a
//! native book's fields the way SillyTavern reads them), and every entry is
//! read from that JSON with SillyTavern's scan-time semantics: no defaults
//! are back-filled, `null` means "use the global", and truthiness is
//! JavaScript's (world-info.js: `checkWorldInfo`, `getSortedEntries`).

use serde_json::Value;

use super::keys::CHECK_EVERY;
use super::settings::{js_number, js_truthy};
use crate::formats::sillytavern;
use crate::model::Book;

/// One entry with the fields SillyTavern's scan reads.
#[derive(Debug, Clone, PartialEq)]
pub struct StEntry {
    /// Index of the book among the books previewed.
    pub book: usize,
    /// The entry's id in the book: what every answer names it by (a
    /// SillyTavern book's uids may collide, and the import gave such
    /// entries ids of their own).
    pub id: u64,
    /// SillyTavern's `uid`: only ever read through `key`.
    pub uid: u64,
    /// `bookName.uid`: the key of "already activated" and timed effects
    /// (entries sharing a uid share it, as in SillyTavern).
    pub key: String,
    pub comment: String,
    pub keys: Vec<String>,
    pub secondary: Vec<String>,
    pub selective: bool,
    /// 0 AND_ANY, 1 NOT_ALL, 2 NOT_ANY, 3 AND_ALL; `None` for any other
    /// value, with which the optional filter never passes.
    pub logic: Option<u8>,
    pub constant: bool,
    pub disable: bool,
    pub order: f64,
    /// 0–7 place the entry; anything else (or a string) places it nowhere.
    pub position: Option<i64>,
    pub depth: f64,
    /// 0 system, 1 user, 2 assistant.
    pub role: i64,
    pub outlet: String,
    pub use_probability: bool,
    pub probability: Option<f64>,
    pub scan_depth: Option<f64>,
    pub case_sensitive: Option<bool>,
    pub whole_words: Option<bool>,
    pub group: String,
    pub group_override: bool,
    pub group_weight: f64,
    pub group_scoring: Option<bool>,
    pub exclude_recursion: bool,
    pub prevent_recursion: bool,
    /// Delay-until-recursion level; 0 is off.
    pub delay_level: f64,
    pub sticky: f64,
    pub cooldown: f64,
    pub delay: f64,
    pub ignore_budget: bool,
    /// Additional matching sources, in [`super::buffer::SOURCE_ORDER`].
    pub match_sources: [bool; 6],
    pub triggers: Vec<String>,
    pub character_filter: Option<CharacterFilter>,
    /// The content with leading decorator lines removed.
    pub content: String,
    pub activate: bool,
    pub dont_activate: bool,
}

/// `characterFilter`: character file names and tag ids, or their exclusion.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CharacterFilter {
    pub names: Vec<String>,
    pub tags: Vec<String>,
    pub exclude: bool,
}

/// The entries of several books in SillyTavern's master order: every book
/// is a global book (in the given order) and the merged list is stably
/// sorted by `order`, highest first (world-info.js: `getSortedEntries`).
pub fn load(books: &[(String, &Book)]) -> Result<Vec<StEntry>, String> {
    Ok(load_while(books, || true)?.unwrap_or_default())
}

/// [`load`] that asks `keep_going` every [`CHECK_EVERY`] entries as it
/// writes each book in its SillyTavern form and as it reads the entries
/// back, and stops when it says no (`Ok(None)`).
pub fn load_while(
    books: &[(String, &Book)],
    keep_going: impl Fn() -> bool,
) -> Result<Option<Vec<StEntry>>, String> {
    let mut all = Vec::new();
    for (index, (name, book)) in books.iter().enumerate() {
        // The exporter's `entries`, as the world file it writes holds them
        // (the document's text would be read back into the same values).
        let Some(entries) = sillytavern::entries_while(book, CHECK_EVERY, &keep_going) else {
            return Ok(None);
        };
        let mut keyed: Vec<(&String, &Value)> = entries.iter().collect();
        // JavaScript object-key order: canonical array indices ascending,
        // then the other keys in file order.
        keyed.sort_by_key(|(k, _)| array_index(k).unwrap_or(u64::MAX));
        for (i, (map_key, v)) in keyed.into_iter().enumerate() {
            if i % CHECK_EVERY == 0 && !keep_going() {
                return Ok(None);
            }
            let Value::Object(_) = v else { continue };
            all.push(read_entry(index, name, map_key, v));
        }
    }
    all.sort_by(|a, b| {
        b.order
            .partial_cmp(&a.order)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    Ok(Some(all))
}

fn array_index(key: &str) -> Option<u64> {
    let n: u64 = key.parse().ok()?;
    (n.to_string() == key && n < u32::MAX as u64).then_some(n)
}

pub(crate) fn read_entry(book: usize, book_name: &str, map_key: &str, v: &Value) -> StEntry {
    let get = |k: &str| v.get(k).filter(|x| !x.is_null());
    let truthy = |k: &str| get(k).is_some_and(js_truthy);
    let number = |k: &str, default: f64| get(k).map(js_number).unwrap_or(default);
    let strings = |k: &str| -> Vec<String> {
        match get(k) {
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect(),
            _ => Vec::new(),
        }
    };
    let text = |k: &str| {
        get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let optional_bool = |k: &str| get(k).map(js_truthy);
    let uid = get("uid")
        .and_then(|u| {
            u.as_u64()
                .or_else(|| u.as_str().and_then(|s| s.parse().ok()))
        })
        .or_else(|| map_key.parse().ok())
        .unwrap_or_default();
    let logic = match v.get("selectiveLogic") {
        None | Some(Value::Null) => Some(0),
        Some(Value::Number(n)) => n.as_u64().filter(|n| *n <= 3).map(|n| n as u8),
        Some(_) => None,
    };
    let delay_level = match get("delayUntilRecursion") {
        Some(Value::Bool(true)) => 1.0,
        Some(x) if js_truthy(x) => js_number(x),
        _ => 0.0,
    };
    let character_filter = get("characterFilter").map(|f| CharacterFilter {
        names: f
            .get("names")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default(),
        tags: f
            .get("tags")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|x| match x {
                        Value::String(s) => Some(s.clone()),
                        Value::Number(n) => Some(n.to_string()),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default(),
        exclude: f.get("isExclude").is_some_and(js_truthy),
    });
    let decorated = parse_decorators(&text("content"));
    let disable = match get("disable") {
        Some(Value::Bool(b)) => *b,
        Some(x) => js_number(x) == 1.0,
        None => false,
    };
    // The exporter keys each entry by its id in the book (`ID`, or
    // `ID_N` for an id it met twice).
    let id = map_key
        .split('_')
        .next()
        .and_then(|k| k.parse().ok())
        .unwrap_or(uid);
    StEntry {
        book,
        id,
        uid,
        key: format!("{book_name}.{uid}"),
        comment: text("comment"),
        keys: strings("key"),
        secondary: strings("keysecondary"),
        selective: truthy("selective"),
        logic,
        constant: truthy("constant"),
        disable,
        order: number("order", 100.0),
        // Placement compares the number strictly: "0" is no position.
        position: get("position").and_then(Value::as_i64),
        depth: number("depth", 4.0),
        role: number("role", 0.0) as i64,
        outlet: text("outletName"),
        use_probability: truthy("useProbability"),
        probability: get("probability").map(js_number),
        scan_depth: get("scanDepth").map(js_number),
        case_sensitive: optional_bool("caseSensitive"),
        whole_words: optional_bool("matchWholeWords"),
        group: text("group"),
        group_override: truthy("groupOverride"),
        group_weight: number("groupWeight", 100.0),
        group_scoring: optional_bool("useGroupScoring"),
        exclude_recursion: truthy("excludeRecursion"),
        prevent_recursion: truthy("preventRecursion"),
        delay_level,
        sticky: number("sticky", 0.0),
        cooldown: number("cooldown", 0.0),
        delay: number("delay", 0.0),
        ignore_budget: truthy("ignoreBudget"),
        match_sources: [
            truthy("matchPersonaDescription"),
            truthy("matchCharacterDescription"),
            truthy("matchCharacterPersonality"),
            truthy("matchCharacterDepthPrompt"),
            truthy("matchScenario"),
            truthy("matchCreatorNotes"),
        ],
        triggers: strings("triggers"),
        character_filter,
        content: decorated.content,
        activate: decorated.decorators.iter().any(|d| d == "@@activate"),
        dont_activate: decorated.decorators.iter().any(|d| d == "@@dont_activate"),
    }
}

/// Content after SillyTavern's decorator pass, with the recorded lines.
#[derive(Debug, PartialEq, Eq)]
pub struct Decorated {
    pub content: String,
    pub decorators: Vec<String>,
}

/// SillyTavern's own decorator pass (world-info.js: `parseDecorators`):
/// leading `@@` lines are taken off; known names are recorded verbatim;
/// `@@@` lines are a fallback tried only after an unknown line.
pub fn parse_decorators(content: &str) -> Decorated {
    const KNOWN: [&str; 2] = ["@@activate", "@@dont_activate"];
    let mut decorators = Vec::new();
    if !content.starts_with("@@") {
        return Decorated {
            content: content.to_string(),
            decorators,
        };
    }
    let lines: Vec<&str> = content.split('\n').collect();
    let mut previous_unknown = false;
    for (i, line) in lines.iter().enumerate() {
        if !line.starts_with("@@") {
            return Decorated {
                content: lines[i..].join("\n"),
                decorators,
            };
        }
        let candidate = if line.starts_with("@@@") {
            if !previous_unknown {
                continue;
            }
            &line[1..]
        } else {
            line
        };
        if KNOWN.iter().any(|k| candidate.starts_with(k)) {
            decorators.push(candidate.to_string());
            previous_unknown = false;
        } else {
            previous_unknown = true;
        }
    }
    Decorated {
        content: content.to_string(),
        decorators,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // world-info.js: parseDecorators (leading @@ lines, @@@ fallback, all
    // lines decorators → content unchanged).
    #[test]
    fn decorators() {
        let check = |input: &str, content: &str, decorators: &[&str]| {
            let d = parse_decorators(input);
            assert_eq!(d.content, content, "{input:?}");
            assert_eq!(d.decorators, decorators, "{input:?}");
        };
        check("@@activate\nForced in.", "Forced in.", &["@@activate"]);
        check("@@dont_activate\nNever.", "Never.", &["@@dont_activate"]);
        check("@@activate", "@@activate", &["@@activate"]);
        check("@@unknown\n@@@activate\nx", "x", &["@@activate"]);
        check("@@activate\n@@@dont_activate\nx", "x", &["@@activate"]);
        check("plain @@activate", "plain @@activate", &[]);
        check("@@activate \nx", "x", &["@@activate "]);
    }

    // world-info.js: getSortedEntries (JavaScript key order, then a stable
    // sort by order, highest first).
    #[test]
    fn master_order() {
        let file = serde_json::json!({"entries": {
            "3": {"uid": 3, "key": ["a"], "order": 50, "content": "d"},
            "0": {"uid": 0, "key": ["a"], "order": 10, "content": "a"},
            "1": {"uid": 1, "key": ["a"], "order": 200, "content": "b"},
            "2": {"uid": 2, "key": ["a"], "order": 50, "content": "c"}
        }});
        let book = crate::formats::import_value(file).unwrap().book;
        let entries = load(&[("world".into(), &book)]).unwrap();
        let uids: Vec<u64> = entries.iter().map(|e| e.uid).collect();
        assert_eq!(uids, [1, 2, 3, 0]);
        assert_eq!(entries[0].key, "world.1");
    }

    /// The entries are read from the exporter's values, not from the text
    /// of the world file it writes: the same values, in the same order,
    /// for every format's fixture, the SillyTavern reference worlds, and
    /// entries sharing an id or holding odd numbers.
    #[test]
    fn the_exporter_s_entries_equal_those_of_its_written_file() {
        use crate::formats::{self, ExportFormat};
        use crate::model::Entry;
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
        let mut books: Vec<Book> = Vec::new();
        for dir in ["fixtures/formats", "sillytavern"] {
            let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .collect();
            files.sort();
            for f in files {
                let f = if f.is_dir() { f.join("world.json") } else { f };
                if let Ok(imported) = formats::import(&std::fs::read(&f).unwrap()) {
                    books.push(imported.book);
                }
            }
        }
        assert!(books.len() > 20, "{} books", books.len());
        let mut odd = Book::default();
        for (id, order) in [(7, 0.1 + 0.2), (7, -0.0), (u64::MAX >> 11, 1e300)] {
            let mut e = Entry {
                id,
                keys: vec!["a".into()],
                ..Entry::default()
            };
            e.extensions
                .insert("weight".into(), serde_json::json!(order));
            odd.entries.push(e);
        }
        books.push(odd);
        for book in &books {
            // A book with folders is written with them flattened into
            // paths (`folders::flatten`), which the rules never read: the
            // flat book is the one compared.
            let flat = crate::folders::flatten(book, None).map(|(f, _)| f);
            let book = flat.as_ref().unwrap_or(book);
            let (bytes, _) = formats::export(book, ExportFormat::SillyTavern).unwrap();
            let written: Value = serde_json::from_slice(&bytes).unwrap();
            let written = written["entries"].as_object().unwrap();
            let direct = sillytavern::entries_while(book, 2, || true).unwrap();
            assert!(direct.keys().eq(written.keys()), "{:?}", book.name);
            assert!(direct.values().eq(written.values()), "{:?}", book.name);
        }
    }
}
