//! A synthetic subtask pool generator and the composition benchmark behind
//! `synth perf compose`.
//!
//! The pool is made of *groups* (one weakly connected component each, standing for a
//! workflow around a few applications). Group resources are artifacts on
//! [`LEVELS`]` + 1` levels, each level its own resource kind `syn_l{k}` with
//! [`SLOTS`] possible parameters per group; level-0 artifacts are on the initial
//! desktop. A subtask of level `k` reads an artifact of level `k - 1` (and, for some,
//! one of level `k - 2`) and writes one of level `k`; each of its [`PARAMS`]
//! parameter sets picks the slots. Chains across levels give depth (up to
//! [`LEVELS`]), several subtasks reading the same artifact give width, and each group
//! draws most applications from two "home" categories and the rest from anywhere, so
//! every knowledge level occurs. The catalogue is the shipped one (12 categories, the
//! scenarios and the 10 capabilities, embedded at build time) plus the `syn_l*`
//! kinds.
//!
//! Owns no I/O except reading this process's peak memory (`VmHWM` in
//! `/proc/self/status`) for [`PerfReport`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::graph::compose::{compose_with, ComposeError};
use crate::graph::pool::{Pool, PoolError};
use crate::graph::spec::{ComposeSpec, Profile, Target, DEFAULT_MAX_NODES};
use crate::model::{Dimension, ParameterSet, Provenance, Subtask, SubtaskId};
use crate::resources::{
    parse_toml, Capability, Catalog, CatalogError, KindSpec, Resource, Scenario,
};

/// Subtasks per group (component).
pub const GROUP_SIZE: usize = 32;
/// Artifact levels above the initial desktop (the deepest possible chain).
pub const LEVELS: usize = 10;
/// Distinct artifacts per level and group.
pub const SLOTS: usize = 2;
/// Parameter sets per subtask.
pub const PARAMS: usize = 3;

const CATEGORIES_TOML: &str = include_str!("../../resources/categories.toml");
const CAPABILITIES_TOML: &str = include_str!("../../resources/capabilities.toml");

/// A generated pool: catalogue, subtasks and the initial desktop.
#[derive(Debug, Clone)]
pub struct SyntheticPool {
    pub catalog: Catalog,
    pub subtasks: Vec<Subtask>,
    pub initial: BTreeSet<Resource>,
}

/// The shipped categories, scenarios and capabilities with the synthetic kinds.
///
/// # Errors
/// Only if the embedded catalogue files do not parse (a build defect).
pub fn synthetic_catalog() -> Result<Catalog, CatalogError> {
    #[derive(Deserialize)]
    struct Cats {
        categories: Vec<String>,
        scenarios: Vec<Scenario>,
    }
    #[derive(Deserialize)]
    struct Caps {
        capabilities: Vec<Capability>,
    }
    let cats: Cats = parse_toml(Path::new("resources/categories.toml"), CATEGORIES_TOML)?;
    let caps: Caps = parse_toml(Path::new("resources/capabilities.toml"), CAPABILITIES_TOML)?;
    let mut kinds = BTreeMap::new();
    for level in 0..=LEVELS {
        kinds.insert(
            format!("syn_l{level}"),
            KindSpec {
                description: format!("a synthetic artifact of level {level}"),
                parameter: true,
                file_kinds: vec![],
                directory: false,
                phrase: None,
                phrase_in: Default::default(),
                holder: None,
                keeps_props: None,
                machine_text: false,
                wraps: false,
                typed: false,
                implied: false,
                rendered_by: vec![],
                print: false,
                tracker: false,
                setting: false,
                sends: false,
                inserted_as: None,
                pasted: None,
                linked: false,
                quoted: false,
            },
        );
    }
    Ok(Catalog {
        kinds,
        categories: cats.categories,
        scenarios: cats.scenarios,
        capabilities: caps.capabilities,
        topics: Default::default(),
        shows: Default::default(),
        incidental: Default::default(),
    })
}

/// Generates `subtasks` subtasks over `apps` applications (named `app-00`, ...; app
/// `i` is in category `i mod 12`), deterministically from `seed`.
///
/// # Errors
/// Only if the embedded catalogue files do not parse.
pub fn synthetic_pool(
    subtasks: usize,
    apps: usize,
    seed: u64,
) -> Result<SyntheticPool, CatalogError> {
    let catalog = synthetic_catalog()?;
    let ncat = catalog.categories.len().max(1);
    let apps = apps.max(1);
    let app_cat = |a: usize| a % ncat;
    let mut by_cat: Vec<Vec<usize>> = vec![Vec::new(); ncat];
    for a in 0..apps {
        by_cat[app_cat(a)].push(a);
    }
    let cats_with_apps: Vec<usize> = (0..ncat).filter(|&c| !by_cat[c].is_empty()).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(subtasks);
    let mut initial = BTreeSet::new();
    let groups = subtasks.div_ceil(GROUP_SIZE);
    let artifact = |g: usize, level: usize, slot: usize| format!("/syn/g{g:05}/l{level}/s{slot}");
    for g in 0..groups {
        for slot in 0..SLOTS {
            initial.insert(Resource::new("syn_l0", Some(artifact(g, 0, slot))));
        }
        let home = [
            cats_with_apps[rng.random_range(0..cats_with_apps.len())],
            cats_with_apps[rng.random_range(0..cats_with_apps.len())],
        ];
        let size = GROUP_SIZE.min(subtasks - g * GROUP_SIZE);
        for j in 0..size {
            let level = 1 + j % LEVELS;
            let app = if rng.random_bool(0.6) {
                let c = home[rng.random_range(0..2)];
                by_cat[c][rng.random_range(0..by_cat[c].len())]
            } else {
                rng.random_range(0..apps)
            };
            let app_name = format!("app-{app:02}");
            let category = catalog.categories.get(app_cat(app)).cloned();
            let in_kind = format!("syn_l{}", level - 1);
            let out_kind = format!("syn_l{level}");
            let extra = (level >= 2 && rng.random_bool(0.3)).then(|| format!("syn_l{}", level - 2));
            let mut inputs = vec![in_kind.clone()];
            let mut template = format!("In {app_name}, turn '{{{in_kind}}}'");
            if let Some(k) = &extra {
                inputs.push(k.clone());
                template.push_str(&format!(" and '{{{k}}}'"));
            }
            template.push_str(&format!(" into '{{{out_kind}}}'"));
            let mut params = Vec::with_capacity(PARAMS);
            for _ in 0..PARAMS {
                let mut p = ParameterSet::new();
                p.insert(
                    in_kind.clone(),
                    artifact(g, level - 1, rng.random_range(0..SLOTS)),
                );
                p.insert(
                    out_kind.clone(),
                    artifact(g, level, rng.random_range(0..SLOTS)),
                );
                if let Some(k) = &extra {
                    p.insert(
                        k.clone(),
                        artifact(g, level - 2, rng.random_range(0..SLOTS)),
                    );
                }
                if !params.contains(&p) {
                    params.push(p);
                }
            }
            out.push(Subtask {
                id: SubtaskId(format!("syn-{g:05}-{j:03}")),
                instruction_template: template,
                application: app_name,
                category,
                os: "Linux".into(),
                available_parameters: params,
                input_resources: inputs,
                output_resources: vec![out_kind],
                evaluation: None,
                trajectories: vec![],
                provenance: Some(Provenance {
                    backend: "synthetic".into(),
                    ..Provenance::default()
                }),
            });
        }
    }
    Ok(SyntheticPool {
        catalog,
        subtasks: out,
        initial,
    })
}

/// What to measure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerfConfig {
    pub subtasks: usize,
    pub apps: usize,
    pub tasks: usize,
    pub seed: u64,
    /// Fix every task's size (nodes); other dimensions are then free.
    pub nodes: Option<usize>,
    pub profile: Profile,
    pub max_orders: usize,
    /// Also build every task's full [`crate::model::Task`] (strings) and drop it.
    pub materialize: bool,
}

impl Default for PerfConfig {
    fn default() -> Self {
        PerfConfig {
            subtasks: 255,
            apps: 49,
            tasks: 36_076,
            seed: 1,
            nodes: None,
            profile: Profile::Omnibench,
            max_orders: crate::graph::spec::DEFAULT_MAX_ORDERS,
            materialize: false,
        }
    }
}

/// Figures of one benchmark run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerfReport {
    pub config: PerfConfig,
    pub threads: usize,
    pub instances: usize,
    pub scopes: usize,
    pub made: usize,
    pub attempts: usize,
    pub duplicates: usize,
    /// Generating the pool and building the dependency relation.
    pub pool_secs: f64,
    /// Composing (sampling, measures, exact topo_count, orders, CS_max).
    pub compose_secs: f64,
    pub wall_secs: f64,
    pub tasks_per_sec: f64,
    /// Peak resident memory of the process (`VmHWM`), if readable.
    pub peak_rss_mb: Option<f64>,
    pub mean_nodes: f64,
    pub orders_listed: u64,
    pub truncated_tasks: usize,
    /// Tasks per level (easy, medium, hard) of each dimension, in
    /// [`Dimension::ALL`] order.
    pub levels: [[usize; 3]; 5],
    pub shortfall: Option<String>,
}

impl std::fmt::Display for PerfReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "pool: {} subtasks over {} apps -> {} instances in {} scopes ({:.3} s)",
            self.config.subtasks, self.config.apps, self.instances, self.scopes, self.pool_secs
        )?;
        writeln!(
            f,
            "composed {} of {} tasks ({} attempts, {} duplicates) in {:.3} s on {} threads: {:.0} tasks/s",
            self.made,
            self.config.tasks,
            self.attempts,
            self.duplicates,
            self.compose_secs,
            self.threads,
            self.tasks_per_sec
        )?;
        writeln!(
            f,
            "mean nodes {:.2}, orders listed {}, tasks over the {}-order cap {}",
            self.mean_nodes, self.orders_listed, self.config.max_orders, self.truncated_tasks
        )?;
        for (d, row) in Dimension::ALL.iter().zip(&self.levels) {
            let total = row.iter().sum::<usize>().max(1) as f64;
            writeln!(
                f,
                "  {:<12} easy {:5.1}%  medium {:5.1}%  hard {:5.1}%",
                d.as_str(),
                100.0 * row[0] as f64 / total,
                100.0 * row[1] as f64 / total,
                100.0 * row[2] as f64 / total
            )?;
        }
        write!(f, "wall {:.3} s, peak RSS ", self.wall_secs)?;
        match self.peak_rss_mb {
            Some(mb) => write!(f, "{mb:.1} MB")?,
            None => write!(f, "unknown")?,
        }
        if let Some(s) = &self.shortfall {
            write!(f, "\nshortfall: {s}")?;
        }
        Ok(())
    }
}

/// Why a benchmark could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PerfError {
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error(transparent)]
    Pool(#[from] PoolError),
    #[error(transparent)]
    Compose(#[from] ComposeError),
}

/// The benchmark: `tasks` tasks with the `omnibench` profile from a synthetic
/// pool of `subtasks` subtasks over `apps` applications, with exact `topo_count`,
/// orders up to 1,000 and exact `CS_max` for every task. Runs on the current rayon
/// pool.
///
/// # Errors
/// See [`PerfError`].
pub fn perf_compose(
    subtasks: usize,
    apps: usize,
    tasks: usize,
    seed: u64,
) -> Result<PerfReport, PerfError> {
    perf_compose_with(&PerfConfig {
        subtasks,
        apps,
        tasks,
        seed,
        ..PerfConfig::default()
    })
}

/// [`perf_compose`] with every knob.
///
/// # Errors
/// See [`PerfError`].
pub fn perf_compose_with(cfg: &PerfConfig) -> Result<PerfReport, PerfError> {
    let start = Instant::now();
    let syn = synthetic_pool(cfg.subtasks, cfg.apps, cfg.seed)?;
    let pool = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial)?;
    let scopes = pool.components();
    let pool_secs = start.elapsed().as_secs_f64();

    let mut spec = ComposeSpec {
        count: cfg.tasks,
        profile: cfg.profile,
        max_orders: cfg.max_orders,
        seed: cfg.seed,
        ..ComposeSpec::default()
    };
    if let Some(n) = cfg.nodes {
        spec.targets
            .insert(Dimension::Instruction, Target::Range { min: n, max: n });
        spec.max_nodes = n.max(DEFAULT_MAX_NODES);
        spec.min_nodes = spec.min_nodes.min(n);
        spec.profile = Profile::Free;
    }
    let t0 = Instant::now();
    let mut nodes = 0usize;
    let mut orders = 0u64;
    let mut truncated = 0usize;
    let mut levels = [[0usize; 3]; 5];
    let summary = compose_with(&pool, &scopes, &spec, |t| {
        nodes += t.instances.len();
        orders += t.orders.count() as u64;
        truncated += usize::from(t.orders.truncated());
        for (row, d) in levels.iter_mut().zip(Dimension::ALL) {
            row[t.complexity.levels.get(d) as usize] += 1;
        }
        if cfg.materialize {
            let task = t.to_task(&pool, &spec);
            std::hint::black_box(&task);
        }
    })?;
    let compose_secs = t0.elapsed().as_secs_f64();
    let wall_secs = start.elapsed().as_secs_f64();
    Ok(PerfReport {
        config: cfg.clone(),
        threads: rayon::current_num_threads(),
        instances: pool.len(),
        scopes: scopes.len(),
        made: summary.made,
        attempts: summary.attempts,
        duplicates: summary.duplicates,
        pool_secs,
        compose_secs,
        wall_secs,
        tasks_per_sec: summary.made as f64 / compose_secs.max(1e-9),
        peak_rss_mb: peak_rss_mb(),
        mean_nodes: nodes as f64 / summary.made.max(1) as f64,
        orders_listed: orders,
        truncated_tasks: truncated,
        levels,
        shortfall: summary.shortfall.map(|s| s.constraint),
    })
}

/// Peak resident set size of this process in MB (`VmHWM`), Linux only.
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::validate_subtask;

    #[test]
    fn synthetic_pool_is_valid_and_deterministic() {
        let a = synthetic_pool(100, 20, 3).unwrap();
        let b = synthetic_pool(100, 20, 3).unwrap();
        assert_eq!(a.subtasks, b.subtasks);
        assert_eq!(a.subtasks.len(), 100);
        assert_eq!(a.catalog.capabilities.len(), 10);
        for s in &a.subtasks {
            validate_subtask(&a.catalog, s).unwrap();
        }
        let pool = Pool::new(&a.catalog, &a.subtasks, &a.initial).unwrap();
        let placeable = (0..pool.len()).filter(|&i| pool.is_placeable(i)).count();
        assert!(
            placeable * 10 >= pool.len() * 8,
            "{placeable} of {}",
            pool.len()
        );
        let scopes = pool.components();
        assert!(scopes.len() >= 4, "one component per group");
    }
}
