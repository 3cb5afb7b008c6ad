//! The database lock: an OS file lock on `LOCK`, whose content is the holder's pid.
//!
//! The OS lock is what counts: a `LOCK` file left by a process that died is simply locked again.
//! The pid only serves the message a second opener shows.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Name of the lock file inside the database directory.
pub(crate) const LOCK_FILE: &str = "LOCK";

/// How many times (10 ms apart) to retry a lock that this very process last recorded.
const OWN_LOCK_RETRIES: u32 = 100;

/// Held for as long as the store is open; dropping it releases the lock.
#[derive(Debug)]
pub(crate) struct DbLock {
    file: File,
    path: PathBuf,
}

impl DbLock {
    /// Takes the lock of the database directory `dir`, creating `LOCK` if needed.
    ///
    /// `shown` is the path used in error messages (as the caller gave it).
    pub(crate) fn acquire(dir: &Path, shown: &Path) -> Result<DbLock> {
        let path = dir.join(LOCK_FILE);
        // No truncation here: the file may belong to a live holder whose pid we want to report.
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|source| Error::Io { action: "open the lock file", path: path.clone(), source })?;
        // The lock follows the open file, which a child process forked by another thread shares until
        // it execs: this process can see its own released lock held for a moment. Only then retry.
        let mut attempts = 0;
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(DbLock { file, path }),
                Err(TryLockError::WouldBlock) => {
                    let pid = read_pid(&path);
                    if pid == Some(std::process::id()) && attempts < OWN_LOCK_RETRIES {
                        attempts += 1;
                        std::thread::sleep(std::time::Duration::from_millis(10));
                        continue;
                    }
                    return Err(Error::Locked { path: shown.to_path_buf(), pid });
                }
                Err(TryLockError::Error(source)) => return Err(Error::Io { action: "lock", path, source }),
            }
        }
    }

    /// Writes this process's id into the lock file.
    pub(crate) fn record_pid(&mut self) -> Result<()> {
        let pid = std::process::id();
        let io = |source| Error::Io { action: "write the lock file", path: self.path.clone(), source };
        self.file.set_len(0).map_err(io)?;
        self.file.seek(SeekFrom::Start(0)).map_err(io)?;
        writeln!(self.file, "{pid}").map_err(io)?;
        self.file.flush().map_err(io)
    }
}

/// Whether a database's lock is held, and by which process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockState {
    /// No process has the database open (or there is no database).
    Free,
    /// A process has it open: the pid its `LOCK` file records, when readable.
    Held { pid: Option<u32> },
}

/// Whether the database at `dir` is open in some process (this one included), without opening it.
/// The OS lock decides, as for an opener: a process that died holds nothing.
pub fn lock_state(dir: &Path) -> Result<LockState> {
    let path = dir.join(LOCK_FILE);
    let file = match OpenOptions::new().read(true).write(true).open(&path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(LockState::Free),
        Err(source) => return Err(Error::Io { action: "open the lock file", path, source }),
    };
    match file.try_lock() {
        // Released when `file` is dropped, at once.
        Ok(()) => Ok(LockState::Free),
        Err(TryLockError::WouldBlock) => Ok(LockState::Held { pid: read_pid(&path) }),
        Err(TryLockError::Error(source)) => Err(Error::Io { action: "lock", path, source }),
    }
}

/// The pid recorded in a lock file; `None` when it is empty, unreadable or not a number
/// (the holder may not have written it yet).
fn read_pid(path: &Path) -> Option<u32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}
