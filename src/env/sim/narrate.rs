//! What the simulated desktop shows before an action, in words (a recorded
//! step's observation text, [`SimDesktop::screen_before`]): it knows its whole
//! state, so it names the windows, the message box, the open document, the
//! visible fields' values and the selection, not only what the controls say.

use super::{SimDesktop, Target};
use crate::model::Action;

/// Longest field value quoted in an observation (longer ones are cut).
const MAX_VALUE: usize = 48;
/// Fields named in an observation at most (the acted-on one first).
const MAX_FIELDS: usize = 4;

fn quote(v: &str) -> String {
    let one_line = v.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MAX_VALUE {
        format!("'{one_line}'")
    } else {
        let cut: String = one_line.chars().take(MAX_VALUE).collect();
        format!("'{cut}...'")
    }
}

fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// What `desk` shows before `action` is taken on it: the window in front (or the
/// desktop), a message box, the open document, the values of the visible fields
/// (the acted-on one first), the selected item and the control the action is
/// about to use. Never the action's effect.
pub(super) fn screen_before(desk: &SimDesktop, action: &Action) -> String {
    let state = desk.state();
    let live = desk.live();
    let target = live.resolve(action).map(|i| &live.controls[i]);
    let mut out: Vec<String> = Vec::new();
    let active = state
        .active
        .and_then(|i| state.windows.get(i).map(|w| (i, w)));
    let others: Vec<String> = state
        .windows
        .iter()
        .enumerate()
        .filter(|(i, _)| active.map(|(a, _)| a) != Some(*i))
        .map(|(_, w)| w.app.clone())
        .collect();
    let Some((_, window)) = active else {
        out.push("The desktop is in front, with the application launchers.".into());
        if others.is_empty() {
            out.push("No application window is open.".into());
        } else {
            out.push(format!(
                "{} {} open on the taskbar.",
                and_list(&others),
                if others.len() == 1 { "is" } else { "are" }
            ));
        }
        if let Some(c) = target {
            if matches!(c.target, Target::Launch(_)) {
                out.push(format!(
                    "The '{}' launcher is visible.",
                    c.info.control_text
                ));
            }
        }
        return out.join(" ");
    };
    out.push(format!(
        "{} is in front, showing '{}'.",
        window.app, live.scene.title
    ));
    if let Some(d) = &window.dialog {
        out.push(format!(
            "A message box '{}' says {}.",
            d.title,
            quote(&d.message)
        ));
    }
    if let Some(doc) = &window.doc {
        out.push(format!(
            "The document '{}' is open{}.",
            doc.name(),
            if doc.modified {
                " with unsaved changes"
            } else {
                ""
            }
        ));
    }
    // The visible fields with their values, the acted-on one first.
    let screen = desk
        .app(&window.app)
        .and_then(|a| a.spec.screens.get(&window.screen));
    let mut fields: Vec<(bool, String)> = Vec::new();
    for c in &live.controls {
        let Target::Spec { index } = c.target else {
            continue;
        };
        let Some(spec) = screen
            .and_then(|s| s.controls.get(index))
            .map(|s| s.get_ref())
        else {
            continue;
        };
        use crate::env::spec::ControlType as T;
        if !matches!(spec.control_type, T::Edit | T::ComboBox | T::Document) {
            continue;
        }
        let is_target = target.is_some_and(|t| t.info.label == c.info.label);
        let text = match window
            .fields
            .get(&spec.field_name())
            .filter(|v| !v.is_empty())
        {
            Some(v) => format!("'{}' holds {}", spec.text, quote(v)),
            // A document area shows the open document, which no field holds.
            None if spec.control_type == T::Document && window.doc.is_some() => {
                format!("'{}' shows the document", spec.text)
            }
            None => format!("'{}' is empty", spec.text),
        };
        if !fields.iter().any(|(_, f)| f == &text) {
            fields.push((is_target, text));
        }
    }
    fields.sort_by_key(|(t, _)| !*t);
    fields.truncate(MAX_FIELDS);
    if !fields.is_empty() {
        let list: Vec<String> = fields.into_iter().map(|(_, f)| f).collect();
        let mut s = and_list(&list);
        if let Some(first) = s.get(..1) {
            s = first.to_uppercase() + &s[1..];
        }
        out.push(format!("{s}."));
    }
    if let Some(sel) = &window.selected {
        out.push(format!("'{sel}' is selected."));
    }
    if let Some(c) = target {
        let text = &c.info.control_text;
        match c.target {
            Target::Focus(_) => out.push(format!("'{text}' is on the taskbar.")),
            Target::ShowDesktop => {}
            Target::Item { .. } => out.push(format!("'{text}' is listed.")),
            Target::Spec { .. } if c.info.control_type == "Edit" => {}
            _ => out.push(format!(
                "The {} '{text}' is visible.",
                c.info.control_type.to_lowercase()
            )),
        }
    }
    if !others.is_empty() {
        out.push(format!(
            "{} {} also open on the taskbar.",
            and_list(&others),
            if others.len() == 1 { "is" } else { "are" }
        ));
    }
    out.join(" ")
}
