//! The language-model layer: role trait, backends, prompts, call record, retries.
//!
//! Stages ask [`LanguageModel`] for typed results (one method per role:
//! explorer, actor, coder, planner, summarizer, reconstructor) and never
//! see HTTP or JSON. This module owns:
//!
//! - [`roles`]: the typed request contexts, the typed results and their validation,
//!   the [`LanguageModel`] trait and [`Outcome`] (accepted value or rejection).
//! - [`config`]: [`LlmConfig`] (the `[llm]` table of `synth.toml`), [`ApiKey`],
//!   [`Backend`] and how environment variables and flags override the file.
//! - [`prompt`]: the tera templates `prompts/<role>.tera` (embedded in the binary,
//!   overridable from a workspace `prompts/` directory).
//! - [`parse`]: defensive extraction of the first JSON value from a model reply.
//! - [`budget`]: [`Budget`], `--max-calls` / `--max-cost` shared by a process's stages.
//! - [`client`]: [`LlmClient`], the engine of the `openai` and `replay` backends:
//!   call record lookup, bounded concurrency, one retry policy, re-asking on
//!   unparsable replies, usage and cost accounting.
//! - [`openai`]: one HTTP exchange with an OpenAI-compatible endpoint through
//!   async-openai (its built-in retry is replaced by ours, see [`retry`]).
//! - [`record`]: the call record type, call keys and JSONL import/export (the rows
//!   live in the store's `model_calls` table, see [`crate::store::calls`]).
//! - [`offline`]: [`OfflineRoles`], the seam where rule-based role implementations
//!   plug in.
//! - [`ping`]: `synth llm ping`.
//! - [`feedback`]: cross-verification feedback for the actor and the coder, as
//!   data; rendered to text only in their prompts.
//!
//! The throughput/overhead benchmark is `benches/llm.rs` (a bench only: its loopback
//! server is wiremock, a dev-dependency).
//!
//! The API key never enters the call record, logs or error messages: it lives in
//! [`ApiKey`], whose `Debug` and `Display` print `***`, and error texts coming back
//! from the server are redacted before they are kept.

pub mod budget;
pub mod client;
pub mod config;
pub mod feedback;
pub mod offline;
pub mod openai;
pub mod parse;
pub mod ping;
pub mod prompt;
pub mod record;
pub mod retry;
pub mod roles;

use std::fmt;
use std::time::Duration;

pub use budget::Budget;
pub use client::{
    select_backend, ClientOptions, LlmClient, ReplaySource, UsageCounts, UsageSnapshot,
};
pub use config::{ApiKey, Backend, LlmConfig, LlmOverrides, RoleModel};
pub use feedback::{ActorFeedback, CheckEvidence, CoderFeedback, FailedCheck, Finding, Subgoals};
pub use offline::{OfflineRole, OfflineRoles};
pub use ping::{ping, PingReport};
pub use record::{CallOutcome, RoleUsage};
pub use roles::*;

/// The six language-model roles
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Explorer,
    Actor,
    Coder,
    Planner,
    Summarizer,
    Reconstructor,
}

impl Role {
    pub const ALL: [Role; 6] = [
        Role::Explorer,
        Role::Actor,
        Role::Coder,
        Role::Planner,
        Role::Summarizer,
        Role::Reconstructor,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Explorer => "explorer",
            Role::Actor => "actor",
            Role::Coder => "coder",
            Role::Planner => "planner",
            Role::Summarizer => "summarizer",
            Role::Reconstructor => "reconstructor",
        }
    }

    /// Index into per-role arrays (`Role::ALL[i]`).
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Role {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| format!("unknown role '{s}'"))
    }
}

/// Errors of the language-model layer. Every message is safe to show: none holds
/// the API key (server texts are redacted before they get here).
///
/// A reply that does not parse or validate is not an error: it is re-asked and,
/// failing that, comes back as [`Outcome::Rejected`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    #[error(
        "no API key for the openai backend: set OPENAI_API_KEY (or `api_key` in the \
         [llm] table of synth.toml); any non-empty string does for local servers that \
         ignore keys"
    )]
    MissingApiKey,
    #[error("invalid [llm] configuration: {0}")]
    Config(String),
    #[error("cannot reach the model endpoint {base_url}: {message}")]
    Unreachable { base_url: String, message: String },
    #[error(
        "the endpoint rejected the API key (HTTP {status}): {message}; check \
         OPENAI_API_KEY or `api_key` in synth.toml"
    )]
    Unauthorized { status: u16, message: String },
    #[error("model '{model}' is not served by {base_url} (HTTP 404): {message}")]
    ModelNotFound {
        model: String,
        base_url: String,
        message: String,
    },
    #[error("rate limited after {attempts} attempt(s) (last retry-after {retry_after:?})")]
    RateLimited {
        attempts: u32,
        retry_after: Option<Duration>,
    },
    #[error("HTTP {status} after {attempts} attempt(s): {message}")]
    Api {
        status: u16,
        message: String,
        attempts: u32,
    },
    #[error("no reply within {timeout:?} after {attempts} attempt(s)")]
    Timeout { timeout: Duration, attempts: u32 },
    #[error("connection failed after {attempts} attempt(s): {message}")]
    Connection { message: String, attempts: u32 },
    #[error("unusable response body after {attempts} attempt(s): {message}")]
    BadResponse { message: String, attempts: u32 },
    #[error("the model budget is spent ({limit}); run again with a higher limit to go on")]
    BudgetSpent { limit: String },
    #[error(
        "the model endpoint {base_url} is down ({calls} calls in a row could not \
         connect, each after its retries); nothing more was sent to it: run again \
         once it answers"
    )]
    EndpointDown { base_url: String, calls: u64 },
    #[error("replay: no recorded call for role {role} with prompt hash {prompt_hash}")]
    ReplayMiss { role: Role, prompt_hash: String },
    #[error("offline {role} is not available yet (use --llm openai or --llm replay)")]
    OfflineUnavailable { role: Role },
    #[error("prompt template {role}.tera: {message}")]
    Prompt { role: Role, message: String },
    #[error("cannot use the call record")]
    Record(#[from] crate::store::StoreError),
    #[error("replay file {path}:{line}: {message}")]
    ReplayFile {
        path: String,
        line: usize,
        message: String,
    },
}

impl LlmError {
    /// Could the same call succeed if tried again later (what the retry policy retries)?
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            LlmError::RateLimited { .. }
                | LlmError::Timeout { .. }
                | LlmError::Connection { .. }
                | LlmError::BadResponse { .. }
        ) || matches!(self, LlmError::Api { status, .. } if *status >= 500 || *status == 408)
    }
}

impl LlmError {
    /// Sets the attempt count of a transport error (the retry loop knows it).
    pub(crate) fn with_attempts(mut self, n: u32) -> LlmError {
        match &mut self {
            LlmError::RateLimited { attempts, .. }
            | LlmError::Api { attempts, .. }
            | LlmError::Timeout { attempts, .. }
            | LlmError::Connection { attempts, .. }
            | LlmError::BadResponse { attempts, .. } => *attempts = n,
            _ => {}
        }
        self
    }

    /// The class of a transport failure, as the call record counts faults
    /// (`rate_limited`, `server_error`, `timeout`, `connection`, `bad_response`,
    /// `http_error`); `None` for errors that are not about one request.
    pub fn fault_class(&self) -> Option<&'static str> {
        Some(match self {
            LlmError::RateLimited { .. } => "rate_limited",
            LlmError::Api { status, .. } if *status >= 500 => "server_error",
            LlmError::Api { .. } => "http_error",
            LlmError::Timeout { .. } => "timeout",
            LlmError::Connection { .. } => "connection",
            LlmError::BadResponse { .. } => "bad_response",
            _ => return None,
        })
    }

    /// The server's `Retry-After`, when it sent one with a 429.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            LlmError::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}
