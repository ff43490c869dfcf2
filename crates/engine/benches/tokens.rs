//! Token counting of one unbroken megabyte (issue 8): a run of one letter,
//! of one emoji and of digits, each a single pre-tokenizer piece or a long
//! span of short ones. Run with `cargo bench -p lorebook-engine --bench tokens`;
//! the target is 200 ms per megabyte (BENCHMARKS.md).

use criterion::{criterion_group, criterion_main, Criterion};
use lorebook_engine::tokenizer::Encoding;

const MEGABYTE: usize = 1024 * 1024;

/// `unit` repeated to one megabyte.
fn run_of(unit: &str) -> String {
    unit.repeat(MEGABYTE / unit.len())
}

/// One megabyte of pseudo-random digits, so no chunk repeats.
fn digits() -> String {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    (0..MEGABYTE)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from(b'0' + (state % 10) as u8)
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let texts = [
        ("A", run_of("A")),
        ("emoji", run_of("😀")),
        ("digits", digits()),
    ];
    let mut group = c.benchmark_group("tokens_1mb");
    group.sample_size(10);
    for encoding in [
        Encoding::O200kBase,
        Encoding::Cl100kBase,
        Encoding::R50kBase,
    ] {
        for (name, text) in &texts {
            group.bench_function(format!("{}/{name}", encoding.name()), |b| {
                b.iter(|| encoding.count(text))
            });
        }
    }
    group.finish();
}

criterion_group!(tokens, benches);
criterion_main!(tokens);
