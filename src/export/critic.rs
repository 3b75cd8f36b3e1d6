//! CriticBench-style success detection (`critic.jsonl`), one line per episode in the
//! shape of AgentStudio's `Episode` (what its `SuccessDetectionEval` reads):
//! `{"annotation_id", "instruction", "actions", "is_success", "source",
//! "platform", "metadata", "action_space"}`. `actions` are AgentStudio `Action`
//! records ([`super::agentstudio::action`]); the screen after the last action is
//! its `obs_after`. `metadata` holds `task_id`, `trajectory_id`, `os_map_level`,
//! `intent` (with `--intent`) and, for a negative, `prefix_of` (the positive's
//! annotation id) and `prefix_len`.
//!
//! Positives are the exported task trajectories. Each gets one negative: a strict
//! prefix of it that stops before the task is done. The replay records after which
//! action each DAG node's checks first held; a prefix shorter than the step where
//! the last node completed leaves that node undone, so its label is truly `false`.
//! The prefix length is drawn in `[1, last - 1]` from the trajectory id and the
//! seed (deterministic). A trajectory whose nodes never all held during the
//! replay, or that completes in its first step, gets no negative (reported).

use serde_json::{json, Value};

use super::agentstudio::{action, ACTION_SPACE, PLATFORM, SOURCE};
use super::{ExportCx, ExportError, Written};

/// FNV-1a over the id, mixed with the seed: a stable choice per trajectory.
fn pick(id: &str, seed: u64, n: usize) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for b in id.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h % n as u64) as usize
}

pub fn write(cx: &ExportCx<'_>) -> Result<Written, ExportError> {
    let mut lines: Vec<Value> = Vec::new();
    let mut skipped = Vec::new();
    for (task, t, r) in cx.trajectories() {
        let steps: Vec<Value> = (0..t.actions.len())
            .map(|k| action(cx, t, r, k))
            .collect::<Result<_, _>>()?;
        let record = |id: String, len: usize, success: bool, prefix_of: Option<&str>| {
            let mut metadata = json!({
                "task_id": t.task_id,
                "trajectory_id": t.trajectory_id,
                "os_map_level": cx.level(task),
            });
            if let Some(i) = cx.intent(task, t) {
                metadata["intent"] = json!(i);
            }
            if let Some(p) = prefix_of {
                metadata["prefix_of"] = json!(p);
                metadata["prefix_len"] = json!(len);
            }
            json!({
                "annotation_id": id,
                "instruction": cx.instruction(task, t),
                "actions": steps[..len],
                "is_success": success,
                "source": SOURCE,
                "platform": PLATFORM,
                "metadata": metadata,
                "action_space": ACTION_SPACE,
            })
        };
        lines.push(record(t.trajectory_id.clone(), steps.len(), true, None));
        let all_done = task
            .dag
            .nodes
            .iter()
            .all(|n| r.completed_at.contains_key(n));
        let last = r.completed_at.values().copied().max().unwrap_or(0);
        if !all_done || task.dag.nodes.is_empty() {
            skipped.push(format!(
                "critic negative of {}: its nodes' checks never all held during the replay",
                t.trajectory_id
            ));
        } else if last < 2 {
            skipped.push(format!(
                "critic negative of {}: the task is done after its first step",
                t.trajectory_id
            ));
        } else {
            let p = 1 + pick(&t.trajectory_id, cx.seed, last - 1);
            lines.push(record(
                format!("{}/prefix{p}", t.trajectory_id),
                p,
                false,
                Some(&t.trajectory_id),
            ));
        }
    }
    cx.write_jsonl("critic.jsonl", &lines)?;
    Ok(Written {
        records: lines.len(),
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::pick;

    #[test]
    fn picks_are_stable_and_in_range() {
        for n in 1..20 {
            let p = pick("t(0)", 1, n);
            assert!(p < n);
            assert_eq!(p, pick("t(0)", 1, n));
        }
    }
}
