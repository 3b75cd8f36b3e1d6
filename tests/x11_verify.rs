//! `synth --env x11 verify` when a desktop cannot try a subtask: the application
//! does not come up within its catalogue `start_secs` (as Gnumeric under load).
//! That subtask stays proposed with the reason, the next verify tries it again,
//! and the others are decided. Skipped (passing) when Xvfb or Mousepad are
//! missing, except under CI.

mod common;

use synth::model::{Subtask, SubtaskId, SubtaskStatus};
use synth::store::Store;

fn available() -> bool {
    common::x11_available(&["mousepad", "xclip"])
}

/// The committed x11 pool's Mousepad "add a line to a text file and save it
/// as" subtask (the pool keeps no plain Save As of a text as a text: an
/// unchanged copy), with its first parameter set and demonstration only.
fn mousepad_save_as(ws: &common::Workspace) -> Subtask {
    let pool = std::fs::read_to_string(ws.file("subtask_pool/x11/pool.jsonl")).unwrap();
    let mut s: Subtask = pool
        .lines()
        .map(|l| serde_json::from_str::<Subtask>(l).unwrap())
        .find(|s| {
            s.instruction_template
                .starts_with("In Mousepad, open '{txt_path}', add the line")
        })
        .expect("the committed pool has Mousepad's edit of a text file");
    s.available_parameters.truncate(1);
    s.trajectories.retain(|t| t.parameter_index == Some(0));
    s
}

fn reason(ws: &common::Workspace, id: &str) -> Option<String> {
    let db = rusqlite::Connection::open(ws.file("generated/synth.sqlite")).unwrap();
    db.query_row("SELECT reason FROM subtasks WHERE id = ?1", [id], |r| {
        r.get(0)
    })
    .unwrap()
}

#[test]
fn an_application_that_does_not_start_leaves_its_subtask_proposed() {
    if !available() {
        return;
    }
    let ws = common::Workspace::new();
    // Slowpad is Mousepad under a name the accessibility bus never shows, so it
    // is never ready within its start_secs (2 s).
    let mousepad = std::fs::read_to_string(ws.file("resources/x11/apps/mousepad.toml")).unwrap();
    let slowpad = mousepad
        .replace("name = \"Mousepad\"", "name = \"Slowpad\"")
        .replace(
            "accessible_name = \"mousepad\"",
            "accessible_name = \"no-such-bus-name\"",
        )
        + "start_secs = 2\n";
    assert!(slowpad.contains("Slowpad") && slowpad.contains("no-such-bus-name"));
    std::fs::write(ws.file("resources/x11/apps/slowpad.toml"), slowpad).unwrap();

    let good = mousepad_save_as(&ws);
    let mut slow = good.clone();
    slow.id = SubtaskId("slowpad-save-as".into());
    slow.application = "Slowpad".into();
    slow.instruction_template = slow.instruction_template.replace("Mousepad", "Slowpad");
    for t in &mut slow.trajectories {
        t.trajectory_id = format!("slowpad-{}", t.trajectory_id);
    }
    {
        let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
        // The slow one first: the desktop that fails on it is replaced and the
        // next subtask is still tried.
        store
            .put_subtask(&slow, SubtaskStatus::Proposed, None, None)
            .unwrap();
        store
            .put_subtask(&good, SubtaskStatus::Proposed, None, None)
            .unwrap();
    }

    let out = ws.synth(&["--env", "x11", "verify", "--jobs", "1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Exit 3: done, with something left for the next run.
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("2 proposed -> 1 verified, 0 rejected, 1 pending"),
        "{stdout}\n{stderr}"
    );
    assert!(stdout.contains("not tried"), "{stdout}");
    assert!(stdout.contains("within 2 s"), "{stdout}");

    let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
    let ids = |status| -> Vec<String> {
        store
            .subtasks(status)
            .unwrap()
            .into_iter()
            .map(|s| s.id.0)
            .collect()
    };
    assert_eq!(ids(SubtaskStatus::Verified), vec![good.id.0.clone()]);
    assert_eq!(ids(SubtaskStatus::Proposed), vec![slow.id.0.clone()]);
    assert!(ids(SubtaskStatus::Rejected).is_empty());
    let why = reason(&ws, &slow.id.0).unwrap_or_default();
    assert!(
        why.starts_with("not tried: ") && why.contains("within 2 s"),
        "{why}"
    );

    // The next verify tries it again (and it stays proposed: nothing changed).
    let out = ws.synth(&["--env", "x11", "verify"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.contains("1 proposed -> 0 verified, 0 rejected, 1 pending"),
        "{stdout}"
    );
    assert_eq!(ids(SubtaskStatus::Proposed), vec![slow.id.0.clone()]);
}
