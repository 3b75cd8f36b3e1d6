//! The x11 backend on a real display: starts its own Xvfb session, drives real
//! Debian applications (Mousepad, galculator) through XTest, reads them back through
//! the accessibility bus, the sandboxed files and the check APIs, and captures a
//! screenshot that shows the window.
//!
//! Needs `xvfb openbox dbus at-spi2-core xclip mousepad galculator` (`.ci/run`
//! installs them). Without them the test says so and passes, except under CI
//! (`CI=true`), where a missing program fails it.

mod common;

use synth::env::x11::{session, X11Desktop};
use synth::env::{run_check, Environment, Probes, Setup};
use synth::model::{Action, ActionCall, CheckCall, ParameterSet};

fn available() -> bool {
    common::x11_available(&["mousepad", "galculator", "xclip"])
}

fn click(text: &str) -> Action {
    Action {
        call: ActionCall::ClickInput {
            button: "left".into(),
            double: false,
        },
        control_label: None,
        control_text: text.into(),
    }
}

fn keys(control: &str, keys: &str) -> Action {
    Action {
        call: ActionCall::KeyboardInput { keys: keys.into() },
        control_label: None,
        control_text: control.into(),
    }
}

#[test]
fn real_applications_are_driven_observed_and_checked() {
    if !available() {
        return;
    }
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut desk = X11Desktop::open(ws, 0).unwrap();
    assert!(desk.applications().contains(&"Mousepad".to_string()));

    // Mousepad: type a line, save it with Ctrl+S into the sandboxed home.
    let obs = desk
        .reset(&Setup {
            launch: vec!["Mousepad".into()],
            ..Setup::default()
        })
        .unwrap();
    assert!(
        obs.window_title.contains("Mousepad"),
        "{}",
        obs.window_title
    );
    assert!(
        obs.controls.iter().any(|c| c.control_type == "MenuItem"),
        "{:#?}",
        obs.controls
    );
    let png = obs.screenshot(false).unwrap();
    let decoded = image_stats(&png);
    assert!(
        decoded > 50,
        "the screenshot shows the window ({decoded} colours)"
    );
    let marked = obs.screenshot(true).unwrap();
    assert_ne!(marked, png, "set-of-marks boxes are drawn over the capture");

    let out = desk.step(&keys("", "Hello from synth{enter}")).unwrap();
    assert!(out.ok);
    let out = desk.step(&keys("", "^s")).unwrap();
    assert!(out.ok);
    // The save dialog: type the name into its focused field and confirm.
    dump("after_ctrl_s", &out.observation);
    assert!(
        out.observation
            .controls
            .iter()
            .all(|c| c.control_text != "Hello from synth"),
        "the dialog hides the document's controls"
    );
    // The application sees the sandbox at /home/user: the dialog's path bar
    // names the home "user", and nothing it shows names the real folder.
    assert!(
        out.observation
            .controls
            .iter()
            .any(|c| c.control_type == "Button" && c.control_text == "user"),
        "{:#?}",
        out.observation.controls
    );
    assert!(
        out.observation
            .controls
            .iter()
            .all(|c| !c.control_text.contains("synth-x11-home")),
        "{:#?}",
        out.observation.controls
    );
    let out = desk
        .step(&keys("", "/home/user/Documents/from_synth.txt"))
        .unwrap();
    dump("after_name", &out.observation);
    assert!(out.ok);
    let out = desk.step(&click("Save")).unwrap();
    dump("after_save", &out.observation);
    assert!(out.ok, "{:?}", out.observation.feedback);
    let mut saved = None;
    for _ in 0..40 {
        saved = desk.file_text("/home/user/Documents/from_synth.txt");
        if saved.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(
        saved.as_deref().map(str::trim_end),
        Some("Hello from synth")
    );
    let params = ParameterSet::new();
    let exists = CheckCall::CheckFileContains {
        file_path: "/home/user/Documents/from_synth.txt".into(),
        text: "Hello from synth".into(),
    };
    assert!(run_check(&exists.instantiate(&params), desk.probes()));
    assert!(desk
        .probes()
        .events()
        .iter()
        .any(|e| matches!(&e.kind, synth::env::EventKind::Keys { keys } if keys == "^s")));
    assert!(
        desk.window_titles()
            .iter()
            .any(|t| t.contains("from_synth.txt")),
        "{:?}",
        desk.window_titles()
    );

    // galculator: press 7 × 6 = by the buttons' accessible names.
    let obs = desk
        .reset(&Setup {
            launch: vec!["Galculator".into()],
            ..Setup::default()
        })
        .unwrap();
    dump("galculator", &obs);
    assert!(
        desk.file_text("/home/user/Documents/from_synth.txt")
            .is_none(),
        "reset empties the home"
    );
    assert_eq!(desk.clipboard_text(), None, "reset empties the clipboard");
    for b in ["7", "*", "6", "="] {
        let out = desk.step(&click(b)).unwrap();
        assert!(out.ok, "button {b}: {:?}", out.observation.feedback);
    }
    let texts = desk.control_texts();
    eprintln!("galculator texts: {texts:?}");
    assert!(texts.iter().any(|t| t.contains("42")), "{texts:?}");
    assert!(!desk.step(&click("No such button")).unwrap().ok);
}

/// Distinct colours in a PNG (a uniform or blank capture has very few).
fn image_stats(png_bytes: &[u8]) -> usize {
    let mut dec = png::Decoder::new(std::io::Cursor::new(png_bytes));
    dec.set_transformations(png::Transformations::EXPAND);
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let ch = info.color_type.samples();
    let mut colours = std::collections::BTreeSet::new();
    for p in buf[..info.buffer_size()].chunks_exact(ch) {
        colours.insert((p[0], p[1], p[2]));
    }
    colours.len()
}

/// With SYNTH_TEST_SHOTS=DIR, writes an observation's screenshot and controls there
/// (for looking at what the test saw).
fn dump(name: &str, obs: &synth::env::Observation) {
    if let Ok(dir) = std::env::var("SYNTH_TEST_SHOTS") {
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(format!("{dir}/{name}.png"), obs.screenshot(true).unwrap());
        let _ = std::fs::write(format!("{dir}/{name}.txt"), format!("{:#?}", obs.controls));
    }
}

#[test]
fn desktops_side_by_side_do_not_share_a_display_bus_or_home() {
    if !available() {
        return;
    }
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let runs: Vec<_> = (0..2)
        .map(|slot| {
            std::thread::spawn(move || {
                let mut desk = X11Desktop::open(ws, slot).unwrap();
                desk.reset(&Setup {
                    launch: vec!["Galculator".into()],
                    files: [(
                        "/home/user/Documents/slot.txt".to_string(),
                        format!("slot {slot}"),
                    )]
                    .into(),
                    ..Setup::default()
                })
                .unwrap();
                let digit = if slot == 0 { "3" } else { "8" };
                assert!(desk.step(&click(digit)).unwrap().ok);
                // Its galculator sees this desktop's sandbox at /home/user
                // (its mount namespace, read through /proc) and runs there.
                let app = desk
                    .processes()
                    .into_iter()
                    .find(|p| command_of(*p) == "galculator")
                    .expect("galculator runs");
                assert_eq!(
                    std::fs::read_to_string(format!(
                        "/proc/{app}/root/home/user/Documents/slot.txt"
                    ))
                    .unwrap(),
                    format!("slot {slot}")
                );
                assert_eq!(
                    std::fs::read_link(format!("/proc/{app}/cwd")).unwrap(),
                    std::path::PathBuf::from("/home/user")
                );
                let typed: Vec<String> = desk
                    .probes()
                    .events()
                    .iter()
                    .map(|e| e.control_text.clone())
                    .collect();
                (
                    typed,
                    desk.file_text("/home/user/Documents/slot.txt"),
                    desk.control_texts(),
                )
            })
        })
        .collect();
    for (slot, run) in runs.into_iter().enumerate() {
        let (events, file, texts) = run.join().unwrap();
        let digit = if slot == 0 { "3" } else { "8" };
        assert_eq!(events, vec![digit.to_string()], "slot {slot}");
        assert_eq!(file.as_deref(), Some(format!("slot {slot}").as_str()));
        assert!(
            texts.iter().any(|t| t.trim() == digit),
            "slot {slot}: {texts:?}"
        );
    }
}

/// The command name of process `pid` ("" once it is gone).
fn command_of(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .unwrap_or_default()
        .trim()
        .to_string()
}

#[test]
fn a_dropped_desktop_leaves_no_process_behind() {
    if !available() {
        return;
    }
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut desk = X11Desktop::open(ws, 1).unwrap();
    desk.reset(&Setup {
        launch: vec!["Mousepad".into()],
        ..Setup::default()
    })
    .unwrap();
    let pids = desk.processes();
    let names: Vec<String> = pids.iter().map(|p| command_of(*p)).collect();
    // The display, the window manager, the application, and both buses: the
    // session's and the accessibility bus's own, which at-spi-bus-launcher
    // starts detached (it is not synth's child).
    for name in ["Xvfb", "openbox", "mousepad", "at-spi-bus-laun"] {
        assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
    }
    assert!(
        names.iter().filter(|n| *n == "dbus-daemon").count() >= 2,
        "{names:?}"
    );
    drop(desk);
    let alive: Vec<(u32, String)> = pids
        .iter()
        .filter(|p| session::is_alive(**p))
        .map(|p| (*p, command_of(*p)))
        .collect();
    assert!(alive.is_empty(), "still alive after the drop: {alive:?}");
}

/// An application already in front, named again in the launcher (as a task
/// trajectory's second node of one application does), answers at once: Mousepad
/// opens a tab in the same window, which used to count as no answer and cost
/// the launcher's whole wait (the catalogue's longest `start_secs`, 120 s).
#[test]
fn an_open_application_named_again_in_the_launcher_answers_without_the_long_wait() {
    if !common::x11_available(&["mousepad", "xclip", "xfce4-appfinder"]) {
        return;
    }
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut desk = X11Desktop::open(ws, 0).unwrap();
    let first = desk
        .reset(&Setup {
            launch: vec!["Mousepad".into()],
            ..Setup::default()
        })
        .unwrap();
    assert!(
        first.window_title.contains("Mousepad"),
        "{}",
        first.window_title
    );
    for keys_typed in [synth::env::x11::LAUNCHER_KEYS, "Mousepad"] {
        assert!(desk.step(&keys("", keys_typed)).unwrap().ok);
    }
    let started = std::time::Instant::now();
    let after = desk.step(&keys("", "{ENTER}")).unwrap();
    let took = started.elapsed();
    assert!(
        took < std::time::Duration::from_secs(45),
        "Enter in the launcher took {took:?}"
    );
    assert!(
        after.observation.window_title.contains("Mousepad"),
        "{}",
        after.observation.window_title
    );
    assert_ne!(after.observation.window_title, first.window_title);
}
