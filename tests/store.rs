//! The store under more than one process: one writer at a time (a second writer
//! exits 2 naming the store, readers work beside the writer, a killed writer leaves
//! no lock behind and its runs are marked interrupted by the next writer).

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::Workspace;

/// Starts `synth args...` in the workspace without waiting for it.
fn spawn(ws: &Workspace, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_synth"))
        .arg("--workspace")
        .arg(ws.path())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the synth binary starts")
}

/// Waits until the process `child` holds the writer lock of `store` (its lock file
/// names it), failing if it ends first.
fn wait_for_lock(child: &mut Child, store: &Path) {
    let lock = store.with_file_name("synth.sqlite.lock");
    let me = format!("process {} ", child.id());
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if std::fs::read_to_string(&lock).is_ok_and(|t| t.starts_with(&me)) {
            return;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the first writer ended ({status}) before it was seen holding the lock");
        }
        assert!(Instant::now() < deadline, "no lock after 60 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_second_writer_exits_2_and_readers_work_beside_the_first() {
    let ws = Workspace::new();
    let store = ws.file("generated/synth.sqlite");
    // A long writer: the whole pipeline from an empty store.
    let mut first = spawn(&ws, &["run", "--formats", "none", "--quiet"]);
    wait_for_lock(&mut first, &store);

    let second = ws.synth(&["run", "--formats", "none", "--quiet"]);
    let err = String::from_utf8_lossy(&second.stderr);
    let still_running = first.try_wait().unwrap().is_none();
    assert_eq!(second.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&store.display().to_string()) && err.contains("in use by another synth"),
        "{err}"
    );
    assert!(
        err.contains(&format!("process {}", first.id())),
        "names the holder: {err}"
    );
    assert!(still_running, "the first run was still going");

    // Readers do not wait for the writer.
    let stats = ws.synth(&["stats", "--json"]);
    assert!(
        stats.status.success(),
        "{}",
        String::from_utf8_lossy(&stats.stderr)
    );
    let pool = ws.synth(&["pool", "export"]);
    assert!(pool.status.success());

    // A killed writer leaves no lock behind: the next writer starts at once, and
    // marks the runs the killed one left open as interrupted.
    wait_for_open_run(&store);
    first.kill().unwrap();
    first.wait().unwrap();
    assert!(runs(&store, "running") > 0);
    ws.ok(&["pool", "import", "--quiet", "subtask_pool/pool.jsonl"]);
    assert_eq!(runs(&store, "running"), 0);
    assert!(runs(&store, "interrupted") > 0);
}

/// Runs with this status.
fn runs(store: &Path, status: &str) -> i64 {
    let conn = rusqlite::Connection::open(store).unwrap();
    conn.query_row(
        "SELECT count(*) FROM runs WHERE status = ?1",
        [status],
        |r| r.get(0),
    )
    .unwrap()
}

/// Waits until some stage of the writer has begun its run.
fn wait_for_open_run(store: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while runs(store, "running") == 0 {
        assert!(Instant::now() < deadline, "no run began within 60 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A workspace whose store holds the committed pool.
fn imported() -> Workspace {
    let ws = Workspace::new();
    ws.ok(&["pool", "import", "--quiet", "subtask_pool/pool.jsonl"]);
    ws
}

#[test]
fn a_damaged_store_is_never_written_and_readers_say_so() {
    let ws = imported();
    let store = ws.file("generated/synth.sqlite");
    // 64 KiB of noise in the middle of the file, as a bad disk or copy leaves it.
    let mut bytes = std::fs::read(&store).unwrap();
    let mid = bytes.len() / 2;
    let mut x: u32 = 17;
    for b in &mut bytes[mid..mid + 65_536] {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        *b = (x >> 16) as u8;
    }
    std::fs::write(&store, &bytes).unwrap();

    let run = ws.synth(&["run", "--formats", "none", "--quiet"]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is damaged") && err.contains(&store.display().to_string()),
        "{err}"
    );
    assert_eq!(std::fs::read(&store).unwrap(), bytes, "nothing was written");

    let stats = ws.synth(&["stats"]);
    let err = String::from_utf8_lossy(&stats.stderr);
    assert!(
        err.contains("damaged") && err.contains(&store.display().to_string()),
        "{err}"
    );
    // One message per error: SQLite's text once, not again behind its code.
    for line in err.lines().filter(|l| l.starts_with("synth: ")) {
        assert!(line.matches("malformed").count() <= 1, "{line}");
    }
    // A reader that fails on a damaged page names the store, not only SQLite's
    // 'database disk image is malformed'.
    let report = ws.synth(&["report", "--quiet"]);
    let err = String::from_utf8_lossy(&report.stderr);
    assert_eq!(report.status.code(), Some(2), "{err}");
    let line = err.lines().find(|l| l.starts_with("synth: ")).unwrap_or("");
    assert!(
        line.contains("is damaged") && line.contains(&store.display().to_string()),
        "{err}"
    );
    assert_eq!(std::fs::read(&store).unwrap(), bytes, "nothing was written");
}

#[test]
fn a_read_only_store_is_read_and_writers_name_it() {
    let ws = imported();
    let store = ws.file("generated/synth.sqlite");
    let mut perms = std::fs::metadata(&store).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&store, perms).unwrap();

    let stats = ws.ok(&["stats", "--json"]);
    assert!(stats.contains("verified"), "{stats}");
    let run = ws.synth(&["run", "--formats", "none", "--quiet"]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is read-only") && err.contains(&store.display().to_string()),
        "{err}"
    );
}
