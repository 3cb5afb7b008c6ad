//! drsg-testdata: fixture repositories built with the real `git` under a pinned environment.
//!
//! Commit ids are the same on every machine: no user or system config is read, the author is fixed,
//! and commit dates advance by one minute per commit from a fixed start, in UTC.
//!
//! Small cases use the inline multi-commit format:
//!
//! ```text
//! //- commit: add client
//! //- /src/lib.rs
//! pub fn a() {}
//! //- /Cargo.toml
//! [package]
//! name = "demo"
//! //- commit: drop it
//! //- delete /src/lib.rs
//! ```
//!
//! Text before the first `//- commit:` line that names files is committed as "initial".
//! This crate is a dev-dependency only.
//!
//! `self-fold-check.sh` folds a clone of this repository through commits, a module rename, a branch
//! switch, a rebase and the watch loop, comparing with a fresh index at each step (`.ci/run` runs
//! it with the debug binary).

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A git repository in a temporary directory, removed on drop.
pub struct Fixture {
    dir: tempfile::TempDir,
    root: PathBuf,
    commits: Cell<u32>,
}

/// The fixed first commit time (2024-01-01T00:00:00Z) and the step between commits.
const EPOCH: u64 = 1_704_067_200;
const STEP: u64 = 60;

impl Fixture {
    /// An empty repository with branch `main` and no commits.
    pub fn new() -> Fixture {
        let dir = tempfile::Builder::new().prefix("drsg-fixture-").tempdir().expect("create a temp dir");
        // The repository lives in a named subdirectory so a plane defaults to a stable name.
        let root = dir.path().join("repo");
        std::fs::create_dir(&root).expect("create repo dir");
        let fixture = Fixture { dir, root, commits: Cell::new(0) };
        fixture.git(&["init", "-q", "-b", "main"]);
        fixture
    }

    /// A repository built from the inline format (see the crate docs).
    pub fn inline(spec: &str) -> Fixture {
        let fixture = Fixture::new();
        fixture.apply_inline(spec);
        fixture
    }

    /// Apply inline-format commits on top of the current state.
    pub fn apply_inline(&self, spec: &str) {
        let mut message: Option<String> = None;
        let mut current: Option<(String, String)> = None;
        let mut dirty = false;
        let flush_file = |current: &mut Option<(String, String)>| {
            if let Some((path, text)) = current.take() {
                self.write(&path, &text);
            }
        };
        for line in spec.lines() {
            if let Some(rest) = line.strip_prefix("//- ") {
                flush_file(&mut current);
                if let Some(msg) = rest.strip_prefix("commit:") {
                    if dirty {
                        self.commit_all(message.as_deref().unwrap_or("initial"));
                    }
                    message = Some(msg.trim().to_owned());
                    dirty = false;
                } else if let Some(path) = rest.strip_prefix("delete ") {
                    self.remove(path.trim().trim_start_matches('/'));
                    dirty = true;
                } else if let Some(path) = rest.strip_prefix('/') {
                    current = Some((path.trim().to_owned(), String::new()));
                    dirty = true;
                } else {
                    panic!("unknown inline fixture directive: {line}");
                }
            } else if let Some((_, text)) = current.as_mut() {
                text.push_str(line);
                text.push('\n');
            }
        }
        flush_file(&mut current);
        if dirty {
            self.commit_all(message.as_deref().unwrap_or("initial"));
        }
    }

    /// The repository's working tree.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// The temporary directory holding the repository (for files that must sit outside the tree).
    pub fn outside(&self) -> &Path {
        self.dir.path()
    }

    /// Write a file (creating directories), relative to the repository root.
    pub fn write(&self, path: &str, text: &str) {
        self.write_bytes(path, text.as_bytes());
    }

    pub fn write_bytes(&self, path: &str, bytes: &[u8]) {
        let full = self.root.join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).expect("create parent dirs");
        }
        std::fs::write(&full, bytes).expect("write fixture file");
    }

    pub fn remove(&self, path: &str) {
        let full = self.root.join(path);
        if full.is_dir() {
            std::fs::remove_dir_all(full).expect("remove fixture dir");
        } else {
            std::fs::remove_file(full).expect("remove fixture file");
        }
    }

    /// `git add -A` and commit with the next pinned date; returns the new commit id.
    pub fn commit_all(&self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.commit(message)
    }

    /// Commit what is staged (allowing an empty commit); returns the new commit id.
    pub fn commit(&self, message: &str) -> String {
        let n = self.commits.get();
        self.commits.set(n + 1);
        let date = format!("{} +0000", EPOCH + STEP * u64::from(n));
        let out = self
            .command(&["commit", "-q", "--allow-empty", "--no-verify", "-m", message])
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .output()
            .expect("run git commit");
        assert!(out.status.success(), "git commit failed: {}", String::from_utf8_lossy(&out.stderr));
        self.git(&["rev-parse", "HEAD"]).trim().to_owned()
    }

    /// Run git in the repository with the pinned environment; panics on failure; returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.command(args).output().expect("run git");
        assert!(out.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).expect("git output is UTF-8")
    }

    /// A `git` command in the repository with the pinned environment, for callers that need the status.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("git");
        cmd.args(args).current_dir(&self.root);
        pin_git_env(&mut cmd);
        cmd
    }
}

impl Default for Fixture {
    fn default() -> Self {
        Fixture::new()
    }
}

/// Make a `git` command independent of the machine: no global or system config, fixed identity, UTC.
pub fn pin_git_env(cmd: &mut Command) {
    cmd.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Drsg Test")
        .env("GIT_AUTHOR_EMAIL", "test@drsg.invalid")
        .env("GIT_COMMITTER_NAME", "Drsg Test")
        .env("GIT_COMMITTER_EMAIL", "test@drsg.invalid")
        .env("GIT_AUTHOR_DATE", format!("{EPOCH} +0000"))
        .env("GIT_COMMITTER_DATE", format!("{EPOCH} +0000"))
        .env("TZ", "UTC")
        .env("LC_ALL", "C");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_commits_are_reproducible() {
        let spec = "//- commit: one\n//- /a.txt\nhello\n//- commit: two\n//- /b/c.txt\nworld\n//- delete /a.txt\n";
        let a = Fixture::inline(spec);
        let b = Fixture::inline(spec);
        let head_a = a.git(&["rev-parse", "HEAD"]);
        assert_eq!(head_a, b.git(&["rev-parse", "HEAD"]));
        assert_eq!(a.git(&["log", "--format=%s"]), "two\none\n");
        assert!(!a.path().join("a.txt").exists());
        assert_eq!(std::fs::read_to_string(a.path().join("b/c.txt")).expect("read"), "world\n");
    }
}
