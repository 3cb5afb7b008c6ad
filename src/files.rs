//! The tree's files for the verbs that show text, confined to the tree: a path is refused when it
//! is absolute, uses `..`, or resolves (through symlinks) outside the tree's canonical root.

use std::path::{Component, Path, PathBuf};

use drsg_query::{FileError, SourceFiles};
use ignore::{WalkBuilder, WalkState};

/// Files larger than this are not read for a snippet.
const MAX_READ: u64 = 64 * 1024 * 1024;

/// Reads a tree on disk.
pub struct DiskFiles;

/// The canonical path of `path` inside `root`, or why it is refused.
pub fn confine(root: &Path, path: &str) -> Result<PathBuf, FileError> {
    let shown_root = || root.display().to_string();
    let escapes = || FileError::Escapes { path: path.to_owned(), root: shown_root() };
    let rel = Path::new(path);
    if rel.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err(escapes());
    }
    let io = |e: std::io::Error| FileError::Io { path: root.display().to_string(), message: e.to_string() };
    let root = root.canonicalize().map_err(io)?;
    let full = match root.join(rel).canonicalize() {
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

    fn visit(
        &self,
        root: &Path,
        scope: Option<&str>,
        all_files: bool,
        visit: &(dyn Fn(&str, &[u8]) + Sync),
    ) -> Result<(), FileError> {
        let io = |e: std::io::Error| FileError::Io { path: root.display().to_string(), message: e.to_string() };
        let canonical_root = root.canonicalize().map_err(io)?;
        let start = match scope {
            Some(scope) => confine(root, scope)?,
            None => canonical_root.clone(),
        };
        let honour = !all_files;
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
            .filter_entry(|entry| entry.file_name() != ".git")
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
}
