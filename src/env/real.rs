//! What the real-desktop backends share ([`super::x11`] on a local X display,
//! [`super::osworld`] in an OSWorld VM): the application catalogue's entries
//! (`resources/<backend>/apps/*.toml`), accessibility nodes and their translation
//! into the simulated desktop's control vocabulary, the files a fresh desktop
//! starts with and inputs are copied from, the scene of an observation, and the
//! resource predicates and control texts the check APIs read.
//!
//! Nothing here talks to a display or a server: each backend reads its own
//! accessibility tree into [`Node`]s and its own files, then calls these.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Action, ControlInfo, EnvError, Observation, Probes, Scene, SceneControl};
use crate::resources::{Catalog, Resource};

/// The task-side path of the user's home on every real desktop.
pub const HOME: &str = "/home/user";

/// One application of a real desktop's catalogue (`resources/<backend>/apps/<stem>.toml`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppEntry {
    /// The name tasks and `Setup::launch` use.
    pub name: String,
    pub category: String,
    /// Program and arguments that start it.
    pub command: Vec<String>,
    /// Extra arguments that open a file; `{path}` is the file's task path
    /// (`/home/user/...`, where the application sees the sandbox).
    #[serde(default)]
    pub open: Vec<String>,
    /// Environment variables the desktop gives every program it starts (the
    /// launcher and what it starts too); `{sandbox}` in a value is the
    /// sandbox's real path, the same folder the applications see at
    /// `/home/user`. LibreOffice keys its single running instance on its
    /// profile's path, which is `/home/user/...` on every desktop: naming the
    /// profile by its real path keeps the desktops of `--jobs N` from handing
    /// their documents to one another's LibreOffice.
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// The class part of its windows' WM_CLASS.
    pub window_class: String,
    /// Its name on the accessibility bus.
    pub accessible_name: String,
    /// File extensions it opens (lower case, no dot).
    #[serde(default)]
    pub extensions: Vec<String>,
    /// The desktop's launcher (at most one): Alt+F2 opens it, and typing an
    /// application's name and Enter starts that application. Not a task
    /// application: `applications()` and the explorer leave it out.
    #[serde(default)]
    pub launcher: bool,
    /// How long, in seconds, the application may take after its window shows
    /// until its controls can be read (30 when absent): an office suite under
    /// load needs more than a text editor.
    #[serde(default = "default_start_secs")]
    pub start_secs: u64,
    /// Buttons that open a menu as a menu bar's menus do (an application menu
    /// behind a button, as a browser's "Chromium" button): the explorer reads
    /// their items too.
    #[serde(default)]
    pub menu_buttons: Vec<String>,
    /// Menu items the explorer cannot find by reading the menus' first level:
    /// an item of a submenu, or of no menu at all. Each is reached by its key
    /// combination or through its submenus, and probed and tried as a menu's
    /// item is.
    #[serde(default)]
    pub items: Vec<ExtraItem>,
    /// A control's text that shows once the application is ready: a window
    /// may show some controls before its menus (Thunderbird's first screen),
    /// and its start waits for this one too (within `start_secs`).
    #[serde(default)]
    pub ready_text: Option<String>,
    /// Keys that confirm a file dialog when Enter leaves it open and the
    /// accessibility bus shows no button to click, tried in order: Chromium's
    /// GTK dialogs are not on the bus and ignore Enter, but answer their
    /// buttons' mnemonics (Alt+S is Save).
    #[serde(default)]
    pub confirm_keys: Vec<String>,
    /// What a person types into the application to have it work something
    /// out when it reads no file (a calculator's sums, "1234*56"): the
    /// explorer's compute family types each, then Enter, and copies what the
    /// window shows; a run is kept when the clipboard then holds a value the
    /// entry does not (the application computed it).
    #[serde(default)]
    pub entries: Vec<String>,
    /// Whether the application edits its documents (true when absent): a
    /// player or a browser does not, and typed keys only steer it, so the
    /// explorer does not try its items after typing a line.
    #[serde(default = "default_edits")]
    pub edits: bool,
    /// The file stem (`mousepad` for mousepad.toml).
    #[serde(skip)]
    pub stem: String,
}

fn default_start_secs() -> u64 {
    30
}

fn default_edits() -> bool {
    true
}

/// A menu item of the catalogue (see [`AppEntry::items`]): `keys` or `via`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraItem {
    /// The item's name, as the application's menus or documentation name it
    /// ("Save page as...", "Saved Message...").
    pub item: String,
    /// Its keys, in action notation ("^s" for Ctrl+S).
    #[serde(default)]
    pub keys: Option<String>,
    /// The menus clicked, in order, before the item: the top-level menu, then
    /// each submenu (["File", "Open"]).
    #[serde(default)]
    pub via: Vec<String>,
}

/// Loads the catalogue in the folder `dir`, sorted by name.
///
/// # Errors
/// A missing folder, an unreadable file, or a file that is not a valid entry
/// (the error names the file and line).
pub fn load_catalogue(dir: &Path) -> Result<Vec<AppEntry>, EnvError> {
    let entries = std::fs::read_dir(dir).map_err(|source| EnvError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut apps = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|source| EnvError::Io {
                path: dir.to_path_buf(),
                source,
            })?
            .path();
        if path.extension().and_then(|e| e.to_str()) == Some("toml") {
            apps.push(load_entry(&path)?);
        }
    }
    apps.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(apps)
}

fn load_entry(path: &Path) -> Result<AppEntry, EnvError> {
    let text = std::fs::read_to_string(path).map_err(|source| EnvError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut app: AppEntry = toml::from_str(&text).map_err(|e| EnvError::Spec {
        path: path.to_path_buf(),
        line: e.span().map_or(0, |s| {
            text[..s.start.min(text.len())].matches('\n').count() + 1
        }),
        message: e.message().to_string(),
    })?;
    if let Some(bad) = app
        .items
        .iter()
        .find(|i| i.keys.is_some() != i.via.is_empty())
    {
        return Err(EnvError::Spec {
            path: path.to_path_buf(),
            line: 1,
            message: format!("item '{}' needs either `keys` or `via`, not both", bad.item),
        });
    }
    if app.command.is_empty() {
        return Err(EnvError::Spec {
            path: path.to_path_buf(),
            line: 1,
            message: "command must name a program".into(),
        });
    }
    app.stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    Ok(app)
}

/// Loads the catalogue of the real backend `backend` in `workspace`
/// (`resources/<backend>/apps`), sorted by name.
///
/// # Errors
/// See [`load_catalogue`].
pub fn catalogue_of(
    workspace: &Path,
    backend: super::EnvBackend,
) -> Result<Vec<AppEntry>, EnvError> {
    load_catalogue(
        &workspace
            .join("resources")
            .join(backend.name())
            .join("apps"),
    )
}

/// The entry named `name`: exact name, then name ignoring case, then file stem.
pub fn find_app<'a>(apps: &'a [AppEntry], name: &str) -> Option<&'a AppEntry> {
    apps.iter()
        .find(|a| a.name == name)
        .or_else(|| apps.iter().find(|a| a.name.eq_ignore_ascii_case(name)))
        .or_else(|| apps.iter().find(|a| a.stem.eq_ignore_ascii_case(name)))
}

/// One accessible object that is showing on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    /// The AT-SPI role name ("push button", "menu item", "text"...).
    pub role: String,
    /// Screen box: left, top, right, bottom.
    pub rect: [i32; 4],
    /// Index of the parent node in the list (None for the top).
    pub parent: Option<usize>,
    pub focused: bool,
    /// A window the window manager has made the active one (AT-SPI's Active
    /// state): of two windows with one title, the one in front.
    pub active: bool,
    /// The text it shows, for text-like objects whose name is empty (a
    /// calculator's display, a label); at most 200 characters.
    pub text: String,
}

/// The control of `controls` an action names on a real desktop: as
/// [`resolve_control`] does, else, for an action naming a document by its text
/// (a text control's name is its content, several lines), the text control
/// whose first line is the same: the task's earlier steps may have added lines
/// to the file since the demonstration was recorded.
///
/// [`resolve_control`]: super::resolve_control
pub fn resolve_on_screen(controls: &[ControlInfo], action: &Action) -> Option<usize> {
    super::resolve_control(controls, action).or_else(|| {
        let (first, _) = action.control_text.trim().split_once('\n')?;
        let first = first.trim();
        controls.iter().position(|c| {
            matches!(c.control_type.as_str(), "Edit" | "Document")
                && c.control_text.lines().next().map(str::trim) == Some(first)
        })
    })
}

/// The simulated desktop's control type for an AT-SPI role name; None for roles
/// that are layout, not controls.
pub fn control_type(role: &str) -> Option<&'static str> {
    Some(match role {
        "push button" | "toggle button" | "button" => "Button",
        "menu item" | "check menu item" | "radio menu item" | "menu" => "MenuItem",
        "text" | "entry" | "password text" | "editbar" => "Edit",
        "document text" | "document frame" | "terminal" => "Document",
        "check box" => "CheckBox",
        "radio button" => "RadioButton",
        "list item" | "table cell" | "tree item" => "ListItem",
        "page tab" => "TabItem",
        "combo box" => "ComboBox",
        "label" | "static" => "Text",
        "link" => "Hyperlink",
        "spin button" => "Spinner",
        "slider" => "Slider",
        _ => return None,
    })
}

/// Is a box on a screen of `size` (closed menus report far-off extents)?
fn on_screen(r: [i32; 4], size: (u32, u32)) -> bool {
    r[0] >= 0
        && r[1] >= 0
        && r[2] > r[0]
        && r[3] > r[1]
        && r[0] < size.0 as i32
        && r[1] < size.1 as i32
}

/// Roles of the nodes that are windows.
pub const WINDOW_ROLES: &[&str] = &["frame", "dialog", "file chooser", "alert", "window"];

/// Controls of an application's nodes on a screen of `size`: the showing,
/// on-screen nodes with a control role, labelled 1, 2, ... in tree order, each
/// with its nearest control (or window) ancestor as parent. With `window`, only
/// the nodes inside the window of that title (a dialog hides the main window's
/// controls), when there is one.
pub fn controls_in(nodes: &[Node], window: Option<&str>, size: (u32, u32)) -> Vec<ControlInfo> {
    // Of several windows with the title (two instances of one program), the
    // active one.
    let top = window.and_then(|title| {
        let titled = |n: &&Node| WINDOW_ROLES.contains(&n.role.as_str()) && n.name == title;
        let active = nodes.iter().position(|n| titled(&n) && n.active);
        active.or_else(|| nodes.iter().position(|n| titled(&n)))
    });
    let root = |mut i: usize| -> usize {
        while let Some(p) = nodes[i].parent {
            i = p;
        }
        i
    };
    // A menu that pops up in an untitled window of its own (a browser's
    // application menu) is the window in front's, whatever its title.
    let popups: Vec<usize> = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.role == "menu")
        .map(|(i, _)| root(i))
        .filter(|&r| WINDOW_ROLES.contains(&nodes[r].role.as_str()) && nodes[r].name.is_empty())
        .collect();
    let inside = |mut i: usize| -> bool {
        let Some(top) = top else {
            return true;
        };
        loop {
            if i == top {
                return true;
            }
            match nodes[i].parent {
                Some(p) => i = p,
                None => return popups.contains(&i),
            }
        }
    };
    let mut out = Vec::new();
    // The control each node became (its index in `out`), to mark the focus.
    let mut made: Vec<Option<usize>> = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        if !inside(i) {
            continue;
        }
        let Some(ty) = control_type(&n.role) else {
            continue;
        };
        // GTK pads menu item names where the accelerator column goes.
        let shown = if n.name.trim().is_empty() {
            n.text.trim()
        } else {
            n.name.trim()
        };
        if !on_screen(n.rect, size) || (shown.is_empty() && !matches!(ty, "Edit" | "Document")) {
            continue;
        }
        let (pt, pty) = parent_of(nodes, n.parent);
        made[i] = Some(out.len());
        out.push(ControlInfo {
            label: (out.len() + 1).to_string(),
            control_text: shown.to_string(),
            control_type: ty.to_string(),
            parent_control_text: pt,
            parent_control_type: pty,
            rect: n.rect,
            focused: false,
        });
    }
    // The focus is in the nearest control at or above the focused node (a
    // document's focused paragraph is no control; its document is).
    for (i, n) in nodes.iter().enumerate() {
        if !n.focused {
            continue;
        }
        let mut at = Some(i);
        while let Some(j) = at {
            if let Some(k) = made[j] {
                out[k].focused = true;
                break;
            }
            at = nodes[j].parent;
        }
    }
    out
}

/// The text and type of the nearest control (or window) ancestor from `parent` up.
fn parent_of(nodes: &[Node], mut parent: Option<usize>) -> (String, String) {
    while let Some(p) = parent {
        let pn = &nodes[p];
        if WINDOW_ROLES.contains(&pn.role.as_str()) {
            return (pn.name.clone(), "Window".into());
        }
        if let Some(t) = control_type(&pn.role).filter(|_| !pn.name.trim().is_empty()) {
            return (pn.name.trim().to_string(), t.to_string());
        }
        parent = pn.parent;
    }
    (String::new(), String::new())
}

/// The scene of a real desktop's observation: its title, application and controls
/// (what set-of-marks and the trajectory prompts read; the screenshot is captured).
pub fn scene_of(title: &str, app: Option<String>, controls: &[ControlInfo]) -> Scene {
    Scene {
        title: title.to_string(),
        app,
        controls: controls
            .iter()
            .map(|c| SceneControl {
                label: c.label.clone(),
                text: c.control_text.clone(),
                control_type: c.control_type.clone(),
                rect: c.rect,
                caption: None,
                lines: Vec::new(),
                selected: false,
                checked: false,
                scroll: None,
            })
            .collect(),
        status: None,
        dialog: None,
        clock: String::new(),
    }
}

/// The folders whose `home/user` a real desktop's home starts from: the
/// simulated desktop's files, then the real desktop's own (real PDFs, workbooks
/// and images under the same names), later ones overriding.
pub fn fixture_dirs(workspace: &Path) -> [PathBuf; 2] {
    [
        workspace.join("resources").join("fixtures"),
        workspace.join("resources").join("x11").join("fixtures"),
    ]
    .map(|d| d.join("home").join("user"))
}

/// Every file below `dir`, sorted by path.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                found.push(p);
            }
        }
    }
    found.sort();
    found
}

/// The bytes of an initial file (the last fixture folder first) with the
/// extension of `path`, the first by name.
pub fn sample_of(fixtures: &[PathBuf], path: &str) -> Option<Vec<u8>> {
    let ext = path.rsplit_once('.')?.1.to_lowercase();
    fixtures.iter().rev().find_map(|dir| {
        files_under(dir)
            .into_iter()
            .find(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case(&ext)))
            .and_then(|p| std::fs::read(p).ok())
    })
}

/// The content an input file `path` is prepared with: a copy of an initial file
/// with the same extension when there is one (a real application must be able
/// to open it), else the simulated desktop's stand-in text.
pub fn prepared_content(fixtures: &[PathBuf], path: &str) -> Vec<u8> {
    sample_of(fixtures, path).unwrap_or_else(|| super::sim::stand_in(path).into_bytes())
}

/// The text a prepared `text_in_clipboard` input holds.
pub fn prepared_clipboard(param: &str) -> &str {
    if param.is_empty() {
        "Prepared text"
    } else {
        param
    }
}

/// How a real desktop makes a subtask's input: a folder, a file (task paths
/// under [`HOME`]) or the clipboard's text.
pub trait Inputs {
    fn make_dir(&self, path: &str) -> Result<(), EnvError>;
    fn write_file(&self, path: &str, content: Vec<u8>) -> Result<(), EnvError>;
    fn set_clipboard(&self, text: &str) -> Result<(), EnvError>;
}

/// Prepares `input` on a real desktop through `desk`: a folder is made, a file
/// written with [`prepared_content`], a clipboard input set with
/// [`prepared_clipboard`]; any other kind cannot be prepared. `place` ends the
/// error ("on a real desktop").
pub fn prepare(
    catalog: &Catalog,
    fixtures: &[PathBuf],
    input: &Resource,
    place: &str,
    desk: &dyn Inputs,
) -> Result<(), String> {
    let cannot = || format!("input resource {input} cannot be prepared {place}");
    let kind = catalog.kinds.get(&input.kind).ok_or_else(cannot)?;
    let param = input.parameter.clone().unwrap_or_default();
    let made = if kind.directory {
        desk.make_dir(&param)
    } else if !kind.file_kinds.is_empty() {
        desk.write_file(&param, prepared_content(fixtures, &param))
    } else if matches!(
        input.kind.as_str(),
        "text_in_clipboard" | "table_in_clipboard" | "number_in_clipboard"
    ) {
        desk.set_clipboard(prepared_clipboard(&param))
    } else {
        return Err(cannot());
    };
    made.map_err(|e| format!("{}: {e}", cannot()))
}

/// The observation of a real desktop showing `front` (its application, the
/// window title and controls) on the captured screen `png`; it becomes `last`,
/// what the next action is resolved against.
pub fn observed(
    front: (Option<AppEntry>, String, Vec<ControlInfo>),
    png: Vec<u8>,
    feedback: Option<String>,
    last: &std::sync::Mutex<Option<Observation>>,
) -> Observation {
    let (app, title, controls) = front;
    let obs = Observation {
        scene: scene_of(&title, app.map(|a| a.name), &controls),
        window_title: title,
        controls,
        feedback,
        captured: Some(std::sync::Arc::new(png)),
    };
    *last.lock().unwrap_or_else(|e| e.into_inner()) = Some(obs.clone());
    obs
}

/// Waits until a real application has answered the last action: `first`, then
/// until `look` (the window in front and its controls) reads the same twice
/// `poll` apart, at most 3 s. Returns the last read: what the screen holds now,
/// which the observation that follows can use instead of reading the tree again.
pub fn settle<T: PartialEq>(
    first: std::time::Duration,
    poll: std::time::Duration,
    mut look: impl FnMut() -> T,
) -> T {
    std::thread::sleep(first);
    let started = std::time::Instant::now();
    let mut before = look();
    while started.elapsed() < std::time::Duration::from_secs(3) {
        std::thread::sleep(poll);
        let now = look();
        if now == before {
            return now;
        }
        before = now;
    }
    before
}

/// The names of a catalogue's applications, the launcher left out.
pub fn app_names(apps: &[AppEntry]) -> Vec<String> {
    apps.iter()
        .filter(|a| !a.launcher)
        .map(|a| a.name.clone())
        .collect()
}

/// Does `resource` hold on a real desktop whose check APIs read `probes`?
pub fn holds(catalog: &Catalog, probes: &dyn Probes, resource: &Resource) -> bool {
    let Some(kind) = catalog.kinds.get(&resource.kind) else {
        return false;
    };
    let param = resource.parameter.as_deref().unwrap_or("");
    if kind.directory {
        return probes.dir_exists(param);
    }
    if !kind.file_kinds.is_empty() {
        return probes.file_text(param).is_some();
    }
    match resource.kind.as_str() {
        // Text, cells copied from a workbook and a calculator's result are
        // all text on a clipboard.
        "text_in_clipboard" | "table_in_clipboard" | "number_in_clipboard" => {
            probes.clipboard_text().is_some_and(|t| !t.is_empty())
        }
        _ => false,
    }
}

/// The control texts of the last observation, its window title first.
pub fn control_texts(last: Option<&Observation>) -> Vec<String> {
    let Some(obs) = last else {
        return Vec::new();
    };
    let mut out = vec![obs.window_title.clone()];
    out.extend(obs.controls.iter().map(|c| c.control_text.clone()));
    out
}

/// The texts shown on screen in the last observation: [`control_texts`]
/// without the empty ones.
pub fn screen_texts(last: Option<&Observation>) -> Vec<String> {
    control_texts(last)
        .into_iter()
        .filter(|t| !t.is_empty())
        .collect()
}

/// A task path under [`HOME`] with no `..`: the part after the home ("a/b.txt").
pub fn home_relative(task_path: &str) -> Option<&str> {
    let rest = task_path.strip_prefix(HOME)?;
    if !(rest.is_empty() || rest.starts_with('/')) {
        return None;
    }
    let rest = rest.trim_start_matches('/');
    (!rest.split('/').any(|p| p == "..")).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_relative_paths_stay_in_the_home() {
        assert_eq!(home_relative("/home/user/a/b.txt"), Some("a/b.txt"));
        assert_eq!(home_relative("/home/user"), Some(""));
        assert_eq!(home_relative("/home/user/../root"), None);
        assert_eq!(home_relative("/home/username/x"), None);
        assert_eq!(home_relative("/etc/passwd"), None);
    }

    fn node(role: &str, text: &str, parent: Option<usize>, focused: bool) -> Node {
        Node {
            name: String::new(),
            role: role.into(),
            rect: [10, 10, 200, 200],
            parent,
            focused,
            active: false,
            text: text.into(),
        }
    }

    #[test]
    fn a_document_is_found_by_its_first_line_once_lines_were_added() {
        let control = |text: &str, ty: &str| ControlInfo {
            label: "1".into(),
            control_text: text.into(),
            control_type: ty.into(),
            parent_control_text: String::new(),
            parent_control_type: String::new(),
            rect: [0, 0, 10, 10],
            focused: false,
        };
        let click = |text: &str| Action {
            call: crate::model::ActionCall::ClickInput {
                button: "left".into(),
                double: false,
            },
            control_text: text.into(),
            control_label: None,
        };
        let controls = vec![
            control("# Reading list", "Button"),
            control("# Reading list\n- Dune\n- Neuromancer\nReviewed.", "Edit"),
        ];
        // Recorded before the task added a line: the document by its first line.
        assert_eq!(
            resolve_on_screen(&controls, &click("# Reading list\n- Dune\n- Neuromancer")),
            Some(1)
        );
        // A one-line name is matched exactly only, as everywhere.
        assert_eq!(
            resolve_on_screen(&controls, &click("# Reading list")),
            Some(0)
        );
        assert_eq!(
            resolve_on_screen(&controls, &click("# Other\n- Dune")),
            None
        );
    }

    #[test]
    fn of_two_windows_with_one_title_the_active_one_is_read() {
        // A program started twice: two frames named alike, the second in front.
        let frame = |active: bool| Node {
            name: "galculator".into(),
            active,
            ..node("frame", "", None, false)
        };
        let nodes = vec![
            frame(false),
            node("push button", "Old", Some(0), false),
            frame(true),
            node("push button", "New", Some(2), false),
        ];
        let texts = |nodes: &[Node]| -> Vec<String> {
            controls_in(nodes, Some("galculator"), (800, 600))
                .into_iter()
                .map(|c| c.control_text)
                .collect()
        };
        assert_eq!(texts(&nodes), ["New"]);
        // With no active frame, the first is read, as before.
        let mut none = nodes.clone();
        none[2].active = false;
        assert_eq!(texts(&none), ["Old"]);
    }

    #[test]
    fn the_focus_is_in_the_nearest_control_at_or_above_the_focused_node() {
        // A focused paragraph (no control) marks its document text.
        let nodes = vec![
            node("frame", "", None, false),
            node("text", "Hello", Some(0), false),
            node("paragraph", "", Some(1), true),
            node("label", "Line 1", Some(0), false),
        ];
        let controls = controls_in(&nodes, None, (800, 600));
        let focused: Vec<(&str, bool)> = controls
            .iter()
            .map(|c| (c.control_text.as_str(), c.focused))
            .collect();
        assert_eq!(focused, [("Hello", true), ("Line 1", false)]);
        // A focused node outside any control marks none.
        let nodes = vec![
            node("frame", "", None, true),
            node("text", "Hello", Some(0), false),
        ];
        assert!(controls_in(&nodes, None, (800, 600))
            .iter()
            .all(|c| !c.focused));
    }
}
