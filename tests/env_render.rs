//! Screenshot rendering: determinism, rect bounds, and set-of-marks.

use std::path::PathBuf;

use sha2::{Digest, Sha256};
use synth::env::{Environment, Setup, SimDesktop, SCREEN_HEIGHT, SCREEN_WIDTH};
use synth::model::{Action, ActionCall};

fn desk() -> SimDesktop {
    SimDesktop::load(&PathBuf::from(env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn hash(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

fn click(d: &mut SimDesktop, text: &str) {
    d.step(&Action {
        call: ActionCall::ClickInput {
            button: "left".into(),
            double: false,
        },
        control_label: None,
        control_text: text.into(),
    });
}

#[test]
fn rendering_is_deterministic_and_png() {
    let mut a = desk();
    let mut b = desk();
    for d in [&mut a, &mut b] {
        d.reset(&Setup {
            launch: vec!["Writer".into()],
            ..Setup::default()
        })
        .unwrap();
        click(d, "Open");
        click(d, "quarterly_report.docx");
    }
    let pa = a.observe().screenshot(false).unwrap();
    let pb = b.observe().screenshot(false).unwrap();
    assert_eq!(&pa[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(hash(&pa), hash(&pb));
    // The same scene through serde gives the same bytes.
    let scene: synth::env::Scene =
        serde_json::from_str(&serde_json::to_string(&a.observe().scene).unwrap()).unwrap();
    assert_eq!(
        hash(&synth::env::render_png(&scene, false).unwrap()),
        hash(&pa)
    );
    let marked = a.observe().screenshot(true).unwrap();
    assert_ne!(hash(&marked), hash(&pa));
}

#[test]
fn every_rect_of_every_app_lies_inside_the_screenshot() {
    let mut d = desk();
    let names: Vec<String> = d.apps().iter().map(|a| a.spec.name.clone()).collect();
    d.reset(&Setup::default()).unwrap();
    let check = |d: &SimDesktop| {
        let obs = d.observe();
        assert!(!obs.controls.is_empty());
        for c in &obs.controls {
            let [l, t, r, b] = c.rect;
            assert!(
                l >= 0 && t >= 0 && r <= SCREEN_WIDTH as i32 && b <= SCREEN_HEIGHT as i32,
                "{c:?}"
            );
            assert!(l < r && t < b, "{c:?}");
        }
        let labels: std::collections::BTreeSet<&String> =
            obs.controls.iter().map(|c| &c.label).collect();
        assert_eq!(labels.len(), obs.controls.len());
    };
    check(&d);
    for n in &names {
        d.launch(n).unwrap();
        check(&d);
        // Visit every screen reachable by one goto from the start screen.
        let app = d.app(n).unwrap().spec.clone();
        for sid in app.screens.keys() {
            let mut e = d.clone();
            let mut st = e.state().clone();
            let w = st.active.unwrap();
            st.windows[w].screen = sid.clone();
            e.restore(st);
            check(&e);
        }
    }
}

/// Writes a few screenshots to `target/env-shots` for people to look at.
#[test]
fn sample_screenshots() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("env-shots");
    std::fs::create_dir_all(&dir).unwrap();
    let mut d = desk();
    d.reset(&Setup::default()).unwrap();
    std::fs::write(
        dir.join("desktop.png"),
        d.observe().screenshot(true).unwrap(),
    )
    .unwrap();
    d.reset(&Setup {
        launch: vec!["Files".into(), "Writer".into()],
        ..Setup::default()
    })
    .unwrap();
    click(&mut d, "Open");
    click(&mut d, "quarterly_report.docx");
    click(&mut d, "Open file");
    std::fs::write(
        dir.join("writer.png"),
        d.observe().screenshot(false).unwrap(),
    )
    .unwrap();
    std::fs::write(
        dir.join("writer_marks.png"),
        d.observe().screenshot(true).unwrap(),
    )
    .unwrap();
    d.launch("Files").unwrap();
    click(&mut d, "Documents");
    std::fs::write(dir.join("files.png"), d.observe().screenshot(true).unwrap()).unwrap();
    d.launch("Calculator").unwrap();
    std::fs::write(
        dir.join("calculator.png"),
        d.observe().screenshot(false).unwrap(),
    )
    .unwrap();
    d.launch("Mail").unwrap();
    click(&mut d, "Compose");
    std::fs::write(dir.join("mail.png"), d.observe().screenshot(false).unwrap()).unwrap();
    click(&mut d, "Send");
    std::fs::write(
        dir.join("dialog.png"),
        d.observe().screenshot(false).unwrap(),
    )
    .unwrap();
}
