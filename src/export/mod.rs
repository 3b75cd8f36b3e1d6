//! `synth export`: datasets in the formats other tools load, with screenshots
//! rendered at export time.
//!
//! Owns the export command (its arguments, [`run`]), the dataset it reads from the
//! store ([`Dataset`]), replaying trajectories in fresh desktops of the chosen
//! backend (`--env`) to render or capture one PNG per observation
//! ([`Replayed`]), the OS-MAP automation level of a task ([`os_map_level`]), the
//! counts report ([`ExportReport`]), and one module per format: [`omnibench`],
//! [`sharegpt`], [`openai`], [`qwen`], [`osworld`], [`grounding`], [`idm`],
//! [`critic`]; [`actions`] translates the action space and [`training`] builds
//! the per-step examples the three chat formats share.
//!
//! **What is exported.** Tasks with status `validated` that have at least one task
//! trajectory with status `ok`, those trajectories, and the verified subtasks with
//! their trajectories and evaluations. Each task trajectory is replayed from the
//! fresh desktop (opened from [`crate::env::EnvSetup::desktops`], then
//! `reset(&Setup::default())`); a trajectory with a step the desktop refuses is
//! left out and named in the report (its screenshots would not show what its
//! actions claim). Observation `k` of a
//! trajectory is the screen before action `k`; the last one is the final screen,
//! so a trajectory of `n` actions has `n + 1` images
//! (`images/tasks/<trajectory id>/<k>.png`). Boxes and labels of exported actions
//! come from the replay, so they always match the pixels.
//!
//! **Image references** ([`ExportArgs::image_refs`], [`ExportCx::image_ref`]):
//! each format writes them the way its consumer resolves them: relative to the
//! output folder (sharegpt, qwen, omnibench) or to its `images/` folder (grounding,
//! idm, critic: AgentStudio joins `<folder of the jsonl>/images/<path>`), absolute
//! with `--image-paths absolute`, and for openai as data URLs (the default; the
//! `images/` folder is then removed) or URLs under `--image-base-url`.
//!
//! **OS-MAP levels** ([`os_map_level`]): `L1` (reactive executor) when the task is
//! exported with its step-by-step instruction (`--instruction steps`, the task's
//! `low_level_instruction`); otherwise `L4` (global conductor) when the task has a
//! cross-application dependency, i.e. at least one DAG edge `a -> b` whose nodes
//! belong to different applications (a resource made in one application is
//! consumed in another, so the agent must switch context in order); otherwise `L2`
//! (deterministic planner: goal only, one application or independent
//! applications). L3 (perturbed conditions) and L5 are not produced.
//!
//! **Intent** (`--intent`): the task intent is added to every prompt, as in
//! OmniBench's intent tuning (table 9); `--no-intent` (the default) leaves it out.
//!
//! **Determinism.** Records are sorted (tasks and trajectories by id), JSON keys
//! keep a fixed order, PNG encoding is deterministic, and `export.json` (the
//! manifest) holds counts but no times: the same store gives byte-identical files.
//!
//! **Atomic replacement.** An export is built in a staging folder beside the target
//! (`.<name>.partial`) and renamed into place only when complete, manifest
//! included; the previous export stays in place until then (on Linux the two
//! folders are exchanged in one step; elsewhere the previous one is first renamed
//! to `.<name>.old`), then removed. A killed or failed export (a full disk, say)
//! therefore leaves the target as it was, plus leftovers that the next export
//! removes (or, for a previous export left aside, puts back) before it starts.
//! A target that holds a previous export's manifest is replaced; a non-empty folder
//! without one is refused, except for the default folder
//! (`generated/export/<format>`), which synth owns: there such a folder is an
//! export an older synth left unfinished, and it is replaced with a warning.

pub mod actions;
pub mod agentstudio;
pub mod critic;
pub mod grounding;
pub mod idm;
pub mod omnibench;
pub mod openai;
pub mod osworld;
pub mod qwen;
pub mod sharegpt;
pub mod training;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

use crate::env::{ControlInfo, Desktops, EnvError, Environment, Probes, Setup};
use crate::model::{
    Check, ParameterSet, Subtask, SubtaskId, SubtaskStatus, Task, TaskTrajectory, TrajectoryAction,
};
use crate::pipeline::verify::contract::{prepare_start, Instance};
use crate::pipeline::StageContext;
use crate::resources::Catalog;
use crate::store::{Store, StoreError};

pub use actions::ActionSpace;

/// The manifest every export writes (and the mark that lets a later export replace
/// the folder).
pub const MANIFEST: &str = "export.json";

/// Errors of the export.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot load the simulated desktop: {0}")]
    Env(#[from] EnvError),
    #[error("cannot write {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the output folder {0} is not empty and holds no previous export ({MANIFEST}); choose another --out or empty it")]
    OutNotEmpty(PathBuf),
    #[error("cannot start the worker threads")]
    Threads(#[from] rayon::ThreadPoolBuildError),
    #[error("{format}: {reason}")]
    ImageOption {
        format: Format,
        reason: &'static str,
    },
    #[error("cannot load the resource catalog: {0}")]
    Catalog(#[from] crate::resources::CatalogError),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ExportError + '_ {
    move |source| ExportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// The five record types of OmniBench appendix C as JSON files.
    Omnibench,
    /// LLaMA-Factory multimodal ShareGPT (`messages` + `images`, `dataset_info.json`).
    Sharegpt,
    /// OpenAI chat fine-tuning JSONL with `image_url` parts (data URLs by default).
    Openai,
    /// Qwen2-VL style `image` + `conversations`.
    Qwen,
    /// One OSWorld task JSON per task.
    Osworld,
    /// Step instruction + screenshot + box (rows of AgentStudio's GUIGroundingEval).
    Grounding,
    /// Observation before and after + operation (AgentStudio's InverseAction).
    Idm,
    /// Trajectory + success label, negatives are strict prefixes (AgentStudio's
    /// Episode, for its SuccessDetectionEval).
    Critic,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Omnibench => "omnibench",
            Format::Sharegpt => "sharegpt",
            Format::Openai => "openai",
            Format::Qwen => "qwen",
            Format::Osworld => "osworld",
            Format::Grounding => "grounding",
            Format::Idm => "idm",
            Format::Critic => "critic",
        }
    }

    /// Does the format ship screenshots?
    pub fn has_images(self) -> bool {
        !matches!(self, Format::Osworld)
    }

    /// Where the format's relative image paths start.
    pub fn image_root(self) -> ImageRoot {
        match self {
            Format::Grounding | Format::Idm | Format::Critic => ImageRoot::ImagesDir,
            _ => ImageRoot::Out,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which instruction the prompts and task records carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum InstructionLevel {
    /// The high-level goal (`task_instruction`): OS-MAP L2 or L4.
    #[default]
    Goal,
    /// The step-by-step instruction (`low_level_instruction`): OS-MAP L1.
    Steps,
}

/// How image references are written (`--image-paths`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ImagePaths {
    /// Relative to the folder the format's consumer resolves them against: the
    /// output folder (sharegpt, qwen, omnibench) or its `images/` folder
    /// (grounding, idm, critic). The default of every format but openai.
    Relative,
    /// Absolute paths of the image files: the data loads from any working
    /// directory, as long as the export stays where it was written.
    Absolute,
    /// `data:image/png;base64,...` URLs, no image files (openai only, its default).
    DataUrl,
}

impl ImagePaths {
    pub fn as_str(self) -> &'static str {
        match self {
            ImagePaths::Relative => "relative",
            ImagePaths::Absolute => "absolute",
            ImagePaths::DataUrl => "data-url",
        }
    }
}

/// How an export writes image references, once the options are checked
/// ([`ExportArgs::image_refs`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageRefs {
    /// The format ships no images (osworld).
    None,
    Relative,
    Absolute,
    DataUrl,
    /// `<base>/<path under images/>`: the export's `images/` folder is served at
    /// `base` (`--image-base-url`).
    Url(String),
}

impl ImageRefs {
    /// The mode as the manifest names it.
    pub fn as_str(&self) -> &'static str {
        match self {
            ImageRefs::None => "none",
            ImageRefs::Relative => "relative",
            ImageRefs::Absolute => "absolute",
            ImageRefs::DataUrl => "data-url",
            ImageRefs::Url(_) => "url",
        }
    }
}

/// Where a format's relative image paths start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageRoot {
    /// The output folder: paths read `images/tasks/<trajectory>/<k>.png`.
    Out,
    /// The output folder's `images/`: paths read `tasks/<trajectory>/<k>.png`
    /// (AgentStudio's loaders join `<folder of the jsonl>/images/<path>`).
    ImagesDir,
}

/// `synth export` options.
#[derive(Debug, Clone, clap::Args)]
pub struct ExportArgs {
    /// The output format.
    #[arg(long, value_enum)]
    pub format: Format,
    /// Output folder (default: generated/export/<format> in the workspace).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Include the task intent in every prompt (OmniBench's intent tuning).
    #[arg(long, overrides_with = "no_intent")]
    pub intent: bool,
    /// Leave the task intent out of the prompts (the default).
    #[arg(long = "no-intent", overrides_with = "intent")]
    pub no_intent: bool,
    /// The action space of exported actions.
    #[arg(long, value_enum, default_value_t = ActionSpace::Omnibench)]
    pub actions: ActionSpace,
    /// How image references are written: relative (the default; see the README for
    /// the folder each consumer resolves them against), absolute, or data URLs
    /// (openai only, its default).
    #[arg(long, value_enum)]
    pub image_paths: Option<ImagePaths>,
    /// openai: the URL the export's `images/` folder will be served at; image
    /// URLs become `<URL>/tasks/<trajectory>/<k>.png` instead of data URLs.
    #[arg(long, value_name = "URL")]
    pub image_base_url: Option<String>,
    /// The instruction given: the goal (OS-MAP L2/L4) or the steps (L1).
    #[arg(long, value_enum, default_value_t = InstructionLevel::Goal)]
    pub instruction: InstructionLevel,
    /// omnibench: list up to N topological orders per task in `successful_topo`
    /// (the stored ones first, then others spread over all the task's orders;
    /// `topo_count` is exact either way). Default: the orders stored at compose.
    #[arg(long, value_name = "N")]
    pub orders: Option<usize>,
}

impl ExportArgs {
    /// Options for `format` with every default.
    pub fn new(format: Format) -> ExportArgs {
        ExportArgs {
            format,
            out: None,
            intent: false,
            no_intent: false,
            actions: ActionSpace::Omnibench,
            image_paths: None,
            image_base_url: None,
            instruction: InstructionLevel::Goal,
            orders: None,
        }
    }

    /// Is the intent included?
    pub fn with_intent(&self) -> bool {
        self.intent && !self.no_intent
    }

    /// How image references are written, with each format's default: openai
    /// embeds data URLs (OpenAI's fine-tuning accepts only http(s) and data URLs),
    /// the others write paths relative to the folder their consumer resolves
    /// them against.
    ///
    /// # Errors
    /// A combination the format's consumer cannot load: file paths for openai,
    /// data URLs or a base URL for another format, image options for osworld.
    pub fn image_refs(&self) -> Result<ImageRefs, ExportError> {
        let refuse = |reason: &'static str| ExportError::ImageOption {
            format: self.format,
            reason,
        };
        match (self.format, self.image_paths, &self.image_base_url) {
            (Format::Osworld, None, None) => Ok(ImageRefs::None),
            (Format::Osworld, _, _) => Err(refuse("osworld ships no images")),
            (Format::Openai, None | Some(ImagePaths::DataUrl), None) => Ok(ImageRefs::DataUrl),
            (Format::Openai, None, Some(url)) => {
                if url.starts_with("https://") || url.starts_with("http://") {
                    Ok(ImageRefs::Url(url.trim_end_matches('/').to_string()))
                } else {
                    Err(refuse("--image-base-url must be an http(s) URL"))
                }
            }
            (Format::Openai, Some(_), Some(_)) => Err(refuse(
                "--image-base-url and --image-paths exclude each other",
            )),
            (Format::Openai, Some(_), None) => Err(refuse(
                "OpenAI fine-tuning accepts only http(s) URLs and base64 data URLs: use the default (data URLs) or --image-base-url",
            )),
            (_, _, Some(_)) => Err(refuse("--image-base-url is for openai only")),
            (_, Some(ImagePaths::DataUrl), None) => {
                Err(refuse("data URLs are for openai only"))
            }
            (_, None | Some(ImagePaths::Relative), None) => Ok(ImageRefs::Relative),
            (_, Some(ImagePaths::Absolute), None) => Ok(ImageRefs::Absolute),
        }
    }
}

/// The OS-MAP automation level of `task` (see the module doc): `L1` when exported
/// with the step-level instruction, else `L4` for a cross-application dependency,
/// else `L2`.
pub fn os_map_level(task: &Task, step_level: bool) -> &'static str {
    if step_level {
        "L1"
    } else if has_cross_app_dependency(task) {
        "L4"
    } else {
        "L2"
    }
}

/// Does some edge of the task's DAG join nodes of different applications?
pub fn has_cross_app_dependency(task: &Task) -> bool {
    let app = |n: &str| task.nodes.get(n).map(|node| node.application.as_str());
    task.dag.edges.iter().any(|(a, succs)| {
        succs
            .iter()
            .any(|b| matches!((app(a), app(b)), (Some(x), Some(y)) if x != y))
    })
}

/// What an export reads from the store.
#[derive(Debug, Clone, Default)]
pub struct Dataset {
    /// Validated tasks with at least one `ok` trajectory, sorted by task id.
    pub tasks: Vec<Task>,
    /// Their `ok` task trajectories, sorted by trajectory id.
    pub trajectories: Vec<TaskTrajectory>,
    /// The verified subtasks with their evaluations and trajectories.
    pub subtasks: BTreeMap<SubtaskId, Subtask>,
    /// Tasks left out, with the reason.
    pub skipped: Vec<String>,
}

impl Dataset {
    /// Reads the exportable records from the store.
    pub fn load(store: &Store) -> Result<Dataset, ExportError> {
        let subtasks: BTreeMap<SubtaskId, Subtask> = store
            .subtasks(SubtaskStatus::Verified)?
            .into_iter()
            .map(|s| (s.id.clone(), s))
            .collect();
        let mut by_task: BTreeMap<String, Vec<TaskTrajectory>> = BTreeMap::new();
        for t in store.task_trajectories(Some(crate::store::TrajectoryStatus::Ok))? {
            by_task
                .entry(t.trajectory.task_id.0.clone())
                .or_default()
                .push(t.trajectory);
        }
        let mut tasks = Vec::new();
        let mut trajectories = Vec::new();
        let mut skipped = Vec::new();
        for stored in store.tasks(None)? {
            if stored.status != crate::store::TaskStatus::Validated {
                continue;
            }
            let task = stored.task;
            let Some(id) = task.task_id.as_ref().map(|t| t.0.clone()) else {
                continue;
            };
            let Some(trajs) = by_task.remove(&id) else {
                skipped.push(format!("task {id}: no trajectory with status ok"));
                continue;
            };
            if let Some((n, node)) = task
                .nodes
                .iter()
                .find(|(_, node)| !subtasks.contains_key(&node.subtask_id))
            {
                skipped.push(format!(
                    "task {id}: node {n}'s subtask {} is not a verified subtask",
                    node.subtask_id
                ));
                continue;
            }
            tasks.push(task);
            trajectories.extend(trajs);
        }
        tasks.sort_by(|a, b| a.task_id.cmp(&b.task_id));
        trajectories.sort_by(|a, b| a.trajectory_id.cmp(&b.trajectory_id));
        Ok(Dataset {
            tasks,
            trajectories,
            subtasks,
            skipped,
        })
    }

    /// The task of a trajectory.
    pub fn task(&self, task_id: &str) -> Option<&Task> {
        self.tasks
            .iter()
            .find(|t| t.task_id.as_ref().is_some_and(|id| id.0 == task_id))
    }

    /// A node's checks and parameter set, when its subtask has an evaluation.
    pub fn node_checks<'a>(&'a self, task: &'a Task, node: &str) -> Option<NodeChecks<'a>> {
        let n = task.nodes.get(node)?;
        let subtask = self.subtasks.get(&n.subtask_id)?;
        Some(NodeChecks {
            checks: &subtask.evaluation.as_ref()?.checks,
            params: subtask.available_parameters.get(n.parameter_index)?,
        })
    }
}

/// What some formats read from the workspace besides the store and the desktop.
#[derive(Debug, Clone, Default)]
pub struct Tables {
    /// The resource catalog (omnibench: the start desktops of subtask
    /// trajectories).
    pub catalog: Option<Catalog>,
    /// Application name -> OSWorld id (osworld: `related_apps`).
    pub osworld_apps: BTreeMap<String, String>,
}

impl Tables {
    /// Loads what `format` needs from `workspace`.
    pub fn load(format: Format, workspace: &Path) -> Result<Tables, ExportError> {
        let mut t = Tables::default();
        match format {
            Format::Omnibench => t.catalog = Some(Catalog::load(workspace)?),
            Format::Osworld => t.osworld_apps = osworld::load_apps(workspace)?,
            _ => {}
        }
        Ok(t)
    }
}

/// A node's evaluation as the replay needs it.
#[derive(Debug, Clone, Copy)]
pub struct NodeChecks<'a> {
    pub checks: &'a [Check],
    pub params: &'a ParameterSet,
}

/// One replayed step.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayedStep {
    /// Did the desktop accept the action?
    pub ok: bool,
    /// The window title before the action.
    pub window_title: String,
    /// The control the action aimed at, as resolved on the screen before it.
    pub control: Option<ControlInfo>,
    /// The task nodes whose checks first held after this step.
    pub completed: Vec<String>,
}

/// A trajectory replayed in a fresh desktop.
#[derive(Debug)]
pub struct Replayed {
    /// Image paths relative to the output folder: before each action, then the
    /// final screen (empty when the format ships no images).
    pub images: Vec<String>,
    pub steps: Vec<ReplayedStep>,
    /// The window title at the end.
    pub final_title: String,
    /// PNG bytes written.
    pub bytes: u64,
    /// Number of actions after which each task node completed.
    pub completed_at: BTreeMap<String, usize>,
    /// The desktop after the last action, when asked for (osworld).
    pub final_desktop: Option<FinalDesktop>,
}

/// The desktop a replay ended on (what the osworld export checks final states on).
pub struct FinalDesktop(pub Box<dyn Environment + Send>);

impl std::fmt::Debug for FinalDesktop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FinalDesktop({})", self.0.backend().name())
    }
}

impl Replayed {
    /// Did every action replay?
    pub fn all_ok(&self) -> bool {
        self.steps.iter().all(|s| s.ok)
    }
}

/// A filesystem-safe name for a trajectory id (`t1(0)` -> `t1_0`).
pub fn file_stem(id: &str) -> String {
    let mut out: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    while out.ends_with('_') {
        out.pop();
    }
    if out.is_empty() || out.starts_with('.') {
        out.insert(0, '_');
    }
    out
}

/// The parameter set a subtask trajectory instantiates: its `parameter_index`, or
/// for a record without one, the set whose instruction is the trajectory's (the
/// first set when none is).
fn parameter_index(s: &Subtask, t: &crate::model::SubtaskTrajectory) -> usize {
    t.parameter_index.unwrap_or_else(|| {
        (0..s.available_parameters.len())
            .find(|&i| s.instruction(i).as_deref() == Some(t.instruction.as_str()))
            .unwrap_or(0)
    })
}

/// Where a replay starts.
pub enum Start {
    /// A fresh desktop, reset with nothing launched (task trajectories).
    Fresh(Box<dyn Environment + Send>),
    /// A desktop already prepared, as it is (a subtask's start desktop, where its
    /// input resources hold).
    Prepared(Box<dyn Environment + Send>),
}

/// Replays `actions` from `start`, writing a PNG per observation under
/// `out/<images_dir>/` when `images_dir` is given, tracking which task nodes
/// complete (`graph`: the task and its nodes' checks), and keeping the final
/// desktop when `keep_final`.
pub fn replay(
    start: Start,
    actions: &[TrajectoryAction],
    graph: Option<(&Task, &BTreeMap<String, NodeChecks<'_>>)>,
    out: &Path,
    images_dir: Option<&str>,
    keep_final: bool,
) -> Result<Replayed, ExportError> {
    let (mut desk, mut obs) = match start {
        Start::Fresh(mut desk) => {
            let obs = desk.reset(&Setup::default())?;
            (desk, obs)
        }
        Start::Prepared(desk) => {
            let obs = desk.observe()?;
            (desk, obs)
        }
    };
    let mut images = Vec::new();
    let mut bytes = 0u64;
    if let Some(dir) = images_dir {
        let path = out.join(dir);
        std::fs::create_dir_all(&path).map_err(io_err(&path))?;
    }
    let mut write = |k: usize, o: &crate::env::Observation| -> Result<(), ExportError> {
        if let Some(dir) = images_dir {
            let rel = format!("{dir}/{k}.png");
            let png = o.screenshot(false)?;
            let path = out.join(&rel);
            std::fs::write(&path, &png).map_err(io_err(&path))?;
            bytes += png.len() as u64;
            images.push(rel);
        }
        Ok(())
    };
    let mut done: BTreeMap<String, usize> = BTreeMap::new();
    let mut steps = Vec::with_capacity(actions.len());
    for (k, a) in actions.iter().enumerate() {
        write(k, &obs)?;
        let action = a.to_action();
        let control = desk.target_of(&action)?;
        let window_title = obs.window_title.clone();
        let outcome = desk.step(&action)?;
        let completed = match graph {
            Some((task, nodes)) => advance(task, nodes, &mut done, k + 1, desk.probes()),
            None => Vec::new(),
        };
        steps.push(ReplayedStep {
            ok: outcome.ok,
            window_title,
            control,
            completed,
        });
        obs = outcome.observation;
    }
    write(actions.len(), &obs)?;
    Ok(Replayed {
        images,
        steps,
        final_title: obs.window_title.clone(),
        bytes,
        completed_at: done,
        final_desktop: keep_final.then_some(FinalDesktop(desk)),
    })
}

/// The graph evaluator's release rule: a node is checked once all
/// its predecessors completed; a completion releases successors in the same call.
fn advance(
    task: &Task,
    nodes: &BTreeMap<String, NodeChecks<'_>>,
    done: &mut BTreeMap<String, usize>,
    step: usize,
    probes: &dyn Probes,
) -> Vec<String> {
    let mut newly = Vec::new();
    loop {
        let mut changed = false;
        for n in &task.dag.nodes {
            if done.contains_key(n) {
                continue;
            }
            let ready = task
                .dag
                .edges
                .iter()
                .filter(|(_, succ)| succ.contains(n))
                .all(|(p, _)| done.contains_key(p));
            if !ready {
                continue;
            }
            let Some(c) = nodes.get(n) else { continue };
            if crate::env::evaluate(c.checks, c.params, probes).success {
                done.insert(n.clone(), step);
                newly.push(n.clone());
                changed = true;
            }
        }
        if !changed {
            return newly;
        }
    }
}

/// Everything a format writer needs.
pub struct ExportCx<'a> {
    pub args: &'a ExportArgs,
    /// How image references are written (checked options).
    pub image_refs: ImageRefs,
    /// What the format read from the workspace.
    pub tables: &'a Tables,
    /// Where files are written now: the staging folder beside the target.
    pub out: PathBuf,
    /// The output folder the export ends up in, absolute: what absolute
    /// references name.
    pub target: PathBuf,
    pub dataset: &'a Dataset,
    /// Task trajectories that replayed, by trajectory id.
    pub replays: BTreeMap<String, Replayed>,
    /// Subtask trajectories replayed from the fresh desktop (omnibench only).
    pub subtask_replays: BTreeMap<String, Replayed>,
    /// A fresh desktop (reset, nothing launched).
    pub base: &'a dyn Environment,
    pub seed: u64,
}

impl ExportCx<'_> {
    /// The exported task trajectories (those that replayed) with their tasks.
    pub fn trajectories(&self) -> impl Iterator<Item = (&Task, &TaskTrajectory, &Replayed)> {
        self.dataset.trajectories.iter().filter_map(|t| {
            let r = self.replays.get(&t.trajectory_id)?;
            let task = self.dataset.task(&t.task_id.0)?;
            Some((task, t, r))
        })
    }

    /// The exported tasks (at least one trajectory replayed).
    pub fn tasks(&self) -> impl Iterator<Item = &Task> {
        self.dataset.tasks.iter().filter(|task| {
            self.dataset.trajectories.iter().any(|t| {
                task.task_id.as_ref() == Some(&t.task_id)
                    && self.replays.contains_key(&t.trajectory_id)
            })
        })
    }

    pub fn step_level(&self) -> bool {
        self.args.instruction == InstructionLevel::Steps
    }

    /// The task's OS-MAP level for this export.
    pub fn level(&self, task: &Task) -> &'static str {
        os_map_level(task, self.step_level())
    }

    /// The instruction a prompt carries for this trajectory.
    pub fn instruction(&self, task: &Task, traj: &TaskTrajectory) -> String {
        match self.args.instruction {
            InstructionLevel::Goal if !traj.instruction.trim().is_empty() => {
                traj.instruction.clone()
            }
            InstructionLevel::Goal => task.task_instruction.clone(),
            InstructionLevel::Steps => match &task.low_level_instruction {
                Some(s) if !s.trim().is_empty() => s.clone(),
                _ => traj
                    .topological_order
                    .iter()
                    .filter_map(|n| task.nodes.get(n))
                    .enumerate()
                    .map(|(i, n)| format!("{}. {}", i + 1, n.instruction))
                    .collect::<Vec<_>>()
                    .join("\n"),
            },
        }
    }

    /// The intent, when the export includes it.
    pub fn intent<'t>(&self, task: &'t Task, traj: &'t TaskTrajectory) -> Option<&'t str> {
        if !self.args.with_intent() {
            return None;
        }
        let i = if traj.intent.trim().is_empty() {
            task.task_intent.as_str()
        } else {
            traj.intent.as_str()
        };
        Some(i).filter(|s| !s.trim().is_empty())
    }

    /// Writes pretty JSON (with a final newline).
    pub fn write_json(&self, rel: &str, value: &impl Serialize) -> Result<(), ExportError> {
        let mut text = serde_json::to_string_pretty(value).expect("JSON values always serialize");
        text.push('\n');
        self.write_text(rel, &text)
    }

    /// Writes one JSON value per line.
    pub fn write_jsonl(&self, rel: &str, values: &[Value]) -> Result<(), ExportError> {
        let mut text = String::new();
        for v in values {
            text.push_str(&v.to_string());
            text.push('\n');
        }
        self.write_text(rel, &text)
    }

    /// Writes a file under the output folder, creating parents.
    pub fn write_text(&self, rel: &str, text: &str) -> Result<(), ExportError> {
        let path = self.out.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        std::fs::write(&path, text).map_err(io_err(&path))
    }

    /// The reference the format writes for the image at `rel` (relative to the
    /// output folder, `images/...`): relative to the format's [`ImageRoot`],
    /// absolute, a data URL or a URL under `--image-base-url`.
    pub fn image_ref(&self, rel: &str) -> Result<String, ExportError> {
        let under_images = || rel.strip_prefix("images/").unwrap_or(rel);
        Ok(match &self.image_refs {
            ImageRefs::None | ImageRefs::Relative => match self.args.format.image_root() {
                ImageRoot::Out => rel.to_string(),
                ImageRoot::ImagesDir => under_images().to_string(),
            },
            ImageRefs::Absolute => self.target.join(rel).to_string_lossy().into_owned(),
            ImageRefs::DataUrl => self.data_url(rel)?,
            ImageRefs::Url(base) => format!("{base}/{}", under_images()),
        })
    }

    /// An image as a `data:` URL.
    pub fn data_url(&self, rel: &str) -> Result<String, ExportError> {
        use base64::Engine as _;
        let path = self.out.join(rel);
        let bytes = std::fs::read(&path).map_err(io_err(&path))?;
        Ok(format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        ))
    }
}

/// What an export did.
#[derive(Debug, Clone, Serialize)]
pub struct ExportReport {
    pub format: Format,
    pub out: PathBuf,
    /// Records written (lines, examples, task files... as the format counts them).
    pub records: usize,
    /// Trajectories replayed (task and subtask).
    pub trajectories: usize,
    /// Actions replayed.
    pub steps: usize,
    pub images: usize,
    /// Bytes of every file written.
    pub bytes: u64,
    pub wall_secs: f64,
    /// What was left out, with the reason.
    pub skipped: Vec<String>,
}

impl ExportReport {
    /// Replayed (and rendered) actions per second of wall time.
    pub fn steps_per_sec(&self) -> f64 {
        if self.wall_secs > 0.0 {
            self.steps as f64 / self.wall_secs
        } else {
            0.0
        }
    }
}

impl fmt::Display for ExportReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "exported {} {} records to {}: {} trajectories, {} steps, {} images, {} bytes in {:.2}s ({:.1} steps/s)",
            self.records,
            self.format,
            self.out.display(),
            self.trajectories,
            self.steps,
            self.images,
            self.bytes,
            self.wall_secs,
            self.steps_per_sec()
        )?;
        for s in &self.skipped {
            write!(f, "\n  skipped {s}")?;
        }
        Ok(())
    }
}

/// The staging folder an export of `out` is built in: `.<name>.partial` beside it.
pub fn staging_dir(out: &Path) -> PathBuf {
    sibling(out, "partial")
}

/// Where the previous export of `out` waits while the new one is renamed into
/// place: `.<name>.old` beside it.
fn retired_dir(out: &Path) -> PathBuf {
    sibling(out, "old")
}

fn sibling(out: &Path, suffix: &str) -> PathBuf {
    let name = out
        .file_name()
        .map_or_else(|| "export".into(), |n| n.to_string_lossy().into_owned());
    out.with_file_name(format!(".{name}.{suffix}"))
}

/// Does `dir` hold anything?
fn non_empty(dir: &Path) -> Result<bool, ExportError> {
    Ok(dir.is_dir()
        && std::fs::read_dir(dir)
            .map_err(io_err(dir))?
            .next()
            .is_some())
}

/// Checks that `out` may be replaced (missing, empty, or a previous export with its
/// manifest), removes what a killed export left beside it (staging and retired
/// folders), and creates an empty staging folder; returns it.
fn prepare_out(out: &Path) -> Result<PathBuf, ExportError> {
    if non_empty(out)? && !out.join(MANIFEST).is_file() {
        return Err(ExportError::OutNotEmpty(out.to_path_buf()));
    }
    let staging = staging_dir(out);
    let retired = retired_dir(out);
    // Killed between the two renames of `publish` (where no atomic exchange is
    // available): the previous export waits beside a missing target. It is put
    // back, so that the target holds the previous export until the new one is
    // complete, as after any other kill.
    if !out.exists() && retired.join(MANIFEST).is_file() {
        tracing::info!(path = %out.display(), "putting back the previous export an interrupted export had moved aside");
        std::fs::rename(&retired, out).map_err(io_err(out))?;
    }
    for leftover in [&staging, &retired] {
        if leftover.exists() {
            tracing::info!(path = %leftover.display(), "removing what an interrupted export left");
            std::fs::remove_dir_all(leftover).map_err(io_err(leftover))?;
        }
    }
    std::fs::create_dir_all(&staging).map_err(io_err(&staging))?;
    Ok(staging)
}

/// Renames the complete export in `staging` to `out`, replacing the previous
/// export, so that `out` always holds either the previous export or the new one,
/// never a mix. On Linux the two folders are exchanged in one atomic step
/// (`renameat2` with `RENAME_EXCHANGE`) and the previous export, now at the
/// staging name, is removed (or, after a kill, by the next export). Elsewhere, or
/// on a file system without the exchange, the previous export is renamed aside
/// first (two renames, each atomic); a kill between them leaves it aside, and
/// [`prepare_out`] puts it back.
fn publish(staging: &Path, out: &Path) -> Result<(), ExportError> {
    let retired = retired_dir(out);
    let parent = out.parent().unwrap_or(Path::new("."));
    let durable = || crate::atomic::sync_dir(parent).map_err(io_err(parent));
    if out.exists() {
        if exchange(staging, out).is_ok() {
            durable()?;
            std::fs::remove_dir_all(staging).map_err(io_err(staging))?;
            return Ok(());
        }
        std::fs::rename(out, &retired).map_err(io_err(out))?;
    }
    std::fs::rename(staging, out).map_err(io_err(out))?;
    durable()?;
    if retired.exists() {
        std::fs::remove_dir_all(&retired).map_err(io_err(&retired))?;
    }
    Ok(())
}

/// The staging folder of an export that has not been published: removed when
/// dropped (the export failed), unless cleared once the export is in place.
struct Unpublished<'a>(Option<&'a Path>);

impl Drop for Unpublished<'_> {
    fn drop(&mut self) {
        if let Some(dir) = self.0 {
            if let Err(error) = std::fs::remove_dir_all(dir) {
                if error.kind() != std::io::ErrorKind::NotFound {
                    tracing::warn!(path = %dir.display(), %error, "cannot remove the staging folder of a failed export");
                }
            }
        }
    }
}

/// Exchanges the folders `a` and `b` atomically (both must exist).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
    };
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both paths are NUL-terminated strings that outlive the call;
    // renameat2 reads them and touches no memory of ours.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// No atomic exchange here: [`publish`] renames twice.
#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// Removes a non-empty default output folder that has no manifest: an export an
/// older synth (which wrote in place) left unfinished. Only for the folder synth
/// owns (`generated/export/<format>`); a folder named with `--out` is the user's.
fn clear_unfinished_default(out: &Path) -> Result<(), ExportError> {
    if non_empty(out)? && !out.join(MANIFEST).is_file() {
        tracing::warn!(path = %out.display(), "replacing an unfinished export (no {MANIFEST})");
        std::fs::remove_dir_all(out).map_err(io_err(out))?;
    }
    Ok(())
}

fn dir_bytes(dir: &Path) -> Result<(u64, usize), ExportError> {
    let mut bytes = 0;
    let mut files = 0;
    for entry in std::fs::read_dir(dir).map_err(io_err(dir))? {
        let entry = entry.map_err(io_err(dir))?;
        let meta = entry.metadata().map_err(io_err(&entry.path()))?;
        if meta.is_dir() {
            let (b, n) = dir_bytes(&entry.path())?;
            bytes += b;
            files += n;
        } else {
            bytes += meta.len();
            files += 1;
        }
    }
    Ok((bytes, files))
}

/// Runs `synth export`.
pub fn run(args: &ExportArgs, cx: &StageContext<'_>) -> Result<ExportReport, ExportError> {
    let started = Instant::now();
    args.image_refs()?;
    let dataset = Dataset::load(cx.store)?;
    let desktops = cx.env.desktops(&cx.workspace)?;
    let default_out = cx
        .workspace
        .join("generated")
        .join("export")
        .join(args.format.as_str());
    if args.out.is_none() {
        clear_unfinished_default(&default_out)?;
    }
    let tables = Tables::load(args.format, &cx.workspace)?;
    let out = args.out.clone().map_or_else(
        || default_out.clone(),
        |o| {
            if o.is_relative() {
                cx.workspace.join(o)
            } else {
                o
            }
        },
    );
    let subtask_trajectories: usize = if args.format == Format::Omnibench {
        dataset
            .subtasks
            .values()
            .map(|s| s.trajectories.len())
            .sum()
    } else {
        0
    };
    let bar = cx.progress(
        (dataset.trajectories.len() + subtask_trajectories) as u64,
        "export",
    );
    let report = export_dataset(
        args,
        &dataset,
        desktops.as_ref(),
        &tables,
        &out,
        cx.jobs,
        cx.seed,
        started,
        &bar,
    );
    bar.finish_and_clear();
    report
}

/// The first application `task`'s nodes name that is not in `have`.
fn missing_application<'t>(task: &'t Task, have: &BTreeSet<String>) -> Option<&'t str> {
    task.nodes
        .values()
        .map(|n| n.application.as_str())
        .find(|app| !have.contains(*app))
}

/// Exports an already loaded dataset into `out` (what [`run`] does after loading);
/// `tables` are what the format reads from the workspace ([`Tables::load`]); `bar`
/// advances once per replayed trajectory. The files are written in the staging
/// folder beside `out` and renamed into place when complete (see the module doc).
#[allow(clippy::too_many_arguments)]
pub fn export_dataset(
    args: &ExportArgs,
    dataset: &Dataset,
    desktops: &dyn Desktops,
    tables: &Tables,
    out: &Path,
    jobs: usize,
    seed: u64,
    started: Instant,
    bar: &indicatif::ProgressBar,
) -> Result<ExportReport, ExportError> {
    let image_refs = args.image_refs()?;
    // Absolute references (image paths, OSWorld's upload paths) name the final
    // folder from the root, whatever the working directory; the files are written
    // in the staging folder until the export is complete.
    let target = &std::path::absolute(out).map_err(io_err(out))?;
    let staging = prepare_out(target)?;
    // A failed export (a full disk, a replay error) removes what it staged, so the
    // space is free again at once; a killed one leaves it to the next export.
    let mut unpublished = Unpublished(Some(&staging));
    let out = staging.as_path();
    let images = args.format.has_images();
    let threads = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()?;
    let mut skipped = dataset.skipped.clone();

    // Task trajectories, replayed in parallel; one whose task names an
    // application these desktops do not have (a task made on another `--env`)
    // is left out with that reason, not replayed to fail at its first step.
    let have: BTreeSet<String> = desktops.applications()?.into_iter().collect();
    let mut task_jobs: Vec<(&TaskTrajectory, Option<&Task>)> = Vec::new();
    for t in &dataset.trajectories {
        let task = dataset.task(&t.task_id.0);
        match task.and_then(|task| missing_application(task, &have)) {
            Some(app) => skipped.push(format!(
                "trajectory {}: its task uses {app}, which the {} desktop does not have (export with the --env the task was made on)",
                t.trajectory_id,
                desktops.backend().name()
            )),
            None => task_jobs.push((t, task)),
        }
    }
    let results: Vec<Result<Replayed, ExportError>> = threads.install(|| {
        task_jobs
            .par_iter()
            .map(|(t, task)| {
                let checks: BTreeMap<String, NodeChecks<'_>> = task
                    .map(|task| {
                        task.dag
                            .nodes
                            .iter()
                            .filter_map(|n| Some((n.clone(), dataset.node_checks(task, n)?)))
                            .collect()
                    })
                    .unwrap_or_default();
                let dir = format!("images/tasks/{}", file_stem(&t.trajectory_id));
                let slot = rayon::current_thread_index().unwrap_or(0);
                // A real desktop is not deterministic (a completion popup may take
                // a keystroke): a replay with a refused step is tried once more.
                let tries = if desktops.deterministic() { 1 } else { 2 };
                let mut attempt = 0;
                let r = loop {
                    attempt += 1;
                    let r = desktops
                        .open(slot)
                        .map_err(ExportError::from)
                        .and_then(|desk| {
                            replay(
                                Start::Fresh(desk),
                                &t.actions,
                                task.map(|task| (task, &checks)),
                                out,
                                images.then_some(dir.as_str()),
                                args.format == Format::Osworld,
                            )
                        });
                    let refused = matches!(&r, Ok(rep) if rep.steps.iter().any(|s| !s.ok));
                    if !refused || attempt >= tries {
                        break r;
                    }
                };
                bar.inc(1);
                r
            })
            .collect()
    });
    let mut replays = BTreeMap::new();
    let mut steps = 0;
    let mut trajectories = 0;
    for ((t, _), r) in task_jobs.iter().zip(results) {
        let r = r?;
        steps += r.steps.len();
        trajectories += 1;
        match r.steps.iter().position(|s| !s.ok) {
            Some(k) => {
                skipped.push(format!(
                    "trajectory {}: step {k} does not replay on the fresh desktop",
                    t.trajectory_id
                ));
                let dir = out.join("images/tasks").join(file_stem(&t.trajectory_id));
                if dir.is_dir() {
                    std::fs::remove_dir_all(&dir).map_err(io_err(&dir))?;
                }
            }
            None => {
                replays.insert(t.trajectory_id.clone(), r);
            }
        }
    }

    // Subtask trajectories (omnibench only), each from its subtask's start desktop
    // (the fresh desktop with the instance's input resources prepared, as verify
    // ran it).
    let mut subtask_replays = BTreeMap::new();
    if args.format == Format::Omnibench {
        let sub_jobs: Vec<(&Subtask, &crate::model::SubtaskTrajectory)> = dataset
            .subtasks
            .values()
            .flat_map(|s| s.trajectories.iter().map(move |t| (s, t)))
            .collect();
        let results: Vec<Result<(Replayed, Option<String>), ExportError>> = threads.install(|| {
            sub_jobs
                .par_iter()
                .map(|(s, t)| {
                    let dir = format!("images/subtasks/{}", file_stem(&t.trajectory_id));
                    let slot = rayon::current_thread_index().unwrap_or(0);
                    let r = desktops
                        .open(slot)
                        .map_err(ExportError::from)
                        .and_then(|mut desk| {
                            let prepared = tables
                                .catalog
                                .as_ref()
                                .ok_or_else(|| "no resource catalog".to_string())
                                .and_then(|c| {
                                    Instance::new(c, s, parameter_index(s, t))
                                        .map_err(|e| e.to_string())
                                })
                                .and_then(|inst| prepare_start(desk.as_mut(), &inst));
                            let start = match &prepared {
                                Ok(()) => Start::Prepared(desk),
                                Err(_) => Start::Fresh(desk),
                            };
                            let r = replay(start, &t.actions, None, out, Some(dir.as_str()), false);
                            r.map(|r| (r, prepared.err()))
                        });
                    bar.inc(1);
                    r
                })
                .collect()
        });
        for ((_, t), r) in sub_jobs.iter().zip(results) {
            let (r, unprepared) = r?;
            steps += r.steps.len();
            trajectories += 1;
            if r.all_ok() {
                subtask_replays.insert(t.trajectory_id.clone(), r);
            } else {
                let why = match unprepared {
                    Some(reason) => format!("its start desktop cannot be prepared ({reason})"),
                    None => "a step does not replay on its start desktop".to_string(),
                };
                skipped.push(format!(
                    "subtask trajectory {}: no screenshots, {why}",
                    t.trajectory_id
                ));
                let dir = out
                    .join("images/subtasks")
                    .join(file_stem(&t.trajectory_id));
                if dir.is_dir() {
                    std::fs::remove_dir_all(&dir).map_err(io_err(&dir))?;
                }
            }
        }
    }
    let images_written: usize = replays
        .values()
        .chain(subtask_replays.values())
        .map(|r| r.images.len())
        .sum();

    let mut base = desktops.open(0)?;
    base.reset(&Setup::default())?;
    let ecx = ExportCx {
        args,
        image_refs,
        tables,
        out: out.to_path_buf(),
        target: target.to_path_buf(),
        dataset,
        replays,
        subtask_replays,
        base: base.as_ref(),
        seed,
    };
    let written = match args.format {
        Format::Omnibench => omnibench::write(&ecx)?,
        Format::Sharegpt => sharegpt::write(&ecx)?,
        Format::Openai => openai::write(&ecx)?,
        Format::Qwen => qwen::write(&ecx)?,
        Format::Osworld => osworld::write(&ecx)?,
        Format::Grounding => grounding::write(&ecx)?,
        Format::Idm => idm::write(&ecx)?,
        Format::Critic => critic::write(&ecx)?,
    };
    skipped.extend(written.skipped);
    if ecx.image_refs == ImageRefs::DataUrl {
        // Every image is inside the records.
        let dir = out.join("images");
        if dir.is_dir() {
            std::fs::remove_dir_all(&dir).map_err(io_err(&dir))?;
        }
    }
    let (bytes, _) = dir_bytes(out)?;
    let manifest = serde_json::json!({
        "format": args.format,
        "actions": args.actions,
        "image_paths": ecx.image_refs.as_str(),
        "image_base_url": args.image_base_url,
        "instruction": args.instruction,
        "intent": args.with_intent(),
        "records": written.records,
        "tasks": ecx.tasks().count(),
        "trajectories": ecx.replays.len(),
        "steps": steps,
        "images": images_written,
        "bytes": bytes,
        "skipped": skipped,
    });
    ecx.write_json(MANIFEST, &manifest)?;
    // Everything staged is on the disk before the rename makes it the export.
    crate::atomic::sync_tree(&staging)
        .map_err(|(path, source)| ExportError::Io { path, source })?;
    publish(&staging, target)?;
    unpublished.0 = None;
    Ok(ExportReport {
        format: args.format,
        out: target.to_path_buf(),
        records: written.records,
        trajectories,
        steps,
        images: images_written,
        bytes,
        wall_secs: started.elapsed().as_secs_f64(),
        skipped,
    })
}

/// What a format writer reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    pub records: usize,
    pub skipped: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Dag, TaskNode};

    fn task(apps: &[&str], edges: &[(usize, usize)]) -> Task {
        let mut dag = Dag::default();
        let mut nodes = BTreeMap::new();
        for (i, app) in apps.iter().enumerate() {
            let id = format!("n{i}");
            dag.nodes.push(id.clone());
            dag.edges.insert(id.clone(), vec![]);
            nodes.insert(
                id,
                TaskNode {
                    subtask_id: SubtaskId(format!("s{i}")),
                    parameter_index: 0,
                    application: app.to_string(),
                    category: "Office".into(),
                    instruction: format!("step {i}"),
                },
            );
        }
        for (a, b) in edges {
            dag.edges
                .get_mut(&format!("n{a}"))
                .unwrap()
                .push(format!("n{b}"));
        }
        Task {
            task_id: Some(crate::model::TaskId("t".into())),
            task_instruction: "goal".into(),
            low_level_instruction: None,
            dag,
            task_intent: "intent".into(),
            purpose: None,
            successful_topo: vec![],
            nodes,
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
        }
    }

    #[test]
    fn levels_follow_the_definition() {
        let chain = task(&["Sheets", "Writer"], &[(0, 1)]);
        assert_eq!(os_map_level(&chain, false), "L4");
        assert_eq!(os_map_level(&chain, true), "L1");
        // Two applications without an edge between them: no orchestration.
        let parallel = task(&["Sheets", "Writer"], &[]);
        assert_eq!(os_map_level(&parallel, false), "L2");
        let same = task(&["Writer", "Writer", "Mail"], &[(0, 1)]);
        assert_eq!(os_map_level(&same, false), "L2");
        let mixed = task(&["Writer", "Writer", "Mail"], &[(0, 1), (1, 2)]);
        assert_eq!(os_map_level(&mixed, false), "L4");
    }

    #[test]
    fn file_stems_are_safe() {
        assert_eq!(file_stem("t1(0)"), "t1_0");
        assert_eq!(file_stem("a/b c"), "a_b_c");
        assert_eq!(file_stem("..."), "_...");
    }

    #[test]
    fn a_foreign_folder_is_not_emptied() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("keep.txt"), "x").unwrap();
        assert!(matches!(
            prepare_out(&out),
            Err(ExportError::OutNotEmpty(_))
        ));
        assert!(out.join("keep.txt").is_file());
        assert!(!staging_dir(&out).exists());
        // The default folder is synth's: an unfinished export there is cleared.
        clear_unfinished_default(&out).unwrap();
        assert!(!out.exists());
    }

    #[test]
    fn the_previous_export_stays_until_the_new_one_is_complete() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sharegpt");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join(MANIFEST), "old").unwrap();
        std::fs::write(out.join("data.json"), "old").unwrap();
        // Leftovers of a killed export: a staging and a retired folder.
        std::fs::create_dir_all(staging_dir(&out).join("images")).unwrap();
        std::fs::create_dir_all(retired_dir(&out)).unwrap();
        let staging = prepare_out(&out).unwrap();
        assert_eq!(staging, dir.path().join(".sharegpt.partial"));
        assert!(!staging.join("images").exists(), "the leftover is emptied");
        assert!(!retired_dir(&out).exists());
        std::fs::write(staging.join("data.json"), "new").unwrap();
        // Not published yet: the previous export is whole.
        assert_eq!(
            std::fs::read_to_string(out.join("data.json")).unwrap(),
            "old"
        );
        std::fs::write(staging.join(MANIFEST), "new").unwrap();
        publish(&staging, &out).unwrap();
        assert_eq!(
            std::fs::read_to_string(out.join("data.json")).unwrap(),
            "new"
        );
        assert_eq!(std::fs::read_to_string(out.join(MANIFEST)).unwrap(), "new");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "only the export remains");
    }

    #[test]
    fn a_previous_export_left_aside_by_a_kill_is_put_back() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sharegpt");
        // Killed between the two renames of publish: the previous export aside,
        // the new one complete in the staging folder, no target.
        std::fs::create_dir_all(retired_dir(&out)).unwrap();
        std::fs::write(retired_dir(&out).join(MANIFEST), "old").unwrap();
        std::fs::create_dir_all(staging_dir(&out)).unwrap();
        std::fs::write(staging_dir(&out).join(MANIFEST), "new").unwrap();
        let staging = prepare_out(&out).unwrap();
        assert_eq!(std::fs::read_to_string(out.join(MANIFEST)).unwrap(), "old");
        assert!(!retired_dir(&out).exists());
        assert_eq!(std::fs::read_dir(&staging).unwrap().count(), 0);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn publishing_exchanges_the_folders_in_one_step() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(a.join("f"), "a").unwrap();
        std::fs::write(b.join("f"), "b").unwrap();
        exchange(&a, &b).unwrap();
        assert_eq!(std::fs::read_to_string(a.join("f")).unwrap(), "b");
        assert_eq!(std::fs::read_to_string(b.join("f")).unwrap(), "a");
    }
}
