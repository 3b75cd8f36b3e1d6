//! The five record types of OmniBench appendix C, one JSON file each (a list of
//! records, sorted by id):
//!
//! - `subtasks.json` (C.1 subtask metadata): `id`, `instruction_template`,
//!   `application`, `category`, `OS`, `available_parameters`, `input_resources`,
//!   `output_resources`, for every verified subtask;
//! - `subtask_trajectories.json` (C.2): `trajectory_id`, `instruction`,
//!   `observations`, `actions`, `subtask_id`, `parameter_index`. Observations are
//!   rendered by replaying the trajectory from its subtask's start desktop: the
//!   fresh desktop with the instance's input resources prepared, as verification ran
//!   it (a table on the clipboard, a stand-in input file...), so every trajectory has
//!   its n + 1 screenshots. One whose start desktop cannot be prepared or that does
//!   not replay keeps `observations: []` and `rendered: false`, and is named in the
//!   manifest's `skipped`;
//! - `subtask_evaluations.json` (C.3): `subtask_id` and its `checks` (data over the
//!   11 check APIs, not code; `EvalResult` = success, message, progress);
//! - `tasks.json` (C.4): the task records with `os_map_level` set;
//! - `task_trajectories.json` (C.5): `trajectory_id`, `task_id`,
//!   `topological_order`, `instruction`, `intent`, `observations` (n + 1 images),
//!   `actions` (boxes and labels from the replay).
//!
//! **Node ids.** As in C.4 and C.5, the nodes of `dag`, `successful_topo` and
//! `topological_order` are subtask ids ([`node_ids`]). synth composes tasks over
//! local node ids (`n0`, `n1`...) because one subtask may occur twice in a task
//! (with different parameters); only then is the exported id not the bare subtask
//! id but `<subtask id>#<k>` (k = 1, 2... in the order of `dag.nodes`). Every task
//! keeps its `nodes` map, keyed by the exported ids, giving each node's
//! `subtask_id` and `parameter_index`: for a repeated subtask it is the mapping that
//! tells the occurrences apart. Image paths are relative to the output folder, or
//! absolute with `--image-paths absolute`.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::training::step_action;
use super::{ExportCx, ExportError, Written};
use crate::model::{Task, TrajectoryAction};

/// The exported id of each node of `task`: its subtask id when the subtask occurs
/// once in the task, `<subtask id>#<k>` for the k-th occurrence (in `dag.nodes`
/// order) of one that repeats. A node without an entry in `nodes` keeps its id.
pub fn node_ids(task: &Task) -> BTreeMap<String, String> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for n in &task.dag.nodes {
        if let Some(node) = task.nodes.get(n) {
            *count.entry(node.subtask_id.0.as_str()).or_default() += 1;
        }
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for n in &task.dag.nodes {
        let id = match task.nodes.get(n) {
            Some(node) if count[node.subtask_id.0.as_str()] > 1 => {
                let k = seen.entry(node.subtask_id.0.as_str()).or_default();
                *k += 1;
                format!("{}#{k}", node.subtask_id.0)
            }
            Some(node) => node.subtask_id.0.clone(),
            None => n.clone(),
        };
        out.insert(n.clone(), id);
    }
    out
}

/// `task` with its node ids renamed by `ids` everywhere they occur.
fn renamed(task: &Task, ids: &BTreeMap<String, String>) -> Task {
    let id = |n: &String| ids.get(n).cloned().unwrap_or_else(|| n.clone());
    let mut t = task.clone();
    t.dag.nodes = task.dag.nodes.iter().map(id).collect();
    t.dag.edges = task
        .dag
        .edges
        .iter()
        .map(|(a, bs)| (id(a), bs.iter().map(id).collect()))
        .collect();
    t.successful_topo = task
        .successful_topo
        .iter()
        .map(|order| order.iter().map(id).collect())
        .collect();
    t.nodes = task
        .nodes
        .iter()
        .map(|(n, node)| (id(n), node.clone()))
        .collect();
    for v in &mut t.validation {
        for (a, b) in &mut v.reconstructed_edges {
            *a = id(a);
            *b = id(b);
        }
    }
    t
}

/// An action with the box and label of the replayed screen.
fn replayed_action(a: &TrajectoryAction, control: Option<&crate::env::ControlInfo>) -> Value {
    let step = step_action(a, control);
    let mut out = a.clone();
    if let Some(rect) = step.rect {
        out.rect = rect;
    }
    out.control_label = step.control_label.map(str::to_string);
    out.control_text = step.control_text.to_string();
    serde_json::to_value(out).expect("model types always serialize")
}

pub fn write(cx: &ExportCx<'_>) -> Result<Written, ExportError> {
    let subtasks: Vec<Value> = cx
        .dataset
        .subtasks
        .values()
        .map(|s| {
            json!({
                "id": s.id,
                "instruction_template": s.instruction_template,
                "application": s.application,
                "category": s.category,
                "OS": s.os,
                "available_parameters": s.available_parameters,
                "input_resources": s.input_resources,
                "output_resources": s.output_resources,
            })
        })
        .collect();
    let mut sub_trajs: Vec<Value> = Vec::new();
    for s in cx.dataset.subtasks.values() {
        for t in &s.trajectories {
            let replay = cx.subtask_replays.get(&t.trajectory_id);
            let actions: Vec<Value> = t
                .actions
                .iter()
                .enumerate()
                .map(|(k, a)| replayed_action(a, replay.and_then(|r| r.steps[k].control.as_ref())))
                .collect();
            let observations: Vec<String> = match replay {
                Some(r) => r
                    .images
                    .iter()
                    .map(|i| cx.image_ref(i))
                    .collect::<Result<_, _>>()?,
                None => Vec::new(),
            };
            sub_trajs.push(json!({
                "trajectory_id": t.trajectory_id,
                "instruction": t.instruction,
                "observations": observations,
                "actions": actions,
                "subtask_id": t.subtask_id,
                "parameter_index": t.parameter_index,
                "rendered": replay.is_some(),
            }));
        }
    }
    sub_trajs.sort_by(|a, b| {
        a["trajectory_id"]
            .as_str()
            .cmp(&b["trajectory_id"].as_str())
    });
    let evaluations: Vec<Value> = cx
        .dataset
        .subtasks
        .values()
        .filter_map(|s| {
            let e = s.evaluation.as_ref()?;
            Some(json!({"subtask_id": s.id, "checks": e.checks}))
        })
        .collect();
    let tasks: Vec<Value> = cx
        .tasks()
        .map(|t| {
            let mut t = renamed(t, &node_ids(t));
            t.os_map_level = Some(cx.level(&t).to_string());
            serde_json::to_value(t).expect("model types always serialize")
        })
        .collect();
    let mut task_trajs: Vec<Value> = Vec::new();
    for (task, t, r) in cx.trajectories() {
        let actions: Vec<Value> = t
            .actions
            .iter()
            .zip(&r.steps)
            .map(|(a, s)| replayed_action(a, s.control.as_ref()))
            .collect();
        let ids = node_ids(task);
        let order: Vec<&String> = t
            .topological_order
            .iter()
            .map(|n| ids.get(n).unwrap_or(n))
            .collect();
        let observations: Vec<String> = r
            .images
            .iter()
            .map(|i| cx.image_ref(i))
            .collect::<Result<_, _>>()?;
        task_trajs.push(json!({
            "trajectory_id": t.trajectory_id,
            "task_id": t.task_id,
            "topological_order": order,
            "instruction": cx.instruction(task, t),
            "intent": t.intent,
            "observations": observations,
            "actions": actions,
            "os_map_level": cx.level(task),
        }));
    }
    cx.write_json("subtasks.json", &subtasks)?;
    cx.write_json("subtask_trajectories.json", &sub_trajs)?;
    cx.write_json("subtask_evaluations.json", &evaluations)?;
    cx.write_json("tasks.json", &tasks)?;
    cx.write_json("task_trajectories.json", &task_trajs)?;
    Ok(Written {
        records: subtasks.len()
            + sub_trajs.len()
            + evaluations.len()
            + tasks.len()
            + task_trajs.len(),
        skipped: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Dag, SubtaskId, TaskNode};

    fn task(subtasks: &[&str], edges: &[(usize, usize)]) -> Task {
        let mut t: Task = serde_json::from_value(json!({
            "task_instruction": "goal",
            "dag": {"nodes": [], "edges": {}},
            "task_intent": "",
            "successful_topo": [],
        }))
        .unwrap();
        t.dag = Dag::default();
        for (i, s) in subtasks.iter().enumerate() {
            let n = format!("n{i}");
            t.dag.nodes.push(n.clone());
            t.dag.edges.insert(n.clone(), vec![]);
            t.nodes.insert(
                n,
                TaskNode {
                    subtask_id: SubtaskId(s.to_string()),
                    parameter_index: i,
                    application: "Writer".into(),
                    category: "Office".into(),
                    instruction: format!("step {i}"),
                },
            );
        }
        for (a, b) in edges {
            t.dag
                .edges
                .get_mut(&format!("n{a}"))
                .unwrap()
                .push(format!("n{b}"));
        }
        t.successful_topo = vec![t.dag.nodes.clone()];
        t
    }

    #[test]
    fn node_ids_are_subtask_ids_unless_a_subtask_repeats() {
        let t = task(&["open_file", "save_as", "open_file"], &[(0, 1), (1, 2)]);
        let ids = node_ids(&t);
        assert_eq!(ids["n0"], "open_file#1");
        assert_eq!(ids["n1"], "save_as");
        assert_eq!(ids["n2"], "open_file#2");
        let r = renamed(&t, &ids);
        assert_eq!(r.dag.nodes, ["open_file#1", "save_as", "open_file#2"]);
        assert_eq!(r.dag.edges["open_file#1"], ["save_as"]);
        assert_eq!(r.dag.edges["save_as"], ["open_file#2"]);
        assert_eq!(r.successful_topo[0], r.dag.nodes);
        assert_eq!(r.nodes["open_file#2"].parameter_index, 2);
    }
}
