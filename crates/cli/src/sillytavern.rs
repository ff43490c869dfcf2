//! `lorebook preview --rules sillytavern`: what SillyTavern would inject.
//!
//! Every BOOK is one of SillyTavern's global books, named by its file stem
//! (the name timed effects are keyed by). Without `--request` or `--log`
//! the preview is the generation SillyTavern would run now, with the
//! sticky and cooldown records stored in a `.jsonl` chat's metadata;
//! `--log` and `--request K` simulate requests 1…K from no timed effects.

use std::path::Path;

use lorebook_engine::chat::{self, ChatOptions, Message};
use lorebook_engine::formats;
use lorebook_engine::profile::{self, Detail, FinalPrompt, PromptDetail, Setup};
use lorebook_engine::sillytavern::macros::{self, MacroEngine, Variables};
use lorebook_engine::sillytavern::{
    AuthorsNote, CharacterNote, MatchSources, Names, NotePosition, PromptSource, StOptions,
    StPrompt, StPromptInputs, StResult, StSettings, TimedState,
};
use serde_json::{json, Value};

use super::{emit, read_text, PreviewArgs};

/// The context size used when `--max-context` is not given.
pub use lorebook_engine::sillytavern::DEFAULT_MAX_CONTEXT;

/// The metadata line of a SillyTavern `.jsonl` chat, when there is one.
fn chat_header(text: &str) -> Option<Value> {
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    let v: Value = lorebook_engine::formats::parse_json(first.as_bytes()).ok()?;
    (v.is_object() && v.get("mes").is_none()).then_some(v)
}

fn settings_of(path: Option<&Path>) -> Result<StSettings, String> {
    let Some(path) = path else {
        return Ok(StSettings::default());
    };
    let text = read_text(path)?;
    // Out-of-range numbers are clamped to what SillyTavern's panel allows,
    // as the app reads a settings file (the engine's `ST_RANGES`).
    StSettings::from_json(&text)
        .map(StSettings::clamped)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The macro engine and variables for keys and content: the engine from
/// `--macros`, else the settings file's `power_user`, else a new install's;
/// the global variables from the settings file, the chat's from its first
/// line.
fn macro_setup(
    args: &PreviewArgs,
    header: Option<&Value>,
) -> Result<(MacroEngine, Variables), String> {
    let settings = match args.settings.st_settings.as_deref() {
        Some(path) => Some(
            lorebook_engine::formats::parse_json(read_text(path)?.as_bytes())
                .map_err(|e| format!("{}: {e}", path.display()))?,
        ),
        None => None,
    };
    let engine = match args.macros.as_deref() {
        Some(name) => MacroEngine::parse(name)?,
        None => settings
            .as_ref()
            .and_then(MacroEngine::of_settings)
            .unwrap_or_default(),
    };
    let vars = Variables {
        local: macros::chat_variables(header),
        global: settings
            .as_ref()
            .map(macros::global_variables)
            .unwrap_or_default(),
    };
    Ok((engine, vars))
}

/// The macro engine a settings file chooses (a new install's without one,
/// or when the file is a bare `world_info_settings` object).
pub fn macro_engine_of(path: Option<&Path>) -> Result<MacroEngine, String> {
    let Some(path) = path else {
        return Ok(MacroEngine::default());
    };
    let value = lorebook_engine::formats::parse_json(read_text(path)?.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(MacroEngine::of_settings(&value).unwrap_or_default())
}

/// `--max-context N` within the range the app takes (`ST_RANGES`).
pub fn max_context_of(given: Option<u32>) -> Result<u32, String> {
    let n = given.unwrap_or(DEFAULT_MAX_CONTEXT);
    let r = lorebook_engine::sillytavern::StRange::of(
        lorebook_engine::sillytavern::StRanged::MaxContext,
    );
    if r.holds(f64::from(n)) {
        Ok(n)
    } else {
        Err(format!(
            "--max-context must be from {} to {} tokens",
            r.min, r.max
        ))
    }
}

/// The match sources and the prompt's card fields: from a character card
/// (`data.description`, …) or from a [`MatchSources`] object.
pub(crate) fn sources_of(path: Option<&Path>) -> Result<(MatchSources, StPromptInputs), String> {
    let Some(path) = path else {
        return Ok((MatchSources::default(), StPromptInputs::default()));
    };
    let text = read_text(path)?;
    // The JSON caps of books: a card of millions of empty arrays is refused
    // before it is parsed.
    let value: Value = lorebook_engine::formats::parse_json(text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if let Some(data) = value.get("data").filter(|d| d.is_object()) {
        let field = |p: &str| {
            data.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let sources = MatchSources {
            character_description: field("/description"),
            character_personality: field("/personality"),
            character_depth_prompt: field("/extensions/depth_prompt/prompt"),
            scenario: field("/scenario"),
            creator_notes: field("/creator_notes"),
            ..MatchSources::default()
        };
        let mut inputs = StPromptInputs {
            description: sources.character_description.clone(),
            personality: sources.character_personality.clone(),
            scenario: sources.scenario.clone(),
            examples: field("/mes_example"),
            ..StPromptInputs::default()
        };
        // A card's own system prompt replaces the main prompt, where
        // {{original}} stands for the main prompt it replaces
        // (openai.js: preparePromptsForChatCompletion).
        let system = field("/system_prompt");
        if !system.trim().is_empty() {
            inputs.main = replace_original(&system, &inputs.main);
        }
        let note = js_trim_text(&sources.character_depth_prompt);
        if !note.is_empty() {
            let depth = data
                .pointer("/extensions/depth_prompt/depth")
                .map(js_number)
                .unwrap_or(4.0);
            let role = match data
                .pointer("/extensions/depth_prompt/role")
                .and_then(Value::as_str)
                .unwrap_or("system")
            {
                "user" => 1,
                "assistant" => 2,
                _ => 0,
            };
            inputs.character_note = Some(CharacterNote {
                text: note.to_string(),
                depth,
                role,
            });
        }
        return Ok((sources, inputs));
    }
    let sources: MatchSources =
        serde_json::from_value(value).map_err(|e| format!("{}: {e}", path.display()))?;
    let inputs = StPromptInputs {
        persona: sources.persona_description.clone(),
        description: sources.character_description.clone(),
        personality: sources.character_personality.clone(),
        scenario: sources.scenario.clone(),
        character_note: (!js_trim_text(&sources.character_depth_prompt).is_empty()).then(|| {
            CharacterNote {
                text: sources.character_depth_prompt.clone(),
                depth: 4.0,
                role: 0,
            }
        }),
        ..StPromptInputs::default()
    };
    Ok((sources, inputs))
}

fn js_trim_text(s: &str) -> &str {
    lorebook_engine::sillytavern::matching::js_trim(s)
}

/// JavaScript `Number(value)` of a JSON value (as SillyTavern reads numbers).
fn js_number(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) if s.trim().is_empty() => 0.0,
        Value::String(s) => s.trim().parse().unwrap_or(f64::NAN),
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Null => 0.0,
        _ => f64::NAN,
    }
}

/// `{{original}}` (any case) replaced by `original`.
pub(crate) fn replace_original(text: &str, original: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::new();
    let mut last = 0;
    for (at, _) in lower.match_indices("{{original}}") {
        out.push_str(&text[last..at]);
        out.push_str(original);
        last = at + "{{original}}".len();
    }
    out.push_str(&text[last..]);
    out
}

/// The Author's Note: the chat's `note_*` metadata, then the options.
fn authors_note(args: &PreviewArgs, header: Option<&Value>) -> AuthorsNote {
    let mut note = AuthorsNote::from_metadata(header.and_then(|h| h.get("chat_metadata")));
    if let Some(text) = &args.author_note {
        note.text = text.clone();
    }
    if let Some(n) = args.author_note_interval {
        note.interval = n;
    }
    if let Some(d) = args.author_note_depth {
        note.depth = d;
    }
    match args.author_note_position.as_deref() {
        Some("after_main") => note.position = NotePosition::AfterMain,
        Some("before_main") => note.position = NotePosition::BeforeMain,
        Some(_) => note.position = NotePosition::InChat,
        None => {}
    }
    match args.author_note_role.as_deref() {
        Some("user") => note.role = 1,
        Some("assistant") => note.role = 2,
        Some(_) => note.role = 0,
        None => {}
    }
    note
}

pub fn preview(args: &PreviewArgs) -> Result<(), String> {
    // Loaded before the books and the chat, so a wrong file or model fails
    // fast. The model's tokenizer is of any family, as under the guide's
    // rules: OpenAI's built in, the others read from their files.
    let (tokenizer, counted_with) =
        crate::tokens::preview_tokenizer(args.tokenizer.as_deref(), &args.model)?;
    let settings = settings_of(args.settings.st_settings.as_deref())?;
    let mut books = Vec::new();
    for path in &args.books {
        let bytes = formats::read_limited(path)?;
        let imported = formats::import(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        books.push((name, imported.book));
    }
    let text = read_text(&args.chat)?;
    let header = chat_header(&text);
    let mut options = ChatOptions::default();
    if !args.user_names.is_empty() {
        options.user_names = args.user_names.clone();
    }
    let parsed =
        chat::parse(&text, &options).map_err(|e| format!("{}: {e}", args.chat.display()))?;
    for w in &parsed.warnings {
        eprintln!("warning: {}: {w}", args.chat.display());
    }
    let chat = parsed.messages;
    let from_header = |key: &str| {
        header
            .as_ref()
            .and_then(|h| h.get(key))
            .and_then(Value::as_str)
            .map(String::from)
    };
    let (engine, vars) = macro_setup(args, header.as_ref())?;
    let names = Names {
        user: args
            .user
            .clone()
            .or_else(|| from_header("user_name"))
            .unwrap_or_else(|| "User".into()),
        char: args
            .char
            .clone()
            .or_else(|| from_header("character_name"))
            .unwrap_or_else(|| "Character".into()),
        engine,
        vars: std::sync::Arc::new(vars),
        clock: None,
    };
    let refs: Vec<(String, &lorebook_engine::model::Book)> =
        books.iter().map(|(n, b)| (n.clone(), b)).collect();
    let (sources, mut inputs) = sources_of(args.st_sources.as_deref())?;
    if let Some(text) = &args.system_prompt {
        inputs.main = text.clone();
    }
    inputs.authors_note = authors_note(args, header.as_ref());
    let stored = TimedState::from_metadata(
        header
            .as_ref()
            .and_then(|h| h.pointer("/chat_metadata/timedWorldInfo")),
    );
    let max_context = max_context_of(args.settings.max_context)?;
    let mut p = profile::build(
        &refs,
        Setup::Sillytavern {
            settings: settings.clone(),
            options: StOptions {
                names,
                sources,
                tokenizer,
                seed: args.seed,
            },
            max_context,
            inputs: Box::new(inputs),
            stored,
        },
    )?;
    // Each request's prompt is built from the messages it saw.
    p.set_prompts(true);
    crate::books::drive(&mut *p, &chat, args, &mut |o| {
        let (
            Detail::Sillytavern(r),
            Some(FinalPrompt {
                detail: Some(PromptDetail::Sillytavern(prompt)),
                ..
            }),
        ) = (&o.detail, &o.prompt)
        else {
            return;
        };
        if args.json {
            emit(&format!("{}\n", to_json(r, prompt, &settings, max_context)));
        } else {
            emit(&render(
                r,
                prompt,
                &settings,
                max_context,
                &chat,
                &counted_with,
            ));
        }
    })
}

/// A number as JSON: integers without a fraction.
fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9e15 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

/// The documented JSON object of one request (see docs/cli.md).
fn to_json(r: &StResult, prompt: &StPrompt, s: &StSettings, max_context: u32) -> Value {
    let injected: Vec<Value> = r
        .injected
        .iter()
        .map(|i| {
            let mut item = json!({
                "book": i.book,
                "id": i.id,
                "comment": i.comment,
                "position": i.position,
                "depth": i.depth.map(number),
                "role": i.role,
                "outlet": i.outlet,
                "order": number(i.order),
                "tokens": i.tokens,
                "pass": i.pass,
                "reason": i.reason.to_string(),
            });
            // Where macros decided, only when they did (outputs of books
            // without macros are unchanged).
            if !i.decided.is_empty() {
                item["macros"] = json!(i.decided.iter().map(|d| d.to_string()).collect::<Vec<_>>());
            }
            item
        })
        .collect();
    let dropped = |list: &[lorebook_engine::sillytavern::StDropped]| -> Vec<Value> {
        list.iter()
            .map(|d| {
                json!({
                    "book": d.book,
                    "id": d.id,
                    "comment": &*d.comment,
                    "reason": d.kind,
                    "detail": d.detail.to_string(),
                })
            })
            .collect()
    };
    json!({
        "rules": "sillytavern",
        "request": r.request,
        "chat_length": r.chat_length,
        "budget": {
            "limit": r.budget,
            "used": r.used,
            "overflowed": r.overflowed,
            "percent": number(s.budget_percent),
            "cap": number(s.budget_cap),
            "context": max_context,
        },
        "passes": r.passes,
        "injected": injected,
        "not_placed": dropped(&r.not_placed),
        "dropped": dropped(&r.dropped),
        "activation_order": r.activation_order,
        "prompt": prompt,
    })
}

fn render(
    r: &StResult,
    prompt: &StPrompt,
    s: &StSettings,
    max_context: u32,
    chat: &[Message],
    model: &str,
) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let cap = if s.budget_cap > 0.0 {
        format!(", cap {}", s.budget_cap)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "Request {} of {} (SillyTavern rules) · budget: {}% of {max_context} = {} tokens{cap} ({model}), {} used{} · {} scan pass(es)",
        r.request,
        chat.len(),
        s.budget_percent,
        r.budget,
        r.used,
        if r.overflowed { ", overflowed" } else { "" },
        r.passes
    );
    let _ = writeln!(
        out,
        "Injected ({}), position by position in SillyTavern's order:",
        r.injected.len()
    );
    for (n, i) in r.injected.iter().enumerate() {
        let place = match (i.depth, i.role, &i.outlet) {
            (Some(d), Some(role), _) => format!("at depth {d} as {}", role.as_str()),
            (_, _, Some(o)) => format!("outlet \"{o}\""),
            _ => i.position.as_str().to_string(),
        };
        let _ = writeln!(
            out,
            "  {:>2}. [{}:{}] {}  {place}  order {}  {} tokens",
            n + 1,
            i.book,
            i.id,
            i.comment,
            i.order,
            i.tokens
        );
        let _ = writeln!(out, "      {}", i.reason);
        for d in &i.decided {
            let _ = writeln!(out, "      macros: {d}");
        }
    }
    if !r.not_placed.is_empty() {
        let _ = writeln!(out, "Activated but not placed ({}):", r.not_placed.len());
        for d in &r.not_placed {
            let _ = writeln!(
                out,
                "      [{}:{}] {} — {}",
                d.book, d.id, d.comment, d.detail
            );
        }
    }
    let _ = writeln!(out, "Dropped ({}):", r.dropped.len());
    for d in &r.dropped {
        let _ = writeln!(
            out,
            "      [{}:{}] {} — {}",
            d.book, d.id, d.comment, d.detail
        );
    }
    render_prompt(&mut out, prompt);
    out.push('\n');
    out
}

/// Where a prompt message's pieces came from, in short.
fn source_label(s: &PromptSource) -> String {
    match s {
        PromptSource::Entry { book, id, .. } => format!("[{book}:{id}]"),
        PromptSource::Chat { index } => format!("message {}", index + 1),
        PromptSource::Example { block } => format!("card example {}", block + 1),
        other => serde_json::to_value(other)
            .ok()
            .and_then(|v| v["kind"].as_str().map(|k| k.replace('_', " ")))
            .unwrap_or_default(),
    }
}

fn render_prompt(out: &mut String, prompt: &StPrompt) {
    use std::fmt::Write;
    let _ = writeln!(
        out,
        "Prompt ({} messages, {} tokens; Author's Note {}):",
        prompt.messages.len(),
        prompt.tokens,
        if prompt.authors_note_due {
            "due this request"
        } else {
            "not due this request"
        }
    );
    for m in &prompt.messages {
        let from: Vec<String> = m.sources.iter().map(source_label).collect();
        let block = serde_json::to_value(m.block).unwrap_or_default();
        let _ = writeln!(
            out,
            "  {:>9} [{}] {}: {}",
            m.role.as_str(),
            block.as_str().unwrap_or_default(),
            from.join(", "),
            m.content.replace('\n', "\n             ")
        );
    }
    for a in &prompt.absent {
        let _ = writeln!(
            out,
            "  not in the prompt: [{}:{}] — {}",
            a.book, a.id, a.detail
        );
    }
}
