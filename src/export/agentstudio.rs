//! The record shapes AgentStudio's evaluation code reads, shared by [`super::grounding`],
//! [`super::idm`] and [`super::critic`].
//!
//! AgentStudio (`eval_agent_desiderata`) reads one JSONL file per benchmark and
//! resolves every image as `<folder of the jsonl>/images/<path>`, so these formats
//! write their paths relative to the export's `images/` folder
//! ([`super::ImageRoot::ImagesDir`]); absolute paths (`--image-paths absolute`)
//! also work, since Python's `os.path.join` keeps an absolute second part.
//!
//! A step is AgentStudio's `Action` record (its pydantic model in
//! `agent_studio/utils/types.py`): `action_id`, `obs_before`, `obs_after`,
//! `operation` (one of [`ACTION_SPACE`], the operation names of AgentStudio's own
//! desktop recordings), `bbox` (an object `{x, y, width, height}` in screenshot
//! pixels, or `null`), and `metadata` (string, number, list or object values;
//! `repr` is the text its success-detection prompt shows for the step). Every
//! record names `source` ([`SOURCE`]) and `platform` ([`PLATFORM`]).

use serde_json::{json, Value};

use super::actions::{render_text, StepAction};
use super::training::step_action;
use super::{ExportCx, ExportError, Replayed};
use crate::model::{ActionCall, TaskTrajectory};

/// The `source` of every record.
pub const SOURCE: &str = "synth";

/// The `platform` of every record.
pub const PLATFORM: &str = "desktop";

/// The operation names of AgentStudio's desktop recordings: the choices of an IDM
/// question and the `action_space` of every record. `MOUSE_DRAG` never occurs in
/// synth's trajectories (the action space has no drag) but stays a choice, as in
/// AgentStudio's own data.
pub const ACTION_SPACE: [&str; 7] = [
    "KEY_TYPE",
    "KEY_SHORTCUT",
    "KEY_PRESS",
    "MOUSE_DRAG",
    "MOUSE_CLICK",
    "MOUSE_SCROLL_UP",
    "MOUSE_SCROLL_DOWN",
];

/// The AgentStudio operation of a native step: clicks of any button are
/// `MOUSE_CLICK`; a wheel step scrolls down for a positive distance; keyboard input
/// that types any text is `KEY_TYPE`, one with a modifier combo and no text
/// `KEY_SHORTCUT`, named keys alone `KEY_PRESS`.
pub fn operation(call: &ActionCall) -> &'static str {
    match call {
        ActionCall::ClickInput { .. } => "MOUSE_CLICK",
        ActionCall::WheelMouseInput { wheel_dist } if *wheel_dist < 0 => "MOUSE_SCROLL_UP",
        ActionCall::WheelMouseInput { .. } => "MOUSE_SCROLL_DOWN",
        ActionCall::KeyboardInput { keys } => {
            use super::actions::KeyKind;
            match super::actions::key_kind(keys) {
                KeyKind::Text => "KEY_TYPE",
                KeyKind::Shortcut => "KEY_SHORTCUT",
                KeyKind::Press => "KEY_PRESS",
            }
        }
    }
}

/// The box of the control a step acts on as AgentStudio writes boxes.
pub fn bbox(step: &StepAction<'_>) -> Value {
    match step.rect {
        Some([l, t, r, b]) if r > l && b > t => {
            json!({"x": l, "y": t, "width": r - l, "height": b - t})
        }
        _ => Value::Null,
    }
}

/// The id of step `k` of a trajectory (also the grounding row's id).
pub fn step_id(traj: &TaskTrajectory, k: usize) -> String {
    format!("{}#{k}", traj.trajectory_id)
}

/// Step `k` of a replayed trajectory as AgentStudio's `Action`; its `obs_after`
/// is the screen after the action (the final screen after the last one).
pub fn action(
    cx: &ExportCx<'_>,
    traj: &TaskTrajectory,
    replay: &Replayed,
    k: usize,
) -> Result<Value, ExportError> {
    let a = &traj.actions[k];
    let s = &replay.steps[k];
    let step = step_action(a, s.control.as_ref());
    let mut metadata = json!({
        "repr": render_text(cx.args.actions, &step),
        "action": super::actions::render(cx.args.actions, &step),
        "control_text": step.control_text,
        "window_title": s.window_title,
    });
    if let Some(c) = s.control.as_ref() {
        metadata["control_type"] = json!(c.control_type);
    }
    Ok(json!({
        "action_id": step_id(traj, k),
        "obs_before": cx.image_ref(&replay.images[k])?,
        "obs_after": cx.image_ref(&replay.images[k + 1])?,
        "operation": operation(&a.call),
        "bbox": bbox(&step),
        "metadata": metadata,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_are_in_the_action_space() {
        let calls = [
            (
                ActionCall::ClickInput {
                    button: "right".into(),
                    double: true,
                },
                "MOUSE_CLICK",
            ),
            (
                ActionCall::WheelMouseInput { wheel_dist: -2 },
                "MOUSE_SCROLL_UP",
            ),
            (
                ActionCall::WheelMouseInput { wheel_dist: 3 },
                "MOUSE_SCROLL_DOWN",
            ),
            (
                ActionCall::KeyboardInput {
                    keys: "Q3 report{ENTER}".into(),
                },
                "KEY_TYPE",
            ),
            (
                ActionCall::KeyboardInput { keys: "^s".into() },
                "KEY_SHORTCUT",
            ),
            (
                ActionCall::KeyboardInput {
                    keys: "{ENTER}{TAB}".into(),
                },
                "KEY_PRESS",
            ),
            (
                ActionCall::KeyboardInput {
                    keys: "{ENTER}^a".into(),
                },
                "KEY_SHORTCUT",
            ),
        ];
        for (call, want) in calls {
            assert_eq!(operation(&call), want, "{call:?}");
            assert!(ACTION_SPACE.contains(&want));
        }
    }

    #[test]
    fn boxes_are_objects_in_pixels() {
        let call = ActionCall::WheelMouseInput { wheel_dist: 1 };
        let step = StepAction {
            call: &call,
            control_text: "",
            control_label: None,
            rect: Some([10, 20, 110, 60]),
        };
        assert_eq!(
            bbox(&step),
            json!({"x": 10, "y": 20, "width": 100, "height": 40})
        );
        let empty = StepAction {
            rect: Some([10, 20, 10, 60]),
            ..step
        };
        assert_eq!(bbox(&empty), Value::Null);
    }
}
