//! Round-trip properties of the RisuAI export under the `risu` rules: a book
//! exported to RisuAI and read back previews, under RisuAI's rules, as the
//! book itself does (the export and the rules read one mapping,
//! `risu::Lore::of`), and a RisuAI file read and written back keeps every
//! entry's meaning.

use lorebook_engine::chat::{Message, Speaker};
use lorebook_engine::formats::{export, import, ExportFormat};
use lorebook_engine::model::{Book, Entry, Role, SecondaryLogic};
use lorebook_engine::risu::{RisuOptions, RisuPreview, RisuResult, RisuSettings, RisuState};
use proptest::prelude::*;

// Two compounds, so a key can be found inside a word before it is found
// as a whole word.
const WORDS: [&str; 8] = [
    "harbor", "tide", "salt", "lamp", "storm", "gull", "saltlamp", "tidegull",
];

fn word() -> impl Strategy<Value = String> {
    (0..WORDS.len()).prop_map(|i| WORDS[i].to_string())
}

fn logic() -> impl Strategy<Value = SecondaryLogic> {
    prop_oneof![
        Just(SecondaryLogic::AndAny),
        Just(SecondaryLogic::AndAll),
        Just(SecondaryLogic::NotAny),
        Just(SecondaryLogic::NotAll),
    ]
}

fn role() -> impl Strategy<Value = Role> {
    prop_oneof![Just(Role::System), Just(Role::User), Just(Role::Assistant)]
}

/// Decorator lines RisuAI and the guide share or RisuAI alone reads.
fn lines() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(
        prop_oneof![
            (0u8..=100).prop_map(|p| format!("@@probability {p}")),
            (0u32..6).prop_map(|d| format!("@@scan_depth {d}")),
            (-5i64..20).prop_map(|p| format!("@@priority {p}")),
            (0u32..4).prop_map(|d| format!("@@depth {d}")),
            (0u32..4).prop_map(|d| format!("@@reverse_depth {d}")),
            Just("@@keep".to_string()),
            Just("@@dont_activate_after_match".to_string()),
            Just("@@position after_desc".to_string()),
            word().prop_map(|w| format!("@@exclude_keys {w}")),
            word().prop_map(|w| format!("@@additional_keys {w}")),
            Just("@@unrecursive".to_string()),
        ],
        0..3,
    )
}

prop_compose! {
    fn entry()(
        keys in proptest::collection::vec(word(), 0..3),
        secondary in proptest::collection::vec(word(), 0..3),
        selective in any::<bool>(),
        secondary_logic in logic(),
        constant in any::<bool>(),
        enabled in any::<bool>(),
        whole_words in any::<bool>(),
        role in role(),
        order in -3i64..6,
        priority in -3i64..6,
        lines in lines(),
        body in proptest::collection::vec(word(), 1..4),
    ) -> Entry {
        let mut content = lines.join("\n");
        if !content.is_empty() {
            content.push('\n');
        }
        content.push_str(&body.join(" "));
        Entry {
            keys, secondary_keys: secondary, selective, secondary_logic, constant, enabled,
            whole_words, role, order, priority, content, ..Entry::default()
        }
    }
}

fn book_of(entries: Vec<Entry>) -> Book {
    let mut book = Book::default();
    for e in entries {
        book.add_entry(e);
    }
    book
}

fn chat_of(words: &[Vec<String>]) -> Vec<Message> {
    words
        .iter()
        .map(|w| Message {
            role: Speaker::User,
            name: None,
            text: w.join(" "),
        })
        .collect()
}

/// The keys an entry names, lower-cased: its keys, secondary keys and the
/// arguments of its key decorators.
fn named(e: &Entry) -> Vec<String> {
    let mut out: Vec<String> = e
        .keys
        .iter()
        .chain(&e.secondary_keys)
        .map(|k| k.trim().to_lowercase())
        .collect();
    for line in e.content.lines() {
        for d in [
            "@@exclude_keys_all ",
            "@@exclude_keys ",
            "@@additional_keys ",
        ] {
            if let Some(args) = line.strip_prefix(d) {
                out.extend(args.split(',').map(|k| k.trim().to_lowercase()));
                break;
            }
        }
    }
    out.retain(|k| !k.is_empty());
    out
}

/// Every answer of `p`'s log of `chat`, as written for a comparison.
fn logged(p: &mut RisuPreview, chat: &[Message]) -> Vec<String> {
    let mut out = Vec::new();
    p.log_each(chat, |r| out.push(format!("{r:?}")));
    out
}

/// Each request's result as (entry position in the book, position, depth,
/// role) in RisuAI's final order.
fn log(book: &Book, chat: &[Message]) -> Vec<Vec<String>> {
    let mut p = RisuPreview::new(&[book], RisuSettings::default(), RisuOptions::default());
    let mut out = Vec::new();
    p.log_each(chat, |r: RisuResult| {
        out.push(
            r.injected
                .iter()
                .map(|i| {
                    let at = book.entries.iter().position(|e| e.id == i.id).unwrap();
                    format!("{at}@{}:{:?}:{}", i.position, i.depth, i.role)
                })
                .collect(),
        )
    });
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// The log answers a book without state on several threads
    /// (`risu/log.rs`) and a book with state in turn: either way each
    /// answer, in order, is the one the request gives alone after the
    /// requests before it (`request_after`, loadLoreBookV3Prompt once per
    /// request).
    #[test]
    fn the_log_answers_as_each_request_alone(
        entries in proptest::collection::vec(entry(), 1..14),
        messages in proptest::collection::vec(proptest::collection::vec(word(), 1..4), 1..12),
    ) {
        let book = book_of(entries);
        let chat = chat_of(&messages);
        let settings = RisuSettings { scan_depth: 3.0, ..RisuSettings::default() };
        let mut p = RisuPreview::new(&[&book], settings.clone(), RisuOptions::default());
        let in_log = logged(&mut p, &chat);
        let alone: Vec<String> = (1..=chat.len())
            .map(|k| {
                let mut p = RisuPreview::new(&[&book], settings.clone(), RisuOptions::default());
                format!("{:?}", p.request_after(&chat, k))
            })
            .collect();
        prop_assert_eq!(in_log, alone);
    }

    /// native → RisuAI → native previews the same under `risu`.
    #[test]
    fn risu_export_previews_as_the_book(
        entries in proptest::collection::vec(entry(), 1..6),
        messages in proptest::collection::vec(proptest::collection::vec(word(), 1..4), 1..5),
    ) {
        let book = book_of(entries);
        let chat = chat_of(&messages);
        let (bytes, _) = export(&book, ExportFormat::Risu).unwrap();
        let back = import(&bytes).unwrap().book;
        prop_assert_eq!(back.entries.len(), book.entries.len());
        prop_assert_eq!(log(&back, &chat), log(&book, &chat));
        // And once more: a RisuAI file written back is the same file.
        let (again, _) = export(&back, ExportFormat::Risu).unwrap();
        let a: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let b: serde_json::Value = serde_json::from_slice(&again).unwrap();
        prop_assert_eq!(a, b);
    }

    /// An entry edited in place (`RisuPreview::replace_entry`) answers as
    /// a preview built from the edited book; an edit naming a key the
    /// preview never saw is refused.
    #[test]
    fn an_entry_replaced_in_place_answers_as_a_fresh_build(
        entries in proptest::collection::vec(entry(), 1..6),
        edited in entry(),
        which in any::<prop::sample::Index>(),
        messages in proptest::collection::vec(proptest::collection::vec(word(), 1..4), 1..5),
    ) {
        let book = book_of(entries);
        let chat = chat_of(&messages);
        let at = which.index(book.entries.len());
        let mut after = book.clone();
        let id = after.entries[at].id;
        after.entries[at] = Entry { id, ..edited };
        let mut kept = RisuPreview::new(&[&book], RisuSettings::default(), RisuOptions::default());
        let fresh = |b: &Book| {
            let mut p = RisuPreview::new(&[b], RisuSettings::default(), RisuOptions::default());
            (1..=chat.len()).map(|k| format!("{:?}", p.request_after(&chat, k))).collect::<Vec<_>>()
        };
        // Warm the kept preview's caches first, as the app's is.
        let _ = kept.request_after(&chat, chat.len());
        if kept.replace_entry(0, &after.entries[at]) {
            let got: Vec<String> = (1..=chat.len()).map(|k| format!("{:?}", kept.request_after(&chat, k))).collect();
            prop_assert_eq!(got, fresh(&after));
        } else {
            // Only a key the book did not name can refuse it.
            let before: Vec<String> = book.entries.iter().flat_map(named).collect();
            prop_assert!(named(&after.entries[at]).iter().any(|k| !before.contains(k)));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    /// A pass evaluates an entry only its keys can change when a text
    /// holds one of them (`watch::Watchers`, RisuPreview's waking): every
    /// answer of the log, reasons and all, is that of evaluating every
    /// entry in every pass, as loadLoreBookV3Prompt does.
    #[test]
    fn waking_entries_by_their_keys_answers_as_evaluating_every_entry(
        entries in proptest::collection::vec(entry(), 1..14),
        messages in proptest::collection::vec(proptest::collection::vec(word(), 1..4), 1..7),
        full_words in any::<bool>(),
    ) {
        let book = book_of(entries);
        let chat = chat_of(&messages);
        let settings = RisuSettings { full_word_matching: full_words, scan_depth: 3.0, ..RisuSettings::default() };
        let run = |every: bool| {
            let mut p = RisuPreview::new(&[&book], settings.clone(), RisuOptions::default());
            if every {
                p.evaluate_every_entry();
            }
            logged(&mut p, &chat)
        };
        prop_assert_eq!(run(false), run(true));
    }
}

/// An edit of one chat message, as typing makes them.
#[derive(Debug, Clone)]
enum Edit {
    /// Letters that complete no key.
    Letters,
    /// A word (a key of some entries, or not).
    Word(String),
    /// A word behind a slash: the same keys for plain matching, a new
    /// text for RisuAI's regex search, which keeps the leading slash.
    Slashed(String),
    /// The same text again.
    Same,
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        Just(Edit::Letters),
        word().prop_map(Edit::Word),
        word().prop_map(Edit::Slashed),
        Just(Edit::Same),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    /// A single request asked again after its messages were edited is
    /// answered from the memo when each message finds the same keys and
    /// every regex search finds the same (`memo.rs`); every answer, memo
    /// or not, is that of a fresh preview.
    #[test]
    fn a_request_answered_from_the_memo_is_a_fresh_request(
        entries in proptest::collection::vec(entry(), 1..10),
        regex in proptest::collection::vec(any::<bool>(), 10),
        messages in proptest::collection::vec(proptest::collection::vec(word(), 1..4), 1..6),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), edit()), 1..5),
    ) {
        let mut book = book_of(entries);
        for (e, r) in book.entries.iter_mut().zip(regex) {
            if r && !e.keys.is_empty() {
                e.use_regex = true;
                e.keys = e.keys.iter().map(|k| format!("/{k}/i")).collect();
            }
        }
        let mut chat = chat_of(&messages);
        let k = chat.len();
        let settings = RisuSettings { scan_depth: 3.0, ..RisuSettings::default() };
        let mut kept = RisuPreview::new(&[&book], settings.clone(), RisuOptions::default());
        let _ = kept.request(&chat, k, &mut RisuState::default());
        for (at, edit) in edits {
            let m = &mut chat[at.index(k)].text;
            match edit {
                Edit::Letters => m.push_str(" qq"),
                Edit::Word(w) => *m = format!("{m} {w}"),
                Edit::Slashed(w) => *m = format!("{m} /{w}"),
                Edit::Same => {}
            }
            let got = kept.request(&chat, k, &mut RisuState::default());
            let mut fresh = RisuPreview::new(&[&book], settings.clone(), RisuOptions::default());
            let want = fresh.request(&chat, k, &mut RisuState::default());
            prop_assert_eq!(format!("{got:?}"), format!("{want:?}"));
        }
    }
}

#[test]
fn after_match_state_survives_the_round_trip() {
    let book = book_of(vec![Entry {
        keys: vec!["harbor".into()],
        content: "@@keep\nThe harbor.".into(),
        whole_words: false,
        ..Entry::default()
    }]);
    let chat = chat_of(&[vec!["harbor".into()], vec!["x".into()], vec!["y".into()]]);
    let (bytes, _) = export(&book, ExportFormat::Risu).unwrap();
    let back = import(&bytes).unwrap().book;
    let mut p = RisuPreview::new(&[&back], RisuSettings::default(), RisuOptions::default());
    let mut state = RisuState::default();
    let n: Vec<usize> = (1..=3)
        .map(|k| p.request(&chat, k, &mut state).injected.len())
        .collect();
    assert_eq!(n, [1, 1, 1]);
}
