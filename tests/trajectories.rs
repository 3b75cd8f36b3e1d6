//! `synth trajectories` on a small chain with hand-written, replayable subtask
//! trajectories (tests/fixtures/stage2_chain_pool.jsonl: mail -> {to-do -> calendar
//! event, chat message}): every stored task trajectory replays to full coverage;
//! a broken subtask trajectory is stored failed with the node that did not
//! complete; tasks without subtask trajectories wait.

mod common;

/// The hand-written pool of the first sessions, kept as a fixture: its chains are
/// known, so these tests can name the levels and intents it must reach.
const HAND_WRITTEN_POOL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/hand_written_pool.jsonl"
);

use std::collections::BTreeMap;

use common::Workspace;
use serde_json::Value;
use synth::env::SimDesktop;
use synth::eval::graph::{node_checks, replay};
use synth::eval::score::coverage_rate;
use synth::model::{Action, Subtask, SubtaskId, Task, TaskTrajectory};

const FIXTURE: &str = "tests/fixtures/stage2_chain_pool.jsonl";

fn fixture_text() -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE)).unwrap()
}

/// Imports `pool_text`, then intents, compose, validate and trajectories.
fn pipeline(pool_text: &str, orders: &str) -> (Workspace, String) {
    let ws = Workspace::new();
    std::fs::write(ws.file("chain.jsonl"), pool_text).unwrap();
    ws.ok(&["--quiet", "pool", "import", "chain.jsonl"]);
    ws.ok(&["--quiet", "intents"]);
    // The chain holds few distinct graphs: a shortfall (exit 3) is expected.
    let out = ws.synth(&["--quiet", "compose", "--count", "8", "--profile", "free"]);
    assert!(matches!(out.status.code(), Some(0) | Some(3)), "{out:?}");
    ws.ok(&["--quiet", "validate"]);
    let report = ws.ok(&["trajectories", "--orders", orders]);
    (ws, report)
}

fn lines<T: serde::de::DeserializeOwned>(ws: &Workspace, rel: &str) -> Vec<T> {
    std::fs::read_to_string(ws.file(rel))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn every_task_trajectory_replays_to_full_coverage() {
    let (ws, report) = pipeline(&fixture_text(), "3");
    assert!(report.contains("(100.0%)"), "{report}");
    let tasks: Vec<Task> = lines(&ws, "generated/tasks.jsonl");
    let trajs: Vec<TaskTrajectory> = lines(&ws, "generated/task_trajectories.jsonl");
    assert!(tasks.len() >= 3, "{}", tasks.len());
    let expected: usize = tasks.iter().map(|t| t.successful_topo.len().min(3)).sum();
    assert_eq!(trajs.len(), expected);

    let subtasks: BTreeMap<SubtaskId, Subtask> = fixture_text()
        .lines()
        .map(|l| serde_json::from_str::<Subtask>(l).unwrap())
        .map(|s| (s.id.clone(), s))
        .collect();
    let by_id: BTreeMap<String, &Task> = tasks
        .iter()
        .map(|t| (t.task_id.clone().unwrap().0, t))
        .collect();
    let mut desk = SimDesktop::load(ws.path()).unwrap();
    let mut deepest = 0;
    for traj in &trajs {
        let task = by_id[&traj.task_id.0];
        let k: usize = traj
            .trajectory_id
            .strip_prefix(&format!("{}(", traj.task_id.0))
            .and_then(|r| r.strip_suffix(')'))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(traj.topological_order, task.successful_topo[k]);
        assert_eq!(traj.instruction, task.task_instruction);
        assert_eq!(traj.intent, task.task_intent);
        let actions: Vec<Action> = traj.actions.iter().map(|a| a.to_action()).collect();
        let nodes = node_checks(task, &subtasks).unwrap();
        let r = replay(&mut desk, task, nodes, &actions, 0).unwrap();
        assert!(r.all_completed(), "{}: {:?}", traj.trajectory_id, r.states);
        assert_eq!(coverage_rate(&task.dag, &r.completion_order), 1.0);
        deepest = deepest.max(task.dag.nodes.len());
    }
    assert!(deepest >= 3, "the chain composes tasks of 3+ nodes");

    // Nothing is redone.
    let again = ws.ok(&["trajectories"]);
    assert!(again.contains("no validated task waits"), "{again}");
}

#[test]
fn a_broken_subtask_trajectory_fails_with_the_node_that_did_not_complete() {
    // The chat step types a different message than its checks expect.
    let broken = fixture_text().replace(
        "\"keys\": \"The mail is in your inbox{ENTER}\"",
        "\"keys\": \"Something else{ENTER}\"",
    );
    assert_ne!(broken, fixture_text());
    let (ws, report) = pipeline(&broken, "1");
    assert!(report.contains("failed"), "{report}");
    let store = synth::store::Store::open(&ws.file("generated/synth.sqlite")).unwrap();
    let failed = store
        .task_trajectories(Some(synth::store::TrajectoryStatus::Failed))
        .unwrap();
    let ok = store
        .task_trajectories(Some(synth::store::TrajectoryStatus::Ok))
        .unwrap();
    assert!(!failed.is_empty() && !ok.is_empty());
    for f in &failed {
        let reason = f.reason.as_deref().unwrap();
        assert!(
            reason.contains("(Chat:") && reason.contains("did not complete"),
            "{reason}"
        );
    }
    // Only ok ones are exported.
    let exported: Vec<Value> = lines(&ws, "generated/task_trajectories.jsonl");
    assert_eq!(exported.len(), ok.len());
}

#[test]
fn tasks_without_subtask_trajectories_wait_for_verify() {
    let ws = Workspace::new();
    ws.ok(&["--quiet", "pool", "import", HAND_WRITTEN_POOL]);
    ws.ok(&["--quiet", "intents"]);
    ws.ok(&["--quiet", "compose", "--count", "5", "--profile", "free"]);
    ws.ok(&["--quiet", "validate"]);
    let out = ws.ok(&["trajectories"]);
    assert!(
        out.contains("wait for verified subtask trajectories"),
        "{out}"
    );
    assert!(out.contains("has no verified trajectory"), "{out}");
}
