//! Comparing books (`compare.rs`) and find and replace (`replace.rs`).

use lorebook_engine::compare::{compare, match_entries};
use lorebook_engine::model::{Book, Entry};
use lorebook_engine::replace::{apply, Field, Finder, Query};

fn book(entries: &[(&str, &[&str], &str)]) -> Book {
    let mut b = Book::default();
    for (name, keys, content) in entries {
        b.add_entry(Entry {
            comment: name.to_string(),
            keys: keys.iter().map(|k| k.to_string()).collect(),
            content: content.to_string(),
            ..Entry::default()
        });
    }
    b
}

#[test]
fn a_book_compared_with_itself_is_the_same() {
    let a = book(&[
        ("Harbor", &["harbor"], "Old."),
        ("Gull", &["gull"], "Birds."),
    ]);
    let c = compare(&a, &a);
    assert!(c.is_same());
    assert_eq!(c.same, 2);
}

#[test]
fn entries_match_by_id_then_name_then_keys_and_the_differing_fields_are_named() {
    let a = book(&[
        ("Harbor", &["harbor"], "Old."),
        ("Gull", &["gull"], "Birds."),
        ("Tavern", &["tavern"], "Warm."),
        ("Lamp", &["lamp"], "Lit."),
    ]);
    let mut b = book(&[("Harbor", &["harbor", "port"], "Old.")]);
    // Gull under another id (same name), the tavern renamed (same keys).
    let gull = b.add_entry(Entry {
        comment: "Gull".into(),
        keys: vec!["gull".into()],
        content: "Birds.".into(),
        ..Entry::default()
    });
    b.entries.last_mut().unwrap().id = gull + 10;
    let t = b.add_entry(Entry {
        comment: "The Tavern".into(),
        keys: vec!["Tavern".into()],
        content: "Warm.".into(),
        ..Entry::default()
    });
    b.entries.last_mut().unwrap().id = t + 20;
    b.add_entry(Entry {
        comment: "Reef".into(),
        keys: vec!["reef".into()],
        ..Entry::default()
    });
    let pairs = match_entries(&a, &b);
    let how: Vec<&str> = pairs.iter().map(|p| p.2).collect();
    assert_eq!(how, ["id", "name", "keys"], "{pairs:?}");
    let c = compare(&a, &b);
    assert_eq!(
        c.only_a.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
        ["Lamp"]
    );
    assert_eq!(
        c.only_b.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
        ["Reef"]
    );
    let harbor = c.different.iter().find(|p| p.name == "Harbor").unwrap();
    assert_eq!(harbor.fields.len(), 1);
    assert_eq!(harbor.fields[0].field, "keys");
    let tavern = c.different.iter().find(|p| p.by == "keys").unwrap();
    let named: Vec<&str> = tavern.fields.iter().map(|f| f.field.as_str()).collect();
    assert_eq!(named, ["comment", "keys"]);
    assert_eq!(c.same, 1, "the gull, matched by name, is the same");
}

fn finder(pattern: &str, regex: bool, fields: &[Field]) -> Finder {
    Finder::new(&Query {
        pattern: pattern.into(),
        regex,
        case_sensitive: false,
        whole_word: false,
        fields: fields.to_vec(),
    })
    .unwrap()
}

#[test]
fn find_lists_each_match_with_context_and_replace_changes_only_the_chosen() {
    let mut b = book(&[
        (
            "Harbor master",
            &["harbor", "Harbor town"],
            "The harbor is old. HARBOR!",
        ),
        ("Gull", &["gull"], "Gulls over the harbor."),
    ]);
    let f = finder("harbor", false, &[]);
    let matches = f.find(&b, None);
    assert_eq!(matches.len(), 6);
    assert!(matches
        .iter()
        .all(|m| m.matched.eq_ignore_ascii_case("harbor")));
    assert_eq!(matches[0].field, Field::Name);
    assert_eq!(matches[3].context, "The harbor is old. HARBOR!");
    // Only the content matches of the first entry.
    let chosen: Vec<_> = matches
        .iter()
        .filter(|m| m.field == Field::Content && m.id == b.entries[0].id)
        .cloned()
        .collect();
    let edits = f.plan(&b, "port", Some(&chosen));
    assert_eq!(edits.len(), 1);
    assert_eq!(edits[0].after, "The port is old. port!");
    apply(&mut b, &edits);
    assert_eq!(b.entries[0].comment, "Harbor master");
    assert_eq!(b.entries[0].content, "The port is old. port!");
    assert_eq!(b.entries[1].content, "Gulls over the harbor.");
}

#[test]
fn regex_captures_whole_words_and_fields() {
    let mut b = book(&[(
        "Orla Venn",
        &["Orla", "Venn"],
        "Orla Venn keeps the light. Orlaith is another.",
    )]);
    let f = Finder::new(&Query {
        pattern: r"(\w+) Venn".into(),
        regex: true,
        case_sensitive: true,
        whole_word: false,
        fields: vec![Field::Name, Field::Content],
    })
    .unwrap();
    let edits = f.plan(&b, "Venn, $1", None);
    apply(&mut b, &edits);
    assert_eq!(b.entries[0].comment, "Venn, Orla");
    assert!(b.entries[0].content.starts_with("Venn, Orla keeps"));
    assert_eq!(
        b.entries[0].keys,
        ["Orla", "Venn"],
        "keys were not searched"
    );
    // Whole words: "Orlaith" is left alone; plain mode takes `$1` literally.
    let f = Finder::new(&Query {
        pattern: "Orla".into(),
        regex: false,
        case_sensitive: false,
        whole_word: true,
        fields: vec![Field::Keys, Field::Content],
    })
    .unwrap();
    let edits = f.plan(&b, "$1", None);
    apply(&mut b, &edits);
    assert_eq!(b.entries[0].keys, ["$1", "Venn"]);
    assert!(
        b.entries[0].content.contains("Venn, $1 keeps") && b.entries[0].content.contains("Orlaith")
    );
    // A key replaced by nothing is removed.
    let edits = finder(r"^\$1$", true, &[Field::Keys]).plan(&b, "", None);
    apply(&mut b, &edits);
    assert_eq!(b.entries[0].keys, ["Venn"]);
}

#[test]
fn bad_patterns_are_clear_errors() {
    for (pattern, regex) in [("", false), ("(unclosed", true), ("a{99999999}", true)] {
        let e = Finder::new(&Query {
            pattern: pattern.into(),
            regex,
            case_sensitive: false,
            whole_word: false,
            fields: vec![],
        })
        .err()
        .unwrap_or_else(|| panic!("{pattern} should be refused"));
        assert!(!e.is_empty());
    }
}
