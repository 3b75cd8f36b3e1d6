//! Writing one task trajectory and setting one task's status: what tests and
//! hand-made datasets use (the trajectory stage writes its rows in bulk with
//! `put_task_trajectories`; readers use `Store::task_trajectories`).
//!
//! `task_trajectories` rows follow the shared contract: `trajectory_id`
//! `"<task_id>(<k>)"`, `status` `ok` (replays to full coverage) or `failed` (with a
//! `reason`), `body` the `model::TaskTrajectory` JSON.

use rusqlite::params;

use super::tasks::StoredTaskTrajectory;
use super::{Store, StoreError, TaskStatus, TrajectoryStatus};
use crate::model::TaskTrajectory;

impl Store {
    /// Stores (or replaces) one task trajectory with its status (`ok` or `failed`).
    pub fn put_task_trajectory(
        &self,
        trajectory: &TaskTrajectory,
        status: TrajectoryStatus,
        reason: Option<&str>,
    ) -> Result<(), StoreError> {
        self.put_task_trajectories(&[StoredTaskTrajectory {
            trajectory_id: trajectory.trajectory_id.clone(),
            task_id: trajectory.task_id.0.clone(),
            status,
            reason: reason.map(str::to_string),
            trajectory: trajectory.clone(),
        }])
    }

    /// Sets a stored task's status (`composed`, `validated`, `rejected`) and reason.
    /// Returns whether the task exists.
    pub fn set_task_status(
        &self,
        task_id: &str,
        status: TaskStatus,
        reason: Option<&str>,
    ) -> Result<bool, StoreError> {
        let n = self.conn().execute(
            "UPDATE tasks SET status = ?2, reason = ?3 WHERE task_id = ?1",
            params![task_id, status, reason],
        )?;
        Ok(n == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Dag, Task, TaskId};

    #[test]
    fn trajectories_round_trip_with_status() {
        let s = Store::open_in_memory().unwrap();
        let task = Task {
            task_id: Some(TaskId("t1".into())),
            task_instruction: "do it".into(),
            low_level_instruction: None,
            dag: Dag::default(),
            task_intent: "x".into(),
            purpose: None,
            successful_topo: vec![],
            nodes: Default::default(),
            topo_count: None,
            topo_truncated: None,
            cs_max: None,
            complexity: None,
            capabilities: vec![],
            scenario: None,
            os_map_level: None,
            quality: None,
            composition: None,
            validation: vec![],
        };
        s.add_dataset(1, "h", &serde_json::json!({}), "v1", 1, &[task], None, None)
            .unwrap();
        assert!(s
            .set_task_status("t1", TaskStatus::Validated, None)
            .unwrap());
        assert!(!s
            .set_task_status("nope", TaskStatus::Validated, None)
            .unwrap());
        assert_eq!(s.tasks(None).unwrap()[0].status, TaskStatus::Validated);
        let t = |k: usize| TaskTrajectory {
            trajectory_id: format!("t1({k})"),
            task_id: TaskId("t1".into()),
            topological_order: vec![],
            instruction: "do it".into(),
            intent: "x".into(),
            observations: vec![],
            actions: vec![],
        };
        s.put_task_trajectory(&t(1), TrajectoryStatus::Failed, Some("n0"))
            .unwrap();
        s.put_task_trajectory(&t(0), TrajectoryStatus::Ok, None)
            .unwrap();
        s.put_task_trajectory(&t(0), TrajectoryStatus::Ok, None)
            .unwrap();
        let all = s.task_trajectories(None).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].trajectory.trajectory_id, "t1(0)");
        let ok = s.task_trajectories(Some(TrajectoryStatus::Ok)).unwrap();
        assert_eq!(ok.len(), 1);
        assert_eq!(
            s.task_trajectories(Some(TrajectoryStatus::Failed)).unwrap()[0]
                .reason
                .as_deref(),
            Some("n0")
        );
    }
}
