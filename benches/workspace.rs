//! What the desktop app does per keystroke on a 10,000-entry book: edit one
//! entry, then recompute the preview; and reload the entry list; under
//! SillyTavern's and RisuAI's rules, a chat keystroke and the view after
//! it; and the impact strip after an edit. Run with
//! `cargo bench -p lorebook-studio --bench workspace` (numbers in
//! BENCHMARKS.md).

use criterion::{criterion_group, criterion_main, Criterion};
use lorebook_engine::formats::st_fields::StField;
use lorebook_studio_lib::views::{BulkPatch, EntryFilter, ListQuery, Rules, SortKey, StEdit};
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
    // The impact strip after an edit: the saved book (rebuilt from the undo
    // history) against the edited one over the 200 requests, both logs
    // side by side; the shell's work, without the IPC and the paint.
    ws.save(doc, None, true).unwrap();
    let mut e = ws.entry(doc, 4000).unwrap().entry;
    e.keys[0] = "renamed-for-impact".into();
    ws.update_entry(doc, e).unwrap();
    group.bench_function("impact_of_an_entry_edit_200_requests", |b| {
        b.iter(|| ws.impact_inputs(doc).unwrap().compute().unwrap())
    });
    // Find and replace's preview over the whole book (issue 22): a common
    // syllable in every field, the matches with their context and the
    // texts that change (80,000 matches, 13,700 texts; the first 2,000 and
    // 500 listed), then what they would change over the 200 requests.
    let ask = lorebook_studio_lib::views::FindAsk {
        pattern: "ka".into(),
        with: "KA".into(),
        regex: false,
        case_sensitive: false,
        whole_word: false,
        fields: Vec::new(),
        only: None,
    };
    group.bench_function("find_and_replace_preview_10k", |b| {
        b.iter(|| ws.find_in_book(doc, &ask, None).unwrap())
    });
    group.bench_function("find_and_replace_impact_10k", |b| {
        let all: Vec<lorebook_studio_lib::views::MatchRef> = ws
            .find_in_book(doc, &ask, None)
            .unwrap()
            .matches
            .iter()
            .map(lorebook_studio_lib::views::MatchRef::from)
            .collect();
        b.iter(|| {
            ws.replace_impact(doc, &ask, &all)
                .unwrap()
                .compute()
                .unwrap()
        })
    });
    group.finish();
    sillytavern(c, &mut ws, doc);
    risu(c, &mut ws, doc);
    folders(c, &mut ws, &book, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 22: a search typed in the box of the workload book put into 100
/// folders (the latency bench's `latency_folders` workload, token counts
/// all in): every entry's name, keys and body searched, the folders
/// holding a match kept, each folder's totals.
fn folders(
    c: &mut Criterion,
    ws: &mut Workspace,
    book: &lorebook_engine::model::Book,
    dir: &std::path::Path,
) {
    let mut foldered = book.clone();
    workload::with_folders(&mut foldered, 100);
    let path = dir.join("folders.json");
    lorebook_engine::formats::native::save(&foldered, &path).unwrap();
    let doc = ws.open_path(&path).unwrap().doc;
    let mut from = Some(0);
    while let Some(f) = from {
        from = ws.count_list_tokens(doc, f).unwrap().next;
    }
    let searches = ["entry 1", "entry 12"].map(|s| ListQuery {
        search: s.into(),
        filter: EntryFilter::All,
        sort: SortKey::Order,
        descending: true,
    });
    let mut group = c.benchmark_group("workspace_10k_folders");
    group.sample_size(20);
    let mut turn = 0;
    group.bench_function("list_search_in_100_folders", |b| {
        b.iter(|| {
            turn += 1;
            ws.list(doc, &searches[turn % 2]).unwrap()
        })
    });
    group.finish();
}

/// The same workspace under RisuAI's rules (its defaults: scan depth 5,
/// 800 tokens): a chat keystroke, and a keystroke in an entry's body (put
/// in place, nothing built), each with the view after it.
fn risu(c: &mut Criterion, ws: &mut Workspace, doc: u32) {
    ws.set_rules(Rules::Risu);
    ws.risu_preview(None, false).unwrap();
    let units = |text: &str| lorebook_engine::chat::utf16_len(text) as u32;
    let mut group = c.benchmark_group("workspace_10k_risu");
    group.sample_size(10);
    group.bench_function("risu_chat_keystroke_then_view", |b| {
        b.iter(|| {
            let len = units(&ws.chat_text);
            ws.edit_chat(len - 1, 0, "x", len).unwrap();
            ws.risu_preview(None, false).unwrap()
        })
    });
    let base = ws.entry(doc, 4000).unwrap().entry.content;
    let mut n = 0u64;
    group.bench_function("risu_entry_body_edit_then_view", |b| {
        b.iter(|| {
            n += 1;
            let mut e = ws.entry(doc, 4000).unwrap().entry;
            e.content = format!("{base} edit {n}");
            ws.update_entry(doc, e).unwrap();
            ws.risu_preview(None, false).unwrap()
        })
    });
    group.finish();
}

/// The same workspace under SillyTavern's rules, with the settings of the
/// engine's `sillytavern` bench (scan depth 8, a 16,000-token context).
fn sillytavern(c: &mut Criterion, ws: &mut Workspace, doc: u32) {
    ws.set_rules(Rules::Sillytavern);
    let mut st = ws.st_settings.clone();
    st.depth = 8.0;
    st.max_context = 16_000;
    ws.set_st_settings(st).unwrap();
    ws.st_preview(None).unwrap();
    let units = |text: &str| lorebook_engine::chat::utf16_len(text) as u32;
    let mut group = c.benchmark_group("workspace_10k_st");
    group.sample_size(10);
    // One character typed at the end of the last message (before the
    // text's last newline), then the view the app asks for: the last
    // request, with the final prompt as a change to the one sent before.
    let mut have = None;
    group.bench_function("st_chat_keystroke_then_view", |b| {
        b.iter(|| {
            let len = units(&ws.chat_text);
            ws.edit_chat(len - 1, 0, "x", len).unwrap();
            let v = ws.st_preview_with_prompt(None, have).unwrap();
            have = v.prompt.as_ref().map(|p| p.rev);
            v
        })
    });
    // A character typed into message 100 of 200 (and taken out again the
    // next time): requests 100…200 run again.
    let line = ws
        .chat_text
        .split('\n')
        .take(99)
        .map(|l| units(l) + 1)
        .sum::<u32>()
        + 6;
    let mut typed = false;
    group.bench_function("st_chat_edit_at_message_100_then_view", |b| {
        b.iter(|| {
            let len = units(&ws.chat_text);
            let (remove, insert) = if typed { (1, "") } else { (0, "x") };
            typed = !typed;
            ws.edit_chat(line, remove, insert, len).unwrap();
            ws.st_preview_with_prompt(None, have).unwrap()
        })
    });
    // An entry's body edited (a keystroke in the editor): put in place in
    // the kept preview, nothing compiled.
    let base = ws.entry(doc, 4000).unwrap().entry.content;
    let mut n = 0u64;
    group.bench_function("st_entry_body_edit_then_view", |b| {
        b.iter(|| {
            n += 1;
            let mut e = ws.entry(doc, 4000).unwrap().entry;
            e.content = format!("{base} edit {n}");
            ws.update_entry(doc, e).unwrap();
            ws.st_preview(None).unwrap()
        })
    });
    // An entry's key edited: its keys are taken out of the compiled
    // automata and tested one by one (`KeySet::replace`); nothing is built
    // again.
    group.bench_function("st_entry_key_edit_then_view", |b| {
        b.iter(|| {
            n += 1;
            let mut e = ws.entry(doc, 4000).unwrap().entry;
            e.keys[0] = format!("renamed{n}");
            ws.update_entry(doc, e).unwrap();
            ws.st_preview(None).unwrap()
        })
    });
    // The same with timed effects: every 50th entry sticky for 2 messages
    // and cooling down for 1, so each request depends on the ones before
    // and requests 100…200 run again (without, each runs alone).
    let ids: Vec<u64> = ws
        .doc(doc)
        .unwrap()
        .book
        .entries
        .iter()
        .step_by(50)
        .map(|e| e.id)
        .collect();
    let timed = BulkPatch {
        enabled: None,
        order: None,
        priority: None,
        st: vec![
            StEdit {
                field: StField::Sticky,
                value: serde_json::json!(2),
            },
            StEdit {
                field: StField::Cooldown,
                value: serde_json::json!(1),
            },
        ],
    };
    ws.bulk(doc, &ids, &timed).unwrap();
    ws.st_preview(None).unwrap();
    group.bench_function("st_timed_chat_edit_at_message_100_then_view", |b| {
        b.iter(|| {
            let len = units(&ws.chat_text);
            let (remove, insert) = if typed { (1, "") } else { (0, "x") };
            typed = !typed;
            ws.edit_chat(line, remove, insert, len).unwrap();
            ws.st_preview_with_prompt(None, have).unwrap()
        })
    });
    group.bench_function("st_timed_chat_keystroke_then_view", |b| {
        b.iter(|| {
            let len = units(&ws.chat_text);
            ws.edit_chat(len - 1, 0, "x", len).unwrap();
            let v = ws.st_preview_with_prompt(None, have).unwrap();
            have = v.prompt.as_ref().map(|p| p.rev);
            v
        })
    });
    // The request log's view after a keystroke in the last message.
    group.bench_function("st_chat_keystroke_then_log", |b| {
        b.iter(|| {
            let len = units(&ws.chat_text);
            ws.edit_chat(len - 1, 0, "x", len).unwrap();
            ws.preview_log().unwrap()
        })
    });
    // With the timed entries, an entry's body edited: put in place, but
    // the timed states before go, so the 200 requests run again.
    group.bench_function("st_timed_entry_body_edit_then_view", |b| {
        b.iter(|| {
            n += 1;
            let mut e = ws.entry(doc, 4000).unwrap().entry;
            e.content = format!("{base} edit {n}");
            ws.update_entry(doc, e).unwrap();
            ws.st_preview(None).unwrap()
        })
    });
    group.finish();
    cpu_per_keystroke(ws);
}

/// This thread's user + system CPU time in seconds (Linux).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// The chat keystroke and view of `st_chat_keystroke_then_view` in CPU
/// time, which a machine shared with other builds disturbs less than the
/// wall time criterion reports: 500 of them, so the clock's 10 ms ticks
/// are a small part.
fn cpu_per_keystroke(ws: &mut Workspace) {
    let Some(start) = cpu_seconds() else {
        println!("no /proc/thread-self/stat: CPU time is read on Linux only");
        return;
    };
    let runs = 500;
    let mut have = None;
    let mut used = 0u64;
    for _ in 0..runs {
        let len = lorebook_engine::chat::utf16_len(&ws.chat_text) as u32;
        ws.edit_chat(len - 1, 0, "x", len).unwrap();
        let v = ws.st_preview_with_prompt(None, have).unwrap();
        have = v.prompt.as_ref().map(|p| p.rev);
        used += u64::from(v.used);
    }
    let ms = (cpu_seconds().unwrap_or(start) - start) * 1000.0 / f64::from(runs);
    println!(
        "workspace_10k_st: CPU time per chat keystroke and view: {ms:.2} ms (tokens used, summed: {used})"
    );
}

criterion_group!(workspace_benches, benches);
criterion_main!(workspace_benches);
