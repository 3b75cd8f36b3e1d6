//! The `synth env` subcommands: `list`, `show APP`, `play APP --actions FILE.json
//! [--screenshots DIR] [--checks FILE.json]`, `lint`, on the desktop `--env` names
//! (the simulated one by default; `--env x11` and `--env osworld` list and play
//! the real applications of `resources/x11/apps` and `resources/osworld/apps`). The CLI calls [`run_command`]; output
//! goes to the given writer.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::checks::run_check;
use super::lint::lint_workspace;
use super::sim::SimDesktop;
use super::spec::{effects_of, Op};
use super::{EnvBackend, EnvError, EnvSetup, Environment, EventKind, Observation, Setup};
use crate::model::{Action, Check, CheckCall, ParameterSet};

/// `synth env ...`
#[derive(Debug, Clone, PartialEq, Eq, clap::Subcommand)]
pub enum EnvCommand {
    /// List the simulated applications with their categories.
    List,
    /// Show an application's manual, screens, controls and effects.
    Show { app: String },
    /// Run an action list (JSON array of actions) in an application and print
    /// every observation and the value of every check API.
    Play {
        app: String,
        #[arg(long)]
        actions: PathBuf,
        /// Write step_NNN.png and step_NNN_marks.png here.
        #[arg(long)]
        screenshots: Option<PathBuf>,
        /// Also evaluate a check list: `{"checks": [...], "params": {...}}`.
        #[arg(long)]
        checks: Option<PathBuf>,
    },
    /// Validate every application file (errors name file and line).
    Lint,
}

fn w(out: &mut dyn Write, s: impl AsRef<str>) -> Result<(), EnvError> {
    writeln!(out, "{}", s.as_ref()).map_err(EnvError::Output)
}

/// Runs one `synth env` subcommand in `workspace` on the desktop `env` names.
pub fn run_command(
    cmd: &EnvCommand,
    workspace: &Path,
    env: &EnvSetup,
    out: &mut dyn Write,
) -> Result<(), EnvError> {
    if env.backend != EnvBackend::Sim {
        if let Some(done) = real_command(cmd, workspace, env, out) {
            return done;
        }
    }
    match cmd {
        EnvCommand::List => {
            let desk = SimDesktop::load(workspace)?;
            for a in desk.apps() {
                let controls: usize = a.spec.screens.values().map(|s| s.controls.len()).sum();
                w(
                    out,
                    format!(
                        "{:<16} {:<22} {} screens, {} controls, {} effects",
                        a.spec.name,
                        a.spec.category,
                        a.spec.screens.len(),
                        controls,
                        effects_of(&a.spec).len()
                    ),
                )?;
            }
            Ok(())
        }
        EnvCommand::Show { app } => {
            let desk = SimDesktop::load(workspace)?;
            let a = desk
                .app(app)
                .or_else(|| {
                    desk.apps().iter().find(|a| {
                        a.spec.name.eq_ignore_ascii_case(app)
                            || a.path.file_stem().and_then(|s| s.to_str()) == Some(app.as_str())
                    })
                })
                .ok_or_else(|| EnvError::UnknownApp(app.clone()))?;
            let kinds = desk.kinds().clone();
            let kind_of_ext = |e: &str| -> Vec<String> {
                kinds
                    .iter()
                    .filter(|(_, k)| k.file_kinds.iter().any(|f| f == e))
                    .map(|(n, _)| n.clone())
                    .collect()
            };
            w(out, format!("{} ({})", a.spec.name, a.spec.category))?;
            w(out, format!("file: {}", a.path.display()))?;
            w(out, "")?;
            w(out, a.spec.docs.trim())?;
            for (key, effects) in &a.spec.keys {
                for e in effects {
                    w(
                        out,
                        format!(
                            "  key {key}: {}",
                            effect_line(&e.op, e.describe.as_deref(), &kind_of_ext)
                        ),
                    )?;
                }
            }
            for (sid, screen) in &a.spec.screens {
                w(out, "")?;
                w(
                    out,
                    format!(
                        "screen {sid}{}",
                        if *sid == a.spec.start { " (start)" } else { "" }
                    ),
                )?;
                for (key, effects) in &screen.keys {
                    for e in effects {
                        w(
                            out,
                            format!(
                                "  key {key}: {}",
                                effect_line(&e.op, e.describe.as_deref(), &kind_of_ext)
                            ),
                        )?;
                    }
                }
                for c in &screen.controls {
                    let c = c.get_ref();
                    let mut line = format!("  [{}] {}", c.control_type.as_str(), c.text);
                    if let Some(when) = &c.when {
                        line.push_str(&format!(" (when {when})"));
                    }
                    if let Some(d) = &c.describe {
                        line.push_str(&format!(" - {d}"));
                    }
                    w(out, line)?;
                    for (ev, list) in [
                        ("click", &c.click),
                        ("enter", &c.enter),
                        ("double", &c.double),
                    ] {
                        for e in list {
                            w(
                                out,
                                format!(
                                    "      {ev}: {}",
                                    effect_line(&e.op, e.describe.as_deref(), &kind_of_ext)
                                ),
                            )?;
                        }
                    }
                }
            }
            Ok(())
        }
        EnvCommand::Play {
            app,
            actions,
            screenshots,
            checks,
        } => play(
            workspace,
            env,
            app,
            actions,
            screenshots.as_deref(),
            checks.as_deref(),
            out,
        ),
        EnvCommand::Lint => {
            let issues = lint_workspace(workspace)?;
            for i in &issues {
                w(out, i.to_string())?;
            }
            if issues.is_empty() {
                let n = super::spec::load_apps(workspace)?.len();
                w(out, format!("{n} application files OK"))?;
                Ok(())
            } else {
                Err(EnvError::LintFailed(issues.len()))
            }
        }
    }
}

fn effect_line(
    op: &Op,
    describe: Option<&str>,
    kind_of_ext: &dyn Fn(&str) -> Vec<String>,
) -> String {
    let args = serde_json::to_value(op)
        .ok()
        .and_then(|v| v.as_object().cloned())
        .map(|m| {
            m.iter()
                .filter(|(k, _)| k.as_str() != "do")
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    let produces = op.produces(kind_of_ext);
    let mut s = format!("{} {args}", op.name());
    if !produces.is_empty() {
        s.push_str(&format!(" -> {}", produces.join(", ")));
    }
    if let Some(d) = describe {
        s.push_str(&format!("  \"{d}\""));
    }
    s
}

fn print_observation(out: &mut dyn Write, obs: &Observation) -> Result<(), EnvError> {
    w(out, format!("  window: {}", obs.window_title))?;
    if let Some(f) = &obs.feedback {
        w(out, format!("  feedback: {f}"))?;
    }
    for c in &obs.controls {
        w(
            out,
            format!(
                "    {:>3} {:<9} {:<40} parent={} ({}) rect={:?}{}",
                c.label,
                c.control_type,
                format!("{:?}", c.control_text.lines().next().unwrap_or("")),
                c.parent_control_text,
                c.parent_control_type,
                c.rect,
                if c.focused { " focused" } else { "" }
            ),
        )?;
    }
    Ok(())
}

#[derive(serde::Deserialize)]
struct ChecksFile {
    checks: Vec<Check>,
    #[serde(default)]
    params: ParameterSet,
}

/// The subcommands that differ on a real desktop: `list` and `show` read the
/// backend's catalogue, `lint` loads it; None for those that are the same on
/// every backend.
fn real_command(
    cmd: &EnvCommand,
    workspace: &Path,
    env: &EnvSetup,
    out: &mut dyn Write,
) -> Option<Result<(), EnvError>> {
    let apps = match super::real::catalogue_of(workspace, env.backend) {
        Ok(a) => a,
        Err(e) => return Some(Err(e)),
    };
    let result = match cmd {
        EnvCommand::List => apps.iter().try_for_each(|a| {
            w(
                out,
                format!(
                    "{:<16} {:<22} {} (opens: {})",
                    a.name,
                    a.category,
                    a.command.join(" "),
                    if a.extensions.is_empty() {
                        "-".to_string()
                    } else {
                        a.extensions.join(", ")
                    }
                ),
            )
        }),
        EnvCommand::Show { app } => match super::real::find_app(&apps, app) {
            Some(a) => w(out, format!("{a:#?}")),
            None => Err(EnvError::UnknownApp(app.clone())),
        },
        EnvCommand::Lint => w(out, format!("{} application files OK", apps.len())),
        EnvCommand::Play { .. } => return None,
    };
    Some(result)
}

fn play(
    workspace: &Path,
    env: &EnvSetup,
    app: &str,
    actions: &Path,
    screenshots: Option<&Path>,
    checks: Option<&Path>,
    out: &mut dyn Write,
) -> Result<(), EnvError> {
    let read = |p: &Path| {
        std::fs::read_to_string(p).map_err(|e| EnvError::Actions {
            path: p.to_path_buf(),
            message: e.to_string(),
        })
    };
    let list: Vec<Action> =
        serde_json::from_str(&read(actions)?).map_err(|e| EnvError::Actions {
            path: actions.to_path_buf(),
            message: e.to_string(),
        })?;
    let check_file: Option<ChecksFile> = match checks {
        Some(p) => Some(
            serde_json::from_str(&read(p)?).map_err(|e| EnvError::Actions {
                path: p.to_path_buf(),
                message: e.to_string(),
            })?,
        ),
        None => None,
    };
    let mut desk = env.open(workspace, 0)?;
    let mut obs = desk.reset(&Setup {
        launch: vec![app.to_string()],
        ..Setup::default()
    })?;
    let before: BTreeSet<String> = files(desk.as_ref());
    if let Some(dir) = screenshots {
        std::fs::create_dir_all(dir).map_err(|source| EnvError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    let shot = |obs: &Observation, i: usize| -> Result<(), EnvError> {
        if let Some(dir) = screenshots {
            for (marks, suffix) in [(false, ""), (true, "_marks")] {
                let p = dir.join(format!("step_{i:03}{suffix}.png"));
                std::fs::write(&p, obs.screenshot(marks)?)
                    .map_err(|source| EnvError::Io { path: p, source })?;
            }
        }
        Ok(())
    };
    w(out, "step 0 (initial)")?;
    print_observation(out, &obs)?;
    shot(&obs, 0)?;
    for (i, a) in list.iter().enumerate() {
        let outcome = desk.step(a)?;
        obs = outcome.observation;
        w(
            out,
            format!(
                "step {} {} {}{} -> {}",
                i + 1,
                a.call.function_name(),
                a.control_label
                    .as_deref()
                    .map(|l| format!("[{l}] "))
                    .unwrap_or_default(),
                a.control_text,
                if outcome.ok { "ok" } else { "WRONG ACTION" }
            ),
        )?;
        print_observation(out, &obs)?;
        shot(&obs, i + 1)?;
    }
    // The value of every check API, for arguments taken from this run.
    let mut calls: Vec<CheckCall> = Vec::new();
    let probes = desk.probes();
    for e in probes.events() {
        match &e.kind {
            EventKind::Click { .. } if e.hit => calls.push(CheckCall::CheckMouseClicks {
                text: e.control_text.clone(),
            }),
            EventKind::Type { text } => {
                calls.push(CheckCall::CheckKeyboardTypes { text: text.clone() })
            }
            EventKind::Keys { keys } => {
                calls.push(CheckCall::CheckKeyPresses { keys: keys.clone() })
            }
            _ => {}
        }
    }
    let after = files(desk.as_ref());
    for f in after.difference(&before) {
        if probes.dir_exists(f) {
            calls.push(CheckCall::CheckDirExists {
                dir_path: f.clone(),
            });
        } else {
            calls.push(CheckCall::CheckFileExists {
                file_path: f.clone(),
            });
        }
    }
    for f in before.difference(&after) {
        calls.push(CheckCall::CheckFileExists {
            file_path: f.clone(),
        });
    }
    if let Some(t) = probes.clipboard_text() {
        let first = t.lines().next().unwrap_or("").to_string();
        calls.push(CheckCall::CheckClipboardContains { text: first });
    }
    for t in probes.window_titles() {
        calls.push(CheckCall::CheckWindowOpen { title: t });
    }
    calls.push(CheckCall::CheckTextExistsViaControl {
        text: obs.window_title.clone(),
    });
    calls.push(CheckCall::CheckTextExistsViaOcr {
        text: obs.window_title.clone(),
    });
    calls.push(CheckCall::CheckTextExists {
        text: obs.window_title.clone(),
    });
    let mut seen = BTreeSet::new();
    w(out, "checks:")?;
    for c in calls {
        let line = format!("{} {:?}", c.api_name(), c.args());
        if seen.insert(line.clone()) {
            w(out, format!("  {line} = {}", run_check(&c, probes)))?;
        }
    }
    if let Some(cf) = check_file {
        let r = super::checks::evaluate(&cf.checks, &cf.params, probes);
        w(
            out,
            format!(
                "evaluation: success={} progress={}/{} message={}",
                r.success, r.passed, r.total, r.message
            ),
        )?;
    }
    Ok(())
}

/// Every file and folder in the user's home, but hidden ones (applications keep
/// their settings and caches there).
fn files(desk: &dyn Environment) -> BTreeSet<String> {
    desk.probes()
        .paths_under(super::sim::HOME)
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| !p.split('/').any(|part| part.starts_with('.')))
        .collect()
}
