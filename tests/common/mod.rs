//! Shared helpers for integration tests: a fresh temporary workspace holding a copy
//! of the repository's `resources/` and `subtask_pool/`, and a way to run the real
//! `synth` binary in it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Six applications that make and use each other's files (archives, sheets,
/// documents, mail attachments): enough for intents and tasks that span
/// applications, in a fraction of the whole desktop's time.
pub const SMALL_APPS: [&str; 6] = [
    "archiver",
    "files",
    "mail",
    "sheets",
    "text_editor",
    "writer",
];

pub struct Workspace {
    pub dir: tempfile::TempDir,
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

impl Workspace {
    /// A workspace with the repository's resources, prompts and committed pool.
    pub fn new() -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        for sub in ["resources", "subtask_pool", "prompts"] {
            if repo.join(sub).is_dir() {
                copy_tree(&repo.join(sub), &dir.path().join(sub));
            }
        }
        Workspace { dir }
    }

    /// A workspace whose desktop has only `apps` (file stems under
    /// `resources/apps`), for runs that need a few applications, not all.
    pub fn with_apps(apps: &[&str]) -> Workspace {
        let ws = Workspace::new();
        let dir = ws.file("resources/apps");
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            if !apps.contains(&stem.as_str()) {
                std::fs::remove_file(&p).unwrap();
            }
        }
        ws
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn file(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Runs `synth --workspace <ws> args...`.
    pub fn synth(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_synth"))
            .current_dir(self.dir.path())
            .arg("--workspace")
            .arg(self.dir.path())
            .args(args)
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL")
            .output()
            .expect("the synth binary runs")
    }

    /// Runs synth and asserts success; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.synth(args);
        assert!(
            out.status.success(),
            "synth {args:?} failed ({:?}):\nstdout:\n{}\nstderr:\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

/// Whether the real-desktop tests can run: the session's programs (Xvfb,
/// openbox, the buses) and `programs` are installed. Without them a test says
/// what is missing and passes, except under CI (`CI=true`), where a missing
/// program fails it (`.ci/run` must install it).
pub fn x11_available(programs: &[&str]) -> bool {
    let missing = synth::env::x11::session::missing_program().or_else(|| {
        programs
            .iter()
            .find(|p| {
                !std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                    .any(|d| d.join(p).is_file())
            })
            .map(|p| p.to_string())
    });
    match missing {
        None => true,
        Some(m) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("{m} is missing: .ci/run must install it")
        }
        Some(m) => {
            eprintln!("skipping the x11 test: {m} is not installed");
            false
        }
    }
}

/// Scrolls the list that holds item `name` until the item is on screen, as a
/// person would before clicking it: wheel steps on each List of the screen in
/// turn, down and then up, until the item shows or the list scrolls no further. Does nothing when
/// the item is already visible or no list holds it. The desktop's Documents
/// folder is longer than an Open dialog shows.
pub fn reveal(d: &mut synth::env::SimDesktop, name: &str) {
    let visible = |d: &synth::env::SimDesktop| {
        d.live()
            .controls
            .iter()
            .any(|c| c.name == name || c.info.control_text == name)
    };
    if visible(d) {
        return;
    }
    let lists: Vec<String> = d
        .live()
        .controls
        .iter()
        .filter(|c| c.info.control_type == "List")
        .map(|c| c.name.clone())
        .collect();
    for (list, dist) in lists.iter().flat_map(|l| [(l, 1), (l, -1)]) {
        loop {
            let out = d.step(&synth::model::Action {
                call: synth::model::ActionCall::WheelMouseInput { wheel_dist: dist },
                control_label: None,
                control_text: list.clone(),
            });
            if visible(d) {
                return;
            }
            let stuck = out
                .observation
                .feedback
                .as_deref()
                .is_none_or(|f| f.contains("cannot scroll further"));
            if !out.ok || stuck {
                break;
            }
        }
    }
}
