//! What `synth report` reads beyond the records other stages read: counts by
//! status, rejection reasons, how many rounds and attempts units needed, and the
//! first rows of trajectories to show. Typed rows only; the page decides what
//! they mean.

use rusqlite::params;

use super::tasks::TaskTrajectoryRow;
use super::{from_json, Store, StoreError, TaskStatus, TrajectoryStatus};
use crate::model::{SubtaskStatus, SubtaskTrajectory, ValidationAttempt};

/// Subtasks of one (category, application, status).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolCount {
    /// Empty for a subtask without a category.
    pub category: String,
    pub application: String,
    pub status: SubtaskStatus,
    pub subtasks: usize,
    /// Parameter sets of the verified ones (0 for other statuses).
    pub instances: usize,
}

/// The last round of one (subtask, parameter set) cross-verification.
#[derive(Debug, Clone, PartialEq)]
pub struct LastRound {
    pub subtask_id: String,
    pub parameter_index: usize,
    /// Rounds stored for the pair.
    pub rounds: usize,
    /// The last round's record, as the verify stage stored it.
    pub body: serde_json::Value,
}

/// Whose rejection reasons [`Store::rejection_reasons`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejected {
    Subtasks,
    Tasks,
}

/// The text shown for a rejection stored without a reason.
pub const NO_REASON: &str = "(no reason given)";

impl Store {
    /// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`, by the store's clock (the
    /// same clock that stamps runs).
    pub fn now_utc(&self) -> Result<String, StoreError> {
        Ok(self
            .conn()
            .query_row("SELECT strftime('%Y-%m-%dT%H:%M:%SZ', 'now')", [], |r| {
                r.get(0)
            })?)
    }

    /// Subtasks by (category, application, status), in that order.
    pub fn pool_counts(&self) -> Result<Vec<PoolCount>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT COALESCE(s.category, ''), s.application, s.status, COUNT(*),
                    SUM(CASE WHEN s.status = ?1
                        THEN (SELECT COUNT(*) FROM subtask_parameters p WHERE p.subtask_id = s.id)
                        ELSE 0 END)
             FROM subtasks s GROUP BY 1, 2, 3",
        )?;
        let rows = stmt.query_map([SubtaskStatus::Verified], |r| {
            Ok(PoolCount {
                category: r.get(0)?,
                application: r.get(1)?,
                status: r.get(2)?,
                subtasks: r.get::<_, i64>(3)? as usize,
                instances: r.get::<_, Option<i64>>(4)?.unwrap_or(0) as usize,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The `limit` most frequent rejection reasons (most frequent first, then by
    /// reason), a missing reason counted as [`NO_REASON`].
    pub fn rejection_reasons(
        &self,
        of: Rejected,
        limit: usize,
    ) -> Result<Vec<(String, usize)>, StoreError> {
        let (table, status): (&str, &dyn rusqlite::ToSql) = match of {
            Rejected::Subtasks => ("subtasks", &SubtaskStatus::Rejected),
            Rejected::Tasks => ("tasks", &TaskStatus::Rejected),
        };
        let conn = self.conn();
        let mut stmt = conn.prepare(&format!(
            "SELECT COALESCE(reason, ?1), COUNT(*) FROM {table}
             WHERE status = ?2 GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?3"
        ))?;
        let rows = stmt.query_map(params![NO_REASON, status, limit as i64], |r| {
            Ok((r.get(0)?, r.get::<_, i64>(1)? as usize))
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// Stored verification rounds, and the subtasks they belong to.
    pub fn round_counts(&self) -> Result<(usize, usize), StoreError> {
        Ok(self.conn().query_row(
            "SELECT COUNT(*), COUNT(DISTINCT subtask_id) FROM verification_rounds",
            [],
            |r| Ok((r.get::<_, i64>(0)? as usize, r.get::<_, i64>(1)? as usize)),
        )?)
    }

    /// The last round of every (subtask, parameter set) with rounds, by subtask
    /// and parameter set.
    pub fn last_rounds(&self) -> Result<Vec<LastRound>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT v.subtask_id, v.parameter_index, n.rounds, v.body
             FROM verification_rounds v
             JOIN (SELECT subtask_id, parameter_index, COUNT(*) AS rounds, MAX(round) AS last
                   FROM verification_rounds GROUP BY 1, 2) n
               ON n.subtask_id = v.subtask_id AND n.parameter_index = v.parameter_index
              AND n.last = v.round
             ORDER BY 1, 2",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)? as usize,
                r.get::<_, i64>(2)? as usize,
                r.get::<_, String>(3)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (subtask_id, parameter_index, rounds, body) = row?;
            out.push(LastRound {
                body: from_json("verification round", &subtask_id, &body)?,
                subtask_id,
                parameter_index,
                rounds,
            });
        }
        Ok(out)
    }

    /// Stored validation attempts, and the tasks they belong to.
    pub fn attempt_counts(&self) -> Result<(usize, usize), StoreError> {
        Ok(self.conn().query_row(
            "SELECT COUNT(*), COUNT(DISTINCT task_id) FROM validation_attempts",
            [],
            |r| Ok((r.get::<_, i64>(0)? as usize, r.get::<_, i64>(1)? as usize)),
        )?)
    }

    /// How many tasks needed k validation attempts, by k ascending: (k, tasks).
    pub fn attempts_needed(&self) -> Result<Vec<(usize, usize)>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT n, COUNT(*) FROM
               (SELECT task_id, COUNT(*) AS n FROM validation_attempts GROUP BY 1)
             GROUP BY n ORDER BY n",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, i64>(0)? as usize, r.get::<_, i64>(1)? as usize))
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The first stored validation attempt of every task, by task id.
    pub fn first_attempts(&self) -> Result<Vec<ValidationAttempt>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT task_id, body FROM validation_attempts WHERE attempt =
               (SELECT MIN(attempt) FROM validation_attempts v2
                WHERE v2.task_id = validation_attempts.task_id) ORDER BY task_id",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        let mut out = Vec::new();
        for row in rows {
            let (id, body) = row?;
            out.push(from_json("validation attempt", &id, &body)?);
        }
        Ok(out)
    }

    /// Task trajectories that replayed (`ok`) and those that did not.
    pub fn trajectory_counts(&self) -> Result<(usize, usize), StoreError> {
        Ok(self.conn().query_row(
            "SELECT COALESCE(SUM(status = ?1), 0), COALESCE(SUM(status <> ?1), 0)
             FROM task_trajectories",
            [TrajectoryStatus::Ok],
            |r| Ok((r.get::<_, i64>(0)? as usize, r.get::<_, i64>(1)? as usize)),
        )?)
    }

    /// The first `n` subtask trajectories, by subtask and trajectory id.
    pub fn first_subtask_trajectories(
        &self,
        n: usize,
    ) -> Result<Vec<SubtaskTrajectory>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT trajectory_id, body FROM trajectories ORDER BY subtask_id, trajectory_id LIMIT ?1",
        )?;
        let rows = stmt.query_map([n as i64], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, body) = row?;
            out.push(from_json("subtask trajectory", &id, &body)?);
        }
        Ok(out)
    }
}

impl Store {
    /// Up to `n` task trajectories, one per task: tasks with a trajectory that
    /// replayed first, then by task id; within a task the first by trajectory id.
    pub fn sample_task_trajectories(
        &self,
        n: usize,
    ) -> Result<Vec<super::tasks::StoredTaskTrajectory>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT trajectory_id, task_id, status, reason, body FROM task_trajectories
             ORDER BY (status = ?1) DESC, task_id, trajectory_id",
        )?;
        let rows = stmt.query_map([TrajectoryStatus::Ok], TaskTrajectoryRow::read)?;
        let mut tasks_seen = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        for row in rows {
            let row = row?;
            if out.len() < n && tasks_seen.insert(row.task_id().to_string()) {
                out.push(row.parse()?);
            }
        }
        Ok(out)
    }
}
