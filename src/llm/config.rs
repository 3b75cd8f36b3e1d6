//! The `[llm]` table of `synth.toml`, the API key wrapper and backend selection.
//!
//! Precedence, lowest first: the file, then `OPENAI_BASE_URL` / `OPENAI_API_KEY`,
//! then command-line flags ([`LlmConfig::resolve`]). The key is held in [`ApiKey`],
//! which cannot be serialized and prints as `***`.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{LlmError, Role};

/// An API key. `Debug` and `Display` print `***`; there is no `Serialize`, so the key
/// cannot reach the store, an export or a log by accident. [`ApiKey::expose`] is the
/// only way to read it (the HTTP transport and redaction use it).
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.trim().is_empty()
    }

    /// `text` with every occurrence of the key replaced by `***`.
    pub fn redact(&self, text: &str) -> String {
        if self.0.len() < 4 {
            return text.to_string();
        }
        text.replace(&self.0, "***")
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Which backend answers the roles (`--llm offline|openai|replay`, default offline).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// Deterministic rule-based roles (the embedded default, no network).
    #[default]
    Offline,
    /// Any OpenAI-compatible chat-completions endpoint.
    OpenAi,
    /// Answers only from recorded calls; a miss is an error.
    Replay,
}

impl Backend {
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Offline => "offline",
            Backend::OpenAi => "openai",
            Backend::Replay => "replay",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "offline" => Ok(Backend::Offline),
            "openai" => Ok(Backend::OpenAi),
            "replay" => Ok(Backend::Replay),
            other => Err(format!(
                "unknown backend '{other}' (expected offline, openai or replay)"
            )),
        }
    }
}

/// The model a role uses and whether that model takes images.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleModel {
    pub model: String,
    /// Send screenshots as `image_url` data URLs (only the actor has images today).
    #[serde(default)]
    pub multimodal: bool,
}

impl RoleModel {
    fn named(model: &str, multimodal: bool) -> RoleModel {
        RoleModel {
            model: model.to_string(),
            multimodal,
        }
    }
}

/// One model per role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RoleModels {
    pub explorer: RoleModel,
    pub actor: RoleModel,
    pub coder: RoleModel,
    pub planner: RoleModel,
    pub summarizer: RoleModel,
    pub reconstructor: RoleModel,
}

impl Default for RoleModels {
    fn default() -> Self {
        RoleModels {
            explorer: RoleModel::named(DEFAULT_MODEL, false),
            actor: RoleModel::named(DEFAULT_MODEL, true),
            coder: RoleModel::named(DEFAULT_MODEL, false),
            planner: RoleModel::named(DEFAULT_MODEL, false),
            summarizer: RoleModel::named(DEFAULT_MODEL, false),
            reconstructor: RoleModel::named(DEFAULT_MODEL, false),
        }
    }
}

impl RoleModels {
    pub fn get(&self, role: Role) -> &RoleModel {
        match role {
            Role::Explorer => &self.explorer,
            Role::Actor => &self.actor,
            Role::Coder => &self.coder,
            Role::Planner => &self.planner,
            Role::Summarizer => &self.summarizer,
            Role::Reconstructor => &self.reconstructor,
        }
    }

    pub fn get_mut(&mut self, role: Role) -> &mut RoleModel {
        match role {
            Role::Explorer => &mut self.explorer,
            Role::Actor => &mut self.actor,
            Role::Coder => &mut self.coder,
            Role::Planner => &mut self.planner,
            Role::Summarizer => &mut self.summarizer,
            Role::Reconstructor => &mut self.reconstructor,
        }
    }
}

/// Price of a model in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

impl Price {
    pub fn cost(&self, prompt_tokens: u64, completion_tokens: u64) -> f64 {
        (prompt_tokens as f64 * self.input + completion_tokens as f64 * self.output) / 1e6
    }
}

const DEFAULT_MODEL: &str = "gpt-4o-mini";
const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// The `[llm]` table of `synth.toml`.
///
/// ```toml
/// [llm]
/// base_url = "http://localhost:8000/v1"   # OPENAI_BASE_URL overrides
/// # api_key = "..."                        # prefer OPENAI_API_KEY
/// json_mode = true
/// timeout_ms = 60000
/// max_retries = 4
/// backoff_base_ms = 500
/// backoff_max_ms = 30000
/// concurrency = 8
/// reask_attempts = 2
/// [llm.roles.actor]
/// model = "gpt-4o"
/// multimodal = true
/// [llm.prices."gpt-4o"]
/// input = 2.5
/// output = 10.0
/// ```
///
/// Serializing skips the key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LlmConfig {
    /// Base URL of the OpenAI-compatible API, including `/v1` for most servers.
    pub base_url: String,
    #[serde(skip_serializing)]
    pub api_key: Option<ApiKey>,
    pub roles: RoleModels,
    /// Does the endpoint honour `response_format = {"type": "json_object"}`?
    pub json_mode: bool,
    /// Sampling temperature sent with every request (part of the call key).
    pub temperature: f32,
    /// `max_tokens` sent with every request, if set (part of the call key).
    pub max_tokens: Option<u32>,
    /// Per-request timeout, milliseconds.
    pub timeout_ms: u64,
    /// Retries after the first attempt on 429, 5xx, timeouts and connection errors.
    pub max_retries: u32,
    /// First backoff delay, milliseconds; doubles each retry, with jitter.
    pub backoff_base_ms: u64,
    /// Cap on one backoff delay (and on an honoured Retry-After), milliseconds.
    pub backoff_max_ms: u64,
    /// Requests in flight at once, shared by every role of a stage.
    pub concurrency: usize,
    /// How many times an unparsable or invalid reply is re-asked with the error.
    pub reask_attempts: u32,
    /// Prices per model name.
    pub prices: BTreeMap<String, Price>,
}

impl Default for LlmConfig {
    fn default() -> Self {
        LlmConfig {
            base_url: DEFAULT_BASE_URL.to_string(),
            api_key: None,
            roles: RoleModels::default(),
            json_mode: true,
            temperature: 0.0,
            max_tokens: None,
            timeout_ms: 60_000,
            max_retries: 4,
            backoff_base_ms: 500,
            backoff_max_ms: 30_000,
            concurrency: 8,
            reask_attempts: 2,
            prices: BTreeMap::new(),
        }
    }
}

/// Command-line flags that override the file and the environment.
#[derive(Debug, Clone, Default)]
pub struct LlmOverrides {
    pub base_url: Option<String>,
    pub api_key: Option<ApiKey>,
    /// One model for every role.
    pub model: Option<String>,
    pub concurrency: Option<usize>,
    pub timeout_ms: Option<u64>,
    pub max_retries: Option<u32>,
}

impl LlmConfig {
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }

    pub fn role(&self, role: Role) -> &RoleModel {
        self.roles.get(role)
    }

    pub fn price(&self, model: &str) -> Price {
        self.prices.get(model).copied().unwrap_or_default()
    }

    /// Applies `OPENAI_BASE_URL` / `OPENAI_API_KEY` from the process environment, then
    /// the flags.
    pub fn resolve(self, flags: &LlmOverrides) -> LlmConfig {
        self.resolve_with(|name| std::env::var(name).ok(), flags)
    }

    /// [`LlmConfig::resolve`] with an explicit environment (for tests).
    pub fn resolve_with(
        mut self,
        env: impl Fn(&str) -> Option<String>,
        flags: &LlmOverrides,
    ) -> LlmConfig {
        if let Some(url) = env("OPENAI_BASE_URL").filter(|v| !v.trim().is_empty()) {
            self.base_url = url;
        }
        if let Some(key) = env("OPENAI_API_KEY").filter(|v| !v.trim().is_empty()) {
            self.api_key = Some(ApiKey::new(key));
        }
        if let Some(url) = &flags.base_url {
            self.base_url = url.clone();
        }
        if let Some(key) = &flags.api_key {
            self.api_key = Some(key.clone());
        }
        if let Some(model) = &flags.model {
            for role in Role::ALL {
                self.roles.get_mut(role).model = model.clone();
            }
        }
        if let Some(c) = flags.concurrency {
            self.concurrency = c;
        }
        if let Some(t) = flags.timeout_ms {
            self.timeout_ms = t;
        }
        if let Some(r) = flags.max_retries {
            self.max_retries = r;
        }
        self
    }

    /// Checks what the openai backend needs before any request: a key, a base URL,
    /// model names, sane limits.
    ///
    /// # Errors
    /// [`LlmError::MissingApiKey`] or [`LlmError::Config`] naming the field.
    pub fn validate_for_openai(&self) -> Result<(), LlmError> {
        match &self.api_key {
            Some(k) if !k.is_empty() => {}
            _ => return Err(LlmError::MissingApiKey),
        }
        self.validate()
    }

    /// Checks the fields every backend relies on.
    ///
    /// # Errors
    /// [`LlmError::Config`] naming the field.
    pub fn validate(&self) -> Result<(), LlmError> {
        if !(self.base_url.starts_with("http://") || self.base_url.starts_with("https://")) {
            return Err(LlmError::Config(format!(
                "base_url '{}' must start with http:// or https://",
                self.base_url
            )));
        }
        for role in Role::ALL {
            if self.role(role).model.trim().is_empty() {
                return Err(LlmError::Config(format!("roles.{role}.model is empty")));
            }
        }
        if self.concurrency == 0 {
            return Err(LlmError::Config("concurrency must be at least 1".into()));
        }
        if self.timeout_ms == 0 {
            return Err(LlmError::Config("timeout_ms must be at least 1".into()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_never_prints() {
        let k = ApiKey::new("sk-secret-123");
        assert_eq!(format!("{k}"), "***");
        assert_eq!(format!("{k:?}"), "***");
        let cfg = LlmConfig {
            api_key: Some(k),
            ..LlmConfig::default()
        };
        assert!(!format!("{cfg:?}").contains("sk-secret"));
        assert!(!toml::to_string(&cfg).unwrap().contains("sk-secret"));
        assert!(!serde_json::to_string(&cfg).unwrap().contains("sk-secret"));
    }

    #[test]
    fn file_then_env_then_flags() {
        let cfg: LlmConfig = toml::from_str(
            "base_url = \"http://file/v1\"\napi_key = \"file-key\"\n[roles.actor]\nmodel = \"m\"\nmultimodal = true\n[prices.m]\ninput = 1.0\noutput = 2.0\n",
        )
        .unwrap();
        assert_eq!(cfg.role(Role::Actor).model, "m");
        assert_eq!(cfg.role(Role::Coder).model, DEFAULT_MODEL);
        let env = |name: &str| match name {
            "OPENAI_BASE_URL" => Some("http://env/v1".to_string()),
            "OPENAI_API_KEY" => Some("env-key".to_string()),
            _ => None,
        };
        let resolved = cfg.clone().resolve_with(env, &LlmOverrides::default());
        assert_eq!(resolved.base_url, "http://env/v1");
        assert_eq!(resolved.api_key.as_ref().unwrap().expose(), "env-key");
        let flags = LlmOverrides {
            base_url: Some("http://flag/v1".into()),
            api_key: Some(ApiKey::new("flag-key")),
            concurrency: Some(3),
            ..LlmOverrides::default()
        };
        let resolved = cfg.resolve_with(env, &flags);
        assert_eq!(resolved.base_url, "http://flag/v1");
        assert_eq!(resolved.api_key.unwrap().expose(), "flag-key");
        assert_eq!(resolved.concurrency, 3);
    }

    #[test]
    fn unknown_fields_are_rejected() {
        let err = toml::from_str::<LlmConfig>("base_urll = \"x\"").unwrap_err();
        assert!(err.to_string().contains("base_urll"), "{err}");
    }

    #[test]
    fn missing_key_is_a_clear_error() {
        let err = LlmConfig::default().validate_for_openai().unwrap_err();
        assert!(err.to_string().contains("OPENAI_API_KEY"));
    }

    #[test]
    fn backend_parses() {
        assert_eq!("replay".parse::<Backend>().unwrap(), Backend::Replay);
        assert_eq!(Backend::default(), Backend::Offline);
        assert!("gpt".parse::<Backend>().is_err());
    }
}
