//! Preparing a subtask's inputs on the simulated desktop: the rules that make an
//! input resource hold on a fresh desktop by seeding the state (a stand-in file for
//! a path kind, the clipboard, a record of a collection, a document open in a
//! minimised window...). [`crate::env::Environment::prepare`] of [`SimDesktop`].

use super::vfs::{self, HOME};
use super::{Clipboard, Document, Record, SimDesktop};
use crate::env::spec::{processing_kind, COLLECTIONS};
use crate::model::ParameterSet;
use crate::resources::Resource;

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

/// Makes the input `r` of a subtask of `app` with `params` hold in `desk` (best
/// effort; the caller checks).
pub fn prepare(
    desk: &mut SimDesktop,
    app: &str,
    r: &Resource,
    params: &ParameterSet,
) -> Result<(), String> {
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
            state.vfs.force_file(&p, stand_in(&p));
        }
        _ => match r.kind.as_str() {
            "text_in_clipboard" => {
                state.clipboard = Clipboard::Text(if param.is_empty() {
                    "Prepared text".into()
                } else {
                    param
                })
            }
            "code_in_clipboard" => state.clipboard = Clipboard::Text("print('prepared')".into()),
            "number_in_clipboard" => state.clipboard = Clipboard::Text("42".into()),
            "name_in_clipboard" => state.clipboard = Clipboard::Text("Prepared item".into()),
            "address_in_clipboard" => {
                state.clipboard = Clipboard::Text("https://example.com/prepared".into())
            }
            "path_in_clipboard" => {
                state.clipboard = Clipboard::Text("/home/user/Documents/prepared.txt".into())
            }
            "table_in_clipboard" => {
                state.clipboard = Clipboard::Table("Item,Amount\nPrepared,1".into())
            }
            "img_in_clipboard" => state.clipboard = Clipboard::Image("A prepared picture".into()),
            "media_playing" => {
                let media = params
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
                return open_document(desk, app, params, k).ok_or_else(cannot)
            }
            k => {
                let candidates: Vec<_> = COLLECTIONS.iter().filter(|c| c.kind == k).collect();
                let pick = candidates
                    .iter()
                    .find(|c| {
                        (c.name == "cards") == (app == "Kanban")
                            && (c.name == "sticky_notes") == (app == "Sticky Notes")
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
fn open_document(
    desk: &mut SimDesktop,
    app: &str,
    params: &ParameterSet,
    kind: &str,
) -> Option<()> {
    let exts = extensions_of(kind);
    let app_for = |ext: &str| -> Option<String> {
        let own = desk.app(app)?;
        if own.spec.opens.iter().any(|e| e == ext) {
            return Some(own.spec.name.clone());
        }
        desk.apps()
            .iter()
            .find(|a| a.spec.defaults.iter().any(|e| e == ext))
            .map(|a| a.spec.name.clone())
    };
    // A parameter naming an existing file of the right kind is the document.
    let existing = params.values().find_map(|v| {
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

/// The content of a prepared input file at `path` (every backend writes the same):
/// a small table for spreadsheet files, a line naming the file otherwise.
pub fn stand_in(path: &str) -> String {
    match vfs::extension(path).as_str() {
        "csv" | "xlsx" => "Item,Amount\nPrepared,1".to_string(),
        _ => format!("Prepared input {}", vfs::base_name(path)),
    }
}
