//! Resuming SillyTavern's request log from kept timed states
//! (`TimedLog`, `StPreview::request_after`, `StPreview::log_from`) gives
//! exactly what a replay from request 1 gives.
//!
//! The property test drives random chat edits (a message changed, added,
//! removed) against random books with sticky, cooldown, delay, probability
//! and inclusion groups, and after each edit compares the resumed answers
//! with a fresh preview's full log; the unit tests pin what a resume keeps
//! and what it forgets.

use lorebook_engine::chat::{Message, Speaker};
use lorebook_engine::formats;
use lorebook_engine::model::Book;
use lorebook_engine::sillytavern::{StOptions, StPreview, StResult, StSettings, TimedLog};
use proptest::prelude::*;
use serde_json::{json, Value};

const WORDS: &[&str] = &["rain", "lamp", "tower", "sea", "bell", "the", "quiet"];

/// One random SillyTavern entry: a key among the words, timed effects,
/// a roll and maybe a group.
fn arb_entry() -> impl Strategy<Value = Value> {
    (
        0..WORDS.len(),
        0u32..4,
        0u32..4,
        0u32..5,
        prop_oneof![Just(100u32), Just(50), Just(20)],
        prop_oneof![Just(""), Just("weather"), Just("place")],
        any::<bool>(),
    )
        .prop_map(|(key, sticky, cooldown, delay, probability, group, constant)| {
            json!({"key": [WORDS[key]], "keysecondary": [], "selective": true,
                "selectiveLogic": 0, "order": 100, "position": 0, "depth": 4, "role": 0,
                "probability": probability, "useProbability": true, "group": group,
                "sticky": sticky, "cooldown": cooldown, "delay": delay,
                "constant": constant && key == 0,
                "content": format!("About {} and the {}.", WORDS[key], WORDS[(key + 1) % WORDS.len()])})
        })
}

/// A book; half of them with no sticky or cooldown at all (each request
/// then starts from no timed effects, and runs alone).
fn arb_book() -> impl Strategy<Value = Book> {
    (prop::collection::vec(arb_entry(), 1..9), any::<bool>()).prop_map(|(entries, timed)| {
        let mut map = serde_json::Map::new();
        for (uid, mut e) in entries.into_iter().enumerate() {
            e["uid"] = json!(uid);
            if !timed {
                e["sticky"] = json!(0);
                e["cooldown"] = json!(0);
            }
            map.insert(uid.to_string(), e);
        }
        formats::import_value(json!({ "entries": map }))
            .unwrap()
            .book
    })
}

fn arb_text() -> impl Strategy<Value = String> {
    prop::collection::vec(0..WORDS.len(), 1..5)
        .prop_map(|w| w.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" "))
}

fn message(i: usize, text: String) -> Message {
    Message {
        role: if i % 2 == 0 {
            Speaker::User
        } else {
            Speaker::Assistant
        },
        name: None,
        text,
    }
}

/// One chat edit; indexes are reduced modulo the chat's length.
#[derive(Debug, Clone)]
enum Op {
    Change(usize, String),
    Add(String),
    Remove(usize),
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0usize..16, arb_text()).prop_map(|(i, t)| Op::Change(i, t)),
        2 => arb_text().prop_map(Op::Add),
        1 => (0usize..16).prop_map(Op::Remove),
    ]
}

fn apply(chat: &mut Vec<Message>, op: &Op) {
    match op {
        Op::Change(i, t) if !chat.is_empty() => {
            let i = i % chat.len();
            chat[i].text = t.clone();
        }
        Op::Add(t) => chat.push(message(chat.len(), t.clone())),
        Op::Remove(i) if !chat.is_empty() => {
            let i = i % chat.len();
            chat.remove(i);
        }
        _ => {}
    }
}

fn preview(book: &Book, seed: u64) -> StPreview {
    let settings = StSettings {
        depth: 3.0,
        budget_percent: 100.0,
        ..StSettings::default()
    };
    let options = StOptions {
        seed,
        ..StOptions::default()
    };
    StPreview::new(&[("world".into(), book)], settings, options).unwrap()
}

/// Requests 1…M replayed from no timed effects by a preview of its own.
fn replay(book: &Book, seed: u64, chat: &[Message]) -> Vec<StResult> {
    let mut all = Vec::new();
    preview(book, seed).log(chat, 8192, |r| all.push(r));
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn resumed_requests_equal_a_full_replay(
        book in arb_book(),
        seed in any::<u64>(),
        start in prop::collection::vec(arb_text(), 0..8),
        ops in prop::collection::vec(arb_op(), 1..12),
        picks in prop::collection::vec(0usize..16, 12),
    ) {
        let mut chat: Vec<Message> =
            start.into_iter().enumerate().map(|(i, t)| message(i, t)).collect();
        let mut p = preview(&book, seed);
        let mut log = TimedLog::new();
        for (op, pick) in ops.iter().zip(&picks) {
            apply(&mut chat, op);
            let full = replay(&book, seed, &chat);
            // One request, of the last message and of another one.
            let last = p.request_after(&chat, chat.len(), 8192, &mut log);
            match full.last() {
                Some(r) => prop_assert_eq!(&last, r),
                None => prop_assert_eq!(last.request, 0),
            }
            if !chat.is_empty() {
                let k = pick % chat.len() + 1;
                let r = p.request_after(&chat, k, 8192, &mut log);
                prop_assert_eq!(&r, &full[k - 1]);
            }
            // The log from any request on.
            let from = pick % (chat.len() + 1);
            let mut rest = Vec::new();
            p.log_from(&chat, from, 8192, &mut log, |r| rest.push(r));
            prop_assert_eq!(&rest[..], &full[from..]);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    // `StPreview::replace_entry`: an edit of an entry's body, flags, keys,
    // secondary keys (plain, regex or with a macro) or case sensitivity is
    // made in place, and the preview then answers as one built from the
    // edited book.
    #[test]
    fn an_entry_replaced_in_place_answers_as_a_new_preview(
        book in arb_book(),
        seed in any::<u64>(),
        texts in prop::collection::vec(arb_text(), 1..8),
        pick in 0usize..9,
        content in arb_text(),
        enabled in any::<bool>(),
        constant in any::<bool>(),
        new_key in prop::option::of((0..WORDS.len(), 0usize..4)),
        new_secondary in prop::option::of((0..WORDS.len(), 0usize..4)),
        case_sensitive in prop::option::of(any::<bool>()),
        whole_words in prop::option::of(any::<bool>()),
    ) {
        let chat: Vec<Message> =
            texts.into_iter().enumerate().map(|(i, t)| message(i, t)).collect();
        let mut p = preview(&book, seed);
        let mut log = TimedLog::new();
        // States kept from before the edit must not be reused after it.
        p.request_after(&chat, chat.len(), 8192, &mut log);
        let mut edited = book.clone();
        let i = pick % edited.entries.len();
        let e = &mut edited.entries[i];
        e.content = format!("{content}, {}", e.content);
        e.enabled = enabled;
        e.constant = constant;
        // A key as typed: plain, a regex, with a macro, or half-typed.
        let spell = |(w, form): (usize, usize)| match form {
            0 => WORDS[w].to_string(),
            1 => format!("/{}s?/i", WORDS[w]),
            2 => format!("{{{{user}}}} {}", WORDS[w]),
            _ => WORDS[w][..WORDS[w].len() / 2].to_string(),
        };
        if let Some(k) = new_key {
            e.keys = vec![spell(k)];
        }
        if let Some(k) = new_secondary {
            e.secondary_keys = vec![spell(k)];
        }
        if let Some(c) = case_sensitive {
            e.case_sensitive = c;
        }
        if let Some(w) = whole_words {
            e.whole_words = w;
        }
        let e = edited.entries[i].clone();
        prop_assert!(p.replace_entry(0, &e));
        let full = replay(&edited, seed, &chat);
        let last = p.request_after(&chat, chat.len(), 8192, &mut log);
        prop_assert_eq!(&last, full.last().unwrap());
        let mut all = Vec::new();
        p.log_from(&chat, 0, 8192, &mut log, |r| all.push(r));
        prop_assert_eq!(all, full);
    }
}

// `KeySet::replace`: past `LOOSE_MAX` entries taken out of the automata,
// a key edit of yet another entry is refused (the caller builds anew),
// while entries already out take further edits.
#[test]
fn key_edits_in_place_stop_at_the_loose_cap() {
    use lorebook_engine::sillytavern::keys::LOOSE_MAX;
    let n = LOOSE_MAX + 2;
    let mut map = serde_json::Map::new();
    for uid in 0..n {
        map.insert(
            uid.to_string(),
            json!({"uid": uid, "key": [format!("k{uid}")], "keysecondary": [],
                "selective": true, "selectiveLogic": 0, "order": 100, "position": 0,
                "depth": 4, "role": 0, "probability": 100, "useProbability": true,
                "content": format!("c{uid}")}),
        );
    }
    let book = formats::import_value(json!({ "entries": map }))
        .unwrap()
        .book;
    let mut p = preview(&book, 1);
    let edit = |p: &mut StPreview, i: usize, key: &str| {
        let mut e = book.entries[i].clone();
        e.keys = vec![key.to_string()];
        p.replace_entry(0, &e)
    };
    for i in 0..LOOSE_MAX {
        assert!(edit(&mut p, i, &format!("new{i}")), "entry {i}");
    }
    assert!(!edit(&mut p, LOOSE_MAX, "one too many"));
    assert!(
        edit(&mut p, 0, "again"),
        "an entry already out takes more edits"
    );
    let chat = vec![message(0, "again and new5, then k65".to_string())];
    let r = p.request(&chat, 8192, &mut Default::default());
    let mut ids: Vec<u64> = r.injected.iter().map(|i| i.id).collect();
    ids.sort_unstable();
    assert_eq!(ids, [0, 5, 65]);
}

fn world() -> Book {
    world_of(1)
}

/// Rain sticky for 5, lamp cooling down for 2, tower both for 1; all
/// times `scale` (0: no timed effects).
fn world_of(scale: u32) -> Book {
    let e = |uid: u64, key: &str, sticky: u32, cooldown: u32| {
        let (sticky, cooldown) = (sticky * scale, cooldown * scale);
        json!({"uid": uid, "key": [key], "keysecondary": [], "selective": true,
            "selectiveLogic": 0, "order": 100, "position": 0, "depth": 4, "role": 0,
            "probability": 100, "useProbability": true, "sticky": sticky,
            "cooldown": cooldown, "content": format!("About {key}.")})
    };
    formats::import_value(json!({"entries": {
        "0": e(0, "rain", 5, 0), "1": e(1, "lamp", 0, 2), "2": e(2, "tower", 1, 1)}}))
    .unwrap()
    .book
}

fn chat_of(texts: &[&str]) -> Vec<Message> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| message(i, t.to_string()))
        .collect()
}

#[test]
fn a_change_at_message_j_keeps_the_states_before_it() {
    let book = world();
    let mut p = preview(&book, 7);
    let mut log = TimedLog::new();
    let mut chat = chat_of(&["rain", "lamp", "tower", "sea", "rain lamp", "bell"]);
    p.request_after(&chat, 6, 8192, &mut log);
    assert_eq!(log.kept(), 6);
    chat[3].text = "tower again".into();
    assert_eq!(p.resume(&chat, 8192, &mut log), 3, "messages 1–3 unchanged");
    assert_eq!(log.kept(), 3);
    // An earlier request of the same chat forgets nothing.
    p.request_after(&chat, 6, 8192, &mut log);
    p.request_after(&chat, 2, 8192, &mut log);
    assert_eq!(log.kept(), 6);
    // A shorter chat (the last message deleted) keeps the rest for when
    // it comes back.
    let shorter = chat[..5].to_vec();
    assert_eq!(p.resume(&shorter, 8192, &mut log), 5);
    assert_eq!(log.kept(), 6);
    assert_eq!(p.resume(&chat, 8192, &mut log), 6);
}

#[test]
fn without_sticky_or_cooldown_the_states_are_known_without_running() {
    let plain = world_of(0);
    let mut p = preview(&plain, 7);
    let mut log = TimedLog::new();
    let chat = chat_of(&["rain", "lamp", "tower", "sea"]);
    let r = p.request_after(&chat, 4, 8192, &mut log);
    assert_eq!(r, replay(&plain, 7, &chat)[3]);
    assert_eq!(log.kept(), 4, "the states before request 4 are kept");
}

#[test]
fn another_preview_or_context_size_starts_afresh() {
    let book = world();
    let chat = chat_of(&["rain", "lamp", "tower"]);
    let mut p = preview(&book, 7);
    let mut log = TimedLog::new();
    p.request_after(&chat, 3, 8192, &mut log);
    assert_eq!(p.resume(&chat, 8192, &mut log), 3);
    assert_eq!(p.resume(&chat, 4096, &mut log), 0, "another context size");
    p.request_after(&chat, 3, 4096, &mut log);
    let mut q = preview(&book, 7);
    assert_eq!(q.resume(&chat, 4096, &mut log), 0, "another preview");
    q.request_after(&chat, 3, 4096, &mut log);
    q.set_tokenizer(None);
    assert_eq!(q.resume(&chat, 4096, &mut log), 0, "another tokenizer");
}

#[test]
fn timed_effects_carry_over_a_resumed_request() {
    // Request 5: rain is sticky from request 1 (for 5 messages) and out
    // of the scan depth of 3, which the resumed request must see although
    // only requests 4 and 5 run again.
    let book = world();
    let mut p = preview(&book, 7);
    let mut log = TimedLog::new();
    let mut chat = chat_of(&["rain", "sea", "bell", "quiet", "the"]);
    p.request_after(&chat, 5, 8192, &mut log);
    chat[3].text = "the quiet sea".into();
    let r = p.request_after(&chat, 5, 8192, &mut log);
    assert!(r.injected.iter().any(|i| i.id == 0), "rain stays sticky");
    assert_eq!(r, replay(&book, 7, &chat)[4]);
}
