//! `synth explore` and `synth verify` on the real desktop: the offline walker finds
//! Mousepad's Save As in its menus, demonstrates it on the sandbox's text files,
//! and verify replays every demonstration in a fresh desktop and checks the saved
//! files. Skipped (passing) when Xvfb or Mousepad are missing, except under CI.
//!
//! A lighter walk than a real run's, through data only: one input per file type
//! and Mousepad opening only text files (`.txt`), so the walk probes every menu
//! item once but tries each candidate on one file. The walk of the whole
//! catalogue is `synth --env x11 run` (see subtask_pool/README.md).

mod common;

fn available() -> bool {
    common::x11_available(&["mousepad", "xclip"])
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
    let app = ws.file("resources/x11/apps/mousepad.toml");
    let text = std::fs::read_to_string(&app).unwrap();
    let (head, _) = text.split_once("extensions =").unwrap();
    std::fs::write(&app, format!("{head}extensions = [\"txt\"]\n")).unwrap();
    let out = ws.ok(&["--env", "x11", "explore", "--apps", "Mousepad"]);
    assert!(out.contains("Mousepad"), "{out}");
    // The probe of the menus is cached for the next walk of the same program:
    // Save As is a candidate, what only edits in place is not.
    let cache = ws.file("generated/walk-cache/x11/mousepad.json");
    let probe: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    let candidates: Vec<&str> = probe["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["item"].as_str().unwrap())
        .collect();
    assert!(
        candidates.iter().any(|c| c.starts_with("Save As")),
        "{candidates:?}"
    );
    assert!(
        !candidates.iter().any(|c| c.starts_with("Duplicate")),
        "{candidates:?}"
    );
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
