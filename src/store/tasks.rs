//! Composed tasks and their dataset versions.
//!
//! Each `synth compose` with a new specification adds one dataset version (its
//! spec, a label, the counts asked and made) and its tasks, in one transaction
//! (written in batches through a [`DatasetWriter`], so composing many tasks does
//! not hold them all in memory).
//! Earlier versions are never touched. A task already present (same canonical
//! task id, from any version) is not stored twice.
//!
//! Also owns what later stages write about a task: its validation outcome
//! (status `validated` or `rejected`, every attempt in `validation_attempts`, the
//! updated body) and its task trajectories (`task_trajectories`, one row per
//! `"<task_id>(<k>)"`, status `ok` or `failed` with the reason).

use std::collections::BTreeSet;

use rusqlite::params;

use super::{from_json, Store, StoreError, TaskStatus, TrajectoryStatus};
use crate::model::{Task, TaskTrajectory, ValidationAttempt};

/// A dataset version's record.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DatasetVersion {
    pub version: u32,
    pub label: String,
    pub spec: serde_json::Value,
    pub asked: usize,
    pub made: usize,
    pub shortfall: Option<String>,
}

/// What [`Store::add_dataset`] stored.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AddedDataset {
    pub version: u32,
    pub inserted: usize,
    pub already_present: usize,
}

/// A stored task with its status.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredTask {
    pub version: u32,
    pub status: TaskStatus,
    pub task: Task,
}

impl Store {
    /// The version already composed with this spec hash, if any.
    pub fn dataset_by_spec(&self, spec_hash: &str) -> Result<Option<DatasetVersion>, StoreError> {
        Ok(self
            .query_datasets("WHERE spec_hash = ?1", [spec_hash])?
            .into_iter()
            .next())
    }

    /// All dataset versions, oldest first.
    pub fn datasets(&self) -> Result<Vec<DatasetVersion>, StoreError> {
        self.query_datasets("", [])
    }

    fn query_datasets<P: rusqlite::Params>(
        &self,
        filter: &str,
        params: P,
    ) -> Result<Vec<DatasetVersion>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(&format!(
            "SELECT version, label, spec, asked, made, shortfall FROM dataset_versions {filter} ORDER BY version"
        ))?;
        let rows = stmt.query_map(params, |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, i64>(4)?,
                r.get::<_, Option<String>>(5)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (v, label, spec, asked, made, shortfall) = row?;
            out.push(DatasetVersion {
                version: v as u32,
                label,
                spec: from_json("dataset spec", &v.to_string(), &spec)?,
                asked: asked as usize,
                made: made as usize,
                shortfall,
            });
        }
        Ok(out)
    }

    /// The next free dataset version number.
    pub fn next_dataset_version(&self) -> Result<u32, StoreError> {
        let v: i64 = self.conn().query_row(
            "SELECT COALESCE(MAX(version), 0) + 1 FROM dataset_versions",
            [],
            |r| r.get(0),
        )?;
        Ok(v as u32)
    }

    /// Stores a new dataset version and its tasks in one transaction. Tasks must
    /// carry a `task_id`; ones already stored (from any version) are skipped.
    /// For many tasks prefer [`Store::begin_dataset`], which takes them one at a time.
    #[allow(clippy::too_many_arguments)]
    pub fn add_dataset(
        &self,
        version: u32,
        spec_hash: &str,
        spec: &serde_json::Value,
        label: &str,
        asked: usize,
        tasks: &[Task],
        shortfall: Option<&str>,
        run: Option<i64>,
    ) -> Result<AddedDataset, StoreError> {
        let mut w = self.begin_dataset(version, spec_hash, spec, label, asked, run)?;
        for task in tasks {
            w.push(task)?;
        }
        w.finish(shortfall)
    }

    /// Opens a new dataset version for tasks to be added one at a time
    /// ([`DatasetWriter::push`]), in batches of [`DatasetWriter::BATCH`], inside one
    /// transaction that [`DatasetWriter::finish`] commits. Dropping the writer
    /// unfinished rolls everything back, so a failed or killed compose leaves no
    /// partial version.
    ///
    /// # Errors
    /// SQLite errors; a spec hash already stored is refused by the schema (the
    /// caller checks [`Store::dataset_by_spec`] first).
    pub fn begin_dataset(
        &self,
        version: u32,
        spec_hash: &str,
        spec: &serde_json::Value,
        label: &str,
        asked: usize,
        run: Option<i64>,
    ) -> Result<DatasetWriter<'_>, StoreError> {
        let conn = self.conn();
        conn.execute_batch("BEGIN IMMEDIATE")?;
        let mut writer = DatasetWriter {
            store: self,
            version,
            inserted: 0,
            already_present: 0,
            batch: Vec::with_capacity(DatasetWriter::BATCH),
            open: true,
        };
        let added = conn.execute(
            "INSERT INTO dataset_versions (version, spec_hash, spec, label, asked, made, shortfall, run_id)
             VALUES (?1, ?2, ?3, ?4, ?5, 0, NULL, ?6)",
            params![version, spec_hash, spec.to_string(), label, asked as i64, run],
        );
        drop(conn);
        if let Err(e) = added {
            writer.rollback();
            return Err(e.into());
        }
        Ok(writer)
    }

    /// Calls `f` with the stored JSON body of every task, in (version, composition)
    /// order, without parsing it (for writing `tasks.jsonl`). The bodies are read
    /// one row at a time, so memory does not grow with the number of tasks.
    ///
    /// # Errors
    /// SQLite errors (outer); the first error `f` returns stops the walk and is
    /// returned inside `Ok`.
    pub fn each_task_body<E>(
        &self,
        mut f: impl FnMut(&str) -> Result<(), E>,
    ) -> Result<Result<usize, E>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare("SELECT body FROM tasks ORDER BY version, seq")?;
        let mut rows = stmt.query([])?;
        let mut n = 0;
        while let Some(row) = rows.next()? {
            let body = row.get_ref(0)?.as_str().map_err(rusqlite::Error::from)?;
            if let Err(e) = f(body) {
                return Ok(Err(e));
            }
            n += 1;
        }
        Ok(Ok(n))
    }

    /// Stored tasks, optionally of one version, in (version, composition) order.
    pub fn tasks(&self, version: Option<u32>) -> Result<Vec<StoredTask>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT task_id, version, status, body FROM tasks
             WHERE ?1 IS NULL OR version = ?1 ORDER BY version, seq",
        )?;
        let rows = stmt.query_map([version.map(i64::from)], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, TaskStatus>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, v, status, body) = row?;
            out.push(StoredTask {
                version: v as u32,
                status,
                task: from_json("task", &id, &body)?,
            });
        }
        Ok(out)
    }
}

/// Adds the tasks of one new dataset version in batches, inside one transaction
/// (see [`Store::begin_dataset`]). Holds at most [`DatasetWriter::BATCH`] serialized
/// tasks at a time: memory does not grow with the number of tasks.
pub struct DatasetWriter<'s> {
    store: &'s Store,
    version: u32,
    inserted: usize,
    already_present: usize,
    /// (task id, JSON body) not yet inserted.
    batch: Vec<(String, String)>,
    /// The transaction is still open (not committed or rolled back).
    open: bool,
}

impl DatasetWriter<'_> {
    /// Tasks serialized before they are inserted together.
    pub const BATCH: usize = 256;

    /// Adds a task (it must carry a `task_id`); one already stored, from any
    /// version, is counted as already present when its batch is inserted.
    ///
    /// # Errors
    /// SQLite errors while inserting a full batch.
    pub fn push(&mut self, task: &Task) -> Result<(), StoreError> {
        let id = task
            .task_id
            .as_ref()
            .map(|t| t.0.clone())
            .unwrap_or_default();
        let body = serde_json::to_string(task).expect("model types always serialize");
        self.batch.push((id, body));
        if self.batch.len() >= Self::BATCH {
            self.flush()?;
        }
        Ok(())
    }

    /// Tasks inserted so far (not counting the pending batch).
    pub fn inserted(&self) -> usize {
        self.inserted
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        let conn = self.store.conn();
        let mut stmt = conn.prepare_cached(
            "INSERT OR IGNORE INTO tasks (task_id, version, seq, status, body) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for (id, body) in self.batch.drain(..) {
            let row = params![
                id,
                self.version,
                self.inserted as i64,
                TaskStatus::Composed,
                body
            ];
            if stmt.execute(row)? == 1 {
                self.inserted += 1;
            } else {
                self.already_present += 1;
            }
        }
        Ok(())
    }

    /// Inserts what is pending, records the count made and the shortfall (why
    /// fewer were made than asked, if so), and commits.
    ///
    /// # Errors
    /// SQLite errors; the version is then rolled back.
    pub fn finish(mut self, shortfall: Option<&str>) -> Result<AddedDataset, StoreError> {
        self.flush()?;
        {
            let conn = self.store.conn();
            conn.execute(
                "UPDATE dataset_versions SET made = ?2, shortfall = ?3 WHERE version = ?1",
                params![self.version, self.inserted as i64, shortfall],
            )?;
            conn.execute_batch("COMMIT")?;
        }
        self.open = false;
        Ok(AddedDataset {
            version: self.version,
            inserted: self.inserted,
            already_present: self.already_present,
        })
    }

    fn rollback(&mut self) {
        if self.open {
            self.open = false;
            // Nothing to do if it fails: SQLite rolls back an open transaction
            // when the connection closes.
            let _ = self.store.conn().execute_batch("ROLLBACK");
        }
    }
}

impl Drop for DatasetWriter<'_> {
    fn drop(&mut self) {
        self.rollback();
    }
}

/// A stored task trajectory.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredTaskTrajectory {
    pub trajectory_id: String,
    pub task_id: String,
    /// `Ok` (replays to full coverage) or `Failed`.
    pub status: TrajectoryStatus,
    pub reason: Option<String>,
    pub trajectory: TaskTrajectory,
}

/// A `task_trajectories` row as read (trajectory_id, task_id, status, reason,
/// body, in that column order), its body not parsed yet.
pub(super) struct TaskTrajectoryRow {
    trajectory_id: String,
    task_id: String,
    status: TrajectoryStatus,
    reason: Option<String>,
    body: String,
}

impl TaskTrajectoryRow {
    pub(super) fn read(r: &rusqlite::Row<'_>) -> rusqlite::Result<TaskTrajectoryRow> {
        Ok(TaskTrajectoryRow {
            trajectory_id: r.get(0)?,
            task_id: r.get(1)?,
            status: r.get(2)?,
            reason: r.get(3)?,
            body: r.get(4)?,
        })
    }

    pub(super) fn task_id(&self) -> &str {
        &self.task_id
    }

    pub(super) fn parse(self) -> Result<StoredTaskTrajectory, StoreError> {
        Ok(StoredTaskTrajectory {
            trajectory: from_json("task trajectory", &self.trajectory_id, &self.body)?,
            trajectory_id: self.trajectory_id,
            task_id: self.task_id,
            status: self.status,
            reason: self.reason,
        })
    }
}

impl Store {
    /// Records a task's validation in one transaction: every attempt, the new
    /// status (`validated` or `rejected`) with the reason, and the updated body.
    ///
    /// # Errors
    /// SQLite errors; an unknown task id is an error of the foreign key.
    pub fn record_validation(
        &self,
        task: &Task,
        status: TaskStatus,
        reason: Option<&str>,
        attempts: &[ValidationAttempt],
    ) -> Result<(), StoreError> {
        let id = task
            .task_id
            .as_ref()
            .map(|t| t.0.clone())
            .unwrap_or_default();
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        {
            let mut stmt = tx.prepare(
                "INSERT OR REPLACE INTO validation_attempts (task_id, attempt, body) VALUES (?1, ?2, ?3)",
            )?;
            for a in attempts {
                let body = serde_json::to_string(a).expect("model types always serialize");
                stmt.execute(params![id, a.attempt, body])?;
            }
        }
        let body = serde_json::to_string(task).expect("model types always serialize");
        let n = tx.execute(
            "UPDATE tasks SET status = ?2, reason = ?3, body = ?4 WHERE task_id = ?1",
            params![id, status, reason, body],
        )?;
        if n != 1 {
            return Err(StoreError::Sql(rusqlite::Error::QueryReturnedNoRows));
        }
        tx.commit()?;
        Ok(())
    }

    /// The stored validation attempts of a task, in order.
    pub fn validation_attempts(&self, task_id: &str) -> Result<Vec<ValidationAttempt>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT body FROM validation_attempts WHERE task_id = ?1 ORDER BY attempt")?;
        let rows = stmt.query_map([task_id], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for row in rows {
            out.push(from_json("validation attempt", task_id, &row?)?);
        }
        Ok(out)
    }

    /// The reason stored with a task's status, if any.
    pub fn task_reason(&self, task_id: &str) -> Result<Option<String>, StoreError> {
        use rusqlite::OptionalExtension;
        Ok(self
            .conn()
            .query_row(
                "SELECT reason FROM tasks WHERE task_id = ?1",
                [task_id],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()?
            .flatten())
    }

    /// Stores the trajectories of one task in one transaction (replacing rows with
    /// the same trajectory id).
    pub fn put_task_trajectories(&self, rows: &[StoredTaskTrajectory]) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        {
            let mut stmt = tx.prepare(
                "INSERT OR REPLACE INTO task_trajectories (trajectory_id, task_id, status, reason, body)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for r in rows {
                let body =
                    serde_json::to_string(&r.trajectory).expect("model types always serialize");
                stmt.execute(params![
                    r.trajectory_id,
                    r.task_id,
                    r.status,
                    r.reason,
                    body
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Stored task trajectories, optionally only those with `status`, by task
    /// (version, composition order) and trajectory id.
    pub fn task_trajectories(
        &self,
        status: Option<TrajectoryStatus>,
    ) -> Result<Vec<StoredTaskTrajectory>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT tt.trajectory_id, tt.task_id, tt.status, tt.reason, tt.body
             FROM task_trajectories tt JOIN tasks t ON t.task_id = tt.task_id
             WHERE ?1 IS NULL OR tt.status = ?1
             ORDER BY t.version, t.seq, length(tt.trajectory_id), tt.trajectory_id",
        )?;
        let rows = stmt.query_map([status], TaskTrajectoryRow::read)?;
        let mut out = Vec::new();
        for row in rows {
            out.push(row?.parse()?);
        }
        Ok(out)
    }

    /// The ids of tasks that have at least one stored trajectory (ok or failed).
    pub fn tasks_with_trajectories(&self) -> Result<BTreeSet<String>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare("SELECT DISTINCT task_id FROM task_trajectories")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        let mut out = BTreeSet::new();
        for row in rows {
            out.insert(row?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Dag, TaskId};

    fn task(id: &str) -> Task {
        Task {
            task_id: Some(TaskId(id.into())),
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
        }
    }

    #[test]
    fn versions_add_and_skip_duplicates() {
        let s = Store::open_in_memory().unwrap();
        let spec = serde_json::json!({"count": 2});
        let a = s
            .add_dataset(
                1,
                "h1",
                &spec,
                "v1",
                2,
                &[task("t1"), task("t2")],
                None,
                None,
            )
            .unwrap();
        assert_eq!((a.inserted, a.already_present), (2, 0));
        let b = s
            .add_dataset(
                2,
                "h2",
                &spec,
                "v2",
                2,
                &[task("t2"), task("t3")],
                None,
                None,
            )
            .unwrap();
        assert_eq!((b.inserted, b.already_present), (1, 1));
        assert_eq!(s.tasks(None).unwrap().len(), 3);
        assert_eq!(s.tasks(Some(1)).unwrap().len(), 2);
        assert_eq!(s.next_dataset_version().unwrap(), 3);
        assert_eq!(s.dataset_by_spec("h2").unwrap().unwrap().made, 1);
        // Same spec hash twice is refused by the schema: the caller checks first.
        assert!(s
            .add_dataset(3, "h2", &spec, "v3", 1, &[], None, None)
            .is_err());
        assert_eq!(s.datasets().unwrap().len(), 2);
    }

    #[test]
    fn an_unfinished_dataset_writer_leaves_nothing() {
        let s = Store::open_in_memory().unwrap();
        let spec = serde_json::json!({});
        {
            let mut w = s.begin_dataset(1, "h1", &spec, "v1", 600, None).unwrap();
            for i in 0..600 {
                w.push(&task(&format!("t{i}"))).unwrap();
            }
            assert!(w.inserted() >= DatasetWriter::BATCH);
        }
        assert!(s.tasks(None).unwrap().is_empty());
        assert!(s.datasets().unwrap().is_empty());
        let mut w = s.begin_dataset(1, "h1", &spec, "v1", 3, None).unwrap();
        for id in ["t1", "t2", "t1"] {
            w.push(&task(id)).unwrap();
        }
        let added = w.finish(Some("ran dry")).unwrap();
        assert_eq!((added.inserted, added.already_present), (2, 1));
        let v = &s.datasets().unwrap()[0];
        assert_eq!((v.made, v.shortfall.as_deref()), (2, Some("ran dry")));
    }

    #[test]
    fn task_bodies_are_the_stored_json_in_order() {
        let s = Store::open_in_memory().unwrap();
        let spec = serde_json::json!({});
        s.add_dataset(1, "h1", &spec, "v1", 2, &[task("b"), task("a")], None, None)
            .unwrap();
        let mut bodies = Vec::new();
        let n = s
            .each_task_body(|b| {
                bodies.push(b.to_string());
                Ok::<(), ()>(())
            })
            .unwrap()
            .unwrap();
        assert_eq!(n, 2);
        assert_eq!(bodies[0], serde_json::to_string(&task("b")).unwrap());
        let stopped = s.each_task_body(|_| Err("full")).unwrap();
        assert_eq!(stopped, Err("full"));
    }

    #[test]
    fn validation_and_trajectories_are_recorded() {
        let s = Store::open_in_memory().unwrap();
        s.add_dataset(
            1,
            "h",
            &serde_json::json!({}),
            "v1",
            1,
            &[task("t1")],
            None,
            None,
        )
        .unwrap();
        let attempt = |n: u32, passed: bool| ValidationAttempt {
            attempt: n,
            task_instruction: format!("try {n}"),
            reconstructed_edges: vec![],
            passed,
            discrepancy: (!passed).then(|| "lost a branch".into()),
        };
        let mut t = task("t1");
        t.validation = vec![attempt(1, false), attempt(2, true)];
        s.record_validation(&t, TaskStatus::Validated, None, &t.validation)
            .unwrap();
        let stored = s.tasks(None).unwrap();
        assert_eq!(stored[0].status, TaskStatus::Validated);
        assert_eq!(stored[0].task.validation.len(), 2);
        assert_eq!(s.validation_attempts("t1").unwrap().len(), 2);
        assert!(s
            .record_validation(&task("nope"), TaskStatus::Rejected, Some("x"), &[])
            .is_err());

        let traj = TaskTrajectory {
            trajectory_id: "t1(0)".into(),
            task_id: TaskId("t1".into()),
            topological_order: vec![],
            instruction: "i".into(),
            intent: "x".into(),
            observations: vec![],
            actions: vec![],
        };
        s.put_task_trajectories(&[StoredTaskTrajectory {
            trajectory_id: "t1(0)".into(),
            task_id: "t1".into(),
            status: TrajectoryStatus::Ok,
            reason: None,
            trajectory: traj,
        }])
        .unwrap();
        assert_eq!(
            s.task_trajectories(Some(TrajectoryStatus::Ok))
                .unwrap()
                .len(),
            1
        );
        assert!(s.tasks_with_trajectories().unwrap().contains("t1"));
    }
}
