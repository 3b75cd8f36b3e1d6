//! Human review marks of tasks (`synth review --import`): one row per task with
//! the reviewer's decision (`accept` or `reject`), the free-text reason and when
//! the mark was imported. A re-import replaces the marks of the tasks it names.
//!
//! Also reads a stored task's JSON as it is, for fields this build's
//! [`crate::model::Task`] may not know (the review sheet shows a `quality` object
//! when the store has one).

use rusqlite::{params, OptionalExtension};

use super::{Store, StoreError};

/// Migration 4: the `reviews` table.
pub(super) const REVIEWS_MIGRATION: &str = r#"
    CREATE TABLE reviews (
        task_id     TEXT PRIMARY KEY REFERENCES tasks(task_id) ON DELETE CASCADE,
        decision    TEXT NOT NULL CHECK (decision IN ('accept', 'reject')),
        reason      TEXT NOT NULL DEFAULT '',
        imported_at TEXT NOT NULL
    );
"#;

/// A reviewer's mark of one task.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StoredReview {
    pub task_id: String,
    /// `accept` or `reject`.
    pub decision: String,
    pub reason: String,
    pub imported_at: String,
}

impl Store {
    /// Stores marks `(task_id, decision, reason)` in one transaction, replacing
    /// any earlier mark of the same tasks. Every task must be stored.
    ///
    /// # Errors
    /// SQLite errors (an unknown task id or a decision other than `accept` and
    /// `reject` is refused by the schema, and nothing is stored).
    pub fn replace_reviews(&self, marks: &[(String, String, String)]) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        {
            let mut stmt = tx.prepare(
                "INSERT OR REPLACE INTO reviews (task_id, decision, reason, imported_at)
                 VALUES (?1, ?2, ?3, datetime('now'))",
            )?;
            for (task_id, decision, reason) in marks {
                stmt.execute(params![task_id, decision, reason])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Every stored mark, by task id.
    pub fn reviews(&self) -> Result<Vec<StoredReview>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT task_id, decision, reason, imported_at FROM reviews ORDER BY task_id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(StoredReview {
                task_id: r.get(0)?,
                decision: r.get(1)?,
                reason: r.get(2)?,
                imported_at: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// A stored task's JSON as stored (with fields the model type may lack), or
    /// None when no task has that id.
    pub fn task_json(&self, task_id: &str) -> Result<Option<serde_json::Value>, StoreError> {
        let body: Option<String> = self
            .conn()
            .query_row(
                "SELECT body FROM tasks WHERE task_id = ?1",
                [task_id],
                |r| r.get(0),
            )
            .optional()?;
        body.map(|b| super::from_json("task", task_id, &b))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store_with_task(id: &str) -> Store {
        let s = Store::open_in_memory().unwrap();
        s.conn()
            .execute_batch(&format!(
                "INSERT INTO dataset_versions (version, spec_hash, spec, label, asked, made) VALUES (1, 'h', '{{}}', 'v1', 1, 1);
                 INSERT INTO tasks (task_id, version, seq, status, body) VALUES ('{id}', 1, 0, 'composed', '{{\"quality\":{{\"intent_grounded\":true}}}}');"
            ))
            .unwrap();
        s
    }

    #[test]
    fn marks_replace_and_refuse_unknown_tasks_whole() {
        let s = store_with_task("t1");
        let mark = |id: &str, d: &str, r: &str| (id.to_string(), d.to_string(), r.to_string());
        s.replace_reviews(&[mark("t1", "reject", "vague")]).unwrap();
        s.replace_reviews(&[mark("t1", "accept", "")]).unwrap();
        let got = s.reviews().unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(
            (got[0].decision.as_str(), got[0].reason.as_str()),
            ("accept", "")
        );
        assert!(s
            .replace_reviews(&[mark("t1", "reject", "x"), mark("nope", "accept", "")])
            .is_err());
        assert_eq!(s.reviews().unwrap()[0].decision, "accept");
        assert!(s.replace_reviews(&[mark("t1", "maybe", "")]).is_err());
    }

    #[test]
    fn task_json_keeps_unknown_fields() {
        let s = store_with_task("t1");
        let v = s.task_json("t1").unwrap().unwrap();
        assert_eq!(v["quality"]["intent_grounded"], serde_json::json!(true));
        assert!(s.task_json("t2").unwrap().is_none());
    }
}
