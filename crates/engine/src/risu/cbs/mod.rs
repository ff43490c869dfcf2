//! RisuAI's curly-brace syntax (CBS) as its 2026 mainline evaluates a
//! lorebook entry's body without side effects (`risuChatParser` with
//! `runVar` off): what the budget counts since RisuAI's PR #1490, and the
//! text RisuAI sends. Written from RisuAI's behaviour in our own words
//! (docs/risu-rules.md, "CBS: what the budget counts"); no code of RisuAI's
//! is used.
//!
//! The text is read left to right; `{{` opens a macro and its `}}` closes
//! it, inner macros first, so an argument is evaluated before the call
//! that takes it. A name RisuAI does not know, a call that fails (a
//! missing argument) and a call that would write a variable are left as
//! written. Blocks (`{{#if}}`, `{{#when}}`, `{{#each}}`, `{{#pure}}`,
//! `{{#escape}}`, `{{#code}}`, `{{#func}}`) collect their body up to the
//! next `{{/…}}` of their level.

mod blocks;
mod calc;
mod functions;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

pub use crate::sillytavern::macros::js::number_text as js_number;

/// How deep evaluations may nest (a character's field holding macros, a
/// `{{call}}`, an `{{#each}}` body): past it the text is RisuAI's error.
const MAX_DEPTH: u32 = 20;

/// How many macros and blocks may be open at once; past it `{{` is
/// text (a guard against a body built to make the reading quadratic).
const MAX_OPEN: usize = 1000;

/// The longest text a block's repetition (`{{#each}}`) or the filling of
/// `{{position::…}}` markers may make: past it no more is added.
pub const MAX_MADE: usize = 1 << 20;

/// The error text RisuAI gives past [`MAX_DEPTH`].
pub const STACK_LIMIT: &str = "ERROR: Call stack limit reached";

/// What CBS reads, by RisuAI's own field names (`--risu-settings`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CbsInputs {
    /// `username`: what `{{user}}` gives.
    pub username: String,
    /// `character.name` and `character.nickname`: `{{char}}` is the
    /// nickname when it has one.
    pub char_name: String,
    pub char_nickname: String,
    /// `character.defaultVariables`: `name=value` lines.
    pub default_variables: String,
    /// `templateDefaultVariables`: the same, after the character's.
    pub template_default_variables: String,
    /// `scriptstate`: the chat's variables, keys with RisuAI's `$` prefix.
    pub scriptstate: BTreeMap<String, String>,
    /// `globalChatVariables` (toggles as `toggle_<name>`).
    pub global_chat_variables: BTreeMap<String, String>,
    /// `character.desc`, `.personality`, `.scenario`, `.exampleMessage`
    /// and `personaPrompt`, for `{{description}}` and its kind.
    pub description: String,
    pub personality: String,
    pub scenario: String,
    pub example_message: String,
    pub persona_prompt: String,
}

impl Default for CbsInputs {
    fn default() -> Self {
        CbsInputs {
            username: "User".into(),
            char_name: "Character".into(),
            char_nickname: String::new(),
            default_variables: String::new(),
            template_default_variables: String::new(),
            scriptstate: BTreeMap::new(),
            global_chat_variables: BTreeMap::new(),
            description: String::new(),
            personality: String::new(),
            scenario: String::new(),
            example_message: String::new(),
            persona_prompt: String::new(),
        }
    }
}

impl CbsInputs {
    /// `{{char}}`: the nickname when it is not empty, else the name.
    pub fn char(&self) -> &str {
        if self.char_nickname.is_empty() {
            &self.char_name
        } else {
            &self.char_nickname
        }
    }

    /// A chat variable as `{{getvar}}` reads it: the chat's `$name`, else
    /// the character's default, else the template's, else `null`.
    pub fn chat_var(&self, name: &str) -> String {
        if let Some(v) = self.scriptstate.get(&format!("${name}")) {
            return v.clone();
        }
        default_of(&self.default_variables, name)
            .or_else(|| default_of(&self.template_default_variables, name))
            .unwrap_or_else(|| "null".into())
    }

    /// A global variable (`{{getglobalvar}}`), else `null`.
    pub fn global_var(&self, name: &str) -> String {
        self.global_chat_variables
            .get(name)
            .cloned()
            .unwrap_or_else(|| "null".into())
    }
}

/// The value of `name` in `name=value` lines: lines split on `=`, only the
/// first two pieces read, both non-empty, nothing trimmed; the first line
/// naming it wins.
fn default_of(lines: &str, name: &str) -> Option<String> {
    lines.split('\n').find_map(|line| {
        let mut pieces = line.split('=');
        let key = pieces.next()?;
        let value = pieces.next()?;
        (key == name && !key.is_empty() && !value.is_empty()).then(|| value.to_string())
    })
}

/// One evaluation's inputs: the fixed ones, the request's messages (oldest
/// first) and a seed for `{{random}}` and its kind.
pub struct Cbs<'a> {
    pub inputs: &'a CbsInputs,
    pub messages: &'a [&'a str],
    pub seed: u64,
    /// The clock of `{{time}}` and `{{date}}` (UTC), in milliseconds since
    /// 1970; `None` is now.
    pub now_ms: Option<i64>,
}

/// The state of one evaluation: its temporary variables, its functions,
/// its random draws and how deep it is.
struct Run<'c, 'a> {
    cbs: &'c Cbs<'a>,
    temp: HashMap<String, String>,
    funcs: HashMap<String, String>,
    rng: u64,
    depth: u32,
}

/// What a call gives.
enum Out {
    Text(String),
    /// Left as written (unknown, failed, or a write with side effects off).
    Verbatim,
    /// `{{return}}`: the whole evaluation's result.
    Return(String),
}

/// An open macro or block while reading.
enum Frame {
    Macro(String),
    Block(blocks::Block),
}

/// Whether `text` can hold anything CBS changes.
pub fn has_macros(text: &str) -> bool {
    text.contains("{{") || text.contains('<')
}

/// `text` with its letters lowered and spaces, `_` and `-` dropped, as
/// RisuAI reads a call's name: what the checks below search.
fn folded(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether `text`'s evaluation can change from one request to the next
/// with the same inputs: a call whose name holds the chat's last message,
/// a random draw or the clock. Conservative: any such word in a text with
/// macros counts.
pub fn varies(text: &str) -> bool {
    if !text.contains("{{") {
        return false;
    }
    let folded = folded(text);
    [
        "lastmessage",
        "random",
        "roll",
        "time",
        "date",
        "dice",
        "pick",
    ]
    .iter()
    .any(|w| folded.contains(w))
}

/// Whether `text` can read the chat's messages: a call whose name holds
/// `lastmessage`.
pub(crate) fn reads_chat(text: &str) -> bool {
    folded(text).contains("lastmessage")
}

/// `text` as RisuAI's CBS evaluates it without side effects.
pub fn eval(text: &str, cbs: &Cbs<'_>) -> String {
    if !has_macros(text) {
        return text.to_string();
    }
    let mut run = Run {
        cbs,
        temp: HashMap::new(),
        funcs: HashMap::new(),
        rng: cbs.seed ^ crate::tokenizer::content_hash(text),
        depth: 0,
    };
    run.eval(text)
}

/// `<user>`, `<char>` and `<bot>` (any case) as the macros they stand for.
fn angle_names(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('<') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let hit = ["<user>", "<char>", "<bot>"].into_iter().find(|n| {
            tail.len() >= n.len()
                && tail.is_char_boundary(n.len())
                && tail[..n.len()].eq_ignore_ascii_case(n)
        });
        match hit {
            Some(n) => {
                out.push_str("{{");
                out.push_str(&tail[1..n.len() - 1]);
                out.push_str("}}");
                rest = &tail[n.len()..];
            }
            None => {
                out.push('<');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

impl Run<'_, '_> {
    /// A nested evaluation (a field's text, a function's body) sharing
    /// this one's variables: a `{{return}}` inside ends it alone. Every
    /// nested evaluation counts towards RisuAI's limit of calls, which
    /// only grows: past it the text is RisuAI's error.
    fn nested(&mut self, text: &str) -> String {
        if self.depth >= MAX_DEPTH {
            return STACK_LIMIT.to_string();
        }
        self.depth += 1;
        match self.scan(text) {
            Ok(s) | Err(s) => s,
        }
    }

    /// Text spliced back into this evaluation (an `{{#each}}`'s result),
    /// read again: a `{{return}}` there ends the whole evaluation.
    fn spliced(&mut self, text: &str) -> Result<String, String> {
        if self.depth >= MAX_DEPTH {
            return Ok(STACK_LIMIT.to_string());
        }
        self.depth += 1;
        self.scan(text)
    }

    fn eval(&mut self, text: &str) -> String {
        match self.scan(text) {
            Ok(s) | Err(s) => s,
        }
    }

    /// `Err` carries a `{{return}}`'s value: the whole result.
    fn scan(&mut self, text: &str) -> Result<String, String> {
        let text = angle_names(text);
        let text = text.as_ref();
        let mut stack: Vec<Frame> = Vec::new();
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        while i < text.len() {
            let rest = &text[i..];
            if rest.starts_with("{{") && stack.len() < MAX_OPEN {
                stack.push(Frame::Macro(String::new()));
                i += 2;
                continue;
            }
            if rest.starts_with("}}") && matches!(stack.last(), Some(Frame::Macro(_))) {
                i += 2;
                let Some(Frame::Macro(inner)) = stack.pop() else {
                    unreachable!("checked above")
                };
                if let Some(v) = self.close(inner, &mut stack, &mut out)? {
                    return Err(v);
                }
                continue;
            }
            // Plain text up to the next brace goes in one piece.
            let first = rest.chars().next().map_or(1, char::len_utf8);
            let run = rest[first..]
                .find(['{', '}'])
                .map_or(rest.len(), |at| at + first);
            buffer(&mut stack, &mut out).push_str(&rest[..run]);
            i += run;
        }
        // Whatever is still open is written back: a macro with its `{{`, a
        // block's body after a `<` (RisuAI's own quirk), even a false one.
        while let Some(frame) = stack.pop() {
            let text = match frame {
                Frame::Macro(b) => format!("{{{{{b}"),
                Frame::Block(b) => format!("<{}", b.body),
            };
            buffer(&mut stack, &mut out).push_str(&text);
        }
        Ok(out)
    }

    /// A macro closed: a block's opener or closer, or a call. `Some` is a
    /// `{{return}}`'s value.
    fn close(
        &mut self,
        inner: String,
        stack: &mut Vec<Frame>,
        out: &mut String,
    ) -> Result<Option<String>, String> {
        let closer = inner.starts_with('/') && !inner.starts_with("//");
        let top_is_block = matches!(stack.last(), Some(Frame::Block(_)));
        if let Some(block) = pure_block(stack) {
            // Inside a body kept as written: nested blocks balance, and
            // only the block's own closer ends it.
            if top_is_block && inner.starts_with('#') {
                block.nest += 1;
            } else if top_is_block && closer && block.nest > 0 {
                block.nest -= 1;
            } else if top_is_block && closer {
                self.end_block(stack, out)?;
                return Ok(None);
            }
            let literal = format!("{{{{{inner}}}}}");
            buffer(stack, out).push_str(&literal);
            return Ok(None);
        }
        if inner.starts_with('#') {
            match blocks::Block::open(&inner, self) {
                Some(block) => stack.push(Frame::Block(block)),
                None => {
                    let literal = format!("{{{{{inner}}}}}");
                    buffer(stack, out).push_str(&literal);
                }
            }
            return Ok(None);
        }
        if closer && matches!(stack.last(), Some(Frame::Block(_))) {
            self.end_block(stack, out)?;
            return Ok(None);
        }
        let said = if inner.starts_with(':') {
            Out::Verbatim
        } else {
            self.call(&inner)?
        };
        match said {
            Out::Text(t) => buffer(stack, out).push_str(&t),
            Out::Verbatim => {
                let literal = format!("{{{{{inner}}}}}");
                buffer(stack, out).push_str(&literal);
            }
            Out::Return(v) => return Ok(Some(v)),
        }
        Ok(None)
    }

    fn end_block(&mut self, stack: &mut Vec<Frame>, out: &mut String) -> Result<(), String> {
        let Some(Frame::Block(block)) = stack.pop() else {
            unreachable!("a block is open")
        };
        let text = block.finish(self)?;
        buffer(stack, out).push_str(&text);
        Ok(())
    }

    /// A draw in [0, 1) for `{{random}}` and `{{roll}}` (RisuAI draws from
    /// `Math.random`: the preview's seed stands in).
    fn draw(&mut self) -> f64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The buffer text goes to: the innermost open macro's or block's, else
/// the result.
fn buffer<'s>(stack: &'s mut [Frame], out: &'s mut String) -> &'s mut String {
    match stack.last_mut() {
        Some(Frame::Macro(b)) => b,
        Some(Frame::Block(b)) => &mut b.body,
        None => out,
    }
}

/// The innermost open block when its body is kept as written.
fn pure_block(stack: &mut [Frame]) -> Option<&mut blocks::Block> {
    stack
        .iter_mut()
        .rev()
        .find_map(|f| match f {
            Frame::Block(b) => Some(b),
            Frame::Macro(_) => None,
        })
        .filter(|b| b.pure)
}
