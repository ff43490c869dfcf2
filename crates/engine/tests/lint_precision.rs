//! Issue 44: lint that authors keep switched on. Quiet on how good books
//! are written (keys shared by facets of one subject, entries naming each
//! other, budgets the author never gave), loud where an entry does not
//! work as written; and, on every corpus book, the number of warnings and
//! errors per code pinned, each kind that remains said why it is real.

use std::collections::BTreeMap;

use lorebook_engine::diagnostic::Severity;
use lorebook_engine::formats;
use lorebook_engine::lint::{
    self, Coverage, EntryCoverage, Finding, LintContext, LintRules, Problem,
};
use lorebook_engine::model::Book;
use lorebook_engine::risu::RisuSettings;
use lorebook_engine::sillytavern::StSettings;
use lorebook_engine::tokenizer::{Encoding, TokenCounter};
use serde_json::{json, Value};

fn st() -> LintRules {
    LintRules::SillyTavern {
        settings: StSettings::default(),
        max_context: 8192,
        macros: Default::default(),
    }
}

fn world(entries: Value) -> Book {
    formats::import_value(json!({ "entries": entries }))
        .unwrap()
        .book
}

fn lint_with(books: &[Book], rules: LintRules, assumed: bool) -> Vec<Problem> {
    let mut cx = LintContext::new(books, rules, &[true]);
    cx.budget_assumed = assumed;
    lint::lint(
        &cx,
        books,
        &mut TokenCounter::new(Encoding::O200kBase),
        None,
    )
}

fn of<'p>(p: &'p [Problem], code: &str) -> Vec<&'p Problem> {
    p.iter().filter(|x| x.code() == code).collect()
}

fn st_entry(uid: u64, key: &str, content: &str, extra: Value) -> Value {
    let mut e = json!({"uid": uid, "key": [key], "keysecondary": [], "content": content,
        "comment": key, "position": 0, "order": 100, "constant": false, "selective": false});
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        e[k] = v;
    }
    e
}

/// `budget` (book.rs): against the budget SillyTavern's defaults give, an
/// entry over it is a warning that says the budget was assumed; against
/// the author's own settings, an error.
#[test]
fn a_budget_the_author_did_not_give_makes_a_warning_that_says_so() {
    let big = "word ".repeat(4000);
    let b = [world(json!({"0": st_entry(0, "big", &big, json!({}))}))];
    let assumed = lint_with(&b, st(), true);
    let over = of(&assumed, "entry_over_budget");
    assert_eq!(over.len(), 1);
    assert_eq!(over[0].severity, Severity::Warning);
    assert!(matches!(
        over[0].finding,
        Finding::EntryOverBudget { assumed: true, .. }
    ));
    assert!(over[0].to_string().contains("assumed"), "{}", over[0]);
    let given = lint_with(&b, st(), false);
    assert_eq!(of(&given, "entry_over_budget")[0].severity, Severity::Error);
    // RisuAI's default budget, likewise.
    let risu = LintRules::Risu {
        settings: RisuSettings::default(),
    };
    let risu_assumed = lint_with(&b, risu, true);
    for p in of(&risu_assumed, "entry_over_budget") {
        assert_eq!(p.severity, Severity::Warning);
    }
}

/// `recursion::check`: a loop is a warning only where every entry of it
/// waits for recursion (`delayUntilRecursion`) and nothing outside names
/// any: none of them can ever activate. Otherwise a hint.
#[test]
fn a_recursion_loop_is_a_warning_only_when_none_of_it_can_activate() {
    let delayed = json!({"delayUntilRecursion": true});
    let dead = [world(json!({
        "0": st_entry(0, "keeper", "The keeper tends the lamp.", delayed.clone()),
        "1": st_entry(1, "lamp", "The lamp needs its keeper.", delayed.clone()),
    }))];
    let p = lint_with(&dead, st(), false);
    let loops = of(&p, "recursion_loop");
    assert_eq!(loops.len(), 1, "{p:#?}");
    assert_eq!(loops[0].severity, Severity::Warning);
    assert!(matches!(
        loops[0].finding,
        Finding::RecursionLoop { dead: true, .. }
    ));
    // One of them activates from the chat: the loop changes nothing.
    let live = [world(json!({
        "0": st_entry(0, "keeper", "The keeper tends the lamp.", json!({})),
        "1": st_entry(1, "lamp", "The lamp needs its keeper.", delayed.clone()),
    }))];
    let p = lint_with(&live, st(), false);
    assert_eq!(of(&p, "recursion_loop")[0].severity, Severity::Hint);
    // Named from outside the loop: reachable, a hint too.
    let entered = [world(json!({
        "0": st_entry(0, "keeper", "The keeper tends the lamp.", delayed.clone()),
        "1": st_entry(1, "lamp", "The lamp needs its keeper.", delayed),
        "2": st_entry(2, "harbor", "The harbor has a keeper.", json!({})),
    }))];
    let p = lint_with(&entered, st(), false);
    assert_eq!(of(&p, "recursion_loop")[0].severity, Severity::Hint);
}

/// `refine_with_coverage`: with a chat's log, a shared key on an entry the
/// budget cut every time it activated is a warning with that evidence; an
/// entry kept at least once stays a hint.
#[test]
fn the_chat_log_turns_a_shared_key_into_a_warning_when_the_budget_always_cuts_it() {
    let b = [world(json!({
        "0": st_entry(0, "zhu", "Zhu Yuan leads the squad.", json!({})),
        "1": st_entry(1, "zhu", "Zhu Yuan's friends.", json!({})),
    }))];
    let mut p = lint_with(&b, st(), false);
    assert!(of(&p, "duplicate_key")
        .iter()
        .all(|x| x.severity == Severity::Hint));
    let cov = |book: usize, id: u64, matched: usize, cut: usize| EntryCoverage {
        book,
        id,
        matched,
        injected: matched - cut,
        cut_by_budget: cut,
        lost_roll: 0,
    };
    let ids: Vec<u64> = b[0].entries.iter().map(|e| e.id).collect();
    let coverage = Coverage {
        requests: 4,
        entries: vec![cov(0, ids[0], 4, 1), cov(0, ids[1], 3, 3)],
        ..Coverage::default()
    };
    lint::refine_with_coverage(&mut p, &coverage);
    let dups = of(&p, "duplicate_key");
    let second = dups.iter().find(|x| x.entry.id == ids[1]).unwrap();
    assert_eq!(second.severity, Severity::Warning);
    assert!(matches!(
        &second.finding,
        Finding::DuplicateKey {
            effect: Some(lint::DuplicateEffect::AlwaysCut { requests: 3 }),
            ..
        }
    ));
    let first = dups.iter().find(|x| x.entry.id == ids[0]).unwrap();
    assert_eq!(first.severity, Severity::Hint);
}

/// Warnings and errors per code of a corpus book, as `lorebook lint`
/// gives them without settings (the budget assumed).
fn counts(path: &str, rules: LintRules) -> Option<BTreeMap<String, usize>> {
    let root = lorebook_test_support::corpus_root()?;
    let bytes = std::fs::read(root.join(path)).ok()?;
    let imported = formats::import(&bytes).ok()?;
    let from_st = imported.format == formats::Format::SillyTavern;
    let books = [imported.book];
    let mut cx = LintContext::new(&books, rules, &[from_st]);
    cx.budget_assumed = !cx.rules.is_studio();
    let p = lint::lint(
        &cx,
        &books,
        &mut TokenCounter::new(Encoding::O200kBase),
        None,
    );
    let mut out = BTreeMap::new();
    for x in p.iter().filter(|x| x.severity.is_problem()) {
        *out.entry(format!("{:?} {}", x.severity, x.code()).to_lowercase())
            .or_insert(0) += 1;
    }
    Some(out)
}

fn pinned(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|(k, n)| (k.to_string(), *n)).collect()
}

/// Every warning and error left on the corpus books under SillyTavern's
/// rules, each kind said why it is a real problem there.
#[test]
fn the_corpus_sillytavern_books_keep_only_real_problems() {
    let Some(zzz) = counts("sillytavern/Complete_ZZZ_Lorebook.json", st()) else {
        eprintln!("skipped: the shared corpus is not there");
        return;
    };
    assert_eq!(
        zzz,
        pinned(&[
            // Two entries (330, 336) with the very same body: one of them
            // is a copy the author forgot.
            ("warning content_duplicate", 2),
            // "Mr. Z" keys on "Z" with whole words and case off (the
            // defaults): every "z" in the chat (zone, lazy) activates it.
            ("warning key_too_common", 1),
        ])
    );
    // A book for a large context: its long entries are over the budget
    // SillyTavern's defaults give, which the lint says it assumed
    // (warnings, not errors); eight enabled entries have no key and are
    // not constant, so they never activate.
    let dsh = counts("sillytavern/dsh_hsr_worldbook_zh.json", st()).unwrap();
    assert_eq!(
        dsh,
        pinned(&[
            ("warning constants_over_budget", 1),
            ("warning entry_over_budget", 15),
            ("warning no_keys", 8),
        ])
    );
    // Facets of one subject sharing keys, entries naming each other:
    // nothing left to warn about.
    for clean in [
        "sillytavern/Eldoria.json",
        "sillytavern/Toaru.json",
        "sillytavern/edrum_worldinfo_v10_en.json",
        "sillytavern/edrum_worldinfo_v7_ru.json",
    ] {
        assert_eq!(counts(clean, st()).unwrap(), pinned(&[]), "{clean}");
    }
}

/// The RisuAI, character-card and NovelAI books of the corpus: what is
/// left is real, each said why.
#[test]
fn the_corpus_risu_card_and_novelai_books_keep_only_real_problems() {
    let risu = LintRules::Risu {
        settings: RisuSettings::default(),
    };
    let Some(module) = counts("risu/rpg_module_cha1_lorebook_export.json", risu) else {
        eprintln!("skipped: the shared corpus is not there");
        return;
    };
    // Two always-on entries of 3,412 and 2,872 tokens against RisuAI's
    // default budget of 800 (assumed, and said so): warnings, not errors.
    assert_eq!(
        module,
        pinned(&[
            ("warning constants_over_budget", 1),
            ("warning entry_over_budget", 2),
        ])
    );
    // A card keyed on "me": one of the commonest words, so its two
    // entries activate on almost every message.
    assert_eq!(
        counts("ccv2/contest_Assistant_Sakana.png", st()).unwrap(),
        pinned(&[("warning key_too_common", 2)])
    );
    for clean in [
        "ccv2/nightreign_master_complete.json",
        "ccv3/default_Seraphina.png",
    ] {
        assert_eq!(counts(clean, st()).unwrap(), pinned(&[]), "{clean}");
    }
    // NovelAI's starter keys entries on "1", "2" and "3" with whole words
    // off: any digit anywhere activates them.
    assert_eq!(
        counts("novelai/starter.lorebook", LintRules::Studio).unwrap(),
        pinned(&[("warning key_too_common", 3)])
    );
    // An enabled entry with no key that is not constant never activates.
    assert_eq!(
        counts("novelai/test_lorebook.lorebook", LintRules::Studio).unwrap(),
        pinned(&[("warning no_keys", 1)])
    );
}
