//! The pipeline stages, one module each (one name per stage, everywhere).
//!
//! A stage takes its options and a [`StageContext`] and returns a report; rejected
//! records are data in the store, not errors. Stages never touch `anyhow`, exit
//! codes or the terminal beyond progress bars.

pub mod compose;
pub mod explore;
pub mod intents;
pub mod narrate;
pub mod perf;
pub mod quality;
pub mod stats;
pub mod trajectories;
pub mod trajectories_real;
pub mod validate;
pub mod verify;

pub use crate::stage::{LlmSetup, StageContext};
