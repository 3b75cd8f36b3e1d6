//! `synth verify`: the cross-verification loop, the resource contract,
//! discriminative power, kill-and-resume, malformed replies and the offline actor
//! on the hand-written pool.

mod common;

use std::path::{Path, PathBuf};

use synth::llm::{ActRequest, CodeRequest, LlmError, OfflineRoles, Outcome};
use synth::model::{Check, CheckCall, Subtask, SubtaskStatus};
use synth::pipeline::verify::{self, VerifyArgs, VerifyReport};
use synth::pipeline::{LlmSetup, StageContext};
use synth::resources::Catalog;
use synth::store::pool::parse_pool;
use synth::store::Store;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn catalog() -> Catalog {
    Catalog::load(&repo()).unwrap()
}

/// The hand-written pool (optionally only the subtasks `keep` accepts), stored as
/// proposed.
fn propose_pool(store: &Store, keep: impl Fn(&Subtask) -> bool) -> Vec<Subtask> {
    let pool: Vec<Subtask> = committed_pool().into_iter().filter(|s| keep(s)).collect();
    for s in &pool {
        store
            .put_subtask(s, SubtaskStatus::Proposed, None, None)
            .unwrap();
    }
    pool
}

/// The committed pool, `subtask_pool/pool.jsonl`.
fn committed_pool() -> Vec<Subtask> {
    let path = repo().join("subtask_pool").join("pool.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    parse_pool(&path, &text, &catalog()).unwrap()
}

/// The offline actor's plan for the first parameter set of `subtask`, with its
/// instruction.
fn offline_plan(subtask: &Subtask) -> (String, Vec<verify::actor::PlannedStep>) {
    let desktop = synth::env::SimDesktop::load(&repo()).unwrap();
    let actor =
        verify::actor::OfflineActor::new(Box::new(desktop), catalog(), vec![subtask.clone()]);
    let instruction = subtask.instruction(0).unwrap();
    let inst = actor
        .recognise(&instruction)
        .expect("the instruction is recognised");
    let plan = actor
        .plan(&inst, &verify::actor::Subgoals::default())
        .unwrap();
    (instruction, plan.to_vec())
}

fn run_verify(store: &Store, args: &VerifyArgs, roles: OfflineRoles, jobs: usize) -> VerifyReport {
    let cat = catalog();
    let cx = StageContext {
        workspace: repo(),
        store,
        catalog: &cat,
        seed: 1,
        jobs,
        quiet: true,
        llm: LlmSetup::default(),
        env: Default::default(),
    };
    verify::run(args, &cx, roles).unwrap()
}

fn subtask(
    id: &str,
    app: &str,
    template: &str,
    params: &[(&str, &str)],
    inputs: &[&str],
    outputs: &[&str],
) -> Subtask {
    Subtask {
        id: synth::model::SubtaskId(id.into()),
        instruction_template: template.into(),
        application: app.into(),
        category: Some("Office".into()),
        os: "Linux".into(),
        available_parameters: vec![params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()],
        input_resources: inputs.iter().map(|s| s.to_string()).collect(),
        output_resources: outputs.iter().map(|s| s.to_string()).collect(),
        evaluation: None,
        trajectories: vec![],
        provenance: None,
    }
}

fn check(call: CheckCall) -> Check {
    Check {
        call,
        expect: true,
        message: None,
    }
}

fn reason_of(store: &Store, id: &str) -> (String, Option<String>) {
    store
        .conn()
        .query_row(
            "SELECT status, reason FROM subtasks WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
}

#[test]
fn offline_actor_verifies_most_of_a_sample_of_the_hand_written_pool() {
    let store = Store::open_in_memory().unwrap();
    // A sample of six applications (15 subtasks, 36 units): the debug-built
    // simulator is too slow for the whole pool in a test. On the whole pool the
    // offline actor verifies 36 of 83 subtasks today (release build, see the
    // branch report); that gap is known and not hidden by this sample.
    let pool = propose_pool(&store, |s| {
        matches!(
            s.application.as_str(),
            "Text Editor" | "Archiver" | "Files" | "Writer" | "Slides" | "PDF Tool"
        )
    });
    let report = run_verify(&store, &VerifyArgs::default(), OfflineRoles::default(), 2);
    eprintln!("{report}");
    let rows: Vec<(String, String)> = {
        let conn = store.conn();
        let mut stmt = conn
            .prepare("SELECT instruction_template, reason FROM subtasks WHERE status = 'rejected' ORDER BY id")
            .unwrap();
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                ))
            })
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        rows
    };
    for (t, r) in &rows {
        eprintln!("REJECTED {t}\n    {r}");
    }
    assert_eq!(report.proposed, pool.len());
    assert_eq!(report.verified + report.rejected, pool.len());
    assert!(
        report.verified * 10 >= pool.len() * 6,
        "only {} of {} verified",
        report.verified,
        pool.len()
    );
    // Verified subtasks carry one trajectory per kept parameter set.
    for s in store.subtasks(SubtaskStatus::Verified).unwrap() {
        assert_eq!(
            s.trajectories.len(),
            s.available_parameters.len(),
            "{}",
            s.id
        );
        assert!(s.evaluation.is_some());
    }
}

/// An evaluation of A that only asks for the window passes on B's trajectory.
#[test]
fn evaluation_passing_on_another_trajectory_lacks_discriminative_power() {
    let store = Store::open_in_memory().unwrap();
    let a = subtask(
        "a-weak",
        "Text Editor",
        "In the Text Editor, make a new file and insert the date.",
        &[],
        &[],
        &["txt_in_processing"],
    );
    let b = subtask(
        "b-strong",
        "Text Editor",
        "In the Text Editor, make a new file and save it as '{txt_path}'.",
        &[("txt_path", "/home/user/Documents/made.txt")],
        &[],
        &["txt_path"],
    );
    for s in [&a, &b] {
        store
            .put_subtask(s, SubtaskStatus::Proposed, None, None)
            .unwrap();
    }
    let coder = |req: &CodeRequest| -> Result<Outcome<Vec<Check>>, LlmError> {
        Ok(Outcome::Accepted(
            if req.instruction_template.contains("insert the date") {
                vec![check(CheckCall::CheckWindowOpen {
                    title: "Text Editor".into(),
                })]
            } else {
                vec![check(CheckCall::CheckFileExists {
                    file_path: "{txt_path}".into(),
                })]
            },
        ))
    };
    let roles = OfflineRoles {
        coder: Some(Box::new(coder)),
        ..OfflineRoles::default()
    };
    let report = run_verify(&store, &VerifyArgs::default(), roles, 1);
    let (status, reason) = reason_of(&store, "a-weak");
    assert_eq!(status, "rejected", "{report}");
    let reason = reason.unwrap();
    assert!(reason.contains("lacks discriminative power"), "{reason}");
    assert!(reason.contains("b-strong"), "{reason}");
    assert_eq!(reason_of(&store, "b-strong").0, "verified", "{report}");
}

#[test]
fn trajectory_without_its_declared_outputs_breaks_the_contract() {
    let store = Store::open_in_memory().unwrap();
    // The Calculator cannot make a PDF; an evaluation that only looks at the
    // window passes, the contract does not.
    let s = subtask(
        "calc-pdf",
        "Calculator",
        "Open the Calculator and save the result as '{pdf_path}'.",
        &[("pdf_path", "/home/user/Documents/result.pdf")],
        &[],
        &["pdf_path"],
    );
    store
        .put_subtask(&s, SubtaskStatus::Proposed, None, None)
        .unwrap();
    let coder = |_: &CodeRequest| -> Result<Outcome<Vec<Check>>, LlmError> {
        Ok(Outcome::Accepted(vec![check(CheckCall::CheckWindowOpen {
            title: "Calculator".into(),
        })]))
    };
    let roles = OfflineRoles {
        coder: Some(Box::new(coder)),
        ..OfflineRoles::default()
    };
    let args = VerifyArgs {
        rounds: 2,
        ..VerifyArgs::default()
    };
    let report = run_verify(&store, &args, roles, 1);
    let (status, reason) = reason_of(&store, "calc-pdf");
    assert_eq!(status, "rejected", "{report}");
    let reason = reason.unwrap();
    assert!(reason.contains("resource contract"), "{reason}");
    assert!(
        reason.contains("pdf_path=/home/user/Documents/result.pdf"),
        "{reason}"
    );
    let rounds: i64 = store
        .conn()
        .query_row(
            "SELECT COUNT(*) FROM verification_rounds WHERE subtask_id = 'calc-pdf'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(rounds, 2);
}

#[test]
fn malformed_replies_are_rejected_with_reasons() {
    let store = Store::open_in_memory().unwrap();
    propose_pool(&store, |s| s.application == "Calculator");
    let actor = |_: &ActRequest| -> Result<Outcome<synth::llm::ActorStep>, LlmError> {
        Ok(Outcome::Rejected {
            reason: "\"Status\" must be \"CONTINUE\" or \"FINISH\", got \"MAYBE\"".into(),
            raw: "{\"Status\": \"MAYBE\"}".into(),
        })
    };
    let coder = |_: &CodeRequest| -> Result<Outcome<Vec<Check>>, LlmError> {
        Ok(Outcome::Rejected {
            reason: "checks[0]: unknown check API 'check_magic'".into(),
            raw: "{\"checks\": [{\"api\": \"check_magic\"}]}".into(),
        })
    };
    let roles = OfflineRoles {
        actor: Some(Box::new(actor)),
        coder: Some(Box::new(coder)),
        ..OfflineRoles::default()
    };
    let report = run_verify(&store, &VerifyArgs::default(), roles, 2);
    assert_eq!(report.verified, 0, "{report}");
    assert!(report.rejected > 0);
    for s in store.subtasks(SubtaskStatus::Rejected).unwrap() {
        let (_, reason) = reason_of(&store, &s.id.0);
        let reason = reason.unwrap();
        assert!(reason.contains("actor reply rejected"), "{reason}");
        assert!(
            reason.contains("unknown check API 'check_magic'"),
            "{reason}"
        );
        assert!(reason.contains("round 3"), "{reason}");
    }
}

/// The store's content that must not depend on interruptions or thread counts.
fn dump(db: &Path) -> Vec<String> {
    let store = Store::open(db).unwrap();
    let conn = store.conn();
    let mut out = Vec::new();
    for q in [
        "SELECT id || '|' || status || '|' || COALESCE(reason, '') || '|' || body FROM subtasks ORDER BY id",
        "SELECT trajectory_id || '|' || body FROM trajectories ORDER BY trajectory_id",
        "SELECT subtask_id || '|' || body FROM evaluations ORDER BY subtask_id",
        "SELECT subtask_id || '|' || parameter_index || '|' || round || '|' || body FROM verification_rounds ORDER BY 1",
        "SELECT subtask_id || '|' || parameter_index || '|' || status || '|' || body FROM verify_units ORDER BY 1",
    ] {
        let mut stmt = conn.prepare(q).unwrap();
        let rows = stmt.query_map([], |r| r.get::<_, String>(0)).unwrap();
        out.extend(rows.map(Result::unwrap));
    }
    out
}

fn workspace_with_proposed(keep: impl Fn(&Subtask) -> bool + Copy) -> common::Workspace {
    let ws = common::Workspace::new();
    let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
    propose_pool(&store, keep);
    ws
}

#[test]
fn killed_run_resumes_to_the_same_store() {
    let keep = |s: &Subtask| matches!(s.application.as_str(), "Text Editor" | "Archiver" | "Files");
    let whole = workspace_with_proposed(keep);
    whole.ok(&["verify", "--quiet", "--jobs", "2"]);

    let killed = workspace_with_proposed(keep);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_synth"))
        .arg("--workspace")
        .arg(killed.path())
        .args(["verify", "--quiet", "--jobs", "1"])
        .env("SYNTH_TEST_ABORT_AFTER", "5")
        .output()
        .unwrap();
    assert!(!out.status.success(), "the hook stops the run");
    let units_after_kill: i64 = Store::open(&killed.file("generated/synth.sqlite"))
        .unwrap()
        .conn()
        .query_row("SELECT COUNT(*) FROM verify_units", [], |r| r.get(0))
        .unwrap();
    assert_eq!(units_after_kill, 5);
    killed.ok(&["verify", "--quiet", "--jobs", "2"]);
    let a = dump(&whole.file("generated/synth.sqlite"));
    let b = dump(&killed.file("generated/synth.sqlite"));
    assert!(a.len() > 10);
    assert_eq!(a, b);
    // A third run has nothing left to do and changes nothing.
    killed.ok(&["verify", "--quiet"]);
    assert_eq!(dump(&killed.file("generated/synth.sqlite")), b);
}

#[test]
fn mutation_test_scores_the_evaluations() {
    let ws = workspace_with_proposed(|s| {
        matches!(
            s.application.as_str(),
            "Text Editor" | "Archiver" | "Writer"
        )
    });
    let out = ws.ok(&["verify", "--mutants"]);
    assert!(out.contains("mutation score:"), "{out}");
    let stats = ws.ok(&["stats"]);
    assert!(stats.contains("mutation score"), "{stats}");
}

// ---------------------------------------------------------------------------
// The loop with a model: recorded through the openai backend against a scripted
// loopback server, then replayed from the record.

mod scripted {
    use serde_json::{json, Value};
    use wiremock::{Request, Respond, ResponseTemplate};

    pub const MODEL: &str = "gpt-test";

    /// The actor's plan: the first round misses "Insert Date"; with feedback it
    /// does the whole subtask.
    fn plan(feedback: bool) -> Vec<(&'static str, Value)> {
        let click = json!({"button": "left", "double": false});
        let mut p = vec![
            ("Start", click.clone()),
            ("Text Editor", click.clone()),
            ("New", click.clone()),
        ];
        if feedback {
            p.push(("Insert Date", click.clone()));
        }
        p.push(("Save As", click.clone()));
        p.push((
            "File name",
            json!({"keys": "/home/user/Documents/dated.txt{ENTER}"}),
        ));
        p
    }

    fn actor(user: &str) -> Value {
        let step = user.lines().filter(|l| l.starts_with("Step ")).count();
        let feedback = user.contains("<Feedback from the previous attempt:>");
        let plan = plan(feedback);
        let Some((text, args)) = plan.get(step) else {
            return json!({"Status": "FINISH", "Observation": "done", "Thought": "The file is saved.",
                "ControlLabel": "", "ControlText": "", "Function": "", "Args": {}});
        };
        let label = user
            .lines()
            .filter(|l| l.starts_with('{'))
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|c| c["control_text"] == *text)
            .map(|c| c["label"].as_str().unwrap_or_default().to_string())
            .unwrap_or_default();
        let function = if args.get("keys").is_some() {
            "keyboard_input"
        } else {
            "click_input"
        };
        json!({"Status": "CONTINUE", "Observation": "", "Thought": format!("Use '{text}'."),
            "ControlLabel": label, "ControlText": text, "Function": function, "Args": args})
    }

    /// The coder: first a check on a control the editor does not have; after
    /// the evidence, without it.
    fn coder(user: &str) -> Value {
        let mut checks = vec![
            json!({"api": "check_file_exists", "args": {"file_path": "{txt_path}"}}),
            json!({"api": "check_mouse_clicks", "args": {"text": "Insert Date"}}),
        ];
        if !user.contains("### Feedback from the previous round") {
            checks.push(json!({"api": "check_mouse_clicks", "args": {"text": "Add Timestamp"}}));
        } else {
            checks.push(json!({"api": "check_file_contains",
                "args": {"file_path": "{txt_path}", "text": "2026-11-21"}}));
        }
        json!({ "checks": checks })
    }

    pub struct Script;

    impl Respond for Script {
        fn respond(&self, req: &Request) -> ResponseTemplate {
            let body: Value = serde_json::from_slice(&req.body).unwrap();
            let messages = body["messages"].as_array().unwrap();
            let system = messages[0]["content"].as_str().unwrap_or_default();
            let user = messages[1]["content"].as_str().unwrap_or_default();
            let answer = if system.contains("Executable Language Grounding") {
                actor(user)
            } else {
                coder(user)
            };
            ResponseTemplate::new(200).set_body_json(json!({
                "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": MODEL,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": answer.to_string()},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
            }))
        }
    }
}

fn model_config(base: &str) -> synth::llm::LlmConfig {
    use synth::llm::{ApiKey, LlmConfig, Role, RoleModel};
    let mut cfg = LlmConfig {
        base_url: format!("{base}/v1"),
        api_key: Some(ApiKey::new("sk-test")),
        timeout_ms: 5_000,
        max_retries: 1,
        backoff_base_ms: 1,
        backoff_max_ms: 5,
        reask_attempts: 0,
        ..LlmConfig::default()
    };
    for role in Role::ALL {
        *cfg.roles.get_mut(role) = RoleModel {
            model: scripted::MODEL.into(),
            multimodal: false,
        };
    }
    cfg
}

fn dated_subtask() -> Subtask {
    subtask(
        "dated",
        "Text Editor",
        "In the Text Editor, make a new file, insert the date and save it as '{txt_path}'.",
        &[("txt_path", "/home/user/Documents/dated.txt")],
        &[],
        &["txt_path"],
    )
}

#[test]
fn loop_converges_when_feedback_reaches_both_sides_and_replays() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = rt.block_on(async {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/v1/models"))
            .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
                "object": "list", "data": [{"id": scripted::MODEL, "object": "model"}]
            })))
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(scripted::Script)
            .mount(&server)
            .await;
        server
    });
    let cat = catalog();
    let store = Store::open_in_memory().unwrap();
    store
        .put_subtask(&dated_subtask(), SubtaskStatus::Proposed, None, None)
        .unwrap();
    let cx = StageContext {
        workspace: repo(),
        store: &store,
        catalog: &cat,
        seed: 1,
        jobs: 1,
        quiet: true,
        llm: LlmSetup {
            backend: synth::llm::Backend::OpenAi,
            config: model_config(&server.uri()),
            no_cache: false,
            replay_file: None,
            budget: Default::default(),
        },
        env: Default::default(),
    };
    let report = verify::run(&VerifyArgs::default(), &cx, OfflineRoles::default()).unwrap();
    assert_eq!(report.verified, 1, "{report}");
    assert_eq!(report.rounds_needed.get(&2), Some(&1), "{report}");

    // The rendered prompts of round 2 carry the feedback of round 1.
    let requests: Vec<(String, String)> = {
        let conn = store.conn();
        let mut stmt = conn
            .prepare("SELECT role, request FROM model_calls ORDER BY id")
            .unwrap();
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        rows
    };
    let actor_fb: Vec<&String> = requests
        .iter()
        .filter(|(role, req)| role == "actor" && req.contains("Feedback from the previous attempt"))
        .map(|(_, r)| r)
        .collect();
    assert!(!actor_fb.is_empty());
    assert!(
        actor_fb
            .iter()
            .all(|r| r.contains("expects a click on 'Insert Date'")),
        "{}",
        actor_fb[0]
    );
    let coder_fb: Vec<&String> = requests
        .iter()
        .filter(|(role, req)| role == "coder" && req.contains("Feedback from the previous round"))
        .map(|(_, r)| r)
        .collect();
    assert_eq!(coder_fb.len(), 1);
    assert!(
        coder_fb[0]
            .contains("No control with the text 'Add Timestamp' appeared during the trajectory"),
        "{}",
        coder_fb[0]
    );
    let round2: String = store
        .conn()
        .query_row(
            "SELECT body FROM verification_rounds WHERE subtask_id = 'dated' AND round = 2",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(round2.contains("\"verdict\":\"passed\""), "{round2}");
    let evaluation = store.subtasks(SubtaskStatus::Verified).unwrap()[0]
        .evaluation
        .clone()
        .unwrap();
    assert!(evaluation
        .checks
        .iter()
        .all(|c| !c.call.args().contains(&"Add Timestamp")));

    // Replay: the same outcome from the record alone, with no server.
    let record = tempfile::NamedTempFile::new().unwrap();
    {
        let mut f = std::fs::File::create(record.path()).unwrap();
        synth::llm::record::export_jsonl(&store.call_log().all().unwrap(), &mut f).unwrap();
    }
    drop(server);
    let replayed = Store::open_in_memory().unwrap();
    replayed
        .put_subtask(&dated_subtask(), SubtaskStatus::Proposed, None, None)
        .unwrap();
    let cx = StageContext {
        store: &replayed,
        llm: LlmSetup {
            backend: synth::llm::Backend::Replay,
            config: model_config("http://127.0.0.1:9"),
            no_cache: false,
            replay_file: Some(record.path().to_path_buf()),
            budget: Default::default(),
        },
        ..cx
    };
    let again = verify::run(&VerifyArgs::default(), &cx, OfflineRoles::default()).unwrap();
    assert_eq!(again.verified, 1, "{again}");
    let units = |s: &Store| -> Vec<String> {
        s.conn()
            .prepare("SELECT body FROM verify_units")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(units(&store), units(&replayed));
}

#[test]
fn offline_actor_does_not_visit_an_application_named_inside_a_value() {
    // A mail body that names another application ("Notes from this morning")
    // is text to type, not a place to go: the plan stays in Mail and sends.
    let mut mail = committed_pool()
        .into_iter()
        .find(|s| {
            s.application == "Mail"
                && s.instruction_template.contains("with '{body}' as the body")
                && s.instruction_template.contains("send the e-mail")
        })
        .expect("a Mail subtask that sends a mail with a body");
    mail.available_parameters.truncate(1);
    mail.available_parameters[0].insert("body".into(), "Notes from this morning".into());
    let (instruction, plan) = offline_plan(&mail);
    let clicked: Vec<&str> = plan
        .iter()
        .map(|s| s.action.control_text.as_str())
        .collect();
    assert!(!clicked.contains(&"Notes"), "{instruction}: {clicked:?}");
    assert_eq!(clicked.last(), Some(&"Send"), "{instruction}: {clicked:?}");
    assert!(plan.iter().any(|s| s.action.call
        == synth::model::ActionCall::KeyboardInput {
            keys: "Notes from this morning".into()
        }));
}

#[test]
fn offline_actor_launches_only_the_subtasks_own_application() {
    // "set default browser to Browser" names the Browser application, but the
    // subtask is done in Settings: launching Browser from the desktop is no way
    // there.
    let settings = committed_pool()
        .into_iter()
        .find(|s| {
            s.instruction_template
                .contains("set default browser to Browser")
        })
        .expect("the Settings subtask that sets the default browser");
    let (instruction, plan) = offline_plan(&settings);
    let clicked: Vec<&str> = plan
        .iter()
        .map(|s| s.action.control_text.as_str())
        .collect();
    assert_eq!(
        clicked,
        ["Start", "Settings", "Apps", "Default browser: Browser"],
        "{instruction}"
    );
}
