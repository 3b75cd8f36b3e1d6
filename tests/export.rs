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
use synth::store::{Store, TaskStatus, TrajectoryStatus};

fn click(text: &str) -> TrajectoryAction {
    TrajectoryAction::click(text, false)
}

fn dclick(text: &str) -> TrajectoryAction {
    TrajectoryAction::click(text, true)
}

fn keys(control: &str, keys: &str) -> TrajectoryAction {
    TrajectoryAction {
        call: ActionCall::KeyboardInput { keys: keys.into() },
        ..click(control)
    }
}

/// Scrolls List `list` down by `dist` wheel steps (three rows each): the
/// desktop's Documents folder is longer than an Open dialog shows.
fn wheel(list: &str, dist: i32) -> TrajectoryAction {
    TrajectoryAction {
        call: ActionCall::WheelMouseInput { wheel_dist: dist },
        ..click(list)
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
                    text: "Venue hire,1200".into(),
                }),
            ],
            actions: vec![
                thought(click("Start"), "Sheets is not open yet, so I open the start menu."),
                click("Sheets"),
                click("Open"),
                wheel("Files", 10),
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
                    text: "Venue hire,1200".into(),
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
                wheel("Files", 2),
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
        purpose: None,
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
        assert!(store
            .set_task_status(id, TaskStatus::Validated, None)
            .unwrap());
    }
    store
        .put_task_trajectory(
            &trajectory(&a, 0, &[&subs[0], &subs[1]]),
            TrajectoryStatus::Ok,
            None,
        )
        .unwrap();
    store
        .put_task_trajectory(
            &trajectory(&b, 0, &[&subs[2], &subs[3]]),
            TrajectoryStatus::Ok,
            None,
        )
        .unwrap();
    store
        .put_task_trajectory(
            &trajectory(&c, 0, &[&subs[3]]),
            TrajectoryStatus::Failed,
            Some("n0"),
        )
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

/// [`tree`] with the output folder's absolute path written `<OUT>` in every text
/// file (OSWorld's upload paths are absolute), so that two exports into two folders
/// compare, and compare with the golden files.
fn normalized_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let abs = std::path::absolute(dir).unwrap();
    let abs = abs.to_string_lossy().into_owned();
    tree(dir)
        .into_iter()
        .map(|(k, v)| match String::from_utf8(v) {
            Ok(text) if !k.ends_with(".png") => (k, text.replace(&abs, "<OUT>").into_bytes()),
            Ok(text) => (k, text.into_bytes()),
            Err(e) => (k, e.into_bytes()),
        })
        .collect()
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
    let files: BTreeMap<String, Vec<u8>> = normalized_tree(dir)
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
            vec![
                "--format",
                "openai",
                "--actions",
                "computer13",
                "--image-base-url",
                "https://data.example.org/synth/images/",
            ],
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
        let (ta, tb) = (normalized_tree(&a), normalized_tree(&b));
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
    // task-a: 12 actions, task-b: 10 actions; n + 1 images each.
    assert_eq!(m["steps"], 22);
    assert_eq!(m["images"], 24);
    assert_eq!(m["tasks"], 2);
    assert_eq!(m["trajectories"], 2);
    let skipped = m["skipped"].as_array().unwrap();
    assert!(
        skipped
            .iter()
            .any(|s| s.as_str().unwrap().contains("task-c")),
        "{skipped:?}"
    );
    for k in 0..=12 {
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
    assert_eq!(records.len(), 12 + 1 + 10 + 1);
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
    let last = &records[12]["messages"][1]["content"];
    let answer: Value = serde_json::from_str(last.as_str().unwrap()).unwrap();
    assert_eq!(answer["Status"], "FINISH");
}

/// OpenAI's vision fine-tuning: each line only `messages`; images only in user
/// messages, as `image_url` objects whose `url` is an http(s) URL or a base64 data
/// URL of a PNG, JPEG or WEBP image of at most 10 MB, at most 64 an example.
fn assert_openai_rules(lines: &[Value], url_ok: impl Fn(&str) -> bool) {
    use base64::Engine as _;
    for line in lines {
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
                            assert!(url_ok(url), "{url}");
                            if let Some(b64) = url.strip_prefix("data:image/png;base64,") {
                                let png = base64::engine::general_purpose::STANDARD
                                    .decode(b64)
                                    .unwrap();
                                assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
                                assert!(png.len() <= 10 * 1024 * 1024);
                            } else {
                                assert!(url.starts_with("https://") || url.starts_with("http://"));
                            }
                        } else {
                            assert_eq!(p["type"], "text");
                            assert!(p["text"].is_string());
                        }
                    }
                }
                other => panic!("content {other}"),
            }
        }
        assert!((1..=64).contains(&images));
        assert!(line["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "assistant"));
    }
}

#[test]
fn openai_is_valid_by_default_with_data_urls_and_no_image_folder() {
    let ws = dataset();
    let dir = export(
        &ws,
        "out/oa",
        &["--format", "openai", "--actions", "pyautogui"],
    );
    let lines = jsonl(&dir.join("data.jsonl"));
    assert_eq!(lines.len(), 24);
    assert_openai_rules(&lines, |u| u.starts_with("data:image/png;base64,"));
    assert!(!dir.join("images").exists(), "an unused images/ folder");
    let m = json(&dir.join("export.json"));
    assert_eq!(m["image_paths"], "data-url");
    assert_eq!(m["images"], 24);
    let first = lines[0]["messages"][2]["content"].as_str().unwrap();
    assert!(
        first.starts_with("Thought: Sheets is not open yet"),
        "{first}"
    );
    assert!(first.contains("Action: pyautogui.click("), "{first}");
}

#[test]
fn openai_hosted_images_keep_the_folder_they_name() {
    let ws = dataset();
    let base = "https://data.example.org/run1";
    let dir = export(
        &ws,
        "out/oa-url",
        &["--format", "openai", "--image-base-url", base],
    );
    let lines = jsonl(&dir.join("data.jsonl"));
    assert_openai_rules(&lines, |u| u.starts_with(base));
    for line in &lines {
        let url = line["messages"][1]["content"][1]["image_url"]["url"]
            .as_str()
            .unwrap();
        let rel = url.strip_prefix(&format!("{base}/")).unwrap();
        assert!(is_png(&dir.join("images").join(rel)), "{url}");
    }
}

#[test]
fn openai_refuses_paths_it_cannot_load() {
    let ws = dataset();
    for args in [
        vec!["--image-paths", "relative"],
        vec!["--image-paths", "absolute"],
        vec!["--image-base-url", "file:///tmp/x"],
    ] {
        let mut all = vec!["export", "--format", "openai", "--out", "out/oa-bad"];
        all.extend(args.iter().copied());
        let out = ws.synth(&all);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("openai"), "{err}");
    }
    // Data URLs and base URLs are for openai only; osworld ships no images.
    for (format, args) in [
        ("sharegpt", vec!["--image-paths", "data-url"]),
        ("idm", vec!["--image-base-url", "https://x.org"]),
        ("osworld", vec!["--image-paths", "absolute"]),
    ] {
        let mut all = vec!["export", "--format", format, "--out", "out/bad"];
        all.extend(args.iter().copied());
        assert!(!ws.synth(&all).status.success(), "{format} {args:?}");
    }
}

/// Every string of a JSON value that names a PNG file.
fn png_refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) if s.ends_with(".png") => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| png_refs(x, out)),
        Value::Object(o) => o.values().for_each(|x| png_refs(x, out)),
        _ => {}
    }
}

#[test]
fn absolute_image_paths_load_from_any_directory() {
    let ws = dataset();
    // Every format that ships image files, with the file(s) its consumer reads.
    for (format, files) in [
        ("sharegpt", &["data.json"][..]),
        ("qwen", &["data.json"]),
        ("grounding", &["grounding.jsonl"]),
        ("idm", &["idm.jsonl"]),
        ("critic", &["critic.jsonl"]),
        (
            "omnibench",
            &["task_trajectories.json", "subtask_trajectories.json"],
        ),
    ] {
        let dir = export(
            &ws,
            &format!("out/abs-{format}"),
            &["--format", format, "--image-paths", "absolute"],
        );
        let mut records = Vec::new();
        for f in files {
            let path = dir.join(f);
            if f.ends_with(".jsonl") {
                records.extend(jsonl(&path));
            } else {
                records.push(json(&path));
            }
        }
        let mut refs = Vec::new();
        records.iter().for_each(|r| png_refs(r, &mut refs));
        assert!(!refs.is_empty(), "{format}: no image references");
        for img in refs {
            // Absolute, so that `os.path.join(anything, img)` (LLaMA-Factory's
            // media_dir, ms-swift's ROOT_IMAGE_DIR, AgentStudio's
            // `<folder of the jsonl>/images`) is the image itself.
            assert!(Path::new(img).is_absolute(), "{format}: {img}");
            assert!(is_png(Path::new(img)), "{format}: {img}");
            assert!(img.starts_with(dir.to_str().unwrap()), "{format}: {img}");
        }
        assert_eq!(json(&dir.join("export.json"))["image_paths"], "absolute");
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
                // OSWorld checks local paths from its own working directory.
                for f in step["parameters"]["files"].as_array().unwrap() {
                    let local = Path::new(f["local_path"].as_str().unwrap());
                    assert!(local.is_absolute() && local.is_file(), "{local:?}");
                    assert!(local.starts_with(std::path::absolute(&dir).unwrap()));
                    assert!(f["path"].as_str().unwrap().starts_with("/home/user/"));
                }
            }
        }
        // related_apps are OSWorld's ids; a task on simulated applications says
        // it needs synth's desktop.
        for app in t["related_apps"].as_array().unwrap() {
            assert!(
                synth::export::osworld::OSWORLD_APP_IDS.contains(&app.as_str().unwrap()),
                "{app}"
            );
        }
        assert_eq!(t["synth"]["desktop"], "simulated");
        let requires = t["synth"]["requires"].as_str().unwrap();
        assert!(requires.contains("synth's simulated desktop"), "{requires}");
        // Input-event checks are listed as unmapped, with a reason.
        for u in t["synth"]["unmapped_checks"].as_array().unwrap() {
            assert!(u["reason"].as_str().unwrap().len() > 10);
        }
    }
    let a = json(&dir.join("examples/synth/task-a.json"));
    assert_eq!(a["os_map_level"], "L4");
    assert_eq!(
        a["related_apps"],
        serde_json::json!(["libreoffice_calc", "libreoffice_writer"])
    );
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
    // Subtask trajectories replay from their start desktops: the Writer paste (b)
    // with a table prepared on the clipboard, n + 1 screenshots each. The
    // hand-made PDF export (d) was written to follow c inside task-b and clicks
    // Export PDF at once, while its start desktop has the document minimised: it
    // is left without screenshots and named in the manifest.
    let subs = json(&dir.join("subtask_trajectories.json"));
    let skipped = json(&dir.join("export.json"))["skipped"].clone();
    for s in subs.as_array().unwrap() {
        let id = s["trajectory_id"].as_str().unwrap();
        if id.ends_with("0d-t0") {
            assert_eq!(s["rendered"], false);
            assert!(skipped.as_array().unwrap().iter().any(|m| m
                .as_str()
                .unwrap()
                .contains(&format!("subtask trajectory {id}: no screenshots"))));
            continue;
        }
        assert_eq!(s["rendered"], true, "{}", s["trajectory_id"]);
        let n = s["actions"].as_array().unwrap().len();
        let obs = s["observations"].as_array().unwrap();
        assert_eq!(obs.len(), n + 1, "{}", s["trajectory_id"]);
        for o in obs {
            assert!(is_png(&dir.join(o.as_str().unwrap())), "{o}");
        }
    }
    // C.4 and C.5 name nodes by subtask id.
    let ids: Vec<String> = json(&dir.join("subtasks.json"))
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    for t in tasks.as_array().unwrap() {
        let nodes = t["dag"]["nodes"].as_array().unwrap();
        for n in nodes {
            let n = n.as_str().unwrap();
            assert!(ids.iter().any(|id| id == n), "node {n} is a subtask id");
            assert_eq!(t["nodes"][n]["subtask_id"], n);
        }
        for (a, succ) in t["dag"]["edges"].as_object().unwrap() {
            assert!(nodes.iter().any(|n| n == a.as_str()));
            for b in succ.as_array().unwrap() {
                assert!(nodes.contains(b));
            }
        }
        for order in t["successful_topo"].as_array().unwrap() {
            assert_eq!(order.as_array().unwrap().len(), nodes.len());
            assert!(order.as_array().unwrap().iter().all(|n| nodes.contains(n)));
        }
    }
    for t in trajs.as_array().unwrap() {
        let task = tasks
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["task_id"] == t["task_id"])
            .unwrap();
        for n in t["topological_order"].as_array().unwrap() {
            assert!(task["dag"]["nodes"].as_array().unwrap().contains(n), "{n}");
        }
    }

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
    let positives: Vec<&Value> = lines.iter().filter(|l| l["is_success"] == true).collect();
    let negatives: Vec<&Value> = lines.iter().filter(|l| l["is_success"] == false).collect();
    assert_eq!(positives.len(), 2);
    assert_eq!(negatives.len(), 2);
    for neg in negatives {
        let pos = positives
            .iter()
            .find(|p| p["annotation_id"] == neg["metadata"]["prefix_of"])
            .expect("a negative names its positive");
        let (pn, nn) = (
            pos["actions"].as_array().unwrap(),
            neg["actions"].as_array().unwrap(),
        );
        assert!(!nn.is_empty() && nn.len() < pn.len(), "strict prefix");
        assert_eq!(&pn[..nn.len()], nn.as_slice());
        assert_eq!(neg["metadata"]["prefix_len"], nn.len());
        assert!(neg["metadata"]["intent"].is_string());
    }
}

/// AgentStudio's loaders open `<folder of the jsonl>/images/<path>`.
fn assert_agent_studio_image(jsonl_dir: &Path, path: &Value) {
    let p = path.as_str().unwrap();
    assert!(
        !p.starts_with("images/"),
        "{p} would resolve to images/images/"
    );
    assert!(is_png(&jsonl_dir.join("images").join(p)), "{p}");
}

fn field_names(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

/// An AgentStudio `Action` (pydantic, `agent_studio/utils/types.py`): `action_id`
/// str, `obs_before` / `obs_after` str, `operation` str, `bbox` object or null,
/// `metadata` an object of str, number, list, object or null values.
fn assert_agent_studio_action(dir: &Path, a: &Value, action_space: &Value) {
    assert!(a["action_id"].is_string(), "{a}");
    assert_agent_studio_image(dir, &a["obs_before"]);
    assert_agent_studio_image(dir, &a["obs_after"]);
    assert!(action_space.as_array().unwrap().contains(&a["operation"]));
    match &a["bbox"] {
        Value::Null => {}
        Value::Object(b) => {
            let mut k: Vec<&str> = b.keys().map(String::as_str).collect();
            k.sort();
            assert_eq!(k, ["height", "width", "x", "y"], "{a}");
            assert!(b["width"].as_i64().unwrap() > 0 && b["height"].as_i64().unwrap() > 0);
        }
        other => panic!("bbox {other}"),
    }
    let m = a["metadata"].as_object().unwrap();
    assert!(m["repr"].is_string());
    assert!(m.values().all(|v| !v.is_boolean()), "{a}");
}

#[test]
fn grounding_rows_are_what_gui_grounding_eval_reads() {
    let ws = dataset();
    let dir = export(&ws, "out/gr", &["--format", "grounding"]);
    let rows = jsonl(&dir.join("grounding.jsonl"));
    assert!(!rows.is_empty());
    for r in &rows {
        // GUIGroundingEval reads image, instruction, bbox (left, top, right,
        // bottom), resolution (width, height), source and platform.
        assert_agent_studio_image(&dir, &r["image"]);
        assert!(r["instruction"].is_string());
        let b: Vec<i64> = r["bbox"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        assert!(b.len() == 4 && b[0] < b[2] && b[1] < b[3], "{r}");
        assert_eq!(r["resolution"], serde_json::json!([1280, 800]));
        assert_eq!(r["source"], "synth");
        assert_eq!(r["platform"], "desktop");
    }
}

#[test]
fn idm_rows_are_agent_studio_inverse_actions() {
    let ws = dataset();
    let dir = export(&ws, "out/idm", &["--format", "idm"]);
    let rows = jsonl(&dir.join("idm.jsonl"));
    assert_eq!(rows.len(), 22);
    for r in &rows {
        let mut k = field_names(r);
        k.sort();
        assert_eq!(
            k,
            [
                "action_id",
                "action_space",
                "bbox",
                "instruction",
                "metadata",
                "obs_after",
                "obs_before",
                "operation",
                "platform",
                "source"
            ]
        );
        assert!(r["action_space"]
            .as_array()
            .unwrap()
            .iter()
            .all(Value::is_string));
        assert_agent_studio_action(&dir, r, &r["action_space"]);
        assert!(r["instruction"].is_string());
        assert_eq!(r["source"], "synth");
        assert_eq!(r["platform"], "desktop");
    }
    let ops: std::collections::BTreeSet<&str> = rows
        .iter()
        .map(|r| r["operation"].as_str().unwrap())
        .collect();
    assert!(
        ops.contains("MOUSE_CLICK") && ops.contains("KEY_TYPE"),
        "{ops:?}"
    );
}

#[test]
fn critic_rows_are_agent_studio_episodes() {
    let ws = dataset();
    let dir = export(&ws, "out/crit", &["--format", "critic"]);
    for r in jsonl(&dir.join("critic.jsonl")) {
        let mut k = field_names(&r);
        k.sort();
        assert_eq!(
            k,
            [
                "action_space",
                "actions",
                "annotation_id",
                "instruction",
                "is_success",
                "metadata",
                "platform",
                "source"
            ]
        );
        assert!(r["is_success"].is_boolean());
        assert!(r["annotation_id"].is_string());
        // Episode.metadata: str, int, float or object values only.
        for v in r["metadata"].as_object().unwrap().values() {
            assert!(v.is_string() || v.is_number() || v.is_object(), "{v}");
        }
        let actions = r["actions"].as_array().unwrap();
        assert!(!actions.is_empty());
        for a in actions {
            assert_agent_studio_action(&dir, a, &r["action_space"]);
        }
        // One screen after another: each step's after is the next step's before.
        for w in actions.windows(2) {
            assert_eq!(w[0]["obs_after"], w[1]["obs_before"]);
        }
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
            .set_task_status(&t.task_id.as_ref().unwrap().0, TaskStatus::Validated, None)
            .unwrap();
    }
    for t in &trajs {
        store
            .put_task_trajectory(t, TrajectoryStatus::Ok, None)
            .unwrap();
    }
}

/// A task made on another desktop (a real application's node) is left out with
/// the reason, instead of replaying on the simulated desktop to fail at step 0.
#[test]
fn a_task_of_another_desktop_is_skipped_naming_its_application() {
    let ws = dataset();
    let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
    let mut real = subs().remove(3);
    real.id = "00000000-0000-5000-8000-0000000000ee";
    real.app = "Mousepad";
    store
        .put_subtask(&subtask(&real), SubtaskStatus::Verified, None, None)
        .unwrap();
    let d = task("task-d", &[&real], &[], "Save the note.", "Keep a note");
    store
        .add_dataset(
            2,
            "h2",
            &serde_json::json!({}),
            "v2",
            1,
            std::slice::from_ref(&d),
            None,
            None,
        )
        .unwrap();
    assert!(store
        .set_task_status("task-d", TaskStatus::Validated, None)
        .unwrap());
    store
        .put_task_trajectory(&trajectory(&d, 0, &[&real]), TrajectoryStatus::Ok, None)
        .unwrap();
    drop(store);
    let dir = export(&ws, "out-d", &["--format", "sharegpt"]);
    let m = json(&dir.join("export.json"));
    let skipped: Vec<&str> = m["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|s| s.contains("task-d"))
        .collect();
    assert_eq!(skipped.len(), 1, "{m}");
    assert!(
        skipped[0].contains("uses Mousepad, which the sim desktop does not have"),
        "{}",
        skipped[0]
    );
    // The tasks of this desktop still export.
    assert_eq!(m["trajectories"], 2, "{m}");
}
