//! Task trajectories on a real desktop (`synth trajectories --env x11|osworld`).
//!
//! A real desktop cannot be cloned to try shortcuts, so joining is plain: a task
//! starts on the empty desktop, and each node, in the order, opens its
//! application from the desktop's launcher (its keys, the application's name,
//! Enter: what a person does from a start menu; Alt+F2 on x11, Super on
//! OSWorld's GNOME, see [`crate::env::Desktops::launcher_keys`]) and then takes
//! the steps of its verified demonstration, which begins with that
//! application's new window in front. The trajectories stage replays the result
//! on a fresh desktop with the graph evaluator, as on the simulated desktop.

use super::trajectories::{AssembleError, TrajectoryIndex};
use crate::model::{ActionCall, Task, TaskId, TaskTrajectory, TrajectoryAction};

/// The k-th task trajectory of `task` for `order`, each node opened with the
/// launcher that `launcher_keys` open.
///
/// # Errors
/// A node of the order that the task does not have, or a node without a verified
/// trajectory.
pub fn assemble(
    task: &Task,
    k: usize,
    order: &[String],
    index: &TrajectoryIndex<'_>,
    launcher_keys: &str,
) -> Result<TaskTrajectory, AssembleError> {
    let task_id = task
        .task_id
        .clone()
        .unwrap_or_else(|| TaskId(String::new()));
    let trajectory_id = format!("{}({k})", task_id.0);
    let mut actions = Vec::new();
    for id in order {
        let node = task
            .nodes
            .get(id)
            .ok_or_else(|| AssembleError::UnknownNode { node: id.clone() })?;
        let demo = index
            .get(&(&node.subtask_id, node.parameter_index))
            .ok_or_else(|| AssembleError::NoTrajectory {
                node: id.clone(),
                subtask: node.subtask_id.0.clone(),
                index: node.parameter_index,
            })?;
        actions.extend(launch_steps(&node.application, launcher_keys));
        actions.extend(demo.actions.iter().cloned());
    }
    let observations = (0..actions.len())
        .map(|i| format!("{trajectory_id}/step_{i:02}.png"))
        .collect();
    Ok(TaskTrajectory {
        trajectory_id,
        task_id,
        topological_order: order.to_vec(),
        instruction: task.task_instruction.clone(),
        intent: task.task_intent.clone(),
        observations,
        actions,
    })
}

/// Opening `app` from the launcher: its keys, the name, Enter.
fn launch_steps(app: &str, launcher_keys: &str) -> Vec<TrajectoryAction> {
    let step = |keys: &str, thought: String| TrajectoryAction {
        call: ActionCall::KeyboardInput { keys: keys.into() },
        rect: [0; 4],
        description: String::new(),
        thought,
        effect: String::new(),
        control_text: String::new(),
        control_label: None,
    };
    vec![
        step(
            launcher_keys,
            format!("The next part of the task is done in {app}; I open the launcher to start it."),
        ),
        step(app, format!("I type '{app}' to find it.")),
        step(
            "{ENTER}",
            format!("{app} is the first match; Enter starts it."),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_application_is_opened_from_the_launcher() {
        let steps = launch_steps("Mousepad", "%{F2}");
        let keys: Vec<String> = steps
            .iter()
            .map(|s| match &s.call {
                ActionCall::KeyboardInput { keys } => keys.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(keys, ["%{F2}", "Mousepad", "{ENTER}"]);
    }
}
