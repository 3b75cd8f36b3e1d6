//! The command line's wiring of the environment and language-model commands,
//! through the real binary.

mod common;

use common::Workspace;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[test]
fn env_list_names_every_application_and_lint_passes() {
    let ws = Workspace::new();
    let list = ws.ok(&["env", "list"]);
    let apps = std::fs::read_dir(ws.file("resources/apps"))
        .unwrap()
        .count();
    assert!(apps >= 24);
    for app in ["Writer", "Sheets", "Mail", "Archiver", "Screenshot Tool"] {
        assert!(list.contains(app), "{list}");
    }
    ws.ok(&["env", "lint"]);
}

#[test]
fn a_broken_app_spec_fails_lint_naming_the_file() {
    let ws = Workspace::new();
    let file = ws.file("resources/apps/broken.toml");
    std::fs::write(&file, "name = \"Broken\"\ncategory = 7\n").unwrap();
    let out = ws.synth(&["env", "lint"]);
    assert!(!out.status.success());
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("broken.toml"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn llm_ping_reports_the_endpoint_and_never_prints_the_key() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .and(header("authorization", "Bearer sk-cli-test-key-0123456789"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "object": "list",
            "data": [{"id": "gpt-4o", "object": "model", "created": 0, "owned_by": "x"}]
        })))
        .mount(&server)
        .await;
    let ws = Workspace::new();
    let base = format!("{}/v1", server.uri());
    let out = tokio::task::spawn_blocking(move || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_synth"))
            .current_dir(ws.path())
            .args(["--base-url", &base, "llm", "ping"])
            .env("OPENAI_API_KEY", "sk-cli-test-key-0123456789")
            .output()
            .unwrap();
        drop(ws);
        out
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("reachable"), "{stdout}");
    assert!(!stdout.contains("sk-cli-test-key") && !stderr.contains("sk-cli-test-key"));
}

#[test]
fn llm_ping_without_an_endpoint_explains_the_failure() {
    let ws = Workspace::new();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_synth"))
        .current_dir(ws.path())
        .args(["--base-url", "http://127.0.0.1:9/v1", "llm", "ping"])
        .env("OPENAI_API_KEY", "sk-cli-test-key-0123456789")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot reach"), "{err}");
    assert!(!err.contains("sk-cli-test-key"));
}
