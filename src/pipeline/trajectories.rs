//! `synth trajectories`: task trajectories (OmniBench C.5) from verified subtask
//! trajectories, replayed and checked by the graph evaluator.
//!
//! For each validated task without stored trajectories, and each of its first K
//! orders in `successful_topo` (default 1), the task trajectory is the
//! concatenation of its nodes' verified subtask trajectories in that order (node →
//! `(subtask_id, parameter_index)` → the subtask's trajectory for that parameter
//! set). It is replayed on a fresh desktop of the chosen backend with
//! [`crate::eval::graph::replay`] and stored `ok` when every node completes, else
//! `failed` with the first node (in the order) that did not complete. The id is
//! `"<task_id>(<k>)"`. `generated/task_trajectories.jsonl` holds every `ok`
//! trajectory in the store.
//!
//! A task with a node whose subtask has no verified trajectory for its parameter
//! set is left alone (not stored) and counted as waiting: once verify supplies the
//! trajectory, the next run takes it up.
//!
//! Joining asks the backend for a [`Replica`] (a desktop it can copy): on one,
//! nodes continue in windows earlier nodes left open ([`assemble`]) and replays
//! run in parallel (rayon), one copy per worker thread; without one (a real
//! desktop), trajectories are concatenated as verified, each node opening its
//! application from the desktop's launcher ([`Joiner`],
//! [`super::trajectories_real`]), and replayed one by one on desktop 0.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use super::StageContext;
use crate::env::{Desktops, EnvError, Environment, Replica, Setup};
use crate::eval::graph::{node_checks, replay, GraphEvaluator, NodeState};
use crate::eval::EvalError;
use crate::model::{
    Action, ActionCall, Subtask, SubtaskId, SubtaskStatus, SubtaskTrajectory, Task, TaskId,
    TaskNode, TaskTrajectory, TrajectoryAction,
};
use crate::store::tasks::StoredTaskTrajectory;
use crate::store::StoreError;
use crate::store::{TaskStatus, TrajectoryStatus};

/// Default number of topological orders per task.
pub const DEFAULT_ORDERS: usize = 1;

/// Flags of `synth trajectories`.
#[derive(Debug, Clone, clap::Args)]
pub struct TrajectoriesArgs {
    /// Task trajectories per task: one per topological order, the first K of
    /// `successful_topo`.
    #[arg(long, value_name = "K", default_value_t = DEFAULT_ORDERS)]
    pub orders: usize,
}

impl Default for TrajectoriesArgs {
    fn default() -> Self {
        TrajectoriesArgs {
            orders: DEFAULT_ORDERS,
        }
    }
}

/// Errors of the trajectories stage.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrajectoriesStageError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("desktop: {0}")]
    Env(#[from] EnvError),
    #[error("--orders must be at least 1")]
    NoOrders,
    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What `synth trajectories` did.
#[derive(Debug, Clone, Serialize)]
pub struct TrajectoriesReport {
    pub orders: usize,
    /// Validated tasks taken up in this run.
    pub tasks: usize,
    pub ok: usize,
    pub failed: usize,
    /// Validated tasks left for later: a node's subtask has no verified trajectory.
    pub waiting: usize,
    /// The first node without a trajectory, as an example for the message.
    pub waiting_example: Option<String>,
    /// Tasks whose graph or checks cannot be evaluated (stored as failed).
    pub unevaluable: usize,
    pub total_ok: usize,
    pub total_failed: usize,
    pub file: PathBuf,
    pub seconds: f64,
}

impl TrajectoriesReport {
    /// Share of this run's trajectories that replay to full coverage.
    pub fn ok_share(&self) -> f64 {
        let n = self.ok + self.failed;
        if n == 0 {
            0.0
        } else {
            self.ok as f64 / n as f64
        }
    }
}

impl fmt::Display for TrajectoriesReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.tasks == 0 {
            writeln!(f, "no validated task waits for trajectories")?;
        } else {
            writeln!(
                f,
                "{} task trajectories for {} tasks ({} per task at most): {} replay to full coverage ({:.1}%), {} failed; {:.2}s",
                self.ok + self.failed,
                self.tasks,
                self.orders,
                self.ok,
                100.0 * self.ok_share(),
                self.failed,
                self.seconds
            )?;
        }
        if self.waiting > 0 {
            writeln!(
                f,
                "{} validated tasks wait for verified subtask trajectories (run synth verify), e.g. {}",
                self.waiting,
                self.waiting_example.as_deref().unwrap_or("")
            )?;
        }
        write!(
            f,
            "{} ok and {} failed task trajectories in the store; ok ones in {}",
            self.total_ok,
            self.total_failed,
            self.file.display()
        )
    }
}

/// Verified subtask trajectories by (subtask, parameter set): the first stored.
pub type TrajectoryIndex<'a> = BTreeMap<(&'a SubtaskId, usize), &'a SubtaskTrajectory>;

/// Indexes the trajectories of `subtasks`; a trajectory without `parameter_index`
/// stands for parameter set 0.
pub fn index_trajectories(subtasks: &[Subtask]) -> TrajectoryIndex<'_> {
    let mut out = BTreeMap::new();
    for s in subtasks {
        for t in &s.trajectories {
            out.entry((&s.id, t.parameter_index.unwrap_or(0)))
                .or_insert(t);
        }
    }
    out
}

/// Why a task trajectory cannot be assembled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssembleError {
    #[error("node {node} (subtask {subtask}, parameter set {index}) has no verified trajectory")]
    NoTrajectory {
        node: String,
        subtask: String,
        index: usize,
    },
    #[error("node {node} of the order is not a node of the task")]
    UnknownNode { node: String },
    #[error("the desktop failed: {0}")]
    Desktop(String),
}

/// How the trajectories of a task's nodes are joined on the chosen desktops: on
/// a copy of a [`Replica`] ([`assemble`]), or, on a real desktop, one after
/// another, each node opening its application from the desktop's launcher
/// ([`super::trajectories_real::assemble`]).
#[derive(Clone, Copy)]
pub enum Joiner<'a> {
    Replica(&'a dyn Replica),
    Launcher(&'static str),
}

impl<'a> Joiner<'a> {
    /// The joiner of `desktops`, whose replica (when they have one) is `replica`.
    ///
    /// # Errors
    /// Desktops with neither a replica nor a launcher.
    pub fn of(
        desktops: &dyn Desktops,
        replica: Option<&'a dyn Replica>,
    ) -> Result<Joiner<'a>, EnvError> {
        match (replica, desktops.launcher_keys()) {
            (Some(r), _) => Ok(Joiner::Replica(r)),
            (None, Some(keys)) => Ok(Joiner::Launcher(keys)),
            (None, None) => Err(EnvError::Setup(format!(
                "the {} desktop can neither be copied nor open applications from a launcher, \
                 so task trajectories cannot be joined on it",
                desktops.backend().name()
            ))),
        }
    }

    /// The k-th task trajectory of `task` for `order` (see [`assemble`] and
    /// [`super::trajectories_real::assemble`]).
    ///
    /// # Errors
    /// Those of the two.
    pub fn assemble(
        &self,
        task: &Task,
        k: usize,
        order: &[String],
        index: &TrajectoryIndex<'_>,
        subtasks: &BTreeMap<SubtaskId, Subtask>,
    ) -> Result<TaskTrajectory, AssembleError> {
        match self {
            Joiner::Replica(r) => assemble(task, k, order, index, subtasks, *r),
            Joiner::Launcher(keys) => {
                super::trajectories_real::assemble(task, k, order, index, keys)
            }
        }
    }
}

/// The k-th task trajectory of `task`: its nodes' subtask trajectories
/// concatenated in `order`, played as they are joined on a copy of `replica`
/// reset to the initial desktop.
///
/// A subtask trajectory was recorded from the initial desktop: it clicks "Start"
/// (show the desktop) and launches its application. In a task, an earlier node
/// may have left that application's window open. The joined trajectory then
/// continues in it: a click on its taskbar button when it is not in front, a click
/// back to the application's first screen when the window is still on another
/// one (the contacts list after adding a contact) and the node's first control is
/// not shown, and the subtask's steps without the "Start" click and the launch.
/// Likewise a "Start"
/// click is left out while the desktop is already shown. Each such shortcut is
/// kept only when the node, followed by the graph evaluator while joining,
/// completes with it; otherwise (the open window is on another screen, holds other
/// values...) the open window is closed first (a click on its taskbar button when
/// it is not in front, then on its title bar's Close button) and the node is played
/// as verified. When the whole joined trajectory still leaves a node incomplete,
/// it is joined again closing every open window, as verified. Joining steps are
/// ordinary actions an agent could take; their observations are named
/// `join_NN.png`.
///
/// Every step's `description` is what the screen shows before it on the joined
/// desktop ([`Environment::describe_before`]) and its `effect` what it did there.
///
/// # Errors
/// A node of the order that the task does not have, a node without a verified
/// trajectory, or a desktop that failed.
pub fn assemble(
    task: &Task,
    k: usize,
    order: &[String],
    index: &TrajectoryIndex<'_>,
    subtasks: &BTreeMap<SubtaskId, Subtask>,
    replica: &dyn Replica,
) -> Result<TaskTrajectory, AssembleError> {
    let task_id = task_id_of(task);
    let trajectory_id = format!("{}({k})", task_id.0);
    // Without evaluable checks no shortcut can be confirmed: join as verified.
    let evaluator = node_checks(task, subtasks)
        .ok()
        .and_then(|nodes| GraphEvaluator::for_task(task, nodes, 0).ok());
    let mut joined = join(
        task,
        &trajectory_id,
        order,
        index,
        replica,
        evaluator.clone(),
    )?;
    if evaluator.is_some() && !joined.complete {
        joined = join(task, &trajectory_id, order, index, replica, None)?;
    }
    Ok(TaskTrajectory {
        trajectory_id,
        task_id,
        topological_order: order.to_vec(),
        instruction: task.task_instruction.clone(),
        intent: task.task_intent.clone(),
        observations: joined.observations,
        actions: joined.actions,
    })
}

/// A joined trajectory and whether every node completed while joining.
struct Joined {
    observations: Vec<String>,
    actions: Vec<TrajectoryAction>,
    complete: bool,
}

/// The steps joined so far and the desktop (with the evaluator) after them.
struct Joining<'a> {
    trajectory_id: &'a str,
    desk: Box<dyn Replica>,
    evaluator: Option<GraphEvaluator>,
    observations: Vec<String>,
    actions: Vec<TrajectoryAction>,
    /// The first failure of the desktop itself (the join then fails with it).
    failure: Option<EnvError>,
}

impl Joining<'_> {
    /// Plays `step` (with the wheel turns it needs first), records it with the
    /// screen before it and its effect; `observation` names its screenshot (a
    /// joining step's when None). Returns whether every action was valid.
    fn push(&mut self, step: &TrajectoryAction, observation: Option<&String>) -> bool {
        let mut ok = true;
        for turn in scrolling_steps(self.desk.as_ref(), step) {
            ok &= self.play(turn, None);
        }
        ok & self.play(step.clone(), observation)
    }

    /// Plays one step; false when it was not valid or the desktop failed (the
    /// failure is kept and the step not recorded).
    fn play(&mut self, mut step: TrajectoryAction, observation: Option<&String>) -> bool {
        let action = step.to_action();
        let played = self.desk.describe_before(&action).and_then(|before| {
            step.description = before;
            self.desk.step(&action)
        });
        let out = match played {
            Ok(out) => out,
            Err(e) => {
                self.failure.get_or_insert(e);
                return false;
            }
        };
        step.effect = out.observation.feedback.clone().unwrap_or_default();
        if let Some(e) = self.evaluator.as_mut() {
            e.after_step(self.desk.probes());
        }
        self.observations.push(match observation {
            Some(o) => o.clone(),
            None => format!(
                "{}/join_{:02}.png",
                self.trajectory_id,
                self.observations.len()
            ),
        });
        self.actions.push(step);
        out.ok
    }

    fn completed(&self, node: &str) -> bool {
        self.evaluator
            .as_ref()
            .is_some_and(|e| e.state(node) == Some(NodeState::Completed))
    }
}

/// Joins the nodes' trajectories on a copy of `replica` reset to the initial
/// desktop; with an `evaluator`, nodes continue in windows left open where that
/// completes them (see [`assemble`]), without one every open window of a node's
/// application is closed first.
fn join(
    task: &Task,
    trajectory_id: &str,
    order: &[String],
    index: &TrajectoryIndex<'_>,
    replica: &dyn Replica,
    evaluator: Option<GraphEvaluator>,
) -> Result<Joined, AssembleError> {
    let mut desk = replica.fork();
    desk.reset(&Setup::default())
        .map_err(|e| AssembleError::Desktop(e.to_string()))?;
    let shortcuts = evaluator.is_some();
    let mut j = Joining {
        trajectory_id,
        desk,
        evaluator,
        observations: Vec::new(),
        actions: Vec::new(),
        failure: None,
    };
    let mut last_finals: Vec<String> = Vec::new();
    for id in order {
        let node = task
            .nodes
            .get(id)
            .ok_or_else(|| AssembleError::UnknownNode { node: id.clone() })?;
        let t = index
            .get(&(&node.subtask_id, node.parameter_index))
            .ok_or_else(|| AssembleError::NoTrajectory {
                node: id.clone(),
                subtask: node.subtask_id.0.clone(),
                index: node.parameter_index,
            })?;
        let finals: Vec<String> = t
            .observations
            .iter()
            .skip(t.actions.len())
            .cloned()
            .collect();
        if shortcuts {
            let before = (
                j.desk.fork(),
                j.evaluator.clone(),
                j.observations.len(),
                j.actions.len(),
            );
            if continue_node(&mut j, node, t) && j.completed(id) {
                last_finals = finals;
                continue;
            }
            j.desk = before.0;
            j.evaluator = before.1;
            j.observations.truncate(before.2);
            j.actions.truncate(before.3);
        }
        for step in closing_steps(j.desk.as_ref(), &node.application) {
            j.play(step, None);
        }
        if let Some(step) = t
            .actions
            .first()
            .and_then(|first| reveal_step(j.desk.as_ref(), first, &node.application))
        {
            j.play(step, None);
        }
        for (i, a) in t.actions.iter().enumerate() {
            j.push(a, t.observations.get(i));
        }
        last_finals = finals;
    }
    // One observation per action, then the screen after the last one: a node's
    // final screen is the next action's screen, not an extra image between.
    if let Some(e) = j.failure {
        return Err(AssembleError::Desktop(e.to_string()));
    }
    j.observations.extend(last_finals);
    let complete = j
        .evaluator
        .as_ref()
        .is_some_and(GraphEvaluator::all_completed);
    Ok(Joined {
        observations: j.observations,
        actions: j.actions,
        complete,
    })
}

/// Plays `node`'s trajectory `t` on `j` without starting over where the desktop
/// allows: in the window of its application left open by an earlier node (brought
/// to the front first when it is not), or without the "Start" click when the
/// desktop is already shown. Returns false when the trajectory was played as
/// verified (nothing to shorten) or a step was not valid.
fn continue_node(j: &mut Joining<'_>, node: &TaskNode, t: &SubtaskTrajectory) -> bool {
    let app = node.application.as_str();
    let open = j.desk.window_of(app);
    let desktop_shown = j.desk.active_window().is_none();
    if open.is_none() && !desktop_shown {
        return false;
    }
    let start = j.desk.show_desktop_text();
    let is_click =
        |a: &TrajectoryAction| matches!(a.call, ActionCall::ClickInput { double: false, .. });
    // The leading "Start" click, and with an open window the launch after it.
    let mut skip = 0;
    if let Some(a) = t.actions.first() {
        if is_click(a) && Some(&a.control_text) == start.as_ref() {
            skip = 1;
        }
    }
    if open.is_some() {
        if let Some(a) = t.actions.get(skip) {
            if is_click(a) && a.control_text == app {
                skip += 1;
            } else {
                return false;
            }
        }
    }
    if skip == 0 {
        return false;
    }
    let mut ok = true;
    if let Some(w) = open {
        if j.desk.active_window() != Some(w) {
            match focus_step(j.desk.as_ref(), app, &node.instruction) {
                Some(step) => ok &= j.play(step, None),
                None => return false,
            }
        }
    }
    // The window may be where the earlier node left it (the contacts list after
    // adding a contact): back to the application's first screen, as a person
    // would, when the node's next control is not on this one.
    if let Some(next) = t.actions.get(skip) {
        for _ in 0..3 {
            if !ok || shows(j.desk.as_ref(), &next.control_text) {
                break;
            }
            match home_step(j.desk.as_ref(), app) {
                Some(step) => ok &= j.play(step, None),
                None => break,
            }
        }
    }
    for (i, a) in t.actions.iter().enumerate().skip(skip) {
        if !ok {
            break;
        }
        ok &= j.push(a, t.observations.get(i));
    }
    ok
}

/// A click on "Start" (show the desktop) when the first step of a node's
/// trajectory aims at a control that the open windows cover and the desktop shows:
/// a trajectory recorded from the fresh desktop may launch its application by
/// clicking the desktop icon straight away (a model's actor does), which an
/// earlier node's window hides. Whatever actor made the trajectory, this is the
/// step a person takes first. None when the control is on screen already or
/// showing the desktop does not reveal it.
pub fn reveal_step(
    desk: &dyn Replica,
    first: &TrajectoryAction,
    app: &str,
) -> Option<TrajectoryAction> {
    let action = first.to_action();
    // A click on the application's own name starts it from its desktop icon;
    // while it is not open, a control of that name in another window (the
    // Slides button "Notes" that adds speaker notes) is not the icon.
    let launches = first.control_text == app && desk.window_of(app).is_none();
    if launches && desk.active_window().is_none() {
        return None;
    }
    if !launches && desk.resolves(&action) {
        return None;
    }
    let start = desk.observe().ok()?.controls.into_iter().find(|c| {
        c.parent_control_text == "Taskbar"
            && Some(&c.control_text) == desk.show_desktop_text().as_ref()
    })?;
    let mut shown = desk.fork();
    let step = click_step(
        &start,
        format!(
            "Other windows cover the desktop; I show the desktop first to get to '{}' and start {app} from there.",
            first.control_text
        ),
        format!("Click '{}' to show the desktop", start.control_text),
    );
    shown.step(&step.to_action()).ok()?;
    shown.resolves(&action).then_some(step)
}

/// Does the screen show a control with this text?
fn shows(desk: &dyn Replica, text: &str) -> bool {
    desk.observe()
        .is_ok_and(|obs| obs.controls.iter().any(|c| c.control_text == text))
}

/// A click that takes `app`'s window (in front) back towards its first screen: a
/// control of the current screen that only goes there or only goes back.
fn home_step(desk: &dyn Replica, app: &str) -> Option<TrajectoryAction> {
    let home = desk.home_control(app)?;
    let obs = desk.observe().ok()?;
    let c = obs.controls.iter().find(|c| c.control_text == home)?;
    Some(click_step(
        c,
        format!(
            "The {app} window is still where the previous step left it; '{home}' brings back its main screen, where this step starts."
        ),
        format!("Click '{home}'"),
    ))
}

/// A click on `app`'s taskbar button to bring its open window to the front, with
/// a thought saying why (the node's instruction).
fn focus_step(desk: &dyn Replica, app: &str, instruction: &str) -> Option<TrajectoryAction> {
    let obs = desk.observe().ok()?;
    let c = obs.controls.iter().find(|c| {
        c.parent_control_text == "Taskbar" && c.control_text == app && c.control_type == "Button"
    })?;
    let what = instruction_clause(instruction, app);
    let thought = match variant(instruction, 3) {
        0 => format!("Next I have to {what}. {app} is still open from an earlier step, so I switch to its window on the taskbar instead of starting it again."),
        1 => format!("The next part of the task, to {what}, happens in {app}; its window is already open, so bringing it to the front is enough."),
        _ => format!("{app} is already running in the background; I bring its window to the front to {what}."),
    };
    Some(click_step(c, thought, String::new()))
}

/// The instruction of a node as a clause after "to": "In Mail, send ..." becomes
/// "send ...", without the final period.
fn instruction_clause(instruction: &str, app: &str) -> String {
    let s = instruction.trim().trim_end_matches('.');
    let s = s.strip_prefix(&format!("In {app}, ")).unwrap_or(s);
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// A deterministic choice among `n` phrasings, by the text they are about.
fn variant(key: &str, n: usize) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h % n as u64) as usize
}

/// The steps that close `app`'s open window on `start` (none when it has no
/// window), planned on a copy of it.
fn closing_steps(start: &dyn Replica, app: &str) -> Vec<TrajectoryAction> {
    let mut steps = Vec::new();
    let Some(window) = start.window_of(app) else {
        return steps;
    };
    let mut desk = start.fork();
    if desk.active_window() != Some(window) {
        let Ok(obs) = desk.observe() else {
            return steps;
        };
        let button = obs.controls.iter().find(|c| {
            c.parent_control_text == "Taskbar"
                && c.control_text == app
                && c.control_type == "Button"
        });
        if let Some(c) = button {
            steps.push(click_step(
                c,
                format!("Bring the open {app} window to the front."),
                format!("Click '{app}' on the taskbar"),
            ));
        }
    }
    for step in &steps {
        if desk.step(&step.to_action()).is_err() {
            return steps;
        }
    }
    let Ok(obs) = desk.observe() else {
        return steps;
    };
    let close = obs
        .controls
        .iter()
        .find(|c| c.parent_control_type == "TitleBar" && c.control_text == "Close");
    if let Some(c) = close.filter(|_| desk.active_window() == Some(window)) {
        steps.push(click_step(
            c,
            format!("Close the {app} window left from the previous step, to start the next step in a fresh window."),
            format!("Click 'Close' on the {app} title bar"),
        ));
    }
    steps
}

/// The wheel turns that bring the control `next` clicks into view when earlier
/// nodes made a list longer than when the subtask was verified (more files in a
/// folder): each visible list in turn is scrolled down until the control shows,
/// then up (a list scrolled down to pick one file may hide the next one above),
/// planned on copies of `start`. None when the control is visible or no
/// scrolling reveals it (the replay then reports the node).
fn scrolling_steps(start: &dyn Replica, next: &TrajectoryAction) -> Vec<TrajectoryAction> {
    const MAX_TURNS: usize = 30;
    if !matches!(next.call, ActionCall::ClickInput { .. }) || start.resolves(&next.to_action()) {
        return Vec::new();
    }
    let Ok(obs) = start.observe() else {
        return Vec::new();
    };
    let lists: Vec<crate::env::ControlInfo> = obs
        .controls
        .into_iter()
        .filter(|c| c.control_type == "List")
        .collect();
    for (list, wheel) in lists.iter().flat_map(|l| [(l, 1), (l, -1)]) {
        let mut desk = start.fork();
        let mut steps = Vec::new();
        let way = if wheel > 0 { "down" } else { "up" };
        for _ in 0..MAX_TURNS {
            let turn = TrajectoryAction {
                call: ActionCall::WheelMouseInput { wheel_dist: wheel },
                rect: list.rect,
                description: format!("Scroll {way} '{}'", list.control_text),
                thought: format!(
                    "'{}' is not visible yet; scroll the list {way} to find it.",
                    next.control_text
                ),
                control_text: list.control_text.clone(),
                control_label: Some(list.label.clone()),
                effect: String::new(),
            };
            let Ok(outcome) = desk.step(&turn.to_action()) else {
                break;
            };
            steps.push(turn);
            if desk.resolves(&next.to_action()) {
                return steps;
            }
            if !outcome.ok
                || outcome
                    .observation
                    .feedback
                    .as_deref()
                    .is_some_and(|f| f.contains("cannot scroll further"))
            {
                break;
            }
        }
    }
    Vec::new()
}

fn click_step(
    c: &crate::env::ControlInfo,
    thought: String,
    description: String,
) -> TrajectoryAction {
    TrajectoryAction {
        call: ActionCall::ClickInput {
            button: "left".into(),
            double: false,
        },
        rect: c.rect,
        description,
        thought,
        control_text: c.control_text.clone(),
        control_label: Some(c.label.clone()),
        effect: String::new(),
    }
}

fn task_id_of(task: &Task) -> TaskId {
    task.task_id
        .clone()
        .unwrap_or_else(|| TaskId(String::new()))
}

/// The outcome of replaying one assembled trajectory.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    pub ok: bool,
    /// For a failure: the first node of the order that did not complete.
    pub reason: Option<String>,
}

/// Replays `traj` for `task` on `desk` (reset to the initial desktop) and checks
/// that every node completes.
///
/// # Errors
/// The task's graph or node checks cannot be evaluated.
pub fn check_trajectory(
    desk: &mut dyn Environment,
    task: &Task,
    subtasks: &BTreeMap<SubtaskId, Subtask>,
    traj: &TaskTrajectory,
) -> Result<Checked, EvalError> {
    let nodes = node_checks(task, subtasks)?;
    let actions: Vec<Action> = traj.actions.iter().map(|a| a.to_action()).collect();
    // No stall limit: the whole recorded trajectory is replayed.
    let r = replay(desk, task, nodes.clone(), &actions, 0)?;
    if r.all_completed() {
        return Ok(Checked {
            ok: true,
            reason: None,
        });
    }
    let stuck = traj
        .topological_order
        .iter()
        .find(|id| r.states.get(*id) != Some(&NodeState::Completed))
        .cloned()
        .unwrap_or_default();
    let state = r
        .states
        .get(&stuck)
        .map(|s| format!("{s:?}").to_lowercase())
        .unwrap_or_default();
    let what = task
        .nodes
        .get(&stuck)
        .map(|n| format!(" ({}: {})", n.application, n.instruction))
        .unwrap_or_default();
    // Why, as the desktop is now: the first check of the node that fails.
    let why = nodes
        .iter()
        .find(|n| n.id == stuck)
        .map(|n| crate::env::checks::evaluate(&n.checks, &n.params, desk.probes()))
        .filter(|e| !e.success)
        .map(|e| format!(": {}", e.message))
        .unwrap_or_default();
    Ok(Checked {
        ok: false,
        reason: Some(format!(
            "node {stuck}{what} did not complete (still {state}{why}) after {} actions; completed: [{}]",
            r.steps,
            r.completion_order.join(", ")
        )),
    })
}

/// Replays each of `trajs` for `task` on `desk`; the rows to store and whether
/// the task could not be evaluated.
fn check_rows(
    desk: &mut dyn Environment,
    task: &Task,
    by_id: &BTreeMap<SubtaskId, Subtask>,
    trajs: &[TaskTrajectory],
) -> (Vec<StoredTaskTrajectory>, bool) {
    let task_id = task_id_of(task).0;
    let mut rows = Vec::with_capacity(trajs.len());
    let mut unevaluable = false;
    // A real desktop is not deterministic (a file chooser's completion popup may
    // or may not take a keystroke, depending on how fast the application is): a
    // replay that fails there is tried once more from a fresh desktop, and the
    // reason says so when both fail. The simulated desktop replays once.
    let tries = if desk.backend() == crate::env::EnvBackend::Sim {
        1
    } else {
        2
    };
    for t in trajs {
        let mut checked = None;
        for attempt in 1..=tries {
            let c = match check_trajectory(desk, task, by_id, t) {
                Ok(c) => c,
                Err(e) => {
                    unevaluable = true;
                    Checked {
                        ok: false,
                        reason: Some(format!("cannot evaluate the task: {e}")),
                    }
                }
            };
            let done = c.ok || unevaluable;
            checked = Some(match c.reason {
                Some(r) if tries > 1 => Checked {
                    ok: c.ok,
                    reason: Some(format!("{r} (replay {attempt} of {tries})")),
                },
                _ => c,
            });
            if done {
                break;
            }
        }
        let checked = checked.expect("at least one replay");
        rows.push(StoredTaskTrajectory {
            trajectory_id: t.trajectory_id.clone(),
            task_id: task_id.clone(),
            status: if checked.ok {
                TrajectoryStatus::Ok
            } else {
                TrajectoryStatus::Failed
            },
            reason: checked.reason,
            trajectory: t.clone(),
        });
    }
    (rows, unevaluable)
}

/// Runs `synth trajectories`.
///
/// # Errors
/// Store failures, a desktop that does not load, or the JSONL file that cannot be
/// written. Failing trajectories are data (stored `failed`), not errors.
pub fn run(
    args: &TrajectoriesArgs,
    cx: &StageContext<'_>,
) -> Result<TrajectoriesReport, TrajectoriesStageError> {
    let started = std::time::Instant::now();
    if args.orders == 0 {
        return Err(TrajectoriesStageError::NoOrders);
    }
    let done = cx.store.tasks_with_trajectories()?;
    let tasks: Vec<Task> = cx
        .store
        .tasks(None)?
        .into_iter()
        .filter(|t| t.status == TaskStatus::Validated)
        .map(|t| t.task)
        .filter(|t| {
            t.task_id
                .as_ref()
                .is_some_and(|id| !done.contains(id.0.as_str()))
        })
        .collect();
    let subtasks = cx.store.subtasks(SubtaskStatus::Verified)?;
    let index = index_trajectories(&subtasks);
    let by_id: BTreeMap<SubtaskId, Subtask> =
        subtasks.iter().map(|s| (s.id.clone(), s.clone())).collect();
    let file = cx
        .workspace
        .join("generated")
        .join("task_trajectories.jsonl");
    let mut report = TrajectoriesReport {
        orders: args.orders,
        tasks: 0,
        ok: 0,
        failed: 0,
        waiting: 0,
        waiting_example: None,
        unevaluable: 0,
        total_ok: 0,
        total_failed: 0,
        file: file.clone(),
        seconds: 0.0,
    };

    // Assemble first (cheap), leaving tasks with missing trajectories for later.
    let desktops = cx.env.desktops(&cx.workspace)?;
    let replica = desktops.replica();
    let joiner = Joiner::of(desktops.as_ref(), replica.as_deref())?;
    let mut work: Vec<(usize, Vec<TaskTrajectory>)> = Vec::new();
    for (k, task) in tasks.iter().enumerate() {
        let mut trajs = Vec::new();
        let mut missing = None;
        for (j, order) in task.successful_topo.iter().take(args.orders).enumerate() {
            match joiner.assemble(task, j, order, &index, &by_id) {
                Ok(t) => trajs.push(t),
                Err(e) => {
                    missing = Some(e);
                    break;
                }
            }
        }
        match missing {
            Some(e) => {
                report.waiting += 1;
                report.waiting_example.get_or_insert_with(|| e.to_string());
            }
            None if !trajs.is_empty() => work.push((k, trajs)),
            None => {}
        }
    }
    report.tasks = work.len();

    if !work.is_empty() {
        let run = cx.store.begin_run(
            "trajectories",
            &serde_json::json!({"orders": args.orders, "tasks": work.len()}),
        )?;
        let bar = cx.progress(work.len() as u64, "replay");
        let results = match &replica {
            Some(base) => {
                let threads = rayon::ThreadPoolBuilder::new()
                    .num_threads(cx.jobs)
                    .build()
                    .expect("a rayon pool with at least one thread");
                threads.install(|| {
                    work.par_iter()
                        .map_init(
                            || base.fork(),
                            |desk, (k, trajs)| {
                                let (rows, unevaluable) =
                                    check_rows(desk.as_mut(), &tasks[*k], &by_id, trajs);
                                bar.inc(1);
                                (*k, rows, unevaluable)
                            },
                        )
                        .collect()
                })
            }
            None => {
                // A real desktop is one machine: the tasks are replayed one by one.
                let mut desk = desktops.open(0)?;
                work.iter()
                    .map(|(k, trajs)| {
                        let (rows, unevaluable) =
                            check_rows(desk.as_mut(), &tasks[*k], &by_id, trajs);
                        bar.inc(1);
                        (*k, rows, unevaluable)
                    })
                    .collect::<Vec<_>>()
            }
        };
        bar.finish_and_clear();
        for (_, rows, unevaluable) in &results {
            cx.store.put_task_trajectories(rows)?;
            report.unevaluable += usize::from(*unevaluable);
            for r in rows {
                if r.status == TrajectoryStatus::Ok {
                    report.ok += 1;
                } else {
                    report.failed += 1;
                }
            }
        }
        cx.store.finish_run(
            run,
            crate::store::RunStatus::Ok,
            &serde_json::json!({"ok": report.ok, "failed": report.failed, "waiting": report.waiting}),
        )?;
    }
    let ok_rows = cx.store.task_trajectories(Some(TrajectoryStatus::Ok))?;
    report.total_ok = ok_rows.len();
    report.total_failed = cx
        .store
        .task_trajectories(Some(TrajectoryStatus::Failed))?
        .len();
    write_jsonl(&file, ok_rows.iter().map(|r| &r.trajectory))?;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Writes one JSON value per line through a temporary file and a rename.
fn write_jsonl<'t>(
    path: &Path,
    items: impl Iterator<Item = &'t TaskTrajectory>,
) -> Result<(), TrajectoriesStageError> {
    let werr = |source| TrajectoriesStageError::Write {
        path: path.to_path_buf(),
        source,
    };
    crate::atomic::write_with(path, |w| {
        for t in items {
            serde_json::to_writer(&mut *w, t).expect("model types always serialize");
            w.write_all(b"\n")?;
        }
        Ok(())
    })
    .map_err(werr)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn click(text: &str) -> TrajectoryAction {
        TrajectoryAction::click(text, false)
    }

    #[test]
    fn an_application_is_started_from_its_icon_not_from_a_button_of_its_name() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let desktops = crate::env::EnvSetup::default().desktops(root).unwrap();
        let mut desk = desktops
            .replica()
            .expect("the simulated desktop is a replica");
        let setup = Setup {
            launch: vec!["Slides".to_string()],
            ..Setup::default()
        };
        desk.reset(&setup).unwrap();
        let desk = desk.as_ref();
        assert!(
            shows(desk, "Notes"),
            "Slides shows its speaker-notes button"
        );
        let step = reveal_step(desk, &click("Notes"), "Notes")
            .expect("the desktop is shown first to reach the Notes icon");
        assert_eq!(Some(step.control_text), desk.show_desktop_text());
        // A control of another name that the window shows needs no step.
        assert!(reveal_step(desk, &click("Two Columns"), "Slides").is_none());
    }
}
