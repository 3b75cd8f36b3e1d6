//! The composer: samples connected task DAGs inside scopes to meet complexity targets.
//!
//! # How a task is grown
//! An attempt picks a node count allowed by its targets, then a root: an application
//! (the less it is used so far, the likelier), a scope large enough holding a root of
//! that application, and the least used of a few such roots (a root has every input
//! on the initial desktop; a slot that keeps failing picks a scope weighted by size
//! instead). It then adds one instance at a time. A candidate is a
//! neighbour, in the pool's dependency relation, of a node already chosen; it is
//! admissible when it is in the scope, not chosen yet, every one of its inputs is on
//! the initial desktop or produced by a chosen node, adding it keeps the graph
//! acyclic, and it does not clash with a chosen node it would stay unordered with
//! (one modifies what the other reads or modifies, see [`crate::graph::clash`]; the edges
//! are fixed by the resources, so not pairing such nodes is the only way to avoid
//! it). A few admissible candidates are drawn at random and the one that best keeps
//! every target reachable is added (greedy, see `penalty`), less used subtasks and
//! applications breaking near-ties. The finished graph is measured exactly and kept
//! only if every measure is in its range.
//!
//! A slot of five or more nodes in one category (`knowledge` easy) starts,
//! every other try, from a node of a category that joins two things made in
//! the task, with producers of that category ([`category_seed`]): within one
//! category applications hand on little in a row, and growth from a root
//! never adds a join.
//!
//! # Diversity
//! The composer counts, over the tasks accepted so far in this request, the nodes of
//! each subtask and application. No subtask may take more than [`MAX_SUBTASK_SHARE`]
//! of the nodes (of the nodes accepted so far, and at least of `min_nodes * count`):
//! a candidate that would pass the cap is heavily penalised, and a finished task that
//! would pass it is not accepted (the slot tries again). Every [`RELAX_AFTER`]
//! failures of a slot raise its cap by the base value (and it picks roots by scope
//! size, as large tasks need large scopes), so a small pool still fills its slots.
//! Attempts read the counts as of the start of their round; acceptance updates them
//! in slot order. Tasks that start from the same desktop files (the same photo
//! and document, only edited differently) are near repeats to a reader: at most
//! [`MAX_START_SHARE`] of the tasks asked for (at least one) start from one set.
//! So are tasks of two or more nodes of one shape (the same applications
//! handing on to each other the same way, [`shape_key`]), under the same cap.
//!
//! # Edges
//! A task's edges are *all* dependency-relation pairs among its nodes (every pair
//! where an output resource of one is an input resource of the other), not a minimal
//! subset. Each edge is therefore a true resource dependency (some are transitively
//! redundant, which is fine), the graph is determined by its node set, and the
//! validate stage can reconstruct it from resources alone. Two instances that would
//! depend on each other (a cycle) are never placed in the same task.
//!
//! A file handed between two nodes of the same application that both change it and
//! save another of its kind is no edge: a person opens it once, changes it and
//! saves (one sitting), so such pairs are never placed as predecessor and successor.
//! Nor are two nodes of one application where the second makes a change the first
//! already made (the dark theme applied to a copy of a deck that has it).
//!
//! No node whose outputs vanish unused (the clipboard, media playing) ends a
//! task: a copy nobody pastes is no result. No two nodes make the same kind of
//! thing from the same input (two zips of one file).
//!
//! # Fan-in
//! Growing one node at a time from a root, attached to what is there, gives mostly
//! out-trees: a node that needs the outputs of two others is added only when both
//! happen to be present already. Every [`JOIN_EVERY`]-th slot of three or more nodes
//! (that need not be wide) is therefore a join slot: its graph starts from a node
//! that needs the outputs of two others and the producers of its inputs, drawn
//! from the scope recursively (its cone), and the task is kept only when some node
//! has two or more predecessors. Every edge is still a real hand-off.
//!
//! # Determinism
//! Task `slot`s `0..count` are processed in fixed-size chunks. Every attempt draws
//! from its own ChaCha stream keyed by (slot, attempt number of that slot), attempts
//! of a round run in parallel with rayon, and results are accepted in slot order,
//! skipping duplicates (same canonical form: the sorted instance set, i.e. the
//! multiset of (subtask id, parameter index), which fixes the edges; or the same
//! request, [`CompactTask::request`]: the same results from the same starting
//! points) and tasks that would over-use a subtask. The same seed thus gives the same tasks whatever the
//! thread count.
//!
//! # Levels per slot
//! Each slot's target ranges come from the explicit targets, the capability preset,
//! and, for the other dimensions, a level combination drawn from the profile
//! conditioned on feasibility (infeasible combinations are never drawn). A slot that
//! fails [`RESAMPLE_AFTER`] times in a row redraws its combination, so a combination
//! the pool cannot provide does not exhaust the budget.

use std::collections::{BTreeMap, HashMap, HashSet};

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::graph::clash::clash_pair;
use crate::graph::dag::{bits, width_of_closure, Orders, SmallDag, MAX_NODES};
use crate::graph::intent;
use crate::graph::pointless::{pointless, shares_holder, shuffles_with};
use crate::graph::pool::{Instance, Pool, Scope};
use crate::graph::spec::{
    dim_index, explain_infeasible, feasible_sizes, range_condition, range_label, target_range,
    ComposeSpec, Ranges, Target, BRA, DEP, HIE, INS, KNO,
};
use crate::model::{Complexity, Composition, Dag, Dimension, Task, TaskId, TaskNode};
use crate::resources::{Catalog, Resource};
use crate::topics::{TopicSet, LOOSE_FILES};

/// Slots processed per chunk (fixed, so results do not depend on thread count).
pub const CHUNK: usize = 2048;
/// Failed attempts of one slot before its level combination is redrawn.
pub const RESAMPLE_AFTER: u32 = 8;
/// Attempts one slot may use before it is given up.
pub const MAX_TRIES_PER_SLOT: u32 = 400;
/// Candidates compared at each growth step, and draws spent finding them.
const CANDIDATES: usize = 6;
const DRAWS: usize = 24;
/// Side-work roots drawn per growth step when a slot may use them.
const SIDE_DRAWS: usize = 12;
/// Most tasks of a request that start from the same desktop files, as a share of
/// the tasks asked for (at least one; relaxed like the subtask cap): one in a
/// default run of 40 (reader r70 rejected two such pairs of 45 tasks as near
/// duplicates: the product shot cropped or brightened, each put into the same
/// brief and deck).
const MAX_START_SHARE: f64 = 0.025;
/// Every this many failed attempts of one slot, its cap on tasks that start
/// from the same desktop files grows by its base value: late, for a repeat
/// with another edit of the same files reads as the same task.
const START_RELAX_AFTER: u32 = 6 * RELAX_AFTER;
/// Largest share of a request's nodes one subtask may take (see the module docs).
pub const MAX_SUBTASK_SHARE: f64 = 0.05;
/// Every this many failed attempts of one slot, its subtask cap grows by the base
/// cap, and from the first such step on it picks roots by scope size instead of by
/// application use.
pub const RELAX_AFTER: u32 = 48;
/// Roots of the chosen application compared when picking the least used one.
const ROOT_DRAWS: usize = 3;
/// Every this many slots (of at least three nodes) is a join slot: its task must
/// have a node that needs two others (fan-in), until the slot has failed
/// [`RELAX_AFTER`] times.
pub const JOIN_EVERY: usize = 2;
/// Failed attempts after which a join slot takes a task without fan-in: joins
/// are rarer than chains in any pool, so a join slot keeps looking longer than
/// [`RELAX_AFTER`].
const JOIN_TRIES: u32 = 4 * RELAX_AFTER;
/// Penalty at which a candidate can no longer meet its targets.
const DEAD: usize = 1000;

/// Why a composition request is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ComposeError {
    #[error("infeasible request: {explanation}")]
    Infeasible { explanation: String },
    #[error("unknown capability '{name}' (known: {})", known.join(", "))]
    UnknownCapability { name: String, known: Vec<String> },
    #[error("capability '{capability}' sets {dimension} to {level}, but the request asks for {requested}")]
    Conflict {
        capability: String,
        dimension: Dimension,
        level: String,
        requested: String,
    },
    #[error("min_nodes {min_nodes} and max_nodes {max_nodes} must satisfy 1 <= min_nodes <= max_nodes <= {limit}")]
    NodeLimits {
        min_nodes: usize,
        max_nodes: usize,
        limit: usize,
    },
    #[error(
        "no scope holds an instance that can start a task (every input on the initial desktop)"
    )]
    NoRoots,
    #[error("unknown application '{name}' (the pool has: {})", known.join(", "))]
    UnknownApplication { name: String, known: Vec<String> },
}

/// A composed task in compact form: pool instance indices and bitset graph, orders one
/// byte per node. Turn it into a [`Task`] with [`CompactTask::to_task`].
#[derive(Debug, Clone, PartialEq)]
pub struct CompactTask {
    /// Which slot of the request this task fills.
    pub slot: usize,
    /// Index of the scope it was composed in.
    pub scope: usize,
    /// Pool instance of local node `i` (`n{i}`); local order is topological.
    pub instances: Vec<u32>,
    pub dag: SmallDag,
    pub complexity: Complexity,
    pub topo_count: u64,
    pub orders: Orders,
    pub cs_max: usize,
}

impl CompactTask {
    /// The canonical form: the sorted instance set (the edges follow from it).
    pub fn canonical(&self) -> Vec<u32> {
        let mut v = self.instances.clone();
        v.sort_unstable();
        v
    }

    /// What the task asks for, as a person reads its request: the results it
    /// leaves (outputs with a value no node of it uses) and what it starts from
    /// (inputs with a value no node of it makes), each sorted. Two tasks with the
    /// same request are one task to a reader even when their middle steps
    /// differ (the same slide exported after a blurred, a brightened or a plain
    /// copy of the picture).
    pub fn request(&self, pool: &Pool<'_>) -> (Vec<Resource>, Vec<Resource>) {
        let nodes: Vec<&Instance> = self
            .instances
            .iter()
            .map(|&i| pool.instance(i as usize))
            .collect();
        // The valued resources on one side of the nodes that the other side
        // does not hold, sorted, without repeats.
        let unmatched = |side: fn(&Instance) -> &[Resource],
                         other: fn(&Instance) -> &[Resource]| {
            let held: HashSet<&Resource> = nodes.iter().flat_map(|n| other(n)).collect();
            let mut v: Vec<Resource> = nodes
                .iter()
                .flat_map(|n| side(n))
                .filter(|r| r.parameter.is_some() && !held.contains(r))
                .cloned()
                .collect();
            v.sort();
            v.dedup();
            v
        };
        let results = unmatched(|n| &n.outputs, |n| &n.inputs);
        let sources = unmatched(|n| &n.inputs, |n| &n.outputs);
        (results, sources)
    }

    /// The deterministic task id: UUID v5 of the canonical form written with subtask
    /// ids, parameter indices and edges.
    pub fn task_id(&self, pool: &Pool<'_>) -> TaskId {
        let canon = self.canonical();
        let pos = |inst: u32| canon.binary_search(&inst).unwrap_or(0);
        let mut text = String::new();
        for &i in &canon {
            let inst = pool.instance(i as usize);
            text.push_str(&pool.subtask_of(i as usize).id.0);
            text.push('#');
            text.push_str(&inst.parameter_index.to_string());
            text.push(';');
        }
        let mut edges: Vec<(usize, usize)> = self
            .dag
            .edges()
            .into_iter()
            .map(|(a, b)| (pos(self.instances[a]), pos(self.instances[b])))
            .collect();
        edges.sort_unstable();
        for (a, b) in edges {
            text.push_str(&format!("|{a}>{b}"));
        }
        let ns = uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_OID, b"synth/task");
        TaskId(uuid::Uuid::new_v5(&ns, text.as_bytes()).to_string())
    }

    /// Why the task is done: its topic's purpose when its nodes keep to one
    /// topic, else none (a scenario's general purpose, "to get the documents
    /// ready to use", explained no task to its readers).
    fn purpose<'c>(&self, pool: &Pool<'c>) -> Option<&'c str> {
        let catalog = pool.catalog();
        let topics = self.instances.iter().fold(TopicSet::default(), |t, &i| {
            t.union(pool.topics_of(i as usize))
        });
        topics
            .single()
            .and_then(|t| catalog.topics.get(t))
            .map(|t| t.purpose.as_str())
            .filter(|p| !p.is_empty())
    }

    /// Builds the full [`Task`]: node ids `n0..`, instantiated instructions, orders
    /// as node-id lists, capabilities and scenario from the catalogue, the task's own
    /// intent statement ([`intent::statement`]; the scope only anchored the
    /// composition), and a plain draft instruction (the validate stage
    /// rewrites it).
    pub fn to_task(&self, pool: &Pool<'_>, spec: &ComposeSpec) -> Task {
        let catalog = pool.catalog();
        let n = self.instances.len();
        let ids: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
        let mut dag = Dag {
            nodes: ids.clone(),
            edges: BTreeMap::new(),
        };
        let mut nodes = BTreeMap::new();
        for (v, id) in ids.iter().enumerate() {
            dag.edges.insert(
                id.clone(),
                bits(self.dag.succs(v)).map(|s| ids[s].clone()).collect(),
            );
            let inst_index = self.instances[v] as usize;
            let inst = pool.instance(inst_index);
            let subtask = pool.subtask_of(inst_index);
            nodes.insert(
                id.clone(),
                TaskNode {
                    subtask_id: subtask.id.clone(),
                    parameter_index: inst.parameter_index,
                    application: inst.application.clone(),
                    category: inst.category.clone(),
                    instruction: subtask
                        .instruction(inst.parameter_index)
                        .unwrap_or_default(),
                },
            );
        }
        let successful_topo: Vec<Vec<String>> = self
            .orders
            .iter()
            .map(|o| o.iter().map(|&v| ids[v as usize].clone()).collect())
            .collect();
        let first: Vec<usize> = match self.orders.iter().next() {
            Some(o) => o.iter().map(|&v| v as usize).collect(),
            None => (0..n).collect(),
        };
        let steps: Vec<String> = first
            .iter()
            .map(|&v| nodes[&ids[v]].instruction.trim().to_string())
            .collect();
        let task_instruction = draft_instruction(&steps);
        let low_level_instruction = steps
            .iter()
            .enumerate()
            .map(|(k, s)| format!("{}. {s}", k + 1))
            .collect::<Vec<_>>()
            .join("\n");
        let scenario = catalog.scenario_of(nodes.values().map(|t: &TaskNode| t.category.as_str()));
        let intent_nodes: Vec<intent::IntentNode<'_>> = (0..n)
            .map(|v| {
                let inst = pool.instance(self.instances[v] as usize);
                intent::IntentNode {
                    application: &nodes[&ids[v]].application,
                    instruction: &nodes[&ids[v]].instruction,
                    inputs: &inst.inputs,
                    outputs: &inst.outputs,
                }
            })
            .collect();
        let purpose = self.purpose(pool);
        let task_intent = intent::statement(catalog, &intent_nodes, &first, purpose);
        Task {
            task_id: Some(self.task_id(pool)),
            task_instruction,
            low_level_instruction: Some(low_level_instruction),
            dag,
            task_intent,
            purpose: purpose.map(str::to_string),
            successful_topo,
            nodes,
            topo_count: Some(self.topo_count),
            topo_truncated: Some(self.orders.truncated()),
            cs_max: Some(self.cs_max),
            complexity: Some(self.complexity),
            capabilities: catalog.capabilities_of(&self.complexity.levels),
            scenario: Some(scenario),
            os_map_level: None,
            quality: None,
            composition: Some(Composition {
                profile: spec.profile.as_str().to_string(),
                seed: spec.seed,
                version: spec.version,
                spec: serde_json::to_value(spec).ok(),
            }),
            validation: Vec::new(),
        }
    }
}

/// Joins step instructions into one paragraph: "A. Then b. Then c."
fn draft_instruction(steps: &[String]) -> String {
    let mut out = String::new();
    for (k, s) in steps.iter().enumerate() {
        let s = s.trim_end_matches('.');
        if k == 0 {
            out.push_str(s);
        } else {
            out.push_str(". Then ");
            let mut chars = s.chars();
            if let (Some(c), Some(d)) = (chars.next(), s.chars().nth(1)) {
                if c.is_ascii_uppercase() && d.is_ascii_lowercase() {
                    out.push(c.to_ascii_lowercase());
                    out.push_str(chars.as_str());
                    continue;
                }
            }
            out.push_str(s);
        }
    }
    if !out.is_empty() {
        out.push('.');
    }
    out
}

/// How often one target was met, over all attempts that had it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetStat {
    /// `branch=hard`, `hierarchy=3..4`.
    pub target: String,
    /// `width >= 5`.
    pub condition: String,
    pub attempts: usize,
    pub reached: usize,
}

/// Why fewer tasks than asked were made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shortfall {
    pub requested: usize,
    pub made: usize,
    pub attempts: usize,
    /// Successful attempts dropped as duplicates of tasks already made.
    pub duplicates: usize,
    /// The constraint that ran dry, in words, e.g.
    /// `branch=hard: 0 of 2000 attempts reached width >= 5`.
    pub constraint: String,
    /// Per-target statistics, scarcest first.
    pub targets: Vec<TargetStat>,
}

/// What a streaming composition reports once done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComposeSummary {
    pub made: usize,
    pub attempts: usize,
    pub duplicates: usize,
    pub shortfall: Option<Shortfall>,
}

/// The tasks made and, when short, why.
#[derive(Debug, Clone, PartialEq)]
pub struct ComposeOutcome {
    pub tasks: Vec<Task>,
    pub summary: ComposeSummary,
}

impl ComposeOutcome {
    pub fn shortfall(&self) -> Option<&Shortfall> {
        self.summary.shortfall.as_ref()
    }
}

/// Composes `spec.count` tasks and builds them as [`Task`]s. Keeps every task in
/// memory: for large counts prefer [`compose_with`].
///
/// # Errors
/// See [`compose_with`].
pub fn compose(
    pool: &Pool<'_>,
    scopes: &[Scope],
    spec: &ComposeSpec,
) -> Result<ComposeOutcome, ComposeError> {
    let mut tasks = Vec::new();
    let summary = compose_with(pool, scopes, spec, |t| tasks.push(t.to_task(pool, spec)))?;
    Ok(ComposeOutcome { tasks, summary })
}

/// Composes `spec.count` tasks, handing each to `sink` in slot order as soon as its
/// chunk is done. Runs on the current rayon pool (call it inside
/// `ThreadPool::install` to bound the threads).
///
/// # Errors
/// Unknown capability, a capability that contradicts an explicit target, bad node
/// limits, a combination of targets no DAG of the request's shape can meet
/// (connected, unless it allows side work) with the reason, or
/// no scope with a possible first node.
pub fn compose_with<F: FnMut(CompactTask)>(
    pool: &Pool<'_>,
    scopes: &[Scope],
    spec: &ComposeSpec,
    sink: F,
) -> Result<ComposeSummary, ComposeError> {
    compose_balanced(pool, scopes, spec, &Prior::default(), sink)
}

/// The tasks a dataset already holds, as [`compose_balanced`] counts them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prior {
    /// The subtask (index into `pool.subtasks()`) of each of their nodes.
    pub nodes: Vec<usize>,
    /// The desktop files each task starts from ([`start_key`]; tasks whose
    /// nodes are not all instances of the pool are left out).
    pub starts: Vec<Box<[u32]>>,
    /// The shape of each task ([`shape_key`]; left out like `starts`).
    pub shapes: Vec<Box<[u32]>>,
}

impl Prior {
    /// Prior tasks known only by their nodes' subtasks.
    pub fn of_nodes(nodes: Vec<usize>) -> Prior {
        Prior {
            nodes,
            starts: Vec::new(),
            shapes: Vec::new(),
        }
    }
}

/// The desktop files a task of these instances starts from: what tells near
/// repeats apart (the beach photo flipped, captioned or resized, each pasted
/// into the itinerary, are one task four times over to a reader).
pub fn start_key(pool: &Pool<'_>, instances: &[u32]) -> Box<[u32]> {
    let mut key: Vec<u32> = instances
        .iter()
        .flat_map(|&i| pool.slim[i as usize].inputs.iter().copied())
        .filter(|&r| pool.initial[r as usize] && is_file(pool, r))
        .collect();
    key.sort_unstable();
    key.dedup();
    key.into_boxed_slice()
}

/// What a task of these instances does, as a reader compares tasks: each
/// node's application with its predecessors' applications, sorted; empty for
/// a task of fewer than [`SHAPE_MIN_NODES`] nodes. Two tasks of one shape
/// are one task with other files to a reader (a picture brightened and put
/// into a document, twice over with other pictures and documents; a
/// sheet exported, a picture put into a brief, the sheet appended to the
/// brief's PDF: twice over with a chart or a bold header).
pub fn shape_key(pool: &Pool<'_>, instances: &[u32]) -> Box<[u32]> {
    if instances.len() < SHAPE_MIN_NODES {
        return Box::new([]);
    }
    let app = |i: u32| pool.slim[i as usize].app;
    let mut nodes: Vec<Vec<u32>> = instances
        .iter()
        .map(|&x| {
            let mut preds: Vec<u32> = instances
                .iter()
                .filter(|&&y| y != x && pool.depends_on(x as usize, y as usize))
                .map(|&y| app(y))
                .collect();
            preds.sort_unstable();
            let mut node = vec![app(x), preds.len() as u32];
            node.extend(preds);
            node
        })
        .collect();
    nodes.sort_unstable();
    nodes.concat().into_boxed_slice()
}

/// Nodes from which two tasks of one shape count as near repeats ([`shape_key`]).
const SHAPE_MIN_NODES: usize = 2;
/// Failed attempts of one slot after which its task may repeat a shape: a
/// small pool may have one shape of five branches only, and a top-up asked
/// for it after the dataset holds it must still be made.
const SHAPE_FORGET_AFTER: u32 = START_RELAX_AFTER + RELAX_AFTER;

/// [`compose_with`] for a dataset that already holds tasks (`prior`). Their
/// nodes count toward the per-subtask cap ([`MAX_SUBTASK_SHARE`] of all
/// nodes), and their desktop files toward the cap on tasks that start from the
/// same files ([`MAX_START_SHARE`]), also for a request with level targets or
/// a capability: a few tasks composed for a missing level do not pile onto the
/// subtasks the dataset already leans on, nor repeat one of its tasks with
/// another edit of the same files.
///
/// # Errors
/// See [`compose_with`].
pub fn compose_balanced<F: FnMut(CompactTask)>(
    pool: &Pool<'_>,
    scopes: &[Scope],
    spec: &ComposeSpec,
    prior: &Prior,
    mut sink: F,
) -> Result<ComposeSummary, ComposeError> {
    let plan = Plan::new(spec, pool.catalog())?;
    let mut world = World::new(pool, scopes);
    if let Some(name) = &spec.application {
        world.only_app(application_id(pool, name)?);
    }
    if spec.count == 0 {
        return Ok(ComposeSummary {
            made: 0,
            attempts: 0,
            duplicates: 0,
            shortfall: None,
        });
    }
    if world.order.is_empty() {
        return Err(ComposeError::NoRoots);
    }
    if let Some(name) = spec
        .application
        .as_ref()
        .filter(|_| world.app_members.is_empty())
    {
        // Nothing to attempt: said as a shortfall, like any request the
        // scopes cannot give.
        return Ok(ComposeSummary {
            made: 0,
            attempts: 0,
            duplicates: 0,
            shortfall: Some(Shortfall {
                requested: spec.count,
                made: 0,
                attempts: 0,
                duplicates: 0,
                constraint: format!(
                    "{name}: no subtask of {name} is in the scopes composed from (the intents' groups, or with --no-intents the pool's components of one topic)"
                ),
                targets: Vec::new(),
            }),
        });
    }
    let budget = if spec.max_attempts == 0 {
        (20 * spec.count).max(8000)
    } else {
        spec.max_attempts
    };
    let mut stats = vec![[(0usize, 0usize); 5]; plan.combos.len()];
    let mut seen: HashSet<Vec<u32>> = HashSet::new();
    // The requests of the tasks accepted: a second task asking for the same
    // results from the same starting points is a duplicate too.
    let mut requests: HashSet<(Vec<Resource>, Vec<Resource>)> = HashSet::new();
    let mut usage = Usage::new(pool, spec);
    usage.seed(prior);
    let mut attempts = 0usize;
    let mut duplicates = 0usize;
    let mut made = 0usize;

    let mut chunk_start = 0;
    while chunk_start < spec.count {
        let chunk_end = (chunk_start + CHUNK).min(spec.count);
        let mut pending: Vec<SlotState> = (chunk_start..chunk_end)
            .map(|slot| SlotState {
                slot,
                tries: 0,
                combo: plan.draw_combo(spec.seed, slot, 0),
            })
            .collect();
        let mut done: Vec<Option<CompactTask>> = vec![None; chunk_end - chunk_start];
        while !pending.is_empty() && attempts < budget {
            let take = pending.len().min(budget - attempts);
            let results: Vec<Attempt> = pending[..take]
                .par_iter()
                .map(|s| attempt(&world, &plan, spec, s, &seen, &usage))
                .collect();
            attempts += take;
            let mut still = Vec::with_capacity(pending.len());
            for (mut s, res) in pending.drain(..take).zip(results) {
                let st = &mut stats[s.combo];
                for (i, cell) in st.iter_mut().enumerate() {
                    if !plan.combos[s.combo].ranges.is_any(i) {
                        cell.0 += 1;
                        cell.1 += usize::from(res.reached & (1 << i) != 0);
                    }
                }
                if let Some(task) = res.task {
                    let key = task.canonical();
                    let request = task.request(pool);
                    if seen.contains(&key) || requests.contains(&request) {
                        duplicates += 1;
                    } else if usage.overuses(pool, &task.instances, s.tries) {
                        // Over the subtask cap given what earlier slots took: retry.
                    } else {
                        seen.insert(key);
                        requests.insert(request);
                        usage.add(pool, &task.instances);
                        done[s.slot - chunk_start] = Some(task);
                        continue;
                    }
                } else if res.duplicate {
                    duplicates += 1;
                }
                s.tries += 1;
                if s.tries >= MAX_TRIES_PER_SLOT {
                    continue;
                }
                if s.tries % RESAMPLE_AFTER == 0 {
                    s.combo = plan.draw_combo(spec.seed, s.slot, s.tries / RESAMPLE_AFTER);
                }
                still.push(s);
            }
            still.append(&mut pending);
            pending = still;
        }
        for t in done.into_iter().flatten() {
            made += 1;
            sink(t);
        }
        if attempts >= budget {
            break;
        }
        chunk_start = chunk_end;
    }

    let shortfall = (made < spec.count).then(|| {
        let mut per_target: BTreeMap<String, TargetStat> = BTreeMap::new();
        for (c, st) in plan.combos.iter().zip(&stats) {
            for (i, &(a, r)) in st.iter().enumerate() {
                if a == 0 {
                    continue;
                }
                let label = c.labels[i].clone();
                let e = per_target.entry(label.clone()).or_insert(TargetStat {
                    target: label,
                    condition: range_condition(i, c.ranges.lo[i], c.ranges.hi[i]),
                    attempts: 0,
                    reached: 0,
                });
                e.attempts += a;
                e.reached += r;
            }
        }
        let mut targets: Vec<TargetStat> = per_target.into_values().collect();
        // Scarcest first: lowest reached/attempts (cross-multiplied), then name.
        targets.sort_by(|a, b| {
            (a.reached * b.attempts)
                .cmp(&(b.reached * a.attempts))
                .then(a.target.cmp(&b.target))
        });
        let failed = attempts.saturating_sub(made + duplicates);
        let constraint = match targets.first() {
            Some(t) if duplicates <= failed || t.reached == 0 => format!(
                "{}: {} of {} attempts reached {}",
                t.target, t.reached, t.attempts, t.condition
            ),
            None if duplicates == 0 => match &spec.application {
                Some(app) => format!(
                    "{app}: none of {attempts} attempts grew a task with a node of {app} that passes the checks (every input handed over, one topic, no clash, no pointless step)"
                ),
                None => format!(
                    "none of {attempts} attempts grew a task that passes the checks (every input handed over, one topic, no clash, no pointless step)"
                ),
            },
            _ => format!(
                "distinct tasks: {duplicates} of {attempts} attempts repeated a task already made: its nodes, or its results from the same starting points (the scopes hold too few distinct requests)"
            ),
        };
        Shortfall {
            requested: spec.count,
            made,
            attempts,
            duplicates,
            constraint,
            targets,
        }
    });
    Ok(ComposeSummary {
        made,
        attempts,
        duplicates,
        shortfall,
    })
}

/// The pool's id of the application named `name` (as instances spell it).
fn application_id(pool: &Pool<'_>, name: &str) -> Result<u32, ComposeError> {
    (0..pool.len())
        .find(|&i| pool.instance(i).application == name)
        .map(|i| pool.slim[i].app)
        .ok_or_else(|| ComposeError::UnknownApplication {
            name: name.to_string(),
            known: pool.applications().iter().map(|a| a.to_string()).collect(),
        })
}

struct SlotState {
    slot: usize,
    tries: u32,
    combo: usize,
}

/// One feasible combination of target ranges.
struct Combo {
    ranges: Ranges,
    /// Bit `n` set: some DAG with `n` nodes may meet the ranges.
    sizes: u32,
    labels: [String; 5],
}

/// The request resolved into level combinations with their probabilities.
struct Plan {
    combos: Vec<Combo>,
    /// Cumulative weights, same length as `combos`.
    cumulative: Vec<f64>,
}

impl Plan {
    fn new(spec: &ComposeSpec, catalog: &Catalog) -> Result<Plan, ComposeError> {
        if spec.min_nodes == 0 || spec.min_nodes > spec.max_nodes || spec.max_nodes > MAX_NODES {
            return Err(ComposeError::NodeLimits {
                min_nodes: spec.min_nodes,
                max_nodes: spec.max_nodes,
                limit: MAX_NODES,
            });
        }
        // Fixed ranges: explicit targets, then the capability's constraints.
        let mut fixed: [Option<(usize, usize)>; 5] = [None; 5];
        for (d, t) in &spec.targets {
            if *t != Target::Any {
                fixed[dim_index(*d)] = Some(target_range(*d, *t));
            }
        }
        if let Some(name) = &spec.capability {
            let cap = catalog
                .capability(name)
                .ok_or_else(|| ComposeError::UnknownCapability {
                    name: name.clone(),
                    known: catalog
                        .capabilities
                        .iter()
                        .map(|c| c.name.clone())
                        .collect(),
                })?;
            for (d, level) in &cap.constraints {
                let wanted = Target::Level(*level);
                match spec.targets.get(d) {
                    Some(t) if *t != Target::Any && *t != wanted => {
                        return Err(ComposeError::Conflict {
                            capability: name.clone(),
                            dimension: *d,
                            level: level.to_string(),
                            requested: t.to_string(),
                        });
                    }
                    _ => fixed[dim_index(*d)] = Some(d.range_of(*level)),
                }
            }
        }
        let dist = spec.profile.distribution();
        let mut combos = Vec::new();
        let mut weights = Vec::new();
        let free: Vec<usize> = (0..5).filter(|&i| fixed[i].is_none()).collect();
        let sampled: Vec<usize> = if dist.is_some() {
            free.clone()
        } else {
            Vec::new()
        };
        let total = 3usize.pow(sampled.len() as u32);
        let mut base = Ranges::any();
        for (i, f) in fixed.iter().enumerate() {
            if let Some((lo, hi)) = *f {
                base.lo[i] = lo;
                base.hi[i] = hi;
            }
        }
        if let Some(why) = explain_infeasible(&base, spec.min_nodes, spec.max_nodes, spec.side_work)
        {
            return Err(ComposeError::Infeasible { explanation: why });
        }
        for code in 0..total {
            let mut r = base;
            let mut w = 1.0;
            let mut c = code;
            for &i in &sampled {
                let level = crate::model::Level::ALL[c % 3];
                c /= 3;
                let (lo, hi) = Dimension::ALL[i].range_of(level);
                r.lo[i] = lo;
                r.hi[i] = hi;
                if let Some(dist) = dist {
                    let row = dist[i];
                    w *= row[c_index(level)] / row.iter().sum::<f64>();
                }
            }
            let sizes = feasible_sizes(&r, spec.min_nodes, spec.max_nodes, spec.side_work);
            if sizes == 0 || w <= 0.0 {
                continue;
            }
            let labels = std::array::from_fn(|i| {
                if r.is_any(i) {
                    format!("{}=any", Dimension::ALL[i])
                } else {
                    range_label(i, r.lo[i], r.hi[i])
                }
            });
            combos.push(Combo {
                ranges: r,
                sizes,
                labels,
            });
            weights.push(w);
        }
        let mut acc = 0.0;
        let cumulative = weights
            .iter()
            .map(|w| {
                acc += w;
                acc
            })
            .collect();
        Ok(Plan { combos, cumulative })
    }

    /// The level combination of `slot` after `epoch` redraws.
    fn draw_combo(&self, seed: u64, slot: usize, epoch: u32) -> usize {
        if self.combos.len() == 1 {
            return 0;
        }
        let mut rng = stream_rng(seed, slot, 1, epoch);
        let total = *self.cumulative.last().unwrap_or(&1.0);
        let x = rng.random::<f64>() * total;
        self.cumulative
            .partition_point(|&c| c <= x)
            .min(self.combos.len() - 1)
    }
}

fn c_index(l: crate::model::Level) -> usize {
    match l {
        crate::model::Level::Easy => 0,
        crate::model::Level::Medium => 1,
        crate::model::Level::Hard => 2,
    }
}

/// A ChaCha stream for (slot, purpose, index): purpose 0 attempts, 1 level draws.
fn stream_rng(seed: u64, slot: usize, purpose: u64, index: u32) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(((slot as u64) << 24) | (purpose << 20) | u64::from(index & 0xF_FFFF));
    rng
}

/// Scopes prepared for sampling.
struct World<'p, 'a> {
    pool: &'p Pool<'a>,
    /// Usable scopes (placeable members, at least one root), largest first.
    order: Vec<usize>,
    /// Placeable members and roots of each scope (by scope index).
    members: Vec<Vec<u32>>,
    roots: Vec<Vec<u32>>,
    /// Cumulative member counts along `order`.
    cumulative: Vec<usize>,
    /// Per application (pool app id): (scope, root) of its roots in usable scopes,
    /// largest scope first.
    app_roots: Vec<Vec<(u32, u32)>>,
    /// The application every task has a node of (`ComposeSpec::application`),
    /// and its placeable members by scope: (scope, instance).
    only_app: Option<u32>,
    app_members: Vec<(u32, u32)>,
    /// Members of each scope with two inputs that members of the scope produce
    /// (a node that can join two branches).
    joinable: Vec<Vec<u32>>,
    /// Scopes with a joinable member, largest first.
    join_order: Vec<usize>,
    /// By instance: how wide a task grown from it could get at most (see
    /// [`fan_potential`]).
    fan: Vec<u8>,
    /// Per scope, parallel to `members`: the most nodes on a path down from
    /// the member inside the scope (see [`scope_reach`]).
    reach: Vec<Vec<u8>>,
    /// Scopes whose roots start a path of at least three nodes, with the most
    /// nodes such a path holds, deepest first.
    deep_order: Vec<(usize, u8)>,
    /// Per scope: its hubs (see [`Hub`]) read in at least [`MIN_HUB_APPS`]
    /// applications, most readers first.
    hubs: Vec<Vec<Hub>>,
    /// Per scope: the index in `sides` of its topic's side work, if it keeps
    /// to one topic (see [`Side`]).
    side_of: Vec<Option<usize>>,
    sides: Vec<Side>,
}

/// The work of one topic across the whole pool, for a task that must be
/// wider or longer than its scope's connected work allows: a trip's task may
/// add "put the flight in the calendar" beside "mail the weather page", two
/// independent requests serving one purpose. Such a side node starts from the
/// desktop (a root) and may grow its own small branch; it shares nothing with
/// the rest of the task, so the graph has no invented edge.
#[derive(Debug, Clone, Default)]
struct Side {
    /// Placeable instances of the topic whose values all keep to its circle
    /// (sorted).
    members: Vec<u32>,
    /// The roots among them.
    roots: Vec<u32>,
}

/// A file or value one root of a scope makes that members of several other
/// applications of the scope read with nothing else made: the centre of a wide
/// task (a photo taken, then set as wallpaper, put in the deck, mailed, ...).
#[derive(Debug, Clone, Copy)]
struct Hub {
    producer: u32,
    resource: u32,
    /// Distinct applications among the readers.
    apps: u8,
}

/// Hubs read in fewer applications than this are not kept.
const MIN_HUB_APPS: usize = 3;

/// Joining nodes a diamond seed looks at.
const DIAMOND_JOINS: usize = 12;

/// Steps a chain seed may try looking for a long path: its roots are those
/// whose paths down reach the depth ([`World::reach`]), so a few suffice, and
/// a request of tens of thousands of tasks tries many deep slots.
const CHAIN_BUDGET: usize = 48;

/// The hubs of one scope (members sorted), most reader applications first.
fn scope_hubs(pool: &Pool<'_>, members: &[u32]) -> Vec<Hub> {
    let mut hubs = Vec::new();
    for &p in members {
        // A producer flawed on its own (a screenshot also copied to the
        // clipboard that no reader pastes) spoils every star around it.
        if !pool.is_root(p as usize) || !pointless(pool, &[p as usize], &[true]).is_empty() {
            continue;
        }
        let sp = &pool.slim[p as usize];
        for &r in sp.outputs.iter() {
            // Only readers that make a sound leaf of the star count: one that
            // carries a converted file (a text copy of a PDF put on a to-do)
            // or leaves nothing that lasts is no branch a person would ask for.
            let mut apps: Vec<u32> = hub_readers(pool, members, p, r)
                .filter(|&x| pointless(pool, &[p as usize, x as usize], &[true, false]).is_empty())
                .map(|x| pool.slim[x as usize].app)
                .collect();
            apps.sort_unstable();
            apps.dedup();
            if apps.len() >= MIN_HUB_APPS {
                hubs.push(Hub {
                    producer: p,
                    resource: r,
                    apps: apps.len().min(255) as u8,
                });
            }
        }
    }
    hubs.sort_by(|a, b| b.apps.cmp(&a.apps).then(a.producer.cmp(&b.producer)));
    hubs
}

/// Members of another application than `p`'s that read `r` and nothing else
/// that is not on the desktop.
fn hub_readers<'m>(
    pool: &'m Pool<'_>,
    members: &'m [u32],
    p: u32,
    r: u32,
) -> impl Iterator<Item = u32> + 'm {
    let app = pool.slim[p as usize].app;
    members.iter().copied().filter(move |&x| {
        let sx = &pool.slim[x as usize];
        sx.app != app
            && sx.inputs.binary_search(&r).is_ok()
            && sx
                .inputs
                .iter()
                .all(|&i| i == r || pool.initial[i as usize])
    })
}

impl<'p, 'a> World<'p, 'a> {
    fn new(pool: &'p Pool<'a>, scopes: &'p [Scope]) -> World<'p, 'a> {
        let mut members = Vec::with_capacity(scopes.len());
        let mut roots = Vec::with_capacity(scopes.len());
        for s in scopes {
            let m: Vec<u32> = s
                .members
                .iter()
                .filter(|&&i| i < pool.len() && pool.is_placeable(i))
                .map(|&i| i as u32)
                .collect();
            let r: Vec<u32> = m
                .iter()
                .copied()
                .filter(|&i| pool.is_root(i as usize))
                .collect();
            members.push(m);
            roots.push(r);
        }
        let mut order: Vec<usize> = (0..scopes.len())
            .filter(|&s| !roots[s].is_empty())
            .collect();
        order.sort_by(|&a, &b| members[b].len().cmp(&members[a].len()).then(a.cmp(&b)));
        let mut acc = 0;
        let cumulative = order
            .iter()
            .map(|&s| {
                acc += members[s].len();
                acc
            })
            .collect();
        let napps = pool
            .slim
            .iter()
            .map(|s| s.app as usize + 1)
            .max()
            .unwrap_or(0);
        let mut app_roots: Vec<Vec<(u32, u32)>> = vec![Vec::new(); napps];
        for &sc in &order {
            for &r in &roots[sc] {
                app_roots[pool.slim[r as usize].app as usize].push((sc as u32, r));
            }
        }
        let joinable: Vec<Vec<u32>> = members
            .iter()
            .map(|m| {
                m.iter()
                    .copied()
                    .filter(|&x| produced_inputs(pool, m, x) >= 2)
                    .collect()
            })
            .collect();
        let join_order = order
            .iter()
            .copied()
            .filter(|&s| !joinable[s].is_empty())
            .collect();
        let fan = fan_potential(pool);
        let hubs = members.iter().map(|m| scope_hubs(pool, m)).collect();
        let sides = topic_sides(pool);
        let side_of = members
            .iter()
            .map(|m| {
                let topics = m
                    .iter()
                    .map(|&i| pool.slim[i as usize].topics)
                    .fold(TopicSet::default(), TopicSet::union);
                topics
                    .single()
                    .filter(|&t| t != LOOSE_FILES && !sides[t].roots.is_empty())
            })
            .collect();
        let mut world = World {
            fan,
            reach: Vec::new(),
            deep_order: Vec::new(),
            hubs,
            side_of,
            sides,
            pool,
            order,
            members,
            roots,
            cumulative,
            app_roots,
            only_app: None,
            app_members: Vec::new(),
            joinable,
            join_order,
        };
        world.keep_sound_joins();
        let ok = can_place_and_end(pool);
        world.reach = (0..world.members.len())
            .map(|sc| scope_reach(&world, &ok, sc))
            .collect();
        world.deep_order = world
            .order
            .iter()
            .map(|&sc| {
                let deepest = world.roots[sc]
                    .iter()
                    .map(|&r| world.reach_in(sc, r))
                    .max()
                    .unwrap_or(0);
                (sc, deepest as u8)
            })
            .filter(|&(_, d)| d >= 3)
            .collect();
        world
            .deep_order
            .sort_by_key(|&(sc, d)| (std::cmp::Reverse(d), sc));
        world
    }

    /// Keeps, of each scope's joinable members, those with a cone the checks
    /// accept in one of [`SOUND_JOIN_PROBES`] draws: most joinable members
    /// have none (two prints merged and converted again), and a join slot
    /// that draws them fails until it gives up on fan-in.
    fn keep_sound_joins(&mut self) {
        let sound: Vec<Vec<u32>> = (0..self.joinable.len())
            .map(|sc| {
                self.joinable[sc]
                    .iter()
                    .copied()
                    .filter(|&x| {
                        let mut rng = ChaCha8Rng::seed_from_u64(((sc as u64) << 32) | u64::from(x));
                        (0..SOUND_JOIN_PROBES).any(|_| {
                            join_cone_once(self, sc, x, MAX_NODES, &mut rng, true).is_some()
                        })
                    })
                    .collect()
            })
            .collect();
        self.joinable = sound;
        let joinable = &self.joinable;
        self.join_order.retain(|&sc| !joinable[sc].is_empty());
    }

    /// A root of `scope` a task at least `width` wide can grow from, when the
    /// drawn `root` cannot: most roots start a chain or a pair, and a wide slot
    /// drawing those would almost never fill.
    fn wide_root(&self, scope: usize, root: u32, width: usize, rng: &mut ChaCha8Rng) -> u32 {
        if usize::from(self.fan[root as usize]) >= width {
            return root;
        }
        let wide: Vec<u32> = self.roots[scope]
            .iter()
            .copied()
            .filter(|&r| usize::from(self.fan[r as usize]) >= width)
            .collect();
        if wide.is_empty() {
            root
        } else {
            wide[rng.random_range(0..wide.len())]
        }
    }

    /// The most nodes on a path down from `inst` inside `scope` (0 when it is
    /// no member).
    fn reach_in(&self, scope: usize, inst: u32) -> usize {
        match self.members[scope].binary_search(&inst) {
            Ok(k) => usize::from(self.reach[scope][k]),
            Err(_) => 0,
        }
    }

    /// A usable scope with at least `n` members and a root whose path down
    /// holds `depth` nodes, each as likely; `None` when the scopes hold no
    /// such path.
    fn deep_scope(&self, depth: usize, n: usize, rng: &mut ChaCha8Rng) -> Option<usize> {
        let deep: Vec<usize> = self
            .deep_order
            .iter()
            .take_while(|&&(_, d)| usize::from(d) >= depth)
            .map(|&(sc, _)| sc)
            .filter(|&sc| self.members[sc].len() >= n)
            .collect();
        if deep.is_empty() {
            return None;
        }
        Some(deep[rng.random_range(0..deep.len())])
    }

    fn in_scope(&self, scope: usize, inst: u32) -> bool {
        self.members[scope].binary_search(&inst).is_ok()
    }

    /// Is `inst` part of `scope`'s side work (see [`Side`])?
    fn in_side(&self, scope: usize, inst: u32) -> bool {
        self.side_of[scope].is_some_and(|t| self.sides[t].members.binary_search(&inst).is_ok())
    }

    /// The roots of `scope`'s side work (see [`Side`]); empty when it has none.
    fn side_roots(&self, scope: usize) -> &[u32] {
        match self.side_of[scope] {
            Some(t) => &self.sides[t].roots,
            None => &[],
        }
    }

    /// Instances of `scope` that produce input `res` of some instance.
    fn producers_of(&self, scope: usize, x: u32, res: u32) -> Vec<u32> {
        self.pool
            .dependencies(x as usize)
            .iter()
            .copied()
            .filter(|&p| {
                self.in_scope(scope, p)
                    && self.pool.slim[p as usize]
                        .outputs
                        .binary_search(&res)
                        .is_ok()
            })
            .collect()
    }

    /// Restricts the tasks to those with a node of `app`.
    fn only_app(&mut self, app: u32) {
        self.only_app = Some(app);
        let pool = self.pool;
        self.app_members = self
            .order
            .iter()
            .flat_map(|&sc| {
                self.members[sc]
                    .iter()
                    .filter(|&&i| pool.slim[i as usize].app == app)
                    .map(move |&i| (sc as u32, i))
            })
            .collect();
    }

    /// How many of `app`'s (scope, root) pairs lie in scopes of at least `n`
    /// members (a prefix: largest scope first).
    fn eligible_roots(&self, app: usize, n: usize) -> usize {
        self.app_roots[app].partition_point(|&(sc, _)| self.members[sc as usize].len() >= n)
    }
}

/// Nodes per subtask and per application over the tasks accepted so far.
struct Usage {
    /// By subtask index (`Instance::subtask`).
    subtask: Vec<u32>,
    /// By pool application id.
    app: Vec<u32>,
    nodes: usize,
    /// Nodes the request will have at least (`min_nodes * count`).
    floor: usize,
    /// Tasks accepted so far by the desktop files they start from (sorted
    /// resource ids; tasks that start from no desktop file are not counted).
    starts: HashMap<Box<[u32]>, u32>,
    /// Tasks accepted so far by their shape ([`shape_key`]; smaller tasks are
    /// not counted), capped like `starts`.
    shapes: HashMap<Box<[u32]>, u32>,
    /// Desktop files the pool's subtasks read: a pool with fewer than the
    /// tasks asked for cannot start each from files of its own, so its cap on
    /// tasks of one start relaxes as early as the subtask cap.
    start_files: usize,
    /// Tasks the request asks for.
    count: usize,
    /// Does the request spread over subtasks and applications? Not when it names
    /// level targets or a capability: those are met first, from whatever the pool
    /// offers for them.
    on: bool,
    /// Does the per-subtask cap hold even so? Yes when the dataset already has
    /// tasks ([`Usage::seed`]).
    capped: bool,
    /// Nodes of the tasks the dataset already has ([`Usage::seed`]).
    prior: usize,
}

impl Usage {
    fn new(pool: &Pool<'_>, spec: &ComposeSpec) -> Usage {
        let napps = pool
            .slim
            .iter()
            .map(|s| s.app as usize + 1)
            .max()
            .unwrap_or(0);
        Usage {
            subtask: vec![0; pool.subtasks().len()],
            app: vec![0; napps],
            nodes: 0,
            floor: spec.min_nodes.max(1).saturating_mul(spec.count),
            starts: HashMap::new(),
            shapes: HashMap::new(),
            start_files: start_key(pool, &(0..pool.len() as u32).collect::<Vec<_>>()).len(),
            count: spec.count,
            on: spec.targets.is_empty() && spec.capability.is_none(),
            capped: false,
            prior: 0,
        }
    }

    /// Counts the nodes and desktop files of tasks already in the dataset and
    /// turns the caps on.
    fn seed(&mut self, prior: &Prior) {
        for &s in &prior.nodes {
            if let Some(c) = self.subtask.get_mut(s) {
                *c += 1;
            }
        }
        for key in prior.starts.iter().filter(|k| !k.is_empty()) {
            *self.starts.entry(key.clone()).or_default() += 1;
        }
        for key in prior.shapes.iter().filter(|k| !k.is_empty()) {
            *self.shapes.entry(key.clone()).or_default() += 1;
        }
        let n = prior.nodes.len();
        self.nodes += n;
        self.floor += n;
        self.prior += n;
        self.capped |= n > 0;
    }

    /// Does any cap apply to this request?
    fn caps(&self) -> bool {
        self.on || self.capped
    }

    /// Most nodes one subtask may have once the request holds `nodes` nodes, for a
    /// slot that has failed `tries` times. A dataset where one subtask fills more
    /// than [`MAX_SUBTASK_SHARE`] of the nodes teaches that subtask, not the
    /// desktop, so the cap holds; only for a small request (where the share is
    /// a single node) or a pool too small to fill the request under it (fewer
    /// subtasks than the request's nodes over the cap) does it grow by its base
    /// value every [`RELAX_AFTER`] failures.
    fn cap(&self, nodes: usize, tries: u32) -> u32 {
        // A small request added to a stored dataset counts the nodes there
        // are, not those it hopes to add: a top-up that makes one task of
        // three must not leave a subtask over the share of the dataset it
        // joins. A request adding at least as many nodes as the dataset holds
        // is its bulk (the main composition of `synth run`, after the few
        // tasks of the capabilities): it counts the nodes it will add, like a
        // request to an empty dataset, or its first tasks could reuse nothing
        // those few tasks use.
        let bulk = !self.capped || self.floor >= 2 * self.prior;
        let total = if bulk { nodes.max(self.floor) } else { nodes };
        let base = ((MAX_SUBTASK_SHARE * total as f64).floor() as u32).max(1);
        let least = (MAX_SUBTASK_SHARE * self.floor as f64).floor() as usize;
        if least >= 2 && self.subtask.len() * least >= self.floor {
            base
        } else {
            base.saturating_mul(1 + tries / RELAX_AFTER)
        }
    }

    /// Would accepting a task of these instances put a subtask over the cap?
    fn overuses(&self, pool: &Pool<'_>, instances: &[u32], tries: u32) -> bool {
        if !self.caps() {
            return false;
        }
        let key = start_key(pool, instances);
        let start_cap = ((MAX_START_SHARE * self.count as f64).floor() as u32)
            .max(1)
            .saturating_mul(1 + tries / self.start_relax_after());
        if !key.is_empty() && self.starts.get(&key).copied().unwrap_or(0) >= start_cap {
            return true;
        }
        if tries < SHAPE_FORGET_AFTER {
            let shape = shape_key(pool, instances);
            if !shape.is_empty() && self.shapes.get(&shape).copied().unwrap_or(0) >= start_cap {
                return true;
            }
        }
        let cap = self.cap(self.nodes + instances.len(), tries);
        instances.iter().any(|&i| {
            let s = pool.instance(i as usize).subtask;
            let here = instances
                .iter()
                .filter(|&&j| pool.instance(j as usize).subtask == s)
                .count() as u32;
            self.subtask[s] + here > cap
        })
    }

    /// Failed attempts of a slot after which its start cap grows by its base
    /// value ([`START_RELAX_AFTER`], or [`RELAX_AFTER`] for a pool with fewer
    /// desktop files than tasks asked for).
    fn start_relax_after(&self) -> u32 {
        if self.start_files >= self.count {
            START_RELAX_AFTER
        } else {
            RELAX_AFTER
        }
    }

    fn add(&mut self, pool: &Pool<'_>, instances: &[u32]) {
        for &i in instances {
            self.subtask[pool.instance(i as usize).subtask] += 1;
            self.app[pool.slim[i as usize].app as usize] += 1;
        }
        self.nodes += instances.len();
        let key = start_key(pool, instances);
        if !key.is_empty() {
            *self.starts.entry(key).or_default() += 1;
        }
        let shape = shape_key(pool, instances);
        if !shape.is_empty() {
            *self.shapes.entry(shape).or_default() += 1;
        }
    }
}

struct Attempt {
    task: Option<CompactTask>,
    /// Bit `i`: dimension `i` ended in range.
    reached: u8,
    /// The graph met every target but repeats a task accepted in an earlier round
    /// (so its orders were not computed).
    duplicate: bool,
}

/// The graph being grown.
#[derive(Clone)]
struct Growth {
    nodes: Vec<u32>,
    dag: SmallDag,
    /// Ancestors and descendants of each node, including itself.
    anc: [u32; MAX_NODES],
    desc: [u32; MAX_NODES],
    /// Longest path (in nodes) ending at / starting from each node.
    down: [u8; MAX_NODES],
    up: [u8; MAX_NODES],
    edges: usize,
    depth: usize,
    cats: Vec<u32>,
}

impl Growth {
    /// A graph without nodes.
    fn empty() -> Growth {
        Growth {
            nodes: Vec::new(),
            dag: SmallDag::with_nodes(0),
            anc: [0; MAX_NODES],
            desc: [0; MAX_NODES],
            down: [0; MAX_NODES],
            up: [0; MAX_NODES],
            edges: 0,
            depth: 0,
            cats: Vec::new(),
        }
    }

    /// The graph of the single node `root`.
    fn rooted(pool: &Pool<'_>, root: u32) -> Growth {
        let mut g = Growth::empty();
        g.nodes.push(root);
        g.dag = SmallDag::with_nodes(1);
        g.depth = 1;
        g.cats.push(pool.slim[root as usize].category);
        g.anc[0] = 1;
        g.desc[0] = 1;
        g.down[0] = 1;
        g.up[0] = 1;
        g
    }
}

struct Candidate {
    inst: u32,
    preds: u32,
    succs: u32,
    edges: usize,
    depth: usize,
    width: usize,
    cats: usize,
    /// Loose ends of the graph with the candidate in: results nothing uses yet
    /// that make the task pointless unless a later node uses them.
    loose: usize,
}

/// One growth attempt for slot `s`. `seen` holds the canonical forms accepted before
/// this round (read-only here, so the outcome does not depend on scheduling).
fn attempt(
    world: &World<'_, '_>,
    plan: &Plan,
    spec: &ComposeSpec,
    s: &SlotState,
    seen: &HashSet<Vec<u32>>,
    usage: &Usage,
) -> Attempt {
    let combo = &plan.combos[s.combo];
    let r = &combo.ranges;
    let mut rng = stream_rng(spec.seed, s.slot, 0, s.tries);
    let fail = Attempt {
        task: None,
        reached: 0,
        duplicate: false,
    };
    // Node count: uniform over the feasible sizes some usable scope can hold.
    let biggest = match world.only_app {
        Some(_) => world
            .app_members
            .iter()
            .map(|&(sc, _)| world.members[sc as usize].len())
            .max()
            .unwrap_or(0),
        None => world.members[world.order[0]].len(),
    };
    let mut sizes: Vec<usize> = bits(combo.sizes).filter(|&n| n <= biggest).collect();
    if sizes.is_empty() {
        return fail;
    }
    // A slot that keeps failing gives up its largest sizes one at a time (every
    // RELAX_AFTER failures): the scopes may hold no connected graph that big.
    let drop = (s.tries / RELAX_AFTER) as usize;
    sizes.truncate(sizes.len().saturating_sub(drop).max(1));
    // A join slot looks for fan-in, which takes three nodes: while it looks, a
    // draw of two would end the slot with a pair before any join is tried.
    let join_turn = world.only_app.is_none()
        && s.slot % JOIN_EVERY == JOIN_EVERY - 1
        && s.tries < JOIN_TRIES
        && r.lo[BRA] <= 2
        && !world.join_order.is_empty();
    if join_turn && sizes.iter().any(|&n| n >= 3) {
        sizes.retain(|&n| n >= 3);
    }
    let n = sizes[rng.random_range(0..sizes.len())];
    let pool = world.pool;
    let cap = usage.cap(usage.nodes + n, s.tries);
    // Balancing applications matters for a dataset of a few thousand tasks; a bulk
    // request (more than one chunk) keeps the cheaper choice by scope size.
    let (scope, root) = if let Some(app) = world.only_app {
        // One of the application's roots, the least used subtask among a few
        // (or, without one, a cone through one of its members below).
        let k = world.eligible_roots(app as usize, n);
        if k == 0 {
            // No root of it in a scope this big: only a cone seed (below)
            // can give the task; this member stands in until then.
            let Some(&(sc, y)) = world
                .app_members
                .iter()
                .find(|&&(sc, _)| world.members[sc as usize].len() >= n)
            else {
                return fail;
            };
            (sc as usize, y)
        } else {
            least_used_root(pool, usage, &world.app_roots[app as usize][..k], &mut rng)
        }
    } else if usage.on && s.tries < RELAX_AFTER && spec.count <= CHUNK {
        // An application weighted by 1 / (1 + its nodes so far)^2 among those with a
        // root in a scope of at least n members, then the least used subtask among
        // a few of its roots.
        let mut weights: Vec<(usize, usize, f64)> = Vec::new();
        let mut total = 0.0;
        for app in 0..world.app_roots.len() {
            let k = world.eligible_roots(app, n);
            if k > 0 {
                let u = 1.0 + f64::from(usage.app[app]);
                total += 1.0 / (u * u);
                weights.push((app, k, total));
            }
        }
        let x = rng.random::<f64>() * total;
        let pick = weights.partition_point(|w| w.2 <= x).min(weights.len() - 1);
        let (app, k, _) = weights[pick];
        least_used_root(pool, usage, &world.app_roots[app][..k], &mut rng)
    } else {
        // Scope: weighted by size among those with at least n members (a prefix).
        let eligible = world
            .order
            .partition_point(|&sc| world.members[sc].len() >= n);
        let total = world.cumulative[eligible - 1];
        let x = rng.random_range(0..total);
        let scope = world.order[world.cumulative[..eligible].partition_point(|&c| c <= x)];
        let roots = &world.roots[scope];
        (scope, roots[rng.random_range(0..roots.len())])
    };

    let track_width = !(r.lo[BRA] <= 1 && r.hi[BRA] >= n);
    let root = if r.lo[BRA] >= 3 && world.only_app.is_none() {
        world.wide_root(scope, root, r.lo[BRA], &mut rng)
    } else {
        root
    };
    // A join narrows the graph: slots that must be wide are no join slots.
    let join_slot = join_turn && n >= 3;
    // A wide slot starts from a hub and its readers, a deep one from a path
    // searched for, a long one in one category from a join of that category
    // ([`category_seed`]): random growth seldom reaches any. Every other try, the
    // first among them, still grows at random (a small pool's wide graphs may
    // have no hub).
    let shaped = if let Some(app) = world.only_app {
        // Every other try, a cone through a member of the application (one
        // that reads what others make, a picture copied into a document).
        let rootless = world.eligible_roots(app as usize, n) == 0;
        let seed = if s.tries % 2 == 1 || rootless {
            app_cone_seed(world, app, n, &mut rng)
        } else {
            None
        };
        if rootless && seed.is_none() {
            return fail;
        }
        seed
    } else if s.tries.is_multiple_of(2) {
        None
    } else if r.lo[BRA] >= 3 {
        // Wide from either side: one file read by several applications (a
        // star), or several applications' files gathered into one (a zip of
        // the launch kit), every other shaped try.
        let star = |rng: &mut ChaCha8Rng| star_seed(world, scope, r.lo[BRA], n, rng);
        if s.tries % 4 == 1 {
            star(&mut rng)
        } else {
            gather_seed(world, scope, r.lo[BRA], n, &mut rng).or_else(|| star(&mut rng))
        }
    } else if r.lo[HIE] >= 4 {
        chain_seed(world, scope, r.lo[HIE], n, &mut rng)
    } else if r.lo[DEP] >= n {
        diamond_seed(world, scope, n, &mut rng).or_else(|| triangle_seed(world, scope, n, &mut rng))
    } else if r.hi[KNO] <= 1 && r.lo[INS] >= 5 {
        category_seed(world, n, &mut rng)
    } else {
        None
    };
    let (scope, seeded) = if let Some((scope, g)) = shaped {
        (scope, Some(g))
    } else if join_slot && !world.join_order.is_empty() {
        // A scope with a node that can join two branches, this one when it has.
        let Some(scope) = join_scope(world, scope, n, &mut rng) else {
            return fail;
        };
        match join_cone(world, scope, n, &mut rng, track_width) {
            Some(g) => (scope, Some(g)),
            None => return fail,
        }
    } else {
        (scope, None)
    };
    let mut g = seeded.unwrap_or_else(|| Growth::rooted(pool, root));

    // Side work (see [`Side`]) only when asked for, and only for slots whose
    // targets connected work seldom meets: wide ones, five or more nodes, fewer
    // edges than nodes. A slot free of targets keeps to one connected piece.
    let wide = r.lo[BRA] >= 3;
    let sparse = r.hi[DEP] < n.saturating_sub(1);
    let reach = if spec.side_work && (wide || sparse || r.lo[INS] >= 5) {
        Reach::Side
    } else {
        Reach::Connected
    };
    let mut cands: Vec<Candidate> = Vec::with_capacity(CANDIDATES);
    let mut tried: Vec<u32> = Vec::with_capacity(DRAWS);
    while g.nodes.len() < n {
        cands.clear();
        tried.clear();
        for _ in 0..DRAWS {
            let from = g.nodes[rng.random_range(0..g.nodes.len())] as usize;
            let out = pool.dependents(from);
            let inn = pool.dependencies(from);
            let k = out.len() + inn.len();
            if k == 0 {
                continue;
            }
            let j = rng.random_range(0..k);
            let x = if j < out.len() {
                out[j]
            } else {
                inn[j - out.len()]
            };
            if tried.contains(&x) || g.nodes.contains(&x) {
                continue;
            }
            tried.push(x);
            if let Some(c) = evaluate(world, scope, &g, x, track_width, reach) {
                cands.push(c);
                if cands.len() == CANDIDATES {
                    break;
                }
            }
        }
        // Side work when connected growth is stuck or the slot has fewer
        // edges than a connected graph, and now and then besides for a slot
        // that must be wide.
        if reach == Reach::Side && (cands.is_empty() || sparse || (wide && rng.random_bool(0.5))) {
            // At the category limit, only side work of the categories in use.
            let full = g.cats.len() >= r.hi[KNO];
            let sides: Vec<u32> = world
                .side_roots(scope)
                .iter()
                .copied()
                .filter(|&x| !full || g.cats.contains(&pool.slim[x as usize].category))
                .collect();
            for _ in 0..SIDE_DRAWS.min(sides.len()) {
                let x = sides[rng.random_range(0..sides.len())];
                if tried.contains(&x) || g.nodes.contains(&x) || !apart(pool, &g.nodes, x) {
                    continue;
                }
                tried.push(x);
                if let Some(c) = evaluate(world, scope, &g, x, track_width, reach) {
                    cands.push(c);
                }
            }
        }
        let remaining = n - g.nodes.len() - 1;
        let best = cands.iter().enumerate().min_by_key(|(k, c)| {
            let p = penalty(r, c, g.nodes.len() + 1, remaining)
                + usage_penalty(pool, usage, cap, &g.nodes, c.inst);
            (p, *k)
        });
        let Some((_, c)) = best else {
            // Stuck: the graph cannot grow to n nodes from here.
            let reached = measure_bits(r, &g, false);
            return Attempt {
                task: None,
                reached,
                duplicate: false,
            };
        };
        add(&mut g, pool, c);
    }
    let width = g.dag.width();
    let cats = g.cats.len();
    let values = [g.edges, n, cats, g.depth, width];
    let mut reached = 0u8;
    for (i, &v) in values.iter().enumerate() {
        if r.contains(i, v) {
            reached |= 1 << i;
        }
    }
    let lacks_app = world
        .only_app
        .is_some_and(|a| !g.nodes.iter().any(|&v| pool.slim[v as usize].app == a));
    if reached != 0b11111 || (join_slot && !has_join(&g)) || lacks_app || has_pointless(pool, &g) {
        return Attempt {
            task: None,
            reached,
            duplicate: false,
        };
    }
    let mut key = g.nodes.clone();
    key.sort_unstable();
    if seen.contains(&key) {
        return Attempt {
            task: None,
            reached,
            duplicate: true,
        };
    }
    Attempt {
        task: Some(finish(pool, &g, scope, s.slot, spec.max_orders, values)),
        reached,
        duplicate: false,
    }
}

/// Of [`ROOT_DRAWS`] (scope, root) entries drawn from `entries` (not empty),
/// the one whose subtask the request has used least (the first on a tie).
fn least_used_root(
    pool: &Pool<'_>,
    usage: &Usage,
    entries: &[(u32, u32)],
    rng: &mut ChaCha8Rng,
) -> (usize, u32) {
    let k = entries.len();
    let uses = |r: u32| usage.subtask[pool.instance(r as usize).subtask];
    let mut best = entries[rng.random_range(0..k)];
    for _ in 1..ROOT_DRAWS.min(k) {
        let e = entries[rng.random_range(0..k)];
        if uses(e.1) < uses(best.1) {
            best = e;
        }
    }
    (best.0 as usize, best.1)
}

/// Seeds a wide slot: a hub of `scope` (or, when it has none read in `width`
/// applications, of another scope with `n` or more members) and readers of it
/// from distinct applications, each checked like any grown node, until the graph
/// is `width` wide. `None` when no hub gets there.
fn star_seed(
    world: &World<'_, '_>,
    scope: usize,
    width: usize,
    n: usize,
    rng: &mut ChaCha8Rng,
) -> Option<(usize, Growth)> {
    let fits = |sc: usize| {
        world.members[sc].len() >= n
            && world.hubs[sc]
                .first()
                .is_some_and(|h| usize::from(h.apps) >= width)
    };
    let scope = if fits(scope) {
        scope
    } else {
        let others: Vec<usize> = world.order.iter().copied().filter(|&sc| fits(sc)).collect();
        *others.get(rng.random_range(0..others.len().max(1)))?
    };
    let hubs = &world.hubs[scope];
    let k = hubs.partition_point(|h| usize::from(h.apps) >= width);
    let hub = hubs[rng.random_range(0..k)];
    let pool = world.pool;
    let mut readers: Vec<u32> =
        hub_readers(pool, &world.members[scope], hub.producer, hub.resource).collect();
    readers.shuffle(rng);
    let mut g = Growth::rooted(pool, hub.producer);
    let mut width_now = 1;
    // A reader is a leaf of the star: one whose result must be used further (a
    // zip, a copy) would leave a loose end.
    for x in readers {
        if width_now >= width || g.nodes.len() >= n {
            break;
        }
        let app = pool.slim[x as usize].app;
        if g.nodes.iter().any(|&v| pool.slim[v as usize].app == app) {
            continue;
        }
        if let Some(c) = evaluate(world, scope, &g, x, true, Reach::Connected) {
            if (c.width > width_now || g.nodes.len() == 1) && c.loose == 0 {
                width_now = c.width;
                add(&mut g, pool, &c);
            }
        }
    }
    (width_now >= width).then_some((scope, g))
}

/// Seeds a slot that needs more edges than a tree on its nodes has (four nodes,
/// four edges): a diamond, where one node's result is used by two others whose
/// results a fourth combines (a document made, its text copied in one
/// application and the file edited in another, both put into one e-mail). Each
/// node is checked like any grown node. `None` when the scope has no diamond.
fn diamond_seed(
    world: &World<'_, '_>,
    scope: usize,
    n: usize,
    rng: &mut ChaCha8Rng,
) -> Option<(usize, Growth)> {
    if n < 4 || world.join_order.is_empty() {
        return None;
    }
    let scope = join_scope(world, scope, n, rng)?;
    let pool = world.pool;
    let made = |v: u32| -> Vec<u32> {
        pool.slim[v as usize]
            .inputs
            .iter()
            .copied()
            .filter(|&r| !pool.initial[r as usize])
            .collect()
    };
    let mut joins = world.joinable[scope].clone();
    joins.shuffle(rng);
    for &x in joins.iter().take(DIAMOND_JOINS) {
        let inputs = made(x);
        for (i, &r1) in inputs.iter().enumerate() {
            for &r2 in &inputs[i + 1..] {
                for p1 in world.producers_of(scope, x, r1) {
                    for p2 in world.producers_of(scope, x, r2) {
                        if p1 == p2 {
                            continue;
                        }
                        let (m1, m2) = (made(p1), made(p2));
                        let [r0] = m1.as_slice() else { continue };
                        if m2.as_slice() != [*r0] {
                            continue;
                        }
                        let roots: Vec<u32> = world
                            .producers_of(scope, p1, *r0)
                            .into_iter()
                            .filter(|&p0| pool.is_root(p0 as usize) && p0 != x && p0 != p2)
                            .collect();
                        let Some(&p0) = roots.get(rng.random_range(0..roots.len().max(1))) else {
                            continue;
                        };
                        if let Some(g) = grow_in_order(world, scope, &[p0, p1, p2, x]) {
                            return Some((scope, g));
                        }
                    }
                }
            }
        }
    }
    None
}

/// Seeds a dense slot from a join two of whose inputs come from producers one
/// of which reads the other: a photo brightened, the itinerary it is put in,
/// both zipped with the weather page. The pair and the join hold three edges
/// on three nodes, and the maker of each other input the join reads ([`fed`])
/// adds one more: four nodes, four edges, where a diamond needs two readers
/// of one file. `None` when no draw of [`DIAMOND_JOINS`] joins gives one of
/// at most `n` nodes.
fn triangle_seed(
    world: &World<'_, '_>,
    scope: usize,
    n: usize,
    rng: &mut ChaCha8Rng,
) -> Option<(usize, Growth)> {
    if n < 4 || world.join_order.is_empty() {
        return None;
    }
    let scope = join_scope(world, scope, n, rng)?;
    let pool = world.pool;
    let mut joins = world.joinable[scope].clone();
    joins.shuffle(rng);
    for &x in joins.iter().take(DIAMOND_JOINS) {
        let made: Vec<u32> = pool.slim[x as usize]
            .inputs
            .iter()
            .copied()
            .filter(|&r| !pool.initial[r as usize])
            .collect();
        if made.len() + 1 > n {
            continue;
        }
        for &r1 in &made {
            for &r2 in made.iter().filter(|&&r| r != r1) {
                for p1 in world.producers_of(scope, x, r1) {
                    for p2 in world.producers_of(scope, x, r2) {
                        // The pair stands alone: the first reads only the
                        // desktop's files, the second those and the first's.
                        if p2 == p1
                            || !pool.depends_on(p2 as usize, p1 as usize)
                            || !inputs_met(pool, p1, &[])
                            || !inputs_met(pool, p2, &[p1])
                        {
                            continue;
                        }
                        let Some(g) = grow_in_order(world, scope, &[p1, p2]) else {
                            continue;
                        };
                        match fed(world, scope, &g, x) {
                            Some(g) if g.nodes.len() <= n => return Some((scope, g)),
                            _ => {}
                        }
                    }
                }
            }
        }
    }
    None
}

/// Is every input of `v` on the desktop or made by one of `by`?
fn inputs_met(pool: &Pool<'_>, v: u32, by: &[u32]) -> bool {
    pool.slim[v as usize].inputs.iter().all(|&r| {
        pool.initial[r as usize]
            || by
                .iter()
                .any(|&p| pool.slim[p as usize].outputs.binary_search(&r).is_ok())
    })
}

/// `scope` when it has a member that joins two branches, else one of the
/// scopes with one and at least `n` members; `None` when there is none.
fn join_scope(
    world: &World<'_, '_>,
    scope: usize,
    n: usize,
    rng: &mut ChaCha8Rng,
) -> Option<usize> {
    if !world.joinable[scope].is_empty() {
        return Some(scope);
    }
    let eligible: Vec<usize> = world
        .join_order
        .iter()
        .copied()
        .filter(|&sc| world.members[sc].len() >= n)
        .collect();
    eligible
        .get(rng.random_range(0..eligible.len().max(1)))
        .copied()
}

/// Seeds a slot of a request for one application (`World::only_app`): a member
/// of the application with its cone (a producer for each input it needs that
/// the desktop does not hold, recursively), for an application whose subtasks
/// read what others make first (a picture edited, then copied into a
/// document). `None` when no draw gives a cone of at most `n` nodes.
fn app_cone_seed(
    world: &World<'_, '_>,
    app: u32,
    n: usize,
    rng: &mut ChaCha8Rng,
) -> Option<(usize, Growth)> {
    let pool = world.pool;
    let members: Vec<(u32, u32)> = world
        .app_members
        .iter()
        .copied()
        .filter(|&(sc, _)| world.members[sc as usize].len() >= n)
        .collect();
    (0..JOIN_DRAWS).find_map(|_| {
        let &(sc, y) = members.get(rng.random_range(0..members.len().max(1)))?;
        debug_assert_eq!(pool.slim[y as usize].app, app);
        let sc = sc as usize;
        cone_once(world, sc, y, n, rng, true).map(|g| (sc, g))
    })
}

/// The graph of `order` added one by one (the first as the root), each checked
/// like any grown node; `None` when one is refused.
fn grow_in_order(world: &World<'_, '_>, scope: usize, order: &[u32]) -> Option<Growth> {
    let (&first, rest) = order.split_first()?;
    let mut g = Growth::rooted(world.pool, first);
    for &v in rest {
        let c = evaluate(world, scope, &g, v, true, Reach::Connected)?;
        add(&mut g, world.pool, &c);
    }
    Some(g)
}

/// Seeds a deep slot: a path of `depth` nodes from a root of `scope`, found by a
/// bounded depth-first search where each step is checked like any grown node.
fn chain_seed(
    world: &World<'_, '_>,
    scope: usize,
    depth: usize,
    n: usize,
    rng: &mut ChaCha8Rng,
) -> Option<(usize, Growth)> {
    if depth > n {
        return None;
    }
    // A scope and root whose paths down are long enough: most roots start a
    // pair or a chain of three.
    let scope = if world.roots[scope]
        .iter()
        .any(|&r| world.reach_in(scope, r) >= depth)
    {
        scope
    } else {
        world.deep_scope(depth, n, rng)?
    };
    let roots: Vec<u32> = world.roots[scope]
        .iter()
        .copied()
        .filter(|&r| world.reach_in(scope, r) >= depth)
        .collect();
    let root = roots[rng.random_range(0..roots.len())];
    let mut budget = CHAIN_BUDGET;
    let g = Growth::rooted(world.pool, root);
    let want = Want { depth, nodes: n };
    deepen(world, scope, &g, want, rng, &mut budget).map(|g| (scope, g))
}

/// What [`chain_seed`] looks for: a path of `depth` nodes in a task of at
/// most `nodes`.
#[derive(Clone, Copy)]
struct Want {
    depth: usize,
    nodes: usize,
}

/// One step of [`chain_seed`]'s search: `g` extended below its deepest node.
fn deepen(
    world: &World<'_, '_>,
    scope: usize,
    g: &Growth,
    want: Want,
    rng: &mut ChaCha8Rng,
    budget: &mut usize,
) -> Option<Growth> {
    let depth = want.depth;
    if g.depth >= depth {
        return Some(g.clone());
    }
    let pool = world.pool;
    let tip = (0..g.nodes.len()).find(|&v| usize::from(g.down[v]) == g.depth)?;
    let mut next: Vec<u32> = pool
        .dependents(g.nodes[tip] as usize)
        .iter()
        .copied()
        .filter(|&x| {
            // Only dependents whose own paths down still reach the depth.
            world.reach_in(scope, x) + g.depth >= depth && !g.nodes.contains(&x)
        })
        .collect();
    next.shuffle(rng);
    for x in next.into_iter().take(4) {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        let Some(h) = fed(world, scope, g, x) else {
            continue;
        };
        // Deeper, with room left for the rest of the chain.
        if h.depth > g.depth && h.nodes.len() + depth.saturating_sub(h.depth) <= want.nodes {
            if let Some(done) = deepen(world, scope, &h, want, rng, budget) {
                return Some(done);
            }
        }
    }
    None
}

/// `g` with `x` added, and before it, for each input of `x` nothing in `g`
/// makes, a member of `scope` that makes it from the desktop's own files
/// alone: a chain goes on through a step that reads a second file (the
/// protected itinerary zipped with the printed weather page). `None` when an
/// input has no such maker or the growth refuses a node.
fn fed(world: &World<'_, '_>, scope: usize, g: &Growth, x: u32) -> Option<Growth> {
    let pool = world.pool;
    let mut h = g.clone();
    for &res in pool.slim[x as usize].inputs.iter() {
        let made = |h: &Growth| {
            h.nodes
                .iter()
                .any(|&v| pool.slim[v as usize].outputs.binary_search(&res).is_ok())
        };
        if pool.initial[res as usize] || made(&h) {
            continue;
        }
        let feeder = world
            .producers_of(scope, x, res)
            .into_iter()
            .filter(|&p| {
                !h.nodes.contains(&p)
                    && pool.slim[p as usize]
                        .inputs
                        .iter()
                        .all(|&i| pool.initial[i as usize])
            })
            .find_map(|p| evaluate(world, scope, &h, p, false, Reach::Side))?;
        add(&mut h, pool, &feeder);
    }
    let c = evaluate(world, scope, &h, x, false, Reach::Connected)?;
    add(&mut h, pool, &c);
    Some(h)
}

/// How many distinct non-initial inputs of `x` some other member of `members`
/// (sorted) produces.
fn produced_inputs(pool: &Pool<'_>, members: &[u32], x: u32) -> usize {
    let sx = &pool.slim[x as usize];
    sx.inputs
        .iter()
        .filter(|&&res| {
            !pool.initial[res as usize]
                && pool.dependencies(x as usize).iter().any(|&p| {
                    members.binary_search(&p).is_ok()
                        && pool.slim[p as usize].outputs.binary_search(&res).is_ok()
                })
        })
        .count()
}

/// Seeds a join slot's graph: a joinable member `x` of the scope and, for each of
/// its inputs not on the desktop, a producer drawn from the scope, recursively
/// (the cone of `x`), added in an order where every node's inputs are available,
/// then `x` itself. `None` when the cone is larger than `n`, would clash or
/// cycle, or `x` ends with fewer than two predecessors.
fn join_cone(
    world: &World<'_, '_>,
    scope: usize,
    n: usize,
    rng: &mut ChaCha8Rng,
    track_width: bool,
) -> Option<Growth> {
    // A joinable member's producers are drawn at random, and some draws have
    // no sound cone: a few are drawn before the attempt fails.
    let targets = &world.joinable[scope];
    (0..JOIN_DRAWS).find_map(|_| {
        let x = targets[rng.random_range(0..targets.len())];
        join_cone_once(world, scope, x, n, rng, track_width)
    })
}

/// Seeds a wide slot from the joining side: a member of `scope` (or, when it
/// has none, of another scope with `n` or more members) that reads `width` or
/// more files made in the task (an archive or a mail of several
/// applications' work), with the cone of their producers. `None` when no draw
/// gives a cone of at most `n` nodes that joins, and that is sound when it
/// fills the slot.
fn gather_seed(
    world: &World<'_, '_>,
    scope: usize,
    width: usize,
    n: usize,
    rng: &mut ChaCha8Rng,
) -> Option<(usize, Growth)> {
    let pool = world.pool;
    let made_inputs = |x: u32| {
        pool.slim[x as usize]
            .inputs
            .iter()
            .filter(|&&r| !pool.initial[r as usize])
            .count()
    };
    let gathers = |sc: usize| -> Vec<u32> {
        world.joinable[sc]
            .iter()
            .copied()
            .filter(|&x| made_inputs(x) >= width)
            .collect()
    };
    let mut targets = gathers(scope);
    let mut sc = scope;
    if targets.is_empty() {
        let others: Vec<usize> = world
            .join_order
            .iter()
            .copied()
            .filter(|&o| world.members[o].len() >= n && !gathers(o).is_empty())
            .collect();
        sc = *others.get(rng.random_range(0..others.len().max(1)))?;
        targets = gathers(sc);
    }
    (0..JOIN_DRAWS)
        .find_map(|_| {
            let x = targets[rng.random_range(0..targets.len())];
            let g = join_cone_once(world, sc, x, n, rng, true)?;
            // A seed that fills the slot is the task: an archive with no room
            // left for the mail that sends it is none.
            (g.nodes.len() < n || !has_pointless(pool, &g)).then_some(g)
        })
        .map(|g| (sc, g))
}

/// Join targets [`join_cone`] draws per attempt.
const JOIN_DRAWS: usize = 6;

/// Join targets [`category_seed`] draws per attempt: few joins keep to their
/// own category, so it draws more than [`join_cone`].
const CATEGORY_DRAWS: usize = 24;

/// Seeds a slot of many nodes in one category: a member of any scope of `n`
/// or more members that joins two things made in the task, with a cone of
/// producers of its own category. One category's applications hand on
/// little in a row (Office: a text drafted in Text Editor and styled in
/// Writer, a table copied from Sheets and pasted into it), so five of its
/// nodes connect through a join; growing from a root never adds one, as the
/// joining node needs both branches there first. `None` when no draw gives
/// such a cone of at most `n` nodes.
fn category_seed(world: &World<'_, '_>, n: usize, rng: &mut ChaCha8Rng) -> Option<(usize, Growth)> {
    let pool = world.pool;
    // Every input it needs made has a maker of its category in the scope.
    let fits = |&(sc, x): &(usize, u32)| {
        let category = pool.slim[x as usize].category;
        pool.slim[x as usize].inputs.iter().all(|&r| {
            pool.initial[r as usize]
                || world
                    .producers_of(sc, x, r)
                    .iter()
                    .any(|&p| pool.slim[p as usize].category == category)
        })
    };
    let targets: Vec<(usize, u32)> = world
        .join_order
        .iter()
        .filter(|&&sc| world.members[sc].len() >= n)
        .flat_map(|&sc| world.joinable[sc].iter().map(move |&x| (sc, x)))
        .filter(fits)
        .collect();
    (0..CATEGORY_DRAWS).find_map(|_| {
        let &(sc, x) = targets.get(rng.random_range(0..targets.len().max(1)))?;
        let category = Some(pool.slim[x as usize].category);
        cone_within(world, sc, x, n, rng, true, category)
            .filter(has_join)
            .map(|g| (sc, g))
    })
}

/// Draws [`World::keep_sound_joins`] spends on each joinable member.
const SOUND_JOIN_PROBES: usize = 8;

/// One draw of [`join_cone`]: the cone of `x` with random producers.
fn join_cone_once(
    world: &World<'_, '_>,
    scope: usize,
    x: u32,
    n: usize,
    rng: &mut ChaCha8Rng,
    track_width: bool,
) -> Option<Growth> {
    cone_once(world, scope, x, n, rng, track_width).filter(has_join)
}

/// `x` and, for each of its inputs not on the desktop, a producer drawn from
/// the scope, recursively, added in an order where every node's inputs are
/// available. `None` when the cone is larger than `n` or a node is refused.
fn cone_once(
    world: &World<'_, '_>,
    scope: usize,
    x: u32,
    n: usize,
    rng: &mut ChaCha8Rng,
    track_width: bool,
) -> Option<Growth> {
    cone_within(world, scope, x, n, rng, track_width, None)
}

/// [`cone_once`] with producers drawn only from `category` when given.
fn cone_within(
    world: &World<'_, '_>,
    scope: usize,
    x: u32,
    n: usize,
    rng: &mut ChaCha8Rng,
    track_width: bool,
    category: Option<u32>,
) -> Option<Growth> {
    let pool = world.pool;
    // The cone: producers for every missing input, depth first.
    let mut cone: Vec<u32> = Vec::new();
    let mut stack = vec![x];
    while let Some(v) = stack.pop() {
        for &res in pool.slim[v as usize].inputs.iter() {
            if pool.initial[res as usize]
                || cone
                    .iter()
                    .any(|&c| pool.slim[c as usize].outputs.binary_search(&res).is_ok())
            {
                continue;
            }
            let ps: Vec<u32> = world
                .producers_of(scope, v, res)
                .into_iter()
                .filter(|&p| p != x && !cone.contains(&p))
                .filter(|&p| category.is_none_or(|c| pool.slim[p as usize].category == c))
                .collect();
            if ps.is_empty() {
                return None;
            }
            let p = ps[rng.random_range(0..ps.len())];
            cone.push(p);
            if cone.len() + 1 > n {
                return None;
            }
            stack.push(p);
        }
    }
    // Add the cone in an order where each node's inputs are there already.
    let mut g = Growth::empty();
    let mut left = cone;
    left.push(x);
    while !left.is_empty() {
        let next = left.iter().enumerate().find_map(|(i, &v)| {
            if v == x && left.len() > 1 {
                return None;
            }
            evaluate(world, scope, &g, v, track_width, Reach::Cone).map(|c| (i, c))
        });
        let (i, c) = next?;
        add(&mut g, pool, &c);
        left.remove(i);
    }
    Some(g)
}

/// Levels of dependents [`fan_potential`] looks down.
const FAN_DEPTH: usize = 3;

/// By instance: an upper bound of the leaves of a task grown down from it,
/// [`FAN_DEPTH`] levels deep: 1 for an instance nobody depends on, else the
/// sum, over the applications of its dependents (unordered siblings are of
/// different applications, see [`same_app_siblings`]), of the largest bound
/// among that application's dependents. Capped at 255.
fn fan_potential(pool: &Pool<'_>) -> Vec<u8> {
    let n = pool.len();
    let mut level = vec![1u32; n];
    for _ in 0..FAN_DEPTH {
        let mut next = vec![1u32; n];
        let mut best: HashMap<u32, u32> = HashMap::new();
        for (x, slot) in next.iter_mut().enumerate() {
            best.clear();
            let app = pool.slim[x].app;
            for &c in pool.dependents(x) {
                let ca = pool.slim[c as usize].app;
                if ca != app {
                    let e = best.entry(ca).or_insert(0);
                    *e = (*e).max(level[c as usize]);
                }
            }
            *slot = best.values().sum::<u32>().max(1);
        }
        level = next;
    }
    level.into_iter().map(|v| v.min(255) as u8).collect()
}

/// By instance: may it be in a task at all (nothing found against it when a
/// later node uses its results: a blank screen capture is never placed), and
/// may it be a task's last node (nor when, left without a successor, it is a
/// loose end: a copy nobody pastes, a PDF compressed for sending and never
/// sent)?
fn can_place_and_end(pool: &Pool<'_>) -> (Vec<bool>, Vec<bool>) {
    (0..pool.len())
        .map(|x| {
            // A loose end a later node ties up (a PDF compressed for the
            // mail that sends it) does not stop a chain going on.
            let placed = !pointless(pool, &[x], &[true])
                .iter()
                .any(|f| f.kind.lasting());
            (placed, placed && pointless(pool, &[x], &[false]).is_empty())
        })
        .unzip()
}

/// For each member of `scope`, the most nodes on a path down from it through
/// members that ends on a node that may end a task (`ok.1`, see
/// [`can_place_and_end`]), capped at [`MAX_NODES`]; 0 when no such path starts
/// there. A step of the path is one the growth accepts after its first node
/// alone ([`evaluate`]: no same-application hand-off, no pointless pair), so
/// the figure is what a chain can reach, not what the resource graph links.
/// A cycle (a recipe added, selected, printed and added again) is followed as
/// far as its first repeat.
fn scope_reach(world: &World<'_, '_>, ok: &(Vec<bool>, Vec<bool>), scope: usize) -> Vec<u8> {
    const UNSEEN: u8 = u8::MAX;
    let pool = world.pool;
    let members = &world.members[scope];
    let mut reach = vec![UNSEEN; members.len()];
    let mut on_path = vec![false; members.len()];
    // Iterative depth-first walk: (member, next dependent to look at, best so far).
    for start in 0..members.len() {
        if reach[start] != UNSEEN {
            continue;
        }
        let mut stack: Vec<(usize, usize, u8)> = vec![(start, 0, 0)];
        on_path[start] = true;
        while let Some(&mut (k, ref mut next, ref mut best)) = stack.last_mut() {
            let x = members[k] as usize;
            if !ok.0[x] {
                reach[k] = 0;
                on_path[k] = false;
                stack.pop();
                continue;
            }
            if *next == 0 {
                *best = u8::from(ok.1[x]);
            }
            let deps = pool.dependents(x);
            if let Some(&c) = deps.get(*next) {
                *next += 1;
                let Ok(j) = members.binary_search(&c) else {
                    continue;
                };
                if on_path[j] {
                    continue;
                }
                let step = fed(world, scope, &Growth::rooted(pool, x as u32), c).is_some();
                if !step {
                    continue;
                }
                if reach[j] == UNSEEN {
                    on_path[j] = true;
                    stack.push((j, 0, 0));
                } else if reach[j] > 0 {
                    *best = (*best).max((reach[j] + 1).min(MAX_NODES as u8));
                }
                continue;
            }
            // Done with k: hand its figure to the member below it on the stack.
            let done = *best;
            reach[k] = done;
            on_path[k] = false;
            stack.pop();
            if let Some(&mut (_, _, ref mut parent_best)) = stack.last_mut() {
                if done > 0 {
                    *parent_best = (*parent_best).max((done + 1).min(MAX_NODES as u8));
                }
            }
        }
    }
    reach
}

/// For every instance of `pool`, the most nodes on a chain ending at it whose
/// every step the composer accepts after its producer alone (the steps
/// [`scope_reach`] follows down, here followed up over the whole pool), capped
/// at [`MAX_NODES`]; 0 for an instance no chain from the desktop reaches. It
/// is how deep a task can be when it reaches the instance: the offline
/// explorer carries on the chains that can make deep tasks rather than those
/// a check cuts short (a comment on one's own PDF, a zip of a print taken
/// back to text).
pub fn sound_depths(pool: &Pool<'_>) -> Vec<u8> {
    let scopes = [Scope::new("whole pool", (0..pool.len()).collect())];
    let world = World::new(pool, &scopes);
    let ok = can_place_and_end(pool).0;
    let preds: Vec<Vec<u32>> = (0..pool.len())
        .map(|c| {
            if !ok[c] {
                return Vec::new();
            }
            pool.dependencies(c)
                .iter()
                .copied()
                .filter(|&x| {
                    ok[x as usize] && fed(&world, 0, &Growth::rooted(pool, x), c as u32).is_some()
                })
                .collect()
        })
        .collect();
    // A chain starts from the desktop's files: an instance that reads what
    // others make is as deep as the accepted steps into it make it, and 0
    // when none is accepted (a note's text exported in the application that
    // made the note). Longest paths by a depth-first walk up; a cycle (a
    // recipe's text copied into a new recipe, exported again) is followed
    // as far as its first repeat.
    const UNSEEN: u8 = u8::MAX;
    let mut depth = vec![UNSEEN; pool.len()];
    let mut on_path = vec![false; pool.len()];
    fn up(
        c: usize,
        pool: &Pool<'_>,
        ok: &[bool],
        preds: &[Vec<u32>],
        depth: &mut [u8],
        on_path: &mut [bool],
    ) -> u8 {
        if depth[c] != UNSEEN {
            return depth[c];
        }
        on_path[c] = true;
        let mut best = u8::from(ok[c] && pool.is_root(c));
        for &x in &preds[c] {
            if on_path[x as usize] {
                continue;
            }
            let d = up(x as usize, pool, ok, preds, depth, on_path);
            if d > 0 {
                best = best.max((d + 1).min(MAX_NODES as u8));
            }
        }
        on_path[c] = false;
        depth[c] = best;
        best
    }
    for c in 0..pool.len() {
        up(c, pool, &ok, &preds, &mut depth, &mut on_path);
    }
    depth
}

/// May `x` start a piece of side work beside `nodes`? Only in an application
/// the task does not use yet and on nothing the task uses or makes: a second
/// to-do beside the first, the original file mailed while another piece edits
/// it, or one file opened in two editors reads as a muddle, not as separate
/// jobs.
fn apart(pool: &Pool<'_>, nodes: &[u32], x: u32) -> bool {
    let sx = &pool.slim[x as usize];
    nodes.iter().all(|&v| {
        let sv = &pool.slim[v as usize];
        sv.app != sx.app
            && sx.inputs.iter().chain(sx.outputs.iter()).all(|r| {
                sv.inputs.binary_search(r).is_err() && sv.outputs.binary_search(r).is_err()
            })
    })
}

/// By topic index: the topic's side work (see [`Side`]).
fn topic_sides(pool: &Pool<'_>) -> Vec<Side> {
    let mut sides: Vec<Side> = vec![Side::default(); LOOSE_FILES + 1];
    for (i, slim) in pool.slim.iter().enumerate() {
        let Some(t) = slim.topics.single() else {
            continue;
        };
        if !pool.is_placeable(i) || !slim.circles.within(pool.circle_of_topic(t)) {
            continue;
        }
        sides[t].members.push(i as u32);
        if pool.is_root(i) {
            sides[t].roots.push(i as u32);
        }
    }
    sides
}

/// Does the graph have a pointless node (see [`crate::graph::pointless`])?
fn has_pointless(pool: &Pool<'_>, g: &Growth) -> bool {
    let nodes: Vec<usize> = g.nodes.iter().map(|&v| v as usize).collect();
    let has_successor: Vec<bool> = (0..nodes.len()).map(|v| g.dag.succs(v) > 0).collect();
    !pointless(pool, &nodes, &has_successor).is_empty()
}

/// Is resource `r` a file or folder (a path kind)?
/// Would `x` and `v`, left unordered, be two subtasks of one application on one
/// file (five variants of a screenshot made in the image editor, one after the
/// other)? A person opens the file once and does that in one sitting; a fan-out
/// of a file spreads over applications (edited, filed, put in a report, mailed).
fn same_app_siblings(pool: &Pool<'_>, x: u32, v: u32) -> bool {
    let (sx, sv) = (&pool.slim[x as usize], &pool.slim[v as usize]);
    sx.app == sv.app
        && sx
            .inputs
            .iter()
            .any(|&r| is_file(pool, r) && sv.inputs.binary_search(&r).is_ok())
}

fn is_file(pool: &Pool<'_>, r: u32) -> bool {
    let kind = &pool.resource(r as usize).kind;
    pool.catalog().kinds.get(kind).is_some_and(|k| k.is_path())
}

/// Does the graph have a node that needs two or more others?
fn has_join(g: &Growth) -> bool {
    (0..g.nodes.len()).any(|v| g.dag.preds(v).count_ones() >= 2)
}

fn measure_bits(r: &Ranges, g: &Growth, _complete: bool) -> u8 {
    // The node count was not reached, so instruction failed; report the others as
    // measured so far (upper bounds are meaningful, lower bounds mostly not).
    let values = [g.edges, g.nodes.len(), g.cats.len(), g.depth, g.dag.width()];
    let mut reached = 0u8;
    for (i, &v) in values.iter().enumerate() {
        if i != INS && r.contains(i, v) {
            reached |= 1 << i;
        }
    }
    reached
}

/// Where [`evaluate`] may take a candidate from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// A member of the scope joined to the graph by an edge.
    Connected,
    /// A member of the scope, joined or not yet (a join's cone is added
    /// producer by producer).
    Cone,
    /// A member of the scope or of its side work (see [`Side`]), joined or not.
    Side,
}

/// Checks candidate `x` and measures the graph with it added.
fn evaluate(
    world: &World<'_, '_>,
    scope: usize,
    g: &Growth,
    x: u32,
    track_width: bool,
    reach: Reach,
) -> Option<Candidate> {
    let pool = world.pool;
    let in_reach = world.in_scope(scope, x) || (reach == Reach::Side && world.in_side(scope, x));
    if !pool.is_placeable(x as usize) || !in_reach {
        return None;
    }
    let sx = &pool.slim[x as usize];
    // Every input on the desktop or produced by a chosen node.
    for &res in sx.inputs.iter() {
        if !pool.initial[res as usize]
            && !g
                .nodes
                .iter()
                .any(|&v| pool.slim[v as usize].outputs.binary_search(&res).is_ok())
        {
            return None;
        }
    }
    let mut preds = 0u32;
    let mut succs = 0u32;
    for (v, &inst) in g.nodes.iter().enumerate() {
        if pool.depends_on(x as usize, inst as usize) {
            preds |= 1 << v;
        }
        if pool.depends_on(inst as usize, x as usize) {
            succs |= 1 << v;
        }
    }
    if preds | succs == 0 && reach == Reach::Connected {
        return None;
    }
    // A file handed between two nodes of one application that each change it and
    // save another of its kind is work a person does in one sitting (open once,
    // change, save): not a hand-off between subtasks.
    // Nor is making the same change twice to successive copies of a file, nor
    // saving a file in another format only to open it again in the same
    // application (open the CSV, save it as a workbook, open the workbook,
    // export a PDF: a person exports the PDF from the CSV).
    let same_app_file = |a: u32, b: u32| {
        let (sa, sb) = (&pool.slim[a as usize], &pool.slim[b as usize]);
        let kind = |r: u32| pool.resource(r as usize).kind.as_str();
        let converts = |r: u32| {
            sa.changes_nothing
                && sa
                    .inputs
                    .iter()
                    .any(|&i| is_file(pool, i) && kind(i) != kind(r))
        };
        sa.app == sb.app
            && sa.outputs.iter().any(|&r| {
                sb.inputs.binary_search(&r).is_ok()
                    && is_file(pool, r)
                    && (sa.changes & sb.changes != 0
                        || converts(r)
                        || sb.outputs.iter().any(|&o| kind(o) == kind(r)))
            })
    };
    // Nor is copying in one application and pasting in the same one (copy the
    // cells of a workbook, open it again, paste them back).
    let same_app_clip = |a: u32, b: u32| {
        let (sa, sb) = (&pool.slim[a as usize], &pool.slim[b as usize]);
        sa.app == sb.app
            && sa
                .outputs
                .iter()
                .any(|&r| sb.inputs.binary_search(&r).is_ok() && pool.is_held(r))
    };
    if bits(preds).any(|v| same_app_file(g.nodes[v], x) || same_app_clip(g.nodes[v], x))
        || bits(succs).any(|v| same_app_file(x, g.nodes[v]) || same_app_clip(x, g.nodes[v]))
    {
        return None;
    }
    let anc_p = bits(preds).fold(0, |m, p| m | g.anc[p]);
    if anc_p & succs != 0 {
        return None; // a cycle
    }
    if shuffles_with(pool, &g.nodes, x) {
        return None;
    }
    // Nothing that no later node can mend (a second zip of one file, a copy
    // made to lengthen the task); loose ends are counted for the penalty.
    let loose = {
        let mut nodes: Vec<usize> = g.nodes.iter().map(|&v| v as usize).collect();
        nodes.push(x as usize);
        let mut has_successor: Vec<bool> = (0..g.nodes.len())
            .map(|v| g.dag.succs(v) > 0 || preds & (1 << v) != 0)
            .collect();
        has_successor.push(succs != 0);
        let found = pointless(pool, &nodes, &has_successor);
        if found.iter().any(|f| f.kind.lasting()) {
            return None;
        }
        found.len()
    };
    // No clash with a node it would stay unordered with.
    let desc_s = bits(succs).fold(0, |m, s| m | g.desc[s]);
    let related = anc_p | desc_s;
    for (v, &inst) in g.nodes.iter().enumerate() {
        if related & (1 << v) == 0
            && (clash_pair(pool, x, inst) || same_app_siblings(pool, x, inst))
        {
            return None;
        }
        // Two copies in one task (the later replaces the earlier), or two pastes.
        if shares_holder(pool, x as usize, inst as usize) {
            return None;
        }
    }
    let down = bits(preds).map(|p| g.down[p]).max().unwrap_or(0) as usize;
    let up = bits(succs).map(|s| g.up[s]).max().unwrap_or(0) as usize;
    let depth = g.depth.max(down + 1 + up);
    let edges = g.edges + (preds.count_ones() + succs.count_ones()) as usize;
    let cats = g.cats.len() + usize::from(!g.cats.contains(&sx.category));
    let width = if track_width {
        let k = g.nodes.len();
        let v = k;
        let desc_v = desc_s | (1 << v);
        let anc_v = anc_p | (1 << v);
        let mut strict = [0u32; MAX_NODES];
        for (u, slot) in strict.iter_mut().enumerate().take(k) {
            let mut d = g.desc[u];
            if anc_v & (1 << u) != 0 {
                d |= desc_v;
            }
            *slot = d & !(1 << u);
        }
        strict[v] = desc_s;
        width_of_closure(&strict[..k + 1])
    } else {
        0
    };
    Some(Candidate {
        inst: x,
        preds,
        succs,
        edges,
        depth,
        width,
        cats,
        loose,
    })
}

/// Extra penalty of adding instance `x` to `nodes` for diversity: large when its
/// subtask would pass the cap, else up to 2 for a much used subtask and 1 for an
/// application already used.
fn usage_penalty(pool: &Pool<'_>, usage: &Usage, cap: u32, nodes: &[u32], x: u32) -> usize {
    if !usage.caps() {
        return 0;
    }
    let s = pool.instance(x as usize).subtask;
    let here = nodes
        .iter()
        .filter(|&&v| pool.instance(v as usize).subtask == s)
        .count() as u32;
    let uses = usage.subtask[s] + here;
    if uses >= cap {
        return 400;
    }
    if !usage.on {
        return 0;
    }
    (2 * uses / cap) as usize + usize::from(usage.app[pool.slim[x as usize].app as usize] > 0)
}

/// Lower is better. Large terms for targets that can no longer be met; small terms
/// pulling lower-bounded measures up and keeping upper-bounded ones low.
fn penalty(r: &Ranges, c: &Candidate, k: usize, remaining: usize) -> usize {
    let mut p = 0;
    // Edges, depth and categories never decrease as nodes are added.
    if c.edges > r.hi[DEP] {
        p += DEAD;
    }
    if c.depth > r.hi[HIE] {
        p += DEAD;
    }
    if c.cats > r.hi[KNO] {
        p += DEAD;
    }
    // Each added node adds at most one level of depth, one category, one antichain
    // member, and at most (nodes so far) edges.
    let max_more_edges = (k..k + remaining).sum::<usize>();
    if r.lo[DEP] > c.edges + max_more_edges {
        p += DEAD;
    }
    if r.lo[HIE] > c.depth + remaining {
        p += DEAD;
    }
    if r.lo[KNO] > c.cats + remaining {
        p += DEAD;
    }
    if r.lo[BRA] != 0 && r.lo[BRA] > c.width + remaining {
        p += DEAD / 2;
    }
    if c.width > r.hi[BRA] {
        // Width can shrink when a later node links two branches, but rarely does.
        p += DEAD / 4 * (c.width - r.hi[BRA]);
    }
    // Loose ends must be tied up by the nodes still to come.
    if c.loose > remaining {
        p += DEAD / 2;
    } else {
        p += c.loose * 4 / (remaining + 1);
    }
    // Pull towards the lower bounds, spread over the steps left.
    let pull = |lo: usize, v: usize| lo.saturating_sub(v) * 8 / (remaining + 1);
    p += pull(r.lo[HIE], c.depth) + pull(r.lo[BRA], c.width) + pull(r.lo[KNO], c.cats);
    p += pull(r.lo[DEP], c.edges) / 2;
    // Keep headroom under upper bounds.
    if r.hi[DEP] != usize::MAX {
        p += c.edges.saturating_sub(r.lo[DEP]);
    }
    if r.hi[HIE] != usize::MAX && c.depth >= r.hi[HIE] && remaining > 0 {
        p += 2;
    }
    if r.hi[KNO] != usize::MAX && c.cats >= r.hi[KNO] && remaining > 0 {
        p += 1;
    }
    if r.hi[BRA] != usize::MAX && c.width >= r.hi[BRA] && remaining > 0 {
        p += 2;
    }
    p
}

fn add(g: &mut Growth, pool: &Pool<'_>, c: &Candidate) {
    let v = g.dag.push_node(c.preds, c.succs);
    g.nodes.push(c.inst);
    g.edges = c.edges;
    g.depth = c.depth;
    let cat = pool.slim[c.inst as usize].category;
    if !g.cats.contains(&cat) {
        g.cats.push(cat);
    }
    let anc_v = bits(c.preds).fold(1u32 << v, |m, p| m | g.anc[p]);
    let desc_v = bits(c.succs).fold(1u32 << v, |m, s| m | g.desc[s]);
    for u in bits(anc_v) {
        g.desc[u] |= desc_v;
    }
    for u in bits(desc_v) {
        g.anc[u] |= anc_v;
    }
    // Longest paths: recompute along a topological order (k <= 20).
    let order = g.dag.topological_order().unwrap_or_default();
    for &u in &order {
        g.down[u] = 1 + bits(g.dag.preds(u)).map(|p| g.down[p]).max().unwrap_or(0);
    }
    for &u in order.iter().rev() {
        g.up[u] = 1 + bits(g.dag.succs(u)).map(|s| g.up[s]).max().unwrap_or(0);
    }
}

/// Relabels the grown graph in its canonical topological order (at each step the
/// available node with the smallest pool index) and computes orders and scores.
fn finish(
    pool: &Pool<'_>,
    g: &Growth,
    scope: usize,
    slot: usize,
    max_orders: usize,
    values: [usize; 5],
) -> CompactTask {
    let k = g.nodes.len();
    let mut done = 0u32;
    let mut order: Vec<usize> = Vec::with_capacity(k);
    while order.len() < k {
        let next = (0..k)
            .filter(|&v| done & (1 << v) == 0 && g.dag.preds(v) & !done == 0)
            .min_by_key(|&v| g.nodes[v]);
        let Some(v) = next else { break };
        done |= 1 << v;
        order.push(v);
    }
    let mut local = [0usize; MAX_NODES];
    for (pos, &v) in order.iter().enumerate() {
        local[v] = pos;
    }
    let mut dag = SmallDag::with_nodes(k);
    for (a, b) in g.dag.edges() {
        dag.add_edge_unchecked(local[a], local[b]);
    }
    let instances: Vec<u32> = order.iter().map(|&v| g.nodes[v]).collect();
    let apps: Vec<u32> = instances
        .iter()
        .map(|&i| pool.slim[i as usize].app)
        .collect();
    let [e, n, c, d, w] = values;
    let topo_count = dag.topo_count();
    CompactTask {
        slot,
        scope,
        complexity: Complexity::from_measures(e, n, c, d, w),
        topo_count,
        orders: dag.orders_spread(max_orders, topo_count),
        cs_max: dag.cs_max(&apps),
        instances,
        dag,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::spec::Profile;
    use std::collections::BTreeSet;

    #[test]
    fn an_application_request_reaches_an_application_that_reads_made_files() {
        use crate::graph::pool::tests::{subtask, tiny_catalog};
        let cat = tiny_catalog();
        // The viewer only reads a document the writer makes first: it never
        // starts a task, so only its cone (the writer) brings it in.
        let subs = vec![
            subtask(
                "write",
                "Writer",
                &[],
                &["doc"],
                &[&[("doc", "/h/notes.doc")]],
            ),
            subtask(
                "view",
                "Viewer",
                &["doc"],
                &["img"],
                &[&[("doc", "/h/notes.doc"), ("img", "/h/shot.png")]],
            ),
            subtask(
                "post",
                "Poster",
                &["img"],
                &[],
                &[&[("img", "/h/shot.png")]],
            ),
            subtask("draw", "Paint", &[], &["img"], &[&[("img", "/h/pic.png")]]),
            subtask("mail", "Mailer", &["img"], &[], &[&[("img", "/h/pic.png")]]),
        ];
        let pool = Pool::new(&cat, &subs, &BTreeSet::new()).unwrap();
        let scopes = vec![Scope::new("all", (0..pool.len()).collect())];
        let spec = ComposeSpec {
            count: 2,
            profile: Profile::Free,
            max_nodes: 3,
            seed: 9,
            application: Some("Viewer".into()),
            ..ComposeSpec::default()
        };
        let out = compose(&pool, &scopes, &spec).unwrap();
        assert!(!out.tasks.is_empty(), "{:?}", out.summary.shortfall);
        for t in &out.tasks {
            let apps: Vec<&str> = t.nodes.values().map(|n| n.application.as_str()).collect();
            assert!(apps.contains(&"Viewer"), "{apps:?}");
            assert!(
                apps.contains(&"Writer"),
                "the viewer's document is made first: {apps:?}"
            );
        }
        let unknown = ComposeSpec {
            application: Some("viewer".into()),
            ..spec
        };
        match compose(&pool, &scopes, &unknown) {
            Err(ComposeError::UnknownApplication { name, known }) => {
                assert_eq!(name, "viewer");
                assert!(known.iter().any(|a| a == "Viewer"), "{known:?}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_join_slot_takes_three_nodes_and_a_sound_join() {
        use crate::graph::pool::tests::{subtask, tiny_catalog};
        let cat = tiny_catalog();
        // A picture and a document, each made from the desktop, put together
        // (the join), and a pair that is easier to find (a text mailed).
        let subs = vec![
            subtask("draw", "Paint", &[], &["img"], &[&[("img", "/h/pic.png")]]),
            subtask(
                "write",
                "Writer",
                &[],
                &["doc"],
                &[&[("doc", "/h/text.doc")]],
            ),
            subtask(
                "insert",
                "Binder",
                &["img", "doc"],
                &["doc:book"],
                &[&[
                    ("img", "/h/pic.png"),
                    ("doc", "/h/text.doc"),
                    ("book", "/h/book.doc"),
                ]],
            ),
            subtask(
                "sketch",
                "Editor",
                &[],
                &["img"],
                &[&[("img", "/h/sketch.png")]],
            ),
            subtask(
                "mail",
                "Mailer",
                &["img"],
                &[],
                &[&[("img", "/h/sketch.png")]],
            ),
        ];
        let pool = Pool::new(&cat, &subs, &BTreeSet::new()).unwrap();
        let scopes = vec![Scope::new("all", (0..pool.len()).collect())];
        let world = World::new(&pool, &scopes);
        assert_eq!(
            world.joinable[0].len(),
            1,
            "the binder joins two made files"
        );
        let spec = ComposeSpec {
            count: 2,
            profile: Profile::Free,
            max_nodes: 3,
            seed: 5,
            ..ComposeSpec::default()
        };
        let out = compose(&pool, &scopes, &spec).unwrap();
        // Slot 1 is a join slot: without looking for three nodes it would
        // take the pair it finds first.
        let joined = out.tasks.iter().any(|t| {
            let mut indegree: BTreeMap<&str, usize> = BTreeMap::new();
            for to in t.dag.edges.values().flatten() {
                *indegree.entry(to.as_str()).or_default() += 1;
            }
            indegree.values().any(|&d| d >= 2)
        });
        assert!(joined, "{:?}", out.tasks);
    }

    #[test]
    fn a_file_handed_on_twice_gives_four_edges_on_four_nodes() {
        use crate::graph::pool::tests::{subtask, tiny_catalog};
        use crate::model::{Dimension, Level};
        let cat = tiny_catalog();
        // A picture drawn, a booklet made with it, and a letter written; all
        // three packed together. The picture is handed on twice (into the
        // booklet and into the pack) and the letter's writer joins only at
        // the pack, so no growth from a root reaches it one node at a time.
        let subs = vec![
            subtask("draw", "Paint", &[], &["img"], &[&[("img", "/h/pic.png")]]),
            subtask(
                "bind",
                "Binder",
                &["img"],
                &["doc"],
                &[&[("img", "/h/pic.png"), ("doc", "/h/book.doc")]],
            ),
            subtask(
                "write",
                "Writer",
                &[],
                &["doc"],
                &[&[("doc", "/h/letter.doc")]],
            ),
            subtask(
                "pack",
                "Packer",
                &["img", "doc", "doc:other"],
                &[],
                &[&[
                    ("img", "/h/pic.png"),
                    ("doc", "/h/book.doc"),
                    ("other", "/h/letter.doc"),
                ]],
            ),
        ];
        let pool = Pool::new(&cat, &subs, &BTreeSet::new()).unwrap();
        let scopes = vec![Scope::new("all", (0..pool.len()).collect())];
        let spec = ComposeSpec {
            count: 1,
            profile: Profile::Free,
            targets: BTreeMap::from([
                (Dimension::Dependency, Target::Level(Level::Hard)),
                (Dimension::Instruction, Target::Level(Level::Medium)),
            ]),
            max_nodes: 4,
            seed: 3,
            ..ComposeSpec::default()
        };
        let out = compose(&pool, &scopes, &spec).unwrap();
        let [t] = out.tasks.as_slice() else {
            panic!("{:?}", out.summary.shortfall);
        };
        let edges: usize = t.dag.edges.values().map(Vec::len).sum();
        assert_eq!((t.nodes.len(), edges), (4, 4), "{:?}", t.dag.edges);
    }

    #[test]
    fn sound_depths_follow_only_the_steps_a_task_can_hold() {
        use crate::graph::pool::tests::{subtask, tiny_catalog};
        let mut cat = tiny_catalog();
        cat.kinds.get_mut("doc").unwrap().file_kinds = vec!["doc".into()];
        cat.kinds.get_mut("img").unwrap().file_kinds = vec!["png".into()];
        // A picture drawn, put into a booklet, the booklet posted: three deep.
        // The booklet's second edit in the application that made it is no
        // hand-off (one sitting), so what follows it starts no deeper.
        let subs = vec![
            subtask("draw", "Paint", &[], &["img"], &[&[("img", "/h/pic.png")]]),
            subtask(
                "bind",
                "Binder",
                &["img"],
                &["doc"],
                &[&[("img", "/h/pic.png"), ("doc", "/h/book.doc")]],
            ),
            subtask(
                "post",
                "Poster",
                &["doc"],
                &[],
                &[&[("doc", "/h/book.doc")]],
            ),
            subtask(
                "rebind",
                "Binder",
                &["doc"],
                &["doc:out"],
                &[&[("doc", "/h/book.doc"), ("out", "/h/book2.doc")]],
            ),
        ];
        let pool = Pool::new(&cat, &subs, &BTreeSet::new()).unwrap();
        let depths = sound_depths(&pool);
        let at = |id: &str| {
            let i = pool.find(&crate::model::SubtaskId(id.into()), 0).unwrap();
            depths[i]
        };
        assert_eq!(
            (at("draw"), at("bind"), at("post")),
            (1, 2, 3),
            "{depths:?}"
        );
        assert_eq!(
            at("rebind"),
            0,
            "a second sitting in the Binder: {depths:?}"
        );
    }

    #[test]
    fn draft_joins_steps_in_order() {
        let steps = vec![
            "Open 'a.txt' in Writer.".to_string(),
            "Copy the table".to_string(),
            "PDF Tool: merge".to_string(),
        ];
        assert_eq!(
            draft_instruction(&steps),
            "Open 'a.txt' in Writer. Then copy the table. Then PDF Tool: merge."
        );
        assert_eq!(draft_instruction(&[]), "");
    }

    /// Asked for side work, a slot asking for more nodes than edges allow takes
    /// side work of its scope's topic (independent roots of the same topic), never another
    /// topic's, and adds no edge for it.
    #[test]
    fn side_work_keeps_to_the_scopes_topic() {
        use crate::graph::pool::tests::{subtask, tiny_catalog};
        let mut cat = tiny_catalog();
        let topic = |name: &str| crate::topics::Topic {
            name: name.into(),
            purpose: format!("for the {name}"),
            words: vec![name.into()],
            circle: None,
            notes: Vec::new(),
            figures: Vec::new(),
        };
        cat.topics = crate::topics::Topics::new(vec![topic("trip"), topic("code")]).unwrap();
        let root =
            |id: &str, app: &str, doc: &str| subtask(id, app, &[], &["doc"], &[&[("doc", doc)]]);
        let subs = vec![
            root("notes", "Writer", "/h/trip_notes.doc"),
            subtask(
                "picture",
                "Paint",
                &["doc"],
                &["img"],
                &[&[("doc", "/h/trip_notes.doc"), ("img", "/h/trip_pic.png")]],
            ),
            // The scope must hold as many members as the task has nodes.
            subtask(
                "frame",
                "Frames",
                &["img"],
                &["doc"],
                &[&[("img", "/h/trip_pic.png"), ("doc", "/h/trip_framed.doc")]],
            ),
            subtask(
                "file",
                "Cabinet",
                &["doc"],
                &[],
                &[&[("doc", "/h/trip_notes.doc")]],
            ),
            root("plan", "Planner", "/h/trip_plan.doc"),
            root("budget", "Ledger", "/h/trip_budget.doc"),
            root("packing", "Lists", "/h/trip_packing.doc"),
            root("script", "Editor", "/h/code_script.doc"),
            root("readme", "Pad", "/h/code_readme.doc"),
        ];
        let pool = Pool::new(&cat, &subs, &BTreeSet::new()).unwrap();
        let all = Scope::new("all", (0..pool.len()).collect());
        let scopes = pool.topic_parts(&all);
        let spec = ComposeSpec {
            count: 2,
            profile: Profile::Free,
            targets: BTreeMap::from([
                (Dimension::Instruction, Target::Range { min: 4, max: 4 }),
                (Dimension::Dependency, Target::Range { min: 1, max: 1 }),
            ]),
            seed: 3,
            side_work: true,
            ..ComposeSpec::default()
        };
        // Not asked for: four nodes with one edge are refused up front.
        let without = ComposeSpec {
            side_work: false,
            ..spec.clone()
        };
        assert!(matches!(
            compose(&pool, &scopes, &without),
            Err(ComposeError::Infeasible { .. })
        ));
        let out = compose(&pool, &scopes, &spec).unwrap();
        assert!(!out.tasks.is_empty(), "{:?}", out.summary.shortfall);
        for t in &out.tasks {
            let subtasks: Vec<&str> = t.nodes.values().map(|n| n.subtask_id.0.as_str()).collect();
            assert_eq!(subtasks.len(), 4);
            assert!(
                !subtasks.contains(&"script") && !subtasks.contains(&"readme"),
                "another topic's work: {subtasks:?}"
            );
            let edges: usize = t.dag.edges.values().map(Vec::len).sum();
            assert_eq!(edges, 1, "{t:?}");
        }
        // A slot free of targets never reaches for side work.
        let free = ComposeSpec {
            count: 3,
            profile: Profile::Free,
            targets: BTreeMap::from([(Dimension::Instruction, Target::Range { min: 3, max: 3 })]),
            ..spec
        };
        let out = compose(&pool, &scopes, &free).unwrap();
        assert!(!out.tasks.is_empty());
        for t in &out.tasks {
            let edges: usize = t.dag.edges.values().map(Vec::len).sum();
            assert_eq!(edges, 2, "connected: {t:?}");
        }
    }

    #[test]
    fn a_top_up_caps_subtasks_by_the_nodes_there_are() {
        let syn = crate::graph::synthetic::synthetic_pool(60, 8, 3).unwrap();
        let pool = Pool::new(&syn.catalog, &syn.subtasks, &syn.initial).unwrap();
        let spec = ComposeSpec {
            count: 3,
            ..ComposeSpec::default()
        };
        // 96 stored nodes, 4 of them one subtask's (4.2 %).
        let prior: Vec<usize> = std::iter::repeat_n(0, 4)
            .chain((0..92).map(|k| 1 + k % 50))
            .collect();
        let mut usage = Usage::new(&pool, &spec);
        usage.seed(&Prior::of_nodes(prior));
        // One more two-node task makes 98 nodes: a fifth use would be 5.1 %,
        // however many nodes the request hoped to add (its floor, 102).
        assert_eq!(usage.cap(98, 0), 4);
        assert_eq!(usage.cap(100, 0), 5);
        // A first request still counts on the nodes it asks for.
        let fresh = Usage::new(&pool, &ComposeSpec { count: 40, ..spec });
        assert_eq!(fresh.cap(10, 0), 4);
    }

    #[test]
    fn tasks_of_one_shape_are_counted_as_near_repeats() {
        use crate::graph::pool::tests::{subtask, tiny_catalog};
        let cat = tiny_catalog();
        // A picture drawn, a booklet made with it, a letter written, all
        // packed: twice, with other files.
        let subs = vec![
            subtask(
                "draw",
                "Paint",
                &[],
                &["img"],
                &[&[("img", "/h/a.png")], &[("img", "/h/b.png")]],
            ),
            subtask(
                "bind",
                "Binder",
                &["img"],
                &["doc"],
                &[
                    &[("img", "/h/a.png"), ("doc", "/h/a.doc")],
                    &[("img", "/h/b.png"), ("doc", "/h/b.doc")],
                ],
            ),
            subtask(
                "write",
                "Writer",
                &[],
                &["doc"],
                &[&[("doc", "/h/x.doc")], &[("doc", "/h/y.doc")]],
            ),
            subtask(
                "pack",
                "Packer",
                &["img", "doc", "doc:other"],
                &[],
                &[
                    &[
                        ("img", "/h/a.png"),
                        ("doc", "/h/a.doc"),
                        ("other", "/h/x.doc"),
                    ],
                    &[
                        ("img", "/h/b.png"),
                        ("doc", "/h/b.doc"),
                        ("other", "/h/y.doc"),
                    ],
                ],
            ),
        ];
        let pool = Pool::new(&cat, &subs, &BTreeSet::new()).unwrap();
        let task = |k: usize| -> Vec<u32> {
            subs.iter()
                .map(|s| pool.find(&s.id, k).unwrap() as u32)
                .collect()
        };
        let (first, second) = (task(0), task(1));
        assert!(!shape_key(&pool, &first).is_empty());
        assert_eq!(shape_key(&pool, &first), shape_key(&pool, &second));
        assert!(
            shape_key(&pool, &first[..1]).is_empty(),
            "one node: no shape"
        );
        let spec = ComposeSpec {
            count: 2,
            ..ComposeSpec::default()
        };
        let mut usage = Usage::new(&pool, &spec);
        assert!(!usage.overuses(&pool, &second, 0));
        usage.add(&pool, &first);
        assert!(
            usage.overuses(&pool, &second, 0),
            "the same work with other files"
        );
        assert!(
            !usage.overuses(&pool, &second, START_RELAX_AFTER),
            "relaxed late"
        );
        usage.add(&pool, &second);
        assert!(usage.overuses(&pool, &second, 0));
        assert!(
            !usage.overuses(&pool, &second, SHAPE_FORGET_AFTER),
            "a slot that cannot fill otherwise repeats the shape"
        );
    }

    #[test]
    fn a_top_up_does_not_start_from_the_files_a_stored_task_started_from() {
        use crate::graph::pool::tests::{subtask, tiny_catalog};
        use crate::resources::Resource;
        let mut cat = tiny_catalog();
        cat.kinds.get_mut("doc").unwrap().file_kinds = vec!["doc".into()];
        // Two edits of the notes on the desktop.
        let subs = vec![
            subtask(
                "bold",
                "Writer",
                &["doc"],
                &["img"],
                &[&[("doc", "/h/notes.doc"), ("img", "/h/bold.png")]],
            ),
            subtask(
                "italic",
                "Writer",
                &["doc"],
                &["img"],
                &[&[("doc", "/h/notes.doc"), ("img", "/h/italic.png")]],
            ),
        ];
        let initial: BTreeSet<Resource> =
            [Resource::new("doc", Some("/h/notes.doc".into()))].into();
        let pool = Pool::new(&cat, &subs, &initial).unwrap();
        let i = pool.find(&subs[1].id, 0).unwrap() as u32;
        assert!(!start_key(&pool, &[i]).is_empty());
        let spec = ComposeSpec {
            count: 1,
            ..ComposeSpec::default()
        };
        let mut usage = Usage::new(&pool, &spec);
        assert!(!usage.overuses(&pool, &[i], 0));
        // A stored task (of some other subtask) started from the same files:
        // another edit of them reads as the same task.
        let bold = pool.find(&subs[0].id, 0).unwrap() as u32;
        usage.seed(&Prior {
            nodes: vec![pool.instance(bold as usize).subtask],
            starts: vec![start_key(&pool, &[bold])],
            shapes: Vec::new(),
        });
        assert!(usage.overuses(&pool, &[i], 0));
        assert!(usage.overuses(&pool, &[i], START_RELAX_AFTER - 1));
        // A slot that keeps failing lets one more in, late.
        assert!(!usage.overuses(&pool, &[i], START_RELAX_AFTER));
    }
}
