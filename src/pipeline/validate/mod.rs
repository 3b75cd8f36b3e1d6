//! The deterministic core of `synth validate` (OmniBench B.4):
//! summarize a task's DAG into an instruction, reconstruct the dependencies from
//! the instruction alone, compare them with the DAG, and re-summarize with the
//! discrepancies until they agree.
//!
//! Owns the instruction grammar ([`grammar`]), the comparison ([`compare()`]), and
//! the offline (rule-based, not language-model) summarizer ([`summarize()`]) and
//! reconstructor ([`reconstruct()`]). No I/O, no store, no model calls here: the
//! stage wraps these functions as the offline `summarizer` and `reconstructor`
//! roles, and a language-model backend can replace either role as long as it
//! writes or reads the same grammar. The stage itself (`synth validate`: store,
//! model calls, attempts, report) is [`stage`].

pub mod compare;
pub mod grammar;
pub mod reconstruct;
mod relations;
pub mod stage;
pub mod steps;
pub mod summarize;
pub(crate) mod text;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use rand::seq::SliceRandom;
use rand::SeedableRng;

pub use compare::{compare, Discrepancy, Verdict};
pub use reconstruct::{parse, parse_for, reconstruct, ParsedInstruction, ReconstructError};
pub use stage::{ValidateArgs, ValidateReport, ValidateStageError};
pub use summarize::{summarize, wording_for, SummarizeError, Summary, Wording};
pub use text::word_count;

use crate::model::{Task, ValidationAttempt};

/// The subtasks as the reconstructor sees them: shuffled, under neutral ids
/// `s1`, `s2`, ..., with the node each id stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NeutralSubtasks {
    /// `(neutral id, node instruction)` in shuffled order.
    pub subtasks: Vec<(String, String)>,
    /// Neutral id → the task's node id.
    pub node_of: BTreeMap<String, String>,
}

impl NeutralSubtasks {
    /// Edges between neutral ids as edges between node ids; an id that stands for
    /// no node is kept as written (the comparison reports it).
    pub fn to_nodes(&self, edges: &[(String, String)]) -> Vec<(String, String)> {
        let map = |id: &String| self.node_of.get(id).cloned().unwrap_or_else(|| id.clone());
        edges.iter().map(|(a, b)| (map(a), map(b))).collect()
    }
}

/// Shuffles the task's nodes with `seed` and names them `s1`, `s2`, ...
///
/// # Errors
/// [`SummarizeError::MissingNode`] when a DAG node has no [`crate::model::TaskNode`].
pub fn neutral_subtasks(task: &Task, seed: u64) -> Result<NeutralSubtasks, SummarizeError> {
    let mut items = Vec::with_capacity(task.dag.nodes.len());
    for id in &task.dag.nodes {
        let node = task
            .nodes
            .get(id)
            .ok_or_else(|| SummarizeError::MissingNode { id: id.clone() })?;
        items.push((id.clone(), node.instruction.clone()));
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    items.shuffle(&mut rng);
    let mut subtasks = Vec::with_capacity(items.len());
    let mut node_of = BTreeMap::new();
    for (k, (node, instruction)) in items.into_iter().enumerate() {
        let neutral = format!("s{}", k + 1);
        node_of.insert(neutral.clone(), node);
        subtasks.push((neutral, instruction));
    }
    Ok(NeutralSubtasks { subtasks, node_of })
}

/// The result of the offline validation loop.
#[derive(Debug, Clone, PartialEq)]
pub struct OfflineValidation {
    /// Every attempt, in order, as recorded on the task.
    pub attempts: Vec<ValidationAttempt>,
    /// The summary of the last attempt (the passing one when `passed`).
    pub summary: Summary,
    pub passed: bool,
}

/// Runs summarize → reconstruct → compare up to `max_attempts` times (at least
/// once) with the offline roles, feeding each attempt's discrepancies to the next.
/// An instruction the reconstructor cannot read counts as a failed attempt
/// ([`Discrepancy::Unreadable`]). `seed` shuffles the subtasks once per task.
///
/// # Errors
/// The task cannot be summarized at all ([`SummarizeError`]).
pub fn validate_offline(
    task: &Task,
    max_attempts: u32,
    seed: u64,
) -> Result<OfflineValidation, SummarizeError> {
    let neutral = neutral_subtasks(task, seed)?;
    let mut attempts = Vec::new();
    let mut feedback: Vec<Discrepancy> = Vec::new();
    let mut attempt = 1;
    loop {
        let summary = summarize(task, attempt, &feedback)?;
        let (edges, verdict) = match reconstruct(&summary.task_instruction, &neutral.subtasks) {
            Ok(edges) => {
                let edges = neutral.to_nodes(&edges);
                let verdict = compare(&task.dag, &edges);
                (edges, verdict)
            }
            Err(error) => (
                Vec::new(),
                Verdict::Mismatch(vec![Discrepancy::Unreadable { error }]),
            ),
        };
        let passed = verdict.is_pass();
        attempts.push(ValidationAttempt {
            attempt,
            task_instruction: summary.task_instruction.clone(),
            reconstructed_edges: edges,
            passed,
            discrepancy: (!passed).then(|| verdict.to_string()),
        });
        if passed || attempt >= max_attempts {
            return Ok(OfflineValidation {
                attempts,
                summary,
                passed,
            });
        }
        feedback = verdict.discrepancies().to_vec();
        attempt += 1;
    }
}
