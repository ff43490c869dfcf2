//! The lint checks under RisuAI's rules (`LintRules::Risu`; docs/lint.md,
//! "Under RisuAI's rules"): each case names the RisuAI 460ecae function
//! whose behaviour the check follows (docs/risu-rules.md), with a book
//! that triggers it and one that must not.

mod common;

use lorebook_engine::chat::Message;
use lorebook_engine::diagnostic::Severity;
use lorebook_engine::lint::{
    self, Finding, LintContext, LintRules, NeverReason, NoEffectReason, Problem,
};
use lorebook_engine::model::{Book, Entry};
use lorebook_engine::risu::{RisuOptions, RisuPreview, RisuSettings};
use lorebook_engine::tokenizer::{Encoding, TokenCounter};

/// An entry as RisuAI books hold them: partial words.
fn e(keys: &[&str], content: &str) -> Entry {
    Entry {
        whole_words: false,
        ..common::entry(0, keys, content)
    }
}

/// A book of `entries`, their ids their positions.
fn book(entries: Vec<Entry>) -> Book {
    let numbered = entries.into_iter().zip(0u64..);
    common::book(numbered.map(|(x, id)| Entry { id, ..x }).collect())
}

fn risu() -> LintRules {
    LintRules::Risu {
        settings: RisuSettings::default(),
    }
}

fn run(b: &Book, rules: LintRules, chat: Option<&[Message]>) -> Vec<Problem> {
    let books = std::slice::from_ref(b);
    let cx = LintContext::new(books, rules, &[]);
    lint::lint(
        &cx,
        books,
        &mut TokenCounter::new(Encoding::Cl100kBase),
        chat,
    )
}

/// The (entry id, severity, finding) of the problems with `code`.
fn found(problems: &[Problem], code: &str) -> Vec<(u64, Severity, Finding)> {
    problems
        .iter()
        .filter(|p| p.code() == code)
        .inspect(|p| assert!(!p.to_string().is_empty()))
        .map(|p| (p.entry.id, p.severity, p.finding.clone()))
        .collect()
}

fn ids(problems: &[Problem], code: &str) -> Vec<u64> {
    found(problems, code).into_iter().map(|f| f.0).collect()
}

fn never(key: &str, reason: NeverReason) -> Finding {
    Finding::KeyNeverMatches {
        key: key.into(),
        reason,
    }
}

/// searchMatch, full-word mode: the text is split on spaces and the key
/// must equal a piece, so a key holding a space never matches. In partial
/// mode (RisuAI's default) spaces are removed from both, and it matches.
#[test]
fn search_match_full_word_keys_with_a_space_never_match() {
    let b = book(vec![e(&["dark lord", "lord"], "The lord.")]);
    let full = LintRules::Risu {
        settings: RisuSettings {
            full_word_matching: true,
            ..RisuSettings::default()
        },
    };
    assert_eq!(
        found(&run(&b, full, None), "key_never_matches"),
        [(
            0,
            Severity::Warning,
            never("dark lord", NeverReason::SpaceInFullWord)
        )]
    );
    assert!(found(&run(&b, risu(), None), "key_never_matches").is_empty());
    // `@@match_full_word` turns it on for one entry, `@@match_partial_word` off.
    let own = book(vec![
        e(&["dark lord"], "@@match_full_word\nThe lord."),
        e(
            &["grey lady"],
            "@@match_full_word\n@@match_partial_word\nThe lady.",
        ),
    ]);
    assert_eq!(ids(&run(&own, risu(), None), "key_never_matches"), [0]);
    // The guide's rules know no such thing.
    assert!(found(&run(&own, LintRules::Studio, None), "key_never_matches").is_empty());
}

/// loadLoreBookV3Prompt splits an entry's key field at every comma: a key
/// holding one (written into that field by the export) is searched as its
/// pieces, never as itself; regex keys too (`{1,3}`). The guide's rules
/// keep such a key whole.
#[test]
fn load_lore_book_v3_prompt_splits_keys_at_commas() {
    let b = book(vec![
        e(&["salt, pepper", "cod"], "Fish."),
        Entry {
            use_regex: true,
            ..e(&["/ca{1,3}t/i"], "Cats.")
        },
    ]);
    assert_eq!(
        found(&run(&b, risu(), None), "key_never_matches"),
        [
            (
                0,
                Severity::Warning,
                never("salt, pepper", NeverReason::SplitAtComma)
            ),
            (
                1,
                Severity::Warning,
                never("/ca{1,3}t/i", NeverReason::SplitAtComma)
            ),
        ]
    );
    assert!(found(&run(&b, LintRules::Studio, None), "key_never_matches").is_empty());
}

/// searchMatch, regex branch at 460ecae: a key without a leading slash
/// ends the search, one without flags is skipped, and the others are
/// compiled with the first "/flags" cut out and the opening slash kept.
#[test]
fn search_match_regex_keys_are_read_as_460ecae_reads_them() {
    let b = book(vec![Entry {
        use_regex: true,
        ..e(
            &["dragon", "/wyrm/", "/drake/i", "/ice/i", "/(/i"],
            "Scales.",
        )
    }]);
    let p = run(&b, risu(), None);
    assert_eq!(
        found(&p, "key_never_matches"),
        [
            (
                0,
                Severity::Warning,
                never("dragon", NeverReason::RegexNoSlash)
            ),
            (
                0,
                Severity::Warning,
                never("/wyrm/", NeverReason::RegexNoFlags)
            ),
        ]
    );
    let rewritten = |key: &str, pattern: &str| {
        (
            0,
            Severity::Warning,
            Finding::RegexRewritten {
                key: key.into(),
                pattern: pattern.into(),
            },
        )
    };
    assert_eq!(
        found(&p, "regex_rewritten"),
        [rewritten("/drake/i", "/drake"), rewritten("/ice/i", "ce/i")]
    );
    let invalid = found(&p, "regex_invalid");
    assert_eq!(invalid.len(), 1, "{invalid:?}");
    assert!(
        matches!(&invalid[0].2, Finding::RegexInvalid { key, plain: false, .. } if key == "/(/i")
    );
    assert_eq!(invalid[0].1, Severity::Error);
    // The guide's rules read them as regular expressions.
    let studio = run(&b, LintRules::Studio, None);
    assert!(found(&studio, "regex_rewritten").is_empty());
}

/// loadLoreBookV3Prompt's decorator handler: RisuAI's own decorators are
/// known, those it parses and ignores have no effect, and arguments are
/// read as it reads them.
#[test]
fn load_lore_book_v3_prompt_decorators_are_checked_as_risu_reads_them() {
    let b = book(vec![e(
        &["storm"],
        "@@exclude_keys calm\n@@is_user_icon x\n@@depth soon\n@@bogus\nRain.",
    )]);
    let p = run(&b, risu(), None);
    assert_eq!(
        found(&p, "decorator_unknown"),
        [(
            0,
            Severity::Warning,
            Finding::DecoratorUnknown {
                name: "bogus".into()
            }
        )]
    );
    assert_eq!(
        found(&p, "decorator_no_effect"),
        [(
            0,
            Severity::Hint,
            Finding::DecoratorNoEffect {
                decorator: "is_user_icon".into(),
                reason: NoEffectReason::RisuIgnores
            }
        )]
    );
    let bad = found(&p, "decorator_bad_argument");
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(
        matches!(&bad[0].2, Finding::DecoratorBadArgument { decorator, .. } if decorator == "depth")
    );
    // Under the guide's rules all four are unknown.
    assert_eq!(
        ids(&run(&b, LintRules::Studio, None), "decorator_unknown"),
        [0, 0, 0, 0]
    );
}

/// loadLoreBookV3Prompt skips an entry whose key is empty before it reads
/// its decorators, unless it is always active: `@@activate` cannot rescue
/// it. A key of spaces is not empty, so there it works.
#[test]
fn load_lore_book_v3_prompt_skips_an_entry_without_a_key_before_activate() {
    let b = book(vec![
        e(&[], "@@activate\nAlways?"),
        e(&[" "], "@@activate\nAlways."),
        Entry {
            constant: true,
            ..e(&[], "@@activate\nAlways too.")
        },
    ]);
    let p = run(&b, risu(), None);
    assert_eq!(ids(&p, "no_keys"), [0]);
    assert_eq!(
        found(&p, "decorator_no_effect"),
        [(
            0,
            Severity::Warning,
            Finding::DecoratorNoEffect {
                decorator: "activate".into(),
                reason: NoEffectReason::NoKey
            }
        )]
    );
    // `@@dont_activate` (what the export writes for a disabled entry)
    // shuts it off: only errors are kept.
    let off = book(vec![e(&[], "@@dont_activate\nNever.")]);
    assert!(run(&off, risu(), None).is_empty());
}

/// searchMatch lowercases and, in partial mode, removes spaces: "Dark
/// Lord" and "darklord" are the same key there, not under the guide's
/// rules; and "lord" is inside "darklord".
#[test]
fn search_match_keys_are_compared_as_risu_folds_them() {
    let b = book(vec![
        e(&["Dark Lord"], "One."),
        e(&["darklord"], "Two."),
        e(&["lord"], "Three."),
    ]);
    let p = run(&b, risu(), None);
    assert_eq!(ids(&p, "duplicate_key"), [0, 1]);
    assert_eq!(ids(&p, "key_contains_other"), [0, 1]);
    let studio = run(&b, LintRules::Studio, None);
    assert!(ids(&studio, "duplicate_key").is_empty());
}

/// searchMatch on the chat: a key found, spaces ignored, in most messages
/// is too common, counted as RisuAI finds it.
#[test]
fn search_match_counts_a_key_in_the_chat_as_risu_finds_it() {
    let chat = common::chat(
        "User: the dark lord comes\nBot: the dark lord waits\nUser: dark lord again\nBot: quiet now",
    );
    let b = book(vec![e(&["darklord"], "The lord.")]);
    let p = run(&b, risu(), Some(&chat));
    assert_eq!(
        found(&p, "key_too_common"),
        [(
            0,
            Severity::Warning,
            Finding::KeyTooCommon {
                key: "darklord".into(),
                reason: lint::CommonReason::Chat {
                    matched: 3,
                    messages: 4
                }
            }
        )]
    );
    // The guide's rules need the words as written.
    assert!(found(&run(&b, LintRules::Studio, Some(&chat)), "key_too_common").is_empty());
}

/// loadLoreBookV3Prompt's passes: an activated entry's body joins the
/// recursive texts when recursion is on (the setting, or `@@recursive`
/// for one entry), and `@@no_recursive_search` keeps an entry out of them.
#[test]
fn load_lore_book_v3_prompt_recursion_follows_each_entry_switch() {
    let pair = |a: &str, b: &str| {
        book(vec![
            e(&["alpha"], &format!("{a}Mentions beta.")),
            e(&["beta"], &format!("{b}Mentions alpha.")),
        ])
    };
    let off = LintRules::Risu {
        settings: RisuSettings {
            recursive_scanning: false,
            ..RisuSettings::default()
        },
    };
    assert_eq!(
        ids(&run(&pair("", ""), risu(), None), "recursion_loop"),
        [0]
    );
    assert!(ids(&run(&pair("", ""), off.clone(), None), "recursion_loop").is_empty());
    let forced = pair("@@recursive\n", "@@recursive\n");
    assert_eq!(ids(&run(&forced, off, None), "recursion_loop"), [0]);
    let deaf = pair("", "@@no_recursive_search\n");
    assert!(ids(&run(&deaf, risu(), None), "recursion_loop").is_empty());
}

/// loadLoreBookV3Prompt's budget: after the passes, by priority (highest
/// first), each entry kept if it still fits. An always-active entry with
/// a higher priority leaves too little for a long one, which is never
/// kept; with a higher `@@priority` it goes first and fits.
#[test]
fn load_lore_book_v3_prompt_budget_cuts_what_higher_priorities_leave_no_room_for() {
    let long = |words: usize| "word ".repeat(words);
    let first = Entry {
        constant: true,
        order: 10,
        priority: 10,
        ..e(&[], &long(600))
    };
    let second = |head: &str| Entry {
        order: 5,
        priority: 5,
        ..e(&["storm"], &format!("{head}{}", long(300)))
    };
    let b = book(vec![first.clone(), second("")]);
    let p = run(&b, risu(), None);
    assert_eq!(ids(&p, "never_survives"), [1]);
    let b = book(vec![first.clone(), second("@@priority 20\n")]);
    assert!(ids(&run(&b, risu(), None), "never_survives").is_empty());
    // A roll can keep the first out: then it does not always take room.
    let rolled = Entry {
        content: format!("@@probability 50\n{}", long(600)),
        ..first
    };
    let b = book(vec![rolled, second("")]);
    assert!(ids(&run(&b, risu(), None), "never_survives").is_empty());
}

/// The same check, proven on RisuAI's own preview: what `never_survives`
/// names is never injected, whatever the chat.
#[test]
fn never_survives_agrees_with_the_risu_preview() {
    let long = |words: usize| "word ".repeat(words);
    let b = book(vec![
        Entry {
            constant: true,
            order: 10,
            priority: 10,
            ..e(&[], &long(600))
        },
        Entry {
            order: 5,
            priority: 5,
            ..e(&["storm"], &long(300))
        },
    ]);
    let p = run(&b, risu(), None);
    assert_eq!(ids(&p, "never_survives"), [1]);
    let chat = common::chat("User: a storm\nBot: the storm");
    let mut preview = RisuPreview::new(&[&b], RisuSettings::default(), RisuOptions::default());
    let mut results = Vec::new();
    preview.log_each(&chat, |r| results.push(r));
    assert!(!results.is_empty());
    for r in &results {
        assert!(r.injected.iter().all(|i| i.id != 1), "{r:?}");
        assert!(r.injected.iter().any(|i| i.id == 0));
    }
    let coverage = lint::coverage_risu(std::slice::from_ref(&b), &results);
    let second = coverage.entries.iter().find(|c| c.id == 1).unwrap();
    assert_eq!(second.cut_by_budget, second.matched);
    assert!(second.matched > 0);
}

/// loadLoreBookV3Prompt reads a decorator the guide knows too by its own
/// rules: `@@priority 1.5` is 1 and `@@probability 150` always passes (no
/// problem, though the guide refuses both), `@@role User` is a line it
/// skips (the guide reads it as user).
#[test]
fn load_lore_book_v3_prompt_reads_shared_decorators_its_own_way() {
    let b = book(vec![e(
        &["storm"],
        "@@priority 1.5\n@@probability 150\n@@role User\nRain.",
    )]);
    let p = run(&b, risu(), None);
    let bad = found(&p, "decorator_bad_argument");
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(
        matches!(&bad[0].2, Finding::DecoratorBadArgument { decorator, .. } if decorator == "role")
    );
    assert_eq!(bad[0].1, Severity::Warning);
    let studio = run(&b, LintRules::Studio, None);
    assert!(found(&studio, "decorator_bad_argument")
        .iter()
        .any(|f| f.1 == Severity::Error));
}

/// A disabled entry, `@@dont_activate` to RisuAI, keeps its key errors.
#[test]
fn a_disabled_entry_keeps_its_key_errors_under_risu_rules() {
    let b = book(vec![Entry {
        enabled: false,
        use_regex: true,
        ..e(&["/(/i"], "Scales.")
    }]);
    let p = run(&b, risu(), None);
    assert_eq!(ids(&p, "regex_invalid"), [0]);
    assert!(p.iter().all(|x| x.severity == Severity::Error), "{p:?}");
}

// parseDecorators / loadLoreBookV3Prompt: the guide's `@@order` is no
// RisuAI decorator, so under RisuAI's rules it has no effect.
#[test]
fn load_lore_book_v3_prompt_ignores_the_guides_order() {
    use lorebook_engine::lint::NoEffectReason;
    let b = book(vec![
        e(&["storm"], "@@order 5\nBody"),
        e(&["rain"], "@@priority 5\nBody"),
    ]);
    let got = found(&run(&b, risu(), None), "decorator_no_effect");
    assert_eq!(got.len(), 1, "{got:?}");
    let (id, severity, finding) = &got[0];
    assert_eq!((*id, *severity), (0, Severity::Warning));
    assert!(matches!(
        finding,
        Finding::DecoratorNoEffect { decorator, reason: NoEffectReason::OtherRules { rules } }
            if decorator == "order" && rules == "studio"
    ));
    assert!(found(&run(&b, LintRules::Studio, None), "decorator_no_effect").is_empty());
}
