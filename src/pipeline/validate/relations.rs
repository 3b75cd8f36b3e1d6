//! The small amount of graph work validation needs: reachability (transitive
//! closure), transitive reduction, a deterministic topological order, layers and
//! cycles, on graphs of a few dozen nodes at most.
//!
//! Kept local to `validate` on purpose: it works on any edge list, including the
//! cyclic or malformed ones a reconstruction may return, and never panics on them.

use std::collections::BTreeMap;

use crate::model::Dag;

/// A directed graph over string ids with its reachability matrix.
#[derive(Debug, Clone)]
pub(crate) struct Relations {
    pub ids: Vec<String>,
    pub index: BTreeMap<String, usize>,
    /// Direct successors, sorted and unique.
    pub succ: Vec<Vec<usize>>,
    /// `reach[u][v]`: `v` is reachable from `u` by a path of one or more edges.
    pub reach: Vec<Vec<bool>>,
}

impl Relations {
    /// The weakly connected component of each node, numbered by first
    /// appearance in `order` (which must list every node once).
    pub fn pieces_along(&self, order: &[usize]) -> Vec<usize> {
        let n = self.len();
        let mut piece = vec![usize::MAX; n];
        let mut next = 0;
        for &start in order {
            if piece[start] != usize::MAX {
                continue;
            }
            piece[start] = next;
            let mut stack = vec![start];
            while let Some(u) = stack.pop() {
                let neighbours = self.succ[u].iter().copied().chain(self.preds(u));
                for v in neighbours.collect::<Vec<_>>() {
                    if piece[v] == usize::MAX {
                        piece[v] = next;
                        stack.push(v);
                    }
                }
            }
            next += 1;
        }
        piece
    }

    /// The graph of a task DAG. Nodes are `dag.nodes` in order, then any id that
    /// only occurs in `dag.edges` (so a malformed DAG still compares sanely).
    pub fn from_dag(dag: &Dag) -> Relations {
        let mut ids: Vec<String> = Vec::new();
        let mut index = BTreeMap::new();
        let mut add = |id: &str, ids: &mut Vec<String>| {
            if !index.contains_key(id) {
                index.insert(id.to_string(), ids.len());
                ids.push(id.to_string());
            }
        };
        for id in &dag.nodes {
            add(id, &mut ids);
        }
        for (from, tos) in &dag.edges {
            add(from, &mut ids);
            for to in tos {
                add(to, &mut ids);
            }
        }
        let edges: Vec<(String, String)> = dag
            .edges
            .iter()
            .flat_map(|(from, tos)| tos.iter().map(move |to| (from.clone(), to.clone())))
            .collect();
        Relations::new(ids, &edges)
    }

    /// The graph over `ids` with the edges whose both ends are in `ids`.
    pub fn new(ids: Vec<String>, edges: &[(String, String)]) -> Relations {
        let index: BTreeMap<String, usize> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| (id.clone(), i))
            .collect();
        let n = ids.len();
        let mut succ = vec![Vec::new(); n];
        for (from, to) in edges {
            if let (Some(&u), Some(&v)) = (index.get(from), index.get(to)) {
                succ[u].push(v);
            }
        }
        for s in &mut succ {
            s.sort_unstable();
            s.dedup();
        }
        let mut reach = vec![vec![false; n]; n];
        for (u, row) in reach.iter_mut().enumerate() {
            let mut stack: Vec<usize> = succ[u].clone();
            while let Some(v) = stack.pop() {
                if !row[v] {
                    row[v] = true;
                    stack.extend(succ[v].iter().copied());
                }
            }
        }
        Relations {
            ids,
            index,
            succ,
            reach,
        }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn before(&self, u: usize, v: usize) -> bool {
        self.reach[u][v]
    }

    pub fn is_acyclic(&self) -> bool {
        (0..self.len()).all(|u| !self.reach[u][u])
    }

    /// Direct predecessors of `v`, in index order.
    pub fn preds(&self, v: usize) -> Vec<usize> {
        (0..self.len())
            .filter(|&u| self.succ[u].contains(&v))
            .collect()
    }

    /// The pairs `u -> v` of the transitive reduction: `v` reachable from `u` with
    /// no `w` in between. Meaningful on acyclic graphs; sorted by `(u, v)`.
    pub fn reduction(&self) -> Vec<(usize, usize)> {
        let n = self.len();
        let mut out = Vec::new();
        for u in 0..n {
            for v in 0..n {
                if u != v
                    && self.reach[u][v]
                    && !(0..n).any(|w| w != u && w != v && self.reach[u][w] && self.reach[w][v])
                {
                    out.push((u, v));
                }
            }
        }
        out
    }

    /// A topological order: `preferred` when it is one (a permutation of the ids
    /// that respects every edge), else Kahn's algorithm taking the smallest index
    /// first. `None` when the graph has a cycle.
    pub fn topo_order(&self, preferred: Option<&[String]>) -> Option<Vec<usize>> {
        if !self.is_acyclic() {
            return None;
        }
        if let Some(order) = preferred.and_then(|p| self.check_order(p)) {
            return Some(order);
        }
        let n = self.len();
        let mut indeg = vec![0usize; n];
        for s in &self.succ {
            for &v in s {
                indeg[v] += 1;
            }
        }
        let mut ready: std::collections::BTreeSet<usize> =
            (0..n).filter(|&v| indeg[v] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(u) = ready.pop_first() {
            order.push(u);
            for &v in &self.succ[u] {
                indeg[v] -= 1;
                if indeg[v] == 0 {
                    ready.insert(v);
                }
            }
        }
        (order.len() == n).then_some(order)
    }

    fn check_order(&self, order: &[String]) -> Option<Vec<usize>> {
        if order.len() != self.len() {
            return None;
        }
        let idx: Vec<usize> = order
            .iter()
            .map(|id| self.index.get(id).copied())
            .collect::<Option<_>>()?;
        let mut pos = vec![usize::MAX; self.len()];
        for (p, &u) in idx.iter().enumerate() {
            if pos[u] != usize::MAX {
                return None;
            }
            pos[u] = p;
        }
        let respects = (0..self.len()).all(|u| self.succ[u].iter().all(|&v| pos[u] < pos[v]));
        respects.then_some(idx)
    }

    /// The nodes on cycles, grouped by strongly connected component; each group in
    /// index order, groups by their smallest index.
    pub fn cycles(&self) -> Vec<Vec<usize>> {
        let n = self.len();
        let mut seen = vec![false; n];
        let mut out = Vec::new();
        for u in 0..n {
            if seen[u] || !self.reach[u][u] {
                continue;
            }
            let group: Vec<usize> = (0..n)
                .filter(|&v| v == u || (self.reach[u][v] && self.reach[v][u]))
                .collect();
            for &v in &group {
                seen[v] = true;
            }
            out.push(group);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(n: usize, edges: &[(usize, usize)]) -> Relations {
        let ids: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
        let e: Vec<(String, String)> = edges
            .iter()
            .map(|&(a, b)| (format!("n{a}"), format!("n{b}")))
            .collect();
        Relations::new(ids, &e)
    }

    #[test]
    fn closure_and_reduction_of_a_chain_with_a_shortcut() {
        let r = rel(3, &[(0, 1), (1, 2), (0, 2)]);
        assert!(r.before(0, 2));
        assert_eq!(r.reduction(), vec![(0, 1), (1, 2)]);
    }

    #[test]
    fn cycles_are_grouped_and_block_orders() {
        let r = rel(4, &[(0, 1), (1, 2), (2, 0), (3, 3)]);
        assert_eq!(r.cycles(), vec![vec![0, 1, 2], vec![3]]);
        assert!(r.topo_order(None).is_none());
    }

    #[test]
    fn preferred_order_is_used_only_when_valid() {
        let r = rel(3, &[(0, 2)]);
        let good = vec!["n1".to_string(), "n0".into(), "n2".into()];
        assert_eq!(r.topo_order(Some(&good)).unwrap(), vec![1, 0, 2]);
        let bad = vec!["n2".to_string(), "n0".into(), "n1".into()];
        assert_eq!(r.topo_order(Some(&bad)).unwrap(), vec![0, 1, 2]);
    }
}
