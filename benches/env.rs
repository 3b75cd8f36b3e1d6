//! Benchmarks of the simulated desktop: one step without rendering, one screenshot
//! render, and cloning a live environment (a proxy for its memory).

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use synth::env::{Environment, Setup, SimDesktop};
use synth::model::{Action, ActionCall};

fn desk() -> SimDesktop {
    let mut d =
        SimDesktop::load(&PathBuf::from(env!("CARGO_MANIFEST_DIR"))).expect("workspace loads");
    d.reset(&Setup {
        launch: vec!["Files".into(), "Writer".into()],
        ..Setup::default()
    })
    .expect("reset");
    d
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

fn bench(c: &mut Criterion) {
    let base = desk();
    c.bench_function("env_step_no_render", |b| {
        let mut d = base.clone();
        let actions = [
            click("Open"),
            click("quarterly_report.docx"),
            click("Cancel"),
            click("Bold"),
        ];
        let mut i = 0;
        b.iter(|| {
            let out = d.step(&actions[i % actions.len()]);
            i += 1;
            std::hint::black_box(out.ok)
        })
    });
    let mut shown = base.clone();
    shown.step(&click("Open"));
    let obs = shown.observe();
    c.bench_function("env_render_png", |b| {
        b.iter(|| std::hint::black_box(obs.screenshot(true).map(|p| p.len())))
    });
    c.bench_function("env_clone_live_environment", |b| {
        b.iter(|| std::hint::black_box(base.clone()))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
