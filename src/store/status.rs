//! The status and verdict values the store keeps in text columns, as Rust enums.
//!
//! Each enum has one mapping to its stored text ([`text_enum!`]): `as_str`,
//! `FromStr`, `Display` and rusqlite's `ToSql`/`FromSql`, so SQL statements bind
//! and read the enum and no module compares status strings of its own. The
//! lifecycles of subtasks ([`crate::model::SubtaskStatus`]), intents
//! ([`super::intents::IntentStatus`]) and recorded model calls
//! ([`crate::llm::CallOutcome`]) live beside their records and use the same
//! mapping.

/// A stored status text that names no variant of the enum it is read as.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{found}' is not a known {what}")]
pub struct UnknownStatus {
    pub what: &'static str,
    pub found: String,
}

/// Gives an enum of unit variants its one text mapping: `as_str`, `ALL`,
/// `FromStr` ([`UnknownStatus`] for other text), `Display`, `ToSql` and `FromSql`.
macro_rules! text_enum {
    ($name:ident, $what:literal { $($variant:ident => $text:literal),+ $(,)? }) => {
        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The stored text.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::store::status::UnknownStatus;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($text => Ok($name::$variant),)+
                    _ => Err($crate::store::status::UnknownStatus {
                        what: $what,
                        found: s.to_string(),
                    }),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl rusqlite::ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(self.as_str().into())
            }
        }

        impl rusqlite::types::FromSql for $name {
            fn column_result(
                value: rusqlite::types::ValueRef<'_>,
            ) -> rusqlite::types::FromSqlResult<Self> {
                value
                    .as_str()?
                    .parse()
                    .map_err(|e| rusqlite::types::FromSqlError::Other(Box::new(e)))
            }
        }
    };
}
pub(crate) use text_enum;

/// The state of a command's run (`runs.status`). Stages that finish whole record
/// `Ok` or `Done` (the older stages say `done`; the text is kept so stored runs
/// read the same), one that finishes some units `Partial`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunStatus {
    /// Started and not finished (or its process is still alive).
    Running,
    Ok,
    Done,
    /// Some units failed; the rest were done.
    Partial,
    /// Finished, but made fewer than asked (compose's shortfall).
    Short,
    /// Its command returned an error, or some units failed and none is left to do.
    Failed,
    /// Its process ended (killed, crashed) before it finished.
    Interrupted,
}

text_enum!(RunStatus, "run status" {
    Running => "running",
    Ok => "ok",
    Done => "done",
    Partial => "partial",
    Short => "short",
    Failed => "failed",
    Interrupted => "interrupted",
});

impl RunStatus {
    /// `Done` when nothing failed, else `Failed` (explore's and verify's rule).
    pub fn done_unless(failed: bool) -> RunStatus {
        if failed {
            RunStatus::Failed
        } else {
            RunStatus::Done
        }
    }
}

/// Lifecycle of a composed task (`tasks.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TaskStatus {
    Composed,
    Validated,
    Rejected,
}

text_enum!(TaskStatus, "task status" {
    Composed => "composed",
    Validated => "validated",
    Rejected => "rejected",
});

/// Whether a task trajectory replays to full coverage (`task_trajectories.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TrajectoryStatus {
    Ok,
    Failed,
}

text_enum!(TrajectoryStatus, "task trajectory status" {
    Ok => "ok",
    Failed => "failed",
});

/// The outcome of one cross-verified (subtask, parameter set) unit
/// (`verify_units.status`), and the verdict a passing round records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnitVerdict {
    Passed,
    Failed,
}

text_enum!(UnitVerdict, "verification verdict" {
    Passed => "passed",
    Failed => "failed",
});

impl UnitVerdict {
    pub fn of(passed: bool) -> UnitVerdict {
        if passed {
            UnitVerdict::Passed
        } else {
            UnitVerdict::Failed
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;

    #[test]
    fn every_variant_reads_back_from_its_text() {
        for s in RunStatus::ALL {
            assert_eq!(s.as_str().parse::<RunStatus>(), Ok(*s));
        }
        for s in TaskStatus::ALL {
            assert_eq!(s.to_string().parse::<TaskStatus>(), Ok(*s));
        }
    }

    #[test]
    fn unknown_text_is_an_error_naming_the_kind() {
        let err = "finished".parse::<RunStatus>().unwrap_err();
        assert_eq!(err.to_string(), "'finished' is not a known run status");
    }

    #[test]
    fn binds_and_reads_as_text_in_sql() {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch("CREATE TABLE t (s TEXT)").unwrap();
        c.execute("INSERT INTO t VALUES (?1)", [TrajectoryStatus::Failed])
            .unwrap();
        let text: String = c.query_row("SELECT s FROM t", [], |r| r.get(0)).unwrap();
        assert_eq!(text, "failed");
        let back: TrajectoryStatus = c.query_row("SELECT s FROM t", [], |r| r.get(0)).unwrap();
        assert_eq!(back, TrajectoryStatus::Failed);
        let bad: rusqlite::Result<TaskStatus> = c.query_row("SELECT s FROM t", [], |r| r.get(0));
        assert!(bad.is_err());
    }
}
