//! A relay on 127.0.0.1 in front of a real server, for the faults a real
//! server cannot be made to show on cue: the connection cut in the middle
//! of one request, or its answer lost after the server acted on it (a
//! server stopped or restarting mid-save, as the client sees it).
//!
//! Each connection carries one request (the relay asks the server to close
//! after answering); everything else passes through byte for byte.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// What the relay does to a request for [`Fault::path`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cut {
    /// Sends the head and half the body on, then closes both sides: the
    /// server never gets the whole request.
    MidRequest,
    /// Sends the whole request on and waits for the server's answer, then
    /// closes the client's side without it: the server acted, the client
    /// never hears.
    Answer,
}

/// A fault for the next request whose path is `path` (once).
#[derive(Debug, Clone)]
pub struct Fault {
    pub path: String,
    pub cut: Cut,
}

/// The relay; it listens until the test process ends.
pub struct Relay {
    url: String,
    fault: Arc<Mutex<Option<Fault>>>,
    faulted: Arc<Mutex<Vec<String>>>,
}

impl Relay {
    /// A relay to `upstream` (`host:port`).
    pub fn start(upstream: &str) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the relay");
        let url = format!("http://{}", listener.local_addr().expect("its address"));
        let fault: Arc<Mutex<Option<Fault>>> = Arc::default();
        let faulted: Arc<Mutex<Vec<String>>> = Arc::default();
        let upstream = upstream.to_string();
        let (f, done) = (fault.clone(), faulted.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let (f, done, upstream) = (f.clone(), done.clone(), upstream.clone());
                std::thread::spawn(move || {
                    let _ = relay_one(client, &upstream, &f, &done);
                });
            }
        });
        Relay {
            url,
            fault,
            faulted,
        }
    }

    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// Arms a fault for the next request to `path`.
    pub fn arm(&self, path: &str, cut: Cut) {
        *self.fault.lock().unwrap() = Some(Fault {
            path: path.into(),
            cut,
        });
    }

    /// The paths faulted so far (a test checks its fault happened).
    pub fn faulted(&self) -> Vec<String> {
        self.faulted.lock().unwrap().clone()
    }
}

fn relay_one(
    client: TcpStream,
    upstream: &str,
    fault: &Mutex<Option<Fault>>,
    faulted: &Mutex<Vec<String>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(client.try_clone()?);
    let mut head = Vec::new();
    let mut length = 0usize;
    let mut path = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        if head.is_empty() {
            path = line.split_whitespace().nth(1).unwrap_or("").to_string();
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("connection:") {
            continue;
        }
        if line == "\r\n" {
            head.extend_from_slice(b"Connection: close\r\n\r\n");
            break;
        }
        head.extend_from_slice(line.as_bytes());
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let cut = {
        let mut armed = fault.lock().unwrap();
        match armed.as_ref() {
            Some(f) if f.path == path => armed.take().map(|f| f.cut),
            _ => None,
        }
    };
    if cut.is_some() {
        faulted.lock().unwrap().push(path.clone());
    }
    let mut server = TcpStream::connect(upstream)?;
    server.write_all(&head)?;
    if cut == Some(Cut::MidRequest) {
        server.write_all(&body[..body.len() / 2])?;
        server.flush()?;
        let _ = server.shutdown(Shutdown::Both);
        let _ = client.shutdown(Shutdown::Both);
        return Ok(());
    }
    server.write_all(&body)?;
    let mut answer = Vec::new();
    server.read_to_end(&mut answer)?;
    if cut == Some(Cut::Answer) {
        let _ = client.shutdown(Shutdown::Both);
        return Ok(());
    }
    let mut client = client;
    client.write_all(&answer)?;
    client.flush()?;
    let _ = client.shutdown(Shutdown::Write);
    Ok(())
}
