//! The low-level instruction from demonstrations: for each node, in the task's
//! first topological order, its instruction, what it waits for, and the GUI steps
//! of the node's verified subtask trajectory ("click 'Compress'", "type
//! '/home/user/a.txt' into 'File name'"). This is what OmniBench's step-by-step
//! instructions are: the actions at the level of controls, several times longer
//! than the high-level request.
//!
//! Pure: reads the task and the verified subtasks the stage passes in.

use std::collections::BTreeMap;

use super::text;
use crate::model::{ActionCall, Subtask, SubtaskId, Task, TrajectoryAction};

/// The low-level instruction, or `None` when some node has no stored trajectory
/// for its parameter set (the summarizer's numbered steps are kept then).
pub fn gui_steps(task: &Task, subtasks: &BTreeMap<&SubtaskId, &Subtask>) -> Option<String> {
    let order: Vec<&String> = match task.successful_topo.first() {
        Some(o) if o.len() == task.dag.nodes.len() => o.iter().collect(),
        _ => task.dag.nodes.iter().collect(),
    };
    let position: BTreeMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(p, id)| (id.as_str(), p + 1))
        .collect();
    let mut lines = Vec::with_capacity(order.len());
    let mut apps_before: Vec<&str> = Vec::new();
    for (p, id) in order.iter().enumerate() {
        let node = task.nodes.get(*id)?;
        let sub = subtasks.get(&node.subtask_id)?;
        let trajectory = sub
            .trajectories
            .iter()
            .find(|t| t.parameter_index.unwrap_or(0) == node.parameter_index)?;
        let mut needs: Vec<usize> = task
            .dag
            .edges
            .iter()
            .filter(|(_, succ)| succ.contains(id))
            .filter_map(|(from, _)| position.get(from.as_str()).copied())
            .collect();
        needs.sort_unstable();
        let needs_text = match needs.as_slice() {
            [] => "needs nothing earlier".to_string(),
            [one] => format!("after step {one}"),
            many => {
                let items: Vec<String> = many.iter().map(usize::to_string).collect();
                format!("after steps {}", text::join_and(&items))
            }
        };
        let app = node.application.as_str();
        let window = if p == 0 {
            Window::BareDesktop
        } else if apps_before.contains(&app) {
            Window::Open {
                in_front: apps_before.last() == Some(&app),
            }
        } else {
            Window::Covered
        };
        apps_before.push(app);
        let (switch, played) = as_played(window, app, &trajectory.actions);
        let actions: Vec<String> = switch.into_iter().chain(phrases(played)).collect();
        let instruction = node
            .instruction
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        lines.push(format!(
            "{}. ({needs_text}) {} Steps: {}.",
            p + 1,
            instruction,
            actions.join("; ")
        ));
    }
    Some(lines.join("\n"))
}

/// Where a node's application stands when the task's trajectory reaches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Window {
    /// Nothing is open yet: the task starts on the bare desktop.
    BareDesktop,
    /// An earlier node left the application's window open, in front when
    /// `in_front` (the node just before used it too).
    Open { in_front: bool },
    /// Other windows cover the desktop and the application is not running.
    Covered,
}

/// The actions of a node as the task's trajectory plays them, and a step it
/// adds first. A subtask's recording shows the desktop, then starts its
/// application from the icon. The task's first node needs no click to show
/// the bare desktop; a node whose application an earlier node left open
/// switches to its window on the taskbar (no click when it is in front)
/// instead of starting it again; otherwise the recording is played as it is.
fn as_played<'a>(
    window: Window,
    app: &str,
    actions: &'a [TrajectoryAction],
) -> (Option<String>, &'a [TrajectoryAction]) {
    let single_click =
        |a: &TrajectoryAction| matches!(a.call, ActionCall::ClickInput { double: false, .. });
    let launches = matches!(actions, [first, launch, ..]
        if single_click(first)
            && first.control_text != app
            && single_click(launch)
            && launch.control_text == app);
    match window {
        _ if !launches => (None, actions),
        Window::BareDesktop => (None, &actions[1..]),
        Window::Open { in_front: true } => (None, &actions[2..]),
        Window::Open { in_front: false } => {
            (Some(format!("click '{app}' on the taskbar")), &actions[2..])
        }
        Window::Covered => (None, actions),
    }
}

/// A node's recorded actions in words. A text box shows what was typed into
/// it, so a recording names a box typed into twice by its first value ("type
/// 'b.sh' into 'a.sh'"); it is named as it was before (`File name`).
fn phrases(actions: &[TrajectoryAction]) -> Vec<String> {
    let mut named: BTreeMap<String, String> = BTreeMap::new();
    actions
        .iter()
        .map(|a| {
            let control = a.control_text.trim();
            let ActionCall::KeyboardInput { keys } = &a.call else {
                return action_phrase(a, control);
            };
            if control.is_empty() || is_key_combo(keys) {
                return action_phrase(a, control);
            }
            let name = named.get(control).cloned().unwrap_or(control.to_string());
            named.insert(literal(keys), name.clone());
            action_phrase(a, &name)
        })
        .collect()
}

/// One recorded action in words, on the control called `control`.
fn action_phrase(action: &TrajectoryAction, control: &str) -> String {
    match &action.call {
        ActionCall::ClickInput { double: true, .. } => format!("double-click '{control}'"),
        ActionCall::ClickInput { button, .. } if button == "right" => {
            format!("right-click '{control}'")
        }
        ActionCall::ClickInput { .. } => format!("click '{control}'"),
        ActionCall::WheelMouseInput { wheel_dist } => {
            let way = if *wheel_dist < 0 { "up" } else { "down" };
            format!("scroll '{control}' {way}")
        }
        ActionCall::KeyboardInput { keys } if is_key_combo(keys) => format!("press {keys}"),
        ActionCall::KeyboardInput { keys } if control.is_empty() => {
            format!("type '{}'", literal(keys))
        }
        ActionCall::KeyboardInput { keys } => {
            format!("type '{}' into '{control}'", literal(keys))
        }
    }
}

/// The text the keys type: a reader of the steps types what they say.
fn literal(keys: &str) -> String {
    crate::env::sim::keys_as_text(keys)
}

/// pywinauto key notation (`^s`, `{ENTER}`, `%{F4}`) rather than text to type.
fn is_key_combo(keys: &str) -> bool {
    keys.starts_with(['^', '%', '+']) || (keys.starts_with('{') && keys.ends_with('}'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_read_as_steps() {
        let click: TrajectoryAction = serde_json::from_value(serde_json::json!({
            "function": "click_input", "args": {"button": "left", "double": false},
            "control_text": "Compress"}))
        .unwrap();
        let typed: TrajectoryAction = serde_json::from_value(serde_json::json!({
            "function": "keyboard_input", "args": {"keys": "/home/user/a.txt"},
            "control_text": "File name"}))
        .unwrap();
        let key: TrajectoryAction = serde_json::from_value(serde_json::json!({
            "function": "keyboard_input", "args": {"keys": "^s"}, "control_text": ""}))
        .unwrap();
        let phrase = |a: &TrajectoryAction| action_phrase(a, a.control_text.trim());
        assert_eq!(phrase(&click), "click 'Compress'");
        assert_eq!(phrase(&typed), "type '/home/user/a.txt' into 'File name'");
        assert_eq!(phrase(&key), "press ^s");
        let escaped: TrajectoryAction = serde_json::from_value(serde_json::json!({
            "function": "keyboard_input", "args": {"keys": "cat {~}/a{+}b.txt"},
            "control_text": "Command"}))
        .unwrap();
        assert_eq!(phrase(&escaped), "type 'cat ~/a+b.txt' into 'Command'");
        let retyped: TrajectoryAction = serde_json::from_value(serde_json::json!({
            "function": "keyboard_input", "args": {"keys": "/home/user/b.txt"},
            "control_text": "/home/user/a.txt"}))
        .unwrap();
        assert_eq!(
            phrases(&[typed, click, retyped]),
            [
                "type '/home/user/a.txt' into 'File name'",
                "click 'Compress'",
                "type '/home/user/b.txt' into 'File name'"
            ],
            "a box typed into twice keeps its name"
        );
    }

    #[test]
    fn a_node_starts_its_application_as_the_task_trajectory_does() {
        let click = |text: &str| TrajectoryAction::click(text, false);
        let recorded = [click("Start"), click("Sheets"), click("Open")];
        let steps = |w: Window, app: &str| -> Vec<String> {
            let (switch, played) = as_played(w, app, &recorded);
            switch
                .into_iter()
                .chain(played.iter().map(|a| a.control_text.clone()))
                .collect()
        };
        assert_eq!(steps(Window::BareDesktop, "Sheets"), ["Sheets", "Open"]);
        assert_eq!(
            steps(Window::Covered, "Sheets"),
            ["Start", "Sheets", "Open"],
            "a window covers the desktop"
        );
        assert_eq!(steps(Window::Open { in_front: true }, "Sheets"), ["Open"]);
        assert_eq!(
            steps(Window::Open { in_front: false }, "Sheets"),
            ["click 'Sheets' on the taskbar", "Open"]
        );
        assert_eq!(
            steps(Window::BareDesktop, "Writer"),
            ["Start", "Sheets", "Open"],
            "a click on another application's icon is no launch of this one"
        );
    }
}
