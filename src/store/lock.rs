//! The writer lock: one process at a time writes to a store.
//!
//! The lock is an exclusive OS file lock (`flock` on Unix, `LockFileEx` on
//! Windows, through [`std::fs::File::try_lock`]) on a file beside the store,
//! `<store>.lock`. The operating system releases it when the process ends, however
//! it ends, so a killed run never leaves the store locked. The file's text names
//! the holder (process id, command, start time) for the message a second writer
//! prints; the text is information only, the lock is what counts.
//!
//! Readers (`synth stats`, `synth report`, `synth pool export`) take no lock: SQLite's
//! WAL mode lets them read committed data beside the writer.

use std::fs::{File, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use super::StoreError;

/// A held writer lock; released on drop (or when the process ends).
#[derive(Debug)]
pub struct WriterLock {
    path: PathBuf,
    // Held for its lock; the OS releases it when the file is closed.
    _file: File,
}

/// The lock file of the store at `store`: `<store>.lock` beside it.
pub fn lock_path(store: &Path) -> PathBuf {
    let mut name = store.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

impl WriterLock {
    /// Takes the writer lock of the store at `store` without waiting.
    ///
    /// # Errors
    /// [`StoreError::Busy`] when another process holds it (with the holder's own
    /// description), [`StoreError::Lock`] when the lock file cannot be opened or
    /// locked.
    pub fn acquire(store: &Path, holder: &str) -> Result<WriterLock, StoreError> {
        let path = lock_path(store);
        let lock_err = |source| StoreError::Lock {
            path: path.clone(),
            source,
        };
        let mut file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(lock_err)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                // The holder may be rewriting the text; a partial read only
                // shortens the message.
                let _ = file.read_to_string(&mut text);
                return Err(StoreError::Busy {
                    path: store.to_path_buf(),
                    holder: text.trim().to_string(),
                });
            }
            Err(TryLockError::Error(source)) => return Err(lock_err(source)),
        }
        file.set_len(0).map_err(lock_err)?;
        file.rewind().map_err(lock_err)?;
        writeln!(file, "{holder}").map_err(lock_err)?;
        Ok(WriterLock { path, _file: file })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// A description of this process for the lock file: its id, the command line and
/// when it started (UTC).
pub fn this_process() -> String {
    let args: Vec<String> = std::env::args().collect();
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!(
        "process {} `{}`, started {}",
        std::process::id(),
        args.join(" "),
        utc(since)
    )
}

/// `YYYY-MM-DD HH:MM:SS UTC` of a Unix time (days to civil date after Howard
/// Hinnant's algorithm; no date crate for one line of a message).
fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rem / 3_600,
        rem % 3_600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("s.sqlite");
        let first = WriterLock::acquire(&store, "first writer").unwrap();
        assert_eq!(first.path(), dir.path().join("s.sqlite.lock"));
        match WriterLock::acquire(&store, "second writer") {
            Err(StoreError::Busy { path, holder }) => {
                assert_eq!(path, store);
                assert_eq!(holder, "first writer");
            }
            other => panic!("expected Busy, got {other:?}"),
        }
        drop(first);
        let again = WriterLock::acquire(&store, "second writer").unwrap();
        let text = std::fs::read_to_string(again.path()).unwrap();
        assert_eq!(text, "second writer\n");
    }

    #[test]
    fn times_are_utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400 + 3_661), "2000-02-29 01:01:01 UTC");
        assert_eq!(utc(1_795_525_377), "2026-11-24 13:02:57 UTC");
    }
}
