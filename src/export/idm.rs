//! IDMBench-style inverse-dynamics set (`idm.jsonl`), one line per step in the shape
//! of AgentStudio's `InverseAction` (what its `IDMSingleEval` reads): the step as
//! an AgentStudio `Action` ([`super::agentstudio::action`]: `action_id`,
//! `obs_before`, `obs_after`, `operation`, `bbox`, `metadata`) plus
//! `instruction` (the task's), `source`, `platform` and `action_space` (the list
//! of operation names; `operation` is one of them). The question is: from the
//! screens before and after, which operation was done. `metadata.repr` and
//! `metadata.action` give the full action in `--actions`' space, aimed at the
//! replayed box; `metadata.task_id` names the task.

use serde_json::{json, Value};

use super::agentstudio::{action, ACTION_SPACE, PLATFORM, SOURCE};
use super::{ExportCx, ExportError, Written};

pub fn write(cx: &ExportCx<'_>) -> Result<Written, ExportError> {
    let mut lines: Vec<Value> = Vec::new();
    for (task, t, r) in cx.trajectories() {
        let instruction = cx.instruction(task, t);
        for k in 0..t.actions.len() {
            let mut line = action(cx, t, r, k)?;
            line["metadata"]["task_id"] = json!(t.task_id);
            line["instruction"] = json!(instruction);
            line["source"] = json!(SOURCE);
            line["platform"] = json!(PLATFORM);
            line["action_space"] = json!(ACTION_SPACE);
            lines.push(line);
        }
    }
    cx.write_jsonl("idm.jsonl", &lines)?;
    Ok(Written {
        records: lines.len(),
        skipped: Vec::new(),
    })
}
