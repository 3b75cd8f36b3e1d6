//! Files written whole: what synth writes outside the store (tasks.jsonl,
//! task_trajectories.jsonl, the report, the review sheet, every export) is written
//! under a temporary name, flushed to the disk (`fsync`) and renamed into place, so
//! that a kill, a full disk or a power cut leaves either the previous file or the
//! new one, never a part.
//!
//! The temporary name is fixed (`<name>.tmp` beside the target), not random: a
//! killed write leaves at most that one file, which the next write of the same
//! target overwrites and renames away, so a resumed run ends with the same files as
//! an uninterrupted one. A write that fails (a full disk) removes its temporary
//! file at once.
//!
//! Folders (an export) are built elsewhere and published by rename
//! (`export::publish`); [`sync_tree`] makes their contents durable first.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The temporary file beside `path` that [`write_with`] writes first.
pub fn temporary(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_os_string());
    name.push(".tmp");
    path.with_file_name(name)
}

/// Writes `path` whole: creates its folder, lets `fill` write the contents into
/// `<path>.tmp`, flushes and syncs it, renames it to `path` and syncs the folder.
/// Returns what `fill` returned. On any error the temporary file is removed and the
/// previous `path`, if any, is left as it was.
///
/// # Errors
/// The first I/O error of creating, writing, syncing or renaming (or `fill`'s own).
pub fn write_with<T>(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<T>,
) -> std::io::Result<T> {
    let parent = parent_of(path);
    std::fs::create_dir_all(parent)?;
    let tmp = temporary(path);
    let written = (|| {
        let mut w = BufWriter::new(File::create(&tmp)?);
        let value = fill(&mut w)?;
        let file = w
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)?;
        Ok(value)
    })();
    match written {
        Ok(value) => {
            sync_dir(parent)?;
            Ok(value)
        }
        Err(e) => {
            // Best effort: the error to report is the write's, not the clean-up's.
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// [`write_with`] for a `fill` that can fail with an error of its own (a store
/// error while copying stored records): such an error ends the write as an I/O
/// error would (nothing replaces `path`) and comes back as the inner `Err`.
///
/// # Errors
/// The outer error is the I/O error of the write; the inner one is `fill`'s.
pub fn try_write_with<T, E>(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> Result<T, E>,
) -> std::io::Result<Result<T, E>> {
    let mut failed = None;
    let written = write_with(path, |w| match fill(w) {
        Ok(value) => Ok(value),
        Err(e) => {
            failed = Some(e);
            Err(std::io::Error::other("the contents could not be made"))
        }
    });
    match (written, failed) {
        (_, Some(e)) => Ok(Err(e)),
        (Ok(value), None) => Ok(Ok(value)),
        (Err(e), None) => Err(e),
    }
}

/// [`write_with`] for contents already in memory.
///
/// # Errors
/// As [`write_with`].
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, |w| w.write_all(bytes))
}

/// The folder a file lives in (`.` for a bare name).
fn parent_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Syncs a folder, so that the names created or renamed in it survive a power
/// cut. Where a folder cannot be opened for syncing (not on Unix), nothing is done.
///
/// # Errors
/// The I/O error of opening or syncing the folder.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    if cfg!(unix) {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// Syncs every file and folder under `dir` (and `dir` itself): what a folder that
/// is about to be renamed into place holds is on the disk before the rename.
///
/// # Errors
/// The first I/O error, with the path it concerns.
pub fn sync_tree(dir: &Path) -> Result<(), (PathBuf, std::io::Error)> {
    let at = |p: &Path| {
        let p = p.to_path_buf();
        move |e| (p, e)
    };
    for entry in std::fs::read_dir(dir).map_err(at(dir))? {
        let path = entry.map_err(at(dir))?.path();
        if path.is_dir() {
            sync_tree(&path)?;
        } else {
            File::open(&path)
                .and_then(|f| f.sync_all())
                .map_err(at(&path))?;
        }
    }
    sync_dir(dir).map_err(at(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_and_replaces_the_previous_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("tasks.jsonl");
        write(&path, b"one\n").unwrap();
        write(&path, b"two\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two\n");
        assert!(!temporary(&path).exists());
    }

    #[test]
    fn a_failed_write_keeps_the_previous_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.html");
        write(&path, b"old").unwrap();
        let err = write_with(&path, |w| {
            w.write_all(b"half")?;
            Err::<(), _>(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert!(!temporary(&path).exists());
    }

    #[test]
    fn a_failed_fill_keeps_the_previous_file_and_returns_its_own_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pool.jsonl");
        write(&path, b"old").unwrap();
        let inner = try_write_with(&path, |w| {
            w.write_all(b"half").unwrap();
            Err::<(), &str>("store query failed")
        })
        .unwrap();
        assert_eq!(inner, Err("store query failed"));
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert!(!temporary(&path).exists());
        assert_eq!(try_write_with(&path, |_| Ok::<_, ()>(7)).unwrap(), Ok(7));
    }

    #[test]
    fn a_temporary_left_by_a_kill_is_overwritten_and_renamed_away() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.jsonl");
        std::fs::write(temporary(&path), b"a killed write's half").unwrap();
        write(&path, b"whole").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"whole");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn syncs_a_tree() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("images/tasks")).unwrap();
        std::fs::write(dir.path().join("images/tasks/0.png"), b"png").unwrap();
        std::fs::write(dir.path().join("data.json"), b"[]").unwrap();
        sync_tree(dir.path()).unwrap();
        let missing = dir.path().join("gone");
        assert_eq!(sync_tree(&missing).unwrap_err().0, missing);
    }
}
