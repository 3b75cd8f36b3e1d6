//! The offline explorer: a rule-based [`OfflineRole`] for [`ExploreRequest`].
//!
//! It walks the application's screens and effects ([`super::paths::plans`]), picks
//! parameter values (inputs among the request's `known_resources`, so chains across
//! applications form; outputs as new names derived from the input's stem), runs
//! each path in a copy of the desktop (a [`Replica`], from the stage's desktop
//! factory) on which every known resource holds, and proposes only what really
//! made its outputs hold. Instructions are
//! worded from the effects' `describe` phrases. Once an application's
//! proposals are made, each gets a few sets on its own category's work
//! ([`domain`]), so that tasks can keep to one category.
//!
//! Deterministic: every choice is seeded by a hash of the request's content.

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

use super::paths::{self, Plan, SlotRole, Step};
use crate::env::sim::{vfs, Clipboard};
use crate::env::spec::{Op, COLLECTIONS};
use crate::env::Replica;
use crate::llm::{ExploreRequest, KnownResource, LlmError, OfflineRole, Outcome, SubtaskProposal};
use crate::model::ParameterSet;
use crate::resources::{Catalog, Resource};
use crate::topics::Topics;

mod domain;

/// A plan to try, with the parameter sets chosen for it beforehand (a
/// bundle's, [`OfflineExplorer::bundle_plans`]); with none, the inputs are
/// walked from the request's known resources.
#[derive(Clone, Copy)]
struct Attempt<'a> {
    plan: &'a Plan,
    presets: &'a [ParameterSet],
}

/// Bundle plans (several applications' files gathered into one archive or mail)
/// proposed per application at most ([`OfflineExplorer::bundle_plans`]). A
/// bundle's sets come from the few topics that fill its list of kinds, and
/// bundles are what make tasks of five branches: with 6 on the 52-topic
/// desktop, which topics got one was chance, and a change of wording elsewhere
/// left the default run without any five-branch task.
const BUNDLE_PLANS: usize = 16;

/// Bundle plans tried per application: some fail (a file in a folder the
/// application's list does not reach).
const BUNDLE_TRIES: usize = 40;

/// Bundles tried per topic, each starting from another of its made files
/// ([`OfflineExplorer::bundle_pick`]): the composer places only some (a
/// web page printed as text is no deliverable), so a topic offers several.
const BUNDLE_PICKS: usize = 4;

/// Parameter sets tried per proposal. The desktop has about 50 topics and a
/// task keeps to one, so a subtask's sets are spread over them; twice the 9
/// of the 20-topic desktop (issue 14: a pool with combinatorial reach).
const SETS_PER_SUBTASK: usize = 18;
/// Parameter sets tried for a subtask with two or more inputs: its inputs must
/// keep to one topic, so more sets give the composer joins within every topic.
const SETS_PER_JOIN: usize = 18;

/// Parameter sets tried for a subtask that only sends or files what it reads
/// (a mail, a to-do): every chain of work may end in one, so it takes more of
/// the files made.
const SETS_PER_DELIVERY: usize = 24;
/// Most sets a join gains after its walk, each joining two files made apart
/// from one (see `siblings_of_first`).
const DIAMOND_SETS: usize = 4;

/// The rule-based explorer.
pub struct OfflineExplorer {
    desktop: Box<dyn Replica>,
    catalog: Catalog,
    /// The desktop's own files as (folder, stem): what a made file's name goes
    /// back to ([`root_stem`]).
    originals: BTreeSet<(String, String)>,
    /// The paths of the desktop's own files.
    desktop_files: BTreeSet<String>,
}

impl OfflineExplorer {
    /// An explorer on copies of `desktop` (whose state the explorer searches).
    pub fn new(desktop: &dyn Replica, catalog: &Catalog) -> OfflineExplorer {
        let originals = desktop
            .current_resources()
            .iter()
            .filter_map(|r| r.parameter.as_deref())
            .filter(|p| p.starts_with('/'))
            .map(|p| (vfs::parent(p).to_string(), stem_of(p)))
            .collect();
        let desktop_files = desktop
            .current_resources()
            .into_iter()
            .filter_map(|r| r.parameter)
            .filter(|p| p.starts_with('/'))
            .collect();
        OfflineExplorer {
            desktop: desktop.fork(),
            catalog: catalog.clone(),
            originals,
            desktop_files,
        }
    }

    /// Proposals for one request (empty when the application has no usable path).
    pub fn propose(&self, req: &ExploreRequest) -> Vec<SubtaskProposal> {
        let Some(app) = self.desktop.spec(&req.application) else {
            return Vec::new();
        };
        let seed = seed_of(req);
        let mut known = req.known_resources.clone();
        // Every value on the desktop is taken: no new file gets an existing name.
        let before = materialize(&*self.desktop, &known).current_resources();
        let mut taken: BTreeSet<String> = req
            .known_resources
            .iter()
            .filter_map(|r| r.parameter.clone())
            .collect();
        for r in &before {
            if let Some(p) = &r.parameter {
                taken.insert(p.clone());
            }
        }
        let existing: BTreeSet<String> = req
            .existing_templates
            .iter()
            .map(|t| normalize(t))
            .collect();
        let mut all = paths::plans(&app.spec, &self.catalog);
        let mut bundles = self.bundle_plans(&app.spec, &all, &known, &req.application);
        let is_new = |p: &Plan| {
            !existing
                .iter()
                .any(|e| e.starts_with(&normalize(&p.base_template())))
        };
        // A zip of one file is no deliverable (the composer never places
        // one): an application that gathers files into one packs two or more.
        all.retain(|p| {
            is_new(p)
                && !(p.wrapping_output(&self.catalog).is_some()
                    && paths::gathers(&app.spec, p).is_some()
                    && p.input_path_kinds().len() == 1)
        });
        bundles.retain(|(p, _)| is_new(p));
        // Bundles lead: the one node that gathers the work of several
        // applications (a launch kit zipped from the deck's PDF, the budget's
        // PDF and the product photo) is what makes tasks wide.
        let mut ordered: Vec<(Plan, Vec<ParameterSet>)> = bundles;
        ordered.extend(
            makers_first(diversify(all, &self.copied_nearby(&app.spec)))
                .into_iter()
                .map(|p| (p, Vec::new())),
        );
        let mut out = Vec::new();
        let mut used_inputs: BTreeMap<String, usize> = BTreeMap::new();
        let mut bundled = 0;
        // The plan of each proposal walked from the known resources.
        let mut walked: Vec<(Plan, usize)> = Vec::new();
        // Which proposal first made each of the application's own values:
        // a set may read only what a proposal before it makes (the stage
        // checks the proposals in order).
        let mut made_at: BTreeMap<String, usize> = BTreeMap::new();
        for (plan, presets) in ordered {
            // Bundles come on top of the proposals asked for: they made
            // Mail's 22 proposals all but six bundles, and no single mail
            // then sent an archive, the end of the longest chains.
            if out.len() - bundled >= req.max_subtasks {
                break;
            }
            if !presets.is_empty() && bundled >= BUNDLE_PLANS {
                continue;
            }
            let attempt = Attempt {
                plan: &plan,
                presets: &presets,
            };
            if let Some((p, made)) =
                self.try_plan(attempt, req, &known, &mut taken, seed, &mut used_inputs)
            {
                bundled += usize::from(!presets.is_empty());
                if presets.is_empty() {
                    walked.push((plan.clone(), out.len()));
                }
                let fresh = fresh_known(&p, made, &known, &req.application);
                for v in fresh.iter().filter_map(|r| r.parameter.clone()) {
                    made_at.entry(v).or_insert(out.len());
                }
                out.push(p);
                known.extend(fresh);
            }
        }
        // Then each walked proposal's sets on its category's own work, now
        // that the application's own files are known too (see `domain`).
        let walked_sets: Vec<usize> = out.iter().map(|p| p.available_parameters.len()).collect();
        for (plan, k) in walked {
            let presets = self.domain_presets(
                &plan,
                &req.application,
                &known,
                &out[k].available_parameters,
            );
            if presets.is_empty() {
                continue;
            }
            let attempt = Attempt {
                plan: &plan,
                presets: &presets,
            };
            let Some((p, made)) =
                self.try_plan(attempt, req, &known, &mut taken, seed, &mut used_inputs)
            else {
                continue;
            };
            if p.instruction_template != out[k].instruction_template {
                continue;
            }
            let fresh = fresh_known(&p, made, &known, &req.application);
            for v in fresh.iter().filter_map(|r| r.parameter.clone()) {
                made_at.entry(v).or_insert(k);
            }
            let keys = |s: &ParameterSet| s.keys().cloned().collect::<Vec<_>>();
            let want = out[k].available_parameters.first().map(keys);
            for set in p.available_parameters {
                if Some(keys(&set)) == want && !out[k].available_parameters.contains(&set) {
                    out[k].available_parameters.push(set);
                }
            }
            known.extend(fresh);
        }
        in_making_order(out, &made_at, &walked_sets)
    }

    #[allow(clippy::too_many_arguments)]
    fn try_plan(
        &self,
        attempt: Attempt,
        req: &ExploreRequest,
        known: &[KnownResource],
        taken: &mut BTreeSet<String>,
        seed: u64,
        used_inputs: &mut BTreeMap<String, usize>,
    ) -> Option<(SubtaskProposal, Vec<Resource>)> {
        let Attempt { plan, presets } = attempt;
        // A bundle has one preset per topic that fills it; it keeps a
        // delivery's share, like any subtask that sends what it reads.
        let presets = &presets[..presets.len().min(SETS_PER_DELIVERY)];
        let h = seed ^ hash64(&plan.base_template());
        let hs = (h % 10_007) as usize;
        // Candidates of every input slot.
        let mut cands: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let suits = self.suits(plan);
        let edited = edited_slots(plan);
        let delivers = self.delivers(plan);
        let wraps = self.wraps(plan);
        for s in &plan.slots {
            let kind = match &s.role {
                SlotRole::InputPath { kind } | SlotRole::InputRecord { kind } => kind,
                _ => continue,
            };
            let selects = plan.steps.iter().any(|st| {
                matches!(st, Step::SelectPath { slot, .. } | Step::OpenPath { slot, .. } if slot == &s.name)
            });
            // A record picked from a list must be in that list's own collection.
            let collection = plan.steps.iter().find_map(|st| match st {
                Step::SelectItem { list, slot } if slot == &s.name => {
                    self.list_collection(&plan.app, list)
                }
                _ => None,
            });
            let mut from_tasks: Vec<&KnownResource> = Vec::new();
            let mut initial: Vec<String> = Vec::new();
            for r in known {
                if &r.kind != kind {
                    continue;
                }
                let Some(p) = &r.parameter else { continue };
                if selects && !p.starts_with(vfs::HOME) {
                    continue;
                }
                if let Some(c) = &collection {
                    let in_initial =
                        r.source == "desktop"
                            && self.desktop.state().collections.get(c).is_some_and(|rs| {
                                rs.iter().any(|rec| rec.values().any(|v| v == p))
                            });
                    if !(in_initial || r.source == req.application) {
                        continue;
                    }
                }
                if p.contains(['{', '}', '\'', '"']) {
                    continue;
                }
                // A capture of the screen made from nothing shows nothing of a
                // task: the composer never keeps the node that makes it
                // (a blank capture), so a chain from it can never be composed
                // and a parameter set spent on it is lost.
                let blank_capture = r.made_from.is_empty()
                    && r.source != "desktop"
                    && r.shows.as_deref().is_some_and(|s| s.starts_with("screen "));
                if blank_capture {
                    continue;
                }
                // A value readers type (an address) is read as the desktop
                // has it: one a subtask made would be no hand-off.
                let typed = self.catalog.kinds.get(kind).is_some_and(|k| k.typed);
                if typed && r.source != "desktop" {
                    continue;
                }
                // An edit only on content it suits (a home page is not
                // printed, a screen capture not rotated like a photo): the
                // composer would never place it.
                if let (Some(suits), Some(shown)) = (&suits, &r.shows) {
                    if edited.contains(&s.name.as_str()) && !suits.contains(shown) {
                        continue;
                    }
                }
                // A file this application made is not handed to it again: a
                // person changes a deck and exports it in one sitting, and the
                // composer never orders two subtasks of one application on one
                // file. Files come from the desktop or from other applications.
                let is_file = matches!(s.role, SlotRole::InputPath { .. });
                if is_file && r.source == req.application {
                    continue;
                }
                if r.source == "desktop" {
                    initial.push(p.clone());
                } else {
                    from_tasks.push(r);
                }
            }
            let (mut hubs, mut made) = hubs_and_rest(from_tasks, h, used_inputs);
            // A plan that sends or files what it reads (a mail, a to-do)
            // takes the last file of a chain, deepest first: a report is mailed
            // once it is done, and a hub mailed, posted and filed besides
            // would make tasks that spread one file for no reason.
            // So does a plan that packs what it reads (an archive): a file
            // is zipped to be sent once its last edit is made.
            if delivers || wraps {
                made = deepest_first(hubs.drain(..).chain(made).collect(), known);
            }
            // Initial inputs used less often first too: two subtasks of one
            // application on the same file are hard to tell apart.
            rotate(&mut initial, h >> 7);
            initial.sort_by_key(|p| used_inputs.get(p).copied().unwrap_or(0));
            // One initial input first (so a fresh desktop can verify the subtask),
            // then the kind's hubs (fan-outs) alternating with the least read
            // outputs of other subtasks (chains that reach everything made),
            // then the other initial inputs, then the rest.
            let mut list = Vec::new();
            let mut hi = hubs.into_iter();
            let mut fi = made.into_iter();
            let mut ii = initial.into_iter();
            list.extend(ii.next());
            for _ in 0..MADE_FIRST {
                list.extend(hi.next());
                list.extend(fi.next());
            }
            list.extend(hi);
            if delivers {
                list.extend(fi.by_ref());
            }
            list.extend(ii);
            list.extend(fi);
            if list.is_empty() {
                return None;
            }
            let mut list = self.spread_topics(list);
            if delivers {
                // Archives of several files first, whatever their topic: a
                // zip is made to be sent, and one nothing sends ends no task.
                // The deepest of them first (a zip of a protected itinerary
                // sends the end of a long piece of work), then the largest.
                list.sort_by_cached_key(|n| {
                    let packs = packs_of(n, known);
                    std::cmp::Reverse((packs >= 2, depth_of(n, known), packs))
                });
            }
            cands.insert(s.name.clone(), list);
        }
        // Deliveries and archives keep the deepest files first.
        let mut siblings = (!delivers && !wraps && presets.is_empty())
            .then(|| self.siblings_of_first(plan, &cands, known))
            .flatten();
        let mut sets: Vec<(ParameterSet, Vec<Resource>)> = Vec::new();
        let mut local_taken = taken.clone();
        let mut attempt = 0;
        let inputs = cands.len() + usize::from(plan.pastes.is_some());
        let mut wanted = if !presets.is_empty() {
            presets.len()
        } else if delivers {
            SETS_PER_DELIVERY
        } else if inputs >= 2 {
            SETS_PER_JOIN
        } else {
            SETS_PER_SUBTASK
        };
        // A join walks the pairs of its inputs: its first input cycles (one
        // deck on the desktop still takes every picture of its topic), a later
        // one moves on each round, and a first input with no partner of its
        // topic skips to the next pair instead of ending the walk.
        let join = inputs >= 2;
        let mut first_count = input_slots_files_first(plan)
            .first()
            .and_then(|s| cands.get(&s.name))
            .map_or(1, |c| c.len().max(1));
        let mut limit = if !presets.is_empty() {
            presets.len()
        } else if join {
            wanted * 4 + 12
        } else {
            wanted + 12
        };
        // The files earlier sets made, with the desktop files their inputs go
        // back to: a set on other versions of the same files (the brief with
        // the cropped product shot, after the brief with the captioned one)
        // saves under the same name ('project_brief_with_product_demo.pdf'),
        // not a version word ('project_brief_v2.pdf' read to a reviewer as
        // a second version where there was no first). The file then has two
        // makers; the composer never places both in one task (they clash).
        let mut made_by_sets: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for phase in 0..2 {
            if phase == 1 {
                // Then the joins of files made apart that the walk missed:
                // one more set for each of the first few.
                let Some((first, siblings)) = siblings.take() else {
                    break;
                };
                first_count = siblings.len();
                wanted = sets.len() + siblings.len().min(DIAMOND_SETS);
                limit = siblings.len();
                attempt = 0;
                cands.insert(first, siblings);
            }
            while sets.len() < wanted && attempt < limit {
                let i = attempt;
                attempt += 1;
                let mut values = ParameterSet::new();
                let mut ok = true;
                let mut skip = false;
                if let Some(preset) = presets.get(i) {
                    values = preset.clone();
                }
                // A preset fills the files; the rest (the address a bundle is
                // mailed to) is walked to fit them.
                let preset_count = values.len();
                let walk: Vec<_> = input_slots_files_first(plan)
                    .into_iter()
                    .filter(|s| !values.contains_key(&s.name))
                    .collect();
                for (k, s) in walk.into_iter().enumerate() {
                    let k = k + preset_count;
                    let Some(c) = cands.get(&s.name) else {
                        continue;
                    };
                    // Inputs keep to the topic of those already picked (a holiday
                    // photo is not inserted into a code review).
                    let c = self.same_topic_first(c, &values);
                    // Two inputs of one kind (a file and the file to append) take
                    // different candidates.
                    let free: Vec<&String> = c
                        .iter()
                        .filter(|v| !values.values().any(|x| x == *v))
                        .collect();
                    // The first input walks its candidates set by set; a later one
                    // (the contact a file is mailed to) cycles over those that fit
                    // the first one's topic, so every file made gets its reader.
                    let pick = if k == 0 && join {
                        free.get(i % first_count).copied()
                    } else if k == 0 {
                        free.get(i).copied()
                    } else {
                        let fitting = self.fitting(&free, &values);
                        // The first round takes, where there is one, a file made
                        // in another application from what the first input was
                        // made from (the ledger's chart beside the ledger
                        // printed): a join of two branches of one piece of work.
                        let sibling = (i < first_count && join)
                            .then(|| {
                                free[..fitting].iter().copied().find(|v| {
                                    values
                                        .values()
                                        .any(|w| made_apart(v, w, known, &self.originals))
                                })
                            })
                            .flatten();
                        sibling.or_else(|| {
                            (fitting > 0).then(|| free[(i + i / first_count) % fitting])
                        })
                    };
                    match pick {
                        Some(v) => {
                            values.insert(s.name.clone(), v.clone());
                        }
                        None if join && k > 0 => {
                            skip = true;
                            break;
                        }
                        None => {
                            ok = false;
                            break;
                        }
                    }
                }
                if !ok {
                    break;
                }
                // The same inputs again (the walk came round) make nothing new.
                if skip || sets.iter().any(|(v, _)| same_inputs(plan, v, &values)) {
                    continue;
                }
                // Inputs about two subjects (a song mailed to the school fair's
                // address) make no request a person would give.
                if !self.one_subject(values.values().map(String::as_str)) {
                    continue;
                }
                // Nor do two files of no subject that go back to different
                // desktop files (a cat picture inserted into the welcome note):
                // what ties them is only that neither has a topic.
                let loose: BTreeSet<String> = plan
                    .slots
                    .iter()
                    .filter(|s| matches!(s.role, SlotRole::InputPath { .. }))
                    .filter_map(|s| values.get(&s.name))
                    .filter(|v| self.catalog.topics.topic_of(v).is_none())
                    .map(|v| root_stem(v, &self.originals))
                    .collect();
                if loose.len() > 1 {
                    continue;
                }
                // Nor does joining a file with a copy of itself (append
                // 'manual_compressed.pdf' to 'manual.pdf', attach 'report.docx'
                // and 'report.pdf'). Two different things made from one file (the
                // ledger's bar chart as an image, the ledger printed to PDF) are
                // no copies: mailing both is a diamond of real hand-offs.
                let input_files: Vec<&str> = plan
                    .slots
                    .iter()
                    .filter(|s| matches!(s.role, SlotRole::InputPath { .. }))
                    .filter_map(|s| values.get(&s.name).map(String::as_str))
                    .collect();
                let copies = |a: &str, b: &str| copies_of_one_file(a, b, &self.originals);
                if (1..input_files.len())
                    .any(|k| input_files[..k].iter().any(|a| copies(a, input_files[k])))
                {
                    continue;
                }
                // Three or more files of one topic are about the topic (a mail
                // 'Summer trip files'), not about the first of them ('Beach').
                let topics = &self.catalog.topics;
                let files: Vec<&str> = plan
                    .slots
                    .iter()
                    .filter(|s| matches!(s.role, SlotRole::InputPath { .. }))
                    .filter_map(|s| values.get(&s.name).map(String::as_str))
                    .collect();
                let set_roots: Vec<String> = files
                    .iter()
                    .map(|v| root_stem(v, &self.originals))
                    .collect();
                let topic_stem = (files.len() >= 3)
                    .then(|| topics.get(topics.of(files).single()?))
                    .flatten()
                    .map(|t| t.name.replace(' ', "_"));
                let stem = topic_stem
                    .or_else(|| {
                        plan.slots.iter().find_map(|s| match &s.role {
                            SlotRole::InputPath { .. } => values
                                .get(&s.name)
                                .map(|v| made_root(&root_stem(v, &self.originals), v, known)),
                            _ => None,
                        })
                    })
                    .or_else(|| {
                        plan.slots.iter().find_map(|s| match &s.role {
                            SlotRole::InputRecord { .. } => values.get(&s.name).map(|v| stem_of(v)),
                            _ => None,
                        })
                    })
                    .or_else(|| self.shown_stem(plan))
                    .or_else(|| {
                        let app = self.desktop.spec(&plan.app)?;
                        Some(app.spec.holds.as_deref()?.replace(' ', "_"))
                    })
                    .unwrap_or_else(|| WORDS[(hs + i) % WORDS.len()].to_string());
                // A new file must not take the name of a file the subtask reads.
                let mut avoid = local_taken.clone();
                avoid.extend(values.values().cloned());
                let in_dir = plan.slots.iter().find_map(|s| match &s.role {
                    SlotRole::InputPath { .. } => {
                        values.get(&s.name).map(|v| vfs::parent(v).to_string())
                    }
                    _ => None,
                });
                // Every name of a record kind is taken (no "Review the plan 2").
                let mut spent = false;
                for s in &plan.slots {
                    if values.contains_key(&s.name) {
                        continue;
                    }
                    let v = match &s.role {
                        SlotRole::Choice { values: vs } => vs[(hs + i) % vs.len()].clone(),
                        SlotRole::OutputPath { kind, ext }
                            if self.bundles(kind, plan, &values).is_some() =>
                        {
                            // An archive of two files about one subject is named
                            // after the subject ('summer_trip.zip'), not after a
                            // change to the first file.
                            // When that name is taken, it says what it holds
                            // ('summer_trip_files.zip'), not that it was revised.
                            // When that name is taken too, it says what it holds
                            // ('cycling_images.zip'), not a version word
                            // ('cycling_v2.zip' read as a second version).
                            let subject = self.bundles(kind, plan, &values).unwrap_or_default();
                            let packed: Vec<&str> = plan
                                .slots
                                .iter()
                                .filter(|s| values.contains_key(&s.name))
                                .filter_map(|s| match &s.role {
                                    SlotRole::InputPath { kind } => Some(kind.as_str()),
                                    _ => None,
                                })
                                .collect();
                            let mut tags: Vec<String> =
                                holds_tag(&self.catalog, &packed).into_iter().collect();
                            tags.extend(["files".to_string(), "bundle".to_string()]);
                            // Files from several folders are packed where the kind
                            // goes (the Documents folder), not beside the first.
                            let folders: BTreeSet<&str> = plan
                                .slots
                                .iter()
                                .filter(|s| matches!(s.role, SlotRole::InputPath { .. }))
                                .filter_map(|s| values.get(&s.name).map(|v| vfs::parent(v)))
                                .collect();
                            let dir = in_dir.as_deref().filter(|_| folders.len() == 1);
                            match output_path(kind, ext, &subject, dir, &tags, &avoid) {
                                Some(p) => p,
                                None => {
                                    spent = true;
                                    break;
                                }
                            }
                        }
                        SlotRole::OutputPath { kind, ext } => {
                            // A copy of a file it read keeps that file's extension.
                            let read = plan.slots.iter().find_map(|r| match &r.role {
                                SlotRole::InputPath { kind: k } if k == kind => values.get(&r.name),
                                _ => None,
                            });
                            let changes =
                                change_tags(&plan.phrases, |p| self.name_of(&plan.app, p));
                            let changed = !changes.is_empty();
                            let mut tags: Vec<String> =
                                changes.into_iter().filter(|t| names_a_result(t)).collect();
                            // A file that joins two (a report with a picture put
                            // in) may be named after the second when the change's
                            // name is taken: a report with each picture.
                            let second = plan
                                .slots
                                .iter()
                                .filter(|r| matches!(r.role, SlotRole::InputPath { .. }))
                                .filter_map(|r| values.get(&r.name))
                                .nth(1);
                            if let Some(v) = second {
                                // The second file by its own subject, the desktop
                                // file it goes back to: a brief with the captioned
                                // trail photo put in is 'brief_with_mountain_trail',
                                // not '..._with_mountain_trail_caption', and a deck
                                // with a picture appended 'sales_with_launch_deck',
                                // not '..._with_launch_deck_with_product_demo'.
                                let root = made_root(&root_stem(v, &self.originals), v, known);
                                let own = root.split("_with_").next().unwrap_or(&root);
                                // Two things made from one file (the ledger printed,
                                // its chart) joined: the second by what it is.
                                let own = match stem_of(v).strip_prefix(&format!("{own}_")) {
                                    Some(what) if own == stem => what.to_string(),
                                    _ => own.to_string(),
                                };
                                if own != stem {
                                    tags.push(format!("with_{own}"));
                                }
                            }
                            let ext = match read {
                                Some(v) => {
                                    if !changed {
                                        tags.push("backup".into());
                                    }
                                    vfs::extension(v)
                                }
                                None => {
                                    let last = plan.phrases.last().map(String::as_str);
                                    let made = participle(last.unwrap_or(""));
                                    if names_a_result(&made) {
                                        tags.push(made);
                                    }
                                    ext.clone()
                                }
                            };
                            // A copy of a copy may carry the earlier change too
                            // ('launch_deck_dark_theme_signed.pdf') when the plain
                            // names are taken, before any counter.
                            let first_input = plan
                                .slots
                                .iter()
                                .filter(|r| matches!(r.role, SlotRole::InputPath { .. }))
                                .find_map(|r| values.get(&r.name));
                            if let (Some(v), Some(tag)) = (first_input, tags.first().cloned()) {
                                let own = stem_of(v);
                                // Not a change it carries already (a second ledger
                                // appended to 'budget_with_expense_ledger' is no
                                // '..._with_expense_ledger_with_expense_ledger'),
                                // nor a second join ('deck_with_demo_with_brief'):
                                // a version word names such a copy.
                                if let Some(earlier) = own.strip_prefix(&format!("{stem}_")) {
                                    let joins_twice =
                                        earlier.starts_with("with_") && tag.starts_with("with_");
                                    if !joins_twice
                                        && !earlier.contains(tag.as_str())
                                        && !tag.contains(earlier)
                                    {
                                        tags.push(format!("{earlier}_{tag}"));
                                    }
                                }
                            }
                            let named: BTreeSet<&str> = plan
                                .slots
                                .iter()
                                .filter(|r| {
                                    matches!(
                                        r.role,
                                        SlotRole::InputPath { .. } | SlotRole::InputRecord { .. }
                                    )
                                })
                                .filter_map(|r| values.get(&r.name).map(String::as_str))
                                .collect();
                            let plain = output_path(
                                kind,
                                &ext,
                                &stem,
                                in_dir.as_deref(),
                                &[],
                                &BTreeSet::new(),
                            );
                            let shared = plain.clone().filter(|p| {
                                tags.is_empty()
                                    && converted_before(known, kind, &plan.app, p, &named)
                            });
                            // A file changed in a way no word names (a number
                            // pasted in) leaves the plain name to the plain
                            // export of the same file, which would otherwise be
                            // 'stock_v2.pdf' beside a 'stock.pdf' that is no
                            // plain export: it is the revised one.
                            let mut avoid: BTreeSet<String> = avoid
                                .iter()
                                .filter(|p| made_by_sets.get(*p) != Some(&set_roots))
                                .cloned()
                                .collect();
                            if changed && tags.is_empty() {
                                avoid.extend(plain.clone());
                            }
                            if let Some(p) = shared {
                                p
                            } else {
                                match output_path(
                                    kind,
                                    &ext,
                                    &stem,
                                    in_dir.as_deref(),
                                    &tags,
                                    &avoid,
                                ) {
                                    Some(p) => p,
                                    None => {
                                        spent = true;
                                        break;
                                    }
                                }
                            }
                        }
                        SlotRole::OutputRecord { kind } => {
                            match output_record(kind, &stem, i, &local_taken, &self.catalog.topics)
                            {
                                Some(v) => v,
                                None => {
                                    spent = true;
                                    break;
                                }
                            }
                        }
                        // A command whose output is copied must print something (a
                        // redirect into a file leaves nothing to copy).
                        SlotRole::Text { field }
                            if field == "command"
                                && plan
                                    .produces
                                    .iter()
                                    .any(|k| paths::on_clipboard(&self.catalog, k)) =>
                        {
                            print_command(known, hs + i)
                        }
                        // One whose output is a file makes a file about the subject.
                        SlotRole::Text { field } if field == "command" => {
                            file_command(known, &self.catalog.topics, &stem, hs + i)
                        }
                        // A contact's name is that of the person whose address it is.
                        SlotRole::Text { field } if names_a_person(field) => values
                            .values()
                            .find_map(|v| person_of_address(v))
                            .unwrap_or_else(|| {
                                text_value(field, &stem, hs + i, &self.catalog.topics)
                            }),
                        // A body written into a record that is no message (a
                        // note) is what one notes down, not a mail's greeting.
                        SlotRole::Text { field }
                            if !self.sends(plan) && is_message_field(field) =>
                        {
                            text_value("note", &stem, hs + i, &self.catalog.topics)
                        }
                        SlotRole::Text { field } => {
                            text_value(field, &stem, hs + i, &self.catalog.topics)
                        }
                        SlotRole::InputPath { .. } | SlotRole::InputRecord { .. } => continue,
                    };
                    values.insert(s.name.clone(), v);
                }
                if spent
                    || self.renames_text(plan, &values)
                    || self.rewrites_a_figure(plan, &values)
                {
                    continue;
                }
                match_ingredients(plan, &mut values);
                disambiguate_free_texts(plan, &mut values, hs + i);
                // Each set runs on a desktop with only the files and records it reads:
                // an output the application names itself (the board's 'board.md') is
                // then the one a fresh desktop gives, not 'board-2.md' after another
                // subtask's export (which a task without that subtask cannot make).
                // What the set is to make does not hold yet: a chat message to Dave
                // another subtask sends (a copied snippet) leaves this one's (a
                // file) still to be sent.
                let reads: BTreeSet<&str> = input_slots_files_first(plan)
                    .iter()
                    .filter_map(|s| match &s.role {
                        SlotRole::InputPath { kind } | SlotRole::InputRecord { kind } => {
                            Some(kind.as_str())
                        }
                        _ => None,
                    })
                    .collect();
                let needed: Vec<KnownResource> = known
                    .iter()
                    .filter(|k| {
                        k.parameter
                            .as_ref()
                            .is_some_and(|p| values.values().any(|v| v == p))
                            && (reads.contains(k.kind.as_str())
                                || !plan.produces.iter().any(|o| o == &k.kind))
                    })
                    .cloned()
                    .collect();
                let own = materialize(&*self.desktop, &needed);
                let own_before = own.current_resources();
                let (base, before) = (&own, &own_before);
                let after = match with_clipboard(&**base, plan, &values)
                    .and_then(|start| paths::execute(&*start, plan, &values).map_err(|e| e.0))
                {
                    Ok(a) => a,
                    Err(e) => {
                        tracing::debug!(template = %plan.template(&[], &self.catalog), ?values, error = %e, "path failed");
                        continue;
                    }
                };
                let new = paths::new_resources(before, &*after);
                let mut outs: Vec<Resource> = Vec::new();
                let mut bad = false;
                let mut kinds: BTreeSet<String> = plan.produces.iter().cloned().collect();
                for s in &plan.slots {
                    if let SlotRole::OutputPath { kind, .. } | SlotRole::OutputRecord { kind } =
                        &s.role
                    {
                        kinds.insert(kind.clone());
                    }
                }
                let new: Vec<Resource> = new
                    .into_iter()
                    .map(|r| {
                        if values.contains_key("setting_value") {
                            r
                        } else {
                            setting_pair(r, before_settings(&**base), &*after)
                        }
                    })
                    .collect();
                for kind in &kinds {
                    let of_kind: Vec<&Resource> = new.iter().filter(|r| &r.kind == kind).collect();
                    if of_kind.is_empty() {
                        continue;
                    }
                    let pick = match values.get(&output_name(plan, kind)) {
                        Some(v) => of_kind
                            .iter()
                            .find(|r| r.parameter.as_deref() == Some(v.as_str())),
                        None => of_kind
                            .iter()
                            .min_by_key(|r| r.parameter.as_ref().map(|p| p.len())),
                    };
                    match pick {
                        Some(r) => outs.push((*r).clone()),
                        None => bad = true,
                    }
                }
                // Every output slot must have made its resource hold.
                for s in &plan.slots {
                    if let SlotRole::OutputPath { kind, .. } | SlotRole::OutputRecord { kind } =
                        &s.role
                    {
                        if !outs.iter().any(|r| &r.kind == kind) {
                            bad = true;
                        }
                    }
                }
                // Each parameter set must make outputs of its own.
                let repeats = outs.iter().any(|r| {
                    r.parameter.as_ref().is_some_and(|p| {
                        local_taken.contains(p)
                            && values.get(&output_name(plan, &r.kind)) != Some(p)
                    }) || sets.iter().any(|(_, o)| {
                        o.contains(r)
                            && r.parameter
                                .as_ref()
                                .is_some_and(|p| made_by_sets.get(p) != Some(&set_roots))
                    })
                });
                if bad || outs.is_empty() || repeats {
                    continue;
                }
                for r in &outs {
                    if let Some(p) = &r.parameter {
                        let name = output_name(plan, &r.kind);
                        values.entry(name).or_insert_with(|| p.clone());
                        local_taken.insert(p.clone());
                        made_by_sets
                            .entry(p.clone())
                            .or_insert_with(|| set_roots.clone());
                    }
                }
                for v in values.values() {
                    local_taken.insert(v.clone());
                }
                // The name a picked file shows in its folder list: what a check on the
                // click can name (the coder uses it to tell subtasks apart).
                for st in &plan.steps {
                    if let Step::SelectPath { slot, .. } | Step::OpenPath { slot, .. } = st {
                        if let Some(v) = values.get(slot) {
                            let name = vfs::base_name(v).to_string();
                            values.insert(format!("{slot}_file"), name);
                        }
                    }
                }
                sets.push((values, outs));
            }
        }
        let (first_vals, first_outs) = sets.first()?.clone();
        let out_kinds: Vec<String> = first_outs.iter().map(|r| r.kind.clone()).collect();
        let kinds: Vec<String> = out_kinds
            .iter()
            .map(|k| crate::resources::slot_of(k, &output_name(plan, k)))
            .collect();
        sets.retain(|(v, o)| {
            o.iter().map(|r| r.kind.clone()).collect::<Vec<_>>() == out_kinds
                && v.keys().collect::<Vec<_>>() == first_vals.keys().collect::<Vec<_>>()
        });
        let slot_names: BTreeSet<&str> = plan.slots.iter().map(|s| s.name.as_str()).collect();
        let computed: Vec<String> = first_outs
            .iter()
            .filter(|r| {
                r.parameter.is_some() && !slot_names.contains(output_name(plan, &r.kind).as_str())
            })
            .map(|r| r.kind.clone())
            .collect();
        let template = plan.template(&computed, &self.catalog);
        for (v, _) in &sets {
            for val in v.values() {
                taken.insert(val.clone());
            }
            for s in &plan.slots {
                if matches!(s.role, SlotRole::InputPath { .. }) {
                    if let Some(x) = v.get(&s.name) {
                        *used_inputs.entry(x.clone()).or_default() += 1;
                    }
                }
            }
        }
        let input_resources: Vec<String> = plan
            .slots
            .iter()
            .filter_map(|s| match &s.role {
                SlotRole::InputPath { kind } | SlotRole::InputRecord { kind } => {
                    Some(crate::resources::slot_of(kind, &s.name))
                }
                _ => None,
            })
            .chain(plan.pastes.clone())
            .collect();
        let made: Vec<Resource> = sets.iter().flat_map(|(_, o)| o.clone()).collect();
        let mut params: Vec<ParameterSet> = Vec::new();
        for (v, _) in sets {
            if !params.contains(&v) {
                params.push(v);
            }
        }
        Some((
            SubtaskProposal {
                instruction_template: template,
                available_parameters: params,
                input_resources,
                output_resources: kinds,
            },
            made,
        ))
    }

    /// Does the set save a text file it reads (a script, a Markdown file, a
    /// CSV) as a .txt ('analysis.py' as 'analysis.txt')? That
    /// changes nothing a reader sees: a mail or a to-do carries the script
    /// itself, and an editor edits it as it is.
    /// Does `plan` send something (a mail, a chat message: `sends` kinds)?
    fn sends(&self, plan: &Plan) -> bool {
        let sends = |k: &String| self.catalog.kinds.get(k).is_some_and(|k| k.sends);
        plan.produces.iter().any(sends)
            || plan.slots.iter().any(|s| {
                matches!(&s.role, SlotRole::OutputRecord { kind } | SlotRole::OutputPath { kind, .. } if sends(kind))
            })
    }

    /// Does `plan` type a topic's figure (a sum of the bills) into a field and
    /// then rewrite that field with a control it clicks (square it, take a
    /// percentage)? A topic's sum squared means nothing to anyone, and readers
    /// rejected made-up calculations: such a plan gets no set.
    fn rewrites_a_figure(&self, plan: &Plan, values: &ParameterSet) -> bool {
        let topics = &self.catalog.topics;
        let Some(app) = self.desktop.spec(&plan.app) else {
            return false;
        };
        plan.slots.iter().any(|s| {
            let SlotRole::Text { field } = &s.role else {
                return false;
            };
            let figure = values
                .get(&s.name)
                .is_some_and(|v| topics.figure_topic(v).is_some());
            figure
                && crate::env::spec::effects_of(&app.spec)
                    .into_iter()
                    .filter(|(_, control, _, _)| plan.clicked.contains(control))
                    .any(|(_, _, _, e)| match &e.op {
                        Op::SetField { field: f, .. } | Op::AppendField { field: f, .. } => {
                            f == field
                        }
                        _ => false,
                    })
        })
    }

    fn renames_text(&self, plan: &Plan, values: &ParameterSet) -> bool {
        let read: Vec<String> = plan
            .slots
            .iter()
            .filter(|s| matches!(s.role, SlotRole::InputPath { .. }))
            .filter_map(|s| values.get(&s.name))
            .map(|v| vfs::extension(v))
            .filter(|e| TEXT_EXTENSIONS.contains(&e.as_str()))
            .collect();
        plan.slots.iter().any(|s| match &s.role {
            SlotRole::OutputPath { kind, .. } => {
                let plain = self
                    .catalog
                    .kinds
                    .get(kind)
                    .and_then(|k| k.keeps_props.as_ref())
                    .is_some_and(Vec::is_empty);
                let ext = values.get(&s.name).map(|v| vfs::extension(v));
                plain && ext.is_some_and(|e| e == "txt" && read.iter().any(|r| *r != e))
            }
            _ => false,
        })
    }

    /// The clipboard kinds the other applications of `app`'s category copy
    /// (for Writer, Office: the table Sheets copies, the text Text Editor
    /// copies).
    fn copied_nearby(&self, app: &crate::env::spec::AppSpec) -> BTreeSet<String> {
        self.desktop
            .specs()
            .iter()
            .filter(|a| a.spec.category == app.category && a.spec.name != app.name)
            .flat_map(|a| paths::plans(&a.spec, &self.catalog))
            .flat_map(|p| p.produces)
            .filter(|k| paths::on_clipboard(&self.catalog, k))
            .collect()
    }

    /// The contents the plan's edits suit, as their effects declare (`suits`,
    /// the intersection over the controls it clicks); `None`: any.
    fn suits(&self, plan: &Plan) -> Option<Vec<String>> {
        let app = self.desktop.spec(&plan.app)?;
        let mut suits: Option<Vec<String>> = None;
        for (_, control, _, e) in crate::env::spec::effects_of(&app.spec) {
            if e.suits.is_empty() || !plan.clicked.contains(&control) {
                continue;
            }
            suits = Some(match suits {
                None => e.suits.clone(),
                Some(s) => s.into_iter().filter(|c| e.suits.contains(c)).collect(),
            });
        }
        suits
    }

    /// The subject an output of `kind` bundles, as a file stem ("summer_trip"):
    /// when `kind` wraps files (an archive), the plan packs two or more and
    /// they share a topic.
    fn bundles(&self, kind: &str, plan: &Plan, values: &ParameterSet) -> Option<String> {
        if !self.catalog.kinds.get(kind).is_some_and(|k| k.wraps) {
            return None;
        }
        let packed: Vec<&str> = plan
            .slots
            .iter()
            .filter(|s| matches!(s.role, SlotRole::InputPath { .. }))
            .filter_map(|s| values.get(&s.name).map(String::as_str))
            .collect();
        if packed.len() < 2 {
            return None;
        }
        let topics = &self.catalog.topics;
        let topic = topics.get(topics.of(packed).single()?)?;
        Some(topic.name.replace(' ', "_"))
    }

    /// Plans that gather several files made by other applications into one
    /// (an archive or a mail of a topic's work): per topic, [`BUNDLE_PICKS`]
    /// bundles of its made files of kinds a gathering plan of `plans` selects,
    /// none made beside a copy ([`Self::bundle_pick`]); each bundle of three or
    /// more gives a parameter set of its kinds (and, when it has more, one of
    /// its first three). A plan per kind list, with the sets of every topic
    /// that fills it: at most [`BUNDLE_TRIES`] plans, the largest with the most
    /// sets first, a bundle of three after each larger one.
    fn bundle_plans(
        &self,
        spec: &crate::env::spec::AppSpec,
        plans: &[Plan],
        known: &[KnownResource],
        app: &str,
    ) -> Vec<(Plan, Vec<ParameterSet>)> {
        // The simplest plan gathering each kind (one input: the file).
        let mut base: BTreeMap<String, &Plan> = BTreeMap::new();
        for p in plans {
            let Some(kind) = paths::gathers(spec, p) else {
                continue;
            };
            if p.input_path_kinds().len() != 1 || p.pastes.is_some() {
                continue;
            }
            let e = base.entry(kind).or_insert(p);
            if p.steps.len() < e.steps.len() {
                *e = p;
            }
        }
        if base.is_empty() {
            return Vec::new();
        }
        let topics = &self.catalog.topics;
        let lineage = Lineage::of(known);
        let mut by_topic: BTreeMap<usize, Vec<&KnownResource>> = BTreeMap::new();
        for r in known {
            let Some(p) = &r.parameter else { continue };
            let wraps = self.catalog.kinds.get(&r.kind).is_some_and(|k| k.wraps);
            // A recording or capture of the bare desktop is no one's work to
            // send on: readers rejected it mailed as a topic's footage.
            let of_screen = r
                .shows
                .as_deref()
                .is_some_and(|s| s.starts_with("screen ") || s == "command output");
            // A made file of depth 0 is a detour's (a PDF taken back to
            // text, a note's attachment left behind): nothing to send on.
            if r.source == "desktop"
                || r.source == app
                || r.depth == 0
                || r.copied_beside
                || r.converted_only
                || of_screen
                || wraps
                || !base.contains_key(&r.kind)
                || !p.starts_with(vfs::HOME)
                || p.contains(['{', '}', '\'', '"'])
            {
                continue;
            }
            if let Some(t) = topics.topic_of(p) {
                by_topic.entry(t).or_default().push(r);
            }
        }
        // Per kind list, the sets of the topics that fill it.
        let mut combos: BTreeMap<Vec<String>, Vec<ParameterSet>> = BTreeMap::new();
        for files in by_topic.values_mut() {
            files.sort_by_key(|r| (r.depth, std::cmp::Reverse(r.readers), r.parameter.clone()));
            // The picks from the shallowest files (the most bundles that
            // other work can join), and one from the deepest: the end of a
            // long piece of work (a captioned photo put in the itinerary,
            // printed and protected) zipped to be sent.
            // The deepest file first, then the shallowest: the composer feeds
            // a gathering node's other files only from the desktop's own.
            let mut deepest = files.clone();
            if let Some(end) = files
                .iter()
                .copied()
                .min_by_key(|r| (std::cmp::Reverse(r.depth), r.readers, r.parameter.clone()))
            {
                deepest.retain(|r| !std::ptr::eq(*r, end));
                deepest.insert(0, end);
            }
            let picks = (0..BUNDLE_PICKS.min(files.len()))
                .map(|offset| self.bundle_pick(files, offset, &lineage))
                .chain(std::iter::once(self.bundle_pick(&deepest, 0, &lineage)));
            for picked in picks {
                let Some(picked) = picked else {
                    continue;
                };
                let mut sizes = vec![picked.len()];
                if picked.len() > 3 {
                    sizes.push(3);
                }
                for n in sizes {
                    let mut files: Vec<&KnownResource> = picked[..n].to_vec();
                    files.sort_by(|a, b| (&a.kind, &a.parameter).cmp(&(&b.kind, &b.parameter)));
                    let kinds: Vec<String> = files.iter().map(|r| r.kind.clone()).collect();
                    let names = paths::bundle_slot_names(&kinds);
                    let set: ParameterSet = names
                        .into_iter()
                        .zip(&files)
                        .filter_map(|(n, r)| Some((n, r.parameter.clone()?)))
                        .collect();
                    let sets = combos.entry(kinds).or_default();
                    if !sets.contains(&set) {
                        sets.push(set);
                    }
                }
            }
        }
        // The largest lists with the most sets first, a bundle of three after
        // each larger one: five files make wide tasks, three more of them.
        let mut combos: Vec<(Vec<String>, Vec<ParameterSet>)> = combos.into_iter().collect();
        combos.sort_by_key(|(k, sets)| (std::cmp::Reverse(k.len()), std::cmp::Reverse(sets.len())));
        let (large, three): (Vec<_>, Vec<_>) = combos.into_iter().partition(|(k, _)| k.len() > 3);
        let mut combos = Vec::new();
        let (mut large, mut three) = (large.into_iter(), three.into_iter());
        loop {
            let (a, b) = (large.next(), three.next());
            if a.is_none() && b.is_none() {
                break;
            }
            combos.extend(a);
            combos.extend(b);
        }
        let mut out: Vec<(Plan, Vec<ParameterSet>)> = Vec::new();
        for (kinds, sets) in combos {
            if out.len() >= BUNDLE_TRIES {
                break;
            }
            let Some(plan) = base
                .get(&kinds[0])
                .and_then(|p| paths::bundle_variant(spec, p, &kinds))
            else {
                continue;
            };
            out.push((plan, sets));
        }
        out
    }

    /// One bundle of a topic's made `files` (ordered), starting at `offset`
    /// and going round: one file per application (two exports from one
    /// workbook, left unordered, would clash) and per desktop file it goes back
    /// to (a report is not zipped with its own PDF), none made from another
    /// or by work that forks from another's ([`Lineage::forked`]: a task
    /// holding both would edit one photo twice, side by side), at most [`paths::MAX_BUNDLE`];
    /// `None` under three.
    fn bundle_pick<'k>(
        &self,
        files: &[&'k KnownResource],
        offset: usize,
        lineage: &Lineage<'_>,
    ) -> Option<Vec<&'k KnownResource>> {
        let mut picked: Vec<(&KnownResource, String)> = Vec::new();
        for r in files[offset..].iter().chain(&files[..offset]) {
            let root = root_stem(r.parameter.as_deref().unwrap_or(""), &self.originals);
            let forked = |q: &KnownResource| {
                let (Some(a), Some(b)) = (&r.parameter, &q.parameter) else {
                    return false;
                };
                lineage.forked(a, b)
            };
            let dup = picked
                .iter()
                .any(|(q, qr)| q.source == r.source || *qr == root || forked(q));
            if !dup && picked.len() < paths::MAX_BUNDLE {
                picked.push((r, root));
            }
        }
        (picked.len() >= 3).then(|| picked.into_iter().map(|(r, _)| r).collect())
    }

    /// The stem of a screenshot whose content the producing effect declares
    /// (`shows = "screen capture"` gives 'screen_capture'): a screenshot taken
    /// with no input shows the screen, not a subject, and named after one
    /// ('home_budget.png') it would be put where that subject's files go. A
    /// screen recording is made on purpose, for something ('book_club.mp4': a
    /// walkthrough for the book club), so it takes a subject's name (readers
    /// still reject a recording of the bare desktop titled and mailed as that
    /// subject's footage; naming it by what it shows instead gave nine
    /// 'screen_recording_draft/_final/_v2' names, no better).
    fn shown_stem(&self, plan: &Plan) -> Option<String> {
        let app = self.desktop.spec(&plan.app)?;
        crate::env::spec::effects_of(&app.spec)
            .into_iter()
            .filter(|(screen, control, _, _)| *screen == plan.screen && *control == plan.producer)
            .filter(|(_, _, _, e)| matches!(e.op, Op::Capture { .. }))
            .find_map(|(_, _, _, e)| e.shows.as_deref())
            .map(|shown| shown.replace(' ', "_"))
    }

    /// What a person calls a file changed by the effect of `app` that
    /// `phrase` words (its `names` in the application's spec: 'totals' for
    /// "add a total row"), when the spec says.
    fn name_of(&self, app: &str, phrase: &str) -> Option<String> {
        let app = self.desktop.spec(app)?;
        crate::env::spec::effects_of(&app.spec)
            .into_iter()
            .map(|(_, _, _, e)| e)
            .find(|e| e.describe.as_deref().is_some_and(|d| phrase.starts_with(d)))?
            .names
            .clone()
    }

    /// Does `v` keep the values in `values` to one topic, as the set check in
    /// [`Self::try_plan`] counts them ([`crate::topics::Topics::of`], where a
    /// file of no topic counts as a topic of its own)?
    fn fits_topic(&self, v: &str, values: &ParameterSet) -> bool {
        self.one_subject(values.values().map(String::as_str).chain([v]))
    }

    /// Do `values` keep to one topic and to its circle (a travel itinerary is
    /// not mailed to team@example.com: the composer keeps a task to its
    /// topic's circle and would never place such a set)? Values of no topic
    /// keep to one circle.
    fn one_subject<'v>(&self, values: impl Iterator<Item = &'v str> + Clone) -> bool {
        let topics = &self.catalog.topics;
        let found = topics.of(values.clone());
        let circles = topics.circles_of(values);
        match (found.len(), found.single()) {
            (0, _) => circles.0.count_ones() <= 1,
            (1, Some(t)) => circles.within(topics.circle_of_topic(t)),
            _ => false,
        }
    }

    /// `candidates` reordered so that those that keep `values` to one topic
    /// ([`Self::fits_topic`]) come first, the order otherwise kept: the order
    /// never offers first a value the set check then throws away.
    fn same_topic_first(&self, candidates: &[String], values: &ParameterSet) -> Vec<String> {
        let (mut first, rest): (Vec<String>, Vec<String>) = candidates
            .iter()
            .cloned()
            .partition(|v| self.fits_topic(v, values));
        first.extend(rest);
        first
    }

    /// How many of `candidates` (ordered by [`Self::same_topic_first`]) keep
    /// `values` to one topic.
    fn fitting(&self, candidates: &[&String], values: &ParameterSet) -> usize {
        candidates
            .iter()
            .take_while(|v| self.fits_topic(v, values))
            .count()
    }

    /// Does `plan` write a file that wraps others (an archive)?
    fn wraps(&self, plan: &Plan) -> bool {
        plan.slots.iter().any(|s| {
            matches!(&s.role, SlotRole::OutputPath { kind, .. }
                if self.catalog.kinds.get(kind).is_some_and(|k| k.wraps))
        })
    }

    /// Does `plan` only file or send (its outputs are records of `tracker` or
    /// `sends` kinds: a mail, a chat message, a to-do), making no file?
    fn delivers(&self, plan: &Plan) -> bool {
        let files = plan
            .slots
            .iter()
            .any(|s| matches!(s.role, SlotRole::OutputPath { .. }));
        !files
            && !plan.produces.is_empty()
            && plan
                .produces
                .iter()
                .all(|k| self.catalog.kinds.get(k).is_some_and(|k| k.delivers()))
    }

    /// `candidates` in rounds over their topics (the order within a topic kept,
    /// topics in order of first appearance, values of no topic as one more
    /// topic), so that a subtask's parameter sets spread over the subjects on the
    /// desktop: every topic's tasks then find the subtask, and a task of one
    /// topic can grow wide and deep without mixing subjects.
    fn spread_topics(&self, candidates: Vec<String>) -> Vec<String> {
        let topics = &self.catalog.topics;
        let mut groups: Vec<(Option<usize>, Vec<String>)> = Vec::new();
        for v in candidates {
            let t = topics.topic_of(&v);
            match groups.iter_mut().find(|g| g.0 == t) {
                Some(g) => g.1.push(v),
                None => groups.push((t, vec![v])),
            }
        }
        let longest = groups.iter().map(|g| g.1.len()).max().unwrap_or(0);
        let mut out = Vec::new();
        for round in 0..longest {
            for g in &groups {
                out.extend(g.1.get(round).cloned());
            }
        }
        out
    }

    /// The collection behind List `list` of application `app`.
    fn list_collection(&self, app: &str, list: &str) -> Option<String> {
        let spec = &self.desktop.spec(app)?.spec;
        spec.screens.values().find_map(|s| {
            s.controls.iter().find_map(|c| {
                let c = c.get_ref();
                match &c.items {
                    Some(crate::env::spec::ItemSource::Collection { name }) if c.text == list => {
                        Some(name.clone())
                    }
                    _ => None,
                }
            })
        })
    }
}

fn before_settings(d: &dyn Replica) -> &BTreeMap<String, String> {
    &d.state().settings
}

/// A changed setting as `key=value` (a bare value is ambiguous across settings).
fn setting_pair(r: Resource, before: &BTreeMap<String, String>, after: &dyn Replica) -> Resource {
    if r.kind != "setting_value" {
        return r;
    }
    let st = after.state();
    let value = r.parameter.clone().unwrap_or_default();
    let key = st
        .changed_settings
        .iter()
        .find(|k| st.settings.get(*k) == Some(&value) && before.get(*k) != Some(&value))
        .or_else(|| {
            st.changed_settings
                .iter()
                .find(|k| st.settings.get(*k) == Some(&value))
        });
    match key {
        Some(k) => Resource::new("setting_value", Some(format!("{k}={value}"))),
        None => r,
    }
}

impl OfflineRole<ExploreRequest> for OfflineExplorer {
    fn answer(&self, req: &ExploreRequest) -> Result<Outcome<Vec<SubtaskProposal>>, LlmError> {
        let proposals = self.propose(req);
        if proposals.is_empty() {
            return Ok(Outcome::Rejected {
                reason: format!(
                    "the offline explorer found no path in {} that makes a new resource hold",
                    req.application
                ),
                raw: String::new(),
            });
        }
        Ok(Outcome::Accepted(proposals))
    }
}

/// Round-robin over producing controls, so each app's first proposals differ;
/// within a control the shorter first, except that its first plan reading two
/// inputs (one that can join two earlier subtasks) leads, then its first
/// paste and, when that paste reads a kind no other application of the
/// category copies (`nearby`), its first paste of a kind one does.
fn diversify(plans: Vec<Plan>, nearby: &BTreeSet<String>) -> Vec<Plan> {
    let mut groups: BTreeMap<String, Vec<Plan>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut sorted = plans;
    let inputs = |p: &Plan| {
        p.slots
            .iter()
            .filter(|s| {
                matches!(
                    s.role,
                    SlotRole::InputPath { .. } | SlotRole::InputRecord { .. }
                )
            })
            .count()
    };
    sorted.sort_by_key(|p| (p.steps.len(), p.base_template()));
    for p in sorted {
        let key = p.producer.clone();
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(p);
    }
    // Per producer, a path that joins two files leads, then one that pastes what
    // another subtask copied: the nodes that join two branches of a task.
    // When that paste is of a kind no other application of the category
    // copies (a picture, into Writer), one of a kind one does (a table from
    // Sheets) follows it, so a category's work also joins within it.
    let nearby_paste = |p: &Plan| p.pastes.as_ref().is_some_and(|k| nearby.contains(k));
    for g in groups.values_mut() {
        if let Some(i) = g.iter().position(|p| p.pastes.is_some()) {
            let pasting = g.remove(i);
            let near = if nearby_paste(&pasting) {
                None
            } else {
                g.iter().position(nearby_paste).map(|j| g.remove(j))
            };
            g.splice(0..0, std::iter::once(pasting).chain(near));
        }
        if let Some(i) = g.iter().position(|p| inputs(p) >= 2) {
            let joining = g.remove(i);
            g.insert(0, joining);
        }
    }
    for g in groups.values_mut() {
        *g = spread_by_inputs(std::mem::take(g));
    }
    let mut out = Vec::new();
    let mut round = 0;
    loop {
        let mut any = false;
        for k in &order {
            if let Some(p) = groups.get(k).and_then(|g| g.get(round)) {
                out.push(p.clone());
                any = true;
            }
        }
        if !any {
            break;
        }
        round += 1;
    }
    out
}

/// `plans` with those that make a record another plan of the application reads
/// first (adding a recipe before exporting one, recording an expense before
/// selecting one), keeping the order otherwise. A record made earlier in the
/// same proposal is a known resource of the later plans, so the recipe just
/// added is the one exported: a chain that goes on in the application. Files
/// do not chain this way (an application is not handed a file it made).
fn makers_first(plans: Vec<Plan>) -> Vec<Plan> {
    let record_inputs: BTreeSet<String> = plans
        .iter()
        .flat_map(|p| &p.slots)
        .filter_map(|s| match &s.role {
            SlotRole::InputRecord { kind } => Some(kind.clone()),
            _ => None,
        })
        .collect();
    let makes_read_record = |p: &Plan| {
        p.slots.iter().any(
            |s| matches!(&s.role, SlotRole::OutputRecord { kind } if record_inputs.contains(kind)),
        ) && p.input_kinds().iter().all(|k| !record_inputs.contains(k))
    };
    let (mut makers, rest): (Vec<Plan>, Vec<Plan>) =
        plans.into_iter().partition(|p| makes_read_record(p));
    makers.extend(rest);
    makers
}

/// One producer's paths with every kind of input first once, then the variants:
/// Mail attaches a PDF, an archive and a workbook before it attaches the PDF
/// again with a pasted body. Kept in order otherwise (the leaders stay first).
/// Without it an application with many kinds fills its proposals with the first
/// few kinds alphabetically, and what later applications make never reaches it.
fn spread_by_inputs(plans: Vec<Plan>) -> Vec<Plan> {
    let kinds = |p: &Plan| -> Vec<String> {
        let mut k = p.input_kinds();
        k.sort();
        k
    };
    let mut rank: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    let mut keyed: Vec<(usize, usize, Plan)> = plans
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let r = rank.entry(kinds(&p)).or_insert(0);
            *r += 1;
            (*r, i, p)
        })
        .collect();
    keyed.sort_by_key(|(r, i, _)| (*r, *i));
    keyed.into_iter().map(|(_, _, p)| p).collect()
}

/// The desktop a plan starts from: `base`, with something on the clipboard when
/// the plan pastes (what an earlier subtask would have copied).
fn with_clipboard(
    base: &dyn Replica,
    plan: &Plan,
    values: &ParameterSet,
) -> Result<Box<dyn Replica>, String> {
    let mut start = base.fork();
    if let Some(kind) = &plan.pastes {
        let wanted = Resource {
            kind: kind.clone(),
            parameter: None,
        };
        start.prepare(&plan.app, &wanted, values)?;
    }
    Ok(start)
}

/// A copy of the desktop on which every known resource holds (files of other
/// subtasks' outputs exist with a stand-in content, records are in their
/// collections), with no window open.
pub fn materialize(desktop: &dyn Replica, known: &[KnownResource]) -> Box<dyn Replica> {
    let mut d = desktop.fork();
    let mut state = desktop.state().clone();
    state.windows.clear();
    state.active = None;
    for r in known {
        let Some(p) = &r.parameter else {
            continue;
        };
        let Some(spec) = desktop.kinds().get(&r.kind) else {
            continue;
        };
        if spec.directory {
            if let Ok(path) = vfs::normalize(p, vfs::HOME) {
                if !state.vfs.is_dir(&path) && state.vfs.get(&path).is_none() {
                    state.vfs.force_dir(&path);
                }
            }
            continue;
        }
        if spec.is_path() {
            if let Ok(path) = vfs::normalize(p, vfs::HOME) {
                if state.vfs.get(&path).is_none() {
                    state
                        .vfs
                        .force_file(&path, format!("Content of {}", vfs::base_name(&path)));
                }
            }
            continue;
        }
        match r.kind.as_str() {
            "url" => {
                state.known_urls.insert(p.clone());
            }
            "setting_value" => {}
            kind => {
                for c in COLLECTIONS
                    .iter()
                    .filter(|c| c.kind == kind && c.name != "history")
                {
                    let list = state.collections.entry(c.name.to_string()).or_default();
                    if !list.iter().any(|rec| rec.get(c.key) == Some(p)) {
                        let mut rec = BTreeMap::new();
                        rec.insert(c.key.to_string(), p.clone());
                        list.push(rec);
                    }
                    if kind == "bookmark" {
                        state.known_urls.insert(p.clone());
                    }
                }
            }
        }
    }
    state.clipboard = Clipboard::Empty;
    state.events.clear();
    d.restore(state);
    d
}

/// `out` ordered so that a proposal comes after those that make the values
/// its sets read (the stage checks the proposals in order, and a set on a
/// file the application makes itself, [`domain`], may read what a later
/// proposal makes), the order kept otherwise. `made_at`: the proposal that
/// first makes each of the application's values; `walked`: each proposal's
/// sets before [`domain`]'s. A proposal left in a loop loses those later sets.
fn in_making_order(
    mut out: Vec<SubtaskProposal>,
    made_at: &BTreeMap<String, usize>,
    walked: &[usize],
) -> Vec<SubtaskProposal> {
    let needs = |p: &SubtaskProposal, k: usize| -> BTreeSet<usize> {
        p.available_parameters
            .iter()
            .flat_map(|set| set.values())
            .filter_map(|v| made_at.get(v).copied())
            .filter(|&at| at != k)
            .collect()
    };
    let mut placed: Vec<usize> = Vec::new();
    while placed.len() < out.len() {
        let ready = (0..out.len()).find(|k| {
            !placed.contains(k) && needs(&out[*k], *k).iter().all(|j| placed.contains(j))
        });
        match ready {
            Some(k) => placed.push(k),
            None => {
                // A loop: the first waiting proposal keeps its walked sets only.
                let k = (0..out.len()).find(|k| !placed.contains(k)).unwrap_or(0);
                out[k]
                    .available_parameters
                    .truncate(walked.get(k).copied().unwrap_or(0).max(1));
                placed.push(k);
            }
        }
    }
    let mut slots: Vec<Option<SubtaskProposal>> = out.into_iter().map(Some).collect();
    placed.into_iter().filter_map(|k| slots[k].take()).collect()
}

/// The files and records proposal `p` made, as known resources of `app`
/// not in `known` yet: one hand-off deeper than the deepest value it read.
fn fresh_known(
    p: &SubtaskProposal,
    made: Vec<Resource>,
    known: &[KnownResource],
    app: &str,
) -> Vec<KnownResource> {
    let depth = 1 + known
        .iter()
        .filter(|r| {
            r.parameter.as_ref().is_some_and(|v| {
                p.available_parameters
                    .iter()
                    .any(|set| set.values().any(|x| x == v))
            })
        })
        .map(|r| r.depth)
        .max()
        .unwrap_or(0);
    made.into_iter()
        .filter(|r| r.parameter.is_some())
        .map(|r| KnownResource::new(&r.kind, r.parameter, app, depth))
        .filter(|k| !known.contains(k))
        .collect()
}

fn seed_of(req: &ExploreRequest) -> u64 {
    hash64(&serde_json::to_string(req).unwrap_or_default())
}

fn hash64(s: &str) -> u64 {
    let d = Sha256::digest(s.as_bytes());
    u64::from_le_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
}

/// How many made files of a kind every application that reads the kind is
/// offered: enough that a task can fan out from more than one of them.
const HUBS_PER_KIND: usize = 2;

/// How many rounds of (hub, other made file) an input slot offers before the
/// desktop's other files.
const MADE_FIRST: usize = 3;

/// The input slots of `plan`, files before records: the file a subtask reads
/// (the photo, the report) sets the topic and the record (the contact it is
/// sent to) follows it, so what is made finds its readers.
fn input_slots_files_first(plan: &Plan) -> Vec<&paths::Slot> {
    let mut slots: Vec<&paths::Slot> = plan
        .slots
        .iter()
        .filter(|s| {
            matches!(
                s.role,
                SlotRole::InputPath { .. } | SlotRole::InputRecord { .. }
            )
        })
        .collect();
    slots.sort_by_key(|s| !matches!(s.role, SlotRole::InputPath { .. }));
    slots
}

/// The input slots whose content the plan's edits change, as the composer
/// reads them: its one file; of several, those of a kind it saves (the
/// document a picture goes into, not the picture), or the first when none of
/// their kinds is saved; with no file, every input (the page a browser prints).
fn edited_slots(plan: &Plan) -> Vec<&str> {
    let files: Vec<&paths::Slot> = plan
        .slots
        .iter()
        .filter(|s| matches!(s.role, SlotRole::InputPath { .. }))
        .collect();
    let saved = |kind: &str| {
        plan.produces.iter().any(|k| k == kind)
            || plan
                .slots
                .iter()
                .any(|s| matches!(&s.role, SlotRole::OutputPath { kind: k, .. } if k == kind))
    };
    match files.len() {
        0 => input_slots_files_first(plan)
            .into_iter()
            .map(|s| s.name.as_str())
            .collect(),
        1 => vec![files[0].name.as_str()],
        _ => {
            let kept: Vec<&str> = files
                .iter()
                .filter(|s| matches!(&s.role, SlotRole::InputPath { kind } if saved(kind)))
                .map(|s| s.name.as_str())
                .collect();
            if kept.is_empty() {
                // Nothing of their kinds is saved (a picture put into a speech
                // that is then exported as a PDF): the file opened first is
                // the one the edits change.
                vec![files[0].name.as_str()]
            } else {
                kept
            }
        }
    }
}

/// Do two parameter sets read the same inputs? (Never for a plan that reads
/// none: its sets differ in what they make.)
fn same_inputs(plan: &Plan, a: &ParameterSet, b: &ParameterSet) -> bool {
    let mut inputs = input_slots_files_first(plan).into_iter().peekable();
    inputs.peek().is_some() && inputs.all(|s| a.get(&s.name) == b.get(&s.name))
}

/// The made files of one kind an input slot may read, split into the kind's
/// hubs and the rest. The hubs are the files most applications already read
/// (then fewest hand-offs behind them, then a hash of the name): whoever asks
/// next is offered the same ones, so one file comes to be read by many
/// applications and tasks fan out across them (a screenshot edited, put into a
/// report and mailed). The rest come unread first, the deepest of those first
/// (a PDF exported from a report a cropped screenshot went into is protected
/// before a PDF printed from the desktop: chains of five and more grow), then
/// the least read; `used` (this request's own picks) spreads one application's
/// subtasks over them.
fn hubs_and_rest(
    mut made: Vec<&KnownResource>,
    h: u64,
    used: &BTreeMap<String, usize>,
) -> (Vec<String>, Vec<String>) {
    let name = |r: &KnownResource| r.parameter.clone().unwrap_or_default();
    made.sort_by_key(|r| (std::cmp::Reverse(r.readers), r.depth, hash64(&name(r))));
    let hubs: Vec<String> = made.iter().take(HUBS_PER_KIND).map(|r| name(r)).collect();
    let mut rest: Vec<&KnownResource> = made.into_iter().skip(HUBS_PER_KIND).collect();
    rotate(&mut rest, h);
    rest.sort_by_key(|r| {
        (
            r.readers.min(1),
            std::cmp::Reverse(r.depth),
            r.readers,
            used.get(&name(r)).copied().unwrap_or(0),
        )
    });
    (hubs, rest.into_iter().map(name).collect())
}

/// `names` (made files) with the deepest first (most hand-offs behind them),
/// then the least read, keeping the given order among equals.
fn deepest_first(mut names: Vec<String>, known: &[KnownResource]) -> Vec<String> {
    let of = |n: &String| {
        known
            .iter()
            .filter(|r| r.parameter.as_ref() == Some(n))
            .map(|r| (std::cmp::Reverse(r.depth), r.readers))
            .min()
    };
    names.sort_by_cached_key(of);
    names
}

/// The most hand-offs behind the made file `name` (0 when it is no made file).
fn depth_of(name: &str, known: &[KnownResource]) -> u32 {
    known
        .iter()
        .filter(|r| r.parameter.as_deref() == Some(name))
        .map(|r| r.depth)
        .max()
        .unwrap_or(0)
}

/// How many files the archive named `name` packs (0: no archive of several).
fn packs_of(name: &str, known: &[KnownResource]) -> u32 {
    known
        .iter()
        .find(|r| r.parameter.as_deref() == Some(name))
        .map_or(0, |r| r.packs)
}

/// What an archive of files of `kinds` holds, as a name tag: the kinds'
/// words from their phrases in resources.toml ("the image '{}'" gives
/// 'images', "the calendar file '{}'" gives 'calendar'), one word when
/// they share it, two joined by 'and' ('pdfs_and_images'), else none.
fn holds_tag(catalog: &Catalog, kinds: &[&str]) -> Option<String> {
    let word = |kind: &str| -> Option<String> {
        let phrase = catalog.kinds.get(kind)?.phrase.as_deref()?;
        let words: Vec<&str> = phrase
            .trim_end_matches("'{}'")
            .split_whitespace()
            .filter(|w| *w != "the")
            .collect();
        match words.as_slice() {
            [.., before, "file"] => Some(before.to_lowercase()),
            [.., last] => Some(format!("{}s", last.to_lowercase())),
            [] => None,
        }
    };
    let mut words: Vec<String> = Vec::new();
    for k in kinds {
        let w = word(k)?;
        if !words.contains(&w) {
            words.push(w);
        }
    }
    words.sort();
    match words.as_slice() {
        [one] => Some(one.clone()),
        [a, b] => Some(format!("{a}_and_{b}")),
        _ => None,
    }
}

fn rotate<T>(v: &mut [T], h: u64) {
    if !v.is_empty() {
        let k = (h % v.len() as u64) as usize;
        v.rotate_left(k);
    }
}

/// Lower case, single spaces, no trailing full stop.
pub fn normalize(template: &str) -> String {
    template
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches('.')
        .to_lowercase()
}

/// The file-name stem of a path or the words of a record name, as a slug.
fn stem_of(value: &str) -> String {
    let base = if value.starts_with('/') || value.starts_with('~') {
        let b = vfs::base_name(value);
        b.rsplit_once('.').map(|(s, _)| s).unwrap_or(b).to_string()
    } else if let Some(rest) = value.strip_prefix("https://") {
        // The page's last path segment ('lentil-soup'), or for a site's front
        // page its name without the domain ('weather' of weather.example.com): a
        // person names a saved page after what it is, not its host name.
        let rest = rest.trim_end_matches('/');
        match rest.split_once('/') {
            Some((_, path)) => path.rsplit('/').next().unwrap_or(path).to_string(),
            None => rest
                .split('.')
                .find(|label| *label != "www")
                .unwrap_or(rest)
                .to_string(),
        }
    } else {
        value.split('@').next().unwrap_or(value).to_string()
    };
    let slug: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let mut parts: Vec<&str> = slug.split('_').filter(|p| !p.is_empty()).collect();
    // A name made from another output ("report_copy_2", "report_exported_3")
    // names the same thing: drop the marks and counters it was given.
    loop {
        let n = parts.len();
        let mark = |p: &str| p == "copy" || p == "backup" || p == "frozen" || p.ends_with("ed");
        let counter =
            n > 2 && parts[n - 1].chars().all(|c| c.is_ascii_digit()) && mark(parts[n - 2]);
        if counter || (n > 1 && mark(parts[n - 1])) {
            parts.pop();
        } else {
            break;
        }
    }
    let slug = parts.join("_");
    if slug.is_empty() {
        "item".into()
    } else {
        slug
    }
}

/// The stem a file made from `path` is named after: the stem of the desktop
/// file it goes back to, when its name starts with one in its folder (the
/// longest such)
/// (`launch_deck_notes_theme.pptx` goes back to `launch_deck.pptx`), so that a
/// file made from a made file reads `launch_deck_converted.docx`, not
/// `launch_deck_notes_theme_converted.docx`; else its own stem.
/// `stem` (of the file `path`) without the tags of the changes that made it,
/// when a file made earlier in the same folder has the shorter stem: a total row
/// added to `quarterly_plan.csv` gave `quarterly_plan_total_row.csv`, and what
/// is made of that (a mail's subject, the next copy) is about the quarterly plan.
fn made_root(stem: &str, path: &str, known: &[KnownResource]) -> String {
    if !path.starts_with('/') {
        return stem.to_string();
    }
    let dir = vfs::parent(path);
    let parts: Vec<&str> = stem.split('_').collect();
    (1..parts.len())
        .rev()
        .map(|k| parts[..k].join("_"))
        .find(|p| {
            known.iter().any(|r| {
                r.parameter.as_deref().is_some_and(|v| {
                    v.starts_with('/') && vfs::parent(v) == dir && stem_of(v) == *p
                })
            })
        })
        .unwrap_or_else(|| stem.to_string())
}

fn root_stem(path: &str, originals: &BTreeSet<(String, String)>) -> String {
    let stem = stem_of(path);
    if !path.starts_with('/') {
        return stem;
    }
    let dir = vfs::parent(path).to_string();
    let parts: Vec<&str> = stem.split('_').collect();
    (1..=parts.len())
        .rev()
        .map(|k| parts[..k].join("_"))
        .find(|p| originals.contains(&(dir.clone(), p.clone())))
        .unwrap_or(stem)
}

/// Whether two input files are one file in two copies: they go back to the
/// same desktop file and either share a file type (a PDF and its compressed
/// copy) or a name (a document and its PDF). Two files of different types
/// and names made from one file (its chart, its printout) are two things.
fn copies_of_one_file(a: &str, b: &str, originals: &BTreeSet<(String, String)>) -> bool {
    if root_stem(a, originals) != root_stem(b, originals) {
        return false;
    }
    let ext = |p: &str| {
        vfs::base_name(p)
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
    };
    ext(a) == ext(b) || stem_of(a) == stem_of(b)
}

/// The making steps behind each made file: the (application, input, output)
/// of every stored subtask in the chains that make it, followed back to the
/// desktop. Two files whose chains part at one application's input (a banner
/// captioned for the plan's PDF and the same banner brightened) cannot be
/// gathered: a task making both edits one file twice, side by side, and the
/// composer places neither such siblings nor their gathering.
struct Lineage<'k> {
    steps: BTreeMap<&'k str, BTreeSet<(&'k str, &'k str, &'k str)>>,
}

impl<'k> Lineage<'k> {
    fn of(known: &'k [KnownResource]) -> Lineage<'k> {
        let mut made: BTreeMap<&str, Vec<&KnownResource>> = BTreeMap::new();
        for r in known {
            if let Some(p) = &r.parameter {
                if r.source != "desktop" {
                    made.entry(p.as_str()).or_default().push(r);
                }
            }
        }
        let mut steps = BTreeMap::new();
        for p in made.keys() {
            let mut seen = BTreeSet::new();
            let mut out = BTreeSet::new();
            Self::collect(p, &made, &mut seen, &mut out);
            steps.insert(*p, out);
        }
        Lineage { steps }
    }

    fn collect(
        p: &'k str,
        made: &BTreeMap<&'k str, Vec<&'k KnownResource>>,
        seen: &mut BTreeSet<&'k str>,
        out: &mut BTreeSet<(&'k str, &'k str, &'k str)>,
    ) {
        if !seen.insert(p) {
            return;
        }
        for r in made.get(p).into_iter().flatten() {
            for input in &r.made_from {
                out.insert((r.source.as_str(), input.as_str(), p));
                Self::collect(input, made, seen, out);
            }
        }
    }

    /// Can `a` and `b` not be gathered? Either is made from the other (a
    /// photo zipped with the guide it was put in: the composer never has a
    /// node read a file and something made from it), or their chains part
    /// at one application's input: it reads the same file in both and makes
    /// different files.
    fn forked(&self, a: &str, b: &str) -> bool {
        let empty = BTreeSet::new();
        let x = self.steps.get(a).unwrap_or(&empty);
        let y = self.steps.get(b).unwrap_or(&empty);
        let behind = |steps: &BTreeSet<(&str, &str, &str)>, f: &str| {
            steps.iter().any(|(_, input, _)| *input == f)
        };
        if behind(x, b) || behind(y, a) {
            return true;
        }
        x.iter().any(|(app, input, out)| {
            y.iter()
                .any(|(app2, input2, out2)| app == app2 && input == input2 && out != out2)
        })
    }
}

impl OfflineExplorer {
    /// The candidates of a join's first file (with the slot's name) that
    /// another file input could join with a file made apart from them
    /// ([`made_apart`]: the brief and the deck that each got the brightened
    /// product shot), in candidate order; `None` when there are none. The
    /// walk makes those joins after its own sets, whatever the number of
    /// candidates, and the pool holds diamonds (one result used by two
    /// applications whose results meet again), the tasks of dependency
    /// identification. Added after the walk, they leave its sets as they are.
    fn siblings_of_first(
        &self,
        plan: &Plan,
        cands: &BTreeMap<String, Vec<String>>,
        known: &[KnownResource],
    ) -> Option<(String, Vec<String>)> {
        let files: Vec<&str> = input_slots_files_first(plan)
            .into_iter()
            .filter(|s| matches!(s.role, SlotRole::InputPath { .. }))
            .map(|s| s.name.as_str())
            .collect();
        let (first, others) = files.split_first()?;
        let partners: Vec<&String> = others
            .iter()
            .filter_map(|s| cands.get(*s))
            .flatten()
            .collect();
        // The made file two branches share (the brightened shot the brief and
        // the deck each took), when a subtask made it: only such a join
        // closes a diamond of four nodes; a desktop file read by two
        // applications gives a fork of three.
        let fork = |v: &String| {
            partners
                .iter()
                .filter(|w| **w != v && made_apart(v, w, known, &self.originals))
                .find_map(|w| made_source_of_both(v, w, known, &self.desktop_files))
        };
        let apart = |v: &String| {
            partners
                .iter()
                .any(|w| *w != v && made_apart(v, w, known, &self.originals))
        };
        // Diamonds first, one per shared source in turn (so one busy source,
        // a ledger printed five ways, does not take every diamond set), then
        // the other joins of files made apart.
        let cands = cands.get(*first)?;
        let mut by_fork: BTreeMap<&String, Vec<&String>> = BTreeMap::new();
        let mut forks: Vec<&String> = Vec::new();
        for v in cands {
            if let Some(f) = fork(v) {
                if !by_fork.contains_key(f) {
                    forks.push(f);
                }
                by_fork.entry(f).or_default().push(v);
            }
        }
        let rounds = by_fork.values().map(Vec::len).max().unwrap_or(0);
        let mut siblings: Vec<String> = Vec::new();
        for i in 0..rounds {
            for f in &forks {
                if let Some(v) = by_fork[f].get(i) {
                    siblings.push(v.to_string());
                }
            }
        }
        for v in cands {
            if apart(v) && !siblings.contains(v) {
                siblings.push(v.clone());
            }
        }
        (!siblings.is_empty()).then(|| (first.to_string(), siblings))
    }
}

/// Whether the made files `v` and `w` are made by different applications
/// from one named input and are no copies of one file ([`copies_of_one_file`]):
/// two branches of one piece of work (a picture put into a brief and into a
/// deck) that a join brings together.
fn made_apart(
    v: &str,
    w: &str,
    known: &[KnownResource],
    originals: &BTreeSet<(String, String)>,
) -> bool {
    let made = |p: &str| {
        known
            .iter()
            .find(|r| r.parameter.as_deref() == Some(p) && !r.made_from.is_empty())
    };
    let (Some(a), Some(b)) = (made(v), made(w)) else {
        return false;
    };
    a.source != b.source
        && a.made_from.iter().any(|f| b.made_from.contains(f))
        && !copies_of_one_file(v, w, originals)
}

/// A file both made files `v` and `w` were made from that a subtask made and
/// the desktop does not hold (a ledger Finance exported, not one already on
/// the desktop): the fork of a diamond.
fn made_source_of_both<'k>(
    v: &str,
    w: &str,
    known: &'k [KnownResource],
    desktop_files: &BTreeSet<String>,
) -> Option<&'k String> {
    let sources = |p: &str| -> Vec<&'k String> {
        known
            .iter()
            .filter(|r| r.parameter.as_deref() == Some(p))
            .flat_map(|r| r.made_from.iter())
            .collect()
    };
    let theirs = sources(w);
    sources(v).into_iter().find(|f| {
        let makers: Vec<&str> = known
            .iter()
            .filter(|r| r.parameter.as_ref() == Some(*f))
            .map(|r| r.source.as_str())
            .collect();
        theirs.contains(f)
            && !desktop_files.contains(*f)
            && !makers.is_empty()
            && !makers.contains(&"desktop")
    })
}

fn words_of(stem: &str) -> String {
    // A name made from a web address keeps its words, not the address's parts
    // ("docs_example_com" reads "Docs").
    const WEB: &[&str] = &[
        "www", "example", "com", "org", "net", "xml", "html", "http", "https",
    ];
    let kept: Vec<&str> = stem
        .split('_')
        .filter(|p| !p.is_empty() && !WEB.contains(p))
        .collect();
    let w = if kept.is_empty() {
        stem.replace('_', " ")
    } else {
        kept.join(" ")
    };
    capitalize(&w)
}

/// `text` with its first letter in upper case.
fn capitalize(text: &str) -> String {
    let mut c = text.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect::<String>())
        .unwrap_or_default()
}

/// The subject of `stem` in words, as it opens a title ("Invoice March") and as
/// it reads inside a sentence ("invoice March", "Lisbon"): names keep their
/// capital ([`Topics::lower_but_names`]). A stem listed under `[subjects]` in
/// `topics.toml` reads as listed ("stock" is "stock list": a mail titled
/// "Sharing stock" reads as company shares).
fn subject(stem: &str, topics: &Topics) -> (String, String) {
    let words = topics
        .subject_of(stem)
        .map_or_else(|| words_of(stem), str::to_string);
    let lower = topics.lower_but_names(&words);
    (capitalize(&lower), lower)
}

fn unique(mut candidate: impl FnMut(usize) -> String, taken: &BTreeSet<String>) -> String {
    for n in 0..50 {
        let c = candidate(n);
        if !taken.contains(&c) {
            return c;
        }
    }
    candidate(99)
}

fn default_dir(kind: &str) -> &'static str {
    match kind {
        "img_path" => "/home/user/Pictures",
        "video_path" => "/home/user/Videos",
        "audio_path" => "/home/user/Music",
        "code_path" => "/home/user/Projects",
        _ => "/home/user/Documents",
    }
}

/// The parameter that holds the output of `kind`: its output slot's name (a new
/// file of a kind the subtask also reads is `new_<kind>`), else the kind.
fn output_name(plan: &Plan, kind: &str) -> String {
    plan.slots
        .iter()
        .find_map(|s| match &s.role {
            SlotRole::OutputPath { kind: k, .. } | SlotRole::OutputRecord { kind: k }
                if k == kind =>
            {
                Some(s.name.clone())
            }
            _ => None,
        })
        .unwrap_or_else(|| kind.to_string())
}

/// Name tags for a file made by changing another, from the change phrases
/// (latest first): the thing added names it ("make the image grayscale" gives
/// "grayscale", "insert a bar chart" gives "bar_chart", "use the two-column
/// layout" gives "two_column_layout"), else what was done ("rotate the image"
/// gives "rotated"). Phrases that change nothing (open, save, export) give none.
fn change_tags(phrases: &[String], named: impl Fn(&str) -> Option<String>) -> Vec<String> {
    // The verbs whose object is what was added or set.
    let by_object = ["make", "add", "apply", "insert", "toggle", "set", "use"];
    // Words that name the document itself, not the change.
    let generic = [
        "the", "a", "an", "as", "to", "of", "into", "in", "on", "with", "for", "image", "text",
        "document", "deck", "sheet", "workbook", "file", "page", "it", "picture", "video",
    ];
    let slug = |w: &str| -> String {
        w.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect::<String>()
            .trim_matches('_')
            .to_string()
    };
    let mut tags: Vec<String> = Vec::new();
    for p in phrases.iter().rev() {
        // A value the phrase quotes is no name part: "add a comment '{text}'"
        // is named by "add a comment".
        let p = p[..p.find(['\'', '{']).unwrap_or(p.len())].trim();
        let verb = p.split_whitespace().next().unwrap_or("").to_lowercase();
        if verb.is_empty() || crate::graph::pool::NO_CHANGE.contains(&verb.as_str()) {
            continue;
        }
        let words: Vec<&str> = p.split_whitespace().skip(1).collect();
        let tag = if let Some(name) = named(p) {
            name
        } else if by_object.contains(&verb.as_str()) {
            let kept: Vec<String> = words
                .iter()
                .filter(|w| !generic.contains(&w.to_lowercase().as_str()))
                .map(|w| slug(w))
                .filter(|w| !w.is_empty())
                .collect();
            let start = kept.len().saturating_sub(2);
            match kept.is_empty() {
                // "insert the picture": the thing itself names it.
                true => words
                    .iter()
                    .rev()
                    .map(|w| slug(w))
                    .find(|w| !w.is_empty() && !["the", "a", "an"].contains(&w.as_str()))
                    .unwrap_or_default(),
                // "make the header bold": what the file has, adjective
                // first ('bold_header', as a person says it).
                false if verb == "make" && kept.len() >= 2 => {
                    let mut two = kept[start..].to_vec();
                    two.reverse();
                    two.join("_")
                }
                false => kept[start..].join("_"),
            }
        } else {
            participle(p)
        };
        if !tag.is_empty() && !tags.contains(&tag) {
            tags.push(tag);
        }
    }
    tags
}

#[cfg(test)]
/// The tag a changed copy of a file is first named by ([`change_tags`]), or
/// "backup" for a copy that changes nothing.
fn copy_tag(phrases: &[String]) -> String {
    change_tags(phrases, |_| None)
        .into_iter()
        .next()
        .unwrap_or_else(|| "backup".to_string())
}

/// The past participle of the first word of `phrase` ("export the deck as PDF"
/// gives "exported"), for naming what the action made.
fn participle(phrase: &str) -> String {
    let verb: String = phrase
        .split_whitespace()
        .next()
        .unwrap_or("")
        .chars()
        .filter(char::is_ascii_alphabetic)
        .collect::<String>()
        .to_lowercase();
    let irregular = [
        ("make", "made"),
        ("take", "taken"),
        ("send", "sent"),
        ("write", "written"),
        ("get", "got"),
        ("put", "put"),
        ("set", "set"),
        ("run", "run"),
        ("cut", "cut"),
        ("split", "split"),
        ("build", "built"),
        ("draw", "drawn"),
        ("crop", "cropped"),
        ("trim", "trimmed"),
        ("zip", "zipped"),
        ("stop", "stopped"),
        ("edit", "edited"),
        ("freeze", "frozen"),
        ("format", "formatted"),
    ];
    if let Some((_, p)) = irregular.iter().find(|(v, _)| *v == verb) {
        return p.to_string();
    }
    let b = verb.as_bytes();
    match b.last() {
        None => "new".to_string(),
        Some(b'e') => format!("{verb}d"),
        Some(b'y') if b.len() > 1 && !b"aeiou".contains(&b[b.len() - 2]) => {
            format!("{}ied", &verb[..verb.len() - 1])
        }
        // A short verb ending consonant-vowel-consonant doubles its last letter
        // ("blur" gives "blurred", "flip" gives "flipped").
        Some(&last)
            if b.len() <= 4
                && b.len() >= 3
                && !b"aeiouwxy".contains(&last)
                && b"aeiou".contains(&b[b.len() - 2])
                && !b"aeiou".contains(&b[b.len() - 3]) =>
        {
            format!("{verb}{}ed", last as char)
        }
        _ => format!("{verb}ed"),
    }
}

/// Change tags that say how a file was made, not what it is: nobody names a
/// file 'meeting_notes_date.txt', 'itinerary_pasted.docx' or
/// 'budget_imported.xlsx' (a reviewer read each as a template's mark). A copy
/// whose changes only give such tags takes a version word instead
/// ([`VERSION_TAGS`]): 'meeting_notes_final.txt'.
const MECHANICAL_TAGS: &[&str] = &[
    "pasted",
    "imported",
    "appended",
    "inserted",
    "typed",
    "frozen",
    "saved",
    "exported",
    "converted",
    "copied",
    "repeated",
    "added",
    "selected",
    "changed",
    "set",
    "used",
    "date",
    "line",
    "comment_line",
    "heading",
    "markdown_heading",
    "text",
    "picture",
    "image",
    "started",
];

/// Does a change tag name what the file is ('signed', 'grayscale', 'bar_chart')
/// rather than how it was made (see [`MECHANICAL_TAGS`])?
fn names_a_result(tag: &str) -> bool {
    !tag.is_empty() && !MECHANICAL_TAGS.contains(&tag)
}

/// Words that tell two versions of one file apart when the change tags are
/// taken ("report_final.pdf", "report_v2.pdf"): names people give, before any
/// counter. The neutral ones come first: a word that says what the file is
/// for ('shared', 'archive', 'team', 'summary') misleads when the task does
/// otherwise with it (a reader saw the raw recording named '_shared' and the
/// finished one '_archive', a '_team' screenshot mailed to family, a deck that
/// only got a transition saved as 'launch_deck_summary.pptx'). Keeping only
/// the neutral ones names fewer parameter sets, and on the embedded desktop
/// that lost the default run's only diamond (measured), so the others stay,
/// last; an effect's `names` keeps its files off them.
const VERSION_TAGS: &[&str] = &[
    "v2", "revised", "draft", "final", "review", "summary", "notes", "print", "web", "shared",
    "team", "archive", "latest", "v3", "update", "clean", "short",
];

/// Did another application already make `path`, a file of `kind`, from
/// exactly the named inputs `from` (the ledger's CSV printed to
/// 'expense_ledger.pdf' in Text Editor, before Sheets exports the same CSV)?
/// A plain conversion of the same files then takes that name rather than a
/// version word ('expense_ledger_v2.pdf' read to a reviewer as a second
/// version where there was no first): the file is the same thing whichever
/// application made it, and what reads it may take either maker. The pool
/// then holds a file of several producers; the composer never places two of
/// them in one task (they clash, [`crate::graph::clash`]).
fn converted_before(
    known: &[KnownResource],
    kind: &str,
    app: &str,
    path: &str,
    from: &BTreeSet<&str>,
) -> bool {
    !from.is_empty()
        && known.iter().any(|r| {
            r.kind == kind
                && r.parameter.as_deref() == Some(path)
                && r.source != app
                && r.made_from
                    .iter()
                    .map(String::as_str)
                    .collect::<BTreeSet<_>>()
                    == *from
        })
}

/// A new path for an output of `kind`: the input's folder (or the kind's usual
/// one) and the stem; when that name is taken, the stem with the first free tag
/// of `tags`, then of [`VERSION_TAGS`] ("report.pdf", "report_exported.pdf",
/// "report_final.pdf"), then two tags together. `None` when all are taken: a
/// counter ("report_exported_3.pdf") names a mechanical copy, so the parameter
/// set is not made.
fn output_path(
    kind: &str,
    ext: &str,
    stem: &str,
    in_dir: Option<&str>,
    tags: &[String],
    taken: &BTreeSet<String>,
) -> Option<String> {
    let dir = match in_dir {
        Some(d) if d.starts_with(vfs::HOME) && d != vfs::HOME => d.to_string(),
        _ => default_dir(kind).to_string(),
    };
    let path = |suffix: &str| {
        if kind == "dir_path" {
            format!("{dir}/{stem}{suffix}_files")
        } else {
            format!("{dir}/{stem}{suffix}.{ext}")
        }
    };
    // 'screenshot_1.png' beside 'Screenshot-1.png' is taken too: the two are
    // told apart by case and a dash only.
    let loose = |p: &str| p.to_lowercase().replace('-', "_");
    let taken_loosely: BTreeSet<String> = taken
        .iter()
        .filter(|t| t.starts_with(&dir))
        .map(|t| loose(t))
        .collect();
    std::iter::once(String::new())
        .chain(tags.iter().map(|t| format!("_{t}")))
        .chain(
            VERSION_TAGS
                .iter()
                .filter(|t| !stem.split('_').any(|p| p == **t))
                .map(|t| format!("_{t}")),
        )
        // Two tags together before a counter: a counter marks a mechanical copy.
        .chain(
            tags.iter()
                .enumerate()
                .flat_map(|(i, a)| tags[i + 1..].iter().map(move |b| format!("_{a}_{b}"))),
        )
        .map(|suffix| path(&suffix))
        .find(|p| !taken.contains(p) && !taken_loosely.contains(&loose(p)))
}

/// The name of a new record of `kind` about `stem`, the `i`-th form first;
/// `None` when every form is taken: a counter ("Review the plan 2") is a
/// template's mark, not a title a person gives.
fn output_record(
    kind: &str,
    stem: &str,
    i: usize,
    taken: &BTreeSet<String>,
    topics: &Topics,
) -> Option<String> {
    let (words, lower) = subject(stem, topics);
    let dishes: Vec<&str> = DISHES.iter().map(|(dish, _)| *dish).collect();
    let forms: &[&str] = match kind {
        "todo_item" => &[
            // Verbs that fit a subject as well as a document ("Send product
            // launch", "Finish stock" did not), and that still make sense after
            // the task changed the file ("Update launch deck" on a deck the
            // task had just updated did not).
            "Review {w}",
            "Follow up on {w}",
            "Share {w}",
            "Check {w}",
            "Discuss {w}",
        ],
        // Titles that suit a note about any subject and promise nothing the
        // note does not hold: 'ideas', 'decisions' and 'Thoughts on' did not
        // ('Invoice march ideas'), nor did 'summary', 'key points',
        // 'questions' or 'reminders' on a note holding only an attachment or
        // a pasted copy.
        "note_title" => &[
            "{w} notes",
            "Notes on {w}",
            "{w}",
            "{w} for reference",
            "Reference: {w}",
            // What the note is kept for, not that it holds a file: a reader
            // found 'Launch deck details' holding no details.
            "{w} to go over",
            "{w}: open points",
        ],
        "calendar_event" => &[
            "{w} meeting",
            "{w} review",
            "{w} session",
            "{w} call",
            "{w} planning",
            "{w} check-in",
            "{w} workshop",
            "{w} kickoff",
            "{w} sync",
            "{w} wrap-up",
            "{w} catch-up",
            "{w} walkthrough",
        ],
        // Not "Sharing {w}" ('Sharing household money' read as money being
        // shared) nor "{w}, as promised" (a promise nobody made).
        "email_sent" => &[
            "{w}",
            "{w} update",
            "{w} to look over",
            "Latest {w}",
            "Quick look at {w}",
            "{w} attached",
        ],
        "expense_record" => &[
            "{w} costs",
            "{w} purchase",
            "{w} fee",
            "{w} deposit",
            "{w} refund",
            "{w} payment",
        ],
        // A recipe is a dish whatever the subject it was started from ("Book
        // club soup" is no dish), so its name is about cooking.
        "recipe_name" => &dishes,
        "playlist_name" => &[
            "{w} mix",
            "{w} favourites",
            "{w} tracks",
            "{w} playlist",
            "{w} sounds",
            "{w} picks",
        ],
        // A new contact is a person, whatever the work it is added for.
        "email_address" => &[
            "maria.santos@example.org",
            "tom.becker@example.org",
            "priya.nair@example.org",
            "jonas.berg@example.org",
            "lena.fischer@example.org",
            "omar.haddad@example.org",
            "sofia.rossi@example.org",
            "ken.tanaka@example.org",
        ],
        "url" | "feed_subscription" => &[
            "https://feeds.example.com/{s}.xml",
            "https://feeds.example.com/{s}-news.xml",
            "https://feeds.example.com/{s}-daily.xml",
        ],
        "setting_value" => &["2500", "1800", "3200"],
        _ => &["{w}", "{w} item", "{w} entry"],
    };
    let slug = stem.replace('_', "-");
    // A form that repeats a word of the subject ("Weekly review for review")
    // reads as a template; the rest keep their order.
    let subject: Vec<String> = words_of(stem).split(' ').map(str::to_lowercase).collect();
    let fresh: Vec<&str> = forms
        .iter()
        .copied()
        .filter(|f| {
            !f.replace("{w}", " ")
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| w.len() > 2 && subject.contains(&w.to_lowercase()))
        })
        .collect();
    let forms: &[&str] = if fresh.is_empty() { forms } else { &fresh };
    let name = |n: usize| {
        let f = forms[(i + n) % forms.len()];
        // Inside a title the subject is lower case ("Share client visit").
        let w = if f.starts_with("{w}") {
            words.clone()
        } else {
            lower.clone()
        };
        f.replace("{w}", &w).replace("{s}", &slug)
    };
    if let Some(free) = (0..forms.len()).map(name).find(|c| !taken.contains(c)) {
        return Some(free);
    }
    // A setting is a number: any other one will do.
    (kind == "setting_value").then(|| unique(|n| format!("{}", 1000 + 100 * n), taken))
}

/// Does a text field hold a person's name (a contact's)?
fn names_a_person(field: &str) -> bool {
    let f = field.to_ascii_lowercase();
    f.contains("name") && (f.contains("contact") || f.contains("person"))
}

/// The person an address like 'maria.santos@example.org' belongs to ("Maria
/// Santos"); `None` for other values and for addresses of no two-part name.
fn person_of_address(value: &str) -> Option<String> {
    let (local, _) = value.split_once('@')?;
    let parts: Vec<&str> = local.split('.').collect();
    if parts.len() != 2
        || parts
            .iter()
            .any(|p| p.is_empty() || !p.chars().all(char::is_alphabetic))
    {
        return None;
    }
    Some(format!("{} {}", capitalize(parts[0]), capitalize(parts[1])))
}

/// Phrases for a free-text field whose usual value would contain another value
/// of the same parameter set (or be contained in one).
const PLAIN_TEXTS: &[&str] = &[
    "Please see the attached file",
    "Notes from this morning",
    "Ready to look over",
    "Attached for your review",
    "For the next meeting",
];

/// [`PLAIN_TEXTS`] for a message with several files attached (a reader saw
/// "Please see the attached file" above five attachments).
const PLAIN_TEXTS_MANY: &[&str] = &[
    "Please see the attached files",
    "Notes from this morning",
    "Ready to look over",
    "All attached for your review",
    "For the next meeting",
];

/// [`PLAIN_TEXTS`] for a message or note with nothing attached.
const PLAIN_TEXTS_NONE: &[&str] = &[
    "Notes from this morning",
    "A few points to look over",
    "For the next meeting",
];

/// The sentences that suit a message with `files` files attached.
fn plain_texts(files: usize) -> &'static [&'static str] {
    match files {
        0 => PLAIN_TEXTS_NONE,
        1 => PLAIN_TEXTS,
        _ => PLAIN_TEXTS_MANY,
    }
}

/// Captions that suit any picture, for one whose usual caption (its subject)
/// would repeat another value of the set.
const CAPTIONS: &[&str] = &["Taken in 2026", "A day to remember", "Worth a second look"];

/// Short labels for a tag field: none says the work is finished ('done' on a
/// note about what is still to do contradicts it).
const LABELS: &[&str] = &["to review", "important", "ideas", "later"];

/// Does the field hold a short label rather than a sentence?
fn is_label(field: &str) -> bool {
    matches!(field.to_ascii_lowercase().as_str(), "tag" | "tags")
}

/// Whether one text holds the other, ignoring case.
fn overlaps(a: &str, b: &str) -> bool {
    let (a, b) = (a.to_lowercase(), b.to_lowercase());
    a.contains(&b) || b.contains(&a)
}

/// Rewords free-text values that contain another value of the set or are
/// contained in one: a body "Contact list draft" beside the subject "Contact
/// list" would let a check that the subject was typed pass on the body alone.
fn disambiguate_free_texts(plan: &paths::Plan, values: &mut ParameterSet, i: usize) {
    for s in &plan.slots {
        let SlotRole::Text { field } = &s.role else {
            continue;
        };
        if specific_text(field, "", 0, &Topics::default()).is_some() {
            continue;
        }
        let clashes = |t: &str| {
            values
                .iter()
                .any(|(k, v)| k != &s.name && !v.is_empty() && overlaps(v, t))
        };
        let Some(current) = values.get(&s.name) else {
            continue;
        };
        if !clashes(current) {
            continue;
        }
        // A label is replaced by a label, a caption by a caption, a sentence
        // by a sentence ('Please see the attached file' is no tag, 'Ready to
        // look over' no caption under a beach photo).
        let plain = if is_label(field) {
            LABELS
        } else if field.eq_ignore_ascii_case("caption") {
            CAPTIONS
        } else {
            plain_texts(plan.input_path_kinds().len())
        };
        let replacement = (0..plain.len())
            .map(|k| plain[(i + k) % plain.len()])
            .find(|t| !clashes(t));
        if let Some(t) = replacement {
            values.insert(s.name.clone(), t.to_string());
        }
    }
}

/// A value for a free-text field, by what the field's name says it holds.
/// Is `field` a message's text (a mail's or a note's body)?
fn is_message_field(field: &str) -> bool {
    matches!(field.to_ascii_lowercase().as_str(), "body" | "message")
}

fn text_value(field: &str, stem: &str, i: usize, topics: &Topics) -> String {
    specific_text(field, stem, i, topics)
        .or_else(|| worded_text(field, stem, i, topics))
        .unwrap_or_else(|| {
            let (w, lower) = subject(stem, topics);
            match i % 4 {
                0 => format!("{w} draft"),
                1 => format!("Summary of the {lower}"),
                2 => format!("{w}: latest changes"),
                _ => format!("Key points of the {lower}"),
            }
        })
}

/// Free text of a field whose name says what people write there: a mail's body
/// says what it carries, a caption names the picture, a comment on a PDF is a
/// reviewer's remark, a tag is a short label. `{w}` is the subject in words
/// ("Summer trip"), `{l}` the same in lower case. `None` for other fields.
fn worded_text(field: &str, stem: &str, i: usize, topics: &Topics) -> Option<String> {
    let f = field.to_ascii_lowercase();
    let bank: &[&str] = match f.as_str() {
        // A body names what it carries (its file's subject, or the topic of
        // several): a reader marked one stock line to Bob, Alice and Carol
        // alike as a template's. It claims nothing about the file (another
        // took "the ... update we talked about" on a recipe exported as it
        // was for a false claim).
        // A mail's body goes with its attachments; it promises nothing
        // (readers marked "as promised", "what we talked about" and "have a
        // look when you get a chance" as stock lines) and asks for something
        // a colleague or a friend would.
        "body" => &[
            "Hi, attached: the {l}. Let me know if anything is missing.",
            "Could you look over the {l} before Friday? It's attached.",
            "{w} attached, for your review.",
            "Please find the {l} attached.",
            "Here you go: the {l}. Comments welcome.",
            "Sending over the {l} so you have it for the meeting.",
            "Attached you'll find the {l}. Any thoughts?",
            "{w}: attached for our next catch-up.",
        ],
        // A chat message carries no file.
        "message" => &[
            "Quick question about the {l}: do you have a minute today?",
            "Are we still on track with the {l}?",
            "Reminder: the {l} needs a look this week.",
            "{w}: can we go over it tomorrow?",
        ],
        // What one notes down in a note's body (not a greeting): about the
        // subject's topic when it has notes, a placeholder only without one.
        "note" if topics.note_about(stem, i).is_some() => {
            return topics.note_about(stem, i).map(str::to_string);
        }
        "note" => &[
            "Points to remember for later.",
            "Ideas to go over this week.",
            "Things to check before Friday.",
            "Open questions and next steps.",
        ],
        // A caption names what the picture shows, whatever the season.
        "caption" => &["{w}", "{w}, 2026", "{w} (2026)"],
        "title_text" => &["{w}", "{w}, 2026", "{w} (2026)"],
        "comment" => &[
            "Please check this page",
            "Looks good to me",
            "Needs a second look",
            "Approved",
        ],
        "tag" | "tags" => &["to review", "important", "{l}", "ideas"],
        // A heading (or a word to find) names the subject, not a sentence.
        "line" => &["{w}", "{w}: summary", "Notes on the {l}", "{w}: next steps"],
        "steps" => &[
            "Mix everything, then bake for 20 minutes",
            "Chop, fry and serve warm",
            "Stir and simmer for 15 minutes",
        ],
        _ => return None,
    };
    let (w, lower) = subject(stem, topics);
    Some(
        bank[i % bank.len()]
            .replace("{w}", &w)
            .replace("{l}", &lower),
    )
}

/// The working days of December 2026 before the holidays (Tuesday 1 to
/// Wednesday 23, weekends left out) that dates are drawn from: a reader took a
/// meeting in 'Room 2' on a Saturday for a made-up value, and a check-in on New
/// Year's Eve as no date anyone would pick.
const WORKDAYS: &[u32] = &[1, 2, 3, 4, 7, 8, 9, 10, 11, 14, 15, 16, 17, 18, 21, 22, 23];

/// The value of a field whose name says what it holds (a date, an amount, a
/// name...); `None` for free text.
fn specific_text(field: &str, stem: &str, i: usize, topics: &Topics) -> Option<String> {
    let (words, _) = subject(stem, topics);
    let f = field.to_ascii_lowercase();
    let pick = |xs: &[&str]| Some(xs[i % xs.len()].to_string());
    if f.contains("date") || f == "due" {
        let day = WORKDAYS[(i % 97 * 7 + stem.len()) % WORKDAYS.len()];
        return Some(format!("2026-12-{day:02}"));
    }
    if f.contains("time") && !f.contains("title") {
        return pick(&["09:30", "14:00", "16:45", "11:15"]);
    }
    if f.contains("amount") {
        return pick(&["18.40", "42.00", "9.75", "120.50"]);
    }
    if f.contains("budget") {
        return pick(&["2500", "1800", "3200"]);
    }
    if f.contains("servings") {
        return pick(&["4", "2", "6"]);
    }
    // What a calculator is given: a sum of a topic's (the bills due); made-up
    // sums only without topics.
    if f == "display" {
        return topics
            .figure(i)
            .map(str::to_string)
            .or_else(|| pick(&["125+37", "48*3", "1200/4", "19.5*4"]));
    }
    if f == "start" {
        return pick(&["5", "3", "10"]);
    }
    if f == "end" {
        return pick(&["20", "15", "30"]);
    }
    if f.contains("guest") || f.contains("assignee") || f.contains("signer") {
        return pick(&["Alice", "Bob", "Carol"]);
    }
    // A password someone can pass on: words and digits, no phrase from a
    // template ("set").
    if f.contains("password") {
        return pick(&[
            "Lisbon-2026",
            "green-kettle-42",
            "Maple7-river",
            "orbit-sparrow-9",
        ]);
    }
    // Where a person meets about the subject: its circle's places
    // (`topics.toml`), so a work topic meets in the office.
    if f.contains("location") {
        let places = topics.places_for(stem);
        if !places.is_empty() {
            return Some(places[i % places.len()].clone());
        }
        return pick(&["Room 2", "Cafe Lisboa", "Meeting room B"]);
    }
    // A person's or contact's name is words ("Home budget"), a file's name a
    // slug ("home_budget").
    if f.contains("recipe") {
        return pick(&[
            "Lentil soup",
            "Banana pancakes",
            "Tomato pasta",
            "Vegetable curry",
        ]);
    }
    if f.contains("name") && (f.contains("contact") || f.contains("person")) {
        return Some(words);
    }
    if f.contains("name") {
        return Some(stem.to_string());
    }
    if f.contains("ingredients") {
        return pick(&[
            "flour, eggs, milk",
            "rice, beans, onion",
            "pasta, tomatoes, basil",
        ]);
    }
    None
}

/// Extensions of files a terminal prints as text.
const TEXT_EXTENSIONS: &[&str] = &["txt", "md", "csv", "ics", "py", "sh", "rs", "js", "html"];

/// A command that prints something worth copying: the listing of a folder
/// that holds the fresh desktop's files (`ls ~/Documents`), the `i`-th of
/// them; `ls ~/Documents` when the desktop has none. Not `cat` of a file:
/// readers rejected, three times, a document printed in a terminal only to
/// copy its text into a chat or a slide (a person copies it from the
/// document's own application).
fn print_command(known: &[KnownResource], i: usize) -> String {
    let mut folders: Vec<&str> = known
        .iter()
        .filter(|k| k.source == "desktop")
        .filter_map(|k| k.parameter.as_deref())
        .filter(|p| p.starts_with(vfs::HOME) && !p.contains(char::is_whitespace))
        .filter_map(|p| p.rsplit_once('/').map(|(dir, _)| dir))
        .filter(|d| d.len() > vfs::HOME.len())
        .collect();
    folders.sort_unstable();
    folders.dedup();
    match folders.get(i % folders.len().max(1)) {
        Some(d) => format!("ls ~{}", &d[vfs::HOME.len()..]),
        None => "ls ~/Documents".to_string(),
    }
}

/// A command that makes a file about a subject: a subject's files on the
/// fresh desktop packed into one archive to hand on (`zip
/// ~/Documents/summer_trip.zip ~/Pictures/beach.jpg ...`), at most three of
/// them, the `i`-th run of them. The subject is `stem`'s when it has two such
/// files, else the `i`-th of those that have. Without topics (or subjects with
/// files) it lists a folder into a file named after the folder
/// ('pictures_list.txt'): a file named after a subject must hold something about
/// it (a reader rejected the list of ~/Projects saved as
/// 'summer_trip_projects.txt').
fn file_command(known: &[KnownResource], topics: &Topics, stem: &str, i: usize) -> String {
    let mut by_topic: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for p in known
        .iter()
        .filter(|k| k.source == "desktop")
        .filter_map(|k| k.parameter.as_deref())
        .filter(|p| p.starts_with(vfs::HOME) && !p.contains(char::is_whitespace))
        .filter(|p| !vfs::extension(p).is_empty() && vfs::extension(p) != "zip")
    {
        if let Some(t) = topics.topic_of(p) {
            by_topic.entry(t).or_default().push(p);
        }
    }
    by_topic.retain(|_, files| {
        files.sort_unstable();
        files.dedup();
        files.len() >= 2
    });
    let own = topics.topic_of(stem).filter(|t| by_topic.contains_key(t));
    let picked = own.or_else(|| by_topic.keys().nth(i % by_topic.len().max(1)).copied());
    let Some((t, files)) = picked.and_then(|t| Some((t, by_topic.get(&t)?))) else {
        let dir = ["Pictures", "Downloads", "Documents", "Projects"][i % 4];
        return format!("ls ~/{dir} > ~/Documents/{}_list.txt", dir.to_lowercase());
    };
    let name = match own {
        Some(_) => stem.to_string(),
        None => topics
            .get(t)
            .map_or_else(|| stem.to_string(), |topic| topic.name.replace(' ', "_")),
    };
    let n = files.len().min(3);
    let start = i % (files.len() - n + 1);
    let packed: Vec<String> = files[start..start + n]
        .iter()
        .map(|p| format!("~{}", &p[vfs::HOME.len()..]))
        .collect();
    format!("zip ~/Documents/{name}.zip {}", packed.join(" "))
}

/// Gives a new recipe's ingredients field what goes into the dish it names
/// (no buckwheat pancakes of pasta and basil).
fn match_ingredients(plan: &Plan, values: &mut ParameterSet) {
    let Some((_, ingredients)) = DISHES
        .iter()
        .find(|(dish, _)| values.values().any(|v| v == dish))
    else {
        return;
    };
    for s in &plan.slots {
        if let SlotRole::Text { field } = &s.role {
            if field.to_ascii_lowercase().contains("ingredients") {
                values.insert(s.name.clone(), (*ingredients).to_string());
            }
        }
    }
}

/// The dishes a new recipe may be, with what goes into each.
const DISHES: [(&str, &str); 6] = [
    ("Lentil soup", "red lentils, onion, carrots"),
    ("Red lentil curry", "red lentils, coconut milk, curry paste"),
    ("Buckwheat pancakes", "buckwheat flour, eggs, milk"),
    ("Lentil salad", "green lentils, tomatoes, feta"),
    ("Savoury pancakes", "flour, eggs, spinach"),
    ("Oat pancakes", "oats, eggs, milk"),
];

/// Stems for subtasks without an input.
const WORDS: &[&str] = &[
    "quarterly_plan",
    "garden_project",
    "team_offsite",
    "book_club",
    "home_budget",
    "fitness_goals",
    "client_visit",
    "summer_trip",
    "product_launch",
    "weekly_review",
    "school_fair",
    "kitchen_renovation",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_is_named_by_what_it_holds() {
        let catalog = Catalog::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
        let tag = |kinds: &[&str]| holds_tag(&catalog, kinds);
        assert_eq!(tag(&["img_path", "img_path"]).as_deref(), Some("images"));
        assert_eq!(
            tag(&["pdf_path", "img_path"]).as_deref(),
            Some("images_and_pdfs")
        );
        assert_eq!(tag(&["ics_path", "ics_path"]).as_deref(), Some("calendar"));
        assert_eq!(tag(&["pdf_path", "img_path", "csv_path"]), None);
    }

    #[test]
    fn dates_fall_on_working_days() {
        let topics = Topics::default();
        for i in 0..300 {
            for stem in ["a", "summer_trip", "weekly_review_notes"] {
                let d = specific_text("event_date", stem, i, &topics).unwrap();
                let day: u32 = d.strip_prefix("2026-12-").unwrap().parse().unwrap();
                // 1 December 2026 is a Tuesday: day % 7 is 5 on Saturdays, 6 on Sundays.
                assert!(!matches!(day % 7, 5 | 6) && day != 25, "{d}");
            }
        }
    }

    #[test]
    fn a_made_file_is_named_after_the_desktop_file_it_goes_back_to() {
        let docs = "/home/user/Documents".to_string();
        let originals: BTreeSet<(String, String)> = [
            (docs.clone(), "launch_deck".to_string()),
            (docs.clone(), "launch".to_string()),
        ]
        .into();
        // The longest stem of a desktop file in the same folder wins.
        assert_eq!(
            root_stem(
                "/home/user/Documents/launch_deck_notes_2_theme.pptx",
                &originals
            ),
            "launch_deck"
        );
        let originals: BTreeSet<(String, String)> = [(docs, "launch_deck".to_string())].into();
        assert_eq!(
            root_stem(
                "/home/user/Documents/launch_deck_notes_2_theme.pptx",
                &originals
            ),
            "launch_deck"
        );
        // Another folder, or no desktop file: its own stem.
        assert_eq!(
            root_stem("/home/user/Pictures/launch_deck_blurred.png", &originals),
            "launch_deck"
        );
        assert_eq!(
            root_stem("/home/user/Documents/plan_v2.txt", &originals),
            "plan_v2"
        );
    }

    #[test]
    fn two_things_made_from_one_file_are_no_copies_of_it() {
        let docs = "/home/user/Documents".to_string();
        let originals: BTreeSet<(String, String)> = [(docs, "ledger".to_string())].into();
        let copies = |a: &str, b: &str| copies_of_one_file(a, b, &originals);
        // A PDF and its compressed copy; a document and its PDF.
        assert!(copies(
            "/home/user/Documents/ledger.pdf",
            "/home/user/Documents/ledger_compressed.pdf"
        ));
        assert!(copies(
            "/home/user/Documents/ledger_v2.docx",
            "/home/user/Documents/ledger_v2.pdf"
        ));
        // The ledger's chart and the ledger printed: two things to mail.
        assert!(!copies(
            "/home/user/Documents/ledger_bar_chart.png",
            "/home/user/Documents/ledger.pdf"
        ));
        // Files about different things are never copies.
        assert!(!copies(
            "/home/user/Documents/ledger.pdf",
            "/home/user/Documents/menu.pdf"
        ));
    }

    #[test]
    fn two_branches_fork_a_diamond_only_from_a_file_a_subtask_made() {
        let made = |path: &str, source: &str, from: &[&str]| KnownResource {
            made_from: from.iter().map(|s| s.to_string()).collect(),
            ..KnownResource::new("pdf_path", Some(path.into()), source, 1)
        };
        let shot = "/home/user/Pictures/demo_bright.png";
        let brief = "/home/user/Documents/brief.txt";
        let known = [
            made(shot, "Image Editor", &[]),
            made("/home/user/Documents/brief.pdf", "Writer", &[shot, brief]),
            made("/home/user/Documents/deck.pdf", "Slides", &[shot]),
            made(
                "/home/user/Documents/brief_big.pdf",
                "Text Editor",
                &[brief],
            ),
        ];
        let desktop: BTreeSet<String> = [brief.to_string()].into();
        let fork = |v: &str, w: &str| made_source_of_both(v, w, &known, &desktop).cloned();
        let (bpdf, deck) = (
            "/home/user/Documents/brief.pdf",
            "/home/user/Documents/deck.pdf",
        );
        assert_eq!(fork(bpdf, deck), Some(shot.to_string()));
        // Both read the brief, but the desktop holds it: no subtask forks them.
        assert_eq!(fork(bpdf, "/home/user/Documents/brief_big.pdf"), None);
    }

    #[test]
    fn a_plain_body_counts_the_files_attached() {
        assert!(plain_texts(0).iter().all(|t| !t.contains("attached")));
        assert!(plain_texts(1).contains(&"Please see the attached file"));
        assert!(plain_texts(5).contains(&"Please see the attached files"));
        assert!(!plain_texts(5).contains(&"Please see the attached file"));
    }

    #[test]
    fn a_plain_conversion_takes_the_name_another_application_gave_it() {
        let csv = "/home/user/Documents/expense_ledger.csv";
        let pdf = "/home/user/Documents/expense_ledger.pdf";
        let known = [KnownResource {
            kind: "pdf_path".into(),
            parameter: Some(pdf.into()),
            source: "Text Editor".into(),
            readers: 0,
            shows: None,
            depth: 2,
            copied_beside: false,
            packs: 0,
            converted_only: false,
            made_from: vec![csv.into()],
        }];
        let from = BTreeSet::from([csv]);
        assert!(converted_before(&known, "pdf_path", "Sheets", pdf, &from));
        assert!(
            !converted_before(&known, "pdf_path", "Text Editor", pdf, &from),
            "its own maker names its next file anew"
        );
        let more = BTreeSet::from([csv, "/home/user/Pictures/chart.png"]);
        assert!(
            !converted_before(&known, "pdf_path", "Sheets", pdf, &more),
            "made from more than the ledger: another thing"
        );
        assert!(!converted_before(
            &known,
            "pdf_path",
            "Sheets",
            pdf,
            &BTreeSet::new()
        ));
    }

    #[test]
    fn a_made_file_is_about_the_file_it_was_made_from() {
        let known = |v: &str| KnownResource {
            kind: "csv_path".into(),
            parameter: Some(v.into()),
            source: "Finance".into(),
            readers: 0,
            shows: None,
            depth: 1,
            copied_beside: false,
            packs: 0,
            converted_only: false,
            made_from: Vec::new(),
        };
        let plan = "/home/user/Documents/quarterly_plan.csv";
        let total = "/home/user/Documents/quarterly_plan_total_row.csv";
        let known = [known(plan), known(total)];
        assert_eq!(
            made_root("quarterly_plan_total_row", total, &known),
            "quarterly_plan"
        );
        assert_eq!(made_root("quarterly_plan", plan, &known), "quarterly_plan");
        assert_eq!(
            made_root(
                "quarterly_plan_total_row",
                "/home/user/Downloads/x.csv",
                &known
            ),
            "quarterly_plan_total_row",
            "another folder's file is no ancestor"
        );
    }

    #[test]
    fn a_same_kind_copy_is_named_after_its_change() {
        let ph = |v: &[&str]| v.iter().map(|p| p.to_string()).collect::<Vec<_>>();
        let tag = |v: &[&str]| copy_tag(&ph(v));
        assert_eq!(
            tag(&[
                "open an image '{img_path}'",
                "blur the image",
                "save the image under a new name as '{new_img_path}'"
            ]),
            "blurred"
        );
        assert_eq!(
            tag(&[
                "open an image '{img_path}'",
                "make the image grayscale",
                "save the image under a new name as '{new_img_path}'"
            ]),
            "grayscale"
        );
        assert_eq!(
            tag(&[
                "open a video '{video_path}'",
                "add a fade-in",
                "export the edited video as '{new_video_path}'"
            ]),
            "fade_in"
        );
        assert_eq!(
            tag(&[
                "open a workbook '{xlsx_path}'",
                "make the header bold",
                "save the workbook under a new name as '{new_xlsx_path}'"
            ]),
            "bold_header"
        );
        // A change with a value is named by its words, not left a "backup".
        assert_eq!(
            tag(&[
                "open an image '{img_path}'",
                "add a caption '{text}'",
                "save the image under a new name as '{new_img_path}'"
            ]),
            "caption"
        );
        assert_eq!(
            tag(&[
                "open a document '{docx_path}'",
                "insert the picture '{img_path}'",
                "save the document under a new name as '{new_docx_path}'"
            ]),
            "picture"
        );
        assert_eq!(
            tag(&[
                "open a text file '{txt_path}'",
                "save the text under a new name as '{new_txt_path}'"
            ]),
            "backup"
        );
        assert_eq!(stem_of("/home/user/a/report_backup_2.txt"), "report");
    }

    #[test]
    fn a_file_is_not_named_after_how_it_was_made() {
        assert!(names_a_result("signed") && names_a_result("bar_chart"));
        for mechanical in ["pasted", "imported", "date", "frozen", "saved", "repeated"] {
            assert!(!names_a_result(mechanical), "{mechanical}");
        }
    }

    #[test]
    fn a_taken_name_gives_way_to_a_word_before_a_counter() {
        let phrases: Vec<String> = [
            "open a deck '{pptx_path}'",
            "use the two-column layout",
            "export the deck as PDF as '{pdf_path}'",
        ]
        .iter()
        .map(|p| p.to_string())
        .collect();
        let tags = change_tags(&phrases, |_| None);
        assert_eq!(tags, vec!["two_column_layout".to_string()]);
        let d = "/home/user/Documents";
        let mut taken = BTreeSet::new();
        let tags = vec!["two_column_layout".to_string(), "signed".to_string()];
        let mut made = Vec::new();
        for _ in 0..4 {
            let p = output_path("pdf_path", "pdf", "deck", Some(d), &tags, &taken).unwrap();
            taken.insert(p.clone());
            made.push(p);
        }
        assert_eq!(
            made,
            [
                "/home/user/Documents/deck.pdf",
                "/home/user/Documents/deck_two_column_layout.pdf",
                "/home/user/Documents/deck_signed.pdf",
                "/home/user/Documents/deck_v2.pdf",
            ]
        );
        // Every word taken: two tags together, then no name (a counter would
        // name a mechanical copy).
        for t in VERSION_TAGS {
            taken.insert(format!("{d}/deck_{t}.pdf"));
        }
        let both = output_path("pdf_path", "pdf", "deck", Some(d), &tags, &taken).unwrap();
        assert_eq!(
            both,
            "/home/user/Documents/deck_two_column_layout_signed.pdf"
        );
        taken.insert(both);
        assert_eq!(
            output_path("pdf_path", "pdf", "deck", Some(d), &tags, &taken),
            None
        );
    }

    /// A file known to the explorer, made by `source`.
    fn k(p: &str, source: &str) -> KnownResource {
        KnownResource {
            kind: "txt_path".into(),
            parameter: Some(p.into()),
            source: source.into(),
            readers: 0,
            shows: None,
            depth: 0,
            copied_beside: false,
            packs: 0,
            converted_only: false,
            made_from: Vec::new(),
        }
    }

    #[test]
    fn a_bundle_holds_no_file_with_what_was_made_from_it_nor_two_forks_of_one_edit() {
        let photo = "/home/user/Pictures/bridge.jpg";
        let captioned = "/home/user/Pictures/bridge_captioned.jpg";
        let from = |p: &str, source: &str, inputs: &[&str]| KnownResource {
            made_from: inputs.iter().map(|s| s.to_string()).collect(),
            ..k(p, source)
        };
        let known = vec![
            k(photo, "desktop"),
            from(captioned, "Image Editor", &[photo]),
            from(
                "/home/user/Pictures/bridge_bright.jpg",
                "Image Editor",
                &[photo],
            ),
            from(
                "/home/user/Documents/guide.pdf",
                "Writer",
                &["/home/user/Documents/guide.md", captioned],
            ),
            from(
                "/home/user/Documents/guide_small.pdf",
                "PDF Tool",
                &["/home/user/Documents/guide.pdf"],
            ),
            from(
                "/home/user/Documents/deck.pdf",
                "Slides",
                &["/home/user/Documents/deck.pptx", captioned],
            ),
            from(
                "/home/user/Documents/routes.pdf",
                "Sheets",
                &["/home/user/Documents/routes.csv"],
            ),
        ];
        let lineage = Lineage::of(&known);
        // The captioned photo is in the guide, three hand-offs down.
        assert!(lineage.forked("/home/user/Documents/guide_small.pdf", captioned));
        assert!(lineage.forked(captioned, "/home/user/Documents/guide_small.pdf"));
        // Image Editor edits the one photo twice, side by side.
        assert!(lineage.forked(
            "/home/user/Documents/guide_small.pdf",
            "/home/user/Pictures/bridge_bright.jpg"
        ));
        // Two applications' files from one picture are two things; so are
        // files of nothing in common.
        assert!(!lineage.forked(
            "/home/user/Documents/guide_small.pdf",
            "/home/user/Documents/deck.pdf"
        ));
        assert!(!lineage.forked(
            "/home/user/Documents/guide_small.pdf",
            "/home/user/Documents/routes.pdf"
        ));
    }

    #[test]
    fn files_made_apart_from_one_picture_are_joined() {
        let pic = "/home/user/Pictures/demo_cropped.png";
        let from = |p: &str, source: &str, inputs: &[&str]| KnownResource {
            made_from: inputs.iter().map(|s| s.to_string()).collect(),
            ..k(p, source)
        };
        let known = vec![
            from(
                "/home/user/Documents/brief.pdf",
                "Writer",
                &["/home/user/Documents/brief.txt", pic],
            ),
            from(
                "/home/user/Documents/deck.pdf",
                "Slides",
                &["/home/user/Documents/deck.pptx", pic],
            ),
            from(
                "/home/user/Documents/deck_v2.pdf",
                "Slides",
                &["/home/user/Documents/deck.pptx", pic],
            ),
            from(
                "/home/user/Documents/menu.pdf",
                "Writer",
                &["/home/user/Documents/menu.txt"],
            ),
            k("/home/user/Documents/plan.pdf", "desktop"),
        ];
        let originals = BTreeSet::new();
        let apart = |v: &str, w: &str| made_apart(v, w, &known, &originals);
        assert!(apart(
            "/home/user/Documents/brief.pdf",
            "/home/user/Documents/deck.pdf"
        ));
        // One application's two files, files of nothing in common, a desktop file.
        assert!(!apart(
            "/home/user/Documents/deck.pdf",
            "/home/user/Documents/deck_v2.pdf"
        ));
        assert!(!apart(
            "/home/user/Documents/brief.pdf",
            "/home/user/Documents/menu.pdf"
        ));
        assert!(!apart(
            "/home/user/Documents/brief.pdf",
            "/home/user/Documents/plan.pdf"
        ));
    }

    #[test]
    fn a_copied_terminal_output_lists_a_folder_of_the_desktop() {
        let known = vec![
            k("/home/user/Pictures/a.png", "desktop"),
            k("/home/user/Documents/new.txt", "Writer"),
            k("/home/user/Documents/b.md", "desktop"),
            k("/home/user/Projects/site/index.html", "desktop"),
        ];
        // Folders of the fresh desktop's files (another subtask's output may
        // not exist when the command runs), one after another; never a file
        // printed only to copy its text.
        assert_eq!(print_command(&known, 0), "ls ~/Documents");
        assert_eq!(print_command(&known, 1), "ls ~/Pictures");
        assert_eq!(print_command(&known, 2), "ls ~/Projects/site");
        assert_eq!(print_command(&known, 3), "ls ~/Documents");
        assert_eq!(print_command(&[], 0), "ls ~/Documents");
    }

    #[test]
    fn a_terminal_makes_a_file_about_its_subject() {
        let topics = Topics::new(vec![crate::topics::Topic {
            name: "summer trip".into(),
            purpose: "for the summer trip".into(),
            words: vec!["summer trip".into(), "beach".into(), "itinerary".into()],
            circle: None,
            notes: Vec::new(),
            figures: Vec::new(),
        }])
        .unwrap();
        let known = vec![
            k("/home/user/Pictures/beach.jpg", "desktop"),
            k("/home/user/Documents/itinerary.docx", "desktop"),
            k("/home/user/Documents/budget.xlsx", "desktop"),
            k("/home/user/Documents/beach_notes.txt", "Writer"),
        ];
        // The subject's files on the fresh desktop, packed for handing on.
        assert_eq!(
            file_command(&known, &topics, "summer_trip", 0),
            "zip ~/Documents/summer_trip.zip ~/Documents/itinerary.docx ~/Pictures/beach.jpg"
        );
        // A subject without two files of its own gives way to one with.
        assert_eq!(
            file_command(&known, &topics, "home_budget", 1),
            "zip ~/Documents/summer_trip.zip ~/Documents/itinerary.docx ~/Pictures/beach.jpg"
        );
        // Without subjects a folder is listed, into a file named after it.
        assert_eq!(
            file_command(&known, &Topics::default(), "home_budget", 1),
            "ls ~/Downloads > ~/Documents/downloads_list.txt"
        );
    }

    #[test]
    fn stems_and_records_are_readable() {
        assert_eq!(
            stem_of("/home/user/Documents/meeting_notes.txt"),
            "meeting_notes"
        );
        assert_eq!(stem_of("https://news.example.com/tech"), "tech");
        // A front page is named after the site, not its host name.
        assert_eq!(stem_of("https://weather.example.com"), "weather");
        assert_eq!(stem_of("https://www.example.org/"), "example");
        assert_eq!(
            stem_of("https://recipes.example.com/lentil-soup"),
            "lentil_soup"
        );
        // Marks an earlier output was given are not part of the name.
        assert_eq!(stem_of("/home/user/a/report_copy_2.pdf"), "report");
        assert_eq!(
            stem_of("/home/user/a/launch_deck_exported_11.pdf"),
            "launch_deck"
        );
        assert_eq!(stem_of("/home/user/a/board-4.md"), "board_4");
        let taken = BTreeSet::from(["Review meeting notes".to_string()]);
        assert_eq!(
            output_record("todo_item", "meeting_notes", 0, &taken, &Topics::default()).unwrap(),
            "Follow up on meeting notes"
        );
        assert_eq!(
            output_record(
                "note_title",
                "meeting_notes",
                0,
                &BTreeSet::new(),
                &Topics::default()
            )
            .unwrap(),
            "Meeting notes",
            "no 'Meeting notes notes'"
        );
        assert_eq!(
            output_record(
                "email_sent",
                "weekly_review",
                2,
                &BTreeSet::new(),
                &Topics::default()
            )
            .unwrap(),
            "Weekly review to look over",
            "no 'Weekly review for review'"
        );
        // A stem `[subjects]` lists reads as its subject ("Sharing stock"
        // read as company shares).
        let listed = Topics::default()
            .with_subjects(BTreeMap::from([(
                "stock".to_string(),
                "stock list".to_string(),
            )]))
            .unwrap();
        assert_eq!(
            output_record("email_sent", "stock", 2, &BTreeSet::new(), &listed).unwrap(),
            "Stock list to look over"
        );
        // A month keeps its capital inside a title.
        assert_eq!(
            output_record(
                "todo_item",
                "invoice_march",
                0,
                &BTreeSet::new(),
                &Topics::default()
            )
            .unwrap(),
            "Review invoice March"
        );
        // Once every form is taken there is no new name, not a counter.
        let all: BTreeSet<String> = (0..20)
            .filter_map(|i| {
                output_record("recipe_name", "x", i, &BTreeSet::new(), &Topics::default())
            })
            .collect();
        assert_eq!(
            output_record("recipe_name", "x", 0, &all, &Topics::default()),
            None
        );
        assert_eq!(
            person_of_address("maria.santos@example.org").as_deref(),
            Some("Maria Santos")
        );
        assert_eq!(person_of_address("team@example.com"), None);
    }

    #[test]
    fn outputs_are_named_by_what_the_action_did() {
        assert_eq!(participle("export the deck as PDF"), "exported");
        assert_eq!(participle("save the image under a new name"), "saved");
        assert_eq!(participle("copy the picture"), "copied");
        assert_eq!(participle("take a screenshot"), "taken");
        assert_eq!(participle("play a song"), "played");
        assert_eq!(participle("edit the screenshot"), "edited");
        assert_eq!(participle("freeze the header row"), "frozen");
        assert_eq!(participle("format numbers as currency"), "formatted");
        let taken = BTreeSet::from(["/home/user/Documents/plan.pdf".to_string()]);
        assert_eq!(
            output_path(
                "pdf_path",
                "pdf",
                "plan",
                None,
                &["exported".into()],
                &taken
            ),
            Some("/home/user/Documents/plan_exported.pdf".to_string())
        );
        assert_eq!(
            output_path(
                "pdf_path",
                "pdf",
                "notes",
                None,
                &["exported".into()],
                &taken
            ),
            Some("/home/user/Documents/notes.pdf".to_string())
        );
    }

    #[test]
    fn free_texts_do_not_hold_other_values() {
        let slot = |name: &str, role: SlotRole| paths::Slot {
            name: name.into(),
            role,
            label: name.into(),
            says: None,
        };
        let plan = paths::Plan {
            app: "Mail".into(),
            steps: Vec::new(),
            slots: vec![
                slot(
                    "email_sent",
                    SlotRole::OutputRecord {
                        kind: "email_sent".into(),
                    },
                ),
                slot(
                    "body",
                    SlotRole::Text {
                        field: "Body".into(),
                    },
                ),
                slot(
                    "due",
                    SlotRole::Text {
                        field: "Due".into(),
                    },
                ),
            ],
            phrases: Vec::new(),
            clicked: Vec::new(),
            producer: "Send".into(),
            produces: Vec::new(),
            screen: "compose".into(),
            reads: Vec::new(),
            native_ext: None,
            pastes: None,
        };
        let mut values = ParameterSet::new();
        values.insert("email_sent".into(), "Contact list".into());
        values.insert(
            "body".into(),
            text_value("Body", "contact_list", 0, &Topics::default()),
        );
        values.insert("due".into(), "2026-12-05".into());
        assert_eq!(
            values["body"],
            "Hi, attached: the contact list. Let me know if anything is missing."
        );
        // A body that repeats the subject gives way to a plain text.
        values.insert("body".into(), "Contact list draft".into());
        disambiguate_free_texts(&plan, &mut values, 0);
        assert!(
            !overlaps(&values["body"], "Contact list"),
            "{}",
            values["body"]
        );
        assert_eq!(values["email_sent"], "Contact list");
        assert_eq!(values["due"], "2026-12-05");
        // A body that holds no other value keeps its wording.
        values.insert("body".into(), "Weekly review summary".into());
        disambiguate_free_texts(&plan, &mut values, 0);
        assert_eq!(values["body"], "Weekly review summary");
    }
}
