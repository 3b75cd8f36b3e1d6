//! The JSON examples of OmniBench appendix C parse into synth's model types and
//! re-serialize to equal JSON (field names and values preserved).

use serde::{de::DeserializeOwned, Serialize};
use serde_json::{json, Value};
use synth::model::{ActionCall, Subtask, SubtaskTrajectory, Task, TaskTrajectory};

fn round_trip<T: DeserializeOwned + Serialize>(example: Value) -> T {
    let parsed: T = serde_json::from_value(example.clone()).expect("example parses");
    let back = serde_json::to_value(&parsed).unwrap();
    assert_eq!(back, example, "re-serialized JSON differs");
    parsed
}

#[test]
fn c1_subtask_metadata() {
    let s: Subtask = round_trip(json!({
        "id": "25e2a51e-c019-1a9a-0747-d16fe0e9d457d",
        "instruction_template": "Open '{xlsx_path}', select the all data, and copy it.",
        "application": "Excel",
        "available_parameters": [
            {"xlsx_path": "C:\\Users\\user\\Desktop\\office\\The Evolution of Urbanization Rate.xlsx"}
        ],
        "OS": "Windows",
        "input_resources": ["xlsx_path"],
        "output_resources": ["table_in_clipboard", "xlsx_in_processing"]
    }));
    assert_eq!(s.placeholders(), vec!["xlsx_path"]);
    assert_eq!(
        s.instruction(0).unwrap(),
        "Open 'C:\\Users\\user\\Desktop\\office\\The Evolution of Urbanization Rate.xlsx', select the all data, and copy it."
    );
}

#[test]
fn c2_subtask_trajectory() {
    let t: SubtaskTrajectory = round_trip(json!({
        "trajectory_id": "XXX",
        "instruction": "Using the file explorer, navigate to C:\\Users\\user\\Desktop\\images\\ and new a Text Document named introduction.txt",
        "observations": ["obs1.png", "obs2.png"],
        "actions": [{
            "function": "click_input",
            "args": {"button": "left", "double": false},
            "rect": [124, 1020, 179, 1080],
            "description": "There are many application icons on the taskbar, and I need to select the File Explorer to complete the task.",
            "thought": "To fulfill 'Using the file explorer, navigate to C:\\Users\\user\\Desktop\\images\\ and new a Text Document named introduction.txt', I need to first click the 'File Explorer' button to open the corresponding application.",
            "control_text": "File Explorer"
        }],
        "subtask_id": "XXX"
    }));
    assert_eq!(
        t.actions[0].call,
        ActionCall::ClickInput {
            button: "left".into(),
            double: false
        }
    );
}

#[test]
fn c4_task_metadata() {
    let a = "a7310aa0-b194-77e3-5c36-996391a1bc7d";
    let b = "df3fc68b-fa76-4e19-7da6-aef17792523b";
    let t: Task = round_trip(json!({
        "task_instruction": "In Excel, open 'C:\\Users\\user\\Desktop\\office\\The Evolution of Urbanization Rate.xlsx', select the 'A' column, and center the content. Then, export the document as a PDF named 'C:\\Users\\user\\Desktop\\pdf\\The Evolution of Urbanization Rate.pdf'.",
        "dag": {"nodes": [a, b], "edges": {a: [b], b: []}},
        "task_intent": "Center Excel data and export to PDF",
        "successful_topo": [[a, b]]
    }));
    assert_eq!(t.dag.edges[a], vec![b.to_string()]);
}

#[test]
fn c5_task_trajectory() {
    let t: TaskTrajectory = round_trip(json!({
        "trajectory_id": "12(0)",
        "task_id": "12",
        "topological_order": [
            "a7310aa0-b194-77e3-5c36-996391a1bc7d",
            "df3fc68b-fa76-4e19-7da6-aef17792523b"
        ],
        "instruction": "In Excel, open the file, center the A column, and export as PDF.",
        "intent": "Center Excel data and export to PDF",
        "observations": ["obs1.png", "obs2.png"],
        "actions": [{
            "function": "click_input",
            "args": {"button": "left", "double": true},
            "rect": [1520, 371, 1614, 458],
            "description": "Double-click the 'Excel' icon on the desktop.",
            "thought": "To begin the task, I need to open Excel.",
            "control_text": "Excel"
        }]
    }));
    assert_eq!(t.trajectory_id, format!("{}(0)", t.task_id));
}

#[test]
fn c3_evaluation_as_data() {
    // C.3's Python evaluation, written as synth's check list: the same four calls,
    // in order, with the same messages.
    let e: synth::model::Evaluation = round_trip(json!({"checks": [
        {"api": "check_mouse_clicks", "args": {"text": "More actions"},
         "message": "Subtask execution failed because agent did not click the 'More actions' button."},
        {"api": "check_text_exists_via_control", "args": {"text": "Import tasks from a spreadsheet using a CSV file."},
         "message": "Subtask execution failed because the import tasks option was not accessed."},
        {"api": "check_keyboard_types", "args": {"text": "{csv_path}"},
         "message": "Subtask execution failed because the CSV file path '{csv_path}' was not typed."},
        {"api": "check_mouse_clicks", "args": {"text": "Open"},
         "message": "Subtask execution failed because the 'Open' button was not clicked to import the file."}
    ]}));
    assert_eq!(e.checks.len(), 4);
    assert!(e.checks.iter().all(|c| c.expect));
}
