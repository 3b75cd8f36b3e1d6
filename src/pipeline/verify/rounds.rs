//! The cross-verification loop of one instance (subtask, parameter set).
//!
//! Each round: the actor acts step by step in the instance's start desktop (the
//! OmniBench E.1 protocol: window title, controls, history and feedback in, one
//! [`ActorStep`] out, up to a step limit) and the trajectory is recorded; the coder
//! writes the checks ([`CodeRequest`]); the checks are evaluated on the
//! trajectory's final desktop. A passing pair must also satisfy the resource
//! contract (every output holds after the trajectory) and be composable: replayed
//! with another application's window in front (as a task hands it over, with the
//! joining step task trajectories add), it must still make the outputs hold. On
//! failure the failing
//! checks ([`ActorFeedback`], which the actor's prompt words as goals) go back to
//! the actor, and the environment's evidence ([`coder_evidence`]: controls and
//! texts that never appeared, what was clicked and typed, which files exist) goes
//! back to the coder ([`CoderFeedback`]), as data; both answer again, up to
//! `rounds` rounds. A round's record keeps the feedback as the prompts showed it. Every round is kept as a
//! [`RoundRecord`]; a malformed reply is a failed round with its reason, never an
//! error.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::contract::{covered_problem, missing_outputs, note_observed, start_state, Instance};
use crate::env::sim::{vfs, HOME};
use crate::env::{Environment, EventKind, Observation, Replica};
use crate::llm::{
    ActRequest, ActorFeedback, ApiDoc, CheckEvidence, CodeRequest, CoderFeedback, ControlInfo,
    FailedCheck, Finding, HistoryStep, LanguageModel, LlmError, Outcome, StepStatus,
};
use crate::model::{
    Check, CheckCall, EvalResult, ParameterSet, Subtask, SubtaskTrajectory, TrajectoryAction,
};

/// What the loop of one instance needs.
pub struct UnitContext<'a> {
    pub model: &'a dyn LanguageModel,
    pub runtime: &'a tokio::runtime::Runtime,
    /// The desktop every instance's start desktop is a copy of.
    pub base: &'a dyn Replica,
    pub rounds: u32,
    pub max_steps: usize,
    pub apis: &'a [ApiDoc],
    /// Attach screenshots to actor requests (models that see images).
    pub screenshots: bool,
}

/// The actor's side of a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActorSide {
    pub feedback: Option<String>,
    pub actions: Vec<TrajectoryAction>,
    pub finished: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected: Option<String>,
    /// Steps the environment refused (unknown control, typing into a button...).
    pub wrong_steps: usize,
}

/// The coder's side of a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoderSide {
    pub feedback: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<Vec<Check>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected: Option<String>,
}

/// One stored round (`verification_rounds.body`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundRecord {
    pub round: u32,
    pub actor: ActorSide,
    pub coder: CoderSide,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluation: Option<EvalResult>,
    /// Declared outputs that did not hold after the trajectory.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_outputs: Vec<String>,
    /// `passed`, or why the round failed.
    pub verdict: String,
}

/// The outcome of the loop of one instance (`verify_units.body`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitRecord {
    pub instance: Instance,
    pub passed: bool,
    /// Rounds played.
    pub rounds: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trajectory: Option<SubtaskTrajectory>,
    /// The checks of the last round with usable checks (the passing ones if passed).
    #[serde(default)]
    pub checks: Vec<Check>,
    /// One sentence per failed round (`round N: ...`), or the reason no round ran.
    #[serde(default)]
    pub reasons: Vec<String>,
}

/// The trajectory id of an instance: stable across runs.
pub fn trajectory_id(inst: &Instance) -> String {
    format!("{}-p{}", inst.subtask_id, inst.parameter_index)
}

/// A unit that could not start (its inputs cannot be prepared...).
pub fn unverifiable(inst: Instance, reason: String) -> UnitRecord {
    UnitRecord {
        instance: inst,
        passed: false,
        rounds: 0,
        trajectory: None,
        checks: Vec::new(),
        reasons: vec![reason],
    }
}

struct Episode {
    actions: Vec<TrajectoryAction>,
    observations: Vec<String>,
    finished: bool,
    rejected: Option<String>,
    wrong_steps: usize,
    desk: Box<dyn Replica>,
    seen: BTreeSet<String>,
}

fn control_infos(obs: &Observation) -> Vec<ControlInfo> {
    obs.controls
        .iter()
        .map(|c| ControlInfo {
            label: c.label.clone(),
            control_text: c.control_text.clone(),
            control_type: c.control_type.clone(),
            parent_control_text: c.parent_control_text.clone(),
            parent_control_type: c.parent_control_type.clone(),
        })
        .collect()
}

impl UnitContext<'_> {
    fn episode(
        &self,
        inst: &Instance,
        start: &dyn Replica,
        feedback: Option<&ActorFeedback>,
    ) -> Result<Episode, LlmError> {
        let tid = trajectory_id(inst);
        let mut desk = start.fork();
        let mut seen = BTreeSet::new();
        let mut ep = Episode {
            actions: Vec::new(),
            observations: Vec::new(),
            finished: false,
            rejected: None,
            wrong_steps: 0,
            desk: start.fork(),
            seen: BTreeSet::new(),
        };
        let mut history: Vec<HistoryStep> = Vec::new();
        if let Ok(obs) = desk.observe() {
            note_observed(&obs, &mut seen);
        }
        for k in 0..self.max_steps {
            let obs = match desk.observe() {
                Ok(obs) => obs,
                Err(e) => {
                    ep.rejected = Some(format!("step {}: the desktop failed: {e}", k + 1));
                    break;
                }
            };
            let req = ActRequest {
                instruction: inst.instruction.clone(),
                window_title: obs.window_title.clone(),
                controls: control_infos(&obs),
                history: history.clone(),
                feedback: feedback.cloned(),
                screenshot: if self.screenshots {
                    obs.screenshot(true).ok()
                } else {
                    None
                },
            };
            let reply = self.runtime.block_on(self.model.act(&req))?;
            let step = match reply.outcome {
                Outcome::Accepted(s) => s,
                Outcome::Rejected { reason, .. } => {
                    ep.rejected = Some(format!("step {}: {reason}", k + 1));
                    break;
                }
            };
            if let Some(action) = &step.action {
                let rect = obs
                    .controls
                    .iter()
                    .find(|c| Some(&c.label) == action.control_label.as_ref())
                    .or_else(|| {
                        obs.controls
                            .iter()
                            .find(|c| c.control_text == action.control_text)
                    })
                    .map(|c| c.rect)
                    .unwrap_or_default();
                let stepped = desk
                    .describe_before(action)
                    .and_then(|before| Ok((before, desk.step(action)?)));
                let (before, out) = match stepped {
                    Ok(done) => done,
                    Err(e) => {
                        ep.rejected = Some(format!("step {}: the desktop failed: {e}", k + 1));
                        break;
                    }
                };
                if !out.ok {
                    ep.wrong_steps += 1;
                }
                note_observed(&out.observation, &mut seen);
                ep.observations.push(format!("{tid}/step_{:02}.png", k));
                ep.actions.push(TrajectoryAction {
                    call: action.call.clone(),
                    rect,
                    description: before,
                    thought: step.thought.clone(),
                    effect: out.observation.feedback.clone().unwrap_or_default(),
                    control_text: action.control_text.clone(),
                    control_label: action.control_label.clone(),
                });
                history.push(HistoryStep {
                    thought: step.thought.clone(),
                    action: action.clone(),
                });
            }
            if step.status == StepStatus::Finish {
                ep.finished = true;
                break;
            }
            if step.action.is_none() {
                ep.rejected = Some(format!("step {}: CONTINUE without an action", k + 1));
                break;
            }
        }
        ep.observations.push(format!("{tid}/final.png"));
        ep.desk = desk;
        ep.seen = seen;
        Ok(ep)
    }

    /// Runs the loop of `inst` (of `subtask`).
    ///
    /// # Errors
    /// A model call that got no reply at all (transport, replay miss): the unit is
    /// then left undone, to be retried by the next run.
    pub fn verify(
        &self,
        subtask: &Subtask,
        inst: Instance,
    ) -> Result<(UnitRecord, Vec<RoundRecord>), LlmError> {
        let start = match start_state(self.base, &inst) {
            Ok(s) => s,
            Err(reason) => return Ok((unverifiable(inst, reason), Vec::new())),
        };
        let mut actor_fb: Option<ActorFeedback> = None;
        let mut actor_notes: Vec<FailedCheck> = Vec::new();
        let mut coder_fb: Option<CoderFeedback> = None;
        let mut records = Vec::new();
        let mut reasons = Vec::new();
        let mut last_checks = Vec::new();
        for round in 1..=self.rounds.max(1) {
            let ep = self.episode(&inst, start.as_ref(), actor_fb.as_ref())?;
            let req = CodeRequest {
                instruction_template: subtask.instruction_template.clone(),
                application: subtask.application.clone(),
                os: subtask.os.clone(),
                parameters: subtask.available_parameters.clone(),
                controls_seen: ep.seen.iter().cloned().collect(),
                feedback: coder_fb.clone(),
                apis: self.apis.to_vec(),
            };
            let code = self.runtime.block_on(self.model.code(&req))?;
            let (checks, coder_rejected) = match code.outcome {
                Outcome::Accepted(c) => (Some(c), None),
                Outcome::Rejected { reason, .. } => (None, Some(reason)),
            };
            let mut rec = RoundRecord {
                round,
                actor: ActorSide {
                    feedback: actor_fb.as_ref().map(ActorFeedback::render),
                    actions: ep.actions.clone(),
                    finished: ep.finished,
                    rejected: ep.rejected.clone(),
                    wrong_steps: ep.wrong_steps,
                },
                coder: CoderSide {
                    feedback: coder_fb.as_ref().map(CoderFeedback::render),
                    checks: checks.clone(),
                    rejected: coder_rejected.clone(),
                },
                evaluation: None,
                missing_outputs: Vec::new(),
                verdict: String::new(),
            };
            let mut problems = Vec::new();
            let mut next_actor = None;
            let mut next_coder = None;
            if let Some(r) = &ep.rejected {
                problems.push(format!("actor reply rejected ({r})"));
                next_actor = Some(ActorFeedback::ReplyUnusable { reason: r.clone() });
            } else if !ep.finished {
                problems.push(format!(
                    "the actor did not finish within {} steps",
                    self.max_steps
                ));
                next_actor = Some(ActorFeedback::StepLimit {
                    steps: self.max_steps,
                });
            }
            if let Some(r) = &coder_rejected {
                problems.push(format!("coder reply rejected ({r})"));
                next_coder = Some(CoderFeedback::ReplyUnusable { reason: r.clone() });
            }
            if let Some(checks) = &checks {
                last_checks = checks.clone();
                let result = crate::env::evaluate(checks, &inst.params, ep.desk.probes());
                let missing = missing_outputs(ep.desk.as_ref(), &inst);
                rec.missing_outputs = missing.iter().map(|r| r.to_string()).collect();
                if !result.success {
                    problems.push(format!("check failed: {}", result.message));
                    if next_actor.is_none() {
                        // Every failing check, and those of earlier rounds: a fix
                        // for one must not undo the fix for another.
                        for c in checks {
                            let one = crate::env::evaluate(
                                std::slice::from_ref(c),
                                &inst.params,
                                ep.desk.probes(),
                            );
                            let note = failed_check(c, &inst.params);
                            if !one.success && !actor_notes.contains(&note) {
                                actor_notes.push(note);
                            }
                        }
                        next_actor = Some(ActorFeedback::FailedChecks {
                            checks: actor_notes.clone(),
                        });
                    }
                    next_coder = Some(coder_evidence(
                        checks,
                        &inst.params,
                        ep.desk.as_ref(),
                        &ep.seen,
                    ));
                } else if !missing.is_empty() && problems.is_empty() {
                    let list = rec.missing_outputs.join(", ");
                    problems.push(format!(
                        "resource contract: {list} did not hold after the trajectory"
                    ));
                    next_actor = Some(ActorFeedback::MissingOutputs {
                        outputs: rec.missing_outputs.clone(),
                    });
                    next_coder = Some(CoderFeedback::MissingOutputs {
                        outputs: rec.missing_outputs.clone(),
                    });
                }
                rec.evaluation = Some(result);
            }
            if problems.is_empty() {
                if let Some(p) = covered_problem(start.as_ref(), &inst, &ep.actions) {
                    problems.push(format!("not composable: {p}"));
                    next_actor = Some(ActorFeedback::NotComposable { problem: p });
                }
            }
            if problems.is_empty() {
                rec.verdict = crate::store::UnitVerdict::Passed.to_string();
                records.push(rec);
                let trajectory = SubtaskTrajectory {
                    trajectory_id: trajectory_id(&inst),
                    instruction: inst.instruction.clone(),
                    observations: ep.observations,
                    actions: ep.actions,
                    subtask_id: inst.subtask_id.clone(),
                    parameter_index: Some(inst.parameter_index),
                };
                return Ok((
                    UnitRecord {
                        instance: inst,
                        passed: true,
                        rounds: round,
                        trajectory: Some(trajectory),
                        checks: last_checks,
                        reasons,
                    },
                    records,
                ));
            }
            rec.verdict = problems.join("; ");
            reasons.push(format!("round {round}: {}", rec.verdict));
            records.push(rec);
            actor_fb = next_actor.or(actor_fb);
            coder_fb = next_coder.or(coder_fb);
        }
        let rounds = records.len() as u32;
        Ok((
            UnitRecord {
                instance: inst,
                passed: false,
                rounds,
                trajectory: None,
                checks: last_checks,
                reasons,
            },
            records,
        ))
    }
}

/// A failing check as the actor's feedback names it: instantiated with the
/// instance's parameters, its message filled.
pub fn failed_check(check: &Check, params: &ParameterSet) -> FailedCheck {
    FailedCheck {
        call: check.call.instantiate(params),
        expect: check.expect,
        message: check
            .message
            .as_ref()
            .map(|m| crate::model::fill_placeholders(m, params)),
    }
}

/// The environment's evidence about every check that fails on the trajectory,
/// for the coder, with the controls and texts seen during the trajectory.
pub fn coder_evidence(
    checks: &[Check],
    params: &ParameterSet,
    desk: &dyn Environment,
    seen: &BTreeSet<String>,
) -> CoderFeedback {
    CoderFeedback::FailedChecks {
        checks: checks
            .iter()
            .filter(|c| {
                crate::env::run_check(&c.call.instantiate(params), desk.probes()) != c.expect
            })
            .map(|c| check_evidence(c, params, desk, seen))
            .collect(),
        seen: seen.iter().cloned().collect(),
    }
}

fn check_evidence(
    check: &Check,
    params: &ParameterSet,
    desk: &dyn Environment,
    seen: &BTreeSet<String>,
) -> CheckEvidence {
    let call = check.call.instantiate(params);
    let findings = findings(&call, desk, seen);
    CheckEvidence {
        call,
        expect: check.expect,
        findings,
    }
}

/// The names of the files and folders (with a final `/`) right inside `dir`,
/// from every path below it (as [`crate::env::Probes::paths_under`] lists them).
fn children(under: Vec<(String, bool)>, dir: &str) -> Vec<String> {
    let prefix = format!("{}/", dir.trim_end_matches('/'));
    under
        .into_iter()
        .filter_map(|(path, is_dir)| {
            let rest = path.strip_prefix(&prefix)?;
            if rest.is_empty() || rest.contains('/') {
                return None;
            }
            Some(if is_dir {
                format!("{rest}/")
            } else {
                rest.to_string()
            })
        })
        .collect()
}

/// What the desktop shows about one (instantiated) check call.
fn findings(call: &CheckCall, desk: &dyn Environment, seen: &BTreeSet<String>) -> Vec<Finding> {
    let p = desk.probes();
    let seen_ci = |t: &str| {
        let t = t.trim().to_lowercase();
        seen.iter().any(|s| s.to_lowercase().contains(&t))
    };
    let events = p.events();
    let files_in = |path: &str| {
        let dir = vfs::normalize(path, HOME)
            .map(|p| vfs::parent(&p).to_string())
            .unwrap_or_default();
        let files = children(p.paths_under(&dir), &dir);
        Finding::FilesIn { dir, files }
    };
    match call {
        CheckCall::CheckMouseClicks { text } => {
            let text = text.clone();
            let first = if seen_ci(&text) {
                Finding::NotClicked { text }
            } else {
                Finding::NoSuchControl { text }
            };
            let controls = events
                .iter()
                .filter(|e| e.hit && matches!(e.kind, EventKind::Click { .. }))
                .map(|e| e.control_text.clone())
                .collect();
            vec![first, Finding::Clicked { controls }]
        }
        CheckCall::CheckKeyboardTypes { .. } => vec![Finding::Typed {
            texts: events
                .iter()
                .filter_map(|e| match &e.kind {
                    EventKind::Type { text } => Some(text.clone()),
                    _ => None,
                })
                .collect(),
        }],
        CheckCall::CheckKeyPresses { .. } => vec![Finding::KeysPressed {
            keys: events
                .iter()
                .filter_map(|e| match &e.kind {
                    EventKind::Keys { keys } => Some(keys.clone()),
                    _ => None,
                })
                .collect(),
        }],
        CheckCall::CheckFileExists { file_path }
        | CheckCall::CheckFileContains { file_path, .. } => vec![files_in(file_path)],
        CheckCall::CheckDirExists { dir_path } => vec![files_in(dir_path)],
        CheckCall::CheckClipboardContains { .. } => vec![Finding::Clipboard {
            text: p.clipboard_text(),
        }],
        CheckCall::CheckTextExists { text }
        | CheckCall::CheckTextExistsViaControl { text }
        | CheckCall::CheckTextExistsViaOcr { text } => {
            let text = text.clone();
            let first = if seen_ci(&text) {
                Finding::NotShownAtEnd { text }
            } else {
                Finding::NeverShown { text }
            };
            vec![
                first,
                Finding::ShownAtEnd {
                    texts: p.control_texts(),
                },
            ]
        }
        CheckCall::CheckWindowOpen { .. } => vec![Finding::OpenWindows {
            titles: p.window_titles(),
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CheckCall;

    #[test]
    fn a_failing_check_is_named_with_its_parameters_filled() {
        let check = Check {
            call: CheckCall::CheckMouseClicks {
                text: "{button}".into(),
            },
            expect: true,
            message: Some("{button} was clicked".into()),
        };
        let mut p = ParameterSet::new();
        p.insert("button".into(), "Save".into());
        let fb = ActorFeedback::FailedChecks {
            checks: vec![failed_check(&check, &p)],
        };
        assert_eq!(fb.subgoals().clicks, vec!["Save"]);
        assert!(fb.render().ends_with("(Check message: Save was clicked)"));
    }
}
