//! OmniEval metrics (OmniBench section 4.1) and their tables (tables 4 and 5).
//!
//! Coverage Rate: node `s` weighs `w(s) = d(s) / Σ d`, `d` its depth (roots 1, else
//! one more than the deepest predecessor, i.e. the nodes on the longest path from a
//! root ending at `s`); `CR = Σ w(s)·[s completed] / Σ w(s)`. Logical Consistency:
//! `LC = CS_agent / CS_max`, `CS` counting adjacent pairs of the same application in
//! a sequence, `CS_agent` over the order in which nodes completed and `CS_max` the
//! maximum over all topological orders ([`SmallDag::cs_max`]); `LC = 1` when
//! `CS_max = 0`. A task succeeds when every node completed.
//!
//! Aggregation: overall, per capability in table 4's column order (a task tests
//! the capabilities its complexity levels match, OmniBench table 12, plus any it
//! was composed for), and per dimension and level in table 5's layout. Rates are
//! means over tasks. Writers: a text report, JSON (the `scores.json` schema other
//! tools read) and a long-format CSV.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::graph::SmallDag;
use crate::model::{Complexity, Dag, Dimension, Level, Levels, Task};
use crate::resources::Capability;

use super::graph::{task_label, Replay};
use super::EvalError;

/// Each node's depth: 1 for a root, else 1 + the largest depth of a predecessor.
/// Edges naming unknown nodes are ignored; nodes on a cycle (which a validated task
/// never has) keep depth 1.
pub fn node_depths(dag: &Dag) -> BTreeMap<String, usize> {
    let index: BTreeMap<&str, usize> = dag
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let n = dag.nodes.len();
    let mut succs = vec![Vec::new(); n];
    let mut indeg = vec![0usize; n];
    for (from, tos) in &dag.edges {
        let Some(&a) = index.get(from.as_str()) else {
            continue;
        };
        for to in tos {
            if let Some(&b) = index.get(to.as_str()) {
                if a != b && !succs[a].contains(&b) {
                    succs[a].push(b);
                    indeg[b] += 1;
                }
            }
        }
    }
    let mut depth = vec![1usize; n];
    let mut ready: Vec<usize> = (0..n).filter(|&v| indeg[v] == 0).collect();
    while let Some(v) = ready.pop() {
        for &s in &succs[v] {
            depth[s] = depth[s].max(depth[v] + 1);
            indeg[s] -= 1;
            if indeg[s] == 0 {
                ready.push(s);
            }
        }
    }
    dag.nodes.iter().cloned().zip(depth).collect()
}

/// Coverage Rate of a run that completed the nodes `completed` (any order; ids not
/// in the graph count for nothing). 0 for an empty graph.
pub fn coverage_rate<S: AsRef<str>>(dag: &Dag, completed: &[S]) -> f64 {
    let depths = node_depths(dag);
    let total: usize = depths.values().sum();
    if total == 0 {
        return 0.0;
    }
    let done: BTreeSet<&str> = completed.iter().map(AsRef::as_ref).collect();
    let covered: usize = depths
        .iter()
        .filter(|(id, _)| done.contains(id.as_str()))
        .map(|(_, d)| d)
        .sum();
    covered as f64 / total as f64
}

/// Coherency score of a sequence of nodes: adjacent pairs of the same application.
/// A node missing from `app_of` matches nothing.
pub fn coherency_score<S: AsRef<str>>(order: &[S], app_of: &BTreeMap<String, String>) -> usize {
    order
        .windows(2)
        .filter(
            |w| match (app_of.get(w[0].as_ref()), app_of.get(w[1].as_ref())) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            },
        )
        .count()
}

/// Logical Consistency `CS_agent / CS_max` of the completion order (1 when
/// `cs_max` is 0; capped at 1 should a caller pass a `cs_max` that is too small).
pub fn logical_consistency<S: AsRef<str>>(
    completion_order: &[S],
    app_of: &BTreeMap<String, String>,
    cs_max: usize,
) -> f64 {
    if cs_max == 0 {
        return 1.0;
    }
    (coherency_score(completion_order, app_of) as f64 / cs_max as f64).min(1.0)
}

/// `CS_max` of a graph whose nodes run in the given applications, computed exactly
/// by [`SmallDag::cs_max`].
///
/// # Errors
/// More nodes than [`crate::graph::MAX_NODES`], an edge to an unknown node, or a cycle.
pub fn cs_max_of(dag: &Dag, app_of: &BTreeMap<String, String>) -> Result<usize, EvalError> {
    let small = small_dag(dag, "<graph>")?;
    let mut ids: BTreeMap<&str, u32> = BTreeMap::new();
    let apps: Vec<u32> = dag
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| match app_of.get(n) {
            Some(app) => {
                let next = ids.len() as u32;
                *ids.entry(app.as_str()).or_insert(next)
            }
            // No application: a value no other node has.
            None => u32::MAX - i as u32,
        })
        .collect();
    Ok(small.cs_max(&apps))
}

fn small_dag(dag: &Dag, label: &str) -> Result<SmallDag, EvalError> {
    let edges = dag
        .edge_positions()
        .map_err(|(from, to)| EvalError::UnknownEdgeNode {
            task: label.to_string(),
            from: from.to_string(),
            to: to.to_string(),
        })?;
    SmallDag::from_edges(dag.nodes.len(), &edges).map_err(|source| EvalError::Graph {
        task: label.to_string(),
        source,
    })
}

/// Each node's application, from the task's `nodes`.
pub fn applications(task: &Task) -> BTreeMap<String, String> {
    task.nodes
        .iter()
        .map(|(id, n)| (id.clone(), n.application.clone()))
        .collect()
}

/// The task's complexity: the stored record, else measured on its graph
/// (knowledge = distinct categories of its nodes).
///
/// # Errors
/// The graph is not a valid small DAG.
pub fn task_complexity(task: &Task) -> Result<Complexity, EvalError> {
    if let Some(c) = task.complexity {
        return Ok(c);
    }
    let g = small_dag(&task.dag, &task_label(task))?;
    let categories: BTreeSet<&str> = task.nodes.values().map(|n| n.category.as_str()).collect();
    Ok(Complexity::from_measures(
        g.edge_count(),
        g.len(),
        categories.len(),
        g.depth(),
        g.width(),
    ))
}

/// The capabilities a task tests: those whose table-12 constraints its levels
/// meet, plus those it was composed for.
pub fn task_capabilities(task: &Task, levels: &Levels, capabilities: &[Capability]) -> Vec<String> {
    let mut out: Vec<String> = capabilities
        .iter()
        .filter(|c| c.matches(levels) || task.capabilities.contains(&c.name))
        .map(|c| c.name.clone())
        .collect();
    for c in &task.capabilities {
        if !out.contains(c) {
            out.push(c.clone());
        }
    }
    out
}

/// The score of one run of one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskScore {
    pub task_id: String,
    pub success: bool,
    pub coverage_rate: f64,
    pub logical_consistency: f64,
    pub steps: usize,
    /// Nodes completed and nodes in the graph.
    #[serde(default)]
    pub completed: usize,
    #[serde(default)]
    pub nodes: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stalled_at: Option<usize>,
    /// What the run could not be scored for (a malformed run file, a task not in
    /// the store); such a run scores 0 and counts as failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// For aggregation only.
    #[serde(skip)]
    pub capabilities: Vec<String>,
    #[serde(skip)]
    pub levels: Option<Levels>,
}

/// Scores a replayed run of `task`.
///
/// # Errors
/// The task's graph is not a valid small DAG (needed for `CS_max` when the task
/// does not carry it, and for the complexity when it is not stored).
pub fn score_task(
    task: &Task,
    replay: &Replay,
    capabilities: &[Capability],
) -> Result<TaskScore, EvalError> {
    let app_of = applications(task);
    let cs_max = match task.cs_max {
        Some(c) => c,
        None => cs_max_of(&task.dag, &app_of).map_err(|e| relabel(e, task))?,
    };
    let complexity = task_complexity(task)?;
    let nodes = task.dag.nodes.len();
    let completed = replay.completion_order.len();
    Ok(TaskScore {
        task_id: task_label(task),
        success: nodes > 0 && replay.all_completed(),
        coverage_rate: coverage_rate(&task.dag, &replay.completion_order),
        logical_consistency: logical_consistency(&replay.completion_order, &app_of, cs_max),
        steps: replay.steps,
        completed,
        nodes,
        stalled_at: replay.stalled_at,
        error: None,
        capabilities: task_capabilities(task, &complexity.levels, capabilities),
        levels: Some(complexity.levels),
    })
}

/// A run that could not be scored: it counts as a failure with zero scores.
/// `task` (when known) still places it in the per-capability and per-level tables.
pub fn failed_score(
    task_id: &str,
    task: Option<&Task>,
    error: String,
    capabilities: &[Capability],
) -> TaskScore {
    let levels = task.and_then(|t| task_complexity(t).ok()).map(|c| c.levels);
    TaskScore {
        task_id: task_id.to_string(),
        success: false,
        coverage_rate: 0.0,
        logical_consistency: 0.0,
        steps: 0,
        completed: 0,
        nodes: task.map_or(0, |t| t.dag.nodes.len()),
        stalled_at: None,
        error: Some(error),
        capabilities: match (task, &levels) {
            (Some(t), Some(l)) => task_capabilities(t, l, capabilities),
            _ => Vec::new(),
        },
        levels,
    }
}

fn relabel(e: EvalError, task: &Task) -> EvalError {
    let label = task_label(task);
    match e {
        EvalError::UnknownEdgeNode { from, to, .. } => EvalError::UnknownEdgeNode {
            task: label,
            from,
            to,
        },
        EvalError::Graph { source, .. } => EvalError::Graph {
            task: label,
            source,
        },
        other => other,
    }
}

/// Means over a set of task scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    pub tasks: usize,
    pub success_rate: f64,
    pub coverage_rate: f64,
    pub logical_consistency: f64,
}

impl Aggregate {
    pub fn of<'a>(scores: impl IntoIterator<Item = &'a TaskScore>) -> Aggregate {
        let (mut n, mut sr, mut cr, mut lc) = (0usize, 0.0, 0.0, 0.0);
        for s in scores {
            n += 1;
            sr += f64::from(u8::from(s.success));
            cr += s.coverage_rate;
            lc += s.logical_consistency;
        }
        let mean = |x: f64| if n == 0 { 0.0 } else { x / n as f64 };
        Aggregate {
            tasks: n,
            success_rate: mean(sr),
            coverage_rate: mean(cr),
            logical_consistency: mean(lc),
        }
    }
}

/// One column of table 4.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapabilityRow {
    pub capability: String,
    pub tasks: usize,
    pub success_rate: f64,
    pub coverage_rate: f64,
    pub logical_consistency: f64,
}

/// One column of table 5.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelRow {
    pub dimension: Dimension,
    pub level: Level,
    pub tasks: usize,
    pub success_rate: f64,
    pub coverage_rate: f64,
    pub logical_consistency: f64,
}

/// Table 4's capability columns: name, abbreviation, group.
pub const TABLE4: [(&str, &str, &str); 10] = [
    ("parallel_planning", "PP", "Planning"),
    ("long_range_planning", "LRP", "Planning"),
    ("cross_domain_decision_making", "CDDK", "Decision-making"),
    ("sequential_decision_making", "SDK", "Decision-making"),
    ("subtask_identification", "SI", "Instruction Understanding"),
    (
        "dependency_identification",
        "DI",
        "Instruction Understanding",
    ),
    ("long_sequence_reasoning", "LSR", "Long Context"),
    ("long_instruction_following", "LIF", "Long Context"),
    ("domain_specific_knowledge", "DSK", "Generalist Knowledge"),
    ("cross_domain_knowledge", "CDK", "Generalist Knowledge"),
];

/// Table 5's dimension order.
pub const TABLE5: [Dimension; 5] = [
    Dimension::Dependency,
    Dimension::Branch,
    Dimension::Instruction,
    Dimension::Knowledge,
    Dimension::Hierarchy,
];

/// The scores of one agent on a set of tasks (the `scores.json` schema).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    pub agent: String,
    pub created_at: String,
    pub tasks: usize,
    pub max_steps: usize,
    pub overall: Aggregate,
    /// Every capability in table 4's order (then any others), with its task count.
    pub per_capability: Vec<CapabilityRow>,
    /// Every dimension of table 5 and level, with its task count.
    pub per_level: Vec<LevelRow>,
    pub per_task: Vec<TaskScore>,
}

impl Scores {
    /// Aggregates task scores (kept sorted by task id, so the same runs give the
    /// same file whoever scored them). `capabilities` (the catalog's) gives the
    /// capability columns beyond table 4's ten, if any.
    pub fn build(
        agent: &str,
        created_at: &str,
        max_steps: usize,
        mut per_task: Vec<TaskScore>,
        capabilities: &[Capability],
    ) -> Scores {
        per_task.sort_by(|a, b| a.task_id.cmp(&b.task_id));
        let mut names: Vec<String> = TABLE4.iter().map(|(n, _, _)| n.to_string()).collect();
        let extra = capabilities
            .iter()
            .map(|c| c.name.clone())
            .chain(per_task.iter().flat_map(|t| t.capabilities.iter().cloned()));
        for name in extra {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        let per_capability = names
            .into_iter()
            .map(|name| {
                let a = Aggregate::of(per_task.iter().filter(|t| t.capabilities.contains(&name)));
                CapabilityRow {
                    capability: name,
                    tasks: a.tasks,
                    success_rate: a.success_rate,
                    coverage_rate: a.coverage_rate,
                    logical_consistency: a.logical_consistency,
                }
            })
            .collect();
        let mut per_level = Vec::new();
        for d in TABLE5 {
            for l in Level::ALL {
                let a = Aggregate::of(
                    per_task
                        .iter()
                        .filter(|t| t.levels.is_some_and(|lv| lv.get(d) == l)),
                );
                per_level.push(LevelRow {
                    dimension: d,
                    level: l,
                    tasks: a.tasks,
                    success_rate: a.success_rate,
                    coverage_rate: a.coverage_rate,
                    logical_consistency: a.logical_consistency,
                });
            }
        }
        Scores {
            agent: agent.to_string(),
            created_at: created_at.to_string(),
            tasks: per_task.len(),
            max_steps,
            overall: Aggregate::of(&per_task),
            per_capability,
            per_level,
            per_task,
        }
    }

    /// The capability row of `name`.
    pub fn capability(&self, name: &str) -> Option<&CapabilityRow> {
        self.per_capability.iter().find(|c| c.capability == name)
    }

    /// The table-5 cell of `dimension` at `level`.
    pub fn level(&self, dimension: Dimension, level: Level) -> Option<&LevelRow> {
        self.per_level
            .iter()
            .find(|r| r.dimension == dimension && r.level == level)
    }

    /// The text report: the table-4 row (SR, CR, LC overall, then CR per
    /// capability), the table-5 row (CR per dimension and level), task counts under
    /// both, then one line per task. Percentages with one decimal, `-` for an empty
    /// column.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "agent {}: {} task(s), max {} idle steps",
            self.agent, self.tasks, self.max_steps
        );
        let caps: Vec<(&str, String)> = self
            .per_capability
            .iter()
            .map(|c| (c.capability.as_str(), abbreviation(&c.capability)))
            .collect();
        let label = self.agent.chars().take(12).collect::<String>();
        let lw = label.len().max(6) + 2;
        // Table 4.
        let _ = writeln!(out, "\nCoverage Rate per capability (OmniBench table 4), %");
        let mut head = format!("{:<lw$}{:>7}{:>7}{:>7}", "", "SR", "CR", "LC");
        for (_, abbr) in &caps {
            let _ = write!(head, "{:>7}", abbr);
        }
        let _ = writeln!(out, "{head}");
        let mut row = format!(
            "{:<lw$}{:>7}{:>7}{:>7}",
            label,
            pct(self.overall.success_rate, self.overall.tasks),
            pct(self.overall.coverage_rate, self.overall.tasks),
            pct(self.overall.logical_consistency, self.overall.tasks)
        );
        let mut count = format!("{:<lw$}{:>7}{:>7}{:>7}", "tasks", self.tasks, "", "");
        for c in &self.per_capability {
            let _ = write!(row, "{:>7}", pct(c.coverage_rate, c.tasks));
            let _ = write!(count, "{:>7}", c.tasks);
        }
        let _ = writeln!(out, "{}\n{}", row.trim_end(), count.trim_end());
        // Table 5.
        let _ = writeln!(
            out,
            "\nCoverage Rate per complexity level (OmniBench table 5), %"
        );
        let mut head = format!("{:<lw$}", "");
        let mut sub = format!("{:<lw$}", "");
        let mut row = format!("{:<lw$}", label);
        let mut count = format!("{:<lw$}", "tasks");
        for d in TABLE5 {
            let _ = write!(head, "{:<21}", capitalize(d.as_str()));
            for l in Level::ALL {
                let _ = write!(sub, "{:<7}", capitalize(l.as_str()));
                let cell = self.level(d, l);
                let _ = write!(
                    row,
                    "{:<7}",
                    cell.map_or("-".to_string(), |c| pct(c.coverage_rate, c.tasks))
                );
                let _ = write!(count, "{:<7}", cell.map_or(0, |c| c.tasks));
            }
        }
        let _ = writeln!(
            out,
            "{}\n{}\n{}\n{}",
            head.trim_end(),
            sub.trim_end(),
            row.trim_end(),
            count.trim_end()
        );
        // Per task.
        let _ = writeln!(out, "\nPer task");
        let width = self
            .per_task
            .iter()
            .map(|t| t.task_id.len())
            .max()
            .unwrap_or(4)
            .max(4);
        let _ = writeln!(
            out,
            "{:<width$}  {:<7} {:>6} {:>6} {:>6} {:>6}  note",
            "task", "result", "CR", "LC", "steps", "nodes"
        );
        for t in &self.per_task {
            let note = match (&t.error, t.stalled_at) {
                (Some(e), _) => format!("error: {e}"),
                (None, Some(s)) => format!("stalled at step {s}"),
                (None, None) => String::new(),
            };
            let _ = writeln!(
                out,
                "{:<width$}  {:<7} {:>6.1} {:>6.1} {:>6} {:>6}  {}",
                t.task_id,
                if t.success { "success" } else { "fail" },
                100.0 * t.coverage_rate,
                100.0 * t.logical_consistency,
                t.steps,
                format!("{}/{}", t.completed, t.nodes),
                note
            );
        }
        out
    }

    /// Long-format CSV: one row per aggregate and per task, columns
    /// `scope,name,level,tasks,success_rate,coverage_rate,logical_consistency,steps,note`
    /// (`scope` is overall, capability, level or task).
    pub fn to_csv(&self) -> String {
        let mut out = String::from(
            "scope,name,level,tasks,success_rate,coverage_rate,logical_consistency,steps,note\n",
        );
        let o = &self.overall;
        let _ = writeln!(
            out,
            "overall,{},,{},{:.4},{:.4},{:.4},,",
            csv_field(&self.agent),
            o.tasks,
            o.success_rate,
            o.coverage_rate,
            o.logical_consistency
        );
        for c in &self.per_capability {
            let _ = writeln!(
                out,
                "capability,{},,{},{:.4},{:.4},{:.4},,",
                csv_field(&c.capability),
                c.tasks,
                c.success_rate,
                c.coverage_rate,
                c.logical_consistency
            );
        }
        for r in &self.per_level {
            let _ = writeln!(
                out,
                "level,{},{},{},{:.4},{:.4},{:.4},,",
                r.dimension,
                r.level,
                r.tasks,
                r.success_rate,
                r.coverage_rate,
                r.logical_consistency
            );
        }
        for t in &self.per_task {
            let note = match (&t.error, t.stalled_at) {
                (Some(e), _) => format!("error: {e}"),
                (None, Some(s)) => format!("stalled at step {s}"),
                (None, None) => String::new(),
            };
            let _ = writeln!(
                out,
                "task,{},,1,{},{:.4},{:.4},{},{}",
                csv_field(&t.task_id),
                u8::from(t.success),
                t.coverage_rate,
                t.logical_consistency,
                t.steps,
                csv_field(&note)
            );
        }
        out
    }

    /// Pretty JSON (the `scores.json` schema).
    pub fn to_json(&self) -> String {
        // Plain data with string keys: serialization cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Writes [`Scores::to_json`] to `path`, creating parent folders.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write_json(&self, path: &Path) -> Result<(), EvalError> {
        write_file(path, &(self.to_json() + "\n"))
    }

    /// Writes [`Scores::to_csv`] to `path`, creating parent folders.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write_csv(&self, path: &Path) -> Result<(), EvalError> {
        write_file(path, &self.to_csv())
    }
}

fn write_file(path: &Path, text: &str) -> Result<(), EvalError> {
    let err = |source| EvalError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(err)?;
    }
    std::fs::write(path, text).map_err(err)
}

/// Table 4's abbreviation of a capability (else the name itself).
pub fn abbreviation(name: &str) -> String {
    TABLE4
        .iter()
        .find(|(n, _, _)| *n == name)
        .map_or_else(|| name.to_string(), |(_, a, _)| a.to_string())
}

fn pct(x: f64, tasks: usize) -> String {
    if tasks == 0 {
        "-".to_string()
    } else {
        format!("{:.1}", 100.0 * x)
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::NodeState;

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

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn chain_depths_and_coverage() {
        // a -> b -> c: depths 1, 2, 3; total 6.
        let d = dag(&["a", "b", "c"], &[("a", "b"), ("b", "c")]);
        let depths = node_depths(&d);
        assert_eq!(depths["a"], 1);
        assert_eq!(depths["b"], 2);
        assert_eq!(depths["c"], 3);
        assert!(close(coverage_rate(&d, &["a"]), 1.0 / 6.0));
        assert!(close(coverage_rate(&d, &["a", "b"]), 3.0 / 6.0));
        assert!(close(coverage_rate(&d, &["a", "b", "c"]), 1.0));
        assert!(close(coverage_rate::<&str>(&d, &[]), 0.0));
    }

    #[test]
    fn diamond_uses_the_longest_path() {
        // a -> b, a -> c, b -> d, c -> d, plus a -> d (a shortcut does not lower d).
        let d = dag(
            &["a", "b", "c", "d"],
            &[("a", "b"), ("a", "c"), ("b", "d"), ("c", "d"), ("a", "d")],
        );
        let depths = node_depths(&d);
        assert_eq!(
            depths.values().copied().collect::<Vec<_>>(),
            vec![1, 2, 2, 3]
        );
        // total 8: a + b = 3, a + b + c = 5.
        assert!(close(coverage_rate(&d, &["a", "b"]), 3.0 / 8.0));
        assert!(close(coverage_rate(&d, &["a", "c", "b"]), 5.0 / 8.0));
        assert!(close(coverage_rate(&d, &["b", "a", "c", "d"]), 1.0));
    }

    #[test]
    fn parallel_branches_partial_completion() {
        // a1 -> a2 and b1 -> b2 -> b3: depths 1,2 and 1,2,3; total 9.
        let d = dag(
            &["a1", "a2", "b1", "b2", "b3"],
            &[("a1", "a2"), ("b1", "b2"), ("b2", "b3")],
        );
        assert!(close(coverage_rate(&d, &["a1", "a2"]), 3.0 / 9.0));
        assert!(close(coverage_rate(&d, &["b1", "b2", "b3"]), 6.0 / 9.0));
        assert!(close(coverage_rate(&d, &["a1", "b1", "zz"]), 2.0 / 9.0));
        let app = apps(&[
            ("a1", "Mail"),
            ("a2", "Mail"),
            ("b1", "Writer"),
            ("b2", "Writer"),
            ("b3", "Writer"),
        ]);
        // Best: a1 a2 b1 b2 b3 -> 3 same-app pairs.
        assert_eq!(cs_max_of(&d, &app).unwrap(), 3);
        // Interleaving the branches loses coherence.
        let lc = logical_consistency(&["a1", "b1", "a2", "b2", "b3"], &app, 3);
        assert!(close(lc, 1.0 / 3.0));
        assert!(close(
            logical_consistency(&["a1", "a2", "b1", "b2", "b3"], &app, 3),
            1.0
        ));
        // Partial completion: a1 a2 only -> one pair of three.
        assert!(close(
            logical_consistency(&["a1", "a2"], &app, 3),
            1.0 / 3.0
        ));
    }

    #[test]
    fn chain_and_diamond_cs_max() {
        let chain = dag(&["a", "b", "c"], &[("a", "b"), ("b", "c")]);
        let app = apps(&[("a", "Mail"), ("b", "Mail"), ("c", "Writer")]);
        assert_eq!(cs_max_of(&chain, &app).unwrap(), 1);
        assert!(close(logical_consistency(&["a", "b", "c"], &app, 1), 1.0));
        assert!(close(logical_consistency(&["a"], &app, 1), 0.0));
        let diamond = dag(
            &["a", "b", "c", "d"],
            &[("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")],
        );
        let app = apps(&[("a", "X"), ("b", "Y"), ("c", "X"), ("d", "Y")]);
        // a c b d: X X Y Y -> 2.
        assert_eq!(cs_max_of(&diamond, &app).unwrap(), 2);
        assert!(close(
            logical_consistency(&["a", "b", "c", "d"], &app, 2),
            0.0
        ));
        assert!(close(
            logical_consistency(&["a", "c", "b", "d"], &app, 2),
            1.0
        ));
    }

    #[test]
    fn cs_max_zero_gives_full_consistency() {
        let d = dag(&["a", "b"], &[("a", "b")]);
        let app = apps(&[("a", "Mail"), ("b", "Writer")]);
        assert_eq!(cs_max_of(&d, &app).unwrap(), 0);
        assert!(close(logical_consistency(&["a", "b"], &app, 0), 1.0));
        assert!(close(logical_consistency::<&str>(&[], &app, 0), 1.0));
        // Unknown applications never match.
        assert_eq!(cs_max_of(&d, &BTreeMap::new()).unwrap(), 0);
    }

    fn score(id: &str, success: bool, cr: f64, lc: f64, caps: &[&str], hard: bool) -> TaskScore {
        let l = if hard { Level::Hard } else { Level::Easy };
        TaskScore {
            task_id: id.to_string(),
            success,
            coverage_rate: cr,
            logical_consistency: lc,
            steps: 3,
            completed: 1,
            nodes: 2,
            stalled_at: None,
            error: None,
            capabilities: caps.iter().map(|s| s.to_string()).collect(),
            levels: Some(Levels::uniform(l)),
        }
    }

    #[test]
    fn aggregation_per_capability_and_level() {
        let s = Scores::build(
            "t",
            "now",
            10,
            vec![
                score("x", true, 1.0, 1.0, &["parallel_planning"], true),
                score("y", false, 0.5, 0.0, &["parallel_planning"], true),
                score("z", false, 0.0, 1.0, &[], false),
            ],
            &[],
        );
        assert_eq!(s.tasks, 3);
        assert!(close(s.overall.success_rate, 1.0 / 3.0));
        assert!(close(s.overall.coverage_rate, 0.5));
        let pp = s.capability("parallel_planning").unwrap();
        assert_eq!(pp.tasks, 2);
        assert!(close(pp.coverage_rate, 0.75));
        assert!(close(pp.logical_consistency, 0.5));
        assert_eq!(s.capability("long_range_planning").unwrap().tasks, 0);
        assert_eq!(s.per_capability.len(), 10);
        assert_eq!(s.per_level.len(), 15);
        let easy = s.level(Dimension::Branch, Level::Easy).unwrap();
        assert_eq!(easy.tasks, 1);
        assert!(close(easy.coverage_rate, 0.0));
        assert_eq!(s.level(Dimension::Branch, Level::Hard).unwrap().tasks, 2);
        // JSON round-trips the schema; text and CSV mention every task.
        let back: Scores = serde_json::from_str(&s.to_json()).unwrap();
        assert_eq!(back.per_task.len(), 3);
        assert_eq!(back.overall, s.overall);
        let v: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
        assert_eq!(v["per_level"][0]["dimension"], "dependency");
        assert_eq!(v["per_level"][0]["level"], "easy");
        assert_eq!(v["per_capability"][0]["capability"], "parallel_planning");
        let text = s.to_text();
        assert!(text.contains("PP"), "{text}");
        assert!(text.contains("75.0"), "{text}");
        let csv = s.to_csv();
        assert_eq!(csv.lines().count(), 1 + 1 + 10 + 15 + 3);
        assert!(csv.contains("task,y,,1,0,0.5000,0.0000,3,"));
    }

    #[test]
    fn score_task_reads_the_replay() {
        let d = dag(&["a", "b"], &[("a", "b")]);
        let task = Task {
            task_id: Some(crate::model::TaskId("t1".into())),
            task_instruction: String::new(),
            low_level_instruction: None,
            dag: d,
            task_intent: String::new(),
            purpose: None,
            successful_topo: vec![],
            nodes: BTreeMap::new(),
            topo_count: None,
            topo_truncated: None,
            cs_max: None,
            complexity: None,
            capabilities: vec![],
            scenario: None,
            os_map_level: None,
            quality: None,
            composition: None,
            validation: vec![],
        };
        let replay = Replay {
            steps: 4,
            states: [
                ("a".to_string(), NodeState::Completed),
                ("b".to_string(), NodeState::Evaluating),
            ]
            .into_iter()
            .collect(),
            completion_order: vec!["a".into()],
            stalled_at: Some(4),
        };
        let s = score_task(&task, &replay, &[]).unwrap();
        assert!(!s.success);
        assert!(close(s.coverage_rate, 1.0 / 3.0));
        assert!(close(s.logical_consistency, 1.0));
        assert_eq!(s.levels.unwrap().hierarchy, Level::Easy);
        assert_eq!((s.completed, s.nodes, s.stalled_at), (1, 2, Some(4)));
    }
}
