//! `synth perf compose`: the compose stage measured as it runs for a user —
//! intent scopes from the offline planner, composition, every task stored in a
//! fresh SQLite store and written to a tasks.jsonl — on the committed pool
//! (`subtask_pool/*.jsonl` of the workspace) and on the synthetic pool of
//! [`crate::graph::synthetic`] (OmniBench's 255 subtasks over 49 applications).
//!
//! For each pool and each count it reports wall time, peak resident memory
//! during that composition, and the bytes per task of tasks.jsonl and of the
//! store, so growth over counts (1k, 10k, 36k) shows whether memory stays flat.
//! Peak memory is this process's `VmHWM`, reset before each measurement through
//! `/proc/self/clear_refs` (Linux); where that is not possible it is the peak
//! since the process started, and the report says so.
//!
//! Writes only inside a temporary folder, removed afterwards.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use super::compose::{compose_into_store, write_store_tasks, ComposeStageError, NewVersion};
use super::intents::{intent_scopes, plan_offline, plan_request, review};
use crate::graph::{self, synthetic, ComposeSpec, Pool, Profile, Scope};
use crate::model::Subtask;
use crate::resources::Catalog;
use crate::store::intents::IntentStatus;
use crate::store::{Store, StoreError};

/// Errors of `synth perf compose`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PerfError {
    #[error(transparent)]
    Stage(#[from] ComposeStageError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot read the committed pool")]
    Import(#[from] crate::store::pool::PoolError),
    #[error("the subtask pool cannot be instantiated")]
    Pool(#[from] graph::PoolError),
    #[error(transparent)]
    Catalog(#[from] crate::resources::CatalogError),
    #[error("cannot make a temporary folder")]
    TempDir(#[source] std::io::Error),
    #[error("the workspace has no subtask_pool/*.jsonl to measure")]
    NoCommittedPool,
}

/// One measurement: one pool, one count.
#[derive(Debug, Clone, Serialize)]
pub struct StagePerfRow {
    pub pool: String,
    pub subtasks: usize,
    pub scopes: usize,
    pub asked: usize,
    pub made: usize,
    /// Compose, store and write, in seconds.
    pub seconds: f64,
    /// Peak resident memory during this measurement, MB.
    pub peak_rss_mb: Option<f64>,
    pub tasks_file_bytes: u64,
    pub bytes_per_task: f64,
    pub store_bytes_per_task: f64,
    pub shortfall: Option<String>,
}

/// All measurements of one `synth perf compose`.
#[derive(Debug, Clone, Serialize)]
pub struct StagePerfReport {
    pub rows: Vec<StagePerfRow>,
    /// Was the peak reset before each row (else it is the process's peak so far)?
    pub peak_reset: bool,
}

impl fmt::Display for StagePerfReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "compose stage (compose + store + tasks.jsonl), peak RSS {}",
            if self.peak_reset {
                "per row"
            } else {
                "since start (could not reset)"
            }
        )?;
        writeln!(
            f,
            "{:<10} {:>8} {:>7} {:>8} {:>8} {:>8} {:>9} {:>10} {:>11}",
            "pool",
            "subtasks",
            "scopes",
            "asked",
            "made",
            "wall s",
            "peak MB",
            "B/task",
            "store B/t"
        )?;
        for r in &self.rows {
            writeln!(
                f,
                "{:<10} {:>8} {:>7} {:>8} {:>8} {:>8.2} {:>9} {:>10.0} {:>11.0}",
                r.pool,
                r.subtasks,
                r.scopes,
                r.asked,
                r.made,
                r.seconds,
                r.peak_rss_mb
                    .map_or_else(|| "?".to_string(), |m| format!("{m:.0}")),
                r.bytes_per_task,
                r.store_bytes_per_task
            )?;
            if let Some(s) = &r.shortfall {
                writeln!(f, "           short: {s}")?;
            }
        }
        Ok(())
    }
}

/// What to measure.
#[derive(Debug, Clone)]
pub struct StagePerfConfig {
    /// Measure the workspace's committed pool.
    pub committed: bool,
    /// Measure the synthetic pool with this many subtasks and applications.
    pub synthetic: Option<(usize, usize)>,
    pub counts: Vec<usize>,
    pub profile: Profile,
    pub max_orders: usize,
    pub seed: u64,
    pub jobs: usize,
}

/// Runs the measurements (see the module docs).
///
/// # Errors
/// No committed pool when one is asked for, a pool that does not import or
/// instantiate, or store and file errors in the temporary folder.
pub fn perf_compose_stage(
    workspace: &Path,
    catalog: &Catalog,
    cfg: &StagePerfConfig,
) -> Result<StagePerfReport, PerfError> {
    let tmp = tempfile::tempdir().map_err(PerfError::TempDir)?;
    let mut report = StagePerfReport {
        rows: Vec::new(),
        peak_reset: true,
    };
    if cfg.committed {
        let subtasks = committed_subtasks(workspace, catalog, tmp.path())?;
        let initial = crate::resources::initial_resources(workspace, catalog)?;
        let mut pool = Pool::new(catalog, &subtasks, &initial)?;
        if let Ok(apps) = crate::env::spec::load_apps(workspace) {
            pool.mark_edited_inputs(|s| crate::env::spec::edits_its_input(&apps, s));
            pool.mark_contents(|s| crate::env::spec::content_of(&apps, s));
        }
        measure("committed", &pool, catalog, cfg, tmp.path(), &mut report)?;
    }
    if let Some((subtasks, apps)) = cfg.synthetic {
        let syn = synthetic::synthetic_pool(subtasks, apps, cfg.seed)?;
        let pool = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial)?;
        measure(
            "synthetic",
            &pool,
            &syn.catalog,
            cfg,
            tmp.path(),
            &mut report,
        )?;
    }
    Ok(report)
}

/// The verified subtasks of `subtask_pool/*.jsonl`, imported as `synth pool
/// import` does (into a scratch store under `tmp`).
fn committed_subtasks(
    workspace: &Path,
    catalog: &Catalog,
    tmp: &Path,
) -> Result<Vec<Subtask>, PerfError> {
    let mut files: Vec<_> = std::fs::read_dir(workspace.join("subtask_pool"))
        .map_err(|_| PerfError::NoCommittedPool)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(PerfError::NoCommittedPool);
    }
    let store = Store::open(&tmp.join("pool.sqlite"))?;
    for f in &files {
        store.import_pool(f, catalog)?;
    }
    Ok(store.subtasks(crate::model::SubtaskStatus::Verified)?)
}

/// The scopes `synth intents` (offline) and `synth compose` would use.
fn offline_scopes(pool: &Pool<'_>, catalog: &Catalog, min_nodes: usize) -> Vec<Scope> {
    let request = plan_request(pool, &[], None);
    let accepted: Vec<_> = plan_offline(&request)
        .iter()
        .map(|i| review(i, pool, catalog))
        .filter(|r| r.status == IntentStatus::Accepted)
        .collect();
    intent_scopes(pool, &accepted, min_nodes)
}

fn measure(
    name: &str,
    pool: &Pool<'_>,
    catalog: &Catalog,
    cfg: &StagePerfConfig,
    tmp: &Path,
    report: &mut StagePerfReport,
) -> Result<(), PerfError> {
    let base = ComposeSpec {
        profile: cfg.profile,
        max_orders: cfg.max_orders,
        seed: cfg.seed,
        ..ComposeSpec::default()
    };
    let scopes = offline_scopes(pool, catalog, base.min_nodes);
    let subtasks: BTreeSet<usize> = (0..pool.len()).map(|i| pool.instance(i).subtask).collect();
    for (k, &count) in cfg.counts.iter().enumerate() {
        let spec = ComposeSpec {
            count,
            ..base.clone()
        };
        let dir = tmp.join(format!("{name}-{k}"));
        std::fs::create_dir_all(&dir).map_err(PerfError::TempDir)?;
        let db = dir.join("synth.sqlite");
        let store = Store::open(&db)?;
        let spec_json = serde_json::to_value(&spec).expect("spec serializes");
        report.peak_reset &= reset_peak();
        let started = Instant::now();
        let version = NewVersion {
            spec_hash: "perf",
            spec_json: &spec_json,
            label: "perf",
            run: None,
        };
        let (added, summary, _drift) = compose_into_store(
            &store,
            pool,
            &scopes,
            &spec,
            &version,
            &graph::Prior::default(),
            cfg.jobs,
            || {},
        )?;
        let out = dir.join("tasks.jsonl");
        write_store_tasks(&store, &out)?;
        let seconds = started.elapsed().as_secs_f64();
        let peak = synthetic::peak_rss_mb();
        drop(store);
        let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        let per = |bytes: u64| bytes as f64 / added.inserted.max(1) as f64;
        let file_bytes = size(&out);
        report.rows.push(StagePerfRow {
            pool: name.to_string(),
            subtasks: subtasks.len(),
            scopes: scopes.len(),
            asked: count,
            made: added.inserted,
            seconds,
            peak_rss_mb: peak,
            tasks_file_bytes: file_bytes,
            bytes_per_task: per(file_bytes),
            store_bytes_per_task: per(size(&db)),
            shortfall: summary.shortfall.map(|s| s.constraint),
        });
        std::fs::remove_dir_all(&dir).map_err(PerfError::TempDir)?;
    }
    Ok(())
}

/// Resets this process's peak resident memory (`VmHWM`) to its current size;
/// `false` where that is not possible.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}
