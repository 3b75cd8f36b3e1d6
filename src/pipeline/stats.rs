//! `synth stats`: counts of the pool and the tasks, and the distribution of
//! complexity levels per dimension (the shape of OmniBench figure 3) and per
//! capability, and the acceptance of the human review marks when any are stored.
//! Reads the store only.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use super::StageContext;
use crate::model::{Dimension, Level, SubtaskStatus};
use crate::store::StoreError;

/// Everything `synth stats` prints.
#[derive(Debug, Serialize)]
pub struct Stats {
    pub pool: PoolStats,
    pub tasks: TaskStats,
    /// Model calls per role and model over all runs: tokens, cost, outcomes.
    pub llm: Vec<crate::llm::RoleUsage>,
    /// Faults the model calls met over all runs, by class (retried transport
    /// failures, re-asked or rejected replies: see `store::calls::CallLog::fault_summary`).
    pub llm_faults: std::collections::BTreeMap<String, u64>,
    /// The mutation test of the evaluations (`synth verify --mutants`), if run.
    pub mutation: Option<crate::store::verify::MutationSummary>,
    /// Tasks accepted of those marked by `synth review --import`, if any are.
    pub review: Option<crate::review::tally::Tally>,
}

#[derive(Debug, Serialize)]
pub struct PoolStats {
    pub verified: usize,
    pub proposed: usize,
    pub rejected: usize,
    /// Verified subtask x parameter set pairs.
    pub instances: usize,
    pub applications: usize,
    pub categories: usize,
    /// Verified subtasks per category.
    pub per_category: BTreeMap<String, usize>,
    /// Verified subtasks per application.
    pub per_application: BTreeMap<String, usize>,
}

#[derive(Debug, Serialize)]
pub struct TaskStats {
    pub total: usize,
    pub per_status: BTreeMap<String, usize>,
    pub versions: Vec<VersionStats>,
    /// dimension -> level -> count.
    pub levels: BTreeMap<String, BTreeMap<String, usize>>,
    /// capability name -> count of tasks that test it.
    pub capabilities: BTreeMap<String, usize>,
    pub mean_nodes: f64,
    pub quality: QualityStats,
    /// How the validated tasks spread over the pool's subtasks and applications.
    pub diversity: crate::graph::Diversity,
}

/// The stored quality flags of the validated tasks ([`crate::model::Quality`]).
#[derive(Debug, Clone, Default, Serialize)]
pub struct QualityStats {
    /// Validated tasks.
    pub tasks: usize,
    /// Validated tasks that carry flags.
    pub assessed: usize,
    /// Of those, the ones passing every flag.
    pub passing: usize,
    /// flag name -> tasks passing it.
    pub per_flag: BTreeMap<String, usize>,
    /// Mean words of the high-level over the low-level instruction.
    pub mean_length_ratio: f64,
    /// Validated tasks with a node that needs two or more others (fan-in).
    pub fan_in: usize,
    /// The most frequent problems, with how many tasks have each.
    pub top_problems: Vec<(String, usize)>,
}

impl QualityStats {
    /// The figures over `tasks` (the validated ones).
    pub fn collect<'a>(tasks: impl IntoIterator<Item = &'a crate::model::Task>) -> QualityStats {
        let mut q = QualityStats::default();
        let mut ratio = 0.0;
        let mut problems: BTreeMap<String, usize> = BTreeMap::new();
        for t in tasks {
            q.tasks += 1;
            if has_fan_in(&t.dag) {
                q.fan_in += 1;
            }
            let Some(flags) = &t.quality else { continue };
            q.assessed += 1;
            ratio += flags.length_ratio;
            if flags.passes() {
                q.passing += 1;
            }
            for (name, ok) in flags.flags() {
                *q.per_flag.entry(name.to_string()).or_default() += usize::from(ok);
            }
            for p in &flags.problems {
                // Problems name nodes and values; count them by their wording.
                let kind: String = p.split('\'').step_by(2).collect::<Vec<_>>().join("'…'");
                *problems.entry(kind).or_default() += 1;
            }
        }
        if q.assessed > 0 {
            q.mean_length_ratio = ratio / q.assessed as f64;
        }
        let mut top: Vec<(String, usize)> = problems.into_iter().collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        top.truncate(5);
        q.top_problems = top;
        q
    }
}

/// Does some node of `dag` have two or more predecessors?
pub fn has_fan_in(dag: &crate::model::Dag) -> bool {
    let mut indegree: BTreeMap<&str, usize> = BTreeMap::new();
    for succ in dag.edges.values() {
        for s in succ {
            *indegree.entry(s.as_str()).or_default() += 1;
        }
    }
    indegree.values().any(|&d| d >= 2)
}

#[derive(Debug, Serialize)]
pub struct VersionStats {
    pub version: u32,
    pub label: String,
    pub asked: usize,
    pub made: usize,
    pub shortfall: Option<String>,
}

/// Errors of `synth stats`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StatsError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot read the call record")]
    Llm(#[from] crate::llm::LlmError),
}

/// Reads the counts from the store.
pub fn collect(cx: &StageContext<'_>) -> Result<Stats, StatsError> {
    let verified = cx.store.subtasks(SubtaskStatus::Verified)?;
    let mut per_category = BTreeMap::new();
    let mut per_application = BTreeMap::new();
    for s in &verified {
        *per_category
            .entry(s.category.clone().unwrap_or_else(|| "(none)".into()))
            .or_insert(0) += 1;
        *per_application.entry(s.application.clone()).or_insert(0) += 1;
    }
    let count = |st: SubtaskStatus| cx.store.count(crate::store::Table::Subtasks, Some(&st));
    let pool = PoolStats {
        verified: verified.len(),
        proposed: count(SubtaskStatus::Proposed)? as usize,
        rejected: count(SubtaskStatus::Rejected)? as usize,
        instances: verified.iter().map(|s| s.available_parameters.len()).sum(),
        applications: per_application.len(),
        categories: per_category.len(),
        per_category,
        per_application,
    };

    let tasks = cx.store.tasks(None)?;
    let mut per_status = BTreeMap::new();
    let mut levels: BTreeMap<String, BTreeMap<String, usize>> = Dimension::ALL
        .iter()
        .map(|d| {
            (
                d.as_str().to_string(),
                Level::ALL
                    .iter()
                    .map(|l| (l.as_str().to_string(), 0))
                    .collect(),
            )
        })
        .collect();
    let mut capabilities: BTreeMap<String, usize> = cx
        .catalog
        .capabilities
        .iter()
        .map(|c| (c.name.clone(), 0))
        .collect();
    let mut nodes = 0usize;
    for t in &tasks {
        *per_status.entry(t.status.to_string()).or_insert(0) += 1;
        nodes += t.task.dag.nodes.len();
        if let Some(c) = &t.task.complexity {
            for d in Dimension::ALL {
                *levels
                    .get_mut(d.as_str())
                    .and_then(|m| m.get_mut(c.levels.get(d).as_str()))
                    .expect("all dimensions and levels are pre-filled") += 1;
            }
            for name in cx.catalog.capabilities_of(&c.levels) {
                *capabilities.entry(name).or_insert(0) += 1;
            }
        }
    }
    let versions = cx
        .store
        .datasets()?
        .into_iter()
        .map(|v| VersionStats {
            version: v.version,
            label: v.label,
            asked: v.asked,
            made: v.made,
            shortfall: v.shortfall,
        })
        .collect();
    let applications = pool.applications;
    let validated = || {
        tasks
            .iter()
            .filter(|t| t.status == crate::store::TaskStatus::Validated)
            .map(|t| &t.task)
    };
    let llm = cx.store.call_log().usage_summary(None)?;
    let llm_faults = cx.store.call_log().fault_summary(None)?;
    Ok(Stats {
        llm,
        llm_faults,
        review: review_tally(cx)?,
        mutation: cx.store.mutation_summary()?,
        pool,
        tasks: TaskStats {
            total: tasks.len(),
            per_status,
            versions,
            levels,
            capabilities,
            mean_nodes: if tasks.is_empty() {
                0.0
            } else {
                nodes as f64 / tasks.len() as f64
            },
            quality: QualityStats::collect(validated()),
            diversity: crate::graph::diversity(validated(), applications),
        },
    })
}

/// What breaks the diversity limits a default run keeps: no subtask in more than
/// 5 % of the nodes, at least 80 % of the applications used, no repeated task, no
/// file named like a mechanical copy.
pub fn diversity_warnings(d: &crate::graph::Diversity) -> Vec<String> {
    let mut out = Vec::new();
    if let Some((id, n)) = &d.top_subtask {
        if d.max_subtask_share > crate::graph::compose::MAX_SUBTASK_SHARE {
            out.push(format!(
                "subtask {} is in {n} of {} nodes ({:.1}%, limit {:.0}%)",
                id.0,
                d.nodes,
                100.0 * d.max_subtask_share,
                100.0 * crate::graph::compose::MAX_SUBTASK_SHARE
            ));
        }
    }
    if d.application_share() < 0.8 {
        out.push(format!(
            "the tasks use {} of the pool's {} applications (under 80%)",
            d.applications_used, d.applications_total
        ));
    }
    if d.duplicate_multisets > 0 {
        out.push(format!(
            "{} tasks repeat another's subtasks and parameters",
            d.duplicate_multisets
        ));
    }
    if d.suffix_copy_tasks > 0 {
        out.push(format!(
            "{} tasks name a file like a mechanical copy (report_2.pdf)",
            d.suffix_copy_tasks
        ));
    }
    out
}

/// Accepted of the stored review marks, or None when there are none.
fn review_tally(cx: &StageContext<'_>) -> Result<Option<crate::review::tally::Tally>, StoreError> {
    let reviews = cx.store.reviews()?;
    let mut tally = crate::review::tally::Tally::default();
    for r in &reviews {
        tally.add(r.decision == "accept");
    }
    Ok((tally.reviewed > 0).then_some(tally))
}

fn pct(n: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * n as f64 / total as f64
    }
}

impl fmt::Display for QualityStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.assessed == 0 {
            return writeln!(f, "quality: no validated task carries quality flags");
        }
        writeln!(
            f,
            "quality: {} of {} assessed tasks pass every flag ({:.1}%); {} of the validated have fan-in ({:.1}%); high/low instruction length {:.2}",
            self.passing,
            self.assessed,
            pct(self.passing, self.assessed),
            self.fan_in,
            pct(self.fan_in, self.tasks),
            self.mean_length_ratio
        )?;
        for (name, n) in &self.per_flag {
            writeln!(f, "  {name:<24} {:>5.1}%", pct(*n, self.assessed))?;
        }
        for (p, n) in &self.top_problems {
            writeln!(f, "  {n:>5} x {p}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.pool;
        writeln!(
            f,
            "pool: {} verified subtasks ({} instances) over {} applications in {} categories; {} proposed, {} rejected",
            p.verified, p.instances, p.applications, p.categories, p.proposed, p.rejected
        )?;
        for (c, n) in &p.per_category {
            writeln!(f, "  {c:<24} {n:>5}")?;
        }
        if let Some(m) = &self.mutation {
            writeln!(
                f,
                "mutation score: {:.1}% ({}/{} contract-breaking mutants rejected by the evaluations, {} mutants)",
                m.score * 100.0,
                m.rejected,
                m.breaking,
                m.mutants
            )?;
        }
        let t = &self.tasks;
        writeln!(f, "tasks: {} (mean {:.1} nodes)", t.total, t.mean_nodes)?;
        for (s, n) in &t.per_status {
            writeln!(f, "  {s:<24} {n:>5}")?;
        }
        for v in &t.versions {
            writeln!(
                f,
                "  version {} '{}': made {} of {} asked{}",
                v.version,
                v.label,
                v.made,
                v.asked,
                v.shortfall
                    .as_deref()
                    .map(|s| format!(" (short: {s})"))
                    .unwrap_or_default()
            )?;
        }
        if t.total > 0 {
            writeln!(f, "complexity levels (easy / medium / hard, % of tasks):")?;
            for (d, m) in &t.levels {
                writeln!(
                    f,
                    "  {d:<12} {:>5.1} / {:>5.1} / {:>5.1}",
                    pct(m["easy"], t.total),
                    pct(m["medium"], t.total),
                    pct(m["hard"], t.total)
                )?;
            }
            writeln!(f, "tasks per capability:")?;
            for (c, n) in &t.capabilities {
                writeln!(f, "  {c:<30} {n:>6}")?;
            }
            let empty: Vec<&str> = t
                .capabilities
                .iter()
                .filter(|(_, n)| **n == 0)
                .map(|(c, _)| c.as_str())
                .collect();
            if !empty.is_empty() {
                writeln!(f, "warning: no task tests {}", empty.join(", "))?;
            }
            write!(f, "{}", t.quality)?;
            if t.diversity.tasks > 0 {
                writeln!(f, "diversity of the validated: {}", t.diversity)?;
                for w in diversity_warnings(&t.diversity) {
                    writeln!(f, "warning: {w}")?;
                }
            }
        }
        if let Some(r) = &self.review {
            writeln!(f, "human review: {r} (synth review --import)")?;
        }
        if self.llm.is_empty() {
            writeln!(f, "model calls: none recorded")?;
        } else {
            writeln!(
                f,
                "model calls (role, model: replies recorded, HTTP requests, \
                 accepted/re-asked/rejected/failed, tokens in/out, cost):"
            )?;
            for u in &self.llm {
                writeln!(
                    f,
                    "  {:<13} {:<20} {:>6} {:>6} {:>6}/{}/{}/{} {:>9}/{:<9} ${:.4}",
                    u.role,
                    u.model,
                    u.calls,
                    u.http_attempts,
                    u.accepted,
                    u.invalid,
                    u.rejected,
                    u.errors,
                    u.prompt_tokens,
                    u.completion_tokens,
                    u.cost_usd
                )?;
            }
            if !self.llm_faults.is_empty() {
                let faults: Vec<String> = self
                    .llm_faults
                    .iter()
                    .map(|(class, n)| format!("{class} {n}"))
                    .collect();
                writeln!(
                    f,
                    "model faults (retried, re-asked or final): {}",
                    faults.join(", ")
                )?;
            }
        }
        Ok(())
    }
}
