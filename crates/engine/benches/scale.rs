//! The matcher and the request log at scale (issue 8; see `scale_workload.rs`
//! and BENCHMARKS.md): 100,000 entries keyed `e`, 10,000 regex keys, and a
//! 5,000-message chat through the request log. Run with
//! `cargo bench -p lorebook-engine --bench scale`.

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use lorebook_engine::activation::Index;
use lorebook_engine::chat::Message;
use lorebook_engine::preview::{Preview, Settings};

mod scale_workload;

use scale_workload as w;

/// Times `iters` requests of the whole chat, each after forgetting every
/// cached scan (the clearing itself is not timed).
fn uncached(p: &mut Preview, chat: &[Message], iters: u64) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        p.clear_hit_cache();
        let start = Instant::now();
        std::hint::black_box(p.request(chat, chat.len()));
        total += start.elapsed();
    }
    total
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("scale");
    group.sample_size(10);

    let book = w::e_book();
    let chat = w::chat(200, 500, &[]);
    let mut p = Preview::new(std::slice::from_ref(&book), Settings::default());
    group.bench_function("e_100k_entries_build_index", |b| {
        b.iter(|| Index::build(std::slice::from_ref(&book)))
    });
    group.bench_function("e_100k_entries_request_200_messages", |b| {
        b.iter_custom(|iters| uncached(&mut p, &chat, iters))
    });
    drop(p);

    let book = w::regex_book();
    let chat = w::chat(200, 500, &w::names(&book));
    let mut p = Preview::new(std::slice::from_ref(&book), Settings::default());
    group.bench_function("regex_10k_keys_build_index", |b| {
        b.iter(|| Index::build(std::slice::from_ref(&book)))
    });
    group.bench_function("regex_10k_keys_request", |b| {
        b.iter_custom(|iters| uncached(&mut p, &chat, iters))
    });
    drop(p);

    let book = w::log_book();
    let chat = w::chat(5_000, 500, &w::names(&book));
    let mut p = Preview::new(std::slice::from_ref(&book), Settings::default());
    group.bench_function("log_5000_messages_1k_entries", |b| {
        b.iter(|| {
            let mut injected = 0;
            p.log_each(&chat, |r| injected += r.injected.len());
            injected
        })
    });
    group.finish();
}

criterion_group!(scale_benches, benches);
criterion_main!(scale_benches);
