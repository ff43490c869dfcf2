#![no_main]
// The body is lorebook_fuzz_targets::markdown_folder (see crates/fuzz-targets).
libfuzzer_sys::fuzz_target!(|data: &[u8]| lorebook_fuzz_targets::run("markdown_folder", data));
