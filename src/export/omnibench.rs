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
//!
//! **Orders.** `successful_topo` holds the orders stored at compose time (a few,
//! spread over all orders). `--orders N` lists up to N: the stored ones first (task
//! trajectory `<task_id>(<k>)` follows the k-th, so they keep their places), then
//! others spread evenly over the task's orders by rank, computed from the graph.
//! `tasks.json` is written one record at a time.

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::{json, Value};

use super::training::step_action;
use super::{ExportCx, ExportError, Written};
use crate::graph::dag::SmallDag;
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

/// Lists up to `cap` orders in `task.successful_topo`: the ones it has first, then
/// orders spread evenly by rank over all its orders (see
/// [`SmallDag::orders_spread`]) that are not listed yet. Never drops a listed
/// order (task trajectories refer to them by position). A task whose graph does
/// not parse (unknown node, cycle, too many nodes) keeps its orders.
fn list_orders(task: &mut Task, cap: usize) {
    let Ok(edges) = task.dag.edge_positions() else {
        return;
    };
    let Ok(g) = SmallDag::from_edges(task.dag.nodes.len(), &edges) else {
        return;
    };
    let count = g.topo_count();
    let spread = g.orders_spread(cap, count);
    for order in spread.iter() {
        if task.successful_topo.len() >= cap {
            break;
        }
        let ids: Vec<String> = order
            .iter()
            .map(|&v| task.dag.nodes[v as usize].clone())
            .collect();
        if !task.successful_topo.contains(&ids) {
            task.successful_topo.push(ids);
        }
    }
    task.topo_count = Some(count);
    task.topo_truncated = Some((task.successful_topo.len() as u64) < count);
}

/// Writes a JSON array one element at a time, formatted exactly as
/// `serde_json::to_string_pretty` formats the whole array.
struct JsonArrayWriter {
    path: std::path::PathBuf,
    w: std::io::BufWriter<std::fs::File>,
    count: usize,
}

impl JsonArrayWriter {
    fn create(path: &std::path::Path) -> Result<Self, ExportError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(super::io_err(parent))?;
        }
        let file = std::fs::File::create(path).map_err(super::io_err(path))?;
        Ok(JsonArrayWriter {
            path: path.to_path_buf(),
            w: std::io::BufWriter::new(file),
            count: 0,
        })
    }

    fn push(&mut self, value: &impl serde::Serialize) -> Result<(), ExportError> {
        let text = serde_json::to_string_pretty(value).expect("model types always serialize");
        let mut out = String::with_capacity(text.len() + text.len() / 8);
        out.push_str(if self.count == 0 { "[\n" } else { ",\n" });
        for (k, line) in text.lines().enumerate() {
            if k > 0 {
                out.push('\n');
            }
            out.push_str("  ");
            out.push_str(line);
        }
        self.count += 1;
        self.w
            .write_all(out.as_bytes())
            .map_err(super::io_err(&self.path))
    }

    /// Closes the array; returns how many elements were written.
    fn finish(mut self) -> Result<usize, ExportError> {
        let end: &[u8] = if self.count == 0 { b"[]\n" } else { b"\n]\n" };
        self.w.write_all(end).map_err(super::io_err(&self.path))?;
        self.w.flush().map_err(super::io_err(&self.path))?;
        Ok(self.count)
    }
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
    let mut tasks_file = JsonArrayWriter::create(&cx.out.join("tasks.json"))?;
    for t in cx.tasks() {
        let mut t = renamed(t, &node_ids(t));
        if let Some(n) = cx.args.orders {
            list_orders(&mut t, n);
        }
        t.os_map_level = Some(cx.level(&t).to_string());
        tasks_file.push(&t)?;
    }
    let tasks_written = tasks_file.finish()?;
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
    cx.write_json("task_trajectories.json", &task_trajs)?;
    Ok(Written {
        records: subtasks.len()
            + sub_trajs.len()
            + evaluations.len()
            + tasks_written
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
    fn listed_orders_keep_the_stored_ones_first() {
        // Four independent nodes: 24 orders; the stored one is not rank 0.
        let mut t = task(&["a", "b", "c", "d"], &[]);
        t.successful_topo = vec![vec!["n3".into(), "n2".into(), "n1".into(), "n0".into()]];
        list_orders(&mut t, 5);
        assert_eq!(t.successful_topo.len(), 5);
        assert_eq!(t.successful_topo[0], ["n3", "n2", "n1", "n0"]);
        assert_eq!(t.successful_topo[1], ["n0", "n1", "n2", "n3"]);
        assert_eq!((t.topo_count, t.topo_truncated), (Some(24), Some(true)));
        // Asking for more than there are lists them all, once each.
        list_orders(&mut t, 100);
        assert_eq!(t.successful_topo.len(), 24);
        assert_eq!(t.topo_truncated, Some(false));
    }

    #[test]
    fn streamed_array_matches_pretty_printing() {
        let dir = tempfile::tempdir().unwrap();
        let values = [json!({"a": [1, 2], "b": {"c": "x"}}), json!([]), json!(3)];
        for n in 0..=values.len() {
            let path = dir.path().join(format!("{n}.json"));
            let mut w = JsonArrayWriter::create(&path).unwrap();
            for v in &values[..n] {
                w.push(v).unwrap();
            }
            assert_eq!(w.finish().unwrap(), n);
            let expected = serde_json::to_string_pretty(&values[..n].to_vec()).unwrap() + "\n";
            assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
        }
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
