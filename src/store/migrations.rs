//! Versioned schema migrations, applied in order on open.
//!
//! The schema version lives in SQLite's `user_version`. The missing migrations are
//! applied in one write transaction (`BEGIN IMMEDIATE`) together with the version
//! bump, after reading the version again inside it: a crash mid-migration leaves the
//! previous version intact, and of two processes opening a new store at once, the
//! second waits for the first and then finds nothing left to do. Never edit a
//! shipped migration: add one.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use super::StoreError;

/// Migration `i` (0-based) takes the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    // 1: the core tables.
    r#"
    CREATE TABLE runs (
        id          INTEGER PRIMARY KEY,
        command     TEXT NOT NULL,
        args        TEXT NOT NULL,
        started_at  TEXT NOT NULL,
        finished_at TEXT,
        status      TEXT NOT NULL,
        summary     TEXT
    );
    -- One row per subtask, whatever its status; `body` is the model::Subtask JSON
    -- without its evaluation and trajectories (they have their own tables).
    CREATE TABLE subtasks (
        id                   TEXT PRIMARY KEY,
        application          TEXT NOT NULL,
        category             TEXT,
        instruction_template TEXT NOT NULL,
        status               TEXT NOT NULL CHECK (status IN ('proposed', 'verified', 'rejected')),
        reason               TEXT,
        body                 TEXT NOT NULL,
        run_id               INTEGER REFERENCES runs(id),
        updated_at           TEXT NOT NULL DEFAULT (datetime('now'))
    );
    CREATE INDEX subtasks_by_status ON subtasks(status, application);
    CREATE TABLE subtask_parameters (
        subtask_id TEXT NOT NULL REFERENCES subtasks(id) ON DELETE CASCADE,
        idx        INTEGER NOT NULL,
        params     TEXT NOT NULL,
        PRIMARY KEY (subtask_id, idx)
    );
    CREATE TABLE trajectories (
        trajectory_id   TEXT PRIMARY KEY,
        subtask_id      TEXT NOT NULL REFERENCES subtasks(id) ON DELETE CASCADE,
        parameter_index INTEGER,
        body            TEXT NOT NULL
    );
    CREATE INDEX trajectories_by_subtask ON trajectories(subtask_id);
    CREATE TABLE evaluations (
        subtask_id TEXT PRIMARY KEY REFERENCES subtasks(id) ON DELETE CASCADE,
        body       TEXT NOT NULL
    );
    -- Cross-verification rounds, one row per (subtask, parameter set, round).
    CREATE TABLE verification_rounds (
        subtask_id      TEXT NOT NULL REFERENCES subtasks(id) ON DELETE CASCADE,
        parameter_index INTEGER NOT NULL,
        round           INTEGER NOT NULL,
        body            TEXT NOT NULL,
        PRIMARY KEY (subtask_id, parameter_index, round)
    );
    CREATE TABLE intents (
        id          TEXT PRIMARY KEY,
        intent      TEXT NOT NULL,
        status      TEXT NOT NULL,
        reason      TEXT,
        body        TEXT NOT NULL,
        run_id      INTEGER REFERENCES runs(id)
    );
    -- One row per composed dataset version: the spec it was composed with.
    CREATE TABLE dataset_versions (
        version    INTEGER PRIMARY KEY,
        spec_hash  TEXT NOT NULL UNIQUE,
        spec       TEXT NOT NULL,
        label      TEXT NOT NULL,
        asked      INTEGER NOT NULL,
        made       INTEGER NOT NULL,
        shortfall  TEXT,
        run_id     INTEGER REFERENCES runs(id),
        created_at TEXT NOT NULL DEFAULT (datetime('now'))
    );
    CREATE TABLE tasks (
        task_id   TEXT PRIMARY KEY,
        version   INTEGER NOT NULL REFERENCES dataset_versions(version),
        seq       INTEGER NOT NULL,
        status    TEXT NOT NULL CHECK (status IN ('composed', 'validated', 'rejected')),
        reason    TEXT,
        body      TEXT NOT NULL
    );
    CREATE INDEX tasks_by_version ON tasks(version, seq);
    CREATE TABLE validation_attempts (
        task_id TEXT NOT NULL REFERENCES tasks(task_id) ON DELETE CASCADE,
        attempt INTEGER NOT NULL,
        body    TEXT NOT NULL,
        PRIMARY KEY (task_id, attempt)
    );
    CREATE TABLE task_trajectories (
        trajectory_id TEXT PRIMARY KEY,
        task_id       TEXT NOT NULL REFERENCES tasks(task_id) ON DELETE CASCADE,
        status        TEXT NOT NULL,
        reason        TEXT,
        body          TEXT NOT NULL
    );
    "#,
    // 2: the language-model call record (owned by store/calls.rs).
    super::calls::CALL_RECORD_MIGRATION,
    // 3: `synth verify`: the outcome of each (subtask, parameter set) and the
    // mutation test of verified trajectories (owned by store/verify.rs).
    super::verify::VERIFY_MIGRATION,
    // 4: `synth review --import`: the reviewers' marks (owned by store/reviews.rs).
    super::reviews::REVIEWS_MIGRATION,
    // 5: the faults each recorded model exchange met (owned by store/calls.rs).
    super::calls::CALL_FAULTS_MIGRATION,
];

/// The schema version this build writes.
pub fn latest() -> i64 {
    MIGRATIONS.len() as i64
}

/// Applies every migration the database lacks.
pub(super) fn apply(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let too_new = |found: i64| StoreError::TooNew {
        path: path.to_path_buf(),
        found,
        known: latest(),
    };
    let current = version(conn)?;
    if current > latest() {
        return Err(too_new(current));
    }
    if current == latest() {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    // Another process may have migrated between the read above and the lock.
    let current = version(&tx)?;
    if current > latest() {
        return Err(too_new(current));
    }
    for sql in MIGRATIONS.iter().skip(current as usize) {
        tx.execute_batch(sql)?;
    }
    tx.pragma_update(None, "user_version", latest())?;
    tx.commit()?;
    Ok(())
}

fn version(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn.query_row("PRAGMA user_version", [], |r| r.get(0))?)
}
