//! What can go wrong talking to a model: every fault its own message, and
//! none holds the API key.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AiError {
    /// The endpoint address does not read.
    BadAddress { address: String, detail: String },
    /// No connection: refused, no such host, reset.
    Unreachable { address: String, detail: String },
    /// The whole request took longer than allowed.
    TimedOut { address: String, seconds: u64 },
    /// The answer stopped coming for this long.
    Stalled { address: String, seconds: u64 },
    /// The author cancelled.
    Cancelled,
    /// 401 or 403: the key is wrong, missing or not allowed.
    WrongKey { status: u16, detail: String },
    /// Any other answer than 2xx.
    Refused { status: u16, detail: String },
    /// The endpoint answered with an error inside the stream.
    ModelError { detail: String },
    /// The answer is not what was asked for.
    Malformed { detail: String },
    /// The model stopped before finishing (its answer limit, or the stream
    /// broke off).
    Truncated { detail: String },
    /// The answer passed the cap.
    TooLarge { limit: u64 },
    /// The prompt does not fit the model's context: said before sending.
    PromptTooLarge {
        tokens: u32,
        answer: u32,
        context: u32,
    },
    /// A setting or input the action cannot use.
    Invalid { detail: String },
}

impl fmt::Display for AiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AiError::BadAddress { address, detail } => {
                write!(f, "the model address {address:?} does not read: {detail}")
            }
            AiError::Unreachable { address, detail } => {
                write!(f, "the model server at {address} cannot be reached: {detail}")
            }
            AiError::TimedOut { address, seconds } => write!(
                f,
                "the model server at {address} did not finish answering within {seconds} s"
            ),
            AiError::Stalled { address, seconds } => write!(
                f,
                "the model server at {address} stopped answering for {seconds} s; nothing was changed"
            ),
            AiError::Cancelled => write!(f, "cancelled; nothing was changed"),
            AiError::WrongKey { status, detail } => write!(
                f,
                "the model server refused the API key (HTTP {status}){}",
                suffix(detail)
            ),
            AiError::Refused { status, detail } => {
                write!(f, "the model server refused the request (HTTP {status}){}", suffix(detail))
            }
            AiError::ModelError { detail } => write!(f, "the model server reported an error: {detail}"),
            AiError::Malformed { detail } => {
                write!(f, "the model's answer is not the shape asked for: {detail}")
            }
            AiError::Truncated { detail } => {
                write!(f, "the model's answer was cut short ({detail}); nothing was changed")
            }
            AiError::TooLarge { limit } => write!(
                f,
                "the model's answer passed {} MiB and was dropped",
                limit >> 20
            ),
            AiError::PromptTooLarge {
                tokens,
                answer,
                context,
            } => write!(
                f,
                "the prompt is {tokens} tokens and the answer needs {answer} more: over the model's context of {context} tokens; nothing was sent"
            ),
            AiError::Invalid { detail } => f.write_str(detail),
        }
    }
}

impl std::error::Error for AiError {}

fn suffix(detail: &str) -> String {
    if detail.is_empty() {
        String::new()
    } else {
        format!(": {detail}")
    }
}

impl AiError {
    /// A stable code for the app's translated messages.
    pub fn code(&self) -> &'static str {
        match self {
            AiError::BadAddress { .. } => "ai_bad_address",
            AiError::Unreachable { .. } => "ai_unreachable",
            AiError::TimedOut { .. } => "ai_timed_out",
            AiError::Stalled { .. } => "ai_stalled",
            AiError::Cancelled => "ai_cancelled",
            AiError::WrongKey { .. } => "ai_wrong_key",
            AiError::Refused { .. } => "ai_refused",
            AiError::ModelError { .. } => "ai_model_error",
            AiError::Malformed { .. } => "ai_malformed",
            AiError::Truncated { .. } => "ai_truncated",
            AiError::TooLarge { .. } => "ai_too_large",
            AiError::PromptTooLarge { .. } => "ai_prompt_too_large",
            AiError::Invalid { .. } => "ai_invalid",
        }
    }
}
