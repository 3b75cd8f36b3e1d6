//! synth: synthesizes benchmark tasks and training trajectories for computer-use
//! (GUI) agents, in the style of OmniBench.
//!
//! Module map: [`model`] holds the data types, [`resources`]
//! the static catalogues, [`graph`] the task-graph engine, [`env`] the environment
//! trait and the simulated desktop, [`llm`] the language-model layer, [`store`] the
//! SQLite store, [`stage`] the context every stage runs with, [`pipeline`] the stages,
//! [`run`] the whole pipeline in one command, [`eval`] OmniEval scoring and agents,
//! [`export`] the dataset exporters, [`report`] the HTML page about the store,
//! [`review`] the human review sheet and its marks, [`topics`] what values are
//! about, [`atomic`] files written whole, and [`cli`] the command line.

pub mod atomic;
pub mod cli;
pub mod env;
pub mod eval;
pub mod export;
pub mod graph;
pub mod llm;
pub mod model;
pub mod pipeline;
pub mod report;
pub mod resources;
pub mod review;
pub mod run;
pub mod stage;
pub mod store;
pub mod topics;
