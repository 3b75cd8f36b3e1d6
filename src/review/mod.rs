//! `synth review`: a human review sheet of sampled tasks that round-trips.
//!
//! `--sample N` picks N stored tasks (composed or validated) spread over node
//! counts and capabilities ([`sample`]) and writes `review.html` (one
//! self-contained page per [`sheet`]: graph, instructions, intent, nodes, quality
//! flags, trajectory screenshots) and `review.csv` ([`marks`]) with empty
//! `decision` and `reason` columns. `--import FILE` reads the marked CSV back,
//! checks every row before storing any, replaces those tasks' marks in the store's
//! `reviews` table, and reports acceptance overall, per capability and per level
//! ([`tally`]).
//!
//! Reads the store and the workspace; writes the two files or the marks. No model
//! calls.

pub mod marks;
pub mod sample;
pub mod sheet;
pub mod tally;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::pipeline::StageContext;
use crate::store::StoreError;
use crate::store::TaskStatus;
use marks::Decision;
use tally::{Acceptance, MarkedTask};

/// Options for `synth review` (the seed is the global `--seed`).
#[derive(Debug, Clone, clap::Args)]
#[command(group(clap::ArgGroup::new("mode").required(true).args(["sample", "import"])))]
pub struct ReviewArgs {
    /// Sample N stored tasks into DIR/review.html and DIR/review.csv.
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// Read a marked review CSV back into the store and print the acceptance.
    #[arg(long, value_name = "FILE", conflicts_with = "out")]
    pub import: Option<PathBuf>,
    /// Where the sheet goes (default: generated/review/ in the workspace).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Steps of each task trajectory replayed and shown.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub steps: usize,
    /// Machine-readable JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Errors of `synth review`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReviewError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("no composed or validated tasks in the store to review (run synth compose first)")]
    NoTasks,
    #[error("cannot draw the graph of task {task}")]
    Graph {
        task: String,
        #[source]
        source: crate::report::svg::SvgError,
    },
    #[error("cannot load the simulated desktop for the trajectory screenshots")]
    Env(#[from] crate::env::EnvError),
    #[error("cannot replay a trajectory for its screenshots")]
    Replay(#[from] crate::report::ReportError),
    #[error("cannot render the review page")]
    Template(#[from] tera::Error),
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: not valid CSV")]
    Csv {
        path: PathBuf,
        line: u64,
        #[source]
        source: csv::Error,
    },
    #[error("{path}: the header has no '{column}' column")]
    Column { path: PathBuf, column: &'static str },
    #[error("{path}:{line}: {message}")]
    Row {
        path: PathBuf,
        line: u64,
        message: String,
    },
}

/// What `synth review` did.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum ReviewOutcome {
    Sheet(SheetSummary),
    Import(ImportReport),
}

/// What `--sample` wrote.
#[derive(Debug, Clone, Serialize)]
pub struct SheetSummary {
    pub html: PathBuf,
    pub csv: PathBuf,
    pub tasks: usize,
    pub task_ids: Vec<String>,
    /// Tasks that could have been sampled (composed or validated).
    pub reviewable: usize,
    pub with_trajectory: usize,
    pub screenshots: usize,
}

/// What `--import` stored and the acceptance over every stored mark.
#[derive(Debug, Clone, Serialize)]
pub struct ImportReport {
    pub file: PathBuf,
    /// Rows of the file with a decision (stored).
    pub marked: usize,
    /// Rows of the file without one (not stored).
    pub blank: usize,
    /// Marks in the store after the import (from this and earlier files).
    pub stored: usize,
    #[serde(flatten)]
    pub acceptance: Acceptance,
}

/// Runs `synth review`.
///
/// # Errors
/// See [`ReviewError`]; a bad row of an imported file stores nothing.
pub fn run(args: &ReviewArgs, cx: &StageContext<'_>) -> Result<ReviewOutcome, ReviewError> {
    match (&args.import, args.sample) {
        (Some(file), _) => import(file, cx).map(ReviewOutcome::Import),
        (None, Some(n)) => {
            let dir = args
                .out
                .clone()
                .unwrap_or_else(|| cx.workspace.join("generated").join("review"));
            write_sheet(n, args.steps, &dir, cx).map(ReviewOutcome::Sheet)
        }
        (None, None) => unreachable!("clap requires --sample or --import"),
    }
}

/// Samples `n` tasks and writes `dir/review.html` and `dir/review.csv` (each to a
/// temporary file first, then renamed).
///
/// # Errors
/// [`ReviewError::NoTasks`] on a store without reviewable tasks; store, drawing,
/// replay and write errors.
pub fn write_sheet(
    n: usize,
    steps: usize,
    dir: &Path,
    cx: &StageContext<'_>,
) -> Result<SheetSummary, ReviewError> {
    let stored = cx.store.tasks(None)?;
    let reviewable: Vec<_> = stored
        .iter()
        .filter(|t| t.status != TaskStatus::Rejected)
        .collect();
    if reviewable.is_empty() {
        return Err(ReviewError::NoTasks);
    }
    let candidates: Vec<sample::Candidate> = reviewable
        .iter()
        .map(|t| sample::Candidate {
            nodes: t.task.dag.nodes.len(),
            capabilities: sheet::capabilities(cx, &t.task).join(";"),
        })
        .collect();
    let picked: Vec<_> = sample::spread(&candidates, n, cx.seed)
        .into_iter()
        .map(|i| reviewable[i])
        .collect();
    let items = sheet::collect(cx, &picked, steps)?;
    let head = sheet::SheetHead {
        reviewable: reviewable.len(),
        seed: cx.seed,
        csv_name: "review.csv".into(),
    };
    let page = sheet::render(&head, &items)?;
    let (html, csv) = (dir.join("review.html"), dir.join("review.csv"));
    let werr = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ReviewError::Write { path, source }
    };
    let rows: Vec<_> = items.iter().map(|i| i.row.clone()).collect();
    crate::atomic::write(&html, page.as_bytes()).map_err(werr(&html))?;
    marks::write_sheet(&csv, &rows)?;
    Ok(SheetSummary {
        html,
        csv,
        tasks: items.len(),
        task_ids: items.iter().map(|i| i.task_id.clone()).collect(),
        reviewable: reviewable.len(),
        with_trajectory: items.iter().filter(|i| i.trajectory.is_some()).count(),
        screenshots: items
            .iter()
            .filter_map(|i| i.trajectory.as_ref())
            .map(|t| t.frames.len())
            .sum(),
    })
}

/// Reads a marked sheet, stores its marks (all or none) and tallies every stored
/// mark.
///
/// # Errors
/// Bad rows (naming the file and line), store errors.
pub fn import(file: &Path, cx: &StageContext<'_>) -> Result<ImportReport, ReviewError> {
    let stored = cx.store.tasks(None)?;
    let known: BTreeSet<String> = stored.iter().map(|t| task_id(&t.task)).collect();
    let read = marks::read_marks(file, &known)?;
    let rows: Vec<(String, String, String)> = read
        .marks
        .iter()
        .map(|m| {
            (
                m.task_id.clone(),
                m.decision.as_str().to_string(),
                m.reason.clone(),
            )
        })
        .collect();
    cx.store.replace_reviews(&rows)?;
    let by_id: BTreeMap<String, &crate::model::Task> =
        stored.iter().map(|t| (task_id(&t.task), &t.task)).collect();
    let reviews = cx.store.reviews()?;
    let marked: Vec<MarkedTask> = reviews
        .iter()
        .filter_map(|r| by_id.get(&r.task_id).map(|t| (r, *t)))
        .map(|(r, t)| MarkedTask {
            task_id: r.task_id.clone(),
            accepted: r.decision == Decision::Accept.as_str(),
            reason: r.reason.clone(),
            capabilities: sheet::capabilities(cx, t),
            levels: t.complexity.map(|c| c.levels),
        })
        .collect();
    Ok(ImportReport {
        file: file.to_path_buf(),
        marked: read.marks.len(),
        blank: read.blank,
        stored: reviews.len(),
        acceptance: tally::acceptance(&marked),
    })
}

fn task_id(t: &crate::model::Task) -> String {
    t.task_id.as_ref().map(|i| i.0.clone()).unwrap_or_default()
}

impl fmt::Display for ReviewOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReviewOutcome::Sheet(s) => s.fmt(f),
            ReviewOutcome::Import(r) => r.fmt(f),
        }
    }
}

impl fmt::Display for SheetSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "review sheet: {} tasks of {} reviewable ({} with trajectory screenshots, {} screenshots)",
            self.tasks, self.reviewable, self.with_trajectory, self.screenshots
        )?;
        writeln!(f, "  page: {}", self.html.display())?;
        writeln!(f, "  marks: {}", self.csv.display())?;
        write!(
            f,
            "fill decision (accept or reject) and reason, then: synth review --import {}",
            self.csv.display()
        )
    }
}

impl fmt::Display for ImportReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = &self.acceptance;
        writeln!(
            f,
            "imported {} marks from {} ({} rows left blank); {} marks stored",
            self.marked,
            self.file.display(),
            self.blank,
            self.stored
        )?;
        writeln!(f, "overall: {}", a.overall)?;
        writeln!(f, "per capability:")?;
        for c in &a.per_capability {
            writeln!(f, "  {}: {}", c.capability, c.tally)?;
        }
        writeln!(f, "per level:")?;
        for l in &a.per_level {
            writeln!(f, "  {} {}: {}", l.dimension, l.level, l.tally)?;
        }
        if a.rejection_reasons.is_empty() {
            return write!(f, "rejection reasons: none");
        }
        write!(f, "rejection reasons:")?;
        for g in &a.rejection_reasons {
            write!(f, "\n  {} x {} ({})", g.count, g.reason, g.tasks.join(", "))?;
        }
        Ok(())
    }
}
