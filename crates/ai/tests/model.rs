//! `lorebook-ai` against endpoints that misbehave and against a real one.
//!
//! The faults are served by a scripted HTTP server written here on
//! `std::net::TcpListener` (no library): each test says what it answers,
//! byte for byte, and when. The real endpoint is llama.cpp's server from
//! the PyPI package `llama-cpp-python[server]`, serving SmolLM2-135M
//! (`lorebook_test_support::model_server`): installed into the test cache
//! the first time, started on 127.0.0.1 by the test.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use lorebook_ai::run::{run, Options};
use lorebook_ai::{AiError, ApiKey, Endpoint, Merge, Request, Setup};
use lorebook_engine::model::{Book, Entry};
use lorebook_engine::profile::ProfileName;
use lorebook_test_support::scripted::{answer, chunk, sse_head, stream_text, Scripted};

fn endpoint_of(server: &Scripted, key: Option<&str>) -> Endpoint {
    Endpoint::new(&server.url(), "test-model", key.and_then(ApiKey::new)).unwrap()
}

fn book() -> Book {
    let mut b = Book::default();
    b.add_entry(Entry {
        comment: "Eldoria".into(),
        keys: vec!["Eldoria".into()],
        content: "Eldoria is a walled city of white stone.".into(),
        ..Entry::default()
    });
    b
}

const SOURCE: &str =
    "The caravan reached Vell Harbour at dusk, where the lighthouse keeper Maro waited.";

fn draft() -> Request {
    Request::Draft {
        source: SOURCE.into(),
        tokens: 120,
        max_entries: 5,
    }
}

fn setup() -> Setup {
    Setup {
        rules: ProfileName::Studio,
        settings: Default::default(),
        chat: None,
        source: Some(SOURCE.into()),
    }
}

fn options(endpoint: Endpoint) -> Options {
    let mut o = Options::new(endpoint);
    o.limits.idle = Duration::from_secs(2);
    o.limits.total = Duration::from_secs(20);
    o
}

fn go(o: &Options, req: &Request) -> Result<lorebook_ai::run::Outcome, lorebook_ai::run::Failure> {
    run(
        &book(),
        req,
        o,
        &setup(),
        &AtomicBool::new(false),
        &mut |_| {},
    )
}

const GOOD: &str = r#"{"entries": [{"name": "Vell Harbour", "keys": ["Vell Harbour"], "secondary_keys": [], "content": "A harbour town with a lighthouse."}, {"name": "Maro", "keys": ["Maro the keeper"], "secondary_keys": [], "content": "The lighthouse keeper."}, {"name": "Eldoria", "keys": ["Eldoria"], "secondary_keys": [], "content": "Eldoria is a walled city of white stone."}]}"#;

#[test]
fn a_good_answer_becomes_checked_suggestions_and_the_key_stays_in_its_header() {
    let server = Scripted::start(|_, _, s| stream_text(s, GOOD));
    let out = go(
        &options(endpoint_of(&server, Some("sk-secret-77"))),
        &draft(),
    )
    .unwrap();
    let seen = server.seen.lock().unwrap().join("\n");
    assert!(
        seen.contains("authorization: Bearer sk-secret-77")
            || seen.contains("Authorization: Bearer sk-secret-77"),
        "{seen}"
    );
    assert!(
        seen.contains("\"json_schema\""),
        "the first try asks for a JSON schema"
    );
    let transcript = serde_json::to_string(&out.exchanges).unwrap();
    assert!(
        !transcript.contains("sk-secret-77"),
        "the key is never in the transcript"
    );
    assert_eq!(out.exchanges.len(), 1);
    assert_eq!(out.exchanges[0].status, Some(200));
    let s = &out.suggestions;
    assert_eq!(s.len(), 3);
    // New, with keys that fire on the text it came from: passes.
    assert_eq!(s[0].suggestion.merge, Merge::New);
    assert_eq!(s[0].check.fires_on_source, Some(true));
    assert!(s[0].check.passed, "{:?}", s[0].check);
    // Keys that are not in the text: fails, and says why.
    assert_eq!(s[1].check.fires_on_source, Some(false));
    assert!(!s[1].check.passed);
    assert_eq!(s[1].check.failed, [lorebook_ai::Failed::NoFireOnSource]);
    // The entry already says this.
    assert_eq!(s[2].suggestion.merge, Merge::Same);
    assert_eq!(s[2].suggestion.target, Some(0));
    assert!(!s[2].check.passed);
}

#[test]
fn a_refused_schema_falls_back_to_json_object_then_to_text() {
    let server = Scripted::start(|n, req, s| {
        if n == 0 {
            assert!(req.contains("\"json_schema\""));
            let _ = s.write_all(&answer(
                "500 Internal Server Error",
                r#"{"error":{"message":"('body', 'response_format', 'type'): Input should be 'text' or 'json_object'"}}"#,
            ));
        } else if n == 1 {
            assert!(req.contains("\"json_object\"") && req.contains("\"schema\""));
            let _ = s.write_all(&answer(
                "400 Bad Request",
                r#"{"error":"response_format is not supported"}"#,
            ));
        } else {
            assert!(!req.contains("response_format"));
            stream_text(
                s,
                "Name: Vell Harbour\nKeys: Vell Harbour, harbour\nContent: A harbour town.\n",
            );
        }
    });
    let out = go(&options(endpoint_of(&server, None)), &draft()).unwrap();
    let formats: Vec<&str> = out.exchanges.iter().map(|e| e.format).collect();
    assert_eq!(formats, ["json_schema", "json_object", "text"]);
    assert!(out.exchanges[0]
        .error
        .as_deref()
        .unwrap()
        .contains("HTTP 500"));
    assert_eq!(out.suggestions.len(), 1);
    assert_eq!(
        out.suggestions[0].suggestion.entry.keys,
        ["Vell Harbour", "harbour"]
    );
}

#[test]
fn faults_are_named_and_change_nothing() {
    // Refused connection: a port nobody listens on.
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let e = Endpoint::new(&format!("127.0.0.1:{port}"), "m", None).unwrap();
    let f = go(&options(e), &draft()).unwrap_err();
    assert!(
        matches!(f.error, AiError::Unreachable { .. }),
        "{}",
        f.error
    );

    type Answer = Box<dyn Fn(&mut TcpStream) + Send + Sync>;
    let cases: Vec<(Answer, &str)> = vec![
        (
            Box::new(|s| {
                let _ = s.write_all(&answer("500 Internal Server Error", "model crashed"));
            }),
            "ai_refused",
        ),
        (
            Box::new(|s| {
                let _ = s.write_all(&answer(
                    "401 Unauthorized",
                    r#"{"error":{"message":"Invalid API Key"}}"#,
                ));
            }),
            "ai_wrong_key",
        ),
        (
            Box::new(|s| stream_text(s, "I am sorry, I cannot write entries.")),
            "ai_malformed",
        ),
        (
            Box::new(|s| stream_text(s, r#"{"entries": [{"name": "X", "keys": []}]}"#)),
            "ai_malformed",
        ),
        (
            Box::new(|s| {
                sse_head(s);
                let _ = s.write_all(chunk(r#"{"entries": [{"name": "#, Some("length")).as_bytes());
                let _ = s.write_all(b"data: [DONE]\n\n");
            }),
            "ai_truncated",
        ),
        (
            Box::new(|s| {
                // The stream closes before the model says it finished.
                sse_head(s);
                let _ = s.write_all(chunk(r#"{"entries": ["#, None).as_bytes());
            }),
            "ai_truncated",
        ),
        (
            Box::new(|s| {
                sse_head(s);
                let _ = s.write_all(b"data: {\"error\": {\"message\": \"out of memory\"}}\n\n");
            }),
            "ai_model_error",
        ),
        (
            Box::new(|s| {
                sse_head(s);
                let _ = s.write_all(b"data: {not json\n\n");
            }),
            "ai_malformed",
        ),
    ];
    for (i, (script, code)) in cases.into_iter().enumerate() {
        let server = Scripted::start(move |_, _, s| script(s));
        let f = go(&options(endpoint_of(&server, None)), &draft()).unwrap_err();
        assert_eq!(f.error.code(), code, "case {i}: {}", f.error);
        assert!(!f.exchanges.is_empty(), "case {i}: the transcript is kept");
    }
}

#[test]
fn a_stalled_stream_is_given_up_and_cancel_stops_at_once() {
    let server = Scripted::start(|_, _, s| {
        sse_head(s);
        let _ = s.write_all(chunk("{\"entries\": [", None).as_bytes());
        std::thread::sleep(Duration::from_secs(30));
    });
    let t = Instant::now();
    let f = go(&options(endpoint_of(&server, None)), &draft()).unwrap_err();
    assert!(
        matches!(f.error, AiError::Stalled { seconds: 2, .. }),
        "{}",
        f.error
    );
    assert!(t.elapsed() < Duration::from_secs(6), "{:?}", t.elapsed());

    // Cancel after the first piece arrived, mid-stream.
    let server = Scripted::start(|_, _, s| {
        sse_head(s);
        for _ in 0..100 {
            if s.write_all(chunk("x", None).as_bytes()).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    });
    let cancel = AtomicBool::new(false);
    let mut pieces = 0;
    let t = Instant::now();
    let f = run(
        &book(),
        &draft(),
        &options(endpoint_of(&server, None)),
        &setup(),
        &cancel,
        &mut |_| {
            pieces += 1;
            if pieces == 2 {
                cancel.store(true, Ordering::Relaxed);
            }
        },
    )
    .unwrap_err();
    assert_eq!(f.error, AiError::Cancelled);
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
}

#[test]
fn a_huge_answer_is_capped_and_a_large_prompt_is_refused_before_sending() {
    let server = Scripted::start(|_, _, s| {
        sse_head(s);
        let piece = chunk(&"y".repeat(8192), None);
        for _ in 0..1000 {
            if s.write_all(piece.as_bytes()).is_err() {
                return;
            }
        }
    });
    let mut o = options(endpoint_of(&server, None));
    o.limits.max_answer = 256 << 10;
    let f = go(&o, &draft()).unwrap_err();
    assert!(matches!(f.error, AiError::TooLarge { .. }), "{}", f.error);

    let server = Scripted::start(|_, _, s| stream_text(s, GOOD));
    let mut o = options(endpoint_of(&server, None));
    o.context = 300;
    o.answer_tokens = 200;
    let f = go(&o, &draft()).unwrap_err();
    match f.error {
        AiError::PromptTooLarge {
            tokens,
            answer: 200,
            context: 300,
        } => assert!(tokens > 100),
        other => panic!("{other}"),
    }
    assert!(f.error.to_string().contains("nothing was sent"));
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        server.count.load(Ordering::SeqCst),
        0,
        "nothing reached the server"
    );
}

#[test]
fn keys_and_shorten_answer_for_their_entry_and_a_locked_one_is_refused() {
    let server = Scripted::start(|_, req, s| {
        if req.contains("lorebook_keys") {
            stream_text(
                s,
                r#"{"keys": ["Eldoria", "white city", " eldoria "], "secondary_keys": []}"#,
            );
        } else {
            stream_text(s, r#"{"content": "A walled white city."}"#);
        }
    });
    let o = options(endpoint_of(&server, None));
    let setup = Setup {
        source: None,
        ..setup()
    };
    let keys = Request::Keys {
        entry: 0,
        chat: "User: we ride to the white city".into(),
    };
    let out = run(
        &book(),
        &keys,
        &o,
        &setup,
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap();
    let s = &out.suggestions[0];
    assert_eq!(s.suggestion.entry.keys, ["Eldoria", "white city"]);
    assert_eq!(
        (s.suggestion.merge, s.suggestion.target),
        (Merge::Changed, Some(0))
    );
    let short = Request::Shorten {
        entry: 0,
        tokens: 3,
    };
    let out = run(
        &book(),
        &short,
        &o,
        &setup,
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap();
    let c = &out.suggestions[0].check;
    assert!(
        c.tokens > 3 && !c.passed,
        "over the size asked for fails: {c:?}"
    );
    assert!(c
        .failed
        .iter()
        .any(|f| f.to_string().contains("over the 3 asked for")));

    let mut locked = book();
    locked.entries[0].set_locked(true);
    let before = server.count.load(Ordering::SeqCst);
    let f = run(
        &locked,
        &short,
        &o,
        &setup,
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(f.error.to_string().contains("locked"), "{}", f.error);
    assert_eq!(
        server.count.load(Ordering::SeqCst),
        before,
        "nothing was sent"
    );
    // A draft that names a locked entry is shown, never applied.
    let d = lorebook_ai::action::merge_draft(
        &locked,
        lorebook_ai::Draft {
            name: "eldoria".into(),
            keys: vec!["x".into()],
            secondary_keys: vec![],
            content: "new".into(),
        },
    );
    assert!(d.locked);
    let mut b = locked.clone();
    assert_eq!(lorebook_ai::action::apply(&mut b, &d), None);
    assert_eq!(b, locked);
}

mod real {
    use super::*;
    use lorebook_test_support::model_server::{ModelServer, MODEL_CONTEXT, MODEL_KEY, MODEL_NAME};

    fn endpoint(server: &ModelServer, key: &str) -> Endpoint {
        Endpoint::new(&server.url(), MODEL_NAME, ApiKey::new(key)).unwrap()
    }

    /// The whole path against llama.cpp's server and SmolLM2-135M: the
    /// schema form it takes, a streamed answer in that shape, each
    /// suggestion's check equal to the preview's own answer, and a wrong
    /// key refused. The model's prose is not judged.
    #[test]
    fn a_real_model_server_drafts_entries_that_the_preview_checks() {
        let server = ModelServer::start();
        let mut o = Options::new(endpoint(&server, MODEL_KEY));
        o.context = MODEL_CONTEXT;
        o.answer_tokens = 600;
        o.seed = Some(7);
        let mut streamed = String::new();
        let out = run(
            &book(),
            &draft(),
            &o,
            &setup(),
            &AtomicBool::new(false),
            &mut |p| streamed.push_str(p),
        )
        .unwrap_or_else(|f| panic!("{}: {:?}\n{}", f.error, f.exchanges, server.log_tail()));
        // llama-cpp-python refuses OpenAI's json_schema and takes its own form.
        let formats: Vec<&str> = out.exchanges.iter().map(|e| e.format).collect();
        assert_eq!(
            formats,
            ["json_schema", "json_object"],
            "{:?}",
            out.exchanges
        );
        assert!(!streamed.is_empty(), "the answer arrived as a stream");
        let v: serde_json::Value =
            serde_json::from_str(streamed.trim()).expect("the answer is the schema's JSON");
        assert!(v["entries"].is_array());
        assert!(!out.suggestions.is_empty(), "{streamed}");
        for s in &out.suggestions {
            // The check is the preview's own answer on the source text.
            let mut b = book();
            let id = lorebook_ai::action::apply(&mut b, &s.suggestion);
            if let Some(id) = id {
                let (mut p, m) = lorebook_engine::scenario::prepare(
                    &b,
                    ProfileName::Studio,
                    &Default::default(),
                    &serde_json::json!([{"role": "user", "content": SOURCE}]).to_string(),
                )
                .unwrap();
                let o = p.request(&m, 1);
                let fired = o.injected.iter().any(|x| x.id == id) || o.cut.contains(&(0, id));
                assert_eq!(s.check.fires_on_source, Some(fired), "{s:?}");
            }
        }
        let f = run(
            &book(),
            &draft(),
            &Options::new(endpoint(&server, "wrong")),
            &setup(),
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .unwrap_err();
        assert!(
            matches!(f.error, AiError::WrongKey { status: 401, .. }),
            "{}",
            f.error
        );
        // And the API key is in no transcript.
        assert!(!serde_json::to_string(&out.exchanges)
            .unwrap()
            .contains(MODEL_KEY));
    }
}
