//! `lorebook preview --rules risu`: what RisuAI 460ecae would put in the
//! prompt (docs/risu-rules.md).
//!
//! The BOOKs are concatenated in order, as RisuAI concatenates the
//! character's, the chat's and the modules' books. `--risu-settings` holds
//! RisuAI's own names (`loreBookDepth`, `loreBookToken`, `loreSettings`,
//! `fmIndex`). Without `--request` or `--log` the preview is the last
//! request; `--request K` and `--log` replay requests 1…K, so the state of
//! `@@keep_activate_after_match` / `@@dont_activate_after_match` is what
//! RisuAI would hold by then. A single request also shows the final
//! prompt RisuAI sends without a prompt template (`risu::prompt`), built
//! from the chat, `--st-sources` (the card's texts) and `--system-prompt`.

use lorebook_engine::model::Role;
use lorebook_engine::profile::{self, Detail, FinalPrompt, PromptDetail, Setup};
use lorebook_engine::risu::prompt::{RisuPrompt, RisuPromptInputs, RisuSource};
use lorebook_engine::risu::{
    Position, RisuDrop, RisuFailure, RisuOptions, RisuResult, RisuSettings, RisuWhy,
};

use serde::{Serialize, Serializer};

use super::{emit, load_chat, read_text, PreviewArgs};

fn settings_of(args: &PreviewArgs) -> Result<RisuSettings, String> {
    args.settings.risu()
}

/// A number as JSON: integers without a fraction, NaN as null.
struct Number(f64);

impl Serialize for Number {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = self.0;
        if n.is_nan() {
            s.serialize_none()
        } else if n.fract() == 0.0 && n.abs() < 9e15 {
            s.serialize_i64(n as i64)
        } else {
            s.serialize_f64(n)
        }
    }
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&serde_json::to_string(self).map_err(|_| std::fmt::Error)?)
    }
}

/// A value written as its `Display` text.
struct Shown<'a, T: std::fmt::Display>(&'a T);

impl<T: std::fmt::Display> Serialize for Shown<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self.0)
    }
}

pub fn preview(args: &PreviewArgs) -> Result<(), String> {
    let (tokenizer, counted_with) =
        crate::tokens::preview_tokenizer(args.tokenizer.as_deref(), &args.model)?;
    let settings = settings_of(args)?;
    let mut books = Vec::new();
    for path in &args.books {
        books.push(crate::books::load(path)?.book);
    }
    let chat = load_chat(&args.chat, &args.user_names)?;
    let named: Vec<(String, &lorebook_engine::model::Book)> =
        books.iter().map(|b| (String::new(), b)).collect();
    let (_, card) = crate::sillytavern::sources_of(args.st_sources.as_deref())?;
    let inputs = RisuPromptInputs {
        // RisuAI's own default main prompt is not reproduced: the card's
        // system prompt ({{original}}, the global one, left empty) or
        // --system-prompt.
        main: match &args.system_prompt {
            Some(text) => text.clone(),
            None => card_system_prompt(args.st_sources.as_deref())?,
        },
        description: card.description,
        personality: card.personality,
        scenario: card.scenario,
        examples: card.examples,
        greeting: card_greeting(args.st_sources.as_deref(), settings.fm_index)?,
        ..RisuPromptInputs::default()
    };
    let mut p = profile::build(
        &named,
        Setup::Risu {
            settings,
            options: RisuOptions {
                tokenizer,
                seed: args.seed,
            },
            inputs: Box::new(inputs),
        },
    )?;
    // One request shows its prompt; a log would repeat the chat in each.
    p.set_prompts(!args.log);
    crate::books::drive(&mut *p, &chat, args, &mut |o| {
        let Detail::Risu(r) = &o.detail else {
            return;
        };
        let prompt = match &o.prompt {
            Some(FinalPrompt {
                detail: Some(PromptDetail::Risu(p)),
                ..
            }) => Some(p),
            _ => None,
        };
        if args.json {
            let mut line = to_json(r, args.list_unmatched, prompt);
            line.push('\n');
            emit(&line);
        } else {
            let mut text = render(r, chat.len(), &counted_with, args.list_unmatched);
            if let Some(p) = prompt {
                text.pop();
                text.push_str(&render_prompt(p));
                text.push('\n');
            }
            emit(&text);
        }
    })
}

/// The system prompt of the card `--st-sources` names, `{{original}}`
/// (RisuAI's global main prompt) left empty; empty without a card.
fn card_system_prompt(path: Option<&std::path::Path>) -> Result<String, String> {
    let Some(path) = path else {
        return Ok(String::new());
    };
    let v: serde_json::Value = lorebook_engine::formats::parse_json(read_text(path)?.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let system = v
        .pointer("/data/system_prompt")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    Ok(crate::sillytavern::replace_original(system, ""))
}

/// The greeting RisuAI puts after the new-chat line: the card's first
/// message, or alternate greeting `fm_index` (RisuAI's `fmIndex`).
fn card_greeting(path: Option<&std::path::Path>, fm_index: i64) -> Result<String, String> {
    let Some(path) = path else {
        return Ok(String::new());
    };
    let v: serde_json::Value = lorebook_engine::formats::parse_json(read_text(path)?.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let text = match usize::try_from(fm_index) {
        Ok(k) => v.pointer(&format!("/data/alternate_greetings/{k}")),
        Err(_) => v.pointer("/data/first_mes"),
    };
    Ok(text
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .to_string())
}

/// The prompt as text: one line per message, its role, where it comes
/// from and its first line.
fn render_prompt(p: &RisuPrompt) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Prompt ({} messages, as RisuAI sends it without a prompt template):",
        p.messages.len()
    );
    for m in &p.messages {
        let from = match &m.source {
            RisuSource::Entry { book, id } => format!("entry [{book}:{id}]"),
            RisuSource::Chat { index } => format!("message {}", index + 1),
            other => serde_json::to_value(other)
                .ok()
                .and_then(|v| v.get("kind").and_then(|k| k.as_str()).map(str::to_string))
                .unwrap_or_default(),
        };
        let first = m.content.lines().next().unwrap_or_default();
        let short: String = first.chars().take(72).collect();
        let more = if short.len() < m.content.len() {
            "…"
        } else {
            ""
        };
        let _ = writeln!(out, "  {:<9} {from}: {short}{more}", m.role.as_str());
    }
    for a in &p.absent {
        let _ = writeln!(
            out,
            "  not in the prompt: [{}:{}] ({}: placed only by a prompt template)",
            a.book, a.id, a.position
        );
    }
    out
}

/// Reasons listed one by one only with `--list-unmatched`.
fn is_unmatched(d: &lorebook_engine::risu::RisuDropped) -> bool {
    use lorebook_engine::risu::RisuDrop;
    matches!(d.reason, RisuDrop::NoMatch | RisuDrop::EmptyKey)
}

#[derive(Serialize)]
struct Budget {
    limit: Number,
    used: u32,
}

#[derive(Serialize)]
struct InjectedJson<'a> {
    book: usize,
    id: u64,
    comment: &'a str,
    position: Shown<'a, Position>,
    depth: Option<Number>,
    role: Role,
    order: Number,
    priority: Number,
    tokens: u32,
    pass: u32,
    reason: Shown<'a, RisuWhy>,
    why: &'a RisuWhy,
    /// What RisuAI sends when it is not the body as written (CBS
    /// evaluated, `{{position::name}}` filled in).
    #[serde(skip_serializing_if = "Option::is_none")]
    sent: Option<&'a str>,
}

#[derive(Serialize)]
struct DroppedJson<'a> {
    book: usize,
    id: u64,
    comment: &'a str,
    reason: Shown<'a, RisuDrop>,
    why: &'a RisuDrop,
}

#[derive(Serialize)]
struct FailureJson<'a> {
    book: usize,
    id: u64,
    comment: &'a str,
    reason: Shown<'a, RisuFailure>,
}

/// The documented JSON object of one request (see docs/cli.md), written
/// straight from the result.
#[derive(Serialize)]
struct RequestJson<'a> {
    rules: &'static str,
    request: usize,
    budget: Budget,
    passes: u32,
    injected: Vec<InjectedJson<'a>>,
    dropped: Vec<DroppedJson<'a>>,
    unmatched: usize,
    failure: Option<FailureJson<'a>>,
    /// The final prompt, for a single request.
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt: Option<&'a RisuPrompt>,
}

fn to_json(r: &RisuResult, list_unmatched: bool, prompt: Option<&RisuPrompt>) -> String {
    let injected = r
        .injected
        .iter()
        .map(|i| InjectedJson {
            book: i.book,
            id: i.id,
            comment: &i.comment,
            position: Shown(&i.position),
            depth: i.depth.map(Number),
            role: i.role,
            order: Number(i.order),
            priority: Number(i.priority),
            tokens: i.tokens,
            pass: i.pass,
            reason: Shown(&i.reason),
            why: &i.reason,
            sent: i.sent.as_deref(),
        })
        .collect();
    let mut unmatched = 0usize;
    let dropped = r
        .dropped
        .iter()
        .filter(|d| {
            let skip = !list_unmatched && is_unmatched(d);
            unmatched += usize::from(skip);
            !skip
        })
        .map(|d| DroppedJson {
            book: d.book,
            id: d.id,
            comment: &d.comment,
            reason: Shown(&d.reason),
            why: &d.reason,
        })
        .collect();
    let json = RequestJson {
        rules: "risu",
        request: r.request,
        budget: Budget {
            limit: Number(r.budget),
            used: r.used,
        },
        passes: r.passes,
        injected,
        dropped,
        unmatched,
        failure: r.failure.as_ref().map(|f| FailureJson {
            book: f.book,
            id: f.id,
            comment: &f.comment,
            reason: Shown(f),
        }),
        prompt,
    };
    serde_json::to_string(&json).expect("a request's JSON is always written")
}

fn render(r: &RisuResult, messages: usize, model: &str, list_unmatched: bool) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Request {} of {messages} (RisuAI rules) · budget {} tokens ({model}), {} used · {} pass(es)",
        r.request,
        Number(r.budget),
        r.used,
        r.passes
    );
    if let Some(f) = &r.failure {
        let _ = writeln!(out, "Fails: {f}");
        out.push('\n');
        return out;
    }
    let _ = writeln!(
        out,
        "Injected ({}), in RisuAI's final order:",
        r.injected.len()
    );
    for (n, i) in r.injected.iter().enumerate() {
        let place = match i.depth {
            Some(d) => format!("{} {} as {}", i.position, Number(d), i.role.as_str()),
            None => format!("{} as {}", i.position, i.role.as_str()),
        };
        let _ = writeln!(
            out,
            "  {:>2}. [{}:{}] {}  {place}  order {}  {} tokens",
            n + 1,
            i.book,
            i.id,
            i.comment,
            Number(i.order),
            i.tokens
        );
        let _ = writeln!(out, "      {}", i.reason);
        if i.sent.as_ref().is_some_and(|s| s.trim().is_empty()) {
            let _ = writeln!(
                out,
                "      sends nothing: its text is empty once CBS is evaluated"
            );
        } else if let Some(sent) = &i.sent {
            let one_line = sent.replace('\n', " ⏎ ");
            let short: String = one_line.chars().take(100).collect();
            let more = if short.len() < one_line.len() {
                "…"
            } else {
                ""
            };
            let _ = writeln!(out, "      sends: {short}{more}");
        }
    }
    let (listed, unmatched): (Vec<_>, Vec<_>) = r
        .dropped
        .iter()
        .partition(|d| list_unmatched || !is_unmatched(d));
    let _ = writeln!(out, "Dropped ({}):", r.dropped.len());
    for d in listed {
        let _ = writeln!(
            out,
            "      [{}:{}] {} — {}",
            d.book, d.id, d.comment, d.reason
        );
    }
    if !unmatched.is_empty() {
        let _ = writeln!(
            out,
            "      … and {} with no key matched (--list-unmatched lists them)",
            unmatched.len()
        );
    }
    out.push('\n');
    out
}
