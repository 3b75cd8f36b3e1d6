//! `synth --llm openai run` against a model-shaped server on loopback
//! (`tests/model_server`): the run makes data (tasks whose trajectories replay, a
//! non-empty training export), survives injected faults, and resumes honestly.

mod common;
mod model_server;

use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{Workspace, SMALL_APPS};
use model_server::Brain;

const KEY: &str = "sk-model-shaped-SECRET-5e4d3c2b1a";

/// `synth --llm openai --base-url URL ARGS` in `ws`, with the test key.
fn command(ws: &Workspace, base_url: &str, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_synth"));
    c.current_dir(ws.path())
        .arg("--workspace")
        .arg(ws.path())
        .args(["--llm", "openai", "--base-url", base_url])
        .args(args)
        .env("OPENAI_API_KEY", KEY)
        .env_remove("OPENAI_BASE_URL");
    c
}

fn synth(ws: &Workspace, base_url: &str, args: &[&str]) -> Output {
    command(ws, base_url, args)
        .output()
        .expect("the synth binary runs")
}

fn spawn(ws: &Workspace, base_url: &str, args: &[&str]) -> Child {
    command(ws, base_url, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the synth binary starts")
}

/// Waits until the brain has answered `n` more requests of `role` than `from`.
async fn wait_for(brain: &Brain, role: &str, n: u64, limit: Duration) {
    let started = Instant::now();
    while brain.tally().requests.get(role).copied().unwrap_or(0) < n {
        assert!(
            started.elapsed() < limit,
            "no {n} {role} requests in {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn text(o: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn count(ws: &Workspace, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(ws.file("generated/synth.sqlite")).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// The records of a JSON array file (0 when it is missing).
fn records(path: &std::path::Path) -> usize {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| serde_json::from_str::<Vec<serde_json::Value>>(&s).ok())
        .map_or(0, |v| v.len())
}

/// What a run made, as the store and the export files hold it.
#[derive(Debug)]
struct Made {
    verified: i64,
    tasks: i64,
    /// Tasks with at least one task trajectory that replays.
    tasks_replaying: i64,
    trajectories_ok: i64,
    trajectories_failed: i64,
    export_records: usize,
}

fn made(ws: &Workspace) -> Made {
    Made {
        verified: count(
            ws,
            "SELECT count(*) FROM subtasks WHERE status = 'verified'",
        ),
        tasks: count(ws, "SELECT count(*) FROM tasks WHERE status = 'validated'"),
        tasks_replaying: count(
            ws,
            "SELECT count(DISTINCT task_id) FROM task_trajectories WHERE status = 'ok'",
        ),
        trajectories_ok: count(
            ws,
            "SELECT count(*) FROM task_trajectories WHERE status = 'ok'",
        ),
        trajectories_failed: count(
            ws,
            "SELECT count(*) FROM task_trajectories WHERE status <> 'ok'",
        ),
        export_records: records(&ws.file("generated/export/sharegpt/data.json")),
    }
}

const RUN: &[&str] = &[
    "run",
    "--count",
    "12",
    "--formats",
    "sharegpt",
    "--no-report",
];

#[tokio::test(flavor = "multi_thread")]
async fn a_model_run_makes_replaying_task_trajectories_and_training_data() {
    let ws = Workspace::new();
    std::fs::write(ws.file("synth.toml"), model_server::synth_toml(20_000)).unwrap();
    let brain = Brain::new(ws.path(), 0.0, 7);
    let server = model_server::start(brain.clone()).await;
    let url = format!("{}/v1", server.uri());

    let out = synth(&ws, &url, RUN);
    let m = made(&ws);
    eprintln!("clean run: {m:?}; requests {:?}", brain.tally().requests);
    assert!(matches!(out.status.code(), Some(0 | 3)), "{}", text(&out));
    assert!(m.verified > 0 && m.tasks > 0, "{m:?}: {}", text(&out));
    assert!(
        m.trajectories_ok + m.trajectories_failed <= m.tasks,
        "{m:?}"
    );
    assert!(m.trajectories_ok >= m.tasks_replaying);
    assert!(
        m.tasks_replaying * 10 >= m.tasks * 9,
        "{} of {} tasks have a replaying task trajectory ({m:?})\n{}",
        m.tasks_replaying,
        m.tasks,
        text(&out)
    );
    assert!(m.export_records > 0, "empty training export: {m:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains(KEY) && !String::from_utf8_lossy(&out.stderr).contains(KEY));
    // The summary says what each role spent ("  actor 14404 req · 9.1M/1.2M tok · $...").
    for role in ["explorer", "actor", "coder", "summarizer"] {
        assert!(
            stdout
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{role} ")) && l.contains(" req · ")),
            "no spend line for the {role} in:\n{stdout}"
        );
    }
    // The multimodal actor (the default) sees the marked screenshot beside the
    // controls; no other role gets an image.
    let tally = brain.tally();
    assert_eq!(
        tally.images.keys().collect::<Vec<_>>(),
        vec!["actor"],
        "{tally:?}"
    );
    assert_eq!(tally.images["actor"], tally.requests["actor"]);
    assert_eq!(
        tally.image_sizes.iter().collect::<Vec<_>>(),
        vec![&(synth::env::SCREEN_WIDTH, synth::env::SCREEN_HEIGHT)]
    );

    // A re-run of the finished run: no request, the same exit code.
    let before = brain.tally().total_requests();
    let again = synth(&ws, &url, RUN);
    assert_eq!(brain.tally().total_requests(), before, "{}", text(&again));
    assert_eq!(again.status.code(), out.status.code(), "{}", text(&again));
}

// Each injected timeout costs seconds and the server answers one request at a
// time, so this run takes about half an hour: run it on purpose with
// `cargo test --release --test llm_run -- --ignored thirty_percent`.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "about 30 minutes; see the comment above"]
async fn a_model_run_with_thirty_percent_faults_completes_and_counts_every_fault_class() {
    let ws = Workspace::new();
    std::fs::write(
        ws.file("synth.toml"),
        model_server::synth_toml(model_server::FAULT_TIMEOUT_MS),
    )
    .unwrap();
    let brain = Brain::new(ws.path(), 0.3, 11);
    let server = model_server::start(brain.clone()).await;
    let url = format!("{}/v1", server.uri());

    let started = Instant::now();
    let out = synth(&ws, &url, RUN);
    let m = made(&ws);
    let tally = brain.tally();
    eprintln!(
        "faulty run in {:.0}s: {m:?}; {} requests; injected {:?}",
        started.elapsed().as_secs_f64(),
        tally.total_requests(),
        tally.faults
    );
    assert!(matches!(out.status.code(), Some(0 | 3)), "{}", text(&out));
    assert!(m.tasks > 0 && m.export_records > 0, "{m:?}\n{}", text(&out));
    let stats = ws.ok(&["stats"]);
    let line = stats
        .lines()
        .find(|l| l.starts_with("model faults"))
        .unwrap_or_else(|| panic!("no fault line in:\n{stats}"));
    eprintln!("{line}");
    for class in [
        "rate_limited",
        "server_error",
        "timeout",
        "bad_response",
        "not_json",
        "schema_invalid",
    ] {
        assert!(line.contains(class), "{class} not counted: {line}");
    }
    assert!(!stats.contains(KEY));
}

/// Kills the endpoint in the middle of explore, then of verify: each stage goes
/// on for what it can, exits 3 naming what is left, and a re-run with the
/// endpoint back does the rest without asking again what was answered.
#[tokio::test(flavor = "multi_thread")]
async fn killing_the_endpoint_mid_stage_leaves_the_rest_for_the_next_run() {
    // Six applications, so that the re-run's verify is short.
    let ws = Workspace::with_apps(&SMALL_APPS);
    std::fs::write(ws.file("synth.toml"), model_server::synth_toml(20_000)).unwrap();
    let brain = Brain::new(ws.path(), 0.0, 3);
    let limit = Duration::from_secs(300);

    // Explore: the endpoint dies after two applications were asked (with four
    // requests in flight at most, at least two of the six are not answered).
    let server = model_server::start(brain.clone()).await;
    let url = format!("{}/v1", server.uri());
    let child = spawn(&ws, &url, &["explore"]);
    wait_for(&brain, "explorer", 2, limit).await;
    drop(server);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(stdout.contains("not explored"), "{}", text(&out));
    let failed = stdout.lines().filter(|l| l.contains("failed:")).count() as u64;
    assert!(failed > 0, "{}", text(&out));
    assert_eq!(
        count(&ws, "SELECT count(*) FROM runs WHERE status = 'running'"),
        0
    );

    let server = model_server::start(brain.clone()).await;
    let url = format!("{}/v1", server.uri());
    let before = brain.tally().requests.get("explorer").copied().unwrap_or(0);
    let out = synth(&ws, &url, &["explore"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let asked = brain.tally().requests["explorer"] - before;
    eprintln!(
        "explore: {failed} applications failed with the endpoint down; the re-run asked {asked}"
    );
    assert_eq!(
        asked, failed,
        "the re-run asks exactly the failed applications"
    );

    // Verify: the endpoint dies after 40 actor steps.
    let actor_before = brain.tally().requests.get("actor").copied().unwrap_or(0);
    let child = spawn(&ws, &url, &["verify"]);
    wait_for(&brain, "actor", actor_before + 40, limit).await;
    drop(server);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("pending"),
        "{}",
        text(&out)
    );
    let units_before = count(&ws, "SELECT count(*) FROM verify_units");
    assert!(
        units_before > 0,
        "nothing verified before the endpoint died"
    );

    let server = model_server::start(brain.clone()).await;
    let url = format!("{}/v1", server.uri());
    let out = synth(&ws, &url, &["verify"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    eprintln!(
        "verify: {units_before} units written before the endpoint died, {} after the re-run",
        count(&ws, "SELECT count(*) FROM verify_units")
    );
    // No answered request was sent again: every key has one accepted reply.
    let repeated = count(
        &ws,
        "SELECT count(*) FROM (SELECT key_hash FROM model_calls WHERE outcome = 'accepted'
          GROUP BY key_hash HAVING count(*) > 1)",
    );
    assert_eq!(repeated, 0, "requests answered twice");
    assert_eq!(
        count(&ws, "SELECT count(*) FROM runs WHERE status = 'running'"),
        0
    );
}

/// `--max-calls` stops a run cleanly at the limit (exit 3, nothing left
/// 'running'), and a re-run without it goes on from what is stored.
#[tokio::test(flavor = "multi_thread")]
async fn a_run_stops_at_max_calls_and_a_re_run_goes_on() {
    let ws = Workspace::new();
    std::fs::write(ws.file("synth.toml"), model_server::synth_toml(20_000)).unwrap();
    let brain = Brain::new(ws.path(), 0.0, 5);
    let server = model_server::start(brain.clone()).await;
    let url = format!("{}/v1", server.uri());

    let out = synth(
        &ws,
        &url,
        &["--max-calls", "10", "run", "--formats", "none"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("the model budget is spent (--max-calls 10"),
        "{}",
        text(&out)
    );
    assert!(stdout.contains("model requests sent: 10"), "{}", text(&out));
    assert_eq!(brain.tally().total_requests(), 10);
    assert_eq!(
        count(&ws, "SELECT count(*) FROM runs WHERE status = 'running'"),
        0
    );
    let explored = |ws: &Workspace, also_rejected_replies: bool| {
        count(
            ws,
            &format!(
                "SELECT count(DISTINCT application) FROM subtasks
                 WHERE json_extract(body, '$.provenance.note') = 'explore'{}",
                if also_rejected_replies {
                    ""
                } else {
                    " AND instruction_template <> '<explorer reply rejected>'"
                }
            ),
        )
    };
    let before = explored(&ws, false);
    let requests = brain.tally().total_requests();

    let out = synth(&ws, &url, &["explore"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // The re-run asked once for every application not explored before.
    let asked = brain.tally().total_requests() - requests;
    let all = explored(&ws, true);
    assert!(all > before, "{before} -> {all}");
    assert_eq!(asked, (all - before) as u64);
}
