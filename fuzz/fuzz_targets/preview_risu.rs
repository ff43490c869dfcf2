#![no_main]
// The body is lorebook_fuzz_targets::preview_risu (see crates/fuzz-targets).
libfuzzer_sys::fuzz_target!(|data: &[u8]| lorebook_fuzz_targets::run("preview_risu", data));
