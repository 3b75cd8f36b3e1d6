//! The offline coder: a rule-based [`OfflineRole`] for [`CodeRequest`].
//!
//! Its checks come from the subtask, never from a trajectory: it finds the
//! subtask (by template and application among the subtasks it was built with),
//! re-derives the subtask's static path from the application spec
//! ([`super::paths::plans`], the same analysis the explorer words instructions
//! from), and writes checks for the declared outputs (files and folders exist),
//! the typed parameters (`check_keyboard_types`), the producing click
//! (`check_mouse_clicks`), list items chosen by parameter, a file picked from a
//! folder list (the explorer adds its shown name as the parameter `<slot>_file`),
//! a copied selection on the clipboard, and the application's window.
//!
//! Feedback (the environment's evidence from a failed round: "control 'Export'
//! never appeared; texts seen: ...") drops every check whose argument the evidence
//! refutes. Parameter-specific checks (typed values, output paths) make the
//! evaluation fail on other subtasks' trajectories.

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::paths::{self, Plan, Step};
use crate::env::spec::{AppSpec, Op};
use crate::env::Replica;
use crate::llm::{CodeRequest, LlmError, OfflineRole, Outcome};
use crate::model::{fill_placeholders, Check, CheckCall, Subtask};
use crate::resources::Catalog;

/// The rule-based coder.
pub struct OfflineCoder {
    apps: BTreeMap<String, AppSpec>,
    catalog: Catalog,
    subtasks: Vec<Subtask>,
    plans: Mutex<BTreeMap<String, Vec<Plan>>>,
}

impl OfflineCoder {
    pub fn new(desktop: &dyn Replica, catalog: &Catalog, subtasks: &[Subtask]) -> OfflineCoder {
        OfflineCoder {
            apps: desktop
                .specs()
                .iter()
                .map(|a| (a.spec.name.clone(), a.spec.clone()))
                .collect(),
            catalog: catalog.clone(),
            subtasks: subtasks.to_vec(),
            plans: Mutex::new(BTreeMap::new()),
        }
    }

    fn plan_for(&self, app: &str, template: &str, input_kinds: &[String]) -> Option<Plan> {
        let spec = self.apps.get(app)?;
        let mut cache = self.plans.lock().unwrap_or_else(|e| e.into_inner());
        let plans = cache
            .entry(app.to_string())
            .or_insert_with(|| paths::plans(spec, &self.catalog));
        paths::worded_plan(spec, plans, input_kinds, |p| {
            let base = p.base_template();
            template == format!("{base}.")
                || template.starts_with(&format!("{base}{}", paths::COMPUTED_LEAD))
        })
    }

    /// The checks for a request, before feedback is applied.
    pub fn checks(&self, req: &CodeRequest) -> Vec<Check> {
        let subtask = self.subtasks.iter().find(|s| {
            s.application == req.application && s.instruction_template == req.instruction_template
        });
        let placeholders = crate::model::placeholders(&req.instruction_template);
        let outputs: Vec<String> = match subtask {
            Some(s) => s.output_resources.clone(),
            None => placeholders
                .iter()
                .filter(|p| p.ends_with("_path"))
                .cloned()
                .collect(),
        };
        // The parameters that name inputs, and their kinds.
        let (input_kinds, inputs): (Vec<String>, Vec<String>) = subtask
            .map(|s| {
                s.input_resources
                    .iter()
                    .map(|slot| {
                        let (kind, name) = crate::resources::split_slot(slot);
                        (kind.to_string(), name.to_string())
                    })
                    .unzip()
            })
            .unwrap_or_default();
        let plan = self.plan_for(&req.application, &req.instruction_template, &input_kinds);
        let mut out: Vec<Check> = Vec::new();
        let mut push = |call: CheckCall, message: String| {
            if !out.iter().any(|c: &Check| c.call == call) {
                out.push(Check {
                    call,
                    expect: true,
                    message: Some(message),
                });
            }
        };
        push(
            CheckCall::CheckWindowOpen {
                title: req.application.clone(),
            },
            format!("the {} window is not open", req.application),
        );
        match &plan {
            Some(plan) => {
                for step in &plan.steps {
                    match step {
                        // How an input file is reached (typed, picked in a list) is
                        // the demonstrator's choice; the evaluation asks for what is
                        // done with it. A check on typing its path made demonstrations
                        // type it anywhere (even into Save As, over the file itself)
                        // once the file was already open or picked.
                        Step::Type { slot, .. }
                            if placeholders.contains(slot)
                                && !plan.slot(slot).is_some_and(|s| {
                                    matches!(s.role, paths::SlotRole::InputPath { .. })
                                }) =>
                        {
                            push(
                                CheckCall::CheckKeyboardTypes {
                                    text: format!("{{{slot}}}"),
                                },
                                format!("'{{{slot}}}' was not typed"),
                            )
                        }
                        Step::SelectPath { slot, .. } | Step::OpenPath { slot, .. }
                            if !req.parameters.is_empty()
                                && req
                                    .parameters
                                    .iter()
                                    .all(|p| p.contains_key(&format!("{slot}_file"))) =>
                        {
                            push(
                                CheckCall::CheckMouseClicks {
                                    text: format!("{{{slot}_file}}"),
                                },
                                format!("the file '{{{slot}_file}}' was not picked in the list"),
                            )
                        }
                        Step::SelectItem { slot, .. } if placeholders.contains(slot) => push(
                            CheckCall::CheckMouseClicks {
                                text: format!("{{{slot}}}"),
                            },
                            format!("'{{{slot}}}' was not selected"),
                        ),
                        _ => {}
                    }
                }
                // Every control the path clicks (the dialog it opens, the option
                // it sets, the producer): a subtask that differs from another by
                // one option is told apart by that click.
                // Controls that only move between screens or open the input
                // ('Open', 'Open file', 'Save As') are means, not what was asked:
                // checking them made demonstrations click them for the check's sake.
                let app = self.apps.get(&plan.app);
                for c in plan
                    .clicked
                    .iter()
                    .filter(|c| **c != plan.producer && !app.is_some_and(|a| only_navigates(a, c)))
                {
                    push(
                        CheckCall::CheckMouseClicks { text: c.clone() },
                        format!("'{c}' was not clicked"),
                    );
                }
                push(
                    CheckCall::CheckMouseClicks {
                        text: plan.producer.clone(),
                    },
                    format!("'{}' was not clicked", plan.producer),
                );
                // An archive that gathers several files holds each of them: a
                // demonstration that adds one and compresses is no bundle.
                let bundle = plan.wrapping_output(&self.catalog).map(|s| s.name.clone());
                let packed: Vec<&str> = plan
                    .slots
                    .iter()
                    .filter(|s| matches!(s.role, paths::SlotRole::InputPath { .. }))
                    .map(|s| s.name.as_str())
                    .collect();
                if let (Some(zip), true) = (&bundle, packed.len() >= 2) {
                    for &slot in &packed {
                        let file = format!("{slot}_file");
                        if req.parameters.is_empty()
                            || !req.parameters.iter().all(|p| p.contains_key(&file))
                        {
                            continue;
                        }
                        push(
                            CheckCall::CheckFileContains {
                                file_path: format!("{{{zip}}}"),
                                text: format!("{{{file}}}"),
                            },
                            format!("'{{{zip}}}' does not hold '{{{file}}}'"),
                        );
                    }
                }
                // A message that carries several files lists each of them
                // (Mail's attachments, then its Sent list): a demonstration
                // that attaches one and sends is no bundle either.
                let gathers = app.is_some_and(|a| paths::gathers(a, plan).is_some());
                if bundle.is_none() && gathers && packed.len() >= 2 {
                    for slot in packed {
                        push(
                            CheckCall::CheckTextExistsViaControl {
                                text: format!("{{{slot}}}"),
                            },
                            format!("'{{{slot}}}' is not attached"),
                        );
                    }
                }
                // A copied selection is on the clipboard.
                let copies_selection = self.apps.get(&plan.app).is_some_and(|a| {
                    a.screens.values().any(|s| {
                        s.controls.iter().any(|c| {
                            let c = c.get_ref();
                            c.text == plan.producer
                                && c.click.iter().any(
                                    |e| matches!(&e.op, Op::Copy { what, .. } if what == "selection"),
                                )
                        })
                    })
                });
                if copies_selection {
                    if let Some(slot) = plan.steps.iter().find_map(|s| match s {
                        Step::SelectItem { slot, .. } => Some(slot.clone()),
                        _ => None,
                    }) {
                        push(
                            CheckCall::CheckClipboardContains {
                                text: format!("{{{slot}}}"),
                            },
                            format!("the clipboard does not hold '{{{slot}}}'"),
                        );
                    }
                }
            }
            None => {
                for p in &placeholders {
                    if !inputs.contains(p)
                        && !self.catalog.kinds.get(p).is_some_and(|k| k.is_path())
                    {
                        push(
                            CheckCall::CheckKeyboardTypes {
                                text: format!("{{{p}}}"),
                            },
                            format!("'{{{p}}}' was not typed"),
                        );
                    }
                }
            }
        }
        for slot in &outputs {
            let (kind, name) = crate::resources::split_slot(slot);
            let Some(spec) = self.catalog.kinds.get(kind) else {
                continue;
            };
            if !placeholders.iter().any(|p| p == name)
                && subtask
                    .is_none_or(|s| s.available_parameters.iter().any(|p| !p.contains_key(name)))
            {
                continue;
            }
            if spec.directory {
                push(
                    CheckCall::CheckDirExists {
                        dir_path: format!("{{{name}}}"),
                    },
                    format!("the folder '{{{name}}}' does not exist"),
                );
            } else if spec.is_path() {
                push(
                    CheckCall::CheckFileExists {
                        file_path: format!("{{{name}}}"),
                    },
                    format!("the file '{{{name}}}' does not exist"),
                );
            }
        }
        out
    }
}

/// Does every control of `app` labelled `text` only navigate (show another
/// screen, go back, check a precondition) or open a file or a new document? Such
/// a click is a means to the subtask's effect, never the effect.
fn only_navigates(app: &AppSpec, text: &str) -> bool {
    let mut found = false;
    for screen in app.screens.values() {
        for c in screen.controls.iter().map(|c| c.get_ref()) {
            if c.text != text {
                continue;
            }
            found = true;
            let means = c.click.iter().all(|e| {
                matches!(
                    e.op,
                    Op::Goto { .. }
                        | Op::Back
                        | Op::Require { .. }
                        | Op::OpenFile { .. }
                        | Op::NewDocument { .. }
                )
            });
            if !means {
                return false;
            }
        }
    }
    found
}

impl OfflineRole<CodeRequest> for OfflineCoder {
    fn answer(&self, req: &CodeRequest) -> Result<Outcome<Vec<Check>>, LlmError> {
        let mut checks = self.checks(req);
        if let Some(fb) = &req.feedback {
            let refuted = fb.refuted_texts();
            checks.retain(|c| {
                !c.call.args().iter().any(|a| {
                    refuted.iter().any(|r| {
                        a == r || req.parameters.iter().any(|p| fill_placeholders(a, p) == *r)
                    })
                })
            });
        }
        if checks.is_empty() {
            return Ok(Outcome::Rejected {
                reason: "the evidence refutes every check the offline coder can write".into(),
                raw: String::new(),
            });
        }
        Ok(Outcome::Accepted(checks))
    }
}
