//! `synth eval` (score a folder of agent runs) and `synth bench` (run an agent on
//! the stored tasks, write its runs, score them).
//!
//! Both read tasks and the verified subtasks' evaluations from the store and
//! replay every run on a fresh desktop of the chosen backend (in parallel, rayon,
//! `--jobs` threads; a real desktop per worker thread, each its own slot, kept
//! open between its runs and reset before each), so a run
//! scores the same whoever wrote it. `bench` writes
//! `generated/bench/<agent>/runs/<task_id>.json` (the format `eval` reads; earlier
//! `*.json` runs there are removed first) and `generated/bench/<agent>/scores.json`.
//! The only store writes are `bench`'s run record (and, for the model agent, the
//! model client's call record).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;
use serde::Serialize;

use crate::env::{Desktops, Environment, Replica};
use crate::llm::{Backend, OfflineRoles};
use crate::model::{Subtask, SubtaskId, SubtaskStatus, Task};
use crate::pipeline::trajectories::Joiner;
use crate::pipeline::StageContext;
use crate::store::{RunStatus, TaskStatus};

use super::bench::{
    instruction_for, run_episode, Agent, AgentKind, Launcher, ModelAgent, OfflineAgent, RandomAgent,
};
use super::graph::{node_checks, replay, task_label};
use super::runs::{read_run, read_runs, write_run, Run};
use super::score::{failed_score, score_task, Scores, TaskScore};
use super::EvalError;

/// The default N of the stall rule: a run fails after N actions without a newly
/// completed subtask.
pub const DEFAULT_MAX_STEPS: usize = 60;

/// Flags of `synth eval`.
#[derive(Debug, Clone, clap::Args)]
pub struct EvalArgs {
    /// Folder of runs, one `<anything>.json` per task: a task trajectory with at
    /// least `task_id` and `actions`.
    #[arg(long, value_name = "DIR")]
    pub runs: PathBuf,
    /// A run fails after N actions without a newly completed subtask.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STEPS)]
    pub max_steps: usize,
    /// Also write the scores as JSON (the scores.json schema) to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also write the scores as CSV (one row per aggregate and per task) to FILE.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// The agent's name in the report (default: the runs folder's name, or its
    /// parent's when the folder is called `runs`).
    #[arg(long)]
    pub agent: Option<String>,
}

/// Flags of `synth bench`.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// offline (the planner, an upper bound), random (a lower bound) or openai (the
    /// actor role of the configured model; needs --llm openai or replay).
    #[arg(long, value_enum)]
    pub agent: AgentKind,
    /// Only these tasks (comma-separated ids; any status but rejected).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "ID,..",
        conflicts_with = "limit"
    )]
    pub tasks: Vec<String>,
    /// At most N tasks (the first in dataset order).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Give the actor the task intent along with the instruction.
    #[arg(long)]
    pub intent: bool,
    /// A run fails after N actions without a newly completed subtask.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STEPS)]
    pub max_steps: usize,
    /// Also run composed tasks that are not validated yet.
    #[arg(long)]
    pub include_composed: bool,
}

/// What `synth eval` found.
#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    pub scores: Scores,
    /// Run files that could not be scored, each naming the file and the problem.
    pub errors: Vec<String>,
}

impl fmt::Display for EvalReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.scores.to_text())?;
        if !self.errors.is_empty() {
            writeln!(f, "\n{} run(s) could not be scored:", self.errors.len())?;
            for e in &self.errors {
                writeln!(f, "  {e}")?;
            }
        }
        Ok(())
    }
}

/// What `synth bench` did.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub agent: String,
    pub runs_dir: PathBuf,
    pub scores_path: PathBuf,
    pub scores: Scores,
    /// Tasks whose run could not be made or scored.
    pub errors: Vec<String>,
}

impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.scores.to_text())?;
        writeln!(
            f,
            "\nruns in {}, scores in {}",
            self.runs_dir.display(),
            self.scores_path.display()
        )?;
        if !self.errors.is_empty() {
            writeln!(f, "{} task(s) had problems:", self.errors.len())?;
            for e in &self.errors {
                writeln!(f, "  {e}")?;
            }
        }
        Ok(())
    }
}

/// A desktop kept open between runs.
type Kept = Mutex<Option<Box<dyn Environment + Send>>>;

/// The tasks, verified subtasks and desktop every run is scored against.
struct Bench {
    tasks: BTreeMap<String, (TaskStatus, Task)>,
    order: Vec<String>,
    subtasks: BTreeMap<SubtaskId, Subtask>,
    desktops: Box<dyn Desktops>,
    /// A desktop the offline agent plans on (None on a real backend).
    replica: Option<Box<dyn Replica>>,
    /// Real desktops kept open between runs, one per worker thread (opening
    /// one starts a display and its buses, or connects to a VM); every run
    /// still starts from `reset`. The simulated desktop is copied per run.
    kept: Vec<Kept>,
    /// How the random agent opens applications (None: the simulated desktop,
    /// whose applications have icons).
    launcher: Option<Launcher>,
    /// The worker threads (`--jobs`): on a real backend each is one desktop.
    threads: rayon::ThreadPool,
}

impl Bench {
    fn load(cx: &StageContext<'_>) -> Result<Bench, EvalError> {
        let mut tasks = BTreeMap::new();
        let mut order = Vec::new();
        for stored in cx.store.tasks(None)? {
            if stored.status == TaskStatus::Rejected {
                continue;
            }
            let id = task_label(&stored.task);
            order.push(id.clone());
            tasks.insert(id, (stored.status, stored.task));
        }
        let subtasks = cx
            .store
            .subtasks(SubtaskStatus::Verified)?
            .into_iter()
            .map(|s| (s.id.clone(), s))
            .collect();
        let desktops = cx.env.desktops(&cx.workspace).map_err(EvalError::Desktop)?;
        let replica = desktops.replica();
        let threads = rayon::ThreadPoolBuilder::new()
            .num_threads(cx.jobs.max(1))
            .build()
            .expect("a rayon pool with at least one thread");
        let kept = (0..threads.current_num_threads())
            .map(|_| Mutex::new(None))
            .collect();
        // The applications the benchmark's tasks use: those the random agent
        // draws from (a catalogue may list applications this machine lacks,
        // and a launch that starts nothing waits for the window in vain).
        let launcher = desktops.launcher_keys().map(|keys| Launcher {
            keys,
            applications: tasks
                .values()
                .flat_map(|(_, t)| t.nodes.values().map(|n| n.application.clone()))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect(),
        });
        Ok(Bench {
            tasks,
            order,
            subtasks,
            desktops,
            replica,
            kept,
            launcher,
            threads,
        })
    }

    /// How the offline agent joins a task's nodes on these desktops.
    fn joiner(&self) -> Result<Joiner<'_>, EvalError> {
        Joiner::of(self.desktops.as_ref(), self.replica.as_deref()).map_err(EvalError::Desktop)
    }

    /// Runs `f` on a desktop of the current worker thread: a fresh copy of the
    /// simulated desktop, or the thread's real desktop (its slot), opened on
    /// first use and kept for the thread's next run. A real desktop whose run
    /// failed with a desktop error is closed, and the next run opens another.
    fn with_desktop<T>(
        &self,
        f: impl FnOnce(&mut dyn Environment) -> Result<T, EvalError>,
    ) -> Result<T, EvalError> {
        let slot = rayon::current_thread_index().unwrap_or(0);
        let kept = match self.kept.get(slot) {
            Some(k) if !self.desktops.deterministic() => k,
            _ => {
                let mut env = self.desktops.open(slot).map_err(EvalError::Desktop)?;
                return f(env.as_mut());
            }
        };
        let mut guard = kept.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            *guard = Some(self.desktops.open(slot).map_err(EvalError::Desktop)?);
        }
        let env = guard.as_mut().expect("a desktop was just opened");
        let result = f(env.as_mut());
        if matches!(result, Err(EvalError::Env { .. } | EvalError::Desktop(_))) {
            *guard = None;
        }
        result
    }

    /// Replays one run and scores it; a run of a known task that cannot be replayed
    /// scores 0 with the reason.
    fn score(
        &self,
        run: &Run,
        max_steps: usize,
        cx: &StageContext<'_>,
    ) -> Result<TaskScore, EvalError> {
        let (_, task) = self
            .tasks
            .get(&run.task_id.0)
            .ok_or_else(|| EvalError::UnknownTask {
                path: run.path.clone(),
                task: run.task_id.0.clone(),
            })?;
        let scored = node_checks(task, &self.subtasks).and_then(|nodes| {
            let r = self.with_desktop(|env| replay(env, task, nodes, &run.actions, max_steps))?;
            score_task(task, &r, &cx.catalog.capabilities)
        });
        Ok(scored.unwrap_or_else(|e| {
            failed_score(
                &run.task_id.0,
                Some(task),
                e.to_string(),
                &cx.catalog.capabilities,
            )
        }))
    }

    /// Scores runs in parallel; unreadable runs and runs of unknown tasks become
    /// error lines. Scores keep the runs' order.
    fn score_all(
        &self,
        runs: Vec<Result<Run, EvalError>>,
        max_steps: usize,
        cx: &StageContext<'_>,
    ) -> (Vec<TaskScore>, Vec<String>) {
        let bar = cx.progress(runs.len() as u64, "scoring");
        let results: Vec<Result<TaskScore, EvalError>> = self.threads.install(|| {
            runs.into_par_iter()
                .map(|run| {
                    let r = run.and_then(|run| self.score(&run, max_steps, cx));
                    bar.inc(1);
                    r
                })
                .collect()
        });
        bar.finish_and_clear();
        let mut scores = Vec::new();
        let mut errors = Vec::new();
        for r in results {
            match r {
                Ok(s) => {
                    if let Some(e) = &s.error {
                        errors.push(format!("{}: {e}", s.task_id));
                    }
                    scores.push(s);
                }
                Err(e) => errors.push(e.to_string()),
            }
        }
        (scores, errors)
    }
}

fn now(cx: &StageContext<'_>) -> String {
    cx.store.now_utc().unwrap_or_default()
}

/// The agent name for a runs folder: its name, or its parent's when it is `runs`.
fn agent_name(dir: &Path) -> String {
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| !n.is_empty() && n != ".")
    };
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    match name(&canonical) {
        Some(n) if n == "runs" => canonical
            .parent()
            .and_then(name)
            .unwrap_or_else(|| "runs".to_string()),
        Some(n) => n,
        None => "agent".to_string(),
    }
}

/// `synth eval`: scores every run file of `args.runs`.
///
/// # Errors
/// `--max-steps 0`, the folder cannot be listed, the store or desktop cannot be
/// read, or an output file cannot be written. Bad run files are not errors: they
/// are listed in the report and the other runs are still scored.
pub fn eval(args: &EvalArgs, cx: &StageContext<'_>) -> Result<EvalReport, EvalError> {
    if args.max_steps == 0 {
        return Err(EvalError::ZeroMaxSteps);
    }
    let runs = read_runs(&args.runs)?;
    let bench = Bench::load(cx)?;
    let (per_task, errors) = bench.score_all(runs, args.max_steps, cx);
    let agent = args.agent.clone().unwrap_or_else(|| agent_name(&args.runs));
    let scores = Scores::build(
        &agent,
        &now(cx),
        args.max_steps,
        per_task,
        &cx.catalog.capabilities,
    );
    if let Some(path) = &args.json {
        scores.write_json(path)?;
    }
    if let Some(path) = &args.csv {
        scores.write_csv(path)?;
    }
    Ok(EvalReport { scores, errors })
}

/// The tasks `bench` runs: the named ones, else the validated ones (and composed
/// ones with `include_composed`), in dataset order, at most `limit`.
fn select<'b>(args: &BenchArgs, bench: &'b Bench) -> Result<Vec<&'b Task>, EvalError> {
    if !args.tasks.is_empty() {
        let mut out = Vec::new();
        for id in &args.tasks {
            let (_, task) = bench
                .tasks
                .get(id)
                .ok_or_else(|| EvalError::TaskNotFound(id.clone()))?;
            out.push(task);
        }
        return Ok(out);
    }
    let out: Vec<&Task> = bench
        .order
        .iter()
        .filter_map(|id| bench.tasks.get(id))
        .filter(|(status, _)| {
            *status == TaskStatus::Validated
                || (args.include_composed && *status == TaskStatus::Composed)
        })
        .map(|(_, t)| t)
        .take(args.limit.unwrap_or(usize::MAX))
        .collect();
    if out.is_empty() {
        return Err(EvalError::NoTasks {
            include_composed: args.include_composed,
        });
    }
    Ok(out)
}

/// `synth bench`: runs the agent on the selected tasks, writes the runs and
/// `scores.json`, and returns the scores.
///
/// # Errors
/// `--max-steps 0`, no tasks to run, the store or desktop cannot be read, no
/// actor model for `openai`, or the outputs cannot be written. A task the agent
/// cannot run (no verified trajectory for the offline agent, an endpoint failure)
/// scores 0 and is listed in the report.
pub fn bench(args: &BenchArgs, cx: &StageContext<'_>) -> Result<BenchReport, EvalError> {
    if args.max_steps == 0 {
        return Err(EvalError::ZeroMaxSteps);
    }
    if args.agent == AgentKind::Openai && cx.llm.backend == Backend::Offline {
        return Err(EvalError::NoActor);
    }
    let bench = Bench::load(cx)?;
    let tasks = select(args, &bench)?;
    let agent = args.agent.as_str();
    let out_dir = cx.workspace.join("generated").join("bench").join(agent);
    let runs_dir = out_dir.join("runs");
    clear_runs(&runs_dir)?;
    let run_id = cx.store.begin_run(
        "bench",
        &serde_json::json!({
            "agent": agent,
            "tasks": tasks.len(),
            "intent": args.intent,
            "max_steps": args.max_steps,
        }),
    )?;
    let outcome = run_tasks(args, cx, &bench, &tasks, run_id, &runs_dir).and_then(|r| {
        let path = out_dir.join("scores.json");
        r.0.write_json(&path)?;
        Ok((r.0, r.1, path))
    });
    let (scores, errors, scores_path) = match outcome {
        Ok(v) => v,
        Err(e) => {
            // Keep the original error; the run record is best effort here.
            let _ = cx.store.finish_run(
                run_id,
                RunStatus::Failed,
                &serde_json::json!({"error": e.to_string()}),
            );
            return Err(e);
        }
    };
    cx.store.finish_run(
        run_id,
        if errors.is_empty() {
            RunStatus::Ok
        } else {
            RunStatus::Partial
        },
        &serde_json::json!({
            "tasks": scores.tasks,
            "overall": scores.overall,
            "errors": errors.len(),
        }),
    )?;
    Ok(BenchReport {
        agent: agent.to_string(),
        runs_dir,
        scores_path,
        scores,
        errors,
    })
}

/// Runs the agent on every task (in parallel), writes the runs, reads them back
/// and scores them. Returns the scores and the per-task problems.
fn run_tasks(
    args: &BenchArgs,
    cx: &StageContext<'_>,
    bench: &Bench,
    tasks: &[&Task],
    run_id: i64,
    runs_dir: &Path,
) -> Result<(Scores, Vec<String>), EvalError> {
    let agent = args.agent.as_str();
    let model = match args.agent {
        AgentKind::Openai => {
            let runtime = cx.runtime().map_err(EvalError::Runtime)?;
            let lm = runtime.block_on(cx.language_model(run_id, OfflineRoles::default()))?;
            Some((runtime, lm))
        }
        _ => None,
    };
    let bar = cx.progress(tasks.len() as u64, agent);
    let made: Vec<(String, Result<PathBuf, EvalError>)> = bench.threads.install(|| {
        tasks
            .par_iter()
            .map(|task| {
                let id = task_label(task);
                let instruction = instruction_for(task, args.intent);
                let result = node_checks(task, &bench.subtasks).and_then(|nodes| {
                    let mut agent: Box<dyn Agent + '_> = match (args.agent, &model) {
                        (AgentKind::Offline, _) => {
                            Box::new(OfflineAgent::new(task, &bench.subtasks, bench.joiner()?)?)
                        }
                        (AgentKind::Random, _) => Box::new(RandomAgent::new(
                            RandomAgent::seed_for(cx.seed, &id),
                            bench.launcher.clone(),
                        )),
                        (AgentKind::Openai, Some((runtime, lm))) => Box::new(ModelAgent::new(
                            lm.clone(),
                            runtime,
                            instruction.clone(),
                            true,
                        )),
                        (AgentKind::Openai, None) => return Err(EvalError::NoActor),
                    };
                    let episode = bench.with_desktop(|env| {
                        run_episode(
                            agent.as_mut(),
                            env,
                            task,
                            nodes,
                            args.max_steps,
                            &instruction,
                        )
                    })?;
                    write_run(runs_dir, &episode.trajectory)
                });
                bar.inc(1);
                (id, result)
            })
            .collect()
    });
    bar.finish_and_clear();
    drop(model);
    // Score what was written, read back through the format `eval` reads.
    let mut errors = Vec::new();
    let mut runs = Vec::new();
    let mut failed = Vec::new();
    for (id, r) in made {
        match r {
            Ok(path) => runs.push(read_run(&path)),
            Err(e) => {
                errors.push(e.to_string());
                let task = bench.tasks.get(&id).map(|(_, t)| t);
                failed.push(failed_score(
                    &id,
                    task,
                    e.to_string(),
                    &cx.catalog.capabilities,
                ));
            }
        }
    }
    let (mut per_task, scoring_errors) = bench.score_all(runs, args.max_steps, cx);
    errors.extend(scoring_errors);
    per_task.extend(failed);
    let scores = Scores::build(
        agent,
        &now(cx),
        args.max_steps,
        per_task,
        &cx.catalog.capabilities,
    );
    Ok((scores, errors))
}

/// Removes earlier `*.json` runs so the folder holds exactly this bench's runs.
fn clear_runs(dir: &Path) -> Result<(), EvalError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_file() && path.extension().is_some_and(|e| e == "json") {
            std::fs::remove_file(&path).map_err(|source| EvalError::Write {
                path: path.clone(),
                source,
            })?;
        }
    }
    Ok(())
}
