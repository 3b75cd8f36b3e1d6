//! The review CSV: written with one row per sampled task and the last two columns
//! (`decision`, `reason`) empty, read back once a reviewer has filled them.
//!
//! Reading checks every row before anything is stored: an unknown task id, a task
//! marked twice or a decision other than `accept`, `reject` or empty is an error
//! naming the file and the line the row starts on. Only `task_id`, `decision` and
//! `reason` are read back (found by header name, so columns may be reordered); the
//! other columns are for the reviewer, and the figures come from the store.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use super::ReviewError;

/// The sheet's columns, in order.
pub const HEADER: [&str; 10] = [
    "task_id",
    "capability",
    "nodes",
    "dependency",
    "instruction",
    "knowledge",
    "hierarchy",
    "branch",
    "decision",
    "reason",
];

/// One row of a fresh sheet (decision and reason are written empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SheetRow {
    pub task_id: String,
    /// Capability names joined with "; ".
    pub capability: String,
    pub nodes: usize,
    /// Levels of dependency, instruction, knowledge, hierarchy, branch ("" if unknown).
    pub levels: [String; 5],
}

/// A reviewer's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Accept,
    Reject,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Accept => "accept",
            Decision::Reject => "reject",
        }
    }

    /// `accept` or `reject` (any case, surrounding space ignored); None for empty.
    fn parse(s: &str) -> Result<Option<Decision>, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" => Ok(None),
            "accept" => Ok(Some(Decision::Accept)),
            "reject" => Ok(Some(Decision::Reject)),
            _ => Err(format!(
                "decision '{}' is not accept, reject or empty",
                s.trim()
            )),
        }
    }
}

/// A marked row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub task_id: String,
    pub decision: Decision,
    /// Surrounding space trimmed; inner newlines, quotes and commas kept.
    pub reason: String,
    /// The line the row starts on (1 is the header).
    pub line: u64,
}

/// What a marked sheet holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    pub marks: Vec<Mark>,
    /// Rows left without a decision (not stored; earlier marks of them are kept).
    pub blank: usize,
}

/// Writes the sheet.
///
/// # Errors
/// [`ReviewError::Write`] when the file cannot be written.
pub fn write_sheet(path: &Path, rows: &[SheetRow]) -> Result<(), ReviewError> {
    crate::atomic::write_with(path, |out| {
        let mut w = csv::Writer::from_writer(out);
        w.write_record(HEADER)?;
        for r in rows {
            let nodes = r.nodes.to_string();
            let mut rec: Vec<&str> = vec![&r.task_id, &r.capability, &nodes];
            rec.extend(r.levels.iter().map(String::as_str));
            rec.extend(["", ""]);
            w.write_record(&rec)?;
        }
        w.flush()
    })
    .map_err(|source| ReviewError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads a marked sheet; `known` are the task ids of the store.
///
/// # Errors
/// [`ReviewError::Read`] for an unreadable file, [`ReviewError::Csv`] for
/// malformed CSV, [`ReviewError::Column`] for a missing column and
/// [`ReviewError::Row`] for a bad row, each naming the file (and line).
pub fn read_marks(path: &Path, known: &BTreeSet<String>) -> Result<Marks, ReviewError> {
    let file = std::fs::File::open(path).map_err(|source| ReviewError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let csv_err = |source: csv::Error| ReviewError::Csv {
        path: path.to_path_buf(),
        line: source.position().map_or(0, csv::Position::line),
        source,
    };
    let mut r = csv::ReaderBuilder::new().from_reader(std::io::BufReader::new(file));
    let header = r.headers().map_err(csv_err)?.clone();
    let column = |name: &'static str| {
        header
            .iter()
            .position(|h| h.trim().trim_start_matches('\u{feff}') == name)
            .ok_or_else(|| ReviewError::Column {
                path: path.to_path_buf(),
                column: name,
            })
    };
    let (id_col, decision_col, reason_col) =
        (column("task_id")?, column("decision")?, column("reason")?);
    let mut out = Marks::default();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for rec in r.records() {
        let rec = rec.map_err(csv_err)?;
        let line = rec.position().map_or(0, csv::Position::line);
        let row_err = |message: String| ReviewError::Row {
            path: path.to_path_buf(),
            line,
            message,
        };
        let field = |i: usize| rec.get(i).unwrap_or("");
        let task_id = field(id_col).trim().to_string();
        if !known.contains(&task_id) {
            return Err(row_err(format!("unknown task id '{task_id}'")));
        }
        if !seen.insert(task_id.clone()) {
            return Err(row_err(format!("task '{task_id}' is marked twice")));
        }
        match Decision::parse(field(decision_col)).map_err(row_err)? {
            None => out.blank += 1,
            Some(decision) => out.marks.push(Mark {
                task_id,
                decision,
                reason: field(reason_col).trim().to_string(),
                line,
            }),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> BTreeSet<String> {
        ["t1", "t2", "t3"].iter().map(|s| s.to_string()).collect()
    }

    fn read(text: &str) -> Result<Marks, ReviewError> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.csv");
        std::fs::write(&p, text).unwrap();
        read_marks(&p, &known())
    }

    #[test]
    fn written_sheet_reads_back_blank() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.csv");
        let row = SheetRow {
            task_id: "t1".into(),
            capability: "a; b".into(),
            nodes: 3,
            levels: ["easy", "medium", "hard", "easy", ""].map(String::from),
        };
        write_sheet(&p, &[row]).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(
            text,
            "task_id,capability,nodes,dependency,instruction,knowledge,hierarchy,branch,decision,reason\n\
             t1,a; b,3,easy,medium,hard,easy,,,\n"
        );
        assert_eq!(
            read(&text).unwrap(),
            Marks {
                marks: vec![],
                blank: 1
            }
        );
    }

    #[test]
    fn quoted_reasons_round_trip_and_lines_count_from_the_header() {
        let m = read(
            "decision,reason,task_id\n\
             Reject,\"too vague, \"\"really\"\"\nsecond line\",t2\n\
             accept,,t1\n",
        )
        .unwrap();
        assert_eq!(m.marks.len(), 2);
        assert_eq!(m.marks[0].reason, "too vague, \"really\"\nsecond line");
        assert_eq!(m.marks[0].decision, Decision::Reject);
        assert_eq!((m.marks[0].line, m.marks[1].line), (2, 4));
    }

    #[test]
    fn bad_rows_name_file_and_line() {
        let e = read("task_id,decision,reason\nt1,accept,\nt9,accept,\n").unwrap_err();
        let msg = e.to_string();
        assert!(msg.ends_with("r.csv:3: unknown task id 't9'"), "{msg}");
        let e = read("task_id,decision,reason\nt1,maybe,\n").unwrap_err();
        assert!(
            e.to_string()
                .contains(":2: decision 'maybe' is not accept, reject or empty"),
            "{e}"
        );
        let e = read("task_id,decision,reason\nt1,accept,\nt1,reject,\n").unwrap_err();
        assert!(
            e.to_string().contains(":3: task 't1' is marked twice"),
            "{e}"
        );
        let e = read("task_id,reason\nt1,x\n").unwrap_err();
        assert!(e.to_string().contains("no 'decision' column"), "{e}");
        let e = read("task_id,decision,reason\nt1,accept\n").unwrap_err();
        assert!(e.to_string().contains("r.csv:2"), "{e}");
    }
}
