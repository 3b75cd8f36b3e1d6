//! The offline summarizer: a documented, rule-based baseline (not a language model)
//! that words a task's DAG as a high-level instruction in the grammar of
//! [`super::grammar`] and as a numbered step-by-step low-level instruction.
//!
//! Wording by attempt (see [`wording_for`]):
//! - attempt 1, or no feedback: [`Wording::Compact`], the DAG by layers of its
//!   longest-path layering. Exact only when the DAG's closure equals its layered
//!   closure (every node of a layer before every node of every later layer);
//!   otherwise the comparison reports the extra orders it implies.
//! - after structural feedback (orders added or missing): [`Wording::Explicit`],
//!   numbered steps, each naming the steps it comes after (the transitive
//!   reduction), with short clauses.
//! - after any other feedback (steps not recognised) or from attempt 3 on:
//!   [`Wording::ExplicitFull`], the same with each node's whole instruction as its
//!   clause, so steps are easier to tell apart.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::compare::Discrepancy;
use super::relations::Relations;
use super::text;
use crate::model::Task;

/// How the high-level instruction is worded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wording {
    Compact,
    Explicit,
    ExplicitFull,
}

impl fmt::Display for Wording {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Wording::Compact => "compact",
            Wording::Explicit => "explicit",
            Wording::ExplicitFull => "explicit_full",
        })
    }
}

/// A summarized task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// The high-level instruction, in the grammar of [`super::grammar`].
    pub task_instruction: String,
    /// One numbered line per node in the task's first topological order, each with
    /// the node's whole instruction and the earlier steps it needs.
    pub low_level_instruction: String,
    pub wording: Wording,
}

/// Why a task cannot be summarized.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SummarizeError {
    #[error("the task has no nodes")]
    Empty,
    #[error("node '{id}' is in the DAG but has no entry in the task's nodes")]
    MissingNode { id: String },
    #[error("the task's DAG has a cycle through {nodes:?}")]
    Cycle { nodes: Vec<String> },
}

/// The wording for `attempt` (1-based) given the previous comparison's feedback.
pub fn wording_for(attempt: u32, feedback: &[Discrepancy]) -> Wording {
    if attempt <= 1 || feedback.is_empty() {
        Wording::Compact
    } else if attempt == 2 && feedback.iter().all(Discrepancy::is_structural) {
        Wording::Explicit
    } else {
        Wording::ExplicitFull
    }
}

/// Summarizes `task` for `attempt` (1-based) after `feedback` (the discrepancies
/// of the previous attempt; empty on the first).
///
/// # Errors
/// An empty DAG, a DAG node without a [`crate::model::TaskNode`], or a cyclic DAG.
pub fn summarize(
    task: &Task,
    attempt: u32,
    feedback: &[Discrepancy],
) -> Result<Summary, SummarizeError> {
    let rel = Relations::from_dag(&task.dag);
    if rel.len() == 0 {
        return Err(SummarizeError::Empty);
    }
    let mut nodes = Vec::with_capacity(rel.len());
    for id in &rel.ids {
        let node = task
            .nodes
            .get(id)
            .ok_or_else(|| SummarizeError::MissingNode { id: id.clone() })?;
        nodes.push(node);
    }
    let order = rel
        .topo_order(task.successful_topo.first().map(Vec::as_slice))
        .ok_or_else(|| SummarizeError::Cycle {
            nodes: rel
                .cycles()
                .into_iter()
                .flatten()
                .map(|i| rel.ids[i].clone())
                .collect(),
        })?;

    let wording = wording_for(attempt, feedback);
    let clauses: Vec<String> = nodes
        .iter()
        .map(|n| match wording {
            Wording::ExplicitFull => full_clause(&n.instruction, &n.application),
            _ => short_clause(&n.instruction, &n.application),
        })
        .collect();

    let mut high = goal_sentence(&task.task_intent);
    let body = match wording {
        Wording::Compact => {
            let layers = rel.layers(&order).unwrap_or_default();
            compact_body(&layers, &clauses)
        }
        Wording::Explicit | Wording::ExplicitFull => explicit_body(&rel, &order, &clauses),
    };
    if !high.is_empty() {
        high.push(' ');
    }
    high.push_str(&body);

    let mut position = vec![0usize; rel.len()];
    for (p, &u) in order.iter().enumerate() {
        position[u] = p + 1;
    }
    let low_lines: Vec<String> = order
        .iter()
        .enumerate()
        .map(|(p, &u)| {
            let mut needs: Vec<usize> = rel.preds(u).into_iter().map(|w| position[w]).collect();
            needs.sort_unstable();
            let needs_text = match needs.as_slice() {
                [] => "can start at once".to_string(),
                [one] => format!("after step {one}"),
                many => {
                    let items: Vec<String> = many.iter().map(usize::to_string).collect();
                    format!("after steps {}", text::join_and(&items))
                }
            };
            let instruction = nodes[u].instruction.split_whitespace().collect::<Vec<_>>();
            format!("{}. ({needs_text}) {}", p + 1, instruction.join(" "))
        })
        .collect();

    Ok(Summary {
        task_instruction: high,
        low_level_instruction: low_lines.join("\n"),
        wording,
    })
}

fn goal_sentence(intent: &str) -> String {
    let goal = text::sanitize(intent);
    if goal.is_empty() {
        String::new()
    } else {
        format!("{} {}.", super::grammar::GOAL, goal)
    }
}

/// The compact body: one sentence per layer.
fn compact_body(layers: &[Vec<usize>], clauses: &[String]) -> String {
    use super::grammar::{ANY_ORDER, FINALLY, FIRST, THEN};
    let group = |layer: &[usize]| -> String {
        match layer {
            [one] => clauses[*one].clone(),
            many => {
                let items: Vec<&str> = many.iter().map(|&u| clauses[u].as_str()).collect();
                format!("{ANY_ORDER} {}", items.join("; "))
            }
        }
    };
    if layers.len() == 1 {
        return format!("{}.", text::capitalize(&group(&layers[0])));
    }
    let last = layers.len() - 1;
    let sentences: Vec<String> = layers
        .iter()
        .enumerate()
        .map(|(i, layer)| {
            let lead = match i {
                0 => FIRST,
                i if i == last => FINALLY,
                _ => THEN,
            };
            format!("{lead} {}.", group(layer))
        })
        .collect();
    sentences.join(" ")
}

/// The explicit body: numbered steps in `order`, each naming the steps it comes
/// after in the transitive reduction.
fn explicit_body(rel: &Relations, order: &[usize], clauses: &[String]) -> String {
    use super::grammar::{AFTER, STEPS_PREAMBLE};
    let mut position = vec![0usize; rel.len()];
    for (p, &u) in order.iter().enumerate() {
        position[u] = p + 1;
    }
    let reduction = rel.reduction();
    let steps: Vec<String> = order
        .iter()
        .enumerate()
        .map(|(p, &v)| {
            let mut after: Vec<usize> = reduction
                .iter()
                .filter(|&&(_, b)| b == v)
                .map(|&(a, _)| position[a])
                .collect();
            after.sort_unstable();
            if after.is_empty() {
                format!("({}) {}.", p + 1, clauses[v])
            } else {
                let refs: Vec<String> = after.iter().map(usize::to_string).collect();
                format!(
                    "({}) {AFTER} {}, {}.",
                    p + 1,
                    text::join_and(&refs),
                    clauses[v]
                )
            }
        })
        .collect();
    format!("{STEPS_PREAMBLE} {}", steps.join(" "))
}

/// Separators between the parts of a node instruction, longest first.
const SEGMENT_SEPARATORS: &[&str] = &[
    ", and then ",
    ", and ",
    ", then ",
    " and then ",
    ", ",
    "; ",
    " and ",
];

/// A short clause for a node: the instruction's first part (two parts when the
/// first is only a setting such as "In the Code Editor"), plus the last later part
/// that names a new quoted item, path or address (usually the resource the step
/// produces), plus "in <application>" when the application is not named yet.
/// Grammar characters are removed (see [`text::sanitize`]); the first letter is
/// lower-cased.
pub fn short_clause(instruction: &str, application: &str) -> String {
    let cleaned = text::sanitize(instruction);
    let parts: Vec<&str> = text::split_outside(&cleaned, SEGMENT_SEPARATORS)
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect();
    if parts.is_empty() {
        return with_application(String::new(), application);
    }
    let mut used = 1;
    let mut head = parts[0].to_string();
    if is_setting(&head) && parts.len() > 1 {
        head = format!("{head}, {}", parts[1]);
        used = 2;
    }
    let tail = parts[used..].iter().rev().find(|p| {
        mentions(p)
            .iter()
            .any(|item| !head.to_lowercase().contains(&item.to_lowercase()))
    });
    let mut clause = head;
    if let Some(tail) = tail {
        clause.push_str(" and ");
        clause.push_str(tail);
    }
    with_application(text::decapitalize(&clause), application)
}

/// The node's whole instruction as a clause (grammar characters removed), plus
/// "in <application>" when the application is not named.
pub fn full_clause(instruction: &str, application: &str) -> String {
    with_application(
        text::decapitalize(&text::sanitize(instruction)),
        application,
    )
}

fn with_application(clause: String, application: &str) -> String {
    let app = application.trim();
    if app.is_empty() || clause.to_lowercase().contains(&app.to_lowercase()) {
        return clause;
    }
    if clause.is_empty() {
        return format!("use {app}");
    }
    format!("{clause} in {app}")
}

/// "In the Code Editor", "Using the file manager": a setting, not an action.
fn is_setting(part: &str) -> bool {
    let lower = part.to_lowercase();
    ["in ", "using ", "on ", "with ", "from "]
        .iter()
        .any(|p| lower.starts_with(p))
        && text::word_count(part) <= 5
}

/// Quoted items, paths, e-mail addresses and URLs named in `part`.
fn mentions(part: &str) -> Vec<String> {
    let mut out: Vec<String> = text::quoted_spans(part)
        .into_iter()
        .map(str::to_string)
        .collect();
    for word in part.split_whitespace() {
        if word.contains('@') || word.contains("://") || word.starts_with('/') {
            out.push(word.trim_end_matches([',', '.']).to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_clause_keeps_the_action_and_the_produced_file() {
        assert_eq!(
            short_clause(
                "Open the recipe 'Lentil Soup' in Recipes, scale it to 4 servings, and export its shopping list to '/home/user/Documents/shopping.txt'.",
                "Recipes"
            ),
            "open the recipe 'Lentil Soup' in Recipes and export its shopping list to '/home/user/Documents/shopping.txt'"
        );
    }

    #[test]
    fn short_clause_merges_a_leading_setting_and_names_the_application() {
        assert_eq!(
            short_clause(
                "In the Terminal, run 'sh /home/user/backup.sh' so that it writes the archive '/home/user/b.zip'.",
                "Terminal"
            ),
            "in the Terminal, run 'sh /home/user/backup.sh' so that it writes the archive '/home/user/b.zip'"
        );
        assert_eq!(
            short_clause("Create a sticky note titled 'Shopping' that lists the items in '/home/user/a.txt'.", "Sticky Notes"),
            "create a sticky note titled 'Shopping' that lists the items in '/home/user/a.txt' in Sticky Notes"
        );
    }

    #[test]
    fn short_clause_drops_parts_without_new_items() {
        assert_eq!(
            short_clause(
                "Open '/home/user/Videos/a.mp4' in the Media Player and play it in full screen.",
                "Media Player"
            ),
            "open '/home/user/Videos/a.mp4' in the Media Player"
        );
    }

    #[test]
    fn wording_escalates_with_feedback() {
        let structural = [Discrepancy::ExtraOrder {
            first: "a".into(),
            then: "b".into(),
        }];
        let other = [Discrepancy::UnknownNode { id: "z".into() }];
        assert_eq!(wording_for(1, &[]), Wording::Compact);
        assert_eq!(wording_for(2, &structural), Wording::Explicit);
        assert_eq!(wording_for(2, &other), Wording::ExplicitFull);
        assert_eq!(wording_for(3, &structural), Wording::ExplicitFull);
        assert_eq!(wording_for(2, &[]), Wording::Compact);
    }
}
