//! The three [`Profile`] implementations: each wraps its engine's preview
//! and turns its own answer into an [`Outcome`].

use super::*;

/// The guide's rules over a [`Preview`] built by the caller (which may
/// read its index first, e.g. for the entries' diagnostics).
pub fn studio(preview: Preview) -> Box<dyn Profile> {
    Box::new(StudioProfile {
        preview,
        prompts: false,
    })
}

/// The guide's rules: the [`Preview`] the app keeps, and whether answers
/// carry their prompt.
pub(super) struct StudioProfile {
    pub(super) preview: Preview,
    pub(super) prompts: bool,
}

impl StudioProfile {
    fn outcome(prompts: bool, r: RequestResult) -> Outcome {
        let prompt = prompts.then(|| FinalPrompt {
            messages: r
                .messages
                .iter()
                .map(|m| FinalMessage {
                    role: Role::parse(m.role).unwrap_or(Role::System),
                    content: m.content.to_string(),
                    tokens: None,
                })
                .collect(),
            detail: None,
        });
        Outcome {
            prompt,
            ..Outcome::of_studio(r)
        }
    }
}

impl Profile for StudioProfile {
    fn name(&self) -> ProfileName {
        ProfileName::Studio
    }

    fn request(&mut self, chat: &[Message], k: usize) -> Outcome {
        Self::outcome(self.prompts, self.preview.request(chat, k))
    }

    fn log_each_while(
        &mut self,
        chat: &[Message],
        keep_going: &mut dyn FnMut() -> bool,
        each: &mut dyn FnMut(Outcome),
    ) -> bool {
        let prompts = self.prompts;
        self.preview
            .log_each_while(chat, keep_going, |r| each(Self::outcome(prompts, r)))
    }

    fn set_prompts(&mut self, on: bool) {
        self.prompts = on;
    }

    fn replace_entry(&mut self, book: usize, entry: &Entry) -> bool {
        if book >= self.preview.books().len() {
            return false;
        }
        self.preview.upsert_entry(book, entry);
        true
    }
}

/// SillyTavern's preview with what its requests need besides the chat.
pub(super) struct StProfile {
    pub(super) preview: StPreview,
    pub(super) max_context: u32,
    pub(super) inputs: Box<StPromptInputs>,
    pub(super) stored: TimedState,
    pub(super) prompts: bool,
}

impl StProfile {
    /// Request `chat` (all of it) from `state`, with its prompt when asked.
    fn answer(&mut self, chat: &[Message], state: &mut TimedState) -> Outcome {
        let r = self.preview.request(chat, self.max_context, state);
        let prompt = self.prompts.then(|| {
            let p = self.preview.prompt(&r, chat, &self.inputs);
            FinalPrompt {
                messages: p
                    .messages
                    .iter()
                    .map(|m| FinalMessage {
                        role: m.role,
                        content: m.content.clone(),
                        tokens: Some(m.tokens),
                    })
                    .collect(),
                detail: Some(PromptDetail::Sillytavern(p)),
            }
        });
        Outcome {
            prompt,
            ..Outcome::of_sillytavern(r)
        }
    }
}

impl Profile for StProfile {
    fn name(&self) -> ProfileName {
        ProfileName::Sillytavern
    }

    fn request(&mut self, chat: &[Message], k: usize) -> Outcome {
        let k = k.min(chat.len());
        let mut state = TimedState::default();
        for j in 1..k {
            self.preview
                .request(&chat[..j], self.max_context, &mut state);
        }
        self.answer(&chat[..k], &mut state)
    }

    fn current(&mut self, chat: &[Message]) -> Outcome {
        let mut state = self.stored.clone();
        self.answer(chat, &mut state)
    }

    fn log_each_while(
        &mut self,
        chat: &[Message],
        keep_going: &mut dyn FnMut() -> bool,
        each: &mut dyn FnMut(Outcome),
    ) -> bool {
        let mut state = TimedState::default();
        for k in 1..=chat.len() {
            if !keep_going() {
                return false;
            }
            each(self.answer(&chat[..k], &mut state));
        }
        true
    }

    fn set_prompts(&mut self, on: bool) {
        self.prompts = on;
    }

    fn replace_entry(&mut self, book: usize, entry: &Entry) -> bool {
        self.preview.replace_entry(book, entry)
    }
}

/// RisuAI's preview, with the texts of its final prompt (without a prompt
/// template: `risu::prompt`).
pub(super) struct RisuProfile {
    pub(super) preview: RisuPreview,
    pub(super) inputs: Box<RisuPromptInputs>,
    pub(super) prompts: bool,
}

impl RisuProfile {
    fn outcome(
        prompts: bool,
        inputs: &RisuPromptInputs,
        chat: &[Message],
        r: RisuResult,
    ) -> Outcome {
        // A request RisuAI's prompt build fails on sends nothing.
        let prompt = (prompts && r.failure.is_none()).then(|| {
            let seen = &chat[..r.request.min(chat.len())];
            let p = crate::risu::prompt::build(&r, seen, inputs);
            FinalPrompt {
                messages: p
                    .messages
                    .iter()
                    .map(|m| FinalMessage {
                        role: m.role,
                        content: m.content.clone(),
                        tokens: None,
                    })
                    .collect(),
                detail: Some(PromptDetail::Risu(p)),
            }
        });
        Outcome {
            prompt,
            ..Outcome::of_risu(r)
        }
    }
}

impl Profile for RisuProfile {
    fn name(&self) -> ProfileName {
        ProfileName::Risu
    }

    fn request(&mut self, chat: &[Message], k: usize) -> Outcome {
        let r = self.preview.request_after(chat, k);
        Self::outcome(self.prompts, &self.inputs, chat, r)
    }

    fn log_each_while(
        &mut self,
        chat: &[Message],
        keep_going: &mut dyn FnMut() -> bool,
        each: &mut dyn FnMut(Outcome),
    ) -> bool {
        let (prompts, inputs) = (self.prompts, &self.inputs);
        self.preview.log_each_while(chat, keep_going, |r| {
            each(Self::outcome(prompts, inputs, chat, r))
        })
    }

    fn set_prompts(&mut self, on: bool) {
        self.prompts = on;
    }

    fn replace_entry(&mut self, book: usize, entry: &Entry) -> bool {
        self.preview.replace_entry(book, entry)
    }
}
