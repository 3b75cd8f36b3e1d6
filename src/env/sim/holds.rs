//! When a resource holds in a desktop state: one rule per resource kind of
//! `resources/resources.toml`. Path kinds are generic (the file exists and its
//! extension is one of the kind's `file_kinds`; `directory` kinds: the folder
//! exists); every other kind has a rule in [`NON_PATH_RULES`].

use std::collections::{BTreeMap, BTreeSet};

use super::vfs::{self, Node, HOME};
use super::{Clipboard, DesktopState};
use crate::env::spec::{processing_kind, COLLECTIONS};
use crate::resources::{KindSpec, Resource};

/// The non-path kinds with a rule, and the rule in words.
pub const NON_PATH_RULES: &[(&str, &str)] = &[
    ("text_in_clipboard", "the clipboard holds text"),
    ("code_in_clipboard", "the clipboard holds text"),
    ("number_in_clipboard", "the clipboard holds text"),
    ("name_in_clipboard", "the clipboard holds text"),
    ("address_in_clipboard", "the clipboard holds text"),
    ("path_in_clipboard", "the clipboard holds text"),
    ("table_in_clipboard", "the clipboard holds a table"),
    ("img_in_clipboard", "the clipboard holds an image"),
    (
        "txt_in_processing",
        "a window has a .txt or .md document open",
    ),
    ("docx_in_processing", "a window has a .docx document open"),
    (
        "xlsx_in_processing",
        "a window has a .xlsx or .csv workbook open",
    ),
    ("pptx_in_processing", "a window has a .pptx deck open"),
    ("img_in_processing", "a window has a .png/.jpg image open"),
    ("video_in_processing", "a window has a .mp4/.mkv video open"),
    ("pdf_in_processing", "a window has a .pdf open"),
    (
        "code_in_processing",
        "a window has a .py/.js/.rs/.sh file open",
    ),
    ("email_address", "a contact has this e-mail address"),
    ("email_sent", "a sent mail has this subject"),
    (
        "chat_message_sent",
        "a chat message was sent to this contact",
    ),
    ("calendar_event", "a calendar event has this title"),
    ("todo_item", "a to-do or Kanban card has this title"),
    ("note_title", "a note or sticky note has this title"),
    ("playlist_name", "a playlist has this name"),
    ("recipe_name", "a recipe has this name"),
    ("expense_record", "an expense has this label"),
    ("url", "the browser can load this address (a known site)"),
    ("bookmark", "a bookmark for this address exists"),
    (
        "feed_subscription",
        "the feed reader is subscribed to this address",
    ),
    ("media_playing", "a media file is playing"),
    (
        "setting_value",
        "a changed setting has this value (or `key=value`)",
    ),
    ("calc_result", "the Calculator shows a result"),
];

/// Is there a rule for `kind` (given its catalogue entry)?
pub fn has_rule(kind: &str, spec: &KindSpec) -> bool {
    spec.is_path() || NON_PATH_RULES.iter().any(|(k, _)| *k == kind)
}

fn record_holds(state: &DesktopState, kind: &str, param: &str) -> bool {
    COLLECTIONS.iter().filter(|c| c.kind == kind).any(|c| {
        state
            .collections
            .get(c.name)
            .is_some_and(|rs| rs.iter().any(|r| r.get(c.key).is_some_and(|v| v == param)))
    })
}

fn url_key(u: &str) -> String {
    u.trim_start_matches("https://")
        .trim_start_matches("http://")
        .trim_start_matches("www.")
        .trim_end_matches('/')
        .to_ascii_lowercase()
}

/// Does `r` hold in `state`?
pub fn holds(state: &DesktopState, kinds: &BTreeMap<String, KindSpec>, r: &Resource) -> bool {
    let Some(spec) = kinds.get(&r.kind) else {
        return false;
    };
    let param = r.parameter.as_deref().unwrap_or("");
    if spec.directory {
        return vfs::normalize(param, HOME).is_ok_and(|p| state.vfs.is_dir(&p));
    }
    if !spec.file_kinds.is_empty() {
        return vfs::normalize(param, HOME)
            .is_ok_and(|p| state.vfs.is_file(&p) && spec.file_kinds.contains(&vfs::extension(&p)));
    }
    let open = |k: &str| {
        state.windows.iter().any(|w| {
            w.doc
                .as_ref()
                .is_some_and(|d| processing_kind(&d.kind) == Some(k))
        })
    };
    match r.kind.as_str() {
        // The simulated clipboard does not tell prose from a number or a name:
        // what the text is comes from the copy that put it there.
        "text_in_clipboard"
        | "code_in_clipboard"
        | "number_in_clipboard"
        | "name_in_clipboard"
        | "address_in_clipboard"
        | "path_in_clipboard" => {
            matches!(&state.clipboard, Clipboard::Text(t) if !t.is_empty())
        }
        "table_in_clipboard" => matches!(state.clipboard, Clipboard::Table(_)),
        "img_in_clipboard" => matches!(state.clipboard, Clipboard::Image(_)),
        k if k.ends_with("_in_processing") => open(k),
        "url" => {
            let want = url_key(param);
            !want.is_empty() && state.known_urls.iter().any(|u| url_key(u) == want)
        }
        "bookmark" => {
            let want = url_key(param);
            state.collections.get("bookmarks").is_some_and(|rs| {
                rs.iter()
                    .any(|b| b.get("url").is_some_and(|u| url_key(u) == want))
            })
        }
        "media_playing" => state.playing.is_some(),
        "setting_value" => state.changed_settings.iter().any(|k| {
            let v = state.settings.get(k).map(String::as_str).unwrap_or("");
            v == param || format!("{k}={v}") == param
        }),
        "calc_result" => state.windows.iter().any(|w| {
            w.app == "Calculator" && w.fields.get("result").is_some_and(|v| !v.is_empty())
        }),
        other => record_holds(state, other, param),
    }
}

/// Every resource that holds in `state`.
pub fn enumerate(state: &DesktopState, kinds: &BTreeMap<String, KindSpec>) -> BTreeSet<Resource> {
    let mut out = BTreeSet::new();
    for (path, node) in state.vfs.paths() {
        for (name, spec) in kinds {
            let hit = match node {
                Node::Dir => spec.directory,
                Node::File { .. } => spec.file_kinds.contains(&vfs::extension(path)),
            };
            if hit {
                out.insert(Resource::new(name.clone(), Some(path.clone())));
            }
        }
    }
    for (name, spec) in kinds {
        if spec.is_path() {
            continue;
        }
        if !spec.parameter {
            let r = Resource::new(name.clone(), None);
            if holds(state, kinds, &r) {
                out.insert(r);
            }
            continue;
        }
        let mut candidates: BTreeSet<String> = BTreeSet::new();
        for c in COLLECTIONS.iter().filter(|c| c.kind == name) {
            for r in state.collections.get(c.name).into_iter().flatten() {
                if let Some(v) = r.get(c.key) {
                    candidates.insert(v.clone());
                }
            }
        }
        match name.as_str() {
            "url" => candidates.extend(state.known_urls.iter().cloned()),
            "setting_value" => {
                for k in &state.changed_settings {
                    if let Some(v) = state.settings.get(k) {
                        candidates.insert(v.clone());
                    }
                }
            }
            _ => {}
        }
        for c in candidates {
            let r = Resource::new(name.clone(), Some(c));
            if holds(state, kinds, &r) {
                out.insert(r);
            }
        }
    }
    out
}
