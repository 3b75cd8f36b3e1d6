//! Composed tasks and their dataset versions.
//!
//! Each `synth compose` with a new specification adds one dataset version (its
//! spec, a label, the counts asked and made) and its tasks, in one transaction.
//! Earlier versions are never touched. A task already present (same canonical
//! task id, from any version) is not stored twice.

use rusqlite::params;

use super::{from_json, Store, StoreError};
use crate::model::Task;

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
    pub status: String,
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
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT INTO dataset_versions (version, spec_hash, spec, label, asked, made, shortfall, run_id)
             VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?7)",
            params![version, spec_hash, spec.to_string(), label, asked as i64, shortfall, run],
        )?;
        let mut inserted = 0;
        let mut already_present = 0;
        {
            let mut stmt = tx.prepare(
                "INSERT OR IGNORE INTO tasks (task_id, version, seq, status, body) VALUES (?1, ?2, ?3, 'composed', ?4)",
            )?;
            for task in tasks {
                let id = task
                    .task_id
                    .as_ref()
                    .map(|t| t.0.clone())
                    .unwrap_or_default();
                let body = serde_json::to_string(task).expect("model types always serialize");
                if stmt.execute(params![id, version, inserted as i64, body])? == 1 {
                    inserted += 1;
                } else {
                    already_present += 1;
                }
            }
        }
        tx.execute(
            "UPDATE dataset_versions SET made = ?2 WHERE version = ?1",
            params![version, inserted as i64],
        )?;
        tx.commit()?;
        Ok(AddedDataset {
            version,
            inserted,
            already_present,
        })
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
                r.get::<_, String>(2)?,
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
            successful_topo: vec![],
            nodes: Default::default(),
            topo_count: None,
            topo_truncated: None,
            cs_max: None,
            complexity: None,
            capabilities: vec![],
            scenario: None,
            os_map_level: None,
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
}
