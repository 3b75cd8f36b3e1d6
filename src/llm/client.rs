//! [`LlmClient`]: the engine behind the `openai` and `replay` backends.
//!
//! For one role request it renders the prompt, computes the call key, answers from
//! the call record when it can (always for `replay`, unless `no_cache` for
//! `openai`), otherwise sends the request under the shared concurrency limit with
//! the single retry policy, parses and validates the reply, re-asks with the error
//! when the reply is unusable, records every fresh exchange, and counts usage and
//! cost per role.
//!
//! The record is the store's [`CallLog`], shared by every clone of the client.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::store::calls::CallLog;
use tokio::sync::Semaphore;
use tracing::{debug, warn};

use super::openai::OpenAiTransport;
use super::parse::first_json_value;
use super::prompt::Prompts;
use super::record::{
    self, sha256_hex, CallOutcome, CallRecord, ChatMessage, SamplingParams, Speaker,
};
use super::retry::RetryPolicy;
use super::roles::*;
use super::{Backend, LlmConfig, LlmError, OfflineRoles, Role};
use crate::model::Check;

/// Options of a client that are not part of `synth.toml`.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Tags recorded calls, for per-run usage.
    pub run_id: String,
    /// `--no-cache`: ignore recorded replies and ask again (openai only).
    pub no_cache: bool,
    /// A workspace `prompts/` directory whose `<role>.tera` files override the
    /// embedded templates.
    pub prompts_dir: Option<PathBuf>,
    /// Ping the endpoint when the openai client starts (fail early when it is
    /// unreachable or the key is refused).
    pub check_endpoint: bool,
    /// The process's model budget, shared with the other stages' clients.
    pub budget: Arc<super::Budget>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            run_id: "default".into(),
            no_cache: false,
            prompts_dir: None,
            check_endpoint: true,
            budget: Arc::default(),
        }
    }
}

/// Where the replay backend finds recorded calls.
#[derive(Debug, Clone)]
pub enum ReplaySource {
    /// The `model_calls` table of the store.
    Store,
    /// A JSONL file of [`record::CallRecord`]s (see [`record::export_jsonl`]).
    Jsonl(PathBuf),
}

enum Mode {
    OpenAi(Box<OpenAiTransport>),
    ReplayStore,
    ReplayMap(HashMap<String, CallRecord>),
}

/// Usage counters of one role (or the total).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct UsageCounts {
    /// Role calls asked for (a call may span several replies and requests).
    pub calls: u64,
    /// Replies answered from the call record.
    pub cache_hits: u64,
    /// HTTP requests sent (retries included).
    pub http_requests: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cost_usd: f64,
    pub rejected: u64,
    pub errors: u64,
}

impl UsageCounts {
    fn add(&mut self, o: &UsageCounts) {
        self.calls += o.calls;
        self.cache_hits += o.cache_hits;
        self.http_requests += o.http_requests;
        self.prompt_tokens += o.prompt_tokens;
        self.completion_tokens += o.completion_tokens;
        self.cost_usd += o.cost_usd;
        self.rejected += o.rejected;
        self.errors += o.errors;
    }
}

/// A cheap copy of the counters, for progress bars.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UsageSnapshot {
    pub roles: Vec<(Role, UsageCounts)>,
    pub total: UsageCounts,
}

impl fmt::Display for UsageSnapshot {
    /// One line for a progress bar: `calls 12 (3 cached) · tokens 1200/340 · $0.0123`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.total;
        write!(
            f,
            "calls {} ({} cached) · tokens {}/{} · ${:.4}",
            t.calls, t.cache_hits, t.prompt_tokens, t.completion_tokens, t.cost_usd
        )?;
        if t.rejected + t.errors > 0 {
            write!(f, " · {} rejected · {} failed", t.rejected, t.errors)?;
        }
        Ok(())
    }
}

#[derive(Default)]
struct Counters {
    calls: AtomicU64,
    cache_hits: AtomicU64,
    http_requests: AtomicU64,
    prompt_tokens: AtomicU64,
    completion_tokens: AtomicU64,
    cost_nano_usd: AtomicU64,
    rejected: AtomicU64,
    errors: AtomicU64,
}

impl Counters {
    fn read(&self) -> UsageCounts {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        UsageCounts {
            calls: g(&self.calls),
            cache_hits: g(&self.cache_hits),
            http_requests: g(&self.http_requests),
            prompt_tokens: g(&self.prompt_tokens),
            completion_tokens: g(&self.completion_tokens),
            cost_usd: g(&self.cost_nano_usd) as f64 / 1e9,
            rejected: g(&self.rejected),
            errors: g(&self.errors),
        }
    }
}

struct Inner {
    cfg: LlmConfig,
    mode: Mode,
    backend: Backend,
    calls: CallLog,
    prompts: Prompts,
    semaphore: Arc<Semaphore>,
    policy: RetryPolicy,
    counters: [Counters; 6],
    run_id: String,
    no_cache: bool,
    /// How many times each first-ask key was asked by this client: a request
    /// asked again is a new sample (see [`SamplingParams::sample`]).
    asked: Mutex<HashMap<String, u32>>,
    budget: Arc<super::Budget>,
    /// Calls in a row (since the last reply) that ended, after every retry, with
    /// the endpoint refusing or dropping the connection; see [`REFUSED_IN_A_ROW`].
    refused: AtomicU64,
}

/// After this many calls in a row fail to connect (each after all its
/// retries), the endpoint is taken to be down: the client's further calls fail
/// at once with [`LlmError::EndpointDown`], without a request, so that a stage
/// whose endpoint died leaves its remaining units for the next run within
/// seconds instead of retrying each of them (the units stay pending either way).
pub const REFUSED_IN_A_ROW: u64 = 8;

/// The lowest temperature of a repeated request: at temperature 0 a model gives
/// the answer that just failed again, so a new attempt with the same prompt could
/// not change anything.
pub const REPEAT_MIN_TEMPERATURE: f32 = 0.7;

/// The openai / replay backend. Cheap to clone; clones share the record, the
/// concurrency limit and the counters.
#[derive(Clone)]
pub struct LlmClient {
    inner: Arc<Inner>,
}

impl fmt::Debug for LlmClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmClient")
            .field("backend", &self.inner.backend)
            .field("base_url", &self.inner.cfg.base_url)
            .field("run_id", &self.inner.run_id)
            .finish()
    }
}

/// Result of one exchange (from the record or the endpoint).
struct Exchanged {
    text: String,
    cached: bool,
    http_attempts: u32,
    prompt_tokens: u64,
    completion_tokens: u64,
    cost_usd: f64,
    latency_ms: u64,
    /// Failed attempts that were retried, by fault class.
    faults: std::collections::BTreeMap<String, u32>,
}

impl LlmClient {
    fn build(
        cfg: LlmConfig,
        mode: Mode,
        backend: Backend,
        calls: CallLog,
        opts: &ClientOptions,
    ) -> Result<LlmClient, LlmError> {
        cfg.validate()?;
        let prompts = Prompts::load(opts.prompts_dir.as_deref())?;
        Ok(LlmClient {
            inner: Arc::new(Inner {
                policy: RetryPolicy::from_config(&cfg),
                semaphore: Arc::new(Semaphore::new(cfg.concurrency)),
                cfg,
                mode,
                backend,
                calls,
                prompts,
                counters: Default::default(),
                run_id: opts.run_id.clone(),
                no_cache: opts.no_cache,
                asked: Mutex::new(HashMap::new()),
                budget: opts.budget.clone(),
                refused: AtomicU64::new(0),
            }),
        })
    }

    /// The openai backend. With `opts.check_endpoint` it pings the endpoint first.
    ///
    /// # Errors
    /// [`LlmError::MissingApiKey`], [`LlmError::Config`], and with the check
    /// [`LlmError::Unreachable`] / [`LlmError::Unauthorized`] and the like.
    pub async fn openai(
        cfg: LlmConfig,
        calls: CallLog,
        opts: ClientOptions,
    ) -> Result<LlmClient, LlmError> {
        let transport = OpenAiTransport::new(&cfg)?;
        if opts.check_endpoint {
            let report = super::ping(&cfg).await?;
            if report.is_ok() {
                debug!(%report, "model endpoint reachable");
            } else {
                warn!(%report, "model endpoint reachable, but some models are not listed");
            }
        }
        LlmClient::build(
            cfg,
            Mode::OpenAi(Box::new(transport)),
            Backend::OpenAi,
            calls,
            &opts,
        )
    }

    /// The replay backend: answers only from recorded calls.
    ///
    /// # Errors
    /// [`LlmError::ReplayFile`] when the JSONL file does not read.
    pub fn replay(
        cfg: LlmConfig,
        calls: CallLog,
        source: ReplaySource,
        opts: ClientOptions,
    ) -> Result<LlmClient, LlmError> {
        let mode = match source {
            ReplaySource::Store => Mode::ReplayStore,
            ReplaySource::Jsonl(path) => Mode::ReplayMap(record::load_jsonl(&path)?),
        };
        LlmClient::build(cfg, mode, Backend::Replay, calls, &opts)
    }

    /// The concurrency limit, for stages that also want to bound other work by it.
    pub fn semaphore(&self) -> Arc<Semaphore> {
        self.inner.semaphore.clone()
    }

    pub fn config(&self) -> &LlmConfig {
        &self.inner.cfg
    }

    /// Usage so far, per role and total (atomics only; cheap enough for every tick).
    pub fn usage(&self) -> UsageSnapshot {
        let mut snap = UsageSnapshot::default();
        for role in Role::ALL {
            let c = self.inner.counters[role.index()].read();
            snap.total.add(&c);
            snap.roles.push((role, c));
        }
        snap
    }

    fn count(&self, role: Role) -> &Counters {
        &self.inner.counters[role.index()]
    }

    /// Asks one role request and returns the typed, validated result.
    ///
    /// # Errors
    /// See [`LanguageModel`]: transport failure after retries, replay miss, prompt
    /// or record failure. An unusable reply is `Ok(Outcome::Rejected)`.
    pub async fn call<R: RoleRequest>(&self, req: &R) -> Result<Reply<R::Output>, LlmError> {
        let inner = &*self.inner;
        let role = R::ROLE;
        let role_model = inner.cfg.role(role);
        let model = role_model.model.clone();
        let rendered = inner.prompts.render(req)?;
        let image = if role_model.multimodal {
            req.image()
        } else {
            None
        };
        let mut params = SamplingParams {
            temperature: inner.cfg.temperature,
            max_tokens: inner.cfg.max_tokens,
            json_mode: inner.cfg.json_mode,
            sample: None,
        };
        let mut messages = vec![
            ChatMessage {
                role: Speaker::System,
                content: rendered.system,
                image_sha256: None,
            },
            ChatMessage {
                role: Speaker::User,
                content: rendered.user,
                image_sha256: image.map(sha256_hex),
            },
        ];
        self.count(role).calls.fetch_add(1, Ordering::Relaxed);
        // The same request asked again (a new verify round or validation attempt
        // whose prompt did not change) is a new sample, not the recorded answer
        // that just failed. A replay of the run asks in the same order, so it
        // finds every sample in the record.
        let first_key = record::call_key(role, &model, &messages, &params);
        let repeat = {
            let mut asked = self.inner.asked.lock().unwrap_or_else(|p| p.into_inner());
            let n = asked.entry(first_key).or_insert(0);
            *n += 1;
            *n - 1
        };
        if repeat > 0 {
            params.sample = Some(repeat);
            params.temperature = params.temperature.max(REPEAT_MIN_TEMPERATURE);
        }
        let mut info = CallInfo {
            backend: inner.backend,
            model: Some(model.clone()),
            prompt_hash: None,
            replies: 0,
            http_requests: 0,
            cached: true,
        };
        let reasks = inner.cfg.reask_attempts;
        let mut round = 0;
        loop {
            let key = record::call_key(role, &model, &messages, &params);
            info.prompt_hash = Some(key.clone());
            info.replies += 1;
            let ex = self
                .exchange(role, &model, &key, &messages, image, &params)
                .await?;
            info.cached &= ex.cached;
            info.http_requests += ex.http_attempts;
            let mut faults = ex.faults.clone();
            let parsed = match first_json_value(&ex.text) {
                Ok(v) => req.parse(v).map_err(|e| ("schema_invalid", e)),
                Err(e) => Err(("not_json", e)),
            };
            if let Err((class, _)) = &parsed {
                *faults.entry(class.to_string()).or_insert(0) += 1;
            }
            let parsed = parsed.map_err(|(_, e)| e);
            let last = round >= reasks;
            let outcome = match (&parsed, last) {
                (Ok(_), _) => CallOutcome::Accepted,
                (Err(_), false) => CallOutcome::Invalid,
                (Err(_), true) => CallOutcome::Rejected,
            };
            if !ex.cached {
                let rec = CallRecord {
                    key_hash: key.clone(),
                    role,
                    model: model.clone(),
                    run_id: inner.run_id.clone(),
                    request: record::request_json(&messages, &params),
                    reply: Some(ex.text.clone()),
                    prompt_tokens: ex.prompt_tokens,
                    completion_tokens: ex.completion_tokens,
                    cost_usd: ex.cost_usd,
                    latency_ms: ex.latency_ms,
                    http_attempts: ex.http_attempts,
                    outcome,
                    error: parsed.as_ref().err().cloned(),
                    created_at: None,
                    faults,
                };
                inner.calls.insert(&rec)?;
            }
            match parsed {
                Ok(value) => {
                    return Ok(Reply {
                        outcome: Outcome::Accepted(value),
                        info,
                    })
                }
                Err(reason) if last => {
                    self.count(role).rejected.fetch_add(1, Ordering::Relaxed);
                    warn!(role = %role, prompt_hash = %key, %reason, "model reply rejected");
                    return Ok(Reply {
                        outcome: Outcome::Rejected {
                            reason,
                            raw: ex.text,
                        },
                        info,
                    });
                }
                Err(reason) => {
                    debug!(role = %role, prompt_hash = %key, %reason, "re-asking after an unusable reply");
                    messages.push(ChatMessage {
                        role: Speaker::Assistant,
                        content: ex.text,
                        image_sha256: None,
                    });
                    messages.push(ChatMessage {
                        role: Speaker::User,
                        content: format!(
                            "Your reply could not be used: {reason}\nAnswer again with the \
                             corrected JSON only, in the format asked for above."
                        ),
                        image_sha256: None,
                    });
                    round += 1;
                }
            }
        }
    }

    async fn exchange(
        &self,
        role: Role,
        model: &str,
        key: &str,
        messages: &[ChatMessage],
        image: Option<&[u8]>,
        params: &SamplingParams,
    ) -> Result<Exchanged, LlmError> {
        let inner = &*self.inner;
        let recorded = match &inner.mode {
            Mode::OpenAi(_) if inner.no_cache => None,
            Mode::OpenAi(_) | Mode::ReplayStore => inner.calls.lookup(key)?,
            Mode::ReplayMap(map) => map.get(key).cloned(),
        };
        if let Some(rec) = recorded {
            self.count(role).cache_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(Exchanged {
                text: rec.reply.unwrap_or_default(),
                cached: true,
                http_attempts: 0,
                prompt_tokens: 0,
                completion_tokens: 0,
                cost_usd: 0.0,
                latency_ms: 0,
                faults: Default::default(),
            });
        }
        let transport = match &inner.mode {
            Mode::OpenAi(t) => t,
            Mode::ReplayStore | Mode::ReplayMap(_) => {
                self.count(role).errors.fetch_add(1, Ordering::Relaxed);
                return Err(LlmError::ReplayMiss {
                    role,
                    prompt_hash: key.to_string(),
                });
            }
        };
        let refused = inner.refused.load(Ordering::Relaxed);
        if refused >= REFUSED_IN_A_ROW {
            self.count(role).errors.fetch_add(1, Ordering::Relaxed);
            return Err(LlmError::EndpointDown {
                base_url: inner.cfg.base_url.clone(),
                calls: refused,
            });
        }
        let start = Instant::now();
        let mut attempt: u32 = 0;
        let mut faults: std::collections::BTreeMap<String, u32> = Default::default();
        loop {
            attempt += 1;
            if let Err(e) = inner.budget.take(role) {
                self.count(role).errors.fetch_add(1, Ordering::Relaxed);
                return Err(e);
            }
            let result = {
                let _permit = inner
                    .semaphore
                    .acquire()
                    .await
                    .map_err(|_| LlmError::Config("the concurrency limit was closed".into()))?;
                self.count(role)
                    .http_requests
                    .fetch_add(1, Ordering::Relaxed);
                transport.send(model, messages, image, params).await
            };
            match result {
                Ok(c) => {
                    inner.refused.store(0, Ordering::Relaxed);
                    let cost = inner
                        .cfg
                        .price(model)
                        .cost(c.prompt_tokens, c.completion_tokens);
                    inner
                        .budget
                        .spend(role, c.prompt_tokens, c.completion_tokens, cost);
                    let counters = self.count(role);
                    counters
                        .prompt_tokens
                        .fetch_add(c.prompt_tokens, Ordering::Relaxed);
                    counters
                        .completion_tokens
                        .fetch_add(c.completion_tokens, Ordering::Relaxed);
                    counters
                        .cost_nano_usd
                        .fetch_add((cost * 1e9).round() as u64, Ordering::Relaxed);
                    return Ok(Exchanged {
                        text: c.text,
                        cached: false,
                        http_attempts: attempt,
                        prompt_tokens: c.prompt_tokens,
                        completion_tokens: c.completion_tokens,
                        cost_usd: cost,
                        latency_ms: start.elapsed().as_millis() as u64,
                        faults,
                    });
                }
                Err(e) if e.is_transient() && attempt <= inner.policy.max_retries => {
                    let delay = inner.policy.delay(attempt - 1, e.retry_after());
                    // The error counts the attempts made so far, this one included.
                    let e = e.with_attempts(attempt);
                    if let Some(class) = e.fault_class() {
                        *faults.entry(class.to_string()).or_insert(0) += 1;
                    }
                    warn!(
                        role = %role,
                        prompt_hash = %key,
                        attempt,
                        delay_ms = delay.as_millis() as u64,
                        error = %e,
                        "retrying model request"
                    );
                    tokio::time::sleep(delay).await;
                }
                Err(e) => {
                    let e = e.with_attempts(attempt);
                    if matches!(e, LlmError::Connection { .. }) {
                        inner.refused.fetch_add(1, Ordering::Relaxed);
                    }
                    if let Some(class) = e.fault_class() {
                        *faults.entry(class.to_string()).or_insert(0) += 1;
                    }
                    self.count(role).errors.fetch_add(1, Ordering::Relaxed);
                    // The caller reports the failure once, naming what it was for
                    // (an application, a unit, a task); a warning here printed
                    // every such error twice.
                    debug!(role = %role, prompt_hash = %key, error = %e, "model request failed");
                    let rec = CallRecord {
                        key_hash: key.to_string(),
                        role,
                        model: model.to_string(),
                        run_id: inner.run_id.clone(),
                        request: record::request_json(messages, params),
                        reply: None,
                        prompt_tokens: 0,
                        completion_tokens: 0,
                        cost_usd: 0.0,
                        latency_ms: start.elapsed().as_millis() as u64,
                        http_attempts: attempt,
                        outcome: CallOutcome::Error,
                        error: Some(e.to_string()),
                        created_at: None,
                        faults,
                    };
                    inner.calls.insert(&rec)?;
                    return Err(e);
                }
            }
        }
    }
}

impl LanguageModel for LlmClient {
    fn backend(&self) -> Backend {
        self.inner.backend
    }
    fn explore<'a>(&'a self, req: &'a ExploreRequest) -> RoleFuture<'a, Vec<SubtaskProposal>> {
        Box::pin(self.call(req))
    }
    fn act<'a>(&'a self, req: &'a ActRequest) -> RoleFuture<'a, ActorStep> {
        Box::pin(self.call(req))
    }
    fn code<'a>(&'a self, req: &'a CodeRequest) -> RoleFuture<'a, Vec<Check>> {
        Box::pin(self.call(req))
    }
    fn plan<'a>(&'a self, req: &'a PlanRequest) -> RoleFuture<'a, Vec<Intent>> {
        Box::pin(self.call(req))
    }
    fn summarize<'a>(&'a self, req: &'a SummarizeRequest) -> RoleFuture<'a, Summary> {
        Box::pin(self.call(req))
    }
    fn reconstruct<'a>(&'a self, req: &'a ReconstructRequest) -> RoleFuture<'a, Vec<Edge>> {
        Box::pin(self.call(req))
    }
}

/// Builds the backend chosen by `--llm`: `offline` uses `offline` (roles without an
/// implementation answer "not available yet"), `openai` starts an [`LlmClient`]
/// (pinging the endpoint when `opts.check_endpoint`), `replay` reads `replay_file`
/// when given, else the store's record.
///
/// # Errors
/// Those of [`LlmClient::openai`] and [`LlmClient::replay`].
pub async fn select_backend(
    backend: Backend,
    cfg: LlmConfig,
    calls: CallLog,
    opts: ClientOptions,
    offline: OfflineRoles,
    replay_file: Option<PathBuf>,
) -> Result<Arc<dyn LanguageModel>, LlmError> {
    Ok(match backend {
        Backend::Offline => Arc::new(offline),
        Backend::OpenAi => Arc::new(LlmClient::openai(cfg, calls, opts).await?),
        Backend::Replay => {
            let source = replay_file.map_or(ReplaySource::Store, ReplaySource::Jsonl);
            Arc::new(LlmClient::replay(cfg, calls, source, opts)?)
        }
    })
}
