//! The per-step training examples that `sharegpt`, `openai` and `qwen` write.
//!
//! One example per step of every exported task trajectory, plus one final example
//! per trajectory whose answer ends the task (`FINISH` / `DONE`), so a model also
//! learns when to stop. An example is: a system prompt describing the action space,
//! a user prompt (the instruction, the intent with `--intent`, the previous steps
//! as text, the current window title) with the current screenshot, and the
//! assistant's answer (the recorded thought and the action in the chosen space).
//! The literal `<image>` never occurs in the texts (it would break the image-token
//! count of ShareGPT and Qwen data): it is written `[image]`.

use serde_json::json;

use super::actions::{self, ActionSpace, StepAction};
use super::ExportCx;
use crate::model::TrajectoryAction;

/// One training example.
#[derive(Debug, Clone, PartialEq)]
pub struct StepExample {
    /// `<trajectory id>#<step>`.
    pub id: String,
    pub task_id: String,
    pub system: String,
    /// The user prompt without the image.
    pub prompt: String,
    /// The screenshot, relative to the output folder.
    pub image: String,
    pub answer: String,
    pub os_map_level: &'static str,
}

const OMNIBENCH_SYSTEM: &str = "You operate a desktop computer through its controls to accomplish the user's task. \
Each turn shows the current screenshot. Answer with one JSON object: {\"Status\": \"CONTINUE\" or \"FINISH\", \
\"Observation\": what the screen shows, \"Thought\": the reasoning behind the next action, \"ControlLabel\": the label \
of the control to act on, \"ControlText\": its text, \"Function\": click_input, keyboard_input or wheel_mouse_input, \
\"Args\": the function's arguments}. Use click_input(button, double), keyboard_input(keys) with pywinauto key \
notation such as ^s or {ENTER}, and wheel_mouse_input(wheel_dist) where a positive distance scrolls down. When the \
task is complete, answer with Status FINISH and empty action fields.";

const PYAUTOGUI_SYSTEM: &str = "You operate a desktop computer (1280x800 pixels) to accomplish the user's task. \
Each turn shows the current screenshot. Answer with two lines: 'Thought: ' followed by your reasoning, and \
'Action: ' followed by one line of Python code using pyautogui (click, doubleClick, rightClick, scroll, write, \
press, hotkey) with pixel coordinates. When the task is complete, answer 'Action: DONE'.";

const COMPUTER13_SYSTEM: &str = "You operate a desktop computer (1280x800 pixels) to accomplish the user's task. \
Each turn shows the current screenshot. Answer with two lines: 'Thought: ' followed by your reasoning, and \
'Action: ' followed by a JSON list of actions, each {\"action_type\": ..., \"parameters\": {...}} with action_type \
one of MOVE_TO, CLICK, MOUSE_DOWN, MOUSE_UP, RIGHT_CLICK, DOUBLE_CLICK, DRAG_TO, SCROLL, TYPING, PRESS, KEY_DOWN, \
KEY_UP, HOTKEY, WAIT, FAIL, DONE. When the task is complete, answer with the DONE action.";

/// The system prompt of an action space.
pub fn system_prompt(space: ActionSpace) -> &'static str {
    match space {
        ActionSpace::Omnibench => OMNIBENCH_SYSTEM,
        ActionSpace::Pyautogui => PYAUTOGUI_SYSTEM,
        ActionSpace::Computer13 => COMPUTER13_SYSTEM,
    }
}

/// Replaces the image token so that texts never add one.
pub fn no_image_token(s: &str) -> String {
    s.replace("<image>", "[image]")
}

/// The step as the exporter renders it: the native action with the replayed box.
pub fn step_action<'a>(
    a: &'a TrajectoryAction,
    control: Option<&'a crate::env::ControlInfo>,
) -> StepAction<'a> {
    StepAction {
        call: &a.call,
        control_text: control.map_or(a.control_text.as_str(), |c| c.control_text.as_str()),
        control_label: control
            .map(|c| c.label.as_str())
            .or(a.control_label.as_deref()),
        rect: control.map(|c| c.rect),
    }
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// Every example of the export, in trajectory then step order.
pub fn step_examples(cx: &ExportCx<'_>) -> Vec<StepExample> {
    let space = cx.args.actions;
    let system = system_prompt(space).to_string();
    let mut out = Vec::new();
    for (task, traj, replay) in cx.trajectories() {
        let instruction = cx.instruction(task, traj);
        let intent = cx.intent(task, traj);
        let level = cx.level(task);
        let mut history: Vec<String> = Vec::new();
        for k in 0..=traj.actions.len() {
            let mut prompt = format!("Task: {instruction}\n");
            if let Some(i) = intent {
                prompt.push_str(&format!("Intent: {i}\n"));
            }
            prompt.push_str("Previous steps:\n");
            if history.is_empty() {
                prompt.push_str("(none)\n");
            }
            for (i, h) in history.iter().enumerate() {
                prompt.push_str(&format!("{}. {h}\n", i + 1));
            }
            let title = replay
                .steps
                .get(k)
                .map_or(replay.final_title.as_str(), |s| s.window_title.as_str());
            let window = if title.trim().is_empty() {
                "none (the desktop is empty)"
            } else {
                title
            };
            prompt.push_str(&format!("Current window: {window}\nCurrent screenshot:"));
            let answer = match traj.actions.get(k) {
                Some(a) => {
                    let control = replay.steps[k].control.as_ref();
                    let step = step_action(a, control);
                    let said = actions::describe(&step, control.map(|c| c.control_type.as_str()));
                    let thought = if a.thought.trim().is_empty() {
                        format!("Next I {}.", lower_first(&said))
                    } else {
                        a.thought.clone()
                    };
                    let answer = answer(space, &step, &thought, &a.description, title);
                    history.push(said);
                    answer
                }
                None => finish_answer(space, title),
            };
            out.push(StepExample {
                id: format!("{}#{k}", traj.trajectory_id),
                task_id: traj.task_id.0.clone(),
                system: system.clone(),
                prompt: no_image_token(&prompt),
                image: replay.images.get(k).cloned().unwrap_or_default(),
                answer: no_image_token(&answer),
                os_map_level: level,
            });
        }
    }
    out
}

fn observation_text(description: &str, title: &str) -> String {
    if description.trim().is_empty() && title.trim().is_empty() {
        // A real desktop before its first application starts.
        "No window is open: the desktop is empty.".to_string()
    } else if description.trim().is_empty() {
        format!("The window '{title}' is shown.")
    } else {
        description.to_string()
    }
}

fn answer(
    space: ActionSpace,
    step: &StepAction<'_>,
    thought: &str,
    description: &str,
    title: &str,
) -> String {
    match space {
        ActionSpace::Omnibench => {
            let native = actions::omnibench(step);
            json!({
                "Status": "CONTINUE",
                "Observation": observation_text(description, title),
                "Thought": thought,
                "ControlLabel": native["control_label"],
                "ControlText": native["control_text"],
                "Function": native["function"],
                "Args": native["args"],
            })
            .to_string()
        }
        _ => format!(
            "Thought: {thought}\nAction: {}",
            actions::render_text(space, step)
        ),
    }
}

fn finish_answer(space: ActionSpace, title: &str) -> String {
    let thought = "Every step of the task is done.";
    match space {
        ActionSpace::Omnibench => json!({
            "Status": "FINISH",
            "Observation": observation_text("", title),
            "Thought": thought,
            "ControlLabel": "",
            "ControlText": "",
            "Function": "",
            "Args": {},
        })
        .to_string(),
        _ => {
            let done = match actions::finish(space) {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            format!("Thought: {thought}\nAction: {done}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::observation_text;

    #[test]
    fn a_step_on_an_empty_desktop_says_no_window_is_open() {
        assert_eq!(
            observation_text("", ""),
            "No window is open: the desktop is empty."
        );
        assert_eq!(
            observation_text("", "Notes"),
            "The window 'Notes' is shown."
        );
        assert_eq!(
            observation_text("Notes shows a list.", ""),
            "Notes shows a list."
        );
    }
}
