//! One X desktop session: an Xvfb display, a window manager (openbox), a D-Bus
//! session bus and the accessibility bus, started in that order and killed when the
//! session is dropped, plus a sandboxed home folder the applications run in.
//!
//! Every program of a session carries the session's own mark in its environment
//! ([`MARK_VAR`]), and so does everything they start (the accessibility bus's
//! `dbus-daemon`, which `at-spi-bus-launcher` detaches, the registry it
//! activates, an application's helpers, xclip's selection server). Ending the
//! session kills every process with that mark, not only synth's own children: a
//! detached daemon is reparented to init and would otherwise outlive synth.
//!
//! When synth runs as root, the programs applications talk to (the session bus,
//! the accessibility bus, the window manager, which starts what the launcher
//! starts) and the applications themselves run as an unprivileged account
//! ([`Account`]: `nobody` unless `SYNTH_X11_USER` names another, `root` keeps
//! them all root): some programs refuse to run as root (VLC), others warn. The
//! display stays root's, and synth itself, reading the accessibility tree as
//! root, is let onto both buses (the accessibility bus's own configuration
//! lets root in; the session bus gets a configuration that does). The sandboxed
//! home and the session's log folder belong to that account.
//!
//! With `SYNTH_X11_DISPLAY` set (for example `:0`), synth attaches to that display
//! and its buses (`DBUS_SESSION_BUS_ADDRESS` from the environment) instead of
//! starting its own; it still uses its own sandboxed home.
//!
//! The applications see the sandboxed home at `/home/user` (a private mount
//! namespace per session, [`super::sandbox`]).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::sandbox::Namespace;
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
    /// The sandboxed home's real path: what the applications see at
    /// `/home/user` (the path tasks name).
    pub home: PathBuf,
    /// The mount namespace that shows them the sandbox there (dropped before
    /// the folder it binds).
    ns: Namespace,
    /// The applications' own variables (HOME and the bridges), which the
    /// launcher's command carries (openbox keeps its own environment).
    apps_env: Vec<(String, String)>,
    _home_dir: tempfile::TempDir,
    /// Where the applications' error output goes (one file per application).
    logs: tempfile::TempDir,
    children: Vec<Child>,
    /// The window manager's configuration file, to restart it with.
    wm_config: Option<String>,
    /// Where the window manager is in `children`.
    wm_child: usize,
    /// This session's mark (the value of [`MARK_VAR`] in its programs' environment).
    mark: String,
    /// The account the session's programs run as (None: synth's own).
    account: Option<Account>,
}

/// An unprivileged account the desktop's programs run as when synth is root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Account {
    pub uid: u32,
    pub gid: u32,
}

/// The variable that names the account (`root`: none, everything runs as root).
pub const USER_VAR: &str = "SYNTH_X11_USER";

impl Account {
    /// The account of this run: None unless synth runs as root; then the one
    /// `SYNTH_X11_USER` names (`nobody` when unset), None for `root`.
    ///
    /// # Errors
    /// A name the system does not know.
    pub fn of_run() -> Result<Option<Account>, EnvError> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Ok(None);
        }
        let name = std::env::var(USER_VAR).unwrap_or_else(|_| "nobody".into());
        if name.is_empty() || name == "root" {
            return Ok(None);
        }
        let c_name = std::ffi::CString::new(name.clone())
            .map_err(|_| fail(format!("{USER_VAR}='{name}' is not a user name")))?;
        // SAFETY: getpwnam reads a NUL-terminated name; the record it returns is
        // copied at once (synth looks up no other user meanwhile).
        let pw = unsafe { libc::getpwnam(c_name.as_ptr()) };
        if pw.is_null() {
            return Err(fail(format!(
                "synth runs as root and {USER_VAR} names '{name}', which this system has no account for (create it, or set {USER_VAR}=root to run the applications as root)"
            )));
        }
        // SAFETY: pw is a valid passwd record (checked above).
        let (uid, gid) = unsafe { ((*pw).pw_uid, (*pw).pw_gid) };
        Ok(Some(Account { uid, gid }))
    }

    /// Makes `cmd` run as this account.
    pub fn apply(self, cmd: &mut Command) {
        use std::os::unix::process::CommandExt;
        // With a uid, the child also drops root's supplementary groups.
        cmd.uid(self.uid).gid(self.gid);
    }

    /// Gives `path` and everything under it to this account (symbolic links
    /// themselves, not what they point to).
    pub fn own(self, path: &Path) -> std::io::Result<()> {
        std::os::unix::fs::lchown(path, Some(self.uid), Some(self.gid))?;
        if path.is_dir() && !path.is_symlink() {
            for entry in std::fs::read_dir(path)? {
                self.own(&entry?.path())?;
            }
        }
        Ok(())
    }
}

/// The environment variable that marks the processes of one session.
pub const MARK_VAR: &str = "SYNTH_X11_DESKTOP";

/// A mark no other session of this machine has: synth's pid, the slot and the time.
fn new_mark(slot: usize) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}-{slot}-{nanos}", std::process::id())
}

/// Every other process of this machine that carries a session's mark, with
/// that mark (the value of `MARK_VAR` in its environment): the one walk of
/// `/proc` that [`marked_processes`] and [`sweep_orphans`] share.
fn processes_with_marks() -> Vec<(u32, String)> {
    let prefix = format!("{MARK_VAR}=");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let me = std::process::id();
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let mark = environ.split(|b| *b == 0).find_map(|var| {
            Some(
                std::str::from_utf8(var)
                    .ok()?
                    .strip_prefix(&prefix)?
                    .to_string(),
            )
        });
        if let Some(mark) = mark {
            out.push((pid, mark));
        }
    }
    out
}

/// The ids of the live processes whose environment holds `MARK_VAR=mark`
/// (zombies left out: they are dead, waiting for their parent to read them).
pub fn marked_processes(mark: &str) -> Vec<u32> {
    processes_with_marks()
        .into_iter()
        .filter(|(pid, m)| m == mark && is_alive(*pid))
        .map(|(pid, _)| pid)
        .collect()
}

/// The synth pid a session's mark names (see [`new_mark`]).
fn mark_owner(mark: &str) -> Option<u32> {
    mark.split('-').next()?.parse().ok()
}

/// Kills the processes left by sessions whose synth is gone (killed with
/// SIGKILL, so no teardown ran): their mark names a synth pid that is no longer
/// alive. Run when a session starts.
fn sweep_orphans() {
    for (pid, mark) in processes_with_marks() {
        if mark_owner(&mark).is_some_and(|owner| !is_alive(owner)) {
            // SAFETY: kill(2) of a process marked by a synth session whose synth is dead.
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGKILL);
            }
        }
    }
}

/// Whether process `pid` exists and is not a zombie.
pub fn is_alive(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state follows the command name in parentheses, which may hold spaces.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .is_some_and(|state| state != "Z" && state != "X")
}

/// Starts `program` with `args` in the session's environment (as `account`
/// when given), output discarded.
fn spawn(
    program: &str,
    args: &[&str],
    env: &[(String, String)],
    account: Option<Account>,
) -> Result<Child, EnvError> {
    let mut cmd = Command::new(program);
    if let Some(a) = account {
        a.apply(&mut cmd);
    }
    die_with_parent(&mut cmd);
    cmd.args(args)
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
    /// Makes `cmd` an application of this session: run in the namespace that
    /// shows the sandbox at `/home/user`, in that folder, as the session's
    /// account.
    pub fn sandboxed(&self, cmd: &mut Command) {
        self.ns.enter(cmd, self.account);
    }

    /// The account the session's programs run as (None: synth's own).
    pub fn account(&self) -> Option<Account> {
        self.account
    }

    /// Gives `path` (and what is under it) to the session's account, when it
    /// has one: a file synth writes into the sandbox must be the applications'.
    ///
    /// # Errors
    /// When the ownership cannot be changed.
    pub fn hand_over(&self, path: &Path) -> Result<(), EnvError> {
        match self.account {
            Some(a) => a.own(path).map_err(|source| EnvError::Io {
                path: path.to_path_buf(),
                source,
            }),
            None => Ok(()),
        }
    }

    /// Did this session start its own display (rather than attach to one)?
    pub fn owns_display(&self) -> bool {
        !self.children.is_empty()
    }

    /// Starts session number `slot` on a display of its own (or attaches, see the
    /// module doc); sessions started at once never share a display or a bus.
    ///
    /// # Errors
    /// A missing program, or a display or bus that does not come up in time.
    /// `extra_env` is what the catalogue gives every program of the desktop
    /// (`{sandbox}` in a value stands for the sandbox's real path).
    pub fn start(
        slot: usize,
        launcher: Option<&str>,
        extra_env: &[(String, String)],
    ) -> Result<Session, EnvError> {
        let home_dir = tempfile::Builder::new()
            .prefix(&format!("synth-x11-home-{slot}-"))
            .tempdir()
            .map_err(|e| fail(format!("cannot make the sandboxed home: {e}")))?;
        let home = home_dir.path().to_path_buf();
        let logs = tempfile::Builder::new()
            .prefix(&format!("synth-x11-logs-{slot}-"))
            .tempdir()
            .map_err(|e| fail(format!("cannot make the log folder: {e}")))?;
        sweep_orphans();
        let mark = new_mark(slot);
        let account = Account::of_run()?;
        if let Some(a) = account {
            for dir in [home_dir.path(), logs.path()] {
                a.own(dir).map_err(|e| {
                    fail(format!(
                        "cannot give {} to the desktop's account: {e}",
                        dir.display()
                    ))
                })?;
            }
        }
        let ns = Namespace::start(&home, &mark)?;
        let mut apps_env = app_env();
        apps_env.extend(
            extra_env
                .iter()
                .map(|(k, v)| (k.clone(), v.replace("{sandbox}", &home.to_string_lossy()))),
        );
        if let Ok(display) = std::env::var("SYNTH_X11_DISPLAY") {
            let mut env = vec![
                ("DISPLAY".to_string(), display.clone()),
                (MARK_VAR.to_string(), mark.clone()),
            ];
            if let Ok(bus) = std::env::var("DBUS_SESSION_BUS_ADDRESS") {
                env.push(("DBUS_SESSION_BUS_ADDRESS".into(), bus));
            }
            env.extend(apps_env);
            return Ok(Session {
                display,
                env,
                home,
                ns,
                apps_env: Vec::new(),
                _home_dir: home_dir,
                logs,
                children: Vec::new(),
                wm_config: None,
                wm_child: 0,
                mark,
                // The display's own buses are its user's: what runs there runs
                // as synth does.
                account: None,
            });
        }
        if let Some(missing) = missing_program() {
            return Err(fail(format!("{missing} is not installed")));
        }
        let (xvfb, number) = start_xvfb(&mark)?;
        let display = format!(":{number}");
        let mut session = Session {
            display: display.clone(),
            env: vec![
                ("DISPLAY".to_string(), display.clone()),
                (MARK_VAR.to_string(), mark.clone()),
            ],
            home: home.clone(),
            ns,
            apps_env: apps_env.clone(),
            _home_dir: home_dir,
            logs,
            children: vec![xvfb],
            wm_config: None,
            wm_child: 0,
            mark,
            account,
        };
        session.start_bus()?;
        let env = session.env.clone();
        session.wm_config = Some(session.openbox_config(launcher)?);
        session.spawn_window_manager()?;
        session.children.push(spawn(
            AT_SPI_LAUNCHER,
            &["--launch-immediately"],
            &env,
            account,
        )?);
        // The bridge registers with the bus when an application starts; give the
        // launcher a moment to own its name.
        std::thread::sleep(Duration::from_millis(500));
        session.env.extend(apps_env);
        Ok(session)
    }

    /// Starts openbox (its error output goes to the session's `openbox.log`).
    fn spawn_window_manager(&mut self) -> Result<(), EnvError> {
        let Some(rc) = self.wm_config.clone() else {
            return Ok(());
        };
        let mut cmd = Command::new("openbox");
        // In the applications' namespace: the launcher it starts, and what
        // that starts, see the sandbox at /home/user.
        self.ns.enter(&mut cmd, self.account);
        die_with_parent(&mut cmd);
        cmd.args(["--config-file", &rc])
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(self.log_for("openbox"));
        let child = cmd.spawn().map_err(|e| {
            fail(format!(
                "cannot start openbox: {e} (apt-get install openbox)"
            ))
        })?;
        if self.wm_child == 0 {
            self.wm_child = self.children.len();
            self.children.push(child);
        } else {
            self.children[self.wm_child] = child;
        }
        Ok(())
    }

    /// Waits until `ready` says the window manager runs (up to 60 s). A window
    /// manager that exited is started again (twice at most): on a loaded machine
    /// openbox has been seen to come up only on a second start.
    ///
    /// # Errors
    /// When it is not up in time, with its exit status and last words.
    pub fn await_window_manager(
        &mut self,
        mut ready: impl FnMut() -> bool,
    ) -> Result<(), EnvError> {
        if self.wm_config.is_none() {
            return Ok(());
        }
        let limit = Duration::from_secs(60);
        let start = Instant::now();
        let mut restarts = 0;
        let mut status = None;
        while start.elapsed() < limit {
            if ready() {
                return Ok(());
            }
            let exited = self.children[self.wm_child].try_wait().ok().flatten();
            if let Some(code) = exited {
                status = Some(code);
                if restarts == 2 {
                    break;
                }
                restarts += 1;
                self.spawn_window_manager()?;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        if ready() {
            return Ok(());
        }
        let how = match status {
            Some(code) => format!("it exited ({code}), {restarts} restart(s)"),
            None => "it is still starting".to_string(),
        };
        Err(fail(format!(
            "the window manager (openbox) did not start within {} s: {how}{}",
            limit.as_secs(),
            self.log_tail("openbox")
        )))
    }

    /// Writes the window manager's configuration: the system's (Debian's
    /// /etc/xdg/openbox/rc.xml) with Alt+F2 bound to `launcher` when there is
    /// one. Returns its path.
    fn openbox_config(&self, launcher: Option<&str>) -> Result<String, EnvError> {
        let system = std::fs::read_to_string("/etc/xdg/openbox/rc.xml").unwrap_or_else(|_| {
            "<?xml version=\"1.0\"?>\n<openbox_config xmlns=\"http://openbox.org/3.4/rc\">\n<keyboard>\n</keyboard>\n</openbox_config>\n".to_string()
        });
        // The launcher (and what it starts) runs as an application: in the
        // sandboxed home, with the accessibility bridge; openbox keeps its own
        // environment (it splits the command as a shell would, without a shell).
        let with_env = |cmd: &str| {
            let vars: Vec<String> = self
                .apps_env
                .iter()
                .map(|(k, v)| format!("'{k}={}'", v.replace('\'', "")))
                .collect();
            format!("env {} {cmd}", vars.join(" "))
        };
        let rc = match launcher {
            Some(cmd) => system.replacen(
                "<keyboard>",
                &format!(
                    "<keyboard>\n  <keybind key=\"A-F2\"><action name=\"Execute\"><command>{}</command></action></keybind>",
                    xml_escape(&with_env(cmd))
                ),
                1,
            ),
            None => system,
        };
        let path = self.logs.path().join("openbox-rc.xml");
        std::fs::write(&path, rc).map_err(|source| EnvError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(path.to_string_lossy().to_string())
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

    /// Starts a private session bus (our child, so it ends with us) and records
    /// its address. Run as the session's account, it is told to let root (synth
    /// reading the accessibility tree) in too.
    fn start_bus(&mut self) -> Result<(), EnvError> {
        let mut cmd = Command::new("dbus-daemon");
        match self.account {
            Some(a) => {
                let conf = self.logs.path().join("session-bus.conf");
                std::fs::write(&conf, BUS_CONFIG).map_err(|source| EnvError::Io {
                    path: conf.clone(),
                    source,
                })?;
                cmd.arg(format!("--config-file={}", conf.display()));
                a.apply(&mut cmd);
            }
            None => {
                cmd.arg("--session");
            }
        }
        cmd.args(["--nofork", "--print-address=1"])
            .env("DISPLAY", &self.display)
            .env(MARK_VAR, &self.mark)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        die_with_parent(&mut cmd);
        let mut child = cmd
            .spawn()
            .map_err(|e| fail(format!("cannot start dbus-daemon: {e}")))?;
        let address = first_line(&mut child, Duration::from_secs(20));
        self.children.push(child);
        let address = address
            .filter(|a| !a.is_empty())
            .ok_or_else(|| fail("dbus-daemon printed no bus address within 20 s"))?;
        self.env.push(("DBUS_SESSION_BUS_ADDRESS".into(), address));
        Ok(())
    }
}

/// The session bus's configuration when it runs as the session's account:
/// the system's session configuration, and root let in.
const BUS_CONFIG: &str = r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <include>/usr/share/dbus-1/session.conf</include>
  <policy context="default"><allow user="root"/></policy>
</busconfig>
"#;

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Asks the kernel to kill the program started by `cmd` when synth ends, however
/// it ends (a signal, a crash): a desktop never outlives the run that started it.
pub fn die_with_parent(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// The first line `child` prints on its piped stdout, trimmed, within `limit`.
fn first_line(child: &mut Child, limit: Duration) -> Option<String> {
    use std::io::{BufRead, BufReader};
    let stdout = child.stdout.take()?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        let _ = reader.read_line(&mut line);
        let _ = tx.send(line);
        // Keep reading so the program never blocks on a full pipe.
        let mut rest = String::new();
        while reader.read_line(&mut rest).is_ok_and(|n| n > 0) {
            rest.clear();
        }
    });
    rx.recv_timeout(limit).ok().map(|l| l.trim().to_string())
}

impl Session {
    /// The live processes of this session: synth's own children (the display,
    /// the buses, the window manager) and every process that carries the
    /// session's mark (applications and whatever they or the buses started,
    /// detached or not).
    pub fn processes(&self) -> Vec<u32> {
        let mut pids: Vec<u32> = self
            .children
            .iter()
            .map(Child::id)
            .filter(|p| is_alive(*p))
            .collect();
        for pid in marked_processes(&self.mark) {
            if !pids.contains(&pid) {
                pids.push(pid);
            }
        }
        pids.sort_unstable();
        pids
    }

    /// Kills every process of the session ([`Session::processes`]) and reaps
    /// synth's own children. A process may start another while it is being
    /// killed, so the sweep is repeated until none is left (at most 2 s).
    fn end(&mut self) {
        let started = Instant::now();
        loop {
            for child in self.children.iter_mut().rev() {
                let _ = child.kill();
            }
            for pid in marked_processes(&self.mark) {
                // SAFETY: kill(2) of a process that carries this session's mark.
                unsafe {
                    libc::kill(pid as libc::pid_t, libc::SIGKILL);
                }
            }
            for child in &mut self.children {
                let _ = child.wait();
            }
            if marked_processes(&self.mark).is_empty() || started.elapsed() > Duration::from_secs(2)
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.children.clear();
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.end();
    }
}

/// The environment of the applications: the sandboxed home (at `/home/user`
/// in their namespace), GTK's and Qt's accessibility bridges on, no desktop
/// portal lookups.
fn app_env() -> Vec<(String, String)> {
    let h = super::sandbox::HOME;
    vec![
        ("HOME".into(), h.to_string()),
        ("XDG_CONFIG_HOME".into(), format!("{h}/.config")),
        ("XDG_DATA_HOME".into(), format!("{h}/.local/share")),
        ("XDG_CACHE_HOME".into(), format!("{h}/.cache")),
        ("NO_AT_BRIDGE".into(), "0".into()),
        ("GTK_MODULES".into(), "gail:atk-bridge".into()),
        ("GTK_USE_PORTAL".into(), "0".into()),
        // Qt's bridge, which Qt starts only when asked (or when a screen
        // reader is said to run).
        ("QT_ACCESSIBILITY".into(), "1".into()),
        ("QT_LINUX_ACCESSIBILITY_ALWAYS_ON".into(), "1".into()),
        ("XDG_SESSION_TYPE".into(), "x11".into()),
    ]
}

/// Starts Xvfb on a display number it picks itself (`-displayfd`: the server
/// takes the first free number and writes it when it is ready, so desktops
/// started at once, in one process or several, never share a display).
fn start_xvfb(mark: &str) -> Result<(Child, u32), EnvError> {
    let screen = format!("{WIDTH}x{HEIGHT}x24");
    let mut cmd = Command::new("Xvfb");
    cmd.args([
        "-displayfd",
        "1",
        "-screen",
        "0",
        &screen,
        "-nolisten",
        "tcp",
    ])
    .env(MARK_VAR, mark)
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::null());
    die_with_parent(&mut cmd);
    let mut child = cmd
        .spawn()
        .map_err(|e| fail(format!("cannot start Xvfb: {e} (apt-get install xvfb)")))?;
    let line = first_line(&mut child, Duration::from_secs(20)).unwrap_or_default();
    match line.parse::<u32>() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_names_the_synth_that_made_it() {
        let mark = new_mark(3);
        assert_eq!(mark_owner(&mark), Some(std::process::id()));
        assert_eq!(mark_owner("not-a-pid"), None);
    }

    #[test]
    fn the_processes_of_a_mark_are_found_and_no_others() {
        let mark = format!("{}-test-{}", std::process::id(), line!());
        let mut child = Command::new("sleep")
            .arg("30")
            .env(MARK_VAR, &mark)
            .spawn()
            .unwrap();
        // The kernel sets a new program's environment a moment after spawn
        // returns (spawn waits for the exec, not for its stack).
        let started = Instant::now();
        let mut found = marked_processes(&mark);
        while found.is_empty() && started.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
            found = marked_processes(&mark);
        }
        let other = marked_processes(&format!("{mark}-other"));
        let listed = processes_with_marks()
            .into_iter()
            .any(|(pid, m)| pid == child.id() && m == mark);
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(found, vec![child.id()]);
        assert!(other.is_empty(), "{other:?}");
        assert!(listed);
        // Dead and reaped: no longer listed.
        assert!(marked_processes(&mark).is_empty());
    }
}
