//! `synth explore --llm openai` against a loopback endpoint that fails for one
//! application: the others are explored and stored, the command exits 3 naming the
//! failed application, and a re-run with the endpoint healthy asks only for it.

mod common;

use common::Workspace;
use wiremock::matchers::{body_string_contains, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "sk-explore-faults-0123456789";

/// A chat completion whose content is an explorer reply with one proposal.
fn proposal(template: &str) -> ResponseTemplate {
    let content = serde_json::json!({"subtasks": [{
        "instruction_template": template,
        "available_parameters": [{}],
        "input_resources": [],
        "output_resources": ["text_in_clipboard"],
    }]})
    .to_string();
    ResponseTemplate::new(200).set_body_json(serde_json::json!({
        "id": "c1", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }))
}

fn explore(ws: &Workspace, base: &str) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_synth"))
        .current_dir(ws.path())
        .args(["--workspace"])
        .arg(ws.path())
        .args(["--llm", "openai", "--base-url", base, "--model", "m"])
        .args(["explore", "--apps", "Calculator,Notes"])
        .env("OPENAI_API_KEY", KEY)
        .output()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn one_failing_application_does_not_stop_the_others() {
    let ws = Workspace::new();
    std::fs::write(
        ws.file("synth.toml"),
        "[llm]\nmax_retries = 1\nbackoff_base_ms = 1\nbackoff_max_ms = 2\ntimeout_ms = 5000\n",
    )
    .unwrap();
    let server = MockServer::start().await;
    let models = ResponseTemplate::new(200).set_body_json(serde_json::json!({
        "object": "list", "data": [{"id": "m", "object": "model", "created": 0, "owned_by": "x"}]
    }));
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .respond_with(models)
        .mount(&server)
        .await;
    let notes = Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(body_string_contains("Notes (Note Management)"))
        .respond_with(ResponseTemplate::new(500).set_body_string("upstream down"))
        .named("notes fails")
        .mount_as_scoped(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(proposal("In Calculator, copy the result."))
        .mount(&server)
        .await;
    let base = format!("{}/v1", server.uri());

    let ws_ref = &ws;
    let first = tokio::task::block_in_place(|| explore(ws_ref, &base));
    let stdout = String::from_utf8_lossy(&first.stdout).to_string();
    let stderr = String::from_utf8_lossy(&first.stderr).to_string();
    assert_eq!(first.status.code(), Some(3), "{stdout}{stderr}");
    assert!(stdout.contains("1 not explored"), "{stdout}");
    assert!(
        stdout.contains("Notes") && stdout.contains("failed:"),
        "{stdout}"
    );
    assert!(!stdout.contains(KEY) && !stderr.contains(KEY));

    // The endpoint recovers: only Notes is asked again.
    drop(notes);
    let before = server.received_requests().await.unwrap_or_default().len();
    let second = tokio::task::block_in_place(|| explore(ws_ref, &base));
    let out2 = String::from_utf8_lossy(&second.stdout).to_string();
    assert!(
        second.status.success(),
        "{out2}{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert!(out2.contains("explored earlier"), "{out2}");
    let asked: Vec<String> = server.received_requests().await.unwrap_or_default()[before..]
        .iter()
        .filter(|r| r.url.path().ends_with("/chat/completions"))
        .map(|r| String::from_utf8_lossy(&r.body).to_string())
        .collect();
    assert!(!asked.is_empty());
    assert!(
        asked.iter().all(|b| b.contains("Notes (Note Management)")),
        "only the failed application is asked again"
    );
}
