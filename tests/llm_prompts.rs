//! Snapshot tests: every role's prompt rendered with a fixed context. Review the
//! diffs of tests/snapshots/llm_prompts__*.snap when a template changes.

use std::collections::BTreeMap;

use synth::llm::prompt::{Prompts, RenderedPrompt};
use synth::llm::*;
use synth::model::{Action, ActionCall};

fn show(p: RenderedPrompt) -> String {
    format!("=== system ===\n{}\n\n=== user ===\n{}\n", p.system, p.user)
}

fn params(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn controls() -> Vec<ControlInfo> {
    vec![
        ControlInfo {
            label: "1".into(),
            control_text: "File".into(),
            control_type: "MenuItem".into(),
            parent_control_text: "Menu Bar".into(),
            parent_control_type: "MenuBar".into(),
        },
        ControlInfo {
            label: "2".into(),
            control_text: "Export as PDF".into(),
            control_type: "Button".into(),
            parent_control_text: "File".into(),
            parent_control_type: "Menu".into(),
        },
    ]
}

#[test]
fn actor_prompt() {
    let req = ActRequest {
        instruction: "Export '/home/user/Documents/report.docx' as PDF.".into(),
        window_title: "report.docx - Writer".into(),
        controls: controls(),
        history: vec![HistoryStep {
            thought: "Open the File menu first.".into(),
            action: Action {
                call: ActionCall::ClickInput {
                    button: "left".into(),
                    double: false,
                },
                control_label: Some("1".into()),
                control_text: "File".into(),
            },
        }],
        feedback: Some(synth::llm::ActorFeedback::FailedChecks {
            checks: vec![synth::llm::FailedCheck {
                call: synth::model::CheckCall::CheckFileExists {
                    file_path: "/home/user/Documents/report.pdf".into(),
                },
                expect: true,
                message: None,
            }],
        }),
        screenshot: None,
    };
    insta::assert_snapshot!("actor", show(Prompts::embedded().render(&req).unwrap()));
}

#[test]
fn coder_prompt_lists_the_given_registry() {
    let req = CodeRequest {
        instruction_template: "Export '{docx_path}' as PDF.".into(),
        application: "Writer".into(),
        os: "Linux".into(),
        parameters: vec![params(&[("docx_path", "/home/user/Documents/report.docx")])],
        controls_seen: vec!["File".into(), "Export as PDF".into(), "Save".into()],
        feedback: None,
        apis: model_check_api_docs(),
    };
    let p = Prompts::embedded().render(&req).unwrap();
    for api in model_check_api_docs() {
        assert!(p.system.contains(&api.signature), "{} missing", api.name);
    }
    insta::assert_snapshot!("coder", show(p));
}

#[test]
fn explorer_prompt() {
    let req = ExploreRequest {
        application: "Sheets".into(),
        category: "Office".into(),
        docs: "A spreadsheet editor: open, edit, sort, copy tables, save as CSV or XLSX.".into(),
        resource_kinds: vec![
            ResourceKindDoc {
                name: "xlsx_path".into(),
                description: "path of an existing spreadsheet".into(),
            },
            ResourceKindDoc {
                name: "table_in_clipboard".into(),
                description: "a table copied to the clipboard".into(),
            },
        ],
        example_subtasks: vec![ExampleSubtask {
            instruction_template: "Open '{xlsx_path}', select all data, and copy it.".into(),
            available_parameters: vec![params(&[(
                "xlsx_path",
                "/home/user/Documents/budget.xlsx",
            )])],
            input_resources: vec!["xlsx_path".into()],
            output_resources: vec!["table_in_clipboard".into()],
        }],
        observed_controls: controls(),
        existing_templates: vec!["Sort '{xlsx_path}' by the first column.".into()],
        max_subtasks: 5,
        known_resources: vec![KnownResource {
            kind: "xlsx_path".into(),
            parameter: Some("/home/user/Documents/budget.xlsx".into()),
            source: "desktop".into(),
            readers: 0,
            shows: Some("figures".into()),
            depth: 0,
            copied_beside: false,
            packs: 0,
            converted_only: false,
            made_from: Vec::new(),
        }],
    };
    insta::assert_snapshot!("explorer", show(Prompts::embedded().render(&req).unwrap()));
}

#[test]
fn planner_prompt() {
    let req = PlanRequest {
        subtasks: vec![
            PlanSubtask {
                id: "s1".into(),
                application: "Writer".into(),
                category: "Office".into(),
                instruction: "Export '/home/user/Documents/intro.docx' as PDF.".into(),
                input_resources: vec!["docx_path".into()],
                output_resources: vec!["pdf_path".into()],
            },
            PlanSubtask {
                id: "s2".into(),
                application: "Mail".into(),
                category: "Social Communication".into(),
                instruction: "Send '/home/user/Documents/intro.pdf' to emily@example.com.".into(),
                input_resources: vec!["pdf_path".into(), "email_address".into()],
                output_resources: vec![],
            },
        ],
        existing_intents: vec!["Prepare the quarterly budget review".into()],
        max_intents: Some(3),
    };
    insta::assert_snapshot!("planner", show(Prompts::embedded().render(&req).unwrap()));
}

#[test]
fn summarizer_prompt() {
    let req = SummarizeRequest {
        intent: "Share a personal introduction with Emily".into(),
        purpose: Some("to introduce myself to Emily".into()),
        nodes: vec![
            SummaryNode {
                id: "n0".into(),
                application: "Writer".into(),
                instruction: "Export '/home/user/Documents/intro.docx' as PDF.".into(),
            },
            SummaryNode {
                id: "n1".into(),
                application: "Mail".into(),
                instruction: "Send '/home/user/Documents/intro.pdf' to emily@example.com.".into(),
            },
        ],
        edges: vec![("n0".into(), "n1".into())],
        previous_instruction: Some("Send Emily my intro.".into()),
        discrepancy: Some("the reader found no dependency between n0 and n1".into()),
    };
    insta::assert_snapshot!(
        "summarizer",
        show(Prompts::embedded().render(&req).unwrap())
    );
}

#[test]
fn reconstructor_prompt() {
    let req = ReconstructRequest {
        instruction: "Export my intro as a PDF and then mail that PDF to Emily.".into(),
        subtasks: vec![
            NeutralSubtask {
                id: "A".into(),
                instruction: "Send '/home/user/Documents/intro.pdf' to emily@example.com.".into(),
            },
            NeutralSubtask {
                id: "B".into(),
                instruction: "Export '/home/user/Documents/intro.docx' as PDF.".into(),
            },
        ],
    };
    insta::assert_snapshot!(
        "reconstructor",
        show(Prompts::embedded().render(&req).unwrap())
    );
}
