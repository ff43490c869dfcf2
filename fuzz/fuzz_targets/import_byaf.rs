#![no_main]
// The body is lorebook_fuzz_targets::import_byaf (see crates/fuzz-targets).
libfuzzer_sys::fuzz_target!(|data: &[u8]| lorebook_fuzz_targets::run("import_byaf", data));
