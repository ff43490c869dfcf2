//! Issue 9's latency benchmark: the real app (the debug build the e2e
//! tests and `scripts/run.sh` make) driven through tauri-driver, timing
//! each interaction from its `input` event to the first animation frame
//! after the DOM shows the updated preview. Not part of the pass/fail run
//! (the test is ignored); run it with
//!
//! ```sh
//! (cd ui && npm run build) && cargo build --bin lorebook-studio
//! cargo run -p lorebook-engine --example workload -- /tmp/wl32k --budget 32000
//! LATENCY_WORKLOAD=/tmp/wl32k cargo test --test e2e latency -- --ignored --nocapture
//! ```
//!
//! Without `LATENCY_WORKLOAD` only the bundled sample is measured;
//! `LATENCY_SAMPLES` (default 20) sets the samples per interaction
//! (`LATENCY_EACH=1` prints each sample's time and commands), and
//! `LATENCY_PAUSE_MS` a pause after each (the Problems panel's checks start
//! 250 ms after the last edit: a pause of 300 ms has them running when the
//! next keystroke comes).
//!
//! Each sample types one character at the field's end by script, with the
//! browser's own text insertion (`execCommand('insertText')`, which fires
//! the `input` event as a keystroke does), and a MutationObserver
//! waits for the DOM to show what that keystroke should change: the typed
//! text in the final prompt (chat, entry content), the typed key
//! highlighted in the entry's excerpt (keys), the entry leaving or joining
//! the injected list (the enabled flag). The time is taken in the first
//! `requestAnimationFrame` after that, when the frame is painted. The next
//! sample starts once no command is in flight. Bytes per update are every
//! IPC request and answer body of one update, counted in separate samples
//! (counting them costs time), with when the first command went out and
//! the last answer came back.
//!
//! On the workload, last, a whole chat message is added and removed again
//! (`WHOLE_MESSAGE`), timed to the painted request label.
//!
//! `latency_st` measures chat typing on the 10,000-entry workload under
//! SillyTavern's rules, with its final prompt open (same command, same
//! `LATENCY_WORKLOAD`; `--ignored --nocapture latency_st`), and
//! `latency_risu` the same under RisuAI's rules.
//!
//! Also printed: the time from the page's start to the first frame with
//! the 10,000-entry list and the preview drawn, and the frame times while
//! the long lists scroll 30 px a frame (with the sample's preview pane as
//! the machine's reference), and the webview's resident memory before and
//! after typing.

use super::*;
use serde_json::Value;

/// Installed once per page: a counter of commands in flight (for "the app
/// is idle") and an optional byte counter, both around `fetch`, which
/// Tauri's IPC uses.
const INSTALL: &str = r#"
if (!window.__bench) {
  const b = { inflight: 0, counting: false, bytes: 0, calls: 0, ipc: {}, first: null, last: 0 };
  window.__bench = b;
  const orig = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const url = String(input && input.url ? input.url : input);
    const ipc = url.startsWith('ipc:') || url.includes('//ipc.');
    if (!ipc) return orig(input, init);
    b.inflight += 1;
    const t0 = performance.now();
    if (b.first === null) b.first = t0;
    const cmd = url.split('/').pop().split('?')[0];
    if (b.counting) {
      b.calls += 1;
      const body = init && init.body;
      if (typeof body === 'string') b.bytes += new TextEncoder().encode(body).length;
      else if (body && body.byteLength !== undefined) b.bytes += body.byteLength;
    }
    return orig(input, init).then(
      (r) => {
        b.last = performance.now();
        if (b.counting) {
          b.ipc[cmd] = (b.ipc[cmd] || 0) + (b.last - t0);
          r.clone().arrayBuffer().then((a) => { b.bytes += a.byteLength; });
        }
        // The answer's callback runs after this promise settles.
        setTimeout(() => { b.inflight -= 1; }, 0);
        return r;
      },
      (e) => { b.inflight -= 1; throw e; },
    );
  };
}
return true;
"#;

/// The helpers every measuring script starts with: `Q` finds elements,
/// `edit` changes a field as typing does, `measure` runs one sample.
const HELPERS: &str = r#"
const Q = (css) => document.querySelector(css);
const QA = (css) => Array.from(document.querySelectorAll(css));
const tid = (id) => `[data-testid="${id}"]`;
const edit = (el, value) => {
  el.focus();
  el.value = value;
  el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText' }));
};
// Types `text` at the field's end as a keystroke does: the browser's own
// insertion, which fires the 'input' event, instead of replacing the whole
// value (a replaced value lays out a long chat again from scratch).
const typeAtEnd = (el, text) => {
  el.focus();
  // The length without asking for the value: the bench makes no copy of
  // a long chat's text per keystroke.
  const n = el.textLength ?? el.value.length;
  el.setSelectionRange(n, n);
  if (!document.execCommand('insertText', false, text)) {
    el.setRangeText(text, n, n, 'end');
    el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: text }));
  }
};
const promptHas = (text) => QA(`${tid('messages')} li`).some((li) => li.textContent.includes(text));
const measure = (act, shown, done, timeout = 30000) => {
  let finished = false;
  const t0 = performance.now();
  window.__bench.first = null;
  const finish = (ok) => {
    if (finished) return;
    finished = true;
    observer.disconnect();
    // The time, and when the first command went out and the last answer
    // came back (from the input event).
    const b = window.__bench;
    requestAnimationFrame(() => done(ok ? [performance.now() - t0, b.first === null ? 0 : b.first - t0, b.last - t0] : -1));
  };
  const observer = new MutationObserver(() => { if (shown()) finish(true); });
  observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  setTimeout(() => finish(false), timeout);
  act();
  if (shown()) finish(true);
};
"#;

/// One interaction: `act` (a JS statement, `i` the sample number) and
/// `shown` (a JS expression true once the DOM shows its result).
struct Interaction {
    name: &'static str,
    act: &'static str,
    shown: &'static str,
}

/// The letters typed, one a sample; the text typed so far is unique in the
/// chat and the book thanks to its prefix.
const LETTERS: &str = "abcdefghijklmnopqrstuvwxyz";

const CHAT: Interaction = Interaction {
    name: "chat typing",
    act: "typeAtEnd(Q(tid('chat')), typed(i));",
    shown: "promptHas('Zqbench ' + typedUpTo(i))",
};
const CONTENT: Interaction = Interaction {
    name: "entry content typing",
    act: "typeAtEnd(Q(tid('content')), typed(i));",
    shown: "promptHas('Zqcontent ' + typedUpTo(i))",
};
const KEYS: Interaction = Interaction {
    name: "keys typing",
    act: "typeAtEnd(Q(tid('keys')), typed(i));",
    shown: "(Q(`${tid('injected-entry')}[data-id=\"${target}\"] mark`)?.textContent ?? '') === 'Zqbench ' + typedUpTo(i)",
};
const FLAG: Interaction = Interaction {
    name: "flag toggle (enabled)",
    act: "Q(tid('enabled')).click();",
    shown: "(Q(`${tid('injected-entry')}[data-id=\"${target}\"]`) !== null) === (i % 2 === 1)",
};

/// Percentile `p` (0–100) of sorted `xs`, nearest rank.
fn percentile(xs: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * xs.len() as f64).ceil() as usize;
    xs[rank.clamp(1, xs.len()) - 1]
}

impl Session<'_> {
    fn js_async(&self, script: &str, args: Vec<Value>) -> Value {
        self.run(self.client.execute_async(script, args))
            .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    /// Waits until no command is in flight for two frames.
    fn settle(&self) {
        self.js_async(
            "const done = arguments[arguments.length - 1]; let quiet = 0;
             const tick = () => { quiet = window.__bench.inflight === 0 ? quiet + 1 : 0;
               if (quiet >= 3) done(true); else requestAnimationFrame(tick); };
             requestAnimationFrame(tick);",
            vec![],
        );
    }

    /// Runs `samples` samples of `it` on entry `target`; per sample, the
    /// time in ms, and when the first command went out and the last
    /// answer came back.
    fn sample(&self, it: &Interaction, target: u64, from: usize, samples: usize) -> Vec<[f64; 3]> {
        let script = format!(
            "{HELPERS}
             const [i, target] = arguments; const done = arguments[arguments.length - 1];
             const letters = '{LETTERS}';
             const typed = (k) => letters[k % letters.length];
             const typedUpTo = (k) => Array.from({{length: k + 1}}, (_, j) => typed(j)).join('');
             measure(() => {{ {act} }}, () => {shown}, done);",
            act = it.act,
            shown = it.shown,
        );
        let mut times = Vec::new();
        for i in from..from + samples {
            let t = self.js_async(&script, vec![json!(i), json!(target)]);
            let at = |k: usize| t.get(k).and_then(Value::as_f64);
            let Some(ms) = at(0) else {
                panic!("{}: sample {i} never showed its update (30 s)", it.name)
            };
            times.push([ms, at(1).unwrap_or(0.0), at(2).unwrap_or(0.0)]);
            if std::env::var_os("LATENCY_EACH").is_some() {
                let [ms, first, last] = times[times.len() - 1];
                println!(
                    "latency |   {} sample {i}: {ms} ms, first command at {first} ms, last answer at {last} ms",
                    it.name
                );
            }
            self.settle();
            if let Some(p) = pause() {
                std::thread::sleep(p);
            }
        }
        times
    }

    /// Bytes of IPC (requests and answers) per update of `it`.
    fn bytes_per_update(&self, it: &Interaction, target: u64, from: usize) -> (f64, f64) {
        const N: usize = 3;
        self.js(
            "Object.assign(window.__bench, {counting: true, bytes: 0, calls: 0, ipc: {}}); return true;",
            vec![],
        );
        let phases = self.sample(it, target, from, N);
        self.settle();
        let mean = |k: usize| phases.iter().map(|p| p[k]).sum::<f64>() / N as f64;
        let got = self.js(
            "window.__bench.counting = false; return [window.__bench.bytes, window.__bench.calls, window.__bench.ipc];",
            vec![],
        );
        let bytes = got[0].as_f64().unwrap_or(0.0);
        let calls = got[1].as_f64().unwrap_or(0.0);
        // Time from each command's request to its answer's arrival, per
        // update: how much of an update waits on Rust.
        let mut ipc: Vec<(String, f64)> = got[2]
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_f64().unwrap_or(0.0) / N as f64))
                    .collect()
            })
            .unwrap_or_default();
        ipc.sort_by(|a, b| b.1.total_cmp(&a.1));
        let ipc: Vec<String> = ipc.iter().map(|(k, v)| format!("{k} {v:.0} ms")).collect();
        println!(
            "latency |   {}: first command sent at {:.0} ms, last answer at {:.0} ms, painted at {:.0} ms; round trips: {}",
            it.name,
            mean(1),
            mean(2),
            mean(0),
            ipc.join(", ")
        );
        (bytes / N as f64, calls / N as f64)
    }

    /// Measures `it` and prints one line: p50, p95, max, bytes per update.
    fn report(&self, book: &str, it: &Interaction, target: u64, from: &mut usize, samples: usize) {
        let mut times: Vec<f64> = self
            .sample(it, target, *from, samples)
            .iter()
            .map(|p| p[0])
            .collect();
        *from += samples;
        let (bytes, calls) = self.bytes_per_update(it, target, *from);
        *from += 3;
        times.sort_by(f64::total_cmp);
        println!(
            "latency | {book:<22} | {:<22} | p50 {:>7.1} ms | p95 {:>7.1} ms | max {:>7.1} ms | {:>9.0} B/update | {:.1} calls",
            it.name,
            percentile(&times, 50.0),
            percentile(&times, 95.0),
            times[times.len() - 1],
            bytes,
            calls,
        );
    }

    /// Types `prefix` into the chat's end as a new user message and waits
    /// until the prompt shows it.
    fn start_chat_marker(&self) {
        self.js(
            &format!(
                "{HELPERS} const ta = Q(tid('chat')); edit(ta, ta.value.replace(/\\s+$/, '') + '\\nUser: Zqbench '); return true;"
            ),
            vec![],
        );
        wait_until("the chat marker in the prompt", TIMEOUT * 6, || {
            self.reveal_in_prompt("Zqbench")
        });
    }

    /// Scrolls the final prompt until a message holding `text` is drawn
    /// and in view (the prompt may be a virtual list).
    fn reveal_in_prompt(&self, text: &str) -> Result<(), String> {
        self.reveal_in("messages", text)
    }

    /// Scrolls the message list `list` (a test id) until a message
    /// holding `text` is drawn and in view.
    fn reveal_in(&self, list: &str, text: &str) -> Result<(), String> {
        let found = self.js_async(
            &format!(
                "{HELPERS}
                 const [text, id] = arguments; const done = arguments[arguments.length - 1];
                 const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
                 (async () => {{
                   const list = Q(tid(id));
                   let scroller = list;
                   while (scroller && scroller.scrollHeight <= scroller.clientHeight + 1) scroller = scroller.parentElement;
                   const hit = () => QA(`${{tid(id)}} li`).find((li) => li.textContent.includes(text));
                   if (scroller) scroller.scrollTop = 0;
                   await frame();
                   for (let n = 0; n < 2000 && !hit(); n++) {{
                     if (!scroller || scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1) break;
                     scroller.scrollTop += Math.max(50, scroller.clientHeight - 20);
                     await frame();
                   }}
                   const li = hit();
                   if (li) li.scrollIntoView({{ block: 'nearest' }});
                   await frame();
                   done(!!hit());
                 }})();"
            ),
            vec![json!(text), json!(list)],
        );
        if found == json!(true) {
            Ok(())
        } else {
            Err(format!("no prompt message holds {text:?}"))
        }
    }

    /// Picks an injected entry matched by a key, selects it in the editor,
    /// turns its whole-word matching off (so the typed key matches a part
    /// of the typed chat word) and scrolls its row into view.
    fn pick_target(&self) -> u64 {
        let id = self.js(
            &format!(
                "{HELPERS}
                 const row = QA(tid('injected-entry')).find((r) => r.querySelector('mark'));
                 if (!row) return null;
                 row.querySelector('button').click();
                 return Number(row.dataset.id);"
            ),
            vec![],
        );
        let id = id.as_u64().expect("an injected entry matched by a key");
        wait_until("the target entry in the editor", TIMEOUT * 3, || {
            let shown = self.text(&self.find(&tid("entry-id"))?)?;
            if shown
                .split(|c: char| !c.is_ascii_digit())
                .any(|n| n == id.to_string())
            {
                Ok(())
            } else {
                Err(shown)
            }
        });
        self.js(
            &format!(
                "{HELPERS} const w = Q(tid('whole-words')); if (w && w.checked) w.click(); return true;"
            ),
            vec![],
        );
        self.settle();
        self.reveal_injected(id);
        id
    }

    /// Scrolls the injected list until entry `id`'s row is drawn.
    fn reveal_injected(&self, id: u64) {
        let found = self.js_async(
            &format!(
                "{HELPERS}
                 const [id] = arguments; const done = arguments[arguments.length - 1];
                 const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
                 (async () => {{
                   const row = () => Q(`${{tid('injected-entry')}}[data-id=\"${{id}}\"]`);
                   const list = Q(tid('injected'));
                   let scroller = list;
                   while (scroller && scroller.scrollHeight <= scroller.clientHeight + 1) scroller = scroller.parentElement;
                   for (let n = 0; n < 2000 && !row() && scroller; n++) {{
                     if (scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1) break;
                     scroller.scrollTop += Math.max(50, scroller.clientHeight - 20);
                     await frame();
                   }}
                   if (row()) row().scrollIntoView({{ block: 'nearest' }});
                   await frame();
                   done(!!row());
                 }})();"
            ),
            vec![json!(id)],
        );
        assert_eq!(found, json!(true), "injected entry {id} is not drawn");
    }

    /// Appends a marker line to the selected entry's content and waits
    /// until the prompt shows it.
    fn start_content_marker(&self) {
        self.js(
            &format!(
                "{HELPERS} const ta = Q(tid('content')); edit(ta, ta.value + '\\nZqcontent '); return true;"
            ),
            vec![],
        );
        wait_until("the content marker in the prompt", TIMEOUT * 6, || {
            self.reveal_in_prompt("Zqcontent")
        });
    }

    /// Measures every interaction on the book the app shows.
    fn measure_all(&self, book: &str, samples: usize) {
        self.js(INSTALL, vec![]);
        self.settle();
        let mut from = 0;
        self.start_chat_marker();
        self.settle();
        self.report(book, &CHAT, 0, &mut from, samples);
        let target = self.pick_target();
        // The keys typed are prefixes of the chat word typed above.
        self.js(
            &format!("{HELPERS} edit(Q(tid('keys')), 'Zqbench '); return true;"),
            vec![],
        );
        self.settle();
        let mut keys_from = 0;
        self.report(book, &KEYS, target, &mut keys_from, samples);
        self.js(
            &format!("{HELPERS} edit(Q(tid('keys')), 'Zqbench'); return true;"),
            vec![],
        );
        self.settle();
        self.reveal_injected(target);
        let mut flag_from = 0;
        self.report(book, &FLAG, target, &mut flag_from, samples);
        self.js(
            &format!(
                "{HELPERS} const e = Q(tid('enabled')); if (!e.checked) e.click(); return true;"
            ),
            vec![],
        );
        self.settle();
        self.reveal_injected(target);
        self.start_content_marker();
        self.settle();
        let mut content_from = 0;
        self.report(book, &CONTENT, target, &mut content_from, samples);
    }
}

/// Time from the page's start (`performance.timeOrigin`, when the webview
/// begins loading, right after the window shows) to the first frame with
/// both the entry list and the preview's budget drawn.
fn time_to_first_preview(app: &Session<'_>) -> (f64, bool) {
    let got = app.js_async(
        "const done = arguments[arguments.length - 1];
         const ready = () => document.querySelector('[data-testid=\"entry-row\"]') &&
                             document.querySelector('[data-testid=\"budget-label\"]');
         const already = !!ready();
         const check = () => { if (ready()) requestAnimationFrame(() => done([performance.now(), already]));
                               else setTimeout(check, 5); };
         check();",
        vec![],
    );
    (
        got[0].as_f64().unwrap_or(-1.0),
        got[1].as_bool().unwrap_or(false),
    )
}

/// Scrolls the list `[data-testid=list]` (or the box around it) 30 px a
/// frame for 120 frames; the frame times' p50 and p95, and frames a second.
fn scroll_frames(app: &Session<'_>, list: &str) -> (f64, f64, f64) {
    let got = app.js_async(
        "const done = arguments[arguments.length - 1];
         let box = document.querySelector(`[data-testid=\"${arguments[0]}\"]`);
         while (box && box.scrollHeight <= box.clientHeight + 1) box = box.parentElement;
         const stamps = [];
         let n = 0;
         const step = (t) => {
           stamps.push(t);
           if (box) box.scrollTop += 30;
           if (++n < 120) requestAnimationFrame(step);
           else {
             const d = stamps.slice(1).map((t, i) => t - stamps[i]).sort((a, b) => a - b);
             done([d[Math.floor(d.length / 2)], d[Math.ceil(d.length * 0.95) - 1], 1000 * d.length / (stamps[stamps.length - 1] - stamps[0])]);
           }
         };
         requestAnimationFrame(step);",
        vec![json!(list)],
    );
    let at = |k: usize| got.get(k).and_then(Value::as_f64).unwrap_or(-1.0);
    (at(0), at(1), at(2))
}

/// Resident memory (KB) of the webview processes (WebKit's web process)
/// started under the driver `group` (the driver's process group).
fn webview_rss_kb(group: u32) -> u64 {
    let mut total = 0;
    for dir in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(stat) = std::fs::read_to_string(dir.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp ...; comm may hold spaces.
        let Some((head, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        let pgrp = rest.split(' ').nth(2).and_then(|g| g.parse::<u32>().ok());
        if pgrp != Some(group) || !head.contains("WebKitWebProc") {
            continue;
        }
        let status = std::fs::read_to_string(dir.path().join("status")).unwrap_or_default();
        total += status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<u64>().ok())
            .unwrap_or(0);
    }
    total
}

fn samples() -> usize {
    std::env::var("LATENCY_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20)
}

/// `LATENCY_PAUSE_MS`: a pause after each sample (none by default), so the
/// Problems panel's checks, which start a quarter of a second after the
/// last edit, are running when the next keystroke comes.
fn pause() -> Option<Duration> {
    std::env::var("LATENCY_PAUSE_MS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map(Duration::from_millis)
}

/// The workload's chat as pasted text, one `User:`/`Tam:` line a message.
/// The app on the workload in `dir`: its book opened, the bench's IPC
/// counters installed, its chat pasted, every answer in.
/// `LATENCY_WORKLOAD`, the workload folder a bench runs on; `None` (and a
/// line saying so) when it is not set.
fn workload_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("LATENCY_WORKLOAD").map(PathBuf::from);
    if dir.is_none() {
        println!("latency | set LATENCY_WORKLOAD to a workload folder");
    }
    dir
}

fn open_workload<'d>(driver: &'d mut Driver, dir: &Path) -> Session<'d> {
    let book = dir.join("book.json");
    let app = driver.launch(&[book.to_str().expect("a UTF-8 path")]);
    app.wait_ready();
    app.js(INSTALL, vec![]);
    app.js(
        &format!("{HELPERS} edit(Q(tid('chat')), arguments[0]); return true;"),
        vec![json!(workload_chat(dir))],
    );
    app.settle();
    app
}

fn workload_chat(dir: &Path) -> String {
    let raw = std::fs::read_to_string(dir.join("chat.json")).expect("workload chat.json");
    let msgs: Vec<Value> = serde_json::from_str(&raw).expect("chat.json is JSON");
    msgs.iter()
        .map(|m| {
            let who = if m["role"] == "user" { "User" } else { "Tam" };
            let text = m["content"].as_str().unwrap_or("").replace('\n', " ");
            format!("{who}: {text}")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
#[ignore = "a benchmark: run with --ignored --nocapture (see tests/e2e/latency.rs)"]
fn latency() {
    let _serial = serial();
    let samples = samples();
    {
        // A driver per launch: each has its own data folder, so the
        // edited sample leaves no recovery copy for the next launch.
        let mut driver = Driver::start();
        let app = driver.launch(&[]);
        app.wait_ready();
        app.run(
            app.client
                .update_timeouts(fantoccini::wd::TimeoutConfiguration::new(
                    Some(Duration::from_secs(600)),
                    None,
                    None,
                )),
        )
        .expect("script timeout");
        // A reference for the frame rate this machine gives at all: the
        // sample's short preview scrolled (its pane, nothing virtual).
        let (p50, p95, fps) = scroll_frames(&app, "messages");
        println!(
            "latency | sample                 | scrolling the preview pane: frame time p50 {p50:.1} ms, p95 {p95:.1} ms, {fps:.0} frames/s"
        );
        app.measure_all("sample", samples);
        app.quit();
    }
    let Some(dir) = std::env::var_os("LATENCY_WORKLOAD").map(PathBuf::from) else {
        println!("latency | set LATENCY_WORKLOAD to a workload folder to measure 10,000 entries");
        return;
    };
    let book = dir.join("book.json");
    // The app prints its start-up and command timings (src-tauri/src/trace.rs).
    std::env::set_var("LOREBOOK_TRACE", "1");
    let mut driver = Driver::start();
    let driver_log = driver.dir.path().join("driver.log");
    let group = driver.driver.child.id();
    let started = Instant::now();
    let app = driver.launch(&[book.to_str().expect("a UTF-8 path")]);
    app.run(
        app.client
            .update_timeouts(fantoccini::wd::TimeoutConfiguration::new(
                Some(Duration::from_secs(600)),
                None,
                None,
            )),
    )
    .expect("script timeout");
    let (first, already) = time_to_first_preview(&app);
    // Where the time went: each command of the start-up, from the page's
    // start (the IPC goes through `fetch`, so the resource timings see it).
    // The list's token counts, filled in the background after the first
    // paint: when the last drawn row shows its count.
    let filled = app.js_async(
        "const done = arguments[arguments.length - 1];
         const pending = () => Array.from(document.querySelectorAll('[data-testid=\"row-tokens\"]')).some((c) => c.textContent.trim() === '…');
         const check = () => { if (!pending()) done(performance.now()); else setTimeout(check, 10); };
         check();",
        vec![],
    );
    println!("latency | 10k workload           | open: the drawn rows' token counts all shown at {filled:.0} ms", filled = filled.as_f64().unwrap_or(-1.0));
    // Once the background counting is quiet for half a second, the
    // app's own trace (`LOREBOOK_TRACE`): start-up and each command.
    std::thread::sleep(Duration::from_millis(500));
    let log = std::fs::read_to_string(driver_log.clone()).unwrap_or_default();
    let mut counting = (0, 0.0f64, 0.0f64);
    // When the window was made (the end of the app's setup), on the wall
    // clock, to time the first paint from the window rather than the page.
    let setup_unix = log
        .lines()
        .filter_map(|l| l.strip_prefix("lorebook-trace setup done at "))
        .filter_map(|l| l.split("(unix ").nth(1))
        .filter_map(|v| v.trim_end_matches(" ms)").parse::<f64>().ok())
        .next_back();
    let origin = app.js("return performance.timeOrigin;", vec![]).as_f64();
    for line in log
        .lines()
        .filter_map(|l| l.strip_prefix("lorebook-trace "))
    {
        if line.starts_with("command count_list_tokens") {
            counting.0 += 1;
            let ran = line
                .rsplit("ran ")
                .next()
                .and_then(|v| v.trim_end_matches(" ms").parse::<f64>().ok())
                .unwrap_or(0.0);
            counting.1 += ran;
            counting.2 = counting.2.max(ran);
        } else {
            println!("latency | 10k workload           |   {line}");
        }
    }
    println!(
        "latency | 10k workload           |   count_list_tokens: {} steps, {:.0} ms in all, the longest {:.0} ms",
        counting.0, counting.1, counting.2
    );
    println!(
        "latency | 10k workload           | open: list and first preview painted {first:.0} ms after the page started{} ({:.1} s after the session was asked for)",
        if already { " (already drawn when first asked: an upper bound)" } else { "" },
        started.elapsed().as_secs_f64()
    );
    if let (Some(setup), Some(origin)) = (setup_unix, origin) {
        println!(
            "latency | 10k workload           | open: list and first preview painted {:.0} ms after the window was made (the app's setup done; the page started {:.0} ms after it)",
            origin + first - setup,
            origin - setup
        );
    }
    let (p50, p95, fps) = scroll_frames(&app, "entry-list");
    println!(
        "latency | 10k workload           | scrolling `entry-list` before the long chat: frame time p50 {p50:.1} ms, p95 {p95:.1} ms, {fps:.0} frames/s"
    );
    let chat = workload_chat(&dir);
    app.js(INSTALL, vec![]);
    let bytes = chat.len();
    app.js(
        &format!("{HELPERS} edit(Q(tid('chat')), arguments[0]); return true;"),
        vec![json!(chat)],
    );
    app.settle();
    println!("latency | 10k workload           | chat of {bytes} bytes pasted");
    app.settle();
    for list in ["entry-list", "messages", "injected"] {
        let (p50, p95, fps) = scroll_frames(&app, list);
        println!(
            "latency | 10k entries, 200 msgs  | scrolling `{list}`: frame time p50 {p50:.1} ms, p95 {p95:.1} ms, {fps:.0} frames/s"
        );
    }
    let before = webview_rss_kb(group);
    app.measure_all("10k entries, 200 msgs", samples);
    // Memory while typing on: 300 more chat keystrokes, each painted.
    let mid = webview_rss_kb(group);
    app.js(INSTALL, vec![]);
    app.reveal_in_prompt("Zqbench").expect("the chat marker");
    let mut from = 1000;
    let _ = app.sample(&CHAT_MORE, 0, from, 300);
    from += 300;
    let after = webview_rss_kb(group);
    println!(
        "latency | 10k entries, 200 msgs  | webview memory (RSS): {} MB before typing, {} MB after the samples, {} MB after {} more chat keystrokes",
        before / 1024,
        mid / 1024,
        after / 1024,
        from - 1000
    );
    // Last, as it leaves a message after the chat's typed marker.
    let mut message_from = 0;
    app.report(
        "10k entries, 200 msgs",
        &WHOLE_MESSAGE,
        0,
        &mut message_from,
        samples,
    );
}

/// A whole chat message added, then removed again, sample after sample
/// (issue 24): the new message names the target entry (its key is
/// `Zqbench` by then), so the last request changes. Shown when the request
/// label (`Request N of N`) changed.
const WHOLE_MESSAGE: Interaction = Interaction {
    name: "whole message +/-",
    act: "const ta = Q(tid('chat'));
          window.__label = Q(tid('request-label')).textContent;
          if (i % 2 === 0) {
            typeAtEnd(ta, '\\nTam: The keeper speaks of Zqbench and the storm.');
          } else {
            const v = ta.value;
            const at = v.lastIndexOf('\\nTam: The keeper speaks of Zqbench');
            ta.focus();
            ta.setSelectionRange(at, v.length);
            if (!document.execCommand('delete')) {
              ta.setRangeText('', at, v.length, 'end');
              ta.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'deleteContentBackward' }));
            }
          }",
    shown: "Q(tid('request-label')).textContent !== window.__label",
};

/// More chat typing after the measured samples, for memory: words of five
/// letters and a space, as prose is typed (one ever longer word is not what
/// anyone types, and WebKit's memory grows with it: see BENCHMARKS.md).
const CHAT_MORE: Interaction = Interaction {
    name: "chat typing (more)",
    act: "typeAtEnd(Q(tid('chat')), i % 6 === 5 ? ' ' : typed(i));",
    shown: "i % 6 === 5 || (QA(`${tid('messages')} li`).find((li) => li.textContent.includes('Zqbench'))?.textContent.trimEnd() ?? '').endsWith(typed(i))",
};

/// The DOM's size: elements, and all nodes (text nodes included).
const DOM_SIZE: &str = r#"
let nodes = 0;
const w = document.createTreeWalker(document, NodeFilter.SHOW_ALL);
while (w.nextNode()) nodes += 1;
// Changes to the final prompt's list since the last call, by kind.
const mo = window.__benchMo || (window.__benchMo = { counts: {}, obs: null });
if (!mo.obs) {
  mo.obs = new MutationObserver((recs) => { for (const r of recs) { const k = r.type + (r.attributeName ? ':' + r.attributeName : ''); mo.counts[k] = (mo.counts[k] || 0) + 1; } });
  mo.obs.observe(document.querySelector('[data-testid="messages"]'), { subtree: true, childList: true, characterData: true, attributes: true });
}
const changes = JSON.stringify(mo.counts); mo.counts = {};
// Elements made since the last call (each call marks the ones it saw).
let fresh = 0;
for (const el of document.querySelectorAll('[data-testid="preview"] *')) { if (!el.__benchSeen) { fresh += 1; el.__benchSeen = true; } }
return [document.getElementsByTagName('*').length, nodes, fresh, changes];
"#;

/// Memory while typing for minutes, on the 10,000-entry workload with its
/// chat: `LATENCY_TYPED` (default 600) chat keystrokes, each waited for
/// until no command is in flight, with the webview's resident memory and
/// the DOM's size every 100 keystrokes, then again after 20 s idle.
/// `LATENCY_VARIANT=hidden` hides the preview pane first (the same
/// commands, nothing drawn), to tell the page's drawing from the rest.
#[test]
#[ignore = "a benchmark: run with --ignored --nocapture (see tests/e2e/latency.rs)"]
fn latency_memory() {
    let _serial = serial();
    let Some(dir) = workload_dir() else { return };
    let typed: usize = std::env::var("LATENCY_TYPED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(600);
    let variant = std::env::var("LATENCY_VARIANT").unwrap_or_default();
    // `LATENCY_WORDS=1`: a space every sixth keystroke, as prose has,
    // instead of one ever longer word.
    let words = std::env::var("LATENCY_WORDS").is_ok_and(|v| v == "1");
    let book = dir.join("book.json");
    let mut driver = Driver::start();
    let group = driver.driver.child.id();
    let app = driver.launch(&[book.to_str().expect("a UTF-8 path")]);
    app.run(
        app.client
            .update_timeouts(fantoccini::wd::TimeoutConfiguration::new(
                Some(Duration::from_secs(600)),
                None,
                None,
            )),
    )
    .expect("script timeout");
    app.wait_ready();
    app.js(INSTALL, vec![]);
    let chat = workload_chat(&dir);
    app.js(
        &format!("{HELPERS} edit(Q(tid('chat')), arguments[0]); return true;"),
        vec![json!(chat)],
    );
    app.settle();
    app.start_chat_marker();
    app.settle();
    match variant.as_str() {
        "hidden" => {
            app.js(
                "const p = document.querySelector('[data-testid=\"preview\"]'); for (const c of p.children) if (!c.querySelector('[data-testid=\"chat\"]')) c.style.display = 'none'; return true;",
                vec![],
            );
        }
        // The app never sees the keystrokes: what the page costs typed
        // into with no app behind it.
        "noapp" => {
            app.js(
                "document.querySelector('[data-testid=\"chat\"]').addEventListener('input', (e) => e.stopImmediatePropagation(), true); return true;",
                vec![],
            );
        }
        // As `noapp`, but each keystroke reads the box's value and keeps
        // the newest, as the app does.
        "readvalue" => {
            app.js(
                "document.querySelector('[data-testid=\"chat\"]').addEventListener('input', (e) => { window.__held = e.target.value; e.stopImmediatePropagation(); }, true); return true;",
                vec![],
            );
        }
        // `hide=CSS`: the boxes around the elements `CSS` matches are not
        // drawn (the app still updates them).
        v if v.starts_with("hide=") => {
            app.js(
                "for (const el of document.querySelectorAll(arguments[0])) {
                   let b = el; while (b.parentElement && !b.classList.contains('vl-scroll') && b.parentElement.dataset.testid !== 'preview') b = b.parentElement;
                   b.style.display = 'none'; }
                 return true;",
                vec![json!(&v[5..])],
            );
        }
        // `css=RULES`: a style sheet added to the app's own.
        v if v.starts_with("css=") => {
            app.js(
                "const s = document.createElement('style'); s.textContent = arguments[0]; document.head.appendChild(s); return true;",
                vec![json!(&v[4..])],
            );
        }
        _ => {}
    }
    let gc = app.js(
        "return [typeof window.gc, typeof window.$vm, typeof window.GCController].join(' ');",
        vec![],
    );
    println!("latency | memory ({variant:?}) | gc hooks: {gc}; words: {words}");
    let report = |n: usize| {
        let dom = app.js(DOM_SIZE, vec![]);
        println!(
            "latency | memory ({variant:?}) | after {n:>4} keystrokes: webview RSS {:>5} MB, {} elements, {} nodes, {} elements of the preview made since, prompt list changes {}",
            webview_rss_kb(group) / 1024,
            dom[0],
            dom[1],
            dom[2],
            dom[3].as_str().unwrap_or("")
        );
    };
    report(0);
    let script = format!(
        "{HELPERS}
         const [i, words] = arguments; const done = arguments[arguments.length - 1];
         typeAtEnd(Q(tid('chat')), words && i % 6 === 5 ? ' ' : 'abcdefghijklmnopqrstuvwxyz'[i % 26]);
         done(true);"
    );
    let started = Instant::now();
    for i in 0..typed {
        app.js_async(&script, vec![json!(i), json!(words)]);
        app.settle();
        if (i + 1) % 100 == 0 || i + 1 == 10 {
            report(i + 1);
        }
    }
    println!(
        "latency | memory ({variant:?}) | {typed} keystrokes in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    std::thread::sleep(Duration::from_secs(20));
    println!("latency | memory ({variant:?}) | 20 s idle:");
    report(typed);
}

/// Scrolling on the 10,000-entry workload with its chat: each long list
/// scrolled 30 px a frame, with and without the CSS rules given in
/// `LATENCY_SCROLL_CSS` (injected as a style sheet; without it, only the
/// app's own), alternating, and a reference: a plain box of the same size
/// holding static rows, scrolled the same way, for what a frame costs this
/// machine with no app work at all.
#[test]
#[ignore = "a benchmark: run with --ignored --nocapture (see tests/e2e/latency.rs)"]
fn latency_scroll() {
    scroll_bench()
}

/// Issue 21: the activation timeline of the workload (its rows × the 200
/// requests) scrolled 30 px a frame for 120 frames, three times, from its
/// top. `LATENCY_WORKLOAD=/tmp/wl32k cargo test --test e2e
/// latency::latency_timeline_scroll -- --ignored --nocapture --exact`.
#[test]
#[ignore = "a benchmark: run it by name"]
fn latency_timeline_scroll() {
    let _serial = serial();
    let Some(dir) = workload_dir() else { return };
    let mut driver = Driver::start();
    let app = open_workload(&mut driver, &dir);
    app.open_details(&tid("timeline-panel"));
    let rows = wait_until("the timeline's rows", Duration::from_secs(120), || {
        let rows = app.find_all(&tid("timeline-row"))?;
        if rows.len() > 20 {
            Ok(rows.len())
        } else {
            Err(format!("{} rows", rows.len()))
        }
    });
    let help = app
        .find(&format!("{} p", tid("timeline-panel")))
        .and_then(|el| app.text(&el))
        .unwrap_or_default();
    println!("latency | timeline: {rows} rows drawn ({help})");
    for round in 0..3 {
        app.js(
            "let b = document.querySelector('[data-testid=\"timeline\"]');
             while (b && b.scrollHeight <= b.clientHeight + 1) b = b.parentElement;
             if (b) b.scrollTop = 0; return true;",
            vec![],
        );
        app.settle();
        let (p50, p95, fps) = scroll_frames(&app, "timeline");
        println!(
            "latency | timeline scroll round {round}: frame time p50 {p50:.1} ms, p95 {p95:.1} ms, {fps:.0} frames/s"
        );
    }
    app.assert_no_errors();
}

/// A key edit, then the impact strip's new answer (issue 21): the strip
/// goes stale ("updating…") at the edit and shows its summary again once
/// the impact is computed, `IMPACT_PAUSE` (150 ms) after the last change.
const IMPACT: Interaction = Interaction {
    name: "impact strip after a key edit",
    act: "window.__sawStale = false; edit(Q(tid('keys')), 'zqimpact' + i);",
    shown: "(() => { const s = Q(tid('impact')); if (!s) return false;
             if (s.textContent.includes('updating')) { window.__sawStale = true; return false; }
             return window.__sawStale === true && !!s.querySelector(tid('impact-summary')); })()",
};

/// Issue 21: from a key edit of the entry list's first entry (its keys
/// field's input event) to the impact strip painted with the answer over
/// the 200-message chat. `LATENCY_WORKLOAD=/tmp/wl32k cargo test --test e2e
/// latency::latency_impact_strip -- --ignored --nocapture --exact`.
#[test]
#[ignore = "a benchmark: run it by name"]
fn latency_impact_strip() {
    let _serial = serial();
    let Some(dir) = workload_dir() else { return };
    let mut driver = Driver::start();
    let app = open_workload(&mut driver, &dir);
    // The list's first entry.
    app.click(&tid("entry-row"));
    app.wait_for(&tid("keys"));
    // The workload is an import (no saved version): the first edit, then
    // the strip compares with the book one undo step back.
    app.js(
        &format!("{HELPERS} edit(Q(tid('keys')), 'zqimpact'); return true;"),
        vec![],
    );
    let step = format!("{} option[value=\"step:1\"]", tid("impact-base"));
    wait_until(
        "the undo step to compare with",
        Duration::from_secs(60),
        || app.find(&step).map_err(|e| e.to_string()),
    );
    let select = app.find(&tid("impact-base")).expect("the choice");
    app.run(select.select_by_value("step:1")).expect("choose");
    wait_until("the strip's first answer", Duration::from_secs(60), || {
        app.find(&format!("{} {}", tid("impact"), tid("impact-summary")))
            .map_err(|e| e.to_string())
    });
    app.settle();
    let times = app.sample(&IMPACT, 0, 1, 8);
    let mut ms: Vec<f64> = times.iter().map(|t| t[0]).collect();
    ms.sort_by(f64::total_cmp);
    println!(
        "latency | impact strip after a key edit: {} samples, p50 {:.0} ms, max {:.0} ms (all: {:?})",
        ms.len(),
        ms[ms.len() / 2],
        ms[ms.len() - 1],
        times.iter().map(|t| t[0].round()).collect::<Vec<_>>()
    );
    app.assert_no_errors();
}

fn scroll_bench() {
    let _serial = serial();
    let Some(dir) = workload_dir() else { return };
    let css = std::env::var("LATENCY_SCROLL_CSS").unwrap_or_default();
    let book = dir.join("book.json");
    let mut driver = Driver::start();
    let app = driver.launch(&[book.to_str().expect("a UTF-8 path")]);
    app.run(
        app.client
            .update_timeouts(fantoccini::wd::TimeoutConfiguration::new(
                Some(Duration::from_secs(600)),
                None,
                None,
            )),
    )
    .expect("script timeout");
    app.wait_ready();
    app.js(INSTALL, vec![]);
    let chat = workload_chat(&dir);
    app.js(
        &format!("{HELPERS} edit(Q(tid('chat')), arguments[0]); return true;"),
        vec![json!(chat)],
    );
    app.settle();
    let set_css = |on: bool| {
        app.js(
            "let s = document.getElementById('bench-css');
             if (!s) { s = document.createElement('style'); s.id = 'bench-css'; document.head.appendChild(s); }
             s.textContent = arguments[0] ? arguments[1] : ''; return true;",
            vec![json!(on), json!(css)],
        );
    };
    for round in 0..2 {
        for on in [false, true] {
            if on && css.is_empty() {
                continue;
            }
            set_css(on);
            app.settle();
            for list in ["entry-list", "messages", "injected"] {
                // From the top each time, so every round draws the same rows.
                app.js(
                    "let b = document.querySelector(`[data-testid=\"${arguments[0]}\"]`);
                     while (b && b.scrollHeight <= b.clientHeight + 1) b = b.parentElement;
                     if (b) b.scrollTop = 0; return true;",
                    vec![json!(list)],
                );
                app.settle();
                let (p50, p95, fps) = scroll_frames(&app, list);
                println!(
                    "latency | scroll round {round} css {} | `{list}`: frame time p50 {p50:.1} ms, p95 {p95:.1} ms, {fps:.0} frames/s",
                    if on { "on " } else { "off" }
                );
            }
        }
        // The reference: static rows in a plain box over the page.
        app.js(
            "const box = document.createElement('div'); box.id = 'bench-ref'; box.dataset.testid = 'bench-ref';
             Object.assign(box.style, {position: 'fixed', left: '0', top: '60px', width: '420px', height: '700px', overflowY: 'auto', background: 'white', zIndex: 1000});
             for (let i = 0; i < 400; i++) { const r = document.createElement('div'); r.style.height = '40px'; r.textContent = 'Row ' + i + ' — some entry name, keys a, b, c'; box.appendChild(r); }
             document.body.appendChild(box); return true;",
            vec![],
        );
        app.settle();
        // The reference again with one part of the page taken out at a
        // time (and put back), to find which part makes every frame cost.
        let parts = [
            ("as is", "", ""),
            (
                "chat box emptied",
                "const c = document.querySelector('[data-testid=chat]'); window.__chat = c.value; c.value = '';",
                "document.querySelector('[data-testid=chat]').value = window.__chat;",
            ),
            (
                "entry list hidden",
                "document.querySelector('[data-testid=entry-list]').style.display = 'none';",
                "document.querySelector('[data-testid=entry-list]').style.display = '';",
            ),
            (
                "final prompt hidden",
                "document.querySelector('[data-testid=messages]').style.display = 'none';",
                "document.querySelector('[data-testid=messages]').style.display = '';",
            ),
            (
                "list pane hidden",
                "document.querySelector('.list-pane').style.display = 'none';",
                "document.querySelector('.list-pane').style.display = '';",
            ),
            (
                "editor pane hidden",
                "document.querySelector('.editor-pane').style.display = 'none';",
                "document.querySelector('.editor-pane').style.display = '';",
            ),
            (
                "preview pane hidden",
                "document.querySelector('.preview-pane').style.display = 'none';",
                "document.querySelector('.preview-pane').style.display = '';",
            ),
            (
                "all three panes hidden",
                "for (const e of document.querySelectorAll('.pane')) e.style.display = 'none';",
                "for (const e of document.querySelectorAll('.pane')) e.style.display = '';",
            ),
            (
                "everything but the box hidden",
                "for (const e of document.body.children) if (e.id !== 'bench-ref') { e.dataset.benchDisplay = e.style.display; e.style.display = 'none'; }",
                "for (const e of document.body.children) if (e.id !== 'bench-ref') e.style.display = e.dataset.benchDisplay;",
            ),
        ];
        for (what, take, put) in parts {
            app.js(&format!("{take} return true;"), vec![]);
            app.settle();
            // What a full relayout costs in this state, and what runs by
            // itself (CSS animations and transitions).
            let probe = app.js(
                "const t0 = performance.now();
                 document.body.style.width = '99.9%'; void document.body.offsetHeight;
                 const t1 = performance.now();
                 document.body.style.width = ''; void document.body.offsetHeight;
                 const anims = document.getAnimations ? document.getAnimations().map(a => (a.effect && a.effect.target ? (a.effect.target.className || a.effect.target.tagName) : '?') + ':' + (a.animationName || a.transitionProperty || a.constructor.name)) : ['n/a'];
                 return { layout: t1 - t0, nodes: document.getElementsByTagName('*').length, anims: anims.slice(0, 8), animCount: anims.length };",
                vec![],
            );
            println!("latency | scroll round {round} probe, {what} | {probe}");
            let (p50, p95, fps) = scroll_frames(&app, "bench-ref");
            println!(
                "latency | scroll round {round} reference, {what} | static rows: frame time p50 {p50:.1} ms, p95 {p95:.1} ms, {fps:.0} frames/s"
            );
            app.js(&format!("{put} return true;"), vec![]);
            app.settle();
        }
        app.js(
            "document.getElementById('bench-ref').remove(); return true;",
            vec![],
        );
    }
}

/// Chat typing under SillyTavern's rules: the typed text shown in its
/// final prompt.
const CHAT_ST: Interaction = Interaction {
    name: "chat typing (ST rules)",
    act: "typeAtEnd(Q(tid('chat')), typed(i));",
    shown: "QA(`${tid('st-messages')} li`).some((li) => li.textContent.includes('Zqbench ' + typedUpTo(i)))",
};

/// Typing in an injected entry's body under SillyTavern's rules: the typed
/// text shown in its final prompt.
const CONTENT_ST: Interaction = Interaction {
    name: "content typing (ST rules)",
    act: "typeAtEnd(Q(tid('content')), typed(i));",
    shown: "QA(`${tid('st-messages')} li`).some((li) => li.textContent.includes('Zqcontent ' + typedUpTo(i)))",
};

/// Chat typing and typing in an injected entry's body on the 10,000-entry
/// workload and its 200-message chat under SillyTavern's rules (a fresh
/// install's settings), with its final prompt open: each keystroke asks
/// for the last request and the prompt.
#[test]
#[ignore = "a benchmark: run with --ignored --nocapture (see tests/e2e/latency.rs)"]
fn latency_st() {
    let _serial = serial();
    let samples = samples();
    let Some(dir) = workload_dir() else { return };
    let book = dir.join("book.json");
    let mut driver = Driver::start();
    let app = driver.launch(&[book.to_str().expect("a UTF-8 path")]);
    app.run(
        app.client
            .update_timeouts(fantoccini::wd::TimeoutConfiguration::new(
                Some(Duration::from_secs(600)),
                None,
                None,
            )),
    )
    .expect("script timeout");
    time_to_first_preview(&app);
    app.js(INSTALL, vec![]);
    app.settle();
    rules_with_prompt_open(&app, &dir, "sillytavern", "st", "SillyTavern's");
    let mut from = 0;
    app.report("10k, 200 msgs, ST", &CHAT_ST, 0, &mut from, samples);
    // The first entry of the list made constant (with a fresh install's
    // scan depth of 2 no key may match), then the first injected entry
    // opened in the editor and a marker line appended to its body.
    app.js(
        &format!("{HELPERS} Q(tid('entry-row')).click(); return true;"),
        vec![],
    );
    wait_until("the entry in the editor", TIMEOUT * 3, || {
        self_find(&app, "constant")
    });
    app.js(
        &format!("{HELPERS} const c = Q(tid('constant')); if (!c.checked) c.click(); return true;"),
        vec![],
    );
    wait_until("an injected entry", TIMEOUT * 6, || {
        self_find(&app, "injected-entry")
    });
    app.settle();
    let id = app.js(
        &format!(
            "{HELPERS} const row = Q(tid('injected-entry')); row.querySelector('button').click();
             return Number(row.dataset.id);"
        ),
        vec![],
    );
    let id = id.as_u64().expect("an injected entry");
    wait_until("the entry in the editor", TIMEOUT * 3, || {
        self_find(&app, "content")
    });
    app.settle();
    app.js(
        &format!(
            "{HELPERS} const ta = Q(tid('content')); edit(ta, ta.value + '\\nZqcontent '); return true;"
        ),
        vec![],
    );
    app.settle();
    wait_until(
        "the content marker in SillyTavern's prompt",
        TIMEOUT * 6,
        || app.reveal_in("st-messages", "Zqcontent"),
    );
    app.settle();
    let mut from = 0;
    app.report("10k, 200 msgs, ST", &CONTENT_ST, id, &mut from, samples);
    app.quit();
}

/// Chat typing under RisuAI's rules: the typed text shown in RisuAI's
/// final prompt.
const CHAT_RISU: Interaction = Interaction {
    name: "chat typing (RisuAI rules)",
    act: "typeAtEnd(Q(tid('chat')), typed(i));",
    shown: "QA(`${tid('risu-messages')} li`).some((li) => li.textContent.includes('Zqbench ' + typedUpTo(i)))",
};

/// Chat typing on the 10,000-entry workload and its 200-message chat under
/// RisuAI's rules (its default settings: recursion on, about 4,600
/// entries activated a request), with its final prompt open (issue 19).
/// `LATENCY_WORKLOAD=/tmp/wl32k cargo test --test e2e latency::latency_risu
/// -- --ignored --nocapture --exact`.
#[test]
#[ignore = "a benchmark: run with --ignored --nocapture (see tests/e2e/latency.rs)"]
fn latency_risu() {
    let _serial = serial();
    let samples = samples();
    let Some(dir) = workload_dir() else { return };
    let book = dir.join("book.json");
    let mut driver = Driver::start();
    let app = driver.launch(&[book.to_str().expect("a UTF-8 path")]);
    app.run(
        app.client
            .update_timeouts(fantoccini::wd::TimeoutConfiguration::new(
                Some(Duration::from_secs(600)),
                None,
                None,
            )),
    )
    .expect("script timeout");
    time_to_first_preview(&app);
    app.js(INSTALL, vec![]);
    app.settle();
    rules_with_prompt_open(&app, &dir, "risu", "risu", "RisuAI's");
    let mut from = 0;
    app.report("10k, 200 msgs, RisuAI", &CHAT_RISU, 0, &mut from, samples);
    app.quit();
}

/// Switches the rules to `rules`, opens their final prompt panel
/// (`{prefix}-prompt-panel`) and pastes the workload's chat with a marker
/// line, waiting until the marker is in that prompt (`{prefix}-messages`).
fn rules_with_prompt_open(app: &Session<'_>, dir: &Path, rules: &str, prefix: &str, whose: &str) {
    app.js(
        &format!(
            "{HELPERS} const r = Q(tid('rules')); r.value = arguments[0];
             r.dispatchEvent(new Event('change', {{ bubbles: true }})); return true;"
        ),
        vec![json!(rules)],
    );
    let panel = format!("{prefix}-prompt-panel");
    wait_until(&format!("{whose} results"), TIMEOUT * 6, || {
        self_find(app, &panel)
    });
    app.js(
        &format!("{HELPERS} Q(tid(arguments[0])).open = true; return true;"),
        vec![json!(panel)],
    );
    app.settle();
    let chat = workload_chat(dir);
    app.js(
        &format!(
            "{HELPERS} edit(Q(tid('chat')), arguments[0] + '\\nUser: Zqbench '); return true;"
        ),
        vec![json!(chat)],
    );
    app.settle();
    let list = format!("{prefix}-messages");
    wait_until(
        &format!("the chat marker in {whose} prompt"),
        TIMEOUT * 6,
        || app.reveal_in(&list, "Zqbench"),
    );
    app.settle();
}

/// Whether the element with test id `id` is in the page.
fn self_find(app: &Session<'_>, id: &str) -> Result<(), String> {
    let found = app.js(
        "return document.querySelector(`[data-testid=\"${arguments[0]}\"]`) !== null;",
        vec![json!(id)],
    );
    if found == json!(true) {
        Ok(())
    } else {
        Err(format!("no {id}"))
    }
}

const FOLDER_TOGGLE: Interaction = Interaction {
    name: "folder collapsed or expanded",
    act: "const f = Q(`${tid('entry-row')}[data-folder]`); window.__was = f.dataset.folder; f.click();",
    shown: "Q(`${tid('entry-row')}[data-folder]`)?.dataset.folder !== window.__was",
};
const SEARCH: Interaction = Interaction {
    name: "search typed, list filtered",
    act: "window.__count = Q('#entry-count').textContent; edit(Q(tid('search')), i % 2 === 0 ? 'entry 1' : 'entry 12');",
    shown: "Q('#entry-count').textContent !== window.__count",
};

/// Entry 0 (selected, in "Region 0") moved by the selection bar's "Move to
/// folder" choice into "Region 0 › Area 10" and back, to the whole list
/// painted with it one level deeper or shallower.
const MOVE: Interaction = Interaction {
    name: "entry moved to another folder",
    act: r#"const s = Q(tid('move-to')); const o = Array.from(s.options);
             const want = i % 2 === 0 ? o.find((x) => x.text.endsWith('Area 10')) : o.find((x) => x.text === 'Region 0');
             window.__depth = i % 2 === 0 ? '2' : '1';
             s.value = want.value; s.dispatchEvent(new Event('change', { bubbles: true }));"#,
    shown: r#"Q(`${tid('entry-row')}[data-id="0"]`)?.dataset.depth === window.__depth"#,
};

/// Issue 22: on a workload with folders (`--folders 100`), from a click on
/// the first folder row to the list painted with it collapsed or expanded,
/// from a new search text's input event to the list painted filtered, and
/// from an entry's move to the list painted with it in its new folder.
/// `LATENCY_WORKLOAD=/tmp/wlf cargo test --test e2e latency::latency_folders
/// -- --ignored --nocapture --exact`.
#[test]
#[ignore = "a benchmark: run it by name"]
fn latency_folders() {
    let _serial = serial();
    let Some(dir) = workload_dir() else { return };
    let mut driver = Driver::start();
    let app = open_workload(&mut driver, &dir);
    app.wait_for(&format!("{}[data-folder]", tid("entry-row")));
    for it in [&FOLDER_TOGGLE, &SEARCH, &MOVE] {
        if it.name == MOVE.name {
            // Entry 0 selected, found by a search, then the whole list.
            app.type_into(&tid("search"), "entry 0");
            app.select_entry(0, "Entry 0");
            app.js(
                "const el = document.querySelector('[data-testid=\"search\"]'); el.value = ''; \
                 el.dispatchEvent(new InputEvent('input', { bubbles: true })); return true;",
                vec![],
            );
            wait_until("the whole list back, entry 0 in view", TIMEOUT, || {
                let ready = app.js(
                    "const s = document.querySelector('[data-testid=\"move-to\"]'); \
                     return !!s && s.options.length > 100 \
                       && !!document.querySelector('[data-testid=\"entry-row\"][data-id=\"0\"]');",
                    vec![],
                );
                if ready == json!(true) {
                    Ok(())
                } else {
                    Err("not yet".to_string())
                }
            });
        }
        app.settle();
        let times = app.sample(it, 0, 0, samples());
        if std::env::var_os("LATENCY_IPC").is_some() {
            app.bytes_per_update(it, 0, samples());
        }
        let mut ms: Vec<f64> = times.iter().map(|t| t[0]).collect();
        ms.sort_by(f64::total_cmp);
        println!(
            "latency | {}: {} samples, p50 {:.0} ms, p95 {:.0} ms, max {:.0} ms",
            it.name,
            ms.len(),
            percentile(&ms, 50.0),
            percentile(&ms, 95.0),
            ms[ms.len() - 1]
        );
    }
    app.assert_no_errors();
}
