//! `synth verify`: iterative, cross-verified synthesis of a trajectory and an
//! evaluation for every proposed subtask (OmniBench section 3.2, appendix B.2).
//!
//! The stage reads the subtasks with status `proposed` and works in two phases.
//!
//! 1. **Units.** Each (subtask, parameter set) is one unit, verified by the loop of
//!    [`rounds`]: the actor acts in the instance's fresh desktop ([`contract`]),
//!    the coder writes checks, the checks are evaluated on the trajectory's final
//!    state and the contract's outputs must hold; failures feed back to both sides
//!    for up to `--rounds` rounds. A finished unit is written in one transaction
//!    (its rounds in `verification_rounds`, its outcome in `verify_units`), so a
//!    run killed at any point (even `kill -9`) and restarted redoes only the units
//!    that were not written, and the model's call record answers repeated calls.
//!    Units run in parallel on `--jobs` threads; each unit's result depends only on
//!    the unit, so the store ends the same whatever the thread count.
//! 2. **Subtasks.** When every unit of a subtask is written, the subtask is decided
//!    (one transaction each). Its evaluation is the checks of its first passing
//!    unit; every passing unit must be accepted by that evaluation, and the
//!    evaluation must fail on `--discriminative` trajectories of other subtasks
//!    (other passing units and verified trajectories in the store, same
//!    application first, chosen by a stable hash: deterministic). A subtask is
//!    verified when at least one parameter set survives: it keeps only the
//!    surviving parameter sets, in their original order and re-indexed, each with
//!    its trajectory (`trajectory_id` `<subtask>-p<original index>`); the dropped
//!    sets stay out of the pool (their rounds and reasons remain in
//!    `verification_rounds` and `verify_units` under their original index). A
//!    subtask with no surviving set is rejected with the reasons of every set,
//!    round by round.
//!
//! Units, decisions and mutants run on copies of the backend's [`Replica`] (the
//! simulated desktop); a backend without one (a real desktop) is verified by
//! [`real::run`] instead.
//!
//! With `--mutants`, every verified subtask's evaluation is then mutation-tested
//! ([`mutants`]). The offline actor is [`actor::OfflineActor`]; when the caller
//! brings no offline coder, [`HandWrittenCoder`] answers with the subtask's own
//! stored evaluation (the hand-written pool's), dropping checks the evidence shows
//! can never hold.
//!
//! The test hook `SYNTH_TEST_ABORT_AFTER=N` (also `--abort-after`, hidden) ends the
//! process abruptly after N units were written, for the kill-and-resume test.

pub mod actor;
pub mod contract;
pub mod mutants;
pub mod real;
pub mod rounds;

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;
use tracing::warn;

use self::contract::{accepted_other, judge, replay, start_state, Instance, Other};
use self::mutants::MutationReport;
use self::rounds::{unverifiable, UnitContext, UnitRecord};
use super::StageContext;
use crate::env::{EnvError, Replica};
use crate::llm::{
    ActRequest, ApiDoc, Backend, ClientOptions, CodeRequest, LanguageModel, LlmClient, LlmError,
    OfflineRole, OfflineRoles, Outcome, ReplaySource, Role,
};
use crate::model::{Check, Evaluation, Subtask, SubtaskStatus, TrajectoryAction};
use crate::resources::Catalog;
use crate::store::StoreError;

/// Options of `synth verify`.
#[derive(Debug, Clone, clap::Args, Serialize)]
pub struct VerifyArgs {
    /// Cross-verification rounds per subtask and parameter set.
    #[arg(long, default_value_t = 3)]
    pub rounds: u32,
    /// Trajectories of other subtasks the evaluation must reject.
    #[arg(long, default_value_t = 3)]
    pub discriminative: usize,
    /// Also mutation-test the evaluations of the verified subtasks.
    #[arg(long)]
    pub mutants: bool,
    /// Actor steps per trajectory.
    #[arg(long, default_value_t = 30)]
    pub max_steps: usize,
    /// Test hook: end the process abruptly after this many units were written.
    #[arg(long, env = "SYNTH_TEST_ABORT_AFTER", hide = true)]
    #[serde(skip)]
    pub abort_after: Option<usize>,
}

impl Default for VerifyArgs {
    fn default() -> Self {
        VerifyArgs {
            rounds: 3,
            discriminative: 3,
            mutants: false,
            max_steps: 30,
            abort_after: None,
        }
    }
}

/// Errors of `synth verify`. Rejected subtasks are data, not errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("desktop: {0}")]
    Env(#[from] EnvError),
    #[error("language model setup failed")]
    Llm(#[from] LlmError),
    #[error("cannot start the worker threads")]
    Threads(#[source] std::io::Error),
    #[error("cannot start the worker pool")]
    Pool(#[from] rayon::ThreadPoolBuildError),
}

/// Verified and proposed counts of one application.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct AppCounts {
    pub proposed: usize,
    pub verified: usize,
}

/// What `synth verify` did.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct VerifyReport {
    pub backend: String,
    /// Proposed subtasks this run looked at.
    pub proposed: usize,
    pub verified: usize,
    pub rejected: usize,
    /// Subtasks left proposed (a unit got no model reply, or a real desktop could
    /// not try the subtask; re-run to finish).
    pub pending: usize,
    /// Why a real desktop could not try subtasks (they are in `pending`): cause
    /// -> subtasks.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub not_tried: BTreeMap<String, usize>,
    /// (subtask, parameter set) units of the proposed subtasks.
    pub units: usize,
    /// Units done by this run (the rest were written by an earlier run).
    pub units_run: usize,
    /// Units that passed cross-verification and the contract.
    pub units_passed: usize,
    /// Units whose model calls failed (left for the next run).
    pub units_failed: usize,
    /// Rounds needed by passing units: rounds -> units.
    pub rounds_needed: BTreeMap<u32, usize>,
    /// Why parameter sets were dropped: cause -> count.
    pub dropped: BTreeMap<String, usize>,
    pub per_application: BTreeMap<String, AppCounts>,
    pub model_calls: u64,
    pub cost_usd: f64,
    pub seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mutation: Option<MutationReport>,
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "verify ({}): {} proposed -> {} verified, {} rejected{} in {:.1}s",
            self.backend,
            self.proposed,
            self.verified,
            self.rejected,
            if self.pending > 0 {
                format!(", {} pending (re-run to finish)", self.pending)
            } else {
                String::new()
            },
            self.seconds
        )?;
        writeln!(
            f,
            "units: {} ({} run now, {} passed cross-verification, {} without a model reply)",
            self.units, self.units_run, self.units_passed, self.units_failed
        )?;
        let rounds: Vec<String> = self
            .rounds_needed
            .iter()
            .map(|(r, n)| format!("{r}: {n}"))
            .collect();
        writeln!(f, "rounds needed: {}", rounds.join(", "))?;
        if !self.dropped.is_empty() {
            let d: Vec<String> = self
                .dropped
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            writeln!(f, "parameter sets dropped: {}", d.join(", "))?;
        }
        if !self.not_tried.is_empty() {
            let d: Vec<String> = self
                .not_tried
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            writeln!(
                f,
                "not tried (left proposed for the next run): {}",
                d.join(", ")
            )?;
        }
        writeln!(
            f,
            "model calls: {} · ${:.4}",
            self.model_calls, self.cost_usd
        )?;
        for (app, c) in &self.per_application {
            writeln!(f, "  {app:<16} {}/{}", c.verified, c.proposed)?;
        }
        if let Some(m) = &self.mutation {
            writeln!(
                f,
                "mutation score: {:.1}% ({}/{} contract-breaking mutants rejected, {} mutants of {} subtasks)",
                m.score * 100.0,
                m.rejected,
                m.breaking,
                m.mutants,
                m.subtasks
            )?;
            for w in &m.wrongly_accepted {
                writeln!(
                    f,
                    "  accepted: {} p{} #{} {}: {}",
                    w.subtask_id, w.parameter_index, w.mutant, w.kind, w.description
                )?;
            }
        }
        Ok(())
    }
}

/// The offline actor for `subtasks` on copies of `desktop` (set it as
/// `OfflineRoles::actor`).
pub fn offline_actor(
    desktop: &dyn Replica,
    catalog: &Catalog,
    subtasks: &[Subtask],
) -> Box<dyn OfflineRole<ActRequest>> {
    Box::new(actor::OfflineActor::new(
        desktop.fork(),
        catalog.clone(),
        subtasks.to_vec(),
    ))
}

/// A coder that answers with the subtask's own stored evaluation (the
/// hand-written pool's), matched by template. On evidence that a check's
/// control or text never appeared, that check is dropped.
#[derive(Debug, Clone)]
pub struct HandWrittenCoder {
    by_template: BTreeMap<String, Vec<Check>>,
}

impl HandWrittenCoder {
    pub fn new(subtasks: &[Subtask]) -> HandWrittenCoder {
        HandWrittenCoder {
            by_template: subtasks
                .iter()
                .filter_map(|s| {
                    let e = s.evaluation.as_ref()?;
                    Some((s.instruction_template.clone(), e.checks.clone()))
                })
                .collect(),
        }
    }
}

impl OfflineRole<CodeRequest> for HandWrittenCoder {
    fn answer(&self, req: &CodeRequest) -> Result<Outcome<Vec<Check>>, LlmError> {
        let Some(checks) = self.by_template.get(&req.instruction_template) else {
            return Ok(Outcome::Rejected {
                reason: "no hand-written evaluation for this template".into(),
                raw: String::new(),
            });
        };
        // Checks the evidence says can never hold on this desktop.
        let refuted: Vec<&crate::llm::CheckEvidence> = req
            .feedback
            .as_ref()
            .map(|f| f.refuted())
            .unwrap_or_default();
        let kept: Vec<Check> = checks
            .iter()
            .filter(|c| {
                !req.parameters.iter().any(|p| {
                    let call = c.call.instantiate(p);
                    refuted.iter().any(|r| r.call == call)
                })
            })
            .cloned()
            .collect();
        Ok(if kept.is_empty() {
            Outcome::Rejected {
                reason: "every hand-written check was refuted".into(),
                raw: String::new(),
            }
        } else {
            Outcome::Accepted(kept)
        })
    }
}

/// The registry of check APIs as the coder sees it.
fn api_docs() -> Vec<ApiDoc> {
    crate::env::check_apis()
        .iter()
        .map(|a| ApiDoc {
            name: a.name.to_string(),
            signature: a.signature.to_string(),
            doc: a.doc.to_string(),
            example: a.example.to_string(),
        })
        .collect()
}

async fn build_model(
    cx: &StageContext<'_>,
    run_id: i64,
    roles: OfflineRoles,
) -> Result<(Arc<dyn LanguageModel>, Option<LlmClient>), LlmError> {
    let opts = ClientOptions {
        run_id: run_id.to_string(),
        no_cache: cx.llm.no_cache,
        prompts_dir: Some(cx.workspace.join("prompts")).filter(|d| d.is_dir()),
        check_endpoint: true,
        budget: cx.llm.budget.clone(),
    };
    let cfg = cx.llm.config.clone();
    let client = match cx.llm.backend {
        Backend::Offline => return Ok((Arc::new(roles), None)),
        Backend::OpenAi => LlmClient::openai(cfg, cx.store.call_log(), opts).await?,
        Backend::Replay => {
            let source = cx
                .llm
                .replay_file
                .clone()
                .map_or(ReplaySource::Store, ReplaySource::Jsonl);
            LlmClient::replay(cfg, cx.store.call_log(), source, opts)?
        }
    };
    Ok((Arc::new(client.clone()), Some(client)))
}

/// A stable 64-bit FNV-1a hash (the discriminative sample must not change
/// between builds).
fn fnv(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for p in parts {
        for b in p.bytes().chain(std::iter::once(0)) {
            h ^= b as u64;
            h = h.wrapping_mul(0x100000001b3);
        }
    }
    h
}

/// A trajectory other subtasks' evaluations are tested against.
struct Candidate {
    instance: Instance,
    actions: Vec<TrajectoryAction>,
}

/// Runs `synth verify`. `roles` are the offline roles (explorer/coder from
/// `synth explore`); the stage adds its offline actor when `roles.actor` is empty
/// and the hand-written coder when `roles.coder` is.
///
/// # Errors
/// Store failures, an unloadable desktop, a model backend that cannot start.
pub fn run(
    args: &VerifyArgs,
    cx: &StageContext<'_>,
    mut roles: OfflineRoles,
) -> Result<VerifyReport, VerifyError> {
    let started = Instant::now();
    let desktops = cx.env.desktops(&cx.workspace)?;
    let Some(base) = desktops.replica() else {
        return real::run(args, cx);
    };
    let proposed = cx.store.subtasks(SubtaskStatus::Proposed)?;
    let verified_before = cx.store.subtasks(SubtaskStatus::Verified)?;
    let run_id = cx.store.begin_run(
        "verify",
        &serde_json::to_value(args).unwrap_or(serde_json::Value::Null),
    )?;
    if roles.actor.is_none() {
        let known: Vec<Subtask> = proposed.iter().chain(&verified_before).cloned().collect();
        roles.actor = Some(offline_actor(base.as_ref(), cx.catalog, &known));
    }
    if roles.coder.is_none() {
        roles.coder = Some(Box::new(HandWrittenCoder::new(&proposed)));
    }
    let runtime = cx.runtime().map_err(VerifyError::Threads)?;
    let (model, client) = runtime.block_on(build_model(cx, run_id, roles))?;
    let backend = model.backend();
    let apis = api_docs();
    let screenshots = backend != Backend::Offline && cx.llm.config.role(Role::Actor).multimodal;

    let done: HashSet<(String, usize)> = cx
        .store
        .verify_units::<UnitRecord>()?
        .into_iter()
        .map(|u| (u.instance.subtask_id.0, u.instance.parameter_index))
        .collect();
    let all_units: Vec<(usize, usize)> = proposed
        .iter()
        .enumerate()
        .flat_map(|(si, s)| (0..s.available_parameters.len()).map(move |pi| (si, pi)))
        .collect();
    let todo: Vec<(usize, usize)> = all_units
        .iter()
        .copied()
        .filter(|(si, pi)| !done.contains(&(proposed[*si].id.0.clone(), *pi)))
        .collect();

    let bar = cx.progress(todo.len() as u64, "verify");
    let written = AtomicUsize::new(0);
    let passed = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    let errors = AtomicUsize::new(0);
    let ucx = UnitContext {
        model: model.as_ref(),
        runtime: &runtime,
        base: base.as_ref(),
        rounds: args.rounds,
        max_steps: args.max_steps,
        apis: &apis,
        screenshots,
    };
    let threads = rayon::ThreadPoolBuilder::new()
        .num_threads(cx.jobs.max(1))
        .build()?;
    let store = cx.store;
    let catalog = cx.catalog;
    threads.install(|| {
        todo.par_iter()
            .try_for_each(|&(si, pi)| -> Result<(), VerifyError> {
                let s = &proposed[si];
                let outcome = match Instance::new(catalog, s, pi) {
                    Ok(inst) => ucx.verify(s, inst),
                    Err(e) => {
                        let inst = Instance {
                            subtask_id: s.id.clone(),
                            parameter_index: pi,
                            application: s.application.clone(),
                            instruction: s.instruction(pi).unwrap_or_default(),
                            params: s.available_parameters[pi].clone(),
                            inputs: Vec::new(),
                            outputs: Vec::new(),
                            implied: Vec::new(),
                        };
                        Ok((unverifiable(inst, e.to_string()), Vec::new()))
                    }
                };
                let (unit, rounds) = match outcome {
                    Ok(x) => x,
                    Err(error) => {
                        warn!(subtask = %s.id, parameter_index = pi, %error, "no model reply; unit left for the next run");
                        errors.fetch_add(1, Ordering::Relaxed);
                        bar.inc(1);
                        return Ok(());
                    }
                };
                let numbered: Vec<(u32, &rounds::RoundRecord)> =
                    rounds.iter().map(|r| (r.round, r)).collect();
                let reason = (!unit.passed).then(|| unit.reasons.join("; "));
                store.put_verify_unit(
                    &s.id.0,
                    pi,
                    unit.passed,
                    reason.as_deref(),
                    &numbered,
                    &unit,
                    Some(run_id),
                )?;
                if unit.passed {
                    passed.fetch_add(1, Ordering::Relaxed);
                } else {
                    failed.fetch_add(1, Ordering::Relaxed);
                }
                let n = written.fetch_add(1, Ordering::SeqCst) + 1;
                if args.abort_after == Some(n) {
                    // The test hook: stop like `kill -9` would, mid-run.
                    std::process::exit(137);
                }
                bar.inc(1);
                bar.set_message(format!(
                    "{} passed · {} failed",
                    passed.load(Ordering::Relaxed),
                    failed.load(Ordering::Relaxed)
                ));
                Ok(())
            })
    })?;
    bar.finish_and_clear();

    // Phase 2: decide the subtasks whose units are all written.
    let units: Vec<UnitRecord> = cx.store.verify_units()?;
    let mut by_subtask: BTreeMap<String, Vec<&UnitRecord>> = BTreeMap::new();
    for u in &units {
        by_subtask
            .entry(u.instance.subtask_id.0.clone())
            .or_default()
            .push(u);
    }
    let mut candidates: Vec<Candidate> = units
        .iter()
        .filter(|u| u.passed)
        .filter_map(|u| {
            Some(Candidate {
                instance: u.instance.clone(),
                actions: u.trajectory.as_ref()?.actions.clone(),
            })
        })
        .collect();
    let from_units: HashSet<&str> = units
        .iter()
        .map(|u| u.instance.subtask_id.0.as_str())
        .collect();
    for s in &verified_before {
        if from_units.contains(s.id.0.as_str()) {
            continue;
        }
        for t in &s.trajectories {
            let Some(i) = t.parameter_index else { continue };
            if let Ok(instance) = Instance::new(cx.catalog, s, i) {
                candidates.push(Candidate {
                    instance,
                    actions: t.actions.clone(),
                });
            }
        }
    }

    let mut report = VerifyReport {
        backend: backend.to_string(),
        proposed: proposed.len(),
        units: all_units.len(),
        units_run: written.load(Ordering::Relaxed),
        units_failed: errors.load(Ordering::Relaxed),
        ..VerifyReport::default()
    };
    let decisions: Vec<Decision> = threads.install(|| {
        proposed
            .par_iter()
            .map(|s| {
                let mine = by_subtask.get(&s.id.0).cloned().unwrap_or_default();
                if mine.len() < s.available_parameters.len() {
                    return Decision::Pending;
                }
                decide(base.as_ref(), s, &mine, &candidates, args.discriminative)
            })
            .collect()
    });
    for (s, d) in proposed.iter().zip(decisions) {
        let app = report
            .per_application
            .entry(s.application.clone())
            .or_default();
        app.proposed += 1;
        for u in by_subtask.get(&s.id.0).into_iter().flatten() {
            if u.passed {
                report.units_passed += 1;
            }
        }
        match d {
            Decision::Pending => report.pending += 1,
            Decision::Verified {
                subtask,
                dropped,
                rounds,
            } => {
                app.verified += 1;
                report.verified += 1;
                for r in rounds {
                    *report.rounds_needed.entry(r).or_insert(0) += 1;
                }
                for (cause, _) in &dropped {
                    *report.dropped.entry(cause.to_string()).or_insert(0) += 1;
                }
                cx.store
                    .put_subtask(&subtask, SubtaskStatus::Verified, None, Some(run_id))?;
            }
            Decision::Rejected { reasons } => {
                report.rejected += 1;
                for (cause, _) in &reasons {
                    *report.dropped.entry(cause.to_string()).or_insert(0) += 1;
                }
                let text: Vec<String> = reasons.into_iter().map(|(_, r)| r).collect();
                cx.store.put_subtask(
                    s,
                    SubtaskStatus::Rejected,
                    Some(&text.join(" | ")),
                    Some(run_id),
                )?;
            }
        }
    }

    if args.mutants {
        report.mutation = Some(mutation_test(base.as_ref(), cx, &threads)?);
    }
    if let Some(c) = &client {
        let u = c.usage();
        report.model_calls = u.total.calls;
        report.cost_usd = u.total.cost_usd;
    }
    report.seconds = started.elapsed().as_secs_f64();
    cx.store.finish_run(
        run_id,
        crate::store::RunStatus::Ok,
        &serde_json::to_value(&report).unwrap_or(serde_json::Value::Null),
    )?;
    Ok(report)
}

/// Why a parameter set was dropped (report categories).
type Cause = &'static str;

enum Decision {
    Pending,
    Verified {
        subtask: Box<Subtask>,
        dropped: Vec<(Cause, String)>,
        rounds: Vec<u32>,
    },
    Rejected {
        reasons: Vec<(Cause, String)>,
    },
}

/// Decides one subtask from its units (see the module doc).
fn decide(
    base: &dyn Replica,
    s: &Subtask,
    units: &[&UnitRecord],
    candidates: &[Candidate],
    k: usize,
) -> Decision {
    let mut units = units.to_vec();
    units.sort_by_key(|u| u.instance.parameter_index);
    let mut evaluation: Option<(usize, Vec<Check>)> = None;
    let mut kept: Vec<&UnitRecord> = Vec::new();
    let mut reasons: Vec<(Cause, String)> = Vec::new();
    for u in units {
        let i = u.instance.parameter_index;
        let Some(traj) = u.trajectory.as_ref().filter(|_| u.passed) else {
            let cause = if u.rounds == 0 {
                "unpreparable inputs"
            } else if u.reasons.iter().any(|r| r.contains("resource contract")) {
                "contract or cross-verification"
            } else {
                "cross-verification"
            };
            reasons.push((
                cause,
                format!("parameter set {i}: {}", u.reasons.join("; ")),
            ));
            continue;
        };
        let checks = match &evaluation {
            Some((from, checks)) => {
                let start = match start_state(base, &u.instance) {
                    Ok(st) => st,
                    Err(e) => {
                        reasons.push(("unpreparable inputs", format!("parameter set {i}: {e}")));
                        continue;
                    }
                };
                let res = match replay(start.as_ref(), &traj.actions) {
                    Ok(r) => judge(checks, &u.instance.params, r.desk.as_ref()),
                    Err(e) => {
                        reasons.push(("desktop failure", format!("parameter set {i}: {e}")));
                        continue;
                    }
                };
                if !res.success {
                    reasons.push((
                        "evaluation mismatch",
                        format!(
                            "parameter set {i}: the subtask's evaluation (from parameter set {from}) rejects its trajectory: {}",
                            res.message
                        ),
                    ));
                    continue;
                }
                checks.clone()
            }
            None => u.checks.clone(),
        };
        let mut others: Vec<&Candidate> = candidates
            .iter()
            .filter(|c| c.instance.subtask_id != s.id)
            .collect();
        others.sort_by_key(|c| {
            (
                c.instance.application != s.application,
                fnv(&[
                    &s.id.0,
                    &c.instance.subtask_id.0,
                    &c.instance.parameter_index.to_string(),
                ]),
            )
        });
        let sample: Vec<Other<'_>> = others
            .into_iter()
            .take(k)
            .map(|c| Other {
                instance: &c.instance,
                actions: &c.actions,
            })
            .collect();
        if let Some(o) = accepted_other(base, &checks, &u.instance.params, &sample) {
            reasons.push((
                "not discriminative",
                format!(
                    "parameter set {i}: the evaluation lacks discriminative power: it also accepts the trajectory of subtask {} (\"{}\")",
                    o.subtask_id, o.instruction
                ),
            ));
            continue;
        }
        if evaluation.is_none() {
            evaluation = Some((i, checks));
        }
        kept.push(u);
    }
    let Some((_, checks)) = evaluation else {
        return Decision::Rejected { reasons };
    };
    let mut out = s.clone();
    out.available_parameters = kept.iter().map(|u| u.instance.params.clone()).collect();
    out.trajectories = kept
        .iter()
        .enumerate()
        .filter_map(|(new, u)| {
            let mut t = u.trajectory.clone()?;
            t.parameter_index = Some(new);
            Some(t)
        })
        .collect();
    out.evaluation = Some(Evaluation { checks });
    let mut prov = out.provenance.take().unwrap_or_default();
    let rounds: Vec<u32> = kept.iter().map(|u| u.rounds).collect();
    prov.round = rounds.iter().copied().max();
    if prov.backend.is_empty() {
        prov.backend = "unknown".into();
    }
    out.provenance = Some(prov);
    Decision::Verified {
        subtask: Box::new(out),
        dropped: reasons,
        rounds,
    }
}

/// Mutation-tests every verified subtask with an evaluation and trajectories.
fn mutation_test(
    base: &dyn Replica,
    cx: &StageContext<'_>,
    threads: &rayon::ThreadPool,
) -> Result<MutationReport, VerifyError> {
    let verified: Vec<Subtask> = cx
        .store
        .subtasks(SubtaskStatus::Verified)?
        .into_iter()
        .filter(|s| s.evaluation.is_some() && !s.trajectories.is_empty())
        .collect();
    let results: Vec<Vec<crate::store::verify::MutantRow>> = threads.install(|| {
        verified
            .par_iter()
            .map(|s| mutants::test_subtask(base, cx.catalog, s))
            .collect()
    });
    let mut all = Vec::new();
    for (s, rows) in verified.iter().zip(results) {
        cx.store.put_mutants(&s.id.0, &rows)?;
        all.extend(rows);
    }
    Ok(MutationReport::from_rows(verified.len(), &all))
}
