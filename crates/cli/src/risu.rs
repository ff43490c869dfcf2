//! `lorebook preview --rules risu`: what RisuAI 460ecae would put in the
//! prompt (docs/risu-rules.md).
//!
//! The BOOKs are concatenated in order, as RisuAI concatenates the
//! character's, the chat's and the modules' books. `--risu-settings` holds
//! RisuAI's own names (`loreBookDepth`, `loreBookToken`, `loreSettings`,
//! `fmIndex`). Without `--request` or `--log` the preview is the last
//! request; `--request K` and `--log` replay requests 1…K, so the state of
//! `@@keep_activate_after_match` / `@@dont_activate_after_match` is what
//! RisuAI would hold by then.

use lorebook_engine::model::Role;
use lorebook_engine::profile::{self, Detail, Setup};
use lorebook_engine::risu::{
    Position, RisuDrop, RisuFailure, RisuOptions, RisuResult, RisuSettings, RisuWhy,
};
use serde::{Serialize, Serializer};

use super::{emit, load_chat, read_text, PreviewArgs};

fn settings_of(args: &PreviewArgs) -> Result<RisuSettings, String> {
    let Some(path) = args.risu_settings.as_deref() else {
        return Ok(RisuSettings::default());
    };
    let text = read_text(path)?;
    RisuSettings::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
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
    let mut p = profile::build(
        &named,
        Setup::Risu {
            settings,
            options: RisuOptions {
                tokenizer,
                seed: args.seed,
            },
        },
    )?;
    crate::books::drive(&mut *p, &chat, args, &mut |o| {
        let Detail::Risu(r) = &o.detail else {
            return;
        };
        if args.json {
            let mut line = to_json(r, args.list_unmatched);
            line.push('\n');
            emit(&line);
        } else {
            emit(&render(r, chat.len(), &counted_with, args.list_unmatched));
        }
    })
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

/// The documented JSON object of one request (see the README), written
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
}

fn to_json(r: &RisuResult, list_unmatched: bool) -> String {
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
