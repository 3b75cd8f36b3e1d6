//! The openai and replay backends against real HTTP servers on loopback: wiremock
//! speaking chat-completions, plus raw TCP servers for broken transports.
//!
//! Timeouts and backoffs are tiny so the suite runs in seconds.

mod llm_support;

use llm_support::*;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use synth::llm::config::{Price, RoleModel};
use synth::llm::record::{self, CallOutcome};
use synth::llm::{
    model_check_api_docs, ActRequest, ApiKey, Backend, ClientOptions, CodeRequest, ControlInfo,
    LanguageModel, LlmClient, LlmConfig, LlmError, Outcome, ReplaySource, Role, StepStatus,
};
use synth::store::calls::CallLog;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn cfg(base: &str) -> LlmConfig {
    let mut cfg = LlmConfig {
        base_url: format!("{base}/v1"),
        api_key: Some(ApiKey::new(KEY)),
        timeout_ms: 300,
        max_retries: 2,
        backoff_base_ms: 1,
        backoff_max_ms: 5,
        reask_attempts: 1,
        ..LlmConfig::default()
    };
    for role in Role::ALL {
        *cfg.roles.get_mut(role) = RoleModel {
            model: MODEL.into(),
            multimodal: false,
        };
    }
    cfg.prices.insert(
        MODEL.into(),
        Price {
            input: 1.0,
            output: 2.0,
        },
    );
    cfg
}

fn memory_store() -> CallLog {
    CallLog::in_memory().unwrap()
}

fn chat() -> wiremock::MockBuilder {
    Mock::given(method("POST")).and(path("/v1/chat/completions"))
}

async fn mount(server: &MockServer, template: ResponseTemplate, times: Option<u64>, prio: u8) {
    let mut m = chat().respond_with(template).with_priority(prio);
    if let Some(n) = times {
        m = m.up_to_n_times(n);
    }
    m.mount(server).await;
}

async fn requests(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap_or(Value::Null))
        .collect()
}

fn outcomes(store: &CallLog) -> Vec<CallOutcome> {
    store
        .all()
        .unwrap()
        .into_iter()
        .map(|r| r.outcome)
        .collect()
}

#[tokio::test]
async fn request_shape_model_per_role_image_json_mode_and_auth() {
    let server = MockServer::start().await;
    let step = r#"{"Status":"CONTINUE","Observation":"editor open","Thought":"save it",
        "ControlLabel":"3","ControlText":"Save","Function":"click_input",
        "Args":{"button":"left","double":false}}"#;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", format!("Bearer {KEY}").as_str()))
        .respond_with(ok(step))
        .mount(&server)
        .await;
    let mut cfg = cfg(&server.uri());
    cfg.roles.actor = RoleModel {
        model: "vision-model".into(),
        multimodal: true,
    };
    cfg.roles.coder.model = "coder-model".into();
    cfg.prices.insert(
        "vision-model".into(),
        Price {
            input: 1.0,
            output: 2.0,
        },
    );
    let store = memory_store();
    let llm = client(cfg, &store, false).await;
    let act = ActRequest {
        instruction: "Save the document".into(),
        window_title: "Writer".into(),
        controls: vec![ControlInfo {
            label: "3".into(),
            control_text: "Save".into(),
            control_type: "Button".into(),
            ..ControlInfo::default()
        }],
        history: vec![],
        feedback: None,
        screenshot: Some(b"\x89PNG fake".to_vec()),
    };
    let reply = llm.act(&act).await.unwrap();
    let Outcome::Accepted(step) = reply.outcome else {
        panic!("{:?}", reply.outcome)
    };
    assert_eq!(step.status, StepStatus::Continue);
    assert_eq!(step.action.unwrap().call.function_name(), "click_input");

    let bodies = requests(&server).await;
    assert_eq!(bodies.len(), 1);
    let b = &bodies[0];
    assert_eq!(b["model"], "vision-model");
    assert_eq!(b["response_format"]["type"], "json_object");
    assert_eq!(b["messages"][0]["role"], "system");
    assert!(b["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("Executable Language Grounding"));
    assert_eq!(b["messages"][1]["role"], "user");
    let parts = b["messages"][1]["content"].as_array().unwrap();
    assert_eq!(parts[0]["type"], "text");
    assert!(parts[0]["text"]
        .as_str()
        .unwrap()
        .contains("Save the document"));
    assert_eq!(parts[1]["type"], "image_url");
    assert!(parts[1]["image_url"]["url"]
        .as_str()
        .unwrap()
        .starts_with("data:image/png;base64,"));

    // The coder's model is not multimodal and has its own name.
    let code = CodeRequest {
        instruction_template: "Delete '{file_path}'".into(),
        application: "Files".into(),
        os: "Linux".into(),
        parameters: vec![BTreeMap::from([(
            "file_path".to_string(),
            "/home/user/a.txt".to_string(),
        )])],
        controls_seen: vec!["Delete".into()],
        feedback: None,
        apis: model_check_api_docs(),
    };
    let _ = llm.code(&code).await.unwrap();
    let bodies = requests(&server).await;
    assert_eq!(bodies[1]["model"], "coder-model");
    assert!(bodies[1]["messages"][1]["content"].is_string());

    // Recorded: no image bytes, the image's hash, usage and cost.
    let recs = store.all().unwrap();
    assert_eq!(recs[0].role, Role::Actor);
    assert_eq!(recs[0].model, "vision-model");
    assert!(recs[0].request["messages"][1]["image_sha256"].is_string());
    assert!(!recs[0].request.to_string().contains("base64"));
    assert_eq!(recs[0].prompt_tokens, 100);
    assert!((recs[0].cost_usd - (100.0 * 1.0 + 20.0 * 2.0) / 1e6).abs() < 1e-12);
    let usage = llm.usage();
    assert_eq!(usage.total.calls, 2);
    // The coder got the actor's reply from the mock, which fails validation and is
    // re-asked once: three requests in all.
    assert_eq!(usage.total.http_requests, 3);
    assert!(usage.to_string().starts_with("calls 2 (0 cached)"));
}

#[tokio::test]
async fn rate_limit_429_honours_retry_after() {
    let server = MockServer::start().await;
    mount(
        &server,
        ResponseTemplate::new(429)
            .insert_header("retry-after", "0.3")
            .set_body_json(json!({"error": {"message": "slow down", "type": "rate_limit"}})),
        Some(1),
        1,
    )
    .await;
    mount(&server, ok(GOOD_EDGES), None, 2).await;
    let store = memory_store();
    let llm = client(cfg(&server.uri()), &store, false).await;
    let start = Instant::now();
    let reply = llm.reconstruct(&reconstruct_req("x")).await.unwrap();
    assert!(
        start.elapsed() >= Duration::from_millis(300),
        "Retry-After not honoured"
    );
    assert!(matches!(reply.outcome, Outcome::Accepted(_)));
    assert_eq!(reply.info.http_requests, 2);
    assert_eq!(requests(&server).await.len(), 2);
    let recs = store.all().unwrap();
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0].http_attempts, 2);
    assert_eq!(recs[0].outcome, CallOutcome::Accepted);
}

#[tokio::test]
async fn server_error_then_success() {
    let server = MockServer::start().await;
    mount(
        &server,
        ResponseTemplate::new(500).set_body_string("boom"),
        Some(1),
        1,
    )
    .await;
    mount(&server, ok(GOOD_EDGES), None, 2).await;
    let store = memory_store();
    let llm = client(cfg(&server.uri()), &store, false).await;
    let reply = llm.reconstruct(&reconstruct_req("x")).await.unwrap();
    assert!(matches!(reply.outcome, Outcome::Accepted(_)));
    assert_eq!(requests(&server).await.len(), 2);
}

#[tokio::test]
async fn persistent_server_error_gives_up_after_max_retries() {
    let server = MockServer::start().await;
    mount(
        &server,
        ResponseTemplate::new(503).set_body_string("down"),
        None,
        1,
    )
    .await;
    let store = memory_store();
    let llm = client(cfg(&server.uri()), &store, false).await;
    let err = llm.reconstruct(&reconstruct_req("x")).await.unwrap_err();
    assert!(
        matches!(
            err,
            LlmError::Api {
                status: 503,
                attempts: 3,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(requests(&server).await.len(), 3);
    assert_eq!(outcomes(&store), vec![CallOutcome::Error]);
    // Nothing with a reply was recorded, so nothing would answer a re-run.
    assert_eq!(llm.usage().total.errors, 1);
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    let server = MockServer::start().await;
    mount(
        &server,
        ResponseTemplate::new(400)
            .set_body_json(json!({"error": {"message": "bad request", "type": "invalid"}})),
        None,
        1,
    )
    .await;
    let store = memory_store();
    let llm = client(cfg(&server.uri()), &store, false).await;
    let err = llm.reconstruct(&reconstruct_req("x")).await.unwrap_err();
    assert!(
        matches!(
            err,
            LlmError::Api {
                status: 400,
                attempts: 1,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(requests(&server).await.len(), 1);
}

#[tokio::test]
async fn slower_than_timeout_is_retried_then_fails() {
    let server = MockServer::start().await;
    mount(
        &server,
        ok(GOOD_EDGES).set_delay(Duration::from_millis(1500)),
        None,
        1,
    )
    .await;
    let mut cfg = cfg(&server.uri());
    cfg.timeout_ms = 150;
    cfg.max_retries = 1;
    let store = memory_store();
    let llm = client(cfg, &store, false).await;
    let start = Instant::now();
    let err = llm.reconstruct(&reconstruct_req("x")).await.unwrap_err();
    assert!(
        matches!(err, LlmError::Timeout { attempts: 2, .. }),
        "{err:?}"
    );
    assert!(start.elapsed() < Duration::from_millis(1400));
    assert_eq!(outcomes(&store), vec![CallOutcome::Error]);
}

#[tokio::test]
async fn slow_once_then_fast_succeeds() {
    let server = MockServer::start().await;
    mount(
        &server,
        ok(GOOD_EDGES).set_delay(Duration::from_millis(1500)),
        Some(1),
        1,
    )
    .await;
    mount(&server, ok(GOOD_EDGES), None, 2).await;
    let mut cfg = cfg(&server.uri());
    cfg.timeout_ms = 150;
    let store = memory_store();
    let llm = client(cfg, &store, false).await;
    let reply = llm.reconstruct(&reconstruct_req("x")).await.unwrap();
    assert!(matches!(reply.outcome, Outcome::Accepted(_)));
    assert_eq!(reply.info.http_requests, 2);
}

#[tokio::test]
async fn invalid_response_json_is_retried() {
    let server = MockServer::start().await;
    mount(
        &server,
        ResponseTemplate::new(200).set_body_raw(br#"{"id":"x","choi"#.to_vec(), "application/json"),
        Some(1),
        1,
    )
    .await;
    mount(&server, ok(GOOD_EDGES), None, 2).await;
    let store = memory_store();
    let llm = client(cfg(&server.uri()), &store, false).await;
    let reply = llm.reconstruct(&reconstruct_req("x")).await.unwrap();
    assert!(matches!(reply.outcome, Outcome::Accepted(_)));
    assert_eq!(requests(&server).await.len(), 2);
}

/// A raw HTTP server: each connection gets `respond(n)` written (n counts from 0),
/// then is closed. Returns the base URL and the connection counter.
fn raw_server(respond: impl Fn(usize) -> Vec<u8> + Send + 'static) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            let n = c.fetch_add(1, Ordering::SeqCst);
            let out = respond(n);
            if !out.is_empty() {
                // Read the request head before answering.
                stream
                    .set_read_timeout(Some(Duration::from_millis(200)))
                    .ok();
                let mut buf = [0u8; 65536];
                let _ = stream.read(&mut buf);
                let _ = stream.write_all(&out);
                let _ = stream.flush();
            }
            drop(stream);
        }
    });
    (format!("http://{addr}"), count)
}

#[tokio::test]
async fn connection_reset_is_retried_then_fails() {
    let (base, count) = raw_server(|_| Vec::new());
    let store = memory_store();
    let llm = client(cfg(&base), &store, false).await;
    let err = llm.reconstruct(&reconstruct_req("x")).await.unwrap_err();
    assert!(
        matches!(err, LlmError::Connection { attempts: 3, .. }),
        "{err:?}"
    );
    assert_eq!(count.load(Ordering::SeqCst), 3);
    assert!(!err.to_string().contains(KEY));
}

/// An endpoint that drops every connection: after `REFUSED_IN_A_ROW` calls fail
/// (each after its retries), the client sends nothing more and says the
/// endpoint is down; a reply before that would have reset the count.
#[tokio::test]
async fn an_endpoint_that_keeps_refusing_is_taken_as_down() {
    let (base, count) = raw_server(|_| Vec::new());
    let store = memory_store();
    let llm = client(cfg(&base), &store, false).await;
    let n = synth::llm::client::REFUSED_IN_A_ROW;
    for i in 0..n {
        let err = llm
            .reconstruct(&reconstruct_req(&format!("x{i}")))
            .await
            .unwrap_err();
        assert!(matches!(err, LlmError::Connection { .. }), "{err:?}");
    }
    let sent = count.load(Ordering::SeqCst);
    assert_eq!(sent, 3 * n as usize, "three attempts per call");
    let err = llm.reconstruct(&reconstruct_req("y")).await.unwrap_err();
    assert!(
        matches!(err, LlmError::EndpointDown { calls, .. } if calls == n),
        "{err:?}"
    );
    assert!(err.to_string().contains(&base), "{err}");
    assert_eq!(count.load(Ordering::SeqCst), sent, "nothing more was sent");
}

#[tokio::test]
async fn truncated_body_is_retried_then_succeeds() {
    let good = completion(GOOD_EDGES).to_string();
    let (base, count) = raw_server(move |n| {
        if n == 0 {
            // Promise 4000 bytes, send 20, close.
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 4000\r\nconnection: close\r\n\r\n{}",
                &good[..20]
            )
            .into_bytes()
        } else {
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{}",
                good.len(),
                good
            )
            .into_bytes()
        }
    });
    let store = memory_store();
    let llm = client(cfg(&base), &store, false).await;
    let reply = llm.reconstruct(&reconstruct_req("x")).await.unwrap();
    assert!(matches!(reply.outcome, Outcome::Accepted(_)), "{reply:?}");
    assert_eq!(count.load(Ordering::SeqCst), 2);
    assert_eq!(reply.info.http_requests, 2);
}

#[tokio::test]
async fn malformed_model_json_is_re_asked_then_accepted() {
    let server = MockServer::start().await;
    mount(
        &server,
        ok("Sure! Here are the edges: A then B"),
        Some(1),
        1,
    )
    .await;
    mount(&server, ok(GOOD_EDGES), None, 2).await;
    let store = memory_store();
    let llm = client(cfg(&server.uri()), &store, false).await;
    let reply = llm.reconstruct(&reconstruct_req("x")).await.unwrap();
    let Outcome::Accepted(edges) = reply.outcome else {
        panic!("{:?}", reply.outcome)
    };
    assert_eq!(edges.len(), 1);
    assert_eq!(reply.info.replies, 2);
    let bodies = requests(&server).await;
    assert_eq!(bodies.len(), 2);
    // The re-ask carries the bad reply and the parse error.
    let msgs = bodies[1]["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 4);
    assert_eq!(msgs[2]["role"], "assistant");
    assert!(msgs[3]["content"]
        .as_str()
        .unwrap()
        .contains("no JSON object"));
    assert_eq!(
        outcomes(&store),
        vec![CallOutcome::Invalid, CallOutcome::Accepted]
    );
}

#[tokio::test]
async fn reply_that_fails_validation_is_rejected_with_raw_text() {
    let server = MockServer::start().await;
    let bad = r#"{"edges": [["A", "Z"]]}"#;
    mount(&server, ok(bad), None, 1).await;
    let store = memory_store();
    let llm = client(cfg(&server.uri()), &store, false).await;
    let reply = llm.reconstruct(&reconstruct_req("x")).await.unwrap();
    let Outcome::Rejected { reason, raw } = reply.outcome else {
        panic!("{:?}", reply.outcome)
    };
    assert!(reason.contains("unknown subtask id 'Z'"), "{reason}");
    assert_eq!(raw, bad);
    // One ask plus reask_attempts (1) re-asks.
    assert_eq!(requests(&server).await.len(), 2);
    assert_eq!(
        outcomes(&store),
        vec![CallOutcome::Invalid, CallOutcome::Rejected]
    );
    let recs = store.all().unwrap();
    assert_eq!(recs[1].reply.as_deref(), Some(bad));
    assert!(recs[1]
        .error
        .as_deref()
        .unwrap()
        .contains("unknown subtask id"));
    assert_eq!(llm.usage().total.rejected, 1);
}

#[tokio::test]
async fn unknown_check_api_is_rejected() {
    let server = MockServer::start().await;
    let bad = r#"{"checks":[{"api":"check_magic","args":{"text":"x"}}]}"#;
    mount(&server, ok(bad), None, 1).await;
    let mut cfg = cfg(&server.uri());
    cfg.reask_attempts = 0;
    let store = memory_store();
    let llm = client(cfg, &store, false).await;
    let req = CodeRequest {
        instruction_template: "Open Settings".into(),
        application: "Settings".into(),
        os: "Linux".into(),
        parameters: vec![],
        controls_seen: vec![],
        feedback: None,
        apis: model_check_api_docs(),
    };
    let reply = llm.code(&req).await.unwrap();
    assert!(
        matches!(&reply.outcome, Outcome::Rejected { reason, .. } if reason.contains("unknown check API 'check_magic'")),
        "{reply:?}"
    );
    assert_eq!(requests(&server).await.len(), 1);
}

#[tokio::test]
async fn second_run_answers_from_record_and_no_cache_asks_again() {
    let server = MockServer::start().await;
    mount(&server, ok("not json"), Some(1), 1).await;
    mount(&server, ok(GOOD_EDGES), None, 2).await;
    let store = memory_store();
    let reqs: Vec<_> = (0..3)
        .map(|i| reconstruct_req(&format!("task {i}")))
        .collect();

    let first = client(cfg(&server.uri()), &store, false).await;
    for r in &reqs {
        assert!(matches!(
            first.reconstruct(r).await.unwrap().outcome,
            Outcome::Accepted(_)
        ));
    }
    // 3 calls, one of which was re-asked once.
    assert_eq!(requests(&server).await.len(), 4);

    let second = client(cfg(&server.uri()), &store, false).await;
    for r in &reqs {
        let reply = second.reconstruct(r).await.unwrap();
        assert!(matches!(reply.outcome, Outcome::Accepted(_)));
        assert!(reply.info.cached);
        assert_eq!(reply.info.http_requests, 0);
    }
    assert_eq!(
        requests(&server).await.len(),
        4,
        "re-run made HTTP requests"
    );
    assert_eq!(second.usage().total.cache_hits, 4);

    let fresh = client(cfg(&server.uri()), &store, true).await;
    for r in &reqs {
        let reply = fresh.reconstruct(r).await.unwrap();
        assert!(!reply.info.cached);
    }
    assert_eq!(requests(&server).await.len(), 7);
}

/// Regression: a verify round or validation attempt that asked the same prompt
/// again got the recorded (failing) answer back, so retrying could not help.
#[tokio::test]
async fn the_same_request_asked_again_in_a_run_is_a_new_sample_and_replays() {
    let server = MockServer::start().await;
    mount(&server, ok(GOOD_EDGES), None, 1).await;
    let store = memory_store();
    let req = reconstruct_req("same prompt");

    let run = client(cfg(&server.uri()), &store, false).await;
    let first = run.reconstruct(&req).await.unwrap();
    let again = run.reconstruct(&req).await.unwrap();
    assert!(!first.info.cached && !again.info.cached);
    assert_ne!(first.info.prompt_hash, again.info.prompt_hash);
    let sent = requests(&server).await;
    assert_eq!(sent.len(), 2);
    assert!(sent[0].get("seed").is_none(), "{}", sent[0]);
    assert_eq!(sent[1]["seed"], 1);
    assert!(sent[1]["temperature"].as_f64().unwrap() >= 0.7);

    // A replay of the run asks the same twice and finds both answers.
    let replay = client(cfg(&server.uri()), &store, false).await;
    for expected in [&first, &again] {
        let reply = replay.reconstruct(&req).await.unwrap();
        assert!(reply.info.cached);
        assert_eq!(reply.info.prompt_hash, expected.info.prompt_hash);
    }
    assert_eq!(requests(&server).await.len(), 2, "the replay sent requests");
}

#[tokio::test]
async fn replay_answers_from_store_or_jsonl_and_names_misses() {
    let server = MockServer::start().await;
    mount(&server, ok(GOOD_EDGES), None, 1).await;
    let store = memory_store();
    let live = client(cfg(&server.uri()), &store, false).await;
    live.reconstruct(&reconstruct_req("recorded"))
        .await
        .unwrap();
    drop(server);

    let replay = LlmClient::replay(
        cfg("http://127.0.0.1:9"),
        store.clone(),
        ReplaySource::Store,
        opts(false),
    )
    .unwrap();
    assert_eq!(replay.backend(), Backend::Replay);
    let reply = replay
        .reconstruct(&reconstruct_req("recorded"))
        .await
        .unwrap();
    assert!(matches!(reply.outcome, Outcome::Accepted(_)));
    let err = replay
        .reconstruct(&reconstruct_req("never asked"))
        .await
        .unwrap_err();
    let LlmError::ReplayMiss { role, prompt_hash } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(*role, Role::Reconstructor);
    assert_eq!(prompt_hash.len(), 64);
    let text = err.to_string();
    assert!(text.contains("reconstructor") && text.contains(prompt_hash.as_str()));

    // The same from a JSONL export, into an empty store.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("calls.jsonl");
    let mut out = Vec::new();
    record::export_jsonl(&store.all().unwrap(), &mut out).unwrap();
    std::fs::write(&file, out).unwrap();
    let from_file = LlmClient::replay(
        cfg("http://127.0.0.1:9"),
        memory_store(),
        ReplaySource::Jsonl(file),
        opts(false),
    )
    .unwrap();
    let reply = from_file
        .reconstruct(&reconstruct_req("recorded"))
        .await
        .unwrap();
    assert!(matches!(reply.outcome, Outcome::Accepted(_)));
}

#[tokio::test]
async fn missing_key_and_unreachable_endpoint_fail_at_start() {
    let mut no_key = cfg("http://127.0.0.1:9");
    no_key.api_key = None;
    let err = LlmClient::openai(no_key, memory_store(), opts(false))
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::MissingApiKey));
    assert!(err.to_string().contains("OPENAI_API_KEY"));

    // A port nobody listens on.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let err = LlmClient::openai(
        cfg(&format!("http://127.0.0.1:{port}")),
        memory_store(),
        ClientOptions {
            check_endpoint: true,
            budget: Default::default(),
            ..opts(false)
        },
    )
    .await
    .unwrap_err();
    assert!(matches!(err, LlmError::Unreachable { .. }), "{err:?}");
    assert!(err
        .to_string()
        .starts_with("cannot reach the model endpoint http://127.0.0.1:"));
}

#[tokio::test]
async fn concurrency_limit_bounds_requests_in_flight() {
    let server = MockServer::start().await;
    mount(
        &server,
        ok(GOOD_EDGES).set_delay(Duration::from_millis(100)),
        None,
        1,
    )
    .await;
    let mut cfg = cfg(&server.uri());
    cfg.concurrency = 2;
    let store = memory_store();
    let llm = client(cfg, &store, false).await;
    let start = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..6 {
        let llm = llm.clone();
        tasks.push(tokio::spawn(async move {
            llm.reconstruct(&reconstruct_req(&format!("t{i}"))).await
        }));
    }
    for t in tasks {
        assert!(matches!(
            t.await.unwrap().unwrap().outcome,
            Outcome::Accepted(_)
        ));
    }
    // 6 calls, 2 at a time, 100 ms each: at least 3 rounds.
    assert!(
        start.elapsed() >= Duration::from_millis(300),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(llm.usage().total.http_requests, 6);
}

#[tokio::test]
async fn backend_selection_offline_by_default_says_not_available_yet() {
    let backend: Backend = "offline".parse().unwrap();
    let llm = synth::llm::select_backend(
        backend,
        cfg("http://127.0.0.1:9"),
        memory_store(),
        opts(false),
        synth::llm::OfflineRoles::default(),
        None,
    )
    .await
    .unwrap();
    assert_eq!(llm.backend(), Backend::Offline);
    let err = llm.reconstruct(&reconstruct_req("x")).await.unwrap_err();
    assert!(matches!(
        err,
        LlmError::OfflineUnavailable {
            role: Role::Reconstructor
        }
    ));
    assert!(err
        .to_string()
        .contains("offline reconstructor is not available yet"));
}
