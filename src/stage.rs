//! What every stage, export, report and eval command runs with: the
//! [`StageContext`] (workspace, store, catalogue, seed, jobs, the language-model
//! setup and the desktop factory). It sits below the pipeline, export, report and
//! eval modules, which all depend on it and never on each other through it.

use std::path::PathBuf;
use std::sync::Arc;

use crate::env::{EnvError, EnvSetup, Environment};
use crate::llm::{Backend, ClientOptions, LanguageModel, LlmConfig, LlmError, OfflineRoles};
use crate::resources::Catalog;
use crate::store::Store;

/// The shared handles a stage works with.
pub struct StageContext<'a> {
    pub workspace: PathBuf,
    pub store: &'a Store,
    pub catalog: &'a Catalog,
    pub seed: u64,
    pub jobs: usize,
    pub quiet: bool,
    /// Which language-model backend the stages that call models use.
    pub llm: LlmSetup,
    /// Which desktop the stages act on, and how to open one (`--env`).
    pub env: EnvSetup,
}

/// The language-model settings of a command (`--llm`, `[llm]`, `--no-cache`).
#[derive(Debug, Clone, Default)]
pub struct LlmSetup {
    pub backend: Backend,
    pub config: LlmConfig,
    /// `--no-cache`: ask again even when the call record holds an answer.
    pub no_cache: bool,
    /// For `replay`: a JSONL call record to answer from instead of the store's.
    pub replay_file: Option<PathBuf>,
    /// `--max-calls` / `--max-cost`, shared by every stage of the command.
    pub budget: Arc<crate::llm::Budget>,
}

impl StageContext<'_> {
    /// The backend for one stage run: `offline` answers with `offline` (the stage's
    /// rule-based roles), `openai` and `replay` go through the shared call record in
    /// the store, tagged with `run_id`.
    ///
    /// # Errors
    /// Those of [`crate::llm::select_backend`] (no key, unreachable endpoint...).
    pub async fn language_model(
        &self,
        run_id: i64,
        offline: OfflineRoles,
    ) -> Result<Arc<dyn LanguageModel>, LlmError> {
        let opts = ClientOptions {
            run_id: run_id.to_string(),
            no_cache: self.llm.no_cache,
            prompts_dir: Some(self.workspace.join("prompts")).filter(|d| d.is_dir()),
            check_endpoint: true,
            budget: self.llm.budget.clone(),
        };
        crate::llm::select_backend(
            self.llm.backend,
            self.llm.config.clone(),
            self.store.call_log(),
            opts,
            offline,
            self.llm.replay_file.clone(),
        )
        .await
    }

    /// A runtime for a stage's model calls (the stages themselves are synchronous).
    ///
    /// # Errors
    /// When the operating system refuses the runtime's threads.
    pub fn runtime(&self) -> std::io::Result<tokio::runtime::Runtime> {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(self.jobs.clamp(1, 4))
            .enable_all()
            .build()
    }

    /// Opens desktop number `slot` of the chosen backend (see [`EnvSetup::open`]).
    ///
    /// # Errors
    /// The backend's: missing programs, a display or server that does not answer.
    pub fn desktop(&self, slot: usize) -> Result<Box<dyn Environment + Send>, EnvError> {
        self.env.open(&self.workspace, slot)
    }

    /// A progress bar for `len` items, hidden with `--quiet` or when stderr is not
    /// a terminal. Once a model request has been sent, the bar also shows what each
    /// role spent so far in this command (requests, tokens, dollars), read from the
    /// shared budget at every redraw.
    pub fn progress(&self, len: u64, what: &str) -> indicatif::ProgressBar {
        if self.quiet {
            return indicatif::ProgressBar::hidden();
        }
        let bar = indicatif::ProgressBar::new(len);
        let budget = self.llm.budget.clone();
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix:>10} [{bar:30}] {pos}/{len} {msg}{spend} ({per_sec}, {elapsed})",
            )
            .expect("static template")
            .with_key(
                "spend",
                move |_: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    if let Some(line) = budget.line() {
                        let _ = write!(w, " · {line}");
                    }
                },
            )
            .progress_chars("=> "),
        );
        bar.set_prefix(what.to_string());
        bar
    }
}
