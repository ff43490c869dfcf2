//! Benchmarks of RisuAI's rules on the generated workload (see
//! `workload.rs` and BENCHMARKS.md). Run with
//! `cargo bench -p lorebook-engine --bench risu`.

use criterion::{criterion_group, criterion_main, Criterion};
use lorebook_engine::risu::{RisuOptions, RisuPreview, RisuSettings, RisuState};

mod workload;

fn benches(c: &mut Criterion) {
    let book = workload::book(false);
    let chat = workload::chat(&book);
    let mut group = c.benchmark_group("risu_10k");
    group.sample_size(10);

    group.bench_function("load_book", |b| {
        b.iter(|| RisuPreview::new(&[&book], RisuSettings::default(), RisuOptions::default()))
    });

    let mut preview = RisuPreview::new(&[&book], RisuSettings::default(), RisuOptions::default());
    // Warm: whatever the preview keeps between requests is ready.
    let first = preview.request(&chat, chat.len(), &mut RisuState::default());
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
            preview.request(&edited, edited.len(), &mut RisuState::default())
        })
    });

    // Every other request names one more entry in the last message, so no
    // request finds the keys the one before found: each runs its passes.
    let key = book
        .entries
        .iter()
        .find(|e| {
            let last = chat[199].text.to_lowercase();
            !e.use_regex && !e.keys.is_empty() && !last.contains(&e.keys[0].to_lowercase())
        })
        .map(|e| e.keys[0].clone())
        .expect("the workload has plain keys");
    let mut m = 0u64;
    group.bench_function("request_after_a_message_finding_new_keys", |b| {
        b.iter(|| {
            m += 1;
            edited[199].text = if m % 2 == 0 {
                format!("{} {key}", chat[199].text)
            } else {
                chat[199].text.clone()
            };
            preview.request(&edited, edited.len(), &mut RisuState::default())
        })
    });

    group.bench_function("log_200_requests", |b| {
        b.iter(|| preview.log_each(&chat, |r| drop(std::hint::black_box(r))))
    });

    // The same book with CBS in every body (the 2026 rules count each body
    // as CBS evaluates it): a variable's gate, the character's name.
    let mut cbs_book = book.clone();
    for e in &mut cbs_book.entries {
        e.content = format!(
            "{{{{#if {{{{getvar::storm}}}}}}}}A storm over {{{{char}}}}.{{{{/if}}}}{}",
            e.content
        );
    }
    let mut cbs = RisuPreview::new(
        &[&cbs_book],
        RisuSettings::default(),
        RisuOptions::default(),
    );
    cbs.request(&chat, chat.len(), &mut RisuState::default());
    let mut m = 0u64;
    group.bench_function("cbs_request_after_a_message_finding_new_keys", |b| {
        b.iter(|| {
            m += 1;
            edited[199].text = if m % 2 == 0 {
                format!("{} {key}", chat[199].text)
            } else {
                chat[199].text.clone()
            };
            cbs.request(&edited, edited.len(), &mut RisuState::default())
        })
    });
    group.bench_function("cbs_log_200_requests", |b| {
        b.iter(|| cbs.log_each(&chat, |r| drop(std::hint::black_box(r))))
    });
    group.finish();
}

criterion_group!(risu_benches, benches);
criterion_main!(risu_benches);
