//! The matcher's tests (SPEC §5).
use super::*;

/// What one regex key of the workload's shape takes compiled, the
/// figure behind [`MAX_REGEXES_BYTES`]'s comment and docs/your-data.md's
/// Limits table.
#[test]
fn a_workload_regex_key_takes_about_7_kib() {
    let re = compile_regex("name123(s|es)?", "i", MAX_REGEX_BYTES).unwrap();
    let kib = re.memory_usage() as f64 / 1024.0;
    eprintln!("a regex key takes {kib:.1} KiB");
    assert!((5.0..=9.0).contains(&kib), "{kib:.1} KiB");
}

/// Builds a matcher over one key and returns the matched slice of
/// `text`, if any.
fn find(key: &str, flags: KeyFlags, text: &str) -> Option<String> {
    let mut b = MatcherBuilder::default();
    let owner = KeyOwner {
        entry: 0,
        secondary: false,
        position: 0,
    };
    b.add(key, owner, flags)?;
    let (m, errors) = b.build();
    assert!(errors.is_empty(), "{errors:?}");
    m.scan(text)
        .first()
        .map(|h| text[h.start as usize..h.end as usize].to_string())
}

const WHOLE: KeyFlags = KeyFlags {
    case_sensitive: false,
    whole_words: true,
    use_regex: false,
};
const PART: KeyFlags = KeyFlags {
    case_sensitive: false,
    whole_words: false,
    use_regex: false,
};
const CASE: KeyFlags = KeyFlags {
    case_sensitive: true,
    whole_words: true,
    use_regex: false,
};
const REGEX: KeyFlags = KeyFlags {
    case_sensitive: false,
    whole_words: true,
    use_regex: true,
};

#[test]
fn matching_table() {
    // (key, flags, text, expected match)
    let cases: &[(&str, KeyFlags, &str, Option<&str>)] = &[
        // Whole words: the guide's examples.
        ("sol", WHOLE, "o soldado", None),
        ("sol", WHOLE, "o sol nasce", Some("sol")),
        ("fogo", WHOLE, "um fogoso", None),
        ("fogo", PART, "um fogoso", Some("fogo")),
        ("sol", WHOLE, "sol_x", None),
        ("sol", WHOLE, "sol2", None),
        ("sol", WHOLE, "(sol)", Some("sol")),
        // Accents and marks are word characters.
        ("cafe", WHOLE, "cafés", None),
        ("cafe", WHOLE, "cafe\u{301}", None),
        // Edges that are not word characters need no boundary.
        ("#tag", WHOLE, "a#tag here", Some("#tag")),
        ("#tag", WHOLE, "#tags", None),
        ("C++", WHOLE, "I like C++s", Some("C++")),
        ("C++", WHOLE, "ObjC++", None),
        // Spaceless scripts.
        ("東京", WHOLE, "東京タワーに行く", Some("東京")),
        ("タワー", WHOLE, "東京タワーに", Some("タワー")),
        ("Tokyo", WHOLE, "Tokyoに行く", Some("Tokyo")),
        ("กรุงเทพ", WHOLE, "ไปกรุงเทพมหานคร", Some("กรุงเทพ")),
        ("서울", WHOLE, "서울에서", Some("서울")),
        // Case folding, Unicode.
        ("SUN", WHOLE, "the sun rises", Some("sun")),
        ("straße", WHOLE, "STRASSE 5", Some("STRASSE")),
        ("ΣΟΦΙΑ", WHOLE, "σοφια", Some("σοφια")),
        ("émile", WHOLE, "ÉMILE said", Some("ÉMILE")),
        ("s", PART, "ß", None),
        // Case sensitive.
        ("Sun", CASE, "the sun", None),
        ("Sun", CASE, "the Sun", Some("Sun")),
        // Trimmed keys.
        ("  moon ", WHOLE, "a moon", Some("moon")),
        // Regex keys follow their own flags.
        ("/dragons?/i", WHOLE, "DRAGON", Some("DRAGON")),
        ("/dragons?/", WHOLE, "DRAGON", None),
        ("/drag/", WHOLE, "dragon", Some("drag")),
        ("/a.b/s", WHOLE, "a\nb", Some("a\nb")),
        ("/^x$/m", WHOLE, "a\nx\nb", Some("x")),
        ("/a b/x", WHOLE, "ab", Some("ab")),
        ("/sun/gy", WHOLE, "sun", Some("sun")),
        // Other flag letters make it plain text.
        ("/sun/q", WHOLE, "a /sun/q b", Some("/sun/q")),
        ("/usr/bin", WHOLE, "see /usr/bin", Some("/usr/bin")),
        // use_regex: every key is a pattern, case sensitive by default.
        ("dragons?", REGEX, "dragon", Some("dragon")),
        ("dragons?", REGEX, "Dragon", None),
        ("/dragons?/i", REGEX, "Dragon", Some("Dragon")),
        // Overlapping keys are all found.
        ("knight", PART, "a dark knight", Some("knight")),
    ];
    for &(key, flags, text, expected) in cases {
        assert_eq!(
            find(key, flags, text).as_deref(),
            expected,
            "key {key:?} in {text:?} with {flags:?}"
        );
    }
}

#[test]
fn empty_keys_are_ignored() {
    let mut b = MatcherBuilder::default();
    let owner = KeyOwner {
        entry: 0,
        secondary: false,
        position: 0,
    };
    assert_eq!(b.add("   ", owner, WHOLE), None);
    assert_eq!(b.build().0.key_count(), 0);
}

#[test]
fn invalid_regex_is_an_error_and_never_matches() {
    let mut b = MatcherBuilder::default();
    let owner = KeyOwner {
        entry: 3,
        secondary: false,
        position: 1,
    };
    b.add("/(unclosed/", owner, WHOLE);
    b.add("ok", owner, WHOLE);
    let (m, errors) = b.build();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].owner.entry, 3);
    assert!(
        errors[0].message.contains("unclosed"),
        "{}",
        errors[0].message
    );
    let hits = m.scan("(unclosed ok");
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].key, 1);
}

#[test]
fn shared_patterns_report_every_key() {
    let mut b = MatcherBuilder::default();
    for entry in 0..3 {
        let owner = KeyOwner {
            entry,
            secondary: false,
            position: 0,
        };
        b.add("Sun", owner, if entry == 2 { PART } else { WHOLE });
    }
    let (m, _) = b.build();
    let hits = m.scan("sunny SUN");
    let entries: Vec<u32> = hits.iter().map(|h| m.owner(h.key).entry).collect();
    assert_eq!(entries, vec![0, 1, 2]);
    assert_eq!(hits[0].start, 6, "the whole-word key skips 'sunny'");
    assert_eq!(hits[2].start, 0, "the partial key takes the first");
}

#[test]
fn add_from_copies_keys_without_compiling_them_again() {
    let mut b = MatcherBuilder::default();
    let keys = [
        ("Sun", CASE),
        ("moon", WHOLE),
        ("/dragons?/i", WHOLE),
        ("/(bad/", WHOLE),
    ];
    for (i, (key, flags)) in keys.iter().enumerate() {
        let owner = KeyOwner {
            entry: i as u32,
            secondary: i % 2 == 1,
            position: 0,
        };
        b.add(key, owner, *flags);
    }
    let (m, errors) = b.build();
    assert_eq!(errors.len(), 1);
    // Copied in reverse order: new ids, same owners and matches.
    let mut b = MatcherBuilder::default();
    for id in (0..m.key_count() as KeyId).rev() {
        b.add_from(&m, id);
    }
    assert_eq!(b.add_from(&m, 99), None);
    let (copy, errors) = b.build();
    assert!(errors.is_empty(), "an invalid key is reported once");
    let text = "the Sun and the moon and DRAGONS (bad";
    let owners = |m: &Matcher| {
        let mut v: Vec<(KeyOwner, u32, u32)> = m
            .scan(text)
            .iter()
            .map(|h| (m.owner(h.key), h.start, h.end))
            .collect();
        v.sort_by_key(|(o, ..)| o.entry);
        v
    };
    assert_eq!(owners(&copy), owners(&m));
    assert_eq!(owners(&m).len(), 3);
}

#[test]
fn a_text_has_at_most_one_hit_per_key_the_first() {
    // Many keys share the pattern `e` with different edges and cases, in
    // a text full of overlapping and repeated occurrences.
    let mut b = MatcherBuilder::default();
    let flags = [PART, WHOLE, CASE, REGEX];
    let keys = ["e", "E", "ee", "/e/", " e "];
    let mut n = 0;
    for _ in 0..50 {
        for key in keys {
            for f in flags {
                let owner = KeyOwner {
                    entry: n,
                    secondary: false,
                    position: 0,
                };
                n += 1;
                b.add(key, owner, f);
            }
        }
    }
    let (m, _) = b.build();
    let text = "eee E e, ÉE e-e Ee\u{301} e";
    let hits = m.scan(text);
    let mut seen = std::collections::HashSet::new();
    assert!(hits.iter().all(|h| seen.insert(h.key)), "{hits:?}");
    assert!(hits.windows(2).all(|w| w[0].key < w[1].key));
    // Each hit is the key's earliest match: no match of the same key
    // alone starts before it.
    for h in &hits {
        let mut one = MatcherBuilder::default();
        let owner = m.owner(h.key);
        let k = &keys[(owner.entry as usize / flags.len()) % keys.len()];
        one.add(k, owner, flags[owner.entry as usize % flags.len()]);
        let alone = one.build().0.scan(text);
        assert_eq!((alone[0].start, alone[0].end), (h.start, h.end), "{k:?}");
    }
    assert_eq!(
        hits.len(),
        m.key_count() - 50 * flags.len() / 2,
        "all but the whole-word and case-sensitive `ee` keys match"
    );
}

#[test]
fn offsets_map_back_through_folding() {
    let text = "ẞtraße und KELVIN";
    let m = find("kelvin", WHOLE, text);
    assert_eq!(m.as_deref(), Some("KELVIN"));
    assert_eq!(
        find("\u{212A}elvin", WHOLE, "kelvin").as_deref(),
        Some("kelvin")
    );
}

/// A matcher over `keys`, each its own entry.
fn matcher(keys: &[(&str, KeyFlags)]) -> Matcher {
    let mut b = MatcherBuilder::default();
    for (i, (key, flags)) in keys.iter().enumerate() {
        let owner = KeyOwner {
            entry: i as u32,
            secondary: false,
            position: 0,
        };
        b.add(key, owner, *flags);
    }
    let (m, errors) = b.build();
    assert!(errors.is_empty(), "{errors:?}");
    m
}

/// (key, start) of each hit, `None` for a key given up on.
fn decided(hits: &[Hit]) -> Vec<(KeyId, Option<u32>)> {
    hits.iter()
        .map(|h| (h.key, (!h.gave_up()).then_some(h.start)))
        .collect()
}

/// Each overlapping match the search reports costs one unit: a scan
/// with exactly the units it needs decides every key, one unit less
/// and the key still undecided is given up on (the decided one kept).
#[test]
fn the_scan_budget_just_under_and_just_over() {
    let m = matcher(&[("a", PART), ("b", PART)]);
    // Matches reported: a@0, a@1, a@2, b@3; the scan stops there.
    let text = "aaab";
    assert_eq!(
        decided(&m.scan_within(text, 4)),
        [(0, Some(0)), (1, Some(3))]
    );
    assert_eq!(decided(&m.scan_within(text, 3)), [(0, Some(0)), (1, None)]);
    assert_eq!(decided(&m.scan_within(text, 0)), [(0, None), (1, None)]);
    // A key that never matches is not given up on when the search
    // reaches the end within the budget.
    let m = matcher(&[("a", PART), ("z", PART)]);
    assert_eq!(decided(&m.scan_within(text, 3)), [(0, Some(0))]);
    assert!(m
        .scan_within(text, 2)
        .iter()
        .any(|h| h.key == 1 && h.gave_up()));
}

/// The issue-17 shape: `a`, `aa`, … `a`×2,000 over two megabytes of
/// `a`. Partial keys all match early and the search stops there;
/// whole-word keys never match in one long word, and the scan gives up
/// on them once its budget is spent instead of reporting 4 × 10^9
/// overlapping matches.
#[test]
fn overlapping_keys_over_a_long_run_are_bounded() {
    let keys: Vec<String> = (1..=2000).map(|n| "a".repeat(n)).collect();
    let text = "a".repeat(2 << 20);
    let part: Vec<(&str, KeyFlags)> = keys.iter().map(|k| (k.as_str(), PART)).collect();
    let hits = matcher(&part).scan(&text);
    assert_eq!(hits.len(), 2000);
    assert!(hits.iter().all(|h| h.start == 0 && !h.gave_up()));
    let mut whole: Vec<(&str, KeyFlags)> = keys.iter().map(|k| (k.as_str(), WHOLE)).collect();
    whole.push(("b", PART));
    let started = std::time::Instant::now();
    let hits = matcher(&whole).scan(&text);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(hits.len(), 2001);
    assert!(hits.iter().all(Hit::gave_up));
    // A whole word at the end is still found when the text is short.
    let hits = matcher(&whole).scan("aaa aa");
    assert_eq!(decided(&hits), [(1, Some(4)), (2, Some(0))]);
}

/// A regex key with a Unicode word boundary costs its text's length
/// times `REGEX_SLOW_UNITS_PER_BYTE` on a text that is not ASCII (the
/// PikeVM), an eighth of a unit per byte on ASCII (the lazy DFA), as
/// does a key without one.
#[test]
fn unicode_word_boundary_keys_cost_more_past_ascii() {
    let m = matcher(&[("/\\bдракон\\w*/i", PART), ("/дракон/", PART)]);
    let text = "Привет, мир! Драконы летят.";
    let len = text.len() as u64;
    let slow = len * REGEX_SLOW_UNITS_PER_BYTE;
    let fast = len.div_ceil(REGEX_FAST_BYTES_PER_UNIT);
    // The second key is case-sensitive and does not match `Драконы`.
    assert_eq!(decided(&m.scan_within(text, slow + fast)), [(0, Some(22))]);
    assert_eq!(
        decided(&m.scan_within(text, slow + fast - 1)),
        [(0, Some(22)), (1, None)]
    );
    let hits = m.scan_within(text, slow - 1);
    assert!(hits[0].gave_up(), "{hits:?}");
    let ascii = "the dragon flies";
    let hits = matcher(&[("/\\bdragon\\b/", PART)]).scan_within(
        ascii,
        (ascii.len() as u64).div_ceil(REGEX_FAST_BYTES_PER_UNIT),
    );
    assert_eq!(decided(&hits), [(0, Some(4))]);
}

const OWNER: KeyOwner = KeyOwner {
    entry: 0,
    secondary: false,
    position: 0,
};

/// The first error of a matcher over `keys` built on top of `before`
/// bytes of earlier regex keys, and the hits of `text`.
fn build_after(before: usize, keys: &[&str], text: &str) -> (Vec<String>, usize) {
    let mut b = MatcherBuilder {
        regex_bytes: before,
        ..MatcherBuilder::default()
    };
    for k in keys {
        b.add(k, OWNER, PART);
    }
    let (m, errors) = b.build();
    (
        errors.into_iter().map(|e| e.message).collect(),
        m.scan(text).len(),
    )
}

/// One regex key's compiled size is capped at `MAX_REGEX_BYTES`: the
/// largest repetition that fits compiles and matches, one more is
/// refused as too large and never matches.
#[test]
fn a_regex_key_just_under_and_just_over_its_size_cap() {
    // About 32 bytes per repetition: the cap falls near 131,000.
    let pattern = |n: usize| format!("b|a{{{n}}}");
    let fits = |n: usize| compile_regex(&pattern(n), "", MAX_REGEX_BYTES).is_ok();
    let (mut lo, mut hi) = (128_000, 134_000);
    assert!(fits(lo), "{lo} repetitions fit in MAX_REGEX_BYTES");
    assert!(!fits(hi), "{hi} repetitions do not");
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if fits(mid) {
            lo = mid
        } else {
            hi = mid
        }
    }
    let key = |n| format!("/{}/", pattern(n));
    // The text is short: a search costs its length times the states.
    let (errors, hits) = build_after(0, &[&key(lo)], "b");
    assert_eq!((errors.len(), hits), (0, 1), "just under: {errors:?}");
    let (errors, hits) = build_after(0, &[&key(hi)], "b");
    assert_eq!(errors, ["the pattern is too large"], "just over");
    assert_eq!(hits, 0);
}

/// All the regex keys of a matcher share `MAX_REGEXES_BYTES`: a key
/// that fits exactly in what is left compiles, one byte less and it is
/// refused with a message saying why, and the keys after it still
/// match.
#[test]
fn regex_keys_just_under_and_just_over_their_shared_budget() {
    let size = compile_regex("names?", "i", MAX_REGEX_BYTES)
        .unwrap()
        .memory_usage();
    let keys = ["/names?/i", "plain"];
    let text = "Names and plain words";
    let (errors, hits) = build_after(MAX_REGEXES_BYTES - size, &keys, text);
    assert_eq!((errors.len(), hits), (0, 2), "fits exactly: {errors:?}");
    let (errors, hits) = build_after(MAX_REGEXES_BYTES - size + 1, &keys, text);
    assert_eq!(
        errors,
        ["the regex keys before it take the 256 MiB all regex keys may use"],
        "one byte short"
    );
    assert_eq!(hits, 1, "the plain key still matches");
    // A key too large for what is left is refused by the budget too,
    // before it is compiled past it.
    let (errors, _) = build_after(MAX_REGEXES_BYTES - 100, &["/a{1000}/"], text);
    assert_eq!(
        errors,
        ["the regex keys before it take the 256 MiB all regex keys may use"]
    );
}

/// Copying keys into a new matcher counts their size again, so an
/// overlay rebuilt from the big matcher stays inside the budget too.
#[test]
fn copied_regex_keys_count_against_the_budget() {
    let mut b = MatcherBuilder::default();
    b.add("/names?/i", OWNER, PART);
    let size = b.regex_bytes;
    assert!(size > 0);
    let (m, _) = b.build();
    let mut copy = MatcherBuilder::default();
    copy.add_from(&m, 0);
    assert_eq!(copy.regex_bytes, size);
}
