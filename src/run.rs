//! `synth run`: the whole pipeline in one command, each stage skipping the work
//! already done (so a second run does nothing new), then the exports and the report.
//!
//! Order: explore, verify, intents, compose, validate, trajectories, export (the
//! formats of `--formats`), report. Every stage is called with the defaults its own
//! subcommand has (parsed from an empty command line, so the two never drift apart),
//! plus the few settings `run` exposes. The model backend is the command's `--llm`
//! (offline by default: the built-in rule-based roles on the simulated desktop).

use std::collections::BTreeSet;
use std::fmt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::export::{ExportArgs, Format};
use crate::graph::Profile;
use crate::model::{Dimension, Level, SubtaskStatus};
use crate::pipeline::compose::{ComposeArgs, ComposeDefaults};
use crate::pipeline::explore::ExploreArgs;
use crate::pipeline::intents::IntentsArgs;
use crate::pipeline::trajectories::TrajectoriesArgs;
use crate::pipeline::validate::stage::ValidateArgs;
use crate::pipeline::verify::VerifyArgs;
use crate::report::ReportArgs;
use crate::stage::StageContext;
use crate::store::intents::IntentStatus;
use crate::store::Table;

/// Most intents `run` asks the offline planner for: enough for every group it
/// proposes on a pool of a few thousand subtasks, so that composition can reach
/// every application that has dependencies.
pub const RUN_MAX_INTENTS: usize = 10_000;

/// Flags of `synth run`.
#[derive(Debug, Clone, clap::Args, Serialize)]
pub struct RunArgs {
    /// Tasks to compose with the profile (a repeated run with the same settings
    /// composes nothing new; fewer made than asked is exit 3).
    #[arg(long, short = 'n', default_value_t = 40)]
    pub count: usize,
    /// Level distribution of the composed tasks: free (whatever the intents
    /// hold, then a few tasks at every level left empty), omnibench (OmniBench
    /// figure 3; the offline pool is too small for its share of hard tasks inside
    /// intents, so the run stops short with exit 3) or uniform.
    #[arg(long, default_value = "free")]
    #[serde(serialize_with = "serialize_display")]
    pub profile: Profile,
    /// Export formats to write after the trajectories (comma-separated, e.g.
    /// `omnibench,sharegpt,openai`; `none` for no export). The default writes the
    /// LLaMA-Factory training set; `synth export --format F` writes any other.
    #[arg(long, value_delimiter = ',', default_value = "sharegpt")]
    pub formats: Vec<String>,
    /// Do not write the HTML report.
    #[arg(long)]
    pub no_report: bool,
}

fn serialize_display<S: serde::Serializer>(v: &Profile, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// A stage's failure, whichever stage it was.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    #[error("explore: {0}")]
    Explore(#[from] crate::pipeline::explore::ExploreError),
    #[error("verify: {0}")]
    Verify(#[from] crate::pipeline::verify::VerifyError),
    #[error("intents: {0}")]
    Intents(#[from] crate::pipeline::intents::IntentsStageError),
    #[error("compose: {0}")]
    Compose(#[from] crate::pipeline::compose::ComposeStageError),
    #[error("validate: {0}")]
    Validate(#[from] crate::pipeline::validate::stage::ValidateStageError),
    #[error("trajectories: {0}")]
    Trajectories(#[from] crate::pipeline::trajectories::TrajectoriesStageError),
    #[error("export: {0}")]
    Export(#[from] crate::export::ExportError),
    #[error("report: {0}")]
    Report(#[from] crate::report::ReportError),
    #[error("unknown export format '{0}' (expected omnibench, sharegpt, openai, qwen, osworld, grounding, idm, critic or none)")]
    UnknownFormat(String),
}

/// One stage's line in the run's summary.
#[derive(Debug, Clone, Serialize)]
pub struct StageLine {
    pub stage: String,
    pub seconds: f64,
    pub summary: String,
}

/// What `synth run` did and where the results are.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub stages: Vec<StageLine>,
    /// Files and folders a user opens next.
    pub outputs: Vec<(String, PathBuf)>,
    /// Did the composition fall short of `--count`, or a stage leave work
    /// pending (exit 3; a re-run does what is left)?
    pub shortfall: bool,
    /// Applications whose explorer call failed (asked again on the next run).
    pub unexplored: Vec<String>,
    /// What is left undone and why, one line per stage that left something
    /// (`verify: 3 subtasks pending: ...`); empty when the run did everything.
    pub pending: Vec<String>,
    /// Model requests sent by this run (retries included) and their cost; none
    /// offline.
    pub model_requests: u64,
    pub model_cost_usd: f64,
    /// The same per role (only the roles that sent a request).
    pub model_roles: Vec<crate::llm::budget::RoleSpend>,
    pub seconds: f64,
}

impl fmt::Display for RunReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for s in &self.stages {
            let mut lines = stage_lines(&s.stage, &s.summary);
            let first = lines.next().unwrap_or("");
            writeln!(f, "{:>12}  {:>6.1}s  {first}", s.stage, s.seconds)?;
            for line in lines {
                writeln!(f, "{:>12}           {line}", "")?;
            }
        }
        if !self.pending.is_empty() {
            writeln!(f, "left undone (run again to retry what failed):")?;
            for p in &self.pending {
                writeln!(f, "  {p}")?;
            }
        }
        if self.model_requests > 0 {
            writeln!(
                f,
                "model requests sent: {} · ${:.4} (synth stats shows every run's)",
                self.model_requests, self.model_cost_usd
            )?;
            for role in &self.model_roles {
                writeln!(f, "  {role}")?;
            }
        }
        writeln!(f, "done in {:.1}s; results:", self.seconds)?;
        for (what, path) in &self.outputs {
            writeln!(f, "  {what:<22} {}", path.display())?;
        }
        Ok(())
    }
}

/// The lines of a stage's summary that `synth run` shows: every line of counts,
/// without the per-application tables (explore's rows, verify's indented rows),
/// which the stage's own subcommand shows; an application whose exploration
/// failed stays, with why.
fn stage_lines<'a>(stage: &str, summary: &'a str) -> impl Iterator<Item = &'a str> {
    let explore = stage == "explore";
    summary
        .lines()
        .enumerate()
        .filter(move |(i, line)| {
            *i == 0
                || line.contains("failed:")
                || (!explore && !line.starts_with("  ") && !line.trim().is_empty())
        })
        .map(|(_, line)| line.trim_end())
}

/// A stage's arguments exactly as its subcommand parses them from `argv`
/// (`argv` holds only flags; the defaults are the subcommand's own).
fn stage_args<A: clap::Args + clap::FromArgMatches>(argv: &[&str]) -> A {
    let cmd = A::augment_args(clap::Command::new("synth"));
    let matches = cmd
        .try_get_matches_from(std::iter::once("synth").chain(argv.iter().copied()))
        .expect("run passes only flags its stages define");
    A::from_arg_matches(&matches).expect("clap produced the matches of these args")
}

fn parse_formats(names: &[String]) -> Result<Vec<Format>, RunError> {
    use clap::ValueEnum;
    let mut out = Vec::new();
    for n in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        if n == "none" {
            continue;
        }
        let f = Format::from_str(n, true).map_err(|_| RunError::UnknownFormat(n.to_string()))?;
        if !out.contains(&f) {
            out.push(f);
        }
    }
    Ok(out)
}

/// Runs the pipeline. The stages' own progress bars show while it runs.
///
/// # Errors
/// The first stage error; everything stored before it stays stored.
pub fn run(
    args: &RunArgs,
    compose_defaults: &ComposeDefaults,
    cx: &StageContext<'_>,
) -> Result<RunReport, RunError> {
    let formats = parse_formats(&args.formats)?;
    let started = Instant::now();
    let mut stages = Vec::new();
    let timed = |stages: &mut Vec<StageLine>, stage: &str, t: Instant, summary: String| {
        stages.push(StageLine {
            stage: stage.to_string(),
            seconds: secs(t.elapsed()),
            summary,
        });
    };

    let t = Instant::now();
    let r = crate::pipeline::explore::run(&stage_args::<ExploreArgs>(&[]), cx)?;
    let unexplored: Vec<String> = r.failed().map(|(app, _)| app.clone()).collect();
    let mut pending: Vec<String> = r
        .failed()
        .map(|(app, why)| format!("explore: {app} not explored: {why}"))
        .collect();
    timed(&mut stages, "explore", t, r.to_string());

    if let Some(report) = stop_on_budget(cx, &mut stages, &mut pending, &unexplored, started) {
        return Ok(report);
    }

    let t = Instant::now();
    let verify_args = stage_args::<VerifyArgs>(&[]);
    // verify::run verifies on the real desktop itself when it has no replica.
    let roles = crate::pipeline::explore::stage_roles(cx)?;
    let r = crate::pipeline::verify::run(&verify_args, cx, roles)?;
    if r.pending > 0 && !r.not_tried.is_empty() {
        pending.push(format!(
            "verify: {} subtasks pending (a desktop could not try them; see the warnings)",
            r.pending
        ));
    } else if r.pending > 0 {
        pending.push(format!(
            "verify: {} subtasks pending ({} units got no model reply this run; see the warnings)",
            r.pending, r.units_failed
        ));
    }
    timed(&mut stages, "verify", t, r.to_string());

    if let Some(report) = stop_on_budget(cx, &mut stages, &mut pending, &unexplored, started) {
        return Ok(report);
    }

    // Intents are planned once per pool: a repeated `synth intents` proposes new
    // groups beside the stored ones, which a repeated run must not do. Whether the
    // current pool was planned is read from the intents stage's completion record
    // (its run, finished `ok`, with the pool's signature), never from "some intents
    // exist": a killed planning stage is planned again.
    let t = Instant::now();
    let signature = crate::pipeline::intents::pool_signature(
        cx.store
            .subtasks(SubtaskStatus::Verified)
            .map_err(crate::pipeline::intents::IntentsStageError::from)?
            .iter()
            .map(|s| s.id.0.as_str()),
    );
    let planned = cx
        .store
        .intents_planned_for(&signature)
        .map_err(crate::pipeline::intents::IntentsStageError::from)?;
    if !planned {
        // Offline, every group the planner finds, not the first 64: the groups past
        // the cap hold the applications the wide groups miss (14 of 28
        // applications within the first 64 on the committed pool). A model planner
        // keeps the subcommand's cap (one call, one answer).
        let max = RUN_MAX_INTENTS.to_string();
        let argv: &[&str] = if cx.llm.backend == crate::llm::Backend::Offline {
            &["--max", &max]
        } else {
            &[]
        };
        let r = crate::pipeline::intents::run(&stage_args::<IntentsArgs>(argv), cx)?;
        timed(&mut stages, "intents", t, r.to_string());
    } else {
        let stored = cx
            .store
            .count(Table::Intents, Some(&IntentStatus::Accepted))
            .map_err(crate::pipeline::intents::IntentsStageError::from)?;
        timed(
            &mut stages,
            "intents",
            t,
            format!("{stored} intents already planned for this pool"),
        );
    }

    // The capabilities first: their shapes (five branches, a chain of five)
    // are the scarce ones, and the main composition, balanced against them,
    // keeps every subtask under its share around them. Composed after it,
    // they found the few subtasks a wide task needs already at their share.
    let t = Instant::now();
    let capabilities = top_up_capabilities(compose_defaults, cx)?;
    let capabilities_took = t.elapsed();
    let t = Instant::now();
    let count = args.count.to_string();
    let profile = args.profile.to_string();
    let compose_args: ComposeArgs = stage_args(&[
        "--count",
        count.as_str(),
        "--profile",
        profile.as_str(),
        "--balance-with-store",
    ]);
    let r = crate::pipeline::compose::run(&compose_args, compose_defaults, cx)?;
    if let Some(short) = &r.shortfall {
        pending.push(format!(
            "compose: made {} of {} tasks; ran dry: {}",
            short.made, short.requested, short.constraint
        ));
    }
    timed(&mut stages, "compose", t, r.to_string());

    // The stage line counts the capabilities' time too.
    let t = Instant::now()
        .checked_sub(capabilities_took)
        .unwrap_or_else(Instant::now);
    let mut topped = capabilities;
    topped.extend(top_up_levels(compose_defaults, cx)?);
    topped.extend(top_up_applications(compose_defaults, cx)?);
    if !topped.is_empty() {
        timed(&mut stages, "top-up", t, topped.join("; "));
    }

    if let Some(report) = stop_on_budget(cx, &mut stages, &mut pending, &unexplored, started) {
        return Ok(report);
    }

    let t = Instant::now();
    let r = crate::pipeline::validate::stage::run(&stage_args::<ValidateArgs>(&[]), cx)?;
    if r.failed > 0 {
        pending.push(format!(
            "validate: {} tasks got no model reply and stay composed: {}",
            r.failed,
            r.first_error.as_deref().unwrap_or("")
        ));
    }
    timed(&mut stages, "validate", t, r.to_string());

    let t = Instant::now();
    let r = crate::pipeline::trajectories::run(&stage_args::<TrajectoriesArgs>(&[]), cx)?;
    timed(&mut stages, "trajectories", t, r.to_string());

    let generated = cx.workspace.join("generated");
    let mut outputs = vec![
        ("store".to_string(), cx.store.path().to_path_buf()),
        ("tasks".to_string(), generated.join("tasks.jsonl")),
        (
            "task trajectories".to_string(),
            generated.join("task_trajectories.jsonl"),
        ),
    ];
    for format in formats {
        let t = Instant::now();
        let export_args = ExportArgs::new(format);
        let r = crate::export::run(&export_args, cx)?;
        outputs.push((format!("export {}", format.as_str()), r.out.clone()));
        timed(
            &mut stages,
            &format!("export {}", format.as_str()),
            t,
            r.to_string(),
        );
    }

    if !args.no_report {
        let t = Instant::now();
        let r = crate::report::run(&stage_args::<ReportArgs>(&[]), cx)?;
        outputs.push(("report".to_string(), r.path.clone()));
        timed(&mut stages, "report", t, r.to_string());
    }

    Ok(RunReport {
        stages,
        outputs,
        shortfall: !pending.is_empty(),
        unexplored,
        pending,
        model_requests: cx.llm.budget.used().0,
        model_cost_usd: cx.llm.budget.used().1,
        model_roles: cx.llm.budget.by_role(),
        seconds: secs(started.elapsed()),
    })
}

/// When the model budget (`--max-calls`, `--max-cost`) ran out, the report of a
/// run that stops here: the stages so far, what is left, exit 3. The next stage
/// would only fail its model calls; a re-run with a higher limit goes on from
/// what is stored.
fn stop_on_budget(
    cx: &StageContext<'_>,
    stages: &mut Vec<StageLine>,
    pending: &mut Vec<String>,
    unexplored: &[String],
    started: Instant,
) -> Option<RunReport> {
    let limit = cx.llm.budget.spent_limit()?;
    pending.push(format!(
        "the model budget is spent ({limit}): the run stopped after {}",
        stages.last().map_or("its start", |s| s.stage.as_str())
    ));
    Some(RunReport {
        stages: std::mem::take(stages),
        outputs: vec![("store".to_string(), cx.store.path().to_path_buf())],
        shortfall: true,
        unexplored: unexplored.to_vec(),
        pending: std::mem::take(pending),
        model_requests: cx.llm.budget.used().0,
        model_cost_usd: cx.llm.budget.used().1,
        model_roles: cx.llm.budget.by_role(),
        seconds: secs(started.elapsed()),
    })
}

/// The (dimension, level) pairs no stored task has.
fn missing_levels(cx: &StageContext<'_>) -> Result<Vec<(Dimension, Level)>, RunError> {
    let mut seen = BTreeSet::new();
    for stored in cx
        .store
        .tasks(None)
        .map_err(crate::pipeline::compose::ComposeStageError::from)?
    {
        if let Some(c) = &stored.task.complexity {
            for d in Dimension::ALL {
                seen.insert((d, c.levels.get(d)));
            }
        }
    }
    Ok(Dimension::ALL
        .into_iter()
        .flat_map(|d| Level::ALL.into_iter().map(move |l| (d, l)))
        .filter(|p| !seen.contains(p))
        .collect())
}

/// Composes a few tasks at every level of every dimension the main composition
/// left empty (a profile's distribution and a small pool can starve a level): one
/// labelled dataset version per level, inside the intents first and over the
/// pool's components when no intent group is wide enough. Returns what it made.
/// A level no composition reaches stays empty (the stats show it); a repeated run
/// asks the same specs again, which the store recognises, so it does no new work.
fn top_up_levels(
    compose_defaults: &ComposeDefaults,
    cx: &StageContext<'_>,
) -> Result<Vec<String>, RunError> {
    let mut made = Vec::new();
    let mut tried = BTreeSet::new();
    // A top-up for one level often fills others (two-node tasks are easy on three
    // dimensions), so the missing levels are read again after each.
    while let Some((dimension, level)) =
        missing_levels(cx)?.into_iter().find(|p| !tried.contains(p))
    {
        tried.insert((dimension, level));
        let flag = format!("--{dimension}");
        let label = format!("run top-up {dimension} {level}");
        for no_intents in [false, true] {
            let mut argv = vec![
                "--count",
                "3",
                "--profile",
                "free",
                flag.as_str(),
                level.as_str(),
                "--label",
                label.as_str(),
                "--balance-with-store",
            ];
            if no_intents {
                argv.push("--no-intents");
            }
            let args: ComposeArgs = stage_args(&argv);
            let r = crate::pipeline::compose::run(&args, compose_defaults, cx)?;
            if r.made + r.already_present > 0 {
                made.push(format!("{dimension} {level}: {} tasks", r.made));
                break;
            }
        }
    }
    Ok(made)
}

/// Composes a task for every capability (OmniBench table 12) no stored task
/// tests yet, the same way as [`top_up_levels`]: inside the intents first, over the
/// pool's components otherwise, never with side work (independent pieces of
/// one topic: three readers in a row rejected such a task, "six separate
/// things to do" tied by no hand-off; `compose --side-work` still makes them
/// on request). One each: a wide task's producers are the pool's most read subtasks, and
/// every use here is one the main composition's joins lack under the
/// per-subtask share. A capability the pool cannot give stays empty and
/// `synth stats` warns about it.
fn top_up_capabilities(
    compose_defaults: &ComposeDefaults,
    cx: &StageContext<'_>,
) -> Result<Vec<String>, RunError> {
    let mut made = Vec::new();
    for capability in &cx.catalog.capabilities {
        let tested = cx
            .store
            .tasks(None)
            .map_err(crate::pipeline::compose::ComposeStageError::from)?
            .iter()
            .filter_map(|t| t.task.complexity.as_ref())
            .any(|c| capability.matches(&c.levels));
        if tested {
            continue;
        }
        let label = format!("run top-up capability {}", capability.name);
        let ask = ["--capability", capability.name.as_str()];
        if let Some(n) = top_up_one(&label, &ask, compose_defaults, cx)? {
            made.push(format!("{}: {n} tasks", capability.name));
        }
    }
    Ok(made)
}

/// Composes a task that starts in each application of the pool no stored task
/// uses (`compose --application`), so that a default run shows the whole
/// desktop; an application whose subtasks never hand anything on (a player,
/// the settings) gets none, and `synth stats` counts it as unused.
fn top_up_applications(
    compose_defaults: &ComposeDefaults,
    cx: &StageContext<'_>,
) -> Result<Vec<String>, RunError> {
    let store_err = crate::pipeline::compose::ComposeStageError::from;
    let pool: BTreeSet<String> = cx
        .store
        .subtasks(SubtaskStatus::Verified)
        .map_err(store_err)?
        .into_iter()
        .map(|s| s.application)
        .collect();
    let used: BTreeSet<String> = cx
        .store
        .tasks(None)
        .map_err(store_err)?
        .iter()
        .flat_map(|t| t.task.nodes.values().map(|n| n.application.clone()))
        .collect();
    let mut made = Vec::new();
    for app in pool.difference(&used) {
        let label = format!("run top-up application {app}");
        let ask = ["--application", app.as_str()];
        if let Some(n) = top_up_one(&label, &ask, compose_defaults, cx)? {
            made.push(format!("{app}: {n} tasks"));
        }
    }
    Ok(made)
}

/// One top-up task asked for with `ask` (free profile, balanced with the
/// store): inside the intents, then over the pool's components. The tasks made
/// (`Some(0)` when the store had them already), or `None` when neither made one.
fn top_up_one(
    label: &str,
    ask: &[&str],
    compose_defaults: &ComposeDefaults,
    cx: &StageContext<'_>,
) -> Result<Option<usize>, RunError> {
    let variants: &[&[&str]] = &[&[], &["--no-intents"]];
    for extra in variants {
        let mut argv = vec![
            "--count",
            "1",
            "--profile",
            "free",
            "--label",
            label,
            "--balance-with-store",
        ];
        argv.extend_from_slice(ask);
        argv.extend_from_slice(extra);
        let r =
            crate::pipeline::compose::run(&stage_args::<ComposeArgs>(&argv), compose_defaults, cx)?;
        if r.made + r.already_present > 0 {
            return Ok(Some(r.made));
        }
    }
    Ok(None)
}

fn secs(d: Duration) -> f64 {
    (d.as_secs_f64() * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_args_are_the_subcommands_defaults() {
        let v: VerifyArgs = stage_args(&[]);
        assert_eq!(v.rounds, 3);
        let c: ComposeArgs = stage_args(&["--count", "7", "--profile", "uniform"]);
        assert_eq!(c.count, Some(7));
        assert!(!c.no_intents);
    }

    #[test]
    fn run_shows_every_count_line_but_not_the_application_tables() {
        let explore = "explore: 3 proposed, 1 rejected over 2 applications in 0.1s\n\
                       application        proposed rejected\n\
                       Mail                      3        0\n\
                       Paint                     0        0  failed: HTTP 500 after 5 attempt(s)";
        let shown: Vec<&str> = stage_lines("explore", explore).collect();
        assert_eq!(shown.len(), 2, "{shown:?}");
        assert!(shown[1].contains("failed: HTTP 500"));
        let verify = "verify (openai): 4 proposed -> 2 verified, 1 rejected in 1.0s\n\
                      units: 6 (6 run now, 3 passed cross-verification, 0 without a model reply)\n\
                      rounds needed: 1: 2\n  Mail             1/2\n";
        let shown: Vec<&str> = stage_lines("verify", verify).collect();
        assert_eq!(shown.len(), 3, "{shown:?}");
        assert!(shown[1].starts_with("units: 6"));
    }

    #[test]
    fn formats_parse_and_none_means_no_export() {
        assert!(parse_formats(&["none".into()]).unwrap().is_empty());
        let f = parse_formats(&["omnibench".into(), "sharegpt".into(), "omnibench".into()]);
        assert_eq!(f.unwrap(), vec![Format::Omnibench, Format::Sharegpt]);
        assert!(matches!(
            parse_formats(&["parquet".into()]),
            Err(RunError::UnknownFormat(_))
        ));
    }
}
