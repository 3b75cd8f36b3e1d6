//! Cross-verification feedback as data: what the verify loop tells the actor and
//! the coder for their next attempt.
//!
//! The loop ([`crate::pipeline::verify::rounds`]) builds [`ActorFeedback`] and
//! [`CoderFeedback`] from the round's outcome (failing checks instantiated with
//! the instance's parameters, what the environment observed); offline roles read
//! their fields (the actor's subgoals, the checks the evidence refutes); only a
//! prompt renders them to text (`render`), and the stored round keeps that text as
//! it was shown. No role parses the text back.

use serde::{Deserialize, Serialize};

use crate::model::CheckCall;

/// What the actor is told after a failed round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ActorFeedback {
    /// The actor's previous reply could not be used.
    ReplyUnusable { reason: String },
    /// The actor did not finish within the step limit.
    StepLimit { steps: usize },
    /// The checks that failed on the trajectory, this round's and earlier
    /// rounds' (a fix for one must not undo the fix for another).
    FailedChecks { checks: Vec<FailedCheck> },
    /// Declared outputs that did not hold after the trajectory.
    MissingOutputs { outputs: Vec<String> },
    /// The trajectory depends on what is in front at the start.
    NotComposable { problem: String },
    /// What the desktop said about the last action (an evaluated agent's step,
    /// not cross-verification), shown as it is.
    Environment { message: String },
}

/// One failing check, instantiated with the instance's parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedCheck {
    pub call: CheckCall,
    /// What the check expects of its call.
    pub expect: bool,
    /// The check's own message, placeholders filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// What the feedback asks the actor to do beyond the subtask's outputs: clicks,
/// texts typed and keys pressed that failing checks expect.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Subgoals {
    pub clicks: Vec<String>,
    pub typed: Vec<String>,
    pub keys: Vec<String>,
}

impl ActorFeedback {
    /// The clicks, texts and key presses that failing checks expect.
    pub fn subgoals(&self) -> Subgoals {
        let mut goals = Subgoals::default();
        let ActorFeedback::FailedChecks { checks } = self else {
            return goals;
        };
        for c in checks.iter().filter(|c| c.expect) {
            match &c.call {
                CheckCall::CheckMouseClicks { text } => goals.clicks.push(text.clone()),
                CheckCall::CheckKeyboardTypes { text } => goals.typed.push(text.clone()),
                CheckCall::CheckKeyPresses { keys } => goals.keys.push(keys.clone()),
                _ => {}
            }
        }
        goals
    }

    /// The feedback as the actor's prompt shows it.
    pub fn render(&self) -> String {
        match self {
            ActorFeedback::ReplyUnusable { reason } => {
                format!("Your previous reply could not be used: {reason}")
            }
            ActorFeedback::StepLimit { steps } => format!(
                "You did not finish within {steps} steps; take the shortest way to the goal."
            ),
            ActorFeedback::FailedChecks { checks } => checks
                .iter()
                .map(FailedCheck::render)
                .collect::<Vec<_>>()
                .join("\n"),
            ActorFeedback::MissingOutputs { outputs } => format!(
                "Your trajectory did not produce the subtask's declared output(s): {}.",
                outputs.join(", ")
            ),
            ActorFeedback::Environment { message } => message.clone(),
            ActorFeedback::NotComposable { problem } => format!(
                "Your steps must also work when other windows are open at the start \
                 ({problem}); start the application in a way that does not depend on what \
                 is in front."
            ),
        }
    }
}

impl FailedCheck {
    /// The failing check worded as a goal.
    pub fn render(&self) -> String {
        let body = goal_text(&self.call, self.expect);
        match &self.message {
            Some(m) => format!("{body} (Check message: {m})"),
            None => body,
        }
    }
}

fn goal_text(call: &CheckCall, want: bool) -> String {
    let done = "which your trajectory did not do.";
    match (call, want) {
        (CheckCall::CheckMouseClicks { text }, true) => {
            format!("The evaluation expects a click on '{text}', {done}")
        }
        (CheckCall::CheckMouseClicks { text }, false) => format!(
            "The evaluation expects no click on '{text}', but your trajectory clicked it."
        ),
        (CheckCall::CheckKeyboardTypes { text }, true) => {
            format!("The evaluation expects typing '{text}', {done}")
        }
        (CheckCall::CheckKeyPresses { keys }, true) => {
            format!("The evaluation expects the key press '{keys}', {done}")
        }
        (CheckCall::CheckFileExists { file_path }, true) => format!(
            "The evaluation expects the file '{file_path}' to exist after your trajectory; it does not."
        ),
        (CheckCall::CheckFileExists { file_path }, false) => format!(
            "The evaluation expects the file '{file_path}' to be gone after your trajectory; it still exists."
        ),
        (CheckCall::CheckDirExists { dir_path }, true) => format!(
            "The evaluation expects the folder '{dir_path}' to exist after your trajectory; it does not."
        ),
        (CheckCall::CheckDirExists { dir_path }, false) => format!(
            "The evaluation expects the folder '{dir_path}' to be gone after your trajectory; it still exists."
        ),
        (CheckCall::CheckFileContains { file_path, text }, true) => format!(
            "The evaluation expects the file '{file_path}' to contain '{text}' after your trajectory."
        ),
        (CheckCall::CheckClipboardContains { text }, true) => format!(
            "The evaluation expects the clipboard to contain '{text}' at the end of your trajectory."
        ),
        (
            CheckCall::CheckTextExists { text }
            | CheckCall::CheckTextExistsViaControl { text }
            | CheckCall::CheckTextExistsViaOcr { text },
            true,
        ) => format!(
            "The evaluation expects the text '{text}' to be shown at the end of your trajectory."
        ),
        (CheckCall::CheckWindowOpen { title }, true) => format!(
            "The evaluation expects a window titled '{title}' to be open at the end of your trajectory."
        ),
        (call, _) => format!(
            "The evaluation expects {}({}) to be {} at the end of your trajectory.",
            call.api_name(),
            call.args().join(", "),
            want
        ),
    }
}

/// What the coder is told after a failed round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CoderFeedback {
    /// The coder's previous reply could not be used.
    ReplyUnusable { reason: String },
    /// The environment's evidence about every check that failed, and the
    /// controls and texts seen during the trajectory.
    FailedChecks {
        checks: Vec<CheckEvidence>,
        seen: Vec<String>,
    },
    /// The checks accepted a trajectory that does not make these outputs hold.
    MissingOutputs { outputs: Vec<String> },
}

/// A failing check (instantiated) and what the environment observed about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckEvidence {
    pub call: CheckCall,
    pub expect: bool,
    pub findings: Vec<Finding>,
}

/// One observation about a failing check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Finding {
    /// A control with the text appeared but was not clicked.
    NotClicked {
        text: String,
    },
    /// No control with the text appeared: the check can never hold here.
    NoSuchControl {
        text: String,
    },
    Clicked {
        controls: Vec<String>,
    },
    Typed {
        texts: Vec<String>,
    },
    KeysPressed {
        keys: Vec<String>,
    },
    FilesIn {
        dir: String,
        files: Vec<String>,
    },
    Clipboard {
        text: Option<String>,
    },
    /// The text appeared during the trajectory but is not shown at its end.
    NotShownAtEnd {
        text: String,
    },
    /// The text never appeared: the check can never hold here.
    NeverShown {
        text: String,
    },
    ShownAtEnd {
        texts: Vec<String>,
    },
    OpenWindows {
        titles: Vec<String>,
    },
}

impl CoderFeedback {
    /// The failing checks whose evidence says they can never hold on this
    /// desktop (their control or text never appeared).
    pub fn refuted(&self) -> Vec<&CheckEvidence> {
        match self {
            CoderFeedback::FailedChecks { checks, .. } => {
                checks.iter().filter(|c| c.is_refuted()).collect()
            }
            _ => Vec::new(),
        }
    }

    /// The texts that the evidence says never appeared.
    pub fn refuted_texts(&self) -> Vec<String> {
        self.refuted()
            .into_iter()
            .flat_map(|c| &c.findings)
            .filter_map(|f| match f {
                Finding::NoSuchControl { text } | Finding::NeverShown { text } => {
                    Some(text.clone())
                }
                _ => None,
            })
            .collect()
    }

    /// The feedback as the coder's prompt shows it.
    pub fn render(&self) -> String {
        match self {
            CoderFeedback::ReplyUnusable { reason } => {
                format!("Your previous checks could not be used: {reason}")
            }
            CoderFeedback::FailedChecks { checks, seen } => {
                let mut blocks: Vec<String> = checks.iter().map(CheckEvidence::render).collect();
                blocks.push(format!(
                    "Controls and texts seen during the trajectory: {}.",
                    quoted(seen, 80)
                ));
                blocks.join("\n\n")
            }
            CoderFeedback::MissingOutputs { outputs } => format!(
                "Your checks accepted a trajectory that does not produce the declared \
                 output(s) {}; add checks that fail without them.",
                outputs.join(", ")
            ),
        }
    }
}

impl CheckEvidence {
    /// Does a finding say the check can never hold on this desktop?
    pub fn is_refuted(&self) -> bool {
        self.findings.iter().any(|f| {
            matches!(
                f,
                Finding::NoSuchControl { .. } | Finding::NeverShown { .. }
            )
        })
    }

    fn render(&self) -> String {
        let mut lines = vec![format!(
            "Your check {}{} failed on the final state of the trajectory.",
            shown_call(&self.call),
            if self.expect {
                ""
            } else {
                " with expect=false"
            }
        )];
        lines.extend(self.findings.iter().map(Finding::render));
        lines.join("\n")
    }
}

impl Finding {
    fn render(&self) -> String {
        match self {
            Finding::NotClicked { text } => {
                format!("A control '{text}' appeared but the trajectory did not click it.")
            }
            Finding::NoSuchControl { text } => {
                format!("No control with the text '{text}' appeared during the trajectory.")
            }
            Finding::Clicked { controls } => format!("Controls clicked: {}.", quoted(controls, 40)),
            Finding::Typed { texts } => format!("Texts typed: {}.", quoted(texts, 40)),
            Finding::KeysPressed { keys } => format!("Keys pressed: {}.", quoted(keys, 40)),
            Finding::FilesIn { dir, files } => {
                format!("Files that exist in '{dir}': {}.", quoted(files, 40))
            }
            Finding::Clipboard { text } => format!(
                "The clipboard holds: {}.",
                text.as_ref()
                    .map_or("nothing".to_string(), |t| format!("'{t}'"))
            ),
            Finding::NotShownAtEnd { text } => {
                format!("'{text}' appeared during the trajectory but is not shown at its end.")
            }
            Finding::NeverShown { text } => {
                format!("The text '{text}' never appeared during the trajectory.")
            }
            Finding::ShownAtEnd { texts } => {
                format!("Texts shown at the end: {}.", quoted(texts, 40))
            }
            Finding::OpenWindows { titles } => format!("Open windows: {}.", quoted(titles, 20)),
        }
    }
}

/// The call of a check as shown in feedback: `api('arg', ...)`.
pub fn shown_call(call: &CheckCall) -> String {
    format!(
        "{}({})",
        call.api_name(),
        call.args()
            .iter()
            .map(|a| format!("'{a}'"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Up to `limit` items quoted and joined, with how many more; `none` for none.
fn quoted(items: &[String], limit: usize) -> String {
    if items.is_empty() {
        return "none".into();
    }
    let mut s = items
        .iter()
        .take(limit)
        .map(|i| format!("'{i}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let more = items.len().saturating_sub(limit);
    if more > 0 {
        s.push_str(&format!(" and {more} more"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(call: CheckCall, expect: bool) -> FailedCheck {
        FailedCheck {
            call,
            expect,
            message: None,
        }
    }

    #[test]
    fn failing_checks_become_subgoals_only_when_they_expect_the_event() {
        let fb = ActorFeedback::FailedChecks {
            checks: vec![
                failed(
                    CheckCall::CheckMouseClicks {
                        text: "Full Screen".into(),
                    },
                    true,
                ),
                failed(
                    CheckCall::CheckKeyboardTypes {
                        text: "it's done', ok".into(),
                    },
                    true,
                ),
                failed(CheckCall::CheckKeyPresses { keys: "^s".into() }, true),
                failed(
                    CheckCall::CheckMouseClicks {
                        text: "Cancel".into(),
                    },
                    false,
                ),
                failed(
                    CheckCall::CheckWindowOpen {
                        title: "Mail".into(),
                    },
                    true,
                ),
            ],
        };
        let g = fb.subgoals();
        assert_eq!(g.clicks, vec!["Full Screen"]);
        assert_eq!(
            g.typed,
            vec!["it's done', ok"],
            "quotes in a value are kept whole"
        );
        assert_eq!(g.keys, vec!["^s"]);
        let other = ActorFeedback::StepLimit { steps: 3 };
        assert_eq!(other.subgoals(), Subgoals::default());
    }

    #[test]
    fn failed_checks_render_one_goal_a_line_with_their_message() {
        let mut click = failed(
            CheckCall::CheckMouseClicks {
                text: "Save".into(),
            },
            true,
        );
        click.message = Some("the file is saved".into());
        let fb = ActorFeedback::FailedChecks {
            checks: vec![
                click,
                failed(CheckCall::CheckKeyPresses { keys: "^s".into() }, true),
            ],
        };
        assert_eq!(
            fb.render(),
            "The evaluation expects a click on 'Save', which your trajectory did not do. \
             (Check message: the file is saved)\n\
             The evaluation expects the key press '^s', which your trajectory did not do."
        );
    }

    fn evidence(text: &str, finding: Finding) -> CheckEvidence {
        CheckEvidence {
            call: CheckCall::CheckMouseClicks { text: text.into() },
            expect: true,
            findings: vec![
                finding,
                Finding::Clicked {
                    controls: vec!["Never Mind".into()],
                },
            ],
        }
    }

    #[test]
    fn only_texts_that_never_appeared_are_refuted() {
        let fb = CoderFeedback::FailedChecks {
            checks: vec![
                evidence(
                    "Export",
                    Finding::NotClicked {
                        text: "Export".into(),
                    },
                ),
                evidence(
                    "Share",
                    Finding::NoSuchControl {
                        text: "Share".into(),
                    },
                ),
            ],
            seen: vec!["missing.txt".into()],
        };
        assert_eq!(fb.refuted_texts(), vec!["Share".to_string()]);
        assert_eq!(fb.refuted().len(), 1);
        assert!(CoderFeedback::ReplyUnusable { reason: "x".into() }
            .refuted_texts()
            .is_empty());
    }

    #[test]
    fn coder_evidence_renders_a_block_per_check_then_what_was_seen() {
        let fb = CoderFeedback::FailedChecks {
            checks: vec![evidence(
                "Share",
                Finding::NoSuchControl {
                    text: "Share".into(),
                },
            )],
            seen: (0..82).map(|i| i.to_string()).collect(),
        };
        let text = fb.render();
        assert!(text.starts_with(
            "Your check check_mouse_clicks('Share') failed on the final state of the trajectory.\n\
             No control with the text 'Share' appeared during the trajectory.\n\
             Controls clicked: 'Never Mind'.\n\n\
             Controls and texts seen during the trajectory: '0', '1'"
        ), "{text}");
        assert!(text.ends_with("'79' and 2 more."), "{text}");
    }
}
