//! The resource contract of an instantiated subtask and the replay machinery the
//! other verification steps share.
//!
//! An [`Instance`] is a (subtask, parameter set) pair with its instruction and its
//! input and output resources (from [`crate::resources::instantiate`]). Its start
//! desktop ([`start_state`]) is the fresh simulated desktop (nothing launched) in
//! which the instance's inputs hold: inputs that do not hold on the initial desktop
//! are prepared by seeding the state (a stand-in file for a path kind, the clipboard,
//! a record of a collection, a document open in a minimised window...). An input no
//! rule can prepare makes the instance unverifiable, with the reason.
//!
//! The contract: inputs hold before the trajectory (true of the start
//! desktop by construction), outputs hold after it, in the simulator's judgement
//! ([`SimDesktop::holds`]). Discriminative power: an evaluation must fail on the
//! trajectories of other subtasks replayed from their own start desktops.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::env::sim::{vfs, Clipboard, Document, Record, HOME};
use crate::env::spec::{processing_kind, COLLECTIONS};
use crate::env::{evaluate, Environment, Setup, SimDesktop};
use crate::model::{Check, EvalResult, ParameterSet, Subtask, SubtaskId, TrajectoryAction};
use crate::resources::{instantiate, Catalog, Resource, ResourceError};

/// One instantiated subtask, with what verification needs to replay it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    pub subtask_id: SubtaskId,
    /// Index into the subtask's `available_parameters` as proposed.
    pub parameter_index: usize,
    pub application: String,
    pub instruction: String,
    pub params: ParameterSet,
    pub inputs: Vec<Resource>,
    pub outputs: Vec<Resource>,
}

impl Instance {
    /// Instance `index` of `subtask`.
    ///
    /// # Errors
    /// When the resources do not instantiate (unknown kind, missing parameter).
    pub fn new(
        catalog: &Catalog,
        subtask: &Subtask,
        index: usize,
    ) -> Result<Instance, ResourceError> {
        let (inputs, outputs) = instantiate(catalog, subtask, index)?;
        Ok(Instance {
            subtask_id: subtask.id.clone(),
            parameter_index: index,
            application: subtask.application.clone(),
            instruction: subtask.instruction(index).unwrap_or_default(),
            params: subtask
                .available_parameters
                .get(index)
                .cloned()
                .unwrap_or_default(),
            inputs,
            outputs,
        })
    }
}

/// The extensions whose open document is the `*_in_processing` kind `kind`.
fn extensions_of(kind: &str) -> Vec<&'static str> {
    [
        "txt", "md", "docx", "xlsx", "csv", "pptx", "png", "jpg", "mp4", "mkv", "pdf", "py", "js",
        "sh",
    ]
    .into_iter()
    .filter(|e| processing_kind(e) == Some(kind))
    .collect()
}

/// The fresh desktop of `inst`: `base` reset with nothing launched, then every
/// input that does not hold prepared.
///
/// # Errors
/// A sentence naming the input that cannot be prepared.
pub fn start_state(base: &SimDesktop, inst: &Instance) -> Result<SimDesktop, String> {
    let mut desk = base.clone();
    desk.reset(&Setup::default())
        .map_err(|e| format!("cannot reset the desktop: {e}"))?;
    for input in &inst.inputs {
        if !desk.holds(input) {
            seed(&mut desk, inst, input)?;
        }
        if !desk.holds(input) {
            return Err(format!(
                "input resource {input} does not hold on a fresh desktop and cannot be prepared"
            ));
        }
    }
    Ok(desk)
}

/// Makes `r` hold in `desk` (best effort; the caller checks).
fn seed(desk: &mut SimDesktop, inst: &Instance, r: &Resource) -> Result<(), String> {
    let param = r.parameter.clone().unwrap_or_default();
    let spec = desk.kinds().get(&r.kind).cloned();
    let cannot =
        || format!("input resource {r} does not hold on a fresh desktop and cannot be prepared");
    let mut state = desk.state().clone();
    match spec {
        Some(s) if s.directory => {
            let p = vfs::normalize(&param, HOME).map_err(|_| cannot())?;
            state.vfs.force_dir(&p);
        }
        Some(s) if !s.file_kinds.is_empty() => {
            let p = vfs::normalize(&param, HOME).map_err(|_| cannot())?;
            let content = match vfs::extension(&p).as_str() {
                "csv" | "xlsx" => "Item,Amount\nPrepared,1".to_string(),
                _ => format!("Prepared input {}", vfs::base_name(&p)),
            };
            state.vfs.force_file(&p, content);
        }
        _ => match r.kind.as_str() {
            "text_in_clipboard" => {
                state.clipboard = Clipboard::Text(if param.is_empty() {
                    "Prepared text".into()
                } else {
                    param
                })
            }
            "table_in_clipboard" => {
                state.clipboard = Clipboard::Table("Item,Amount\nPrepared,1".into())
            }
            "img_in_clipboard" => state.clipboard = Clipboard::Image("A prepared picture".into()),
            "media_playing" => {
                let media = inst
                    .params
                    .values()
                    .find(|v| matches!(vfs::extension(v).as_str(), "mp3" | "wav" | "mp4" | "mkv"))
                    .cloned()
                    .ok_or_else(cannot)?;
                state.playing = Some(media);
            }
            "url" => {
                state.known_urls.insert(param);
            }
            "setting_value" => {
                let (k, v) = param.split_once('=').ok_or_else(cannot)?;
                state.settings.insert(k.to_string(), v.to_string());
                state.changed_settings.insert(k.to_string());
            }
            "calc_result" => {
                desk.launch("Calculator").map_err(|_| cannot())?;
                let mut st = desk.state().clone();
                if let Some(w) = st.windows.iter_mut().find(|w| w.app == "Calculator") {
                    w.fields.insert("result".into(), "42".into());
                }
                st.active = None;
                desk.restore(st);
                return Ok(());
            }
            k if k.ends_with("_in_processing") => {
                return open_document(desk, inst, k).ok_or_else(cannot)
            }
            k => {
                let candidates: Vec<_> = COLLECTIONS.iter().filter(|c| c.kind == k).collect();
                let pick = candidates
                    .iter()
                    .find(|c| {
                        (c.name == "cards") == (inst.application == "Kanban")
                            && (c.name == "sticky_notes") == (inst.application == "Sticky Notes")
                    })
                    .or(candidates.first())
                    .ok_or_else(cannot)?;
                let mut rec = Record::new();
                rec.insert(pick.key.to_string(), param);
                state
                    .collections
                    .entry(pick.name.to_string())
                    .or_default()
                    .push(rec);
            }
        },
    }
    desk.restore(state);
    Ok(())
}

/// Opens a document of processing kind `kind` in the instance's application (or
/// the default application of its extension), then shows the desktop again.
fn open_document(desk: &mut SimDesktop, inst: &Instance, kind: &str) -> Option<()> {
    let exts = extensions_of(kind);
    let app_for = |ext: &str| -> Option<String> {
        let own = desk.app(&inst.application)?;
        if own.spec.opens.iter().any(|e| e == ext) {
            return Some(own.spec.name.clone());
        }
        desk.apps()
            .iter()
            .find(|a| a.spec.defaults.iter().any(|e| e == ext))
            .map(|a| a.spec.name.clone())
    };
    // A parameter naming an existing file of the right kind is the document.
    let existing = inst.params.values().find_map(|v| {
        let p = vfs::normalize(v, HOME).ok()?;
        let ext = vfs::extension(&p);
        (exts.contains(&ext.as_str()) && desk.state().vfs.is_file(&p)).then_some((p, ext))
    });
    let (doc, app) = match existing {
        Some((p, ext)) => {
            let text = desk.state().vfs.read(&p).ok()?.to_string();
            (Document::from_file(&p, &ext, &text), app_for(&ext)?)
        }
        None => {
            let ext = exts.iter().find(|e| app_for(e).is_some())?;
            let doc = Document {
                path: None,
                kind: ext.to_string(),
                content: String::new(),
                props: Default::default(),
                modified: false,
            };
            (doc, app_for(ext)?)
        }
    };
    desk.launch(&app).ok()?;
    let mut st = desk.state().clone();
    let w = st.windows.iter_mut().find(|w| w.app == app)?;
    w.doc = Some(doc);
    st.active = None;
    desk.restore(st);
    Some(())
}

/// What a replayed trajectory left behind and what it showed on the way.
#[derive(Debug, Clone)]
pub struct Replayed {
    pub desk: SimDesktop,
    /// Control texts (and window titles) seen in any observation.
    pub seen: BTreeSet<String>,
    /// Steps the environment reported as wrong (unknown control...).
    pub wrong_steps: usize,
}

/// Replays `actions` on a copy of `start`.
pub fn replay(start: &SimDesktop, actions: &[TrajectoryAction]) -> Replayed {
    let mut desk = start.clone();
    let mut seen = BTreeSet::new();
    let mut wrong_steps = 0;
    note_seen(&desk, &mut seen);
    for a in actions {
        if !desk.step(&a.to_action()).ok {
            wrong_steps += 1;
        }
        note_seen(&desk, &mut seen);
    }
    Replayed {
        desk,
        seen,
        wrong_steps,
    }
}

/// Adds the current window title and control texts to `seen`.
pub fn note_seen(desk: &SimDesktop, seen: &mut BTreeSet<String>) {
    let live = desk.live();
    seen.insert(live.scene.title.clone());
    for c in &live.controls {
        if !c.info.control_text.is_empty() {
            seen.insert(c.info.control_text.clone());
        }
    }
}

/// The outputs of `inst` that do not hold in `desk` (empty: the contract holds).
pub fn missing_outputs(desk: &SimDesktop, inst: &Instance) -> Vec<Resource> {
    inst.outputs
        .iter()
        .filter(|r| !desk.holds(r))
        .cloned()
        .collect()
}

/// The checks evaluated with `params` on the final desktop of a replay.
pub fn judge(checks: &[Check], params: &ParameterSet, desk: &SimDesktop) -> EvalResult {
    evaluate(checks, params, desk.probes())
}

/// A trajectory of another instance, for discriminative power.
#[derive(Debug, Clone)]
pub struct Other<'a> {
    pub instance: &'a Instance,
    pub actions: &'a [TrajectoryAction],
}

/// The first of `others` whose replayed trajectory the checks accept (the
/// evaluation lacks discriminative power), or `None` when all are rejected.
pub fn accepted_other<'a>(
    base: &SimDesktop,
    checks: &[Check],
    params: &ParameterSet,
    others: &[Other<'a>],
) -> Option<&'a Instance> {
    others.iter().find_map(|o| {
        let start = start_state(base, o.instance).ok()?;
        let r = replay(&start, o.actions);
        judge(checks, params, &r.desk).success.then_some(o.instance)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn base() -> (SimDesktop, Catalog) {
        let ws = Path::new(env!("CARGO_MANIFEST_DIR"));
        (SimDesktop::load(ws).unwrap(), Catalog::load(ws).unwrap())
    }

    fn subtask(inputs: &[&str], outputs: &[&str], params: &[(&str, &str)]) -> Subtask {
        Subtask {
            id: SubtaskId("t".into()),
            instruction_template: "x".into(),
            application: "Writer".into(),
            category: None,
            os: "Linux".into(),
            available_parameters: vec![params
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()],
            input_resources: inputs.iter().map(|s| s.to_string()).collect(),
            output_resources: outputs.iter().map(|s| s.to_string()).collect(),
            evaluation: None,
            trajectories: vec![],
            provenance: None,
        }
    }

    #[test]
    fn missing_inputs_are_prepared_and_then_hold() {
        let (desk, cat) = base();
        let s = subtask(
            &["table_in_clipboard", "docx_in_processing", "pdf_path"],
            &[],
            &[("pdf_path", "/home/user/Documents/not_there.pdf")],
        );
        let inst = Instance::new(&cat, &s, 0).unwrap();
        let start = start_state(&desk, &inst).unwrap();
        for r in &inst.inputs {
            assert!(start.holds(r), "{r}");
        }
        assert_eq!(start.state().active, None, "the desktop is shown");
    }

    #[test]
    fn unpreparable_input_is_a_reason() {
        let (desk, cat) = base();
        let s = subtask(&["setting_value"], &[], &[("setting_value", "dark")]);
        let inst = Instance::new(&cat, &s, 0).unwrap();
        let err = start_state(&desk, &inst).unwrap_err();
        assert!(err.contains("setting_value=dark"), "{err}");
    }
}
