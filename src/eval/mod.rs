//! OmniEval (OmniBench section 4.1): scores agents on task graphs.
//!
//! Owns the graph evaluator ([`graph`]: node states Waiting / Evaluating /
//! Completed, checks after every action, stall detection, replay of a run in an
//! [`Environment`](crate::env::Environment)), the metrics ([`score`]: Coverage Rate,
//! Logical Consistency, success rate, per task and aggregated per capability as in
//! OmniBench table 4 and per complexity level as in table 5, with text, JSON and
//! CSV writers).
//!
//! Also the runs folder format ([`runs`]), the agents of `synth bench` ([`bench`])
//! and the two commands ([`command`]: `synth eval`, `synth bench`). The evaluator
//! and metrics are pure; the commands read tasks and verified subtasks from the
//! store, replay on a fresh desktop of the chosen backend (`--env`: the simulated
//! desktop, or a real one, where the offline agent opens each node's
//! application from the desktop's launcher), and write runs and scores under
//! `generated/bench/`. Only the `openai` agent calls a language model (the actor
//! role).

pub mod bench;
pub mod command;
pub mod graph;
pub mod runs;
pub mod score;

use std::path::PathBuf;

pub use graph::{node_checks, replay, GraphEvaluator, NodeCheck, NodeState, Replay};
pub use score::{
    coverage_rate, cs_max_of, logical_consistency, node_depths, score_task, Aggregate,
    CapabilityRow, LevelRow, Scores, TaskScore,
};

/// Why a task or a run cannot be evaluated. A run that fails its task is not an
/// error: it is a score with `success == false`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    #[error("task {task}: the graph has no nodes")]
    EmptyGraph { task: String },
    #[error("task {task}: node '{node}' appears twice")]
    DuplicateNode { task: String, node: String },
    #[error("task {task}: edge {from}->{to} names an unknown node")]
    UnknownEdgeNode {
        task: String,
        from: String,
        to: String,
    },
    #[error("task {task}: the edges form a cycle")]
    Cycle { task: String },
    #[error("task {task}: node '{node}' has no checks to evaluate it")]
    MissingNodeCheck { task: String, node: String },
    #[error("task {task}: checks given for '{node}', which is not a node of the graph")]
    UnknownNodeCheck { task: String, node: String },
    #[error("task {task}: node '{node}' has no entry in the task's `nodes`")]
    MissingTaskNode { task: String, node: String },
    #[error("task {task}: node '{node}' uses subtask {subtask}, which is not available")]
    MissingSubtask {
        task: String,
        node: String,
        subtask: String,
    },
    #[error("task {task}: node '{node}': subtask {subtask} has no evaluation")]
    NoEvaluation {
        task: String,
        node: String,
        subtask: String,
    },
    #[error(
        "task {task}: node '{node}': parameter set {index} of subtask {subtask} does not exist ({len} sets)"
    )]
    ParameterIndex {
        task: String,
        node: String,
        subtask: String,
        index: usize,
        len: usize,
    },
    #[error("task {task}: {source}")]
    Graph {
        task: String,
        #[source]
        source: crate::graph::DagError,
    },
    #[error("task {task}: cannot prepare the desktop: {source}")]
    Env {
        task: String,
        #[source]
        source: crate::env::EnvError,
    },
    #[error("{path}: field `{field}`: {message}")]
    RunFile {
        path: PathBuf,
        field: String,
        message: String,
    },
    #[error("cannot list the runs folder {path}: {source}")]
    RunsDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: task {task} is not in the store")]
    UnknownTask { path: PathBuf, task: String },
    #[error("task {0} is not in the store (or was rejected)")]
    TaskNotFound(String),
    #[error("no tasks to run: the store holds no validated tasks{}", if *.include_composed { " or composed ones (run synth compose)" } else { " (run synth validate, or pass --include-composed)" })]
    NoTasks { include_composed: bool },
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error("the actor model failed: {0}")]
    Llm(#[from] crate::llm::LlmError),
    #[error("task {task}: node '{node}': subtask {subtask} has no verified trajectory for parameter set {index}")]
    NoTrajectory {
        task: String,
        node: String,
        subtask: String,
        index: usize,
    },
    #[error("--max-steps must be at least 1")]
    ZeroMaxSteps,
    #[error("`--agent openai` needs a language model: pass --llm openai (or replay); the offline backend has no actor")]
    NoActor,
    #[error("cannot open the desktop: {0}")]
    Desktop(#[source] crate::env::EnvError),
    #[error("cannot start the runtime for model calls: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}
