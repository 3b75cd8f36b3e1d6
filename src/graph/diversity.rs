//! How varied a list of tasks is: how many subtasks and applications they use, how
//! much the most used subtask dominates, how many tasks repeat another's multiset
//! of (subtask, parameter set), and how many name a file like a mechanical copy
//! (`report_2.pdf`, `index_code_editor_code_editor.py`). For `synth stats` and the
//! composer's tests.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::{SubtaskId, Task};

/// The diversity summary of a list of tasks ([`diversity`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diversity {
    pub tasks: usize,
    /// Nodes over all tasks.
    pub nodes: usize,
    /// Distinct subtasks among the nodes.
    pub subtasks_used: usize,
    /// The subtask in most nodes, with its node count (`None` without nodes).
    pub top_subtask: Option<(SubtaskId, usize)>,
    /// Its share of all nodes, 0..=1.
    pub max_subtask_share: f64,
    /// Distinct applications among the nodes, and how many the pool has.
    pub applications_used: usize,
    pub applications_total: usize,
    /// Tasks whose multiset of (subtask id, parameter index) equals an earlier
    /// task's.
    pub duplicate_multisets: usize,
    /// Tasks whose instruction quotes a file named like a mechanical copy
    /// ([`suffix_copy_names`]).
    #[serde(default)]
    pub suffix_copy_tasks: usize,
}

impl Diversity {
    /// `applications_used / applications_total` (0 when the total is 0).
    pub fn application_share(&self) -> f64 {
        if self.applications_total == 0 {
            0.0
        } else {
            self.applications_used as f64 / self.applications_total as f64
        }
    }
}

impl fmt::Display for Diversity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} tasks, {} nodes: {} subtasks used (most used in {:.1}% of nodes), {} of {} applications, {} repeated multisets, {} with suffix-copy names",
            self.tasks,
            self.nodes,
            self.subtasks_used,
            100.0 * self.max_subtask_share,
            self.applications_used,
            self.applications_total,
            self.duplicate_multisets,
            self.suffix_copy_tasks
        )
    }
}

/// Summarises `tasks`; `applications_total` is the number of applications the pool
/// holds (e.g. `Pool::applications().len()`).
pub fn diversity<'t>(
    tasks: impl IntoIterator<Item = &'t Task>,
    applications_total: usize,
) -> Diversity {
    let mut per_subtask: BTreeMap<&SubtaskId, usize> = BTreeMap::new();
    let mut apps: BTreeSet<&str> = BTreeSet::new();
    let mut multisets: BTreeSet<Vec<(&SubtaskId, usize)>> = BTreeSet::new();
    let mut count = 0;
    let mut nodes = 0;
    let mut duplicate_multisets = 0;
    let mut suffix_copy_tasks = 0;
    for t in tasks {
        count += 1;
        if !suffix_copy_names(&t.task_instruction).is_empty() {
            suffix_copy_tasks += 1;
        }
        let mut key: Vec<(&SubtaskId, usize)> = Vec::with_capacity(t.nodes.len());
        for node in t.nodes.values() {
            nodes += 1;
            *per_subtask.entry(&node.subtask_id).or_default() += 1;
            apps.insert(node.application.as_str());
            key.push((&node.subtask_id, node.parameter_index));
        }
        key.sort_unstable();
        if !multisets.insert(key) {
            duplicate_multisets += 1;
        }
    }
    // The most used subtask; ties go to the smallest id.
    let top = per_subtask
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(id, &n)| ((*id).clone(), n));
    Diversity {
        tasks: count,
        nodes,
        subtasks_used: per_subtask.len(),
        max_subtask_share: match &top {
            Some((_, n)) if nodes > 0 => *n as f64 / nodes as f64,
            _ => 0.0,
        },
        top_subtask: top,
        applications_used: apps.len(),
        applications_total,
        duplicate_multisets,
        suffix_copy_tasks,
    }
}

/// The quoted file names in `text` that read like mechanical copies rather than
/// names a person gives: a small counter from 2 after an underscore
/// (`report_2.pdf`, `deck_exported_11.pdf`; a year such as `sales_2024` is a
/// name, and so is an application's first `recording_1.mp4`) or a run of
/// words repeated (`index_code_editor_code_editor.py`, `notes_notes.txt`).
pub fn suffix_copy_names(text: &str) -> Vec<&str> {
    text.split('\'')
        .skip(1)
        .step_by(2)
        .filter(|q| !q.contains(' ') && q.contains('.'))
        .filter(|q| {
            let name = q.rsplit('/').next().unwrap_or(q);
            let stem = name.split('.').next().unwrap_or(name);
            let parts: Vec<&str> = stem.split('_').collect();
            let counter = parts.len() > 1
                && parts.last().is_some_and(|p| {
                    (1..=2).contains(&p.len()) && p.parse::<u32>().is_ok_and(|n| n >= 2)
                });
            let repeated = (1..=parts.len() / 2).any(|k| {
                (0..=parts.len() - 2 * k).any(|i| parts[i..i + k] == parts[i + k..i + 2 * k])
            });
            counter || repeated
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Dag, TaskNode};

    fn task(nodes: &[(&str, usize, &str)]) -> Task {
        let ids: Vec<String> = (0..nodes.len()).map(|i| format!("n{i}")).collect();
        let mut t = Task {
            task_id: None,
            task_instruction: String::new(),
            low_level_instruction: None,
            dag: Dag {
                nodes: ids.clone(),
                edges: BTreeMap::new(),
            },
            task_intent: String::new(),
            purpose: None,
            successful_topo: vec![],
            nodes: BTreeMap::new(),
            topo_count: None,
            topo_truncated: None,
            cs_max: None,
            complexity: None,
            capabilities: vec![],
            scenario: None,
            os_map_level: None,
            quality: None,
            composition: None,
            validation: vec![],
        };
        for (id, &(s, p, app)) in ids.iter().zip(nodes) {
            t.nodes.insert(
                id.clone(),
                TaskNode {
                    subtask_id: SubtaskId(s.into()),
                    parameter_index: p,
                    application: app.into(),
                    category: "Office".into(),
                    instruction: String::new(),
                },
            );
        }
        t
    }

    #[test]
    fn counts_shares_applications_and_repeats() {
        let tasks = vec![
            task(&[("a", 0, "Writer"), ("b", 0, "Sheets")]),
            // Same multiset in another node order: a repeat.
            task(&[("b", 0, "Sheets"), ("a", 0, "Writer")]),
            // Another parameter set: not a repeat.
            task(&[("a", 1, "Writer"), ("c", 0, "Mail")]),
        ];
        let d = diversity(&tasks, 10);
        assert_eq!(d.tasks, 3);
        assert_eq!(d.nodes, 6);
        assert_eq!(d.subtasks_used, 3);
        assert_eq!(d.top_subtask, Some((SubtaskId("a".into()), 3)));
        assert!((d.max_subtask_share - 0.5).abs() < 1e-9);
        assert_eq!(d.applications_used, 3);
        assert!((d.application_share() - 0.3).abs() < 1e-9);
        assert_eq!(d.duplicate_multisets, 1);
        assert!(d.to_string().contains("3 of 10 applications"), "{d}");
    }

    #[test]
    fn suffix_copies_are_found_and_names_are_not() {
        let t = "Save it as '/home/user/Documents/report_2.pdf', attach \
                 '/home/user/Projects/index_code_editor_code_editor.py', open \
                 '/home/user/Documents/sales_2024.xlsx', 'recording_1.mp4' and 'board-1.md', \
                 type 'v 2'.";
        assert_eq!(
            suffix_copy_names(t),
            vec![
                "/home/user/Documents/report_2.pdf",
                "/home/user/Projects/index_code_editor_code_editor.py"
            ]
        );
        assert!(suffix_copy_names("Open '/home/user/Documents/launch_deck_final.pdf'.").is_empty());
        let mut bad = task(&[("a", 0, "Writer")]);
        bad.task_instruction = "Export it as '/home/user/Documents/plan_exported_3.pdf'.".into();
        let mut good = task(&[("a", 1, "Writer")]);
        good.task_instruction = "Export it as '/home/user/Documents/plan_review.pdf'.".into();
        assert_eq!(diversity(&[bad, good], 1).suffix_copy_tasks, 1);
    }

    #[test]
    fn no_tasks() {
        let d = diversity(&[], 5);
        assert_eq!(d.nodes, 0);
        assert_eq!(d.top_subtask, None);
        assert_eq!(d.max_subtask_share, 0.0);
        assert_eq!(d.application_share(), 0.0);
    }
}
