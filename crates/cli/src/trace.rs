//! Where a run spends its time and memory: with `LOREBOOK_TRACE=1` in its
//! environment, the CLI prints to stderr, at each phase of `preview`, the
//! milliseconds since it started and the process's resident and peak memory
//! (`/proc/self/status`). BENCHMARKS.md ("The cold CLI against a JavaScript
//! scan") reads it. Off, a phase costs one check of a cached flag.

use std::sync::OnceLock;
use std::time::Instant;

fn state() -> &'static (Instant, bool) {
    static STATE: OnceLock<(Instant, bool)> = OnceLock::new();
    STATE.get_or_init(|| {
        (
            Instant::now(),
            std::env::var_os("LOREBOOK_TRACE").is_some_and(|v| v == "1"),
        )
    })
}

/// Starts the clock (call first thing).
pub fn start() {
    state();
}

/// The resident and peak memory in MB, from `/proc/self/status` (zeros
/// where it cannot be read).
fn memory() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Marks the end of phase `what`, when tracing.
pub fn phase(what: &str) {
    let (start, on) = state();
    if *on {
        let (rss, peak) = memory();
        eprintln!(
            "lorebook-trace {what}: {:.1} ms, rss {rss:.0} MB, peak {peak:.0} MB",
            start.elapsed().as_secs_f64() * 1000.0
        );
    }
}
