//! Load time, memory and counting speed of every tokenizer family (issue
//! 11): reading the installed file, the process's resident memory it adds,
//! and counting the bodies of a 10,000-entry book (10,000 distinct bodies
//! of about 500 characters: English, Portuguese, Russian, Chinese, code)
//! with a fresh per-content cache, as the preview does on first sight of a
//! book. Needs the files `scripts/fetch-tokenizers.sh` installs.
//!
//! Run with `cargo bench -p lorebook-engine --bench families`; a family id
//! as argument measures only that family. Results: BENCHMARKS.md.

use std::time::Instant;

use lorebook_engine::tokenizer::registry::FAMILIES;
use lorebook_engine::tokenizer::{resources, TokenCounter, Tokenizer};

const WORDS: &[&str] = &[
    "the",
    "lighthouse",
    "keeper",
    "of",
    "Saltmere",
    "hadn't",
    "spoken",
    "storm",
    "harbour",
    "ação",
    "coração",
    "não",
    "você",
    "difícil",
    "маяк",
    "смотритель",
    "разговаривал",
    "灯塔",
    "看守人",
    "説話",
    "fn",
    "main()",
    "{",
    "}",
    "x.len()",
    "—",
    "“quoted”",
    "1234",
    "3.14",
    "Dragon",
    "Queen",
    "Ironhold",
    "ancient",
    "pact",
    "whispered",
    "secret",
    "\n",
    "  ",
];

/// 10,000 distinct bodies of about 500 characters.
fn bodies() -> Vec<String> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..10_000)
        .map(|i| {
            let mut body = format!("Entry {i}. ");
            while body.chars().count() < 500 {
                body.push_str(WORDS[(next() % WORDS.len() as u64) as usize]);
                body.push(' ');
            }
            body
        })
        .collect()
}

/// Resident memory of this process, in KiB (Linux; 0 elsewhere).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4)
}

fn main() {
    // The repository's folder (after `$LOREBOOK_TOKENIZERS`), as a program
    // hands the engine its search path.
    resources::set_search_path(lorebook_test_support::tokenizer_dirs()).unwrap();
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let bodies = bodies();
    let bytes: usize = bodies.iter().map(String::len).sum();
    println!(
        "{} bodies, {:.1} MB; family | installed KB | load ms | +RSS MiB | count ms (all cores) | count ms (one core)",
        bodies.len(),
        bytes as f64 / 1e6
    );
    for f in FAMILIES {
        if f.file.is_none() || (!only.is_empty() && !only.iter().any(|o| o == f.id)) {
            continue;
        }
        let installed = resources::installed(f)
            .and_then(|p| std::fs::metadata(p).ok())
            .map_or(0, |m| m.len() / 1000);
        let before = rss_kib();
        let start = Instant::now();
        let file = match resources::read(f) {
            Ok(t) => std::sync::Arc::new(t),
            Err(e) => {
                println!("{}: {e}", f.id);
                continue;
            }
        };
        let load = start.elapsed();
        let tokenizer = Tokenizer::File(file.clone());
        let grown = rss_kib().saturating_sub(before);
        // As the entry list does on first sight of a book: every body at
        // once, over the machine's cores, then each from the cache.
        let mut counter = TokenCounter::with_tokenizer(tokenizer.clone());
        let start = Instant::now();
        counter.prime(bodies.iter().map(String::as_str));
        let total: u64 = bodies.iter().map(|b| u64::from(counter.count(b))).sum();
        let count = start.elapsed();
        // One body at a time on one core.
        let mut single = TokenCounter::with_tokenizer(tokenizer);
        let start = Instant::now();
        let single_total: u64 = bodies.iter().map(|b| u64::from(single.count(b))).sum();
        let one_core = start.elapsed();
        assert_eq!(single_total, total, "{}: priming changed a count", f.id);
        // The library's full encoding, for the families the count-only path
        // serves (hf_fast.rs): the time before it, and the same total.
        let library = file.has_fast_path().then(|| {
            let start = Instant::now();
            let total: u64 = bodies
                .iter()
                .map(|b| u64::from(file.library_count(b)))
                .sum();
            (start.elapsed(), total)
        });
        if let Some((_, library_total)) = library {
            assert_eq!(
                library_total, total,
                "{}: the count-only path differs",
                f.id
            );
        }
        println!(
            "{:<15} | {installed:>6} | {:>6.0} | {:>5.0} | {:>6.0} | {:>6.0}   ({total} tokens){}",
            f.id,
            load.as_secs_f64() * 1e3,
            grown as f64 / 1024.0,
            count.as_secs_f64() * 1e3,
            one_core.as_secs_f64() * 1e3,
            library.map_or(String::new(), |(t, _)| format!(
                "; library alone {:.0} ms",
                t.as_secs_f64() * 1e3
            )),
        );
    }
}
