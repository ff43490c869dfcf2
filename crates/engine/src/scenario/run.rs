//! Running a scenario and recording one, through the profiles' seam.

use serde::Serialize;
use serde_json::Value;

use super::{Expect, Expected, Scenario, Settings};
use crate::chat::{self, ChatOptions, Message};
use crate::model::Book;
use crate::preview;
use crate::profile::{self, Outcome, Profile, ProfileName, Reason, Setup};
use crate::risu::{RisuOptions, RisuSettings};
use crate::sillytavern::{
    Names, StOptions, StPromptInputs, StSettings, TimedState, DEFAULT_MAX_CONTEXT,
};
use crate::tokenizer::tokenizer_for_model;

/// Why a scenario failed, one broken expectation.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum Failure {
    /// An entry expected in the prompt is not: `why` is the rules' reason.
    NotInjected {
        id: u64,
        name: String,
        request: usize,
        /// The rules' reason, in English and typed.
        why: String,
        reason: Option<Reason>,
    },
    /// An entry expected out of the prompt is in it (or, with `exactly`,
    /// an entry no expectation names).
    Injected {
        id: u64,
        name: String,
        request: usize,
        why: String,
        reason: Option<Reason>,
    },
    /// Injected, but elsewhere.
    Moved {
        id: u64,
        name: String,
        request: usize,
        expected: String,
        found: String,
    },
    /// The expected entry is no longer in the book.
    Missing { id: u64, name: String },
    /// The budget used more than allowed.
    OverBudget { request: usize, used: u32, max: u32 },
    /// Entries were cut by the budget.
    Cut { request: usize, names: Vec<String> },
    /// A request past the end of the chat.
    NoSuchRequest { request: usize, requests: usize },
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::NotInjected {
                name, request, why, ..
            } => write!(f, "'{name}' is not injected in request {request}: {why}"),
            Failure::Injected {
                name, request, why, ..
            } => write!(f, "'{name}' is injected in request {request}: {why}"),
            Failure::Moved {
                name,
                request,
                expected,
                found,
                ..
            } => write!(
                f,
                "'{name}' is injected in request {request} at {found}, not {expected}"
            ),
            Failure::Missing { id, name } => {
                write!(f, "'{name}' (id {id}) is no longer in the book")
            }
            Failure::OverBudget { request, used, max } => write!(
                f,
                "request {request} used {used} tokens of the budget, more than {max}"
            ),
            Failure::Cut { request, names } => write!(
                f,
                "the budget cut {} in request {request}",
                names
                    .iter()
                    .map(|n| format!("'{n}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Failure::NoSuchRequest { request, requests } => write!(
                f,
                "request {request} is past the end of the chat ({requests} messages)"
            ),
        }
    }
}

/// A scenario's answer: passed when nothing failed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Verdict {
    pub name: String,
    pub rules: ProfileName,
    pub passed: bool,
    pub failures: Vec<Failure>,
}

/// The chat of a scenario, with the names and state a SillyTavern chat
/// file's header carries.
struct Chat {
    messages: Vec<Message>,
    header: Option<Value>,
}

fn chat_of(text: &str) -> Result<Chat, String> {
    let parsed = chat::parse(text, &ChatOptions::default()).map_err(|e| e.to_string())?;
    let header = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|first| serde_json::from_str::<Value>(first).ok())
        .filter(|v| v.is_object() && v.get("mes").is_none());
    Ok(Chat {
        messages: parsed.messages,
        header,
    })
}

/// The profile `rules` with `settings` over `book`, and the messages of
/// `chat`: what a scenario runs under (and `lorebook diff` compares with).
pub fn prepare(
    book: &Book,
    rules: ProfileName,
    settings: &Settings,
    chat: &str,
) -> Result<(Box<dyn Profile>, Vec<Message>), String> {
    let chat = chat_of(chat)?;
    let profile = build(book, settings, rules, &chat)?;
    Ok((profile, chat.messages))
}

/// The profile a scenario runs under, over `book`.
fn build(
    book: &Book,
    s: &Settings,
    rules: ProfileName,
    chat: &Chat,
) -> Result<Box<dyn Profile>, String> {
    let model = s
        .model
        .clone()
        .unwrap_or_else(|| rules.info().default_model.to_string());
    let mut book = book.clone();
    let setup = match rules {
        ProfileName::Studio => {
            if let Some(d) = s.scan_depth {
                book.scan_depth = d;
            }
            if let Some(b) = s.token_budget {
                book.token_budget = b;
            }
            crate::tokenizer::registry::family_of(&model)?;
            Setup::Studio {
                settings: preview::Settings {
                    seed: s.seed,
                    model,
                    ..preview::Settings::default()
                },
                tokenizer: None,
            }
        }
        ProfileName::Sillytavern => {
            let settings = match &s.sillytavern {
                Some(v) => StSettings::from_value(v)?.clamped(),
                None => StSettings::default(),
            };
            let from_header = |key: &str| {
                chat.header
                    .as_ref()
                    .and_then(|h| h.get(key))
                    .and_then(Value::as_str)
                    .map(String::from)
            };
            Setup::Sillytavern {
                settings,
                options: StOptions {
                    names: Names {
                        user: s
                            .user
                            .clone()
                            .or_else(|| from_header("user_name"))
                            .unwrap_or_else(|| "User".into()),
                        char: s
                            .char
                            .clone()
                            .or_else(|| from_header("character_name"))
                            .unwrap_or_else(|| "Character".into()),
                        // The macro engine and global variables of the
                        // settings kept with the scenario, the chat's own
                        // variables from its header, as the CLI reads them.
                        engine: s
                            .sillytavern
                            .as_ref()
                            .and_then(crate::sillytavern::macros::MacroEngine::of_settings)
                            .unwrap_or_default(),
                        vars: std::sync::Arc::new(crate::sillytavern::macros::Variables {
                            local: crate::sillytavern::macros::chat_variables(chat.header.as_ref()),
                            global: s
                                .sillytavern
                                .as_ref()
                                .map(crate::sillytavern::macros::global_variables)
                                .unwrap_or_default(),
                        }),
                        clock: None,
                    },
                    tokenizer: tokenizer_for_model(&model)?,
                    seed: s.seed,
                    ..StOptions::default()
                },
                max_context: s.max_context.unwrap_or(DEFAULT_MAX_CONTEXT),
                inputs: Box::new(StPromptInputs::default()),
                stored: TimedState::from_metadata(
                    chat.header
                        .as_ref()
                        .and_then(|h| h.pointer("/chat_metadata/timedWorldInfo")),
                ),
            }
        }
        ProfileName::Risu => {
            let mut settings = match &s.risu {
                Some(v) => RisuSettings::from_json(&v.to_string())?,
                None => RisuSettings::default(),
            };
            if let Some(d) = s.scan_depth {
                settings.scan_depth = f64::from(d);
            }
            if let Some(b) = s.token_budget {
                settings.token_budget = f64::from(b);
            }
            Setup::Risu {
                settings,
                options: RisuOptions {
                    tokenizer: tokenizer_for_model(&model)?,
                    seed: s.seed,
                },
                // A scenario expects entries, not prompt texts.
                inputs: Box::default(),
            }
        }
    };
    profile::build(&[(book.name.clone(), &book)], setup)
}

/// The lint's reading of the rules a scenario runs under (`rules` with
/// `settings`): what `lorebook ai` checks a suggestion's problems with.
pub fn lint_rules(rules: ProfileName, s: &Settings) -> Result<crate::lint::LintRules, String> {
    use crate::lint::LintRules;
    Ok(match rules {
        ProfileName::Studio => LintRules::Studio,
        ProfileName::Sillytavern => LintRules::SillyTavern {
            settings: match &s.sillytavern {
                Some(v) => StSettings::from_value(v)?.clamped(),
                None => StSettings::default(),
            },
            max_context: s.max_context.unwrap_or(DEFAULT_MAX_CONTEXT),
            macros: s
                .sillytavern
                .as_ref()
                .and_then(crate::sillytavern::macros::MacroEngine::of_settings)
                .unwrap_or_default(),
        },
        ProfileName::Risu => LintRules::Risu {
            settings: match &s.risu {
                Some(v) => RisuSettings::from_json(&v.to_string())?,
                None => RisuSettings::default(),
            },
        },
    })
}

/// An entry's name as the book holds it now.
fn name_in(book: &Book, id: u64) -> Option<String> {
    book.entry(id).map(|e| e.display_name().to_string())
}

/// Runs `s` over `book`. `Err` when it cannot run at all (its chat does not
/// read, its settings are refused, its model is unknown).
pub fn run(book: &Book, s: &Scenario) -> Result<Verdict, String> {
    let (mut profile, messages) = prepare(book, s.rules, &s.settings, &s.chat)?;
    let messages = &messages;
    let last = messages.len();
    // Each request asked for once: the last as the front-end answers it
    // now, any other after the requests before it. The earlier ones are
    // answered by one pass of the request log (asking each alone replays
    // every request before it: 1,200 expectations under SillyTavern's
    // timed effects took 52 s, the whole log 2.5 s).
    let e: &Expect = &s.expect;
    let mut earlier: Vec<usize> = e
        .injected
        .iter()
        .chain(&e.not_injected)
        .filter_map(|x| x.request)
        .filter(|&k| k < last)
        .collect();
    earlier.sort_unstable();
    earlier.dedup();
    let mut answers: std::collections::BTreeMap<usize, Outcome> = Default::default();
    if earlier.len() > 1 {
        let up_to = earlier[earlier.len() - 1];
        let wanted: std::collections::HashSet<usize> = earlier.iter().copied().collect();
        let done = std::cell::Cell::new(false);
        profile.log_each_while(messages, &mut || !done.get(), &mut |o| {
            if o.request >= up_to {
                done.set(true);
            }
            if wanted.contains(&o.request) {
                answers.insert(o.request, o);
            }
        });
    }
    let mut failures = Vec::new();
    let mut outcome = |k: Option<usize>, failures: &mut Vec<Failure>| -> Option<usize> {
        let k = k.unwrap_or(last);
        if k > last {
            failures.push(Failure::NoSuchRequest {
                request: k,
                requests: last,
            });
            return None;
        }
        answers.entry(k).or_insert_with(|| {
            if k == last {
                profile.current(messages)
            } else {
                profile.request(messages, k)
            }
        });
        Some(k)
    };
    let mut asked: Vec<(usize, &Expected, bool)> = Vec::new();
    for x in &e.injected {
        if let Some(k) = outcome(x.request, &mut failures) {
            asked.push((k, x, true));
        }
    }
    for x in &e.not_injected {
        if let Some(k) = outcome(x.request, &mut failures) {
            asked.push((k, x, false));
        }
    }
    let limits = e.max_used.is_some() || e.nothing_cut;
    let last_k = if limits {
        outcome(None, &mut failures)
    } else {
        None
    };
    let at = |k: usize| -> &Outcome { answers.get(&k).expect("asked above") };
    for &(k, x, wanted) in &asked {
        let Some(name) = name_in(book, x.id) else {
            if wanted {
                failures.push(Failure::Missing {
                    id: x.id,
                    name: x.name.clone(),
                });
            }
            continue;
        };
        let o = at(k);
        match (o.placed(0, x.id), wanted) {
            (None, true) => {
                let reason = o.reason_out(0, x.id);
                failures.push(Failure::NotInjected {
                    id: x.id,
                    name,
                    request: k,
                    why: reason
                        .as_ref()
                        .map_or_else(|| "not listed".into(), ToString::to_string),
                    reason,
                })
            }
            (Some(_), false) => {
                let reason = o.reason_in(0, x.id);
                failures.push(Failure::Injected {
                    id: x.id,
                    name,
                    request: k,
                    why: reason.as_ref().map(ToString::to_string).unwrap_or_default(),
                    reason,
                })
            }
            (Some(p), true) => {
                let place = |pos: &str, depth: Option<f64>| match depth {
                    Some(d) => format!("{pos} {d}"),
                    None => pos.to_string(),
                };
                let pos_ok = x.position.as_deref().is_none_or(|want| want == p.position);
                let depth_ok = x.depth.is_none() || x.depth == p.depth;
                if !(pos_ok && depth_ok) {
                    failures.push(Failure::Moved {
                        id: x.id,
                        name,
                        request: k,
                        expected: place(
                            x.position.as_deref().unwrap_or(&p.position),
                            x.depth.or(p.depth),
                        ),
                        found: place(&p.position, p.depth),
                    });
                }
            }
            (None, false) => {}
        }
    }
    if e.exactly {
        let mut requests: Vec<usize> = asked.iter().filter(|a| a.2).map(|a| a.0).collect();
        requests.sort_unstable();
        requests.dedup();
        for k in requests {
            for p in &at(k).injected {
                let named = e
                    .injected
                    .iter()
                    .any(|x| x.id == p.id && x.request.unwrap_or(last) == k);
                if !named {
                    let reason = at(k).reason_in(0, p.id);
                    failures.push(Failure::Injected {
                        id: p.id,
                        name: name_in(book, p.id).unwrap_or_else(|| format!("#{}", p.id)),
                        request: k,
                        why: reason.as_ref().map(ToString::to_string).unwrap_or_default(),
                        reason,
                    });
                }
            }
        }
    }
    if let Some(k) = last_k {
        let o = at(k);
        if let Some(max) = e.max_used {
            if o.used > max {
                failures.push(Failure::OverBudget {
                    request: k,
                    used: o.used,
                    max,
                });
            }
        }
        if e.nothing_cut && !o.cut.is_empty() {
            failures.push(Failure::Cut {
                request: k,
                names: o
                    .cut
                    .iter()
                    .map(|&(_, id)| name_in(book, id).unwrap_or_else(|| format!("#{id}")))
                    .collect(),
            });
        }
    }
    Ok(Verdict {
        name: s.name.clone(),
        rules: s.rules,
        passed: failures.is_empty(),
        failures,
    })
}

/// A scenario named `name` over `chat` that expects exactly what the
/// preview of `book` shows now (the last request): the entries injected,
/// each at its place where the rules have places.
pub fn record(
    book: &Book,
    name: &str,
    chat: &str,
    rules: ProfileName,
    settings: Settings,
) -> Result<Scenario, String> {
    let (mut profile, messages) = prepare(book, rules, &settings, chat)?;
    let o = profile.current(&messages);
    let places = rules != ProfileName::Studio;
    let injected = o
        .injected
        .iter()
        .map(|p| Expected {
            id: p.id,
            name: name_in(book, p.id).unwrap_or_default(),
            request: None,
            position: places.then(|| p.position.clone()),
            depth: if places { p.depth } else { None },
            extra: Default::default(),
        })
        .collect();
    Ok(Scenario {
        name: name.to_string(),
        chat: chat.to_string(),
        rules,
        settings,
        expect: Expect {
            injected,
            exactly: true,
            ..Expect::default()
        },
        extra: Default::default(),
    })
}
