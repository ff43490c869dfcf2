//! CBS as RisuAI's `risuChatParser` gives it with side effects off (the
//! 2026 mainline, 004367c6): each case names the part of RisuAI's parser
//! or the CBS function it pins down.

use super::*;

fn kim() -> CbsInputs {
    CbsInputs {
        username: "Kim".into(),
        char_name: "Alexandria".into(),
        ..CbsInputs::default()
    }
}

/// 2026-04-05 15:04:09 UTC.
const NOW_MS: i64 = 1_775_401_449_000;

fn ev_with(text: &str, inputs: &CbsInputs, messages: &[&str]) -> String {
    eval(
        text,
        &Cbs {
            inputs,
            messages,
            seed: 7,
            now_ms: Some(NOW_MS),
        },
    )
}

fn ev(text: &str) -> String {
    ev_with(text, &kim(), &[])
}

fn check(cases: &[(&str, &str)]) {
    for (input, want) in cases {
        assert_eq!(ev(input), *want, "{input:?}");
    }
}

/// `risuChatParser`'s `matcher`: unknown names, failed calls and closers
/// with nothing open stay as written; inner calls are made first.
#[test]
fn risu_chat_parser_leaves_unknown_and_failed_calls_as_written() {
    check(&[
        ("a {{foo}} b", "a {{foo}} b"),
        ("{{foo::{{user}}}}", "{{foo::Kim}}"),
        ("{{/when}}", "{{/when}}"),
        ("{{slot::v}}", "{{slot::v}}"),
        ("{{img::cat}}", "{{img::cat}}"),
        ("{{position::notes}}", "{{position::notes}}"),
        ("{{trim}}", "{{trim}}"),
        ("x }} y", "x }} y"),
        ("{{// hi}}x", "{{// hi}}x"),
        ("{{comment::hi}}x", "x"),
        ("{{hidden_key::dragon}}x", "x"),
        ("{{lastmessage}}", "{{lastmessage}}"),
        ("{{setvar::seen::1}}x", "{{setvar::seen::1}}x"),
        ("{{addvar::n::1}}", "{{addvar::n::1}}"),
        ("{{setdefaultvar::n::1}}", "{{setdefaultvar::n::1}}"),
        ("{{message_index}}", "{{message_index}}"),
        ("{{role}}", "null"),
        ("{{:}}", "{{:}}"),
        ("{{length}}", "{{length}}"),
        ("{{getvar}}", "null"),
    ]);
}

/// `matcher`'s name reading (case, spaces, `_`, `-` ignored) and its two
/// separators; the `<user>`, `<char>` pre-pass.
#[test]
fn risu_chat_parser_reads_names_and_separators() {
    let mut inputs = kim();
    inputs.scriptstate.insert("$hp".into(), "3".into());
    inputs.scriptstate.insert("$a:b".into(), "ab".into());
    for (input, want) in [
        ("{{ User }}", "Kim"),
        ("{{USER}}", "Kim"),
        ("{{u-s_e r}}", "Kim"),
        ("{{Get_Var::hp}}", "3"),
        ("{{getvar:hp}}", "3"),
        ("{{getvar::a:b}}", "ab"),
        ("{{replace:a-b:-:+}}", "a+b"),
        ("{{replace::a:b::a::c}}", "c:b"),
        ("<user> and <CHAR>", "Kim and Alexandria"),
    ] {
        assert_eq!(ev_with(input, &inputs, &[]), want, "{input:?}");
    }
}

/// `blockStartMatcher` / `blockEndMatcher` for `#if` and `#if_pure`.
#[test]
fn block_matchers_shape_if() {
    check(&[
        ("{{#if 1}}Y{{/if}}", "Y"),
        ("{{#if true}}Y{{/if}}", "Y"),
        ("{{#if TRUE}}Y{{/if}}", ""),
        ("{{#if yes}}Y{{/if}}", ""),
        ("{{#if  1}}Y{{/if}}", ""),
        ("{{#if 1 junk}}Y{{/if}}", "Y"),
        ("{{#iffy 1}}Y{{/}}", "Y"),
        ("{{#if 1}}\n   a  \n   b\n{{/if}}", "a  \nb"),
        ("{{#if 1}}A{{:else}}B{{/if}}", "A{{:else}}B"),
        ("{{#if 0}}A{{:else}}B{{/if}}", ""),
        ("{{#if_pure 1}}\n  a\n{{/if_pure}}", "\n  a\n"),
        ("{{#if 0}}{{#if 1}}x{{/if}}y{{/if}}z", "z"),
        ("{{#if 1}}{{user}}{{/if}}", "Kim"),
    ]);
}

/// `blockEndMatcher` for `#when`: a line untrimmed, lines without the
/// blank ones at the ends, `{{:else}}`, `keep` and `legacy`.
#[test]
fn block_matchers_shape_when() {
    check(&[
        ("{{#when 1}}  x  {{/when}}", "  x  "),
        ("{{#when::0}}A{{:else}}B{{/when}}", "B"),
        ("{{#when::0}}\nA\n{{:else}}\n  B\n\n{{/when}}", "  B"),
        ("{{#when::1}}\n\n  C  \n  B  \n\n{{/when}}", "  C  \n  B  "),
        ("{{#when::1}}A{{:else}}B\nC{{/when}}", "A{{:else}}B\nC"),
        ("{{#when::0}}A{{:else}}B\nC{{/when}}", ""),
        ("{{#when::keep::1}}\n a \n{{/when}}", "\n a \n"),
        ("{{#when::legacy::1}}\n  a\n  b\n{{/when}}", "a\nb"),
        ("{{#when::legacy::0}}A{{:else}}B{{/when}}", ""),
    ]);
}

/// `blockStartMatcher`'s `#when::` operators, read from the right.
#[test]
fn block_start_matcher_reads_when_operators() {
    check(&[
        ("{{#when::5::>::3}}Y{{/when}}", "Y"),
        ("{{#when::3::>=::3}}Y{{/when}}", "Y"),
        ("{{#when::a::is::a}}Y{{/when}}", "Y"),
        ("{{#when::a::isnot::a}}Y{{/when}}", ""),
        ("{{#when::1::and::0::or::1}}Y{{/when}}", "Y"),
        ("{{#when::0::and::1::or::1}}Y{{/when}}", ""),
        ("{{#when::not::0}}Y{{/when}}", "Y"),
        ("{{#when::foo::1}}Y{{/when}}", "Y"),
        ("{{#when::keep::1}}Y{{/when}}", "Y"),
        (
            "{{#when::{{getvar::hp}}::<::10}}low{{:else}}fine{{/when}}",
            "fine",
        ),
    ]);
    let mut inputs = kim();
    inputs.scriptstate.insert("$hp".into(), "5".into());
    inputs.default_variables = "mode=dark".into();
    inputs
        .global_chat_variables
        .insert("toggle_nsfw".into(), "1".into());
    inputs
        .global_chat_variables
        .insert("toggle_lang".into(), "ko".into());
    for (input, want) in [
        (
            "{{#when::{{getvar::hp}}::<::10}}low{{:else}}fine{{/when}}",
            "low",
        ),
        ("{{#when::hp::vis::5}}Y{{/when}}", "Y"),
        ("{{#when::var::mode}}Y{{/when}}", ""),
        ("{{#when::toggle::nsfw}}Y{{/when}}", "Y"),
        ("{{#when::lang::tis::ko}}Y{{/when}}", "Y"),
    ] {
        assert_eq!(ev_with(input, &inputs, &[]), want, "{input:?}");
    }
}

/// Closers close the innermost block whatever their name; what is still
/// open at the end is written back (a block's body after `<`).
#[test]
fn risu_chat_parser_closes_and_unwinds() {
    check(&[
        ("{{#when 1}}A{{/if}}", "A"),
        ("x {{#when 1}}abc", "x <abc"),
        ("x {{#if 0}}abc", "x <abc"),
        ("x {{user", "x {{user"),
    ]);
}

/// `blockEndMatcher`'s pure, escape, code and each blocks.
#[test]
fn block_end_matcher_keeps_pure_bodies() {
    check(&[
        ("{{#pure}} {{user}} {{/pure}}", "{{user}}"),
        ("{{#puredisplay}}{{user}}{{/puredisplay}}", "\\{\\{user\\}\\}"),
        ("{{#escape}} {a} {{/escape}}", "\u{E9B8}a\u{E9B9}"),
        ("{{#escape::keep}} {a} {{/escape}}", " \u{E9B8}a\u{E9B9} "),
        ("{{#code}}a\tb\n c\\n{{/code}}", "ab c\n"),
        ("{{#each [1, 2, 3] as n}}{{slot::n}} {{/each}}", "123"),
        (
            "{{#each [\"a\",\"b\"] as v}}<{{upper::{{slot::v}}}}>{{/each}}",
            "<A><B>",
        ),
        ("{{#each::keep [1, 2] as n}}- {{slot::n}}\n{{/each}}", "- 1\n- 2\n"),
        ("{{#each a,b,c as n}}[{{slot::n}}]{{/each}}", "[a,b,c]"),
        ("{{#each [1,2] n}}{{slot::n}}{{/each}}", "12"),
        (
            "{{#each [1, 2, 3] as n}}\n{{#when::n::is::2}}\nA{{slot::n}}\n{{:else}}\nB{{slot::n}}\n{{/}}\n{{/}}",
            "B1B2B3",
        ),
        ("{{bo}}x{{bc}}", "\u{E9B8}\u{E9B8}x\u{E9B9}\u{E9B9}"),
    ]);
}

/// `#func` and `{{call}}`, `{{return}}` and the temporary variables.
#[test]
fn functions_return_and_temporary_variables() {
    check(&[
        (
            "{{#func greet x}}Hi {{arg::1}} from {{arg::0}}{{/func}}{{call::greet::Bob}}",
            "Hi Bob from greet",
        ),
        ("a{{return::b}}c", "b"),
        ("{{return}}", "null"),
        ("{{settempvar::t::5}}{{tempvar::t}}", "5"),
        ("{{tempvar::none}}", ""),
    ]);
}

/// `getChatVar` (the chat's `$` variables, then the character's and the
/// template's defaults, else `null`) and `getGlobalChatVar`.
#[test]
fn get_chat_var_and_its_defaults() {
    let with = |f: &dyn Fn(&mut CbsInputs), text: &str| {
        let mut inputs = kim();
        f(&mut inputs);
        ev_with(text, &inputs, &[])
    };
    let getvar = "{{getvar::hp}}";
    assert_eq!(
        with(
            &|i| {
                i.scriptstate.insert("$hp".into(), "7".into());
            },
            getvar
        ),
        "7"
    );
    assert_eq!(
        with(&|i| i.default_variables = "hp=10\nmp=3".into(), getvar),
        "10"
    );
    assert_eq!(
        with(&|i| i.template_default_variables = "hp=99".into(), getvar),
        "99"
    );
    assert_eq!(
        with(
            &|i| {
                i.default_variables = "hp=10".into();
                i.template_default_variables = "hp=99".into();
            },
            getvar
        ),
        "10"
    );
    assert_eq!(with(&|_| {}, getvar), "null");
    assert_eq!(
        with(
            &|i| {
                i.scriptstate.insert("$hp".into(), String::new());
            },
            getvar
        ),
        ""
    );
    assert_eq!(
        with(&|i| i.default_variables = "hp = 10".into(), getvar),
        "null"
    );
    assert_eq!(
        with(
            &|i| i.default_variables = "hp = 10".into(),
            "{{getvar::hp }}"
        ),
        " 10"
    );
    assert_eq!(
        with(&|i| i.default_variables = "a=b=c".into(), "{{getvar::a}}"),
        "b"
    );
    assert_eq!(
        with(&|i| i.default_variables = "x=".into(), "{{getvar::x}}"),
        "null"
    );
    assert_eq!(
        with(&|i| i.default_variables = "hp=10\r\nmp=3".into(), getvar),
        "10\r"
    );
    let g = |i: &mut CbsInputs| {
        i.global_chat_variables.insert("g".into(), "1".into());
    };
    assert_eq!(with(&g, "{{getglobalvar::g}}"), "1");
    assert_eq!(with(&g, "{{getglobalvar::$g}}"), "null");
    assert_eq!(with(&g, "{{getglobalvar::missing}}"), "null");
}

/// The comparison and logic functions (only `1` is true to them).
#[test]
fn logic_functions() {
    check(&[
        ("{{equal::a::a}}", "1"),
        ("{{equal::a::A}}", "0"),
        ("{{not_equal::a::b}}", "1"),
        ("{{greater::10::9}}", "1"),
        ("{{greater::abc::1}}", "0"),
        ("{{less::::1}}", "1"),
        ("{{and::1::1}}", "1"),
        ("{{and::true::1}}", "0"),
        ("{{or::0::1}}", "1"),
        ("{{not::1}}", "0"),
        ("{{not::true}}", "1"),
        ("{{all::1::1::0}}", "0"),
        ("{{any::[\"0\",\"1\"]}}", "1"),
    ]);
}

/// `calcString`: precedence, JavaScript's numbers, dropped pieces.
#[test]
fn calc_string() {
    check(&[
        ("{{? 1+2*3}}", "7"),
        ("{{? (1+2)*3}}", "9"),
        ("{{? 1/3}}", "0.3333333333333333"),
        ("{{? 10/4}}", "2.5"),
        ("{{? 0.1+0.2}}", "0.30000000000000004"),
        ("{{? 2^3^2}}", "64"),
        ("{{? 1/0}}", "Infinity"),
        ("{{? 5%3}}", "2"),
        ("{{? 3>2}}", "1"),
        ("{{? 2==2}}", "1"),
        ("{{? 1&&0}}", "0"),
        ("{{? 2||3}}", "2"),
        ("{{? !0}}", "1"),
        ("{{? -5+3}}", "-2"),
        ("{{? 2*-3}}", "-6"),
        ("{{? 2 + 2}}", "4"),
        ("{{? abc}}", "0"),
        ("{{? 0.0+1}}", "NaN"),
        ("{{?1+2}}", "{{?1+2}}"),
        ("{{calc::7-10}}", "-3"),
        ("{{? 0*-1}}", "0"),
        ("{{? $hp+1}}", "1"),
        ("{{? null+1}}", "1"),
    ]);
    let mut inputs = kim();
    inputs.scriptstate.insert("$hp".into(), "4".into());
    inputs.global_chat_variables.insert("g".into(), "3".into());
    assert_eq!(ev_with("{{? $hp+1}}", &inputs, &[]), "5");
    assert_eq!(ev_with("{{? @g*2}}", &inputs, &[]), "6");
    assert_eq!(js_number(1e21), "1e+21");
    assert_eq!(js_number(1.5e-7), "1.5e-7");
    assert_eq!(js_number(-0.0), "0");
}

/// The string, array and dict functions.
#[test]
fn string_and_array_functions() {
    check(&[
        ("{{length::héllo}}", "5"),
        ("{{length::😀}}", "2"),
        ("{{upper::abc}}", "ABC"),
        ("{{lower::ÀB}}", "àb"),
        ("{{capitalize::hello world}}", "Hello world"),
        ("{{replace::a-b-c::-::+}}", "a+b+c"),
        ("{{trim::  x \n }}", "x"),
        ("{{contains::Hello::ell}}", "1"),
        ("{{startswith::Hello::h}}", "0"),
        ("{{reverse::abc}}", "cba"),
        ("{{tonumber::a 1.5b}}", " 1.5"),
        ("{{split::a,b::,}}", "[\"a\",\"b\"]"),
        ("{{join::[\"a\",\"b\"]::-}}", "a-b"),
        ("{{br}}", "\n"),
        ("{{blank}}", ""),
        ("{{cbr}}", "\\n"),
        ("{{arraylength::[1,2,3]}}", "3"),
        ("{{arraylength::}}", "1"),
        ("{{arraylength::a§b}}", "2"),
        ("{{array_element::[\"a\",\"b\"]::-1}}", "b"),
        ("{{array_element::[\"a\",\"b\"]::5}}", "null"),
        ("{{array_element::[\"a\",\"b\"]::x}}", "a"),
        ("{{array_element::[{\"k\":1}]::0}}", "{\"k\":1}"),
        ("{{dict_element::{\"a\":1}::a}}", "1"),
        ("{{dict_element::{\"a\":1}::b}}", "null"),
        ("{{makearray::a::b}}", "[\"a\",\"b\"]"),
        ("{{makedict::k=v=w::x}}", "{\"k\":\"v=w\"}"),
    ]);
}

/// The date and time functions on the clock (UTC), RisuAI's token
/// replacement included.
#[test]
fn date_time_format() {
    check(&[
        ("{{time}}", "15:4:9"),
        ("{{date}}", "2026-4-5"),
        ("{{isodate}}", "2026-4-5"),
        ("{{isotime}}", "15:4:9"),
        ("{{date::DD/MM/YYYY HH:mm}}", "05/04/2026 15:04"),
        ("{{date::MMMM}}", "PMpril"),
        ("{{date::hh A}}", "03 PM"),
        ("{{time::YYYY::1700000000000}}", "1970"),
        ("{{message_time}}", "[Cannot get time]"),
    ]);
}

/// The chat and name functions in a lorebook's evaluation.
#[test]
fn chat_and_name_functions() {
    let inputs = kim();
    let msgs = ["u1", "c1", "u2"];
    for (input, want) in [
        ("{{lastmessage}}", "u2"),
        ("{{lastmessageid}}", "2"),
        ("{{lastusermessage}}", ""),
        ("{{chat_index}}", "-1"),
        ("{{isfirstmsg}}", "0"),
    ] {
        assert_eq!(ev_with(input, &inputs, &msgs), want, "{input:?}");
    }
    let mut nick = kim();
    nick.char_nickname = "Alex".into();
    assert_eq!(ev_with("{{char}}", &nick, &[]), "Alex");
    assert_eq!(ev("{{char}}"), "Alexandria");
    let mut boss = kim();
    boss.personality = "Calls {{user}} \"boss\".".into();
    assert_eq!(
        ev_with("{{personality}}", &boss, &[]),
        "Calls Kim \"boss\"."
    );
    let mut nobody = kim();
    nobody.username = String::new();
    assert_eq!(ev_with("{{user}}", &nobody, &[]), "");
}

/// The random family draws from the evaluation's seed: the same text
/// gives the same draw, each value one of the choices.
#[test]
fn random_draws_from_the_choices() {
    for text in [
        "{{random::a,b,c}}",
        "{{random::a::b::c}}",
        "{{random:a:b:c}}",
    ] {
        let got = ev(text);
        assert!(["a", "b", "c"].contains(&got.as_str()), "{text}: {got}");
        assert_eq!(ev(text), got, "the same draw again");
    }
    assert!(["1", "2"].contains(&ev("{{random::[1,2]}}").as_str()));
    assert_eq!(ev("{{roll}}"), "1");
    assert_eq!(ev("{{roll::0}}"), "NaN");
    let d20: f64 = ev("{{roll::d20}}").parse().unwrap();
    assert!((1.0..=20.0).contains(&d20));
    let two: f64 = ev("{{roll::2d6}}").parse().unwrap();
    assert!((2.0..=12.0).contains(&two));
}

/// Nesting past RisuAI's call-stack limit gives its error, not a hang.
#[test]
fn risu_chat_parser_stops_at_its_call_stack_limit() {
    let mut inputs = kim();
    inputs.personality = "{{personality}}".into();
    assert_eq!(ev_with("{{personality}}", &inputs, &[]), STACK_LIMIT);
}

/// What a review of this evaluator against RisuAI's code found: bodies
/// `#if_pure` and `#code` evaluate, `#func` trims, `{{return}}` inside a
/// call ends the call only, numbers as JavaScript prints them, names
/// trimmed, arithmetic's loose ends.
#[test]
fn risu_chat_parser_corner_cases() {
    check(&[
        ("{{#if_pure 1}}{{user}}{{/if_pure}}", "Kim"),
        ("{{#code}}{{user}}{{/code}}", "Kim"),
        ("{{#func f}}\n Hi\n{{/func}}[{{call::f}}]", "[Hi]"),
        ("a{{#func f}}{{return::x}}{{/func}}{{call::f}}b", "axb"),
        ("{{date::YYYY::0}}", "2026"),
        ("{{date::YYYY::}}", "2026"),
        ("{{array_element::[1.0]::0}}", "1"),
        ("{{#each [1,2] as n }}{{slot::n}}{{/each}}", "12"),
        ("{{greater::1}}", "0"),
        ("{{sum::1§2}}", "3"),
        ("{{? 2+}}", "2"),
        ("{{? 2*(3}}", "6"),
        ("{{#when::x::is::foo::x}}Y{{/when}}", ""),
    ]);
}

/// Input built to hurt: no panic on case-folding that moves character
/// edges, no blow-up from a function calling itself three times, a deep
/// pile of open macros, or parentheses by the ten thousand.
#[test]
fn hostile_cbs_ends_quickly_without_panicking() {
    assert_eq!(ev("{{? \u{130}\u{2126}null}}"), "0");
    let fan = ev("{{#func f}}{{call::f}}{{call::f}}{{call::f}}{{/func}}{{call::f}}");
    assert!(fan.contains(STACK_LIMIT), "{}", &fan[..fan.len().min(200)]);
    let deep = format!("{}x{}", "{{a".repeat(30_000), "}}".repeat(30_000));
    let started = std::time::Instant::now();
    let out = ev(&deep);
    assert!(out.contains('x'));
    let parens = format!("{{{{? {}{}}}}}", ")".repeat(40_000), "(1)".repeat(20_000));
    assert!(!ev(&parens).is_empty());
    let big = format!(
        "{{{{#each [{}] as n}}}}{{{{slot::n}}}}{{{{/each}}}}",
        vec!["\"xxxxxxxxxx\""; 50_000].join(",")
    );
    assert!(ev(&big).len() <= MAX_MADE + 1000);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}
