//! The role contract: typed request contexts, typed results and their validation,
//! and the [`LanguageModel`] trait every backend implements.
//!
//! One trait with one method per role (rather than six traits) because a backend
//! serves all roles with one configuration, one call record and one concurrency
//! limit, and a stage holds a single `Arc<dyn LanguageModel>`. Per-role swapping
//! happens inside the offline backend ([`super::OfflineRoles`]).
//!
//! Each request type implements [`RoleRequest`]: its serialized form is the prompt
//! context (`prompts/<role>.tera`), and [`RoleRequest::parse`] turns the model's JSON
//! into the typed result, checking it against the request (an unknown check API, an
//! unknown action function, a control label that is not on screen, an edge between
//! unknown subtasks are all validation failures with a message for the re-ask).

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::feedback::{ActorFeedback, CoderFeedback};
use super::{Backend, LlmError, Role};
use crate::model::{Action, ActionCall, Check, CheckCall, ParameterSet};

/// A rejected reply is data, not an error: the stage records it and moves on.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome<T> {
    Accepted(T),
    /// The reply did not parse or validate after every re-ask; `raw` is the last reply.
    Rejected {
        reason: String,
        raw: String,
    },
}

impl<T> Outcome<T> {
    pub fn accepted(self) -> Option<T> {
        match self {
            Outcome::Accepted(v) => Some(v),
            Outcome::Rejected { .. } => None,
        }
    }
}

/// What a stage keeps for provenance about one role call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CallInfo {
    pub backend: Backend,
    pub model: Option<String>,
    /// Call key (sha256 hex) of the last exchange of this call.
    pub prompt_hash: Option<String>,
    /// Replies asked for: 1 plus the re-asks.
    pub replies: u32,
    /// HTTP requests made (0 when every reply came from the record).
    pub http_requests: u32,
    /// Every reply came from the call record.
    pub cached: bool,
}

/// A role's answer and how it was obtained.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply<T> {
    pub outcome: Outcome<T>,
    pub info: CallInfo,
}

/// The future a role method returns.
pub type RoleFuture<'a, T> = Pin<Box<dyn Future<Output = Result<Reply<T>, LlmError>> + Send + 'a>>;

/// The six roles, each asked for a typed result.
///
/// # Errors
/// An `Err` is a failure to get any reply (transport exhausted its retries, replay
/// miss, offline role not available, record failure). A reply that did not parse or
/// validate is `Ok` with [`Outcome::Rejected`].
pub trait LanguageModel: Send + Sync {
    fn backend(&self) -> Backend;
    fn explore<'a>(&'a self, req: &'a ExploreRequest) -> RoleFuture<'a, Vec<SubtaskProposal>>;
    fn act<'a>(&'a self, req: &'a ActRequest) -> RoleFuture<'a, ActorStep>;
    fn code<'a>(&'a self, req: &'a CodeRequest) -> RoleFuture<'a, Vec<Check>>;
    fn plan<'a>(&'a self, req: &'a PlanRequest) -> RoleFuture<'a, Vec<Intent>>;
    fn summarize<'a>(&'a self, req: &'a SummarizeRequest) -> RoleFuture<'a, Summary>;
    fn reconstruct<'a>(&'a self, req: &'a ReconstructRequest) -> RoleFuture<'a, Vec<Edge>>;
}

/// A request of one role: its context serializes into the prompt template, and
/// `parse` validates the model's JSON into the result.
pub trait RoleRequest: Serialize + Send + Sync {
    type Output: Send;
    const ROLE: Role;
    /// A PNG screenshot to attach when the role's model is multimodal.
    fn image(&self) -> Option<&[u8]> {
        None
    }
    /// The typed result from the reply's JSON value, or a message saying what is
    /// wrong (it is sent back to the model on re-ask).
    fn parse(&self, value: Value) -> Result<Self::Output, String>;
    /// Fields the prompt shows as text rendered from typed data (name, text):
    /// they replace the serialized field of that name in the template context.
    fn rendered_fields(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
}

// ---------------------------------------------------------------------------
// Shared context pieces

/// A control of the current window, with the fields of OmniBench E.1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ControlInfo {
    pub label: String,
    pub control_text: String,
    pub control_type: String,
    #[serde(default)]
    pub parent_control_text: String,
    #[serde(default)]
    pub parent_control_type: String,
}

/// A resource kind offered to the explorer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceKindDoc {
    pub name: String,
    pub description: String,
}

/// One check API as the coder sees it. The caller builds the list from the
/// environment's own registry, so the prompt cannot drift from the code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiDoc {
    pub name: String,
    /// e.g. `check_file_exists(file_path: str) -> bool`
    pub signature: String,
    pub doc: String,
    /// A JSON check using this API, e.g. `{"api": "...", "args": {...}}`.
    pub example: String,
}

fn str_field<'a>(obj: &'a serde_json::Map<String, Value>, names: &[&str]) -> Option<&'a Value> {
    names.iter().find_map(|n| obj.get(*n))
}

fn as_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn expect_object(value: Value, what: &str) -> Result<serde_json::Map<String, Value>, String> {
    match value {
        Value::Object(m) => Ok(m),
        other => Err(format!(
            "expected a JSON object for {what}, got {}",
            kind_of(&other)
        )),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The list under `key` (or the value itself when the model sent a bare array).
fn list_under(value: Value, key: &str) -> Result<Vec<Value>, String> {
    match value {
        Value::Array(items) => Ok(items),
        Value::Object(mut m) => match m.remove(key) {
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(format!(
                "\"{key}\" must be an array, got {}",
                kind_of(&other)
            )),
            None => Err(format!("missing \"{key}\" array in the reply")),
        },
        other => Err(format!(
            "expected {{\"{key}\": [...]}}, got {}",
            kind_of(&other)
        )),
    }
}

// ---------------------------------------------------------------------------
// Explorer

/// An example subtask shown to the explorer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExampleSubtask {
    pub instruction_template: String,
    pub available_parameters: Vec<ParameterSet>,
    pub input_resources: Vec<String>,
    pub output_resources: Vec<String>,
}

/// Propose subtasks for one application.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExploreRequest {
    pub application: String,
    pub category: String,
    /// Free-text documentation of the application (what its screens do).
    pub docs: String,
    pub resource_kinds: Vec<ResourceKindDoc>,
    pub example_subtasks: Vec<ExampleSubtask>,
    pub observed_controls: Vec<ControlInfo>,
    /// Templates already in the pool for this application (to avoid duplicates).
    pub existing_templates: Vec<String>,
    pub max_subtasks: usize,
    /// Resources that hold on the initial desktop or are outputs of subtasks
    /// already proposed, with their actual parameters: input parameters should
    /// name one of these (that is how subtasks of different applications chain).
    #[serde(default)]
    pub known_resources: Vec<KnownResource>,
}

/// A resource the explorer may use as an input: its kind, actual parameter, and
/// where it comes from (`desktop` for the initial desktop, else the application
/// of the subtask that produces it).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct KnownResource {
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameter: Option<String>,
    pub source: String,
    /// Subtasks in the longest chain that makes it (0: on the initial desktop).
    #[serde(default)]
    pub depth: u32,
    /// How many applications' stored subtasks already read it: a file many
    /// applications read lets tasks fan out across them; one nobody reads yet
    /// ends every chain that makes it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub readers: u32,
    /// What the file or page shows, when that is declared (`"photo"`, `"home
    /// page"`, `"screen capture"`): an edit is proposed only on content it
    /// suits (a home page is not printed, a screen capture not captioned).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shows: Option<String>,
    /// The subtask that makes it also puts something on the clipboard ("save
    /// the recording, then copy its path"): a task that only uses the file
    /// leaves that copy unpasted, so the offline explorer does not gather it
    /// with others. Not sent to a model.
    #[serde(skip)]
    pub copied_beside: bool,
    /// The files packed into it, for an archive a stored subtask made of
    /// several: the offline explorer offers those first to what sends or
    /// files a file, since a zip is made to be handed on. Not sent to a model.
    #[serde(skip)]
    pub packs: u32,
    /// Every subtask that makes it only saves another file in a format that
    /// is no print (a text file saved as a Word document): a task that sends
    /// it could send the original, so the offline explorer does not gather it
    /// with others. Not sent to a model.
    #[serde(skip)]
    pub converted_only: bool,
    /// The named inputs (files, records) of the stored subtasks that make it:
    /// two files made from one (a ledger's chart, the ledger printed) are two
    /// things a person sends together. Not sent to a model.
    #[serde(skip)]
    pub made_from: Vec<String>,
}

impl KnownResource {
    /// A resource of `kind` made by `source` (or `desktop`) at `depth`, with
    /// nothing known yet of its readers, content or making.
    pub fn new(kind: &str, parameter: Option<String>, source: &str, depth: u32) -> KnownResource {
        KnownResource {
            kind: kind.to_string(),
            parameter,
            source: source.to_string(),
            depth,
            readers: 0,
            shows: None,
            copied_beside: false,
            packs: 0,
            converted_only: false,
            made_from: Vec::new(),
        }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A proposed subtask (OmniBench C.1 fields the explorer fills in).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubtaskProposal {
    pub instruction_template: String,
    pub available_parameters: Vec<ParameterSet>,
    pub input_resources: Vec<String>,
    pub output_resources: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProposal {
    instruction_template: String,
    #[serde(default)]
    available_parameters: Vec<ParameterSet>,
    #[serde(default)]
    input_resources: Vec<String>,
    #[serde(default)]
    output_resources: Vec<String>,
}

impl RoleRequest for ExploreRequest {
    type Output = Vec<SubtaskProposal>;
    const ROLE: Role = Role::Explorer;

    fn parse(&self, value: Value) -> Result<Self::Output, String> {
        let known: BTreeSet<&str> = self
            .resource_kinds
            .iter()
            .map(|k| k.name.as_str())
            .collect();
        let items = list_under(value, "subtasks")?;
        if items.is_empty() {
            return Err("\"subtasks\" is empty: propose at least one subtask".into());
        }
        let mut out = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            let raw: RawProposal =
                serde_json::from_value(item).map_err(|e| format!("subtasks[{i}]: {e}"))?;
            if raw.instruction_template.trim().is_empty() {
                return Err(format!("subtasks[{i}]: instruction_template is empty"));
            }
            let normalized = normalize(&raw.instruction_template);
            if self
                .existing_templates
                .iter()
                .chain(
                    out.iter()
                        .map(|p: &SubtaskProposal| &p.instruction_template),
                )
                .any(|t| normalize(t) == normalized)
            {
                return Err(format!(
                    "subtasks[{i}]: \"{}\" repeats an existing subtask",
                    raw.instruction_template
                ));
            }
            for slot in raw.input_resources.iter().chain(&raw.output_resources) {
                let (kind, _) = crate::resources::split_slot(slot);
                if !known.contains(kind) {
                    return Err(format!(
                        "subtasks[{i}]: unknown resource kind '{kind}' (use only the listed kinds)"
                    ));
                }
            }
            let holes = crate::model::placeholders(&raw.instruction_template);
            if !holes.is_empty() && raw.available_parameters.is_empty() {
                return Err(format!(
                    "subtasks[{i}]: the template has placeholders {holes:?} but available_parameters is empty"
                ));
            }
            for (j, params) in raw.available_parameters.iter().enumerate() {
                if let Some(missing) = holes.iter().find(|h| !params.contains_key(h.as_str())) {
                    return Err(format!(
                        "subtasks[{i}].available_parameters[{j}]: no value for placeholder '{{{missing}}}'"
                    ));
                }
            }
            out.push(SubtaskProposal {
                instruction_template: raw.instruction_template,
                available_parameters: raw.available_parameters,
                input_resources: raw.input_resources,
                output_resources: raw.output_resources,
            });
        }
        Ok(out)
    }
}

/// Lower case, single spaces, no trailing full stop: how templates are compared.
fn normalize(template: &str) -> String {
    template
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches('.')
        .to_lowercase()
}

// ---------------------------------------------------------------------------
// Actor (OmniBench E.1)

/// One earlier step, as shown in the actor's step history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryStep {
    pub thought: String,
    pub action: Action,
}

/// Choose the next action for a subtask instruction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActRequest {
    pub instruction: String,
    pub window_title: String,
    pub controls: Vec<ControlInfo>,
    pub history: Vec<HistoryStep>,
    /// What went wrong last round, if anything (rendered in the prompt).
    pub feedback: Option<ActorFeedback>,
    /// PNG bytes of the current screenshot, every control boxed with its label
    /// (set-of-marks), sent when the actor's model is multimodal.
    #[serde(skip)]
    pub screenshot: Option<Vec<u8>>,
}

/// E.1 `Status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum StepStatus {
    Continue,
    Finish,
}

/// The actor's answer for one step (E.1 fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActorStep {
    pub status: StepStatus,
    pub observation: String,
    pub thought: String,
    /// `None` when the status is FINISH (E.1: control and function empty).
    pub action: Option<Action>,
}

/// The action functions the actor may name (OmniBench table 10).
pub const ACTION_FUNCTIONS: [&str; 3] = ["click_input", "wheel_mouse_input", "keyboard_input"];

impl RoleRequest for ActRequest {
    type Output = ActorStep;
    const ROLE: Role = Role::Actor;

    fn image(&self) -> Option<&[u8]> {
        self.screenshot.as_deref()
    }

    fn rendered_fields(&self) -> Vec<(&'static str, String)> {
        self.feedback
            .iter()
            .map(|f| ("feedback", f.render()))
            .collect()
    }

    fn parse(&self, value: Value) -> Result<ActorStep, String> {
        let obj = expect_object(value, "the step")?;
        let status = match as_text(str_field(&obj, &["Status", "status"]))
            .trim()
            .to_ascii_uppercase()
            .as_str()
        {
            "CONTINUE" => StepStatus::Continue,
            "FINISH" => StepStatus::Finish,
            other => {
                return Err(format!(
                    "\"Status\" must be \"CONTINUE\" or \"FINISH\", got \"{other}\""
                ))
            }
        };
        let observation = as_text(str_field(&obj, &["Observation", "observation"]));
        let thought = as_text(str_field(&obj, &["Thought", "thought"]));
        let label = as_text(str_field(&obj, &["ControlLabel", "control_label"]));
        let text = as_text(str_field(&obj, &["ControlText", "control_text"]));
        let function = as_text(str_field(&obj, &["Function", "function"]));
        let args = match str_field(&obj, &["Args", "args"]) {
            None | Some(Value::Null) => Value::Object(Default::default()),
            Some(Value::String(s)) if s.trim().is_empty() => Value::Object(Default::default()),
            Some(Value::String(s)) => serde_json::from_str(s)
                .map_err(|e| format!("\"Args\" is a string that is not a JSON object: {e}"))?,
            Some(v) => v.clone(),
        };
        if status == StepStatus::Finish && function.trim().is_empty() {
            return Ok(ActorStep {
                status,
                observation,
                thought,
                action: None,
            });
        }
        if !ACTION_FUNCTIONS.contains(&function.as_str()) {
            return Err(format!(
                "unknown \"Function\" \"{function}\": use one of {}",
                ACTION_FUNCTIONS.join(", ")
            ));
        }
        let control = self
            .controls
            .iter()
            .find(|c| c.label == label.trim())
            .ok_or_else(|| {
                format!(
                    "\"ControlLabel\" \"{label}\" is not a label of the available control items"
                )
            })?;
        if !text.is_empty() && text != control.control_text {
            return Err(format!(
                "\"ControlText\" \"{text}\" does not match control {} whose control_text is \"{}\"",
                control.label, control.control_text
            ));
        }
        let call: ActionCall = serde_json::from_value(serde_json::json!({
            "function": function,
            "args": args,
        }))
        .map_err(|e| format!("\"Args\" do not fit {function}: {e}"))?;
        Ok(ActorStep {
            status,
            observation,
            thought,
            action: Some(Action {
                call,
                control_label: Some(control.label.clone()),
                control_text: control.control_text.clone(),
            }),
        })
    }
}

// ---------------------------------------------------------------------------
// Coder (OmniBench E.2)

/// Write the checks that decide whether a subtask was done.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodeRequest {
    pub instruction_template: String,
    pub application: String,
    pub os: String,
    pub parameters: Vec<ParameterSet>,
    /// Control texts seen while the subtask was performed.
    pub controls_seen: Vec<String>,
    /// Evidence from the last round (checks that failed, texts that never
    /// appeared), rendered in the prompt.
    pub feedback: Option<CoderFeedback>,
    /// The check APIs, from the environment's registry.
    pub apis: Vec<ApiDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    api: String,
    #[serde(default)]
    args: serde_json::Map<String, Value>,
    #[serde(default = "yes")]
    expect: bool,
    #[serde(default)]
    message: Option<String>,
}

fn yes() -> bool {
    true
}

impl RoleRequest for CodeRequest {
    type Output = Vec<Check>;
    const ROLE: Role = Role::Coder;

    fn rendered_fields(&self) -> Vec<(&'static str, String)> {
        self.feedback
            .iter()
            .map(|f| ("feedback", f.render()))
            .collect()
    }

    fn parse(&self, value: Value) -> Result<Vec<Check>, String> {
        let items = list_under(value, "checks")?;
        if items.is_empty() {
            return Err("\"checks\" is empty: write at least one check".into());
        }
        let names: Vec<&str> = self.apis.iter().map(|a| a.name.as_str()).collect();
        let mut out = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            let raw: RawCheck =
                serde_json::from_value(item).map_err(|e| format!("checks[{i}]: {e}"))?;
            if !names.contains(&raw.api.as_str()) {
                return Err(format!(
                    "checks[{i}]: unknown check API '{}'; available: {}",
                    raw.api,
                    names.join(", ")
                ));
            }
            let call: CheckCall = serde_json::from_value(serde_json::json!({
                "api": raw.api,
                "args": raw.args,
            }))
            .map_err(|e| format!("checks[{i}]: arguments do not fit {}: {e}", raw.api))?;
            if call.args().iter().any(|a| a.trim().is_empty()) {
                return Err(format!("checks[{i}]: {} has an empty argument", raw.api));
            }
            out.push(Check {
                call,
                expect: raw.expect,
                message: raw.message.filter(|m| !m.trim().is_empty()),
            });
        }
        Ok(out)
    }
}

// ---------------------------------------------------------------------------
// Planner

/// A verified subtask as the planner sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanSubtask {
    pub id: String,
    pub application: String,
    pub category: String,
    pub instruction: String,
    pub input_resources: Vec<String>,
    pub output_resources: Vec<String>,
}

/// Group subtasks into task intents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanRequest {
    pub subtasks: Vec<PlanSubtask>,
    /// Intents already made (to avoid repeats).
    pub existing_intents: Vec<String>,
    /// Most intents to propose; `None`: as many as the subtasks support.
    pub max_intents: Option<usize>,
}

/// A high-level goal anchoring a set of subtasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Intent {
    pub intent: String,
    pub subtask_ids: Vec<String>,
}

impl RoleRequest for PlanRequest {
    type Output = Vec<Intent>;
    const ROLE: Role = Role::Planner;

    fn parse(&self, value: Value) -> Result<Vec<Intent>, String> {
        let known: BTreeSet<&str> = self.subtasks.iter().map(|s| s.id.as_str()).collect();
        let items = list_under(value, "intents")?;
        if items.is_empty() {
            return Err("\"intents\" is empty".into());
        }
        let mut out = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            let intent: Intent =
                serde_json::from_value(item).map_err(|e| format!("intents[{i}]: {e}"))?;
            if intent.intent.trim().is_empty() {
                return Err(format!("intents[{i}]: \"intent\" is empty"));
            }
            if intent.subtask_ids.is_empty() {
                return Err(format!("intents[{i}]: \"subtask_ids\" is empty"));
            }
            if let Some(bad) = intent
                .subtask_ids
                .iter()
                .find(|id| !known.contains(id.as_str()))
            {
                return Err(format!("intents[{i}]: unknown subtask id '{bad}'"));
            }
            out.push(intent);
        }
        Ok(out)
    }
}

// ---------------------------------------------------------------------------
// Summarizer

/// A node of the task graph as the summarizer sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryNode {
    pub id: String,
    pub application: String,
    pub instruction: String,
}

/// Summarize a task graph into instructions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummarizeRequest {
    pub intent: String,
    /// Why the task is done ([`crate::model::Task::purpose`]), which opens the
    /// instruction when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purpose: Option<String>,
    pub nodes: Vec<SummaryNode>,
    /// `(before, after)` pairs of node ids.
    pub edges: Vec<(String, String)>,
    /// The previous attempt's instruction and what the reconstruction got wrong.
    pub previous_instruction: Option<String>,
    pub discrepancy: Option<String>,
}

/// The summarizer's result (C.4 `task_instruction`, `low_level_instruction`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub task_instruction: String,
    pub low_level_instruction: String,
}

impl RoleRequest for SummarizeRequest {
    type Output = Summary;
    const ROLE: Role = Role::Summarizer;

    fn parse(&self, value: Value) -> Result<Summary, String> {
        let summary: Summary = serde_json::from_value(value).map_err(|e| e.to_string())?;
        if summary.task_instruction.trim().is_empty() {
            return Err("\"task_instruction\" is empty".into());
        }
        if summary.low_level_instruction.trim().is_empty() {
            return Err("\"low_level_instruction\" is empty".into());
        }
        Ok(summary)
    }
}

// ---------------------------------------------------------------------------
// Reconstructor

/// A subtask under a neutral id, without any hint of its position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NeutralSubtask {
    pub id: String,
    pub instruction: String,
}

/// Recover the dependencies from an instruction alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReconstructRequest {
    pub instruction: String,
    pub subtasks: Vec<NeutralSubtask>,
}

/// `from` must be done before `to`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Edge {
    pub from: String,
    pub to: String,
}

impl RoleRequest for ReconstructRequest {
    type Output = Vec<Edge>;
    const ROLE: Role = Role::Reconstructor;

    fn parse(&self, value: Value) -> Result<Vec<Edge>, String> {
        let known: BTreeSet<&str> = self.subtasks.iter().map(|s| s.id.as_str()).collect();
        let items = list_under(value, "edges")?;
        let mut out = BTreeSet::new();
        for (i, item) in items.into_iter().enumerate() {
            let edge = match item {
                Value::Array(pair) if pair.len() == 2 => Edge {
                    from: as_text(pair.first()),
                    to: as_text(pair.get(1)),
                },
                Value::Object(m) => Edge {
                    from: as_text(str_field(&m, &["from", "before"])),
                    to: as_text(str_field(&m, &["to", "after"])),
                },
                other => {
                    return Err(format!(
                    "edges[{i}]: expected [\"from\", \"to\"] or {{\"from\":..,\"to\":..}}, got {}",
                    kind_of(&other)
                ))
                }
            };
            for id in [&edge.from, &edge.to] {
                if !known.contains(id.as_str()) {
                    return Err(format!("edges[{i}]: unknown subtask id '{id}'"));
                }
            }
            if edge.from == edge.to {
                return Err(format!("edges[{i}]: a subtask cannot depend on itself"));
            }
            out.insert(edge);
        }
        Ok(out.into_iter().collect())
    }
}

/// The registry of the 11 check APIs, built from
/// [`CheckCall`]'s variants. The environment owns the authoritative registry; this
/// one serves tests and callers that have no environment at hand.
pub fn model_check_api_docs() -> Vec<ApiDoc> {
    let calls = [
        (
            CheckCall::CheckMouseClicks {
                text: "Save".into(),
            },
            "text: str",
            "True if the mouse clicked a control whose text is `text`.",
        ),
        (
            CheckCall::CheckKeyboardTypes {
                text: "Hello, World!".into(),
            },
            "text: str",
            "True if the keyboard typed `text`.",
        ),
        (
            CheckCall::CheckKeyPresses { keys: "^s".into() },
            "keys: str",
            "True if the key combination `keys` (pywinauto notation) was pressed.",
        ),
        (
            CheckCall::CheckFileExists {
                file_path: "{file_path}".into(),
            },
            "file_path: str",
            "True if the file exists.",
        ),
        (
            CheckCall::CheckDirExists {
                dir_path: "/home/user/Documents/Project Files".into(),
            },
            "dir_path: str",
            "True if the directory exists.",
        ),
        (
            CheckCall::CheckFileContains {
                file_path: "{file_path}".into(),
                text: "Total".into(),
            },
            "file_path: str, text: str",
            "True if the file exists and its content contains `text`.",
        ),
        (
            CheckCall::CheckClipboardContains {
                text: "Total".into(),
            },
            "text: str",
            "True if the clipboard contains `text`.",
        ),
        (
            CheckCall::CheckTextExistsViaControl {
                text: "print(\"Hello World!\")".into(),
            },
            "text: str",
            "True if `text` is shown by a control of the last observation.",
        ),
        (
            CheckCall::CheckTextExistsViaOcr {
                text: "9:00 AM".into(),
            },
            "text: str",
            "True if `text` is readable in the last screenshot (OCR).",
        ),
        (
            CheckCall::CheckTextExists {
                text: "Project Files".into(),
            },
            "text: str",
            "True if `text` is visible in the last observation, by control or OCR.",
        ),
        (
            CheckCall::CheckWindowOpen {
                title: "Settings".into(),
            },
            "title: str",
            "True if a window whose title contains `title` is open.",
        ),
    ];
    calls
        .into_iter()
        .map(|(call, params, doc)| {
            let name = call.api_name().to_string();
            let example = serde_json::to_string(&Check {
                call,
                expect: true,
                message: None,
            })
            .unwrap_or_default();
            ApiDoc {
                signature: format!("{name}({params}) -> bool"),
                name,
                doc: doc.to_string(),
                example,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn act_req() -> ActRequest {
        ActRequest {
            instruction: "Save the document".into(),
            window_title: "Writer".into(),
            controls: vec![ControlInfo {
                label: "3".into(),
                control_text: "Save".into(),
                control_type: "Button".into(),
                ..ControlInfo::default()
            }],
            history: vec![],
            feedback: None,
            screenshot: None,
        }
    }

    #[test]
    fn actor_step_parses_e1_fields() {
        let step = act_req()
            .parse(json!({"Status":"CONTINUE","Observation":"o","Thought":"t",
                "ControlLabel":3,"ControlText":"Save","Function":"click_input",
                "Args":{"button":"left","double":false}}))
            .unwrap();
        let action = step.action.unwrap();
        assert_eq!(action.call.function_name(), "click_input");
        assert_eq!(action.control_label.as_deref(), Some("3"));
    }

    #[test]
    fn actor_unknown_function_fails() {
        let err = act_req()
            .parse(json!({"Status":"CONTINUE","ControlLabel":"3","Function":"drag","Args":{}}))
            .unwrap_err();
        assert!(err.contains("unknown \"Function\" \"drag\""), "{err}");
    }

    #[test]
    fn actor_finish_has_no_action() {
        let step = act_req()
            .parse(json!({"Status":"FINISH","ControlLabel":"","Function":"","Args":{}}))
            .unwrap();
        assert_eq!(step.status, StepStatus::Finish);
        assert!(step.action.is_none());
    }

    fn code_req() -> CodeRequest {
        CodeRequest {
            instruction_template: "Delete '{file_path}'".into(),
            application: "Files".into(),
            os: "Linux".into(),
            parameters: vec![],
            controls_seen: vec![],
            feedback: None,
            apis: model_check_api_docs(),
        }
    }

    #[test]
    fn check_with_unknown_api_fails() {
        let err = code_req()
            .parse(json!({"checks":[{"api":"check_magic","args":{"text":"x"}}]}))
            .unwrap_err();
        assert!(err.contains("unknown check API 'check_magic'"), "{err}");
    }

    #[test]
    fn checks_parse_into_model_checks() {
        let checks = code_req()
            .parse(
                json!({"checks":[{"api":"check_file_exists","args":{"file_path":"{file_path}"},
                "expect": false, "message": "file still there"}]}),
            )
            .unwrap();
        assert!(!checks[0].expect);
        assert_eq!(checks[0].call.api_name(), "check_file_exists");
    }

    #[test]
    fn registry_covers_the_eleven_apis_and_examples_parse() {
        let docs = model_check_api_docs();
        assert_eq!(docs.len(), 11);
        for d in &docs {
            let c: Check = serde_json::from_str(&d.example).unwrap();
            assert_eq!(c.call.api_name(), d.name);
        }
    }

    #[test]
    fn reconstruct_accepts_pairs_and_rejects_unknown_ids() {
        let req = ReconstructRequest {
            instruction: "i".into(),
            subtasks: vec![
                NeutralSubtask {
                    id: "A".into(),
                    instruction: "a".into(),
                },
                NeutralSubtask {
                    id: "B".into(),
                    instruction: "b".into(),
                },
            ],
        };
        let edges = req.parse(json!({"edges":[["A","B"]]})).unwrap();
        assert_eq!(
            edges,
            vec![Edge {
                from: "A".into(),
                to: "B".into()
            }]
        );
        assert!(req.parse(json!({"edges":[["A","C"]]})).is_err());
    }

    #[test]
    fn explorer_rejects_unknown_kind_and_missing_parameter() {
        let req = ExploreRequest {
            application: "Sheets".into(),
            category: "Office".into(),
            docs: String::new(),
            resource_kinds: vec![ResourceKindDoc {
                name: "xlsx_path".into(),
                description: "a spreadsheet".into(),
            }],
            example_subtasks: vec![],
            observed_controls: vec![],
            existing_templates: vec![],
            max_subtasks: 5,
            known_resources: vec![],
        };
        let err = req
            .parse(
                json!({"subtasks":[{"instruction_template":"Open {xlsx_path}",
                "available_parameters":[{"xlsx_path":"/a.xlsx"}],"input_resources":["pdf_path"]}]}),
            )
            .unwrap_err();
        assert!(err.contains("unknown resource kind 'pdf_path'"), "{err}");
        let err = req
            .parse(
                json!({"subtasks":[{"instruction_template":"Open {xlsx_path}",
                "available_parameters":[{"other":"x"}]}]}),
            )
            .unwrap_err();
        assert!(err.contains("no value for placeholder"), "{err}");
        let req = ExploreRequest {
            existing_templates: vec!["Open {xlsx_path}.".into()],
            ..req
        };
        let err = req
            .parse(
                json!({"subtasks":[{"instruction_template":"open  {xlsx_path}",
                "available_parameters":[{"xlsx_path":"/a.xlsx"}]}]}),
            )
            .unwrap_err();
        assert!(err.contains("repeats an existing subtask"), "{err}");
    }
}
