//! `--env x11`: real Linux applications on an X display.
//!
//! An [`X11Desktop`] owns one session ([`session`]: Xvfb, openbox, a session bus
//! and the accessibility bus, a sandboxed home), a connection to the display
//! ([`display`]: capture, XTest input, the window list) and a thread reading the
//! accessibility tree ([`a11y`]). Applications come from a catalogue of data files,
//! `resources/x11/apps/*.toml` (command, how to open a file, window class, name on
//! the accessibility bus, category, file extensions): adding an application is
//! adding a file, never code.
//!
//! Paths: tasks name the user's home `/home/user`, as on the simulated desktop;
//! here it is the sandboxed home, which the applications see at that path (a
//! mount namespace, [`sandbox`]), so nothing a task does touches the user's
//! files and the screenshots show the paths the actions name.
//! Observations carry the captured screen (PNG) and the controls of the active
//! application's showing accessible objects, in the simulated desktop's control
//! vocabulary (Button, MenuItem, Edit...).

pub mod a11y;
pub mod display;
pub mod sandbox;
pub mod session;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use super::{
    ControlInfo, EnvBackend, EnvError, Environment, Event, EventKind, Observation, Probes, Setup,
    StepOutcome,
};
use crate::model::{Action, ActionCall, ParameterSet};
use crate::resources::{Catalog, Resource};

/// How long a launched application may take to show its window.
const LAUNCH_LIMIT: Duration = Duration::from_secs(90);
/// How long a dialog may take to close after Enter (see
/// `X11Desktop::await_dialog_answer`).
const DIALOG_ANSWER_LIMIT: Duration = Duration::from_secs(3);

use sandbox::HOME;

fn fail(message: impl Into<String>) -> EnvError {
    EnvError::backend("x11", message)
}

pub use super::real::{control_type, find_app, AppEntry, WINDOW_ROLES};

/// Loads the catalogue of `workspace` (`resources/x11/apps`), sorted by name.
///
/// # Errors
/// A missing folder, an unreadable file, or a file that is not a valid entry
/// (the error names the file and line).
pub fn load_catalogue(workspace: &Path) -> Result<Vec<AppEntry>, EnvError> {
    super::real::load_catalogue(&workspace.join("resources").join("x11").join("apps"))
}

/// Controls of an application's nodes on this display (see
/// [`super::real::controls_in`]).
pub fn controls_of(nodes: &[a11y::Node], window: Option<&str>) -> Vec<ControlInfo> {
    super::real::controls_in(nodes, window, (session::WIDTH, session::HEIGHT))
}

/// The keys that open the desktop's launcher (the catalogue's `launcher = true`
/// application), bound in the window manager by [`session::Session::start`].
pub const LAUNCHER_KEYS: &str = "%{F2}";

/// How waiting for a launched program's window ended.
enum WindowWait {
    Shown,
    TimedOut,
    /// The program exited first (its exit status).
    Exited(String),
}

/// The window in front while a launch from the launcher is awaited: an
/// application's window (not the launcher's) whose controls are readable.
struct Front<'a> {
    window: u32,
    title: &'a str,
    /// Whether it is the application whose name was typed into the launcher.
    named: bool,
}

/// Whether the application started from the launcher has answered, with
/// `front` in front and `behind` the window (id, title) the launcher was opened
/// over: another window is in front (a new application or a new window of the
/// same one); or the named application is in front in that same window with a
/// new title (a new document or tab of it, as Mousepad opens); or, with the
/// same title, once `handed_over` says every process started since Enter has
/// exited (what the launcher started passed the request to the open instance,
/// which only raised its window). An application that is still starting in the
/// background leaves the old window in front and is waited for.
fn launch_answered(
    behind: Option<(u32, &str)>,
    front: &Front<'_>,
    handed_over: impl FnOnce() -> bool,
) -> bool {
    let Some((id, title)) = behind else {
        return true;
    };
    if front.window != id {
        return true;
    }
    front.named && (front.title != title || handed_over())
}

/// The application in front, its window title and its controls
/// ([`X11Desktop::front`]).
type FrontRead = (Option<AppEntry>, String, Vec<ControlInfo>);

/// A real desktop on an X display.
pub struct X11Desktop {
    session: session::Session,
    display: display::Display,
    a11y: a11y::A11y,
    apps: Vec<AppEntry>,
    catalog: Catalog,
    /// The sandbox's initial files: the simulated desktop's, then the real
    /// desktop's own (real PDFs, workbooks and images under the same names).
    fixtures: [PathBuf; 2],
    launched: Vec<(String, Child)>,
    /// The window that was in front when the launcher was opened (id and
    /// title): after Enter in the launcher, the application it starts is in
    /// front once another window is (the launcher closes at once and hands the
    /// front back to it), or once this one shows a new document of it.
    behind_launcher: Option<(u32, String)>,
    /// What was typed into the launcher since it was opened (the application's
    /// name, in task trajectories).
    launcher_query: String,
    events: Vec<Event>,
    /// The last observation (what actions are resolved against).
    last: Mutex<Option<Observation>>,
}

impl std::fmt::Debug for X11Desktop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "X11Desktop({})", self.session.display)
    }
}

impl X11Desktop {
    /// Starts desktop number `slot` for `workspace` (see [`session::Session::start`]).
    ///
    /// # Errors
    /// A missing program or catalogue, or a session that does not come up.
    pub fn open(workspace: &Path, slot: usize) -> Result<X11Desktop, EnvError> {
        let apps = load_catalogue(workspace)?;
        let catalog = Catalog::load(workspace)?;
        let launcher = apps
            .iter()
            .find(|a| a.launcher)
            .map(|a| a.command.join(" "));
        // Every program of the desktop gets every entry's `env` (what the
        // launcher starts has the launcher's environment).
        let extra_env: Vec<(String, String)> = apps
            .iter()
            .flat_map(|a| a.env.iter().map(|(k, v)| (k.clone(), v.clone())))
            .collect();
        let mut session = session::Session::start(slot, launcher.as_deref(), &extra_env)?;
        let display = display::Display::connect(&session.display)?;
        if session.owns_display() {
            // Windows are found through the window manager's client list: wait for
            // it before anything is launched.
            session.await_window_manager(|| display.has_window_manager())?;
            // A desktop colour rather than X's black behind the windows.
            display.paint_background(0x3a6e8f)?;
        }
        let bus = session
            .env
            .iter()
            .find(|(k, _)| k == "DBUS_SESSION_BUS_ADDRESS")
            .map(|(_, v)| v.clone());
        let a11y = a11y::A11y::start(bus.as_deref())?;
        Ok(X11Desktop {
            session,
            display,
            a11y,
            apps,
            catalog,
            fixtures: super::real::fixture_dirs(workspace),
            launched: Vec::new(),
            behind_launcher: None,
            launcher_query: String::new(),
            events: Vec::new(),
            last: Mutex::new(None),
        })
    }

    /// The live processes of this desktop (see [`session::Session::processes`]):
    /// all of them end when the desktop is dropped.
    pub fn processes(&self) -> Vec<u32> {
        self.session.processes()
    }

    /// The catalogue entry named `name` (by name, case-insensitively, or file stem).
    pub fn app(&self, name: &str) -> Option<&AppEntry> {
        find_app(&self.apps, name)
    }

    /// The sandbox path of a task path (`/home/user/a.txt`); None outside the home.
    pub fn host_path(&self, task_path: &str) -> Option<PathBuf> {
        let rest = task_path.strip_prefix(HOME)?;
        let rest = rest.trim_start_matches('/');
        if rest.split('/').any(|p| p == "..") {
            return None;
        }
        Some(self.session.home.join(rest))
    }

    /// Runs a helper program of the session (xclip) and returns what it printed.
    /// With `input`, the program reads it and keeps no pipe of ours (xclip forks
    /// a process that serves the clipboard afterwards); the result is then "".
    fn run_tool(&self, program: &str, args: &[&str], input: Option<&str>) -> Option<String> {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .envs(
                self.session
                    .env
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str())),
            )
            .stderr(Stdio::null());
        if let Some(text) = input {
            use std::io::Write;
            let mut child = cmd
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .ok()?;
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(text.as_bytes());
            }
            return child
                .wait()
                .ok()
                .filter(|s| s.success())
                .map(|_| String::new());
        }
        let out = cmd.stdin(Stdio::null()).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).to_string())
    }

    /// Empties the sandboxed home and fills it from the fixtures.
    fn reset_home(&self) -> Result<(), EnvError> {
        let home = &self.session.home;
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| EnvError::Io { path, source }
        };
        for entry in std::fs::read_dir(home).map_err(io(home))? {
            let p = entry.map_err(io(home))?.path();
            if p.is_dir() {
                std::fs::remove_dir_all(&p).map_err(io(&p))?;
            } else {
                std::fs::remove_file(&p).map_err(io(&p))?;
            }
        }
        for dir in &self.fixtures {
            if dir.is_dir() {
                copy_tree(dir, home)?;
            }
        }
        self.session.hand_over(home)
    }

    /// Ends every application: those synth started, and those started on the
    /// desktop (from the launcher), found by their windows' process ids.
    fn kill_apps(&mut self) {
        for (_, mut child) in self.launched.drain(..) {
            let _ = child.kill();
            let _ = child.wait();
        }
        if self.session.owns_display() {
            for pid in self.display.window_pids() {
                // SAFETY: kill(2) with a pid read from a window of our own display.
                unsafe {
                    libc::kill(pid as libc::pid_t, libc::SIGKILL);
                }
            }
        }
    }

    /// Starts `app` (opening `file`, a task path, when given) and waits until its
    /// window shows and its accessibility tree is readable. A start that shows no
    /// window in time is killed and tried once more (a loaded machine's first start
    /// in a fresh home can stall); a program that exits says so with its last words.
    ///
    /// # Errors
    /// An unknown application, a program that does not start or exits, or no
    /// window in time.
    pub fn launch(&mut self, app: &str, file: Option<&str>) -> Result<(), EnvError> {
        let entry = self
            .app(app)
            .cloned()
            .ok_or_else(|| EnvError::UnknownApp(app.to_string()))?;
        let mut args: Vec<String> = entry.command[1..].to_vec();
        if let Some(f) = file {
            // The application sees the sandbox at /home/user: it opens the
            // task path itself.
            if self.host_path(f).is_none() {
                return Err(fail(format!("'{f}' is not under {HOME}")));
            }
            for a in &entry.open {
                args.push(a.replace("{path}", f));
            }
        }
        let mut tries = 0;
        loop {
            tries += 1;
            let child = self.spawn_app(&entry, &args)?;
            self.launched.push((entry.name.clone(), child));
            match self.await_window(&entry)? {
                WindowWait::Shown => break,
                WindowWait::TimedOut if tries < 2 => {
                    tracing::warn!(app = %entry.name, "no window yet; starting it again");
                    if let Some((_, mut child)) = self.launched.pop() {
                        let _ = child.kill();
                        let _ = child.wait();
                    }
                }
                WindowWait::TimedOut => {
                    return Err(fail(format!(
                        "{} opened no window within {} s, twice{}",
                        entry.name,
                        LAUNCH_LIMIT.as_secs(),
                        self.session.log_tail(&entry.name)
                    )))
                }
                WindowWait::Exited(status) => {
                    return Err(fail(format!(
                        "{} exited ({status}) before it showed a window{}",
                        entry.name,
                        self.session.log_tail(&entry.name)
                    )))
                }
            }
        }
        // The catalogue says how long the application may take (`start_secs`).
        // and, with `ready_text`, until that control shows.
        if !session::wait_for(Duration::from_secs(entry.start_secs), || {
            self.a11y.nodes(&entry.accessible_name).is_ok_and(|n| {
                let controls = controls_of(&n, None);
                !controls.is_empty()
                    && entry
                        .ready_text
                        .as_ref()
                        .is_none_or(|r| controls.iter().any(|c| c.control_text == *r))
            })
        }) {
            let ready = entry
                .ready_text
                .as_ref()
                .map(|r| format!(" with its control '{r}'"))
                .unwrap_or_default();
            return Err(fail(format!(
                "{} does not show on the accessibility bus as '{}'{ready} within {} s (its start_secs)",
                entry.name, entry.accessible_name, entry.start_secs
            )));
        }
        Ok(())
    }

    /// Starts the program of `entry` with `args`, its error output going to the
    /// session's log of that application.
    fn spawn_app(&self, entry: &AppEntry, args: &[String]) -> Result<Child, EnvError> {
        let mut cmd = Command::new(&entry.command[0]);
        self.session.sandboxed(&mut cmd);
        session::die_with_parent(&mut cmd);
        cmd.args(args)
            .envs(
                self.session
                    .env
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str())),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(self.session.log_for(&entry.name))
            .spawn()
            .map_err(|e| fail(format!("cannot start {}: {e}", entry.command[0])))
    }

    /// Waits for a window of the last launched program, or for its exit.
    fn await_window(&mut self, entry: &AppEntry) -> Result<WindowWait, EnvError> {
        let class = entry.window_class.to_lowercase();
        let started = std::time::Instant::now();
        // A first start in a fresh home builds caches (fonts, icons): minutes on a
        // loaded machine are possible, seconds are usual.
        while started.elapsed() < LAUNCH_LIMIT {
            if self
                .display
                .windows()
                .is_ok_and(|ws| ws.iter().any(|w| w.class.to_lowercase() == class))
            {
                return Ok(WindowWait::Shown);
            }
            if let Some((_, child)) = self.launched.last_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    return Ok(WindowWait::Exited(status.to_string()));
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(WindowWait::TimedOut)
    }

    /// The catalogue entry of the active window.
    fn active_app(&self) -> Result<(Option<AppEntry>, String), EnvError> {
        let Some(w) = self.display.active_window()? else {
            return Ok((None, String::new()));
        };
        // A dialog may have a class of its own: then the window it belongs to
        // names the application.
        let app = self.display.owner_classes(&w).iter().find_map(|class| {
            let class = class.to_lowercase();
            self.apps
                .iter()
                .find(|a| a.window_class.to_lowercase() == class)
                .cloned()
        });
        Ok((app, w.title))
    }

    /// The application in front, its window title and its controls (as the
    /// applications show them: the sandbox is /home/user to them).
    fn front(&self) -> Result<FrontRead, EnvError> {
        let (app, title) = self.active_app()?;
        let controls = match &app {
            Some(a) => controls_of(&self.a11y.nodes(&a.accessible_name)?, Some(&title)),
            None => Vec::new(),
        };
        Ok((app, title, controls))
    }

    fn observation(&self, feedback: Option<String>) -> Result<Observation, EnvError> {
        let front = self.front()?;
        self.observation_of(front, feedback)
    }

    /// The observation of `front`, read a moment ago, with a screenshot taken
    /// now.
    fn observation_of(
        &self,
        front: FrontRead,
        feedback: Option<String>,
    ) -> Result<Observation, EnvError> {
        let png = self.display.capture_png()?;
        Ok(super::real::observed(front, png, feedback, &self.last))
    }

    /// Waits until the application has answered the last action: at least
    /// 150 ms, then until the window in front and its controls stay the same
    /// over 120 ms (a dialog that is still opening, a menu still filling), at
    /// most 3 s. Returns the last read of the front (`None` when reading
    /// failed), which the step's observation uses: the screen held still
    /// between the last two reads, so reading the tree a third time (a tenth
    /// of a step) would only read the same again.
    fn settle(&self) -> Option<FrontRead> {
        super::real::settle(
            Duration::from_millis(150),
            Duration::from_millis(120),
            || self.front().ok(),
        )
    }

    /// The window in front when it is a dialog (transient for another window).
    fn dialog_in_front(&self) -> Option<u32> {
        let w = self.display.active_window().ok()??;
        self.display.is_transient(&w).then_some(w.id)
    }

    /// Waits for a dialog to answer Enter, which can take longer than a redraw:
    /// a GTK file chooser first queries the folder, then closes and the
    /// application saves, with the screen still for a moment in between (a
    /// check run then found the Save As dialog still open and no file). After
    /// Enter in `dialog`, waits until another window is in front, at most
    /// [`DIALOG_ANSWER_LIMIT`]; a dialog that stays (Enter in a field that does
    /// not submit) costs that wait once.
    /// Returns the front read when it settled again (`None` when it did not
    /// wait).
    fn await_dialog_answer(
        &self,
        action: &Action,
        dialog: Option<u32>,
    ) -> Option<Option<FrontRead>> {
        let ActionCall::KeyboardInput { keys } = &action.call else {
            return None;
        };
        let dialog = dialog?;
        if !keys.to_uppercase().contains("{ENTER}") {
            return None;
        }
        let answered = |me: &X11Desktop| {
            me.display
                .active_window()
                .ok()
                .flatten()
                .is_none_or(|w| w.id != dialog)
        };
        if answered(self) {
            return None;
        }
        session::wait_for(DIALOG_ANSWER_LIMIT, || answered(self)).then(|| self.settle())
    }

    /// Whether the desktop's launcher (the catalogue's `launcher` entry) is the
    /// window in front.
    fn launcher_in_front(&self) -> bool {
        self.active_app()
            .is_ok_and(|(app, _)| app.is_some_and(|a| a.launcher))
    }

    /// Waits for what the launcher does, which takes longer than a redraw (its
    /// first start in a fresh home builds caches; an application it starts may
    /// take seconds): after [`LAUNCHER_KEYS`], until the launcher is in front (at
    /// most 30 s); after Enter in the launcher, until [`launch_answered`] says
    /// the application has answered (at most the catalogue's longest
    /// `start_secs`, and 90 s). `spawned_before` are the desktop's processes
    /// before Enter: an application already open that is named again answers
    /// in the window the launcher was opened over (Mousepad opens a tab there),
    /// or only raises it once what the launcher started has handed over and
    /// exited. A wait that runs out is left to the next step to notice.
    fn await_launcher(&self, action: &Action, from_launcher: bool, spawned_before: &[u32]) {
        let ActionCall::KeyboardInput { keys } = &action.call else {
            return;
        };
        if keys == LAUNCHER_KEYS {
            session::wait_for(Duration::from_secs(30), || self.launcher_in_front());
        } else if from_launcher && keys.to_uppercase().contains("{ENTER}") {
            let limit = self.apps.iter().map(|a| a.start_secs).max().unwrap_or(0);
            let named = find_app(&self.apps, self.launcher_query.trim())
                .filter(|a| !a.launcher)
                .map(|a| a.name.clone());
            let behind = self
                .behind_launcher
                .as_ref()
                .map(|(id, title)| (*id, title.clone()));
            session::wait_for(Duration::from_secs(limit.max(90)), || {
                let Ok(Some(window)) = self.display.active_window() else {
                    return false;
                };
                let Ok((app, title, controls)) = self.front() else {
                    return false;
                };
                let Some(app) = app.filter(|a| !a.launcher && !controls.is_empty()) else {
                    return false;
                };
                let front = Front {
                    window: window.id,
                    title: &title,
                    named: named.as_deref() == Some(app.name.as_str()),
                };
                launch_answered(
                    behind.as_ref().map(|(id, t)| (*id, t.as_str())),
                    &front,
                    || {
                        let now = self.session.processes();
                        now.iter().all(|p| spawned_before.contains(p))
                    },
                )
            });
        }
    }

    /// The control `action` names: in the last observation, else in the screen
    /// as it is now (an application may still have been closing a dialog or
    /// opening a menu when the last observation was taken), waiting up to 2 s.
    fn find_target(&self, action: &Action) -> Result<Option<ControlInfo>, EnvError> {
        let controls = self.last_controls();
        if let Some(i) = super::real::resolve_on_screen(&controls, action) {
            return Ok(Some(controls[i].clone()));
        }
        if action.control_text.trim().is_empty() {
            return Ok(None);
        }
        let mut found = None;
        session::wait_for(Duration::from_secs(2), || {
            if let Ok(obs) = self.observation(None) {
                found = super::real::resolve_on_screen(&obs.controls, action)
                    .map(|i| obs.controls[i].clone());
            }
            found.is_some()
        });
        Ok(found)
    }

    fn last_controls(&self) -> Vec<ControlInfo> {
        self.last
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|o| o.controls.clone())
            .unwrap_or_default()
    }

    fn log(&mut self, kind: EventKind, control: Option<&ControlInfo>, hit: bool) {
        let app = self.active_app().ok().and_then(|(a, _)| a.map(|a| a.name));
        self.events.push(Event {
            kind,
            control_text: control.map(|c| c.control_text.clone()).unwrap_or_default(),
            control_type: control.map(|c| c.control_type.clone()).unwrap_or_default(),
            app,
            hit,
        });
    }

    /// Performs `action`; returns whether it reached a control (or needed none)
    /// and the feedback.
    fn act(&mut self, action: &Action) -> Result<(bool, String), EnvError> {
        let target = self.find_target(action)?;
        let named = !action.control_text.trim().is_empty() || action.control_label.is_some();
        let centre = |c: &ControlInfo| ((c.rect[0] + c.rect[2]) / 2, (c.rect[1] + c.rect[3]) / 2);
        match &action.call {
            ActionCall::ClickInput { button, double } => {
                let Some(c) = target else {
                    self.log(
                        EventKind::Click {
                            button: button.clone(),
                            double: *double,
                        },
                        None,
                        false,
                    );
                    return Ok((false, format!("No control '{}'", action.control_text)));
                };
                let b = match button.as_str() {
                    "right" => 3,
                    "middle" => 2,
                    _ => 1,
                };
                let (x, y) = centre(&c);
                self.display.click(x, y, b, *double)?;
                self.log(
                    EventKind::Click {
                        button: button.clone(),
                        double: *double,
                    },
                    Some(&c),
                    true,
                );
                Ok((true, format!("Clicked '{}'", c.control_text)))
            }
            ActionCall::WheelMouseInput { wheel_dist } => {
                let (x, y) = target.as_ref().map_or(
                    (session::WIDTH as i32 / 2, session::HEIGHT as i32 / 2),
                    centre,
                );
                self.display.scroll(x, y, *wheel_dist)?;
                self.log(
                    EventKind::Scroll { dist: *wheel_dist },
                    target.as_ref(),
                    target.is_some(),
                );
                Ok((target.is_some() || !named, "Scrolled".into()))
            }
            ActionCall::KeyboardInput { keys } => {
                if named && target.is_none() {
                    return Ok((false, format!("No control '{}'", action.control_text)));
                }
                if let Some(c) = &target {
                    if matches!(c.control_type.as_str(), "Edit" | "Document") {
                        let (x, y) = centre(c);
                        self.display.click(x, y, 1, false)?;
                    }
                }
                self.type_keys(keys, target.as_ref())?;
                Ok((true, "Typed".into()))
            }
        }
    }

    /// Types `keys` (action notation): runs of characters as text, combinations
    /// as key presses; each logged as the check APIs expect.
    fn type_keys(&mut self, keys: &str, target: Option<&ControlInfo>) -> Result<(), EnvError> {
        let mut text = String::new();
        let flush = |me: &mut X11Desktop, text: &mut String| -> Result<(), EnvError> {
            if !text.is_empty() {
                me.display.type_text(text)?;
                me.log(EventKind::Type { text: text.clone() }, target, true);
                text.clear();
            }
            Ok(())
        };
        for token in crate::env::sim::parse_keys(keys) {
            match token {
                crate::env::sim::KeyToken::Char(c) => text.push(c),
                crate::env::sim::KeyToken::Combo(combo) => {
                    flush(self, &mut text)?;
                    let syms = display::combo_keysyms(&combo)
                        .ok_or_else(|| fail(format!("unknown key combination '{combo}'")))?;
                    self.display.keys(&syms)?;
                    self.log(EventKind::Keys { keys: combo }, target, true);
                }
            }
        }
        flush(self, &mut text)
    }
}

impl Drop for X11Desktop {
    fn drop(&mut self) {
        self.kill_apps();
    }
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), EnvError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| EnvError::Io { path, source }
    };
    std::fs::create_dir_all(to).map_err(io(to))?;
    for entry in std::fs::read_dir(from).map_err(io(from))? {
        let entry = entry.map_err(io(from))?;
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).map_err(io(&target))?;
        }
    }
    Ok(())
}

impl Environment for X11Desktop {
    fn backend(&self) -> EnvBackend {
        EnvBackend::X11
    }

    fn applications(&self) -> Vec<String> {
        super::real::app_names(&self.apps)
    }

    fn reset(&mut self, setup: &Setup) -> Result<Observation, EnvError> {
        self.kill_apps();
        self.events.clear();
        self.behind_launcher = None;
        self.launcher_query.clear();
        // Let the window manager drop the closed windows.
        session::wait_for(Duration::from_secs(5), || {
            self.display.windows().is_ok_and(|w| w.is_empty())
        });
        self.reset_home()?;
        for (path, content) in &setup.files {
            let host = self
                .host_path(path)
                .ok_or_else(|| EnvError::Setup(format!("file '{path}' is not under {HOME}")))?;
            if let Some(parent) = host.parent() {
                std::fs::create_dir_all(parent).map_err(|source| EnvError::Io {
                    path: parent.to_path_buf(),
                    source,
                })?;
            }
            std::fs::write(&host, content).map_err(|source| EnvError::Io {
                path: host.clone(),
                source,
            })?;
        }
        self.session.hand_over(&self.session.home)?;
        // The previous task's clipboard must not leak into this one.
        super::real::Inputs::set_clipboard(self, setup.clipboard_text.as_deref().unwrap_or(""))?;
        for app in &setup.launch {
            self.launch(app, None)?;
        }
        self.observation(None)
    }

    fn observe(&self) -> Result<Observation, EnvError> {
        self.observation(None)
    }

    fn step(&mut self, action: &Action) -> Result<StepOutcome, EnvError> {
        let from_launcher = self.launcher_in_front();
        let mut spawned_before = Vec::new();
        if let ActionCall::KeyboardInput { keys } = &action.call {
            if keys == LAUNCHER_KEYS {
                if !from_launcher {
                    self.behind_launcher = self
                        .display
                        .active_window()
                        .ok()
                        .flatten()
                        .map(|w| (w.id, w.title));
                }
                self.launcher_query.clear();
            } else if from_launcher {
                let upper = keys.to_uppercase();
                let typed = upper.find("{ENTER}").map_or(keys.as_str(), |i| &keys[..i]);
                self.launcher_query.push_str(typed);
                if typed.len() < keys.len() {
                    spawned_before = self.session.processes();
                }
            }
        }
        let dialog = self.dialog_in_front();
        let (ok, feedback) = self.act(action)?;
        self.await_launcher(action, from_launcher, &spawned_before);
        let mut settled = self.settle();
        if let Some(again) = self.await_dialog_answer(action, dialog) {
            settled = again;
        }
        let observation = match settled {
            Some(front) => self.observation_of(front, Some(feedback))?,
            None => self.observation(Some(feedback))?,
        };
        tracing::debug!(
            action = ?action.call,
            control = %action.control_text,
            ok,
            window = %observation.window_title,
            "x11 step"
        );
        Ok(StepOutcome { ok, observation })
    }

    fn probes(&self) -> &dyn Probes {
        self
    }

    fn holds(&self, resource: &Resource) -> bool {
        super::real::holds(&self.catalog, self, resource)
    }

    fn prepare(
        &mut self,
        _app: &str,
        input: &Resource,
        _params: &ParameterSet,
    ) -> Result<(), String> {
        super::real::prepare(
            &self.catalog,
            &self.fixtures,
            input,
            "on a real desktop",
            self,
        )
    }
}

impl super::real::Inputs for X11Desktop {
    fn make_dir(&self, path: &str) -> Result<(), EnvError> {
        let host = self
            .host_path(path)
            .ok_or_else(|| fail(format!("'{path}' is not under {HOME}")))?;
        std::fs::create_dir_all(&host).map_err(|source| EnvError::Io { path: host, source })?;
        self.session.hand_over(&self.session.home)
    }

    /// Writes `content` (a real application must be able to open it).
    fn write_file(&self, path: &str, content: Vec<u8>) -> Result<(), EnvError> {
        let host = self
            .host_path(path)
            .ok_or_else(|| fail(format!("'{path}' is not under {HOME}")))?;
        host.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&host, content))
            .map_err(|source| EnvError::Io { path: host, source })?;
        self.session.hand_over(&self.session.home)
    }

    fn set_clipboard(&self, text: &str) -> Result<(), EnvError> {
        self.run_tool("xclip", &["-selection", "clipboard", "-i"], Some(text))
            .map(drop)
            .ok_or_else(|| fail("cannot set the clipboard (is xclip installed?)"))
    }
}

impl Probes for X11Desktop {
    fn events(&self) -> &[Event] {
        &self.events
    }

    /// The file's text; for an office document saved compressed, its document
    /// text ([`super::document`]).
    fn file_text(&self, path: &str) -> Option<String> {
        let host = self.host_path(path)?;
        let bytes = std::fs::read(host).ok()?;
        Some(super::document::text_of(&bytes))
    }

    fn dir_exists(&self, path: &str) -> bool {
        self.host_path(path).is_some_and(|p| p.is_dir())
    }

    /// The clipboard's text; None when it is empty.
    fn clipboard_text(&self) -> Option<String> {
        self.run_tool("xclip", &["-selection", "clipboard", "-o"], None)
            .filter(|t| !t.is_empty())
    }

    fn control_texts(&self) -> Vec<String> {
        let last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        super::real::control_texts(last.as_ref())
    }

    fn screen_texts(&self) -> Vec<String> {
        let last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        super::real::screen_texts(last.as_ref())
    }

    fn window_titles(&self) -> Vec<String> {
        self.display
            .windows()
            .map(|ws| ws.into_iter().map(|w| w.title).collect())
            .unwrap_or_default()
    }

    fn paths_under(&self, dir: &str) -> Vec<(String, bool)> {
        let Some(root) = self.host_path(dir) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut stack = vec![root];
        while let Some(d) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                let Ok(rel) = p.strip_prefix(&self.session.home) else {
                    continue;
                };
                let is_dir = p.is_dir();
                out.push((format!("{HOME}/{}", rel.to_string_lossy()), is_dir));
                if is_dir {
                    stack.push(p);
                }
            }
        }
        out.sort();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_catalogue_loads_with_eight_applications() {
        let apps = load_catalogue(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
        assert!(apps.len() >= 8, "{apps:?}");
        let categories: std::collections::BTreeSet<_> = apps.iter().map(|a| &a.category).collect();
        assert!(categories.len() >= 4, "{categories:?}");
        // Subtasks take their application's category, and a pool whose
        // category the catalogue does not know cannot be imported.
        let known = Catalog::load(Path::new(env!("CARGO_MANIFEST_DIR")))
            .unwrap()
            .categories;
        for a in &apps {
            assert!(known.contains(&a.category), "{}: {}", a.name, a.category);
        }
        assert_eq!(
            find_app(&apps, "mousepad").map(|a| a.name.as_str()),
            Some("Mousepad")
        );
        assert_eq!(
            find_app(&apps, "MOUSEPAD").map(|a| a.name.as_str()),
            Some("Mousepad")
        );
    }

    #[test]
    fn a_bad_catalogue_entry_names_its_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let apps = dir.path().join("resources/x11/apps");
        std::fs::create_dir_all(&apps).unwrap();
        std::fs::write(
            apps.join("broken.toml"),
            "name = \"X\"\ncategory = \"Office\"\ncommand = [\"x\"]\nwindow_clas = \"X\"\n",
        )
        .unwrap();
        let err = load_catalogue(dir.path()).unwrap_err().to_string();
        assert!(err.contains("broken.toml:4"), "{err}");
    }

    #[test]
    fn roles_map_to_control_types_and_layout_is_skipped() {
        assert_eq!(control_type("push button"), Some("Button"));
        assert_eq!(control_type("menu item"), Some("MenuItem"));
        assert_eq!(control_type("text"), Some("Edit"));
        assert_eq!(control_type("panel"), None);
        let node = |name: &str, role: &str, rect: [i32; 4], parent: Option<usize>| a11y::Node {
            name: name.into(),
            role: role.into(),
            rect,
            parent,
            focused: false,
            active: false,
            text: String::new(),
        };
        let nodes = vec![
            node("Untitled - Mousepad", "frame", [0, 0, 800, 600], None),
            node("", "panel", [0, 0, 800, 30], Some(0)),
            node("Save", "push button", [10, 5, 60, 25], Some(1)),
            node(
                "Hidden",
                "menu item",
                [-2147483648, -2147483648, -2147483647, -2147483647],
                Some(1),
            ),
        ];
        let controls = controls_of(&nodes, None);
        assert_eq!(controls.len(), 1);
        assert_eq!(controls[0].control_text, "Save");
        assert_eq!(controls[0].parent_control_text, "Untitled - Mousepad");
        assert_eq!(controls[0].parent_control_type, "Window");
        // A menu popped up in an untitled window of its own is the front
        // window's; another untitled window is not.
        let mut with_popup = nodes.clone();
        with_popup.push(node("", "frame", [600, 90, 900, 400], None));
        with_popup.push(node("", "menu", [600, 90, 900, 400], Some(4)));
        with_popup.push(node("Settings", "menu item", [600, 100, 900, 130], Some(5)));
        with_popup.push(node("", "frame", [100, 90, 300, 400], None));
        with_popup.push(node(
            "Elsewhere",
            "push button",
            [100, 90, 200, 130],
            Some(7),
        ));
        let texts: Vec<String> = controls_of(&with_popup, Some("Untitled - Mousepad"))
            .into_iter()
            .map(|c| c.control_text)
            .collect();
        assert!(texts.contains(&"Settings".to_string()), "{texts:?}");
        assert!(!texts.contains(&"Elsewhere".to_string()), "{texts:?}");
        // A dialog: only its controls.
        let mut with_dialog = nodes.clone();
        with_dialog.push(node("Save As", "dialog", [100, 100, 500, 400], None));
        with_dialog.push(node("Cancel", "push button", [110, 350, 200, 380], Some(4)));
        let controls = controls_of(&with_dialog, Some("Save As"));
        assert_eq!(controls.len(), 1);
        assert_eq!(controls[0].control_text, "Cancel");
        assert_eq!(controls[0].parent_control_text, "Save As");
    }

    #[test]
    fn a_launch_is_answered_by_a_new_window_or_a_new_document_in_the_old_one() {
        let behind = Some((7, "Untitled 1 - Mousepad"));
        let front = |window, title, named| Front {
            window,
            title,
            named,
        };
        let never = || -> bool { panic!("not asked when the window or its title tells") };
        // From an empty desktop, any application's window in front.
        assert!(launch_answered(None, &front(9, "a", false), never));
        // Another window in front: a new application or a new window.
        assert!(launch_answered(
            behind,
            &front(9, "Untitled 2 - Mousepad", true),
            never
        ));
        assert!(launch_answered(
            behind,
            &front(9, "Document1", false),
            never
        ));
        // Mousepad named again opens a tab in its window: the title tells.
        assert!(launch_answered(
            behind,
            &front(7, "Untitled 2 - Mousepad", true),
            never
        ));
        // The same window unchanged: answered once what the launcher started
        // has handed over and exited, not while it may still be starting.
        assert!(launch_answered(
            behind,
            &front(7, "Untitled 1 - Mousepad", true),
            || true
        ));
        assert!(!launch_answered(
            behind,
            &front(7, "Untitled 1 - Mousepad", true),
            || false
        ));
        // Another application was named: its window is still to come, whatever
        // the old window does.
        assert!(!launch_answered(
            behind,
            &front(7, "Untitled 1 - Mousepad", false),
            || true
        ));
        assert!(!launch_answered(
            behind,
            &front(7, "Untitled 2 - Mousepad", false),
            || true
        ));
    }
}
