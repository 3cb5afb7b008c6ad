//! drsg-watch: tells when a repository's HEAD may have moved.
//!
//! It watches the files git writes when HEAD or a ref moves (`HEAD`, `refs/**`, `packed-refs`,
//! `logs/**`) with the platform's file-system events (notify, debounced), or by polling their sizes and
//! modification times where events are unavailable, and sends a [`Event::Moved`] for each burst of
//! changes. It knows nothing of indexing: the caller compares HEAD with what it has and acts.
//!
//! The events come through notify-debouncer-full; polling is also used when asked for. Lock files and
//! directory events are not moves, and the polling baseline is taken before `start` returns, so no
//! change after it is missed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use notify_debouncer_full::notify::RecursiveMode;
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

/// What the watcher reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// HEAD, a ref, `packed-refs` or a reflog changed: HEAD may point elsewhere now.
    Moved,
    /// The watcher saw an error (it keeps watching).
    Error(String),
}

/// Why watching could not start.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("{0} is not a git directory (no HEAD file)")]
    NotAGitDir(PathBuf),
    #[error("cannot watch {path}: {message}")]
    Watch { path: PathBuf, message: String },
}

/// How changes are noticed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// File-system events, falling back to polling when they cannot be set up.
    Events,
    /// Polling every interval.
    Poll(Duration),
}

/// A running watch; dropping it (or [`GitWatch::stop`]) ends it.
pub struct GitWatch {
    rx: Receiver<Event>,
    backend: Backend,
}

enum Backend {
    Events(Box<Debouncer<notify_debouncer_full::notify::RecommendedWatcher, RecommendedCache>>),
    Poll { stop: Arc<AtomicBool>, thread: Option<JoinHandle<()>> },
}

/// Debounce window for file-system events: a commit or a rebase writes several files in a burst. Short,
/// because the window is most of the time from a commit to its answer; an event that comes before the
/// ref moved finds HEAD where it was, and the ref's own event follows.
const DEBOUNCE: Duration = Duration::from_millis(25);
/// Polling interval when events are unavailable.
pub const DEFAULT_POLL: Duration = Duration::from_millis(500);

impl GitWatch {
    /// Watch the git directories `dirs` (a worktree's own git directory and the common one, which
    /// may be the same).
    pub fn start(dirs: &[PathBuf], mode: Mode) -> Result<GitWatch, WatchError> {
        for dir in dirs.iter().take(1) {
            if !dir.join("HEAD").is_file() {
                return Err(WatchError::NotAGitDir(dir.clone()));
            }
        }
        let (tx, rx) = channel();
        let backend = match mode {
            Mode::Events => match events(dirs, tx.clone()) {
                Ok(debouncer) => Backend::Events(Box::new(debouncer)),
                Err(_) => poll(dirs, DEFAULT_POLL, tx),
            },
            Mode::Poll(interval) => poll(dirs, interval, tx),
        };
        Ok(GitWatch { rx, backend })
    }

    /// `events` or `polling`.
    pub fn backend(&self) -> &'static str {
        match self.backend {
            Backend::Events(_) => "events",
            Backend::Poll { .. } => "polling",
        }
    }

    /// The next event, waiting at most `timeout`; `None` when none came. Events that arrive together
    /// are returned one by one; callers usually drain them with [`GitWatch::drain`].
    pub fn next(&self, timeout: Duration) -> Option<Event> {
        self.rx.recv_timeout(timeout).ok()
    }

    /// Discard the events already waiting; returns how many there were.
    pub fn drain(&self) -> usize {
        self.rx.try_iter().count()
    }

    /// Stop watching and wait for the watcher's threads.
    pub fn stop(self) {
        match self.backend {
            Backend::Events(debouncer) => debouncer.stop(),
            Backend::Poll { stop, mut thread } => {
                stop.store(true, Ordering::Relaxed);
                if let Some(thread) = thread.take() {
                    let _ = thread.join();
                }
            }
        }
    }
}

/// Whether a path inside a git directory is one git writes when HEAD or a ref moves.
pub fn is_ref_path(git_dir: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(git_dir) else { return false };
    let rel = rel.to_string_lossy();
    if rel.ends_with(".lock") {
        return false;
    }
    rel == "HEAD" || rel == "packed-refs" || rel.starts_with("refs") || rel.starts_with("logs")
}

/// Whether an event kind can mean a change: any but a read (opening, reading, closing unwritten).
fn changes(kind: &notify_debouncer_full::notify::EventKind) -> bool {
    use notify_debouncer_full::notify::EventKind;
    use notify_debouncer_full::notify::event::{AccessKind, AccessMode};
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

fn events(
    dirs: &[PathBuf],
    tx: Sender<Event>,
) -> Result<Debouncer<notify_debouncer_full::notify::RecommendedWatcher, RecommendedCache>, WatchError> {
    let roots: Vec<PathBuf> = dirs.iter().map(|d| d.canonicalize().unwrap_or_else(|_| d.clone())).collect();
    let filter_roots = roots.clone();
    let mut debouncer = new_debouncer(DEBOUNCE, None, move |result: DebounceEventResult| match result {
        Ok(events) => {
            let relevant = events.iter().any(|e| {
                // Directory events (a lock file created in `refs/heads`) say nothing by themselves, and
                // neither does a read: every answer that checks HEAD opens it.
                changes(&e.kind)
                    && e.paths.iter().any(|p| !p.is_dir() && filter_roots.iter().any(|root| is_ref_path(root, p)))
            });
            if relevant {
                let _ = tx.send(Event::Moved);
            }
        }
        Err(errors) => {
            for e in errors {
                let _ = tx.send(Event::Error(e.to_string()));
            }
        }
    })
    .map_err(|e| WatchError::Watch { path: dirs.first().cloned().unwrap_or_default(), message: e.to_string() })?;
    for root in &roots {
        // The directory itself (HEAD, packed-refs are replaced by renames), refs and logs below it.
        debouncer
            .watch(root, RecursiveMode::NonRecursive)
            .map_err(|e| WatchError::Watch { path: root.clone(), message: e.to_string() })?;
        for sub in ["refs", "logs"] {
            let path = root.join(sub);
            if path.is_dir() {
                debouncer
                    .watch(&path, RecursiveMode::Recursive)
                    .map_err(|e| WatchError::Watch { path: path.clone(), message: e.to_string() })?;
            }
        }
    }
    Ok(debouncer)
}

fn poll(dirs: &[PathBuf], interval: Duration, tx: Sender<Event>) -> Backend {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let dirs = dirs.to_vec();
    // The first picture is taken before `start` returns, so no change after it is missed.
    let mut last = snapshot(&dirs);
    let thread = std::thread::Builder::new()
        .name("drsg-watch-poll".into())
        .spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(interval);
                let now = snapshot(&dirs);
                if now != last {
                    last = now;
                    if tx.send(Event::Moved).is_err() {
                        break;
                    }
                }
            }
        })
        .ok();
    Backend::Poll { stop, thread }
}

/// Size and modification time of every file git writes when refs move.
fn snapshot(dirs: &[PathBuf]) -> BTreeMap<PathBuf, (u64, Option<SystemTime>)> {
    let mut out = BTreeMap::new();
    for dir in dirs {
        for name in ["HEAD", "packed-refs"] {
            record(&dir.join(name), &mut out);
        }
        for sub in ["refs", "logs"] {
            let mut stack = vec![dir.join(sub)];
            while let Some(path) = stack.pop() {
                let Ok(entries) = std::fs::read_dir(&path) else { continue };
                for entry in entries.flatten() {
                    let p = entry.path();
                    match entry.file_type() {
                        Ok(t) if t.is_dir() => stack.push(p),
                        Ok(t) if t.is_file() => record(&p, &mut out),
                        _ => {}
                    }
                }
            }
        }
    }
    out
}

fn record(path: &Path, out: &mut BTreeMap<PathBuf, (u64, Option<SystemTime>)>) {
    if let Ok(meta) = std::fs::metadata(path) {
        out.insert(path.to_path_buf(), (meta.len(), meta.modified().ok()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_git_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("refs/heads")).expect("refs");
        std::fs::create_dir_all(dir.path().join("logs")).expect("logs");
        std::fs::write(dir.path().join("HEAD"), "ref: refs/heads/main\n").expect("HEAD");
        dir
    }

    fn wait_for_move(watch: &GitWatch) -> bool {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while std::time::Instant::now() < deadline {
            if watch.next(Duration::from_millis(100)) == Some(Event::Moved) {
                return true;
            }
        }
        false
    }

    #[test]
    fn a_ref_write_is_an_event_and_other_files_are_not() {
        for mode in [Mode::Events, Mode::Poll(Duration::from_millis(50))] {
            let dir = fake_git_dir();
            let watch = GitWatch::start(&[dir.path().to_path_buf()], mode).expect("start");
            // Writes git makes that do not move anything.
            std::fs::write(dir.path().join("index"), "x").expect("index");
            std::fs::write(dir.path().join("refs/heads/main.lock"), "x").expect("lock");
            if watch.backend() == "events" {
                assert_eq!(watch.next(Duration::from_millis(400)), None, "{mode:?}");
            }
            std::fs::write(dir.path().join("refs/heads/main"), "0123\n").expect("ref");
            assert!(wait_for_move(&watch), "{mode:?}: no event for a ref write");
            watch.drain();
            std::fs::write(dir.path().join("HEAD"), "ref: refs/heads/other\n").expect("HEAD");
            assert!(wait_for_move(&watch), "{mode:?}: no event for a HEAD write");
            watch.stop();
        }
    }

    #[test]
    fn not_a_git_dir() {
        let dir = tempfile::tempdir().expect("temp dir");
        let err = GitWatch::start(&[dir.path().to_path_buf()], Mode::Events).err().expect("refused");
        assert!(err.to_string().ends_with("is not a git directory (no HEAD file)"), "{err}");
    }

    #[test]
    fn ref_paths() {
        let git = Path::new("/r/.git");
        for (path, expected) in [
            ("/r/.git/HEAD", true),
            ("/r/.git/refs/heads/main", true),
            ("/r/.git/packed-refs", true),
            ("/r/.git/logs/HEAD", true),
            ("/r/.git/refs/heads/main.lock", false),
            ("/r/.git/index", false),
            ("/r/.git/objects/ab/cdef", false),
            ("/r/src/HEAD", false),
        ] {
            assert_eq!(is_ref_path(git, Path::new(path)), expected, "{path}");
        }
    }
}
