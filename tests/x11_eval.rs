//! `synth --env x11 bench` and `synth --env x11 eval` on a real display: a task
//! of two Mousepad subtasks of the committed x11 pool (save a text file under a
//! new name; copy a text file's text), made from their verified
//! demonstrations. The offline agent opens Mousepad from the desktop's launcher
//! for each node and scores full marks; eval replays its runs on the real
//! desktop and scores them the same, and a run cut after the first node half.
//!
//! Needs `xvfb openbox dbus at-spi2-core xclip mousepad xfce4-appfinder` (the
//! launcher; `.ci/run` installs them). Without them the test says so and
//! passes, except under CI (`CI=true`), where a missing program fails it.

mod common;

use serde_json::{json, Value};
use synth::model::{Subtask, SubtaskStatus, Task};
use synth::store::{Store, TaskStatus};

fn available() -> bool {
    common::x11_available(&["mousepad", "xclip", "xfce4-appfinder"])
}

/// The committed pool's Mousepad subtask whose template starts with `template`,
/// with its first parameter set and demonstration only.
fn mousepad(ws: &common::Workspace, template: &str) -> Subtask {
    let pool = std::fs::read_to_string(ws.file("subtask_pool/x11/pool.jsonl")).unwrap();
    let mut s: Subtask = pool
        .lines()
        .map(|l| serde_json::from_str::<Subtask>(l).unwrap())
        .find(|s| s.instruction_template.starts_with(template))
        .unwrap_or_else(|| panic!("the committed x11 pool has '{template}'"));
    s.available_parameters.truncate(1);
    s.trajectories.retain(|t| t.parameter_index == Some(0));
    assert_eq!(s.trajectories.len(), 1, "{}", s.id.0);
    s
}

/// A validated task of the two subtasks, side by side (no edge).
fn task(save: &Subtask, copy: &Subtask) -> Task {
    let node = |s: &Subtask| {
        json!({"subtask_id": s.id.0, "parameter_index": 0, "application": "Mousepad",
               "category": "Office", "instruction": s.instruction(0).unwrap()})
    };
    serde_json::from_value(json!({
        "task_id": "t-mousepad",
        "task_instruction": format!("{} {}", save.instruction(0).unwrap(), copy.instruction(0).unwrap()),
        "dag": {"nodes": ["save", "copy"], "edges": {"save": [], "copy": []}},
        "task_intent": "Keep a copy of the welcome note and its text.",
        "successful_topo": [["save", "copy"], ["copy", "save"]],
        "nodes": {"save": node(save), "copy": node(copy)}
    }))
    .unwrap()
}

fn scores(ws: &common::Workspace, rel: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(ws.file(rel)).unwrap()).unwrap()
}

#[test]
fn the_offline_agent_scores_full_marks_and_eval_replays_runs_on_the_real_desktop() {
    if !available() {
        return;
    }
    let ws = common::Workspace::new();
    let save = mousepad(&ws, "In Mousepad, open '{txt_path}' and save it as");
    let copy = mousepad(
        &ws,
        "In Mousepad, open '{txt_path}', select all of it and copy",
    );
    {
        let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
        for s in [&save, &copy] {
            store
                .put_subtask(s, SubtaskStatus::Verified, None, None)
                .unwrap();
        }
        let t = task(&save, &copy);
        store
            .add_dataset(1, "test", &json!({}), "test", 1, &[t.clone()], None, None)
            .unwrap();
        store
            .record_validation(&t, TaskStatus::Validated, None, &[])
            .unwrap();
    }
    let x11 = ["--env", "x11", "--jobs", "1"];

    let out = ws.ok(&[&x11[..], &["bench", "--agent", "offline"]].concat());
    let bench = scores(&ws, "generated/bench/offline/scores.json");
    assert_eq!(bench["overall"]["success_rate"], json!(1.0), "{out}");
    assert_eq!(bench["per_task"][0]["completed"], json!(2), "{out}");

    // The run opens Mousepad from the launcher (Alt+F2, its name, Enter) for
    // each node, then takes the node's demonstration.
    let run_path = ws.file("generated/bench/offline/runs/t-mousepad.json");
    let mut run: Value =
        serde_json::from_str(&std::fs::read_to_string(&run_path).unwrap()).unwrap();
    let actions = run["actions"].as_array().unwrap().clone();
    let launches: Vec<usize> = actions
        .iter()
        .enumerate()
        .filter(|(_, a)| a["args"]["keys"] == json!("%{F2}"))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(launches.len(), 2, "{run}");
    assert_eq!(launches[0], 0);
    assert_eq!(actions[1]["args"]["keys"], json!("Mousepad"));

    // eval replays the runs on a fresh real desktop: the same full marks.
    ws.ok(&[
        &x11[..],
        &[
            "eval",
            "--runs",
            "generated/bench/offline/runs",
            "--json",
            "full.json",
        ],
    ]
    .concat());
    let full = scores(&ws, "full.json");
    assert_eq!(full["overall"]["coverage_rate"], json!(1.0), "{full}");
    assert_eq!(full["overall"]["success_rate"], json!(1.0), "{full}");

    // A run cut before the second launch completes one node of two.
    run["actions"].as_array_mut().unwrap().truncate(launches[1]);
    std::fs::create_dir_all(ws.file("half")).unwrap();
    std::fs::write(ws.file("half/t-mousepad.json"), run.to_string()).unwrap();
    ws.ok(&[&x11[..], &["eval", "--runs", "half", "--json", "half.json"]].concat());
    let half = scores(&ws, "half.json");
    assert_eq!(half["overall"]["coverage_rate"], json!(0.5), "{half}");
    assert_eq!(half["overall"]["success_rate"], json!(0.0), "{half}");
}
