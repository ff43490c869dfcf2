//! The step budget of SillyTavern-rule regex keys, measured (issue 8;
//! BENCHMARKS.md "SillyTavern regex keys: the step budget").
//!
//! ```sh
//! cargo run -p lorebook-engine --example st_regex_budget   # dev profile: the engine and its dependencies at opt-level 2
//! ```
//!
//! Prints, for ordinary keys over prose of 100 KB and 1 MB, the steps each
//! search took and the budget it had; for the catastrophic key `/(a+)+$/`,
//! the time it takes to run out of its budget at each text size; and, for
//! comparison, the time of regress's own "PikeVM" backend (not a linear
//! engine: a depth-first search without memory) on the same key.

use std::time::Instant;

use lorebook_engine::sillytavern::matching::regex_step_budget;

/// The least budget with which `re` decides on `text` (doubling, then
/// bisecting), or `None` past `cap`.
fn steps_needed(re: &regress::Regex, text: &[u16], cap: u64) -> Option<u64> {
    let mut high = 1u64;
    while re.find_from_ucs2_limited(text, 0, high).is_err() {
        if high > cap {
            return None;
        }
        high *= 2;
    }
    let mut low = high / 2;
    while low + 1 < high {
        let mid = (low + high) / 2;
        if re.find_from_ucs2_limited(text, 0, mid).is_ok() {
            high = mid;
        } else {
            low = mid;
        }
    }
    Some(high)
}

fn main() {
    let prose = "The dragon flew over the old lighthouse at Saltmere; Mira watched it go. ";
    let keys = [
        ("\\bdragons?\\b", "i"),
        ("(?<=the )light\\w+", "i"),
        ("\\w+ing\\b", ""),
        ("(\\w+)\\s+\\1", "i"),
        ("[A-Z][a-z]+ [A-Z][a-z]+", ""),
        (
            "\\b(sword|blade|dagger|axe|spear|bow|arrow|shield|helmet|armor|gauntlet|mace|hammer|flail|halberd|pike|lance|crossbow|sling|whip|staff|wand|orb|tome|scroll|potion|elixir|amulet|cloak)s?\\b",
            "i",
        ),
        (".*zzz", ""),
    ];
    println!("| key | text (code units) | steps to decide | steps per unit | budget | time |");
    println!("|---|---|---|---|---|---|");
    for len in [100_000usize, 1_000_000] {
        let text: Vec<u16> = prose.repeat(len / prose.len()).encode_utf16().collect();
        for (pattern, flags) in keys {
            let re = regress::Regex::with_flags(pattern, flags).unwrap();
            let budget = regex_step_budget(text.len(), pattern.encode_utf16().count());
            let start = Instant::now();
            let decided = re.find_from_ucs2_limited(&text, 0, budget).is_ok();
            let time = start.elapsed();
            let needed = if decided {
                steps_needed(&re, &text, budget)
            } else {
                None
            };
            // A pipe would split the Markdown table's cell.
            let shown: String = pattern
                .chars()
                .take(24)
                .collect::<String>()
                .replace('|', "\\|");
            match needed {
                Some(n) => println!(
                    "| `/{shown}{}/{flags}` | {} | {n} | {:.1} | {budget} | {time:.1?} |",
                    if pattern.chars().count() > 24 {
                        "…"
                    } else {
                        ""
                    },
                    text.len(),
                    n as f64 / text.len() as f64
                ),
                None => println!(
                    "| `/{shown}/{flags}` | {} | ran out | — | {budget} | {time:.1?} |",
                    text.len()
                ),
            }
        }
    }
    let re = regress::Regex::new("(a+)+$").unwrap();
    println!();
    println!("| `/(a+)+$/` on `a`×40, `b`, then `x`×N | budget | time to run out |");
    println!("|---|---|---|");
    for n in [0usize, 1_000, 100_000, 1_000_000, 10_000_000] {
        let text: Vec<u16> = format!("{}b{}", "a".repeat(40), "x".repeat(n))
            .encode_utf16()
            .collect();
        let budget = regex_step_budget(text.len(), 6);
        let start = Instant::now();
        let out = re.find_from_ucs2_limited(&text, 0, budget);
        println!(
            "| {} | {budget} | {:.1?}{} |",
            text.len(),
            start.elapsed(),
            if out.is_err() { "" } else { " (decided!)" }
        );
    }
    println!();
    println!(
        "| `/(a+)+$/` on `a`×N then `b` | backtracking, unlimited | steps | regress \"PikeVM\" |"
    );
    println!("|---|---|---|---|");
    for n in [16usize, 18, 20, 22] {
        let text = format!("{}b", "a".repeat(n));
        let units: Vec<u16> = text.encode_utf16().collect();
        let start = Instant::now();
        assert!(re.find_from_ucs2(&units, 0).next().is_none());
        let backtracking = start.elapsed();
        let steps = steps_needed(&re, &units, u64::MAX / 4).unwrap_or(0);
        let start = Instant::now();
        let found = regress::backends::find::<regress::backends::PikeVMExecutor>(&re, &text, 0)
            .next()
            .is_some();
        assert!(!found);
        println!(
            "| {n} | {backtracking:.1?} | {steps} | {:.1?} |",
            start.elapsed()
        );
    }
}
