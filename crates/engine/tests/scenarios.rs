//! Scenarios (`scenario/`): the stored form and its round trips, recording
//! what the preview shows, and each kind of broken expectation, under every
//! rule profile.

use lorebook_engine::formats::{export, import, ExportFormat};
use lorebook_engine::model::{Book, Entry};
use lorebook_engine::profile::{ProfileName, PROFILES};
use lorebook_engine::scenario::{self, Expect, Expected, Failure, Scenario, Settings};
use serde_json::json;

const CHAT: &str = "User: We reach the harbor at dusk.\nNarrator: The lighthouse turns.";

/// A harbor, a lighthouse, a dragon nobody mentions, a long tavern text.
fn book() -> (Book, [u64; 4]) {
    let mut b = Book {
        name: "Harbor".into(),
        ..Book::default()
    };
    let harbor = b.add_entry(Entry {
        comment: "Harbor".into(),
        keys: vec!["harbor".into()],
        content: "The harbor is old.".into(),
        ..Entry::default()
    });
    let light = b.add_entry(Entry {
        comment: "Lighthouse".into(),
        keys: vec!["lighthouse".into()],
        content: "The light turns all night.".into(),
        ..Entry::default()
    });
    let dragon = b.add_entry(Entry {
        comment: "Dragon".into(),
        keys: vec!["dragon".into()],
        content: "Dragons sleep.".into(),
        ..Entry::default()
    });
    let tavern = b.add_entry(Entry {
        comment: "Tavern".into(),
        keys: vec!["dusk".into()],
        content: "The tavern fills at dusk with sailors. ".repeat(40),
        ..Entry::default()
    });
    (b, [harbor, light, dragon, tavern])
}

fn recorded(b: &Book, rules: ProfileName) -> Scenario {
    scenario::record(b, "arrival", CHAT, rules, Settings::default()).unwrap()
}

#[test]
fn a_book_without_scenarios_is_written_as_before() {
    let (mut b, _) = book();
    let (before, _) = export(&b, ExportFormat::Native).unwrap();
    scenario::set(&mut b, &[]).unwrap();
    assert_eq!(export(&b, ExportFormat::Native).unwrap().0, before);
    let s = recorded(&b, ProfileName::Studio);
    scenario::set(&mut b, &[s]).unwrap();
    scenario::set(&mut b, &[]).unwrap();
    assert_eq!(export(&b, ExportFormat::Native).unwrap().0, before);
}

#[test]
fn scenarios_keep_unknown_fields_and_survive_every_format_with_book_extensions() {
    let (mut b, _) = book();
    let mut s = recorded(&b, ProfileName::Sillytavern);
    s.extra.insert("future_field".into(), json!({"x": 1}));
    s.expect.extra.insert("also_future".into(), json!(true));
    scenario::set(&mut b, std::slice::from_ref(&s)).unwrap();
    assert_eq!(scenario::of(&b).unwrap(), vec![s.clone()]);
    // Carried where the format keeps a book's extensions; the others say
    // in their report that `extensions (lorebook_studio)` has no place.
    for (format, carried) in [
        (ExportFormat::Native, true),
        (ExportFormat::SillyTavern, true),
        (ExportFormat::CardV2, true),
        (ExportFormat::CardV3, true),
        (ExportFormat::CharacterBook, true),
        (ExportFormat::Risu, false),
        (ExportFormat::NovelAi, false),
        (ExportFormat::Agnai, false),
    ] {
        let (bytes, report) = export(&b, format).unwrap();
        let back = import(&bytes).unwrap().book;
        let got = scenario::of(&back).unwrap();
        if carried {
            assert_eq!(got, vec![s.clone()], "{format:?}");
        } else {
            assert!(got.is_empty(), "{format:?}");
            assert!(
                report.to_string().contains("extensions (lorebook_studio)"),
                "{format:?}: {report}"
            );
        }
    }
}

#[test]
fn a_scenario_that_does_not_read_is_an_error_and_storing_over_it_is_refused() {
    let (mut b, _) = book();
    b.extensions.insert(
        "lorebook_studio".into(),
        json!({"scenarios": [{"chat": 3}]}),
    );
    let e = scenario::of(&b).unwrap_err();
    assert!(e.contains("scenarios[0]"), "{e}");
    b.extensions.insert("lorebook_studio".into(), json!("text"));
    let before = b.extensions.clone();
    assert!(scenario::set(&mut b, &[]).is_err());
    assert_eq!(b.extensions, before, "nothing changed");
}

#[test]
fn a_recorded_scenario_passes_under_every_rules() {
    let (b, [harbor, light, dragon, _]) = book();
    for p in PROFILES {
        let s = recorded(&b, p.name);
        assert!(s.expect.exactly);
        let ids: Vec<u64> = s.expect.injected.iter().map(|x| x.id).collect();
        assert!(
            ids.contains(&harbor) && ids.contains(&light),
            "{}: {ids:?}",
            p.id
        );
        assert!(!ids.contains(&dragon));
        let v = scenario::run(&b, &s).unwrap();
        assert!(v.passed, "{}: {:?}", p.id, v.failures);
        assert_eq!(v.rules, p.name);
    }
}

#[test]
fn an_edited_key_fails_with_the_rules_reason_under_every_rules() {
    let (b, [_, light, ..]) = book();
    for p in PROFILES {
        let s = recorded(&b, p.name);
        let mut edited = b.clone();
        let e = edited.entries.iter_mut().find(|e| e.id == light).unwrap();
        e.keys = vec!["beacon".into()];
        let v = scenario::run(&edited, &s).unwrap();
        assert!(!v.passed, "{}", p.id);
        let f = v
            .failures
            .iter()
            .find(|f| matches!(f, Failure::NotInjected { id, .. } if *id == light))
            .unwrap_or_else(|| panic!("{}: {:?}", p.id, v.failures));
        let text = f.to_string();
        assert!(
            text.starts_with("'Lighthouse' is not injected in request 2: "),
            "{}: {text}",
            p.id
        );
    }
}

#[test]
fn each_expectation_fails_on_its_own_terms() {
    let (b, [harbor, light, dragon, tavern]) = book();
    let at = |id: u64, request: Option<usize>| Expected {
        id,
        request,
        ..Expected::default()
    };
    let run = |expect: Expect, rules: ProfileName| {
        let s = Scenario {
            name: "x".into(),
            chat: CHAT.into(),
            rules,
            settings: Settings {
                token_budget: Some(100),
                ..Settings::default()
            },
            expect,
            extra: Default::default(),
        };
        scenario::run(&b, &s).unwrap().failures
    };
    // Request 1 does not see the lighthouse yet.
    let f = run(
        Expect {
            injected: vec![at(light, Some(1))],
            not_injected: vec![at(harbor, Some(1))],
            ..Expect::default()
        },
        ProfileName::Studio,
    );
    assert!(
        matches!(&f[0], Failure::NotInjected { request: 1, .. }),
        "{f:?}"
    );
    assert!(
        matches!(&f[1], Failure::Injected { request: 1, .. }),
        "{f:?}"
    );
    // The long tavern text does not fit a budget of 100.
    let f = run(
        Expect {
            injected: vec![at(tavern, None)],
            max_used: Some(5),
            nothing_cut: true,
            ..Expect::default()
        },
        ProfileName::Studio,
    );
    assert!(
        f.iter()
            .any(|f| f.to_string().contains("budget: needs 361 tokens")),
        "{f:?}"
    );
    assert!(f
        .iter()
        .any(|f| matches!(f, Failure::OverBudget { max: 5, .. })));
    assert!(f
        .iter()
        .any(|f| matches!(f, Failure::Cut { names, .. } if names == &["Tavern"])));
    // Exactly: an entry no expectation names is a failure.
    let f = run(
        Expect {
            injected: vec![at(harbor, None)],
            exactly: true,
            ..Expect::default()
        },
        ProfileName::Studio,
    );
    assert!(f
        .iter()
        .any(|f| matches!(f, Failure::Injected { id, .. } if *id == light)));
    // A position the rules do not use; a request past the chat; an entry
    // that is gone.
    let mut moved = at(harbor, None);
    moved.position = Some("at_depth".into());
    let mut gone = at(99, None);
    gone.name = "Old entry".into();
    let f = run(
        Expect {
            injected: vec![moved, at(dragon, Some(7)), gone],
            ..Expect::default()
        },
        ProfileName::Sillytavern,
    );
    assert!(
        matches!(
            &f[0],
            Failure::NoSuchRequest {
                request: 7,
                requests: 2
            }
        ),
        "{f:?}"
    );
    assert_eq!(
        f[1].to_string(),
        "'Harbor' is injected in request 2 at before, not at_depth"
    );
    assert_eq!(
        f[2].to_string(),
        "'Old entry' (id 99) is no longer in the book"
    );
}

#[test]
fn a_scenario_that_cannot_run_says_why() {
    let (b, _) = book();
    let mut s = recorded(&b, ProfileName::Studio);
    s.settings.model = Some("no-such-model-family".into());
    assert!(scenario::run(&b, &s).is_err());
    let mut s = recorded(&b, ProfileName::Risu);
    s.settings.risu = Some(json!({"loreSettings": "nope"}));
    assert!(scenario::run(&b, &s).is_err());
}

/// A scenario with an expectation at every request answers each request
/// from one pass of the log, as asking each request alone answers it,
/// timed effects carried (issue 37: asking each alone replayed every
/// request before it, quadratic in the requests).
#[test]
fn a_scenario_of_every_request_answers_each_as_the_request_alone() {
    use lorebook_engine::formats::import_value;
    let words = ["fog", "bell", "tide", "lamp"];
    let mut entries = serde_json::Map::new();
    for (uid, (w, (sticky, cooldown))) in words
        .iter()
        .zip([(2, 0), (0, 2), (1, 1), (0, 0)])
        .enumerate()
    {
        entries.insert(
            uid.to_string(),
            json!({"uid": uid, "key": [w], "keysecondary": [], "comment": w,
                "content": format!("About the {w}."), "order": 100, "position": 0,
                "sticky": sticky, "cooldown": cooldown, "probability": 100}),
        );
    }
    let book = import_value(json!({ "entries": entries })).unwrap().book;
    let chat: String = (0..30)
        .map(|i| {
            let who = if i % 2 == 0 { "User" } else { "Narrator" };
            format!("{who}: the {} again.\n", words[(i * 7 + i / 3) % 4])
        })
        .collect();
    let ids: Vec<u64> = book.entries.iter().map(|e| e.id).collect();
    let expect = Expect {
        injected: (1..30)
            .flat_map(|k| {
                ids.iter().map(move |&id| Expected {
                    id,
                    request: Some(k),
                    ..Expected::default()
                })
            })
            .collect(),
        ..Expect::default()
    };
    let s = Scenario {
        name: "every request".into(),
        chat: chat.clone(),
        rules: ProfileName::Sillytavern,
        settings: Settings::default(),
        expect,
        extra: Default::default(),
    };
    let mut missing: Vec<(usize, u64)> = scenario::run(&book, &s)
        .unwrap()
        .failures
        .iter()
        .filter_map(|f| match f {
            Failure::NotInjected { id, request, .. } => Some((*request, *id)),
            _ => None,
        })
        .collect();
    missing.sort();
    let (mut profile, messages) =
        scenario::prepare(&book, ProfileName::Sillytavern, &Settings::default(), &chat).unwrap();
    let mut alone = Vec::new();
    for k in 1..30 {
        let o = profile.request(&messages, k);
        for &id in &ids {
            if o.placed(0, id).is_none() {
                alone.push((k, id));
            }
        }
    }
    alone.sort();
    assert!(!alone.is_empty() && alone.len() < 29 * 4, "{alone:?}");
    assert_eq!(missing, alone);
}
