//! Timings of the app's work for the latency benchmark
//! (`tests/e2e/latency.rs`): with `LOREBOOK_TRACE=1` in its environment,
//! the app prints to stderr when it started reading the books given on the
//! command line, when it was done, and, per command, how long it waited for
//! the workspace and ran, all in ms since the process started. Off, it
//! costs one check of a cached flag.

use std::sync::OnceLock;
use std::time::Instant;

/// When the process started (first asked), and whether tracing is on.
fn state() -> &'static (Instant, bool) {
    static STATE: OnceLock<(Instant, bool)> = OnceLock::new();
    STATE.get_or_init(|| {
        (
            Instant::now(),
            std::env::var_os("LOREBOOK_TRACE").is_some_and(|v| v == "1"),
        )
    })
}

fn ms(t: Instant) -> f64 {
    t.saturating_duration_since(state().0).as_secs_f64() * 1000.0
}

/// Marks a moment of the start-up (`what`), when tracing.
pub fn mark(what: &str) {
    let (_, on) = state();
    if *on {
        // Wall-clock time too, to line up with the page's own clock
        // (`performance.timeOrigin`).
        let unix = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0);
        eprintln!(
            "lorebook-trace {what} at {:.1} ms (unix {unix:.1} ms)",
            ms(Instant::now())
        );
    }
}

/// One command: asked at `asked`, holding the workspace from `locked` to
/// now.
pub fn command(name: &str, asked: Instant, locked: Instant) {
    let (_, on) = state();
    if *on {
        let now = Instant::now();
        eprintln!(
            "lorebook-trace command {name} asked at {:.1} ms, waited {:.1} ms, ran {:.1} ms",
            ms(asked),
            (locked - asked).as_secs_f64() * 1000.0,
            (now - locked).as_secs_f64() * 1000.0
        );
    }
}
