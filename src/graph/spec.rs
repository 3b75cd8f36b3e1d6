//! What a composition asks for: per-dimension targets, profiles, capability presets,
//! and the structural feasibility rules that refuse impossible requests up front.
//!
//! Feasibility (for a connected DAG with `n` nodes, `e` edges, depth `d`, width `w`
//! and `c` distinct categories):
//! - `d + w - 1 <= n`: a longest path and a largest antichain share at most one node;
//! - `n <= d * w`: the nodes split into `d` antichains (Mirsky), each at most `w`;
//! - `n - 1 <= e`: the graph is connected; a request with side work (see
//!   `graph::compose`) may have independent pieces, and needs only the
//!   `d - 1` edges of its longest path (OmniBench's subtask identification:
//!   five or more subtasks, at most one dependency);
//! - `e <= T(n, d)`, the edges of the complete balanced `d`-partite graph: edges only
//!   join different antichains of that split (for `d = n` this is `n(n-1)/2`);
//! - `1 <= c <= n`.
//!
//! These are necessary conditions. A request that passes them may still be out of the
//! pool's reach; the composer then reports a shortfall instead.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::graph::dag::MAX_NODES;
use crate::model::{Dimension, Level};

/// Default cap on the orders listed per task (`--max-orders`). Small: the exact
/// count is always stored (`topo_count`), the listed orders are spread over all of
/// them (see [`crate::graph::dag::SmallDag::orders_spread`]), and an export that
/// wants more lists them again from the graph. At 1000, tasks.jsonl held about
/// 27 KB per task, 80 % of it orders.
pub const DEFAULT_MAX_ORDERS: usize = 8;
/// Default largest task (nodes).
pub const DEFAULT_MAX_NODES: usize = 10;
/// Default smallest task (nodes): a task composes at least two subtasks.
pub const DEFAULT_MIN_NODES: usize = 2;

/// The level distribution of OmniBench figure 3, in percent
/// (easy, medium, hard), indexed like [`Dimension::ALL`].
pub const OMNIBENCH_LEVELS: [[f64; 3]; 5] = [
    [31.8, 32.2, 36.0], // dependency
    [21.0, 41.0, 38.0], // instruction
    [31.4, 52.4, 16.3], // knowledge
    [31.9, 47.3, 20.8], // hierarchy
    [18.5, 46.7, 34.8], // branch
];

/// The target of one dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// No constraint (the profile may still sample a level).
    #[default]
    Any,
    /// One of table 2's levels.
    Level(Level),
    /// An inclusive numeric range of the measure.
    Range { min: usize, max: usize },
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Any => f.write_str("any"),
            Target::Level(l) => write!(f, "{l}"),
            Target::Range { min, max } if *max == usize::MAX => write!(f, "{min}.."),
            Target::Range { min, max } => write!(f, "{min}..{max}"),
        }
    }
}

impl std::str::FromStr for Target {
    type Err = String;
    /// `any`, `easy`, `medium`, `hard`, `N`, `A..B`, `A..` or `..B` (`-` may stand
    /// for `..`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s == "any" {
            return Ok(Target::Any);
        }
        if let Ok(level) = s.parse::<Level>() {
            return Ok(Target::Level(level));
        }
        let num = |t: &str, default: usize| -> Result<usize, String> {
            if t.is_empty() {
                Ok(default)
            } else {
                t.parse::<usize>()
                    .map_err(|_| format!("'{s}' is not a level (easy, medium, hard, any) or a range such as 3, 2..5, 5.."))
            }
        };
        let (a, b) = match s.split_once("..").or_else(|| s.split_once('-')) {
            Some((a, b)) => (num(a, 0)?, num(b.trim_start_matches('='), usize::MAX)?),
            None => {
                let v = num(s, 0)?;
                (v, v)
            }
        };
        if a > b {
            return Err(format!("range '{s}' is empty"));
        }
        Ok(Target::Range { min: a, max: b })
    }
}

/// How levels are chosen for dimensions without an explicit target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// Each task's levels drawn from OmniBench figure 3, combinations that no graph
    /// can have redrawn (i.e. the figure's distribution conditioned on feasibility).
    #[default]
    Omnibench,
    /// Each level equally likely, infeasible combinations redrawn.
    Uniform,
    /// No sampled levels: dimensions without a target are unconstrained.
    Free,
}

impl Profile {
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Omnibench => "omnibench",
            Profile::Uniform => "uniform",
            Profile::Free => "free",
        }
    }

    /// Level probabilities per dimension, `None` for [`Profile::Free`].
    pub fn distribution(self) -> Option<[[f64; 3]; 5]> {
        match self {
            Profile::Omnibench => Some(OMNIBENCH_LEVELS),
            Profile::Uniform => Some([[1.0; 3]; 5]),
            Profile::Free => None,
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Profile {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "omnibench" => Ok(Profile::Omnibench),
            "uniform" => Ok(Profile::Uniform),
            "free" => Ok(Profile::Free),
            other => Err(format!(
                "unknown profile '{other}' (expected omnibench, uniform or free)"
            )),
        }
    }
}

/// A composition request. Serialized into every task's `composition.spec`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ComposeSpec {
    /// How many tasks to make.
    pub count: usize,
    pub profile: Profile,
    /// Explicit targets; they override the profile for their dimension.
    pub targets: BTreeMap<Dimension, Target>,
    /// A capability preset from `capabilities.toml`: its constraints act as targets.
    pub capability: Option<String>,
    /// Cap on `successful_topo` (`topo_count` stays exact).
    pub max_orders: usize,
    /// Smallest and largest task, in nodes (`max_nodes <= 20`).
    pub min_nodes: usize,
    pub max_nodes: usize,
    pub seed: u64,
    /// Dataset version, recorded in each task's `composition`.
    pub version: u32,
    /// Total attempt budget; 0 picks `max(8000, 20 * count)`.
    pub max_attempts: usize,
    /// May a slot that asks for width, five or more nodes or fewer edges than
    /// nodes add side work: independent pieces of its topic (see
    /// `graph::compose`)? Off unless asked for: fresh readers rejected every
    /// such task they saw as a list of unrelated chores. Not serialized when
    /// off, so earlier specs keep their hash.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub side_work: bool,
    /// Every task starts with a subtask of this application (its name as the
    /// pool spells it): how a dataset reaches an application the rest of the
    /// composition left out. Not serialized when unset, so earlier specs keep
    /// their hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub application: Option<String>,
}

impl Default for ComposeSpec {
    fn default() -> Self {
        ComposeSpec {
            count: 100,
            profile: Profile::Omnibench,
            targets: BTreeMap::new(),
            capability: None,
            max_orders: DEFAULT_MAX_ORDERS,
            min_nodes: DEFAULT_MIN_NODES,
            max_nodes: DEFAULT_MAX_NODES,
            seed: 0,
            version: 1,
            max_attempts: 0,
            side_work: false,
            application: None,
        }
    }
}

/// Inclusive ranges of the five measures, indexed like [`Dimension::ALL`]
/// (dependency = edges, instruction = nodes, knowledge = categories,
/// hierarchy = depth, branch = width).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Ranges {
    pub lo: [usize; 5],
    pub hi: [usize; 5],
}

pub(crate) const DEP: usize = 0;
pub(crate) const INS: usize = 1;
pub(crate) const KNO: usize = 2;
pub(crate) const HIE: usize = 3;
pub(crate) const BRA: usize = 4;

pub(crate) fn dim_index(d: Dimension) -> usize {
    match d {
        Dimension::Dependency => DEP,
        Dimension::Instruction => INS,
        Dimension::Knowledge => KNO,
        Dimension::Hierarchy => HIE,
        Dimension::Branch => BRA,
    }
}

/// What the measure of a dimension is called in messages.
pub(crate) fn measure_name(i: usize) -> &'static str {
    ["edges", "nodes", "categories", "depth", "width"][i]
}

impl Ranges {
    pub fn any() -> Ranges {
        Ranges {
            lo: [0; 5],
            hi: [usize::MAX; 5],
        }
    }

    pub fn is_any(&self, i: usize) -> bool {
        self.lo[i] == 0 && self.hi[i] == usize::MAX
    }

    pub fn contains(&self, i: usize, v: usize) -> bool {
        self.lo[i] <= v && v <= self.hi[i]
    }
}

/// The range of a target for dimension `d`.
pub(crate) fn target_range(d: Dimension, t: Target) -> (usize, usize) {
    match t {
        Target::Any => (0, usize::MAX),
        Target::Level(l) => d.range_of(l),
        Target::Range { min, max } => (min, max),
    }
}

/// Edges of the complete balanced `parts`-partite graph on `n` nodes (Turán).
pub(crate) fn turan_edges(n: usize, parts: usize) -> usize {
    if parts == 0 {
        return 0;
    }
    let q = n / parts;
    let r = n % parts;
    let sum_sq = r * (q + 1) * (q + 1) + (parts - r) * q * q;
    (n * n - sum_sq) / 2
}

/// The node counts (bit `n`) for which some DAG meets every range: a connected
/// one unless `pieces` allows independent pieces.
pub(crate) fn feasible_sizes(r: &Ranges, min_nodes: usize, max_nodes: usize, pieces: bool) -> u32 {
    let mut mask = 0u32;
    let n_lo = r.lo[INS].max(min_nodes).max(1);
    let n_hi = r.hi[INS].min(max_nodes).min(MAX_NODES);
    for n in n_lo..=n_hi {
        if size_feasible(r, n, pieces) {
            mask |= 1 << n;
        }
    }
    mask
}

fn size_feasible(r: &Ranges, n: usize, pieces: bool) -> bool {
    if r.lo[KNO].max(1) > r.hi[KNO].min(n) {
        return false;
    }
    for d in r.lo[HIE].max(1)..=r.hi[HIE].min(n) {
        for w in r.lo[BRA].max(1)..=r.hi[BRA].min(n) {
            if d + w - 1 > n || n > d * w {
                continue;
            }
            // Edges join comparable nodes only: at most the pairs between d
            // antichain levels (Turán), and never inside a largest antichain of w.
            let e_lo = r.lo[DEP].max(if pieces { d - 1 } else { n - 1 });
            let e_hi = r.hi[DEP]
                .min(turan_edges(n, d))
                .min(n * (n - 1) / 2 - w * (w - 1) / 2);
            if e_lo <= e_hi {
                return true;
            }
        }
    }
    false
}

/// A human label for a range of dimension `i`: the level name when it is one.
pub(crate) fn range_label(i: usize, lo: usize, hi: usize) -> String {
    let d = Dimension::ALL[i];
    for l in Level::ALL {
        let (a, b) = d.range_of(l);
        if lo == a && (hi == b || (l == Level::Hard && hi >= a)) {
            return format!("{d}={l}");
        }
    }
    if hi == usize::MAX {
        format!("{d}={lo}..")
    } else {
        format!("{d}={lo}..{hi}")
    }
}

/// The condition of a range in words: `width >= 5`, `edges <= 1`, `depth in 3..=4`.
pub(crate) fn range_condition(i: usize, lo: usize, hi: usize) -> String {
    let m = measure_name(i);
    if hi == usize::MAX {
        format!("{m} >= {lo}")
    } else if lo == 0 {
        format!("{m} <= {hi}")
    } else if lo == hi {
        format!("{m} = {lo}")
    } else {
        format!("{m} in {lo}..={hi}")
    }
}

/// Why no DAG meets the ranges (no connected one unless `pieces`), or `None`
/// when some may.
pub(crate) fn explain_infeasible(
    r: &Ranges,
    min_nodes: usize,
    max_nodes: usize,
    pieces: bool,
) -> Option<String> {
    if feasible_sizes(r, min_nodes, max_nodes, pieces) != 0 {
        return None;
    }
    let n_max = max_nodes.min(MAX_NODES);
    let constrained: Vec<usize> = (0..5).filter(|&i| !r.is_any(i)).collect();
    let only = |dims: &[usize]| {
        let mut q = Ranges::any();
        for &i in dims {
            q.lo[i] = r.lo[i];
            q.hi[i] = r.hi[i];
        }
        q
    };
    // One dimension alone.
    for &i in &constrained {
        if feasible_sizes(&only(&[i]), min_nodes, max_nodes, pieces) == 0 {
            let label = range_label(i, r.lo[i], r.hi[i]);
            let cond = range_condition(i, r.lo[i], r.hi[i]);
            let why = match i {
                INS => format!("tasks have {min_nodes} to {n_max} nodes (min_nodes, max_nodes)"),
                DEP if r.lo[DEP] > 0 => format!(
                    "a DAG on at most {n_max} nodes has at most {} edges",
                    n_max * n_max.saturating_sub(1) / 2
                ),
                DEP => format!(
                    "a connected DAG on at least {min_nodes} nodes has at least {} edges",
                    min_nodes.saturating_sub(1)
                ),
                _ => format!("tasks have {min_nodes} to {n_max} nodes (min_nodes, max_nodes)"),
            };
            return Some(format!("{label} asks for {cond}, but {why}"));
        }
    }
    // Two dimensions together.
    for (a_pos, &a) in constrained.iter().enumerate() {
        for &b in &constrained[a_pos + 1..] {
            if feasible_sizes(&only(&[a, b]), min_nodes, max_nodes, pieces) != 0 {
                continue;
            }
            let la = range_label(a, r.lo[a], r.hi[a]);
            let lb = range_label(b, r.lo[b], r.hi[b]);
            let why = if (a, b) == (DEP, INS) {
                let n_hi = r.hi[INS].min(n_max);
                let n_lo = r.lo[INS].max(min_nodes);
                if r.lo[DEP] > n_hi * n_hi.saturating_sub(1) / 2 {
                    format!(
                        "a DAG on at most {n_hi} nodes has at most {} edges, fewer than the {} that {la} needs",
                        n_hi * n_hi.saturating_sub(1) / 2,
                        r.lo[DEP]
                    )
                } else {
                    format!(
                        "a connected DAG on at least {n_lo} nodes has at least {} edges, more than the {} that {la} allows",
                        n_lo.saturating_sub(1),
                        r.hi[DEP]
                    )
                }
            } else {
                general_rules(pieces)
            };
            return Some(format!("{la} and {lb} cannot hold together: {why}"));
        }
    }
    let labels: Vec<String> = constrained
        .iter()
        .map(|&i| range_label(i, r.lo[i], r.hi[i]))
        .collect();
    Some(format!(
        "{} cannot hold together on {min_nodes} to {n_max} nodes: {}",
        labels.join(", "),
        general_rules(pieces)
    ))
}

fn general_rules(pieces: bool) -> String {
    let (graph, fewest) = if pieces {
        ("a DAG", "d - 1")
    } else {
        ("a connected DAG", "n - 1")
    };
    format!(
        "for n nodes, depth d and width w {graph} needs d + w - 1 <= n <= d * w, \
         {fewest} <= edges <= the edges of a complete d-partite graph on n nodes, and 1 <= categories <= n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges(pairs: &[(usize, (usize, usize))]) -> Ranges {
        let mut r = Ranges::any();
        for &(i, (lo, hi)) in pairs {
            r.lo[i] = lo;
            r.hi[i] = hi;
        }
        r
    }

    #[test]
    fn feasibility_knows_a_wide_graph_has_few_edges() {
        // 4 nodes, width 3, depth 2: three of them are unrelated, so at most
        // 6 - 3 = 3 edges; 4 or more is impossible, 3 is possible (a fan-out).
        let wide = |edges: (usize, usize)| {
            ranges(&[(INS, (4, 4)), (BRA, (3, 3)), (HIE, (2, 2)), (DEP, edges)])
        };
        assert_eq!(feasible_sizes(&wide((4, usize::MAX)), 2, 10, false), 0);
        assert_eq!(feasible_sizes(&wide((3, 3)), 2, 10, false), 1 << 4);
    }

    #[test]
    fn dependency_hard_with_instruction_easy_is_refused() {
        let r = ranges(&[(DEP, (4, usize::MAX)), (INS, (0, 2))]);
        let why = explain_infeasible(&r, 2, 10, false).unwrap();
        assert!(why.contains("dependency=hard"), "{why}");
        assert!(why.contains("instruction=easy"), "{why}");
        assert!(why.contains("at most 1 edges"), "{why}");
    }

    #[test]
    fn many_nodes_with_few_edges_need_independent_pieces() {
        // Five subtasks and at most one dependency: OmniBench's subtask
        // identification, possible only with side work. Depth 5 still needs
        // the four edges of its path.
        let r = ranges(&[(DEP, (0, 1)), (INS, (5, usize::MAX))]);
        assert!(explain_infeasible(&r, 2, 10, false).is_some());
        assert_eq!(explain_infeasible(&r, 2, 10, true), None);
        let r = ranges(&[(DEP, (0, 1)), (HIE, (5, usize::MAX))]);
        let why = explain_infeasible(&r, 2, 10, true).unwrap();
        assert!(why.contains("d - 1 <= edges"), "{why}");
    }

    #[test]
    fn dependency_hard_with_instruction_medium_is_fine() {
        let r = ranges(&[(DEP, (4, usize::MAX)), (INS, (3, 4))]);
        assert_eq!(explain_infeasible(&r, 2, 10, false), None);
        assert_eq!(feasible_sizes(&r, 2, 10, false), 1 << 4);
    }

    #[test]
    fn depth_and_width_bound_the_size() {
        // depth 5 and width 5 need at least 9 nodes.
        let r = ranges(&[(HIE, (5, 5)), (BRA, (5, 5))]);
        assert_eq!(feasible_sizes(&r, 2, 20, false).trailing_zeros(), 9);
        // width <= 2 and depth <= 2 hold at most 4 nodes.
        let r = ranges(&[(HIE, (0, 2)), (BRA, (0, 2))]);
        assert_eq!(32 - feasible_sizes(&r, 2, 20, false).leading_zeros() - 1, 4);
    }

    #[test]
    fn turan_numbers() {
        assert_eq!(turan_edges(4, 4), 6);
        assert_eq!(turan_edges(4, 2), 4);
        assert_eq!(turan_edges(5, 2), 6);
        assert_eq!(turan_edges(3, 1), 0);
    }

    #[test]
    fn targets_parse() {
        assert_eq!("hard".parse::<Target>(), Ok(Target::Level(Level::Hard)));
        assert_eq!("any".parse::<Target>(), Ok(Target::Any));
        assert_eq!("3".parse::<Target>(), Ok(Target::Range { min: 3, max: 3 }));
        assert_eq!(
            "2..5".parse::<Target>(),
            Ok(Target::Range { min: 2, max: 5 })
        );
        assert_eq!(
            "5..".parse::<Target>(),
            Ok(Target::Range {
                min: 5,
                max: usize::MAX
            })
        );
        assert!("5..2".parse::<Target>().is_err());
        assert!("huge".parse::<Target>().is_err());
    }

    #[test]
    fn labels_name_levels() {
        assert_eq!(range_label(BRA, 5, usize::MAX), "branch=hard");
        assert_eq!(range_label(INS, 5, 10), "instruction=hard");
        assert_eq!(range_label(DEP, 0, 1), "dependency=easy");
        assert_eq!(range_label(HIE, 3, 4), "hierarchy=medium");
        assert_eq!(range_label(HIE, 3, 3), "hierarchy=3..3");
        assert_eq!(range_condition(BRA, 5, usize::MAX), "width >= 5");
    }
}
