//! A model-shaped OpenAI-compatible server on loopback, for runs of
//! `synth --llm openai` that must make data.
//!
//! It answers each chat request from its prompt text alone, as a model would:
//! it tells the role from the system message, reads the user message's sections
//! (controls, history, subtasks, feedback...) back into a role request, and answers
//! with the reasoning of synth's rule-based roles ([`synth::llm::OfflineRoles`]
//! and the offline explorer, coder and actor), which know the desktop's
//! applications the way a model knows common software. Nothing else of the run
//! reaches it: not the store, not the workspace's generated files.
//!
//! Two habits of real models are kept on purpose:
//! - the actor launches an application by clicking its visible desktop icon, not
//!   by clicking "Start" first (the offline actor's habit, which hid that such a
//!   trajectory cannot be replayed once another window covers the icons);
//! - replies come as bare JSON, in ```json fences, or with prose around them.
//!
//! With a fault rate, a share of the requests get one of the fault classes a
//! provider or proxy produces: 429 with Retry-After, 500, no reply within the
//! client's timeout, a truncated body, a reply that is no JSON, and JSON that
//! does not fit the role's schema. Faults are drawn from a seeded generator, so a
//! run is reproducible in kind though not in order (requests arrive concurrently).
//!
//! The [`Brain`] (what the explorer proposed, the actor's plans) outlives one
//! server: a test "kills the endpoint" by dropping the server and starts another
//! one on a new port with the same brain.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use synth::env::SimDesktop;
use synth::llm::*;
use synth::model::{Action, ActionCall, ParameterSet, Subtask};
use synth::resources::Catalog;
use wiremock::{MockServer, Request, Respond, ResponseTemplate};

/// The client timeout (`timeout_ms`) of runs with injected faults: an injected
/// timeout answers 1.5 s later than this.
pub const FAULT_TIMEOUT_MS: u64 = 4000;

/// The fault classes the server injects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fault {
    RateLimited,
    ServerError,
    Timeout,
    Truncated,
    NotJson,
    SchemaInvalid,
}

impl Fault {
    pub const ALL: [Fault; 6] = [
        Fault::RateLimited,
        Fault::ServerError,
        Fault::Timeout,
        Fault::Truncated,
        Fault::NotJson,
        Fault::SchemaInvalid,
    ];
}

/// What the server counted.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    /// Chat requests per role name.
    pub requests: BTreeMap<String, u64>,
    /// Injected faults per class.
    pub faults: BTreeMap<String, u64>,
    /// Chat requests per role that carried an image, and the `(width, height)`
    /// of the PNGs they carried.
    pub images: BTreeMap<String, u64>,
    pub image_sizes: std::collections::BTreeSet<(u32, u32)>,
}

impl Tally {
    pub fn total_requests(&self) -> u64 {
        self.requests.values().sum()
    }
}

/// The server's reasoning and memory, shared by the servers of one test.
pub struct Brain {
    desktop: SimDesktop,
    catalog: Catalog,
    /// Every subtask the explorer proposed (by anyone asking), in proposal order.
    proposed: Mutex<Vec<Subtask>>,
    /// The actor over `proposed`, rebuilt when `proposed` grew.
    actor: Mutex<Option<(usize, Arc<synth::pipeline::verify::actor::OfflineActor>)>>,
    /// Share of requests that get a fault, in per mille.
    fault_per_mille: AtomicU64,
    /// The delay of an injected timeout: longer than the client's timeout of
    /// [`FAULT_TIMEOUT_MS`].
    timeout_delay: Duration,
    rng: Mutex<u64>,
    tally: Mutex<Tally>,
}

impl Brain {
    /// A brain for the desktop of `workspace` (its `resources/`).
    pub fn new(workspace: &Path, fault_rate: f64, seed: u64) -> Arc<Brain> {
        Arc::new(Brain {
            desktop: SimDesktop::load(workspace).expect("the simulated desktop loads"),
            catalog: Catalog::load(workspace).expect("the catalogue loads"),
            proposed: Mutex::new(Vec::new()),
            actor: Mutex::new(None),
            fault_per_mille: AtomicU64::new((fault_rate * 1000.0).round() as u64),
            timeout_delay: Duration::from_millis(FAULT_TIMEOUT_MS + 1500),
            rng: Mutex::new(seed | 1),
            tally: Mutex::new(Tally::default()),
        })
    }

    pub fn set_fault_rate(&self, rate: f64) {
        self.fault_per_mille
            .store((rate * 1000.0).round() as u64, Ordering::Relaxed);
    }

    pub fn tally(&self) -> Tally {
        self.tally.lock().unwrap().clone()
    }

    /// xorshift64*: a reproducible stream of draws.
    fn draw(&self, n: u64) -> u64 {
        let mut s = self.rng.lock().unwrap();
        *s ^= *s >> 12;
        *s ^= *s << 25;
        *s ^= *s >> 27;
        (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) % n
    }

    fn fault(&self) -> Option<Fault> {
        let rate = self.fault_per_mille.load(Ordering::Relaxed);
        if self.draw(1000) >= rate {
            return None;
        }
        Some(Fault::ALL[self.draw(Fault::ALL.len() as u64) as usize])
    }

    /// The reply content for a chat request's messages, and the role.
    fn answer(&self, messages: &[Value]) -> (String, Value) {
        let text = |m: &Value| match &m["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        let system = messages.first().map(text).unwrap_or_default();
        let user = messages.get(1).map(text).unwrap_or_default();
        if system.contains("Executable Language Grounding") {
            ("actor".into(), self.act(&user))
        } else if system.starts_with("You explore a desktop application") {
            ("explorer".into(), self.explore(&system, &user))
        } else if system.contains("writing the evaluation") {
            ("coder".into(), self.code(&system, &user))
        } else if system.starts_with("You design realistic user goals") {
            ("planner".into(), self.plan(&system, &user))
        } else if system.starts_with("You write instructions") {
            ("summarizer".into(), self.summarize(&user))
        } else if system.starts_with("You read a task instruction") {
            ("reconstructor".into(), self.reconstruct(&user))
        } else {
            ("ping".into(), json!({"ok": true}))
        }
    }

    fn explore(&self, system: &str, user: &str) -> Value {
        let head = section(user, "### Application");
        let (application, category) = match head.trim().rsplit_once(" (") {
            Some((a, c)) => (a.to_string(), c.trim_end_matches(')').to_string()),
            None => (head.trim().to_string(), String::new()),
        };
        let kinds = between(system, "Use only these resource kinds:\n", "Rules:");
        let resource_kinds = kinds
            .lines()
            .filter_map(|l| l.strip_prefix("- "))
            .filter_map(|l| l.split_once(": "))
            .map(|(n, d)| ResourceKindDoc {
                name: n.to_string(),
                description: d.to_string(),
            })
            .collect();
        let max_subtasks = between(system, "Propose at most ", " subtasks")
            .trim()
            .parse()
            .unwrap_or(10);
        let known_resources = bullet_lines(&section(user, "### Known resources"))
            .into_iter()
            .filter_map(|l| {
                let (body, source) = l.rsplit_once(" (")?;
                let source = source.trim_end_matches(')');
                let mut parts = source.split("; ");
                let source = parts.next()?.to_string();
                let (mut readers, mut shows) = (0, None);
                for part in parts {
                    if let Some(n) = part.strip_prefix("read by ") {
                        readers = n.split(' ').next()?.parse().ok()?;
                    } else if let Some(c) = part.strip_prefix("shows ") {
                        shows = Some(c.to_string());
                    }
                }
                let (kind, parameter) = match body.split_once(" = ") {
                    Some((k, p)) => (k.to_string(), Some(p.to_string())),
                    None => (body.to_string(), None),
                };
                Some(KnownResource {
                    kind,
                    parameter,
                    source,
                    readers,
                    depth: 0,
                    shows,
                    copied_beside: false,
                    packs: 0,
                    converted_only: false,
                    made_from: Vec::new(),
                })
            })
            .collect();
        let req = ExploreRequest {
            application: application.clone(),
            category: category.clone(),
            docs: section(user, "### Documentation").trim().to_string(),
            resource_kinds,
            example_subtasks: json_lines(&section(user, "### Example subtasks")),
            observed_controls: json_lines(&section(user, "### Observed controls")),
            existing_templates: bullet_lines(&section(user, "### Existing subtasks")),
            max_subtasks,
            known_resources,
        };
        let explorer = synth::pipeline::explore::OfflineExplorer::new(&self.desktop, &self.catalog);
        match synth::llm::OfflineRole::answer(&explorer, &req) {
            Ok(Outcome::Accepted(proposals)) => {
                let mut proposed = self.proposed.lock().unwrap();
                for p in &proposals {
                    let id =
                        synth::pipeline::explore::subtask_id(&application, &p.instruction_template);
                    if proposed.iter().any(|s| s.id == id) {
                        continue;
                    }
                    proposed.push(Subtask {
                        id,
                        instruction_template: p.instruction_template.clone(),
                        application: application.clone(),
                        category: Some(category.clone()),
                        os: "Linux".into(),
                        available_parameters: p.available_parameters.clone(),
                        input_resources: p.input_resources.clone(),
                        output_resources: p.output_resources.clone(),
                        evaluation: None,
                        trajectories: vec![],
                        provenance: None,
                    });
                }
                json!({ "subtasks": proposals })
            }
            // A model with nothing to propose still answers something: an empty
            // list, which synth rejects as such.
            _ => json!({ "subtasks": [] }),
        }
    }

    fn code(&self, system: &str, user: &str) -> Value {
        let application = between(system, "in the application '", "'").to_string();
        let os = between(system, "The agent runs on the '", "'").to_string();
        let req = CodeRequest {
            instruction_template: section(user, "### Subtask Instruction Template")
                .trim()
                .to_string(),
            application,
            os,
            parameters: json_lines::<ParameterSet>(&section(user, "### Available Parameters")),
            controls_seen: section(user, "### Controls in Environment")
                .lines()
                .map(str::to_string)
                .filter(|l| !l.is_empty() && l != "(none recorded)")
                .collect(),
            feedback: Some(section(user, "### Feedback from the previous round"))
                .map(|f| read_coder_feedback(f.trim()))
                .filter(|f| !f.refuted().is_empty()),
            apis: model_check_api_docs(),
        };
        let subtasks = self.proposed.lock().unwrap().clone();
        let coder =
            synth::pipeline::explore::OfflineCoder::new(&self.desktop, &self.catalog, &subtasks);
        match synth::llm::OfflineRole::answer(&coder, &req) {
            Ok(Outcome::Accepted(checks)) => json!({ "checks": checks }),
            _ => json!({ "checks": [{"api": "check_window_open",
                "args": {"title": req.application}, "message": "the application is not open"}] }),
        }
    }

    fn actor(&self) -> Arc<synth::pipeline::verify::actor::OfflineActor> {
        let proposed = self.proposed.lock().unwrap();
        let mut cached = self.actor.lock().unwrap();
        match &*cached {
            Some((n, a)) if *n == proposed.len() => a.clone(),
            _ => {
                let a = Arc::new(synth::pipeline::verify::actor::OfflineActor::new(
                    Box::new(self.desktop.clone()),
                    self.catalog.clone(),
                    proposed.clone(),
                ));
                *cached = Some((proposed.len(), a.clone()));
                a
            }
        }
    }

    fn act(&self, user: &str) -> Value {
        let controls_part = between(user, "<Available Control Items:>", "<Task instruction:>");
        let window_title = between(controls_part, "(window \"", "\")\n").to_string();
        let controls: Vec<ControlInfo> = json_lines(controls_part);
        let feedback = user
            .split_once("<Feedback from the previous attempt:>\n")
            .map(|(_, rest)| {
                rest.split("<Task instruction:>")
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_string()
            })
            .filter(|f| !f.is_empty())
            .map(|f| read_actor_feedback(&f));
        let instruction = user
            .split_once("<Task instruction:>\n")
            .map(|(_, i)| i.trim().to_string())
            .unwrap_or_default();
        let history = parse_history(between(
            user,
            "<Step History:>\n",
            "<Available Control Items:>",
        ));
        let start_click = |h: &HistoryStep| {
            matches!(h.action.call, ActionCall::ClickInput { .. })
                && h.action.control_text == "Start"
        };
        // The model launches from the desktop icon; the rule-based planner it
        // reasons with starts with "Start" (a no-op on a shown desktop), so its
        // history gets that click in front.
        let mut offline_history = history.clone();
        let shown_desktop_first = !history.is_empty() && !start_click(&history[0]);
        if shown_desktop_first {
            offline_history.insert(0, start_step());
        }
        let mut req = ActRequest {
            instruction,
            window_title,
            controls: controls.clone(),
            history: offline_history,
            feedback,
            screenshot: None,
        };
        let actor = self.actor();
        let mut step = synth::llm::OfflineRole::answer(&*actor, &req);
        if history.is_empty() {
            if let Ok(Outcome::Accepted(s)) = &step {
                let is_start = s.action.as_ref().is_some_and(|a| a.control_text == "Start");
                if is_start {
                    req.history.push(start_step());
                    let next = synth::llm::OfflineRole::answer(&*actor, &req);
                    // Skip "Start" when what follows is on screen already.
                    if let Ok(Outcome::Accepted(n)) = &next {
                        let visible = n.action.as_ref().is_some_and(|a| {
                            controls.iter().any(|c| c.control_text == a.control_text)
                        });
                        if visible {
                            step = next;
                        }
                    }
                }
            }
        }
        match step {
            Ok(Outcome::Accepted(s)) => actor_json(&s),
            _ => json!({"Status": "FINISH", "Observation": "I cannot tell how to go on.",
                "Thought": "No control on screen leads towards the goal.",
                "ControlLabel": "", "ControlText": "", "Function": "", "Args": {}}),
        }
    }

    fn plan(&self, system: &str, user: &str) -> Value {
        let subtasks = bullet_lines(&section(user, "### Subtasks"))
            .into_iter()
            .filter_map(|l| {
                let rest = l.strip_prefix("id ")?;
                let (id, rest) = rest.split_once(" [")?;
                let (tags, rest) = rest.split_once("]: ")?;
                let (application, category) = tags.split_once(", ")?;
                let (instruction, res) = rest.rsplit_once(" (needs: ")?;
                let (needs, produces) = res.trim_end_matches(')').split_once("; produces: ")?;
                let list = |s: &str| -> Vec<String> {
                    s.split(", ")
                        .map(str::trim)
                        .filter(|k| !k.is_empty() && *k != "nothing")
                        .map(str::to_string)
                        .collect()
                };
                Some(PlanSubtask {
                    id: id.to_string(),
                    application: application.to_string(),
                    category: category.to_string(),
                    instruction: instruction.to_string(),
                    input_resources: list(needs),
                    output_resources: list(produces),
                })
            })
            .collect();
        let req = PlanRequest {
            subtasks,
            existing_intents: bullet_lines(&section(user, "### Existing intents")),
            // The planner's prompt names a cap only when one is set.
            max_intents: between(system, "Propose at most ", " intents")
                .trim()
                .parse()
                .ok(),
        };
        let intents = synth::pipeline::intents::plan_offline(&req);
        json!({ "intents": intents })
    }

    fn summarize(&self, user: &str) -> Value {
        let nodes = bullet_lines(&section(user, "### Subtasks"))
            .into_iter()
            .filter_map(|l| {
                let (id, rest) = l.split_once(" [")?;
                let (app, instruction) = rest.split_once("]: ")?;
                Some(SummaryNode {
                    id: id.to_string(),
                    application: app.to_string(),
                    instruction: instruction.to_string(),
                })
            })
            .collect();
        let edges = bullet_lines(&section(user, "### Dependencies (before -> after)"))
            .into_iter()
            .filter_map(|l| {
                l.split_once(" -> ")
                    .map(|(a, b)| (a.to_string(), b.to_string()))
            })
            .collect();
        let misread = section(user, "### Your previous instruction was misread");
        let previous_instruction = between(&misread, "Previous instruction: ", "\nWhat a reader")
            .trim()
            .to_string();
        let discrepancy = between(
            &misread,
            "What a reader recovered differently: ",
            "\nRewrite",
        )
        .trim()
        .to_string();
        let req = SummarizeRequest {
            intent: section(user, "### Task intent").trim().to_string(),
            purpose: Some(section(user, "### Why the task is done").trim().to_string())
                .filter(|p| !p.is_empty()),
            nodes,
            edges,
            previous_instruction: Some(previous_instruction).filter(|s| !s.is_empty()),
            discrepancy: Some(discrepancy).filter(|s| !s.is_empty()),
        };
        let roles = synth::pipeline::validate::stage::offline_roles();
        match roles.summarizer.as_ref().map(|s| s.answer(&req)) {
            Some(Ok(Outcome::Accepted(s))) => json!(s),
            _ => json!({"task_instruction": req.intent, "low_level_instruction": req.intent}),
        }
    }

    fn reconstruct(&self, user: &str) -> Value {
        let subtasks = bullet_lines(&section(user, "### Subtasks"))
            .into_iter()
            .filter_map(|l| {
                let (id, instruction) = l.split_once(": ")?;
                Some(NeutralSubtask {
                    id: id.to_string(),
                    instruction: instruction.to_string(),
                })
            })
            .collect();
        let req = ReconstructRequest {
            instruction: section(user, "### Task instruction").trim().to_string(),
            subtasks,
        };
        let roles = synth::pipeline::validate::stage::offline_roles();
        match roles.reconstructor.as_ref().map(|r| r.answer(&req)) {
            Some(Ok(Outcome::Accepted(edges))) => {
                json!({"edges": edges.iter().map(|e| [e.from.clone(), e.to.clone()]).collect::<Vec<_>>()})
            }
            _ => json!({"edges": []}),
        }
    }
}

/// Makes a check call of its one argument.
type CallOf = fn(String) -> synth::model::CheckCall;

/// The failing checks an actor prompt's feedback words as goals ("expects a
/// click on 'X', ...", "expects typing 'X', ...", "expects the key press 'X',
/// ..."), read the way a model reads them.
fn read_actor_feedback(text: &str) -> ActorFeedback {
    let mut checks = Vec::new();
    let mut rest = text;
    let markers: [(&str, CallOf); 3] = [
        ("expects a click on '", |text| {
            synth::model::CheckCall::CheckMouseClicks { text }
        }),
        ("expects typing '", |text| {
            synth::model::CheckCall::CheckKeyboardTypes { text }
        }),
        ("expects the key press '", |keys| {
            synth::model::CheckCall::CheckKeyPresses { keys }
        }),
    ];
    while let Some((i, marker, call)) = markers
        .iter()
        .filter_map(|(m, call)| rest.find(m).map(|i| (i, *m, call)))
        .min_by_key(|(i, _, _)| *i)
    {
        let after = &rest[i + marker.len()..];
        let Some(end) = after.find("', ") else { break };
        checks.push(FailedCheck {
            call: call(after[..end].to_string()),
            expect: true,
            message: None,
        });
        rest = &after[end..];
    }
    ActorFeedback::FailedChecks { checks }
}

/// The controls and texts a coder prompt's evidence says never appeared, read
/// the way a model reads them.
fn read_coder_feedback(text: &str) -> CoderFeedback {
    let quoted = |line: &str, lead: &str, tail: &str| {
        line.strip_prefix(lead)
            .and_then(|l| l.strip_suffix(tail))
            .map(str::to_string)
    };
    let mut checks = Vec::new();
    for line in text.lines() {
        let never = "' never appeared during the trajectory.";
        if let Some(t) = quoted(
            line,
            "No control with the text '",
            "' appeared during the trajectory.",
        ) {
            checks.push(CheckEvidence {
                call: synth::model::CheckCall::CheckMouseClicks { text: t.clone() },
                expect: true,
                findings: vec![Finding::NoSuchControl { text: t }],
            });
        } else if let Some(t) = quoted(line, "The text '", never) {
            checks.push(CheckEvidence {
                call: synth::model::CheckCall::CheckTextExists { text: t.clone() },
                expect: true,
                findings: vec![Finding::NeverShown { text: t }],
            });
        }
    }
    CoderFeedback::FailedChecks {
        checks,
        seen: Vec::new(),
    }
}

fn start_step() -> HistoryStep {
    HistoryStep {
        thought: String::new(),
        action: Action {
            call: ActionCall::ClickInput {
                button: "left".into(),
                double: false,
            },
            control_label: None,
            control_text: "Start".into(),
        },
    }
}

fn actor_json(s: &ActorStep) -> Value {
    let status = match s.status {
        StepStatus::Continue => "CONTINUE",
        StepStatus::Finish => "FINISH",
    };
    match &s.action {
        Some(a) => {
            let call = serde_json::to_value(&a.call).unwrap();
            json!({"Status": status, "Observation": s.observation, "Thought": s.thought,
                "ControlLabel": a.control_label.clone().unwrap_or_default(),
                "ControlText": a.control_text, "Function": call["function"], "Args": call["args"]})
        }
        None => json!({"Status": status, "Observation": s.observation, "Thought": s.thought,
            "ControlLabel": "", "ControlText": "", "Function": "", "Args": {}}),
    }
}

/// `Step n: <function> on control <label> "<text>" with Args {...}. Thought: ...`
fn parse_history(block: &str) -> Vec<HistoryStep> {
    let mut out = Vec::new();
    for line in block.lines() {
        let Some(rest) = line.strip_prefix("Step ") else {
            continue;
        };
        let Some((_, rest)) = rest.split_once(": ") else {
            continue;
        };
        let Some((function, rest)) = rest.split_once(" on control ") else {
            continue;
        };
        let Some((label, rest)) = rest.split_once(" \"") else {
            continue;
        };
        let Some((text, rest)) = rest.split_once("\" with Args ") else {
            continue;
        };
        let mut de = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        let Some(Ok(args)) = de.next() else {
            continue;
        };
        let thought = rest[de.byte_offset()..]
            .strip_prefix(". Thought: ")
            .unwrap_or("")
            .to_string();
        let Ok(call) =
            serde_json::from_value::<ActionCall>(json!({"function": function, "args": args}))
        else {
            continue;
        };
        out.push(HistoryStep {
            thought,
            action: Action {
                call,
                control_label: Some(label.to_string()).filter(|l| !l.is_empty()),
                control_text: text.to_string(),
            },
        });
    }
    out
}

/// The text under a `### Header` line up to the next `### ` line.
fn section(text: &str, header: &str) -> String {
    let Some(start) = text.find(header) else {
        return String::new();
    };
    let after = &text[start + header.len()..];
    let after = after.split_once('\n').map(|(_, r)| r).unwrap_or("");
    match after.find("\n### ") {
        Some(end) => after[..end].to_string(),
        None => after.to_string(),
    }
}

/// The text between the first `from` and the next `to` after it.
fn between<'a>(text: &'a str, from: &str, to: &str) -> &'a str {
    let Some(i) = text.find(from) else {
        return "";
    };
    let rest = &text[i + from.len()..];
    match rest.find(to) {
        Some(j) => &rest[..j],
        None => rest,
    }
}

fn bullet_lines(block: &str) -> Vec<String> {
    block
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .map(str::to_string)
        .collect()
}

fn json_lines<T: serde::de::DeserializeOwned>(block: &str) -> Vec<T> {
    block
        .lines()
        .filter(|l| l.starts_with('{'))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Wraps the JSON answer the way models do: bare, fenced or in prose.
fn wrap(answer: &Value, variant: u64) -> String {
    let body = serde_json::to_string_pretty(answer).unwrap();
    match variant % 3 {
        0 => body,
        1 => format!("```json\n{body}\n```"),
        _ => format!("Sure. Here is my answer:\n\n{body}\n\nThis follows the requested format."),
    }
}

fn completion(content: &str, model: &str) -> Value {
    json!({
        "id": "chatcmpl-model-shaped", "object": "chat.completion", "created": 1, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 400, "completion_tokens": 80, "total_tokens": 480}
    })
}

/// The size of the PNG a message carries as an `image_url` data URL.
fn png_size(message: &Value) -> Option<(u32, u32)> {
    use base64::Engine;
    let url = message["content"]
        .as_array()?
        .iter()
        .find_map(|p| p["image_url"]["url"].as_str())?;
    let data = url.strip_prefix("data:image/png;base64,")?;
    let png = base64::engine::general_purpose::STANDARD
        .decode(data)
        .ok()?;
    if png.get(..8)? != b"\x89PNG\r\n\x1a\n" {
        return None;
    }
    let be = |i: usize| u32::from_be_bytes(png[i..i + 4].try_into().unwrap());
    Some((be(16), be(20)))
}

struct Responder(Arc<Brain>);

impl Respond for Responder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let brain = &self.0;
        if request.method.as_str() == "GET" {
            return ResponseTemplate::new(200).set_body_json(json!({
                "object": "list",
                "data": [{"id": "model-shaped", "object": "model", "created": 1, "owned_by": "test"}]
            }));
        }
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let model = body["model"].as_str().unwrap_or("model-shaped").to_string();
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let fault = brain.fault();
        let (role, answer) = brain.answer(&messages);
        {
            let mut t = brain.tally.lock().unwrap();
            for size in messages.iter().filter_map(png_size) {
                *t.images.entry(role.clone()).or_default() += 1;
                t.image_sizes.insert(size);
            }
            *t.requests.entry(role).or_default() += 1;
            if let Some(f) = fault {
                *t.faults.entry(format!("{f:?}")).or_default() += 1;
            }
        }
        let content = wrap(&answer, brain.draw(3));
        match fault {
            None => ResponseTemplate::new(200).set_body_json(completion(&content, &model)),
            Some(Fault::RateLimited) => ResponseTemplate::new(429)
                .insert_header("Retry-After", "1")
                .set_body_json(
                    json!({"error": {"message": "Rate limit reached", "type": "rate_limit"}}),
                ),
            Some(Fault::ServerError) => ResponseTemplate::new(500).set_body_json(
                json!({"error": {"message": "upstream failed", "type": "server_error"}}),
            ),
            Some(Fault::Timeout) => ResponseTemplate::new(200)
                .set_body_json(completion(&content, &model))
                .set_delay(brain.timeout_delay),
            Some(Fault::Truncated) => {
                let full = completion(&content, &model).to_string();
                ResponseTemplate::new(200)
                    .set_body_raw(full[..full.len() / 2].to_string(), "application/json")
            }
            Some(Fault::NotJson) => ResponseTemplate::new(200).set_body_json(completion(
                "I'm sorry, I can't help with that right now.",
                &model,
            )),
            Some(Fault::SchemaInvalid) => ResponseTemplate::new(200).set_body_json(completion(
                &wrap(&json!({"answer": "done", "items": 3}), 0),
                &model,
            )),
        }
    }
}

/// Starts a server on loopback answering with `brain`. It is not one of
/// wiremock's pooled servers: dropping it closes the port (the endpoint dies), and
/// it keeps no copy of the requests (actor requests carry screenshots).
pub async fn start(brain: Arc<Brain>) -> MockServer {
    let server = MockServer::builder()
        .disable_request_recording()
        .start()
        .await;
    wiremock::Mock::given(wiremock::matchers::any())
        .respond_with(Responder(brain))
        .mount(&server)
        .await;
    server
}

/// The `[llm]` table of `synth.toml` for runs against the server: short
/// timeouts and backoff so faults cost seconds. The endpoint comes from
/// `--base-url`, the key from `OPENAI_API_KEY` (never from a file).
pub fn synth_toml(timeout_ms: u64) -> String {
    format!(
        "[llm]\ntimeout_ms = {timeout_ms}\nmax_retries = 4\nbackoff_base_ms = 20\n\
         backoff_max_ms = 200\nconcurrency = 4\n"
    )
}

/// The subtasks the explorer proposed, for tests that look at them.
pub fn proposed(brain: &Brain) -> Vec<Subtask> {
    brain.proposed.lock().unwrap().clone()
}
