//! The new engine's rules, one row each, naming the SillyTavern 1.19.0
//! function the row pins down.

use serde_json::json;

use super::*;

fn vars() -> Variables {
    Variables {
        local: [
            ("hp", json!("25")),
            ("weather", json!("storm")),
            ("empty", json!("")),
            ("zero", json!("0")),
            ("no", json!("false")),
            ("list", json!("[\"a\",\"b\"]")),
            ("who", json!("{{user}}")),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect(),
        global: [("vip", json!("true"))]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    }
}

/// 2026-12-07 16:05 UTC, a Monday.
const MONDAY: clock::Moment = clock::Moment {
    unix: 1_796_659_500,
    offset: 0,
};

fn new(text: &str) -> String {
    expand(
        text,
        MacroEngine::New,
        "Alice",
        "Marcus",
        &vars(),
        Some(MONDAY),
    )
}

#[test]
fn rules_of_the_new_engine() {
    let rows: &[(&str, &str, &str)] = &[
        // env-macros.js: user, char and the group names in a one-character chat.
        (
            "registerEnvMacros",
            "{{user}} {{CHAR}} {{ user }} {{group}} {{notChar}}",
            "Alice Marcus Alice Marcus Alice",
        ),
        // MacroEngine.js #registerCorePreProcessors: legacy markers.
        (
            "legacy markers",
            "<USER> <bot> <Char>",
            "Alice Marcus Marcus",
        ),
        // MacroEngine.js #resolveMacro: unknown macros stay, arguments evaluated.
        ("unknown macro", "{{nosuch::{{user}}}}", "{{nosuch::Alice}}"),
        // MacroRegistry.js executeMacro: a wrong argument count stays as written.
        (
            "argument count",
            "{{user::x}} {{getvar}}",
            "{{user::x}} {{getvar}}",
        ),
        // core-macros.js: newline, space, noop, reverse, comment.
        ("newline", "a{{newline}}b{{newline::2}}c", "a\nb\n\nc"),
        ("space", "a{{space::3}}b{{space::x}}", "a   b{{space::x}}"),
        (
            "reverse",
            "{{reverse::abc}} {{reverse}}ab{{/reverse}}",
            "cba ba",
        ),
        ("comment", "a{{// note }}b{{//}}gone{{///}}c", "abc"),
        // variable-macros.js: getvar and its kin.
        (
            "getvar",
            "{{getvar::hp}}|{{getvar::none}}|{{getvar hp}}",
            "25||25",
        ),
        ("getglobalvar", "{{getglobalvar::vip}}", "true"),
        (
            "hasvar",
            "{{hasvar::hp}} {{varexists::none}} {{hasglobalvar::vip}}",
            "true false true",
        ),
        ("getvarkey", "{{getvarkey::list::1}}", "b"),
        (
            "setvar then getvar",
            "{{setvar::x::5}}{{getvar::x}} {{incvar::x}} {{addvar::x::2}}{{getvar::x}}",
            "5 6 8",
        ),
        (
            "variable values are not expanded again",
            "{{getvar::who}}",
            "{{user}}",
        ),
        // MacroCstWalker.js #executeVariableOperation: shorthands.
        ("shorthand get", "{{.hp}} {{$vip}} {{.none}}", "25 true "),
        (
            "shorthand compare",
            "{{.hp < 10}} {{.hp >= 25}} {{.hp == 25}} {{.hp != 25}} {{.weather > 1}}",
            "false true true false false",
        ),
        (
            "shorthand defaults",
            "{{.none ?? dry}} {{.empty ?? dry}} {{.empty || dry}} {{.zero || dry}}",
            "dry  dry dry",
        ),
        (
            "shorthand set",
            "{{.n = 4}}{{.n++}} {{.n += 3}}{{.n}} {{.n -= 1}}{{.n}} {{.m ??= x}}{{.m}}",
            "5 8 7 xx",
        ),
        // core-macros.js if: conditions, branches, negation.
        ("if var", "{{if .weather}}wet{{else}}dry{{/if}}", "wet"),
        ("if unset", "{{if .none}}wet{{else}}dry{{/if}}", "dry"),
        (
            "if false words",
            "{{if .zero}}a{{/if}}{{if .no}}b{{/if}}{{if .empty}}c{{/if}}",
            "",
        ),
        (
            "if negated",
            "{{if !.none}}yes{{/if}} {{if ! $vip}}no{{else}}vip{{/if}}",
            "yes vip",
        ),
        (
            "if nested macro",
            "{{if {{.hp < 10}}}}hurt{{else}}fine{{/if}}",
            "fine",
        ),
        (
            "if macro name",
            "{{if user}}u{{/if}}{{if description}}d{{/if}}",
            "u",
        ),
        ("if plain text", "{{if .hp < 10}}always{{/if}}", "always"),
        (
            "if inline",
            "{{if::.weather::yes}} {{if .weather::yes}}",
            "yes {{if .weather::yes}}",
        ),
        (
            "if nested",
            "{{if .weather}}{{if .none}}both{{else}}only{{/if}}{{/if}}",
            "only",
        ),
        (
            "if upper case else",
            "{{IF .weather}}a{{ELSE}}b{{/IF}}",
            "ab",
        ),
        (
            "if trims branches",
            "{{if .weather}}\n  line one\n    two\n{{/if}}",
            "line one\n  two",
        ),
        (
            "if keeps blanks with #",
            "{{#if .weather}} a {{/if}}",
            " a ",
        ),
        // MacroCstWalker.js #processScopedMacros: pairing.
        ("unpaired closer", "a{{/if}}b", "a{{/if}}b"),
        ("unknown scoped", "{{foo}}bar{{/foo}}", "{{foo}}bar}}"),
        (
            "no scope for full macros",
            "{{user}}x{{/user}}",
            "{{user}}x{{/user}}",
        ),
        // MacroEngine.js #registerCorePostProcessors.
        ("escaped braces", "\\{\\{user\\}\\}", "{{user}}"),
        ("trim", "a\n{{trim}}\nb", "ab"),
        ("stray else", "a{{else}}b", "ab"),
        // MacroLexer.js: names in any case, blanks inside braces.
        ("case and blanks", "{{ GETVAR :: hp }}", "25"),
        // Values the preview cannot know stay as written.
        (
            "unknowable",
            "{{model}} {{random::a::b}}",
            "{{model}} {{random::a::b}}",
        ),
        // time-macros.js: the clock.
        (
            "clock",
            "{{weekday}} {{isodate}} {{ TIME::UTC+2 }}",
            "Monday 2026-12-07 6:05 PM",
        ),
        // env-macros.js: card fields are empty without a card.
        ("card fields", "[{{description}}{{persona}}]", "[]"),
    ];
    for (rule, text, want) in rows {
        assert_eq!(new(text), *want, "{rule}: {text:?}");
    }
}

#[test]
fn the_legacy_engine_leaves_new_syntax_alone() {
    let legacy = |t: &str| {
        expand(
            t,
            MacroEngine::Legacy,
            "Alice",
            "Marcus",
            &vars(),
            Some(MONDAY),
        )
    };
    assert_eq!(
        legacy("{{if .weather}}a{{else}}b{{/if}}"),
        "{{if .weather}}a{{else}}b{{/if}}"
    );
    assert_eq!(
        legacy("{{ user }}|{{USER}}|{{.hp}}"),
        "{{ user }}|Alice|{{.hp}}"
    );
    assert_eq!(legacy("{{getvar::hp}}"), "25");
    assert_eq!(legacy("{{weekday}} {{time_UTC-10}}"), "Monday 6:05 AM");
}

#[test]
fn what_an_expansion_did() {
    let e = expand_full(
        "{{setvar::a::1}}{{model}}",
        MacroEngine::New,
        "A",
        "B",
        &vars(),
        None,
    );
    assert!(e.wrote && e.unknowable);
    let e = expand_full("plain", MacroEngine::New, "A", "B", &vars(), None);
    assert!(!e.wrote && !e.unknowable);
}

#[test]
fn the_engine_a_settings_file_chooses() {
    assert_eq!(
        MacroEngine::of_settings(&json!({"power_user": {}})),
        Some(MacroEngine::New)
    );
    assert_eq!(
        MacroEngine::of_settings(&json!({"power_user": {"experimental_macro_engine": false}})),
        Some(MacroEngine::Legacy)
    );
    assert_eq!(
        MacroEngine::of_settings(&json!({"world_info_depth": 2})),
        None
    );
}

#[test]
fn adversarial_texts_stay_bounded() {
    for text in [
        "{{if ".repeat(20_000),
        "{{if .a}}".repeat(5_000) + &"{{/if}}".repeat(5_000),
        "{{a::".repeat(10_000) + &"}}".repeat(10_000),
        "{{.a = ".repeat(5_000) + &"}}".repeat(5_000),
    ] {
        let _ = new(&text);
    }
}

// core-macros.js if and the variable shorthands: what the preview shows as
// the macros' decisions.
#[test]
fn decisions_are_recorded_in_order() {
    use trace::{Branch, MacroDecision};
    let e = expand_full(
        "{{if .weather}}Wet{{else}}Dry{{/if}} {{if .none}}x{{/if}} {{$vip}}",
        MacroEngine::New,
        "A",
        "B",
        &vars(),
        None,
    );
    assert_eq!(
        e.decided,
        [
            MacroDecision::Var {
                name: "weather".into(),
                global: false,
                value: Some("storm".into())
            },
            MacroDecision::If {
                condition: ".weather".into(),
                value: "storm".into(),
                branch: Branch::Then
            },
            MacroDecision::Var {
                name: "none".into(),
                global: false,
                value: None
            },
            MacroDecision::If {
                condition: ".none".into(),
                value: "".into(),
                branch: Branch::Nothing
            },
            MacroDecision::Var {
                name: "vip".into(),
                global: true,
                value: Some("true".into())
            },
        ]
    );
    assert_eq!(
        e.decided[1].to_string(),
        "{{if .weather}} is \"storm\": the first branch"
    );
    assert_eq!(e.decided[2].to_string(), ".none is not set");
    let legacy = expand_full(
        "{{getvar::hp}}",
        MacroEngine::Legacy,
        "A",
        "B",
        &vars(),
        None,
    );
    assert!(legacy.decided.is_empty());
}
