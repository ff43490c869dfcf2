//! The checks that need a chat ([`check_chat`]): keys that match in most of
//! its messages, and gate decorators no request of it satisfies.

use super::book::{items, Item};
use super::context::{self, key_kind, KeyKind, LintContext};
use super::problem::{CommonReason, Contradiction, Finding, Problem, Span};
use crate::chat::{Message, Speaker};
use crate::decorators;
use crate::diagnostic::Severity;
use crate::matcher::{KeyFlags, KeyOwner, MatcherBuilder};
use crate::model::Book;

/// A chat shorter than this says nothing about how common a key is.
pub const MIN_MESSAGES: usize = 4;

/// The problems `chat` shows in `books`. All primary keys go into one
/// matcher and each message is scanned once.
pub fn check_chat(cx: &LintContext, books: &[Book], chat: &[Message]) -> Vec<Problem> {
    check_chat_items(cx, &items(cx, books), chat)
}

/// [`check_chat`] over the entries as the rules read them, made once by
/// the caller.
pub(crate) fn check_chat_items(cx: &LintContext, items: &[Item], chat: &[Message]) -> Vec<Problem> {
    let mut out = Vec::new();
    if chat.len() >= MIN_MESSAGES {
        let found = if cx.rules.risu().is_some() {
            super::risu::counts_in(items, chat.iter().map(|m| m.text.as_str()))
        } else {
            counts_in(cx, items, chat)
        };
        for (item, k, n) in found {
            if n * 2 <= chat.len() {
                continue;
            }
            let item = &items[item];
            out.push(Problem {
                entry: item.at,
                severity: Severity::Warning,
                span: Span::Key {
                    secondary: false,
                    index: k,
                },
                finding: Finding::KeyTooCommon {
                    key: item.entry.keys[k].trim().to_string(),
                    reason: CommonReason::Chat {
                        matched: n,
                        messages: chat.len(),
                    },
                },
                fix: None,
            });
        }
    }
    if cx.rules.is_studio() {
        gates(items, chat, &mut out);
    }
    out
}

/// For each primary key of the entries whose keys are tested: in how many
/// messages of `chat` it matches (entry, key, count).
fn counts_in(
    cx: &LintContext,
    items: &[super::book::Item],
    chat: &[Message],
) -> Vec<(usize, usize, usize)> {
    {
        // Built fast and searched a little slower: a chat is a few hundred
        // texts, the keys tens of thousands.
        let mut b = MatcherBuilder::quick();
        for (i, item) in items.iter().enumerate() {
            if !super::book::keyed(item) {
                continue;
            }
            let flags = context::flags(cx, item.entry, &item.seen);
            for (k, key) in item.entry.keys.iter().enumerate() {
                let key = match key_kind(&cx.rules, key, flags) {
                    KeyKind::Empty => continue,
                    KeyKind::Regex { pattern, flags } => format!("/{pattern}/{flags}"),
                    KeyKind::Plain { .. } => key.clone(),
                };
                let owner = KeyOwner {
                    entry: i as u32,
                    secondary: false,
                    position: k as u32,
                };
                let flags = KeyFlags {
                    case_sensitive: flags.case_sensitive,
                    whole_words: flags.whole_words,
                    use_regex: false,
                };
                b.add(&key, owner, flags);
            }
        }
        let (matcher, _) = b.build();
        let mut counts = vec![0usize; matcher.key_count()];
        for m in chat {
            for h in matcher.scan(&m.text).iter().filter(|h| !h.gave_up()) {
                counts[h.key as usize] += 1;
            }
        }
        counts
            .iter()
            .enumerate()
            .map(|(key, &n)| {
                let owner = matcher.owner(key as u32);
                (owner.entry as usize, owner.position as usize, n)
            })
            .collect()
    }
}

/// Gate decorators of the studio rules that no request 1…M of the chat
/// satisfies together (each alone does in some request).
fn gates(items: &[super::book::Item], chat: &[Message], out: &mut Vec<Problem>) {
    let m = chat.len();
    // Requests 1…first_user see no user message yet.
    let first_user = chat
        .iter()
        .position(|c| c.role == Speaker::User)
        .unwrap_or(m);
    for item in items.iter().filter(|it| it.entry.enabled) {
        let p = decorators::parse(&item.entry.content);
        let d = &p.decorators;
        let after = d.activate_only_after.unwrap_or(0) as usize;
        let every = d.activate_only_every.unwrap_or(1) as usize;
        let gates = [
            ("activate_only_after", d.activate_only_after.is_some()),
            ("activate_only_every", d.activate_only_every.is_some()),
            ("is_greeting", d.is_greeting),
        ];
        let set: Vec<&str> = gates.iter().filter(|g| g.1).map(|g| g.0).collect();
        if set.len() < 2 {
            continue;
        }
        let last = if d.is_greeting { first_user } else { m };
        let ok = |k: usize| k >= after && k % every == 0;
        let each_alone = (1..=m).any(|k| k >= after)
            && (1..=m).any(|k| k % every == 0)
            && (!d.is_greeting || first_user >= 1);
        if !each_alone || (1..=last.min(m)).any(ok) {
            continue;
        }
        let line = p
            .lines
            .iter()
            .rev()
            .find(|l| decorators::lookup(&l.name).is_some_and(|s| s.name == set[1]));
        let span = line.map_or(Span::Entry, |l| Span::Content {
            start: l.start,
            end: l.end,
        });
        out.push(Problem {
            entry: item.at,
            severity: Severity::Warning,
            span,
            finding: Finding::DecoratorContradictory {
                first: set[0].into(),
                second: set[1].into(),
                reason: Contradiction::NoRequest { messages: m },
            },
            fix: None,
        });
    }
}
