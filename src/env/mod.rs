//! The environment: the [`Environment`] trait every backend implements, the data it
//! exchanges (observations, events, step outcomes), the 11 check APIs and their
//! evaluation ([`checks`]), and the embedded simulated desktop ([`sim`]) whose
//! applications are data files (`resources/apps/*.toml`, parsed by [`spec`]).
//!
//! The trait knows nothing about the simulator: the real backends ([`x11`], a local
//! X display; [`osworld`], an OSWorld VM's server) implement the same `reset` /
//! `observe` / `step` and the [`Probes`] the check APIs read, sharing what they
//! have in common in [`real`] (a file's text, an office document's included, in
//! [`document`]).
//!
//! Stages get their desktops from a [`Desktops`] factory ([`EnvSetup::desktops`])
//! and never name a backend. What only a desktop whose whole state can be copied
//! offers (planning on copies) is the optional [`Replica`] capability
//! ([`Desktops::replica`]); a stage that gets none takes its observation-only path.

pub mod checks;
pub mod command;
pub mod document;
pub mod lint;
pub mod narrate;
pub mod osworld;
pub mod perf;
pub mod real;
pub mod render;
pub mod replica;
pub mod sim;
pub mod spec;
pub mod x11;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::model::{Action, ParameterSet};
use crate::resources::Resource;

pub use checks::{check_apis, evaluate, run_check, CheckApi};
pub use command::{run_command, EnvCommand};
pub use render::{render_png, Scene, SceneControl, SCREEN_HEIGHT, SCREEN_WIDTH};
pub use replica::Replica;
pub use sim::SimDesktop;

/// Errors of the environment layer. A wrong action is not an error: it is a normal
/// [`StepOutcome`] with `ok == false`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EnvError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Spec {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error(transparent)]
    Catalog(#[from] crate::resources::CatalogError),
    #[error("unknown application '{0}'")]
    UnknownApp(String),
    #[error("invalid setup: {0}")]
    Setup(String),
    #[error("cannot encode screenshot: {0}")]
    Render(String),
    #[error("cannot read actions file {path}: {message}")]
    Actions { path: PathBuf, message: String },
    #[error("lint found {0} problem(s)")]
    LintFailed(usize),
    #[error("cannot write output: {0}")]
    Output(#[source] std::io::Error),
    /// A real backend failed: the display, a bus, an application or a server.
    #[error("{backend} desktop: {message}")]
    Backend {
        backend: &'static str,
        message: String,
    },
}

impl EnvError {
    /// A failure of the real backend `backend` ("x11", "osworld").
    pub fn backend(backend: &'static str, message: impl Into<String>) -> EnvError {
        EnvError::Backend {
            backend,
            message: message.into(),
        }
    }
}

/// How to prepare a fresh desktop. Every backend interprets the same fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Applications to launch, in order; the last one has the focus.
    #[serde(default)]
    pub launch: Vec<String>,
    /// Extra files to create (absolute path -> UTF-8 content), parents created.
    #[serde(default)]
    pub files: std::collections::BTreeMap<String, String>,
    /// Text to put on the clipboard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clipboard_text: Option<String>,
}

/// One control of the active window, with the fields of OmniBench's trajectory
/// prompt (appendix E.1) and its box in screenshot pixels `[left, top, right, bottom]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControlInfo {
    pub label: String,
    pub control_text: String,
    pub control_type: String,
    pub parent_control_text: String,
    pub parent_control_type: String,
    pub rect: [i32; 4],
    /// Whether the keyboard focus is in this control (or in a part of it that
    /// is no control of its own, as a paragraph of a document). A real backend
    /// reads it from the accessibility tree; the simulated desktop leaves it
    /// false, and false is not written.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub focused: bool,
}

/// What an agent sees: the active window's title and controls, the feedback of the
/// last action, and the scene the screenshot is rendered from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    pub window_title: String,
    pub controls: Vec<ControlInfo>,
    /// What happened on the last step ("Saved /home/user/a.docx", "No control '7'").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
    /// The compact layout snapshot; [`render_png`] turns it into a screenshot. A real
    /// backend fills its title, application and controls from the accessibility tree.
    pub scene: Scene,
    /// The screen as captured by a real backend (PNG). None on the simulated desktop,
    /// whose screenshot is rendered from `scene`.
    #[serde(skip)]
    pub captured: Option<std::sync::Arc<Vec<u8>>>,
}

impl Observation {
    /// Screenshot as PNG bytes; `marks` adds numbered set-of-marks boxes.
    pub fn screenshot(&self, marks: bool) -> Result<Vec<u8>, EnvError> {
        match &self.captured {
            Some(png) if marks => render::mark_png(png, &self.controls),
            Some(png) => Ok(png.as_ref().clone()),
            None => render_png(&self.scene, marks),
        }
    }
}

/// What kind of input an event was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EventKind {
    Click {
        button: String,
        double: bool,
    },
    /// Literal text typed by one keyboard_input (key combos removed).
    Type {
        text: String,
    },
    /// A key combo or named key, normalised (`^s`, `{enter}`).
    Keys {
        keys: String,
    },
    Scroll {
        dist: i32,
    },
}

/// One input event in the log the check APIs read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    #[serde(flatten)]
    pub kind: EventKind,
    /// The control acted on ("" when the action hit no control).
    pub control_text: String,
    pub control_type: String,
    /// The application whose window received it (None: the desktop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// Did the action reach a control?
    pub hit: bool,
}

/// The result of one step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepOutcome {
    /// `false` for a wrong action (unknown control, typing into a button...).
    pub ok: bool,
    pub observation: Observation,
}

/// What the check APIs read, whatever the backend.
pub trait Probes {
    /// Every input event since reset, oldest first.
    fn events(&self) -> &[Event];
    /// The text content of a file (None if there is no such file).
    fn file_text(&self, path: &str) -> Option<String>;
    fn dir_exists(&self, path: &str) -> bool;
    /// The clipboard as text (a table as CSV rows, an image as its description).
    fn clipboard_text(&self) -> Option<String>;
    /// The control texts of the active window (accessibility tree), and its title.
    fn control_texts(&self) -> Vec<String>;
    /// The texts drawn on the current screenshot, as they appear (truncated).
    fn screen_texts(&self) -> Vec<String>;
    /// The titles of all open windows.
    fn window_titles(&self) -> Vec<String>;
    /// Every file and folder below the folder `dir`, at any depth, as (path,
    /// is a folder), sorted by path; empty when there is no such folder.
    fn paths_under(&self, dir: &str) -> Vec<(String, bool)>;
}

/// A desktop an agent acts on. Backends: [`SimDesktop`] (embedded), and real
/// desktops behind the same calls (an X display, an OSWorld VM).
///
/// `observe` and `step` fail only when the backend itself fails (a display that went
/// away, a server that does not answer); a wrong action is a normal [`StepOutcome`]
/// with `ok == false`.
pub trait Environment {
    /// Which backend this is.
    fn backend(&self) -> EnvBackend;
    /// The applications `Setup::launch` and subtasks may name.
    fn applications(&self) -> Vec<String>;
    /// Back to the initial desktop, then applies `setup`.
    fn reset(&mut self, setup: &Setup) -> Result<Observation, EnvError>;
    /// The current observation.
    fn observe(&self) -> Result<Observation, EnvError>;
    /// Performs an action.
    fn step(&mut self, action: &Action) -> Result<StepOutcome, EnvError>;
    /// What the check APIs read.
    fn probes(&self) -> &dyn Probes;
    /// What the screen shows before `action` is taken, in words (a recorded
    /// step's observation text, never the action's effect). By default the
    /// window title and the control the action names
    /// ([`narrate::observation_before`]); the simulated desktop, which knows its
    /// whole state, also names windows, documents, fields and the selection.
    fn describe_before(&self, action: &Action) -> Result<String, EnvError> {
        Ok(narrate::observation_before(&self.observe()?, action))
    }
    /// The control `action` would act on now (None: it hits no control). By
    /// default the observation's control the action names (see [`resolve_control`]).
    fn target_of(&self, action: &Action) -> Result<Option<ControlInfo>, EnvError> {
        let obs = self.observe()?;
        Ok(resolve_control(&obs.controls, action).map(|i| obs.controls[i].clone()))
    }
    /// Does `resource` (a subtask's input or output, with its actual parameter)
    /// hold now?
    fn holds(&self, resource: &Resource) -> bool;
    /// Makes `input`, an input resource of a subtask of application `app` with the
    /// parameters `params`, hold (a file written, the clipboard set, a record
    /// added...). The caller checks [`Environment::holds`] afterwards.
    ///
    /// # Errors
    /// A sentence saying why this desktop cannot prepare it.
    fn prepare(&mut self, app: &str, input: &Resource, params: &ParameterSet)
        -> Result<(), String>;
}

/// The control of `controls` an action names: by label (when its text agrees with
/// the action's control text), else by exact control text, else ignoring case.
pub fn resolve_control(controls: &[ControlInfo], action: &Action) -> Option<usize> {
    let text = action.control_text.trim();
    let agrees = |c: &ControlInfo| text.is_empty() || c.control_text == text;
    if let Some(label) = &action.control_label {
        if let Some(i) = controls
            .iter()
            .position(|c| c.label == label.trim() && agrees(c))
        {
            return Some(i);
        }
    }
    if text.is_empty() {
        return None;
    }
    controls
        .iter()
        .position(|c| c.control_text == text)
        .or_else(|| {
            let lower = text.to_lowercase();
            controls
                .iter()
                .position(|c| c.control_text.to_lowercase() == lower)
        })
}

/// Which desktop the stages act on (`--env`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EnvBackend {
    /// The embedded simulated desktop (no display, deterministic).
    #[default]
    Sim,
    /// Real Linux applications on an X display (Xvfb), driven with XTest and read
    /// through the accessibility bus.
    X11,
    /// A VM running OSWorld's in-VM server, reached over HTTP (`--osworld-url`).
    Osworld,
}

impl EnvBackend {
    pub fn name(self) -> &'static str {
        match self {
            EnvBackend::Sim => "sim",
            EnvBackend::X11 => "x11",
            EnvBackend::Osworld => "osworld",
        }
    }

    /// The keys that open this backend's launcher (see
    /// [`Desktops::launcher_keys`]): Alt+F2 on x11 (the Application Finder),
    /// Super on OSWorld's Ubuntu (GNOME's overview, whose search starts an
    /// application by name); none on the simulated desktop.
    pub fn launcher_keys(self) -> Option<&'static str> {
        match self {
            EnvBackend::Sim => None,
            EnvBackend::X11 => Some(x11::LAUNCHER_KEYS),
            EnvBackend::Osworld => Some(osworld::LAUNCHER_KEYS),
        }
    }
}

/// A source of fresh desktops, shared by parallel workers: a loaded simulated
/// desktop (each open is a clone of it) or the factory of a real backend.
pub trait Desktops: Sync {
    /// Opens desktop number `slot` (parallel workers use distinct slots).
    ///
    /// # Errors
    /// The backend's own (see [`EnvSetup::open`]).
    fn open(&self, slot: usize) -> Result<Box<dyn Environment + Send>, EnvError>;

    /// Whether a replay on these desktops always gives the same result (the
    /// simulated desktop); a real one may need a second try.
    fn deterministic(&self) -> bool {
        false
    }

    /// The applications these desktops have, by name (what a task's nodes name).
    ///
    /// # Errors
    /// An unreadable catalogue.
    fn applications(&self) -> Result<Vec<String>, EnvError>;

    /// The backend these desktops are of (`--env`).
    fn backend(&self) -> EnvBackend;

    /// A fresh desktop a planner can copy (see [`Replica`]), when the backend
    /// has such desktops (the simulated one); None for a real backend.
    fn replica(&self) -> Option<Box<dyn Replica>> {
        None
    }

    /// The keys (action notation) that open the desktop's launcher, where typing
    /// an application's name and Enter starts it: how a person opens an
    /// application on a desktop that shows no icons for them. None on the
    /// simulated desktop, whose applications start from its desktop icons.
    fn launcher_keys(&self) -> Option<&'static str> {
        self.backend().launcher_keys()
    }
}

impl Desktops for SimDesktop {
    fn open(&self, _slot: usize) -> Result<Box<dyn Environment + Send>, EnvError> {
        Ok(Box::new(self.clone()))
    }

    fn applications(&self) -> Result<Vec<String>, EnvError> {
        Ok(Environment::applications(self))
    }

    fn backend(&self) -> EnvBackend {
        EnvBackend::Sim
    }

    fn deterministic(&self) -> bool {
        true
    }

    fn replica(&self) -> Option<Box<dyn Replica>> {
        Some(Box::new(self.clone()))
    }
}

/// The desktops of a real backend, opened by [`EnvSetup::open`].
struct Factory {
    setup: EnvSetup,
    workspace: PathBuf,
}

impl Desktops for Factory {
    fn open(&self, slot: usize) -> Result<Box<dyn Environment + Send>, EnvError> {
        self.setup.open(&self.workspace, slot)
    }

    fn applications(&self) -> Result<Vec<String>, EnvError> {
        let apps = real::catalogue_of(&self.workspace, self.setup.backend)?;
        Ok(apps
            .into_iter()
            .filter(|a| !a.launcher)
            .map(|a| a.name)
            .collect())
    }

    fn backend(&self) -> EnvBackend {
        self.setup.backend
    }
}

/// How to open desktops of the chosen backend: the factory every stage, export,
/// report and eval gets its environments from.
#[derive(Debug, Clone, Default)]
pub struct EnvSetup {
    pub backend: EnvBackend,
    /// `--osworld-url`: the in-VM server of `--env osworld`.
    pub osworld_url: Option<String>,
}

impl EnvSetup {
    /// The desktops of `workspace` for parallel workers: the simulated desktop is
    /// loaded once and cloned, real ones are opened per slot.
    ///
    /// # Errors
    /// Unreadable application files of the simulated desktop.
    pub fn desktops(&self, workspace: &std::path::Path) -> Result<Box<dyn Desktops>, EnvError> {
        Ok(match self.backend {
            EnvBackend::Sim => Box::new(SimDesktop::load(workspace)?),
            _ => Box::new(Factory {
                setup: self.clone(),
                workspace: workspace.to_path_buf(),
            }),
        })
    }

    /// Opens desktop number `slot` of the workspace `workspace` (whose `resources/`
    /// describe the applications). Parallel workers use separate slots, which real
    /// backends map to separate displays, buses and sandboxes.
    ///
    /// # Errors
    /// The backend's own: missing programs, a display that does not start, a
    /// server that does not answer, unreadable application files.
    pub fn open(
        &self,
        workspace: &std::path::Path,
        slot: usize,
    ) -> Result<Box<dyn Environment + Send>, EnvError> {
        match self.backend {
            EnvBackend::Sim => Ok(Box::new(SimDesktop::load(workspace)?)),
            EnvBackend::X11 => Ok(Box::new(x11::X11Desktop::open(workspace, slot)?)),
            EnvBackend::Osworld => {
                let url = osworld::url_for(self.osworld_url.as_deref(), slot)?;
                Ok(Box::new(osworld::OsworldDesktop::open(workspace, &url)?))
            }
        }
    }
}
