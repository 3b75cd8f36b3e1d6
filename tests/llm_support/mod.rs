//! Helpers shared by the language-model integration tests: client construction,
//! canned chat-completion replies and a small reconstructor request.

#![allow(dead_code)]

use serde_json::{json, Value};
use synth::llm::{ClientOptions, LlmClient, LlmConfig, NeutralSubtask, ReconstructRequest};
use synth::store::calls::CallLog;
use wiremock::ResponseTemplate;

pub const KEY: &str = "sk-test-SECRET-9f8e7d6c5b4a";
pub const MODEL: &str = "gpt-test";
pub const GOOD_EDGES: &str = r#"{"edges": [["A", "B"]]}"#;

pub fn opts(no_cache: bool) -> ClientOptions {
    ClientOptions {
        run_id: "run-1".into(),
        no_cache,
        prompts_dir: None,
        check_endpoint: false,
        budget: Default::default(),
    }
}

pub async fn client(cfg: LlmConfig, store: &CallLog, no_cache: bool) -> LlmClient {
    LlmClient::openai(cfg, store.clone(), opts(no_cache))
        .await
        .unwrap()
}

pub fn completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    })
}

pub fn ok(content: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(completion(content))
}

pub fn reconstruct_req(instruction: &str) -> ReconstructRequest {
    ReconstructRequest {
        instruction: instruction.into(),
        subtasks: vec![
            NeutralSubtask {
                id: "A".into(),
                instruction: "Export the report as PDF".into(),
            },
            NeutralSubtask {
                id: "B".into(),
                instruction: "Compress the PDF".into(),
            },
        ],
    }
}
