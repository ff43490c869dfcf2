//! A scripted HTTP server for tests of clients that must survive a bad
//! endpoint: written on `std::net::TcpListener` (no library), each test
//! says what it answers, byte for byte, and when (a refusal, a stream that
//! stalls, one that never ends, one cut short). The helpers write an
//! OpenAI-style chat-completions stream.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// What the scripted server does with one request.
pub type Script = dyn Fn(usize, &str, &mut TcpStream) + Send + Sync;

/// A scripted server: `script(n, request, stream)` answers request `n`
/// (0, 1, …); every request's head and body are kept.
pub struct Scripted {
    pub port: u16,
    /// Every request, head and body.
    pub seen: Arc<Mutex<Vec<String>>>,
    /// How many connections came.
    pub count: Arc<AtomicUsize>,
}

impl Scripted {
    pub fn start(script: impl Fn(usize, &str, &mut TcpStream) + Send + Sync + 'static) -> Scripted {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let count = Arc::new(AtomicUsize::new(0));
        let script: Arc<Script> = Arc::new(script);
        {
            let seen = seen.clone();
            let count = count.clone();
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    let Ok(mut stream) = stream else { return };
                    let n = count.fetch_add(1, Ordering::SeqCst);
                    let seen = seen.clone();
                    let script = script.clone();
                    std::thread::spawn(move || {
                        let request = read_request(&mut stream);
                        seen.lock().unwrap().push(request.clone());
                        script(n, &request, &mut stream);
                    });
                }
            });
        }
        Scripted { port, seen, count }
    }

    /// The server's `/v1` address.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }
}

fn read_request(stream: &mut TcpStream) -> String {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut head = String::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        head.push_str(&line);
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    head + &String::from_utf8_lossy(&body)
}

pub fn sse_head(s: &mut TcpStream) {
    let _ = s.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n",
    );
}

pub fn chunk(text: &str, finish: Option<&str>) -> String {
    let finish = finish.map_or_else(|| "null".to_string(), json_string);
    format!(
        "data: {{\"choices\": [{{\"index\": 0, \"delta\": {{\"content\": {}}}, \"finish_reason\": {finish}}}]}}\n\n",
        json_string(text)
    )
}

/// `s` as a JSON string.
pub fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub fn answer(status: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

pub fn stream_text(s: &mut TcpStream, text: &str) {
    sse_head(s);
    let _ = s.write_all(chunk(text, None).as_bytes());
    let _ = s.write_all(chunk("", Some("stop")).as_bytes());
    let _ = s.write_all(b"data: [DONE]\n\n");
}
