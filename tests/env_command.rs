//! The `synth env` subcommands through `run_command`.

use std::path::PathBuf;

use synth::env::{run_command, EnvCommand, EnvError};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(cmd: EnvCommand) -> (Result<(), EnvError>, String) {
    let mut out = Vec::new();
    let r = run_command(
        &cmd,
        &workspace(),
        &synth::env::EnvSetup::default(),
        &mut out,
    );
    (r, String::from_utf8(out).unwrap())
}

#[test]
fn list_show_and_lint() {
    let (r, out) = run(EnvCommand::List);
    r.unwrap();
    assert!(out.lines().count() >= 24, "{out}");
    assert!(out.contains("Writer") && out.contains("Office"));
    let (r, out) = run(EnvCommand::Show {
        app: "Archiver".into(),
    });
    r.unwrap();
    assert!(out.contains("screen browse (start)"), "{out}");
    assert!(
        out.contains("compress") && out.contains("-> zip_path"),
        "{out}"
    );
    let (r, _) = run(EnvCommand::Show { app: "Nope".into() });
    assert!(matches!(r, Err(EnvError::UnknownApp(_))));
    let (r, out) = run(EnvCommand::Lint);
    r.unwrap();
    assert!(out.contains("application files OK"), "{out}");
}

#[test]
fn play_runs_actions_prints_checks_and_writes_screenshots() {
    let dir = tempfile::tempdir().unwrap();
    let actions = dir.path().join("actions.json");
    std::fs::write(
        &actions,
        r#"[
          {"function": "click_input", "args": {"button": "left", "double": false}, "control_text": "New"},
          {"function": "click_input", "args": {"button": "left", "double": false}, "control_text": "Text"},
          {"function": "keyboard_input", "args": {"keys": "Dear team^s"}, "control_text": "Text"},
          {"function": "click_input", "args": {"button": "left", "double": false}, "control_text": "OK"},
          {"function": "click_input", "args": {"button": "left", "double": false}, "control_label": "77"},
          {"function": "click_input", "args": {"button": "left", "double": false}, "control_text": "Save As"},
          {"function": "keyboard_input", "args": {"keys": "letter.txt{ENTER}"}, "control_text": "File name"}
        ]"#,
    )
    .unwrap();
    let checks = dir.path().join("checks.json");
    std::fs::write(
        &checks,
        r#"{"checks": [{"api": "check_file_contains", "args": {"file_path": "{p}", "text": "Dear team"}}],
            "params": {"p": "/home/user/Documents/letter.txt"}}"#,
    )
    .unwrap();
    let shots = dir.path().join("shots");
    let (r, out) = run(EnvCommand::Play {
        app: "Text Editor".into(),
        actions,
        screenshots: Some(shots.clone()),
        checks: Some(checks),
    });
    r.unwrap();
    assert!(out.contains("WRONG ACTION"), "{out}");
    assert!(
        out.contains("check_file_exists [\"/home/user/Documents/letter.txt\"] = true"),
        "{out}"
    );
    assert!(
        out.contains("check_keyboard_types [\"Dear team\"] = true"),
        "{out}"
    );
    assert!(out.contains("evaluation: success=true"), "{out}");
    assert!(shots.join("step_007.png").is_file() && shots.join("step_000_marks.png").is_file());
}
