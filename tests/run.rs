//! `synth run` from a fresh workspace: the whole pipeline offline (explore, verify,
//! intents, compose, validate, trajectories, report), tasks at every level of every
//! complexity dimension, and a second run that does no new work.

mod common;

use common::Workspace;

fn stats(ws: &Workspace) -> serde_json::Value {
    serde_json::from_str(&ws.ok(&["stats", "--json"])).expect("stats --json is JSON")
}

fn count(ws: &Workspace, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(ws.file("generated/synth.sqlite")).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn run_does_everything_offline_then_nothing_new() {
    let ws = Workspace::new();
    let out = ws.synth(&["run", "--formats", "none", "--count", "60"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "synth run failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for stage in [
        "explore",
        "verify",
        "intents",
        "compose",
        "validate",
        "trajectories",
    ] {
        assert!(stdout.contains(stage), "no {stage} line in:\n{stdout}");
    }
    assert!(ws.file("generated/report.html").is_file());
    assert!(ws.file("generated/tasks.jsonl").is_file());
    assert!(ws.file("generated/task_trajectories.jsonl").is_file());

    // Every level of every dimension has tasks.
    let tasks: Vec<serde_json::Value> = std::fs::read_to_string(ws.file("generated/tasks.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!tasks.is_empty());
    for dimension in [
        "dependency",
        "instruction",
        "knowledge",
        "hierarchy",
        "branch",
    ] {
        for level in ["easy", "medium", "hard"] {
            // The embedded pool reaches the hard levels and wide graphs only now
            // and then: its wide graphs were one file handed to readers that only
            // pack or convert it again (a zip of one web page beside its PDF and
            // its text copy), its long chains converted a file twice or zipped a
            // single file at the end, and four application categories in one task
            // took copies nobody pastes; the composer refuses all of these as
            // pointless. The stats name the shortfall; tests/compose.rs reaches
            // every level on the hand-written pool.
            let unreachable = level == "hard" || (dimension == "branch" && level != "easy");
            if unreachable {
                continue;
            }
            assert!(
                tasks
                    .iter()
                    .any(|t| t["complexity"]["levels"][dimension] == level),
                "no {level} {dimension} task among {}",
                tasks.len()
            );
        }
    }
    let verified = count(
        &ws,
        "SELECT count(*) FROM subtasks WHERE status = 'verified'",
    );
    assert!(verified >= 200, "{verified} verified subtasks");
    let ok = count(
        &ws,
        "SELECT count(*) FROM task_trajectories WHERE status = 'ok'",
    );
    assert!(ok > 0, "no task trajectory replays to full coverage");

    // A second run finds everything done.
    let tables = [
        "subtasks",
        "trajectories",
        "evaluations",
        "verification_rounds",
        "intents",
        "dataset_versions",
        "tasks",
        "validation_attempts",
        "task_trajectories",
    ];
    let before: Vec<i64> = tables
        .iter()
        .map(|t| count(&ws, &format!("SELECT count(*) FROM {t}")))
        .collect();
    let stats_before = stats(&ws);
    let again = ws.synth(&["run", "--formats", "none", "--count", "60"]);
    assert!(matches!(again.status.code(), Some(0 | 3)));
    let after: Vec<i64> = tables
        .iter()
        .map(|t| count(&ws, &format!("SELECT count(*) FROM {t}")))
        .collect();
    assert_eq!(before, after, "rows of {tables:?}");
    assert_eq!(stats_before["tasks"], stats(&ws)["tasks"]);
    assert_eq!(
        count(&ws, "SELECT count(*) FROM runs WHERE status = 'running'"),
        0
    );

    // Regression: a killed intents stage (some intents stored, its run never
    // finished) was skipped by the next run because "some accepted intent exists".
    // Planning is redone from the completion record, to the same intents.
    let intents = count(&ws, "SELECT count(*) FROM intents");
    {
        let conn = rusqlite::Connection::open(ws.file("generated/synth.sqlite")).unwrap();
        conn.execute_batch(
            "DELETE FROM intents WHERE rowid > (SELECT min(rowid) + 5 FROM intents);
             UPDATE runs SET status = 'running', finished_at = NULL WHERE command = 'intents';",
        )
        .unwrap();
    }
    let resumed = ws.synth(&["run", "--formats", "none", "--count", "60"]);
    assert!(matches!(resumed.status.code(), Some(0 | 3)));
    assert_eq!(count(&ws, "SELECT count(*) FROM intents"), intents);
    assert_eq!(
        count(
            &ws,
            "SELECT count(*) FROM runs WHERE status = 'interrupted'"
        ),
        1
    );
}
