//! `synth llm ping` against loopback servers: what a user sees for each failure.

use serde_json::json;
use synth::llm::config::RoleModel;
use synth::llm::ping::PingMethod;
use synth::llm::{ping, ApiKey, LlmConfig, LlmError, Role};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "sk-ping-SECRET-0123456789";

fn cfg(base: &str) -> LlmConfig {
    let mut cfg = LlmConfig {
        base_url: format!("{base}/v1"),
        api_key: Some(ApiKey::new(KEY)),
        timeout_ms: 500,
        ..LlmConfig::default()
    };
    for role in Role::ALL {
        *cfg.roles.get_mut(role) = RoleModel {
            model: "served".into(),
            multimodal: false,
        };
    }
    cfg
}

#[tokio::test]
async fn lists_models_and_warns_about_unlisted_ones() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .and(header("authorization", format!("Bearer {KEY}").as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"object": "list", "data": [{"id": "served", "object": "model"}]}),
        ))
        .mount(&server)
        .await;
    let report = ping(&cfg(&server.uri())).await.unwrap();
    assert_eq!(report.method, PingMethod::ListModels);
    assert!(report.is_ok(), "{report}");
    assert!(report
        .to_string()
        .contains("reachable and accepted the key"));

    let mut other = cfg(&server.uri());
    other.roles.coder.model = "missing-model".into();
    let report = ping(&other).await.unwrap();
    assert!(!report.is_ok());
    let text = report.to_string();
    assert!(
        text.contains("coder model 'missing-model' is not among the listed models"),
        "{text}"
    );
}

#[tokio::test]
async fn refused_key_is_explained_without_the_key() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .respond_with(ResponseTemplate::new(401).set_body_json(
            json!({"error": {"message": format!("Incorrect API key provided: {KEY}")}}),
        ))
        .mount(&server)
        .await;
    let err = ping(&cfg(&server.uri())).await.unwrap_err();
    assert!(matches!(err, LlmError::Unauthorized { status: 401, .. }));
    let text = err.to_string();
    assert!(
        text.contains("rejected the API key") && text.contains("***"),
        "{text}"
    );
    assert!(!text.contains(KEY));
}

#[tokio::test]
async fn no_models_route_falls_back_to_a_tiny_chat() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "x", "object": "chat.completion", "created": 1, "model": "served",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "p"},
                         "finish_reason": "length"}]})))
        .mount(&server)
        .await;
    let report = ping(&cfg(&server.uri())).await.unwrap();
    assert_eq!(report.method, PingMethod::TinyChat);
}

#[tokio::test]
async fn unknown_model_on_the_chat_probe() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(
            ResponseTemplate::new(404)
                .set_body_json(json!({"error": {"message": "model 'served' not found"}})),
        )
        .mount(&server)
        .await;
    let err = ping(&cfg(&server.uri())).await.unwrap_err();
    assert!(matches!(err, LlmError::ModelNotFound { .. }), "{err:?}");
    assert!(err.to_string().contains("model 'served' is not served by"));
}

#[tokio::test]
async fn unreachable_endpoint() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let err = ping(&cfg(&format!("http://127.0.0.1:{port}")))
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Unreachable { .. }), "{err:?}");
    assert!(err.to_string().contains("cannot reach the model endpoint"));
}

#[tokio::test]
async fn missing_key() {
    let mut c = cfg("http://127.0.0.1:9");
    c.api_key = None;
    assert!(matches!(
        ping(&c).await.unwrap_err(),
        LlmError::MissingApiKey
    ));
}
