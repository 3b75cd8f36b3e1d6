//! The texts of a recorded step that are not the action itself. What the screen
//! shows *before* the action (the step's observation) is the environment's to
//! say ([`crate::env::Environment::describe_before`]); what the action did (its
//! effect) is the environment's feedback, kept apart so that no exporter
//! presents it as the observation. This module holds the short text of the
//! action itself ([`action_text`]).

use crate::model::ActionCall;

/// A short text of the action itself ("Click 'Open'", "Type \"x\" into 'To'").
pub fn action_text(call: &ActionCall, control_text: &str) -> String {
    match call {
        ActionCall::ClickInput { double: true, .. } => format!("Double-click '{control_text}'"),
        ActionCall::ClickInput { .. } => format!("Click '{control_text}'"),
        ActionCall::KeyboardInput { keys } if control_text.is_empty() => format!("Press {keys}"),
        ActionCall::KeyboardInput { keys } => format!("Type {keys:?} into '{control_text}'"),
        ActionCall::WheelMouseInput { wheel_dist } => {
            format!("Scroll '{control_text}' by {wheel_dist}")
        }
    }
}
