//! The review sheet: [`collect`] turns sampled tasks into [`ReviewItem`]s (the
//! graph drawn by the report's [`TaskGraph`], the first steps of a stored task
//! trajectory replayed by the report's screenshot code, the `quality` flags when
//! the stored task has them), [`render`] fills the page template (tera,
//! autoescaped; the SVG and the base64 screenshots inserted as they are).

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::Serialize;
use tera::{Context, Tera};

use super::marks::SheetRow;
use super::ReviewError;
use crate::env::Desktops;
use crate::model::{Dimension, Task};
use crate::pipeline::StageContext;
use crate::report::svg::{app_color, TaskGraph};
use crate::report::{Frame, ShotCache};
use crate::store::tasks::{StoredTask, StoredTaskTrajectory};
use crate::store::TrajectoryStatus;

const TEMPLATE: &str = include_str!("templates/review.html");
/// The report's style, so the two pages look alike, and the sheet's own rules.
const STYLE: &str = concat!(
    include_str!("../report/templates/report.css"),
    include_str!("templates/review.css")
);

/// One task on the sheet.
#[derive(Debug, Clone, Serialize)]
pub struct ReviewItem {
    /// 1-based position on the sheet (and row of the CSV after the header).
    pub number: usize,
    pub task_id: String,
    pub status: String,
    /// Capability names (the catalogue's, from the complexity levels).
    pub capabilities: Vec<String>,
    /// Their titles, for the page.
    pub capability_titles: Vec<String>,
    pub nodes: usize,
    pub edges: usize,
    /// "dependency 4 · hard" per dimension (empty without a complexity record).
    pub chips: Vec<String>,
    pub instruction: String,
    pub low_level_instruction: Option<String>,
    pub intent: String,
    /// In the first successful topological order.
    pub node_rows: Vec<NodeRow>,
    /// The stored task's `quality` object, flattened, when it has one.
    pub quality: Vec<QualityFlag>,
    pub trajectory: Option<TrajectoryView>,
    /// The task graph as inline SVG.
    pub svg: String,
    #[serde(skip)]
    pub row: SheetRow,
}

#[derive(Debug, Clone, Serialize)]
pub struct NodeRow {
    pub id: String,
    pub application: String,
    pub color: String,
    pub instruction: String,
}

/// One entry of the `quality` object: its name, its value as text, and whether it
/// is a passed (true) or failed (false) flag when the value is a boolean.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QualityFlag {
    pub name: String,
    pub value: String,
    pub passed: Option<bool>,
}

/// The first steps of a task trajectory.
#[derive(Debug, Clone, Serialize)]
pub struct TrajectoryView {
    pub trajectory_id: String,
    pub status: String,
    pub reason: Option<String>,
    pub total_steps: usize,
    pub shown_steps: usize,
    pub frames: Vec<Frame>,
}

/// Builds the sheet's items for the sampled tasks, replaying up to `steps` actions
/// of each task's best stored trajectory (successful first) in parallel.
///
/// # Errors
/// Store errors, an undrawable graph, an unloadable desktop or a failed replay.
pub fn collect(
    cx: &StageContext<'_>,
    tasks: &[&StoredTask],
    steps: usize,
) -> Result<Vec<ReviewItem>, ReviewError> {
    let mut best = best_trajectories(cx)?;
    let mut items = Vec::new();
    let mut replays = Vec::new();
    for (i, t) in tasks.iter().enumerate() {
        let item = item(cx, i + 1, t)?;
        let traj = best.remove(&item.task_id);
        replays.push(traj.filter(|_| steps > 0));
        items.push(item);
    }
    if replays.iter().all(Option::is_none) {
        return Ok(items);
    }
    let desktops = cx.env.desktops(&cx.workspace)?;
    let cache = ShotCache::default();
    let views: Vec<Result<Option<TrajectoryView>, ReviewError>> = replays
        .par_iter()
        .map(|t| {
            t.as_ref()
                .map(|t| view(desktops.as_ref(), t, steps, &cache))
                .transpose()
        })
        .collect();
    for (item, v) in items.iter_mut().zip(views) {
        item.trajectory = v?;
    }
    Ok(items)
}

/// Per task, its successful trajectory with the lowest id, else its first failed one.
fn best_trajectories(
    cx: &StageContext<'_>,
) -> Result<BTreeMap<String, StoredTaskTrajectory>, ReviewError> {
    let mut best: BTreeMap<String, StoredTaskTrajectory> = BTreeMap::new();
    for t in cx.store.task_trajectories(None)? {
        let better = best
            .get(&t.task_id)
            .is_none_or(|b| b.status != TrajectoryStatus::Ok && t.status == TrajectoryStatus::Ok);
        if better {
            best.insert(t.task_id.clone(), t);
        }
    }
    Ok(best)
}

fn view(
    desk: &dyn Desktops,
    t: &StoredTaskTrajectory,
    steps: usize,
    cache: &ShotCache,
) -> Result<TrajectoryView, ReviewError> {
    let actions = &t.trajectory.actions;
    Ok(TrajectoryView {
        trajectory_id: t.trajectory_id.clone(),
        status: t.status.to_string(),
        reason: t.reason.clone(),
        total_steps: actions.len(),
        shown_steps: steps.min(actions.len()),
        frames: crate::report::replay(desk, actions, steps, cache)?,
    })
}

/// Capability names of a task, from its complexity levels.
pub fn capabilities(cx: &StageContext<'_>, task: &Task) -> Vec<String> {
    task.complexity
        .map(|c| cx.catalog.capabilities_of(&c.levels))
        .unwrap_or_default()
}

fn item(cx: &StageContext<'_>, number: usize, t: &StoredTask) -> Result<ReviewItem, ReviewError> {
    let task = &t.task;
    let task_id = task
        .task_id
        .as_ref()
        .map(|i| i.0.clone())
        .unwrap_or_default();
    let svg = TaskGraph::new(task)
        .map_err(|source| ReviewError::Graph {
            task: task_id.clone(),
            source,
        })?
        .to_svg(&format!("r{number}"));
    let capabilities = capabilities(cx, task);
    let levels = Dimension::ALL.map(|d| {
        task.complexity
            .map(|c| c.levels.get(d).as_str().to_string())
            .unwrap_or_default()
    });
    let quality = cx
        .store
        .task_json(&task_id)?
        .and_then(|mut v| v.get_mut("quality").map(serde_json::Value::take))
        .map(|q| quality_flags(&q))
        .unwrap_or_default();
    Ok(ReviewItem {
        number,
        status: t.status.to_string(),
        capability_titles: capabilities
            .iter()
            .map(|c| {
                cx.catalog
                    .capability(c)
                    .map_or(c.clone(), |c| c.title.clone())
            })
            .collect(),
        nodes: task.dag.nodes.len(),
        edges: task.dag.edges.values().map(Vec::len).sum(),
        chips: task
            .complexity
            .map(|c| {
                Dimension::ALL
                    .iter()
                    .map(|&d| format!("{} {} · {}", d.as_str(), c.value(d), c.levels.get(d)))
                    .collect()
            })
            .unwrap_or_default(),
        instruction: task.task_instruction.clone(),
        low_level_instruction: task.low_level_instruction.clone(),
        intent: task.task_intent.clone(),
        node_rows: node_rows(task),
        quality,
        trajectory: None,
        svg,
        row: SheetRow {
            task_id: task_id.clone(),
            capability: capabilities.join("; "),
            nodes: task.dag.nodes.len(),
            levels,
        },
        capabilities,
        task_id,
    })
}

/// The nodes in the first successful topological order (then any it lacks).
fn node_rows(task: &Task) -> Vec<NodeRow> {
    let mut order: Vec<&String> = task
        .successful_topo
        .first()
        .map_or(Vec::new(), |o| o.iter().collect());
    for id in task.nodes.keys() {
        if !order.contains(&id) {
            order.push(id);
        }
    }
    order
        .into_iter()
        .filter_map(|id| task.nodes.get(id).map(|n| (id, n)))
        .map(|(id, n)| NodeRow {
            id: id.clone(),
            application: n.application.clone(),
            color: app_color(&n.application),
            instruction: n.instruction.clone(),
        })
        .collect()
}

/// The `quality` value as flags: an object gives one flag per key (in stored
/// order), anything else one flag named `quality`.
pub fn quality_flags(q: &serde_json::Value) -> Vec<QualityFlag> {
    let flag = |name: &str, v: &serde_json::Value| QualityFlag {
        name: name.to_string(),
        value: match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        },
        passed: v.as_bool(),
    };
    match q {
        serde_json::Value::Null => Vec::new(),
        serde_json::Value::Object(m) => m.iter().map(|(k, v)| flag(k, v)).collect(),
        other => vec![flag("quality", other)],
    }
}

/// The page's header facts.
#[derive(Debug, Clone, Serialize)]
pub struct SheetHead {
    /// How many tasks could have been sampled.
    pub reviewable: usize,
    pub seed: u64,
    /// The CSV's file name, beside the page.
    pub csv_name: String,
}

/// Renders the page.
///
/// # Errors
/// A template error.
pub fn render(head: &SheetHead, items: &[ReviewItem]) -> Result<String, ReviewError> {
    let mut tera = Tera::default();
    tera.add_raw_template("review.html", TEMPLATE)?;
    let mut ctx = Context::new();
    ctx.insert("style", STYLE);
    ctx.insert("head", head);
    ctx.insert("items", items);
    Ok(tera.render("review.html", &ctx)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quality_objects_become_flags_in_order() {
        let q = serde_json::json!({"intent_grounded": true, "edges_real": false, "note": "x"});
        let f = quality_flags(&q);
        let names: Vec<&str> = f.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["intent_grounded", "edges_real", "note"]);
        assert_eq!(f[1].passed, Some(false));
        assert_eq!((f[2].value.as_str(), f[2].passed), ("x", None));
        assert!(quality_flags(&serde_json::Value::Null).is_empty());
        assert_eq!(quality_flags(&serde_json::json!(0.5))[0].value, "0.5");
    }
}
