#![no_main]
// The body is lorebook_fuzz_targets::round_trip (see crates/fuzz-targets).
libfuzzer_sys::fuzz_target!(|data: &[u8]| lorebook_fuzz_targets::run("round_trip", data));
