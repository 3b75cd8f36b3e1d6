//! The task-graph engine: the instantiated subtask pool and its
//! dependency relation, complexity measures, composition of tasks to complexity
//! targets, topological orders and coherence.
//!
//! Pure library code over [`crate::model`] and [`crate::resources`] types: no I/O
//! (except [`synthetic::perf_compose`] reading its own peak memory), no store, no CLI.
//!
//! Typical use:
//! ```ignore
//! let pool = Pool::new(&catalog, &subtasks, &initial)?;
//! let scopes = pool.components();
//! let spec = ComposeSpec { count: 100, seed: 7, ..ComposeSpec::default() };
//! let summary = compose_with(&pool, &scopes, &spec, |t| {
//!     let task = t.to_task(&pool, &spec);
//!     // store the task
//! })?;
//! ```

pub mod clash;
pub mod compose;
pub mod dag;
pub mod diversity;
pub mod intent;
pub mod marginals;
pub mod plan;
pub mod pointless;
pub mod pool;
pub mod spec;
pub mod synthetic;

pub use clash::{clashes, task_clashes, Clash, ClashKind};
pub use compose::{
    compose, compose_balanced, compose_with, shape_key, sound_depths, start_key, CompactTask,
    ComposeError, ComposeOutcome, ComposeSummary, Prior, Shortfall, TargetStat,
};
pub use dag::{DagError, Orders, SmallDag, MAX_NODES};
pub use diversity::{diversity, Diversity};
pub use pointless::{pointless, task_pointless, Pointless, PointlessKind};
pub use pool::{Content, Instance, Pool, PoolError, Scope};
pub use spec::{ComposeSpec, Profile, Target, DEFAULT_MAX_NODES, DEFAULT_MAX_ORDERS};
