//! Benchmarks of SillyTavern's rules on the generated workload (see
//! `workload.rs` and BENCHMARKS.md). Run with
//! `cargo bench -p lorebook-engine --bench sillytavern`.

use criterion::{criterion_group, criterion_main, Criterion};
use lorebook_engine::sillytavern::{StOptions, StPreview, StSettings, TimedState};

mod workload;

/// The context size whose default 25% gives the workload's 4,000-token
/// budget.
const MAX_CONTEXT: u32 = 16_000;

fn benches(c: &mut Criterion) {
    let book = workload::book(false);
    let chat = workload::chat(&book);
    let settings = StSettings {
        depth: 8.0,
        ..StSettings::default()
    };
    let books = [("Benchmark".to_string(), &book)];
    let mut group = c.benchmark_group("sillytavern_10k");
    group.sample_size(20);

    group.bench_function("load_book", |b| {
        b.iter(|| StPreview::new(&books, settings.clone(), StOptions::default()).unwrap())
    });

    let mut preview = StPreview::new(&books, settings.clone(), StOptions::default()).unwrap();
    // Warm: whatever the preview prepares once per book is ready.
    let first = preview.request(&chat, MAX_CONTEXT, &mut TimedState::default());
    assert!(
        !first.injected.is_empty(),
        "the workload must activate entries"
    );

    let mut edited = chat.clone();
    let mut n = 0u64;
    group.bench_function("request_after_one_message_change", |b| {
        b.iter(|| {
            n += 1;
            edited[199].text = format!("{} {n}", chat[199].text);
            preview.request(&edited, MAX_CONTEXT, &mut TimedState::default())
        })
    });

    group.bench_function("log_200_requests", |b| {
        b.iter(|| preview.log(&chat, MAX_CONTEXT, |r| drop(std::hint::black_box(r))))
    });
    group.finish();
}

criterion_group!(sillytavern_benches, benches);
criterion_main!(sillytavern_benches);
