//! The 11 check APIs (OmniBench appendix C.3 / E.2) over the [`Probes`] of any
//! backend, their registry (name, signature, doc, example) for the coder prompt,
//! and [`evaluate`]: a check list into an [`EvalResult`].
//!
//! Exact semantics (all "contains" are substring tests):
//! - `check_mouse_clicks(text)`: some click hit a control whose text (or stable
//!   name) equals `text`, ignoring case and surrounding spaces.
//! - `check_keyboard_types(text)`: the literal text typed by one keyboard_input
//!   (key combos removed) contains `text`.
//! - `check_key_presses(keys)`: some pressed combo equals `keys` after
//!   normalisation (`^s`, `ctrl+s` and `Ctrl+S` are the same; `{ENTER}` = `enter`).
//! - `check_file_exists(file_path)` / `check_dir_exists(dir_path)`: the path
//!   (normalised; relative to the home folder) is a file / a folder.
//! - `check_file_contains(file_path, text)`: the file exists and its text contains
//!   `text` (on a real desktop, an office document's text: the document text of a
//!   `.docx`, `.xlsx`, `.odt`, `.ods` or `.gnumeric`, see [`super::document`]).
//! - `check_clipboard_contains(text)`: the clipboard's text (a table as CSV rows,
//!   an image as its description) contains `text`.
//! - `check_text_exists_via_control(text)`: the active window's title or a control
//!   text contains `text`.
//! - `check_text_exists_via_ocr(text)`: a text drawn on the current screenshot
//!   contains `text`, ignoring case (truncated texts only count what is drawn).
//! - `check_text_exists(text)`: either of the two above.
//! - `check_window_open(title)`: an open window's title contains `title`, ignoring
//!   case.

use super::sim::normalize_keys;
use super::{EventKind, Probes};
use crate::model::{Check, CheckCall, EvalResult, ParameterSet};

/// One check API as shown to a model writing evaluations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckApi {
    pub name: &'static str,
    pub signature: &'static str,
    pub doc: &'static str,
    pub example: &'static str,
}

const APIS: &[CheckApi] = &[
    CheckApi {
        name: "check_mouse_clicks",
        signature: "check_mouse_clicks(text: str) -> bool",
        doc: "True if a mouse click hit a control whose text equals `text` (case-insensitive).",
        example: r#"{"api": "check_mouse_clicks", "args": {"text": "Save"}}"#,
    },
    CheckApi {
        name: "check_keyboard_types",
        signature: "check_keyboard_types(text: str) -> bool",
        doc: "True if the text typed by one keyboard_input action (key combos removed) contains `text`.",
        example: r#"{"api": "check_keyboard_types", "args": {"text": "{file_name}"}}"#,
    },
    CheckApi {
        name: "check_key_presses",
        signature: "check_key_presses(keys: str) -> bool",
        doc: "True if the key combo `keys` was pressed (pywinauto notation such as ^s or {ENTER}; ctrl+s also accepted).",
        example: r#"{"api": "check_key_presses", "args": {"keys": "^s"}}"#,
    },
    CheckApi {
        name: "check_file_exists",
        signature: "check_file_exists(file_path: str) -> bool",
        doc: "True if `file_path` is an existing file.",
        example: r#"{"api": "check_file_exists", "args": {"file_path": "{pdf_path}"}}"#,
    },
    CheckApi {
        name: "check_dir_exists",
        signature: "check_dir_exists(dir_path: str) -> bool",
        doc: "True if `dir_path` is an existing folder.",
        example: r#"{"api": "check_dir_exists", "args": {"dir_path": "/home/user/Projects/new"}}"#,
    },
    CheckApi {
        name: "check_file_contains",
        signature: "check_file_contains(file_path: str, text: str) -> bool",
        doc: "True if the file exists and its text contains `text`.",
        example: r#"{"api": "check_file_contains", "args": {"file_path": "{txt_path}", "text": "Hello"}}"#,
    },
    CheckApi {
        name: "check_clipboard_contains",
        signature: "check_clipboard_contains(text: str) -> bool",
        doc: "True if the clipboard's text (a table as CSV rows, an image as its description) contains `text`.",
        example: r#"{"api": "check_clipboard_contains", "args": {"text": "Total"}}"#,
    },
    CheckApi {
        name: "check_text_exists_via_control",
        signature: "check_text_exists_via_control(text: str) -> bool",
        doc: "True if the active window's title or one of its control texts contains `text`.",
        example: r#"{"api": "check_text_exists_via_control", "args": {"text": "Sent"}}"#,
    },
    CheckApi {
        name: "check_text_exists_via_ocr",
        signature: "check_text_exists_via_ocr(text: str) -> bool",
        doc: "True if a text drawn on the current screenshot contains `text` (case-insensitive).",
        example: r#"{"api": "check_text_exists_via_ocr", "args": {"text": "9:00 AM"}}"#,
    },
    CheckApi {
        name: "check_text_exists",
        signature: "check_text_exists(text: str) -> bool",
        doc: "True if `text` exists via control information or on the screenshot.",
        example: r#"{"api": "check_text_exists", "args": {"text": "Project Files"}}"#,
    },
    CheckApi {
        name: "check_window_open",
        signature: "check_window_open(title: str) -> bool",
        doc: "True if an open window's title contains `title` (case-insensitive).",
        example: r#"{"api": "check_window_open", "args": {"title": "Writer"}}"#,
    },
];

/// The registry of the 11 check APIs.
pub fn check_apis() -> &'static [CheckApi] {
    APIS
}

fn same(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim()) || a.trim().to_lowercase() == b.trim().to_lowercase()
}

/// Evaluates one (already instantiated) check call.
pub fn run_check(call: &CheckCall, p: &dyn Probes) -> bool {
    match call {
        CheckCall::CheckMouseClicks { text } => p.events().iter().any(|e| {
            e.hit && matches!(e.kind, EventKind::Click { .. }) && same(&e.control_text, text)
        }),
        CheckCall::CheckKeyboardTypes { text } => {
            !text.is_empty()
                && p.events().iter().any(
                    |e| matches!(&e.kind, EventKind::Type { text: t } if t.contains(text.as_str())),
                )
        }
        CheckCall::CheckKeyPresses { keys } => {
            let want = normalize_keys(keys);
            !want.is_empty()
                && p.events()
                    .iter()
                    .any(|e| matches!(&e.kind, EventKind::Keys { keys: k } if *k == want))
        }
        CheckCall::CheckFileExists { file_path } => p.file_text(file_path).is_some(),
        CheckCall::CheckDirExists { dir_path } => p.dir_exists(dir_path),
        CheckCall::CheckFileContains { file_path, text } => p
            .file_text(file_path)
            .is_some_and(|t| t.contains(text.as_str())),
        CheckCall::CheckClipboardContains { text } => p
            .clipboard_text()
            .is_some_and(|t| t.contains(text.as_str())),
        CheckCall::CheckTextExistsViaControl { text } => {
            !text.is_empty() && p.control_texts().iter().any(|t| t.contains(text.as_str()))
        }
        CheckCall::CheckTextExistsViaOcr { text } => {
            let want = text.to_lowercase();
            !want.is_empty()
                && p.screen_texts()
                    .iter()
                    .any(|t| t.to_lowercase().contains(&want))
        }
        CheckCall::CheckTextExists { text } => {
            run_check(
                &CheckCall::CheckTextExistsViaControl { text: text.clone() },
                p,
            ) || run_check(&CheckCall::CheckTextExistsViaOcr { text: text.clone() }, p)
        }
        CheckCall::CheckWindowOpen { title } => {
            let want = title.to_lowercase();
            !want.is_empty()
                && p.window_titles()
                    .iter()
                    .any(|t| t.to_lowercase().contains(&want))
        }
    }
}

fn render_call(call: &CheckCall) -> String {
    let args: Vec<String> = call.args().iter().map(|a| format!("'{a}'")).collect();
    format!("{}({})", call.api_name(), args.join(", "))
}

/// Evaluates checks in order after filling `{placeholders}` from `params`. A check
/// passes when the API's value equals its `expect`. The first failing check decides
/// the message (its own, with placeholders filled, or a generated one) and
/// `progress` = checks passed before it / total. An empty list succeeds with
/// progress 1.
pub fn evaluate(checks: &[Check], params: &ParameterSet, probes: &dyn Probes) -> EvalResult {
    let total = checks.len();
    for (i, check) in checks.iter().enumerate() {
        let call = check.call.instantiate(params);
        if run_check(&call, probes) != check.expect {
            let message = match &check.message {
                Some(m) => crate::model::fill_placeholders(m, params),
                None if check.expect => format!("{} is false", render_call(&call)),
                None => format!("{} is true but must not be", render_call(&call)),
            };
            return EvalResult {
                success: false,
                message,
                progress: i as f64 / total as f64,
                passed: i,
                total,
            };
        }
    }
    EvalResult {
        success: true,
        message: "Subtask completed successfully".to_string(),
        progress: 1.0,
        passed: total,
        total,
    }
}
