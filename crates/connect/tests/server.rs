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
    // A name that differs only in case is the same book on a
    // case-insensitive disk: treated as the server's, never pulled here.
    let e = lorebook_connect::push(&server, &mut ledger, "new", &book, false).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Changed(lorebook_connect::Changed::NeverPulled { .. })
        ),
        "{e}"
    );
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

#[test]
fn an_expired_session_is_renewed_once() {
    for auth in [StAuth::Open, StAuth::Account] {
        let st = StServer::start(auth);
        let creds = if auth == StAuth::Open {
            None
        } else {
            login(ST_PASSWORD)
        };
        let server = Server::connect(&Address::parse(&st.url()).unwrap(), creds).unwrap();
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
