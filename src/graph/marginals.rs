//! The level shares of the tasks a request made, compared with its profile.
//!
//! A profile (OmniBench figure 3, or uniform) sets, for every dimension without
//! an explicit target or capability constraint, the share of easy, medium and hard
//! tasks. The composer draws each slot's level combination from it, but a slot
//! that keeps failing redraws, so what the pool cannot supply is replaced by what
//! it can: the made shares drift. [`drift`] names every level whose made share is
//! more than a tolerance away from the profile's, so the stage can say so and
//! store it instead of drifting silently. No I/O.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::graph::spec::{dim_index, ComposeSpec, Target};
use crate::model::{Dimension, Level, Levels};
use crate::resources::Catalog;

/// How far (in percentage points) a made share may be from the profile's.
pub const TOLERANCE_POINTS: f64 = 3.0;

/// Tasks per level of each dimension (indexed like [`Dimension::ALL`] and
/// [`Level::ALL`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marginals {
    pub counts: [[usize; 3]; 5],
    pub total: usize,
}

impl Marginals {
    /// Counts one task's levels.
    pub fn add(&mut self, levels: &Levels) {
        for (i, d) in Dimension::ALL.iter().enumerate() {
            let l = levels.get(*d);
            let k = Level::ALL.iter().position(|x| *x == l).unwrap_or(0);
            self.counts[i][k] += 1;
        }
        self.total += 1;
    }

    /// The share of tasks at `level` of dimension index `dim`, in percent.
    pub fn percent(&self, dim: usize, level: usize) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            100.0 * self.counts[dim][level] as f64 / self.total as f64
        }
    }
}

/// One level whose made share is off the profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Drift {
    pub dimension: Dimension,
    pub level: Level,
    pub made_percent: f64,
    pub profile_percent: f64,
}

impl fmt::Display for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}={} {:.1}% (profile {:.1}%)",
            self.dimension, self.level, self.made_percent, self.profile_percent
        )
    }
}

/// The profile's share of each level of each dimension it governs, in percent:
/// `None` for a dimension fixed by an explicit target or by the capability (and
/// for every dimension of the free profile).
pub fn profile_shares(spec: &ComposeSpec, catalog: &Catalog) -> [Option<[f64; 3]>; 5] {
    let mut out = [None; 5];
    let Some(dist) = spec.profile.distribution() else {
        return out;
    };
    let capability = spec
        .capability
        .as_deref()
        .and_then(|name| catalog.capability(name));
    for d in Dimension::ALL {
        let fixed = spec.targets.get(&d).is_some_and(|t| *t != Target::Any)
            || capability.is_some_and(|c| c.constraints.contains_key(&d));
        if fixed {
            continue;
        }
        let i = dim_index(d);
        let row = dist[i];
        let sum: f64 = row.iter().sum();
        if sum > 0.0 {
            out[i] = Some(row.map(|w| 100.0 * w / sum));
        }
    }
    out
}

/// The levels whose made share is more than `tolerance` points from the
/// profile's, and beyond sampling noise: with few tasks a fair draw strays
/// further, so the allowance is at least two standard errors of the share
/// (`200·√(p(1−p)/n)` points; about 15 points for 40 tasks, 0.5 for 36,076).
/// None when nothing was made.
pub fn drift(made: &Marginals, shares: &[Option<[f64; 3]>; 5], tolerance: f64) -> Vec<Drift> {
    let mut out = Vec::new();
    if made.total == 0 {
        return out;
    }
    for (i, share) in shares.iter().enumerate() {
        let Some(share) = share else { continue };
        for (k, &want) in share.iter().enumerate() {
            let got = made.percent(i, k);
            let p = want / 100.0;
            let noise = 200.0 * (p * (1.0 - p) / made.total as f64).sqrt();
            if (got - want).abs() > tolerance.max(noise) {
                out.push(Drift {
                    dimension: Dimension::ALL[i],
                    level: Level::ALL[k],
                    made_percent: got,
                    profile_percent: want,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::spec::Profile;

    #[test]
    fn uniform_profile_drift_is_named_per_level() {
        let spec = ComposeSpec {
            profile: Profile::Uniform,
            ..ComposeSpec::default()
        };
        let catalog = crate::graph::synthetic::synthetic_catalog().unwrap();
        let shares = profile_shares(&spec, &catalog);
        let mut m = Marginals::default();
        for _ in 0..1000 {
            for l in Level::ALL {
                m.add(&Levels::uniform(l));
            }
        }
        assert!(drift(&m, &shares, TOLERANCE_POINTS).is_empty());
        // Only hard tasks: every level of every dimension is off.
        let mut hard = Marginals::default();
        for _ in 0..1000 {
            hard.add(&Levels::uniform(Level::Hard));
        }
        let d = drift(&hard, &shares, TOLERANCE_POINTS);
        assert_eq!(d.len(), 15);
        assert_eq!(d[2].to_string(), "dependency=hard 100.0% (profile 33.3%)");
        // One task is easy at every dimension: that says nothing of its profile.
        let mut few = Marginals::default();
        few.add(&Levels::uniform(Level::Easy));
        let noisy = drift(&few, &shares, TOLERANCE_POINTS);
        assert!(noisy.is_empty(), "{noisy:?}");
    }

    #[test]
    fn explicit_targets_and_the_free_profile_set_no_share() {
        let mut spec = ComposeSpec::default();
        spec.targets
            .insert(Dimension::Branch, Target::Level(Level::Hard));
        let catalog = crate::graph::synthetic::synthetic_catalog().unwrap();
        let shares = profile_shares(&spec, &catalog);
        assert!(shares[dim_index(Dimension::Branch)].is_none());
        assert!(shares[dim_index(Dimension::Dependency)].is_some());
        spec.profile = Profile::Free;
        assert!(profile_shares(&spec, &catalog).iter().all(Option::is_none));
    }
}
