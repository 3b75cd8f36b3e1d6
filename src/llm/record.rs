//! The call record: every model call, keyed by a hash of what was asked.
//!
//! Owns the `model_calls` table ([`CALL_RECORD_MIGRATION`], which the store adds to
//! its versioned migrations), the call key, row insert and lookup, JSONL export and
//! import (for the `replay` backend), and [`usage_summary`] for `synth stats`.
//!
//! The key is the sha256 of (role, model, rendered messages, sampling parameters);
//! images enter it as their own sha256. The API key is part of neither the key nor
//! the row. Functions take a `&rusqlite::Connection`; the client shares one as
//! `Arc<Mutex<Connection>>` and holds the lock only for one statement.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, Write};
use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{LlmError, Role};

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

/// Who speaks a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Speaker {
    System,
    User,
    Assistant,
}

/// A message as recorded and hashed. An attached image is represented by its
/// sha256; the bytes travel beside it (see the client).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Speaker,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_sha256: Option<String>,
}

/// The sampling parameters that enter the call key.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SamplingParams {
    pub temperature: f32,
    pub max_tokens: Option<u32>,
    pub json_mode: bool,
    /// Which new sample of the same request this is within one run: `None` the
    /// first time it is asked, `Some(n)` the n-th time again (a verify round or a
    /// validation attempt with the same prompt). It enters the key, so a repeated
    /// question is not answered from the record of the first one, and it is sent
    /// as the request's `seed`; absent for the first ask, so keys recorded before
    /// it existed still match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<u32>,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// The request as recorded: `{"messages": [...], "params": {...}}`.
pub fn request_json(messages: &[ChatMessage], params: &SamplingParams) -> serde_json::Value {
    serde_json::json!({ "messages": messages, "params": params })
}

/// The call key: sha256 hex of role, model, messages and sampling parameters.
pub fn call_key(
    role: Role,
    model: &str,
    messages: &[ChatMessage],
    params: &SamplingParams,
) -> String {
    let canonical = serde_json::json!({
        "role": role,
        "model": model,
        "request": request_json(messages, params),
    });
    sha256_hex(canonical.to_string().as_bytes())
}

/// What became of one recorded exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallOutcome {
    /// The reply parsed and validated.
    Accepted,
    /// The reply did not parse or validate and was re-asked.
    Invalid,
    /// The reply did not parse or validate and no re-ask was left.
    Rejected,
    /// No reply: the transport gave up.
    Error,
}

impl CallOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            CallOutcome::Accepted => "accepted",
            CallOutcome::Invalid => "invalid",
            CallOutcome::Rejected => "rejected",
            CallOutcome::Error => "error",
        }
    }

    fn parse(s: &str) -> CallOutcome {
        match s {
            "accepted" => CallOutcome::Accepted,
            "invalid" => CallOutcome::Invalid,
            "rejected" => CallOutcome::Rejected,
            _ => CallOutcome::Error,
        }
    }
}

/// One row of `model_calls`, also one line of a replay JSONL file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    pub key_hash: String,
    pub role: Role,
    pub model: String,
    pub run_id: String,
    pub request: serde_json::Value,
    pub reply: Option<String>,
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    #[serde(default)]
    pub cost_usd: f64,
    #[serde(default)]
    pub latency_ms: u64,
    #[serde(default)]
    pub http_attempts: u32,
    pub outcome: CallOutcome,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub created_at: Option<String>,
    /// Faults met by this exchange, by class (see [`CALL_FAULTS_MIGRATION`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub faults: BTreeMap<String, u32>,
}

/// Appends a row.
///
/// # Errors
/// SQLite errors (e.g. the migration was not applied).
pub fn insert(conn: &Connection, rec: &CallRecord) -> Result<i64, LlmError> {
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
        rec.outcome.as_str(),
        rec.error,
        (!rec.faults.is_empty()).then(|| serde_json::json!(rec.faults).to_string()),
    ])?;
    Ok(conn.last_insert_rowid())
}

const COLUMNS: &str = "key_hash, role, model, run_id, request, reply, prompt_tokens, \
    completion_tokens, cost_usd, latency_ms, http_attempts, outcome, error, created_at, faults";

fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<CallRecord> {
    let role: String = row.get(1)?;
    let request: String = row.get(4)?;
    let outcome: String = row.get(11)?;
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
        outcome: CallOutcome::parse(&outcome),
        error: row.get(12)?,
        created_at: row.get(13)?,
        faults: row
            .get::<_, Option<String>>(14)?
            .and_then(|f| serde_json::from_str(&f).ok())
            .unwrap_or_default(),
    })
}

/// The latest recorded reply for `key_hash` (rows without a reply do not answer).
///
/// # Errors
/// SQLite errors.
pub fn lookup(conn: &Connection, key_hash: &str) -> Result<Option<CallRecord>, LlmError> {
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
pub fn all(conn: &Connection) -> Result<Vec<CallRecord>, LlmError> {
    let mut stmt = conn.prepare(&format!("SELECT {COLUMNS} FROM model_calls ORDER BY id"))?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// Writes every row with a reply as one JSON line (the replay file format).
///
/// # Errors
/// SQLite or write errors.
pub fn export_jsonl(conn: &Connection, out: &mut dyn Write) -> Result<usize, LlmError> {
    let mut n = 0;
    for rec in all(conn)?.into_iter().filter(|r| r.reply.is_some()) {
        let line = serde_json::to_string(&rec).map_err(|e| LlmError::ReplayFile {
            path: "<export>".into(),
            line: n + 1,
            message: e.to_string(),
        })?;
        writeln!(out, "{line}").map_err(|e| LlmError::ReplayFile {
            path: "<export>".into(),
            line: n + 1,
            message: e.to_string(),
        })?;
        n += 1;
    }
    Ok(n)
}

/// Reads a replay JSONL file into key → latest record with a reply.
///
/// # Errors
/// [`LlmError::ReplayFile`] naming the path and line.
pub fn load_jsonl(path: &Path) -> Result<HashMap<String, CallRecord>, LlmError> {
    let err = |line: usize, message: String| LlmError::ReplayFile {
        path: path.display().to_string(),
        line,
        message,
    };
    let file = std::fs::File::open(path).map_err(|e| err(0, e.to_string()))?;
    let mut map = HashMap::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| err(i + 1, e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        let rec: CallRecord = serde_json::from_str(&line).map_err(|e| err(i + 1, e.to_string()))?;
        if rec.reply.is_some() {
            map.insert(rec.key_hash.clone(), rec);
        }
    }
    Ok(map)
}

/// Usage of one role and model, summed over recorded calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct RoleUsage {
    pub role: String,
    pub model: String,
    /// Recorded exchanges (cache hits are not recorded again).
    pub calls: u64,
    pub http_attempts: u64,
    pub accepted: u64,
    pub invalid: u64,
    pub rejected: u64,
    pub errors: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cost_usd: f64,
    pub mean_latency_ms: f64,
}

/// Faults met over all recorded exchanges (of one run with `run_id`), by class:
/// what the retry policy and the re-asks absorbed, and what they could not.
///
/// # Errors
/// SQLite errors.
pub fn fault_summary(
    conn: &Connection,
    run_id: Option<&str>,
) -> Result<BTreeMap<String, u64>, LlmError> {
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
pub fn usage_summary(conn: &Connection, run_id: Option<&str>) -> Result<Vec<RoleUsage>, LlmError> {
    let mut stmt = conn.prepare(
        "SELECT role, model, COUNT(*), SUM(http_attempts),
                SUM(outcome = 'accepted'), SUM(outcome = 'invalid'),
                SUM(outcome = 'rejected'), SUM(outcome = 'error'),
                SUM(prompt_tokens), SUM(completion_tokens), SUM(cost_usd), AVG(latency_ms)
         FROM model_calls WHERE (?1 IS NULL OR run_id = ?1)
         GROUP BY role, model ORDER BY role, model",
    )?;
    let rows = stmt.query_map([run_id], |r| {
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
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(CALL_RECORD_MIGRATION).unwrap();
        c.execute_batch(CALL_FAULTS_MIGRATION).unwrap();
        c
    }

    fn msgs(text: &str) -> Vec<ChatMessage> {
        vec![ChatMessage {
            role: Speaker::User,
            content: text.into(),
            image_sha256: None,
        }]
    }

    const P: SamplingParams = SamplingParams {
        temperature: 0.0,
        max_tokens: None,
        json_mode: true,
        sample: None,
    };

    #[test]
    fn key_depends_on_every_part() {
        let k = call_key(Role::Coder, "m", &msgs("a"), &P);
        assert_eq!(k.len(), 64);
        assert_eq!(k, call_key(Role::Coder, "m", &msgs("a"), &P));
        assert_ne!(k, call_key(Role::Actor, "m", &msgs("a"), &P));
        assert_ne!(k, call_key(Role::Coder, "n", &msgs("a"), &P));
        assert_ne!(k, call_key(Role::Coder, "m", &msgs("b"), &P));
        let p2 = SamplingParams {
            temperature: 0.5,
            ..P
        };
        assert_ne!(k, call_key(Role::Coder, "m", &msgs("a"), &p2));
        let again = SamplingParams {
            sample: Some(1),
            ..P
        };
        assert_ne!(k, call_key(Role::Coder, "m", &msgs("a"), &again));
    }

    #[test]
    fn a_first_ask_keeps_the_key_it_had_before_samples_were_counted() {
        let v = serde_json::to_value(P).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"temperature": 0.0, "max_tokens": null, "json_mode": true})
        );
    }

    fn rec(key: &str, reply: Option<&str>, outcome: CallOutcome) -> CallRecord {
        CallRecord {
            key_hash: key.into(),
            role: Role::Planner,
            model: "m".into(),
            run_id: "r1".into(),
            request: request_json(&msgs("a"), &P),
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
        let c = conn();
        insert(&c, &rec("k", Some("old"), CallOutcome::Accepted)).unwrap();
        insert(&c, &rec("k", Some("new"), CallOutcome::Accepted)).unwrap();
        insert(&c, &rec("k", None, CallOutcome::Error)).unwrap();
        assert_eq!(
            lookup(&c, "k").unwrap().unwrap().reply.as_deref(),
            Some("new")
        );
        assert!(lookup(&c, "other").unwrap().is_none());
    }

    #[test]
    fn jsonl_round_trip_and_usage() {
        let c = conn();
        insert(&c, &rec("k1", Some("r"), CallOutcome::Accepted)).unwrap();
        insert(&c, &rec("k2", Some("x"), CallOutcome::Rejected)).unwrap();
        insert(&c, &rec("k3", None, CallOutcome::Error)).unwrap();
        let mut buf = Vec::new();
        assert_eq!(export_jsonl(&c, &mut buf).unwrap(), 2);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("calls.jsonl");
        std::fs::write(&path, &buf).unwrap();
        let map = load_jsonl(&path).unwrap();
        assert_eq!(map["k1"].reply.as_deref(), Some("r"));
        let usage = usage_summary(&c, Some("r1")).unwrap();
        assert_eq!(usage.len(), 1);
        assert_eq!(usage[0].calls, 3);
        assert_eq!(usage[0].accepted, 1);
        assert_eq!(usage[0].rejected, 1);
        assert_eq!(usage[0].errors, 1);
        assert_eq!(usage[0].prompt_tokens, 30);
        assert!(usage_summary(&c, Some("nope")).unwrap().is_empty());
    }

    #[test]
    fn bad_jsonl_line_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("calls.jsonl");
        std::fs::write(&path, "\n{oops\n").unwrap();
        let err = load_jsonl(&path).unwrap_err().to_string();
        assert!(err.contains("calls.jsonl:2"), "{err}");
    }
}
