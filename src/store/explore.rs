//! Store functions of `synth explore`: which applications were explored, and
//! writing one application's proposals (proposed and rejected alike) in one
//! transaction, so a killed run either has all of an application or none of it.

use std::collections::{BTreeSet, HashMap};

use super::{Store, StoreError};
use crate::model::{Subtask, SubtaskStatus};

/// The provenance note every record written by `synth explore` carries.
pub const EXPLORE_NOTE: &str = "explore";

/// The template of the record that keeps an explorer reply rejected as a whole
/// (unparsable, wrong shape), with the reason and the raw reply.
pub const REPLY_REJECTED: &str = "<explorer reply rejected>";

impl Store {
    /// Applications with at least one proposal written by `synth explore`. A reply
    /// rejected as a whole does not count: the application is asked again.
    pub fn explored_applications(&self) -> Result<BTreeSet<String>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT DISTINCT application FROM subtasks
             WHERE json_extract(body, '$.provenance.note') = ?1
               AND instruction_template <> ?2
             ORDER BY application",
        )?;
        let rows = stmt.query_map([EXPLORE_NOTE, REPLY_REJECTED], |r| r.get::<_, String>(0))?;
        let mut out = BTreeSet::new();
        for r in rows {
            out.insert(r?);
        }
        Ok(out)
    }

    /// The write position of every subtask `synth explore` stored: subtask id ->
    /// its row's position in the table (SQLite's rowid, which an update keeps).
    /// One application's proposals are written in one transaction in the order the
    /// explorer gave them, so this is each application's proposal order; the
    /// explore stage orders what it has stored by application (in exploration
    /// order) and then by this, the order an uninterrupted stage built it in.
    pub fn explore_write_order(&self) -> Result<HashMap<String, i64>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT id, rowid FROM subtasks WHERE json_extract(body, '$.provenance.note') = ?1",
        )?;
        let rows = stmt.query_map([EXPLORE_NOTE], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let mut out = HashMap::new();
        for r in rows {
            let (id, row): (String, i64) = r?;
            out.insert(id, row);
        }
        Ok(out)
    }

    /// Stores one application's records (subtask, status, reason) in one
    /// transaction. Rejected records keep their whole body.
    pub fn put_explored(
        &self,
        records: &[(Subtask, SubtaskStatus, Option<String>)],
        run: Option<i64>,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        for (s, status, reason) in records {
            super::pool::put_subtask(&tx, s, *status, reason.as_deref(), run)?;
        }
        tx.commit()?;
        Ok(())
    }
}
