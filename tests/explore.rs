//! `synth explore`: malformed proposals become rejected records, re-runs are
//! no-ops, the offline explorer covers the whole simulated desktop with subtasks
//! that chain across applications, and the offline coder writes checks that hold
//! after the subtask's own path and fail after other subtasks' paths.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::OnceLock;

use common::Workspace;
use synth::env::evaluate;
use synth::env::sim::SimDesktop;
use synth::graph::Pool;
use synth::llm::{
    CodeRequest, ExploreRequest, KnownResource, LlmError, OfflineRole, OfflineRoles, Outcome,
    SubtaskProposal,
};
use synth::model::{CheckCall, ParameterSet, Subtask, SubtaskStatus};
use synth::pipeline::explore::{self, paths, ExploreArgs, OfflineCoder};
use synth::pipeline::{LlmSetup, StageContext};
use synth::resources::{initial_resources, instantiate, validate_subtask, Catalog};
use synth::store::Store;

fn context<'a>(ws: &Path, store: &'a Store, catalog: &'a Catalog) -> StageContext<'a> {
    StageContext {
        workspace: ws.to_path_buf(),
        store,
        catalog,
        seed: 1,
        jobs: 1,
        quiet: true,
        llm: LlmSetup::default(),
        env: Default::default(),
    }
}

fn args(apps: &[&str]) -> ExploreArgs {
    ExploreArgs {
        apps: apps.iter().map(|a| a.to_string()).collect(),
        per_app: 14,
    }
}

fn params(pairs: &[(&str, &str)]) -> ParameterSet {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn proposal(template: &str, p: ParameterSet, ins: &[&str], outs: &[&str]) -> SubtaskProposal {
    SubtaskProposal {
        instruction_template: template.into(),
        available_parameters: vec![p],
        input_resources: ins.iter().map(|s| s.to_string()).collect(),
        output_resources: outs.iter().map(|s| s.to_string()).collect(),
    }
}

/// A scripted explorer: well-formed and malformed proposals for Writer, an
/// unparsable reply for Sheets.
fn scripted(req: &ExploreRequest) -> Result<Outcome<Vec<SubtaskProposal>>, LlmError> {
    if req.application == "Sheets" {
        return Ok(Outcome::Rejected {
            reason: "reply is not JSON".into(),
            raw: "Sure! Here are some subtasks...".into(),
        });
    }
    let good = proposal(
        "Open '{docx_path}' in Writer and export it as PDF to '{pdf_path}'.",
        params(&[
            ("docx_path", "/home/user/Documents/travel_itinerary.docx"),
            ("pdf_path", "/home/user/Documents/itinerary_export.pdf"),
        ]),
        &["docx_path"],
        &["pdf_path"],
    );
    Ok(Outcome::Accepted(vec![
        good.clone(),
        proposal(
            "Open '{docx_path}' and make it sparkle.",
            params(&[("docx_path", "/home/user/Documents/travel_itinerary.docx")]),
            &["docx_path"],
            &["sparkle_path"],
        ),
        proposal(
            "Save the document as '{docx_path}' with the title '{title}'.",
            params(&[("docx_path", "/home/user/Documents/new_title.docx")]),
            &[],
            &["docx_path"],
        ),
        proposal(
            "Export '{docx_path}' to '{pdf_path}'.",
            params(&[
                ("docx_path", "/home/user/Documents/no_such_file.docx"),
                ("pdf_path", "/home/user/Documents/nothing.pdf"),
            ]),
            &["docx_path"],
            &["pdf_path"],
        ),
        proposal(
            "open  '{docx_path}' in writer and export it as pdf to '{pdf_path}'",
            good.available_parameters[0].clone(),
            &["docx_path"],
            &["pdf_path"],
        ),
    ]))
}

fn rows(store: &Store) -> Vec<(String, String, Option<String>, String)> {
    let conn = store.conn();
    let mut stmt = conn
        .prepare("SELECT id, status, reason, body FROM subtasks ORDER BY id")
        .unwrap();
    let out = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    out
}

#[test]
fn malformed_proposals_are_rejected_with_reasons_and_rerun_is_a_no_op() {
    let ws = Workspace::new();
    let catalog = Catalog::load(ws.path()).unwrap();
    let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
    let cx = context(ws.path(), &store, &catalog);
    let roles = || OfflineRoles {
        explorer: Some(Box::new(scripted)),
        ..OfflineRoles::default()
    };
    let report = explore::run_with(&args(&["Writer", "Sheets"]), &cx, roles()).unwrap();
    assert_eq!(report.applications["Writer"].proposed, 1);
    assert_eq!(report.applications["Writer"].rejected, 4);
    assert_eq!(report.applications["Sheets"].rejected, 1);
    let all = rows(&store);
    let reasons: Vec<String> = all.iter().filter_map(|r| r.2.clone()).collect();
    let has = |needle: &str| reasons.iter().any(|r| r.contains(needle));
    assert!(has("unknown resource kind 'sparkle_path'"), "{reasons:#?}");
    assert!(has("placeholder '{title}' has no value"), "{reasons:#?}");
    assert!(has("no_such_file.docx"), "{reasons:#?}");
    assert!(has("near-duplicate"), "{reasons:#?}");
    assert!(has("reply is not JSON; raw reply: Sure!"), "{reasons:#?}");
    // Rejected records keep their body.
    assert!(all
        .iter()
        .any(|r| r.1 == "rejected" && r.3.contains("make it sparkle")));
    // A re-run asks nothing of Writer, whose proposals are stored; Sheets, whose
    // reply was rejected as a whole, is asked again (the same reply gives the same
    // record, so nothing is added).
    let again = explore::run_with(&args(&["Writer", "Sheets"]), &cx, roles()).unwrap();
    assert!(again.applications["Writer"].skipped);
    assert!(!again.applications["Sheets"].skipped);
    assert_eq!(again.applications["Sheets"].rejected, 1);
    assert_eq!(rows(&store), all);
}

/// The whole desktop explored offline once (shared by the tests below).
fn explored() -> &'static (Workspace, Vec<Subtask>, String) {
    static CELL: OnceLock<(Workspace, Vec<Subtask>, String)> = OnceLock::new();
    CELL.get_or_init(|| {
        let ws = Workspace::new();
        let out = ws.ok(&["--quiet", "explore"]);
        let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
        let subtasks = store.subtasks(SubtaskStatus::Proposed).unwrap();
        let dump = format!(
            "{:?}",
            rows(&store)
                .into_iter()
                .map(|r| (r.0, r.1, r.3))
                .collect::<Vec<_>>()
        );
        drop(store);
        let _ = out;
        (ws, subtasks, dump)
    })
}

#[test]
fn offline_explore_covers_the_desktop_with_chains() {
    let (ws, subtasks, _) = explored();
    let catalog = Catalog::load(ws.path()).unwrap();
    let mut per_app: BTreeMap<&str, usize> = BTreeMap::new();
    let mut categories = BTreeSet::new();
    for s in subtasks {
        validate_subtask(&catalog, s).unwrap_or_else(|e| panic!("{}: {e}", s.instruction_template));
        *per_app.entry(s.application.as_str()).or_default() += 1;
        categories.insert(s.category.clone().unwrap());
    }
    println!("{} proposals: {per_app:?}", subtasks.len());
    assert!(subtasks.len() >= 240, "{} proposals", subtasks.len());
    assert!(per_app.len() >= 24, "{per_app:?}");
    assert_eq!(categories.len(), 12);

    // No output holds on the initial desktop.
    let initial = initial_resources(ws.path(), &catalog).unwrap();
    for s in subtasks {
        for i in 0..s.available_parameters.len() {
            let (_, outs) = instantiate(&catalog, s, i).unwrap();
            for o in outs.iter().filter(|o| o.parameter.is_some()) {
                assert!(
                    !initial.contains(o),
                    "{} makes {o}, which holds initially",
                    s.instruction_template
                );
            }
        }
    }

    // The graph engine sees chains, fan-outs and cross-category components.
    let pool = Pool::new(&catalog, subtasks, &initial).unwrap();
    let n = pool.len();
    assert!(pool.edge_count() > 100, "{} edges", pool.edge_count());
    let mut depth = vec![0usize; n];
    // Longest path by repeated relaxation (the relation is acyclic: outputs are
    // always new names, inputs always existed before).
    for _ in 0..n {
        let mut changed = false;
        for b in 0..n {
            let d = 1 + pool
                .dependencies(b)
                .iter()
                .map(|a| depth[*a as usize])
                .max()
                .unwrap_or(0);
            if d != depth[b] {
                depth[b] = d;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let longest = depth.iter().copied().max().unwrap();
    assert!(longest >= 5, "longest chain {longest}");
    let widest = (0..n).map(|a| pool.dependents(a).len()).max().unwrap();
    assert!(widest >= 5, "widest fan-out {widest}");
    let most_categories = pool
        .components()
        .iter()
        .map(|c| {
            c.members
                .iter()
                .map(|i| pool.subtask_of(*i).category.clone())
                .collect::<BTreeSet<_>>()
                .len()
        })
        .max()
        .unwrap();
    assert!(most_categories >= 4, "{most_categories} categories");
    println!("{n} instances, {} edges, longest chain {longest}, widest fan-out {widest}, {most_categories} categories in one component", pool.edge_count());

    // A zip of several applications' files is made to be sent: Mail sends
    // archives Archiver made (its bundles once crowded out every single
    // mail of an archive, and chains that end in a zip ended there).
    let zips: BTreeSet<&String> = subtasks
        .iter()
        .filter(|s| s.application == "Archiver")
        .flat_map(|s| {
            s.available_parameters
                .iter()
                .filter_map(|p| p.get("zip_path"))
        })
        .collect();
    let mailed = subtasks
        .iter()
        .filter(|s| s.application == "Mail")
        .flat_map(|s| {
            s.available_parameters
                .iter()
                .filter_map(|p| p.get("zip_path"))
        })
        .filter(|z| zips.contains(z))
        .count();
    assert!(
        mailed >= 10,
        "Mail sends {mailed} of Archiver's {} zips",
        zips.len()
    );
}

/// An application's proposals that make a record come before those that read
/// one, so a recipe added is also a recipe exported: a chain that goes on in
/// the application (add the lentil soup, export it, make its PDF, mail it).
#[test]
fn a_record_an_application_adds_is_one_it_goes_on_with() {
    let (_, subtasks, _) = explored();
    let values = |s: &Subtask, slot: &str| -> BTreeSet<String> {
        s.available_parameters
            .iter()
            .filter_map(|p| p.get(slot).cloned())
            .collect()
    };
    let recipes: Vec<&Subtask> = subtasks
        .iter()
        .filter(|s| s.application == "Recipes")
        .collect();
    let added: BTreeSet<String> = recipes
        .iter()
        .filter(|s| s.output_resources.iter().any(|k| k == "recipe_name"))
        .flat_map(|s| values(s, "recipe_name"))
        .collect();
    let exported: BTreeSet<String> = recipes
        .iter()
        .filter(|s| s.output_resources.iter().any(|k| k == "txt_path"))
        .flat_map(|s| values(s, "recipe_name"))
        .collect();
    assert!(!added.is_empty(), "Recipes adds no recipe");
    assert!(
        added.iter().any(|r| exported.contains(r)),
        "no added recipe is exported: added {added:?}, exported {exported:?}"
    );
}

/// A browser prints an article, a recipe or a page of figures, never a site's
/// home page (`[shows]` in desktop.toml: "home page"), and a made file keeps
/// the content it was made from when edited further; and a subtask that joins
/// two files (a picture inserted into a deck) takes each picture of the one
/// deck's topic, not just the first; a speech gets no picture.
#[test]
fn offline_explore_edits_only_suited_content_and_joins_every_pair() {
    let (ws, subtasks, _) = explored();
    let catalog = Catalog::load(ws.path()).unwrap();
    let home_pages: BTreeSet<&str> = catalog
        .shows
        .iter()
        .filter(|(_, c)| c.as_str() == "home page")
        .map(|(p, _)| p.as_str())
        .collect();
    assert!(!home_pages.is_empty());
    let prints: Vec<&Subtask> = subtasks
        .iter()
        .filter(|s| s.instruction_template.contains("print the page to PDF"))
        .collect();
    assert!(!prints.is_empty());
    for s in &prints {
        for p in &s.available_parameters {
            let url = p.get("url").map(String::as_str).unwrap_or_default();
            assert!(
                !home_pages.contains(url),
                "{} prints the home page {url}",
                s.instruction_template
            );
        }
    }
    let pictures_into_the_deck = subtasks
        .iter()
        .filter(|s| {
            s.application == "Slides" && s.instruction_template.contains("insert the picture")
        })
        .map(|s| {
            s.available_parameters
                .iter()
                .filter_map(|p| p.get("other_img_path"))
                .collect::<BTreeSet<_>>()
                .len()
        })
        .max()
        .unwrap_or(0);
    assert!(
        pictures_into_the_deck >= 3,
        "{pictures_into_the_deck} pictures"
    );
    // A speech is not illustrated, also where the document is exported
    // rather than saved (reader r71: a venue photo in the wedding speech PDF).
    let speeches: BTreeSet<&str> = catalog
        .shows
        .iter()
        .filter(|(_, c)| c.as_str() == "speech")
        .map(|(p, _)| p.as_str())
        .collect();
    assert!(!speeches.is_empty());
    for s in subtasks
        .iter()
        .filter(|s| s.instruction_template.contains("insert the picture"))
    {
        for p in &s.available_parameters {
            for v in p.values() {
                assert!(
                    !speeches.contains(v.as_str()),
                    "{} illustrates the speech {v}",
                    s.instruction_template
                );
            }
        }
    }
}

#[test]
fn offline_explore_is_deterministic() {
    let (_, _, first) = explored();
    let ws = Workspace::new();
    ws.ok(&["--quiet", "explore"]);
    let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
    let second = format!(
        "{:?}",
        rows(&store)
            .into_iter()
            .map(|r| (r.0, r.1, r.3))
            .collect::<Vec<_>>()
    );
    assert!(first == &second, "two runs stored different subtasks");
    // And a re-run in the same workspace adds nothing.
    let before = rows(&store).len();
    drop(store);
    ws.ok(&["--quiet", "explore"]);
    let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
    assert_eq!(rows(&store).len(), before);
}

/// Evidence that a control and a text never appeared during the trajectory.
fn never_appeared(control: &str, text: &str) -> synth::llm::CoderFeedback {
    use synth::llm::{CheckEvidence, Finding};
    synth::llm::CoderFeedback::FailedChecks {
        checks: vec![
            CheckEvidence {
                call: CheckCall::CheckMouseClicks {
                    text: control.into(),
                },
                expect: true,
                findings: vec![Finding::NoSuchControl {
                    text: control.into(),
                }],
            },
            CheckEvidence {
                call: CheckCall::CheckTextExists { text: text.into() },
                expect: true,
                findings: vec![Finding::NeverShown { text: text.into() }],
            },
        ],
        seen: vec!["Export PDF".into(), "Save".into()],
    }
}

fn code_request(s: &Subtask, feedback: Option<synth::llm::CoderFeedback>) -> CodeRequest {
    CodeRequest {
        instruction_template: s.instruction_template.clone(),
        application: s.application.clone(),
        os: s.os.clone(),
        parameters: s.available_parameters.clone(),
        controls_seen: vec![],
        feedback,
        apis: synth::llm::model_check_api_docs(),
    }
}

/// Runs subtask `s` (parameter set 0) along its static path on a desktop where
/// every proposed output exists (so inputs made by other subtasks hold), with
/// something on the clipboard when it pastes.
fn run_subtask(
    base: &dyn synth::env::Replica,
    catalog: &Catalog,
    s: &Subtask,
) -> Option<Box<dyn synth::env::Replica>> {
    let app = &base.spec(&s.application)?.spec;
    let matches = |p: &paths::Plan| {
        let b = p.base_template();
        s.instruction_template == format!("{b}.")
            || s.instruction_template
                .starts_with(&format!("{b}{}", paths::COMPUTED_LEAD))
    };
    let plans = paths::plans(app, catalog);
    // A bundle (several applications' files in one mail or archive) is a
    // variant of the plan that gathers its first kind.
    let mut kinds: Vec<String> = s
        .input_resources
        .iter()
        .map(|r| synth::resources::split_slot(r).0.to_string())
        .filter(|k| catalog.kinds.get(k).is_some_and(|k| k.is_path()))
        .collect();
    kinds.sort();
    let plan = plans.iter().find(|p| matches(p)).cloned().or_else(|| {
        plans
            .iter()
            .filter_map(|p| paths::bundle_variant(app, p, &kinds))
            .find(|p| matches(p))
    })?;
    let params = &s.available_parameters[0];
    let mut start = base.fork();
    for slot in &s.input_resources {
        let kind = synth::resources::split_slot(slot).0;
        if catalog.kinds.get(kind).is_some_and(|k| k.holder.is_some()) {
            let held = synth::resources::Resource {
                kind: kind.to_string(),
                parameter: None,
            };
            start.prepare(&s.application, &held, params).ok()?;
        }
    }
    paths::execute(&*start, &plan, params).ok()
}

#[test]
fn offline_coder_checks_hold_on_own_path_and_discriminate() {
    let (ws, subtasks, _) = explored();
    let catalog = Catalog::load(ws.path()).unwrap();
    let desktop = SimDesktop::load(ws.path()).unwrap();
    // Each subtask runs on the desktop with what its first parameter set
    // reads (made by earlier subtasks or there from the start), and without
    // what it makes: an archive that already exists cannot be made again.
    let base_for = |s: &Subtask| {
        let (inputs, _) = instantiate(&catalog, s, 0).ok()?;
        let known: Vec<KnownResource> = inputs
            .into_iter()
            .filter(|r| r.parameter.is_some())
            .map(|r| KnownResource {
                kind: r.kind,
                parameter: r.parameter,
                source: "test".into(),
                readers: 0,
                shows: None,
                depth: 1,
                copied_beside: false,
                packs: 0,
                converted_only: false,
                made_from: Vec::new(),
            })
            .collect();
        Some(synth::pipeline::explore::explorer::materialize(
            &desktop, &known,
        ))
    };
    let coder = OfflineCoder::new(&desktop, &catalog, subtasks);
    let sample: Vec<&Subtask> = subtasks.iter().step_by(3).collect();
    let mut runs = Vec::new();
    for s in &sample {
        let checks = match coder.answer(&code_request(s, None)).unwrap() {
            Outcome::Accepted(c) => c,
            Outcome::Rejected { reason, .. } => panic!("{}: {reason}", s.instruction_template),
        };
        assert!(checks.len() >= 2, "{}: {checks:?}", s.instruction_template);
        match base_for(s).and_then(|base| run_subtask(&*base, &catalog, s)) {
            Some(after) => runs.push((*s, checks, after)),
            None => println!("does not run: {}", s.instruction_template),
        }
    }
    assert!(
        runs.len() * 10 >= sample.len() * 9,
        "{} of {} ran",
        runs.len(),
        sample.len()
    );
    let mut own_pass = 0;
    for (s, checks, after) in &runs {
        let r = evaluate(checks, &s.available_parameters[0], after.probes());
        if r.success {
            own_pass += 1;
        } else {
            println!(
                "own path fails: {} -> {}",
                s.instruction_template, r.message
            );
        }
    }
    assert!(
        own_pass * 100 >= runs.len() * 95,
        "{own_pass} of {} pass on their own path",
        runs.len()
    );
    // Discriminative: another subtask's path does not pass these checks.
    let mut cross = 0;
    let mut cross_pass = 0;
    for (i, (s, checks, _)) in runs.iter().enumerate() {
        for k in 1..=3 {
            let (_, _, other) = &runs[(i + k * 7) % runs.len()];
            if std::ptr::eq(*s, runs[(i + k * 7) % runs.len()].0) {
                continue;
            }
            cross += 1;
            if evaluate(checks, &s.available_parameters[0], other.probes()).success {
                cross_pass += 1;
            }
        }
    }
    // Numbered names ("Screenshot-1.png") make two subtasks of one tool produce
    // the same file from a fresh desktop, so a rare cross pass remains; verify's
    // discriminative check rejects those pairs.
    assert!(
        cross_pass * 100 <= cross,
        "{cross_pass} of {cross} cross evaluations passed"
    );
}

#[test]
fn offline_coder_drops_checks_the_evidence_refutes() {
    let (ws, subtasks, _) = explored();
    let catalog = Catalog::load(ws.path()).unwrap();
    let desktop = SimDesktop::load(ws.path()).unwrap();
    let coder = OfflineCoder::new(&desktop, &catalog, subtasks);
    let s = subtasks
        .iter()
        .find(|s| {
            s.application == "Writer"
                && s.instruction_template
                    .contains("export the document as PDF")
        })
        .expect("a Writer export subtask");
    let Outcome::Accepted(checks) = coder.answer(&code_request(s, None)).unwrap() else {
        panic!("rejected");
    };
    assert!(checks.iter().any(|c| c.call
        == CheckCall::CheckMouseClicks {
            text: "Export".into()
        }));
    assert!(checks.iter().any(|c| c.call
        == CheckCall::CheckFileExists {
            file_path: "{pdf_path}".into()
        }));
    assert!(checks.iter().any(|c| c.call
        == CheckCall::CheckKeyboardTypes {
            text: "{pdf_path}".into()
        }));
    let feedback = never_appeared("Export", "nothing to see");
    let Outcome::Accepted(after) = coder.answer(&code_request(s, Some(feedback))).unwrap() else {
        panic!("rejected");
    };
    assert!(!after.iter().any(|c| c.call
        == CheckCall::CheckMouseClicks {
            text: "Export".into()
        }));
    assert_eq!(after.len(), checks.len() - 1);
    // A refuted parameter value drops the checks that name it.
    let pdf = s.available_parameters[0]["pdf_path"].clone();
    let feedback = never_appeared("Cancel", &pdf);
    let Outcome::Accepted(after) = coder.answer(&code_request(s, Some(feedback))).unwrap() else {
        panic!("rejected");
    };
    assert!(!after.iter().any(|c| c.call.args().contains(&"{pdf_path}")));
}

#[test]
fn explore_request_lists_known_resources_for_chains() {
    let (ws, subtasks, _) = explored();
    let catalog = Catalog::load(ws.path()).unwrap();
    let desktop = SimDesktop::load(ws.path()).unwrap();
    let order = explore::exploration_order(desktop.apps(), &catalog);
    assert_eq!(order.len(), 28);
    // Mail (which attaches what others make) comes after Writer (which makes PDFs).
    let pos = |a: &str| order.iter().position(|x| x == a).unwrap();
    assert!(pos("Writer") < pos("Mail"), "{order:?}");
    // Some proposal takes as input the output of a subtask of another application
    // with the same actual parameter.
    let outputs: BTreeMap<String, &str> = subtasks
        .iter()
        .flat_map(|s| {
            (0..s.available_parameters.len())
                .filter_map(|i| instantiate(&catalog, s, i).ok())
                .flat_map(|(_, o)| o)
                .filter_map(|r| r.parameter.map(|p| (p, s.application.as_str())))
                .collect::<Vec<_>>()
        })
        .collect();
    let cross = subtasks.iter().any(|s| {
        (0..s.available_parameters.len()).any(|i| {
            let (ins, _) = instantiate(&catalog, s, i).unwrap();
            ins.iter().any(|r| {
                r.parameter
                    .as_ref()
                    .and_then(|p| outputs.get(p))
                    .is_some_and(|app| *app != s.application)
            })
        })
    });
    assert!(cross);
}
