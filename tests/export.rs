//! `synth export` end to end on a small hand-made dataset: two validated tasks over
//! the simulated desktop (a Sheets -> Writer hand-over, an L4 task; and a Writer
//! edit -> PDF export, an L2 task), a third validated task whose only trajectory
//! failed, and the four verified subtasks with their trajectories. Each format is
//! checked against its consumer's rules, against golden files
//! (`tests/golden/export/<case>/`, rewritten with `UPDATE_GOLDEN=1`), and for
//! determinism (two exports, same bytes).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::Workspace;
use serde_json::Value;
use synth::model::{
    ActionCall, Check, CheckCall, Dag, Evaluation, ParameterSet, Provenance, Subtask, SubtaskId,
    SubtaskStatus, SubtaskTrajectory, Task, TaskId, TaskNode, TaskTrajectory, TrajectoryAction,
};
use synth::store::Store;

fn click(text: &str) -> TrajectoryAction {
    TrajectoryAction {
        call: ActionCall::ClickInput {
            button: "left".into(),
            double: false,
        },
        rect: [0; 4],
        description: String::new(),
        thought: String::new(),
        effect: String::new(),
        control_text: text.into(),
        control_label: None,
    }
}

fn dclick(text: &str) -> TrajectoryAction {
    TrajectoryAction {
        call: ActionCall::ClickInput {
            button: "left".into(),
            double: true,
        },
        ..click(text)
    }
}

fn keys(control: &str, keys: &str) -> TrajectoryAction {
    TrajectoryAction {
        call: ActionCall::KeyboardInput { keys: keys.into() },
        ..click(control)
    }
}

fn thought(mut a: TrajectoryAction, t: &str) -> TrajectoryAction {
    a.thought = t.into();
    a
}

fn check(call: CheckCall) -> Check {
    Check {
        call,
        expect: true,
        message: None,
    }
}

fn params(pairs: &[(&str, &str)]) -> ParameterSet {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

struct Sub {
    id: &'static str,
    app: &'static str,
    category: &'static str,
    template: &'static str,
    params: ParameterSet,
    inputs: &'static [&'static str],
    outputs: &'static [&'static str],
    checks: Vec<Check>,
    actions: Vec<TrajectoryAction>,
}

fn subtask(s: &Sub) -> Subtask {
    let mut st = Subtask {
        id: SubtaskId(s.id.into()),
        instruction_template: s.template.into(),
        application: s.app.into(),
        category: Some(s.category.into()),
        os: "Linux".into(),
        available_parameters: vec![s.params.clone()],
        input_resources: s.inputs.iter().map(|x| x.to_string()).collect(),
        output_resources: s.outputs.iter().map(|x| x.to_string()).collect(),
        evaluation: Some(Evaluation {
            checks: s.checks.clone(),
        }),
        trajectories: vec![],
        provenance: Some(Provenance {
            backend: "hand-written".into(),
            ..Provenance::default()
        }),
    };
    st.trajectories.push(SubtaskTrajectory {
        trajectory_id: format!("{}-t0", s.id),
        instruction: st.instruction(0).unwrap(),
        observations: vec![],
        actions: s.actions.clone(),
        subtask_id: st.id.clone(),
        parameter_index: Some(0),
    });
    st
}

fn subs() -> Vec<Sub> {
    vec![
        Sub {
            id: "00000000-0000-5000-8000-00000000000a",
            app: "Sheets",
            category: "Office",
            template: "Open '{xlsx_path}' in Sheets and copy its table.",
            params: params(&[("xlsx_path", "/home/user/Documents/team_budget.xlsx")]),
            inputs: &["xlsx_path"],
            outputs: &["table_in_clipboard"],
            checks: vec![
                check(CheckCall::CheckWindowOpen {
                    title: "Sheets".into(),
                }),
                check(CheckCall::CheckMouseClicks {
                    text: "Copy Table".into(),
                }),
                check(CheckCall::CheckClipboardContains {
                    text: "Rent,1200".into(),
                }),
            ],
            actions: vec![
                thought(click("Start"), "Sheets is not open yet, so I open the start menu."),
                click("Sheets"),
                click("Open"),
                dclick("team_budget.xlsx"),
                click("Copy Table"),
            ],
        },
        Sub {
            id: "00000000-0000-5000-8000-00000000000b",
            app: "Writer",
            category: "Office",
            template: "Paste the table from the clipboard into a new Writer document and save it as '{docx_path}'.",
            params: params(&[("docx_path", "/home/user/Documents/budget_note.docx")]),
            inputs: &["table_in_clipboard"],
            outputs: &["docx_path"],
            checks: vec![
                check(CheckCall::CheckMouseClicks {
                    text: "Paste".into(),
                }),
                check(CheckCall::CheckFileContains {
                    file_path: "{docx_path}".into(),
                    text: "Rent,1200".into(),
                }),
            ],
            actions: vec![
                click("Start"),
                click("Writer"),
                click("New"),
                click("Paste"),
                click("Save As"),
                keys("File name", "budget_note{ENTER}"),
            ],
        },
        Sub {
            id: "00000000-0000-5000-8000-00000000000c",
            app: "Writer",
            category: "Office",
            template: "Open '{docx_path}' in Writer and add the sentence '{sentence}'.",
            params: params(&[
                ("docx_path", "/home/user/Documents/quarterly_report.docx"),
                ("sentence", "Profit doubled."),
            ]),
            inputs: &["docx_path"],
            outputs: &["docx_in_processing"],
            checks: vec![
                check(CheckCall::CheckWindowOpen {
                    title: "quarterly_report.docx".into(),
                }),
                check(CheckCall::CheckKeyboardTypes {
                    text: "{sentence}".into(),
                }),
            ],
            actions: vec![
                click("Start"),
                click("Writer"),
                click("Open"),
                click("quarterly_report.docx"),
                click("Open file"),
                click("Page"),
                keys("Page", "{ENTER}Profit doubled."),
            ],
        },
        Sub {
            id: "00000000-0000-5000-8000-00000000000d",
            app: "Writer",
            category: "Office",
            template: "Export the open document as the PDF '{pdf_path}'.",
            params: params(&[("pdf_path", "/home/user/Documents/q3.pdf")]),
            inputs: &["docx_in_processing"],
            outputs: &["pdf_path"],
            checks: vec![
                check(CheckCall::CheckFileExists {
                    file_path: "{pdf_path}".into(),
                }),
                check(CheckCall::CheckFileContains {
                    file_path: "{pdf_path}".into(),
                    text: "Profit doubled.".into(),
                }),
            ],
            actions: vec![
                click("Export PDF"),
                thought(
                    keys("PDF name", "q3.pdf{ENTER}"),
                    "I name the PDF and confirm.",
                ),
            ],
        },
    ]
}

fn task(
    id: &str,
    nodes: &[&Sub],
    edges: &[(usize, usize)],
    instruction: &str,
    intent: &str,
) -> Task {
    let mut dag = Dag::default();
    let mut map = BTreeMap::new();
    for (i, s) in nodes.iter().enumerate() {
        let n = format!("n{i}");
        dag.nodes.push(n.clone());
        dag.edges.insert(n.clone(), vec![]);
        map.insert(
            n,
            TaskNode {
                subtask_id: SubtaskId(s.id.into()),
                parameter_index: 0,
                application: s.app.into(),
                category: s.category.into(),
                instruction: subtask(s).instruction(0).unwrap(),
            },
        );
    }
    for (a, b) in edges {
        dag.edges
            .get_mut(&format!("n{a}"))
            .unwrap()
            .push(format!("n{b}"));
    }
    let order: Vec<String> = dag.nodes.clone();
    let low = map
        .values()
        .enumerate()
        .map(|(i, n)| format!("{}. {}", i + 1, n.instruction))
        .collect::<Vec<_>>()
        .join("\n");
    Task {
        task_id: Some(TaskId(id.into())),
        task_instruction: instruction.into(),
        low_level_instruction: Some(low),
        dag,
        task_intent: intent.into(),
        successful_topo: vec![order],
        nodes: map,
        topo_count: Some(1),
        topo_truncated: Some(false),
        cs_max: Some(0),
        complexity: None,
        capabilities: vec![],
        scenario: None,
        os_map_level: None,
        quality: None,
        composition: None,
        validation: vec![],
    }
}

fn trajectory(t: &Task, k: usize, nodes: &[&Sub]) -> TaskTrajectory {
    TaskTrajectory {
        trajectory_id: format!("{}({k})", t.task_id.as_ref().unwrap()),
        task_id: t.task_id.clone().unwrap(),
        topological_order: t.successful_topo[0].clone(),
        instruction: t.task_instruction.clone(),
        intent: t.task_intent.clone(),
        observations: vec![],
        actions: nodes.iter().flat_map(|s| s.actions.clone()).collect(),
    }
}

/// A workspace whose store holds the small dataset.
fn dataset() -> Workspace {
    let ws = Workspace::new();
    let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
    let subs = subs();
    for s in &subs {
        store
            .put_subtask(&subtask(s), SubtaskStatus::Verified, None, None)
            .unwrap();
    }
    let a = task(
        "task-a",
        &[&subs[0], &subs[1]],
        &[(0, 1)],
        "Copy the table of team_budget.xlsx in Sheets and paste it into a new Writer document saved as budget_note.docx.",
        "Move the budget table into a Writer note",
    );
    let b = task(
        "task-b",
        &[&subs[2], &subs[3]],
        &[(0, 1)],
        "Add 'Profit doubled.' to quarterly_report.docx in Writer and export it as q3.pdf.",
        "Update the quarterly report and share it as PDF",
    );
    let c = task(
        "task-c",
        &[&subs[3]],
        &[],
        "Export the open document as q3.pdf.",
        "Export a PDF",
    );
    store
        .add_dataset(
            1,
            "h1",
            &serde_json::json!({}),
            "v1",
            3,
            &[a.clone(), b.clone(), c.clone()],
            None,
            None,
        )
        .unwrap();
    for id in ["task-a", "task-b", "task-c"] {
        assert!(store.set_task_status(id, "validated", None).unwrap());
    }
    store
        .put_task_trajectory(&trajectory(&a, 0, &[&subs[0], &subs[1]]), "ok", None)
        .unwrap();
    store
        .put_task_trajectory(&trajectory(&b, 0, &[&subs[2], &subs[3]]), "ok", None)
        .unwrap();
    store
        .put_task_trajectory(&trajectory(&c, 0, &[&subs[3]]), "failed", Some("n0"))
        .unwrap();
    ws
}

fn export(ws: &Workspace, out: &str, args: &[&str]) -> PathBuf {
    let mut all = vec!["export", "--out", out];
    all.extend_from_slice(args);
    let stdout = ws.ok(&all);
    assert!(stdout.contains("exported"), "{stdout}");
    ws.file(out)
}

/// Every file under `dir`, relative path -> bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Compares every non-image file of an export with the golden copy.
fn golden(case: &str, dir: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/export")
        .join(case);
    // PNG bytes belong to the renderer, not to the export: images and the byte
    // count of the manifest are left out of the comparison.
    let files: BTreeMap<String, Vec<u8>> = tree(dir)
        .into_iter()
        .filter(|(k, _)| !k.ends_with(".png"))
        .map(|(k, v)| {
            if k == "export.json" {
                let mut m: Value = serde_json::from_slice(&v).unwrap();
                m.as_object_mut().unwrap().remove("bytes");
                let mut text = serde_json::to_string_pretty(&m).unwrap();
                text.push('\n');
                (k, text.into_bytes())
            } else {
                (k, v)
            }
        })
        .collect();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let _ = std::fs::remove_dir_all(&root);
        for (rel, bytes) in &files {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        }
        return;
    }
    let want = tree(&root);
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "files of {case} differ from {}",
        root.display()
    );
    for (rel, bytes) in &files {
        assert!(
            want[rel] == *bytes,
            "{case}/{rel} differs from the golden file (UPDATE_GOLDEN=1 rewrites it):\n{}",
            String::from_utf8_lossy(bytes)
        );
    }
}

fn is_png(path: &Path) -> bool {
    std::fs::read(path)
        .map(|b| b.starts_with(b"\x89PNG\r\n\x1a\n"))
        .unwrap_or(false)
}

#[test]
fn every_format_matches_golden_files_and_is_deterministic() {
    let ws = dataset();
    for (case, args) in [
        ("omnibench", vec!["--format", "omnibench"]),
        ("sharegpt", vec!["--format", "sharegpt"]),
        (
            "sharegpt-intent-pyautogui",
            vec!["--format", "sharegpt", "--intent", "--actions", "pyautogui"],
        ),
        (
            "openai-computer13",
            vec!["--format", "openai", "--actions", "computer13"],
        ),
        (
            "qwen-steps",
            vec!["--format", "qwen", "--instruction", "steps"],
        ),
        ("osworld", vec!["--format", "osworld"]),
        ("grounding", vec!["--format", "grounding"]),
        (
            "idm-pyautogui",
            vec!["--format", "idm", "--actions", "pyautogui"],
        ),
        ("critic", vec!["--format", "critic"]),
    ] {
        let a = export(&ws, &format!("out/{case}-a"), &args);
        let b = export(&ws, &format!("out/{case}-b"), &args);
        let (ta, tb) = (tree(&a), tree(&b));
        assert_eq!(
            ta.keys().collect::<Vec<_>>(),
            tb.keys().collect::<Vec<_>>(),
            "{case}"
        );
        for (k, v) in &ta {
            assert!(tb[k] == *v, "{case}: {k} differs between two exports");
        }
        golden(case, &a);
        if case == "omnibench" {
            // A second export into the same folder replaces the first.
            export(&ws, &format!("out/{case}-a"), &args);
            assert_eq!(tree(&a).len(), ta.len(), "{case}");
        }
    }
}

#[test]
fn manifest_counts_and_default_folder() {
    let ws = dataset();
    let stdout = ws.ok(&["export", "--format", "grounding"]);
    assert!(stdout.contains("steps/s"), "{stdout}");
    let dir = ws.file("generated/export/grounding");
    let m = json(&dir.join("export.json"));
    // task-a: 11 actions, task-b: 9 actions; n + 1 images each.
    assert_eq!(m["steps"], 20);
    assert_eq!(m["images"], 22);
    assert_eq!(m["tasks"], 2);
    assert_eq!(m["trajectories"], 2);
    let skipped = m["skipped"].as_array().unwrap();
    assert!(
        skipped
            .iter()
            .any(|s| s.as_str().unwrap().contains("task-c")),
        "{skipped:?}"
    );
    for k in 0..=11 {
        assert!(
            is_png(&dir.join(format!("images/tasks/task-a_0/{k}.png"))),
            "{k}"
        );
    }
}

#[test]
fn sharegpt_follows_llama_factory_rules() {
    let ws = dataset();
    let dir = export(&ws, "out/sg", &["--format", "sharegpt", "--intent"]);
    let data = json(&dir.join("data.json"));
    let records = data.as_array().unwrap();
    // One example per step plus a closing one per trajectory.
    assert_eq!(records.len(), 11 + 1 + 9 + 1);
    for r in records {
        let images = r["images"].as_array().unwrap();
        let messages = r["messages"].as_array().unwrap();
        let tokens: usize = messages
            .iter()
            .map(|m| m["content"].as_str().unwrap().matches("<image>").count())
            .sum();
        assert_eq!(tokens, images.len(), "{r}");
        for (i, m) in messages.iter().enumerate() {
            let want = if i % 2 == 0 { "user" } else { "assistant" };
            assert_eq!(m["role"], want, "{r}");
        }
        assert_eq!(messages.len() % 2, 0);
        for img in images {
            assert!(is_png(&dir.join(img.as_str().unwrap())), "{img}");
        }
        assert!(messages[0]["content"]
            .as_str()
            .unwrap()
            .contains("Intent: "));
    }
    let info = json(&dir.join("dataset_info.json"));
    let entry = &info["synth_sharegpt"];
    assert_eq!(entry["file_name"], "data.json");
    assert_eq!(entry["formatting"], "sharegpt");
    assert_eq!(entry["columns"]["messages"], "messages");
    assert_eq!(entry["columns"]["images"], "images");
    assert_eq!(entry["tags"]["assistant_tag"], "assistant");
    // The last example of a trajectory finishes it.
    let last = &records[11]["messages"][1]["content"];
    let answer: Value = serde_json::from_str(last.as_str().unwrap()).unwrap();
    assert_eq!(answer["Status"], "FINISH");
}

#[test]
fn openai_lines_have_images_only_in_user_messages() {
    let ws = dataset();
    for (mode, prefix) in [
        ("relative", "images/"),
        ("data-url", "data:image/png;base64,"),
    ] {
        let dir = export(
            &ws,
            &format!("out/oa-{mode}"),
            &[
                "--format",
                "openai",
                "--image-paths",
                mode,
                "--actions",
                "pyautogui",
            ],
        );
        let lines = jsonl(&dir.join("data.jsonl"));
        assert_eq!(lines.len(), 22);
        for line in &lines {
            assert_eq!(line.as_object().unwrap().len(), 1, "only messages: {line}");
            let mut images = 0;
            for m in line["messages"].as_array().unwrap() {
                match &m["content"] {
                    Value::String(s) => assert!(!s.starts_with("data:")),
                    Value::Array(parts) => {
                        assert_eq!(m["role"], "user", "parts outside a user message");
                        for p in parts {
                            if p["type"] == "image_url" {
                                images += 1;
                                let url = p["image_url"]["url"]
                                    .as_str()
                                    .expect("image_url is an object with url");
                                assert!(url.starts_with(prefix), "{url}");
                            } else {
                                assert_eq!(p["type"], "text");
                                assert!(p["text"].is_string());
                            }
                        }
                    }
                    other => panic!("content {other}"),
                }
            }
            assert_eq!(images, 1);
        }
        let first = lines[0]["messages"][2]["content"].as_str().unwrap();
        assert!(
            first.starts_with("Thought: Sheets is not open yet"),
            "{first}"
        );
        assert!(first.contains("Action: pyautogui.click("), "{first}");
    }
}

#[test]
fn osworld_lists_match_and_setup_steps_are_known() {
    let ws = dataset();
    let dir = export(&ws, "out/osw", &["--format", "osworld"]);
    let all = json(&dir.join("test_all.json"));
    let ids = all["synth"].as_array().unwrap();
    assert_eq!(ids.len(), 2);
    for id in ids {
        let t = json(&dir.join(format!("examples/synth/{}.json", id.as_str().unwrap())));
        let ev = &t["evaluator"];
        let n = ev["func"].as_array().unwrap().len();
        assert!(n > 0);
        for key in ["result", "expected", "options"] {
            assert_eq!(ev[key].as_array().unwrap().len(), n, "{key} of {id}");
        }
        assert!(["and", "or"].contains(&ev["conj"].as_str().unwrap()));
        for step in t["config"].as_array().unwrap() {
            let ty = step["type"].as_str().unwrap();
            assert!(synth::export::osworld::SETUP_TYPES.contains(&ty), "{ty}");
            if ty == "upload_file" {
                for f in step["parameters"]["files"].as_array().unwrap() {
                    assert!(dir.join(f["local_path"].as_str().unwrap()).is_file());
                    assert!(f["path"].as_str().unwrap().starts_with("/home/user/"));
                }
            }
        }
        // Input-event checks are listed as unmapped, with a reason.
        for u in t["synth"]["unmapped_checks"].as_array().unwrap() {
            assert!(u["reason"].as_str().unwrap().len() > 10);
        }
    }
    let a = json(&dir.join("examples/synth/task-a.json"));
    assert_eq!(a["os_map_level"], "L4");
    assert_eq!(
        a["config"][1]["parameters"]["files"][0]["path"],
        "/home/user/Documents/team_budget.xlsx"
    );
}

#[test]
fn levels_intent_and_critic_prefixes() {
    let ws = dataset();
    let dir = export(&ws, "out/ob", &["--format", "omnibench"]);
    let tasks = json(&dir.join("tasks.json"));
    let level = |id: &str| {
        tasks
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["task_id"] == id)
            .unwrap()["os_map_level"]
            .clone()
    };
    assert_eq!(level("task-a"), "L4");
    assert_eq!(level("task-b"), "L2");
    let trajs = json(&dir.join("task_trajectories.json"));
    for t in trajs.as_array().unwrap() {
        let n = t["actions"].as_array().unwrap().len();
        assert_eq!(t["observations"].as_array().unwrap().len(), n + 1);
        for a in t["actions"].as_array().unwrap() {
            let r = a["rect"].as_array().unwrap();
            assert!(r[2].as_i64() > r[0].as_i64(), "replayed box: {a}");
        }
    }
    // The Sheets subtask replays from the fresh desktop; the Writer paste needs a
    // table on the clipboard and does not.
    let subs = json(&dir.join("subtask_trajectories.json"));
    let rendered: Vec<bool> = subs
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["rendered"].as_bool().unwrap())
        .collect();
    assert_eq!(rendered, vec![true, false, true, false]);

    let steps = export(
        &ws,
        "out/ob-steps",
        &["--format", "omnibench", "--instruction", "steps"],
    );
    for t in json(&steps.join("tasks.json")).as_array().unwrap() {
        assert_eq!(t["os_map_level"], "L1");
    }

    let critic = export(&ws, "out/cr", &["--format", "critic", "--intent"]);
    let lines = jsonl(&critic.join("critic.jsonl"));
    let positives: Vec<&Value> = lines.iter().filter(|l| l["success"] == true).collect();
    let negatives: Vec<&Value> = lines.iter().filter(|l| l["success"] == false).collect();
    assert_eq!(positives.len(), 2);
    assert_eq!(negatives.len(), 2);
    for neg in negatives {
        let pos = positives
            .iter()
            .find(|p| p["id"] == neg["prefix_of"])
            .expect("a negative names its positive");
        let (pn, nn) = (
            pos["trajectory"].as_array().unwrap(),
            neg["trajectory"].as_array().unwrap(),
        );
        assert!(!nn.is_empty() && nn.len() < pn.len(), "strict prefix");
        assert_eq!(&pn[..nn.len()], nn.as_slice());
        assert!(neg["intent"].is_string());
    }
}

#[test]
fn a_foreign_output_folder_is_refused() {
    let ws = dataset();
    std::fs::create_dir_all(ws.file("mine")).unwrap();
    std::fs::write(ws.file("mine/notes.txt"), "keep me").unwrap();
    let out = ws.synth(&["export", "--format", "idm", "--out", "mine"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not empty"), "{err}");
    assert!(ws.file("mine/notes.txt").is_file());
}

#[test]
fn an_interrupted_export_does_not_block_the_next() {
    let ws = dataset();
    let clean = export(&ws, "clean", &["--format", "idm"]);
    // What killed exports leave: the staging folder of this synth beside the target,
    // and a target without manifest from a synth that wrote in place.
    let target = ws.file("generated/export/idm");
    let staging = ws.file("generated/export/.idm.partial");
    std::fs::create_dir_all(target.join("images/tasks")).unwrap();
    std::fs::write(target.join("idm.jsonl"), "{\"cut").unwrap();
    std::fs::create_dir_all(staging.join("images")).unwrap();
    std::fs::write(staging.join("idm.jsonl"), "{\"cut").unwrap();

    let stdout = ws.ok(&["export", "--format", "idm"]);
    assert!(stdout.contains("exported"), "{stdout}");
    assert_eq!(tree(&target), tree(&clean));
    let left: Vec<String> = std::fs::read_dir(ws.file("generated/export"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["idm"], "no staging or retired folder remains");

    // A second export replaces the first whole, to the same bytes.
    ws.ok(&["export", "--format", "idm"]);
    assert_eq!(tree(&target), tree(&clean));
}

/// Builds a larger workspace for measuring export throughput (run by hand:
/// `SYNTH_EXPORT_WS=/tmp/ws SYNTH_EXPORT_COPIES=100 cargo test --test export -- --ignored`,
/// then `synth --workspace /tmp/ws export --format sharegpt`). Each copy adds the
/// two exportable tasks under new ids.
#[test]
#[ignore]
fn build_throughput_workspace() {
    let Some(dir) = std::env::var_os("SYNTH_EXPORT_WS") else {
        return;
    };
    let copies: usize = std::env::var("SYNTH_EXPORT_COPIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let ws = dataset();
    let dir = PathBuf::from(dir);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for sub in ["resources", "prompts"] {
        let status = std::process::Command::new("cp")
            .arg("-r")
            .arg(ws.file(sub))
            .arg(&dir)
            .status()
            .unwrap();
        assert!(status.success());
    }
    let store = Store::open(&dir.join("generated/synth.sqlite")).unwrap();
    let subs = subs();
    for s in &subs {
        store
            .put_subtask(&subtask(s), SubtaskStatus::Verified, None, None)
            .unwrap();
    }
    let mut tasks = Vec::new();
    let mut trajs = Vec::new();
    for i in 0..copies {
        let a = task(
            &format!("a{i:04}"),
            &[&subs[0], &subs[1]],
            &[(0, 1)],
            "Copy the budget table into a Writer note.",
            "Move the budget table",
        );
        let b = task(
            &format!("b{i:04}"),
            &[&subs[2], &subs[3]],
            &[(0, 1)],
            "Update the report and export it as PDF.",
            "Share the report",
        );
        trajs.push(trajectory(&a, 0, &[&subs[0], &subs[1]]));
        trajs.push(trajectory(&b, 0, &[&subs[2], &subs[3]]));
        tasks.push(a);
        tasks.push(b);
    }
    store
        .add_dataset(
            1,
            "bench",
            &serde_json::json!({}),
            "bench",
            tasks.len(),
            &tasks,
            None,
            None,
        )
        .unwrap();
    for t in &tasks {
        store
            .set_task_status(&t.task_id.as_ref().unwrap().0, "validated", None)
            .unwrap();
    }
    for t in &trajs {
        store.put_task_trajectory(t, "ok", None).unwrap();
    }
}
