//! `synth compose`: composes DAG tasks of controlled complexity from the verified
//! subtask pool and stores them as a new dataset version.
//!
//! An edge A→B exists when an output resource of A is an input resource of B (the
//! graph engine, [`crate::graph`], owns the rules). This stage reads the verified
//! subtasks and the initial desktop, asks the engine for tasks, stores them as they
//! come (in batches, one transaction) as a labelled dataset version, and rewrites
//! `generated/tasks.jsonl` with every stored task, copied from the stored JSON. No
//! task is held in memory longer than its batch, so peak memory does not grow with
//! the count. No model calls happen here.
//!
//! Composing again with the same specification on the same pool is a no-op that
//! reports the existing version; a different specification (a harder profile, other
//! levels, another seed) adds a new version and leaves earlier ones untouched.
//!
//! Tasks are composed inside intent groups (OmniBench B.3): each accepted intent of
//! `synth intents` is a scope (its subtasks' instances) and every task carries its
//! intent as `task_intent`. Without stored intents the stage refuses and says to run
//! `synth intents`; `--no-intents` composes over the pool's weakly connected
//! components instead (labelled by their applications). The intents used are part
//! of the spec's hash, so new intents make a new dataset version.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::StageContext;
use crate::graph::marginals::{self, Drift, Marginals};
use crate::graph::{self, ComposeSpec, Profile, Scope, Shortfall, Target};
use crate::model::{Dimension, SubtaskStatus};
use crate::resources;
use crate::store::intents::IntentStatus;
use crate::store::{RunStatus, StoreError};

/// Flags of `synth compose` (`Default`: nothing set, so config and built-ins apply).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ComposeArgs {
    /// How many tasks to make.
    #[arg(long, short = 'n')]
    pub count: Option<usize>,
    /// Level distribution for dimensions without an explicit target:
    /// omnibench (OmniBench figure 3), uniform, or free (unconstrained).
    #[arg(long)]
    pub profile: Option<Profile>,
    /// A capability preset from resources/capabilities.toml (e.g. parallel_planning).
    #[arg(long, value_name = "NAME")]
    pub capability: Option<String>,
    /// Dependency complexity (edges): easy, medium, hard, any, or a range like 2..5.
    #[arg(long, value_name = "LEVEL")]
    pub dependency: Option<Target>,
    /// Instruction complexity (nodes): easy, medium, hard, any, or a range.
    #[arg(long, value_name = "LEVEL")]
    pub instruction: Option<Target>,
    /// Knowledge complexity (application categories): easy, medium, hard, any, or a range.
    #[arg(long, value_name = "LEVEL")]
    pub knowledge: Option<Target>,
    /// Hierarchy complexity (depth, nodes on the longest path): level or range.
    #[arg(long, value_name = "LEVEL")]
    pub hierarchy: Option<Target>,
    /// Branch complexity (width, the largest set of independent nodes): level or range.
    #[arg(long, value_name = "LEVEL")]
    pub branch: Option<Target>,
    /// Smallest task, in nodes.
    #[arg(long, value_name = "N")]
    pub min_nodes: Option<usize>,
    /// Largest task, in nodes (at most 20).
    #[arg(long, value_name = "N")]
    pub max_nodes: Option<usize>,
    /// Cap on the topological orders listed per task (topo_count stays exact).
    #[arg(long, value_name = "N")]
    pub max_orders: Option<usize>,
    /// A label for the new dataset version (default: derived from the spec).
    #[arg(long)]
    pub label: Option<String>,
    /// Where to write every stored task as JSONL (default generated/tasks.jsonl).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Compose over the pool's connected components instead of the stored intents.
    #[arg(long)]
    pub no_intents: bool,
    /// Compose nothing: print which level combinations of the request are
    /// impossible, which the pool is short of, and the expected distribution.
    #[arg(long)]
    pub plan: bool,
    /// Count the nodes of the tasks already in the store toward the cap of 5 %
    /// of nodes per subtask, also for a request with level targets or a
    /// capability (`synth run` composes its top-ups so).
    #[arg(long)]
    pub balance_with_store: bool,
    /// Let slots that ask for width, five or more nodes or fewer edges than
    /// nodes add independent pieces of work of the same topic ("there are three
    /// separate things to do"); needed for the capabilities built on such tasks.
    #[arg(long)]
    pub side_work: bool,
    /// Start every task with a subtask of this application (as `synth stats`
    /// names it, e.g. Photos): reaches an application the rest left out.
    #[arg(long, value_name = "NAME")]
    pub application: Option<String>,
}

/// `[compose]` in synth.toml: defaults for the flags above.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComposeDefaults {
    pub count: Option<usize>,
    pub profile: Option<Profile>,
    pub max_nodes: Option<usize>,
    pub min_nodes: Option<usize>,
    pub max_orders: Option<usize>,
}

/// Errors of the compose stage.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ComposeStageError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Catalog(#[from] resources::CatalogError),
    #[error("the subtask pool cannot be instantiated")]
    Pool(#[from] graph::PoolError),
    #[error("cannot read the application specs")]
    Apps(#[from] crate::env::EnvError),
    #[error("cannot compose")]
    Compose(#[from] graph::ComposeError),
    #[error("the store holds no verified subtasks: import a pool first (synth pool import subtask_pool/*.jsonl) or run explore and verify")]
    EmptyPool,
    #[error("the store holds no intents: run `synth intents` first, or compose over the pool's components with --no-intents")]
    NoIntents,
    #[error("`synth intents` accepted none of the {rejected} intents it proposed ({reasons}); compose over the pool's components with --no-intents, or plan again with another planner")]
    NoneAccepted { rejected: usize, reasons: String },
    #[error("none of the {intents} accepted intents holds a part that can yield a task of {min_nodes} or more nodes (a first step with every input on the initial desktop and a step that uses its results); try --min-nodes 1, or compose over the pool's components with --no-intents")]
    NoScopes { intents: usize, min_nodes: usize },
    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What `synth compose` did.
#[derive(Debug, Clone, Serialize)]
pub struct ComposeReport {
    pub version: u32,
    pub label: String,
    /// `false` when the same spec had been composed before (nothing new was made).
    pub new_version: bool,
    pub asked: usize,
    pub made: usize,
    pub already_present: usize,
    pub attempts: usize,
    pub shortfall: Option<Shortfall>,
    pub tasks_file: PathBuf,
    pub total_tasks: usize,
    /// Scopes composed in: the connected parts of the intents' groups, or the
    /// pool's components with `--no-intents`.
    pub scopes: usize,
    /// How many accepted intents the scopes came from (`None` with `--no-intents`).
    pub intents: Option<usize>,
    /// Levels whose share among the tasks made is more than
    /// [`marginals::TOLERANCE_POINTS`] from the profile's (stored with the version).
    pub drift: Vec<Drift>,
    pub seconds: f64,
}

impl fmt::Display for ComposeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.new_version {
            write!(
                f,
                "composed {} of {} tasks as dataset version {} '{}' in {:.2}s ({} attempts",
                self.made, self.asked, self.version, self.label, self.seconds, self.attempts
            )?;
            if self.already_present > 0 {
                write!(
                    f,
                    ", {} already in an earlier version",
                    self.already_present
                )?;
            }
            match self.intents {
                Some(n) => writeln!(f, "; {} scopes from {n} intents)", self.scopes)?,
                None => writeln!(f, "; {} components, no intents)", self.scopes)?,
            }
        } else {
            writeln!(
                f,
                "this spec was composed before as dataset version {} '{}' ({} tasks); nothing new to do",
                self.version, self.label, self.made
            )?;
        }
        if let Some(s) = &self.shortfall {
            if self.new_version {
                writeln!(
                    f,
                    "short: made {} of {} ({} duplicates dropped); ran dry: {}",
                    s.made, s.requested, s.duplicates, s.constraint
                )?;
            } else {
                writeln!(
                    f,
                    "short: made {} of {} when composed; ran dry: {}",
                    s.made, s.requested, s.constraint
                )?;
            }
        }
        if !self.drift.is_empty() {
            writeln!(f, "{}", drift_text(&self.drift))?;
        }
        write!(
            f,
            "{} tasks in {}",
            self.total_tasks,
            self.tasks_file.display()
        )
    }
}

impl ComposeArgs {
    /// The engine's spec from flags, then `[compose]` defaults, then built-ins.
    pub fn to_spec(&self, defaults: &ComposeDefaults, seed: u64) -> ComposeSpec {
        let mut spec = ComposeSpec {
            seed,
            ..ComposeSpec::default()
        };
        if let Some(c) = self.count.or(defaults.count) {
            spec.count = c;
        }
        if let Some(p) = self.profile.or(defaults.profile) {
            spec.profile = p;
        }
        if let Some(n) = self.max_nodes.or(defaults.max_nodes) {
            spec.max_nodes = n;
        }
        if let Some(n) = self.min_nodes.or(defaults.min_nodes) {
            spec.min_nodes = n;
        }
        if let Some(n) = self.max_orders.or(defaults.max_orders) {
            spec.max_orders = n;
        }
        spec.capability = self.capability.clone();
        spec.side_work = self.side_work;
        spec.application = self.application.clone();
        for (d, t) in [
            (Dimension::Dependency, self.dependency),
            (Dimension::Instruction, self.instruction),
            (Dimension::Knowledge, self.knowledge),
            (Dimension::Hierarchy, self.hierarchy),
            (Dimension::Branch, self.branch),
        ] {
            if let Some(t) = t {
                spec.targets.insert(d, t);
            }
        }
        spec
    }
}

/// A default label: the profile and the explicit targets, e.g.
/// `omnibench branch=hard dependency=hard`.
fn default_label(spec: &ComposeSpec) -> String {
    let mut parts = vec![spec.profile.to_string()];
    if let Some(c) = &spec.capability {
        parts.push(format!("capability={c}"));
    }
    for (d, t) in &spec.targets {
        parts.push(format!("{d}={t}"));
    }
    if spec.side_work {
        parts.push("side-work".to_string());
    }
    if let Some(a) = &spec.application {
        parts.push(format!("application={a}"));
    }
    parts.push(format!("seed={}", spec.seed));
    parts.join(" ")
}

/// Probe tasks per level combination for `--plan`.
pub const PLAN_PROBE: usize = 24;

/// Runs `synth compose --plan`: the request's plan on the current pool and
/// scopes (see [`graph::plan`]); nothing is stored.
///
/// # Errors
/// As [`run`] up to composing: no pool, no usable intents, a bad request.
pub fn plan(
    args: &ComposeArgs,
    defaults: &ComposeDefaults,
    cx: &StageContext<'_>,
) -> Result<graph::plan::CompositionPlan, ComposeStageError> {
    let subtasks = cx.store.subtasks(SubtaskStatus::Verified)?;
    if subtasks.is_empty() {
        return Err(ComposeStageError::EmptyPool);
    }
    let initial = resources::initial_resources(&cx.workspace, cx.catalog)?;
    let pool = pool_with_edits(cx, &subtasks, &initial)?;
    let spec = args.to_spec(defaults, cx.seed);
    let scopes: Vec<Scope> = if args.no_intents {
        pool.components()
            .iter()
            .flat_map(|c| pool.topic_parts(c))
            .collect()
    } else {
        let intents = cx.store.intents(Some(IntentStatus::Accepted))?;
        let scopes = super::intents::intent_scopes(&pool, &intents, spec.min_nodes);
        if scopes.is_empty() {
            return Err(no_scopes_error(cx, intents.len(), spec.min_nodes)?);
        }
        scopes
    };
    let threads = rayon::ThreadPoolBuilder::new()
        .num_threads(cx.jobs.max(1))
        .build()
        .expect("a rayon pool with at least one thread");
    Ok(threads.install(|| graph::plan::plan_composition(&pool, &scopes, &spec, PLAN_PROBE))?)
}

/// Runs `synth compose`.
pub fn run(
    args: &ComposeArgs,
    defaults: &ComposeDefaults,
    cx: &StageContext<'_>,
) -> Result<ComposeReport, ComposeStageError> {
    let started = std::time::Instant::now();
    let subtasks = cx.store.subtasks(SubtaskStatus::Verified)?;
    if subtasks.is_empty() {
        return Err(ComposeStageError::EmptyPool);
    }
    let initial = resources::initial_resources(&cx.workspace, cx.catalog)?;
    let pool = pool_with_edits(cx, &subtasks, &initial)?;
    let mut spec = args.to_spec(defaults, cx.seed);
    let (scopes, intent_ids): (Vec<Scope>, Option<Vec<String>>) = if args.no_intents {
        let scopes = pool
            .components()
            .iter()
            .flat_map(|c| pool.topic_parts(c))
            .collect();
        (scopes, None)
    } else {
        let intents = cx.store.intents(Some(IntentStatus::Accepted))?;
        let scopes = super::intents::intent_scopes(&pool, &intents, spec.min_nodes);
        if scopes.is_empty() {
            return Err(no_scopes_error(cx, intents.len(), spec.min_nodes)?);
        }
        let mut ids: Vec<String> = intents.iter().map(|i| i.id.clone()).collect();
        ids.sort();
        (scopes, Some(ids))
    };

    // The version is not part of what was asked: hash the spec without it, together
    // with the pool it ran on, so the same request on the same pool is recognised.
    let spec_json = serde_json::to_value(&spec).expect("spec serializes");
    let mut hasher = Sha256::new();
    hasher.update(spec_json.to_string());
    for s in &subtasks {
        hasher.update(s.id.0.as_bytes());
        hasher.update(serde_json::to_string(&s.available_parameters).unwrap_or_default());
    }
    match &intent_ids {
        Some(ids) => {
            hasher.update(b"intents:");
            for id in ids {
                hasher.update(id.as_bytes());
                hasher.update(b";");
            }
        }
        None => hasher.update(b"no-intents"),
    }
    if args.balance_with_store {
        hasher.update(b"balanced");
    }
    let spec_hash = format!("{:x}", hasher.finalize());
    let out_path = args
        .out
        .clone()
        .unwrap_or_else(|| cx.workspace.join("generated").join("tasks.jsonl"));

    if let Some(existing) = cx.store.dataset_by_spec(&spec_hash)? {
        let total = write_tasks_file(cx, &out_path)?;
        // A spec composed short before is short again: the re-run reports the same
        // shortfall (and `synth run` the same exit code) instead of success.
        let shortfall = existing.shortfall.clone().map(|constraint| Shortfall {
            requested: existing.asked,
            made: existing.made,
            attempts: 0,
            duplicates: 0,
            constraint,
            targets: Vec::new(),
        });
        return Ok(ComposeReport {
            version: existing.version,
            label: existing.label,
            new_version: false,
            asked: existing.asked,
            made: existing.made,
            already_present: 0,
            attempts: 0,
            shortfall,
            tasks_file: out_path,
            total_tasks: total,
            scopes: scopes.len(),
            intents: intent_ids.as_ref().map(Vec::len),
            drift: Vec::new(),
            seconds: started.elapsed().as_secs_f64(),
        });
    }

    spec.version = cx.store.next_dataset_version()?;
    let run = cx.store.begin_run("compose", &spec_json)?;
    let label = args.label.clone().unwrap_or_else(|| default_label(&spec));
    let bar = cx.progress(spec.count as u64, "compose");
    let version = NewVersion {
        spec_hash: &spec_hash,
        spec_json: &spec_json,
        label: &label,
        run: Some(run),
    };
    let prior = if args.balance_with_store {
        stored_nodes(cx, &pool)?
    } else {
        graph::Prior::default()
    };
    let (added, summary, drift) = compose_into_store(
        cx.store,
        &pool,
        &scopes,
        &spec,
        &version,
        &prior,
        cx.jobs,
        || bar.inc(1),
    )?;
    bar.finish_and_clear();
    cx.store.finish_run(
        run,
        if summary.shortfall.is_some() {
            RunStatus::Short
        } else {
            RunStatus::Ok
        },
        &serde_json::json!({
            "version": added.version, "made": added.inserted, "attempts": summary.attempts,
            "drift": drift,
        }),
    )?;
    let total = write_tasks_file(cx, &out_path)?;
    Ok(ComposeReport {
        version: added.version,
        label,
        new_version: true,
        asked: spec.count,
        made: added.inserted,
        already_present: added.already_present,
        attempts: summary.attempts,
        shortfall: summary.shortfall,
        tasks_file: out_path,
        total_tasks: total,
        scopes: scopes.len(),
        intents: intent_ids.as_ref().map(Vec::len),
        drift,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The drift in words, with its reason.
fn drift_text(drift: &[Drift]) -> String {
    format!(
        "off the profile by more than {} points: {}; the pool could not supply the profile's level combinations in these shares (a slot that fails {} times draws another combination)",
        marginals::TOLERANCE_POINTS,
        drift
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        graph::compose::RESAMPLE_AFTER
    )
}

/// How a new dataset version is recorded (see [`compose_into_store`]).
pub struct NewVersion<'a> {
    pub spec_hash: &'a str,
    pub spec_json: &'a serde_json::Value,
    pub label: &'a str,
    pub run: Option<i64>,
}

/// Composes `spec` over `scopes` on `jobs` threads and stores the tasks as
/// dataset version `spec.version` as they are made (in batches, one
/// transaction), calling `progress` once per task: memory does not grow with the
/// count. The first store error stops storing and is returned once composition
/// ends. The levels made are compared with the profile ([`marginals::drift`]);
/// the drift, like a shortfall, is stored with the version and returned. The
/// stage's core, shared with `synth perf compose`.
///
/// # Errors
/// The composer's refusals and store errors (the version is then rolled back).
#[allow(clippy::too_many_arguments)]
pub fn compose_into_store(
    store: &crate::store::Store,
    pool: &graph::Pool<'_>,
    scopes: &[Scope],
    spec: &ComposeSpec,
    version: &NewVersion<'_>,
    prior: &graph::Prior,
    jobs: usize,
    progress: impl Fn() + Sync,
) -> Result<
    (
        crate::store::tasks::AddedDataset,
        graph::ComposeSummary,
        Vec<Drift>,
    ),
    ComposeStageError,
> {
    let threads = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .expect("a rayon pool with at least one thread");
    let mut writer = store.begin_dataset(
        spec.version,
        version.spec_hash,
        version.spec_json,
        version.label,
        spec.count,
        version.run,
    )?;
    let mut store_error: Option<StoreError> = None;
    let mut made = Marginals::default();
    let summary = threads.install(|| {
        graph::compose_balanced(pool, scopes, spec, prior, |t| {
            made.add(&t.complexity.levels);
            if store_error.is_none() {
                if let Err(e) = writer.push(&t.to_task(pool, spec)) {
                    store_error = Some(e);
                }
            }
            progress();
        })
    })?;
    if let Some(e) = store_error {
        return Err(e.into());
    }
    let shares = marginals::profile_shares(spec, pool.catalog());
    let drift = marginals::drift(&made, &shares, marginals::TOLERANCE_POINTS);
    let mut notes: Vec<String> = summary
        .shortfall
        .iter()
        .map(|s| s.constraint.clone())
        .collect();
    if !drift.is_empty() {
        notes.push(drift_text(&drift));
    }
    let added = writer.finish((!notes.is_empty()).then(|| notes.join("; ")).as_deref())?;
    Ok((added, summary, drift))
}

/// The stored tasks as [`graph::compose_balanced`] counts them: the subtask
/// (index into `pool.subtasks()`) of every node, and the desktop files each
/// task starts from and its shape. Nodes of subtasks no longer in the pool are left out, and
/// so is the start of a task with such a node.
fn stored_nodes(cx: &StageContext<'_>, pool: &graph::Pool<'_>) -> Result<graph::Prior, StoreError> {
    let index: std::collections::HashMap<&str, usize> = pool
        .subtasks()
        .iter()
        .enumerate()
        .map(|(i, s)| (s.id.0.as_str(), i))
        .collect();
    let mut prior = graph::Prior::default();
    for t in cx.store.tasks(None)? {
        let nodes = t.task.nodes.values();
        prior.nodes.extend(
            nodes
                .clone()
                .filter_map(|n| index.get(n.subtask_id.0.as_str()).copied()),
        );
        let instances: Option<Vec<u32>> = nodes
            .map(|n| {
                pool.find(&n.subtask_id, n.parameter_index)
                    .map(|i| i as u32)
            })
            .collect();
        if let Some(instances) = instances {
            prior.starts.push(graph::start_key(pool, &instances));
            prior.shapes.push(graph::shape_key(pool, &instances));
        }
    }
    Ok(prior)
}

/// Why no intent scope is usable, following what the intents stage did: it never
/// ran (or stored nothing), it rejected everything it proposed (with the reasons
/// stored), or it accepted intents none of whose parts can yield a task.
fn no_scopes_error(
    cx: &StageContext<'_>,
    accepted: usize,
    min_nodes: usize,
) -> Result<ComposeStageError, StoreError> {
    if accepted > 0 {
        return Ok(ComposeStageError::NoScopes {
            intents: accepted,
            min_nodes,
        });
    }
    let all = cx.store.intents(None)?;
    if all.is_empty() {
        return Ok(ComposeStageError::NoIntents);
    }
    let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
    for i in &all {
        let reason = i.reason.as_deref().unwrap_or("no reason stored");
        *counts
            .entry(reason.split(':').next().unwrap_or(reason).trim())
            .or_default() += 1;
    }
    let mut counts: Vec<(&str, usize)> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let reasons = counts
        .iter()
        .map(|(r, n)| format!("{n}: {r}"))
        .collect::<Vec<_>>()
        .join("; ");
    Ok(ComposeStageError::NoneAccepted {
        rejected: all.len(),
        reasons,
    })
}

/// The pool of `subtasks` with the file edits of `resources/apps/*.toml` marked
/// ([`crate::env::spec::edits_its_input`]), so that composition and
/// [`graph::task_clashes`] know which nodes change the files they open.
///
/// # Errors
/// A pool that cannot be instantiated, or application specs that do not parse.
pub fn pool_with_edits<'p>(
    cx: &'p StageContext<'_>,
    subtasks: &'p [crate::model::Subtask],
    initial: &std::collections::BTreeSet<resources::Resource>,
) -> Result<graph::Pool<'p>, ComposeStageError> {
    let mut pool = graph::Pool::new(cx.catalog, subtasks, initial)?;
    let apps = crate::env::spec::load_apps(&cx.workspace)?;
    pool.mark_edited_inputs(|s| crate::env::spec::edits_its_input(&apps, s));
    pool.mark_contents(|s| crate::env::spec::content_of(&apps, s));
    Ok(pool)
}

/// Writes every stored task, one per line, through a temporary file and a rename
/// (also used by `synth validate` so validated tasks carry their instructions).
/// Lines are the stored JSON bodies, copied as they are (never parsed), one row at
/// a time.
pub fn write_tasks_file(cx: &StageContext<'_>, path: &Path) -> Result<usize, ComposeStageError> {
    write_store_tasks(cx.store, path)
}

/// [`write_tasks_file`] for any store.
pub fn write_store_tasks(
    store: &crate::store::Store,
    path: &Path,
) -> Result<usize, ComposeStageError> {
    let werr = |source| ComposeStageError::Write {
        path: path.to_path_buf(),
        source,
    };
    let written = crate::atomic::try_write_with(path, |w| {
        store
            .each_task_body(|body| {
                w.write_all(body.as_bytes())?;
                w.write_all(b"\n")
            })?
            .map_err(werr)
    })
    .map_err(werr)?;
    written
}
