//! What the desktop app does per keystroke on a 10,000-entry book: edit one
//! entry, then recompute the preview; and reload the entry list. Run with
//! `cargo bench -p lorebook-studio --bench workspace` (numbers in
//! BENCHMARKS.md).

use criterion::{criterion_group, criterion_main, Criterion};
use lorebook_studio_lib::views::{EntryFilter, ListQuery, SortKey};
use lorebook_studio_lib::workspace::Workspace;

#[path = "../crates/engine/benches/workload.rs"]
mod workload;

fn benches(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("lbs-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let book = workload::book(false);
    let chat = workload::chat(&book);
    let path = dir.join("book.json");
    lorebook_engine::formats::native::save(&book, &path).unwrap();
    let text: String = chat
        .iter()
        .map(|m| {
            format!(
                "{}: {}\n",
                if m.role.as_str() == "user" {
                    "User"
                } else {
                    "Aria"
                },
                m.text
            )
        })
        .collect();

    let mut ws = Workspace::default();
    let doc = ws.open_path(&path).unwrap().doc;
    ws.set_chat(text);
    ws.preview(None);

    let mut group = c.benchmark_group("workspace_10k");
    group.sample_size(20);
    let mut n = 0u64;
    let base5000 = book.entries[5000].content.clone();
    let base4000 = book.entries[4000].content.clone();
    group.bench_function("edit_entry_keys_then_preview", |b| {
        b.iter(|| {
            n += 1;
            let mut e = ws.entry(doc, 5000).unwrap().entry;
            e.keys[0] = format!("renamed{n}");
            // A new body each time (as typing makes), of the same length.
            e.content = format!("{base5000} edit {n}");
            ws.update_entry(doc, e).unwrap();
            ws.preview(None)
        })
    });
    group.bench_function("edit_entry_content_then_preview", |b| {
        b.iter(|| {
            n += 1;
            let mut e = ws.entry(doc, 4000).unwrap().entry;
            e.content = format!("{base4000} edit {n}");
            ws.update_entry(doc, e).unwrap();
            ws.preview(None)
        })
    });
    let query = ListQuery {
        search: String::new(),
        filter: EntryFilter::All,
        sort: SortKey::Order,
        descending: true,
    };
    group.bench_function("list_10k_entries", |b| {
        b.iter(|| ws.list(doc, &query).unwrap())
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(workspace_benches, benches);
criterion_main!(workspace_benches);
