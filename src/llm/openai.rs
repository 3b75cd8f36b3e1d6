//! One HTTP exchange with an OpenAI-compatible chat-completions endpoint, through
//! async-openai.
//!
//! The async-openai client gets a reqwest client with the configured timeout and a
//! plain tower service (`Client::with_http_service`), which replaces async-openai's
//! built-in retry layer: [`super::retry`] is the only retry policy. The service also
//! notes each response's status and `Retry-After` header in a task-local slot,
//! because async-openai's error type drops the headers.
//!
//! Errors are classified into [`LlmError`] variants the retry policy understands;
//! server texts are redacted of the API key before they are kept.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_openai::config::OpenAIConfig;
use async_openai::error::{ApiError, ApiErrorResponse, OpenAIError, WrappedError};
use async_openai::middleware::HttpRequestFactory;
use async_openai::types::chat::{CreateChatCompletionRequest, CreateChatCompletionResponse};
use async_openai::Client;
use base64::Engine as _;
use serde_json::{json, Value};

use super::record::{ChatMessage, SamplingParams};
use super::retry::parse_retry_after;
use super::{ApiKey, LlmConfig, LlmError};

/// A reply of the endpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub text: String,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

#[derive(Debug, Clone, Copy)]
struct ResponseMeta {
    status: u16,
    retry_after: Option<Duration>,
}

tokio::task_local! {
    static LAST_RESPONSE: Arc<Mutex<Option<ResponseMeta>>>;
}

/// The openai transport: one attempt per [`OpenAiTransport::send`].
#[derive(Clone)]
pub struct OpenAiTransport {
    client: Client<OpenAIConfig>,
    key: ApiKey,
    base_url: String,
    timeout: Duration,
}

impl std::fmt::Debug for OpenAiTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiTransport")
            .field("base_url", &self.base_url)
            .field("key", &self.key)
            .field("timeout", &self.timeout)
            .finish()
    }
}

const MAX_ERROR_TEXT: usize = 400;

/// Builds the reqwest client every openai-backend request goes through.
pub(crate) fn http_client(cfg: &LlmConfig) -> Result<reqwest::Client, LlmError> {
    let timeout = cfg.timeout();
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(10)))
        .pool_max_idle_per_host(cfg.concurrency.max(8))
        .build()
        .map_err(|e| LlmError::Config(format!("cannot build the HTTP client: {e}")))
}

impl OpenAiTransport {
    /// # Errors
    /// [`LlmError::MissingApiKey`] / [`LlmError::Config`] from
    /// [`LlmConfig::validate_for_openai`].
    pub fn new(cfg: &LlmConfig) -> Result<OpenAiTransport, LlmError> {
        cfg.validate_for_openai()?;
        let key = cfg.api_key.clone().ok_or(LlmError::MissingApiKey)?;
        let http = http_client(cfg)?;
        let redact_key = key.clone();
        let service = tower::service_fn(move |factory: HttpRequestFactory| {
            let http = http.clone();
            let redact_key = redact_key.clone();
            async move {
                let request = factory.build().await?;
                let response = http.execute(request).await.map_err(OpenAIError::Reqwest)?;
                let meta = ResponseMeta {
                    status: response.status().as_u16(),
                    retry_after: response
                        .headers()
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(parse_retry_after),
                };
                let _ = LAST_RESPONSE.try_with(|slot| {
                    if let Ok(mut s) = slot.lock() {
                        *s = Some(meta);
                    }
                });
                if response.status().is_success() {
                    return Ok(response);
                }
                // Error bodies may echo the key, and async-openai logs server-error
                // bodies verbatim: answer with a redacted error instead.
                let status_code = response.status();
                let body = response.bytes().await.map_err(OpenAIError::Reqwest)?;
                Err(redacted_api_error(status_code, &body, &redact_key))
            }
        });
        let config = OpenAIConfig::new()
            .with_api_base(cfg.base_url.trim_end_matches('/'))
            .with_api_key(key.expose());
        let client = Client::with_config(config).with_http_service(service);
        Ok(OpenAiTransport {
            client,
            key,
            base_url: cfg.base_url.clone(),
            timeout: cfg.timeout(),
        })
    }

    /// The chat-completions request body for `messages`; `image` is the PNG
    /// attached to the messages that carry an `image_sha256`.
    pub fn request_body(
        model: &str,
        messages: &[ChatMessage],
        image: Option<&[u8]>,
        params: &SamplingParams,
    ) -> Value {
        let data_url = image.map(|png| {
            format!(
                "data:image/png;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(png)
            )
        });
        let msgs: Vec<Value> = messages
            .iter()
            .map(|m| match (&m.image_sha256, &data_url) {
                (Some(_), Some(url)) => json!({
                    "role": m.role,
                    "content": [
                        {"type": "text", "text": m.content},
                        {"type": "image_url", "image_url": {"url": url}},
                    ],
                }),
                _ => json!({"role": m.role, "content": m.content}),
            })
            .collect();
        let mut body = json!({
            "model": model,
            "messages": msgs,
            "temperature": params.temperature,
        });
        if let Some(n) = params.max_tokens {
            body["max_tokens"] = json!(n);
        }
        if params.json_mode {
            body["response_format"] = json!({"type": "json_object"});
        }
        if let Some(n) = params.sample {
            body["seed"] = json!(n);
        }
        body
    }

    /// One attempt. The returned error has `attempts: 1`; the caller's retry loop
    /// sets the real count.
    ///
    /// # Errors
    /// Classified transport and API errors (see [`LlmError::is_transient`]).
    pub async fn send(
        &self,
        model: &str,
        messages: &[ChatMessage],
        image: Option<&[u8]>,
        params: &SamplingParams,
    ) -> Result<Completion, LlmError> {
        let body = Self::request_body(model, messages, image, params);
        let request: CreateChatCompletionRequest = serde_json::from_value(body)
            .map_err(|e| LlmError::Config(format!("cannot build the chat request: {e}")))?;
        let slot = Arc::new(Mutex::new(None));
        let result = LAST_RESPONSE
            .scope(slot.clone(), self.client.chat().create(request))
            .await;
        let meta = slot.lock().ok().and_then(|s| *s);
        match result {
            Ok(resp) => Ok(completion_of(resp)),
            Err(e) => Err(self.classify(e, meta, model)),
        }
    }

    fn redact(&self, text: &str) -> String {
        let mut s = self.key.redact(text);
        if s.len() > MAX_ERROR_TEXT {
            let mut cut = MAX_ERROR_TEXT;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            s.truncate(cut);
            s.push('…');
        }
        s
    }

    fn classify(&self, err: OpenAIError, meta: Option<ResponseMeta>, model: &str) -> LlmError {
        match err {
            OpenAIError::Reqwest(e) => self.classify_reqwest(&e),
            OpenAIError::ApiError(r) => {
                let code = r.api_error.code.clone().unwrap_or_default();
                self.by_status(
                    r.status_code.as_u16(),
                    &r.api_error.to_string(),
                    &code,
                    meta.and_then(|m| m.retry_after),
                    model,
                )
            }
            OpenAIError::JSONDeserialize(e, content) => match meta {
                Some(m) if !(200..300).contains(&m.status) => {
                    self.by_status(m.status, &content, "", m.retry_after, model)
                }
                _ => LlmError::BadResponse {
                    message: self.redact(&format!("the response is not a chat completion: {e}")),
                    attempts: 1,
                },
            },
            OpenAIError::InvalidArgument(m) => LlmError::Config(self.redact(&m)),
            other => LlmError::Connection {
                message: self.redact(&error_chain(&other)),
                attempts: 1,
            },
        }
    }

    fn classify_reqwest(&self, e: &reqwest::Error) -> LlmError {
        if e.is_timeout() {
            LlmError::Timeout {
                timeout: self.timeout,
                attempts: 1,
            }
        } else if e.is_body() || e.is_decode() {
            LlmError::BadResponse {
                message: self.redact(&error_chain(e)),
                attempts: 1,
            }
        } else {
            LlmError::Connection {
                message: self.redact(&error_chain(e)),
                attempts: 1,
            }
        }
    }

    fn by_status(
        &self,
        status: u16,
        message: &str,
        code: &str,
        retry_after: Option<Duration>,
        model: &str,
    ) -> LlmError {
        let message = self.redact(message);
        match status {
            429 if code != "insufficient_quota" => LlmError::RateLimited {
                attempts: 1,
                retry_after,
            },
            401 | 403 => LlmError::Unauthorized { status, message },
            404 => LlmError::ModelNotFound {
                model: model.to_string(),
                base_url: self.base_url.clone(),
                message,
            },
            _ => LlmError::Api {
                status,
                message,
                attempts: 1,
            },
        }
    }
}

/// An API error built from an error response, with the key redacted from its text.
fn redacted_api_error(status_code: reqwest::StatusCode, body: &[u8], key: &ApiKey) -> OpenAIError {
    let api_error = match serde_json::from_slice::<WrappedError>(body) {
        Ok(wrapped) => ApiError {
            message: key.redact(&wrapped.error.message),
            param: wrapped.error.param.map(|p| key.redact(&p)),
            ..wrapped.error
        },
        Err(_) => ApiError {
            message: key.redact(&String::from_utf8_lossy(body)),
            ..ApiError::default()
        },
    };
    OpenAIError::ApiError(ApiErrorResponse {
        status_code,
        api_error,
    })
}

fn completion_of(resp: CreateChatCompletionResponse) -> Completion {
    let (prompt_tokens, completion_tokens) = resp
        .usage
        .as_ref()
        .map(|u| (u64::from(u.prompt_tokens), u64::from(u.completion_tokens)))
        .unwrap_or((0, 0));
    let text = resp
        .choices
        .into_iter()
        .next()
        .map(|c| c.message.content.or(c.message.refusal).unwrap_or_default())
        .unwrap_or_default();
    Completion {
        text,
        prompt_tokens,
        completion_tokens,
    }
}

pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !out.contains(&s_text) {
            out.push_str(": ");
            out.push_str(&s_text);
        }
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::record::Speaker;

    #[test]
    fn body_has_image_part_and_json_mode() {
        let msgs = vec![
            ChatMessage {
                role: Speaker::System,
                content: "s".into(),
                image_sha256: None,
            },
            ChatMessage {
                role: Speaker::User,
                content: "u".into(),
                image_sha256: Some("h".into()),
            },
        ];
        let params = SamplingParams {
            temperature: 0.0,
            max_tokens: Some(100),
            json_mode: true,
            sample: Some(2),
        };
        let body = OpenAiTransport::request_body("m", &msgs, Some(b"PNG"), &params);
        assert_eq!(body["response_format"]["type"], "json_object");
        assert_eq!(body["max_tokens"], 100);
        assert_eq!(body["seed"], 2);
        let url = body["messages"][1]["content"][1]["image_url"]["url"]
            .as_str()
            .unwrap();
        assert!(url.starts_with("data:image/png;base64,"));
        // async-openai accepts the shape.
        let _: CreateChatCompletionRequest = serde_json::from_value(body).unwrap();
    }
}
