//! `synth validate`: the consistency validator (OmniBench B.4) over composed tasks.
//!
//! For each task with status `composed`, up to N attempts (default 3):
//! 1. the summarizer gets the task's intent, its nodes (in the first topological
//!    order) and edges, and on later attempts the previous instruction with what
//!    the reconstruction got wrong; it writes `task_instruction` and
//!    `low_level_instruction`;
//! 2. the reconstructor gets only the instruction and the subtasks, shuffled under
//!    neutral ids (`s1`, `s2`, ...), and returns the dependencies;
//! 3. [`compare`] checks them against the DAG by transitive closure.
//!
//! A passing attempt validates the task; after N failing attempts it is rejected.
//! Every attempt is stored (`validation_attempts`) and in the task body
//! (`validation`); a validated task carries its instructions, and
//! `generated/tasks.jsonl` is rewritten with compose's writer. Only tasks not yet
//! processed are touched, so a new dataset version is validated and older ones stay
//! as they are. Both roles go through [`StageContext::language_model`]: offline,
//! openai or replay, in any mix the backend offers.
//!
//! # The offline roles
//! [`offline_roles`] plugs the deterministic core of this module into the
//! summarizer and reconstructor seats. They are a documented rule-based baseline,
//! not a language model: the summarizer words the DAG in the instruction grammar of
//! [`super::grammar`] (natural sentences first, then explicit numbered steps), and
//! the reconstructor parses that grammar back. On a later attempt the offline
//! summarizer reads its previous instruction back itself to find what it got wrong
//! (and escalates to the fullest wording when it finds nothing, i.e. when another
//! reconstructor disagreed).

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{
    compare, neutral_subtasks, reconstruct, summarize, word_count, Discrepancy, NeutralSubtasks,
    SummarizeError,
};
use crate::llm::{
    Edge, LanguageModel, LlmError, NeutralSubtask, OfflineRoles, Outcome, ReconstructRequest,
    SummarizeRequest, SummaryNode,
};
use crate::model::{Dag, Subtask, SubtaskId, SubtaskStatus, Task, TaskNode, ValidationAttempt};
use crate::pipeline::compose::{write_tasks_file, ComposeStageError};
use crate::pipeline::StageContext;
use crate::store::StoreError;
use crate::store::{RunStatus, TaskStatus};

/// Default number of summarize → reconstruct → compare attempts per task.
pub const DEFAULT_ATTEMPTS: u32 = 3;

/// Flags of `synth validate`.
#[derive(Debug, Clone, clap::Args)]
pub struct ValidateArgs {
    /// Attempts per task before it is rejected.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_ATTEMPTS)]
    pub attempts: u32,
}

impl Default for ValidateArgs {
    fn default() -> Self {
        ValidateArgs {
            attempts: DEFAULT_ATTEMPTS,
        }
    }
}

/// Errors of the validate stage.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ValidateStageError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot set up the language model")]
    Llm(#[from] LlmError),
    #[error("cannot start the runtime for model calls")]
    Runtime(#[source] std::io::Error),
    #[error("cannot rewrite the tasks file")]
    Write(#[from] ComposeStageError),
    #[error("--attempts must be at least 1")]
    NoAttempts,
}

/// What `synth validate` did.
#[derive(Debug, Clone, Serialize)]
pub struct ValidateReport {
    pub backend: String,
    pub attempts_allowed: u32,
    /// Tasks taken up in this run (status `composed`).
    pub processed: usize,
    pub validated: usize,
    pub rejected: usize,
    /// Validated on the first attempt.
    pub first_attempt: usize,
    /// Tasks that got no answer at all (a replay miss, the endpoint gave up); they
    /// stay `composed` and are taken up again next run.
    pub failed: usize,
    pub first_error: Option<String>,
    /// Mean words of the validated high-level instructions.
    pub mean_instruction_words: f64,
    /// In the store after this run.
    pub total_validated: usize,
    pub total_rejected: usize,
    pub tasks_file: PathBuf,
    pub seconds: f64,
}

impl ValidateReport {
    /// Share of the processed tasks (that got answers) validated on attempt 1.
    pub fn first_attempt_share(&self) -> f64 {
        share(self.first_attempt, self.validated + self.rejected)
    }

    /// Share validated within the allowed attempts.
    pub fn within_attempts_share(&self) -> f64 {
        share(self.validated, self.validated + self.rejected)
    }
}

fn share(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

impl fmt::Display for ValidateReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.processed == 0 {
            writeln!(f, "no composed task waits for validation")?;
        } else {
            writeln!(
                f,
                "validated {} of {} tasks ({}): {:.1}% on the first attempt, {:.1}% within {}; {} rejected; {:.2}s",
                self.validated,
                self.processed,
                self.backend,
                100.0 * self.first_attempt_share(),
                100.0 * self.within_attempts_share(),
                self.attempts_allowed,
                self.rejected,
                self.seconds
            )?;
            if self.validated > 0 {
                writeln!(
                    f,
                    "validated instructions average {:.1} words",
                    self.mean_instruction_words
                )?;
            }
        }
        if self.failed > 0 {
            writeln!(
                f,
                "{} tasks got no answer and stay composed: {}",
                self.failed,
                self.first_error.as_deref().unwrap_or("")
            )?;
        }
        write!(
            f,
            "{} validated and {} rejected tasks in the store; tasks in {}",
            self.total_validated,
            self.total_rejected,
            self.tasks_file.display()
        )
    }
}

/// The outcome of validating one task.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskValidation {
    pub attempts: Vec<ValidationAttempt>,
    pub passed: bool,
    /// The last summary (the passing one when `passed`), if any attempt got one.
    pub task_instruction: Option<String>,
    pub low_level_instruction: Option<String>,
}

/// The seed that shuffles one task's subtasks for the reconstructor.
pub fn task_seed(seed: u64, task: &Task) -> u64 {
    let id = task.task_id.as_ref().map(|t| t.0.as_str()).unwrap_or("");
    let digest = Sha256::digest(id.as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    seed ^ u64::from_le_bytes(bytes)
}

/// The summarizer's request for `task`: its intent, its nodes in the first
/// topological order, its edges, and the previous attempt (instruction and
/// discrepancy) when there was one.
pub fn summarize_request(task: &Task, previous: Option<&ValidationAttempt>) -> SummarizeRequest {
    let order: Vec<&String> = match task.successful_topo.first() {
        Some(o) if o.len() == task.dag.nodes.len() => o.iter().collect(),
        _ => task.dag.nodes.iter().collect(),
    };
    let nodes = order
        .into_iter()
        .map(|id| {
            let node = task.nodes.get(id);
            SummaryNode {
                id: id.clone(),
                application: node.map(|n| n.application.clone()).unwrap_or_default(),
                instruction: node.map(|n| n.instruction.clone()).unwrap_or_default(),
            }
        })
        .collect();
    let mut edges = Vec::new();
    for id in &task.dag.nodes {
        for to in task.dag.edges.get(id).into_iter().flatten() {
            edges.push((id.clone(), to.clone()));
        }
    }
    SummarizeRequest {
        intent: task.task_intent.clone(),
        purpose: task.purpose.clone(),
        nodes,
        edges,
        previous_instruction: previous.map(|a| a.task_instruction.clone()),
        discrepancy: previous.and_then(|a| a.discrepancy.clone()),
    }
}

/// The reconstructor's request: the instruction and the neutral subtask list.
pub fn reconstruct_request(instruction: &str, neutral: &NeutralSubtasks) -> ReconstructRequest {
    ReconstructRequest {
        instruction: instruction.to_string(),
        subtasks: neutral
            .subtasks
            .iter()
            .map(|(id, instruction)| NeutralSubtask {
                id: id.clone(),
                instruction: instruction.clone(),
            })
            .collect(),
    }
}

/// Runs the attempts for one task with `model`.
///
/// # Errors
/// A role got no answer at all ([`LlmError`]); a task that cannot be summarized
/// (no nodes, a node without its entry) is rejected, not an error.
pub async fn validate_task(
    model: &dyn LanguageModel,
    task: &Task,
    max_attempts: u32,
    seed: u64,
) -> Result<TaskValidation, LlmError> {
    let neutral = match neutral_subtasks(task, seed) {
        Ok(n) => n,
        Err(e) => {
            return Ok(TaskValidation {
                attempts: vec![ValidationAttempt {
                    attempt: 1,
                    task_instruction: String::new(),
                    reconstructed_edges: Vec::new(),
                    passed: false,
                    discrepancy: Some(format!("the task cannot be summarized: {e}")),
                }],
                passed: false,
                task_instruction: None,
                low_level_instruction: None,
            })
        }
    };
    let mut out = TaskValidation {
        attempts: Vec::new(),
        passed: false,
        task_instruction: None,
        low_level_instruction: None,
    };
    for attempt in 1..=max_attempts.max(1) {
        let req = summarize_request(task, out.attempts.last());
        let summary = match model.summarize(&req).await?.outcome {
            Outcome::Accepted(s) => s,
            Outcome::Rejected { reason, .. } => {
                out.attempts.push(ValidationAttempt {
                    attempt,
                    task_instruction: req.previous_instruction.unwrap_or_default(),
                    reconstructed_edges: Vec::new(),
                    passed: false,
                    discrepancy: Some(format!("the summarizer's reply was unusable: {reason}")),
                });
                continue;
            }
        };
        let rreq = reconstruct_request(&summary.task_instruction, &neutral);
        let (edges, passed, discrepancy) = match model.reconstruct(&rreq).await?.outcome {
            Outcome::Accepted(edges) => {
                let pairs: Vec<(String, String)> =
                    edges.into_iter().map(|e| (e.from, e.to)).collect();
                let edges = neutral.to_nodes(&pairs);
                let verdict = compare(&task.dag, &edges);
                let passed = verdict.is_pass();
                (edges, passed, (!passed).then(|| verdict.to_string()))
            }
            Outcome::Rejected { reason, .. } => (
                Vec::new(),
                false,
                Some(format!("the instruction could not be read back: {reason}")),
            ),
        };
        out.task_instruction = Some(summary.task_instruction.clone());
        out.low_level_instruction = Some(summary.low_level_instruction.clone());
        out.attempts.push(ValidationAttempt {
            attempt,
            task_instruction: summary.task_instruction,
            reconstructed_edges: edges,
            passed,
            discrepancy,
        });
        if passed {
            out.passed = true;
            break;
        }
    }
    Ok(out)
}

/// The offline backend for this stage: the rule-based summarizer and reconstructor
/// (a baseline, not a language model; see the module docs).
pub fn offline_roles() -> OfflineRoles {
    OfflineRoles {
        summarizer: Some(Box::new(|req: &SummarizeRequest| {
            Ok(match offline_summary(req) {
                Ok(s) => Outcome::Accepted(s),
                Err(e) => Outcome::Rejected {
                    reason: e.to_string(),
                    raw: String::new(),
                },
            })
        })),
        reconstructor: Some(Box::new(|req: &ReconstructRequest| {
            let subtasks: Vec<(String, String)> = req
                .subtasks
                .iter()
                .map(|s| (s.id.clone(), s.instruction.clone()))
                .collect();
            Ok(match reconstruct(&req.instruction, &subtasks) {
                Ok(edges) => Outcome::Accepted(
                    edges
                        .into_iter()
                        .map(|(from, to)| Edge { from, to })
                        .collect(),
                ),
                Err(e) => Outcome::Rejected {
                    reason: e.to_string(),
                    raw: req.instruction.clone(),
                },
            })
        })),
        ..OfflineRoles::default()
    }
}

/// The task a summarize request describes (node order = preferred topological
/// order).
fn task_of_request(req: &SummarizeRequest) -> Task {
    let ids: Vec<String> = req.nodes.iter().map(|n| n.id.clone()).collect();
    let mut edges: BTreeMap<String, Vec<String>> =
        ids.iter().map(|id| (id.clone(), Vec::new())).collect();
    for (a, b) in &req.edges {
        edges.entry(a.clone()).or_default().push(b.clone());
    }
    let nodes = req
        .nodes
        .iter()
        .map(|n| {
            (
                n.id.clone(),
                TaskNode {
                    subtask_id: SubtaskId(n.id.clone()),
                    parameter_index: 0,
                    application: n.application.clone(),
                    category: String::new(),
                    instruction: n.instruction.clone(),
                },
            )
        })
        .collect();
    Task {
        task_id: None,
        task_instruction: String::new(),
        low_level_instruction: None,
        dag: Dag {
            nodes: ids.clone(),
            edges,
        },
        task_intent: req.intent.clone(),
        purpose: req.purpose.clone(),
        successful_topo: vec![ids],
        nodes,
        topo_count: None,
        topo_truncated: None,
        cs_max: None,
        complexity: None,
        capabilities: Vec::new(),
        scenario: None,
        os_map_level: None,
        quality: None,
        composition: None,
        validation: Vec::new(),
    }
}

/// The offline summarizer on a request: attempt 1 without a previous instruction;
/// otherwise it reads the previous instruction back against the nodes to find the
/// discrepancies (attempt 2 after the first wording, 3 after an explicit one).
fn offline_summary(req: &SummarizeRequest) -> Result<crate::llm::Summary, SummarizeError> {
    let task = task_of_request(req);
    let summary = match &req.previous_instruction {
        None => summarize(&task, 1, &[])?,
        Some(previous) => {
            let first = summarize(&task, 1, &[])?;
            let attempt = if first.task_instruction == *previous {
                2
            } else {
                3
            };
            let pairs: Vec<(String, String)> = req
                .nodes
                .iter()
                .map(|n| (n.id.clone(), n.instruction.clone()))
                .collect();
            let mut feedback = match reconstruct(previous, &pairs) {
                Ok(edges) => compare(&task.dag, &edges).discrepancies().to_vec(),
                Err(error) => vec![Discrepancy::Unreadable { error }],
            };
            if feedback.is_empty() {
                // Another reader disagreed where this one does not: say more.
                feedback.push(Discrepancy::UnknownNode {
                    id: String::from("?"),
                });
            }
            summarize(&task, attempt, &feedback)?
        }
    };
    Ok(crate::llm::Summary {
        task_instruction: summary.task_instruction,
        low_level_instruction: summary.low_level_instruction,
    })
}

/// Runs `synth validate` over every task with status `composed`.
///
/// # Errors
/// Store failures, a backend that cannot be set up, or the tasks file that cannot
/// be written. A task whose roles give no answer is counted in `failed`.
pub fn run(
    args: &ValidateArgs,
    cx: &StageContext<'_>,
) -> Result<ValidateReport, ValidateStageError> {
    let started = std::time::Instant::now();
    if args.attempts == 0 {
        return Err(ValidateStageError::NoAttempts);
    }
    let pending: Vec<Task> = cx
        .store
        .tasks(None)?
        .into_iter()
        .filter(|t| t.status == TaskStatus::Composed)
        .map(|t| t.task)
        .collect();
    let mut report = ValidateReport {
        backend: cx.llm.backend.to_string(),
        attempts_allowed: args.attempts,
        processed: pending.len(),
        validated: 0,
        rejected: 0,
        first_attempt: 0,
        failed: 0,
        first_error: None,
        mean_instruction_words: 0.0,
        total_validated: 0,
        total_rejected: 0,
        tasks_file: cx.workspace.join("generated").join("tasks.jsonl"),
        seconds: 0.0,
    };
    let mut words = 0usize;
    if !pending.is_empty() {
        let verified = cx.store.subtasks(SubtaskStatus::Verified)?;
        let by_id: BTreeMap<&SubtaskId, &Subtask> = verified.iter().map(|s| (&s.id, s)).collect();
        let initial = crate::resources::initial_resources(&cx.workspace, cx.catalog)
            .map_err(ComposeStageError::from)?;
        // The clash flag needs the applications' edits; a workspace without app
        // specs (a pool imported alone) still gets the in-place edits.
        let pool = match crate::pipeline::compose::pool_with_edits(cx, &verified, &initial) {
            Ok(pool) => pool,
            Err(e) => {
                tracing::warn!(error = %e, "quality flags: no application specs, clashes judged from in-place edits only");
                crate::graph::Pool::new(cx.catalog, &verified, &initial)
                    .map_err(ComposeStageError::from)?
            }
        };
        let run = cx.store.begin_run(
            "validate",
            &serde_json::json!({"attempts": args.attempts, "backend": report.backend, "tasks": pending.len()}),
        )?;
        let runtime = cx.runtime().map_err(ValidateStageError::Runtime)?;
        let bar = cx.progress(pending.len() as u64, "validate");
        let result: Result<(), ValidateStageError> = runtime.block_on(async {
            let model: Arc<dyn LanguageModel> = cx.language_model(run, offline_roles()).await?;
            let mut set = tokio::task::JoinSet::new();
            for (k, task) in pending.iter().enumerate() {
                let model = Arc::clone(&model);
                let task = task.clone();
                let seed = task_seed(cx.seed, &task);
                let attempts = args.attempts;
                set.spawn(async move {
                    (
                        k,
                        validate_task(model.as_ref(), &task, attempts, seed).await,
                    )
                });
            }
            while let Some(joined) = set.join_next().await {
                let Ok((k, outcome)) = joined else {
                    report.failed += 1;
                    bar.inc(1);
                    continue;
                };
                bar.inc(1);
                let v = match outcome {
                    Ok(v) => v,
                    Err(e) => {
                        report.failed += 1;
                        report.first_error.get_or_insert_with(|| e.to_string());
                        continue;
                    }
                };
                let mut task = pending[k].clone();
                if let Some(i) = &v.task_instruction {
                    task.task_instruction = i.clone();
                }
                if v.low_level_instruction.is_some() {
                    task.low_level_instruction = v.low_level_instruction.clone();
                }
                task.validation = v.attempts.clone();
                if let Some(steps) = super::steps::gui_steps(&task, &by_id) {
                    task.low_level_instruction = Some(steps);
                }
                task.quality = Some(crate::pipeline::quality::assess(&task, &by_id, &pool));
                // OS-MAP automation level of the goal-only instruction (L2, or L4
                // when applications hand resources to each other); exports with
                // the step-by-step instruction report L1.
                task.os_map_level = Some(crate::export::os_map_level(&task, false).to_string());
                if v.passed {
                    report.validated += 1;
                    words += word_count(&task.task_instruction);
                    if v.attempts.len() == 1 {
                        report.first_attempt += 1;
                    }
                    cx.store
                        .record_validation(&task, TaskStatus::Validated, None, &v.attempts)?;
                } else {
                    report.rejected += 1;
                    let last = v
                        .attempts
                        .last()
                        .and_then(|a| a.discrepancy.clone())
                        .unwrap_or_default();
                    let reason =
                        format!("no agreement after {} attempt(s): {last}", v.attempts.len());
                    cx.store.record_validation(
                        &task,
                        TaskStatus::Rejected,
                        Some(&reason),
                        &v.attempts,
                    )?;
                }
            }
            Ok(())
        });
        bar.finish_and_clear();
        let status = if result.is_err() {
            RunStatus::Failed
        } else {
            RunStatus::Ok
        };
        cx.store.finish_run(
            run,
            status,
            &serde_json::json!({"validated": report.validated, "rejected": report.rejected,
                "first_attempt": report.first_attempt, "failed": report.failed}),
        )?;
        result?;
        write_tasks_file(cx, &report.tasks_file)?;
    }
    if report.validated > 0 {
        report.mean_instruction_words = words as f64 / report.validated as f64;
    }
    for t in cx.store.tasks(None)? {
        match t.status {
            TaskStatus::Validated => report.total_validated += 1,
            TaskStatus::Rejected => report.total_rejected += 1,
            TaskStatus::Composed => {}
        }
    }
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

#[cfg(test)]
mod stage_tests {
    use super::*;
    use crate::model::TaskId;

    fn node(app: &str, instruction: &str) -> TaskNode {
        TaskNode {
            subtask_id: SubtaskId(format!("sub-{app}")),
            parameter_index: 0,
            application: app.into(),
            category: "Office".into(),
            instruction: instruction.into(),
        }
    }

    /// n0 → n1, n0 → n2: two parallel branches after a common first step.
    pub(super) fn forked() -> Task {
        let mut t = task_of_request(&SummarizeRequest {
            intent: "Share the quarterly report".into(),
            purpose: None,
            nodes: vec![],
            edges: vec![],
            previous_instruction: None,
            discrepancy: None,
        });
        t.task_id = Some(TaskId("t-fork".into()));
        t.dag = Dag {
            nodes: vec!["n0".into(), "n1".into(), "n2".into()],
            edges: [
                ("n0".to_string(), vec!["n1".to_string(), "n2".to_string()]),
                ("n1".to_string(), vec![]),
                ("n2".to_string(), vec![]),
            ]
            .into_iter()
            .collect(),
        };
        t.successful_topo = vec![vec!["n0".into(), "n1".into(), "n2".into()]];
        t.nodes = [
            (
                "n0".to_string(),
                node(
                    "Writer",
                    "Open '/home/user/Documents/report.docx' in Writer and export it as PDF to '/home/user/Documents/report.pdf'.",
                ),
            ),
            (
                "n1".to_string(),
                node(
                    "Archiver",
                    "Compress '/home/user/Documents/report.pdf' into the archive '/home/user/Documents/report.zip' with the Archiver.",
                ),
            ),
            (
                "n2".to_string(),
                node(
                    "Chat",
                    "In Chat, send the file '/home/user/Documents/report.pdf' to Bob.",
                ),
            ),
        ]
        .into_iter()
        .collect();
        t
    }

    #[tokio::test]
    async fn offline_roles_validate_a_fork_like_the_core() {
        let roles = offline_roles();
        let task = forked();
        let v = validate_task(&roles, &task, 3, 5).await.unwrap();
        assert!(v.passed, "{v:?}");
        let core = super::super::validate_offline(&task, 3, 5).unwrap();
        assert_eq!(v.attempts, core.attempts);
    }

    #[tokio::test]
    async fn offline_summarizer_escalates_after_a_disagreement() {
        let roles = offline_roles();
        let task = forked();
        let first = crate::llm::LanguageModel::summarize(&roles, &summarize_request(&task, None))
            .await
            .unwrap()
            .outcome
            .accepted()
            .unwrap();
        let previous = ValidationAttempt {
            attempt: 1,
            task_instruction: first.task_instruction.clone(),
            reconstructed_edges: vec![],
            passed: false,
            discrepancy: Some("steps n1 and n2 can run in parallel".into()),
        };
        let second = crate::llm::LanguageModel::summarize(
            &roles,
            &summarize_request(&task, Some(&previous)),
        )
        .await
        .unwrap()
        .outcome
        .accepted()
        .unwrap();
        assert_ne!(first.task_instruction, second.task_instruction);
    }

    #[test]
    fn requests_list_nodes_in_order_with_edges_and_feedback() {
        let task = forked();
        let req = summarize_request(&task, None);
        assert_eq!(req.nodes.len(), 3);
        assert_eq!(req.edges.len(), 2);
        assert!(req.previous_instruction.is_none());
        let neutral = neutral_subtasks(&task, 1).unwrap();
        let r = reconstruct_request("x", &neutral);
        assert_eq!(r.subtasks.len(), 3);
        assert!(r.subtasks.iter().all(|s| s.id.starts_with('s')));
    }
}
