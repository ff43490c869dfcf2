//! One action from start to end: its prompt filled and measured against
//! the model's context (refused before sending when it does not fit), the
//! request streamed, the answer read and every suggestion checked.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use serde::Serialize;

use lorebook_engine::model::Book;

use crate::action::{findings, Finding, Request, Suggestion};
use crate::check::{check, verify, Check, Setup};
use crate::client::{complete, Exchange, Format};
use crate::endpoint::{Endpoint, Limits};
use crate::error::AiError;

/// How an action talks to the model.
#[derive(Debug, Clone)]
pub struct Options {
    pub endpoint: Endpoint,
    pub limits: Limits,
    pub format: Format,
    /// The built-in prompts' language (`en`, `pt-BR`).
    pub lang: String,
    /// A folder of the author's own prompts (`<action>.md`).
    pub prompts: Option<PathBuf>,
    /// The model's context, in tokens: prompt and answer must fit.
    pub context: u32,
    /// Room for the answer, in tokens (`max_tokens`).
    pub answer_tokens: u32,
    /// The sampling seed sent with the request.
    pub seed: Option<u64>,
}

impl Options {
    pub fn new(endpoint: Endpoint) -> Options {
        Options {
            endpoint,
            limits: Limits::default(),
            format: Format::Auto,
            lang: "en".into(),
            prompts: None,
            context: 8192,
            answer_tokens: 2048,
            seed: None,
        }
    }
}

/// A suggestion and its simulated effect.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checked {
    #[serde(flatten)]
    pub suggestion: Suggestion,
    pub check: Check,
}

/// What an action gives.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub suggestions: Vec<Checked>,
    pub findings: Vec<Finding>,
    /// Every request made and its answer, for the author to read.
    pub exchanges: Vec<Exchange>,
    /// The prompt's tokens, as counted before sending.
    pub prompt_tokens: u32,
}

/// An action that failed, with the requests it made.
#[derive(Debug)]
pub struct Failure {
    pub error: AiError,
    pub exchanges: Vec<Exchange>,
}

impl From<AiError> for Failure {
    fn from(error: AiError) -> Self {
        Failure {
            error,
            exchanges: Vec::new(),
        }
    }
}

/// Tokens a chat format adds per message, counted with the texts.
const PER_MESSAGE: u32 = 4;

/// Runs `request` over `book`: `progress` gets the answer's text as it
/// comes; `cancel` stops it. Nothing in `book` changes.
pub fn run(
    book: &Book,
    request: &Request,
    options: &Options,
    setup: &Setup,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(&str),
) -> Result<Outcome, Failure> {
    let invalid = |detail: String| Failure::from(AiError::Invalid { detail });
    let tokenizer = setup.tokenizer().map_err(invalid)?;
    let prompt = crate::prompt::text(request.action(), &options.lang, options.prompts.as_deref())?;
    let count = |t: &str| tokenizer.count(t);
    let mut call = request.call(book, &prompt, options.answer_tokens, &count)?;
    call.seed = options.seed;
    let prompt_tokens: u32 = call
        .messages
        .iter()
        .map(|m| count(&m.content) + PER_MESSAGE)
        .sum();
    if u64::from(prompt_tokens) + u64::from(options.answer_tokens) > u64::from(options.context) {
        return Err(AiError::PromptTooLarge {
            tokens: prompt_tokens,
            answer: options.answer_tokens,
            context: options.context,
        }
        .into());
    }
    let done = complete(
        &options.endpoint,
        &call,
        options.limits,
        options.format,
        cancel,
        progress,
    );
    let exchanges = done.exchanges;
    let fail = |error: AiError, exchanges: &Vec<Exchange>| Failure {
        error,
        exchanges: exchanges.clone(),
    };
    let answer = match done.result {
        Ok(a) => a,
        Err(e) => return Err(fail(e, &exchanges)),
    };
    let size = match request {
        Request::Draft { tokens, .. } | Request::Shorten { tokens, .. } => Some(*tokens),
        _ => None,
    };
    let mut out = Outcome {
        suggestions: Vec::new(),
        findings: Vec::new(),
        exchanges: Vec::new(),
        prompt_tokens,
    };
    if let Request::Review { .. } = request {
        let mut list = findings(book, &answer.text).map_err(|e| fail(e, &exchanges))?;
        for f in &mut list {
            verify(book, f, setup).map_err(|e| fail(AiError::Invalid { detail: e }, &exchanges))?;
        }
        out.findings = list;
    } else {
        let list = request
            .suggestions(book, &answer.text)
            .map_err(|e| fail(e, &exchanges))?;
        for s in list {
            let c = check(book, &s, setup, size)
                .map_err(|e| fail(AiError::Invalid { detail: e }, &exchanges))?;
            out.suggestions.push(Checked {
                suggestion: s,
                check: c,
            });
        }
    }
    out.exchanges = exchanges;
    Ok(out)
}
