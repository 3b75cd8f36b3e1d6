//! The resource contract of an instantiated subtask and the replay machinery the
//! other verification steps share.
//!
//! An [`Instance`] is a (subtask, parameter set) pair with its instruction and its
//! input and output resources (from [`crate::resources::instantiate`]). Its start
//! desktop ([`start_state`], on a copy of a [`Replica`]; [`prepare_start`] on any
//! desktop) is the fresh desktop (nothing launched) in which the instance's inputs
//! hold: inputs that do not hold on the initial desktop
//! are prepared by the desktop itself ([`Environment::prepare`]: a stand-in file for
//! a path kind, the clipboard, a record of a collection, a document open in a
//! minimised window...). An input no rule can prepare makes the instance
//! unverifiable, with the reason.
//!
//! The contract: inputs hold before the trajectory (true of the start
//! desktop by construction), outputs hold after it, in the desktop's judgement
//! ([`Environment::holds`]). Discriminative power: an evaluation must fail on the
//! trajectories of other subtasks replayed from their own start desktops.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::env::{evaluate, EnvError, Environment, Replica, Setup};
use crate::model::{Check, EvalResult, ParameterSet, Subtask, SubtaskId, TrajectoryAction};
use crate::resources::{instantiate, Catalog, Resource, ResourceError};

/// One instantiated subtask, with what verification needs to replay it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    pub subtask_id: SubtaskId,
    /// Index into the subtask's `available_parameters` as proposed.
    pub parameter_index: usize,
    pub application: String,
    pub instruction: String,
    pub params: ParameterSet,
    pub inputs: Vec<Resource>,
    pub outputs: Vec<Resource>,
    /// The values of outputs whose kind the action itself says (`implied`:
    /// 'wallpaper=beach.jpg' of setting the wallpaper) and the instruction
    /// does not name: nothing to type (a budget of '2000' it names is typed).
    pub implied: Vec<String>,
}

impl Instance {
    /// Instance `index` of `subtask`.
    ///
    /// # Errors
    /// When the resources do not instantiate (unknown kind, missing parameter).
    pub fn new(
        catalog: &Catalog,
        subtask: &Subtask,
        index: usize,
    ) -> Result<Instance, ResourceError> {
        let (inputs, outputs) = instantiate(catalog, subtask, index)?;
        let instruction = subtask.instruction(index).unwrap_or_default();
        Ok(Instance {
            subtask_id: subtask.id.clone(),
            parameter_index: index,
            application: subtask.application.clone(),
            params: subtask
                .available_parameters
                .get(index)
                .cloned()
                .unwrap_or_default(),
            implied: outputs
                .iter()
                .filter(|r| catalog.kinds.get(&r.kind).is_some_and(|k| k.implied))
                .filter_map(|r| r.parameter.clone())
                .filter(|v| !instruction.contains(v.as_str()))
                .collect(),
            instruction,
            inputs,
            outputs,
        })
    }
}

/// The fresh desktop of `inst`: a copy of `base` reset with nothing launched,
/// then every input that does not hold prepared.
///
/// # Errors
/// A sentence naming the input that cannot be prepared.
pub fn start_state(base: &dyn Replica, inst: &Instance) -> Result<Box<dyn Replica>, String> {
    let mut desk = base.fork();
    prepare_start(desk.as_mut(), inst)?;
    Ok(desk)
}

/// Resets `desk` with nothing launched, then prepares every input of `inst` that
/// does not hold, on any backend ([`Environment::prepare`]).
///
/// # Errors
/// A sentence naming the input that cannot be prepared.
pub fn prepare_start(desk: &mut dyn Environment, inst: &Instance) -> Result<(), String> {
    desk.reset(&Setup::default())
        .map_err(|e| format!("cannot reset the desktop: {e}"))?;
    for input in &inst.inputs {
        if !desk.holds(input) {
            desk.prepare(&inst.application, input, &inst.params)?;
        }
        if !desk.holds(input) {
            return Err(format!(
                "input resource {input} does not hold on a fresh desktop and cannot be prepared"
            ));
        }
    }
    Ok(())
}

/// What a replayed trajectory left behind and what it showed on the way.
pub struct Replayed {
    pub desk: Box<dyn Replica>,
    /// Control texts (and window titles) seen in any observation.
    pub seen: BTreeSet<String>,
    /// Steps the environment reported as wrong (unknown control...).
    pub wrong_steps: usize,
}

/// Replays `actions` on a copy of `start` ([`replay_on`] on the copy).
///
/// # Errors
/// When the desktop fails (not for a wrong action).
pub fn replay(start: &dyn Replica, actions: &[TrajectoryAction]) -> Result<Replayed, EnvError> {
    let mut desk = start.fork();
    let Seen { seen, wrong_steps } = replay_on(desk.as_mut(), actions)?;
    Ok(Replayed {
        desk,
        seen,
        wrong_steps,
    })
}

/// What a replay on any backend showed: control texts and window titles seen,
/// and the steps the desktop reported as wrong. The desktop is the caller's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Seen {
    pub seen: BTreeSet<String>,
    pub wrong_steps: usize,
}

/// Replays `actions` on `desk` as it is (already prepared, see [`prepare_start`]).
///
/// # Errors
/// When the backend fails (not for a wrong action).
pub fn replay_on(
    desk: &mut dyn Environment,
    actions: &[TrajectoryAction],
) -> Result<Seen, crate::env::EnvError> {
    let mut out = Seen::default();
    note_observed(&desk.observe()?, &mut out.seen);
    for a in actions {
        let step = desk.step(&a.to_action())?;
        if !step.ok {
            out.wrong_steps += 1;
        }
        note_observed(&step.observation, &mut out.seen);
    }
    Ok(out)
}

/// The start desktop of `inst` as a composed task may hand it over: `start` with
/// another application's window open in front, covering the desktop. None when the
/// desktop has no other application.
pub fn covered_start(start: &dyn Replica, inst: &Instance) -> Option<Box<dyn Replica>> {
    let other = start
        .applications()
        .into_iter()
        .find(|name| *name != inst.application)?;
    let mut desk = start.fork();
    desk.launch(&other).ok()?;
    Some(desk)
}

/// Why the trajectory of `inst` does not work from [`covered_start`], with the
/// joining step a task trajectory adds (show the desktop when the first control is
/// covered, [`crate::pipeline::trajectories::reveal_step`]): a step the desktop
/// refuses, or an output that does not hold after it. None when it works there (or
/// the desktop has no other application to cover it with).
///
/// Subtask trajectories are recorded from a fresh desktop but replayed inside task
/// trajectories, after other nodes left their windows open; one that only works on
/// a bare desktop makes tasks that never replay.
pub fn covered_problem(
    start: &dyn Replica,
    inst: &Instance,
    actions: &[TrajectoryAction],
) -> Option<String> {
    let mut desk = covered_start(start, inst)?;
    let covering = desk
        .active_window()
        .and_then(|i| desk.open_windows().get(i).cloned())
        .unwrap_or_default();
    if let Some(step) = actions.first().and_then(|first| {
        crate::pipeline::trajectories::reveal_step(desk.as_ref(), first, &inst.application)
    }) {
        if let Err(e) = desk.step(&step.to_action()) {
            return Some(format!("the desktop failed: {e}"));
        }
    }
    for (i, a) in actions.iter().enumerate() {
        let ok = match desk.step(&a.to_action()) {
            Ok(out) => out.ok,
            Err(e) => return Some(format!("the desktop failed: {e}")),
        };
        if !ok {
            return Some(format!(
                "with a {covering} window open in front, step {} ('{}') cannot be taken",
                i + 1,
                a.control_text
            ));
        }
    }
    let missing = missing_outputs(desk.as_ref(), inst);
    if missing.is_empty() {
        return None;
    }
    let list: Vec<String> = missing.iter().map(|r| r.to_string()).collect();
    Some(format!(
        "with a {covering} window open in front, {} did not hold after the trajectory",
        list.join(", ")
    ))
}

/// Adds an observation's window title and control texts to `seen`.
pub fn note_observed(obs: &crate::env::Observation, seen: &mut BTreeSet<String>) {
    seen.insert(obs.window_title.clone());
    for c in &obs.controls {
        if !c.control_text.is_empty() {
            seen.insert(c.control_text.clone());
        }
    }
}

/// The outputs of `inst` that do not hold in `desk` (empty: the contract holds).
pub fn missing_outputs(desk: &dyn Environment, inst: &Instance) -> Vec<Resource> {
    inst.outputs
        .iter()
        .filter(|r| !desk.holds(r))
        .cloned()
        .collect()
}

/// The checks evaluated with `params` on the final desktop of a replay.
pub fn judge(checks: &[Check], params: &ParameterSet, desk: &dyn Environment) -> EvalResult {
    evaluate(checks, params, desk.probes())
}

/// A trajectory of another instance, for discriminative power.
#[derive(Debug, Clone)]
pub struct Other<'a> {
    pub instance: &'a Instance,
    pub actions: &'a [TrajectoryAction],
}

/// The first of `others` whose replayed trajectory the checks accept (the
/// evaluation lacks discriminative power), or `None` when all are rejected.
pub fn accepted_other<'a>(
    base: &dyn Replica,
    checks: &[Check],
    params: &ParameterSet,
    others: &[Other<'a>],
) -> Option<&'a Instance> {
    others.iter().find_map(|o| {
        let start = start_state(base, o.instance).ok()?;
        let r = replay(start.as_ref(), o.actions).ok()?;
        judge(checks, params, r.desk.as_ref())
            .success
            .then_some(o.instance)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn base() -> (Box<dyn Replica>, Catalog) {
        let ws = Path::new(env!("CARGO_MANIFEST_DIR"));
        let desktops = crate::env::EnvSetup::default().desktops(ws).unwrap();
        (desktops.replica().unwrap(), Catalog::load(ws).unwrap())
    }

    fn subtask(inputs: &[&str], outputs: &[&str], params: &[(&str, &str)]) -> Subtask {
        Subtask {
            id: SubtaskId("t".into()),
            instruction_template: "x".into(),
            application: "Writer".into(),
            category: None,
            os: "Linux".into(),
            available_parameters: vec![params
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()],
            input_resources: inputs.iter().map(|s| s.to_string()).collect(),
            output_resources: outputs.iter().map(|s| s.to_string()).collect(),
            evaluation: None,
            trajectories: vec![],
            provenance: None,
        }
    }

    #[test]
    fn missing_inputs_are_prepared_and_then_hold() {
        let (desk, cat) = base();
        let s = subtask(
            &["table_in_clipboard", "docx_in_processing", "pdf_path"],
            &[],
            &[("pdf_path", "/home/user/Documents/not_there.pdf")],
        );
        let inst = Instance::new(&cat, &s, 0).unwrap();
        let start = start_state(desk.as_ref(), &inst).unwrap();
        for r in &inst.inputs {
            assert!(start.holds(r), "{r}");
        }
        assert_eq!(start.active_window(), None, "the desktop is shown");
    }

    #[test]
    fn replay_on_a_copy_sees_what_replay_on_the_desktop_sees() {
        let (desk, cat) = base();
        let s = subtask(
            &["pdf_path"],
            &[],
            &[("pdf_path", "/home/user/Documents/x.pdf")],
        );
        let inst = Instance::new(&cat, &s, 0).unwrap();
        let start = start_state(desk.as_ref(), &inst).unwrap();
        let click = |text: &str| TrajectoryAction::click(text, false);
        let actions = [click("Start"), click("Writer"), click("No such control")];
        let sim = replay(start.as_ref(), &actions).unwrap();
        let mut generic = start.fork();
        let seen = replay_on(generic.as_mut(), &actions).unwrap();
        assert_eq!(seen.seen, sim.seen);
        assert_eq!(seen.wrong_steps, sim.wrong_steps);
        assert_eq!(seen.wrong_steps, 1);
        assert!(seen.seen.contains("Writer"), "{:?}", seen.seen);
    }

    #[test]
    fn unpreparable_input_is_a_reason() {
        let (desk, cat) = base();
        let s = subtask(&["setting_value"], &[], &[("setting_value", "dark")]);
        let inst = Instance::new(&cat, &s, 0).unwrap();
        let Err(err) = start_state(desk.as_ref(), &inst) else {
            panic!("an input no rule prepares makes the instance unverifiable");
        };
        assert!(err.contains("setting_value=dark"), "{err}");
    }
}
