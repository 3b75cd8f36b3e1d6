//! Chromium on the real desktop (`--env x11`): its application menu, behind a
//! button, shows its items in a popup window of its own; a page opened from the
//! address bar is saved with Ctrl+S and its GTK dialog (off the accessibility
//! bus, deaf to Enter) confirmed with Alt+S, as the catalogue says; and when
//! synth runs as root, the browser does not.
//!
//! Needs the x11 session's programs and `chromium` (`.ci/run` installs them).
//! Without them the test says so and passes, except under CI (`CI=true`).

mod common;

use synth::env::x11::X11Desktop;
use synth::env::{Environment, Setup};
use synth::model::{Action, ActionCall};

fn keys(keys: &str) -> Action {
    Action {
        call: ActionCall::KeyboardInput { keys: keys.into() },
        control_label: None,
        control_text: String::new(),
    }
}

/// The real user id of process `pid`.
fn uid_of(pid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn command_of(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

#[test]
fn the_browser_menu_and_a_saved_page() {
    if !common::x11_available(&["chromium", "xclip"]) {
        return;
    }
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut desk = X11Desktop::open(ws, 0).unwrap();
    let app = desk.app("Chromium").cloned().unwrap();
    assert_eq!(app.menu_buttons, vec!["Chromium".to_string()]);
    let obs = desk
        .reset(&Setup {
            launch: vec!["Chromium".into()],
            ..Setup::default()
        })
        .unwrap();
    assert!(
        obs.controls
            .iter()
            .any(|c| c.control_type == "Button" && c.control_text == "Chromium"),
        "{:#?}",
        obs.controls
    );

    // Run as root, the desktop runs the browser as its unprivileged account.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 && std::env::var("SYNTH_X11_USER").is_err() {
        let browser: Vec<u32> = desk
            .processes()
            .into_iter()
            .filter(|p| command_of(*p).contains("chromium"))
            .collect();
        assert!(!browser.is_empty());
        for pid in browser {
            assert_ne!(uid_of(pid), Some(0), "{}", command_of(pid));
        }
    }

    // The menu behind the button: its items are the front window's controls.
    let click = Action {
        call: ActionCall::ClickInput {
            button: "left".into(),
            double: false,
        },
        control_label: None,
        control_text: "Chromium".into(),
    };
    let menu = desk.step(&click).unwrap().observation;
    assert!(
        menu.controls
            .iter()
            .any(|c| c.control_type == "MenuItem" && c.control_text.starts_with("Settings")),
        "{:#?}",
        menu.controls
    );
    desk.step(&keys("{ESC}")).unwrap();

    // Open a page from the address bar, save it with Ctrl+S, confirm with Alt+S.
    let page = "/home/user/Downloads/pancake_page.html";
    let saved = "/home/user/Downloads/pancake_page_saved.html";
    desk.step(&keys("^l")).unwrap();
    desk.step(&keys(&format!("^a{page}"))).unwrap();
    let shown = desk.step(&keys("{ENTER}")).unwrap().observation;
    assert!(
        shown.window_title.starts_with("Recipes"),
        "{}",
        shown.window_title
    );
    desk.step(&keys("^s")).unwrap();
    desk.step(&keys(&format!("^a{saved}"))).unwrap();
    for k in &app.confirm_keys {
        desk.step(&keys(k)).unwrap();
    }
    let mut text = None;
    for _ in 0..50 {
        text = desk.probes().file_text(saved);
        if text
            .as_deref()
            .is_some_and(|t| t.contains("Pancake recipe"))
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(
        text.as_deref()
            .is_some_and(|t| t.contains("Pancake recipe")),
        "{text:?}"
    );
}
