//! The tree's files for the verbs that show text, confined to the tree: a path is refused when it
//! is absolute, uses `..`, or resolves (through symlinks) outside the tree's canonical root.

use std::path::{Component, Path, PathBuf};

use drsg_query::{FileError, SourceFiles};
use ignore::{WalkBuilder, WalkState};

/// How long a HEAD read is reused.
const HEAD_TTL: std::time::Duration = std::time::Duration::from_millis(500);

/// The last HEAD read, of which root and when (see [`DiskFiles::head`]).
static HEADS: std::sync::Mutex<Option<(PathBuf, std::time::Instant, Option<String>)>> = std::sync::Mutex::new(None);

/// Files larger than this are not read for a snippet.
const MAX_READ: u64 = 64 * 1024 * 1024;

/// Reads a tree on disk.
pub struct DiskFiles;

/// `path` relative to `root` by its text alone, or why it is refused: an absolute path must lie under
/// `root` (as given, or canonical when `root` exists), since editors hand out absolute paths; `..`
/// and anything under `.git` are refused.
pub fn lexical(root: &Path, path: &str) -> Result<PathBuf, FileError> {
    let escapes = || FileError::Escapes { path: path.to_owned(), root: root.display().to_string() };
    let mut rel = Path::new(path.trim());
    if rel.is_absolute() {
        let canonical = root.canonicalize().ok();
        rel = rel
            .strip_prefix(root)
            .or_else(|e| canonical.as_deref().map_or(Err(e), |c| rel.strip_prefix(c)))
            .map_err(|_| escapes())?;
    }
    if rel.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err(escapes());
    }
    if rel.components().any(|c| c.as_os_str() == ".git") {
        return Err(FileError::GitDir { path: path.to_owned() });
    }
    Ok(rel.components().filter(|c| matches!(c, Component::Normal(_))).collect())
}

/// The canonical path of `path` inside `root`, or why it is refused: the checks of [`lexical`], then
/// the canonical path (symlinks resolved) must stay under the canonical root.
pub fn confine(root: &Path, path: &str) -> Result<PathBuf, FileError> {
    let shown_root = || root.display().to_string();
    let escapes = || FileError::Escapes { path: path.to_owned(), root: shown_root() };
    let io = |e: std::io::Error| FileError::Io { path: root.display().to_string(), message: e.to_string() };
    let rel = lexical(root, path)?;
    let root = root.canonicalize().map_err(io)?;
    let full = match root.join(&rel).canonicalize() {
        Ok(full) => full,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(FileError::NotFound { path: path.to_owned(), root: shown_root() });
        }
        Err(e) => return Err(FileError::Io { path: path.to_owned(), message: e.to_string() }),
    };
    if !full.starts_with(&root) {
        return Err(escapes());
    }
    Ok(full)
}

impl SourceFiles for DiskFiles {
    fn read(&self, root: &Path, path: &str) -> Result<Vec<u8>, FileError> {
        let full = confine(root, path)?;
        let io = |e: std::io::Error| FileError::Io { path: path.to_owned(), message: e.to_string() };
        let meta = std::fs::metadata(&full).map_err(io)?;
        if !meta.is_file() {
            return Err(FileError::NotText { path: path.to_owned() });
        }
        if meta.len() > MAX_READ {
            return Err(FileError::Io {
                path: path.to_owned(),
                message: format!("{} bytes is too large to show", meta.len()),
            });
        }
        std::fs::read(&full).map_err(io)
    }

    fn head(&self, root: &Path) -> Option<String> {
        // Opening the repository costs about a millisecond; a server answering many calls reuses the
        // answer for a moment (a HEAD move is seen within HEAD_TTL).
        let cached = HEADS.lock().ok()?;
        if let Some((at, when, head)) = cached.as_ref()
            && at == root
            && when.elapsed() < HEAD_TTL
        {
            return head.clone();
        }
        drop(cached);
        self.head_now(root)
    }

    fn head_now(&self, root: &Path) -> Option<String> {
        let head = drsg_indexer::Repo::discover(root).and_then(|repo| repo.head().commit);
        if let Ok(mut cached) = HEADS.lock() {
            *cached = Some((root.to_path_buf(), std::time::Instant::now(), head.clone()));
        }
        head
    }

    fn modified(&self, root: &Path, path: &str) -> Option<i64> {
        let full = confine(root, path).ok()?;
        let modified = std::fs::metadata(full).ok()?.modified().ok()?;
        let secs = modified.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
        i64::try_from(secs).ok()
    }

    fn visit(
        &self,
        root: &Path,
        scope: Option<&str>,
        all_files: bool,
        visit: &(dyn Fn(&str, &[u8]) + Sync),
    ) -> Result<(), FileError> {
        let io = |e: std::io::Error| FileError::Io { path: root.display().to_string(), message: e.to_string() };
        let canonical_root = root.canonicalize().map_err(io)?;
        let scope = match scope {
            Some(scope) => Some(confine(root, scope)?),
            None => None,
        };
        let honour = !all_files;
        // With ignore rules on, the walk starts at the root so that the rules apply to the scope
        // itself (an ignored `target/` stays ignored when asked for by name); directories off the way
        // to the scope are pruned.
        let start = match &scope {
            Some(scope) if !honour => scope.clone(),
            _ => canonical_root.clone(),
        };
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(8);
        WalkBuilder::new(&start)
            .hidden(honour)
            .ignore(honour)
            .git_ignore(honour)
            .git_exclude(honour)
            .git_global(false)
            .parents(honour)
            .require_git(false)
            .follow_links(false)
            .threads(threads)
            .filter_entry(move |entry| {
                entry.file_name() != ".git"
                    && scope
                        .as_ref()
                        .is_none_or(|scope| entry.path().starts_with(scope) || scope.starts_with(entry.path()))
            })
            .build_parallel()
            .run(|| {
                let canonical_root = &canonical_root;
                Box::new(move |entry| {
                    let Ok(entry) = entry else { return WalkState::Continue };
                    if !entry.file_type().is_some_and(|t| t.is_file()) {
                        return WalkState::Continue;
                    }
                    let Ok(rel) = entry.path().strip_prefix(canonical_root) else { return WalkState::Continue };
                    let Some(rel) = rel.to_str() else { return WalkState::Continue };
                    if let Ok(bytes) = std::fs::read(entry.path()) {
                        visit(rel, &bytes);
                    }
                    WalkState::Continue
                })
            });
        Ok(())
    }

    fn built_by(&self) -> Option<serde_json::Value> {
        Some(crate::config::built_by())
    }
}
