//! The API key appears nowhere: not in the store file, the logs (captured tracing
//! output) or error messages, even when the server echoes it back.
//!
//! Its own test binary, so no other test's subscriber-less thread races the
//! tracing callsite cache.

mod llm_support;

use llm_support::*;
use std::io::Write;
use std::sync::{Arc, Mutex};

use serde_json::json;
use synth::llm::config::RoleModel;
use synth::llm::record::CallOutcome;
use synth::llm::{
    ApiKey, ClientOptions, LanguageModel, LlmClient, LlmConfig, LlmError, Outcome, Role,
};
use wiremock::matchers::{method, path};
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
    cfg
}

#[derive(Clone, Default)]
struct LogBuffer(Arc<Mutex<Vec<u8>>>);

impl Write for LogBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogBuffer {
    type Writer = LogBuffer;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

#[tokio::test]
async fn key_is_nowhere_in_store_logs_or_errors() {
    let logs = LogBuffer::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(logs.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = MockServer::start().await;
    // Servers echo keys in errors ("Incorrect API key provided: sk-...").
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(
            ResponseTemplate::new(500).set_body_string(format!("internal error for key {KEY}")),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ok(GOOD_EDGES))
        .up_to_n_times(1)
        .with_priority(2)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(401).set_body_json(
            json!({"error": {"message": format!("Incorrect API key provided: {KEY}"),
                             "type": "invalid_request_error", "code": "invalid_api_key"}}),
        ))
        .with_priority(3)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .respond_with(ResponseTemplate::new(401).set_body_json(
            json!({"error": {"message": format!("Incorrect API key provided: {KEY}")}}),
        ))
        .mount(&server)
        .await;

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("synth.db");
    let db_store = synth::store::Store::open(&db).unwrap();
    let store = db_store.call_log();
    let llm = client(cfg(&server.uri()), &store, false).await;
    let mut errors = Vec::new();
    // 500 (echoing the key) then success.
    let reply = llm.reconstruct(&reconstruct_req("one")).await.unwrap();
    assert!(matches!(reply.outcome, Outcome::Accepted(_)));
    // 401 echoing the key.
    let err = llm.reconstruct(&reconstruct_req("two")).await.unwrap_err();
    assert!(
        matches!(err, LlmError::Unauthorized { status: 401, .. }),
        "{err:?}"
    );
    errors.push(err.to_string());
    errors.push(format!("{err:?}"));
    // Start-up check echoing the key.
    let err = LlmClient::openai(
        cfg(&server.uri()),
        store.clone(),
        ClientOptions {
            check_endpoint: true,
            budget: Default::default(),
            ..opts(false)
        },
    )
    .await
    .unwrap_err();
    errors.push(err.to_string());
    errors.push(format!("{llm:?}"));
    errors.push(format!("{:?}", cfg(&server.uri())));
    drop(llm);
    drop(store);
    drop(db_store);

    for e in &errors {
        assert!(!e.contains(KEY), "key in error: {e}");
    }
    let bytes = std::fs::read(&db).unwrap();
    let wal = std::fs::read(dir.path().join("synth.db-wal")).unwrap_or_default();
    let needle = KEY.as_bytes();
    for content in [&bytes, &wal] {
        assert!(
            !content.windows(needle.len()).any(|w| w == needle),
            "key in store file"
        );
    }
    let log_text = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(log_text.contains("retrying model request"), "{log_text}");
    assert!(!log_text.contains(KEY), "key in logs: {log_text}");
    // The recorded error is redacted too, but kept.
    let recs = synth::store::Store::open_reader(&db)
        .unwrap()
        .call_log()
        .all()
        .unwrap();
    assert!(recs.iter().any(|r| r.outcome == CallOutcome::Error));
}
