//! Task quality flags: the objections a reader applying OmniBench's acceptance
//! criteria raised, measured on each validated task (see [`crate::model::Quality`]).
//!
//! Owns the rules; the validate stage calls [`assess`] with the task's final
//! instructions and the verified pool, and stores the result with the task. `synth
//! stats` and the report aggregate the stored flags. The rules read only typed data:
//! the task's nodes and DAG, the subtasks' evaluations and the nodes' instantiated
//! resources, never prose parsed back from another stage.

use std::collections::{BTreeMap, BTreeSet};

use crate::graph::{task_clashes, task_pointless, ClashKind, PointlessKind, Pool};
use crate::model::{CheckCall, Quality, Subtask, SubtaskId, Task};
use crate::pipeline::validate::text;

/// Wording that only a template writes: step markers and labels of the old
/// mechanical instructions.
const TEMPLATE_PATTERNS: &[&str] = &[
    "goal:",
    "steps (each",
    "in any order:",
    "after step",
    "can start at once",
    "component 1",
    " more.",
    "which creates",
    " and which ",
];

/// The flags of `task` (its current instructions) against the verified pool.
///
/// `pool` is the verified pool with the applications' edits marked, as the
/// composer sees it (`pipeline::compose::pool_with_edits`).
pub fn assess(task: &Task, subtasks: &BTreeMap<&SubtaskId, &Subtask>, pool: &Pool<'_>) -> Quality {
    let high = &task.task_instruction;
    let low = task.low_level_instruction.as_deref().unwrap_or("");
    let mut problems = Vec::new();

    let ungrounded = ungrounded_values(task);
    if !ungrounded.is_empty() {
        problems.push(format!(
            "the intent names {} that no node uses",
            quoted_list(&ungrounded)
        ));
    }
    let unstated = unstated_actions(task, subtasks, high);
    if !unstated.is_empty() {
        problems.push(format!(
            "the instruction does not ask for {} although the evaluation checks it",
            quoted_list(&unstated)
        ));
    }
    let duplicates = duplicate_steps(task);
    if !duplicates.is_empty() {
        problems.push(format!("nodes {} do the same thing", duplicates.join(", ")));
    }
    let clashes = task_clashes(pool, task);
    for c in &clashes {
        let (a, b) = (&task.dag.nodes[c.a], &task.dag.nodes[c.b]);
        let how = match c.kind {
            ClashKind::BothModify => "both change it",
            ClashKind::ModifiesRead => "one changes what the other reads",
            ClashKind::BothMake => "both save it",
        };
        problems.push(format!(
            "{a} and {b} are unordered but touch {}: {how}",
            c.resource
        ));
    }
    let pointless = task_pointless(pool, task);
    for p in &pointless {
        let (a, b) = (&task.dag.nodes[p.a], &task.dag.nodes[p.b]);
        problems.push(match p.kind {
            PointlessKind::UnusedResult => {
                format!("{a} ends the task with nothing that lasts (what it makes is never used)")
            }
            PointlessKind::RepeatedProduct => {
                format!("{a} and {b} make the same kind of thing from the same input")
            }
            PointlessKind::Replaced => {
                format!("{a} and {b} both put something on the clipboard: one replaces the other")
            }
            PointlessKind::UnusedCopy => {
                format!("{a} copies something that no node pastes")
            }
            PointlessKind::UnrelatedPaste => {
                format!("{b} sends a file with what {a} copied from something else as its text")
            }
            PointlessKind::CopiesOfOne => {
                format!("{a} and {b} each save the same file in another format, unchanged")
            }
            PointlessKind::FormatShuffle => {
                format!("{b} changes the format of a file {a} already converted on its way")
            }
            PointlessKind::ChainedConversion => {
                format!("{b} converts again a file {a} made by converting another")
            }
            PointlessKind::LoneArchive => {
                format!("{a} packs a single file into an archive")
            }
            PointlessKind::UnsentArchive => {
                format!("{a} packs files into an archive nothing sends or files")
            }
            PointlessKind::RoundTrip => {
                format!("{b} combines a file with something {a} made from that same file")
            }
            PointlessKind::TextOnlyCopy => {
                format!("{a} only saves a file as plain text that nothing uses")
            }
            PointlessKind::UnsuitedEdit => {
                format!("{b} makes an edit that does not suit what {a} made (a screen capture edited like a photo)")
            }
            PointlessKind::RepeatedChange => {
                format!("{b} makes a change {a} already made to the same file")
            }
            PointlessKind::MarkupAsProse => {
                format!("{a} reads a markup file's source as prose")
            }
            PointlessKind::FiledTwice => {
                format!("{a} and {b} both file or send the same file (a to-do, note, event, mail or chat message)")
            }
            PointlessKind::UnusedEdit => {
                format!("{a} saves a changed copy nothing uses while {b} uses the original")
            }
            PointlessKind::BareConversion => {
                format!("{a} only saves a file in another format that nothing uses")
            }
            PointlessKind::CopiedGiven => {
                format!("{a} opens an address or a file the task gives only to copy it")
            }
            PointlessKind::FiledBeside => {
                format!("{a} only files a file the task made, or makes it a setting, beside the task's other result")
            }
            PointlessKind::SentTwiceToOne => {
                format!("{a} and {b} each send a message to the same person, who could get one")
            }
            PointlessKind::UnchangedCopy => {
                format!("{a} only saves a file again in its own format under a new name")
            }
            PointlessKind::ConvertedToCarry => {
                format!("{a} converts a file only for {b} to carry it, which could carry the original")
            }
            PointlessKind::PastedUnderAnotherName => {
                format!("{b} names what it makes after something other than what {a} copied for it")
            }
            PointlessKind::AttachmentLeftBehind => {
                format!("{b} saves as plain text a record {a} made to hold a file, leaving the file behind")
            }
            PointlessKind::TwoVisits => {
                format!("{a} and {b} open the same thing apart where one visit does both")
            }
            PointlessKind::LostChange => {
                format!("{b} keeps only what drops a change {a} made (a picture inserted, then only the text copied)")
            }
            PointlessKind::Unsent => {
                format!("{a} prepares a file for sending (a PDF compressed) that nothing sends or files")
            }
            PointlessKind::SpoiledEdit => {
                format!("{b} makes an edit that {a}'s earlier change defeats (a picture shrunk, then made the wallpaper)")
            }
            PointlessKind::BlankCapture => {
                format!("{a} captures the screen with nothing of the task on it")
            }
            PointlessKind::SelfReview => {
                format!("{b} leaves a remark for someone else on a file {a} made in the task (a comment on one's own export)")
            }
        });
    }
    let artefacts = template_artefacts(high);
    if !artefacts.is_empty() {
        problems.push(format!(
            "template wording in the instruction: {}",
            quoted_list(&artefacts)
        ));
    }
    let high_words = text::word_count(high);
    let low_words = text::word_count(low);
    let length_ratio = if low_words == 0 {
        f64::INFINITY
    } else {
        high_words as f64 / low_words as f64
    };
    let concise = length_ratio <= Quality::MAX_LENGTH_RATIO;
    if !concise {
        problems.push(format!(
            "the instruction has {high_words} words against {low_words} for the steps (ratio {length_ratio:.2}, at most {})",
            Quality::MAX_LENGTH_RATIO
        ));
    }
    Quality {
        intent_grounded: ungrounded.is_empty(),
        actions_stated: unstated.is_empty(),
        no_duplicate_steps: duplicates.is_empty(),
        no_clashes: clashes.is_empty(),
        no_pointless_steps: pointless.is_empty(),
        no_template_artefacts: artefacts.is_empty(),
        length_ratio: if length_ratio.is_finite() {
            (length_ratio * 1000.0).round() / 1000.0
        } else {
            99.0
        },
        concise,
        problems,
    }
}

fn quoted_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("'{i}'")).collect();
    text::join_and(&quoted)
}

fn unquote(q: &str) -> &str {
    q.trim_matches(|c| c == '\'' || c == '"')
}

/// Quoted values of the intent that no node's instruction quotes.
fn ungrounded_values(task: &Task) -> Vec<String> {
    // A path's base name stands for it ("the deck 'launch_deck.pptx'").
    let known: BTreeSet<&str> = task
        .nodes
        .values()
        .flat_map(|n| text::quoted_spans(&n.instruction))
        .map(unquote)
        .flat_map(|v| [v, v.rsplit('/').next().unwrap_or(v)])
        .collect();
    let mut out: Vec<String> = text::quoted_spans(&task.task_intent)
        .into_iter()
        .map(unquote)
        .filter(|v| !known.contains(v))
        .map(str::to_string)
        .collect();
    out.dedup();
    out
}

/// Controls clicked in a node's evaluation that its own instruction names but the
/// high-level instruction does not. Controls the node's instruction leaves out
/// (navigation such as "Compose" or "Go") belong to the low-level steps.
fn unstated_actions(
    task: &Task,
    subtasks: &BTreeMap<&SubtaskId, &Subtask>,
    high: &str,
) -> Vec<String> {
    let high_tokens = text::tokens(high);
    let mut out = Vec::new();
    for node in task.nodes.values() {
        let Some(sub) = subtasks.get(&node.subtask_id) else {
            continue;
        };
        let Some(params) = sub.available_parameters.get(node.parameter_index) else {
            continue;
        };
        let node_tokens = text::tokens(&node.instruction);
        for check in sub.evaluation.iter().flat_map(|e| &e.checks) {
            let CheckCall::CheckMouseClicks { text: control } = check.call.instantiate(params)
            else {
                continue;
            };
            let control_tokens = text::tokens(&control);
            let named = |tokens: &[String]| {
                !control_tokens.is_empty()
                    && control_tokens
                        .iter()
                        .all(|c| tokens.iter().any(|t| same_word(t, c)))
            };
            if named(&node_tokens) && !named(&high_tokens) && !out.contains(&control) {
                out.push(control);
            }
        }
    }
    out
}

/// Two tokens name the same word up to an ending ("compress", "compressed").
fn same_word(a: &str, b: &str) -> bool {
    let stem = |w: &str| w.chars().take(5).collect::<String>();
    a == b || (a.len() >= 4 && b.len() >= 4 && stem(a) == stem(b))
}

/// Groups of node ids (", "-joined) that do the same thing.
fn duplicate_steps(task: &Task) -> Vec<String> {
    let mut by_key: BTreeMap<(String, String), Vec<&str>> = BTreeMap::new();
    for (id, node) in &task.nodes {
        let key = (node.subtask_id.0.clone(), node.parameter_index.to_string());
        by_key.entry(key).or_default().push(id);
    }
    let mut by_text: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (id, node) in &task.nodes {
        let norm = node
            .instruction
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase();
        by_text.entry(norm).or_default().push(id);
    }
    let mut out: Vec<String> = by_key
        .into_values()
        .chain(by_text.into_values())
        .filter(|ids| ids.len() > 1)
        .map(|ids| ids.join(" and "))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Template wording found in `high` (lower case), plus step markers "(k)".
fn template_artefacts(high: &str) -> Vec<String> {
    let lower = high.to_lowercase();
    let mask = text::quote_mask(&lower);
    let outside = |at: usize| !mask.get(at).copied().unwrap_or(false);
    let mut out: Vec<String> = TEMPLATE_PATTERNS
        .iter()
        .filter(|p| lower.match_indices(*p).any(|(at, _)| outside(at)))
        .map(|p| p.trim().to_string())
        .collect();
    let marker = lower.match_indices('(').any(|(at, _)| {
        outside(at)
            && lower[at + 1..].split(')').next().is_some_and(|d| {
                !d.is_empty() && d.len() <= 3 && d.bytes().all(|b| b.is_ascii_digit())
            })
    });
    if marker {
        out.push("(1)".to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::Catalog;
    use std::path::Path;

    fn catalog() -> Catalog {
        Catalog::load(Path::new(env!("CARGO_MANIFEST_DIR"))).expect("the committed catalogues load")
    }

    /// Two subtasks: print a page to a PDF (clicks "Print to PDF"), then compress
    /// that PDF in place or convert it to text (clicks "Compress").
    fn subtasks() -> Vec<Subtask> {
        let print = serde_json::json!({
            "id": "print", "application": "Browser", "OS": "Linux",
            "instruction_template": "In Browser, open '{url}', then print the page to PDF as '{pdf_path}'.",
            "available_parameters": [{"url": "https://example.com/a", "pdf_path": "/home/user/a.pdf"}],
            "input_resources": ["url"], "output_resources": ["pdf_path"],
            "evaluation": {"checks": [
                {"api": "check_mouse_clicks", "args": {"text": "Print to PDF"}},
                {"api": "check_mouse_clicks", "args": {"text": "Go"}},
                {"api": "check_file_exists", "args": {"file_path": "{pdf_path}"}}]}
        });
        let compress = serde_json::json!({
            "id": "compress", "application": "PDF Tool", "OS": "Linux",
            "instruction_template": "In PDF Tool, open '{pdf_path}', then compress the PDF as '{out_pdf}'.",
            "available_parameters": [{"pdf_path": "/home/user/a.pdf", "out_pdf": "/home/user/a.pdf"}],
            "input_resources": ["pdf_path"], "output_resources": ["pdf_path"],
            "evaluation": {"checks": [{"api": "check_mouse_clicks", "args": {"text": "Compress"}}]}
        });
        vec![
            serde_json::from_value(print).unwrap(),
            serde_json::from_value(compress).unwrap(),
        ]
    }

    fn task(edges: &[(&str, &str)], nodes: &[(&str, &Subtask)], high: &str, intent: &str) -> Task {
        let mut t: Task = serde_json::from_value(serde_json::json!({
            "task_instruction": high, "task_intent": intent, "successful_topo": [],
            "dag": {"nodes": nodes.iter().map(|(id, _)| *id).collect::<Vec<_>>(), "edges": {}},
            "low_level_instruction": "1. In Browser, click 'Go', type the address, click 'File', click 'Print to PDF', type the path and click 'Save'. 2. In PDF Tool, click 'Open', pick the file, click 'Compress', then click 'Save' and confirm the dialog with 'OK' so the file is written again."
        }))
        .unwrap();
        for (id, sub) in nodes {
            t.dag.edges.insert(id.to_string(), Vec::new());
            t.nodes.insert(
                id.to_string(),
                crate::model::TaskNode {
                    subtask_id: sub.id.clone(),
                    parameter_index: 0,
                    application: sub.application.clone(),
                    category: String::new(),
                    instruction: sub.instruction(0).unwrap(),
                },
            );
        }
        for (a, b) in edges {
            t.dag.edges.get_mut(*a).unwrap().push(b.to_string());
        }
        t
    }

    const GOOD_HIGH: &str = "Keep a small PDF of the page. In Browser, open 'https://example.com/a', then print the page to PDF as '/home/user/a.pdf'. Then compress it in PDF Tool.";
    const GOOD_INTENT: &str =
        "Get the PDF '/home/user/a.pdf' from the web page 'https://example.com/a'.";

    fn flags_of(t: &Task, subs: &[Subtask]) -> Quality {
        let map: BTreeMap<&SubtaskId, &Subtask> = subs.iter().map(|s| (&s.id, s)).collect();
        let cat = catalog();
        let pool = Pool::new(&cat, subs, &BTreeSet::new()).expect("the test subtasks instantiate");
        assess(t, &map, &pool)
    }

    #[test]
    fn a_good_task_passes_every_flag() {
        let subs = subtasks();
        let t = task(
            &[("n0", "n1")],
            &[("n0", &subs[0]), ("n1", &subs[1])],
            GOOD_HIGH,
            GOOD_INTENT,
        );
        let q = flags_of(&t, &subs);
        assert!(q.passes(), "{:?}", q.problems);
    }

    #[test]
    fn an_intent_naming_a_file_no_node_touches_is_not_grounded() {
        let subs = subtasks();
        let t = task(
            &[("n0", "n1")],
            &[("n0", &subs[0]), ("n1", &subs[1])],
            GOOD_HIGH,
            "Get '/home/user/a.pdf', then select 'invoice_march.pdf'.",
        );
        let q = flags_of(&t, &subs);
        assert!(!q.intent_grounded);
        assert!(
            q.problems[0].contains("invoice_march.pdf"),
            "{:?}",
            q.problems
        );
        // A node's file named by its base name is one the task touches.
        let t = task(
            &[("n0", "n1")],
            &[("n0", &subs[0]), ("n1", &subs[1])],
            GOOD_HIGH,
            "Get the PDF 'a.pdf'.",
        );
        assert!(flags_of(&t, &subs).intent_grounded);
    }

    #[test]
    fn a_dropped_action_is_reported() {
        let subs = subtasks();
        let high = "Keep the page. In Browser, open 'https://example.com/a' and print the page to PDF. Then open '/home/user/a.pdf' in PDF Tool.";
        let t = task(
            &[("n0", "n1")],
            &[("n0", &subs[0]), ("n1", &subs[1])],
            high,
            GOOD_INTENT,
        );
        let q = flags_of(&t, &subs);
        assert!(!q.actions_stated);
        assert!(
            q.problems.iter().any(|p| p.contains("'Compress'")),
            "{:?}",
            q.problems
        );
        // "Go" is navigation: the node's own instruction does not name it.
        assert!(
            !q.problems.iter().any(|p| p.contains("'Go'")),
            "{:?}",
            q.problems
        );
    }

    #[test]
    fn the_same_step_twice_is_a_duplicate() {
        let subs = subtasks();
        let t = task(
            &[("n0", "n1"), ("n0", "n2")],
            &[("n0", &subs[0]), ("n1", &subs[1]), ("n2", &subs[1])],
            GOOD_HIGH,
            GOOD_INTENT,
        );
        let q = flags_of(&t, &subs);
        assert!(!q.no_duplicate_steps);
        assert!(
            q.problems.iter().any(|p| p.contains("n1 and n2")),
            "{:?}",
            q.problems
        );
    }

    #[test]
    fn unordered_nodes_changing_the_same_file_clash() {
        let subs = subtasks();
        // Two compressions of the same PDF, both after the print, unordered.
        let ordered = task(
            &[("n0", "n1"), ("n0", "n2"), ("n1", "n2")],
            &[("n0", &subs[0]), ("n1", &subs[1]), ("n2", &subs[1])],
            GOOD_HIGH,
            GOOD_INTENT,
        );
        assert!(flags_of(&ordered, &subs).no_clashes);
        let unordered = task(
            &[("n0", "n1"), ("n0", "n2")],
            &[("n0", &subs[0]), ("n1", &subs[1]), ("n2", &subs[1])],
            GOOD_HIGH,
            GOOD_INTENT,
        );
        let q = flags_of(&unordered, &subs);
        assert!(!q.no_clashes);
        assert!(
            q.problems.iter().any(|p| p.contains("n1 and n2")
                && p.contains("/home/user/a.pdf")
                && p.contains("both change it")),
            "{:?}",
            q.problems
        );
    }

    /// A subtask of `application` that reads the PDF and makes `output` (a kind).
    fn from_pdf(id: &str, application: &str, output: &str, out_param: Option<&str>) -> Subtask {
        from_pdf_doing(id, application, output, out_param, "make it")
    }

    /// A subtask that opens `/home/user/a.pdf` and then does `what` (its
    /// instruction's last clause) to make `output`.
    fn from_pdf_doing(
        id: &str,
        application: &str,
        output: &str,
        out_param: Option<&str>,
        what: &str,
    ) -> Subtask {
        let mut params = serde_json::json!({"pdf_path": "/home/user/a.pdf"});
        if let Some(v) = out_param {
            params[output] = serde_json::json!(v);
        }
        serde_json::from_value(serde_json::json!({
            "id": id, "application": application, "OS": "Linux",
            "instruction_template": format!("In {application}, open '{{pdf_path}}', then {what}."),
            "available_parameters": [params],
            "input_resources": ["pdf_path"], "output_resources": [output],
            "evaluation": {"checks": [{"api": "check_file_exists", "args": {"file_path": "{pdf_path}"}}]}
        }))
        .unwrap()
    }

    #[test]
    fn a_copy_nobody_pastes_is_pointless() {
        let mut subs = subtasks();
        subs.push(from_pdf("copy", "PDF Tool", "text_in_clipboard", None));
        let t = task(
            &[("n0", "n1")],
            &[("n0", &subs[0]), ("n1", &subs[2])],
            GOOD_HIGH,
            GOOD_INTENT,
        );
        let q = flags_of(&t, &subs);
        assert!(!q.no_pointless_steps);
        assert!(
            q.problems.iter().any(|p| p.starts_with("n1 ends the task")),
            "{:?}",
            q.problems
        );
        // The good task (the compressed PDF lasts) passes.
        let good = task(
            &[("n0", "n1")],
            &[("n0", &subs[0]), ("n1", &subs[1])],
            GOOD_HIGH,
            GOOD_INTENT,
        );
        assert!(flags_of(&good, &subs).no_pointless_steps);
    }

    #[test]
    fn two_copies_before_one_paste_replace_each_other() {
        let mut subs = subtasks();
        subs.push(from_pdf("copy_pdf", "PDF Tool", "text_in_clipboard", None));
        subs.push(from_pdf("copy_writer", "Writer", "text_in_clipboard", None));
        subs.push(
            serde_json::from_value(serde_json::json!({
                "id": "paste", "application": "Text Editor", "OS": "Linux",
                "instruction_template": "In Text Editor, paste the text on the clipboard, then save it as '{txt_path}'.",
                "available_parameters": [{"txt_path": "/home/user/notes.txt"}],
                "input_resources": ["text_in_clipboard"], "output_resources": ["txt_path"],
                "evaluation": {"checks": [{"api": "check_file_exists", "args": {"file_path": "{txt_path}"}}]}
            }))
            .unwrap(),
        );
        let two = task(
            &[("n0", "n1"), ("n0", "n2"), ("n1", "n3"), ("n2", "n3")],
            &[
                ("n0", &subs[0]),
                ("n1", &subs[2]),
                ("n2", &subs[3]),
                ("n3", &subs[4]),
            ],
            GOOD_HIGH,
            GOOD_INTENT,
        );
        let q = flags_of(&two, &subs);
        assert!(!q.no_pointless_steps);
        assert!(
            q.problems
                .iter()
                .any(|p| p.contains("n1 and n2 both put something on the clipboard")),
            "{:?}",
            q.problems
        );
        // One copy, then its paste: a real hand-off.
        let one = task(
            &[("n0", "n1"), ("n1", "n2")],
            &[("n0", &subs[0]), ("n1", &subs[2]), ("n2", &subs[4])],
            GOOD_HIGH,
            GOOD_INTENT,
        );
        let q = flags_of(&one, &subs);
        assert!(q.no_pointless_steps, "{:?}", q.problems);
    }

    #[test]
    fn two_zips_of_one_file_are_pointless() {
        let mut subs = subtasks();
        subs.push(from_pdf(
            "zip_files",
            "Files",
            "zip_path",
            Some("/home/user/a.zip"),
        ));
        subs.push(from_pdf(
            "zip_archiver",
            "Archiver",
            "zip_path",
            Some("/home/user/b.zip"),
        ));
        let t = task(
            &[("n0", "n1"), ("n0", "n2")],
            &[("n0", &subs[0]), ("n1", &subs[2]), ("n2", &subs[3])],
            GOOD_HIGH,
            GOOD_INTENT,
        );
        let q = flags_of(&t, &subs);
        assert!(!q.no_pointless_steps);
        assert!(
            q.problems
                .iter()
                .any(|p| p.contains("n1 and n2 make the same kind")),
            "{:?}",
            q.problems
        );
        // One zip repeats nothing, but a single file zipped is no deliverable
        // either.
        let one = task(
            &[("n0", "n1")],
            &[("n0", &subs[0]), ("n1", &subs[2])],
            GOOD_HIGH,
            GOOD_INTENT,
        );
        assert_eq!(
            flags_of(&one, &subs).problems,
            vec!["n1 packs a single file into an archive".to_string()]
        );
    }

    #[test]
    fn two_unchanged_format_copies_of_one_file_are_pointless() {
        let mut subs = subtasks();
        let text = "export it as a text file";
        let word = "convert it to a Word document";
        subs.push(from_pdf_doing(
            "to_txt",
            "PDF Tool",
            "txt_path",
            Some("/home/user/a.txt"),
            text,
        ));
        subs.push(from_pdf_doing(
            "to_docx",
            "PDF Tool",
            "docx_path",
            Some("/home/user/a.docx"),
            word,
        ));
        subs.push(from_pdf_doing(
            "rotate",
            "PDF Tool",
            "docx_path",
            Some("/home/user/b.docx"),
            "rotate the pages",
        ));
        let copies = task(
            &[("n0", "n1"), ("n0", "n2")],
            &[("n0", &subs[0]), ("n1", &subs[2]), ("n2", &subs[3])],
            GOOD_HIGH,
            GOOD_INTENT,
        );
        let q = flags_of(&copies, &subs);
        assert!(
            q.problems
                .iter()
                .any(|p| p.contains("n1 and n2 each save the same file")),
            "{:?}",
            q.problems
        );
        // A copy beside a changed version is two different things.
        let changed = task(
            &[("n0", "n1"), ("n0", "n2")],
            &[("n0", &subs[0]), ("n1", &subs[2]), ("n2", &subs[4])],
            GOOD_HIGH,
            GOOD_INTENT,
        );
        let q = flags_of(&changed, &subs);
        assert!(
            !q.problems
                .iter()
                .any(|p| p.contains("each save the same file")),
            "{:?}",
            q.problems
        );
    }

    #[test]
    fn step_numbers_and_goal_labels_are_template_wording() {
        let subs = subtasks();
        for high in [
            "Goal: keep the page. First, print it as '/home/user/a.pdf'. Then compress it.",
            "Keep the page. (1) print it to PDF. (2) after 1, compress it.",
            "Keep the page: print it to PDF, which creates '/home/user/a.pdf', and compress it.",
        ] {
            let t = task(
                &[("n0", "n1")],
                &[("n0", &subs[0]), ("n1", &subs[1])],
                high,
                GOOD_INTENT,
            );
            assert!(!flags_of(&t, &subs).no_template_artefacts, "{high}");
        }
        // Inside quotes, the same words are a value, not template wording.
        let quoted = "Keep the page 'Goal: (1) after step 2'. In Browser, print the page to PDF. Then compress it.";
        let t = task(
            &[("n0", "n1")],
            &[("n0", &subs[0]), ("n1", &subs[1])],
            quoted,
            GOOD_INTENT,
        );
        assert!(flags_of(&t, &subs).no_template_artefacts);
    }

    #[test]
    fn an_instruction_as_long_as_its_steps_is_not_concise() {
        let subs = subtasks();
        let mut t = task(
            &[("n0", "n1")],
            &[("n0", &subs[0]), ("n1", &subs[1])],
            GOOD_HIGH,
            GOOD_INTENT,
        );
        t.low_level_instruction = Some(GOOD_HIGH.to_string());
        let q = flags_of(&t, &subs);
        assert!(!q.concise);
        assert!((q.length_ratio - 1.0).abs() < 1e-9);
    }
}
