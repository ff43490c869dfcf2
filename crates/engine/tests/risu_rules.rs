//! RisuAI 460ecae's lorebook rules made executable (docs/risu-rules.md): one
//! case per rule, each test named after the RisuAI function whose
//! behaviour it pins down (`loadLoreBookV3Prompt`, its `searchMatch`
//! closure, the card library's `parseDecorators`).
//!
//! `check(case, expected)`: the case is JSON with `entries` (RisuAI
//! `loreBook` records, shortened: `name` is `comment`, `key`, `content`,
//! `order` is `insertorder` (default 100), `always`, `sel` + `sk`, `re`,
//! `mode`, `id`, `folder`), `msgs` (the chat messages, oldest first), and
//! optionally `settings` (RisuAI's names, as `--risu-settings` reads them),
//! `show` (`"pos"`: each entry as `name@position:depth:role`; `"body"`:
//! `name=body`) and `log` (every request, one line each, with the state
//! carried). The book is read through the RisuAI importer, so each case
//! also checks that an import keeps RisuAI's meaning. The result is the
//! final list RisuAI returns, names joined by `, `; `-` when empty.
//! Budget cases use texts of `x x x …`, one token per `x` (cl100k).

use lorebook_engine::chat::{Message, Speaker};
use lorebook_engine::formats;
use lorebook_engine::risu::{RisuOptions, RisuPreview, RisuResult, RisuSettings, RisuState};
use serde_json::{json, Map, Value};

fn record(short: &Value) -> Value {
    let o = short.as_object().expect("an entry object");
    let mut r = Map::new();
    let s = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    r.insert("comment".into(), json!(s("name")));
    r.insert("key".into(), json!(s("key")));
    r.insert("secondkey".into(), json!(s("sk")));
    r.insert("content".into(), json!(s("content")));
    r.insert(
        "insertorder".into(),
        o.get("order").cloned().unwrap_or(json!(100)),
    );
    r.insert(
        "alwaysActive".into(),
        json!(o.get("always").and_then(Value::as_bool).unwrap_or(false)),
    );
    r.insert(
        "selective".into(),
        json!(o.get("sel").and_then(Value::as_bool).unwrap_or(false)),
    );
    r.insert(
        "useRegex".into(),
        json!(o.get("re").and_then(Value::as_bool).unwrap_or(false)),
    );
    r.insert(
        "mode".into(),
        json!(o.get("mode").and_then(Value::as_str).unwrap_or("normal")),
    );
    for k in ["id", "folder"] {
        if let Some(v) = o.get(k) {
            r.insert(k.into(), v.clone());
        }
    }
    for k in o.keys() {
        assert!(
            [
                "name", "key", "sk", "content", "order", "always", "sel", "re", "mode", "id",
                "folder"
            ]
            .contains(&k.as_str()),
            "unknown entry field {k}"
        );
    }
    r.insert("bookVersion".into(), json!(2));
    Value::Object(r)
}

fn render(r: &RisuResult, show: &str) -> String {
    if let Some(f) = &r.failure {
        return format!("fails: {}", f.comment);
    }
    if r.injected.is_empty() {
        return "-".into();
    }
    r.injected
        .iter()
        .map(|i| match show {
            "pos" => format!(
                "{}@{}:{}:{}",
                i.comment,
                i.position,
                i.depth.map_or(String::new(), |d| d.to_string()),
                i.role
            ),
            "body" => format!("{}={}", i.comment, i.content),
            "sent" => format!("{}={}", i.comment, i.sent.as_deref().unwrap_or(&i.content)),
            "tokens" => format!("{}:{}", i.comment, i.tokens),
            _ => i.comment.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn run(case: &Value) -> String {
    for k in case.as_object().unwrap().keys() {
        assert!(
            ["entries", "msgs", "settings", "show", "log", "seed"].contains(&k.as_str()),
            "unknown case field {k}"
        );
    }
    let data: Vec<Value> = case["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(record)
        .collect();
    let book = formats::import_value(json!({"type": "risu", "ver": 1, "data": data}))
        .expect("a RisuAI book")
        .book;
    let settings = match case.get("settings") {
        Some(s) => RisuSettings::from_json(&s.to_string()).expect("settings"),
        None => RisuSettings::default(),
    };
    let options = RisuOptions {
        seed: case.get("seed").and_then(Value::as_u64).unwrap_or(0),
        ..RisuOptions::default()
    };
    let msgs: Vec<Message> = case["msgs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| Message {
            role: Speaker::User,
            name: None,
            text: m.as_str().unwrap().to_string(),
        })
        .collect();
    let show = case.get("show").and_then(Value::as_str).unwrap_or("");
    let mut p = RisuPreview::new(&[&book], settings, options);
    if case.get("log").and_then(Value::as_bool) == Some(true) {
        let mut lines = Vec::new();
        p.log_each(&msgs, |r| {
            lines.push(format!("{}: {}", r.request, render(&r, show)))
        });
        return lines.join(" | ");
    }
    let r = p.request(&msgs, msgs.len(), &mut RisuState::default());
    // Every entry is either in the result or dropped with a reason, once.
    if r.failure.is_none() {
        let mut seen: Vec<u64> = r
            .injected
            .iter()
            .map(|i| i.id)
            .chain(r.dropped.iter().map(|d| d.id))
            .collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(
            seen.len(),
            book.entries.len(),
            "each entry accounted for once"
        );
    }
    render(&r, show)
}

#[track_caller]
fn check(case: Value, expected: &str) {
    assert_eq!(run(&case), expected, "case {case}");
}

fn e(name: &str, key: &str, content: &str) -> Value {
    json!({"name": name, "key": key, "content": content})
}

fn always(name: &str, content: &str) -> Value {
    json!({"name": name, "key": "", "content": content, "always": true})
}

fn with(mut v: Value, extra: Value) -> Value {
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

// A. Matching.

#[test]
fn search_match_partial_mode_ignores_case_and_spaces() {
    check(
        json!({"entries": [e("A", "Dark Lord", "x")], "msgs": ["the DARKLORD rises"]}),
        "A",
    );
    check(
        json!({"entries": [e("A", "cat", "x")], "msgs": ["concatenate"]}),
        "A",
    );
}

#[test]
fn search_match_full_word_setting() {
    let full = json!({"loreSettings": {"fullWordMatching": true}});
    let c = |msg: &str| json!({"entries": [e("A", "cat", "x")], "msgs": [msg], "settings": full});
    check(c("concatenate"), "-");
    check(c("a cat sat"), "A");
    check(c("a cat, sat"), "-");
    check(c("cat\nsat"), "-");
    check(
        json!({"entries": [e("A", "dark lord", "x")], "msgs": ["the dark lord"], "settings": full}),
        "-",
    );
}

#[test]
fn load_lore_book_v3_prompt_match_word_decorators() {
    let full = json!({"loreSettings": {"fullWordMatching": true}});
    check(
        json!({"entries": [e("A", "cat", "@@match_partial_word\nx")], "msgs": ["concatenate"], "settings": full}),
        "A",
    );
    check(
        json!({"entries": [e("A", "cat", "@@match_full_word\nx")], "msgs": ["concatenate"]}),
        "-",
    );
}

#[test]
fn search_match_strips_cbs_comments() {
    let c = |msg: &str| json!({"entries": [e("A", "secret", "x")], "msgs": [msg]});
    check(c("hello {{// secret}} world"), "-");
    check(c("{{comment:secret}}"), "-");
    check(c("{{// x}} secret"), "A");
}

#[test]
fn search_match_scan_window_counts_like_a_javascript_slice() {
    let depth2 = json!({"loreBookDepth": 2});
    check(
        json!({"entries": [e("A", "dragon", "x")], "msgs": ["dragon", "b", "c", "d"], "settings": depth2}),
        "-",
    );
    check(
        json!({"entries": [e("A", "dragon", "x")], "msgs": ["a", "b", "dragon", "d"], "settings": depth2}),
        "A",
    );
    // Depth 5 over 3 messages scans only the last 2; over 4, the last 1.
    check(
        json!({"entries": [e("A", "dragon", "x")], "msgs": ["dragon", "b", "c"]}),
        "-",
    );
    check(
        json!({"entries": [e("A", "dragon", "x")], "msgs": ["dragon", "b"]}),
        "A",
    );
    check(
        json!({"entries": [e("A", "dragon", "x")], "msgs": ["a", "b", "dragon", "d"]}),
        "-",
    );
}

#[test]
fn load_lore_book_v3_prompt_scan_depth_decorator() {
    check(
        json!({"entries": [e("B", "dragon", "@@scan_depth 0\nx")], "msgs": ["dragon"]}),
        "-",
    );
    // Recursive texts are not limited by the scan depth.
    check(
        json!({"entries": [always("A0", "dragon"), e("B", "dragon", "@@scan_depth 0\nx")], "msgs": ["dragon"]}),
        "B, A0",
    );
    let mut msgs = vec![json!("dragon")];
    msgs.extend((0..19).map(|i| json!(format!("m{i}"))));
    check(
        json!({"entries": [e("A", "dragon", "@@scan_depth abc\nx")], "msgs": msgs}),
        "A",
    );
}

#[test]
fn search_match_selective_keys_in_different_messages() {
    let sel = with(e("A", "a", "x"), json!({"sel": true, "sk": "b"}));
    check(json!({"entries": [sel], "msgs": ["a"]}), "-");
    check(json!({"entries": [sel], "msgs": ["a", "b"]}), "A");
    let empty = with(e("A", "a", "x"), json!({"sel": true, "sk": ""}));
    check(json!({"entries": [empty], "msgs": ["a"]}), "A");
    let unsel = with(e("B", "a", "x"), json!({"sel": false, "sk": "b"}));
    check(json!({"entries": [unsel], "msgs": ["a"]}), "B");
}

#[test]
fn load_lore_book_v3_prompt_key_decorators() {
    check(
        json!({"entries": [
            e("A", "a", "@@additional_keys b, c\nx"),
            e("B", "a", "@@additional_keys b\n@@additional_keys c\nx")
        ], "msgs": ["a c"]}),
        "A",
    );
    check(
        json!({"entries": [e("A", "a", "@@exclude_keys b\nx")], "msgs": ["a b"]}),
        "-",
    );
    check(
        json!({"entries": [e("A", "a", "@@exclude_keys b\nx")], "msgs": ["a"]}),
        "A",
    );
    let depth2 = json!({"loreBookDepth": 2});
    check(
        json!({"entries": [e("A", "a", "@@exclude_keys_all b, c\nx")], "msgs": ["a b c", "b c"], "settings": depth2}),
        "-",
    );
    check(
        json!({"entries": [e("A", "a", "@@exclude_keys_all b, c\nx")], "msgs": ["a b c", "b"], "settings": depth2}),
        "A",
    );
    // No arguments: "all" holds vacuously, so it always excludes.
    check(
        json!({"entries": [e("A", "a", "@@exclude_keys_all\nx")], "msgs": ["a"]}),
        "-",
    );
    // alwaysActive skips every key query, excludes included.
    check(
        json!({"entries": [always("A", "@@exclude_keys b\nx")], "msgs": ["b"]}),
        "A",
    );
}

// B. Regex keys (useRegex), RisuAI 460ecae's quirks.

#[test]
fn search_match_regex_keys_as_460ecae_tests_them() {
    let re = |key: &str| json!({"name": "A", "key": key, "content": "x", "re": true});
    check(
        json!({"entries": [re("/dragon/i")], "msgs": ["a dragon"]}),
        "-",
    );
    check(
        json!({"entries": [re("/dragon/i")], "msgs": ["a /Dragon"]}),
        "A",
    );
    check(json!({"entries": [re("/ice/i")], "msgs": ["ce/I"]}), "A");
    check(
        json!({"entries": [re("/dragon/")], "msgs": ["/dragon"]}),
        "-",
    );
    check(json!({"entries": [re("dragon")], "msgs": ["dragon"]}), "-");
    // Only the first scanned text can match; the rewritten key then fails.
    check(
        json!({"entries": [re("/dragon/i")], "msgs": ["x", "/dragon"]}),
        "-",
    );
    check(
        json!({"entries": [re("/dragon/i")], "msgs": ["/dragon", "x"]}),
        "A",
    );
    check(json!({"entries": [re("/ms/i")], "msgs": ["x", "y"]}), "A");
    check(
        json!({"entries": [re("/dragon/y")], "msgs": ["x /dragon"]}),
        "-",
    );
    check(
        json!({"entries": [re("/dragon/y")], "msgs": ["/dragon x"]}),
        "A",
    );
    check(json!({"entries": [re("/a{1,3}/i")], "msgs": ["/aa"]}), "-");
    check(
        json!({"entries": [with(re("/a/i"), json!({"content": "@@exclude_keys /(/i\nx"}))], "msgs": ["/a"]}),
        "A",
    );
}

// C. Decorator parsing.

#[test]
fn parse_decorators_blank_line_ends_the_block() {
    check(
        json!({"entries": [always("A", "@@depth 0\n\n@@role user\nBody")], "msgs": [], "show": "pos"}),
        "A@depth:0:system",
    );
    check(
        json!({"entries": [always("A", "@@depth 0\n\n@@role user\nBody")], "msgs": [], "show": "body"}),
        "A=@@role user\nBody",
    );
}

#[test]
fn parse_decorators_only_decorators_cost_nothing() {
    check(
        json!({"entries": [always("A", "@@depth 0"), always("B", "x x x x x x x")],
               "msgs": [], "settings": {"loreBookToken": 7}}),
        "B, A",
    );
}

#[test]
fn parse_decorators_fallback_chains() {
    let pos = |content: &str| json!({"entries": [always("A", content)], "msgs": [], "show": "pos"});
    check(pos("@@depth 0\n@@@role user\nX"), "A@depth:0:system");
    check(pos("@@instruct_depth 3\n@@@depth 0\nX"), "A@depth:0:system");
    check(pos("@@Depth 0\n@@@role user\nX"), "A@lorebook::user");
    check(
        pos("@@keep_activate_after_match\n@@@role user\nX"),
        "A@lorebook::user",
    );
    check(pos("@@position foo\n@@@depth 0\nX"), "A@depth:0:system");
    check(pos("@@@end\nX"), "A@depth:0:system");
}

#[test]
fn load_lore_book_v3_prompt_position_without_argument_throws() {
    check(
        json!({"entries": [always("A", "@@position\nX"), always("B", "y")], "msgs": []}),
        "fails: A",
    );
}

// D. Activation passes and state.

#[test]
fn load_lore_book_v3_prompt_empty_key_is_skipped_before_decorators() {
    check(
        json!({"entries": [e("A", "", "@@activate\nX"), e("B", " , ", "X")], "msgs": ["anything"]}),
        "-",
    );
}

#[test]
fn load_lore_book_v3_prompt_force_state_last_wins() {
    check(
        json!({"entries": [
            e("A", "zzz", "@@activate\nX"),
            e("B", "zzz", "@@dont_activate\n@@activate\nX"),
            e("C", "zzz", "@@activate\n@@dont_activate\nX"),
            always("D", "@@dont_activate\nX"),
            e("P", "zzz", "@@probability 0\n@@activate\nX")
        ], "msgs": ["q"]}),
        "P, B, A",
    );
}

#[test]
fn load_lore_book_v3_prompt_activate_only_after_and_every() {
    let c = |content: &str, n: usize| {
        let msgs: Vec<String> = (0..n).map(|i| format!("m{i}")).collect();
        json!({"entries": [always("A", content)], "msgs": msgs})
    };
    check(c("@@activate_only_after 3\nX", 1), "-");
    check(c("@@activate_only_after 3\nX", 2), "A");
    check(c("@@activate_only_every 2\nX", 1), "A");
    check(c("@@activate_only_every 2\nX", 2), "-");
    check(c("@@activate_only_every 0\nX", 1), "-");
}

#[test]
fn load_lore_book_v3_prompt_is_greeting() {
    let c = |content: &str, fm: i64| json!({"entries": [always("A", content)], "msgs": [], "settings": {"fmIndex": fm}});
    check(c("@@is_greeting 1\nX", 0), "A");
    check(c("@@is_greeting 1\nX", -1), "-");
    check(c("@@is_greeting 0\nX", -1), "A");
}

#[test]
fn load_lore_book_v3_prompt_probability() {
    check(
        json!({"entries": [always("A", "@@probability 0\nX")], "msgs": []}),
        "-",
    );
    check(
        json!({"entries": [always("A", "@@probability 100\nX")], "msgs": []}),
        "A",
    );
    check(
        json!({"entries": [always("A", "@@probability abc\nX")], "msgs": []}),
        "A",
    );
    // Half the seeds, roughly: the roll is ours, the rule RisuAI's.
    let on = (0..200)
        .filter(|seed| {
            run(&json!({"entries": [always("A", "@@probability 50\nX")], "msgs": [], "seed": seed}))
                == "A"
        })
        .count();
    assert!((70..130).contains(&on), "{on} of 200");
}

#[test]
fn load_lore_book_v3_prompt_recursion_passes() {
    check(
        json!({"entries": [e("A", "a", "mentions b"), e("B", "b", "B")], "msgs": ["a"]}),
        "B, A",
    );
    check(
        json!({"entries": [e("B", "b", "B"), e("A", "a", "mentions b")], "msgs": ["a"]}),
        "B, A",
    );
    let off =
        json!({"loreSettings": {"recursiveScanning": false, "scanDepth": 5, "tokenBudget": 800}});
    check(
        json!({"entries": [e("B", "b", "B"), e("A", "a", "mentions b")], "msgs": ["a"], "settings": off}),
        "A",
    );
    check(
        json!({"entries": [e("B", "b", "B"), e("A", "a", "@@recursive\nmentions b")], "msgs": ["a"], "settings": off}),
        "B, A",
    );
    check(
        json!({"entries": [e("B", "b", "B"), e("A", "a", "@@unrecursive\nmentions b")], "msgs": ["a"]}),
        "A",
    );
    check(
        json!({"entries": [e("A", "a", "mentions b"), e("B", "b", "@@no_recursive_search\nB")], "msgs": ["a"]}),
        "A",
    );
}

#[test]
fn load_lore_book_v3_prompt_recursive_text_is_the_body() {
    check(
        json!({"entries": [always("E0", "@@role user\nhello"), e("E1", "role", "x")], "msgs": []}),
        "E0",
    );
    check(
        json!({"entries": [always("E0", "@@role user\nhello"), e("E1", "hello", "x")], "msgs": []}),
        "E1, E0",
    );
}

#[test]
fn load_lore_book_v3_prompt_budget_after_recursion() {
    check(
        json!({"entries": [
            with(e("A", "a", "mentions b x x x x x x x x"), json!({"order": 1})),
            with(e("B", "b", "B"), json!({"order": 2}))
        ], "msgs": ["a"], "settings": {"loreBookToken": 5}}),
        "B",
    );
}

#[test]
fn load_lore_book_v3_prompt_after_match_state() {
    check(
        json!({"entries": [with(e("K", "a", "@@keep_activate_after_match\nK"), json!({"id": "k1"}))],
               "msgs": ["a", "b", "c", "d", "e", "f"], "log": true}),
        "1: K | 2: K | 3: K | 4: K | 5: K | 6: K",
    );
    check(
        json!({"entries": [with(e("D", "a", "@@dont_activate_after_match\nD"), json!({"id": "d1"}))],
               "msgs": ["a", "a"], "log": true}),
        "1: D | 2: -",
    );
    // Without the decorator the entry follows its keys, through the scan
    // window's quirk (depth 5 over 3 and 4 messages scans the last 1 and 3).
    check(
        json!({"entries": [e("K", "a", "K")], "msgs": ["a", "b", "c", "d", "e", "f"], "log": true}),
        "1: K | 2: K | 3: - | 4: - | 5: K | 6: -",
    );
}

// E. Budget and order.

#[test]
fn load_lore_book_v3_prompt_greedy_budget_then_insert_order() {
    check(
        json!({"entries": [
            with(always("E0", "x x x x x x x x"), json!({"order": 100})),
            with(always("E1", "x x x x x"), json!({"order": 50})),
            with(always("E2", "x x"), json!({"order": 10}))
        ], "msgs": [], "settings": {"loreBookToken": 10}}),
        "E2, E0",
    );
    check(
        json!({"entries": [
            with(always("E0", "x x x x x x x x"), json!({"order": 100})),
            with(always("E1", "@@priority 200\nx x x x x"), json!({"order": 50}))
        ], "msgs": [], "settings": {"loreBookToken": 10}}),
        "E1",
    );
    check(
        json!({"entries": [
            with(always("E0", "@@ignore_on_max_context\nx x x x x"), json!({"order": 500})),
            with(always("E1", "x x x x x"), json!({"order": 1}))
        ], "msgs": [], "settings": {"loreBookToken": 7}}),
        "E1",
    );
}

#[test]
fn load_lore_book_v3_prompt_tie_order() {
    check(
        json!({"entries": [always("E0", "x"), always("E1", "y")], "msgs": []}),
        "E1, E0",
    );
    check(
        json!({"entries": [always("E0", "@@priority 1\nx"), always("E1", "@@priority 5\ny")], "msgs": []}),
        "E0, E1",
    );
    check(
        json!({"entries": [always("E0", "@@priority 5\nx"), always("E1", "@@priority 1\ny")], "msgs": []}),
        "E1, E0",
    );
}

#[test]
fn load_lore_book_v3_prompt_counts_the_raw_body() {
    // At 460ecae "{{char}}" is 3 tokens (cl100k) whatever the name: the
    // budget of 3 holds it unexpanded.
    check(
        json!({"entries": [always("A", "@@depth 1\n{{char}}")], "msgs": [],
            "settings": {"loreBookToken": 3, "risuVersion": "460ecae",
                "character": {"name": "x x x x x x x x x x"}}}),
        "A",
    );
}

// The 2026 mainline (004367c6): docs/risu-rules.md §10.

/// PR #1490: the budget counts the body as CBS evaluates it, with the
/// character's name, the chat's variables and `{{#if}}`.
#[test]
fn load_lore_book_v3_prompt_counts_the_cbs_evaluated_body_since_2026() {
    let long_name = json!({"loreBookToken": 3, "character": {"name": "x x x x x x x x x x"}});
    let case = |settings: &Value| json!({"entries": [always("A", "@@depth 1\n{{char}}")], "msgs": [], "settings": settings});
    check(case(&long_name), "-");
    let mut old = long_name.clone();
    old["risuVersion"] = json!("460ecae");
    check(case(&old), "A");
    // A false {{#if}} costs nothing; a true one its body.
    let gated = |settings: Value| {
        json!({"entries": [always("A", "{{#if {{getvar::flag}}}}x x x x x x x x x x{{/if}}ok")],
            "msgs": [], "settings": settings, "show": "tokens"})
    };
    check(gated(json!({"loreBookToken": 5})), "A:1");
    check(
        gated(json!({"loreBookToken": 5, "scriptstate": {"$flag": "1"}})),
        "-",
    );
    check(
        gated(json!({"loreBookToken": 5, "character": {"defaultVariables": "flag=true"}})),
        "-",
    );
    check(
        gated(json!({"loreBookToken": 50, "risuVersion": "460ecae"})),
        &format!(
            "A:{}",
            cl100k("{{#if {{getvar::flag}}}}x x x x x x x x x x{{/if}}ok")
        ),
    );
}

fn cl100k(text: &str) -> u32 {
    lorebook_engine::tokenizer::Tokenizer::Bundled(lorebook_engine::tokenizer::Encoding::Cl100kBase)
        .count(text)
}

/// PR #1490 changes only the number: the budget walk keeps what fits in
/// priority order, and the text and recursion stay as written.
#[test]
fn load_lore_book_v3_prompt_walks_the_budget_on_evaluated_counts() {
    let entries = json!([
        always(
            "E0",
            "@@priority 100\n{{#if 0}}x x x x x x x x x x x x x x x x x x x x{{/if}}"
        ),
        always("E1", "@@priority 50\nx x x x x x x x x"),
        always("E2", "@@priority 10\nx x"),
    ]);
    check(
        json!({"entries": entries, "msgs": [], "settings": {"loreBookToken": 10}}),
        "E1, E0",
    );
    check(
        json!({"entries": entries, "msgs": [], "settings": {"loreBookToken": 10, "risuVersion": "460ecae"}}),
        "E1",
    );
    // The false block still brings "dragon" to recursion: its body as
    // written is what recursion reads.
    check(
        json!({"entries": [always("A", "{{#if 0}}dragon{{/if}}"), e("B", "dragon", "b")],
            "msgs": ["hi"], "show": "sent"}),
        "B=b, A=",
    );
}

/// PR #1383 (`sendChat`'s `resolvePosition`): a marker brings the placed
/// `pt_` entries' bodies, at most five levels deep; at 460ecae it stays.
#[test]
fn send_chat_resolves_positions_inside_lorebook_texts_since_2026() {
    let entries = json!([
        always("N", "@@priority 10\nIntro: {{position::x}}"),
        always("X1", "@@priority 1\n@@position pt_x\none"),
        always("X2", "@@priority 2\n@@position pt_x\n{{user}}"),
    ]);
    let sent = |settings: Value| {
        let r = run(&json!({"entries": entries, "msgs": [], "settings": settings, "show": "sent"}));
        r.split(", ")
            .find(|s| s.starts_with("N="))
            .unwrap_or("")
            .to_string()
    };
    let mut placed = run(&json!({"entries": entries, "msgs": []}))
        .split(", ")
        .map(str::to_string)
        .collect::<Vec<_>>();
    placed.sort();
    assert_eq!(placed, ["N", "X1", "X2"], "all budgeted and placed");
    let n = sent(json!({"username": "Kim"}));
    assert!(
        n == "N=Intro: one\nKim" || n == "N=Intro: Kim\none",
        "the slot's bodies, one per line, then CBS: {n}"
    );
    assert_eq!(
        sent(json!({"username": "Kim", "risuVersion": "460ecae"})),
        "N=Intro: {{position::x}}"
    );
}

// F. Injection.

#[test]
fn load_lore_book_v3_prompt_inject_lore() {
    let body = |entries: Value| json!({"entries": entries, "msgs": ["a"], "show": "body"});
    check(
        body(json!([
            e("Target", "a", "T"),
            e("I", "a", "@@inject_lore Target\nI")
        ])),
        "Target=T I",
    );
    check(
        body(json!([
            e("Target", "a", "T"),
            e("I", "a", "@@inject_lore Target\n@@inject_prepend\nI")
        ])),
        "Target=I T",
    );
    check(
        body(json!([
            e("Target", "a", "T and T"),
            e("I", "a", "@@inject_lore Target\n@@inject_replace T\nNEW")
        ])),
        "Target=NEW and T",
    );
    check(body(json!([e("I", "a", "@@inject_lore Nope\nI")])), "-");
    check(
        body(json!([
            e("Tar get", "a", "T"),
            e("I", "a", "@@inject_lore Tar, get\nI")
        ])),
        "Tar get=T I",
    );
    check(
        body(json!([
            e("T", "a", "T"),
            with(e("I1", "a", "@@inject_lore T\nI1"), json!({"order": 10})),
            with(e("I2", "a", "@@inject_lore T\nI2"), json!({"order": 20}))
        ])),
        "T=T I2 I1",
    );
    check(
        body(json!([
            e("T", "a", "cat"),
            e("I", "a", "@@inject_lore T\n@@inject_replace cat\n[$&]")
        ])),
        "T=[cat]",
    );
    check(
        body(json!([
            e("", "a", "T"),
            e("I", "a", "@@inject_lore lorebook 0\nI")
        ])),
        "lorebook 0=T I",
    );
}

// G. Placement.

#[test]
fn send_chat_positions_and_roles() {
    check(
        json!({"entries": [
            always("N", "n"),
            always("S", "@@depth 0\ns"),
            with(always("U", "@@end\n@@role user\nu"), json!({"order": 50})),
            with(always("P", "@@depth 0\n@@role assistant\np"), json!({"order": 1}))
        ], "msgs": [], "show": "pos"}),
        "P@depth:0:assistant, U@depth:0:user, S@depth:0:system, N@lorebook::system",
    );
    check(
        json!({"entries": [
            with(always("B0", "@@position before_desc\nb0"), json!({"order": 10})),
            with(always("Ps", "@@position personality\np"), json!({"order": 15})),
            with(always("X", "@@position pt_notes\n@@role user\nx"), json!({"order": 20})),
            with(always("R", "@@reverse_depth 1\nr"), json!({"order": 30})),
            with(always("J", "@@inject_at main\nj"), json!({"order": 40})),
            with(always("Neg", "@@depth -1\nn"), json!({"order": 50}))
        ], "msgs": [], "show": "pos"}),
        "B0@before_desc::system, Ps@personality::system, X@pt_notes::user, R@reverse_depth:1:system, J@inject_at main::system",
    );
    check(
        json!({"entries": [always("A", "@@position after_desc\n@@depth 3\nX")], "msgs": [], "show": "pos"}),
        "A@depth:3:system",
    );
    check(
        json!({"entries": [always("A", "@@depth 3\n@@position after_desc\nX")], "msgs": [], "show": "pos"}),
        "A@after_desc::system",
    );
}

// H. Folders.

#[test]
fn load_lore_book_v3_prompt_ignores_folders() {
    let folder = |on: bool| json!({"name": "F", "key": "\u{f000}folder:1", "content": "", "mode": "folder", "always": on});
    let child = with(e("C", "a", "child"), json!({"folder": "\u{f000}folder:1"}));
    check(
        json!({"entries": [folder(false), child], "msgs": ["a"]}),
        "C",
    );
    let child = with(e("C", "b", "child"), json!({"folder": "\u{f000}folder:1"}));
    check(
        json!({"entries": [folder(true), child], "msgs": ["a"]}),
        "F",
    );
}

// Issue 45: three rules of 460ecae the profile missed.

#[test]
fn load_lore_book_v3_prompt_blank_key_fields_are_not_empty() {
    // A key field of separators and blanks is not empty to RisuAI: the
    // entry is not skipped (its decorators run), and its query, keys
    // trimmed away, finds nothing. So a selective entry whose secondary
    // field is " , " never activates by its keys.
    check(
        json!({"entries": [
            with(e("A", "storm", "X"), json!({"sel": true, "sk": " , "})),
            with(e("B", "storm", "X"), json!({"sel": true, "sk": ""})),
            e("C", " , ", "@@activate\nX"),
            with(e("D", "storm", "X"), json!({"sel": false, "sk": " , "})),
            e("E", " , ", "X")
        ], "msgs": ["a storm"]}),
        "D, C, B",
    );
}

#[test]
fn load_lore_book_v3_prompt_mode_is_not_constant() {
    // Only `alwaysActive` makes an entry constant: `mode: "constant"` and
    // `mode: "multiple"` are plain entries, activated by their keys.
    check(
        json!({"entries": [
            with(e("A", "zzz", "X"), json!({"mode": "constant"})),
            with(e("B", "zzz", "X"), json!({"mode": "multiple"})),
            with(e("C", "storm", "X"), json!({"mode": "constant"})),
            with(e("D", "storm", "X"), json!({"mode": "multiple"}))
        ], "msgs": ["storm"]}),
        "D, C",
    );
}

#[test]
fn parse_decorators_order_is_no_risu_decorator() {
    // `@@order` is not among the decorators loadLoreBookV3Prompt reads: the
    // line leaves the body and the order stays the entry's insertorder.
    check(
        json!({"entries": [
            with(e("A", "storm", "@@order 1\nA body"), json!({"order": 100})),
            with(e("B", "storm", "B body"), json!({"order": 50}))
        ], "msgs": ["storm"], "show": "body"}),
        "B=B body, A=A body",
    );
}
