//! `synth --env x11 bench` and `synth --env x11 eval` on a real display: a task
//! of one Mousepad subtask of the committed x11 pool (save a text file under a
//! new name), made from its verified demonstration. The offline agent opens
//! Mousepad from the desktop's launcher and scores full marks (its run replayed
//! on the real desktop and scored as eval scores it); eval scores the run cut
//! before its last step as failed.
//!
//! One node keeps the test short (a second launch of an open application is
//! `tests/x11_desktop.rs`'s).
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

/// A validated task of the one subtask.
fn task(save: &Subtask) -> Task {
    serde_json::from_value(json!({
        "task_id": "t-mousepad",
        "task_instruction": save.instruction(0).unwrap(),
        "dag": {"nodes": ["save"], "edges": {"save": []}},
        "task_intent": "Add a line to the welcome note and keep it under a new name.",
        "successful_topo": [["save"]],
        "nodes": {"save": {"subtask_id": save.id.0, "parameter_index": 0,
            "application": "Mousepad", "category": "Office",
            "instruction": save.instruction(0).unwrap()}}
    }))
    .unwrap()
}

fn scores(ws: &common::Workspace, rel: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(ws.file(rel)).unwrap()).unwrap()
}

#[test]
fn the_offline_agent_scores_full_marks_and_eval_replays_a_run_on_the_real_desktop() {
    if !available() {
        return;
    }
    let ws = common::Workspace::new();
    // The pool keeps no plain Save As of a text as a text (an unchanged
    // copy): the edit, then Save As.
    let save = mousepad(&ws, "In Mousepad, open '{txt_path}', add the line");
    {
        let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
        store
            .put_subtask(&save, SubtaskStatus::Verified, None, None)
            .unwrap();
        let t = task(&save);
        store
            .add_dataset(
                1,
                "test",
                &json!({}),
                "test",
                1,
                std::slice::from_ref(&t),
                None,
                None,
            )
            .unwrap();
        store
            .record_validation(&t, TaskStatus::Validated, None, &[])
            .unwrap();
    }
    let x11 = ["--env", "x11", "--jobs", "1"];

    let out = ws.ok(&[&x11[..], &["bench", "--agent", "offline"]].concat());
    let bench = scores(&ws, "generated/bench/offline/scores.json");
    assert_eq!(bench["overall"]["success_rate"], json!(1.0), "{out}");
    assert_eq!(bench["per_task"][0]["completed"], json!(1), "{out}");

    // The run opens Mousepad from the launcher (Alt+F2, its name, Enter), then
    // takes the demonstration.
    let run_path = ws.file("generated/bench/offline/runs/t-mousepad.json");
    let mut run: Value =
        serde_json::from_str(&std::fs::read_to_string(&run_path).unwrap()).unwrap();
    let keys: Vec<&str> = run["actions"]
        .as_array()
        .unwrap()
        .iter()
        .take(3)
        .map(|a| a["args"]["keys"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(keys, ["%{F2}", "Mousepad", "{ENTER}"], "{run}");
    let steps = run["actions"].as_array().unwrap().len();
    assert_eq!(steps, 3 + save.trajectories[0].actions.len(), "{run}");

    // eval replays a run on a fresh real desktop: the run without its last
    // step (Enter in the Save As dialog) saves nothing and fails.
    run["actions"].as_array_mut().unwrap().truncate(steps - 1);
    std::fs::create_dir_all(ws.file("cut")).unwrap();
    std::fs::write(ws.file("cut/t-mousepad.json"), run.to_string()).unwrap();
    let out = ws.ok(&[&x11[..], &["eval", "--runs", "cut", "--json", "cut.json"]].concat());
    let cut = scores(&ws, "cut.json");
    assert_eq!(cut["overall"]["success_rate"], json!(0.0), "{out}");
    assert_eq!(cut["per_task"][0]["completed"], json!(0), "{out}");
    assert_eq!(cut["per_task"][0]["steps"], json!(steps - 1), "{out}");
}
