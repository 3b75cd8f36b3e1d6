//! The check APIs, their evaluation (negation, placeholders, progress), the
//! resource rules, wrong actions and the VFS boundary.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use synth::env::{check_apis, evaluate, run_check, Environment, Probes, Setup, SimDesktop};
use synth::model::{Action, ActionCall, Check, CheckCall, ParameterSet};
use synth::resources::{Catalog, Resource};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn base() -> &'static SimDesktop {
    static DESK: OnceLock<SimDesktop> = OnceLock::new();
    DESK.get_or_init(|| SimDesktop::load(&workspace()).unwrap())
}

fn open(app: &str) -> SimDesktop {
    let mut d = base().clone();
    d.reset(&Setup {
        launch: vec![app.into()],
        ..Setup::default()
    })
    .unwrap();
    d
}

fn step(
    d: &mut SimDesktop,
    call: ActionCall,
    label: Option<&str>,
    text: &str,
) -> synth::env::StepOutcome {
    if label.is_none() && matches!(call, ActionCall::ClickInput { .. }) {
        common::reveal(d, text);
    }
    d.step(&Action {
        call,
        control_label: label.map(str::to_string),
        control_text: text.into(),
    })
}

fn left() -> ActionCall {
    ActionCall::ClickInput {
        button: "left".into(),
        double: false,
    }
}

fn keys(k: &str) -> ActionCall {
    ActionCall::KeyboardInput { keys: k.into() }
}

fn chk(call: CheckCall) -> Check {
    Check {
        call,
        expect: true,
        message: None,
    }
}

#[test]
fn registry_lists_the_eleven_apis() {
    let apis = check_apis();
    assert_eq!(apis.len(), 11);
    for a in apis {
        assert!(a.signature.starts_with(a.name));
        let c: Check = serde_json::from_str(a.example).unwrap();
        assert_eq!(c.call.api_name(), a.name);
    }
}

#[test]
fn checks_read_events_files_clipboard_and_screen() {
    let mut d = open("Text Editor");
    step(&mut d, left(), None, "New");
    step(&mut d, left(), None, "Text");
    step(&mut d, keys("Hello, World!^c"), None, "Text");
    let p = d.probes();
    assert!(run_check(
        &CheckCall::CheckMouseClicks {
            text: " new ".into()
        },
        p
    ));
    assert!(!run_check(
        &CheckCall::CheckMouseClicks {
            text: "Save".into()
        },
        p
    ));
    assert!(run_check(
        &CheckCall::CheckKeyboardTypes {
            text: "World".into()
        },
        p
    ));
    assert!(!run_check(
        &CheckCall::CheckKeyboardTypes { text: "^c".into() },
        p
    ));
    assert!(run_check(
        &CheckCall::CheckKeyPresses { keys: "^C".into() },
        p
    ));
    assert!(run_check(
        &CheckCall::CheckKeyPresses {
            keys: "Ctrl+C".into()
        },
        p
    ));
    assert!(!run_check(
        &CheckCall::CheckKeyPresses { keys: "^v".into() },
        p
    ));
    assert!(run_check(
        &CheckCall::CheckClipboardContains {
            text: "Hello".into()
        },
        p
    ));
    assert!(run_check(
        &CheckCall::CheckTextExistsViaControl {
            text: "Hello, World!".into()
        },
        p
    ));
    assert!(run_check(
        &CheckCall::CheckTextExistsViaOcr {
            text: "hello, world!".into()
        },
        p
    ));
    assert!(!run_check(
        &CheckCall::CheckTextExistsViaControl {
            text: "hello, world!".into()
        },
        p
    ));
    assert!(run_check(
        &CheckCall::CheckTextExists {
            text: "Untitled.txt".into()
        },
        p
    ));
    assert!(run_check(
        &CheckCall::CheckWindowOpen {
            title: "text editor".into()
        },
        p
    ));
    assert!(run_check(
        &CheckCall::CheckFileExists {
            file_path: "~/Documents/meeting_notes.txt".into()
        },
        p
    ));
    assert!(run_check(
        &CheckCall::CheckDirExists {
            dir_path: "/home/user/Music".into()
        },
        p
    ));
    assert!(!run_check(
        &CheckCall::CheckDirExists {
            dir_path: "/home/user/Documents/meeting_notes.txt".into()
        },
        p
    ));
    assert!(run_check(
        &CheckCall::CheckFileContains {
            file_path: "/home/user/Documents/meeting_notes.txt".into(),
            text: "launch date".into()
        },
        p
    ));
    assert!(!run_check(
        &CheckCall::CheckFileExists {
            file_path: "/home/user/../../etc/passwd".into()
        },
        p
    ));
}

#[test]
fn ocr_sees_only_what_is_drawn() {
    let mut d = open("Writer");
    let long = "x".repeat(300);
    step(&mut d, left(), None, "Open");
    step(&mut d, keys(&format!("{long}END")), None, "File name");
    let p = d.probes();
    assert!(run_check(
        &CheckCall::CheckTextExistsViaControl {
            text: "xxxEND".into()
        },
        p
    ));
    assert!(!run_check(
        &CheckCall::CheckTextExistsViaOcr {
            text: "xxxEND".into()
        },
        p
    ));
}

#[test]
fn evaluate_fills_placeholders_negates_and_reports_progress() {
    let mut d = open("Files");
    step(&mut d, left(), None, "Documents");
    step(&mut d, left(), None, "meeting_notes.txt");
    step(&mut d, keys("minutes.txt"), None, "Name");
    step(&mut d, left(), None, "Rename");
    let mut params = ParameterSet::new();
    params.insert(
        "old".into(),
        "/home/user/Documents/meeting_notes.txt".into(),
    );
    params.insert("new".into(), "/home/user/Documents/minutes.txt".into());
    let mut checks = vec![
        chk(CheckCall::CheckMouseClicks {
            text: "Rename".into(),
        }),
        Check {
            call: CheckCall::CheckFileExists {
                file_path: "{old}".into(),
            },
            expect: false,
            message: None,
        },
        chk(CheckCall::CheckFileExists {
            file_path: "{new}".into(),
        }),
    ];
    let r = evaluate(&checks, &params, d.probes());
    assert!(r.success, "{r:?}");
    assert_eq!((r.passed, r.total, r.progress), (3, 3, 1.0));
    checks.push(Check {
        call: CheckCall::CheckKeyboardTypes {
            text: "{missing}".into(),
        },
        expect: true,
        message: Some("did not type {new}".into()),
    });
    checks.push(chk(CheckCall::CheckMouseClicks {
        text: "Rename".into(),
    }));
    let r = evaluate(&checks, &params, d.probes());
    assert!(!r.success);
    assert_eq!((r.passed, r.total), (3, 5));
    assert!((r.progress - 0.6).abs() < 1e-9);
    assert_eq!(r.message, "did not type /home/user/Documents/minutes.txt");
    // A negated check that holds fails with a generated message.
    let r = evaluate(
        &[Check {
            call: CheckCall::CheckFileExists {
                file_path: "{new}".into(),
            },
            expect: false,
            message: None,
        }],
        &params,
        d.probes(),
    );
    assert!(!r.success && r.progress == 0.0);
    assert!(
        r.message
            .contains("check_file_exists('/home/user/Documents/minutes.txt') is true"),
        "{}",
        r.message
    );
    let empty = evaluate(&[], &params, d.probes());
    assert!(empty.success && empty.progress == 1.0);
}

#[test]
fn every_resource_kind_has_a_rule_and_initial_resources_hold() {
    let catalog = Catalog::load(&workspace()).unwrap();
    for (name, spec) in &catalog.kinds {
        assert!(
            synth::env::sim::has_rule(name, spec),
            "no rule for resource kind '{name}'"
        );
    }
    let d = base().clone();
    let init = d.initial_resources();
    for r in &init {
        assert!(d.holds(r), "{r} should hold");
    }
    // The simulator agrees with the catalogue's notion of the initial desktop.
    let from_catalog = synth::resources::initial_resources(&workspace(), &catalog).unwrap();
    for r in &from_catalog {
        assert!(d.holds(r), "catalogue says {r} holds initially");
    }
    assert!(init.contains(&Resource::new(
        "docx_path",
        Some("/home/user/Documents/quarterly_report.docx".into())
    )));
    assert!(init.contains(&Resource::new(
        "email_address",
        Some("alice@example.com".into())
    )));
    assert!(!init.contains(&Resource::new("media_playing", None)));
    assert!(!d.holds(&Resource::new(
        "pdf_path",
        Some("/home/user/Documents/quarterly_report.docx".into())
    )));
    assert!(!d.holds(&Resource::new("no_such_kind", None)));
}

#[test]
fn wrong_actions_are_reported_not_fatal() {
    let mut d = open("Writer");
    let before = d.state().clone();
    let o = step(&mut d, left(), Some("999"), "");
    assert!(!o.ok && o.observation.feedback.unwrap().contains("labelled '999'"));
    let o = step(&mut d, left(), None, "Launch rockets");
    assert!(!o.ok);
    let o = step(&mut d, keys("hello"), None, "Bold");
    assert!(
        !o.ok
            && o.observation
                .feedback
                .unwrap()
                .contains("Cannot type into a Button")
    );
    let o = step(
        &mut d,
        ActionCall::WheelMouseInput { wheel_dist: 5 },
        None,
        "Bold",
    );
    assert!(!o.ok);
    // Label and text disagree: the text wins when it names a visible control.
    let save_label = o
        .observation
        .controls
        .iter()
        .find(|c| c.control_text == "Save As")
        .unwrap()
        .label
        .clone();
    let o = step(&mut d, left(), Some(&save_label), "New");
    assert!(o.ok && d.state().windows[0].doc.is_some());
    // Typing with nothing focused, odd keys and right clicks are fine.
    let mut e = base().clone();
    e.reset(&Setup::default()).unwrap();
    assert!(!step(&mut e, keys("abc"), None, "").ok);
    assert!(
        step(
            &mut e,
            ActionCall::ClickInput {
                button: "right".into(),
                double: false
            },
            None,
            "Mail"
        )
        .ok
    );
    assert!(step(&mut d, keys("{F13}^%+q"), None, "").ok);
    let _ = step(&mut d, keys("{unterminated ^"), None, "");
    // The VFS did not change by the wrong actions.
    assert_eq!(before.vfs, d.state().vfs);
}

#[test]
fn the_vfs_cannot_be_escaped() {
    let mut d = open("Terminal");
    for cmd in [
        "cat ../../../etc/passwd",
        "cd /../..",
        "mkdir ../../../../x",
        "rm /",
    ] {
        step(&mut d, keys(&format!("{cmd}{{ENTER}}")), None, "Command");
    }
    assert!(!run_check(
        &CheckCall::CheckDirExists {
            dir_path: "/x".into()
        },
        d.probes()
    ));
    assert!(run_check(
        &CheckCall::CheckDirExists {
            dir_path: "/home/user".into()
        },
        d.probes()
    ));
    // Setup paths are validated too.
    let mut e = base().clone();
    let mut setup = Setup::default();
    setup
        .files
        .insert("/home/../../../etc/evil".into(), "x".into());
    assert!(e.reset(&setup).is_err());
    // Host files are never read after loading: a path that exists on the host
    // but not in the fixtures is absent.
    assert!(d.file_text(env!("CARGO_MANIFEST_DIR")).is_none());
    assert!(d.file_text("/etc/hostname").is_none());
}
