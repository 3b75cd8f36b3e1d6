//! `synth llm ping`: is the endpoint reachable, is the key accepted, are the
//! configured models served?
//!
//! Lists models with `GET {base_url}/models`; when the server has no such route
//! (404/405), sends one tiny chat request to the explorer's model instead.

use std::fmt;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::openai::{error_chain, http_client};
use super::{LlmConfig, LlmError, Role};

/// How the endpoint was probed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PingMethod {
    ListModels,
    TinyChat,
}

/// What `ping` found.
#[derive(Debug, Clone, PartialEq)]
pub struct PingReport {
    pub base_url: String,
    pub method: PingMethod,
    pub latency: Duration,
    /// The models the endpoint lists (`None` when probed by chat).
    pub listed_models: Option<Vec<String>>,
    /// Configured models (role, model) that the endpoint does not list. Some servers
    /// accept names they do not list (aliases), so this is a warning, not an error.
    pub unlisted: Vec<(Role, String)>,
}

impl PingReport {
    pub fn is_ok(&self) -> bool {
        self.unlisted.is_empty()
    }
}

impl fmt::Display for PingReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.method {
            PingMethod::ListModels => write!(
                f,
                "{} is reachable and accepted the key (GET /models in {} ms, {} models listed)",
                self.base_url,
                self.latency.as_millis(),
                self.listed_models.as_ref().map_or(0, Vec::len)
            )?,
            PingMethod::TinyChat => write!(
                f,
                "{} is reachable and accepted the key (no /models route; a one-token chat \
                 request answered in {} ms)",
                self.base_url,
                self.latency.as_millis()
            )?,
        }
        for (role, model) in &self.unlisted {
            write!(
                f,
                "\nwarning: the {role} model '{model}' is not among the listed models; \
                 requests to it may fail with 404 (set [llm.roles.{role}] model in synth.toml)"
            )?;
        }
        Ok(())
    }
}

fn body_text(v: &str) -> String {
    let msg = serde_json::from_str::<Value>(v)
        .ok()
        .and_then(|j| j["error"]["message"].as_str().map(String::from))
        .unwrap_or_else(|| v.chars().take(300).collect());
    msg
}

/// Probes the endpoint of `cfg`.
///
/// # Errors
/// [`LlmError::MissingApiKey`], [`LlmError::Unreachable`] (DNS, refused
/// connection, timeout), [`LlmError::Unauthorized`] (401/403),
/// [`LlmError::ModelNotFound`] (404 on the chat probe), [`LlmError::Api`] (anything
/// else). Messages never contain the key.
pub async fn ping(cfg: &LlmConfig) -> Result<PingReport, LlmError> {
    cfg.validate_for_openai()?;
    let key = cfg.api_key.as_ref().ok_or(LlmError::MissingApiKey)?;
    let http = http_client(cfg)?;
    let base = cfg.base_url.trim_end_matches('/').to_string();
    let unreachable = |e: reqwest::Error| LlmError::Unreachable {
        base_url: base.clone(),
        message: key.redact(&error_chain(&e)),
    };
    let start = Instant::now();
    let resp = http
        .get(format!("{base}/models"))
        .bearer_auth(key.expose())
        .send()
        .await
        .map_err(unreachable)?;
    let status = resp.status().as_u16();
    let text = resp.text().await.map_err(unreachable)?;
    let latency = start.elapsed();
    match status {
        200..=299 => {
            let listed: Vec<String> = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| {
                    v["data"].as_array().map(|a| {
                        a.iter()
                            .filter_map(|m| m["id"].as_str().map(String::from))
                            .collect()
                    })
                })
                .unwrap_or_default();
            let unlisted = Role::ALL
                .into_iter()
                .map(|r| (r, cfg.role(r).model.clone()))
                .filter(|(_, m)| !listed.iter().any(|l| l == m))
                .collect();
            Ok(PingReport {
                base_url: base,
                method: PingMethod::ListModels,
                latency,
                listed_models: Some(listed),
                unlisted,
            })
        }
        401 | 403 => Err(LlmError::Unauthorized {
            status,
            message: key.redact(&body_text(&text)),
        }),
        404 | 405 => tiny_chat(cfg, &http, &base, key).await,
        _ => Err(LlmError::Api {
            status,
            message: key.redact(&body_text(&text)),
            attempts: 1,
        }),
    }
}

async fn tiny_chat(
    cfg: &LlmConfig,
    http: &reqwest::Client,
    base: &str,
    key: &super::ApiKey,
) -> Result<PingReport, LlmError> {
    let model = cfg.role(Role::Explorer).model.clone();
    let start = Instant::now();
    let resp = http
        .post(format!("{base}/chat/completions"))
        .bearer_auth(key.expose())
        .json(&json!({"model": model, "max_tokens": 1,
                      "messages": [{"role": "user", "content": "ping"}]}))
        .send()
        .await
        .map_err(|e| LlmError::Unreachable {
            base_url: base.to_string(),
            message: key.redact(&error_chain(&e)),
        })?;
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap_or_default();
    let message = key.redact(&body_text(&text));
    match status {
        200..=299 => Ok(PingReport {
            base_url: base.to_string(),
            method: PingMethod::TinyChat,
            latency: start.elapsed(),
            listed_models: None,
            unlisted: Vec::new(),
        }),
        401 | 403 => Err(LlmError::Unauthorized { status, message }),
        404 => Err(LlmError::ModelNotFound {
            model,
            base_url: base.to_string(),
            message,
        }),
        _ => Err(LlmError::Api {
            status,
            message,
            attempts: 1,
        }),
    }
}
