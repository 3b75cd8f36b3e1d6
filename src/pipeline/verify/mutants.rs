//! Mutation testing of evaluations (`synth verify --mutants`).
//!
//! For each verified trajectory, mutants are made by dropping one action, changing
//! the text of one typed input, clicking a different visible control instead of
//! one clicked control, and stopping one step early. Each mutant is replayed from
//! the instance's start desktop; a mutant that breaks the resource contract (some
//! declared output does not hold after it) should be rejected by the subtask's
//! evaluation. The score is rejected / contract-breaking; the mutants that the
//! evaluation wrongly accepts are stored and listed.

use serde::Serialize;

use super::contract::{judge, missing_outputs, replay, start_state, Instance};
use crate::env::Replica;
use crate::model::{ActionCall, Check, Subtask, TrajectoryAction};
use crate::resources::Catalog;
use crate::store::verify::MutantRow;

/// One mutant trajectory.
#[derive(Debug, Clone, PartialEq)]
pub struct Mutant {
    pub kind: &'static str,
    pub description: String,
    pub actions: Vec<TrajectoryAction>,
}

/// Typed text replaced by this in `change_text` mutants.
const CHANGED: &str = "changed text";

/// The mutants of `actions` (replayed from `start` where the visible controls
/// matter).
pub fn mutants(start: &dyn Replica, actions: &[TrajectoryAction]) -> Vec<Mutant> {
    let mut out = Vec::new();
    let n = actions.len();
    for i in 0..n.saturating_sub(1) {
        let mut a = actions.to_vec();
        let gone = a.remove(i);
        out.push(Mutant {
            kind: "drop_action",
            description: format!(
                "without step {} ({})",
                i + 1,
                crate::pipeline::narrate::action_text(&gone.call, &gone.control_text)
            ),
            actions: a,
        });
    }
    if n > 0 {
        out.push(Mutant {
            kind: "stop_early",
            description: format!(
                "stopped before the last step ({})",
                crate::pipeline::narrate::action_text(
                    &actions[n - 1].call,
                    &actions[n - 1].control_text
                )
            ),
            actions: actions[..n - 1].to_vec(),
        });
    }
    for (i, a) in actions.iter().enumerate() {
        if let ActionCall::KeyboardInput { keys } = &a.call {
            let literal = crate::env::sim::parse_keys(keys)
                .iter()
                .any(|t| matches!(t, crate::env::sim::KeyToken::Char(_)));
            if !literal {
                continue;
            }
            let enter = keys.to_ascii_lowercase().ends_with("{enter}");
            let new_keys = if enter {
                format!("{CHANGED}{{ENTER}}")
            } else {
                CHANGED.to_string()
            };
            let mut m = actions.to_vec();
            m[i].call = ActionCall::KeyboardInput { keys: new_keys };
            out.push(Mutant {
                kind: "change_text",
                description: format!("step {} types '{CHANGED}' instead of {keys:?}", i + 1),
                actions: m,
            });
        }
    }
    let mut desk = start.fork();
    for (i, a) in actions.iter().enumerate() {
        if matches!(a.call, ActionCall::ClickInput { .. }) {
            let Ok(obs) = desk.observe() else {
                break;
            };
            let here = obs
                .controls
                .iter()
                .find(|c| {
                    Some(&c.label) == a.control_label.as_ref() && c.control_text == a.control_text
                })
                .or_else(|| {
                    obs.controls
                        .iter()
                        .find(|c| c.control_text == a.control_text)
                });
            if let Some(here) = here {
                let other = obs.controls.iter().find(|c| {
                    c.control_type == here.control_type
                        && c.control_text != here.control_text
                        && !c.control_text.is_empty()
                        && !desk.is_chrome(c)
                });
                if let Some(other) = other {
                    let mut m = actions.to_vec();
                    m[i].control_text = other.control_text.clone();
                    m[i].control_label = Some(other.label.clone());
                    m[i].rect = other.rect;
                    out.push(Mutant {
                        kind: "other_control",
                        description: format!(
                            "step {} clicks '{}' instead of '{}'",
                            i + 1,
                            other.control_text,
                            a.control_text
                        ),
                        actions: m,
                    });
                }
            }
        }
        if desk.step(&a.to_action()).is_err() {
            break;
        }
    }
    out
}

/// The mutation test of one verified subtask: one row per mutant of each of its
/// trajectories.
pub fn test_subtask(base: &dyn Replica, catalog: &Catalog, subtask: &Subtask) -> Vec<MutantRow> {
    let Some(eval) = &subtask.evaluation else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for t in &subtask.trajectories {
        let Some(idx) = t.parameter_index else {
            continue;
        };
        let Ok(inst) = Instance::new(catalog, subtask, idx) else {
            continue;
        };
        let Ok(start) = start_state(base, &inst) else {
            continue;
        };
        for m in mutants(start.as_ref(), &t.actions) {
            let Some((breaks, accepted)) =
                judge_mutant(start.as_ref(), &inst, &eval.checks, &m.actions)
            else {
                continue;
            };
            rows.push(MutantRow {
                subtask_id: subtask.id.0.clone(),
                parameter_index: idx,
                mutant: rows.len(),
                kind: m.kind.to_string(),
                breaks_contract: breaks,
                accepted,
                description: m.description,
            });
        }
    }
    rows
}

/// (breaks the contract, accepted by the checks) for one mutant; None when the
/// desktop failed replaying it.
pub fn judge_mutant(
    start: &dyn Replica,
    inst: &Instance,
    checks: &[Check],
    actions: &[TrajectoryAction],
) -> Option<(bool, bool)> {
    let r = replay(start, actions).ok()?;
    let breaks = !missing_outputs(r.desk.as_ref(), inst).is_empty();
    let accepted = judge(checks, &inst.params, r.desk.as_ref()).success;
    Some((breaks, accepted))
}

/// The outcome of `synth verify --mutants`.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct MutationReport {
    pub subtasks: usize,
    pub mutants: usize,
    pub breaking: usize,
    pub rejected: usize,
    pub score: f64,
    pub wrongly_accepted: Vec<MutantRow>,
}

impl MutationReport {
    /// Sums the rows of every tested subtask.
    pub fn from_rows(subtasks: usize, rows: &[MutantRow]) -> MutationReport {
        let breaking = rows.iter().filter(|r| r.breaks_contract).count();
        let rejected = rows
            .iter()
            .filter(|r| r.breaks_contract && !r.accepted)
            .count();
        MutationReport {
            subtasks,
            mutants: rows.len(),
            breaking,
            rejected,
            score: if breaking == 0 {
                1.0
            } else {
                rejected as f64 / breaking as f64
            },
            wrongly_accepted: rows
                .iter()
                .filter(|r| r.breaks_contract && r.accepted)
                .cloned()
                .collect(),
        }
    }
}
