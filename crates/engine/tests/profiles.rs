//! The one seam for every rule profile (`profile.rs`): the table, and for
//! each profile the same promises — the log is the requests in turn, the
//! common result agrees with the profile's own, and an entry put in place
//! answers as a fresh build.

use lorebook_engine::chat::{Message, Speaker};
use lorebook_engine::model::{Book, Entry};
use lorebook_engine::preview::Settings;
use lorebook_engine::profile::{build, Detail, Outcome, Profile, ProfileName, Setup, PROFILES};
use lorebook_engine::risu::{RisuOptions, RisuSettings};
use lorebook_engine::sillytavern::{StOptions, StSettings, TimedState};
use proptest::prelude::*;

const WORDS: [&str; 6] = ["harbor", "tide", "salt", "lamp", "storm", "gull"];

fn setup(profile: ProfileName) -> Setup {
    match profile {
        ProfileName::Studio => Setup::Studio {
            settings: Settings::default(),
            tokenizer: None,
        },
        ProfileName::Sillytavern => Setup::Sillytavern {
            settings: StSettings::default(),
            options: StOptions::default(),
            max_context: 8192,
            inputs: Box::default(),
            stored: TimedState::default(),
        },
        ProfileName::Risu => Setup::Risu {
            settings: RisuSettings::default(),
            options: RisuOptions::default(),
            inputs: Box::default(),
        },
    }
}

fn made(book: &Book, profile: ProfileName) -> Box<dyn Profile> {
    build(&[("book".to_string(), book)], setup(profile)).unwrap()
}

/// The injected `(book, id)` of a profile's own answer, in its order.
fn own_injected(o: &Outcome) -> Vec<(usize, u64)> {
    match &o.detail {
        Detail::Studio(r) => r.injected.iter().map(|i| (i.book, i.id)).collect(),
        Detail::Sillytavern(r) => r.injected.iter().map(|i| (i.book, i.id)).collect(),
        Detail::Risu(r) => r.injected.iter().map(|i| (i.book, i.id)).collect(),
    }
}

#[test]
fn the_profile_table_names_each_profile_once() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut ids: Vec<&str> = PROFILES.iter().map(|p| p.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), PROFILES.len());
    for p in PROFILES {
        assert_eq!(ProfileName::parse(p.id), Some(p.name));
        assert_eq!(p.name.info(), &p);
        assert_eq!(p.name.to_string(), p.id);
        assert!(
            root.join(p.rules_doc).is_file(),
            "{} is missing",
            p.rules_doc
        );
    }
    assert_eq!(ProfileName::parse("nope"), None);
    assert_eq!(ProfileName::ids(), "studio, sillytavern, risu");
}

#[test]
fn every_profile_answers_the_same_small_case_in_its_own_words() {
    let mut book = Book::default();
    book.add_entry(Entry {
        keys: vec!["harbor".into()],
        content: "The harbor is old.".into(),
        ..Entry::default()
    });
    book.add_entry(Entry {
        keys: vec!["dragon".into()],
        content: "Dragons sleep.".into(),
        ..Entry::default()
    });
    let chat = vec![Message {
        role: Speaker::User,
        name: None,
        text: "We reach the harbor at dusk.".into(),
    }];
    let first = book.entries[0].id;
    let second = book.entries[1].id;
    for p in PROFILES {
        let mut profile = made(&book, p.name);
        assert_eq!(profile.name(), p.name);
        let o = profile.current(&chat);
        assert_eq!(o.profile, p.name);
        assert_eq!(o.request, 1);
        assert_eq!(own_injected(&o), vec![(0, first)], "{}", p.id);
        assert!(o.used > 0 && o.used <= o.limit, "{}: {o:?}", p.id);
        assert!(o.why_in(0, first).unwrap().contains("harbor"), "{}", p.id);
        assert!(o.why_in(0, second).is_none());
        assert!(o.why_out(0, second).is_some(), "{}", p.id);
        assert!(o.prompt.is_none());
        profile.set_prompts(true);
        let o = profile.current(&chat);
        // Every profile models its front-end's final prompt (RisuAI's
        // without a prompt template).
        let prompt = o.prompt.expect("a prompt once asked for");
        assert!(
            prompt
                .messages
                .iter()
                .any(|m| m.content.contains("The harbor is old.")),
            "{}",
            p.id
        );
        assert!(
            prompt
                .messages
                .iter()
                .any(|m| m.content.contains("We reach the harbor")),
            "{}",
            p.id
        );
    }
}

/// Every profile's log stops when asked, after the requests it was let run.
#[test]
fn every_profile_log_gives_way_when_asked() {
    let mut book = Book::default();
    book.add_entry(Entry {
        keys: vec!["harbor".into()],
        content: "The harbor is old.".into(),
        ..Entry::default()
    });
    let chat: Vec<Message> = (0..5)
        .map(|i| Message {
            role: Speaker::User,
            name: None,
            text: format!("harbor {i}"),
        })
        .collect();
    for p in PROFILES {
        let mut profile = made(&book, p.name);
        let mut asked = 0;
        let mut seen = Vec::new();
        let whole = profile.log_each_while(
            &chat,
            &mut || {
                asked += 1;
                asked <= 2
            },
            &mut |o| seen.push(o.request),
        );
        assert!(!whole, "{}", p.id);
        assert_eq!(seen, vec![1, 2], "{}", p.id);
        let mut all = 0;
        assert!(profile.log_each_while(&chat, &mut || true, &mut |_| all += 1));
        assert_eq!(all, 5);
    }
}

prop_compose! {
    fn entry()(
        keys in proptest::collection::vec(0..WORDS.len(), 0..3),
        constant in proptest::bool::weighted(0.15),
        keep in proptest::bool::weighted(0.2),
        body in proptest::collection::vec(0..WORDS.len(), 1..4),
        order in 0i64..5,
    ) -> Entry {
        let mut content = String::new();
        if keep {
            content.push_str("@@keep\n");
        }
        content.push_str(&body.iter().map(|&w| WORDS[w]).collect::<Vec<_>>().join(" "));
        Entry {
            keys: keys.iter().map(|&w| WORDS[w].to_string()).collect(),
            constant,
            order,
            content,
            ..Entry::default()
        }
    }
}

fn chat_of(messages: &[Vec<usize>]) -> Vec<Message> {
    messages
        .iter()
        .enumerate()
        .map(|(i, words)| Message {
            role: if i % 2 == 0 {
                Speaker::User
            } else {
                Speaker::Assistant
            },
            name: None,
            text: words
                .iter()
                .map(|&w| WORDS[w])
                .collect::<Vec<_>>()
                .join(" "),
        })
        .collect()
}

fn profile_name() -> impl Strategy<Value = ProfileName> {
    (0..PROFILES.len()).prop_map(|i| PROFILES[i].name)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `log_each` hands out `request(k)` for k = 1…M, and each answer's
    /// common part agrees with the profile's own: the same injected
    /// entries in the same order, none of them also cut by the budget.
    #[test]
    fn the_log_is_the_requests_in_turn_and_the_common_part_agrees(
        entries in proptest::collection::vec(entry(), 1..8),
        messages in proptest::collection::vec(proptest::collection::vec(0..WORDS.len(), 0..4), 1..5),
        profile in profile_name(),
    ) {
        let mut book = Book::default();
        for e in entries {
            book.add_entry(e);
        }
        let chat = chat_of(&messages);
        let mut p = made(&book, profile);
        let mut log = Vec::new();
        p.log_each(&chat, &mut |o| log.push(o));
        prop_assert_eq!(log.len(), chat.len());
        for (k, o) in log.iter().enumerate() {
            prop_assert_eq!(o.request, k + 1);
            let common: Vec<(usize, u64)> = o.injected.iter().map(|i| (i.book, i.id)).collect();
            prop_assert_eq!(&common, &own_injected(o));
            for c in o.cut.iter().chain(&o.held).chain(&o.gated) {
                prop_assert!(!common.contains(c));
            }
            for g in &o.gated {
                prop_assert!(!o.cut.contains(g) && !o.held.contains(g));
            }
            let again = p.request(&chat, k + 1);
            prop_assert_eq!(&again, o);
        }
    }

    /// An entry put in place answers as a profile built with it.
    #[test]
    fn an_entry_put_in_place_answers_as_a_fresh_build(
        entries in proptest::collection::vec(entry(), 1..8),
        edited in entry(),
        at in any::<prop::sample::Index>(),
        messages in proptest::collection::vec(proptest::collection::vec(0..WORDS.len(), 0..4), 1..4),
        profile in profile_name(),
    ) {
        let mut book = Book::default();
        for e in entries {
            book.add_entry(e);
        }
        let chat = chat_of(&messages);
        let mut p = made(&book, profile);
        let _ = p.current(&chat);
        let i = at.index(book.entries.len());
        let mut changed = edited;
        changed.id = book.entries[i].id;
        book.entries[i] = changed.clone();
        if p.replace_entry(0, &changed) {
            let mut fresh = made(&book, profile);
            prop_assert_eq!(p.current(&chat), fresh.current(&chat));
        }
    }
}
