//! `synth review` through the real binary on a small store (the hand-written pool,
//! tasks composed from it, one task trajectory): the sheet holds the sampled tasks,
//! a marked CSV (reasons with commas, quotes and newlines) imports with exact
//! figures, a bad row names its line and stores nothing, re-import is idempotent.

mod common;

const HAND_WRITTEN_POOL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/hand_written_pool.jsonl"
);

use std::collections::BTreeMap;
use std::path::Path;

use common::Workspace;
use serde_json::Value;
use synth::model::{ActionCall, Dimension, TaskId, TaskTrajectory, TrajectoryAction};
use synth::resources::Catalog;
use synth::store::Store;

const TRICKY_REASON: &str = "edges are fake, \"n2\" needs nothing\nfrom n1";

/// Composes tasks from the hand-written pool and stores a task trajectory for the
/// first task (open its first node's application, then one more click).
fn small_store() -> Workspace {
    let ws = Workspace::new();
    ws.ok(&["--quiet", "pool", "import", HAND_WRITTEN_POOL]);
    ws.ok(&["--quiet", "intents"]);
    ws.ok(&["--quiet", "compose", "--count", "10"]);
    let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
    let t = store.tasks(None).unwrap().remove(0).task;
    let id = t.task_id.clone().unwrap();
    let order = t.successful_topo[0].clone();
    let click = |text: &str| TrajectoryAction {
        call: ActionCall::ClickInput {
            button: "left".into(),
            double: true,
        },
        rect: [0; 4],
        description: String::new(),
        effect: String::new(),
        thought: String::new(),
        control_text: text.into(),
        control_label: None,
    };
    let traj = TaskTrajectory {
        trajectory_id: format!("{id}(0)"),
        task_id: TaskId(id.0.clone()),
        topological_order: order.clone(),
        instruction: t.task_instruction.clone(),
        intent: t.task_intent.clone(),
        observations: vec![],
        actions: vec![click(&t.nodes[&order[0]].application), click("Nothing")],
    };
    store
        .conn()
        .execute(
            "INSERT INTO task_trajectories (trajectory_id, task_id, status, reason, body)
             VALUES (?1, ?2, 'ok', NULL, ?3)",
            rusqlite::params![
                traj.trajectory_id,
                id.0,
                serde_json::to_string(&traj).unwrap()
            ],
        )
        .unwrap();
    ws
}

/// The sheet's rows as header-keyed maps.
fn read_sheet(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header = r.headers().unwrap().clone();
    assert_eq!(
        header.iter().collect::<Vec<_>>(),
        [
            "task_id",
            "capability",
            "nodes",
            "dependency",
            "instruction",
            "knowledge",
            "hierarchy",
            "branch",
            "decision",
            "reason"
        ]
    );
    r.records()
        .map(|rec| {
            header
                .iter()
                .zip(rec.unwrap().iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn write_sheet(path: &Path, rows: &[BTreeMap<String, String>]) {
    let mut w = csv::Writer::from_path(path).unwrap();
    let header: Vec<&String> = rows[0].keys().collect();
    w.write_record(&header).unwrap();
    for row in rows {
        w.write_record(row.values()).unwrap();
    }
    w.flush().unwrap();
}

/// Marks every row: the first with the tricky reason, then accept, reject,
/// accept, blank, in turn.
fn mark(rows: &mut [BTreeMap<String, String>]) {
    for (i, row) in rows.iter_mut().enumerate() {
        let (d, r) = match i % 4 {
            _ if i == 0 => ("reject", TRICKY_REASON),
            1 => ("accept", ""),
            2 => ("Reject", "Instruction is vague."),
            3 => ("accept", "fine"),
            _ => ("", ""),
        };
        row.insert("decision".into(), d.into());
        row.insert("reason".into(), r.into());
    }
}

fn stored_reviews(ws: &Workspace) -> Vec<(String, String, String)> {
    Store::open(&ws.file("generated/synth.sqlite"))
        .unwrap()
        .reviews()
        .unwrap()
        .into_iter()
        .map(|r| (r.task_id, r.decision, r.reason))
        .collect()
}

#[test]
fn sample_writes_a_page_and_a_blank_sheet_spread_over_node_counts() {
    let ws = small_store();
    let out = ws.ok(&["review", "--sample", "4"]);
    assert!(out.contains("review sheet: 4 tasks"), "{out}");
    let dir = ws.file("generated/review");
    let rows = read_sheet(&dir.join("review.csv"));
    assert_eq!(rows.len(), 4);
    assert!(rows
        .iter()
        .all(|r| r["decision"].is_empty() && r["reason"].is_empty()));
    let page = std::fs::read_to_string(dir.join("review.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    let lower = page.to_ascii_lowercase();
    assert!(!lower.contains("<script") && !lower.contains("<link"));
    for attr in ["src=\"", "href=\""] {
        for (i, _) in lower.match_indices(attr) {
            let v = &lower[i + attr.len()..];
            assert!(
                v.starts_with("data:") || v.starts_with('#'),
                "{}",
                &page[i..i + 60]
            );
        }
    }
    for r in &rows {
        assert!(
            page.contains(&r["task_id"]),
            "{} not on the page",
            r["task_id"]
        );
    }
    assert_eq!(page.matches("<svg class=\"graph\"").count(), 4);
    for label in ["High-level instruction", "Low-level instruction", "Intent"] {
        assert_eq!(page.matches(label).count(), 4, "{label}");
    }

    // Spread: as many distinct node counts as the store offers, up to 4.
    let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
    let mut available: Vec<usize> = store
        .tasks(None)
        .unwrap()
        .iter()
        .map(|t| t.task.dag.nodes.len())
        .collect();
    available.sort_unstable();
    available.dedup();
    let mut picked: Vec<&str> = rows.iter().map(|r| r["nodes"].as_str()).collect();
    picked.sort_unstable();
    picked.dedup();
    assert_eq!(
        picked.len(),
        available.len().min(4),
        "{picked:?} of {available:?}"
    );

    // The same seed gives the same sheet; all tasks include the one with a
    // trajectory, shown with screenshots, and the one with quality flags.
    store
        .conn()
        .execute(
            "UPDATE tasks SET body = json_set(body, '$.quality',
                 json('{\"intent_grounded\":true,\"edges_real\":false}')) WHERE seq = 1",
            [],
        )
        .unwrap();
    let again = ws.file("again");
    ws.ok(&["review", "--sample", "4", "--out", again.to_str().unwrap()]);
    assert_eq!(read_sheet(&again.join("review.csv")), rows);
    let all = ws.ok(&[
        "review",
        "--sample",
        "100",
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(
        all.contains("1 with trajectory screenshots, 3 screenshots"),
        "{all}"
    );
    let page = std::fs::read_to_string(again.join("review.html")).unwrap();
    assert_eq!(page.matches("data:image/png;base64,").count(), 3);
    assert_eq!(
        page.matches("<span class=\"chip\">quality</span>").count(),
        1
    );
    assert!(page.contains("<span class=\"badge passed\">intent_grounded: true</span>"));
    assert!(page.contains("<span class=\"badge failed\">edges_real: false</span>"));
}

#[test]
fn marks_round_trip_with_exact_figures() {
    let ws = small_store();
    ws.ok(&["review", "--sample", "100"]);
    let sheet = ws.file("generated/review/review.csv");
    let mut rows = read_sheet(&sheet);
    assert!(rows.len() >= 6, "only {} tasks", rows.len());
    mark(&mut rows);
    write_sheet(&sheet, &rows);

    let json: Value =
        serde_json::from_str(&ws.ok(&["review", "--import", sheet.to_str().unwrap(), "--json"]))
            .unwrap();

    // The reasons are stored exactly as written.
    let stored = stored_reviews(&ws);
    let marked: Vec<&BTreeMap<String, String>> =
        rows.iter().filter(|r| !r["decision"].is_empty()).collect();
    assert_eq!(stored.len(), marked.len());
    assert_eq!(json["marked"], marked.len());
    assert_eq!(json["blank"], rows.len() - marked.len());
    let first = stored.iter().find(|s| s.0 == rows[0]["task_id"]).unwrap();
    assert_eq!(
        (first.1.as_str(), first.2.as_str()),
        ("reject", TRICKY_REASON)
    );

    // Expected figures, counted here from the store and the catalogue.
    let catalog = Catalog::load(ws.path()).unwrap();
    let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
    let tasks: BTreeMap<String, synth::model::Task> = store
        .tasks(None)
        .unwrap()
        .into_iter()
        .map(|t| (t.task.task_id.clone().unwrap().0, t.task))
        .collect();
    let mut per_cap: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut per_level: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let (mut acc, mut all) = (0u64, 0u64);
    for r in &marked {
        let ok = r["decision"].eq_ignore_ascii_case("accept");
        let levels = tasks[&r["task_id"]].complexity.unwrap().levels;
        let mut caps = catalog.capabilities_of(&levels);
        if caps.is_empty() {
            caps.push("(none)".into());
        }
        let bump = |e: &mut (u64, u64)| {
            e.0 += u64::from(ok);
            e.1 += 1;
        };
        acc += u64::from(ok);
        all += 1;
        for c in caps {
            bump(per_cap.entry(c).or_default());
        }
        for d in Dimension::ALL {
            bump(
                per_level
                    .entry(format!("{d} {}", levels.get(d)))
                    .or_default(),
            );
        }
    }
    assert_eq!(json["overall"]["accepted"], acc);
    assert_eq!(json["overall"]["reviewed"], all);
    let got_caps: BTreeMap<String, (u64, u64)> = json["per_capability"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["capability"].as_str().unwrap().to_string(),
                (
                    c["accepted"].as_u64().unwrap(),
                    c["reviewed"].as_u64().unwrap(),
                ),
            )
        })
        .collect();
    assert_eq!(got_caps, per_cap);
    let got_levels: BTreeMap<String, (u64, u64)> = json["per_level"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                format!(
                    "{} {}",
                    l["dimension"].as_str().unwrap(),
                    l["level"].as_str().unwrap()
                ),
                (
                    l["accepted"].as_u64().unwrap(),
                    l["reviewed"].as_u64().unwrap(),
                ),
            )
        })
        .collect();
    assert_eq!(got_levels, per_level);

    // The text report says the same, with the percentage.
    let text = ws.ok(&["review", "--import", sheet.to_str().unwrap()]);
    for (key, (a, n)) in &per_level {
        let line = format!(
            "  {key}: {a}/{n} accepted ({:.1}%)",
            100.0 * *a as f64 / *n as f64
        );
        assert!(text.contains(&line), "{line:?} not in\n{text}");
    }
    let vague = marked
        .iter()
        .filter(|r| r["reason"] == "Instruction is vague.")
        .count();
    assert!(
        text.contains(&format!("  {vague} x Instruction is vague. (")),
        "{text}"
    );
    assert!(
        text.contains("1 x edges are fake, \"n2\" needs nothing from n1 ("),
        "{text}"
    );
    let stats = ws.ok(&["stats"]);
    assert!(
        stats.contains(&format!("human review: {acc}/{all} accepted")),
        "{stats}"
    );
}

#[test]
fn a_bad_row_names_its_line_and_stores_nothing() {
    let ws = small_store();
    ws.ok(&["review", "--sample", "5"]);
    let sheet = ws.file("generated/review/review.csv");
    let mut rows = read_sheet(&sheet);
    mark(&mut rows);
    // Row 1's reason spans two lines, so row 3 starts on line 5.
    rows[2].insert("decision".into(), "maybe".into());
    write_sheet(&sheet, &rows);
    let out = ws.synth(&["review", "--import", sheet.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("review.csv:5: decision 'maybe' is not accept, reject or empty"),
        "{err}"
    );
    assert!(stored_reviews(&ws).is_empty());

    rows[2].insert("decision".into(), "accept".into());
    rows[3].insert("task_id".into(), "no-such-task".into());
    write_sheet(&sheet, &rows);
    let out = ws.synth(&["review", "--import", sheet.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("review.csv:6: unknown task id 'no-such-task'"),
        "{err}"
    );
    assert!(stored_reviews(&ws).is_empty());
}

#[test]
fn reimport_is_idempotent_and_replaces_marks() {
    let ws = small_store();
    ws.ok(&["review", "--sample", "6"]);
    let sheet = ws.file("generated/review/review.csv");
    let mut rows = read_sheet(&sheet);
    mark(&mut rows);
    write_sheet(&sheet, &rows);
    let path = sheet.to_str().unwrap();
    let first = ws.ok(&["review", "--import", path, "--json"]);
    let stored = stored_reviews(&ws);
    let second = ws.ok(&["review", "--import", path, "--json"]);
    assert_eq!(first, second);
    assert_eq!(stored_reviews(&ws), stored);

    // A changed decision replaces the earlier mark; blank rows keep theirs.
    rows[0].insert("decision".into(), "accept".into());
    rows[0].insert("reason".into(), "on second thought".into());
    rows[1].insert("decision".into(), String::new());
    write_sheet(&sheet, &rows);
    ws.ok(&["review", "--import", path]);
    let after = stored_reviews(&ws);
    assert_eq!(after.len(), stored.len());
    let get = |id: &str| after.iter().find(|s| s.0 == id).unwrap().clone();
    assert_eq!(get(&rows[0]["task_id"]).1, "accept");
    assert_eq!(get(&rows[0]["task_id"]).2, "on second thought");
    assert_eq!(get(&rows[1]["task_id"]).1, "accept");
}
