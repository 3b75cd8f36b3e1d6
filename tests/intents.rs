//! `synth intents`: the offline planner over the hand-written pool, and the
//! stage's review of proposed groups (unknown subtasks, no dependency path).

mod common;

/// The hand-written pool of the first sessions, kept as a fixture: its chains are
/// known, so these tests can name the levels and intents it must reach.
const HAND_WRITTEN_POOL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/hand_written_pool.jsonl"
);

use std::collections::BTreeSet;

use common::Workspace;
use synth::graph::Pool;
use synth::llm::Intent;
use synth::model::SubtaskStatus;
use synth::pipeline::intents::review;
use synth::resources::{initial_resources, Catalog};
use synth::store::intents::IntentStatus;
use synth::store::Store;

fn imported() -> Workspace {
    let ws = Workspace::new();
    ws.ok(&["--quiet", "pool", "import", HAND_WRITTEN_POOL]);
    ws
}

#[test]
fn offline_intents_cover_the_pool_and_a_second_run_adds_nothing() {
    let ws = imported();
    let first = ws.ok(&["intents"]);
    assert!(
        first.contains("0 verified subtasks anchored by none"),
        "{first}"
    );
    let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
    let intents = store.intents(None).unwrap();
    assert!(intents.len() >= 10, "{}", intents.len());
    let texts: BTreeSet<&str> = intents.iter().map(|i| i.intent.as_str()).collect();
    assert_eq!(texts.len(), intents.len(), "intent texts repeat");
    for i in &intents {
        assert_eq!(i.status, IntentStatus::Accepted, "{i:?}");
        assert!(i.scenario.is_some());
        assert_eq!(
            i.provenance.as_ref().unwrap().backend,
            "offline",
            "provenance says which backend made it"
        );
        // Worded from the group's own instructions, not a fixed phrase.
        assert!(i.intent.split_whitespace().count() >= 3, "{}", i.intent);
    }
    let covered: BTreeSet<&str> = intents
        .iter()
        .flat_map(|i| i.subtask_ids.iter().map(String::as_str))
        .collect();
    let pool = store.subtasks(SubtaskStatus::Verified).unwrap();
    assert_eq!(covered.len(), pool.len());
    drop(store);

    let second = ws.ok(&["intents"]);
    assert!(second.contains("0 accepted, 0 rejected"), "{second}");
    let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
    assert_eq!(store.intents(None).unwrap().len(), intents.len());
}

#[test]
fn max_caps_the_proposals() {
    let ws = imported();
    let out = ws.ok(&["intents", "--max", "3"]);
    assert!(out.contains("proposed 3 intents"), "{out}");
}

#[test]
fn unknown_subtasks_and_disconnected_groups_are_rejected_with_reasons() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let catalog = Catalog::load(repo).unwrap();
    let text =
        std::fs::read_to_string(repo.join("tests/fixtures/hand_written_pool.jsonl")).unwrap();
    let subtasks = synth::store::pool::parse_pool(
        &repo.join("tests/fixtures/hand_written_pool.jsonl"),
        &text,
        &catalog,
    )
    .unwrap();
    let initial = initial_resources(repo, &catalog).unwrap();
    let pool = Pool::new(&catalog, &subtasks, &initial).unwrap();
    let id_of = |needle: &str| {
        subtasks
            .iter()
            .find(|s| s.instruction_template.contains(needle))
            .unwrap_or_else(|| panic!("no subtask with {needle}"))
            .id
            .0
            .clone()
    };

    let unknown = review(
        &Intent {
            intent: "Do something".into(),
            subtask_ids: vec![id_of("export it as PDF to"), "no-such-subtask".into()],
        },
        &pool,
        &catalog,
    );
    assert_eq!(unknown.status, IntentStatus::Rejected);
    assert!(
        unknown
            .reason
            .as_deref()
            .unwrap()
            .contains("no-such-subtask"),
        "{unknown:?}"
    );

    // Playing a video and adding a bookmark share no resource.
    let apart = review(
        &Intent {
            intent: "Watch a video and bookmark a site".into(),
            subtask_ids: vec![
                id_of("play it in full screen"),
                id_of("add it to the bookmarks bar"),
            ],
        },
        &pool,
        &catalog,
    );
    assert_eq!(apart.status, IntentStatus::Rejected);
    assert!(
        apart
            .reason
            .as_deref()
            .unwrap()
            .contains("no dependency path"),
        "{apart:?}"
    );

    // Writer exports a PDF that the Archiver compresses: connected.
    let chain = review(
        &Intent {
            intent: "Export the document and archive it".into(),
            subtask_ids: vec![
                id_of("Open '{docx_path}' in Writer and export it as PDF"),
                id_of("Compress '{pdf_path}' into the archive"),
            ],
        },
        &pool,
        &catalog,
    );
    assert_eq!(chain.status, IntentStatus::Accepted, "{chain:?}");
    assert!(chain.reason.is_none());
}

#[test]
fn on_a_pruned_pool_the_offline_groups_all_pass_review_and_cover_it() {
    let ws = Workspace::new();
    let text = std::fs::read_to_string(std::path::Path::new(HAND_WRITTEN_POOL)).unwrap();
    // Every other subtask: many inputs now have no producer.
    let pruned: Vec<&str> = text.lines().step_by(2).collect();
    std::fs::write(ws.file("pruned.jsonl"), pruned.join("\n") + "\n").unwrap();
    ws.ok(&["--quiet", "pool", "import", "pruned.jsonl"]);
    let out = ws.ok(&["intents"]);
    assert!(out.contains(" 0 rejected"), "{out}");
    assert!(
        out.contains("0 verified subtasks anchored by none"),
        "{out}"
    );
}

/// A pool like a public tool graph: parameterless resource kinds only, subtasks
/// that feed each other in a cycle, and no final step. Before, every group of it
/// was rejected as "the intent is empty" and `synth intents` printed no reason.
#[test]
fn intents_cover_a_cyclic_parameterless_pool() {
    let ws = Workspace::new();
    let line = |id: &str, app: &str, cat: &str, text: &str, ins: &[&str], outs: &[&str]| {
        serde_json::json!({
            "id": id, "instruction_template": text, "application": app, "category": cat,
            "OS": "Linux", "available_parameters": [{}],
            "input_resources": ins, "output_resources": outs,
            "evaluation": {"checks": [{"api": "check_window_open", "args": {"title": app}}]},
        })
        .to_string()
    };
    let pool = [
        line(
            "00000000-0000-4000-8000-00000000000a",
            "Notes",
            "Note Management",
            "Copy the first note.",
            &[],
            &["text_in_clipboard"],
        ),
        line(
            "00000000-0000-4000-8000-00000000000b",
            "Sheets",
            "Office",
            "Paste the text into a new sheet and copy the table.",
            &["text_in_clipboard"],
            &["table_in_clipboard"],
        ),
        line(
            "00000000-0000-4000-8000-00000000000c",
            "Text Editor",
            "Office",
            "Paste the table as text and copy it.",
            &["table_in_clipboard"],
            &["text_in_clipboard"],
        ),
    ];
    std::fs::write(ws.file("tools.jsonl"), pool.join("\n") + "\n").unwrap();
    ws.ok(&["--quiet", "pool", "import", "tools.jsonl"]);
    let out = ws.ok(&["intents"]);
    assert!(out.contains(" 0 rejected"), "{out}");
    assert!(
        out.contains("0 verified subtasks anchored by none"),
        "{out}"
    );
    let store = Store::open(&ws.file("generated/synth.sqlite")).unwrap();
    let intents = store.intents(Some(IntentStatus::Accepted)).unwrap();
    assert!(!intents.is_empty());
    assert!(intents.iter().all(|i| !i.intent.trim().is_empty()));
}
