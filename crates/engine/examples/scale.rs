//! Runs one of the issue 8 scale workloads once (see `benches/scale.rs`), to
//! measure its time and peak memory as a whole process:
//!
//! ```sh
//! cargo build --release -p lorebook-engine --example scale
//! /usr/bin/time -v target/release/examples/scale e      # 100,000 entries keyed `e`
//! /usr/bin/time -v target/release/examples/scale regex  # 10,000 regex keys
//! /usr/bin/time -v target/release/examples/scale regex-log  # their request log
//! target/release/examples/scale regex-keys  # what their compiled regexes take
//! /usr/bin/time -v target/release/examples/scale log    # 5,000-message request log
//! ```

use std::time::Instant;

use lorebook_engine::preview::{Preview, Settings};

#[path = "../benches/scale_workload.rs"]
mod scale_workload;

use scale_workload as w;

fn main() -> Result<(), String> {
    let which = std::env::args().nth(1).unwrap_or_default();
    let (book, chat) = match which.as_str() {
        "e" => (w::e_book(), w::chat(200, 500, &[])),
        "regex" | "regex-log" | "regex-keys" => {
            let book = w::regex_book();
            let chat = w::chat(200, 500, &w::names(&book));
            (book, chat)
        }
        "log" => {
            let book = w::log_book();
            let chat = w::chat(5_000, 500, &w::names(&book));
            (book, chat)
        }
        _ => return Err("usage: scale e|regex|regex-log|regex-keys|log".into()),
    };
    if which == "regex-keys" {
        regex_keys(&book);
        return Ok(());
    }
    let start = Instant::now();
    let mut p = Preview::from_books(vec![book], Settings::default());
    let built = start.elapsed();
    let start = Instant::now();
    let (requests, injected) = if which.ends_with("log") {
        let (mut requests, mut injected) = (0, 0);
        p.log_each(&chat, |r| {
            requests += 1;
            injected += r.injected.len();
        });
        (requests, injected)
    } else {
        (1, p.request(&chat, chat.len()).injected.len())
    };
    println!(
        "{which}: index built in {built:?}, {requests} request(s) in {:?}, {injected} injected",
        start.elapsed()
    );
    Ok(())
}

/// Compiles the book's keys alone and says what the regexes take against
/// the matcher's budget, and how many keys it refused.
fn regex_keys(book: &lorebook_engine::model::Book) {
    use lorebook_engine::matcher::{KeyFlags, KeyOwner, MatcherBuilder, MAX_REGEXES_BYTES};
    let start = Instant::now();
    let mut b = MatcherBuilder::default();
    for (i, e) in book.entries.iter().enumerate() {
        for (k, key) in e.keys.iter().enumerate() {
            let owner = KeyOwner {
                entry: i as u32,
                secondary: false,
                position: k as u32,
            };
            b.add(key, owner, KeyFlags::default());
        }
    }
    let (m, errors) = b.build();
    println!(
        "{} keys compiled in {:?}: {:.1} MiB of regexes ({:.1} KiB each), budget {} MiB, {} refused",
        m.key_count(),
        start.elapsed(),
        m.regex_bytes() as f64 / (1 << 20) as f64,
        m.regex_bytes() as f64 / 1024.0 / m.key_count().max(1) as f64,
        MAX_REGEXES_BYTES >> 20,
        errors.len()
    );
}
