//! `lorebook compare A B [--json]`: the two books entry by entry
//! (`lorebook_engine::compare`): only in A, only in B, in both but
//! different with the fields that differ. Exit status 0 when they hold the
//! same entries, 1 when they differ, 2 on usage errors and unreadable input.

use std::path::PathBuf;
use std::process::ExitCode;

use lorebook_engine::compare::{compare, Comparison};
use serde_json::Value;

use crate::{books, emit, emit_json};

#[derive(clap::Args)]
pub struct CompareArgs {
    a: PathBuf,
    b: PathBuf,
    /// One JSON object: only_a, only_b, different, same.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &CompareArgs) -> ExitCode {
    let (a, b) = match (books::load(&args.a), books::load(&args.b)) {
        (Ok(a), Ok(b)) => (a.book, b.book),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let c = compare(&a, &b);
    if args.json {
        emit_json(&c);
    } else {
        emit(&text(
            &c,
            &args.a.display().to_string(),
            &args.b.display().to_string(),
        ));
    }
    if c.is_same() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// A value in one line, cut when long.
fn short(v: &Value) -> String {
    let s = match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    };
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(59).collect::<String>())
    } else {
        s
    }
}

fn text(c: &Comparison, a: &str, b: &str) -> String {
    let mut out = String::new();
    out.push_str(&format!("only in {a} ({}):\n", c.only_a.len()));
    for e in &c.only_a {
        out.push_str(&format!("  #{} {}\n", e.id, e.name));
    }
    out.push_str(&format!("only in {b} ({}):\n", c.only_b.len()));
    for e in &c.only_b {
        out.push_str(&format!("  #{} {}\n", e.id, e.name));
    }
    out.push_str(&format!("in both, different ({}):\n", c.different.len()));
    for p in &c.different {
        let ids = if p.a == p.b {
            format!("#{}", p.a)
        } else {
            format!("#{} ↔ #{}", p.a, p.b)
        };
        out.push_str(&format!("  {ids} {} (matched by {})\n", p.name, p.by));
        for f in &p.fields {
            out.push_str(&format!(
                "      {}: {} → {}\n",
                f.field,
                short(&f.a),
                short(&f.b)
            ));
        }
    }
    out.push_str(&format!("the same: {}\n", c.same));
    out
}
