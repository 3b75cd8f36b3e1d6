//! Sets on a category's own work: once an application's proposals are made,
//! each gets a few more parameter sets whose first file is one made within
//! the application's category (Office: a brief drafted in Text Editor opened
//! in Writer, a workbook totalled in Sheets whose cells are copied), so that a
//! task can stay in one category for five or more nodes (the capability
//! `domain_specific_knowledge`).
//!
//! The walk of [`OfflineExplorer::try_plan`] prefers files other categories
//! made (chains that cross applications) and never hands an application a
//! file it made; left to it, a category's applications seldom hand on to
//! each other in one topic. Here a file the application made itself is
//! taken too, when the plan saves no file of that kind: copying the cells of
//! a workbook it totalled, or exporting a document it styled with a table
//! pasted in, is a second step on a new file, while changing a file and
//! saving it again as the same kind is one sitting (the composer never
//! orders such a pair).
//!
//! Topics are ranked alike for every application of a category (by the
//! desktop files of the topic that the category opens, then in file order),
//! so that their sets meet on the same subjects: a table copied in Sheets is
//! pasted into a document of the same topic in Writer.
//!
//! Owns choosing those files; [`OfflineExplorer::propose`] runs the sets
//! through `try_plan` as presets, adds what verifies to the proposal, and
//! puts each proposal after those that make what its sets read.

use std::collections::{BTreeMap, BTreeSet};

use super::{edited_slots, hash64, input_slots_files_first, OfflineExplorer};
use crate::llm::KnownResource;
use crate::model::ParameterSet;
use crate::pipeline::explore::paths::{self, Plan, SlotRole, Step};

/// More sets a proposal gets on files made within its category.
pub(super) const DOMAIN_SETS: usize = 3;

impl OfflineExplorer {
    /// Presets (the first file slot only; the rest is walked to fit) on files
    /// made within the category of `app`, in the order [`domain_order`]
    /// gives, without values `used` already takes for that slot.
    pub(super) fn domain_presets(
        &self,
        plan: &Plan,
        app: &str,
        known: &[KnownResource],
        used: &[ParameterSet],
    ) -> Vec<ParameterSet> {
        let Some(category) = self.category_of(app) else {
            return Vec::new();
        };
        let Some(slot) = input_slots_files_first(plan).into_iter().next() else {
            return Vec::new();
        };
        let SlotRole::InputPath { kind } = &slot.role else {
            return Vec::new();
        };
        // A value readers type (an address) is read as the desktop has it.
        if self.catalog.kinds.get(kind).is_some_and(|k| k.typed) {
            return Vec::new();
        }
        let saves_kind = plan.produces.contains(kind)
            || plan
                .slots
                .iter()
                .any(|s| matches!(&s.role, SlotRole::OutputPath { kind: k, .. } if k == kind));
        let selects = plan.steps.iter().any(|st| {
            matches!(st, Step::SelectPath { slot: s, .. } | Step::OpenPath { slot: s, .. } if s == &slot.name)
        });
        let suits = self.suits(plan);
        let edited = edited_slots(plan).contains(&slot.name.as_str());
        let in_category = |r: &KnownResource| {
            r.source != "desktop"
                && self.category_of(&r.source).as_deref() == Some(category.as_str())
        };
        let cands: Vec<&KnownResource> = known
            .iter()
            .filter(|r| &r.kind == kind && in_category(r))
            // Its own file only for a plan that makes no file of its kind.
            .filter(|r| r.source != app || !saves_kind)
            .filter(|r| {
                r.parameter.as_deref().is_some_and(|p| {
                    !p.contains(['{', '}', '\'', '"'])
                        && (!selects || p.starts_with(crate::env::sim::vfs::HOME))
                        && !used
                            .iter()
                            .any(|set| set.get(&slot.name).map(String::as_str) == Some(p))
                })
            })
            // No capture of the screen made from nothing (it shows no work).
            .filter(|r| {
                !(r.made_from.is_empty()
                    && r.shows.as_deref().is_some_and(|s| s.starts_with("screen ")))
            })
            // An edit only on content it suits, as the walk has it.
            .filter(|r| match (&suits, &r.shows) {
                (Some(suits), Some(shown)) => !edited || suits.contains(shown),
                _ => true,
            })
            .collect();
        let topics = &self.catalog.topics;
        let opened = self.opened_in(&category);
        let on_desktop = |r: &KnownResource| r.source == "desktop" && opened.contains(&r.kind);
        let work = domain_work(known, on_desktop, |v| topics.topic_of(v));
        domain_order(cands, &work, |v| topics.topic_of(v))
            .into_iter()
            .take(DOMAIN_SETS)
            .map(|v| ParameterSet::from([(slot.name.clone(), v)]))
            .collect()
    }

    /// The category of application `app` in its spec.
    fn category_of(&self, app: &str) -> Option<String> {
        self.desktop.spec(app).map(|a| a.spec.category.clone())
    }

    /// The file kinds the applications of `category` open as their document
    /// (a plan's first file, not a picture put into it).
    fn opened_in(&self, category: &str) -> BTreeSet<String> {
        self.desktop
            .specs()
            .iter()
            .filter(|a| a.spec.category == category)
            .flat_map(|a| paths::plans(&a.spec, &self.catalog))
            .filter_map(|p| p.input_path_kinds().into_iter().next())
            .collect()
    }
}

/// How many of `counted` (the desktop's files the category opens) each topic
/// has: how much work of the category it holds. Every application of the
/// category ranks the topics alike, so their sets meet on the same subjects.
fn domain_work(
    known: &[KnownResource],
    counted: impl Fn(&KnownResource) -> bool,
    topic_of: impl Fn(&str) -> Option<usize>,
) -> BTreeMap<usize, usize> {
    let mut work = BTreeMap::new();
    for r in known.iter().filter(|r| counted(r)) {
        if let Some(t) = r.parameter.as_deref().and_then(&topic_of) {
            *work.entry(t).or_insert(0) += 1;
        }
    }
    work
}

/// The candidates' values, one per topic first (the topics with the most
/// work of the category first, then in file order), the deepest file of a
/// topic first (the most hand-offs behind it), ties by name hash; files of
/// no topic last.
fn domain_order(
    mut cands: Vec<&KnownResource>,
    work: &BTreeMap<usize, usize>,
    topic_of: impl Fn(&str) -> Option<usize>,
) -> Vec<String> {
    let value = |r: &KnownResource| r.parameter.clone().unwrap_or_default();
    let rank = |r: &KnownResource| {
        let topic = topic_of(&value(r));
        let done = topic.and_then(|t| work.get(&t)).copied().unwrap_or(0);
        (
            topic.is_none(),
            std::cmp::Reverse(done),
            topic,
            std::cmp::Reverse(r.depth),
            hash64(&value(r)),
        )
    };
    cands.sort_by_cached_key(|r| rank(r));
    // One per topic in the first round, then the rest in order.
    let mut seen = Vec::new();
    let (mut first, mut rest) = (Vec::new(), Vec::new());
    for r in cands {
        let topic = topic_of(&value(r));
        if topic.is_some() && !seen.contains(&topic) {
            seen.push(topic);
            first.push(value(r));
        } else {
            rest.push(value(r));
        }
    }
    first.extend(rest);
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    fn made(path: &str, depth: u32) -> KnownResource {
        KnownResource::new("xlsx_path", Some(path.into()), "Sheets", depth)
    }

    #[test]
    fn the_busiest_topic_leads_and_each_topic_offers_its_deepest_file_first() {
        let topic_of = |v: &str| {
            if v.contains("sales") {
                Some(0)
            } else if v.contains("trip") {
                Some(1)
            } else {
                None
            }
        };
        let a = made("/d/sales_totals.xlsx", 1);
        let b = made("/d/sales_chart_totals.xlsx", 2);
        let c = made("/d/trip_costs.xlsx", 3);
        let d = made("/d/welcome.xlsx", 5);
        let work = BTreeMap::from([(0, 4), (1, 1)]);
        let order = domain_order(vec![&a, &b, &c, &d], &work, topic_of);
        assert_eq!(
            order,
            [
                "/d/sales_chart_totals.xlsx",
                "/d/trip_costs.xlsx",
                "/d/sales_totals.xlsx",
                "/d/welcome.xlsx"
            ]
        );
    }
}
