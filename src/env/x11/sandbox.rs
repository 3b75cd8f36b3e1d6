//! What the applications see of the sandboxed home: a private mount namespace
//! per desktop in which the sandbox folder (`/tmp/synth-x11-home-…`) is mounted
//! at `/home/user`, the path tasks name. A file dialog, a window title or a
//! recent-files list then shows `/home/user/…` in the screenshots, as the
//! recorded actions and instructions say, and every desktop of `--jobs N` sees
//! its own sandbox at that same path.
//!
//! The namespace is made by a keeper process (`sleep infinity`, marked as the
//! session's programs are, so it ends with the session): `/home` is a fresh
//! tmpfs there (the machine's real homes are hidden from the applications),
//! holding `user`, the sandbox folder bound in. The window manager (and so the
//! launcher and what it starts) and every application join that namespace
//! before they run ([`Namespace::enter`]). synth itself stays outside and
//! reads and writes the sandbox by its real path.
//!
//! As root, the keeper makes a mount namespace (the applications then drop to
//! the session's account, see [`super::session::Account`]); as another user,
//! a user namespace that maps only that user to itself, with its own mount
//! namespace: no setuid helper and no package is needed, only a kernel that
//! allows either (Debian's does; a container needs the capability to mount
//! as root, or user namespaces).

use std::ffi::{CStr, CString};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use super::session::{die_with_parent, Account, MARK_VAR};
use crate::env::EnvError;

/// Where the applications see the sandbox: the task-side path of the home.
pub const HOME: &str = "/home/user";

/// One desktop's mount namespace, held open by its keeper process.
#[derive(Debug)]
pub struct Namespace {
    keeper: Child,
    /// The keeper's user namespace (only when synth is not root).
    user: Option<File>,
    /// The keeper's mount namespace.
    mnt: File,
}

fn fail(message: impl Into<String>) -> EnvError {
    EnvError::backend("x11", message)
}

/// -1 from a system call as the error it set.
fn check(ret: libc::c_int) -> std::io::Result<()> {
    if ret == -1 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Writes `data` to `path` with raw system calls (safe between fork and exec).
fn write_raw(path: &CStr, data: &[u8]) -> std::io::Result<()> {
    // SAFETY: open/write/close on a NUL-terminated path and a live buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        check(fd)?;
        let n = libc::write(fd, data.as_ptr().cast(), data.len());
        let written = if n == data.len() as isize {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        };
        libc::close(fd);
        written
    }
}

fn c(text: &str) -> CString {
    CString::new(text).expect("no NUL in a static path")
}

impl Namespace {
    /// Starts the keeper of a namespace in which `sandbox` is `/home/user`.
    ///
    /// # Errors
    /// When the kernel refuses the namespace or the mounts (a container without
    /// the capability to mount, user namespaces turned off), naming the cause.
    pub fn start(sandbox: &Path, mark: &str) -> Result<Namespace, EnvError> {
        // SAFETY: geteuid/getegid have no preconditions.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let root = uid == 0;
        let source = CString::new(sandbox.as_os_str().as_bytes()).map_err(|_| {
            fail(format!(
                "the sandbox path {} holds a NUL",
                sandbox.display()
            ))
        })?;
        // Everything the child needs is made here: between fork and exec it
        // only makes system calls.
        let (setgroups, uid_map, gid_map) = (
            c("/proc/self/setgroups"),
            c("/proc/self/uid_map"),
            c("/proc/self/gid_map"),
        );
        let (uid_line, gid_line) = (format!("{uid} {uid} 1\n"), format!("{gid} {gid} 1\n"));
        let (slash, home, user, tmpfs, mode) =
            (c("/"), c("/home"), c(HOME), c("tmpfs"), c("mode=0755"));
        let mut cmd = Command::new("sleep");
        cmd.arg("infinity")
            .env(MARK_VAR, mark)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        die_with_parent(&mut cmd);
        // SAFETY: the closure makes system calls only, on buffers made above.
        unsafe {
            cmd.pre_exec(move || {
                if root {
                    check(libc::unshare(libc::CLONE_NEWNS))?;
                } else {
                    check(libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS))?;
                    write_raw(&setgroups, b"deny")?;
                    write_raw(&uid_map, uid_line.as_bytes())?;
                    write_raw(&gid_map, gid_line.as_bytes())?;
                }
                // Nothing mounted here reaches the machine's own mounts.
                check(libc::mount(
                    std::ptr::null(),
                    slash.as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ))?;
                check(libc::mount(
                    tmpfs.as_ptr(),
                    home.as_ptr(),
                    tmpfs.as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    mode.as_ptr().cast(),
                ))?;
                check(libc::mkdir(user.as_ptr(), 0o755))?;
                check(libc::mount(
                    source.as_ptr(),
                    user.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND | libc::MS_REC,
                    std::ptr::null(),
                ))?;
                Ok(())
            });
        }
        // spawn returns once the child has run the closure and exec'd (or
        // reports what the closure failed with).
        let keeper = cmd.spawn().map_err(|e| {
            fail(format!(
                "cannot give the applications a private /home/user (a mount namespace{}): {e}; \
                 in a container, allow it to mount (e.g. docker run --cap-add SYS_ADMIN) or to make user namespaces",
                if root { "" } else { " inside a user namespace" }
            ))
        })?;
        let ns = |kind: &str| {
            let path = format!("/proc/{}/ns/{kind}", keeper.id());
            File::open(&path).map_err(|source| EnvError::Io {
                path: path.into(),
                source,
            })
        };
        let user = if root { None } else { Some(ns("user")?) };
        let mnt = ns("mnt")?;
        Ok(Namespace { keeper, user, mnt })
    }

    /// Makes `cmd` run inside the namespace, in `/home/user`, as `account`
    /// when given (the account is taken after joining: only a privileged
    /// process may join, so `Command::uid` cannot be used for it).
    pub fn enter(&self, cmd: &mut Command, account: Option<Account>) {
        let user = self.user.as_ref().map(AsRawFd::as_raw_fd);
        let mnt = self.mnt.as_raw_fd();
        let home = c(HOME);
        // SAFETY: setns/setgroups/setgid/setuid/chdir on descriptors and a path
        // made before the fork; the descriptors live as long as `self`, which
        // outlives the spawn.
        unsafe {
            cmd.pre_exec(move || {
                if let Some(fd) = user {
                    check(libc::setns(fd, libc::CLONE_NEWUSER))?;
                }
                check(libc::setns(mnt, libc::CLONE_NEWNS))?;
                if let Some(a) = account {
                    check(libc::setgroups(0, std::ptr::null()))?;
                    check(libc::setgid(a.gid))?;
                    check(libc::setuid(a.uid))?;
                }
                check(libc::chdir(home.as_ptr()))
            });
        }
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        let _ = self.keeper.kill();
        let _ = self.keeper.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A program started in the namespace reads the sandbox's files at
    /// /home/user, runs there, and what it writes lands in the sandbox; the
    /// machine's own /home is untouched.
    #[test]
    fn a_program_in_the_namespace_sees_the_sandbox_at_home_user() {
        let sandbox = tempfile::tempdir().unwrap();
        std::fs::write(sandbox.path().join("in.txt"), "from the sandbox").unwrap();
        let ns = match Namespace::start(sandbox.path(), "test") {
            Ok(ns) => ns,
            Err(e) if std::env::var("CI").is_err() => {
                eprintln!("no namespace on this machine: {e}");
                return;
            }
            Err(e) => panic!("{e}"),
        };
        let mut cmd = Command::new("sh");
        cmd.args([
            "-c",
            "cat /home/user/in.txt; pwd; echo made > /home/user/out.txt",
        ]);
        ns.enter(&mut cmd, None);
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "from the sandbox/home/user\n"
        );
        assert_eq!(
            std::fs::read_to_string(sandbox.path().join("out.txt")).unwrap(),
            "made\n"
        );
        assert!(!Path::new("/home/user/out.txt").exists());
    }
}
