//! `synth intents`: the planner role groups verified subtasks into task intents
//! (OmniBench B.3, "task composition with consistent intent"), and the stage keeps
//! the groups that anchor known subtasks connected by resource dependencies.
//!
//! The stage reads the verified pool, builds one [`PlanRequest`] (each subtask with
//! its instantiated resources `kind=parameter` over all its parameter sets), asks
//! the planner through [`StageContext::language_model`] (offline, openai or
//! replay), and stores every proposed intent: accepted, or rejected with the
//! reason (an unknown subtask id, an empty goal, or a group that is not weakly
//! connected by resource dependencies). A group already stored (same subtask set)
//! is not stored again, so re-running does no new work. The whole reply is stored
//! in one transaction, and the stage's run records the signature of the pool it
//! planned ([`pool_signature`]): `synth run` plans again when no finished stage
//! has the current pool's signature (a killed stage left none).
//!
//! # The offline planner
//! [`plan_offline`] is a deterministic, rule-based baseline, not a language model:
//! - subtask `a` feeds `b` when an output resource of `a` (kind and parameter, over
//!   all parameter sets) is an input resource of `b`;
//! - each final subtask (one whose outputs no subtask uses) is a goal, and its group
//!   is the goal with everything that contributes to it (every subtask with a
//!   dependency path to it), largest first: together these groups cover every
//!   subtask that reaches a goal, and the deep chains and wide fan-ins that the hard
//!   levels need stay whole inside the goal they lead to;
//! - a part no goal reaches (a cycle with no exit) is covered by its whole
//!   connected component;
//! - then each goal with only its near contributors (up to two dependency steps
//!   back), for smaller, tighter tasks;
//! - each group is worded from its own instructions: the files prepared for the
//!   goal (produced by one member and used by another, those feeding the goal
//!   first) and the goal's first clause, e.g. "Prepare 'budget.csv', then write a
//!   mail to anna@example.com with the subject 'Trip budget'". Resource values come
//!   from each subtask's first parameter set (a task composed in the group may use
//!   a sibling parameter set of the same subtasks).
//!
//! An isolated subtask (no dependency either way) gets a one-subtask group of its
//! own so that it stays composable as a single-node task.
//! The stage records the group's scenario (OmniBench A.5, [`Catalog::scenario_of`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Serialize;

use super::StageContext;
use crate::graph::{self, Pool, Scope};
use crate::llm::{Intent, LlmError, OfflineRoles, Outcome, PlanRequest, PlanSubtask};
use crate::model::{Provenance, SubtaskId, SubtaskStatus};
use crate::resources::{self, Catalog};
use crate::store::intents::{IntentRecord, IntentStatus};
use crate::store::{RunStatus, StoreError};

/// Flags of `synth intents`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct IntentsArgs {
    /// Most intents to propose in this run (default: as many as the pool supports).
    #[arg(long, value_name = "N")]
    pub max: Option<usize>,
}

/// Errors of the intents stage.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IntentsStageError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Catalog(#[from] resources::CatalogError),
    #[error("the subtask pool cannot be instantiated")]
    Pool(#[from] graph::PoolError),
    #[error("the planner failed")]
    Llm(#[from] LlmError),
    #[error("cannot start the runtime for model calls")]
    Runtime(#[source] std::io::Error),
    #[error("the store holds no verified subtasks: import a pool first (synth pool import subtask_pool/*.jsonl) or run explore and verify")]
    EmptyPool,
}

/// What `synth intents` did.
#[derive(Debug, Clone, Serialize)]
pub struct IntentsReport {
    pub backend: String,
    /// Intents the planner proposed in this run.
    pub proposed: usize,
    /// Newly stored as accepted.
    pub accepted: usize,
    /// Newly stored as rejected (with reasons).
    pub rejected: usize,
    /// Proposed groups that were already stored.
    pub already_present: usize,
    /// The planner's whole reply was rejected (unparsable after re-asks).
    pub planner_rejection: Option<String>,
    /// Accepted intents in the store after this run.
    pub total_accepted: usize,
    /// Placeable verified subtasks offered to the planner.
    pub offered: usize,
    /// Placeable verified subtasks that no accepted intent anchors.
    pub uncovered_subtasks: usize,
    /// Verified subtasks that can never be placed in a task (an input neither on
    /// the initial desktop nor made by another placeable subtask); not planned.
    pub unplaceable_subtasks: usize,
    /// Why this run's proposals were rejected: each reason (with its specifics
    /// cut off, e.g. `unknown subtask id(s)`) and how many had it, most common first.
    pub rejections: Vec<(String, usize)>,
    pub seconds: f64,
}

impl fmt::Display for IntentsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "planner ({}) proposed {} intents: {} accepted, {} rejected, {} already stored ({:.2}s)",
            self.backend,
            self.proposed,
            self.accepted,
            self.rejected,
            self.already_present,
            self.seconds
        )?;
        if let Some(r) = &self.planner_rejection {
            writeln!(f, "the planner's reply was rejected: {r}")?;
        }
        if !self.rejections.is_empty() {
            let why: Vec<String> = self
                .rejections
                .iter()
                .map(|(reason, n)| format!("{n} {reason}"))
                .collect();
            if self.accepted == 0 && self.already_present == 0 {
                writeln!(f, "nothing accepted; rejected: {}", why.join("; "))?;
            } else {
                writeln!(f, "rejected: {}", why.join("; "))?;
            }
        } else if self.proposed == 0 && self.planner_rejection.is_none() {
            writeln!(
                f,
                "the planner proposed nothing ({} placeable subtasks were offered)",
                self.offered
            )?;
        }
        write!(
            f,
            "{} accepted intents in the store; {} verified subtasks anchored by none",
            self.total_accepted, self.uncovered_subtasks
        )?;
        if self.unplaceable_subtasks > 0 {
            write!(
                f,
                "; {} verified subtasks can never be placed (an input nothing provides) and were not planned",
                self.unplaceable_subtasks
            )?;
        }
        Ok(())
    }
}

/// Counts rejection reasons by their general part (the text before a colon:
/// `unknown subtask id(s)`, `the group has no dependency path between its parts`).
fn rejection_summary(records: &[IntentRecord]) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for r in records {
        if let Some(reason) = &r.reason {
            let general = reason.split(':').next().unwrap_or(reason).trim();
            *counts.entry(general.to_string()).or_default() += 1;
        }
    }
    let mut out: Vec<(String, usize)> = counts.into_iter().collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

/// The offline backend for this stage: the rule-based planner.
pub fn offline_roles() -> OfflineRoles {
    OfflineRoles {
        planner: Some(Box::new(|req: &PlanRequest| {
            Ok(Outcome::Accepted(plan_offline(req)))
        })),
        ..OfflineRoles::default()
    }
}

/// Runs `synth intents`.
///
/// # Errors
/// No verified subtasks, store or catalogue failures, or a planner that gives no
/// reply at all (a rejected reply is reported, not an error).
pub fn run(args: &IntentsArgs, cx: &StageContext<'_>) -> Result<IntentsReport, IntentsStageError> {
    let started = std::time::Instant::now();
    let subtasks = cx.store.subtasks(SubtaskStatus::Verified)?;
    if subtasks.is_empty() {
        return Err(IntentsStageError::EmptyPool);
    }
    let initial = resources::initial_resources(&cx.workspace, cx.catalog)?;
    let pool = Pool::new(cx.catalog, &subtasks, &initial)?;
    let existing = cx.store.intents(None)?;
    let max = args.max;
    let request = plan_request(&pool, &existing, max);
    let run = cx.store.begin_run(
        "intents",
        &serde_json::json!({
            "max": max,
            "backend": cx.llm.backend.to_string(),
            "pool": pool_signature(subtasks.iter().map(|s| s.id.0.as_str())),
        }),
    )?;

    let runtime = cx.runtime().map_err(IntentsStageError::Runtime)?;
    let reply = runtime.block_on(async {
        let model = cx.language_model(run, offline_roles()).await?;
        model.plan(&request).await
    });
    let reply = match reply {
        Ok(r) => r,
        Err(e) => {
            cx.store.finish_run(
                run,
                RunStatus::Failed,
                &serde_json::json!({"error": e.to_string()}),
            )?;
            return Err(e.into());
        }
    };
    let provenance = Provenance {
        backend: reply.info.backend.to_string(),
        model: reply.info.model.clone(),
        prompt_hash: reply.info.prompt_hash.clone(),
        round: None,
        note: (reply.info.backend == crate::llm::Backend::Offline)
            .then(|| "rule-based baseline planner, not a language model".to_string()),
    };
    let mut report = IntentsReport {
        backend: reply.info.backend.to_string(),
        proposed: 0,
        accepted: 0,
        rejected: 0,
        already_present: 0,
        planner_rejection: None,
        total_accepted: 0,
        offered: request.subtasks.len(),
        uncovered_subtasks: 0,
        unplaceable_subtasks: 0,
        rejections: Vec::new(),
        seconds: 0.0,
    };
    let proposals = match reply.outcome {
        Outcome::Accepted(v) => v,
        Outcome::Rejected { reason, .. } => {
            report.planner_rejection = Some(reason);
            Vec::new()
        }
    };
    report.proposed = proposals.len();
    let bar = cx.progress(proposals.len() as u64, "intents");
    let records: Vec<IntentRecord> = proposals
        .iter()
        .map(|intent| {
            let mut rec = review(intent, &pool, cx.catalog);
            rec.provenance = Some(provenance.clone());
            bar.inc(1);
            rec
        })
        .collect();
    bar.finish_and_clear();
    report.rejections = rejection_summary(&records);
    // The reply is the stage's unit of work: stored in one transaction with the
    // stage's completion record (its run, ended `ok`), so a killed stage leaves
    // every intent of it and the record, or neither, and `synth run` plans again.
    // The summary is made from what was stored before (one writer: nothing else
    // changes the intents meanwhile) and what this reply inserts.
    let mut accepted: BTreeSet<&str> = existing
        .iter()
        .filter(|i| i.status == IntentStatus::Accepted)
        .map(|i| i.id.as_str())
        .collect();
    let mut covered: BTreeSet<&str> = existing
        .iter()
        .filter(|i| i.status == IntentStatus::Accepted)
        .flat_map(|i| i.subtask_ids.iter().map(String::as_str))
        .collect();
    cx.store.put_intents_and_finish(&records, run, |inserted| {
        for (rec, &new) in records.iter().zip(inserted) {
            match (new, rec.status) {
                (false, _) => report.already_present += 1,
                (true, IntentStatus::Accepted) => {
                    report.accepted += 1;
                    accepted.insert(rec.id.as_str());
                    covered.extend(rec.subtask_ids.iter().map(String::as_str));
                }
                (true, IntentStatus::Rejected) => report.rejected += 1,
            }
        }
        report.total_accepted = accepted.len();
        report.uncovered_subtasks = request
            .subtasks
            .iter()
            .filter(|s| !covered.contains(s.id.as_str()))
            .count();
        report.unplaceable_subtasks = subtasks.len() - request.subtasks.len();
        report.seconds = started.elapsed().as_secs_f64();
        serde_json::to_value(&report).unwrap_or_default()
    })?;
    Ok(report)
}

/// A signature of the verified pool (a hash of its sorted subtask ids): the intents
/// stage records it with its run, and `synth run` plans intents again only when no
/// finished intents stage has the current pool's signature.
pub fn pool_signature<'a>(ids: impl IntoIterator<Item = &'a str>) -> String {
    use sha2::{Digest, Sha256};
    let mut ids: Vec<&str> = ids.into_iter().collect();
    ids.sort_unstable();
    ids.dedup();
    let mut h = Sha256::new();
    for id in ids {
        h.update(id.as_bytes());
        h.update(b"\n");
    }
    h.finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The planner's request: every verified subtask that can be placed in a task
/// (some parameter set has every input on the initial desktop or made by other
/// placeable subtasks) with its first instruction and its instantiated resources
/// (`kind=parameter`, over its placeable parameter sets), and the texts of the
/// intents already stored.
pub fn plan_request(pool: &Pool<'_>, existing: &[IntentRecord], max: Option<usize>) -> PlanRequest {
    let mut per_subtask: BTreeMap<usize, (BTreeSet<String>, BTreeSet<String>)> = BTreeMap::new();
    for (i, inst) in pool.instances().iter().enumerate() {
        if !pool.is_placeable(i) {
            continue;
        }
        let e = per_subtask.entry(inst.subtask).or_default();
        e.0.extend(inst.inputs.iter().map(ToString::to_string));
        e.1.extend(inst.outputs.iter().map(ToString::to_string));
    }
    let subtasks = pool
        .subtasks()
        .iter()
        .enumerate()
        .filter_map(|(k, s)| {
            let (ins, outs) = per_subtask.remove(&k)?;
            Some(PlanSubtask {
                id: s.id.0.clone(),
                application: s.application.clone(),
                category: s
                    .category
                    .clone()
                    .unwrap_or_else(|| graph::pool::UNCATEGORIZED.to_string()),
                instruction: s
                    .instruction(0)
                    .unwrap_or_else(|| s.instruction_template.clone()),
                input_resources: ins.into_iter().collect(),
                output_resources: outs.into_iter().collect(),
            })
        })
        .collect();
    PlanRequest {
        subtasks,
        existing_intents: existing.iter().map(|i| i.intent.clone()).collect(),
        max_intents: max,
    }
}

/// Checks one proposed intent against the pool: the record to store, accepted or
/// rejected with the reason.
pub fn review(intent: &Intent, pool: &Pool<'_>, catalog: &Catalog) -> IntentRecord {
    let mut ids: Vec<String> = intent
        .subtask_ids
        .iter()
        .map(|s| s.trim().to_string())
        .collect();
    ids.sort();
    ids.dedup();
    let index: BTreeMap<&str, usize> = pool
        .subtasks()
        .iter()
        .enumerate()
        .map(|(k, s)| (s.id.0.as_str(), k))
        .collect();
    let unknown: Vec<&str> = ids
        .iter()
        .filter(|id| !index.contains_key(id.as_str()))
        .map(String::as_str)
        .collect();
    let members: Vec<usize> = ids
        .iter()
        .filter_map(|id| index.get(id.as_str()).copied())
        .collect();
    let reason = if intent.intent.trim().is_empty() {
        Some("the intent is empty".to_string())
    } else if ids.is_empty() {
        Some("the intent anchors no subtask".to_string())
    } else if !unknown.is_empty() {
        Some(format!(
            "unknown subtask id(s): {}",
            unknown
                .iter()
                .map(|u| format!("'{u}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    } else {
        disconnected(pool, &members).map(|parts| {
            format!(
                "the group has no dependency path between its parts: {}",
                parts
                    .iter()
                    .map(|p| format!(
                        "[{}]",
                        p.iter()
                            .map(|&k| pool.subtasks()[k].application.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                    .collect::<Vec<_>>()
                    .join(" and ")
            )
        })
    };
    let scenario = (!members.is_empty()).then(|| {
        catalog.scenario_of(members.iter().map(|&k| {
            pool.subtasks()[k]
                .category
                .as_deref()
                .unwrap_or(graph::pool::UNCATEGORIZED)
        }))
    });
    IntentRecord {
        id: IntentRecord::id_of(&ids),
        intent: intent.intent.trim().to_string(),
        subtask_ids: ids,
        scenario,
        status: if reason.is_some() {
            IntentStatus::Rejected
        } else {
            IntentStatus::Accepted
        },
        reason,
        provenance: None,
    }
}

/// `None` when the subtasks (pool subtask indices) are weakly connected by
/// resource dependencies between their instances; else the connected parts.
fn disconnected(pool: &Pool<'_>, members: &[usize]) -> Option<Vec<Vec<usize>>> {
    if members.len() <= 1 {
        return None;
    }
    let set: BTreeSet<usize> = members.iter().copied().collect();
    let mut adj: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for (i, inst) in pool.instances().iter().enumerate() {
        if !set.contains(&inst.subtask) {
            continue;
        }
        for &j in pool.dependents(i) {
            let other = pool.instance(j as usize).subtask;
            if other != inst.subtask && set.contains(&other) {
                adj.entry(inst.subtask).or_default().insert(other);
                adj.entry(other).or_default().insert(inst.subtask);
            }
        }
    }
    let parts = components(members, |v| {
        adj.get(&v)
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default()
    });
    (parts.len() > 1).then_some(parts)
}

/// Weakly connected parts of `nodes` under `neighbours`, each sorted, in order of
/// their smallest member.
fn components(nodes: &[usize], neighbours: impl Fn(usize) -> Vec<usize>) -> Vec<Vec<usize>> {
    let set: BTreeSet<usize> = nodes.iter().copied().collect();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for &start in &set {
        if !seen.insert(start) {
            continue;
        }
        let mut part = vec![start];
        let mut k = 0;
        while k < part.len() {
            let v = part[k];
            k += 1;
            for w in neighbours(v) {
                if set.contains(&w) && seen.insert(w) {
                    part.push(w);
                }
            }
        }
        part.sort_unstable();
        out.push(part);
    }
    out
}

/// The composition scopes of stored intents: the placeable instances of each
/// intent's subtasks, split by topic and into their weakly connected parts
/// ([`Pool::topic_parts`]), each labelled with the intent's text. Intents whose
/// subtasks are no longer verified contribute what is left. A part that cannot
/// yield a task of `min_nodes` nodes ([`can_yield`]) is not kept.
pub fn intent_scopes(pool: &Pool<'_>, intents: &[IntentRecord], min_nodes: usize) -> Vec<Scope> {
    let mut by_id: BTreeMap<&SubtaskId, Vec<usize>> = BTreeMap::new();
    for (i, inst) in pool.instances().iter().enumerate() {
        if pool.is_placeable(i) {
            by_id
                .entry(&pool.subtasks()[inst.subtask].id)
                .or_default()
                .push(i);
        }
    }
    intents
        .iter()
        .flat_map(|intent| {
            let members: Vec<usize> = intent
                .subtask_ids
                .iter()
                .filter_map(|id| by_id.get(&SubtaskId(id.clone())))
                .flatten()
                .copied()
                .collect();
            pool.topic_parts(&Scope::new(intent.intent.clone(), members))
        })
        .filter(|scope| can_yield(pool, scope, min_nodes))
        .collect()
}

/// Can `scope` yield a task of at least `min_nodes` nodes? It needs a root (an
/// instance with every input on the initial desktop) and, for two or more nodes,
/// at least `min_nodes` members and a root with a dependent in the scope: every
/// connected task of two or more nodes has one. A necessary condition, cheap to
/// check; it drops the single instances and root-less parts that topic and
/// connectivity splits leave.
pub fn can_yield(pool: &Pool<'_>, scope: &Scope, min_nodes: usize) -> bool {
    let roots = scope.members.iter().filter(|&&i| pool.is_root(i));
    if min_nodes <= 1 {
        return roots.count() > 0;
    }
    scope.members.len() >= min_nodes
        && roots.into_iter().any(|&r| {
            pool.dependents(r)
                .iter()
                .any(|&d| scope.members.binary_search(&(d as usize)).is_ok())
        })
}

/// The rule-based planner (see the module docs). Deterministic: the same request
/// gives the same intents in the same order.
pub fn plan_offline(req: &PlanRequest) -> Vec<Intent> {
    let n = req.subtasks.len();
    let ins: Vec<BTreeSet<&str>> = req
        .subtasks
        .iter()
        .map(|s| s.input_resources.iter().map(String::as_str).collect())
        .collect();
    let outs: Vec<BTreeSet<&str>> = req
        .subtasks
        .iter()
        .map(|s| s.output_resources.iter().map(String::as_str).collect())
        .collect();
    let mut succ: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    let mut pred: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    for a in 0..n {
        for b in 0..n {
            if a != b && !outs[a].is_disjoint(&ins[b]) {
                succ[a].insert(b);
                pred[b].insert(a);
            }
        }
    }
    // Goals: every final subtask (no successor) with all that contributes to it,
    // largest first; then whatever no goal reaches (a subtask-level cycle with no
    // exit), by component; then each goal with only its near contributors (at most
    // two dependency steps back), for smaller, tighter tasks.
    let finals: Vec<usize> = (0..n).filter(|&v| succ[v].is_empty()).collect();
    let mut full: Vec<Vec<usize>> = finals
        .iter()
        .map(|&s| {
            let mut g = ancestors(s, &pred, usize::MAX);
            g.push(s);
            g.sort_unstable();
            g
        })
        .collect();
    full.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    let covered: BTreeSet<usize> = full.iter().flatten().copied().collect();
    let rest: Vec<usize> = (0..n).filter(|v| !covered.contains(v)).collect();
    let mut leftovers = components(&rest, |v| succ[v].iter().chain(&pred[v]).copied().collect());
    // A leftover part joins the component it hangs off, so it stays connected.
    let all: Vec<usize> = (0..n).collect();
    let whole = components(&all, |v| succ[v].iter().chain(&pred[v]).copied().collect());
    for part in &mut leftovers {
        if let Some(c) = whole.iter().find(|c| c.contains(&part[0])) {
            *part = c.clone();
        }
    }
    // Fan-outs: a subtask whose results several others use, with everything made
    // from them (wide tasks branch out of such a subtask).
    let mut fanned: Vec<Vec<usize>> = (0..n)
        .filter(|&v| succ[v].len() >= 2)
        .map(|v| {
            let mut g = descendants(v, &succ);
            g.push(v);
            g.sort_unstable();
            g
        })
        .collect();
    fanned.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    let near: Vec<Vec<usize>> = finals
        .iter()
        .map(|&s| {
            let mut g = ancestors(s, &pred, 2);
            g.push(s);
            g.sort_unstable();
            g
        })
        .collect();

    let mut groups: Vec<(Vec<usize>, bool)> = Vec::new();
    let mut seen: BTreeSet<Vec<usize>> = BTreeSet::new();
    let wide = full
        .into_iter()
        .chain(fanned)
        .chain(leftovers)
        .map(|g| (g, false));
    for (g, tight) in wide.chain(near.into_iter().map(|g| (g, true))) {
        if seen.insert(g.clone()) {
            groups.push((g, tight));
        }
    }

    let mut taken: BTreeSet<String> = req.existing_intents.iter().cloned().collect();
    let mut out = Vec::new();
    for (g, tight) in groups {
        if req.max_intents.is_some_and(|max| out.len() >= max) {
            break;
        }
        let text = word_intent(req, &g, &succ, tight);
        // A tighter group worded like a wider one adds nothing new to say.
        if !taken.insert(text.clone()) {
            continue;
        }
        out.push(Intent {
            intent: text,
            subtask_ids: g.iter().map(|&k| req.subtasks[k].id.clone()).collect(),
        });
    }
    out
}

/// The subtasks `v` has a dependency path to.
fn descendants(v: usize, succ: &[BTreeSet<usize>]) -> Vec<usize> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<usize> = succ[v].iter().copied().collect();
    while let Some(w) = stack.pop() {
        if w != v && seen.insert(w) {
            stack.extend(succ[w].iter().copied());
        }
    }
    seen.into_iter().collect()
}

/// The subtasks with a dependency path to `s` of at most `hops` steps.
fn ancestors(s: usize, pred: &[BTreeSet<usize>], hops: usize) -> Vec<usize> {
    let mut seen = BTreeSet::new();
    let mut frontier: Vec<usize> = vec![s];
    let mut depth = 0;
    while !frontier.is_empty() && depth < hops {
        let mut next = Vec::new();
        for v in frontier {
            for &u in &pred[v] {
                if u != s && seen.insert(u) {
                    next.push(u);
                }
            }
        }
        frontier = next;
        depth += 1;
    }
    seen.into_iter().collect()
}

/// Words a group from its own instructions: the files its early steps prepare,
/// then the first clause of its final steps.
fn word_intent(
    req: &PlanRequest,
    group: &[usize],
    succ: &[BTreeSet<usize>],
    tight: bool,
) -> String {
    let member: BTreeSet<usize> = group.iter().copied().collect();
    let inner_succ = |v: usize| succ[v].iter().filter(|t| member.contains(t)).count();
    let mut finals: Vec<usize> = group
        .iter()
        .copied()
        .filter(|&v| inner_succ(v) == 0)
        .collect();
    // The final steps with the most contributors first.
    let contributors = |v: usize| {
        group
            .iter()
            .filter(|&&u| u != v && succ[u].contains(&v))
            .count()
    };
    if finals.is_empty() {
        // A group that is one dependency cycle has no final step: word it from
        // the members most others feed.
        finals = group.to_vec();
    }
    finals.sort_by(|&a, &b| contributors(b).cmp(&contributors(a)).then(a.cmp(&b)));
    let mut goals: Vec<String> = finals
        .iter()
        .take(2)
        .map(|&v| goal_clause(&req.subtasks[v].instruction))
        .filter(|c| !c.is_empty())
        .collect();
    goals.dedup();
    let more = finals.len().saturating_sub(2);

    // Files prepared along the way: path outputs of non-final members that another
    // member uses, earliest producers first.
    let mut prepared: Vec<String> = Vec::new();
    let mut producers: Vec<usize> = group
        .iter()
        .copied()
        .filter(|&v| inner_succ(v) > 0)
        .collect();
    // Those that feed a final step directly first.
    producers.sort_by_key(|&v| !finals.iter().any(|f| succ[v].contains(f)));
    for v in producers {
        for out in &req.subtasks[v].output_resources {
            let Some((_, value)) = out.split_once('=') else {
                continue;
            };
            let used = group
                .iter()
                .any(|&u| u != v && req.subtasks[u].input_resources.contains(out));
            if used && value.starts_with('/') {
                let name = format!("'{}'", basename(value));
                if !prepared.contains(&name) {
                    prepared.push(name);
                }
            }
        }
    }
    prepared.truncate(2);

    let mut text = String::new();
    if tight {
        text.push_str(&goals.join(" and "));
        if !prepared.is_empty() {
            text.push_str(", from ");
            text.push_str(&prepared.join(" and "));
        }
    } else {
        if !prepared.is_empty() {
            text.push_str("Prepare ");
            text.push_str(&prepared.join(" and "));
            text.push_str(", then ");
        }
        text.push_str(&goals.join(" and "));
    }
    if more > 0 {
        text.push_str(&format!(
            " (and {more} more related goal{})",
            if more == 1 { "" } else { "s" }
        ));
    }
    if goals.is_empty() && prepared.is_empty() {
        // Nothing to quote (instructions without a first clause): name the work
        // by its applications.
        let mut apps: Vec<&str> = group
            .iter()
            .map(|&v| req.subtasks[v].application.as_str())
            .collect();
        apps.sort_unstable();
        apps.dedup();
        text = format!("Work through {} steps in {}", group.len(), apps.join(", "));
    }
    capitalize(text.trim())
}

/// The first clause of an instruction, with a leading setting ("In the Code
/// Editor, ") dropped, paths shortened to file names and no final period.
fn goal_clause(instruction: &str) -> String {
    let text = instruction.trim().trim_end_matches('.');
    let parts = split_outside_quotes(text, ", ");
    let mut k = 0;
    if parts.len() > 1 {
        let lower = parts[0].to_lowercase();
        let setting = ["in ", "on ", "with ", "using "]
            .iter()
            .any(|p| lower.starts_with(p))
            && parts[0].split_whitespace().count() <= 6;
        if setting {
            k = 1;
        }
    }
    // The whole rest when it is short, else its first clause.
    let rest = parts[k..].join(", ");
    let clause = if rest.split_whitespace().count() <= 16 {
        rest.as_str()
    } else {
        parts.get(k).copied().unwrap_or(text)
    };
    let clause = shorten_paths(clause);
    decapitalize(clause.trim())
}

fn split_outside_quotes<'t>(text: &'t str, sep: &str) -> Vec<&'t str> {
    let mut out = Vec::new();
    let mut in_quote = false;
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\'' {
            // An apostrophe inside a word ("it's") does not open a quote.
            let prev_alpha = i > 0 && bytes[i - 1].is_ascii_alphanumeric();
            let next_alpha = bytes.get(i + 1).is_some_and(|b| b.is_ascii_alphanumeric());
            if !(prev_alpha && next_alpha) {
                in_quote = !in_quote;
            }
        } else if !in_quote && text[i..].starts_with(sep) {
            out.push(&text[start..i]);
            i += sep.len();
            start = i;
            continue;
        }
        i += 1;
    }
    out.push(&text[start..]);
    out
}

/// `'/home/user/Documents/a.pdf'` → `'a.pdf'` for every quoted absolute path.
fn shorten_paths(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("'/") {
        out.push_str(&rest[..start + 1]);
        let after = &rest[start + 1..];
        match after.find('\'') {
            Some(end) => {
                out.push_str(basename(&after[..end]));
                rest = &after[end..];
            }
            None => {
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn basename(path: &str) -> &str {
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|b| !b.is_empty())
        .unwrap_or(path)
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn decapitalize(s: &str) -> String {
    let mut c = s.chars();
    match (c.next(), s.chars().nth(1)) {
        (Some(f), Some(g)) if f.is_uppercase() && !g.is_uppercase() => {
            f.to_lowercase().collect::<String>() + c.as_str()
        }
        _ => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(id: &str, app: &str, instr: &str, ins: &[&str], outs: &[&str]) -> PlanSubtask {
        PlanSubtask {
            id: id.into(),
            application: app.into(),
            category: "Office".into(),
            instruction: instr.into(),
            input_resources: ins.iter().map(|s| s.to_string()).collect(),
            output_resources: outs.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn req() -> PlanRequest {
        PlanRequest {
            subtasks: vec![
                sub(
                    "a",
                    "Sheets",
                    "Open '/home/user/Documents/budget.xlsx' in Sheets, sort it, and export it as CSV to '/home/user/Documents/budget.csv'.",
                    &["xlsx_path=/home/user/Documents/budget.xlsx"],
                    &["csv_path=/home/user/Documents/budget.csv"],
                ),
                sub(
                    "b",
                    "Mail",
                    "Write a mail to anna@example.com with the subject 'Trip budget', attach '/home/user/Documents/budget.csv', and send it.",
                    &["csv_path=/home/user/Documents/budget.csv", "email_address=anna@example.com"],
                    &["email_sent=Trip budget"],
                ),
                sub(
                    "c",
                    "Chat",
                    "In Chat, open the conversation with Bob, and tell him the mail 'Trip budget' is sent.",
                    &["email_sent=Trip budget"],
                    &["chat_message_sent=Bob"],
                ),
                sub(
                    "d",
                    "Notes",
                    "In Notes, create a note titled 'Ideas'.",
                    &[],
                    &["note_title=Ideas"],
                ),
            ],
            existing_intents: vec![],
            max_intents: Some(10),
        }
    }

    #[test]
    fn groups_cover_the_pool_and_are_worded_from_the_instructions() {
        let intents = plan_offline(&req());
        let covered: BTreeSet<&str> = intents
            .iter()
            .flat_map(|i| i.subtask_ids.iter().map(String::as_str))
            .collect();
        assert_eq!(covered.len(), 4);
        assert_eq!(intents[0].subtask_ids, vec!["a", "b", "c"]);
        assert_eq!(
            intents[0].intent,
            "Prepare 'budget.csv', then open the conversation with Bob, and tell him the mail 'Trip budget' is sent"
        );
        assert_eq!(intents[1].subtask_ids, vec!["d"]);
        assert_eq!(intents[1].intent, "Create a note titled 'Ideas'");
        // Deterministic, and existing texts are not proposed again.
        assert_eq!(plan_offline(&req()), intents);
        let mut again = req();
        again.existing_intents = vec![intents[1].intent.clone()];
        assert!(plan_offline(&again).iter().all(|i| i.subtask_ids != ["d"]));
    }

    #[test]
    fn a_cycle_of_parameterless_subtasks_is_worded_and_covered() {
        // b and c feed each other (a cycle with no final step); nothing quotable.
        let req = PlanRequest {
            subtasks: vec![
                sub("a", "Notes", "", &[], &["text_in_clipboard"]),
                sub(
                    "b",
                    "Mail",
                    "",
                    &["text_in_clipboard"],
                    &["table_in_clipboard"],
                ),
                sub(
                    "c",
                    "Sheets",
                    "",
                    &["table_in_clipboard"],
                    &["text_in_clipboard"],
                ),
            ],
            existing_intents: vec![],
            max_intents: None,
        };
        let intents = plan_offline(&req);
        assert!(!intents.is_empty());
        assert!(
            intents.iter().all(|i| !i.intent.trim().is_empty()),
            "{intents:?}"
        );
        let covered: BTreeSet<&str> = intents
            .iter()
            .flat_map(|i| i.subtask_ids.iter().map(String::as_str))
            .collect();
        assert_eq!(covered.len(), 3);
    }

    #[test]
    fn goal_clause_drops_the_setting_and_shortens_paths() {
        assert_eq!(
            goal_clause("Write a mail to anna@example.com with the subject 'Trip', attach '/home/user/a.zip', and send it."),
            "write a mail to anna@example.com with the subject 'Trip', attach 'a.zip', and send it"
        );
        assert_eq!(
            goal_clause("Write a mail to anna@example.com with the subject 'Trip' and a long body text, attach '/home/user/a.zip' to it, and send it right away."),
            "write a mail to anna@example.com with the subject 'Trip' and a long body text"
        );
        assert_eq!(
            goal_clause("Open '/home/user/Documents/r, final.docx' in Writer and export it as PDF to '/home/user/r.pdf'."),
            "open 'r, final.docx' in Writer and export it as PDF to 'r.pdf'"
        );
    }
}
