//! The crash test: `synth run` killed with SIGKILL in every stage, resumed, and
//! compared with an uninterrupted run, every output file byte for byte (the HTML
//! report with its "Generated ..." time masked) and every table row by row (times,
//! run ids and call latencies aside); no run may be left 'running', and the killed
//! ones are recorded as interrupted.
//!
//! Two sizes:
//! - `killed_in_every_stage_of_a_small_run_resumes_to_the_same_bytes` runs in the
//!   suite: six applications, eight tasks, one kill aimed at each stage (well under
//!   a minute).
//! - `killed_anywhere_resumes_to_the_same_bytes` is ignored by default (the whole
//!   workspace, a few minutes); run it on demand with
//!
//! ```sh
//! SYNTH_CRASH_KILLS=30 SYNTH_CRASH_SEED=3 cargo test --release --test crash -- --ignored --nocapture
//! ```
//!
//! `SYNTH_CRASH_KILLS` (default 8) kills, spread over the stages in pipeline order;
//! `SYNTH_CRASH_SEED` (default 1) draws how long after a stage starts each kill
//! comes (within the first half of the time the stage took uninterrupted). The
//! tests print where each kill landed.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use common::{Workspace, SMALL_APPS};

/// The run under test (`--quiet` is added for the killed ones).
const RUN: &[&str] = &["run", "--formats", "sharegpt"];

/// A workspace with only [`SMALL_APPS`].
fn small_workspace() -> Workspace {
    Workspace::with_apps(&SMALL_APPS)
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn spawn(ws: &Workspace, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_synth"))
        .current_dir(ws.path())
        .arg("--workspace")
        .arg(ws.path())
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the synth binary starts")
}

/// Runs `synth run` to its end (`run` holds its flags); asserts it succeeded (0,
/// or 3 for a shortfall) and returns its summary.
fn finish(ws: &Workspace, run: &[&str]) -> String {
    let args: Vec<&str> = RUN.iter().chain(run).copied().collect();
    let out = ws.synth(&args);
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "synth run failed ({:?}):\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Milliseconds per stage from `synth run`'s summary lines (`  verify  61.2s ...`).
fn stage_millis(summary: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for line in summary.lines() {
        let mut words = line.split_whitespace();
        let (Some(stage), Some(next)) = (words.next(), words.next()) else {
            continue;
        };
        // "export sharegpt  1.2s": the format is a second word.
        let secs = if stage == "export" {
            words.next()
        } else {
            Some(next)
        };
        if let Some(secs) = secs.and_then(|w| w.strip_suffix('s')?.parse::<f64>().ok()) {
            out.insert(stage.to_string(), (secs * 1000.0) as u64);
        }
    }
    out
}

/// Every output file (relative path -> bytes), the report and the store aside.
fn outputs(ws: &Workspace) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                if rel.starts_with("synth.sqlite") {
                    continue;
                }
                let bytes = std::fs::read(&p).unwrap();
                let bytes = if rel == "report.html" {
                    without_time(&bytes)
                } else {
                    bytes
                };
                out.insert(rel, bytes);
            }
        }
    }
    let root = ws.file("generated");
    let mut out = BTreeMap::new();
    walk(&root, &root, &mut out);
    out
}

/// The report without the time it was generated at ("Generated 2026-11-25 23:52
/// UTC"), the one thing two reports of the same store differ in.
fn without_time(html: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(html);
    let Some(at) = text.find("Generated ") else {
        return html.to_vec();
    };
    let end = text[at..]
        .find(" UTC")
        .map_or(at, |n| at + n + " UTC".len());
    format!("{}{}", &text[..at], &text[end..]).into_bytes()
}

/// Every row of every table as text, sorted, without times and run ids (a resumed
/// run has more runs) and without the runs table itself.
fn rows(store: &Path) -> BTreeMap<String, Vec<String>> {
    let conn = rusqlite::Connection::open(store).unwrap();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'runs'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out = BTreeMap::new();
    for t in tables {
        let cols: Vec<String> = conn
            .prepare(&format!("SELECT name FROM pragma_table_info('{t}')"))
            .unwrap()
            .query_map([], |r| r.get::<_, String>(0))
            .unwrap()
            .map(Result::unwrap)
            // Times, run ids and call latencies differ between any two runs; the
            // call record's own row id counts calls, which a killed run repeats.
            .filter(|c| !c.ends_with("_at") && c != "run_id" && c != "latency_ms")
            .filter(|c| !(c == "id" && t == "model_calls"))
            .collect();
        let sql = format!("SELECT {} FROM {t}", cols.join(", "));
        let mut stmt = conn.prepare(&sql).unwrap();
        let n = cols.len();
        let mut lines: Vec<String> = stmt
            .query_map([], |r| {
                let mut line = Vec::with_capacity(n);
                for i in 0..n {
                    let v: rusqlite::types::Value = r.get(i)?;
                    line.push(format!("{v:?}"));
                }
                Ok(line.join("|"))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        lines.sort();
        out.insert(t, lines);
    }
    out
}

/// The stages of `synth run` in order, as [`current_stage`] and [`landed`] name them.
const STAGES: [&str; 8] = [
    "explore",
    "verify",
    "intents",
    "compose",
    "validate",
    "trajectories",
    "export",
    "report",
];

/// The position in [`STAGES`] of the stage under way in the workspace, if any: a
/// stage that records runs has one open (newer than run `floor`: a run the previous
/// kill left open is not this process's); the export has its staging folder (made
/// since `since`: the previous kill's leftover is not); the report follows a
/// finished export.
fn current_stage(ws: &Workspace, floor: i64, since: SystemTime) -> Option<usize> {
    let staging = ws.file("generated/export/.sharegpt.partial");
    let staged = std::fs::metadata(&staging)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t >= since);
    let stage = match open_run(ws).filter(|(id, _)| *id > floor) {
        Some((_, command)) => command,
        None if staged => "export".into(),
        None if ws.file("generated/export/sharegpt/export.json").exists() => "report".into(),
        None => return None,
    };
    STAGES.iter().position(|s| *s == stage)
}

/// The newest run's id (0 without runs).
fn last_run_id(ws: &Workspace) -> i64 {
    let store = ws.file("generated/synth.sqlite");
    if !store.exists() {
        return 0;
    }
    rusqlite::Connection::open(&store)
        .and_then(|c| c.query_row("SELECT coalesce(max(id), 0) FROM runs", [], |r| r.get(0)))
        .unwrap_or(0)
}

/// The run that is open (`running`), if any: (id, command).
fn open_run(ws: &Workspace) -> Option<(i64, String)> {
    let store = ws.file("generated/synth.sqlite");
    if !store.exists() {
        return None;
    }
    let conn = rusqlite::Connection::open(&store).ok()?;
    conn.query_row(
        "SELECT id, command FROM runs WHERE status = 'running' ORDER BY id DESC LIMIT 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .ok()
}

/// Where a kill landed: the stage whose run (newer than `floor`) was open, or what
/// the files show.
fn landed(ws: &Workspace, floor: i64, since: SystemTime) -> String {
    if let Some((_, stage)) = open_run(ws).filter(|(id, _)| *id > floor) {
        return stage;
    }
    match current_stage(ws, floor, since) {
        Some(i) => STAGES[i].to_string(),
        None => "before or between stages (start-up, compose top-up)".into(),
    }
}

/// Runs `synth run` (with `run` flags) uninterrupted in `whole`, then `kills`
/// times in `crashed`, killed with SIGKILL in each stage in turn, resumes it to its
/// end, and asserts that both give the same tables and files, that no run is left
/// 'running' and that the killed runs are recorded as interrupted. Returns where
/// each kill landed.
fn crash_and_compare(
    whole: &Workspace,
    crashed: &Workspace,
    run: &[&str],
    kills: u64,
    seed: u64,
) -> Vec<String> {
    let mut seed = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let t = Instant::now();
    let summary = finish(whole, run);
    eprintln!("uninterrupted run: {:.1}s", t.elapsed().as_secs_f64());
    // The run's own summary says how long each stage took: kills come within that.
    let took = stage_millis(&summary);
    eprintln!("stage times (ms): {took:?}");

    // Kills spread over the stages in pipeline order: each restart goes on from
    // where the previous one was killed, waits until the target stage (or a later
    // one, when the target was finished before) is under way and kills it a random
    // moment later (by then it may have moved on: where the kill landed is
    // printed). A stage aimed at k times is killed within the first 1/(k+1) of the
    // time it took uninterrupted each time, so that it is still under way at its
    // last kill.
    let target_of = |i: u64| (i as usize * STAGES.len()) / kills.max(1) as usize;
    let mut landings = Vec::new();
    for i in 0..kills {
        let target = target_of(i);
        let aimed = (0..kills).filter(|&j| target_of(j) == target).count() as u64;
        let span = (took.get(STAGES[target]).copied().unwrap_or(0) / (aimed + 1)).max(20);
        let delay = Duration::from_millis(random() % span);
        let floor = last_run_id(crashed);
        let since = SystemTime::now();
        let mut child = spawn(crashed, &[RUN, run, &["--quiet"]].concat());
        let deadline = Instant::now() + Duration::from_secs(600);
        let mut seen: Option<Instant> = None;
        while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
            match seen {
                None if current_stage(crashed, floor, since).is_some_and(|c| c >= target) => {
                    seen = Some(Instant::now());
                }
                Some(at) if at.elapsed() >= delay => break,
                _ => {}
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let stage = if child.try_wait().unwrap().is_some() {
            FINISHED.to_string()
        } else {
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            landed(crashed, floor, since)
        };
        eprintln!(
            "kill {}: aimed at {} + {:.2}s, landed in {stage}",
            i + 1,
            STAGES[target],
            delay.as_secs_f64()
        );
        landings.push(stage);
    }
    finish(crashed, &[run, &["--quiet"]].concat());

    let store_crashed = crashed.file("generated/synth.sqlite");
    let count_runs = |status: &str| -> i64 {
        rusqlite::Connection::open(&store_crashed)
            .unwrap()
            .query_row(
                "SELECT count(*) FROM runs WHERE status = ?1",
                [status],
                |r| r.get(0),
            )
            .unwrap()
    };
    assert_eq!(count_runs("running"), 0, "runs left 'running'");
    // A kill inside a stage that records its run leaves it open; the next start
    // records it as interrupted.
    let in_recorded_stage = landings
        .iter()
        .filter(|l| STAGES[..6].contains(&l.as_str()))
        .count() as i64;
    assert!(
        count_runs("interrupted") >= in_recorded_stage,
        "{in_recorded_stage} kills inside stages, {} runs recorded as interrupted",
        count_runs("interrupted")
    );

    assert_same_outputs(whole, crashed, &format!("{kills} kills"));
    landings
}

/// Asserts that `other` holds the same tables (row by row) and output files (byte
/// for byte) as `whole`; `what` says what happened to `other`, for the message.
fn assert_same_outputs(whole: &Workspace, other: &Workspace, what: &str) {
    let (a, b) = (
        rows(&whole.file("generated/synth.sqlite")),
        rows(&other.file("generated/synth.sqlite")),
    );
    let differing: Vec<String> = a
        .iter()
        .filter(|(t, r)| b.get(*t) != Some(*r))
        .map(|(t, r)| {
            let other = b.get(t).map_or(0, Vec::len);
            format!("{t} ({} rows whole, {other} resumed)", r.len())
        })
        .collect();
    let (fa, fb) = (outputs(whole), outputs(other));
    let files: std::collections::BTreeSet<&String> = fa
        .keys()
        .chain(fb.keys())
        .filter(|k| fa.get(*k) != fb.get(*k))
        .collect();
    eprintln!(
        "{what}; tables differing: {differing:?}; files differing: {} of {}",
        files.len(),
        fa.len()
    );
    assert!(differing.is_empty(), "tables differ: {differing:?}");
    assert!(
        files.is_empty(),
        "files differ: {:?}",
        files.iter().take(10).collect::<Vec<_>>()
    );
}

/// What [`crash_and_compare`] reports for a kill that came after the run ended.
const FINISHED: &str = "none (the run had finished)";

#[test]
fn killed_in_every_stage_of_a_small_run_resumes_to_the_same_bytes() {
    let (whole, crashed) = (small_workspace(), small_workspace());
    let landings = crash_and_compare(&whole, &crashed, &["--count", "8"], 8, 1);
    // A test whose kills all came too late would compare two uninterrupted runs.
    let stages: std::collections::BTreeSet<&str> = landings
        .iter()
        .map(String::as_str)
        .filter(|l| *l != FINISHED)
        .collect();
    assert!(
        stages.len() >= 4,
        "kills landed in too few stages: {landings:?}"
    );
}

#[test]
#[ignore]
fn killed_anywhere_resumes_to_the_same_bytes() {
    let (whole, crashed) = (Workspace::new(), Workspace::new());
    crash_and_compare(
        &whole,
        &crashed,
        &[],
        env_or("SYNTH_CRASH_KILLS", 8),
        env_or("SYNTH_CRASH_SEED", 1),
    );
}

/// A tmpfs mounted over a folder (root only), so that a test can fill the disk
/// under synth at a chosen moment; unmounted when dropped.
struct Tmpfs(std::path::PathBuf);

impl Tmpfs {
    fn mount(dir: &Path) -> Tmpfs {
        std::fs::create_dir_all(dir).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=1g", "tmpfs"])
            .arg(dir)
            .output()
            .expect("mount runs");
        assert!(
            out.status.success(),
            "this test mounts a tmpfs and needs root: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Tmpfs(dir.to_path_buf())
    }

    /// Sets the size to what is used now plus `free_kib`.
    fn leave_free(&self, free_kib: u64) {
        let df = Command::new("df")
            .args(["-k", "--output=used"])
            .arg(&self.0)
            .output()
            .unwrap();
        let used: u64 = String::from_utf8_lossy(&df.stdout)
            .lines()
            .nth(1)
            .and_then(|l| l.trim().parse().ok())
            .expect("df prints the used KiB");
        self.resize(&format!("{}k", used + free_kib));
    }

    fn resize(&self, size: &str) {
        let out = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.0)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Runs synth in `ws` and asserts that it stopped with exit 2 and a message that
/// contains each of `says`; returns the message.
fn fails_saying(ws: &Workspace, args: &[&str], says: &[&str]) -> String {
    let out = ws.synth(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}:\n{stderr}");
    for s in says {
        assert!(stderr.contains(s), "{args:?}: no {s:?} in:\n{stderr}");
    }
    stderr
}

/// The disk fills during verify, then during the export: each stops with one
/// message naming what could not be written, the store stays readable, no staging
/// folder is left to hold the space, and once space is freed a plain re-run
/// finishes with the same tables and files as an uninterrupted run.
#[test]
#[ignore = "needs root: mounts a tmpfs over the workspace's generated/ and shrinks it; run with --ignored"]
fn a_disk_that_fills_in_verify_and_in_export_stops_clearly_and_a_re_run_finishes_the_same() {
    let run = ["--count", "8"];
    let (whole, full) = (small_workspace(), small_workspace());
    finish(&whole, &run);
    let disk = Tmpfs::mount(&full.file("generated"));
    let store = full.file("generated/synth.sqlite");

    assert!(full.synth(&["--quiet", "explore"]).status.success());
    disk.leave_free(64);
    let said = fails_saying(
        &full,
        &["verify"],
        &["is full", &store.display().to_string()],
    );
    eprintln!("verify on a full disk: {said}");
    assert!(full.synth(&["stats"]).status.success(), "the store reads");
    disk.resize("1g");

    let before_export = ["run", "--formats", "none", "--no-report", "--quiet"];
    assert!(full
        .synth(&[&before_export[..], &run].concat())
        .status
        .success());
    disk.leave_free(256);
    let said = fails_saying(
        &full,
        &[RUN, &run[..]].concat(),
        &["the disk is full", "No space left on device", "sharegpt"],
    );
    eprintln!("export on a full disk: {said}");
    let export = full.file("generated/export");
    let left: Vec<_> = std::fs::read_dir(&export)
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "the failed export left {left:?}");
    disk.resize("1g");

    finish(&full, &run);
    assert_same_outputs(&whole, &full, "a disk that filled in verify and in export");
}
