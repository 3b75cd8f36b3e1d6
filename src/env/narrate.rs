//! A recorded step's observation text for a desktop seen only through its
//! observation ([`observation_before`]), the default of
//! [`crate::env::Environment::describe_before`].

use super::Observation;
use crate::model::Action;

/// What the screen shows before `action`, from the observation alone: the
/// window title (or that no window is open: a real desktop before its first
/// application starts shows none) and the control the action is about to use.
pub fn observation_before(obs: &Observation, action: &Action) -> String {
    let mut out = if !obs.window_title.trim().is_empty() {
        format!("The window '{}' is in front.", obs.window_title)
    } else if obs.controls.is_empty() {
        "No window is open: the desktop is empty.".to_string()
    } else {
        "A window without a title is in front.".to_string()
    };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ActionCall;

    fn obs(title: &str, controls: Vec<crate::env::ControlInfo>) -> Observation {
        Observation {
            window_title: title.into(),
            controls,
            feedback: None,
            scene: Default::default(),
            captured: None,
        }
    }

    #[test]
    fn an_empty_desktop_is_said_to_show_no_window() {
        let keys = Action {
            call: ActionCall::KeyboardInput {
                keys: "%{F2}".into(),
            },
            control_label: None,
            control_text: String::new(),
        };
        assert_eq!(
            observation_before(&obs("", Vec::new()), &keys),
            "No window is open: the desktop is empty."
        );
        assert_eq!(
            observation_before(&obs("Untitled 1 - Mousepad", Vec::new()), &keys),
            "The window 'Untitled 1 - Mousepad' is in front."
        );
    }
}
