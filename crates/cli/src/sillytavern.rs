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
use lorebook_engine::sillytavern::{
    MatchSources, Names, StOptions, StPreview, StResult, StSettings, TimedState,
};
use lorebook_engine::tokenizer::encoding_for_model;
use serde_json::{json, Value};

use super::{emit, read_text, PreviewArgs};

/// The context size used when `--max-context` is not given.
pub const DEFAULT_MAX_CONTEXT: u32 = 8192;

/// The metadata line of a SillyTavern `.jsonl` chat, when there is one.
fn chat_header(text: &str) -> Option<Value> {
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    let v: Value = serde_json::from_str(first).ok()?;
    (v.is_object() && v.get("mes").is_none()).then_some(v)
}

fn settings_of(path: Option<&Path>) -> Result<StSettings, String> {
    let Some(path) = path else {
        return Ok(StSettings::default());
    };
    let text = read_text(path)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("{}: {e}", path.display()))?;
    StSettings::from_value(&value).map_err(|e| format!("{}: {e}", path.display()))
}

/// The match sources: a character card's fields (`data.description`, …)
/// or the [`MatchSources`] object itself.
fn sources_of(path: Option<&Path>) -> Result<MatchSources, String> {
    let Some(path) = path else {
        return Ok(MatchSources::default());
    };
    let text = read_text(path)?;
    let value: Value = serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(&text))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if let Some(data) = value.get("data").filter(|d| d.is_object()) {
        let field = |p: &str| {
            data.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        return Ok(MatchSources {
            character_description: field("/description"),
            character_personality: field("/personality"),
            character_depth_prompt: field("/extensions/depth_prompt/prompt"),
            scenario: field("/scenario"),
            creator_notes: field("/creator_notes"),
            ..MatchSources::default()
        });
    }
    serde_json::from_value(value).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn preview(args: &PreviewArgs) -> Result<(), String> {
    let encoding = encoding_for_model(&args.model)?;
    let settings = settings_of(args.st_settings.as_deref())?;
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
    };
    let refs: Vec<(String, &lorebook_engine::model::Book)> =
        books.iter().map(|(n, b)| (n.clone(), b)).collect();
    let mut p = StPreview::new(
        &refs,
        settings.clone(),
        StOptions {
            names,
            sources: sources_of(args.st_sources.as_deref())?,
            encoding,
            seed: args.seed,
        },
    )?;
    let max_context = args.max_context.unwrap_or(DEFAULT_MAX_CONTEXT);
    let print = |r: &StResult| {
        if args.json {
            emit(&format!("{}\n", to_json(r, &settings, max_context)));
        } else {
            emit(&render(r, &settings, max_context, &chat, &args.model));
        }
    };
    if args.log {
        p.log(&chat, max_context, |r| print(&r));
    } else if let Some(k) = args.request {
        if k > chat.len() {
            return Err(format!(
                "--request {k} is past the end of the chat ({} messages)",
                chat.len()
            ));
        }
        let mut last = None;
        p.log(&chat[..k], max_context, |r| last = Some(r));
        match last {
            Some(r) => print(&r),
            None => print(&p.request(&[], max_context, &mut TimedState::default())),
        }
    } else {
        let mut state = TimedState::from_metadata(
            header
                .as_ref()
                .and_then(|h| h.pointer("/chat_metadata/timedWorldInfo")),
        );
        print(&p.request(&chat, max_context, &mut state));
    }
    Ok(())
}

/// A number as JSON: integers without a fraction.
fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9e15 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

/// The documented JSON object of one request (see the README).
fn to_json(r: &StResult, s: &StSettings, max_context: u32) -> Value {
    let injected: Vec<Value> = r
        .injected
        .iter()
        .map(|i| {
            json!({
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
                "reason": i.reason,
            })
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
                    "detail": &*d.detail,
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
    })
}

fn render(r: &StResult, s: &StSettings, max_context: u32, chat: &[Message], model: &str) -> String {
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
            (Some(d), Some(role), _) => format!("at depth {d} as {role}"),
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
    out.push('\n');
    out
}
