//! The data model: subtasks, trajectories, evaluations, tasks and task trajectories.
//!
//! Field names follow OmniBench appendix C exactly where it defines them
//! (`instruction_template`, `available_parameters`, `OS`, `successful_topo`, ...).
//! Everything here is plain serde data: no I/O, no model calls, nothing executable.
//! The store persists these types as JSON; the pool and task JSONL files are their
//! serializations.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// A subtask's UUID (as a string, so foreign ids round-trip unchanged).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SubtaskId(pub String);

/// A task's id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TaskId(pub String);

impl fmt::Display for SubtaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One valid combination of parameters for a subtask's template.
/// A `BTreeMap` so serialization is deterministic.
pub type ParameterSet = BTreeMap<String, String>;

/// Lifecycle of a subtask in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SubtaskStatus {
    #[default]
    Proposed,
    Verified,
    Rejected,
}

crate::store::status::text_enum!(SubtaskStatus, "subtask status" {
    Proposed => "proposed",
    Verified => "verified",
    Rejected => "rejected",
});

/// Where a record came from: which backend and model made it, from which prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Provenance {
    /// `offline`, `openai`, `replay`, or `hand-written`.
    pub backend: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_hash: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Subtask metadata (OmniBench C.1) plus synth's own fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Subtask {
    pub id: SubtaskId,
    pub instruction_template: String,
    pub application: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(rename = "OS")]
    pub os: String,
    pub available_parameters: Vec<ParameterSet>,
    pub input_resources: Vec<String>,
    pub output_resources: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluation: Option<Evaluation>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trajectories: Vec<SubtaskTrajectory>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
}

impl Subtask {
    /// The placeholders `{name}` that occur in the template, in order of first use.
    pub fn placeholders(&self) -> Vec<String> {
        placeholders(&self.instruction_template)
    }

    /// The template instantiated with parameter set `index`; `None` if out of range.
    pub fn instruction(&self, index: usize) -> Option<String> {
        self.available_parameters
            .get(index)
            .map(|params| fill_placeholders(&self.instruction_template, params))
    }

    /// The actual parameter of resource `kind` in parameter set `index`, if any.
    /// The value of parameter `name` in parameter set `index` (a resource slot's
    /// parameter: see `resources::split_slot`).
    pub fn resource_parameter(&self, name: &str, index: usize) -> Option<&str> {
        self.available_parameters
            .get(index)
            .and_then(|p| p.get(name))
            .map(String::as_str)
    }
}

/// The `{name}` placeholders of a template, in order of first use, without repeats.
/// `{{` and `}}` are literal braces.
pub fn placeholders(template: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let bytes = template.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' if bytes.get(i + 1) == Some(&b'{') => i += 2,
            b'{' => {
                if let Some(end) = template[i + 1..].find('}') {
                    let name = &template[i + 1..i + 1 + end];
                    if is_placeholder_name(name) && !out.iter().any(|n| n == name) {
                        out.push(name.to_string());
                    }
                    i += end + 2;
                } else {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    out
}

fn is_placeholder_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Replaces every `{name}` with `params[name]`; unknown placeholders stay as written.
pub fn fill_placeholders(template: &str, params: &ParameterSet) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        if let Some(stripped) = after.strip_prefix('{') {
            out.push('{');
            rest = stripped;
            continue;
        }
        match after.find('}') {
            Some(end) if is_placeholder_name(&after[..end]) => {
                let name = &after[..end];
                match params.get(name) {
                    Some(value) => out.push_str(value),
                    None => {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[end + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(&rest.replace("}}", "}"));
    out
}

/// An action in OmniBench's desktop action space (table 10), as `function` + `args`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "function", content = "args", rename_all = "snake_case")]
pub enum ActionCall {
    /// Mouse click on a control; `button` is left, right, middle or x.
    ClickInput {
        #[serde(default = "default_button")]
        button: String,
        #[serde(default)]
        double: bool,
    },
    /// Vertical scroll; positive `wheel_dist` scrolls down.
    WheelMouseInput { wheel_dist: i32 },
    /// Typing and key combos in pywinauto notation (`^s`, `{ENTER}`).
    KeyboardInput { keys: String },
}

fn default_button() -> String {
    "left".to_string()
}

impl ActionCall {
    pub fn function_name(&self) -> &'static str {
        match self {
            ActionCall::ClickInput { .. } => "click_input",
            ActionCall::WheelMouseInput { .. } => "wheel_mouse_input",
            ActionCall::KeyboardInput { .. } => "keyboard_input",
        }
    }
}

/// An action aimed at a control, as an agent issues it to an environment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Action {
    #[serde(flatten)]
    pub call: ActionCall,
    /// The control's label in the observation it was chosen from (E.1 `ControlLabel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_label: Option<String>,
    /// The control's text (E.1 `ControlText`); used to find the control when the
    /// label is absent or stale.
    #[serde(default)]
    pub control_text: String,
}

/// One recorded step of a trajectory (OmniBench C.2 `actions[]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrajectoryAction {
    #[serde(flatten)]
    pub call: ActionCall,
    /// `[left, top, right, bottom]` of the control acted on, in screenshot pixels.
    #[serde(default)]
    pub rect: [i32; 4],
    /// What the screen shows before the action: the window in front and the
    /// controls and field values that matter for it (the step's observation).
    #[serde(default)]
    pub description: String,
    /// Why the step is taken: the part of the goal it serves.
    #[serde(default)]
    pub thought: String,
    /// What the action did, as the environment reported it ("Saved ..."). Known
    /// only after the action, so no exporter shows it as the observation.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub effect: String,
    #[serde(default)]
    pub control_text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_label: Option<String>,
}

impl TrajectoryAction {
    /// A left click (a double click when `double`) on the control `text`, with
    /// no position, observation or thought: a step written by hand.
    pub fn click(text: &str, double: bool) -> TrajectoryAction {
        TrajectoryAction {
            call: ActionCall::ClickInput {
                button: "left".into(),
                double,
            },
            rect: [0; 4],
            description: String::new(),
            thought: String::new(),
            effect: String::new(),
            control_text: text.into(),
            control_label: None,
        }
    }

    /// The action to replay this step in an environment.
    pub fn to_action(&self) -> Action {
        Action {
            call: self.call.clone(),
            control_label: self.control_label.clone(),
            control_text: self.control_text.clone(),
        }
    }
}

/// A subtask trajectory (OmniBench C.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubtaskTrajectory {
    pub trajectory_id: String,
    pub instruction: String,
    pub observations: Vec<String>,
    pub actions: Vec<TrajectoryAction>,
    pub subtask_id: SubtaskId,
    /// Which entry of the subtask's `available_parameters` this trajectory instantiates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameter_index: Option<usize>,
}

/// One of the 11 check APIs with its arguments. Arguments may hold
/// `{placeholders}` that are filled from the parameter set before evaluation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "api", content = "args", rename_all = "snake_case")]
pub enum CheckCall {
    CheckMouseClicks { text: String },
    CheckKeyboardTypes { text: String },
    CheckKeyPresses { keys: String },
    CheckFileExists { file_path: String },
    CheckDirExists { dir_path: String },
    CheckFileContains { file_path: String, text: String },
    CheckClipboardContains { text: String },
    CheckTextExistsViaControl { text: String },
    CheckTextExistsViaOcr { text: String },
    CheckTextExists { text: String },
    CheckWindowOpen { title: String },
}

impl CheckCall {
    pub fn api_name(&self) -> &'static str {
        match self {
            CheckCall::CheckMouseClicks { .. } => "check_mouse_clicks",
            CheckCall::CheckKeyboardTypes { .. } => "check_keyboard_types",
            CheckCall::CheckKeyPresses { .. } => "check_key_presses",
            CheckCall::CheckFileExists { .. } => "check_file_exists",
            CheckCall::CheckDirExists { .. } => "check_dir_exists",
            CheckCall::CheckFileContains { .. } => "check_file_contains",
            CheckCall::CheckClipboardContains { .. } => "check_clipboard_contains",
            CheckCall::CheckTextExistsViaControl { .. } => "check_text_exists_via_control",
            CheckCall::CheckTextExistsViaOcr { .. } => "check_text_exists_via_ocr",
            CheckCall::CheckTextExists { .. } => "check_text_exists",
            CheckCall::CheckWindowOpen { .. } => "check_window_open",
        }
    }

    /// The string arguments, in signature order.
    pub fn args(&self) -> Vec<&str> {
        match self {
            CheckCall::CheckMouseClicks { text }
            | CheckCall::CheckKeyboardTypes { text }
            | CheckCall::CheckClipboardContains { text }
            | CheckCall::CheckTextExistsViaControl { text }
            | CheckCall::CheckTextExistsViaOcr { text }
            | CheckCall::CheckTextExists { text } => vec![text],
            CheckCall::CheckKeyPresses { keys } => vec![keys],
            CheckCall::CheckFileExists { file_path } => vec![file_path],
            CheckCall::CheckDirExists { dir_path } => vec![dir_path],
            CheckCall::CheckFileContains { file_path, text } => vec![file_path, text],
            CheckCall::CheckWindowOpen { title } => vec![title],
        }
    }

    /// A copy with every argument's `{placeholders}` filled from `params`.
    pub fn instantiate(&self, params: &ParameterSet) -> CheckCall {
        let f = |s: &String| fill_placeholders(s, params);
        match self {
            CheckCall::CheckMouseClicks { text } => CheckCall::CheckMouseClicks { text: f(text) },
            CheckCall::CheckKeyboardTypes { text } => {
                CheckCall::CheckKeyboardTypes { text: f(text) }
            }
            CheckCall::CheckKeyPresses { keys } => CheckCall::CheckKeyPresses { keys: f(keys) },
            CheckCall::CheckFileExists { file_path } => CheckCall::CheckFileExists {
                file_path: f(file_path),
            },
            CheckCall::CheckDirExists { dir_path } => CheckCall::CheckDirExists {
                dir_path: f(dir_path),
            },
            CheckCall::CheckFileContains { file_path, text } => CheckCall::CheckFileContains {
                file_path: f(file_path),
                text: f(text),
            },
            CheckCall::CheckClipboardContains { text } => {
                CheckCall::CheckClipboardContains { text: f(text) }
            }
            CheckCall::CheckTextExistsViaControl { text } => {
                CheckCall::CheckTextExistsViaControl { text: f(text) }
            }
            CheckCall::CheckTextExistsViaOcr { text } => {
                CheckCall::CheckTextExistsViaOcr { text: f(text) }
            }
            CheckCall::CheckTextExists { text } => CheckCall::CheckTextExists { text: f(text) },
            CheckCall::CheckWindowOpen { title } => CheckCall::CheckWindowOpen { title: f(title) },
        }
    }
}

/// One check of an evaluation: an API call, whether it must hold, and the message
/// reported when it does not.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Check {
    #[serde(flatten)]
    pub call: CheckCall,
    /// `false` negates the check (the old name must no longer exist after a rename).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub expect: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// A subtask evaluation (OmniBench C.3) as data: checks evaluated in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Evaluation {
    pub checks: Vec<Check>,
}

/// The result of evaluating a check list (C.3 `EvalResult`): the first failing check
/// decides `message`, and `progress` = checks passed before it / total.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalResult {
    pub success: bool,
    pub message: String,
    pub progress: f64,
    pub passed: usize,
    pub total: usize,
}

/// The task graph (C.4 `dag`): node ids and an adjacency map (every node is a key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Dag {
    pub nodes: Vec<String>,
    pub edges: BTreeMap<String, Vec<String>>,
}

impl Dag {
    /// The edges as (from, to) positions in `nodes`, or the first edge (from, to)
    /// that names a node not in `nodes`.
    pub fn edge_positions(&self) -> Result<Vec<(usize, usize)>, (&str, &str)> {
        let index: BTreeMap<&str, usize> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let mut edges = Vec::new();
        for (from, tos) in &self.edges {
            for to in tos {
                match (index.get(from.as_str()), index.get(to.as_str())) {
                    (Some(&a), Some(&b)) => edges.push((a, b)),
                    _ => return Err((from, to)),
                }
            }
        }
        Ok(edges)
    }
}

/// A node of a composed task: which instantiated subtask it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskNode {
    pub subtask_id: SubtaskId,
    pub parameter_index: usize,
    pub application: String,
    pub category: String,
    pub instruction: String,
}

/// A complexity level of one dimension (OmniBench table 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Easy,
    Medium,
    Hard,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Easy, Level::Medium, Level::Hard];

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "easy" => Ok(Level::Easy),
            "medium" => Ok(Level::Medium),
            "hard" => Ok(Level::Hard),
            other => Err(format!(
                "unknown level '{other}' (expected easy, medium or hard)"
            )),
        }
    }
}

/// The five complexity dimensions (OmniBench section 3.1, table 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dimension {
    /// Number of edges.
    Dependency,
    /// Number of nodes.
    Instruction,
    /// Number of distinct application categories.
    Knowledge,
    /// Depth: nodes on the longest path.
    Hierarchy,
    /// Width: the maximum antichain.
    Branch,
}

impl Dimension {
    pub const ALL: [Dimension; 5] = [
        Dimension::Dependency,
        Dimension::Instruction,
        Dimension::Knowledge,
        Dimension::Hierarchy,
        Dimension::Branch,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Dimension::Dependency => "dependency",
            Dimension::Instruction => "instruction",
            Dimension::Knowledge => "knowledge",
            Dimension::Hierarchy => "hierarchy",
            Dimension::Branch => "branch",
        }
    }

    /// The level of a measured value: table 2's thresholds. Dependency and
    /// knowledge: easy ≤1, medium 2–3, hard ≥4; instruction, hierarchy and branch:
    /// easy ≤2, medium 3–4, hard ≥5.
    pub fn level_of(self, value: usize) -> Level {
        let (_, easy_max) = self.range_of(Level::Easy);
        let (_, medium_max) = self.range_of(Level::Medium);
        if value <= easy_max {
            Level::Easy
        } else if value <= medium_max {
            Level::Medium
        } else {
            Level::Hard
        }
    }

    /// The inclusive value range of `level` (hard is open above: `usize::MAX`).
    pub fn range_of(self, level: Level) -> (usize, usize) {
        let (easy_max, medium_max) = match self {
            Dimension::Dependency | Dimension::Knowledge => (1, 3),
            Dimension::Instruction | Dimension::Hierarchy | Dimension::Branch => (2, 4),
        };
        match level {
            Level::Easy => (0, easy_max),
            Level::Medium => (easy_max + 1, medium_max),
            Level::Hard => (medium_max + 1, usize::MAX),
        }
    }
}

impl fmt::Display for Dimension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Dimension {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Dimension::ALL
            .into_iter()
            .find(|d| d.as_str() == s)
            .ok_or_else(|| format!("unknown complexity dimension '{s}'"))
    }
}

/// The level of each dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Levels {
    pub dependency: Level,
    pub instruction: Level,
    pub knowledge: Level,
    pub hierarchy: Level,
    pub branch: Level,
}

impl Levels {
    /// The same level in every dimension.
    pub fn uniform(l: Level) -> Levels {
        Levels {
            dependency: l,
            instruction: l,
            knowledge: l,
            hierarchy: l,
            branch: l,
        }
    }

    pub fn get(&self, d: Dimension) -> Level {
        match d {
            Dimension::Dependency => self.dependency,
            Dimension::Instruction => self.instruction,
            Dimension::Knowledge => self.knowledge,
            Dimension::Hierarchy => self.hierarchy,
            Dimension::Branch => self.branch,
        }
    }
}

/// The five measured numbers of a task graph and their levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Complexity {
    pub dependency: usize,
    pub instruction: usize,
    pub knowledge: usize,
    pub hierarchy: usize,
    pub branch: usize,
    pub levels: Levels,
}

impl Complexity {
    /// Builds the record from the five measures, deriving the levels.
    pub fn from_measures(
        dependency: usize,
        instruction: usize,
        knowledge: usize,
        hierarchy: usize,
        branch: usize,
    ) -> Complexity {
        Complexity {
            dependency,
            instruction,
            knowledge,
            hierarchy,
            branch,
            levels: Levels {
                dependency: Dimension::Dependency.level_of(dependency),
                instruction: Dimension::Instruction.level_of(instruction),
                knowledge: Dimension::Knowledge.level_of(knowledge),
                hierarchy: Dimension::Hierarchy.level_of(hierarchy),
                branch: Dimension::Branch.level_of(branch),
            },
        }
    }

    pub fn value(&self, d: Dimension) -> usize {
        match d {
            Dimension::Dependency => self.dependency,
            Dimension::Instruction => self.instruction,
            Dimension::Knowledge => self.knowledge,
            Dimension::Hierarchy => self.hierarchy,
            Dimension::Branch => self.branch,
        }
    }
}

/// How a task was composed: enough to tell dataset versions apart and to redo it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Composition {
    pub profile: String,
    pub seed: u64,
    pub version: u32,
    /// The composition request as given (levels, ranges, capability), for the record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<serde_json::Value>,
}

/// One attempt of validation (summarize, reconstruct, compare).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidationAttempt {
    pub attempt: u32,
    pub task_instruction: String,
    pub reconstructed_edges: Vec<(String, String)>,
    pub passed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discrepancy: Option<String>,
}

/// A task (OmniBench C.4) with synth's additions. Only the four
/// fields of C.4 are required when reading; everything else is optional.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<TaskId>,
    pub task_instruction: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low_level_instruction: Option<String>,
    pub dag: Dag,
    pub task_intent: String,
    /// Why the task is done ("for the summer trip", "to keep the household
    /// accounts in order"): its topic's or scenario's purpose, which opens the
    /// intent and the natural instruction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purpose: Option<String>,
    pub successful_topo: Vec<Vec<String>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub nodes: BTreeMap<String, TaskNode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topo_count: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topo_truncated: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cs_max: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complexity: Option<Complexity>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_map_level: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub composition: Option<Composition>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub validation: Vec<ValidationAttempt>,
    /// What a reader would object to, measured when the task is validated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<Quality>,
}

/// A task's quality flags: what OmniBench's annotators judged, as far as it can be
/// measured without a reader (`pipeline::quality` computes them). A flag missing
/// from a stored record reads as not passed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Quality {
    /// Every quoted value of the intent belongs to a node of the task.
    pub intent_grounded: bool,
    /// Every control a node's evaluation checks, and the node's instruction names,
    /// is named in the high-level instruction.
    pub actions_stated: bool,
    /// No two nodes do the same thing (same subtask and parameters, or the same
    /// instruction).
    pub no_duplicate_steps: bool,
    /// No two unordered nodes touch the same artefact where one changes it.
    pub no_clashes: bool,
    /// No node ends the task with nothing that lasts (a copy nobody pastes) and no
    /// two nodes make the same kind of thing from the same input.
    #[serde(default)]
    pub no_pointless_steps: bool,
    /// The high-level instruction has no step numbers, "Goal:" labels, "after
    /// step k" references or other template wording.
    pub no_template_artefacts: bool,
    /// Words of the high-level instruction over words of the low-level one.
    pub length_ratio: f64,
    /// `length_ratio` is at most [`Quality::MAX_LENGTH_RATIO`].
    pub concise: bool,
    /// One line per failed flag, saying what failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

impl Quality {
    /// The high-level instruction may be at most this long relative to the
    /// low-level one (OmniBench: 51.7 against 237.9 words, 0.22).
    pub const MAX_LENGTH_RATIO: f64 = 0.8;

    /// The boolean flags by name, in a fixed order.
    pub fn flags(&self) -> [(&'static str, bool); 7] {
        [
            ("intent_grounded", self.intent_grounded),
            ("actions_stated", self.actions_stated),
            ("no_duplicate_steps", self.no_duplicate_steps),
            ("no_clashes", self.no_clashes),
            ("no_pointless_steps", self.no_pointless_steps),
            ("no_template_artefacts", self.no_template_artefacts),
            ("concise", self.concise),
        ]
    }

    /// Does the task pass every flag?
    pub fn passes(&self) -> bool {
        self.flags().iter().all(|(_, ok)| *ok)
    }
}

/// A task trajectory (OmniBench C.5); `trajectory_id` is `"<task_id>(<k>)"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskTrajectory {
    pub trajectory_id: String,
    pub task_id: TaskId,
    pub topological_order: Vec<String>,
    pub instruction: String,
    pub intent: String,
    pub observations: Vec<String>,
    pub actions: Vec<TrajectoryAction>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_listed_once_in_order() {
        assert_eq!(
            placeholders("Open '{xlsx_path}' and save {{as}} {name} to {xlsx_path}"),
            vec!["xlsx_path", "name"]
        );
        assert!(placeholders("no holes { here").is_empty());
    }

    #[test]
    fn fill_replaces_known_and_keeps_unknown() {
        let mut p = ParameterSet::new();
        p.insert("a".into(), "X".into());
        assert_eq!(fill_placeholders("{a}-{b}-{{a}}", &p), "X-{b}-{a}");
    }

    #[test]
    fn levels_follow_table_two() {
        assert_eq!(Dimension::Dependency.level_of(1), Level::Easy);
        assert_eq!(Dimension::Dependency.level_of(3), Level::Medium);
        assert_eq!(Dimension::Dependency.level_of(4), Level::Hard);
        assert_eq!(Dimension::Branch.level_of(2), Level::Easy);
        assert_eq!(Dimension::Branch.level_of(4), Level::Medium);
        assert_eq!(Dimension::Branch.level_of(5), Level::Hard);
        for d in Dimension::ALL {
            for l in Level::ALL {
                let (lo, hi) = d.range_of(l);
                assert_eq!(d.level_of(lo), l);
                assert_eq!(d.level_of(hi.min(100)), l);
            }
        }
    }

    #[test]
    fn check_negation_round_trips() {
        let c: Check = serde_json::from_str(
            r#"{"api":"check_file_exists","args":{"file_path":"{old}"},"expect":false}"#,
        )
        .unwrap();
        assert!(!c.expect);
        let mut p = ParameterSet::new();
        p.insert("old".into(), "/home/user/a.txt".into());
        assert_eq!(c.call.instantiate(&p).args(), vec!["/home/user/a.txt"]);
        let back = serde_json::to_value(&c).unwrap();
        assert_eq!(back["expect"], serde_json::json!(false));
    }
}
