//! `synth verify` on a real desktop (`--env x11`): every proposed subtask that
//! carries demonstrations (the real-desktop explorer's, see
//! [`crate::pipeline::explore::walker`]) is verified by replay.
//!
//! For each parameter set, in a freshly reset desktop with the application open:
//! 1. the evaluation must fail before anything is done (a check that holds on
//!    the start state proves nothing);
//! 2. the demonstration is replayed action by action; every action must reach
//!    its control;
//! 3. the evaluation must then pass and every output resource must hold.
//!
//! A subtask is verified when at least one parameter set survives; it keeps the
//! surviving sets, re-indexed, each with its trajectory. Otherwise it is rejected
//! with each set's reason. Each subtask is decided and written in one
//! transaction, so an interrupted run resumes with the subtasks still proposed.
//! A real desktop cannot be cloned, so there is no search here: what the
//! explorer demonstrated is what is checked, and the check is on real files.

use std::collections::BTreeMap;
use std::time::Instant;

use super::{AppCounts, VerifyArgs, VerifyError, VerifyReport};
use crate::env::{evaluate, EnvError, Environment, Setup};
use crate::model::{ParameterSet, Subtask, SubtaskStatus, SubtaskTrajectory};
use crate::resources::{instantiate, Catalog};
use crate::stage::StageContext;

/// Runs `synth verify` on the context's real backend.
///
/// A subtask the desktop cannot try (its application does not start in time
/// under load, the display fails) stays proposed with that reason, the desktop
/// is replaced, and the others go on; the report counts it as pending, by cause.
///
/// # Errors
/// A store that fails, or no desktop at all that starts.
pub fn run(args: &VerifyArgs, cx: &StageContext<'_>) -> Result<VerifyReport, VerifyError> {
    let started = Instant::now();
    let proposed = cx.store.subtasks(SubtaskStatus::Proposed)?;
    let run_id = cx.store.begin_run(
        "verify",
        &serde_json::to_value(args).unwrap_or(serde_json::Value::Null),
    )?;
    let mut report = empty_report(cx.env.backend.name(), proposed.len());
    let bar = cx.progress(proposed.len() as u64, "verify");
    // `--jobs` desktops side by side (separate displays, buses and sandboxes),
    // each taking the next subtask; decisions are written here, one subtask per
    // transaction, in the order they come back.
    let jobs = cx.jobs.clamp(1, proposed.len().max(1));
    let queue = std::sync::Mutex::new(proposed.into_iter());
    let (tx, rx) = std::sync::mpsc::channel::<Message>();
    let (setup, workspace, catalog) = (&cx.env, cx.workspace.as_path(), cx.catalog);
    let mut failure: Option<VerifyError> = None;
    // Why desktops could not start (one per slot that gave up), and whether any did.
    let mut no_desktop: Vec<String> = Vec::new();
    let mut any_desktop = false;
    std::thread::scope(|scope| {
        for slot in 0..jobs {
            let (tx, queue) = (tx.clone(), &queue);
            scope.spawn(move || worker(setup, workspace, catalog, slot, queue, &tx));
        }
        drop(tx);
        for message in rx {
            let stored = match message {
                Message::Opened => {
                    any_desktop = true;
                    continue;
                }
                Message::NoDesktop(why) => {
                    no_desktop.push(why);
                    continue;
                }
                Message::Decided(subtask, verdict, reasons) => {
                    bar.set_message(subtask.application.clone());
                    record(
                        cx,
                        run_id,
                        &mut report,
                        &subtask,
                        verdict.map(|v| *v),
                        &reasons,
                    )
                }
                Message::Untried(subtask, why) => {
                    bar.set_message(subtask.application.clone());
                    leave_proposed(cx, run_id, &mut report, &subtask, &why)
                }
            };
            if let Err(e) = stored {
                // A store that fails stops every worker after its current subtask.
                if let Ok(mut q) = queue.lock() {
                    q.by_ref().for_each(drop);
                }
                failure.get_or_insert(e);
            }
            bar.inc(1);
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    // Subtasks no worker took (every desktop gave up) stay proposed too.
    let left: Vec<Subtask> = queue
        .lock()
        .map(|mut q| q.by_ref().collect())
        .unwrap_or_default();
    if !left.is_empty() {
        if !any_desktop {
            // Not one desktop started: a set-up problem (a missing program), not load.
            bar.finish_and_clear();
            let why = no_desktop.first().cloned().unwrap_or_default();
            cx.store.finish_run(
                run_id,
                crate::store::RunStatus::Failed,
                &serde_json::json!({"error": why}),
            )?;
            return Err(EnvError::backend(cx.env.backend.name(), why).into());
        }
        let why = format!("no desktop: {}", no_desktop.join("; "));
        for subtask in &left {
            leave_proposed(cx, run_id, &mut report, subtask, &why)?;
        }
    }
    bar.finish_and_clear();
    report.seconds = (started.elapsed().as_secs_f64() * 10.0).round() / 10.0;
    let summary = serde_json::json!({
        "verified": report.verified,
        "rejected": report.rejected,
        "not_tried": report.pending,
    });
    cx.store
        .finish_run(run_id, crate::store::RunStatus::Done, &summary)?;
    Ok(report)
}

/// What a worker sends back.
enum Message {
    /// Its desktop started.
    Opened,
    /// Its desktop could not start (again): why. The worker has stopped.
    NoDesktop(String),
    /// A decided subtask: the verified subtask (or none) and the reasons of the
    /// dropped sets.
    Decided(Box<Subtask>, Option<Box<Subtask>>, Vec<String>),
    /// A subtask the desktop could not try (its application did not start, the
    /// display failed): why. It stays proposed for the next run.
    Untried(Box<Subtask>, String),
}

/// One desktop of `--jobs`: takes the next proposed subtask until none is left.
/// A desktop that fails on a subtask leaves it untried and is replaced by a
/// fresh one (closed first: its processes end with it); a desktop that cannot
/// start ends the worker.
fn worker(
    setup: &crate::env::EnvSetup,
    workspace: &std::path::Path,
    catalog: &Catalog,
    slot: usize,
    queue: &std::sync::Mutex<std::vec::IntoIter<Subtask>>,
    tx: &std::sync::mpsc::Sender<Message>,
) {
    let open = || match setup.open(workspace, slot) {
        Ok(env) => {
            let _ = tx.send(Message::Opened);
            Some(env)
        }
        Err(e) => {
            let _ = tx.send(Message::NoDesktop(format!("desktop {slot}: {e}")));
            None
        }
    };
    let Some(mut env) = open() else { return };
    loop {
        let next = queue.lock().map(|mut q| q.next()).unwrap_or(None);
        let Some(subtask) = next else { break };
        let message = match decide(env.as_mut(), catalog, &subtask) {
            Ok((verdict, reasons)) => {
                Message::Decided(Box::new(subtask), verdict.map(Box::new), reasons)
            }
            Err(e) => {
                tracing::warn!(subtask = %subtask.id.0, app = %subtask.application, error = %e,
                    "the desktop could not try this subtask; it stays proposed");
                Message::Untried(Box::new(subtask), e.to_string())
            }
        };
        let untried = matches!(message, Message::Untried(..));
        if tx.send(message).is_err() {
            break;
        }
        if untried {
            drop(env);
            match open() {
                Some(fresh) => env = fresh,
                None => break,
            }
        }
    }
}

/// Leaves `subtask` proposed with the reason it could not be tried (the next
/// verify tries it again) and counts it in `report`.
fn leave_proposed(
    cx: &StageContext<'_>,
    run_id: i64,
    report: &mut VerifyReport,
    subtask: &Subtask,
    why: &str,
) -> Result<(), VerifyError> {
    report.pending += 1;
    *report.not_tried.entry(cause_of(why)).or_default() += 1;
    report
        .per_application
        .entry(subtask.application.clone())
        .or_default()
        .proposed += 1;
    cx.store.put_subtask(
        subtask,
        SubtaskStatus::Proposed,
        Some(&format!("not tried: {why}")),
        Some(run_id),
    )?;
    Ok(())
}

/// Counts `subtask`'s decision in `report` and stores it.
fn record(
    cx: &StageContext<'_>,
    run_id: i64,
    report: &mut VerifyReport,
    subtask: &Subtask,
    verdict: Option<Subtask>,
    reasons: &[String],
) -> Result<(), VerifyError> {
    let sets = subtask.available_parameters.len();
    report.units += sets;
    report.units_run += sets;
    report.units_passed += verdict.as_ref().map_or(0, |s| s.available_parameters.len());
    for r in reasons {
        *report.dropped.entry(cause_of(r)).or_default() += 1;
    }
    let counts = report
        .per_application
        .entry(subtask.application.clone())
        .or_default();
    counts.proposed += 1;
    match verdict {
        Some(s) => {
            counts.verified += 1;
            report.verified += 1;
            cx.store
                .put_subtask(&s, SubtaskStatus::Verified, None, Some(run_id))?;
        }
        None => {
            report.rejected += 1;
            cx.store.put_subtask(
                subtask,
                SubtaskStatus::Rejected,
                Some(&reasons.join("; ")),
                Some(run_id),
            )?;
        }
    }
    Ok(())
}

fn empty_report(backend: &str, proposed: usize) -> VerifyReport {
    VerifyReport {
        backend: format!("replay on {backend}"),
        proposed,
        verified: 0,
        rejected: 0,
        pending: 0,
        not_tried: BTreeMap::new(),
        units: 0,
        units_run: 0,
        units_passed: 0,
        units_failed: 0,
        rounds_needed: BTreeMap::new(),
        dropped: BTreeMap::new(),
        per_application: BTreeMap::<String, AppCounts>::new(),
        model_calls: 0,
        cost_usd: 0.0,
        seconds: 0.0,
        mutation: None,
    }
}

/// The short cause of a reason ("set 1: ..." -> the part after the colon).
fn cause_of(reason: &str) -> String {
    let cause = reason.split_once(": ").map_or(reason, |(_, c)| c);
    cause.split(" (").next().unwrap_or(cause).to_string()
}

/// Replays every parameter set of `subtask`; the verified subtask (surviving
/// sets only) or None, with the reason of every dropped set.
fn decide(
    env: &mut dyn Environment,
    catalog: &Catalog,
    subtask: &Subtask,
) -> Result<(Option<Subtask>, Vec<String>), EnvError> {
    let mut kept: Vec<(ParameterSet, SubtaskTrajectory)> = Vec::new();
    let mut reasons = Vec::new();
    for (i, params) in subtask.available_parameters.iter().enumerate() {
        // A real application is not deterministic (a file chooser's completion
        // popup may take a keystroke): a set that fails is replayed once more in
        // a fresh desktop; the second answer stands.
        let mut outcome = check_set(env, catalog, subtask, i)?;
        if outcome.is_err() {
            outcome = check_set(env, catalog, subtask, i)?;
        }
        match outcome {
            Ok(()) => {
                let traj = subtask
                    .trajectories
                    .iter()
                    .find(|t| t.parameter_index == Some(i))
                    .cloned();
                if let Some(t) = traj {
                    kept.push((params.clone(), t));
                }
            }
            Err(why) => reasons.push(format!("set {i}: {why}")),
        }
    }
    if kept.is_empty() {
        return Ok((None, reasons));
    }
    let mut s = subtask.clone();
    s.available_parameters = kept.iter().map(|(p, _)| p.clone()).collect();
    s.trajectories = kept
        .into_iter()
        .enumerate()
        .map(|(k, (_, mut t))| {
            t.trajectory_id = format!("{}-p{k}", s.id);
            t.parameter_index = Some(k);
            t
        })
        .collect();
    Ok((Some(s), reasons))
}

/// Checks parameter set `i` of `subtask`: Ok, or why it fails.
fn check_set(
    env: &mut dyn Environment,
    catalog: &Catalog,
    subtask: &Subtask,
    i: usize,
) -> Result<Result<(), String>, EnvError> {
    let params = &subtask.available_parameters[i];
    let Some(evaluation) = &subtask.evaluation else {
        return Ok(Err("no evaluation".into()));
    };
    let Some(traj) = subtask
        .trajectories
        .iter()
        .find(|t| t.parameter_index == Some(i))
    else {
        return Ok(Err("no demonstration to replay".into()));
    };
    let setup = Setup {
        launch: vec![subtask.application.clone()],
        ..Setup::default()
    };
    env.reset(&setup)?;
    // Inputs that another subtask makes in a task are prepared here.
    let (inputs, _) = match instantiate(catalog, subtask, i) {
        Ok(r) => r,
        Err(e) => return Ok(Err(format!("resources: {e}"))),
    };
    for input in &inputs {
        if !env.holds(input) {
            if let Err(why) = env.prepare(&subtask.application, input, params) {
                return Ok(Err(why));
            }
        }
    }
    if evaluate(&evaluation.checks, params, env.probes()).success {
        return Ok(Err("the evaluation holds before anything is done".into()));
    }
    for (k, action) in traj.actions.iter().enumerate() {
        if !env.step(&action.to_action())?.ok {
            return Ok(Err(format!(
                "replay: action {} ({}) reached no control",
                k + 1,
                action.control_text
            )));
        }
    }
    let result = evaluate(&evaluation.checks, params, env.probes());
    if !result.success {
        return Ok(Err(format!(
            "evaluation fails after the replay ({})",
            result.message
        )));
    }
    let (_, outputs) = match instantiate(catalog, subtask, i) {
        Ok(r) => r,
        Err(e) => return Ok(Err(format!("resources: {e}"))),
    };
    if let Some(missing) = outputs.iter().find(|r| !env.holds(r)) {
        return Ok(Err(format!(
            "output {missing} does not hold after the replay"
        )));
    }
    Ok(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_drop_the_set_and_the_detail() {
        assert_eq!(
            cause_of("set 2: evaluation fails after the replay (check_file_exists is false)"),
            "evaluation fails after the replay"
        );
        assert_eq!(cause_of("no evaluation"), "no evaluation");
    }
}
