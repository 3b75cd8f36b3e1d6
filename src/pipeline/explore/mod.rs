//! `synth explore`: per application, asks the explorer role for subtask proposals
//! and stores each as `proposed`, or `rejected` with the reason (OmniBench section
//! 3.2, subtask discovery).
//!
//! The request carries the application's manual, the resource kinds, example
//! subtasks, the controls seen when opening the application and each of its
//! screens in the simulated desktop, the templates already stored, and the known
//! resources: those that hold on the initial desktop and the outputs of subtasks
//! already stored, with their actual parameters, so proposals chain across
//! applications. Applications are explored producers first (an order derived from
//! the specs), so later applications see the earlier ones' outputs.
//!
//! Each proposal is checked: unknown resource kind, shape errors of
//! [`validate_subtask`] (a placeholder without a parameter...), an input file that
//! neither exists initially nor is an output of a stored subtask, an output that
//! already holds on the initial desktop, a near-duplicate (normalised text) of a
//! stored template. An unparsable reply is stored as one rejected record of the
//! application with the reason and the raw reply: model output never crashes the
//! stage.
//!
//! Ids are UUID v5 of the application and the normalised template, and each
//! application's records are written in one transaction: a re-run skips the
//! applications already explored (no model call, no new rows).
//!
//! Also owns the offline explorer ([`explorer`]) and coder ([`coder`]) roles and the
//! static path analysis they share ([`paths`]); [`offline_roles`] builds them.

pub mod coder;
pub mod explorer;
pub mod paths;
pub mod walker;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::Instant;

use serde::Serialize;
use uuid::Uuid;

use super::StageContext;
use crate::env::spec::LoadedApp;
use crate::env::Replica;
use crate::env::{EnvError, Setup};
use crate::llm::{
    ControlInfo, ExampleSubtask, ExploreRequest, KnownResource, LlmError, OfflineRoles, Outcome,
    ResourceKindDoc, SubtaskProposal,
};
use crate::model::{Action, ActionCall, Provenance, Subtask, SubtaskId, SubtaskStatus};
use crate::resources::{instantiate, validate_subtask, Catalog, Resource};
use crate::store::StoreError;

pub use coder::OfflineCoder;
pub use explorer::OfflineExplorer;

/// Flags of `synth explore`.
#[derive(Debug, Clone, clap::Args, Serialize)]
pub struct ExploreArgs {
    /// Only these applications (comma-separated names, as in `synth env list`).
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub apps: Vec<String>,
    /// Proposals asked per application (22 by default: applications with few
    /// paths give fewer, and verification rejects some, while the pool needs 240+
    /// verified subtasks).
    #[arg(long, default_value_t = 22, value_name = "N")]
    pub per_app: usize,
}

/// Errors of `synth explore` (model output is never one: it is a rejected record).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExploreError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error(transparent)]
    Catalog(#[from] crate::resources::CatalogError),
    #[error("language model: {0}")]
    Llm(#[from] LlmError),
    #[error("unknown application '{0}' (see `synth env list`)")]
    UnknownApp(String),
    #[error("cannot start the model runtime")]
    Runtime(#[source] std::io::Error),
    /// The offline stage searches copies of the desktop; a real one has none.
    #[error("this desktop cannot be copied, which exploring with these roles needs")]
    NoReplica,
}

/// What one application got.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct AppCounts {
    pub proposed: usize,
    pub rejected: usize,
    /// Explored by an earlier run (nothing asked now).
    pub skipped: bool,
    /// Why the explorer could not be asked (the endpoint failed after its
    /// retries): nothing was stored, and the next run asks again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
}

/// The report of `synth explore`.
#[derive(Debug, Clone, Serialize)]
pub struct ExploreReport {
    pub run_id: i64,
    pub applications: BTreeMap<String, AppCounts>,
    pub proposed: usize,
    pub rejected: usize,
    pub wall_seconds: f64,
}

impl ExploreReport {
    /// The applications whose explorer call failed, with the reason.
    pub fn failed(&self) -> impl Iterator<Item = (&String, &String)> {
        self.applications
            .iter()
            .filter_map(|(app, c)| c.failed.as_ref().map(|why| (app, why)))
    }
}

impl fmt::Display for ExploreReport {
    /// The totals first (what `synth run` shows), then one line per application.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let failed: Vec<_> = self.failed().collect();
        write!(
            f,
            "explore: {} proposed, {} rejected over {} applications in {:.1}s",
            self.proposed,
            self.rejected,
            self.applications.len(),
            self.wall_seconds
        )?;
        if !failed.is_empty() {
            write!(
                f,
                "; {} not explored (asked again on the next run)",
                failed.len()
            )?;
        }
        writeln!(f)?;
        write!(
            f,
            "{:<18} {:>8} {:>8}",
            "application", "proposed", "rejected"
        )?;
        for (app, c) in &self.applications {
            let note = match (&c.failed, c.skipped) {
                (Some(why), _) => format!("  failed: {why}"),
                (None, true) => "  (explored earlier)".to_string(),
                (None, false) => String::new(),
            };
            write!(f, "\n{app:<18} {:>8} {:>8}{note}", c.proposed, c.rejected)?;
        }
        Ok(())
    }
}

/// The offline roles this stage provides: the explorer (which searches copies
/// of `desktop`, a [`Replica`]) and the coder (verify sets the actor on the
/// same struct).
pub fn offline_roles(
    desktop: &dyn Replica,
    catalog: &Catalog,
    subtasks: &[Subtask],
) -> OfflineRoles {
    OfflineRoles {
        explorer: Some(Box::new(OfflineExplorer::new(desktop, catalog))
            as Box<dyn crate::llm::OfflineRole<ExploreRequest>>),
        coder: Some(Box::new(OfflineCoder::new(desktop, catalog, subtasks))),
        ..OfflineRoles::default()
    }
}

/// The id of a proposal: UUID v5 of application and normalised template.
pub fn subtask_id(application: &str, template: &str) -> SubtaskId {
    let name = format!(
        "synth:explore:{application}:{}",
        explorer::normalize(template)
    );
    SubtaskId(Uuid::new_v5(&Uuid::NAMESPACE_URL, name.as_bytes()).to_string())
}

/// Runs `synth explore` with the offline roles of this stage.
/// A desktop without a [`Replica`] (a real one) is walked instead
/// ([`walker::run_real`]).
pub fn run(args: &ExploreArgs, cx: &StageContext<'_>) -> Result<ExploreReport, ExploreError> {
    let desktops = cx.env.desktops(&cx.workspace)?;
    let Some(desktop) = desktops.replica() else {
        return walker::run_real(args, cx);
    };
    let stored = stored_subtasks(cx)?;
    let roles = offline_roles(desktop.as_ref(), cx.catalog, &stored);
    run_with(args, cx, roles)
}

/// The offline explorer and coder over the stored (proposed and verified)
/// subtasks; none on a backend without a [`Replica`].
///
/// # Errors
/// When the desktop's applications or the store cannot be read.
pub fn stage_roles(cx: &StageContext<'_>) -> Result<OfflineRoles, ExploreError> {
    let desktops = cx.env.desktops(&cx.workspace)?;
    Ok(match desktops.replica() {
        Some(desktop) => offline_roles(desktop.as_ref(), cx.catalog, &stored_subtasks(cx)?),
        None => OfflineRoles::default(),
    })
}

fn stored_subtasks(cx: &StageContext<'_>) -> Result<Vec<Subtask>, StoreError> {
    let mut s = cx.store.subtasks(SubtaskStatus::Proposed)?;
    s.extend(cx.store.subtasks(SubtaskStatus::Verified)?);
    Ok(s)
}

/// Runs `synth explore` with the given offline roles (tests plug their own).
pub fn run_with(
    args: &ExploreArgs,
    cx: &StageContext<'_>,
    roles: OfflineRoles,
) -> Result<ExploreReport, ExploreError> {
    let started = Instant::now();
    let desktops = cx.env.desktops(&cx.workspace)?;
    let desktop = desktops.replica().ok_or(ExploreError::NoReplica)?;
    let desktop = desktop.as_ref();
    let apps: Vec<String> = if args.apps.is_empty() {
        exploration_order(desktop.specs(), cx.catalog)
    } else {
        for a in &args.apps {
            if desktop.spec(a).is_none() {
                return Err(ExploreError::UnknownApp(a.clone()));
            }
        }
        args.apps.clone()
    };
    let run_id = cx.store.begin_run(
        "explore",
        &serde_json::to_value(args).unwrap_or(serde_json::Value::Null),
    )?;
    let rt = cx.runtime().map_err(ExploreError::Runtime)?;
    let model = rt.block_on(cx.language_model(run_id, roles))?;
    let explored = cx.store.explored_applications()?;
    let mut stored = stored_subtasks(cx)?;
    in_exploration_order(&mut stored, &apps, &cx.store.explore_write_order()?);
    let initial = desktop.initial_resources();
    let bar = cx.progress(apps.len() as u64, "explore");
    let mut report = ExploreReport {
        run_id,
        applications: BTreeMap::new(),
        proposed: 0,
        rejected: 0,
        wall_seconds: 0.0,
    };
    for app in &apps {
        if explored.contains(app) {
            report.applications.insert(
                app.clone(),
                AppCounts {
                    skipped: true,
                    ..AppCounts::default()
                },
            );
            bar.inc(1);
            continue;
        }
        let req = request(desktop, cx.catalog, app, &stored, &initial, args.per_app)?;
        // One application's failed call does not stop the others; nothing is
        // stored for it, so the next run asks again.
        let reply = match rt.block_on(model.explore(&req)) {
            Ok(reply) => reply,
            Err(e) => {
                tracing::warn!(application = %app, error = %e, "explorer call failed");
                report.applications.insert(
                    app.clone(),
                    AppCounts {
                        failed: Some(e.to_string()),
                        ..AppCounts::default()
                    },
                );
                bar.inc(1);
                continue;
            }
        };
        let provenance = Provenance {
            backend: reply.info.backend.to_string(),
            model: reply.info.model.clone(),
            prompt_hash: reply.info.prompt_hash.clone(),
            round: None,
            note: Some("explore".into()),
        };
        let category = desktop.spec(app).map(|a| a.spec.category.clone());
        let records = match reply.outcome {
            Outcome::Accepted(proposals) => check_proposals(
                cx.catalog,
                app,
                category.as_deref(),
                &proposals,
                &stored,
                &initial,
                &provenance,
            ),
            Outcome::Rejected { reason, raw } => {
                let mut raw = raw;
                if raw.len() > 8000 {
                    let mut cut = 8000;
                    while !raw.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    raw.truncate(cut);
                }
                let template = crate::store::explore::REPLY_REJECTED.to_string();
                vec![(
                    Subtask {
                        id: subtask_id(app, &format!("{template} {reason}")),
                        instruction_template: template,
                        application: app.clone(),
                        category: category.clone(),
                        os: "Linux".into(),
                        available_parameters: vec![],
                        input_resources: vec![],
                        output_resources: vec![],
                        evaluation: None,
                        trajectories: vec![],
                        provenance: Some(Provenance {
                            note: Some("explore".into()),
                            ..provenance.clone()
                        }),
                    },
                    SubtaskStatus::Rejected,
                    Some(if raw.is_empty() {
                        reason
                    } else {
                        format!("{reason}; raw reply: {raw}")
                    }),
                )]
            }
        };
        cx.store.put_explored(&records, Some(run_id))?;
        let counts = report.applications.entry(app.clone()).or_default();
        for (s, status, _) in records {
            if status == SubtaskStatus::Proposed {
                counts.proposed += 1;
                report.proposed += 1;
                stored.push(s);
            } else {
                counts.rejected += 1;
                report.rejected += 1;
            }
        }
        if counts.proposed > 0 {
            in_exploration_order(&mut stored, &apps, &cx.store.explore_write_order()?);
        }
        bar.set_message(format!(
            "{} proposed, {} rejected",
            report.proposed, report.rejected
        ));
        bar.inc(1);
    }
    bar.finish_and_clear();
    report.wall_seconds = started.elapsed().as_secs_f64();
    let failed: BTreeMap<&String, &String> = report.failed().collect();
    let summary = serde_json::json!({"proposed": report.proposed, "rejected": report.rejected, "failed": failed});
    let status = crate::store::RunStatus::done_unless(!failed.is_empty());
    cx.store.finish_run(run_id, status, &summary)?;
    Ok(report)
}

/// Puts `stored` in the order an uninterrupted stage builds it, whatever was
/// stored before a kill: first what `synth explore` did not write (a pool import)
/// or wrote for applications outside `apps`, in the order read; then what it wrote, by
/// application in exploration order (`apps`) and within one application in the
/// order proposed (`written`: subtask id -> write position, see
/// [`Store::explore_write_order`]). The request of the next application credits
/// known resources to the first subtask that makes them and shows the first
/// stored subtasks as examples, so a resumed stage read in store order (by id)
/// would ask differently from an uninterrupted one and get another pool.
///
/// [`Store::explore_write_order`]: crate::store::Store::explore_write_order
fn in_exploration_order(
    stored: &mut [Subtask],
    apps: &[String],
    written: &std::collections::HashMap<String, i64>,
) {
    // A stable sort: the subtasks this exploration did not write keep their order.
    stored.sort_by_key(|s| {
        match (
            written.get(&s.id.0),
            apps.iter().position(|a| *a == s.application),
        ) {
            (Some(&row), Some(rank)) => (1, rank, row),
            _ => (0, 0, 0),
        }
    });
}

/// Checks each proposal; returns the records to store.
fn check_proposals(
    catalog: &Catalog,
    app: &str,
    category: Option<&str>,
    proposals: &[SubtaskProposal],
    stored: &[Subtask],
    initial: &BTreeSet<Resource>,
    provenance: &Provenance,
) -> Vec<(Subtask, SubtaskStatus, Option<String>)> {
    let mut known: BTreeSet<Resource> = initial.clone();
    let mut templates: BTreeSet<String> = BTreeSet::new();
    for s in stored {
        templates.insert(explorer::normalize(&s.instruction_template));
        known.extend(outputs_of(catalog, s));
    }
    let mut out: Vec<(Subtask, SubtaskStatus, Option<String>)> = Vec::new();
    for (i, p) in proposals.iter().enumerate() {
        let norm = explorer::normalize(&p.instruction_template);
        let mut subtask = Subtask {
            id: subtask_id(app, &p.instruction_template),
            instruction_template: p.instruction_template.clone(),
            application: app.to_string(),
            category: category.map(str::to_string),
            os: "Linux".into(),
            available_parameters: p.available_parameters.clone(),
            input_resources: p.input_resources.clone(),
            output_resources: p.output_resources.clone(),
            evaluation: None,
            trajectories: vec![],
            provenance: Some(provenance.clone()),
        };
        let reason = if templates.contains(&norm) {
            Some("near-duplicate of a stored subtask template".to_string())
        } else if let Some(k) = p
            .input_resources
            .iter()
            .chain(&p.output_resources)
            .find(|k| {
                !catalog
                    .kinds
                    .contains_key(crate::resources::split_slot(k).0)
            })
        {
            Some(format!("unknown resource kind '{k}'"))
        } else if let Err(e) = validate_subtask(catalog, &subtask) {
            Some(e.to_string())
        } else {
            resource_problem(catalog, &subtask, &known, initial)
        };
        match reason {
            None => {
                templates.insert(norm);
                known.extend(outputs_of(catalog, &subtask));
                out.push((subtask, SubtaskStatus::Proposed, None));
            }
            Some(r) => {
                if out.iter().any(|(s, _, _)| s.id == subtask.id)
                    || stored.iter().any(|s| s.id == subtask.id)
                {
                    // Keep the rejected body without overwriting the stored one.
                    subtask.id =
                        subtask_id(app, &format!("{} #rejected {i}", p.instruction_template));
                }
                out.push((subtask, SubtaskStatus::Rejected, Some(r)));
            }
        }
    }
    out
}

/// An input file or folder that does not exist, or an output that already holds
/// on the initial desktop.
fn resource_problem(
    catalog: &Catalog,
    s: &Subtask,
    known: &BTreeSet<Resource>,
    initial: &BTreeSet<Resource>,
) -> Option<String> {
    for i in 0..s.available_parameters.len() {
        let Ok((inputs, outputs)) = instantiate(catalog, s, i) else {
            continue;
        };
        for r in &inputs {
            let is_path = catalog.kinds.get(&r.kind).is_some_and(|k| k.is_path());
            if is_path && !known.contains(r) {
                return Some(format!(
                    "input {r} (parameter set {i}) neither exists on the initial desktop nor is an output of a stored subtask"
                ));
            }
        }
        for r in &outputs {
            if r.parameter.is_some() && initial.contains(r) {
                return Some(format!(
                    "output {r} (parameter set {i}) already holds on the initial desktop"
                ));
            }
        }
    }
    None
}

fn outputs_of(catalog: &Catalog, s: &Subtask) -> Vec<Resource> {
    (0..s.available_parameters.len())
        .filter_map(|i| instantiate(catalog, s, i).ok())
        .flat_map(|(_, o)| o)
        .collect()
}

/// What each value shows, by value: the desktop's own (`[shows]` in
/// `desktop.toml`), then, in the order stored, each output of a stored subtask:
/// what its effects declare they make (a printed page shows "web page": an
/// effect's `shows`, found by the `describe` phrase the instruction is worded
/// from), else what the set's first input of declared content shows (a cropped
/// copy of a photo is a photo).
fn shown_contents(
    apps: &[crate::env::spec::LoadedApp],
    catalog: &Catalog,
    stored: &[Subtask],
) -> BTreeMap<String, String> {
    let mut shows = catalog.shows.clone();
    for s in stored {
        let declared = apps
            .iter()
            .find(|a| a.spec.name == s.application)
            .and_then(|a| {
                crate::env::spec::effects_of(&a.spec)
                    .into_iter()
                    .find_map(|(_, _, _, e)| {
                        let said = e.describe.as_deref()?;
                        s.instruction_template
                            .contains(said)
                            .then(|| e.shows.clone())?
                    })
            });
        for i in 0..s.available_parameters.len() {
            let Ok((ins, outs)) = instantiate(catalog, s, i) else {
                continue;
            };
            let shown = declared.clone().or_else(|| {
                ins.iter()
                    .filter_map(|r| r.parameter.as_ref())
                    .find_map(|p| shows.get(p).cloned())
            });
            let Some(shown) = shown else { continue };
            for o in outs {
                if let Some(p) = o.parameter {
                    shows.entry(p).or_insert_with(|| shown.clone());
                }
            }
        }
    }
    shows
}

/// For every output of the stored subtasks, the number of hand-offs in the
/// longest chain that makes it (inputs that nobody makes count 0): a recipe
/// added from a web page, exported as text, made a PDF and compressed is four
/// deep, and a mail that takes the compressed PDF ends a task of five. (Counting
/// only the subtasks that change something left every conversion at the depth
/// of what it converted, and mails took files of two edits in a row instead.)
/// Conversions that lead nowhere are the dead ends below, and the composer
/// refuses a file converted again and again whatever its depth.
///
/// Three ways out of a chain lead nowhere a composed task goes on from, so
/// what they make, and what is made from that, counts 0 (a reader is offered
/// it last, and a bundle never): a print taken out of its format (a PDF
/// converted to text or to a Word document); a record made to hold a file (a
/// note with a PDF attached) saved as a file of its own, which keeps the
/// record's words and leaves the held file behind; and a markup file's source
/// made into a file of another kind where nothing renders it (a CSV printed
/// as text in an editor: `rendered_by` in `resources.toml`).
fn chain_depths(catalog: &Catalog, stored: &[Subtask]) -> BTreeMap<Resource, u32> {
    let kind_of = |r: &Resource| catalog.kinds.get(&r.kind);
    let is_file = |r: &Resource| kind_of(r).is_some_and(|k| k.is_path());
    let is_print = |r: &Resource| kind_of(r).is_some_and(|k| k.print);
    // Per instance: inputs, outputs, application, and whether it attaches a
    // file it reads to what it makes.
    let instances: Vec<(Vec<Resource>, Vec<Resource>, &str, bool)> = stored
        .iter()
        .flat_map(|s| {
            let attached = crate::graph::pool::attached_slots(&s.instruction_template);
            (0..s.available_parameters.len()).filter_map(move |i| {
                let (ins, outs) = instantiate(catalog, s, i).ok()?;
                let values = &s.available_parameters[i];
                let attaches = attached
                    .iter()
                    .filter_map(|slot| values.get(*slot))
                    .any(|v| {
                        ins.iter()
                            .any(|r| is_file(r) && r.parameter.as_ref() == Some(v))
                    });
                Some((ins, outs, s.application.as_str(), attaches))
            })
        })
        .collect();
    // Records holding an attached file, and what leads nowhere.
    let mut holds_file: BTreeSet<&Resource> = BTreeSet::new();
    for (_, outs, _, attaches) in &instances {
        if *attaches {
            holds_file.extend(outs.iter().filter(|o| !is_file(o) && o.parameter.is_some()));
        }
    }
    let dead_end = |ins: &[Resource], o: &Resource, app: &str| {
        let from_print = ins.iter().any(|i| is_print(i) && i.kind != o.kind) && !is_print(o);
        let unwraps = !ins.iter().any(is_file) && ins.iter().any(|i| holds_file.contains(i));
        let as_prose = ins.iter().any(|i| {
            kind_of(i).is_some_and(|k| {
                !k.rendered_by.is_empty() && !k.rendered_by.iter().any(|a| a == app)
            }) && i.kind != o.kind
        });
        is_file(o) && !kind_of(o).is_some_and(|k| k.wraps) && (from_print || unwraps || as_prose)
    };
    // What a dead end makes, and everything made from it (a file is marked
    // before its readers are looked at; bounded like the depths below).
    let mut dead: BTreeSet<&Resource> = BTreeSet::new();
    for _ in 0..=instances.len().min(64) {
        let before = dead.len();
        for (ins, outs, app, _) in &instances {
            let behind_dead = ins.iter().any(|i| is_file(i) && dead.contains(i));
            for o in outs.iter().filter(|o| o.parameter.is_some() && is_file(o)) {
                if behind_dead || dead_end(ins, o, app) {
                    dead.insert(o);
                }
            }
        }
        if dead.len() == before {
            break;
        }
    }
    let mut depth: BTreeMap<Resource, u32> = BTreeMap::new();
    // Longest paths by relaxation; bounded so a cycle cannot loop forever.
    for _ in 0..=instances.len().min(64) {
        let mut changed = false;
        for (ins, outs, _, _) in &instances {
            let behind = ins
                .iter()
                .filter(|r| r.parameter.is_some())
                .map(|r| depth.get(r).copied().unwrap_or(0))
                .max()
                .unwrap_or(0);
            let d = if behind == 0 { 1 } else { behind + 1 };
            for o in outs.iter().filter(|o| o.parameter.is_some()) {
                let d = if dead.contains(o) { 0 } else { d };
                let e = depth.entry(o.clone()).or_insert(0);
                if d > *e {
                    *e = d;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    depth
}

/// The depth of each resource the stored subtasks make, as the composer can
/// use it ([`crate::graph::sound_depths`]): the most nodes of a chain ending
/// at a subtask that makes it, every step one a task can hold. A file at the
/// end of five hand-offs of which one is a comment on one's own PDF is no
/// file at depth five to the composer. `None` when the stored subtasks make
/// no pool (the plain [`chain_depths`] then stand).
fn sound_depths(
    catalog: &Catalog,
    stored: &[Subtask],
    initial: &BTreeSet<Resource>,
) -> Option<BTreeMap<Resource, u32>> {
    let pool = crate::graph::Pool::new(catalog, stored, initial).ok()?;
    let depths = crate::graph::sound_depths(&pool);
    let mut out: BTreeMap<Resource, u32> = BTreeMap::new();
    for (i, d) in depths.into_iter().enumerate() {
        for o in &pool.instance(i).outputs {
            let e = out.entry(o.clone()).or_insert(0);
            *e = (*e).max(u32::from(d));
        }
    }
    Some(out)
}

/// The files (of kinds that are no print) that every stored subtask making
/// them only saves from another file ([`crate::graph::pool::changes_nothing`]):
/// conversions, whose original a message could carry as well.
fn converted_only(catalog: &Catalog, stored: &[Subtask]) -> BTreeSet<Resource> {
    let mut plain: BTreeMap<Resource, bool> = BTreeMap::new();
    for s in stored {
        let copies = crate::graph::pool::changes_nothing(&s.instruction_template);
        for i in 0..s.available_parameters.len() {
            let Ok((ins, outs)) = instantiate(catalog, s, i) else {
                continue;
            };
            let reads_file = ins
                .iter()
                .any(|r| catalog.kinds.get(&r.kind).is_some_and(|k| k.is_path()));
            for o in outs.into_iter().filter(|o| {
                catalog
                    .kinds
                    .get(&o.kind)
                    .is_some_and(|k| k.is_path() && !k.print && !k.wraps)
            }) {
                let e = plain.entry(o).or_insert(true);
                *e &= copies && reads_file;
            }
        }
    }
    plain
        .into_iter()
        .filter(|(_, c)| *c)
        .map(|(r, _)| r)
        .collect()
}

/// For every archive a stored subtask made of two or more files, how many it
/// packs.
fn packed_archives(catalog: &Catalog, stored: &[Subtask]) -> BTreeMap<Resource, u32> {
    let kind_of = |r: &Resource| catalog.kinds.get(&r.kind);
    let mut out = BTreeMap::new();
    for s in stored {
        for i in 0..s.available_parameters.len() {
            let Ok((ins, outs)) = instantiate(catalog, s, i) else {
                continue;
            };
            let packed = ins
                .iter()
                .filter(|r| kind_of(r).is_some_and(|k| k.is_path() && !k.wraps))
                .count() as u32;
            if packed < 2 {
                continue;
            }
            for o in outs
                .into_iter()
                .filter(|o| kind_of(o).is_some_and(|k| k.wraps))
            {
                out.insert(o, packed);
            }
        }
    }
    out
}

/// For every input of the stored subtasks, the applications whose subtasks read it.
fn reader_apps(catalog: &Catalog, stored: &[Subtask]) -> BTreeMap<Resource, BTreeSet<String>> {
    let mut out: BTreeMap<Resource, BTreeSet<String>> = BTreeMap::new();
    for s in stored {
        for i in 0..s.available_parameters.len() {
            let Ok((ins, _)) = instantiate(catalog, s, i) else {
                continue;
            };
            for r in ins.into_iter().filter(|r| r.parameter.is_some()) {
                out.entry(r).or_default().insert(s.application.clone());
            }
        }
    }
    out
}

/// For every named output of the stored subtasks, the named inputs of the
/// parameter sets that make it.
fn made_from(catalog: &Catalog, stored: &[Subtask]) -> BTreeMap<Resource, BTreeSet<String>> {
    let mut out: BTreeMap<Resource, BTreeSet<String>> = BTreeMap::new();
    for s in stored {
        for i in 0..s.available_parameters.len() {
            let Ok((ins, outs)) = instantiate(catalog, s, i) else {
                continue;
            };
            let sources: Vec<&String> = ins.iter().filter_map(|r| r.parameter.as_ref()).collect();
            for o in outs.into_iter().filter(|o| o.parameter.is_some()) {
                out.entry(o)
                    .or_default()
                    .extend(sources.iter().map(|v| v.to_string()));
            }
        }
    }
    out
}

/// The explore request of one application.
fn request(
    desktop: &dyn Replica,
    catalog: &Catalog,
    app: &str,
    stored: &[Subtask],
    initial: &BTreeSet<Resource>,
    per_app: usize,
) -> Result<ExploreRequest, ExploreError> {
    let spec = desktop
        .spec(app)
        .ok_or_else(|| ExploreError::UnknownApp(app.to_string()))?
        .spec
        .clone();
    let mut known: BTreeMap<Resource, String> = BTreeMap::new();
    // A desktop file that is nobody's work (a welcome note) is read by no
    // subtask: readers rejected it copied to a colleague or printed and mailed.
    for r in initial {
        let incidental = r
            .parameter
            .as_ref()
            .is_some_and(|p| catalog.incidental.contains(p));
        if r.parameter.is_some() && !incidental {
            known.insert(r.clone(), "desktop".into());
        }
    }
    for s in stored {
        for r in outputs_of(catalog, s) {
            if r.parameter.is_some() {
                known.entry(r).or_insert_with(|| s.application.clone());
            }
        }
    }
    let depths = chain_depths(catalog, stored);
    let sound = sound_depths(catalog, stored, initial);
    let depth_of = |r: &Resource| match depths.get(r).copied().unwrap_or(0) {
        0 => 0,
        chain => sound
            .as_ref()
            .map_or(chain, |s| s.get(r).copied().unwrap_or(0)),
    };
    let readers = reader_apps(catalog, stored);
    // Outputs of subtasks that also fill the clipboard.
    let held = |r: &Resource| {
        catalog
            .kinds
            .get(&r.kind)
            .is_some_and(|k| k.holder.is_some())
    };
    let copied_beside: BTreeSet<Resource> = stored
        .iter()
        .filter(|s| {
            s.output_resources.iter().any(|o| {
                let (kind, _) = crate::resources::split_slot(o);
                catalog.kinds.get(kind).is_some_and(|k| k.holder.is_some())
            })
        })
        .flat_map(|s| outputs_of(catalog, s))
        .filter(|r| !held(r))
        .collect();
    let shows = shown_contents(desktop.specs(), catalog, stored);
    let packs = packed_archives(catalog, stored);
    let converted = converted_only(catalog, stored);
    let sources = made_from(catalog, stored);
    let known_resources = known
        .into_iter()
        .map(|(r, source)| KnownResource {
            depth: depth_of(&r),
            readers: readers.get(&r).map_or(0, |a| a.len() as u32),
            shows: r.parameter.as_ref().and_then(|p| shows.get(p)).cloned(),
            copied_beside: copied_beside.contains(&r),
            packs: packs.get(&r).copied().unwrap_or(0),
            converted_only: converted.contains(&r),
            made_from: sources
                .get(&r)
                .map(|v| v.iter().cloned().collect())
                .unwrap_or_default(),
            kind: r.kind,
            parameter: r.parameter,
            source,
        })
        .collect();
    let example_subtasks = stored
        .iter()
        .filter(|s| s.application != app && !s.available_parameters.is_empty())
        .take(3)
        .map(|s| ExampleSubtask {
            instruction_template: s.instruction_template.clone(),
            available_parameters: s.available_parameters.iter().take(1).cloned().collect(),
            input_resources: s.input_resources.clone(),
            output_resources: s.output_resources.clone(),
        })
        .collect();
    Ok(ExploreRequest {
        application: app.to_string(),
        category: spec.category.clone(),
        docs: spec.docs.trim().to_string(),
        resource_kinds: catalog
            .kinds
            .iter()
            .map(|(n, k)| ResourceKindDoc {
                name: n.clone(),
                description: k.description.clone(),
            })
            .collect(),
        example_subtasks,
        observed_controls: observe(desktop, app),
        existing_templates: stored
            .iter()
            .filter(|s| s.application == app)
            .map(|s| s.instruction_template.clone())
            .collect(),
        max_subtasks: per_app,
        known_resources,
    })
}

/// The controls seen when the application is opened and each screen one click
/// away is visited (then left with Escape).
fn observe(desktop: &dyn Replica, app: &str) -> Vec<ControlInfo> {
    let mut start = desktop.fork();
    let mut out: Vec<ControlInfo> = Vec::new();
    let mut seen = BTreeSet::new();
    if start.reset(&Setup::default()).is_err() || start.launch(app).is_err() {
        return out;
    }
    let mut record = |obs: &crate::env::Observation, out: &mut Vec<ControlInfo>| {
        for c in &obs.controls {
            if c.parent_control_text == "Taskbar" || c.control_text.is_empty() {
                continue;
            }
            if seen.insert((c.control_text.clone(), c.control_type.clone())) {
                out.push(ControlInfo {
                    label: c.label.clone(),
                    control_text: c.control_text.clone(),
                    control_type: c.control_type.clone(),
                    parent_control_text: c.parent_control_text.clone(),
                    parent_control_type: c.parent_control_type.clone(),
                });
            }
        }
    };
    let Ok(first) = start.observe() else {
        return out;
    };
    record(&first, &mut out);
    let buttons: Vec<String> = first
        .controls
        .iter()
        .filter(|c| matches!(c.control_type.as_str(), "MenuItem" | "TabItem"))
        .map(|c| c.control_text.clone())
        .collect();
    for b in buttons {
        let mut d = start.fork();
        let Ok(step) = d.step(&Action {
            call: ActionCall::ClickInput {
                button: "left".into(),
                double: false,
            },
            control_label: None,
            control_text: b,
        }) else {
            continue;
        };
        record(&step.observation, &mut out);
    }
    out.truncate(120);
    out
}

/// How much more an application waits for a remaining writer of a print kind
/// (PDF) than for a writer of another kind, in [`exploration_order`].
const PRINT_WEIGHT: usize = 4;

/// Does a plan save in its application's own format (a Save As), and does
/// that format keep styles (`keeps_props` absent or not empty)?
fn styled_native(p: &paths::Plan, catalog: &Catalog) -> bool {
    p.native_ext
        .as_deref()
        .and_then(|e| {
            catalog
                .kinds
                .iter()
                .find(|(_, k)| k.file_kinds.iter().any(|f| f == e))
        })
        .is_some_and(|(kind, _)| !plain(catalog, kind))
}

/// Is `kind` a plain format, one that keeps no styles (`keeps_props = []`)?
fn plain(catalog: &Catalog, kind: &str) -> bool {
    catalog
        .kinds
        .get(kind)
        .and_then(|k| k.keeps_props.as_ref())
        .is_some_and(Vec::is_empty)
}

/// Applications in an order where producers come before consumers: repeatedly
/// the application that waits for the fewest remaining producers (each pair of
/// an input kind and an application still to come that makes it counts, a
/// print kind [`PRINT_WEIGHT`] times; a PDF converted to another format makes
/// no reader of that format wait), applications that only consume last, ties
/// by name.
pub fn exploration_order(apps: &[LoadedApp], catalog: &Catalog) -> Vec<String> {
    let mut info: Vec<(String, BTreeSet<String>, BTreeSet<String>)> = apps
        .iter()
        .map(|a| {
            let ps = paths::plans(&a.spec, catalog);
            let mut ins = BTreeSet::new();
            let mut outs = BTreeSet::new();
            for p in &ps {
                let mut plan_ins = BTreeSet::new();
                let mut plan_outs = BTreeSet::new();
                for s in &p.slots {
                    match &s.role {
                        paths::SlotRole::InputPath { kind }
                        | paths::SlotRole::InputRecord { kind } => {
                            plan_ins.insert(kind.clone());
                        }
                        paths::SlotRole::OutputPath { kind, .. }
                        | paths::SlotRole::OutputRecord { kind } => {
                            plan_outs.insert(kind.clone());
                        }
                        _ => {}
                    }
                }
                plan_outs.extend(p.produces.iter().cloned());
                // A print taken out of its format again (a PDF converted to a
                // Word document or to text) is a detour no chain goes on from,
                // so it does not make the readers of its kind wait: the
                // writers of documents are explored before the PDF tool, and
                // what they print is signed, protected and sent.
                let from_print = plan_ins
                    .iter()
                    .any(|k| catalog.kinds.get(k).is_some_and(|k| k.print));
                plan_outs.retain(|k| !from_print || plan_ins.contains(k));
                // Likewise plain text saved by an application whose own format
                // keeps styles (Writer saving .txt): its work is the styled
                // document, and nobody drafts on from its plain copies. So the
                // editors of plain text are explored before the applications
                // that style their drafts, which then open them (a brief
                // drafted in Text Editor, formatted in Writer).
                if styled_native(p, catalog) {
                    plan_outs.retain(|k| !plain(catalog, k));
                }
                ins.extend(plan_ins);
                outs.extend(plan_outs);
            }
            (a.spec.name.clone(), ins, outs)
        })
        .collect();
    info.sort_by(|a, b| a.0.cmp(&b.0));
    let mut order = Vec::new();
    while !info.is_empty() {
        // The application whose inputs the fewest remaining others produce.
        let best = info
            .iter()
            .enumerate()
            .min_by_key(|(i, (name, ins, outs))| {
                // Applications nobody remaining consumes from go last: they
                // can use everything the others make.
                let sink = !outs.iter().any(|k| {
                    info.iter()
                        .enumerate()
                        .any(|(j, (_, ins2, _))| j != *i && ins2.contains(k))
                });
                // Work flows from files made and edited to the prints that
                // are signed, packed and sent: a reader of prints waits for
                // every writer of them.
                let pending: usize = ins
                    .iter()
                    .map(|k| {
                        let weight = if catalog.kinds.get(k).is_some_and(|k| k.print) {
                            PRINT_WEIGHT
                        } else {
                            1
                        };
                        weight
                            * info
                                .iter()
                                .enumerate()
                                .filter(|(j, (_, _, outs))| j != i && outs.contains(k))
                                .count()
                    })
                    .sum();
                (sink && !ins.is_empty(), pending, ins.len(), name.clone())
            })
            .map(|(i, _)| i)
            .unwrap_or(0);
        let (name, _, _) = info.remove(best);
        order.push(name);
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writers_of_documents_are_explored_before_the_pdf_tool() {
        let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let desktops = crate::env::EnvSetup::default().desktops(ws).unwrap();
        let desktop = desktops.replica().unwrap();
        let catalog = Catalog::load(ws).unwrap();
        let order = exploration_order(desktop.specs(), &catalog);
        let at = |app: &str| order.iter().position(|a| a == app).unwrap();
        // What Writer and Sheets export is signed, protected and merged.
        assert!(at("Writer") < at("PDF Tool"), "{order:?}");
        assert!(at("Sheets") < at("PDF Tool"), "{order:?}");
        assert!(at("PDF Tool") < at("Mail"), "{order:?}");
    }

    fn subtask(id: &str, app: &str) -> Subtask {
        Subtask {
            id: SubtaskId(id.into()),
            instruction_template: id.into(),
            application: app.into(),
            category: None,
            os: "Linux".into(),
            available_parameters: vec![],
            input_resources: vec![],
            output_resources: vec![],
            evaluation: None,
            trajectories: vec![],
            provenance: None,
        }
    }

    /// A stored subtask of `app` with one parameter set: `template` names the
    /// slots, `ins` and `outs` declare them.
    fn made(
        app: &str,
        template: &str,
        ins: &[&str],
        outs: &[&str],
        set: &[(&str, &str)],
    ) -> Subtask {
        Subtask {
            instruction_template: template.into(),
            available_parameters: vec![set
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()],
            input_resources: ins.iter().map(|s| s.to_string()).collect(),
            output_resources: outs.iter().map(|s| s.to_string()).collect(),
            ..subtask(template, app)
        }
    }

    #[test]
    fn chains_through_a_detour_count_nothing() {
        let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let catalog = Catalog::load(ws).unwrap();
        let (txt, pdf) = ("/home/user/Documents/r.txt", "/home/user/Documents/r.pdf");
        let (back, edited) = ("/home/user/Documents/r2.txt", "/home/user/Documents/r3.txt");
        let note_txt = "/home/user/Documents/note.txt";
        let stored = vec![
            made(
                "Writer",
                "In Writer, open '{txt_path}', then make the title bold, then export as PDF '{pdf_path}'.",
                &["txt_path"],
                &["pdf_path"],
                &[("txt_path", txt), ("pdf_path", pdf)],
            ),
            // A print taken back to text, and an edit of that text.
            made(
                "PDF Tool",
                "In PDF Tool, open '{pdf_path}', then convert the PDF to text as '{txt_path}'.",
                &["pdf_path"],
                &["txt_path"],
                &[("pdf_path", pdf), ("txt_path", back)],
            ),
            made(
                "Text Editor",
                "In Text Editor, open '{txt_path}', then insert the date, then save as '{new_txt_path}'.",
                &["txt_path"],
                &["txt_path:new_txt_path"],
                &[("txt_path", back), ("new_txt_path", edited)],
            ),
            // A note holding the PDF, saved as text.
            made(
                "Notes",
                "In Notes, create a note '{note_title}' with '{pdf_path}' attached.",
                &["pdf_path"],
                &["note_title"],
                &[("pdf_path", pdf), ("note_title", "Reference: r")],
            ),
            made(
                "Notes",
                "In Notes, select '{note_title}', then export a note as '{txt_path}'.",
                &["note_title"],
                &["txt_path"],
                &[("note_title", "Reference: r"), ("txt_path", note_txt)],
            ),
        ];
        let depths = chain_depths(&catalog, &stored);
        let depth = |kind: &str, v: &str| depths[&Resource::new(kind, Some(v.into()))];
        assert_eq!(depth("pdf_path", pdf), 1);
        assert_eq!(depth("note_title", "Reference: r"), 2);
        assert_eq!(depth("txt_path", back), 0, "a print taken back to text");
        assert_eq!(depth("txt_path", edited), 0, "what is made from a detour");
        assert_eq!(
            depth("txt_path", note_txt),
            0,
            "the note's text leaves the PDF behind"
        );
    }

    #[test]
    fn a_resumed_exploration_orders_the_store_as_an_uninterrupted_one() {
        let apps: Vec<String> = ["writer", "calc", "viewer"].map(String::from).to_vec();
        // Read back by id: the imported subtask, then calc's and writer's in id order.
        let mut stored = vec![
            subtask("a-calc", "calc"),
            subtask("b-imported", "viewer"),
            subtask("c-writer", "writer"),
            subtask("d-calc", "calc"),
            subtask("e-writer", "writer"),
        ];
        // Written by explore: writer first (e, then c), then calc (d, then a).
        let written = [
            ("e-writer", 10),
            ("c-writer", 11),
            ("d-calc", 20),
            ("a-calc", 21),
        ]
        .map(|(id, row)| (id.to_string(), row))
        .into_iter()
        .collect();
        in_exploration_order(&mut stored, &apps, &written);
        let ids: Vec<&str> = stored.iter().map(|s| s.id.0.as_str()).collect();
        assert_eq!(
            ids,
            ["b-imported", "e-writer", "c-writer", "d-calc", "a-calc"]
        );
    }
}
