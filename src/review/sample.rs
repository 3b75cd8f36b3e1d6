//! Which tasks go on a review sheet: a deterministic sample spread over node
//! counts first and capabilities second, so a small sheet shows small and large
//! graphs of every kind rather than the first few composed.

use std::collections::{BTreeMap, VecDeque};

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// What the sample spreads over, for one candidate task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub nodes: usize,
    /// The capabilities the task tests, joined (one group per combination).
    pub capabilities: String,
}

/// The candidates of one node count, grouped by capabilities; `take` goes round
/// the groups so consecutive picks differ in capability where possible.
struct Bucket {
    groups: Vec<VecDeque<usize>>,
    next: usize,
}

impl Bucket {
    fn take(&mut self) -> Option<usize> {
        for _ in 0..self.groups.len() {
            let g = self.next;
            self.next = (self.next + 1) % self.groups.len();
            if let Some(i) = self.groups[g].pop_front() {
                return Some(i);
            }
        }
        None
    }
}

/// Indices of `n` candidates (all of them when there are fewer), the same for the
/// same candidates and seed: round after round, one from each node count (the
/// counts in a seeded order), each time from the next capability group of that
/// count, each group in a seeded order. Returned in ascending index order.
pub fn spread(candidates: &[Candidate], n: usize, seed: u64) -> Vec<usize> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut by_nodes: BTreeMap<usize, BTreeMap<&str, Vec<usize>>> = BTreeMap::new();
    for (i, c) in candidates.iter().enumerate() {
        by_nodes
            .entry(c.nodes)
            .or_default()
            .entry(c.capabilities.as_str())
            .or_default()
            .push(i);
    }
    let mut buckets: Vec<Bucket> = by_nodes
        .into_values()
        .map(|groups| Bucket {
            groups: groups
                .into_values()
                .map(|mut g| {
                    g.shuffle(&mut rng);
                    g.into()
                })
                .collect(),
            next: 0,
        })
        .collect();
    buckets.shuffle(&mut rng);
    let mut picked = Vec::new();
    let mut progress = true;
    while picked.len() < n && progress {
        progress = false;
        for b in &mut buckets {
            if picked.len() == n {
                break;
            }
            if let Some(i) = b.take() {
                picked.push(i);
                progress = true;
            }
        }
    }
    picked.sort_unstable();
    picked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cands(spec: &[(usize, &str)]) -> Vec<Candidate> {
        spec.iter()
            .map(|&(nodes, c)| Candidate {
                nodes,
                capabilities: c.into(),
            })
            .collect()
    }

    #[test]
    fn every_node_count_before_any_twice() {
        let c = cands(&[
            (2, "a"),
            (2, "a"),
            (2, "b"),
            (2, "a"),
            (3, "a"),
            (3, "b"),
            (5, "c"),
        ]);
        for seed in 0..20 {
            let picked = spread(&c, 3, seed);
            let mut nodes: Vec<usize> = picked.iter().map(|&i| c[i].nodes).collect();
            nodes.sort_unstable();
            assert_eq!(nodes, [2, 3, 5], "seed {seed}");
            // Six picks: node count 2 gives both of its capabilities.
            let six = spread(&c, 6, seed);
            let twos: Vec<&str> = six
                .iter()
                .filter(|&&i| c[i].nodes == 2)
                .map(|&i| c[i].capabilities.as_str())
                .collect();
            assert!(
                twos.contains(&"a") && twos.contains(&"b"),
                "seed {seed}: {twos:?}"
            );
        }
    }

    #[test]
    fn deterministic_sorted_and_capped() {
        let c = cands(&[(2, "a"), (2, "a"), (2, "a"), (2, "a"), (4, "b")]);
        assert_eq!(spread(&c, 3, 7), spread(&c, 3, 7));
        let p = spread(&c, 3, 7);
        assert!(p.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(spread(&c, 50, 1), vec![0, 1, 2, 3, 4]);
        assert!(spread(&c, 0, 1).is_empty());
        assert!(spread(&[], 3, 1).is_empty());
    }
}
