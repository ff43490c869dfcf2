//! Evaluating a text under SillyTavern 1.19's new macro engine
//! (macros/engine/MacroEngine.js `evaluate`, MacroCstWalker.js), in our
//! own words:
//!
//! 1. Before reading, `<USER>`, `<BOT>`, `<CHAR>`, `<GROUP>` and
//!    `<CHARIFNOTGROUP>` (any case) become their macros.
//! 2. The text is read ([`super::parse`]); at each level, an opening macro
//!    that can take one more argument is paired with the next closing
//!    `{{/name}}` of the same name (any case, counting nested openers of
//!    that name); what lies between is its last argument, evaluated and
//!    trimmed (each line losing the first line's indent) unless the opener
//!    has the `#` flag. A closing macro left unpaired stays as written; so
//!    do both ends of a pair whose opener takes no more arguments.
//! 3. Arguments are evaluated before their macro, except `{{if}}`'s, which
//!    evaluates its condition, then only the branch it takes.
//! 4. An unknown macro, or one called with the wrong number of arguments,
//!    stays as written (its arguments evaluated).
//! 5. After evaluating, `\{` and `\}` lose their backslash, `{{trim}}` is
//!    removed with the line breaks around it, and a stray `{{else}}` leaves
//!    nothing.

use std::cell::{Cell, RefCell};

use serde_json::Value;

use super::clock::{self, Moment};
use super::js;
use super::parse::{self, Body, Item, Node, Span, VarOp};
use super::registry::{self, Def, Does};
use super::scope::{pair, split_else, Placing};
use super::trace::{Branch, MacroDecision, MAX_DECISIONS};
use super::vars::{Scope, Scratch, Variables};

/// What `{{else}}` leaves for its `{{if}}` to split on.
const ELSE_MARK: &str = "\u{0}\u{1F}ELSE\u{1F}\u{0}";

/// How deep evaluations may nest (an `{{if}}` in an argument in a
/// branch…); deeper texts are kept as written.
const MAX_DEPTH: usize = 40;

/// One expansion under way.
pub struct Cx<'a> {
    pub user: &'a str,
    pub char: &'a str,
    pub vars: RefCell<Scratch<'a>>,
    pub steps: Cell<u64>,
    depth: Cell<usize>,
    /// Macros whose value the preview cannot know were met.
    pub unknowable: Cell<bool>,
    /// The moment date and time macros show (read once, when first met).
    clock: Cell<Option<Moment>>,
    /// Where the macros decided (see [`super::trace`]).
    pub trace: RefCell<Vec<MacroDecision>>,
}

impl<'a> Cx<'a> {
    pub fn new(
        user: &'a str,
        char: &'a str,
        vars: &'a Variables,
        len: usize,
        clock: Option<Moment>,
    ) -> Self {
        Cx {
            clock: Cell::new(clock),
            trace: RefCell::new(Vec::new()),
            user,
            char,
            vars: RefCell::new(Scratch::new(vars)),
            steps: Cell::new((len as u64).saturating_mul(64).max(1 << 20)),
            depth: Cell::new(0),
            unknowable: Cell::new(false),
        }
    }

    /// Whether the reading ran out of steps (the caller keeps the text).
    pub fn spent(&self) -> bool {
        self.steps.get() == 0
    }

    fn deeper<T>(&self, text: &str, f: impl FnOnce() -> T, shallow: impl FnOnce(&str) -> T) -> T {
        if self.depth.get() >= MAX_DEPTH {
            return shallow(text);
        }
        self.depth.set(self.depth.get() + 1);
        let out = f();
        self.depth.set(self.depth.get() - 1);
        out
    }

    /// The whole evaluation of a text, with the steps before and after.
    pub fn evaluate(&self, text: &str) -> String {
        if text.is_empty() {
            return String::new();
        }
        self.deeper(
            text,
            || {
                let pre = markers(text);
                after(&self.content(&pre))
            },
            str::to_string,
        )
    }

    /// A text's macros evaluated, without the steps before and after (what
    /// arguments and scoped content get).
    fn content(&self, text: &str) -> String {
        if !text.contains("{{") {
            return text.to_string();
        }
        self.deeper(
            text,
            || {
                let items = parse::document(text, &self.steps);
                let placed = pair(&items, text);
                let mut out = String::with_capacity(text.len());
                let mut cursor = 0;
                for (item, scope) in placed {
                    match item {
                        Item::Text((s, e)) => {
                            if *s >= cursor {
                                out.push_str(&text[*s..*e]);
                                cursor = *e;
                            }
                        }
                        Item::Macro(node) => {
                            if node.start < cursor {
                                continue;
                            }
                            match scope {
                                Placing::Raw => out.push_str(&text[node.start..node.end]),
                                Placing::Alone => out.push_str(&self.node(node, text, None)),
                                Placing::Opens(span, close_end) => {
                                    out.push_str(&self.node(node, text, Some(span)));
                                    cursor = close_end;
                                    continue;
                                }
                            }
                            cursor = node.end;
                        }
                    }
                }
                out
            },
            str::to_string,
        )
    }

    fn node(&self, node: &Node, text: &str, scoped: Option<Span>) -> String {
        match &node.body {
            Body::Var {
                global,
                name,
                op,
                value,
            } => {
                let scope = if *global { Scope::Global } else { Scope::Local };
                let value = value.map(|(s, e)| &text[s..e]);
                self.variable(scope, &text[name.0..name.1], *op, value)
            }
            Body::Named { name, args } => {
                self.named(node, &text[name.0..name.1], args, text, scoped)
            }
        }
    }

    fn named(
        &self,
        node: &Node,
        name: &str,
        args: &[Option<Span>],
        text: &str,
        scoped: Option<Span>,
    ) -> String {
        let def = registry::lookup(name);
        let delay = def.is_some_and(|d| d.does == Does::If);
        let preserve = node.flags.contains(&'#');
        let mut values = Vec::with_capacity(args.len() + 1);
        let mut pieces: Vec<(usize, usize, String)> = Vec::new();
        for arg in args {
            let raw = arg.map_or("", |(s, e)| &text[s..e]);
            let v = if delay {
                raw.to_string()
            } else {
                self.content(raw)
            };
            if let Some((s, e)) = arg {
                pieces.push((*s, *e, v.clone()));
            }
            values.push(v);
        }
        if let Some((s, e)) = scoped {
            if s >= e {
                values.push(String::new());
            } else {
                let raw = &text[s..e];
                let v = if delay {
                    raw.to_string()
                } else {
                    let v = self.content(raw);
                    if preserve {
                        v
                    } else {
                        trim_scoped(&v)
                    }
                };
                pieces.push((s, e, v.clone()));
                values.push(v);
            }
        }
        // The call as written, its arguments evaluated (what an unknown or
        // miscounted macro leaves).
        let (inner_start, inner_end) = (node.start + 2, node.end - 2);
        let mut inner = String::new();
        let mut cursor = inner_start;
        for (s, e, v) in &pieces {
            if *s > cursor {
                inner.push_str(&text[cursor..*s]);
            }
            inner.push_str(v);
            cursor = *e;
        }
        if cursor < inner_end {
            inner.push_str(&text[cursor..inner_end]);
        }
        let raw = format!("{{{{{inner}}}}}");
        match def {
            Some(d) => self.call(d, name, &values, scoped.is_some(), preserve, raw),
            None => raw,
        }
    }

    fn call(
        &self,
        def: Def,
        name: &str,
        args: &[String],
        scoped: bool,
        preserve: bool,
        raw: String,
    ) -> String {
        if !registry::count_fits(def, args.len()) {
            return raw;
        }
        let int_ok = |a: &str| {
            let t = js::trim(a);
            let digits = t.strip_prefix('-').unwrap_or(t);
            !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
        };
        if def.int_first && args.first().is_some_and(|a| !int_ok(a)) {
            return raw;
        }
        let arg = |i: usize| args.get(i).map_or("", String::as_str);
        let vars = || self.vars.borrow_mut();
        let repeat = |unit: &str| -> String {
            let n = args.first().map_or(1.0, |a| js::number(a));
            if !(0.0..=65536.0).contains(&n) {
                return raw.clone();
            }
            unit.repeat(n as usize)
        };
        match def.does {
            Does::User | Does::NotChar => self.user.to_string(),
            Does::Char => self.char.to_string(),
            Does::Nothing => String::new(),
            Does::Space => repeat(" "),
            Does::Newline => repeat("\n"),
            Does::Trim if scoped => arg(0).to_string(),
            Does::Trim => "{{trim}}".into(),
            Does::If => self.condition(arg(0), arg(1), preserve),
            Does::Else => ELSE_MARK.into(),
            Does::Reverse => arg(0).chars().rev().collect(),
            Does::False => "false".into(),
            Does::Clock => {
                let now = self.clock.get().unwrap_or_else(Moment::now);
                self.clock.set(Some(now));
                clock::value(
                    &name.to_ascii_lowercase(),
                    args.first().map(String::as_str),
                    now,
                )
                .unwrap_or(raw)
            }
            Does::Unknowable => {
                self.unknowable.set(true);
                raw
            }
            Does::Get(s) => {
                self.note_var(s, arg(0));
                vars().get(s, arg(0))
            }
            Does::Has(s) => vars().has(s, arg(0)).to_string(),
            Does::GetKey(s) => vars().get_key(s, arg(0), arg(1)),
            // Setting a variable of no name fails in SillyTavern: the call
            // stays as written.
            _ if arg(0).is_empty() => raw,
            Does::Set(s) => {
                vars().set(s, arg(0), Value::String(arg(1).to_string()));
                String::new()
            }
            Does::Add(s) => {
                vars().add(s, arg(0), arg(1));
                String::new()
            }
            Does::Inc(s) => vars().add(s, arg(0), "1"),
            Does::Dec(s) => vars().add(s, arg(0), "-1"),
            Does::Delete(s) => {
                vars().delete(s, arg(0));
                String::new()
            }
            Does::SetKey(s) => {
                vars().set_key(s, arg(0), arg(1), arg(2));
                String::new()
            }
        }
    }

    fn note(&self, d: MacroDecision) {
        let mut trace = self.trace.borrow_mut();
        if trace.len() < MAX_DECISIONS && !trace.contains(&d) {
            trace.push(d);
        }
    }

    /// Notes a variable read (before any change the same macro makes).
    fn note_var(&self, scope: Scope, name: &str) {
        let vars = self.vars.borrow();
        let value = vars.has(scope, name).then(|| vars.get(scope, name));
        drop(vars);
        self.note(MacroDecision::Var {
            name: name.to_string(),
            global: scope == Scope::Global,
            value,
        });
    }

    /// `{{if}}` (core-macros.js): a leading `!` inverts; the condition is
    /// evaluated, read as a variable when it is a bare `.name` or `$name`,
    /// or as a macro when it names one taking no arguments; empty, `false`,
    /// `off` and `0` are false. Only the branch taken is evaluated.
    fn condition(&self, raw_condition: &str, raw_content: &str, preserve: bool) -> String {
        let after_blank = raw_condition.trim_start_matches(js::is_ws);
        let (inverted, condition) = match after_blank.strip_prefix('!') {
            Some(rest) => (true, rest.trim_start_matches(js::is_ws)),
            None => (false, raw_condition),
        };
        let mut value = self.evaluate(condition);
        if let Some((scope, name)) = shorthand(&value) {
            self.note_var(scope, name);
            value = self.vars.borrow().get(scope, name);
        } else if registry::lookup(&value).is_some_and(|d| d.min == 0) {
            value = self.evaluate(&format!("{{{{{value}}}}}"));
        }
        let falsy = (value.is_empty() || js::is_false_word(&value)) != inverted;
        let (then, otherwise) = split_else(raw_content, &self.steps);
        let taken = match (falsy, otherwise.is_some()) {
            (false, _) => Branch::Then,
            (true, true) => Branch::Else,
            (true, false) => Branch::Nothing,
        };
        self.note(MacroDecision::If {
            condition: js::trim(raw_condition).to_string(),
            value: value.clone(),
            branch: taken,
        });
        let Some(branch) = (if falsy { otherwise } else { Some(then) }) else {
            return String::new();
        };
        let out = self.evaluate(branch);
        if preserve {
            out
        } else {
            trim_scoped(&out)
        }
    }

    /// A variable shorthand (MacroCstWalker.js `#executeVariableOperation`).
    fn variable(&self, scope: Scope, name: &str, op: Option<VarOp>, value: Option<&str>) -> String {
        if !matches!(op, Some(VarOp::Set | VarOp::Add | VarOp::Sub)) {
            self.note_var(scope, name);
        }
        let value = || js::trim(&self.content(value.unwrap_or(""))).to_string();
        let current = || self.vars.borrow().get(scope, name);
        let falsy = |v: &str| v.is_empty() || js::is_false_word(v);
        let compare = |f: fn(f64, f64) -> bool| {
            let (a, b) = (js::number(&current()), js::number(&value()));
            (!a.is_nan() && !b.is_nan() && f(a, b)).to_string()
        };
        let vars = || self.vars.borrow_mut();
        match op {
            None => current(),
            Some(VarOp::Set) => {
                let v = value();
                vars().set(scope, name, Value::String(v));
                String::new()
            }
            Some(VarOp::Inc) => vars().add(scope, name, "1"),
            Some(VarOp::Dec) => vars().add(scope, name, "-1"),
            Some(VarOp::Add) => {
                let v = value();
                vars().add(scope, name, &v);
                String::new()
            }
            Some(VarOp::Sub) => {
                let n = js::number(&value());
                if !n.is_nan() {
                    vars().add(scope, name, &js::number_text(-n));
                }
                String::new()
            }
            Some(VarOp::Or) => {
                let c = current();
                if falsy(&c) {
                    value()
                } else {
                    c
                }
            }
            Some(VarOp::Nullish) => {
                if self.vars.borrow().has(scope, name) {
                    current()
                } else {
                    value()
                }
            }
            Some(VarOp::OrAssign) => {
                let c = current();
                if falsy(&c) {
                    let v = value();
                    vars().set(scope, name, Value::String(v.clone()));
                    v
                } else {
                    c
                }
            }
            Some(VarOp::NullishAssign) => {
                if self.vars.borrow().has(scope, name) {
                    current()
                } else {
                    let v = value();
                    vars().set(scope, name, Value::String(v.clone()));
                    v
                }
            }
            Some(VarOp::Eq) => (current() == value()).to_string(),
            Some(VarOp::Ne) => (current() != value()).to_string(),
            Some(VarOp::Gt) => compare(|a, b| a > b),
            Some(VarOp::Ge) => compare(|a, b| a >= b),
            Some(VarOp::Lt) => compare(|a, b| a < b),
            Some(VarOp::Le) => compare(|a, b| a <= b),
        }
    }
}

/// A bare `.name` or `$name`.
fn shorthand(text: &str) -> Option<(Scope, &str)> {
    let scope = match text.as_bytes().first()? {
        b'.' => Scope::Local,
        b'$' => Scope::Global,
        _ => return None,
    };
    let name = &text[1..];
    let b = name.as_bytes();
    let ok = b.first()?.is_ascii_alphabetic()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-')
        && *b.last()? != b'-';
    ok.then_some((scope, name))
}

/// Trims scoped content, removing the first non-blank line's indent from
/// every line (MacroEngine.js `trimScopedContent`).
pub fn trim_scoped(content: &str) -> String {
    let indent = |l: &str| l.bytes().take_while(|b| *b == b' ' || *b == b'\t').count();
    let base = content
        .split('\n')
        .find(|l| !js::trim(l).is_empty())
        .map_or(0, indent);
    if base == 0 {
        return js::trim(content).to_string();
    }
    let lines: Vec<&str> = content
        .split('\n')
        .map(|l| {
            if indent(l) >= base {
                &l[base..]
            } else {
                l.trim_start_matches(js::is_ws)
            }
        })
        .collect();
    js::trim(&lines.join("\n")).to_string()
}

/// `<USER>` and its kin (any case) as macros.
fn markers(text: &str) -> String {
    if !text.contains('<') {
        return text.to_string();
    }
    const MARKS: [(&str, &str); 5] = [
        ("<user>", "{{user}}"),
        ("<bot>", "{{char}}"),
        ("<char>", "{{char}}"),
        ("<charifnotgroup>", "{{charIfNotGroup}}"),
        ("<group>", "{{group}}"),
    ];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'scan: while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        for (mark, with) in MARKS {
            if rest.len() >= mark.len()
                && rest.is_char_boundary(mark.len())
                && rest[..mark.len()].eq_ignore_ascii_case(mark)
            {
                out.push_str(with);
                rest = &rest[mark.len()..];
                continue 'scan;
            }
        }
        out.push('<');
        rest = &rest[1..];
    }
    out.push_str(rest);
    out
}

/// The steps after evaluating: unescaped braces, `{{trim}}` with the line
/// breaks around it removed, stray else marks removed.
fn after(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && matches!(chars.peek(), Some('{' | '}')) {
            continue;
        }
        out.push(c);
    }
    let out = remove_trim(&out);
    if out.contains(ELSE_MARK) {
        out.replace(ELSE_MARK, "")
    } else {
        out
    }
}

/// Removes each `{{trim}}` (any case) with the `\n` or `\r\n` line breaks
/// right before and after it.
pub fn remove_trim(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    if !lower.contains("{{trim}}") {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    let mut from = 0;
    while let Some(found) = lower[from..].find("{{trim}}") {
        let at = from + found;
        let mut start = at;
        let b = text.as_bytes();
        while start > cursor && b[start - 1] == b'\n' {
            start -= 1;
            if start > cursor && b[start - 1] == b'\r' {
                start -= 1;
            }
        }
        let mut end = at + "{{trim}}".len();
        loop {
            if text[end..].starts_with('\n') {
                end += 1;
            } else if text[end..].starts_with("\r\n") {
                end += 2;
            } else {
                break;
            }
        }
        out.push_str(&text[cursor..start]);
        cursor = end;
        from = end;
    }
    out.push_str(&text[cursor..]);
    out
}
