//! What a composition request can give on a pool, before composing it
//! (`synth compose --plan`).
//!
//! A profile draws each task's level combination over the dimensions it governs
//! (those without an explicit target or capability constraint). For every such
//! combination this module reports the profile's probability of drawing it,
//! whether any DAG of the request's shape (connected, unless it allows side
//! work) can meet it at all (and why not), and how much the
//! pool supplies: a probe composes a few tasks asked with exactly those levels
//! (same scopes, same seed) and counts how many it made. The expected
//! distribution weighs each combination's profile probability by its probed
//! supply rate and sums per level: what a large request can be expected to make
//! once slots whose combination the pool cannot supply draw another. It is an
//! estimate from a small probe, and says so. No I/O.

use std::fmt;

use serde::Serialize;

use crate::graph::compose::{compose_with, ComposeError};
use crate::graph::marginals::profile_shares;
use crate::graph::pool::{Pool, Scope};
use crate::graph::spec::{ComposeSpec, Target};
use crate::model::{Dimension, Level};

/// One level combination of the request.
#[derive(Debug, Clone, Serialize)]
pub struct PlannedCombo {
    /// The levels of the profile-drawn dimensions.
    pub levels: Vec<(Dimension, Level)>,
    /// The profile's probability of drawing it, in percent.
    pub profile_percent: f64,
    /// Why no DAG of the request's shape can meet it (`None`: some can).
    pub impossible: Option<String>,
    /// Probe tasks asked with exactly these levels, and made.
    pub probe_asked: usize,
    pub probe_made: usize,
}

impl PlannedCombo {
    fn label(&self) -> String {
        self.levels
            .iter()
            .map(|(d, l)| format!("{d}={l}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Made per asked in the probe (0 for an impossible combination).
    pub fn supply_rate(&self) -> f64 {
        if self.probe_asked == 0 {
            0.0
        } else {
            self.probe_made as f64 / self.probe_asked as f64
        }
    }
}

/// The whole plan.
#[derive(Debug, Clone, Serialize)]
pub struct CompositionPlan {
    /// The dimensions the profile draws (the others are fixed by targets or the
    /// capability, or free).
    pub drawn: Vec<Dimension>,
    pub combos: Vec<PlannedCombo>,
    /// Per drawn dimension: the profile's shares and the expected shares, in
    /// percent (easy, medium, hard).
    pub marginals: Vec<(Dimension, [f64; 3], [f64; 3])>,
}

/// A combination is short of supply when its probe made less than this share.
pub const SHORT_BELOW: f64 = 0.5;

/// Plans `spec` on `pool` (see the module docs), probing each possible
/// combination with `probe` tasks. Runs on the current rayon pool.
///
/// # Errors
/// The request's own errors (unknown capability, conflicts, bad node limits, an
/// impossible fixed part) and [`ComposeError::NoRoots`].
pub fn plan_composition(
    pool: &Pool<'_>,
    scopes: &[Scope],
    spec: &ComposeSpec,
    probe: usize,
) -> Result<CompositionPlan, ComposeError> {
    // The request's fixed part must be valid on its own.
    compose_with(
        pool,
        scopes,
        &ComposeSpec {
            count: 0,
            ..spec.clone()
        },
        |_| {},
    )?;
    let shares = profile_shares(spec, pool.catalog());
    let drawn: Vec<usize> = (0..5).filter(|&i| shares[i].is_some()).collect();
    let mut combos = Vec::new();
    for code in 0..3usize.pow(drawn.len() as u32) {
        let mut c = code;
        let mut levels = Vec::new();
        let mut p = 1.0;
        let mut asked = spec.clone();
        for &i in &drawn {
            let k = c % 3;
            c /= 3;
            let (d, l) = (Dimension::ALL[i], Level::ALL[k]);
            levels.push((d, l));
            p *= shares[i].map_or(0.0, |s| s[k]) / 100.0;
            asked.targets.insert(d, Target::Level(l));
        }
        asked.count = probe;
        asked.max_attempts = probe * 50;
        let mut made = 0;
        let impossible = match compose_with(pool, scopes, &asked, |_| made += 1) {
            Ok(_) => None,
            Err(ComposeError::Infeasible { explanation }) => Some(explanation),
            Err(e) => return Err(e),
        };
        combos.push(PlannedCombo {
            levels,
            profile_percent: 100.0 * p,
            probe_asked: if impossible.is_some() { 0 } else { probe },
            probe_made: made,
            impossible,
        });
    }
    let total: f64 = combos
        .iter()
        .map(|c| c.profile_percent * c.supply_rate())
        .sum();
    let marginals = drawn
        .iter()
        .enumerate()
        .map(|(pos, &i)| {
            let mut expected = [0.0; 3];
            for c in &combos {
                let k = Level::ALL
                    .iter()
                    .position(|l| *l == c.levels[pos].1)
                    .unwrap_or(0);
                expected[k] += c.profile_percent * c.supply_rate();
            }
            if total > 0.0 {
                expected = expected.map(|e| 100.0 * e / total);
            }
            (Dimension::ALL[i], shares[i].unwrap_or([0.0; 3]), expected)
        })
        .collect();
    Ok(CompositionPlan {
        drawn: drawn.iter().map(|&i| Dimension::ALL[i]).collect(),
        combos,
        marginals,
    })
}

impl fmt::Display for CompositionPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.drawn.is_empty() {
            return writeln!(
                f,
                "no dimension is drawn from a profile (every one is fixed or free): one combination"
            );
        }
        let impossible: Vec<&PlannedCombo> = self
            .combos
            .iter()
            .filter(|c| c.impossible.is_some())
            .collect();
        let lost: f64 = impossible.iter().map(|c| c.profile_percent).sum();
        writeln!(
            f,
            "impossible ({} combinations, {lost:.1}% of the profile; no DAG of the request's shape meets them):",
            impossible.len()
        )?;
        for c in &impossible {
            writeln!(
                f,
                "  {} ({:.2}%): {}",
                c.label(),
                c.profile_percent,
                c.impossible.as_deref().unwrap_or("")
            )?;
        }
        let short: Vec<&PlannedCombo> = self
            .combos
            .iter()
            .filter(|c| c.impossible.is_none() && c.supply_rate() < SHORT_BELOW)
            .collect();
        let probe = self.combos.iter().map(|c| c.probe_asked).max().unwrap_or(0);
        writeln!(
            f,
            "short of supply on this pool ({} combinations; the probe made fewer than {:.0}% of {probe}):",
            short.len(),
            100.0 * SHORT_BELOW
        )?;
        for c in &short {
            writeln!(
                f,
                "  {} ({:.2}%): made {} of {}",
                c.label(),
                c.profile_percent,
                c.probe_made,
                c.probe_asked
            )?;
        }
        writeln!(
            f,
            "expected distribution (estimate from the probe) vs profile, easy/medium/hard %:"
        )?;
        for (d, want, got) in &self.marginals {
            writeln!(
                f,
                "  {:<11} {:>5.1} {:>5.1} {:>5.1}   profile {:>5.1} {:>5.1} {:>5.1}",
                d.to_string(),
                got[0],
                got[1],
                got[2],
                want[0],
                want[1],
                want[2]
            )?;
        }
        Ok(())
    }
}
