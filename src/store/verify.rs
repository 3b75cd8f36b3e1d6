//! What `synth verify` keeps beyond the subtask tables: the outcome of each
//! (subtask, parameter set) unit (`verify_units`, with its rounds in
//! `verification_rounds`, written together in one transaction so a killed run
//! leaves a unit whole or absent), and the mutation test of verified trajectories
//! (`mutation_results`).
//!
//! Bodies are JSON of the verify stage's own record types; this module stores and
//! returns them without looking inside.

use rusqlite::params;
use serde::{de::DeserializeOwned, Deserialize, Serialize};

use super::{from_json, Store, StoreError, UnitVerdict};

/// Migration 3: the verify stage's tables.
pub const VERIFY_MIGRATION: &str = r#"
    -- One row per (subtask, parameter set) whose cross-verification finished.
    CREATE TABLE verify_units (
        subtask_id      TEXT NOT NULL REFERENCES subtasks(id) ON DELETE CASCADE,
        parameter_index INTEGER NOT NULL,
        status          TEXT NOT NULL CHECK (status IN ('passed', 'failed')),
        reason          TEXT,
        rounds          INTEGER NOT NULL,
        body            TEXT NOT NULL,
        run_id          INTEGER REFERENCES runs(id),
        PRIMARY KEY (subtask_id, parameter_index)
    );
    -- One row per mutant of a verified trajectory.
    CREATE TABLE mutation_results (
        subtask_id      TEXT NOT NULL REFERENCES subtasks(id) ON DELETE CASCADE,
        parameter_index INTEGER NOT NULL,
        mutant          INTEGER NOT NULL,
        kind            TEXT NOT NULL,
        breaks_contract INTEGER NOT NULL,
        accepted        INTEGER NOT NULL,
        body            TEXT NOT NULL,
        PRIMARY KEY (subtask_id, parameter_index, mutant)
    );
"#;

/// One mutant of a verified trajectory and how the evaluation judged it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MutantRow {
    pub subtask_id: String,
    pub parameter_index: usize,
    pub mutant: usize,
    /// `drop_action`, `change_text`, `other_control`, `stop_early`.
    pub kind: String,
    /// Some declared output did not hold after the mutant.
    pub breaks_contract: bool,
    /// The evaluation accepted the mutant.
    pub accepted: bool,
    /// What was mutated, in words.
    pub description: String,
}

/// The mutation score over every stored mutant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct MutationSummary {
    pub mutants: u64,
    /// Mutants that break the resource contract.
    pub breaking: u64,
    /// Of those, the ones the evaluation rejects.
    pub rejected: u64,
    /// rejected / breaking (1.0 when nothing breaks).
    pub score: f64,
}

impl Store {
    /// The bodies of every finished verify unit, ordered by subtask and index.
    pub fn verify_units<T: DeserializeOwned>(&self) -> Result<Vec<T>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT subtask_id, body FROM verify_units ORDER BY subtask_id, parameter_index",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        let mut out = Vec::new();
        for row in rows {
            let (id, body) = row?;
            out.push(from_json("verify unit", &id, &body)?);
        }
        Ok(out)
    }

    /// Stores one finished unit and its rounds in one transaction, replacing any
    /// earlier rows of the same unit.
    #[allow(clippy::too_many_arguments)]
    pub fn put_verify_unit<T: Serialize, R: Serialize>(
        &self,
        subtask_id: &str,
        parameter_index: usize,
        passed: bool,
        reason: Option<&str>,
        rounds: &[(u32, R)],
        body: &T,
        run: Option<i64>,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute(
            "DELETE FROM verification_rounds WHERE subtask_id = ?1 AND parameter_index = ?2",
            params![subtask_id, parameter_index as i64],
        )?;
        for (round, r) in rounds {
            tx.execute(
                "INSERT INTO verification_rounds (subtask_id, parameter_index, round, body) VALUES (?1, ?2, ?3, ?4)",
                params![
                    subtask_id,
                    parameter_index as i64,
                    *round as i64,
                    serde_json::to_string(r).expect("round records serialize")
                ],
            )?;
        }
        tx.execute(
            "INSERT OR REPLACE INTO verify_units (subtask_id, parameter_index, status, reason, rounds, body, run_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                subtask_id,
                parameter_index as i64,
                UnitVerdict::of(passed),
                reason,
                rounds.len() as i64,
                serde_json::to_string(body).expect("unit records serialize"),
                run
            ],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Replaces the mutants of one subtask, in one transaction.
    pub fn put_mutants(&self, subtask_id: &str, rows: &[MutantRow]) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute(
            "DELETE FROM mutation_results WHERE subtask_id = ?1",
            [subtask_id],
        )?;
        for m in rows {
            tx.execute(
                "INSERT INTO mutation_results (subtask_id, parameter_index, mutant, kind, breaks_contract, accepted, body)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    m.subtask_id,
                    m.parameter_index as i64,
                    m.mutant as i64,
                    m.kind,
                    m.breaks_contract,
                    m.accepted,
                    serde_json::to_string(m).expect("mutants serialize")
                ],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Every stored mutant the evaluation accepted although it breaks the contract.
    pub fn wrongly_accepted_mutants(&self) -> Result<Vec<MutantRow>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT subtask_id, body FROM mutation_results WHERE breaks_contract AND accepted
             ORDER BY subtask_id, parameter_index, mutant",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        let mut out = Vec::new();
        for row in rows {
            let (id, body) = row?;
            out.push(from_json("mutant", &id, &body)?);
        }
        Ok(out)
    }

    /// The mutation score, or `None` when no mutation test ran.
    pub fn mutation_summary(&self) -> Result<Option<MutationSummary>, StoreError> {
        let (mutants, breaking, rejected): (i64, Option<i64>, Option<i64>) = self.conn().query_row(
            "SELECT COUNT(*), SUM(breaks_contract), SUM(breaks_contract AND NOT accepted) FROM mutation_results",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        if mutants == 0 {
            return Ok(None);
        }
        let breaking = breaking.unwrap_or(0).max(0) as u64;
        let rejected = rejected.unwrap_or(0).max(0) as u64;
        Ok(Some(MutationSummary {
            mutants: mutants as u64,
            breaking,
            rejected,
            score: if breaking == 0 {
                1.0
            } else {
                rejected as f64 / breaking as f64
            },
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Subtask, SubtaskId, SubtaskStatus};

    fn subtask(id: &str) -> Subtask {
        Subtask {
            id: SubtaskId(id.into()),
            instruction_template: "Do it".into(),
            application: "Writer".into(),
            category: None,
            os: "Linux".into(),
            available_parameters: vec![Default::default()],
            input_resources: vec![],
            output_resources: vec![],
            evaluation: None,
            trajectories: vec![],
            provenance: None,
        }
    }

    #[test]
    fn units_replace_their_rounds_and_mutants_score() {
        let s = Store::open_in_memory().unwrap();
        s.put_subtask(&subtask("a"), SubtaskStatus::Proposed, None, None)
            .unwrap();
        let rounds = vec![(1u32, "r1"), (2, "r2")];
        s.put_verify_unit("a", 0, false, Some("x"), &rounds, &"body", None)
            .unwrap();
        s.put_verify_unit("a", 0, true, None, &rounds[..1], &"body2", None)
            .unwrap();
        let n: i64 = s
            .conn()
            .query_row("SELECT COUNT(*) FROM verification_rounds", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
        assert_eq!(s.verify_units::<String>().unwrap(), vec!["body2"]);
        assert_eq!(s.mutation_summary().unwrap(), None);
        let m = |i, b, a| MutantRow {
            subtask_id: "a".into(),
            parameter_index: 0,
            mutant: i,
            kind: "drop_action".into(),
            breaks_contract: b,
            accepted: a,
            description: String::new(),
        };
        s.put_mutants(
            "a",
            &[m(0, true, false), m(1, true, true), m(2, false, true)],
        )
        .unwrap();
        let sum = s.mutation_summary().unwrap().unwrap();
        assert_eq!((sum.mutants, sum.breaking, sum.rejected), (3, 2, 1));
        assert_eq!(s.wrongly_accepted_mutants().unwrap().len(), 1);
    }
}
