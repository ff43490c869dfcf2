//! CPU time of the 200-request log under SillyTavern's rules, and of one
//! request after a one-message change, on the workload of
//! `benches/sillytavern.rs`. Criterion measures wall time,
//! which on a machine shared with other builds swings by half; the
//! thread's own CPU time (from /proc, Linux only) is steadier for
//! comparing two versions. Run with
//! `cargo run --release -p lorebook-engine --example st_log_cpu`.

#[path = "../benches/workload.rs"]
mod workload;

use lorebook_engine::sillytavern::{StOptions, StPreview, StSettings, TimedState};

/// This thread's user + system CPU time in seconds.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn main() {
    let book = workload::book(false);
    let chat = workload::chat(&book);
    let settings = StSettings {
        depth: 8.0,
        ..StSettings::default()
    };
    let books = [("Benchmark".to_string(), &book)];
    let mut preview = StPreview::new(&books, settings, StOptions::default()).unwrap();
    // Warm: the token cache and the compiled regexes are ready.
    preview.log(&chat, 16_000, drop);
    let runs = 8;
    let Some(start) = cpu_seconds() else {
        eprintln!("no /proc/thread-self/stat: CPU time is read on Linux only");
        return;
    };
    let mut used = 0u64;
    for _ in 0..runs {
        preview.log(&chat, 16_000, |r| used += u64::from(r.used));
    }
    let per_log = (cpu_seconds().unwrap_or(start) - start) * 1000.0 / f64::from(runs);
    // The sum of tokens used shows two versions computed the same logs.
    println!("CPU time per 200-request log: {per_log:.1} ms (tokens used, summed: {used})");

    // One request of the whole chat after its last message changed, as
    // `request_after_one_message_change` in the benchmark: 1,000 of them,
    // so the clock's 10 ms ticks are 1% of the time.
    let mut edited = chat.clone();
    let requests = 1000u32;
    let start = cpu_seconds().unwrap_or(0.0);
    let mut used = 0u64;
    for n in 0..requests {
        edited[199].text = format!("{} {n}", chat[199].text);
        let r = preview.request(&edited, 16_000, &mut TimedState::default());
        used += u64::from(r.used);
    }
    let per_request = (cpu_seconds().unwrap_or(start) - start) * 1000.0 / f64::from(requests);
    println!(
        "CPU time per request after a one-message change: {per_request:.3} ms (tokens used, summed: {used})"
    );
}
