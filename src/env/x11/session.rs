//! One X desktop session: an Xvfb display, a window manager (openbox), a D-Bus
//! session bus and the accessibility bus, started in that order and killed when the
//! session is dropped, plus a sandboxed home folder the applications run in.
//!
//! With `SYNTH_X11_DISPLAY` set (for example `:0`), synth attaches to that display
//! and its buses (`DBUS_SESSION_BUS_ADDRESS` from the environment) instead of
//! starting its own; it still uses its own sandboxed home.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::env::EnvError;

/// The screen size of a started display (the simulated desktop's size).
pub const WIDTH: u32 = crate::env::SCREEN_WIDTH;
pub const HEIGHT: u32 = crate::env::SCREEN_HEIGHT;

fn fail(message: impl Into<String>) -> EnvError {
    EnvError::backend("x11", message)
}

/// A running X session.
#[derive(Debug)]
pub struct Session {
    /// The display name (`:71`).
    pub display: String,
    /// Environment every program of the session gets (DISPLAY, the bus, GTK's
    /// accessibility bridge, HOME).
    pub env: Vec<(String, String)>,
    /// The sandboxed home: what `/home/user` is in tasks.
    pub home: PathBuf,
    _home_dir: tempfile::TempDir,
    /// Where the applications' error output goes (one file per application).
    logs: tempfile::TempDir,
    children: Vec<Child>,
    /// The forked session bus (not a child of ours), killed on drop.
    bus_pid: Option<u32>,
}

/// Starts `program` with `args` in the session's environment, output discarded.
fn spawn(program: &str, args: &[&str], env: &[(String, String)]) -> Result<Child, EnvError> {
    Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            fail(format!(
                "cannot start {program}: {e} (install it: apt-get install xvfb openbox dbus-x11 at-spi2-core)"
            ))
        })
}

/// The program's path when it is installed (on PATH or at an absolute path).
fn installed(program: &str) -> bool {
    if program.starts_with('/') {
        return Path::new(program).exists();
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// Where the accessibility bus launcher lives on Debian.
const AT_SPI_LAUNCHER: &str = "/usr/libexec/at-spi-bus-launcher";

/// The programs a started session needs, with the Debian package of each.
pub const REQUIRED: &[(&str, &str)] = &[
    ("Xvfb", "xvfb"),
    ("openbox", "openbox"),
    ("dbus-daemon", "dbus"),
    (AT_SPI_LAUNCHER, "at-spi2-core"),
];

/// The first required program that is missing, as "program (package)".
pub fn missing_program() -> Option<String> {
    REQUIRED
        .iter()
        .find(|(p, _)| !installed(p))
        .map(|(p, pkg)| format!("{p} (Debian package {pkg})"))
}

impl Session {
    /// Did this session start its own display (rather than attach to one)?
    pub fn owns_display(&self) -> bool {
        !self.children.is_empty()
    }

    /// Starts session number `slot` on a display of its own (or attaches, see the
    /// module doc); sessions started at once never share a display or a bus.
    ///
    /// # Errors
    /// A missing program, or a display or bus that does not come up in time.
    pub fn start(slot: usize) -> Result<Session, EnvError> {
        let home_dir = tempfile::Builder::new()
            .prefix(&format!("synth-x11-home-{slot}-"))
            .tempdir()
            .map_err(|e| fail(format!("cannot make the sandboxed home: {e}")))?;
        let home = home_dir.path().to_path_buf();
        let logs = tempfile::Builder::new()
            .prefix(&format!("synth-x11-logs-{slot}-"))
            .tempdir()
            .map_err(|e| fail(format!("cannot make the log folder: {e}")))?;
        if let Ok(display) = std::env::var("SYNTH_X11_DISPLAY") {
            let mut env = vec![("DISPLAY".to_string(), display.clone())];
            if let Ok(bus) = std::env::var("DBUS_SESSION_BUS_ADDRESS") {
                env.push(("DBUS_SESSION_BUS_ADDRESS".into(), bus));
            }
            env.extend(app_env(&home));
            return Ok(Session {
                display,
                env,
                home,
                _home_dir: home_dir,
                logs,
                children: Vec::new(),
                bus_pid: None,
            });
        }
        if let Some(missing) = missing_program() {
            return Err(fail(format!("{missing} is not installed")));
        }
        let (xvfb, number) = start_xvfb()?;
        let display = format!(":{number}");
        let mut session = Session {
            display: display.clone(),
            env: vec![("DISPLAY".to_string(), display.clone())],
            home: home.clone(),
            _home_dir: home_dir,
            logs,
            children: vec![xvfb],
            bus_pid: None,
        };
        session.start_bus()?;
        let env = session.env.clone();
        session.children.push(spawn("openbox", &[], &env)?);
        session
            .children
            .push(spawn(AT_SPI_LAUNCHER, &["--launch-immediately"], &env)?);
        // The bridge registers with the bus when an application starts; give the
        // launcher a moment to own its name.
        std::thread::sleep(Duration::from_millis(500));
        session.env.extend(app_env(&home));
        Ok(session)
    }

    /// Where application `app`'s error output goes (appended; null when the log
    /// cannot be opened).
    pub fn log_for(&self, app: &str) -> Stdio {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log_path(app))
            .map_or_else(|_| Stdio::null(), Stdio::from)
    }

    /// The last lines application `app` wrote to its error output, as
    /// "; it said: ..." (empty when it said nothing).
    pub fn log_tail(&self, app: &str) -> String {
        let text = std::fs::read_to_string(self.log_path(app)).unwrap_or_default();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let tail = lines[lines.len().saturating_sub(3)..].join(" | ");
        if tail.is_empty() {
            String::new()
        } else {
            format!("; it said: {tail}")
        }
    }

    fn log_path(&self, app: &str) -> PathBuf {
        let stem: String = app
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        self.logs.path().join(format!("{stem}.log"))
    }

    /// Starts a private session bus and records its address.
    fn start_bus(&mut self) -> Result<(), EnvError> {
        let out = Command::new("dbus-daemon")
            .args(["--session", "--fork", "--print-address=1", "--print-pid=1"])
            .env("DISPLAY", &self.display)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .map_err(|e| fail(format!("cannot start dbus-daemon: {e}")))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        let address = lines
            .next()
            .filter(|a| !a.is_empty())
            .ok_or_else(|| fail("dbus-daemon printed no bus address"))?;
        if let Some(pid) = lines.next().and_then(|p| p.trim().parse::<u32>().ok()) {
            self.bus_pid = Some(pid);
        }
        self.env
            .push(("DBUS_SESSION_BUS_ADDRESS".into(), address.to_string()));
        Ok(())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        for child in self.children.iter_mut().rev() {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(pid) = self.bus_pid {
            let _ = Command::new("kill").arg(pid.to_string()).status();
        }
    }
}

/// The environment of the applications: the sandboxed home, GTK's accessibility
/// bridge on, no desktop portal lookups.
fn app_env(home: &Path) -> Vec<(String, String)> {
    let h = home.to_string_lossy().to_string();
    vec![
        ("HOME".into(), h.clone()),
        ("XDG_CONFIG_HOME".into(), format!("{h}/.config")),
        ("XDG_DATA_HOME".into(), format!("{h}/.local/share")),
        ("XDG_CACHE_HOME".into(), format!("{h}/.cache")),
        ("NO_AT_BRIDGE".into(), "0".into()),
        ("GTK_MODULES".into(), "gail:atk-bridge".into()),
        ("GTK_USE_PORTAL".into(), "0".into()),
        ("XDG_SESSION_TYPE".into(), "x11".into()),
    ]
}

/// Starts Xvfb on a display number it picks itself (`-displayfd`: the server
/// takes the first free number and writes it when it is ready, so desktops
/// started at once, in one process or several, never share a display).
fn start_xvfb() -> Result<(Child, u32), EnvError> {
    use std::io::{BufRead, BufReader};
    let screen = format!("{WIDTH}x{HEIGHT}x24");
    let mut child = Command::new("Xvfb")
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            &screen,
            "-nolisten",
            "tcp",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| fail(format!("cannot start Xvfb: {e} (apt-get install xvfb)")))?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| fail("Xvfb gave no output pipe"))?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(Duration::from_secs(20)).unwrap_or_default();
    match line.trim().parse::<u32>() {
        Ok(n) => Ok((child, n)),
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(fail("Xvfb did not report a display within 20 s"))
        }
    }
}

/// Polls `ready` every 50 ms until it holds (true) or `limit` passes (false).
pub fn wait_for(limit: Duration, mut ready: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if ready() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    ready()
}
