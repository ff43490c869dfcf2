//! End-to-end tests: the real Lorebook Studio binary, driven through
//! `tauri-driver` → `WebKitWebDriver` on a private Xvfb display.
//!
//! Every test starts its own Xvfb, tauri-driver and app (one WebDriver
//! session per app launch) and kills them on drop, also when an assertion
//! fails. The tests take a lock so they run one at a time. WebDriver is
//! spoken by the `fantoccini` client; the tests stay synchronous and block
//! on each command.
//!
//! Needs Xvfb, WebKitWebDriver and tauri-driver (`scripts/setup.sh --e2e`)
//! and a built UI (`npm --prefix ui run build`, embedded at compile time).

use std::collections::BTreeMap;
use std::future::Future;
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::error::CmdError;
use fantoccini::key::Key;
use fantoccini::wd::Capabilities;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

const BUILT_APP: &str = env!("CARGO_BIN_EXE_lorebook-studio");

/// The app under test: the one this build made, or an installed one named
/// by `LOREBOOK_E2E_APP` (docs/tokenizers.md checks a `.deb` this way).
fn app_path() -> String {
    std::env::var("LOREBOOK_E2E_APP").unwrap_or_else(|_| BUILT_APP.to_string())
}
const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// How long anything may take to show up before a test fails.
const TIMEOUT: Duration = Duration::from_secs(20);
const SETUP_HINT: &str = "run `scripts/setup.sh --e2e` to install Xvfb, WebKitWebDriver \
                          (webkit2gtk-driver) and tauri-driver";

static SERIAL: Mutex<()> = Mutex::new(());

/// One test at a time: each runs a display, a driver and a webview.
fn serial() -> MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

// ---------------------------------------------------------------- polling

/// Waits until no element `css` is shown.
fn wait_gone(app: &Session<'_>, css: &str, what: &str) {
    wait_until(what, TIMEOUT, || {
        if app.find_all(css)?.is_empty() {
            Ok(())
        } else {
            Err(format!("`{css}` is still shown"))
        }
    });
}

/// Waits for the question about a book changed on disk and checks it says
/// what happened.
fn wait_for_disk_question(app: &Session<'_>) {
    let message = app.wait_for(&tid("disk-message"));
    let text = app.text(&message).expect("the question's text");
    assert!(
        text.contains("changed, moved or deleted by another program"),
        "{text}"
    );
}

/// Polls `probe` until it returns `Ok`, or fails the test after `timeout`
/// with `what` and the last thing `probe` saw (its `Err`).
fn wait_until<T>(what: &str, timeout: Duration, mut probe: impl FnMut() -> Result<T, String>) -> T {
    let start = Instant::now();
    loop {
        match probe() {
            Ok(v) => return v,
            Err(seen) if start.elapsed() >= timeout => {
                panic!("timed out after {timeout:?} waiting for {what}\n  last seen: {seen}")
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

// ---------------------------------------------------------------- processes

/// A child process, killed (with its whole process group) on drop.
struct Proc {
    name: &'static str,
    child: Child,
}

impl Proc {
    fn spawn(name: &'static str, cmd: &mut Command) -> Proc {
        // Own process group, so the driver's WebKitWebDriver and the app it
        // launches are killed together with it.
        cmd.process_group(0);
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}; {SETUP_HINT}"));
        Proc { name, child }
    }

    /// Fails the test if the process has already exited.
    fn check_alive(&mut self, log: &Path) {
        if let Ok(Some(status)) = self.child.try_wait() {
            panic!(
                "{} exited early ({status}); its log:\n{}",
                self.name,
                tail(log, 40)
            );
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("lbs-e2e-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A tool from PATH (or ~/.cargo/bin); its absence fails the test.
fn tool(name: &str) -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(PathBuf::from(home).join(".cargo/bin"));
    }
    dirs.into_iter()
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("e2e: `{name}` is not installed (not in PATH); {SETUP_HINT}"))
}

fn free_ports() -> (u16, u16) {
    let a = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    let b = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    (
        a.local_addr().unwrap().port(),
        b.local_addr().unwrap().port(),
    )
}

/// The last `n` lines of a log file.
fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

// ---------------------------------------------------------------- the driver

/// Xvfb plus tauri-driver; sessions launch the app under them.
struct Driver {
    // Dropped in this order: driver (and app) first, then the display.
    driver: Proc,
    _xvfb: Proc,
    /// The Xvfb display (`:N`), for answering native dialogs with xdotool
    /// and closing the window as a window manager would.
    display: String,
    url: String,
    /// Runs the WebDriver client: the tests stay synchronous and block on
    /// each command, so a failing assertion still unwinds through `Drop`.
    rt: tokio::runtime::Runtime,
    dir: TempDir,
}

impl Driver {
    fn start() -> Driver {
        Driver::start_with_env(&[])
    }

    /// Starts the driver with `env` added to the environment of the apps
    /// it launches (the fault hook, say).
    fn start_with_env(env: &[(&str, &str)]) -> Driver {
        let xvfb_bin = tool("Xvfb");
        let native = tool("WebKitWebDriver");
        let tauri_driver = tool("tauri-driver");
        warn_if_ui_is_stale();

        let dir = TempDir::new("driver");
        // The first-run hint dismissed, as for a user past the first run;
        // the test of the hint removes this.
        let data = dir.path().join("data");
        std::fs::create_dir_all(&data).expect("the data folder");
        std::fs::write(data.join("prefs.json"), r#"{"welcomed":true}"#).expect("write prefs.json");
        let xvfb_log = dir.path().join("xvfb.log");
        let log = dir.path().join("driver.log");

        // Xvfb picks a free display and writes its number to fd 1.
        let mut xvfb = Proc::spawn(
            "Xvfb",
            Command::new(&xvfb_bin)
                .args(["-displayfd", "1", "-screen", "0", "1400x1000x24"])
                .args(["-nolisten", "tcp", "-noreset"])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(std::fs::File::create(&xvfb_log).expect("xvfb log")),
        );
        let stdout = xvfb.child.stdout.take().expect("xvfb stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            if let Some(Ok(line)) = lines.next() {
                let _ = tx.send(line);
            }
            // Keep the pipe open while Xvfb runs.
            for _ in lines {}
        });
        let display = match rx.recv_timeout(TIMEOUT) {
            Ok(n) => format!(":{}", n.trim()),
            Err(_) => {
                xvfb.check_alive(&xvfb_log);
                panic!(
                    "Xvfb did not report a display within {TIMEOUT:?}; its log:\n{}",
                    tail(&xvfb_log, 20)
                )
            }
        };

        let (port, native_port) = free_ports();
        let xdg = dir.path().join("xdg");
        let out = std::fs::File::create(&log).expect("driver log");
        let err = out.try_clone().expect("driver log");
        let mut driver = Proc::spawn(
            "tauri-driver",
            Command::new(&tauri_driver)
                .arg("--port")
                .arg(port.to_string())
                .arg("--native-port")
                .arg(native_port.to_string())
                .arg("--native-driver")
                .arg(&native)
                .env("DISPLAY", &display)
                .env_remove("WAYLAND_DISPLAY")
                .env("GDK_BACKEND", "x11")
                // Keep WebKit's caches and data out of the user's home.
                .env("XDG_CONFIG_HOME", xdg.join("config"))
                .env("XDG_DATA_HOME", xdg.join("data"))
                .env("XDG_CACHE_HOME", xdg.join("cache"))
                // The app's data (recovery copies) too; every launch under
                // this driver shares it, as runs of one user do.
                .env("LOREBOOK_DATA_DIR", dir.path().join("data"))
                // The record of books pulled from a SillyTavern server.
                .env("LOREBOOK_STATE_DIR", dir.path().join("state"))
                .envs(env.iter().copied())
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(err),
        );

        // A WebDriver status request needs no session, but the client
        // crate only speaks within one; an accepted connection is enough
        // to know the driver listens.
        wait_until("tauri-driver to accept connections", TIMEOUT, || {
            driver.check_alive(&log);
            TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_secs(2))
                .map(drop)
                .map_err(|e| e.to_string())
        });
        // tauri-driver starts WebKitWebDriver, which listens a little later
        // on a loaded machine; a session asked for before then fails.
        wait_until("WebKitWebDriver to accept connections", TIMEOUT, || {
            driver.check_alive(&log);
            TcpStream::connect_timeout(
                &([127, 0, 0, 1], native_port).into(),
                Duration::from_secs(2),
            )
            .map(drop)
            .map_err(|e| e.to_string())
        });
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime for the WebDriver client");
        Driver {
            driver,
            _xvfb: xvfb,
            display,
            url: format!("http://127.0.0.1:{port}"),
            rt,
            dir,
        }
    }

    /// Launches the app with `args` in a new WebDriver session.
    fn launch(&mut self, args: &[&str]) -> Session<'_> {
        let mut caps = Capabilities::new();
        caps.insert(
            "tauri:options".to_string(),
            json!({ "application": app_path(), "args": args }),
        );
        let log = self.dir.path().join("driver.log");
        // tauri-driver accepts connections before WebKitWebDriver, which
        // it starts, listens on the native port; on a loaded machine the
        // first session request can reach it too early. Such a refused
        // connection is retried for a while; any other error is not.
        let mut attempts = 0;
        let created = loop {
            attempts += 1;
            let created = self.rt.block_on(
                ClientBuilder::new(HttpConnector::new())
                    .capabilities(caps.clone())
                    .connect(&self.url),
            );
            match &created {
                Err(e) if attempts < 10 && e.to_string().contains("did not respond") => {
                    self.driver.check_alive(&log);
                    std::thread::sleep(Duration::from_millis(500));
                }
                _ => break created,
            }
        };
        self.driver.check_alive(&log);
        let client = created.unwrap_or_else(|e| {
            panic!(
                "cannot start a WebDriver session for {}: {e}\ndriver log:\n{}",
                app_path(),
                tail(&log, 40)
            )
        });
        Session {
            rt: &self.rt,
            client,
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "--- tauri-driver / WebKitWebDriver / app log (tail) ---\n{}\n---",
                tail(&self.dir.path().join("driver.log"), 40)
            );
        }
    }
}

/// Asks the app's window to close the way a window manager's close
/// button does: a `WM_DELETE_WINDOW` client message to every mapped
/// top-level window that takes one (the display holds only the app's).
/// WebDriver's own close destroys the window without that request.
/// `display` is the Xvfb display (`Driver::display`). Answers how many
/// windows were asked.
fn request_window_close(display: &str) -> usize {
    use x11rb::connection::Connection;
    use x11rb::errors::ReplyError;
    use x11rb::protocol::xproto::{
        AtomEnum, ClientMessageEvent, ConnectionExt, EventMask, MapState,
    };
    let (conn, screen) = x11rb::connect(Some(display))
        .unwrap_or_else(|e| panic!("cannot connect to {}: {e}", display));
    let atom = |name: &[u8]| {
        conn.intern_atom(false, name)
            .map_err(ReplyError::from)
            .and_then(|c| c.reply())
            .map(|r| r.atom)
            .expect("an X atom")
    };
    let (protocols, delete) = (atom(b"WM_PROTOCOLS"), atom(b"WM_DELETE_WINDOW"));
    let root = conn.setup().roots[screen].root;
    let tree = conn
        .query_tree(root)
        .map_err(ReplyError::from)
        .and_then(|c| c.reply())
        .expect("the display's windows");
    let mut asked = 0;
    for w in tree.children {
        let viewable = conn
            .get_window_attributes(w)
            .map_err(ReplyError::from)
            .and_then(|c| c.reply())
            .is_ok_and(|a| a.map_state == MapState::VIEWABLE);
        let takes_delete = conn
            .get_property(false, w, protocols, AtomEnum::ATOM, 0, 32)
            .map_err(ReplyError::from)
            .and_then(|c| c.reply())
            .is_ok_and(|p| p.value32().into_iter().flatten().any(|a| a == delete));
        if viewable && takes_delete {
            let event =
                ClientMessageEvent::new(32, w, protocols, [delete, x11rb::CURRENT_TIME, 0, 0, 0]);
            conn.send_event(false, w, EventMask::NO_EVENT, event)
                .expect("send the close request");
            asked += 1;
        }
    }
    conn.flush().expect("flush the X connection");
    asked
}

/// Warns when UI sources are newer than the embedded `ui/dist`.
fn warn_if_ui_is_stale() {
    fn newest(dir: &Path) -> Option<std::time::SystemTime> {
        let mut best = None;
        for entry in std::fs::read_dir(dir).ok()?.flatten() {
            let path = entry.path();
            let t = if path.is_dir() {
                newest(&path)
            } else {
                entry.metadata().ok()?.modified().ok()
            };
            best = best.max(t);
        }
        best
    }
    let root = Path::new(ROOT).join("ui");
    let built = std::fs::metadata(root.join("dist/index.html")).and_then(|m| m.modified());
    match (built, newest(&root.join("src"))) {
        (Err(_), _) => panic!("ui/dist is missing: run `npm --prefix ui run build`, then rebuild"),
        (Ok(built), Some(src)) if src > built => eprintln!(
            "warning: ui/src is newer than ui/dist; run `npm --prefix ui run build` \
             (the app embeds ui/dist when it is compiled)"
        ),
        _ => {}
    }
}

// ---------------------------------------------------------------- WebDriver

/// A failed WebDriver command. Its own type so that `?` turns it into the
/// `String` that `wait_until` probes report; boxed, as the client's error
/// is large.
#[derive(Debug)]
struct WdError(Box<CmdError>);

impl std::fmt::Display for WdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl From<WdError> for String {
    fn from(e: WdError) -> String {
        e.to_string()
    }
}

/// `[data-testid="id"]`.
fn tid(id: &str) -> String {
    format!("[data-testid=\"{id}\"]")
}

/// One app launch; the session is deleted (the app closed) on drop.
struct Session<'a> {
    rt: &'a tokio::runtime::Runtime,
    client: Client,
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.save_screenshot();
        }
        // Bounded: a failed test may leave the app asking about unsaved
        // changes, and deleting the session then waits for a window that
        // never closes; the driver's processes are killed on drop anyway.
        let client = self.client.clone();
        let _ = self.rt.block_on(async move {
            tokio::time::timeout(Duration::from_secs(15), client.close()).await
        });
    }
}

impl Session<'_> {
    /// Runs one WebDriver command to completion.
    fn run<T>(&self, command: impl Future<Output = Result<T, CmdError>>) -> Result<T, WdError> {
        self.rt.block_on(command).map_err(|e| WdError(Box::new(e)))
    }

    fn find_all(&self, css: &str) -> Result<Vec<Element>, WdError> {
        self.run(self.client.find_all(Locator::Css(css)))
    }

    /// Runs `script` in the page and answers its return value.
    fn js(&self, script: &str, args: Vec<serde_json::Value>) -> serde_json::Value {
        self.run(self.client.execute(script, args))
            .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    fn find(&self, css: &str) -> Result<Element, WdError> {
        self.run(self.client.find(Locator::Css(css)))
    }

    /// Waits until `css` matches an element and returns it.
    fn wait_for(&self, css: &str) -> Element {
        wait_until(&format!("an element `{css}`"), TIMEOUT, || {
            self.find(css).map_err(String::from)
        })
    }

    fn attr(&self, el: &Element, name: &str) -> Result<Option<String>, WdError> {
        self.run(el.attr(name))
    }

    fn property(&self, el: &Element, name: &str) -> Result<Option<String>, WdError> {
        self.run(el.prop(name))
    }

    fn text(&self, el: &Element) -> Result<String, WdError> {
        self.run(el.text())
    }

    /// The value of the input or textarea `css`.
    fn value(&self, css: &str) -> Result<String, WdError> {
        let el = self.find(css)?;
        Ok(self.property(&el, "value")?.unwrap_or_default())
    }

    /// The text of the open alert, if any.
    fn alert_text(&self) -> Result<String, WdError> {
        self.run(self.client.get_alert_text())
    }

    /// Clicks `css` once it exists (retrying while it re-renders).
    fn click(&self, css: &str) {
        wait_until(&format!("a click on `{css}`"), TIMEOUT, || {
            let el = self.find(css)?;
            self.run(el.click())?;
            Ok::<_, String>(())
        });
    }

    /// Opens the `<details>` element `css`: clicks its own summary until the
    /// element is open (a click that lands while the layout still moves is
    /// tried again; an open element is left open).
    fn open_details(&self, css: &str) {
        wait_until(&format!("`{css}` open"), TIMEOUT, || {
            let el = self.find(css)?;
            if self.property(&el, "open")?.as_deref() == Some("true") {
                return Ok(());
            }
            let summary = self.find(&format!("{css} > summary"))?;
            self.run(summary.click())?;
            Err("still closed".to_string())
        });
    }

    /// Clears the input or textarea `css`, types `text` (a `\n` is typed as
    /// Enter) and waits until the field holds exactly `text`.
    fn type_into(&self, css: &str, text: &str) {
        let keys: String = text
            .chars()
            .map(|c| if c == '\n' { char::from(Key::Enter) } else { c })
            .collect();
        wait_until(&format!("typing {text:?} into `{css}`"), TIMEOUT, || {
            let el = self.find(css)?;
            self.run(el.clear())?;
            self.run(el.send_keys(&keys))?;
            let now = self.value(css)?;
            if now == text {
                Ok(())
            } else {
                Err(format!("the field holds {now:?}"))
            }
        });
    }

    /// Waits until the app has loaded a book (its entry rows are listed).
    fn wait_ready(&self) {
        self.wait_for(&tid("entry-row"));
    }

    /// Selects the entry with `id` and waits until the editor shows it.
    fn select_entry(&self, id: u64, comment: &str) {
        self.click(&format!("{}[data-id=\"{id}\"]", tid("entry-row")));
        wait_until(&format!("entry {id} in the editor"), TIMEOUT, || {
            let now = self.value(&tid("comment"))?;
            if now == comment {
                Ok(())
            } else {
                Err(format!("comment field holds {now:?}"))
            }
        });
    }

    /// The ids of the listed entry rows.
    fn row_ids(&self) -> Result<Vec<u64>, WdError> {
        let mut ids = Vec::new();
        for el in self.find_all(&tid("entry-row"))? {
            if let Some(id) = self.attr(&el, "data-id")?.and_then(|s| s.parse().ok()) {
                ids.push(id);
            }
        }
        Ok(ids)
    }

    /// The token count each drawn row of the entry list shows.
    fn row_tokens(&self) -> Result<Vec<String>, WdError> {
        let mut rows = Vec::new();
        for el in self.find_all(&tid("row-tokens"))? {
            rows.push(self.text(&el)?);
        }
        Ok(rows)
    }

    /// What the preview shows: injected ids and dropped ids with their kind.
    fn preview(&self) -> Result<Preview, WdError> {
        let mut p = Preview::default();
        for el in self.find_all(&tid("injected-entry"))? {
            if let Some(id) = self.attr(&el, "data-id")?.and_then(|s| s.parse().ok()) {
                p.injected.push(id);
            }
        }
        for el in self.find_all(&tid("dropped-entry"))? {
            let id = self.attr(&el, "data-id")?.and_then(|s| s.parse().ok());
            let kind = self.attr(&el, "data-kind")?.unwrap_or_default();
            if let Some(id) = id {
                p.dropped.insert(id, kind);
            }
        }
        Ok(p)
    }

    /// The final prompt: the text of each message. The prompt is a
    /// virtual list, so its box is scrolled from top to bottom (as a
    /// reader would) and each message read while it is drawn.
    fn messages(&self) -> Result<Vec<String>, WdError> {
        self.messages_in("messages")
    }

    /// The text of each row of the virtual list `testid`, read by
    /// scrolling its box from top to bottom.
    fn messages_in(&self, testid: &str) -> Result<Vec<String>, WdError> {
        let got = self.run(
            self.client
                .execute_async(READ_VIRTUAL_LIST, vec![json!(testid)]),
        )?;
        Ok(got
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|v| v.as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Fails the test if the app shows its error banner.
    fn assert_no_errors(&self) {
        let banners = self.find_all(&tid("errors")).expect("look for errors");
        if let Some(el) = banners.first() {
            panic!(
                "the app shows an error: {}",
                self.text(el).unwrap_or_default()
            );
        }
    }

    /// Saves a screenshot under target/e2e-failures/, named after the test.
    /// With `LOREBOOK_E2E_SCREENSHOT` set, saves a screenshot named after
    /// the test and `label` (to look at a view a test reaches).
    fn snapshot(&self, label: &str) {
        if std::env::var_os("LOREBOOK_E2E_SCREENSHOT").is_none() {
            return;
        }
        let Ok(png) = self.run(self.client.screenshot()) else {
            return;
        };
        let dir = Path::new(ROOT).join("target/e2e-failures");
        let name = std::thread::current()
            .name()
            .unwrap_or("e2e")
            .replace("::", "-");
        let path = dir.join(format!("{name}-{label}.png"));
        if std::fs::create_dir_all(&dir).is_ok() && std::fs::write(&path, png).is_ok() {
            eprintln!("screenshot of the app: {}", path.display());
        }
    }

    fn save_screenshot(&self) {
        let shot = self.rt.block_on(async {
            tokio::time::timeout(Duration::from_secs(15), self.client.screenshot()).await
        });
        let Ok(Ok(png)) = shot else {
            return;
        };
        let dir = Path::new(ROOT).join("target/e2e-failures");
        let name = std::thread::current()
            .name()
            .unwrap_or("e2e")
            .replace("::", "-");
        let path = dir.join(format!("{name}.png"));
        if std::fs::create_dir_all(&dir).is_ok() && std::fs::write(&path, png).is_ok() {
            eprintln!("screenshot of the app: {}", path.display());
        }
    }

    /// Ends the session (closes the app).
    fn quit(self) {
        // Drop deletes the session.
    }
}

/// Reads every row of the virtual list `[data-testid=arguments[0]]`
/// (VirtualList.svelte): scrolls its box from top to bottom, taking the
/// text of each drawn row by its index (the list's `start` plus its place),
/// then scrolls back. Answers the texts in order.
const READ_VIRTUAL_LIST: &str = r#"
const done = arguments[arguments.length - 1];
const list = document.querySelector(`[data-testid="${arguments[0]}"]`);
if (!list) { done([]); return; }
const box = list.parentElement;
const total = Number(list.dataset.count ?? list.children.length);
const seen = new Map();
const grab = () => {
  const start = Number(list.getAttribute('start') || 1) - 1;
  Array.from(list.children).forEach((li, j) => seen.set(start + j, li.innerText));
};
const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
(async () => {
  const kept = box.scrollTop;
  box.scrollTop = 0;
  await frame();
  for (let n = 0; n < 10000; n++) {
    grab();
    if (seen.size >= total || box.scrollTop + box.clientHeight >= box.scrollHeight - 1) break;
    box.scrollTop += Math.max(20, box.clientHeight / 2);
    await frame();
  }
  box.scrollTop = kept;
  done(Array.from({ length: total }, (_, i) => seen.get(i) ?? ''));
})();
"#;

#[derive(Debug, Default)]
struct Preview {
    injected: Vec<u64>,
    dropped: BTreeMap<u64, String>,
}

// ---------------------------------------------------------------- tests

#[test]
fn editing_a_key_updates_the_preview() {
    let _serial = serial();
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    app.select_entry(1, "The Lighthouse");
    wait_until("The Lighthouse injected at start", TIMEOUT, || {
        let p = app.preview()?;
        if p.injected.contains(&1) {
            Ok(())
        } else {
            Err(format!("{p:?}"))
        }
    });

    app.type_into(&tid("keys"), "zeppelin");
    wait_until(
        "The Lighthouse (id 1) dropped as no_match after its key became `zeppelin`",
        TIMEOUT,
        || {
            let p = app.preview()?;
            match p.dropped.get(&1) {
                Some(kind) if kind == "no_match" && !p.injected.contains(&1) => Ok(()),
                _ => Err(format!("{p:?}")),
            }
        },
    );

    app.type_into(&tid("keys"), "lighthouse");
    wait_until(
        "The Lighthouse (id 1) injected again with key `lighthouse`",
        TIMEOUT,
        || {
            let p = app.preview()?;
            if p.injected.contains(&1) && !p.dropped.contains_key(&1) {
                Ok(())
            } else {
                Err(format!("{p:?}"))
            }
        },
    );
    app.assert_no_errors();
}

#[test]
fn a_new_entry_with_decorators_changes_the_preview() {
    let _serial = serial();
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    let before = wait_until("the entry rows", TIMEOUT, || {
        app.row_ids().map_err(String::from)
    });

    app.click(&tid("add-entry"));
    let id = wait_until("a new entry row", TIMEOUT, || {
        let ids = app.row_ids()?;
        ids.iter()
            .copied()
            .find(|id| !before.contains(id))
            .ok_or_else(|| format!("rows {ids:?}"))
    });
    wait_until("the new entry in the editor", TIMEOUT, || {
        let keys = app.value(&tid("keys"))?;
        let content = app.value(&tid("content"))?;
        if keys.is_empty() && content.is_empty() {
            Ok(())
        } else {
            Err(format!("keys {keys:?}, content {content:?}"))
        }
    });

    app.type_into(&tid("keys"), "harbour");
    // Above every sample entry, so the token budget keeps it.
    app.type_into(&tid("priority"), "1000");
    app.type_into(&tid("content"), "@@role assistant\nHarbour notes.");
    wait_until(
        &format!("entry {id} injected and sent as an assistant message"),
        TIMEOUT,
        || {
            let p = app.preview()?;
            let messages = app.messages()?;
            let sent = messages
                .iter()
                .any(|m| m.starts_with("assistant") && m.contains("Harbour notes."));
            if p.injected.contains(&id) && sent {
                Ok(())
            } else {
                Err(format!("{p:?}\n  messages: {messages:#?}"))
            }
        },
    );

    app.type_into(&tid("content"), "@@probability 0\nHarbour notes.");
    wait_until(
        &format!("entry {id} dropped by @@probability 0"),
        TIMEOUT,
        || {
            let p = app.preview()?;
            let messages = app.messages()?;
            let sent = messages.iter().any(|m| m.contains("Harbour notes."));
            match p.dropped.get(&id) {
                Some(kind) if kind == "probability" && !sent => Ok(()),
                _ => Err(format!("{p:?}\n  messages: {messages:#?}")),
            }
        },
    );
    app.assert_no_errors();
}

#[test]
fn a_book_from_the_command_line_is_saved_and_reopened() {
    let _serial = serial();
    let files = TempDir::new("book");
    let book = files.path().join("book.json");
    std::fs::copy(Path::new(ROOT).join("samples/saltmere.json"), &book).expect("copy the sample");
    let path = book.to_str().expect("utf-8 temp path");
    let changed = "The Lighthouse (edited by e2e)";

    let mut driver = Driver::start();
    {
        let app = driver.launch(&[path]);
        app.wait_ready();
        app.select_entry(1, "The Lighthouse");
        assert!(
            app.find_all(&tid("dirty"))
                .expect("look for dirty")
                .is_empty(),
            "a freshly opened book is marked unsaved"
        );
        app.type_into(&tid("comment"), changed);
        app.wait_for(&tid("dirty"));
        app.click(&tid("save"));
        wait_until("the unsaved marker to go after Save", TIMEOUT, || {
            let dirty = app.find_all(&tid("dirty"))?;
            if dirty.is_empty() {
                Ok(())
            } else {
                Err("the book tab still shows the unsaved marker".to_string())
            }
        });
        app.assert_no_errors();
        app.quit();
    }

    let text = std::fs::read_to_string(&book).expect("read the saved book");
    assert!(
        text.contains(changed),
        "the saved file lacks {changed:?}:\n{text}"
    );

    let app = driver.launch(&[path]);
    app.wait_ready();
    app.select_entry(1, changed);
    wait_until("the edited name in the entry list", TIMEOUT, || {
        let row = app.find(&format!("{}[data-id=\"1\"]", tid("entry-row")))?;
        let text = app.property(&row, "textContent")?;
        if text.as_deref().is_some_and(|t| t.contains(changed)) {
            Ok(())
        } else {
            Err(format!("row text {text:?}"))
        }
    });
    assert!(
        app.find_all(&tid("dirty"))
            .expect("look for dirty")
            .is_empty(),
        "the reopened book is marked unsaved"
    );
    app.assert_no_errors();
}

/// Another program rewrites the open book's file while it has unsaved
/// changes: the app notices at once and asks; kept, Save asks again before
/// overwriting it, and Overwrite then writes the user's version.
#[test]
fn a_file_changed_on_disk_asks_at_once_and_before_save() {
    let _serial = serial();
    let files = TempDir::new("disk");
    let book = files.path().join("book.json");
    std::fs::copy(Path::new(ROOT).join("samples/saltmere.json"), &book).expect("copy the sample");
    let path = book.to_str().expect("utf-8 temp path");
    let changed = "The Lighthouse (kept over a change on disk)";

    let mut driver = Driver::start();
    let app = driver.launch(&[path]);
    app.wait_ready();
    app.select_entry(1, "The Lighthouse");
    app.type_into(&tid("comment"), changed);
    app.wait_for(&tid("dirty"));
    let sample = std::fs::read_to_string(&book).expect("read the book");
    std::fs::write(&book, sample.replace("Saltmere", "Saltmarsh")).expect("change the file");
    // Noticed without a save or a focus change (the app follows the file).
    wait_for_disk_question(&app);
    assert_accessible(&app, "the changed-on-disk question");
    app.click(&tid("disk-keep"));
    wait_gone(&app, &tid("disk-message"), "the question to close");
    app.wait_for(&tid("dirty"));
    app.click(&tid("save"));
    wait_for_disk_question(&app);
    assert!(
        !std::fs::read_to_string(&book).unwrap().contains(changed),
        "saved before asking"
    );
    app.click(&tid("disk-overwrite"));
    wait_gone(
        &app,
        &tid("dirty"),
        "the unsaved marker to go after Overwrite",
    );
    let saved = std::fs::read_to_string(&book).expect("read the saved book");
    assert!(saved.contains(changed), "the overwrite lacks {changed:?}");
    app.assert_no_errors();
}

#[test]
fn entry_content_is_rendered_as_text() {
    let _serial = serial();
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    app.select_entry(1, "The Lighthouse");

    let markup = "<img src=x onerror=alert(1)>";
    app.type_into(&tid("content"), &format!("{markup} lighthouse"));
    wait_until("the markup as text in the final prompt", TIMEOUT, || {
        let el = app.find(&tid("messages"))?;
        let text = app.text(&el)?;
        if text.contains(markup) {
            Ok(())
        } else {
            Err(format!("messages text {text:?}"))
        }
    });

    let images = app.find_all("img").expect("find img elements");
    assert!(
        images.is_empty(),
        "the app contains {} img element(s)",
        images.len()
    );
    match app.alert_text() {
        Err(WdError(e)) if e.is_no_such_alert() => {}
        other => panic!("expected no alert, got {other:?}"),
    }
    app.assert_no_errors();
}

#[test]
#[cfg_attr(
    not(corpus),
    ignore = "corpus not found: set LOREBOOK_CORPUS or put it at ../shared/corpus"
)]
fn a_foreign_book_on_the_command_line_opens_with_its_report() {
    let _serial = serial();
    let corpus = lorebook_test_support::corpus();
    let eldoria = corpus.join("sillytavern/Eldoria.json");
    let path = eldoria.to_str().expect("utf-8 corpus path");
    let mut driver = Driver::start();
    let app = driver.launch(&[path]);
    app.wait_ready();
    // The SillyTavern book was imported: its four entries, and the import
    // report shown as a notice.
    wait_until("the four Eldoria entries", TIMEOUT, || {
        let ids = app.row_ids()?;
        if ids.len() == 4 {
            Ok(())
        } else {
            Err(format!("rows {ids:?}"))
        }
    });
    // The notice may come after the list (the UI takes the notices once
    // it has drawn the book): waited for, not expected at once.
    let notices = app.wait_for(&tid("notices"));
    let text = app.text(&notices).expect("notice text");
    assert!(
        text.contains("SillyTavern world info"),
        "the notice should carry the import report, saw {text:?}"
    );
    // Its entries activate against a pasted chat.
    app.type_into(&tid("chat"), "User: We walk into the forest at dusk.");
    wait_until(
        "an Eldoria entry injected by the pasted chat",
        TIMEOUT,
        || {
            let p = app.preview()?;
            if p.injected.is_empty() {
                Err(format!("nothing injected; dropped {:?}", p.dropped))
            } else {
                Ok(())
            }
        },
    );
    app.assert_no_errors();
}

/// Issue 8: an edit left unsaved when the app is killed comes back. The app
/// ends without a clean exit after the autosave delay, starts again on the
/// same data folder, offers the recovered book, and the restored book holds
/// the edit, marked unsaved.
#[test]
fn unsaved_edits_survive_a_kill_and_are_restored() {
    let _serial = serial();
    let changed = "The Lighthouse (unsaved when killed)";
    let mut driver = Driver::start();
    let recovery = driver.dir.path().join("data").join("recovery");
    {
        let app = driver.launch(&[]);
        app.wait_ready();
        app.select_entry(1, "The Lighthouse");
        app.type_into(&tid("comment"), changed);
        app.wait_for(&tid("dirty"));
        wait_until("the autosave copy in the recovery folder", TIMEOUT, || {
            let copies = std::fs::read_dir(&recovery).map_err(|e| e.to_string())?;
            let with_edit = copies.flatten().any(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                !name.ends_with(".meta.json")
                    && std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains(changed))
            });
            if with_edit {
                Ok(())
            } else {
                Err(format!(
                    "no copy holding the edit in {}",
                    recovery.display()
                ))
            }
        });
        app.assert_no_errors();
        // Ending the session ends the app without the clean exit (no Quit,
        // no question answered), as a kill does.
        app.quit();
    }

    let app = driver.launch(&[]);
    app.wait_ready();
    app.wait_for(&tid("recovery-dialog"));
    assert_accessible(&app, "the recovery dialog");
    app.click(&tid("recovery-show"));
    let file = app.wait_for(&tid("recovery-file"));
    let shown = app.text(&file).expect("the recovery file's text");
    assert!(
        shown.contains(&recovery.display().to_string()),
        "the dialog names the copy in {}: {shown:?}",
        recovery.display()
    );
    app.click(&tid("recovery-restore"));
    wait_until("the recovery dialog to close", TIMEOUT, || {
        if app.find_all(&tid("recovery-dialog"))?.is_empty() {
            Ok(())
        } else {
            Err("the recovery dialog is still open".to_string())
        }
    });
    wait_until("two books open, the restored one unsaved", TIMEOUT, || {
        let tabs = app.find_all(&tid("book-tab"))?.len();
        let dirty = app.find_all(&tid("dirty"))?.len();
        if tabs == 2 && dirty == 1 {
            Ok(())
        } else {
            Err(format!("{tabs} tabs, {dirty} marked unsaved"))
        }
    });
    app.select_entry(1, changed);
    app.assert_no_errors();
}

/// Issue 9: previews are sent latest-wins while typing; however the answers
/// interleave, the preview must end on the result for the last text typed.
#[test]
fn fast_typing_in_the_chat_ends_on_the_latest_preview() {
    let _serial = serial();
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    // One `send_keys` types the line key by key, one input event each,
    // far faster than a preview round trip.
    let last = "User: I ask Tam about the lighthouse keeper and the seven gulls";
    app.type_into(&tid("chat"), last);
    let shows_last = || -> Result<(), String> {
        let messages = app.messages()?;
        match messages.last() {
            Some(m) if m.contains(&last["User: ".len()..]) => Ok(()),
            _ => Err(format!("the last message is {:?}", messages.last())),
        }
    };
    wait_until("the preview of the whole typed line", TIMEOUT, shows_last);
    // No answer to an older text may arrive later and replace it.
    std::thread::sleep(Duration::from_millis(1500));
    if let Err(seen) = shows_last() {
        panic!("a stale preview replaced the latest one: {seen}");
    }
    app.assert_no_errors();
}

/// A SillyTavern book as SillyTavern saves it: no name, and every entry
/// selective without secondary keys.
const NAMELESS_BOOK: &str = r#"{"entries": {
    "0": {"uid": 0, "key": ["harbor"], "keysecondary": [], "comment": "Harbor",
          "content": "The harbor of Saltmere.", "selective": true, "constant": false},
    "1": {"uid": 1, "key": ["lamp"], "keysecondary": [], "comment": "Lamp",
          "content": "The lamp of the lighthouse.", "selective": true, "constant": false}
}}"#;

/// Issue 12: a SillyTavern book without a name showed "—" in its tab, a
/// warning badge on every entry, and its report as a banner that pushed
/// the editor down.
#[test]
fn a_nameless_sillytavern_book_shows_its_file_name_and_a_dismissable_report() {
    let _serial = serial();
    let files = TempDir::new("nameless");
    let book = files.path().join("Saltmere Coast.json");
    std::fs::write(&book, NAMELESS_BOOK).expect("write the book");
    let path = book.to_str().expect("utf-8 temp path");

    let mut driver = Driver::start();
    let app = driver.launch(&[path]);
    app.wait_ready();
    wait_until("the two entries", TIMEOUT, || {
        let ids = app.row_ids()?;
        if ids.len() == 2 {
            Ok(())
        } else {
            Err(format!("rows {ids:?}"))
        }
    });
    wait_until("the file name in the book's tab", TIMEOUT, || {
        let tab = app.find(&tid("book-tab"))?;
        let text = app.property(&tab, "textContent")?.unwrap_or_default();
        if text.contains("Saltmere Coast") {
            Ok(())
        } else {
            Err(format!("the tab shows {text:?}"))
        }
    });

    assert!(
        app.find_all(&tid("diag-badge"))
            .expect("look for badges")
            .is_empty(),
        "selective without secondary keys is SillyTavern's default, not a warning"
    );
    let hints = app.find_all(&tid("hint-badge")).expect("look for hints");
    assert!(
        hints.is_empty(),
        "hints are listed in the Problems panel, not badged on rows"
    );

    let panel = app.find(&tid("notices")).expect("the notice panel");
    let text = app.text(&panel).expect("panel text");
    assert!(text.contains("SillyTavern world info"), "panel: {text:?}");
    let summary = app.find(&tid("notice-summary")).expect("the summary line");
    let summary = app.text(&summary).expect("summary text");
    assert!(
        summary.starts_with("2 entries imported"),
        "summary: {summary:?}"
    );
    let file = app.find(&tid("notice-file")).expect("the file name");
    assert_eq!(app.text(&file).expect("file text"), "Saltmere Coast.json");
    assert_eq!(
        app.attr(&file, "title").expect("file title").as_deref(),
        Some(path),
        "the full path is in the tooltip"
    );

    // The panel floats over the panes: dismissing it moves nothing.
    let list = app.find(&tid("entry-list")).expect("the entry list");
    let before = app.run(list.rectangle()).expect("list position");
    app.click(&tid("notices-dismiss"));
    wait_until("the notice panel to close", TIMEOUT, || {
        if app.find_all(&tid("notices"))?.is_empty() {
            Ok(())
        } else {
            Err("the panel is still shown".to_string())
        }
    });
    let after = app.run(list.rectangle()).expect("list position");
    assert_eq!(before, after, "the notice panel moved the entry list");
    app.assert_no_errors();
}

/// Injects axe-core (read from ui/node_modules, never bundled into the app)
/// and fails on any serious or critical violation, naming each one.
fn assert_accessible(app: &Session<'_>, view: &str) {
    let axe_path = Path::new(ROOT).join("ui/node_modules/axe-core/axe.min.js");
    let axe = std::fs::read_to_string(&axe_path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}; run `npm --prefix ui ci`",
            axe_path.display()
        )
    });
    app.run(app.client.execute(&axe, vec![]))
        .expect("inject axe-core");
    let script = "const done = arguments[arguments.length - 1];\
                  axe.run(document, { resultTypes: ['violations'] })\
                  .then((r) => done(r.violations), (e) => done({ error: String(e) }));";
    let result = app
        .run(app.client.execute_async(script, vec![]))
        .expect("run axe-core");
    let violations = result
        .as_array()
        .unwrap_or_else(|| panic!("axe-core failed on {view}: {result}"));
    let serious: Vec<String> = violations
        .iter()
        .filter(|v| matches!(v["impact"].as_str(), Some("serious" | "critical")))
        .map(|v| {
            let targets: Vec<String> = v["nodes"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|n| n["target"].to_string())
                .collect();
            format!(
                "{} ({}): {}\n    {}",
                v["id"].as_str().unwrap_or("?"),
                v["impact"].as_str().unwrap_or("?"),
                v["help"].as_str().unwrap_or("?"),
                targets.join("\n    ")
            )
        })
        .collect();
    assert!(
        serious.is_empty(),
        "axe-core reports {} serious or critical violation(s) on {view}:\n  {}",
        serious.len(),
        serious.join("\n  ")
    );
}

#[test]
fn the_main_views_have_no_serious_accessibility_violations() {
    let _serial = serial();
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    app.select_entry(1, "The Lighthouse");
    assert_accessible(&app, "the main view (light theme)");

    // Down on the focused row selects the next one and keeps the focus on it.
    let ids = app.row_ids().expect("row ids");
    let below = ids[ids.iter().position(|&id| id == 1).expect("row 1 listed") + 1];
    let row = app
        .find(&format!("{}[data-id=\"1\"]", tid("entry-row")))
        .expect("row 1");
    app.run(row.send_keys(&char::from(Key::Down).to_string()))
        .expect("press Down on row 1");
    wait_until("the row below selected and focused", TIMEOUT, || {
        let focused = app.run(app.client.active_element())?;
        let id = app.attr(&focused, "data-id")?;
        let selected = app.attr(&focused, "aria-selected")?;
        if id == Some(below.to_string()) && selected.as_deref() == Some("true") {
            Ok(())
        } else {
            Err(format!("focused row {id:?}, aria-selected {selected:?}"))
        }
    });

    app.click(&tid("book-settings-toggle"));
    app.wait_for(&tid("book-settings"));
    assert_accessible(&app, "the main view with the book settings open");

    let theme = app.find(&tid("theme")).expect("theme select");
    app.run(theme.select_by_value("dark"))
        .expect("pick the dark theme");
    wait_until("the dark theme", TIMEOUT, || {
        let html = app.find("html")?;
        match app.attr(&html, "class")? {
            Some(c) if c.contains("dark") => Ok(()),
            other => Err(format!("html class {other:?}")),
        }
    });
    assert_accessible(&app, "the main view (dark theme)");

    app.click(&tid("export"));
    app.wait_for(&tid("export-dialog"));
    assert_accessible(&app, "the export dialog with its report");
    let format = app.find(&tid("export-format")).expect("export format");
    app.run(format.send_keys(&char::from(Key::Escape).to_string()))
        .expect("press Escape in the export dialog");
    wait_until("the export dialog closed by Escape", TIMEOUT, || {
        if app.find_all(&tid("export-dialog"))?.is_empty() {
            Ok(())
        } else {
            Err("the export dialog is still open".to_string())
        }
    });

    app.click(&tid("delete-entry"));
    app.wait_for(&tid("confirm"));
    assert_accessible(&app, "the delete confirmation dialog");
    // The dialog takes the focus on its first (harmless) choice and Escape
    // cancels it.
    let cancel = wait_until("the focus on the dialog's Cancel", TIMEOUT, || {
        let focused = app.run(app.client.active_element())?;
        match app.attr(&focused, "data-testid")?.as_deref() {
            Some("confirm-cancel") => Ok(focused),
            other => Err(format!("focus on {other:?}")),
        }
    });
    app.run(cancel.send_keys(&char::from(Key::Escape).to_string()))
        .expect("press Escape");
    wait_until("the dialog closed by Escape", TIMEOUT, || {
        if app.find_all(&tid("confirm"))?.is_empty() {
            Ok(())
        } else {
            Err("the dialog is still open".to_string())
        }
    });
    assert_eq!(
        app.row_ids().expect("row ids"),
        ids,
        "Escape deleted nothing"
    );
    app.assert_no_errors();
    app.quit();

    // An imported book shows its report as a notice; the shared corpus is
    // optional, so a plain clone checks the views above only.
    let Some(corpus) = lorebook_test_support::corpus_root() else {
        return;
    };
    let eldoria = corpus.join("sillytavern/Eldoria.json");
    let app = driver.launch(&[eldoria.to_str().expect("utf-8 corpus path")]);
    app.wait_ready();
    app.wait_for(&tid("notices"));
    assert_accessible(&app, "an imported book with its report");
    app.assert_no_errors();
}

/// Issue 12, always (hand-made book, UI in Portuguese): the views the main
/// axe check does not reach — the notice panel and its report, the
/// SillyTavern view with its settings and final prompt, and the empty
/// states — have no serious violations, and each empty state's action
/// works in one click: clear the filter, open the sample book.
#[test]
fn notices_the_sillytavern_view_and_empty_states_pass_axe_and_act() {
    let _serial = serial();
    let files = TempDir::new("axemore");
    let book = files.path().join("Weather.json");
    std::fs::write(&book, ST_WORLD).expect("write the world");
    let mut driver = Driver::start();
    let data = driver.dir.path().join("data");
    std::fs::create_dir_all(&data).expect("the data folder");
    std::fs::write(
        data.join("prefs.json"),
        r#"{"locale":"pt-BR","welcomed":true}"#,
    )
    .expect("write prefs.json");
    let app = driver.launch(&[book.to_str().expect("utf-8 temp path")]);
    app.wait_ready();
    app.wait_for(&tid("notices"));
    assert_accessible(&app, "the notice panel");
    open_report_details(&app);
    assert_accessible(&app, "the notice panel with its report open");
    app.snapshot("report");
    app.click(&tid("notices-dismiss"));

    app.type_into(
        &tid("chat"),
        "User: The fog rolls in.\nCharacter: The lighthouse is dark.",
    );
    app.click(&format!("{} option[value=\"sillytavern\"]", tid("rules")));
    app.wait_for(&format!("{} {}", tid("injected-entry"), tid("st-position")));
    app.open_details(&tid("st-settings"));
    app.open_details(&tid("st-prompt-panel"));
    app.wait_for(&tid("st-messages"));
    assert_accessible(
        &app,
        "the SillyTavern view with its settings and final prompt",
    );
    app.snapshot("sillytavern");

    // No entry matches the search: the list says so and clears the filter.
    app.type_into(&tid("search"), "zzzz");
    app.wait_for(&tid("empty-list"));
    assert_accessible(&app, "an entry list with no match");
    app.snapshot("no-match");
    app.click(&tid("clear-filter"));
    wait_until("the entries back after Clear filter", TIMEOUT, || {
        let ids = app.row_ids()?;
        if ids.len() == 3 {
            Ok(())
        } else {
            Err(format!("rows {ids:?}"))
        }
    });

    // An empty chat says what to do next.
    let chat = app.find(&tid("chat")).expect("the chat box");
    let select_all = format!("{}a", char::from(Key::Control));
    app.run(chat.send_keys(&select_all))
        .expect("select the chat");
    app.run(chat.send_keys(&char::from(Key::Backspace).to_string()))
        .expect("delete the chat");
    app.wait_for(&tid("empty-chat"));
    app.wait_for(&tid("empty-open-chat"));
    assert_accessible(&app, "an empty chat");

    // No book open: the sample is one click away.
    app.click(".tab-close");
    if wait_until("the book closed or a question", TIMEOUT, || {
        if !app.find_all(&tid("confirm"))?.is_empty() {
            Ok(true)
        } else if !app.find_all(&tid("empty-no-book"))?.is_empty() {
            Ok(false)
        } else {
            Err("neither yet".to_string())
        }
    }) {
        app.click(&tid("confirm-yes"));
    }
    let empty = app.wait_for(&tid("empty-no-book"));
    let text = app.text(&empty).expect("empty state text");
    assert!(text.contains("Nenhum livro aberto"), "{text}");
    // The panes still fill the window below the bars.
    let gap = app
        .run(app.client.execute(
            &format!(
                "return window.innerHeight - document.querySelector('{}').getBoundingClientRect().bottom",
                tid("list-pane")
            ),
            vec![],
        ))
        .expect("measure the list pane");
    assert!(
        gap.as_f64().is_some_and(|g| g.abs() <= 2.0),
        "the panes end {gap} px above the window's bottom"
    );
    // The preview says the same instead of an empty budget and lists.
    app.wait_for(&tid("preview-open-sample"));
    assert!(
        app.find_all(&tid("budget-label"))
            .expect("look for the budget")
            .is_empty(),
        "an empty budget shown with no book open"
    );
    assert_accessible(&app, "no book open");
    app.snapshot("no-book");
    app.click(&tid("open-sample"));
    app.wait_ready();
    wait_until("the sample book in its tab", TIMEOUT, || {
        let tab = app.find(&tid("book-tab"))?;
        let text = app.property(&tab, "textContent")?.unwrap_or_default();
        if text.contains("Saltmere") && app.row_ids()?.len() == 10 {
            Ok(())
        } else {
            Err(format!("the tab shows {text:?}"))
        }
    });
    // The window title names the book shown and marks unsaved changes.
    let title_is = |want: &str| {
        wait_until(&format!("the title {want:?}"), TIMEOUT, || {
            let title = app.run(app.client.title())?;
            if title == want {
                Ok(())
            } else {
                Err(format!("title {title:?}"))
            }
        })
    };
    title_is("Saltmere — Lorebook Studio");
    app.select_entry(1, "The Lighthouse");
    app.type_into(&tid("comment"), "The Lighthouse, edited");
    title_is("● Saltmere — Lorebook Studio");
    app.assert_no_errors();
}

/// The splitters resize the panes from the keyboard, and the pane sizes,
/// the theme and the language come back on the next run.
#[test]
fn pane_sizes_theme_and_language_persist_across_runs() {
    let _serial = serial();
    let mut driver = Driver::start();
    let prefs = driver.dir.path().join("data/prefs.json");
    let labels = driver.dir.path().join("data/native-labels.json");
    let width = |app: &Session<'_>| -> Result<i64, String> {
        let script = format!(
            "return document.querySelector('{}').offsetWidth",
            tid("list-pane")
        );
        let w = app.run(app.client.execute(&script, vec![]))?;
        w.as_i64().ok_or_else(|| format!("offsetWidth {w}"))
    };
    let before;
    {
        let app = driver.launch(&[]);
        app.wait_ready();
        before = width(&app).expect("list width");
        let split = app.wait_for(&tid("split-list"));
        let right = char::from(Key::Right).to_string();
        for _ in 0..3 {
            app.run(split.send_keys(&right))
                .expect("press Right on the splitter");
        }
        wait_until("the list 48 px wider", TIMEOUT, || {
            let now = width(&app)?;
            if (now - (before + 48)).abs() <= 1 {
                Ok(())
            } else {
                Err(format!("list is {now} px, was {before}"))
            }
        });
        app.click(&format!("{} option[value=\"dark\"]", tid("theme")));
        app.click(&format!("{} option[value=\"pt-BR\"]", tid("locale")));
        wait_until("the preferences saved", TIMEOUT, || {
            let text = std::fs::read_to_string(&prefs).map_err(|e| e.to_string())?;
            if text.contains("pt-BR") && text.contains("dark") {
                Ok(())
            } else {
                Err(format!("prefs.json holds {text}"))
            }
        });
        // The menu's and dialogs' Portuguese words are kept, so the next
        // start builds its menu in Portuguese before the page loads.
        wait_until("the native words kept", TIMEOUT, || {
            let text = std::fs::read_to_string(&labels).map_err(|e| e.to_string())?;
            if text.contains("\"Arquivo\"") && text.contains("Salvar livro como") {
                Ok(())
            } else {
                Err(format!("native-labels.json holds {text}"))
            }
        });
        app.assert_no_errors();
        app.quit();
    }

    let app = driver.launch(&[]);
    app.wait_ready();
    wait_until("the saved layout, theme and language", TIMEOUT, || {
        let now = width(&app)?;
        let root = app.find("html")?;
        let lang = app.attr(&root, "lang")?;
        let class = app.attr(&root, "class")?.unwrap_or_default();
        if (now - (before + 48)).abs() <= 1
            && lang.as_deref() == Some("pt-BR")
            && class.contains("dark")
        {
            Ok(())
        } else {
            Err(format!(
                "list {now} px (want {}), lang {lang:?}, class {class:?}",
                before + 48
            ))
        }
    });
    app.assert_no_errors();
}

/// Issue 12, on a real book when the shared corpus is present: the
/// 338-entry SillyTavern book opens named after its file, with a one-line
/// report summary, no warning badge for SillyTavern's defaults, and its
/// summary in Portuguese once the language is switched.
#[test]
#[cfg_attr(
    not(corpus),
    ignore = "corpus not found: set LOREBOOK_CORPUS or put it at ../shared/corpus"
)]
fn the_corpus_zzz_book_opens_calmly_in_both_languages() {
    let _serial = serial();
    let corpus = lorebook_test_support::corpus();
    let zzz = corpus.join("sillytavern/Complete_ZZZ_Lorebook.json");
    let path = zzz.to_str().expect("utf-8 corpus path");
    let mut driver = Driver::start();
    let app = driver.launch(&[path]);
    app.wait_ready();
    wait_until("338 entries listed", TIMEOUT, || {
        let footer = app.find("#entry-count")?;
        let text = app.text(&footer)?;
        if text.contains("338 of 338") {
            Ok(())
        } else {
            Err(format!("footer {text:?}"))
        }
    });
    let tab = app.find(&tid("book-tab")).expect("the book tab");
    let name = app.property(&tab, "textContent").expect("tab text");
    assert!(
        name.as_deref()
            .is_some_and(|t| t.contains("Complete_ZZZ_Lorebook")),
        "the tab shows {name:?}"
    );
    // SillyTavern saves every plain entry selective without secondary
    // keys: normal there, so not reported at all, not even as a hint. The
    // badges that remain are the book's real problems (issue 44: two
    // copies of one body, a key of a single letter; keys shared by facets
    // of one subject are hints), each listed in the Problems panel.
    assert!(
        app.find_all(&tid("hint-badge"))
            .expect("look for hint badges")
            .is_empty(),
        "hints are never badged"
    );
    app.click(&tid("problems-toggle"));
    // The check filter offers every code the book has, hints included.
    let codes = wait_until("the checks of the book", TIMEOUT, || {
        let mut codes = Vec::new();
        for o in app.find_all(&format!("{} option", tid("problems-code")))? {
            codes.push(app.attr(&o, "value")?.unwrap_or_default());
        }
        if codes.iter().any(|c| c == "duplicate_key") {
            Ok(codes)
        } else {
            Err(format!("codes {codes:?}"))
        }
    });
    assert!(
        !codes.iter().any(|c| c == "selective_without_secondary"),
        "SillyTavern's defaults are not problems: {codes:?}"
    );
    for badge in app.find_all(&tid("diag-badge")).expect("look for badges") {
        let severity = app.attr(&badge, "data-severity").expect("badge severity");
        assert!(
            matches!(severity.as_deref(), Some("warning" | "error")),
            "{severity:?}"
        );
    }
    app.click(&tid("problems-toggle"));
    // The start-up notices are shown after the first preview, which may
    // come a moment after the list on a loaded machine.
    let text = wait_until("the summary line", TIMEOUT, || {
        let summary = app.find(&tid("notice-summary"))?;
        Ok::<_, String>(app.text(&summary)?)
    });
    assert!(text.starts_with("338 entries imported"), "{text:?}");
    let file = app.find(&tid("notice-file")).expect("the file name");
    assert_eq!(
        app.text(&file).expect("file text"),
        "Complete_ZZZ_Lorebook.json"
    );

    let locale = app.find(&tid("locale")).expect("language select");
    app.run(locale.select_by_value("pt-BR"))
        .expect("pick Portuguese");
    wait_until("the summary in Portuguese", TIMEOUT, || {
        let summary = app.find(&tid("notice-summary"))?;
        let text = app.text(&summary)?;
        if text.starts_with("338 entradas importadas") {
            Ok(())
        } else {
            Err(format!("summary {text:?}"))
        }
    });
    // The report's notes come from the engine as codes: Portuguese too.
    let details = open_report_details(&app);
    assert!(
        details.contains("vale a configuração global do SillyTavern"),
        "{details}"
    );
    assert_no_english_notes(&details);
    app.assert_no_errors();
}

/// A SillyTavern world whose import repairs values: a uid used twice, a
/// role out of range, an unset whole-words flag and a position by name.
const REPAIRED_WORLD: &str = r#"{"entries": {
  "0": {"uid": 3, "key": ["mill"], "keysecondary": [], "comment": "Mill", "content": "The old mill.",
        "selective": false, "constant": false, "role": 7},
  "1": {"uid": 3, "key": ["weir"], "keysecondary": [], "comment": "Weir", "content": "The weir.",
        "selective": false, "constant": false, "caseSensitive": "yes"}
}}"#;

/// Expands the notice panel's report and every group in it; returns the
/// report's text.
fn open_report_details(app: &Session<'_>) -> String {
    app.open_details(&format!("{} > details", tid("notice-import")));
    for group in [
        "report-book",
        "report-approximated",
        "report-not-carried",
        "report-notes",
    ] {
        if !app
            .find_all(&tid(group))
            .expect("look for a group")
            .is_empty()
        {
            app.open_details(&tid(group));
        }
    }
    let report = app.wait_for(&format!("{} {}", tid("notice-import"), tid("report")));
    app.text(&report).expect("report text")
}

/// The English wording of notes, which the Portuguese report must not show.
fn assert_no_english_notes(text: &str) {
    for english in [
        " read as ",
        " is used twice",
        "given id",
        "is not true/false",
        "whole words",
    ] {
        assert!(!text.contains(english), "English {english:?} in {text}");
    }
}

/// Issue 12, always (a hand-made book): with the UI in Portuguese, the
/// import report's notes and its title are Portuguese, worded by the UI
/// from the engine's codes, with their values in place.
#[test]
fn an_import_report_reads_in_portuguese() {
    let _serial = serial();
    let files = TempDir::new("reportpt");
    let book = files.path().join("Mill Town.json");
    std::fs::write(&book, REPAIRED_WORLD).expect("write the world");
    let mut driver = Driver::start();
    let data = driver.dir.path().join("data");
    std::fs::create_dir_all(&data).expect("the data folder");
    std::fs::write(
        data.join("prefs.json"),
        r#"{"locale":"pt-BR","welcomed":true}"#,
    )
    .expect("write prefs.json");
    let app = driver.launch(&[book.to_str().expect("utf-8 temp path")]);
    app.wait_ready();
    let panel = app.wait_for(&tid("notices"));
    let title = app.text(&panel).expect("panel text");
    assert!(title.contains("world info do SillyTavern"), "{title}");
    let summary = app
        .text(&app.wait_for(&tid("notice-summary")))
        .expect("summary");
    assert!(summary.starts_with("2 entradas importadas"), "{summary}");
    let details = open_report_details(&app);
    for portuguese in [
        "o uid 3 aparece duas vezes; recebeu o id",
        "7 não está entre 0 e 2; lido como sistema",
        "\"yes\" não é true/false; lido como desligado",
        "lido como palavras inteiras ligado",
    ] {
        assert!(
            details.contains(portuguese),
            "{portuguese:?} missing in {details}"
        );
    }
    assert_no_english_notes(&details);
    app.assert_no_errors();
}

/// A SillyTavern world for issue 10: two entries in the group "weather"
/// keyed `fog` (the first has the higher order and wins), one at depth 1 as
/// assistant keyed `lighthouse`.
const ST_WORLD: &str = r#"{"entries": {
  "0": {"uid": 0, "key": ["fog"], "keysecondary": [], "comment": "Fog (calm)", "content": "A soft fog.",
        "constant": false, "selective": false, "order": 200, "position": 0, "disable": false,
        "group": "weather", "groupOverride": true, "groupWeight": 100, "depth": 4},
  "1": {"uid": 1, "key": ["fog"], "keysecondary": [], "comment": "Fog (storm)", "content": "A storm fog.",
        "constant": false, "selective": false, "order": 100, "position": 0, "disable": false,
        "group": "weather", "groupOverride": true, "groupWeight": 100, "depth": 4},
  "2": {"uid": 2, "key": ["lighthouse"], "keysecondary": [], "comment": "Lighthouse", "content": "Dark for years.",
        "constant": false, "selective": false, "order": 100, "position": 4, "depth": 1, "role": 2,
        "disable": false}
}}"#;

/// Issue 10: an imported SillyTavern book previews under SillyTavern's rules
/// (its position labels and drop reasons), the rules can be switched, and
/// an entry's SillyTavern position is edited from the editor's section.
#[test]
fn an_imported_sillytavern_book_previews_under_its_rules() {
    let _serial = serial();
    let files = TempDir::new("strules");
    let book = files.path().join("Weather.json");
    std::fs::write(&book, ST_WORLD).expect("write the world");
    let mut driver = Driver::start();
    let app = driver.launch(&[book.to_str().expect("utf-8 temp path")]);
    app.wait_ready();
    app.type_into(
        &tid("chat"),
        "User: The fog rolls in.\nCharacter: The lighthouse is dark.",
    );
    // Switch to the guide's rules, then back to SillyTavern's, as a user would.
    app.click(&format!("{} option[value=\"studio\"]", tid("rules")));
    wait_until("the studio preview", TIMEOUT, || {
        let p = app.preview()?;
        if p.injected.contains(&0) && p.injected.contains(&1) {
            Ok(())
        } else {
            Err(format!("studio rules know no groups: {p:?}"))
        }
    });
    app.click(&format!("{} option[value=\"sillytavern\"]", tid("rules")));
    wait_until("a position label and an ST drop reason", TIMEOUT, || {
        let p = app.preview()?;
        if p.dropped.get(&1).map(String::as_str) != Some("group") {
            return Err(format!("no group drop yet: {p:?}"));
        }
        let at = app.find(&format!(
            "{}[data-id=\"2\"] {}",
            tid("injected-entry"),
            tid("st-position")
        ))?;
        let label = app.text(&at)?;
        if label != "at depth 1 as assistant" {
            return Err(format!("position label {label:?}"));
        }
        let dropped = app.find(&format!("{}[data-id=\"1\"]", tid("dropped-entry")))?;
        let text = app.text(&dropped)?;
        if text.contains("inclusion group") && text.contains("weather") {
            Ok(())
        } else {
            Err(format!("drop reason {text:?}"))
        }
    });
    // The final prompt as SillyTavern assembles it: the at-depth entry
    // (depth 1, as assistant) inside the chat, above the last message.
    app.open_details(&tid("st-prompt-panel"));
    wait_until("the at-depth entry inside the chat", TIMEOUT, || {
        let all = app.messages_in("st-messages")?;
        let at = |text: &str| all.iter().position(|m| m.contains(text));
        match (
            at("The fog rolls in."),
            at("Dark for years."),
            at("The lighthouse is dark."),
        ) {
            (Some(user), Some(entry), Some(last)) if entry == user + 1 && last == entry + 1 => {
                if all[entry].contains("assistant") && all[entry].contains("Lighthouse") {
                    Ok(())
                } else {
                    Err(format!("the entry's message: {:?}", all[entry]))
                }
            }
            _ => Err(format!("prompt: {all:?}")),
        }
    });
    // The editor's SillyTavern section is open for this book; moving the
    // lighthouse to "after character definitions" shows in the preview.
    app.select_entry(2, "Lighthouse");
    app.wait_for(&format!("{}[open]", tid("st-fields")));
    app.click(&format!("{} option[value=\"1\"]", tid("st-position")));
    wait_until("the lighthouse after the character", TIMEOUT, || {
        let el = app.find(&format!("{}[data-id=\"2\"]", tid("injected-entry")))?;
        let pos = app.attr(&el, "data-position")?.unwrap_or_default();
        if pos == "after" {
            Ok(())
        } else {
            Err(format!("position {pos:?}"))
        }
    });
    if std::env::var_os("LOREBOOK_E2E_SCREENSHOT").is_some() {
        app.save_screenshot();
    }
    app.assert_no_errors();
}
/// A SillyTavern world whose entry 0 scans the persona description
/// (`matchPersonaDescription`) and whose entry 1, on the same key, does not.
const ST_PERSONA_WORLD: &str = r#"{"entries": {
  "0": {"uid": 0, "key": ["lighthouse"], "keysecondary": [], "comment": "Keeper", "content": "The keeper's duty.",
        "constant": false, "selective": false, "order": 100, "position": 0, "disable": false,
        "matchPersonaDescription": true},
  "1": {"uid": 1, "key": ["lighthouse"], "keysecondary": [], "comment": "Unflagged", "content": "Not scanned there.",
        "constant": false, "selective": false, "order": 100, "position": 0, "disable": false}
}}"#;

/// Issue 10: the preview's "Character & persona" inputs. A persona
/// description typed there activates the entry with
/// `matchPersonaDescription` (and not the one without), and it is kept
/// for the next run.
#[test]
fn a_typed_persona_description_activates_an_entry_that_matches_it() {
    let _serial = serial();
    let files = TempDir::new("stpersona");
    let book = files.path().join("Keeper.json");
    std::fs::write(&book, ST_PERSONA_WORLD).expect("write the world");
    let mut driver = Driver::start();
    let app = driver.launch(&[book.to_str().expect("utf-8 temp path")]);
    app.wait_ready();
    app.type_into(&tid("chat"), "User: Good evening.");
    wait_until(
        "the SillyTavern preview with nothing injected",
        TIMEOUT,
        || {
            let p = app.preview()?;
            match app.find_all(&tid("st-inputs"))?.len() {
                1 if p.injected.is_empty() && p.dropped.contains_key(&0) => Ok(()),
                n => Err(format!("{n} inputs panels, preview {p:?}")),
            }
        },
    );
    app.open_details(&tid("st-inputs"));
    app.type_into(&tid("st-in-persona"), "I keep the lighthouse.");
    wait_until("the persona-matching entry injected", TIMEOUT, || {
        let p = app.preview()?;
        if p.injected == [0] {
            Ok(())
        } else {
            Err(format!("preview {p:?}"))
        }
    });
    if std::env::var_os("LOREBOOK_E2E_SCREENSHOT").is_some() {
        app.save_screenshot();
    }
    app.assert_no_errors();
    app.quit();
    // The next run has the persona again (kept with SillyTavern's settings).
    let app = driver.launch(&[book.to_str().expect("utf-8 temp path")]);
    app.wait_ready();
    // The imported book was never saved: its recovery copy is offered.
    app.click(&tid("recovery-discard"));
    wait_until("the persona kept", TIMEOUT, || {
        let v = app.value(&tid("st-in-persona"))?;
        if v == "I keep the lighthouse." {
            Ok(())
        } else {
            Err(format!("persona {v:?}"))
        }
    });
    wait_until("the kept persona scanned again", TIMEOUT, || {
        let p = app.preview()?;
        if p.injected == [0] {
            Ok(())
        } else {
            Err(format!("preview {p:?}"))
        }
    });
    app.assert_no_errors();
}

/// Issue 9: the final prompt is a virtual list. Scrolled to its middle, it
/// draws the messages in view, each in its place, and not the whole chat.
#[test]
fn a_scrolled_virtual_list_draws_the_rows_in_view() {
    let _serial = serial();
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    let chat: Vec<String> = (1..=80)
        .map(|n| format!("User: line {n:03} of the long chat"))
        .collect();
    app.run(app.client.execute(
        "const ta = document.querySelector('[data-testid=\"chat\"]'); ta.value = arguments[0];
         ta.dispatchEvent(new Event('input', { bubbles: true }));",
        vec![json!(chat.join("\n"))],
    ))
    .expect("paste the chat");
    // Read by scrolling, the prompt holds every line in order.
    let all = wait_until("the 80 lines in the prompt", TIMEOUT, || {
        let all = app.messages()?;
        let lines: Vec<&String> = all
            .iter()
            .filter(|m| m.contains("of the long chat"))
            .collect();
        if lines.len() == 80
            && lines
                .iter()
                .enumerate()
                .all(|(i, m)| m.contains(&format!("line {:03}", i + 1)))
        {
            Ok(all)
        } else {
            Err(format!(
                "{} lines: {:?}",
                lines.len(),
                lines.iter().take(3).collect::<Vec<_>>()
            ))
        }
    });
    // Scrolled to the middle, the drawn rows are the ones at their place.
    let drawn = app
        .run(app.client.execute_async(
            "const done = arguments[arguments.length - 1];
             const list = document.querySelector('[data-testid=\"messages\"]');
             const box = list.parentElement;
             box.scrollTop = (box.scrollHeight - box.clientHeight) / 2;
             requestAnimationFrame(() => requestAnimationFrame(() => {
               const b = box.getBoundingClientRect();
               const rows = Array.from(list.children);
               done({
                 start: Number(list.getAttribute('start')) - 1,
                 texts: rows.map((li) => li.innerText),
                 inView: rows.filter((li) => { const r = li.getBoundingClientRect(); return r.bottom > b.top && r.top < b.bottom; }).length,
               });
             }));",
            vec![],
        ))
        .expect("scroll the prompt");
    let start = drawn["start"].as_u64().expect("the list's start") as usize;
    let texts: Vec<&str> = drawn["texts"]
        .as_array()
        .expect("drawn rows")
        .iter()
        .map(|v| v.as_str().unwrap_or(""))
        .collect();
    assert!(
        start > 0,
        "scrolled to the middle, the first rows are not drawn"
    );
    assert!(
        texts.len() < all.len() / 2,
        "{} of {} messages drawn",
        texts.len(),
        all.len()
    );
    assert!(
        drawn["inView"].as_u64().unwrap_or(0) > 0,
        "no drawn row is in view"
    );
    for (j, text) in texts.iter().enumerate() {
        assert_eq!(
            *text,
            all[start + j],
            "row {} drawn out of place",
            start + j
        );
    }
    app.assert_no_errors();
}

/// A word longer than the preview is wide, typed into the chat, wraps
/// inside its prompt message instead of running out of the box.
#[test]
fn a_long_word_in_the_chat_wraps_in_the_prompt() {
    let _serial = serial();
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    let word = format!("Zq{}", "x".repeat(400));
    // Set as a paste sets it: the whole value, then one input event.
    app.run(app.client.execute(
        "const ta = document.querySelector('[data-testid=\"chat\"]');
         ta.focus();
         ta.value = ta.value.trimEnd() + '\\nUser: ' + arguments[0];
         ta.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste' }));",
        vec![json!(word)],
    ))
    .expect("the chat box takes the text");
    let fits = wait_until("the long word in the prompt", TIMEOUT * 3, || {
        let got = app.run(app.client.execute(
            "// The prompt is a virtual list: its last message is drawn once
             // the list is scrolled to its end.
             const list = document.querySelector('[data-testid=\"messages\"]');
             if (list && list.parentElement) list.parentElement.scrollTop = list.parentElement.scrollHeight;
             const box = Array.from(document.querySelectorAll('[data-testid=\"messages\"] li')).find((li) => li.textContent.includes(arguments[0]));
             if (!box) return null;
             box.scrollIntoView({ block: 'nearest' });
             const text = box.querySelector('.msg-text');
             return [text.scrollWidth, text.clientWidth];",
            vec![json!(word)],
        ))?;
        got.as_array()
            .map(|a| (a[0].as_f64().unwrap_or(0.0), a[1].as_f64().unwrap_or(0.0)))
            .ok_or_else(|| "not in the prompt yet".to_string())
    });
    assert!(
        fits.0 <= fits.1 + 1.0,
        "the message's text is {} px wide in a {} px box",
        fits.0,
        fits.1
    );
    app.assert_no_errors();
}

/// A long chat pasted into the box keeps only its newest messages there
/// (WebKit edits a long box slowly, issue 24); the earlier part is listed
/// above it, read-only, and Rust holds the whole chat: the preview counts
/// every message, a keystroke in the box lands at the chat's end, and
/// "Edit the whole chat" brings all of it back into the box.
#[test]
fn a_long_pasted_chat_keeps_its_newest_messages_in_the_box() {
    let _serial = serial();
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    let chat: String = (0..1200)
        .map(|i| format!("User: message {i} about the weather\nTam: answer {i}\n"))
        .collect();
    assert!(chat.len() > 48 * 1024);
    app.run(app.client.execute(
        "const ta = document.querySelector('[data-testid=\"chat\"]');
         ta.focus();
         ta.value = arguments[0];
         ta.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste' }));",
        vec![json!(chat)],
    ))
    .expect("the chat box takes the text");
    app.wait_for(&tid("chat-head"));
    let label = |want: &'static str| {
        wait_until(want, TIMEOUT * 3, || {
            let got = app.text(&app.find(&tid("request-label"))?)?;
            if got == want {
                Ok(())
            } else {
                Err(format!("the label reads {got:?}"))
            }
        })
    };
    label("Request 2,400 of 2,400");
    let boxed = app.value(&tid("chat")).expect("the box");
    assert!(
        boxed.len() < 10 * 1024 && chat.ends_with(&boxed) && boxed.starts_with("User: message"),
        "the box holds the newest messages from a message's start: {} bytes",
        boxed.len()
    );
    // Typed at the box's end: the chat's end, as the prompt shows.
    app.run(app.client.execute(
        "const ta = document.querySelector('[data-testid=\"chat\"]');
         ta.focus();
         ta.setSelectionRange(ta.value.length, ta.value.length);
         document.execCommand('insertText', false, 'User: Zqlast words');",
        vec![],
    ))
    .expect("typing in the box");
    label("Request 2,401 of 2,401");
    wait_until("the typed message in the prompt", TIMEOUT, || {
        let found = app.run(app.client.execute(
            "const list = document.querySelector('[data-testid=\"messages\"]');
             if (list && list.parentElement) list.parentElement.scrollTop = list.parentElement.scrollHeight;
             return Array.from(document.querySelectorAll('[data-testid=\"messages\"] li')).some((li) => li.textContent.includes('Zqlast words'));",
            vec![],
        ))?;
        if found == json!(true) {
            Ok(())
        } else {
            Err("not in the prompt yet".to_string())
        }
    });
    app.open_details(&tid("chat-head"));
    app.wait_for(&format!("{} li button", tid("chat-head-lines")));
    assert_accessible(&app, "a long chat's read-only part");
    app.snapshot("chat-head");
    app.click(&tid("chat-edit-all"));
    wait_gone(&app, &tid("chat-head"), "the read-only part");
    let whole = app.value(&tid("chat")).expect("the box");
    assert_eq!(whole, format!("{chat}User: Zqlast words"));
    label("Request 2,401 of 2,401");
    app.assert_no_errors();
}

/// Issue 9's latency benchmark (ignored; see its module doc).
#[path = "e2e/latency.rs"]
mod latency;

/// Picking Claude (a family read from its installed file, approximate) in
/// the preview's model picker recounts the entry list, the editor and the
/// budget with "≈"; the choice is there again in the next run. Skipped
/// when `scripts/fetch-tokenizers.sh` has not installed the files.
#[test]
fn a_non_openai_model_recounts_everything_and_is_kept_for_the_next_run() {
    // An installed app brings its own tokenizers.
    if std::env::var_os("LOREBOOK_E2E_APP").is_none()
        && !Path::new(ROOT)
            .join("resources/tokenizers/claude.json.gz")
            .is_file()
    {
        eprintln!("skipped: resources/tokenizers is not installed (scripts/fetch-tokenizers.sh)");
        return;
    }
    let _serial = serial();
    let mut driver = Driver::start();
    let counts = |app: &Session<'_>| -> Result<(Vec<String>, String, String), String> {
        let rows = app.row_tokens()?;
        let editor = app.text(&app.find(&tid("tokens"))?)?;
        let budget = app.text(&app.find(&tid("budget-label"))?)?;
        Ok((rows, editor, budget))
    };
    {
        let app = driver.launch(&[]);
        app.wait_ready();
        app.select_entry(1, "The Lighthouse");
        let before = wait_until("the counts under gpt-4o", TIMEOUT, || {
            let c = counts(&app)?;
            if c.0.is_empty() || c.0.iter().any(|r| r.contains('≈')) || c.2.contains('≈') {
                Err(format!("{c:?}"))
            } else {
                Ok(c)
            }
        });
        let picker = app.wait_for(&tid("model"));
        app.run(picker.select_by_value("claude"))
            .expect("pick claude");
        wait_until(
            "every count recounted by Claude's tokenizer, with ≈",
            TIMEOUT,
            || {
                let now = counts(&app)?;
                let marked = now.0.iter().all(|r| r.starts_with('≈'))
                    && now.1.starts_with('≈')
                    && now.1.contains("claude")
                    && now.2.starts_with('≈');
                let strip = |rows: &[String]| -> Vec<String> {
                    rows.iter()
                        .map(|r| r.trim_start_matches('≈').to_string())
                        .collect()
                };
                if marked && strip(&now.0) != before.0 && now.0.len() == before.0.len() {
                    Ok(())
                } else {
                    Err(format!("before {before:?}\n  now {now:?}"))
                }
            },
        );
        app.assert_no_errors();
        app.quit();
    }
    let app = driver.launch(&[]);
    app.wait_ready();
    wait_until("claude still picked in the next run", TIMEOUT, || {
        let value = app.value(&tid("model"))?;
        let rows = counts(&app)?.0;
        if value == "claude" && !rows.is_empty() && rows.iter().all(|r| r.starts_with('≈')) {
            Ok(())
        } else {
            Err(format!("picker {value:?}, rows {rows:?}"))
        }
    });
    app.assert_no_errors();
}

/// Runs xdotool with `args` on `display`: its output, or why it failed.
fn xdotool(display: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(tool("xdotool"))
        .args(args)
        .env("DISPLAY", display)
        .output()
        .map_err(|e| format!("xdotool: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(format!(
            "xdotool {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Waits for the visible window whose title matches `title` (an xdotool
/// regex) on `display`: its id.
fn wait_for_window(display: &str, title: &str) -> String {
    wait_until("the native file dialog to show", TIMEOUT, || {
        let found = xdotool(display, &["search", "--onlyvisible", "--name", title])?;
        found
            .lines()
            .next()
            .map(str::to_string)
            .ok_or_else(|| "no such window yet".to_string())
    })
}

/// Answers the native file dialog whose title matches `title` (an xdotool
/// regex) on the driver's `display`: waits for it to show, gives it the
/// keyboard focus, types `path` (a leading `/` opens GTK's location field)
/// and presses Enter, as a person would.
fn answer_file_dialog(display: &str, title: &str, path: &Path) {
    let run = |args: &[&str]| xdotool(display, args);
    let window = wait_for_window(display, title);
    // The dialog takes a moment to draw its widgets after it maps, and a
    // keystroke before then is lost: type again until the dialog closes.
    let path = path.to_str().expect("a UTF-8 path");
    for attempt in 1..=5 {
        std::thread::sleep(Duration::from_millis(400 * attempt));
        let open = |id: &str| {
            run(&["search", "--onlyvisible", "--name", title])
                .is_ok_and(|found| found.lines().any(|l| l == id))
        };
        if !open(&window) {
            return;
        }
        run(&["windowfocus", "--sync", &window]).expect("focus the dialog");
        // Ctrl+L opens GTK's location field (or selects what it holds).
        run(&["key", "--clearmodifiers", "ctrl+l"]).expect("press Ctrl+L");
        run(&["type", "--delay", "15", path]).expect("type the path");
        std::thread::sleep(Duration::from_millis(200));
        run(&["key", "Return"]).expect("press Enter");
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline && open(&window) {
            std::thread::sleep(Duration::from_millis(100));
        }
        if !open(&window) {
            return;
        }
    }
    panic!("the native file dialog did not take the path {path}");
}

/// Accepts the native file dialog whose title matches `title` as it
/// stands, pressing Enter as a person who takes the proposed name would;
/// a question to replace a file that is there is answered Enter too
/// (GTK's default there is Replace).
fn accept_file_dialog(display: &str, title: &str) {
    let run = |args: &[&str]| xdotool(display, args);
    let window = wait_for_window(display, title);
    let open = || {
        run(&["search", "--onlyvisible", "--name", title])
            .is_ok_and(|found| found.lines().any(|l| l == window))
    };
    for attempt in 1..=6 {
        std::thread::sleep(Duration::from_millis(400 * attempt));
        if !open() {
            return;
        }
        if attempt == 1 {
            let _ = run(&["windowfocus", "--sync", &window]);
        }
        run(&["key", "--clearmodifiers", "Return"]).expect("press Enter");
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline && open() {
            std::thread::sleep(Duration::from_millis(100));
        }
        if !open() {
            return;
        }
        // A question to replace the file: Enter answers it (Replace).
        let _ = run(&["key", "--clearmodifiers", "Return"]);
    }
    panic!("the native file dialog was not accepted");
}

/// "Custom file…" in the model picker opens the native dialog; the file
/// chosen there counts every entry, one token per word with the
/// word-level tokenizer written here, and is kept for the next run.
#[test]
fn a_tokenizer_file_chosen_in_the_native_dialog_counts() {
    let _serial = serial();
    let dir = TempDir::new("tokfile");
    let file = dir.path().join("words.tokenizer.json");
    std::fs::write(
        &file,
        r#"{"version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
            "normalizer": null, "pre_tokenizer": {"type": "Whitespace"},
            "post_processor": null, "decoder": null,
            "model": {"type": "WordLevel", "vocab": {"[UNK]": 0}, "unk_token": "[UNK]"}}"#,
    )
    .unwrap();
    let mut driver = Driver::start();
    let display = driver.display.clone();
    let rows = |app: &Session<'_>| -> Result<Vec<String>, String> { Ok(app.row_tokens()?) };
    {
        let app = driver.launch(&[]);
        app.wait_ready();
        app.select_entry(1, "The Lighthouse");
        let before = wait_until("the counts under gpt-4o", TIMEOUT, || {
            let r = rows(&app)?;
            if r.is_empty() || r.iter().any(|t| t.contains('…')) {
                Err(format!("{r:?}"))
            } else {
                Ok(r)
            }
        });
        let content = app.value(&tid("content")).expect("the entry's content");
        let picker = app.wait_for(&tid("model"));
        app.run(picker.select_by_value(":custom-file"))
            .expect("choose Custom file…");
        answer_file_dialog(&display, "tokeni[sz]", &file);
        wait_until("the picked file to count", TIMEOUT, || {
            let value = app.value(&tid("model"))?;
            let now = rows(&app)?;
            let editor = app.text(&app.find(&tid("tokens"))?)?;
            if value == ":file-in-use" && now.len() == before.len() && now != before {
                Ok((now, editor))
            } else {
                Err(format!(
                    "picker {value:?}, rows {now:?} (before {before:?}), editor {editor:?}"
                ))
            }
        });
        // The picker names the file, and nothing is approximate.
        let shown = app
            .text(
                &app.find(&format!("{} option[value=':file-in-use']", tid("model")))
                    .unwrap(),
            )
            .unwrap();
        assert_eq!(shown, "words.tokenizer.json");
        assert!(rows(&app).unwrap().iter().all(|r| !r.contains('≈')));
        // The entry shown is counted by the file: words and punctuation
        // runs, the Whitespace pre-tokenizer's pieces.
        let body = content
            .lines()
            .filter(|l| !l.trim_start().starts_with("@@"))
            .collect::<Vec<_>>()
            .join("\n");
        let pieces = body
            .split_whitespace()
            .map(|w| {
                let mut n = 0;
                let mut last: Option<bool> = None;
                for c in w.chars() {
                    let word = c.is_alphanumeric() || c == '_';
                    if last != Some(word) {
                        n += 1;
                    }
                    last = Some(word);
                }
                n
            })
            .sum::<usize>();
        let editor = app.text(&app.find(&tid("tokens")).unwrap()).unwrap();
        let shown: String = editor
            .chars()
            .skip_while(|c| !c.is_ascii_digit())
            .take_while(|c| c.is_ascii_digit() || *c == ',' || *c == '.')
            .filter(char::is_ascii_digit)
            .collect();
        assert_eq!(
            shown,
            pieces.to_string(),
            "editor shows {editor:?}; the file counts {pieces} pieces in {body:?}"
        );
        app.assert_no_errors();
        app.quit();
    }
    let app = driver.launch(&[]);
    app.wait_ready();
    wait_until("the file still counting in the next run", TIMEOUT, || {
        let value = app.value(&tid("model"))?;
        if value == ":file-in-use" {
            Ok(())
        } else {
            Err(format!("picker {value:?}"))
        }
    });
    app.assert_no_errors();
}

/// Issue 8: a panic in a command never lets the window close without the
/// unsaved-changes prompt. The fault hook (`LOREBOOK_FAULT`, the test hook
/// of `src-tauri/src/fault.rs`) makes Save panic after its body ran: the
/// file is written and the book marked saved, then the command panics
/// while holding the workspace. The UI reports the error; once it has
/// refreshed, every tab reads clean. The window manager's close request
/// must still bring the prompt, because a workspace that panicked counts
/// as unsaved; cancelling keeps the window and the books.
#[test]
fn a_panicking_command_still_asks_before_the_window_closes() {
    let _serial = serial();
    let files = TempDir::new("fault");
    let book = files.path().join("book.json");
    std::fs::copy(Path::new(ROOT).join("samples/saltmere.json"), &book).expect("copy the sample");
    let path = book.to_str().expect("utf-8 temp path");
    let changed = "The Lighthouse (saved, then Save panicked)";

    let mut driver = Driver::start_with_env(&[("LOREBOOK_FAULT", "panic-after:save")]);
    let display = driver.display.clone();
    let app = driver.launch(&[path]);
    app.wait_ready();
    app.select_entry(1, "The Lighthouse");
    app.type_into(&tid("comment"), changed);
    app.wait_for(&tid("dirty"));
    app.click(&tid("save"));
    let banner = app.wait_for(&tid("errors"));
    let reported = app.text(&banner).expect("the error banner's text");
    assert!(
        reported.contains("internal error in save"),
        "the panic is reported: {reported:?}"
    );
    // The save's body ran before the injected panic.
    wait_until("the edit in the saved file", TIMEOUT, || {
        let text = std::fs::read_to_string(&book).map_err(|e| e.to_string())?;
        if text.contains(changed) {
            Ok(())
        } else {
            Err("the file lacks the edit".into())
        }
    });
    // A new book makes the UI read every book's state again: both tabs
    // now read clean, so the UI's own marks no longer ask for it.
    app.click(&tid("new-book"));
    wait_until("two tabs, none marked unsaved", TIMEOUT, || {
        let tabs = app.find_all(&tid("book-tab"))?.len();
        let dirty = app.find_all(&tid("dirty"))?.len();
        if tabs == 2 && dirty == 0 {
            Ok(())
        } else {
            Err(format!("{tabs} tabs, {dirty} marked unsaved"))
        }
    });

    assert_eq!(
        request_window_close(&display),
        1,
        "one window asked to close"
    );
    let dialog = app.wait_for(&tid("confirm"));
    let text = app.text(&dialog).expect("the prompt's text");
    assert!(
        // The title is shown in capitals (CSS); its text is as written.
        text.to_lowercase().contains("unsaved changes")
            && text.contains("could not check for unsaved changes"),
        "the unsaved-changes prompt, answered by the panicked workspace: {text:?}"
    );
    app.click(&tid("confirm-cancel"));
    wait_until(
        "the prompt to close and the window to stay",
        TIMEOUT,
        || {
            if app.find_all(&tid("confirm"))?.is_empty()
                && !app.find_all(&tid("book-tab"))?.is_empty()
            {
                Ok(())
            } else {
                Err("the prompt is still open, or the window is gone".into())
            }
        },
    );
    // Asked again, it asks again: cancelling changed nothing.
    assert_eq!(request_window_close(&display), 1);
    app.wait_for(&tid("confirm"));
}

/// Import… opens the native dialog (answered with xdotool); the foreign
/// file waits in the import confirmation, which passes axe-core, and once
/// confirmed is a new book named after the file, unsaved and bound to no
/// path (the source is never overwritten by a later save).
#[test]
fn an_import_chosen_in_the_native_dialog_is_confirmed_as_a_new_unsaved_book() {
    let _serial = serial();
    let dir = TempDir::new("import-dialog");
    let file = dir.path().join("Harbor_World.json");
    let source = r#"{"entries": {"0": {"uid": 0, "key": ["harbor"], "keysecondary": [],
        "comment": "The harbor", "content": "The harbor of Saltmere.", "selective": true,
        "constant": false, "order": 100, "position": 0, "disable": false}}}"#;
    std::fs::write(&file, source).unwrap();
    let mut driver = Driver::start();
    let display = driver.display.clone();
    let app = driver.launch(&[]);
    app.wait_ready();
    let tabs_before = app.find_all(&tid("book-tab")).expect("tabs").len();
    app.click(&tid("import"));
    answer_file_dialog(&display, "Import lorebook|Importar livro", &file);
    app.wait_for(&tid("import-confirm"));
    assert_accessible(&app, "the import confirmation");
    app.click(&tid("import-confirm"));
    wait_until("the imported book in a tab of its own", TIMEOUT, || {
        let tabs = app.find_all(&tid("book-tab"))?;
        let mut names = Vec::new();
        for t in &tabs {
            names.push(app.text(t)?);
        }
        let new = names.iter().find(|n| n.contains("Harbor_World"));
        match new {
            Some(name) if tabs.len() == tabs_before + 1 && name.contains('●') => Ok(()),
            _ => Err(format!("tabs {names:?}")),
        }
    });
    app.select_entry(0, "The harbor");
    app.assert_no_errors();
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        source,
        "the source untouched"
    );
}

/// Issue 17: closing a tab read the book's dirty flag while the edit just
/// typed was still on its way to Rust, so the tab closed without asking and
/// the edit was lost. With every entry edit held back by the fault hook
/// (`delay:update_entry`, 1.5 s), the close waits for the edit and asks.
#[test]
fn closing_a_tab_while_an_edit_is_in_flight_asks_first() {
    let _serial = serial();
    let mut driver = Driver::start_with_env(&[("LOREBOOK_FAULT", "delay:update_entry")]);
    let app = driver.launch(&[]);
    app.wait_ready();
    app.select_entry(1, "The Lighthouse");
    app.type_into(&tid("comment"), "The Lighthouse, typed just before closing");
    // At once, while the edit is held in Rust.
    app.click(&tid("tab-close"));
    let confirm = app.wait_for(&tid("confirm"));
    let text = app.text(&confirm).expect("the question's text");
    assert!(text.contains("unsaved"), "{text:?}");
    app.click(&tid("confirm-cancel"));
    wait_until("the book still open, marked unsaved", TIMEOUT, || {
        let tabs = app.find_all(&tid("book-tab"))?.len();
        let dirty = app.find_all(&tid("dirty"))?.len();
        if tabs == 1 && dirty == 1 {
            Ok(())
        } else {
            Err(format!("{tabs} tabs, {dirty} marked unsaved"))
        }
    });
    app.assert_no_errors();
}

/// A book with planted problems (issue 20): entry 1 has secondary keys but
/// is not selective (a warning with a quick fix), entry 3 a regex key that
/// does not compile (an error); entry 2 is clean.
const PLANTED_BOOK: &str = r#"{"spec": "lorebook_v3", "data": {"name": "Planted", "scan_depth": 4,
  "token_budget": 400, "recursive_scanning": false, "extensions": {}, "entries": [
  {"id": 1, "keys": ["dragon"], "secondary_keys": ["wyrm"], "selective": false, "constant": false,
   "enabled": true, "insertion_order": 100, "comment": "Dragon", "content": "A red dragon sleeps under the hill.",
   "extensions": {}},
  {"id": 2, "keys": ["harbour"], "secondary_keys": [], "selective": false, "constant": false,
   "enabled": true, "insertion_order": 100, "comment": "Harbour", "content": "The harbour is cold.",
   "extensions": {}},
  {"id": 3, "keys": ["/(unclosed/"], "secondary_keys": [], "selective": false, "constant": false,
   "enabled": true, "insertion_order": 100, "comment": "Broken", "content": "Never seen.",
   "extensions": {}}
]}}"#;

/// The problems listed in the panel, as `(entry id, code, severity)`.
fn listed_problems(app: &Session<'_>) -> Result<Vec<(u64, String, String)>, String> {
    let mut out = Vec::new();
    for el in app.find_all(&tid("problem"))? {
        let id = app.attr(&el, "data-id")?.unwrap_or_default();
        let code = app.attr(&el, "data-code")?.unwrap_or_default();
        let severity = app.attr(&el, "data-severity")?.unwrap_or_default();
        out.push((id.parse().unwrap_or(0), code, severity));
    }
    Ok(out)
}

/// The severity on entry `id`'s row badge, if it has one.
fn row_badge(app: &Session<'_>, id: u64) -> Result<Option<String>, String> {
    let css = format!(
        "{}[data-id=\"{id}\"] {}",
        tid("entry-row"),
        tid("diag-badge")
    );
    match app.find_all(&css)?.first() {
        Some(b) => Ok(app.attr(b, "data-severity")?),
        None => Ok(None),
    }
}

#[test]
fn planted_problems_show_in_the_panel_and_a_quick_fix_clears_the_badge() {
    let _serial = serial();
    let files = TempDir::new("planted");
    let book = files.path().join("planted.json");
    std::fs::write(&book, PLANTED_BOOK).expect("write the book");
    let mut driver = Driver::start();
    let app = driver.launch(&[book.to_str().expect("utf-8 temp path")]);
    app.wait_ready();

    app.click(&tid("problems-toggle"));
    let problems = wait_until("the planted problems in the panel", TIMEOUT, || {
        let listed = listed_problems(&app)?;
        let has = |id: u64, code: &str| listed.iter().any(|(i, c, _)| *i == id && c == code);
        if has(1, "secondary_unused") && has(3, "regex_invalid") {
            Ok(listed)
        } else {
            Err(format!("listed {listed:?}"))
        }
    });
    assert!(
        problems.iter().all(|(id, _, _)| *id != 2),
        "the clean entry has no problem: {problems:?}"
    );
    assert!(
        problems.iter().all(|(_, _, sev)| sev != "hint"),
        "hints are hidden until asked for: {problems:?}"
    );
    wait_until("the badges of the planted entries", TIMEOUT, || {
        let badges = (
            row_badge(&app, 1)?,
            row_badge(&app, 2)?,
            row_badge(&app, 3)?,
        );
        match &badges {
            (Some(w), None, Some(e)) if w == "warning" && e == "error" => Ok(()),
            _ => Err(format!("badges {badges:?}")),
        }
    });

    // A click shows the entry the problem is on.
    let show = format!(
        "{}[data-id=\"1\"][data-code=\"secondary_unused\"] {}",
        tid("problem"),
        tid("problem-show")
    );
    app.click(&show);
    wait_until("entry 1 in the editor", TIMEOUT, || {
        let now = app.value(&tid("comment"))?;
        if now == "Dragon" {
            Ok(())
        } else {
            Err(format!("comment field holds {now:?}"))
        }
    });

    // Its quick fix removes the secondary keys; the badge goes.
    let fix = format!(
        "{}[data-id=\"1\"][data-code=\"secondary_unused\"] {}",
        tid("problem"),
        tid("problem-fix")
    );
    app.click(&fix);
    wait_until("the fix applied and the badge gone", TIMEOUT, || {
        let listed = listed_problems(&app)?;
        let badge = row_badge(&app, 1)?;
        let keys = app.value(&tid("secondary-keys"))?;
        if badge.is_none()
            && keys.is_empty()
            && !listed
                .iter()
                .any(|(i, c, _)| *i == 1 && c == "secondary_unused")
        {
            Ok(())
        } else {
            Err(format!(
                "badge {badge:?}, secondary keys {keys:?}, listed {listed:?}"
            ))
        }
    });
    assert_eq!(
        row_badge(&app, 3).expect("badge of entry 3").as_deref(),
        Some("error")
    );

    // The fix is one undo step.
    app.click(&tid("undo"));
    wait_until("the problem back after undo", TIMEOUT, || {
        let listed = listed_problems(&app)?;
        let keys = app.value(&tid("secondary-keys"))?;
        if keys == "wyrm"
            && listed
                .iter()
                .any(|(i, c, _)| *i == 1 && c == "secondary_unused")
        {
            Ok(())
        } else {
            Err(format!("secondary keys {keys:?}, listed {listed:?}"))
        }
    });
    app.assert_no_errors();
}

#[test]
fn budget_advice_names_the_budget_that_keeps_every_entry() {
    let _serial = serial();
    let mut driver = Driver::start();
    let app = driver.launch(&[]);
    app.wait_ready();
    app.click(&tid("advice-ask"));
    let text = wait_until("the budget advice", TIMEOUT, || {
        let el = app.find(&tid("advice-budget"))?;
        let text = app.text(&el)?;
        if text.starts_with("A budget of ") || text.starts_with("The budget of ") {
            Ok(text)
        } else {
            Err(format!("advice {text:?}"))
        }
    });
    // The sample's 200 tokens cut some of its lore in the bundled chat: the
    // advice names a larger budget, and how many entries were cut.
    let n: u32 = text
        .trim_start_matches("A budget of ")
        .split(' ')
        .next()
        .and_then(|n| n.replace(',', "").parse().ok())
        .unwrap_or_else(|| panic!("no budget in {text:?}"));
    assert!(n > 200, "{text}");
    assert!(text.contains("(now 200)"), "{text}");
    let cut = app
        .find(&tid("advice-cut"))
        .expect("the entries the budget cut");
    assert!(app
        .text(&cut)
        .expect("cut text")
        .contains("cut by the budget"));
    // The request log names them, in the requests where they were cut.
    app.open_details(&tid("log-panel"));
    wait_until("the cut entries in the request log", TIMEOUT, || {
        let rows = app.find_all(&tid("log-cut"))?;
        let first = rows.first().ok_or("no request shows a cut entry")?;
        let text = app.text(first)?;
        if text.starts_with("cut by the budget: ") {
            Ok(())
        } else {
            Err(format!("log row {text:?}"))
        }
    });
    app.assert_no_errors();
}

#[path = "e2e/nothing_lost.rs"]
mod nothing_lost;

#[path = "e2e/risu.rs"]
mod risu;

#[path = "e2e/scenarios.rs"]
mod scenarios;

#[path = "e2e/package.rs"]
mod package;

#[path = "e2e/figures.rs"]
mod figures;

#[path = "e2e/folders.rs"]
mod folders;

#[path = "e2e/preview_ids.rs"]
mod preview_ids;

#[path = "e2e/tabs.rs"]
mod tabs;

#[path = "e2e/save_as.rs"]
mod save_as;

#[path = "e2e/help.rs"]
mod help;

#[path = "e2e/lint_badges.rs"]
mod lint_badges;

#[path = "e2e/st_macros.rs"]
mod st_macros;

#[path = "e2e/ai.rs"]
mod ai;
#[path = "e2e/st_server.rs"]
mod st_server;
