//! The SQLite store: one file (default `generated/synth.sqlite`) that every stage
//! reads from and writes to.
//!
//! Owns the schema (versioned migrations applied on open, see [`migrations`]), and
//! typed reads and writes of subtasks, trajectories, evaluations, intents, tasks,
//! validation attempts, review marks, runs, the model call record ([`calls`]) and
//! what the report counts ([`report`]). It is the only module that speaks SQL:
//! statuses and verdicts cross its boundary as enums ([`status`]), rows as typed
//! records. Each unit of work is written in one
//! transaction, so a killed run leaves either all of a unit or none of it. Records
//! are stored as the JSON of their `model` types beside the columns that queries
//! filter on.
//!
//! The connection sits behind a mutex so one `Store` can be shared across threads;
//! SQLite serialises writers anyway, and WAL mode lets readers in other processes
//! (`synth stats` during a run) see committed data.
//!
//! **One writer.** Commands that write open the store with [`Store::open_writer`],
//! which first takes the writer lock ([`lock`]): a second writer on the same store
//! stops at once with [`StoreError::Busy`] naming the store and the holder.
//! Readers open with [`Store::open_reader`] and take no lock. Migrations run in one
//! `BEGIN IMMEDIATE` transaction after re-reading the version under SQLite's write
//! lock, so two processes opening a new store never both create its tables.

pub mod calls;
pub mod explore;
pub mod export;
pub mod intents;
pub mod lock;
pub mod migrations;
pub mod pool;
pub mod report;
pub mod reviews;
pub mod status;
pub mod tasks;
pub mod verify;

pub use status::{RunStatus, TaskStatus, TrajectoryStatus, UnitVerdict};

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::{params, Connection, OptionalExtension};

/// Errors of the store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    #[error("cannot open the store {path}")]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("cannot create the folder {path}")]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the store {path} has schema version {found}, newer than this synth knows ({known}); upgrade synth")]
    TooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("the store {path} is in use by another synth that writes to it ({holder}); wait for it to finish, or give another --db")]
    Busy { path: PathBuf, holder: String },
    #[error("cannot lock the store: {path}")]
    Lock {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the store {path} is read-only (its file permissions allow no writing) and this command writes to it; make it writable, or give a writable copy with --db (stats, report and pool export read it as it is)")]
    ReadOnly { path: PathBuf },
    #[error("the store {path} is read-only and has schema version {found}, older than this synth reads ({known}); make it writable once so that synth can upgrade it")]
    ReadOnlyOutdated {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("the store {path} is damaged ({detail}); nothing was written to it: restore it from a copy, or start a new store with another --db")]
    Damaged { path: PathBuf, detail: String },
    #[error("store query failed")]
    Sql(#[from] rusqlite::Error),
    #[error("a stored {what} record is not valid JSON ({id})")]
    Corrupt {
        what: &'static str,
        id: String,
        #[source]
        source: serde_json::Error,
    },
}

/// The store. Cheap to share by reference across threads.
pub struct Store {
    path: PathBuf,
    conn: Arc<Mutex<Connection>>,
    /// The writer lock, held as long as the store is open (writers only).
    _lock: Option<lock::WriterLock>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

/// Is the error SQLite's "database is locked" (SQLITE_BUSY)?
fn is_busy(e: &StoreError) -> bool {
    matches!(
        e,
        StoreError::Sql(rusqlite::Error::SqliteFailure(f, _))
            if f.code == rusqlite::ErrorCode::DatabaseBusy
    )
}

impl Store {
    /// Opens (creating if needed) the store at `path`, in WAL mode, and applies any
    /// migrations it lacks. Takes no writer lock: for tests and for callers that
    /// ensure one writer themselves; commands use [`Store::open_writer`] or
    /// [`Store::open_reader`].
    ///
    /// # Errors
    /// [`StoreError::TooNew`] when the file was written by a newer synth; SQLite
    /// errors otherwise.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        create_parent(path)?;
        Self::init(Self::connect(path)?, path, None)
    }

    /// Opens the store at `path` for a command that writes to it: takes the writer
    /// lock first (see [`lock`]), then opens as [`Store::open`] does.
    ///
    /// # Errors
    /// [`StoreError::Busy`] when another process writes to the store; otherwise as
    /// [`Store::open`].
    pub fn open_writer(path: &Path) -> Result<Store, StoreError> {
        create_parent(path)?;
        if is_read_only(path) {
            return Err(StoreError::ReadOnly {
                path: path.to_path_buf(),
            });
        }
        let lock = lock::WriterLock::acquire(path, &lock::this_process())?;
        let conn = Self::connect(path)?;
        // Before anything is written (pragmas, migrations): a damaged store is
        // refused whole rather than written into.
        check_integrity(&conn, path)?;
        let store = Self::init(conn, path, Some(lock))?;
        // With the lock held no other writer is alive: a run still 'running' belongs
        // to a process that was killed (or crashed) before it could finish it.
        let n = store.close_open_runs(
            RunStatus::Interrupted,
            &serde_json::json!({"note": "the process ended before the command finished"}),
        )?;
        if n > 0 {
            tracing::info!(runs = n, store = %path.display(), "marked runs of an interrupted process as interrupted");
        }
        Ok(store)
    }

    /// Opens the store at `path` for a command that only reads it, beside any
    /// running writer (no lock is taken). A store that does not exist yet is
    /// created, as by [`Store::open`]; a read-only file is opened read-only. A
    /// damaged store is opened with a warning naming it (what is read may be
    /// incomplete, and queries may fail).
    ///
    /// # Errors
    /// [`StoreError::ReadOnlyOutdated`] for a read-only store of an older schema;
    /// otherwise as [`Store::open`].
    pub fn open_reader(path: &Path) -> Result<Store, StoreError> {
        if !path.exists() {
            return Self::open(path);
        }
        let read_only = is_read_only(path);
        let conn = if read_only {
            use rusqlite::OpenFlags;
            Connection::open_with_flags(
                path,
                OpenFlags::SQLITE_OPEN_READ_ONLY
                    | OpenFlags::SQLITE_OPEN_URI
                    | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(|source| StoreError::Open {
                path: path.to_path_buf(),
                source,
            })?
        } else {
            Self::connect(path)?
        };
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        match check_integrity(&conn, path) {
            Err(StoreError::Damaged { detail, .. }) => {
                tracing::warn!(store = %path.display(), %detail, "the store is damaged; what is read may be incomplete");
            }
            other => other?,
        }
        if !read_only {
            return Self::init(conn, path, None);
        }
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        let found: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if found > migrations::latest() {
            return Err(StoreError::TooNew {
                path: path.to_path_buf(),
                found,
                known: migrations::latest(),
            });
        }
        if found < migrations::latest() {
            return Err(StoreError::ReadOnlyOutdated {
                path: path.to_path_buf(),
                found,
                known: migrations::latest(),
            });
        }
        Ok(Store {
            path: path.to_path_buf(),
            conn: Arc::new(Mutex::new(conn)),
            _lock: None,
        })
    }

    /// Opens the file read-write, waiting (up to 30 s) for other connections' locks
    /// from the first statement on: the integrity check may run while another
    /// process switches the journal mode or migrates.
    fn connect(path: &Path) -> Result<Connection, StoreError> {
        let conn = Connection::open(path).map_err(|source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        Ok(conn)
    }

    /// An in-memory store, for tests.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let conn = Connection::open_in_memory()?;
        Self::init(conn, Path::new(":memory:"), None)
    }

    fn init(
        mut conn: Connection,
        path: &Path,
        lock: Option<lock::WriterLock>,
    ) -> Result<Store, StoreError> {
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        // Switching a new file to WAL while another process does the same can get
        // SQLITE_BUSY without the busy handler being asked (SQLite's deadlock
        // avoidance): such a step is retried after a short pause.
        let mut tries = 0;
        loop {
            let step = conn
                .pragma_update(None, "journal_mode", "WAL")
                .map_err(StoreError::from)
                .and_then(|()| migrations::apply(&mut conn, path));
            match step {
                Err(e) if is_busy(&e) && tries < 100 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                other => break other?,
            }
        }
        Ok(Store {
            path: path.to_path_buf(),
            conn: Arc::new(Mutex::new(conn)),
            _lock: lock,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The connection, for the store's own modules and for tests that set up or
    /// inspect rows directly. Code outside the store reads and writes through
    /// `Store` methods.
    pub fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite inconsistent (the
        // transaction rolls back on drop), so a poisoned lock is still usable.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records the start of a command; returns the run id.
    pub fn begin_run(&self, command: &str, args: &serde_json::Value) -> Result<i64, StoreError> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO runs (command, args, started_at, status) VALUES (?1, ?2, datetime('now'), ?3)",
            params![command, args.to_string(), RunStatus::Running],
        )?;
        Ok(conn.last_insert_rowid())
    }

    /// Records the end of a run with its outcome and a summary.
    pub fn finish_run(
        &self,
        run: i64,
        status: RunStatus,
        summary: &serde_json::Value,
    ) -> Result<(), StoreError> {
        finish_run_in(&self.conn(), run, status, summary)
    }

    /// Ends every run still marked `running` with `status` and `summary`; returns
    /// how many. Called by a writer (which holds the lock, so every such run is its
    /// own or a dead process's): at open, for runs a killed process left, and when
    /// its command fails.
    pub fn close_open_runs(
        &self,
        status: RunStatus,
        summary: &serde_json::Value,
    ) -> Result<usize, StoreError> {
        Ok(self.conn().execute(
            "UPDATE runs SET finished_at = datetime('now'), status = ?1, summary = ?2
             WHERE status = ?3",
            params![status, summary.to_string(), RunStatus::Running],
        )?)
    }

    /// The schema version in force.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn()
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }

    /// A count over one table, optionally filtered by a `status` value (the
    /// table's status enum: [`SubtaskStatus`](crate::model::SubtaskStatus),
    /// [`TaskStatus`], [`IntentStatus`](intents::IntentStatus), [`TrajectoryStatus`]).
    pub fn count(
        &self,
        table: Table,
        status: Option<&dyn rusqlite::ToSql>,
    ) -> Result<u64, StoreError> {
        let conn = self.conn();
        let n: i64 = match status {
            Some(s) => conn.query_row(
                &format!("SELECT COUNT(*) FROM {} WHERE status = ?1", table.name()),
                [s],
                |r| r.get(0),
            )?,
            None => conn.query_row(&format!("SELECT COUNT(*) FROM {}", table.name()), [], |r| {
                r.get(0)
            })?,
        };
        Ok(n as u64)
    }

    /// The latest finished run of a command, if any: (id, status).
    pub fn last_run(&self, command: &str) -> Result<Option<(i64, RunStatus)>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT id, status FROM runs WHERE command = ?1 ORDER BY id DESC LIMIT 1",
                [command],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
    }
}

/// [`Store::finish_run`] on a connection or inside a transaction (a stage that
/// commits its work and its completion record together).
pub(crate) fn finish_run_in(
    conn: &Connection,
    run: i64,
    status: RunStatus,
    summary: &serde_json::Value,
) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE runs SET finished_at = datetime('now'), status = ?2, summary = ?3 WHERE id = ?1",
        params![run, status, summary.to_string()],
    )?;
    Ok(())
}

/// Do the file's permissions forbid writing? (Checked from the mode rather than
/// by trying, so that the answer is the same for root.)
fn is_read_only(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.permissions().readonly())
}

/// SQLite's quick integrity check (`PRAGMA quick_check`: every page and index
/// structure, without comparing index contents); [`StoreError::Damaged`] with the
/// first problems it reports.
fn check_integrity(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let damaged = |detail: String| StoreError::Damaged {
        path: path.to_path_buf(),
        detail,
    };
    let rows = conn.prepare("PRAGMA quick_check").and_then(|mut stmt| {
        stmt.query_map([], |r| r.get::<_, String>(0))?
            .collect::<Result<Vec<String>, _>>()
    });
    match rows {
        Ok(rows) if rows.len() == 1 && rows[0] == "ok" => Ok(()),
        Ok(rows) => {
            let problems: Vec<&str> = rows
                .iter()
                .flat_map(|r| r.lines())
                .filter(|l| !l.starts_with("***"))
                .collect();
            let mut detail = problems
                .iter()
                .take(2)
                .copied()
                .collect::<Vec<_>>()
                .join("; ");
            if problems.len() > 2 {
                detail.push_str(&format!("; {} more problems", problems.len() - 2));
            }
            Err(damaged(detail))
        }
        Err(rusqlite::Error::SqliteFailure(e, msg))
            if matches!(
                e.code,
                rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase
            ) =>
        {
            Err(damaged(msg.unwrap_or_else(|| e.to_string())))
        }
        Err(e) => Err(e.into()),
    }
}

/// Creates the folder the store lives in.
fn create_parent(path: &Path) -> Result<(), StoreError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| StoreError::CreateDir {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    Ok(())
}

/// Tables that carry a `status` column, for [`Store::count`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    Subtasks,
    Tasks,
    Intents,
    TaskTrajectories,
}

impl Table {
    fn name(self) -> &'static str {
        match self {
            Table::Subtasks => "subtasks",
            Table::Tasks => "tasks",
            Table::Intents => "intents",
            Table::TaskTrajectories => "task_trajectories",
        }
    }
}

pub(crate) fn from_json<T: serde::de::DeserializeOwned>(
    what: &'static str,
    id: &str,
    text: &str,
) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|source| StoreError::Corrupt {
        what,
        id: id.to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_twice_and_keeps_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g/s.sqlite");
        let v1 = Store::open(&path).unwrap().schema_version().unwrap();
        let v2 = Store::open(&path).unwrap().schema_version().unwrap();
        assert_eq!(v1, v2);
        assert_eq!(v1, migrations::latest());
        let mode: String = Store::open(&path)
            .unwrap()
            .conn()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }

    #[test]
    fn processes_opening_a_new_store_at_once_migrate_it_once() {
        // Each thread has its own connection, as separate processes would.
        for round in 0..5 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(format!("s{round}.sqlite"));
            let barrier = std::sync::Barrier::new(4);
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..4)
                    .map(|_| {
                        s.spawn(|| {
                            barrier.wait();
                            Store::open(&path).map(|st| st.schema_version().unwrap())
                        })
                    })
                    .collect();
                for h in handles {
                    assert_eq!(h.join().unwrap().unwrap(), migrations::latest());
                }
            });
        }
    }

    #[test]
    fn refuses_a_newer_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        drop(Store::open(&path).unwrap());
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", 999).unwrap();
        drop(conn);
        let err = Store::open(&path).unwrap_err();
        assert!(
            matches!(err, StoreError::TooNew { found: 999, .. }),
            "{err}"
        );
    }

    #[test]
    fn a_writer_marks_the_runs_a_killed_process_left_as_interrupted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        let killed = Store::open(&path).unwrap();
        let open = killed.begin_run("verify", &serde_json::json!({})).unwrap();
        let done = killed.begin_run("explore", &serde_json::json!({})).unwrap();
        killed
            .finish_run(done, RunStatus::Done, &serde_json::json!({}))
            .unwrap();
        drop(killed);
        let reader = Store::open_reader(&path).unwrap();
        assert_eq!(
            reader.last_run("verify").unwrap(),
            Some((open, RunStatus::Running))
        );
        let writer = Store::open_writer(&path).unwrap();
        assert_eq!(
            writer.last_run("verify").unwrap(),
            Some((open, RunStatus::Interrupted))
        );
        assert_eq!(
            writer.last_run("explore").unwrap(),
            Some((done, RunStatus::Done))
        );
    }

    #[test]
    fn a_damaged_store_is_refused_for_writing_and_read_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        {
            let s = Store::open(&path).unwrap();
            let conn = s.conn();
            conn.execute_batch("CREATE TABLE filler (x TEXT)").unwrap();
            for i in 0..2000 {
                conn.execute("INSERT INTO filler VALUES (?1)", [format!("{i:0>400}")])
                    .unwrap();
            }
        }
        let mut bytes = std::fs::read(&path).unwrap();
        let mid = bytes.len() / 2;
        let mut x: u32 = 7;
        for b in &mut bytes[mid..mid + 65_536] {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            *b = (x >> 16) as u8;
        }
        std::fs::write(&path, &bytes).unwrap();
        match Store::open_writer(&path) {
            Err(StoreError::Damaged { path: p, detail }) => {
                assert_eq!(p, path);
                assert!(!detail.is_empty());
            }
            other => panic!("expected Damaged, got {other:?}"),
        }
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "nothing was written");
        assert!(Store::open_reader(&path).is_ok());
    }

    #[test]
    fn a_read_only_store_is_read_but_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        Store::open(&path)
            .unwrap()
            .begin_run("explore", &serde_json::json!({}))
            .unwrap();
        let mut perms = std::fs::metadata(&path).unwrap().permissions();
        perms.set_readonly(true);
        std::fs::set_permissions(&path, perms).unwrap();
        let reader = Store::open_reader(&path).unwrap();
        assert_eq!(reader.count(Table::Tasks, None).unwrap(), 0);
        assert!(reader.last_run("explore").unwrap().is_some());
        assert!(matches!(
            Store::open_writer(&path),
            Err(StoreError::ReadOnly { .. })
        ));
    }

    #[test]
    fn runs_are_recorded() {
        let s = Store::open_in_memory().unwrap();
        let id = s
            .begin_run("compose", &serde_json::json!({"count": 3}))
            .unwrap();
        s.finish_run(id, RunStatus::Ok, &serde_json::json!({"made": 3}))
            .unwrap();
        assert_eq!(s.last_run("compose").unwrap(), Some((id, RunStatus::Ok)));
    }
}
