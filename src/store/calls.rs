//! The call record's table (`model_calls`): every model exchange, keyed by a hash
//! of what was asked (see [`crate::llm::record`] for the key and the record type).
//!
//! Owns the table's migrations, row insert and lookup, and the usage and fault
//! sums for `synth stats`. The language-model client holds a [`CallLog`], a handle
//! on the store's connection that outlives any one borrow of the [`Store`]; the
//! lock is held for one statement at a time, never across an `.await`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::{params, Connection, OptionalExtension};

use super::{Store, StoreError};
use crate::llm::record::{CallOutcome, CallRecord, RoleUsage};
use crate::llm::Role;

/// Creates `model_calls`. Idempotent (`IF NOT EXISTS`).
pub const CALL_RECORD_MIGRATION: &str = "
CREATE TABLE IF NOT EXISTS model_calls (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    key_hash          TEXT    NOT NULL,  -- sha256 of role, model, messages, sampling params
    role              TEXT    NOT NULL,
    model             TEXT    NOT NULL,
    run_id            TEXT    NOT NULL,
    request           TEXT    NOT NULL,  -- JSON {messages, params}; images as sha256; no key
    reply             TEXT,              -- the model's raw text; NULL when none came
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd          REAL    NOT NULL DEFAULT 0,
    latency_ms        INTEGER NOT NULL DEFAULT 0,
    http_attempts     INTEGER NOT NULL DEFAULT 0,
    outcome           TEXT    NOT NULL,  -- accepted | invalid | rejected | error
    error             TEXT,              -- validation or transport error (redacted)
    created_at        TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX IF NOT EXISTS model_calls_key ON model_calls (key_hash, id);
CREATE INDEX IF NOT EXISTS model_calls_run ON model_calls (run_id, role);
";

/// Adds `faults` to `model_calls` (schema version 5): per recorded exchange, the
/// faults met on the way, by class (`{"rate_limited": 1, "not_json": 1}`): failed
/// HTTP attempts that were retried, and an unusable reply that was re-asked or
/// rejected. NULL when there was none.
pub const CALL_FAULTS_MIGRATION: &str = "ALTER TABLE model_calls ADD COLUMN faults TEXT;";

/// The call record of one store (or of an in-memory connection, for tests).
/// Cheap to clone; clones share the connection.
#[derive(Clone)]
pub struct CallLog {
    conn: Arc<Mutex<Connection>>,
}

impl std::fmt::Debug for CallLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallLog").finish_non_exhaustive()
    }
}

impl Store {
    /// The call record of this store, for the language-model client.
    pub fn call_log(&self) -> CallLog {
        CallLog {
            conn: Arc::clone(&self.conn),
        }
    }
}

const COLUMNS: &str = "key_hash, role, model, run_id, request, reply, prompt_tokens, \
    completion_tokens, cost_usd, latency_ms, http_attempts, outcome, error, created_at, faults";

impl CallLog {
    /// A call record of its own in memory (tests, benchmarks).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn in_memory() -> Result<CallLog, StoreError> {
        Ok(Store::open_in_memory()?.call_log())
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave a half-written row (SQLite
        // statements are atomic), so a poisoned lock is safe to reuse.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Appends a row; returns its id.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn insert(&self, rec: &CallRecord) -> Result<i64, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "INSERT INTO model_calls (key_hash, role, model, run_id, request, reply, prompt_tokens,
                 completion_tokens, cost_usd, latency_ms, http_attempts, outcome, error, faults)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        )?;
        stmt.execute(params![
            rec.key_hash,
            rec.role.as_str(),
            rec.model,
            rec.run_id,
            rec.request.to_string(),
            rec.reply,
            rec.prompt_tokens as i64,
            rec.completion_tokens as i64,
            rec.cost_usd,
            rec.latency_ms as i64,
            rec.http_attempts as i64,
            rec.outcome,
            rec.error,
            (!rec.faults.is_empty()).then(|| serde_json::json!(rec.faults).to_string()),
        ])?;
        Ok(conn.last_insert_rowid())
    }

    /// The latest recorded reply for `key_hash` (rows without a reply do not answer).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn lookup(&self, key_hash: &str) -> Result<Option<CallRecord>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM model_calls WHERE key_hash = ?1 AND reply IS NOT NULL \
             ORDER BY id DESC LIMIT 1"
        ))?;
        Ok(stmt.query_row([key_hash], from_row).optional()?)
    }

    /// Every row, oldest first.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn all(&self) -> Result<Vec<CallRecord>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(&format!("SELECT {COLUMNS} FROM model_calls ORDER BY id"))?;
        let rows = stmt.query_map([], from_row)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// Faults met over all recorded exchanges (of one run with `run_id`), by
    /// class: what the retry policy and the re-asks absorbed, and what they could
    /// not.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn fault_summary(&self, run_id: Option<&str>) -> Result<BTreeMap<String, u64>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT f.key, SUM(f.value) FROM model_calls AS c, json_each(c.faults) AS f
             WHERE c.faults IS NOT NULL AND (?1 IS NULL OR c.run_id = ?1)
             GROUP BY f.key ORDER BY f.key",
        )?;
        let rows = stmt.query_map([run_id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?.max(0) as u64))
        })?;
        Ok(rows.collect::<Result<BTreeMap<_, _>, _>>()?)
    }

    /// Usage per role and model, for `synth stats`; `run_id` restricts to one run.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn usage_summary(&self, run_id: Option<&str>) -> Result<Vec<RoleUsage>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT role, model, COUNT(*), SUM(http_attempts),
                    SUM(outcome = ?2), SUM(outcome = ?3), SUM(outcome = ?4), SUM(outcome = ?5),
                    SUM(prompt_tokens), SUM(completion_tokens), SUM(cost_usd), AVG(latency_ms)
             FROM model_calls WHERE (?1 IS NULL OR run_id = ?1)
             GROUP BY role, model ORDER BY role, model",
        )?;
        let outcomes = [
            CallOutcome::Accepted,
            CallOutcome::Invalid,
            CallOutcome::Rejected,
            CallOutcome::Error,
        ];
        let rows = stmt.query_map(
            params![run_id, outcomes[0], outcomes[1], outcomes[2], outcomes[3]],
            usage_row,
        )?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }
}

fn usage_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RoleUsage> {
    let n = |i: usize| {
        r.get::<_, Option<i64>>(i)
            .map(|v| v.unwrap_or(0).max(0) as u64)
    };
    Ok(RoleUsage {
        role: r.get(0)?,
        model: r.get(1)?,
        calls: n(2)?,
        http_attempts: n(3)?,
        accepted: n(4)?,
        invalid: n(5)?,
        rejected: n(6)?,
        errors: n(7)?,
        prompt_tokens: n(8)?,
        completion_tokens: n(9)?,
        cost_usd: r.get::<_, Option<f64>>(10)?.unwrap_or(0.0),
        mean_latency_ms: r.get::<_, Option<f64>>(11)?.unwrap_or(0.0),
    })
}

fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<CallRecord> {
    let role: String = row.get(1)?;
    let request: String = row.get(4)?;
    Ok(CallRecord {
        key_hash: row.get(0)?,
        role: role.parse().unwrap_or(Role::Explorer),
        model: row.get(2)?,
        run_id: row.get(3)?,
        request: serde_json::from_str(&request).unwrap_or(serde_json::Value::Null),
        reply: row.get(5)?,
        prompt_tokens: row.get::<_, i64>(6)?.max(0) as u64,
        completion_tokens: row.get::<_, i64>(7)?.max(0) as u64,
        cost_usd: row.get(8)?,
        latency_ms: row.get::<_, i64>(9)?.max(0) as u64,
        http_attempts: row.get::<_, i64>(10)?.max(0) as u32,
        outcome: row
            .get::<_, String>(11)?
            .parse()
            .unwrap_or(CallOutcome::Error),
        error: row.get(12)?,
        created_at: row.get(13)?,
        faults: row
            .get::<_, Option<String>>(14)?
            .and_then(|f| serde_json::from_str(&f).ok())
            .unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::record::{
        export_jsonl, load_jsonl, request_json, ChatMessage, SamplingParams, Speaker,
    };

    fn rec(key: &str, reply: Option<&str>, outcome: CallOutcome) -> CallRecord {
        let msgs = [ChatMessage {
            role: Speaker::User,
            content: "a".into(),
            image_sha256: None,
        }];
        let p = SamplingParams {
            temperature: 0.0,
            max_tokens: None,
            json_mode: true,
            sample: None,
        };
        CallRecord {
            key_hash: key.into(),
            role: Role::Planner,
            model: "m".into(),
            run_id: "r1".into(),
            request: request_json(&msgs, &p),
            reply: reply.map(String::from),
            prompt_tokens: 10,
            completion_tokens: 5,
            cost_usd: 0.001,
            latency_ms: 20,
            http_attempts: 1,
            outcome,
            error: None,
            created_at: None,
            faults: Default::default(),
        }
    }

    #[test]
    fn lookup_takes_latest_reply_and_skips_errors() {
        let c = CallLog::in_memory().unwrap();
        c.insert(&rec("k", Some("old"), CallOutcome::Accepted))
            .unwrap();
        c.insert(&rec("k", Some("new"), CallOutcome::Accepted))
            .unwrap();
        c.insert(&rec("k", None, CallOutcome::Error)).unwrap();
        assert_eq!(
            c.lookup("k").unwrap().unwrap().reply.as_deref(),
            Some("new")
        );
        assert!(c.lookup("other").unwrap().is_none());
    }

    #[test]
    fn jsonl_round_trip_and_usage() {
        let c = CallLog::in_memory().unwrap();
        c.insert(&rec("k1", Some("r"), CallOutcome::Accepted))
            .unwrap();
        c.insert(&rec("k2", Some("x"), CallOutcome::Rejected))
            .unwrap();
        c.insert(&rec("k3", None, CallOutcome::Error)).unwrap();
        let mut buf = Vec::new();
        assert_eq!(export_jsonl(&c.all().unwrap(), &mut buf).unwrap(), 2);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("calls.jsonl");
        std::fs::write(&path, &buf).unwrap();
        let map = load_jsonl(&path).unwrap();
        assert_eq!(map["k1"].reply.as_deref(), Some("r"));
        let usage = c.usage_summary(Some("r1")).unwrap();
        assert_eq!(usage.len(), 1);
        assert_eq!(usage[0].calls, 3);
        assert_eq!(usage[0].accepted, 1);
        assert_eq!(usage[0].rejected, 1);
        assert_eq!(usage[0].errors, 1);
        assert_eq!(usage[0].prompt_tokens, 30);
        assert!(c.usage_summary(Some("nope")).unwrap().is_empty());
    }

    #[test]
    fn faults_are_summed_by_class() {
        let c = CallLog::in_memory().unwrap();
        let mut a = rec("k1", Some("r"), CallOutcome::Accepted);
        a.faults.insert("rate_limited".into(), 2);
        let mut b = rec("k2", None, CallOutcome::Error);
        b.faults.insert("rate_limited".into(), 1);
        b.faults.insert("timeout".into(), 1);
        c.insert(&a).unwrap();
        c.insert(&b).unwrap();
        let f = c.fault_summary(None).unwrap();
        assert_eq!(f["rate_limited"], 3);
        assert_eq!(f["timeout"], 1);
        assert!(c.fault_summary(Some("other")).unwrap().is_empty());
    }
}
