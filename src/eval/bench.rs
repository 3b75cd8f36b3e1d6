//! The agents `synth bench` runs, and one episode of an agent on a task.
//!
//! An [`Agent`] sees the current [`Observation`] and answers the next action (or
//! that it is done). [`run_episode`] drives it on a fresh desktop with the graph
//! evaluator watching, and stops when every node completed, the run stalled
//! (`max_steps` actions without a newly completed node) or the agent finished.
//!
//! Three agents:
//! - [`OfflineAgent`], the planner and upper bound: it follows a topological order
//!   of maximal coherence ([`coherent_order`], reaching `CS_max`) and performs each
//!   node's verified subtask trajectory, switching applications through the
//!   desktop when a trajectory does not start there itself.
//! - [`RandomAgent`], the lower bound: clicks visible controls, types words from a
//!   small list and scrolls at random, from a seeded ChaCha stream.
//! - [`ModelAgent`], the actor role (OmniBench E.1) of a [`LanguageModel`], one
//!   [`ActRequest`] per step; it stops on FINISH or when a reply is rejected.

use std::collections::BTreeMap;
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::env::{Environment, Observation, Setup};
use crate::graph::SmallDag;
use crate::llm::{ActRequest, HistoryStep, LanguageModel, Outcome, StepStatus};
use crate::model::{
    Action, ActionCall, Dag, Subtask, SubtaskId, Task, TaskTrajectory, TrajectoryAction,
};
use crate::pipeline::trajectories::{AssembleError, Joiner};

use super::graph::{task_label, GraphEvaluator, NodeCheck, Replay};
use super::score::applications;
use super::EvalError;

/// Which agent `synth bench` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum AgentKind {
    /// The planner: verified subtask trajectories in a most coherent order.
    Offline,
    /// Random clicks, words and scrolls (seeded).
    Random,
    /// The actor role of the configured language model.
    Openai,
}

impl AgentKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AgentKind::Offline => "offline",
            AgentKind::Random => "random",
            AgentKind::Openai => "openai",
        }
    }
}

/// One step an agent decided on.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub action: Action,
    pub thought: String,
}

/// An agent acting on a desktop, one action at a time.
pub trait Agent {
    /// The next action for the current observation; `None` when the agent is done.
    ///
    /// # Errors
    /// A failure to decide at all (a model endpoint that cannot be reached); the
    /// episode ends with that error.
    fn next(&mut self, observation: &Observation) -> Result<Option<Decision>, EvalError>;
}

/// What one episode produced: the run as a C.5 task trajectory and the live
/// evaluation of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Episode {
    pub trajectory: TaskTrajectory,
    pub replay: Replay,
    /// The agent said it was done (rather than completing or stalling).
    pub finished_by_agent: bool,
}

/// Runs `agent` on `task` from the initial desktop, the evaluator checking after
/// every action. Stops when all nodes completed, the run stalled, the agent is done,
/// or after `max_steps × (nodes + 1)` actions (a bound the stall rule already
/// implies when `max_steps > 0`).
///
/// # Errors
/// The task's graph and checks are inconsistent, the desktop cannot be reset, or
/// the agent fails to decide.
pub fn run_episode(
    agent: &mut dyn Agent,
    env: &mut dyn Environment,
    task: &Task,
    nodes: Vec<NodeCheck>,
    max_steps: usize,
    instruction: &str,
) -> Result<Episode, EvalError> {
    let mut evaluator = GraphEvaluator::for_task(task, nodes, max_steps)?;
    let mut observation = env
        .reset(&Setup::default())
        .map_err(|source| EvalError::Env {
            task: task_label(task),
            source,
        })?;
    let cap = max_steps.max(1).saturating_mul(task.dag.nodes.len() + 1);
    let mut actions: Vec<TrajectoryAction> = Vec::new();
    let mut finished_by_agent = false;
    while !evaluator.all_completed() && !evaluator.stalled() && actions.len() < cap {
        let Some(decision) = agent.next(&observation)? else {
            finished_by_agent = true;
            break;
        };
        let rect = observation
            .controls
            .iter()
            .find(|c| decision.action.control_label.as_deref() == Some(c.label.as_str()))
            .or_else(|| {
                observation
                    .controls
                    .iter()
                    .find(|c| c.control_text == decision.action.control_text)
            })
            .map_or([0; 4], |c| c.rect);
        let before = crate::env::narrate::observation_before(&observation, &decision.action);
        let outcome = env
            .step(&decision.action)
            .map_err(|source| EvalError::Env {
                task: task_label(task),
                source,
            })?;
        actions.push(TrajectoryAction {
            call: decision.action.call.clone(),
            rect,
            description: before,
            thought: decision.thought,
            effect: outcome.observation.feedback.clone().unwrap_or_default(),
            control_text: decision.action.control_text.clone(),
            control_label: decision.action.control_label.clone(),
        });
        evaluator.after_step(env.probes());
        observation = outcome.observation;
    }
    let id = task
        .task_id
        .clone()
        .unwrap_or_else(|| crate::model::TaskId(task_label(task)));
    Ok(Episode {
        trajectory: TaskTrajectory {
            trajectory_id: format!("{}(1)", id.0),
            task_id: id,
            topological_order: evaluator.completion_order().to_vec(),
            instruction: instruction.to_string(),
            intent: task.task_intent.clone(),
            observations: Vec::new(),
            actions: actions.clone(),
        },
        replay: Replay {
            steps: actions.len(),
            states: evaluator.states(),
            completion_order: evaluator.completion_order().to_vec(),
            stalled_at: evaluator.stalled_at(),
        },
        finished_by_agent,
    })
}

/// A short human description of an action ("click 'Open'").
pub fn describe(action: &Action) -> String {
    let target = &action.control_text;
    match &action.call {
        ActionCall::ClickInput { button, double } => {
            let how = if *double { "double-click" } else { "click" };
            if button == "left" {
                format!("{how} '{target}'")
            } else {
                format!("{button} {how} '{target}'")
            }
        }
        ActionCall::KeyboardInput { keys } => format!("type '{keys}' into '{target}'"),
        ActionCall::WheelMouseInput { wheel_dist } => format!("scroll {wheel_dist} on '{target}'"),
    }
}

// ---------------------------------------------------------------------------
// Coherent order

/// A topological order of the graph with the largest coherency score (`CS_max`):
/// at every step it takes the available node, preferring the current
/// application, whose best completion is largest, the best completion being
/// [`SmallDag::cs_max`] of the remaining nodes with that node forced first.
///
/// # Errors
/// More nodes than [`crate::graph::MAX_NODES`], an edge to an unknown node, or a cycle.
pub fn coherent_order(
    dag: &Dag,
    app_of: &BTreeMap<String, String>,
) -> Result<Vec<String>, EvalError> {
    let n = dag.nodes.len();
    let index: BTreeMap<&str, usize> = dag
        .nodes
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let mut edges = Vec::new();
    for (from, tos) in &dag.edges {
        for to in tos {
            match (index.get(from.as_str()), index.get(to.as_str())) {
                (Some(&a), Some(&b)) => edges.push((a, b)),
                _ => {
                    return Err(EvalError::UnknownEdgeNode {
                        task: "<graph>".to_string(),
                        from: from.clone(),
                        to: to.clone(),
                    })
                }
            }
        }
    }
    let graph_err = |source| EvalError::Graph {
        task: "<graph>".to_string(),
        source,
    };
    // Validates size and acyclicity once.
    SmallDag::from_edges(n, &edges).map_err(graph_err)?;
    let mut app_ids: BTreeMap<&str, u32> = BTreeMap::new();
    let apps: Vec<u32> = dag
        .nodes
        .iter()
        .enumerate()
        .map(|(i, id)| match app_of.get(id) {
            Some(a) => {
                let next = app_ids.len() as u32;
                *app_ids.entry(a.as_str()).or_insert(next)
            }
            None => u32::MAX - i as u32,
        })
        .collect();
    let mut done = vec![false; n];
    let mut order: Vec<usize> = Vec::with_capacity(n);
    while order.len() < n {
        let last = order.last().map(|&v| apps[v]);
        let remaining: Vec<usize> = (0..n).filter(|&v| !done[v]).collect();
        let mut available: Vec<usize> = remaining
            .iter()
            .copied()
            .filter(|&v| edges.iter().all(|&(a, b)| b != v || done[a]))
            .collect();
        // Same application first, then graph order: ties keep that preference.
        available.sort_by_key(|&v| (Some(apps[v]) != last, v));
        let mut best: Option<(usize, usize)> = None;
        for &v in &available {
            let gain = usize::from(Some(apps[v]) == last);
            let score = gain + best_completion(&remaining, &edges, &apps, v).map_err(graph_err)?;
            if best.is_none_or(|(_, s)| score > s) {
                best = Some((v, score));
            }
        }
        let Some((v, _)) = best else {
            // Unreachable for an acyclic graph; stop rather than loop.
            break;
        };
        done[v] = true;
        order.push(v);
    }
    Ok(order.into_iter().map(|v| dag.nodes[v].clone()).collect())
}

/// The best coherency score of an order of `remaining` that starts with `first`.
fn best_completion(
    remaining: &[usize],
    edges: &[(usize, usize)],
    apps: &[u32],
    first: usize,
) -> Result<usize, crate::graph::DagError> {
    let local: BTreeMap<usize, usize> =
        remaining.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let mut sub: Vec<(usize, usize)> = edges
        .iter()
        .filter_map(|(a, b)| Some((*local.get(a)?, *local.get(b)?)))
        .collect();
    let f = local[&first];
    for i in 0..remaining.len() {
        if i != f {
            sub.push((f, i));
        }
    }
    let g = SmallDag::from_edges(remaining.len(), &sub)?;
    let sub_apps: Vec<u32> = remaining.iter().map(|&v| apps[v]).collect();
    Ok(g.cs_max(&sub_apps))
}

// ---------------------------------------------------------------------------
// Offline agent

/// The planner: performs the verified trajectory of each node in a most coherent
/// order. An upper bound on what an agent can score on the task.
#[derive(Debug, Clone)]
pub struct OfflineAgent {
    /// (application, actions) per node, in the order performed.
    segments: Vec<(String, Vec<Action>)>,
    segment: usize,
    step: usize,
    /// Actions to switch application before the current segment.
    switch: Vec<Action>,
    /// The desktop's button that shows the desktop, where a segment that does
    /// not start there switches application through the desktop icons (the
    /// simulated desktop's "Start"); None on a real desktop, whose joined
    /// trajectory opens each application from the launcher itself.
    show_desktop: Option<String>,
    order: Vec<String>,
}

impl OfflineAgent {
    /// Plans `task`: a most coherent order and each node's verified trajectory for
    /// its parameter set, joined by `joiner` as `synth trajectories` joins them
    /// (on a copy of the simulated desktop; on a real desktop concatenated as
    /// verified, each node opening its application from the launcher).
    ///
    /// # Errors
    /// The graph is not a valid small DAG, or a node has no subtask or no verified
    /// trajectory for its parameter set.
    pub fn new(
        task: &Task,
        subtasks: &BTreeMap<SubtaskId, Subtask>,
        joiner: Joiner<'_>,
    ) -> Result<OfflineAgent, EvalError> {
        let label = task_label(task);
        let order = coherent_order(&task.dag, &applications(task)).map_err(|e| match e {
            EvalError::Graph { source, .. } => EvalError::Graph {
                task: label.clone(),
                source,
            },
            EvalError::UnknownEdgeNode { from, to, .. } => EvalError::UnknownEdgeNode {
                task: label.clone(),
                from,
                to,
            },
            other => other,
        })?;
        // The same joined trajectory `synth trajectories` makes (closing windows
        // left open by earlier nodes, scrolling lists that grew), so the planner
        // performs what the task trajectories demonstrate.
        let pool: Vec<Subtask> = subtasks.values().cloned().collect();
        let index = crate::pipeline::trajectories::index_trajectories(&pool);
        let joined = joiner
            .assemble(task, 0, &order, &index, subtasks)
            .map_err(|e| match e {
                AssembleError::NoTrajectory {
                    node,
                    subtask,
                    index,
                } => EvalError::NoTrajectory {
                    task: label.clone(),
                    node,
                    subtask,
                    index,
                },
                AssembleError::UnknownNode { node } => EvalError::MissingTaskNode {
                    task: label.clone(),
                    node,
                },
                AssembleError::Desktop(message) => EvalError::Env {
                    task: label.clone(),
                    source: crate::env::EnvError::Setup(message),
                },
            })?;
        let first_app = order
            .first()
            .and_then(|id| task.nodes.get(id))
            .map(|n| n.application.clone())
            .unwrap_or_default();
        let segments = vec![(
            first_app,
            joined
                .actions
                .iter()
                .map(TrajectoryAction::to_action)
                .collect(),
        )];
        let show_desktop = match joiner {
            Joiner::Replica(r) => r.show_desktop_text(),
            Joiner::Launcher(_) => None,
        };
        Ok(OfflineAgent {
            segments,
            segment: 0,
            step: 0,
            switch: Vec::new(),
            show_desktop,
            order,
        })
    }

    /// The node order the agent follows.
    pub fn order(&self) -> &[String] {
        &self.order
    }
}

fn click(text: &str) -> Action {
    Action {
        call: ActionCall::ClickInput {
            button: "left".to_string(),
            double: false,
        },
        control_label: None,
        control_text: text.to_string(),
    }
}

impl Agent for OfflineAgent {
    fn next(&mut self, observation: &Observation) -> Result<Option<Decision>, EvalError> {
        loop {
            if !self.switch.is_empty() {
                let action = self.switch.remove(0);
                return Ok(Some(Decision {
                    thought: "Switch to the application of the next subtask.".to_string(),
                    action,
                }));
            }
            let Some((app, actions)) = self.segments.get(self.segment) else {
                return Ok(None);
            };
            if self.step == 0 {
                // A verified trajectory starts from the desktop's icons; one that
                // does not gets there when another application is in front.
                if let Some(start) = &self.show_desktop {
                    let starts_on_desktop =
                        actions.first().is_some_and(|a| &a.control_text == start);
                    if !starts_on_desktop && observation.scene.app.as_deref() != Some(app.as_str())
                    {
                        self.switch = vec![click(start), click(app)];
                        self.step = 1;
                        continue;
                    }
                }
                self.step = 1;
            }
            let k = self.step - 1;
            if let Some(action) = actions.get(k) {
                self.step += 1;
                return Ok(Some(Decision {
                    action: action.clone(),
                    thought: format!("Subtask {} of {}.", self.segment + 1, self.segments.len()),
                }));
            }
            self.segment += 1;
            self.step = 0;
        }
    }
}

// ---------------------------------------------------------------------------
// Random agent

/// Words the random agent types.
const WORDS: [&str; 12] = [
    "hello", "report", "budget", "notes", "draft", "2024", "team", "photo", "summary", "todo",
    "meeting", "invoice",
];

/// How an agent opens an application on a desktop that shows no icons for them
/// (a real one): the keys of the desktop's launcher, then the application's
/// name, then Enter.
#[derive(Debug, Clone, PartialEq)]
pub struct Launcher {
    /// The keys that open the launcher (see [`crate::env::Desktops::launcher_keys`]).
    pub keys: &'static str,
    /// The applications to draw from, by the names the launcher finds them by.
    pub applications: Vec<String>,
}

/// Clicks visible controls, types words and scrolls at random (a lower bound).
/// With nothing on the screen to act on, it clicks "Start" (the simulated
/// desktop's), or, given a [`Launcher`], opens one of its applications drawn at
/// random.
#[derive(Debug, Clone)]
pub struct RandomAgent {
    rng: ChaCha8Rng,
    launcher: Option<Launcher>,
    /// Keys still to type to open the drawn application.
    queued: Vec<String>,
}

impl RandomAgent {
    /// An agent whose choices depend only on `seed`.
    pub fn new(seed: u64, launcher: Option<Launcher>) -> RandomAgent {
        RandomAgent {
            rng: ChaCha8Rng::seed_from_u64(seed),
            launcher,
            queued: Vec::new(),
        }
    }

    /// The first keys that open an application drawn from the launcher (the
    /// rest are queued), or None without a launcher or applications.
    fn open_application(&mut self) -> Option<String> {
        let l = self.launcher.as_ref()?;
        if l.applications.is_empty() {
            return None;
        }
        let app = l.applications[self.rng.random_range(0..l.applications.len())].clone();
        self.queued = vec![app, "{ENTER}".to_string()];
        Some(l.keys.to_string())
    }

    /// A seed for `task_id` under the run's seed (FNV-1a of the id).
    pub fn seed_for(seed: u64, task_id: &str) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in task_id.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^ seed
    }
}

impl Agent for RandomAgent {
    fn next(&mut self, observation: &Observation) -> Result<Option<Decision>, EvalError> {
        let typed = |keys: String| Decision {
            action: Action {
                call: ActionCall::KeyboardInput { keys },
                control_label: None,
                control_text: String::new(),
            },
            thought: "random".to_string(),
        };
        if !self.queued.is_empty() {
            return Ok(Some(typed(self.queued.remove(0))));
        }
        if observation.controls.is_empty() {
            return Ok(Some(match self.open_application() {
                Some(keys) => typed(keys),
                None => Decision {
                    action: click("Start"),
                    thought: "random".to_string(),
                },
            }));
        }
        let c = &observation.controls[self.rng.random_range(0..observation.controls.len())];
        let roll: f64 = self.rng.random();
        let call = if roll < 0.65 {
            ActionCall::ClickInput {
                button: "left".to_string(),
                double: self.rng.random_bool(0.15),
            }
        } else if roll < 0.9 {
            let word = WORDS[self.rng.random_range(0..WORDS.len())];
            let enter = if self.rng.random_bool(0.3) {
                "{ENTER}"
            } else {
                ""
            };
            ActionCall::KeyboardInput {
                keys: format!("{word}{enter}"),
            }
        } else {
            ActionCall::WheelMouseInput {
                wheel_dist: if self.rng.random_bool(0.5) { 3 } else { -3 },
            }
        };
        Ok(Some(Decision {
            action: Action {
                call,
                control_label: Some(c.label.clone()),
                control_text: c.control_text.clone(),
            },
            thought: "random".to_string(),
        }))
    }
}

// ---------------------------------------------------------------------------
// Model agent

/// Steps of history the actor sees.
const HISTORY: usize = 20;

/// The actor role of a language model (OmniBench E.1), one request per step.
pub struct ModelAgent<'a> {
    model: Arc<dyn LanguageModel>,
    runtime: &'a tokio::runtime::Runtime,
    instruction: String,
    history: Vec<HistoryStep>,
    screenshots: bool,
    /// Why the agent stopped, when a reply was rejected.
    pub rejected: Option<String>,
}

impl<'a> ModelAgent<'a> {
    /// `screenshots`: attach the set-of-marks screenshot to every request.
    pub fn new(
        model: Arc<dyn LanguageModel>,
        runtime: &'a tokio::runtime::Runtime,
        instruction: String,
        screenshots: bool,
    ) -> ModelAgent<'a> {
        ModelAgent {
            model,
            runtime,
            instruction,
            history: Vec::new(),
            screenshots,
            rejected: None,
        }
    }
}

/// The instruction an agent gets for `task`; `intent` adds the task intent
/// (OmniBench table 9's intent tuning).
pub fn instruction_for(task: &Task, intent: bool) -> String {
    if intent && !task.task_intent.trim().is_empty() {
        format!("{}\nIntent: {}", task.task_instruction, task.task_intent)
    } else {
        task.task_instruction.clone()
    }
}

impl Agent for ModelAgent<'_> {
    fn next(&mut self, observation: &Observation) -> Result<Option<Decision>, EvalError> {
        let start = self.history.len().saturating_sub(HISTORY);
        let req = ActRequest {
            instruction: self.instruction.clone(),
            window_title: observation.window_title.clone(),
            controls: observation
                .controls
                .iter()
                .map(|c| crate::llm::ControlInfo {
                    label: c.label.clone(),
                    control_text: c.control_text.clone(),
                    control_type: c.control_type.clone(),
                    parent_control_text: c.parent_control_text.clone(),
                    parent_control_type: c.parent_control_type.clone(),
                })
                .collect(),
            history: self.history[start..].to_vec(),
            feedback: observation
                .feedback
                .clone()
                .map(|message| crate::llm::ActorFeedback::Environment { message }),
            screenshot: if self.screenshots {
                observation.screenshot(true).ok()
            } else {
                None
            },
        };
        let reply = self.runtime.block_on(self.model.act(&req))?;
        match reply.outcome {
            Outcome::Accepted(step) => match (step.status, step.action) {
                (StepStatus::Finish, _) | (_, None) => Ok(None),
                (StepStatus::Continue, Some(action)) => {
                    self.history.push(HistoryStep {
                        thought: step.thought.clone(),
                        action: action.clone(),
                    });
                    Ok(Some(Decision {
                        action,
                        thought: step.thought,
                    }))
                }
            },
            Outcome::Rejected { reason, .. } => {
                tracing::warn!("actor reply rejected, ending the run: {reason}");
                self.rejected = Some(reason);
                Ok(None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::score::{coherency_score, cs_max_of};

    fn dag(nodes: &[&str], edges: &[(&str, &str)]) -> Dag {
        let mut d = Dag {
            nodes: nodes.iter().map(|s| s.to_string()).collect(),
            edges: nodes.iter().map(|s| (s.to_string(), Vec::new())).collect(),
        };
        for (a, b) in edges {
            d.edges
                .entry(a.to_string())
                .or_default()
                .push(b.to_string());
        }
        d
    }

    fn apps(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    fn is_topological(d: &Dag, order: &[String]) -> bool {
        let pos = |x: &str| order.iter().position(|o| o == x).unwrap();
        order.len() == d.nodes.len()
            && d.edges
                .iter()
                .all(|(a, bs)| bs.iter().all(|b| pos(a) < pos(b)))
    }

    #[test]
    fn coherent_order_reaches_cs_max() {
        // Interleaved branches: greedy by graph order would alternate apps.
        let d = dag(
            &["a1", "b1", "a2", "b2", "c"],
            &[("a1", "a2"), ("b1", "b2"), ("a2", "c"), ("b2", "c")],
        );
        let app = apps(&[
            ("a1", "Mail"),
            ("b1", "Writer"),
            ("a2", "Mail"),
            ("b2", "Writer"),
            ("c", "Writer"),
        ]);
        let order = coherent_order(&d, &app).unwrap();
        assert!(is_topological(&d, &order), "{order:?}");
        assert_eq!(coherency_score(&order, &app), cs_max_of(&d, &app).unwrap());
        assert_eq!(order, ["a1", "a2", "b1", "b2", "c"]);
    }

    #[test]
    fn coherent_order_matches_cs_max_on_many_small_graphs() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let names = ["n0", "n1", "n2", "n3", "n4", "n5", "n6"];
        let app_names = ["A", "B", "C"];
        for _ in 0..200 {
            let n = rng.random_range(1..=names.len());
            let mut edges = Vec::new();
            for i in 0..n {
                for j in i + 1..n {
                    if rng.random_bool(0.3) {
                        edges.push((names[i], names[j]));
                    }
                }
            }
            let d = dag(&names[..n], &edges);
            let app: BTreeMap<String, String> = names[..n]
                .iter()
                .map(|s| (s.to_string(), app_names[rng.random_range(0..3)].to_string()))
                .collect();
            let order = coherent_order(&d, &app).unwrap();
            assert!(is_topological(&d, &order));
            assert_eq!(coherency_score(&order, &app), cs_max_of(&d, &app).unwrap());
        }
    }

    #[test]
    fn random_agent_is_seeded() {
        assert_eq!(RandomAgent::seed_for(1, "t"), RandomAgent::seed_for(1, "t"));
        assert_ne!(RandomAgent::seed_for(1, "t"), RandomAgent::seed_for(2, "t"));
    }

    #[test]
    fn descriptions() {
        assert_eq!(describe(&click("Open")), "click 'Open'");
    }
}
