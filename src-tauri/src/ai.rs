//! The author's own model in the app: the endpoint in force (its address,
//! model and context kept in the app's data folder; the key in memory, and
//! in the system's secret store only when the author asks), the action run
//! outside the workspace's lock with its progress and Cancel, and the last
//! run's suggestions, which the author accepts by their place. The webview
//! never talks to the endpoint: Rust does (`lorebook_ai`).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use lorebook_ai::run::{run, Checked, Options, Outcome};
use lorebook_ai::{AiError, ApiKey, Endpoint, Failed, Merge, Request, Setup, Suggestion, Verdict};

use crate::error::{AppError, ErrorCode, ErrorKind};
use crate::secrets::{SecretStore, SystemStore};
use crate::views::{
    AiAction, AiActivations, AiAsk, AiConfigView, AiFailed, AiFindingView, AiMerge, AiProblem,
    AiRunView, AiSuggestionView, AiVerdict,
};
use crate::workspace::ai::AiInputs;

/// The file of the endpoint in force, in the app's data folder.
pub const CONFIG_FILE: &str = "ai-endpoint.json";
/// The folder beside it whose `<action>.md` files replace the built-in
/// prompts (docs/ai.md).
pub const PROMPTS_FOLDER: &str = "prompts";

/// The prompts folder beside the endpoint's file.
fn prompts_of(file: &Path) -> std::path::PathBuf {
    file.with_file_name(PROMPTS_FOLDER)
}

/// The last run's suggestions, to accept by their place.
struct LastRun {
    doc: u32,
    suggestions: Vec<Suggestion>,
}

pub struct AiLink {
    config: Mutex<Option<AiConfigView>>,
    key: Mutex<Option<ApiKey>>,
    store: Box<dyn SecretStore>,
    /// The running action's cancel flag (a new one per run).
    cancel: Mutex<Arc<AtomicBool>>,
    running: AtomicBool,
    last: Mutex<Option<LastRun>>,
    /// Every request of the last run and its answer (never the key).
    transcript: Mutex<Vec<lorebook_ai::Exchange>>,
}

impl Default for AiLink {
    fn default() -> Self {
        AiLink::with(Box::new(SystemStore))
    }
}

fn model_error(e: &AiError) -> AppError {
    let problem = match e {
        AiError::BadAddress { .. } => AiProblem::BadAddress,
        AiError::Unreachable { .. } => AiProblem::Unreachable,
        AiError::TimedOut { .. } => AiProblem::TimedOut,
        AiError::Stalled { .. } => AiProblem::Stalled,
        AiError::Cancelled => AiProblem::Cancelled,
        AiError::WrongKey { .. } => AiProblem::WrongKey,
        AiError::Refused { .. } => AiProblem::Refused,
        AiError::ModelError { .. } => AiProblem::ModelError,
        AiError::Malformed { .. } => AiProblem::Malformed,
        AiError::Truncated { .. } => AiProblem::Truncated,
        AiError::TooLarge { .. } => AiProblem::TooLarge,
        AiError::PromptTooLarge { .. } => AiProblem::PromptTooLarge,
        AiError::Invalid { .. } => AiProblem::Invalid,
    };
    problem_error(problem, e.to_string())
}

fn problem_error(problem: AiProblem, detail: String) -> AppError {
    let kind = if problem == AiProblem::Cancelled {
        ErrorKind::Cancelled
    } else {
        ErrorKind::Model
    };
    AppError::coded(kind, detail.clone(), ErrorCode::Model { problem, detail })
}

/// The name a key is filed under in the secret store.
fn store_key(address: &str) -> String {
    format!("Model endpoint at {address}")
}

impl AiLink {
    pub fn with(store: Box<dyn SecretStore>) -> AiLink {
        AiLink {
            config: Mutex::new(None),
            key: Mutex::new(None),
            store,
            cancel: Mutex::new(Arc::new(AtomicBool::new(false))),
            running: AtomicBool::new(false),
            last: Mutex::new(None),
            transcript: Mutex::new(Vec::new()),
        }
    }

    /// The endpoint in force, read from `file` the first time.
    pub fn config(&self, file: &Path) -> Option<AiConfigView> {
        let mut c = self.config.lock().unwrap_or_else(|p| p.into_inner());
        if c.is_none() {
            *c = std::fs::read(file)
                .ok()
                .and_then(|b| serde_json::from_slice::<AiConfigView>(&b).ok());
        }
        c.clone().map(|mut v| {
            v.key_held = self.key.lock().unwrap_or_else(|p| p.into_inner()).is_some();
            v.prompts_folder = prompts_of(file).display().to_string();
            v
        })
    }

    /// Sets the endpoint. A `key` typed is held for the session, and put
    /// in the secret store with `remember`; without one, a key held for
    /// the same address stays. The address, model and context (never the
    /// key) are written to `file`.
    pub fn configure(
        &self,
        file: &Path,
        address: &str,
        model: &str,
        context: u32,
        key: Option<String>,
        remember: bool,
    ) -> Result<AiConfigView, AppError> {
        let endpoint = Endpoint::new(address, model, None).map_err(|e| model_error(&e))?;
        if !(512..=10_000_000).contains(&context) {
            return Err(problem_error(
                AiProblem::Invalid,
                format!("a context of {context} tokens is out of range (512 to 10,000,000)"),
            ));
        }
        let before = self.config(file);
        let same_address = before
            .as_ref()
            .is_some_and(|b| b.address == endpoint.address);
        let mut view = AiConfigView {
            address: endpoint.address.clone(),
            model: endpoint.model.clone(),
            context,
            key_saved: same_address && before.as_ref().is_some_and(|b| b.key_saved),
            key_held: false,
            not_remembered: None,
            prompts_folder: prompts_of(file).display().to_string(),
        };
        {
            let mut held = self.key.lock().unwrap_or_else(|p| p.into_inner());
            match key.and_then(ApiKey::new) {
                Some(k) => {
                    if remember {
                        match self.store.set(&store_key(&view.address), &expose(&k)) {
                            Ok(()) => view.key_saved = true,
                            Err(why) => view.not_remembered = Some(why),
                        }
                    }
                    *held = Some(k);
                }
                None if !same_address => *held = None,
                None => {}
            }
            view.key_held = held.is_some();
        }
        if let Some(dir) = file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let bytes = serde_json::to_vec_pretty(&view).expect("JSON");
        let _ = lorebook_engine::formats::write_atomic(file, &bytes);
        *self.config.lock().unwrap_or_else(|p| p.into_inner()) = Some(view.clone());
        Ok(view)
    }

    /// Removes the key of the endpoint in force from the store and memory.
    pub fn forget_key(&self, file: &Path) -> Result<Option<AiConfigView>, AppError> {
        let Some(mut view) = self.config(file) else {
            return Ok(None);
        };
        self.store
            .delete(&store_key(&view.address))
            .map_err(|why| problem_error(AiProblem::SecretStore, why))?;
        *self.key.lock().unwrap_or_else(|p| p.into_inner()) = None;
        view.key_saved = false;
        view.key_held = false;
        let bytes = serde_json::to_vec_pretty(&view).expect("JSON");
        let _ = lorebook_engine::formats::write_atomic(file, &bytes);
        *self.config.lock().unwrap_or_else(|p| p.into_inner()) = Some(view.clone());
        Ok(Some(view))
    }

    /// The key to send: held, else the one remembered for the address.
    fn key_for(&self, view: &AiConfigView) -> Result<Option<ApiKey>, AppError> {
        let mut held = self.key.lock().unwrap_or_else(|p| p.into_inner());
        if held.is_none() && view.key_saved {
            let got = self
                .store
                .get(&store_key(&view.address))
                .map_err(|why| problem_error(AiProblem::SecretStore, why))?;
            *held = got.and_then(ApiKey::new);
        }
        Ok(held.clone())
    }

    /// Stops the running action.
    pub fn cancel(&self) {
        self.cancel
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .store(true, Ordering::Relaxed);
    }

    /// Runs `ask` over `doc`'s inputs; `progress` gets the characters of
    /// the answer received so far. One action at a time.
    pub fn run(
        &self,
        file: &Path,
        doc: u32,
        inputs: AiInputs,
        ask: &AiAsk,
        progress: &mut dyn FnMut(usize),
    ) -> Result<AiRunView, AppError> {
        let view = self.config(file).ok_or_else(|| {
            problem_error(
                AiProblem::NotConfigured,
                "no model endpoint is set: give its address and model first".into(),
            )
        })?;
        if self.running.swap(true, Ordering::SeqCst) {
            return Err(problem_error(
                AiProblem::Busy,
                "an AI action is already running".into(),
            ));
        }
        struct Done<'a>(&'a AtomicBool);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::SeqCst);
            }
        }
        let _done = Done(&self.running);
        let cancel = Arc::new(AtomicBool::new(false));
        *self.cancel.lock().unwrap_or_else(|p| p.into_inner()) = cancel.clone();
        let key = self.key_for(&view)?;
        let endpoint =
            Endpoint::new(&view.address, &view.model, key).map_err(|e| model_error(&e))?;
        let chat_lines = chat_lines(&inputs.chat);
        let request = match ask.action {
            AiAction::Draft => Request::Draft {
                source: ask
                    .source
                    .clone()
                    .filter(|s| !s.trim().is_empty())
                    .unwrap_or(chat_lines.clone()),
                tokens: ask.tokens.max(1),
                max_entries: ask.max_entries.clamp(1, 50) as usize,
            },
            AiAction::Keys => Request::Keys {
                entry: need_entry(ask)?,
                chat: chat_lines.clone(),
            },
            AiAction::Shorten => Request::Shorten {
                entry: need_entry(ask)?,
                tokens: ask.tokens.max(1),
            },
            AiAction::Review => Request::Review {
                entries: (!ask.entries.is_empty()).then(|| ask.entries.clone()),
                chat: chat_lines.clone(),
                max_findings: 12,
            },
        };
        let has_chat = !inputs.chat.trim().is_empty();
        let setup = Setup {
            rules: inputs.rules,
            settings: inputs.settings,
            chat: has_chat.then(|| inputs.chat.clone()),
            source: match &request {
                Request::Draft { source, .. } => Some(source.clone()),
                _ => None,
            },
        };
        let mut options = Options::new(endpoint);
        options.context = view.context;
        options.answer_tokens = (view.context / 4).clamp(256, 4096);
        options.lang.clone_from(&ask.lang);
        options.prompts = Some(prompts_of(file));
        let mut received = 0usize;
        let result = run(
            &inputs.book,
            &request,
            &options,
            &setup,
            &cancel,
            &mut |piece| {
                received += piece.chars().count();
                progress(received);
            },
        );
        let (outcome, exchanges) = match result {
            Ok(mut o) => {
                let ex = std::mem::take(&mut o.exchanges);
                (Ok(o), ex)
            }
            Err(f) => (Err(f.error), f.exchanges),
        };
        *self.transcript.lock().unwrap_or_else(|p| p.into_inner()) = exchanges.clone();
        let outcome = outcome.map_err(|e| model_error(&e))?;
        let requests = if has_chat {
            lorebook_engine::chat::parse(&inputs.chat, &Default::default())
                .map(|c| c.messages.len() as u32)
                .unwrap_or(0)
        } else {
            0
        };
        let run_view = view_of(
            doc,
            ask.action,
            &inputs.book,
            &outcome,
            requests,
            exchanges.len(),
        );
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(LastRun {
            doc,
            suggestions: outcome
                .suggestions
                .into_iter()
                .map(|c| c.suggestion)
                .collect(),
        });
        Ok(run_view)
    }

    /// The last run's suggestions at `picks`, for `doc`.
    pub fn picked(&self, doc: u32, picks: &[u32]) -> Result<Vec<Suggestion>, AppError> {
        let last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        let run = last.as_ref().filter(|r| r.doc == doc).ok_or_else(|| {
            problem_error(
                AiProblem::NoRun,
                "no AI suggestions for this book to accept: run an action first".into(),
            )
        })?;
        picks
            .iter()
            .map(|&i| {
                run.suggestions
                    .get(i as usize)
                    .cloned()
                    .ok_or_else(|| problem_error(AiProblem::Invalid, format!("no suggestion {i}")))
            })
            .collect()
    }

    /// The suggestions are taken: they cannot be taken twice.
    pub fn accepted(&self) {
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// The last run's requests and answers, as JSON (never the key).
    pub fn transcript(&self) -> String {
        let t = self.transcript.lock().unwrap_or_else(|p| p.into_inner());
        serde_json::to_string_pretty(&*t).expect("JSON")
    }
}

/// The key's text, for the secret store only.
fn expose(k: &ApiKey) -> String {
    k.secret().to_string()
}

fn need_entry(ask: &AiAsk) -> Result<u64, AppError> {
    ask.entry.ok_or_else(|| {
        problem_error(
            AiProblem::Invalid,
            "this action needs an entry: select one".into(),
        )
    })
}

/// A chat's messages as `Name: text` lines (the text as it is when it
/// does not read as a chat).
fn chat_lines(chat: &str) -> String {
    match lorebook_engine::chat::parse(chat, &Default::default()) {
        Ok(c) if !c.messages.is_empty() => c
            .messages
            .iter()
            .map(|m| match &m.name {
                Some(n) => format!("{n}: {}", m.text),
                None => format!("{:?}: {}", m.role, m.text),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => chat.to_string(),
    }
}

fn view_of(
    doc: u32,
    action: AiAction,
    book: &lorebook_engine::model::Book,
    o: &Outcome,
    chat_requests: u32,
    exchanges: usize,
) -> AiRunView {
    AiRunView {
        doc,
        action,
        suggestions: o
            .suggestions
            .iter()
            .enumerate()
            .map(|(i, c)| suggestion_view(i, book, c))
            .collect(),
        findings: o
            .findings
            .iter()
            .map(|f| AiFindingView {
                kind: f.kind.clone(),
                entries: f.entries.clone(),
                ids: f.ids.clone(),
                note: f.note.clone(),
                preview: f.preview.as_ref().map(|v| match v {
                    Verdict::NamesNoEntry => AiVerdict::NamesNoEntry,
                    Verdict::Activations { total, each } => AiVerdict::Activations {
                        total: *total as u32,
                        each: each
                            .iter()
                            .map(|(id, name, n)| AiActivations {
                                id: *id,
                                name: name.clone(),
                                requests: *n as u32,
                            })
                            .collect(),
                    },
                }),
            })
            .collect(),
        prompt_tokens: o.prompt_tokens,
        chat_requests,
        exchanges: exchanges as u32,
    }
}

fn suggestion_view(i: usize, book: &lorebook_engine::model::Book, c: &Checked) -> AiSuggestionView {
    let s = &c.suggestion;
    let k = &c.check;
    AiSuggestionView {
        index: i as u32,
        name: s.entry.name.clone(),
        keys: s.entry.keys.clone(),
        secondary_keys: s.entry.secondary_keys.clone(),
        content: s.entry.content.clone(),
        merge: match s.merge {
            Merge::New => AiMerge::New,
            Merge::Changed => AiMerge::Changed,
            Merge::Same => AiMerge::Same,
        },
        target: s.target,
        target_name: s
            .target
            .and_then(|id| book.entry(id))
            .map(|e| e.display_name().to_string()),
        locked: s.locked,
        fires_on_source: k.fires_on_source,
        requests: k.requests.iter().map(|&r| r as u32).collect(),
        tokens: k.tokens,
        kept_by_budget: k.kept_by_budget,
        cut_in: k.cut_in.iter().map(|&r| r as u32).collect(),
        problems: k.problems.clone(),
        passed: k.passed,
        failed: k
            .failed
            .iter()
            .map(|f| match f {
                Failed::Locked => AiFailed::Locked,
                Failed::Same => AiFailed::Same,
                Failed::NoName => AiFailed::NoName,
                Failed::EmptyContent => AiFailed::EmptyContent,
                Failed::NoFireOnSource => AiFailed::NoFireOnSource,
                Failed::CutByBudget => AiFailed::CutByBudget,
                Failed::OverSize { tokens, max } => AiFailed::OverSize {
                    tokens: *tokens,
                    max: *max,
                },
                Failed::Lint { codes } => AiFailed::Lint {
                    codes: codes.clone(),
                },
            })
            .collect(),
    }
}
