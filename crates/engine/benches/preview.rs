//! Preview benchmarks on the generated workload (see `workload.rs` and
//! BENCHMARKS.md). Run with `cargo bench -p lorebook-engine --bench preview`.

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use lorebook_engine::chat::Message;
use lorebook_engine::preview::{Preview, Settings};

mod workload;

/// Times `iters` requests, each after forgetting every cached scan (the
/// clearing itself is not timed).
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

/// A word of the last message of `chat`, so an entry keyed on it activates.
fn chat_key(chat: &[Message], n: u64) -> String {
    let words: Vec<&str> = chat[chat.len() - 1].text.split_whitespace().collect();
    words[n as usize % words.len()]
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_string()
}

fn benches(c: &mut Criterion) {
    let book = workload::book(false);
    let chat = workload::chat(&book);
    let mut group = c.benchmark_group("preview_10k");
    group.sample_size(30);

    group.bench_function("build_index", |b| {
        b.iter(|| lorebook_engine::activation::Index::build(std::slice::from_ref(&book)))
    });

    let mut preview = Preview::new(std::slice::from_ref(&book), Settings::default());
    // Warm: automata built, messages scanned, token counts cached.
    preview.log(&chat);

    let mut edited = chat.clone();
    let mut n = 0u64;
    group.bench_function("request_after_one_message_change", |b| {
        b.iter(|| {
            n += 1;
            edited[199].text = format!("{} {n}", chat[199].text);
            preview.request(&edited, 200)
        })
    });

    group.bench_function("request_without_message_cache", |b| {
        b.iter_custom(|iters| uncached(&mut preview, &chat, iters))
    });

    group.bench_function("log_200_requests", |b| b.iter(|| preview.log(&chat)));

    // The live preview while an entry is edited: the edit itself (one entry
    // recompiled, the small recent overlay rebuilt) and the request after it. The new
    // keys are named in the chat, so the entry activates and its new body is
    // counted and scanned too.
    let keys = workload::plain_keys(&book);
    let mut entry = book.entries[5000].clone();
    let mut n = 0u64;
    // Edit `entry` (new keys, one of them in the chat, and a new body), then
    // ask for the last request.
    let edit_and_request =
        |preview: &mut Preview, entry: &mut lorebook_engine::model::Entry, n: u64| {
            entry.keys = vec![
                keys[(n as usize * 7) % keys.len()].clone(),
                chat_key(&chat, n),
            ];
            entry.content = format!("{} {n}", book.entries[5000].content);
            preview.upsert_entry(0, entry);
            preview.request(&chat, 200)
        };
    group.bench_function("request_after_editing_one_entry", |b| {
        b.iter(|| {
            n += 1;
            edit_and_request(&mut preview, &mut entry, n)
        })
    });

    // The same with 255 entries edited since the last full build, the most
    // before one: their keys sit in the overlays, which every request scans
    // too and which are merged now and then.
    for e in &book.entries[5000..5255] {
        let mut e = e.clone();
        e.keys.iter_mut().for_each(|k| k.push('x'));
        preview.upsert_entry(0, &e);
    }
    assert_eq!(preview.index().overlay_len(), 255);
    group.bench_function("request_after_editing_one_entry_of_255_edited", |b| {
        b.iter(|| {
            n += 1;
            edit_and_request(&mut preview, &mut entry, n)
        })
    });

    let recursive = workload::book(true);
    let mut rp = Preview::new(std::slice::from_ref(&recursive), Settings::default());
    rp.log(&chat);
    let passes = rp.request(&chat, 200).passes;
    assert_eq!(passes, 3, "the recursive workload must run three passes");
    group.bench_function("recursive_request_three_passes_no_cache", |b| {
        b.iter_custom(|iters| uncached(&mut rp, &chat, iters))
    });
    group.finish();
}

criterion_group!(preview_benches, benches);
criterion_main!(preview_benches);
