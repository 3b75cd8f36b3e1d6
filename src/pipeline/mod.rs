//! The pipeline stages, one module each (STYLE.md: one name per stage, everywhere).
//!
//! A stage takes its options and a [`StageContext`] and returns a report; rejected
//! records are data in the store, not errors. Stages never touch `anyhow`, exit
//! codes or the terminal beyond progress bars.

pub mod compose;
pub mod stats;
pub mod validate;

use std::path::PathBuf;

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
}

impl StageContext<'_> {
    /// A progress bar for `len` items, hidden with `--quiet` or when stderr is not
    /// a terminal.
    pub fn progress(&self, len: u64, what: &str) -> indicatif::ProgressBar {
        if self.quiet {
            return indicatif::ProgressBar::hidden();
        }
        let bar = indicatif::ProgressBar::new(len);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix:>10} [{bar:30}] {pos}/{len} {msg} ({per_sec}, {elapsed})",
            )
            .expect("static template")
            .progress_chars("=> "),
        );
        bar.set_prefix(what.to_string());
        bar
    }
}
