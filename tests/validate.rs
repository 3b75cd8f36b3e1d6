//! `synth validate`: with the replay backend (recorded summarizer and
//! reconstructor answers) a lost parallel branch is exposed and re-summarized, and
//! a summary that never agrees is rejected after N attempts; offline, through the
//! binary, on tasks composed from the hand-written pool.

mod common;

/// The hand-written pool of the first sessions, kept as a fixture: its chains are
/// known, so these tests can name the levels and intents it must reach.
const HAND_WRITTEN_POOL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/hand_written_pool.jsonl"
);

use std::collections::BTreeMap;
use std::path::Path;

use common::Workspace;
use serde_json::Value;
use synth::llm::prompt::Prompts;
use synth::llm::record::{self, CallOutcome, CallRecord, ChatMessage, SamplingParams, Speaker};
use synth::llm::{Backend, LlmConfig, RoleRequest};
use synth::model::{Dag, SubtaskId, Task, TaskId, TaskNode, ValidationAttempt};
use synth::pipeline::validate::stage::{
    reconstruct_request, run, summarize_request, task_seed, ValidateArgs,
};
use synth::pipeline::validate::{compare, neutral_subtasks, NeutralSubtasks};
use synth::pipeline::{LlmSetup, StageContext};
use synth::resources::Catalog;
use synth::store::Store;
use synth::store::TaskStatus;

const SEED: u64 = 11;

/// Records `reply` as the answer to `req`, keyed exactly as the client keys it.
fn record<R: RoleRequest>(store: &Store, cfg: &LlmConfig, req: &R, reply: &Value) {
    record_sample(store, cfg, req, reply, None);
}

/// Records the reply to the `sample`-th repeat of `req` in one run (a repeated
/// request is a new sample, at a temperature of at least
/// [`synth::llm::client::REPEAT_MIN_TEMPERATURE`]).
fn record_sample<R: RoleRequest>(
    store: &Store,
    cfg: &LlmConfig,
    req: &R,
    reply: &Value,
    sample: Option<u32>,
) {
    let rendered = Prompts::embedded().render(req).unwrap();
    let model = cfg.role(R::ROLE).model.clone();
    let temperature = match sample {
        None => cfg.temperature,
        Some(_) => cfg
            .temperature
            .max(synth::llm::client::REPEAT_MIN_TEMPERATURE),
    };
    let params = SamplingParams {
        temperature,
        max_tokens: cfg.max_tokens,
        json_mode: cfg.json_mode,
        sample,
    };
    let messages = vec![
        ChatMessage {
            role: Speaker::System,
            content: rendered.system,
            image_sha256: None,
        },
        ChatMessage {
            role: Speaker::User,
            content: rendered.user,
            image_sha256: None,
        },
    ];
    let rec = CallRecord {
        key_hash: record::call_key(R::ROLE, &model, &messages, &params),
        role: R::ROLE,
        model,
        run_id: "recorded".into(),
        request: record::request_json(&messages, &params),
        reply: Some(reply.to_string()),
        prompt_tokens: 0,
        completion_tokens: 0,
        cost_usd: 0.0,
        latency_ms: 0,
        http_attempts: 1,
        outcome: CallOutcome::Accepted,
        error: None,
        created_at: None,
        faults: Default::default(),
    };
    store.call_log().insert(&rec).unwrap();
}

fn node(app: &str, instruction: &str) -> TaskNode {
    TaskNode {
        subtask_id: SubtaskId(format!("sub-{app}")),
        parameter_index: 0,
        application: app.into(),
        category: "Office".into(),
        instruction: instruction.into(),
    }
}

/// Export a PDF (n0), then, in parallel, compress it (n1) and send it in Chat (n2).
fn forked(id: &str) -> Task {
    Task {
        task_id: Some(TaskId(id.into())),
        task_instruction: "draft".into(),
        low_level_instruction: None,
        dag: Dag {
            nodes: vec!["n0".into(), "n1".into(), "n2".into()],
            edges: [
                ("n0".to_string(), vec!["n1".to_string(), "n2".to_string()]),
                ("n1".to_string(), vec![]),
                ("n2".to_string(), vec![]),
            ]
            .into_iter()
            .collect(),
        },
        task_intent: "Share the quarterly report".into(),
        purpose: None,
        successful_topo: vec![
            vec!["n0".into(), "n1".into(), "n2".into()],
            vec!["n0".into(), "n2".into(), "n1".into()],
        ],
        nodes: [
            (
                "n0".to_string(),
                node("Writer", "Open '/home/user/Documents/report.docx' in Writer and export it as PDF to '/home/user/Documents/report.pdf'."),
            ),
            (
                "n1".to_string(),
                node("Archiver", "Compress '/home/user/Documents/report.pdf' into the archive '/home/user/Documents/report.zip' with the Archiver."),
            ),
            (
                "n2".to_string(),
                node("Chat", "In Chat, send the file '/home/user/Documents/report.pdf' to Bob."),
            ),
        ]
        .into_iter()
        .collect(),
        topo_count: Some(2),
        topo_truncated: Some(false),
        cs_max: Some(0),
        complexity: None,
        capabilities: vec![],
        scenario: None,
        os_map_level: None,
        quality: None,
        composition: None,
        validation: vec![],
    }
}

struct Fixture {
    dir: tempfile::TempDir,
    catalog: Catalog,
    store: Store,
    cfg: LlmConfig,
}

impl Fixture {
    fn new(task: &Task) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let catalog = Catalog::load(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
        let store = Store::open(&dir.path().join("generated/synth.sqlite")).unwrap();
        store
            .add_dataset(
                1,
                "h",
                &serde_json::json!({}),
                "v1",
                1,
                std::slice::from_ref(task),
                None,
                None,
            )
            .unwrap();
        Fixture {
            dir,
            catalog,
            store,
            cfg: LlmConfig::default(),
        }
    }

    fn cx(&self) -> StageContext<'_> {
        StageContext {
            workspace: self.dir.path().to_path_buf(),
            store: &self.store,
            catalog: &self.catalog,
            seed: SEED,
            jobs: 1,
            quiet: true,
            llm: LlmSetup {
                backend: Backend::Replay,
                config: self.cfg.clone(),
                no_cache: false,
                replay_file: None,
                budget: Default::default(),
            },
            env: Default::default(),
        }
    }
}

fn neutral_of(task: &Task) -> NeutralSubtasks {
    neutral_subtasks(task, task_seed(SEED, task)).unwrap()
}

/// Node edges written with the neutral ids the reconstructor sees.
fn neutral_edges(neutral: &NeutralSubtasks, edges: &[(&str, &str)]) -> Value {
    let id_of: BTreeMap<&str, &str> = neutral
        .node_of
        .iter()
        .map(|(n, node)| (node.as_str(), n.as_str()))
        .collect();
    let pairs: Vec<Value> = edges
        .iter()
        .map(|(a, b)| serde_json::json!([id_of[a], id_of[b]]))
        .collect();
    serde_json::json!({ "edges": pairs })
}

const LINEAR: &str = "Share the quarterly report: export report.pdf in Writer, then compress it with the Archiver, then send it to Bob in Chat.";
const FORKED: &str = "Share the quarterly report: first export report.pdf in Writer; after that, in any order, compress it with the Archiver and send it to Bob in Chat.";

fn summary(text: &str) -> Value {
    serde_json::json!({"task_instruction": text, "low_level_instruction": "1. Export.\n2. Compress.\n3. Send."})
}

/// The first attempt as the stage records it: the linear summary and its verdict.
fn linear_attempt(task: &Task) -> ValidationAttempt {
    let verdict = compare(
        &task.dag,
        &[("n0".into(), "n1".into()), ("n1".into(), "n2".into())],
    );
    ValidationAttempt {
        attempt: 1,
        task_instruction: LINEAR.into(),
        reconstructed_edges: vec![],
        passed: false,
        discrepancy: Some(verdict.to_string()),
    }
}

#[test]
fn a_lost_parallel_branch_is_exposed_and_the_resummary_passes() {
    let task = forked("t-fork");
    let fx = Fixture::new(&task);
    let neutral = neutral_of(&task);
    record(
        &fx.store,
        &fx.cfg,
        &summarize_request(&task, None),
        &summary(LINEAR),
    );
    record(
        &fx.store,
        &fx.cfg,
        &reconstruct_request(LINEAR, &neutral),
        &neutral_edges(&neutral, &[("n0", "n1"), ("n1", "n2")]),
    );
    let first = linear_attempt(&task);
    assert!(first.discrepancy.as_deref().unwrap().contains("parallel"));
    record(
        &fx.store,
        &fx.cfg,
        &summarize_request(&task, Some(&first)),
        &summary(FORKED),
    );
    record(
        &fx.store,
        &fx.cfg,
        &reconstruct_request(FORKED, &neutral),
        &neutral_edges(&neutral, &[("n0", "n1"), ("n0", "n2")]),
    );

    let report = run(&ValidateArgs { attempts: 3 }, &fx.cx()).unwrap();
    assert_eq!(
        (report.validated, report.rejected, report.failed),
        (1, 0, 0),
        "{report}"
    );
    assert_eq!(report.first_attempt, 0);
    let stored = fx.store.tasks(None).unwrap();
    assert_eq!(stored[0].status, TaskStatus::Validated);
    let t = &stored[0].task;
    assert_eq!(t.task_instruction, FORKED);
    assert_eq!(t.validation.len(), 2);
    assert!(!t.validation[0].passed);
    assert!(t.validation[0]
        .discrepancy
        .as_deref()
        .unwrap()
        .contains("can run in parallel"));
    assert!(t.validation[1].passed);
    assert_eq!(fx.store.validation_attempts("t-fork").unwrap().len(), 2);
    // The tasks file carries the validated instruction.
    let line = std::fs::read_to_string(fx.dir.path().join("generated/tasks.jsonl")).unwrap();
    let v: Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    assert_eq!(v["task_instruction"], FORKED);

    // Nothing left to do: a second run makes no call (a replay miss would fail it).
    let again = run(&ValidateArgs { attempts: 3 }, &fx.cx()).unwrap();
    assert_eq!(again.processed, 0);
}

#[test]
fn a_summary_that_never_agrees_is_rejected_after_n_attempts() {
    let task = forked("t-stubborn");
    let fx = Fixture::new(&task);
    let neutral = neutral_of(&task);
    record(
        &fx.store,
        &fx.cfg,
        &summarize_request(&task, None),
        &summary(LINEAR),
    );
    record(
        &fx.store,
        &fx.cfg,
        &reconstruct_request(LINEAR, &neutral),
        &neutral_edges(&neutral, &[("n0", "n1"), ("n1", "n2")]),
    );
    // Told about the lost branch, it answers the same again; attempts 2 and 3
    // ask the same questions again, each a new sample of the same request.
    for sample in [None, Some(1)] {
        record_sample(
            &fx.store,
            &fx.cfg,
            &summarize_request(&task, Some(&linear_attempt(&task))),
            &summary(LINEAR),
            sample,
        );
    }
    for sample in [Some(1), Some(2)] {
        record_sample(
            &fx.store,
            &fx.cfg,
            &reconstruct_request(LINEAR, &neutral),
            &neutral_edges(&neutral, &[("n0", "n1"), ("n1", "n2")]),
            sample,
        );
    }

    let report = run(&ValidateArgs { attempts: 3 }, &fx.cx()).unwrap();
    assert_eq!((report.validated, report.rejected), (0, 1), "{report}");
    let stored = fx.store.tasks(None).unwrap();
    assert_eq!(stored[0].status, TaskStatus::Rejected);
    assert_eq!(stored[0].task.validation.len(), 3);
    let attempts = fx.store.validation_attempts("t-stubborn").unwrap();
    assert_eq!(attempts.len(), 3);
    assert!(attempts
        .iter()
        .all(|a| !a.passed && a.discrepancy.is_some()));
    let reason = fx.store.task_reason("t-stubborn").unwrap().unwrap();
    assert!(reason.contains("after 3 attempt"), "{reason}");
}

fn tasks(ws: &Workspace) -> Vec<Value> {
    std::fs::read_to_string(ws.file("generated/tasks.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn offline_validation_keeps_levels_and_regeneration_touches_only_new_tasks() {
    let ws = Workspace::new();
    ws.ok(&["--quiet", "pool", "import", HAND_WRITTEN_POOL]);
    ws.ok(&["--quiet", "intents"]);
    ws.ok(&[
        "--quiet",
        "compose",
        "--count",
        "12",
        "--profile",
        "free",
        "--dependency",
        "medium",
        "--hierarchy",
        "medium",
    ]);
    let out = ws.ok(&["validate"]);
    assert!(out.contains("validated"), "{out}");
    let first = tasks(&ws);
    let validated = first
        .iter()
        .filter(|t| {
            t["validation"]
                .as_array()
                .is_some_and(|a| a.last().unwrap()["passed"] == true)
        })
        .count();
    assert!(
        validated * 10 >= first.len() * 9,
        "{validated} of {} validated within 3 attempts\n{out}",
        first.len()
    );
    for t in &first {
        assert_eq!(t["complexity"]["levels"]["dependency"], "medium");
        assert_eq!(t["complexity"]["levels"]["hierarchy"], "medium");
        assert!(t["low_level_instruction"].is_string());
        assert!(!t["validation"].as_array().unwrap().is_empty());
    }

    ws.ok(&[
        "--quiet",
        "compose",
        "--count",
        "6",
        "--instruction",
        "hard",
    ]);
    let out = ws.ok(&["validate"]);
    let all = tasks(&ws);
    let new: Vec<&Value> = all
        .iter()
        .filter(|t| t["composition"]["version"] == 2)
        .collect();
    assert!(!new.is_empty());
    assert!(
        out.contains(&format!("of {} tasks", new.len())),
        "only the new version is processed: {out}"
    );
    for t in new {
        assert!(t["dag"]["nodes"].as_array().unwrap().len() >= 5);
        assert_eq!(t["complexity"]["levels"]["instruction"], "hard");
        assert!(!t["validation"].as_array().unwrap().is_empty());
    }
    // Earlier tasks are untouched.
    for t in &first {
        assert!(all.contains(t));
    }
}
