//! Task intents (`synth intents`): each a high-level goal anchoring a group of
//! verified subtasks, stored accepted or rejected with the reason.
//!
//! An intent's id is derived from its sorted subtask ids, so proposing the same
//! group again (another run, another wording) is recognised and not stored twice.

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::{from_json, RunStatus, Store, StoreError};
use crate::model::Provenance;

/// Lifecycle of an intent in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntentStatus {
    Accepted,
    Rejected,
}

super::status::text_enum!(IntentStatus, "intent status" {
    Accepted => "accepted",
    Rejected => "rejected",
});

/// One intent as stored (the `body` column holds this record as JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntentRecord {
    /// UUID v5 of the sorted subtask ids.
    pub id: String,
    pub intent: String,
    /// The anchored subtasks, sorted.
    pub subtask_ids: Vec<String>,
    /// The scenario (OmniBench A.5) of the group's application categories.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    pub status: IntentStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
}

impl IntentRecord {
    /// The id of a group: UUID v5 of its sorted, deduplicated subtask ids.
    pub fn id_of(subtask_ids: &[String]) -> String {
        let mut ids: Vec<&str> = subtask_ids.iter().map(String::as_str).collect();
        ids.sort_unstable();
        ids.dedup();
        let ns = uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_OID, b"synth/intent");
        uuid::Uuid::new_v5(&ns, ids.join(";").as_bytes()).to_string()
    }
}

impl Store {
    /// Stores an intent unless one with the same id exists. Returns whether it was
    /// inserted.
    pub fn put_intent(&self, rec: &IntentRecord, run: Option<i64>) -> Result<bool, StoreError> {
        Ok(self.put_intents(std::slice::from_ref(rec), run)?[0])
    }

    /// Stores every intent of one planner reply in one transaction (a killed stage
    /// leaves all of them or none), each unless one with the same id exists.
    /// Returns, per record, whether it was inserted.
    pub fn put_intents(
        &self,
        recs: &[IntentRecord],
        run: Option<i64>,
    ) -> Result<Vec<bool>, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let inserted = insert_intents(&tx, recs, run)?;
        tx.commit()?;
        Ok(inserted)
    }

    /// The intents stage's unit of work: stores every intent of one planner reply
    /// (as [`Store::put_intents`]) and ends the stage's run `ok` with the summary
    /// that `summary` makes from the per-record inserted flags, in one transaction.
    /// A killed stage therefore leaves either the intents and the completion record
    /// that [`Store::intents_planned_for`] reads, or neither; never intents of a
    /// run that looks unfinished (which a re-run would plan beside).
    pub fn put_intents_and_finish(
        &self,
        recs: &[IntentRecord],
        run: i64,
        summary: impl FnOnce(&[bool]) -> serde_json::Value,
    ) -> Result<Vec<bool>, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let inserted = insert_intents(&tx, recs, Some(run))?;
        super::finish_run_in(&tx, run, RunStatus::Ok, &summary(&inserted))?;
        tx.commit()?;
        Ok(inserted)
    }

    /// Has an intents stage finished (status `ok`) for the pool with this
    /// signature (see `pipeline::intents::pool_signature`)? The stage records the
    /// signature in its run's arguments.
    pub fn intents_planned_for(&self, pool_signature: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT 1 FROM runs WHERE command = 'intents' AND status = ?2
                 AND json_extract(args, '$.pool') = ?1 LIMIT 1",
                params![pool_signature, RunStatus::Ok],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// One intent by id.
    pub fn intent(&self, id: &str) -> Result<Option<IntentRecord>, StoreError> {
        let conn = self.conn();
        let row: Option<(String, IntentStatus, Option<String>)> = conn
            .query_row(
                "SELECT body, status, reason FROM intents WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        row.map(|(body, status, reason)| {
            let mut rec: IntentRecord = from_json("intent", id, &body)?;
            rec.status = status;
            rec.reason = reason;
            Ok(rec)
        })
        .transpose()
    }

    /// Stored intents, optionally only those with `status`, in the order stored.
    pub fn intents(&self, status: Option<IntentStatus>) -> Result<Vec<IntentRecord>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT id, body, status, reason FROM intents
             WHERE ?1 IS NULL OR status = ?1 ORDER BY rowid",
        )?;
        let rows = stmt.query_map([status], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, IntentStatus>(2)?,
                r.get::<_, Option<String>>(3)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, body, status, reason) = row?;
            let mut rec: IntentRecord = from_json("intent", &id, &body)?;
            rec.status = status;
            rec.reason = reason;
            out.push(rec);
        }
        Ok(out)
    }
}

/// Inserts `recs` (each unless its id is stored) inside `tx`; per record, whether
/// it was inserted.
fn insert_intents(
    tx: &rusqlite::Transaction<'_>,
    recs: &[IntentRecord],
    run: Option<i64>,
) -> Result<Vec<bool>, StoreError> {
    let mut inserted = Vec::with_capacity(recs.len());
    let mut stmt = tx.prepare(
        "INSERT OR IGNORE INTO intents (id, intent, status, reason, body, run_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for rec in recs {
        let body = serde_json::to_string(rec).expect("intent records always serialize");
        let n = stmt.execute(params![
            rec.id, rec.intent, rec.status, rec.reason, body, run
        ])?;
        inserted.push(n == 1);
    }
    Ok(inserted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(ids: &[&str], status: IntentStatus) -> IntentRecord {
        let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        IntentRecord {
            id: IntentRecord::id_of(&ids),
            intent: "Prepare the budget and mail it".into(),
            subtask_ids: ids,
            scenario: None,
            status,
            reason: (status == IntentStatus::Rejected).then(|| "no path".into()),
            provenance: None,
        }
    }

    #[test]
    fn a_reply_is_stored_whole_and_completion_is_per_pool() {
        let s = Store::open_in_memory().unwrap();
        let a = rec(&["s1", "s2"], IntentStatus::Accepted);
        let b = rec(&["s3"], IntentStatus::Rejected);
        assert_eq!(s.put_intents(&[a.clone(), b], None).unwrap(), [true, true]);
        assert_eq!(s.put_intents(&[a], None).unwrap(), [false]);
        assert!(!s.intents_planned_for("p1").unwrap());
        let run = s
            .begin_run("intents", &serde_json::json!({"pool": "p1"}))
            .unwrap();
        // A stage that has not finished is no completion.
        assert!(!s.intents_planned_for("p1").unwrap());
        s.finish_run(run, RunStatus::Ok, &serde_json::json!({}))
            .unwrap();
        assert!(s.intents_planned_for("p1").unwrap());
        assert!(!s.intents_planned_for("p2").unwrap());
    }

    #[test]
    fn intents_and_their_completion_record_are_committed_together() {
        let s = Store::open_in_memory().unwrap();
        let a = rec(&["s1", "s2"], IntentStatus::Accepted);
        let run = s
            .begin_run("intents", &serde_json::json!({"pool": "p1"}))
            .unwrap();
        // A completion record that cannot be written (as a full disk would refuse
        // it) takes the intents with it.
        s.conn()
            .execute_batch(
                "CREATE TRIGGER refuse BEFORE UPDATE ON runs
                 BEGIN SELECT RAISE(ABORT, 'refused'); END",
            )
            .unwrap();
        assert!(s
            .put_intents_and_finish(std::slice::from_ref(&a), run, |_| serde_json::json!({}))
            .is_err());
        assert!(s.intents(None).unwrap().is_empty());
        assert!(!s.intents_planned_for("p1").unwrap());
        s.conn().execute_batch("DROP TRIGGER refuse").unwrap();
        let inserted = s
            .put_intents_and_finish(&[a], run, |new| serde_json::json!({"new": new.len()}))
            .unwrap();
        assert_eq!(inserted, [true]);
        assert_eq!(s.intents(None).unwrap().len(), 1);
        assert!(s.intents_planned_for("p1").unwrap());
        assert_eq!(s.last_run("intents").unwrap(), Some((run, RunStatus::Ok)));
    }

    #[test]
    fn same_group_is_stored_once_and_statuses_filter() {
        let s = Store::open_in_memory().unwrap();
        assert!(s
            .put_intent(&rec(&["b", "a"], IntentStatus::Accepted), None)
            .unwrap());
        assert!(!s
            .put_intent(&rec(&["a", "b"], IntentStatus::Accepted), None)
            .unwrap());
        assert!(s
            .put_intent(&rec(&["c"], IntentStatus::Rejected), None)
            .unwrap());
        assert_eq!(s.intents(None).unwrap().len(), 2);
        let acc = s.intents(Some(IntentStatus::Accepted)).unwrap();
        assert_eq!(acc.len(), 1);
        let rej = s.intents(Some(IntentStatus::Rejected)).unwrap();
        assert_eq!(rej[0].reason.as_deref(), Some("no path"));
        assert_eq!(s.intent(&acc[0].id).unwrap().unwrap(), acc[0]);
    }
}
