//! `synth explore` and `synth verify` on the real desktop: the offline walker finds
//! Mousepad's Save As in its menus, demonstrates it on the sandbox's text files,
//! and verify replays every demonstration in a fresh desktop and checks the saved
//! files. Skipped (passing) when Xvfb or Mousepad are missing, except under CI.

mod common;

use synth::env::x11::session;

fn available() -> bool {
    let missing = session::missing_program().or_else(|| {
        ["mousepad", "xclip"]
            .into_iter()
            .find(|p| {
                !std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                    .any(|d| d.join(p).is_file())
            })
            .map(str::to_string)
    });
    match missing {
        None => true,
        Some(p) if std::env::var("CI").is_ok() => panic!("CI must have {p} installed"),
        Some(p) => {
            eprintln!("skipping: {p} is not installed");
            false
        }
    }
}

#[test]
fn the_walker_finds_verifiable_subtasks_in_a_real_application() {
    if !available() {
        return;
    }
    let ws = common::Workspace::new();
    // One input per file type keeps the walk short (the rules are data).
    let rules = ws.file("resources/x11/explore.toml");
    let text = std::fs::read_to_string(&rules).unwrap();
    std::fs::write(&rules, text.replace("max_inputs = 2", "max_inputs = 1")).unwrap();
    let out = ws.ok(&["--env", "x11", "explore", "--apps", "Mousepad"]);
    assert!(out.contains("Mousepad"), "{out}");
    ws.ok(&["--env", "x11", "verify"]);

    // The verified pool holds the edit family, whose evaluation reads the saved
    // file for the typed line, with one demonstration per parameter set.
    let pool = ws.file("pool.jsonl");
    ws.ok(&["pool", "export", "--out", pool.to_str().unwrap()]);
    let text = std::fs::read_to_string(&pool).unwrap();
    assert!(text.lines().count() >= 2, "{text}");
    let edit: serde_json::Value = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|s| {
            s["instruction_template"]
                .as_str()
                .is_some_and(|t| t.contains("add the line '{line}'"))
        })
        .unwrap_or_else(|| panic!("no edit subtask in {text}"));
    let checks = edit["evaluation"]["checks"].as_array().unwrap();
    assert!(checks.iter().any(|c| c["api"] == "check_file_contains"));
    let sets = edit["available_parameters"].as_array().unwrap();
    let trajectories = edit["trajectories"].as_array().unwrap();
    assert_eq!(sets.len(), trajectories.len());
    // The new file of the edit family takes the rules' second suffix.
    for set in sets {
        let set = set.as_object().unwrap();
        assert!(
            set.iter()
                .any(|(k, v)| k.starts_with("new_") && v.as_str().unwrap().contains("_reviewed.")),
            "{set:?}"
        );
    }
}
