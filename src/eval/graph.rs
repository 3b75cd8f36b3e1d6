//! The graph evaluator (OmniBench section 4.1).
//!
//! Every node of a task graph is in one of three states. Nodes with in-degree 0
//! start Evaluating, the others Waiting. After every action the Evaluating nodes
//! are checked against the environment's [`Probes`]; a node whose checks pass
//! becomes Completed, and each successor whose predecessors are now all Completed
//! becomes Evaluating and is checked in the same call (one action may finish a
//! chain of nodes). A node whose checks pass while it is still Waiting earns
//! nothing until its predecessors complete. A run in which `max_idle_steps`
//! consecutive actions complete no node is stalled: the evaluator stops and the
//! task fails.
//!
//! When one action completes several nodes at once, they are ordered so that a
//! node of the application of the previously completed node comes first (then
//! graph order): the agent cannot be blamed for simultaneity, and the completion
//! order is what Logical Consistency is computed on.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::env::{evaluate, Environment, Probes, Setup};
use crate::model::{Action, Check, Dag, ParameterSet, Subtask, SubtaskId, Task};

use super::EvalError;

/// What the evaluator needs of one task node.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeCheck {
    pub id: String,
    pub application: String,
    pub checks: Vec<Check>,
    pub params: ParameterSet,
}

/// The evaluation state of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeState {
    Waiting,
    Evaluating,
    Completed,
}

/// Node states of one run of one task; feed it the environment after every action.
#[derive(Debug, Clone)]
pub struct GraphEvaluator {
    /// Node checks in the order of the graph's `nodes`.
    nodes: Vec<NodeCheck>,
    preds: Vec<Vec<usize>>,
    succs: Vec<Vec<usize>>,
    state: Vec<NodeState>,
    order: Vec<String>,
    max_idle_steps: usize,
    idle: usize,
    steps: usize,
    stalled_at: Option<usize>,
}

impl GraphEvaluator {
    /// Nodes with in-degree 0 start Evaluating. `max_idle_steps`: a run with no
    /// newly completed node within that many steps is stalled (fails); 0 disables
    /// the limit.
    ///
    /// # Errors
    /// An empty graph, a repeated node, an edge to or from an unknown node, a
    /// cycle, a graph node without checks, or checks for a node not in the graph.
    pub fn new(dag: &Dag, nodes: Vec<NodeCheck>, max_idle_steps: usize) -> Result<Self, EvalError> {
        Self::build("<graph>", dag, nodes, max_idle_steps)
    }

    /// [`GraphEvaluator::new`] for `task`'s graph, with errors naming the task.
    pub fn for_task(
        task: &Task,
        nodes: Vec<NodeCheck>,
        max_idle_steps: usize,
    ) -> Result<Self, EvalError> {
        Self::build(&task_label(task), &task.dag, nodes, max_idle_steps)
    }

    fn build(
        label: &str,
        dag: &Dag,
        nodes: Vec<NodeCheck>,
        max_idle_steps: usize,
    ) -> Result<Self, EvalError> {
        let task = label.to_string();
        if dag.nodes.is_empty() {
            return Err(EvalError::EmptyGraph { task });
        }
        let mut index: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, id) in dag.nodes.iter().enumerate() {
            if index.insert(id.as_str(), i).is_some() {
                return Err(EvalError::DuplicateNode {
                    task,
                    node: id.clone(),
                });
            }
        }
        let n = dag.nodes.len();
        let mut preds = vec![Vec::new(); n];
        let mut succs = vec![Vec::new(); n];
        for (from, tos) in &dag.edges {
            for to in tos {
                let (Some(&a), Some(&b)) = (index.get(from.as_str()), index.get(to.as_str()))
                else {
                    return Err(EvalError::UnknownEdgeNode {
                        task,
                        from: from.clone(),
                        to: to.clone(),
                    });
                };
                if a == b {
                    return Err(EvalError::Cycle { task });
                }
                if !succs[a].contains(&b) {
                    succs[a].push(b);
                    preds[b].push(a);
                }
            }
        }
        if topological_positions(&preds, &succs).is_none() {
            return Err(EvalError::Cycle { task });
        }
        let mut slots: Vec<Option<NodeCheck>> = vec![None; n];
        for nc in nodes {
            match index.get(nc.id.as_str()) {
                Some(&i) if slots[i].is_none() => slots[i] = Some(nc),
                Some(_) => {
                    return Err(EvalError::DuplicateNode { task, node: nc.id });
                }
                None => return Err(EvalError::UnknownNodeCheck { task, node: nc.id }),
            }
        }
        let mut ordered = Vec::with_capacity(n);
        for (i, slot) in slots.into_iter().enumerate() {
            match slot {
                Some(nc) => ordered.push(nc),
                None => {
                    return Err(EvalError::MissingNodeCheck {
                        task,
                        node: dag.nodes[i].clone(),
                    })
                }
            }
        }
        let state = preds
            .iter()
            .map(|p| {
                if p.is_empty() {
                    NodeState::Evaluating
                } else {
                    NodeState::Waiting
                }
            })
            .collect();
        Ok(GraphEvaluator {
            nodes: ordered,
            preds,
            succs,
            state,
            order: Vec::new(),
            max_idle_steps,
            idle: 0,
            steps: 0,
            stalled_at: None,
        })
    }

    /// Call after every action: checks the Evaluating nodes on `probes`; a completed
    /// node releases successors whose predecessors are all complete (checked in the
    /// same call). Returns the ids newly completed, in completion order. Does
    /// nothing once the run is complete or stalled.
    pub fn after_step(&mut self, probes: &dyn Probes) -> Vec<String> {
        if self.stalled_at.is_some() || self.all_completed() {
            return Vec::new();
        }
        self.steps += 1;
        // The probes do not change within a call: evaluate each node at most once.
        let mut passes: Vec<Option<bool>> = vec![None; self.nodes.len()];
        let mut newly = Vec::new();
        loop {
            let last_app = self
                .order
                .last()
                .and_then(|id| self.nodes.iter().find(|n| &n.id == id))
                .map(|n| n.application.clone());
            let mut best: Option<usize> = None;
            for (i, pass) in passes.iter_mut().enumerate() {
                if self.state[i] != NodeState::Evaluating {
                    continue;
                }
                let node = &self.nodes[i];
                let pass = *pass
                    .get_or_insert_with(|| evaluate(&node.checks, &node.params, probes).success);
                if !pass {
                    continue;
                }
                let same_app = last_app.as_deref() == Some(node.application.as_str());
                let best_same = best.is_some_and(|b| {
                    last_app.as_deref() == Some(self.nodes[b].application.as_str())
                });
                if best.is_none() || (same_app && !best_same) {
                    best = Some(i);
                }
            }
            let Some(done) = best else { break };
            self.state[done] = NodeState::Completed;
            let id = self.nodes[done].id.clone();
            self.order.push(id.clone());
            newly.push(id);
            for &s in &self.succs[done] {
                if self.state[s] == NodeState::Waiting
                    && self.preds[s]
                        .iter()
                        .all(|&p| self.state[p] == NodeState::Completed)
                {
                    self.state[s] = NodeState::Evaluating;
                }
            }
        }
        if newly.is_empty() {
            self.idle += 1;
            if self.max_idle_steps > 0 && self.idle >= self.max_idle_steps {
                self.stalled_at = Some(self.steps);
            }
        } else {
            self.idle = 0;
        }
        newly
    }

    pub fn state(&self, id: &str) -> Option<NodeState> {
        self.nodes
            .iter()
            .position(|n| n.id == id)
            .map(|i| self.state[i])
    }

    pub fn states(&self) -> BTreeMap<String, NodeState> {
        self.nodes
            .iter()
            .zip(&self.state)
            .map(|(n, s)| (n.id.clone(), *s))
            .collect()
    }

    /// The completed nodes, in the order they completed.
    pub fn completion_order(&self) -> &[String] {
        &self.order
    }

    pub fn all_completed(&self) -> bool {
        self.state.iter().all(|s| *s == NodeState::Completed)
    }

    pub fn stalled(&self) -> bool {
        self.stalled_at.is_some()
    }

    /// The number of the step (1-based) at which the run stalled.
    pub fn stalled_at(&self) -> Option<usize> {
        self.stalled_at
    }

    /// Steps seen so far (calls of [`GraphEvaluator::after_step`] that counted).
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// Each node's application, by node id.
    pub fn applications(&self) -> BTreeMap<String, String> {
        self.nodes
            .iter()
            .map(|n| (n.id.clone(), n.application.clone()))
            .collect()
    }
}

/// Kahn's algorithm: the position of each node in a topological order, or `None`
/// on a cycle.
fn topological_positions(preds: &[Vec<usize>], succs: &[Vec<usize>]) -> Option<Vec<usize>> {
    let n = preds.len();
    let mut indeg: Vec<usize> = preds.iter().map(Vec::len).collect();
    let mut ready: Vec<usize> = (0..n).filter(|&v| indeg[v] == 0).collect();
    let mut pos = vec![usize::MAX; n];
    let mut k = 0;
    while let Some(v) = ready.pop() {
        pos[v] = k;
        k += 1;
        for &s in &succs[v] {
            indeg[s] -= 1;
            if indeg[s] == 0 {
                ready.push(s);
            }
        }
    }
    (k == n).then_some(pos)
}

pub(crate) fn task_label(task: &Task) -> String {
    task.task_id
        .as_ref()
        .map(|t| t.0.clone())
        .unwrap_or_else(|| "<unnamed>".to_string())
}

/// The node checks of a task: each node's subtask evaluation with its parameter set.
///
/// # Errors
/// A graph node missing from the task's `nodes`, a subtask not in `subtasks`, a
/// subtask without an evaluation, or a parameter index out of range.
pub fn node_checks(
    task: &Task,
    subtasks: &BTreeMap<SubtaskId, Subtask>,
) -> Result<Vec<NodeCheck>, EvalError> {
    let label = task_label(task);
    let mut out = Vec::with_capacity(task.dag.nodes.len());
    for id in &task.dag.nodes {
        let node = task
            .nodes
            .get(id)
            .ok_or_else(|| EvalError::MissingTaskNode {
                task: label.clone(),
                node: id.clone(),
            })?;
        let subtask = subtasks
            .get(&node.subtask_id)
            .ok_or_else(|| EvalError::MissingSubtask {
                task: label.clone(),
                node: id.clone(),
                subtask: node.subtask_id.0.clone(),
            })?;
        let evaluation = subtask
            .evaluation
            .as_ref()
            .ok_or_else(|| EvalError::NoEvaluation {
                task: label.clone(),
                node: id.clone(),
                subtask: node.subtask_id.0.clone(),
            })?;
        let params = subtask
            .available_parameters
            .get(node.parameter_index)
            .ok_or_else(|| EvalError::ParameterIndex {
                task: label.clone(),
                node: id.clone(),
                subtask: node.subtask_id.0.clone(),
                index: node.parameter_index,
                len: subtask.available_parameters.len(),
            })?;
        out.push(NodeCheck {
            id: id.clone(),
            application: node.application.clone(),
            checks: evaluation.checks.clone(),
            params: params.clone(),
        });
    }
    Ok(out)
}

/// The outcome of replaying one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replay {
    /// Actions performed (the replay stops early when all nodes completed or the
    /// run stalled).
    pub steps: usize,
    pub states: BTreeMap<String, NodeState>,
    pub completion_order: Vec<String>,
    /// The step at which the run stalled, if it did.
    pub stalled_at: Option<usize>,
}

impl Replay {
    /// Every node completed.
    pub fn all_completed(&self) -> bool {
        self.states.values().all(|s| *s == NodeState::Completed)
    }
}

/// Resets `env` to the initial desktop, performs `actions` one by one with the
/// evaluator after each, stops early when all completed or stalled.
///
/// # Errors
/// The graph or node checks are inconsistent (see [`GraphEvaluator::new`]), or the
/// environment cannot be reset. Wrong actions are not errors.
pub fn replay(
    env: &mut dyn Environment,
    task: &Task,
    nodes: Vec<NodeCheck>,
    actions: &[Action],
    max_idle_steps: usize,
) -> Result<Replay, EvalError> {
    let mut evaluator = GraphEvaluator::for_task(task, nodes, max_idle_steps)?;
    env.reset(&Setup::default())
        .map_err(|source| EvalError::Env {
            task: task_label(task),
            source,
        })?;
    let mut steps = 0;
    for action in actions {
        if evaluator.all_completed() || evaluator.stalled() {
            break;
        }
        env.step(action).map_err(|source| EvalError::Env {
            task: task_label(task),
            source,
        })?;
        steps += 1;
        evaluator.after_step(env.probes());
    }
    Ok(Replay {
        steps,
        states: evaluator.states(),
        completion_order: evaluator.completion_order().to_vec(),
        stalled_at: evaluator.stalled_at(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::Event;
    use crate::model::CheckCall;

    /// Probes over a fixed set of files: `check_file_exists` is all the tests use.
    #[derive(Default)]
    struct Files(Vec<String>);

    impl Probes for Files {
        fn events(&self) -> &[Event] {
            &[]
        }
        fn file_text(&self, path: &str) -> Option<String> {
            self.0.iter().any(|f| f == path).then(String::new)
        }
        fn dir_exists(&self, _path: &str) -> bool {
            false
        }
        fn clipboard_text(&self) -> Option<String> {
            None
        }
        fn control_texts(&self) -> Vec<String> {
            Vec::new()
        }
        fn screen_texts(&self) -> Vec<String> {
            Vec::new()
        }
        fn window_titles(&self) -> Vec<String> {
            Vec::new()
        }
        fn paths_under(&self, dir: &str) -> Vec<(String, bool)> {
            let prefix = format!("{dir}/");
            self.0
                .iter()
                .filter(|f| f.starts_with(&prefix))
                .map(|f| (f.clone(), false))
                .collect()
        }
    }

    fn files(names: &[&str]) -> Files {
        Files(names.iter().map(|n| format!("/{n}")).collect())
    }

    /// Node `id` of application `app` completes when file `/<id>` exists.
    fn node(id: &str, app: &str) -> NodeCheck {
        NodeCheck {
            id: id.to_string(),
            application: app.to_string(),
            checks: vec![Check {
                call: CheckCall::CheckFileExists {
                    file_path: "/{name}".to_string(),
                },
                expect: true,
                message: None,
            }],
            params: [("name".to_string(), id.to_string())].into_iter().collect(),
        }
    }

    pub(crate) fn dag(nodes: &[&str], edges: &[(&str, &str)]) -> Dag {
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

    fn chain() -> (Dag, Vec<NodeCheck>) {
        (
            dag(&["a", "b", "c"], &[("a", "b"), ("b", "c")]),
            vec![node("a", "Writer"), node("b", "Writer"), node("c", "Mail")],
        )
    }

    #[test]
    fn roots_start_evaluating_others_waiting() {
        let (d, n) = chain();
        let ev = GraphEvaluator::new(&d, n, 5).unwrap();
        assert_eq!(ev.state("a"), Some(NodeState::Evaluating));
        assert_eq!(ev.state("b"), Some(NodeState::Waiting));
        assert_eq!(ev.state("c"), Some(NodeState::Waiting));
        assert_eq!(ev.state("zz"), None);
        assert!(!ev.all_completed());
    }

    #[test]
    fn a_node_passing_early_waits_for_its_predecessors() {
        let (d, n) = chain();
        let mut ev = GraphEvaluator::new(&d, n, 10).unwrap();
        // c's file exists but a and b are not done: c stays Waiting.
        assert!(ev.after_step(&files(&["c"])).is_empty());
        assert_eq!(ev.state("c"), Some(NodeState::Waiting));
        assert!(ev.after_step(&files(&["c", "a"])) == vec!["a"]);
        assert_eq!(ev.state("b"), Some(NodeState::Evaluating));
        assert_eq!(ev.state("c"), Some(NodeState::Waiting));
        // b completes, which releases c, whose checks already pass: same call.
        assert_eq!(ev.after_step(&files(&["c", "a", "b"])), vec!["b", "c"]);
        assert!(ev.all_completed());
        assert_eq!(ev.completion_order(), ["a", "b", "c"]);
    }

    #[test]
    fn one_action_can_complete_a_whole_chain() {
        let (d, n) = chain();
        let mut ev = GraphEvaluator::new(&d, n, 10).unwrap();
        assert_eq!(ev.after_step(&files(&["a", "b", "c"])), vec!["a", "b", "c"]);
        assert!(ev.all_completed());
    }

    #[test]
    fn stalls_after_max_idle_steps_without_progress() {
        let (d, n) = chain();
        let mut ev = GraphEvaluator::new(&d, n, 3).unwrap();
        ev.after_step(&files(&[]));
        ev.after_step(&files(&["a"]));
        ev.after_step(&files(&["a"]));
        ev.after_step(&files(&["a"]));
        assert!(!ev.stalled(), "two idle steps since the last completion");
        ev.after_step(&files(&["a"]));
        assert!(ev.stalled());
        assert_eq!(ev.stalled_at(), Some(5));
        // Nothing counts after the stall.
        assert!(ev.after_step(&files(&["a", "b", "c"])).is_empty());
        assert_eq!(ev.state("b"), Some(NodeState::Evaluating));
        assert_eq!(ev.steps(), 5);
    }

    #[test]
    fn zero_idle_limit_never_stalls() {
        let (d, n) = chain();
        let mut ev = GraphEvaluator::new(&d, n, 0).unwrap();
        for _ in 0..100 {
            ev.after_step(&files(&[]));
        }
        assert!(!ev.stalled());
    }

    #[test]
    fn simultaneous_completions_prefer_the_last_application() {
        // Two parallel nodes, one per app, after a Mail root.
        let d = dag(&["r", "w", "m"], &[("r", "w"), ("r", "m")]);
        let n = vec![node("r", "Mail"), node("w", "Writer"), node("m", "Mail")];
        let mut ev = GraphEvaluator::new(&d, n, 0).unwrap();
        assert_eq!(ev.after_step(&files(&["r", "w", "m"])), vec!["r", "m", "w"]);
    }

    #[test]
    fn bad_graphs_are_errors() {
        let n = || vec![node("a", "X"), node("b", "X")];
        let cyc = dag(&["a", "b"], &[("a", "b"), ("b", "a")]);
        assert!(matches!(
            GraphEvaluator::new(&cyc, n(), 1),
            Err(EvalError::Cycle { .. })
        ));
        let unknown = dag(&["a", "b"], &[("a", "q")]);
        assert!(matches!(
            GraphEvaluator::new(&unknown, n(), 1),
            Err(EvalError::UnknownEdgeNode { .. })
        ));
        let ok = dag(&["a", "b"], &[("a", "b")]);
        assert!(matches!(
            GraphEvaluator::new(&ok, vec![node("a", "X")], 1),
            Err(EvalError::MissingNodeCheck { node, .. }) if node == "b"
        ));
        let mut extra = n();
        extra.push(node("z", "X"));
        assert!(matches!(
            GraphEvaluator::new(&ok, extra, 1),
            Err(EvalError::UnknownNodeCheck { node, .. }) if node == "z"
        ));
        assert!(matches!(
            GraphEvaluator::new(&dag(&[], &[]), vec![], 1),
            Err(EvalError::EmptyGraph { .. })
        ));
    }
}
