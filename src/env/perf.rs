//! `synth perf env`: how long one step takes on a desktop (the action, the wait for
//! the application to settle, the screenshot and the controls), measured on the
//! real backend the command names, over a cycle of harmless actions: open the
//! active application's first menu, close it with Escape.

use std::time::Instant;

use serde::Serialize;

use super::{EnvError, Environment, Setup};
use crate::model::{Action, ActionCall};

/// Step latencies in milliseconds.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StepLatency {
    pub backend: String,
    pub application: String,
    pub steps: usize,
    pub median_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
    /// Observing alone (screenshot and controls, no action).
    pub observe_median_ms: f64,
    /// Resetting the desktop and launching the application.
    pub reset_ms: f64,
}

impl std::fmt::Display for StepLatency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} desktop, {}: {} steps (action + screenshot + controls): median {:.1} ms, \
             p95 {:.1} ms, max {:.1} ms; observe alone: median {:.1} ms; reset and launch: {:.0} ms",
            self.backend,
            self.application,
            self.steps,
            self.median_ms,
            self.p95_ms,
            self.max_ms,
            self.observe_median_ms,
            self.reset_ms
        )
    }
}

/// The value at quantile `q` (0..=1) of sorted `v` (nearest rank).
fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

/// Measures `steps` steps of `app` on `env`.
///
/// # Errors
/// The backend's, or an application without a menu or button to open.
pub fn step_latency(
    env: &mut dyn Environment,
    app: &str,
    steps: usize,
) -> Result<StepLatency, EnvError> {
    let t = Instant::now();
    let obs = env.reset(&Setup {
        launch: vec![app.to_string()],
        ..Setup::default()
    })?;
    let reset_ms = t.elapsed().as_secs_f64() * 1000.0;
    let menu = obs
        .controls
        .iter()
        .find(|c| c.control_type == "MenuItem")
        .or_else(|| obs.controls.iter().find(|c| c.control_type == "Button"))
        .ok_or_else(|| EnvError::Setup(format!("{app} shows no menu or button to click")))?
        .control_text
        .clone();
    let open = Action {
        call: ActionCall::ClickInput {
            button: "left".into(),
            double: false,
        },
        control_label: None,
        control_text: menu,
    };
    let close = Action {
        call: ActionCall::KeyboardInput {
            keys: "{ESC}".into(),
        },
        control_label: None,
        control_text: String::new(),
    };
    let mut times = Vec::with_capacity(steps);
    let mut observe = Vec::with_capacity(steps);
    for i in 0..steps {
        let action = if i % 2 == 0 { &open } else { &close };
        let t = Instant::now();
        env.step(action)?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        let t = Instant::now();
        env.observe()?;
        observe.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    observe.sort_by(f64::total_cmp);
    Ok(StepLatency {
        backend: env.backend().name().to_string(),
        application: app.to_string(),
        steps,
        median_ms: quantile(&times, 0.5),
        p95_ms: quantile(&times, 0.95),
        max_ms: times.last().copied().unwrap_or(0.0),
        observe_median_ms: quantile(&observe, 0.5),
        reset_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_nearest_rank() {
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(quantile(&v, 0.5), 10.0);
        assert_eq!(quantile(&v, 0.95), 19.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
    }

    #[test]
    fn the_simulated_desktop_is_measured_too() {
        let mut desk =
            crate::env::SimDesktop::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
        let r = step_latency(&mut desk, "Text Editor", 6).unwrap();
        assert_eq!(r.steps, 6);
        assert_eq!(r.backend, "sim");
        assert!(r.p95_ms >= r.median_ms);
    }
}
