//! The acceptance arithmetic of review marks: a [`Tally`] per group (overall, per
//! capability, per dimension and level) and the rejection reasons grouped by their
//! normalised text. Pure functions over marks and task facts.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::model::{Dimension, Level, Levels};

/// Accepted out of reviewed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(into = "TallyJson")]
pub struct Tally {
    pub accepted: usize,
    pub reviewed: usize,
}

/// The JSON of a tally: the counts and the rate (null when nothing was reviewed).
#[derive(Serialize)]
struct TallyJson {
    accepted: usize,
    rejected: usize,
    reviewed: usize,
    rate: Option<f64>,
}

impl From<Tally> for TallyJson {
    fn from(t: Tally) -> Self {
        TallyJson {
            accepted: t.accepted,
            rejected: t.rejected(),
            reviewed: t.reviewed,
            rate: t.rate(),
        }
    }
}

impl Tally {
    pub fn add(&mut self, accepted: bool) {
        self.reviewed += 1;
        if accepted {
            self.accepted += 1;
        }
    }

    pub fn rejected(&self) -> usize {
        self.reviewed - self.accepted
    }

    /// accepted / reviewed, or None when nothing was reviewed.
    pub fn rate(&self) -> Option<f64> {
        (self.reviewed > 0).then(|| self.accepted as f64 / self.reviewed as f64)
    }
}

impl fmt::Display for Tally {
    /// `7/9 accepted (77.8%)`; `0/0 accepted (–)` when empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{} accepted (", self.accepted, self.reviewed)?;
        match self.rate() {
            Some(r) => write!(f, "{:.1}%)", 100.0 * r),
            None => f.write_str("–)"),
        }
    }
}

/// What the arithmetic needs to know about one marked task.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkedTask {
    pub task_id: String,
    pub accepted: bool,
    pub reason: String,
    /// Capability names the task tests (empty: counted under `(none)`).
    pub capabilities: Vec<String>,
    /// None for a task stored without a complexity record.
    pub levels: Option<Levels>,
}

/// One capability's tally.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CapabilityTally {
    pub capability: String,
    #[serde(flatten)]
    pub tally: Tally,
}

/// One dimension level's tally.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LevelTally {
    pub dimension: Dimension,
    pub level: Level,
    #[serde(flatten)]
    pub tally: Tally,
}

/// Rejections that gave the same reason (compared without case, surrounding
/// space, repeated space or a final full stop).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReasonGroup {
    /// The reason as first written (space collapsed).
    pub reason: String,
    pub count: usize,
    pub tasks: Vec<String>,
}

/// Acceptance over a set of marks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Acceptance {
    pub overall: Tally,
    /// By capability name.
    pub per_capability: Vec<CapabilityTally>,
    /// Dimension by dimension, easy to hard; levels no reviewed task has are left out.
    pub per_level: Vec<LevelTally>,
    /// Most frequent first.
    pub rejection_reasons: Vec<ReasonGroup>,
}

/// Capability name for tasks that test none of the catalogue's capabilities.
pub const NO_CAPABILITY: &str = "(none)";
/// Reason shown for rejections without one.
pub const NO_REASON: &str = "(no reason given)";

/// Tallies the marks overall, per capability (a task counts once under each
/// capability it tests) and per level of each dimension.
pub fn acceptance(marks: &[MarkedTask]) -> Acceptance {
    let mut overall = Tally::default();
    let mut caps: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut levels: BTreeMap<(Dimension, Level), Tally> = BTreeMap::new();
    for m in marks {
        overall.add(m.accepted);
        if m.capabilities.is_empty() {
            caps.entry(NO_CAPABILITY).or_default().add(m.accepted);
        }
        for c in &m.capabilities {
            caps.entry(c.as_str()).or_default().add(m.accepted);
        }
        for d in Dimension::ALL {
            if let Some(l) = m.levels {
                levels.entry((d, l.get(d))).or_default().add(m.accepted);
            }
        }
    }
    Acceptance {
        overall,
        per_capability: caps
            .into_iter()
            .map(|(c, tally)| CapabilityTally {
                capability: c.to_string(),
                tally,
            })
            .collect(),
        per_level: levels
            .into_iter()
            .map(|((dimension, level), tally)| LevelTally {
                dimension,
                level,
                tally,
            })
            .collect(),
        rejection_reasons: reasons(marks),
    }
}

/// Whitespace collapsed to single spaces, trimmed.
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The grouping key of a reason.
fn reason_key(s: &str) -> String {
    collapse(s).trim_end_matches('.').trim_end().to_lowercase()
}

/// The rejected marks' reasons grouped, most frequent first (ties by text).
fn reasons(marks: &[MarkedTask]) -> Vec<ReasonGroup> {
    let mut groups: BTreeMap<String, ReasonGroup> = BTreeMap::new();
    for m in marks.iter().filter(|m| !m.accepted) {
        let key = reason_key(&m.reason);
        let g = groups.entry(key).or_insert_with(|| ReasonGroup {
            reason: match collapse(&m.reason) {
                r if r.is_empty() => NO_REASON.to_string(),
                r => r,
            },
            count: 0,
            tasks: Vec::new(),
        });
        g.count += 1;
        g.tasks.push(m.task_id.clone());
    }
    let mut out: Vec<ReasonGroup> = groups.into_values().collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.reason.cmp(&b.reason)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn levels(dep: Level) -> Levels {
        Levels {
            dependency: dep,
            instruction: Level::Easy,
            knowledge: Level::Medium,
            hierarchy: Level::Easy,
            branch: Level::Hard,
        }
    }

    fn mark(id: &str, accepted: bool, reason: &str, caps: &[&str], dep: Level) -> MarkedTask {
        MarkedTask {
            task_id: id.into(),
            accepted,
            reason: reason.into(),
            capabilities: caps.iter().map(|c| c.to_string()).collect(),
            levels: Some(levels(dep)),
        }
    }

    #[test]
    fn tally_formats_counts_and_rate() {
        let mut t = Tally::default();
        assert_eq!(t.to_string(), "0/0 accepted (–)");
        assert_eq!(t.rate(), None);
        for ok in [true, true, false, true, true, true, true, false, true] {
            t.add(ok);
        }
        assert_eq!(t.to_string(), "7/9 accepted (77.8%)");
        assert_eq!(t.rejected(), 2);
        let json = serde_json::to_value(t).unwrap();
        assert_eq!(json["accepted"], 7);
        assert_eq!(json["rejected"], 2);
        assert_eq!(json["reviewed"], 9);
        assert!((json["rate"].as_f64().unwrap() - 7.0 / 9.0).abs() < 1e-12);
    }

    #[test]
    fn acceptance_counts_each_capability_and_level() {
        let marks = [
            mark("a", true, "", &["parallel_planning"], Level::Hard),
            mark(
                "b",
                false,
                "Vague.",
                &["parallel_planning", "long_range_planning"],
                Level::Hard,
            ),
            mark("c", false, "  vague ", &[], Level::Easy),
            mark("d", true, "fine", &["long_range_planning"], Level::Easy),
            mark("e", false, "", &[], Level::Medium),
        ];
        let a = acceptance(&marks);
        assert_eq!(
            a.overall,
            Tally {
                accepted: 2,
                reviewed: 5
            }
        );
        let caps: Vec<(String, String)> = a
            .per_capability
            .iter()
            .map(|c| (c.capability.clone(), c.tally.to_string()))
            .collect();
        assert_eq!(
            caps,
            [
                ("(none)".to_string(), "0/2 accepted (0.0%)".to_string()),
                ("long_range_planning".into(), "1/2 accepted (50.0%)".into()),
                ("parallel_planning".into(), "1/2 accepted (50.0%)".into()),
            ]
        );
        let dep: Vec<(Level, Tally)> = a
            .per_level
            .iter()
            .filter(|l| l.dimension == Dimension::Dependency)
            .map(|l| (l.level, l.tally))
            .collect();
        assert_eq!(
            dep,
            [
                (
                    Level::Easy,
                    Tally {
                        accepted: 1,
                        reviewed: 2
                    }
                ),
                (
                    Level::Medium,
                    Tally {
                        accepted: 0,
                        reviewed: 1
                    }
                ),
                (
                    Level::Hard,
                    Tally {
                        accepted: 1,
                        reviewed: 2
                    }
                ),
            ]
        );
        // Branch is hard for every task: one level only, no empty rows.
        let branch: Vec<_> = a
            .per_level
            .iter()
            .filter(|l| l.dimension == Dimension::Branch)
            .collect();
        assert_eq!(branch.len(), 1);
        assert_eq!(branch[0].tally.reviewed, 5);
        assert_eq!(
            a.rejection_reasons,
            [
                ReasonGroup {
                    reason: "Vague.".into(),
                    count: 2,
                    tasks: vec!["b".into(), "c".into()]
                },
                ReasonGroup {
                    reason: NO_REASON.into(),
                    count: 1,
                    tasks: vec!["e".into()]
                },
            ]
        );
    }

    #[test]
    fn tasks_without_complexity_count_overall_only() {
        let mut m = mark("a", true, "", &[], Level::Easy);
        m.levels = None;
        let a = acceptance(&[m]);
        assert_eq!(a.overall.reviewed, 1);
        assert!(a.per_level.is_empty());
    }
}
