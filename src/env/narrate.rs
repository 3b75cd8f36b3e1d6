//! A recorded step's observation text for a desktop seen only through its
//! observation ([`observation_before`]), the default of
//! [`crate::env::Environment::describe_before`].

use super::Observation;
use crate::model::Action;

/// What the screen shows before `action`, from the observation alone: the
/// window title and the control the action is about to use.
pub fn observation_before(obs: &Observation, action: &Action) -> String {
    let mut out = format!("The window '{}' is in front.", obs.window_title);
    let control = obs
        .controls
        .iter()
        .find(|c| action.control_label.as_deref() == Some(c.label.as_str()))
        .or_else(|| {
            obs.controls
                .iter()
                .find(|c| !action.control_text.is_empty() && c.control_text == action.control_text)
        });
    if let Some(c) = control {
        out.push_str(&format!(
            " The {} '{}' is visible.",
            c.control_type.to_lowercase(),
            c.control_text
        ));
    }
    out
}
