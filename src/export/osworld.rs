//! OSWorld task JSON, one file per task (`examples/synth/<task id>.json`), plus
//! `test_all.json` (`{"synth": [ids]}`) and the files the setup uploads
//! (`files/<absolute path>`). The folder is laid out like OSWorld's
//! `evaluation_examples/`: its runner takes it as `--test_config_base_dir <out>
//! --test_all_meta_path <out>/test_all.json`.
//!
//! Each task file: `id`, `snapshot` (`init_state`), `instruction` (the goal, or
//! the steps with `--instruction steps`), `source` (`synth`), `config`,
//! `trajectory`, `related_apps` (OSWorld's application ids, from the table
//! `resources/osworld.toml`), `evaluator` {`postconfig`, `func` (a list), `conj`
//! (`and`), `result`, `expected`, `options` (lists of the same length as
//! `func`)}, `os_map_level`, and a `synth` object with the intent, what could not
//! be mapped (checks named by node, nodes named by subtask id as in the omnibench
//! export), and which desktop the task needs.
//!
//! **Which desktop.** A task whose applications are those of synth's simulated
//! desktop (every task the export replays today) says so: `synth.desktop` is
//! `simulated` and `synth.requires` tells, in a sentence, that its window titles,
//! controls and checks are the simulated applications' and that it runs as written
//! only on synth's desktop; OSWorld's VM has programs that play the same roles
//! (named by `related_apps`) but not these windows. A task made on a real
//! desktop (`--env x11`: the programs of `resources/x11/apps/`, each with its
//! OSWorld id in the table) has `synth.desktop` `real`.
//!
//! **Setup.** The initial files a task's nodes read (input resources whose
//! parameter is a path that exists on the fresh desktop; folders with all their
//! files) become an `execute` step (`mkdir -p` of their folders) and an
//! `upload_file` step. OSWorld's setup controller checks each `local_path` from its
//! own working directory and skips the upload (logging "Invalid local path") when
//! the file is not there, so the `local_path`s are absolute paths into the export's
//! `files/` folder: the tasks start with their files as long as the export stays
//! where it was written (export again with `--out` at the final place to move it).
//! The simulated desktop's non-file initial records (contacts, known URLs, mails
//! in `resources/desktop.toml`) have no OSWorld setup step and are not reproduced.
//!
//! **Checks.** The 11 check APIs map onto `check_include_exclude` with a getter:
//! - `check_file_exists` / `check_dir_exists`: `vm_command_line` running
//!   `test -f` / `test -d` that prints `synth-yes` or `synth-no`, with a `rule`
//!   expecting the right word (the other word excluded; negated checks swap them);
//! - `check_file_contains`: `vm_command_line` `cat <file>`, the text included
//!   (excluded when negated);
//! - `check_clipboard_contains`: `vm_command_line` `xclip -selection clipboard -o`;
//! - `check_window_open`: `vm_command_line` `wmctrl -l` (window titles);
//! - `check_text_exists_via_control`, `check_text_exists` and
//!   `check_text_exists_via_ocr`: the `accessibility_tree` getter, the text
//!   included (OCR is approximated by the accessibility tree: OSWorld has no OCR
//!   getter). OSWorld's rule matching is case-sensitive where ours ignores case
//!   for window titles and OCR text.
//! - `check_mouse_clicks`, `check_keyboard_types`, `check_key_presses` cannot be
//!   mapped: OSWorld scores the final state and keeps no input-event log. They are
//!   listed under `synth.unmapped_checks` with that reason.
//!
//! OmniBench checks a node while the task runs; OSWorld checks once at the end. So
//! every mapped check is also evaluated on the final desktop of the task's
//! reference trajectory (its first exported trajectory, replayed), and one that
//! does not hold there (a clipboard overwritten later, a window closed) is moved to
//! `synth.unmapped_checks` too. Identical metrics are kept once. A task left with
//! no metric is not exported (named in the report).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{json, Value};

use super::{file_stem, ExportCx, ExportError, Written};
use crate::env::{run_check, EnvBackend, Probes};
use crate::model::CheckCall;
use crate::resources::{read_toml, CatalogError};

/// OSWorld's setup step types: the `_<type>_setup` methods of its
/// `SetupController` (`desktop_env/controllers/setup.py`).
pub const SETUP_TYPES: &[&str] = &[
    "download",
    "upload_file",
    "open",
    "launch",
    "execute",
    "command",
    "sleep",
    "activate_window",
    "close_window",
    "change_wallpaper",
    "tidy_desktop",
    "act",
    "replay",
    "chrome_open_tabs",
    "chrome_close_tabs",
    "googledrive",
    "login",
    "update_browse_history",
];

/// The domain folder tasks are written under.
pub const DOMAIN: &str = "synth";

/// The table of OSWorld's application ids, under the workspace.
pub const APPS_FILE: &str = "resources/osworld.toml";

/// The application ids OSWorld's own task files use in `related_apps`.
pub const OSWORLD_APP_IDS: &[&str] = &[
    "chrome",
    "gimp",
    "libreoffice_calc",
    "libreoffice_impress",
    "libreoffice_writer",
    "os",
    "terminal",
    "thunderbird",
    "vlc",
    "vscode",
];

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct AppsFile {
    apps: BTreeMap<String, String>,
}

/// Reads [`APPS_FILE`]: application name -> OSWorld id.
///
/// # Errors
/// The file is missing or malformed, or names an id OSWorld does not use.
pub fn load_apps(workspace: &Path) -> Result<BTreeMap<String, String>, CatalogError> {
    let path = workspace.join(APPS_FILE);
    let file: AppsFile = read_toml(&path)?;
    if let Some((app, id)) = file
        .apps
        .iter()
        .find(|(_, id)| !OSWORLD_APP_IDS.contains(&id.as_str()))
    {
        return Err(CatalogError::Invalid {
            path,
            message: format!(
                "'{app}' maps to '{id}', which is not one of OSWorld's ids ({})",
                OSWORLD_APP_IDS.join(", ")
            ),
        });
    }
    Ok(file.apps)
}

/// One OSWorld metric with its getters.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    pub func: &'static str,
    pub result: Value,
    pub expected: Value,
    pub options: Value,
}

/// A POSIX shell single-quoted string.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn command(cmd: String) -> Value {
    json!({"type": "vm_command_line", "command": cmd, "shell": true})
}

fn rule(include: Vec<&str>, exclude: Vec<&str>) -> Value {
    json!({"type": "rule", "rules": {"include": include, "exclude": exclude}})
}

fn include_exclude(result: Value, text: &str, expect: bool) -> Metric {
    let expected = if expect {
        rule(vec![text], vec![])
    } else {
        rule(vec![], vec![text])
    };
    Metric {
        func: "check_include_exclude",
        result,
        expected,
        options: json!({}),
    }
}

fn test_path(flag: &str, path: &str, expect: bool) -> Metric {
    let (want, not) = if expect {
        ("synth-yes", "synth-no")
    } else {
        ("synth-no", "synth-yes")
    };
    Metric {
        func: "check_include_exclude",
        result: command(format!(
            "test {flag} {} && echo synth-yes || echo synth-no",
            sh_quote(path)
        )),
        expected: rule(vec![want], vec![not]),
        options: json!({}),
    }
}

/// The OSWorld metric of one instantiated check, or why there is none.
pub fn map_check(call: &CheckCall, expect: bool) -> Result<Metric, &'static str> {
    match call {
        CheckCall::CheckFileExists { file_path } => Ok(test_path("-f", file_path, expect)),
        CheckCall::CheckDirExists { dir_path } => Ok(test_path("-d", dir_path, expect)),
        CheckCall::CheckFileContains { file_path, text } => Ok(include_exclude(
            command(format!("cat {}", sh_quote(file_path))),
            text,
            expect,
        )),
        CheckCall::CheckClipboardContains { text } => Ok(include_exclude(
            command("xclip -selection clipboard -o".to_string()),
            text,
            expect,
        )),
        CheckCall::CheckWindowOpen { title } => Ok(include_exclude(
            command("wmctrl -l".to_string()),
            title,
            expect,
        )),
        CheckCall::CheckTextExistsViaControl { text }
        | CheckCall::CheckTextExists { text }
        | CheckCall::CheckTextExistsViaOcr { text } => Ok(include_exclude(
            json!({"type": "accessibility_tree"}),
            text,
            expect,
        )),
        CheckCall::CheckMouseClicks { .. }
        | CheckCall::CheckKeyboardTypes { .. }
        | CheckCall::CheckKeyPresses { .. } => {
            Err("input-event check: OSWorld scores the final state and keeps no input-event log")
        }
    }
}

const NOT_AT_END: &str =
    "holds while the task runs but not at the end of its reference trajectory (OSWorld checks the end)";

pub fn write(cx: &ExportCx<'_>) -> Result<Written, ExportError> {
    let mut ids: Vec<String> = Vec::new();
    let mut skipped = Vec::new();
    let mut uploads: BTreeMap<String, String> = BTreeMap::new();
    for task in cx.tasks() {
        let Some(task_id) = task.task_id.as_ref().map(|t| t.0.clone()) else {
            continue;
        };
        let Some((_, traj, replay)) = cx.trajectories().find(|(_, t, _)| t.task_id.0 == task_id)
        else {
            continue;
        };
        let Some(end) = replay.final_desktop.as_ref() else {
            continue;
        };
        let end: &dyn Probes = end.0.probes();
        let order: Vec<String> = if traj.topological_order.is_empty() {
            task.dag.nodes.clone()
        } else {
            traj.topological_order.clone()
        };
        // Nodes are named as the omnibench export names them (by subtask id).
        let node_ids = super::omnibench::node_ids(task);
        let node_id = |n: &String| node_ids.get(n).cloned().unwrap_or_else(|| n.clone());
        let mut metrics: Vec<Metric> = Vec::new();
        let mut seen = BTreeSet::new();
        let mut unmapped: Vec<Value> = Vec::new();
        for n in &order {
            let Some(nc) = cx.dataset.node_checks(task, n) else {
                unmapped.push(json!({"node": node_id(n), "check": null, "reason": "the node's subtask has no evaluation"}));
                continue;
            };
            for check in nc.checks {
                let call = check.call.instantiate(nc.params);
                let reason = match map_check(&call, check.expect) {
                    Ok(m) if run_check(&call, end) == check.expect => {
                        let key = format!("{}|{}|{}", m.func, m.result, m.expected);
                        if seen.insert(key) {
                            metrics.push(m);
                        }
                        continue;
                    }
                    Ok(_) => NOT_AT_END,
                    Err(reason) => reason,
                };
                let mut c = check.clone();
                c.call = call;
                unmapped.push(json!({"node": node_id(n), "check": c, "reason": reason}));
            }
        }
        if metrics.is_empty() {
            skipped.push(format!(
                "osworld task {task_id}: none of its checks maps to a final-state metric"
            ));
            continue;
        }
        // Initial files the nodes read.
        let mut files: BTreeMap<String, String> = BTreeMap::new();
        let mut dirs: BTreeSet<String> = BTreeSet::new();
        let base: &dyn Probes = cx.base.probes();
        for n in &task.dag.nodes {
            let Some(node) = task.nodes.get(n) else {
                continue;
            };
            let Some(sub) = cx.dataset.subtasks.get(&node.subtask_id) else {
                continue;
            };
            let Some(params) = sub.available_parameters.get(node.parameter_index) else {
                continue;
            };
            for slot in &sub.input_resources {
                let (_, name) = crate::resources::split_slot(slot);
                let Some(p) = params.get(name).filter(|p| p.starts_with('/')) else {
                    continue;
                };
                if let Some(text) = base.file_text(p) {
                    files.insert(p.clone(), text);
                } else if base.dir_exists(p) {
                    dirs.insert(p.clone());
                    for (path, is_dir) in base.paths_under(p) {
                        if is_dir {
                            dirs.insert(path);
                        } else if let Some(text) = base.file_text(&path) {
                            files.insert(path, text);
                        }
                    }
                }
            }
        }
        for path in files.keys() {
            if let Some((parent, _)) = path.rsplit_once('/') {
                if !parent.is_empty() {
                    dirs.insert(parent.to_string());
                }
            }
        }
        let mut config: Vec<Value> = Vec::new();
        if !dirs.is_empty() {
            let mut cmd = vec!["mkdir".to_string(), "-p".to_string()];
            cmd.extend(dirs.iter().cloned());
            config.push(json!({"type": "execute", "parameters": {"command": cmd, "shell": false}}));
        }
        if !files.is_empty() {
            let list: Vec<Value> = files
                .keys()
                .map(|p| {
                    let local = cx.target.join(format!("files{p}"));
                    json!({"local_path": local.to_string_lossy(), "path": p})
                })
                .collect();
            config.push(json!({"type": "upload_file", "parameters": {"files": list}}));
        }
        uploads.extend(files);
        let apps: BTreeSet<&str> = task
            .nodes
            .values()
            .map(|n| n.application.as_str())
            .collect();
        let related: BTreeSet<&str> = apps
            .iter()
            .filter_map(|a| cx.tables.osworld_apps.get(*a).map(String::as_str))
            .collect();
        let unmapped_apps: Vec<&str> = apps
            .iter()
            .copied()
            .filter(|a| !cx.tables.osworld_apps.contains_key(*a))
            .collect();
        let simulated: Vec<&str> = if cx.base.backend() == EnvBackend::Sim {
            let names = cx.base.applications();
            apps.iter()
                .copied()
                .filter(|a| names.iter().any(|n| n == a))
                .collect()
        } else {
            Vec::new()
        };
        let mut about = json!({
            "task_intent": task.task_intent,
            "reference_trajectory": traj.trajectory_id,
            "applications": apps,
        });
        if simulated.is_empty() {
            about["desktop"] = json!("real");
        } else {
            about["desktop"] = json!("simulated");
            about["requires"] = json!(format!(
                "This task was made on synth's simulated desktop: its instruction, window titles, \
                 controls and checks are those of the simulated applications {}, which OSWorld's VM \
                 does not have. It runs as written only on synth's desktop; related_apps names the \
                 OSWorld programs that play the same roles.",
                simulated.join(", ")
            ));
        }
        if !unmapped_apps.is_empty() {
            about["unmapped_apps"] = json!(unmapped_apps);
        }
        about["unmapped_checks"] = json!(unmapped);
        let record = json!({
            "id": task_id,
            "snapshot": "init_state",
            "instruction": cx.instruction(task, traj),
            "source": "synth",
            "config": config,
            "trajectory": "trajectories/",
            "related_apps": related,
            "evaluator": {
                "postconfig": [],
                "func": metrics.iter().map(|m| m.func).collect::<Vec<_>>(),
                "conj": "and",
                "result": metrics.iter().map(|m| m.result.clone()).collect::<Vec<_>>(),
                "expected": metrics.iter().map(|m| m.expected.clone()).collect::<Vec<_>>(),
                "options": metrics.iter().map(|m| m.options.clone()).collect::<Vec<_>>(),
            },
            "os_map_level": cx.level(task),
            "synth": about,
        });
        cx.write_json(
            &format!("examples/{DOMAIN}/{}.json", file_stem(&task_id)),
            &record,
        )?;
        ids.push(task_id);
    }
    for (path, text) in &uploads {
        cx.write_text(&format!("files{path}"), text)?;
    }
    cx.write_json("test_all.json", &json!({ DOMAIN: ids }))?;
    Ok(Written {
        records: ids.len(),
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_simulated_application_has_an_osworld_id() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let apps = load_apps(root).unwrap();
        let desktops = crate::env::EnvSetup::default().desktops(root).unwrap();
        for app in desktops.applications().unwrap() {
            assert!(
                apps.contains_key(&app),
                "{app} has no OSWorld id in {APPS_FILE}"
            );
        }
    }

    #[test]
    fn every_real_catalogue_application_has_an_osworld_id() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let apps = load_apps(root).unwrap();
        let catalogue = crate::env::x11::load_catalogue(root).unwrap();
        for app in catalogue.iter().filter(|a| !a.launcher) {
            assert!(
                apps.contains_key(&app.name),
                "{} (resources/x11/apps/{}.toml) has no OSWorld id in {APPS_FILE}",
                app.name,
                app.stem
            );
        }
    }

    #[test]
    fn quoting_survives_single_quotes() {
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn negation_swaps_the_rule() {
        let m = map_check(
            &CheckCall::CheckFileExists {
                file_path: "/home/user/a b.txt".into(),
            },
            false,
        )
        .unwrap();
        assert_eq!(
            m.result["command"],
            "test -f '/home/user/a b.txt' && echo synth-yes || echo synth-no"
        );
        assert_eq!(m.expected["rules"]["include"], json!(["synth-no"]));
        assert_eq!(m.expected["rules"]["exclude"], json!(["synth-yes"]));
        assert!(map_check(&CheckCall::CheckMouseClicks { text: "x".into() }, true).is_err());
    }
}
