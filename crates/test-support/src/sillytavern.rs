//! A real SillyTavern 1.19.0 for the tests that talk to one: installed from
//! the npm registry (`npm install sillytavern@1.19.0`) into a cache folder
//! the first time (later runs reuse it), and started on 127.0.0.1 on a free
//! port with a fresh data folder, in one of the three ways authors run it:
//! open, basic auth, user accounts. CSRF protection stays on.
//!
//! The cache is `$LOREBOOK_TEST_CACHE`, else `$XDG_CACHE_HOME/lorebook-studio-tests`,
//! else `~/.cache/lorebook-studio-tests`. Installing needs `npm` and `node`
//! (20 or later); without them the server tests panic saying so.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The version every server test runs.
pub const SILLYTAVERN_VERSION: &str = "1.19.0";

pub use crate::cache::TEST_CACHE_ENV_VAR;

/// The user and password of the servers that ask for one.
pub const ST_USER: &str = "author";
pub const ST_PASSWORD: &str = "correct horse";

/// How the server is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StAuth {
    /// No login (only this machine may connect).
    Open,
    /// `basicAuthMode` with [`ST_USER`] / [`ST_PASSWORD`].
    Basic,
    /// `enableUserAccounts` with an account [`ST_USER`] / [`ST_PASSWORD`].
    Account,
}

/// The installed server's folder (with `server.js`), installing it first
/// when missing. One process installs; the others wait for it.
pub fn sillytavern_install() -> PathBuf {
    let root = crate::cache::dir().join(format!("sillytavern-{SILLYTAVERN_VERSION}"));
    let server = root.join("node_modules/sillytavern");
    crate::cache::install_once(&root, "SillyTavern", || {
        std::fs::write(
            root.join("package.json"),
            "{\"name\": \"lorebook-studio-test-servers\", \"private\": true}\n",
        )
        .map_err(|e| e.to_string())?;
        eprintln!(
            "installing sillytavern@{SILLYTAVERN_VERSION} from npm into {} (once)",
            root.display()
        );
        let status = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
            .arg(format!("sillytavern@{SILLYTAVERN_VERSION}"))
            .current_dir(&root)
            .stdout(Stdio::null())
            .status()
            .map_err(|e| {
                format!("cannot run npm ({e}); the SillyTavern tests need node and npm")
            })?;
        if !status.success() || !server.join("server.js").is_file() {
            return Err(format!(
                "npm install sillytavern@{SILLYTAVERN_VERSION} failed ({status})"
            ));
        }
        Ok(())
    });
    server
}

pub(crate) fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("a free port on 127.0.0.1");
    l.local_addr().expect("a bound address").port()
}

/// A running SillyTavern; stopped (and its data removed) when dropped.
pub struct StServer {
    child: Option<Child>,
    pub port: u16,
    pub auth: StAuth,
    /// The temporary folder: `config.yaml`, `data/`, `server.log`.
    pub dir: PathBuf,
    install: PathBuf,
}

impl StServer {
    /// Installs (once) and starts a server run as `auth`.
    pub fn start(auth: StAuth) -> StServer {
        let install = sillytavern_install();
        // Named by a counter: two servers of one process never share it.
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("lorebook-st-{}-{n}-{:?}", std::process::id(), auth));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("data")).expect("a temporary folder");
        let mut server = StServer {
            child: None,
            port: free_port(),
            auth,
            dir,
            install,
        };
        server.write_config();
        server.spawn();
        if auth == StAuth::Account {
            server.make_account();
        }
        server
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The folder of the user's books (`data/<user>/worlds`).
    pub fn worlds(&self) -> PathBuf {
        let user = if self.auth == StAuth::Account {
            ST_USER
        } else {
            "default-user"
        };
        self.dir.join("data").join(user).join("worlds")
    }

    fn write_config(&self) {
        let (listen, basic, accounts) = match self.auth {
            StAuth::Open => (false, false, false),
            StAuth::Basic => (true, true, false),
            StAuth::Account => (false, false, true),
        };
        let config = format!(
            "listen: {listen}\nlistenAddress:\n  ipv4: 127.0.0.1\n  ipv6: \"[::1]\"\nprotocol:\n  ipv4: true\n  ipv6: false\n\
             port: {port}\nwhitelistMode: false\nbasicAuthMode: {basic}\nbasicAuthUser:\n  username: {ST_USER}\n  password: {ST_PASSWORD}\n\
             enableUserAccounts: {accounts}\nbrowserLaunch:\n  enabled: false\nheartbeatInterval: 0\n\
             logging:\n  enableAccessLog: false\n  minLogLevel: 0\nrateLimiting:\n  basicAuthMaxAttempts: 1000\n",
            port = self.port
        );
        std::fs::write(self.dir.join("config.yaml"), config).expect("config.yaml written");
    }

    fn spawn(&mut self) {
        let log = std::fs::File::create(self.dir.join("server.log")).expect("server.log");
        let child = Command::new("node")
            .arg("server.js")
            .arg("--port")
            .arg(self.port.to_string())
            .arg("--dataRoot")
            .arg(self.dir.join("data"))
            .arg("--configPath")
            .arg(self.dir.join("config.yaml"))
            .args(["--browserLaunchEnabled", "false"])
            .current_dir(&self.install)
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log handle"))
            .stderr(log)
            .spawn()
            .expect("node starts (the SillyTavern tests need node 20 or later)");
        self.child = Some(child);
        let start = Instant::now();
        loop {
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                let text = std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default();
                if text.contains("is listening") || text.contains("Go to:") {
                    return;
                }
            }
            if let Some(Some(status)) = self.child.as_mut().map(|c| c.try_wait().ok().flatten()) {
                panic!(
                    "SillyTavern exited ({status}) while starting: {}",
                    self.log_tail()
                );
            }
            assert!(
                start.elapsed() < Duration::from_secs(180),
                "SillyTavern did not start in 3 minutes: {}",
                self.log_tail()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The end of the server's log, for a failure message.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    /// Stops the server (as a crash or a restart would), keeping its data.
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts it again on the same port and data.
    pub fn restart(&mut self) {
        self.stop();
        self.spawn();
    }

    /// With user accounts: logs in as the password-less `default-user` (an
    /// admin on a fresh data folder) and creates [`ST_USER`] with
    /// [`ST_PASSWORD`] through the admin API.
    fn make_account(&self) {
        let mut cookies = String::new();
        let (_, body) = self.raw("GET", "/csrf-token", "", &mut cookies, None);
        let token = body
            .split("\"token\":\"")
            .nth(1)
            .and_then(|t| t.split('"').next())
            .expect("a CSRF token")
            .to_string();
        let (status, _) = self.raw(
            "POST",
            "/api/users/login",
            r#"{"handle":"default-user","password":""}"#,
            &mut cookies,
            Some(&token),
        );
        assert_eq!(status, 200, "log in as default-user: {}", self.log_tail());
        let create = format!(
            r#"{{"handle":"{ST_USER}","name":"Author","password":"{ST_PASSWORD}","admin":false}}"#
        );
        let (status, body) = self.raw(
            "POST",
            "/api/users/create",
            &create,
            &mut cookies,
            Some(&token),
        );
        assert_eq!(
            status,
            200,
            "create the account: {body} {}",
            self.log_tail()
        );
    }

    /// One request to the server's API as its own web page sends it
    /// (a session and its CSRF token), for setting a test up the way an
    /// author would in SillyTavern; open servers only.
    pub fn call(&self, path: &str, body: &str) -> (u16, String) {
        assert_eq!(self.auth, StAuth::Open, "call: open servers only");
        let mut cookies = String::new();
        let (_, answer) = self.raw("GET", "/csrf-token", "", &mut cookies, None);
        let token = answer
            .split("\"token\":\"")
            .nth(1)
            .and_then(|t| t.split('"').next())
            .expect("a CSRF token")
            .to_string();
        self.raw("POST", path, body, &mut cookies, Some(&token))
    }

    /// One plain HTTP/1.1 request (no compression), for setting up.
    fn raw(
        &self,
        method: &str,
        path: &str,
        body: &str,
        cookies: &mut String,
        token: Option<&str>,
    ) -> (u16, String) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(60))).ok();
        let mut req = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
            self.port,
            body.len()
        );
        if !cookies.is_empty() {
            req.push_str(&format!("Cookie: {cookies}\r\n"));
        }
        if let Some(t) = token {
            req.push_str(&format!("X-CSRF-Token: {t}\r\n"));
        }
        req.push_str("\r\n");
        req.push_str(body);
        s.write_all(req.as_bytes()).expect("send");
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        let text = String::from_utf8_lossy(&answer).to_string();
        let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let mut jar: Vec<String> = cookies
            .split("; ")
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect();
        for line in head.lines() {
            if let Some(v) = line
                .strip_prefix("Set-Cookie: ")
                .or_else(|| line.strip_prefix("set-cookie: "))
            {
                let pair = v.split(';').next().unwrap_or("").to_string();
                let name = pair.split('=').next().unwrap_or("").to_string();
                jar.retain(|c| c.split('=').next() != Some(name.as_str()));
                jar.push(pair);
            }
        }
        *cookies = jar.join("; ");
        (status, rest.to_string())
    }

    /// Writes a book straight into the server's data folder, as another
    /// client's save would leave it.
    pub fn write_book_file(&self, name: &str, json: &str) {
        let dir = self.worlds();
        std::fs::create_dir_all(&dir).expect("worlds folder");
        std::fs::write(dir.join(format!("{name}.json")), json).expect("book written");
    }

    /// The server's file of a book, if any.
    pub fn book_file(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.worlds().join(format!("{name}.json"))).ok()
    }
}

impl Drop for StServer {
    fn drop(&mut self) {
        self.stop();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}
