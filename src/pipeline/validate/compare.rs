//! Compares a task's DAG with the dependencies reconstructed from its instruction.
//!
//! Two graphs agree when their transitive closures are equal: the instruction may
//! state `A before B before C` without repeating `A before C`. When they disagree,
//! each [`Discrepancy`] names a minimal witness in words a summarizer can act on:
//! missing orders are edges of the DAG's transitive reduction the instruction does
//! not imply, extra orders are edges of the reconstruction's transitive reduction the
//! DAG does not imply. Fixing every reported item makes the closures equal.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::reconstruct::ReconstructError;
use super::relations::Relations;
use crate::model::Dag;

/// One way the instruction's structure differs from the task's DAG. Node ids are
/// the DAG's ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Discrepancy {
    /// `first` and `then` are independent in the DAG, but the instruction puts
    /// `then` after `first` (an extra dependency; a lost parallel branch).
    ExtraOrder { first: String, then: String },
    /// The DAG needs `after` to follow `before`; the instruction leaves them
    /// unordered (a missing dependency).
    MissingOrder { before: String, after: String },
    /// The DAG needs `after` to follow `before`; the instruction has it the other
    /// way round.
    Reversed { before: String, after: String },
    /// The reconstruction names a step the task does not have.
    UnknownNode { id: String },
    /// A step with dependencies in the DAG appears in no reconstructed dependency.
    /// `after` / `before`: its neighbours in the DAG's transitive reduction.
    MissingNode {
        id: String,
        after: Vec<String>,
        before: Vec<String>,
    },
    /// The reconstructed order is circular among these steps.
    Cycle { nodes: Vec<String> },
    /// The instruction could not be read back at all.
    Unreadable { error: ReconstructError },
}

impl Discrepancy {
    /// The message with every node id replaced by `name(id)` (say, a short clause
    /// of the node's instruction, for a language-model summarizer).
    pub fn describe_with(&self, name: &dyn Fn(&str) -> String) -> String {
        let q = |id: &str| format!("'{}'", name(id));
        let list = |ids: &[String]| {
            let quoted: Vec<String> = ids.iter().map(|id| q(id)).collect();
            super::text::join_and(&quoted)
        };
        match self {
            Discrepancy::ExtraOrder { first, then } => format!(
                "steps {} and {} can run in parallel but the instruction orders them ({} after {})",
                q(first),
                q(then),
                q(then),
                q(first)
            ),
            Discrepancy::MissingOrder { before, after } => format!(
                "{} must come after {} but the instruction does not say so",
                q(after),
                q(before)
            ),
            Discrepancy::Reversed { before, after } => format!(
                "order reversed between {} and {}: {} must come after {}, but the instruction puts it first",
                q(before),
                q(after),
                q(after),
                q(before)
            ),
            Discrepancy::UnknownNode { id } => {
                format!("the reconstruction names a step {} that the task does not have", q(id))
            }
            Discrepancy::MissingNode { id, after, before } => {
                let mut needs = Vec::new();
                if !after.is_empty() {
                    needs.push(format!("after {}", list(after)));
                }
                if !before.is_empty() {
                    needs.push(format!("before {}", list(before)));
                }
                format!(
                    "step {} is not placed by the instruction: it must come {}",
                    q(id),
                    needs.join(" and ")
                )
            }
            Discrepancy::Cycle { nodes } => {
                format!("the instruction's order is circular among steps {}", list(nodes))
            }
            Discrepancy::Unreadable { error } => {
                format!("the instruction could not be read back: {error}")
            }
        }
    }

    /// True for the kinds a wording that identified every step correctly can still
    /// produce (an order added or left out). The others (reversed orders, unknown or
    /// unplaced steps, cycles, unreadable text) suggest the steps themselves were
    /// not recognised.
    pub fn is_structural(&self) -> bool {
        matches!(
            self,
            Discrepancy::ExtraOrder { .. } | Discrepancy::MissingOrder { .. }
        )
    }
}

impl fmt::Display for Discrepancy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe_with(&|id: &str| id.to_string()))
    }
}

/// The outcome of one comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    Pass,
    /// Never empty.
    Mismatch(Vec<Discrepancy>),
}

impl Verdict {
    pub fn is_pass(&self) -> bool {
        matches!(self, Verdict::Pass)
    }

    pub fn discrepancies(&self) -> &[Discrepancy] {
        match self {
            Verdict::Pass => &[],
            Verdict::Mismatch(d) => d,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Pass => f.write_str("pass"),
            Verdict::Mismatch(items) => {
                for (i, d) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{d}")?;
                }
                Ok(())
            }
        }
    }
}

/// Compares `dag` with `reconstructed` dependency edges `(before, after)` over the
/// DAG's node ids. Passes exactly when the transitive closures are equal and every
/// reconstructed id is a node of the DAG. Duplicate edges are harmless.
///
/// Report order: unknown ids, then cycles (when the reconstruction has a cycle the
/// pairwise comparison is skipped: a cycle has no consistent order to compare),
/// then unplaced steps, reversed, missing and extra orders, each by DAG node order.
pub fn compare(dag: &Dag, reconstructed: &[(String, String)]) -> Verdict {
    let truth = Relations::from_dag(dag);
    let mut out = Vec::new();

    let mut unknown = BTreeSet::new();
    for (a, b) in reconstructed {
        for id in [a, b] {
            if !truth.index.contains_key(id) && unknown.insert(id.clone()) {
                out.push(Discrepancy::UnknownNode { id: id.clone() });
            }
        }
    }
    let got = Relations::new(truth.ids.clone(), reconstructed);
    let name = |i: usize| truth.ids[i].clone();

    let cycles = got.cycles();
    if !cycles.is_empty() {
        for group in cycles {
            out.push(Discrepancy::Cycle {
                nodes: group.into_iter().map(name).collect(),
            });
        }
        return Verdict::Mismatch(out);
    }

    let n = truth.len();
    let truth_reduction = truth.reduction();
    // Steps the reconstruction never mentions although the DAG orders them.
    let mut mentioned = vec![false; n];
    for (a, b) in reconstructed {
        for id in [a, b] {
            if let Some(&i) = truth.index.get(id) {
                mentioned[i] = true;
            }
        }
    }
    let mut unplaced = vec![false; n];
    for (v, flag) in unplaced.iter_mut().enumerate() {
        let related = (0..n).any(|u| u != v && (truth.before(u, v) || truth.before(v, u)));
        if related && !mentioned[v] {
            *flag = true;
            let after = truth_reduction
                .iter()
                .filter(|&&(_, b)| b == v)
                .map(|&(a, _)| name(a))
                .collect();
            let before = truth_reduction
                .iter()
                .filter(|&&(a, _)| a == v)
                .map(|&(_, b)| name(b))
                .collect();
            out.push(Discrepancy::MissingNode {
                id: name(v),
                after,
                before,
            });
        }
    }

    let mut reversed: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut missing = Vec::new();
    for &(u, v) in &truth_reduction {
        if unplaced[u] || unplaced[v] || got.before(u, v) {
            continue;
        }
        if got.before(v, u) {
            reversed.insert((u, v));
        } else {
            missing.push(Discrepancy::MissingOrder {
                before: name(u),
                after: name(v),
            });
        }
    }
    let mut extra = Vec::new();
    for (x, y) in got.reduction() {
        if truth.before(x, y) {
            continue;
        }
        if truth.before(y, x) {
            reversed.insert((y, x));
        } else {
            extra.push(Discrepancy::ExtraOrder {
                first: name(x),
                then: name(y),
            });
        }
    }
    out.extend(reversed.into_iter().map(|(u, v)| Discrepancy::Reversed {
        before: name(u),
        after: name(v),
    }));
    out.extend(missing);
    out.extend(extra);

    if out.is_empty() {
        Verdict::Pass
    } else {
        Verdict::Mismatch(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn dag(nodes: &[&str], edges: &[(&str, &str)]) -> Dag {
        let mut d = Dag {
            nodes: nodes.iter().map(|s| s.to_string()).collect(),
            edges: Default::default(),
        };
        for n in nodes {
            d.edges.insert(n.to_string(), Vec::new());
        }
        for (a, b) in edges {
            d.edges.get_mut(*a).unwrap().push(b.to_string());
        }
        d
    }

    fn e(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn equal_closures_pass() {
        let d = dag(&["A", "B", "C"], &[("A", "B"), ("B", "C"), ("A", "C")]);
        assert_eq!(compare(&d, &e(&[("A", "B"), ("B", "C")])), Verdict::Pass);
    }

    #[test]
    fn isolated_nodes_need_no_edges() {
        let d = dag(&["A", "B"], &[]);
        assert_eq!(compare(&d, &[]), Verdict::Pass);
    }

    #[test]
    fn lost_parallel_branch_is_an_extra_order() {
        let d = dag(&["A", "B", "C"], &[("A", "C"), ("B", "C")]);
        let v = compare(&d, &e(&[("A", "B"), ("B", "C")]));
        assert_eq!(
            v.discrepancies(),
            &[Discrepancy::ExtraOrder {
                first: "A".into(),
                then: "B".into()
            }]
        );
        assert_eq!(
            v.to_string(),
            "steps 'A' and 'B' can run in parallel but the instruction orders them ('B' after 'A')"
        );
    }

    #[test]
    fn missing_dependency_names_the_reduction_edge() {
        let d = dag(&["A", "B", "C"], &[("A", "B"), ("B", "C")]);
        let v = compare(&d, &e(&[("A", "B"), ("A", "C")]));
        assert_eq!(
            v.to_string(),
            "'C' must come after 'B' but the instruction does not say so"
        );
    }

    #[test]
    fn reversed_order_is_reported_once() {
        let d = dag(&["A", "B"], &[("A", "B")]);
        let v = compare(&d, &e(&[("B", "A")]));
        assert_eq!(
            v.discrepancies(),
            &[Discrepancy::Reversed {
                before: "A".into(),
                after: "B".into()
            }]
        );
    }

    #[test]
    fn unknown_ids_and_cycles_are_named() {
        let d = dag(&["A", "B", "C"], &[("A", "B")]);
        let v = compare(&d, &e(&[("A", "B"), ("B", "A"), ("A", "Z")]));
        assert_eq!(
            v.discrepancies(),
            &[
                Discrepancy::UnknownNode { id: "Z".into() },
                Discrepancy::Cycle {
                    nodes: vec!["A".into(), "B".into()]
                }
            ]
        );
        assert!(v.to_string().contains("circular among steps 'A' and 'B'"));
    }

    #[test]
    fn a_step_left_out_is_named_with_its_neighbours() {
        let d = dag(&["A", "B", "C"], &[("A", "B"), ("B", "C")]);
        let v = compare(&d, &e(&[("A", "C")]));
        assert_eq!(
            v.discrepancies(),
            &[Discrepancy::MissingNode {
                id: "B".into(),
                after: vec!["A".into()],
                before: vec!["C".into()]
            }]
        );
        assert_eq!(
            v.to_string(),
            "step 'B' is not placed by the instruction: it must come after 'A' and before 'C'"
        );
    }

    #[test]
    fn a_linearised_fork_reports_each_lost_branch_once() {
        // A -> {B, C, D}; reconstruction chains A -> B -> C -> D.
        let d = dag(&["A", "B", "C", "D"], &[("A", "B"), ("A", "C"), ("A", "D")]);
        let v = compare(&d, &e(&[("A", "B"), ("B", "C"), ("C", "D")]));
        assert_eq!(v.discrepancies().len(), 2);
        assert!(v
            .discrepancies()
            .iter()
            .all(|d| matches!(d, Discrepancy::ExtraOrder { .. })));
    }
}
