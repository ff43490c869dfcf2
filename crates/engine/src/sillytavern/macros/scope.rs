//! Which macros of one level open and close scopes
//! (MacroCstWalker.js `#processScopedMacros`, `#findMatchingClosingMacro`;
//! core-macros.js `splitOnTopLevelElse`), in our own words: an opener that
//! can take one more argument pairs with the next closer of its name (any
//! case), counting nested openers of that name that could take one too;
//! what lies between becomes its last argument. Closers left unpaired, and
//! both ends of a pair whose opener is already full, stay as written.

use std::cell::Cell;

use super::parse::{self, Body, Item, Node, Span};
use super::registry;

/// How a top-level macro takes part in its level.
pub enum Placing {
    Alone,
    /// Stays as written (an unpaired closer, or a pair that cannot scope).
    Raw,
    /// Opens a scope: its content and where its closer ends.
    Opens(Span, usize),
}

struct Info<'t> {
    index: usize,
    name: &'t str,
    closing: bool,
    args: usize,
}

/// Whether a macro closes a scope: the `/` flag, or the comment macro
/// whose argument begins with `/` (`{{///}}`).
fn closing(node: &Node, text: &str) -> Option<(bool, usize)> {
    let Body::Named { name, args } = &node.body else {
        return None;
    };
    let name_text = &text[name.0..name.1];
    let first_slash = name_text == "//"
        && args
            .first()
            .copied()
            .flatten()
            .is_some_and(|(s, _)| text[s..].starts_with('/'));
    Some((node.flags.contains(&'/') || first_slash, args.len()))
}

/// Pairs the openers and closers of one level (MacroCstWalker.js
/// `#processScopedMacros`).
pub fn pair<'i>(items: &'i [Item], text: &str) -> Vec<(&'i Item, Placing)> {
    let mut infos = Vec::new();
    for (index, item) in items.iter().enumerate() {
        if let Item::Macro(node) = item {
            if let (Some((closing, args)), Body::Named { name, .. }) =
                (closing(node, text), &node.body)
            {
                infos.push(Info {
                    index,
                    name: &text[name.0..name.1],
                    closing,
                    args,
                });
            }
        }
    }
    let mut placing: Vec<Placing> = items.iter().map(|_| Placing::Alone).collect();
    let mut matched = vec![false; infos.len()];
    let mut inside_until = 0usize;
    for i in 0..infos.len() {
        let open = &infos[i];
        if open.closing || matched[i] || open.index < inside_until {
            continue;
        }
        let mut depth = 1;
        let mut found = None;
        for (j, info) in infos.iter().enumerate().skip(i + 1) {
            if matched[j] || !info.name.eq_ignore_ascii_case(open.name) {
                continue;
            }
            if info.closing {
                depth -= 1;
                if depth == 0 {
                    found = Some(j);
                    break;
                }
            } else if registry::takes_scope(registry::lookup(info.name), info.args) {
                depth += 1;
            }
        }
        let Some(j) = found else { continue };
        matched[i] = true;
        matched[j] = true;
        if !registry::takes_scope(registry::lookup(open.name), open.args) {
            placing[open.index] = Placing::Raw;
            placing[infos[j].index] = Placing::Raw;
            continue;
        }
        let (Item::Macro(o), Item::Macro(c)) = (&items[open.index], &items[infos[j].index]) else {
            continue;
        };
        placing[open.index] = Placing::Opens((o.end, c.start), c.end);
        inside_until = infos[j].index;
    }
    for (k, info) in infos.iter().enumerate() {
        if info.closing && !matched[k] {
            placing[info.index] = Placing::Raw;
        }
    }
    items.iter().zip(placing).collect()
}

/// Splits an `{{if}}`'s content on its own `{{else}}` (core-macros.js
/// `splitOnTopLevelElse`): the first `{{else}}` not inside a scoped
/// `{{if}}`. Both names are compared as written, in lower case only.
pub fn split_else<'t>(content: &'t str, steps: &Cell<u64>) -> (&'t str, Option<&'t str>) {
    let mut depth = 0i64;
    for item in parse::document(content, steps) {
        let Item::Macro(node) = item else { continue };
        let Some((is_closing, args)) = closing(&node, content) else {
            continue;
        };
        let Body::Named { name, .. } = node.body else {
            continue;
        };
        match &content[name.0..name.1] {
            "if" if !is_closing && args == 1 => depth += 1,
            "if" if is_closing => depth -= 1,
            "else" if depth == 0 => return (&content[..node.start], Some(&content[node.end..])),
            _ => {}
        }
    }
    (content, None)
}
