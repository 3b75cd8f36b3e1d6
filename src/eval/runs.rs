//! The runs folder: one file per task, `<anything>.json`, holding the actions an
//! agent took as a [`TaskTrajectory`]-shaped object.
//!
//! Only `task_id` (a string) and `actions` (a list of OmniBench C.5 actions:
//! `function`, `args`, optional `control_text`, `control_label`, `rect`,
//! `description`, `thought`) are required; every other field of the trajectory is
//! optional. Reading is strict about what it needs and names the file and the
//! field when something is wrong; writing produces a full C.5 task trajectory.
//! Owns no other state.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::model::{Action, TaskId, TaskTrajectory, TrajectoryAction};

use super::EvalError;

/// One agent run of one task, as read from a runs folder.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub path: PathBuf,
    pub task_id: TaskId,
    pub actions: Vec<Action>,
}

/// Parses one run file's text; `path` is only used in errors.
///
/// # Errors
/// [`EvalError::RunFile`] naming the file and the field that is missing or wrong.
pub fn parse_run(path: &Path, text: &str) -> Result<Run, EvalError> {
    let bad = |field: &str, message: String| EvalError::RunFile {
        path: path.to_path_buf(),
        field: field.to_string(),
        message,
    };
    let value: Value =
        serde_json::from_str(text).map_err(|e| bad("(file)", format!("not JSON: {e}")))?;
    let Value::Object(obj) = value else {
        return Err(bad("(file)", "expected a JSON object".to_string()));
    };
    let task_id = match obj.get("task_id") {
        Some(Value::String(s)) if !s.trim().is_empty() => TaskId(s.clone()),
        Some(Value::String(_)) => return Err(bad("task_id", "is empty".to_string())),
        Some(other) => {
            return Err(bad(
                "task_id",
                format!("expected a string, got {}", kind_of(other)),
            ))
        }
        None => return Err(bad("task_id", "is missing".to_string())),
    };
    let items = match obj.get("actions") {
        Some(Value::Array(a)) => a,
        Some(other) => {
            return Err(bad(
                "actions",
                format!("expected a list, got {}", kind_of(other)),
            ))
        }
        None => return Err(bad("actions", "is missing".to_string())),
    };
    let mut actions = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let step: TrajectoryAction = serde_json::from_value(item.clone())
            .map_err(|e| bad(&format!("actions[{i}]"), e.to_string()))?;
        actions.push(step.to_action());
    }
    Ok(Run {
        path: path.to_path_buf(),
        task_id,
        actions,
    })
}

/// Reads one run file.
///
/// # Errors
/// The file cannot be read, or [`parse_run`]'s errors.
pub fn read_run(path: &Path) -> Result<Run, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|e| EvalError::RunFile {
        path: path.to_path_buf(),
        field: "(file)".to_string(),
        message: format!("cannot read: {e}"),
    })?;
    parse_run(path, &text)
}

/// The `*.json` files of a runs folder, sorted by name, each read on its own: a
/// bad file is an `Err` entry and the others are still read.
///
/// # Errors
/// The folder itself cannot be listed.
pub fn read_runs(dir: &Path) -> Result<Vec<Result<Run, EvalError>>, EvalError> {
    let list_err = |source| EvalError::RunsDir {
        path: dir.to_path_buf(),
        source,
    };
    let mut files: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(list_err)? {
        let path = entry.map_err(list_err)?.path();
        if path.is_file() && path.extension().is_some_and(|e| e == "json") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files.iter().map(|p| read_run(p)).collect())
}

/// A file name for a task's run: the id with anything but letters, digits, `-`,
/// `_` and `.` replaced by `_`.
pub fn run_file_name(task_id: &TaskId) -> String {
    let safe: String = task_id
        .0
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}.json")
}

/// Writes a run as a full C.5 task trajectory to `dir/<task_id>.json`.
///
/// # Errors
/// The folder or file cannot be written.
pub fn write_run(dir: &Path, run: &TaskTrajectory) -> Result<PathBuf, EvalError> {
    let path = dir.join(run_file_name(&run.task_id));
    let err = |source| EvalError::Write {
        path: path.clone(),
        source,
    };
    // Model types always serialize.
    let text = serde_json::to_string_pretty(run).unwrap_or_default();
    crate::atomic::write(&path, (text + "\n").as_bytes()).map_err(err)?;
    Ok(path)
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> PathBuf {
        PathBuf::from("runs/x.json")
    }

    #[test]
    fn minimal_run_parses() {
        let r = parse_run(
            &p(),
            r#"{"task_id":"t1","actions":[
                {"function":"click_input","args":{"button":"left","double":false},"control_text":"Start"},
                {"function":"keyboard_input","args":{"keys":"hi"},"control_text":"Text","control_label":"4"}]}"#,
        )
        .unwrap();
        assert_eq!(r.task_id.0, "t1");
        assert_eq!(r.actions.len(), 2);
        assert_eq!(r.actions[1].control_label.as_deref(), Some("4"));
    }

    #[test]
    fn errors_name_the_field() {
        let field = |text: &str| match parse_run(&p(), text) {
            Err(EvalError::RunFile { field, .. }) => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(field("{"), "(file)");
        assert_eq!(field("[]"), "(file)");
        assert_eq!(field(r#"{"actions":[]}"#), "task_id");
        assert_eq!(field(r#"{"task_id":3,"actions":[]}"#), "task_id");
        assert_eq!(field(r#"{"task_id":"t"}"#), "actions");
        assert_eq!(
            field(
                r#"{"task_id":"t","actions":[{"function":"click_input","args":{}},{"function":"fly"}]}"#
            ),
            "actions[1]"
        );
        let msg = parse_run(&p(), r#"{"task_id":"t"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("runs/x.json") && msg.contains("actions"),
            "{msg}"
        );
    }

    #[test]
    fn file_names_are_safe() {
        assert_eq!(run_file_name(&TaskId("a/b c".into())), "a_b_c.json");
    }
}
