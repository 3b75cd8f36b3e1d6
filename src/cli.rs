//! The command line: argument parsing, the `synth.toml` configuration, logging,
//! progress bars and exit codes. The only module that knows about `anyhow`.
//!
//! Precedence of settings: built-in defaults < `synth.toml` (in the workspace) <
//! environment variables (where documented) < flags.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context as _, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::Deserialize;

use crate::pipeline::{self, StageContext};
use crate::resources::Catalog;
use crate::store::{RunStatus, Store};

/// synth: synthesizes benchmark tasks and training trajectories for GUI agents.
#[derive(Debug, Parser)]
#[command(name = "synth", version, about, long_about = None)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every subcommand takes.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// The workspace: where resources/, subtask_pool/ and generated/ live.
    #[arg(long, global = true, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// The store file (default: generated/synth.sqlite in the workspace).
    #[arg(long, global = true, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Seed for every random choice (default 1).
    #[arg(long, global = true, value_name = "N")]
    pub seed: Option<u64>,
    /// Worker threads for CPU-bound work (default: number of cores).
    #[arg(long, global = true, value_name = "N")]
    pub jobs: Option<usize>,
    /// No progress bars and no summaries on stderr; errors still print.
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// Log format on stderr.
    #[arg(long, global = true, value_enum)]
    pub log_format: Option<LogFormat>,
    /// Language-model backend for the stages that call models: offline (built-in,
    /// deterministic, no network), openai (any OpenAI-compatible endpoint) or replay
    /// (recorded calls only).
    #[arg(long, global = true, value_name = "BACKEND")]
    pub llm: Option<crate::llm::Backend>,
    /// Base URL of the OpenAI-compatible endpoint (overrides OPENAI_BASE_URL and synth.toml).
    #[arg(long, global = true, value_name = "URL")]
    pub base_url: Option<String>,
    /// One model name for every role (overrides synth.toml's per-role models).
    #[arg(long, global = true, value_name = "NAME")]
    pub model: Option<String>,
    /// Model requests in flight at once, shared across a stage (default 8).
    #[arg(long, global = true, value_name = "N")]
    pub concurrency: Option<usize>,
    /// Ask the model again even when the call record holds an answer.
    #[arg(long, global = true)]
    pub no_cache: bool,
    /// Stop sending model requests after N (retries included) in this command;
    /// what is left stays pending (exit 3) and a re-run goes on from there.
    #[arg(long, global = true, value_name = "N")]
    pub max_calls: Option<u64>,
    /// Stop sending model requests once this many US dollars are spent in this
    /// command (at the `[llm.prices]` of synth.toml), like --max-calls.
    #[arg(long, global = true, value_name = "USD")]
    pub max_cost: Option<f64>,
    /// The desktop: sim (the embedded simulated desktop, default), x11 (real Linux
    /// applications on an Xvfb display; see the README for what to install) or
    /// osworld (an OSWorld VM's server, with --osworld-url).
    #[arg(long = "env", global = true, value_enum, value_name = "BACKEND")]
    pub env_backend: Option<crate::env::EnvBackend>,
    /// The in-VM server of `--env osworld` (http://HOST:5000).
    #[arg(long, global = true, value_name = "URL")]
    pub osworld_url: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The whole pipeline (explore, verify, intents, compose, validate,
    /// trajectories, export, report), each stage skipping work already done.
    Run(crate::run::RunArgs),
    /// Propose subtasks per application (explorer role) and store them as proposed.
    Explore(pipeline::explore::ExploreArgs),
    /// Group verified subtasks into task intents (the planner role).
    Intents(pipeline::intents::IntentsArgs),
    /// Compose DAG tasks of controlled complexity inside the intents (or, with
    /// --no-intents, over the pool's components).
    Compose(Box<pipeline::compose::ComposeArgs>),
    /// Validate composed tasks: summarize, reconstruct the dependencies from the
    /// instruction alone, compare, re-summarize on mismatch.
    Validate(pipeline::validate::ValidateArgs),
    /// Task trajectories: concatenate verified subtask trajectories per
    /// topological order, replay them and keep those that complete every node.
    Trajectories(pipeline::trajectories::TrajectoriesArgs),
    /// Move verified subtasks between the store and JSONL files.
    #[command(subcommand)]
    Pool(PoolCommand),
    /// Cross-verify a trajectory and an evaluation for every proposed subtask.
    Verify(pipeline::verify::VerifyArgs),
    /// Print pool and task counts and the complexity distribution.
    Stats(StatsArgs),
    /// Inspect the simulated desktop: list, show, play and lint applications.
    #[command(subcommand)]
    Env(crate::env::EnvCommand),
    /// The language-model endpoint.
    #[command(subcommand)]
    Llm(LlmCommand),
    /// Score agent runs (one file per task) with the graph evaluator (OmniEval).
    Eval(crate::eval::command::EvalArgs),
    /// Run an agent (offline, random, openai) on the tasks and score it.
    Bench(crate::eval::command::BenchArgs),
    /// Benchmarks that report timings and peak memory.
    #[command(subcommand)]
    Perf(PerfCommand),
    /// Export tasks and trajectories (omnibench, sharegpt, openai, qwen, osworld,
    /// grounding, idm, critic), with screenshots rendered by replay.
    Export(Box<crate::export::ExportArgs>),
    /// Write one self-contained HTML page about the store (generated/report.html).
    Report(crate::report::ReportArgs),
    /// A human review sheet: --sample N writes review.html and review.csv of N
    /// tasks; --import FILE stores the marked CSV and prints the acceptance.
    Review(crate::review::ReviewArgs),
}

impl Command {
    /// Does the command write to the store (or to the shared export folders)? Such
    /// commands take the store's writer lock; the others read beside a writer.
    pub fn writes_store(&self) -> bool {
        !matches!(
            self,
            Command::Stats(_)
                | Command::Report(_)
                | Command::Pool(PoolCommand::Export { .. })
                | Command::Env(_)
                | Command::Llm(_)
                | Command::Perf(_)
        )
    }
}

#[derive(Debug, Subcommand)]
pub enum LlmCommand {
    /// Check the configured endpoint: list its models (or send one tiny request)
    /// and say plainly what is wrong if anything is.
    Ping,
}

#[derive(Debug, Subcommand)]
pub enum PerfCommand {
    /// Measure the compose stage as it runs (offline intent scopes, compose, store
    /// in SQLite, write tasks.jsonl) on the committed pool and on a generated pool
    /// (OmniBench's sizes: 255 subtasks over 49 applications), at 1,000, 10,000
    /// and 36,076 tasks: wall time, peak RSS and bytes per task. `--engine-only`
    /// times the composer alone on the generated pool.
    Compose(PerfComposeArgs),
    /// Step latency on the desktop `--env` names (action, screenshot and controls),
    /// over a cycle of opening and closing the application's first menu.
    Env(PerfEnvArgs),
}

#[derive(Debug, Args)]
pub struct PerfEnvArgs {
    /// The application to launch (as `synth env list` names it).
    #[arg(long, default_value = "Mousepad")]
    pub app: String,
    /// Steps to time.
    #[arg(long, default_value_t = 60)]
    pub steps: usize,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct PerfComposeArgs {
    /// Subtasks in the generated pool.
    #[arg(long, default_value_t = 255)]
    pub subtasks: usize,
    /// Applications in the generated pool (spread over the 12 categories).
    #[arg(long, default_value_t = 49)]
    pub apps: usize,
    /// Tasks to compose (`--engine-only`).
    #[arg(long, default_value_t = 36_076)]
    pub tasks: usize,
    /// Task counts to measure the stage at, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [1_000, 10_000, 36_076])]
    pub counts: Vec<usize>,
    /// Which pools to measure the stage on.
    #[arg(long, value_enum, default_value_t = PerfPools::Both)]
    pub pool: PerfPools,
    /// Time the composer alone (no store, no file) on the generated pool.
    #[arg(long)]
    pub engine_only: bool,
    /// Fix every task's size in nodes (other dimensions free).
    #[arg(long)]
    pub nodes: Option<usize>,
    #[arg(long, default_value = "omnibench")]
    pub profile: crate::graph::Profile,
    #[arg(long, default_value_t = crate::graph::DEFAULT_MAX_ORDERS)]
    pub max_orders: usize,
    /// Also build every task's full JSON-ready record (strings) and drop it.
    #[arg(long)]
    pub materialize: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The pools `synth perf compose` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PerfPools {
    Committed,
    Synthetic,
    Both,
}

#[derive(Debug, Subcommand)]
pub enum PoolCommand {
    /// Import a pool file (one subtask per line) as verified subtasks.
    Import {
        /// The JSONL file(s) to import.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Export the verified pool as JSONL, sorted by id (stdout unless --out).
    Export {
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Machine-readable JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `synth.toml`: every key optional; flags override.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    pub db: Option<PathBuf>,
    pub seed: Option<u64>,
    pub jobs: Option<usize>,
    pub quiet: Option<bool>,
    pub log_format: Option<LogFormat>,
    /// `openai` (the default for --llm when set here), `offline` or `replay`.
    pub backend: Option<crate::llm::Backend>,
    #[serde(default)]
    pub compose: pipeline::compose::ComposeDefaults,
    /// `[llm]`: endpoint, per-role models, limits, prices (see `llm::LlmConfig`).
    #[serde(default)]
    pub llm: crate::llm::LlmConfig,
}

impl ConfigFile {
    /// Reads `synth.toml` from the workspace when present.
    pub fn load(workspace: &Path) -> Result<ConfigFile> {
        let path = workspace.join("synth.toml");
        if !path.is_file() {
            return Ok(ConfigFile::default());
        }
        Ok(crate::resources::read_toml(&path)?)
    }
}

/// Settings after merging defaults, config file and flags.
#[derive(Debug, Clone)]
pub struct Settings {
    pub workspace: PathBuf,
    pub db: PathBuf,
    pub seed: u64,
    pub jobs: usize,
    pub quiet: bool,
    pub log_format: LogFormat,
    /// The desktop (`--env`, `--osworld-url`).
    pub env: crate::env::EnvSetup,
}

impl Settings {
    pub fn resolve(global: &GlobalArgs, file: &ConfigFile) -> Result<Settings> {
        let workspace = global
            .workspace
            .clone()
            .unwrap_or_else(|| PathBuf::from("."));
        if !workspace.is_dir() {
            bail!("the workspace {} is not a folder", workspace.display());
        }
        let db = global
            .db
            .clone()
            .or_else(|| file.db.clone())
            .map(|p| {
                if p.is_relative() {
                    workspace.join(p)
                } else {
                    p
                }
            })
            .unwrap_or_else(|| workspace.join("generated").join("synth.sqlite"));
        let jobs = global
            .jobs
            .or(file.jobs)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        if jobs == 0 {
            bail!("--jobs must be at least 1");
        }
        Ok(Settings {
            workspace,
            db,
            seed: global.seed.or(file.seed).unwrap_or(1),
            jobs,
            quiet: global.quiet || file.quiet.unwrap_or(false),
            log_format: global
                .log_format
                .or(file.log_format)
                .unwrap_or(LogFormat::Text),
            env: crate::env::EnvSetup {
                backend: global.env_backend.unwrap_or_default(),
                osworld_url: global.osworld_url.clone(),
            },
        })
    }
}

fn init_logging(settings: &Settings) {
    use tracing_subscriber::EnvFilter;
    let default = if settings.quiet { "warn" } else { "info" };
    let filter = EnvFilter::try_from_env("SYNTH_LOG").unwrap_or_else(|_| EnvFilter::new(default));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false);
    // A second init (tests calling `run` twice in one process) is harmless.
    let _ = match settings.log_format {
        LogFormat::Json => builder.json().try_init(),
        LogFormat::Text => builder.without_time().try_init(),
    };
}

/// What a command reports back to `main`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything asked was done.
    Done,
    /// The command finished but did less than asked (e.g. a composition shortfall).
    Partial,
}

impl Outcome {
    pub fn exit_code(self) -> ExitCode {
        match self {
            Outcome::Done => ExitCode::SUCCESS,
            Outcome::Partial => ExitCode::from(3),
        }
    }
}

/// Runs one command line.
pub fn run(cli: Cli) -> Result<Outcome> {
    let file = ConfigFile::load(cli.global.workspace.as_deref().unwrap_or(Path::new(".")))?;
    let settings = Settings::resolve(&cli.global, &file)?;
    init_logging(&settings);
    match &cli.command {
        Command::Perf(PerfCommand::Compose(args)) => return perf_compose(args, &settings),
        Command::Perf(PerfCommand::Env(args)) => {
            let mut desk = settings.env.open(&settings.workspace, 0)?;
            let r = crate::env::perf::step_latency(desk.as_mut(), &args.app, args.steps)?;
            if args.json {
                println!("{}", serde_json::to_string_pretty(&r)?);
            } else {
                println!("{r}");
            }
            return Ok(Outcome::Done);
        }
        Command::Llm(LlmCommand::Ping) => return llm_ping(&cli.global, &file),
        Command::Env(cmd) => {
            let stdout = std::io::stdout();
            crate::env::run_command(cmd, &settings.workspace, &settings.env, &mut stdout.lock())?;
            return Ok(Outcome::Done);
        }
        _ => {}
    }
    let catalog = Catalog::load(&settings.workspace).with_context(|| {
        format!(
            "cannot load the catalogues under {}/resources (is --workspace right?)",
            settings.workspace.display()
        )
    })?;
    // One writer at a time; readers open beside it (see the store's module doc).
    let store = if cli.command.writes_store() {
        Store::open_writer(&settings.db)?
    } else {
        Store::open_reader(&settings.db)?
    };
    let cx = StageContext {
        workspace: settings.workspace.clone(),
        store: &store,
        catalog: &catalog,
        seed: settings.seed,
        jobs: settings.jobs,
        quiet: settings.quiet,
        llm: pipeline::LlmSetup {
            backend: cli.global.llm.or(file.backend).unwrap_or_default(),
            config: llm_config(&cli.global, &file),
            no_cache: cli.global.no_cache,
            replay_file: None,
            budget: std::sync::Arc::new(crate::llm::Budget::new(
                cli.global.max_calls,
                cli.global.max_cost,
            )),
        },
        env: settings.env.clone(),
    };
    let result = run_command(&cli, &settings, &file, &catalog, &cx).map_err(|err| {
        let store = settings.db.display();
        match sqlite_code(&err) {
            Some(rusqlite::ErrorCode::DiskFull) => err.context(format!(
                "the disk holding the store {store} is full; free some space and run again (what was stored stays stored)"
            )),
            Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase) => {
                err.context(format!(
                    "the store {store} is damaged; restore it from a copy, or start a new store with another --db"
                ))
            }
            _ if unreadable_text(&err) => {
                err.context(format!(
                    "the store {store} is damaged; restore it from a copy, or start a new store with another --db"
                ))
            }
            _ if caused_by_io(&err, std::io::ErrorKind::StorageFull) => err.context(
                "the disk is full; free some space and run again (what was stored stays \
                 stored, and files being replaced keep their previous version)",
            ),
            _ => err,
        }
    });
    if let Err(err) = &result {
        if cli.command.writes_store() {
            // The failed command's runs end as failed, not 'running' forever.
            let summary = serde_json::json!({ "error": error_message(err) });
            if let Err(e) = store.close_open_runs(RunStatus::Failed, &summary) {
                tracing::warn!(error = %format!("{:#}", anyhow::Error::new(e)), "cannot record the failed run");
            }
        }
    }
    result
}

/// Did the failed command read stored text that is not UTF-8? synth writes
/// only UTF-8, so such text is a damaged page SQLite did not notice (noise in
/// a record's body reads as text of the wrong encoding).
fn unreadable_text(err: &anyhow::Error) -> bool {
    err.chain()
        .any(|cause| match cause.downcast_ref::<rusqlite::Error>() {
            Some(rusqlite::Error::Utf8Error(..)) => true,
            Some(rusqlite::Error::FromSqlConversionFailure(_, _, source)) => {
                source.downcast_ref::<std::str::Utf8Error>().is_some()
            }
            _ => false,
        })
}

/// The code of the SQLite error in the chain of a failed command, if any: a full
/// disk or a damaged file, whose SQLite messages ('database or disk is full',
/// 'database disk image is malformed') name no file.
fn sqlite_code(err: &anyhow::Error) -> Option<rusqlite::ErrorCode> {
    err.chain()
        .find_map(|cause| match cause.downcast_ref::<rusqlite::Error>() {
            Some(rusqlite::Error::SqliteFailure(f, _)) => Some(f.code),
            _ => None,
        })
}

/// Did a failed command stop on an I/O error of `kind` anywhere in its chain (a
/// full disk while writing a file, a reader that closed the pipe)?
pub fn caused_by_io(err: &anyhow::Error, kind: std::io::ErrorKind) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == kind)
    })
}

/// Runs a command that uses the store.
fn run_command(
    cli: &Cli,
    settings: &Settings,
    file: &ConfigFile,
    catalog: &Catalog,
    cx: &StageContext<'_>,
) -> Result<Outcome> {
    let store = cx.store;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match &cli.command {
        Command::Run(args) => {
            let report = crate::run::run(args, &file.compose, cx)?;
            if !settings.quiet {
                write!(out, "{report}")?;
            }
            Ok(if report.shortfall {
                Outcome::Partial
            } else {
                Outcome::Done
            })
        }
        Command::Explore(args) => {
            let report = pipeline::explore::run(args, cx)?;
            if !settings.quiet {
                writeln!(out, "{report}")?;
            }
            Ok(if report.failed().next().is_some() {
                Outcome::Partial
            } else {
                Outcome::Done
            })
        }
        Command::Compose(args) if args.plan => {
            let plan = pipeline::compose::plan(args, &file.compose, cx)?;
            if !settings.quiet {
                write!(out, "{plan}")?;
            }
            Ok(Outcome::Done)
        }
        Command::Compose(args) => {
            let report = pipeline::compose::run(args, &file.compose, cx)?;
            if !settings.quiet {
                writeln!(out, "{report}")?;
            }
            Ok(if report.shortfall.is_some() {
                Outcome::Partial
            } else {
                Outcome::Done
            })
        }
        Command::Intents(args) => {
            let report = pipeline::intents::run(args, cx)?;
            if !settings.quiet {
                writeln!(out, "{report}")?;
            }
            Ok(Outcome::Done)
        }
        Command::Validate(args) => {
            let report = pipeline::validate::stage::run(args, cx)?;
            if !settings.quiet {
                writeln!(out, "{report}")?;
            }
            // Tasks whose model calls got no reply stay composed for the next run.
            Ok(if report.failed > 0 {
                Outcome::Partial
            } else {
                Outcome::Done
            })
        }
        Command::Trajectories(args) => {
            let report = pipeline::trajectories::run(args, cx)?;
            if !settings.quiet {
                writeln!(out, "{report}")?;
            }
            Ok(Outcome::Done)
        }
        Command::Pool(PoolCommand::Import { files }) => {
            for f in files {
                let r = store.import_pool(f, catalog)?;
                if !settings.quiet {
                    writeln!(
                        out,
                        "imported {} subtasks from {} ({} new, {} replaced, {} trajectories)",
                        r.subtasks,
                        f.display(),
                        r.new,
                        r.replaced,
                        r.trajectories
                    )?;
                }
            }
            Ok(Outcome::Done)
        }
        Command::Pool(PoolCommand::Export { out: Some(path) }) => {
            // Written whole (temporary file, then rename): a failed export never
            // leaves a half-written pool file.
            let n = crate::atomic::try_write_with(path, |w| store.export_pool(w))
                .with_context(|| format!("cannot write {}", path.display()))??;
            if !settings.quiet {
                eprintln!("exported {n} subtasks to {}", path.display());
            }
            Ok(Outcome::Done)
        }
        Command::Pool(PoolCommand::Export { out: None }) => {
            store.export_pool(&mut out)?;
            Ok(Outcome::Done)
        }
        Command::Eval(args) => {
            let report = crate::eval::command::eval(args, cx)?;
            if !settings.quiet {
                write!(out, "{report}")?;
            } else {
                for e in &report.errors {
                    eprintln!("synth: {e}");
                }
            }
            Ok(if report.errors.is_empty() {
                Outcome::Done
            } else {
                Outcome::Partial
            })
        }
        Command::Bench(args) => {
            let report = crate::eval::command::bench(args, cx)?;
            if !settings.quiet {
                write!(out, "{report}")?;
            } else {
                for e in &report.errors {
                    eprintln!("synth: {e}");
                }
            }
            Ok(if report.errors.is_empty() {
                Outcome::Done
            } else {
                Outcome::Partial
            })
        }
        Command::Perf(_) | Command::Llm(_) | Command::Env(_) => {
            unreachable!("handled before the store is opened")
        }
        Command::Verify(args) => {
            // verify::run verifies on the real desktop itself when it has no replica.
            let report = pipeline::verify::run(args, cx, pipeline::explore::stage_roles(cx)?)?;
            if !settings.quiet {
                write!(out, "{report}")?;
            }
            Ok(if report.pending > 0 {
                Outcome::Partial
            } else {
                Outcome::Done
            })
        }
        Command::Export(args) => {
            let report = crate::export::run(args, cx)?;
            if !settings.quiet {
                writeln!(out, "{report}")?;
            }
            Ok(Outcome::Done)
        }
        Command::Report(args) => {
            let summary = crate::report::run(args, cx)?;
            if !settings.quiet {
                writeln!(out, "{summary}")?;
            }
            Ok(Outcome::Done)
        }
        Command::Review(args) => {
            let outcome = crate::review::run(args, cx)?;
            if args.json {
                writeln!(out, "{}", serde_json::to_string_pretty(&outcome)?)?;
            } else if !settings.quiet {
                writeln!(out, "{outcome}")?;
            }
            Ok(Outcome::Done)
        }
        Command::Stats(args) => {
            let stats = pipeline::stats::collect(cx)?;
            if args.json {
                writeln!(out, "{}", serde_json::to_string_pretty(&stats)?)?;
            } else {
                write!(out, "{stats}")?;
            }
            Ok(Outcome::Done)
        }
    }
}

/// An error and its causes on one line, `outer: cause: root cause`, each message
/// once. Many errors include their cause's text in their own message (`"intents:
/// {0}"`) and also return it as their `source`, and SQLite's errors repeat their
/// text behind a code (`"Error code 11: database disk image is malformed"`): a cause
/// whose text is already printed, or that only prefixes the previous message, is
/// left out.
pub fn error_message(err: &anyhow::Error) -> String {
    let mut out = String::new();
    let mut last = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if out.contains(&text) || (!last.is_empty() && text.ends_with(&last)) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
        last = text;
    }
    out
}

fn perf_compose(args: &PerfComposeArgs, settings: &Settings) -> Result<Outcome> {
    if !args.engine_only {
        return perf_compose_stage(args, settings);
    }
    let cfg = crate::graph::synthetic::PerfConfig {
        subtasks: args.subtasks,
        apps: args.apps,
        tasks: args.tasks,
        seed: settings.seed,
        nodes: args.nodes,
        profile: args.profile,
        max_orders: args.max_orders,
        materialize: args.materialize,
    };
    let threads = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.jobs)
        .build()?;
    let report = threads.install(|| crate::graph::synthetic::perf_compose_with(&cfg))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("{report}");
    }
    Ok(Outcome::Done)
}

/// `synth perf compose` without `--engine-only`: the whole stage.
fn perf_compose_stage(args: &PerfComposeArgs, settings: &Settings) -> Result<Outcome> {
    let catalog = Catalog::load(&settings.workspace).with_context(|| {
        format!(
            "cannot load the catalogues under {}/resources (is --workspace right?)",
            settings.workspace.display()
        )
    })?;
    let cfg = pipeline::perf::StagePerfConfig {
        committed: args.pool != PerfPools::Synthetic,
        synthetic: (args.pool != PerfPools::Committed).then_some((args.subtasks, args.apps)),
        counts: args.counts.clone(),
        profile: args.profile,
        max_orders: args.max_orders,
        seed: settings.seed,
        jobs: settings.jobs,
    };
    let report = pipeline::perf::perf_compose_stage(&settings.workspace, &catalog, &cfg)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{report}");
    }
    Ok(Outcome::Done)
}

/// The `[llm]` config with OPENAI_* variables and flags applied.
pub fn llm_config(global: &GlobalArgs, file: &ConfigFile) -> crate::llm::LlmConfig {
    let flags = crate::llm::LlmOverrides {
        base_url: global.base_url.clone(),
        api_key: None,
        model: global.model.clone(),
        concurrency: global.concurrency,
        timeout_ms: None,
        max_retries: None,
    };
    file.llm.clone().resolve(&flags)
}

fn llm_ping(global: &GlobalArgs, file: &ConfigFile) -> Result<Outcome> {
    let cfg = llm_config(global, file);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let report = runtime.block_on(crate::llm::ping(&cfg))?;
    println!("{report}");
    Ok(Outcome::Done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::intents::IntentsStageError;
    use crate::run::RunError;
    use crate::store::StoreError;

    #[test]
    fn each_message_of_an_error_chain_is_printed_once() {
        let sqlite = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(11),
            Some("database disk image is malformed".into()),
        );
        let err = anyhow::Error::from(RunError::Intents(IntentsStageError::Store(
            StoreError::Sql(sqlite),
        )));
        // Before: "intents: store query failed: store query failed: database disk
        // image is malformed: Error code 11: database disk image is malformed".
        assert_eq!(
            error_message(&err),
            "intents: store query failed: database disk image is malformed"
        );
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let err = anyhow::Error::from(io).context("cannot write out.json");
        assert_eq!(error_message(&err), "cannot write out.json: denied");
    }
}
