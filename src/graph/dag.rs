//! Small task graphs as bitsets, and the measures and orders computed on them.
//!
//! A [`SmallDag`] holds at most [`MAX_NODES`] nodes; node `i`'s predecessors and
//! successors are `u32` masks. The cap keeps every computation here exact and cheap:
//! the number of topological orders of 20 nodes is at most 20! ≈ 2.4·10¹⁸, which fits
//! a `u64`, and the dynamic programs run over the graph's down-sets (subsets closed
//! under predecessors), which are few for the graphs the composer makes.
//!
//! Owns: depth (nodes on the longest path), width (maximum antichain, by Dilworth's
//! theorem), the exact number of topological orders, the orders themselves (in
//! lexicographic order up to a cap, or a few spread evenly over all of them by
//! rank), and the coherency score `CS_max`.
//! No I/O.

/// The largest number of nodes a task graph may have (see the module docs).
pub const MAX_NODES: usize = 20;

/// Why a graph cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DagError {
    #[error("a task graph has at most {max} nodes, got {n}")]
    TooManyNodes { n: usize, max: usize },
    #[error("edge {from}->{to} names a node outside 0..{n}")]
    NodeOutOfRange { from: usize, to: usize, n: usize },
    #[error("edge {0}->{0} is a self-loop")]
    SelfLoop(usize),
    #[error("the edges form a cycle")]
    Cycle,
}

/// A directed acyclic graph on nodes `0..len()`, as predecessor and successor masks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SmallDag {
    n: u8,
    preds: [u32; MAX_NODES],
    succs: [u32; MAX_NODES],
}

impl SmallDag {
    /// A graph with `n` nodes and no edges.
    ///
    /// # Errors
    /// [`DagError::TooManyNodes`] when `n > MAX_NODES`.
    pub fn new(n: usize) -> Result<SmallDag, DagError> {
        if n > MAX_NODES {
            return Err(DagError::TooManyNodes { n, max: MAX_NODES });
        }
        Ok(SmallDag {
            n: n as u8,
            preds: [0; MAX_NODES],
            succs: [0; MAX_NODES],
        })
    }

    /// A graph with `min(n, MAX_NODES)` nodes and no edges (for callers that already
    /// bound `n`).
    pub(crate) fn with_nodes(n: usize) -> SmallDag {
        SmallDag {
            n: n.min(MAX_NODES) as u8,
            preds: [0; MAX_NODES],
            succs: [0; MAX_NODES],
        }
    }

    /// A graph with `n` nodes and the given edges (repeats are merged).
    ///
    /// # Errors
    /// Too many nodes, an endpoint out of range, a self-loop, or a cycle.
    pub fn from_edges(n: usize, edges: &[(usize, usize)]) -> Result<SmallDag, DagError> {
        let mut g = SmallDag::new(n)?;
        for &(from, to) in edges {
            if from >= n || to >= n {
                return Err(DagError::NodeOutOfRange { from, to, n });
            }
            if from == to {
                return Err(DagError::SelfLoop(from));
            }
            g.add_edge_unchecked(from, to);
        }
        if g.topological_order().is_none() {
            return Err(DagError::Cycle);
        }
        Ok(g)
    }

    /// Adds a node with the given predecessor and successor masks (over the existing
    /// nodes) and returns its index. The caller guarantees the result is acyclic and
    /// that there is room (`len() < MAX_NODES`).
    pub(crate) fn push_node(&mut self, preds: u32, succs: u32) -> usize {
        let v = self.n as usize;
        self.n += 1;
        self.preds[v] = preds;
        self.succs[v] = succs;
        let bit = 1u32 << v;
        for p in bits(preds) {
            self.succs[p] |= bit;
        }
        for s in bits(succs) {
            self.preds[s] |= bit;
        }
        v
    }

    pub(crate) fn add_edge_unchecked(&mut self, from: usize, to: usize) {
        self.succs[from] |= 1 << to;
        self.preds[to] |= 1 << from;
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.n as usize
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The mask of all nodes.
    pub fn all(&self) -> u32 {
        if self.n as usize == 32 {
            u32::MAX
        } else {
            (1u32 << self.n) - 1
        }
    }

    /// Predecessor mask of node `v`.
    pub fn preds(&self, v: usize) -> u32 {
        self.preds[v]
    }

    /// Successor mask of node `v`.
    pub fn succs(&self, v: usize) -> u32 {
        self.succs[v]
    }

    /// Number of edges (the dependency measure).
    pub fn edge_count(&self) -> usize {
        self.succs[..self.len()]
            .iter()
            .map(|m| m.count_ones() as usize)
            .sum()
    }

    /// The edges as (from, to) pairs, sorted.
    pub fn edges(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for v in 0..self.len() {
            for s in bits(self.succs[v]) {
                out.push((v, s));
            }
        }
        out
    }

    /// Nodes not in `done` whose predecessors are all in `done`.
    #[inline]
    fn available(&self, done: u32) -> u32 {
        let mut out = 0;
        for v in 0..self.len() {
            if done & (1 << v) == 0 && self.preds[v] & !done == 0 {
                out |= 1 << v;
            }
        }
        out
    }

    /// The lexicographically smallest topological order, or `None` on a cycle.
    pub fn topological_order(&self) -> Option<Vec<usize>> {
        let mut done = 0u32;
        let mut out = Vec::with_capacity(self.len());
        while out.len() < self.len() {
            let avail = self.available(done);
            if avail == 0 {
                return None;
            }
            let v = avail.trailing_zeros() as usize;
            done |= 1 << v;
            out.push(v);
        }
        Some(out)
    }

    /// Strict descendants of every node (the transitive closure).
    pub fn descendants(&self) -> [u32; MAX_NODES] {
        let mut desc = [0u32; MAX_NODES];
        let order = self.topological_order().unwrap_or_default();
        for &v in order.iter().rev() {
            let mut d = self.succs[v];
            for s in bits(self.succs[v]) {
                d |= desc[s];
            }
            desc[v] = d;
        }
        desc
    }

    /// Depth: the number of nodes on the longest path (0 for the empty graph).
    pub fn depth(&self) -> usize {
        let mut down = [0usize; MAX_NODES];
        let mut best = 0;
        for v in self.topological_order().unwrap_or_default() {
            let d = 1 + bits(self.preds[v]).map(|p| down[p]).max().unwrap_or(0);
            down[v] = d;
            best = best.max(d);
        }
        best
    }

    /// Width: the size of a largest antichain (set of mutually unreachable nodes).
    /// By Dilworth's theorem it equals the minimum number of chains covering the
    /// order, which is `n` minus a maximum matching in the bipartite graph
    /// `u → v` for `v` a strict descendant of `u`.
    pub fn width(&self) -> usize {
        width_of_closure(&self.descendants()[..self.len()])
    }

    /// The exact number of topological orders, by a dynamic program over down-sets:
    /// `count(S ∪ {v}) += count(S)` for every `v` available after `S`.
    pub fn topo_count(&self) -> u64 {
        let n = self.len();
        let mut level: Vec<(u32, u64)> = vec![(0, 1)];
        let mut next: Vec<(u32, u64)> = Vec::new();
        for _ in 0..n {
            next.clear();
            for &(mask, count) in &level {
                for v in bits(self.available(mask)) {
                    next.push((mask | (1 << v), count));
                }
            }
            next.sort_unstable_by_key(|e| e.0);
            level.clear();
            for &(mask, count) in &next {
                match level.last_mut() {
                    Some(last) if last.0 == mask => last.1 += count,
                    _ => level.push((mask, count)),
                }
            }
        }
        level.first().map(|e| e.1).unwrap_or(1)
    }

    /// The topological orders in lexicographic order of node indices, at most `cap`
    /// of them. `truncated` is set when there are more.
    pub fn orders(&self, cap: usize) -> Orders {
        self.orders_sized(cap, None)
    }

    /// [`SmallDag::orders`] with the exact count known (from [`SmallDag::topo_count`]),
    /// so the storage is allocated once.
    pub fn orders_counted(&self, cap: usize, topo_count: u64) -> Orders {
        self.orders_sized(cap, Some(topo_count))
    }

    fn orders_sized(&self, cap: usize, known: Option<u64>) -> Orders {
        let n = self.len();
        let reserve = known.map_or(0, |k| k.min(cap as u64) as usize * n);
        let mut out = Orders {
            n: n as u8,
            flat: Vec::with_capacity(reserve),
            truncated: false,
        };
        if n == 0 {
            // The empty graph has one (empty) order; nothing to list.
            return out;
        }
        let mut order = [0u8; MAX_NODES];
        let mut pending = [0u32; MAX_NODES + 1];
        let mut mask = 0u32;
        let mut k = 0usize;
        pending[0] = self.available(0);
        loop {
            if k == n {
                if out.count() == cap {
                    out.truncated = true;
                    return out;
                }
                out.flat.extend_from_slice(&order[..n]);
                // Backtrack from the full order.
                k -= 1;
                mask &= !(1 << order[k]);
                continue;
            }
            if pending[k] == 0 {
                if k == 0 {
                    return out;
                }
                k -= 1;
                mask &= !(1 << order[k]);
                continue;
            }
            let v = pending[k].trailing_zeros();
            pending[k] &= pending[k] - 1;
            order[k] = v as u8;
            mask |= 1 << v;
            k += 1;
            if k < n {
                pending[k] = self.available(mask);
            }
        }
    }

    /// At most `cap` topological orders spread evenly over the space of all orders:
    /// with `count` orders in all (from [`SmallDag::topo_count`]), the orders of
    /// lexicographic rank `⌊i·count/cap⌋` for `i` in `0..cap`. When `count <= cap`
    /// every order is listed (as [`SmallDag::orders`] does); otherwise `truncated` is
    /// set. Rank 0 comes first, so the first order is always the lexicographically
    /// smallest. A prefix of the lexicographic listing would only vary the last few
    /// positions; these orders vary the early ones too.
    pub fn orders_spread(&self, cap: usize, count: u64) -> Orders {
        if count <= cap as u64 {
            return self.orders_counted(cap, count);
        }
        let n = self.len();
        let mut out = Orders {
            n: n as u8,
            flat: Vec::with_capacity(cap * n),
            truncated: true,
        };
        let mut completions = Completions::new(self);
        for i in 0..cap as u64 {
            // i < cap < count, so the product fits in u128 and the rank < count.
            let rank = (u128::from(i) * u128::from(count) / cap as u128) as u64;
            self.unrank(rank, &mut completions, &mut out.flat);
        }
        out
    }

    /// Appends the topological order of lexicographic rank `rank` (which must be
    /// below the number of orders) to `out`.
    fn unrank(&self, mut rank: u64, completions: &mut Completions<'_>, out: &mut Vec<u8>) {
        let mut done = 0u32;
        for _ in 0..self.len() {
            for v in bits(self.available(done)) {
                let c = completions.count(done | (1 << v));
                if rank < c {
                    out.push(v as u8);
                    done |= 1 << v;
                    break;
                }
                rank -= c;
            }
        }
    }

    /// `CS_max`: the largest number of adjacent pairs in the same application over all
    /// topological orders, by a dynamic program over (down-set, application of the
    /// last node). `apps[v]` is node `v`'s application (any ids; only equality counts).
    /// Returns 0 for fewer than two nodes or when `apps` is shorter than the graph.
    pub fn cs_max(&self, apps: &[u32]) -> usize {
        let n = self.len();
        if n < 2 || apps.len() < n {
            return 0;
        }
        // Local application ids 0..n so a state packs into a u32: mask << 5 | app.
        let mut local = [0u32; MAX_NODES];
        let mut seen: Vec<u32> = Vec::with_capacity(n);
        for v in 0..n {
            local[v] = match seen.iter().position(|&a| a == apps[v]) {
                Some(i) => i as u32,
                None => {
                    seen.push(apps[v]);
                    (seen.len() - 1) as u32
                }
            };
        }
        let mut level: Vec<(u32, u8)> = Vec::new();
        for v in bits(self.available(0)) {
            level.push(((1u32 << v) << 5 | local[v], 0));
        }
        level.sort_unstable();
        level.dedup_by_key(|e| e.0);
        let mut next: Vec<(u32, u8)> = Vec::new();
        for _ in 1..n {
            next.clear();
            for &(key, score) in &level {
                let mask = key >> 5;
                let last = key & 31;
                for v in bits(self.available(mask)) {
                    let gain = u8::from(local[v] == last);
                    next.push((((mask | (1 << v)) << 5) | local[v], score + gain));
                }
            }
            // Keep the best score per state: sort by key, then by score descending.
            next.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
            level.clear();
            for &e in &next {
                if level.last().map(|l| l.0) != Some(e.0) {
                    level.push(e);
                }
            }
        }
        level.iter().map(|e| e.1 as usize).max().unwrap_or(0)
    }
}

/// The number of ways to finish a topological order from a down-set (the nodes
/// placed so far), memoised per down-set.
struct Completions<'g> {
    dag: &'g SmallDag,
    memo: std::collections::HashMap<u32, u64>,
}

impl<'g> Completions<'g> {
    fn new(dag: &'g SmallDag) -> Self {
        Completions {
            dag,
            memo: std::collections::HashMap::new(),
        }
    }

    /// Orders of the nodes outside `done` (a down-set) that respect the edges.
    fn count(&mut self, done: u32) -> u64 {
        if done == self.dag.all() {
            return 1;
        }
        if let Some(&c) = self.memo.get(&done) {
            return c;
        }
        let c = bits(self.dag.available(done))
            .map(|v| self.count(done | (1 << v)))
            .sum();
        self.memo.insert(done, c);
        c
    }
}

/// Width (maximum antichain) of the order whose strict descendant masks are `desc`
/// (one entry per node): `n` minus a maximum matching of `u → v`, `v` in `desc[u]`.
pub(crate) fn width_of_closure(desc: &[u32]) -> usize {
    let n = desc.len();
    let mut match_of_right = [u8::MAX; MAX_NODES];
    let mut matched = 0;
    for u in 0..n {
        let mut seen = 0u32;
        if augment(u, desc, &mut match_of_right, &mut seen) {
            matched += 1;
        }
    }
    n - matched
}

fn augment(u: usize, desc: &[u32], match_of_right: &mut [u8; MAX_NODES], seen: &mut u32) -> bool {
    for v in bits(desc[u] & !*seen) {
        *seen |= 1 << v;
        let m = match_of_right[v];
        if m == u8::MAX || augment(m as usize, desc, match_of_right, seen) {
            match_of_right[v] = u as u8;
            return true;
        }
    }
    false
}

/// Iterates the set bits of a mask, lowest first.
#[inline]
pub fn bits(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let v = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            Some(v)
        }
    })
}

/// Topological orders stored compactly: one byte per node, orders back to back.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Orders {
    n: u8,
    flat: Vec<u8>,
    truncated: bool,
}

impl Orders {
    /// Number of orders held.
    pub fn count(&self) -> usize {
        if self.n == 0 {
            0
        } else {
            self.flat.len() / self.n as usize
        }
    }

    /// Were more orders left out because of the cap?
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// The orders, each a slice of node indices.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        self.flat.chunks(self.n.max(1) as usize)
    }

    /// Bytes held by the orders (for memory accounting).
    pub fn heap_bytes(&self) -> usize {
        self.flat.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diamond() -> SmallDag {
        SmallDag::from_edges(4, &[(0, 1), (0, 2), (1, 3), (2, 3)]).unwrap()
    }

    #[test]
    fn diamond_measures() {
        let g = diamond();
        assert_eq!(g.edge_count(), 4);
        assert_eq!(g.depth(), 3);
        assert_eq!(g.width(), 2);
        assert_eq!(g.topo_count(), 2);
        let orders = g.orders(10);
        let listed: Vec<&[u8]> = orders.iter().collect();
        assert_eq!(listed, vec![&[0u8, 1, 2, 3][..], &[0, 2, 1, 3][..]]);
        assert!(!orders.truncated());
    }

    #[test]
    fn antichain_counts_factorial_and_truncates() {
        let g = SmallDag::new(6).unwrap();
        assert_eq!(g.topo_count(), 720);
        assert_eq!(g.width(), 6);
        assert_eq!(g.depth(), 1);
        let o = g.orders(100);
        assert_eq!(o.count(), 100);
        assert!(o.truncated());
        assert_eq!(o.iter().next().unwrap(), &[0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn spread_orders_are_evenly_ranked_orders() {
        // 0 -> 3, 1 -> 3, 2 free, 4 free: 5 nodes with 20 orders.
        let g = SmallDag::from_edges(5, &[(0, 3), (1, 3)]).unwrap();
        let all: Vec<Vec<u8>> = g.orders(usize::MAX).iter().map(<[u8]>::to_vec).collect();
        let count = g.topo_count();
        assert_eq!(all.len() as u64, count);
        let spread = g.orders_spread(4, count);
        assert!(spread.truncated());
        let listed: Vec<Vec<u8>> = spread.iter().map(<[u8]>::to_vec).collect();
        let expected: Vec<Vec<u8>> = (0..4).map(|i| all[(i * all.len()) / 4].clone()).collect();
        assert_eq!(listed, expected);
        // Not a prefix: the listed orders start with different nodes.
        assert_ne!(listed[0][0], listed[3][0]);
        // At or under the cap, every order in lexicographic order.
        assert_eq!(g.orders_spread(50, count), g.orders(50));
    }

    #[test]
    fn spread_orders_of_a_wide_graph_start_with_different_nodes() {
        let g = SmallDag::new(12).unwrap();
        let count = g.topo_count();
        let o = g.orders_spread(8, count);
        assert_eq!(o.count(), 8);
        let firsts: Vec<u8> = o.iter().map(|order| order[0]).collect();
        // Rank i/8 of 12! starts with node ⌊12·i/8⌋ (each first node owns 1/12).
        assert_eq!(firsts, [0, 1, 3, 4, 6, 7, 9, 10]);
    }

    #[test]
    fn two_chains_of_ten_interleave() {
        let mut edges = Vec::new();
        for i in 0..9 {
            edges.push((i, i + 1));
            edges.push((10 + i, 11 + i));
        }
        let g = SmallDag::from_edges(MAX_NODES, &edges).unwrap();
        assert_eq!(g.topo_count(), 184_756); // C(20, 10)
        assert_eq!(g.width(), 2);
        assert_eq!(g.depth(), 10);
    }

    #[test]
    fn rejects_cycles_and_oversize() {
        assert_eq!(
            SmallDag::from_edges(2, &[(0, 1), (1, 0)]),
            Err(DagError::Cycle)
        );
        assert_eq!(
            SmallDag::from_edges(2, &[(1, 1)]),
            Err(DagError::SelfLoop(1))
        );
        assert!(matches!(
            SmallDag::new(21),
            Err(DagError::TooManyNodes { .. })
        ));
    }

    #[test]
    fn cs_max_prefers_grouping_applications() {
        // 0 and 2 are in app A, 1 in app B, no edges: best order groups A together.
        let g = SmallDag::new(3).unwrap();
        assert_eq!(g.cs_max(&[7, 8, 7]), 1);
        // Chain A -> B -> A: no two adjacent equal.
        let g = SmallDag::from_edges(3, &[(0, 1), (1, 2)]).unwrap();
        assert_eq!(g.cs_max(&[7, 8, 7]), 0);
    }
}
