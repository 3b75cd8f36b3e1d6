//! The subtask pool in the store, and its JSONL interchange form
//! (`subtask_pool/*.jsonl`, `synth pool import` / `synth pool export`).
//!
//! A pool file holds one [`Subtask`] per line, sorted by `id`, each with its
//! evaluation and trajectories inline. Import checks every line before it writes
//! anything and writes all lines in one transaction, so a bad line leaves the store
//! as it was. Export is byte-for-byte deterministic: same store, same bytes.

use std::io::Write;
use std::path::{Path, PathBuf};

use rusqlite::{params, Transaction};

use super::{from_json, Store, StoreError};
use crate::model::{Evaluation, Subtask, SubtaskStatus, SubtaskTrajectory};
use crate::resources::{validate_subtask, Catalog};

/// Why a pool file was refused. Names the file and the 1-based line.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PoolError {
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: not a valid subtask: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}:{line}: subtask {id}: {message}")]
    Invalid {
        path: PathBuf,
        line: usize,
        id: String,
        message: String,
    },
    #[error("{path}:{line}: subtask {id} appears twice (first on line {first})")]
    Duplicate {
        path: PathBuf,
        line: usize,
        id: String,
        first: usize,
    },
    #[error("{path}: the file holds no subtasks")]
    Empty { path: PathBuf },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl From<rusqlite::Error> for PoolError {
    fn from(e: rusqlite::Error) -> Self {
        PoolError::Store(StoreError::Sql(e))
    }
}

/// Parses and checks a pool file's text. Blank lines are skipped.
pub fn parse_pool(path: &Path, text: &str, catalog: &Catalog) -> Result<Vec<Subtask>, PoolError> {
    let mut out: Vec<Subtask> = Vec::new();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let subtask: Subtask = serde_json::from_str(raw).map_err(|e| PoolError::Parse {
            path: path.to_path_buf(),
            line,
            message: e.to_string(),
        })?;
        let invalid = |message: String| PoolError::Invalid {
            path: path.to_path_buf(),
            line,
            id: subtask.id.0.clone(),
            message,
        };
        if subtask.id.0.trim().is_empty() {
            return Err(invalid("empty id".into()));
        }
        validate_subtask(catalog, &subtask).map_err(|e| invalid(e.to_string()))?;
        if let Some(category) = &subtask.category {
            if !catalog.categories.contains(category) {
                return Err(invalid(format!("unknown category '{category}'")));
            }
        }
        for t in &subtask.trajectories {
            if t.subtask_id != subtask.id {
                return Err(invalid(format!(
                    "trajectory {} belongs to subtask {}",
                    t.trajectory_id, t.subtask_id
                )));
            }
        }
        if let Some(first) = seen.insert(subtask.id.0.clone(), line) {
            return Err(PoolError::Duplicate {
                path: path.to_path_buf(),
                line,
                id: subtask.id.0.clone(),
                first,
            });
        }
        out.push(subtask);
    }
    if out.is_empty() {
        return Err(PoolError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(out)
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ImportReport {
    pub file: PathBuf,
    pub subtasks: usize,
    pub new: usize,
    pub replaced: usize,
    pub trajectories: usize,
}

impl Store {
    /// Imports a pool file as verified subtasks: all lines or none.
    ///
    /// # Errors
    /// [`PoolError`] naming file and line for the first bad line; the store is then
    /// unchanged.
    pub fn import_pool(&self, path: &Path, catalog: &Catalog) -> Result<ImportReport, PoolError> {
        let text = std::fs::read_to_string(path).map_err(|source| PoolError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let subtasks = parse_pool(path, &text, catalog)?;
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let mut report = ImportReport {
            file: path.to_path_buf(),
            subtasks: subtasks.len(),
            new: 0,
            replaced: 0,
            trajectories: 0,
        };
        for s in &subtasks {
            let existed = put_subtask(&tx, s, SubtaskStatus::Verified, None, None)?;
            if existed {
                report.replaced += 1;
            } else {
                report.new += 1;
            }
            report.trajectories += s.trajectories.len();
        }
        tx.commit()?;
        Ok(report)
    }

    /// Stores one subtask with its parameter sets, evaluation and trajectories, in one
    /// transaction. Returns whether a subtask with that id existed (it is replaced).
    pub fn put_subtask(
        &self,
        subtask: &Subtask,
        status: SubtaskStatus,
        reason: Option<&str>,
        run: Option<i64>,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let existed = put_subtask(&tx, subtask, status, reason, run)?;
        tx.commit()?;
        Ok(existed)
    }

    /// Every subtask with the given status, sorted by id, with evaluation and
    /// trajectories attached.
    pub fn subtasks(&self, status: SubtaskStatus) -> Result<Vec<Subtask>, StoreError> {
        let conn = self.conn();
        let mut stmt =
            conn.prepare("SELECT id, body FROM subtasks WHERE status = ?1 ORDER BY id")?;
        let rows = stmt.query_map([status], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, body) = row?;
            out.push(from_json::<Subtask>("subtask", &id, &body)?);
        }
        drop(stmt);
        let mut eval_stmt = conn.prepare("SELECT body FROM evaluations WHERE subtask_id = ?1")?;
        let mut traj_stmt = conn.prepare(
            "SELECT trajectory_id, body FROM trajectories WHERE subtask_id = ?1 ORDER BY parameter_index, trajectory_id",
        )?;
        for s in &mut out {
            let mut evals = eval_stmt.query_map([&s.id.0], |r| r.get::<_, String>(0))?;
            if let Some(body) = evals.next() {
                s.evaluation = Some(from_json::<Evaluation>("evaluation", &s.id.0, &body?)?);
            }
            let trajs = traj_stmt.query_map([&s.id.0], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })?;
            for t in trajs {
                let (tid, body) = t?;
                s.trajectories
                    .push(from_json::<SubtaskTrajectory>("trajectory", &tid, &body)?);
            }
        }
        Ok(out)
    }

    /// Writes the verified pool as JSONL, sorted by id. Returns the number of lines.
    pub fn export_pool(&self, out: &mut dyn Write) -> Result<usize, StoreError> {
        let subtasks = self.subtasks(SubtaskStatus::Verified)?;
        for s in &subtasks {
            let line = serde_json::to_string(s).expect("model types always serialize");
            // Write errors surface as SQL-free I/O failures to the caller through the
            // writer; a broken pipe (`synth pool export | head`) just ends the export.
            if writeln!(out, "{line}").is_err() {
                break;
            }
        }
        Ok(subtasks.len())
    }
}

/// Upserts one subtask inside `tx`. Returns whether it existed.
pub(super) fn put_subtask(
    tx: &Transaction<'_>,
    subtask: &Subtask,
    status: SubtaskStatus,
    reason: Option<&str>,
    run: Option<i64>,
) -> Result<bool, rusqlite::Error> {
    let existed: bool = tx.query_row(
        "SELECT EXISTS(SELECT 1 FROM subtasks WHERE id = ?1)",
        [&subtask.id.0],
        |r| r.get(0),
    )?;
    let mut bare = subtask.clone();
    bare.evaluation = None;
    bare.trajectories.clear();
    let body = serde_json::to_string(&bare).expect("model types always serialize");
    tx.execute(
        "INSERT INTO subtasks (id, application, category, instruction_template, status, reason, body, run_id, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, datetime('now'))
         ON CONFLICT(id) DO UPDATE SET application = excluded.application, category = excluded.category,
             instruction_template = excluded.instruction_template, status = excluded.status,
             reason = excluded.reason, body = excluded.body, run_id = excluded.run_id,
             updated_at = excluded.updated_at",
        params![
            subtask.id.0,
            subtask.application,
            subtask.category,
            subtask.instruction_template,
            status,
            reason,
            body,
            run
        ],
    )?;
    tx.execute(
        "DELETE FROM subtask_parameters WHERE subtask_id = ?1",
        [&subtask.id.0],
    )?;
    for (i, p) in subtask.available_parameters.iter().enumerate() {
        tx.execute(
            "INSERT INTO subtask_parameters (subtask_id, idx, params) VALUES (?1, ?2, ?3)",
            params![subtask.id.0, i as i64, serde_json::to_string(p).unwrap()],
        )?;
    }
    tx.execute(
        "DELETE FROM evaluations WHERE subtask_id = ?1",
        [&subtask.id.0],
    )?;
    if let Some(e) = &subtask.evaluation {
        tx.execute(
            "INSERT INTO evaluations (subtask_id, body) VALUES (?1, ?2)",
            params![subtask.id.0, serde_json::to_string(e).unwrap()],
        )?;
    }
    tx.execute(
        "DELETE FROM trajectories WHERE subtask_id = ?1",
        [&subtask.id.0],
    )?;
    for t in &subtask.trajectories {
        tx.execute(
            "INSERT OR REPLACE INTO trajectories (trajectory_id, subtask_id, parameter_index, body) VALUES (?1, ?2, ?3, ?4)",
            params![
                t.trajectory_id,
                subtask.id.0,
                t.parameter_index.map(|i| i as i64),
                serde_json::to_string(t).unwrap()
            ],
        )?;
    }
    Ok(existed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> Catalog {
        Catalog::load(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    const GOOD: &str = r#"{"id":"b","instruction_template":"Open '{xlsx_path}' and copy all","application":"Sheets","category":"Office","OS":"Linux","available_parameters":[{"xlsx_path":"/home/user/Documents/b.xlsx"}],"input_resources":["xlsx_path"],"output_resources":["table_in_clipboard"],"evaluation":{"checks":[{"api":"check_mouse_clicks","args":{"text":"Copy"}}]}}
{"id":"a","instruction_template":"Paste the table into a new document","application":"Writer","OS":"Linux","available_parameters":[{}],"input_resources":["table_in_clipboard"],"output_resources":["docx_in_processing"]}
"#;

    #[test]
    fn import_then_export_is_sorted_and_stable() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.jsonl");
        std::fs::write(&file, GOOD).unwrap();
        let store = Store::open_in_memory().unwrap();
        let r = store.import_pool(&file, &catalog()).unwrap();
        assert_eq!((r.subtasks, r.new, r.replaced), (2, 2, 0));
        let mut first = Vec::new();
        store.export_pool(&mut first).unwrap();
        let text = String::from_utf8(first.clone()).unwrap();
        assert!(text.starts_with("{\"id\":\"a\""), "{text}");
        // Re-import the export: same bytes out again.
        std::fs::write(&file, &first).unwrap();
        let r = store.import_pool(&file, &catalog()).unwrap();
        assert_eq!(r.replaced, 2);
        let mut second = Vec::new();
        store.export_pool(&mut second).unwrap();
        assert_eq!(first, second);
    }

    #[test]
    fn bad_lines_name_file_and_line_and_change_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.jsonl");
        let store = Store::open_in_memory().unwrap();
        std::fs::write(&file, GOOD).unwrap();
        store.import_pool(&file, &catalog()).unwrap();
        let mut before = Vec::new();
        store.export_pool(&mut before).unwrap();

        let cases = [
            ("{not json", "p.jsonl:3: not a valid subtask"),
            (
                r#"{"id":"c","instruction_template":"x","application":"A","OS":"Linux","available_parameters":[{}],"input_resources":["warp_drive"],"output_resources":[]}"#,
                "unknown resource kind 'warp_drive'",
            ),
            (
                r#"{"id":"c","instruction_template":"Open {pdf_path}","application":"A","OS":"Linux","available_parameters":[{}],"input_resources":[],"output_resources":[]}"#,
                "placeholder '{pdf_path}' has no value",
            ),
        ];
        for (bad, expected) in cases {
            let text = format!("{}{}\n", GOOD.replace("\"id\":\"a\"", "\"id\":\"z\""), bad);
            std::fs::write(&file, text).unwrap();
            let err = store
                .import_pool(&file, &catalog())
                .unwrap_err()
                .to_string();
            assert!(err.contains(expected), "{err}");
            assert!(err.contains("p.jsonl:3"), "{err}");
            let mut after = Vec::new();
            store.export_pool(&mut after).unwrap();
            assert_eq!(before, after, "store changed after a refused import");
        }
    }
}
