//! The macros SillyTavern 1.19 registers (macros/definitions/*.js), by
//! name in any case, with how many arguments each takes and what the
//! preview makes of it. Argument counts matter beyond the macro itself: a
//! macro takes scoped content (`{{name}}…{{/name}}`) only when one more
//! argument fits, and a call with the wrong count stays as written.

use super::vars::Scope;

/// What a macro gives in the preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Does {
    User,
    Char,
    /// The user in a one-character chat (`{{notChar}}`).
    NotChar,
    /// Nothing: card fields (the preview has no character card), instruct
    /// sequences (instruct mode off), side effects outside the prompt.
    Nothing,
    Space,
    Newline,
    Trim,
    If,
    Else,
    Reverse,
    Get(Scope),
    Set(Scope),
    Add(Scope),
    Inc(Scope),
    Dec(Scope),
    Has(Scope),
    Delete(Scope),
    GetKey(Scope),
    SetKey(Scope),
    /// A date or time ([`super::clock`]).
    Clock,
    /// `{{isMobile}}` on a desktop.
    False,
    /// A value the preview cannot know (the clock, a roll, the model, the
    /// previous generation): kept as written, and the lint says so.
    Unknowable,
}

/// One registered macro.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Def {
    pub min: usize,
    pub max: usize,
    /// Takes any number of arguments after `max` (`{{random}}`, `{{pick}}`);
    /// never scoped.
    pub list: bool,
    /// Its first argument must be a whole number.
    pub int_first: bool,
    pub does: Does,
}

const fn def(min: usize, max: usize, does: Does) -> Def {
    Def {
        min,
        max,
        list: false,
        int_first: false,
        does,
    }
}

/// The macro called `name` (any case, trimmed), if SillyTavern has one.
pub fn lookup(name: &str) -> Option<Def> {
    use Does::*;
    use Scope::{Global as G, Local as L};
    let lower = super::js::trim(name).to_ascii_lowercase();
    let counted = |does| Def {
        int_first: true,
        ..def(0, 1, does)
    };
    Some(match lower.as_str() {
        "user" => def(0, 0, User),
        "char" | "group" | "charifnotgroup" | "groupnotmuted" => def(0, 0, Char),
        "notchar" => def(0, 0, NotChar),
        "space" => counted(Space),
        "newline" => counted(Newline),
        "noop" | "input" | "original" => def(0, 0, Nothing),
        "trim" => def(0, 1, Trim),
        "if" => def(2, 2, If),
        "else" => def(0, 0, Else),
        "reverse" => def(1, 1, Reverse),
        "//" | "comment" | "banned" | "outlet" => def(1, 1, Nothing),
        "charprompt" | "charinstruction" | "chardescription" | "description"
        | "charpersonality" | "personality" | "charscenario" | "scenario" | "persona"
        | "mesexamplesraw" | "mesexamples" | "chardepthprompt" | "charcreatornotes"
        | "creatornotes" | "charversion" | "version" | "char_version" => def(0, 0, Nothing),
        "charfirstmessage" | "greeting" => counted(Nothing),
        "ismobile" => def(0, 0, False),
        "roll" | "hasextension" | "datetimeformat" => def(1, 1, Unknowable),
        "random" | "pick" => Def {
            list: true,
            ..def(0, 0, Unknowable)
        },
        "time" => def(0, 1, Clock),
        "date" | "weekday" | "isotime" | "isodate" => def(0, 0, Clock),
        "timediff" => def(2, 2, Unknowable),
        "maxprompt"
        | "maxprompttokens"
        | "maxcontext"
        | "maxcontexttokens"
        | "maxresponse"
        | "maxresponsetokens"
        | "model"
        | "systemprompt"
        | "defaultsystemprompt"
        | "instructsystem"
        | "instructsystemprompt"
        | "exampleseparator"
        | "chatseparator"
        | "chatstart"
        | "lastgenerationtype"
        | "idleduration"
        | "idle_duration"
        | "lastmessage"
        | "lastmessageid"
        | "lastusermessage"
        | "lastcharmessage"
        | "firstincludedmessageid"
        | "firstdisplayedmessageid"
        | "lastswipeid"
        | "currentswipeid"
        | "allchatrange" => def(0, 0, Unknowable),
        n if INSTRUCT.contains(&n) => def(0, 0, Nothing),
        "setvar" => def(2, 2, Set(L)),
        "addvar" => def(2, 2, Add(L)),
        "incvar" => def(1, 1, Inc(L)),
        "decvar" => def(1, 1, Dec(L)),
        "getvar" => def(1, 1, Get(L)),
        "hasvar" | "varexists" => def(1, 1, Has(L)),
        "deletevar" | "flushvar" => def(1, 1, Delete(L)),
        "setvarkey" | "setvarindex" => def(3, 3, SetKey(L)),
        "getvarkey" | "getvarindex" => def(2, 2, GetKey(L)),
        "setglobalvar" => def(2, 2, Set(G)),
        "addglobalvar" => def(2, 2, Add(G)),
        "incglobalvar" => def(1, 1, Inc(G)),
        "decglobalvar" => def(1, 1, Dec(G)),
        "getglobalvar" => def(1, 1, Get(G)),
        "hasglobalvar" | "globalvarexists" => def(1, 1, Has(G)),
        "deleteglobalvar" | "flushglobalvar" => def(1, 1, Delete(G)),
        "setglobalvarkey" | "setglobalvarindex" => def(3, 3, SetKey(G)),
        "getglobalvarkey" | "getglobalvarindex" => def(2, 2, GetKey(G)),
        _ => return None,
    })
}

/// The instruct-template macros, lower-cased: empty with instruct mode off.
pub const INSTRUCT: [&str; 22] = [
    "instructstorystringprefix",
    "instructstorystringsuffix",
    "instructuserprefix",
    "instructinput",
    "instructusersuffix",
    "instructassistantprefix",
    "instructoutput",
    "instructassistantsuffix",
    "instructseparator",
    "instructsystemprefix",
    "instructsystemsuffix",
    "instructfirstassistantprefix",
    "instructfirstoutputprefix",
    "instructlastassistantprefix",
    "instructlastoutputprefix",
    "instructstop",
    "instructuserfiller",
    "instructsysteminstructionprefix",
    "instructfirstuserprefix",
    "instructfirstinput",
    "instructlastuserprefix",
    "instructlastinput",
];

/// Whether a macro called with `args` arguments could take scoped content
/// too (MacroCstWalker.js: `#canAcceptScopedContent`); unknown macros can.
pub fn takes_scope(def: Option<Def>, args: usize) -> bool {
    match def {
        None => true,
        Some(d) if d.list => false,
        Some(d) => (d.min..=d.max).contains(&(args + 1)),
    }
}

/// Whether `args` arguments suit the macro (MacroRegistry.js: `isArgsValid`).
pub fn count_fits(def: Def, args: usize) -> bool {
    if def.list {
        args >= def.min
    } else {
        (def.min..=def.max).contains(&args)
    }
}
