//! The offline actor: a rule-based, deterministic baseline for the actor role.
//!
//! It reads the instruction by matching it against the templates of the subtasks
//! it was built with (recovering the subtask and its parameter values), rebuilds the
//! instance's start desktop ([`super::contract::start_state`]) in its own
//! [`Replica`] (a copy of the stage's desktop), replays the request's history on
//! it, and plans by best-first search over copies of it towards a state where
//!
//! - every output resource of the instance holds,
//! - every parameter value was used, and
//! - every subgoal of the feedback holds (a click on a control, a text typed, a
//!   key pressed that a failing check expects; [`crate::llm::ActorFeedback::subgoals`]).
//!
//! "Used" depends on where the value may go ([`FieldRule`]): a value the
//! instruction labels ("with subject 'X'") goes only into the Edit field of that
//! label; a value naming an existing file goes into a path field or is picked from
//! a list; a `<slot>_file` parameter is only clicked; other values may go into any
//! field no labelled value claims. Values that only name an output are not
//! required (the output holding is the goal); they only order the search.
//!
//! Values and feedback subgoals count only before the event that first makes the
//! outputs hold (the cutoff): typing the subject after the mail was sent is no
//! demonstration of sending it. Children that show an "Error" dialog, that throw
//! away unsaved changes (re-open a file over its edits), that write over a file
//! the subtask only reads, or that produce the
//! outputs before every named event happened, are dropped. A plan that
//! reaches the goal is then pruned of detours ([`prune`]).
//!
//! Before searching, it tries the path the application's spec gives for the
//! subtask (the static analysis the explorer words instructions from and the
//! coder derives checks from, [`crate::pipeline::explore::paths`]): when those
//! steps reach the goal without writing over an input or losing edits, they are
//! the demonstration, in the order the instruction names the actions. A search
//! found demonstrations that satisfied every check by detours a person would not
//! take (a new deck saved over the one to edit, then re-opened).
//!
//! Moves are the visible controls of the subtask's application: clicks on buttons,
//! menu items and relevant list items (named by a parameter or the instruction),
//! double clicks on those items, parameter values typed into Edit fields (with and
//! without `{ENTER}`), and the application's key combos. A plan starts with a
//! click on "Start" (show the desktop) and launches the application from the
//! launcher when the application is not open yet; joining task trajectories
//! leaves both out where a window of the application is already open. Each step's
//! thought is written from the finished plan ([`explain`]): the part of the goal
//! it serves and why this control.
//!
//! Plans are cached per (instruction, feedback), so the step-by-step protocol costs
//! one search per episode; the search is bounded (node budget and depth) and
//! returns the best partial plan when the goal is out of reach.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use super::contract::{prepare_start, Instance};
use crate::env::sim::{vfs, Target};
use crate::env::{EventKind, Replica};
use crate::llm::{ActRequest, ActorStep, LlmError, OfflineRole, Outcome, StepStatus};
use crate::model::{placeholders, Action, ActionCall, ParameterSet, Subtask};
use crate::pipeline::explore::paths;
use crate::resources::Catalog;

/// Expansions per search.
const BUDGET: usize = 1500;
/// Longest plan searched (actions after "Start").
const MAX_DEPTH: usize = 16;

/// One planned step.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedStep {
    pub action: Action,
    pub thought: String,
}

pub use crate::llm::Subgoals;

/// The rule-based actor (see the module doc).
pub struct OfflineActor {
    base: Box<dyn Replica>,
    catalog: Catalog,
    subtasks: Vec<Subtask>,
    plans: Mutex<HashMap<String, Arc<Vec<PlannedStep>>>>,
    /// The static paths of each application (by name), for [`OfflineActor::hint`].
    paths: Mutex<HashMap<String, Arc<Vec<paths::Plan>>>>,
}

impl std::fmt::Debug for OfflineActor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OfflineActor")
            .field("subtasks", &self.subtasks.len())
            .finish()
    }
}

/// Matches `instruction` against `template`, returning the placeholder values.
pub fn match_template(template: &str, instruction: &str) -> Option<ParameterSet> {
    enum Part {
        Lit(String),
        Hole(String),
    }
    let names = placeholders(template);
    let mut parts = Vec::new();
    let mut rest = template;
    while !rest.is_empty() {
        let next = names
            .iter()
            .filter_map(|n| rest.find(&format!("{{{n}}}")).map(|i| (i, n)))
            .min();
        match next {
            Some((i, n)) => {
                if i > 0 {
                    parts.push(Part::Lit(rest[..i].replace("{{", "{").replace("}}", "}")));
                }
                parts.push(Part::Hole(n.clone()));
                rest = &rest[i + n.len() + 2..];
            }
            None => {
                parts.push(Part::Lit(rest.replace("{{", "{").replace("}}", "}")));
                rest = "";
            }
        }
    }
    fn go(parts: &[Part], s: &str, acc: &mut ParameterSet) -> bool {
        let Some((first, tail)) = parts.split_first() else {
            return s.is_empty();
        };
        match first {
            Part::Lit(l) => s.strip_prefix(l.as_str()).is_some_and(|r| go(tail, r, acc)),
            Part::Hole(name) => {
                if let Some(v) = acc.get(name).cloned() {
                    return s.strip_prefix(v.as_str()).is_some_and(|r| go(tail, r, acc));
                }
                let ends: Vec<usize> = match tail.first() {
                    None => vec![s.len()],
                    Some(Part::Lit(l)) => s
                        .match_indices(l.as_str())
                        .map(|(i, _)| i)
                        .filter(|i| *i > 0)
                        .collect(),
                    Some(Part::Hole(_)) => s.char_indices().skip(1).map(|(i, _)| i).collect(),
                };
                for end in ends {
                    acc.insert(name.clone(), s[..end].to_string());
                    if go(tail, &s[end..], acc) {
                        return true;
                    }
                    acc.remove(name);
                }
                false
            }
        }
    }
    let mut acc = ParameterSet::new();
    go(&parts, instruction, &mut acc).then_some(acc)
}

impl OfflineActor {
    /// An actor for the instructions of `subtasks` on the desktop `base`.
    pub fn new(
        base: Box<dyn Replica>,
        catalog: Catalog,
        mut subtasks: Vec<Subtask>,
    ) -> OfflineActor {
        subtasks.sort_by(|a, b| a.id.cmp(&b.id));
        OfflineActor {
            base,
            catalog,
            subtasks,
            plans: Mutex::new(HashMap::new()),
            paths: Mutex::new(HashMap::new()),
        }
    }

    /// The instance an instruction asks for: an exact instantiation first, else a
    /// template match with new parameter values.
    pub fn recognise(&self, instruction: &str) -> Option<Instance> {
        let instruction = instruction.trim();
        for s in &self.subtasks {
            for i in 0..s.available_parameters.len() {
                if s.instruction(i).as_deref() == Some(instruction) {
                    return Instance::new(&self.catalog, s, i).ok();
                }
            }
        }
        for s in &self.subtasks {
            if let Some(params) = match_template(&s.instruction_template, instruction) {
                let mut one = s.clone();
                one.available_parameters = vec![params];
                return Instance::new(&self.catalog, &one, 0).ok();
            }
        }
        None
    }

    /// The plan for `inst` from its start desktop (cached).
    pub fn plan(&self, inst: &Instance, goals: &Subgoals) -> Result<Arc<Vec<PlannedStep>>, String> {
        let key = format!("{}\u{1}{:?}", inst.instruction, goals);
        if let Some(p) = self.lock().get(&key) {
            return Ok(p.clone());
        }
        let start = self.start_of(inst)?;
        let hint = if *goals == Subgoals::default() {
            self.hint(&*start, inst)
        } else {
            None
        };
        let plan = Arc::new(guided_search(&*start, inst, goals, true, hint.as_deref()));
        self.lock().insert(key, plan.clone());
        Ok(plan)
    }

    /// The actions of the path the application's spec gives for the instance's
    /// subtask (the one its instruction was worded from, see
    /// [`crate::pipeline::explore::paths`]), run with its parameters from `start`
    /// with the application open. `None` when no path words the instruction or
    /// the path fails.
    fn hint(&self, start: &dyn Replica, inst: &Instance) -> Option<Vec<Action>> {
        let spec = &start.spec(&inst.application)?.spec;
        let plans = {
            let mut cache = self.paths.lock().unwrap_or_else(|p| p.into_inner());
            cache
                .entry(inst.application.clone())
                .or_insert_with(|| Arc::new(paths::plans(spec, &self.catalog)))
                .clone()
        };
        let worded = |p: &&paths::Plan| {
            let base = crate::model::fill_placeholders(&p.base_template(), &inst.params);
            inst.instruction == format!("{base}.")
                || inst
                    .instruction
                    .starts_with(&format!("{base}{}", paths::COMPUTED_LEAD))
        };
        let kinds: Vec<String> = inst.inputs.iter().map(|r| r.kind.clone()).collect();
        let plan = paths::worded_plan(spec, &plans, &kinds, |p| worded(&p))?;
        let mut desk = start.fork();
        desk.launch(&inst.application).ok()?;
        paths::actions_of(&*desk, &plan, &inst.params)
            .ok()
            .map(|(_, actions)| actions)
    }

    /// The start desktop of `inst`: a copy of the base with its inputs prepared.
    fn start_of(&self, inst: &Instance) -> Result<Box<dyn Replica>, String> {
        let mut start = self.base.fork();
        prepare_start(&mut *start, inst)?;
        Ok(start)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Vec<PlannedStep>>>> {
        self.plans.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn step_for(&self, req: &ActRequest) -> Result<ActorStep, String> {
        let inst = self
            .recognise(&req.instruction)
            .ok_or("the instruction matches no subtask template the offline actor knows")?;
        let goals = req
            .feedback
            .as_ref()
            .map(crate::llm::ActorFeedback::subgoals)
            .unwrap_or_default();
        let plan = self.plan(&inst, &goals)?;
        let n = req.history.len();
        let on_plan = req.history.len() <= plan.len()
            && req.history.iter().zip(plan.iter()).all(|(h, p)| {
                h.action.call == p.action.call && h.action.control_text == p.action.control_text
            });
        let next = if on_plan {
            plan.get(n).cloned()
        } else {
            // Off the cached plan (another actor's history): plan from the replica.
            let mut replica = self.start_of(&inst)?;
            for h in &req.history {
                replica.act_quiet(&h.action);
            }
            search(&*replica, &inst, &goals, false).into_iter().next()
        };
        let Some(step) = next else {
            return Ok(ActorStep {
                status: StepStatus::Finish,
                observation: format!("The window shows \"{}\".", req.window_title),
                thought: "Every goal of the instruction holds now, so the subtask is done.".into(),
                action: None,
            });
        };
        let mut action = step.action.clone();
        let label_ok = action.control_label.as_ref().is_some_and(|l| {
            req.controls
                .iter()
                .any(|c| &c.label == l && c.control_text == action.control_text)
        });
        if !label_ok && !action.control_text.is_empty() {
            action.control_label = req
                .controls
                .iter()
                .find(|c| c.control_text == action.control_text)
                .map(|c| c.label.clone());
            if action.control_label.is_none() {
                return Err(format!(
                    "the planned control '{}' is not on screen",
                    action.control_text
                ));
            }
        }
        Ok(ActorStep {
            status: StepStatus::Continue,
            observation: format!("The window shows \"{}\".", req.window_title),
            thought: step.thought,
            action: Some(action),
        })
    }
}

impl OfflineRole<ActRequest> for OfflineActor {
    fn answer(&self, req: &ActRequest) -> Result<Outcome<ActorStep>, LlmError> {
        Ok(match self.step_for(req) {
            Ok(step) => Outcome::Accepted(step),
            Err(reason) => Outcome::Rejected {
                reason,
                raw: String::new(),
            },
        })
    }
}

// ---------------------------------------------------------------------------
// Search

/// Where the value of one parameter may be typed, as the instruction tells.
#[derive(Debug, Clone, PartialEq, Eq)]
enum FieldRule {
    /// Only into the field the instruction names before the value ("with To
    /// '...'"), and the value counts as used only when typed there.
    Only(String),
    /// An existing file or folder: into a field for paths ("File name", "File
    /// path"), or picked in a list.
    PathField,
    /// The shown name of a file to pick in a list: clicked, never typed.
    Never,
    /// Any field that no other value is named for.
    Free,
}

/// One parameter value of the instance.
#[derive(Debug, Clone)]
struct Value {
    text: String,
    /// Its base name (the file name of a path).
    base: String,
    rule: FieldRule,
    /// Must the plan use it? Values that only name an output are judged by the
    /// output holding, not by being typed.
    required: bool,
}

/// The goals of one search and how far a desktop is from them.
struct Goal<'a> {
    inst: &'a Instance,
    goals: &'a Subgoals,
    values: Vec<Value>,
    /// Field texts some value is named for (no other value goes there).
    claimed: Vec<String>,
    instruction: String,
    /// The subtask's application and any other application the instruction names.
    apps: Vec<String>,
}

/// Does the Edit with text `field` hold paths?
fn is_path_field(field: &str) -> bool {
    let f = field.to_lowercase();
    f.contains("file") || f.contains("path")
}

/// The field the instruction names right before `'value'` ("with To 'x'"), among
/// the `fields` of the application.
fn labelled_field(instruction: &str, value: &str, fields: &[String]) -> Option<String> {
    let quoted = format!("'{value}'");
    let lower = instruction.to_lowercase();
    instruction.match_indices(&quoted).find_map(|(i, _)| {
        let before = lower[..i].trim_end();
        fields
            .iter()
            .filter(|f| {
                let f = f.to_lowercase();
                let Some(head) = before.strip_suffix(f.as_str()) else {
                    return false;
                };
                // "with To 'x'", "and Body 'y'": a field named as a field, not a
                // word of the sentence ("send the e-mail 'x'").
                let head = head.trim_end();
                head.len() < before.len() - f.len()
                    && (head.ends_with(" with") || head.ends_with(" and") || head.ends_with(','))
            })
            .max_by_key(|f| f.len())
            .cloned()
    })
}

/// The values of `inst` with where each may be typed (see [`FieldRule`]).
fn values_of(inst: &Instance, fields: &[String]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for (name, v) in &inst.params {
        if v.trim().is_empty() || out.iter().any(|x| &x.text == v) {
            continue;
        }
        let is_input = inst
            .inputs
            .iter()
            .any(|r| r.parameter.as_deref() == Some(v.as_str()));
        let is_output = inst
            .outputs
            .iter()
            .any(|r| r.parameter.as_deref() == Some(v.as_str()));
        let shown_name = name
            .strip_suffix("_file")
            .is_some_and(|slot| inst.params.contains_key(slot));
        // A setting's new value is said by the action that makes it: typing
        // 'wallpaper=beach.jpg' as a picture's new name is no demonstration.
        let rule = if shown_name || inst.implied.contains(v) {
            FieldRule::Never
        } else if let Some(f) = labelled_field(&inst.instruction, v, fields) {
            FieldRule::Only(f)
        } else if let Some(f) = fields
            .iter()
            .find(|f| !names_record(inst, name) && names_field(name, f))
        {
            // The explorer names a typed value's slot after the box it is
            // typed in ("comment" for Comment): a comment is not tried in the
            // Password box beside it. A record the subtask reads is named
            // after its kind (`note_title`), not after a box: it is picked in
            // a list, not typed into one ("Note title" of another screen).
            FieldRule::Only(f.clone())
        } else if is_input && (v.starts_with('/') || v.starts_with('~')) {
            FieldRule::PathField
        } else {
            FieldRule::Free
        };
        out.push(Value {
            text: v.clone(),
            base: vfs::base_name(v).to_string(),
            rule,
            required: !is_output || is_input,
        });
    }
    out
}

/// Is `param` the slot of an input record of `inst` (a slot named after the
/// record's kind, as `note_title` for a note it selects)?
fn names_record(inst: &Instance, param: &str) -> bool {
    inst.inputs.iter().any(|r| {
        r.kind == param
            && !r
                .parameter
                .as_deref()
                .is_some_and(|v| v.starts_with('/') || v.starts_with('~'))
    })
}

/// Is `param` the name of the box with text `field` ("export_name" and
/// "Export name")?
fn names_field(param: &str, field: &str) -> bool {
    param.eq_ignore_ascii_case(&field.replace(' ', "_"))
}

fn same(a: &str, b: &str) -> bool {
    a.trim()
        .trim_end_matches('/')
        .eq_ignore_ascii_case(b.trim().trim_end_matches('/'))
}

/// Was the value typed where its rule allows, or clicked as a control?
fn value_used(events: &[crate::env::Event], v: &Value) -> bool {
    events.iter().any(|e| match &e.kind {
        EventKind::Type { text } => match &v.rule {
            FieldRule::Only(f) => text.contains(v.text.as_str()) && same(&e.control_text, f),
            FieldRule::Never => false,
            FieldRule::PathField => {
                is_path_field(&e.control_text)
                    && (text.contains(v.text.as_str()) || text.contains(v.base.as_str()))
            }
            FieldRule::Free => text.contains(v.text.as_str()) || text.contains(v.base.as_str()),
        },
        EventKind::Click { .. } => {
            !matches!(v.rule, FieldRule::Only(_))
                && e.hit
                && (same(&e.control_text, &v.text) || same(&e.control_text, &v.base))
        }
        _ => false,
    })
}

impl Goal<'_> {
    /// Do all the outputs hold (false for a subtask without outputs)?
    fn outputs_hold(&self, desk: &dyn Replica) -> bool {
        !self.inst.outputs.is_empty() && self.inst.outputs.iter().all(|r| desk.holds(r))
    }

    /// How many values that are not required were not used in the first
    /// `cutoff` events.
    fn optional_unused(&self, desk: &dyn Replica, cutoff: Option<usize>) -> usize {
        let all = &desk.state().events;
        let events = &all[..cutoff.unwrap_or(all.len()).min(all.len())];
        self.values
            .iter()
            .filter(|v| !v.required && v.rule != FieldRule::Never && !value_used(events, v))
            .count()
    }

    /// Were the required values used, and the feedback's subgoals met, in the
    /// first `cutoff` events?
    fn event_goals_met(&self, desk: &dyn Replica, cutoff: Option<usize>) -> bool {
        // The outputs hold at a cutoff; what is left is event goals and the
        // active window (which later steps can still change).
        let (d, _) = self.distance(desk, cutoff);
        d == usize::from(!self.in_own_app(desk))
    }

    /// Is the active window one of the instruction's applications?
    fn in_own_app(&self, desk: &dyn Replica) -> bool {
        desk.state()
            .active
            .and_then(|i| desk.state().windows.get(i))
            .is_some_and(|w| self.apps.iter().any(|x| x == &w.app))
    }

    /// Unmet goals of `desk`, weighted, and a bit set of the met ones (for
    /// deduplication). Values count as used only in the first `cutoff` events: a
    /// value typed after the outputs were made did not go into them.
    fn distance(&self, desk: &dyn Replica, cutoff: Option<usize>) -> (usize, u64) {
        let all = &desk.state().events;
        let events = &all[..cutoff.unwrap_or(all.len()).min(all.len())];
        let mut d = 0;
        let mut bits = 0u64;
        let mut bit = 0;
        let mut mark = |met: bool, weight: usize, d: &mut usize| {
            if met {
                bits |= 1 << (bit % 64);
            } else {
                *d += weight;
            }
            bit += 1;
        };
        for r in &self.inst.outputs {
            mark(desk.holds(r), 4, &mut d);
        }
        for v in self.values.iter().filter(|v| v.required) {
            mark(value_used(events, v), 1, &mut d);
        }
        for c in &self.goals.clicks {
            let met = events.iter().any(|e| {
                e.hit && matches!(e.kind, EventKind::Click { .. }) && same(&e.control_text, c)
            });
            mark(met, 2, &mut d);
        }
        for t in &self.goals.typed {
            let met = events
                .iter()
                .any(|e| matches!(&e.kind, EventKind::Type { text } if text.contains(t.as_str())));
            mark(met, 2, &mut d);
        }
        for k in &self.goals.keys {
            let want = crate::env::sim::normalize_keys(k);
            let met = events
                .iter()
                .any(|e| matches!(&e.kind, EventKind::Keys { keys } if *keys == want));
            mark(met, 2, &mut d);
        }
        if !self.in_own_app(desk) {
            d += 1;
        }
        (d, bits)
    }

    /// Is a control text named by the instruction, a value or a subgoal?
    fn relevant(&self, text: &str) -> bool {
        let t = text.trim().trim_end_matches('/').to_lowercase();
        if t.is_empty() {
            return false;
        }
        (t.chars().count() >= 3 && self.instruction.contains(&t))
            || self
                .values
                .iter()
                .any(|v| same(&v.text, &t) || same(&v.base, &t))
            || self.goals.clicks.iter().any(|c| same(c, &t))
    }

    /// Does a list item lead towards a value (a folder on a value's path)?
    fn on_value_path(&self, path: &str) -> bool {
        let p = path.trim_end_matches('/');
        !p.is_empty()
            && self
                .values
                .iter()
                .any(|v| v.text.starts_with(&format!("{p}/")) || v.text == p)
    }
}

/// A hash of the parts of the state that matter for planning (not the event log,
/// the clock or the last feedback).
fn state_key(desk: &dyn Replica, bits: u64) -> u64 {
    struct W<'a>(&'a mut DefaultHasher);
    impl std::io::Write for W<'_> {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.write(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let s = desk.state();
    let mut h = DefaultHasher::new();
    bits.hash(&mut h);
    for (path, node) in s.vfs.paths() {
        path.hash(&mut h);
        match node {
            vfs::Node::Dir => 0usize.hash(&mut h),
            vfs::Node::File { content } => (content.len() + 1).hash(&mut h),
        }
    }
    let parts = (
        &s.clipboard,
        &s.windows,
        s.active,
        &s.collections,
        &s.settings,
        &s.playing,
        &s.known_urls,
        s.desktop_scroll,
    );
    // Serializing model-free plain data cannot fail.
    let _ = serde_json::to_writer(W(&mut h), &parts);
    h.finish()
}

fn click(label: &str, text: &str, double: bool) -> Action {
    Action {
        call: ActionCall::ClickInput {
            button: "left".into(),
            double,
        },
        control_label: Some(label.to_string()),
        control_text: text.to_string(),
    }
}

fn type_into(label: &str, text: &str, keys: &str) -> Action {
    Action {
        call: ActionCall::KeyboardInput { keys: keys.into() },
        control_label: Some(label.to_string()),
        control_text: text.to_string(),
    }
}

/// Escapes pywinauto's special characters in literal text.
fn literal_keys(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '+' | '^' | '%' | '~' | '(' | ')' | '{' | '}' => {
                out.push('{');
                out.push(c);
                out.push('}');
            }
            _ => out.push(c),
        }
    }
    out
}

/// The candidate moves in `desk`, each with its cost and a thought.
fn moves(desk: &dyn Replica, goal: &Goal<'_>) -> Vec<(u32, PlannedStep)> {
    let mut out = Vec::new();
    let state = desk.state();
    let active = state.active.and_then(|i| state.windows.get(i));
    let app = active.and_then(|w| desk.spec(&w.app));
    let screen = match (active, app) {
        (Some(w), Some(a)) => a.spec.screens.get(&w.screen),
        _ => None,
    };
    // The texts that may be typed into the field with this text.
    let typeables = |field: &str| -> Vec<String> {
        let mut out: Vec<String> = goal
            .values
            .iter()
            .filter(|v| match &v.rule {
                FieldRule::Only(f) => same(f, field),
                FieldRule::PathField => is_path_field(field),
                FieldRule::Never => false,
                FieldRule::Free => !goal.claimed.iter().any(|c| same(c, field)),
            })
            .map(|v| v.text.clone())
            .collect();
        // A text the feedback asks for that is a value goes where the value goes.
        for t in &goal.goals.typed {
            if !out.contains(t) && !goal.values.iter().any(|v| &v.text == t) {
                out.push(t.clone());
            }
        }
        out
    };
    let fields = active.map(|w| &w.fields);
    for c in &desk.live().controls {
        let info = &c.info;
        let text = info.control_text.as_str();
        let cost = if goal.relevant(text) { 1 } else { 3 };
        match &c.target {
            Target::Launch(i) => {
                // Only the subtask's own application is launched from the desktop:
                // another one the instruction names is reached by the subtask's
                // own effects ("edit the picture in Image Editor"), and a name can
                // also be a value ("set default browser to Browser").
                let name = desk.specs().get(*i).map(|a| a.spec.name.as_str());
                if name == Some(goal.inst.application.as_str()) {
                    out.push((
                        1,
                        PlannedStep {
                            action: click(&info.label, text, false),
                            thought: format!("Launch {text} from the desktop to work in it."),
                        },
                    ));
                }
            }
            Target::Focus(i) => {
                let mine = state
                    .windows
                    .get(*i)
                    .is_some_and(|w| goal.apps.contains(&w.app));
                if mine && state.active != Some(*i) {
                    out.push((
                        1,
                        PlannedStep {
                            action: click(&info.label, text, false),
                            thought: format!("Bring the {text} window to the front."),
                        },
                    ));
                }
            }
            Target::DialogOk => out.push((
                2,
                PlannedStep {
                    action: click(&info.label, text, false),
                    thought: "Dismiss the message box.".into(),
                },
            )),
            Target::Item { path, .. } => {
                // A file or folder is picked by where it is, not by its name (a
                // same-named file elsewhere is not the one asked for).
                let rel = match path.as_deref() {
                    Some(p) => goal.on_value_path(p),
                    None => goal.relevant(text) || goal.relevant(&c.name),
                };
                if rel {
                    out.push((
                        1,
                        PlannedStep {
                            action: click(&info.label, text, false),
                            thought: format!("Select '{text}'."),
                        },
                    ));
                    out.push((
                        2,
                        PlannedStep {
                            action: click(&info.label, text, true),
                            thought: format!("Double-click '{text}' to open it."),
                        },
                    ));
                }
            }
            Target::Spec { index } => {
                let Some(spec) = screen
                    .and_then(|s| s.controls.get(*index))
                    .map(|s| s.get_ref())
                else {
                    continue;
                };
                use crate::env::spec::ControlType as T;
                match spec.control_type {
                    T::Edit | T::ComboBox | T::Document => {
                        let field = spec.field_name();
                        for v in &typeables(&spec.text) {
                            if fields
                                .and_then(|f| f.get(&field))
                                .is_some_and(|cur| cur == v)
                            {
                                continue;
                            }
                            let keys = literal_keys(v);
                            // A field that acts on Enter gets the value with Enter
                            // (one step instead of typing and clicking), or
                            // without, for the button that does the same.
                            if !spec.enter.is_empty() {
                                out.push((
                                    1,
                                    PlannedStep {
                                        action: type_into(
                                            &info.label,
                                            text,
                                            &format!("{keys}{{ENTER}}"),
                                        ),
                                        thought: format!(
                                            "Type '{v}' into '{text}' and press Enter."
                                        ),
                                    },
                                ));
                            }
                            out.push((
                                if spec.enter.is_empty() { 1 } else { 2 },
                                PlannedStep {
                                    action: type_into(&info.label, text, &keys),
                                    thought: format!("Type '{v}' into '{text}'."),
                                },
                            ));
                        }
                        if spec.control_type == T::ComboBox {
                            out.push((
                                cost,
                                PlannedStep {
                                    action: click(&info.label, text, false),
                                    thought: format!("Switch '{text}' to its next option."),
                                },
                            ));
                        }
                    }
                    T::List => {
                        // A list with rows below the visible ones scrolls down.
                        let more_below = desk
                            .live()
                            .scene
                            .controls
                            .iter()
                            .find(|s| s.label == info.label)
                            .and_then(|s| s.scroll)
                            .is_some_and(|(first, total, rows)| first + rows < total);
                        if more_below {
                            out.push((
                                2,
                                PlannedStep {
                                    action: Action {
                                        call: ActionCall::WheelMouseInput { wheel_dist: 1 },
                                        control_label: Some(info.label.clone()),
                                        control_text: text.to_string(),
                                    },
                                    thought: format!("Scroll '{text}' down to see the rows below."),
                                },
                            ));
                        }
                    }
                    T::Text => {}
                    _ => out.push((
                        cost,
                        PlannedStep {
                            action: click(&info.label, text, false),
                            thought: format!("Click '{text}'."),
                        },
                    )),
                }
            }
            Target::ShowDesktop | Target::Minimize | Target::CloseWindow | Target::Inert => {}
        }
    }
    if let (Some(a), Some(s)) = (app, screen) {
        let mut keys: Vec<&String> = a.spec.keys.keys().chain(s.keys.keys()).collect();
        keys.sort();
        keys.dedup();
        for k in keys {
            let cost =
                if goal.goals.keys.iter().any(|g| {
                    crate::env::sim::normalize_keys(g) == crate::env::sim::normalize_keys(k)
                }) {
                    1
                } else {
                    3
                };
            out.push((
                cost,
                PlannedStep {
                    action: Action {
                        call: ActionCall::KeyboardInput { keys: k.clone() },
                        control_label: None,
                        control_text: String::new(),
                    },
                    thought: format!("Press {k}."),
                },
            ));
        }
    }
    out
}

/// A search node.
struct ArenaNode {
    parent: Option<usize>,
    /// The step that led here (None at the root).
    step: Option<PlannedStep>,
    depth: usize,
    /// Events when the outputs first held on the way here (see
    /// [`Goal::distance`]).
    cutoff: Option<usize>,
}

/// Does a message box report an error? Plans never take a step that fails.
fn shows_error(desk: &dyn Replica) -> bool {
    desk.state()
        .windows
        .iter()
        .any(|w| w.dialog.as_ref().is_some_and(|d| d.title == "Error"))
}

/// The cutoff after a step from a desk where the outputs held (`held_before`) or
/// not: set when the step made them hold.
fn next_cutoff(
    goal: &Goal<'_>,
    cutoff: Option<usize>,
    held_before: bool,
    after: &dyn Replica,
) -> Option<usize> {
    cutoff
        .or_else(|| (!held_before && goal.outputs_hold(after)).then(|| after.state().events.len()))
}

/// Does `text` name the application `app` as a whole word?
fn mentions(text: &str, app: &str) -> bool {
    text.match_indices(app).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + app.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// Best-first search from `start` (after a "Start" click when `show_desktop`).
/// Returns the plan, or the best partial plan when the goal is out of reach.
pub fn search(
    start: &dyn Replica,
    inst: &Instance,
    goals: &Subgoals,
    show_desktop: bool,
) -> Vec<PlannedStep> {
    guided_search(start, inst, goals, show_desktop, None)
}

/// [`search`], trying the steps of `hint` first (the path the application's spec
/// gives for the subtask): when they reach the goal as a careful person works,
/// they are the plan (pruned of detours), in the order the instruction names them.
pub fn guided_search(
    start: &dyn Replica,
    inst: &Instance,
    goals: &Subgoals,
    show_desktop: bool,
    hint: Option<&[Action]>,
) -> Vec<PlannedStep> {
    // First as a careful person works (never writing over a file the subtask
    // only reads); when no such plan is found within the budget, as before.
    match search_with(start, inst, goals, show_desktop, true, hint) {
        (plan, true) => plan,
        (_, false) => search_with(start, inst, goals, show_desktop, false, None).0,
    }
}

/// [`search`] with or without the rule against writing over inputs; also says
/// whether the plan reaches the goal.
fn search_with(
    start: &dyn Replica,
    inst: &Instance,
    goals: &Subgoals,
    show_desktop: bool,
    careful: bool,
    hint: Option<&[Action]>,
) -> (Vec<PlannedStep>, bool) {
    let fields: Vec<String> = start
        .spec(&inst.application)
        .map(|a| {
            use crate::env::spec::ControlType as T;
            let mut f: Vec<String> = a
                .spec
                .screens
                .values()
                .flat_map(|s| s.controls.iter().map(|c| c.get_ref()))
                .filter(|c| matches!(c.control_type, T::Edit | T::ComboBox | T::Document))
                .map(|c| c.text.clone())
                .collect();
            f.sort();
            f.dedup();
            f
        })
        .unwrap_or_default();
    let values = values_of(inst, &fields);
    let claimed: Vec<String> = values
        .iter()
        .filter_map(|v| match &v.rule {
            FieldRule::Only(f) => Some(f.clone()),
            _ => None,
        })
        .collect();
    let mut apps = vec![inst.application.clone()];
    for a in start.specs() {
        let name = &a.spec.name;
        if name == &inst.application {
            continue;
        }
        // A name inside a longer application name ("Notes" in "Sticky Notes")
        // names the longer application, not this one.
        let mut rest = inst.instruction.clone();
        // A name inside a parameter value ("Notes from this morning") is text
        // to type, not an application to visit; a value that is exactly the
        // name still names it.
        for v in inst.params.values() {
            if v != name && !v.trim().is_empty() {
                rest = rest.replace(v.as_str(), " ");
            }
        }
        for b in start.specs() {
            let longer = &b.spec.name;
            if longer.len() > name.len() && longer.contains(name.as_str()) {
                rest = rest.replace(longer.as_str(), " ");
            }
        }
        if mentions(&rest, name) {
            apps.push(name.clone());
        }
    }
    // The controls whose effect the instruction names ("compress the PDF") must be
    // clicked even when the outputs would hold without them.
    let mut goals = goals.clone();
    for c in described_clicks(start, inst) {
        if !goals.clicks.contains(&c) {
            goals.clicks.push(c);
        }
    }
    let goals = &goals;
    let goal = Goal {
        inst,
        goals,
        values,
        claimed,
        instruction: inst.instruction.to_lowercase(),
        apps,
    };
    let mut root = start.fork();
    let mut prefix = Vec::new();
    // From the desktop when the application is not open yet; in its window when
    // it is.
    let open = start
        .state()
        .windows
        .iter()
        .any(|w| w.app == inst.application);
    if show_desktop && !open {
        if let Some(c) = root
            .live()
            .controls
            .iter()
            .find(|c| c.target == Target::ShowDesktop)
        {
            let step = PlannedStep {
                action: click(&c.info.label, &c.info.control_text, false),
                thought: "Show the desktop first, so the application is started from the launcher."
                    .into(),
            };
            root.act_quiet(&step.action);
            prefix.push(step);
        }
    }
    // The spec's own path is not pruned: each of its steps is an action the
    // instruction names (a paste the outputs would not need is still asked for).
    if let Some(steps) = hint.and_then(|h| hinted_steps(&*root, &inst.application, h)) {
        if reaches(&*root, &goal, &steps, careful) {
            prefix.extend(steps);
            return (explain(start, &goal, prefix), true);
        }
    }
    // The frontier holds (distance, cost, node).
    let mut arena: Vec<ArenaNode> = vec![ArenaNode {
        parent: None,
        step: None,
        depth: 0,
        cutoff: None,
    }];
    let (d0, bits0) = goal.distance(&*root, None);
    let mut seen: HashSet<u64> = HashSet::new();
    seen.insert(state_key(&*root, bits0));
    let mut heap: BinaryHeap<std::cmp::Reverse<(usize, u32, usize)>> = BinaryHeap::new();
    heap.push(std::cmp::Reverse((d0, 0, 0)));
    let mut best = (d0, 0usize, 0usize);
    let path_of = |arena: &[ArenaNode], mut i: usize| {
        let mut steps = Vec::new();
        while let ArenaNode {
            parent: Some(p),
            step: Some(s),
            ..
        } = &arena[i]
        {
            steps.push(s.clone());
            i = *p;
        }
        steps.reverse();
        steps
    };
    let mut expansions = 0;
    'search: while let Some(std::cmp::Reverse((_, g, node))) = heap.pop() {
        if best.0 == 0 {
            break;
        }
        if expansions >= BUDGET {
            break;
        }
        expansions += 1;
        let depth = arena[node].depth;
        let cutoff = arena[node].cutoff;
        if depth >= MAX_DEPTH {
            continue;
        }
        let mut desk = root.fork();
        for s in path_of(&arena, node) {
            desk.act_quiet(&s.action);
        }
        let held = goal.outputs_hold(&*desk);
        for (cost, step) in moves(&*desk, &goal) {
            let mut child = desk.fork();
            if !child.act_quiet(&step.action)
                || shows_error(&*child)
                || discards_edits(&*desk, &*child)
                || (careful && overwrites_input(inst, &*child))
            {
                continue;
            }
            let child_cutoff = next_cutoff(&goal, cutoff, held, &*child);
            if cutoff.is_none()
                && child_cutoff.is_some()
                && !goal.event_goals_met(&*child, child_cutoff)
            {
                // The outputs were made before every value went into them (or
                // before the steps the feedback asks for): no continuation can
                // mend that.
                continue;
            }
            let (cd, bits) = goal.distance(&*child, child_cutoff);
            if !seen.insert(state_key(&*child, bits)) {
                continue;
            }
            arena.push(ArenaNode {
                parent: Some(node),
                step: Some(step),
                depth: depth + 1,
                cutoff: child_cutoff,
            });
            let id = arena.len() - 1;
            if (cd, depth + 1) < (best.0, best.1) {
                best = (cd, depth + 1, id);
            }
            if cd == 0 {
                break 'search;
            }
            // Values that only name an output need not be typed (the output
            // holding is the goal), but typing them where they may go usually
            // is the way there: they guide the order, not the goal test.
            let h = cd + goal.optional_unused(&*child, child_cutoff);
            heap.push(std::cmp::Reverse((h, g + cost, id)));
        }
    }
    let plan = path_of(&arena, best.2);
    prefix.extend(if best.0 == 0 {
        prune(&*root, &goal, plan, careful)
    } else {
        plan
    });
    (explain(start, &goal, prefix), best.0 == 0)
}

/// Did the last step write over a file the subtask reads but does not output (a
/// save over the source before "Save As", even with nothing changed)? The
/// instruction asks for a new file; the one it came from stays as it was.
fn overwrites_input(inst: &Instance, after: &dyn Replica) -> bool {
    after.state().written.iter().any(|w| {
        let is = |r: &crate::resources::Resource| r.parameter.as_deref() == Some(w.as_str());
        inst.inputs.iter().any(is) && !inst.outputs.iter().any(is)
    })
}

/// Does the step from `before` to `after` throw away unsaved changes: a window
/// whose document had them now shows another document, a new one, or none (or
/// the window is gone)? A person does not re-open a file over their own edits;
/// a plan that does so loses what the instruction asked for.
fn discards_edits(before: &dyn Replica, after: &dyn Replica) -> bool {
    let windows = &after.state().windows;
    before.state().windows.iter().enumerate().any(|(i, w)| {
        let Some(d) = w.doc.as_ref().filter(|d| d.modified) else {
            return false;
        };
        let now = windows
            .get(i)
            .filter(|a| a.app == w.app)
            .or_else(|| windows.iter().find(|a| a.app == w.app))
            .and_then(|a| a.doc.as_ref());
        match now {
            None => true,
            Some(n) => !n.modified && (n.content != d.content || n.props != d.props),
        }
    })
}

/// The controls of the instance's application whose click effect the instruction
/// names: for each clause of the instruction, the control whose effect `describe`
/// is the longest phrase the clause starts with ("compress the PDF 'a.pdf'" names
/// the control described as "compress the PDF"). A demonstration that makes the
/// outputs without that click does not do what was asked.
fn described_clicks(desk: &dyn Replica, inst: &Instance) -> Vec<String> {
    let Some(app) = desk.spec(&inst.application) else {
        return Vec::new();
    };
    let mut described: Vec<(String, String)> = Vec::new();
    for screen in app.spec.screens.values() {
        for c in screen.controls.iter().map(|c| c.get_ref()) {
            for e in &c.click {
                if let Some(d) = &e.describe {
                    described.push((d.to_lowercase(), c.text.clone()));
                    // A paste is worded after what it pastes ("paste the table on
                    // the clipboard into the sheet").
                    for kind in e.op.pasted_kinds() {
                        if let Some(k) = desk.kinds().get(&kind) {
                            let what = k.phrase_for(None);
                            let worded = d.replacen("the clipboard", &what, 1);
                            described.push((worded.to_lowercase(), c.text.clone()));
                        }
                    }
                }
            }
        }
    }
    let mut out: Vec<String> = Vec::new();
    for clause in clauses(&inst.instruction, &inst.application) {
        let clause = clause.to_lowercase();
        let hit = described
            .iter()
            .filter(|(d, _)| {
                clause.starts_with(d.as_str())
                    && clause[d.len()..]
                        .chars()
                        .next()
                        .is_none_or(|c| !c.is_alphanumeric())
            })
            .max_by_key(|(d, _)| d.len());
        if let Some((_, control)) = hit {
            if !out.contains(control) {
                out.push(control.clone());
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Thoughts

/// A deterministic choice among `n` phrasings.
fn variant(key: &str, n: usize) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h % n.max(1) as u64) as usize
}

/// Lower-cases the first letter unless the word is an acronym ("PDF").
fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match (c.next(), s.chars().nth(1)) {
        (Some(f), second) if !second.is_some_and(char::is_uppercase) => {
            f.to_lowercase().collect::<String>() + c.as_str()
        }
        _ => s.to_string(),
    }
}

/// The parts of an instruction, each a clause that can follow "to": "In Mail,
/// open 'a', then send it, giving the e-mail 'b'." gives "open 'a'" and "send it".
fn clauses(instruction: &str, app: &str) -> Vec<String> {
    let s = instruction.trim().trim_end_matches('.');
    let s = s.strip_prefix(&format!("In {app}, ")).unwrap_or(s);
    let mut out = Vec::new();
    for part in s.split(", then ") {
        let part = part
            .split(crate::pipeline::explore::paths::COMPUTED_LEAD)
            .next()
            .unwrap_or(part);
        let part = part.trim().trim_end_matches(',');
        if !part.is_empty() {
            out.push(lower_first(part));
        }
    }
    if out.is_empty() {
        out.push(lower_first(s));
    }
    out
}

/// What a resource kind is called, from its description ("A video file that
/// exists on disk." gives "video file").
fn noun_of(desk: &dyn Replica, kind: &str) -> String {
    let Some(d) = desk.kinds().get(kind).map(|k| k.description.clone()) else {
        return kind.replace('_', " ");
    };
    let mut s = d.trim().trim_end_matches('.').to_string();
    for article in ["A ", "An ", "The "] {
        if let Some(r) = s.strip_prefix(article) {
            s = r.to_string();
            break;
        }
    }
    for stop in [
        " that ", " with ", " has ", " is ", " holds ", " for ", " known ", " (", ",",
    ] {
        if let Some(i) = s.find(stop) {
            s.truncate(i);
        }
    }
    lower_first(&s)
}

/// The parts of a plan's goal one step can serve.
#[derive(Clone)]
enum Purpose {
    /// A value of the instruction goes into a field.
    Value {
        value: String,
        field: String,
        enter: bool,
    },
    /// The step makes the outputs hold.
    Outputs,
    /// The control is named by the instruction.
    Named,
    /// A list item on the way to (or being) a value.
    Item {
        value: String,
        open: bool,
    },
    /// The check of the subtask expects it.
    Expected,
    /// It brings the next step's control on screen.
    Reveals(String),
    /// Launch, focus, show the desktop, dismiss a message box, scroll.
    Launch,
    Focus,
    ShowDesktop,
    Dismiss,
    /// Scrolls the list (first) to reach a control (second).
    Scroll(String, Option<String>),
    Other,
}

/// Gives each step of `steps` (a plan from `root`) a thought that says which part
/// of the goal it serves and why this control: the clause of the instruction, the
/// value being entered and where it comes from, the output it makes, the control
/// it brings on screen. Derived from the instruction, the parameter values, the
/// resources and the controls only; the phrasing varies deterministically.
fn explain(root: &dyn Replica, goal: &Goal<'_>, steps: Vec<PlannedStep>) -> Vec<PlannedStep> {
    let inst = goal.inst;
    let app = inst.application.as_str();
    let parts = clauses(&inst.instruction, app);
    let find = |needle: &str| -> Option<String> {
        let n = needle.trim().to_lowercase();
        if n.chars().count() < 3 {
            return None;
        }
        parts
            .iter()
            .find(|c| c.to_lowercase().contains(&n))
            .or_else(|| {
                // The control's verb in another form: 'Attach file' serves "with
                // 'a.pdf' attached", 'Compress' serves "compress the PDF".
                let verb = n.split_whitespace().next().filter(|w| w.len() >= 4)?;
                parts.iter().find(|c| {
                    c.to_lowercase()
                        .split(|ch: char| !ch.is_alphanumeric())
                        .any(|w| w.starts_with(verb))
                })
            })
            .cloned()
    };
    // The clause naming what a control does (its click's `describe`: 'Sum
    // Column' is how "add a total row" is done).
    let spec = root.spec(app).map(|a| &a.spec);
    let by_effect = |control: &str| -> Option<String> {
        let spec = spec?;
        spec.screens.values().find_map(|screen| {
            screen
                .controls
                .iter()
                .map(|c| c.get_ref())
                .filter(|c| same(&c.text, control))
                .flat_map(|c| c.click.iter().filter_map(|e| e.describe.as_deref()))
                .find_map(&find)
        })
    };
    let outputs: Vec<String> = inst
        .outputs
        .iter()
        .map(|r| match &r.parameter {
            Some(p) => format!("'{p}'"),
            None => format!("the {}", noun_of(root, &r.kind)),
        })
        .collect();
    // Replay the plan: the desk before each step, and what each step serves.
    let mut desks = vec![root.fork()];
    for s in &steps {
        let mut d = desks.last().expect("one desk at least").clone();
        d.act_quiet(&s.action);
        desks.push(d);
    }
    let mut purposes: Vec<(Purpose, Option<String>)> = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        let before = &desks[i];
        let after = &desks[i + 1];
        let live = before.live();
        let target = live.resolve(&s.action).map(|k| live.controls[k].clone());
        let text = s.action.control_text.clone();
        let made = !goal.outputs_hold(&**before) && goal.outputs_hold(&**after);
        let effect_clause = by_effect(&text);
        let p = match (&s.action.call, target.as_ref().map(|c| &c.target)) {
            (_, Some(Target::Launch(_))) => (Purpose::Launch, parts.first().cloned()),
            (_, Some(Target::Focus(_))) => (Purpose::Focus, None),
            (_, Some(Target::ShowDesktop)) => (Purpose::ShowDesktop, parts.first().cloned()),
            (_, Some(Target::DialogOk)) => (Purpose::Dismiss, None),
            (ActionCall::WheelMouseInput { .. }, _) => {
                let next = steps[i + 1..]
                    .iter()
                    .find(|n| !matches!(n.action.call, ActionCall::WheelMouseInput { .. }))
                    .map(|n| n.action.control_text.clone())
                    .filter(|t| !t.is_empty());
                (Purpose::Scroll(text.clone(), next), None)
            }
            (ActionCall::KeyboardInput { keys }, _) if !text.is_empty() => {
                let typed = goal
                    .values
                    .iter()
                    .map(|v| v.text.clone())
                    .chain(goal.goals.typed.iter().cloned())
                    .find(|v| keys.starts_with(&literal_keys(v)));
                match typed {
                    Some(v) => {
                        let clause = find(&v).or_else(|| find(vfs::base_name(&v)));
                        (
                            Purpose::Value {
                                enter: keys.to_lowercase().ends_with("{enter}"),
                                value: v,
                                field: text.clone(),
                            },
                            clause,
                        )
                    }
                    None => (Purpose::Other, find(&text)),
                }
            }
            _ if made => (
                Purpose::Outputs,
                find(&text).or_else(|| {
                    inst.outputs
                        .iter()
                        .filter_map(|r| r.parameter.as_deref())
                        .find_map(&find)
                }),
            ),
            (_, Some(Target::Item { path, .. })) => {
                let double = matches!(s.action.call, ActionCall::ClickInput { double: true, .. });
                let value = goal
                    .values
                    .iter()
                    .find(|v| match path {
                        Some(p) => {
                            let p = p.trim_end_matches('/');
                            v.text == p || v.text.starts_with(&format!("{p}/"))
                        }
                        None => same(&v.text, &text) || same(&v.base, &text),
                    })
                    .map(|v| v.text.clone());
                match value {
                    Some(v) => {
                        let clause = find(&v);
                        (Purpose::Item { value: v, open: double }, clause)
                    }
                    None => (Purpose::Named, find(&text)),
                }
            }
            _ if find(&text).is_some() => (Purpose::Named, find(&text)),
            _ if effect_clause.is_some() => (Purpose::Named, effect_clause),
            _ if goal.goals.clicks.iter().any(|c| same(c, &text))
                || goal.goals.keys.iter().any(|k| {
                    matches!(&s.action.call, ActionCall::KeyboardInput { keys }
                        if crate::env::sim::normalize_keys(k) == crate::env::sim::normalize_keys(keys))
                }) =>
            {
                (Purpose::Expected, None)
            }
            _ => {
                // Does it bring the next step's control on screen?
                let next = steps.get(i + 1).filter(|n| {
                    !n.action.control_text.is_empty()
                        && before.live().resolve(&n.action).is_none()
                        && after.live().resolve(&n.action).is_some()
                });
                match next {
                    Some(n) => (Purpose::Reveals(n.action.control_text.clone()), None),
                    None => (Purpose::Other, None),
                }
            }
        };
        purposes.push(p);
    }
    // Steps that serve no named clause serve the next step's.
    let mut next_clause: Option<String> = None;
    for p in purposes.iter_mut().rev() {
        match &p.1 {
            Some(c) => next_clause = Some(c.clone()),
            None => p.1 = next_clause.clone(),
        }
    }
    let fallback = parts.last().cloned().unwrap_or_default();
    let out_list = outputs.join(" and ");
    steps
        .into_iter()
        .zip(purposes)
        .enumerate()
        .map(|(i, (mut step, (purpose, clause)))| {
            let c = clause.unwrap_or_else(|| fallback.clone());
            let t = step.action.control_text.clone();
            let key = format!("{}#{i}", inst.instruction);
            let pick = |n| variant(&key, n);
            let thought = match purpose {
                Purpose::ShowDesktop => match pick(2) {
                    0 => format!("{app} is not open yet; showing the desktop brings its launcher into view."),
                    _ => format!("To {c} I need {app}, which is not running, so I first go to the desktop where its launcher is."),
                },
                Purpose::Launch => match pick(2) {
                    0 => format!("This part of the task happens in {app}, which is not open yet, so I start it from its launcher."),
                    _ => format!("{app} has to be running to {c}; its launcher '{t}' starts it."),
                },
                Purpose::Focus => format!("{app} is open behind the current window; I bring it to the front to {c}."),
                Purpose::Dismiss => format!("A message box is in the way; '{t}' closes it so I can {c}."),
                Purpose::Scroll(list, next) => match next {
                    Some(n) => format!("'{n}' is further down in '{list}' and I need it to {c}, so I scroll the list."),
                    None => format!("What I need to {c} is further down in '{list}', so I scroll the list."),
                },
                Purpose::Value { value, field, enter } => {
                    let enter_s = if enter { " and press Enter to confirm it" } else { "" };
                    let output = inst
                        .outputs
                        .iter()
                        .find(|r| r.parameter.as_deref() == Some(value.as_str()));
                    let input = inst
                        .inputs
                        .iter()
                        .find(|r| r.parameter.as_deref() == Some(value.as_str()));
                    let rule = goal.values.iter().find(|v| v.text == value).map(|v| v.rule.clone());
                    let path = value.starts_with('/') || value.starts_with('~');
                    match (output, input, rule) {
                        (Some(r), None, _) if path => {
                            let noun = noun_of(root, &r.kind);
                            match pick(2) {
                                0 => format!("The {noun} has to be saved as '{value}', so I type that path into '{field}'{enter_s}."),
                                _ => format!("'{field}' decides where the {noun} goes, and the task wants it at '{value}'; I type that path{enter_s}."),
                            }
                        }
                        (Some(r), None, _) => {
                            let noun = noun_of(root, &r.kind);
                            match pick(2) {
                                0 => format!("The {noun} to end up with is '{value}', so '{value}' goes into '{field}'{enter_s}."),
                                _ => format!("To {c}, '{field}' must hold '{value}', the value the task asks for; I type it{enter_s}."),
                            }
                        }
                        (_, Some(r), _) if path => {
                            let noun = noun_of(root, &r.kind);
                            match pick(2) {
                                0 => format!("The {noun} to work on is '{value}'; I type its path into '{field}'{enter_s}, the direct way to it."),
                                _ => format!("To {c}, I need '{value}', so I give its path in '{field}'{enter_s}."),
                            }
                        }
                        (_, _, Some(FieldRule::Only(f))) => match pick(2) {
                            0 => format!("The instruction names '{value}' for {f}, so that is what goes into '{field}'{enter_s}."),
                            _ => format!("{} must be '{value}' as the instruction says; I type it into '{field}'{enter_s}.", upper_first(&f)),
                        },
                        // The clause is a later one (it does not name the value).
                        _ if !c.contains(value.as_str()) => format!("'{field}' has to hold '{value}' for this; I type it there{enter_s}."),
                        _ => match pick(3) {
                            0 => format!("To {c}, '{field}' needs '{value}'; I type it there{enter_s}."),
                            1 => format!("The instruction asks to {c}, so I enter '{value}' in '{field}'{enter_s}."),
                            _ => format!("'{value}' comes from the instruction ({c}); '{field}' is where it belongs{enter_s}."),
                        },
                    }
                }
                Purpose::Outputs => match (&step.action.call, pick(2)) {
                    (ActionCall::KeyboardInput { keys }, _) => format!("Everything to {c} is in place; the shortcut {keys} carries it out and should give {out_list}."),
                    (_, 0) => format!("Everything to {c} is in place; '{t}' carries it out and should give {out_list}."),
                    _ => format!("The last thing left is to {c}: '{t}' does it, which should produce {out_list}."),
                },
                Purpose::Item { value, open } => {
                    let target = value.trim_end_matches('/');
                    let is_it = same(vfs::base_name(target), &t) || same(target, &t);
                    // "select 'X'" is the clause itself: no "to select 'X'" after it.
                    let selecting = c.to_lowercase().starts_with("select");
                    match (is_it, open) {
                        (true, true) if same(target, &t) => format!("'{t}' is the one the instruction names; I open it."),
                        (true, true) => format!("'{t}' is '{value}', the one the instruction names, so I open it."),
                        (true, false) if selecting => format!("'{t}' is the item the instruction is about, so I select it in the list first."),
                        (true, false) => format!("'{t}' is the one the instruction names; I select it to {c}."),
                        (false, true) => format!("'{value}' is inside '{t}', so I open that folder on the way to it."),
                        (false, false) => format!("'{value}' is inside '{t}'; I select that folder on the way to it."),
                    }
                }
                Purpose::Named => match pick(3) {
                    0 => format!("The next part of the goal is to {c}, and '{t}' is the control for it."),
                    1 => format!("To {c}, as the instruction asks, I use '{t}'."),
                    _ => format!("The instruction says to {c}; '{t}' is how this window does that."),
                },
                Purpose::Expected => match (&step.action.call, pick(2)) {
                    (ActionCall::KeyboardInput { keys }, _) => format!("To {c}, {keys} is the next thing this window needs, so I press it."),
                    (_, 0) => format!("To {c}, '{t}' is the next control to use here, so I click it."),
                    _ => format!("'{t}' is part of how this window does it: {c}."),
                },
                Purpose::Reveals(n) => match pick(2) {
                    0 => format!("To {c} I need '{n}', which is not on screen yet; '{t}' brings it up."),
                    _ => format!("'{n}' is not visible yet and I need it to {c}, so I open '{t}' first."),
                },
                Purpose::Other => match &step.action.call {
                    ActionCall::KeyboardInput { keys } if t.is_empty() => format!("Pressing {keys} moves me towards {c}."),
                    _ => format!("'{t}' moves me towards the goal: {c}."),
                },
            };
            step.thought = thought;
            step
        })
        .collect()
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// Longest run of steps [`prune`] tries to drop at once (a detour such as
/// "Compose, then Discard" goes only as a pair).
const PRUNE_RUN: usize = 3;

/// Drops detours from a plan that reaches the goal: runs of up to [`PRUNE_RUN`]
/// steps whose removal keeps every remaining step valid and the goal reached,
/// longest runs first, until no run can go. Best-first search finds a plan, not
/// the shortest one, and a demonstration should not wander.
/// Do `steps` from `root` reach the goal without a step the search would refuse
/// (an error, lost edits, with `careful` a write over an input)?
fn reaches(root: &dyn Replica, goal: &Goal<'_>, steps: &[PlannedStep], careful: bool) -> bool {
    let mut desk = root.fork();
    let mut cutoff = None;
    for s in steps {
        let held = goal.outputs_hold(&*desk);
        let before = desk.fork();
        if !desk.act_quiet(&s.action)
            || shows_error(&*desk)
            || discards_edits(&*before, &*desk)
            || (careful && overwrites_input(goal.inst, &*desk))
        {
            return false;
        }
        cutoff = next_cutoff(goal, cutoff, held, &*desk);
    }
    goal.distance(&*desk, cutoff).0 == 0
}

/// The `hint` actions (the application's own path to the subtask, see
/// [`OfflineActor::hint`]) as planned steps from `root`: the launcher first when
/// the application is not open, each action named by the label of the control it
/// acts on. `None` when a control is missing.
fn hinted_steps(root: &dyn Replica, app: &str, hint: &[Action]) -> Option<Vec<PlannedStep>> {
    let mut desk = root.fork();
    let mut out = Vec::new();
    let open = desk.state().windows.iter().any(|w| w.app == app);
    let mut actions: Vec<Action> = Vec::new();
    if !open {
        let launcher = desk.live().controls.iter().find_map(|c| match c.target {
            Target::Launch(i) if desk.specs().get(i).is_some_and(|a| a.spec.name == app) => {
                Some(click(&c.info.label, &c.info.control_text, false))
            }
            _ => None,
        })?;
        actions.push(launcher);
    }
    actions.extend(hint.iter().cloned());
    for mut action in actions {
        let label = desk
            .live()
            .controls
            .iter()
            .find(|c| c.info.control_text == action.control_text)
            .map(|c| c.info.label.clone())?;
        action.control_label = Some(label);
        if !desk.act_quiet(&action) {
            return None;
        }
        out.push(PlannedStep {
            action,
            thought: String::new(),
        });
    }
    Some(out)
}

fn prune(
    root: &dyn Replica,
    goal: &Goal<'_>,
    mut steps: Vec<PlannedStep>,
    careful: bool,
) -> Vec<PlannedStep> {
    let reaches = |steps: &[PlannedStep]| reaches(root, goal, steps, careful);
    'again: loop {
        for run in (1..=PRUNE_RUN.min(steps.len())).rev() {
            for i in 0..=steps.len() - run {
                let mut shorter = steps.clone();
                shorter.drain(i..i + run);
                if reaches(&shorter) {
                    steps = shorter;
                    continue 'again;
                }
            }
        }
        return steps;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setting_the_action_says_is_not_typed_one_the_instruction_names_is() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let catalog = Catalog::load(root).unwrap();
        let subtask = |template: &str, slot: &str, value: &str| {
            let mut params = crate::model::ParameterSet::new();
            params.insert(slot.to_string(), value.to_string());
            crate::model::Subtask {
                id: crate::model::SubtaskId("s".into()),
                instruction_template: template.into(),
                application: "Photos".into(),
                category: None,
                os: "Linux".into(),
                available_parameters: vec![params],
                input_resources: vec![],
                output_resources: vec!["setting_value".into()],
                evaluation: None,
                trajectories: vec![],
                provenance: None,
            }
        };
        let rule_of = |s: &crate::model::Subtask| {
            let inst = Instance::new(&catalog, s, 0).unwrap();
            values_of(&inst, &["New name".to_string()])
                .into_iter()
                .map(|v| v.rule)
                .collect::<Vec<_>>()
        };
        let wallpaper = subtask(
            "In Photos, set the picture as wallpaper.",
            "setting_value",
            "wallpaper=beach.jpg",
        );
        assert_eq!(rule_of(&wallpaper), vec![FieldRule::Never]);
        let budget = subtask(
            "In Finance, set the monthly budget '{setting_value}'.",
            "setting_value",
            "2000",
        );
        assert_eq!(rule_of(&budget), vec![FieldRule::Free]);
    }

    #[test]
    fn templates_give_back_their_values() {
        let p = match_template(
            "Open '{video_path}' and play it at {speed}x.",
            "Open '/home/user/Videos/a.mp4' and play it at 2x.",
        )
        .unwrap();
        assert_eq!(p["video_path"], "/home/user/Videos/a.mp4");
        assert_eq!(p["speed"], "2");
        assert!(match_template("Open '{a}'.", "Close 'x'.").is_none());
        let p = match_template("{a} and {a}", "x and x").unwrap();
        assert_eq!(p["a"], "x");
        assert!(match_template("{a} and {a}", "x and y").is_none());
    }

    #[test]
    fn literal_text_is_escaped() {
        assert_eq!(literal_keys("2+3 (x)"), "2{+}3 {(}x{)}");
    }

    #[test]
    fn a_record_read_is_picked_not_made_again_in_a_box_named_like_its_kind() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let base = crate::env::EnvSetup::default()
            .desktops(root)
            .unwrap()
            .replica()
            .unwrap();
        let catalog = Catalog::load(root).unwrap();
        let s: crate::model::Subtask = serde_json::from_value(serde_json::json!({
            "id": "00000000-0000-0000-0000-000000000001",
            "instruction_template": "In Notes, select '{note_title}', then export a note as a text file, giving the text file '{txt_path}'.",
            "application": "Notes",
            "OS": "Linux",
            "available_parameters": [
                {"note_title": "Groceries", "txt_path": "/home/user/Documents/Groceries.txt"},
                {"note_title": "Home budget notes", "txt_path": "/home/user/Documents/Home budget notes.txt"}
            ],
            "input_resources": ["note_title"],
            "output_resources": ["txt_path"]
        }))
        .unwrap();
        let actor = OfflineActor::new(base.clone(), catalog.clone(), vec![s.clone()]);
        for idx in 0..2 {
            let inst = Instance::new(&catalog, &s, idx).unwrap();
            let plan = actor.plan(&inst, &Subgoals::default()).unwrap();
            let clicked: Vec<&str> = plan
                .iter()
                .map(|p| p.action.control_text.as_str())
                .collect();
            // Not "File Note", "Note title", "Save" first: the note exists, and
            // 'Note title' is the box of another screen that makes a new one.
            assert!(!clicked.contains(&"File Note"), "{clicked:?}");
            assert_eq!(clicked.last(), Some(&"Export"), "{clicked:?}");
        }
    }
}
