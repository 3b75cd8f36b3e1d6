//! `synth report`: one self-contained HTML page about what is in the store.
//!
//! [`collect`] reads the store (subtasks by status, tasks and their complexity,
//! verification rounds, validation attempts, task trajectories, the model-call
//! record), the bench results under `generated/bench/*/scores.json`, and replays
//! the first actions of a few stored trajectories in the simulated desktop for
//! their screenshots; the result is a plain [`ReportData`]. [`html::render`] turns
//! it into the page (tera template with autoescape, inline CSS, inline SVG charts
//! and task graphs from [`svg`], screenshots as data URLs). The page needs no
//! script and loads nothing from anywhere.
//!
//! Reads the store and the workspace; writes only the page. No model calls.
//! The same store gives the same bytes, apart from the one "generated" line
//! (`--no-timestamp` leaves it out).

pub mod html;
mod shots;
pub mod svg;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::model::{Complexity, Dimension, Level, SubtaskStatus, Task};
use crate::pipeline::StageContext;
use crate::store::report::Rejected;
use crate::store::{StoreError, Table, TaskStatus};

pub use shots::{replay, Frame, ShotCache};

/// Options for `synth report`.
#[derive(Debug, Clone, clap::Args)]
pub struct ReportArgs {
    /// Where to write the page (default: generated/report.html in the workspace).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Task graphs drawn in the gallery.
    #[arg(long, default_value_t = 12, value_name = "N")]
    pub graphs: usize,
    /// Trajectories shown with screenshots.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub samples: usize,
    /// Steps of each sample trajectory replayed and shown.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub steps: usize,
    /// Leave out the "generated at" time: the same store then gives the same bytes.
    #[arg(long)]
    pub no_timestamp: bool,
}

impl Default for ReportArgs {
    fn default() -> Self {
        ReportArgs {
            out: None,
            graphs: 12,
            samples: 3,
            steps: 4,
            no_timestamp: false,
        }
    }
}

/// Errors of `synth report`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot collect the pipeline statistics")]
    Stats(#[from] crate::pipeline::stats::StatsError),
    #[error("cannot load the simulated desktop for the sample screenshots")]
    Env(#[from] crate::env::EnvError),
    #[error("cannot draw the graph of task {task}")]
    Graph {
        task: String,
        #[source]
        source: svg::SvgError,
    },
    #[error("cannot process a screenshot: {0}")]
    Image(String),
    #[error("cannot render the report template")]
    Template(#[from] tera::Error),
    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A name and a count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Count {
    pub name: String,
    pub count: usize,
}

/// Everything the page shows, read from the store and the workspace.
#[derive(Debug, Clone, Serialize)]
pub struct ReportData {
    /// "2026-11-22 01:30 UTC", or None with `--no-timestamp`.
    pub generated: Option<String>,
    pub pool: PoolData,
    pub tasks: TaskData,
    pub verification: VerificationData,
    pub validation: ValidationData,
    /// Mutation-score figures found in `synth stats` (key, value); empty until the
    /// verify stage records them.
    pub mutation: Vec<(String, String)>,
    /// Model calls per role and model.
    pub cost: Vec<crate::llm::RoleUsage>,
    pub gallery: Vec<GraphCard>,
    pub samples: SampleData,
    pub bench: BenchData,
}

/// The subtask pool by category and application, every status.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PoolData {
    pub verified: usize,
    pub proposed: usize,
    pub rejected: usize,
    /// Verified subtask x parameter set pairs.
    pub instances: usize,
    pub categories: Vec<CategoryPool>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct CategoryPool {
    pub name: String,
    pub verified: usize,
    pub proposed: usize,
    pub rejected: usize,
    pub instances: usize,
    pub apps: Vec<AppPool>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct AppPool {
    pub name: String,
    pub color: String,
    pub verified: usize,
    pub proposed: usize,
    pub rejected: usize,
    /// Parameter sets of the verified subtasks.
    pub instances: usize,
}

/// Tasks: counts, dataset versions, complexity distribution, capabilities.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TaskData {
    pub total: usize,
    pub per_status: Vec<Count>,
    pub versions: Vec<crate::store::tasks::DatasetVersion>,
    pub mean_nodes: f64,
    /// Tasks with a complexity record (the denominator of the shares).
    pub measured: usize,
    pub dimensions: Vec<DimensionData>,
    pub capabilities: Vec<CapabilityCount>,
    /// The validated tasks' quality flags.
    pub quality: crate::pipeline::stats::QualityStats,
}

#[derive(Debug, Clone, Serialize)]
pub struct DimensionData {
    pub name: String,
    /// What is measured ("number of edges").
    pub measure: String,
    pub levels: Vec<LevelData>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LevelData {
    pub level: String,
    /// Table 2's value range ("2–3").
    pub range: String,
    pub count: usize,
    /// Share of the measured tasks, 0..1.
    pub share: f64,
    /// The omnibench profile's target share, 0..1 (OmniBench figure 3).
    pub target: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CapabilityCount {
    pub name: String,
    pub title: String,
    pub count: usize,
}

/// Cross-verification of subtasks (the `verification_rounds` table).
#[derive(Debug, Clone, Default, Serialize)]
pub struct VerificationData {
    /// Rows of `verification_rounds`; 0 means verify has not run.
    pub rounds: usize,
    /// (subtask, parameter set) pairs that went through verification.
    pub pairs: usize,
    pub subtasks: usize,
    /// Pairs whose last round passed, when the round records say so.
    pub passed_pairs: Option<usize>,
    /// Pairs by the number of rounds they took.
    pub rounds_needed: Vec<Count>,
    /// verified / (verified + rejected) over all subtasks, when any was decided.
    pub verified_rate: Option<f64>,
    /// The most frequent rejection reasons of subtasks.
    pub rejection_reasons: Vec<Count>,
}

/// Validation of tasks (the `validation_attempts` table) and task trajectories.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ValidationData {
    /// Rows of `validation_attempts`; 0 means validate has not run.
    pub attempts: usize,
    pub tasks: usize,
    pub validated: usize,
    pub rejected: usize,
    /// validated / (validated + rejected), when any was decided.
    pub validated_rate: Option<f64>,
    pub passed_first: usize,
    /// Tasks by the number of attempts they took.
    pub attempts_needed: Vec<Count>,
    pub rejection_reasons: Vec<Count>,
    pub trajectories_ok: usize,
    pub trajectories_failed: usize,
}

/// A task of the gallery.
#[derive(Debug, Clone, Serialize)]
pub struct GraphCard {
    pub task_id: String,
    pub status: String,
    pub instruction: String,
    pub nodes: usize,
    pub edges: usize,
    pub complexity: Option<Complexity>,
    /// Titles of the capabilities the task tests (OmniBench table 12).
    pub capabilities: Vec<String>,
    /// The task itself, for the drawing.
    #[serde(skip)]
    pub task: Task,
}

/// Sample trajectories with screenshots.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SampleData {
    /// "task" or "subtask": which kind of trajectory the samples are; "" if none.
    pub source: String,
    pub items: Vec<Sample>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    pub trajectory_id: String,
    pub status: String,
    pub reason: Option<String>,
    pub instruction: String,
    /// The node order of a task trajectory (empty for a subtask trajectory).
    pub order: Vec<String>,
    pub total_steps: usize,
    /// Steps replayed and shown.
    pub shown_steps: usize,
    pub frames: Vec<Frame>,
}

/// The latest bench results, one per agent.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BenchData {
    pub agents: Vec<BenchScores>,
    /// Per capability: a row per capability (its title when the catalogue knows
    /// it), a cell per agent (same order as `agents`).
    pub per_capability: Vec<BenchRow>,
    /// Per dimension and level.
    pub per_level: Vec<BenchRow>,
    /// Files that could not be read, with the reason.
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BenchRow {
    pub key: String,
    pub cells: Vec<Option<BenchScore>>,
}

/// `generated/bench/<agent>/scores.json` (the eval helper's contract); unknown
/// fields are ignored, missing ones default.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchScores {
    pub agent: String,
    pub created_at: String,
    pub tasks: usize,
    pub max_steps: usize,
    pub overall: BenchScore,
    pub per_capability: Vec<BenchScore>,
    pub per_level: Vec<BenchScore>,
}

/// One line of scores.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchScore {
    pub capability: Option<String>,
    pub dimension: Option<String>,
    pub level: Option<String>,
    pub tasks: usize,
    pub success_rate: f64,
    pub coverage_rate: f64,
    pub logical_consistency: f64,
}

/// What `synth report` wrote.
#[derive(Debug, Clone, Serialize)]
pub struct ReportSummary {
    pub path: PathBuf,
    pub bytes: u64,
    pub graphs: usize,
    pub screenshots: usize,
    pub bench_agents: usize,
}

impl fmt::Display for ReportSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "report: {} ({:.1} KB; {} task graphs, {} screenshots, {} bench agents)",
            self.path.display(),
            self.bytes as f64 / 1024.0,
            self.graphs,
            self.screenshots,
            self.bench_agents
        )
    }
}

/// Collects the data, renders the page and writes it (to a temporary file beside
/// the target, then renamed, so a failed run never leaves half a page).
///
/// # Errors
/// Store and template errors, an unloadable simulated desktop, a write failure.
pub fn run(args: &ReportArgs, cx: &StageContext<'_>) -> Result<ReportSummary, ReportError> {
    let data = collect(args, cx)?;
    let page = html::render(&data)?;
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| cx.workspace.join("generated").join("report.html"));
    let werr = |source| ReportError::Write {
        path: path.clone(),
        source,
    };
    crate::atomic::write(&path, page.as_bytes()).map_err(werr)?;
    Ok(ReportSummary {
        bytes: page.len() as u64,
        graphs: data.gallery.len(),
        screenshots: data.samples.items.iter().map(|s| s.frames.len()).sum(),
        bench_agents: data.bench.agents.len(),
        path,
    })
}

/// Reads everything the page shows.
///
/// # Errors
/// Store errors, corrupt stored records, an unloadable simulated desktop (only
/// when there are trajectories to replay).
pub fn collect(args: &ReportArgs, cx: &StageContext<'_>) -> Result<ReportData, ReportError> {
    let generated = if args.no_timestamp {
        None
    } else {
        Some(shown_time(&cx.store.now_utc()?))
    };
    let stats = crate::pipeline::stats::collect(cx)?;
    let mutation = mutation_fields(&serde_json::to_value(&stats).unwrap_or_default());
    let stored = cx.store.tasks(None)?;
    let mut bench = bench(&cx.workspace.join("generated").join("bench"));
    for row in &mut bench.per_capability {
        if let Some(c) = cx.catalog.capability(&row.key) {
            row.key = c.title.clone();
        }
    }
    Ok(ReportData {
        generated,
        pool: pool(cx)?,
        tasks: tasks(cx, &stored)?,
        verification: verification(cx)?,
        validation: validation(cx)?,
        mutation,
        cost: stats.llm,
        gallery: gallery(cx, &stored, args.graphs),
        samples: samples(cx, args.samples, args.steps)?,
        bench,
    })
}

/// `YYYY-MM-DD HH:MM UTC` of a `YYYY-MM-DDTHH:MM:SSZ` time.
fn shown_time(iso: &str) -> String {
    match (iso.get(..10), iso.get(11..16)) {
        (Some(day), Some(minute)) => format!("{day} {minute} UTC"),
        _ => iso.to_string(),
    }
}

fn pool(cx: &StageContext<'_>) -> Result<PoolData, ReportError> {
    let mut by_app: BTreeMap<(String, String), AppPool> = BTreeMap::new();
    for row in cx.store.pool_counts()? {
        let e = by_app
            .entry((row.category, row.application.clone()))
            .or_insert_with(|| AppPool {
                color: svg::app_color(&row.application),
                name: row.application,
                ..AppPool::default()
            });
        match row.status {
            SubtaskStatus::Verified => e.verified += row.subtasks,
            SubtaskStatus::Proposed => e.proposed += row.subtasks,
            SubtaskStatus::Rejected => e.rejected += row.subtasks,
        }
        e.instances += row.instances;
    }
    // Categories in the catalogue's order, then any others alphabetically.
    let mut order: Vec<String> = cx.catalog.categories.clone();
    for (c, _) in by_app.keys() {
        if !order.contains(c) {
            order.push(c.clone());
        }
    }
    let mut data = PoolData::default();
    for name in order {
        let apps: Vec<AppPool> = by_app
            .iter()
            .filter(|((c, _), _)| *c == name)
            .map(|(_, a)| a.clone())
            .collect();
        if apps.is_empty() {
            continue;
        }
        let cat = CategoryPool {
            name: if name.is_empty() {
                "(no category)".into()
            } else {
                name
            },
            verified: apps.iter().map(|a| a.verified).sum(),
            proposed: apps.iter().map(|a| a.proposed).sum(),
            rejected: apps.iter().map(|a| a.rejected).sum(),
            instances: apps.iter().map(|a| a.instances).sum(),
            apps,
        };
        data.verified += cat.verified;
        data.proposed += cat.proposed;
        data.rejected += cat.rejected;
        data.instances += cat.instances;
        data.categories.push(cat);
    }
    Ok(data)
}

fn measure_of(d: Dimension) -> &'static str {
    match d {
        Dimension::Dependency => "edges",
        Dimension::Instruction => "nodes",
        Dimension::Knowledge => "application categories",
        Dimension::Hierarchy => "depth (nodes on the longest path)",
        Dimension::Branch => "width (largest independent set)",
    }
}

fn range_text(d: Dimension, l: Level) -> String {
    match d.range_of(l) {
        (a, usize::MAX) => format!("≥{a}"),
        (0, b) => format!("≤{b}"),
        (a, b) if a == b => a.to_string(),
        (a, b) => format!("{a}–{b}"),
    }
}

fn tasks(
    cx: &StageContext<'_>,
    stored: &[crate::store::tasks::StoredTask],
) -> Result<TaskData, ReportError> {
    let mut per_status: BTreeMap<String, usize> = BTreeMap::new();
    let mut counts: BTreeMap<(Dimension, Level), usize> = BTreeMap::new();
    let mut caps: BTreeMap<String, usize> = BTreeMap::new();
    let (mut nodes, mut measured) = (0usize, 0usize);
    for t in stored {
        *per_status.entry(t.status.to_string()).or_insert(0) += 1;
        nodes += t.task.dag.nodes.len();
        if let Some(c) = &t.task.complexity {
            measured += 1;
            for d in Dimension::ALL {
                *counts.entry((d, c.levels.get(d))).or_insert(0) += 1;
            }
            for name in cx.catalog.capabilities_of(&c.levels) {
                *caps.entry(name).or_insert(0) += 1;
            }
        }
    }
    // OmniBench figure 3, in the order of Dimension::ALL (graph::spec's table).
    let targets = crate::graph::Profile::Omnibench
        .distribution()
        .unwrap_or([[0.0; 3]; 5]);
    let dimensions = Dimension::ALL
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            let row = targets[i];
            let sum: f64 = row.iter().sum::<f64>().max(f64::MIN_POSITIVE);
            DimensionData {
                name: d.as_str().to_string(),
                measure: measure_of(d).to_string(),
                levels: Level::ALL
                    .iter()
                    .enumerate()
                    .map(|(k, &l)| {
                        let count = counts.get(&(d, l)).copied().unwrap_or(0);
                        LevelData {
                            level: l.as_str().to_string(),
                            range: range_text(d, l),
                            count,
                            share: if measured == 0 {
                                0.0
                            } else {
                                count as f64 / measured as f64
                            },
                            target: row[k] / sum,
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    let capabilities = cx
        .catalog
        .capabilities
        .iter()
        .map(|c| CapabilityCount {
            name: c.name.clone(),
            title: c.title.clone(),
            count: caps.get(&c.name).copied().unwrap_or(0),
        })
        .collect();
    Ok(TaskData {
        total: stored.len(),
        per_status: per_status
            .into_iter()
            .map(|(name, count)| Count { name, count })
            .collect(),
        versions: cx.store.datasets()?,
        mean_nodes: if stored.is_empty() {
            0.0
        } else {
            nodes as f64 / stored.len() as f64
        },
        measured,
        dimensions,
        capabilities,
        quality: crate::pipeline::stats::QualityStats::collect(
            stored
                .iter()
                .filter(|t| t.status == TaskStatus::Validated)
                .map(|t| &t.task),
        ),
    })
}

/// Rejection reasons as counts (the eight most frequent).
fn reasons(cx: &StageContext<'_>, of: Rejected) -> Result<Vec<Count>, ReportError> {
    Ok(cx
        .store
        .rejection_reasons(of, 8)?
        .into_iter()
        .map(|(name, count)| Count { name, count })
        .collect())
}

fn count(
    cx: &StageContext<'_>,
    table: Table,
    status: &dyn rusqlite::ToSql,
) -> Result<usize, ReportError> {
    Ok(cx.store.count(table, Some(status))? as usize)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn rate(good: usize, bad: usize) -> Option<f64> {
    (good + bad > 0).then(|| good as f64 / (good + bad) as f64)
}

/// Did a verification round's record say it passed? The verify stage's records
/// carry `verdict: "passed"` (or why the round failed); a boolean `passed`,
/// `success` or `ok` at the top or in `result` is understood too.
fn round_passed(body: &serde_json::Value) -> Option<bool> {
    if let Some(v) = body.get("verdict").and_then(serde_json::Value::as_str) {
        return Some(v == crate::store::UnitVerdict::Passed.as_str());
    }
    let keys = ["passed", "success", "ok"];
    keys.iter()
        .find_map(|k| body.get(k).and_then(serde_json::Value::as_bool))
        .or_else(|| {
            body.get("result")
                .and_then(|r| keys.iter().find_map(|k| r.get(k)?.as_bool()))
        })
}

fn verification(cx: &StageContext<'_>) -> Result<VerificationData, ReportError> {
    let (rounds, subtasks) = cx.store.round_counts()?;
    let verified = count(cx, Table::Subtasks, &SubtaskStatus::Verified)?;
    let rejected = count(cx, Table::Subtasks, &SubtaskStatus::Rejected)?;
    let mut data = VerificationData {
        rounds,
        verified_rate: rate(verified, rejected),
        rejection_reasons: reasons(cx, Rejected::Subtasks)?,
        ..VerificationData::default()
    };
    if data.rounds == 0 {
        return Ok(data);
    }
    data.subtasks = subtasks;
    // Per pair: number of rounds and the last round's record.
    let mut needed: BTreeMap<usize, usize> = BTreeMap::new();
    let (mut known, mut passed) = (0usize, 0usize);
    for last in cx.store.last_rounds()? {
        data.pairs += 1;
        *needed.entry(last.rounds).or_insert(0) += 1;
        if let Some(p) = round_passed(&last.body) {
            known += 1;
            passed += usize::from(p);
        }
    }
    data.passed_pairs = (known == data.pairs).then_some(passed);
    data.rounds_needed = needed
        .into_iter()
        .map(|(k, n)| Count {
            name: plural(k, "round", "rounds"),
            count: n,
        })
        .collect();
    Ok(data)
}

fn validation(cx: &StageContext<'_>) -> Result<ValidationData, ReportError> {
    let validated = count(cx, Table::Tasks, &TaskStatus::Validated)?;
    let rejected = count(cx, Table::Tasks, &TaskStatus::Rejected)?;
    let (attempts, tasks) = cx.store.attempt_counts()?;
    let (trajectories_ok, trajectories_failed) = cx.store.trajectory_counts()?;
    let mut data = ValidationData {
        attempts,
        tasks,
        validated,
        rejected,
        validated_rate: rate(validated, rejected),
        trajectories_ok,
        trajectories_failed,
        rejection_reasons: reasons(cx, Rejected::Tasks)?,
        ..ValidationData::default()
    };
    if data.attempts == 0 {
        return Ok(data);
    }
    data.attempts_needed = cx
        .store
        .attempts_needed()?
        .into_iter()
        .map(|(k, count)| Count {
            name: plural(k, "attempt", "attempts"),
            count,
        })
        .collect();
    data.passed_first = cx
        .store
        .first_attempts()?
        .iter()
        .filter(|a| a.passed)
        .count();
    Ok(data)
}

/// Mutation-score figures in the stats: every field whose name mentions
/// "mutation", at any depth (objects flattened to `a.b` keys), in stats order.
fn mutation_fields(stats: &serde_json::Value) -> Vec<(String, String)> {
    fn scalar_text(v: &serde_json::Value) -> Option<String> {
        match v {
            serde_json::Value::Number(n) => Some(match n.as_f64() {
                Some(f) if n.is_f64() => format!("{f:.3}"),
                _ => n.to_string(),
            }),
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }
    fn flatten(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    flatten(&format!("{prefix}.{k}"), x, out);
                }
            }
            serde_json::Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    flatten(&format!("{prefix}[{i}]"), x, out);
                }
            }
            other => {
                if let Some(t) = scalar_text(other) {
                    out.push((prefix.to_string(), t));
                }
            }
        }
    }
    fn walk(path: &str, v: &serde_json::Value, depth: usize, out: &mut Vec<(String, String)>) {
        let serde_json::Value::Object(m) = v else {
            return;
        };
        for (k, x) in m {
            let p = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            if k.to_ascii_lowercase().contains("mutation") {
                flatten(&p, x, out);
            } else if depth < 3 {
                walk(&p, x, depth + 1, out);
            }
        }
    }
    let mut out = Vec::new();
    walk("", stats, 0, &mut out);
    out
}

/// Tasks for the gallery: validated first, then composed, then rejected; spread
/// evenly over the stored order so the gallery is not just the first few.
fn gallery(
    cx: &StageContext<'_>,
    stored: &[crate::store::tasks::StoredTask],
    n: usize,
) -> Vec<GraphCard> {
    let rank = |s: &TaskStatus| match s {
        TaskStatus::Validated => 0,
        TaskStatus::Composed => 1,
        TaskStatus::Rejected => 2,
    };
    let mut pool: Vec<&crate::store::tasks::StoredTask> = stored.iter().collect();
    pool.sort_by_key(|t| rank(&t.status));
    let best = pool.first().map_or(0, |t| rank(&t.status));
    let pool: Vec<_> = if pool.iter().filter(|t| rank(&t.status) == best).count() >= n {
        pool.into_iter()
            .filter(|t| rank(&t.status) == best)
            .collect()
    } else {
        pool
    };
    let picked: Vec<&crate::store::tasks::StoredTask> = if pool.len() <= n {
        pool
    } else {
        let mut seen = BTreeSet::new();
        (0..n)
            .map(|i| i * pool.len() / n)
            .filter(|i| seen.insert(*i))
            .map(|i| pool[i])
            .collect()
    };
    picked
        .into_iter()
        .map(|t| GraphCard {
            task_id: t
                .task
                .task_id
                .as_ref()
                .map(|i| i.0.clone())
                .unwrap_or_default(),
            status: t.status.to_string(),
            instruction: t.task.task_instruction.clone(),
            nodes: t.task.dag.nodes.len(),
            edges: t.task.dag.edges.values().map(Vec::len).sum(),
            complexity: t.task.complexity,
            capabilities: t
                .task
                .complexity
                .map(|c| cx.catalog.capabilities_of(&c.levels))
                .unwrap_or_default()
                .into_iter()
                .map(|name| match cx.catalog.capability(&name) {
                    Some(c) => c.title.clone(),
                    None => name,
                })
                .collect(),
            task: t.task.clone(),
        })
        .collect()
}

/// The first `n` stored task trajectories (successful ones first, one per task),
/// or when there are none, the first `n` subtask trajectories; each replayed for
/// `steps` actions in a fresh simulated desktop.
fn samples(cx: &StageContext<'_>, n: usize, steps: usize) -> Result<SampleData, ReportError> {
    if n == 0 {
        return Ok(SampleData::default());
    }
    let mut data = SampleData::default();
    // (sample without frames, its actions)
    let mut items: Vec<(Sample, Vec<crate::model::TrajectoryAction>)> = Vec::new();
    for row in cx.store.sample_task_trajectories(n)? {
        let t = row.trajectory;
        items.push((
            Sample {
                frames: Vec::new(),
                shown_steps: steps.min(t.actions.len()),
                trajectory_id: row.trajectory_id,
                status: row.status.to_string(),
                reason: row.reason,
                instruction: t.instruction,
                order: t.topological_order,
                total_steps: t.actions.len(),
            },
            t.actions,
        ));
    }
    if items.is_empty() {
        for t in cx.store.first_subtask_trajectories(n)? {
            items.push((
                Sample {
                    frames: Vec::new(),
                    shown_steps: steps.min(t.actions.len()),
                    trajectory_id: t.trajectory_id,
                    status: SubtaskStatus::Verified.to_string(),
                    reason: None,
                    instruction: t.instruction,
                    order: Vec::new(),
                    total_steps: t.actions.len(),
                },
                t.actions,
            ));
        }
        if !items.is_empty() {
            data.source = "subtask".into();
        }
    } else {
        data.source = "task".into();
    }
    if items.is_empty() {
        return Ok(data);
    }
    // Rendering is the slow part: replay the samples in parallel.
    let desktops = cx.env.desktops(&cx.workspace)?;
    let cache = ShotCache::default();
    let frames: Vec<Result<Vec<Frame>, ReportError>> = items
        .par_iter()
        .map(|(_, actions)| shots::replay(desktops.as_ref(), actions, steps, &cache))
        .collect();
    for ((mut sample, _), frames) in items.into_iter().zip(frames) {
        sample.frames = frames?;
        data.items.push(sample);
    }
    Ok(data)
}

/// Reads `dir/<agent>/scores.json` for every agent folder, in name order. A file
/// that cannot be read is reported on the page, not an error: the report is still
/// worth having.
fn bench(dir: &Path) -> BenchData {
    let mut data = BenchData::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return data;
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path().join("scores.json"))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for f in files {
        let shown = f
            .strip_prefix(dir.parent().and_then(Path::parent).unwrap_or(dir))
            .unwrap_or(&f)
            .display()
            .to_string();
        match std::fs::read_to_string(&f)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<BenchScores>(&t).map_err(|e| e.to_string()))
        {
            Ok(mut s) => {
                if s.agent.is_empty() {
                    s.agent = f
                        .parent()
                        .and_then(Path::file_name)
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                }
                data.agents.push(s);
            }
            Err(e) => {
                tracing::warn!(file = %f.display(), error = %e, "bench scores not readable");
                data.problems.push(format!("{shown}: {e}"));
            }
        }
    }
    let cap_key = |s: &BenchScore| s.capability.clone().unwrap_or_default();
    let level_key = |s: &BenchScore| {
        format!(
            "{} {}",
            s.dimension.as_deref().unwrap_or(""),
            s.level.as_deref().unwrap_or("")
        )
    };
    data.per_capability = rows(&data.agents, |a| &a.per_capability, cap_key, None);
    let level_order: Vec<String> = Dimension::ALL
        .iter()
        .flat_map(|d| {
            Level::ALL
                .iter()
                .map(move |l| format!("{} {}", d.as_str(), l.as_str()))
        })
        .collect();
    data.per_level = rows(
        &data.agents,
        |a| &a.per_level,
        level_key,
        Some(&level_order),
    );
    data
}

/// Aligns the agents' score lines by key: one row per key (in `order` when given,
/// else in order of first appearance), one cell per agent.
fn rows(
    agents: &[BenchScores],
    lines: impl Fn(&BenchScores) -> &Vec<BenchScore>,
    key: impl Fn(&BenchScore) -> String,
    order: Option<&[String]>,
) -> Vec<BenchRow> {
    let mut keys: Vec<String> = Vec::new();
    for a in agents {
        for s in lines(a) {
            let k = key(s);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    if let Some(order) = order {
        keys.sort_by_key(|k| order.iter().position(|o| o == k).unwrap_or(usize::MAX));
    }
    keys.into_iter()
        .map(|k| BenchRow {
            cells: agents
                .iter()
                .map(|a| lines(a).iter().find(|s| key(s) == k).cloned())
                .collect(),
            key: k,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn task(id: &str, nodes: &[(&str, &str)], edges: &[(&str, &str)]) -> Task {
        let mut t: Task = serde_json::from_value(json!({
            "task_id": id, "task_instruction": format!("do {id}"), "task_intent": "i",
            "successful_topo": [],
            "dag": {"nodes": nodes.iter().map(|n| n.0).collect::<Vec<_>>(),
                    "edges": nodes.iter().map(|n| (n.0, edges.iter().filter(|e| e.0 == n.0).map(|e| e.1).collect::<Vec<_>>())).collect::<BTreeMap<_, _>>()},
        }))
        .unwrap();
        for (n, app) in nodes {
            t.nodes.insert(
                n.to_string(),
                crate::model::TaskNode {
                    subtask_id: crate::model::SubtaskId(format!("s-{n}")),
                    parameter_index: 0,
                    application: app.to_string(),
                    category: "Office".into(),
                    instruction: format!("{n} in {app}"),
                },
            );
        }
        t.complexity = Some(Complexity::from_measures(edges.len(), nodes.len(), 1, 2, 1));
        t
    }

    #[test]
    fn collect_counts_statuses_rounds_and_attempts() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let catalog = crate::resources::Catalog::load(repo).unwrap();
        let store = crate::store::Store::open_in_memory().unwrap();
        store
            .import_pool(&repo.join("subtask_pool").join("pool.jsonl"), &catalog)
            .unwrap();
        let tasks = vec![
            task("t1", &[("n0", "Mail"), ("n1", "Chat")], &[("n0", "n1")]),
            task("t2", &[("n0", "Writer")], &[]),
            task("t3", &[("n0", "Files")], &[]),
        ];
        store
            .add_dataset(1, "h", &json!({}), "test", 3, &tasks, None, None)
            .unwrap();
        {
            let conn = store.conn();
            let ids: Vec<String> = conn
                .prepare("SELECT id FROM subtasks ORDER BY id LIMIT 3")
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            conn.execute(
                "UPDATE subtasks SET status = 'rejected', reason = 'not discriminative' WHERE id = ?1",
                [&ids[0]],
            )
            .unwrap();
            conn.execute(
                "UPDATE subtasks SET status = 'proposed' WHERE id = ?1",
                [&ids[1]],
            )
            .unwrap();
            // ids[0]: two rounds, last failed; ids[2]: one round, passed.
            for (id, round, passed) in
                [(&ids[0], 1, false), (&ids[0], 2, false), (&ids[2], 1, true)]
            {
                conn.execute(
                    "INSERT INTO verification_rounds VALUES (?1, 0, ?2, ?3)",
                    rusqlite::params![id, round, json!({"passed": passed}).to_string()],
                )
                .unwrap();
            }
            for (t, attempt, passed) in [("t1", 1, false), ("t1", 2, true), ("t2", 1, true)] {
                let a = crate::model::ValidationAttempt {
                    attempt,
                    task_instruction: "x".into(),
                    reconstructed_edges: vec![],
                    passed,
                    discrepancy: None,
                };
                conn.execute(
                    "INSERT INTO validation_attempts VALUES (?1, ?2, ?3)",
                    rusqlite::params![t, attempt, serde_json::to_string(&a).unwrap()],
                )
                .unwrap();
            }
            conn.execute(
                "UPDATE tasks SET status = 'validated' WHERE task_id IN ('t1', 't2')",
                [],
            )
            .unwrap();
            conn.execute(
                "UPDATE tasks SET status = 'rejected', reason = 'edge lost' WHERE task_id = 't3'",
                [],
            )
            .unwrap();
        }
        let cx = StageContext {
            workspace: repo.to_path_buf(),
            store: &store,
            catalog: &catalog,
            seed: 1,
            jobs: 1,
            quiet: true,
            llm: Default::default(),
            env: Default::default(),
        };
        let args = ReportArgs {
            no_timestamp: true,
            samples: 0,
            ..ReportArgs::default()
        };
        let d = collect(&args, &cx).unwrap();
        assert_eq!(d.generated, None);
        let lines = std::fs::read_to_string(repo.join("subtask_pool/pool.jsonl"))
            .unwrap()
            .lines()
            .count();
        assert_eq!(
            (d.pool.verified, d.pool.proposed, d.pool.rejected),
            (lines - 2, 1, 1)
        );
        let apps: usize = d.pool.categories.iter().map(|c| c.apps.len()).sum();
        let pool_apps: std::collections::BTreeSet<String> =
            std::fs::read_to_string(repo.join("subtask_pool/pool.jsonl"))
                .unwrap()
                .lines()
                .map(|l| {
                    serde_json::from_str::<crate::model::Subtask>(l)
                        .unwrap()
                        .application
                })
                .collect();
        assert_eq!(apps, pool_apps.len());
        assert_eq!(d.verification.rounds, 3);
        assert_eq!(d.verification.pairs, 2);
        assert_eq!(d.verification.passed_pairs, Some(1));
        assert_eq!(
            d.verification.rounds_needed,
            vec![
                Count {
                    name: "1 round".into(),
                    count: 1
                },
                Count {
                    name: "2 rounds".into(),
                    count: 1
                }
            ]
        );
        assert_eq!(
            d.verification.rejection_reasons[0].name,
            "not discriminative"
        );
        assert_eq!(d.validation.attempts, 3);
        assert_eq!(d.validation.tasks, 2);
        assert_eq!(d.validation.passed_first, 1);
        assert_eq!((d.validation.validated, d.validation.rejected), (2, 1));
        assert_eq!(d.validation.validated_rate, Some(2.0 / 3.0));
        assert_eq!(d.validation.rejection_reasons[0].name, "edge lost");
        // The gallery prefers validated tasks; shares add up per dimension.
        assert_eq!(d.gallery.len(), 3);
        assert_eq!(d.gallery[0].status, "validated");
        assert_eq!(d.tasks.measured, 3);
        for dim in &d.tasks.dimensions {
            let total: f64 = dim.levels.iter().map(|l| l.share).sum();
            let target: f64 = dim.levels.iter().map(|l| l.target).sum();
            assert!((total - 1.0).abs() < 1e-9 && (target - 1.0).abs() < 1e-9);
        }
        assert!(d.samples.items.is_empty() && d.bench.agents.is_empty());
        let page = html::render(&d).unwrap();
        assert!(page.contains("edge lost") && page.contains("not discriminative"));
    }

    #[test]
    fn mutation_fields_are_found_at_any_depth_and_flattened() {
        let stats = json!({
            "pool": {"verified": 3, "mutation_score": 0.875},
            "verify": {"mutation": {"killed": 7, "total": 8}},
            "tasks": {"total": 2}
        });
        assert_eq!(
            mutation_fields(&stats),
            vec![
                ("pool.mutation_score".to_string(), "0.875".to_string()),
                ("verify.mutation.killed".to_string(), "7".to_string()),
                ("verify.mutation.total".to_string(), "8".to_string()),
            ]
        );
        assert!(mutation_fields(&json!({"pool": {"verified": 1}})).is_empty());
    }

    #[test]
    fn round_records_say_whether_they_passed_in_several_shapes() {
        assert_eq!(round_passed(&json!({"passed": true})), Some(true));
        assert_eq!(
            round_passed(&json!({"result": {"success": false}})),
            Some(false)
        );
        assert_eq!(round_passed(&json!({"round": 2})), None);
        assert_eq!(round_passed(&json!({"verdict": "passed"})), Some(true));
        assert_eq!(
            round_passed(&json!({"verdict": "check 2 failed: no window 'Mail'"})),
            Some(false)
        );
    }

    #[test]
    fn table_two_ranges_read_naturally() {
        assert_eq!(range_text(Dimension::Dependency, Level::Easy), "≤1");
        assert_eq!(range_text(Dimension::Dependency, Level::Medium), "2–3");
        assert_eq!(range_text(Dimension::Branch, Level::Hard), "≥5");
    }

    #[test]
    fn bench_files_are_aligned_per_agent_and_bad_files_reported() {
        let dir = tempfile::tempdir().unwrap();
        let bench = dir.path().join("generated").join("bench");
        for (agent, sr) in [("offline", 1.0), ("random", 0.1)] {
            std::fs::create_dir_all(bench.join(agent)).unwrap();
            std::fs::write(
                bench.join(agent).join("scores.json"),
                json!({
                    "agent": agent, "created_at": "x", "tasks": 2, "max_steps": 60,
                    "overall": {"tasks": 2, "success_rate": sr, "coverage_rate": sr, "logical_consistency": 1.0},
                    "per_capability": [{"capability": "parallel_planning", "tasks": 1, "success_rate": sr, "coverage_rate": sr, "logical_consistency": 1.0}],
                    "per_level": [
                        {"dimension": "hierarchy", "level": "hard", "tasks": 1, "success_rate": sr, "coverage_rate": sr, "logical_consistency": 1.0},
                        {"dimension": "dependency", "level": "easy", "tasks": 1, "success_rate": sr, "coverage_rate": sr, "logical_consistency": 1.0}
                    ],
                    "per_task": []
                })
                .to_string(),
            )
            .unwrap();
        }
        std::fs::create_dir_all(bench.join("broken")).unwrap();
        std::fs::write(bench.join("broken").join("scores.json"), "{not json").unwrap();
        let data = super::bench(&bench);
        assert_eq!(
            data.agents
                .iter()
                .map(|a| a.agent.as_str())
                .collect::<Vec<_>>(),
            vec!["offline", "random"]
        );
        assert_eq!(data.problems.len(), 1);
        assert!(data.problems[0].contains("broken"), "{:?}", data.problems);
        assert_eq!(data.per_capability.len(), 1);
        assert_eq!(data.per_capability[0].cells.len(), 2);
        // Levels follow the dimension order of table 2, not file order.
        let keys: Vec<&str> = data.per_level.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, vec!["dependency easy", "hierarchy hard"]);
        assert!(super::bench(&dir.path().join("nothing")).agents.is_empty());
    }
}
