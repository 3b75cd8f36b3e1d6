//! `--env osworld --osworld-url http://HOST:5000`: a desktop in an OSWorld VM,
//! driven through the VM's own server (OSWorld's `desktop_env/server/main.py`).
//!
//! An [`OsworldDesktop`] owns a [`client::Client`] of that server and nothing
//! in the VM but what it puts there. It observes with `/screenshot` and
//! `/accessibility` (read by [`tree`] into the same nodes and controls as
//! `--env x11`), acts by running pyautogui programs through `/execute` that
//! [`script`] writes from typed gestures only, and prepares the desktop with the
//! setup endpoints (`/setup/launch`, `/setup/upload`, `/setup/open_file`). The
//! check APIs read the VM's files with `/file` and `/list_directory`. Within a
//! task, applications are opened as a person does, from GNOME's overview
//! ([`LAUNCHER_KEYS`], the name, Enter): the desktop follows what is typed there
//! and waits for the application it starts.
//!
//! Applications come from a catalogue of data files, `resources/osworld/apps/*.toml`
//! (the same fields as the x11 catalogue: launch command, how to open a file,
//! window class, name on the accessibility bus, category, file extensions).
//!
//! Paths: OSWorld's VMs log in as `user`, so task paths (`/home/user/...`) are
//! the VM's own. [`Environment::reset`] closes the catalogue's applications
//! (their windows' processes), removes what appeared under `/home/user` since
//! synth connected, uploads the initial files again, applies the setup and
//! launches. It does not revert the VM: for a pristine VM, revert its snapshot
//! with OSWorld's provider before a run.

pub mod client;
pub mod script;
pub mod tree;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::real::{self, AppEntry, HOME};
use super::{
    ControlInfo, EnvBackend, EnvError, Environment, Event, EventKind, Observation, Probes, Setup,
    StepOutcome,
};
use crate::model::{Action, ActionCall, ParameterSet};
use crate::resources::{Catalog, Resource};
use client::{fail, Client, DirTree};
use script::{Button, Gesture};

/// How long a launched application may take to show a window with controls.
const LAUNCH_LIMIT: Duration = Duration::from_secs(90);

/// The keys that open the launcher of OSWorld's Ubuntu: Super shows GNOME's
/// overview, whose search field has the focus; typing an application's name
/// and Enter starts the first match. Task trajectories open each node's
/// application this way (see [`crate::pipeline::trajectories_real`]).
pub const LAUNCHER_KEYS: &str = "{LWIN}";

/// The folder of the catalogue in a workspace.
pub fn catalogue_dir(workspace: &Path) -> PathBuf {
    workspace.join("resources").join("osworld").join("apps")
}

/// Loads the catalogue of `workspace`, sorted by name.
///
/// # Errors
/// See [`real::load_catalogue`].
pub fn load_catalogue(workspace: &Path) -> Result<Vec<AppEntry>, EnvError> {
    real::load_catalogue(&catalogue_dir(workspace))
}

/// The server URL of desktop `slot`: `--osworld-url` lists one VM per parallel
/// job, separated by commas.
///
/// # Errors
/// No URL, or fewer URLs than slots.
pub fn url_for(urls: Option<&str>, slot: usize) -> Result<String, EnvError> {
    let urls: Vec<&str> = urls
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .collect();
    if urls.is_empty() {
        return Err(fail(
            "--env osworld needs --osworld-url http://HOST:5000 (the VM's server)",
        ));
    }
    urls.get(slot).map(|u| u.to_string()).ok_or_else(|| {
        fail(format!(
            "parallel desktop {} needs a VM of its own: give {} URLs in --osworld-url \
             (comma-separated) or use --jobs {}",
            slot + 1,
            slot + 1,
            urls.len()
        ))
    })
}

/// A desktop in an OSWorld VM.
pub struct OsworldDesktop {
    client: Client,
    apps: Vec<AppEntry>,
    catalog: Catalog,
    fixtures: [PathBuf; 2],
    screen: (u32, u32),
    /// Every path under the home when synth connected: reset keeps these.
    baseline: BTreeSet<String>,
    /// Applications launched since reset, latest last.
    launched: Vec<String>,
    /// What was typed into the overview's search since [`LAUNCHER_KEYS`]
    /// opened it (None: the overview is not open).
    searching: Option<String>,
    events: Vec<Event>,
    /// The last observation (what actions are resolved against).
    last: Mutex<Option<Observation>>,
}

impl std::fmt::Debug for OsworldDesktop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OsworldDesktop({})", self.client.url())
    }
}

/// The application in front: its entry, window title and controls.
type Front = (Option<AppEntry>, String, Vec<ControlInfo>);

impl OsworldDesktop {
    /// Connects to the server at `url` for `workspace`: reads the catalogue, asks
    /// the server its screen size and lists the home (what reset keeps).
    ///
    /// # Errors
    /// A bad catalogue, or a server that does not answer (the error names it).
    pub fn open(workspace: &Path, url: &str) -> Result<OsworldDesktop, EnvError> {
        let apps = load_catalogue(workspace)?;
        let catalog = Catalog::load(workspace)?;
        let client = Client::new(url)?;
        let screen = client.screen_size()?;
        let mut desk = OsworldDesktop {
            client,
            apps,
            catalog,
            fixtures: real::fixture_dirs(workspace),
            screen,
            baseline: BTreeSet::new(),
            launched: Vec::new(),
            searching: None,
            events: Vec::new(),
            last: Mutex::new(None),
        };
        desk.baseline = desk.listing(HOME)?.into_iter().map(|(p, _)| p).collect();
        Ok(desk)
    }

    /// The catalogue entry named `name` (by name, case-insensitively, or file stem).
    pub fn app(&self, name: &str) -> Option<&AppEntry> {
        real::find_app(&self.apps, name)
    }

    /// Runs a program given as typed arguments (no shell) and returns what it
    /// printed; a non-zero exit is an error with its error output.
    fn run(&self, command: &[String]) -> Result<String, EnvError> {
        let r = self.client.execute(command)?;
        if r.returncode != 0 || r.status == "error" {
            return Err(fail(format!(
                "{}/execute: {} exited with {}: {}",
                self.client.url(),
                command.first().map_or("", String::as_str),
                r.returncode,
                r.error.trim()
            )));
        }
        Ok(r.output)
    }

    /// Runs a Python program in the VM.
    fn python(&self, program: &str) -> Result<String, EnvError> {
        self.run(&script::python_command(program))
    }

    /// Every path under the VM's folder `dir` with whether it is a folder, sorted.
    fn listing(&self, dir: &str) -> Result<Vec<(String, bool)>, EnvError> {
        let mut out = Vec::new();
        if let Some(tree) = self.client.list_directory(dir)? {
            flatten(&tree.children, dir.trim_end_matches('/'), &mut out);
        }
        out.sort();
        Ok(out)
    }

    /// Creates the VM's folders `dirs` (and their parents).
    fn make_dirs(&self, dirs: &BTreeSet<String>) -> Result<(), EnvError> {
        if dirs.is_empty() {
            return Ok(());
        }
        let mut cmd = vec!["mkdir".to_string(), "-p".to_string(), "--".to_string()];
        cmd.extend(dirs.iter().cloned());
        self.run(&cmd).map(drop)
    }

    /// Writes files to the VM (task paths under the home), folders first.
    fn write_files(&self, files: &[(String, Vec<u8>)]) -> Result<(), EnvError> {
        let mut dirs = BTreeSet::new();
        for (path, _) in files {
            real::home_relative(path)
                .ok_or_else(|| EnvError::Setup(format!("file '{path}' is not under {HOME}")))?;
            if let Some((dir, _)) = path.rsplit_once('/') {
                dirs.insert(dir.to_string());
            }
        }
        self.make_dirs(&dirs)?;
        files
            .iter()
            .try_for_each(|(path, bytes)| self.client.upload(path, bytes))
    }

    /// The initial files: the fixture folders' files as task paths, later
    /// folders overriding earlier ones. Hidden ones (the local desktop's
    /// program settings, as LibreOffice's) are not uploaded: the VM keeps its
    /// own.
    fn initial_files(&self) -> Result<Vec<(String, Vec<u8>)>, EnvError> {
        let mut files = std::collections::BTreeMap::new();
        for dir in &self.fixtures {
            for p in real::files_under(dir) {
                let rel = p
                    .strip_prefix(dir)
                    .unwrap_or(&p)
                    .to_string_lossy()
                    .to_string();
                if rel.split('/').any(|part| part.starts_with('.')) {
                    continue;
                }
                let bytes = std::fs::read(&p).map_err(|source| EnvError::Io {
                    path: p.clone(),
                    source,
                })?;
                files.insert(format!("{HOME}/{rel}"), bytes);
            }
        }
        Ok(files.into_iter().collect())
    }

    /// Ends the processes of every window of a catalogue application.
    fn close_apps(&mut self) -> Result<(), EnvError> {
        self.launched.clear();
        let classes: Vec<String> = self
            .apps
            .iter()
            .filter(|a| !a.launcher)
            .map(|a| script::py_str(&a.window_class.to_lowercase()))
            .collect();
        // wmctrl -lpx: id, desktop, pid, instance.Class, host, title.
        let program = format!(
            "import os, signal, subprocess\n\
             classes = {{{}}}\n\
             out = subprocess.run(['wmctrl', '-lpx'], capture_output=True, text=True).stdout\n\
             for line in out.splitlines():\n    \
                 f = line.split(None, 4)\n    \
                 if len(f) > 3 and f[2].isdigit() and any(f[3].lower().endswith('.' + c) for c in classes):\n        \
                     try:\n            os.kill(int(f[2]), signal.SIGKILL)\n        \
                     except OSError:\n            pass",
            classes.join(", ")
        );
        self.python(&program).map(drop)
    }

    /// Removes what appeared under the home since synth connected.
    fn clean_home(&self) -> Result<(), EnvError> {
        let mut new: Vec<String> = Vec::new();
        for (path, _) in self.listing(HOME)? {
            let inside_new = new.iter().any(|n| path.starts_with(&format!("{n}/")));
            if !self.baseline.contains(&path) && !inside_new {
                new.push(path);
            }
        }
        if new.is_empty() {
            return Ok(());
        }
        let mut cmd = vec!["rm".to_string(), "-rf".to_string(), "--".to_string()];
        cmd.extend(new);
        self.run(&cmd).map(drop)
    }

    fn set_clipboard(&self, text: &str) -> Result<(), EnvError> {
        self.python(&format!(
            "import pyperclip\npyperclip.copy({})",
            script::py_str(text)
        ))
        .map(drop)
    }

    /// Starts `app` (opening `file`, a task path, when given) and waits until a
    /// window of it shows controls.
    ///
    /// # Errors
    /// An unknown application, a server that refuses, or no window in time.
    pub fn launch(&mut self, app: &str, file: Option<&str>) -> Result<(), EnvError> {
        let entry = self
            .app(app)
            .cloned()
            .ok_or_else(|| EnvError::UnknownApp(app.to_string()))?;
        let mut command = entry.command.clone();
        match file {
            Some(f) if entry.open.is_empty() => self.client.open_file(f)?,
            Some(f) => command.extend(entry.open.iter().map(|a| a.replace("{path}", f))),
            None => {}
        }
        if file.is_none() || !entry.open.is_empty() {
            self.client.launch(&command)?;
        }
        self.launched.push(entry.name.clone());
        if self.await_window(&entry)? {
            return Ok(());
        }
        Err(fail(format!(
            "{} shows no window with controls on the accessibility tree as '{}' within {} s",
            entry.name,
            entry.accessible_name,
            LAUNCH_LIMIT.as_secs()
        )))
    }

    /// Waits until a window of `entry` shows controls; false when none did
    /// within [`LAUNCH_LIMIT`].
    fn await_window(&self, entry: &AppEntry) -> Result<bool, EnvError> {
        let started = Instant::now();
        while started.elapsed() < LAUNCH_LIMIT {
            let apps = self.applications_now()?;
            let shows = apps
                .iter()
                .filter(|t| t.name.eq_ignore_ascii_case(&entry.accessible_name))
                .any(|t| !real::controls_in(&t.nodes, None, self.screen).is_empty());
            if shows {
                return Ok(true);
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        Ok(false)
    }

    /// Follows the overview's search through `action`: [`LAUNCHER_KEYS`] open
    /// it, typed characters fill its field (Backspace takes one back), and
    /// Enter starts the catalogue application of the typed name, which is
    /// returned; any other action leaves the search.
    fn follow_launcher(&mut self, action: &Action) -> Option<AppEntry> {
        let ActionCall::KeyboardInput { keys } = &action.call else {
            self.searching = None;
            return None;
        };
        if keys == LAUNCHER_KEYS {
            self.searching = Some(String::new());
            return None;
        }
        let typed = self.searching.as_mut()?;
        for token in crate::env::sim::parse_keys(keys) {
            match token {
                crate::env::sim::KeyToken::Char(c) => typed.push(c),
                crate::env::sim::KeyToken::Combo(k) if k == "{backspace}" => {
                    typed.pop();
                }
                crate::env::sim::KeyToken::Combo(k) if k == "{enter}" => {
                    let name = self.searching.take().unwrap_or_default();
                    return self.app(name.trim()).filter(|a| !a.launcher).cloned();
                }
                crate::env::sim::KeyToken::Combo(_) => {
                    self.searching = None;
                    return None;
                }
            }
        }
        None
    }

    fn applications_now(&self) -> Result<Vec<tree::AppTree>, EnvError> {
        let xml = self.client.accessibility()?;
        let root = tree::parse(&xml)
            .map_err(|e| fail(format!("{}/accessibility: {e}", self.client.url())))?;
        Ok(tree::applications(&root))
    }

    /// The catalogue entry of an application on the bus: among entries with its
    /// name (LibreOffice's programs share one), the latest launched.
    fn entry_of(&self, bus_name: &str) -> Option<AppEntry> {
        let matching: Vec<&AppEntry> = self
            .apps
            .iter()
            .filter(|a| a.accessible_name.eq_ignore_ascii_case(bus_name))
            .collect();
        self.launched
            .iter()
            .rev()
            .find_map(|n| matching.iter().find(|a| &a.name == n))
            .or(matching.first())
            .map(|a| (*a).clone())
    }

    /// The application in front: the one whose window is active, else the last
    /// launched one that shows a window.
    fn front(&self) -> Result<Front, EnvError> {
        let apps = self.applications_now()?;
        let active = apps.iter().find_map(|t| t.active.first().map(|&i| (t, i)));
        let chosen = active.or_else(|| {
            self.launched.iter().rev().find_map(|name| {
                let e = self.app(name)?;
                apps.iter()
                    .filter(|t| t.name.eq_ignore_ascii_case(&e.accessible_name))
                    .find_map(|t| {
                        let i = t.nodes.iter().position(|n| {
                            real::WINDOW_ROLES.contains(&n.role.as_str()) && n.parent.is_none()
                        })?;
                        Some((t, i))
                    })
            })
        });
        let Some((t, window)) = chosen else {
            return Ok((None, String::new(), Vec::new()));
        };
        let title = t.nodes[window].name.clone();
        let app = self.entry_of(&t.name);
        let controls = match &app {
            Some(_) => real::controls_in(&t.nodes, Some(&title), self.screen),
            None => Vec::new(),
        };
        Ok((app, title, controls))
    }

    fn observation(&self, feedback: Option<String>) -> Result<Observation, EnvError> {
        let front = self.front()?;
        let png = self.client.screenshot()?;
        Ok(real::observed(front, png, feedback, &self.last))
    }

    /// Waits until the application has answered the last action: at least
    /// 300 ms, then until the window in front and its controls stay the same
    /// between two reads of the tree, at most 3 s.
    fn settle(&self) {
        let _ = real::settle(
            Duration::from_millis(300),
            Duration::from_millis(200),
            || self.front().ok().map(|(_, t, c)| (t, c)),
        );
    }

    /// The control `action` names: in the last observation, else on the screen
    /// as it is now.
    fn find_target(&self, action: &Action) -> Result<Option<ControlInfo>, EnvError> {
        let controls = self
            .last
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|o| o.controls.clone())
            .unwrap_or_default();
        if let Some(i) = super::real::resolve_on_screen(&controls, action) {
            return Ok(Some(controls[i].clone()));
        }
        if action.control_text.trim().is_empty() {
            return Ok(None);
        }
        let obs = self.observation(None)?;
        Ok(super::real::resolve_on_screen(&obs.controls, action).map(|i| obs.controls[i].clone()))
    }

    fn log(
        &mut self,
        kind: EventKind,
        control: Option<&ControlInfo>,
        hit: bool,
        app: Option<String>,
    ) {
        self.events.push(Event {
            kind,
            control_text: control.map(|c| c.control_text.clone()).unwrap_or_default(),
            control_type: control.map(|c| c.control_type.clone()).unwrap_or_default(),
            app,
            hit,
        });
    }

    /// Performs `action`; returns whether it reached a control (or needed none)
    /// and the feedback. Input into the overview (`searching`) goes to the
    /// desktop, not to the application in front.
    fn act(&mut self, action: &Action, searching: bool) -> Result<(bool, String), EnvError> {
        let target = self.find_target(action)?;
        let app = if searching {
            None
        } else {
            self.last
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref()
                .and_then(|o| o.scene.app.clone())
        };
        let plan = plan(action, target.as_ref(), self.screen)?;
        if !plan.gestures.is_empty() {
            self.python(&script::program(&plan.gestures))?;
        }
        for kind in plan.events {
            self.log(kind, target.as_ref(), plan.hit, app.clone());
        }
        Ok((plan.ok, plan.feedback))
    }
}

/// What one action does on the VM: its gestures, the events the check APIs log
/// for it, whether it reached a control (or needed none) and the feedback.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub ok: bool,
    pub hit: bool,
    pub feedback: String,
    pub gestures: Vec<Gesture>,
    pub events: Vec<EventKind>,
}

/// The centre of a control's box.
fn centre(c: &ControlInfo) -> (i32, i32) {
    ((c.rect[0] + c.rect[2]) / 2, (c.rect[1] + c.rect[3]) / 2)
}

/// The plan of `action` aimed at `target` (None: it names no control that is
/// shown) on a screen of `screen` pixels; the same rules as `--env x11`.
///
/// # Errors
/// A key combination that has no keys.
pub fn plan(
    action: &Action,
    target: Option<&ControlInfo>,
    screen: (u32, u32),
) -> Result<Plan, EnvError> {
    let named = !action.control_text.trim().is_empty() || action.control_label.is_some();
    let missing = || format!("No control '{}'", action.control_text);
    match &action.call {
        ActionCall::ClickInput { button, double } => {
            let event = EventKind::Click {
                button: button.clone(),
                double: *double,
            };
            let Some(c) = target else {
                return Ok(Plan {
                    ok: false,
                    hit: false,
                    feedback: missing(),
                    gestures: Vec::new(),
                    events: vec![event],
                });
            };
            let (x, y) = centre(c);
            Ok(Plan {
                ok: true,
                hit: true,
                feedback: format!("Clicked '{}'", c.control_text),
                gestures: vec![Gesture::Click {
                    x,
                    y,
                    button: Button::named(button),
                    clicks: if *double { 2 } else { 1 },
                }],
                events: vec![event],
            })
        }
        ActionCall::WheelMouseInput { wheel_dist } => {
            let (x, y) = target.map_or((screen.0 as i32 / 2, screen.1 as i32 / 2), centre);
            Ok(Plan {
                ok: target.is_some() || !named,
                hit: target.is_some(),
                feedback: "Scrolled".into(),
                gestures: vec![Gesture::Scroll {
                    x,
                    y,
                    clicks: *wheel_dist,
                }],
                events: vec![EventKind::Scroll { dist: *wheel_dist }],
            })
        }
        ActionCall::KeyboardInput { keys } => {
            if named && target.is_none() {
                return Ok(Plan {
                    ok: false,
                    hit: false,
                    feedback: missing(),
                    gestures: Vec::new(),
                    events: Vec::new(),
                });
            }
            let mut gestures = Vec::new();
            // A text field gets the focus first.
            if let Some(c) =
                target.filter(|c| matches!(c.control_type.as_str(), "Edit" | "Document"))
            {
                let (x, y) = centre(c);
                gestures.push(Gesture::Click {
                    x,
                    y,
                    button: Button::Left,
                    clicks: 1,
                });
            }
            let typed = script::key_gestures(keys).map_err(fail)?;
            let events = key_events(keys);
            gestures.extend(typed);
            Ok(Plan {
                ok: true,
                hit: true,
                feedback: "Typed".into(),
                gestures,
                events,
            })
        }
    }
}

/// The events the check APIs log for typing `keys`: each run of characters as
/// text, each combination as keys.
fn key_events(keys: &str) -> Vec<EventKind> {
    let mut out = Vec::new();
    let mut text = String::new();
    for token in crate::env::sim::parse_keys(keys) {
        match token {
            crate::env::sim::KeyToken::Char(c) => text.push(c),
            crate::env::sim::KeyToken::Combo(combo) => {
                if !text.is_empty() {
                    out.push(EventKind::Type {
                        text: std::mem::take(&mut text),
                    });
                }
                out.push(EventKind::Keys { keys: combo });
            }
        }
    }
    if !text.is_empty() {
        out.push(EventKind::Type { text });
    }
    out
}

/// `/list_directory`'s children as (path, is a folder) below `prefix`.
fn flatten(children: &[DirTree], prefix: &str, out: &mut Vec<(String, bool)>) {
    for c in children {
        let path = format!("{prefix}/{}", c.name);
        let is_dir = c.kind == "directory";
        out.push((path.clone(), is_dir));
        if is_dir {
            flatten(&c.children, &path, out);
        }
    }
}

impl Environment for OsworldDesktop {
    fn backend(&self) -> EnvBackend {
        EnvBackend::Osworld
    }

    fn applications(&self) -> Vec<String> {
        real::app_names(&self.apps)
    }

    fn reset(&mut self, setup: &Setup) -> Result<Observation, EnvError> {
        if self.searching.take().is_some() {
            // The overview a task left open closes with Escape.
            self.python(&script::program(&[Gesture::Hotkey(vec!["esc"])]))?;
        }
        self.close_apps()?;
        self.events.clear();
        self.clean_home()?;
        let mut files = self.initial_files()?;
        files.extend(
            setup
                .files
                .iter()
                .map(|(p, c)| (p.clone(), c.clone().into_bytes())),
        );
        self.write_files(&files)?;
        // The previous task's clipboard must not leak into this one.
        self.set_clipboard(setup.clipboard_text.as_deref().unwrap_or(""))?;
        for app in &setup.launch {
            self.launch(app, None)?;
        }
        self.observation(None)
    }

    fn observe(&self) -> Result<Observation, EnvError> {
        self.observation(None)
    }

    fn step(&mut self, action: &Action) -> Result<StepOutcome, EnvError> {
        let opens_launcher =
            matches!(&action.call, ActionCall::KeyboardInput { keys } if keys == LAUNCHER_KEYS);
        let (ok, feedback) = self.act(action, self.searching.is_some() || opens_launcher)?;
        if let Some(entry) = self.follow_launcher(action) {
            self.launched.push(entry.name.clone());
            // A window that does not come in time is left to the next step to
            // notice, as on x11.
            self.await_window(&entry)?;
        }
        self.settle();
        Ok(StepOutcome {
            ok,
            observation: self.observation(Some(feedback))?,
        })
    }

    fn probes(&self) -> &dyn Probes {
        self
    }

    fn holds(&self, resource: &Resource) -> bool {
        real::holds(&self.catalog, self, resource)
    }

    fn prepare(
        &mut self,
        _app: &str,
        input: &Resource,
        _params: &ParameterSet,
    ) -> Result<(), String> {
        real::prepare(
            &self.catalog,
            &self.fixtures,
            input,
            "in the OSWorld VM",
            self,
        )
    }
}

impl real::Inputs for OsworldDesktop {
    fn make_dir(&self, path: &str) -> Result<(), EnvError> {
        real::home_relative(path)
            .ok_or_else(|| EnvError::Setup(format!("'{path}' is not under {HOME}")))?;
        self.make_dirs(&BTreeSet::from([path.to_string()]))
    }

    fn write_file(&self, path: &str, content: Vec<u8>) -> Result<(), EnvError> {
        self.write_files(&[(path.to_string(), content)])
    }

    fn set_clipboard(&self, text: &str) -> Result<(), EnvError> {
        OsworldDesktop::set_clipboard(self, text)
    }
}

impl Probes for OsworldDesktop {
    fn events(&self) -> &[Event] {
        &self.events
    }

    /// The file's text; for an office document saved compressed, its document
    /// text ([`super::document`]).
    fn file_text(&self, path: &str) -> Option<String> {
        let bytes = self.client.file(path).ok()??;
        Some(super::document::text_of(&bytes))
    }

    fn dir_exists(&self, path: &str) -> bool {
        self.client.list_directory(path).is_ok_and(|t| t.is_some())
    }

    /// The clipboard's text; None when it is empty.
    fn clipboard_text(&self) -> Option<String> {
        self.python("import sys, pyperclip\nsys.stdout.write(pyperclip.paste())")
            .ok()
            .filter(|t| !t.is_empty())
    }

    fn control_texts(&self) -> Vec<String> {
        let last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        real::control_texts(last.as_ref())
    }

    fn screen_texts(&self) -> Vec<String> {
        let last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        real::screen_texts(last.as_ref())
    }

    fn window_titles(&self) -> Vec<String> {
        self.applications_now()
            .map(|apps| tree::window_titles(&apps))
            .unwrap_or_default()
    }

    fn paths_under(&self, dir: &str) -> Vec<(String, bool)> {
        self.listing(dir).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(text: &str, ty: &str, rect: [i32; 4]) -> ControlInfo {
        ControlInfo {
            label: "1".into(),
            control_text: text.into(),
            control_type: ty.into(),
            parent_control_text: String::new(),
            parent_control_type: String::new(),
            rect,
            focused: false,
        }
    }

    fn action(call: ActionCall, text: &str) -> Action {
        Action {
            call,
            control_label: None,
            control_text: text.into(),
        }
    }

    #[test]
    fn a_click_hits_the_centre_of_its_control() {
        let save = control("Save", "Button", [100, 200, 180, 240]);
        let a = action(
            ActionCall::ClickInput {
                button: "right".into(),
                double: true,
            },
            "Save",
        );
        let p = plan(&a, Some(&save), (1920, 1080)).unwrap();
        assert!(p.ok && p.hit);
        assert_eq!(
            p.gestures,
            [Gesture::Click {
                x: 140,
                y: 220,
                button: Button::Right,
                clicks: 2
            }]
        );
        let missing = plan(&a, None, (1920, 1080)).unwrap();
        assert!(!missing.ok && missing.gestures.is_empty());
        assert_eq!(missing.feedback, "No control 'Save'");
    }

    #[test]
    fn typing_into_a_field_focuses_it_then_types_and_presses_keys() {
        let field = control("", "Edit", [0, 100, 400, 120]);
        let a = action(
            ActionCall::KeyboardInput {
                keys: "a \"b\"{ENTER}^s".into(),
            },
            "",
        );
        let p = plan(&a, Some(&field), (1920, 1080)).unwrap();
        assert_eq!(
            p.gestures,
            [
                Gesture::Click {
                    x: 200,
                    y: 110,
                    button: Button::Left,
                    clicks: 1
                },
                Gesture::Type("a \"b\"".into()),
                Gesture::Hotkey(vec!["enter"]),
                Gesture::Hotkey(vec!["ctrl", "s"]),
            ]
        );
        assert_eq!(
            p.events,
            [
                EventKind::Type {
                    text: "a \"b\"".into()
                },
                EventKind::Keys {
                    keys: "{enter}".into()
                },
                EventKind::Keys { keys: "^s".into() },
            ]
        );
        // Scrolling with no control scrolls the middle of the screen.
        let s = plan(
            &action(ActionCall::WheelMouseInput { wheel_dist: 2 }, ""),
            None,
            (1920, 1080),
        )
        .unwrap();
        assert_eq!(
            s.gestures,
            [Gesture::Scroll {
                x: 960,
                y: 540,
                clicks: 2
            }]
        );
    }

    #[test]
    fn urls_are_one_per_parallel_desktop() {
        assert_eq!(url_for(Some("http://a:5000"), 0).unwrap(), "http://a:5000");
        assert_eq!(
            url_for(Some("http://a:5000, http://b:5000"), 1).unwrap(),
            "http://b:5000"
        );
        let e = url_for(Some("http://a:5000"), 1).unwrap_err().to_string();
        assert!(e.contains("--jobs 1"), "{e}");
        assert!(url_for(None, 0)
            .unwrap_err()
            .to_string()
            .contains("--osworld-url"));
    }

    #[test]
    fn the_repository_catalogue_names_osworld_applications() {
        let apps = load_catalogue(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
        assert!(apps.len() >= 8, "{apps:?}");
        let ids = crate::export::osworld::load_apps(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
        for a in &apps {
            assert!(ids.contains_key(&a.name), "{} has no OSWorld id", a.name);
        }
    }
}
