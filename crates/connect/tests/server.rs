//! The client against a real SillyTavern 1.19.0 (installed from npm once,
//! started here on 127.0.0.1 in each auth mode, CSRF on), and against
//! things that are not SillyTavern.

use lorebook_connect::{Address, AuthMode, Error, Ledger, Login, Secret, Server};
use lorebook_test_support::sillytavern::{StAuth, StServer, ST_PASSWORD, ST_USER};
use serde_json::json;

fn login(password: &str) -> Option<Login> {
    Some(Login {
        user: ST_USER.into(),
        password: Secret::new(password),
    })
}

#[test]
fn connects_in_each_auth_mode_and_lists_books() {
    for auth in [StAuth::Open, StAuth::Basic, StAuth::Account] {
        let st = StServer::start(auth);
        let address = Address::parse(&st.url()).unwrap();
        let creds = if auth == StAuth::Open {
            None
        } else {
            login(ST_PASSWORD)
        };
        let server = Server::connect(&address, creds)
            .unwrap_or_else(|e| panic!("{auth:?}: {e}\n{}", st.log_tail()));
        let expected = match auth {
            StAuth::Open => AuthMode::Open,
            StAuth::Basic => AuthMode::Basic,
            StAuth::Account => AuthMode::Account,
        };
        assert_eq!(server.mode(), expected);
        st.write_book_file(
            "Lore",
            r#"{"entries":{"0":{"uid":0,"key":["harbor"],"content":"x"}}}"#,
        );
        let books = server.books().unwrap();
        assert!(
            books.iter().any(|b| b.file_id == "Lore"),
            "{auth:?}: {books:?}"
        );
        if auth != StAuth::Open {
            let e = Server::connect(&address, None).unwrap_err();
            assert!(matches!(e, Error::NeedsLogin { .. }), "{auth:?}: {e}");
            let e = Server::connect(&address, login("wrong")).unwrap_err();
            assert!(matches!(e, Error::WrongPassword { .. }), "{auth:?}: {e}");
            assert!(
                !e.to_string().contains("wrong\""),
                "the password is never said: {e}"
            );
        }
    }
}

#[test]
fn push_checks_the_servers_copy_and_reads_it_back() {
    let st = StServer::start(StAuth::Open);
    let server = Server::connect(&Address::parse(&st.url()).unwrap(), None).unwrap();
    let dir = std::env::temp_dir().join(format!("lorebook-connect-ledger-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut ledger = Ledger::open(&dir.join("ledger.json")).unwrap();
    let book = json!({"entries": {"0": {"uid": 0, "key": ["a"], "content": "one", "unknownField": [1, 2.5]}}});
    let pushed = lorebook_connect::push(&server, &mut ledger, "New", &book, false).unwrap();
    assert!(pushed.created);
    let pulled = lorebook_connect::pull(&server, &mut ledger, "New").unwrap();
    assert!(lorebook_connect::same_json(&pulled, &book));
    // Another client edits it on the server: the next push is refused.
    st.write_book_file(
        "New",
        r#"{"entries":{"0":{"uid":0,"key":["a"],"content":"theirs"}}}"#,
    );
    let e = lorebook_connect::push(&server, &mut ledger, "New", &book, false).unwrap_err();
    assert!(
        matches!(e, Error::Changed(lorebook_connect::Changed::Edited { .. })),
        "{e}"
    );
    assert!(
        st.book_file("New").unwrap().contains("theirs"),
        "nothing written"
    );
    lorebook_connect::push(&server, &mut ledger, "New", &book, true).unwrap();
    assert!(st.book_file("New").unwrap().contains("\"one\""));
    // A name that differs only in case is the server's book: checked
    // against its record and written under its spelling, so a
    // case-sensitive disk gets no second book beside it.
    let other = json!({"entries": {"0": {"uid": 0, "key": ["a"], "content": "three"}}});
    let pushed = lorebook_connect::push(&server, &mut ledger, "new", &other, false).unwrap();
    assert_eq!(pushed.name, "New");
    assert!(!pushed.created);
    assert!(st.book_file("new").is_none(), "no second book");
    assert!(st.book_file("New").unwrap().contains("three"));
    // A book the server has that this machine never pulled.
    st.write_book_file("Theirs", r#"{"entries":{}}"#);
    let e = lorebook_connect::push(&server, &mut ledger, "Theirs", &book, false).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Changed(lorebook_connect::Changed::NeverPulled { .. })
        ),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A write without the session's CSRF token, as any page in the author's
/// browser could send: raw HTTP, no client of ours.
fn post_without_token(url: &str, path: &str) -> u16 {
    use std::io::{Read, Write};
    let host = url.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(host).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}"
    )
    .unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

#[test]
fn an_expired_session_or_token_is_renewed_once() {
    for auth in [StAuth::Open, StAuth::Basic, StAuth::Account] {
        let st = StServer::start(auth);
        // The server checks the token: a write without one is refused.
        if auth == StAuth::Open {
            assert_eq!(post_without_token(&st.url(), "/api/worldinfo/list"), 403);
        }
        let creds = if auth == StAuth::Open {
            None
        } else {
            login(ST_PASSWORD)
        };
        let server = Server::connect(&Address::parse(&st.url()).unwrap(), creds).unwrap();
        // The session kept, its token no longer the server's: refused, a
        // fresh token fetched, the request sent again.
        server.forge_token();
        assert!(server.books().is_ok(), "{auth:?}: {}", st.log_tail());
        // The session itself gone.
        server.expire_session();
        assert!(server.books().is_ok(), "{auth:?}: {}", st.log_tail());
    }
}

#[test]
fn a_server_stopped_mid_session_loses_nothing() {
    let mut st = StServer::start(StAuth::Open);
    let server = Server::connect(&Address::parse(&st.url()).unwrap(), None).unwrap();
    let dir = std::env::temp_dir().join(format!("lorebook-connect-stop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("ledger.json");
    let mut ledger = Ledger::open(&path).unwrap();
    let book = json!({"entries": {"0": {"uid": 0, "key": ["a"], "content": "one"}}});
    lorebook_connect::push(&server, &mut ledger, "Kept", &book, false).unwrap();
    let before = std::fs::read(&path).unwrap();
    st.stop();
    let changed = json!({"entries": {"0": {"uid": 0, "key": ["a"], "content": "two"}}});
    let e = lorebook_connect::push(&server, &mut ledger, "Kept", &changed, false).unwrap_err();
    assert!(matches!(e, Error::Unreachable { .. }), "{e}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the record is unchanged"
    );
    assert!(st.book_file("Kept").unwrap().contains("\"one\""));
    // Back up: the same session's push goes through (a fresh token on 403).
    st.restart();
    lorebook_connect::push(&server, &mut ledger, "Kept", &changed, false).unwrap();
    assert!(st.book_file("Kept").unwrap().contains("\"two\""));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_server_cut_off_mid_save_loses_nothing() {
    use lorebook_test_support::relay::{Cut, Relay};
    let st = StServer::start(StAuth::Open);
    let relay = Relay::start(st.url().trim_start_matches("http://"));
    let server = Server::connect(&Address::parse(&relay.url()).unwrap(), None).unwrap();
    let dir = std::env::temp_dir().join(format!("lorebook-connect-cut-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("ledger.json");
    let mut ledger = Ledger::open(&path).unwrap();
    let one = json!({"entries": {"0": {"uid": 0, "key": ["a"], "content": "one"}}});
    lorebook_connect::push(&server, &mut ledger, "Cut", &one, false).unwrap();
    let record = std::fs::read(&path).unwrap();
    // The connection dies halfway through the book: the server never has
    // the whole of it, keeps its copy, and the record stays.
    let two = json!({"entries": {"0": {"uid": 0, "key": ["a"], "content": "two ".repeat(5000)}}});
    relay.arm("/api/worldinfo/edit", Cut::MidRequest);
    let e = lorebook_connect::push(&server, &mut ledger, "Cut", &two, false).unwrap_err();
    assert_eq!(relay.faulted(), ["/api/worldinfo/edit"]);
    assert!(matches!(e, Error::Unreachable { .. }), "{e}");
    assert!(
        st.book_file("Cut").unwrap().contains("\"one\""),
        "the server's copy kept"
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        record,
        "the record is unchanged"
    );
    // The server writes, then its answer is lost: an error here, nothing
    // recorded; sending the same book again is no conflict (the server
    // already holds it) and goes through.
    relay.arm("/api/worldinfo/edit", Cut::Answer);
    assert!(lorebook_connect::push(&server, &mut ledger, "Cut", &two, false).is_err());
    assert_eq!(
        std::fs::read(&path).unwrap(),
        record,
        "the record is unchanged"
    );
    assert!(st.book_file("Cut").unwrap().contains("two two"));
    lorebook_connect::push(&server, &mut ledger, "Cut", &two, false).unwrap();
    // A different book after that lost answer would overwrite a copy this
    // machine never saw acknowledged: asked about.
    relay.arm("/api/worldinfo/edit", Cut::Answer);
    let three = json!({"entries": {"0": {"uid": 0, "key": ["a"], "content": "three"}}});
    assert!(lorebook_connect::push(&server, &mut ledger, "Cut", &three, false).is_err());
    let e = lorebook_connect::push(&server, &mut ledger, "Cut", &one, false).unwrap_err();
    assert!(matches!(e, Error::Changed(_)), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_book_the_server_refuses_is_said_and_nothing_is_recorded() {
    let url = fake::serve(|target| match target {
        "GET /csrf-token" => Some(fake::json("200 OK", r#"{"token":"t"}"#)),
        "POST /api/ping" => Some(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n".to_vec()),
        "POST /api/worldinfo/list" => Some(fake::json(
            "200 OK",
            r#"[{"file_id":"Full","name":"Full"}]"#,
        )),
        "POST /api/worldinfo/get" => Some(fake::json("200 OK", r#"{"entries":{}}"#)),
        "POST /api/worldinfo/edit" => Some(fake::json(
            "500 Internal Server Error",
            r#"{"error":"ENOSPC: no space left on device"}"#,
        )),
        _ => Some(fake::json("404 Not Found", "{}")),
    });
    let server = Server::connect(&Address::parse(&url).unwrap(), None).unwrap();
    let dir = std::env::temp_dir().join(format!("lorebook-connect-refused-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("ledger.json");
    let mut ledger = Ledger::open(&path).unwrap();
    lorebook_connect::pull(&server, &mut ledger, "Full").unwrap();
    let record = std::fs::read(&path).unwrap();
    let book = json!({"entries": {"0": {"uid": 0, "key": ["a"], "content": "one"}}});
    let e = lorebook_connect::push(&server, &mut ledger, "Full", &book, false).unwrap_err();
    match &e {
        Error::Refused {
            status, message, ..
        } => {
            assert_eq!(*status, 500);
            assert!(message.contains("no space left"), "{e}");
        }
        _ => panic!("{e}"),
    }
    assert!(e.to_string().contains("no space left"), "{e}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        record,
        "the record is unchanged"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

mod fake {
    //! Servers that are not SillyTavern, or misbehave.
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;

    /// Serves `answer(method_and_path)` → raw response bytes, forever.
    pub fn serve(answer: impl Fn(&str) -> Option<Vec<u8>> + Send + 'static) -> String {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", l.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in l.incoming() {
                let Ok(mut s) = stream else { continue };
                let mut r = BufReader::new(s.try_clone().unwrap());
                let mut first = String::new();
                let _ = r.read_line(&mut first);
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; len];
                let _ = r.read_exact(&mut body);
                let target: String = first
                    .split_whitespace()
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(" ");
                match answer(&target) {
                    Some(bytes) => {
                        let _ = s.write_all(&bytes);
                    }
                    // Stall: hold the connection open, answer nothing.
                    None => std::thread::sleep(std::time::Duration::from_secs(30)),
                }
            }
        });
        url
    }

    pub fn json(status: &str, body: &str) -> Vec<u8> {
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    }
}

#[test]
fn an_address_that_is_not_sillytavern_says_so() {
    let url = fake::serve(|_| Some(fake::json("200 OK", "<html>a router's page</html>")));
    let e = Server::connect(&Address::parse(&url).unwrap(), None).unwrap_err();
    assert!(matches!(e, Error::NotSillyTavern { .. }), "{e}");
    let url = fake::serve(|_| {
        Some(b"HTTP/1.1 302 Found\r\nLocation: http://elsewhere.example/\r\nContent-Length: 0\r\n\r\n".to_vec())
    });
    let e = Server::connect(&Address::parse(&url).unwrap(), login("pw")).unwrap_err();
    assert!(matches!(e, Error::Redirected { .. }), "{e}");
    // Nothing listening.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let e =
        Server::connect(&Address::parse(&format!("127.0.0.1:{port}")).unwrap(), None).unwrap_err();
    assert!(matches!(e, Error::Unreachable { .. }), "{e}");
}

#[test]
fn a_stalling_server_times_out_and_a_huge_answer_is_capped() {
    let url = fake::serve(|target| match target {
        "GET /csrf-token" => Some(fake::json("200 OK", r#"{"token":"t"}"#)),
        "POST /api/ping" => Some(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n".to_vec()),
        "POST /api/worldinfo/list" => {
            let mut head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 70000000\r\nConnection: close\r\n\r\n".to_vec();
            head.extend(std::iter::repeat_n(b' ', 70_000_000));
            Some(head)
        }
        _ => None,
    });
    let timeouts = lorebook_connect::Timeouts {
        connect: std::time::Duration::from_secs(2),
        request: std::time::Duration::from_secs(2),
    };
    let server = Server::connect_with(&Address::parse(&url).unwrap(), None, timeouts).unwrap();
    let e = server.books().unwrap_err();
    assert!(matches!(e, Error::TooLarge { .. }), "{e}");
    let e = server.settings().unwrap_err();
    assert!(matches!(e, Error::TimedOut { .. }), "{e}");
}
